/* SPDX-License-Identifier: MIT */
/*
 * What the record parser promises about its result, whatever the stream:
 * every string it keeps is valid UTF-8, the error counts and a cell's
 * error text stay bounded, and every histogram it accepted rebuilds.
 * Shared by fuzz_recparse.c and fuzz_recframe.c.
 */
#ifndef VTB_REC_CHECK_H
#define VTB_REC_CHECK_H

#include <string.h>

#include "../../harness/records/recparse.h"
#include "../../common/hist.h"
#include "../../common/vtbutil.h"
#include "fuzz.h"

static bool utf8(const char *s)
{
	return !s || vtb_utf8_valid(s, strlen(s));
}

static void check_result(const struct vtb_boot_records *r, const struct vtb_rec_limits *lim)
{
	CHECK(r->n_errors <= lim->max_errors);
	for (size_t i = 0; i < r->n_errors; i++)
		CHECK(utf8(r->errors[i]));
	for (size_t i = 0; i < r->n_cells; i++) {
		const struct vtb_rs_cell *c = &r->cells[i];

		CHECK(utf8(c->cell) && utf8(c->workload) && utf8(c->error) && utf8(c->info_json));
		/* 8 errors of 4 KiB at most, 16 KiB in all, and the count */
		CHECK(!c->error || strlen(c->error) <= 16 * 1024 + 64);
	}
	for (size_t i = 0; i < r->n_samples; i++)
		CHECK(utf8(r->samples[i].metric) && utf8(r->samples[i].unit));
	for (size_t i = 0; i < r->n_hists; i++) {
		json_t *p = json_loads(r->hists[i].params_json, 0, NULL);
		json_t *b = json_loads(r->hists[i].buckets_json, 0, NULL);
		struct vtb_hist h;

		CHECK(p && b);
		CHECK(vtb_hist_from_json(&h, p, b) == 0);
		vtb_hist_release(&h);
		json_decref(p);
		json_decref(b);
	}
}

#endif
