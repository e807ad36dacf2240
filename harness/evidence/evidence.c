/* SPDX-License-Identifier: MIT */
/* Per-cell scheduler evidence: see evidence.h and docs/evidence.md. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/vtbutil.h"
#include "evidence.h"

/* At most: 4 totals per level over 16 levels, and the rest */
#define MAX_METRICS 96
/* An interval shorter than this gives no rate: a guest's "seconds" of
 * 1e-300 would make rates no sum can hold */
#define MIN_SECONDS 1e-3

bool vtb_evidence_metric(const char *metric)
{
	return metric && !strncmp(metric, VTB_EVIDENCE_PREFIX, strlen(VTB_EVIDENCE_PREFIX));
}

void vtb_evidence_level_key(const char *level, char out[16])
{
	size_t n = 0;

	out[0] = '\0';
	if (!level)
		return;
	if (!strcmp(level, "DIE") || !strcmp(level, "PKG")) {
		strcpy(out, "pkg");
		return;
	}
	for (const char *p = level; *p && n < 15; p++) {
		int c = tolower((unsigned char)*p);

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			out[n++] = (char)c;
	}
	out[n] = '\0';
}

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : 0.0;
}

static bool has(const json_t *o, const char *k)
{
	return json_is_number(json_object_get(o, k));
}

struct acc {
	struct vtb_evidence *e;
	size_t cap;
	int failed;
};

static void add(struct acc *a, const char *name, const char *unit, double value)
{
	char *n;

	if (a->failed || !isfinite(value))
		return;
	if (a->e->n_metrics == a->cap) {
		a->failed = 1;
		vtb_error("too many evidence metrics");
		return;
	}
	n = vtb_asprintf(VTB_EVIDENCE_PREFIX "%s", name);
	if (!n) {
		a->failed = 1;
		vtb_error("out of memory");
		return;
	}
	a->e->names[a->e->n_metrics] = n;
	a->e->metrics[a->e->n_metrics++] = (struct vtb_evidence_metric){ .metric = n,
									 .unit = unit,
									 .value = value };
}

static const char *const idle_types[] = { "busy", "idle", "newidle" };

/* Load balancing at one level: attempts, failures, tasks moved. */
static void level_sums(const json_t *lv, double *count, double *failed, double *moved)
{
	const json_t *lb = json_object_get(lv, "lb");

	*count = *failed = *moved = 0;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(idle_types); i++) {
		const json_t *t = json_object_get(lb, idle_types[i]);

		*count += num(t, "count");
		*failed += num(t, "failed");
		*moved += num(t, "gained");
	}
	*moved += num(json_object_get(lv, "alb"), "pushed");
}

static void guest_metrics(struct acc *a, const json_t *g)
{
	const json_t *levels = json_object_get(g, "levels"), *cpus = json_object_get(g, "cpus");
	double secs = num(g, "seconds"), hz = num(g, "user_hz");
	double lb = 0, failed = 0, moved = 0, affine = 0;
	double ttwu = 0, local = 0, wait = 0, slices = 0, steal = 0;
	size_t ncpu = json_array_size(cpus), nsteal = 0, i;
	const json_t *v;

	if (!(secs >= MIN_SECONDS) || json_is_string(json_object_get(g, "error")))
		return;
	json_array_foreach(levels, i, v)
	{
		char key[16], name[48];
		double c, f, m;

		level_sums(v, &c, &f, &m);
		lb += c;
		failed += f;
		moved += m;
		affine += num(json_object_get(v, "ttwu"), "affine");
		vtb_evidence_level_key(json_string_value(json_object_get(v, "level")), key);
		if (!*key)
			continue;
		snprintf(name, sizeof(name), "%s_lb_per_s", key);
		add(a, name, "1/s", c / secs);
		snprintf(name, sizeof(name), "%s_moved_per_s", key);
		add(a, name, "1/s", m / secs);
		if (c > 0) {
			snprintf(name, sizeof(name), "%s_lb_failed_pct", key);
			add(a, name, "%", 100.0 * f / c);
		}
	}
	json_array_foreach(cpus, i, v)
	{
		ttwu += num(v, "ttwu");
		local += num(v, "ttwu_local");
		wait += num(v, "wait_ns");
		slices += num(v, "slices");
		if (has(v, "steal")) {
			steal += num(v, "steal");
			nsteal++;
		}
	}
	add(a, "lb_per_s", "1/s", lb / secs);
	add(a, "moved_per_s", "1/s", moved / secs);
	if (lb > 0)
		add(a, "lb_failed_pct", "%", 100.0 * failed / lb);
	if (ttwu > 0) {
		/* a remote wake-up: the woken task's CPU is not the waker's */
		add(a, "wake_remote_pct", "%", 100.0 * (ttwu > local ? ttwu - local : 0) / ttwu);
		add(a, "wake_affine_pct", "%", 100.0 * affine / ttwu);
	}
	if (ncpu) {
		/* the mean number of tasks runnable but waiting, per CPU */
		add(a, "guest_runq_wait", "tasks", wait / (secs * 1e9 * (double)ncpu));
		add(a, "slices_per_s", "1/s", slices / secs);
	}
	if (nsteal && hz > 0)
		add(a, "steal_pct", "%", 100.0 * steal / (secs * hz * (double)nsteal));
}

static void host_metrics(struct acc *a, const json_t *h)
{
	const json_t *vcpus = json_object_get(h, "vcpus"), *v;
	double secs = num(h, "seconds"), wait = 0, invol = 0, mig = 0, seen = 0, run = 0;
	double run_min = INFINITY;
	size_t n = 0, nseen = 0, i;

	if (!(secs >= MIN_SECONDS))
		return;
	json_array_foreach(vcpus, i, v)
	{
		if (has(v, "pcpus_seen") && num(v, "pcpus_seen") > 0) {
			seen += num(v, "pcpus_seen");
			nseen++;
		}
		if (!has(v, "wait_ns"))
			continue;
		wait += num(v, "wait_ns");
		run += num(v, "run_ns");
		if (num(v, "run_ns") < run_min)
			run_min = num(v, "run_ns");
		invol += num(v, "invol");
		mig += num(v, "migrations");
		n++;
	}
	if (n) {
		/* of the time each vCPU could have run: runnable, not running */
		add(a, "vcpu_run_delay_pct", "%", 100.0 * wait / (secs * 1e9 * (double)n));
		add(a, "vcpu_preempt_per_s", "1/s", invol / secs);
		add(a, "vcpu_migrations_per_s", "1/s", mig / secs);
		/* how busy the vCPUs were, and the least busy one: a vCPU the
		 * guest's scheduler leaves idle (isolcpus) shows here */
		add(a, "vcpu_busy_pct", "%", 100.0 * run / (secs * 1e9 * (double)n));
		add(a, "vcpu_busy_min_pct", "%", 100.0 * run_min / (secs * 1e9));
	}
	if (nseen)
		add(a, "vcpu_pcpus", "cpus", seen / (double)nseen);
}

static char *dump(const json_t *j)
{
	return json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
}

int vtb_evidence_build(const char *cell, const json_t *guest, const json_t *host,
		       struct vtb_evidence *out)
{
	struct acc a = { .e = out, .cap = MAX_METRICS };
	json_t *g = NULL;

	memset(out, 0, sizeof(*out));
	out->cell = vtb_strdup(cell);
	out->metrics = calloc(MAX_METRICS, sizeof(*out->metrics));
	out->names = calloc(MAX_METRICS, sizeof(*out->names));
	if (!out->cell || !out->metrics || !out->names)
		goto oom;
	if (json_is_object(guest)) {
		g = json_deep_copy(guest);
		if (!g)
			goto oom;
		json_object_del(g, "type");
		json_object_del(g, "cell");
		out->guest = dump(g);
		if (!out->guest)
			goto oom;
		guest_metrics(&a, g);
	}
	if (json_is_object(host)) {
		out->host = dump(host);
		if (!out->host)
			goto oom;
		host_metrics(&a, host);
	}
	json_decref(g);
	if (a.failed) {
		vtb_evidence_release(out);
		return -1;
	}
	out->ev = (struct vtb_cell_evidence){ .cell = out->cell,
					      .guest = out->guest,
					      .host = out->host,
					      .metrics = out->metrics,
					      .n_metrics = out->n_metrics };
	return 0;
oom:
	json_decref(g);
	vtb_evidence_release(out);
	return vtb_error("out of memory");
}

void vtb_evidence_release(struct vtb_evidence *e)
{
	if (!e)
		return;
	for (size_t i = 0; e->names && i < e->n_metrics; i++)
		free(e->names[i]);
	free(e->names);
	free(e->metrics);
	free(e->cell);
	free(e->guest);
	free(e->host);
	memset(e, 0, sizeof(*e));
}
