/* SPDX-License-Identifier: MIT */
/*
 * The placement planner over many described hosts: synthetic strings
 * (1-8 packages, with and without SMT, several LLCs per node) and the
 * hwloc XML fixtures of tests/fixtures/topo (siblings 64 apart, offline
 * CPUs, sub-NUMA clustering, EPYC CCXs).  Properties: mirror+strict
 * claims all true; lie's SMT and LLC claims false; no pCPU used twice
 * across a configuration's VMs; pins inside the VM's pCPUs and outside
 * housekeeping; memory sums match; the domain spec builds; overcommit
 * shares pCPUs only when the pool runs out, and then evenly; the SMT
 * siblings of housekeeping CPUs get no vCPU; cell memory in proportion to
 * the cells' vCPUs.  Issue 14's defects: guest memory against host
 * nodes, whole nodes, overcommitted mirror and lie that stacked (free
 * pCPUs before shared ones, off the shape if need be), hosts without
 * caches.  Errors: too many vCPUs (with how many are available),
 * impossible explicit topologies, clusters, unknown presets.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../../harness/matrix/conf.h"
#include "../../harness/boot/domspec.h"
#include "../../harness/boot/domxml.h"
#include "../../harness/host/hosttopo.h"
#include "../../harness/plan/plan.h"

static const char *const hosts[] = {
	"pack:1 core:2 pu:1",
	"pack:1 l3:1 core:4 pu:2",
	"pack:2 l3:2(size=32MiB) core:4 pu:2",
	"pack:2 numa:4 l3:16 core:4 pu:2",
	"pack:4 numa:1 l3:2 core:6 pu:1",
	"pack:8 numa:1 l3:1 core:16 pu:2",
	"pack:2 numa:2 l3:4 core:8 pu:1",
	"pack:2 l3:1 numa:2 core:4 pu:2",  /* sub-NUMA clustering */
	"pack:8 numa:2 l3:4 core:16 pu:2", /* 2048 PUs */
	"xml:epyc-rome-nps4.xml",
	"xml:xeon-2s-snc2.xml",
	"pack:2 numa:2 core:8 pu:2", /* no caches */
	"xml:nocache-2s.xml",	     /* no caches, siblings 16 apart */
};

static struct vtb_hosttopo *load(const char *spec)
{
	struct vtb_hosttopo *h = NULL;
	char *path = NULL;

	if (!strncmp(spec, "xml:", 4)) {
		const char *src = getenv("SRCDIR");

		path = vtb_asprintf("%s/tests/fixtures/topo/%s", src ? src : ".", spec + 4);
		spec = path;
	}
	cr_assert_eq(vtb_hosttopo_load(spec, &h), 0, "load '%s': %s", spec, vtb_errmsg());
	free(path);
	return h;
}

static struct vtb_plan_req req(int vcpus, enum vtb_vtopo topo, enum vtb_pinning pin)
{
	return (struct vtb_plan_req){ .vcpus = vcpus,
				      .vms = 1,
				      .pinning = pin,
				      .topology = topo,
				      .numa = true,
				      .memory_bytes = 1ull << 30 };
}

static size_t count(const struct vtb_plan *p, enum vtb_claim_kind k, enum vtb_claim_state s)
{
	size_t i, n = 0;

	for (i = 0; i < p->n_claims; i++)
		n += p->claims[i].kind == k && p->claims[i].state == s;
	return n;
}

static bool has_note(char *const *notes, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(notes[i], text))
			return true;
	return false;
}

/* Invariants every plan keeps. */
static void check_invariants(const struct vtb_topo *t, const struct vtb_plan *p, const char *what)
{
	int *owner = calloc((size_t)t->max_os + 1, sizeof(int));
	int v, i;
	size_t j;

	cr_assert(owner);
	for (v = 0; v < p->req.vms; v++) {
		const struct vtb_plan_vm *m = &p->vm[v];
		uint64_t sum = 0;
		struct vtb_domspec d = { .name = "t",
					 .cpu_model = "kvm64",
					 .kernel = "/k",
					 .initrd = "/i",
					 .cmdline = "c" };
		struct vtb_plan_domstore st;
		char *xml;

		for (j = 0; j < m->cpus.n; j++) {
			int os = m->cpus.cpus[j];
			const struct vtb_topo_pu *pu = vtb_topo_pu_by_os(t, os);

			cr_assert(pu && pu->online && pu->allowed, "%s: pCPU %d not usable", what,
				  os);
			cr_assert_not(vtb_cpuset_has(&p->housekeeping, os),
				      "%s: pCPU %d is housekeeping", what, os);
			if (!p->req.overcommit)
				cr_assert_eq(owner[os], 0, "%s: pCPU %d used by VMs %d and %d",
					     what, os, owner[os] - 1, v);
			owner[os] = v + 1;
		}
		cr_assert_eq(m->cpus.n, (size_t)p->req.vcpus, "%s: %zu pCPUs for %d vCPUs", what,
			     m->cpus.n, p->req.vcpus);
		for (i = 0; m->pins && i < p->req.vcpus; i++) {
			cr_assert(m->pins[i].n >= 1);
			cr_assert(vtb_cpuset_has(&m->pins[i], m->pcpu[i]));
			for (j = 0; j < m->pins[i].n; j++)
				cr_assert(vtb_cpuset_has(&m->cpus, m->pins[i].cpus[j]),
					  "%s: vCPU %d pinned outside its VM's pCPUs", what, i);
		}
		if (p->req.pinning == VTB_PIN_STRICT)
			for (i = 0; i < p->req.vcpus; i++)
				cr_assert_eq(m->pins[i].n, 1);
		for (j = 0; j < m->n_cells; j++)
			sum += m->cells[j].memory_bytes;
		if (m->n_cells)
			cr_assert_eq(sum, p->req.memory_bytes, "%s: cells hold %llu bytes", what,
				     (unsigned long long)sum);
		/* memory in proportion to each cell's vCPUs, to the KiB */
		for (j = 0; j < m->n_cells; j++) {
			double want = (double)p->req.memory_bytes * (double)m->cells[j].vcpus.n /
				      p->req.vcpus;

			cr_assert(m->cells[j].memory_bytes < want + 1024 &&
					  m->cells[j].memory_bytes > want - 1024,
				  "%s: cell %zu of %zu vCPUs has %llu bytes", what, j,
				  m->cells[j].vcpus.n,
				  (unsigned long long)m->cells[j].memory_bytes);
		}
		/* housekeeping's SMT siblings are nobody's pCPUs */
		for (j = 0; j < p->housekeeping.n; j++) {
			const struct vtb_cpuset *core = vtb_topo_pus_of(t, VTB_TOPO_CORE,
									p->housekeeping.cpus[j]);

			for (size_t k = 0; core && k < core->n; k++)
				cr_assert_not(vtb_cpuset_has(&m->cpus, core->cpus[k]),
					      "%s: pCPU %d shares a core with housekeeping", what,
					      core->cpus[k]);
		}
		cr_assert_eq(p->sockets * p->dies * p->cores * p->threads, p->req.vcpus,
			     "%s: shape %dx%dx%dx%d", what, p->sockets, p->dies, p->cores,
			     p->threads);
		cr_assert_eq(vtb_plan_domspec(p, v, &d, &st), 0);
		xml = vtb_domxml(&d);
		cr_assert_not_null(xml, "%s: %s", what, vtb_errmsg());
		free(xml);
		vtb_plan_domstore_release(&st);
	}
	free(owner);
}

/* The claim rule: strict backs every claim, core SMT pairs;
 * every other claim is unbacked. */
static void check_claim_rule(const struct vtb_plan *p, const char *what)
{
	for (size_t c = 0; c < p->n_claims; c++) {
		enum vtb_pinning pin = p->req.pinning;
		bool backed = pin == VTB_PIN_STRICT ||
			      (pin == VTB_PIN_CORE && p->claims[c].kind == VTB_CLAIM_SMT);

		cr_assert_eq(p->claims[c].state == VTB_CLAIM_UNBACKED, !backed,
			     "%s: %s claim %zu is %s under pinning %s", what,
			     vtb_claim_kind_name(p->claims[c].kind), c,
			     vtb_claim_state_name(p->claims[c].state), vtb_pinning_name(pin));
	}
}

/* mirror + strict: every claim true (without caches too: the LLC claims
 * are then the dies' or packages'). */
static void check_all_true(const struct vtb_plan *p, const char *what)
{
	for (size_t c = 0; c < p->n_claims; c++)
		cr_assert_eq(p->claims[c].state, VTB_CLAIM_TRUE, "%s: mirror claim %zu (%s) is %s",
			     what, c, vtb_claim_kind_name(p->claims[c].kind),
			     vtb_claim_state_name(p->claims[c].state));
}

Test(plan, properties_over_many_hosts)
{
	static const int vcpus[] = { 1, 2, 4, 6, 8, 16, 32 };
	size_t hi, vi;
	int topo, pin, vms;

	for (hi = 0; hi < VTB_ARRAY_SIZE(hosts); hi++) {
		struct vtb_hosttopo *h = load(hosts[hi]);
		const struct vtb_topo *t = &h->model;

		for (vi = 0; vi < VTB_ARRAY_SIZE(vcpus); vi++)
			for (topo = VTB_VTOPO_FLAT; topo <= VTB_VTOPO_LIE; topo++)
				for (pin = VTB_PIN_NONE; pin <= VTB_PIN_NODE; pin++)
					for (vms = 1; vms <= 2; vms++) {
						struct vtb_plan_req r = req(vcpus[vi], topo, pin);
						struct vtb_plan *p = NULL;
						char what[160];

						r.vms = vms;
						snprintf(what, sizeof(what),
							 "%s vcpus=%d topology=%d pinning=%s vms=%d",
							 hosts[hi], vcpus[vi], topo,
							 vtb_pinning_name(pin), vms);
						if (vtb_plan_make(t, &r, &p) < 0) {
							const char *e = vtb_errmsg();

							cr_assert(strstr(e, "too many vCPUs") ||
									  strstr(e,
										 "regular shape") ||
									  strstr(e, "no room"),
								  "%s: %s", what, e);
							cr_assert((size_t)vcpus[vi] * vms > 2 ||
									  strstr(e, "regular") ||
									  strstr(e, "no room"),
								  "%s: %s", what, e);
							continue;
						}
						check_invariants(t, p, what);
						if (topo == VTB_VTOPO_MIRROR &&
						    pin == VTB_PIN_STRICT)
							check_all_true(p, what);
						if (topo == VTB_VTOPO_LIE &&
						    pin == VTB_PIN_STRICT) {
							/* one VM always has a second core to
							 * lie with; side by side a VM may not,
							 * and its note then says so */
							for (size_t c = 0; c < p->n_claims; c++)
								cr_assert(
									p->claims[c].kind !=
											VTB_CLAIM_SMT ||
										p->claims[c].state !=
											VTB_CLAIM_TRUE ||
										(vms > 1 &&
										 has_note(p->vm[p->claims[c].vm]
												  .notes,
											  p->vm[p->claims[c].vm]
												  .n_notes,
											  "still true")),
									"%s: a true SMT claim",
									what);
							if (t->n_groups[VTB_TOPO_LLC] > 1 &&
							    h->n_compact > 4)
								cr_assert_eq(count(p, VTB_CLAIM_LLC,
										   VTB_CLAIM_TRUE),
									     0,
									     "%s: a true LLC claim",
									     what);
						}
						check_claim_rule(p, what);
						vtb_plan_free(p);
					}
		vtb_hosttopo_free(h);
	}
}

Test(plan, mirror_on_interleaved_numbering_pairs_real_siblings)
{
	struct vtb_hosttopo *h = load("xml:epyc-rome-nps4.xml");
	struct vtb_plan_req r = req(8, VTB_VTOPO_MIRROR, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;

	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->threads, 2);
	/* siblings are 64 apart on this host */
	cr_assert_eq(p->vm[0].pcpu[1] - p->vm[0].pcpu[0], 64, "%d %d", p->vm[0].pcpu[0],
		     p->vm[0].pcpu[1]);
	cr_assert_eq(count(p, VTB_CLAIM_SMT, VTB_CLAIM_TRUE), 4);
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

Test(plan, housekeeping_auto_keeps_one_core_and_says_when_it_cannot)
{
	struct vtb_hosttopo *h = load("pack:1 l3:1 core:4 pu:2");
	struct vtb_plan_req r = req(6, VTB_VTOPO_FLAT, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;

	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->housekeeping.n, 2);
	cr_assert_not(has_note(p->notes, p->n_notes, "no spare CPU"));
	vtb_plan_free(p);
	r.vcpus = 8;
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->housekeeping.n, 0);
	cr_assert(p->n_notes >= 1 && strstr(p->notes[0], "no spare CPU"));
	vtb_plan_free(p);
	r.vcpus = 2;
	r.housekeeping = "none";
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->housekeeping.n, 0);
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

Test(plan, errors_are_clear)
{
	struct vtb_hosttopo *h = load("pack:1 l3:1 core:4 pu:2");
	struct vtb_plan_req r = req(9, VTB_VTOPO_FLAT, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;

	/* too small a host is a fact about the host, told apart from errors */
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), VTB_PLAN_NO_ROOM);
	cr_assert(strstr(vtb_errmsg(), "too many vCPUs") && strstr(vtb_errmsg(), "8 available"),
		  "%s", vtb_errmsg());
	r = req(4, VTB_VTOPO_EXPLICIT, VTB_PIN_STRICT);
	r.sockets = 1, r.dies = 1, r.cores = 3, r.threads = 1;
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), -1);
	cr_assert(strstr(vtb_errmsg(), "impossible topology"), "%s", vtb_errmsg());
	r.cores = 4;
	r.clusters = 2;
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), -1);
	cr_assert(strstr(vtb_errmsg(), "libvirt 9.0 / QEMU 7.2"), "%s", vtb_errmsg());
	r.clusters = 1;
	r.cells = 3;
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), -1);
	cr_assert(strstr(vtb_errmsg(), "cells"), "%s", vtb_errmsg());
	vtb_hosttopo_free(h);
}

Test(plan, vms_get_disjoint_pcpus_unless_overcommit)
{
	struct vtb_hosttopo *h = load("pack:2 l3:2 core:4 pu:2");
	struct vtb_plan_req r = req(4, VTB_VTOPO_MIRROR, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;

	r.vms = 3;
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	check_invariants(&h->model, p, "3 VMs");
	vtb_plan_free(p);
	r.vms = 9; /* 36 > 32: no room for housekeeping either */
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), VTB_PLAN_NO_ROOM);
	cr_assert(strstr(vtb_errmsg(), "32 available"), "%s", vtb_errmsg());
	r.overcommit = true;
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	check_invariants(&h->model, p, "9 VMs overcommitted");
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

/* vCPUs of @p on each pCPU (OS numbers, max_os + 1 entries). */
static int *loads(const struct vtb_topo *t, const struct vtb_plan *p)
{
	int *load = calloc((size_t)t->max_os + 1, sizeof(int));

	cr_assert(load);
	for (int v = 0; v < p->req.vms; v++)
		for (int i = 0; i < p->req.vcpus; i++)
			load[p->vm[v].pcpu[i]]++;
	return load;
}

/* The pool: allowed online PUs outside housekeeping. */
static size_t pool_size(const struct vtb_topo *t, const struct vtb_plan *p)
{
	size_t i, n = 0;

	for (i = 0; i < t->n_online; i++)
		n += t->pus[i].online && t->pus[i].allowed &&
		     !vtb_cpuset_has(&p->housekeeping, t->pus[i].os);
	return n;
}

/*
 * The overcommit rule on plan @p: while vms x vcpus fits the pool (allowed
 * online PUs outside housekeeping and its cores) no pCPU holds two vCPUs;
 * beyond it every pool pCPU is used and the loads differ by at most one.
 * true when the pool is full.
 */
static bool check_overcommit_rule(const struct vtb_topo *t, const struct vtb_plan *p,
				  const char *what)
{
	int *load = loads(t, p), lo = 1 << 30, hi = 0;
	size_t k, j, used = 0, n_pool = 0;
	bool full;

	for (k = 0; k < t->n_online; k++) {
		int os = t->pus[k].os;
		const struct vtb_cpuset *core = vtb_topo_pus_of(t, VTB_TOPO_CORE, os);
		bool hk = vtb_cpuset_has(&p->housekeeping, os);

		for (j = 0; core && j < core->n; j++)
			hk |= vtb_cpuset_has(&p->housekeeping, core->cpus[j]);
		if (!t->pus[k].online || !t->pus[k].allowed || hk)
			continue;
		n_pool++;
		used += load[os] > 0;
		lo = load[os] < lo ? load[os] : lo;
		hi = load[os] > hi ? load[os] : hi;
	}
	full = (size_t)p->req.vms * (size_t)p->req.vcpus > n_pool;
	if (!full) {
		cr_assert_leq(hi, 1, "%s: a pCPU holds %d vCPUs while %zu of %zu are used", what,
			      hi, used, n_pool);
	} else {
		cr_assert_eq(used, n_pool, "%s: %zu of %zu pCPUs used", what, used, n_pool);
		cr_assert_leq(hi - lo, 1, "%s: loads %d to %d", what, lo, hi);
	}
	free(load);
	return full;
}

/*
 * overcommit shares pCPUs only when it has to: while vms x vcpus fits the
 * pool the VMs' pCPUs are disjoint (the review's case: 4 VMs of 1 vCPU on
 * a 4-core host all went to one pCPU), beyond it every pool pCPU is used
 * and the loads differ by at most one vCPU.  flat, cores and explicit
 * place vCPUs one by one; mirror and lie need a regular shape, so for
 * them only the disjoint half is asserted where a whole-core plan exists.
 */
Test(plan, overcommit_shares_only_when_it_has_to)
{
	static const int vcpus[] = { 1, 2, 3, 4, 6, 8 };
	static const enum vtb_pinning pins[] = { VTB_PIN_NONE, VTB_PIN_STRICT, VTB_PIN_CORE };
	static const enum vtb_vtopo topos[] = { VTB_VTOPO_FLAT, VTB_VTOPO_CORES };
	size_t hi, vi, pi, ti, n_pool, checked = 0, shared = 0;
	int vms;

	for (hi = 0; hi < VTB_ARRAY_SIZE(hosts); hi++) {
		struct vtb_hosttopo *h = load(hosts[hi]);
		const struct vtb_topo *t = &h->model;

		for (vi = 0; vi < VTB_ARRAY_SIZE(vcpus); vi++)
			for (pi = 0; pi < VTB_ARRAY_SIZE(pins); pi++)
				for (ti = 0; ti < VTB_ARRAY_SIZE(topos); ti++)
					for (vms = 1; vms <= 40; vms += vms < 6 ? 1 : 7) {
						struct vtb_plan_req r = req(vcpus[vi], topos[ti],
									    pins[pi]);
						struct vtb_plan *p = NULL;
						char what[200];

						r.vms = vms;
						r.overcommit = true;
						snprintf(what, sizeof(what),
							 "%s vcpus=%d vms=%d pinning=%s topo=%zu",
							 hosts[hi], vcpus[vi], vms,
							 vtb_pinning_name(pins[pi]), ti);
						if (vtb_plan_make(t, &r, &p) < 0) {
							/* one VM pinned beyond the pool */
							cr_assert(
								pins[pi] != VTB_PIN_NONE &&
									strstr(vtb_errmsg(),
									       "only pinning = none"),
								"%s: %s", what, vtb_errmsg());
							continue;
						}
						n_pool = pool_size(t, p);
						if ((size_t)vcpus[vi] > n_pool) {
							/* one VM beyond the pool: shares
							 * with itself, evenly too */
							cr_assert_eq(pins[pi], VTB_PIN_NONE);
						} else {
							check_invariants(t, p, what);
						}
						shared += check_overcommit_rule(t, p, what);
						checked++;
						vtb_plan_free(p);
					}
		vtb_hosttopo_free(h);
	}
	cr_assert_gt(shared, 100, "only %zu overcommitted plans of %zu", shared, checked);
}

/* Where the VMs fit without overcommit, overcommit plans the same, for
 * every topology (mirror and lie included). */
Test(plan, overcommit_changes_nothing_that_fits)
{
	static const int vcpus[] = { 1, 2, 4, 6, 8 };
	static const enum vtb_vtopo topos[] = { VTB_VTOPO_FLAT, VTB_VTOPO_CORES, VTB_VTOPO_MIRROR,
						VTB_VTOPO_LIE };
	size_t hi, vi, ti, same = 0;
	int vms;

	for (hi = 0; hi < VTB_ARRAY_SIZE(hosts); hi++) {
		struct vtb_hosttopo *h = load(hosts[hi]);

		for (vi = 0; vi < VTB_ARRAY_SIZE(vcpus); vi++)
			for (ti = 0; ti < VTB_ARRAY_SIZE(topos); ti++)
				for (vms = 1; vms <= 4; vms++) {
					struct vtb_plan_req r = req(vcpus[vi], topos[ti],
								    VTB_PIN_STRICT);
					struct vtb_plan *a = NULL, *b = NULL;
					char *ja, *jb;

					r.vms = vms;
					r.housekeeping = "none";
					if (vtb_plan_make(&h->model, &r, &a) < 0)
						continue;
					r.overcommit = true;
					cr_assert_eq(vtb_plan_make(&h->model, &r, &b), 0,
						     "%s vcpus=%d vms=%d topo=%zu: %s", hosts[hi],
						     vcpus[vi], vms, ti, vtb_errmsg());
					ja = vtb_plan_json(a);
					jb = vtb_plan_json(b);
					cr_assert_str_eq(ja, jb, "%s vcpus=%d vms=%d topo=%zu",
							 hosts[hi], vcpus[vi], vms, ti);
					same++;
					free(ja);
					free(jb);
					vtb_plan_free(a);
					vtb_plan_free(b);
				}
		vtb_hosttopo_free(h);
	}
	cr_assert_gt(same, 100);
}

/* The review's case: 4 VMs of 1 vCPU on 4 cores spread out; mirror too,
 * where whole cores run out and free siblings remain. */
Test(plan, overcommit_fills_free_pcpus_first)
{
	struct vtb_hosttopo *h = load("pack:1 core:4 pu:1");
	struct vtb_plan_req r = req(1, VTB_VTOPO_FLAT, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;
	int v;

	r.vms = 4;
	r.overcommit = true;
	r.housekeeping = "none";
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	for (v = 0; v < 4; v++)
		cr_assert_eq(p->vm[v].pcpu[0], v, "VM %d on pCPU %d", v, p->vm[v].pcpu[0]);
	vtb_plan_free(p);
	vtb_hosttopo_free(h);

	/* 2 cores x 2 threads, 4 VMs of 1 vCPU: whole cores for the first
	 * two, the free siblings for the others, never a shared pCPU */
	h = load("pack:1 core:2 pu:2");
	r = req(1, VTB_VTOPO_MIRROR, VTB_PIN_STRICT);
	r.vms = 4;
	r.overcommit = true;
	r.housekeeping = "none";
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	check_invariants(&h->model, p, "mirror 4 x 1 on 2x2");
	{
		int *load = loads(&h->model, p);

		for (v = 0; v < 4; v++)
			cr_assert_eq(load[v], 1, "pCPU %d holds %d vCPUs", v, load[v]);
		cr_assert_neq(vtb_topo_pu_by_os(&h->model, p->vm[0].pcpu[0])->core,
			      vtb_topo_pu_by_os(&h->model, p->vm[1].pcpu[0])->core);
		free(load);
	}
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

/* "a,b,c" of VM @v's pCPUs in vCPU order (static buffer: one at a time) */
static const char *pcpus_of(const struct vtb_plan *p, int v)
{
	static char buf[256];
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < p->req.vcpus && n < sizeof(buf) - 12; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%d", i ? "," : "",
				      p->vm[v].pcpu[i]);
	return buf;
}

/*
 * When the pool is full a VM shares the LEAST loaded pCPUs, and a mirror
 * VM keeps its shape on them: the loads' spread alone (the rule above)
 * cannot tell, because a VM that took the most loaded units first falls
 * back to the same pCPUs off its shape.  So the plan's exact pCPUs, in
 * vCPU order, and its notes.  Flat, 3 vCPUs x 2 on 4 cores: the second
 * VM takes the free pCPU 3 first, then 0 and 1.  Mirror, 4 vCPUs x 2 on
 * 3 LLC groups of 2 cores: the first VM takes groups 0 and 1; the second
 * the free group 2 (pCPUs 4, 5) and then group 0, both whole, on its
 * shape (no note says it left it).
 */
Test(plan, overcommit_shares_the_least_loaded_pcpus_on_the_shape)
{
	static const struct {
		const char *host;
		enum vtb_vtopo topo;
		int vcpus, vms;
		const char *want[3];
	} cases[] = {
		{ "pack:1 core:4 pu:1", VTB_VTOPO_FLAT, 3, 2, { "0,1,2", "3,0,1" } },
		{ "pack:1 l3:3 core:2 pu:1", VTB_VTOPO_MIRROR, 4, 2, { "0,1,2,3", "4,5,0,1" } },
		{ "pack:1 l3:3 core:2 pu:1",
		  VTB_VTOPO_MIRROR,
		  4,
		  3,
		  { "0,1,2,3", "4,5,0,1", "2,3,4,5" } },
	};

	for (size_t c = 0; c < VTB_ARRAY_SIZE(cases); c++) {
		struct vtb_hosttopo *h = load(cases[c].host);
		struct vtb_plan_req r = req(cases[c].vcpus, cases[c].topo, VTB_PIN_STRICT);
		struct vtb_plan *p = NULL;

		r.vms = cases[c].vms;
		r.overcommit = true;
		r.housekeeping = "none";
		cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s: %s", cases[c].host,
			     vtb_errmsg());
		for (int v = 0; v < r.vms; v++) {
			cr_expect_str_eq(pcpus_of(p, v), cases[c].want[v],
					 "%s, %d VMs: VM %d on %s", cases[c].host, r.vms, v,
					 pcpus_of(p, v));
			for (size_t i = 0; i < p->vm[v].n_notes; i++)
				cr_expect_null(strstr(p->vm[v].notes[i], "shape"),
					       "%s, %d VMs: VM %d: %s", cases[c].host, r.vms, v,
					       p->vm[v].notes[i]);
		}
		vtb_plan_free(p);
		vtb_hosttopo_free(h);
	}
}

Test(plan, spanning_dies_are_labelled)
{
	/* cores = one socket over two nodes: labelled, not silent */
	struct vtb_hosttopo *h = load("pack:1 numa:2 l3:1 core:4 pu:1");
	struct vtb_plan_req r = req(6, VTB_VTOPO_CORES, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;
	size_t i;
	bool found = false;

	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->vm[0].n_cells, 2);
	for (i = 0; i < p->vm[0].n_notes; i++)
		found |= strstr(p->vm[0].notes[i], "spans guest cells") != NULL;
	cr_assert(found);
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

/* 0 when @a and @b hold the same CPUs (both sorted). */
static int set_cmp(const struct vtb_cpuset *a, const struct vtb_cpuset *b)
{
	if (a->n != b->n)
		return 1;
	return a->n ? memcmp(a->cpus, b->cpus, a->n * sizeof(int)) : 0;
}

/* Real package of VM @v's vCPU @i. */
static int pkg_of(const struct vtb_topo *t, const struct vtb_plan *p, int v, int i)
{
	return vtb_topo_pu_by_os(t, p->vm[v].pcpu[i])->pkg;
}

/* mirror maps the real packages used to virtual sockets: each socket's
 * vCPUs on one package, no package under two sockets; unless the plan
 * says it told one socket. */
static void check_sockets_are_packages(const struct vtb_topo *t, const struct vtb_plan *p,
				       const char *what)
{
	int per_sock = p->dies * p->cores * p->threads, v, i, j;

	if (has_note(p->notes, p->n_notes, "told 1 socket"))
		return;
	for (v = 0; v < p->req.vms; v++)
		for (i = 0; i < p->req.vcpus; i++) {
			cr_assert_eq(pkg_of(t, p, v, i), pkg_of(t, p, v, i / per_sock * per_sock),
				     "%s: vm %d socket %d spans packages", what, v, i / per_sock);
			for (j = 0; j < i / per_sock * per_sock; j += per_sock)
				cr_assert_neq(pkg_of(t, p, v, i), pkg_of(t, p, v, j),
					      "%s: vm %d sockets %d and %d on one package", what, v,
					      j / per_sock, i / per_sock);
		}
}

/* Side-by-side VMs never share a core (unless overcommit). */
static void check_whole_cores(const struct vtb_topo *t, const struct vtb_plan *p, const char *what)
{
	int a, b;
	size_t i, j;

	if (p->req.overcommit)
		return;
	for (a = 0; a < p->req.vms; a++)
		for (b = a + 1; b < p->req.vms; b++)
			for (i = 0; i < p->vm[a].cpus.n; i++)
				for (j = 0; j < p->vm[b].cpus.n; j++)
					cr_assert_neq(
						vtb_topo_pu_by_os(t, p->vm[a].cpus.cpus[i])->core,
						vtb_topo_pu_by_os(t, p->vm[b].cpus.cpus[j])->core,
						"%s: VMs %d and %d share the core of pCPUs %d and %d",
						what, a, b, p->vm[a].cpus.cpus[i],
						p->vm[b].cpus.cpus[j]);
}

/* Review findings 1-3 over every host: lie has exactly mirror's counts
 * (sockets, dies, cores, threads, cells and their vCPUs), mirror's
 * sockets are real packages, side-by-side VMs get whole cores. */
Test(plan, lie_counts_sockets_and_whole_cores_over_many_hosts)
{
	static const int vcpus[] = { 2, 4, 6, 8, 12, 16, 32, 64 };
	size_t hi, vi, c;
	int numa, vms, v, topo;

	for (hi = 0; hi < VTB_ARRAY_SIZE(hosts); hi++) {
		struct vtb_hosttopo *h = load(hosts[hi]);
		const struct vtb_topo *t = &h->model;

		for (vi = 0; vi < VTB_ARRAY_SIZE(vcpus); vi++)
			for (numa = 0; numa <= 1; numa++)
				for (vms = 1; vms <= 3; vms++) {
					struct vtb_plan_req r = req(vcpus[vi], VTB_VTOPO_MIRROR,
								    VTB_PIN_STRICT);
					struct vtb_plan *pm = NULL, *pl = NULL, *pf = NULL;
					char what[200];

					r.vms = vms;
					r.numa = numa;
					snprintf(what, sizeof(what), "%s vcpus=%d numa=%d vms=%d",
						 hosts[hi], vcpus[vi], numa, vms);
					if (vtb_plan_make(t, &r, &pm) < 0)
						continue;
					check_sockets_are_packages(t, pm, what);
					check_whole_cores(t, pm, what);
					r.topology = VTB_VTOPO_LIE;
					/* lie is mirror's counts on other cores: it
					 * plans wherever mirror does (issue 27) */
					cr_assert_eq(vtb_plan_make(t, &r, &pl), 0,
						     "%s: lie fails where mirror plans: %s", what,
						     vtb_errmsg());
					check_whole_cores(t, pl, what);
					cr_assert(pl->sockets == pm->sockets &&
							  pl->dies == pm->dies &&
							  pl->cores == pm->cores &&
							  pl->threads == pm->threads,
						  "%s: lie %dx%dx%dx%d, mirror %dx%dx%dx%d", what,
						  pl->sockets, pl->dies, pl->cores, pl->threads,
						  pm->sockets, pm->dies, pm->cores, pm->threads);
					for (v = 0; v < vms; v++) {
						cr_assert_eq(pl->vm[v].n_cells, pm->vm[v].n_cells,
							     "%s: vm %d: lie %zu cells, mirror %zu",
							     what, v, pl->vm[v].n_cells,
							     pm->vm[v].n_cells);
						for (c = 0; c < pm->vm[v].n_cells; c++)
							cr_assert_eq(
								set_cmp(&pl->vm[v].cells[c].vcpus,
									&pm->vm[v].cells[c].vcpus),
								0, "%s: vm %d cell %zu differs",
								what, v, c);
					}
					/* lie's SMT claims are false, unless the free
					 * cores leave a VM none to lie with: then its
					 * note says how many stay true */
					for (c = 0; c < pl->n_claims; c++)
						cr_assert(pl->claims[c].kind != VTB_CLAIM_SMT ||
								  pl->claims[c].state != VTB_CLAIM_TRUE ||
								  has_note(pl->vm[pl->claims[c].vm].notes,
									   pl->vm[pl->claims[c].vm].n_notes,
									   "still true"),
							  "%s: a true lie SMT claim, unsaid", what);
					vtb_plan_free(pm);
					vtb_plan_free(pl);
					for (topo = VTB_VTOPO_FLAT; topo <= VTB_VTOPO_CORES;
					     topo++) {
						r.topology = (enum vtb_vtopo)topo;
						if (vtb_plan_make(t, &r, &pf) == 0)
							check_whole_cores(t, pf, what);
						vtb_plan_free(pf);
						pf = NULL;
					}
				}
		vtb_hosttopo_free(h);
	}
}

/* The reproduction of review finding 2: 256 vCPUs mirror/strict on an
 * 8-package host whose first LLC group lost a core to housekeeping. */
Test(plan, mirror_on_a_big_host_tells_real_packages)
{
	struct vtb_hosttopo *h = load("pack:8 numa:2 l3:4 core:16 pu:2");
	struct vtb_plan_req r = req(256, VTB_VTOPO_MIRROR, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;
	int i;

	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->housekeeping.n, 2);
	cr_assert_eq(p->sockets * p->dies * p->cores * p->threads, 256);
	check_sockets_are_packages(&h->model, p, "256 vCPUs");
	for (i = 1; i < 256; i++) /* one socket: one package */
		cr_assert_eq(pkg_of(&h->model, p, 0, i), pkg_of(&h->model, p, 0, 0));
	cr_assert_eq(p->sockets, 1);
	cr_assert(has_note(p->vm[0].notes, p->vm[0].n_notes, "mirror skips"),
		  "the skipped LLC groups are not said");
	vtb_plan_free(p);
	/* two packages' worth: two sockets of two real packages */
	r = req(512, VTB_VTOPO_MIRROR, VTB_PIN_STRICT);
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->sockets, 2);
	check_sockets_are_packages(&h->model, p, "512 vCPUs");
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

/* lie on a sub-NUMA-clustered host: mirror's two dies are the node
 * halves of one LLC, so lie takes its dies from two LLCs. */
Test(plan, lie_on_sub_numa_clustering_spans_two_llcs)
{
	struct vtb_hosttopo *h = load("xml:xeon-2s-snc2.xml");
	struct vtb_plan_req r = req(8, VTB_VTOPO_MIRROR, VTB_PIN_STRICT);
	struct vtb_plan *pm = NULL, *pl = NULL;

	cr_assert_eq(vtb_plan_make(&h->model, &r, &pm), 0, "%s", vtb_errmsg());
	r.topology = VTB_VTOPO_LIE;
	cr_assert_eq(vtb_plan_make(&h->model, &r, &pl), 0, "%s", vtb_errmsg());
	cr_assert_eq(pm->vm[0].n_cells, 2);
	cr_assert_eq(pl->vm[0].n_cells, 2);
	cr_assert_eq(pl->dies, pm->dies);
	cr_assert_eq(count(pl, VTB_CLAIM_LLC, VTB_CLAIM_TRUE), 0);
	cr_assert_eq(count(pl, VTB_CLAIM_SMT, VTB_CLAIM_TRUE), 0);
	cr_assert_eq(count(pm, VTB_CLAIM_LLC, VTB_CLAIM_TRUE), 2);
	vtb_plan_free(pm);
	vtb_plan_free(pl);
	vtb_hosttopo_free(h);
}

/* The emulator goes to the housekeeping CPUs whatever the pinning. */
Test(plan, emulatorpin_whenever_there_is_housekeeping)
{
	struct vtb_hosttopo *h = load("pack:1 l3:1 core:4 pu:2");
	struct vtb_plan_req r = req(2, VTB_VTOPO_FLAT, VTB_PIN_NONE);
	struct vtb_plan *p = NULL;
	struct vtb_domspec d = { 0 };
	struct vtb_plan_domstore st;

	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_plan_domspec(p, 0, &d, &st), 0);
	cr_assert_null(d.vcpupin);
	cr_assert_not_null(d.emulatorpin);
	cr_assert_eq(set_cmp(d.emulatorpin, &p->housekeeping), 0);
	vtb_plan_domstore_release(&st);
	vtb_plan_free(p);
	r.vcpus = 8; /* no spare CPU: no housekeeping, no emulatorpin */
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_plan_domspec(p, 0, &d, &st), 0);
	cr_assert_null(d.emulatorpin);
	vtb_plan_domstore_release(&st);
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

/* Notes that concern one VM are that VM's, in the text and the JSON;
 * plan-wide ones stay plan-wide. */
Test(plan, notes_are_per_vm)
{
	struct vtb_hosttopo *h = load("pack:1 numa:2 l3:1 core:3 pu:1");
	struct vtb_plan_req r = req(2, VTB_VTOPO_CORES, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;
	json_t *j, *vms;
	char *text;

	r.vms = 3;
	r.housekeeping = "none";
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	/* VM 0: pCPUs 0-1 on node 0; VM 1: 2-3 across both nodes; VM 2: 4-5 */
	cr_assert_eq(p->vm[0].n_notes, 0);
	cr_assert(has_note(p->vm[1].notes, p->vm[1].n_notes, "spans guest cells"));
	cr_assert_not(has_note(p->notes, p->n_notes, "spans guest cells"));
	text = vtb_plan_json(p);
	cr_assert_not_null(text);
	j = json_loads(text, 0, NULL);
	cr_assert_not_null(j);
	vms = json_object_get(j, "vms");
	cr_assert_eq(json_array_size(json_object_get(json_array_get(vms, 0), "notes")), 0);
	cr_assert(
		strstr(json_string_value(
			       json_array_get(json_object_get(json_array_get(vms, 1), "notes"), 0)),
		       "spans guest cells"));
	json_decref(j);
	free(text);
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

/* The words of the settings are listed once (vmreq.h), and a word that
 * is not one of them is never silently a default; the presets that need
 * no host are shaped in one place. */
Test(plan, request_words_and_host_free_shapes)
{
	struct vtb_plan_req r = { .vcpus = 6, .sockets = 2, .dies = 1, .cores = 3, .threads = 1 };
	enum vtb_vtopo t = VTB_VTOPO_EXPLICIT;
	enum vtb_pinning pin = VTB_PIN_NONE;
	int s, d, c, th;

	cr_assert_eq(vtb_vtopo_preset("mirorr", &t), -1);
	cr_assert_eq(t, VTB_VTOPO_EXPLICIT);
	cr_assert_eq(vtb_vtopo_preset("lie", &t), 0);
	cr_assert_eq(t, VTB_VTOPO_LIE);
	cr_assert_eq(vtb_pinning_parse("stirct", &pin), -1);
	cr_assert(strstr(vtb_errmsg(), "unknown pinning 'stirct'"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_pinning_parse("llc", &pin), 0);
	cr_assert_str_eq(vtb_pinning_name(pin), "llc");
	r.topology = VTB_VTOPO_FLAT;
	cr_assert_eq(vtb_vtopo_shape(&r, &s, &d, &c, &th), 0);
	cr_assert(s == 6 && d == 1 && c == 1 && th == 1);
	r.topology = VTB_VTOPO_CORES;
	cr_assert_eq(vtb_vtopo_shape(&r, &s, &d, &c, &th), 0);
	cr_assert(s == 1 && d == 1 && c == 6 && th == 1);
	r.topology = VTB_VTOPO_EXPLICIT;
	cr_assert_eq(vtb_vtopo_shape(&r, &s, &d, &c, &th), 0);
	cr_assert(s == 2 && d == 1 && c == 3 && th == 1);
	r.topology = VTB_VTOPO_MIRROR; /* only the planner shapes it */
	cr_assert_eq(vtb_vtopo_shape(&r, &s, &d, &c, &th), -1);
}

/* Issue 14, item 3: a guest cell bound to a host node must fit it,
 * counting the other VMs'; a VM that does not fit where it would go
 * tries the other nodes first. */
Test(plan, guest_memory_fits_the_host_nodes_or_is_not_runnable)
{
	struct vtb_hosttopo *h = load("pack:2 numa:2(memory=8GiB) l3:2(size=32MiB) core:4 pu:2");
	struct vtb_plan_req r = req(4, VTB_VTOPO_MIRROR, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;
	char *json;

	r.vms = 2;
	r.memory_bytes = 24ull << 30;
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_not_null(p->why_not, "48 GiB on 8 GiB nodes planned as runnable");
	cr_expect(strstr(p->why_not, "it has 8GiB") && strstr(p->why_not, "need 48GiB"), "%s",
		  p->why_not);
	json = vtb_plan_json(p);
	cr_expect(json && strstr(json, "\"not_runnable\":\"guest memory does not fit"), "%s", json);
	free(json);
	vtb_plan_free(p);
	r.memory_bytes = 6ull << 30; /* one VM per node fits */
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_expect_null(p->why_not, "%s", p->why_not);
	cr_expect_neq(p->vm[0].cells[0].host_node, p->vm[1].cells[0].host_node);
	vtb_plan_free(p);
	r.vms = 1; /* numa = off: all of it on the nodes of its pCPUs */
	r.numa = false;
	r.memory_bytes = 12ull << 30;
	r.topology = VTB_VTOPO_CORES;
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_expect(p->why_not && strstr(p->why_not, "numa = off"), "%s", p->why_not);
	vtb_plan_free(p);
	/* mirror can take two dies on two nodes: then it fits */
	r.topology = VTB_VTOPO_MIRROR;
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_expect_null(p->why_not, "%s", p->why_not);
	cr_expect_eq(p->vm[0].nodes.n, 2);
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

/* Item 7: 64 vCPUs on nodes of 32 PUs take two whole nodes (the first
 * core's housekeeping made it 24/32/8 over three), for mirror and for
 * cores, where housekeeping moves to a node the VM does not use. */
Test(plan, a_vm_that_fills_whole_nodes_gets_whole_nodes)
{
	struct vtb_hosttopo *h = load("pack:1 numa:4 l3:4(size=16MiB) core:4 pu:2");
	enum vtb_vtopo topos[] = { VTB_VTOPO_MIRROR, VTB_VTOPO_CORES, VTB_VTOPO_LIE };
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(topos); i++) {
		struct vtb_plan_req r = req(64, topos[i], VTB_PIN_STRICT);
		struct vtb_plan *p = NULL;

		cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
		cr_expect_eq(p->vm[0].n_cells, 2, "topology %zu: %zu cells", i, p->vm[0].n_cells);
		cr_expect_eq(p->vm[0].cells[0].vcpus.n, 32);
		cr_expect_eq(p->vm[0].nodes.n, 2);
		cr_expect_eq(p->housekeeping.n, 2);
		cr_expect(has_note(p->notes, p->n_notes, "housekeeping on CPUs"),
			  "the move is not said");
		vtb_plan_free(p);
	}
	vtb_hosttopo_free(h);
}

/* Item 8: overcommitted mirror and lie VMs share pCPUs only when the
 * pool is full, and then within one vCPU per pCPU (384-PU host). */
Test(plan, overcommitted_mirror_spreads_over_the_pool)
{
	struct vtb_hosttopo *h = load("pack:2 numa:1 l3:12(size=32MiB) core:8 pu:2");
	const struct vtb_topo *t = &h->model;
	enum vtb_vtopo topos[] = { VTB_VTOPO_MIRROR, VTB_VTOPO_LIE };
	int vms[] = { 2, 4 };
	size_t i, j, k;

	for (i = 0; i < VTB_ARRAY_SIZE(topos); i++)
		for (j = 0; j < VTB_ARRAY_SIZE(vms); j++) {
			struct vtb_plan_req r = req(192, topos[i], VTB_PIN_STRICT);
			struct vtb_plan *p = NULL;
			int *load, lo = 1 << 30, hi = 0;

			r.vms = vms[j];
			r.overcommit = true;
			cr_assert_eq(vtb_plan_make(t, &r, &p), 0, "%s", vtb_errmsg());
			load = loads(t, p);
			for (k = 0; k < t->n_online; k++) {
				int os = t->pus[k].os;
				const struct vtb_cpuset *core;

				if (vtb_cpuset_has(&p->housekeeping, os))
					continue;
				core = vtb_topo_pus_of(t, VTB_TOPO_CORE, os);
				if (vtb_cpuset_has(&p->housekeeping, core->cpus[0]))
					continue;
				lo = load[os] < lo ? load[os] : lo;
				hi = load[os] > hi ? load[os] : hi;
			}
			cr_expect_leq(hi - lo, 1, "topology %zu, %d VMs: loads %d to %d", i, vms[j],
				      lo, hi);
			cr_expect_geq(lo, 1, "an idle pCPU while others are shared");
			free(load);
			vtb_plan_free(p);
		}
	vtb_hosttopo_free(h);
}

/*
 * Item 8's rule for mirror and lie, whose regular shape once stacked VMs
 * on the same pCPUs while others idled: a VM takes free pCPUs before it
 * shares any, off its shape when the free pCPUs no longer hold it (and
 * says so), so while vms x vcpus fits the pool no pCPU holds two vCPUs;
 * beyond it every pool pCPU is used and the loads differ by at most one.
 */
Test(plan, overcommitted_mirror_and_lie_share_only_when_the_pool_is_full)
{
	static const int vcpus[] = { 3, 4, 5, 6, 8, 12 };
	static const enum vtb_vtopo topos[] = { VTB_VTOPO_MIRROR, VTB_VTOPO_LIE };
	size_t hi, vi, ti, fits = 0, full = 0;
	int vms;

	for (hi = 0; hi < VTB_ARRAY_SIZE(hosts); hi++) {
		struct vtb_hosttopo *h = load(hosts[hi]);
		const struct vtb_topo *t = &h->model;

		if (t->n_pus > 512)
			goto next; /* the 2048-PU host: the rule is the same, only slower */
		for (vi = 0; vi < VTB_ARRAY_SIZE(vcpus); vi++)
			for (ti = 0; ti < VTB_ARRAY_SIZE(topos); ti++)
				for (vms = 1; vms <= 13; vms += vms < 6 ? 1 : 7) {
					struct vtb_plan_req r = req(vcpus[vi], topos[ti],
								    VTB_PIN_STRICT);
					struct vtb_plan *p = NULL;
					char what[200];

					r.vms = vms;
					r.overcommit = true;
					r.memory_bytes = 64ull << 20;
					snprintf(what, sizeof(what),
						 "%s vcpus=%d vms=%d topology=%s", hosts[hi],
						 vcpus[vi], vms, ti ? "lie" : "mirror");
					if (vtb_plan_make(t, &r, &p) < 0)
						continue; /* no regular shape, or beyond the pool */
					check_invariants(t, p, what);
					if (check_overcommit_rule(t, p, what))
						full++;
					else
						fits += vms > 1;
					vtb_plan_free(p);
				}
	next:
		vtb_hosttopo_free(h);
	}
	cr_assert_gt(fits, 50, "only %zu side-by-side plans", fits);
	cr_assert_gt(full, 50, "only %zu full-pool plans", full);
}

/* The case: 4 x 95 vCPUs on 382 free pCPUs share none; mirror's
 * shape (19 LLC groups of 5 cores) no longer fits the free pCPUs for the
 * last VMs, which take free pCPUs off it, say so, and state the claims
 * that placement does not back as not true. */
Test(plan, overcommit_takes_free_pcpus_off_the_shape)
{
	struct vtb_hosttopo *h = load("pack:2 numa:1 l3:12(size=32MiB) core:8 pu:2");
	const struct vtb_topo *t = &h->model;
	struct vtb_plan_req r = req(95, VTB_VTOPO_MIRROR, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;
	int *load, os, shared = 0, v;
	bool off = false;

	r.vms = 4;
	r.overcommit = true;
	cr_assert_eq(vtb_plan_make(t, &r, &p), 0, "%s", vtb_errmsg());
	load = loads(t, p);
	for (os = 0; os <= t->max_os; os++)
		shared += load[os] > 1;
	cr_expect_eq(shared, 0, "%d pCPUs shared", shared);
	for (v = 0; v < r.vms; v++) {
		size_t i, n_off = 0, n_all = 0, said_off, said_all;
		const char *note = NULL;

		for (i = 0; i < p->vm[v].n_notes; i++)
			if (strstr(p->vm[v].notes[i], "is off mirror's shape"))
				note = p->vm[v].notes[i];
		if (!note)
			continue;
		off = true;
		cr_expect(strstr(note, "the free pCPUs no longer hold it"), "%s", note);
		/* the note counts the claims the placement does not make true */
		for (i = 0; i < p->n_claims; i++)
			if (p->claims[i].vm == v && p->claims[i].kind != VTB_CLAIM_NODE) {
				n_all++;
				n_off += p->claims[i].state != VTB_CLAIM_TRUE;
			}
		cr_assert_eq(sscanf(strstr(note, "; ") + 2, "%zu of its %zu", &said_off, &said_all),
			     2, "%s", note);
		cr_expect_eq(said_off, n_off, "%s", note);
		cr_expect_eq(said_all, n_all, "%s", note);
	}
	cr_expect(off, "no VM says it left its shape");
	check_claim_rule(p, "4 x 95");
	free(load);
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

/* Item 9: without cache information mirror keeps to a package, llc
 * pinning pins to it, and both say so. */
Test(plan, without_caches_the_package_stands_for_the_llc)
{
	struct vtb_hosttopo *h = load("xml:nocache-2s.xml");
	const struct vtb_topo *t = &h->model;
	struct vtb_plan_req r = req(16, VTB_VTOPO_MIRROR, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;
	size_t i;

	r.numa = false;
	cr_assert_eq(vtb_plan_make(t, &r, &p), 0, "%s", vtb_errmsg());
	for (i = 0; i < p->vm[0].cpus.n; i++)
		cr_expect_eq(vtb_topo_pu_by_os(t, p->vm[0].cpus.cpus[i])->pkg,
			     vtb_topo_pu_by_os(t, p->vm[0].cpus.cpus[0])->pkg,
			     "pCPU %d on another package", p->vm[0].cpus.cpus[i]);
	cr_expect_eq(count(p, VTB_CLAIM_LLC, VTB_CLAIM_TRUE), 1);
	cr_expect(has_note(p->notes, p->n_notes, "LLC groups are taken to be its packages"));
	vtb_plan_free(p);
	r.pinning = VTB_PIN_LLC;
	cr_assert_eq(vtb_plan_make(t, &r, &p), 0, "%s", vtb_errmsg());
	for (i = 0; i < 16; i++)
		cr_expect_eq(p->vm[0].pins[i].n, 16, "vCPU %zu pinned to %zu pCPUs", i,
			     p->vm[0].pins[i].n);
	cr_expect(has_note(p->notes, p->n_notes, "pinning llc pins to them"));
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

/* Item 10: an explicit housekeeping CPU keeps its SMT sibling idle. */
Test(plan, housekeeping_siblings_get_no_vcpu)
{
	struct vtb_hosttopo *h = load("xml:nocache-2s.xml");
	struct vtb_plan_req r = req(30, VTB_VTOPO_CORES, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;

	r.housekeeping = "0";
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_expect_not(vtb_cpuset_has(&p->vm[0].cpus, 16), "CPU 16 shares core 0");
	cr_expect(has_note(p->notes, p->n_notes, "its SMT sibling 16 stays idle"));
	vtb_plan_free(p);
	r.vcpus = 31; /* the sibling is not there to take */
	cr_expect_eq(vtb_plan_make(&h->model, &r, &p), VTB_PLAN_NO_ROOM);
	vtb_hosttopo_free(h);
}

/*
 * Issue 27's host with CPUs on no node, built by hand as a real Xeon
 * dump has it: 2 packages of 2 cores x 2 PUs, siblings 4 apart (0/4,
 * 1/5 on package 0; 2/6, 3/7 on package 1); node 1 (64 GiB, an empty
 * huge page pool) holds package 1 only, package 0's node is offline.
 */
static void nodeless_host(struct vtb_topo *t)
{
	struct vtb_topo_group *g;
	struct vtb_topo_node *n;
	int i, pk;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < 8; i++)
		cr_assert(vtb_topo_add_pu(t, i, true, true));
	for (i = 0; i < 4; i++) {
		cr_assert((g = vtb_topo_add_group(t, VTB_TOPO_CORE)));
		vtb_cpuset_add(&g->pus, i);
		vtb_cpuset_add(&g->pus, i + 4);
	}
	for (pk = 0; pk < 2; pk++) {
		cr_assert((g = vtb_topo_add_group(t, VTB_TOPO_PKG)));
		for (i = 0; i < 2; i++) {
			vtb_cpuset_add(&g->pus, 2 * pk + i);
			vtb_cpuset_add(&g->pus, 2 * pk + i + 4);
		}
	}
	cr_assert((n = vtb_topo_add_node(t)));
	n->os = 1;
	n->memory = n->normal = 64ull << 30;
	n->hugepages = n->hugepages_free = 0;
	for (i = 2; i < 4; i++) {
		vtb_cpuset_add(&n->pus, i);
		vtb_cpuset_add(&n->pus, i + 4);
	}
	cr_assert_eq(vtb_topo_finish(t, NULL, 0), 0, "%s", vtb_errmsg());
}

/* A CPU on no node is never a guest's: no pCPU there, no empty node set,
 * no cell at node -1; housekeeping goes there and a note names them;
 * memory and huge pages are checked against the node that is there. */
Test(plan, cpus_on_no_node_are_never_a_guests)
{
	struct vtb_topo t;
	int vcpus, topo, pin;
	size_t i, c;

	nodeless_host(&t);
	cr_assert(vtb_topo_pu_by_os(&t, 0)->nodeless && !vtb_topo_pu_by_os(&t, 0)->allowed);
	cr_assert(!vtb_topo_pu_by_os(&t, 2)->nodeless && vtb_topo_pu_by_os(&t, 2)->allowed);
	for (vcpus = 1; vcpus <= 5; vcpus++)
		for (topo = VTB_VTOPO_FLAT; topo <= VTB_VTOPO_LIE; topo++)
			for (pin = VTB_PIN_NONE; pin <= VTB_PIN_NODE; pin++) {
				struct vtb_plan_req r = req(vcpus, topo, pin);
				struct vtb_plan *p = NULL;
				int rc = vtb_plan_make(&t, &r, &p);

				if (vcpus > 4) { /* 4 CPUs are on node 1 */
					cr_assert_eq(rc, VTB_PLAN_NO_ROOM, "vcpus %d: %s", vcpus,
						     vtb_errmsg());
					continue;
				}
				if (rc == VTB_PLAN_NO_ROOM) /* a shape that does not fit */
					continue;
				cr_assert_eq(rc, 0, "vcpus %d topology %d: %s", vcpus, topo,
					     vtb_errmsg());
				check_invariants(&t, p, "nodeless host");
				for (i = 0; i < p->vm[0].cpus.n; i++)
					cr_assert(!vtb_topo_pu_by_os(&t, p->vm[0].cpus.cpus[i])
							   ->nodeless);
				cr_assert_eq(p->vm[0].nodes.n, 1);
				cr_assert_eq(p->vm[0].nodes.cpus[0], 1);
				for (c = 0; c < p->vm[0].n_cells; c++)
					cr_assert_eq(p->vm[0].cells[c].host_node, 1);
				cr_assert_eq(p->housekeeping.n, 2);
				cr_assert(vtb_cpuset_has(&p->housekeeping, 0) &&
					  vtb_cpuset_has(&p->housekeeping, 4));
				cr_assert(has_note(p->notes, p->n_notes, "CPUs 0-1,4-5 are on no NUMA node"),
					  "%s", p->n_notes ? p->notes[0] : "no note");
				cr_assert_null(p->why_not, "%s", p->why_not);
				vtb_plan_free(p);
			}
	{
		struct vtb_plan_req r = req(2, VTB_VTOPO_MIRROR, VTB_PIN_STRICT);
		struct vtb_plan *p = NULL;

		r.memory_bytes = 200ull << 30; /* the host has 64 GiB */
		cr_assert_eq(vtb_plan_make(&t, &r, &p), 0, "%s", vtb_errmsg());
		cr_assert(p->why_not && strstr(p->why_not, "does not fit host node 1"), "%s",
			  p->why_not ? p->why_not : "runnable");
		vtb_plan_free(p);
		r.memory_bytes = 1ull << 30;
		r.hugepages = true; /* and no huge page at all */
		cr_assert_eq(vtb_plan_make(&t, &r, &p), 0, "%s", vtb_errmsg());
		cr_assert(p->why_not && strstr(p->why_not, "huge pages"), "%s",
			  p->why_not ? p->why_not : "runnable");
		vtb_plan_free(p);
		r.hugepages = false;
		r.housekeeping = "2"; /* an explicit list keeps its word */
		cr_assert_eq(vtb_plan_make(&t, &r, &p), 0, "%s", vtb_errmsg());
		cr_assert(!has_note(p->notes, p->n_notes, "housekeeping goes there"));
		vtb_plan_free(p);
	}
	vtb_topo_release(&t);
}

/* What overcommit = no plans, overcommit = yes plans too: one VM of every
 * host CPU got housekeeping none without overcommit and was refused
 * with it (256 vCPUs on 254 available pCPUs). */
Test(plan, overcommit_plans_what_no_overcommit_plans)
{
	size_t hi;
	int topo, pin, vms, k;

	for (hi = 0; hi < VTB_ARRAY_SIZE(hosts); hi++) {
		struct vtb_hosttopo *h = load(hosts[hi]);
		const struct vtb_topo *t = &h->model;
		int all = (int)h->n_compact;
		const int counts[] = { all, all - 1, all / 2, 2 };

		for (k = 0; k < 4; k++)
			for (topo = VTB_VTOPO_FLAT; topo <= VTB_VTOPO_LIE; topo++)
				for (pin = VTB_PIN_NONE; pin <= VTB_PIN_STRICT; pin++)
					for (vms = 1; vms <= 2; vms++) {
						struct vtb_plan_req r;
						struct vtb_plan *p = NULL;
						char what[200];

						if (counts[k] < 1 || counts[k] * vms > all)
							continue;
						r = req(counts[k], topo, pin);
						r.vms = vms;
						snprintf(what, sizeof(what),
							 "%s vcpus=%d topology=%d pinning=%s vms=%d",
							 hosts[hi], counts[k], topo,
							 vtb_pinning_name(pin), vms);
						bool runs;

						if (vtb_plan_make(t, &r, &p) != 0)
							continue;
						runs = !p->why_not;
						vtb_plan_free(p);
						r.overcommit = true;
						cr_assert_eq(vtb_plan_make(t, &r, &p), 0,
							     "%s: overcommit = yes refuses: %s", what,
							     vtb_errmsg());
						cr_assert(!runs || !p->why_not,
							  "%s: overcommit = yes does not run: %s", what,
							  p->why_not);
						check_invariants(t, p, what);
						vtb_plan_free(p);
					}
		vtb_hosttopo_free(h);
	}
}

/* A housekeeping list that leaves the guests nothing is a fact about
 * this host (the configuration is not runnable here), not an error of
 * the whole matrix. */
Test(plan, housekeeping_that_leaves_no_cpu_is_no_room)
{
	struct vtb_hosttopo *h = load("pack:1 core:1 pu:2");
	struct vtb_plan_req r = req(1, VTB_VTOPO_FLAT, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;

	r.housekeeping = "0";
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), VTB_PLAN_NO_ROOM);
	cr_assert(strstr(vtb_errmsg(), "leaves no CPU"), "%s", vtb_errmsg());
	vtb_hosttopo_free(h);
}

/* A host without core objects: each PU is a core of its own, so an SMT
 * pair on two PUs is a false claim under strict, not an unbacked one. */
Test(plan, smt_claims_on_a_host_without_cores)
{
	struct vtb_hosttopo *h = load("pack:2 pu:2");
	struct vtb_plan_req r = req(4, VTB_VTOPO_EXPLICIT, VTB_PIN_STRICT);
	struct vtb_plan *p = NULL;

	r.sockets = 1, r.dies = 1, r.cores = 2, r.threads = 2;
	r.housekeeping = "none";
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_eq(count(p, VTB_CLAIM_SMT, VTB_CLAIM_FALSE), 2);
	cr_assert_eq(count(p, VTB_CLAIM_SMT, VTB_CLAIM_UNBACKED), 0);
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}

/* lie packs where it fits: two 16-vCPU VMs on a 2-node 8-core 2-thread
 * host (each takes 4 cores of each node), two 31-vCPU VMs on a Xeon-like
 * host (16 + 15 cores each); every claim of theirs is a lie. */
Test(plan, lie_packs_side_by_side_vms_where_they_fit)
{
	static const struct {
		const char *host;
		int vcpus;
	} cases[] = {
		{ "pack:2 numa:1(memory=32GiB) l3:1 core:8 pu:2", 16 },
		{ "pack:2 numa:1(memory=256GiB) l3:1(size=60MiB) core:40 pu:2", 31 },
	};
	size_t i, c;

	for (i = 0; i < VTB_ARRAY_SIZE(cases); i++) {
		struct vtb_hosttopo *h = load(cases[i].host);
		struct vtb_plan_req r = req(cases[i].vcpus, VTB_VTOPO_LIE, VTB_PIN_STRICT);
		struct vtb_plan *p = NULL;

		r.vms = 2;
		cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s: %s", cases[i].host,
			     vtb_errmsg());
		check_invariants(&h->model, p, cases[i].host);
		check_whole_cores(&h->model, p, cases[i].host);
		for (c = 0; c < p->n_claims; c++)
			cr_assert(p->claims[c].kind == VTB_CLAIM_NODE ||
					  p->claims[c].state == VTB_CLAIM_FALSE,
				  "%s: vm %d's %s claim is %s", cases[i].host, p->claims[c].vm,
				  vtb_claim_kind_name(p->claims[c].kind),
				  vtb_claim_state_name(p->claims[c].state));
		{
			struct vtb_plan *m = NULL;

			r.topology = VTB_VTOPO_MIRROR;
			cr_assert_eq(vtb_plan_make(&h->model, &r, &m), 0, "%s", vtb_errmsg());
			for (int v = 0; v < 2; v++) {
				cr_assert_eq(p->vm[v].n_cells, m->vm[v].n_cells,
					     "%s: vm %d: lie keeps mirror's cells", cases[i].host, v);
				for (c = 0; c < m->vm[v].n_cells; c++)
					cr_assert_eq(set_cmp(&p->vm[v].cells[c].vcpus,
							     &m->vm[v].cells[c].vcpus),
						     0, "%s: vm %d cell %zu", cases[i].host, v, c);
			}
			vtb_plan_free(m);
		}
		vtb_plan_free(p);
		vtb_hosttopo_free(h);
	}
}

/* Review of issue 27: with overcommit one VM's vCPUs leave room for a
 * housekeeping core, but four 1G VMs on four nodes of 1 GiB need every
 * node (overcommit = no plans them with housekeeping none); and a
 * housekeeping core on no node never moves to a guest's core. */
Test(plan, housekeeping_never_costs_what_none_would_keep)
{
	struct vtb_hosttopo *h = load("pack:1 numa:4(memory=1GiB) l3:1(size=8MiB) core:1 pu:2");
	struct vtb_topo t;
	int topo;

	for (topo = VTB_VTOPO_FLAT; topo <= VTB_VTOPO_LIE; topo++) {
		struct vtb_plan_req r = req(2, topo, VTB_PIN_STRICT);
		struct vtb_plan *p = NULL;

		r.vms = 4;
		r.overcommit = true;
		cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
		cr_assert_null(p->why_not, "topology %d: %s", topo, p->why_not);
		cr_assert_eq(p->housekeeping.n, 0);
		cr_assert(has_note(p->notes, p->n_notes, "no housekeeping CPUs"));
		vtb_plan_free(p);
	}
	vtb_hosttopo_free(h);
	nodeless_host(&t);
	for (topo = VTB_VTOPO_FLAT; topo <= VTB_VTOPO_LIE; topo++) {
		struct vtb_plan_req r = req(3, topo, VTB_PIN_STRICT);
		struct vtb_plan *p = NULL;

		r.vms = 2;
		r.overcommit = true;
		if (vtb_plan_make(&t, &r, &p) != 0)
			continue; /* 3 vCPUs form no regular shape here */
		cr_assert(p->housekeeping.n == 2 && vtb_cpuset_has(&p->housekeeping, 0) &&
				  vtb_cpuset_has(&p->housekeeping, 4),
			  "topology %d: housekeeping moved off the node-less core", topo);
		vtb_plan_free(p);
	}
	vtb_topo_release(&t);
}
