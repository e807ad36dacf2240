/* SPDX-License-Identifier: MIT */
/*
 * matrix.conf: the reader, validation, expansion, keys and boot orders,
 * against a made-up host of 8 CPUs in 2 nodes, one 32 MiB LLC per 4 CPUs.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../harness/matrix/conf.h"
#include "../../harness/plan/cfgplan.h"
#include "../../harness/host/hosttopo.h"
#include "../../harness/boot/domspec.h"
#include "../../harness/plan/plan.h"
#include "../../common/vtbutil.h"

static const int compact8[] = { 0, 1, 2, 3, 4, 5, 6, 7 };

static int fake_llc(const struct vtb_host_ctx *h, const struct vtb_cpuset *cpus, uint64_t *out)
{
	bool llc[2] = { false, false };
	size_t i;

	(void)h;
	*out = 0;
	for (i = 0; i < cpus->n; i++)
		llc[cpus->cpus[i] / 4] = true;
	*out = (uint64_t)(llc[0] + llc[1]) * (32u << 20);
	return 0;
}

static char *fake_mems(const struct vtb_host_ctx *h, const struct vtb_cpuset *cpus)
{
	bool n0 = false, n1 = false;
	size_t i;

	(void)h;
	for (i = 0; i < cpus->n; i++) {
		n0 |= cpus->cpus[i] < 4;
		n1 |= cpus->cpus[i] >= 4;
	}
	return strdup(n0 && n1 ? "0-1" : n1 ? "1" : "0");
}

static const struct vtb_host_ctx host = {
	.host_cpus = 8,
	.host_nodes = 2,
	.host_llcs = 2,
	.compact = compact8,
	.n_compact = 8,
	.llc_bytes = fake_llc,
	.mems_of = fake_mems,
};

static struct vtb_matrix *ok(const char *text)
{
	struct vtb_matrix *m = NULL;
	int r = vtb_matrix_parse("t.conf", text, strlen(text), &host, &m);

	cr_assert_eq(r, 0, "unexpected error: %s", vtb_errmsg());
	cr_assert_not_null(m);
	return m;
}

static void bad_len(const char *text, size_t len, const char *expect)
{
	struct vtb_matrix *m = (struct vtb_matrix *)1;
	int r = vtb_matrix_parse("t.conf", text, len, &host, &m);

	cr_assert_eq(r, -1, "accepted, expected: %s", expect);
	cr_assert_null(m);
	cr_assert_str_eq(vtb_errmsg(), expect);
}

static void bad(const char *text, const char *expect)
{
	bad_len(text, strlen(text), expect);
}

#define WL "[workload stream]\ntype = membw\n"
#define NOT_UTF8                                                                       \
	"not UTF-8 text (a byte that is not UTF-8, a surrogate or a code point above " \
	"U+10FFFF)"

static const struct vtb_config *config(const struct vtb_matrix *m, const char *label)
{
	size_t i;

	for (i = 0; i < m->n_configs; i++)
		if (!strcmp(m->configs[i].label, label))
			return &m->configs[i];
	cr_assert_fail("no configuration '%s'", label);
	return NULL;
}

static const struct vtb_cell *cell(const struct vtb_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n_cells; i++)
		if (!strcmp(c->cells[i].name, name))
			return &c->cells[i];
	cr_assert_fail("no cell '%s' in '%s'", name, c->label);
	return NULL;
}

/* ------------------------------------------------------------ basics */

Test(conf, minimal_matrix_defaults)
{
	struct vtb_matrix *m = ok(WL);
	const struct vtb_config *c;
	const struct vtb_cell *x;

	cr_assert_str_eq(m->path, "t.conf");
	cr_assert_str_eq(m->name, "t");
	cr_assert_eq(m->reps, 3);
	cr_assert_eq(m->order, VTB_ORDER_INTERLEAVE);
	cr_assert_eq(m->timeout_ns, 600000000000ULL);
	cr_assert_eq(m->placement_interval_ns, 50000000ULL);
	cr_assert_str_eq(m->db, "results.db");
	cr_assert_str_eq(m->uri, "qemu:///system");
	cr_assert_null(m->kernel);
	cr_assert_eq(strlen(m->digest), 64);
	cr_assert_eq(m->n_configs, 1);
	c = &m->configs[0];
	cr_assert_str_eq(c->label, "baseline cpus=8");
	cr_assert_eq(c->kind, VTB_CONFIG_BASELINE);
	cr_assert(c->runnable);
	cr_assert_eq(c->cpus.n, 8);
	cr_assert_str_eq(c->mems, "0-1");
	cr_assert_str_eq(vtb_params_get(&c->params, "cpus"), "8");
	cr_assert_str_eq(vtb_params_get(&c->params, "confine"), "affinity");
	cr_assert_null(vtb_params_get(&c->params, "cpuset"));
	cr_assert_str_eq(c->params_json, "{\"confine\":\"affinity\",\"cpus\":\"8\"}");
	cr_assert_eq(strlen(c->key), 16);
	cr_assert_eq(c->n_cells, 1);
	x = &c->cells[0];
	cr_assert_str_eq(x->name, "stream");
	cr_assert_str_eq(x->workload, "membw");
	cr_assert_str_eq(vtb_params_get(&x->params, "iterations"), "10");
	cr_assert_str_eq(vtb_params_get(&x->params, "nt"), "no");
	cr_assert_str_eq(vtb_params_get(&x->params, "size"), "auto");
	cr_assert_str_eq(vtb_params_get(&x->params, "threads"), "auto");
	cr_assert_str_eq(vtb_params_get(&x->params, "llc"), "auto");
	cr_assert_str_eq(vtb_params_get(&x->resolved, "llc"), "67108864");
	/* size = auto resolved by the harness too: 4 x llc, the same bytes
	 * wherever the cell runs */
	cr_assert_str_eq(vtb_params_get(&x->resolved, "size"), "268435456");
	cr_assert_not_null(strstr(x->params_json, "\"llc\":\"auto\""));
	cr_assert_not_null(strstr(x->resolved_json, "\"llc\":\"67108864\""));
	vtb_matrix_free(m);
}

Test(conf, global_section)
{
	struct vtb_matrix *m = ok("[global]\n"
				  "name = nightly\n"
				  "reps = 10\n"
				  "order = random:42\n"
				  "timeout = 90s\n"
				  "db = /tmp/x.db\n"
				  "uri = qemu:///session\n"
				  "host_topology = pack:2 core:4\n" WL);

	cr_assert_str_eq(m->name, "nightly");
	cr_assert_eq(m->reps, 10);
	cr_assert_eq(m->order, VTB_ORDER_RANDOM);
	cr_assert_eq(m->seed, 42);
	cr_assert_eq(m->timeout_ns, 90000000000ULL);
	cr_assert_str_eq(m->db, "/tmp/x.db");
	cr_assert_str_eq(m->uri, "qemu:///session");
	vtb_matrix_free(m);
	m = ok("[global]\norder = sequential\n" WL);
	cr_assert_eq(m->order, VTB_ORDER_SEQUENTIAL);
	vtb_matrix_free(m);
}

Test(conf, placement_interval)
{
	struct vtb_matrix *m = ok("[global]\nplacement_interval = 0\n" WL);

	cr_assert_eq(m->placement_interval_ns, 0, "0 turns sampling off");
	vtb_matrix_free(m);
	m = ok("[global]\nplacement_interval = 10ms\n" WL);
	cr_assert_eq(m->placement_interval_ns, 10000000ULL);
	vtb_matrix_free(m);
	bad("[global]\nplacement_interval = 500us\n" WL,
	    "t.conf:2: placement_interval below 1ms (0 turns sampling off)");
}

/* reps = auto: the range, the budget and what decides; the boot order
 * counts the cap. */
Test(conf, reps_auto)
{
	struct vtb_matrix *m = ok("[global]\nreps = auto\n" WL);
	struct vtb_bootref *order;
	size_t n;

	cr_assert(m->reps_auto);
	cr_assert_eq(m->min_reps, 3);
	cr_assert_eq(m->max_reps, 20);
	cr_assert_eq(m->reps, 20, "the cap");
	cr_assert_eq(m->budget_ns, 0);
	cr_assert_null(m->auto_axis);
	cr_assert_null(m->auto_baseline);
	cr_assert_eq(vtb_matrix_boot_order(m, &order, &n), 0);
	cr_assert_eq(n, 20 * m->n_configs);
	free(order);
	vtb_matrix_free(m);
	m = ok("[global]\nreps = auto\nmin_reps = 2\nmax_reps = 40\nbudget = 5m\n"
	       "auto_compare = axis:topology\n" WL);
	cr_assert_eq(m->min_reps, 2);
	cr_assert_eq(m->max_reps, 40);
	cr_assert_eq(m->budget_ns, 300000000000ULL);
	cr_assert_str_eq(m->auto_axis, "topology");
	/* --reps N over it, and back */
	vtb_matrix_set_reps(m, 7);
	cr_assert(!m->reps_auto);
	cr_assert_eq(m->reps, 7);
	vtb_matrix_set_reps(m, 0);
	cr_assert(m->reps_auto);
	cr_assert_eq(m->reps, 40);
	vtb_matrix_free(m);
	m = ok("[global]\nreps = auto\nauto_compare = baseline:vm*flat*\n" WL);
	cr_assert_str_eq(m->auto_baseline, "vm*flat*");
	vtb_matrix_free(m);
	/* --reps auto over reps = N: the defaults */
	m = ok("[global]\nreps = 4\n" WL);
	vtb_matrix_set_reps(m, 0);
	cr_assert(m->reps_auto);
	cr_assert_eq(m->min_reps, 3);
	cr_assert_eq(m->max_reps, 20);
	vtb_matrix_free(m);
	bad("[global]\nreps = 4\nmax_reps = 9\n" WL,
	    "t.conf:3: max_reps is for reps = auto (reps is 4, line 2)");
	bad("[global]\nbudget = 1h\n" WL,
	    "t.conf:2: budget is for reps = auto (reps is 3, line 1)");
	bad("[global]\nreps = auto\nmin_reps = 8\nmax_reps = 5\n" WL,
	    "t.conf:3: min_reps 8 is above max_reps 5");
	bad("[global]\nreps = auto\nmax_reps = 2\n" WL, "t.conf:3: min_reps 3 is above max_reps 2");
	bad("[global]\nreps = auto\nmin_reps = 1\n" WL,
	    "t.conf:3: 'min_reps' must be between 2 and 100000, got '1'");
	bad("[global]\nreps = auto\nauto_compare = topology\n" WL,
	    "t.conf:3: auto_compare = topology: expected own, axis:NAME or baseline:SPEC");
	bad("[global]\nreps = auto\norder = sequential\n" WL,
	    "t.conf:3: order = sequential with reps = auto: the stopping rule needs interleaved rounds (interleave or random:SEED)");
	bad("[global]\nreps = often\n" WL,
	    "t.conf:2: invalid integer 'often' for 'reps' (or auto)");
}

Test(conf, baseline_cpus_axis_and_variables)
{
	struct vtb_matrix *m = ok(
		"[baseline]\ncpus = 1, 2, $host_cpus, 50%, $host_nodes, $host_llcs, 1%\n" WL);

	/* 1, 2, 8, 4 (2 and 2 and 1 are duplicates) */
	cr_assert_eq(m->n_configs, 4);
	cr_assert_str_eq(m->configs[0].label, "baseline cpus=1");
	cr_assert_str_eq(m->configs[1].label, "baseline cpus=2");
	cr_assert_str_eq(m->configs[2].label, "baseline cpus=8");
	cr_assert_str_eq(m->configs[3].label, "baseline cpus=4");
	cr_assert_eq(m->configs[0].cpus.n, 1);
	cr_assert_eq(m->configs[0].cpus.cpus[0], 0);
	cr_assert_str_eq(m->configs[0].mems, "0");
	cr_assert_str_eq(vtb_params_get(&m->configs[0].cells[0].resolved, "llc"), "33554432");
	cr_assert_str_eq(vtb_params_get(&m->configs[2].cells[0].resolved, "llc"), "67108864");
	vtb_matrix_free(m);
}

Test(conf, baseline_cpuset_restricts_the_pool)
{
	struct vtb_matrix *m = ok("[baseline]\ncpuset = 4-7\ncpus = 1, 4\nconfine = affinity\n" WL);
	const struct vtb_config *c = config(m, "baseline cpus=4");

	cr_assert_eq(m->n_configs, 2);
	cr_assert_eq(c->cpus.n, 4);
	cr_assert_eq(c->cpus.cpus[0], 4);
	cr_assert_eq(c->cpus.cpus[3], 7);
	cr_assert_str_eq(c->mems, "1");
	cr_assert_str_eq(vtb_params_get(&c->params, "cpuset"), "4-7");
	cr_assert_eq(config(m, "baseline cpus=1")->cpus.cpus[0], 4);
	vtb_matrix_free(m);
	/* default cpus: the whole pool */
	m = ok("[baseline]\ncpuset = 2,3\n" WL);
	cr_assert_str_eq(m->configs[0].label, "baseline cpus=2");
	vtb_matrix_free(m);
}

Test(conf, baseline_disabled_with_vm)
{
	struct vtb_matrix *m = ok("[baseline]\nenabled = no\n[vm]\n" WL);

	cr_assert_eq(m->n_configs, 1);
	cr_assert_eq(m->configs[0].kind, VTB_CONFIG_VM);
	vtb_matrix_free(m);
}

Test(conf, vm_defaults)
{
	struct vtb_matrix *m = ok("[vm]\n" WL);
	const struct vtb_config *c =
		config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=default");

	cr_assert_eq(m->n_configs, 2);
	cr_assert(c->runnable, "%s", c->why_not);
	cr_assert_null(c->why_not);
	cr_assert_str_eq(vtb_params_get(&c->params, "memory"), "1073741824");
	cr_assert_str_eq(vtb_params_get(&c->params, "numa"), "auto");
	cr_assert_str_eq(vtb_params_get(&c->params, "vms"), "1");
	cr_assert_str_eq(vtb_params_get(&c->params, "overcommit"), "no");
	cr_assert_str_eq(vtb_params_get(&c->params, "sched"), "default");
	cr_assert_eq(c->n_cells, 1);
	/* a VM's host LLC is unknown until placement: "auto" stays */
	cr_assert_str_eq(vtb_params_get(&c->cells[0].resolved, "llc"), "auto");
	vtb_matrix_free(m);
	m = ok("[vm]\nenabled = no\n" WL);
	cr_assert_eq(m->n_configs, 1);
	vtb_matrix_free(m);
}

Test(conf, vm_cross_product)
{
	struct vtb_matrix *m = ok("[baseline]\nenabled = no\n"
				  "[vm]\n"
				  "vcpus = 2, 4, $host_nodes\n"
				  "topology = flat, mirror, big\n"
				  "pinning = none, strict\n"
				  "memory = 1G, 512M\n"
				  "numa = off\n"
				  "vms = 2\n"
				  "overcommit = yes\n"
				  "[topology big]\nsockets = 2\ncores = 2\n"
				  "[sched default]\n"
				  "[sched relax]\ncmdline = relax_domain_level=1\n"
				  "debugfs.migration_cost_ns = 0\n"
				  "sysctl.kernel.numa_balancing = 0\n"
				  "cpuset.partition = 1\n" WL);
	const struct vtb_config *c;

	/* vcpus {2,4} x topology 3 x pinning 2 x memory 2 x sched 2 */
	cr_assert_eq(m->n_configs, 2 * 3 * 2 * 2 * 2);
	c = config(
		m,
		"vm vcpus=4 topology=big pinning=strict memory=512M sched=relax vms=2 overcommit");
	cr_assert_str_eq(vtb_params_get(&c->params, "topology.sockets"), "2");
	cr_assert_str_eq(vtb_params_get(&c->params, "sched.cmdline"), "relax_domain_level=1");
	cr_assert_str_eq(vtb_params_get(&c->params, "sched.sysctl.kernel.numa_balancing"), "0");
	cr_assert_str_eq(vtb_params_get(&c->params, "numa"), "off");
	cr_assert_str_eq(vtb_params_get(&c->params, "vms"), "2");
	cr_assert_str_eq(c->why_not, "pinning 'strict' needs a host model to plan on");
	c = config(
		m,
		"vm vcpus=2 topology=mirror pinning=none memory=1G sched=default vms=2 overcommit");
	cr_assert_not(c->runnable);
	cr_assert(strstr(c->why_not, "topology 'mirror' needs a host model"), "%s", c->why_not);
	c = config(m,
		   "vm vcpus=4 topology=big pinning=none memory=1G sched=default vms=2 overcommit");
	cr_assert_str_eq(c->why_not, "vms = 2: side-by-side VMs need a host model to plan on");
	c = config(m,
		   "vm vcpus=2 topology=big pinning=none memory=1G sched=default vms=2 overcommit");
	cr_assert_str_eq(c->why_not, "topology 'big' describes 4 CPUs, not 2");
	vtb_matrix_free(m);
}

/* What the guest boot path runs without a host model: flat, cores or an
 * explicit topology, unpinned, one VM, any sched profile. */
Test(conf, vm_runnable_configurations)
{
	struct vtb_matrix *m = ok("[baseline]\nenabled = no\n"
				  "[vm]\nvcpus = 4\ntopology = flat, cores, big\n"
				  "[topology big]\nsockets = 2\ncores = 2\n"
				  "[sched default]\n"
				  "[sched relax]\ncmdline = relax_domain_level=1\n" WL);
	size_t i, runnable = 0;

	for (i = 0; i < m->n_configs; i++) {
		const struct vtb_config *c = &m->configs[i];

		cr_expect(c->runnable, "%s: %s", c->label, c->why_not ? c->why_not : "");
		runnable += c->runnable;
	}
	cr_expect_eq(runnable, 6);
	vtb_matrix_free(m);
}

Test(conf, vm_sched_defaults_to_every_section)
{
	struct vtb_matrix *m = ok("[vm]\n[sched a]\n[sched b]\ncmdline = x\n" WL);

	cr_assert_eq(m->n_configs, 3);
	config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=a");
	config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=b");
	vtb_matrix_free(m);
}

Test(conf, vm_percent_of_host)
{
	struct vtb_matrix *m = ok(
		"[baseline]\nenabled = no\n[vm]\nvcpus = 50%, 10%, $host_cpus\n" WL);

	cr_assert_eq(m->n_configs, 3);
	config(m, "vm vcpus=4 topology=flat pinning=none memory=1G sched=default");
	config(m, "vm vcpus=1 topology=flat pinning=none memory=1G sched=default");
	config(m, "vm vcpus=8 topology=flat pinning=none memory=1G sched=default");
	vtb_matrix_free(m);
}

Test(conf, workload_axes_and_vcpus_variables)
{
	struct vtb_matrix *m = ok("[baseline]\ncpus = 2, 8\n"
				  "[vm]\nvcpus = 4\n"
				  "[workload stream]\ntype = membw\n"
				  "threads = $vcpus, 50%, 1\n"
				  "nt = yes, no\n"
				  "size = 4M\n");
	const struct vtb_config *c = config(m, "baseline cpus=8");
	const struct vtb_cell *x;

	cr_assert_eq(m->n_configs, 3);
	/* threads {8, 4, 1} x nt {yes, no} */
	cr_assert_eq(c->n_cells, 6);
	x = cell(c, "stream threads=4 nt=no");
	cr_assert_str_eq(vtb_params_get(&x->params, "size"), "4194304");
	cr_assert_str_eq(vtb_params_get(&x->params, "nt"), "no");
	/* baseline cpus=2: threads {2, 1, 1} -> {2, 1} */
	cr_assert_eq(config(m, "baseline cpus=2")->n_cells, 4);
	c = config(m, "vm vcpus=4 topology=flat pinning=none memory=1G sched=default");
	cr_assert_eq(c->n_cells, 6);
	cell(c, "stream threads=2 nt=yes");
	vtb_matrix_free(m);
}

Test(conf, several_workload_sections)
{
	struct vtb_matrix *m = ok(WL "[workload big]\ntype = membw\nsize = 1G\n"
				     "[workload dbg]\ntype = debug\nmode = ok\n");
	const struct vtb_config *c = &m->configs[0];

	cr_assert_eq(c->n_cells, 3);
	cr_assert_str_eq(c->cells[0].name, "stream");
	cr_assert_str_eq(c->cells[1].name, "big");
	cr_assert_str_eq(c->cells[2].name, "dbg");
	cr_assert_str_eq(c->cells[2].workload, "debug");
	cr_assert_str_neq(c->cells[0].key, c->cells[1].key);
	vtb_matrix_free(m);
}

/* ------------------------------------------------------------ syntax */

Test(conf, comments_continuations_and_whitespace)
{
	struct vtb_matrix *m = ok("; a comment\n"
				  "# another\n"
				  "[global]   ; inline after a header\n"
				  "reps = 5 ; inline\n"
				  "name = a;b#c\n"
				  "\n"
				  "[baseline]\r\n"
				  "cpus = 1,\n"
				  "       2, # comment inside a list\n"
				  "\t4\n"
				  "  ; indented comment\n" WL);

	cr_assert_eq(m->reps, 5);
	cr_assert_str_eq(m->name, "a;b#c");
	cr_assert_eq(m->n_configs, 3);
	cr_assert_str_eq(m->configs[2].label, "baseline cpus=4");
	vtb_matrix_free(m);
}

Test(conf, indented_keys_are_keys)
{
	struct vtb_matrix *m = ok("[global]\n  reps = 4\n  name = n\n\t  ; c\n  db = d\n"
				  "[workload s]\n    type = membw\n    nt = yes,\n      no\n");

	cr_assert_eq(m->reps, 4);
	cr_assert_str_eq(m->name, "n");
	cr_assert_str_eq(m->db, "d");
	cr_assert_eq(m->configs[0].n_cells, 2);
	vtb_matrix_free(m);
}

Test(conf, continuation_after_empty_first_line)
{
	struct vtb_matrix *m = ok("[baseline]\ncpus =\n    2,\n    4\n" WL);

	cr_assert_eq(m->n_configs, 2);
	vtb_matrix_free(m);
}

Test(conf, long_value_accepted)
{
	/* inih as built by Debian 12 would cut this 300+-byte line */
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	struct vtb_matrix *m;
	int i;

	vtb_strbuf_addstr(&sb, "[global]\nname = ");
	for (i = 0; i < 300; i++)
		vtb_strbuf_addstr(&sb, "x");
	vtb_strbuf_addstr(&sb, "\n[baseline]\ncpus = 1");
	for (i = 0; i < 60; i++)
		vtb_strbuf_addstr(&sb, ", 1");
	vtb_strbuf_addstr(&sb, ", 2\n" WL);
	m = ok(vtb_strbuf_str(&sb));
	cr_assert_eq(strlen(m->name), 300);
	cr_assert_eq(m->n_configs, 2);
	vtb_matrix_free(m);
	vtb_strbuf_release(&sb);
}

Test(conf, utf8_accepted)
{
	struct vtb_matrix *m = ok("[global]\nname = café ∑ 🙂\n" WL);

	cr_assert_str_eq(m->name, "café ∑ 🙂");
	vtb_matrix_free(m);
}

/* ------------------------------------------------------------ filters */

static const char filt_base[] = "[baseline]\ncpus = 1, 2, 4\n"
				"[workload stream]\ntype = membw\nnt = yes, no\n"
				"[workload dbg]\ntype = debug\n";

static struct vtb_matrix *with_global(const char *global)
{
	char *t = vtb_asprintf("[global]\n%s\n%s", global, filt_base);
	struct vtb_matrix *m = ok(t);

	free(t);
	return m;
}

Test(conf, filter_only_labels)
{
	struct vtb_matrix *m = with_global("only = baseline cpus=1, *cpus=4");

	cr_assert_eq(m->n_configs, 2);
	cr_assert_eq(m->configs[0].n_cells, 3);
	cr_assert_str_eq(m->configs[1].label, "baseline cpus=4");
	vtb_matrix_free(m);
}

Test(conf, filter_only_cells)
{
	struct vtb_matrix *m = with_global("only = */stream nt=yes");

	cr_assert_eq(m->n_configs, 3);
	cr_assert_eq(m->configs[0].n_cells, 1);
	cr_assert_str_eq(m->configs[0].cells[0].name, "stream nt=yes");
	vtb_matrix_free(m);
}

Test(conf, filter_exclude)
{
	struct vtb_matrix *m = with_global("exclude = *cpus=2, */dbg");

	cr_assert_eq(m->n_configs, 2);
	cr_assert_eq(m->configs[0].n_cells, 2);
	cr_assert_eq(m->configs[1].n_cells, 2);
	vtb_matrix_free(m);
	m = with_global("only = *cpus=1\nexclude = *nt=no");
	cr_assert_eq(m->n_configs, 1);
	cr_assert_eq(m->configs[0].n_cells, 2);
	vtb_matrix_free(m);
}

Test(conf, filter_leaving_nothing_is_an_error)
{
	char *t = vtb_asprintf("[global]\nonly = nothing*\n%s", filt_base);

	bad(t, "t.conf:2: 'only' and 'exclude' leave nothing to run");
	free(t);
}

/* ------------------------------------------------------------ keys */

static void keys_of(const char *text, char *ck, char *xk)
{
	struct vtb_matrix *m = ok(text);

	cr_assert_eq(m->n_configs, 1);
	cr_assert_eq(m->configs[0].n_cells, 1);
	strcpy(ck, m->configs[0].key);
	strcpy(xk, m->configs[0].cells[0].key);
	vtb_matrix_free(m);
}

Test(conf, keys_are_stable)
{
	char c1[17], x1[17], c2[17], x2[17];

	keys_of("[global]\nreps = 3\n[baseline]\ncpus = 2\n"
		"[workload stream]\ntype = membw\nsize = 4M\nnt = no\n",
		c1, x1);
	/* reordered sections and keys, whitespace, "4194304" for "4M", renamed
	 * section, global settings that are not parameters */
	keys_of("[workload other]\n  nt=off\n  size   =   4194304\n  type=membw\n\n"
		"[baseline]\ncpus=2 ; two\n[global]\nreps = 7\nname = x\n",
		c2, x2);
	cr_assert_str_eq(c1, c2);
	cr_assert_str_eq(x1, x2);
	cr_assert_eq(strlen(c1), 16);
	cr_assert_eq(strspn(c1, "0123456789abcdef"), 16);
	/* explicit defaults are the same as defaults */
	keys_of("[baseline]\ncpus = 2\nconfine = affinity\n"
		"[workload s]\ntype = membw\nsize = 4M\niterations = 10\nllc = auto\n",
		c2, x2);
	cr_assert_str_eq(c1, c2);
	cr_assert_str_eq(x1, x2);
}

Test(conf, keys_differ_when_a_parameter_differs)
{
	char c1[17], x1[17], c2[17], x2[17];

	keys_of("[baseline]\ncpus = 2\n[workload s]\ntype = membw\nsize = 4M\n", c1, x1);
	keys_of("[baseline]\ncpus = 2\n[workload s]\ntype = membw\nsize = 8M\n", c2, x2);
	cr_assert_str_eq(c1, c2);
	cr_assert_str_neq(x1, x2);
	keys_of("[baseline]\ncpus = 2\n[workload s]\ntype = membw\nsize = 4M\nnt = yes\n", c2, x2);
	cr_assert_str_neq(x1, x2);
	keys_of("[baseline]\ncpus = 4\n[workload s]\ntype = membw\nsize = 4M\n", c2, x2);
	cr_assert_str_neq(c1, c2);
	cr_assert_str_neq(x1, x2);
	keys_of("[baseline]\ncpus = 2\ncpuset = 0-3\n[workload s]\ntype = membw\nsize = 4M\n", c2,
		x2);
	cr_assert_str_neq(c1, c2);
}

Test(conf, vm_keys_follow_sched_profile_contents)
{
	char c1[17], x1[17], c2[17], x2[17];

	keys_of("[baseline]\nenabled = no\n[vm]\n[sched s]\ncmdline = a\n" WL, c1, x1);
	keys_of("[baseline]\nenabled = no\n[vm]\n[sched s]\ncmdline = b\n" WL, c2, x2);
	cr_assert_str_neq(c1, c2);
	cr_assert_str_neq(x1, x2);
}

Test(conf, key_of_is_sha256_prefix)
{
	char k[17];

	vtb_key_of("", k);
	cr_assert_str_eq(k, "e3b0c44298fc1c14");
}

Test(conf, digest_is_sha256_of_text)
{
	const char *t = WL;
	struct vtb_matrix *m = ok(t);

	cr_assert_str_eq(m->text, t);
	cr_assert_eq(strlen(m->digest), 64);
	vtb_matrix_free(m);
}

/* ------------------------------------------------------------ boot order */

/* The VM configuration is not runnable (strict pinning needs a host
 * model, which this made-up host lacks): boot orders hold only runnable
 * ones. */
static const char order_base[] = "[baseline]\ncpus = 1, 2, 4\n[vm]\npinning = strict\n" WL;

static struct vtb_matrix *with_order(const char *order)
{
	char *t = vtb_asprintf("[global]\nreps = 2\norder = %s\n%s", order, order_base);
	struct vtb_matrix *m = ok(t);

	free(t);
	return m;
}

Test(conf, boot_order_interleave)
{
	struct vtb_matrix *m = with_order("interleave");
	struct vtb_bootref *b;
	size_t n;

	cr_assert_eq(m->n_configs, 4);
	cr_assert_eq(vtb_matrix_boot_order(m, &b, &n), 0);
	cr_assert_eq(n, 6, "only runnable configurations");
	cr_assert_eq(b[0].config, 0);
	cr_assert_eq(b[1].config, 1);
	cr_assert_eq(b[2].config, 2);
	cr_assert_eq(b[3].config, 0);
	cr_assert_eq(b[3].rep, 1);
	free(b);
	vtb_matrix_free(m);
}

Test(conf, boot_order_sequential)
{
	struct vtb_matrix *m = with_order("sequential");
	struct vtb_bootref *b;
	size_t n;

	cr_assert_eq(vtb_matrix_boot_order(m, &b, &n), 0);
	cr_assert_eq(n, 6);
	cr_assert_eq(b[0].config, 0);
	cr_assert_eq(b[0].rep, 0);
	cr_assert_eq(b[1].config, 0);
	cr_assert_eq(b[1].rep, 1);
	cr_assert_eq(b[2].config, 1);
	cr_assert_eq(b[5].config, 2);
	free(b);
	vtb_matrix_free(m);
}

Test(conf, boot_order_random_is_a_deterministic_permutation)
{
	struct vtb_matrix *m = with_order("random:42");
	struct vtb_matrix *m2 = with_order("random:42");
	struct vtb_matrix *m3 = with_order("random:43");
	struct vtb_bootref *a, *b, *c;
	size_t na, nb, nc, i, seen[3][2] = { { 0 } };
	bool same3 = true, same_il = true;

	cr_assert_eq(vtb_matrix_boot_order(m, &a, &na), 0);
	cr_assert_eq(vtb_matrix_boot_order(m2, &b, &nb), 0);
	cr_assert_eq(vtb_matrix_boot_order(m3, &c, &nc), 0);
	cr_assert_eq(na, 6);
	cr_assert_eq(nb, 6);
	cr_assert_eq(nc, 6);
	for (i = 0; i < na; i++) {
		cr_assert_eq(a[i].config, b[i].config);
		cr_assert_eq(a[i].rep, b[i].rep);
		cr_assert_lt(a[i].config, 3);
		seen[a[i].config][a[i].rep]++;
		if (a[i].config != c[i].config || a[i].rep != c[i].rep)
			same3 = false;
		if (a[i].config != i % 3 || a[i].rep != (int)(i / 3))
			same_il = false;
	}
	for (i = 0; i < 3; i++)
		cr_assert(seen[i][0] == 1 && seen[i][1] == 1);
	cr_assert_not(same3 && same_il, "seeds 42 and 43 give the interleave order");
	free(a);
	free(b);
	free(c);
	vtb_matrix_free(m);
	vtb_matrix_free(m2);
	vtb_matrix_free(m3);
}

Test(conf, boot_order_with_nothing_runnable)
{
	struct vtb_matrix *m = ok("[baseline]\nenabled = no\n[vm]\npinning = strict\n" WL);
	struct vtb_bootref *b = (struct vtb_bootref *)1;
	size_t n = 9;

	cr_assert_eq(vtb_matrix_boot_order(m, &b, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_null(b);
	vtb_matrix_free(m);
}

/* ------------------------------------------------------------ files and help */

Test(conf, load_from_file)
{
	char path[] = "/tmp/vtb-test-conf-XXXXXX";
	int fd = mkstemp(path);
	struct vtb_matrix *m = NULL;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, WL, strlen(WL)), (ssize_t)strlen(WL));
	close(fd);
	cr_assert_eq(vtb_matrix_load(path, &host, &m), 0, "%s", vtb_errmsg());
	cr_assert_str_eq(m->text, WL);
	vtb_matrix_free(m);
	unlink(path);
}

Test(conf, missing_file)
{
	struct vtb_matrix *m = NULL;

	cr_assert_eq(vtb_matrix_load("/nonexistent/x.conf", &host, &m), -1);
	cr_assert_str_eq(vtb_errmsg(),
			 "cannot open '/nonexistent/x.conf': No such file or directory");
	cr_assert_null(m);
}

Test(conf, help_lists_every_section_and_key)
{
	static const char *const want[] = {
		"[global]",
		"[baseline]",
		"[vm]",
		"[sched NAME]",
		"[topology NAME]",
		"[workload NAME]",
		"reps",
		"interleave|sequential|random:SEED",
		"timeout",
		"host_topology",
		"only",
		"exclude",
		"cpuset",
		"confine",
		"vcpus",
		"topology",
		"pinning",
		"none|strict|core|llc|node",
		"memory",
		"numa",
		"sched",
		"vms",
		"overcommit",
		"cmdline",
		"sysctl.KEY",
		"debugfs.KEY",
		"cpuset.partition",
		"sockets",
		"dies",
		"cores",
		"threads",
		"cells",
		"type = membw",
		"iterations",
		"llc",
		NULL,
	};
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	vtb_conf_help(f);
	fclose(f);
	for (i = 0; want[i]; i++)
		cr_assert_not_null(strstr(buf, want[i]), "help lacks '%s'", want[i]);
	cr_assert_null(strstr(buf, "type = debug"), "hidden workloads are not listed");
	free(buf);
}

/* ------------------------------------------------------------ bad inputs */

Test(conf_bad, unknown_key_with_suggestion)
{
	bad("[global]\nreps = 2\n\n; x\n\n[vm]\nvcpu = 4\n" WL,
	    "t.conf:7: unknown key 'vcpu' in [vm] (did you mean 'vcpus'?)");
	bad("[global]\nzzzzzz = 1\n" WL, "t.conf:2: unknown key 'zzzzzz' in [global]");
}

Test(conf_bad, unknown_workload_key_with_suggestion)
{
	bad(WL "iteration = 5\n",
	    "t.conf:3: unknown key 'iteration' in [workload stream] (membw) (did you mean 'iterations'?)");
}

Test(conf_bad, bad_unit)
{
	bad("[vm]\nmemory = 4Q\n" WL,
	    "t.conf:2: bad size '4Q' for 'memory': bad size unit in '4Q': expected K, M, G or T");
	bad("[global]\ntimeout = 10 years\n" WL,
	    "t.conf:2: bad time '10 years' for 'timeout': bad time unit in '10 years': expected ns, us, ms, s, m or h (a bare number means seconds)");
}

Test(conf_bad, out_of_range)
{
	bad("[global]\nreps = 0\n" WL, "t.conf:2: 'reps' must be between 1 and 100000, got '0'");
	bad(WL "iterations = 1\n", "t.conf:3: 'iterations' must be between 2 and 200, got '1'");
	bad("[global]\norder = shuffle\n" WL,
	    "t.conf:2: invalid value 'shuffle' for 'order': expected one of interleave, sequential, random:SEED");
	bad("[global]\norder = random:x\n" WL,
	    "t.conf:2: bad seed 'x' in 'order': expected an unsigned 64-bit integer");
	/* a zero timeout would time every boot out at once */
	bad("[global]\ntimeout = 0\n" WL,
	    "t.conf:2: 'timeout' must be between 1s and 720h, got '0' (a bare number means seconds)");
	bad("[global]\ntimeout = 3000000h\n" WL,
	    "t.conf:2: bad time '3000000h' for 'timeout': time '3000000h' is too large");
}

Test(conf_bad, two_sections_one_measurement)
{
	bad("[baseline]\ncpus = 1\n[workload a]\ntype = membw\n[workload b]\ntype = membw\n"
	    "iterations = 10\n",
	    "t.conf:5: [workload b] measures the same as 'a' (same type and parameters): remove one");
}

Test(conf_bad, empty_axis_element)
{
	bad("[baseline]\ncpus = 8, , 16\n" WL, "t.conf:2: empty element in the list for 'cpus'");
	bad("[vm]\nvcpus = 2,\n" WL, "t.conf:2: empty element in the list for 'vcpus'");
}

Test(conf_bad, empty_value)
{
	bad("[global]\nreps =\n" WL, "t.conf:2: empty value for 'reps'");
}

Test(conf_bad, duplicate_section)
{
	bad("[vm]\nvcpus = 2\n\n[vm]\n" WL, "t.conf:4: duplicate section [vm], first at t.conf:1");
	bad(WL "[workload stream]\ntype = membw\n",
	    "t.conf:3: duplicate section [workload stream], first at t.conf:1");
}

Test(conf_bad, duplicate_key)
{
	bad("[global]\nreps = 2\nreps = 3\n" WL,
	    "t.conf:3: duplicate key 'reps' in [global], first at t.conf:2");
}

Test(conf_bad, unterminated_header)
{
	bad("[vm\n" WL, "t.conf:1: unterminated section header '[vm'");
	bad("[]\n" WL, "t.conf:1: empty section name '[]'");
	bad("[vm] x\n" WL, "t.conf:1: unexpected text after section header '[vm] x'");
	bad("[workload]\n", "t.conf:1: [workload] needs a name: [workload NAME]");
	bad("[vm x]\n", "t.conf:1: [vm] takes no name");
	bad("[workload a/b]\n",
	    "t.conf:1: bad name 'a/b' in [workload a/b]: use letters, digits, '-', '_' and '.'");
}

Test(conf_bad, binary_garbage)
{
	static const char nul[] = "[global]\nreps = 3\0\n";
	static const char bytes[] = "[global]\nname = \xff\xfe\x01\n";

	bad_len(nul, sizeof(nul) - 1, "t.conf:2: binary data");
	bad(bytes, "t.conf:2: " NOT_UTF8);
	bad("[global]\nname = a\033[1mb\n", "t.conf:2: binary data");
	bad("[global]\nname = \xc3\n", "t.conf:2: " NOT_UTF8);
}

/* Surrogates, code points above U+10FFFF and overlong forms are not
 * UTF-8 (issue 16); the reader let them through. */
Test(conf_bad, utf8_surrogates_and_code_points_above_u10ffff)
{
	bad("[global]\nname = a\xed\xa0\x80"
	    "b\n",
	    "t.conf:2: " NOT_UTF8);
	bad("[global]\nname = \xed\xbf\xbf\n", "t.conf:2: " NOT_UTF8);
	bad("[global]\nname = \xf4\x90\x80\x80\n", "t.conf:2: " NOT_UTF8);
	bad("[global]\nname = \xf7\xbf\xbf\xbf\n", "t.conf:2: " NOT_UTF8);
	bad("[global]\nname = \xe0\x80\xaf\n", "t.conf:2: " NOT_UTF8);
	bad("[global]\nname = \xf0\x80\x80\xaf\n", "t.conf:2: " NOT_UTF8);
	vtb_matrix_free(ok("[global]\nname = \xf4\x8f\xbf\xbf \xed\x9f\xbf caf\xc3\xa9\n" WL));
}

/* strtod reads hex floats: memory = 0x1p30 was 1 GiB (issue 16). */
Test(conf_bad, hex_floats)
{
	bad("[vm]\nmemory = 0x1p30\n" WL,
	    "t.conf:2: bad size '0x1p30' for 'memory': bad size '0x1p30': hexadecimal numbers are not accepted");
	bad("[global]\ntimeout = 0x1p4m\n" WL,
	    "t.conf:2: bad time '0x1p4m' for 'timeout': bad time '0x1p4m': hexadecimal numbers are not accepted");
}

static char *repeat(const char *head, const char *fmt, size_t n)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;

	cr_assert_eq(vtb_strbuf_addstr(&sb, head), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(vtb_strbuf_addf(&sb, fmt, i), 0);
	return vtb_strbuf_detach(&sb);
}

/* Sections and keys were compared pairwise: 40k [sched] sections took
 * 13.6 s, a million most of an hour.  A million is refused at the limit,
 * at once (the timeout only catches a hang; `make bench` prints the
 * figures). */
Test(conf_bad, a_million_sections_are_refused_at_the_limit)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(60);
	char *t = repeat(WL, "[sched s%zu]\n", 1000000);

	bad(t, "t.conf:4098: too many sections (limit 4096)");
	free(t);
}

/* Keys are hashed: a big section costs linear time, a duplicate is still
 * found, and the total is bounded. */
Test(conf_bad, keys_of_big_sections_are_hashed_and_bounded)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(60);
	char *t = repeat("[sched s]\n", "sysctl.kernel.k%zu = 1\n", 50000);
	char *u = vtb_asprintf("%ssysctl.kernel.k7 = 2\n" WL, t);
	char *v = repeat(WL "[sched s]\n", "sysctl.kernel.k%zu = 1\n", 200000);

	bad(u, "t.conf:50002: duplicate key 'sysctl.kernel.k7' in [sched s], first at t.conf:9");
	bad(v, "t.conf:100003: too many keys (limit 100000 in all sections)");
	free(t);
	free(u);
	free(v);
}

/* The text of @n_sect workload sections w0, w1, ... after @head, each
 * an axis of @per values of records (distinct across sections). */
static char *sections(const char *head, size_t n_sect, size_t per)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;

	cr_assert_eq(vtb_strbuf_addstr(&sb, head), 0);
	for (size_t i = 0; i < n_sect; i++) {
		cr_assert_eq(vtb_strbuf_addf(&sb, "[workload w%zu]\ntype = debug\nrecords = ", i),
			     0);
		for (size_t j = 0; j < per; j++)
			cr_assert_eq(vtb_strbuf_addf(&sb, "%s%zu", j ? "," : "", i * per + j), 0);
		cr_assert_eq(vtb_strbuf_addstr(&sb, "\n"), 0);
	}
	return vtb_strbuf_detach(&sb);
}

#define ONE_VM "[baseline]\nenabled = no\n[vm]\nvcpus = 2\n"

/* Cells are counted from the axes before any is made: the limit (100 000)
 * is exact, and the count past it is named with the line of the
 * configuration's section.  (Making them first took 20 s for 100 100; the
 * timeout only catches a hang, under ASan too: `make bench` times it.) */
Test(conf_bad, cells_past_the_limit_are_counted_before_they_are_made)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(120);
	char *t = sections(ONE_VM, 1001, 100), *u = sections(ONE_VM, 1000, 100);
	char *v = sections("[baseline]\nenabled = no\n[vm]\nvcpus = 1, 2\n", 501, 100);
	char *w = sections("[baseline]\ncpus = 1, 2\n", 501, 100);
	struct vtb_matrix *m;

	bad(t, "t.conf:3: matrix too large (100100 cells in 1 configuration, limit 100000)");
	bad(v, "t.conf:3: matrix too large (100200 cells in 2 configurations, limit 100000)");
	bad(w, "t.conf:1: matrix too large (100200 cells in 2 configurations, limit 100000)");
	m = ok(u);
	cr_expect_eq(m->n_configs, 1);
	cr_expect_eq(m->configs[0].n_cells, 100000);
	vtb_matrix_free(m);
	free(t);
	free(u);
	free(v);
	free(w);
}

/* A value that varies with the vCPUs is counted per vCPU count; where
 * the sections' least is past the limit already, "at least". */
Test(conf_bad, cells_that_vary_with_the_vcpus_are_counted_per_vcpu_count)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(120);
	char *t = sections("[baseline]\nenabled = no\n[vm]\nvcpus = 1, 2\n"
			   "[workload v]\ntype = debug\nwork = $vcpus, 1, 2, 3\n",
			   499, 100);
	char *u = sections("[baseline]\nenabled = no\n[vm]\nvcpus = 1, 4\n"
			   "[workload v]\ntype = debug\nwork = $vcpus, 1, 2, 3\n",
			   499, 100);
	char *w = sections("[baseline]\nenabled = no\n[vm]\nvcpus = 1, 2\n"
			   "[workload v]\ntype = debug\nwork = $vcpus, 7\n",
			   500, 100);
	struct vtb_matrix *m;

	/* $vcpus is one of 1, 2, 3 for both: 3 cells each, 99 800 + 6 */
	m = ok(t);
	cr_expect_eq(m->configs[0].n_cells + m->configs[1].n_cells, 99806);
	vtb_matrix_free(m);
	/* 4 vCPUs make a 4th: 99 800 + 3 + 4, still within */
	m = ok(u);
	cr_expect_eq(m->configs[0].n_cells + m->configs[1].n_cells, 99807);
	vtb_matrix_free(m);
	bad(w,
	    "t.conf:3: matrix too large (at least 100002 cells in 2 configurations, limit 100000)");
	free(t);
	free(u);
	free(w);
}

/* only/exclude narrow a product past the limit: the cells kept count. */
Test(conf, a_filter_narrows_a_product_past_the_limit)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(60);
	char *t = sections("[global]\nonly = */w7 *\n" ONE_VM, 1001, 100);
	struct vtb_matrix *m = ok(t);

	cr_expect_eq(m->n_configs, 1);
	cr_expect_eq(m->configs[0].n_cells, 100);
	cr_expect_str_eq(m->configs[0].cells[0].name, "w7 records=700");
	vtb_matrix_free(m);
	free(t);
}

/* Two sections that measure the same are found however far apart
 * (each configuration's cells are indexed by key). */
Test(conf_bad, the_same_measurement_is_found_among_many_sections)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(60);
	char *t = sections(ONE_VM, 300, 100);
	char *u = vtb_asprintf("%s[workload again]\ntype = debug\nrecords = 12345\n", t);

	bad(u, "t.conf:905: [workload again] measures the same as 'w123 records=12345' (same type "
	       "and parameters): remove one");
	free(t);
	free(u);
}

Test(conf_bad, ten_megabyte_line)
{
	size_t n = 10u << 20;
	char *t = malloc(n + 64);
	char expect[128];

	cr_assert_not_null(t);
	strcpy(t, "[global]\nname = ");
	memset(t + 16, 'x', n);
	strcpy(t + 16 + n, "\n");
	snprintf(expect, sizeof(expect), "t.conf:2: line too long (%zu bytes, limit 4096)", n + 7);
	bad(t, expect);
	free(t);
}

Test(conf_bad, value_too_long)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int i;

	vtb_strbuf_addstr(&sb, "[global]\nname = ");
	for (i = 0; i < 2000; i++)
		vtb_strbuf_addstr(&sb, "x");
	vtb_strbuf_addstr(&sb, "\n" WL);
	bad(vtb_strbuf_str(&sb), "t.conf:2: value of 'name' too long (2000 bytes, limit 1024)");
	vtb_strbuf_release(&sb);
	/* continuation lines count too */
	vtb_strbuf_addstr(&sb, "[baseline]\ncpus = 1");
	for (i = 0; i < 400; i++)
		vtb_strbuf_addstr(&sb, "\n  , 1");
	bad(vtb_strbuf_str(&sb), "t.conf:258: value of 'cpus' too long (1025 bytes, limit 1024)");
	vtb_strbuf_release(&sb);
}

Test(conf_bad, key_outside_section)
{
	bad("reps = 3\n" WL, "t.conf:1: key 'reps' outside a section");
	bad("[global]\njust words\n",
	    "t.conf:2: expected 'key = value' or '[section]', got 'just words'");
	bad("[global]\n = 3\n", "t.conf:2: missing key before '='");
}

Test(conf_bad, unknown_section)
{
	bad("[baselin]\n" WL, "t.conf:1: unknown section [baselin] (did you mean [baseline]?)");
	bad("[frobnicate]\n", "t.conf:1: unknown section [frobnicate]");
}

Test(conf_bad, unknown_variable)
{
	bad("[baseline]\ncpus = $host_cpu\n" WL,
	    "t.conf:2: unknown variable '$host_cpu' in 'cpus' (did you mean '$host_cpus'?)");
	bad("[baseline]\ncpus = $vcpus\n" WL,
	    "t.conf:2: '$vcpus' cannot be used in 'cpus' of [baseline]");
	bad(WL "threads = $vcpu\n",
	    "t.conf:3: unknown variable '$vcpu' in 'threads' (did you mean '$vcpus'?)");
	bad("[baseline]\ncpus = x%\n" WL, "t.conf:2: bad percentage 'x%' for 'cpus'");
}

Test(conf_bad, cpus_beyond_host)
{
	bad("[baseline]\ncpus = 2,\n  16\n" WL,
	    "t.conf:2: cpus = 16 but the host has only 8 CPUs available");
	bad("[baseline]\ncpuset = 0-1\ncpus = 8\n" WL,
	    "t.conf:3: cpus = 8 but the host has only 2 CPUs available");
	bad("[vm]\nvcpus = 16\n" WL,
	    "t.conf:2: vcpus = 16 (x1 VMs) but the host has only 8 CPUs (set overcommit = yes)");
}

Test(conf_bad, workload_without_type)
{
	bad("[workload stream]\nsize = 1G\n",
	    "t.conf:1: [workload stream] has no 'type =' (one of the workloads)");
}

Test(conf_bad, unknown_workload_type)
{
	bad("[workload s]\ntype = membww\n",
	    "t.conf:2: unknown workload type 'membww' (did you mean 'membw'? known: membw, timer, "
	    "messaging, c2c, wakeup)");
	bad("[workload s]\ntype = frob\n",
	    "t.conf:2: unknown workload type 'frob' (known: membw, timer, messaging, c2c, wakeup)");
	/* a reference tool's name points at the workload that models it */
	bad("[workload s]\ntype = schbench\n",
	    "t.conf:2: unknown workload type 'schbench' ('wakeup' is the schbench model; known: "
	    "membw, timer, messaging, c2c, wakeup)");
	bad("[workload s]\ntype = hackbench\n",
	    "t.conf:2: unknown workload type 'hackbench' ('messaging' is the hackbench model; "
	    "known: membw, timer, messaging, c2c, wakeup)");
}

Test(conf_bad, no_workload)
{
	bad("[global]\nreps = 2\n", "t.conf:1: no [workload] section: nothing to run");
	bad("", "t.conf:1: no [workload] section: nothing to run");
}

Test(conf_bad, nothing_to_run)
{
	bad("[baseline]\nenabled = no\n" WL,
	    "t.conf:1: nothing to run: [baseline] is disabled and there is no [vm]");
}

Test(conf_bad, unknown_topology_and_sched)
{
	bad("[vm]\ntopology = mirorr\n" WL,
	    "t.conf:2: unknown topology 'mirorr': not a preset (flat, cores, mirror, lie) nor a [topology NAME] (did you mean 'mirror'?)");
	bad("[vm]\nsched = relx\n[sched relax]\n" WL,
	    "t.conf:2: unknown sched profile 'relx' (did you mean 'relax'?)");
	bad("[vm]\npinning = tight\n" WL,
	    "t.conf:2: invalid value 'tight' for 'pinning': expected one of none, strict, core, llc, node");
}

/* [baseline] confinement: affinity or partition; the former name
 * confine still read, never both. */
Test(conf_bad, baseline_confinement)
{
	bad("[baseline]\nconfinement = partitoin\n" WL,
	    "t.conf:2: invalid value 'partitoin' for 'confinement': expected one of affinity, partition (did you mean 'partition'?)");
	bad("[baseline]\nconfine = affinity\nconfinement = partition\n" WL,
	    "t.conf:2: both confine and confinement in [baseline]: keep confinement");
}

/* Typos in enum values, axes included, are file:line errors with the
 * nearest allowed value; so is a [global] housekeeping that no [vm] uses. */
Test(conf_bad, enum_typos_name_the_nearest_value)
{
	bad("[vm]\nnuma = atuo\n" WL,
	    "t.conf:2: invalid value 'atuo' for 'numa': expected one of auto, off (did you mean 'auto'?)");
	bad("[vm]\npinning = strict, strcit\n" WL,
	    "t.conf:2: invalid value 'strcit' for 'pinning': expected one of none, strict, core, llc, node (did you mean 'strict'?)");
	bad("[vm]\nmachine = q53\n" WL,
	    "t.conf:2: invalid value 'q53' for 'machine': expected one of pc, q35 (did you mean 'q35'?)");
	bad("[vm]\ntopology = flat, mirorr\n" WL,
	    "t.conf:2: unknown topology 'mirorr': not a preset (flat, cores, mirror, lie) nor a [topology NAME] (did you mean 'mirror'?)");
	bad("[global]\nhousekeeping = atuo\n" WL,
	    "t.conf:2: housekeeping = atuo: not auto, none or a CPU list (did you mean 'auto'?)");
	bad("[vm]\nhousekeeping = nnoe\n" WL,
	    "t.conf:2: housekeeping = nnoe: not auto, none or a CPU list (did you mean 'none'?)");
}

Test(conf_bad, bad_named_sections)
{
	bad("[topology t]\ncores = 0\n" WL,
	    "t.conf:2: 'cores' must be between 1 and 1024, got '0'");
	bad("[sched s]\nsysctl.a b = 1\n" WL,
	    "t.conf:2: bad key 'sysctl.a b' in [sched s]: path component 'a b' must be letters, digits and '_'");
	bad("[sched s]\ndebugfs.../x = 1\n" WL,
	    "t.conf:2: bad key 'debugfs.../x' in [sched s]: path component '..' must be letters, digits and '_'");
	bad("[sched s]\nsysctl = 1\n" WL,
	    "t.conf:2: unknown key 'sysctl' in [sched s] (did you mean 'sysctl.'?)");
}

Test(conf_bad, bad_bool_and_cpulist)
{
	bad("[baseline]\nenabled = sure\n" WL,
	    "t.conf:2: invalid value 'sure' for 'enabled': expected yes or no");
	cr_assert_eq(strncmp(vtb_errmsg(), "t.conf:2:", 9), 0);
}

Test(conf, byte_order_mark_and_padded_headers_are_accepted)
{
	struct vtb_matrix *m = ok(
		"\xef\xbb\xbf[baseline]\ncpus = 1\n[workload s ]\ntype = membw\n");

	cr_assert_eq(m->n_configs, 1);
	cr_expect_str_eq(m->configs[0].cells[0].name, "s");
	vtb_matrix_free(m);
}

Test(conf_bad, review_findings)
{
	bad("[global]\norder = interleave:5\n" WL,
	    "t.conf:2: invalid value 'interleave:5' for 'order': expected one of interleave, sequential, random:SEED");
	bad("[baseline]\ncpuset = 100-200\n" WL,
	    "t.conf:2: cpuset = 100-200 holds none of the 8 CPUs this host allows");
	bad("[vm]\ntopology = flat\n[topology flat]\nsockets = 2\n" WL,
	    "t.conf:3: [topology flat] would hide the preset 'flat': choose another name");
}

/* ------------------------------------------------------------ with the planner */

static struct vtb_matrix *planned(struct vtb_hosttopo *h, const char *text)
{
	struct vtb_matrix *m = NULL;

	cr_assert_eq(vtb_matrix_parse("t.conf", text, strlen(text), &h->ctx, &m), 0, "%s",
		     vtb_errmsg());
	return m;
}

static const char *planner_err(struct vtb_hosttopo *h, const char *text)
{
	struct vtb_matrix *m = NULL;

	cr_assert_eq(vtb_matrix_parse("t.conf", text, strlen(text), &h->ctx, &m), -1, "%s", text);
	return vtb_errmsg();
}

Test(conf, planner_makes_pinned_and_mirrored_configurations_runnable)
{
	struct vtb_hosttopo *h = NULL;
	struct vtb_matrix *m;
	const struct vtb_config *c;
	size_t i;

	cr_assert_eq(vtb_hosttopo_load("pack:2 numa:4 l3:16 core:4 pu:2", &h), 0);
	m = planned(h, "[baseline]\nenabled = no\n[vm]\nvcpus = 8, 16\n"
		       "topology = flat, cores, mirror, lie, t\npinning = none, strict, core\n"
		       "[topology t]\nsockets = 2\ncores = 4\ncells = 2\n" WL);
	cr_assert_eq(m->n_configs, 2 * 5 * 3);
	for (i = 0; i < m->n_configs; i++) {
		c = &m->configs[i];
		if (strstr(c->label, "vcpus=16 topology=t"))
			continue; /* t describes 8 CPUs */
		cr_assert(c->runnable, "%s: %s", c->label, c->why_not);
		cr_assert_not_null(c->plan_json, "%s", c->label);
		cr_assert(strstr(c->plan_json, "\"claims\""));
		cr_assert(c->cpus.n == 8 || c->cpus.n == 16, "%s", c->label);
		cr_assert_not_null(c->mems);
	}
	c = config(m, "vm vcpus=8 topology=mirror pinning=strict memory=1G sched=default");
	cr_assert_null(strstr(c->plan_json, "\"false\""), "%s", c->plan_json);
	cr_assert_null(strstr(c->plan_json, "\"unbacked\""), "%s", c->plan_json);
	vtb_matrix_free(m);

	m = planned(h, "[baseline]\nenabled = no\n[vm]\nvcpus = 4\nvms = 2\n"
		       "pinning = strict\nhousekeeping = none\n" WL);
	/* side by side: runnable on a host model, disjoint pCPUs */
	cr_assert(m->configs[0].runnable, "%s", m->configs[0].why_not);
	cr_assert_eq(m->configs[0].cpus.n, 8);
	cr_assert_str_eq(vtb_params_get(&m->configs[0].params, "housekeeping"), "none");
	vtb_matrix_free(m);

	cr_assert(
		strstr(planner_err(h, "[vm]\ntopology = clusters\n" WL), "libvirt 9.0 / QEMU 7.2"));
	cr_assert(strstr(planner_err(h, "[vm]\ntopology = t\nvcpus = 4\n"
					"[topology t]\ncores = 2\nthreads = 2\nclusters = 2\n" WL),
			 "libvirt 9.0 / QEMU 7.2"));
	cr_assert(strstr(planner_err(h, "[vm]\ntopology = t\nvcpus = 4\n"
					"[topology t]\ncores = 4\ncells = 3\n" WL),
			 "cells do not divide"));
	/* no regular shape on this host's free pCPUs: a fact of the host, not
	 * an input error, so the configuration is listed as not runnable */
	m = planned(h, "[vm]\ntopology = mirror\nvcpus = 1022\n" WL);
	for (i = 0, c = NULL; i < m->n_configs; i++)
		if (m->configs[i].kind == VTB_CONFIG_VM)
			c = &m->configs[i];
	cr_assert_not_null(c);
	cr_assert_not(c->runnable);
	cr_assert(strstr(c->why_not, "regular shape"), "%s", c->why_not);
	vtb_matrix_free(m);
	cr_assert(strstr(planner_err(h, "[global]\nhousekeeping = 0-1023\n[vm]\nvcpus = 4\n" WL),
			 "no CPU for guests"));
	cr_assert(strstr(planner_err(h, "[vm]\nhousekeeping = zz\n" WL), "housekeeping = zz"));
	vtb_hosttopo_free(h);
}

/* Each planned VM configuration gets a baseline on exactly its pCPUs and
 * memory nodes, one per distinct set, none where the cpus axis has it. */
Test(conf, vm_configurations_get_their_baselines)
{
	struct vtb_hosttopo *h = NULL;
	struct vtb_matrix *m;
	const struct vtb_config *b;
	size_t i, nb = 0;

	cr_assert_eq(vtb_hosttopo_load("pack:2 numa:2 l3:2 core:4 pu:2", &h), 0);
	m = planned(h, "[baseline]\ncpus = 6\n[vm]\nvcpus = 6, 8\n"
		       "topology = flat, mirror\npinning = strict\n" WL);
	for (i = 0; i < m->n_configs; i++)
		nb += m->configs[i].kind == VTB_CONFIG_BASELINE;
	/* cpus=6 is 0-5; flat 6 and mirror 6 are 2-7 (one baseline), flat
	 * 8 is 2-9, mirror 8 is 8-15 (a whole LLC) */
	cr_assert_eq(nb, 4, "%zu baselines", nb);
	b = config(m, "baseline cpus=8 cpuset=8-15");
	cr_assert_str_eq(b->mems, "0");
	cr_assert_str_eq(vtb_params_get(&b->params, "cpuset"), "8-15");
	cr_assert(b->runnable);
	vtb_matrix_free(m);
	m = planned(h, "[baseline]\ncpus = 6\nvm = no\n[vm]\nvcpus = 6\n" WL);
	cr_assert_eq(m->n_configs, 2);
	vtb_matrix_free(m);
	vtb_hosttopo_free(h);
}

/* Memory backing and machine type reach the domain through the plan;
 * at their defaults they stay out of the key. */
Test(conf, memory_backing_and_machine_reach_the_domain)
{
	struct vtb_hosttopo *h = NULL;
	struct vtb_matrix *m;
	const struct vtb_plan *p;
	struct vtb_plan_domstore st;
	struct vtb_domspec d = { 0 };

	cr_assert_eq(vtb_hosttopo_load("pack:1 l3:1 core:4 pu:2", &h), 0);
	m = planned(h, "[vm]\nvcpus = 2\n" WL);
	cr_assert_null(vtb_params_get(&m->configs[1].params, "hugepages"));
	cr_assert_null(vtb_params_get(&m->configs[1].params, "machine"));
	vtb_matrix_free(m);
	m = planned(h, "[baseline]\nenabled = no\n[vm]\nvcpus = 2\nhugepages = yes\nlocked = yes\n"
		       "machine = q35\npinning = strict\n" WL);
	cr_assert_str_eq(vtb_params_get(&m->configs[0].params, "machine"), "q35");
	p = m->configs[0].plan; /* planned once, after the matrix was read */
	cr_assert_not_null(p);
	cr_assert_eq(vtb_plan_domspec(p, 0, &d, &st), 0);
	cr_assert(d.hugepages && d.locked && d.hint_dedicated);
	cr_assert_str_eq(d.machine, "q35");
	cr_assert_not_null(d.emulatorpin);
	vtb_plan_domstore_release(&st);
	vtb_matrix_free(m);
	vtb_hosttopo_free(h);
}

/* Issue 18: the matrix yields typed configurations, and each VM
 * configuration is planned once, after the matrix is read: the plan is
 * carried (c->plan), its JSON is the plan's own. */
Test(conf, each_vm_configuration_is_planned_once_and_typed)
{
	struct vtb_hosttopo *h = NULL;
	struct vtb_matrix *m;
	unsigned long before;
	size_t i, vms = 0;

	cr_assert_eq(vtb_hosttopo_load("pack:1 l3:2 core:4 pu:2", &h), 0);
	before = vtb_plan_calls();
	m = planned(h, "[vm]\nvcpus = 2, 4\ntopology = flat, mirror\npinning = strict\n"
		       "numa = off\n" WL);
	for (i = 0; i < m->n_configs; i++) {
		const struct vtb_config *c = &m->configs[i];
		char *json;

		if (c->kind != VTB_CONFIG_VM)
			continue;
		vms++;
		cr_assert_not_null(c->plan, "%s", c->label);
		cr_expect_eq(c->req.vcpus, strstr(c->label, "vcpus=2 ") ? 2 : 4, "%s", c->label);
		cr_expect_eq(c->req.topology,
			     strstr(c->label, "topology=flat") ? VTB_VTOPO_FLAT : VTB_VTOPO_MIRROR);
		cr_expect_eq(c->req.pinning, VTB_PIN_STRICT);
		cr_expect_eq(c->req.memory_bytes, 1ull << 30); /* the one default */
		cr_expect_eq(c->req.vms, 1);
		cr_expect_not(c->req.numa);
		json = vtb_plan_json(c->plan);
		cr_expect_str_eq(json, c->plan_json);
		free(json);
	}
	cr_assert_eq(vms, 4);
	cr_assert_eq(vtb_plan_calls() - before, vms, "%lu planner calls for %zu configurations",
		     vtb_plan_calls() - before, vms);
	vtb_matrix_free(m);
	vtb_hosttopo_free(h);
}

/* Issue 18: reading a matrix never reaches the planner.  The VM
 * configurations leave conf.c typed and not runnable, with llc = auto
 * and no baselines of their own; the plan layer plans each once, and
 * completing the matrix then resolves llc and adds the VM baselines. */
Test(conf, reading_never_plans_and_completing_follows_the_plans)
{
	static const char text[] = "[baseline]\ncpus = 2\nvm = yes\n[vm]\nvcpus = 4\n"
				   "pinning = strict\n[workload s]\ntype = membw\n";
	struct vtb_hosttopo *h = NULL;
	struct vtb_matrix *m = NULL;
	unsigned long before;
	const struct vtb_config *vm = NULL;
	size_t i, baselines = 0;

	cr_assert_eq(vtb_hosttopo_load("pack:1 l3:2(size=16MiB) core:4 pu:2", &h), 0);
	before = vtb_plan_calls();
	cr_assert_eq(vtb_matrix_read_text("t.conf", text, strlen(text), &h->ctx, &m), 0, "%s",
		     vtb_errmsg());
	cr_assert_eq(vtb_plan_calls(), before, "reading called the planner");
	cr_assert_eq(m->n_configs, 2, "the cpus baseline and the VM, no VM baseline yet");
	vm = &m->configs[1];
	cr_assert_eq(vm->kind, VTB_CONFIG_VM);
	cr_assert_null(vm->plan);
	cr_assert_not(vm->runnable);
	cr_assert_str_eq(vtb_params_get(&vm->cells[0].resolved, "llc"), "auto");
	cr_assert_eq(vtb_matrix_plan(m, &h->ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_plan_calls() - before, 1);
	cr_assert_eq(vtb_matrix_plan(m, &h->ctx), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_plan_calls() - before, 1, "a planned configuration is not planned again");
	cr_assert_eq(vtb_matrix_complete(m, &h->ctx), 0, "%s", vtb_errmsg());
	cr_assert_null(m->src);
	vm = &m->configs[1];
	cr_assert(vm->runnable, "%s", vm->why_not);
	cr_assert_str_neq(vtb_params_get(&vm->cells[0].resolved, "llc"), "auto");
	for (i = 0; i < m->n_configs; i++)
		baselines += m->configs[i].kind == VTB_CONFIG_BASELINE;
	cr_assert_eq(baselines, 2, "the VM's own baseline added on completion");
	vtb_matrix_free(m);
	vtb_hosttopo_free(h);
}

/* ---- guest kernels: [kernel NAME] and [vm] kernel = ---- */

static char kdir[64];

/* A directory with two fake bzImages (the "HdrS" magic at 0x202, no
 * kernel needed to plan), a .config-less one with config-a beside it, and
 * a file that is no kernel. */
static void kernel_files(void)
{
	static const char *const names[] = { "vmlinuz-a", "proto.bz", "notk" };
	char path[128];

	snprintf(kdir, sizeof(kdir), "/tmp/vtbconf-k-XXXXXX");
	cr_assert_not_null(mkdtemp(kdir));
	for (size_t i = 0; i < 3; i++) {
		unsigned char img[1024] = { 0 };
		FILE *f;

		if (i < 2)
			memcpy(img + 0x202, "HdrS", 4);
		img[0] = (unsigned char)i;
		snprintf(path, sizeof(path), "%s/%s", kdir, names[i]);
		f = fopen(path, "wb");
		cr_assert_not_null(f);
		cr_assert_eq(fwrite(img, 1, sizeof(img), f), sizeof(img));
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/config-a", kdir);
	{
		FILE *f = fopen(path, "w");

		cr_assert_not_null(f);
		fputs("CONFIG_X=y\n", f);
		fclose(f);
	}
}

static void kernel_files_rm(void)
{
	static const char *const names[] = { "vmlinuz-a", "proto.bz", "notk", "config-a",
					     "t.conf",	  "big",      "fifo" };
	char path[128];

	for (size_t i = 0; i < VTB_ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", kdir, names[i]);
		unlink(path);
	}
	rmdir(kdir);
}

/* The matrix as if read from kdir/t.conf: relative images are found there. */
static int kparse(const char *text, struct vtb_matrix **m)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/t.conf", kdir);
	return vtb_matrix_parse(path, text, strlen(text), &host, m);
}

#define KVM_HEAD "[baseline]\nenabled = no\n[vm]\nvcpus = 2\n"
#define KSECTS \
	"[kernel stock]\npath = vmlinuz-a\n[kernel proto]\npath = proto.bz\ncmdline = foo=1\n"

Test(conf, kernel_axis_makes_a_configuration_per_kernel, .init = kernel_files,
     .fini = kernel_files_rm)
{
	struct vtb_matrix *m = NULL;
	const struct vtb_config *s, *p;

	cr_assert_eq(kparse(KVM_HEAD "kernel = stock, proto\n" KSECTS WL, &m), 0, "%s",
		     vtb_errmsg());
	cr_assert_eq(m->n_configs, 2);
	s = config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=default kernel=stock");
	p = config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=default kernel=proto");
	cr_expect_str_neq(s->key, p->key);
	cr_expect_str_eq(vtb_params_get(&s->params, "kernel"), "stock");
	cr_expect_null(vtb_params_get(&s->params, "kernel.cmdline"));
	cr_expect_str_eq(vtb_params_get(&p->params, "kernel.cmdline"), "foo=1");
	cr_expect(strstr(s->kernel_path, "/vmlinuz-a") != NULL);
	cr_expect_eq(strlen(s->kernel_sha256), 64);
	cr_expect_str_neq(s->kernel_sha256, p->kernel_sha256);
	/* config-a beside vmlinuz-a; none beside proto.bz but the only config-* */
	cr_expect(s->kernel_config && strstr(s->kernel_config, "/config-a"));
	vtb_matrix_free(m);
}

Test(conf, no_kernel_key_keeps_labels_and_keys, .init = kernel_files, .fini = kernel_files_rm)
{
	struct vtb_matrix *a = ok(KVM_HEAD WL), *b = NULL;

	cr_assert_eq(kparse(KVM_HEAD KSECTS WL, &b), 0, "%s", vtb_errmsg());
	cr_assert_eq(a->n_configs, 1);
	cr_assert_eq(b->n_configs, 1);
	cr_expect_str_eq(a->configs[0].label,
			 "vm vcpus=2 topology=flat pinning=none memory=1G sched=default");
	cr_expect_str_eq(a->configs[0].key, b->configs[0].key);
	cr_expect_null(a->configs[0].kernel_path);
	cr_expect_null(vtb_params_get(&a->configs[0].params, "kernel"));
	vtb_matrix_free(a);
	vtb_matrix_free(b);
}

Test(conf, kernel_paths_and_their_errors_name_the_line, .init = kernel_files,
     .fini = kernel_files_rm)
{
	struct vtb_matrix *m = NULL;
	char want[256];

	/* a path directly (it has a '/') */
	cr_assert_eq(kparse(KVM_HEAD "kernel = ./proto.bz\n" WL, &m), 0, "%s", vtb_errmsg());
	cr_expect_str_eq(m->configs[0].label, "vm vcpus=2 topology=flat pinning=none memory=1G "
					      "sched=default kernel=./proto.bz");
	vtb_matrix_free(m);
	m = NULL;
	/* an unknown name, with the nearest section */
	cr_expect_eq(kparse(KVM_HEAD "kernel = stok\n" KSECTS WL, &m), -1);
	snprintf(want, sizeof(want),
		 "%s/t.conf:5: unknown kernel 'stok': not a [kernel NAME] nor a path (a path "
		 "has a '/') (did you mean 'stock'?)",
		 kdir);
	cr_expect_str_eq(vtb_errmsg(), want);
	/* a missing image: the line of its path = */
	cr_expect_eq(kparse(KVM_HEAD "kernel = x\n[kernel x]\npath = gone\n" WL, &m), -1);
	snprintf(want, sizeof(want), "%s/t.conf:7: cannot read kernel image '%s/gone': %s", kdir,
		 kdir, strerror(ENOENT));
	cr_expect_str_eq(vtb_errmsg(), want);
	/* not a kernel */
	cr_expect_eq(kparse(KVM_HEAD "kernel = ./notk\n" WL, &m), -1);
	snprintf(want, sizeof(want),
		 "%s/t.conf:5: '%s/./notk' is not a Linux kernel image (no bzImage setup header "
		 "'HdrS' at 0x202)",
		 kdir, kdir);
	cr_expect_str_eq(vtb_errmsg(), want);
	/* a section without path =, an unknown key, an unreadable config = */
	cr_expect_eq(kparse(KVM_HEAD "kernel = x\n[kernel x]\ncmdline = a\n" WL, &m), -1);
	snprintf(want, sizeof(want), "%s/t.conf:6: [kernel x] has no 'path =' (the kernel image)",
		 kdir);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_eq(kparse(KVM_HEAD "kernel = x\n[kernel x]\npaht = a\n" WL, &m), -1);
	snprintf(want, sizeof(want),
		 "%s/t.conf:7: unknown key 'paht' in [kernel x] (did you mean 'path'?)", kdir);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_eq(kparse(KVM_HEAD "kernel = x\n[kernel x]\npath = proto.bz\nconfig = nope\n" WL,
			    &m),
		     -1);
	snprintf(want, sizeof(want), "%s/t.conf:8: cannot read kernel config '%s/nope'", kdir,
		 kdir);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_null(m);
}

/* [global] kernel = is checked as a [vm] kernel = path is: a missing
 * file or one that is no kernel fails the matrix (plan, and run before it
 * creates anything), naming the line. */
Test(conf, global_kernel_is_checked_when_the_matrix_is_read, .init = kernel_files,
     .fini = kernel_files_rm)
{
	struct vtb_matrix *m = NULL;
	char text[512], want[512];

	snprintf(text, sizeof(text), "[global]\nkernel = %s/vmlinuz-a\n" WL, kdir);
	cr_assert_eq(kparse(text, &m), 0, "%s", vtb_errmsg());
	snprintf(want, sizeof(want), "%s/vmlinuz-a", kdir);
	cr_expect_str_eq(m->kernel, want);
	vtb_matrix_free(m);
	m = NULL;
	snprintf(text, sizeof(text), "[global]\nreps = 1\nkernel = %s/gone\n" WL, kdir);
	cr_expect_eq(kparse(text, &m), -1);
	snprintf(want, sizeof(want),
		 "%s/t.conf:3: cannot read kernel image '%s/gone': No such file or directory "
		 "([global] kernel =)",
		 kdir, kdir);
	cr_expect_str_eq(vtb_errmsg(), want);
	snprintf(text, sizeof(text), "[global]\nkernel = %s/notk\n" WL, kdir);
	cr_expect_eq(kparse(text, &m), -1);
	snprintf(want, sizeof(want),
		 "%s/t.conf:2: '%s/notk' is not a Linux kernel image (no bzImage setup header "
		 "'HdrS' at 0x202) ([global] kernel =)",
		 kdir, kdir);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_null(m);
}

/* An image is capped at 256 MiB and must be a regular file, both seen
 * with stat() before it is opened: a 4 GiB sparse file (hashed whole, it
 * took 29 s) and a FIFO (opened, it could block) are refused at once,
 * naming the line of their path. */
Test(conf, kernel_images_past_the_cap_or_not_files_are_refused_unopened, .init = kernel_files,
     .fini = kernel_files_rm)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(30);
	struct vtb_matrix *m = NULL;
	char path[128], want[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/big", kdir);
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	/* the setup header, so only the size is wrong */
	cr_assert_eq(fseek(f, 0x202, SEEK_SET), 0);
	cr_assert_eq(fwrite("HdrS", 1, 4, f), 4);
	fclose(f);
	cr_assert_eq(truncate(path, (off_t)4 << 30), 0, "%s", strerror(errno));
	cr_expect_eq(kparse(KVM_HEAD "kernel = x\n[kernel x]\npath = big\n" WL, &m), -1);
	snprintf(want, sizeof(want),
		 "%s/t.conf:7: kernel image '%s/big' is too large (4294967296 bytes, limit 256 MiB)",
		 kdir, kdir);
	cr_expect_str_eq(vtb_errmsg(), want);
	/* just at the cap it is read */
	cr_assert_eq(truncate(path, (off_t)VTB_KERNEL_IMAGE_MAX), 0);
	cr_expect_eq(kparse(KVM_HEAD "kernel = ./big\n" WL, &m), 0, "%s", vtb_errmsg());
	vtb_matrix_free(m);
	m = NULL;
	cr_assert_eq(truncate(path, (off_t)VTB_KERNEL_IMAGE_MAX + 1), 0);
	cr_expect_eq(kparse(KVM_HEAD "kernel = ./big\n" WL, &m), -1);
	snprintf(want, sizeof(want),
		 "%s/t.conf:5: kernel image '%s/./big' is too large (268435457 bytes, limit 256 MiB)",
		 kdir, kdir);
	cr_expect_str_eq(vtb_errmsg(), want);
	snprintf(path, sizeof(path), "%s/fifo", kdir);
	cr_assert_eq(mkfifo(path, 0600), 0, "%s", strerror(errno));
	cr_expect_eq(kparse(KVM_HEAD "kernel = x\n[kernel x]\npath = fifo\n" WL, &m), -1);
	snprintf(want, sizeof(want), "%s/t.conf:7: kernel image '%s/fifo' is not a regular file",
		 kdir, kdir);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_null(m);
}

/* ------------------------------------------------------------ [explore] */

Test(conf, explore_section)
{
	struct vtb_matrix *m = ok(WL);

	cr_assert_null(m->explore, "no section, no race");
	vtb_matrix_free(m);
	m = ok(WL "[explore]\nobjective = stream/triad\n");
	cr_assert_not_null(m->explore);
	cr_assert_eq(m->explore->n_objective, 1);
	cr_assert_str_eq(m->explore->objective[0].cell, "stream");
	cr_assert_str_eq(m->explore->objective[0].metric, "triad");
	cr_assert_eq(m->explore->objective[0].direction, 0, "auto: the workload's word");
	cr_assert_eq(m->explore->min_rounds, 3);
	cr_assert_eq(m->explore->max_rounds, 40);
	cr_assert_eq(m->explore->budget_boots, 0);
	cr_assert_eq(m->explore->budget_ns, 0);
	cr_assert(!m->explore->holm);
	cr_assert(!m->explore->futility, "futility off by default");
	cr_assert_eq(m->explore->line, 3);
	cr_assert_eq(m->explore->objective_line, 4);
	vtb_matrix_free(m);
	/* a lexicographic objective, a direction each, every limit */
	m = ok("[workload hb]\ntype = debug\nmode = ok, sleep\n[workload nap]\ntype = debug\nmode = spin\n"
	       "[explore]\nobjective = hb mode=sleep/value , nap/seconds\n"
	       "direction = higher, lower\n"
	       "min_rounds = 2\nmax_rounds = 9\nbudget_boots = 30\nbudget_time = 2h\n"
	       "multiplicity = holm\nfutility = yes\n");
	cr_assert_eq(m->explore->n_objective, 2);
	cr_assert_str_eq(m->explore->objective[0].cell, "hb mode=sleep");
	cr_assert_str_eq(m->explore->objective[0].metric, "value");
	cr_assert_str_eq(m->explore->objective[1].metric, "seconds");
	cr_assert_eq(m->explore->objective[0].direction, 1);
	cr_assert_eq(m->explore->objective[1].direction, -1);
	cr_assert_eq(m->explore->min_rounds, 2);
	cr_assert_eq(m->explore->max_rounds, 9);
	cr_assert_eq(m->explore->budget_boots, 30);
	cr_assert_eq(m->explore->budget_ns, 7200000000000ULL);
	cr_assert(m->explore->holm);
	cr_assert(m->explore->futility);
	vtb_matrix_free(m);
	/* one direction for every metric */
	m = ok("[workload a]\ntype = debug\n[workload b]\ntype = debug\nmode = spin\n"
	       "[explore]\nobjective = a/seconds, b/seconds\ndirection = lower\n");
	cr_assert_eq(m->explore->objective[0].direction, -1);
	cr_assert_eq(m->explore->objective[1].direction, -1);
	vtb_matrix_free(m);
	/* a metric name is checked when a boot reports; the key table at once */
	bad(WL "[explore]\nmin_rounds = 3\n",
	    "t.conf:3: [explore] needs objective = CELL/METRIC (wakeup/wakeup_p99)");
	bad(WL "[explore]\nobjective = triad\n",
	    "t.conf:4: objective 'triad': expected CELL/METRIC (wakeup/wakeup_p99)");
	bad(WL "[explore]\nobjective = stream/\n",
	    "t.conf:4: objective 'stream/': expected CELL/METRIC (wakeup/wakeup_p99)");
	bad(WL "[explore]\nobjective = wakeup/wakeup_p99\n",
	    "t.conf:4: objective 'wakeup/wakeup_p99': no cell 'wakeup' in the matrix (its cells: "
	    "'stream')");
	bad(WL "[explore]\nobjective = stream/a,\n",
	    "t.conf:4: empty element in the list for 'objective'");
	bad(WL "[explore]\nobjective = stream/a, stream/a\n",
	    "t.conf:4: objective 'stream/a' is listed twice");
	bad(WL "[explore]\nobjective = stream/a, stream/b\ndirection = up\n",
	    "t.conf:5: invalid value 'up' for 'direction': expected auto, lower or higher");
	bad(WL "[explore]\nobjective = stream/a, stream/b\ndirection = lower, higher, lower\n",
	    "t.conf:5: direction has 3 values for 2 objective metrics: give one, or one each");
	bad(WL "[explore]\nobjective = stream/a\nmin_rounds = 1\n",
	    "t.conf:5: 'min_rounds' must be between 2 and 100000, got '1'");
	bad(WL "[explore]\nobjective = stream/a\nmin_rounds = 8\nmax_rounds = 5\n",
	    "t.conf:6: min_rounds 8 is above max_rounds 5");
	bad(WL "[explore]\nobjective = stream/a\nmultiplicity = bonferroni\n",
	    "t.conf:5: invalid value 'bonferroni' for 'multiplicity': expected one of bh, holm");
	bad(WL "[explore]\nobjective = stream/a\nfutility = maybe\n",
	    "t.conf:5: invalid value 'maybe' for 'futility': expected yes or no");
	bad(WL "[explore]\nobjectiv = stream/a\n",
	    "t.conf:4: unknown key 'objectiv' in [explore] (did you mean 'objective'?)");
	bad(WL "[explorer]\nobjective = stream/a\n",
	    "t.conf:3: unknown section [explorer] (did you mean [explore]?)");
}

/* One rule for a matrix's paths: db = is from the matrix file's directory,
 * like kernel paths; without one, results.db in the working directory. */
Test(conf, db_is_from_the_matrix_files_directory)
{
	static const char *const cases[][3] = {
		{ "sub/dir/m.conf", "[global]\ndb = rel.db\n" WL, "sub/dir/rel.db" },
		{ "sub/m.conf", "[global]\ndb = ../up.db\n" WL, "sub/../up.db" },
		{ "sub/m.conf", "[global]\ndb = /abs/x.db\n" WL, "/abs/x.db" },
		{ "/etc/vtb/m.conf", "[global]\ndb = r.db\n" WL, "/etc/vtb/r.db" },
		{ "m.conf", "[global]\ndb = rel.db\n" WL, "rel.db" },
		{ "sub/m.conf", WL, "results.db" },
	};

	for (size_t i = 0; i < VTB_ARRAY_SIZE(cases); i++) {
		struct vtb_matrix *m = NULL;

		cr_assert_eq(vtb_matrix_parse(cases[i][0], cases[i][1], strlen(cases[i][1]), &host,
					      &m),
			     0, "%s: %s", cases[i][0], vtb_errmsg());
		cr_assert_str_eq(m->db, cases[i][2], "%s", cases[i][0]);
		vtb_matrix_free(m);
	}
}
