/* SPDX-License-Identifier: MIT */
/*
 * wakeup (schbench model): option validation through its option table,
 * defaults derived from the cpus given, the checks prepare makes, and
 * short real runs through the ops hooks: the eleven metrics in order and
 * consistent, the -R mode, and the wiring of the debug delay (every
 * sample of a delayed batch includes the spin, so p50 >= D holds by
 * construction, whatever the machine's load: no timing precision is
 * asserted).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/sysfs.h"
#include "../../workloads/workload.h"
#include "wltest.h"

static void setup(void)
{
	W = vtb_workload_find("wakeup");
	cr_assert_not_null(W);
}

TestSuite(wakeup, .init = setup);

static void *new_params(void)
{
	return wl_new_params();
}

static void expect_bad(void *p, const char *name, const char *text, const char *needle)
{
	cr_assert_eq(set(p, name, text), -1, "%s=%s accepted", name, text);
	cr_assert(strstr(vtb_errmsg(), needle), "%s=%s: '%s' lacks '%s'", name, text, vtb_errmsg(),
		  needle);
}

Test(wakeup, is_registered_visible_and_names_schbench)
{
	cr_assert_eq(vtb_workloads_check(), 0, "%s", vtb_errmsg());
	cr_assert_not(W->hidden);
	cr_assert(strstr(W->summary, "schbench"), "%s", W->summary);
	cr_assert_not_null(W->prepare);
}

Test(wakeup, schbench_letters_map_to_the_options)
{
	static const struct {
		int letter;
		const char *name;
	} map[] = { { 'm', "message_threads" }, { 't', "threads" }, { 'r', "runtime" },
		    { 'w', "warmup" },		{ 's', "sleep" },   { 'n', "operations" },
		    { 'F', "footprint" },	{ 'R', "rps" },	    { 'M', "message_cpus" },
		    { 'W', "worker_cpus" } };
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		const struct vtb_opt *o = vtb_opt_find(W->opts, map[i].name);

		cr_assert_not_null(o, "no option '%s'", map[i].name);
		cr_assert_eq(o->shortopt, map[i].letter, "'%s' is not -%c", map[i].name,
			     map[i].letter);
	}
}

Test(wakeup, defaults_follow_schbench)
{
	static const struct {
		const char *name, *def;
	} defs[] = { { "message_threads", "1" }, { "threads", "auto" }, { "runtime", "30s" },
		     { "warmup", "0s" },	 { "sleep", "100us" },	{ "operations", "5" },
		     { "footprint", "256" },	 { "rps", "0" } };
	size_t i;

	for (i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		cr_assert_str_eq(vtb_opt_find(W->opts, defs[i].name)->def, defs[i].def, "%s",
				 defs[i].name);
	/* no default: absent from cell keys unless set */
	cr_assert_null(vtb_opt_find(W->opts, "delay")->def);
	cr_assert_null(vtb_opt_find(W->opts, "message_cpus")->def);
}

Test(wakeup, bad_values_are_rejected_naming_the_option)
{
	void *p = new_params();

	expect_bad(p, "message_threads", "0", "message_threads");
	expect_bad(p, "message_threads", "lots", "message_threads");
	expect_bad(p, "threads", "0", "threads");
	expect_bad(p, "threads", "-3", "threads");
	/* schbench's -s 100 is microseconds; here a bare number is seconds */
	expect_bad(p, "sleep", "100", "sleep");
	expect_bad(p, "sleep", "1 fortnight", "sleep");
	expect_bad(p, "runtime", "1ms", "runtime");
	expect_bad(p, "operations", "-1", "operations");
	expect_bad(p, "footprint", "0", "footprint");
	expect_bad(p, "rps", "-5", "rps");
	expect_bad(p, "message_cpus", "0-", "message_cpus");
	expect_bad(p, "worker_cpus", "x", "worker_cpus");
	expect_bad(p, "delay", "2s", "delay");
	free(p);
}

Test(wakeup, good_values_are_accepted)
{
	void *p = new_params();

	cr_assert_eq(set(p, "message_threads", "4"), 0);
	cr_assert_eq(set(p, "threads", "auto"), 0);
	cr_assert_eq(set(p, "threads", "16"), 0);
	cr_assert_eq(set(p, "sleep", "0"), 0);
	cr_assert_eq(set(p, "sleep", "250us"), 0);
	cr_assert_eq(set(p, "runtime", "10s"), 0);
	cr_assert_eq(set(p, "warmup", "2s"), 0);
	cr_assert_eq(set(p, "operations", "0"), 0);
	cr_assert_eq(set(p, "footprint", "1024"), 0);
	cr_assert_eq(set(p, "rps", "1000"), 0);
	cr_assert_eq(set(p, "message_cpus", "0,1"), 0);
	cr_assert_eq(set(p, "delay", "200us"), 0);
	free(p);
}

Test(wakeup, typos_get_a_suggestion_and_delay_stays_out_of_help)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_str_eq(vtb_opt_suggest(W->opts, "treads"), "threads");
	cr_assert_str_eq(vtb_opt_suggest(W->opts, "message_thread"), "message_threads");
	cr_assert(vtb_opt_find(W->opts, "delay")->flags & VTB_OPT_HIDDEN);
	cr_assert_not_null(f);
	vtb_opts_help(f, W->opts, true);
	fclose(f);
	cr_assert(strstr(buf, "--message_threads"), "%s", buf);
	cr_assert(strstr(buf, "-F, --footprint"), "%s", buf);
	cr_assert_null(strstr(buf, "delay"), "%s", buf);
	free(buf);
}

/* prepare on a described set of cpus; returns its result */
static int prepare_on(void *p, const char *cpus, struct vtb_workload_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->cell = "t";
	cr_assert_eq(vtb_cpuset_parse(cpus, &ctx->cpus), 0);
	return W->prepare(p, ctx);
}

/* workers per message thread chosen by prepare for @m on @cpus */
static long long auto_threads(const char *cpus, const char *m)
{
	struct vtb_workload_ctx ctx;
	void *p = new_params();
	long long t;
	const struct vtb_opt *o = vtb_opt_find(W->opts, "threads");

	cr_assert_eq(set(p, "message_threads", m), 0);
	cr_assert_eq(prepare_on(p, cpus, &ctx), 0, "%s", vtb_errmsg());
	memcpy(&t, (char *)p + o->off, sizeof(t));
	vtb_workload_ctx_release(&ctx);
	free(p);
	return t;
}

Test(wakeup, default_workers_are_cpus_over_message_threads_rounded_up)
{
	cr_assert_eq(auto_threads("0-3", "1"), 4);
	cr_assert_eq(auto_threads("0-3", "2"), 2);
	cr_assert_eq(auto_threads("0-3", "3"), 2);
	cr_assert_eq(auto_threads("0-3", "8"), 1);
	cr_assert_eq(auto_threads("5", "1"), 1);
	cr_assert_eq(auto_threads("0-63", "4"), 16);
}

static void expect_prepare_error(const char *cpus, const char *const *kv, const char *needle)
{
	struct vtb_workload_ctx ctx;
	void *p = new_params();

	for (; *kv; kv += 2)
		cr_assert_eq(set(p, kv[0], kv[1]), 0, "%s=%s: %s", kv[0], kv[1], vtb_errmsg());
	cr_assert_eq(prepare_on(p, cpus, &ctx), -1, "prepare accepted (wanted '%s')", needle);
	cr_assert(strstr(vtb_errmsg(), needle), "'%s' lacks '%s'", vtb_errmsg(), needle);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(wakeup, prepare_rejects_what_cannot_run)
{
	const char *warm[] = { "runtime", "2s", "warmup", "2s", NULL };
	const char *many[] = { "message_threads", "4096", "threads", "8", NULL };
	const char *rps[] = { "message_threads", "4", "rps", "3", NULL };
	const char *mpin[] = { "message_cpus", "0,7", NULL };
	const char *wpin[] = { "worker_cpus", "2-9", NULL };
	const char *mem[] = { "threads", "4096", "footprint", "1048576", "operations", "0", NULL };
	const char *big[] = { "footprint", "1048576", "operations", "1", NULL };
	const char *ops[] = { "operations", "100000", NULL };
	const char *none[] = { NULL };

	expect_prepare_error("0-3", warm, "'warmup' (2s) must be shorter than 'runtime' (2s)");
	expect_prepare_error("0-3", many, "more than the limit");
	expect_prepare_error("0-3", rps, "'rps' of 3");
	expect_prepare_error("0-3", mpin, "'message_cpus' names cpu 7");
	expect_prepare_error("0-3", wpin, "'worker_cpus' names cpu 4");
	expect_prepare_error("0-3", mem, "80% of the available memory");
	/* a request of hours: 1 GiB matrices, or 10^5 multiplies of 104^2 */
	expect_prepare_error("0-3", big, "(1 x 6688x6688 matrices, 1048576 KiB)");
	expect_prepare_error(
		"0-3", ops,
		"multiply-adds per request (100000 x 104x104 matrices, 256 KiB), more than the limit");
	expect_prepare_error("", none, "no cpus");
}

/* ---- real runs ---- */

static double metric(const struct vtb_workload_ctx *ctx, const char *name)
{
	size_t i;

	for (i = 0; i < ctx->n_samples; i++)
		if (!strcmp(ctx->samples[i].metric, name))
			return ctx->samples[i].value;
	cr_assert_fail("no metric '%s'", name);
	return -1;
}

static json_int_t info_int(const struct vtb_workload_ctx *ctx, const char *key)
{
	json_t *v = json_object_get(ctx->info, key);

	cr_assert(json_is_integer(v), "info '%s' missing", key);
	return json_integer_value(v);
}

/* A short run on the test's own affinity with @kv set. */
static void tiny_run(const char *const *kv, struct vtb_workload_ctx *ctx)
{
	void *p = new_params();

	for (; *kv; kv += 2)
		cr_assert_eq(set(p, kv[0], kv[1]), 0, "%s=%s: %s", kv[0], kv[1], vtb_errmsg());
	memset(ctx, 0, sizeof(*ctx));
	ctx->cell = "test";
	cr_assert_eq(vtb_affinity_cpuset(&ctx->cpus), 0);
	cr_assert_eq(W->prepare(p, ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, ctx), 0, "%s", vtb_errmsg());
	free(p);
}

static void check_metrics(const struct vtb_workload_ctx *ctx)
{
	static const char *const names[] = {
		"wakeup_p50",	"wakeup_p90",  "wakeup_p99",  "wakeup_p999",
		"wakeup_max",	"request_p50", "request_p90", "request_p99",
		"request_p999", "request_max", "rps",
	};
	size_t i;

	cr_assert_eq(ctx->n_samples, 11);
	for (i = 0; i < 11; i++) {
		const struct vtb_sample *s = &ctx->samples[i];
		bool rps = i == 10;

		cr_assert_str_eq(s->metric, names[i]);
		cr_assert_str_eq(s->unit, rps ? "rps" : "us");
		cr_assert_eq(s->better, rps ? VTB_BETTER_HIGHER : VTB_BETTER_LOWER);
		cr_assert_geq(s->value, 0, "%s = %g", s->metric, s->value);
	}
	/* percentiles of one histogram cannot decrease */
	for (i = 0; i < 4; i++) {
		cr_assert_leq(ctx->samples[i].value, ctx->samples[i + 1].value, "%s > %s", names[i],
			      names[i + 1]);
		cr_assert_leq(ctx->samples[5 + i].value, ctx->samples[6 + i].value, "%s > %s",
			      names[5 + i], names[6 + i]);
	}
	cr_assert_gt(metric(ctx, "rps"), 0);
	cr_assert_gt(info_int(ctx, "requests"), 0);
	cr_assert_gt(info_int(ctx, "wakeup_samples"), 0);
	/* schbench drops them; we keep and count them */
	cr_assert_leq(info_int(ctx, "wakeup_samples_under_1us"), info_int(ctx, "wakeup_samples"));
}

Test(wakeup, short_run_reports_eleven_consistent_metrics)
{
	const char *kv[] = { "runtime",	  "300ms", "warmup", "50ms",	   "threads",
			     "2",	  "sleep", "50us",   "operations", "1",
			     "footprint", "3",	   NULL };
	struct vtb_workload_ctx ctx;

	tiny_run(kv, &ctx);
	check_metrics(&ctx);
	/* schbench's matrix: sqrt(3 KiB / 3 / 8) = 11 */
	cr_assert_eq(info_int(&ctx, "matrix_size"), 11);
	cr_assert_eq(info_int(&ctx, "message_threads"), 1);
	cr_assert_eq(info_int(&ctx, "workers_per_message_thread"), 2);
	cr_assert_eq(info_int(&ctx, "rps_target"), 0);
	/* a request includes its 50us sleep */
	cr_assert_geq(metric(&ctx, "request_p50"), 50);
	cr_assert_null(json_object_get(ctx.info, "delayed_batches"));
	vtb_workload_ctx_release(&ctx);
}

/* Runs @kv on cpu 0 for 100ms: every request outlives it, so the run
 * fails with no completed request, once the worker has stopped. */
static void outliving_requests(const char *const *kv)
{
	struct vtb_workload_ctx ctx;
	void *p = new_params();

	for (; *kv; kv += 2)
		cr_assert_eq(set(p, kv[0], kv[1]), 0, "%s=%s: %s", kv[0], kv[1], vtb_errmsg());
	cr_assert_eq(set(p, "runtime", "100ms"), 0);
	cr_assert_eq(set(p, "threads", "1"), 0);
	cr_assert_eq(set(p, "sleep", "0s"), 0);
	cr_assert_eq(prepare_on(p, "0", &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "no request completed"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/*
 * A request that outlives the runtime stops with it: one multiply of
 * 2154x2154 matrices (just under the cap) takes tens of seconds, the
 * run 100ms; the worker checks stopping between rows.  The alarm only
 * catches the overrun.
 */
Test(wakeup, one_huge_multiply_stops_at_the_runtime)
{
	alarm(10); /* a hang becomes a crash (criterion's timeout leaks under LSan) */
	const char *kv[] = { "operations", "1", "footprint", "108741", NULL };

	outliving_requests(kv);
}

Test(wakeup, default_footprint_gives_schbench_matrix_size)
{
	const char *kv[] = { "runtime", "100ms",      "threads", "1", "sleep",
			     "0",	"operations", "0",	 NULL };
	struct vtb_workload_ctx ctx;

	tiny_run(kv, &ctx);
	/* sqrt(256 KiB / 3 / 8) = 104, as schbench -F 256 */
	cr_assert_eq(info_int(&ctx, "matrix_size"), 104);
	cr_assert_eq(info_int(&ctx, "footprint_bytes"), 3 * 104 * 104 * 8);
	vtb_workload_ctx_release(&ctx);
}

/* The process's peak resident set (VmHWM), in KiB. */
static long long peak_rss_kib(void)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %lld kB", &v) == 1)
			break;
	fclose(f);
	cr_assert_geq(v, 0, "no VmHWM in /proc/self/status");
	return v;
}

/*
 * The matrices are schbench's: m1 and m2 are never written, so they
 * read from the shared zero page and only m3 becomes memory of the
 * worker's own.  With 24 MiB of matrices (3 x 8 MiB) the run's peak
 * resident set grows by about 8 MiB; writing m1 and m2 (as this model
 * once did) makes it 24 MiB.  No multiply runs (operations 0); the
 * runtime leaves the worker's first touch of them (slow under ASan)
 * ample time before the window closes.
 */
Test(wakeup, only_the_product_matrix_is_written_as_schbench)
{
	const char *kv[] = { "runtime",	   "500ms", "threads",	 "1",	  "sleep", "0",
			     "operations", "0",	    "footprint", "24576", NULL };
	struct vtb_workload_ctx ctx;
	long long before = peak_rss_kib(), grew;

	tiny_run(kv, &ctx);
	cr_assert_eq(info_int(&ctx, "matrix_size"), 1024);
	grew = peak_rss_kib() - before;
	cr_assert_lt(grew, 16 << 10, "peak resident set grew by %lld KiB: m1 or m2 written", grew);
	vtb_workload_ctx_release(&ctx);
}

Test(wakeup, several_message_threads_run_and_merge)
{
	const char *kv[] = { "runtime", "300ms", "message_threads", "3", "threads",   "2",
			     "sleep",	"0",	 "operations",	    "1", "footprint", "2",
			     NULL };
	struct vtb_workload_ctx ctx;

	tiny_run(kv, &ctx);
	check_metrics(&ctx);
	cr_assert_eq(info_int(&ctx, "message_threads"), 3);
	vtb_workload_ctx_release(&ctx);
}

Test(wakeup, rps_mode_serves_requests)
{
	/* 200 requests handed out at t=0 and t=1s; the lone worker drains
	 * the first lot and then waits, so the t=1s post is a wake-up */
	const char *kv[] = { "runtime", "1300ms",     "threads", "1",	      "rps", "200", "sleep",
			     "0",	"operations", "1",	 "footprint", "2",   NULL };
	struct vtb_workload_ctx ctx;

	tiny_run(kv, &ctx);
	check_metrics(&ctx);
	cr_assert_eq(info_int(&ctx, "rps_target"), 200);
	/* at most the two handed-out lots, and no more requests than that */
	cr_assert_leq(info_int(&ctx, "requests"), 400);
	vtb_workload_ctx_release(&ctx);
}

Test(wakeup, saturated_rps_reports_requests_and_no_invented_wakeups)
{
	/* 1000 requests of 10ms for one worker: after the warm-up it always
	 * has a backlog (up to 128 plus those taken), so it never waits */
	const char *kv[] = { "runtime", "300ms", "warmup", "100ms",	 "threads", "1", "rps",
			     "1000",	"sleep", "10ms",   "operations", "0",	    NULL };
	struct vtb_workload_ctx ctx;
	size_t i;

	tiny_run(kv, &ctx);
	cr_assert_eq(ctx.n_samples, 6);
	for (i = 0; i < ctx.n_samples; i++)
		cr_assert_null(strstr(ctx.samples[i].metric, "wakeup"), "%s",
			       ctx.samples[i].metric);
	cr_assert_geq(metric(&ctx, "request_p50"), 10000.0);
	cr_assert_gt(metric(&ctx, "rps"), 0);
	cr_assert_eq(info_int(&ctx, "wakeup_samples"), 0);
	cr_assert(strstr(json_string_value(json_object_get(ctx.info, "wakeup_note")), "saturated"));
	vtb_workload_ctx_release(&ctx);
}

Test(wakeup, injected_delay_is_in_every_sample_of_the_batch)
{
	/* The message thread spins 2ms between its batch stamp and the
	 * wakes, so every wake-up measured is at least 2ms: a lower bound
	 * by construction, not a timing assertion. */
	const char *kv[] = { "runtime",	   "300ms", "threads", "1",   "sleep", "0",
			     "operations", "0",	    "delay",   "2ms", NULL };
	struct vtb_workload_ctx ctx;

	tiny_run(kv, &ctx);
	check_metrics(&ctx);
	cr_assert_geq(metric(&ctx, "wakeup_p50"), 2000.0, "p50 %g us", metric(&ctx, "wakeup_p50"));
	cr_assert_geq(json_integer_value(json_object_get(ctx.info, "delayed_batches")), 1);
	cr_assert_eq(info_int(&ctx, "delayed_batches"), info_int(&ctx, "batches"));
	cr_assert_eq(info_int(&ctx, "delay_ns"), 2000000);
	vtb_workload_ctx_release(&ctx);
}
