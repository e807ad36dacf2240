/* SPDX-License-Identifier: MIT */
/*
 * messaging (hackbench model): hackbench's defaults, option validation
 * through the option table, the resource checks that refuse a run before
 * anything starts (open files, tasks, memory), the soft RLIMIT_NOFILE
 * raised and restored, tiny real runs in the four modes through the ops
 * hooks, and a failed start that leaves no child process or thread behind.
 * No timing is asserted.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/sysfs.h"
#include "../../workloads/workload.h"
#include "wltest.h"

static void setup(void)
{
	W = vtb_workload_find("messaging");
	cr_assert_not_null(W);
}

TestSuite(messaging, .init = setup, .timeout = 60);

static void *new_params(void)
{
	return wl_new_params();
}

static void new_ctx(struct vtb_workload_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->cell = "test";
	cr_assert_eq(vtb_affinity_cpuset(&ctx->cpus), 0, "%s", vtb_errmsg());
}

static const char *info_str(json_t *info, const char *key)
{
	return json_string_value(json_object_get(info, key));
}

static long long info_int(json_t *info, const char *key)
{
	return (long long)json_integer_value(json_object_get(info, key));
}

static size_t count_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	size_t n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

Test(messaging, registry_is_consistent_and_names_hackbench)
{
	cr_assert_eq(vtb_workloads_check(), 0, "%s", vtb_errmsg());
	cr_assert_not(W->hidden);
	cr_assert(strstr(W->summary, "rt-tests hackbench"), "%s", W->summary);
}

Test(messaging, defaults_are_hackbench_defaults)
{
	static const char *const want[][2] = {
		{ "groups", "10" }, { "fds", "20" },	 { "loops", "100" }, { "datasize", "100" },
		{ "pipe", "no" },   { "threads", "no" }, { "fifo", "no" },
	};
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct vtb_opt *o = vtb_opt_find(W->opts, want[i][0]);

		cr_assert_not_null(o, "%s", want[i][0]);
		cr_assert_str_eq(o->def, want[i][1], "%s", want[i][0]);
	}
}

Test(messaging, letters_follow_hackbench)
{
	static const struct {
		const char *name;
		int letter;
	} want[] = { { "groups", 'g' }, { "fds", 'f' },	    { "loops", 'l' }, { "datasize", 's' },
		     { "pipe", 'p' },	{ "threads", 'T' }, { "fifo", 'F' } };
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert_eq(vtb_opt_find(W->opts, want[i].name)->shortopt, want[i].letter, "%s",
			     want[i].name);
}

Test(messaging, bad_values_are_rejected_naming_the_option)
{
	void *p = new_params();

	cr_assert_eq(set(p, "groups", "0"), -1);
	cr_assert(strstr(vtb_errmsg(), "groups"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "fds", "0"), -1);
	cr_assert(strstr(vtb_errmsg(), "fds"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "fds", "10001"), -1);
	cr_assert_eq(set(p, "loops", "0"), -1);
	cr_assert(strstr(vtb_errmsg(), "loops"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "loops", "many"), -1);
	cr_assert_eq(set(p, "datasize", "0"), -1);
	cr_assert(strstr(vtb_errmsg(), "datasize"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "datasize", "1G"), -1);
	cr_assert_eq(set(p, "pipe", "maybe"), -1);
	cr_assert(strstr(vtb_errmsg(), "pipe"), "%s", vtb_errmsg());
	cr_assert_eq(set(p, "threads", "2"), -1);
	cr_assert_eq(set(p, "groups", "-3"), -1);
	free(p);
}

Test(messaging, good_values_are_accepted)
{
	void *p = new_params();

	cr_assert_eq(set(p, "groups", "1"), 0);
	cr_assert_eq(set(p, "fds", "1"), 0);
	cr_assert_eq(set(p, "loops", "1000"), 0);
	cr_assert_eq(set(p, "datasize", "4K"), 0);
	cr_assert_eq(set(p, "pipe", "yes"), 0);
	cr_assert_eq(set(p, "threads", "yes"), 0);
	cr_assert_eq(set(p, "fifo", "no"), 0);
	free(p);
}

Test(messaging, the_test_hook_is_hidden_and_has_no_default)
{
	const struct vtb_opt *o = vtb_opt_find(W->opts, "fail_after");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(o);
	cr_assert(o->flags & VTB_OPT_HIDDEN);
	cr_assert_null(o->def, "a default would put it in every cell's parameters");
	cr_assert_not_null(f);
	vtb_opts_help(f, W->opts, true);
	fclose(f);
	cr_assert_null(strstr(text, "fail_after"), "%s", text);
	cr_assert(strstr(text, "--pipe"), "%s", text);
	cr_assert(strstr(text, "hackbench -T"), "%s", text);
	free(text);
}

/* Runs @params through the hooks; returns run's result (prepare must pass). */
static int run(void *p, struct vtb_workload_ctx *ctx)
{
	new_ctx(ctx);
	cr_assert_eq(W->prepare(p, ctx), 0, "%s", vtb_errmsg());
	return W->run(p, ctx);
}

static void tiny_run(const char *threads, const char *pipe)
{
	struct vtb_workload_ctx ctx;
	void *p = new_params();
	size_t threads0 = count_tasks();
	json_t *info;

	cr_assert_eq(set(p, "groups", "2"), 0);
	cr_assert_eq(set(p, "fds", "3"), 0);
	cr_assert_eq(set(p, "loops", "20"), 0);
	cr_assert_eq(set(p, "datasize", "1000"), 0);
	cr_assert_eq(set(p, "threads", threads), 0);
	cr_assert_eq(set(p, "pipe", pipe), 0);
	cr_assert_eq(run(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(ctx.n_samples, 1);
	cr_assert_str_eq(ctx.samples[0].metric, "seconds");
	cr_assert_str_eq(ctx.samples[0].unit, "s");
	cr_assert_eq(ctx.samples[0].better, VTB_BETTER_LOWER);
	cr_assert_gt(ctx.samples[0].value, 0);
	info = ctx.info;
	cr_assert_eq(info_int(info, "tasks"), 12);
	cr_assert_eq(info_int(info, "messages"), 2 * 3 * 3 * 20);
	cr_assert_eq(info_int(info, "datasize"), 1000);
	cr_assert_str_eq(info_str(info, "mode"), strcmp(threads, "yes") ? "process" : "thread");
	cr_assert_str_eq(info_str(info, "transport"), strcmp(pipe, "yes") ? "socket" : "pipe");
	/* every child reaped, every thread joined */
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1);
	cr_assert_eq(errno, ECHILD);
	cr_assert_eq(count_tasks(), threads0);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(messaging, processes_over_socket_pairs)
{
	tiny_run("no", "no");
}

Test(messaging, processes_over_pipes)
{
	tiny_run("no", "yes");
}

Test(messaging, threads_over_socket_pairs)
{
	tiny_run("yes", "no");
}

Test(messaging, threads_over_pipes)
{
	tiny_run("yes", "yes");
}

Test(messaging, a_message_larger_than_the_pipe_buffer_arrives_whole)
{
	struct vtb_workload_ctx ctx;
	void *p = new_params();

	cr_assert_eq(set(p, "groups", "1"), 0);
	cr_assert_eq(set(p, "fds", "2"), 0);
	cr_assert_eq(set(p, "loops", "3"), 0);
	cr_assert_eq(set(p, "datasize", "300K"), 0);
	cr_assert_eq(set(p, "pipe", "yes"), 0);
	cr_assert_eq(run(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(ctx.n_samples, 1);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(messaging, an_inherited_ignored_sigchld_does_not_lose_the_children)
{
	struct vtb_workload_ctx ctx;
	void *p = new_params();

	signal(SIGCHLD, SIG_IGN);
	cr_assert_eq(set(p, "groups", "1"), 0);
	cr_assert_eq(set(p, "fds", "2"), 0);
	cr_assert_eq(run(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(signal(SIGCHLD, SIG_DFL), SIG_IGN, "the disposition is restored");
	vtb_workload_ctx_release(&ctx);
	free(p);
}

static void failed_start(const char *threads)
{
	struct vtb_workload_ctx ctx;
	size_t threads0 = count_tasks();
	void *p = new_params();

	cr_assert_eq(set(p, "groups", "3"), 0);
	cr_assert_eq(set(p, "fds", "4"), 0);
	cr_assert_eq(set(p, "threads", threads), 0);
	/* mid-group: 4 receivers and 1 sender of group 1 are running */
	cr_assert_eq(set(p, "fail_after", "13"), 0);
	cr_assert_eq(run(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "test hook"), "%s", vtb_errmsg());
	cr_assert_eq(ctx.n_samples, 0);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child is left");
	cr_assert_eq(errno, ECHILD);
	cr_assert_eq(count_tasks(), threads0, "a thread is left");
	vtb_workload_ctx_release(&ctx);
	free(p);
}

/*
 * A task failing after the start (the fail_mid_run hook: receiver 0 of
 * group 0) ends the run with its error, not a hang: its senders block
 * on its full pipe or socket (20 x 10000 bytes, more than a pipe holds)
 * until the abort wakes them.  Threads over pipes used to hang here.
 * The alarm only turns a hang into a crash of the test (criterion's own
 * .timeout leaks an allocation of its runner under LeakSanitizer).
 */
static void fails_mid_run(const char *threads, const char *pipe)
{
	struct vtb_workload_ctx ctx;
	void *p = new_params();
	size_t threads0 = count_tasks();

	alarm(30);
	cr_assert_eq(set(p, "groups", "2"), 0);
	cr_assert_eq(set(p, "fds", "2"), 0);
	cr_assert_eq(set(p, "loops", "20"), 0);
	cr_assert_eq(set(p, "datasize", "10000"), 0);
	cr_assert_eq(set(p, "threads", threads), 0);
	cr_assert_eq(set(p, "pipe", pipe), 0);
	cr_assert_eq(set(p, "fail_mid_run", "yes"), 0);
	cr_assert_eq(run(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "receiver 0 of group 0"), "%s", vtb_errmsg());
	cr_assert(strstr(vtb_errmsg(), "test hook fail_mid_run"), "%s", vtb_errmsg());
	cr_assert_eq(ctx.n_samples, 0);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child is left");
	cr_assert_eq(count_tasks(), threads0, "a thread is left");
	alarm(0);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(messaging, a_thread_failing_mid_run_over_pipes_ends_the_run)
{
	fails_mid_run("yes", "yes");
}

Test(messaging, a_thread_failing_mid_run_over_sockets_ends_the_run)
{
	fails_mid_run("yes", "no");
}

Test(messaging, a_process_failing_mid_run_over_pipes_ends_the_run)
{
	fails_mid_run("no", "yes");
}

Test(messaging, a_failed_start_kills_and_reaps_every_process)
{
	failed_start("no");
}

Test(messaging, a_failed_start_joins_every_thread)
{
	failed_start("yes");
}

static void set_nofile(rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { .rlim_cur = soft, .rlim_max = hard };

	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0, "%s", strerror(errno));
}

Test(messaging, too_few_open_files_is_refused_before_starting)
{
	struct vtb_workload_ctx ctx;
	void *p = new_params();

	set_nofile(64, 64);
	cr_assert_eq(set(p, "threads", "yes"), 0);
	new_ctx(&ctx);
	cr_assert_eq(W->prepare(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "RLIMIT_NOFILE"), "%s", vtb_errmsg());
	cr_assert(strstr(vtb_errmsg(), "thread mode"), "%s", vtb_errmsg());
	/* the same groups as processes: one group's files per process */
	cr_assert_eq(set(p, "threads", "no"), 0);
	cr_assert_eq(W->prepare(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(set(p, "fds", "100"), 0);
	cr_assert_eq(W->prepare(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "process mode"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(messaging, the_soft_open_file_limit_is_raised_and_restored)
{
	struct vtb_workload_ctx ctx;
	struct rlimit rl;
	void *p = new_params();

	set_nofile(64, 4096);
	cr_assert_eq(set(p, "threads", "yes"), 0);
	cr_assert_eq(set(p, "groups", "2"), 0);
	cr_assert_eq(set(p, "loops", "2"), 0);
	cr_assert_eq(run(p, &ctx), 0, "%s", vtb_errmsg());
	cr_assert(json_is_true(json_object_get(ctx.info, "nofile_raised")));
	cr_assert_gt(info_int(ctx.info, "open_files_needed"), 80);
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	cr_assert_eq(rl.rlim_cur, 64);
	cr_assert_eq(rl.rlim_max, 4096);
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(messaging, more_tasks_than_the_kernel_allows_is_refused)
{
	struct vtb_workload_ctx ctx;
	void *p = new_params();

	/* 2 x 10^9 tasks: above any pid_max (at most 2^22) */
	cr_assert_eq(set(p, "groups", "100000"), 0);
	cr_assert_eq(set(p, "fds", "10000"), 0);
	new_ctx(&ctx);
	cr_assert_eq(W->prepare(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "2000000000 tasks"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(messaging, buffers_larger_than_memory_are_refused)
{
	struct vtb_workload_ctx ctx;
	void *p = new_params();

	/* 2000 tasks x 64 MiB: 125 GiB of message buffers */
	cr_assert_eq(set(p, "groups", "10"), 0);
	cr_assert_eq(set(p, "fds", "100"), 0);
	cr_assert_eq(set(p, "datasize", "64M"), 0);
	new_ctx(&ctx);
	cr_assert_eq(W->prepare(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "available memory"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}

Test(messaging, no_cpus_is_an_error)
{
	struct vtb_workload_ctx ctx = { .cell = "t" };
	void *p = new_params();

	cr_assert_eq(vtb_cpuset_parse("", &ctx.cpus), 0);
	cr_assert_eq(W->prepare(p, &ctx), -1);
	cr_assert(strstr(vtb_errmsg(), "no cpus"), "%s", vtb_errmsg());
	vtb_workload_ctx_release(&ctx);
	free(p);
}
