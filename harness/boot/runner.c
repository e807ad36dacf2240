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
#include <libgen.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "baremetal.h"
#include "bootstatus.h"
#include "../compare/compare.h"
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

char *vtb_job_json(const struct vtb_config *c, const char *nonce, const char *boot_uuid, int rep)
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
		    (sched && json_object_set_new(job, "sched", sched) < 0))
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
	uint64_t t0;			/* campaign start, for elapsed */
};

/* Refreshes the running boot's progress (elapsed time goes on). */
static void tick(void *arg)
{
	struct boot_ctx *b = arg;

	if (!b->cur)
		return;
	b->cur->elapsed_seconds = (double)(vtb_now_ns() - b->t0) / 1e9;
	if (b->cur->eta_seconds >= 0 && b->cur->eta_seconds > 1)
		b->cur->eta_seconds -= 1;
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
	size_t n = (size_t)c->req.vms, k;
	struct vtb_vmboot_result *vr = NULL;
	struct vtb_vm_boot_info *vmi = NULL;
	struct vtb_boot_info *info = NULL;
	const struct vtb_boot_records **recs = NULL;
	struct vtb_vmboot_vm *vms = NULL;
	struct vm_store *v = NULL;
	/* planned once, when the matrix was loaded */
	const struct vtb_plan *plan = b->model ? c->plan : NULL;
	char *warns[3] = { NULL, NULL, NULL }, group[37] = "";
	size_t n_warns = 0, i;
	int ret = -1;

	if (!n)
		n = 1;
	vr = calloc(n, sizeof(*vr));
	vmi = calloc(n, sizeof(*vmi));
	info = calloc(n, sizeof(*info));
	recs = calloc(n, sizeof(*recs));
	vms = calloc(n, sizeof(*vms));
	v = calloc(n, sizeof(*v));
	if (!vr || !vmi || !info || !recs || !vms || !v) {
		vtb_error("out of memory");
		goto out;
	}
	if (plan && (size_t)plan->req.vms != n) {
		vtb_error("%s: the plan has %d VMs side by side, the configuration %zu", c->label,
			  plan->req.vms, n);
		goto out;
	}
	if (n > 1 && vtb_uuid(group))
		goto out;
	preboot_checks(b, c, warns, &n_warns);
	for (i = 0; i < n_warns; i++)
		boot_warn(b->o, b->cur, warns[i]);
	if (stop_requested()) {
		ret = 1;
		goto out;
	}
	for (k = 0; k < n; k++) {
		if (vtb_random_hex(v[k].nonce, 16) || vtb_uuid(v[k].uuid))
			goto out;
		v[k].job = vtb_job_json(c, v[k].nonce, v[k].uuid, rep);
		v[k].cpus = vtb_cpuset_format(plan ? &plan->vm[k].cpus : &c->cpus);
		if (!v[k].job || !v[k].cpus)
			goto out;
		vms[k] = (struct vtb_vmboot_vm){ .uuid = v[k].uuid,
						 .nonce = v[k].nonce,
						 .job_json = v[k].job };
	}
	{
		struct vtb_vmboot_group_req g = {
			.config = c,
			.model = b->model,
			.vms = vms,
			.n = n,
			.timeout_ns = b->timeout_ns,
			.placement_interval_ns = b->placement_interval_ns,
			.stop = &stop_flag,
			.waitmask = &b->waitmask,
			.tick = tick,
			.tick_arg = b,
		};

		if (vtb_vm_boot_group(b->vh, &g, vr))
			goto out;
	}
	for (k = 0; k < n; k++)
		if (!strcmp(vr[k].out.status, "interrupted")) {
			ret = 1;
			goto out;
		}
	for (k = 0; k < n; k++) {
		struct vtb_boot_outcome *o = &vr[k].out;
		const struct vtb_boot_records *r = vtb_rec_parser_result(o->parser);
		const char *gk = r->header ? json_string_value(json_object_get(r->header, "kernel"))
					   : NULL;

		recs[k] = r;
		vtb_boot_check_cells(o, c);
		v[k].status = o->status;
		/* the kernel we booted, read from its image: the guest's
		 * uname -r is its word only, kept in the header */
		if (gk && strcmp(gk, b->vh->stage->release))
			vm_warn(b, &v[k],
				vtb_asprintf(
					"the guest reports kernel '%s' but '%s' (%s) was booted",
					gk, b->vh->stage->release, b->vh->stage->kernel));
		check_live_pins(&v[k], vr[k].placement, plan, (int)k);
		if (check_sched(&v[k], c, r) < 0)
			goto out;
		if (judge_view(&v[k], c, r, plan, (int)k) < 0)
			goto out;
		if (!strcmp(v[k].status, "unexpected-topology"))
			vm_warn(b, &v[k],
				vtb_asprintf("%sthe guest's topology differs from the plan: %s",
					     n > 1 ? "side-by-side VM: " : "", v[k].diff));
		v[k].probe = dump_json(r->probe);
		v[k].sched = dump_json(r->sched);
		v[k].steal_before = dump_json(r->steal_before);
		v[k].steal_after = dump_json(r->steal_after);
		vmi[k] = (struct vtb_vm_boot_info){
			.accelerator = b->vh->accel,
			.cpu_model = b->vh->cpu_model,
			.guest_kernel = b->vh->stage->release,
			.libvirt_version = vtb_hv_libvirt_version(b->vh->hv),
			.qemu_version = vtb_hv_qemu_version(b->vh->hv),
			.live_xml = vr[k].live_xml,
			.console_tail = o->stderr_tail,
			.vm_index = (int)k,
			.vms = (int)n,
			.group_uuid = n > 1 ? group : NULL,
			.claims = vr[k].claims,
			.placement = vr[k].placement,
			.probe = v[k].probe,
			.sched = v[k].sched,
			.topology_check = v[k].check,
			.topology_diff = v[k].diff,
			.view = v[k].view,
			.tree = v[k].tree,
			.digest = v[k].view && v[k].tree ? v[k].digest : NULL,
			.levels = v[k].levels,
			.cpuid = v[k].cpuid,
			.steal_before = v[k].steal_before,
			.steal_after = v[k].steal_after,
		};
		/* the boot's warnings: its own, then the group's pre-boot ones */
		for (i = 0; i < n_warns && v[k].n_warns < VTB_ARRAY_SIZE(v[k].warns); i++)
			if ((v[k].warns[v[k].n_warns] = vtb_strdup(warns[i])))
				v[k].n_warns++;
		info[k] = (struct vtb_boot_info){
			.campaign_id = b->campaign,
			.uuid = v[k].uuid,
			.config_key = c->key,
			.rep = rep,
			.status = v[k].status,
			.error = v[k].error ? v[k].error : o->error,
			.started_ns = o->started_ns,
			.ended_ns = o->ended_ns,
			.nonce = v[k].nonce,
			.cpus = v[k].cpus,
			.confinement = "none",
			.vm = &vmi[k],
			.warnings = (const char **)v[k].warns,
			.n_warnings = v[k].n_warns,
		};
	}
	if (vtb_store_boots(b->st, info, recs, n))
		goto out;
	/* the group's summary for the progress line: the first VM not ok */
	for (k = 0; k < n && !strcmp(info[k].status, "ok"); k++)
		;
	k = k < n ? k : 0;
	out->status = info[k].status;
	out->error = info[k].error
			     ? (n > 1 ? vtb_asprintf("VM %zu of %zu: %s", k + 1, n, info[k].error)
				      : vtb_strdup(info[k].error))
			     : NULL;
	if (!strcmp(out->status, "unexpected-topology") && !out->error && v[k].diff)
		out->error = vtb_strdup(v[k].diff);
	for (k = 0; k < n; k++)
		tally(res, info[k].status);
	ret = 0;
out:
	for (i = 0; i < n_warns; i++)
		free(warns[i]);
	for (k = 0; vr && k < n; k++)
		vtb_vmboot_result_release(&vr[k]);
	for (k = 0; v && k < n; k++)
		vm_store_release(&v[k]);
	free(vr);
	free(vmi);
	free(info);
	free(recs);
	free(vms);
	free(v);
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
	preboot_checks(b, c, warns, &n_warns);
	for (i = 0; i < n_warns; i++)
		boot_warn(b->o, b->cur, warns[i]);
	if (stop_requested()) {
		ret = 1;
		goto out;
	}
	job = vtb_job_json(c, nonce, uuid, rep);
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
static int run_one(struct boot_ctx *b, const struct vtb_config *c, int rep, struct vtb_progress *p,
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
	p->label = c->label;
	p->rep = rep;
	p->elapsed_seconds = (double)(vtb_now_ns() - b->t0) / 1e9;
	p->eta_seconds = *done ? p->elapsed_seconds / (double)*done * (double)(total - *done) : -1;
	progress(b->o, p);
	bt0 = vtb_now_ns();
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
	p->eta_seconds = p->elapsed_seconds / (double)*done * (double)(total - *done);
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
		       const char *campaign, bool *more, long *undecided, bool *bad)
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
static int run_auto(struct boot_ctx *b, const struct vtb_run_opts *o, const struct vtb_matrix *m,
		    struct vtb_run_result *res, size_t *done)
{
	size_t n = m->n_configs, *round = calloc(n ? n : 1, sizeof(*round));
	int *next = calloc(n ? n : 1, sizeof(*next));
	bool *more = calloc(n ? n : 1, sizeof(*more));
	uint64_t state = m->seed;
	double boot_sum = 0;
	int ret = -1;

	res->reps_auto = true;
	res->undecided = -1;
	if (!round || !next || !more) {
		vtb_error("out of memory");
		goto out;
	}
	/* what --resume finds stored: reps 0..next-1 */
	for (size_t i = 0; i < n; i++) {
		bool exists = true;

		while (m->configs[i].runnable && next[i] < m->max_reps && exists) {
			if (vtb_store_boot_exists(b->st, b->campaign, m->configs[i].key, next[i],
						  &exists))
				goto out;
			next[i] += exists;
		}
		res->skipped += (size_t)next[i];
	}
	for (;;) {
		size_t k = 0, left = 0;
		bool any_min = false, bad = false;
		char *msg;

		for (size_t i = 0; i < n; i++)
			any_min |= m->configs[i].runnable && next[i] >= m->min_reps;
		/* the first time before any boot: a selection that cannot work
		 * (an axis no configuration has) is found before hours of boots */
		if ((any_min || !res->rounds) &&
		    auto_decide(b, m, res->db, res->campaign, more, &res->undecided, &bad) < 0) {
			if (bad)
				vtb_error("auto_compare: %s", vtb_errmsg());
			res->fail = bad ? VTB_RUN_INPUT : VTB_RUN_INFRA;
			goto out;
		}
		if (!any_min) {
			res->undecided = -1;
			memset(more, 0, n * sizeof(*more));
		}
		for (size_t i = 0; i < n; i++) {
			if (!m->configs[i].runnable || next[i] >= m->max_reps ||
			    (next[i] >= m->min_reps && !more[i]))
				continue;
			round[k++] = i;
			left += (size_t)(m->max_reps - next[i]);
		}
		res->planned = *done + res->skipped + left;
		if (res->rounds && res->undecided < 0)
			msg = vtb_asprintf(
				"reps = auto, round %zu: %lld boots a configuration before "
				"the first decision",
				res->rounds, m->min_reps);
		else if (res->rounds)
			msg = vtb_asprintf("reps = auto, round %zu: %ld compare row%s undecided; %zu "
					   "configuration%s go%s on, at most %zu boot%s left",
					   res->rounds, res->undecided,
					   res->undecided == 1 ? "" : "s", k, k == 1 ? "" : "s",
					   k == 1 ? "es" : "", left, left == 1 ? "" : "s");
		else
			msg = NULL;
		if (msg)
			note(msg, (void *)o);
		free(msg);
		if (!k) {
			for (size_t i = 0; i < n; i++)
				res->capped |= m->configs[i].runnable && next[i] >= m->max_reps &&
					       more[i];
			break;
		}
		if (m->order == VTB_ORDER_RANDOM)
			for (size_t i = k; i > 1; i--) {
				size_t j = (size_t)(mix(&state) % i), t = round[i - 1];

				round[i - 1] = round[j];
				round[j] = t;
			}
		for (size_t j = 0; j < k; j++) {
			const struct vtb_config *c = &m->configs[round[j]];
			struct vtb_progress p = { .index = *done + 1,
						  .total = *done + left - j,
						  .reps_auto = true,
						  .undecided = res->undecided };
			double elapsed = (double)(vtb_now_ns() - b->t0) / 1e9;

			if (m->budget_ns && *done &&
			    elapsed + boot_sum / (double)*done > (double)m->budget_ns / 1e9) {
				res->budget_spent = true;
				break;
			}
			if (run_one(b, c, next[round[j]], &p, res, done) < 0)
				goto out;
			if (res->interrupted)
				break;
			boot_sum += p.boot_seconds;
			next[round[j]]++;
		}
		res->rounds++;
		if (res->interrupted || res->budget_spent)
			break;
	}
	ret = 0;
out:
	free(round);
	free(next);
	free(more);
	return ret;
}

static int start_campaign(const struct vtb_run_opts *o, struct vtb_store *st,
			  struct vtb_hosttopo *host, struct vtb_matrix *m, json_t *state,
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

int vtb_run(const struct vtb_run_opts *o, struct vtb_run_result *res)
{
	struct vtb_hosttopo *host = NULL;
	struct vtb_matrix *m = NULL;
	struct vtb_store *st = NULL;
	struct vtb_bootref *order = NULL;
	struct boot_ctx b = { .o = o };
	struct sigstate ss;
	size_t n_order = 0, i, todo = 0, done = 0;
	bool *skip = NULL, db_existed, campaign_open = false;
	uint64_t t0 = vtb_now_ns();
	int ret = -1;

	memset(res, 0, sizeof(*res));
	b.t0 = t0;
	signals_take(&ss, &b.waitmask);
	res->fail = VTB_RUN_INFRA;
	if (vtb_hosttopo_load(NULL, &host))
		goto out;
	res->fail = VTB_RUN_INPUT;
	b.model = &host->model;
	{
		/* membw's size = auto follows it: say where the figure comes from */
		char *msg = vtb_asprintf("host llc: %s", host->llc_source);

		if (msg)
			note(msg, (void *)o);
		free(msg);
	}
	if (vtb_matrix_load(o->matrix, &host->ctx, &m))
		goto out;
	if (o->reps > 0 || o->reps_auto)
		vtb_matrix_set_reps(m, o->reps_auto ? 0 : o->reps);
	if (m->reps_auto && m->order == VTB_ORDER_SEQUENTIAL) {
		vtb_error("reps = auto boots in interleaved rounds: '%s' has order = sequential",
			  o->matrix);
		goto out;
	}
	{
		char *ht = NULL, *msg;

		if (vtb_matrix_host_topology(o->matrix, &ht) == 0 && ht) {
			msg = vtb_asprintf(
				"host_topology = '%s' is for vtbench plan: run measures this machine",
				ht);
			if (msg)
				warn(o, msg);
			free(msg);
		}
		free(ht);
	}
	if (apply_only(m, o->only, res) || vtb_matrix_boot_order(m, &order, &n_order))
		goto out;
	res->db = strdup(o->db ? o->db : m->db);
	if (!res->db) {
		vtb_error("out of memory");
		goto out;
	}
	/* an existing file that is no vtbench database is the user's input */
	db_existed = access(res->db, F_OK) == 0;
	if (!db_existed) {
		char *dir = strdup(res->db);
		bool missing = dir && access(dirname(dir), F_OK) < 0;

		if (missing)
			vtb_error("cannot create database '%s': directory '%s' does not exist",
				  res->db, dir);
		free(dir);
		if (missing)
			goto out;
	}
	res->fail = db_existed ? VTB_RUN_INPUT : VTB_RUN_INFRA;
	if (vtb_store_open(res->db, &st))
		goto out;
	res->fail = VTB_RUN_INFRA;
	b.st = st;
	b.timeout_ns = m->timeout_ns;
	b.placement_interval_ns = m->placement_interval_ns;
	b.state = vtb_hoststate_snapshot("/");
	if (!b.state) {
		vtb_error("cannot take the host state snapshot");
		goto out;
	}
	if (open_guests(o, m, &b, res))
		goto out;
	if (start_campaign(o, st, host, m, b.state, &b.campaign, res))
		goto out;
	campaign_open = true;
	skip = calloc(n_order ? n_order : 1, sizeof(*skip));
	if (!skip) {
		vtb_error("out of memory");
		goto out;
	}
	if (!m->reps_auto && plan_todo(st, b.campaign, m, order, n_order, skip, &todo, res))
		goto out;
	report_not_runnable(o, st, b.campaign, m);

	if (m->reps_auto) {
		if (run_auto(&b, o, m, res, &done) < 0)
			goto out;
	} else {
		for (i = 0; i < n_order && !res->interrupted; i++) {
			struct vtb_progress p = { .index = done + 1,
						  .total = todo,
						  .undecided = -1 };
			int r;

			if (skip[i])
				continue;
			r = run_one(&b, &m->configs[order[i].config], order[i].rep, &p, res, &done);
			if (r < 0)
				goto out;
		}
	}
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
	signals_give_back(&ss);
	json_decref(b.state);
	free(skip);
	free(order);
	vtb_store_close(st);
	vtb_vmhost_free(b.vh);
	vtb_matrix_free(m);
	vtb_hosttopo_free(host);
	return ret;
}

void vtb_run_result_release(struct vtb_run_result *res)
{
	if (!res)
		return;
	free(res->db);
	res->db = NULL;
}
