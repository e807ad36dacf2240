/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: /proc/schedstat as a guest kernel gives it, parsed; the
 * input may hold two snapshots split at the first form feed, differenced
 * (before, after) when both parse, and every parsed text differenced
 * against itself and shown as the agent's JSON.  A refusal must leave
 * nothing and name a line; a difference of a text with itself is all
 * zeros and keeps every cpu.
 */
#include <string.h>

#include "../../common/schedstat.h"
#include "../../common/vtbutil.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static const char *level_name(int cpu, int dom, void *arg)
{
	static const char *const names[] = { "SMT", "CLS", "MC", "", NULL, "NUMA", "NUMA" };

	(void)cpu;
	(void)arg;
	return names[(unsigned)dom % VTB_ARRAY_SIZE(names)];
}

/* 0 when @text parses into @s (then checked against itself) */
static int one(const char *text, size_t n, struct vtb_schedstat *s)
{
	struct vtb_schedstat d;
	json_t *notes = NULL;

	if (vtb_schedstat_parse(text, n, s)) {
		CHECK(s->cpus == NULL && s->n_cpus == 0);
		CHECK(!strncmp(vtb_errmsg(), "schedstat line ", 15));
		return -1;
	}
	CHECK(s->n_cpus > 0 && s->n_cpus <= VTB_SS_MAX_CPUS);
	CHECK(vtb_schedstat_diff(s, s, &d, &notes) == 0);
	CHECK(d.n_cpus == s->n_cpus && json_array_size(notes) == 0 && d.timestamp == 0);
	for (size_t i = 0; i < d.n_cpus; i++) {
		CHECK(d.cpus[i].n_domains == s->cpus[i].n_domains);
		CHECK(d.cpus[i].sched_count == 0 && d.cpus[i].run_delay == 0);
		for (size_t j = 0; j < d.cpus[i].n_domains; j++)
			CHECK(d.cpus[i].domains[j].lb[VTB_SS_BUSY].count == 0);
	}
	json_decref(notes);
	json_decref(vtb_schedstat_json(&d, level_name, NULL));
	vtb_schedstat_release(&d);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *ff = memchr(text, '\f', size);
	size_t n = ff ? (size_t)(ff - text) : size;
	struct vtb_schedstat a, b, d;
	json_t *notes = NULL;

	if (one(text, n, &a))
		return 0;
	if (ff && !one(ff + 1, size - n - 1, &b)) {
		if (vtb_schedstat_diff(&a, &b, &d, &notes) == 0) {
			CHECK(d.n_cpus <= b.n_cpus);
			json_decref(vtb_schedstat_json(&d, level_name, NULL));
			vtb_schedstat_release(&d);
		} else {
			CHECK(notes == NULL && d.cpus == NULL);
		}
		json_decref(notes);
		vtb_schedstat_release(&b);
	}
	vtb_schedstat_release(&a);
	return 0;
}
