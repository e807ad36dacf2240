/* SPDX-License-Identifier: MIT */
/*
 * Memory feasibility at matrix resolution (harness/plan/memfit.c) on described
 * hosts: membw's size = auto is 4 x LLC where it fits and else the largest
 * size that fits the guest, the same for a VM configuration and its
 * baseline; a cell that cannot fit (in a guest, or on the host nodes a
 * baseline is bound to) makes its configuration not runnable with the
 * figures and the key to change; the guest reserve model stays above what
 * was measured.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/matrix/conf.h"
#include "../../harness/plan/cfgplan.h"
#include "../../harness/host/hosttopo.h"
#include "../../harness/plan/memfit.h"

#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

static struct vtb_hosttopo *H;
static struct vtb_matrix *M;

static void teardown(void)
{
	vtb_matrix_free(M);
	vtb_hosttopo_free(H);
	M = NULL;
	H = NULL;
}

TestSuite(memfit, .fini = teardown);

static void plan(const char *host, const char *text)
{
	cr_assert_eq(vtb_hosttopo_load(host, &H), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_matrix_parse("t.conf", text, strlen(text), &H->ctx, &M), 0, "%s",
		     vtb_errmsg());
}

static const struct vtb_config *config(const char *label_prefix)
{
	for (size_t i = 0; i < M->n_configs; i++)
		if (!strncmp(M->configs[i].label, label_prefix, strlen(label_prefix)))
			return &M->configs[i];
	cr_assert_fail("no configuration '%s...'", label_prefix);
	return NULL;
}

static const struct vtb_cell *cell(const struct vtb_config *c, const char *name)
{
	for (size_t i = 0; i < c->n_cells; i++)
		if (!strcmp(c->cells[i].name, name))
			return &c->cells[i];
	cr_assert_fail("no cell '%s' in '%s'", name, c->label);
	return NULL;
}

static uint64_t resolved_u64(const struct vtb_cell *x, const char *key)
{
	const char *v = vtb_params_get(&x->resolved, key);

	cr_assert_not_null(v, "no resolved %s", key);
	return strtoull(v, NULL, 10);
}

/* 508 MiB of L3 per core (as some virtual CPUs report), 32 GiB nodes */
#define HUGE_L3 "pack:1 [numa(memory=32GiB)] l3:4(size=508MiB) core:1 pu:1"

Test(memfit, guest_reserve_stays_above_the_measurements)
{
	/* memory, vCPUs, memory - MemAvailable measured (MiB): docs/guest-runs.md */
	static const struct {
		uint64_t mem_mib;
		long vcpus;
		double measured_mib;
	} m[] = {
		{ 160, 1, 71.7 },     { 512, 1, 82.9 },	    { 1024, 2, 165.0 },
		{ 2048, 2, 187.0 },   { 4096, 2, 332.4 },   { 8192, 2, 423.5 },
		{ 16384, 2, 602.7 },  { 1024, 16, 188.1 },  { 4096, 16, 353.6 },
		{ 16384, 16, 626.6 },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		double r = (double)vtb_guest_reserve(m[i].mem_mib * MiB, m[i].vcpus) / MiB;

		cr_assert_geq(r, m[i].measured_mib + 30, "%llu MiB, %ld vCPUs: %.1f MiB modelled",
			      (unsigned long long)m[i].mem_mib, m[i].vcpus, r);
	}
	/* and grows with memory and vCPUs */
	cr_assert_gt(vtb_guest_reserve(64 * GiB, 2), vtb_guest_reserve(16 * GiB, 2));
	cr_assert_gt(vtb_guest_reserve(16 * GiB, 64), vtb_guest_reserve(16 * GiB, 2));
}

/* 4 x 1016 MiB per array does not fit a 1 GiB guest: the largest size
 * that does, for the VM and for its baseline, and a note that says so */
Test(memfit, auto_size_is_cut_to_fit_the_guest_and_its_baseline_matches)
{
	const struct vtb_config *vm, *base;
	const struct vtb_cell *xv, *xb;
	uint64_t avail = 1 * GiB - vtb_guest_reserve(1 * GiB, 2), size;

	plan(HUGE_L3, "[global]\nhousekeeping = none\n[baseline]\nvm = yes\n"
		      "[vm]\nvcpus = 2\ntopology = cores\npinning = strict\nmemory = 1G\n"
		      "[workload stream]\ntype = membw\n");
	vm = config("vm vcpus=2");
	base = config("baseline cpus=2");
	cr_assert(vm->runnable, "%s", vm->why_not);
	cr_assert(base->runnable, "%s", base->why_not);
	xv = cell(vm, "stream");
	xb = cell(base, "stream");
	size = resolved_u64(xv, "size");
	cr_assert_str_eq(vtb_params_get(&xv->params, "size"), "auto", "the key keeps auto");
	cr_assert_eq(resolved_u64(xb, "size"), size, "baseline %s, VM %s",
		     vtb_params_get(&xb->resolved, "size"), vtb_params_get(&xv->resolved, "size"));
	cr_assert_eq(resolved_u64(xv, "llc"), 2 * 508 * MiB);
	cr_assert_eq(size % MiB, 0);
	cr_assert_lt(3 * size, avail / 100 * 80, "3 x %llu does not fit %llu",
		     (unsigned long long)size, (unsigned long long)avail);
	cr_assert_geq(3 * (size + MiB), avail / 100 * 80, "%llu is not the largest",
		      (unsigned long long)size);
	cr_assert_not_null(xv->note);
	cr_assert(strstr(xv->note, "STREAM's 4 x LLC"), "%s", xv->note);
	cr_assert(strstr(xv->note, "memory = 1GiB"), "%s", xv->note);
	cr_assert_not_null(xb->note, "the baseline's cell says it too");
}

/* where 4 x LLC fits, it is the size, and nothing is noted */
Test(memfit, auto_size_is_four_llc_where_it_fits)
{
	const struct vtb_cell *x;

	plan("pack:1 [numa(memory=32GiB)] l3:1(size=16MiB) core:4 pu:2",
	     "[global]\nhousekeeping = none\n[baseline]\nvm = yes\n"
	     "[vm]\nvcpus = 2\npinning = strict\nmemory = 2G\n"
	     "[workload stream]\ntype = membw\n");
	x = cell(config("vm vcpus=2"), "stream");
	cr_assert_eq(resolved_u64(x, "size"), 64 * MiB);
	cr_assert_null(x->note, "%s", x->note);
	cr_assert_eq(resolved_u64(cell(config("baseline cpus=2"), "stream"), "size"), 64 * MiB);
}

/* the memory axis: VM configurations on the same pCPUs share one
 * baseline, so every one runs the size the smallest guest fits, and the
 * memory axis compares the same work */
Test(memfit, configurations_sharing_a_baseline_share_the_size)
{
	uint64_t a, b, c;

	plan(HUGE_L3, "[global]\nhousekeeping = none\n[baseline]\nvm = yes\n"
		      "[vm]\nvcpus = 2\npinning = strict\nmemory = 1G, 4G\n"
		      "[workload stream]\ntype = membw\n");
	a = resolved_u64(cell(config("vm vcpus=2 topology=flat pinning=strict memory=1G"), "stream"),
			 "size");
	b = resolved_u64(cell(config("vm vcpus=2 topology=flat pinning=strict memory=4G"), "stream"),
			 "size");
	c = resolved_u64(cell(config("baseline cpus=2"), "stream"), "size");
	cr_assert_eq(a, b);
	cr_assert_eq(a, c);
}

/* an explicit size that cannot fit the guest: not runnable, with the
 * need, the memory and the keys to change; never found out by a boot */
Test(memfit, explicit_size_beyond_the_guest_is_not_runnable_with_figures)
{
	const struct vtb_config *vm, *base;

	plan("pack:1 [numa(memory=32GiB)] l3:1(size=16MiB) core:4 pu:2",
	     "[global]\nhousekeeping = none\n[baseline]\nvm = yes\n"
	     "[vm]\nvcpus = 2\npinning = strict\nmemory = 1G\n"
	     "[workload big]\ntype = membw\nsize = 1G\n");
	vm = config("vm vcpus=2");
	cr_assert_not(vm->runnable);
	cr_assert(strstr(vm->why_not, "[workload big] (membw) needs about 3GiB"), "%s",
		  vm->why_not);
	cr_assert(strstr(vm->why_not, "memory = 1GiB"), "%s", vm->why_not);
	cr_assert(strstr(vm->why_not, "raise [vm] memory or lower size"), "%s", vm->why_not);
	/* 3 GiB fit the host node: the baseline runs */
	base = config("baseline cpus=2");
	cr_assert(base->runnable, "%s", base->why_not);
}

/* a baseline bound to 2 GiB nodes cannot hold 3 x 1.5 GiB arrays */
Test(memfit, baseline_beyond_its_host_nodes_is_not_runnable_with_figures)
{
	const struct vtb_config *b;

	plan("pack:1 numa:4(memory=2GiB) l3:1(size=16MiB) core:2 pu:2",
	     "[baseline]\ncpus = 2, 8\n[workload big]\ntype = membw\nsize = 1536M\n");
	b = config("baseline cpus=2");
	cr_assert_not(b->runnable);
	cr_assert(strstr(b->why_not, "host node 0 (2GiB)"), "%s", b->why_not);
	cr_assert(strstr(b->why_not, "[baseline] cpus or cpuset"), "%s", b->why_not);
	/* 8 CPUs span 2 nodes of 4 CPUs: 4 GiB, still short of 4.5 / 80% */
	b = config("baseline cpus=8");
	cr_assert_not(b->runnable);
	cr_assert(strstr(b->why_not, "host nodes 0-1 (4GiB)"), "%s", b->why_not);
}

/* wakeup's workers x footprint and messaging's tasks are checked too */
Test(memfit, wakeup_and_messaging_needs_are_checked)
{
	const struct vtb_config *vm;

	plan("pack:1 [numa(memory=32GiB)] l3:1(size=16MiB) core:4 pu:2",
	     "[global]\nhousekeeping = none\n"
	     "[vm]\nvcpus = 4\nmemory = 1G\n"
	     "[workload w]\ntype = wakeup\nthreads = 64\nfootprint = 65536\n"
	     "[workload h]\ntype = messaging\ngroups = 1000\n");
	vm = config("vm vcpus=4");
	cr_assert_not(vm->runnable);
	cr_assert(strstr(vm->why_not, "[workload w] (wakeup) needs about"), "%s", vm->why_not);
	cr_assert(strstr(vm->why_not, "footprint"), "%s", vm->why_not);
	cr_assert(strstr(vm->why_not, "[workload h] (messaging) needs about"), "%s", vm->why_not);
}

Test(memfit, guest_too_small_for_its_kernel_is_not_runnable)
{
	const struct vtb_config *vm;

	plan("pack:1 l3:1(size=16MiB) core:4 pu:2",
	     "[global]\nhousekeeping = none\n[vm]\nvcpus = 2\nmemory = 128M\n"
	     "[workload t]\ntype = timer\n");
	vm = config("vm vcpus=2");
	cr_assert_not(vm->runnable);
	cr_assert(strstr(vm->why_not, "memory = 128MiB leaves the workloads no room"), "%s",
		  vm->why_not);
}

/* no cache information: size = auto stays for the agent, said so */
Test(memfit, without_llc_sizes_auto_is_left_to_the_agent_with_a_note)
{
	const struct vtb_cell *x;

	plan("pack:1 [numa(memory=32GiB)] core:4 pu:2",
	     "[global]\nhousekeeping = none\n[baseline]\nvm = yes\n"
	     "[vm]\nvcpus = 2\npinning = strict\nmemory = 1G\n"
	     "[workload stream]\ntype = membw\n");
	x = cell(config("vm vcpus=2"), "stream");
	cr_assert(config("vm vcpus=2")->runnable);
	cr_assert_str_eq(vtb_params_get(&x->resolved, "size"), "auto");
	cr_assert_not_null(x->note);
	cr_assert(strstr(x->note, "no LLC size"), "%s", x->note);
}

/* side by side: each guest sees one VM's share, like its baseline */
Test(memfit, side_by_side_guests_use_one_vms_llc)
{
	const struct vtb_config *vm;
	const struct vtb_cell *x;

	plan("pack:1 [numa(memory=64GiB)] l3:4(size=8MiB) core:2 pu:1",
	     "[global]\nhousekeeping = none\n[baseline]\nvm = yes\n"
	     "[vm]\nvcpus = 2\npinning = strict\nvms = 2\nmemory = 2G\n"
	     "[workload stream]\ntype = membw\n");
	vm = config("vm vcpus=2");
	x = cell(vm, "stream");
	cr_assert_eq(resolved_u64(x, "llc"), 8 * MiB);
	cr_assert_eq(resolved_u64(x, "size"), 32 * MiB);
	for (size_t i = 0; i < M->n_configs; i++)
		if (M->configs[i].kind == VTB_CONFIG_BASELINE &&
		    !strncmp(M->configs[i].label, "baseline cpus=2 ", 16))
			cr_assert_eq(resolved_u64(cell(&M->configs[i], "stream"), "size"), 32 * MiB);
}

/* a guest too small to run does not cut the arrays of the others */
Test(memfit, a_guest_too_small_to_run_does_not_shrink_the_others)
{
	const struct vtb_config *small;

	plan("pack:1 [numa(memory=32GiB)] l3:1(size=16MiB) core:4 pu:2",
	     "[global]\nhousekeeping = none\n[baseline]\nvm = yes\n"
	     "[vm]\nvcpus = 2\npinning = strict\nmemory = 128M, 2G\n"
	     "[workload stream]\ntype = membw\n");
	small = config("vm vcpus=2 topology=flat pinning=strict memory=128M");
	cr_assert_not(small->runnable);
	cr_assert_eq(resolved_u64(cell(config("vm vcpus=2 topology=flat pinning=strict memory=2G"),
				       "stream"),
			      "size"),
		     64 * MiB);
	cr_assert_eq(resolved_u64(cell(config("baseline cpus=2"), "stream"), "size"), 64 * MiB);
}
