/* SPDX-License-Identifier: MIT */
/*
 * vCPU thread sampling on the fake /proc of tests/fixtures/proc: the
 * vCPU threads are found by name among helpers and look-alikes, a
 * sample reads field 39 of each thread's stat, counters come from sched
 * and schedstat; a missing or doubled vCPU thread is an error (the
 * harness then samples through libvirt); a thread whose stat stops
 * reading is -1.  The parsers survive comms with spaces and parentheses
 * and refuse truncated lines.
 */
#include <criterion/criterion.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../harness/boot/vcpusample.h"
#include "../../common/vtbutil.h"

static char *proc_root(void)
{
	const char *src = getenv("SRCDIR");
	char *p = vtb_asprintf("%s/tests/fixtures/proc", src ? src : ".");

	cr_assert_not_null(p);
	return p;
}

Test(vcpusample, finds_vcpu_threads_and_samples_them)
{
	char *root = proc_root();
	struct vtb_vcpu_sampler *s = NULL;
	struct vtb_vcpu_counters c[2];
	int cpus[2];

	cr_assert_eq(vtb_vcpu_sampler_open(root, 4242, 2, &s), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_vcpu_sampler_n(s), 2);
	cr_assert_eq(vtb_vcpu_sampler_tid(s, 0), 4243);
	cr_assert_eq(vtb_vcpu_sampler_tid(s, 1), 4244);
	cr_assert_eq(vtb_vcpu_sampler_tid(s, 2), -1);
	/* twice: the same descriptors are read again from the start */
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(vtb_vcpu_sampler_cpus(s, cpus), 2);
		cr_assert_eq(cpus[0], 3);
		cr_assert_eq(cpus[1], 1);
	}
	cr_assert_eq(vtb_vcpu_sampler_counters(s, c), 2);
	cr_assert(c[0].ok && c[1].ok);
	cr_assert_eq(c[0].migrations, 7);
	cr_assert_eq(c[0].run_delay_ns, 2500);
	cr_assert_eq(c[1].migrations, 0);
	vtb_vcpu_sampler_free(s);
	free(root);
}

Test(vcpusample, a_missing_vcpu_thread_is_an_error)
{
	char *root = proc_root();
	struct vtb_vcpu_sampler *s = NULL;

	cr_assert_eq(vtb_vcpu_sampler_open(root, 5000, 2, &s), -1);
	cr_assert_null(s);
	cr_assert(strstr(vtb_errmsg(), "CPU 1/"), "%s", vtb_errmsg());
	/* one vCPU is there */
	cr_assert_eq(vtb_vcpu_sampler_open(root, 5000, 1, &s), 0, "%s", vtb_errmsg());
	vtb_vcpu_sampler_free(s);
	cr_assert_eq(vtb_vcpu_sampler_open(root, 6000, 1, &s), -1);
	cr_assert(strstr(vtb_errmsg(), "two threads"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_vcpu_sampler_open(root, 7777, 1, &s), -1);
	cr_assert(strstr(vtb_errmsg(), "7777/task"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_vcpu_sampler_open(root, 4242, 0, &s), -1);
	free(root);
}

static void copy(const char *from, const char *to)
{
	char *text = vtb_read_file(from, 1 << 16);
	FILE *f = fopen(to, "w");

	cr_assert(text && f, "%s -> %s", from, to);
	fprintf(f, "%s\n", text);
	fclose(f);
	free(text);
}

Test(vcpusample, a_thread_that_stops_reading_is_unknown)
{
	char *root = proc_root(), tmp[] = "/tmp/vtb-proc-XXXXXX", path[256], src[512];
	static const char *const files[] = { "comm", "stat", "sched", "schedstat" };
	struct vtb_vcpu_sampler *s = NULL;
	struct vtb_vcpu_counters c[1];
	int cpus[1];

	cr_assert_not_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/1", tmp);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/1/task", tmp);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/1/task/2", tmp);
	cr_assert_eq(mkdir(path, 0700), 0);
	for (size_t i = 0; i < VTB_ARRAY_SIZE(files); i++) {
		snprintf(src, sizeof(src), "%s/4242/task/4243/%s", root, files[i]);
		snprintf(path, sizeof(path), "%s/1/task/2/%s", tmp, files[i]);
		copy(src, path);
	}
	cr_assert_eq(vtb_vcpu_sampler_open(tmp, 1, 1, &s), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_vcpu_sampler_cpus(s, cpus), 1);
	cr_assert_eq(cpus[0], 3);
	snprintf(path, sizeof(path), "%s/1/task/2/stat", tmp);
	cr_assert_eq(truncate(path, 0), 0);
	cr_assert_eq(vtb_vcpu_sampler_cpus(s, cpus), 0);
	cr_assert_eq(cpus[0], -1);
	snprintf(path, sizeof(path), "%s/1/task/2/sched", tmp);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(vtb_vcpu_sampler_counters(s, c), 0);
	cr_assert_not(c[0].ok);
	vtb_vcpu_sampler_free(s);
	for (size_t i = 0; i < VTB_ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/1/task/2/%s", tmp, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/1/task/2", tmp);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/1/task", tmp);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/1", tmp);
	rmdir(path);
	rmdir(tmp);
	free(root);
}

Test(vcpusample, comm_names)
{
	cr_assert_eq(vtb_vcpu_comm_index("CPU 0/TCG"), 0);
	cr_assert_eq(vtb_vcpu_comm_index("CPU 17/KVM"), 17);
	cr_assert_eq(vtb_vcpu_comm_index("CPU 3/"), -1);
	cr_assert_eq(vtb_vcpu_comm_index("CPU /KVM"), -1);
	cr_assert_eq(vtb_vcpu_comm_index("CPU -1/KVM"), -1);
	cr_assert_eq(vtb_vcpu_comm_index("ALL CPUs/TCG"), -1);
	cr_assert_eq(vtb_vcpu_comm_index("CPUx 0/TCG"), -1);
	cr_assert_eq(vtb_vcpu_comm_index("qemu-system-x86"), -1);
}

/* A stat line whose field 39 is @cpu, with @comm as given. */
static char *stat_line(const char *comm, int cpu)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;

	vtb_strbuf_addf(&sb, "77 (%s) S", comm);
	for (int f = 4; f <= 52; f++)
		vtb_strbuf_addf(&sb, " %d", f == 39 ? cpu : f * 3);
	vtb_strbuf_addstr(&sb, "\n");
	return vtb_strbuf_detach(&sb);
}

Test(vcpusample, stat_field_39_after_the_last_parenthesis)
{
	char *a = stat_line("CPU 0/TCG", 5), *b = stat_line("a) (b c) 1 2 3", 12);
	char *trunc = stat_line("x", 9);
	char *self;

	cr_assert_eq(vtb_vcpu_stat_cpu(a), 5);
	cr_assert_eq(vtb_vcpu_stat_cpu(b), 12);
	/* cut after field 30: no field 39 */
	*strstr(trunc, " 90 ") = '\0';
	cr_assert_eq(vtb_vcpu_stat_cpu(trunc), -1);
	cr_assert_eq(vtb_vcpu_stat_cpu("no parenthesis 1 2 3"), -1);
	cr_assert_eq(vtb_vcpu_stat_cpu(""), -1);
	/* the real thing: this process is on some CPU of this machine */
	self = vtb_read_file("/proc/self/stat", 4096);
	cr_assert_not_null(self);
	cr_assert_geq(vtb_vcpu_stat_cpu(self), 0);
	cr_assert_lt(vtb_vcpu_stat_cpu(self), sysconf(_SC_NPROCESSORS_CONF));
	free(self);
	free(a);
	free(b);
	free(trunc);
}

Test(vcpusample, sched_and_schedstat)
{
	uint64_t v = 0;

	cr_assert_eq(
		vtb_vcpu_sched_migrations("x (1, #threads: 1)\n---\nse.vruntime : 1.0\n"
					  "se.nr_migrations                 :     42\nprio : 1\n",
					  &v),
		0);
	cr_assert_eq(v, 42);
	cr_assert_eq(vtb_vcpu_sched_migrations("se.nr_migrations_x : 3\n", &v), -1);
	cr_assert_eq(vtb_vcpu_sched_migrations("se.nr_migrations : many\n", &v), -1);
	cr_assert_eq(vtb_vcpu_sched_migrations("se.nr_migrations\nfoo : 3\n", &v), -1);
	cr_assert_eq(vtb_vcpu_sched_migrations("", &v), -1);
	cr_assert_eq(vtb_vcpu_schedstat_delay("123 456 7", &v), 0);
	cr_assert_eq(v, 456);
	cr_assert_eq(vtb_vcpu_schedstat_delay("123", &v), -1);
	cr_assert_eq(vtb_vcpu_schedstat_delay("x 4 5", &v), -1);
	cr_assert_eq(vtb_vcpu_schedstat_delay("1 -4 5", &v), -1);
	/* the real thing */
	{
		char *s = vtb_read_file("/proc/self/schedstat", 4096);
		char *t = vtb_read_file("/proc/self/sched", 1 << 16);

		cr_assert_not_null(s);
		cr_assert_eq(vtb_vcpu_schedstat_delay(s, &v), 0, "%s", s);
		if (t)
			cr_assert_eq(vtb_vcpu_sched_migrations(t, &v), 0);
		free(s);
		free(t);
	}
}

Test(vcpusample, qemu_pid_from_a_pid_file_checked_against_the_cmdline)
{
	char *root = proc_root();
	char *good = vtb_asprintf("%s/vtbench-a.pid", root);
	char *stale = vtb_asprintf("%s/stale.pid", root);
	char *garbage = vtb_asprintf("%s/garbage.pid", root);
	char *missing = vtb_asprintf("%s/nothing.pid", root);

	cr_assert_eq(vtb_vcpu_qemu_pid(root, good, "vtbench-a"), 4242, "%s", vtb_errmsg());
	cr_assert_eq(vtb_vcpu_qemu_pid(root, good, "vtbench"), -1, "a prefix is not the name");
	cr_assert_eq(vtb_vcpu_qemu_pid(root, stale, "vtbench-a"), -1);
	cr_assert(strstr(vtb_errmsg(), "is not guest 'vtbench-a'"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_vcpu_qemu_pid(root, stale, "vtbench-ab"), 5000, "%s", vtb_errmsg());
	cr_assert_eq(vtb_vcpu_qemu_pid(root, garbage, "vtbench-a"), -1);
	cr_assert(strstr(vtb_errmsg(), "holds no pid"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_vcpu_qemu_pid(root, missing, "vtbench-a"), -1);
	free(good);
	free(stale);
	free(garbage);
	free(missing);
	free(root);
}

static void write_text(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* A boot waits for its QEMU to exit through this descriptor before the
 * next guest may run: it must be that process's, and poll readable only
 * once it is gone. */
Test(vcpusample, qemu_pidfd_is_readable_once_that_qemu_exited)
{
	static const char cmd[] = "qemu-system-x86_64\0-name\0guest=vtbench-x,debug-threads=on\0";
	char root[] = "/tmp/vtbpidfd.XXXXXX", *dir, *file, *pidfile, pidtext[32];
	struct pollfd p;
	int fd, status;
	pid_t child;

	cr_assert(mkdtemp(root));
	child = fork();
	cr_assert(child >= 0);
	if (child == 0) {
		for (;;)
			pause();
	}
	dir = vtb_asprintf("%s/%d", root, (int)child);
	file = vtb_asprintf("%s/%d/cmdline", root, (int)child);
	pidfile = vtb_asprintf("%s/vtbench-x.pid", root);
	cr_assert(dir && file && pidfile);
	cr_assert_eq(mkdir(dir, 0755), 0);
	write_text(file, cmd, sizeof(cmd) - 1);
	snprintf(pidtext, sizeof(pidtext), "%d", (int)child);
	write_text(pidfile, pidtext, strlen(pidtext));

	cr_expect_eq(vtb_vcpu_qemu_pidfd(root, pidfile, "vtbench-y"), -1,
		     "another guest's name is refused");
	fd = vtb_vcpu_qemu_pidfd(root, pidfile, "vtbench-x");
	cr_assert(fd >= 0, "%s", vtb_errmsg());
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	cr_expect_eq(poll(&p, 1, 0), 0, "not readable while the process lives");
	cr_assert_eq(kill(child, SIGKILL), 0);
	p.revents = 0;
	cr_expect_eq(poll(&p, 1, 60000), 1, "readable once it exited");
	cr_expect(p.revents & POLLIN);
	cr_assert_eq(waitpid(child, &status, 0), child);
	close(fd);
	unlink(pidfile);
	unlink(file);
	rmdir(dir);
	rmdir(root);
	free(dir);
	free(file);
	free(pidfile);
}
