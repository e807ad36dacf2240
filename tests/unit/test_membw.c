/* SPDX-License-Identifier: MIT */
/*
 * membw: option validation through its option table, the LLC sum from a
 * fake sysfs tree, small real runs through the ops hooks that must
 * report the four STREAM metrics and their likwid-style means, validated,
 * and both readings over a known series of iteration times.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/streamstat.h"
#include "../../common/sysfs.h"
#include "../../workloads/workload.h"
#include "wltest.h"

static void setup(void)
{
	W = vtb_workload_find("membw");
	cr_assert_not_null(W);
}

TestSuite(membw, .init = setup);

static char *fixture(const char *name)
{
	const char *src = getenv("SRCDIR");

	return vtb_asprintf("%s/tests/fixtures/sysfs-cpu/%s", src ? src : ".", name);
}

static void *new_params(void)
{
	return wl_new_params();
}

Test(membw, registry_is_consistent)
{
	cr_assert_eq(vtb_workloads_check(), 0, "%s", vtb_errmsg());
	cr_assert_not_null(vtb_workload_find("debug"));
	cr_assert_null(vtb_workload_find("stream"));
	cr_assert_not(W->hidden);
	cr_assert(vtb_workload_find("debug")->hidden);
}

Test(membw, bad_values_are_rejected_naming_the_option)
{
	void *p = new_params();

	cr_assert_eq(set(p, "iterations", "1"), -1);
	cr_assert(strstr(vtb_errmsg(), "iterations"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "iterations", "ten"), -1);
	cr_assert_eq(set(p, "size", "100K"), -1);
	cr_assert(strstr(vtb_errmsg(), "size"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "size", "12 parsecs"), -1);
	cr_assert_eq(set(p, "threads", "0"), -1);
	cr_assert_eq(set(p, "nt", "maybe"), -1);
	cr_assert(strstr(vtb_errmsg(), "yes"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "llc", "lots"), -1);
	free(p);
}

Test(membw, good_values_and_auto_are_accepted)
{
	void *p = new_params();

	cr_assert_eq(set(p, "iterations", "2"), 0);
	cr_assert_eq(set(p, "size", "auto"), 0);
	cr_assert_eq(set(p, "size", "64M"), 0);
	cr_assert_eq(set(p, "llc", "auto"), 0);
	cr_assert_eq(set(p, "llc", "32M"), 0);
	cr_assert_eq(set(p, "threads", "auto"), 0);
	cr_assert_eq(set(p, "threads", "1"), 0);
	cr_assert_eq(set(p, "nt", "yes"), 0);
	cr_assert_not_null(vtb_opt_find(W->opts, "llc"));
	cr_assert(vtb_opt_find(W->opts, "llc")->flags & VTB_OPT_HOST_LLC);
	free(p);
}

static uint64_t llc_of(const char *tree, const char *cpus, int *ret)
{
	struct vtb_cpuset set = { 0 };
	char *root = fixture(tree);
	uint64_t v = 0;

	cr_assert_eq(vtb_cpuset_parse(cpus, &set), 0);
	*ret = vtb_sysfs_llc_bytes(root, &set, &v);
	vtb_cpuset_release(&set);
	free(root);
	return v;
}

Test(membw, llc_sum_counts_each_shared_instance_once)
{
	int ret;

	cr_assert_eq(llc_of("two-llc", "0-1", &ret), 16u << 20);
	cr_assert_eq(ret, 0);
	cr_assert_eq(llc_of("two-llc", "0", &ret), 16u << 20);
	cr_assert_eq(llc_of("two-llc", "0,2", &ret), 32u << 20);
	cr_assert_eq(llc_of("two-llc", "0-3", &ret), 32u << 20);
	cr_assert_eq(ret, 0);
}

Test(membw, llc_is_the_highest_data_level_present)
{
	int ret;

	/* L2 unified is the LLC; an instruction-only level above is ignored */
	cr_assert_eq(llc_of("l2-only", "0", &ret), 4u << 20);
	cr_assert_eq(ret, 0);
}

Test(membw, llc_errors_name_the_problem)
{
	int ret;

	llc_of("two-llc", "7", &ret);
	cr_assert_eq(ret, -1);
	cr_assert(strstr(vtb_errmsg(), "cpu7"), "%s", vtb_errmsg());
	llc_of("bad-size", "0", &ret);
	cr_assert_eq(ret, -1);
	cr_assert(strstr(vtb_errmsg(), "malformed"), "%s", vtb_errmsg());
}

static const char *info_str(json_t *info, const char *key)
{
	return json_string_value(json_object_get(info, key));
}

static void tiny_run(const char *nt, const char *llc, struct vtb_workload_ctx *ctx)
{
	void *p = new_params();

	cr_assert_eq(set(p, "size", "1M"), 0);
	cr_assert_eq(set(p, "llc", llc), 0);
	cr_assert_eq(set(p, "iterations", "3"), 0);
	cr_assert_eq(set(p, "nt", nt), 0);
	memset(ctx, 0, sizeof(*ctx));
	ctx->cell = "test";
	cr_assert_eq(vtb_affinity_cpuset(&ctx->cpus), 0);
	cr_assert_eq(W->prepare(p, ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, ctx), 0, "%s", vtb_errmsg());
	free(p);
}

static void check_metrics(const struct vtb_workload_ctx *ctx)
{
	static const char *const names[] = { "copy",	  "scale",	"add",	    "triad",
					     "copy_mean", "scale_mean", "add_mean", "triad_mean" };
	size_t i;

	cr_assert_eq(ctx->n_samples, 8);
	for (i = 0; i < 8; i++) {
		cr_assert_str_eq(ctx->samples[i].metric, names[i]);
		cr_assert_str_eq(ctx->samples[i].unit, "MB/s");
		cr_assert_gt(ctx->samples[i].value, 0);
		cr_assert_eq(ctx->samples[i].better, VTB_BETTER_HIGHER);
	}
	cr_assert(json_is_true(json_object_get(ctx->info, "validated")));
}

Test(membw, tiny_run_reports_eight_validated_metrics)
{
	struct vtb_workload_ctx ctx;

	tiny_run("no", "256K", &ctx);
	check_metrics(&ctx);
	cr_assert_str_eq(info_str(ctx.info, "stores"), "regular");
	cr_assert_str_eq(info_str(ctx.info, "llc_source"), "harness");
	cr_assert_str_eq(info_str(ctx.info, "stream_rule"), "met");
	cr_assert_eq(json_integer_value(json_object_get(ctx.info, "array_bytes")), 1 << 20);
	cr_assert_eq(json_integer_value(json_object_get(ctx.info, "llc_bytes")), 256 << 10);
	cr_assert_eq(json_integer_value(json_object_get(ctx.info, "iterations")), 3);
	cr_assert_eq(json_integer_value(json_object_get(ctx.info, "threads")),
		     (json_int_t)ctx.cpus.n);
	vtb_workload_ctx_release(&ctx);
}

/*
 * Each rate is the bytes the kernel moves over its best time: 2 arrays
 * for copy and scale (read one, write one), 3 for add and triad (read
 * two, write one), in 10^6 bytes/s.  The words are written out here, not
 * taken from membw.c, so counting triad as 2 arrays fails this test.
 */
Test(membw, each_rate_is_bytes_moved_over_the_best_time)
{
	static const struct {
		const char *name;
		double arrays;
	} k[] = { { "copy", 2 }, { "scale", 2 }, { "add", 3 }, { "triad", 3 } };
	struct vtb_workload_ctx ctx;
	json_t *kernels;
	double array;

	tiny_run("no", "256K", &ctx);
	array = (double)json_integer_value(json_object_get(ctx.info, "array_bytes"));
	cr_assert_gt(array, 0);
	kernels = json_object_get(ctx.info, "kernels");
	cr_assert(json_is_object(kernels));
	for (size_t i = 0; i < 4; i++) {
		json_t *o = json_object_get(kernels, k[i].name);
		double best = json_number_value(json_object_get(o, "best_s"));
		double avg = json_number_value(json_object_get(o, "avg_s"));
		double max = json_number_value(json_object_get(o, "max_s"));
		double want = 1e-6 * k[i].arrays * array / best;

		cr_assert(json_is_object(o), "no times for %s", k[i].name);
		cr_assert_gt(best, 0);
		cr_assert_leq(best, avg);
		cr_assert_leq(avg, max * (1 + 1e-12));
		cr_assert_str_eq(ctx.samples[i].metric, k[i].name);
		cr_assert_float_eq(ctx.samples[i].value, want, want * 1e-9,
				   "%s: %.3f MB/s reported, %.0f arrays of %.0f bytes in %.9f s is %.3f",
				   k[i].name, ctx.samples[i].value, k[i].arrays, array, best, want);
		cr_assert_float_eq(json_number_value(json_object_get(o, "bytes_moved")),
				   k[i].arrays * array, 0.5);
	}
	vtb_workload_ctx_release(&ctx);
}

/*
 * Each kernel's second sample is likwid-bench's reading: bytes moved over
 * the mean time of iterations 2..N (all bytes over all time), never above
 * the best rate.  Checked against the times the info holds.
 */
Test(membw, each_mean_rate_is_bytes_moved_over_the_mean_time)
{
	static const char *const names[] = { "copy", "scale", "add", "triad" };
	struct vtb_workload_ctx ctx;
	json_t *kernels;

	tiny_run("no", "256K", &ctx);
	kernels = json_object_get(ctx.info, "kernels");
	for (size_t i = 0; i < 4; i++) {
		json_t *o = json_object_get(kernels, names[i]);
		double moved = json_number_value(json_object_get(o, "bytes_moved"));
		double avg = json_number_value(json_object_get(o, "avg_s"));
		double want = 1e-6 * moved / avg;
		char *mean = vtb_asprintf("%s_mean", names[i]);

		cr_assert_str_eq(ctx.samples[4 + i].metric, mean);
		cr_assert_str_eq(ctx.samples[4 + i].unit, "MB/s");
		cr_assert_float_eq(ctx.samples[4 + i].value, want, want * 1e-9,
				   "%s: %.3f MB/s reported, %.0f bytes over a mean %.9f s is %.3f",
				   mean, ctx.samples[4 + i].value, moved, avg, want);
		cr_assert_leq(ctx.samples[4 + i].value, ctx.samples[i].value);
		cr_assert_float_eq(json_number_value(json_object_get(o, "mean_mb_s")), want,
				   want * 1e-9);
		cr_assert_float_eq(json_number_value(json_object_get(o, "best_mb_s")),
				   ctx.samples[i].value, ctx.samples[i].value * 1e-9);
		free(mean);
	}
	vtb_workload_ctx_release(&ctx);
}

/*
 * The two readings over a known series: iteration 1 (the shortest here)
 * is left out of both, the best is the shortest of 2..N, the mean rate
 * is the bytes over the mean of 2..N.  24 MB moved per iteration.
 */
Test(membw, stream_stat_reads_best_and_mean_of_iterations_two_to_n)
{
	const double t[] = { 0.5, 2.0, 4.0, 1.0, 3.0 };
	struct vtb_stream_stat st;

	cr_assert_eq(vtb_stream_stat(t, 5, 24e6, &st), 0, "%s", vtb_errmsg());
	cr_assert_float_eq(st.best_s, 1.0, 1e-12);
	cr_assert_float_eq(st.avg_s, 2.5, 1e-12);
	cr_assert_float_eq(st.max_s, 4.0, 1e-12);
	cr_assert_float_eq(st.best_rate, 24.0, 1e-9);
	cr_assert_float_eq(st.mean_rate, 9.6, 1e-9);
}

/* Equal times give equal readings: the mean is never above the best,
 * whatever the rounding of the sum. */
Test(membw, stream_stat_of_equal_times_has_equal_readings)
{
	const double t[] = { 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 };
	struct vtb_stream_stat st;

	cr_assert_eq(vtb_stream_stat(t, 10, 3e6, &st), 0, "%s", vtb_errmsg());
	cr_assert_eq(st.mean_rate, st.best_rate);
	cr_assert_float_eq(st.best_rate, 30.0, 1e-9);
}

Test(membw, stream_stat_refuses_what_has_no_rate)
{
	const double ok[] = { 0.0, 1.0 }, zero[] = { 1.0, 1.0, 0.0 }, nan[] = { 1.0, NAN };
	struct vtb_stream_stat st;

	/* the first iteration is left out: its time does not matter */
	cr_assert_eq(vtb_stream_stat(ok, 2, 1e6, &st), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_stream_stat(ok, 1, 1e6, &st), -1);
	cr_assert(strstr(vtb_errmsg(), "at least 2"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_stream_stat(zero, 3, 1e6, &st), -1);
	cr_assert(strstr(vtb_errmsg(), "iteration 3"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_stream_stat(nan, 2, 1e6, &st), -1);
	cr_assert_eq(vtb_stream_stat(ok, 2, 0, &st), -1);
}

Test(membw, nontemporal_run_is_validated_and_reported)
{
	struct vtb_workload_ctx ctx;

	tiny_run("yes", "1M", &ctx);
	check_metrics(&ctx);
	cr_assert_str_eq(info_str(ctx.info, "stores"), "non-temporal");
	/* 1M arrays under 4 x 1M of LLC: allowed, but said */
	cr_assert_str_eq(info_str(ctx.info, "stream_rule"), "below STREAM rule");
	vtb_workload_ctx_release(&ctx);
}

Test(membw, auto_size_is_four_llc_rounded_up_to_a_mebibyte)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	void *p = new_params();

	cr_assert_eq(set(p, "llc", "300K"), 0);
	cr_assert_eq(set(p, "iterations", "2"), 0);
	cr_assert_eq(set(p, "threads", "1"), 0);
	cr_assert_eq(vtb_affinity_cpuset(&ctx.cpus), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(json_integer_value(json_object_get(ctx.info, "array_bytes")), 2 << 20);
	cr_assert_str_eq(info_str(ctx.info, "stream_rule"), "met");
	cr_assert_eq(json_integer_value(json_object_get(ctx.info, "threads")), 1);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(membw, more_threads_than_cpus_is_an_error)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	void *p = new_params();

	cr_assert_eq(set(p, "threads", "4"), 0);
	cr_assert_eq(set(p, "llc", "1M"), 0);
	cr_assert_eq(vtb_cpuset_parse("0", &ctx.cpus), 0);
	cr_assert_eq(W->prepare(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "threads"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(membw, arrays_larger_than_memory_are_refused)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	void *p = new_params();

	cr_assert_eq(set(p, "size", "4T"), 0);
	cr_assert_eq(set(p, "llc", "1M"), 0);
	cr_assert_eq(vtb_cpuset_parse("0", &ctx.cpus), 0);
	cr_assert_eq(W->prepare(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "80%"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/* A prepared run with @kv (NAME=VALUE pairs, NULL-terminated) on the
 * first CPU of the affinity; returns prepare's result. */
static int prepare_with(const char *const *kv, void **pp, struct vtb_workload_ctx *ctx)
{
	void *p = new_params();
	struct vtb_cpuset all = { 0 };

	for (; kv[0]; kv += 2)
		cr_assert_eq(set(p, kv[0], kv[1]), 0, "%s=%s: %s", kv[0], kv[1], vtb_errmsg());
	memset(ctx, 0, sizeof(*ctx));
	ctx->cell = "t";
	cr_assert_eq(vtb_affinity_cpuset(&all), 0);
	cr_assert_eq(vtb_cpuset_add(&ctx->cpus, all.cpus[0]), 0);
	vtb_cpuset_release(&all);
	*pp = p;
	return W->prepare(p, ctx);
}

/* An explicit size needs no LLC: a kernel without sysfs cache
 * directories and no CPUID fallback still runs it, the rule unchecked. */
Test(membw, explicit_size_needs_no_llc)
{
	static const char *const kv[] = { "size", "1M", "iterations", "2", "sysfs_root",
					  "/nonexistent", "no_cpuid", "yes", NULL };
	struct vtb_workload_ctx ctx;
	void *p;

	cr_assert_eq(prepare_with(kv, &p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_str_eq(info_str(ctx.info, "stream_rule"), "unknown");
	cr_assert(json_is_null(json_object_get(ctx.info, "llc_bytes")));
	cr_assert_str_eq(info_str(ctx.info, "size_source"), "given");
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(membw, auto_size_without_any_llc_is_an_error_naming_both_sources)
{
	static const char *const kv[] = { "sysfs_root", "/nonexistent", "no_cpuid", "yes", NULL };
	struct vtb_workload_ctx ctx;
	void *p;

	cr_assert_eq(prepare_with(kv, &p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "cannot find the llc size"), "%s", vtb_errmsg());
	cr_assert(strstr(vtb_errmsg(), "CPUID"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/* Without sysfs cache directories llc = auto falls back to CPUID (every
 * x86-64 CPU describes an L2 or L3 there). */
Test(membw, auto_llc_falls_back_to_cpuid)
{
	static const char *const kv[] = { "size", "1M", "sysfs_root", "/nonexistent", NULL };
	struct vtb_workload_ctx ctx;
	void *p;

	cr_assert_eq(prepare_with(kv, &p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_gt(json_integer_value(json_object_get(ctx.info, "llc_bytes")), 0,
		     "CPUID gave no LLC size");
	cr_assert(!strncmp(info_str(ctx.info, "llc_source"), "cpuid", 5), "%s",
		  info_str(ctx.info, "llc_source"));
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/* size = auto with 4 x llc beyond memory takes the largest size whose 3
 * arrays fit in 80% of MemAvailable, and says how far below the rule
 * (a meminfo of 64 MiB available: 17 MiB arrays against 4 x 32 MiB). */
Test(membw, auto_size_too_large_for_memory_is_cut_to_fit_and_said)
{
	char *root = fixture("../meminfo/64m");
	const char *const kv[] = { "llc", "32M", "iterations", "2", "proc_root", root, NULL };
	struct vtb_workload_ctx ctx;
	json_t *pct;
	void *p;

	cr_assert_eq(prepare_with(kv, &p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(json_integer_value(json_object_get(ctx.info, "array_bytes")), 17 << 20);
	cr_assert_str_eq(info_str(ctx.info, "stream_rule"), "below STREAM rule");
	cr_assert_str_eq(info_str(ctx.info, "size_source"), "auto, the most that fits the memory");
	cr_assert_eq(json_integer_value(json_object_get(ctx.info, "stream_rule_bytes")), 128 << 20);
	pct = json_object_get(ctx.info, "stream_rule_pct");
	cr_assert_float_eq(json_number_value(pct), 100.0 * 17 / 128, 1e-9);
	cr_assert_eq(json_integer_value(json_object_get(ctx.info, "memory_available")), 64 << 20);
	vtb_workload_ctx_release(&ctx);
	free(p);
	free(root);
}

Test(membw, explicit_size_beyond_memory_is_refused_not_cut)
{
	char *root = fixture("../meminfo/64m");
	const char *const kv[] = { "llc", "32M", "size", "32M", "proc_root", root, NULL };
	struct vtb_workload_ctx ctx;
	void *p;

	cr_assert_eq(prepare_with(kv, &p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "80%"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
	free(root);
}

Test(membw, memory_need_is_three_arrays_and_unknown_without_size_or_llc)
{
	void *p = new_params();
	uint64_t need = 0;

	cr_assert_eq(vtb_workload_memory_need(W, p, 4, &need), 1);
	cr_assert_eq(set(p, "llc", "32M"), 0);
	cr_assert_eq(vtb_workload_memory_need(W, p, 4, &need), 0);
	cr_assert_eq(need, 3 * (128u << 20));
	cr_assert_eq(set(p, "size", "100M"), 0);
	cr_assert_eq(vtb_workload_memory_need(W, p, 4, &need), 0);
	cr_assert_eq(need, 3 * (100u << 20));
	free(p);
}
