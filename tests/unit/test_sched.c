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

#include "../../harness/matrix/conf.h"
#include "../../harness/plan/cfgplan.h"
#include "../../harness/boot/runner.h"
#include "../../harness/plan/sched.h"
#include "../../harness/boot/vmboot.h"

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
	char *text = vtb_job_json(c, "00ff", "u-u-i-d", 0, true);
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

/* The kernel drops the quotes around a parameter (lib/cmdline.c
 * next_arg()): a quoted vtbench.* token is that parameter (issue 16). */
Test(sched_bad, quoted_harness_parameters_in_cmdline)
{
	static const char *const evil[] = {
		"cmdline = \"vtbench.nonce=00\"\n", "cmdline = quiet \"vtbench.nonce=00\"\n",
		"cmdline = \"vtbench.nonce\"=00\n", "cmdline = vtb\"ench.nonce=00\"\n",
		"cmdline = a=1\t\"vtbench.x\"\n",
	};

	for (size_t i = 0; i < sizeof(evil) / sizeof(evil[0]); i++) {
		char *t = vtb_asprintf("[sched s]\n%s" WL, evil[i]);

		bad(t,
		    "t.conf:2: 'cmdline' in [sched s]: vtbench.* parameters belong to the harness");
		free(t);
	}
	bad("[sched s]\ncmdline = foo=\"a b\n" WL,
	    "t.conf:2: 'cmdline' in [sched s]: unbalanced '\"'");
	/* a value that mentions vtbench. is not a parameter of the harness */
	struct vtb_matrix *m = ok(
		"[baseline]\nenabled = no\n[vm]\nvcpus = 2\n[sched s]\n"
		"cmdline = dyndbg=\"file vtbench.c +p\" novtbench.x=1 quiet\n" WL);

	vtb_matrix_free(m);
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

/* ---------------------------------------------------------------- vtb_sched_verify */

/* The @type record of a recorded boot (tests/fixtures/guestview/records). */
static json_t *record(const char *file, const char *type)
{
	const char *src = getenv("SRCDIR");
	char *path = vtb_asprintf("%s/tests/fixtures/guestview/records/%s", src ? src : ".", file);
	char *text = vtb_read_file(path, 1 << 20), *line, *save = NULL;
	json_t *found = NULL;

	cr_assert_not_null(text, "%s: %s", path, vtb_errmsg());
	for (line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *a = strchr(line, '{'), *b = strrchr(line, '}');
		json_t *o;

		if (!a || !b)
			continue;
		o = json_loadb(a, (size_t)(b - a + 1), 0, NULL);
		if (o && !strcmp(json_string_value(json_object_get(o, "type")), type))
			found = o;
		else
			json_decref(o);
	}
	cr_assert_not_null(found, "no %s record in %s", type, file);
	free(text);
	free(path);
	return found;
}

#define RELAX                                       \
	"[sched relax]\n"                           \
	"cmdline = relax_domain_level=1\n"          \
	"sysctl.kernel.sched_schedstats = 1\n"      \
	"debugfs.migration_cost_ns = 0\n"           \
	"debugfs.domains/SMT/imbalance_pct = 117\n" \
	"debugfs.domains/cpu0/domain0/busy_factor = 8\n"

#define RELAX_LABEL "vm vcpus=2 topology=flat pinning=none memory=1G sched=relax"

/* The setting @i of @sched's "settings" (a borrowed reference). */
static json_t *setting(json_t *sched, size_t i)
{
	json_t *e = json_array_get(json_object_get(sched, "settings"), i);

	cr_assert_not_null(e);
	return e;
}

/* vtb_sched_verify() must refuse, with exactly @want as the reason. */
static void refused(const struct vtb_config *c, const json_t *probe, const json_t *sched,
		    const char *want)
{
	char *why = (char *)"unset";

	cr_assert_eq(vtb_sched_verify(c, probe, sched, &why), 1, "accepted, expected: %s", want);
	cr_assert_not_null(why);
	cr_expect_str_eq(why, want);
	cr_expect_null(strchr(why, '\n'));
	free(why);
}

static void accepted(const struct vtb_config *c, const json_t *probe, const json_t *sched)
{
	char *why = (char *)"unset";
	int r = vtb_sched_verify(c, probe, sched, &why);

	cr_assert_eq(r, 0, "refused: %s", r == 1 ? why : vtb_errmsg());
	cr_expect_null(why);
}

Test(sched_verify, a_real_guests_record_is_confirmed)
{
	struct vtb_matrix *m = ok(BASE "sched = relax\n" RELAX WL);
	json_t *probe = record("deb61-smt2-relax.rec", "probe");
	json_t *sched = record("deb61-smt2-relax.rec", "sched");

	accepted(config(m, RELAX_LABEL), probe, sched);
	json_decref(probe);
	json_decref(sched);
	vtb_matrix_free(m);
}

Test(sched_verify, no_settings_needs_no_record)
{
	struct vtb_matrix *m = ok(BASE "[sched default]\n" WL);
	json_t *sched = record("deb61-smt2-relax.rec", "sched");
	const struct vtb_config *c =
		config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=default");

	accepted(c, NULL, NULL);
	accepted(c, NULL, sched); /* whatever an agent says about another profile */
	json_decref(sched);
	vtb_matrix_free(m);
}

Test(sched_verify, the_record_itself_must_be_there_and_say_ok)
{
	struct vtb_matrix *m = ok(BASE "sched = relax\n" RELAX WL);
	const struct vtb_config *c = config(m, RELAX_LABEL);
	json_t *probe = record("deb61-smt2-relax.rec", "probe");
	json_t *sched = record("deb61-smt2-relax.rec", "sched");

	refused(c, probe, NULL,
		"sched profile 'relax': the guest sent no sched record (an agent that does not apply profiles?)");
	json_object_set_new(sched, "name", json_string("default"));
	refused(c, probe, sched,
		"sched profile 'relax': the guest applied profile 'default' instead");
	json_object_set_new(sched, "name", json_string("relax"));
	json_object_set_new(sched, "ok", json_false());
	refused(c, probe, sched,
		"sched profile 'relax': the guest reports that the profile did not apply");
	json_object_set_new(sched, "ok", json_true());
	json_object_set_new(sched, "settings", json_string("all of them"));
	refused(c, probe, sched,
		"sched profile 'relax': the guest's sched settings are not a list");
	json_decref(probe);
	json_decref(sched);
	vtb_matrix_free(m);
}

Test(sched_verify, every_setting_must_be_read_back_as_wanted)
{
	struct vtb_matrix *m = ok(BASE "sched = relax\n" RELAX WL);
	const struct vtb_config *c = config(m, RELAX_LABEL);
	json_t *probe = record("deb61-smt2-relax.rec", "probe");
	json_t *sched = record("deb61-smt2-relax.rec", "sched");
	json_t *s1 = json_deep_copy(sched), *sets;

	/* a missing key (an agent that skipped it) */
	sets = json_object_get(s1, "settings");
	json_array_remove(sets, 1);
	refused(c, probe, s1,
		"sched profile 'relax': the guest did not confirm debugfs.migration_cost_ns (its sched record has no such setting)");
	json_decref(s1);
	/* an agent that says ok but read something else */
	s1 = json_deep_copy(sched);
	json_object_set_new(setting(s1, 1), "read", json_string("500000"));
	refused(c, probe, s1,
		"sched profile 'relax': the guest did not confirm debugfs.migration_cost_ns (read '500000', want '0')");
	json_object_set_new(setting(s1, 1), "read", json_null());
	refused(c, probe, s1,
		"sched profile 'relax': the guest did not confirm debugfs.migration_cost_ns (read '(none)', want '0')");
	json_decref(s1);
	/* it wrote another value */
	s1 = json_deep_copy(sched);
	json_object_set_new(setting(s1, 0), "want", json_string("0"));
	json_object_set_new(setting(s1, 0), "read", json_string("0"));
	refused(c, probe, s1,
		"sched profile 'relax': the guest wrote '0' for sysctl.kernel.sched_schedstats, the profile says '1'");
	json_decref(s1);
	/* one setting not ok */
	s1 = json_deep_copy(sched);
	json_object_set_new(setting(s1, 4), "ok", json_false());
	refused(c, probe, s1,
		"sched profile 'relax': the guest did not confirm debugfs.domains/cpu0/domain0/busy_factor (it reports the setting failed)");
	json_decref(s1);
	/* a level knob: every CPU's domain counts, not only the first */
	s1 = json_deep_copy(sched);
	json_object_set_new(setting(s1, 3), "read", json_string("110"));
	refused(c, probe, s1,
		"sched profile 'relax': the guest did not confirm debugfs.domains/SMT/imbalance_pct (read '110', want '117')");
	json_decref(s1);
	json_decref(probe);
	json_decref(sched);
	vtb_matrix_free(m);
}

Test(sched_verify, guest_strings_in_the_reason_are_one_short_line)
{
	struct vtb_matrix *m = ok(BASE "sched = relax\n" RELAX WL);
	const struct vtb_config *c = config(m, RELAX_LABEL);
	json_t *probe = record("deb61-smt2-relax.rec", "probe");
	json_t *sched = record("deb61-smt2-relax.rec", "sched");
	char long_read[200];

	json_object_set_new(setting(sched, 1), "read", json_string("0\n\x1b[2Jx"));
	refused(c, probe, sched,
		"sched profile 'relax': the guest did not confirm debugfs.migration_cost_ns (read '0??[2Jx', want '0')");
	memset(long_read, '7', sizeof(long_read) - 1);
	long_read[sizeof(long_read) - 1] = '\0';
	json_object_set_new(setting(sched, 1), "read", json_string(long_read));
	refused(c, probe, sched,
		"sched profile 'relax': the guest did not confirm debugfs.migration_cost_ns (read "
		"'7777777777777777777777777777777777777777777777777777777777777777...', want '0')");
	json_decref(probe);
	json_decref(sched);
	vtb_matrix_free(m);
}

Test(sched_verify, sysctl_reads_back_with_whitespace_collapsed)
{
	struct vtb_matrix *m = ok(BASE "sched = net\n[sched net]\n"
				       "sysctl.net.ipv4.tcp_rmem = 4096 131072 6291456\n" WL);
	const struct vtb_config *c =
		config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=net");
	json_t *sched = json_pack("{s:s, s:s, s:b, s:[{s:s, s:s, s:s, s:s, s:b}], s:[]}", "type",
				  "sched", "name", "net", "ok", 1, "settings", "key",
				  "sysctl.net.ipv4.tcp_rmem", "path", "/proc/sys/net/ipv4/tcp_rmem",
				  "want", "4096 131072 6291456", "read", "4096\t131072\t6291456",
				  "ok", 1, "cmdline");

	cr_assert_not_null(sched);
	accepted(c, NULL, sched); /* no debugfs setting: no probe needed */
	json_object_set_new(setting(sched, 0), "read", json_string("4096\t131072"));
	refused(c, NULL, sched,
		"sched profile 'net': the guest did not confirm sysctl.net.ipv4.tcp_rmem (read '4096?131072', want '4096 131072 6291456')");
	json_decref(sched);
	vtb_matrix_free(m);
}

Test(sched_verify, cmdline_tokens_must_be_present)
{
	struct vtb_matrix *m = ok(BASE "sched = relax\n" RELAX WL);
	const struct vtb_config *c = config(m, RELAX_LABEL);
	json_t *probe = record("deb61-smt2-relax.rec", "probe");
	json_t *sched = record("deb61-smt2-relax.rec", "sched");
	json_t *tok = json_array_get(json_object_get(sched, "cmdline"), 0);

	json_object_set_new(tok, "present", json_false());
	refused(c, probe, sched,
		"sched profile 'relax': the guest did not confirm cmdline token 'relax_domain_level=1' in /proc/cmdline");
	json_array_clear(json_object_get(sched, "cmdline"));
	refused(c, probe, sched,
		"sched profile 'relax': the guest did not confirm cmdline token 'relax_domain_level=1' in /proc/cmdline");
	json_decref(probe);
	json_decref(sched);
	vtb_matrix_free(m);
}

Test(sched_verify, debugfs_knobs_must_be_in_the_probe)
{
	struct vtb_matrix *m = ok(BASE "sched = relax\n" RELAX WL);
	const struct vtb_config *c = config(m, RELAX_LABEL);
	json_t *probe = record("deb61-smt2-relax.rec", "probe");
	json_t *sched = record("deb61-smt2-relax.rec", "sched");
	json_t *p1 = json_deep_copy(probe);

	refused(c, NULL, sched,
		"sched profile 'relax': the guest sent no probe record to show its sched knobs");
	json_object_set_new(p1, "knobs", json_pack("[s]", "latency_ns"));
	refused(c, p1, sched,
		"sched profile 'relax': the guest's probe does not list migration_cost_ns for debugfs.migration_cost_ns (probe.knobs)");
	json_decref(p1);
	p1 = json_deep_copy(probe);
	json_object_set_new(p1, "domain_knobs", json_pack("[s, s]", "busy_factor", "flags"));
	refused(c, p1, sched,
		"sched profile 'relax': the guest's probe does not list imbalance_pct for debugfs.domains/SMT/imbalance_pct (probe.domain_knobs)");
	json_decref(p1);
	json_decref(probe);
	json_decref(sched);
	vtb_matrix_free(m);
}

Test(sched_verify, a_partition_needs_its_cpus_and_root)
{
	struct vtb_matrix *m = ok(BASE "sched = part\n[sched part]\ncpuset.partition = 1\n" WL);
	const struct vtb_config *c =
		config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=part");
	/* the partition of a real guest (that boot failed on another key) */
	json_t *sched = record("deb61-smt2-badknob.rec", "sched");
	json_t *s1;

	json_object_set_new(sched, "name", json_string("part"));
	json_object_set_new(sched, "ok", json_true());
	accepted(c, NULL, sched);
	s1 = json_deep_copy(sched);
	json_object_set_new(setting(s1, 2), "read",
			    json_string("root invalid (Cpu list in cpuset.cpus not exclusive)"));
	refused(c, NULL, s1,
		"sched profile 'part': the guest did not confirm cpuset.partition ('/sys/fs/cgroup/vtb-part/cpuset.cpus.partition' read 'root invalid (Cpu list in cpuset.cpus not exclusive)', want 'root')");
	json_decref(s1);
	s1 = json_deep_copy(sched);
	json_object_set_new(setting(s1, 1), "want", json_string("0-1"));
	refused(c, NULL, s1,
		"sched profile 'part': the guest wrote '0-1' to '/sys/fs/cgroup/vtb-part/cpuset.cpus' for cpuset.partition, the profile says '1'");
	json_decref(s1);
	s1 = json_deep_copy(sched);
	json_object_set_new(setting(s1, 0), "ok", json_false());
	refused(c, NULL, s1,
		"sched profile 'part': the guest did not confirm cpuset.partition ('/sys/fs/cgroup/cgroup.subtree_control': it reports the setting failed)");
	json_decref(s1);
	s1 = json_deep_copy(sched);
	json_array_remove(json_object_get(s1, "settings"), 2);
	refused(c, NULL, s1,
		"sched profile 'part': the guest did not confirm cpuset.partition (its sched record has no cpuset.cpus.partition setting)");
	json_array_clear(json_object_get(s1, "settings"));
	refused(c, NULL, s1,
		"sched profile 'part': the guest did not confirm cpuset.partition (its sched record has no cpuset.cpus setting)");
	json_decref(s1);
	json_decref(sched);
	vtb_matrix_free(m);
}

/* run and plan --db: the knobs a kernel's stored probe lacks make a
 * configuration not runnable, naming the knob; no probe, no verdict. */
Test(sched_verify, knobs_a_kernel_lacks_are_named)
{
	struct vtb_matrix *m = ok(BASE "sched = relax\n" RELAX WL);
	const struct vtb_config *c = config(m, RELAX_LABEL);
	json_t *probe = record("deb61-smt2-relax.rec", "probe");
	json_t *bare = json_pack("{s:[], s:[]}", "knobs", "domain_knobs");
	char *why = NULL;

	cr_expect_eq(vtb_sched_knobs_lacking(c, probe, &why), 0);
	cr_expect_null(why);
	cr_expect_eq(vtb_sched_knobs_lacking(c, NULL, &why), 0, "no probe: unchecked");
	cr_assert_eq(vtb_sched_knobs_lacking(c, bare, &why), 1);
	cr_expect(strstr(why, "lacks debugfs knob ") == why, "%s", why);
	free(why);
	why = NULL;
	/* a guest that built no domain (isolcpus=1 on 2 vCPUs, 1 vCPU) lists
	 * no per-domain knob: its kernel is not judged on them */
	json_object_set_new(probe, "domain_knobs", json_array());
	cr_expect_eq(vtb_sched_knobs_lacking(c, probe, &why), 0, "%s", why ? why : "");
	free(why);
	json_decref(bare);
	json_decref(probe);
	vtb_matrix_free(m);
}

/* A probe that lists /proc/sys/kernel and /proc/sys/vm judges the
 * profile's sysctls too: one the kernel lacks makes the configuration
 * not runnable, naming the key; a probe without the lists (an older
 * agent) leaves them unchecked, never lacking. */
Test(sched_verify, sysctls_a_kernel_lacks_are_named)
{
	struct vtb_matrix *m = ok(BASE "sched = relax\n" RELAX WL);
	const struct vtb_config *c = config(m, RELAX_LABEL);
	json_t *old = record("deb61-smt2-relax.rec", "probe");
	json_t *has = json_deep_copy(old), *lacks = json_deep_copy(old), *keys;
	char *why = NULL;

	cr_assert_null(json_object_get(old, "sysctls"), "the fixture is an old probe");
	json_object_set_new(has, "sysctls",
			    json_pack("{s:[s, s], s:[]}", "kernel", "numa_balancing",
				      "sched_schedstats", "vm"));
	json_object_set_new(lacks, "sysctls",
			    json_pack("{s:[s], s:n}", "kernel", "numa_balancing", "vm"));
	cr_expect_eq(vtb_sched_knobs_lacking(c, old, &why), 0, "%s", why ? why : "");
	keys = vtb_sched_knobs_unchecked(c, old);
	expect_json(keys, "[\"sysctl.kernel.sched_schedstats\"]");
	json_decref(keys);
	cr_expect_eq(vtb_sched_knobs_lacking(c, has, &why), 0, "%s", why ? why : "");
	keys = vtb_sched_knobs_unchecked(c, has);
	expect_json(keys, "[]");
	json_decref(keys);
	cr_assert_eq(vtb_sched_knobs_lacking(c, lacks, &why), 1);
	cr_expect_str_eq(why,
			 "lacks sysctl kernel.sched_schedstats (sysctl.kernel.sched_schedstats)");
	free(why);
	/* no probe at all: every key is unchecked */
	keys = vtb_sched_knobs_unchecked(c, NULL);
	expect_json(keys, "[\"sysctl.kernel.sched_schedstats\", "
			  "\"debugfs.domains/SMT/imbalance_pct\", "
			  "\"debugfs.domains/cpu0/domain0/busy_factor\", "
			  "\"debugfs.migration_cost_ns\"]");
	json_decref(keys);
	json_decref(old);
	json_decref(has);
	json_decref(lacks);
	vtb_matrix_free(m);
}

/* Only the files directly in a listed directory are judged: a nested
 * sysctl (kernel.random.x) or one of another directory (net.*) is
 * unchecked, and a null list (the guest did not list it) too. */
Test(sched_verify, sysctls_the_probe_does_not_cover_stay_unchecked)
{
	struct vtb_matrix *m = ok(BASE "sched = s\n"
				       "[sched s]\n"
				       "sysctl.kernel.random.write_wakeup_threshold = 256\n"
				       "sysctl.net.core.somaxconn = 128\n"
				       "sysctl.vm.swappiness = 10\n" WL);
	const struct vtb_config *c =
		config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=s");
	json_t *probe = json_pack("{s:[], s:[], s:{s:[], s:n}}", "knobs", "domain_knobs", "sysctls",
				  "kernel", "vm");
	json_t *keys;
	char *why = NULL;

	cr_expect(vtb_sched_sets_knobs(c));
	cr_expect_eq(vtb_sched_knobs_lacking(c, probe, &why), 0, "%s", why ? why : "");
	keys = vtb_sched_knobs_unchecked(c, probe);
	expect_json(keys, "[\"sysctl.kernel.random.write_wakeup_threshold\", "
			  "\"sysctl.net.core.somaxconn\", \"sysctl.vm.swappiness\"]");
	json_decref(keys);
	/* an empty list is no listing (every kernel has files there) */
	json_object_set_new(json_object_get(probe, "sysctls"), "vm", json_array());
	cr_expect_eq(vtb_sched_knobs_lacking(c, probe, &why), 0, "%s", why ? why : "");
	json_object_set_new(json_object_get(probe, "sysctls"), "vm",
			    json_pack("[s]", "dirty_ratio"));
	cr_assert_eq(vtb_sched_knobs_lacking(c, probe, &why), 1);
	cr_expect_str_eq(why, "lacks sysctl vm.swappiness (sysctl.vm.swappiness)");
	free(why);
	json_decref(probe);
	vtb_matrix_free(m);
}

/* What a kernel's probe can tell: sysctls and debugfs knobs; a profile
 * with only a command line or a partition sets none. */
Test(sched, sets_knobs_means_sysctls_or_debugfs)
{
	struct vtb_matrix *m = ok(BASE "sched = c, d\n[sched c]\ncmdline = isolcpus=1\n"
				       "[sched d]\ndebugfs.migration_cost_ns = 0\n" WL);

	cr_expect_not(vtb_sched_sets_knobs(
		config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=c")));
	cr_expect(vtb_sched_sets_knobs(
		config(m, "vm vcpus=2 topology=flat pinning=none memory=1G sched=d")));
	vtb_matrix_free(m);
}
