/* SPDX-License-Identifier: MIT */
/*
 * The scheduler evidence of a cell (issue 28): the guest's schedstat
 * record through the record parser (kept with its cell, a hostile one
 * refused as an error of the boot), the rates derived from it and from
 * the host's readings against formulas written here, and the largest
 * differences compare words.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/record.h"
#include "../../harness/compare/compare.h"
#include "../../harness/evidence/evidence.h"
#include "../../harness/records/recparse.h"

#define NONCE "c0ffee"

static struct vtb_rec_parser *P;

static void feed(const char *json)
{
	char *line = vtb_rec_frame(NONCE, json);

	cr_assert_not_null(line);
	vtb_rec_parser_feed(P, line, strlen(line));
	free(line);
}

static bool has_error(const char *needle)
{
	const struct vtb_boot_records *r = vtb_rec_parser_result(P);

	for (size_t i = 0; i < r->n_errors; i++)
		if (strstr(r->errors[i], needle))
			return true;
	return false;
}

#define LB                                                                          \
	"{\"count\":%d,\"balanced\":1,\"failed\":%d,\"imbalance\":3,\"gained\":%d," \
	"\"hot_gained\":0,\"nobusyq\":0,\"nobusyg\":1}"
#define LEVEL(name, c1, f1, g1)                                                   \
	"{\"level\":\"" name "\",\"cpus\":2,\"lb\":{\"busy\":" LB ",\"idle\":" LB \
	",\"newidle\":" LB "},\"alb\":{\"count\":1,\"failed\":0,\"pushed\":2},"   \
	"\"sbe\":{\"count\":0,\"balanced\":0,\"pushed\":0},\"sbf\":{\"count\":0," \
	"\"balanced\":0,\"pushed\":0},\"ttwu\":{\"remote\":40,\"affine\":10,\"balance\":0}}"

/* 2 s, MC: 10+20+30 attempts, 1+2+3 failed, 2+2+2 gained + 2 pushed;
 * cpu0 waited 1 s, cpu1 3 s; 100 + 300 wake-ups, 50 + 250 local;
 * steal 10 and 30 ticks at 100 Hz */
static char *good_record(const char *cell)
{
	char lvl[2048], *r;

	snprintf(lvl, sizeof(lvl), LEVEL("MC", 0, 0, 0), 10, 1, 2, 20, 2, 2, 30, 3, 2);
	r = vtb_asprintf(
		"{\"type\":\"schedstat\",\"cell\":\"%s\",\"seconds\":2.0,\"version\":15,"
		"\"user_hz\":100,\"levels\":[%s],\"cpus\":["
		"{\"cpu\":0,\"yield\":0,\"sched\":9,\"goidle\":1,\"ttwu\":100,\"ttwu_local\":50,"
		"\"run_ns\":1500000000,\"wait_ns\":1000000000,\"slices\":200,\"steal\":10},"
		"{\"cpu\":1,\"yield\":0,\"sched\":9,\"goidle\":1,\"ttwu\":300,\"ttwu_local\":250,"
		"\"run_ns\":1500000000,\"wait_ns\":3000000000,\"slices\":400,\"steal\":30}],"
		"\"notes\":[],\"error\":null}",
		cell, lvl);
	cr_assert_not_null(r);
	return r;
}

static void open_cell(const char *key)
{
	char *c = vtb_asprintf("{\"type\":\"cell\",\"cell\":\"%s\",\"workload\":\"messaging\","
			       "\"params\":{}}",
			       key);

	feed(c);
	free(c);
}

static void setup(void)
{
	P = vtb_rec_parser_new(NONCE, NULL);
	cr_assert_not_null(P);
	feed("{\"type\":\"header\",\"schema\":1}");
}

static void teardown(void)
{
	vtb_rec_parser_free(P);
}

TestSuite(evidence, .init = setup, .fini = teardown);

Test(evidence, a_schedstat_record_is_kept_with_its_cell)
{
	char *r = good_record("k1");
	const struct vtb_boot_records *res;

	open_cell("k1");
	feed(r);
	res = vtb_rec_parser_result(P);
	cr_assert_eq(res->n_errors, 0, "%s", res->n_errors ? res->errors[0] : "");
	cr_assert_not_null(res->cells[0].schedstat);
	/* once per cell */
	feed(r);
	cr_assert(has_error("duplicate schedstat record for 'k1'"));
	free(r);
}

Test(evidence, hostile_schedstat_records_are_errors_not_kept)
{
	static const char *const bad[][2] = {
		/* a negative counter */
		{ "{\"type\":\"schedstat\",\"cell\":\"k1\",\"seconds\":1,\"version\":15,\"levels\":[],"
		  "\"cpus\":[{\"cpu\":0,\"yield\":-1,\"sched\":0,\"goidle\":0,\"ttwu\":0,"
		  "\"ttwu_local\":0,\"run_ns\":0,\"wait_ns\":0,\"slices\":0}],\"notes\":[]}",
		  "cpus[0].yield is not a non-negative integer" },
		/* a string for a count */
		{ "{\"type\":\"schedstat\",\"cell\":\"k1\",\"seconds\":1,\"version\":15,\"levels\":[],"
		  "\"cpus\":[],\"notes\":[\"x\"],\"error\":7}",
		  "error is not a string or null" },
		/* seconds not finite-positive */
		{ "{\"type\":\"schedstat\",\"cell\":\"k1\",\"seconds\":-1,\"version\":15,\"levels\":[],"
		  "\"cpus\":[],\"notes\":[]}",
		  "seconds is not a finite non-negative number" },
		/* a level name over 32 bytes */
		{ "{\"type\":\"schedstat\",\"cell\":\"k1\",\"seconds\":1,\"version\":15,\"levels\":"
		  "[{\"level\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}],\"cpus\":[],"
		  "\"notes\":[]}",
		  "levels[0].level is longer than 32 bytes" },
		/* an unknown cell */
		{ "{\"type\":\"schedstat\",\"cell\":\"nosuch\",\"seconds\":1,\"version\":15,"
		  "\"levels\":[],\"cpus\":[],\"notes\":[]}",
		  "schedstat record for unknown cell 'nosuch'" },
	};

	open_cell("k1");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		feed(bad[i][0]);
		cr_expect(has_error(bad[i][1]), "case %zu: no error containing '%s'", i, bad[i][1]);
	}
	cr_assert_null(vtb_rec_parser_result(P)->cells[0].schedstat);
}

Test(evidence, seventeen_levels_are_refused)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	char lvl[2048];

	snprintf(lvl, sizeof(lvl), LEVEL("MC", 0, 0, 0), 1, 0, 0, 1, 0, 0, 1, 0, 0);
	cr_assert_eq(vtb_strbuf_addstr(&sb, "{\"type\":\"schedstat\",\"cell\":\"k1\",\"seconds\":1,"
					    "\"version\":15,\"levels\":["),
		     0);
	for (int i = 0; i < 17; i++)
		cr_assert_eq(vtb_strbuf_addf(&sb, "%s%s", i ? "," : "", lvl), 0);
	cr_assert_eq(vtb_strbuf_addstr(&sb, "],\"cpus\":[],\"notes\":[]}"), 0);
	open_cell("k1");
	feed(sb.buf);
	cr_assert(has_error("levels has 17 elements, at most 16"));
	vtb_strbuf_release(&sb);
}

static double metric(const struct vtb_evidence *e, const char *name)
{
	for (size_t i = 0; i < e->n_metrics; i++)
		if (!strcmp(e->metrics[i].metric, name))
			return e->metrics[i].value;
	return NAN;
}

Test(evidence, rates_follow_the_formulas)
{
	char *text = good_record("k1");
	json_t *g = json_loads(text, 0, NULL), *h;
	struct vtb_evidence e;

	free(text);
	cr_assert_not_null(g);
	/* two vCPUs over 4 s: waited 0.4 s and 1.2 s, ran 2 s and 0.5 s */
	h = json_loads(
		"{\"seconds\":4.0,\"vcpus\":["
		"{\"vcpu\":0,\"run_ns\":2000000000,\"wait_ns\":400000000,\"slices\":5,"
		"\"invol\":8,\"migrations\":2,\"moves\":0,\"pcpus\":[0],\"pcpus_seen\":1},"
		"{\"vcpu\":1,\"run_ns\":500000000,\"wait_ns\":1200000000,\"slices\":5,"
		"\"invol\":4,\"migrations\":0,\"moves\":1,\"pcpus\":[1,0],\"pcpus_seen\":2}]}",
		0, NULL);
	cr_assert_not_null(h);
	cr_assert_eq(vtb_evidence_build("k1", g, h, &e), 0);
	cr_expect_float_eq(metric(&e, "evidence/mc_lb_per_s"), 60.0 / 2, 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/lb_per_s"), 60.0 / 2, 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/mc_lb_failed_pct"), 100.0 * 6 / 60, 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/mc_moved_per_s"), 8.0 / 2, 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/wake_remote_pct"), 100.0 * 100 / 400, 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/wake_affine_pct"), 100.0 * 10 / 400, 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/guest_runq_wait"), 4.0 / (2 * 2), 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/slices_per_s"), 600.0 / 2, 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/steal_pct"), 100.0 * 40 / (2 * 100 * 2), 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/vcpu_run_delay_pct"), 100.0 * 1.6 / (4 * 2), 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/vcpu_busy_pct"), 100.0 * 2.5 / (4 * 2), 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/vcpu_busy_min_pct"), 100.0 * 0.5 / 4, 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/vcpu_preempt_per_s"), 12.0 / 4, 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/vcpu_migrations_per_s"), 2.0 / 4, 1e-9);
	cr_expect_float_eq(metric(&e, "evidence/vcpu_pcpus"), 1.5, 1e-9);
	/* the guest JSON is stored without its type and cell */
	cr_expect_null(strstr(e.guest, "\"type\""));
	cr_expect_not_null(strstr(e.host, "\"pcpus_seen\":2"));
	vtb_evidence_release(&e);
	json_decref(g);
	json_decref(h);
}

Test(evidence, no_counters_no_rates_and_an_error_record_gives_none)
{
	json_t *g = json_loads("{\"seconds\":1,\"version\":null,\"levels\":[],\"cpus\":[],"
			       "\"notes\":[],\"error\":\"schedstat version 18 is not supported\"}",
			       0, NULL);
	struct vtb_evidence e;

	cr_assert_eq(vtb_evidence_build("k", g, NULL, &e), 0);
	cr_expect_eq(e.n_metrics, 0);
	cr_expect_not_null(e.guest);
	vtb_evidence_release(&e);
	cr_assert_eq(vtb_evidence_build("k", NULL, NULL, &e), 0);
	cr_expect_eq(e.n_metrics, 0);
	cr_expect_null(e.guest);
	vtb_evidence_release(&e);
	json_decref(g);
}

Test(evidence, level_keys_are_normalised)
{
	char k[16];

	vtb_evidence_level_key("DIE", k);
	cr_expect_str_eq(k, "pkg");
	vtb_evidence_level_key("PKG", k);
	cr_expect_str_eq(k, "pkg");
	vtb_evidence_level_key("NUMA_2", k);
	cr_expect_str_eq(k, "numa2");
	vtb_evidence_level_key("../ x;DROP", k);
	cr_expect_str_eq(k, "xdrop");
	cr_expect(vtb_evidence_metric("evidence/lb_per_s"));
	/* rates that may be 0: averaged as they are, never harmonically */
	cr_expect_eq(vtb_metric_class("evidence/lb_per_s", "1/s"), VTB_MC_TIME);
	cr_expect_eq(vtb_metric_class("evidence/vcpu_run_delay_pct", "%"), VTB_MC_TIME);
	cr_expect(!vtb_evidence_metric("wakeup_p99"));
	cr_expect(!vtb_evidence_metric(NULL));
}

/* compare's words: the level a side lacks counts as never balanced, and
 * the largest differences come first */
Test(evidence, the_largest_differences_of_two_configurations)
{
	json_t *x = json_loads("{\"sched\":[{\"cell\":\"msg\",\"metrics\":{"
			       "\"lb_per_s\":{\"mean\":0,\"unit\":\"1/s\"},"
			       "\"wake_remote_pct\":{\"mean\":0,\"unit\":\"%\"},"
			       "\"vcpu_run_delay_pct\":{\"mean\":2.0,\"unit\":\"%\"}}}]}",
			       0, NULL);
	json_t *b = json_loads("{\"sched\":[{\"cell\":\"msg\",\"metrics\":{"
			       "\"lb_per_s\":{\"mean\":44,\"unit\":\"1/s\"},"
			       "\"mc_lb_per_s\":{\"mean\":44,\"unit\":\"1/s\"},"
			       "\"wake_remote_pct\":{\"mean\":51,\"unit\":\"%\"},"
			       "\"vcpu_run_delay_pct\":{\"mean\":2.1,\"unit\":\"%\"}}}]}",
			       0, NULL);
	json_t *items;

	cr_assert_not_null(x);
	cr_assert_not_null(b);
	items = vtb_compare_evidence_diff(x, b, "msg");
	cr_assert_not_null(items);
	/* run delay is within a quarter: not listed; the total balancing
	 * says what MC's says: not listed; two others are */
	cr_assert_eq(json_array_size(items), 2);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(items, 0), "metric")),
			 "wake_remote_pct");
	for (size_t i = 0; i < 2; i++) {
		const char *m = json_string_value(
			json_object_get(json_array_get(items, i), "metric"));

		cr_expect(strcmp(m, "vcpu_run_delay_pct"), "run delay listed");
		cr_expect(strcmp(m, "lb_per_s"), "the total listed beside its level");
		if (!strcmp(m, "mc_lb_per_s"))
			cr_expect_float_eq(json_number_value(
						   json_object_get(json_array_get(items, i), "x")),
					   0.0, 1e-12);
	}
	cr_expect_null(vtb_compare_evidence_diff(x, b, "other"));
	json_decref(items);
	json_decref(x);
	json_decref(b);
}

/* ---- the guest side: common/cellstat.c on a fake tree ---- */

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/cellstat.h"
#include "../../reports/evwords.h"

static char *root_dir;

static void put_file(const char *rel, const char *text)
{
	char *p = vtb_asprintf("%s%s", root_dir, rel);
	FILE *f;

	cr_assert_not_null(p);
	f = fopen(p, "w");
	cr_assert_not_null(f, "%s", p);
	fputs(text, f);
	fclose(f);
	free(p);
}

static char *fixture(const char *name)
{
	const char *src = getenv("SRCDIR");
	char *p = vtb_asprintf("%s/tests/fixtures/schedstat/%s", src ? src : ".", name);
	char *t;

	cr_assert_not_null(p);
	t = vtb_read_file(p, 1 << 20);
	cr_assert_not_null(t, "%s", p);
	free(p);
	return t;
}

static char *knob(void)
{
	char *p = vtb_asprintf("%s/proc/sys/kernel/sched_schedstats", root_dir);
	char *t = vtb_read_file(p, 64);

	free(p);
	return t;
}

static void mkroot(void)
{
	char tmpl[] = "/tmp/vtbcellstat.XXXXXX";
	char *d;

	cr_assert_not_null(mkdtemp(tmpl));
	root_dir = strdup(tmpl);
	d = vtb_asprintf("%s/proc/sys/kernel", root_dir);
	cr_assert_eq(vtb_mkdir_p(d, 0755, false), 0);
	free(d);
	d = vtb_asprintf("%s/sys/kernel/debug/sched/domains/cpu0/domain0", root_dir);
	cr_assert_eq(vtb_mkdir_p(d, 0755, false), 0);
	free(d);
	put_file("/sys/kernel/debug/sched/domains/cpu0/domain0/name", "SMT\n");
	put_file("/proc/stat", "cpu  1 2 3 4 5 6 7 100 0 0\ncpu0 1 2 3 4 5 6 7 40 0 0\n"
			       "cpu1 1 2 3 4 5 6 7 60 0 0\nintr 0\n");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* In this process, not by a forked rm -rf: Criterion's runner handles a
 * child of a test process only as the scheduling happens to fall. */
static void rmroot(void)
{
	nftw(root_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(root_dir);
}

Test(evidence, the_guest_record_of_a_cell_from_two_readings, .init = mkroot, .fini = rmroot)
{
	struct vtb_cellstat cs;
	char *before = fixture("v15-before"), *after = fixture("v15-after");
	json_t *rec, *l0;
	char *was = NULL, *why = NULL, *now;

	/* schedstats on for the job, and back */
	put_file("/proc/sys/kernel/sched_schedstats", "0\n");
	cr_assert_eq(vtb_cellstat_enable(root_dir, &was, &why), 0);
	cr_expect_str_eq(was, "0");
	cr_expect_null(why);
	now = knob();
	cr_expect_str_eq(now, "1");
	free(now);

	put_file("/proc/schedstat", before);
	vtb_cellstat_begin(root_dir, &cs);
	put_file("/proc/schedstat", after);
	put_file("/proc/stat", "cpu  1 2 3 4 5 6 7 130 0 0\ncpu0 1 2 3 4 5 6 7 50 0 0\n"
			       "cpu1 1 2 3 4 5 6 7 80 0 0\n");
	rec = vtb_cellstat_end(root_dir, &cs, "k1", "a note");
	cr_assert_not_null(rec);
	cr_expect_str_eq(json_string_value(json_object_get(rec, "type")), "schedstat");
	cr_expect_eq(json_integer_value(json_object_get(rec, "version")), 15);
	cr_expect(json_is_null(json_object_get(rec, "error")));
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(rec, "notes"), 0)),
			 "a note");
	/* cpu0's domain0 is named from debugfs; the others are domainN */
	l0 = json_array_get(json_object_get(rec, "levels"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(l0, "level")), "SMT");
	cr_expect_eq(json_integer_value(
			     json_object_get(json_array_get(json_object_get(rec, "cpus"), 0),
					     "steal")),
		     10);
	cr_expect_eq(json_integer_value(
			     json_object_get(json_array_get(json_object_get(rec, "cpus"), 1),
					     "steal")),
		     20);
	cr_expect(json_integer_value(json_object_get(rec, "cost_ns")) >= 0);
	/* and the harness takes it as it is */
	{
		char *text = json_dumps(rec, JSON_COMPACT);

		open_cell("k1");
		feed(text);
		cr_expect_not_null(vtb_rec_parser_result(P)->cells[0].schedstat, "%s",
				   vtb_rec_parser_result(P)->n_errors
					   ? vtb_rec_parser_result(P)->errors[0]
					   : "");
		free(text);
	}
	json_decref(rec);

	vtb_cellstat_restore(root_dir, was);
	now = knob();
	cr_expect_str_eq(now, "0");
	free(now);
	free(was);
	free(before);
	free(after);
}

Test(evidence, an_unknown_or_hostile_schedstat_is_the_records_error, .init = mkroot, .fini = rmroot)
{
	static const char *const names[] = { "v18", "bad-overlong-line", "bad-nul",
					     "bad-million-cpus" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct vtb_cellstat cs;
		char *t = fixture(names[i]), *text;
		json_t *rec;

		put_file("/proc/schedstat", t);
		vtb_cellstat_begin(root_dir, &cs);
		rec = vtb_cellstat_end(root_dir, &cs, "k1", NULL);
		cr_assert_not_null(rec, "%s", names[i]);
		cr_expect(json_is_string(json_object_get(rec, "error")), "%s", names[i]);
		cr_expect_leq(json_string_length(json_object_get(rec, "error")), 512);
		cr_expect_eq(json_array_size(json_object_get(rec, "levels")), 0);
		text = json_dumps(rec, JSON_COMPACT);
		if (i == 0)
			open_cell("k1");
		feed(text);
		free(text);
		json_decref(rec);
		free(t);
	}
	/* the first is kept, each later one a duplicate: none is refused */
	cr_expect_eq(vtb_rec_parser_result(P)->n_errors, 3);
	cr_expect(has_error("duplicate schedstat record"));
	cr_expect(!has_error("is not"));
}

Test(evidence, a_guest_cannot_name_its_own_samples_evidence)
{
	open_cell("k1");
	feed("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"evidence/vcpu_run_delay_pct\","
	     "\"unit\":\"%\",\"value\":0,\"better\":\"lower\"}");
	cr_assert(has_error("evidence/ is the harness's"));
	cr_assert_eq(vtb_rec_parser_result(P)->n_samples, 0);
}

Test(evidence, an_interval_too_short_gives_no_rate)
{
	json_t *g =
		json_loads("{\"seconds\":1e-300,\"version\":15,\"levels\":[],\"cpus\":[{\"cpu\":0,"
			   "\"yield\":0,\"sched\":0,\"goidle\":0,\"ttwu\":9,\"ttwu_local\":0,"
			   "\"run_ns\":1,\"wait_ns\":9000000000000000000,\"slices\":1}],"
			   "\"notes\":[],\"error\":null}",
			   0, NULL);
	json_t *h = json_loads("{\"seconds\":1e-300,\"vcpus\":[{\"vcpu\":0,\"run_ns\":1,\"wait_ns\":"
			       "9000000000000000000,\"slices\":1,\"invol\":1,\"migrations\":1}]}",
			       0, NULL);
	struct vtb_evidence e;

	cr_assert_not_null(g);
	cr_assert_not_null(h);
	cr_assert_eq(vtb_evidence_build("k", g, h, &e), 0);
	for (size_t i = 0; i < e.n_metrics; i++)
		cr_expect(strcmp(e.metrics[i].unit, "1/s") && strcmp(e.metrics[i].unit, "%") &&
				  strcmp(e.metrics[i].unit, "tasks"),
			  "%s: a rate or share of no time", e.metrics[i].metric);
	vtb_evidence_release(&e);
	json_decref(g);
	json_decref(h);
}

Test(evidence, an_item_without_figures_says_nothing)
{
	json_t *items = json_loads("[{\"metric\":\"wake_remote_pct\",\"x\":40,\"base\":3},"
				   "{\"metric\":\"steal_pct\",\"x\":null,\"base\":1},"
				   "{\"metric\":\"vcpu_run_delay_pct\",\"x\":12,\"base\":1}]",
				   0, NULL);
	char *w = vtb_ev_words(items, "c3", "c2");

	cr_assert_not_null(w);
	cr_expect_str_eq(w, "40% of c3's wake-ups were remote, 3.0% of c2's; c3's vCPUs waited 12% "
			    "of the time on the host, c2's 1.0%");
	free(w);
	json_decref(items);
}
