/* SPDX-License-Identifier: MIT */
/*
 * Writes the generated compare fixture: deterministic campaigns (fixed
 * uuids, timestamps and seeded values) stored through store.c's API, so
 * the goldens of tests/cli/compare_golden.sh follow the schema and not a
 * checked-in binary.  Bump FIXTURE_VERSION when the generated data
 * changes (and regenerate the goldens).
 *
 *   mkfixture OUT.db VARIANT...   base | clean | slow | other | gaps | stream | failed | bare |
 *                                 one | slowboot | allfail | race
 *                                 (none: an empty database)
 *   mkfixture --big OUT.db        1,000,000 samples: 100 configurations x 100 cells x
 *                                 10 metrics x 10 boots (make bench)
 *   mkfixture --version
 *
 * base: a baseline and three VM configurations over three workloads
 * (throughput, a latency metric with histograms, c2c with its matrix),
 * five boots each; "vm ... pinning=none" is really 10% slower than its
 * baseline, one boot of the SMT guest built another topology.  clean: the
 * same configurations a day later, other noise.  slow: the same with a
 * 10% slowdown injected into the cores/strict guest.  other: configurations
 * with other keys (nothing matches them).  gaps: base with every way a row
 * can lack an answer (issue 15): the SMT guest's wakeup cell failed in
 * every boot, the cores/strict guest never reports triad and reports a
 * copy of 0 MB/s in one boot, the unpinned guest reports copy in GB/s,
 * the baseline's c2c stored an infinity in one boot, and a count
 * (c2c_levels) is 0 on the baseline and 5 on the unpinned guest.
 * stream: base's configurations
 * with membw's arrays cut to 207 MiB, below STREAM's 4 x 1016 MiB of LLC
 * (what a 1 GiB guest on a 508 MiB-per-core L3 gets), in every boot.
 * failed: base with boots that failed (issue 17): the SMT guest failed to
 * start in every boot, the unpinned guest timed out in its last boot, and
 * the cores/strict guest's wakeup cell failed in one boot.  bare: two
 * bare-metal baselines (cpus=1, cpus=2) and no VM.  one: base's
 * configurations booted once each (nothing can be judged).  slowboot:
 * slow's 10% slowdown of the cores/strict guest, and the baseline's boot
 * 2 three times slower in every cell (issue 26: the boot compare sets
 * aside).  allfail: every VM boot failed (every row missing).  race: a
 * campaign of vtbench explore under TCG (recommend's goldens): three
 * 2-vCPU guests beside one baseline, three rounds, sched profiles
 * default (no settings, no record), isolate (isolcpus=1: no sched
 * domains) and tuned (a sysctl, a debugfs knob and a per-domain knob; its
 * round-2 boot failed with a knob that did not read back), isolate and
 * tuned dropped in round 3, the statistic the race's own.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/compare/compare.h"
#include "../../harness/matrix/digest.h"
#include "../../harness/store/store.h"
#include "../../harness/evidence/evidence.h"
#include "../../common/hist.h"

#define FIXTURE_VERSION 5
#define T0 1700000000000000000LL /* 2023-11-14T22:13:20Z */
#define DAY 86400000000000LL
#define REPS 5

struct cfg {
	const char *key, *label, *kind, *params, *cpus, *plan;
	double factor; /* performance relative to the host: 0.9 = 10% slower */
	const char *levels;
};

static const struct cfg cfgs[] = {
	{ "00000000000000b2", "baseline cpus=2 cpuset=2-3", "baseline",
	  "{\"confine\":\"affinity\",\"cpus\":\"2\",\"cpuset\":\"2-3\"}", "2-3", NULL, 1.0, NULL },
	{ "000000000000c001", "vm vcpus=2 topology=cores pinning=strict", "vm",
	  "{\"memory\":\"1073741824\",\"pinning\":\"strict\",\"sched\":\"default\","
	  "\"topology\":\"cores\",\"vcpus\":\"2\",\"vms\":\"1\"}",
	  "2-3",
	  "{\"claims\":[{\"kind\":\"llc\",\"state\":\"true\",\"vcpus\":\"0-1\",\"vm\":0},"
	  "{\"kind\":\"node\",\"state\":\"true\",\"vcpus\":\"0-1\",\"vm\":0}],"
	  "\"pinning\":\"strict\",\"schema\":1,"
	  "\"topology\":{\"cores\":2,\"dies\":1,\"sockets\":1,\"threads\":1}}",
	  0.98, "MC" },
	{ "000000000000c002", "vm vcpus=2 topology=smt pinning=strict", "vm",
	  "{\"memory\":\"1073741824\",\"pinning\":\"strict\",\"sched\":\"default\","
	  "\"topology\":\"smt\",\"topology.threads\":\"2\",\"vcpus\":\"2\",\"vms\":\"1\"}",
	  "2-3",
	  "{\"claims\":[{\"kind\":\"smt\",\"state\":\"false\",\"vcpus\":\"0-1\",\"vm\":0},"
	  "{\"kind\":\"llc\",\"state\":\"true\",\"vcpus\":\"0-1\",\"vm\":0}],"
	  "\"pinning\":\"strict\",\"schema\":1,"
	  "\"topology\":{\"cores\":1,\"dies\":1,\"sockets\":1,\"threads\":2}}",
	  0.99, "SMT" },
	{ "000000000000c003", "vm vcpus=2 topology=cores pinning=none", "vm",
	  "{\"memory\":\"1073741824\",\"pinning\":\"none\",\"sched\":\"default\","
	  "\"topology\":\"cores\",\"vcpus\":\"2\",\"vms\":\"1\"}",
	  "2-3",
	  "{\"claims\":[{\"kind\":\"llc\",\"state\":\"unbacked\",\"vcpus\":\"0-1\",\"vm\":0}],"
	  "\"pinning\":\"none\",\"schema\":1,"
	  "\"topology\":{\"cores\":2,\"dies\":1,\"sockets\":1,\"threads\":1}}",
	  0.90, "MC" },
};

/* bare: baselines alone */
static const struct cfg bare_cfgs[] = {
	{ "00000000000000b1", "baseline cpus=1 cpuset=2-3", "baseline",
	  "{\"confine\":\"affinity\",\"cpus\":\"1\",\"cpuset\":\"2-3\"}", "2", NULL, 1.0, NULL },
	{ "00000000000000b2", "baseline cpus=2 cpuset=2-3", "baseline",
	  "{\"confine\":\"affinity\",\"cpus\":\"2\",\"cpuset\":\"2-3\"}", "2-3", NULL, 1.0, NULL },
};

struct cell {
	const char *name, *workload, *params;
};

static const struct cell cells[] = {
	{ "stream", "membw", "{\"nt\":\"no\",\"threads\":\"auto\"}" },
	{ "wakeup", "wakeup", "{\"sleep\":\"100000ns\"}" },
	{ "c2c", "c2c", "{\"mode\":\"full\"}" },
};

struct variant {
	const char *name, *uuid;
	int64_t started;
	unsigned long seed;
	int slow_cfg;	 /* configuration with an injected 10% slowdown, -1: none */
	bool other_keys; /* configurations no other variant has (nothing matches) */
	bool gaps;	 /* rows without an answer: missing, errors */
	bool stream_cut; /* membw's arrays below STREAM's 4 x LLC (cut to fit a guest) */
	bool failed;	 /* failed boots and a failed cell */
	bool bare;	 /* baselines alone */
	int reps;	 /* boots a configuration; 0: REPS */
	bool slow_boot;	 /* the baseline's boot 2 three times slower in every cell */
	bool all_failed; /* every VM boot failed */
	bool evidence;	 /* the VM boots' wakeup cells carry scheduler evidence (issue 28) */
};

static const struct variant variants[] = {
	{ "base", "f1c70000-0000-4000-8000-00000000000a", T0, 11, -1, false, false, false, false,
	  false, 0, false, false, false },
	{ "clean", "f1c70000-0000-4000-8000-00000000000b", T0 + DAY, 22, -1, false, false, false,
	  false, false, 0, false, false, false },
	{ "slow", "f1c70000-0000-4000-8000-00000000000c", T0 + DAY, 33, 1, false, false, false,
	  false, false, 0, false, false, false },
	{ "other", "f1c70000-0000-4000-8000-00000000000d", T0 + DAY, 44, -1, true, false, false,
	  false, false, 0, false, false, false },
	{ "gaps", "f1c70000-0000-4000-8000-00000000000e", T0, 11, -1, false, true, false, false,
	  false, 0, false, false, false },
	{ "stream", "f1c70000-0000-4000-8000-00000000000f", T0 + DAY, 55, -1, false, false, true,
	  false, false, 0, false, false, false },
	{ "failed", "f1c70000-0000-4000-8000-000000000010", T0 + DAY, 66, -1, false, false, false,
	  true, false, 0, false, false, false },
	{ "bare", "f1c70000-0000-4000-8000-000000000011", T0 + DAY, 77, -1, false, false, false,
	  false, true, 0, false, false, false },
	/* issue 26: one boot a configuration (nothing can be judged); the
	 * cores/strict guest 10% slower while one baseline boot is three times
	 * slower (a cron job, a compaction); every VM boot failed */
	{ "one", "f1c70000-0000-4000-8000-000000000012", T0 + DAY, 88, -1, false, false, false,
	  false, false, 1, false, false, false },
	{ "slowboot", "f1c70000-0000-4000-8000-000000000013", T0 + DAY, 99, 1, false, false, false,
	  false, false, 0, true, false, false },
	{ "allfail", "f1c70000-0000-4000-8000-000000000014", T0 + DAY, 111, -1, false, false, false,
	  false, false, 0, false, true, false },
	/* issue 28: base's boots with the scheduler's counters of the
	 * wakeup cell: the unpinned guest waits on the host and drifts, the
	 * SMT guest balances at SMT and MC */
	{ "sched", "f1c70000-0000-4000-8000-000000000015", T0, 11, -1, false, false, false, false,
	  false, 0, false, false, true },
};

/* Cell @cell's evidence from the guest's and the host's JSON texts (NULL:
 * out of memory), which it frees. */
static int fx_evidence_build(const char *cell, char *g, char *h, struct vtb_evidence *ev)
{
	json_t *gj = g ? json_loads(g, 0, NULL) : NULL, *hj = h ? json_loads(h, 0, NULL) : NULL;
	int ret = gj && hj ? vtb_evidence_build(cell, gj, hj, ev)
			   : vtb_error("bad fixture evidence");

	json_decref(gj);
	json_decref(hj);
	free(g);
	free(h);
	return ret;
}

/* The wakeup cell's schedstat record and host readings of VM @ci at
 * @rep (deterministic: no draw from the generator, so the samples of
 * the other variants stay as they were). */
static int fixture_evidence(size_t ci, int rep, const char *cell, struct vtb_evidence *ev)
{
	double k = 1.0 + 0.02 * (rep - 2);
	int mc = (int)(80 * k * (ci == 3 ? 3 : 1)), smt = (int)(120 * k);
	long long wait = (long long)((ci == 3 ? 0.3 : 0.01) * k * 4e9);
	char *g, *h, *smtl = NULL;
	int ret;

	if (ci == 2)
		smtl = vtb_asprintf(
			"{\"level\":\"SMT\",\"cpus\":2,\"lb\":{\"busy\":{\"count\":%d,"
			"\"balanced\":%d,\"failed\":0,\"imbalance\":0,\"gained\":4,"
			"\"hot_gained\":0,\"nobusyq\":0,\"nobusyg\":0},"
			"\"idle\":{\"count\":0,\"balanced\":0,\"failed\":0,"
			"\"imbalance\":0,\"gained\":0,\"hot_gained\":0,\"nobusyq\":0,"
			"\"nobusyg\":0},\"newidle\":{\"count\":0,\"balanced\":0,"
			"\"failed\":0,\"imbalance\":0,\"gained\":0,\"hot_gained\":0,"
			"\"nobusyq\":0,\"nobusyg\":0}},\"alb\":{\"count\":0,\"failed\":0,"
			"\"pushed\":0},\"sbe\":{\"count\":0,\"balanced\":0,\"pushed\":0},"
			"\"sbf\":{\"count\":0,\"balanced\":0,\"pushed\":0},\"ttwu\":"
			"{\"remote\":50,\"affine\":0,\"balance\":0}},",
			smt, smt - 4);
	g = vtb_asprintf(
		"{\"seconds\":4.0,\"version\":15,\"user_hz\":100,\"notes\":[],\"error\":null,"
		"\"levels\":[%s{\"level\":\"MC\",\"cpus\":2,\"lb\":{"
		"\"busy\":{\"count\":%d,\"balanced\":%d,\"failed\":%d,\"imbalance\":9,\"gained\":%d,"
		"\"hot_gained\":0,\"nobusyq\":0,\"nobusyg\":1},"
		"\"idle\":{\"count\":%d,\"balanced\":1,\"failed\":0,\"imbalance\":0,\"gained\":1,"
		"\"hot_gained\":0,\"nobusyq\":0,\"nobusyg\":0},"
		"\"newidle\":{\"count\":%d,\"balanced\":2,\"failed\":1,\"imbalance\":0,"
		"\"gained\":2,\"hot_gained\":0,\"nobusyq\":0,\"nobusyg\":0}},"
		"\"alb\":{\"count\":0,\"failed\":0,\"pushed\":0},\"sbe\":{\"count\":0,"
		"\"balanced\":0,\"pushed\":0},\"sbf\":{\"count\":0,\"balanced\":0,\"pushed\":0},"
		"\"ttwu\":{\"remote\":%d,\"affine\":40,\"balance\":0}}],"
		"\"cpus\":[{\"cpu\":0,\"yield\":0,\"sched\":900,\"goidle\":300,\"ttwu\":400,"
		"\"ttwu_local\":%d,\"run_ns\":2000000000,\"wait_ns\":%lld,\"slices\":900,\"steal\":0},"
		"{\"cpu\":1,\"yield\":0,\"sched\":900,\"goidle\":300,\"ttwu\":400,\"ttwu_local\":%d,"
		"\"run_ns\":2000000000,\"wait_ns\":%lld,\"slices\":900,\"steal\":0}]}",
		smtl ? smtl : "",
		mc * 2, mc * 2 - mc / 4, mc / 8, mc / 10, mc, mc, ci == 3 ? 240 : 60,
		ci == 3 ? 160 : 340, wait, ci == 3 ? 160 : 340, wait);
	h = vtb_asprintf(
		"{\"seconds\":4.0,\"vcpus\":[{\"vcpu\":0,\"run_ns\":3000000000,\"wait_ns\":%lld,"
		"\"slices\":800,\"invol\":%d,\"migrations\":%d,\"moves\":%d,\"pcpus\":%s,"
		"\"pcpus_seen\":%d},{\"vcpu\":1,\"run_ns\":2800000000,\"wait_ns\":%lld,"
		"\"slices\":780,\"invol\":%d,\"migrations\":%d,\"moves\":%d,\"pcpus\":%s,"
		"\"pcpus_seen\":%d}]}",
		ci == 3 ? (long long)(1.2e9 * k) : (long long)(2e7 * k), ci == 3 ? 900 : 40,
		ci == 3 ? 80 : 0, ci == 3 ? 60 : 0, ci == 3 ? "[2,3]" : "[2]", ci == 3 ? 2 : 1,
		ci == 3 ? (long long)(1.1e9 * k) : (long long)(2e7 * k), ci == 3 ? 880 : 40,
		ci == 3 ? 76 : 0, ci == 3 ? 58 : 0, ci == 3 ? "[3,2]" : "[3]", ci == 3 ? 2 : 1);
	ret = fx_evidence_build(cell, g, h, ev);
	free(smtl);
	return ret;
}

static int die(const char *what)
{
	fprintf(stderr, "mkfixture: %s: %s\n", what, vtb_errmsg());
	return 3;
}

static void cell_key(char out[17], size_t config, size_t cell)
{
	snprintf(out, 17, "%012zx%04zx", (size_t)0xce11000000ull + config, cell);
}

/* A value around @mean with coefficient of variation @cov, rounded to
 * 0.01 so the stored doubles print the same everywhere. */
static double noisy(gsl_rng *r, double mean, double cov)
{
	return round((mean + gsl_ran_gaussian(r, mean * cov)) * 100) / 100;
}

static int host(struct vtb_store *st, int64_t *id)
{
	struct vtb_host_info h = {
		.hostname = "fixture-host",
		.cpu_vendor = "GenuineIntel",
		.cpu_model_name = "Fixture CPU @ 2.00GHz",
		.cpu_codename = "Fixture",
		.cpu_family = 6,
		.cpu_model = 85,
		.topo_digest = "0000000000000000000000000000000000000000000000000000000000000000",
		.topo_summary = "1 package, 1 node, 1 LLC, 4 cores, 4 PUs",
		.kernel = "6.1.0-fixture",
	};

	return vtb_store_host(st, &h, id);
}

/* The matrix as the store wants it; cells of every configuration alike. */
static int matrix(struct vtb_matrix *m, struct vtb_config *cf, struct vtb_cell *ce, size_t ncfg,
		  const struct cfg *src, size_t ncell, const struct cell *csrc)
{
	memset(m, 0, sizeof(*m));
	m->path = (char *)"fixture.conf";
	m->configs = cf;
	m->n_configs = ncfg;
	for (size_t i = 0; i < ncfg; i++) {
		memset(&cf[i], 0, sizeof(cf[i]));
		snprintf(cf[i].key, sizeof(cf[i].key), "%s", src[i].key);
		cf[i].kind = !strcmp(src[i].kind, "vm") ? VTB_CONFIG_VM : VTB_CONFIG_BASELINE;
		cf[i].label = (char *)src[i].label;
		cf[i].params_json = (char *)src[i].params;
		cf[i].plan_json = (char *)src[i].plan;
		cf[i].mems = (char *)"0";
		cf[i].runnable = true;
		if (vtb_cpuset_parse(src[i].cpus, &cf[i].cpus) < 0)
			return -1;
		cf[i].cells = &ce[i * ncell];
		cf[i].n_cells = ncell;
		for (size_t j = 0; j < ncell; j++) {
			struct vtb_cell *c = &ce[i * ncell + j];

			memset(c, 0, sizeof(*c));
			cell_key(c->key, i, j);
			c->name = (char *)csrc[j].name;
			c->workload = (char *)csrc[j].workload;
			c->params_json = (char *)csrc[j].params;
			c->resolved_json = (char *)csrc[j].params;
		}
	}
	return 0;
}

static int begin(struct vtb_store *st, const struct variant *v, int64_t host_id,
		 struct vtb_matrix *m, int64_t *id)
{
	struct vtb_campaign_info ci = {
		.uuid = v->uuid,
		.host_id = host_id,
		.matrix_path = "fixture.conf",
		.matrix_text = "; generated by tests/tools/mkfixture.c\n",
		.matrix_digest = "f1c7f1c7f1c7f1c7f1c7f1c7f1c7f1c7f1c7f1c7f1c7f1c7f1c7f1c7f1c7f1c7",
		.version = "fixture-1",
		.cmdline = "mkfixture",
		.state_json = "{\"cpufreq\":{\"governor\":\"performance\"},\"smt\":\"off\","
			      "\"thp\":\"madvise\"}",
		.started_ns = v->started,
	};

	return vtb_store_campaign_begin(st, &ci, m, id);
}

static void free_records(struct vtb_boot_records *r)
{
	for (size_t i = 0; i < r->n_cells; i++) {
		free(r->cells[i].cell);
		free(r->cells[i].info_json);
	}
	for (size_t i = 0; i < r->n_samples; i++)
		free(r->samples[i].cell);
	for (size_t i = 0; i < r->n_hists; i++) {
		free(r->hists[i].cell);
		free(r->hists[i].params_json);
		free(r->hists[i].buckets_json);
	}
	free(r->cells);
	free(r->samples);
	free(r->hists);
	memset(r, 0, sizeof(*r));
}

/* One boot of the small fixture: every cell, its samples, a latency
 * histogram and a c2c matrix. */
static int small_boot(struct vtb_store *st, int64_t campaign, const struct variant *v,
		      const struct cfg *cfg, size_t ci, int rep, gsl_rng *r)
{
	const struct cfg *c = &cfg[ci];
	double f = c->factor * (v->slow_cfg == (int)ci ? 0.9 : 1.0) *
		   (v->slow_boot && ci == 0 && rep == 2 ? 1.0 / 3 : 1.0);
	struct vtb_boot_records rec = { 0 };
	struct vtb_vm_boot_info vm = { 0 };
	struct vtb_boot_info b = { 0 };
	struct vtb_evidence ev = { 0 };
	bool odd = ci == 2 && rep == 3 && !strcmp(v->name, "base");
	char uuid[37], key[17], *placement = NULL;
	struct vtb_hist h;
	json_t *jb = NULL, *jp = NULL;
	int ret = -1;

	rec.cells = calloc(VTB_ARRAY_SIZE(cells), sizeof(*rec.cells));
	rec.samples = calloc(9, sizeof(*rec.samples));
	rec.hists = calloc(1, sizeof(*rec.hists));
	if (!rec.cells || !rec.samples || !rec.hists)
		goto out;
	for (size_t j = 0; j < VTB_ARRAY_SIZE(cells); j++) {
		cell_key(key, ci, j);
		rec.cells[j] = (struct vtb_rs_cell){ .cell = strdup(key),
						     .workload = (char *)cells[j].workload,
						     .status = (char *)"ok",
						     .seconds = 2.0,
						     .info_json = strdup("{}") };
		/* the SMT guest's wakeup cell fails in every boot */
		if (v->gaps && ci == 2 && j == 1) {
			rec.cells[j].status = (char *)"failed";
			rec.cells[j].error = (char *)"wakeup: cannot pin the message thread";
		}
		if (v->failed && ci == 1 && j == 1 && rep == 2) {
			rec.cells[j].status = (char *)"failed";
			rec.cells[j].error = (char *)"wakeup: timer_create: Invalid argument";
		}
		rec.n_cells++;
		if (v->stream_cut && !strcmp(cells[j].workload, "membw")) {
			free(rec.cells[j].info_json);
			rec.cells[j].info_json = strdup(
				"{\"array_bytes\":217055232,\"llc_bytes\":1065353216,"
				"\"llc_source\":\"harness\",\"size_source\":\"given\","
				"\"stream_rule\":\"below STREAM rule\","
				"\"stream_rule_bytes\":4261412864,\"stream_rule_pct\":5.09}");
		}
	}
/* a failed cell reports no sample */
#define SAMPLE(j, m, u, val, hi)                                               \
	do {                                                                   \
		if (!strcmp(rec.cells[j].status, "ok"))                        \
			rec.samples[rec.n_samples++] = (struct vtb_rs_sample){ \
				.cell = strdup(rec.cells[j].cell),             \
				.metric = (char *)(m),                         \
				.unit = (char *)(u),                           \
				.value = (val),                                \
				.better = (hi)                                 \
			};                                                     \
	} while (0)
	{
		double copy = noisy(r, 12000 * f, 0.01), triad = noisy(r, 13000 * f, 0.012);

		if (v->gaps && ci == 3) /* another unit: not comparable */
			SAMPLE(0, "copy", "GB/s", copy / 1000, 1);
		else if (v->gaps && ci == 1 && rep == 1) /* a rate of 0 */
			SAMPLE(0, "copy", "MB/s", 0, 1);
		else
			SAMPLE(0, "copy", "MB/s", copy, 1);
		if (!(v->gaps && ci == 1)) /* a metric one configuration lacks */
			SAMPLE(0, "triad", "MB/s", triad, 1);
	}
	{
		/* the boot's p99 is its own histogram's, one value per boot */
		double mean = 60 / f;

		if (vtb_hist_init(&h, VTB_HIST_BITS_DEFAULT, "us") < 0)
			goto out;
		for (int i = 0; i < 400; i++)
			vtb_hist_add(&h, (uint64_t)fmax(1, mean + gsl_ran_gaussian(r, mean * 0.05) +
								   gsl_ran_exponential(r, 2)));
		SAMPLE(1, "wakeup_p50", "us", (double)vtb_hist_percentile(&h, 50), 0);
		SAMPLE(1, "wakeup_p99", "us", (double)vtb_hist_percentile(&h, 99), 0);
		jp = vtb_hist_params_json(&h);
		jb = vtb_hist_buckets_json(&h);
		rec.hists[0] = (struct vtb_rs_hist){
			.cell = strdup(rec.cells[1].cell),
			.metric = (char *)"wakeup_latency",
			.unit = (char *)"us",
			.params_json = json_dumps(jp, JSON_COMPACT | JSON_SORT_KEYS),
			.buckets_json = json_dumps(jb, JSON_COMPACT),
		};
		rec.n_hists = 1;
		vtb_hist_release(&h);
	}
	{
		double rt = noisy(r, 80 / f, 0.02), a = noisy(r, 70 / f, 0.02);
		int c0 = strcmp(c->kind, "vm") ? 2 : 0;

		SAMPLE(2, "one_way_mean_ns", "ns",
		       v->gaps && ci == 0 && rep == 2 ? INFINITY : rt / 2, 0);
		if (v->gaps)
			SAMPLE(2, "c2c_levels", "count", ci == 3 ? 5 : 0, 0);
		free(rec.cells[2].info_json);
		rec.cells[2].info_json = vtb_asprintf(
			"{\"matrix\":{\"cpus\":[%d,%d],\"ns\":[[null,%.2f],[%.2f,null]],"
			"\"value\":\"round trip, median of batches\"}}",
			c0, c0 + 1, rt, a);
	}
#undef SAMPLE
	b.campaign_id = campaign;
	snprintf(uuid, sizeof(uuid), "%.24s%02x%02x%02x%06d", v->uuid, (unsigned)(v->seed & 0xff),
		 (unsigned)(ci & 0xff), (unsigned)(rep & 0xff), 0);
	b.uuid = uuid;
	b.config_key = c->key;
	b.rep = rep;
	b.status = odd ? "unexpected-topology" : "ok";
	if (v->failed && ci == 2) {
		b.status = "failed";
		b.error = "cannot start the domain: unsupported configuration: CPU topology "
			  "doesn't match the vCPU count";
	} else if (v->all_failed && !strcmp(c->kind, "vm")) {
		b.status = "failed";
		b.error = "cannot start the domain: internal error: qemu unexpectedly closed the "
			  "monitor";
	} else if (v->failed && ci == 3 && rep == REPS - 1) {
		b.status = "timeout";
		b.error = "no record from the guest within 600 s";
	}
	b.started_ns = v->started + ((int64_t)rep * 4 + (int64_t)ci) * 60000000000LL;
	b.ended_ns = b.started_ns + 50000000000LL;
	b.nonce = "00000000000000000000000000000000";
	b.cpus = c->cpus;
	b.confinement = "affinity";
	if (!strcmp(c->kind, "vm")) {
		bool pinned = !strstr(c->label, "pinning=none");

		placement = vtb_asprintf(
			"{\"interval_ms\":50,\"samples\":%d,\"off_planned_mean\":%s,"
			"\"off_planned_max\":%s,\"smt_pairs\":%s,\"llc_groups\":{\"n\":1,"
			"\"split_llc\":0.0},\"nodes\":{\"n\":1,\"split_node\":0.0}}",
			40 + rep, pinned ? "0.0" : "null", pinned ? "0.025" : "null",
			ci == 2 ? "{\"n\":1,\"split_core\":1.0}" : "null");
		vm = (struct vtb_vm_boot_info){
			.accelerator = "tcg",
			.cpu_model = "qemu64",
			.guest_kernel = "6.1.0-57-amd64",
			.libvirt_version = "9.0.0",
			.qemu_version = "7.2.0",
			.vms = 1,
			.placement = placement,
			.topology_check = odd ? "differs" : "match",
			.topology_diff =
				odd ? "cpu0: thread_siblings 0, plan 0-1; levels MC, plan SMT"
				    : NULL,
			.view = "{}",
			.levels = odd ? "MC" : c->levels,
			.digest = "d1",
		};
		if (v->evidence) {
			if (fixture_evidence(ci, rep, rec.cells[1].cell, &ev) < 0)
				goto out;
			vm.evidence = &ev.ev;
			vm.n_evidence = 1;
		}
		b.vm = &vm;
	}
	if (vtb_store_boot(st, &b,
			   strcmp(b.status, "failed") && strcmp(b.status, "timeout") ? &rec
										     : NULL) < 0)
		goto out;
	ret = 0;
out:
	vtb_evidence_release(&ev);
	free(placement);
	json_decref(jb);
	json_decref(jp);
	free_records(&rec);
	return ret;
}

static int small(struct vtb_store *st, const struct variant *v, int64_t host_id)
{
	struct cfg local[VTB_ARRAY_SIZE(cfgs)];
	char keys[VTB_ARRAY_SIZE(cfgs)][17];
	struct vtb_config cf[VTB_ARRAY_SIZE(cfgs)];
	struct vtb_cell ce[VTB_ARRAY_SIZE(cfgs) * VTB_ARRAY_SIZE(cells)];
	struct vtb_matrix m;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t ncfg = v->bare ? VTB_ARRAY_SIZE(bare_cfgs) : VTB_ARRAY_SIZE(cfgs);
	int64_t id;
	int ret = -1;

	if (!r)
		return vtb_error("out of memory");
	gsl_rng_set(r, v->seed);
	memset(cf, 0, sizeof(cf));
	if (v->bare)
		memcpy(local, bare_cfgs, ncfg * sizeof(*local));
	else
		memcpy(local, cfgs, sizeof(local));
	for (size_t i = 0; v->other_keys && i < VTB_ARRAY_SIZE(cfgs); i++) {
		snprintf(keys[i], sizeof(keys[i]), "e%s", cfgs[i].key + 1);
		local[i].key = keys[i];
	}
	if (matrix(&m, cf, ce, ncfg, local, VTB_ARRAY_SIZE(cells), cells) < 0 ||
	    begin(st, v, host_id, &m, &id) < 0)
		goto out;
	/* interleaved, as vtbench run does */
	for (int rep = 0; rep < (v->reps ? v->reps : REPS); rep++)
		for (size_t i = 0; i < ncfg; i++)
			if (small_boot(st, id, v, local, i, rep, r) < 0)
				goto out;
	if (vtb_store_campaign_end_at(st, id, "done", v->started + 3600000000000LL) < 0)
		goto out;
	ret = 0;
out:
	for (size_t i = 0; i < VTB_ARRAY_SIZE(cfgs); i++)
		vtb_cpuset_release(&cf[i].cpus);
	gsl_rng_free(r);
	return ret;
}

/*
 * race: what vtbench explore stores for examples/explore-quick.conf with a
 * third profile, under TCG: the boots as run stores them (their sched
 * records and guest views), the race and its eliminations.
 */
#define RACE_ROUNDS 3
#define RACE_UUID "f1c70000-0000-4000-8000-000000000015"

struct race_cfg {
	const char *key, *label, *kind, *params, *sched_name;
	double p99; /* request_p99's mean, us */
	int tree;   /* 0: none (a baseline), 1: MC over both CPUs, 2: no domains */
};

static const struct race_cfg race_cfgs[] = {
	{ "00000000000000b2", "baseline cpus=2 cpuset=2-3", "baseline",
	  "{\"confine\":\"affinity\",\"cpus\":\"2\",\"cpuset\":\"2-3\"}", NULL, 9000, 0 },
	{ "000000000000d001", "vm vcpus=2 topology=cores pinning=strict memory=1G sched=default",
	  "vm",
	  "{\"memory\":\"1073741824\",\"pinning\":\"strict\",\"sched\":\"default\","
	  "\"topology\":\"cores\",\"vcpus\":\"2\",\"vms\":\"1\"}",
	  NULL, 50000, 1 },
	{ "000000000000d002", "vm vcpus=2 topology=cores pinning=strict memory=1G sched=isolate",
	  "vm",
	  "{\"memory\":\"1073741824\",\"pinning\":\"strict\",\"sched\":\"isolate\","
	  "\"sched.cmdline\":\"isolcpus=1\",\"topology\":\"cores\",\"vcpus\":\"2\",\"vms\":\"1\"}",
	  "isolate", 180000, 2 },
	{ "000000000000d003", "vm vcpus=2 topology=cores pinning=strict memory=1G sched=tuned",
	  "vm",
	  "{\"memory\":\"1073741824\",\"pinning\":\"strict\",\"sched\":\"tuned\","
	  "\"sched.debugfs.domains/MC/imbalance_pct\":\"110\","
	  "\"sched.debugfs.migration_cost_ns\":\"0\",\"sched.sysctl.kernel.numa_balancing\":\"0\","
	  "\"topology\":\"cores\",\"vcpus\":\"2\",\"vms\":\"1\"}",
	  "tuned", 62000, 1 },
};

static const struct cell race_cells[] = {
	{ "wakeup", "wakeup", "{\"message_threads\":\"1\",\"threads\":\"2\"}" },
};

static const char race_plan[] =
	"{\"claims\":[{\"kind\":\"llc\",\"state\":\"true\",\"vcpus\":\"0-1\",\"vm\":0},"
	"{\"kind\":\"node\",\"state\":\"true\",\"vcpus\":\"0-1\",\"vm\":0}],"
	"\"pinning\":\"strict\",\"schema\":1,"
	"\"topology\":{\"cores\":2,\"dies\":1,\"sockets\":1,\"threads\":1}}";

/* The guest's sched record of profile @c in round @rep (NULL: none, the
 * profile has no settings); tuned's round-2 boot read 117 back */
static char *race_sched(const struct race_cfg *c, int rep)
{
	bool bad = rep == 1;

	if (!c->sched_name)
		return NULL;
	if (!strcmp(c->sched_name, "isolate"))
		return strdup(
			"{\"type\":\"sched\",\"name\":\"isolate\",\"ok\":true,\"settings\":[],"
			"\"cmdline\":[{\"token\":\"isolcpus=1\",\"present\":true}]}");
	return vtb_asprintf(
		"{\"type\":\"sched\",\"name\":\"tuned\",\"ok\":%s,\"settings\":["
		"{\"key\":\"sysctl.kernel.numa_balancing\",\"path\":\"/proc/sys/kernel/numa_balancing\","
		"\"want\":\"0\",\"read\":\"0\",\"ok\":true},"
		"{\"key\":\"debugfs.migration_cost_ns\","
		"\"path\":\"/sys/kernel/debug/sched/migration_cost_ns\",\"want\":\"0\",\"read\":\"0\","
		"\"ok\":true},"
		"{\"key\":\"debugfs.domains/MC/imbalance_pct\","
		"\"path\":\"/sys/kernel/debug/sched/domains/cpu0/domain0/imbalance_pct\","
		"\"want\":\"110\",\"read\":\"110\",\"ok\":true},"
		"{\"key\":\"debugfs.domains/MC/imbalance_pct\","
		"\"path\":\"/sys/kernel/debug/sched/domains/cpu1/domain0/imbalance_pct\","
		"\"want\":\"110\",\"read\":\"%s\",\"ok\":%s}],\"cmdline\":[]}",
		bad ? "false" : "true", bad ? "117" : "110", bad ? "false" : "true");
}

/* The normalised tree (guestview.c's form) of kind @tree, its digest */
static char *race_tree(int tree, char digest[65])
{
	static const char mc[] =
		"[{\"flags\":[\"SD_BALANCE_EXEC\",\"SD_BALANCE_FORK\",\"SD_BALANCE_NEWIDLE\","
		"\"SD_PREFER_SIBLING\",\"SD_SHARE_PKG_RESOURCES\",\"SD_WAKE_AFFINE\"],"
		"\"name\":\"MC\",\"span\":\"0-1\"}]";
	const char *lv = tree == 1 ? mc : "[]";
	char *t = vtb_asprintf("{\"cpus\":[{\"cpu\":0,\"levels\":%s,\"llc\":\"0-1\",\"node\":0,"
			       "\"thread_siblings\":\"0\"},{\"cpu\":1,\"levels\":%s,"
			       "\"llc\":\"0-1\",\"node\":0,\"thread_siblings\":\"1\"}]}",
			       lv, lv);

	if (t && vtb_sha256_hex(t, strlen(t), digest) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

/* The wakeup cell's scheduler counters of race candidate @c at @rep,
 * shaped like explore-quick's (docs/evidence.md): default balances at MC
 * and wakes remotely; isolate has no level, every wake-up local, vCPU 1
 * idle and tasks queued on vCPU 0; tuned balances more, failing more.
 * No draw from the generator: the race's values stay as they were. */
static int race_fx_evidence(const struct race_cfg *c, int rep, const char *cell,
			    struct vtb_evidence *ev)
{
	double k = 1.0 + 0.02 * (rep - 1);
	int lb = c->tree == 2 ? 0 : (int)((c->sched_name ? 225 : 150) * k);
	int failed = c->sched_name ? lb / 5 : lb / 30;
	long long idle_run = c->tree == 2 ? 3000000 : (long long)(1.15e9 * k);
	long long wait = c->tree == 2 ? (long long)(1.25e9 * k) : (long long)(5e7 * k);
	char *g = NULL, *h = NULL, *lv = NULL;
	int ret;

	if (lb)
		lv = vtb_asprintf(
			"{\"level\":\"MC\",\"cpus\":2,\"lb\":{\"busy\":{\"count\":%d,"
			"\"balanced\":%d,\"failed\":%d,\"imbalance\":4,\"gained\":%d,"
			"\"hot_gained\":0,\"nobusyq\":0,\"nobusyg\":2},\"idle\":{\"count\":%d,"
			"\"balanced\":1,\"failed\":0,\"imbalance\":0,\"gained\":1,\"hot_gained\":0,"
			"\"nobusyq\":0,\"nobusyg\":0},\"newidle\":{\"count\":%d,\"balanced\":2,"
			"\"failed\":0,\"imbalance\":0,\"gained\":3,\"hot_gained\":0,\"nobusyq\":0,"
			"\"nobusyg\":0}},\"alb\":{\"count\":0,\"failed\":0,\"pushed\":0},"
			"\"sbe\":{\"count\":0,\"balanced\":0,\"pushed\":0},\"sbf\":{\"count\":0,"
			"\"balanced\":0,\"pushed\":0},\"ttwu\":{\"remote\":160,\"affine\":130,"
			"\"balance\":0}}",
			lb * 3 / 5, lb * 3 / 5 - failed - 10, failed, 12, lb / 5, lb / 5);
	g = vtb_asprintf(
		"{\"seconds\":2.5,\"version\":15,\"user_hz\":100,\"notes\":[],\"error\":null,"
		"\"levels\":[%s],\"cpus\":[{\"cpu\":0,\"yield\":0,\"sched\":3000,\"goidle\":900,"
		"\"ttwu\":500,\"ttwu_local\":%d,\"run_ns\":1500000000,\"wait_ns\":%lld,"
		"\"slices\":2100,\"steal\":0},{\"cpu\":1,\"yield\":0,\"sched\":2800,"
		"\"goidle\":900,\"ttwu\":500,\"ttwu_local\":%d,\"run_ns\":%lld,\"wait_ns\":%lld,"
		"\"slices\":1900,\"steal\":0}]}",
		lv ? lv : "", lb ? 420 : 500, wait, lb ? 420 : 500, idle_run, lb ? wait : 0LL);
	h = vtb_asprintf(
		"{\"seconds\":2.5,\"vcpus\":[{\"vcpu\":0,\"run_ns\":1500000000,\"wait_ns\":%lld,"
		"\"slices\":600,\"invol\":1800,\"migrations\":0,\"moves\":0,\"pcpus\":[2],"
		"\"pcpus_seen\":1},{\"vcpu\":1,\"run_ns\":%lld,\"wait_ns\":%lld,\"slices\":%d,"
		"\"invol\":%d,\"migrations\":0,\"moves\":0,\"pcpus\":[3],\"pcpus_seen\":1}]}",
		(long long)(1.3e8 * k), idle_run, lb ? (long long)(1.2e8 * k) : 200000LL,
		lb ? 560 : 30, lb ? 1700 : 25);
	ret = fx_evidence_build(cell, g, h, ev);
	free(lv);
	return ret;
}

static int race_boot(struct vtb_store *st, int64_t campaign, size_t ci, int rep, gsl_rng *r,
		     double *value)
{
	const struct race_cfg *c = &race_cfgs[ci];
	bool failed = ci == 3 && rep == 1;
	struct vtb_boot_records rec = { 0 };
	struct vtb_vm_boot_info vm = { 0 };
	struct vtb_boot_info b = { 0 };
	char uuid[37], key[17], digest[65];
	char *sched = race_sched(c, rep), *tree = c->tree ? race_tree(c->tree, digest) : NULL;
	struct vtb_evidence ev = { 0 };
	int ret = -1;

	*value = NAN;
	rec.cells = calloc(1, sizeof(*rec.cells));
	rec.samples = calloc(2, sizeof(*rec.samples));
	if (!rec.cells || !rec.samples || (c->sched_name && !sched) || (c->tree && !tree))
		goto out;
	cell_key(key, ci, 0);
	rec.cells[0] = (struct vtb_rs_cell){ .cell = strdup(key),
					     .workload = (char *)"wakeup",
					     .status = (char *)"ok",
					     .seconds = 2.5,
					     .info_json = strdup("{}") };
	rec.n_cells = 1;
	*value = noisy(r, c->p99, 0.03);
	rec.samples[rec.n_samples++] = (struct vtb_rs_sample){ .cell = strdup(key),
							       .metric = (char *)"request_p99",
							       .unit = (char *)"us",
							       .value = *value,
							       .better = 0 };
	rec.samples[rec.n_samples++] = (struct vtb_rs_sample){ .cell = strdup(key),
							       .metric = (char *)"wakeup_p99",
							       .unit = (char *)"us",
							       .value = noisy(r, c->p99 / 10, 0.2),
							       .better = 0 };
	snprintf(uuid, sizeof(uuid), "%.24s%02x%02x%02x%06d", RACE_UUID, 0x15u, (unsigned)ci,
		 (unsigned)rep, 0);
	b = (struct vtb_boot_info){
		.campaign_id = campaign,
		.uuid = uuid,
		.config_key = c->key,
		.rep = rep,
		.status = failed ? "failed" : "ok",
		.error =
			failed ? "sched profile 'tuned' not applied: debugfs.domains/MC/imbalance_pct: "
				 "'/sys/kernel/debug/sched/domains/cpu1/domain0/imbalance_pct' reads "
				 "'117' after writing '110' (guest kernel 6.1.0-57-amd64)"
			       : NULL,
		.started_ns = T0 + DAY + ((int64_t)rep * 4 + (int64_t)ci) * 20000000000LL,
		.nonce = "00000000000000000000000000000000",
		.cpus = "2-3",
		.confinement = "affinity",
	};
	b.ended_ns = b.started_ns + (c->tree ? 16000000000LL : 2000000000LL);
	if (c->tree) {
		vm = (struct vtb_vm_boot_info){
			.accelerator = "tcg",
			.cpu_model = "qemu64",
			.guest_kernel = "6.1.0-57-amd64",
			.libvirt_version = "9.0.0",
			.qemu_version = "7.2.0",
			.vms = 1,
			.claims = "[]",
			.placement = "{\"interval_ms\":50,\"samples\":40,\"off_planned_mean\":0.0,"
				     "\"off_planned_max\":0.0,\"smt_pairs\":null,"
				     "\"llc_groups\":{\"n\":1,\"split_llc\":0.0},"
				     "\"nodes\":{\"n\":1,\"split_node\":0.0}}",
			.sched = sched,
			/* isolcpus reshapes the domains: not checked against the plan */
			.topology_check = c->tree == 2 ? "unchecked" : "match",
			.view = "{}",
			.tree = tree,
			.digest = digest,
			.levels = c->tree == 1 ? "MC" : "",
		};
		b.vm = &vm;
		if (!failed) {
			if (race_fx_evidence(c, rep, key, &ev) < 0)
				goto out;
			vm.evidence = &ev.ev;
			vm.n_evidence = 1;
		}
	}
	if (vtb_store_boot(st, &b, failed ? NULL : &rec) < 0)
		goto out;
	if (failed)
		*value = NAN;
	ret = 0;
out:
	vtb_evidence_release(&ev);
	free(sched);
	free(tree);
	free_records(&rec);
	return ret;
}

/* The evidence explore stores for candidate @x dropped against @w: the
 * race's statistic on their values (q from BH over the round's @family) */
static char *race_evidence(const double *w, size_t nw, const double *x, size_t nx, double q,
			   size_t family)
{
	struct vtb_test_opts o;
	struct vtb_comparison cmp;

	vtb_test_opts_default(&o);
	vtb_compare_samples(w, nw, x, nx, VTB_MC_LATENCY, &o, &cmp);
	return vtb_asprintf(
		"{\"adjust\":\"bh\",\"best_label\":\"%s\",\"boots\":%zu,\"boots_best\":%zu,"
		"\"change_pct\":%.6g,\"ci_high_pct\":%.6g,\"ci_low_pct\":%.6g,\"class\":\"latency\","
		"\"df\":%.6g,\"family\":%zu,\"p\":%.6g,\"q\":%.6g,\"test\":\"%s\"}",
		race_cfgs[1].label, nx, nw, cmp.change_pct, cmp.ci_high_pct, cmp.ci_low_pct, cmp.df,
		family, cmp.p, q < 0 ? cmp.p : q, cmp.test);
}

static int race(struct vtb_store *st, int64_t host_id)
{
	static const struct variant v = {
		.name = "race", .uuid = RACE_UUID, .started = T0 + DAY, .seed = 121, .slow_cfg = -1
	};
	const size_t ncfg = VTB_ARRAY_SIZE(race_cfgs);
	struct cfg src[VTB_ARRAY_SIZE(race_cfgs)];
	struct vtb_config cf[VTB_ARRAY_SIZE(race_cfgs)];
	struct vtb_cell ce[VTB_ARRAY_SIZE(race_cfgs)];
	double vals[VTB_ARRAY_SIZE(race_cfgs)][RACE_ROUNDS];
	size_t nv[VTB_ARRAY_SIZE(race_cfgs)] = { 0 };
	struct vtb_race_elim_row el[2];
	struct vtb_race_row rr;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	char *ev[2] = { NULL, NULL };
	struct vtb_matrix m;
	int64_t id;
	int ret = -1;

	if (!r)
		return vtb_error("out of memory");
	gsl_rng_set(r, v.seed);
	memset(cf, 0, sizeof(cf));
	for (size_t i = 0; i < ncfg; i++)
		src[i] = (struct cfg){ race_cfgs[i].key,
				       race_cfgs[i].label,
				       race_cfgs[i].kind,
				       race_cfgs[i].params,
				       "2-3",
				       i ? race_plan : NULL,
				       1.0,
				       NULL };
	if (matrix(&m, cf, ce, ncfg, src, 1, race_cells) < 0 || begin(st, &v, host_id, &m, &id) < 0)
		goto out;
	/* round by round, interleaved: the baseline, then the candidates */
	for (int rep = 0; rep < RACE_ROUNDS; rep++)
		for (size_t i = 0; i < ncfg; i++) {
			double x;

			if (race_boot(st, id, i, rep, r, &x) < 0)
				goto out;
			if (isfinite(x))
				vals[i][nv[i]++] = x;
		}
	/* round 3: isolate and tuned against default, BH over the two */
	{
		struct vtb_test_opts o;
		struct vtb_comparison a, b;
		double qa, qb;

		vtb_test_opts_default(&o);
		vtb_compare_samples(vals[1], nv[1], vals[2], nv[2], VTB_MC_LATENCY, &o, &a);
		vtb_compare_samples(vals[1], nv[1], vals[3], nv[3], VTB_MC_LATENCY, &o, &b);
		qa = a.p <= b.p ? fmin(2 * a.p, b.p) : a.p;
		qb = b.p < a.p ? fmin(2 * b.p, a.p) : b.p;
		ev[0] = race_evidence(vals[1], nv[1], vals[2], nv[2], qa, 2);
		ev[1] = race_evidence(vals[1], nv[1], vals[3], nv[3], qb, 2);
	}
	if (!ev[0] || !ev[1])
		goto out;
	el[0] = (struct vtb_race_elim_row){
		3, race_cfgs[2].key, "wakeup/request_p99", race_cfgs[1].key, "worse", ev[0]
	};
	el[1] = (struct vtb_race_elim_row){
		3, race_cfgs[3].key, "wakeup/request_p99", race_cfgs[1].key, "worse", ev[1]
	};
	rr = (struct vtb_race_row){
		.objective = "[{\"better\":\"lower\",\"cell\":\"wakeup\",\"class\":\"latency\","
			     "\"metric\":\"request_p99\",\"unit\":\"us\"}]",
		.candidates = "[\"000000000000d001\",\"000000000000d002\",\"000000000000d003\"]",
		.stop = "one",
		.winners = "[\"000000000000d001\"]",
		.rounds = RACE_ROUNDS,
		.boots = 3 * RACE_ROUNDS,
		.updated_ns = T0 + DAY + 3600000000000LL,
	};
	if (vtb_store_race_save(st, id, &rr, el, 2) < 0 ||
	    vtb_store_campaign_end_at(st, id, "done", T0 + DAY + 3600000000000LL) < 0)
		goto out;
	ret = 0;
out:
	free(ev[0]);
	free(ev[1]);
	for (size_t i = 0; i < ncfg; i++)
		vtb_cpuset_release(&cf[i].cpus);
	gsl_rng_free(r);
	return ret;
}

/*
 * The benchmark's database: 100 bare-metal configurations ("baseline
 * cpus=1" .. "baseline cpus=100") x 100 wakeup cells x 10 metrics x 10
 * boots: 1,000,000 samples in 10,000 cells, 1,000 boots.  By default
 * compare has no row to make (baselines only: the per-configuration
 * summary, 100,000 series); with --baseline 'baseline cpus=1' it makes
 * 99,000 rows.
 */
#define BIG_CFGS 100
#define BIG_CELLS 100
#define BIG_REPS 10

static const struct {
	const char *name, *unit;
	double mean;
	int better;
} big_metrics[] = {
	{ "wakeup_p50", "us", 60, 0 },	  { "wakeup_p90", "us", 70, 0 },
	{ "wakeup_p99", "us", 90, 0 },	  { "wakeup_p999", "us", 120, 0 },
	{ "request_p50", "us", 2400, 0 }, { "request_p90", "us", 2700, 0 },
	{ "request_p99", "us", 3200, 0 }, { "request_p999", "us", 3900, 0 },
	{ "request_max", "us", 5000, 0 }, { "rps", "rps", 240, 1 },
};
#define BIG_METRICS VTB_ARRAY_SIZE(big_metrics)

/* One boot of configuration @i, rep @rep: every cell and metric. */
static int big_boot(struct vtb_store *st, gsl_rng *r, int64_t id, const struct cfg *cf,
		    struct vtb_cell *ce, size_t i, int rep, struct vtb_boot_records *rec)
{
	/* configurations a few percent apart, cells a little */
	double factor = 1 + (double)(i % 7) * 0.01;
	struct vtb_boot_info b;
	char uuid[37];

	for (size_t j = 0; j < BIG_CELLS; j++) {
		rec->cells[j] = (struct vtb_rs_cell){ .cell = ce[i * BIG_CELLS + j].key,
						      .workload = (char *)"wakeup",
						      .status = (char *)"ok",
						      .seconds = 1 };
		for (size_t k = 0; k < BIG_METRICS; k++) {
			double m = big_metrics[k].mean * (1 + (double)(j % 10) * 0.001);

			rec->samples[j * BIG_METRICS + k] = (struct vtb_rs_sample){
				.cell = ce[i * BIG_CELLS + j].key,
				.metric = (char *)big_metrics[k].name,
				.unit = (char *)big_metrics[k].unit,
				.value = noisy(r, big_metrics[k].better ? m / factor : m * factor,
					       0.02),
				.better = big_metrics[k].better,
			};
		}
	}
	rec->n_cells = BIG_CELLS;
	rec->n_samples = BIG_CELLS * BIG_METRICS;
	snprintf(uuid, sizeof(uuid), "b1600000-0000-4000-8000-%04zx%08x", i, rep);
	b = (struct vtb_boot_info){ .campaign_id = id,
				    .uuid = uuid,
				    .config_key = cf[i].key,
				    .rep = rep,
				    .status = "ok",
				    .started_ns = T0 + rep,
				    .ended_ns = T0 + rep + 1 };
	return vtb_store_boot(st, &b, rec);
}

static int big(struct vtb_store *st, int64_t host_id)
{
	static const struct cell wc = { "cell", "wakeup", "{}" };
	struct cfg *cfgs = calloc(BIG_CFGS, sizeof(*cfgs));
	char(*keys)[17] = calloc(BIG_CFGS, sizeof(*keys));
	char(*labels)[32] = calloc(BIG_CFGS, sizeof(*labels));
	char(*params)[32] = calloc(BIG_CFGS, sizeof(*params));
	struct vtb_config *cf = calloc(BIG_CFGS, sizeof(*cf));
	struct vtb_cell *ce = calloc(BIG_CFGS * BIG_CELLS, sizeof(*ce));
	struct cell *cs = calloc(BIG_CELLS, sizeof(*cs));
	char(*names)[16] = calloc(BIG_CELLS, sizeof(*names));
	struct vtb_boot_records rec = { 0 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct vtb_matrix m;
	int64_t id;
	int ret = -1;

	if (!cfgs || !keys || !labels || !params || !cf || !ce || !cs || !names || !r)
		goto out;
	gsl_rng_set(r, 44);
	for (size_t i = 0; i < BIG_CFGS; i++) {
		snprintf(keys[i], sizeof(keys[i]), "%016zx", (size_t)0xb100 + i);
		snprintf(labels[i], sizeof(labels[i]), "baseline cpus=%zu", i + 1);
		snprintf(params[i], sizeof(params[i]), "{\"cpus\":\"%zu\"}", i + 1);
		cfgs[i] = (struct cfg){ keys[i], labels[i], "baseline", params[i], "2", NULL, 1,
					NULL };
	}
	for (size_t j = 0; j < BIG_CELLS; j++) {
		snprintf(names[j], sizeof(names[j]), "cell%03zu", j);
		cs[j] = wc;
		cs[j].name = names[j];
	}
	if (matrix(&m, cf, ce, BIG_CFGS, cfgs, BIG_CELLS, cs) < 0 ||
	    begin(st, &variants[0], host_id, &m, &id) < 0)
		goto out;
	rec.cells = calloc(BIG_CELLS, sizeof(*rec.cells));
	rec.samples = calloc(BIG_CELLS * BIG_METRICS, sizeof(*rec.samples));
	if (!rec.cells || !rec.samples)
		goto out;
	for (int rep = 0; rep < BIG_REPS; rep++)
		for (size_t i = 0; i < BIG_CFGS; i++)
			if (big_boot(st, r, id, cfgs, ce, i, rep, &rec) < 0)
				goto out;
	if (vtb_store_campaign_end_at(st, id, "done", T0 + 3600000000000LL) < 0)
		goto out;
	ret = 0;
out:
	for (size_t i = 0; cf && i < BIG_CFGS; i++)
		vtb_cpuset_release(&cf[i].cpus);
	free(rec.cells);
	free(rec.samples);
	free(cfgs);
	free(keys);
	free(labels);
	free(params);
	free(cf);
	free(ce);
	free(cs);
	free(names);
	if (r)
		gsl_rng_free(r);
	return ret;
}

int main(int argc, char **argv)
{
	struct vtb_store *st = NULL;
	bool big_db = false;
	int64_t host_id;
	int i = 1, ret = 0;

	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("%d\n", FIXTURE_VERSION);
		return 0;
	}
	if (i < argc && !strcmp(argv[i], "--big")) {
		big_db = true;
		i++;
	}
	if (i >= argc || (big_db && i + 1 != argc)) {
		fprintf(stderr,
			"usage: mkfixture OUT.db [base|clean|slow|other|gaps|stream|failed|bare|one|slowboot|allfail|race]...\n"
			"       mkfixture --big OUT.db\n"
			"       mkfixture --version\n");
		return 2;
	}
	if (access(argv[i], F_OK) == 0) {
		fprintf(stderr, "mkfixture: '%s' exists; remove it first\n", argv[i]);
		return 2;
	}
	if (vtb_store_open(argv[i], &st) < 0)
		return die("open");
	if (host(st, &host_id) < 0) {
		ret = die("host");
		goto out;
	}
	if (big_db) {
		if (big(st, host_id) < 0)
			ret = die("big");
		goto out;
	}
	for (i++; i < argc; i++) {
		size_t v;

		if (!strcmp(argv[i], "race")) {
			if (race(st, host_id) < 0) {
				ret = die("race");
				goto out;
			}
			continue;
		}
		for (v = 0; v < VTB_ARRAY_SIZE(variants) && strcmp(variants[v].name, argv[i]); v++)
			;
		if (v == VTB_ARRAY_SIZE(variants)) {
			fprintf(stderr,
				"mkfixture: unknown variant '%s' (base, clean, slow, other, gaps, stream, failed, bare, one, slowboot, allfail, race)\n",
				argv[i]);
			ret = 2;
			goto out;
		}
		if (small(st, &variants[v], host_id) < 0) {
			ret = die(variants[v].name);
			goto out;
		}
	}
out:
	vtb_store_close(st);
	return ret;
}
