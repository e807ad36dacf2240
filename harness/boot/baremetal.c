/* SPDX-License-Identifier: MIT */
/*
 * Bare-metal boots.  The agent is started with posix_spawn (no shell) in
 * its own process group, so a timeout or an interrupt kills it and every
 * process a workload forked.  Confinement: the harness sets its own
 * affinity to the configuration's CPUs just around posix_spawn and
 * restores it, so the agent starts confined (no window in which it runs
 * elsewhere) and every thread it creates inherits the mask.  Memory is
 * bound the same way: set_mempolicy(MPOL_BIND) to the configuration's
 * nodes around the spawn (the policy is inherited across fork and exec;
 * raw syscalls, no libnuma).  Where the kernel or a seccomp profile
 * refuses it, the agent runs unbound and the boot says so.  The job is
 * handed over in a memfd, so a killed harness leaves no file behind.
 *
 * confinement = partition: a cgroup-v2 child vtbench-<uuid> of the
 * cgroup2 root becomes a cpuset root partition on the configuration's
 * CPUs (so the host's sched domains span only those, like a guest's);
 * the agent is then forked, not spawned, and writes its own pid to the
 * partition's cgroup.procs before exec, so it never runs outside.  The
 * cgroup is removed after.  Where cgroup2 has no cpuset controller (v1
 * owns it on hybrid hosts) or the kernel refuses the partition, the boot
 * runs confined by affinity and says why.  Host scheduler settings are
 * never touched.
 */
#include "baremetal.h"

#include <stdbool.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STDERR_TAIL 8192
#define CGROUP_FILE_MAX 65536

extern char **environ;

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The job travels in a memfd passed as fd 3: nothing is left in /tmp when
 * the harness is killed, and the agent opens it as /dev/fd/3. */
static int job_memfd(const char *json)
{
	size_t len = strlen(json), off = 0;
	ssize_t n;
	int fd;

	fd = memfd_create("vtbench-job", MFD_CLOEXEC);
	if (fd < 0)
		return vtb_error("memfd_create: %s", strerror(errno));
	while (off < len) {
		n = write(fd, json + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			vtb_error("cannot write the job: %s", strerror(errno));
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	return fd;
}

static void tail_add(struct vtb_strbuf *tail, const char *buf, size_t n)
{
	if (n >= STDERR_TAIL) {
		buf += n - STDERR_TAIL;
		n = STDERR_TAIL;
	}
	if (tail->len + n > STDERR_TAIL) {
		size_t drop = tail->len + n - STDERR_TAIL;

		memmove(tail->buf, tail->buf + drop, tail->len - drop);
		tail->len -= drop;
		tail->buf[tail->len] = '\0';
	}
	vtb_strbuf_add(tail, buf, n);
}

/* ---------------------------------------------------------------- partitions */

char *vtb_cgroup2_mount(const char *mountinfo)
{
	const char *line = mountinfo;
	char *first = NULL;

	/* "36 25 0:30 / /sys/fs/cgroup rw,... shared:9 - cgroup2 cgroup2 rw" */
	while (line && *line) {
		const char *end = strchr(line, '\n'), *dash;
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char *l = strndup(line, n), *save = NULL, *tok, *mnt = NULL;
		int field = 0;

		if (!l)
			break;
		dash = strstr(l, " - ");
		if (dash && !strncmp(dash + 3, "cgroup2 ", 8)) {
			for (tok = strtok_r(l, " ", &save); tok && field < 4;
			     tok = strtok_r(NULL, " ", &save))
				field++;
			mnt = tok;
		}
		if (mnt && !strcmp(mnt, "/sys/fs/cgroup")) {
			free(first);
			first = strdup(mnt);
			free(l);
			return first;
		}
		if (mnt && !first)
			first = strdup(mnt);
		free(l);
		line = end ? end + 1 : NULL;
	}
	return first;
}

/* Whether @word is a space-separated word of @list. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
		p += n;
	}
	return false;
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

char *vtb_partition_unavailable(const char *root)
{
	char *path = vtb_asprintf("%s/cgroup.controllers", root), *text, *why;

	if (!path)
		return NULL;
	text = vtb_read_file(path, CGROUP_FILE_MAX);
	if (!text) {
		why = vtb_asprintf("cannot read %s: %s", path, vtb_errmsg());
	} else {
		trim(text);
		why = has_word(text, "cpuset")
			      ? NULL
			      : vtb_asprintf(
					"cpuset controller not in cgroup2 (%s: %s; cgroup v1 may hold it)",
					path, *text ? text : "empty");
	}
	free(text);
	free(path);
	return why;
}

static int write_text(const char *path, const char *text, char **why)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		*why = vtb_asprintf("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, text, strlen(text));
	if (n < 0 || (size_t)n != strlen(text)) {
		*why = vtb_asprintf("cannot write '%s' to %s: %s", text, path,
				    n < 0 ? strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

struct partition {
	char *dir;    /* NULL: none made */
	int procs_fd; /* its cgroup.procs, for the child to join */
};

static void partition_remove(struct partition *pt)
{
	int i;

	if (pt->procs_fd >= 0)
		close(pt->procs_fd);
	pt->procs_fd = -1;
	if (!pt->dir)
		return;
	/* processes the agent left may take a moment to be released */
	for (i = 0; i < 50 && rmdir(pt->dir) < 0 && errno == EBUSY; i++)
		usleep(10000);
	free(pt->dir);
	pt->dir = NULL;
}

/*
 * Makes the partition for @req: 0 with @pt ready, or 1 with *why set
 * (unavailable or refused: the caller falls back to affinity); nothing
 * is left behind on 1.
 */
static int partition_make(const struct vtb_baremetal_req *req, struct partition *pt, char **why)
{
	char *root = NULL, *mi = NULL, *path = NULL, *cpus = NULL, *got = NULL;
	int ret = 1;

	pt->dir = NULL;
	pt->procs_fd = -1;
	*why = NULL;
	if (req->cgroup_root) {
		root = strdup(req->cgroup_root);
	} else {
		mi = vtb_read_file("/proc/self/mountinfo", 1u << 20);
		root = mi ? vtb_cgroup2_mount(mi) : NULL;
		if (!root) {
			*why = strdup("no cgroup2 hierarchy mounted");
			goto out;
		}
	}
	if (!root || (*why = vtb_partition_unavailable(root)))
		goto out;
	pt->dir = vtb_asprintf("%s/vtbench-%s", root, req->uuid ? req->uuid : "baseline");
	cpus = vtb_cpuset_format(req->cpus);
	path = vtb_asprintf("%s/cgroup.subtree_control", root);
	if (!pt->dir || !cpus || !path)
		goto out;
	if (write_text(path, "+cpuset", why) < 0)
		goto fail_nodir;
	if (mkdir(pt->dir, 0755) < 0) {
		*why = vtb_asprintf("cannot create %s: %s", pt->dir, strerror(errno));
		goto fail_nodir;
	}
#define SUB(name) (free(path), path = vtb_asprintf("%s/" name, pt->dir))
	if (!SUB("cpuset.cpus") || write_text(path, cpus, why) < 0)
		goto fail;
	if (req->mems && *req->mems &&
	    (!SUB("cpuset.mems") || write_text(path, req->mems, why) < 0))
		goto fail;
	if (!SUB("cpuset.cpus.partition") || write_text(path, "root", why) < 0)
		goto fail;
	got = vtb_read_file(path, CGROUP_FILE_MAX);
	if (got)
		trim(got);
	if (!got || strcmp(got, "root")) {
		*why = vtb_asprintf("partition refused: %s reads '%s'", path, got ? got : "?");
		goto fail;
	}
	if (!SUB("cgroup.procs"))
		goto fail;
#undef SUB
	pt->procs_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (pt->procs_fd < 0) {
		*why = vtb_asprintf("cannot open %s: %s", path, strerror(errno));
		goto fail;
	}
	ret = 0;
	goto out;
fail:
	partition_remove(pt);
fail_nodir:
	free(pt->dir);
	pt->dir = NULL;
out:
	if (ret && !*why)
		*why = strdup("out of memory");
	free(root);
	free(mi);
	free(path);
	free(cpus);
	free(got);
	return ret;
}

/* Sets the calling thread's affinity to @cpus, saving the old mask. */
static int confine_self(const struct vtb_cpuset *cpus, cpu_set_t *saved)
{
	cpu_set_t set;
	size_t i;

	if (sched_getaffinity(0, sizeof(*saved), saved) < 0)
		return vtb_error("sched_getaffinity: %s", strerror(errno));
	CPU_ZERO(&set);
	for (i = 0; i < cpus->n; i++) {
		if (cpus->cpus[i] < 0 || cpus->cpus[i] >= CPU_SETSIZE)
			return vtb_error("CPU %d is beyond what affinity masks hold",
					 cpus->cpus[i]);
		CPU_SET(cpus->cpus[i], &set);
	}
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return vtb_error("cannot confine to CPUs: sched_setaffinity: %s", strerror(errno));
	return 0;
}

#define VTB_MPOL_BIND 2 /* <linux/mempolicy.h> */
#define VTB_MAX_NODES 1024
#define NODE_WORDS (VTB_MAX_NODES / (8 * sizeof(unsigned long)))

struct mempol {
	int mode;
	unsigned long mask[NODE_WORDS];
	bool set; /* ours is in force: restore @mode/@mask */
};

/* Binds the calling thread's memory to @mems, saving the old policy.
 * -1 with vtb_error() on a bad list; 0 with !saved->set when the kernel
 * refuses (the agent then runs unbound). */
static int membind_self(const char *mems, struct mempol *saved)
{
	unsigned long mask[NODE_WORDS] = { 0 };
	struct vtb_cpuset nodes = { NULL, 0 };
	size_t i;

	saved->set = false;
	if (!mems || !*mems)
		return 0;
	if (vtb_cpuset_parse(mems, &nodes) < 0)
		return -1;
	for (i = 0; i < nodes.n; i++) {
		if (nodes.cpus[i] < 0 || nodes.cpus[i] >= VTB_MAX_NODES) {
			vtb_cpuset_release(&nodes);
			return vtb_error("memory node %d is beyond what node masks hold",
					 nodes.cpus[i]);
		}
		mask[nodes.cpus[i] / (8 * sizeof(long))] |= 1UL
							    << (nodes.cpus[i] % (8 * sizeof(long)));
	}
	vtb_cpuset_release(&nodes);
	if (syscall(SYS_get_mempolicy, &saved->mode, saved->mask, VTB_MAX_NODES + 1, NULL, 0) < 0)
		return 0;
	if (syscall(SYS_set_mempolicy, VTB_MPOL_BIND, mask, VTB_MAX_NODES + 1) < 0)
		return 0;
	saved->set = true;
	return 0;
}

static void membind_restore(const struct mempol *saved)
{
	if (saved->set)
		syscall(SYS_set_mempolicy, saved->mode, saved->mask, VTB_MAX_NODES + 1);
}

/*
 * The agent into partition @procs_fd: fork, and the child joins the
 * partition (writing "0" to cgroup.procs moves the writer) before it
 * does anything else, then sets up what posix_spawn would and execs.
 * Only async-signal-safe calls in the child.
 */
static int fork_into(const struct vtb_baremetal_req *req, int procs_fd, int jobfd, int outfd,
		     int errfd, char *const argv[], pid_t *pid)
{
	pid_t p = fork();

	if (p < 0)
		return vtb_error("cannot start agent '%s': fork: %s", req->agent, strerror(errno));
	if (p == 0) {
		struct sigaction dfl;
		sigset_t empty;
		int devnull;

		setpgid(0, 0);
		if (write(procs_fd, "0", 1) != 1)
			_exit(126);
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGPIPE, &dfl, NULL);
		sigemptyset(&empty);
		sigprocmask(SIG_SETMASK, &empty, NULL);
		devnull = open("/dev/null", O_RDONLY);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(outfd, 1) < 0 || dup2(errfd, 2) < 0)
			_exit(126);
		if (jobfd == 3 ? fcntl(3, F_SETFD, 0) < 0 : dup2(jobfd, 3) < 0)
			_exit(126);
		execve(req->agent, argv, environ);
		_exit(127);
	}
	setpgid(p, p); /* as the child does: no window for kill(-pid) */
	*pid = p;
	return 0;
}

static int spawn_agent(const struct vtb_baremetal_req *req, int jobfd, int outfd[2], int errfd[2],
		       pid_t *pid, bool *membind, int procs_fd)
{
	struct mempol pol = { 0 };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t empty, dfl;
	cpu_set_t saved;
	char *argv[] = { (char *)req->agent, (char *)"--job", (char *)"/dev/fd/3",
			 (char *)"--records", NULL };
	int ret, err;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, outfd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errfd[1], 2);
	posix_spawn_file_actions_adddup2(&fa, jobfd, 3);
	sigemptyset(&empty);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigmask(&attr, &empty);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
						POSIX_SPAWN_SETPGROUP);
	ret = confine_self(req->cpus, &saved);
	if (ret)
		goto out;
	ret = membind_self(req->mems, &pol);
	if (ret) {
		sched_setaffinity(0, sizeof(saved), &saved);
		goto out;
	}
	*membind = pol.set;
	if (procs_fd >= 0)
		err = fork_into(req, procs_fd, jobfd, outfd[1], errfd[1], argv, pid) < 0 ? -1 : 0;
	else
		err = posix_spawn(pid, req->agent, &fa, &attr, argv, environ);
	membind_restore(&pol);
	if (err < 0) {
		sched_setaffinity(0, sizeof(saved), &saved);
		ret = -1;
	} else if (err) {
		sched_setaffinity(0, sizeof(saved), &saved);
		ret = vtb_error("cannot start agent '%s': %s", req->agent, strerror(err));
	} else if (sched_setaffinity(0, sizeof(saved), &saved) < 0) {
		/* the harness would stay confined: give up on this agent */
		ret = vtb_error("cannot restore the harness's affinity: %s", strerror(errno));
		kill(-*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
out:
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return ret;
}

/* Has the agent exited?  Looks without reaping it (WNOWAIT), so its
 * process group stays ours until the final kill. */
static bool agent_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

#define POLL_NS 100000000ull  /* how often a running agent's exit is checked */
#define DRAIN_NS 500000000ull /* output still read after the agent exited */

/* How a watched agent's boot ended */
enum agent_end { AGENT_EXITED, AGENT_TIMEOUT, AGENT_STOPPED };

/* What the ready pipes hold: records to the parser, stderr to the tail;
 * a pipe at EOF is closed (its fd set to -1). */
static void read_pipes(const struct pollfd pfd[2], int *fds[2], struct vtb_rec_parser *parser,
		       struct vtb_strbuf *tail)
{
	char buf[65536];

	for (int i = 0; i < 2; i++) {
		ssize_t got;

		if (pfd[i].fd < 0 || !pfd[i].revents)
			continue;
		got = read(pfd[i].fd, buf, sizeof(buf));
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0) {
			close(pfd[i].fd);
			*fds[i] = -1;
			continue;
		}
		if (i == 0)
			vtb_rec_parser_feed(parser, buf, (size_t)got);
		else
			tail_add(tail, buf, (size_t)got);
	}
}

/*
 * Reads both pipes until the agent has exited and its output is
 * drained.  A process the workload left behind may keep the pipes open:
 * the agent's exit, not EOF, ends the boot (after DRAIN_NS); @deadline
 * (monotonic) times it out.  Returns how it ended, or -1 (the agent's
 * group killed).
 */
static int watch_agent(const struct vtb_baremetal_req *req, pid_t pid, uint64_t deadline,
		       int *outfd, int *errfd, struct vtb_rec_parser *parser,
		       struct vtb_strbuf *tail)
{
	uint64_t exited_at = 0, last_tick = vtb_now_ns();
	int *fds[2] = { outfd, errfd };
	bool exited = false;

	for (;;) {
		struct pollfd pfd[2] = { { *outfd, POLLIN, 0 }, { *errfd, POLLIN, 0 } };
		uint64_t now = vtb_now_ns(), wait_ns;
		struct timespec ts;
		int n;

		if (req->tick && now - last_tick >= 1000000000u) {
			req->tick(req->tick_arg);
			last_tick = now;
		}
		if (req->stop && *req->stop)
			return AGENT_STOPPED;
		if (!exited && agent_exited(pid)) {
			exited = true;
			exited_at = now;
		}
		if (exited && ((*outfd < 0 && *errfd < 0) || now - exited_at >= DRAIN_NS))
			return AGENT_EXITED;
		if (!exited && now >= deadline)
			return AGENT_TIMEOUT;
		wait_ns = exited ? DRAIN_NS - (now - exited_at) : deadline - now;
		if (wait_ns > POLL_NS)
			wait_ns = POLL_NS;
		ts.tv_sec = (time_t)(wait_ns / 1000000000u);
		ts.tv_nsec = (long)(wait_ns % 1000000000u);
		/* with both pipes closed this only waits for signals */
		n = ppoll(pfd, 2, &ts, req->waitmask);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			vtb_error("ppoll: %s", strerror(errno));
			kill(-pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -1;
		}
		read_pipes(pfd, fds, parser, tail);
	}
}

/* The boot's status from how it ended and the agent's exit status */
static void agent_outcome(const struct vtb_baremetal_req *req, enum agent_end end, int wstatus,
			  struct vtb_boot_outcome *out)
{
	if (end == AGENT_STOPPED) {
		out->status = "interrupted";
		out->error = strdup("interrupted by signal");
	} else if (end == AGENT_TIMEOUT) {
		char *t = vtb_format_time_ns(req->timeout_ns);

		out->status = "timeout";
		out->error = vtb_asprintf("timed out after %s", t ? t : "?");
		free(t);
	} else {
		out->status = vtb_boot_judge(wstatus, vtb_rec_parser_result(out->parser),
					     &out->error);
	}
}

int vtb_baremetal_boot(const struct vtb_baremetal_req *req, struct vtb_boot_outcome *out)
{
	struct vtb_strbuf tail = VTB_STRBUF_INIT;
	int outfd[2] = { -1, -1 }, errfd[2] = { -1, -1 }, jobfd = -1;
	struct partition pt = { NULL, -1 };
	bool no_partition;
	char *why = NULL;
	pid_t pid = -1;
	uint64_t deadline;
	int wstatus = 0, ret = -1, end;

	memset(out, 0, sizeof(*out));
	out->parser = vtb_rec_parser_new(req->nonce, &vtb_rec_default_limits);
	if (!out->parser)
		return vtb_error("out of memory");
	vtb_strbuf_addstr(&tail, "");
	jobfd = job_memfd(req->job_json);
	if (jobfd < 0)
		goto out;
	if (pipe2(outfd, O_CLOEXEC) < 0 || pipe2(errfd, O_CLOEXEC) < 0) {
		vtb_error("pipe: %s", strerror(errno));
		goto out;
	}
	out->started_ns = realtime_ns();
	deadline = vtb_now_ns() + req->timeout_ns;
	/* the agent's output is parsed within the boot's time too */
	vtb_rec_parser_set_deadline(out->parser, deadline);
	if (req->partition && partition_make(req, &pt, &why) != 0) {
		out->warning = vtb_asprintf(
			"confinement = partition: no partition (%s), the baseline is confined by affinity",
			why ? why : "?");
	}
	if (spawn_agent(req, jobfd, outfd, errfd, &pid, &out->membind, pt.procs_fd))
		goto out;
	no_partition = req->partition && !pt.dir;
	out->confinement = vtb_asprintf("%s%s%s%s%s", pt.dir ? "partition" : "affinity",
					out->membind ? "+membind" : "",
					no_partition ? " (partition unavailable: " : "",
					no_partition ? (why ? why : "?") : "",
					no_partition ? ")" : "");
	close(outfd[1]);
	close(errfd[1]);
	outfd[1] = errfd[1] = -1;
	end = watch_agent(req, pid, deadline, &outfd[0], &errfd[0], out->parser, &tail);
	if (end < 0)
		goto out;
	/* The group is still ours (the agent is not reaped yet): end whatever
	 * is left of it, then reap.  An agent that exited keeps its status. */
	kill(-pid, SIGKILL);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	vtb_rec_parser_finish(out->parser);
	out->ended_ns = realtime_ns();
	agent_outcome(req, (enum agent_end)end, wstatus, out);
	ret = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (outfd[i] >= 0)
			close(outfd[i]);
		if (errfd[i] >= 0)
			close(errfd[i]);
	}
	if (jobfd >= 0)
		close(jobfd);
	partition_remove(&pt);
	free(why);
	out->stderr_tail = vtb_strbuf_detach(&tail);
	return ret;
}
