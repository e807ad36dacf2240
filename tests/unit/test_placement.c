/* SPDX-License-Identifier: MIT */
/*
 * The placement summary from hand-made sample traces on synthetic hosts:
 * a vCPU always on its pCPU is never off_planned, half the time
 * elsewhere is 0.5; an SMT pair split across cores half the time gives
 * split_core 0.5 and no LLC split within one LLC; an LLC group across
 * two packages splits LLC and node; pinning none plans the assigned
 * pCPU; unknown CPUs count as off but make no observation; counters are
 * deltas of the first and last readings; claims JSON keeps one VM's.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/host/hosttopo.h"
#include "../../harness/boot/placement.h"
#include "../../harness/plan/plan.h"

struct fx {
	struct vtb_hosttopo *h;
	struct vtb_plan *plan;
	struct vtb_placement *p;
};

static struct fx make(const char *host, struct vtb_plan_req r)
{
	struct fx f = { 0 };

	cr_assert_eq(vtb_hosttopo_load(host, &f.h), 0, "%s: %s", host, vtb_errmsg());
	r.housekeeping = "none";
	if (!r.vms)
		r.vms = 1;
	r.memory_bytes = 1ull << 30;
	cr_assert_eq(vtb_plan_make(&f.h->model, &r, &f.plan), 0, "plan: %s", vtb_errmsg());
	cr_assert_eq(vtb_placement_new(f.plan, 0, &f.h->model, r.vcpus, 50000000, &f.p), 0, "%s",
		     vtb_errmsg());
	return f;
}

static void release(struct fx *f)
{
	vtb_placement_free(f->p);
	vtb_plan_free(f->plan);
	vtb_hosttopo_free(f->h);
}

static json_t *summary(const struct vtb_placement *p)
{
	char *text = vtb_placement_json(p);
	json_error_t e;
	json_t *j;

	cr_assert_not_null(text, "%s", vtb_errmsg());
	j = json_loads(text, 0, &e);
	cr_assert_not_null(j, "%s: %s", text, e.text);
	free(text);
	return j;
}

static double num(json_t *j, const char *path)
{
	json_t *v = json_object_get(j, path);

	cr_assert(json_is_number(v), "%s is not a number", path);
	return json_number_value(v);
}

static json_t *vcpu(json_t *j, int v)
{
	return json_array_get(json_object_get(j, "vcpus"), (size_t)v);
}

/* A different online PU than @os, at another core than @os. */
static int other_core(const struct vtb_topo *t, int os)
{
	const struct vtb_topo_pu *a = vtb_topo_pu_by_os(t, os);

	for (size_t i = 0; i < t->n_online; i++)
		if (t->pus[i].core != a->core)
			return t->pus[i].os;
	cr_assert_fail("no other core");
	return -1;
}

Test(placement, always_on_its_pcpu_is_never_off)
{
	struct fx f = make("pack:1 core:2 pu:1",
			   (struct vtb_plan_req){ .vcpus = 2,
						  .pinning = VTB_PIN_STRICT,
						  .topology = VTB_VTOPO_CORES });
	int cpus[2] = { f.plan->vm[0].pcpu[0], f.plan->vm[0].pcpu[1] };
	json_t *j, *v0;

	for (int i = 0; i < 10; i++)
		cr_assert_eq(vtb_placement_add(f.p, cpus), 0);
	j = summary(f.p);
	cr_assert_eq(num(j, "samples"), 10);
	cr_assert_eq(num(j, "interval_ms"), 50);
	cr_assert_str_eq(json_string_value(json_object_get(j, "source")), "proc");
	v0 = vcpu(j, 0);
	cr_assert_eq(num(v0, "off_planned"), 0.0);
	cr_assert_eq(num(v0, "samples"), 10);
	cr_assert_eq(num(j, "off_planned_max"), 0.0);
	cr_assert_eq(num(j, "off_planned_mean"), 0.0);
	for (int v = 0; v < 2; v++) {
		char want[16];

		snprintf(want, sizeof(want), "%d", cpus[v]);
		cr_assert_str_eq(json_string_value(json_object_get(vcpu(j, v), "planned")), want);
		cr_assert_str_eq(json_string_value(json_object_get(vcpu(j, v), "cpus_seen")), want);
	}
	/* no SMT claims on a 2-core topology; one LLC group, one node */
	cr_assert(json_is_null(json_object_get(j, "smt_pairs")));
	cr_assert_eq(num(json_object_get(j, "nodes"), "n"), 1);
	cr_assert_eq(num(json_object_get(j, "nodes"), "split_node"), 0.0);
	cr_assert(json_is_null(json_object_get(j, "live_pins")));
	cr_assert(json_is_null(json_object_get(v0, "tid")));
	cr_assert(json_is_null(json_object_get(v0, "migrations")));
	json_decref(j);
	release(&f);
}

Test(placement, half_the_time_elsewhere_is_half_off)
{
	struct fx f = make("pack:1 core:2 pu:1",
			   (struct vtb_plan_req){ .vcpus = 2,
						  .pinning = VTB_PIN_STRICT,
						  .topology = VTB_VTOPO_CORES });
	int a = f.plan->vm[0].pcpu[0], b = f.plan->vm[0].pcpu[1];
	int home[2] = { a, b }, away[2] = { b, b };
	json_t *j;

	for (int i = 0; i < 4; i++) {
		cr_assert_eq(vtb_placement_add(f.p, home), 0);
		cr_assert_eq(vtb_placement_add(f.p, away), 0);
	}
	j = summary(f.p);
	cr_assert_eq(num(vcpu(j, 0), "off_planned"), 0.5);
	cr_assert_eq(num(vcpu(j, 1), "off_planned"), 0.0);
	cr_assert_eq(num(j, "off_planned_max"), 0.5);
	cr_assert_eq(num(j, "off_planned_mean"), 0.25);
	cr_assert_str_eq(json_string_value(json_object_get(vcpu(j, 0), "cpus_seen")), "0-1");
	json_decref(j);
	release(&f);
}

Test(placement, smt_pair_split_across_cores_half_the_time)
{
	struct fx f = make("pack:1 l3:1 core:2 pu:2",
			   (struct vtb_plan_req){ .vcpus = 2,
						  .pinning = VTB_PIN_STRICT,
						  .topology = VTB_VTOPO_EXPLICIT,
						  .sockets = 1,
						  .dies = 1,
						  .cores = 1,
						  .threads = 2 });
	const struct vtb_topo *t = &f.h->model;
	int a = f.plan->vm[0].pcpu[0], b = f.plan->vm[0].pcpu[1];
	int together[2] = { a, b }, apart[2] = { a, other_core(t, a) };
	json_t *j, *smt;

	cr_assert_eq(vtb_topo_pu_by_os(t, a)->core, vtb_topo_pu_by_os(t, b)->core,
		     "the plan puts the pair on one core");
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(vtb_placement_add(f.p, together), 0);
		cr_assert_eq(vtb_placement_add(f.p, apart), 0);
	}
	j = summary(f.p);
	smt = json_object_get(j, "smt_pairs");
	cr_assert_eq(num(smt, "n"), 1);
	cr_assert_eq(num(smt, "split_core"), 0.5);
	cr_assert_eq(num(smt, "split_llc"), 0.0);
	cr_assert_eq(num(smt, "split_node"), 0.0);
	cr_assert_eq(num(vcpu(j, 1), "off_planned"), 0.5);
	json_decref(j);
	release(&f);
}

Test(placement, llc_group_across_packages_splits_llc_and_node)
{
	struct fx f = make("pack:2 numa:1 l3:1 core:2 pu:1",
			   (struct vtb_plan_req){ .vcpus = 2,
						  .pinning = VTB_PIN_STRICT,
						  .topology = VTB_VTOPO_CORES,
						  .numa = false });
	const struct vtb_topo *t = &f.h->model;
	int a = f.plan->vm[0].pcpu[0], b = f.plan->vm[0].pcpu[1], far = -1;
	json_t *j, *llc, *nodes;

	for (size_t i = 0; i < t->n_online; i++)
		if (t->pus[i].node != vtb_topo_pu_by_os(t, a)->node)
			far = t->pus[i].os;
	cr_assert_geq(far, 0);
	for (int i = 0; i < 4; i++) {
		int home[2] = { a, b }, away[2] = { a, far };

		cr_assert_eq(vtb_placement_add(f.p, i % 2 ? away : home), 0);
	}
	j = summary(f.p);
	llc = json_object_get(j, "llc_groups");
	nodes = json_object_get(j, "nodes");
	cr_assert_eq(num(llc, "n"), 1);
	cr_assert_eq(num(llc, "split_llc"), 0.5);
	cr_assert_eq(num(llc, "split_node"), 0.5);
	cr_assert_null(json_object_get(llc, "split_core"), "an LLC group has no core split");
	cr_assert_eq(num(nodes, "split_node"), 0.5);
	json_decref(j);
	release(&f);
}

Test(placement, pinning_none_plans_the_assigned_pcpu)
{
	struct fx f = make("pack:1 core:4 pu:1",
			   (struct vtb_plan_req){ .vcpus = 2,
						  .pinning = VTB_PIN_NONE,
						  .topology = VTB_VTOPO_FLAT });
	int a = f.plan->vm[0].pcpu[0], b = f.plan->vm[0].pcpu[1];
	int s[2] = { b, a };
	char want[16];
	json_t *j;

	cr_assert_null(f.plan->vm[0].pins);
	cr_assert_eq(vtb_placement_add(f.p, s), 0);
	j = summary(f.p);
	snprintf(want, sizeof(want), "%d", a);
	cr_assert_str_eq(json_string_value(json_object_get(vcpu(j, 0), "planned")), want);
	cr_assert_eq(num(vcpu(j, 0), "off_planned"), 1.0);
	cr_assert_eq(num(j, "off_planned_max"), 1.0);
	json_decref(j);
	release(&f);
}

Test(placement, unknown_cpus_are_off_but_make_no_observation)
{
	struct fx f = make("pack:1 l3:1 core:2 pu:2",
			   (struct vtb_plan_req){ .vcpus = 2,
						  .pinning = VTB_PIN_STRICT,
						  .topology = VTB_VTOPO_EXPLICIT,
						  .sockets = 1,
						  .dies = 1,
						  .cores = 1,
						  .threads = 2 });
	int a = f.plan->vm[0].pcpu[0], b = f.plan->vm[0].pcpu[1];
	int s1[2] = { a, 99 }, s2[2] = { -1, -1 }, s3[2] = { a, b }, s4[2] = { -1, b };
	json_t *j, *smt;

	cr_assert_eq(vtb_placement_add(f.p, s1), 0);
	cr_assert_eq(vtb_placement_add(f.p, s2), 0); /* nothing known: not a sample */
	cr_assert_eq(vtb_placement_add(f.p, s3), 0);
	cr_assert_eq(vtb_placement_add(f.p, s4), 0);
	j = summary(f.p);
	cr_assert_eq(num(j, "samples"), 3);
	cr_assert_eq(num(vcpu(j, 0), "samples"), 2);
	cr_assert_eq(num(vcpu(j, 1), "samples"), 3);
	cr_assert_float_eq(num(vcpu(j, 1), "off_planned"), 1.0 / 3, 1e-6);
	smt = json_object_get(j, "smt_pairs");
	cr_assert_eq(num(smt, "split_core"), 0.0, "only the fully known sample observes");
	json_decref(j);
	release(&f);
}

Test(placement, no_samples_give_nulls)
{
	struct fx f = make("pack:1 core:2 pu:1",
			   (struct vtb_plan_req){ .vcpus = 2,
						  .pinning = VTB_PIN_STRICT,
						  .topology = VTB_VTOPO_CORES });
	json_t *j = summary(f.p);

	cr_assert_eq(num(j, "samples"), 0);
	cr_assert(json_is_null(json_object_get(vcpu(j, 0), "off_planned")));
	cr_assert(json_is_null(json_object_get(j, "off_planned_max")));
	cr_assert(json_is_null(json_object_get(json_object_get(j, "nodes"), "split_node")));
	cr_assert_str_eq(json_string_value(json_object_get(vcpu(j, 0), "cpus_seen")), "");
	json_decref(j);
	release(&f);
}

Test(placement, counters_tids_source_and_live_pins)
{
	struct fx f = make("pack:1 core:2 pu:1",
			   (struct vtb_plan_req){ .vcpus = 2,
						  .pinning = VTB_PIN_STRICT,
						  .topology = VTB_VTOPO_CORES });
	const char *pins[] = { "0", "1" };
	json_t *j;

	vtb_placement_set_source(f.p, "libvirt");
	vtb_placement_set_tid(f.p, 0, 4243);
	vtb_placement_counters(f.p, 0, 5, 1000);
	vtb_placement_counters(f.p, 0, 6, 1500);
	vtb_placement_counters(f.p, 0, 9, 4000);
	vtb_placement_counters(f.p, 1, 3, 10); /* one reading: no interval */
	cr_assert_eq(vtb_placement_set_live_pins(f.p, pins, 2), 0);
	j = summary(f.p);
	cr_assert_str_eq(json_string_value(json_object_get(j, "source")), "libvirt");
	cr_assert_eq(num(vcpu(j, 0), "tid"), 4243);
	cr_assert_eq(num(vcpu(j, 0), "migrations"), 4);
	cr_assert_eq(num(vcpu(j, 0), "run_delay_ns"), 3000);
	cr_assert(json_is_null(json_object_get(vcpu(j, 1), "migrations")));
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "live_pins"), 1)),
			 "1");
	json_decref(j);
	release(&f);
}

Test(placement, without_plan_or_model)
{
	struct vtb_placement *p = NULL;
	int s[1] = { 3 };
	json_t *j;

	cr_assert_eq(vtb_placement_new(NULL, 0, NULL, 1, 250000, &p), 0);
	cr_assert_eq(vtb_placement_add(p, s), 0);
	j = summary(p);
	cr_assert_float_eq(num(j, "interval_ms"), 0.25, 1e-9);
	cr_assert(json_is_null(json_object_get(vcpu(j, 0), "planned")));
	cr_assert(json_is_null(json_object_get(vcpu(j, 0), "off_planned")));
	cr_assert(json_is_null(json_object_get(j, "smt_pairs")));
	cr_assert(json_is_null(json_object_get(j, "nodes")));
	cr_assert_str_eq(json_string_value(json_object_get(vcpu(j, 0), "cpus_seen")), "3");
	json_decref(j);
	vtb_placement_free(p);
}

Test(placement, refuses_a_vcpu_count_unlike_the_plan)
{
	struct fx f = make("pack:1 core:2 pu:1",
			   (struct vtb_plan_req){ .vcpus = 2,
						  .pinning = VTB_PIN_STRICT,
						  .topology = VTB_VTOPO_CORES });
	struct vtb_placement *p = NULL;

	cr_assert_eq(vtb_placement_new(f.plan, 0, &f.h->model, 3, 1, &p), -1);
	cr_assert(strstr(vtb_errmsg(), "2 vCPUs"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_placement_new(f.plan, 1, &f.h->model, 2, 1, &p), -1);
	release(&f);
}

Test(placement, claims_json_keeps_one_vm)
{
	struct fx f = make("pack:1 core:4 pu:1",
			   (struct vtb_plan_req){ .vcpus = 2,
						  .vms = 2,
						  .pinning = VTB_PIN_STRICT,
						  .topology = VTB_VTOPO_CORES });
	char *text = vtb_placement_claims_json(f.plan, 1);
	json_t *a, *c;
	size_t i, n = 0;

	cr_assert_not_null(text);
	a = json_loads(text, 0, NULL);
	cr_assert(json_is_array(a), "%s", text);
	cr_assert_gt(json_array_size(a), 0);
	json_array_foreach(a, i, c)
	{
		cr_assert_eq(json_integer_value(json_object_get(c, "vm")), 1, "%s", text);
		cr_assert_not_null(json_object_get(c, "kind"));
		cr_assert_not_null(json_object_get(c, "state"));
		cr_assert_str_eq(json_string_value(json_object_get(c, "vcpus")), "0-1");
	}
	for (i = 0; i < f.plan->n_claims; i++)
		n += f.plan->claims[i].vm == 1;
	cr_assert_eq(json_array_size(a), n);
	json_decref(a);
	free(text);
	release(&f);
}
