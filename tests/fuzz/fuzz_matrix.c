/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: matrix.conf, read, validated and expanded against a
 * synthetic 2-socket host (placement and plans included), then its boot
 * order.  An error must name the file and a line, in valid UTF-8.
 */
#include <string.h>

#include "../../harness/matrix/conf.h"
#include "../../harness/plan/cfgplan.h"
#include "../../harness/host/hosttopo.h"
#include "../../common/vtbutil.h"
#include "fuzz.h"

static struct vtb_hosttopo *host;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (vtb_hosttopo_load("pack:2 numa:1 l3:2(size=32MiB) core:4 pu:2", &host)) {
		fprintf(stderr, "fuzz_matrix: %s\n", vtb_errmsg());
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vtb_matrix *m = NULL;
	struct vtb_bootref *order = NULL;
	size_t n = 0;

	if (vtb_matrix_parse("fuzz.conf", (const char *)data, size, &host->ctx, &m) < 0) {
		const char *e = vtb_errmsg();

		CHECK(m == NULL);
		CHECK(vtb_utf8_valid(e, strlen(e)));
		CHECK(!strncmp(e, "fuzz.conf:", 10) || strstr(e, "out of memory"));
		return 0;
	}
	CHECK(m != NULL);
	if (vtb_matrix_boot_order(m, &order, &n) == 0)
		free(order);
	vtb_matrix_free(m);
	return 0;
}
