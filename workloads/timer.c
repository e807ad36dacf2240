/* SPDX-License-Identifier: MIT */
/*
 * timer: timer wake-up latency by the cyclictest model (rt-tests), so
 * results can be held against cyclictest's.  Each thread sleeps to
 * absolute CLOCK_MONOTONIC deadlines with clock_nanosleep(TIMER_ABSTIME),
 * reads the clock when it runs again and records now - deadline; the next
 * deadline is the previous one plus the thread's interval, skipping
 * deadlines already past (cyclictest's catch-up), so a late wake-up does
 * not shift the grid.  Thread k's interval is interval + k * distance
 * (cyclictest -i/-d, default 1000 us + 500 us per further thread).
 *
 * As cyclictest 2.x: thread k is pinned to the (k mod n)-th CPU of the
 * affinity list (default: the CPUs given); all threads run SCHED_FIFO at
 * the same priority when one is given, else SCHED_OTHER; -m locks memory
 * before the threads start; /dev/cpu_dma_latency is held at 0 us while
 * measuring (a failure to open it is reported, not fatal); each thread
 * stops after its loops, or at its start + duration, and a thread that
 * reaches the duration stops every thread at its next wake-up.  Unlike
 * cyclictest, the threads start together from a gate once all exist (so
 * thread creation cannot disturb the first samples), the main thread
 * sleeps in pthread_join instead of polling every 10 ms, and latencies
 * are kept in nanoseconds (cyclictest's default truncates to whole
 * microseconds; its -N keeps nanoseconds).
 *
 * Latencies go into one log-linear histogram per thread (unit ns, 6 bits:
 * at most 1.6% bucket width), merged at the end; min, max and the mean
 * are exact, p99 is a bucket's middle.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../common/hist.h"
#include "workload.h"

#define NSEC_PER_SEC 1000000000L
#define US (UINT64_C(1000))
#define MS (UINT64_C(1000000))
#define SEC (UINT64_C(1000000000))
#define DEFAULT_DURATION (10 * SEC)
#define DMA_LATENCY_PATH "/dev/cpu_dma_latency"
#define THREAD_STACK (256u << 10)
#define CACHE_LINE 64

struct timer_params {
	long long threads;    /* 0 = auto: one per CPU of the pool */
	uint64_t interval;    /* ns, thread 0 */
	uint64_t distance;    /* ns added per further thread */
	long long priority;   /* SCHED_FIFO priority; 0 = SCHED_OTHER */
	const char *affinity; /* "auto" or a cpulist */
	bool mlockall;
	uint64_t duration;     /* ns; 0 = auto */
	long long loops;       /* per thread; 0 = no limit */
	long long dma_latency; /* us; -1 = leave /dev/cpu_dma_latency alone */
	/* resolved by prepare */
	uint64_t run_ns;	/* per-thread time limit; 0 = none (loops) */
	struct vtb_cpuset pool; /* thread k runs on pool.cpus[k % pool.n] */
};

static const struct vtb_opt timer_opts[] = {
	{ .name = "threads",
	  .type = VTB_OPT_INT,
	  .flags = VTB_OPT_AUTO,
	  .def = "auto",
	  .min = 1,
	  .max = 65536,
	  .help = "measuring threads; auto = one per cpu of the affinity list (more share those cpus round robin)",
	  .shortopt = 't',
	  .off = offsetof(struct timer_params, threads) },
	{ .name = "interval",
	  .type = VTB_OPT_TIME,
	  .def = "1000us",
	  .min = (long long)(10 * US),
	  .max = (long long)(10 * SEC),
	  .help = "wake-up interval of thread 0 (cyclictest -i, there in us: write 1000us)",
	  .shortopt = 'i',
	  .off = offsetof(struct timer_params, interval) },
	{ .name = "distance",
	  .type = VTB_OPT_TIME,
	  .def = "500us",
	  .min = 0,
	  .max = (long long)(10 * SEC),
	  .help = "added to the interval of each further thread (cyclictest -d)",
	  .shortopt = 'd',
	  .off = offsetof(struct timer_params, distance) },
	{ .name = "priority",
	  .type = VTB_OPT_INT,
	  .def = "0",
	  .min = 0,
	  .max = 99,
	  .help = "SCHED_FIFO priority of every thread; 0 = SCHED_OTHER (cyclictest -p)",
	  .shortopt = 'p',
	  .off = offsetof(struct timer_params, priority) },
	{ .name = "affinity",
	  .type = VTB_OPT_CPULIST,
	  .flags = VTB_OPT_AUTO,
	  .def = "auto",
	  .help = "thread k runs on the (k mod n)-th of these n CPUs (cyclictest -a); auto = the CPUs given",
	  .shortopt = 'a',
	  .off = offsetof(struct timer_params, affinity) },
	{ .name = "mlockall",
	  .type = VTB_OPT_BOOL,
	  .def = "no",
	  .help = "lock current and future memory before measuring (cyclictest -m)",
	  .shortopt = 'm',
	  .off = offsetof(struct timer_params, mlockall) },
	{ .name = "duration",
	  .type = VTB_OPT_TIME,
	  .flags = VTB_OPT_AUTO,
	  .def = "auto",
	  .min = (long long)MS,
	  .max = (long long)(7 * 24 * 3600 * SEC),
	  .help = "measuring time per thread (cyclictest -D); auto = 10s, or no limit when loops is set",
	  .shortopt = 'D',
	  .off = offsetof(struct timer_params, duration) },
	{ .name = "loops",
	  .type = VTB_OPT_INT,
	  .def = "0",
	  .min = 0,
	  .max = 1000000000000LL,
	  .help = "wake-ups per thread, 0 = until the duration (cyclictest -l)",
	  .shortopt = 'l',
	  .off = offsetof(struct timer_params, loops) },
	{ .name = "dma_latency",
	  .type = VTB_OPT_INT,
	  .def = "0",
	  .min = -1,
	  .max = INT32_MAX,
	  .help = "us written to " DMA_LATENCY_PATH
		  " and held while measuring, as cyclictest does; -1 = leave it alone (cyclictest --laptop)",
	  .off = offsetof(struct timer_params, dma_latency) },
	{ .name = NULL },
};

/* Interval of thread @k: cyclictest's interval + k * distance. */
static uint64_t thread_interval(const struct timer_params *p, size_t k)
{
	return p->interval + (uint64_t)k * p->distance;
}

/* CPU of thread @k: cyclictest's cpu_for_thread, round robin over the
 * pool in increasing CPU order. */
static int thread_cpu(const struct timer_params *p, size_t k)
{
	return p->pool.cpus[k % p->pool.n];
}

/*
 * Resolves threads, the CPU pool and the time limit.  On success p->pool
 * holds the CPUs, which run() releases; on failure nothing is kept.
 */
static int timer_prepare(void *params, struct vtb_workload_ctx *ctx)
{
	struct timer_params *p = params;
	struct vtb_cpuset aff = { 0 };
	size_t i, nthreads;
	char *given = NULL;
	int ret = -1;

	vtb_cpuset_release(&p->pool);
	if (ctx->cpus.n == 0) {
		vtb_error("no cpus to run on");
		goto out;
	}
	if (!p->affinity || strcmp(p->affinity, "auto") == 0) {
		for (i = 0; i < ctx->cpus.n; i++)
			if (vtb_cpuset_add(&p->pool, ctx->cpus.cpus[i]))
				goto out;
	} else {
		if (vtb_cpuset_parse(p->affinity, &aff)) {
			vtb_error("bad cpu list '%s' for 'affinity': %s", p->affinity,
				  vtb_errmsg());
			goto out;
		}
		if (aff.n == 0) {
			vtb_error("'affinity' is an empty cpu list");
			goto out;
		}
		for (i = 0; i < aff.n; i++) {
			if (!vtb_cpuset_has(&ctx->cpus, aff.cpus[i])) {
				given = vtb_cpuset_format(&ctx->cpus);
				vtb_error("'affinity' cpu %d is not among the cpus given (%s)",
					  aff.cpus[i], given ? given : "?");
				goto out;
			}
			if (vtb_cpuset_add(&p->pool, aff.cpus[i]))
				goto out;
		}
	}
	/* One thread per CPU of the pool by default; more share the pool
	 * round robin, as cyclictest's -t with -a allows, whatever the
	 * pool: the limit is the same for -a 0 as for the CPUs given. */
	nthreads = p->threads ? (size_t)p->threads : p->pool.n;
	p->threads = (long long)nthreads;
	if (p->duration)
		p->run_ns = p->duration;
	else
		p->run_ns = p->loops ? 0 : DEFAULT_DURATION;
	ret = 0;
out:
	if (ret)
		vtb_cpuset_release(&p->pool);
	vtb_cpuset_release(&aff);
	free(given);
	return ret;
}

static int64_t ts_diff_ns(const struct timespec *a, const struct timespec *b)
{
	return (int64_t)(a->tv_sec - b->tv_sec) * NSEC_PER_SEC + (a->tv_nsec - b->tv_nsec);
}

static void ts_add(struct timespec *t, const struct timespec *d)
{
	t->tv_sec += d->tv_sec;
	t->tv_nsec += d->tv_nsec;
	if (t->tv_nsec >= NSEC_PER_SEC) {
		t->tv_nsec -= NSEC_PER_SEC;
		t->tv_sec++;
	}
}

static struct timespec ts_of_ns(uint64_t ns)
{
	struct timespec t = { .tv_sec = (time_t)(ns / SEC), .tv_nsec = (long)(ns % SEC) };

	return t;
}

/*
 * Moves @next to the following deadline: one interval on, then further
 * while @now is already past it (cyclictest's catch-up, strictly greater).
 * Returns the deadlines skipped.
 */
static uint64_t next_deadline(struct timespec *next, const struct timespec *now,
			      const struct timespec *iv)
{
	uint64_t missed = 0;

	ts_add(next, iv);
	while (ts_diff_ns(now, next) > 0) {
		ts_add(next, iv);
		missed++;
	}
	return missed;
}

struct timer_shared {
	uint64_t run_ns;
	uint64_t loops;
	/* Start gate: threads wait until all exist (go = 1) or the start
	 * failed (go = -1). */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int go;
	/* Set by the first thread past its duration; read by all. */
	alignas(CACHE_LINE) atomic_int stop;
};

/* One per thread, each on its own cache lines: the measuring loop writes
 * only here. */
struct timer_thread {
	alignas(CACHE_LINE) struct vtb_hist hist; /* ns */
	struct timer_shared *sh;
	struct timespec iv;
	uint64_t missed; /* deadlines skipped by the catch-up */
	int err;	 /* clock_nanosleep error, 0 if none */
	int cpu;
	pthread_t tid;
};

static void *timer_thread(void *arg)
{
	struct timer_thread *t = arg;
	struct timer_shared *sh = t->sh;
	struct timespec now, next, stop;
	int ret;

	/* Fault the histogram in here, on this thread's CPU, so that no
	 * page fault lands inside the measuring loop. */
	memset(t->hist.buckets, 0, t->hist.n_buckets * sizeof(*t->hist.buckets));
	pthread_mutex_lock(&sh->lock);
	while (sh->go == 0)
		pthread_cond_wait(&sh->cond, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
	if (sh->go < 0)
		return NULL;

	clock_gettime(CLOCK_MONOTONIC, &now);
	next = now;
	ts_add(&next, &t->iv);
	stop = now;
	if (sh->run_ns) {
		struct timespec d = ts_of_ns(sh->run_ns);

		ts_add(&stop, &d);
	}
	/*
	 * What is measured: the kernel is asked to wake this thread at the
	 * absolute CLOCK_MONOTONIC time `next`; the first thing the thread
	 * does when it runs again is read the same clock.  now - next is
	 * then the timer's expiry latency plus the wake-up and scheduling
	 * latency (and, in a guest, the host's timer and vCPU wake-up): the
	 * cyclictest latency.  Deadlines are absolute and advance by whole
	 * intervals, so time spent recording never shifts the next one.
	 * Between wake-ups the loop only updates this thread's histogram
	 * (fixed memory, already faulted in) and reads the shared stop flag:
	 * no allocation, I/O or locks.
	 */
	do {
		int64_t diff;

		ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		if (ret == EINTR)
			continue;
		if (ret) {
			t->err = ret;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		diff = ts_diff_ns(&now, &next);
		vtb_hist_add(&t->hist, diff > 0 ? (uint64_t)diff : 0);
		if (sh->run_ns && ts_diff_ns(&now, &stop) >= 0)
			atomic_store_explicit(&sh->stop, 1, memory_order_relaxed);
		t->missed += next_deadline(&next, &now, &t->iv);
		if (sh->loops && t->hist.count >= sh->loops)
			break;
	} while (!atomic_load_explicit(&sh->stop, memory_order_relaxed));
	return NULL;
}

/* cyclictest's set_latency_target(): hold a PM QoS request so idle CPUs
 * stay in shallow C-states.  Returns the open fd or -1; *note says what
 * happened (malloc'ed, NULL on ENOMEM). */
static int hold_dma_latency(long long us, char **note)
{
	int32_t v = (int32_t)us;
	int fd;

	if (us < 0) {
		*note = vtb_strdup("left alone");
		return -1;
	}
	fd = open(DMA_LATENCY_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		*note = vtb_asprintf("not set: cannot open %s: %s", DMA_LATENCY_PATH,
				     strerror(errno));
		return -1;
	}
	if (write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		*note = vtb_asprintf("not set: cannot write %s: %s", DMA_LATENCY_PATH,
				     strerror(errno));
		close(fd);
		return -1;
	}
	*note = vtb_asprintf("%lldus held", us);
	return fd;
}

/* cyclictest raises a soft RLIMIT_RTPRIO below the priority up to the
 * hard limit; without it an unprivileged user gets EPERM.  True when it
 * raised it, @old then holding the limit to restore after the run (the
 * agent runs further cells, which must not inherit it). */
static bool raise_rtprio_limit(long long prio, struct rlimit *old)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_RTPRIO, &rl) != 0)
		return false;
	*old = rl;
	if (rl.rlim_cur != RLIM_INFINITY && (long long)rl.rlim_cur < prio &&
	    (rl.rlim_max == RLIM_INFINITY || (long long)rl.rlim_max >= prio)) {
		rl.rlim_cur = (rlim_t)prio;
		return setrlimit(RLIMIT_RTPRIO, &rl) == 0;
	}
	return false;
}

static int start_thread(const struct timer_params *p, struct timer_thread *t, size_t k)
{
	pthread_attr_t attr;
	cpu_set_t *set;
	size_t setsz;
	int err;

	set = CPU_ALLOC((size_t)t->cpu + 1);
	if (!set)
		return vtb_error("out of memory");
	setsz = CPU_ALLOC_SIZE((size_t)t->cpu + 1);
	CPU_ZERO_S(setsz, set);
	CPU_SET_S((size_t)t->cpu, setsz, set);
	err = pthread_attr_init(&attr);
	if (err) {
		CPU_FREE(set);
		return vtb_error("cannot start thread %zu: %s", k, strerror(err));
	}
	err = pthread_attr_setaffinity_np(&attr, setsz, set);
	if (!err)
		err = pthread_attr_setstacksize(&attr, THREAD_STACK);
	if (!err && p->priority > 0) {
		struct sched_param sp = { .sched_priority = (int)p->priority };

		err = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		if (!err)
			err = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		if (!err)
			err = pthread_attr_setschedparam(&attr, &sp);
	}
	if (!err) {
		err = pthread_create(&t->tid, &attr, timer_thread, t);
		if (err == EPERM && p->priority > 0) {
			pthread_attr_destroy(&attr);
			CPU_FREE(set);
			return vtb_error(
				"cannot run thread %zu at SCHED_FIFO priority %lld: %s (needs root, CAP_SYS_NICE or RLIMIT_RTPRIO >= %lld, and RT runtime in its cgroup; priority=0 runs SCHED_OTHER)",
				k, p->priority, strerror(err), p->priority);
		}
	}
	pthread_attr_destroy(&attr);
	CPU_FREE(set);
	if (err)
		return vtb_error("cannot start thread %zu on cpu %d: %s", k, t->cpu, strerror(err));
	return 0;
}

static void print_header(const struct timer_params *p, const char *dma)
{
	char *iv = vtb_format_time_ns(p->interval), *dist = vtb_format_time_ns(p->distance);
	char *dur = p->run_ns ? vtb_format_time_ns(p->run_ns) : NULL;

	printf("timer: cyclictest model, clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)\n");
	printf("Threads = %lld, interval = %s (+%s per thread), policy = %s", p->threads,
	       iv ? iv : "?", dist ? dist : "?", p->priority ? "fifo" : "other");
	if (p->priority)
		printf(":%lld", p->priority);
	printf("\n");
	if (p->run_ns)
		printf("Duration = %s", dur ? dur : "?");
	else
		printf("Duration = no limit");
	if (p->loops)
		printf(", loops = %lld per thread", p->loops);
	printf(", mlockall = %s, %s %s\n", p->mlockall ? "yes" : "no", DMA_LATENCY_PATH, dma);
	fflush(stdout);
	free(iv);
	free(dist);
	free(dur);
}

static double us_of(uint64_t ns)
{
	return (double)ns / 1000.0;
}

/* Per-thread figures for info (and the human table). */
static json_t *thread_json(const struct timer_thread *t, size_t k, uint64_t interval)
{
	const struct vtb_hist *h = &t->hist;

	return json_pack("{s:I, s:i, s:f, s:I, s:I, s:f, s:f, s:f}", "thread", (json_int_t)k, "cpu",
			 t->cpu, "interval_us", us_of(interval), "cycles", (json_int_t)h->count,
			 "missed", (json_int_t)t->missed, "min_us", us_of(h->min), "avg_us",
			 vtb_hist_mean(h) / 1000.0, "max_us", us_of(h->max));
}

static int report(const struct timer_params *p, struct timer_thread *th, size_t n, const char *dma,
		  struct vtb_workload_ctx *ctx)
{
	struct vtb_hist all = { 0 };
	json_t *per = json_array();
	uint64_t missed = 0;
	size_t k;
	int ret = -1;

	if (!per || vtb_hist_init(&all, VTB_HIST_BITS_DEFAULT, "ns")) {
		vtb_error("out of memory");
		goto out;
	}
	for (k = 0; k < n; k++) {
		const struct vtb_hist *h = &th[k].hist;

		if (vtb_hist_merge(&all, h))
			goto out;
		missed += th[k].missed;
		if (json_array_append_new(per, thread_json(&th[k], k, thread_interval(p, k)))) {
			vtb_error("out of memory");
			goto out;
		}
		if (!ctx->rec)
			printf("T:%3zu cpu %3d P:%2lld I:%8.1f C:%9" PRIu64
			       " Min:%9.2f Avg:%9.2f Max:%10.2f (us)\n",
			       k, th[k].cpu, p->priority, us_of(thread_interval(p, k)), h->count,
			       us_of(h->min), vtb_hist_mean(h) / 1000.0, us_of(h->max));
	}
	if (all.count == 0) {
		vtb_error("no wake-up was measured");
		goto out;
	}
	if (vtb_report_sample(ctx, "timer_min", "us", us_of(all.min), VTB_BETTER_LOWER) ||
	    vtb_report_sample(ctx, "timer_avg", "us", vtb_hist_mean(&all) / 1000.0,
			      VTB_BETTER_LOWER) ||
	    vtb_report_sample(ctx, "timer_p99", "us", us_of(vtb_hist_percentile(&all, 99)),
			      VTB_BETTER_LOWER) ||
	    vtb_report_sample(ctx, "timer_max", "us", us_of(all.max), VTB_BETTER_LOWER) ||
	    vtb_report_hist(ctx, "timer_latency", &all))
		goto out;
	if (vtb_report_info(ctx, "threads", json_integer(p->threads)) ||
	    vtb_report_info(ctx, "interval_us", json_real(us_of(p->interval))) ||
	    vtb_report_info(ctx, "distance_us", json_real(us_of(p->distance))) ||
	    vtb_report_info(ctx, "policy", json_string(p->priority ? "fifo" : "other")) ||
	    vtb_report_info(ctx, "priority", json_integer(p->priority)) ||
	    vtb_report_info(ctx, "duration_s",
			    p->run_ns ? json_real((double)p->run_ns / 1e9) : json_null()) ||
	    vtb_report_info(ctx, "loops", json_integer(p->loops)) ||
	    vtb_report_info(ctx, "mlockall", json_boolean(p->mlockall)) ||
	    vtb_report_info(ctx, "dma_latency", json_string(dma)) ||
	    vtb_report_info(ctx, "clock", json_string("CLOCK_MONOTONIC, TIMER_ABSTIME")) ||
	    vtb_report_info(ctx, "cycles", json_integer((json_int_t)all.count)) ||
	    vtb_report_info(ctx, "missed", json_integer((json_int_t)missed)) ||
	    vtb_report_info(ctx, "per_thread", json_incref(per)))
		goto out;
	ret = 0;
out:
	json_decref(per);
	vtb_hist_release(&all);
	return ret;
}

static int timer_run(void *params, struct vtb_workload_ctx *ctx)
{
	struct timer_params *p = params;
	struct timer_shared *sh = NULL;
	struct timer_thread *th = NULL;
	size_t i, n, started = 0;
	char *dma = NULL;
	bool locked = false, sync = false, rtprio_raised = false;
	struct rlimit rtprio_old;
	int dma_fd = -1, ret = -1;

	if (p->pool.n == 0 && timer_prepare(p, ctx))
		return -1;
	n = (size_t)p->threads;
	sh = aligned_alloc(CACHE_LINE, sizeof(*sh));
	th = aligned_alloc(CACHE_LINE, n * sizeof(*th));
	if (!sh || !th) {
		vtb_error("out of memory");
		goto out;
	}
	memset(sh, 0, sizeof(*sh));
	memset(th, 0, n * sizeof(*th));
	for (i = 0; i < n; i++) {
		th[i].sh = sh;
		th[i].cpu = thread_cpu(p, i);
		th[i].iv = ts_of_ns(thread_interval(p, i));
		if (vtb_hist_init(&th[i].hist, VTB_HIST_BITS_DEFAULT, "ns"))
			goto out;
	}
	sh->run_ns = p->run_ns;
	sh->loops = (uint64_t)p->loops;
	atomic_init(&sh->stop, 0);
	pthread_mutex_init(&sh->lock, NULL);
	pthread_cond_init(&sh->cond, NULL);
	sync = true;

	if (p->mlockall) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
			vtb_error("cannot lock memory (mlockall): %s", strerror(errno));
			goto out;
		}
		locked = true;
	}
	dma_fd = hold_dma_latency(p->dma_latency, &dma);
	if (!dma) {
		vtb_error("out of memory");
		goto out;
	}
	if (!ctx->rec)
		print_header(p, dma);
	if (p->priority > 0)
		rtprio_raised = raise_rtprio_limit(p->priority, &rtprio_old);
	for (i = 0; i < n; i++) {
		if (start_thread(p, &th[i], i))
			break;
		started++;
	}
	pthread_mutex_lock(&sh->lock);
	sh->go = started == n ? 1 : -1;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	for (i = 0; i < started; i++)
		pthread_join(th[i].tid, NULL);
	if (started < n)
		goto out;
	for (i = 0; i < n; i++) {
		if (th[i].err) {
			vtb_error("thread %zu: clock_nanosleep failed: %s", i, strerror(th[i].err));
			goto out;
		}
	}
	if (dma_fd >= 0) {
		close(dma_fd);
		dma_fd = -1;
	}
	if (locked) {
		munlockall();
		locked = false;
	}
	ret = report(p, th, n, dma, ctx);
out:
	if (rtprio_raised)
		setrlimit(RLIMIT_RTPRIO, &rtprio_old);
	if (dma_fd >= 0)
		close(dma_fd);
	if (locked)
		munlockall();
	if (sync) {
		pthread_mutex_destroy(&sh->lock);
		pthread_cond_destroy(&sh->cond);
	}
	if (th)
		for (i = 0; i < n; i++)
			vtb_hist_release(&th[i].hist);
	free(th);
	free(sh);
	free(dma);
	vtb_cpuset_release(&p->pool);
	return ret;
}

static const char *const timer_models[] = { "cyclictest", NULL };

const struct vtb_workload_ops vtb_workload_timer = {
	.name = "timer",
	.models = timer_models,
	.summary =
		"timer wake-up latency, absolute-deadline sleeps (reference: rt-tests cyclictest)",
	.opts = timer_opts,
	.params_size = sizeof(struct timer_params),
	.prepare = timer_prepare,
	.run = timer_run,
};
