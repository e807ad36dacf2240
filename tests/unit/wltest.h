/* SPDX-License-Identifier: MIT */
/*
 * Shared by the workload unit tests: the workload under test (W, set by
 * each suite's setup), and its parameters parsed through its own option
 * table, as the agent and matrix.conf do.
 */
#ifndef VTB_WLTEST_H
#define VTB_WLTEST_H

#include <criterion/criterion.h>
#include <stdlib.h>

#include "../../common/opt.h"
#include "../../workloads/workload.h"

static const struct vtb_workload_ops *W;

/* Parses @text for option @name into @params; -1 (vtb_errmsg()) when the
 * option table refuses it.  An unknown name fails the test. */
__attribute__((unused)) static int set(void *params, const char *name, const char *text)
{
	const struct vtb_opt *o = vtb_opt_find(W->opts, name);
	union vtb_optval v;

	cr_assert_not_null(o, "no option '%s'", name);
	if (vtb_opt_parse(o, text, &v))
		return -1;
	vtb_opt_store(o, params, &v);
	return 0;
}

/* A params struct of W with every default applied (caller frees). */
__attribute__((unused)) static void *wl_new_params(void)
{
	void *p = calloc(1, W->params_size);

	cr_assert_not_null(p);
	cr_assert_eq(vtb_opts_defaults(W->opts, p), 0, "%s", vtb_errmsg());
	return p;
}

#endif
