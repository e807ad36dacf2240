/* SPDX-License-Identifier: MIT */
/*
 * The guest view against the plan: normalised trees and digests, the
 * levels the plan predicts (the guest kernel's rules), and the diff of a
 * mismatch.  Views are hand-written in the shape a Debian 6.1 guest gives
 * under TCG with kvm64 (domain0 named MC for 1 socket x 2 cores, SMT for
 * 1 x 1 x 2; schedstat lines without names), plans built by hand.  Names
 * from the guest that the kernel never writes become "?"; the diff is one
 * line.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/records/guestview.h"

/* ------------------------------------------------------------ plans */

struct tplan {
	struct vtb_plan p;
	struct vtb_plan_vm vm;
	struct vtb_plan_cell cells[4];
	unsigned dist[16];
};

/* @cells: the vCPU lists of the cells ("0-1", "2-3"), NULL: no cells */
static void plan_of(struct tplan *t, int sockets, int dies, int cores, int threads,
		    const char *const *cells)
{
	size_t c;

	memset(t, 0, sizeof(*t));
	t->p.req.vcpus = sockets * dies * cores * threads;
	t->p.req.vms = 1;
	t->p.sockets = sockets;
	t->p.dies = dies;
	t->p.cores = cores;
	t->p.threads = threads;
	t->p.vm = &t->vm;
	for (c = 0; cells && cells[c]; c++)
		cr_assert_eq(vtb_cpuset_parse(cells[c], &t->cells[c].vcpus), 0);
	t->vm.cells = c ? t->cells : NULL;
	t->vm.n_cells = c;
	if (c) {
		for (size_t a = 0; a < c; a++)
			for (size_t b = 0; b < c; b++)
				t->dist[a * c + b] = a == b ? 10 : 21;
		t->vm.distances = t->dist;
	}
}

static void plan_release(struct tplan *t)
{
	for (size_t c = 0; c < t->vm.n_cells; c++)
		vtb_cpuset_release(&t->cells[c].vcpus);
}

/* ------------------------------------------------------------ views */

static json_t *J(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);

	cr_assert_not_null(j, "bad test JSON at %d: %s", err.position, err.text);
	return j;
}

#define CACHES(l2, l3)                                                                        \
	"\"caches\":[{\"index\":0,\"level\":\"1\",\"type\":\"Data\",\"size\":\"32K\","        \
	"\"shared\":\"" l2 "\"},{\"index\":1,\"level\":\"1\",\"type\":\"Instruction\","       \
	"\"size\":\"32K\",\"shared\":\"" l2 "\"},{\"index\":2,\"level\":\"2\",\"type\":"      \
	"\"Unified\",\"size\":\"4096K\",\"shared\":\"" l2 "\"},{\"index\":3,\"level\":\"3\"," \
	"\"type\":\"Unified\",\"size\":\"16384K\",\"shared\":\"" l3 "\"}]"

#define CPU(n, ts, l2, l3)                                                               \
	"{\"cpu\":" #n ",\"online\":true,\"core_id\":\"" #n "\",\"die_id\":\"0\","       \
	"\"package_id\":\"0\",\"thread_siblings\":\"" ts "\",\"core_siblings\":\"0-1\"," \
	"\"die_cpus\":null,\"package_cpus\":null,\"cluster_cpus\":null," CACHES(l2, l3) "}"

#define FLAGS_MC \
	"SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_PKG_RESOURCES SD_PREFER_SIBLING"
#define FLAGS_SMT \
	"SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_CPUCAPACITY SD_SHARE_PKG_RESOURCES SD_PREFER_SIBLING"
#define FLAGS_DIE \
	"SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_PREFER_SIBLING"
#define KNOBS(bf)                                                                        \
	"\"knobs\":{\"min_interval\":\"2\",\"max_interval\":\"4\",\"busy_factor\":\"" bf \
	"\",\"imbalance_pct\":\"117\",\"cache_nice_tries\":\"1\"}"

#define LEVEL(d, name, flags, bf) \
	"{\"domain\":" #d ",\"name\":\"" name "\",\"flags\":\"" flags "\"," KNOBS(bf) "}"

#define SS(c, d, mask) "{\"cpu\":" #c ",\"domain\":" #d ",\"name\":null,\"mask\":\"" mask "\"}"

/* 1 socket x 2 cores, as 6.1 shows it: domain0 MC */
static const char cores_view[] = "{\"type\":\"guest_view\",\"cpus\":[" CPU(0, "0", "0", "0-1") "," CPU(
	1, "1", "1",
	"0-1") "],"
	       "\"nodes\":[{\"node\":0,\"cpus\":\"0-1\",\"distance\":\"10\"}],"
	       "\"domains\":[{\"cpu\":0,\"levels\":[" LEVEL(
		       0, "MC", FLAGS_MC,
		       "32") "]},"
			     "{\"cpu\":1,\"levels\":[" LEVEL(
				     0, "MC", FLAGS_MC,
				     "32") "]}],"
					   "\"schedstat\":{\"version\":15,\"domains\":[" SS(
						   0, 0,
						   "00000003") "," SS(1, 0,
								      "00000003") "]},"
										  "\"cpuid\":null}";

/* 1 socket x 1 core x 2 threads: domain0 SMT */
static const char smt_view[] = "{\"type\":\"guest_view\",\"cpus\":[" CPU(0, "0-1", "0-1", "0-1") "," CPU(
	1, "0-1", "0-1",
	"0-1") "],"
	       "\"nodes\":[{\"node\":0,\"cpus\":\"0-1\",\"distance\":\"10\"}],"
	       "\"domains\":[{\"cpu\":0,\"levels\":[" LEVEL(
		       0, "SMT", FLAGS_SMT,
		       "2") "]},"
			    "{\"cpu\":1,\"levels\":[" LEVEL(
				    0, "SMT", FLAGS_SMT,
				    "2") "]}],"
					 "\"schedstat\":{\"version\":15,\"domains\":[" SS(
						 0, 0,
						 "00000003") "," SS(1, 0,
								    "00000003") "]},"
										"\"cpuid\":null}";

/* 2 sockets of 1 core, one node: the kernel's DIE level is the node */
#define FLAT_VIEW(name)                                                                            \
	"{\"type\":\"guest_view\",\"cpus\":[" CPU(0, "0", "0", "0") "," CPU(                       \
		1, "1", "1",                                                                       \
		"1") "],"                                                                          \
		     "\"nodes\":[{\"node\":0,\"cpus\":\"0-1\",\"distance\":\"10\"}],"              \
		     "\"domains\":[{\"cpu\":0,\"levels\":[" LEVEL(                                 \
			     0, name, FLAGS_DIE,                                                   \
			     "32") "]},"                                                           \
				   "{\"cpu\":1,\"levels\":[" LEVEL(                                \
					   0, name, FLAGS_DIE,                                     \
					   "32") "]}],"                                            \
						 "\"schedstat\":{\"version\":15,\"domains\":[" SS( \
							 0, 0,                                     \
							 "00000003") "," SS(1, 0,                  \
									    "00000003") "]},"      \
											"\"cpuid\":null}"

/* 2 sockets x 2 cores, a cell per socket: MC then NUMA */
#define NUMA_CPU(n, l3)                                                                          \
	"{\"cpu\":" #n ",\"online\":true,\"thread_siblings\":\"" #n "\",\"core_siblings\":\"" l3 \
	"\"," CACHES(#n, l3) "}"
#define NUMA_DOMS(c, l3mask)                                                     \
	"{\"cpu\":" #c ",\"levels\":[" LEVEL(0, "MC", FLAGS_MC, "32") "," LEVEL( \
		1, "NUMA", "SD_BALANCE_NEWIDLE SD_SERIALIZE SD_OVERLAP SD_NUMA", "32") "]}"
static const char numa_view[] = "{\"type\":\"guest_view\",\"cpus\":[" NUMA_CPU(0, "0-1") "," NUMA_CPU(1, "0-1") "," NUMA_CPU(2, "2-3") "," NUMA_CPU(
	3,
	"2-3") "],"
	       "\"nodes\":[{\"node\":0,\"cpus\":\"0-1\",\"distance\":\"10 21\"},"
	       "{\"node\":1,\"cpus\":\"2-3\",\"distance\":\"21 10\"}],"
	       "\"domains\":[" NUMA_DOMS(0, 3) "," NUMA_DOMS(1, 3) "," NUMA_DOMS(2, c) "," NUMA_DOMS(
		       3,
		       c) "],"
			  "\"schedstat\":{\"version\":15,\"domains\":[" SS(0, 0, "00000003") "," SS(0, 1, "0000000f") "," SS(1, 0, "00000003") "," SS(
				  1, 1,
				  "0000000f") "," SS(2, 0,
						     "0000000c") "," SS(2, 1,
									"0000000f") "," SS(3, 0,
											   "0000000c") "," SS(3,
													      1,
													      "0000000f") "]},"
															  "\"cpuid\":null}";

static json_t *tree_of(const char *text, char digest[65])
{
	json_t *v = J(text), *t = vtb_gv_normalise(v, digest);

	cr_assert_not_null(t, "%s", vtb_errmsg());
	json_decref(v);
	return t;
}

static void expect_levels(const json_t *tree, const char *want)
{
	char *s = vtb_gv_levels(tree);

	cr_assert_not_null(s);
	cr_expect_str_eq(s, want);
	free(s);
}

static int check(const struct tplan *t, const char *view, char **diff)
{
	json_t *v = J(view);
	int r = vtb_gv_check(&t->p, 0, v, diff);

	json_decref(v);
	return r;
}

/* ------------------------------------------------------------ tests */

Test(guestview, cores_topology_shows_mc)
{
	struct tplan t;
	char d[65], *diff = NULL;
	json_t *tree = tree_of(cores_view, d), *exp;

	expect_levels(tree, "MC");
	cr_expect_eq(strlen(d), 64);
	cr_expect_str_eq(json_string_value(
				 json_object_get(json_array_get(json_object_get(tree, "cpus"), 1),
						 "llc")),
			 "0-1");
	plan_of(&t, 1, 1, 2, 1, NULL);
	exp = vtb_gv_expect(&t.p, 0);
	cr_assert_not_null(exp, "%s", vtb_errmsg());
	cr_expect_str_eq(json_string_value(json_object_get(exp, "levels")), "MC");
	cr_expect_eq(check(&t, cores_view, &diff), 0, "%s", diff);
	cr_expect_null(diff);
	json_decref(exp);
	json_decref(tree);
	plan_release(&t);
}

Test(guestview, smt_topology_shows_smt)
{
	struct tplan t;
	char *diff = NULL;
	json_t *tree = tree_of(smt_view, NULL), *exp;

	expect_levels(tree, "SMT");
	plan_of(&t, 1, 1, 1, 2, NULL);
	exp = vtb_gv_expect(&t.p, 0);
	cr_expect_str_eq(json_string_value(json_object_get(exp, "levels")), "SMT");
	cr_expect_eq(check(&t, smt_view, &diff), 0, "%s", diff);
	json_decref(exp);
	json_decref(tree);
	plan_release(&t);
}

/* MC (the die) equals the node, so PKG is degenerate; NUMA spans both. */
Test(guestview, two_sockets_two_cells_show_mc_numa)
{
	static const char *const cells[] = { "0-1", "2-3", NULL };
	struct tplan t;
	char *diff = NULL;
	json_t *tree = tree_of(numa_view, NULL), *exp, *lv;

	expect_levels(tree, "MC NUMA");
	plan_of(&t, 2, 1, 2, 1, cells);
	exp = vtb_gv_expect(&t.p, 0);
	cr_assert_not_null(exp, "%s", vtb_errmsg());
	cr_expect_str_eq(json_string_value(json_object_get(exp, "levels")), "MC NUMA");
	lv = json_object_get(json_array_get(json_object_get(exp, "cpus"), 2), "levels");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(lv, 0), "span")), "2-3");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(lv, 1), "span")), "0-3");
	cr_expect_eq(json_integer_value(
			     json_object_get(json_array_get(json_object_get(exp, "cpus"), 3),
					     "node")),
		     1);
	cr_expect_eq(check(&t, numa_view, &diff), 0, "%s", diff);
	json_decref(exp);
	json_decref(tree);
	plan_release(&t);
}

/* 6.1 says DIE, 6.7+ PKG: one tree, one digest; the plan predicts the
 * node-wide level for single-core sockets (flat). */
Test(guestview, die_and_pkg_give_one_tree)
{
	char d1[65], d2[65], *diff = NULL;
	json_t *a = tree_of(FLAT_VIEW("DIE"), d1), *b = tree_of(FLAT_VIEW("PKG"), d2);
	struct tplan t;

	cr_expect(json_equal(a, b));
	cr_expect_str_eq(d1, d2);
	expect_levels(a, "PKG");
	plan_of(&t, 2, 1, 1, 1, NULL);
	cr_expect_eq(check(&t, FLAT_VIEW("DIE"), &diff), 0, "%s", diff);
	json_decref(a);
	json_decref(b);
	plan_release(&t);
}

Test(guestview, smt_plan_against_a_cores_guest_gives_a_diff)
{
	struct tplan t;
	char *diff = NULL;

	plan_of(&t, 1, 1, 1, 2, NULL);
	cr_assert_eq(check(&t, cores_view, &diff), 1);
	cr_expect_str_eq(diff, "cpu0: thread_siblings 0, plan 0-1; levels MC, plan SMT; "
			       "cpu1: thread_siblings 1, plan 0-1; levels MC, plan SMT");
	free(diff);
	plan_release(&t);
}

/* Knob values and offline CPUs do not change the tree. */
Test(guestview, tree_ignores_knobs_and_offline_cpus)
{
	char d1[65], d2[65];
	json_t *a = tree_of(cores_view, d1), *v = J(cores_view), *b;
	json_t *c2 = json_pack("{s:i, s:b, s:s, s:s}", "cpu", 2, "online", 0, "thread_siblings",
			       "2", "core_siblings", "0-2");

	json_object_set_new(
		json_object_get(
			json_array_get(json_object_get(json_array_get(json_object_get(v, "domains"),
								      0),
						       "levels"),
				       0),
			"knobs"),
		"busy_factor", json_string("8"));
	json_array_append_new(json_object_get(v, "cpus"), c2);
	json_object_set_new(json_array_get(json_object_get(v, "nodes"), 0), "cpus",
			    json_string("0-2"));
	json_object_set_new(json_array_get(json_object_get(json_object_get(v, "schedstat"),
							   "domains"),
					   0),
			    "mask", json_string("00000007"));
	b = vtb_gv_normalise(v, d2);
	cr_assert_not_null(b, "%s", vtb_errmsg());
	cr_expect(json_equal(a, b));
	cr_expect_str_eq(d1, d2);
	json_decref(a);
	json_decref(b);
	json_decref(v);
}

/* A die spanning cells: the kernel rewrites its levels; not checked. */
Test(guestview, die_spanning_cells_leaves_levels_unknown)
{
	static const char *const cells[] = { "0", "1", NULL };
	struct tplan t;
	char *diff = NULL;
	json_t *exp;

	plan_of(&t, 1, 1, 2, 1, cells);
	exp = vtb_gv_expect(&t.p, 0);
	cr_assert_not_null(exp, "%s", vtb_errmsg());
	cr_expect_str_eq(json_string_value(json_object_get(exp, "levels")), "unknown");
	cr_expect_str_eq(json_string_value(json_object_get(exp, "why_unknown")),
			 "virtual die 0 spans guest cells 0 and 1");
	/* the cores view has one node: only the node differs */
	cr_expect_eq(check(&t, cores_view, &diff), 1);
	cr_expect_str_eq(diff, "cpu1: node 0, plan 1");
	free(diff);
	json_decref(exp);
	plan_release(&t);
}

Test(guestview, missing_cpus_and_wrong_spans_are_named)
{
	struct tplan t;
	char *diff = NULL;
	json_t *v = J(numa_view);
	static const char *const cells[] = { "0-1", "2-3", NULL };

	plan_of(&t, 2, 1, 2, 1, cells);
	json_array_remove(json_object_get(v, "cpus"), 3);
	json_object_set_new(json_array_get(json_object_get(json_object_get(v, "schedstat"),
							   "domains"),
					   0),
			    "mask", json_string("00000007"));
	cr_assert_eq(vtb_gv_check(&t.p, 0, v, &diff), 1);
	cr_expect_str_eq(diff,
			 "cpu0: MC span 0-2, plan 0-1; NUMA span 0-2, plan 0-3; "
			 "cpu1: NUMA span 0-2, plan 0-3; "
			 "cpu2: llc 2, plan 2-3; MC span 2, plan 2-3; NUMA span 0-2, plan 0-3; "
			 "cpu3: missing in the guest");
	free(diff);
	json_decref(v);
	plan_release(&t);
}

/* Without debugfs, newer kernels name levels in /proc/schedstat. */
Test(guestview, schedstat_is_the_second_source)
{
	static const char view[] =
		"{\"cpus\":[{\"cpu\":0,\"thread_siblings\":\"0\"},{\"cpu\":1,\"thread_siblings\":\"1\"}],"
		"\"nodes\":[],\"domains\":[],"
		"\"schedstat\":{\"version\":17,\"domains\":[{\"cpu\":1,\"domain\":0,\"name\":\"MC\",\"mask\":\"3\"},"
		"{\"cpu\":0,\"domain\":0,\"name\":\"MC\",\"mask\":\"3\"}]}}";
	json_t *tree = tree_of(view, NULL);
	json_t *l0 = json_array_get(json_object_get(json_array_get(json_object_get(tree, "cpus"),
								   0),
						    "levels"),
				    0);
	struct tplan t;
	char *diff = NULL;

	expect_levels(tree, "MC");
	cr_expect(json_is_null(json_object_get(l0, "flags")));
	cr_expect_str_eq(json_string_value(json_object_get(l0, "span")), "0-1");
	plan_of(&t, 1, 1, 2, 1, NULL);
	cr_expect_eq(check(&t, view, &diff), 0, "%s", diff);
	/* no source at all: levels are null, not checked */
	cr_expect_eq(check(&t,
			   "{\"cpus\":[{\"cpu\":0},{\"cpu\":1}],\"domains\":[],\"schedstat\":null}",
			   &diff),
		     0, "%s", diff);
	json_decref(tree);
	plan_release(&t);
}

Test(guestview, diff_is_bounded)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	struct tplan t;
	char *diff = NULL;
	int i;

	vtb_strbuf_addstr(&sb, "{\"cpus\":[");
	for (i = 0; i < 16; i++)
		vtb_strbuf_addf(&sb, "%s{\"cpu\":%d,\"thread_siblings\":\"%d\"}", i ? "," : "", i,
				i);
	vtb_strbuf_addstr(&sb, "],\"domains\":[],\"schedstat\":null}");
	plan_of(&t, 1, 1, 8, 2, NULL);
	cr_assert_eq(check(&t, sb.buf, &diff), 1);
	cr_expect(strstr(diff, "cpu7: thread_siblings 7, plan 6-7; (and 8 more CPUs differ)"), "%s",
		  diff);
	cr_expect_null(strstr(diff, "cpu8"));
	cr_expect_null(strchr(diff, '\n'), "one line: %s", diff);
	free(diff);
	vtb_strbuf_release(&sb);
	plan_release(&t);
}

Test(guestview, malformed_views_are_errors)
{
	static const char *const bad[] = {
		"[]",
		"{\"cpus\":{}}",
		"{\"cpus\":[{\"cpu\":0},{\"cpu\":0}]}",
		"{\"cpus\":[{\"cpu\":8192}]}",
		"{\"cpus\":[{\"cpu\":-1}]}",
		"{\"cpus\":[{\"cpu\":0,\"thread_siblings\":\"0-99999\"}]}",
		"{\"cpus\":[{\"cpu\":0,\"thread_siblings\":\"3-1\"}]}",
		"{\"cpus\":[{\"cpu\":0,\"thread_siblings\":7}]}",
		"{\"cpus\":[{\"cpu\":0}],\"schedstat\":{\"domains\":[{\"cpu\":0,\"domain\":0,\"mask\":\"zz\"}]}}",
		"{\"cpus\":[{\"cpu\":0}],\"schedstat\":{\"domains\":[{\"cpu\":0,\"domain\":0,\"mask\":\"1"
		"0000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"0000000000000000000000000000000000000000000\"}]}}",
		"{\"cpus\":[{\"cpu\":0}],\"domains\":[{\"cpu\":0,\"levels\":[{\"domain\":0},{\"domain\":0}]}]}",
		"{\"cpus\":[{\"cpu\":0}],\"domains\":[{\"cpu\":0,\"levels\":[{\"name\":\"MC\"}]}]}",
		"{\"cpus\":[{\"cpu\":0}],\"domains\":[{\"cpu\":0,\"levels\":[{\"domain\":0,"
		"\"name\":\"MC\",\"flags\":\"SD_A SD_B\"}]}],\"schedstat\":{\"domains\":[{"
		"\"cpu\":0,\"domain\":0,\"mask\":\"xyz\"}]}}",
		NULL,
	};

	for (size_t i = 0; bad[i]; i++) {
		json_t *v = J(bad[i]), *t = vtb_gv_normalise(v, NULL);

		cr_expect_null(t, "accepted: %s", bad[i]);
		json_decref(t);
		json_decref(v);
	}
}

/* The kernel's rules on a few shapes: levels of one span dropped, the
 * package level is the node (a 2-socket guest without cells shows SMT MC
 * PKG), NUMA above cells. */
Test(guestview, expected_levels_by_shape)
{
	static const char *const two[] = { "0-1", "2-3", NULL };
	static const char *const four[] = { "0", "1", "2", "3", NULL };
	static const struct {
		int s, d, c, t;
		const char *const *cells;
		const char *want;
	} cases[] = {
		{ 1, 1, 2, 1, NULL, "MC" },	{ 1, 1, 1, 2, NULL, "SMT" },
		{ 2, 1, 1, 1, NULL, "PKG" },	{ 2, 1, 2, 2, NULL, "SMT MC PKG" },
		{ 2, 1, 2, 1, two, "MC NUMA" }, { 1, 2, 2, 1, NULL, "MC PKG" },
		{ 4, 1, 1, 1, four, "NUMA" },	{ 1, 1, 1, 1, NULL, "" },
		{ 1, 2, 2, 1, two, "unknown" }, { 2, 2, 1, 1, two, "PKG NUMA" },
		{ 1, 1, 4, 1, two, "unknown" },
	};

	for (size_t i = 0; i < VTB_ARRAY_SIZE(cases); i++) {
		struct tplan t;
		json_t *exp;

		plan_of(&t, cases[i].s, cases[i].d, cases[i].c, cases[i].t, cases[i].cells);
		exp = vtb_gv_expect(&t.p, 0);
		cr_assert_not_null(exp, "%s", vtb_errmsg());
		cr_expect_str_eq(json_string_value(json_object_get(exp, "levels")), cases[i].want,
				 "%dx%dx%dx%d", cases[i].s, cases[i].d, cases[i].c, cases[i].t);
		json_decref(exp);
		plan_release(&t);
	}
}

/* Level and flag names come from the guest: one that the kernel never
 * writes is "?", so "SMT MC" cannot fake two levels in the space-joined
 * list and no escape sequence reaches a terminal; the diff says "?". */
Test(guestview, untrusted_names_become_question_marks)
{
	static const struct {
		const char *name, *levels;
	} cases[] = {
		{ "SMT MC", "?" },
		{ "MC\\u001b[2J", "?" },
		{ "MC\\n", "?" },
		{ "", "?" },
		{ "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345" },
		{ "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456", "?" },
		{ "die_1", "die_1" },
		{ "DIE", "PKG" },
	};
	struct tplan t;

	for (size_t i = 0; i < VTB_ARRAY_SIZE(cases); i++) {
		char *view = vtb_asprintf(
			"{\"cpus\":[{\"cpu\":0},{\"cpu\":1}],\"domains\":["
			"{\"cpu\":0,\"levels\":[{\"domain\":0,\"name\":\"%s\",\"flags\":null}]},"
			"{\"cpu\":1,\"levels\":[{\"domain\":0,\"name\":\"%s\",\"flags\":null}]}],"
			"\"schedstat\":null}",
			cases[i].name, cases[i].name);
		json_t *tree = tree_of(view, NULL);

		expect_levels(tree, cases[i].levels);
		json_decref(tree);
		free(view);
	}
	/* the diff shows the "?" level, not the guest's text */
	plan_of(&t, 1, 1, 2, 1, NULL);
	{
		char *diff = NULL;

		cr_assert_eq(check(&t,
				   "{\"cpus\":[{\"cpu\":0},{\"cpu\":1}],\"domains\":["
				   "{\"cpu\":0,\"levels\":[{\"domain\":0,\"name\":\"SMT MC\"}]},"
				   "{\"cpu\":1,\"levels\":[{\"domain\":0,\"name\":\"MC\"}]}],"
				   "\"schedstat\":null}",
				   &diff),
			     1);
		cr_expect_str_eq(diff, "cpu0: levels ?, plan MC");
		free(diff);
	}
	plan_release(&t);
}

Test(guestview, untrusted_flag_names_become_question_marks)
{
	json_t *tree =
		tree_of("{\"cpus\":[{\"cpu\":0}],\"domains\":[{\"cpu\":0,\"levels\":[{\"domain\":0,"
			"\"name\":\"MC\",\"flags\":\"SD_WAKE_AFFINE sd_lower \\u001b[31m SD_NUMA "
			"SD_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123 SD_ABCDEFGHIJKLMNOPQRSTUVWXYZ012\"}]}],"
			"\"schedstat\":null}",
			NULL);
	json_t *flags = json_object_get(
		json_array_get(json_object_get(json_array_get(json_object_get(tree, "cpus"), 0),
					       "levels"),
			       0),
		"flags");
	char *s = json_dumps(flags, JSON_COMPACT);

	cr_assert_not_null(s);
	cr_expect_str_eq(s, "[\"?\",\"SD_ABCDEFGHIJKLMNOPQRSTUVWXYZ012\",\"SD_NUMA\","
			    "\"SD_WAKE_AFFINE\"]");
	free(s);
	json_decref(tree);
}
