/* SPDX-License-Identifier: MIT */
/*
 * calibrate VTBENCH [SEEDS [WORKERS]]: how compare's verdicts behave on
 * generated campaigns, through the binary (make bench; figures only, no
 * assertion).  Each seed of a case writes a database with one campaign:
 * a bare-metal baseline and a VM configuration (compare's default pairs
 * them), one cell of 24 metrics -- 8 rates (MB/s, higher is better), 8
 * times (s) and 8 latencies (us, lower is better) --, per-boot values of
 * a given CoV, the VM's worse than the baseline's by a given change
 * (rates lower by the ratio, times and latencies higher).  Then
 * `VTBENCH compare --format json` decides (its exit code and its rows).
 * The cases (names as CAL_CASES matches them):
 *
 *   fa-normal-*: false alarms: identical sides, tables (campaigns) that
 *     exit 1, CoV 2% and 10%; fa-lognormal-* the same for lognormal data,
 *     fa-slow5-* for normal data with 5% of the boots 3x slower (rates /
 *     3, times and latencies x 3) at random on both sides: a robust rule
 *     must not turn those into alarms;
 *   power-*: every row changed by 5, 10 or 30%, the share of rows found
 *     worse (and of tables exiting 1);
 *   n = 3, 5, 10 boots a side, and reps = auto (min_reps 3, max_reps 40):
 *     the campaign grows one interleaved round at a time and the same
 *     library calls as `vtbench run` (vtb_compare_build, then
 *     vtb_compare_pending) decide whether it goes on; the median boots a
 *     side it took are reported;
 *   slowboot-*: CoV 2%, every row 10% worse, n = 10: one baseline boot,
 *     or one candidate boot, 3x slower; then 5% of the boots of both
 *     sides 3x slower, n = 5 and 10 (issue 26);
 *   coverage: the share of rows whose interval holds the true change, at
 *     CoV 10% and a 10% change, for normal (the power-* cases),
 *     lognormal, contaminated (10% of boots slowed by up to 4 CoVs) and
 *     slow5 data (5% of boots 3x slower, which keeps the true change);
 *   tails-*: another campaign kind: each boot 20,000 request latencies
 *     (lognormal, median 100 us, sigma 0.25) in a log-linear histogram
 *     stored as a "hist" record of metric "lat", and the samples lat_p50,
 *     lat_p99, lat_p999 and lat_max (us) read from it; in a boot with
 *     stalls 1% of the requests are 10-15x slower.  n = 10: T0 no stalls
 *     and stalls in 1 boot a side (nulls), T1 stalls in 2 VM boots, T2 in
 *     4; the share of tables whose tail rows are found worse.
 *
 * The goals printed at the end are docs/statistics.md's and issue 26's.
 * Environment: CAL_CASES, comma-separated substrings of case names, runs
 * the cases matching any (figures as in the whole run: a case's index
 * seeds it); CAL_ARGS, words split on spaces, are further arguments of
 * each `compare` run (argv entries, no shell; reps = auto still decides
 * in-process with the default options).
 *
 * Workers (default: the online CPUs) take the next case not taken; each
 * seed's values come from its own generator, so the figures do not depend
 * on the split.  Databases live in $TMPDIR (tmpfs makes their fsyncs free).
 */
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/hist.h"
#include "../../harness/compare/compare.h"
#include "../../harness/store/store.h"

extern char **environ;

#define NMETRIC 24
#define MIN_REPS 3
#define MAX_REPS 40

/* SLOW5: normal, and each boot, with probability 5%, 3x slower in all
 * its metrics (a boot that landed badly: rates / 3, times x 3) */
enum dist { NORMAL, LOGNORMAL, CONTAMINATED, SLOW5, N_DIST };
static const char *const dist_name[] = { "normal", "lognormal", "contaminated", "5% boots x3" };
static const char *const dist_key[] = { "normal", "lognormal", "contaminated", "slow5" };

struct kase {
	char name[40]; /* what CAL_CASES matches */
	double cov, change;
	int n; /* boots a side; 0: reps = auto */
	enum dist dist;
	/* boots a side (baseline, VM) picked at random to be 3x slower, or
	 * (tails) to carry stalls */
	int odd[2];
	bool tails; /* a tails campaign: 4 latency rows and a histogram */
	bool run;   /* selected by CAL_CASES */
};

#define MAX_CASES 128
#define MAX_ARGS 32

/* What the workers add up, per case (in shared memory). */
struct tally {
	long tables, exit1, rows, worse, covered, ci_rows, covered_fcr, fcr_rows, boots[4096],
		nboots;
	long errors;
	long tail_rows[4], tail_worse[4]; /* per tail_metric[] */
	/* log p999 of boots without [0] and with [1] stalls: what they do */
	double p999_log[2];
	long p999_n[2];
};

/* Tails campaigns: each boot's request latencies, a lognormal body
 * (median 100 us, sigma 0.25), go into a histogram (stored as a "hist"
 * record of metric "lat", ns) and its percentiles into samples, as the
 * wakeup workload does.  A stall makes a request 10-15x slower. */
#define TAIL_REQUESTS 20000
#define TAIL_STALL_P 0.01
static const char *const tail_metric[] = { "lat_p50", "lat_p99", "lat_p999", "lat_max" };
static const double tail_pct[] = { 50, 99, 99.9, 100 /* the max */ };

static const char *vtbench;
static char dir[256], template_db[300];
static struct kase cases[MAX_CASES];
static size_t nc;
/* CAL_ARGS: further compare arguments, after the calibration's own */
static char *extra_args[MAX_ARGS];
static size_t n_extra;

static enum vtb_metric_class class_of(int m)
{
	return m < 8 ? VTB_MC_THROUGHPUT : m < 16 ? VTB_MC_TIME : VTB_MC_LATENCY;
}

/* The VM's scale against the baseline's: worse by @change in each sense. */
static double factor(int m, double change)
{
	return class_of(m) == VTB_MC_THROUGHPUT ? 1 / (1 + change) : 1 + change;
}

static double draw(gsl_rng *r, enum dist d, double scale, double cov)
{
	double s = sqrt(log1p(cov * cov)), v = 0;

	switch (d) {
	case NORMAL:
	case SLOW5: /* boot() slows the boot */
	case N_DIST:
		v = scale * (1 + gsl_ran_gaussian(r, cov));
		break;
	case LOGNORMAL:
		v = scale * exp(gsl_ran_gaussian(r, s) - s * s / 2);
		break;
	case CONTAMINATED:
		v = scale * (1 + gsl_ran_gaussian(r, cov));
		if (gsl_rng_uniform(r) < 0.1)
			v += scale * cov * 4 * gsl_rng_uniform(r);
		break;
	}
	return v > 0 ? v : scale * 1e-3;
}

static const char *const keys[2] = { "00000000000000b1", "000000000000c001" };

static int begin(struct vtb_store *st, int64_t *campaign)
{
	struct vtb_host_info h = { .hostname = "calibration",
				   .cpu_vendor = "GenuineIntel",
				   .topo_digest = "0",
				   .kernel = "6.1.0" };
	struct vtb_config cf[2];
	struct vtb_cell ce[2];
	struct vtb_matrix m = { .path = (char *)"calibration.conf", .configs = cf, .n_configs = 2 };
	struct vtb_campaign_info ci = { .uuid = "ca11b4a7-0000-4000-8000-000000000000",
					.matrix_path = "calibration.conf",
					.matrix_text = "",
					.matrix_digest = "ca11",
					.version = "calibrate",
					.cmdline = "calibrate",
					.started_ns = 1 };
	int ret;

	if (vtb_store_host(st, &h, &ci.host_id) < 0)
		return -1;
	memset(cf, 0, sizeof(cf));
	memset(ce, 0, sizeof(ce));
	for (int i = 0; i < 2; i++) {
		snprintf(cf[i].key, sizeof(cf[i].key), "%s", keys[i]);
		cf[i].kind = i ? VTB_CONFIG_VM : VTB_CONFIG_BASELINE;
		cf[i].label = (char *)(i ? "vm vcpus=2" : "baseline cpus=2");
		cf[i].params_json = (char *)(i ? "{\"vcpus\":\"2\"}" : "{\"cpus\":\"2\"}");
		cf[i].mems = (char *)"0";
		cf[i].runnable = true;
		if (vtb_cpuset_parse("0-1", &cf[i].cpus) < 0)
			return -1;
		cf[i].cells = &ce[i];
		cf[i].n_cells = 1;
		snprintf(ce[i].key, sizeof(ce[i].key), "ce11%012d", i);
		ce[i].name = (char *)"cell";
		ce[i].workload = (char *)"synthetic";
		ce[i].params_json = ce[i].resolved_json = (char *)"{}";
	}
	ret = vtb_store_campaign_begin(st, &ci, &m, campaign);
	vtb_cpuset_release(&cf[0].cpus);
	vtb_cpuset_release(&cf[1].cpus);
	return ret;
}

static const char *metric_name(int m)
{
	static char names[NMETRIC][16];

	if (!names[m][0])
		snprintf(names[m], sizeof(names[m]), "%s%d",
			 class_of(m) == VTB_MC_THROUGHPUT ? "rate"
			 : class_of(m) == VTB_MC_TIME	  ? "time"
							  : "lat_p50_",
			 m % 8);
	return names[m];
}

/* A tails boot's histogram into @h and @hr (whose JSON the caller frees),
 * its 4 samples into @s; @stalls: TAIL_STALL_P of its requests stall. */
static int tail_boot(gsl_rng *r, bool stalls, char *cell, struct vtb_rs_sample *s,
		     struct vtb_hist *h, struct vtb_rs_hist *hr)
{
	json_t *params, *buckets;

	if (vtb_hist_init(h, VTB_HIST_BITS_DEFAULT, "ns") < 0)
		return -1;
	for (int i = 0; i < TAIL_REQUESTS; i++) {
		double v = 1e5 * exp(gsl_ran_gaussian_ziggurat(r, 0.25));

		if (stalls && gsl_rng_uniform(r) < TAIL_STALL_P)
			v *= gsl_ran_flat(r, 10, 15);
		vtb_hist_add(h, (uint64_t)llround(v));
	}
	for (size_t m = 0; m < VTB_ARRAY_SIZE(tail_metric); m++) {
		uint64_t ns = tail_pct[m] == 100 ? h->max : vtb_hist_percentile(h, tail_pct[m]);

		s[m] = (struct vtb_rs_sample){ .cell = cell,
					       .metric = (char *)tail_metric[m],
					       .unit = (char *)"us",
					       .value = (double)ns / 1e3,
					       .better = 0 };
	}
	params = vtb_hist_params_json(h);
	buckets = vtb_hist_buckets_json(h);
	/* canonical, as the record parser stores them */
	*hr = (struct vtb_rs_hist){
		.cell = cell,
		.metric = (char *)"lat",
		.unit = (char *)"ns",
		.params_json = params ? json_dumps(params, JSON_SORT_KEYS | JSON_COMPACT) : NULL,
		.buckets_json = buckets ? json_dumps(buckets, JSON_SORT_KEYS | JSON_COMPACT) : NULL
	};
	json_decref(params);
	json_decref(buckets);
	if (!hr->params_json || !hr->buckets_json)
		return vtb_error("out of memory");
	return 0;
}

/* Boot @rep of configuration @side (0 baseline, 1 VM); @slow: 3x slower,
 * or (tails) stalls. */
static int boot(struct vtb_store *st, int64_t campaign, int side, int rep, gsl_rng *r,
		const struct kase *k, bool slow, struct tally *t)
{
	struct vtb_rs_sample s[NMETRIC];
	char cell[17], uuid[37];
	struct vtb_rs_cell c = { .cell = cell,
				 .workload = (char *)"synthetic",
				 .status = (char *)"ok",
				 .info_json = (char *)"{}" };
	struct vtb_boot_records rec = {
		.cells = &c, .n_cells = 1, .samples = s, .n_samples = NMETRIC
	};
	struct vtb_boot_info b = { .campaign_id = campaign,
				   .uuid = uuid,
				   .config_key = keys[side],
				   .rep = rep,
				   .status = "ok",
				   .started_ns = 1 + rep,
				   .ended_ns = 2 + rep };
	struct vtb_vm_boot_info vm = { .accelerator = "kvm", .vms = 1 };
	struct vtb_hist h = { 0 };
	struct vtb_rs_hist hr = { 0 };
	int ret;

	snprintf(cell, sizeof(cell), "ce11%012d", side);
	snprintf(uuid, sizeof(uuid), "ca11b4a7-0000-4000-8000-%04x%08x", side, rep);
	if (side)
		b.vm = &vm;
	if (k->tails) {
		rec.n_samples = VTB_ARRAY_SIZE(tail_metric);
		rec.hists = &hr;
		rec.n_hists = 1;
		ret = tail_boot(r, slow, cell, s, &h, &hr);
		t->p999_log[slow] += log(s[2].value);
		t->p999_n[slow]++;
		if (!ret)
			ret = vtb_store_boot(st, &b, &rec);
		vtb_hist_release(&h);
		free(hr.params_json);
		free(hr.buckets_json);
		return ret;
	}
	if (k->dist == SLOW5 && gsl_rng_uniform(r) < 0.05)
		slow = true;
	for (int m = 0; m < NMETRIC; m++) {
		double scale = 100 * (side ? factor(m, k->change) : 1), v;
		bool rate = class_of(m) == VTB_MC_THROUGHPUT;

		v = draw(r, k->dist, scale, k->cov);
		if (slow)
			v = rate ? v / 3 : v * 3;

		s[m] = (struct vtb_rs_sample){ .cell = cell,
					       .metric = (char *)metric_name(m),
					       .unit = (char *)(rate ? "MB/s"
								: class_of(m) == VTB_MC_TIME
									? "s"
									: "us"),
					       .value = v,
					       .better = rate };
	}
	return vtb_store_boot(st, &b, &rec);
}

/* reps = auto: undecided rows after the boots so far (the runner's rule). */
static int undecided(struct vtb_store *st, const char *db, bool *more)
{
	struct vtb_compare_opts o;
	json_t *doc = NULL;
	bool bad = false;
	size_t n = 0;
	int ret;

	vtb_compare_opts_default(&o);
	more[0] = more[1] = false;
	if (vtb_compare_build(st, db, NULL, NULL, &o, &doc, &bad) < 0)
		return -1;
	ret = vtb_compare_pending(doc, keys, 2, more, &n);
	json_decref(doc);
	return ret < 0 ? -1 : (int)n;
}

/* The binary's verdict on @db: its exit code, its rows into @t. */
static int verdict(const char *db, const struct kase *k, struct tally *t)
{
	char out[300], *argv[6 + MAX_ARGS + 1] = {
		(char *)vtbench, (char *)"compare",  (char *)"--db",
		(char *)db,	 (char *)"--format", (char *)"json",
	};
	posix_spawn_file_actions_t fa;
	json_error_t e;
	json_t *doc, *r;
	int status, rc;
	pid_t pid;
	size_t i;

	if (snprintf(out, sizeof(out), "%s.json", db) >= (int)sizeof(out))
		return -1;
	memcpy(argv + 6, extra_args, n_extra * sizeof(*argv));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawn(&pid, vtbench, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return vtb_error("cannot run %s: %s", vtbench, strerror(rc));
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) > 1) {
		unlink(out);
		return vtb_error("%s compare --db %s failed (%s %d%s)", vtbench, db,
				 WIFSIGNALED(status) ? "signal" : "exit",
				 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
				 n_extra && WIFEXITED(status) ? "; CAL_ARGS?" : "");
	}
	doc = json_load_file(out, 0, &e);
	unlink(out);
	if (!doc)
		return vtb_error("%s: %s", out, e.text);
	t->tables++;
	t->exit1 += WEXITSTATUS(status) == 1;
	json_array_foreach(json_object_get(doc, "rows"), i, r)
	{
		const char *m = json_string_value(json_object_get(r, "metric")), *v;
		/* the row's own 95% interval (row_ci_*), else (a vtbench before
		 * issue 26) the one it has; and the one the verdict reads, at the
		 * table's FCR level (ci_*) */
		json_t *lo = json_object_get(r, "row_ci_low_pct"),
		       *hi = json_object_get(r, "row_ci_high_pct"),
		       *flo = json_object_get(r, "ci_low_pct"),
		       *fhi = json_object_get(r, "ci_high_pct");
		int idx;
		double truth;

		v = json_string_value(json_object_get(r, "verdict"));
		if (k->tails) {
			for (idx = 0; idx < 4 && strcmp(tail_metric[idx], m ? m : ""); idx++)
				;
			if (idx == 4 || !v)
				continue;
			t->tail_rows[idx]++;
			t->tail_worse[idx] += !strcmp(v, "worse");
			t->errors += !strcmp(v, "error") || !strcmp(v, "missing");
			continue;
		}
		for (idx = 0; idx < NMETRIC && strcmp(metric_name(idx), m ? m : ""); idx++)
			;
		if (idx == NMETRIC || !v)
			continue;
		t->rows++;
		t->worse += !strcmp(v, "worse");
		t->errors += !strcmp(v, "error") || !strcmp(v, "missing");
		truth = (factor(idx, k->change) - 1) * 100;
		if (json_is_number(flo) && json_is_number(fhi)) {
			t->fcr_rows++;
			t->covered_fcr += json_number_value(flo) <= truth &&
					  truth <= json_number_value(fhi);
		}
		if (!lo && !hi) {
			lo = flo;
			hi = fhi;
		}
		if (json_is_number(lo) && json_is_number(hi)) {
			t->ci_rows++;
			t->covered += json_number_value(lo) <= truth &&
				      truth <= json_number_value(hi);
		}
	}
	json_decref(doc);
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;
	int ret = 0;

	if (!in || !out)
		ret = vtb_error("cannot copy '%s' to '%s': %s", from, to, strerror(errno));
	while (!ret && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			ret = vtb_error("cannot write '%s': %s", to, strerror(errno));
	if (in)
		fclose(in);
	if (out && fclose(out))
		ret = vtb_error("cannot write '%s': %s", to, strerror(errno));
	return ret;
}

/* The worker's empty campaign, checkpointed into one file to copy. */
static int make_template(void)
{
	struct vtb_store *st = NULL;
	int64_t campaign;
	int ret;

	snprintf(template_db, sizeof(template_db), "%s/template-%d.db", dir, getpid());
	ret = vtb_store_open(template_db, &st) < 0 || begin(st, &campaign) < 0 ? -1 : 0;
	vtb_store_close(st);
	if (!ret && campaign != 1)
		ret = vtb_error("the template's campaign is %lld, not 1", (long long)campaign);
	return ret;
}

static int one_seed(const struct kase *k, unsigned long seed, struct tally *t)
{
	char db[300];
	struct vtb_store *st = NULL;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	int64_t campaign;
	int ret = -1, n = 0;
	bool odd[2][MAX_REPS] = { { false } };

	snprintf(db, sizeof(db), "%s/s%lu-%d.db", dir, seed, getpid());
	if (!r)
		return -1;
	gsl_rng_set(r, seed);
	/* the boots made odd, at random among the case's n (drawn only for
	 * such cases: the others' values stay as they were) */
	for (int side = 0; side < 2; side++)
		for (int j = 0; j < k->odd[side] && j < k->n; j++) {
			unsigned long i;

			do
				i = gsl_rng_uniform_int(r, (unsigned long)k->n);
			while (odd[side][i]);
			odd[side][i] = true;
		}
	/* a copy of the worker's empty campaign: the schema is made once */
	if (copy_file(template_db, db) < 0 || vtb_store_open(db, &st) < 0)
		goto out;
	campaign = 1;
	for (;;) {
		bool more[2];
		int u = 0;

		for (int side = 0; side < 2; side++)
			if (boot(st, campaign, side, n, r, k, odd[side][n], t) < 0)
				goto out;
		n++;
		if (k->n) {
			if (n == k->n)
				break;
			continue;
		}
		if (n < MIN_REPS)
			continue;
		u = undecided(st, db, more);
		if (u < 0)
			goto out;
		if (!u || n == MAX_REPS)
			break;
	}
	vtb_store_close(st);
	st = NULL;
	if (verdict(db, k, t) < 0)
		goto out;
	if (t->nboots < (long)VTB_ARRAY_SIZE(t->boots))
		t->boots[t->nboots++] = n;
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "calibrate: seed %lu: %s\n", seed, vtb_errmsg());
	vtb_store_close(st);
	gsl_rng_free(r);
	for (const char *sfx = ""; sfx; sfx = !*sfx		     ? "-wal"
					      : !strcmp(sfx, "-wal") ? "-shm"
								     : NULL) {
		char p[320];

		snprintf(p, sizeof(p), "%s%s", db, sfx);
		unlink(p);
	}
	return ret;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static double median_boots(struct tally *t)
{
	if (!t->nboots)
		return NAN;
	qsort(t->boots, (size_t)t->nboots, sizeof(long), cmp_long);
	return t->nboots % 2 ? (double)t->boots[t->nboots / 2]
			     : (t->boots[t->nboots / 2 - 1] + t->boots[t->nboots / 2]) / 2.0;
}

static double pct(long a, long b)
{
	return b ? 100.0 * (double)a / (double)b : NAN;
}

static struct tally *tl; /* per case, shared by the workers */

/* The tally of the case named by @fmt, NULL when it did not run. */
__attribute__((format(printf, 1, 2))) static struct tally *got(const char *fmt, ...)
{
	char name[sizeof(cases[0].name)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < nc; i++)
		if (!strcmp(cases[i].name, name))
			return cases[i].run ? &tl[i] : NULL;
	return NULL;
}

/* "%5.1f%%", or a dash when the case did not run. */
static const char *pc(double v)
{
	static char buf[4][16];
	static int i;

	i = (i + 1) % 4;
	if (isnan(v))
		return "     -";
	snprintf(buf[i], sizeof(buf[i]), "%5.1f%%", v);
	return buf[i];
}

static const char *nname(int n)
{
	static char buf[4][8];
	static int i;

	i = (i + 1) % 4;
	if (!n)
		return "auto";
	snprintf(buf[i], sizeof(buf[i]), "n%d", n);
	return buf[i];
}

__attribute__((format(printf, 5, 6))) static struct kase *add(double cov, double change, int n,
							      enum dist d, const char *fmt, ...)
{
	struct kase *k = &cases[nc++];
	va_list ap;

	if (nc > MAX_CASES)
		abort(); /* a fixed list: raise MAX_CASES */
	*k = (struct kase){ .cov = cov, .change = change, .n = n, .dist = d };
	va_start(ap, fmt);
	vsnprintf(k->name, sizeof(k->name), fmt, ap);
	va_end(ap);
	return k;
}

static const struct {
	const char *name, *what;
	int base, vm; /* boots with stalls a side */
} tail_cases[] = {
	{ "T0-none", "T0 no stalls", 0, 0 },
	{ "T0-1each", "T0 stalls in 1 boot a side", 1, 1 },
	{ "T1-2vm", "T1 stalls in 2 VM boots", 0, 2 },
	{ "T2-4vm", "T2 stalls in 4 VM boots", 0, 4 },
};

/* The cases, in a fixed order: a case's index seeds its generator, so
 * new cases go at the end and the figures of the old ones stay. */
static void make_cases(void)
{
	static const double covs[] = { 0.02, 0.10 }, changes[] = { 0, 0.05, 0.10, 0.30 };
	static const int ns[] = { 3, 5, 10, 0 };

	/* false alarms (change 0) and power, normal data */
	for (size_t a = 0; a < VTB_ARRAY_SIZE(covs); a++)
		for (size_t b = 0; b < VTB_ARRAY_SIZE(changes); b++)
			for (size_t c = 0; c < VTB_ARRAY_SIZE(ns); c++)
				if (changes[b] == 0)
					add(covs[a], 0, ns[c], NORMAL, "fa-normal-cov%.0f-%s",
					    covs[a] * 100, nname(ns[c]));
				else
					add(covs[a], changes[b], ns[c], NORMAL,
					    "power-cov%.0f-chg%.0f-%s", covs[a] * 100,
					    changes[b] * 100, nname(ns[c]));
	/* coverage at CoV 10%, +10%, per distribution (normal is above) */
	for (int d = LOGNORMAL; d <= CONTAMINATED; d++)
		for (size_t c = 0; c < 3; c++)
			add(0.10, 0.10, ns[c], (enum dist)d, "coverage-%s-%s", dist_key[d],
			    nname(ns[c]));
	/* slow boots (issue 26): CoV 2%, every row 10% worse, n = 10 a side,
	 * one baseline boot 3x slower, or one candidate boot; then 5% of the
	 * boots of both sides, at n = 5 and 10 */
	add(0.02, 0.10, 10, NORMAL, "slowboot-base1-n10")->odd[0] = 1;
	add(0.02, 0.10, 10, NORMAL, "slowboot-cand1-n10")->odd[1] = 1;
	add(0.02, 0.10, 5, SLOW5, "slowboot-slow5-n5");
	add(0.02, 0.10, 10, SLOW5, "slowboot-slow5-n10");
	/* false alarms of lognormal data, and of 5% slow boots (a robust
	 * rule must not make them) */
	for (int d = LOGNORMAL; d <= SLOW5; d += SLOW5 - LOGNORMAL)
		for (size_t a = 0; a < VTB_ARRAY_SIZE(covs); a++)
			for (int n = 5; n <= 10; n += 5)
				add(covs[a], 0, n, (enum dist)d, "fa-%s-cov%.0f-n%d", dist_key[d],
				    covs[a] * 100, n);
	/* coverage with 5% slow boots */
	for (size_t c = 0; c < 3; c++)
		add(0.10, 0.10, ns[c], SLOW5, "coverage-slow5-%s", nname(ns[c]));
	/* tails, n = 10 a side: boots with stalls (T0 are nulls) */
	for (size_t i = 0; i < VTB_ARRAY_SIZE(tail_cases); i++) {
		struct kase *k = add(0, 0, 10, NORMAL, "tails-%s", tail_cases[i].name);

		k->tails = true;
		k->odd[0] = tail_cases[i].base;
		k->odd[1] = tail_cases[i].vm;
	}
}

/* CAL_CASES: comma-separated substrings of case names; unset: every case. */
static size_t select_cases(const char *filter)
{
	size_t n = 0;

	for (size_t i = 0; i < nc; i++) {
		const char *f = filter;

		cases[i].run = !filter || !*filter;
		while (f && *f && !cases[i].run) {
			size_t len = strcspn(f, ",");

			cases[i].run = len && memmem(cases[i].name, strlen(cases[i].name), f, len);
			f += len + (f[len] == ',');
		}
		n += cases[i].run;
	}
	return n;
}

/* CAL_ARGS: split on spaces, each word one argv entry (no shell). */
static int split_args(const char *s)
{
	char *copy = s ? strdup(s) : NULL, *save = NULL;

	if (!s)
		return 0;
	if (!copy)
		return -1;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (n_extra == MAX_ARGS)
			return -1;
		extra_args[n_extra++] = w;
	}
	return 0;
}

static double fa_of(struct tally *t)
{
	return t ? pct(t->exit1, t->tables) : NAN;
}

static void print_false_alarms(void)
{
	static const double covs[] = { 2, 10 };
	bool head = false;

	for (size_t a = 0; a < VTB_ARRAY_SIZE(covs); a++) {
		struct tally *n3 = got("fa-normal-cov%.0f-n3", covs[a]),
			     *n5 = got("fa-normal-cov%.0f-n5", covs[a]),
			     *n10 = got("fa-normal-cov%.0f-n10", covs[a]),
			     *au = got("fa-normal-cov%.0f-auto", covs[a]);

		if (!n3 && !n5 && !n10 && !au)
			continue;
		if (!head)
			printf("\nfalse alarms (identical sides): tables that exit 1\n");
		head = true;
		printf("  CoV %2.0f%%:  n=3  %s  n=5  %s  n=10 %s  auto %s", covs[a],
		       pc(n3 ? pct(n3->exit1, n3->tables) : NAN),
		       pc(n5 ? pct(n5->exit1, n5->tables) : NAN),
		       pc(n10 ? pct(n10->exit1, n10->tables) : NAN),
		       pc(au ? pct(au->exit1, au->tables) : NAN));
		if (au)
			printf(" (median %.0f boots)", median_boots(au));
		printf("\n");
	}
	/* the same columns, other data, at n = 5 and 10 */
	for (int d = LOGNORMAL; d <= SLOW5; d += SLOW5 - LOGNORMAL)
		for (size_t a = 0; a < VTB_ARRAY_SIZE(covs); a++) {
			struct tally *n5 = got("fa-%s-cov%.0f-n5", dist_key[d], covs[a]),
				     *n10 = got("fa-%s-cov%.0f-n10", dist_key[d], covs[a]);

			if (!n5 && !n10)
				continue;
			if (!head)
				printf("\nfalse alarms (identical sides): tables that exit 1\n");
			head = true;
			printf("  CoV %2.0f%%:%13s  n=5  %s  n=10 %s  %s\n", covs[a], "",
			       pc(fa_of(n5)), pc(fa_of(n10)),
			       d == SLOW5 ? "normal, 5% of boots x3" : dist_name[d]);
		}
}

/* "  n=5   11.2% ( 66.5%)": rows found worse (tables exiting 1) */
static void print_power_cell(const char *label, struct tally *t)
{
	printf("  %-4s %s (%s)", label, pc(t ? pct(t->worse, t->rows) : NAN),
	       pc(t ? pct(t->exit1, t->tables) : NAN));
}

static void print_power(void)
{
	static const double covs[] = { 2, 10 }, changes[] = { 5, 10, 30 };
	bool head = false;

	for (size_t a = 0; a < VTB_ARRAY_SIZE(covs); a++)
		for (size_t b = 0; b < VTB_ARRAY_SIZE(changes); b++) {
			struct tally *t[3], *au;
			static const int ns[] = { 3, 5, 10 };

			for (size_t c = 0; c < 3; c++)
				t[c] = got("power-cov%.0f-chg%.0f-n%d", covs[a], changes[b], ns[c]);
			au = got("power-cov%.0f-chg%.0f-auto", covs[a], changes[b]);
			if (!t[0] && !t[1] && !t[2] && !au)
				continue;
			if (!head)
				printf("\npower (every row worse by the change): rows found worse "
				       "(tables exiting 1)\n");
			head = true;
			printf("  CoV %2.0f%%, %2.0f%%:", covs[a], changes[b]);
			print_power_cell("n=3", t[0]);
			print_power_cell("n=5", t[1]);
			print_power_cell("n=10", t[2]);
			if (au)
				printf("  auto %s (%s, median %.0f boots)\n",
				       pc(pct(au->worse, au->rows)), pc(pct(au->exit1, au->tables)),
				       median_boots(au));
			else
				printf("  auto      -\n");
		}
}

static void print_slow_boots(void)
{
	struct tally *b1 = got("slowboot-base1-n10"), *c1 = got("slowboot-cand1-n10"),
		     *r5 = got("slowboot-slow5-n5"), *r10 = got("slowboot-slow5-n10");

	if (!b1 && !c1 && !r5 && !r10)
		return;
	printf("\nslow boots (a boot 3x slower in all its metrics), CoV 2%%, normal, every row 10%% "
	       "worse: rows found worse (tables exiting 1)\n");
	if (b1 || c1) {
		printf("  %-22s%22s", "one baseline boot x3:", "");
		print_power_cell("n=10", b1);
		printf("\n  %-22s%22s", "one candidate boot x3:", "");
		print_power_cell("n=10", c1);
		printf("\n");
	}
	if (r5 || r10) {
		printf("  %-22s", "5% of boots x3, both:");
		print_power_cell("n=5", r5);
		print_power_cell("n=10", r10);
		printf("\n");
	}
}

static void print_tails(void)
{
	double lg[2] = { 0, 0 };
	long n[2] = { 0, 0 };
	bool head = false;

	for (size_t i = 0; i < VTB_ARRAY_SIZE(tail_cases); i++) {
		struct tally *t = got("tails-%s", tail_cases[i].name);

		for (int j = 0; t && j < 2; j++) {
			lg[j] += t->p999_log[j];
			n[j] += t->p999_n[j];
		}
	}
	for (size_t i = 0; i < VTB_ARRAY_SIZE(tail_cases); i++) {
		struct tally *t = got("tails-%s", tail_cases[i].name);

		if (!t)
			continue;
		if (!head) {
			printf("\ntails, n=10 a side (a boot: %d request latencies, lognormal, median "
			       "100 us, sigma 0.25, into a hist \"lat\" and its samples; stalls: %.0f%% "
			       "of a boot's requests 10-15x slower): rows found worse\n",
			       TAIL_REQUESTS, TAIL_STALL_P * 100);
			if (n[0] && n[1])
				printf("  (a boot's lat_p999: %.0f us, %.0f us with stalls, x%.1f; "
				       "geometric means)\n",
				       exp(lg[0] / (double)n[0]), exp(lg[1] / (double)n[1]),
				       exp(lg[1] / (double)n[1] - lg[0] / (double)n[0]));
			printf("  %-28s", "");
			for (size_t m = 0; m < VTB_ARRAY_SIZE(tail_metric); m++)
				printf("%10s", tail_metric[m]);
			printf("  (tables exiting 1)\n");
		}
		head = true;
		printf("  %-28s", tail_cases[i].what);
		for (size_t m = 0; m < VTB_ARRAY_SIZE(tail_metric); m++)
			printf("%10s", pc(pct(t->tail_worse[m], t->tail_rows[m])));
		printf("  (%s)\n", pc(pct(t->exit1, t->tables)));
	}
}

static double coverage(struct tally *t)
{
	return t ? pct(t->covered, t->ci_rows) : NAN;
}

static double coverage_fcr(struct tally *t)
{
	return t ? pct(t->covered_fcr, t->fcr_rows) : NAN;
}

static void print_coverage(void)
{
	bool head = false;

	for (int d = NORMAL; d < N_DIST; d++) {
		struct tally *t[3];
		static const int ns[] = { 3, 5, 10 };

		for (size_t c = 0; c < 3; c++)
			t[c] = d == NORMAL ? got("power-cov10-chg10-n%d", ns[c])
					   : got("coverage-%s-n%d", dist_key[d], ns[c]);
		if (!t[0] && !t[1] && !t[2])
			continue;
		if (!head)
			printf("\ncoverage (rows holding the true change), CoV 10%%, +10%%: the row's "
			       "own 95%% interval; [the interval the verdict reads, at the table's "
			       "FCR level]\n");
		head = true;
		printf("  %-12s  n=3  %s  n=5  %s  n=10 %s   [%s %s %s]\n", dist_name[d],
		       pc(coverage(t[0])), pc(coverage(t[1])), pc(coverage(t[2])),
		       pc(coverage_fcr(t[0])), pc(coverage_fcr(t[1])), pc(coverage_fcr(t[2])));
	}
}

/* A goal's line: @v against @goal (at least, or at most when @most). */
static void print_goal(const char *what, double v, double goal, bool most)
{
	printf("  %-70s %s  %s\n", what, pc(v),
	       isnan(v)				? "not run"
	       : (most ? v <= goal : v >= goal) ? "met"
						: "NOT MET");
}

static double worse_of(struct tally *t)
{
	return t ? pct(t->worse, t->rows) : NAN;
}

static void print_goals(void)
{
	static const int all_n[] = { 3, 5, 10, 0 };
	double fa = NAN, cov = NAN, fa26 = NAN, fa_slow = NAN, cov26 = NAN, one, slow5, fa_tail;
	struct tally *t1 = got("tails-T1-2vm");
	long errors = 0;

	for (size_t ci = 0; ci < nc; ci++)
		errors += cases[ci].run ? tl[ci].errors : 0;
	for (int a = 2; a <= 10; a += 8)
		for (size_t i = 0; i < VTB_ARRAY_SIZE(all_n); i++)
			fa = fmax(fa, fa_of(got("fa-normal-cov%d-%s", a, nname(all_n[i]))));
	for (int n = 5; n <= 10; n += 5) {
		cov = fmin(cov, coverage(got("power-cov10-chg10-n%d", n)));
		for (int d = LOGNORMAL; d <= CONTAMINATED; d++)
			cov = fmin(cov, coverage(got("coverage-%s-n%d", dist_key[d], n)));
	}
	/* issue 26's */
	for (int a = 2; a <= 10; a += 8)
		for (int n = 5; n <= 10; n += 5) {
			fa26 = fmax(fa26, fa_of(got("fa-normal-cov%d-n%d", a, n)));
			fa26 = fmax(fa26, fa_of(got("fa-lognormal-cov%d-n%d", a, n)));
			fa_slow = fmax(fa_slow, fa_of(got("fa-slow5-cov%d-n%d", a, n)));
		}
	for (int n = 3; n <= 10; n += n == 3 ? 2 : 5) {
		cov26 = fmin(cov26, coverage(got("power-cov10-chg10-n%d", n)));
		for (int d = LOGNORMAL; d < N_DIST; d++)
			cov26 = fmin(cov26, coverage(got("coverage-%s-n%d", dist_key[d], n)));
	}
	one = fmin(worse_of(got("slowboot-base1-n10")), worse_of(got("slowboot-cand1-n10")));
	slow5 = fmin(worse_of(got("slowboot-slow5-n5")), worse_of(got("slowboot-slow5-n10")));
	fa_tail = fmax(fa_of(got("tails-T0-none")), fa_of(got("tails-T0-1each")));
	printf("\ngoals (figures, not assertions):\n");
	print_goal("false alarms <= 5% (normal, CoV 2% and 10%, every n)", fa, 5, true);
	print_goal("10% at CoV 10% with reps = auto >= 90% of rows",
		   worse_of(got("power-cov10-chg10-auto")), 90, false);
	print_goal("30% at CoV 10% at n=10 >= 95% of rows", worse_of(got("power-cov10-chg30-n10")),
		   95, false);
	print_goal("coverage >= 93% at n >= 5 (normal, lognormal, contaminated)", cov, 93, false);
	printf(" slow boots and tails:\n");
	print_goal("one x3 boot in 10 (either side), CoV 2%, 10% worse >= 95% of rows", one, 95,
		   false);
	print_goal("5% of boots x3 at random, CoV 2%, 10% worse (n=5, 10) >= 90% of rows", slow5,
		   90, false);
	print_goal("clean false alarms <= 5% (CoV 2%, 10%; normal, lognormal; n=5, 10)", fa26, 5,
		   true);
	print_goal("coverage >= 93% at n=3, 5, 10, every distribution", cov26, 93, false);
	print_goal("p999 up in 2 of 10 boots (T1) found worse in >= 90% of tables",
		   t1 ? pct(t1->tail_worse[2], t1->tail_rows[2]) : NAN, 90, false);
	printf(" the same bound, not a goal:\n");
	print_goal("false alarms with 5% of boots x3 <= 5% (CoV 2%, 10%; n=5, 10)", fa_slow, 5,
		   true);
	print_goal("tail false alarms (T0, both) <= 5% of tables", fa_tail, 5, true);
	if (errors)
		printf("(%ld missing or error rows: the generator is wrong)\n", errors);
}

int main(int argc, char **argv)
{
	long seeds = argc > 2 ? atol(argv[2]) : 200;
	long workers = argc > 3 ? atol(argv[3]) : sysconf(_SC_NPROCESSORS_ONLN);
	const char *tmp = getenv("TMPDIR"), *filter = getenv("CAL_CASES");
	struct timespec t0, t1;
	long *next;
	size_t nrun;
	int failed = 0;

	if (argc < 2 || seeds <= 0 || workers <= 0) {
		fprintf(stderr, "usage: calibrate VTBENCH [SEEDS [WORKERS]]\n");
		return 2;
	}
	vtbench = argv[1];
	if (split_args(getenv("CAL_ARGS")) < 0) {
		fprintf(stderr, "calibrate: CAL_ARGS: more than %d words\n", MAX_ARGS);
		return 2;
	}
	make_cases();
	nrun = select_cases(filter);
	if (!nrun) {
		fprintf(stderr, "calibrate: CAL_CASES '%s' matches no case; the cases:\n", filter);
		for (size_t ci = 0; ci < nc; ci++)
			fprintf(stderr, "  %s\n", cases[ci].name);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/vtbcal.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("calibrate: mkdtemp");
		return 3;
	}
	/* the tallies, then the index of the next case a worker takes */
	tl = mmap(NULL, nc * sizeof(*tl) + sizeof(long), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tl == MAP_FAILED) {
		perror("calibrate: mmap");
		return 3;
	}
	memset(tl, 0, nc * sizeof(*tl) + sizeof(long));
	next = (long *)(tl + nc);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long w = 0; w < workers; w++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("calibrate: fork");
			return 3;
		}
		if (pid)
			continue;
		/* a worker takes the next case not taken, and runs all its
		 * seeds: a case's tally has one writer */
		if (make_template() < 0) {
			fprintf(stderr, "calibrate: %s\n", vtb_errmsg());
			_exit(3);
		}
		for (size_t ci; (ci = (size_t)__atomic_fetch_add(next, 1, __ATOMIC_RELAXED)) < nc;)
			for (long s = 1; cases[ci].run && s <= seeds; s++)
				if (one_seed(&cases[ci], (unsigned long)(1000 * ci + (size_t)s),
					     &tl[ci]) < 0) {
					unlink(template_db);
					_exit(3);
				}
		unlink(template_db);
		_exit(0);
	}
	for (long w = 0; w < workers; w++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rmdir(dir);
	if (failed) {
		fprintf(stderr, "calibrate: a worker failed\n");
		return 3;
	}

	printf("calibration: %ld seeds a case; one VM against its baseline, 24 rows (8 rates, "
	       "8 times, 8 latencies), through `vtbench compare`; reps = auto: min_reps %d, "
	       "max_reps %d\n",
	       seeds, MIN_REPS, MAX_REPS);
	if (filter && *filter)
		printf("cases matching CAL_CASES '%s': %zu of %zu\n", filter, nrun, nc);
	if (n_extra) {
		printf("compare arguments from CAL_ARGS (reps = auto decides in-process, without "
		       "them):");
		for (size_t i = 0; i < n_extra; i++)
			printf(" %s", extra_args[i]);
		printf("\n");
	}
	print_false_alarms();
	print_power();
	print_slow_boots();
	print_coverage();
	print_tails();
	print_goals();
	printf("(%.0f s on %ld workers)\n",
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, workers);
	return 0;
}
