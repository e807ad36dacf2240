/* SPDX-License-Identifier: MIT */
/*
 * Placement summary: counts per vCPU and per claimed group, updated per
 * sample.  The host model is flattened into per-OS-number arrays of
 * core, LLC and node indexes at creation, so a sample costs a few array
 * lookups per vCPU and per group member, and the accumulator owns all it
 * reads (the plan and the model may go before the summary is made).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"

enum { LV_CORE, LV_LLC, LV_NODE, LV_N };

struct vcpu_acc {
	int tid;		/* -1 unknown */
	struct vtb_cpuset plan; /* planned set; empty without a plan */
	struct vtb_cpuset seen; /* CPUs it was seen on */
	uint64_t samples, off;	/* known samples, of which outside plan */
	int readings;		/* counter readings */
	uint64_t mig0, mig1, rd0, rd1;
};

struct gset {
	size_t n;
	struct vtb_cpuset *groups; /* vCPU sets */
	uint64_t obs[LV_N], split[LV_N];
};

struct vtb_placement {
	int n;
	uint64_t interval_ns;
	const char *source;
	bool planned;
	struct vcpu_acc *v;
	struct gset g[3]; /* by enum vtb_claim_kind */
	int max_os;	  /* -1: no host model */
	int *lvl[LV_N];	  /* [os]: group index at the level, -1 unknown */
	uint64_t samples;
	char **live_pins;
	int n_live_pins;
	int *tmp; /* per member: group at a level */
};

static int copy_set(const struct vtb_cpuset *src, struct vtb_cpuset *dst)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		if (vtb_cpuset_add(dst, src->cpus[i]))
			return -1;
	return 0;
}

static int flatten(struct vtb_placement *p, const struct vtb_topo *t)
{
	size_t i;
	int l;

	p->max_os = t->max_os;
	for (l = 0; l < LV_N; l++) {
		p->lvl[l] = malloc(((size_t)t->max_os + 1) * sizeof(int));
		if (!p->lvl[l])
			return vtb_error("out of memory");
		for (i = 0; i <= (size_t)t->max_os; i++)
			p->lvl[l][i] = -1;
	}
	for (i = 0; i < t->n_pus; i++) {
		const struct vtb_topo_pu *pu = &t->pus[i];

		if (pu->os < 0 || pu->os > t->max_os || !pu->online)
			continue;
		p->lvl[LV_CORE][pu->os] = pu->core;
		p->lvl[LV_LLC][pu->os] = pu->llc;
		p->lvl[LV_NODE][pu->os] = pu->node;
	}
	return 0;
}

static int add_group(struct gset *g, const struct vtb_cpuset *vcpus)
{
	struct vtb_cpuset *ng = realloc(g->groups, (g->n + 1) * sizeof(*ng));

	if (!ng)
		return vtb_error("out of memory");
	g->groups = ng;
	memset(&ng[g->n], 0, sizeof(ng[g->n]));
	g->n++;
	return copy_set(vcpus, &ng[g->n - 1]);
}

int vtb_placement_new(const struct vtb_plan *plan, int vm, const struct vtb_topo *t, int n_vcpus,
		      uint64_t interval_ns, struct vtb_placement **out)
{
	struct vtb_placement *p;
	size_t i;
	int v;

	*out = NULL;
	if (n_vcpus < 1)
		return vtb_error("no vCPUs to place");
	if (plan && (vm < 0 || vm >= plan->req.vms))
		return vtb_error("no VM %d in the plan", vm);
	if (plan && plan->req.vcpus != n_vcpus)
		return vtb_error("the plan has %d vCPUs per VM, not %d", plan->req.vcpus, n_vcpus);
	p = calloc(1, sizeof(*p));
	if (!p)
		return vtb_error("out of memory");
	p->n = n_vcpus;
	p->interval_ns = interval_ns;
	p->source = "proc";
	p->max_os = -1;
	p->v = calloc((size_t)n_vcpus, sizeof(*p->v));
	p->tmp = calloc((size_t)n_vcpus, sizeof(int));
	if (!p->v || !p->tmp) {
		vtb_error("out of memory");
		goto fail;
	}
	for (v = 0; v < n_vcpus; v++)
		p->v[v].tid = -1;
	if (plan) {
		const struct vtb_plan_vm *m = &plan->vm[vm];

		p->planned = true;
		for (v = 0; v < n_vcpus; v++)
			if (m->pins ? copy_set(&m->pins[v], &p->v[v].plan)
				    : vtb_cpuset_add(&p->v[v].plan, m->pcpu[v]))
				goto fail;
		for (i = 0; i < plan->n_claims; i++) {
			const struct vtb_claim *c = &plan->claims[i];

			if (c->vm != vm)
				continue;
			for (size_t k = 0; k < c->vcpus.n; k++)
				if (c->vcpus.cpus[k] < 0 || c->vcpus.cpus[k] >= n_vcpus) {
					vtb_error("a claim names vCPU %d of %d", c->vcpus.cpus[k],
						  n_vcpus);
					goto fail;
				}
			if (add_group(&p->g[c->kind], &c->vcpus))
				goto fail;
		}
	}
	if (t && flatten(p, t))
		goto fail;
	*out = p;
	return 0;
fail:
	vtb_placement_free(p);
	return -1;
}

void vtb_placement_free(struct vtb_placement *p)
{
	size_t i;
	int v;

	if (!p)
		return;
	for (v = 0; p->v && v < p->n; v++) {
		vtb_cpuset_release(&p->v[v].plan);
		vtb_cpuset_release(&p->v[v].seen);
	}
	free(p->v);
	for (v = 0; v < 3; v++) {
		for (i = 0; i < p->g[v].n; i++)
			vtb_cpuset_release(&p->g[v].groups[i]);
		free(p->g[v].groups);
	}
	for (v = 0; v < LV_N; v++)
		free(p->lvl[v]);
	for (v = 0; v < p->n_live_pins; v++)
		free(p->live_pins[v]);
	free(p->live_pins);
	free(p->tmp);
	free(p);
}

int vtb_placement_vcpus(const struct vtb_placement *p)
{
	return p->n;
}

void vtb_placement_set_source(struct vtb_placement *p, const char *source)
{
	p->source = source;
}

void vtb_placement_set_tid(struct vtb_placement *p, int vcpu, int tid)
{
	if (vcpu >= 0 && vcpu < p->n)
		p->v[vcpu].tid = tid;
}

static int level_of(const struct vtb_placement *p, int l, int cpu)
{
	return cpu >= 0 && cpu <= p->max_os ? p->lvl[l][cpu] : -1;
}

/* One observation of @g at every level. */
static void observe(struct vtb_placement *p, struct gset *gs, const struct vtb_cpuset *g,
		    const int *cpus)
{
	size_t i;
	int l;

	for (i = 0; i < g->n; i++)
		if (cpus[g->cpus[i]] < 0)
			return;
	for (l = 0; l < LV_N; l++) {
		bool known = true, split = false;

		for (i = 0; i < g->n && known; i++) {
			p->tmp[i] = level_of(p, l, cpus[g->cpus[i]]);
			known = p->tmp[i] >= 0;
			if (i && p->tmp[i] != p->tmp[0])
				split = true;
		}
		if (!known)
			continue;
		gs->obs[l]++;
		gs->split[l] += split;
	}
}

int vtb_placement_add(struct vtb_placement *p, const int *cpus)
{
	size_t i;
	int v, k, known = 0;

	for (v = 0; v < p->n; v++)
		known += cpus[v] >= 0;
	if (!known)
		return 0;
	p->samples++;
	for (v = 0; v < p->n; v++) {
		struct vcpu_acc *a = &p->v[v];

		if (cpus[v] < 0)
			continue;
		a->samples++;
		if (p->planned && !vtb_cpuset_has(&a->plan, cpus[v]))
			a->off++;
		if (!vtb_cpuset_has(&a->seen, cpus[v]) && vtb_cpuset_add(&a->seen, cpus[v]))
			return -1;
	}
	if (p->max_os < 0)
		return 0;
	for (k = 0; k < 3; k++)
		for (i = 0; i < p->g[k].n; i++)
			observe(p, &p->g[k], &p->g[k].groups[i], cpus);
	return 0;
}

void vtb_placement_counters(struct vtb_placement *p, int vcpu, uint64_t migrations,
			    uint64_t run_delay_ns)
{
	struct vcpu_acc *a;

	if (vcpu < 0 || vcpu >= p->n)
		return;
	a = &p->v[vcpu];
	if (!a->readings) {
		a->mig0 = migrations;
		a->rd0 = run_delay_ns;
	}
	a->mig1 = migrations;
	a->rd1 = run_delay_ns;
	a->readings++;
}

int vtb_placement_set_live_pins(struct vtb_placement *p, const char *const *pins, int n)
{
	char **np = calloc(n > 0 ? (size_t)n : 1, sizeof(*np));
	int i;

	if (!np)
		return vtb_error("out of memory");
	for (i = 0; i < n; i++) {
		np[i] = vtb_strdup(pins[i]);
		if (!np[i]) {
			while (i--)
				free(np[i]);
			free(np);
			return vtb_error("out of memory");
		}
	}
	for (i = 0; i < p->n_live_pins; i++)
		free(p->live_pins[i]);
	free(p->live_pins);
	p->live_pins = np;
	p->n_live_pins = n;
	return 0;
}

/* ------------------------------------------------------------------ JSON */

static json_t *set_json(const struct vtb_cpuset *s)
{
	char *f = vtb_cpuset_format(s);
	json_t *j = f ? json_string(f) : NULL;

	free(f);
	return j;
}

static json_t *frac(uint64_t num, uint64_t den)
{
	return den ? json_real((double)num / (double)den) : json_null();
}

/* {"n":..., "split_core":..., ...} for the levels @from..LV_NODE, or null
 * when the VM has no such groups. */
static json_t *groups_json(const struct gset *g, int from)
{
	static const char *const names[LV_N] = { "split_core", "split_llc", "split_node" };
	json_t *o;
	int l;

	if (!g->n)
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "n", json_integer((json_int_t)g->n));
	for (l = from; l < LV_N; l++)
		json_object_set_new(o, names[l], frac(g->split[l], g->obs[l]));
	return o;
}

char *vtb_placement_json(const struct vtb_placement *p)
{
	json_t *root = json_object(), *vcpus = json_array(), *pins;
	double max = 0, sum = 0;
	int v, with = 0;
	char *text = NULL;

	if (!root || !vcpus)
		goto out;
	for (v = 0; v < p->n; v++) {
		const struct vcpu_acc *a = &p->v[v];
		bool counters = a->readings >= 2;
		json_t *o = json_object();

		if (!o)
			goto out;
		json_object_set_new(o, "vcpu", json_integer(v));
		json_object_set_new(o, "tid", a->tid >= 0 ? json_integer(a->tid) : json_null());
		json_object_set_new(o, "planned", p->planned ? set_json(&a->plan) : json_null());
		json_object_set_new(o, "samples", json_integer((json_int_t)a->samples));
		json_object_set_new(o, "off_planned",
				    p->planned ? frac(a->off, a->samples) : json_null());
		json_object_set_new(o, "cpus_seen", set_json(&a->seen));
		json_object_set_new(o, "migrations",
				    counters ? json_integer((json_int_t)(a->mig1 - a->mig0))
					     : json_null());
		json_object_set_new(o, "run_delay_ns",
				    counters ? json_integer((json_int_t)(a->rd1 - a->rd0))
					     : json_null());
		json_array_append_new(vcpus, o);
		if (p->planned && a->samples) {
			double f = (double)a->off / (double)a->samples;

			max = f > max ? f : max;
			sum += f;
			with++;
		}
	}
	if (p->live_pins) {
		pins = json_array();
		for (v = 0; pins && v < p->n_live_pins; v++)
			json_array_append_new(pins, json_string(p->live_pins[v]));
	} else {
		pins = json_null();
	}
	/* whole milliseconds as an integer, as spec E shows it */
	json_object_set_new(root, "interval_ms",
			    p->interval_ns % 1000000
				    ? json_real((double)p->interval_ns / 1e6)
				    : json_integer((json_int_t)(p->interval_ns / 1000000)));
	json_object_set_new(root, "samples", json_integer((json_int_t)p->samples));
	json_object_set_new(root, "source", json_string(p->source));
	json_object_set_new(root, "vcpus", vcpus);
	vcpus = NULL;
	json_object_set_new(root, "off_planned_max", with ? json_real(max) : json_null());
	json_object_set_new(root, "off_planned_mean", with ? json_real(sum / with) : json_null());
	json_object_set_new(root, "smt_pairs",
			    p->max_os >= 0 ? groups_json(&p->g[VTB_CLAIM_SMT], LV_CORE)
					   : json_null());
	json_object_set_new(root, "llc_groups",
			    p->max_os >= 0 ? groups_json(&p->g[VTB_CLAIM_LLC], LV_LLC)
					   : json_null());
	json_object_set_new(root, "nodes",
			    p->max_os >= 0 ? groups_json(&p->g[VTB_CLAIM_NODE], LV_NODE)
					   : json_null());
	json_object_set_new(root, "live_pins", pins);
	text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(6));
out:
	json_decref(vcpus);
	json_decref(root);
	if (!text)
		vtb_error("out of memory");
	return text;
}

char *vtb_placement_claims_json(const struct vtb_plan *plan, int vm)
{
	json_t *a = json_array();
	char *text = NULL;
	size_t i;

	for (i = 0; a && i < plan->n_claims; i++) {
		const struct vtb_claim *c = &plan->claims[i];

		if (c->vm != vm)
			continue;
		if (json_array_append_new(a, json_pack("{s:s, s:i, s:o, s:s}", "kind",
						       vtb_claim_kind_name(c->kind), "vm", c->vm,
						       "vcpus", set_json(&c->vcpus), "state",
						       vtb_claim_state_name(c->state))))
			break;
	}
	if (a && i == plan->n_claims)
		text = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(a);
	if (!text)
		vtb_error("out of memory");
	return text;
}
