/* SPDX-License-Identifier: MIT */
/* Option tables: lookup, parsing per type, limits, defaults, suggestions. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/opt.h"
#include "../../common/vtbutil.h"

struct p {
	long long reps;
	long long threads;
	bool nt;
	uint64_t timeout;
	uint64_t size;
	const char *name;
	const char *order;
	const char *cpus;
};

static const char *const orders[] = { "interleave", "sequential", "random:SEED", NULL };
static const char *const modes[] = { "process", "thread", NULL };

static const struct vtb_opt table[] = {
	{ .name = "reps",
	  .type = VTB_OPT_INT,
	  .def = "3",
	  .min = 1,
	  .max = 100000,
	  .help = "repetitions",
	  .shortopt = 'r',
	  .off = offsetof(struct p, reps) },
	{ .name = "threads",
	  .type = VTB_OPT_INT,
	  .flags = VTB_OPT_AUTO,
	  .def = "auto",
	  .min = 1,
	  .max = 1024,
	  .help = "threads",
	  .off = offsetof(struct p, threads) },
	{ .name = "nt",
	  .type = VTB_OPT_BOOL,
	  .def = "no",
	  .help = "non-temporal",
	  .off = offsetof(struct p, nt) },
	{ .name = "timeout",
	  .type = VTB_OPT_TIME,
	  .def = "10m",
	  .help = "per boot",
	  .off = offsetof(struct p, timeout) },
	{ .name = "size",
	  .type = VTB_OPT_SIZE,
	  .flags = VTB_OPT_AUTO,
	  .def = "1G",
	  .min = 4096,
	  .max = 1LL << 40,
	  .help = "array size",
	  .off = offsetof(struct p, size) },
	{ .name = "name", .type = VTB_OPT_STR, .help = "a name", .off = offsetof(struct p, name) },
	{ .name = "order",
	  .type = VTB_OPT_ENUM,
	  .flags = VTB_OPT_ENUM_PREFIX,
	  .def = "interleave",
	  .values = orders,
	  .help = "boot order",
	  .off = offsetof(struct p, order) },
	{ .name = "mode",
	  .type = VTB_OPT_ENUM,
	  .values = modes,
	  .help = "mode",
	  .flags = VTB_OPT_HIDDEN },
	{ .name = "cpus", .type = VTB_OPT_CPULIST, .help = "cpus", .off = offsetof(struct p, cpus) },
	{ .name = "sysctl.", .type = VTB_OPT_STR, .flags = VTB_OPT_PREFIX, .help = "sysctl" },
	{ .name = NULL },
};

static const struct vtb_opt *find(const char *n)
{
	const struct vtb_opt *o = vtb_opt_find(table, n);

	cr_assert_not_null(o, "option %s", n);
	return o;
}

Test(opt, find_exact_and_prefix)
{
	cr_assert_eq(vtb_opt_find(table, "reps"), &table[0]);
	cr_assert_eq(vtb_opt_find(table, "sysctl.kernel.numa_balancing"), &table[9]);
	cr_assert_null(vtb_opt_find(table, "sysctl."));
	cr_assert_null(vtb_opt_find(table, "rep"));
	cr_assert_null(vtb_opt_find(table, "sysctl"));
}

Test(opt, parse_int_limits)
{
	union vtb_optval v;

	cr_assert_eq(vtb_opt_parse(find("reps"), "42", &v), 0);
	cr_assert_eq(v.i, 42);
	cr_assert_eq(vtb_opt_parse(find("reps"), "0", &v), -1);
	cr_assert_str_eq(vtb_errmsg(), "'reps' must be between 1 and 100000, got '0'");
	cr_assert_eq(vtb_opt_parse(find("reps"), "100001", &v), -1);
	cr_assert_eq(vtb_opt_parse(find("reps"), "x", &v), -1);
	cr_assert_str_eq(vtb_errmsg(), "invalid integer 'x' for 'reps'");
	cr_assert_eq(vtb_opt_parse(find("reps"), "auto", &v), -1);
}

Test(opt, parse_auto)
{
	union vtb_optval v;
	struct p p = { 0 };

	p.threads = 7;
	cr_assert_eq(vtb_opt_parse(find("threads"), "auto", &v), 0);
	cr_assert(vtb_opt_is_auto(find("threads"), &v));
	cr_assert_str_eq(v.s, "auto");
	vtb_opt_store(find("threads"), &p, &v);
	cr_assert_eq(p.threads, 0);
	cr_assert_eq(vtb_opt_parse(find("threads"), "4", &v), 0);
	cr_assert_not(vtb_opt_is_auto(find("threads"), &v));
	vtb_opt_store(find("threads"), &p, &v);
	cr_assert_eq(p.threads, 4);
	cr_assert_eq(vtb_opt_parse(find("threads"), "0", &v), -1);
	cr_assert_str_eq(vtb_errmsg(), "'threads' must be between 1 and 1024, got '0'");
	cr_assert_eq(vtb_opt_parse(find("threads"), "many", &v), -1);
	cr_assert_str_eq(vtb_errmsg(), "invalid integer 'many' for 'threads' (or auto)");
}

Test(opt, parse_bool)
{
	union vtb_optval v;

	cr_assert_eq(vtb_opt_parse(find("nt"), "yes", &v), 0);
	cr_assert(v.b);
	cr_assert_eq(vtb_opt_parse(find("nt"), "off", &v), 0);
	cr_assert_not(v.b);
	cr_assert_eq(vtb_opt_parse(find("nt"), "maybe", &v), -1);
	cr_assert_str_eq(vtb_errmsg(), "invalid value 'maybe' for 'nt': expected yes or no");
}

Test(opt, parse_time_size)
{
	union vtb_optval v;

	cr_assert_eq(vtb_opt_parse(find("timeout"), "10m", &v), 0);
	cr_assert_eq(v.u, 600000000000ULL);
	cr_assert_eq(vtb_opt_parse(find("timeout"), "10x", &v), -1);
	cr_assert(strstr(vtb_errmsg(), "bad time '10x' for 'timeout': ") == vtb_errmsg());
	cr_assert_eq(vtb_opt_parse(find("size"), "4K", &v), 0);
	cr_assert_eq(v.u, 4096);
	cr_assert_eq(vtb_opt_parse(find("size"), "4Q", &v), -1);
	cr_assert(strstr(vtb_errmsg(), "bad size '4Q' for 'size': ") == vtb_errmsg(), "%s",
		  vtb_errmsg());
	cr_assert_eq(vtb_opt_parse(find("size"), "1K", &v), -1);
	cr_assert_str_eq(vtb_errmsg(), "'size' must be between 4KiB and 1TiB, got '1K'");
}

Test(opt, parse_enum)
{
	union vtb_optval v;
	const struct vtb_opt *o = find("order");

	cr_assert_eq(vtb_opt_parse(o, "sequential", &v), 0);
	cr_assert_str_eq(v.s, "sequential");
	cr_assert_eq(vtb_opt_parse(o, "random:42", &v), 0);
	cr_assert_str_eq(v.s, "random:42");
	cr_assert_eq(vtb_opt_parse(o, "random:", &v), -1);
	cr_assert_eq(vtb_opt_parse(o, "random", &v), -1);
	cr_assert_eq(vtb_opt_parse(o, "x", &v), -1);
	cr_assert_str_eq(vtb_errmsg(), "invalid value 'x' for 'order': expected one of "
				       "interleave, sequential, random:SEED");
	cr_assert_eq(vtb_opt_parse(find("mode"), "thread", &v), 0);
	cr_assert_eq(vtb_opt_parse(find("mode"), "thread:1", &v), -1);
}

Test(opt, parse_str_cpulist)
{
	union vtb_optval v;
	const char *text = "0-3,8";

	cr_assert_eq(vtb_opt_parse(find("cpus"), text, &v), 0);
	cr_assert_eq(v.s, text);
	cr_assert_eq(vtb_opt_parse(find("cpus"), "3-1x", &v), -1);
	cr_assert(strstr(vtb_errmsg(), "bad cpu list '3-1x' for 'cpus'") == vtb_errmsg());
	cr_assert_eq(vtb_opt_parse(find("name"), "hello", &v), 0);
	cr_assert_str_eq(v.s, "hello");
}

Test(opt, defaults_and_store)
{
	struct p p;
	union vtb_optval v;

	memset(&p, 0, sizeof(p));
	cr_assert_eq(vtb_opts_defaults(table, &p), 0);
	cr_assert_eq(p.reps, 3);
	cr_assert_eq(p.threads, 0);
	cr_assert_eq(p.nt, false);
	cr_assert_eq(p.timeout, 600000000000ULL);
	cr_assert_eq(p.size, 1ULL << 30);
	cr_assert_null(p.name);
	cr_assert_str_eq(p.order, "interleave");
	cr_assert_eq(vtb_opt_parse(find("nt"), "yes", &v), 0);
	vtb_opt_store(find("nt"), &p, &v);
	cr_assert(p.nt);
	cr_assert_eq(vtb_opt_parse(find("size"), "auto", &v), 0);
	vtb_opt_store(find("size"), &p, &v);
	cr_assert_eq(p.size, 0);
}

Test(opt, bad_default_is_reported)
{
	static const struct vtb_opt bad[] = {
		{ .name = "n", .type = VTB_OPT_INT, .def = "0", .min = 1, .max = 2 },
		{ .name = NULL },
	};
	long long x;

	cr_assert_eq(vtb_opts_defaults(bad, &x), -1);
	cr_assert_str_eq(vtb_errmsg(), "bad default for 'n': 'n' must be between 1 and 2, got '0'");
}

Test(opt, edit_distance)
{
	cr_assert_eq(vtb_edit_distance("", ""), 0);
	cr_assert_eq(vtb_edit_distance("abc", ""), 3);
	cr_assert_eq(vtb_edit_distance("kitten", "sitting"), 3);
	cr_assert_eq(vtb_edit_distance("vcpu", "vcpus"), 1);
	cr_assert_eq(vtb_edit_distance("flaw", "lawn"), 2);
}

Test(opt, suggest)
{
	static const char *const c[] = { "vcpus", "topology", "pinning", "memory", NULL };

	cr_assert_str_eq(vtb_suggest(c, "vcpu"), "vcpus");
	cr_assert_str_eq(vtb_suggest(c, "topolgy"), "topology");
	cr_assert_str_eq(vtb_suggest(c, "memroy"), "memory");
	cr_assert_null(vtb_suggest(c, "zzzzzz"));
	cr_assert_null(vtb_suggest(c, "x"));
	cr_assert_str_eq(vtb_opt_suggest(table, "rep"), "reps");
	cr_assert_str_eq(vtb_opt_suggest(table, "thread"), "threads");
	cr_assert_str_eq(vtb_opt_suggest(table, "sysctl_kernel.x"), "sysctl.");
	cr_assert_null(vtb_opt_suggest(table, "mod"), "hidden options are not suggested");
	cr_assert_null(vtb_opt_suggest(table, "completely-different"));
}

Test(opt, help_is_aligned)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	vtb_opts_help(f, table, true);
	fclose(f);
	cr_assert_not_null(strstr(buf, "-r, --reps"));
	cr_assert_not_null(strstr(buf, "    --threads"));
	cr_assert_not_null(strstr(buf, "INT 1..100000"));
	cr_assert_not_null(strstr(buf, "interleave|sequential|random:SEED"));
	cr_assert_not_null(strstr(buf, "default 10m"));
	cr_assert_not_null(strstr(buf, "--sysctl.KEY"));
	cr_assert_null(strstr(buf, "mode"), "hidden options are not shown");
	/* Every line puts its help text at the same column. */
	{
		char *line, *save = NULL;
		long col = -1;

		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			const char *h = strstr(line, "repetitions");

			if (!h)
				h = strstr(line, "array size");
			if (!h)
				continue;
			if (col < 0)
				col = h - line;
			cr_assert_eq(h - line, col);
		}
		cr_assert(col > 0);
	}
	free(buf);
}
