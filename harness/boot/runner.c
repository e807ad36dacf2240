/* SPDX-License-Identifier: MIT */
/*
 * The campaign loop.  Signals: SIGINT and SIGTERM are blocked except
 * while waiting on a boot (ppoll's mask), so a stop request can only
 * interrupt a running agent, never a database commit; the loop checks
 * for it between boots and leaves the database consistent.
 */
#include "runner.h"

#include <errno.h>
#include <fnmatch.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "baremetal.h"
#include "bootstatus.h"
#include "../plan/eta.h"
#include "../compare/compare.h"
#include "../evidence/evidence.h"
#include "../matrix/conf.h"
#include "../plan/cfgplan.h"
#include "../host/hoststate.h"
#include "../host/hosttopo.h"
#include "../store/store.h"
#include "vmboot.h"
#include "../records/guestview.h"
#include "../plan/plan.h"
#include "guest.h"
#include "provision.h"
#include "../plan/sched.h"

static volatile sig_atomic_t stop_flag;

/* 0, or the signal that asked to stop (the exit code says which) */
static void on_stop(int sig)
{
	stop_flag = sig;
}

static bool stop_requested(void)
{
	sigset_t pend;

	if (stop_flag)
		return true;
	if (sigpending(&pend) == 0) {
		if (sigismember(&pend, SIGTERM) == 1)
			stop_flag = SIGTERM;
		else if (sigismember(&pend, SIGINT) == 1)
			stop_flag = SIGINT;
	}
	return stop_flag != 0;
}

char *vtb_job_json(const struct vtb_config *c, const char *nonce, const char *boot_uuid, int rep,
		   bool evidence)
{
	json_t *job, *cells;
	char *text = NULL;
	size_t i, k;

	job = json_pack("{s:i, s:s, s:s, s:s, s:i}", "schema", 1, "nonce", nonce, "boot", boot_uuid,
			"config", c->key, "rep", rep);
	cells = json_array();
	if (!job || !cells)
		goto out;
	for (i = 0; i < c->n_cells; i++) {
		const struct vtb_cell *cell = &c->cells[i];
		json_t *params = json_object();
		json_t *o;

		if (!params)
			goto out;
		for (k = 0; k < cell->resolved.n; k++) {
			if (json_object_set_new(params, cell->resolved.kv[k].key,
						json_string(cell->resolved.kv[k].value))) {
				json_decref(params);
				vtb_error("parameter '%s' of cell '%s' is not valid UTF-8",
					  cell->resolved.kv[k].key, cell->name);
				goto fail;
			}
		}
		o = json_pack("{s:s, s:s, s:s, s:o}", "key", cell->key, "name", cell->name,
			      "workload", cell->workload, "params", params);
		if (!o || json_array_append_new(cells, o))
			goto out;
	}
	json_object_set(job, "cells", cells);
	if (c->kind == VTB_CONFIG_VM) {
		/* a guest reports its kernel's view; a profile applies there */
		json_t *sched = vtb_sched_job(c);

		if (!sched && vtb_sched_has_settings(c))
			goto fail;
		if (json_object_set_new(job, "view", json_true()) < 0 ||
		    (sched && json_object_set_new(job, "sched", sched) < 0) ||
		    (!evidence && json_object_set_new(job, "evidence", json_false()) < 0))
			goto out;
	}
	text = json_dumps(job, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
out:
	if (!text)
		vtb_error("out of memory");
fail:
	json_decref(cells);
	json_decref(job);
	return text;
}

static bool matches_only(const struct vtb_config *c, const char *only)
{
	char *dup, *tok, *save = NULL;
	bool hit = false;

	if (!only)
		return true;
	dup = strdup(only);
	if (!dup)
		return false;
	for (tok = strtok_r(dup, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save)) {
		char *end;

		while (*tok == ' ')
			tok++;
		end = tok + strlen(tok);
		while (end > tok && end[-1] == ' ')
			*--end = '\0';
		hit = !fnmatch(tok, c->label, 0) || !fnmatch(tok, c->key, 0);
	}
	free(dup);
	return hit;
}

static void progress(const struct vtb_run_opts *o, const struct vtb_progress *p)
{
	if (o->progress)
		o->progress(p, o->progress_arg);
}

static void warn(const struct vtb_run_opts *o, const char *msg)
{
	struct vtb_progress p = { .warning = msg, .eta_seconds = -1 };

	progress(o, &p);
}

/* A warning about the running boot: it says which one (cur: its
 * progress line; NULL outside a boot). */
static void boot_warn(const struct vtb_run_opts *o, const struct vtb_progress *cur, const char *msg)
{
	struct vtb_progress p = { .warning = msg, .eta_seconds = -1 };

	if (cur) {
		p.index = cur->index;
		p.total = cur->total;
		p.label = cur->label;
		p.rep = cur->rep;
	}
	progress(o, &p);
}

static void note(const char *msg, void *arg)
{
	const struct vtb_run_opts *o = arg;
	struct vtb_progress p = { .note = msg, .eta_seconds = -1 };

	progress(o, &p);
}

struct boot_ctx {
	const struct vtb_run_opts *o;
	struct vtb_store *st;
	int64_t campaign;
	json_t *state; /* last host state snapshot */
	uint64_t timeout_ns;
	sigset_t waitmask;
	struct vtb_progress *cur;	/* the running boot's progress line */
	struct vtb_vmhost *vh;		/* NULL when the campaign boots no VM */
	const struct vtb_topo *model;	/* the host model VM configurations were planned on */
	uint64_t placement_interval_ns; /* vCPU placement sampling, 0: off */
	bool evidence;			/* [global] evidence */
	uint64_t t0;			/* campaign start, for elapsed */
	/* the eta: boot times so far; the configurations of the boots after
	 * the running one as far as known (rest, n_rest); the running boot's
	 * configuration, start, the boots done before it and the total */
	struct vtb_eta eta;
	const size_t *rest;
	size_t n_rest;
	size_t cur_i, cur_done, cur_total;
	uint64_t cur_t0;
};

/* The seconds still to go of a campaign of @total boots, @done of them
 * finished: configuration @cur's boot running for @taken seconds
 * (SIZE_MAX: between boots), then the rest (eta.h) */
static double eta_left(const struct boot_ctx *b, size_t cur, double taken, size_t total,
		       size_t done)
{
	size_t after = total > done + (cur != SIZE_MAX) ? total - done - (cur != SIZE_MAX) : 0;
	size_t n_rest = b->n_rest < after ? b->n_rest : after;

	return vtb_eta_left(&b->eta, cur, taken, b->rest, n_rest, after - n_rest);
}

/* --resume: the campaign's stored boots count for the eta as its own */
static int eta_stored(const struct vtb_boot_time_row *r, void *arg)
{
	struct vtb_eta *e = arg;

	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->configs[i].key, r->config_key))
			vtb_eta_add_n(e, i, r->seconds, r->boots);
	return 0;
}

/* Refreshes the running boot's progress (elapsed time goes on). */
static void tick(void *arg)
{
	struct boot_ctx *b = arg;

	if (!b->cur)
		return;
	b->cur->elapsed_seconds = (double)(vtb_now_ns() - b->t0) / 1e9;
	b->cur->eta_seconds = eta_left(b, b->cur_i, (double)(vtb_now_ns() - b->cur_t0) / 1e9,
				       b->cur_total, b->cur_done);
	progress(b->o, b->cur);
}

/* Host checks before a boot: state drift since the last snapshot and
 * other load on the CPUs the boot will use.  Warnings go with the boot. */
static void preboot_checks(struct boot_ctx *b, const struct vtb_config *c, char **warns,
			   size_t *n_warns)
{
	json_t *now = vtb_hoststate_snapshot("/");
	char *diff = now ? vtb_hoststate_diff(b->state, now) : NULL;
	char *busy = NULL;

	if (diff) {
		for (char *p = diff; *p; p++)
			if (*p == '\n')
				*p = ';';
		warns[*n_warns] = vtb_asprintf("host state changed since the last check: %s", diff);
		*n_warns += warns[*n_warns] != NULL;
		free(diff);
	}
	if (now) {
		json_decref(b->state);
		b->state = now;
	}
	if (vtb_hoststate_busy("/", &c->cpus, 100, 0.10, &busy) == 0 && busy) {
		for (char *p = busy; *p; p++)
			if (*p == '\n')
				*p = ',';
		warns[*n_warns] = vtb_asprintf("machine busy before the boot: %s", busy);
		*n_warns += warns[*n_warns] != NULL;
	}
	free(busy);
}

/* Counts one stored boot. */
static void tally(struct vtb_run_result *res, const char *status)
{
	res->ran++;
	if (!strcmp(status, "ok"))
		res->ok++;
	else if (!strcmp(status, "timeout"))
		res->timeout++;
	else if (!strcmp(status, "unexpected-topology"))
		res->unexpected++;
	else
		res->failed++;
}

static char *dump_json(const json_t *j)
{
	return j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
}

/* What one VM of a group stores beside its records. */
struct vm_store {
	char nonce[33], uuid[37];
	char *job, *cpus, *probe, *sched, *view, *tree, *levels, *cpuid;
	char *steal_before, *steal_after, *diff, *error;
	char digest[65];
	const char *status;
	const char *check; /* topology check: match | differs | unchecked */
	char *warns[4];
	size_t n_warns;
	/* per cell: its scheduler evidence, and the store's view of it */
	struct vtb_evidence *ev;
	struct vtb_cell_evidence *evv;
	size_t n_ev;
};

static void vm_store_release(struct vm_store *v)
{
	free(v->job);
	free(v->cpus);
	free(v->probe);
	free(v->sched);
	free(v->view);
	free(v->tree);
	free(v->levels);
	free(v->cpuid);
	free(v->steal_before);
	free(v->steal_after);
	free(v->diff);
	free(v->error);
	for (size_t i = 0; i < v->n_warns; i++)
		free(v->warns[i]);
	for (size_t i = 0; i < v->n_ev; i++)
		vtb_evidence_release(&v->ev[i]);
	free(v->ev);
	free(v->evv);
}

/* Each cell's scheduler evidence: the guest's schedstat record and the
 * host's readings of its vCPU threads (issue 28). */
static int vm_evidence(struct vm_store *v, const struct vtb_boot_records *r, const char *cell_host)
{
	json_t *host = NULL;
	int ret = -1;

	if (!r->n_cells)
		return 0;
	if (cell_host) {
		host = json_loads(cell_host, 0, NULL);
		if (!host)
			return vtb_error("out of memory");
	}
	v->ev = calloc(r->n_cells, sizeof(*v->ev));
	v->evv = calloc(r->n_cells, sizeof(*v->evv));
	if (!v->ev || !v->evv) {
		vtb_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->n_cells; i++) {
		const json_t *h = json_object_get(host, r->cells[i].cell);

		if (!r->cells[i].schedstat && !h)
			continue;
		if (vtb_evidence_build(r->cells[i].cell, r->cells[i].schedstat, h,
				       &v->ev[v->n_ev]) < 0)
			goto out;
		v->evv[v->n_ev] = v->ev[v->n_ev].ev;
		v->n_ev++;
	}
	ret = 0;
out:
	json_decref(host);
	return ret;
}

static void vm_warn(struct boot_ctx *b, struct vm_store *v, char *msg)
{
	if (!msg)
		return;
	if (v->n_warns == VTB_ARRAY_SIZE(v->warns)) {
		free(msg);
		return;
	}
	v->warns[v->n_warns++] = msg;
	boot_warn(b->o, b->cur, msg);
}

/* Does @c's sched profile isolate CPUs from the scheduler's domains (a
 * cpuset partition, isolcpus=)? */
static bool reshapes_domains(const struct vtb_config *c)
{
	const char *cmd = vtb_params_get(&c->params, "sched.cmdline");

	return vtb_params_get(&c->params, "sched.cpuset.partition") ||
	       (cmd && strstr(cmd, "isolcpus="));
}

/*
 * The guest's view of VM @k against the plan: the normalised tree, its
 * digest and levels are kept; the check's outcome (match, differs,
 * unchecked) and any difference are kept for every boot, and a view that
 * differs from the plan makes an ok boot unexpected-topology; a missing
 * or malformed view makes it failed.
 */
static int judge_view(struct vm_store *v, const struct vtb_config *c,
		      const struct vtb_boot_records *r, const struct vtb_plan *plan, int k)
{
	json_t *tree;
	int rc;

	v->check = "unchecked";
	if (!r->view) {
		vtb_boot_demote(&v->status, &v->error, "failed",
				vtb_strdup("the guest reported no view of its topology"));
		return 0;
	}
	if (!(v->view = dump_json(r->view)))
		return vtb_error("out of memory");
	v->cpuid = dump_json(json_object_get(r->view, "cpuid"));
	tree = vtb_gv_normalise(r->view, v->digest);
	if (!tree) {
		vtb_boot_demote(&v->status, &v->error, "failed",
				vtb_asprintf("the guest's view is malformed: %s", vtb_errmsg()));
		return 0;
	}
	v->tree = dump_json(tree);
	v->levels = vtb_gv_levels(tree);
	json_decref(tree);
	if (!v->tree || !v->levels)
		return vtb_error("out of memory");
	if (!plan)
		return 0;
	rc = vtb_gv_check(plan, k, r->view, &v->diff);
	if (rc < 0) {
		vtb_boot_demote(&v->status, &v->error, "failed",
				vtb_asprintf("the guest's view is malformed: %s", vtb_errmsg()));
		return 0;
	}
	v->check = rc ? "differs" : "match";
	/* a profile that isolates CPUs reshapes the domains on purpose: the
	 * plan's topology alone cannot say what the guest builds then; the
	 * difference is kept, the boot is not marked */
	if (rc && reshapes_domains(c)) {
		v->check = "unchecked";
		return 0;
	}
	/* the difference is kept in v->diff, not as an error */
	if (rc)
		vtb_boot_demote(&v->status, &v->error, "unexpected-topology", NULL);
	return 0;
}

/*
 * The pinning libvirt really applied (read back into the placement
 * summary's live_pins) must be the plan's: a strict plan that libvirt
 * did not apply would make every claim a lie.  Sets v->status failed
 * with the first difference.
 */
static void check_live_pins(struct vm_store *v, const char *placement, const struct vtb_plan *plan,
			    int k)
{
	json_t *p, *pins;
	size_t i;

	if (!plan || !plan->vm[k].pins || !placement || strcmp(v->status, "ok"))
		return;
	p = json_loads(placement, 0, NULL);
	pins = json_object_get(p, "live_pins");
	if (!json_is_array(pins)) {
		json_decref(p);
		return; /* not read back (remote daemon, old libvirt): nothing to hold */
	}
	for (i = 0; i < (size_t)plan->req.vcpus; i++) {
		const char *live = json_string_value(json_array_get(pins, i));
		char *want = vtb_cpuset_format(&plan->vm[k].pins[i]);
		struct vtb_cpuset got = { 0 };
		char *norm = live && vtb_cpuset_parse(live, &got) == 0 ? vtb_cpuset_format(&got)
								       : NULL;
		bool same = norm && want && !strcmp(norm, want);

		vtb_cpuset_release(&got);
		free(norm);
		if (!same) {
			vtb_boot_demote(
				&v->status, &v->error, "failed",
				vtb_asprintf("libvirt pinned vCPU %zu to '%s', the plan to '%s'", i,
					     live ? live : "?", want ? want : "?"));
			free(want);
			break;
		}
		free(want);
	}
	json_decref(p);
}

/*
 * The harness's own check that the guest applied the sched profile
 * (vtb_sched_verify): an agent's "ok" alone is not evidence.  A profile
 * that did not apply fails an ok boot, naming the key.
 */
static int check_sched(struct vm_store *v, const struct vtb_config *c,
		       const struct vtb_boot_records *r)
{
	char *why = NULL;
	int rc;

	if (strcmp(v->status, "ok"))
		return 0;
	rc = vtb_sched_verify(c, r->probe, r->sched, &why);
	if (rc < 0)
		return -1;
	if (rc == 1)
		vtb_boot_demote(&v->status, &v->error, "failed", why);
	return 0;
}

/* A group's boots: what the boot returns and what is stored, per VM */
struct vm_group {
	size_t n;
	const struct vtb_plan *plan; /* planned once, when the matrix was loaded */
	char uuid[37];		     /* vms > 1: the group's */
	struct vtb_vmboot_result *vr;
	struct vtb_vm_boot_info *vmi;
	struct vtb_boot_info *info;
	const struct vtb_boot_records **recs;
	struct vtb_vmboot_vm *vms;
	struct vm_store *v;
};

static int vm_group_init(struct vm_group *g, const struct boot_ctx *b, const struct vtb_config *c)
{
	size_t n = c->req.vms ? (size_t)c->req.vms : 1;

	*g = (struct vm_group){ .n = n, .plan = b->model ? c->plan : NULL };
	g->vr = calloc(n, sizeof(*g->vr));
	g->vmi = calloc(n, sizeof(*g->vmi));
	g->info = calloc(n, sizeof(*g->info));
	g->recs = calloc(n, sizeof(*g->recs));
	g->vms = calloc(n, sizeof(*g->vms));
	g->v = calloc(n, sizeof(*g->v));
	if (!g->vr || !g->vmi || !g->info || !g->recs || !g->vms || !g->v)
		return vtb_error("out of memory");
	if (g->plan && (size_t)g->plan->req.vms != n)
		return vtb_error("%s: the plan has %d VMs side by side, the configuration %zu",
				 c->label, g->plan->req.vms, n);
	if (n > 1 && vtb_uuid(g->uuid))
		return -1;
	return 0;
}

static void vm_group_release(struct vm_group *g)
{
	for (size_t k = 0; g->vr && k < g->n; k++)
		vtb_vmboot_result_release(&g->vr[k]);
	for (size_t k = 0; g->v && k < g->n; k++)
		vm_store_release(&g->v[k]);
	free(g->vr);
	free(g->vmi);
	free(g->info);
	free(g->recs);
	free(g->vms);
	free(g->v);
}

/* Each VM's identity, job and CPUs */
static int vm_group_jobs(struct vm_group *g, const struct vtb_config *c, int rep, bool evidence)
{
	for (size_t k = 0; k < g->n; k++) {
		struct vm_store *v = &g->v[k];

		if (vtb_random_hex(v->nonce, 16) || vtb_uuid(v->uuid))
			return -1;
		v->job = vtb_job_json(c, v->nonce, v->uuid, rep, evidence);
		v->cpus = vtb_cpuset_format(g->plan ? &g->plan->vm[k].cpus : &c->cpus);
		if (!v->job || !v->cpus)
			return -1;
		g->vms[k] = (struct vtb_vmboot_vm){ .uuid = v->uuid,
						    .nonce = v->nonce,
						    .job_json = v->job };
	}
	return 0;
}

/* Boots the group; 1 when a stop request interrupted it (nothing to store) */
static int vm_group_boot(struct boot_ctx *b, const struct vtb_config *c, struct vm_group *g)
{
	struct vtb_vmboot_group_req req = {
		.config = c,
		.model = b->model,
		.vms = g->vms,
		.n = g->n,
		.timeout_ns = b->timeout_ns,
		.placement_interval_ns = b->placement_interval_ns,
		.evidence = b->evidence,
		.stop = &stop_flag,
		.waitmask = &b->waitmask,
		.tick = tick,
		.tick_arg = b,
	};

	if (vtb_vm_boot_group(b->vh, &req, g->vr))
		return -1;
	for (size_t k = 0; k < g->n; k++)
		if (!strcmp(g->vr[k].out.status, "interrupted"))
			return 1;
	return 0;
}

/* VM @k's status: its cells, the kernel it reports, the pinning libvirt
 * applied, the sched profile, its view against the plan. */
static int vm_judge(struct boot_ctx *b, const struct vtb_config *c, struct vm_group *g, size_t k)
{
	struct vm_store *v = &g->v[k];
	struct vtb_boot_outcome *o = &g->vr[k].out;
	const struct vtb_boot_records *r = vtb_rec_parser_result(o->parser);
	const char *gk = r->header ? json_string_value(json_object_get(r->header, "kernel")) : NULL;

	g->recs[k] = r;
	vtb_boot_check_cells(o, c);
	v->status = o->status;
	/* the kernel we booted, read from its image: the guest's uname -r
	 * is its word only, kept in the header */
	if (gk && strcmp(gk, vtb_vmhost_kernel(b->vh, c)->release))
		vm_warn(b, v,
			vtb_asprintf("the guest reports kernel '%s' but '%s' (%s) was booted", gk,
				     vtb_vmhost_kernel(b->vh, c)->release,
				     vtb_vmhost_kernel(b->vh, c)->staged));
	check_live_pins(v, g->vr[k].placement, g->plan, (int)k);
	if (check_sched(v, c, r) < 0 || judge_view(v, c, r, g->plan, (int)k) < 0)
		return -1;
	if (!strcmp(v->status, "unexpected-topology"))
		vm_warn(b, v,
			vtb_asprintf("%sthe guest's topology differs from the plan: %s",
				     g->n > 1 ? "side-by-side VM: " : "", v->diff));
	v->probe = dump_json(r->probe);
	v->sched = dump_json(r->sched);
	v->steal_before = dump_json(r->steal_before);
	v->steal_after = dump_json(r->steal_after);
	return vm_evidence(v, r, g->vr[k].cell_host);
}

/* VM @k's rows for the store; its warnings: its own, then the group's
 * pre-boot ones */
static void vm_describe(const struct boot_ctx *b, const struct vtb_config *c, int rep,
			struct vm_group *g, size_t k, char *const *warns, size_t n_warns)
{
	struct vm_store *v = &g->v[k];
	const struct vtb_vmboot_result *vr = &g->vr[k];

	g->vmi[k] = (struct vtb_vm_boot_info){
		.accelerator = b->vh->accel,
		.cpu_model = b->vh->cpu_model,
		.guest_kernel = vtb_vmhost_kernel(b->vh, c)->release,
		.guest_kernel_sha256 = vtb_vmhost_kernel(b->vh, c)->sha256,
		.guest_kernel_config_sha256 = vtb_vmhost_kernel(b->vh, c)->config_sha256,
		.libvirt_version = vtb_hv_libvirt_version(b->vh->hv),
		.qemu_version = vtb_hv_qemu_version(b->vh->hv),
		.live_xml = vr->live_xml,
		.console_tail = vr->out.stderr_tail,
		.vm_index = (int)k,
		.vms = (int)g->n,
		.group_uuid = g->n > 1 ? g->uuid : NULL,
		.claims = vr->claims,
		.placement = vr->placement,
		.probe = v->probe,
		.sched = v->sched,
		.topology_check = v->check,
		.topology_diff = v->diff,
		.view = v->view,
		.tree = v->tree,
		.digest = v->view && v->tree ? v->digest : NULL,
		.levels = v->levels,
		.cpuid = v->cpuid,
		.steal_before = v->steal_before,
		.steal_after = v->steal_after,
		.evidence = v->evv,
		.n_evidence = v->n_ev,
	};
	for (size_t i = 0; i < n_warns && v->n_warns < VTB_ARRAY_SIZE(v->warns); i++)
		if ((v->warns[v->n_warns] = vtb_strdup(warns[i])))
			v->n_warns++;
	g->info[k] = (struct vtb_boot_info){
		.campaign_id = b->campaign,
		.uuid = v->uuid,
		.config_key = c->key,
		.rep = rep,
		.status = v->status,
		.error = v->error ? v->error : vr->out.error,
		.started_ns = vr->out.started_ns,
		.ended_ns = vr->out.ended_ns,
		.nonce = v->nonce,
		.cpus = v->cpus,
		.confinement = "none",
		.vm = &g->vmi[k],
		.warnings = (const char **)v->warns,
		.n_warnings = v->n_warns,
	};
}

/* The group's summary for the progress line: the first VM not ok */
static void vm_group_summary(const struct vm_group *g, struct vtb_boot_outcome *out)
{
	const struct vtb_boot_info *info = g->info;
	size_t k, n = g->n;

	for (k = 0; k < n && !strcmp(info[k].status, "ok"); k++)
		;
	k = k < n ? k : 0;
	out->status = info[k].status;
	out->error = info[k].error
			     ? (n > 1 ? vtb_asprintf("VM %zu of %zu: %s", k + 1, n, info[k].error)
				      : vtb_strdup(info[k].error))
			     : NULL;
	if (!strcmp(out->status, "unexpected-topology") && !out->error && g->v[k].diff)
		out->error = vtb_strdup(g->v[k].diff);
}

/*
 * Boots the VMs of configuration @c (vms = N side by side: created
 * paused, resumed together) for rep @rep, checks each guest's view
 * against the plan and stores the group in one transaction.  Returns as
 * run_boot(); @out gets the group's summary (the first VM that was not
 * ok) for the progress line, and each VM is counted in @res.
 */
static int run_vm_group(struct boot_ctx *b, const struct vtb_config *c, int rep,
			struct vtb_boot_outcome *out, struct vtb_run_result *res)
{
	struct vm_group g;
	char *warns[3] = { NULL, NULL, NULL };
	size_t n_warns = 0, i, k;
	int ret = -1;

	if (vm_group_init(&g, b, c))
		goto out;
	preboot_checks(b, c, warns, &n_warns);
	for (i = 0; i < n_warns; i++)
		boot_warn(b->o, b->cur, warns[i]);
	if (stop_requested()) {
		ret = 1;
		goto out;
	}
	if (vm_group_jobs(&g, c, rep, b->evidence))
		goto out;
	ret = vm_group_boot(b, c, &g);
	if (ret)
		goto out;
	ret = -1;
	for (k = 0; k < g.n; k++) {
		if (vm_judge(b, c, &g, k) < 0)
			goto out;
		vm_describe(b, c, rep, &g, k, warns, n_warns);
	}
	if (vtb_store_boots(b->st, g.info, g.recs, g.n))
		goto out;
	vm_group_summary(&g, out);
	for (k = 0; k < g.n; k++)
		tally(res, g.info[k].status);
	ret = 0;
out:
	for (i = 0; i < n_warns; i++)
		free(warns[i]);
	vm_group_release(&g);
	return ret;
}

/* Runs one boot (a VM configuration: its group of VMs) and stores it,
 * counting each stored boot in @res.  Returns 0 (its fate in
 * out->status), 1 when interrupted (nothing stored), -1 on a harness
 * failure. */
static int run_boot(struct boot_ctx *b, const struct vtb_config *c, int rep,
		    struct vtb_boot_outcome *out, struct vtb_run_result *res)
{
	char nonce[33], uuid[37], *job = NULL, *cpus = NULL;
	char *warns[3] = { NULL, NULL, NULL };
	size_t n_warns = 0, i;
	struct vtb_baremetal_req req;
	struct vtb_boot_info info;
	int ret = -1;

	if (c->kind == VTB_CONFIG_VM)
		return run_vm_group(b, c, rep, out, res);
	if (vtb_random_hex(nonce, 16) || vtb_uuid(uuid))
		return -1;
	/* a VM boot's teardown (libvirt's own, after its QEMU exited) never
	 * runs beside a baseline's measured interval: the next VM's creation
	 * waits for it in libvirt, a bare-metal boot here */
	if (b->vh)
		vtb_hv_drain(b->vh->hv);
	preboot_checks(b, c, warns, &n_warns);
	for (i = 0; i < n_warns; i++)
		boot_warn(b->o, b->cur, warns[i]);
	if (stop_requested()) {
		ret = 1;
		goto out;
	}
	job = vtb_job_json(c, nonce, uuid, rep, b->evidence);
	cpus = vtb_cpuset_format(&c->cpus);
	if (!job || !cpus)
		goto out;
	req = (struct vtb_baremetal_req){
		.agent = b->o->agent,
		.job_json = job,
		.nonce = nonce,
		.cpus = &c->cpus,
		.mems = c->mems,
		.timeout_ns = b->timeout_ns,
		.partition = vtb_params_get(&c->params, "confine") &&
			     !strcmp(vtb_params_get(&c->params, "confine"), "partition"),
		.uuid = uuid,
		.stop = &stop_flag,
		.waitmask = &b->waitmask,
		.tick = tick,
		.tick_arg = b,
	};
	if (vtb_baremetal_boot(&req, out))
		goto out;
	if (!strcmp(out->status, "interrupted")) {
		ret = 1;
		goto out;
	}
	vtb_boot_check_confinement(out, cpus);
	if (out->warning && n_warns < VTB_ARRAY_SIZE(warns) &&
	    (warns[n_warns] = vtb_strdup(out->warning)))
		boot_warn(b->o, b->cur, warns[n_warns++]);
	vtb_boot_check_cells(out, c);
	info = (struct vtb_boot_info){
		.campaign_id = b->campaign,
		.uuid = uuid,
		.config_key = c->key,
		.rep = rep,
		.status = out->status,
		.error = out->error,
		.started_ns = out->started_ns,
		.ended_ns = out->ended_ns,
		.nonce = nonce,
		.cpus = cpus,
		.confinement = out->confinement ? out->confinement
			       : out->membind	? "affinity+membind"
						: "affinity",
		.stderr_tail = out->stderr_tail,
		.warnings = (const char **)warns,
		.n_warnings = n_warns,
	};
	if (vtb_store_boot(b->st, &info, vtb_rec_parser_result(out->parser)))
		goto out;
	tally(res, out->status);
	ret = 0;
out:
	for (i = 0; i < n_warns; i++)
		free(warns[i]);
	free(job);
	free(cpus);
	return ret;
}

/*
 * Runs boot @rep of @c with its progress events (@p: index, total and the
 * auto fields filled by the caller).  0: stored (or not run: a stop was
 * requested, res->interrupted set); -1 on a harness failure.
 */
/*
 * A VM configuration whose sched profile sets a sysctl or debugfs knob its
 * kernel image lacks (by the probe a boot of that image stored, in this campaign
 * or an earlier one) is not runnable for the rest of the campaign: said
 * once, stored as the configuration's why_not and an event.  1: skip it.
 */
static int knobs_check(struct boot_ctx *b, struct vtb_config *c)
{
	const struct vtb_vmkernel *k;
	char *probe_txt = NULL, *why = NULL, *msg = NULL;
	json_t *probe = NULL;
	int r;

	if (c->kind != VTB_CONFIG_VM || !b->vh || !vtb_sched_has_settings(c))
		return 0;
	k = vtb_vmhost_kernel(b->vh, c);
	if (vtb_store_kernel_probe(b->st, k->sha256, &probe_txt) < 0)
		return -1;
	probe = probe_txt ? json_loads(probe_txt, 0, NULL) : NULL;
	r = vtb_sched_knobs_lacking(c, probe, &why);
	if (r == 1) {
		c->runnable = false;
		free(c->why_not);
		c->why_not = vtb_asprintf("kernel %s (%s, sha256 %.16s) %s",
					  c->kernel_name ? c->kernel_name : "(staged)", k->release,
					  k->sha256, why);
		msg = c->why_not ? vtb_asprintf("not run: %s: %s", c->label, c->why_not) : NULL;
		if (!msg ||
		    vtb_store_config_not_runnable(b->st, b->campaign, c->key, c->why_not) < 0)
			r = msg ? -1 : vtb_error("out of memory");
		else {
			warn(b->o, msg);
			vtb_store_event(b->st, b->campaign, NULL, "warn", msg);
		}
	}
	free(msg);
	free(why);
	free(probe_txt);
	json_decref(probe);
	return r;
}

static int run_one(struct boot_ctx *b, struct vtb_config *c, int rep, struct vtb_progress *p,
		   struct vtb_run_result *res, size_t *done)
{
	struct vtb_boot_outcome out = { 0 };
	size_t total = p->total;
	uint64_t bt0;
	int r;

	if (stop_requested()) {
		res->interrupted = true;
		return 0;
	}
	if (!c->runnable)
		return 0; /* found not runnable during the campaign */
	r = knobs_check(b, c);
	if (r < 0)
		return -1;
	if (r == 1) {
		res->not_runnable++;
		res->lacking++;
		return 0;
	}
	p->label = c->label;
	p->rep = rep;
	p->elapsed_seconds = (double)(vtb_now_ns() - b->t0) / 1e9;
	b->cur_i = (size_t)(c - b->eta.configs);
	b->cur_done = *done;
	b->cur_total = total;
	p->eta_seconds = eta_left(b, b->cur_i, 0, total, *done);
	progress(b->o, p);
	bt0 = vtb_now_ns();
	b->cur_t0 = bt0;
	b->cur = p;
	r = run_boot(b, c, rep, &out, res);
	b->cur = NULL;
	if (r != 0)
		vtb_boot_outcome_release(&out);
	if (r < 0)
		return -1;
	if (r == 1) {
		res->interrupted = true;
		return 0;
	}
	(*done)++;
	p->index = *done;
	p->status = out.status;
	p->error = out.error;
	p->boot_seconds = (double)(vtb_now_ns() - bt0) / 1e9;
	p->elapsed_seconds = (double)(vtb_now_ns() - b->t0) / 1e9;
	vtb_eta_add(&b->eta, b->cur_i, p->boot_seconds);
	p->eta_seconds = eta_left(b, SIZE_MAX, 0, total, *done);
	progress(b->o, p);
	vtb_boot_outcome_release(&out);
	return 0;
}

/*
 * reps = auto, the stopping rule: compare's document of the campaign as
 * stored (each VM against its own baseline, or the matrix's auto_compare
 * axis or baseline; the default threshold and alpha); a configuration
 * needs more boots while a row that involves it is undecided
 * (inconclusive or few).  Fills @more per configuration of @m and
 * *undecided; *bad: the selection does not fit the campaign (an input
 * error).
 */
static int auto_decide(struct boot_ctx *b, const struct vtb_matrix *m, const char *db,
		       const char *campaign, bool *more, long *undecided, long *missing, bool *bad)
{
	const char **keys = calloc(m->n_configs ? m->n_configs : 1, sizeof(*keys));
	struct vtb_compare_opts co;
	json_t *doc = NULL;
	size_t n = 0;
	int ret = -1;

	*bad = false;
	if (!keys)
		return vtb_error("out of memory");
	for (size_t i = 0; i < m->n_configs; i++) {
		keys[i] = m->configs[i].key;
		more[i] = false;
	}
	vtb_compare_opts_default(&co);
	co.campaign = campaign;
	co.axis = m->auto_axis;
	co.baseline = m->auto_baseline;
	if (vtb_compare_build(b->st, db, NULL, NULL, &co, &doc, bad) < 0 ||
	    vtb_compare_pending(doc, keys, m->n_configs, more, &n) < 0)
		goto out;
	*undecided = (long)n;
	*missing = (long)vtb_compare_count(doc, "missing");
	ret = 0;
out:
	json_decref(doc);
	free(keys);
	return ret;
}

/* splitmix64: a round's order for order = random:SEED. */
static uint64_t mix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * reps = auto: interleaved rounds.  Every runnable configuration boots
 * once a round until it has min_reps boots; from then on, after each
 * round, auto_decide() says which need more, and only those boot in the
 * next (a configuration whose rows come undecided again, as its baseline
 * gains boots for another VM, boots again).  Reps already stored (--resume)
 * count.  Stops when none needs more, at max_reps a configuration, on a
 * stop request, or when the next boot would end past the budget (at the
 * mean boot time so far).
 */
/* reps = auto's state: per configuration, the next rep and whether
 * compare wants more boots of it; this round's configurations */
struct auto_state {
	size_t *round;
	int *next;
	bool *more;
	uint64_t seed;	 /* order = random:SEED */
	double boot_sum; /* seconds booted so far, for the budget */
};

/* What --resume finds stored: reps 0..next-1 of each configuration */
static int auto_stored(struct boot_ctx *b, const struct vtb_matrix *m, struct auto_state *as,
		       struct vtb_run_result *res)
{
	for (size_t i = 0; i < m->n_configs; i++) {
		bool exists = true;

		while (m->configs[i].runnable && as->next[i] < m->max_reps && exists) {
			if (vtb_store_boot_exists(b->st, b->campaign, m->configs[i].key,
						  as->next[i], &exists))
				return -1;
			as->next[i] += exists;
		}
		res->skipped += (size_t)as->next[i];
	}
	return 0;
}

/* order = random:SEED: the round's @k configurations shuffled */
static void auto_shuffle(const struct vtb_matrix *m, struct auto_state *as, size_t k)
{
	if (m->order == VTB_ORDER_RANDOM)
		for (size_t i = k; i > 1; i--) {
			size_t j = (size_t)(mix(&as->seed) % i), t = as->round[i - 1];

			as->round[i - 1] = as->round[j];
			as->round[j] = t;
		}
}

/* Rounds' state (reps = auto, explore): what is stored counted in */
static int auto_start(struct boot_ctx *b, const struct vtb_matrix *m, struct auto_state *as,
		      struct vtb_run_result *res)
{
	size_t n = m->n_configs ? m->n_configs : 1;

	*as = (struct auto_state){ .round = calloc(n, sizeof(*as->round)),
				   .next = calloc(n, sizeof(*as->next)),
				   .more = calloc(n, sizeof(*as->more)),
				   .seed = m->seed };
	res->reps_auto = true;
	res->undecided = -1;
	if (!as->round || !as->next || !as->more)
		return vtb_error("out of memory");
	return auto_stored(b, m, as, res);
}

static void auto_release(struct auto_state *as)
{
	free(as->round);
	free(as->next);
	free(as->more);
}

/* The configurations that boot this round, in order; @left: the most
 * boots still possible. */
static size_t auto_pick(const struct vtb_matrix *m, struct auto_state *as, size_t *left)
{
	size_t k = 0;

	*left = 0;
	for (size_t i = 0; i < m->n_configs; i++) {
		if (!m->configs[i].runnable || as->next[i] >= m->max_reps ||
		    (as->next[i] >= m->min_reps && !as->more[i]))
			continue;
		as->round[k++] = i;
		*left += (size_t)(m->max_reps - as->next[i]);
	}
	auto_shuffle(m, as, k);
	return k;
}

/* Says where a round after the first stands */
static void auto_round_note(const struct vtb_run_opts *o, const struct vtb_matrix *m,
			    const struct vtb_run_result *res, size_t k, size_t left)
{
	char *msg;

	if (!res->rounds)
		return;
	if (res->undecided < 0)
		msg = vtb_asprintf("reps = auto, round %zu: %lld boots a configuration before "
				   "the first decision",
				   res->rounds, m->min_reps);
	else
		msg = vtb_asprintf("reps = auto, round %zu: %ld compare row%s undecided; %zu "
				   "configuration%s go%s on, at most %zu boot%s left",
				   res->rounds, res->undecided, res->undecided == 1 ? "" : "s", k,
				   k == 1 ? "" : "s", k == 1 ? "es" : "", left,
				   left == 1 ? "" : "s");
	if (msg)
		note(msg, (void *)o);
	free(msg);
}

/* One round's @k boots, until a stop request or the budget */
static int auto_round(struct boot_ctx *b, struct vtb_matrix *m, struct auto_state *as, size_t k,
		      size_t left, struct vtb_run_result *res, size_t *done)
{
	for (size_t j = 0; j < k; j++) {
		struct vtb_config *c = &m->configs[as->round[j]];
		struct vtb_progress p = { .index = *done + 1,
					  .total = *done + left - j,
					  .reps_auto = true,
					  .undecided = res->undecided };
		double elapsed = (double)(vtb_now_ns() - b->t0) / 1e9;

		b->rest = as->round + j + 1;
		b->n_rest = k - j - 1;

		if (m->budget_ns && *done &&
		    elapsed + as->boot_sum / (double)*done > (double)m->budget_ns / 1e9) {
			res->budget_spent = true;
			return 0;
		}
		if (run_one(b, c, as->next[as->round[j]], &p, res, done) < 0)
			return -1;
		if (res->interrupted)
			return 0;
		as->boot_sum += p.boot_seconds;
		as->next[as->round[j]]++;
	}
	return 0;
}

static int run_auto(struct boot_ctx *b, const struct vtb_run_opts *o, struct vtb_matrix *m,
		    struct vtb_run_result *res, size_t *done)
{
	size_t n = m->n_configs;
	struct auto_state as;
	int ret = -1;

	if (auto_start(b, m, &as, res))
		goto out;
	for (;;) {
		size_t k, left;
		bool any_min = false, bad = false;

		for (size_t i = 0; i < n; i++)
			any_min |= m->configs[i].runnable && as.next[i] >= m->min_reps;
		/* the first time before any boot: a selection that cannot work
		 * (an axis no configuration has) is found before hours of boots */
		if ((any_min || !res->rounds) &&
		    auto_decide(b, m, res->db, res->campaign, as.more, &res->undecided,
				&res->missing, &bad) < 0) {
			if (bad)
				vtb_error("auto_compare: %s", vtb_errmsg());
			res->fail = bad ? VTB_RUN_INPUT : VTB_RUN_INFRA;
			goto out;
		}
		if (!any_min) {
			res->undecided = -1;
			memset(as.more, 0, n * sizeof(*as.more));
		}
		k = auto_pick(m, &as, &left);
		res->planned = *done + res->skipped + left;
		auto_round_note(o, m, res, k, left);
		if (!k) {
			for (size_t i = 0; i < n; i++)
				res->capped |= m->configs[i].runnable &&
					       as.next[i] >= m->max_reps && as.more[i];
			break;
		}
		if (auto_round(b, m, &as, k, left, res, done) < 0)
			goto out;
		res->rounds++;
		if (res->interrupted || res->budget_spent)
			break;
	}
	ret = 0;
out:
	auto_release(&as);
	return ret;
}

/*
 * explore: rounds as reps = auto boots them (interleaved, stored reps
 * counted on --resume, the budget), each round's configurations chosen by
 * the caller's rule (o->rounds) until it says stop or wants none.
 */
static int run_rounds(struct boot_ctx *b, const struct vtb_run_opts *o, struct vtb_matrix *m,
		      struct vtb_run_result *res, size_t *done)
{
	struct auto_state as;
	int ret = -1;

	if (auto_start(b, m, &as, res))
		goto out;
	for (;;) {
		bool input = false;
		size_t k = 0, left;
		int r = o->rounds->decide(o->rounds->arg, b->st, b->campaign, as.next, as.more,
					  &input);

		if (r < 0) {
			res->fail = input ? VTB_RUN_INPUT : VTB_RUN_INFRA;
			goto out;
		}
		for (size_t i = 0; r == 0 && i < m->n_configs; i++)
			if (as.more[i] && m->configs[i].runnable)
				as.round[k++] = i;
		if (!k)
			break;
		auto_shuffle(m, &as, k);
		res->planned = *done + res->skipped + k;
		/* the progress counts up to the race's most (o->max_boots) */
		left = *done + res->skipped + k < o->max_boots ? o->max_boots - *done - res->skipped
							       : k;
		if (auto_round(b, m, &as, k, left, res, done) < 0)
			goto out;
		res->rounds++;
		if (res->interrupted || res->budget_spent)
			break;
	}
	ret = 0;
out:
	auto_release(&as);
	return ret;
}

static int start_campaign(const struct vtb_run_opts *o, struct vtb_store *st,
			  const struct vtb_hosttopo *host, struct vtb_matrix *m, json_t *state,
			  int64_t *campaign, struct vtb_run_result *res)
{
	struct vtb_host_info hi = {
		.hostname = o->host_id			? o->host_id
			    : m->host_id && *m->host_id ? m->host_id
							: host->hostname,
		.cpu_vendor = host->cpu_vendor,
		.cpu_model_name = host->cpu_model_name,
		.cpu_codename = host->cpu_codename,
		.cpu_family = host->cpu_family,
		.cpu_model = host->cpu_model,
		.topo_digest = host->digest,
		.topo_summary = host->summary,
		.kernel = host->kernel,
	};
	struct vtb_campaign_info ci;
	int64_t host_id;
	char *state_text = NULL;
	bool found = false;
	int ret = -1;

	if (vtb_store_host(st, &hi, &host_id))
		return -1;
	if (o->resume) {
		if (vtb_store_campaign_find(st, m->digest, host_id, campaign, res->campaign,
					    &found))
			return -1;
		if (found) {
			res->resumed = true;
			return vtb_store_campaign_sync(st, *campaign, m);
		}
		warn(o,
		     "--resume: no campaign of this matrix on this host in the database; starting a new one");
	}
	if (vtb_uuid(res->campaign))
		return -1;
	state_text = json_dumps(state, JSON_COMPACT | JSON_SORT_KEYS);
	ci = (struct vtb_campaign_info){
		.uuid = res->campaign,
		.host_id = host_id,
		.matrix_path = m->path,
		.matrix_text = m->text,
		.matrix_digest = m->digest,
		.version = VTB_VERSION,
		.cmdline = o->cmdline,
		.state_json = state_text,
	};
	ret = vtb_store_campaign_begin(st, &ci, m, campaign);
	free(state_text);
	return ret;
}

/* Stop requests: SIGINT and SIGTERM are blocked for the whole run and
 * only delivered inside ppoll while a boot runs; a SIGINT ignored by our
 * parent (a background job) stays ignored. */
struct sigstate {
	sigset_t block, oldmask;
	struct sigaction old_int, old_term;
};

static void signals_take(struct sigstate *ss, sigset_t *waitmask)
{
	struct sigaction sa;

	sigemptyset(&ss->block);
	sigaddset(&ss->block, SIGINT);
	sigaddset(&ss->block, SIGTERM);
	sigprocmask(SIG_BLOCK, &ss->block, &ss->oldmask);
	*waitmask = ss->oldmask;
	sigdelset(waitmask, SIGTERM);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	stop_flag = 0;
	sigaction(SIGINT, NULL, &ss->old_int);
	if (ss->old_int.sa_handler != SIG_IGN) {
		sigaction(SIGINT, &sa, NULL);
		sigdelset(waitmask, SIGINT);
	}
	sigaction(SIGTERM, &sa, &ss->old_term);
}

static void signals_give_back(struct sigstate *ss)
{
	struct timespec zero = { 0, 0 };

	/* a pending stop request has been honoured: consume it */
	while (sigtimedwait(&ss->block, NULL, &zero) > 0)
		;
	sigaction(SIGINT, &ss->old_int, NULL);
	sigaction(SIGTERM, &ss->old_term, NULL);
	sigprocmask(SIG_SETMASK, &ss->oldmask, NULL);
}

/* Marks configurations --only leaves out; -1 when it leaves none. */
static int apply_only(struct vtb_matrix *m, const char *only, struct vtb_run_result *res)
{
	struct vtb_strbuf labels = VTB_STRBUF_INIT;
	size_t kept = 0, i;
	int ret = 0;

	for (i = 0; i < m->n_configs; i++) {
		struct vtb_config *c = &m->configs[i];

		if (!c->runnable) {
			res->not_runnable++;
		} else if (!matches_only(c, only)) {
			c->runnable = false;
			free(c->why_not);
			c->why_not = strdup("excluded by --only");
			vtb_strbuf_addf(&labels, "%s'%s'", labels.len ? ", " : "", c->label);
		} else {
			kept++;
		}
	}
	if (only && !kept)
		ret = vtb_error("--only '%s' matches no runnable configuration (they are: %s)",
				only, vtb_strbuf_str(&labels));
	vtb_strbuf_release(&labels);
	return ret;
}

/* The boots of the campaign still to run; counts them into @res. */
static int plan_todo(struct vtb_store *st, int64_t campaign, const struct vtb_matrix *m,
		     const struct vtb_bootref *order, size_t n_order, bool *skip, size_t *todo,
		     struct vtb_run_result *res)
{
	size_t i;

	*todo = 0;
	for (i = 0; i < n_order; i++) {
		const struct vtb_config *c = &m->configs[order[i].config];

		if (vtb_store_boot_exists(st, campaign, c->key, order[i].rep, &skip[i]))
			return -1;
		if (skip[i])
			res->skipped++;
		else
			(*todo)++;
	}
	res->planned = n_order;
	return 0;
}

static void report_not_runnable(const struct vtb_run_opts *o, struct vtb_store *st,
				int64_t campaign, const struct vtb_matrix *m)
{
	size_t i;

	for (i = 0; i < m->n_configs; i++) {
		const struct vtb_config *c = &m->configs[i];
		char *msg;

		if (!c->why_not || !strcmp(c->why_not, "excluded by --only"))
			continue;
		msg = vtb_asprintf("not run: %s: %s", c->label, c->why_not);
		if (msg) {
			warn(o, msg);
			vtb_store_event(st, campaign, NULL, "warn", msg);
		}
		free(msg);
	}
}

/* Connects to libvirt and stages the guest files when the campaign has
 * VM configurations to run; says what guests will run on. */
static int open_guests(const struct vtb_run_opts *o, const struct vtb_matrix *m, struct boot_ctx *b,
		       struct vtb_run_result *res)
{
	bool input = false;
	char *msg;
	size_t i;

	for (i = 0; i < m->n_configs; i++)
		if (m->configs[i].runnable && m->configs[i].kind == VTB_CONFIG_VM)
			break;
	if (i == m->n_configs)
		return 0;
	struct vtb_probe_ctl ctl = {
		.note = note, .arg = (void *)o, .stop = &stop_flag, .waitmask = &b->waitmask
	};

	if (vtb_vmhost_open(m, &ctl, &b->vh, &input)) {
		res->fail = input ? VTB_RUN_INPUT : VTB_RUN_INFRA;
		return -1;
	}
	msg = vtb_asprintf("guests: %s (%s), CPU model %s, kernel %s (%s), libvirt %s, QEMU %s",
			   b->vh->accel, b->vh->accel_why, b->vh->cpu_model, b->vh->stage->release,
			   b->vh->stage->kernel, vtb_hv_libvirt_version(b->vh->hv),
			   vtb_hv_qemu_version(b->vh->hv));
	if (msg)
		note(msg, (void *)o);
	free(msg);
	return 0;
}

/* run says it measures this machine, whatever host the matrix names */
static void warn_host_topology(const struct vtb_run_opts *o)
{
	char *ht = NULL, *msg;

	if (vtb_matrix_host_topology(o->matrix, &ht) == 0 && ht) {
		msg = vtb_asprintf(
			"host_topology = '%s' is for vtbench plan: run measures this machine", ht);
		if (msg)
			warn(o, msg);
		free(msg);
	}
	free(ht);
}

int vtb_run_load(const struct vtb_run_opts *o, const struct vtb_hosttopo *host,
		 struct vtb_run_input *in, struct vtb_run_result *res)
{
	char *msg;

	memset(res, 0, sizeof(*res));
	memset(in, 0, sizeof(*in));
	in->host = host;
	res->fail = VTB_RUN_INPUT;
	if (vtb_matrix_load(o->matrix, &host->ctx, &in->m))
		return -1;
	/* membw's size = auto follows it: say where the figure comes from
	 * (once the matrix is read: a matrix that cannot be is the news) */
	msg = vtb_asprintf("host llc: %s", host->llc_source);
	if (msg)
		note(msg, (void *)o);
	free(msg);
	if (o->reps > 0 || o->reps_auto)
		vtb_matrix_set_reps(in->m, o->reps_auto ? 0 : o->reps);
	if (in->m->reps_auto && in->m->order == VTB_ORDER_SEQUENTIAL)
		return vtb_error(
			"reps = auto boots in interleaved rounds: '%s' has order = sequential",
			o->matrix);
	warn_host_topology(o);
	if (apply_only(in->m, o->only, res) ||
	    vtb_matrix_boot_order(in->m, &in->order, &in->n_order))
		return -1;
	res->db = strdup(o->db ? o->db : in->m->db);
	if (!res->db)
		return vtb_error("out of memory");
	return 0;
}

void vtb_run_input_release(struct vtb_run_input *in)
{
	if (!in)
		return;
	free(in->order);
	vtb_matrix_free(in->m);
	memset(in, 0, sizeof(*in));
}

/* reps = N: the boots in the matrix's order, those already stored skipped */
static int run_fixed(struct boot_ctx *b, const struct vtb_run_input *in, const bool *skip,
		     size_t todo, struct vtb_run_result *res, size_t *done)
{
	size_t *rest = calloc(todo ? todo : 1, sizeof(*rest)), n = 0, i;
	int ret = -1;

	if (!rest)
		return vtb_error("out of memory");
	/* the eta's list: every boot still to run, in order */
	for (i = 0; i < in->n_order; i++)
		if (!skip[i] && n < todo)
			rest[n++] = in->order[i].config;
	for (i = 0, n = 0; i < in->n_order && !res->interrupted; i++) {
		struct vtb_progress p = { .index = *done + 1, .total = todo, .undecided = -1 };

		if (skip[i])
			continue;
		b->rest = rest + n + 1;
		b->n_rest = todo > n + 1 ? todo - n - 1 : 0;
		n++;
		if (run_one(b, &in->m->configs[in->order[i].config], in->order[i].rep, &p, res,
			    done) < 0)
			goto out;
	}
	ret = 0;
out:
	b->rest = NULL;
	b->n_rest = 0;
	free(rest);
	return ret;
}

/* The campaign's boots, once it is open in the store */
static int run_campaign(struct boot_ctx *b, const struct vtb_run_opts *o,
			const struct vtb_run_input *in, struct vtb_run_result *res)
{
	struct vtb_matrix *m = in->m;
	size_t todo = 0, done = 0;
	bool *skip = calloc(in->n_order ? in->n_order : 1, sizeof(*skip));
	int ret = -1;

	if (!skip) {
		vtb_error("out of memory");
		goto out;
	}
	if (!m->reps_auto && !o->rounds &&
	    plan_todo(b->st, b->campaign, m, in->order, in->n_order, skip, &todo, res))
		goto out;
	report_not_runnable(o, b->st, b->campaign, m);
	if ((o->rounds	    ? run_rounds(b, o, m, res, &done)
	     : m->reps_auto ? run_auto(b, o, m, res, &done)
			    : run_fixed(b, in, skip, todo, res, &done)) < 0)
		goto out;
	ret = 0;
out:
	free(skip);
	return ret;
}

int vtb_run(const struct vtb_run_opts *o, const struct vtb_run_input *in, struct vtb_store *st,
	    struct vtb_run_result *res)
{
	struct vtb_matrix *m = in->m;
	struct boot_ctx b = { .o = o, .st = st };
	struct sigstate ss;
	bool campaign_open = false;
	int ret = -1;

	b.t0 = vtb_now_ns();
	signals_take(&ss, &b.waitmask);
	res->fail = VTB_RUN_INFRA;
	b.model = &in->host->model;
	b.timeout_ns = m->timeout_ns;
	b.placement_interval_ns = m->placement_interval_ns;
	b.evidence = m->evidence;
	b.state = vtb_hoststate_snapshot("/");
	if (!b.state) {
		vtb_error("cannot take the host state snapshot");
		goto out;
	}
	if (open_guests(o, m, &b, res))
		goto out;
	if (vtb_eta_init(&b.eta, m->configs, m->n_configs,
			 b.vh && b.vh->accel && !strcmp(b.vh->accel, "kvm")))
		goto out;
	if (start_campaign(o, st, in->host, m, b.state, &b.campaign, res))
		goto out;
	campaign_open = true;
	if (res->resumed && vtb_store_foreach_boot_time(st, b.campaign, eta_stored, &b.eta) < 0)
		goto out;
	if (run_campaign(&b, o, in, res))
		goto out;
	campaign_open = false;
	if (res->interrupted)
		res->stop_signal = stop_flag ? (int)stop_flag : SIGINT;
	if (vtb_store_campaign_end(st, b.campaign, res->interrupted ? "interrupted" : "done"))
		goto out;
	ret = 0;
	res->fail = VTB_RUN_OK;
out:
	if (campaign_open) {
		/* best effort: a campaign the harness gave up on is not left
		 * "running"; the error that got us here is kept */
		char *why = strdup(vtb_errmsg());

		vtb_store_campaign_end(st, b.campaign, "failed");
		if (why)
			vtb_error("%s", why);
		free(why);
	}
	/* the last boots' teardowns end before stop requests are given
	 * back: a signal now cannot leave a domain half destroyed */
	vtb_vmhost_free(b.vh);
	signals_give_back(&ss);
	json_decref(b.state);
	vtb_eta_release(&b.eta);
	return ret;
}

void vtb_run_result_release(struct vtb_run_result *res)
{
	if (!res)
		return;
	free(res->db);
	res->db = NULL;
}
