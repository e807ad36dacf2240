/* SPDX-License-Identifier: MIT */
/*
 * wakeup: scheduler wake-up latency by the schbench model (Chris Mason's
 * scheduler benchmark), so figures can be read next to schbench's.
 *
 * -m message threads each own -t workers.  A worker puts itself on its
 * message thread's lock-free list (CAS), posts the message thread's futex
 * and waits on its own.  The message thread splices the whole list (one
 * atomic exchange), takes ONE timestamp for the batch, writes it into
 * every listed worker's wake time and then wakes them one by one, so a
 * waker preempted half-way through its batch (by the worker it just woke,
 * say) shows up as latency of the rest of the batch.  A woken worker
 * records now - that stamp, then serves a request: a sleep (-s) and -n
 * naive matrix multiplies over a -F KiB footprint under a per-CPU lock,
 * and records the request's latency.  The matrices are as schbench's:
 * two never written (the zero page), the third written by each
 * multiply.  With -R the message threads instead hand out R requests per
 * second (schbench's requests-per-second mode).
 *
 * Futexes follow schbench: BLOCKED/RUNNING states, a post is a cmpxchg
 * BLOCKED -> RUNNING then FUTEX_WAKE_PRIVATE, a wait a cmpxchg RUNNING ->
 * BLOCKED else FUTEX_WAIT_PRIVATE.  Differences from schbench, all about
 * recording, none about the model: CLOCK_MONOTONIC in nanoseconds rather
 * than gettimeofday() in whole microseconds (so sub-microsecond samples
 * are kept, not dropped), histograms in a fixed window [warm-up, runtime)
 * decided by each sample's own end time rather than a reset by another
 * thread, requests-per-second as requests completed in that window, and a
 * per-worker request counter in -R mode instead of malloc'ed requests,
 * and the warm-up applied in -R mode too (schbench ignores -w there).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../common/hist.h"
#include "../common/sysfs.h"
#include "workload.h"

#define FUTEX_BLOCKED 0
#define FUTEX_RUNNING 1
#define NSEC_PER_SEC UINT64_C(1000000000)
#define NSEC_PER_USEC 1000
#define MAX_THREADS 32768     /* message threads plus workers */
#define RPS_BACKLOG 128	      /* schbench: a worker with more pending is skipped */
#define RPS_BACKOFF_NS 100000 /* ...and the message thread sleeps 100us */
#define THREAD_STACK (256u << 10)
#define HIST_BITS VTB_HIST_BITS_DEFAULT
#define CACHELINE 64
/* Most multiply-adds per request (operations x n^3): about 10 s of naive
 * multiplies, far beyond any useful request; more only outlives runs. */
#define MAX_REQUEST_WORK 1e10

struct wakeup_params {
	long long message_threads; /* -m */
	long long threads;	   /* -t, workers per message thread; 0 = auto */
	uint64_t runtime;	   /* -r, ns, warm-up included */
	uint64_t warmup;	   /* -w, ns */
	uint64_t sleep;		   /* -s, ns */
	long long operations;	   /* -n */
	long long footprint;	   /* -F, KiB per worker */
	long long rps;		   /* -R, 0 = off */
	const char *message_cpus;  /* -M, NULL = not pinned */
	const char *worker_cpus;   /* -W, NULL = not pinned */
	uint64_t delay;		   /* hidden: spin between stamp and posting */
	/* resolved by prepare */
	bool prepared;
	size_t matrix_size; /* n of the three n x n matrices */
	size_t nlocks;	    /* per-CPU locks: highest allowed CPU + 1 */
};

static const struct vtb_opt wakeup_opts[] = {
	{ .name = "message_threads",
	  .type = VTB_OPT_INT,
	  .def = "1",
	  .min = 1,
	  .max = 4096,
	  .help = "message threads (wakers), each owning its workers",
	  .shortopt = 'm',
	  .off = offsetof(struct wakeup_params, message_threads) },
	{ .name = "threads",
	  .type = VTB_OPT_INT,
	  .flags = VTB_OPT_AUTO,
	  .def = "auto",
	  .min = 1,
	  .max = MAX_THREADS,
	  .help = "workers per message thread; auto = ceil(cpus / message_threads)",
	  .shortopt = 't',
	  .off = offsetof(struct wakeup_params, threads) },
	{ .name = "runtime",
	  .type = VTB_OPT_TIME,
	  .def = "30s",
	  .min = 10000000,
	  .max = 86400LL * 1000000000,
	  .help = "how long to run, warm-up included",
	  .shortopt = 'r',
	  .off = offsetof(struct wakeup_params, runtime) },
	{ .name = "warmup",
	  .type = VTB_OPT_TIME,
	  .def = "0s",
	  .min = 0,
	  .max = 86400LL * 1000000000,
	  .help = "first part of the runtime whose samples are discarded",
	  .shortopt = 'w',
	  .off = offsetof(struct wakeup_params, warmup) },
	{ .name = "sleep",
	  .type = VTB_OPT_TIME,
	  .def = "100us",
	  .min = 0,
	  .max = 1000000000,
	  .help = "think-time sleep per request (give a unit: 100us)",
	  .shortopt = 's',
	  .off = offsetof(struct wakeup_params, sleep) },
	{ .name = "operations",
	  .type = VTB_OPT_INT,
	  .def = "5",
	  .min = 0,
	  .max = 100000,
	  .help = "matrix multiplies per request",
	  .shortopt = 'n',
	  .off = offsetof(struct wakeup_params, operations) },
	{ .name = "footprint",
	  .type = VTB_OPT_INT,
	  .def = "256",
	  .min = 1,
	  .max = 1 << 20,
	  .help = "KiB of the three matrices per worker (cache footprint)",
	  .shortopt = 'F',
	  .off = offsetof(struct wakeup_params, footprint) },
	{ .name = "rps",
	  .type = VTB_OPT_INT,
	  .def = "0",
	  .min = 0,
	  .max = 100000000,
	  .help = "requests per second mode: message threads hand out this many in all (0 = off)",
	  .shortopt = 'R',
	  .off = offsetof(struct wakeup_params, rps) },
	{ .name = "message_cpus",
	  .type = VTB_OPT_CPULIST,
	  .help = "pin message thread i to the i-th cpu of this list (default: not pinned)",
	  .shortopt = 'M',
	  .off = offsetof(struct wakeup_params, message_cpus) },
	{ .name = "worker_cpus",
	  .type = VTB_OPT_CPULIST,
	  .help = "pin every worker to this set of cpus (default: not pinned)",
	  .shortopt = 'W',
	  .off = offsetof(struct wakeup_params, worker_cpus) },
	{ .name = "delay",
	  .type = VTB_OPT_TIME,
	  .flags = VTB_OPT_HIDDEN,
	  .min = 0,
	  .max = 1000000000,
	  .help = "debug: message threads spin this long between the batch stamp and the wakes",
	  .off = offsetof(struct wakeup_params, delay) },
	{ .name = NULL },
};

/* ------------------------------------------------------------------ */
/* Validation                                                          */

/* Parses a pinning list and checks it lies inside the allowed CPUs. */
static int parse_pin(const char *name, const char *text, const struct vtb_cpuset *allowed,
		     struct vtb_cpuset *out)
{
	char *al;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!text)
		return 0;
	if (vtb_cpuset_parse(text, out))
		return vtb_error("bad cpu list '%s' for '%s': %s", text, name, vtb_errmsg());
	if (out->n == 0)
		return vtb_error("'%s' is an empty cpu list", name);
	for (i = 0; i < out->n; i++) {
		if (vtb_cpuset_has(allowed, out->cpus[i]))
			continue;
		al = vtb_cpuset_format(allowed);
		vtb_error("'%s' names cpu %d, which is not among the allowed cpus %s", name,
			  out->cpus[i], al ? al : "?");
		free(al);
		vtb_cpuset_release(out);
		return -1;
	}
	return 0;
}

/* schbench: n = sqrt(footprint / 3 / sizeof(unsigned long)). */
static size_t matrix_size_for(long long footprint_kib)
{
	size_t n = (size_t)sqrt((double)footprint_kib * 1024.0 / 3.0 / sizeof(unsigned long));

	return n ? n : 1;
}

/* The memory_need hook: the matrices and the two histograms of every
 * worker (threads auto: ceil(cpus / message threads) per message
 * thread). */
static int wakeup_need(const void *params, size_t ncpus, uint64_t *out)
{
	const struct wakeup_params *p = params;
	long long m = p->message_threads > 0 ? p->message_threads : 1;
	long long t = p->threads ? p->threads : ((long long)ncpus + m - 1) / m;
	size_t n = matrix_size_for(p->footprint);

	if (t < 1)
		t = 1;
	*out = (uint64_t)(m * t) * (3 * n * n * sizeof(unsigned long) +
				    2 * vtb_hist_n_buckets(HIST_BITS) * sizeof(uint64_t));
	return 0;
}

/*
 * Resolves the worker count (schbench: ceil(cpus / message threads)),
 * the matrix size and the lock count, and rejects what cannot run:
 * no cpus, too many threads, a warm-up not shorter than the runtime,
 * fewer requests per second than message threads, pins outside the
 * allowed cpus, requests of more than MAX_REQUEST_WORK multiply-adds,
 * matrices that do not fit in memory.  Keeps nothing
 * allocated.
 */
static int wakeup_prepare(void *params, struct vtb_workload_ctx *ctx)
{
	struct wakeup_params *p = params;
	struct vtb_cpuset pin;
	uint64_t avail = 0, need;
	double work;
	char *need_s = NULL, *have_s = NULL;
	long long m = p->message_threads, t;
	int ret = -1;

	p->prepared = false;
	if (ctx->cpus.n == 0)
		return vtb_error("no cpus to run on");
	if (m < 1)
		return vtb_error("'message_threads' must be at least 1, got %lld", m);
	t = p->threads ? p->threads : ((long long)ctx->cpus.n + m - 1) / m;
	if (t < 1)
		return vtb_error("'threads' must be at least 1, got %lld", t);
	if (m * (t + 1) > MAX_THREADS)
		return vtb_error(
			"%lld message threads x (%lld workers + 1) = %lld threads, more than the limit of %d",
			m, t, m * (t + 1), MAX_THREADS);
	if (p->warmup >= p->runtime) {
		char *w = vtb_format_time_ns(p->warmup), *r = vtb_format_time_ns(p->runtime);

		vtb_error("'warmup' (%s) must be shorter than 'runtime' (%s)", w ? w : "?",
			  r ? r : "?");
		free(w);
		free(r);
		return -1;
	}
	if (p->rps && p->rps < m)
		return vtb_error(
			"'rps' of %lld is less than one request per second per message thread (%lld)",
			p->rps, m);
	if (parse_pin("message_cpus", p->message_cpus, &ctx->cpus, &pin))
		return -1;
	vtb_cpuset_release(&pin);
	if (parse_pin("worker_cpus", p->worker_cpus, &ctx->cpus, &pin))
		return -1;
	vtb_cpuset_release(&pin);
	p->threads = t;
	p->matrix_size = matrix_size_for(p->footprint);
	work = (double)p->operations * (double)p->matrix_size * (double)p->matrix_size *
	       (double)p->matrix_size;
	if (work > MAX_REQUEST_WORK)
		return vtb_error(
			"'operations' x 'footprint' is %.3g multiply-adds per request (%lld x %zux%zu matrices, %lld KiB), more than the limit of %.0e: lower either",
			work, p->operations, p->matrix_size, p->matrix_size, p->footprint,
			MAX_REQUEST_WORK);
	p->nlocks = (size_t)ctx->cpus.cpus[ctx->cpus.n - 1] + 1;
	wakeup_need(p, ctx->cpus.n, &need);
	if (vtb_meminfo(NULL, NULL, &avail))
		goto out;
	if (!vtb_mem_fits(need, avail)) {
		need_s = vtb_format_size(need);
		have_s = vtb_format_size(avail);
		vtb_error(
			"%lld workers x %lld KiB footprint = %s, more than 80%% of the available memory (%s)",
			m * t, p->footprint, need_s ? need_s : "?", have_s ? have_s : "?");
		goto out;
	}
	p->prepared = true;
	ret = 0;
out:
	free(need_s);
	free(have_s);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Threads                                                             */

struct per_cpu_lock {
	pthread_mutex_t lock;
} __attribute__((aligned(CACHELINE)));

struct wk_msg;
struct wakeup_shared;

struct wk_worker {
	/* The hot line, traded with the message thread (schbench keeps the
	 * futex and the wake time together). */
	int futex;
	uint64_t wake_ns;	/* batch stamp, written by the waker */
	struct wk_worker *next; /* link on the message thread's list */
	uint64_t requests;	/* -R: requests handed out, not yet taken */
	struct wk_msg *msg;
	struct wakeup_shared *sh;
	unsigned long *matrix;	 /* 3 x n x n, mmap'ed: m1, m2 never written */
	struct vtb_hist wakeup;	 /* ns, samples in the window */
	struct vtb_hist request; /* ns, samples in the window */
	uint64_t done;		 /* requests completed in the window */
	pthread_t tid;
} __attribute__((aligned(CACHELINE)));

struct wk_msg {
	int futex;
	struct wk_worker *head; /* lock-free list of workers to wake */
	struct wakeup_shared *sh;
	struct wk_worker *workers;
	size_t nworkers;
	long long rps; /* -R: this thread's share per second */
	uint64_t batches, delayed;
	pthread_t tid;
} __attribute__((aligned(CACHELINE)));

struct wakeup_shared {
	int stopping; /* also a futex word: -R message threads sleep on it */
	int error;    /* first unexpected futex errno */
	uint64_t win_lo, win_hi;
	uint64_t sleep_ns, delay_ns;
	long long operations;
	size_t msize;
	struct per_cpu_lock *locks;
	size_t nlocks;
	bool rps;
	/* Start gate: threads wait until all exist (go = 1) or the start
	 * failed (go = -1), so nobody measures a half-built run. */
	pthread_mutex_t gate;
	pthread_cond_t cond;
	int go;
};

static long sys_futex(int *uaddr, int op, int val, const struct timespec *ts, int val3)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, val3);
}

static void note_futex_error(struct wakeup_shared *sh, int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(&sh->error, &zero, err, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
}

/* Wakes a futex waiter, only if it really was blocked (schbench fpost). */
static void fpost(struct wakeup_shared *sh, int *futexp)
{
	int blocked = FUTEX_BLOCKED;

	if (__atomic_compare_exchange_n(futexp, &blocked, FUTEX_RUNNING, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST) &&
	    sys_futex(futexp, FUTEX_WAKE_PRIVATE, 1, NULL, 0) < 0)
		note_futex_error(sh, errno);
}

/* Waits until posted; the caller set *futexp to BLOCKED beforehand. */
static void fwait(struct wakeup_shared *sh, int *futexp)
{
	for (;;) {
		int running = FUTEX_RUNNING;

		if (__atomic_compare_exchange_n(futexp, &running, FUTEX_BLOCKED, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return;
		if (sys_futex(futexp, FUTEX_WAIT_PRIVATE, FUTEX_BLOCKED, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EINTR) {
			note_futex_error(sh, errno);
			return;
		}
	}
}

static bool stopping(const struct wakeup_shared *sh)
{
	return __atomic_load_n(&sh->stopping, __ATOMIC_SEQ_CST) != 0;
}

static void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / NSEC_PER_SEC),
			       .tv_nsec = (long)(ns % NSEC_PER_SEC) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* Worker: prepend itself with a CAS (schbench xlist_add). */
static void list_push(struct wk_msg *m, struct wk_worker *w)
{
	struct wk_worker *old = __atomic_load_n(&m->head, __ATOMIC_RELAXED);

	do {
		w->next = old;
	} while (!__atomic_compare_exchange_n(&m->head, &old, w, true, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
}

/*
 * Message thread: take the whole list with one exchange, stamp the time
 * ONCE, write the stamp into every listed worker, then wake them in turn
 * (schbench xlist_wake_all).  One stamp for the batch is the point: if
 * waking the first worker gets this thread preempted, the workers still
 * to be woken carry the delay in their latency.  The debug delay spins
 * between the stamp and the wakes, so it adds exactly to every sample of
 * the batch.
 */
static void wake_all(struct wk_msg *m)
{
	struct wakeup_shared *sh = m->sh;
	struct wk_worker *list = __atomic_exchange_n(&m->head, NULL, __ATOMIC_SEQ_CST), *next;
	uint64_t stamp;

	if (!list)
		return;
	stamp = vtb_now_ns();
	m->batches++;
	if (sh->delay_ns) {
		while (vtb_now_ns() - stamp < sh->delay_ns)
			cpu_relax();
		m->delayed++;
	}
	while (list) {
		next = list->next; /* before the post: the worker may requeue */
		list->next = NULL;
		__atomic_store_n(&list->wake_ns, stamp, __ATOMIC_RELAXED);
		fpost(sh, &list->futex);
		list = next;
	}
}

/* Normal mode: answer posts until stopped (schbench run_msg_thread). */
static void run_msg_thread(struct wk_msg *m)
{
	for (;;) {
		__atomic_store_n(&m->futex, FUTEX_BLOCKED, __ATOMIC_SEQ_CST);
		wake_all(m);
		if (stopping(m->sh)) {
			wake_all(m);
			break;
		}
		fwait(m->sh, &m->futex);
	}
}

/* Sleeps until @deadline (CLOCK_MONOTONIC ns) or until stopped. */
static void wait_until_or_stop(struct wakeup_shared *sh, uint64_t deadline)
{
	struct timespec ts = { .tv_sec = (time_t)(deadline / NSEC_PER_SEC),
			       .tv_nsec = (long)(deadline % NSEC_PER_SEC) };

	while (!stopping(sh) && vtb_now_ns() < deadline)
		if (sys_futex(&sh->stopping, FUTEX_WAIT_BITSET_PRIVATE, 0, &ts,
			      FUTEX_BITSET_MATCH_ANY) < 0 &&
		    errno != ETIMEDOUT && errno != EAGAIN && errno != EINTR) {
			note_futex_error(sh, errno);
			return;
		}
}

/*
 * -R mode (schbench run_rps_thread): at the start of every second hand
 * out this thread's share of requests round-robin to its workers, each
 * with the current time as its wake stamp and a post; a worker with more
 * than RPS_BACKLOG pending is skipped after a 100us pause.  Then sleep
 * out the second.
 */
static void run_rps_thread(struct wk_msg *m)
{
	struct wakeup_shared *sh = m->sh;
	size_t cur = 0;
	long long i;

	while (!stopping(sh)) {
		uint64_t start = vtb_now_ns();

		for (i = 0; i < m->rps && !stopping(sh); i++) {
			struct wk_worker *w = &m->workers[cur++ % m->nworkers];
			uint64_t now = vtb_now_ns();

			if (__atomic_load_n(&w->requests, __ATOMIC_SEQ_CST) > RPS_BACKLOG) {
				sleep_ns(RPS_BACKOFF_NS);
				continue;
			}
			__atomic_add_fetch(&w->requests, 1, __ATOMIC_SEQ_CST);
			__atomic_store_n(&w->wake_ns, now, __ATOMIC_RELAXED);
			fpost(sh, &w->futex);
		}
		m->batches++;
		wait_until_or_stop(sh, start + NSEC_PER_SEC);
	}
}

/* Waits at the start gate; false when the start failed. */
static bool gate(struct wakeup_shared *sh)
{
	int go;

	pthread_mutex_lock(&sh->gate);
	while (sh->go == 0)
		pthread_cond_wait(&sh->cond, &sh->gate);
	go = sh->go;
	pthread_mutex_unlock(&sh->gate);
	return go > 0;
}

static void *message_thread(void *arg)
{
	struct wk_msg *m = arg;
	size_t i;

	if (!gate(m->sh))
		return NULL;
	if (m->sh->rps)
		run_rps_thread(m);
	else
		run_msg_thread(m);
	/* Nobody may stay blocked on a post that will never come. */
	for (i = 0; i < m->nworkers; i++)
		fpost(m->sh, &m->workers[i].futex);
	return NULL;
}

static bool in_window(const struct wakeup_shared *sh, uint64_t t)
{
	return t >= sh->win_lo && t < sh->win_hi;
}

/*
 * Posts the message thread and waits to be woken (schbench msg_and_wait).
 * Returns the requests taken (-R mode; 0 otherwise or when woken).
 */
static uint64_t msg_and_wait(struct wk_worker *w)
{
	struct wakeup_shared *sh = w->sh;
	uint64_t now, wake, n;

	__atomic_store_n(&w->futex, FUTEX_BLOCKED, __ATOMIC_SEQ_CST);
	__atomic_store_n(&w->wake_ns, vtb_now_ns(), __ATOMIC_RELAXED);
	if (sh->rps) {
		n = __atomic_exchange_n(&w->requests, 0, __ATOMIC_SEQ_CST);
		if (n) {
			__atomic_store_n(&w->futex, FUTEX_RUNNING, __ATOMIC_SEQ_CST);
			return n;
		}
	} else {
		list_push(w->msg, w);
	}
	fpost(sh, &w->msg->futex);
	/*
	 * What is measured: the message thread overwrote wake_ns with its
	 * batch stamp before posting us, so now - wake_ns spans the rest of
	 * its batch (other wakes, a preemption of the waker) plus the time
	 * the scheduler took to run us after the post.  The clock is read
	 * right after the futex wait returns, nothing else in between.
	 * stopping is checked after our state is BLOCKED and queued: the
	 * message thread posts every worker after it sees stopping, so
	 * either we skip the wait or that post wakes us.
	 */
	if (!stopping(sh))
		fwait(sh, &w->futex);
	now = vtb_now_ns();
	wake = __atomic_load_n(&w->wake_ns, __ATOMIC_RELAXED);
	if (in_window(sh, now))
		vtb_hist_add(&w->wakeup, now > wake ? now - wake : 0);
	return 0;
}

/* naive n^3 multiply of two of the matrices into the third (schbench);
 * stops between rows once the run is stopping, so a request of big
 * matrices ends within a row (n^2 multiply-adds) of the runtime */
static void do_some_math(const struct wakeup_shared *sh, unsigned long *data)
{
	size_t n = sh->msize, i, j, k;
	unsigned long *m1 = data, *m2 = data + n * n, *m3 = data + 2 * n * n;

	for (i = 0; i < n && !stopping(sh); i++) {
		for (j = 0; j < n; j++) {
			m3[i * n + j] = 0;
			for (k = 0; k < n; k++)
				m3[i * n + j] += m1[i * n + k] * m2[k * n + j];
		}
	}
}

/* Takes the lock of the cpu we run on, spinning; retries if we migrated
 * while taking it (schbench lock_this_cpu). */
static pthread_mutex_t *lock_this_cpu(struct wakeup_shared *sh)
{
	for (;;) {
		int cpu = sched_getcpu(), cur;
		pthread_mutex_t *lock = &sh->locks[(size_t)(cpu < 0 ? 0 : cpu) % sh->nlocks].lock;

		while (pthread_mutex_trylock(lock) != 0)
			cpu_relax();
		cur = sched_getcpu();
		if (cur == cpu)
			return lock;
		pthread_mutex_unlock(lock);
	}
}

static void do_work(struct wk_worker *w)
{
	pthread_mutex_t *lock = lock_this_cpu(w->sh);
	long long i;

	for (i = 0; i < w->sh->operations && !stopping(w->sh); i++)
		do_some_math(w->sh, w->matrix);
	pthread_mutex_unlock(lock);
}

static void *worker_thread(void *arg)
{
	struct wk_worker *w = arg;
	struct wakeup_shared *sh = w->sh;
	size_t i, nn = 3 * sh->msize * sh->msize, n2 = 2 * sh->msize * sh->msize;
	long ps = sysconf(_SC_PAGESIZE);
	size_t page = (ps > 0 ? (size_t)ps : 4096) / sizeof(*w->matrix);

	/*
	 * The matrices as schbench leaves them: it mallocs them (a fresh
	 * anonymous mapping at its sizes) and never writes m1 or m2, so
	 * they read as zeros from the kernel's one shared zero page, and
	 * only m3, written by each multiply, is memory of its own.  Part of
	 * a request's cost is that: on AMD Zen, reading one physical page
	 * through many virtual addresses is slower than reading distinct
	 * pages (about 1.5x the CPU per request at -F 256 on an EPYC).
	 * The worker touches them first, m3 by writing and m1, m2 by
	 * reading (mapping the zero page), and its histograms, so no page
	 * fault lands in a measured sample.
	 */
	for (i = 0; i < n2; i += page)
		(void)*(volatile unsigned long *)&w->matrix[i];
	memset(w->matrix + n2, 0, (nn - n2) * sizeof(*w->matrix));
	memset(w->wakeup.buckets, 0, w->wakeup.n_buckets * sizeof(*w->wakeup.buckets));
	memset(w->request.buckets, 0, w->request.n_buckets * sizeof(*w->request.buckets));
	if (!gate(sh))
		return NULL;
	while (!stopping(sh)) {
		uint64_t n = msg_and_wait(w), k;

		if (sh->rps && n == 0)
			continue;
		if (!sh->rps)
			n = 1;
		for (k = 0; k < n && !(k && stopping(sh)); k++) {
			uint64_t start = vtb_now_ns(), end;

			/*
			 * What is measured: one request as schbench serves
			 * it, the think-time sleep (a fresh timeslice) and
			 * the matrix work under the per-CPU lock, from
			 * before the sleep to after the unlock.
			 */
			if (sh->sleep_ns)
				sleep_ns(sh->sleep_ns);
			do_work(w);
			end = vtb_now_ns();
			if (in_window(sh, end)) {
				vtb_hist_add(&w->request, end - start);
				w->done++;
			}
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Run and report                                                      */

struct wk_run {
	struct wakeup_shared sh;
	struct wk_msg *msgs;
	struct wk_worker *workers;
	size_t nmsg, nworkers;
	struct vtb_cpuset mpin, wpin;
};

static void *alloc_lines(size_t n, size_t size)
{
	size_t bytes = (n * size + CACHELINE - 1) / CACHELINE * CACHELINE;
	void *p = aligned_alloc(CACHELINE, bytes ? bytes : CACHELINE);

	if (p)
		memset(p, 0, bytes ? bytes : CACHELINE);
	return p;
}

/* Starts a thread with a small stack, pinned to @pin when it is not empty. */
static int start_thread(pthread_t *tid, void *(*fn)(void *), void *arg, const int *cpus,
			size_t ncpus)
{
	pthread_attr_t attr;
	cpu_set_t *set = NULL;
	size_t setsz = 0, i;
	int err, maxcpu = 0;

	err = pthread_attr_init(&attr);
	if (err)
		return vtb_error("cannot start a thread: %s", strerror(err));
	err = pthread_attr_setstacksize(&attr, THREAD_STACK);
	if (!err && ncpus) {
		for (i = 0; i < ncpus; i++)
			if (cpus[i] > maxcpu)
				maxcpu = cpus[i];
		set = CPU_ALLOC((size_t)maxcpu + 1);
		if (!set) {
			pthread_attr_destroy(&attr);
			return vtb_error("out of memory");
		}
		setsz = CPU_ALLOC_SIZE((size_t)maxcpu + 1);
		CPU_ZERO_S(setsz, set);
		for (i = 0; i < ncpus; i++)
			CPU_SET_S((size_t)cpus[i], setsz, set);
		err = pthread_attr_setaffinity_np(&attr, setsz, set);
	}
	if (!err)
		err = pthread_create(tid, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	CPU_FREE(set);
	if (err)
		return vtb_error("cannot start a thread: %s", strerror(err));
	return 0;
}

static void print_header(const struct wakeup_params *p, const struct wk_run *r)
{
	char *rt = vtb_format_time_ns(p->runtime), *wu = vtb_format_time_ns(p->warmup);

	printf("wakeup: schbench model, %lld message thread%s x %lld worker%s", p->message_threads,
	       p->message_threads == 1 ? "" : "s", p->threads, p->threads == 1 ? "" : "s");
	if (p->rps)
		printf(", %lld requests/s", p->rps);
	printf("\nrequest: sleep %.1fus + %lld multiplies of %zux%zu matrices (%zu bytes)\n",
	       (double)p->sleep / NSEC_PER_USEC, p->operations, r->sh.msize, r->sh.msize,
	       3 * r->sh.msize * r->sh.msize * sizeof(unsigned long));
	printf("runtime %s, warm-up %s discarded%s\n", rt ? rt : "?", wu ? wu : "?",
	       p->delay ? " [debug delay on]" : "");
	fflush(stdout);
	free(rt);
	free(wu);
}

static int report_latency(struct vtb_workload_ctx *ctx, const char *what, const struct vtb_hist *h)
{
	static const struct {
		const char *suffix;
		double pct;
	} pcts[] = { { "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p999", 99.9 } };
	char name[64];
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(pcts); i++) {
		snprintf(name, sizeof(name), "%s_%s", what, pcts[i].suffix);
		if (vtb_report_sample(ctx, name, "us",
				      (double)vtb_hist_percentile(h, pcts[i].pct) / NSEC_PER_USEC,
				      VTB_BETTER_LOWER))
			return -1;
	}
	snprintf(name, sizeof(name), "%s_max", what);
	if (vtb_report_sample(ctx, name, "us", (double)h->max / NSEC_PER_USEC, VTB_BETTER_LOWER))
		return -1;
	return vtb_report_hist(ctx, what, h);
}

/* Samples under 1 us (exact: a bucket boundary falls on 1000 ns with
 * the default bits; a bucket straddling it would not be counted).
 * schbench records whole microseconds and drops 0 us samples. */
static uint64_t count_under_us(const struct vtb_hist *h)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < h->n_buckets; i++)
		if (vtb_hist_bucket_lo(h->bits, i) + vtb_hist_bucket_width(h->bits, i) <=
		    NSEC_PER_USEC)
			n += h->buckets[i];
	return n;
}

static int report(const struct wakeup_params *p, struct wk_run *r, struct vtb_workload_ctx *ctx)
{
	struct vtb_hist hw = { 0 }, hr = { 0 };
	uint64_t done = 0, batches = 0, delayed = 0;
	double window = (double)(p->runtime - p->warmup) * 1e-9;
	size_t i;
	int ret = -1;

	if (vtb_hist_init(&hw, HIST_BITS, "ns") || vtb_hist_init(&hr, HIST_BITS, "ns"))
		goto out;
	for (i = 0; i < r->nworkers; i++) {
		if (vtb_hist_merge(&hw, &r->workers[i].wakeup) ||
		    vtb_hist_merge(&hr, &r->workers[i].request))
			goto out;
		done += r->workers[i].done;
	}
	for (i = 0; i < r->nmsg; i++) {
		batches += r->msgs[i].batches;
		delayed += r->msgs[i].delayed;
	}
	if (hr.count == 0) {
		vtb_error("no request completed in the measured window (runtime too short?)");
		goto out;
	}
	/* Only -R can get here without a wake-up: workers that never ran out
	 * of requests never waited.  Their requests still count; no wake-up
	 * figures are invented. */
	if (hw.count == 0 &&
	    vtb_report_info(
		    ctx, "wakeup_note",
		    json_string(
			    "no wake-up in the window: the workers never ran out of requests (saturated), so no wakeup metrics")))
		goto out;
	if ((hw.count && report_latency(ctx, "wakeup", &hw)) ||
	    report_latency(ctx, "request", &hr) ||
	    vtb_report_sample(ctx, "rps", "rps", (double)done / window, VTB_BETTER_HIGHER))
		goto out;
	if (vtb_report_info(ctx, "model", json_string("schbench")) ||
	    vtb_report_info(ctx, "message_threads", json_integer(p->message_threads)) ||
	    vtb_report_info(ctx, "workers_per_message_thread", json_integer(p->threads)) ||
	    vtb_report_info(ctx, "matrix_size", json_integer((json_int_t)r->sh.msize)) ||
	    vtb_report_info(ctx, "footprint_bytes",
			    json_integer((json_int_t)(3 * r->sh.msize * r->sh.msize *
						      sizeof(unsigned long)))) ||
	    vtb_report_info(ctx, "window_seconds", json_real(window)) ||
	    vtb_report_info(ctx, "wakeup_samples", json_integer((json_int_t)hw.count)) ||
	    vtb_report_info(ctx, "wakeup_samples_under_1us",
			    json_integer((json_int_t)count_under_us(&hw))) ||
	    vtb_report_info(ctx, "requests", json_integer((json_int_t)done)) ||
	    vtb_report_info(ctx, "batches", json_integer((json_int_t)batches)) ||
	    vtb_report_info(ctx, "rps_target", json_integer(p->rps)) ||
	    vtb_report_info(ctx, "message_cpus",
			    json_string(p->message_cpus ? p->message_cpus : "not pinned")) ||
	    vtb_report_info(ctx, "worker_cpus",
			    json_string(p->worker_cpus ? p->worker_cpus : "not pinned")))
		goto out;
	if (p->delay &&
	    (vtb_report_info(ctx, "delay_ns", json_integer((json_int_t)p->delay)) ||
	     vtb_report_info(ctx, "delayed_batches", json_integer((json_int_t)delayed))))
		goto out;
	ret = 0;
out:
	vtb_hist_release(&hw);
	vtb_hist_release(&hr);
	return ret;
}

static void run_release(struct wk_run *r)
{
	size_t i;

	for (i = 0; r->workers && i < r->nworkers; i++) {
		if (r->workers[i].matrix)
			munmap(r->workers[i].matrix,
			       3 * r->sh.msize * r->sh.msize * sizeof(*r->workers[i].matrix));
		vtb_hist_release(&r->workers[i].wakeup);
		vtb_hist_release(&r->workers[i].request);
	}
	for (i = 0; r->sh.locks && i < r->sh.nlocks; i++)
		pthread_mutex_destroy(&r->sh.locks[i].lock);
	free(r->sh.locks);
	free(r->workers);
	free(r->msgs);
	vtb_cpuset_release(&r->mpin);
	vtb_cpuset_release(&r->wpin);
	pthread_mutex_destroy(&r->sh.gate);
	pthread_cond_destroy(&r->sh.cond);
}

/* Allocates everything the threads use, so the measuring loops do not. */
static int run_setup(const struct wakeup_params *p, struct vtb_workload_ctx *ctx, struct wk_run *r)
{
	size_t i, j, nn;

	r->sh.msize = p->matrix_size;
	r->sh.sleep_ns = p->sleep;
	r->sh.delay_ns = p->delay;
	r->sh.operations = p->operations;
	r->sh.rps = p->rps > 0;
	r->nmsg = (size_t)p->message_threads;
	r->nworkers = r->nmsg * (size_t)p->threads;
	if (parse_pin("message_cpus", p->message_cpus, &ctx->cpus, &r->mpin) ||
	    parse_pin("worker_cpus", p->worker_cpus, &ctx->cpus, &r->wpin))
		return -1;
	r->sh.locks = alloc_lines(p->nlocks, sizeof(*r->sh.locks));
	if (!r->sh.locks)
		return vtb_error("out of memory");
	for (r->sh.nlocks = 0; r->sh.nlocks < p->nlocks; r->sh.nlocks++)
		pthread_mutex_init(&r->sh.locks[r->sh.nlocks].lock, NULL);
	r->msgs = alloc_lines(r->nmsg, sizeof(*r->msgs));
	r->workers = alloc_lines(r->nworkers, sizeof(*r->workers));
	if (!r->msgs || !r->workers)
		return vtb_error("out of memory");
	nn = 3 * r->sh.msize * r->sh.msize;
	for (i = 0; i < r->nmsg; i++) {
		struct wk_msg *m = &r->msgs[i];

		m->sh = &r->sh;
		m->workers = &r->workers[i * (size_t)p->threads];
		m->nworkers = (size_t)p->threads;
		/* The total is exact: the remainder goes to the first ones. */
		m->rps = p->rps / p->message_threads + ((long long)i < p->rps % p->message_threads);
		for (j = 0; j < m->nworkers; j++) {
			struct wk_worker *w = &m->workers[j];

			w->msg = m;
			w->sh = &r->sh;
			/* a mapping of its own, as glibc gives schbench's
			 * malloc of them: m1 and m2 then map the zero page */
			w->matrix = mmap(NULL, nn * sizeof(*w->matrix), PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (w->matrix == MAP_FAILED)
				w->matrix = NULL;
			if (!w->matrix)
				return vtb_error("cannot allocate the matrices of %zu workers",
						 r->nworkers);
			if (vtb_hist_init(&w->wakeup, HIST_BITS, "ns") ||
			    vtb_hist_init(&w->request, HIST_BITS, "ns"))
				return -1;
		}
	}
	return 0;
}

static int wakeup_run(void *params, struct vtb_workload_ctx *ctx)
{
	struct wakeup_params *p = params;
	struct wk_run r;
	size_t i, nm = 0, nw = 0;
	uint64_t t0, end;
	struct timespec ts;
	int ret = -1;

	if (!p->prepared && wakeup_prepare(p, ctx))
		return -1;
	p->prepared = false;
	memset(&r, 0, sizeof(r));
	pthread_mutex_init(&r.sh.gate, NULL);
	pthread_cond_init(&r.sh.cond, NULL);
	if (run_setup(p, ctx, &r))
		goto out;
	if (!ctx->rec)
		print_header(p, &r);
	for (i = 0; i < r.nmsg; i++, nm++) {
		const int *pin = r.mpin.n ? &r.mpin.cpus[i % r.mpin.n] : NULL;

		if (start_thread(&r.msgs[i].tid, message_thread, &r.msgs[i], pin, pin ? 1 : 0))
			break;
	}
	for (i = 0; nm == r.nmsg && i < r.nworkers; i++, nw++)
		if (start_thread(&r.workers[i].tid, worker_thread, &r.workers[i], r.wpin.cpus,
				 r.wpin.n))
			break;
	/* The window is fixed before anyone runs: warm-up, then measure. */
	t0 = vtb_now_ns();
	r.sh.win_lo = t0 + p->warmup;
	r.sh.win_hi = t0 + p->runtime;
	pthread_mutex_lock(&r.sh.gate);
	r.sh.go = nm == r.nmsg && nw == r.nworkers ? 1 : -1;
	pthread_cond_broadcast(&r.sh.cond);
	pthread_mutex_unlock(&r.sh.gate);
	if (r.sh.go > 0) {
		end = r.sh.win_hi;
		ts.tv_sec = (time_t)(end / NSEC_PER_SEC);
		ts.tv_nsec = (long)(end % NSEC_PER_SEC);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		__atomic_store_n(&r.sh.stopping, 1, __ATOMIC_SEQ_CST);
		sys_futex(&r.sh.stopping, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, 0);
		for (i = 0; i < r.nmsg; i++)
			fpost(&r.sh, &r.msgs[i].futex);
	}
	for (i = 0; i < nm; i++)
		pthread_join(r.msgs[i].tid, NULL);
	for (i = 0; i < nw; i++)
		pthread_join(r.workers[i].tid, NULL);
	if (r.sh.go < 0)
		goto out; /* start_thread() left the message */
	if (r.sh.error) {
		vtb_error("futex failed: %s", strerror(r.sh.error));
		goto out;
	}
	ret = report(p, &r, ctx);
out:
	run_release(&r);
	return ret;
}

static const char *const wakeup_models[] = { "schbench", NULL };

const struct vtb_workload_ops vtb_workload_wakeup = {
	.name = "wakeup",
	.models = wakeup_models,
	.summary = "scheduler wake-up and request latency (reference: schbench, Chris Mason)",
	.opts = wakeup_opts,
	.params_size = sizeof(struct wakeup_params),
	.prepare = wakeup_prepare,
	.memory_need = wakeup_need,
	.memory_keys = "footprint, threads or message_threads",
	.run = wakeup_run,
};
