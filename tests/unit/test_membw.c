/* SPDX-License-Identifier: MIT */
/*
 * membw: option validation through its option table, the LLC sum from a
 * fake sysfs tree, and small real runs through the ops hooks that must
 * report the four STREAM metrics, validated.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../workloads/lib/sysfs.h"
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
	static const char *const names[] = { "copy", "scale", "add", "triad" };
	size_t i;

	cr_assert_eq(ctx->n_samples, 4);
	for (i = 0; i < 4; i++) {
		cr_assert_str_eq(ctx->samples[i].metric, names[i]);
		cr_assert_str_eq(ctx->samples[i].unit, "MB/s");
		cr_assert_gt(ctx->samples[i].value, 0);
		cr_assert_eq(ctx->samples[i].better, VTB_BETTER_HIGHER);
	}
	cr_assert(json_is_true(json_object_get(ctx->info, "validated")));
}

Test(membw, tiny_run_reports_four_validated_metrics)
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
