/* SPDX-License-Identifier: MIT */
/*
 * hoststate: snapshots of fake procfs/sysfs trees
 * (tests/fixtures/hoststate/{intel,amd}), their diff, the busy check.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/host/hoststate.h"

/* Fixture trees, found from $SRCDIR (tests/run.sh) or the current
 * directory (make's). */
static char *fixture(const char *name)
{
	const char *src = getenv("SRCDIR");
	char *p = vtb_asprintf("%s/tests/fixtures/hoststate/%s", src ? src : ".", name);

	cr_assert(p);
	return p;
}

static json_t *snapshot_of(const char *name)
{
	char *root = fixture(name);
	json_t *s = vtb_hoststate_snapshot(root);

	cr_assert(s, "snapshot of %s: %s", root, vtb_errmsg());
	free(root);
	return s;
}

static void expect_json(json_t *got, const char *want_text)
{
	json_error_t err;
	json_t *want = json_loads(want_text, 0, &err);
	char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

	cr_assert(want, "bad expected JSON: %s", err.text);
	cr_expect(json_equal(got, want), "got %s", g);
	free(g);
	json_decref(want);
}

Test(hoststate, snapshot_reads_every_setting_of_a_full_tree)
{
	json_t *s = snapshot_of("intel");

	expect_json(s,
		    "{"
		    "\"kernel\": \"6.1.0-28-amd64\","
		    "\"cmdline\": \"BOOT_IMAGE=/vmlinuz-6.1.0-28-amd64 root=/dev/sda1 ro quiet\","
		    "\"governor\": \"performance,powersave\","
		    "\"boost\": true,"
		    "\"cpuidle\": {\"driver\": \"intel_idle\", \"governor\": \"menu\","
		    "  \"states\": {\"POLL\": \"enabled\", \"C1\": \"enabled\","
		    "               \"C1E\": \"enabled\", \"C6\": \"disabled\"}},"
		    "\"thp\": {\"enabled\": \"madvise\", \"defrag\": \"madvise\"},"
		    "\"ksm\": {\"run\": 0},"
		    "\"numa_balancing\": 1,"
		    "\"smt\": {\"control\": \"on\", \"active\": true},"
		    "\"vulnerabilities\": {\"meltdown\": \"Mitigation: PTI\","
		    "                      \"spectre_v2\": \"Mitigation: IBRS\"},"
		    "\"microcode\": \"0xf0\","
		    "\"isolated\": \"\","
		    "\"nohz_full\": \"(null)\"}");
	json_decref(s);
}

Test(hoststate, cpuidle_states_keep_the_kernel_order)
{
	json_t *s = snapshot_of("intel");
	json_t *states = json_object_get(json_object_get(s, "cpuidle"), "states");
	const char *want[] = { "POLL", "C1", "C1E", "C6" }, *key;
	json_t *v;
	size_t i = 0;

	json_object_foreach(states, key, v)
	{
		cr_assert_lt(i, 4);
		cr_expect_str_eq(key, want[i]);
		i++;
	}
	cr_expect_eq(i, 4);
	json_decref(s);
}

Test(hoststate, missing_files_are_null_and_boost_comes_from_cpufreq)
{
	json_t *s = snapshot_of("amd");

	expect_json(
		s,
		"{"
		"\"kernel\": \"6.1.0-30-amd64\","
		"\"cmdline\": \"BOOT_IMAGE=/vmlinuz-6.1.0-30-amd64 root=/dev/sda1 ro isolcpus=1 nohz_full=1\","
		"\"governor\": \"performance\","
		"\"boost\": false,"
		"\"cpuidle\": {\"driver\": null, \"governor\": null, \"states\": null},"
		"\"thp\": {\"enabled\": \"never\", \"defrag\": \"madvise\"},"
		"\"ksm\": {\"run\": 1},"
		"\"numa_balancing\": 0,"
		"\"smt\": {\"control\": \"notsupported\", \"active\": false},"
		"\"vulnerabilities\": null,"
		"\"microcode\": \"0x8301055\","
		"\"isolated\": \"1\","
		"\"nohz_full\": \"1\"}");
	json_decref(s);
}

Test(hoststate, a_missing_root_gives_all_nulls_not_an_error)
{
	json_t *s = vtb_hoststate_snapshot("/nonexistent/vtbench-root");

	cr_assert(s);
	expect_json(s, "{\"kernel\": null, \"cmdline\": null, \"governor\": null,"
		       "\"boost\": null,"
		       "\"cpuidle\": {\"driver\": null, \"governor\": null, \"states\": null},"
		       "\"thp\": {\"enabled\": null, \"defrag\": null}, \"ksm\": {\"run\": null},"
		       "\"numa_balancing\": null, \"smt\": {\"control\": null, \"active\": null},"
		       "\"vulnerabilities\": null, \"microcode\": null, \"isolated\": null,"
		       "\"nohz_full\": null}");
	json_decref(s);
}

Test(hoststate, root_with_trailing_slash_reads_the_same)
{
	char *root = fixture("intel/");
	json_t *a = vtb_hoststate_snapshot(root), *b = snapshot_of("intel");

	cr_expect(json_equal(a, b));
	json_decref(a);
	json_decref(b);
	free(root);
}

Test(hoststate, diff_of_equal_snapshots_is_null)
{
	json_t *a = snapshot_of("intel"), *b = snapshot_of("intel");

	cr_expect_null(vtb_hoststate_diff(a, b));
	json_decref(a);
	json_decref(b);
}

Test(hoststate, diff_lists_changed_leaves_with_dotted_keys_sorted)
{
	json_t *a = snapshot_of("intel"), *b = snapshot_of("amd");
	char *d = vtb_hoststate_diff(a, b);

	cr_assert(d);
	cr_expect_str_eq(
		d, "boost: true -> false\n"
		   "cmdline: BOOT_IMAGE=/vmlinuz-6.1.0-28-amd64 root=/dev/sda1 ro quiet -> "
		   "BOOT_IMAGE=/vmlinuz-6.1.0-30-amd64 root=/dev/sda1 ro isolcpus=1 nohz_full=1\n"
		   "cpuidle.driver: intel_idle -> null\n"
		   "cpuidle.governor: menu -> null\n"
		   "cpuidle.states: {\"C1\":\"enabled\",\"C1E\":\"enabled\",\"C6\":\"disabled\","
		   "\"POLL\":\"enabled\"} -> null\n"
		   "governor: performance,powersave -> performance\n"
		   "isolated: \"\" -> 1\n"
		   "kernel: 6.1.0-28-amd64 -> 6.1.0-30-amd64\n"
		   "ksm.run: 0 -> 1\n"
		   "microcode: 0xf0 -> 0x8301055\n"
		   "nohz_full: (null) -> 1\n"
		   "numa_balancing: 1 -> 0\n"
		   "smt.active: true -> false\n"
		   "smt.control: on -> notsupported\n"
		   "thp.enabled: madvise -> never\n"
		   "vulnerabilities: {\"meltdown\":\"Mitigation: PTI\","
		   "\"spectre_v2\":\"Mitigation: IBRS\"} -> null");
	free(d);
	json_decref(a);
	json_decref(b);
}

Test(hoststate, diff_names_added_and_removed_keys)
{
	json_t *a = json_pack("{s:{s:s}}", "thp", "enabled", "always");
	json_t *b = json_pack("{s:{s:s}, s:i}", "thp", "enabled", "never", "extra", 3);
	char *d = vtb_hoststate_diff(a, b);

	cr_assert(d);
	cr_expect_str_eq(d, "extra: (absent) -> 3\nthp.enabled: always -> never");
	free(d);
	d = vtb_hoststate_diff(b, a);
	cr_expect_str_eq(d, "extra: 3 -> (absent)\nthp.enabled: never -> always");
	free(d);
	json_decref(a);
	json_decref(b);
}

static const char stat0[] = "cpu  300 0 0 2700 0 0 0 0 0 0\n"
			    "cpu0 100 0 0 900 0 0 0 0 0 0\n"
			    "cpu1 100 0 0 900 0 0 0 0 0 0\n"
			    "cpu2 100 0 0 900 0 0 0 0 0 0\n"
			    "intr 1 2 3\n";
/* +100 ticks each: cpu0 5% busy, cpu1 37% (user+system+irq), cpu2 50%
 * with half of it iowait (idle), guest time not counted twice */
static const char stat1[] = "cpu  400 0 0 2800 0 0 0 0 0 0\n"
			    "cpu0 105 0 0 995 0 0 0 0 0 0\n"
			    "cpu1 120 0 10 963 0 7 0 0 0 0\n"
			    "cpu2 125 0 0 925 50 0 0 0 20 0\n"
			    "intr 1 2 3\n";

static void set_of(const char *list, struct vtb_cpuset *set)
{
	cr_assert_eq(vtb_cpuset_parse(list, set), 0, "%s", vtb_errmsg());
}

Test(hoststate, busy_from_reports_cpus_above_the_threshold)
{
	struct vtb_cpuset set = { NULL, 0 };
	char *out = NULL;

	set_of("0-2", &set);
	cr_assert_eq(vtb_hoststate_busy_from(stat0, stat1, &set, 0.10, &out), 0, "%s",
		     vtb_errmsg());
	cr_assert(out);
	cr_expect_str_eq(out, "cpu1 37% busy\ncpu2 25% busy");
	free(out);
	cr_assert_eq(vtb_hoststate_busy_from(stat0, stat1, &set, 0.30, &out), 0);
	cr_expect_str_eq(out, "cpu1 37% busy");
	free(out);
	vtb_cpuset_release(&set);
}

Test(hoststate, busy_from_only_looks_at_the_given_cpus)
{
	struct vtb_cpuset set = { NULL, 0 };
	char *out = (char *)"sentinel";

	set_of("0", &set);
	cr_assert_eq(vtb_hoststate_busy_from(stat0, stat1, &set, 0.10, &out), 0);
	cr_expect_null(out);
	vtb_cpuset_release(&set);
	cr_assert_eq(vtb_hoststate_busy_from(stat0, stat1, NULL, 0.30, &out), 0);
	cr_expect_str_eq(out, "cpu1 37% busy");
	free(out);
}

Test(hoststate, busy_from_reports_cpus_missing_from_proc_stat)
{
	struct vtb_cpuset set = { NULL, 0 };
	char *out = NULL;

	set_of("2-3", &set);
	cr_assert_eq(vtb_hoststate_busy_from(stat0, stat1, &set, 0.90, &out), 0);
	cr_expect_str_eq(out, "cpu3 offline");
	free(out);
	vtb_cpuset_release(&set);
}

Test(hoststate, busy_from_rejects_a_malformed_cpu_line)
{
	char *out = NULL;

	cr_expect_eq(vtb_hoststate_busy_from("cpu0 1 2\n", stat1, NULL, 0.1, &out), -1);
	cr_expect_str_eq(vtb_errmsg(), "malformed /proc/stat line 'cpu0 1 2'");
	cr_expect_null(out);
}

Test(hoststate, busy_on_a_fixture_root_with_no_interval_is_idle)
{
	char *root = fixture("intel");
	struct vtb_cpuset set = { NULL, 0 };
	char *out = NULL;

	set_of("0-1", &set);
	cr_assert_eq(vtb_hoststate_busy(root, &set, 0, 0.0, &out), 0, "%s", vtb_errmsg());
	cr_expect_null(out);
	cr_expect_eq(vtb_hoststate_busy(root, &set, 1, 0.0, &out), 0);
	cr_expect_null(out);
	vtb_cpuset_release(&set);
	free(root);
	root = fixture("amd");
	cr_expect_eq(vtb_hoststate_busy(root, NULL, 0, 0.0, &out), -1);
	cr_expect(strstr(vtb_errmsg(), "proc/stat"), "%s", vtb_errmsg());
	free(root);
}
