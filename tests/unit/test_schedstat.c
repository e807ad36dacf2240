/* SPDX-License-Identifier: MIT */
/*
 * /proc/schedstat parsing, differencing and the agent's JSON against the
 * texts of tests/fixtures/schedstat/ (written from the kernel's
 * field descriptions, their counters in patterns its README gives: the
 * numbers asserted here are worked out from those by hand), hostile
 * texts refused with the line named, and a few thousand damaged copies
 * of valid texts that must never crash.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/schedstat.h"
#include "../../common/vtbutil.h"

struct text {
	char *s;
	size_t n;
};

static char *fixture_path(const char *dir, const char *name)
{
	const char *src = getenv("SRCDIR");

	return vtb_asprintf("%s/tests/fixtures/%s/%s", src ? src : ".", dir, name);
}

/* The bytes of a fixture, NUL bytes and all. */
static struct text load(const char *name)
{
	char *path = fixture_path("schedstat", name);
	struct text t = { NULL, 0 };
	FILE *f = fopen(path, "rb");
	long n;

	cr_assert_not_null(f, "cannot open %s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	cr_assert_geq(n, 0);
	rewind(f);
	t.s = malloc((size_t)n + 1);
	cr_assert_not_null(t.s);
	cr_assert_eq(fread(t.s, 1, (size_t)n, f), (size_t)n);
	t.n = (size_t)n;
	fclose(f);
	free(path);
	return t;
}

static void parse_ok(const char *name, struct vtb_schedstat *s)
{
	struct text t = load(name);

	cr_assert_eq(vtb_schedstat_parse(t.s, t.n, s), 0, "%s: %s", name, vtb_errmsg());
	free(t.s);
}

static void parse_str(const char *text, struct vtb_schedstat *s)
{
	cr_assert_eq(vtb_schedstat_parse(text, strlen(text), s), 0, "%s", vtb_errmsg());
}

/* The diff of two fixtures; *notes owned by the caller. */
static void diff_of(const char *a, const char *b, struct vtb_schedstat *d, json_t **notes)
{
	struct vtb_schedstat x, y;

	parse_ok(a, &x);
	parse_ok(b, &y);
	cr_assert_eq(vtb_schedstat_diff(&x, &y, d, notes), 0, "%s", vtb_errmsg());
	vtb_schedstat_release(&x);
	vtb_schedstat_release(&y);
}

static const struct vtb_ss_cpu *cpu_of(const struct vtb_schedstat *s, int cpu)
{
	for (size_t i = 0; i < s->n_cpus; i++)
		if (s->cpus[i].cpu == cpu)
			return &s->cpus[i];
	cr_assert_fail("no cpu%d", cpu);
	return NULL;
}

static char *notes_text(json_t *notes)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	json_t *v;
	size_t i;

	vtb_strbuf_addstr(&sb, "");
	json_array_foreach(notes, i, v) vtb_strbuf_addf(&sb, "%s\n", json_string_value(v));
	return vtb_strbuf_detach(&sb);
}

/* The value at a dotted path ("levels.0.lb.busy.count"), or NULL. */
static json_t *jget(json_t *o, const char *path)
{
	json_t *v = o;
	char *copy = strdup(path), *save = NULL, *t;

	for (t = strtok_r(copy, ".", &save); t && v; t = strtok_r(NULL, ".", &save))
		v = t[0] >= '0' && t[0] <= '9' ? json_array_get(v, (size_t)atoi(t))
					       : json_object_get(v, t);
	free(copy);
	return v;
}

static long long jint(json_t *o, const char *path)
{
	json_t *v = jget(o, path);

	cr_assert(json_is_integer(v), "%s is not an integer", path);
	return json_integer_value(v);
}

static const char *jstr(json_t *o, const char *path)
{
	json_t *v = jget(o, path);

	return json_is_string(v) ? json_string_value(v) : "(none)";
}

/* domain lines' counters, all 0: 36 (v15, v16), 45 (v17) */
#define ZEROS9 " 0 0 0 0 0 0 0 0 0"
#define ZEROS36 ZEROS9 ZEROS9 ZEROS9 ZEROS9 "\n"
#define ZEROS45 ZEROS9 ZEROS9 ZEROS9 ZEROS9 ZEROS9 "\n"

/* ------------------------------------------------------------ parsing */

Test(schedstat, v15_reads_idle_busy_newidle_into_busy_idle_newidle)
{
	struct vtb_schedstat s;
	const struct vtb_ss_cpu *c;
	const struct vtb_ss_domain *d;

	parse_ok("v15-before", &s);
	cr_expect_eq(s.version, 15);
	cr_expect_eq(s.timestamp, 4295000000ULL);
	cr_assert_eq(s.n_cpus, 4);
	c = cpu_of(&s, 1);
	cr_expect_eq(c->yld_count, 2001);
	cr_expect_eq(c->sched_count, 2003);
	cr_expect_eq(c->sched_goidle, 2004);
	cr_expect_eq(c->ttwu_count, 2005);
	cr_expect_eq(c->ttwu_local, 2006);
	cr_expect_eq(c->rq_cpu_time, 20000000007ULL);
	cr_expect_eq(c->run_delay, 20000000008ULL);
	cr_expect_eq(c->pcount, 2009);
	cr_assert_eq(c->n_domains, 2);
	d = &c->domains[0];
	cr_expect_eq(d->index, 0);
	cr_expect_str_eq(d->name, "");
	cr_expect_str_eq(d->mask, "3");
	cr_expect_str_eq(c->domains[1].mask, "f");
	/* counters 1-8: idle, 9-16: busy, 17-24: newly idle */
	cr_expect_eq(d->lb[VTB_SS_IDLE].count, 2001);
	cr_expect_eq(d->lb[VTB_SS_IDLE].imbalance, 2004);
	cr_expect_eq(d->lb[VTB_SS_IDLE].nobusyg, 2008);
	cr_expect_eq(d->lb[VTB_SS_BUSY].count, 2009);
	cr_expect_eq(d->lb[VTB_SS_BUSY].balanced, 2010);
	cr_expect_eq(d->lb[VTB_SS_BUSY].hot_gained, 2014);
	cr_expect_eq(d->lb[VTB_SS_BUSY].nobusyg, 2016);
	cr_expect_eq(d->lb[VTB_SS_NEWIDLE].count, 2017);
	cr_expect_eq(d->lb[VTB_SS_NEWIDLE].nobusyq, 2023);
	cr_expect_eq(d->lb[VTB_SS_BUSY].imb_load, 0);
	cr_expect_eq(d->alb_count, 2025);
	cr_expect_eq(d->sbe_count, 2028);
	cr_expect_eq(d->sbf_pushed, 2033);
	cr_expect_eq(d->ttwu_wake_remote, 2034);
	cr_expect_eq(d->ttwu_move_balance, 2036);
	cr_expect_eq(c->domains[1].lb[VTB_SS_BUSY].count, 2109);
	cr_expect_eq(cpu_of(&s, 3)->domains[0].lb[VTB_SS_IDLE].failed, 4003);
	vtb_schedstat_release(&s);
	cr_expect_null(s.cpus);
	cr_expect_eq(s.n_cpus, 0);
}

Test(schedstat, v16_reads_busy_idle_newidle_as_printed)
{
	struct vtb_schedstat s;
	const struct vtb_ss_domain *d;

	parse_ok("v16-before", &s);
	cr_expect_eq(s.version, 16);
	d = &cpu_of(&s, 1)->domains[0];
	/* the same columns as v15's, the other idle type */
	cr_expect_eq(d->lb[VTB_SS_BUSY].count, 2001);
	cr_expect_eq(d->lb[VTB_SS_BUSY].imbalance, 2004);
	cr_expect_eq(d->lb[VTB_SS_IDLE].count, 2009);
	cr_expect_eq(d->lb[VTB_SS_IDLE].hot_gained, 2014);
	cr_expect_eq(d->lb[VTB_SS_NEWIDLE].count, 2017);
	cr_expect_eq(d->ttwu_move_balance, 2036);
	vtb_schedstat_release(&s);
}

Test(schedstat, blank_lines_at_the_end_are_fine)
{
	struct vtb_schedstat s;

	parse_ok("v16-after", &s);
	cr_expect_eq(s.n_cpus, 4);
	cr_expect_eq(s.timestamp, 4295001000ULL);
	vtb_schedstat_release(&s);
}

Test(schedstat, v17_reads_names_two_word_masks_and_the_imbalance_split)
{
	struct vtb_schedstat s;
	const struct vtb_ss_cpu *c;
	const struct vtb_ss_domain *d;

	parse_ok("v17-before", &s);
	cr_expect_eq(s.version, 17);
	cr_assert_eq(s.n_cpus, 7);
	c = cpu_of(&s, 0);
	cr_assert_eq(c->n_domains, 3);
	cr_expect_str_eq(c->domains[0].name, "SMT");
	cr_expect_str_eq(c->domains[0].mask, "00000000,00000003");
	cr_expect_str_eq(c->domains[1].name, "MC");
	cr_expect_str_eq(c->domains[2].name, "NUMA");
	cr_expect_str_eq(c->domains[2].mask, "00000000,0000007f");
	d = &c->domains[0];
	/* 11 per idle type: busy 1-11, idle 12-22, newly idle 23-33 */
	cr_expect_eq(d->lb[VTB_SS_BUSY].count, 1001);
	cr_expect_eq(d->lb[VTB_SS_BUSY].balanced, 1002);
	cr_expect_eq(d->lb[VTB_SS_BUSY].failed, 1003);
	cr_expect_eq(d->lb[VTB_SS_BUSY].imb_load, 1004);
	cr_expect_eq(d->lb[VTB_SS_BUSY].imb_util, 1005);
	cr_expect_eq(d->lb[VTB_SS_BUSY].imb_task, 1006);
	cr_expect_eq(d->lb[VTB_SS_BUSY].imb_misfit, 1007);
	cr_expect_eq(d->lb[VTB_SS_BUSY].gained, 1008);
	cr_expect_eq(d->lb[VTB_SS_BUSY].hot_gained, 1009);
	cr_expect_eq(d->lb[VTB_SS_BUSY].nobusyq, 1010);
	cr_expect_eq(d->lb[VTB_SS_BUSY].nobusyg, 1011);
	cr_expect_eq(d->lb[VTB_SS_BUSY].imbalance, 0);
	cr_expect_eq(d->lb[VTB_SS_IDLE].count, 1012);
	cr_expect_eq(d->lb[VTB_SS_IDLE].imb_misfit, 1018);
	cr_expect_eq(d->lb[VTB_SS_NEWIDLE].count, 1023);
	cr_expect_eq(d->lb[VTB_SS_NEWIDLE].nobusyg, 1033);
	cr_expect_eq(d->alb_count, 1034);
	cr_expect_eq(d->ttwu_move_balance, 1045);
	c = cpu_of(&s, 6);
	cr_assert_eq(c->n_domains, 2);
	cr_expect_str_eq(c->domains[0].name, "MC");
	cr_expect_str_eq(c->domains[0].mask, "00000000,00000070");
	cr_expect_eq(c->domains[1].lb[VTB_SS_IDLE].count, 7112);
	vtb_schedstat_release(&s);
}

Test(schedstat, a_mask_in_capitals_is_kept_in_lower_case)
{
	struct vtb_schedstat s;

	parse_str(
		"version 15\ntimestamp 1\ncpu0 1 0 1 1 1 1 1 1 1\ndomain0 0000000F,FFFFFFFF" ZEROS36,
		&s);
	cr_expect_str_eq(s.cpus[0].domains[0].mask, "0000000f,ffffffff");
	vtb_schedstat_release(&s);
}

Test(schedstat, unknown_versions_are_refused_and_named)
{
	static const int versions[] = { 18, 14 };
	static const char *const files[] = { "v18", "v14" };
	struct vtb_schedstat s;

	for (size_t i = 0; i < 2; i++) {
		struct text t = load(files[i]);
		char *want = vtb_asprintf(
			"schedstat line 1: version %d is not supported (known: 15, 16, 17)",
			versions[i]);

		cr_expect_eq(vtb_schedstat_parse(t.s, t.n, &s), -1);
		cr_expect_eq(s.version, versions[i]);
		cr_expect_str_eq(vtb_errmsg(), want);
		cr_expect_null(s.cpus);
		free(want);
		free(t.s);
	}
}

/* Each hostile text refused, its line named, nothing kept (ASan: nothing
 * leaked). */
Test(schedstat, hostile_texts_are_refused_naming_the_line)
{
	static const struct {
		const char *file, *msg;
	} cases[] = {
		{ "bad-overlong-line", "schedstat line 7: longer than 4096 bytes" },
		{ "bad-million-cpus",
		  "schedstat line 12: cpu1000000 is beyond the bound of 8192 cpus" },
		{ "bad-cpu-fields", "schedstat line 6: cpu1 has 8 fields, version 15 has 9" },
		{ "bad-domain-fields",
		  "schedstat line 8: domain1 of cpu1 has 37 counters, version 15 has 36" },
		{ "bad-v17-domain-fields",
		  "schedstat line 5: domain1 of cpu0 has 44 counters, version 17 has 45" },
		{ "bad-negative",
		  "schedstat line 9: cpu2 field 3 (sched_count) '-5' is not a decimal number" },
		{ "bad-hex",
		  "schedstat line 10: domain0 field 4 (lb_imbalance, idle) '0x1f' is not "
		  "a decimal number" },
		{ "bad-duplicate-cpu", "schedstat line 9: cpu1 listed twice" },
		{ "bad-cpu-order", "schedstat line 9: cpu1 after cpu2: cpus out of order" },
		{ "bad-domain-first", "schedstat line 3: a domain line before any cpu line" },
		{ "bad-u64", "schedstat line 3: cpu0 field 7 (rq_cpu_time) '18446744073709551616' "
			     "does not fit 64 bits" },
		{ "bad-u32", "schedstat line 3: cpu0 field 3 (sched_count) '4294967296' does not "
			     "fit the kernel's 32 bits" },
		{ "bad-domain-u32", "schedstat line 13: domain0 field 35 (ttwu_move_affine) "
				    "'4294967296' does not fit the kernel's 32 bits" },
		{ "bad-domain-skip", "schedstat line 8: domain2 of cpu1 where domain1 should be" },
		{ "bad-domain-twice", "schedstat line 8: domain0 listed twice for cpu1" },
		{ "bad-many-domains", "schedstat line 20: cpu0 has more than 16 domains" },
		{ "bad-unknown-line", "schedstat line 6: unknown line 'intr' (known: version, "
				      "timestamp, cpuN, domainN)" },
		{ "bad-mask", "schedstat line 10: domain0 mask '3g' is not a hex cpumask" },
		{ "bad-mask-words", "schedstat line 11: domain1 mask '0,f' is not a hex cpumask" },
		{ "bad-v17-name",
		  "schedstat line 4: domain0 name 'SMT-2' is not 1-15 letters, digits or '_'" },
		{ "bad-blank-middle", "schedstat line 7: text after the blank line 6" },
		{ "bad-no-version", "schedstat line 1: 'timestamp' where 'version N' should be" },
		{ "bad-no-cpu", "schedstat line 3: the text ends before any cpu line" },
		{ "bad-nul", "schedstat line 4: holds a NUL byte" },
		{ "bad-empty", "schedstat line 1: the text ends before the version line" },
	};

	for (size_t i = 0; i < VTB_ARRAY_SIZE(cases); i++) {
		struct text t = load(cases[i].file);
		struct vtb_schedstat s;

		cr_expect_eq(vtb_schedstat_parse(t.s, t.n, &s), -1, "%s parsed", cases[i].file);
		cr_expect_str_eq(vtb_errmsg(), cases[i].msg, "%s", cases[i].file);
		cr_expect_null(s.cpus, "%s", cases[i].file);
		cr_expect_eq(s.n_cpus, 0, "%s", cases[i].file);
		free(t.s);
	}
}

Test(schedstat, odd_headers_are_refused)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "version 15 16\n", "schedstat line 1: the version line has 2 values, not 1" },
		{ "version x\n", "schedstat line 1: version 'x' is not a decimal number" },
		{ "version 99999999999\n",
		  "schedstat line 1: version '99999999999' does not fit the kernel's 32 bits" },
		{ "version 15\n", "schedstat line 2: the text ends before the timestamp line" },
		{ "version 15\ncpu0 1", "schedstat line 2: 'cpu0' where 'timestamp J' should be" },
		{ "version 15\ntimestamp -1\n",
		  "schedstat line 2: timestamp '-1' is not a decimal number" },
		{ "version 15\ntimestamp 1\ncpu01 1 0 1 1 1 1 1 1 1\n",
		  "schedstat line 3: 'cpu01' is not cpuN" },
		{ "version 15\ntimestamp 1\ncpu\n", "schedstat line 3: 'cpu' is not cpuN" },
		{ "version 15\ntimestamp 1\ncpu0 1 0 1 1 1 1 1 1 1\ndomain 3\n",
		  "schedstat line 4: 'domain' is not domainN" },
		{ "version 17\ntimestamp 1\ncpu0 1 0 1 1 1 1 1 1 1\ndomain0\n",
		  "schedstat line 4: domain0 of cpu0 has no name and mask" },
	};

	for (size_t i = 0; i < VTB_ARRAY_SIZE(cases); i++) {
		struct vtb_schedstat s;

		cr_expect_eq(vtb_schedstat_parse(cases[i].text, strlen(cases[i].text), &s), -1);
		cr_expect_str_eq(vtb_errmsg(), cases[i].msg);
		cr_expect_null(s.cpus);
	}
}

Test(schedstat, a_text_over_32_mib_is_refused_at_the_line_crossing_it)
{
	size_t n = VTB_SS_MAX_BYTES + 1;
	char *big = malloc(n);
	struct vtb_schedstat s;

	cr_assert_not_null(big);
	/* a newline at 99, 199, ...: 335544 of them before byte 33554432 */
	for (size_t i = 0; i < n; i++)
		big[i] = i % 100 == 99 ? '\n' : 'a';
	cr_expect_eq(vtb_schedstat_parse(big, n, &s), -1);
	cr_expect_str_eq(vtb_errmsg(),
			 "schedstat line 335545: the text goes beyond 33554432 bytes");
	free(big);
}

Test(schedstat, read_takes_the_file_under_a_root_and_names_it)
{
	char *ok = fixture_path("guestview", "deb61-smt2");
	char *bad = fixture_path("guestview", "pkg-numa-offline");
	char *none = fixture_path("schedstat", "no-such-root");
	char *want;
	struct vtb_schedstat s;

	cr_assert_eq(vtb_schedstat_read(ok, &s), 0, "%s", vtb_errmsg());
	cr_expect_eq(s.version, 15);
	cr_expect_eq(s.n_cpus, 2);
	cr_expect_str_eq(s.cpus[1].domains[0].mask, "3");
	vtb_schedstat_release(&s);
	/* a v17 text with 4 counters a domain */
	cr_expect_eq(vtb_schedstat_read(bad, &s), -1);
	want = vtb_asprintf("%s/proc/schedstat: schedstat line 4: domain0 of cpu0 has 4 counters, "
			    "version 17 has 45",
			    bad);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_eq(s.version, 17);
	free(want);
	cr_expect_eq(vtb_schedstat_read(none, &s), -1);
	cr_expect(strstr(vtb_errmsg(), "cannot open") != NULL, "%s", vtb_errmsg());
	free(ok);
	free(bad);
	free(none);
}

/* ------------------------------------------------------------ difference */

/* Every counter of an unchanged cpu grew by twice its first value. */
static void expect_doubled(const struct vtb_ss_cpu *b, const struct vtb_ss_cpu *d)
{
	cr_expect_eq(d->cpu, b->cpu);
	cr_expect_eq(d->sched_count, 2 * b->sched_count);
	cr_expect_eq(d->rq_cpu_time, 2 * b->rq_cpu_time);
	cr_expect_eq(d->pcount, 2 * b->pcount);
	cr_assert_eq(d->n_domains, b->n_domains);
	for (size_t j = 0; j < d->n_domains; j++) {
		const struct vtb_ss_domain *x = &b->domains[j], *y = &d->domains[j];

		cr_expect_str_eq(y->name, x->name);
		cr_expect_str_eq(y->mask, x->mask);
		for (int k = 0; k < VTB_SS_NIDLE; k++) {
			const uint64_t *p = (const uint64_t *)&x->lb[k];
			const uint64_t *q = (const uint64_t *)&y->lb[k];

			for (size_t f = 0; f < sizeof(x->lb[k]) / sizeof(uint64_t); f++)
				cr_expect_eq(q[f], 2 * p[f], "cpu%d domain%zu lb %d field %zu",
					     b->cpu, j, k, f);
		}
		cr_expect_eq(y->alb_pushed, 2 * x->alb_pushed);
		cr_expect_eq(y->ttwu_move_affine, 2 * x->ttwu_move_affine);
	}
}

Test(schedstat, diff_of_each_version_is_after_minus_before)
{
	static const char *const pairs[][2] = { { "v15-before", "v15-after" },
						{ "v16-before", "v16-after" },
						{ "v17-before", "v17-after" } };

	for (size_t i = 0; i < VTB_ARRAY_SIZE(pairs); i++) {
		struct vtb_schedstat b, d;
		json_t *notes;

		parse_ok(pairs[i][0], &b);
		diff_of(pairs[i][0], pairs[i][1], &d, &notes);
		cr_expect_eq(d.version, b.version);
		cr_expect_eq(d.timestamp, 1000);
		cr_expect_eq(json_array_size(notes), 0);
		cr_assert_eq(d.n_cpus, b.n_cpus);
		for (size_t c = 0; c < d.n_cpus; c++)
			expect_doubled(&b.cpus[c], &d.cpus[c]);
		json_decref(notes);
		vtb_schedstat_release(&b);
		vtb_schedstat_release(&d);
	}
}

Test(schedstat, diff_values_worked_out_by_hand)
{
	struct vtb_schedstat d;
	const struct vtb_ss_cpu *c;

	diff_of("v15-before", "v15-after", &d, NULL);
	c = cpu_of(&d, 2);
	cr_expect_eq(c->yld_count, 6002);
	cr_expect_eq(c->sched_count, 6006);
	cr_expect_eq(c->ttwu_local, 6012);
	cr_expect_eq(c->rq_cpu_time, 60000000014ULL);
	cr_expect_eq(c->run_delay, 60000000016ULL);
	/* cpu3 domain1, busy hot_gained: counter 14, 4114 before */
	cr_expect_eq(cpu_of(&d, 3)->domains[1].lb[VTB_SS_BUSY].hot_gained, 8228);
	vtb_schedstat_release(&d);
	diff_of("v17-before", "v17-after", &d, NULL);
	/* cpu6 domain1 (NUMA), idle imb_task: counter 17, 7117 before */
	cr_expect_eq(cpu_of(&d, 6)->domains[1].lb[VTB_SS_IDLE].imb_task, 14234);
	cr_expect_str_eq(cpu_of(&d, 6)->domains[1].name, "NUMA");
	vtb_schedstat_release(&d);
}

Test(schedstat, a_32_bit_counter_that_wrapped_once_is_exact)
{
	struct vtb_schedstat d;
	json_t *notes;

	diff_of("wrap-before", "wrap-after", &d, &notes);
	cr_expect_eq(json_array_size(notes), 0);
	/* 4294967000 -> 200: 296 to 2^32, 200 after */
	cr_expect_eq(cpu_of(&d, 0)->sched_count, 496);
	/* 4294967295 -> 4 */
	cr_expect_eq(cpu_of(&d, 0)->domains[0].lb[VTB_SS_IDLE].count, 5);
	/* 4294000000 -> 1000 */
	cr_expect_eq(cpu_of(&d, 1)->domains[1].ttwu_wake_remote, 968296);
	/* the others as ever */
	cr_expect_eq(cpu_of(&d, 0)->sched_goidle, 2008);
	cr_expect_eq(cpu_of(&d, 1)->domains[1].ttwu_move_affine, 4270);
	json_decref(notes);
	vtb_schedstat_release(&d);
}

Test(schedstat, hotplug_leaves_out_the_cpu_gone_and_the_rebuilt_domains)
{
	struct vtb_schedstat d;
	json_t *notes;
	char *text;

	diff_of("hotplug-before", "hotplug-after", &d, &notes);
	cr_assert_eq(d.n_cpus, 3);
	for (int c = 0; c < 3; c++) {
		cr_expect_eq(d.cpus[c].cpu, c);
		cr_expect_eq(d.cpus[c].n_domains, 0);
		cr_expect_null(d.cpus[c].domains);
	}
	/* the runqueue counters stay */
	cr_expect_eq(cpu_of(&d, 2)->sched_count, 6006);
	text = notes_text(notes);
	cr_expect_str_eq(text, "cpu 0: sched domains rebuilt (domain1 mask f before, 7 after): its "
			       "domain counters left out\n"
			       "cpu 1: sched domains rebuilt (domain1 mask f before, 7 after): its "
			       "domain counters left out\n"
			       "cpu 2: sched domains rebuilt (domain0 mask c before, 7 after): its "
			       "domain counters left out\n"
			       "cpu 3 present before, not after: left out\n");
	free(text);
	json_decref(notes);
	vtb_schedstat_release(&d);
}

Test(schedstat, a_cpu_present_after_only_is_left_out)
{
	struct vtb_schedstat a, b, d;
	json_t *notes;

	parse_str("version 16\ntimestamp 5\ncpu1 1 0 1 1 1 1 1 1 1\n", &a);
	parse_str("version 16\ntimestamp 6\ncpu0 1 0 1 1 1 1 1 1 1\ncpu1 2 0 2 2 2 2 2 2 2\n", &b);
	cr_assert_eq(vtb_schedstat_diff(&a, &b, &d, &notes), 0);
	cr_assert_eq(d.n_cpus, 1);
	cr_expect_eq(d.cpus[0].cpu, 1);
	cr_expect_eq(d.cpus[0].pcount, 1);
	cr_expect_str_eq(json_string_value(json_array_get(notes, 0)),
			 "cpu 0 present after, not before: left out");
	json_decref(notes);
	vtb_schedstat_release(&a);
	vtb_schedstat_release(&b);
	vtb_schedstat_release(&d);
}

Test(schedstat, a_reset_or_a_rebuild_leaves_out_what_restarted)
{
	struct vtb_schedstat b, d;
	json_t *notes;
	char *text;

	parse_ok("reset-before", &b);
	diff_of("reset-before", "reset-after", &d, &notes);
	cr_assert_eq(d.n_cpus, 3);
	expect_doubled(cpu_of(&b, 0), cpu_of(&d, 0));
	cr_expect_eq(d.cpus[1].cpu, 2);
	cr_expect_eq(d.cpus[1].n_domains, 0);
	cr_expect_eq(d.cpus[1].ttwu_count, 6010);
	cr_expect_eq(d.cpus[2].cpu, 3);
	cr_expect_eq(d.cpus[2].n_domains, 0);
	text = notes_text(notes);
	cr_expect_str_eq(text,
			 "cpu 1: run_delay went back (20000000008 before, 5 after): counters "
			 "reset, left out\n"
			 "cpu 2: sched domains rebuilt (2 domains before, 1 after): its domain "
			 "counters left out\n"
			 "cpu 3: sched domains rebuilt (domain1 mask f before, d after): its "
			 "domain counters left out\n");
	free(text);
	json_decref(notes);
	vtb_schedstat_release(&b);
	vtb_schedstat_release(&d);
}

Test(schedstat, a_v17_level_renamed_is_a_rebuild)
{
	struct vtb_schedstat a, b, d;
	json_t *notes;

	parse_str("version 17\ntimestamp 1\ncpu0 1 0 1 1 1 1 1 1 1\ndomain0 DIE 1" ZEROS45, &a);
	parse_str("version 17\ntimestamp 2\ncpu0 1 0 1 1 1 1 1 1 1\ndomain0 PKG 1" ZEROS45, &b);
	cr_assert_eq(vtb_schedstat_diff(&a, &b, &d, &notes), 0);
	cr_expect_eq(d.cpus[0].n_domains, 0);
	cr_expect_str_eq(json_string_value(json_array_get(notes, 0)),
			 "cpu 0: sched domains rebuilt (domain0 was DIE, is PKG): its domain "
			 "counters left out");
	json_decref(notes);
	vtb_schedstat_release(&a);
	vtb_schedstat_release(&b);
	vtb_schedstat_release(&d);
}

Test(schedstat, diff_refuses_other_versions_and_another_boot)
{
	struct vtb_schedstat a, b, d;
	json_t *notes = json_null();

	parse_ok("v15-before", &a);
	parse_ok("v16-after", &b);
	cr_expect_eq(vtb_schedstat_diff(&a, &b, &d, &notes), -1);
	cr_expect_str_eq(vtb_errmsg(), "schedstat versions differ: 15 before, 16 after");
	cr_expect_null(notes);
	cr_expect_null(d.cpus);
	vtb_schedstat_release(&b);
	parse_ok("v15-after", &b);
	cr_expect_eq(vtb_schedstat_diff(&b, &a, &d, NULL), -1);
	cr_expect_str_eq(
		vtb_errmsg(),
		"schedstat timestamp went back from 4295001000 to 4295000000: not one boot");
	vtb_schedstat_release(&a);
	vtb_schedstat_release(&b);
}

Test(schedstat, jiffies_of_32_bits_wrap)
{
	struct vtb_schedstat a, b, d;

	parse_str("version 15\ntimestamp 4294967000\ncpu0 1 0 1 1 1 1 1 1 1\n", &a);
	parse_str("version 15\ntimestamp 100\ncpu0 1 0 1 1 1 1 1 1 1\n", &b);
	cr_assert_eq(vtb_schedstat_diff(&a, &b, &d, NULL), 0, "%s", vtb_errmsg());
	cr_expect_eq(d.timestamp, 396);
	vtb_schedstat_release(&a);
	vtb_schedstat_release(&b);
	vtb_schedstat_release(&d);
}

/* ------------------------------------------------------------ JSON */

static const char *v15_names(int cpu, int dom, void *arg)
{
	(void)cpu;
	(*(int *)arg)++;
	return dom == 0 ? "SMT" : dom == 1 ? "MC" : NULL;
}

Test(schedstat, json_of_v15_sums_levels_named_by_the_callback)
{
	struct vtb_schedstat d;
	json_t *j;
	int calls = 0;

	diff_of("v15-before", "v15-after", &d, NULL);
	j = vtb_schedstat_json(&d, v15_names, &calls);
	cr_assert_not_null(j, "%s", vtb_errmsg());
	cr_expect_eq(calls, 8);
	cr_expect_eq(jint(j, "version"), 15);
	cr_assert_eq(json_array_size(json_object_get(j, "levels")), 2);
	cr_expect_str_eq(jstr(j, "levels.0.level"), "SMT");
	cr_expect_eq(jint(j, "levels.0.cpus"), 4);
	/* twice the sum over cpus c of (c+1)*1000 + counter */
	cr_expect_eq(jint(j, "levels.0.lb.busy.count"), 20072);
	cr_expect_eq(jint(j, "levels.0.lb.idle.count"), 20008);
	cr_expect_eq(jint(j, "levels.0.lb.newidle.count"), 20136);
	cr_expect_eq(jint(j, "levels.0.lb.busy.imbalance"), 20096);
	cr_expect_null(jget(j, "levels.0.lb.busy.imb_load"));
	cr_expect_eq(jint(j, "levels.0.alb.count"), 20200);
	cr_expect_eq(jint(j, "levels.0.sbe.balanced"), 20232);
	cr_expect_eq(jint(j, "levels.0.ttwu.balance"), 20288);
	cr_expect_str_eq(jstr(j, "levels.1.level"), "MC");
	cr_expect_eq(jint(j, "levels.1.lb.busy.count"), 20872);
	cr_assert_eq(json_array_size(json_object_get(j, "cpus")), 4);
	cr_expect_eq(jint(j, "cpus.2.cpu"), 2);
	cr_expect_eq(jint(j, "cpus.2.yield"), 6002);
	cr_expect_eq(jint(j, "cpus.2.sched"), 6006);
	cr_expect_eq(jint(j, "cpus.2.goidle"), 6008);
	cr_expect_eq(jint(j, "cpus.2.ttwu"), 6010);
	cr_expect_eq(jint(j, "cpus.2.ttwu_local"), 6012);
	cr_expect_eq(jint(j, "cpus.2.run_ns"), 60000000014LL);
	cr_expect_eq(jint(j, "cpus.2.wait_ns"), 60000000016LL);
	cr_expect_eq(jint(j, "cpus.2.slices"), 6018);
	json_decref(j);
	/* no names: domainN */
	j = vtb_schedstat_json(&d, NULL, NULL);
	cr_assert_not_null(j);
	cr_expect_str_eq(jstr(j, "levels.0.level"), "domain0");
	cr_expect_str_eq(jstr(j, "levels.1.level"), "domain1");
	json_decref(j);
	vtb_schedstat_release(&d);
}

static const char *not_used(int cpu, int dom, void *arg)
{
	(void)cpu;
	(void)dom;
	(void)arg;
	return "X";
}

Test(schedstat, json_of_v17_sums_levels_by_their_own_names_innermost_first)
{
	struct vtb_schedstat d;
	json_t *j;

	diff_of("v17-before", "v17-after", &d, NULL);
	j = vtb_schedstat_json(&d, not_used, NULL);
	cr_assert_not_null(j, "%s", vtb_errmsg());
	cr_expect_eq(jint(j, "version"), 17);
	cr_assert_eq(json_array_size(json_object_get(j, "levels")), 3);
	/* SMT at 0; MC at 1 and (cpu6, no sibling) at 0; NUMA at 2 and 1 */
	cr_expect_str_eq(jstr(j, "levels.0.level"), "SMT");
	cr_expect_eq(jint(j, "levels.0.cpus"), 6);
	cr_expect_str_eq(jstr(j, "levels.1.level"), "MC");
	cr_expect_eq(jint(j, "levels.1.cpus"), 7);
	cr_expect_str_eq(jstr(j, "levels.2.level"), "NUMA");
	cr_expect_eq(jint(j, "levels.2.cpus"), 7);
	/* MC busy count: cpus 0-5 domain1 (c+1)*1000 + 101, cpu6 domain0
	 * 7001: 28607 before, grown by twice that */
	cr_expect_eq(jint(j, "levels.1.lb.busy.count"), 57214);
	/* NUMA: cpus 0-5 domain2 (c+1)*1000 + 201, cpu6 domain1 7101 */
	cr_expect_eq(jint(j, "levels.2.lb.busy.count"), 58614);
	/* idle imb_misfit of SMT: counter 18 of cpus 0-5 domain0 */
	cr_expect_eq(jint(j, "levels.0.lb.idle.imb_misfit"), 42216);
	cr_expect_null(jget(j, "levels.0.lb.idle.imbalance"));
	cr_expect_eq(jint(j, "levels.2.ttwu.remote"), 2 * (21000 + 6 * 243 + 7143));
	cr_expect_eq(json_array_size(json_object_get(j, "cpus")), 7);
	cr_expect_eq(jint(j, "cpus.6.cpu"), 6);
	json_decref(j);
	vtb_schedstat_release(&d);
}

Test(schedstat, json_numbers_a_second_level_of_one_name)
{
	struct vtb_schedstat s, d;
	json_t *j;

	parse_str("version 17\ntimestamp 1\ncpu0 1 0 1 1 1 1 1 1 1\n"
		  "domain0 SMT 3" ZEROS45 "domain1 NUMA f" ZEROS45 "domain2 NUMA ff" ZEROS45
		  "cpu1 1 0 1 1 1 1 1 1 1\n"
		  "domain0 SMT 3" ZEROS45 "domain1 NUMA f" ZEROS45 "domain2 NUMA ff" ZEROS45,
		  &s);
	cr_assert_eq(vtb_schedstat_diff(&s, &s, &d, NULL), 0);
	j = vtb_schedstat_json(&d, NULL, NULL);
	cr_assert_not_null(j, "%s", vtb_errmsg());
	cr_assert_eq(json_array_size(json_object_get(j, "levels")), 3);
	cr_expect_str_eq(jstr(j, "levels.0.level"), "SMT");
	cr_expect_str_eq(jstr(j, "levels.1.level"), "NUMA");
	cr_expect_str_eq(jstr(j, "levels.2.level"), "NUMA_2");
	cr_expect_eq(jint(j, "levels.2.cpus"), 2);
	cr_expect_eq(jint(j, "levels.2.lb.newidle.count"), 0);
	json_decref(j);
	vtb_schedstat_release(&s);
	vtb_schedstat_release(&d);
}

static const char *bad_name(int cpu, int dom, void *arg)
{
	(void)cpu;
	(void)arg;
	return dom ? "M C" : "SMT";
}

Test(schedstat, json_refuses_a_bad_name_and_a_value_beyond_int64)
{
	struct vtb_schedstat a, b, d;

	diff_of("v15-before", "v15-after", &d, NULL);
	cr_expect_null(vtb_schedstat_json(&d, bad_name, NULL));
	cr_expect_str_eq(vtb_errmsg(), "schedstat cpu 0 domain1: level name 'M C' is not 1-15 "
				       "letters, digits or '_'");
	vtb_schedstat_release(&d);
	parse_str("version 15\ntimestamp 1\ncpu0 1 0 1 1 1 1 0 1 1\n", &a);
	parse_str("version 15\ntimestamp 2\ncpu0 1 0 1 1 1 1 9223372036854775808 1 1\n", &b);
	cr_assert_eq(vtb_schedstat_diff(&a, &b, &d, NULL), 0);
	cr_expect_null(vtb_schedstat_json(&d, NULL, NULL));
	cr_expect_str_eq(vtb_errmsg(),
			 "schedstat cpu 0 run_ns 9223372036854775808 is beyond INT64_MAX");
	vtb_schedstat_release(&a);
	vtb_schedstat_release(&b);
	vtb_schedstat_release(&d);
}

/* ------------------------------------------------------------ damage */

static uint64_t rnd(uint64_t *s)
{
	/* xorshift64: deterministic, the same damage on every run */
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Truncated, flipped, cut and stuffed copies of valid texts: parsed, and
 * when that works differenced against the original and themselves and
 * shown as JSON.  Nothing may crash or leak, and a refusal leaves nothing
 * and names a line. */
Test(schedstat, damaged_texts_never_crash)
{
	static const char *const files[] = { "v15-before", "v17-before", "wrap-after" };
	static const char stuff[] = " \n\t0123456789-,afSMTdomaincpu\0\xff";
	uint64_t seed = 0x5c4ed57a7;
	size_t parsed = 0, refused = 0;

	for (size_t f = 0; f < VTB_ARRAY_SIZE(files); f++) {
		struct text t = load(files[f]);
		struct vtb_schedstat orig;
		char *buf = malloc(t.n + 64);

		cr_assert_not_null(buf);
		cr_assert_eq(vtb_schedstat_parse(t.s, t.n, &orig), 0);
		for (int it = 0; it < 1500; it++) {
			size_t n = t.n, edits = 1 + rnd(&seed) % 4;
			struct vtb_schedstat s, d;
			json_t *notes = NULL, *j;

			memcpy(buf, t.s, t.n);
			for (size_t e = 0; e < edits && n; e++) {
				size_t at = rnd(&seed) % n;

				switch (rnd(&seed) % 4) {
				case 0: /* truncate */
					n = at;
					break;
				case 1: /* one byte becomes another */
					buf[at] = stuff[rnd(&seed) % (sizeof(stuff) - 1)];
					break;
				case 2: /* a byte goes */
					memmove(buf + at, buf + at + 1, n - at - 1);
					n--;
					break;
				default: /* a byte comes, while there is room */
					if (n < t.n + 63) {
						memmove(buf + at + 1, buf + at, n - at);
						buf[at] = stuff[rnd(&seed) % (sizeof(stuff) - 1)];
						n++;
					}
				}
			}
			if (vtb_schedstat_parse(buf, n, &s)) {
				refused++;
				cr_expect_null(s.cpus);
				cr_expect_eq(s.n_cpus, 0);
				cr_expect(!strncmp(vtb_errmsg(), "schedstat line ", 15), "%s",
					  vtb_errmsg());
				continue;
			}
			parsed++;
			if (!vtb_schedstat_diff(&orig, &s, &d, &notes)) {
				j = vtb_schedstat_json(&d, v15_names, &(int){ 0 });
				json_decref(j);
				vtb_schedstat_release(&d);
			}
			json_decref(notes);
			cr_assert_eq(vtb_schedstat_diff(&s, &s, &d, NULL), 0, "%s", vtb_errmsg());
			j = vtb_schedstat_json(&d, NULL, NULL);
			json_decref(j);
			vtb_schedstat_release(&d);
			vtb_schedstat_release(&s);
		}
		vtb_schedstat_release(&orig);
		free(buf);
		free(t.s);
	}
	/* the damage is not all fatal, nor all harmless */
	cr_expect_gt(parsed, 100);
	cr_expect_gt(refused, 1000);
}
