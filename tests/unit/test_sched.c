/* SPDX-License-Identifier: MIT */
/*
 * Sched profiles on the harness side: the checks of [sched NAME] at
 * matrix load (file:line errors), the job's "sched" object, "view" in VM
 * jobs only, and the guest kernel command line.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/conf.h"
#include "../../harness/runner.h"
#include "../../harness/sched.h"
#include "../../harness/vmboot.h"

static const int compact4[] = { 0, 1, 2, 3 };

static const struct vtb_host_ctx host = {
	.host_cpus = 4,
	.host_nodes = 1,
	.host_llcs = 1,
	.compact = compact4,
	.n_compact = 4,
};

#define WL "[workload s]\ntype = c2c\n"

static struct vtb_matrix *ok(const char *text)
{
	struct vtb_matrix *m = NULL;

	cr_assert_eq(vtb_matrix_parse("t.conf", text, strlen(text), &host, &m), 0, "%s",
		     vtb_errmsg());
	return m;
}

static void bad(const char *text, const char *expect)
{
	struct vtb_matrix *m = NULL;

	cr_assert_eq(vtb_matrix_parse("t.conf", text, strlen(text), &host, &m), -1,
		     "accepted, expected: %s", expect);
	cr_assert_str_eq(vtb_errmsg(), expect);
}

static const struct vtb_config *config(const struct vtb_matrix *m, const char *label)
{
	size_t i;

	for (i = 0; i < m->n_configs; i++)
		if (!strcmp(m->configs[i].label, label))
			return &m->configs[i];
	cr_assert_fail("no configuration '%s'", label);
	return NULL;
}

static void expect_json(json_t *got, const char *want)
{
	json_error_t err;
	json_t *w = json_loads(want, 0, &err);
	char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);

	cr_assert_not_null(w, "bad test JSON: %s", err.text);
	cr_expect(json_equal(got, w), "got %s\nwant %s", g ? g : "NULL", want);
	free(g);
	json_decref(w);
}

#define BASE "[baseline]\nenabled = no\n[vm]\nvcpus = 2\n"

Test(sched, job_object_holds_every_kind_of_setting)
{
	struct vtb_matrix *m = ok(BASE "sched = relax\n"
				       "[sched relax]\n"
				       "cmdline = relax_domain_level=1 schedstats=enable\n"
				       "sysctl.kernel.numa_balancing = 0\n"
				       "debugfs.migration_cost_ns = 0\n"
				       "debugfs.domains/MC/imbalance_pct = 110\n"
				       "debugfs.domains/cpu0/domain1/busy_factor = 8\n"
				       "cpuset.partition = 1\n" WL);
	const struct vtb_config *c =
		config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=relax");
	json_t *j;

	cr_assert(c->runnable, "%s", c->why_not);
	cr_expect(vtb_sched_has_settings(c));
	j = vtb_sched_job(c);
	cr_assert_not_null(j, "%s", vtb_errmsg());
	expect_json(j, "{\"name\":\"relax\","
		       "\"cmdline\":\"relax_domain_level=1 schedstats=enable\","
		       "\"sysctl\":{\"kernel.numa_balancing\":\"0\"},"
		       "\"debugfs\":{\"migration_cost_ns\":\"0\","
		       "\"domains/MC/imbalance_pct\":\"110\","
		       "\"domains/cpu0/domain1/busy_factor\":\"8\"},"
		       "\"cpuset_partition\":\"1\"}");
	json_decref(j);
	cr_expect_str_eq(vtb_sched_cmdline(c), "relax_domain_level=1 schedstats=enable");
	vtb_matrix_free(m);
}

Test(sched, absent_members_and_normalised_partition)
{
	struct vtb_matrix *m = ok("[baseline]\nenabled = no\n[vm]\nvcpus = 4\nsched = p\n"
				  "[sched p]\ncpuset.partition = 3,2\n" WL);
	const struct vtb_config *c =
		config(m, "vm vcpus=4 topology=flat pinning=none memory=1G sched=p");
	json_t *j = vtb_sched_job(c);

	expect_json(j, "{\"name\":\"p\",\"cpuset_partition\":\"2-3\"}");
	cr_expect_null(vtb_sched_cmdline(c));
	json_decref(j);
	vtb_matrix_free(m);
}

Test(sched, empty_profile_and_baseline_have_none)
{
	struct vtb_matrix *m = ok("[baseline]\ncpus = 1\n[vm]\nvcpus = 2\n[sched default]\n" WL);
	const struct vtb_config *v =
		config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=default");
	const struct vtb_config *b = config(m, "baseline cpus=1");

	cr_expect(v->runnable);
	cr_expect_not(vtb_sched_has_settings(v));
	cr_expect_null(vtb_sched_job(v));
	cr_expect_null(vtb_sched_job(b));
	cr_expect_null(vtb_sched_cmdline(b));
	vtb_matrix_free(m);
}

/* Profiles with settings are runnable now; the key still follows them. */
Test(sched, profiles_with_settings_are_runnable)
{
	struct vtb_matrix *m = ok(BASE "[sched default]\n[sched relax]\ncmdline = x=1\n" WL);
	size_t i;

	cr_assert_eq(m->n_configs, 2);
	for (i = 0; i < m->n_configs; i++)
		cr_expect(m->configs[i].runnable, "%s: %s", m->configs[i].label,
			  m->configs[i].why_not);
	cr_expect_str_neq(m->configs[0].key, m->configs[1].key);
	vtb_matrix_free(m);
}

Test(sched, partition_must_fit_the_guest)
{
	struct vtb_matrix *m = ok("[baseline]\nenabled = no\n[vm]\nvcpus = 1, 2, 4\nsched = p\n"
				  "[sched p]\ncpuset.partition = 2-3\n" WL);
	const struct vtb_config *c;

	c = config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=p");
	cr_expect_not(c->runnable);
	cr_expect_str_eq(
		c->why_not,
		"[sched p]: cpuset.partition = 2-3 names CPUs a guest of 2 vCPUs does not have");
	c = config(m, "vm vcpus=4 topology=flat pinning=none memory=1G sched=p");
	cr_expect(c->runnable, "%s", c->why_not);
	vtb_matrix_free(m);
	m = ok("[baseline]\nenabled = no\n[vm]\nvcpus = 2\nsched = p\n"
	       "[sched p]\ncpuset.partition = 0-1\n" WL);
	c = config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=p");
	cr_expect_str_eq(
		c->why_not,
		"[sched p]: cpuset.partition = 0-1 takes every vCPU: the agent's root cgroup must keep one");
	vtb_matrix_free(m);
}

static json_t *job_of(const struct vtb_config *c)
{
	char *text = vtb_job_json(c, "00ff", "u-u-i-d", 0);
	json_t *j;

	cr_assert_not_null(text, "%s", vtb_errmsg());
	j = json_loads(text, 0, NULL);
	free(text);
	cr_assert_not_null(j);
	return j;
}

Test(sched, vm_jobs_ask_for_the_view_baselines_do_not)
{
	struct vtb_matrix *m = ok("[baseline]\ncpus = 1\n[vm]\nvcpus = 2\nsched = default, r\n"
				  "[sched r]\ndebugfs.domains/DIE/busy_factor = 8\n" WL);
	json_t *j;

	j = job_of(config(m, "baseline cpus=1"));
	cr_expect_null(json_object_get(j, "view"));
	cr_expect_null(json_object_get(j, "sched"));
	json_decref(j);
	j = job_of(config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=default"));
	cr_expect(json_is_true(json_object_get(j, "view")));
	cr_expect_null(json_object_get(j, "sched"));
	json_decref(j);
	j = job_of(config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=r"));
	cr_expect(json_is_true(json_object_get(j, "view")));
	expect_json(json_object_get(j, "sched"),
		    "{\"name\":\"r\",\"debugfs\":{\"domains/DIE/busy_factor\":\"8\"}}");
	json_decref(j);
	vtb_matrix_free(m);
}

Test(sched, cmdline_goes_after_the_harness_parameters)
{
	struct vtb_matrix *m = ok(BASE "sched = default, r\n[sched r]\ncmdline = "
				       "relax_domain_level=1\n" WL);
	char *s;

	s = vtb_vm_cmdline("ab12", NULL);
	cr_expect_str_eq(s, "console=ttyS0 panic=-1 vtbench.nonce=ab12");
	free(s);
	s = vtb_vm_cmdline("ab12", config(m, "vm vcpus=2 topology=flat pinning=none memory=1G "
					     "sched=default"));
	cr_expect_str_eq(s, "console=ttyS0 panic=-1 vtbench.nonce=ab12");
	free(s);
	s = vtb_vm_cmdline("ab12",
			   config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=r"));
	cr_expect_str_eq(s, "console=ttyS0 panic=-1 vtbench.nonce=ab12 relax_domain_level=1");
	free(s);
	vtb_matrix_free(m);
}

Test(sched_bad, keys_are_checked_at_load_with_file_and_line)
{
	bad("[sched s]\n\ndebugfs.domains/MC/flags = 1\n" WL,
	    "t.conf:3: 'debugfs.domains/MC/flags' in [sched s]: 'flags' is read-only");
	bad("[sched s]\ndebugfs.domains/cpu0/domain1/name = x\n" WL,
	    "t.conf:2: 'debugfs.domains/cpu0/domain1/name' in [sched s]: 'name' is read-only");
	bad("[sched s]\ndebugfs.domains/Mc/busy_factor = 8\n" WL,
	    "t.conf:2: unknown sched-domain level 'Mc' in 'debugfs.domains/Mc/busy_factor' (did you mean 'MC'?): one of SMT, CLS, MC, DIE, PKG, NUMA");
	bad("[sched s]\ndebugfs.domains/MC/imbalance_pt = 8\n" WL,
	    "t.conf:2: unknown per-domain knob 'imbalance_pt' in 'debugfs.domains/MC/imbalance_pt' (did you mean 'imbalance_pct'?): one of min_interval, max_interval, busy_factor, imbalance_pct, cache_nice_tries");
	bad("[sched s]\ndebugfs.domains/MC/busy_factor = eight\n" WL,
	    "t.conf:2: 'debugfs.domains/MC/busy_factor' in [sched s] must be a non-negative integer, got 'eight'");
	bad("[sched s]\ndebugfs.domains/cpu0/busy_factor = 8\n" WL,
	    "t.conf:2: unknown sched-domain level 'cpu0' in 'debugfs.domains/cpu0/busy_factor': one of SMT, CLS, MC, DIE, PKG, NUMA");
	bad("[sched s]\ndebugfs.domains/cpu0/dom1/busy_factor = 8\n" WL,
	    "t.conf:2: bad key 'debugfs.domains/cpu0/dom1/busy_factor' in [sched s]: expected domains/cpuN/domainM/KNOB");
	bad("[sched s]\ndebugfs.domains = 1\n" WL,
	    "t.conf:2: bad key 'debugfs.domains' in [sched s]: expected debugfs.KNOB, debugfs.domains/LEVEL/KNOB or debugfs.domains/cpuN/domainM/KNOB");
	bad("[sched s]\ndebugfs.numa_balancing/scan_delay_ms = 1\n" WL,
	    "t.conf:2: bad key 'debugfs.numa_balancing/scan_delay_ms' in [sched s]: expected debugfs.KNOB, debugfs.domains/LEVEL/KNOB or debugfs.domains/cpuN/domainM/KNOB");
	bad("[sched s]\ndebugfs.../x = 1\n" WL,
	    "t.conf:2: bad key 'debugfs.../x' in [sched s]: path component '..' must be letters, digits and '_'");
	bad("[sched s]\ndebugfs.domains//MC/x = 1\n" WL,
	    "t.conf:2: bad key 'debugfs.domains//MC/x' in [sched s]: path component '' must be letters, digits and '_'");
	bad("[sched s]\nsysctl.kernel..x = 1\n" WL,
	    "t.conf:2: bad key 'sysctl.kernel..x' in [sched s]: path component '' must be letters, digits and '_'");
	bad("[sched s]\nsysctl.kernel/numa_balancing = 1\n" WL,
	    "t.conf:2: bad key 'sysctl.kernel/numa_balancing' in [sched s]: path component 'kernel/numa_balancing' must be letters, digits and '_'");
	bad("[sched s]\nsysctl.kernel.numa_balancing =\n" WL,
	    "t.conf:2: empty value for 'sysctl.kernel.numa_balancing'");
	bad("[sched s]\ncpuset.partition = 1-x\n" WL,
	    "t.conf:2: bad CPU list '1-x' for 'cpuset.partition' in [sched s]: expected guest CPUs, e.g. 1 or 2-3");
	bad("[sched s]\ncpuset.partitions = 1\n" WL,
	    "t.conf:2: unknown key 'cpuset.partitions' in [sched s] (did you mean 'cpuset.partition'?)");
	bad("[sched s]\ndebugfs = 1\n" WL,
	    "t.conf:2: unknown key 'debugfs' in [sched s] (did you mean 'debugfs.'?)");
	bad("[sched s]\ncmdline = quiet vtbench.nonce=00\n" WL,
	    "t.conf:2: 'cmdline' in [sched s]: vtbench.* parameters belong to the harness");
}

Test(sched_bad, accepted_shapes)
{
	struct vtb_matrix *m = ok("[baseline]\nenabled = no\n[vm]\nvcpus = 2\n[sched s]\n"
				  "debugfs.base_slice_ns = 3000000\n"
				  "debugfs.domains/PKG/min_interval = 1\n"
				  "debugfs.domains/NUMA/cache_nice_tries = 0\n"
				  "debugfs.domains/cpu12/domain0/max_interval = 4\n"
				  "sysctl.kernel.sched_schedstats = 1\n" WL);

	vtb_matrix_free(m);
}
