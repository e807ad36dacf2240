/* SPDX-License-Identifier: MIT */
/*
 * membw: memory bandwidth by the STREAM rules (McCalpin), so results can
 * be compared with STREAM and likwid-bench stream: three arrays of
 * doubles, each at least 4x the last-level caches of the CPUs used; the
 * Copy, Scale, Add and Triad kernels; N iterations, the best (shortest)
 * of iterations 2..N per kernel; 2/2/3/3 words moved per element; MB/s
 * in 10^6 bytes; results validated by replaying the recurrence.  Regular
 * stores by default (the STREAM model); non-temporal stores on request.
 *
 * Threads are pinned one per CPU and each initialises its own slice, so
 * pages land on the thread's NUMA node (first touch), as STREAM's OpenMP
 * build does with a static schedule.
 */
#include <emmintrin.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../common/streamstat.h"
#include "../common/sysfs.h"
#include "workload.h"

#define MiB (UINT64_C(1) << 20)
#define SCALAR 3.0
#define ELEM_ALIGN 8 /* slices start on 64-byte (cache line) boundaries */

enum { K_COPY, K_SCALE, K_ADD, K_TRIAD, K_N };

static const char *const kernel_names[K_N] = { "copy", "scale", "add", "triad" };
static const unsigned kernel_words[K_N] = { 2, 2, 3, 3 };

struct membw_params {
	uint64_t size; /* bytes per array, 0 = auto */
	uint64_t llc;  /* 0 = auto (sysfs, else CPUID) */
	long long iterations;
	long long threads; /* 0 = auto */
	bool nt;
	const char *sysfs_root; /* hidden, tests: where the sysfs CPU tree is */
	bool no_cpuid;		/* hidden, tests: no CPUID fallback */
	const char *proc_root;	/* hidden, tests: where meminfo is (default /proc) */
	/* resolved by prepare */
	const char *llc_source; /* "harness", "sysfs", "cpuid", "cpuid-guess", NULL: unknown */
	bool size_auto, shrunk; /* size was auto; and cut below 4 x llc to fit memory */
	uint64_t rule;		/* 4 x llc rounded up to 1 MiB; 0 when llc is unknown */
	uint64_t avail;		/* MemAvailable when prepared */
	struct vtb_cpuset use;	/* CPUs the threads run on */
};

static const struct vtb_opt membw_opts[] = {
	{ .name = "size",
	  .type = VTB_OPT_SIZE,
	  .flags = VTB_OPT_AUTO,
	  .def = "auto",
	  .min = (long long)MiB,
	  .max = 1LL << 42,
	  .help = "bytes per array (3 arrays); auto = 4 x llc rounded up to 1MiB, less where memory is short",
	  .shortopt = 's',
	  .off = offsetof(struct membw_params, size) },
	{ .name = "llc",
	  .type = VTB_OPT_SIZE,
	  .flags = VTB_OPT_HOST_LLC,
	  .def = "auto",
	  .min = 1,
	  .max = 1LL << 42,
	  .help = "last-level cache bytes of the CPUs used; auto = sum from sysfs, else CPUID",
	  .shortopt = 'l',
	  .off = offsetof(struct membw_params, llc) },
	{ .name = "iterations",
	  .type = VTB_OPT_INT,
	  .def = "10",
	  .min = 2,
	  .max = 200,
	  .help = "runs of each kernel; the best of 2..N counts",
	  .shortopt = 'n',
	  .off = offsetof(struct membw_params, iterations) },
	{ .name = "threads",
	  .type = VTB_OPT_INT,
	  .flags = VTB_OPT_AUTO,
	  .def = "auto",
	  .min = 1,
	  .max = 65536,
	  .help = "threads, one pinned per CPU; auto = one per CPU of the affinity",
	  .shortopt = 't',
	  .off = offsetof(struct membw_params, threads) },
	{ .name = "nt",
	  .type = VTB_OPT_BOOL,
	  .def = "no",
	  .help = "non-temporal (streaming) stores instead of regular ones",
	  .off = offsetof(struct membw_params, nt) },
	{ .name = "sysfs_root",
	  .type = VTB_OPT_STR,
	  .flags = VTB_OPT_HIDDEN,
	  .help = "debug: the sysfs CPU tree llc = auto reads (default /sys/devices/system/cpu)",
	  .off = offsetof(struct membw_params, sysfs_root) },
	{ .name = "proc_root",
	  .type = VTB_OPT_STR,
	  .flags = VTB_OPT_HIDDEN,
	  .help = "debug: the directory whose meminfo says the available memory (default /proc)",
	  .off = offsetof(struct membw_params, proc_root) },
	{ .name = "no_cpuid",
	  .type = VTB_OPT_BOOL,
	  .flags = VTB_OPT_HIDDEN,
	  .help = "debug: no CPUID fallback when sysfs has no cache information",
	  .off = offsetof(struct membw_params, no_cpuid) },
	{ .name = NULL },
};

/* 4 x @llc rounded up to a mebibyte: STREAM's smallest array. */
static uint64_t rule_of(uint64_t llc)
{
	return (4 * llc + MiB - 1) / MiB * MiB;
}

/* The largest array size, in whole mebibytes, whose 3 arrays fit in
 * @avail (vtb_mem_fits()); 0 when not even one mebibyte does. */
static uint64_t fitting_size(uint64_t avail)
{
	uint64_t share = avail / 100 * VTB_MEM_SHARE_PCT;

	return share ? (share - 1) / 3 / MiB * MiB : 0;
}

/* The memory_need hook: 3 arrays.  With size and llc both auto the size
 * depends on the machine the run finds itself on. */
static int membw_need(const void *params, size_t ncpus, uint64_t *out)
{
	const struct membw_params *p = params;
	uint64_t size = p->size;

	(void)ncpus;
	if (!size && !p->llc)
		return 1;
	if (!size)
		size = p->llc > UINT64_MAX / 16 ? UINT64_MAX / 3 : rule_of(p->llc);
	*out = size > UINT64_MAX / 3 ? UINT64_MAX : 3 * size;
	return 0;
}

/* llc = auto: sysfs, else CPUID.  An explicit size needs no LLC: then an
 * unknown one only leaves the STREAM rule unchecked. */
static int resolve_llc(struct membw_params *p)
{
	char *why = NULL;
	bool guessed;

	if (p->llc) {
		p->llc_source = "harness";
		return 0;
	}
	if (vtb_sysfs_llc_bytes(p->sysfs_root, &p->use, &p->llc) == 0) {
		p->llc_source = "sysfs";
		return 0;
	}
	why = vtb_strdup(vtb_errmsg());
	if (p->no_cpuid)
		vtb_error("not tried (no_cpuid)");
	else if (vtb_cpuid_llc_bytes(&p->use, &p->llc, &guessed) == 0) {
		p->llc_source = guessed ? "cpuid-guess" : "cpuid";
		free(why);
		return 0;
	}
	p->llc = 0;
	if (p->size) {
		vtb_error_clear();
		free(why);
		return 0;
	}
	vtb_error("cannot find the llc size (pass llc=SIZE or size=SIZE): %s; CPUID: %s",
		  why ? why : "?", vtb_errmsg());
	free(why);
	return -1;
}

/*
 * Resolves threads, CPUs, llc and size, and checks memory.  size = auto
 * is 4 x llc, or the largest size whose 3 arrays fit in 80% of
 * MemAvailable when that is less (the STREAM rule is then not met, and
 * the info says by how much); an explicit size that does not fit is
 * refused.  On success p->use holds the CPUs, which run() releases; on
 * failure nothing is kept.
 */
static int membw_prepare(void *params, struct vtb_workload_ctx *ctx)
{
	struct membw_params *p = params;
	uint64_t avail = 0, need = 0, fit;
	size_t i, nthreads, min_size;
	char *need_s = NULL, *have_s = NULL;
	int ret = -1;

	vtb_cpuset_release(&p->use);
	if (ctx->cpus.n == 0) {
		vtb_error("no cpus to run on");
		goto out;
	}
	nthreads = p->threads ? (size_t)p->threads : ctx->cpus.n;
	if (nthreads > ctx->cpus.n) {
		vtb_error("'threads' is %zu but only %zu cpus are allowed (one thread per cpu)",
			  nthreads, ctx->cpus.n);
		goto out;
	}
	p->threads = (long long)nthreads;
	for (i = 0; i < nthreads; i++)
		if (vtb_cpuset_add(&p->use, ctx->cpus.cpus[i]))
			goto out;
	if (resolve_llc(p))
		goto out;
	if (p->llc > UINT64_MAX / 16) {
		vtb_error("'llc' of %" PRIu64 " bytes is too large", p->llc);
		goto out;
	}
	p->rule = p->llc ? rule_of(p->llc) : 0;
	/* Whole cache lines per thread slice; see slice(). */
	min_size = nthreads * ELEM_ALIGN * sizeof(double);
	if (vtb_meminfo(p->proc_root, NULL, &avail))
		goto out;
	p->avail = avail;
	p->size_auto = p->size == 0;
	p->shrunk = false;
	if (p->size_auto) {
		fit = fitting_size(avail);
		p->size = p->rule;
		if (fit < p->size) {
			p->size = fit;
			p->shrunk = true;
		}
	}
	if (p->size < min_size) {
		if (p->size_auto)
			vtb_error(
				"no array size fits: 3 arrays of even %zu bytes need more than %d%% of the available memory (%" PRIu64
				" bytes)",
				min_size, VTB_MEM_SHARE_PCT, avail);
		else
			vtb_error("'size' of %" PRIu64 " bytes is too small for %zu threads",
				  p->size, nthreads);
		goto out;
	}
	if (membw_need(p, nthreads, &need) != 0 || !vtb_mem_fits(need, avail)) {
		need_s = vtb_format_size(p->size);
		have_s = vtb_format_size(avail);
		vtb_error("3 arrays of %s need more than %d%% of the available memory (%s)",
			  need_s ? need_s : "?", VTB_MEM_SHARE_PCT, have_s ? have_s : "?");
		goto out;
	}
	ret = 0;
out:
	if (ret)
		vtb_cpuset_release(&p->use);
	free(need_s);
	free(have_s);
	return ret;
}

struct membw_shared {
	double *a, *b, *c;
	size_t n; /* elements per array, a multiple of ELEM_ALIGN */
	size_t nthreads;
	long long iterations;
	bool nt;
	pthread_barrier_t barrier;
	/* Start gate: threads wait until all exist (go = 1) or the start
	 * failed (go = -1), so nobody is left stuck at a barrier. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int go;
	double times[K_N][200];
};

struct membw_thread {
	struct membw_shared *sh;
	size_t id;
	pthread_t tid;
};

/* Thread @id's slice [*lo, *hi): contiguous, cache-line aligned. */
static void slice(const struct membw_shared *sh, size_t id, size_t *lo, size_t *hi)
{
	size_t lines = sh->n / ELEM_ALIGN;

	*lo = lines * id / sh->nthreads * ELEM_ALIGN;
	*hi = lines * (id + 1) / sh->nthreads * ELEM_ALIGN;
}

/*
 * The kernels work a cache line (8 doubles, four SSE2 vectors) per step:
 * SSE2 is baseline x86-64, so this is what every x86-64 CPU (and the
 * kvm64 guest model) runs, it matches likwid-bench stream_sse, and it
 * does not depend on whether the compiler vectorises at -O2.  Slices
 * are whole cache lines and 64-byte aligned, so there is no tail.
 * STORE is _mm_store_pd (regular stores, the STREAM model) or
 * _mm_stream_pd (non-temporal, option nt).
 */
#define LINE_LOOP(STORE, EXPR)                               \
	for (size_t j = lo; j < hi; j += ELEM_ALIGN) {       \
		for (size_t q = 0; q < ELEM_ALIGN; q += 2) { \
			size_t i = j + q;                    \
			STORE(&dst[i], EXPR);                \
		}                                            \
	}

#define LD(p) _mm_load_pd(&(p)[i])

static void k_copy(double *dst, const double *a, size_t lo, size_t hi, bool nt)
{
	if (nt) {
		LINE_LOOP(_mm_stream_pd, LD(a));
		_mm_sfence();
	} else {
		LINE_LOOP(_mm_store_pd, LD(a));
	}
}

static void k_scale(double *dst, const double *c, size_t lo, size_t hi, bool nt)
{
	const __m128d s = _mm_set1_pd(SCALAR);

	if (nt) {
		LINE_LOOP(_mm_stream_pd, _mm_mul_pd(s, LD(c)));
		_mm_sfence();
	} else {
		LINE_LOOP(_mm_store_pd, _mm_mul_pd(s, LD(c)));
	}
}

static void k_add(double *dst, const double *a, const double *b, size_t lo, size_t hi, bool nt)
{
	if (nt) {
		LINE_LOOP(_mm_stream_pd, _mm_add_pd(LD(a), LD(b)));
		_mm_sfence();
	} else {
		LINE_LOOP(_mm_store_pd, _mm_add_pd(LD(a), LD(b)));
	}
}

static void k_triad(double *dst, const double *b, const double *c, size_t lo, size_t hi, bool nt)
{
	const __m128d s = _mm_set1_pd(SCALAR);

	if (nt) {
		LINE_LOOP(_mm_stream_pd, _mm_add_pd(LD(b), _mm_mul_pd(s, LD(c))));
		_mm_sfence();
	} else {
		LINE_LOOP(_mm_store_pd, _mm_add_pd(LD(b), _mm_mul_pd(s, LD(c))));
	}
}

static void run_kernel(struct membw_shared *sh, int k, size_t lo, size_t hi)
{
	double *a = sh->a, *b = sh->b, *c = sh->c;

	switch (k) {
	case K_COPY:
		k_copy(c, a, lo, hi, sh->nt);
		break;
	case K_SCALE:
		k_scale(b, c, lo, hi, sh->nt);
		break;
	case K_ADD:
		k_add(c, a, b, lo, hi, sh->nt);
		break;
	case K_TRIAD:
		k_triad(a, b, c, lo, hi, sh->nt);
		break;
	}
}

static void *membw_thread(void *arg)
{
	struct membw_thread *t = arg;
	struct membw_shared *sh = t->sh;
	size_t lo, hi, j;
	long long it;
	int k;

	pthread_mutex_lock(&sh->lock);
	while (sh->go == 0)
		pthread_cond_wait(&sh->cond, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
	if (sh->go < 0)
		return NULL;
	slice(sh, t->id, &lo, &hi);
	/* First touch: this thread's pages on this thread's node. */
	for (j = lo; j < hi; j++) {
		sh->a[j] = 1.0;
		sh->b[j] = 2.0;
		sh->c[j] = 0.0;
	}
	for (it = 0; it < sh->iterations; it++) {
		for (k = 0; k < K_N; k++) {
			uint64_t t0 = 0;

			/*
			 * What is timed: thread 0 reads the clock while every
			 * thread waits at the start gate (no slice can begin
			 * before t0: a thread released first by a barrier
			 * would otherwise start early and inflate the figure,
			 * by more where wake-ups are slow, as in guests), and
			 * again once the last thread has finished its slice
			 * (it leaves the end barrier only then).  So the
			 * interval covers the whole array moved by all
			 * threads plus one barrier wake-up, like STREAM's
			 * timer around an OpenMP parallel loop with its
			 * implicit barrier.  Arrays of >= 4x the LLC make
			 * that overhead small and keep the data out of the
			 * caches between kernels.
			 */
			pthread_barrier_wait(&sh->barrier);
			if (t->id == 0)
				t0 = vtb_now_ns();
			pthread_barrier_wait(&sh->barrier); /* the start gate */
			run_kernel(sh, k, lo, hi);
			pthread_barrier_wait(&sh->barrier);
			if (t->id == 0)
				sh->times[k][it] = (double)(vtb_now_ns() - t0) * 1e-9;
		}
	}
	return NULL;
}

/* checkSTREAMresults: replay the scalar recurrence and compare the mean
 * absolute error of each array with epsilon (1e-13 for doubles). */
static int validate(const struct membw_shared *sh)
{
	const double eps = 1e-13;
	double aj = 1.0, bj = 2.0, cj = 0.0;
	double ea = 0, eb = 0, ec = 0;
	const double *arr[3] = { sh->a, sh->b, sh->c };
	const char *names[3] = { "a", "b", "c" };
	double exp[3], err[3];
	long long it;
	size_t j;
	int i;

	for (it = 0; it < sh->iterations; it++) {
		cj = aj;
		bj = SCALAR * cj;
		cj = aj + bj;
		aj = bj + SCALAR * cj;
	}
	for (j = 0; j < sh->n; j++) {
		ea += fabs(sh->a[j] - aj);
		eb += fabs(sh->b[j] - bj);
		ec += fabs(sh->c[j] - cj);
	}
	exp[0] = aj;
	exp[1] = bj;
	exp[2] = cj;
	err[0] = ea / (double)sh->n;
	err[1] = eb / (double)sh->n;
	err[2] = ec / (double)sh->n;
	for (i = 0; i < 3; i++) {
		double rel = fabs(err[i] / exp[i]);

		if (!(rel <= eps)) {
			for (j = 0; j < sh->n; j++)
				if (fabs(arr[i][j] - exp[i]) / fabs(exp[i]) > eps)
					break;
			return vtb_error(
				"validation failed: array %s mean relative error %g exceeds %g (first bad element %zu: %.17g, expected %.17g)",
				names[i], rel, eps, j, j < sh->n ? arr[i][j] : 0.0, exp[i]);
		}
	}
	return 0;
}

static double *map_array(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* What the STREAM rule (arrays >= 4 x the LLC) came to, for the header
 * and the info: "met", "below STREAM rule" or "unknown". */
static const char *rule_state(const struct membw_params *p, uint64_t bytes)
{
	if (!p->llc)
		return "unknown";
	return bytes < 4 * p->llc ? "below STREAM rule" : "met";
}

static void print_header(const struct membw_params *p, const struct membw_shared *sh)
{
	uint64_t bytes = (uint64_t)(sh->n * sizeof(double));
	char *as = vtb_format_size(p->size), *ls = vtb_format_size(p->llc);
	char *rs = vtb_format_size(4 * p->llc);
	char *cl = vtb_cpuset_format(&p->use);

	printf("membw: STREAM rules, %s stores\n", p->nt ? "non-temporal" : "regular");
	printf("Array size = %zu elements, %" PRIu64 " bytes (%s) per array, 3 arrays%s\n", sh->n,
	       bytes, as ? as : "?", p->shrunk ? " (auto: the most that fits the memory)" : "");
	if (p->llc)
		printf("LLC sum used = %" PRIu64 " bytes (%s, from %s) for cpus %s\n", p->llc,
		       ls ? ls : "?", p->llc_source, cl ? cl : "?");
	else
		printf("LLC sum unknown for cpus %s (no cache information in sysfs nor CPUID)\n",
		       cl ? cl : "?");
	if (p->llc && bytes < 4 * p->llc)
		printf("Arrays below the STREAM rule: 4 x LLC = %s, these are %.1f%% of it\n",
		       rs ? rs : "?", 100.0 * (double)bytes / (4.0 * (double)p->llc));
	printf("Threads = %lld, iterations = %lld (best of 2..%lld)\n", p->threads, p->iterations,
	       p->iterations);
	free(as);
	free(ls);
	free(rs);
	free(cl);
}

/* The arrays (p->size bytes each, whole cache lines) and the start gate. */
static int shared_init(const struct membw_params *p, struct membw_shared *sh)
{
	size_t bytes;

	sh->nthreads = (size_t)p->threads;
	pthread_mutex_init(&sh->lock, NULL);
	pthread_cond_init(&sh->cond, NULL);
	sh->iterations = p->iterations;
	sh->nt = p->nt;
	sh->n = (size_t)(p->size / sizeof(double)) / ELEM_ALIGN * ELEM_ALIGN;
	bytes = sh->n * sizeof(double);
	sh->a = map_array(bytes);
	sh->b = map_array(bytes);
	sh->c = map_array(bytes);
	if (!sh->a || !sh->b || !sh->c)
		return vtb_error("cannot map 3 arrays of %zu bytes: %s", bytes, strerror(errno));
	return 0;
}

/* Accepts NULL. */
static void shared_free(struct membw_shared *sh)
{
	size_t bytes;

	if (!sh)
		return;
	bytes = sh->n * sizeof(double);
	pthread_mutex_destroy(&sh->lock);
	pthread_cond_destroy(&sh->cond);
	if (sh->a)
		munmap(sh->a, bytes);
	if (sh->b)
		munmap(sh->b, bytes);
	if (sh->c)
		munmap(sh->c, bytes);
	free(sh);
}

/*
 * One thread per cpu of p->use, pinned to it.  The gate opens when all
 * exist (or closes when one could not start, so none waits at a barrier
 * for it); the kernels' times are in sh->times once all are joined.
 */
static int run_threads(const struct membw_params *p, struct membw_shared *sh,
		       struct membw_thread *th)
{
	size_t i, started = 0;
	int err;

	err = pthread_barrier_init(&sh->barrier, NULL, (unsigned)sh->nthreads);
	if (err)
		return vtb_error("cannot create a barrier: %s", strerror(err));
	for (i = 0; i < sh->nthreads; i++) {
		pthread_attr_t attr;
		cpu_set_t *set;
		size_t setsz;
		int cpu = p->use.cpus[i];

		th[i].sh = sh;
		th[i].id = i;
		set = CPU_ALLOC((size_t)cpu + 1);
		if (!set) {
			vtb_error("out of memory");
			break;
		}
		setsz = CPU_ALLOC_SIZE((size_t)cpu + 1);
		CPU_ZERO_S(setsz, set);
		CPU_SET_S((size_t)cpu, setsz, set);
		err = pthread_attr_init(&attr);
		if (!err)
			err = pthread_attr_setaffinity_np(&attr, setsz, set);
		if (!err)
			err = pthread_create(&th[i].tid, &attr, membw_thread, &th[i]);
		pthread_attr_destroy(&attr);
		CPU_FREE(set);
		if (err) {
			vtb_error("cannot start a thread on cpu %d: %s", cpu, strerror(err));
			break;
		}
		started++;
	}
	pthread_mutex_lock(&sh->lock);
	sh->go = started == sh->nthreads ? 1 : -1;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	for (i = 0; i < started; i++)
		pthread_join(th[i].tid, NULL);
	pthread_barrier_destroy(&sh->barrier);
	return started < sh->nthreads ? -1 : 0;
}

/*
 * STREAM's table and two samples per kernel: its best rate under the
 * kernel's name (STREAM's rule) and its mean rate as <kernel>_mean
 * (likwid-bench's reading), the four best rates first; each kernel's
 * figures into @kernels for the info.
 */
static int report_kernels(struct vtb_workload_ctx *ctx, const struct membw_shared *sh,
			  json_t *kernels)
{
	size_t bytes = sh->n * sizeof(double);
	struct vtb_stream_stat st[K_N];
	char name[32];
	int k;

	if (!ctx->rec)
		printf("Function    Best Rate MB/s  Avg time     Min time     Max time  Mean Rate MB/s\n");
	for (k = 0; k < K_N; k++) {
		/* bytes moved: 2 arrays for copy and scale, 3 for add and triad */
		double moved = (double)kernel_words[k] * (double)bytes;

		if (vtb_stream_stat(sh->times[k], (size_t)sh->iterations, moved, &st[k]))
			return vtb_error("kernel %s: %s", kernel_names[k], vtb_errmsg());
		if (!ctx->rec)
			printf("%-8s %14.1f  %11.6f  %11.6f  %11.6f  %14.1f\n", kernel_names[k],
			       st[k].best_rate, st[k].avg_s, st[k].best_s, st[k].max_s,
			       st[k].mean_rate);
		if (json_object_set_new(kernels, kernel_names[k],
					json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "bytes_moved",
						  moved, "best_s", st[k].best_s, "avg_s",
						  st[k].avg_s, "max_s", st[k].max_s, "best_mb_s",
						  st[k].best_rate, "mean_mb_s", st[k].mean_rate)))
			return vtb_error("out of memory");
		if (vtb_report_sample(ctx, kernel_names[k], "MB/s", st[k].best_rate,
				      VTB_BETTER_HIGHER))
			return -1;
	}
	for (k = 0; k < K_N; k++) {
		snprintf(name, sizeof(name), "%s_mean", kernel_names[k]);
		if (vtb_report_sample(ctx, name, "MB/s", st[k].mean_rate, VTB_BETTER_HIGHER))
			return -1;
	}
	return 0;
}

/* The run's provenance: sizes, the STREAM rule, threads and stores. */
static int report_info(struct vtb_workload_ctx *ctx, const struct membw_params *p, size_t bytes,
		       json_t *kernels)
{
	char *cl = vtb_cpuset_format(&p->use);
	int ret = -1;

	if (!cl)
		return vtb_error("out of memory");
	if (vtb_report_info(ctx, "array_bytes", json_integer((json_int_t)bytes)) ||
	    vtb_report_info(ctx, "size_source",
			    json_string(!p->size_auto ? "given"
					: p->shrunk   ? "auto, the most that fits the memory"
						      : "auto")) ||
	    vtb_report_info(ctx, "llc_bytes",
			    p->llc ? json_integer((json_int_t)p->llc) : json_null()) ||
	    vtb_report_info(ctx, "llc_source",
			    p->llc_source ? json_string(p->llc_source) : json_null()) ||
	    vtb_report_info(ctx, "stream_rule", json_string(rule_state(p, bytes))) ||
	    (p->llc &&
	     vtb_report_info(ctx, "stream_rule_bytes", json_integer((json_int_t)(4 * p->llc)))) ||
	    (p->llc && bytes < 4 * p->llc &&
	     vtb_report_info(ctx, "stream_rule_pct",
			     json_real(100.0 * (double)bytes / (4.0 * (double)p->llc)))) ||
	    vtb_report_info(ctx, "memory_available", json_integer((json_int_t)p->avail)) ||
	    vtb_report_info(ctx, "kernels", json_incref(kernels)) ||
	    vtb_report_info(ctx, "threads", json_integer(p->threads)) ||
	    vtb_report_info(ctx, "cpus", json_string(cl)) ||
	    vtb_report_info(ctx, "iterations", json_integer(p->iterations)) ||
	    vtb_report_info(ctx, "stores", json_string(p->nt ? "non-temporal" : "regular")) ||
	    vtb_report_info(ctx, "validated", json_true()))
		goto out;
	ret = 0;
out:
	free(cl);
	return ret;
}

static int membw_run(void *params, struct vtb_workload_ctx *ctx)
{
	struct membw_params *p = params;
	struct membw_shared *sh = NULL;
	struct membw_thread *th = NULL;
	json_t *kernels = NULL;
	int ret = -1;

	if (p->use.n == 0 && membw_prepare(p, ctx))
		return -1;
	sh = calloc(1, sizeof(*sh));
	th = calloc((size_t)p->threads, sizeof(*th));
	if (!sh || !th) {
		vtb_error("out of memory");
		goto out;
	}
	if (shared_init(p, sh))
		goto out;
	if (!ctx->rec)
		print_header(p, sh);
	if (run_threads(p, sh, th) || validate(sh))
		goto out;
	kernels = json_object();
	if (!kernels) {
		vtb_error("out of memory");
		goto out;
	}
	if (report_kernels(ctx, sh, kernels) ||
	    report_info(ctx, p, sh->n * sizeof(double), kernels))
		goto out;
	ret = 0;
out:
	json_decref(kernels);
	shared_free(sh);
	free(th);
	vtb_cpuset_release(&p->use);
	return ret;
}

static const char *const membw_models[] = { "stream", "likwid-bench", NULL };

const struct vtb_workload_ops vtb_workload_membw = {
	.name = "membw",
	.models = membw_models,
	.summary = "memory bandwidth by the STREAM rules (reference: STREAM, likwid-bench stream)",
	.opts = membw_opts,
	.params_size = sizeof(struct membw_params),
	.prepare = membw_prepare,
	.memory_need = membw_need,
	.memory_keys = "size",
	.run = membw_run,
};
