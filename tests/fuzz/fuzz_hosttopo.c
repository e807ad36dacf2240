/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the host-topology loader on a file, as `--host-topology
 * FILE` reads it: hwloc XML (`lstopo --of xml`) or libvirt capabilities
 * XML (`virsh capabilities`), told apart by the root element.  The input
 * is written to a private temporary file; a topology that loads must
 * give a consistent model (its compact order within its PUs).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/host/hosttopo.h"
#include "../../common/vtbutil.h"
#include "fuzz.h"

static char path[4096];

static void cleanup(void)
{
	unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "%s/vtbfuzz-topo.XXXXXX.xml", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemps(path, 4);
	if (fd < 0) {
		perror("fuzz_hosttopo: mkstemps");
		abort();
	}
	close(fd);
	atexit(cleanup);
	return 0;
}

static void put(const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	CHECK(fd >= 0);
	CHECK(write(fd, data, size) == (ssize_t)size);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vtb_hosttopo *h = NULL;

	put(data, size);
	if (vtb_hosttopo_load(path, &h) == 0) {
		CHECK(h != NULL);
		for (size_t i = 0; i < h->n_compact; i++)
			CHECK(h->compact[i] >= 0);
		vtb_hosttopo_free(h);
	} else {
		const char *e = vtb_errmsg();

		CHECK(h == NULL);
		CHECK(*e);
	}
	return 0;
}
