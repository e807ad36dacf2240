/* SPDX-License-Identifier: MIT */
/*
 * timer (cyclictest model): option validation through its option table,
 * what prepare resolves (threads, the CPU of each thread, intervals, the
 * time limit), the deadline arithmetic, and tiny real runs through the
 * ops hooks that must report the four metrics, the histogram and the
 * per-thread facts.  Nothing here asserts a timing.
 *
 * The workload's source is included so its static helpers (deadline
 * arithmetic, per-thread CPU and interval) can be tested directly; the
 * linker then takes vtb_workload_timer from this object, not from
 * libvtbwl.a, so the registry still finds it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../common/sysfs.h"

/*
 * The workload's RLIMIT_RTPRIO and mlockall calls, seen by the tests.
 * RLIMIT_RTPRIO: raising a hard limit needs CAP_SYS_RESOURCE, which
 * containers and CI machines often lack, so a test that set up "soft 0,
 * hard 99" for real could only run on some machines.  With fake_rtprio
 * set, the workload reads and writes a limit held here (every call and the
 * highest soft limit it set are kept); other resources and other tests go
 * to the kernel.  mlockall: ASan's interceptor ignores the call and returns
 * 0, so the workload's call goes to the kernel directly (the test that
 * wants it to fail has RLIMIT_MEMLOCK 0 and no root: nothing is locked).
 */
static bool fake_rtprio;
static struct rlimit fake_rl;
static rlim_t fake_rl_max_soft;

static int test_getrlimit(__rlimit_resource_t res, struct rlimit *rl)
{
	if (fake_rtprio && res == RLIMIT_RTPRIO) {
		*rl = fake_rl;
		return 0;
	}
	return getrlimit(res, rl);
}

static int test_setrlimit(__rlimit_resource_t res, const struct rlimit *rl)
{
	if (fake_rtprio && res == RLIMIT_RTPRIO) {
		if (rl->rlim_max > fake_rl.rlim_max || rl->rlim_cur > rl->rlim_max) {
			errno = EPERM;
			return -1;
		}
		fake_rl = *rl;
		if (rl->rlim_cur > fake_rl_max_soft)
			fake_rl_max_soft = rl->rlim_cur;
		return 0;
	}
	return setrlimit(res, rl);
}

static int test_mlockall(int flags)
{
	return (int)syscall(SYS_mlockall, flags);
}

#define getrlimit(r, l) test_getrlimit(r, l)
#define setrlimit(r, l) test_setrlimit(r, l)
#define mlockall(f) test_mlockall(f)
#include "../../workloads/timer.c"
#undef getrlimit
#undef setrlimit
#undef mlockall
#include "wltest.h"

static void setup(void)
{
	W = vtb_workload_find("timer");
	cr_assert_not_null(W);
}

TestSuite(timer, .init = setup);

static struct timer_params *new_params(void)
{
	return wl_new_params();
}

Test(timer, registered_and_names_cyclictest)
{
	cr_assert_eq(vtb_workloads_check(), 0, "%s", vtb_errmsg());
	cr_assert_eq(W, &vtb_workload_timer);
	cr_assert_not(W->hidden);
	cr_assert(strstr(W->summary, "cyclictest"), "%s", W->summary);
}

Test(timer, defaults_are_cyclictests)
{
	struct timer_params *p = new_params();

	cr_assert_eq(p->threads, 0); /* auto */
	cr_assert_eq(p->interval, 1000 * US);
	cr_assert_eq(p->distance, 500 * US);
	cr_assert_eq(p->priority, 0);
	cr_assert_str_eq(p->affinity, "auto");
	cr_assert_not(p->mlockall);
	cr_assert_eq(p->duration, 0); /* auto */
	cr_assert_eq(p->loops, 0);
	cr_assert_eq(p->dma_latency, 0);
	free(p);
}

Test(timer, bad_values_are_rejected_naming_the_option)
{
	struct timer_params *p = new_params();

	cr_assert_eq(set(p, "threads", "0"), -1);
	cr_assert(strstr(vtb_errmsg(), "threads"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "threads", "two"), -1);
	cr_assert_eq(set(p, "priority", "100"), -1);
	cr_assert(strstr(vtb_errmsg(), "priority"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "priority", "-1"), -1);
	/* a bare number is seconds: cyclictest's "-i 1000" must not pass */
	cr_assert_eq(set(p, "interval", "1000"), -1);
	cr_assert(strstr(vtb_errmsg(), "interval"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "interval", "5us"), -1);
	cr_assert_eq(set(p, "distance", "-1us"), -1);
	cr_assert_eq(set(p, "affinity", "a-b"), -1);
	cr_assert(strstr(vtb_errmsg(), "affinity"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "duration", "0"), -1);
	cr_assert(strstr(vtb_errmsg(), "duration"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "loops", "-1"), -1);
	cr_assert_eq(set(p, "dma_latency", "-2"), -1);
	cr_assert_eq(set(p, "mlockall", "maybe"), -1);
	free(p);
}

Test(timer, good_values_are_accepted)
{
	struct timer_params *p = new_params();

	cr_assert_eq(set(p, "threads", "3"), 0);
	cr_assert_eq(p->threads, 3);
	cr_assert_eq(set(p, "interval", "250us"), 0);
	cr_assert_eq(p->interval, 250 * US);
	cr_assert_eq(set(p, "interval", "1ms"), 0);
	cr_assert_eq(set(p, "distance", "0"), 0);
	cr_assert_eq(p->distance, 0);
	cr_assert_eq(set(p, "priority", "99"), 0);
	cr_assert_eq(set(p, "affinity", "0-3,8"), 0);
	cr_assert_eq(set(p, "mlockall", "yes"), 0);
	cr_assert(p->mlockall);
	cr_assert_eq(set(p, "duration", "2m"), 0);
	cr_assert_eq(p->duration, 120 * SEC);
	cr_assert_eq(set(p, "loops", "1000"), 0);
	cr_assert_eq(set(p, "dma_latency", "-1"), 0);
	cr_assert_eq(p->dma_latency, -1);
	free(p);
}

static void cpus(struct vtb_workload_ctx *ctx, const char *list)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->cell = "t";
	cr_assert_eq(vtb_cpuset_parse(list, &ctx->cpus), 0);
}

Test(timer, auto_threads_are_one_per_cpu_given_pinned_in_order)
{
	struct vtb_workload_ctx ctx;
	struct timer_params *p = new_params();

	cpus(&ctx, "2,4-6");
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->threads, 4);
	cr_assert_eq(thread_cpu(p, 0), 2);
	cr_assert_eq(thread_cpu(p, 1), 4);
	cr_assert_eq(thread_cpu(p, 3), 6);
	/* cyclictest: interval + k * distance */
	cr_assert_eq(thread_interval(p, 0), 1000 * US);
	cr_assert_eq(thread_interval(p, 1), 1500 * US);
	cr_assert_eq(thread_interval(p, 3), 2500 * US);
	vtb_cpuset_release(&p->pool);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(timer, affinity_is_round_robin_over_the_list_like_cyclictest)
{
	struct vtb_workload_ctx ctx;
	struct timer_params *p = new_params();

	cpus(&ctx, "0-3");
	/* cyclictest takes the set bits in increasing order: "3,1" is 1, 3 */
	cr_assert_eq(set(p, "affinity", "3,1"), 0);
	cr_assert_eq(set(p, "threads", "3"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(thread_cpu(p, 0), 1);
	cr_assert_eq(thread_cpu(p, 1), 3);
	cr_assert_eq(thread_cpu(p, 2), 1);
	vtb_cpuset_release(&p->pool);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(timer, affinity_outside_the_cpus_given_is_an_error)
{
	struct vtb_workload_ctx ctx;
	struct timer_params *p = new_params();

	cpus(&ctx, "0-1");
	cr_assert_eq(set(p, "affinity", "1-2"), 0);
	cr_assert_eq(W->prepare(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "cpu 2"), "%s", vtb_errmsg());
	cr_assert(strstr(vtb_errmsg(), "0-1"), "%s", vtb_errmsg());
	cr_assert_eq(p->pool.n, 0);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/* One limit whatever the pool: more threads than CPUs share them round
 * robin (cyclictest), with -a as without (-a 0 -t 2 and -t 2 on cpu 0
 * used to differ, one accepted, one refused). */
Test(timer, more_threads_than_cpus_share_them_round_robin)
{
	struct vtb_workload_ctx ctx;
	struct timer_params *p = new_params();

	cpus(&ctx, "0");
	cr_assert_eq(set(p, "threads", "2"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->threads, 2);
	cr_assert_eq(thread_cpu(p, 1), 0);
	vtb_cpuset_release(&p->pool);
	vtb_workload_ctx_release(&ctx);
	free(p);
	p = new_params();
	cpus(&ctx, "0-3");
	cr_assert_eq(set(p, "affinity", "0"), 0);
	cr_assert_eq(set(p, "threads", "2"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->threads, 2);
	cr_assert_eq(thread_cpu(p, 1), 0);
	vtb_cpuset_release(&p->pool);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/* -a 0 with no -t: one thread, not one per cpu given stacked on cpu 0 */
Test(timer, auto_threads_are_one_per_affinity_cpu)
{
	struct vtb_workload_ctx ctx;
	struct timer_params *p = new_params();

	cpus(&ctx, "0-3");
	cr_assert_eq(set(p, "affinity", "1,3"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->threads, 2);
	vtb_cpuset_release(&p->pool);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(timer, duration_auto_is_ten_seconds_unless_loops_are_given)
{
	struct vtb_workload_ctx ctx;
	struct timer_params *p = new_params();

	cpus(&ctx, "0");
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->run_ns, 10 * SEC);
	cr_assert_eq(set(p, "loops", "100"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->run_ns, 0);
	cr_assert_eq(set(p, "duration", "3s"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->run_ns, 3 * SEC);
	vtb_cpuset_release(&p->pool);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

static struct timespec ts(time_t s, long ns)
{
	struct timespec t = { .tv_sec = s, .tv_nsec = ns };

	return t;
}

Test(timer, latency_is_now_minus_deadline_across_seconds)
{
	struct timespec a = ts(6, 1000), b = ts(5, 999999000);

	cr_assert_eq(ts_diff_ns(&a, &b), 2000);
	cr_assert_eq(ts_diff_ns(&b, &a), -2000);
	cr_assert_eq(ts_diff_ns(&a, &a), 0);
}

Test(timer, next_deadline_advances_one_interval_when_on_time)
{
	struct timespec next = ts(1, 0), now = ts(1, 10000), iv = ts_of_ns(1000 * US);

	cr_assert_eq(next_deadline(&next, &now, &iv), 0);
	cr_assert_eq(next.tv_sec, 1);
	cr_assert_eq(next.tv_nsec, 1000000);
	/* a wake-up exactly on the following deadline does not skip it */
	now = ts(1, 2000000);
	cr_assert_eq(next_deadline(&next, &now, &iv), 0);
	cr_assert_eq(next.tv_nsec, 2000000);
}

Test(timer, next_deadline_skips_deadlines_already_past_keeping_the_grid)
{
	struct timespec next = ts(1, 0), now = ts(1, 3500000), iv = ts_of_ns(1000 * US);

	cr_assert_eq(next_deadline(&next, &now, &iv), 3);
	cr_assert_eq(next.tv_sec, 1);
	cr_assert_eq(next.tv_nsec, 4000000);
}

Test(timer, next_deadline_carries_into_seconds)
{
	struct timespec next = ts(5, 999999500), now = ts(5, 999999600), iv = ts_of_ns(1000);

	cr_assert_eq(next_deadline(&next, &now, &iv), 0);
	cr_assert_eq(next.tv_sec, 6);
	cr_assert_eq(next.tv_nsec, 500);
	iv = ts_of_ns(2500 * MS);
	cr_assert_eq(iv.tv_sec, 2);
	cr_assert_eq(iv.tv_nsec, 500000000);
	next = ts(1, 600000000);
	now = next;
	cr_assert_eq(next_deadline(&next, &now, &iv), 0);
	cr_assert_eq(next.tv_sec, 4);
	cr_assert_eq(next.tv_nsec, 100000000);
}

static const char *const metric_names[] = { "timer_min", "timer_avg", "timer_p99", "timer_max" };

static double metric(const struct vtb_workload_ctx *ctx, const char *name)
{
	size_t i;

	for (i = 0; i < ctx->n_samples; i++)
		if (strcmp(ctx->samples[i].metric, name) == 0)
			return ctx->samples[i].value;
	cr_assert_fail("no metric %s", name);
	return 0;
}

static void check_metrics(const struct vtb_workload_ctx *ctx)
{
	size_t i;

	cr_assert_eq(ctx->n_samples, 4);
	for (i = 0; i < 4; i++) {
		cr_assert_str_eq(ctx->samples[i].metric, metric_names[i]);
		cr_assert_str_eq(ctx->samples[i].unit, "us");
		cr_assert_eq(ctx->samples[i].better, VTB_BETTER_LOWER);
		cr_assert_geq(ctx->samples[i].value, 0);
	}
	/* a wake-up is read after the deadline it slept to: never 0 */
	cr_assert_gt(metric(ctx, "timer_min"), 0, "timer_min is 0");
	/* order statistics of the same samples, whatever the timings */
	cr_assert_leq(metric(ctx, "timer_min"), metric(ctx, "timer_avg"));
	cr_assert_leq(metric(ctx, "timer_avg"), metric(ctx, "timer_max"));
	cr_assert_leq(metric(ctx, "timer_min"), metric(ctx, "timer_p99"));
	cr_assert_leq(metric(ctx, "timer_p99"), metric(ctx, "timer_max"));
}

static json_int_t info_int(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	cr_assert(json_is_integer(v), "info '%s' is not an integer", key);
	return json_integer_value(v);
}

Test(timer, loops_run_reports_metrics_and_per_thread_counts)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	struct timer_params *p = new_params();
	json_t *per, *t0;

	cr_assert_eq(vtb_affinity_cpuset(&ctx.cpus), 0);
	cr_assert_eq(set(p, "threads", "1"), 0);
	cr_assert_eq(set(p, "interval", "100us"), 0);
	cr_assert_eq(set(p, "loops", "50"), 0);
	cr_assert_eq(set(p, "dma_latency", "-1"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), 0, "%s", vtb_errmsg());
	check_metrics(&ctx);
	cr_assert_eq(info_int(ctx.info, "cycles"), 50);
	cr_assert_eq(info_int(ctx.info, "threads"), 1);
	cr_assert(json_is_null(json_object_get(ctx.info, "duration_s")));
	cr_assert_str_eq(json_string_value(json_object_get(ctx.info, "dma_latency")), "left alone");
	cr_assert_str_eq(json_string_value(json_object_get(ctx.info, "policy")), "other");
	per = json_object_get(ctx.info, "per_thread");
	cr_assert_eq(json_array_size(per), 1);
	t0 = json_array_get(per, 0);
	cr_assert_eq(info_int(t0, "cycles"), 50);
	cr_assert_eq(info_int(t0, "cpu"), ctx.cpus.cpus[0]);
	cr_assert_eq(p->pool.n, 0, "run releases the pool");
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/*
 * Latency is measured against the deadline the thread slept to, not the
 * previous one or the next.  Against the next (the deadline advanced
 * before the clock is compared) every latency is negative, clamped to 0:
 * timer_min > 0 (check_metrics()) catches it, as the clock is read after
 * the deadline slept to has passed.  Against the previous one every
 * latency exceeds the interval; a real wake-up later than its interval
 * skips the deadlines already past and counts them as missed, so a
 * minimum above the interval means every wake-up missed at least one.
 * Both hold whatever the machine's load: no timing is asserted.
 */
Test(timer, latency_is_against_the_deadline_slept_to)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	struct timer_params *p = new_params();
	json_t *t0;

	cr_assert_eq(vtb_affinity_cpuset(&ctx.cpus), 0);
	cr_assert_eq(set(p, "threads", "1"), 0);
	cr_assert_eq(set(p, "loops", "50"), 0);
	cr_assert_eq(set(p, "interval", "1ms"), 0);
	cr_assert_eq(set(p, "dma_latency", "-1"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), 0, "%s", vtb_errmsg());
	check_metrics(&ctx);
	t0 = json_array_get(json_object_get(ctx.info, "per_thread"), 0);
	cr_assert_not_null(t0);
	cr_assert_eq(info_int(t0, "cycles"), 50);
	if (json_real_value(json_object_get(t0, "min_us")) > 1000.0)
		cr_assert_geq(info_int(t0, "missed"), 50,
			      "every wake-up was over the 1 ms interval (min %.1f us) but only %lld "
			      "deadlines were missed",
			      json_real_value(json_object_get(t0, "min_us")),
			      (long long)info_int(t0, "missed"));
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(timer, every_thread_gets_its_cpu_and_interval)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	struct timer_params *p = new_params();
	json_t *per;
	size_t k, n;

	cr_assert_eq(vtb_affinity_cpuset(&ctx.cpus), 0);
	cr_assert_eq(set(p, "interval", "200us"), 0);
	cr_assert_eq(set(p, "distance", "100us"), 0);
	cr_assert_eq(set(p, "loops", "5"), 0);
	cr_assert_eq(set(p, "dma_latency", "-1"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	n = ctx.cpus.n;
	cr_assert_eq(W->run(p, &ctx), 0, "%s", vtb_errmsg());
	check_metrics(&ctx);
	cr_assert_eq(info_int(ctx.info, "cycles"), (json_int_t)(5 * n));
	per = json_object_get(ctx.info, "per_thread");
	cr_assert_eq(json_array_size(per), n);
	for (k = 0; k < n; k++) {
		json_t *t = json_array_get(per, k);

		cr_assert_eq(info_int(t, "thread"), (json_int_t)k);
		cr_assert_eq(info_int(t, "cpu"), ctx.cpus.cpus[k]);
		cr_assert_eq(info_int(t, "cycles"), 5);
		cr_assert_float_eq(json_real_value(json_object_get(t, "interval_us")),
				   200.0 + 100.0 * (double)k, 1e-9);
	}
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(timer, duration_run_stops_by_itself)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	struct timer_params *p = new_params();

	cr_assert_eq(vtb_affinity_cpuset(&ctx.cpus), 0);
	cr_assert_eq(set(p, "threads", "1"), 0);
	cr_assert_eq(set(p, "interval", "1ms"), 0);
	cr_assert_eq(set(p, "duration", "20ms"), 0);
	cr_assert_eq(set(p, "dma_latency", "-1"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), 0, "%s", vtb_errmsg());
	check_metrics(&ctx);
	cr_assert_geq(info_int(ctx.info, "cycles"), 1);
	cr_assert_float_eq(json_real_value(json_object_get(ctx.info, "duration_s")), 0.02, 1e-12);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/* Loses the privilege to use SCHED_FIFO and to lock memory: no
 * RLIMIT_RTPRIO or RLIMIT_MEMLOCK, and no root (Criterion runs each test
 * in its own process, so this stays here). */
static void drop_privileges(void)
{
	struct rlimit zero = { 0, 0 };

	cr_assert_eq(setrlimit(RLIMIT_RTPRIO, &zero), 0);
	cr_assert_eq(setrlimit(RLIMIT_MEMLOCK, &zero), 0);
	if (geteuid() == 0) {
		cr_assert_eq(setgid(65534), 0);
		cr_assert_eq(setuid(65534), 0);
		/* setuid clears it; LeakSanitizer needs it to inspect us */
		prctl(PR_SET_DUMPABLE, 1);
	}
}

Test(timer, fifo_priority_without_permission_is_a_clear_error)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	struct timer_params *p = new_params();

	drop_privileges();
	cr_assert_eq(vtb_affinity_cpuset(&ctx.cpus), 0);
	cr_assert_eq(set(p, "threads", "1"), 0);
	cr_assert_eq(set(p, "priority", "50"), 0);
	cr_assert_eq(set(p, "loops", "3"), 0);
	cr_assert_eq(set(p, "dma_latency", "-1"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "SCHED_FIFO priority 50"), "%s", vtb_errmsg());
	cr_assert(strstr(vtb_errmsg(), "not permitted"), "%s", vtb_errmsg());
	cr_assert_eq(ctx.n_samples, 0);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/* The soft RLIMIT_RTPRIO raised for the run (cyclictest does) is put
 * back after it: later cells of the same agent must not inherit it. */
Test(timer, raised_rtprio_limit_is_restored_after_the_run)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	struct timer_params *p = new_params();

	/* soft 0, hard 99: the process a user gets from limits.conf */
	fake_rtprio = true;
	fake_rl = (struct rlimit){ .rlim_cur = 0, .rlim_max = 99 };
	cr_assert_eq(vtb_affinity_cpuset(&ctx.cpus), 0);
	cr_assert_eq(set(p, "threads", "1"), 0);
	cr_assert_eq(set(p, "priority", "10"), 0);
	cr_assert_eq(set(p, "loops", "3"), 0);
	cr_assert_eq(set(p, "dma_latency", "-1"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	(void)W->run(p, &ctx); /* FIFO may be refused (RT runtime): the limit still returns */
	cr_assert_eq(fake_rl_max_soft, 10, "the run raised the soft limit to %llu, not to the priority",
		     (unsigned long long)fake_rl_max_soft);
	cr_assert_eq(fake_rl.rlim_cur, 0, "soft RLIMIT_RTPRIO left at %llu",
		     (unsigned long long)fake_rl.rlim_cur);
	cr_assert_eq(fake_rl.rlim_max, 99);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(timer, mlockall_failure_is_a_clear_error)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	struct timer_params *p;

	p = new_params();
	drop_privileges();
	cr_assert_eq(vtb_affinity_cpuset(&ctx.cpus), 0);
	cr_assert_eq(set(p, "threads", "1"), 0);
	cr_assert_eq(set(p, "mlockall", "yes"), 0);
	cr_assert_eq(set(p, "loops", "3"), 0);
	cr_assert_eq(set(p, "dma_latency", "-1"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "mlockall"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(timer, unavailable_dma_latency_is_reported_not_fatal)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	struct timer_params *p = new_params();
	const char *dma;

	drop_privileges(); /* /dev/cpu_dma_latency is root's */
	cr_assert_eq(vtb_affinity_cpuset(&ctx.cpus), 0);
	cr_assert_eq(set(p, "threads", "1"), 0);
	cr_assert_eq(set(p, "loops", "3"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(W->run(p, &ctx), 0, "%s", vtb_errmsg());
	dma = json_string_value(json_object_get(ctx.info, "dma_latency"));
	cr_assert_not_null(dma);
	cr_assert(strncmp(dma, "not set: ", 9) == 0, "%s", dma);
	vtb_workload_ctx_release(&ctx);
	free(p);
}
