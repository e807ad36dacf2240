/* SPDX-License-Identifier: MIT */
/*
 * messaging: the hackbench model (rt-tests hackbench, after Rusty Russell
 * and Ingo Molnar's original), so figures can be held against `hackbench`
 * run with the same parameters.  `groups` groups, each of `fds` receivers
 * and `fds` senders; every receiver owns one AF_UNIX SOCK_STREAM socket
 * pair (a pipe with `pipe`); every sender of a group writes `loops`
 * messages of `datasize` bytes to every receiver of its group, which
 * reads fds x loops messages.  Tasks are processes (fork, the default) or
 * POSIX threads with minimal stacks (`threads`).  They are created in
 * hackbench's order (per group: receivers, then senders), each reports
 * ready and waits for the start as hackbench's ready() does (a byte on a
 * ready pair, then poll() on a shared wake pair), and the time runs from
 * the release of that barrier to the reaping of the last task.
 *
 * Beyond hackbench, and never inside the timed region: resource limits
 * (open files, tasks, memory) are checked before anything starts; the
 * soft RLIMIT_NOFILE is raised up to the hard limit when the run needs
 * it (and restored); process children die with the agent
 * (PR_SET_PDEATHSIG) and close the pipe ends they do not use, so one dead
 * task makes the others see EOF or EPIPE instead of hanging; on any
 * failure every child is killed and reaped by pid (the agent may be PID 1
 * and adopt processes that are not its own), every thread joined.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/sysfs.h"
#include "workload.h"

#define BUF_STRIDE 128	      /* per-task buffers never share a cache line pair */
#define PROC_COST (128 << 10) /* estimated memory of one child process */
#define READY_POLL_MS 100     /* how often the ready wait checks for dead tasks */
#define FILES_RESERVE 16      /* open files assumed when /proc/self/fd is missing */

struct msg_params {
	long long groups;
	long long fds;
	long long loops;
	uint64_t datasize;
	bool pipe;
	bool threads;
	bool fifo;
	long long fail_after; /* hidden test hook; 0 = off */
	bool fail_mid_run;    /* hidden test hook */
	/* resolved by prepare */
	bool prepared;
	uint64_t tasks;
	uint64_t nofile; /* open files the busiest process needs */
};

static const struct vtb_opt msg_opts[] = {
	{ .name = "groups",
	  .type = VTB_OPT_INT,
	  .def = "10",
	  .min = 1,
	  .max = 100000,
	  .help = "groups of senders and receivers (hackbench -g; its default)",
	  .shortopt = 'g',
	  .off = offsetof(struct msg_params, groups) },
	{ .name = "fds",
	  .type = VTB_OPT_INT,
	  .def = "20",
	  .min = 1,
	  .max = 10000,
	  .help = "senders per group, and as many receivers (hackbench -f)",
	  .shortopt = 'f',
	  .off = offsetof(struct msg_params, fds) },
	{ .name = "loops",
	  .type = VTB_OPT_INT,
	  .def = "100",
	  .min = 1,
	  .max = 1000000000,
	  .help = "messages each sender writes to each receiver of its group (hackbench -l)",
	  .shortopt = 'l',
	  .off = offsetof(struct msg_params, loops) },
	{ .name = "datasize",
	  .type = VTB_OPT_SIZE,
	  .def = "100",
	  .min = 1,
	  .max = 64LL << 20,
	  .help = "bytes per message (hackbench -s)",
	  .shortopt = 's',
	  .off = offsetof(struct msg_params, datasize) },
	{ .name = "pipe",
	  .type = VTB_OPT_BOOL,
	  .def = "no",
	  .help = "pipes instead of AF_UNIX stream socket pairs (hackbench -p)",
	  .shortopt = 'p',
	  .off = offsetof(struct msg_params, pipe) },
	{ .name = "threads",
	  .type = VTB_OPT_BOOL,
	  .def = "no",
	  .help = "POSIX threads instead of processes; no = fork (hackbench -T / -P)",
	  .shortopt = 'T',
	  .off = offsetof(struct msg_params, threads) },
	{ .name = "fifo",
	  .type = VTB_OPT_BOOL,
	  .def = "no",
	  .help = "the main thread runs SCHED_FIFO 1 while it manages the tasks (hackbench -F)",
	  .shortopt = 'F',
	  .off = offsetof(struct msg_params, fifo) },
	/* Test hook, no default so it stays out of cell parameters: the
	 * start fails after N tasks, as a failed fork would, so tests can
	 * prove that nothing outlives a failed run. */
	{ .name = "fail_after",
	  .type = VTB_OPT_INT,
	  .flags = VTB_OPT_HIDDEN,
	  .min = 0,
	  .max = 1000000000,
	  .help = "test hook: fail the start after N tasks",
	  .off = offsetof(struct msg_params, fail_after) },
	/* Test hook, no default either: a task fails after the start, so
	 * tests can prove that the others end (no hang) with its error. */
	{ .name = "fail_mid_run",
	  .type = VTB_OPT_BOOL,
	  .flags = VTB_OPT_HIDDEN,
	  .help = "test hook: receiver 0 of group 0 fails right after the start",
	  .off = offsetof(struct msg_params, fail_mid_run) },
	{ .name = NULL },
};

/* ------------------------------------------------------------ limits */

/* First unsigned number of a /proc or /sys file; -1 when unreadable. */
static int read_u64(const char *path, uint64_t *out)
{
	char *text = vtb_read_file(path, 4096);
	unsigned long long v;
	int ret = -1;

	if (text && sscanf(text, "%llu", &v) == 1) {
		*out = v;
		ret = 0;
	}
	free(text);
	return ret;
}

/* Tasks on the whole system: the total of /proc/loadavg's "1/234". */
static int system_tasks(uint64_t *out)
{
	char *text = vtb_read_file("/proc/loadavg", 4096);
	unsigned long long run, total;
	int ret = -1;

	if (text && sscanf(text, "%*s %*s %*s %llu/%llu", &run, &total) == 2) {
		*out = total;
		ret = 0;
	}
	free(text);
	return ret;
}

/*
 * The pids controller's directory of this process, from /proc/self/cgroup:
 * cgroup v2 ("0::/path") or v1 ("N:pids:/path", possibly among other
 * controllers).  NULL when there is none (no /proc, no controller).
 */
static char *pids_cgroup_dir(void)
{
	char *text = vtb_read_file("/proc/self/cgroup", 1 << 16);
	char *line, *save = NULL, *dir = NULL, *v2 = NULL;

	if (!text)
		return NULL;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *ctl, *tok, *tsave = NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		ctl = c1 + 1;
		if (!*ctl && !v2) {
			v2 = vtb_asprintf("/sys/fs/cgroup%s", strcmp(c2 + 1, "/") ? c2 + 1 : "");
			continue;
		}
		for (tok = strtok_r(ctl, ",", &tsave); tok; tok = strtok_r(NULL, ",", &tsave))
			if (!strcmp(tok, "pids") && !dir)
				dir = vtb_asprintf("/sys/fs/cgroup/pids%s",
						   strcmp(c2 + 1, "/") ? c2 + 1 : "");
	}
	free(text);
	if (dir) {
		free(v2);
		return dir;
	}
	return v2;
}

/*
 * -1 with vtb_error() when @tasks more tasks would exceed the pids limit
 * of this cgroup or of one of its ancestors.  Missing files mean no limit.
 */
static int check_pids_cgroup(uint64_t tasks)
{
	char *dir = pids_cgroup_dir(), *slash;
	int ret = 0;

	while (dir && ret == 0) {
		char *maxp = vtb_asprintf("%s/pids.max", dir);
		char *curp = vtb_asprintf("%s/pids.current", dir);
		uint64_t max, cur;

		if (!maxp || !curp) {
			ret = vtb_error("out of memory");
		} else if (read_u64(maxp, &max) == 0 && read_u64(curp, &cur) == 0 &&
			   cur + tasks > max) {
			ret = vtb_error(
				"%" PRIu64
				" tasks (groups x fds x 2) would exceed the pids limit of cgroup '%s' (%" PRIu64
				" tasks, %" PRIu64 " in use): use fewer groups or fds",
				tasks, dir, max, cur);
		}
		free(maxp);
		free(curp);
		slash = strrchr(dir, '/');
		if (!slash || !strcmp(dir, "/sys/fs/cgroup") || !strcmp(dir, "/sys/fs/cgroup/pids"))
			break;
		*slash = '\0';
	}
	free(dir);
	return ret;
}

/* Every task must be creatable before the first one starts. */
static int check_tasks(uint64_t tasks)
{
	uint64_t total = 0, lim;
	struct rlimit rl;

	if (system_tasks(&total))
		total = 0;
	if (read_u64("/proc/sys/kernel/threads-max", &lim) == 0 && total + tasks >= lim)
		return vtb_error("%" PRIu64 " tasks (groups x fds x 2) with %" PRIu64
				 " running would exceed kernel.threads-max (%" PRIu64
				 "): use fewer groups or fds",
				 tasks, total, lim);
	if (read_u64("/proc/sys/kernel/pid_max", &lim) == 0 && total + tasks >= lim)
		return vtb_error("%" PRIu64 " tasks (groups x fds x 2) with %" PRIu64
				 " running would exceed kernel.pid_max (%" PRIu64
				 "): use fewer groups or fds",
				 tasks, total, lim);
	/* root is exempt from RLIMIT_NPROC (the kernel's rule) */
	if (geteuid() != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    tasks + 1 > rl.rlim_cur)
		return vtb_error(
			"%" PRIu64
			" tasks (groups x fds x 2) exceed RLIMIT_NPROC (%llu): raise it (ulimit -u) or use fewer groups or fds",
			tasks, (unsigned long long)rl.rlim_cur);
	return check_pids_cgroup(tasks);
}

/* Open files of this process; FILES_RESERVE when /proc is missing. */
static uint64_t open_files(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	uint64_t n = 0;

	if (!d)
		return FILES_RESERVE;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n ? n - 1 : 0; /* the directory's own fd */
}

/*
 * Open files: with threads one process holds every pair (2 per receiver)
 * plus the ready and wake pairs; with processes the busiest one (the
 * parent while it builds a group, or a sender) holds one group's write
 * ends, one pair and the ready and wake pairs.  The hard RLIMIT_NOFILE
 * and the system's fs.file-max bound it; the soft limit is raised by run.
 */
static int check_files(struct msg_params *p)
{
	uint64_t pairs = (uint64_t)p->groups * (uint64_t)p->fds;
	uint64_t base = open_files() + 5, need, max; /* ready, wake, /dev/null */
	unsigned long long alloc, unused, fmax;
	struct rlimit rl;
	char *text;

	need = base + (p->threads ? 2 * pairs : (uint64_t)p->fds + 2);
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return vtb_error("cannot read RLIMIT_NOFILE: %s", strerror(errno));
	max = rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : rl.rlim_max;
	if (need > max)
		return vtb_error("%s mode needs %" PRIu64
				 " open files in one process but RLIMIT_NOFILE allows %" PRIu64
				 " (hard limit): raise it (ulimit -Hn) or use fewer %s",
				 p->threads ? "thread" : "process", need, max,
				 p->threads ? "groups or fds, or processes" : "fds");
	p->nofile = need;
	text = vtb_read_file("/proc/sys/fs/file-nr", 4096);
	if (text && sscanf(text, "%llu %llu %llu", &alloc, &unused, &fmax) == 3 &&
	    alloc + 2 * pairs + 5 > fmax) {
		free(text);
		return vtb_error(
			"%" PRIu64
			" open files with %llu in use would exceed fs.file-max (%llu): use fewer groups or fds",
			2 * pairs + 5, alloc, fmax);
	}
	free(text);
	return 0;
}

static uint64_t stride_of(uint64_t datasize)
{
	return (datasize + BUF_STRIDE - 1) / BUF_STRIDE * BUF_STRIDE;
}

static size_t thread_stack(void)
{
	size_t s = PTHREAD_STACK_MIN; /* hackbench's stacks */

#ifdef __SANITIZE_ADDRESS__
	if (s < (256u << 10))
		s = 256u << 10; /* ASan's redzones and reports need room */
#endif
	return s;
}

/* The memory_need hook, an estimate: each task's buffer, plus a thread
 * stack or a process.  Does not depend on the CPUs (hackbench's
 * defaults do not). */
static int msg_need(const void *params, size_t ncpus, uint64_t *out)
{
	const struct msg_params *p = params;
	uint64_t per = stride_of(p->datasize) +
		       (p->threads ? thread_stack() + (16 << 10) : PROC_COST);

	(void)ncpus;
	*out = per * 2 * (uint64_t)p->groups * (uint64_t)p->fds;
	return 0;
}

static int check_memory(const struct msg_params *p)
{
	uint64_t avail = 0, need = 0;
	char *a = NULL, *b = NULL;
	int ret = 0;

	msg_need(p, 0, &need);
	if (vtb_meminfo(NULL, NULL, &avail))
		return -1;
	if (!vtb_mem_fits(need, avail)) {
		a = vtb_format_size(need);
		b = vtb_format_size(avail);
		ret = vtb_error(
			"%" PRIu64 " tasks with %" PRIu64
			" byte messages need about %s, more than 80%% of the available memory (%s)",
			p->tasks, p->datasize, a ? a : "?", b ? b : "?");
	}
	free(a);
	free(b);
	return ret;
}

static int msg_prepare(void *params, struct vtb_workload_ctx *ctx)
{
	struct msg_params *p = params;

	p->prepared = false;
	if (ctx->cpus.n == 0)
		return vtb_error("no cpus to run on");
	p->tasks = 2 * (uint64_t)p->groups * (uint64_t)p->fds;
	if (check_tasks(p->tasks) || check_files(p) || check_memory(p))
		return -1;
	p->prepared = true;
	return 0;
}

/* ------------------------------------------------------------- tasks */

/* Why a task stopped; a child process's exit status. */
enum msg_fail {
	T_OK = 0,
	T_SETUP,   /* the parent vanished before the child ran */
	T_READY,   /* the ready/wake barrier failed */
	T_WRITE,   /* a sender's write failed */
	T_READ,	   /* a receiver's read failed */
	T_EOF,	   /* a receiver saw EOF: a sender died */
	T_ABORTED, /* told to stop because the run failed elsewhere */
	T_HOOK,	   /* the fail_mid_run test hook */
};

static const char *fail_str(int f)
{
	switch (f) {
	case T_SETUP:
		return "lost its parent before it started";
	case T_READY:
		return "the ready/start barrier failed";
	case T_WRITE:
		return "write to a receiver failed";
	case T_READ:
		return "read failed";
	case T_EOF:
		return "end of file before every message arrived (a sender died)";
	case T_ABORTED:
		return "stopped";
	case T_HOOK:
		return "failed on purpose (test hook fail_mid_run)";
	}
	return "exited with an unknown status";
}

struct msg_run;

struct msg_task {
	struct msg_run *run;
	size_t group, index; /* index within the group's senders/receivers */
	bool sender;
	char *buf;
	int in_fd;	    /* receiver: its read end */
	const int *out_fds; /* sender: the group's write ends */
	pid_t pid;
	pthread_t tid;
	atomic_bool ended; /* thread returned */
	int fail;	   /* enum msg_fail (threads) */
	int err;	   /* errno of the failure (threads) */
};

struct msg_run {
	const struct msg_params *p;
	size_t fds, datasize;
	uint64_t loops;
	int ready[2], wake[2];
	int *in_fds, *out_fds; /* groups x fds, -1 once closed */
	size_t npairs;
	struct msg_task *tasks;
	size_t ntasks, started;
	char *bufs;
	size_t bufs_len;
	pid_t parent;
	int devnull; /* threads over pipes: dup2'ed over the ends on abort */
	atomic_int abort;
};

/* hackbench's ready(): say so, then block until the start byte. */
static int task_ready(struct msg_task *t)
{
	const struct msg_run *r = t->run;
	struct pollfd pfd = { .fd = r->wake[0], .events = POLLIN };
	char c = '*';
	ssize_t n;
	int m;

	do
		n = write(r->ready[1], &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1) {
		t->err = n < 0 ? errno : 0;
		return T_READY;
	}
	do
		m = poll(&pfd, 1, -1);
	while (m < 0 && errno == EINTR);
	if (m != 1) {
		t->err = m < 0 ? errno : 0;
		return T_READY;
	}
	return T_OK;
}

static int sender(struct msg_task *t)
{
	const struct msg_run *r = t->run;
	const size_t size = r->datasize;
	uint64_t l;
	size_t j;

	memset(t->buf, '-', size);
	if (task_ready(t))
		return T_READY;
	if (atomic_load(&t->run->abort))
		return T_ABORTED;
	/*
	 * Measured (from the barrier's release, by the parent): hackbench's
	 * sender loop, loops rounds of one whole message to every receiver
	 * of the group, each a blocking write() repeated until the message
	 * is out.  Nothing else happens here: the buffer was touched before
	 * the barrier, errors leave the loop, and a relaxed load per round
	 * (a failed run, threads only) is nothing beside fds write()s.
	 */
	for (l = 0; l < r->loops; l++) {
		if (atomic_load_explicit(&t->run->abort, memory_order_relaxed))
			return T_ABORTED; /* our ends may be /dev/null now */
		for (j = 0; j < r->fds; j++) {
			size_t done = 0;

			while (done < size) {
				ssize_t n = write(t->out_fds[j], t->buf + done, size - done);

				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0) {
					t->err = errno;
					return T_WRITE;
				}
				done += (size_t)n;
			}
		}
	}
	return T_OK;
}

static int receiver(struct msg_task *t)
{
	const struct msg_run *r = t->run;
	const size_t size = r->datasize;
	const uint64_t packets = r->loops * r->fds;
	uint64_t i;

	/* Fault the buffer in now, as hackbench's stack buffer is. */
	memset(t->buf, 0, size);
	if (task_ready(t))
		return T_READY;
	if (atomic_load(&t->run->abort))
		return T_ABORTED;
	if (r->p->fail_mid_run && t->group == 0 && t->index == 0)
		return T_HOOK;
	/*
	 * Measured: hackbench's receiver loop, fds x loops messages, each
	 * read() repeated until the whole message is in (a stream may split
	 * it).  The task's exit after the last message is part of the time,
	 * as the parent stops the clock when it has reaped every task.
	 */
	for (i = 0; i < packets; i++) {
		size_t done = 0;

		while (done < size) {
			ssize_t n = read(t->in_fd, t->buf + done, size - done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				t->err = errno;
				return T_READ;
			}
			if (n == 0)
				return T_EOF;
			done += (size_t)n;
		}
	}
	return T_OK;
}

/*
 * Thread mode: a failed task stops the others.  Shutting the data
 * sockets down turns every blocked read into EOF and every write into
 * EPIPE (SIGPIPE is blocked in thread mode), so all threads return.
 * Pipes have no shutdown: /dev/null is dup2'ed over both ends of each,
 * which closes the pipe ends (a blocked read sees EOF once no write end
 * is left, a blocked write EPIPE once no read end is) while the numbers
 * stay taken, so no file opened meanwhile can land under a running
 * thread's fd.  Senders then stop at their next round (abort flag).
 * Before the start, the abort flag alone is enough.
 */
static void abort_threads(struct msg_run *r)
{
	size_t i;

	atomic_store(&r->abort, 1);
	if (r->p->pipe) {
		for (i = 0; i < r->npairs; i++) {
			if (r->in_fds[i] >= 0)
				dup2(r->devnull, r->in_fds[i]);
			if (r->out_fds[i] >= 0)
				dup2(r->devnull, r->out_fds[i]);
		}
		return;
	}
	for (i = 0; i < r->npairs; i++) {
		if (r->in_fds[i] >= 0)
			shutdown(r->in_fds[i], SHUT_RDWR);
		if (r->out_fds[i] >= 0)
			shutdown(r->out_fds[i], SHUT_RDWR);
	}
}

static int task_body(struct msg_task *t)
{
	return t->sender ? sender(t) : receiver(t);
}

static void *task_thread(void *arg)
{
	struct msg_task *t = arg;

	t->fail = task_body(t);
	if (t->fail != T_OK && t->fail != T_ABORTED)
		abort_threads(t->run);
	atomic_store(&t->ended, true);
	return NULL;
}

/*
 * A forked task.  It dies with the agent, closes the ends it does not
 * use (so a dead peer means EOF/EPIPE, never a hang: hackbench's
 * receivers keep the write ends they inherited) and reports through its
 * exit status.  _exit(): the parent's stdio buffers are not ours.
 */
__attribute__((noreturn)) static void task_child(struct msg_task *t)
{
	struct msg_run *r = t->run;
	size_t k;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != r->parent)
		_exit(T_SETUP);
	close(r->ready[0]);
	close(r->wake[1]);
	if (!t->sender)
		for (k = 0; k <= t->index; k++)
			close(r->out_fds[t->group * r->fds + k]);
	_exit(task_body(t));
}

static const char *role(const struct msg_task *t)
{
	return t->sender ? "sender" : "receiver";
}

/* Explains how task @t failed (process: @status from waitpid). */
static int task_error(const struct msg_task *t, bool process, int status)
{
	if (!process)
		return vtb_error("%s %zu of group %zu failed: %s%s%s", role(t), t->index, t->group,
				 fail_str(t->fail), t->err ? ": " : "",
				 t->err ? strerror(t->err) : "");
	if (WIFSIGNALED(status))
		return vtb_error("%s %zu of group %zu (pid %d) was killed by signal %d (%s)",
				 role(t), t->index, t->group, (int)t->pid, WTERMSIG(status),
				 strsignal(WTERMSIG(status)));
	return vtb_error("%s %zu of group %zu (pid %d) failed: %s", role(t), t->index, t->group,
			 (int)t->pid, fail_str(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

static int start_task(struct msg_run *r, struct msg_task *t)
{
	pthread_attr_t attr;
	int err;

	if (r->p->fail_after && r->started == (size_t)r->p->fail_after)
		return vtb_error("test hook: start failed after %zu tasks", r->started);
	if (!r->p->threads) {
		t->pid = fork();
		if (t->pid < 0)
			return vtb_error("cannot fork task %zu of %zu: %s", r->started + 1,
					 r->ntasks, strerror(errno));
		if (t->pid == 0)
			task_child(t);
		r->started++;
		return 0;
	}
	err = pthread_attr_init(&attr);
	if (!err)
		err = pthread_attr_setstacksize(&attr, thread_stack());
	if (!err)
		err = pthread_create(&t->tid, &attr, task_thread, t);
	pthread_attr_destroy(&attr);
	if (err)
		return vtb_error("cannot start thread %zu of %zu: %s", r->started + 1, r->ntasks,
				 strerror(err));
	r->started++;
	return 0;
}

/* Socket pair (hackbench's default) or pipe: [0] reads, [1] writes. */
static int fdpair(const struct msg_run *r, int fds[2])
{
	int ret = r->p->pipe ? pipe(fds) : socketpair(AF_UNIX, SOCK_STREAM, 0, fds);

	if (ret)
		return vtb_error("cannot create a %s: %s", r->p->pipe ? "pipe" : "socket pair",
				 strerror(errno));
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* hackbench's group(): receivers with their pairs first, then senders. */
static int start_group(struct msg_run *r, size_t g)
{
	size_t i, f = r->fds;
	struct msg_task *tg = &r->tasks[g * 2 * f];
	int *in = &r->in_fds[g * f], *out = &r->out_fds[g * f];

	for (i = 0; i < f; i++) {
		int pair[2];

		if (fdpair(r, pair))
			return -1;
		in[i] = pair[0];
		out[i] = pair[1];
		tg[i].in_fd = in[i];
		if (start_task(r, &tg[i]))
			return -1;
		if (!r->p->threads)
			close_fd(&in[i]);
	}
	for (i = 0; i < f; i++) {
		tg[f + i].out_fds = out;
		if (start_task(r, &tg[f + i]))
			return -1;
	}
	if (!r->p->threads)
		for (i = 0; i < f; i++)
			close_fd(&out[i]);
	return 0;
}

/* True when a task has ended (it cannot have become ready then). */
static bool task_ended(const struct msg_run *r, const struct msg_task *t)
{
	siginfo_t si;

	if (r->p->threads)
		return atomic_load(&t->ended);
	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)t->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid;
}

/* hackbench's "wait for everyone to be ready": one byte per task. */
static int wait_ready(struct msg_run *r)
{
	struct pollfd pfd = { .fd = r->ready[0], .events = POLLIN };
	size_t got = 0, i;
	char buf[256];

	while (got < r->ntasks) {
		size_t want = r->ntasks - got < sizeof(buf) ? r->ntasks - got : sizeof(buf);
		ssize_t n;
		int m = poll(&pfd, 1, READY_POLL_MS);

		if (m < 0 && errno == EINTR)
			continue;
		if (m < 0)
			return vtb_error("cannot wait for the tasks to be ready: %s",
					 strerror(errno));
		if (m == 0) {
			for (i = 0; i < r->started; i++)
				if (task_ended(r, &r->tasks[i]))
					return vtb_error(
						"%s %zu of group %zu ended before the start",
						role(&r->tasks[i]), r->tasks[i].index,
						r->tasks[i].group);
			continue;
		}
		n = read(r->ready[0], buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return vtb_error("cannot read the ready bytes: %s",
					 n ? strerror(errno) : "end of file");
		got += (size_t)n;
	}
	return 0;
}

static int write_wake(struct msg_run *r)
{
	char c = '*';
	ssize_t n;

	do
		n = write(r->wake[1], &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : vtb_error("cannot release the tasks: %s", strerror(errno));
}

/* Failure before the start: kill and reap every child, or stop and join
 * every thread.  Nothing outlives the run.  Keeps the error message. */
static void stop_all(struct msg_run *r)
{
	char c = '!';
	size_t i;
	int st;

	if (r->p->threads) {
		abort_threads(r);
		while (write(r->wake[1], &c, 1) < 0 && errno == EINTR)
			;
		for (i = 0; i < r->started; i++)
			pthread_join(r->tasks[i].tid, NULL);
	} else {
		for (i = 0; i < r->started; i++)
			kill(r->tasks[i].pid, SIGKILL);
		for (i = 0; i < r->started; i++)
			while (waitpid(r->tasks[i].pid, &st, 0) < 0 && errno == EINTR)
				;
	}
	r->started = 0;
}

/*
 * How likely task @t's failure is the cause rather than a consequence:
 * EOF and EPIPE (a write to a dead receiver, SIGPIPE) follow another
 * task's death; a signal or any other error is where it started.
 */
static int failure_rank(const struct msg_task *t, bool process, int st)
{
	if (process) {
		if (WIFSIGNALED(st))
			return WTERMSIG(st) == SIGPIPE ? 0 : 2;
		if (!WIFEXITED(st))
			return 2;
		return WEXITSTATUS(st) == T_EOF || WEXITSTATUS(st) == T_WRITE ? 0 : 1;
	}
	return t->fail == T_EOF || (t->fail == T_WRITE && t->err == EPIPE) ? 0 : 1;
}

/*
 * Reaps every task in creation order: waitpid() on each pid (never
 * wait(): as PID 1 the agent may have adopted other processes) or
 * pthread_join().  -1 with vtb_error() naming the failed task most
 * likely to be the cause, and how many failed.
 */
static int reap_all(struct msg_run *r)
{
	bool process = !r->p->threads;
	size_t i, failed = 0;
	int ret = 0, st = 0, best = -1;

	for (i = 0; i < r->started; i++) {
		struct msg_task *t = &r->tasks[i];
		bool bad;

		if (!process) {
			pthread_join(t->tid, NULL);
			bad = t->fail != T_OK && t->fail != T_ABORTED;
		} else {
			pid_t w;

			while ((w = waitpid(t->pid, &st, 0)) < 0 && errno == EINTR)
				;
			bad = w < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
		}
		if (bad) {
			int rank = failure_rank(t, process, st);

			failed++;
			if (rank > best) {
				best = rank;
				ret = task_error(t, process, st);
			}
		}
	}
	r->started = 0;
	if (failed > 1) {
		char *first = vtb_strdup(vtb_errmsg());

		vtb_error("%zu of %zu tasks failed; the likely cause: %s", failed, r->ntasks,
			  first ? first : "?");
		free(first);
	}
	return ret;
}

static void print_header(const struct msg_params *p)
{
	printf("messaging: hackbench model, %s mode, %s, %lld groups using %lld file descriptors each (== %" PRIu64
	       " tasks)\n",
	       p->threads ? "threaded" : "process", p->pipe ? "pipes" : "AF_UNIX socket pairs",
	       p->groups, 2 * p->fds, p->tasks);
	printf("Each sender will pass %lld messages of %" PRIu64 " bytes\n", p->loops, p->datasize);
	fflush(stdout);
}

static int report(struct vtb_workload_ctx *ctx, const struct msg_params *p, double secs,
		  bool nofile_raised)
{
	uint64_t msgs = (uint64_t)p->groups * (uint64_t)p->fds * (uint64_t)p->fds *
			(uint64_t)p->loops;

	if (vtb_report_sample(ctx, "seconds", "s", secs, VTB_BETTER_LOWER) ||
	    vtb_report_info(ctx, "groups", json_integer(p->groups)) ||
	    vtb_report_info(ctx, "fds", json_integer(p->fds)) ||
	    vtb_report_info(ctx, "loops", json_integer(p->loops)) ||
	    vtb_report_info(ctx, "datasize", json_integer((json_int_t)p->datasize)) ||
	    vtb_report_info(ctx, "tasks", json_integer((json_int_t)p->tasks)) ||
	    vtb_report_info(ctx, "messages", json_integer((json_int_t)msgs)) ||
	    vtb_report_info(ctx, "mode", json_string(p->threads ? "thread" : "process")) ||
	    vtb_report_info(ctx, "transport", json_string(p->pipe ? "pipe" : "socket")) ||
	    vtb_report_info(ctx, "fifo", json_boolean(p->fifo)) ||
	    vtb_report_info(ctx, "open_files_needed", json_integer((json_int_t)p->nofile)) ||
	    vtb_report_info(ctx, "nofile_raised", json_boolean(nofile_raised)))
		return -1;
	return 0;
}

/* The run's descriptor arrays, its tasks and their buffers. */
static int run_alloc(struct msg_run *r, const struct msg_params *p)
{
	size_t f = (size_t)p->fds;
	uint64_t stride;

	r->fds = f;
	r->loops = (uint64_t)p->loops;
	r->datasize = (size_t)p->datasize;
	r->ntasks = (size_t)p->tasks;
	r->npairs = (size_t)p->groups * f;
	r->parent = getpid();
	r->in_fds = malloc(r->npairs * sizeof(int));
	r->out_fds = malloc(r->npairs * sizeof(int));
	r->tasks = calloc(r->ntasks, sizeof(*r->tasks));
	if (!r->in_fds || !r->out_fds || !r->tasks)
		return vtb_error("out of memory");
	for (size_t i = 0; i < r->npairs; i++)
		r->in_fds[i] = r->out_fds[i] = -1;
	/* Per-task buffers, untouched until their task runs (mapped lazily,
	 * so process children only copy their own pages). */
	stride = stride_of(p->datasize);
	r->bufs_len = (size_t)(stride * r->ntasks);
	r->bufs = mmap(NULL, r->bufs_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	if (r->bufs == MAP_FAILED) {
		r->bufs = NULL;
		return vtb_error("cannot map %zu bytes of message buffers: %s", r->bufs_len,
				 strerror(errno));
	}
	for (size_t g = 0; g < (size_t)p->groups; g++) {
		for (size_t i = 0; i < 2 * f; i++) {
			struct msg_task *t = &r->tasks[g * 2 * f + i];

			t->run = r;
			t->group = g;
			t->sender = i >= f;
			t->index = t->sender ? i - f : i;
			t->in_fd = -1;
			t->buf = r->bufs + (g * 2 * f + i) * stride;
			atomic_init(&t->ended, false);
		}
	}
	return 0;
}

/* The ready and wake pairs, and /dev/null for threads over pipes. */
static int run_open(struct msg_run *r, const struct msg_params *p)
{
	if (fdpair(r, r->ready) || fdpair(r, r->wake))
		return -1;
	if (p->threads && p->pipe) {
		r->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (r->devnull < 0)
			return vtb_error("cannot open '/dev/null': %s", strerror(errno));
	}
	return 0;
}

static void run_release(struct msg_run *r)
{
	if (r->in_fds)
		for (size_t i = 0; i < r->npairs; i++) {
			close_fd(&r->in_fds[i]);
			close_fd(&r->out_fds[i]);
		}
	close_fd(&r->ready[0]);
	close_fd(&r->ready[1]);
	close_fd(&r->wake[0]);
	close_fd(&r->wake[1]);
	close_fd(&r->devnull);
	if (r->bufs)
		munmap(r->bufs, r->bufs_len);
	free(r->in_fds);
	free(r->out_fds);
	free(r->tasks);
}

/* What a run changes in the agent's process, put back after it. */
struct msg_env {
	struct rlimit old_nofile;
	struct sigaction old_chld;
	sigset_t old_mask;
	bool nofile_set, chld_set, mask_set;
};

/* Enough open files for every pair; SIGCHLD at its default for process
 * tasks, SIGPIPE blocked for threads. */
static int env_set(const struct msg_params *p, struct msg_env *env)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct rlimit rl;
	sigset_t pipeset;
	int err;

	if (getrlimit(RLIMIT_NOFILE, &env->old_nofile))
		return vtb_error("cannot read RLIMIT_NOFILE: %s", strerror(errno));
	rl = env->old_nofile;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < p->nofile) {
		rl.rlim_cur = p->nofile;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return vtb_error("cannot raise RLIMIT_NOFILE to %" PRIu64 ": %s", p->nofile,
					 strerror(errno));
		env->nofile_set = true;
	}
	if (!p->threads) {
		/* An inherited SIG_IGN would reap the children behind waitpid()'s back. */
		sigemptyset(&dfl.sa_mask);
		if (sigaction(SIGCHLD, &dfl, &env->old_chld))
			return vtb_error("cannot reset SIGCHLD: %s", strerror(errno));
		env->chld_set = true;
	} else {
		/* A write to a shut-down socket must fail, not kill the agent. */
		sigemptyset(&pipeset);
		sigaddset(&pipeset, SIGPIPE);
		err = pthread_sigmask(SIG_BLOCK, &pipeset, &env->old_mask);
		if (err)
			return vtb_error("cannot block SIGPIPE: %s", strerror(err));
		env->mask_set = true;
	}
	return 0;
}

static void env_restore(const struct msg_env *env)
{
	if (env->chld_set)
		sigaction(SIGCHLD, &env->old_chld, NULL);
	if (env->mask_set)
		pthread_sigmask(SIG_SETMASK, &env->old_mask, NULL);
	if (env->nofile_set)
		setrlimit(RLIMIT_NOFILE, &env->old_nofile);
}

/* Starts every group and times them (*secs). */
static int msg_measure(struct msg_run *r, const struct msg_params *p, double *secs)
{
	struct sched_param old_sp = { 0 }, sp = { .sched_priority = 1 };
	int old_policy = -1, ret = -1;
	uint64_t t0;

	for (size_t g = 0; g < (size_t)p->groups; g++)
		if (start_group(r, g))
			goto fail;
	if (p->fifo) {
		/* hackbench -F: the main thread outranks the tasks it manages */
		old_policy = sched_getscheduler(0);
		if (old_policy < 0 || sched_getparam(0, &old_sp) ||
		    sched_setscheduler(0, SCHED_FIFO, &sp)) {
			old_policy = -1;
			vtb_error("cannot switch the main thread to SCHED_FIFO: %s",
				  strerror(errno));
			goto fail;
		}
	}
	if (wait_ready(r))
		goto fail;
	/*
	 * What is timed, as hackbench does: every task exists and sits in
	 * poll() on the wake pair; the clock starts, one byte on the wake
	 * pair releases them all at once, and the clock stops when the last
	 * task has been reaped.  So the interval holds the wake-ups, every
	 * message through the kernel, the scheduling of all tasks, their
	 * exits and their reaping, and nothing of their creation.
	 */
	t0 = vtb_now_ns();
	if (write_wake(r))
		goto fail;
	ret = reap_all(r);
	*secs = (double)(vtb_now_ns() - t0) * 1e-9;
	goto out;
fail:
	stop_all(r);
	ret = -1;
out:
	if (old_policy >= 0 && sched_setscheduler(0, old_policy, &old_sp) && ret == 0)
		ret = vtb_error("cannot restore the main thread's scheduling policy: %s",
				strerror(errno));
	return ret;
}

static int msg_run(void *params, struct vtb_workload_ctx *ctx)
{
	struct msg_params *p = params;
	struct msg_run r = { .p = p, .ready = { -1, -1 }, .wake = { -1, -1 }, .devnull = -1 };
	struct msg_env env = { 0 };
	double secs = 0;
	int ret = -1;

	if (!p->prepared && msg_prepare(p, ctx))
		return -1;
	p->prepared = false; /* limits are checked again on the next run */
	if (run_alloc(&r, p) || env_set(p, &env) || run_open(&r, p))
		goto out;
	if (!ctx->rec)
		print_header(p);
	else
		fflush(stdout);
	ret = msg_measure(&r, p, &secs);
out:
	run_release(&r);
	env_restore(&env);
	if (ret == 0) {
		if (!ctx->rec)
			printf("Time: %.3f\n", secs);
		ret = report(ctx, p, secs, env.nofile_set);
	}
	return ret;
}

static const char *const messaging_models[] = { "hackbench", NULL };

const struct vtb_workload_ops vtb_workload_messaging = {
	.name = "messaging",
	.models = messaging_models,
	.summary = "groups of senders spraying messages at receivers over socket pairs or pipes, "
		   "processes or threads (reference: rt-tests hackbench)",
	.opts = msg_opts,
	.params_size = sizeof(struct msg_params),
	.prepare = msg_prepare,
	.memory_need = msg_need,
	.memory_keys = "groups, fds or datasize",
	.run = msg_run,
};
