/* SPDX-License-Identifier: MIT */
/* vtbench plan: the dry run.  Every configuration and cell, with keys;
 * for VM configurations the placement plan (vCPU -> pCPU map, virtual
 * topology, node binding, claims) and, with --xml-dir, their domain XML. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../workloads/workload.h"
#include "cmd.h"
#include "../matrix/conf.h"
#include "../plan/cfgplan.h"
#include "../boot/domspec.h"
#include "../boot/domxml.h"
#include "../boot/guest.h"
#include "../explore/explore.h"
#include "../host/hosttopo.h"
#include "../matrix/digest.h"
#include "estimate.h"
#include "../plan/plan.h"
#include "../plan/sched.h"
#include "../store/store.h"

static const char *const text_json[] = { "text", "json", NULL };
static const char *const accels[] = { "kvm", "tcg", NULL };

enum {
	OPT_FORMAT = 256,
	OPT_HOST_TOPOLOGY,
	OPT_REPS,
	OPT_XML_DIR,
	OPT_ACCEL,
	OPT_TIMING,
	OPT_HELP_MATRIX,
	OPT_DB,
	OPT_QUIET = 'q',
};

static const struct vtb_cli_opt plan_opts[] = {
	{ .name = "format",
	  .id = OPT_FORMAT,
	  .arg = "FMT",
	  .values = text_json,
	  .help = "output format: text (default) or json" },
	{ .name = "host-topology",
	  .id = OPT_HOST_TOPOLOGY,
	  .arg = "SPEC",
	  .help = "plan for another host (default: this machine): an hwloc XML file, an hwloc "
		  "synthetic description (or a FILE.synthetic holding one), caps:FILE (virsh capabilities) or libvirt:URI; see "
		  "'vtbench topo --help'" },
	{ .name = "reps",
	  .id = OPT_REPS,
	  .arg = "N|auto",
	  .help = "override the matrix's reps = (auto: its min_reps and max_reps, default 3 and "
		  "20)" },
	{ .name = "xml-dir",
	  .id = OPT_XML_DIR,
	  .arg = "DIR",
	  .help = "write each VM configuration's libvirt domain XML to DIR/KEY.xml (KEY-vmN.xml "
		  "for vms > 1); DIR is created as by mkdir -p" },
	{ .name = "accel",
	  .id = OPT_ACCEL,
	  .arg = "ACCEL",
	  .values = accels,
	  .help = "domain type of those files: kvm or tcg (default)" },
	{ .name = "timing",
	  .id = OPT_TIMING,
	  .help = "time planning and domain XML per VM configuration (stderr; what 'make bench' "
		  "prints)" },
	{ .name = "quiet",
	  .id = OPT_QUIET,
	  .shortopt = 'q',
	  .help = "text: only the summary (matrix, host, counts), the configurations that "
		  "cannot run and the explore block without its candidates" },
	{ .name = "db",
	  .id = OPT_DB,
	  .arg = "FILE",
	  .help = "results database: a configuration whose sched profile sets a sysctl or debugfs "
		  "knob its guest kernel image lacks (by the probe a boot of that image stored) is "
		  "not runnable; each configuration says whether its knobs were checked, and "
		  "against which boot's probe; the time estimate uses the stored boot times" },
	{ .name = "help-matrix",
	  .id = OPT_HELP_MATRIX,
	  .help = "the matrix.conf reference (sections, keys, defaults)" },
	{ 0 },
};

const struct vtb_cli plan_cli = {
	.cmd = "plan",
	.usage = "MATRIX.conf [options]",
	.about = "Shows what 'vtbench run' would do: every configuration (key, CPUs, memory\n"
		 "nodes, whether it can run) and every cell (key, workload, resolved\n"
		 "parameters, times and sizes with units), the number of boots and the\n"
		 "time they take (with --db by the stored boots of the same\n"
		 "configurations, else by a stated per-boot model).  With [explore], what\n"
		 "'vtbench explore' would race: the objective, the rounds and budgets, the\n"
		 "candidates with their baselines, and the boots and time a round and the\n"
		 "whole race take at most.  Runs nothing.\n",
	.opts = plan_opts,
	.exits = "0 planned (configurations that cannot run on this host are listed as such), "
		 "2 usage or input error (the matrix, --host-topology), 3 infrastructure failure "
		 "(this host's topology or libvirt cannot be read, a file cannot be written).",
};

static const char *const order_names[] = { "interleave", "sequential", "random" };

/*
 * What plan --db found out about a VM configuration's sched knobs (its
 * profile's sysctls and debugfs knobs) against the probe the latest
 * boot of its guest kernel image stored.
 */
enum knob_state { KNOBS_NONE, KNOBS_UNCHECKED, KNOBS_CHECKED, KNOBS_LACKING };
static const char *const knob_state_names[] = { "none", "unchecked", "checked", "lacking" };

struct knob_note {
	enum knob_state state;
	const char *kernel;  /* the [kernel NAME] or path; NULL: the default kernel */
	const char *path;    /* the image; NULL: no default kernel found */
	const char *sha256;  /* of the image; NULL without one */
	const char *release; /* the default kernel's, from its header */
	const char *why;     /* no image: why none was found */
	char *lacks;	     /* LACKING: "lacks sysctl NAME (sysctl.NAME)" */
	json_t *unchecked;   /* CHECKED, LACKING: keys the probe cannot judge */
	char *boot;	     /* the probe's boot uuid */
	int64_t started_ns;  /* ... and when it started */
};

/* The default guest kernel (no [vm] kernel =), as run picks it. */
struct default_kernel {
	bool tried;
	struct vtb_kernel_choice k; /* k.path NULL: none found */
	char sha256[65];
	char *why;
};

struct plan_knobs {
	struct knob_note *note; /* per configuration; NULL without --db */
	size_t n;
	struct default_kernel dflt;
};

static void plan_knobs_release(struct plan_knobs *pk)
{
	for (size_t i = 0; pk->note && i < pk->n; i++) {
		free(pk->note[i].lacks);
		free(pk->note[i].boot);
		json_decref(pk->note[i].unchecked);
	}
	free(pk->note);
	vtb_kernel_choice_release(&pk->dflt.k);
	free(pk->dflt.why);
}

/* @ns (since the epoch) as @fmt in UTC, into @buf; "?" when it cannot. */
static const char *utc(int64_t ns, const char *fmt, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, fmt, &tm))
		return "?";
	return buf;
}

static json_t *knobs_json(const struct knob_note *k)
{
	char when[32];
	json_t *o = json_pack("{s:s, s:s?, s:b, s:s*, s:s*, s:s*, s:s*, s:s*, s:O*}", "state",
			      knob_state_names[k->state], "kernel", k->kernel, "default",
			      !k->kernel, "path", k->path, "sha256", k->sha256, "release",
			      k->release, "why", k->why, "lacks", k->lacks, "unchecked",
			      k->unchecked);

	if (o && k->boot &&
	    json_object_set_new(o, "probe",
				json_pack("{s:s, s:s}", "boot", k->boot, "started",
					  utc(k->started_ns, "%Y-%m-%dT%H:%M:%SZ", when,
					      sizeof(when)))) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *params_json(const struct vtb_params *p)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < p->n; i++)
		json_object_set_new(o, p->kv[i].key, json_string(p->kv[i].value));
	return o;
}

static int plan_json(const struct vtb_matrix *m, const struct vtb_hosttopo *h, size_t boots,
		     const struct plan_knobs *pk, const struct vtb_explore_plan *x,
		     const struct vtb_plan_estimate *est, const struct vtb_plan_estimate *race)
{
	json_t *root, *cfgs;
	size_t i, j;
	char *text;

	root = json_pack("{s:i, s:s, s:s, s:{s:s, s:s, s:i, s:s, s:s}, s:I, s:s, s:I, s:I}",
			 "schema", 1, "matrix", m->path, "digest", m->digest, "host", "source",
			 h->source, "summary", h->summary, "cpus", (int)h->n_compact, "digest",
			 h->digest, "llc", h->llc_source, "reps", (json_int_t)m->reps, "order",
			 order_names[m->order], "timeout_ns", (json_int_t)m->timeout_ns, "boots",
			 (json_int_t)boots);
	cfgs = json_array();
	if (!root || !cfgs)
		goto oom;
	if (m->reps_auto &&
	    json_object_set_new(root, "reps_auto",
				json_pack("{s:I, s:I, s:I, s:s?, s:s?}", "min_reps",
					  (json_int_t)m->min_reps, "max_reps",
					  (json_int_t)m->max_reps, "budget_ns",
					  (json_int_t)m->budget_ns, "axis", m->auto_axis,
					  "baseline", m->auto_baseline)))
		goto oom;
	for (i = 0; i < m->n_configs; i++) {
		const struct vtb_config *c = &m->configs[i];
		char *cpus = vtb_cpuset_format(&c->cpus);
		json_t *cells = json_array(), *jc;

		for (j = 0; cells && j < c->n_cells; j++) {
			const struct vtb_cell *cell = &c->cells[j];

			json_array_append_new(cells,
					      json_pack("{s:s, s:s, s:s, s:o, s:o, s:s?}", "key",
							cell->key, "name", cell->name, "workload",
							cell->workload, "params",
							params_json(&cell->params), "resolved",
							params_json(&cell->resolved), "note",
							cell->note));
		}
		jc = json_pack("{s:s, s:s, s:s, s:o, s:s, s:s?, s:b, s:s?, s:o, s:o?}", "key",
			       c->key, "kind", c->kind == VTB_CONFIG_VM ? "vm" : "baseline",
			       "label", c->label, "params", params_json(&c->params), "cpus",
			       cpus ? cpus : "", "mems", c->mems, "runnable", c->runnable,
			       "why_not", c->why_not, "cells", cells, "plan",
			       c->plan_json ? json_loads(c->plan_json, 0, NULL) : NULL);
		free(cpus);
		if (jc && pk->note && pk->note[i].state != KNOBS_NONE &&
		    json_object_set_new(jc, "knobs", knobs_json(&pk->note[i])) < 0) {
			json_decref(jc);
			jc = NULL;
		}
		if (!jc || json_array_append_new(cfgs, jc))
			goto oom;
	}
	json_object_set_new(root, "configurations", cfgs);
	if (json_object_set_new(root, "estimate", vtb_plan_estimate_json(est)) < 0) {
		json_decref(root);
		return vtb_error("out of memory");
	}
	if (x) {
		json_t *jx = vtb_explore_plan_json(m, x);

		if (!jx ||
		    (race && x->n >= 2 &&
		     json_object_set_new(jx, "estimate", vtb_plan_estimate_json(race)) < 0) ||
		    json_object_set_new(root, "explore", jx) < 0) {
			json_decref(root);
			return vtb_error("out of memory");
		}
	}
	text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	if (!text)
		return vtb_error("out of memory");
	puts(text);
	free(text);
	return 0;
oom:
	json_decref(root);
	json_decref(cfgs);
	return vtb_error("out of memory");
}

static void print_set(const char *pfx, const struct vtb_cpuset *s)
{
	char *f = vtb_cpuset_format(s);

	printf("%s%s", pfx, f ? (*f ? f : "none") : "?");
	free(f);
}

/* The placement plan of a VM configuration, under its header line. */
static void print_plan(const struct vtb_plan *p)
{
	size_t i, k;
	int v, j;

	printf("  topology %d socket%s x %d die%s x %d core%s x %d thread%s, pinning %s",
	       p->sockets, p->sockets == 1 ? "" : "s", p->dies, p->dies == 1 ? "" : "s", p->cores,
	       p->cores == 1 ? "" : "s", p->threads, p->threads == 1 ? "" : "s",
	       vtb_pinning_name(p->req.pinning));
	print_set(", housekeeping ", &p->housekeeping);
	putchar('\n');
	for (v = 0; v < p->req.vms; v++) {
		const struct vtb_plan_vm *m = &p->vm[v];

		printf("  vm %d", v);
		print_set(": pcpus ", &m->cpus);
		print_set(", host nodes ", &m->nodes);
		printf("\n    vcpu->pcpu");
		for (j = 0; j < p->req.vcpus; j++) {
			printf(" %d>", j);
			if (m->pins)
				print_set("", &m->pins[j]);
			else
				printf("%d(float)", m->pcpu[j]);
		}
		putchar('\n');
		for (i = 0; i < m->n_cells; i++) {
			char *mem = vtb_format_size(m->cells[i].memory_bytes);

			printf("    cell %zu", i);
			print_set(": vcpus ", &m->cells[i].vcpus);
			printf(", memory %s, ", mem ? mem : "?");
			if (m->cells[i].host_node >= 0)
				printf("host node %d\n", m->cells[i].host_node);
			else
				printf("no single host node\n");
			free(mem);
		}
		for (i = 0; i < m->n_notes; i++)
			printf("    note: %s\n", m->notes[i]);
	}
	for (k = 0; k < 3; k++) {
		bool any = false;

		for (i = 0; i < p->n_claims; i++) {
			const struct vtb_claim *c = &p->claims[i];

			if (c->kind != (enum vtb_claim_kind)k)
				continue;
			printf(any ? "," : "  claims %s:", vtb_claim_kind_name(c->kind));
			any = true;
			if (p->req.vms > 1)
				printf(" vm%d", c->vm);
			print_set(" ", &c->vcpus);
			printf("=%s", vtb_claim_state_name(c->state));
		}
		if (any)
			putchar('\n');
	}
	for (i = 0; i < p->n_notes; i++)
		printf("  note: %s\n", p->notes[i]);
}

/*
 * A resolved parameter as people read it: times and sizes with a unit
 * (runtime=2s, llc=1016MiB) where the unit says it exactly; the cell key
 * and the JSON keep the exact form.  Malloc'ed.
 */
static char *readable(const struct vtb_workload_ops *w, const char *key, const char *value)
{
	const struct vtb_opt *o = w ? vtb_opt_find(w->opts, key) : NULL;
	uint64_t u, back;
	char *r = NULL;

	if (o && o->type == VTB_OPT_TIME && vtb_parse_time_ns(value, &u) == 0) {
		r = vtb_format_time_ns(u);
		if (r && (vtb_parse_time_ns(r, &back) < 0 || back != u)) {
			free(r);
			r = NULL;
		}
	} else if (o && o->type == VTB_OPT_SIZE && vtb_parse_size(value, &u) == 0) {
		r = vtb_format_size(u);
		if (r && (vtb_parse_size(r, &back) < 0 || back != u)) {
			free(r);
			r = NULL;
		}
	}
	vtb_error_clear();
	return r ? r : strdup(value);
}

static void print_cell(const struct vtb_cell *cell)
{
	const struct vtb_workload_ops *w = vtb_workload_find(cell->workload);
	size_t k;

	printf("  cell %s  %s (%s)\n   ", cell->key, cell->name, cell->workload);
	for (k = 0; k < cell->resolved.n; k++) {
		const char *key = cell->resolved.kv[k].key, *v = cell->resolved.kv[k].value;
		const char *pv = vtb_params_get(&cell->params, key);
		char *rv = readable(w, key, v), *rpv = pv ? readable(w, key, pv) : NULL;

		printf(" %s=%s", key, rv ? rv : v);
		if (pv && strcmp(pv, v))
			printf("(%s)", rpv ? rpv : pv);
		free(rv);
		free(rpv);
	}
	putchar('\n');
	if (cell->note)
		printf("    note: %s\n", cell->note);
}

/* "kernel NAME (sha256 ...)" or "the default kernel PATH (RELEASE,
 * sha256 ...)" of a note with an image. */
static void print_kernel(const struct knob_note *k)
{
	if (k->kernel)
		printf("kernel %s (sha256 %.16s)", k->kernel, k->sha256);
	else
		printf("the default kernel %s (%s, sha256 %.16s)", k->path,
		       k->release ? k->release : "?", k->sha256);
}

/* The configuration's knobs line (plan --db). */
static void print_knobs(const struct knob_note *k)
{
	char when[32];

	switch (k->state) {
	case KNOBS_NONE:
		return;
	case KNOBS_UNCHECKED:
		if (!k->path) {
			printf("  knobs unchecked: no guest kernel found (%s)\n",
			       k->why ? k->why : "?");
			return;
		}
		printf("  knobs unchecked: ");
		print_kernel(k);
		printf(" not probed yet; checked at its first boot\n");
		return;
	case KNOBS_CHECKED:
	case KNOBS_LACKING:
		printf("  knobs %s the probe of boot %.8s (%s) of ",
		       k->state == KNOBS_CHECKED ? "checked against" : "lacking, by", k->boot,
		       utc(k->started_ns, "%Y-%m-%d %H:%M UTC", when, sizeof(when)));
		print_kernel(k);
		if (k->lacks)
			printf(": it %s", k->lacks);
		if (json_array_size(k->unchecked)) {
			size_t i;
			json_t *v;

			printf("; unchecked (its probe does not list them):");
			json_array_foreach(k->unchecked, i, v)
				printf("%s %s", i ? "," : "", json_string_value(v));
		}
		putchar('\n');
		return;
	}
}

/* After the summary: how many configurations' knobs were checked. */
static void print_knobs_summary(const struct plan_knobs *pk)
{
	size_t n[4] = { 0 }, all;

	for (size_t i = 0; pk->note && i < pk->n; i++)
		n[pk->note[i].state]++;
	all = n[KNOBS_UNCHECKED] + n[KNOBS_CHECKED] + n[KNOBS_LACKING];
	if (!all)
		return;
	printf("knobs    %zu configuration%s set%s sched knobs: %zu checked against a stored "
	       "probe, %zu lacking a knob, %zu unchecked until their kernel's first boot\n",
	       all, all == 1 ? "" : "s", all == 1 ? "s" : "", n[KNOBS_CHECKED], n[KNOBS_LACKING],
	       n[KNOBS_UNCHECKED]);
}

static const char *direction_name(int d)
{
	return d > 0 ? "higher" : d < 0 ? "lower" : "auto";
}

/* The explore block: what vtbench explore would race and what it may cost. */
/* "about ..." of an estimate, on a line of its own after @label */
static void print_estimate(const char *label, const struct vtb_plan_estimate *e)
{
	char *t = vtb_plan_estimate_text(e);

	printf("%s%s\n", label, t ? t : "?");
	free(t);
}

static void print_explore(const struct vtb_matrix *m, const struct vtb_explore_plan *x, bool quiet,
			  const struct vtb_plan_estimate *race)
{
	const struct vtb_explore_conf *e = m->explore;
	char *budget = e->budget_ns ? vtb_format_time_ns(e->budget_ns) : NULL;
	bool bare = x->n && m->configs[x->cfg[0]].kind == VTB_CONFIG_BASELINE;
	int width = snprintf(NULL, 0, "c%zu", x->n);

	printf("\nexplore (%s:%d)\n", m->path, e->line);
	for (size_t k = 0; k < e->n_objective; k++) {
		const struct vtb_explore_metric *om = &e->objective[k];

		printf("  %s %s/%s: direction %s; cell '%s' in %zu of %zu candidate%s\n",
		       k ? "then        " : "objective   ", om->cell, om->metric,
		       om->direction ? direction_name(om->direction) : "auto (the workload's)",
		       om->cell, x->with_cell[k], x->n, x->n == 1 ? "" : "s");
	}
	printf("  rounds       %lld before the first elimination, %lld at most\n", e->min_rounds,
	       e->max_rounds);
	printf("  budget       ");
	if (e->budget_boots)
		printf("%lld candidate boots", e->budget_boots);
	else
		printf("no boot budget");
	printf(", %s%s\n", budget ? "time " : "no time budget", budget ? budget : "");
	free(budget);
	printf("  multiplicity %s\n",
	       e->holm ? "holm (Holm's step-down, family-wise)" : "bh (Benjamini-Hochberg)");
	printf("  futility     %s\n",
	       e->futility ? "yes (stops when no open comparison can be decided in the rounds left)"
			   : "no");
	if (!x->n)
		printf("  candidates   none: no runnable configuration to race (explore refuses "
		       "the matrix)\n");
	else if (bare)
		printf("  candidates   %zu bare-metal configuration%s (no runnable VM "
		       "configuration), no baselines\n",
		       x->n, x->n == 1 ? "" : "s");
	else {
		printf("  candidates   %zu VM configuration%s, each beside its bare-metal "
		       "baseline (%zu distinct",
		       x->n, x->n == 1 ? "" : "s", x->nb);
		if (x->no_base)
			printf("; %zu without one", x->no_base);
		printf(")\n");
	}
	for (size_t i = 0; !quiet && i < x->n; i++) {
		const struct vtb_config *c = &m->configs[x->cfg[i]];
		char id[32];

		snprintf(id, sizeof(id), "c%zu", i + 1);
		printf("    %-*s %s  %s", width, id, c->key, c->label);
		if (x->base[i] != SIZE_MAX)
			printf("  beside %s", m->configs[x->base[i]].label);
		else if (!bare)
			printf("  (no baseline on its pCPUs nor on as many CPUs)");
		putchar('\n');
	}
	if (!x->n)
		return;
	printf("  a round      %zu candidate boot%s + %zu baseline boot%s = %zu boot%s\n", x->n,
	       x->n == 1 ? "" : "s", x->nb, x->nb == 1 ? "" : "s", x->n + x->nb,
	       x->n + x->nb == 1 ? "" : "s");
	if (x->n < 2) {
		printf("  at most      0 boots: one candidate is the winner before the race starts\n");
		return;
	}
	printf("  at most      %lld round%s, %lld candidate boot%s + %lld baseline boot%s = %lld "
	       "boot%s\n",
	       x->rounds, x->rounds == 1 ? "" : "s", x->cand_boots, x->cand_boots == 1 ? "" : "s",
	       x->base_boots, x->base_boots == 1 ? "" : "s", x->cand_boots + x->base_boots,
	       x->cand_boots + x->base_boots == 1 ? "" : "s");
	if (race)
		print_estimate("  time         at most ", race);
	if (x->short_budget)
		printf("  note         budget_boots %lld is under min_rounds (%lld) rounds of every "
		       "candidate (%lld boots): the race stops before its first test, with no "
		       "winner\n",
		       e->budget_boots, e->min_rounds, e->min_rounds * (long long)x->n);
}

static void plan_text(const struct vtb_matrix *m, const struct vtb_hosttopo *h, size_t boots,
		      bool quiet, const struct plan_knobs *pk, const struct vtb_explore_plan *x,
		      const struct vtb_plan_estimate *est, const struct vtb_plan_estimate *race)
{
	size_t i, j, runnable = 0, cells = 0;
	char *timeout = vtb_format_time_ns(m->timeout_ns);

	for (i = 0; i < m->n_configs; i++) {
		runnable += m->configs[i].runnable;
		cells += m->configs[i].n_cells;
	}
	printf("matrix   %s (sha256 %.16s)\n", m->path, m->digest);
	printf("host     %s: %s, %zu CPUs allowed\n", h->source, h->summary, h->n_compact);
	printf("llc      %s\n", h->llc_source);
	printf("order    %s", order_names[m->order]);
	if (m->order == VTB_ORDER_RANDOM)
		printf(":%llu", (unsigned long long)m->seed);
	if (m->reps_auto) {
		char *budget = m->budget_ns ? vtb_format_time_ns(m->budget_ns) : NULL;

		printf(", reps auto (%lld to %lld boots a configuration, until its compare rows "
		       "are decided%s%s%s%s), timeout %s per boot\n",
		       m->min_reps, m->max_reps,
		       m->auto_axis	  ? "; along "
		       : m->auto_baseline ? "; against baseline "
					  : "",
		       m->auto_axis	  ? m->auto_axis
		       : m->auto_baseline ? m->auto_baseline
					  : "",
		       budget ? "; budget " : "", budget ? budget : "", timeout ? timeout : "?");
		free(budget);
	} else {
		printf(", reps %lld, timeout %s per boot\n", m->reps, timeout ? timeout : "?");
	}
	printf("plan     %zu configuration%s (%zu runnable), %zu cell%s, %s%zu boot%s\n",
	       m->n_configs, m->n_configs == 1 ? "" : "s", runnable, cells, cells == 1 ? "" : "s",
	       m->reps_auto ? "at most " : "", boots, boots == 1 ? "" : "s");
	free(timeout);
	print_estimate(m->reps_auto ? "time     at most " : "time     ", est);
	print_knobs_summary(pk);
	for (i = 0; quiet && i < m->n_configs; i++)
		if (!m->configs[i].runnable)
			printf("not runnable: %s: %s\n", m->configs[i].label,
			       m->configs[i].why_not ? m->configs[i].why_not : "?");
	for (i = 0; !quiet && i < m->n_configs; i++) {
		const struct vtb_config *c = &m->configs[i];
		char *cpus = vtb_cpuset_format(&c->cpus);

		printf("\n%s\n  key %s", c->label, c->key);
		if (c->cpus.n)
			printf("  cpus %s  mems %s", cpus ? cpus : "?", c->mems ? c->mems : "?");
		putchar('\n');
		free(cpus);
		if (!c->runnable)
			printf("  not runnable: %s\n", c->why_not ? c->why_not : "?");
		if (pk->note)
			print_knobs(&pk->note[i]);
		if (c->plan)
			print_plan(c->plan);
		for (j = 0; j < c->n_cells; j++)
			print_cell(&c->cells[j]);
	}
	if (x)
		print_explore(m, x, quiet, race);
}

/* One domain XML per VM (of each VM configuration) into @dir (NULL:
 * build them only); with @timing, the time of planning and XML per
 * configuration on stderr (the figure `make bench` prints).  0, -1, or
 * VTB_OUT_EINPUT when a file's path is refused. */
static int write_xml(const struct vtb_matrix *m, const char *dir, bool kvm, bool timing,
		     const struct vtb_out_input *inputs)
{
	size_t i;
	int v, ret = 0;

	for (i = 0; i < m->n_configs && !ret; i++) {
		const struct vtb_config *c = &m->configs[i];
		const struct vtb_plan *p = c->plan; /* made when the matrix was loaded */
		uint64_t t0, t1 = 0;

		if (!p) {
			/* refused (no room here): planning it took time too */
			if (timing && c->kind == VTB_CONFIG_VM)
				fprintf(stderr, "timing: %s: refused in %.2f ms\n", c->label,
					(double)c->plan_ns / 1e6);
			continue;
		}
		t0 = vtb_now_ns();
		for (v = 0; v < p->req.vms && !ret; v++) {
			struct vtb_plan_domstore st;
			char *name = p->req.vms > 1 ? vtb_asprintf("vtbench-%s-vm%d", c->key, v)
						    : vtb_asprintf("vtbench-%s", c->key);
			struct vtb_domspec d = { .name = name,
						 .kvm = kvm,
						 .cpu_model = kvm ? "host-passthrough" : "kvm64",
						 .kernel = m->kernel ? m->kernel : "/boot/vmlinuz",
						 .initrd = "/var/lib/vtbench/initramfs.cpio",
						 .cmdline = "console=ttyS0 panic=-1" };
			char *xml = NULL, *path = NULL;

			if (!name || vtb_plan_domspec(p, v, &d, &st) < 0) {
				ret = -1;
			} else {
				xml = vtb_domxml(&d);
				if (!xml)
					ret = -1;
				t1 = vtb_now_ns();
				if (xml && dir) {
					path = vtb_asprintf("%s/%s.xml", dir,
							    name + strlen("vtbench-"));
					/* names vtbench made, in the user's
					 * directory: a planted symlink or
					 * device there is refused (outfile.h) */
					ret = path ? vtb_outfile_write(path, VTB_OUT_NAMED_DIR,
								       inputs, xml, strlen(xml),
								       NULL)
						   : -1;
				}
			}
			vtb_plan_domstore_release(&st);
			free(xml);
			free(path);
			free(name);
		}
		if (timing && !ret)
			fprintf(stderr, "timing: %s: plan and domain XML of %d VM%s in %.2f ms\n",
				c->label, p->req.vms, p->req.vms == 1 ? "" : "s",
				(double)(c->plan_ns + t1 - t0) / 1e6);
	}
	return ret;
}

/*
 * A host_topology = naming a file is taken relative to the matrix's
 * directory when it is not found as given (a matrix and its topologies
 * travel together); synthetic strings and found paths pass unchanged.
 * Takes @value; returns it or the new path, NULL on ENOMEM.
 */
static char *relative_to(const char *matrix, char *value)
{
	const char *slash = strrchr(matrix, '/');
	char *alt;

	if (value[0] == '/' || !slash || access(value, F_OK) == 0)
		return value;
	alt = vtb_asprintf("%.*s/%s", (int)(slash - matrix), matrix, value);
	if (alt && access(alt, F_OK) == 0) {
		free(value);
		return alt;
	}
	free(alt);
	return value;
}

struct plan_opts {
	const char *format, *xml_dir, *matrix, *db;
	bool kvm, timing, quiet, reps_auto;
	long long reps;
};

/* The command line into @o: 0, or the exit status; @done when the
 * command is done (--help, --help-matrix: 0 after printing). */
static int plan_args(struct vtb_cmd_env *env, struct plan_opts *o, bool *done)
{
	struct vtb_cli_parser cp;
	const char *arg;
	int c;

	*done = false;
	vtb_cli_init(&cp, &plan_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0) {
		switch (c) {
		case OPT_FORMAT:
			o->format = arg;
			break;
		case OPT_HOST_TOPOLOGY:
			env->host_topology = arg;
			break;
		case OPT_REPS:
			o->reps_auto = !strcmp(arg, "auto");
			if (!o->reps_auto && vtb_parse_int(arg, 1, 100000, &o->reps)) {
				vtb_cli_usage_error(&plan_cli, "--reps: %s (or auto)",
						    vtb_errmsg());
				return VTB_EXIT_USAGE;
			}
			break;
		case OPT_XML_DIR:
			o->xml_dir = arg;
			break;
		case OPT_TIMING:
			o->timing = true;
			break;
		case OPT_ACCEL:
			o->kvm = !strcmp(arg, "kvm");
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_DB:
			o->db = arg;
			env->db = arg;
			env->flags |= VTB_CMD_NEED_DB;
			break;
		case OPT_HELP_MATRIX:
			vtb_conf_help(stdout);
			*done = true;
			return 0;
		}
	}
	if (c < 0) { /* --help (0) or a usage error */
		*done = true;
		return vtb_cli_exit(c);
	}
	if (cp.optind != env->argc - 1) {
		vtb_cli_usage_error(&plan_cli, "expected one matrix file");
		return VTB_EXIT_USAGE;
	}
	o->matrix = env->argv[cp.optind];
	return 0;
}

/* --host-topology wins over the matrix's host_topology = (*owned, the
 * caller's to free and to take back from env). */
static int plan_host_topology(struct vtb_cmd_env *env, const char *matrix, char **owned)
{
	if (env->host_topology)
		return 0;
	if (vtb_matrix_host_topology(matrix, owned) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return VTB_EXIT_INFRA;
	}
	if (*owned && !(*owned = relative_to(matrix, *owned))) {
		vtb_cmd_err(env, "out of memory");
		return VTB_EXIT_INFRA;
	}
	env->host_topology = *owned;
	return 0;
}

/* The default guest kernel as run picks it ([global] kernel =, else the
 * newest in /boot, else the fetched one: vtb_guest_stage()), hashed once.
 * None found is no error: pk->dflt.why says why. */
static int default_kernel(const struct vtb_matrix *m, struct default_kernel *d)
{
	char *fetched;

	if (d->tried)
		return 0;
	d->tried = true;
	fetched = vtb_guest_default_fetched_dir();
	if (!fetched)
		return -1;
	if (vtb_kernel_pick(m->kernel, "/boot", fetched, false, &d->k) < 0 ||
	    vtb_sha256_file_hex(d->k.path, VTB_KERNEL_IMAGE_MAX, d->sha256) < 0) {
		vtb_kernel_choice_release(&d->k);
		d->why = vtb_strdup(vtb_errmsg());
		vtb_error_clear();
	}
	free(fetched);
	return d->why || d->k.path ? 0 : vtb_error("out of memory");
}

/* Checks configuration @c against the latest stored probe of its kernel
 * image into @k. */
static int check_knobs(struct vtb_store *st, struct plan_knobs *pk, const struct vtb_matrix *m,
		       struct vtb_config *c, struct knob_note *k)
{
	struct vtb_kernel_probe kp;
	json_t *probe;
	int r;

	k->state = KNOBS_UNCHECKED;
	if (c->kernel_path) {
		k->kernel = c->kernel_name;
		k->path = c->kernel_path;
		k->sha256 = c->kernel_sha256;
	} else {
		if (default_kernel(m, &pk->dflt) < 0)
			return -1;
		if (!pk->dflt.k.path) {
			k->why = pk->dflt.why;
			return 0;
		}
		k->path = pk->dflt.k.path;
		k->release = pk->dflt.k.release;
		k->sha256 = pk->dflt.sha256;
	}
	if (vtb_store_kernel_probe_of(st, k->sha256, &kp) < 0)
		return -1;
	if (!kp.probe)
		return (k->unchecked = vtb_sched_knobs_unchecked(c, NULL)) ? 0 : -1;
	probe = json_loads(kp.probe, 0, NULL);
	k->boot = kp.boot_uuid;
	k->started_ns = kp.started_ns;
	kp.boot_uuid = NULL;
	vtb_kernel_probe_release(&kp);
	if (!json_is_object(probe)) { /* stored by us: not JSON is no probe */
		json_decref(probe);
		free(k->boot);
		k->boot = NULL;
		return (k->unchecked = vtb_sched_knobs_unchecked(c, NULL)) ? 0 : -1;
	}
	r = vtb_sched_knobs_lacking(c, probe, &k->lacks);
	if (r >= 0 && !(k->unchecked = vtb_sched_knobs_unchecked(c, probe)))
		r = -1;
	json_decref(probe);
	if (r < 0)
		return -1;
	k->state = r == 1 ? KNOBS_LACKING : KNOBS_CHECKED;
	if (r == 1 && c->runnable) {
		free(c->why_not);
		c->why_not = vtb_asprintf("%s %s (sha256 %.16s) %s",
					  k->kernel ? "kernel" : "the default kernel",
					  k->kernel ? k->kernel : k->path, k->sha256, k->lacks);
		c->runnable = false;
		if (!c->why_not)
			return vtb_error("out of memory");
	}
	return 0;
}

/*
 * --db: each VM configuration whose sched profile sets sysctls or debugfs
 * knobs, checked against the probe the latest boot of its kernel image
 * stored (of [vm] kernel =, else the default kernel, hashed here only
 * when some configuration needs it); the configurations of a kernel
 * that lacks one are not runnable.  The notes say per configuration
 * whether and against which boot's probe its knobs were checked.
 */
static int plan_knobs(struct vtb_store *st, struct vtb_matrix *m, struct plan_knobs *pk)
{
	pk->n = m->n_configs;
	pk->note = calloc(m->n_configs ? m->n_configs : 1, sizeof(*pk->note));
	if (!pk->note)
		return vtb_error("out of memory");
	for (size_t i = 0; i < m->n_configs; i++) {
		struct vtb_config *c = &m->configs[i];

		if (c->kind == VTB_CONFIG_VM && vtb_sched_sets_knobs(c) &&
		    check_knobs(st, pk, m, c, &pk->note[i]) < 0)
			return -1;
	}
	return 0;
}

/*
 * The campaign's time (@est: its boots in order) and the race's at most
 * (@race, with @x: cand_boots spread over the candidates, base_boots
 * over the distinct baselines), from @st's stored boots when given.
 */
static int plan_estimates(struct vtb_store *st, const struct vtb_matrix *m,
			  const struct vtb_bootref *order, size_t n_order,
			  const struct vtb_explore_plan *x, struct vtb_plan_estimate *est,
			  struct vtb_plan_estimate *race)
{
	double *boots = calloc(m->n_configs ? m->n_configs : 1, sizeof(*boots));
	int ret = -1;

	if (!boots)
		return vtb_error("out of memory");
	for (size_t i = 0; i < n_order; i++)
		boots[order[i].config]++;
	if (vtb_plan_estimate(st, m, boots, est) < 0)
		goto out;
	est->budget_ns = m->reps_auto ? m->budget_ns : 0;
	memset(race, 0, sizeof(*race));
	if (x && x->n >= 2) {
		memset(boots, 0, m->n_configs * sizeof(*boots));
		for (size_t i = 0; i < x->n; i++)
			boots[x->cfg[i]] += (double)x->cand_boots / (double)x->n;
		for (size_t j = 0; j < x->nb; j++)
			boots[x->bases[j]] += (double)x->base_boots / (double)x->nb;
		if (vtb_plan_estimate(st, m, boots, race) < 0)
			goto out;
		race->budget_ns = m->explore->budget_ns;
	}
	ret = 0;
out:
	free(boots);
	return ret;
}

/* The plan of @m in o->format, then its domain XML (--xml-dir, --timing). */
static int plan_output(struct vtb_cmd_env *env, const struct plan_opts *o,
		       const struct vtb_matrix *m, const struct plan_knobs *pk)
{
	struct vtb_out_input inputs[3] = { { .path = o->matrix, .what = "the matrix" },
					   { .path = o->db, .what = "the database", .sqlite = true } };
	struct vtb_bootref *order = NULL;
	struct vtb_explore_plan x = { 0 };
	struct vtb_plan_estimate est, race;
	size_t n_order = 0;
	int ret = VTB_EXIT_INFRA, r = 0;

	/* like mkdir -p: a directory in a fresh checkout or CI workspace;
	 * made before the plan is printed, so a bad one prints nothing */
	if (o->xml_dir) {
		struct stat sb;

		if (!stat(o->xml_dir, &sb) && !S_ISDIR(sb.st_mode)) {
			vtb_cmd_err(env, "--xml-dir: '%s' is not a directory", o->xml_dir);
			return VTB_EXIT_USAGE;
		}
		if (vtb_mkdir_p(o->xml_dir, 0777, false) < 0) {
			vtb_cmd_err(env, "--xml-dir: %s", vtb_errmsg());
			return VTB_EXIT_USAGE;
		}
	}
	if (vtb_matrix_boot_order(m, &order, &n_order))
		goto err;
	if (m->explore && vtb_explore_plan_make(m, &x) < 0) {
		free(order);
		goto err;
	}
	r = plan_estimates(env->store, m, order, n_order, m->explore ? &x : NULL, &est, &race);
	free(order);
	if (r)
		goto err;
	if (!strcmp(o->format, "json"))
		r = plan_json(m, env->host, n_order, pk, m->explore ? &x : NULL, &est,
			      m->explore && x.n >= 2 ? &race : NULL);
	else
		plan_text(m, env->host, n_order, o->quiet, pk, m->explore ? &x : NULL, &est,
			  m->explore && x.n >= 2 ? &race : NULL);
	vtb_explore_plan_release(&x);
	if (r)
		goto err;
	if (o->xml_dir || o->timing) {
		r = write_xml(m, o->xml_dir, o->kvm, o->timing, inputs);
		if (r == VTB_OUT_EINPUT)
			ret = VTB_EXIT_USAGE;
		if (r)
			goto err;
	}
	return 0;
err:
	vtb_cmd_err(env, "%s", vtb_errmsg());
	return ret;
}

int cmd_plan(struct vtb_cmd_env *env)
{
	struct plan_opts o = { .format = "text" };
	struct plan_knobs pk = { 0 };
	struct vtb_matrix *m = NULL;
	char *matrix_host = NULL;
	bool done;
	int ret;

	ret = plan_args(env, &o, &done);
	if (ret || done)
		return ret;
	ret = plan_host_topology(env, o.matrix, &matrix_host);
	if (!ret)
		ret = vtb_cmd_setup(env);
	if (ret)
		goto out;
	/* read, each VM configuration planned once, completed (cfgplan.h) */
	if (vtb_matrix_load(o.matrix, &env->host->ctx, &m)) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = VTB_EXIT_USAGE;
		goto out;
	}
	if (o.reps || o.reps_auto)
		vtb_matrix_set_reps(m, o.reps_auto ? 0 : o.reps);
	if (env->store && plan_knobs(env->store, m, &pk) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	ret = plan_output(env, &o, m, &pk);
out:
	plan_knobs_release(&pk);
	vtb_matrix_free(m);
	if (matrix_host)
		env->host_topology = NULL;
	free(matrix_host);
	return ret;
}
