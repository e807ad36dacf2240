/* SPDX-License-Identifier: MIT */
/*
 * c2c: core-to-core latency, the core-to-core-latency model (Nicolas
 * Viennot's tool, its CAS benchmark; c2clat by Erik Rigtorp is the same
 * idea): for each pair of CPUs, one thread pinned to each bounces one
 * cache line by compare-and-swap, ping setting PING only once it sees
 * PONG and pong the reverse, so every successful CAS of ping is one
 * round trip of the line between the two cores.  Ping times batches of
 * `rounds` round trips; the first batch (threads waking, line moving to
 * its home) is discarded.  A pair runs batches for `time` (at least 3,
 * at most `batches`; a batch is cut once 2 x time has passed) and its
 * value is the median batch, in nanoseconds per round trip.  A partner
 * that does not answer within max(1 s, 100 x time) fails the run: the
 * spinning loops read the clock every CHECK_EVERY attempts, so a stalled
 * CPU cannot hang it.
 *
 * Median, not mean (core-to-core-latency) or min (c2clat): a batch hit
 * by an interrupt or, in a guest, by a preempted vCPU is an outlier that
 * drags the mean up, while the min rewards the one lucky batch and
 * drifts down with more batches.  The median is the typical round trip,
 * stable in repeat runs, which is what a guest-vs-host comparison needs.
 * Round trips, not one-way halves: core-to-core-latency and c2clat print
 * half of our figure.
 *
 * From the matrix, average-linkage clustering (lib/c2cclust.c) finds
 * levels of close CPUs (SMT < LLC < node < machine) and names each level
 * after the sysfs topology it matches, if any: in a guest, a level that
 * matches nothing means the virtual topology hides or misstates it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/c2cclust.h"
#include "workload.h"

#define LINE_STRIDE 4096		/* bytes: one page per pinging CPU, see measure_all */
#define MIN_BATCHES VTB_C2C_MIN_BATCHES /* measured batches per pair, whatever the time */
#define PRINT_MAX_CPUS 64		/* larger matrices are only stored */
#define CHECK_EVERY 1024		/* CAS attempts between two clock reads */
#define DEADLINE_MIN_NS 1000000000ULL	/* a pair fails past max(this, */
#define DEADLINE_TIMES 100		/* ... this x time) */
#define BUDGET_SECONDS 600.0		/* prepare warns above this estimate */

enum { ST_PING = 0, ST_PONG = 1, ST_STOP = 2 };

static const char *const c2c_modes[] = { "auto", "full", "sampled", NULL };

struct c2c_params {
	const char *mode;
	long long sample_above;
	uint64_t time; /* ns per pair */
	long long rounds;
	long long batches;
	long long gap; /* percent */
	bool silent;   /* debug: pong never answers, as a CPU that does not run */
	/* resolved by prepare, released by run */
	bool sampled;
	int sampled_by; /* sampled: the VTB_C2C_* kind grouped by, -1 none */
	struct vtb_cpuset use;
	size_t *rep_of; /* sampled: its partition; NULL when every pair is measured */
	struct vtb_c2c_pair *pairs;
	size_t n_pairs;
	double expect; /* seconds */
};

static const struct vtb_opt c2c_opts[] = {
	{ .name = "mode",
	  .type = VTB_OPT_ENUM,
	  .def = "auto",
	  .values = c2c_modes,
	  .help = "full: every pair; sampled: the first cpu of each core against those of the other cores and its own siblings (no smt: the first cpu of each llc, else node, against all); auto: sampled above sample_above cpus",
	  .shortopt = 'm',
	  .off = offsetof(struct c2c_params, mode) },
	{ .name = "sample_above",
	  .type = VTB_OPT_INT,
	  .def = "64",
	  .min = 2,
	  .max = VTB_C2C_MAX_CPUS,
	  .help = "mode=auto samples when the cell has more cpus than this",
	  .shortopt = 'S',
	  .off = offsetof(struct c2c_params, sample_above) },
	{ .name = "time",
	  .type = VTB_OPT_TIME,
	  .def = "10ms",
	  .min = 100000,
	  .max = 10000000000LL,
	  .help = "time per pair (batches stop when it is spent, after at least 3)",
	  .shortopt = 't',
	  .off = offsetof(struct c2c_params, time) },
	{ .name = "rounds",
	  .type = VTB_OPT_INT,
	  .def = "1000",
	  .min = 1,
	  .max = 10000000,
	  .help = "round trips per timed batch",
	  .shortopt = 'r',
	  .off = offsetof(struct c2c_params, rounds) },
	{ .name = "batches",
	  .type = VTB_OPT_INT,
	  .def = "1000",
	  .min = MIN_BATCHES,
	  .max = 1000000,
	  .help = "most batches per pair (the median of them is the pair's value)",
	  .shortopt = 'b',
	  .off = offsetof(struct c2c_params, batches) },
	{ .name = "gap",
	  .type = VTB_OPT_INT,
	  .def = "25",
	  .min = 5,
	  .max = 1000,
	  .help = "clustering: a jump of more than this percent between merge latencies starts a new level",
	  .shortopt = 'g',
	  .off = offsetof(struct c2c_params, gap) },
	{ .name = "silent",
	  .type = VTB_OPT_BOOL,
	  .flags = VTB_OPT_HIDDEN,
	  .help = "debug: the pong side never answers (a cpu that does not run), so every pair fails at its deadline",
	  .off = offsetof(struct c2c_params, silent) },
	{ .name = NULL },
};

static void release_resolved(struct c2c_params *p)
{
	vtb_cpuset_release(&p->use);
	free(p->rep_of);
	free(p->pairs);
	p->rep_of = NULL;
	p->pairs = NULL;
	p->n_pairs = 0;
}

/* How long a pair may take before it fails: max(1 s, 100 x time). */
static uint64_t pair_deadline_ns(const struct c2c_params *p)
{
	uint64_t d = p->time * DEADLINE_TIMES;

	return d > DEADLINE_MIN_NS ? d : DEADLINE_MIN_NS;
}

/*
 * The memory_need hook, an estimate for n CPUs: a page per pinging CPU,
 * the matrix, the pair list and per-pair values, the clustering's
 * copies and the matrix as JSON (about 64 bytes per pair in all), and
 * one batch's round trips.
 */
static int c2c_need(const void *params, size_t ncpus, uint64_t *out)
{
	const struct c2c_params *p = params;
	uint64_t n = ncpus;

	*out = n * LINE_STRIDE + n * n * 64 + (uint64_t)p->batches * sizeof(double);
	return 0;
}

/*
 * Resolves the mode and plans the pairs.  On success p->use and
 * p->pairs hold them (run releases them); on failure nothing is kept.
 */
static int c2c_prepare(void *params, struct vtb_workload_ctx *ctx)
{
	struct c2c_params *p = params;
	size_t i, n = ctx->cpus.n;
	int ret = -1;

	release_resolved(p);
	if (n < 2) {
		vtb_error("c2c needs at least 2 cpus, the cell has %zu", n);
		goto out;
	}
	if (n > VTB_C2C_MAX_CPUS) {
		vtb_error("c2c handles at most %d cpus, the cell has %zu", VTB_C2C_MAX_CPUS, n);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (vtb_cpuset_add(&p->use, ctx->cpus.cpus[i]))
			goto out;
	if (strcmp(p->mode, "auto") == 0)
		p->sampled = n > (size_t)p->sample_above;
	else
		p->sampled = strcmp(p->mode, "sampled") == 0;
	p->sampled_by = -1;
	if (p->sampled) {
		p->rep_of = calloc(n, sizeof(*p->rep_of));
		if (!p->rep_of) {
			vtb_error("out of memory");
			goto out;
		}
		/* SMT cores; without SMT, LLCs or nodes; else every pair */
		p->sampled_by = vtb_c2c_sample_kind(NULL, &p->use, p->rep_of);
		if (p->sampled_by < 0) {
			free(p->rep_of);
			p->rep_of = NULL;
		}
	}
	if (vtb_c2c_plan(n, p->rep_of, p->sampled_by != VTB_C2C_SMT, &p->pairs, &p->n_pairs))
		goto out;
	p->expect = vtb_c2c_expected_seconds(p->n_pairs, p->time, p->rounds);
	if (p->expect > BUDGET_SECONDS)
		fprintf(stderr,
			"c2c: warning: %zu pairs will take about %.0f s, over %.0f minutes (use fewer cpus, mode=sampled or a shorter time)\n",
			p->n_pairs, p->expect, BUDGET_SECONDS / 60);
	ret = 0;
out:
	if (ret)
		release_resolved(p);
	return ret;
}

struct c2c_shared {
	/* go and done: main and both workers; ready: the two workers once
	 * pinned, so timing starts with both on their CPUs */
	pthread_barrier_t go, ready, done;
	/* start gate, as in membw: 1 run, -1 a thread failed to start */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int gate;
	/* the pair, set by main before go */
	bool quit;
	int ping_cpu, pong_cpu;
	uint64_t *line;
	/* results, read by main after done */
	int ping_err, pong_err;	   /* errno of pinning */
	bool ping_late, pong_late; /* the other side did not answer in time */
	double *batch_rt;	   /* ns per round trip of each measured batch */
	size_t n_batches, n_cut;
	/* parameters */
	uint64_t time_ns, deadline_ns;
	long long rounds, max_batches;
	bool silent;
};

static int pin_self(int cpu)
{
	cpu_set_t *set = CPU_ALLOC((size_t)cpu + 1);
	size_t sz = CPU_ALLOC_SIZE((size_t)cpu + 1);
	int err = 0;

	if (!set)
		return ENOMEM;
	CPU_ZERO_S(sz, set);
	CPU_SET_S((size_t)cpu, sz, set);
	/* the calling thread is migrated before the call returns */
	if (sched_setaffinity(0, sz, set))
		err = errno;
	CPU_FREE(set);
	return err;
}

static bool cas(uint64_t *line, uint64_t expect, uint64_t desired, uint64_t *seen)
{
	bool ok = __atomic_compare_exchange_n(line, &expect, desired, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED);

	*seen = expect;
	return ok;
}

static bool gate_wait(struct c2c_shared *sh)
{
	int g;

	pthread_mutex_lock(&sh->lock);
	while (sh->gate == 0)
		pthread_cond_wait(&sh->cond, &sh->lock);
	g = sh->gate;
	pthread_mutex_unlock(&sh->lock);
	return g > 0;
}

/*
 * Ping's side of one pair: the timed batches, then STOP for pong.  The
 * pair is bounded: a batch ends early once 2 x time has passed since the
 * pair started (its value is then its own round trips over its own
 * time), and past the deadline, max(1 s, 100 x time), ping gives up,
 * writes STOP (pong sees it whenever it runs again) and sets ping_late.
 */
static void ping_measure(struct c2c_shared *sh)
{
	uint64_t *line = sh->line, seen, start, t0, t1, now, cut, deadline;
	long long r, rounds = sh->rounds;
	unsigned spins = 0;
	size_t nb = 0;
	bool warm = true, short_batch;

	start = vtb_now_ns();
	cut = start + 2 * sh->time_ns;
	deadline = start + sh->deadline_ns;
	for (;;) {
		/*
		 * What is timed: `rounds` successful CASes of PONG -> PING.
		 * Each needs pong's PING -> PONG first, which needs the line
		 * in pong's cache, and then the line back in ours: one
		 * round trip of the cache line per iteration, nothing else
		 * (no allocation, no system call, one clock read per batch
		 * on each side, amortised over the batch).  The bound costs
		 * a counter per CAS attempt and a clock read every
		 * CHECK_EVERY attempts (some hundred round trips), well
		 * under a nanosecond per round trip.
		 */
		short_batch = false;
		t0 = vtb_now_ns();
		for (r = 0; r < rounds;) {
			if (cas(line, ST_PONG, ST_PING, &seen))
				r++;
			if (++spins % CHECK_EVERY)
				continue;
			now = vtb_now_ns();
			if (now >= deadline)
				goto late;
			if (now >= cut && r > 0) {
				short_batch = true;
				break;
			}
		}
		t1 = vtb_now_ns();
		if (warm) {
			warm = false; /* discarded: wake-up and first transfer */
		} else {
			sh->batch_rt[nb++] = (double)(t1 - t0) / (double)r;
			sh->n_cut += short_batch;
		}
		if (nb >= (size_t)sh->max_batches ||
		    (nb >= MIN_BATCHES && t1 - start >= sh->time_ns))
			break;
	}
	/* pong's last PING -> PONG, then STOP, which its CAS sees and ends */
	while (!cas(line, ST_PONG, ST_STOP, &seen))
		if (++spins % CHECK_EVERY == 0 && vtb_now_ns() >= deadline)
			goto late;
	sh->n_batches = nb;
	return;
late:
	__atomic_store_n(line, ST_STOP, __ATOMIC_RELAXED);
	sh->ping_late = true;
	sh->n_batches = nb;
}

static void *ping_thread(void *arg)
{
	struct c2c_shared *sh = arg;

	if (!gate_wait(sh))
		return NULL;
	for (;;) {
		pthread_barrier_wait(&sh->go);
		if (sh->quit)
			break;
		sh->n_batches = sh->n_cut = 0;
		sh->ping_late = false;
		sh->ping_err = pin_self(sh->ping_cpu);
		/* First touch from the pinging CPU: the line's page lives
		 * on its node, as in core-to-core-latency. */
		if (!sh->ping_err)
			__atomic_store_n(sh->line, ST_PING, __ATOMIC_RELAXED);
		pthread_barrier_wait(&sh->ready);
		if (!sh->ping_err && !sh->pong_err)
			ping_measure(sh);
		pthread_barrier_wait(&sh->done);
	}
	return NULL;
}

static void *pong_thread(void *arg)
{
	struct c2c_shared *sh = arg;
	uint64_t seen;

	if (!gate_wait(sh))
		return NULL;
	for (;;) {
		pthread_barrier_wait(&sh->go);
		if (sh->quit)
			break;
		sh->pong_late = false;
		sh->pong_err = pin_self(sh->pong_cpu);
		pthread_barrier_wait(&sh->ready);
		if (!sh->ping_err && !sh->pong_err) {
			uint64_t *line = sh->line, deadline = vtb_now_ns() + 2 * sh->deadline_ns;
			unsigned spins = 0;

			/* The other half of the round trip (see ping_measure):
			 * PING -> PONG until ping writes STOP.  Ping ends the
			 * pair by its deadline; this one, twice as far, only
			 * ends a pair whose ping never runs. */
			for (;;) {
				if (sh->silent)
					seen = __atomic_load_n(line, __ATOMIC_RELAXED);
				else
					cas(line, ST_PING, ST_PONG, &seen);
				if (seen == ST_STOP)
					break;
				if (++spins % CHECK_EVERY == 0 && vtb_now_ns() >= deadline) {
					sh->pong_late = true;
					break;
				}
			}
		}
		pthread_barrier_wait(&sh->done);
	}
	return NULL;
}

/* The three barriers; *nbar counts those made, for c2c_barriers_destroy(). */
static int c2c_barriers_init(struct c2c_shared *sh, int *nbar)
{
	int err = pthread_barrier_init(&sh->go, NULL, 3);

	if (!err) {
		(*nbar)++;
		err = pthread_barrier_init(&sh->ready, NULL, 2);
	}
	if (!err) {
		(*nbar)++;
		err = pthread_barrier_init(&sh->done, NULL, 3);
	}
	if (err)
		return vtb_error("cannot create a barrier: %s", strerror(err));
	(*nbar)++;
	return 0;
}

static void c2c_barriers_destroy(struct c2c_shared *sh, int nbar)
{
	if (nbar > 0)
		pthread_barrier_destroy(&sh->go);
	if (nbar > 1)
		pthread_barrier_destroy(&sh->ready);
	if (nbar > 2)
		pthread_barrier_destroy(&sh->done);
}

/* Starts ping and pong (*started of them) and opens or closes the gate. */
static int c2c_threads_start(struct c2c_shared *sh, pthread_t tid[2], size_t *started)
{
	int err = pthread_create(&tid[0], NULL, ping_thread, sh);

	if (!err) {
		(*started)++;
		err = pthread_create(&tid[1], NULL, pong_thread, sh);
		if (!err)
			(*started)++;
	}
	pthread_mutex_lock(&sh->lock);
	sh->gate = *started == 2 ? 1 : -1;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	if (*started < 2)
		return vtb_error("cannot start a thread: %s", strerror(err));
	return 0;
}

/* Pair @i of the plan, ping on its first cpu's line: its median round
 * trip into @m, its one-way figure, its batches into the counts. */
static int measure_pair(const struct c2c_params *p, struct c2c_shared *sh, void *lines, size_t i,
			double *m, double *one_way, size_t *min_batches, size_t *cut)
{
	size_t a = p->pairs[i].a, b = p->pairs[i].b, n = p->use.n;
	double med, sum = 0;

	sh->ping_cpu = p->use.cpus[a];
	sh->pong_cpu = p->use.cpus[b];
	sh->line = (uint64_t *)((char *)lines + a * LINE_STRIDE);
	pthread_barrier_wait(&sh->go);
	pthread_barrier_wait(&sh->done);
	if (sh->ping_err || sh->pong_err)
		return vtb_error("cannot pin a thread to cpu %d: %s",
				 sh->ping_err ? sh->ping_cpu : sh->pong_cpu,
				 strerror(sh->ping_err ? sh->ping_err : sh->pong_err));
	if (sh->ping_late || sh->pong_late) {
		char *d = vtb_format_time_ns(pair_deadline_ns(p));

		vtb_error(
			"cpu %d did not answer cpu %d within %s (max(1s, 100 x time) per pair): is it running? (a stalled vcpu, a real-time task)",
			sh->ping_late ? sh->pong_cpu : sh->ping_cpu,
			sh->ping_late ? sh->ping_cpu : sh->pong_cpu, d ? d : "the deadline");
		free(d);
		return -1;
	}
	if (sh->n_batches < *min_batches)
		*min_batches = sh->n_batches;
	*cut += sh->n_cut;
	for (size_t k = 0; k < sh->n_batches; k++)
		sum += sh->batch_rt[k];
	one_way[i] = sh->n_batches ? sum / (double)sh->n_batches / 2 : NAN;
	med = vtb_c2c_median(sh->batch_rt, sh->n_batches);
	if (!(med > 0) || !isfinite(med))
		return vtb_error("cpus %d and %d: no measurable round trip", sh->ping_cpu,
				 sh->pong_cpu);
	m[a * n + b] = m[b * n + a] = med;
	return 0;
}

/* Measures every planned pair into @m (n x n, NaN elsewhere). */
static int measure_all(const struct c2c_params *p, double *m, double *one_way, size_t *min_batches,
		       size_t *cut)
{
	struct c2c_shared *sh = NULL;
	pthread_t tid[2];
	size_t i, started = 0, bytes = p->use.n * LINE_STRIDE;
	void *lines = MAP_FAILED;
	int ret = -1, nbar = 0;

	*min_batches = SIZE_MAX;
	*cut = 0;
	sh = calloc(1, sizeof(*sh));
	if (!sh) {
		vtb_error("out of memory");
		return -1;
	}
	pthread_mutex_init(&sh->lock, NULL);
	pthread_cond_init(&sh->cond, NULL);
	sh->batch_rt = calloc((size_t)p->batches, sizeof(*sh->batch_rt));
	/* One page per pinging CPU (untouched until that CPU pings), so the
	 * line is alone in its cache line and page, and homed on its node. */
	lines = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!sh->batch_rt || lines == MAP_FAILED) {
		vtb_error("out of memory");
		goto out;
	}
	/* Small pages: a transparent huge page would hold 512 lines and be
	 * homed on the node of whichever CPU touched it first.  Advice
	 * only: a kernel without THP refuses it, which is fine. */
	(void)madvise(lines, bytes, MADV_NOHUGEPAGE);
	sh->time_ns = p->time;
	sh->deadline_ns = pair_deadline_ns(p);
	sh->silent = p->silent;
	sh->rounds = p->rounds;
	sh->max_batches = p->batches;
	if (c2c_barriers_init(sh, &nbar))
		goto out;
	if (c2c_threads_start(sh, tid, &started))
		goto join;
	for (i = 0; i < p->n_pairs; i++)
		if (measure_pair(p, sh, lines, i, m, one_way, min_batches, cut))
			break;
	ret = i == p->n_pairs ? 0 : -1;
	sh->quit = true;
	pthread_barrier_wait(&sh->go);
join:
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
out:
	c2c_barriers_destroy(sh, nbar);
	if (lines != MAP_FAILED)
		munmap(lines, bytes);
	pthread_mutex_destroy(&sh->lock);
	pthread_cond_destroy(&sh->cond);
	free(sh->batch_rt);
	free(sh);
	return ret;
}

/* Cluster groups of a partition as cpulists of CPU numbers. */
static json_t *groups_json(const struct vtb_cpuset *cpus, const size_t *of)
{
	json_t *a = json_array();
	size_t i, j, n = cpus->n;

	for (i = 0; a && i < n; i++) {
		struct vtb_cpuset g = { 0 };
		char *s;

		if (of[i] != i)
			continue;
		for (j = i; j < n; j++) {
			if (of[j] == i && vtb_cpuset_add(&g, cpus->cpus[j])) {
				vtb_cpuset_release(&g);
				json_decref(a);
				return NULL;
			}
		}
		s = vtb_cpuset_format(&g);
		vtb_cpuset_release(&g);
		if (!s || json_array_append_new(a, json_string(s))) {
			free(s);
			json_decref(a);
			return NULL;
		}
		free(s);
	}
	return a;
}

/* Names of the sysfs partitions equal to @of ("smt", "llc", ...). */
static json_t *matches_json(const struct vtb_c2c_topo *t, const size_t *of)
{
	json_t *a = json_array();
	int k;

	for (k = 0; a && k < VTB_C2C_N_KINDS; k++) {
		if (!t->of[k] || memcmp(t->of[k], of, t->n * sizeof(size_t)) != 0)
			continue;
		if (json_array_append_new(a, json_string(vtb_c2c_kind_names[k]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *levels_json(const struct c2c_params *p, const struct vtb_c2c_clusters *cl,
			   const struct vtb_c2c_topo *t)
{
	json_t *arr = json_array();
	size_t k;

	for (k = 0; arr && k < cl->n_levels; k++) {
		const struct vtb_c2c_level *lv = &cl->levels[k];
		json_t *groups = groups_json(&p->use, lv->cluster_of),
		       *sysfs = matches_json(t, lv->cluster_of),
		       *names = vtb_c2c_level_names(t, lv, k), *o = NULL;

		/* "o" steals the three, also when packing fails; a NULL
		 * (ENOMEM) makes it fail, which is why it is not "o?" */
		if (groups && sysfs && names)
			o = json_pack("{s:I, s:f, s:f, s:f, s:I, s:I, s:o, s:o, s:o}", "level",
				      (json_int_t)k, "lo_ns", vtb_c2c_round_quarter(lv->lo_ns),
				      "hi_ns", vtb_c2c_round_quarter(lv->hi_ns), "mean_ns",
				      vtb_c2c_round_quarter(lv->mean_ns), "pairs",
				      (json_int_t)lv->n_pairs, "n_clusters",
				      (json_int_t)lv->n_clusters, "clusters", groups, "sysfs",
				      sysfs, "names", names);
		else {
			json_decref(groups);
			json_decref(sysfs);
			json_decref(names);
		}
		if (!o || json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static void print_matrix(const struct vtb_cpuset *cpus, const double *m)
{
	size_t i, j, n = cpus->n;

	if (n > PRINT_MAX_CPUS) {
		printf("(matrix of %zu cpus not printed: it is stored as info 'matrix')\n", n);
		return;
	}
	printf("round-trip latency, ns (median of batches):\n%6s", "cpu");
	for (j = 0; j < n; j++)
		printf(" %7d", cpus->cpus[j]);
	printf("\n");
	for (i = 0; i < n; i++) {
		printf("%6d", cpus->cpus[i]);
		for (j = 0; j < n; j++) {
			double v = m[i * n + j];

			if (isfinite(v))
				printf(" %7.1f", v);
			else
				printf(" %7s", "-");
		}
		printf("\n");
	}
}

static void print_levels(const struct vtb_c2c_clusters *cl, const json_t *levels)
{
	size_t k, i;
	json_t *lv, *c;

	printf("clusters (average linkage; a level starts at a latency gap):\n");
	json_array_foreach(levels, k, lv)
	{
		const struct vtb_c2c_level *l = &cl->levels[k];
		json_t *sysfs = json_object_get(lv, "sysfs");

		printf("  level %zu: mean %.1f ns over %zu pairs, merges at %.1f-%.1f ns, %zu cluster%s",
		       k, l->mean_ns, l->n_pairs, l->lo_ns, l->hi_ns, l->n_clusters,
		       l->n_clusters == 1 ? "" : "s");
		if (json_array_size(sysfs)) {
			printf(", as sysfs");
			json_array_foreach(sysfs, i, c) printf(" %s", json_string_value(c));
		} else {
			printf(", matches no sysfs level");
		}
		printf("\n   ");
		json_array_foreach(json_object_get(lv, "clusters"), i, c)
			printf(" [%s]", json_string_value(c));
		printf("\n");
	}
}

/*
 * Reports the samples: min, median and max round trip over the measured
 * pairs, the number of levels, and per level its mean and cluster count.
 * Counts have no better direction; they are stored as "lower".
 */
static int report_samples(struct vtb_workload_ctx *ctx, const double *m, size_t n,
			  const struct vtb_c2c_clusters *cl, const json_t *levels)
{
	double *v = malloc(n * (n - 1) / 2 * sizeof(*v)), med;
	size_t i, j, k = 0;
	char name[64];
	int ret = -1;

	if (!v)
		return vtb_error("out of memory");
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (isfinite(m[i * n + j]))
				v[k++] = m[i * n + j];
	if (k == 0) {
		vtb_error("no pair was measured");
		goto out;
	}
	med = vtb_c2c_median(v, k); /* sorts v */
	if (vtb_report_sample(ctx, "c2c_min", "ns", v[0], VTB_BETTER_LOWER) ||
	    vtb_report_sample(ctx, "c2c_median", "ns", med, VTB_BETTER_LOWER) ||
	    vtb_report_sample(ctx, "c2c_max", "ns", v[k - 1], VTB_BETTER_LOWER) ||
	    vtb_report_sample(ctx, "c2c_levels", "count", (double)cl->n_levels, VTB_BETTER_LOWER))
		goto out;
	/* A level is named by what it is (c2c_llc_ns), not by its rank,
	 * which differs between machines: one metric per name it has. */
	for (i = 0; i < cl->n_levels; i++) {
		const struct vtb_c2c_level *lv = &cl->levels[i];
		json_t *names = json_object_get(json_array_get(levels, i), "names"), *nm;
		size_t j;

		json_array_foreach(names, j, nm)
		{
			snprintf(name, sizeof(name), "c2c_%s_ns", json_string_value(nm));
			if (isfinite(lv->mean_ns) &&
			    vtb_report_sample(ctx, name, "ns", lv->mean_ns, VTB_BETTER_LOWER))
				goto out;
			snprintf(name, sizeof(name), "c2c_%s_clusters", json_string_value(nm));
			if (vtb_report_sample(ctx, name, "count", (double)lv->n_clusters,
					      VTB_BETTER_LOWER))
				goto out;
		}
	}
	ret = 0;
out:
	free(v);
	return ret;
}

/*
 * The one-way figure of core-to-core-latency: per pair the mean of its
 * batches over two; stored as min, median and max over the pairs (a
 * second matrix would double the info), for comparison with its output.
 */
static int report_one_way(struct vtb_workload_ctx *ctx, double *one_way, size_t n)
{
	double med = vtb_c2c_median(one_way, n); /* sorts */

	if (n == 0)
		return 0;
	return vtb_report_info(ctx, "one_way_mean_ns",
			       json_pack("{s:f, s:f, s:f, s:s}", "min",
					 vtb_c2c_round_quarter(one_way[0]), "median",
					 vtb_c2c_round_quarter(med), "max",
					 vtb_c2c_round_quarter(one_way[n - 1]), "value",
					 "per pair the mean of batches / 2 (core-to-core-latency)"));
}

static void print_intro(const struct c2c_params *p, const char *cpul, const char *ts)
{
	printf("c2c: core-to-core round trips, CAS ping-pong on one cache line "
	       "(core-to-core-latency model)\n"
	       "cpus %s, %s mode%s%s: %zu pairs, batches of %lld round trips, "
	       "median of 3..%lld batches within %s per pair\n",
	       cpul, p->sampled ? "sampled" : "full",
	       p->sampled
		       ? (p->sampled_by >= 0 ? " by " : " (no smt, llc or node groups: every pair)")
		       : "",
	       p->sampled && p->sampled_by >= 0 ? vtb_c2c_kind_names[p->sampled_by] : "",
	       p->n_pairs, p->rounds, p->batches, ts);
	fflush(stdout);
}

/* Sampled by groups: the cpus that stood for their group, as a cpulist
 * (*reps NULL when the run was not sampled). */
static int representatives(const struct c2c_params *p, char **reps)
{
	struct vtb_cpuset r = { 0 };
	size_t i, n = p->use.n;

	*reps = NULL;
	if (!p->rep_of)
		return 0;
	for (i = 0; i < n; i++)
		if (p->rep_of[i] == i && vtb_cpuset_add(&r, p->use.cpus[i]))
			break;
	*reps = i == n ? vtb_cpuset_format(&r) : NULL;
	vtb_cpuset_release(&r);
	if (!*reps)
		return vtb_error("out of memory");
	return 0;
}

/* A run's figures besides the matrix and the clusters, for its info. */
struct c2c_figures {
	const char *cpul, *reps;
	double *one_way; /* per pair; report_one_way() sorts it */
	size_t min_batches, cut;
	double secs;
};

static int report_info(struct vtb_workload_ctx *ctx, const struct c2c_params *p, json_t *matrix,
		       json_t *levels, const struct c2c_figures *f)
{
	if (json_object_set_new(matrix, "value", json_string("round trip, median of batches")) ||
	    vtb_report_info(ctx, "matrix", json_incref(matrix)) ||
	    vtb_report_info(ctx, "clusters", json_incref(levels)) ||
	    vtb_report_info(ctx, "mode", json_string(p->sampled ? "sampled" : "full")) ||
	    (p->sampled &&
	     vtb_report_info(
		     ctx, "sampled_by",
		     json_string(p->sampled_by >= 0
					 ? vtb_c2c_kind_names[p->sampled_by]
					 : "nothing: no smt, llc or node groups, every pair"))) ||
	    (f->reps && vtb_report_info(ctx, "representatives", json_string(f->reps))) ||
	    vtb_report_info(ctx, "cpus", json_string(f->cpul)) ||
	    vtb_report_info(ctx, "pairs", json_integer((json_int_t)p->n_pairs)) ||
	    vtb_report_info(ctx, "time_per_pair_ns", json_integer((json_int_t)p->time)) ||
	    vtb_report_info(ctx, "rounds", json_integer(p->rounds)) ||
	    vtb_report_info(ctx, "batches_max", json_integer(p->batches)) ||
	    vtb_report_info(ctx, "batches_min_measured",
			    json_integer((json_int_t)f->min_batches)) ||
	    vtb_report_info(ctx, "batches_cut", json_integer((json_int_t)f->cut)) ||
	    report_one_way(ctx, f->one_way, p->n_pairs) ||
	    vtb_report_info(ctx, "stat", json_string("median")) ||
	    vtb_report_info(ctx, "gap_percent", json_integer(p->gap)) ||
	    vtb_report_info(ctx, "expected_seconds", json_real(p->expect)) ||
	    vtb_report_info(ctx, "measured_seconds", json_real(f->secs)))
		return -1;
	return 0;
}

static int c2c_run(void *params, struct vtb_workload_ctx *ctx)
{
	struct c2c_params *p = params;
	struct vtb_c2c_clusters cl = { 0 };
	struct vtb_c2c_topo topo = { 0 };
	struct c2c_figures f = { 0 };
	double *m = NULL;
	size_t i, n;
	json_t *matrix = NULL, *levels = NULL;
	char *cpul = NULL, *reps = NULL, *ts = NULL;
	uint64_t t0;
	int ret = -1;

	if (p->use.n == 0 && c2c_prepare(p, ctx))
		return -1;
	n = p->use.n;
	cpul = vtb_cpuset_format(&p->use);
	ts = vtb_format_time_ns(p->time);
	m = malloc(n * n * sizeof(*m));
	f.one_way = malloc((p->n_pairs ? p->n_pairs : 1) * sizeof(*f.one_way));
	if (!cpul || !ts || !m || !f.one_way) {
		vtb_error("out of memory");
		goto out;
	}
	for (i = 0; i < n * n; i++)
		m[i] = NAN;
	if (!ctx->rec)
		print_intro(p, cpul, ts);
	/* Always, records mode included: in a guest stderr is the console,
	 * where whoever waits for a long run looks. */
	fprintf(stderr, "c2c: %zu pairs x %s: expected duration about %.3f s\n", p->n_pairs, ts,
		p->expect);
	fflush(stderr);
	t0 = vtb_now_ns();
	if (measure_all(p, m, f.one_way, &f.min_batches, &f.cut))
		goto out;
	f.secs = (double)(vtb_now_ns() - t0) * 1e-9;
	if (vtb_c2c_cluster(m, n, (double)p->gap / 100.0, &cl) ||
	    vtb_c2c_topo_read(NULL, &p->use, &topo))
		goto out;
	levels = levels_json(p, &cl, &topo);
	matrix = vtb_c2c_matrix_json(&p->use, m);
	if (!levels || !matrix) {
		vtb_error("out of memory");
		goto out;
	}
	if (!ctx->rec) {
		print_matrix(&p->use, m);
		print_levels(&cl, levels);
		printf("measured in %.3f s (expected about %.3f s)\n", f.secs, p->expect);
	}
	f.cpul = cpul;
	if (report_samples(ctx, m, n, &cl, levels) || representatives(p, &reps))
		goto out;
	f.reps = reps;
	if (report_info(ctx, p, matrix, levels, &f))
		goto out;
	ret = 0;
out:
	json_decref(matrix);
	json_decref(levels);
	vtb_c2c_clusters_release(&cl);
	vtb_c2c_topo_release(&topo);
	free(m);
	free(f.one_way);
	free(cpul);
	free(reps);
	free(ts);
	release_resolved(p);
	return ret;
}

static const char *const c2c_models[] = { "c2clat", "core-to-core-latency", NULL };

const struct vtb_workload_ops vtb_workload_c2c = {
	.name = "c2c",
	.models = c2c_models,
	.summary =
		"core-to-core latency, CAS ping-pong round trips per CPU pair and their clusters (reference: core-to-core-latency, c2clat)",
	.opts = c2c_opts,
	.params_size = sizeof(struct c2c_params),
	.prepare = c2c_prepare,
	.memory_need = c2c_need,
	.run = c2c_run,
};
