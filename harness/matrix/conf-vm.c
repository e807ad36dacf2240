/* SPDX-License-Identifier: MIT */
/*
 * matrix.conf's [vm]: its settings and axes checked, each point a typed VM
 * configuration (c->req, vmreq.h) that the plan layer plans; the matrix
 * never calls the planner.
 */
#include <stdlib.h>
#include <string.h>

#include "confint.h"

/* "1G" for 1073741824, "1536M", "4097": for labels. */
static char *size_label(const char *bytes)
{
	unsigned long long b = strtoull(bytes, NULL, 10);
	static const char units[] = "TGMK";
	int i;

	for (i = 0; i < 4; i++) {
		unsigned long long u = 1ULL << (10 * (4 - i));

		if (b && b % u == 0)
			return vtb_asprintf("%llu%c", b / u, units[i]);
	}
	return vtb_asprintf("%llu", b);
}

/* Adds the settings of a named [sched]/[topology] section as "PFX.key". */
static int add_section_params(struct vtb_params *pp, size_t *alloc, const struct sect *s,
			      const char *pfx)
{
	size_t i;
	char *k;
	int r;

	for (i = 0; s && i < s->n; i++) {
		k = vtb_asprintf("%s.%s", pfx, s->ents[i].key);
		if (!k)
			return vtb_error("out of memory");
		r = mx_params_add(pp, alloc, k, s->ents[i].val.buf);
		free(k);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int topology_cpus(struct parser *p, const struct sect *t, long long *out)
{
	static const char *const keys[] = { "sockets", "dies", "cores", "threads" };
	long long prod = 1;
	char *v = NULL;
	size_t i;
	int line;

	for (i = 0; i < VTB_ARRAY_SIZE(keys); i++) {
		if (mx_single(p, t, mx_topology_opts, keys[i], &v, &line) < 0)
			return -1;
		prod *= strtoll(v, NULL, 10);
		free(v);
	}
	*out = prod;
	return 0;
}

/* Every value of an axis must be one of @cands (NULL-terminated here);
 * else "unknown WHAT 'x'EXTRA (did you mean 'y'?)". */
static int check_known(const struct parser *p, int line, const struct strv *vals,
		       struct strv *cands, const char *what, const char *extra)
{
	char *hint;
	size_t i;
	int ret;

	if (mx_grow(&cands->v, &cands->alloc, cands->n + 1, sizeof(*cands->v)) < 0)
		return -1;
	cands->v[cands->n] = NULL;
	for (i = 0; i < vals->n; i++) {
		if (mx_strv_has(cands, vals->v[i]))
			continue;
		hint = mx_did_you_mean(" (did you mean '%s'?)",
				       vtb_suggest((const char *const *)cands->v, vals->v[i]));
		ret = mx_perr(p, line, "unknown %s '%s'%s%s", what, vals->v[i], extra,
			      hint ? hint : "");
		free(hint);
		return ret;
	}
	return 0;
}

/* ": not a preset (flat, cores, mirror, lie) nor a [topology NAME]" */
static char *not_a_preset(void)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t i;

	if (vtb_strbuf_addstr(&sb, ": not a preset (") < 0)
		goto fail;
	for (i = 0; vtb_presets[i]; i++)
		if (vtb_strbuf_addf(&sb, "%s%s", i ? ", " : "", vtb_presets[i]->name) < 0)
			goto fail;
	if (vtb_strbuf_addstr(&sb, ") nor a [topology NAME]") < 0)
		goto fail;
	return vtb_strbuf_detach(&sb);
fail:
	vtb_strbuf_release(&sb);
	return NULL;
}

/* A cpuset partition must name CPUs the guest has and leave the agent
 * (in the root cgroup) at least one. */
static int partition_why_not(struct vtb_config *c, const char *sched, long long vcpus)
{
	const char *part = vtb_params_get(&c->params, "sched.cpuset.partition");
	struct vtb_cpuset set = { NULL, 0 };
	bool why;

	if (!part || vtb_cpuset_parse(part, &set) < 0 || !set.n)
		return 0; /* checked when the section was read */
	why = set.cpus[set.n - 1] >= vcpus || (long long)set.n == vcpus;
	if (set.cpus[set.n - 1] >= vcpus)
		c->why_not = vtb_asprintf(
			"[sched %s]: cpuset.partition = %s names CPUs a guest of %lld vCPUs does not have",
			sched, part, vcpus);
	else if ((long long)set.n == vcpus)
		c->why_not = vtb_asprintf(
			"[sched %s]: cpuset.partition = %s takes every vCPU: the agent's root cgroup must keep one",
			sched, part);
	vtb_cpuset_release(&set);
	return why && !c->why_not ? vtb_error("out of memory") : 0;
}

/* A topology.KEY of @c as a number, @dflt when absent (normalised and
 * bounded when the section was read). */
static int topology_int(const struct vtb_config *c, const char *key, int dflt)
{
	const char *v = vtb_params_get(&c->params, key);

	return v ? (int)strtol(v, NULL, 10) : dflt;
}

/* @c's settings as typed values (c->params sorted, every value checked
 * already): what the planner and the boot take. */
static void vm_req(struct vtb_config *c, long long vcpus, const char *topo, const char *pin,
		   const char *memory, const char *numa, const char *vms, bool over, bool huge,
		   bool locked)
{
	struct vtb_plan_req *r = &c->req;

	r->vcpus = (int)vcpus;
	r->vms = (int)strtol(vms, NULL, 10);
	r->overcommit = over;
	if (vtb_pinning_parse(pin, &r->pinning) < 0)
		vtb_error_clear(); /* not reached: a checked enum */
	if (vtb_vtopo_preset(topo, &r->topology) < 0) {
		r->topology = VTB_VTOPO_EXPLICIT;
		r->sockets = topology_int(c, "topology.sockets", 1);
		r->dies = topology_int(c, "topology.dies", 1);
		r->cores = topology_int(c, "topology.cores", 1);
		r->threads = topology_int(c, "topology.threads", 1);
		r->clusters = topology_int(c, "topology.clusters", 1);
		r->cells = topology_int(c, "topology.cells", 0);
	}
	r->memory_bytes = strtoull(memory, NULL, 10);
	r->numa = !strcmp(numa, "auto");
	r->hugepages = huge;
	r->locked = locked;
	r->housekeeping = vtb_params_get(&c->params, "housekeeping");
	r->machine = vtb_params_get(&c->params, "machine");
}

/* kernel last: without kernel = its one value is "" and the
 * configurations, labels and keys are those from before it was an axis */
enum { A_VCPUS, A_TOPOLOGY, A_PINNING, A_MEMORY, A_SCHED, A_KERNEL, N_VM_AXES };
static const char *const vm_axis_keys[N_VM_AXES] = { "vcpus",  "topology", "pinning",
						     "memory", "sched",	   "kernel" };

/* [vm]'s single-valued settings (normalised text) and its axes. */
struct vm_sect {
	const struct sect *s;
	char *enabled, *numa, *vms, *over, *hk, *huge, *locked, *machine;
	struct axis ax[N_VM_AXES];
	int lines[N_VM_AXES];
};

static void vm_sect_release(struct vm_sect *v)
{
	free(v->enabled);
	free(v->numa);
	free(v->vms);
	free(v->over);
	free(v->hk);
	free(v->huge);
	free(v->locked);
	free(v->machine);
	mx_axes_release(v->ax, N_VM_AXES);
}

/* The settings; housekeeping from [global] when [vm] has none, and
 * "auto" (the default) left out so that it stays out of the key. */
static int vm_settings(struct parser *p, struct vm_sect *v)
{
	const struct sect *s = v->s;
	int line, hk_line = 1;

	if (mx_single(p, s, mx_vm_opts, "enabled", &v->enabled, &line) < 0 ||
	    mx_single(p, s, mx_vm_opts, "numa", &v->numa, &line) < 0 ||
	    mx_single(p, s, mx_vm_opts, "vms", &v->vms, &line) < 0 ||
	    mx_single(p, s, mx_vm_opts, "overcommit", &v->over, &line) < 0 ||
	    mx_single(p, s, mx_vm_opts, "housekeeping", &v->hk, &hk_line) < 0 ||
	    mx_single(p, s, mx_vm_opts, "hugepages", &v->huge, &line) < 0 ||
	    mx_single(p, s, mx_vm_opts, "locked", &v->locked, &line) < 0 ||
	    mx_single(p, s, mx_vm_opts, "machine", &v->machine, &line) < 0)
		return -1;
	if (!v->hk && mx_single(p, mx_find_sect(p, S_GLOBAL, NULL), mx_global_opts, "housekeeping",
				&v->hk, &hk_line) < 0)
		return -1;
	if (v->hk && !strcmp(v->hk, "auto")) {
		free(v->hk);
		v->hk = NULL;
	}
	return mx_check_housekeeping(p, v->hk, hk_line);
}

/* The axes' values; sched without a value: every [sched] section, else
 * the built-in default. */
static int vm_axes(struct parser *p, struct vm_sect *v)
{
	struct varctx vc = { "[vm]", -1, p->host->host_cpus };
	struct axis *ax = v->ax;
	size_t i, j;

	for (i = 0; i < N_VM_AXES; i++) {
		const char *text = mx_val_of(v->s, mx_vm_opts, vm_axis_keys[i], &v->lines[i]);

		ax[i].key = vm_axis_keys[i];
		if (!text && i == A_SCHED) {
			for (j = 0; j < p->n_sects; j++)
				if (p->sects[j].kind == S_SCHED &&
				    mx_strv_push(&ax[i].vals, p->sects[j].name) < 0)
					return -1;
			if (!ax[i].vals.n && mx_strv_push(&ax[i].vals, "default") < 0)
				return -1;
			continue;
		}
		if (!text && i == A_KERNEL) {
			if (mx_strv_push(&ax[i].vals, "") < 0)
				return -1;
			continue;
		}
		if (mx_values_of(p, v->lines[i], vtb_opt_find(mx_vm_opts, vm_axis_keys[i]),
				 vm_axis_keys[i], text, true, &vc, &ax[i].vals) < 0)
			return -1;
	}
	return 0;
}

/* topology: a preset (topologies/presets.h) or a [topology NAME] that
 * does not hide one. */
static int check_vm_topologies(struct parser *p, const struct vm_sect *v)
{
	const struct strv *vals = &v->ax[A_TOPOLOGY].vals;
	int line = v->lines[A_TOPOLOGY];
	struct strv cands = { 0 };
	char *extra = NULL;
	size_t i;
	int ret = -1;

	for (i = 0; vtb_presets[i]; i++)
		if (mx_strv_push(&cands, vtb_presets[i]->name) < 0)
			goto out;
	for (i = 0; i < p->n_sects; i++) {
		if (p->sects[i].kind != S_TOPOLOGY)
			continue;
		if (mx_strv_has(&cands, p->sects[i].name)) {
			ret = mx_perr(
				p, p->sects[i].line,
				"[topology %s] would hide the preset '%s': choose another name",
				p->sects[i].name, p->sects[i].name);
			goto out;
		}
		if (mx_strv_push(&cands, p->sects[i].name) < 0)
			goto out;
	}
	if (mx_strv_has(vals, "clusters") && !mx_strv_has(&cands, "clusters")) {
		ret = mx_perr(
			p, line,
			"topology 'clusters' cannot be expressed with Debian 12's libvirt 9.0 / QEMU 7.2 (no <topology clusters=> before libvirt 10.1)");
		goto out;
	}
	extra = not_a_preset();
	if (!extra) {
		ret = vtb_error("out of memory");
		goto out;
	}
	ret = check_known(p, line, vals, &cands, "topology", extra);
out:
	mx_strv_release(&cands);
	free(extra);
	return ret;
}

/* sched: a [sched NAME] or default. */
static int check_vm_scheds(struct parser *p, const struct vm_sect *v)
{
	struct strv cands = { 0 };
	size_t i;
	int ret = -1;

	if (mx_strv_push(&cands, "default") < 0)
		goto out;
	for (i = 0; i < p->n_sects; i++)
		if (p->sects[i].kind == S_SCHED && !mx_strv_has(&cands, p->sects[i].name) &&
		    mx_strv_push(&cands, p->sects[i].name) < 0)
			goto out;
	ret = check_known(p, v->lines[A_SCHED], &v->ax[A_SCHED].vals, &cands, "sched profile", "");
out:
	mx_strv_release(&cands);
	return ret;
}

/* Without a host model, more vCPUs than host CPUs need overcommit = yes
 * (with one, the planner says it, housekeeping included). */
static int check_vm_cpus(struct parser *p, const struct vm_sect *v)
{
	const struct strv *vcpus = &v->ax[A_VCPUS].vals;
	size_t i;

	for (i = 0; !p->host->model && !mx_is_yes(v->over) && i < vcpus->n; i++) {
		long long n = strtoll(vcpus->v[i], NULL, 10) * strtoll(v->vms, NULL, 10);

		if (n > p->host->host_cpus)
			return mx_perr(
				p, v->lines[A_VCPUS],
				"vcpus = %s (x%s VMs) but the host has only %d CPUs (set overcommit = yes)",
				vcpus->v[i], v->vms, p->host->host_cpus);
	}
	return 0;
}

/* The label and params (in the key) of the VM configuration at @idx. */
static int vm_params(struct parser *p, const struct vm_sect *v, const size_t *idx,
		     struct vtb_config *c)
{
	const char *topo = v->ax[A_TOPOLOGY].vals.v[idx[A_TOPOLOGY]];
	const char *sched = v->ax[A_SCHED].vals.v[idx[A_SCHED]];
	const char *kernel = v->ax[A_KERNEL].vals.v[idx[A_KERNEL]];
	char *mem = size_label(v->ax[A_MEMORY].vals.v[idx[A_MEMORY]]);
	size_t i, alloc = 0;

	if (!mem)
		return vtb_error("out of memory");
	c->label = vtb_asprintf("vm vcpus=%s topology=%s pinning=%s memory=%s sched=%s%s%s%s%s%s",
				v->ax[A_VCPUS].vals.v[idx[A_VCPUS]], topo,
				v->ax[A_PINNING].vals.v[idx[A_PINNING]], mem, sched,
				*kernel ? " kernel=" : "", kernel,
				strcmp(v->vms, "1") ? " vms=" : "",
				strcmp(v->vms, "1") ? v->vms : "",
				mx_is_yes(v->over) ? " overcommit" : "");
	free(mem);
	if (!c->label)
		return vtb_error("out of memory");
	for (i = 0; i < A_KERNEL; i++)
		if (mx_params_add(&c->params, &alloc, vm_axis_keys[i], v->ax[i].vals.v[idx[i]]) < 0)
			return -1;
	if (*kernel && mx_kernel_params(p, kernel, v->lines[A_KERNEL], c, &alloc) < 0)
		return -1;
	/* settings added after the first release enter the key only when
	 * not at their default, so existing keys stay */
	if ((v->hk && mx_params_add(&c->params, &alloc, "housekeeping", v->hk) < 0) ||
	    (mx_is_yes(v->huge) && mx_params_add(&c->params, &alloc, "hugepages", v->huge) < 0) ||
	    (mx_is_yes(v->locked) && mx_params_add(&c->params, &alloc, "locked", v->locked) < 0) ||
	    (v->machine && strcmp(v->machine, "pc") &&
	     mx_params_add(&c->params, &alloc, "machine", v->machine) < 0) ||
	    mx_params_add(&c->params, &alloc, "numa", v->numa) < 0 ||
	    mx_params_add(&c->params, &alloc, "vms", v->vms) < 0 ||
	    mx_params_add(&c->params, &alloc, "overcommit", v->over) < 0 ||
	    add_section_params(&c->params, &alloc, mx_find_sect(p, S_TOPOLOGY, topo), "topology") <
		    0 ||
	    add_section_params(&c->params, &alloc, mx_find_sect(p, S_SCHED, sched), "sched") < 0)
		return -1;
	mx_params_sort(&c->params); /* vtb_params_get() searches a sorted array */
	return 0;
}

/*
 * The VM configuration at @idx, typed (c->req) and not planned: why_not
 * when its [topology] or [sched] cannot serve its vcpus, else left to
 * the plan layer (cfgplan.h).
 */
static int vm_config(struct parser *p, const struct vm_sect *v, const size_t *idx,
		     struct vtb_config *c)
{
	const char *topo = v->ax[A_TOPOLOGY].vals.v[idx[A_TOPOLOGY]];
	const struct sect *ts = mx_find_sect(p, S_TOPOLOGY, topo);
	long long nv = strtoll(v->ax[A_VCPUS].vals.v[idx[A_VCPUS]], NULL, 10), tcpus;

	c->kind = VTB_CONFIG_VM;
	c->line = v->s->line;
	c->runnable = false; /* until the plan layer planned it */
	if (vm_params(p, v, idx, c) < 0)
		return -1;
	if (ts) {
		if (topology_cpus(p, ts, &tcpus) < 0)
			return -1;
		if (tcpus != nv &&
		    !(c->why_not = vtb_asprintf("topology '%s' describes %lld CPUs, not %lld", topo,
						tcpus, nv)))
			return vtb_error("out of memory");
	}
	vm_req(c, nv, topo, v->ax[A_PINNING].vals.v[idx[A_PINNING]],
	       v->ax[A_MEMORY].vals.v[idx[A_MEMORY]], v->numa, v->vms, mx_is_yes(v->over),
	       mx_is_yes(v->huge), mx_is_yes(v->locked));
	if (!c->why_not && partition_why_not(c, v->ax[A_SCHED].vals.v[idx[A_SCHED]], nv) < 0)
		return -1;
	return 0;
}

int mx_expand_vm(struct parser *p)
{
	struct vm_sect v = { .s = mx_find_sect(p, S_VM, NULL) };
	struct vtb_config c;
	size_t idx[N_VM_AXES] = { 0 }, total;
	int ret = -1;

	memset(&c, 0, sizeof(c));
	if (!v.s)
		return 0;
	if (vm_settings(p, &v) < 0 || vm_axes(p, &v) < 0 || check_vm_topologies(p, &v) < 0 ||
	    check_vm_scheds(p, &v) < 0 ||
	    (mx_sect_ent(v.s, "kernel") &&
	     mx_check_kernels(p, &v.ax[A_KERNEL].vals, v.lines[A_KERNEL]) < 0))
		goto out;
	if (!mx_is_yes(v.enabled)) {
		ret = 0;
		goto out;
	}
	if (check_vm_cpus(p, &v) < 0 ||
	    mx_product(p, v.s->line, v.ax, N_VM_AXES, CONFIG_LIMIT, &total) < 0)
		goto out;
	do {
		memset(&c, 0, sizeof(c));
		if (vm_config(p, &v, idx, &c) < 0 ||
		    mx_add_config(p, &c, strtoll(v.ax[A_VCPUS].vals.v[idx[A_VCPUS]], NULL, 10)) < 0)
			goto out;
	} while (mx_next_combo(v.ax, N_VM_AXES, idx));
	ret = 0;
out:
	mx_config_release(&c);
	vm_sect_release(&v);
	return ret;
}
