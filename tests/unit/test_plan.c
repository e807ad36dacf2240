/* SPDX-License-Identifier: MIT */
/*
 * The placement planner over many described hosts: synthetic strings
 * (1-8 packages, with and without SMT, several LLCs per node) and the
 * hwloc XML fixtures of tests/fixtures/topo (siblings 64 apart, offline
 * CPUs, sub-NUMA clustering, EPYC CCXs).  Properties: mirror+strict
 * claims all true; lie's SMT and LLC claims false; no pCPU used twice
 * across a configuration's VMs; pins inside the VM's pCPUs and outside
 * housekeeping; memory sums match; the domain spec builds.  Errors: too
 * many vCPUs (with how many are available), impossible explicit
 * topologies, clusters, unknown presets.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/domxml.h"
#include "../../harness/hosttopo.h"
#include "../../harness/plan.h"

static const char *const hosts[] = {
	"pack:1 core:2 pu:1",
	"pack:1 l3:1 core:4 pu:2",
	"pack:2 l3:2(size=32MiB) core:4 pu:2",
	"pack:2 numa:4 l3:16 core:4 pu:2",
	"pack:4 numa:1 l3:2 core:6 pu:1",
	"pack:8 numa:1 l3:1 core:16 pu:2",
	"pack:2 numa:2 l3:4 core:8 pu:1",
	"xml:epyc-rome-nps4.xml",
	"xml:xeon-2s-snc2.xml",
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
							for (size_t c = 0; c < p->n_claims; c++)
								if (t->llc_level ||
								    p->claims[c].kind !=
									    VTB_CLAIM_LLC)
									cr_assert_eq(
										p->claims[c].state,
										VTB_CLAIM_TRUE,
										"%s: mirror claim %zu (%s) is %s",
										what, c,
										vtb_claim_kind_name(
											p->claims[c]
												.kind),
										vtb_claim_state_name(
											p->claims[c]
												.state));
						if (topo == VTB_VTOPO_LIE &&
						    pin == VTB_PIN_STRICT) {
							cr_assert_eq(count(p, VTB_CLAIM_SMT,
									   VTB_CLAIM_TRUE),
								     0, "%s: a true SMT claim",
								     what);
							if (t->n_groups[VTB_TOPO_LLC] > 1 &&
							    h->n_compact > 4)
								cr_assert_eq(count(p, VTB_CLAIM_LLC,
										   VTB_CLAIM_TRUE),
									     0,
									     "%s: a true LLC claim",
									     what);
						}
						if (pin == VTB_PIN_NONE)
							cr_assert_eq(count(p, VTB_CLAIM_SMT,
									   VTB_CLAIM_TRUE) +
									     count(p, VTB_CLAIM_SMT,
										   VTB_CLAIM_FALSE),
								     0,
								     "%s: unpinned SMT claim backed",
								     what);
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
	cr_assert_eq(p->n_notes, 0);
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

	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), -1);
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
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), -1);
	cr_assert(strstr(vtb_errmsg(), "32 available"), "%s", vtb_errmsg());
	r.overcommit = true;
	cr_assert_eq(vtb_plan_make(&h->model, &r, &p), 0, "%s", vtb_errmsg());
	cr_assert_eq(p->vm[0].cpus.cpus[0], p->vm[3].cpus.cpus[0]);
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
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
	for (i = 0; i < p->n_notes; i++)
		found |= strstr(p->notes[i], "spans guest cells") != NULL;
	cr_assert(found);
	vtb_plan_free(p);
	vtb_hosttopo_free(h);
}
