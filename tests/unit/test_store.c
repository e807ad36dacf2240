/* SPDX-License-Identifier: MIT */
/*
 * store: creation, migrations, refusals, campaigns, atomic boots, queries.
 * Matrices and record sets are built by hand: conf.c and recparse.c are
 * tested on their own.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../harness/store/store.h"
#include "../tools/fnvkeys.h"

/* String literals into the records' char * fields. */
#define S(x) ((char *)(x))

static char dir[64];
static char dbpath[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/vtbstore.XXXXXX");
	cr_assert(mkdtemp(dir));
	snprintf(dbpath, sizeof(dbpath), "%s/t.db", dir);
}

static void teardown(void)
{
	const char *suffix[] = { "", "-wal", "-shm", "-journal" };
	const char *names[] = { "t.db", "out.db", "b.db" };
	char p[160];

	for (size_t n = 0; n < 3; n++)
		for (size_t i = 0; i < 4; i++) {
			snprintf(p, sizeof(p), "%s/%s%s", dir, names[n], suffix[i]);
			unlink(p);
		}
	rmdir(dir);
}

TestSuite(store, .init = setup, .fini = teardown);

/* Raw SQLite access, to look behind the store's back. */
static sqlite3 *raw_open(void)
{
	sqlite3 *db;

	cr_assert_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	return db;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &err), SQLITE_OK, "%s: %s", sql, err);
}

static int64_t raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	int64_t v = -1;

	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* First column of the first row as a malloc'ed string ("" when none). */
static char *raw_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	char *v;

	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		v = strdup((const char *)sqlite3_column_text(s, 0));
	else
		v = strdup("");
	sqlite3_finalize(s);
	return v;
}

/* Every row of @sql, columns joined with '|', rows with '\n'. */
static char *raw_rows(sqlite3 *db, const char *sql)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	sqlite3_stmt *s;

	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	while (sqlite3_step(s) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(s); i++) {
			const char *t = (const char *)sqlite3_column_text(s, i);

			vtb_strbuf_addf(&sb, "%s%s", i ? "|" : "", t ? t : "NULL");
		}
		vtb_strbuf_addstr(&sb, "\n");
	}
	sqlite3_finalize(s);
	vtb_strbuf_addstr(&sb, "");
	return vtb_strbuf_detach(&sb);
}

static int64_t count_rows(const char *sql)
{
	sqlite3 *db = raw_open();
	int64_t n = raw_int(db, sql);

	sqlite3_close(db);
	return n;
}

static struct vtb_store *open_store(void)
{
	struct vtb_store *st = NULL;

	cr_assert_eq(vtb_store_open(dbpath, &st), 0, "%s", vtb_errmsg());
	return st;
}

/*
 * A matrix: a baseline and a VM configuration with the cells "wakeup",
 * "membw" and "timer", and a VM configuration that cannot run here.
 */
struct test_matrix {
	struct vtb_matrix m;
	struct vtb_config configs[4];
	struct vtb_cell cells[4][4];
};

static void add_config(struct test_matrix *t, const char *key, enum vtb_config_kind kind,
		       const char *label, bool runnable, size_t n_cells)
{
	static const char *names[] = { "wakeup", "membw", "timer", "c2c" };
	struct vtb_config *c = &t->configs[t->m.n_configs];
	size_t ci = t->m.n_configs++;

	*c = (struct vtb_config){
		.kind = kind,
		.label = S(label),
		.params_json = S("{\"vcpus\":\"2\"}"),
		.mems = S("0"),
		.runnable = runnable,
		.why_not = runnable ? NULL : S("needs 64 CPUs, the host has 2"),
		.plan_json = kind == VTB_CONFIG_VM
				     ? S("{\"claims\":[{\"kind\":\"smt\",\"state\":\"true\"}]}")
				     : NULL,
		.cells = t->cells[ci],
		.n_cells = n_cells,
	};
	snprintf(c->key, sizeof(c->key), "%s", key);
	cr_assert_eq(vtb_cpuset_parse("0-1", &c->cpus), 0);
	for (size_t i = 0; i < n_cells; i++) {
		struct vtb_cell *ce = &t->cells[ci][i];

		*ce = (struct vtb_cell){
			.name = S(names[i]),
			.workload = S(names[i]),
			.params_json = S("{\"runtime\":\"1s\"}"),
			.resolved_json = S("{\"runtime\":\"1s\",\"threads\":\"2\"}"),
		};
		/* cell keys: config key's first char + cell name */
		snprintf(ce->key, sizeof(ce->key), "%c%015zu", key[0], i);
	}
}

static void matrix_init(struct test_matrix *t)
{
	memset(t, 0, sizeof(*t));
	t->m.path = S("quick.conf");
	t->m.text = S("[global]\nreps = 2\n");
	snprintf(t->m.digest, sizeof(t->m.digest), "%064d", 7);
	t->m.reps = 2;
	t->m.configs = t->configs;
	add_config(t, "b000000000000000", VTB_CONFIG_BASELINE, "baseline cpus=2", true, 3);
	add_config(t, "v000000000000000", VTB_CONFIG_VM, "vm vcpus=2", true, 3);
	add_config(t, "x000000000000000", VTB_CONFIG_VM, "vm vcpus=64", false, 1);
}

static void matrix_release(struct test_matrix *t)
{
	for (size_t i = 0; i < t->m.n_configs; i++)
		vtb_cpuset_release(&t->configs[i].cpus);
}

static const struct vtb_host_info host_a = {
	.hostname = "box",
	.cpu_vendor = "GenuineIntel",
	.cpu_model_name = "Intel(R) Core(TM) i7-8650U",
	.cpu_codename = "Kaby Lake",
	.cpu_family = 6,
	.cpu_model = 142,
	.topo_digest = "abcd",
	.topo_summary = "1 package, 1 node, 1 LLC, 2 cores, 2 PUs",
	.kernel = "6.1.0-28-amd64",
};

static int64_t begin_campaign(struct vtb_store *st, struct test_matrix *t, const char *uuid,
			      int64_t *host)
{
	struct vtb_campaign_info ci = {
		.uuid = uuid,
		.matrix_path = t->m.path,
		.matrix_text = t->m.text,
		.matrix_digest = t->m.digest,
		.version = "v0-test",
		.cmdline = "vtbench run quick.conf",
		.state_json = "{\"thp\":{\"enabled\":\"madvise\"}}",
	};
	int64_t id = 0;

	cr_assert_eq(vtb_store_host(st, &host_a, &ci.host_id), 0, "%s", vtb_errmsg());
	if (host)
		*host = ci.host_id;
	cr_assert_eq(vtb_store_campaign_begin(st, &ci, &t->m, &id), 0, "%s", vtb_errmsg());
	cr_assert_gt(id, 0);
	return id;
}

/* Records of one boot: cell 0 ok with samples and a histogram, cell 1
 * started but never ended, cell 2 silent. */
struct test_recs {
	struct vtb_boot_records r;
	struct vtb_rs_cell cells[4];
	struct vtb_rs_sample samples[6];
	struct vtb_rs_hist hists[1];
	char *errors[2];
};

static void recs_init(struct test_recs *t, char prefix, double base)
{
	static char keys[2][3][17];
	int k = prefix == 'b' ? 0 : 1;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 3; i++)
		snprintf(keys[k][i], 17, "%c%015d", prefix, i);
	t->cells[0] = (struct vtb_rs_cell){ .cell = keys[k][0],
					    .workload = S("wakeup"),
					    .status = S("ok"),
					    .seconds = 1.5,
					    .info_json = S("{\"threads\":2}") };
	t->cells[1] = (struct vtb_rs_cell){ .cell = keys[k][1],
					    .workload = S("membw"),
					    .info_json = S("{}") };
	/* metrics deliberately out of order */
	t->samples[0] = (struct vtb_rs_sample){ keys[k][0], S("wakeup_p99"), S("us"), base + 9, 0 };
	t->samples[1] = (struct vtb_rs_sample){ keys[k][0], S("rps"), S("1/s"), base * 100, 1 };
	t->samples[2] = (struct vtb_rs_sample){ keys[k][0], S("wakeup_p50"), S("us"), base, 0 };
	t->samples[3] = (struct vtb_rs_sample){ keys[k][1], S("copy"), S("MB/s"), 1000, 1 };
	t->hists[0] = (struct vtb_rs_hist){ keys[k][0], S("wakeup"), S("us"), S("{\"bits\":4}"),
					    S("[1,2,3]") };
	t->errors[0] = S("bad crc on line 7");
	t->r = (struct vtb_boot_records){
		.header = json_pack("{s:i, s:s}", "schema", 1, "kernel", "6.1.0"),
		.cells = t->cells,
		.n_cells = 2,
		.samples = t->samples,
		.n_samples = 4,
		.hists = t->hists,
		.n_hists = 1,
		.errors = t->errors,
		.n_errors = 1,
		.noise_lines = 12,
		.records = 9,
	};
}

static void recs_release(struct test_recs *t)
{
	json_decref(t->r.header);
}

static struct vtb_boot_info boot_info(int64_t campaign, const char *uuid, const char *key, int rep)
{
	static const char *warns[] = { "host state changed: thp.enabled: always -> never" };

	return (struct vtb_boot_info){
		.campaign_id = campaign,
		.uuid = uuid,
		.config_key = key,
		.rep = rep,
		.status = "ok",
		.started_ns = 1000,
		.ended_ns = 2000,
		.nonce = "00ff",
		.cpus = "0-1",
		.confinement = "affinity",
		.stderr_tail = "done\n",
		.warnings = warns,
		.n_warnings = 1,
	};
}

Test(store, a_new_database_has_the_schema_wal_and_version)
{
	struct vtb_store *st = open_store();
	int version = 0;
	sqlite3 *db;
	char *tables, *mode;

	cr_assert_eq(vtb_store_schema_version(st, &version), 0);
	cr_expect_eq(version, VTB_STORE_SCHEMA);
	vtb_store_close(st);
	db = raw_open();
	tables = raw_rows(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
	cr_expect_str_eq(tables,
			 "boot\ncampaign\ncell\nconfig\nevent\nevidence\nguest_view\nhistogram\nhost\nrace\n"
			 "race_elimination\nresult\nsample\nupload\n");
	mode = raw_text(db, "PRAGMA journal_mode");
	cr_expect_str_eq(mode, "wal");
	cr_expect_eq(raw_int(db, "PRAGMA user_version"), VTB_STORE_SCHEMA);
	cr_expect_eq(raw_int(db, "PRAGMA application_id"), VTB_STORE_APPLICATION_ID);
	free(tables);
	free(mode);
	sqlite3_close(db);
}

Test(store, reopening_a_current_database_changes_nothing)
{
	struct vtb_store *st = open_store();
	struct vtb_store *ro = NULL;
	int version = 0;

	vtb_store_close(st);
	st = open_store();
	vtb_store_close(st);
	cr_assert_eq(vtb_store_open_ro(dbpath, &ro), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_schema_version(ro, &version), 0);
	cr_expect_eq(version, VTB_STORE_SCHEMA);
	vtb_store_close(ro);
	vtb_store_close(NULL);
}

/* exit 2 removes only a database its own open made: the store says which */
Test(store, only_the_open_that_made_the_file_says_it_created_it)
{
	struct vtb_store *st = open_store();
	struct vtb_store *again = NULL;
	struct vtb_store *ro = NULL;

	cr_expect(vtb_store_created(st));
	vtb_store_close(st);
	cr_assert_eq(vtb_store_open(dbpath, &again), 0, "%s", vtb_errmsg());
	cr_expect_not(vtb_store_created(again));
	vtb_store_close(again);
	cr_assert_eq(vtb_store_open_ro(dbpath, &ro), 0, "%s", vtb_errmsg());
	cr_expect_not(vtb_store_created(ro));
	vtb_store_close(ro);
	cr_expect_not(vtb_store_created(NULL));
}

static char *read_fixture(const char *name)
{
	const char *src = getenv("SRCDIR");
	char *p = vtb_asprintf("%s/tests/fixtures/%s", src ? src : ".", name);
	char *text = vtb_read_file(p, 1 << 20);

	cr_assert(text, "%s", vtb_errmsg());
	free(p);
	return text;
}

Test(store, schema_v1_fixture_is_migration_1_frozen)
{
	char *v1 = read_fixture("schema-v1.sql");
	const char *sql = vtb_store_migration_sql(1);
	size_t n = strlen(sql);

	/* vtb_read_file strips the final newline */
	cr_assert(n > 0 && sql[n - 1] == '\n');
	cr_expect_eq(strlen(v1), n - 1);
	cr_expect_eq(strncmp(v1, sql, n - 1), 0, "migration 1 changed: released steps are frozen");
	cr_expect_null(vtb_store_migration_sql(0));
	cr_expect_null(vtb_store_migration_sql(VTB_STORE_SCHEMA + 1));
	free(v1);
}

/* A version-1 database with one campaign, boot, result, sample. */
static void make_v1_database(void)
{
	char *v1 = read_fixture("schema-v1.sql");
	sqlite3 *db = raw_open();

	raw_exec(db, v1);
	raw_exec(db, "PRAGMA user_version = 1");
	raw_exec(db,
		 "INSERT INTO host VALUES (1, 'old', 'AuthenticAMD', 23, 49, 'EPYC', 'Rome',"
		 " 'd', 's', '5.10');"
		 "INSERT INTO campaign VALUES (1, 'u-1', 1, 'm.conf', 'text', 'dg', 'v0', 'cmd',"
		 " 10, 20, 'done', NULL);"
		 "INSERT INTO config VALUES (1, 1, 'k1', 'baseline', 'baseline', '{}', '0-1', '0',"
		 " 1, NULL, 0);"
		 "INSERT INTO cell VALUES (1, 1, 'c1', 'wakeup', 'wakeup', '{}', '{}');"
		 "INSERT INTO boot (id, uuid, campaign_id, config_id, rep, status, started_ns,"
		 " ended_ns) VALUES (1, 'b-1', 1, 1, 0, 'ok', 10, 20);"
		 "INSERT INTO result VALUES (1, 1, 1, 'ok', NULL, 1.0, '{}');"
		 "INSERT INTO sample VALUES (1, 1, 'rps', '1/s', 42.5, 'higher');");
	sqlite3_close(db);
	free(v1);
}

/* make_v1_database() taken by the migrations to schema @version, without
 * vtbench opening it: the raw database, open. */
static sqlite3 *make_database_at(int version)
{
	sqlite3 *db;

	make_v1_database();
	db = raw_open();
	for (int v = 2; v <= version; v++) {
		char *set = vtb_asprintf("PRAGMA user_version = %d", v);

		raw_exec(db, vtb_store_migration_sql(v));
		raw_exec(db, set);
		free(set);
	}
	return db;
}

static int count_sample(const struct vtb_sample_row *row, void *arg)
{
	cr_expect_str_eq(row->metric, "rps");
	cr_expect_float_eq(row->value, 42.5, 1e-9);
	(*(int *)arg)++;
	return 0;
}

Test(store, a_version_1_database_is_migrated_with_its_rows)
{
	struct vtb_store *st;
	int version = 0, n = 0;
	sqlite3 *db;

	make_v1_database();
	st = open_store();
	cr_assert_eq(vtb_store_schema_version(st, &version), 0);
	cr_expect_eq(version, VTB_STORE_SCHEMA);
	cr_assert_eq(vtb_store_foreach_sample(st, 1, count_sample, &n), 0, "%s", vtb_errmsg());
	cr_expect_eq(n, 1);
	/* the event table of version 2 works on the old rows */
	cr_expect_eq(vtb_store_event(st, 1, "b-1", "warn", "after migration"), 0, "%s",
		     vtb_errmsg());
	vtb_store_close(st);
	db = raw_open();
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM host WHERE hostname = 'old'"), 1);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM boot"), 1);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM event WHERE boot_id = 1"), 1);
	/* version 3: old boots are baselines without VM provenance */
	cr_expect_eq(
		raw_int(db,
			"SELECT count(*) FROM boot WHERE kind = 'baseline' AND accelerator IS NULL"),
		1);
	cr_expect_eq(raw_int(db, "PRAGMA user_version"), VTB_STORE_SCHEMA);
	sqlite3_close(db);
}

/*
 * Schema 7: one sample per metric of a result.  A database of an older
 * vtbench with a metric twice in one result (it counted as two boots in
 * compare) keeps the first; the second becomes a warn event of its boot,
 * with its value, and the index refuses another.
 */
Test(store, schema_7_keeps_the_first_sample_of_a_metric_and_the_rest_as_events)
{
	struct vtb_store *st;
	char *rows;
	sqlite3 *db;

	make_v1_database();
	db = raw_open();
	raw_exec(db, "INSERT INTO sample VALUES (2, 1, 'rps', '1/s', 43.5, 'higher');"
		     "INSERT INTO sample VALUES (3, 1, 'rps', '1/s', 44.5, 'higher');"
		     "INSERT INTO sample VALUES (4, 1, 'rps_max', '1/s', 50, 'higher');");
	sqlite3_close(db);
	st = open_store();
	vtb_store_close(st);
	db = raw_open();
	rows = raw_rows(db, "SELECT id, metric, value FROM sample ORDER BY id");
	cr_expect_str_eq(rows, "1|rps|42.5\n4|rps_max|50.0\n");
	free(rows);
	rows = raw_rows(db, "SELECT boot_id, level, time_ns, message FROM event ORDER BY id");
	cr_expect_str_eq(rows,
			 "1|warn|20|schema 7 dropped a second sample of metric 'rps' of cell "
			 "'wakeup': 43.5 1/s (the first is kept: one value per boot and metric)\n"
			 "1|warn|20|schema 7 dropped a second sample of metric 'rps' of cell "
			 "'wakeup': 44.5 1/s (the first is kept: one value per boot and metric)\n");
	free(rows);
	cr_expect_neq(sqlite3_exec(db,
				   "INSERT INTO sample VALUES (5, 1, 'rps', '1/s', 1, 'higher')",
				   NULL, NULL, NULL),
		      SQLITE_OK, "a second sample of a metric in a result is refused");
	sqlite3_close(db);
}

/* A caller of the API (not the record parser, which refuses them) with a
 * metric twice in a cell: the boot is stored, the first value kept, the
 * second an error event of the boot. */
Test(store, a_second_sample_of_a_metric_in_a_cell_is_an_event_not_a_boot)
{
	struct vtb_store *st = open_store();
	struct vtb_boot_info b;
	struct test_matrix t;
	struct test_recs r;
	int64_t id;
	char *rows;
	sqlite3 *db;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	recs_init(&r, 'v', 10);
	r.samples[4] = r.samples[1];
	r.samples[4].value = 7;
	r.r.n_samples = 5;
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "v000000000000000", 0);
	cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	db = raw_open();
	rows = raw_rows(db, "SELECT value FROM sample WHERE metric = 'rps'");
	cr_expect_str_eq(rows, "1000.0\n");
	free(rows);
	cr_expect_eq(raw_int(db,
			     "SELECT count(*) FROM event WHERE level = 'error' AND message ="
			     " 'a second sample of metric ''rps'' in cell ''v000000000000000'' (7"
			     " 1/s) was not stored: one value per boot and metric'"),
		     1);
	sqlite3_close(db);
	recs_release(&r);
	matrix_release(&t);
}

Test(store, a_migrated_database_has_the_schema_of_a_new_one)
{
	static const char q[] = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name";
	char *fresh, *migrated;
	struct vtb_store *st;
	sqlite3 *db;

	st = open_store();
	vtb_store_close(st);
	db = raw_open();
	fresh = raw_rows(db, q);
	sqlite3_close(db);
	teardown();
	setup();
	make_v1_database();
	st = open_store();
	vtb_store_close(st);
	db = raw_open();
	migrated = raw_rows(db, q);
	sqlite3_close(db);
	cr_expect_str_eq(migrated, fresh);
	free(fresh);
	free(migrated);
}

Test(store, a_newer_schema_is_refused)
{
	struct vtb_store *st = open_store();
	sqlite3 *db;
	char *want;

	vtb_store_close(st);
	db = raw_open();
	raw_exec(db, "PRAGMA user_version = 99");
	sqlite3_close(db);
	want = vtb_asprintf("'%s' was written by a newer vtbench (schema 99, this one knows %d)",
			    dbpath, VTB_STORE_SCHEMA);
	st = (struct vtb_store *)&st;
	cr_expect_eq(vtb_store_open(dbpath, &st), -1);
	cr_expect_null(st);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_eq(vtb_store_open_ro(dbpath, &st), -1);
	cr_expect_str_eq(vtb_errmsg(), want);
	free(want);
}

Test(store, a_foreign_sqlite_file_is_refused_and_left_alone)
{
	struct vtb_store *st;
	sqlite3 *db = raw_open();
	char *want, *mode;

	raw_exec(db, "CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('mine')");
	sqlite3_close(db);
	want = vtb_asprintf("'%s' is not a vtbench database", dbpath);
	cr_expect_eq(vtb_store_open(dbpath, &st), -1);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_eq(vtb_store_open_ro(dbpath, &st), -1);
	cr_expect_str_eq(vtb_errmsg(), want);
	db = raw_open();
	mode = raw_text(db, "PRAGMA journal_mode");
	cr_expect_str_eq(mode, "delete");
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM sqlite_master"), 1);
	cr_expect_eq(raw_int(db, "PRAGMA user_version"), 0);
	sqlite3_close(db);
	free(mode);
	free(want);
}

Test(store, a_file_that_is_not_sqlite_is_refused)
{
	FILE *f = fopen(dbpath, "w");
	struct vtb_store *st;

	cr_assert(f);
	for (int i = 0; i < 200; i++)
		fputs("this is a text file, not a database\n", f);
	fclose(f);
	cr_expect_eq(vtb_store_open(dbpath, &st), -1);
	cr_expect(strstr(vtb_errmsg(), "file is not a database"), "%s", vtb_errmsg());
	cr_expect(strstr(vtb_errmsg(), dbpath), "%s", vtb_errmsg());
}

Test(store, read_only_open_refuses_a_missing_or_empty_database)
{
	struct vtb_store *st;
	FILE *f;

	cr_expect_eq(vtb_store_open_ro(dbpath, &st), -1);
	cr_expect(strstr(vtb_errmsg(), "cannot open"), "%s", vtb_errmsg());
	f = fopen(dbpath, "w");
	fclose(f);
	cr_expect_eq(vtb_store_open_ro(dbpath, &st), -1);
	cr_expect(strstr(vtb_errmsg(), "is not a vtbench database"), "%s", vtb_errmsg());
}

Test(store, host_is_upserted_by_identity)
{
	struct vtb_store *st = open_store();
	struct vtb_host_info other = host_a, sparse = { .hostname = "x" };
	int64_t a = 0, b = 0, c = 0, d = 0;

	cr_assert_eq(vtb_store_host(st, &host_a, &a), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_host(st, &host_a, &b), 0);
	cr_expect_eq(a, b);
	other.kernel = "6.1.0-30-amd64";
	cr_assert_eq(vtb_store_host(st, &other, &c), 0);
	cr_expect_neq(a, c);
	cr_assert_eq(vtb_store_host(st, &sparse, &d), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_host(st, &sparse, &c), 0);
	cr_expect_eq(c, d);
	vtb_store_close(st);
	cr_expect_eq(count_rows("SELECT count(*) FROM host"), 3);
}

Test(store, campaign_begin_stores_configurations_in_matrix_order)
{
	struct vtb_store *st = open_store();
	struct test_matrix t;
	char *rows;
	sqlite3 *db;

	matrix_init(&t);
	begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	vtb_store_close(st);
	db = raw_open();
	rows = raw_rows(db, "SELECT seq, key, kind, cpus, runnable, why_not,"
			    " (SELECT count(*) FROM cell WHERE config_id = config.id)"
			    " FROM config ORDER BY seq");
	cr_expect_str_eq(rows, "0|b000000000000000|baseline|0-1|1|NULL|3\n"
			       "1|v000000000000000|vm|0-1|1|NULL|3\n"
			       "2|x000000000000000|vm|0-1|0|needs 64 CPUs, the host has 2|1\n");
	free(rows);
	rows = raw_rows(db,
			"SELECT status, ended_ns, host_state, matrix_digest = printf('%064d', 7)"
			" FROM campaign");
	cr_expect_str_eq(rows, "running|NULL|{\"thp\":{\"enabled\":\"madvise\"}}|1\n");
	free(rows);
	sqlite3_close(db);
	matrix_release(&t);
}

Test(store, a_campaign_that_fails_to_store_leaves_nothing)
{
	struct vtb_store *st = open_store();
	struct test_matrix t;
	struct vtb_campaign_info ci = { .uuid = "u",
					.matrix_digest = "d",
					.version = "v",
					.cmdline = "c",
					.state_json = "{not json" };
	int64_t id;

	matrix_init(&t);
	cr_assert_eq(vtb_store_host(st, &host_a, &ci.host_id), 0);
	cr_expect_eq(vtb_store_campaign_begin(st, &ci, &t.m, &id), -1);
	cr_expect(strstr(vtb_errmsg(), "CHECK constraint failed"), "%s", vtb_errmsg());
	ci.state_json = NULL;
	/* a duplicate configuration key fails in the middle of the configs */
	snprintf(t.configs[2].key, sizeof(t.configs[2].key), "%s", t.configs[0].key);
	cr_expect_eq(vtb_store_campaign_begin(st, &ci, &t.m, &id), -1);
	vtb_store_close(st);
	cr_expect_eq(count_rows("SELECT count(*) FROM campaign"), 0);
	cr_expect_eq(count_rows("SELECT count(*) FROM config"), 0);
	cr_expect_eq(count_rows("SELECT count(*) FROM cell"), 0);
	matrix_release(&t);
}

Test(store, campaign_find_returns_the_latest_of_the_digest_and_host)
{
	struct vtb_store *st = open_store();
	struct test_matrix t;
	int64_t host, first, second, found_id = 0, other;
	char uuid[37] = "";
	bool found = true;

	matrix_init(&t);
	cr_assert_eq(vtb_store_host(st, &host_a, &host), 0);
	cr_assert_eq(vtb_store_campaign_find(st, t.m.digest, host, &found_id, uuid, &found), 0);
	cr_expect_not(found);
	first = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	second = begin_campaign(st, &t, "22222222-0000-4000-8000-000000000000", NULL);
	cr_assert_neq(first, second);
	cr_assert_eq(vtb_store_campaign_find(st, t.m.digest, host, &found_id, uuid, &found), 0);
	cr_expect(found);
	cr_expect_eq(found_id, second);
	cr_expect_str_eq(uuid, "22222222-0000-4000-8000-000000000000");
	cr_assert_eq(vtb_store_campaign_find(st, "other", host, &found_id, uuid, &found), 0);
	cr_expect_not(found);
	cr_assert_eq(vtb_store_campaign_find(st, t.m.digest, host + 1, &found_id, uuid, &found), 0);
	cr_expect_not(found);
	cr_assert_eq(vtb_store_latest_campaign(st, &other, &found), 0);
	cr_expect(found);
	cr_expect_eq(other, second);
	vtb_store_close(st);
	matrix_release(&t);
}

Test(store, campaign_sync_adds_only_what_is_missing)
{
	struct vtb_store *st = open_store();
	struct test_matrix t;
	int64_t id;
	char *rows;
	sqlite3 *db;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	cr_assert_eq(vtb_store_campaign_sync(st, id, &t.m), 0, "%s", vtb_errmsg());
	/* a new configuration first in the matrix, a fourth cell for the vm */
	memmove(&t.configs[1], &t.configs[0], 3 * sizeof(t.configs[0]));
	memmove(&t.cells[1], &t.cells[0], 3 * sizeof(t.cells[0]));
	for (int i = 1; i < 4; i++)
		t.configs[i].cells = t.cells[i];
	t.m.n_configs = 0;
	add_config(&t, "n000000000000000", VTB_CONFIG_VM, "vm vcpus=1", true, 1);
	t.m.n_configs = 4;
	t.configs[2].n_cells = 4;
	snprintf(t.cells[2][3].key, 17, "v%015d", 3);
	t.cells[2][3].name = S("c2c");
	t.cells[2][3].workload = S("c2c");
	t.cells[2][3].params_json = S("{}");
	t.cells[2][3].resolved_json = S("{}");
	cr_assert_eq(vtb_store_campaign_sync(st, id, &t.m), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	db = raw_open();
	rows = raw_rows(db,
			"SELECT seq, key, (SELECT count(*) FROM cell WHERE config_id = config.id)"
			" FROM config ORDER BY seq");
	cr_expect_str_eq(rows, "0|b000000000000000|3\n"
			       "1|v000000000000000|4\n"
			       "2|x000000000000000|1\n"
			       "3|n000000000000000|1\n");
	free(rows);
	sqlite3_close(db);
	vtb_cpuset_release(&t.configs[0].cpus);
	t.m.n_configs = 4;
	matrix_release(&t);
}

Test(store, campaign_end_sets_status_and_time)
{
	struct vtb_store *st = open_store();
	struct test_matrix t;
	int64_t id;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	cr_expect_eq(vtb_store_campaign_end(st, id, "finished?"), -1);
	cr_expect_eq(vtb_store_campaign_end(st, id + 1, "done"), -1);
	cr_expect(strstr(vtb_errmsg(), "no campaign"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_campaign_end(st, id, "interrupted"), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	cr_expect_eq(count_rows("SELECT count(*) FROM campaign WHERE status = 'interrupted'"
				" AND ended_ns >= started_ns"),
		     1);
	matrix_release(&t);
}

static int collect_config_boots(const struct vtb_config_row *r, const struct vtb_boot_counts *n,
				void *arg)
{
	char *buf = arg;
	size_t len = strlen(buf);

	snprintf(buf + len, 256 - len, "%s %s %ld/%ld/%ld;", r->label, r->kind, n->total, n->ok,
		 n->failed);
	return 0;
}

/* --format json's configurations: each with its own boots by status, in
 * matrix order, none of another campaign's */
Test(store, config_boots_counts_each_configuration_of_its_campaign)
{
	struct vtb_store *st = open_store();
	struct test_matrix t;
	struct vtb_boot_info b;
	char got[256] = "";
	int64_t id, other;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	other = begin_campaign(st, &t, "22222222-0000-4000-8000-000000000000", NULL);
	b = boot_info(id, "b1", "b000000000000000", 0);
	cr_assert_eq(vtb_store_boot(st, &b, NULL), 0, "%s", vtb_errmsg());
	b = boot_info(id, "b2", "b000000000000000", 1);
	b.status = "failed";
	cr_assert_eq(vtb_store_boot(st, &b, NULL), 0, "%s", vtb_errmsg());
	b = boot_info(other, "b3", "v000000000000000", 0);
	cr_assert_eq(vtb_store_boot(st, &b, NULL), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_foreach_config_boots(st, id, collect_config_boots, got), 0, "%s",
		     vtb_errmsg());
	cr_expect_str_eq(got, "baseline cpus=2 baseline 2/1/1;vm vcpus=2 vm 0/0/0;"
			      "vm vcpus=64 vm 0/0/0;");
	vtb_store_close(st);
	matrix_release(&t);
}

/* An input error after the campaign began (exit 2) takes it back: its
 * rows go, its host only when no other campaign has it */
Test(store, campaign_delete_takes_the_campaign_and_a_host_of_its_own)
{
	struct vtb_store *st = open_store();
	struct test_matrix t;
	struct vtb_boot_info b;
	int64_t id;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	begin_campaign(st, &t, "22222222-0000-4000-8000-000000000000", NULL);
	b = boot_info(id, "b1", "b000000000000000", 0);
	cr_assert_eq(vtb_store_boot(st, &b, NULL), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_campaign_delete(st, "11111111-0000-4000-8000-000000000000"), 0, "%s",
		     vtb_errmsg());
	cr_expect_eq(count_rows("SELECT count(*) FROM campaign"), 1);
	cr_expect_eq(count_rows("SELECT count(*) FROM boot"), 0);
	cr_expect_eq(count_rows("SELECT count(*) FROM config WHERE campaign_id = 1"), 0);
	cr_expect_eq(count_rows("SELECT count(*) FROM host"), 1, "the other campaign's host stays");
	cr_expect_eq(vtb_store_campaign_delete(st, "11111111-0000-4000-8000-000000000000"), -1);
	cr_expect(strstr(vtb_errmsg(), "no campaign"), "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_campaign_delete(st, "22222222-0000-4000-8000-000000000000"), 0, "%s",
		     vtb_errmsg());
	cr_expect_eq(count_rows("SELECT count(*) FROM host"), 0);
	vtb_store_close(st);
	cr_expect_eq(count_rows("SELECT count(*) FROM config"), 0);
	matrix_release(&t);
}

/* A guest reporting many cells the configuration lacks: the first 16 are
 * listed, one event counts the rest (not one row each, and no quadratic
 * search: 80k of them took 20 s of a boot's store). */
Test(store, cells_a_configuration_lacks_are_listed_then_counted)
{
	struct vtb_store *st = open_store();
	struct vtb_boot_info b;
	struct test_matrix t;
	struct test_recs r;
	struct vtb_rs_cell *cells = calloc(40, sizeof(*cells));
	struct vtb_rs_sample *samples = calloc(40, sizeof(*samples));
	char keys[40][8];
	char *rows;
	int64_t id;
	sqlite3 *db;

	cr_assert(cells && samples);
	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	recs_init(&r, 'v', 10);
	for (int i = 0; i < 40; i++) {
		snprintf(keys[i], sizeof(keys[i]), "zz%02d", i);
		cells[i] = (struct vtb_rs_cell){ .cell = keys[i], .status = S("ok") };
		samples[i] = (struct vtb_rs_sample){ keys[i], S("rps"), S("1/s"), 1, 1 };
	}
	r.r.cells = cells;
	r.r.n_cells = 40;
	r.r.samples = samples;
	r.r.n_samples = 40;
	r.r.n_hists = 0;
	r.r.n_errors = 0;
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "v000000000000000", 0);
	cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	db = raw_open();
	rows = raw_rows(db, "SELECT count(*) FROM event WHERE boot_id IS NOT NULL AND message"
			    " LIKE 'records for cell ''zz%'");
	cr_expect_str_eq(rows, "16\n");
	free(rows);
	rows = raw_rows(db, "SELECT message FROM event WHERE message LIKE '% more records%'");
	cr_expect_str_eq(rows, "48 more records for cells which are not in configuration"
			       " 'v000000000000000' (the first 16 such cells are listed)\n");
	free(rows);
	rows = raw_rows(db, "SELECT count(*) FROM result WHERE status = 'missing'");
	cr_expect_str_eq(rows, "3\n", "the configuration's own cells are missing");
	free(rows);
	sqlite3_close(db);
	r.r.cells = r.cells;
	r.r.samples = r.samples;
	recs_release(&r);
	matrix_release(&t);
	free(cells);
	free(samples);
}

Test(store, a_boot_is_stored_whole)
{
	struct vtb_store *st = open_store();
	struct vtb_boot_info b;
	struct test_matrix t;
	struct test_recs r;
	int64_t id;
	char *rows;
	bool exists = false;
	sqlite3 *db;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	recs_init(&r, 'v', 10);
	/* a cell key the configuration lacks, with a sample */
	r.cells[2] = (struct vtb_rs_cell){ .cell = S("zzzz"), .status = S("ok") };
	/* the guest reports cell 0 again: the first report is kept */
	r.cells[3] = r.cells[0];
	r.cells[3].status = S("failed");
	r.r.n_cells = 4;
	r.samples[4] = (struct vtb_rs_sample){ S("zzzz"), S("rps"), S("1/s"), 1, 1 };
	r.samples[5] = (struct vtb_rs_sample){ S("zzzz"), S("rps2"), S("1/s"), 1, 1 };
	r.r.n_samples = 6;
	r.r.errors_dropped = 5;
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "v000000000000000", 0);
	cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_boot_exists(st, id, "v000000000000000", 0, &exists), 0);
	cr_expect(exists);
	cr_assert_eq(vtb_store_boot_exists(st, id, "v000000000000000", 1, &exists), 0);
	cr_expect_not(exists);
	cr_assert_eq(vtb_store_boot_exists(st, id, "b000000000000000", 0, &exists), 0);
	cr_expect_not(exists);
	vtb_store_close(st);
	db = raw_open();
	rows = raw_rows(db, "SELECT rep, status, cpus, confinement, header, noise_lines, records,"
			    " stderr_tail FROM boot");
	cr_expect_str_eq(rows,
			 "0|ok|0-1|affinity|{\"kernel\":\"6.1.0\",\"schema\":1}|12|9|done\n\n");
	free(rows);
	rows = raw_rows(db, "SELECT cell.key, result.status, result.error, result.seconds,"
			    " result.info FROM result JOIN cell ON cell.id = result.cell_id"
			    " ORDER BY cell.key");
	cr_expect_str_eq(
		rows,
		"v000000000000000|ok|NULL|1.5|{\"threads\":2}\n"
		"v000000000000001|failed|no cell_end record (the record stream ended early)|NULL|{}\n"
		"v000000000000002|missing|no records for this cell|NULL|NULL\n");
	free(rows);
	rows = raw_rows(db, "SELECT metric, unit, value, better FROM sample ORDER BY id");
	cr_expect_str_eq(rows, "wakeup_p99|us|19.0|lower\nrps|1/s|1000.0|higher\n"
			       "wakeup_p50|us|10.0|lower\ncopy|MB/s|1000.0|higher\n");
	free(rows);
	rows = raw_rows(db, "SELECT metric, unit, params, buckets FROM histogram");
	cr_expect_str_eq(rows, "wakeup|us|{\"bits\":4}|[1,2,3]\n");
	free(rows);
	rows = raw_rows(db,
			"SELECT level, message FROM event WHERE boot_id IS NOT NULL ORDER BY id");
	cr_expect_str_eq(
		rows,
		"error|records for cell 'zzzz', which is not in configuration 'v000000000000000'\n"
		"error|cell 'v000000000000000' was reported twice; the first report is kept\n"
		"error|bad crc on line 7\n"
		"error|5 further errors were not kept\n"
		"warn|host state changed: thp.enabled: always -> never\n");
	free(rows);
	sqlite3_close(db);
	recs_release(&r);
	matrix_release(&t);
}

Test(store, a_boot_without_records_gets_missing_results)
{
	struct vtb_store *st = open_store();
	struct vtb_boot_info b;
	struct test_matrix t;
	int64_t id;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "b000000000000000", 0);
	b.status = "timeout";
	b.error = "no record within 10m";
	cr_assert_eq(vtb_store_boot(st, &b, NULL), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	cr_expect_eq(count_rows("SELECT count(*) FROM result WHERE status = 'missing'"), 3);
	cr_expect_eq(count_rows("SELECT count(*) FROM boot WHERE header IS NULL AND records = 0"
				" AND status = 'timeout'"),
		     1);
	matrix_release(&t);
}

static int count_campaign_cell(const struct vtb_campaign_cell *row, void *arg)
{
	vtb_strbuf_addf(arg, "%s/%s ", row->config_key, row->cell_key);
	return 0;
}

/* What compare's missing rows say: a cell's results, the usable ones and
 * why the first that is not ok is not (the boot's error for a cell
 * without records). */
Test(store, a_cells_outcome_says_what_its_boots_did)
{
	struct vtb_store *st = open_store();
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	struct vtb_cell_outcome oc;
	struct vtb_boot_info b;
	struct test_matrix t;
	struct test_recs r;
	int64_t id;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "b000000000000000", 0);
	b.status = "failed";
	b.error = "agent exited with status 1";
	cr_assert_eq(vtb_store_boot(st, &b, NULL), 0, "%s", vtb_errmsg());
	recs_init(&r, 'b', 10);
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000001", "b000000000000000", 1);
	cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_cell_outcome(st, id, "b000000000000000", "b000000000000000", &oc),
		     0);
	cr_expect_eq(oc.results, 2);
	cr_expect_eq(oc.usable, 1);
	cr_expect_eq(oc.unexpected, 0);
	cr_expect_str_eq(oc.error, "agent exited with status 1");
	free(oc.error);
	/* a cell without records in either boot, no error of its own */
	cr_assert_eq(vtb_store_cell_outcome(st, id, "b000000000000000", "b000000000000002", &oc),
		     0);
	cr_expect_eq(oc.results, 2);
	cr_expect_eq(oc.usable, 0);
	cr_expect_str_eq(oc.error, "agent exited with status 1");
	free(oc.error);
	cr_assert_eq(vtb_store_cell_outcome(st, id, "b000000000000000", "nope", &oc), 0);
	cr_expect(oc.results == 0 && oc.usable == 0 && !oc.error);
	cr_assert_eq(vtb_store_foreach_campaign_cell(st, id, count_campaign_cell, &sb), 0);
	cr_expect_str_eq(vtb_strbuf_str(&sb),
			 "b000000000000000/b000000000000000 b000000000000000/b000000000000001 "
			 "b000000000000000/b000000000000002 v000000000000000/v000000000000000 "
			 "v000000000000000/v000000000000001 v000000000000000/v000000000000002 "
			 "x000000000000000/x000000000000000 ");
	vtb_strbuf_release(&sb);
	vtb_store_close(st);
	recs_release(&r);
	matrix_release(&t);
}

static void expect_empty_boot_tables(void)
{
	static const char *tables[] = { "boot", "result", "sample", "histogram", "event" };
	char sql[64];

	for (size_t i = 0; i < VTB_ARRAY_SIZE(tables); i++) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", tables[i]);
		cr_expect_eq(count_rows(sql), 0, "%s is not empty", tables[i]);
	}
}

Test(store, a_boot_failing_halfway_leaves_nothing)
{
	struct vtb_store *st = open_store();
	struct vtb_boot_info b;
	struct test_matrix t;
	struct test_recs r;
	bool exists = true;
	int64_t id;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	recs_init(&r, 'v', 10);
	/* the last sample cannot be stored: boot, results, earlier samples
	 * and events must go with it */
	r.samples[3].metric = NULL;
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "v000000000000000", 0);
	cr_expect_eq(vtb_store_boot(st, &b, &r.r), -1);
	cr_expect(strstr(vtb_errmsg(), "NOT NULL constraint failed: sample.metric"), "%s",
		  vtb_errmsg());
	cr_assert_eq(vtb_store_boot_exists(st, id, "v000000000000000", 0, &exists), 0);
	cr_expect_not(exists);
	expect_empty_boot_tables();
	/* a bad histogram (not JSON) likewise */
	r.samples[3].metric = S("copy");
	r.hists[0].buckets_json = S("[1,2");
	cr_expect_eq(vtb_store_boot(st, &b, &r.r), -1);
	expect_empty_boot_tables();
	/* and the store is usable afterwards */
	r.hists[0].buckets_json = S("[1,2]");
	cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	cr_expect_eq(count_rows("SELECT count(*) FROM sample"), 4);
	recs_release(&r);
	matrix_release(&t);
}

Test(store, a_boot_is_never_stored_twice)
{
	struct vtb_store *st = open_store();
	struct vtb_boot_info b;
	struct test_matrix t;
	struct test_recs r;
	int64_t id;
	char *want;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	recs_init(&r, 'b', 10);
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "b000000000000000", 1);
	cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
	b.uuid = "bbbbbbbb-0000-4000-8000-000000000000";
	cr_expect_eq(vtb_store_boot(st, &b, &r.r), -1);
	want = vtb_asprintf("boot 1 of configuration 'b000000000000000' is already stored in '%s'",
			    dbpath);
	cr_expect_str_eq(vtb_errmsg(), want);
	free(want);
	b.config_key = "nope";
	cr_expect_eq(vtb_store_boot(st, &b, &r.r), -1);
	cr_expect(strstr(vtb_errmsg(), "configuration 'nope' is not in campaign"), "%s",
		  vtb_errmsg());
	vtb_store_close(st);
	cr_expect_eq(count_rows("SELECT count(*) FROM boot"), 1);
	cr_expect_eq(count_rows("SELECT count(*) FROM sample"), 4);
	recs_release(&r);
	matrix_release(&t);
}

struct walk {
	struct vtb_strbuf sb;
	int stop_after;
	int n;
};

static int collect(const struct vtb_sample_row *row, void *arg)
{
	struct walk *w = arg;

	vtb_strbuf_addf(&w->sb, "%s %s %s %d %g %s\n", row->kind, row->cell_name, row->metric,
			row->rep, row->value, row->better ? "higher" : "lower");
	if (++w->n == w->stop_after)
		return vtb_error("enough");
	return 0;
}

Test(store, foreach_sample_orders_by_matrix_then_reported_metric_order)
{
	struct vtb_store *st = open_store();
	struct walk w = { VTB_STRBUF_INIT, 0, 0 };
	struct test_matrix t;
	struct test_recs r;
	struct vtb_boot_info b;
	int64_t id;
	static const struct {
		char prefix;
		const char *key;
		int rep;
	} order[] = {
		{ 'v', "v000000000000000", 1 },
		{ 'b', "b000000000000000", 1 },
		{ 'v', "v000000000000000", 0 },
		{ 'b', "b000000000000000", 0 },
	};
	static const char want[] = "baseline wakeup wakeup_p99 0 10 lower\n"
				   "baseline wakeup wakeup_p99 1 11 lower\n"
				   "baseline wakeup rps 0 100 higher\n"
				   "baseline wakeup rps 1 200 higher\n"
				   "baseline wakeup wakeup_p50 0 1 lower\n"
				   "baseline wakeup wakeup_p50 1 2 lower\n"
				   "baseline membw copy 0 1000 higher\n"
				   "baseline membw copy 1 1000 higher\n"
				   "vm wakeup wakeup_p99 0 10 lower\n"
				   "vm wakeup wakeup_p99 1 11 lower\n"
				   "vm wakeup rps 0 100 higher\n"
				   "vm wakeup rps 1 200 higher\n"
				   "vm wakeup wakeup_p50 0 1 lower\n"
				   "vm wakeup wakeup_p50 1 2 lower\n";
	int64_t other;
	char uuid[37];

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	for (size_t i = 0; i < VTB_ARRAY_SIZE(order); i++) {
		recs_init(&r, order[i].prefix, order[i].rep + 1);
		/* membw of the vm failed: its samples are not for compare */
		if (order[i].prefix == 'v') {
			r.cells[1].status = S("failed");
			r.cells[1].error = S("validation failed");
		} else {
			r.cells[1].status = S("ok");
		}
		snprintf(uuid, sizeof(uuid), "%08zx-0000-4000-8000-000000000000", i);
		b = boot_info(id, uuid, order[i].key, order[i].rep);
		cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
		recs_release(&r);
	}
	cr_assert_eq(vtb_store_foreach_sample(st, id, collect, &w), 0, "%s", vtb_errmsg());
	/* configurations and cells in matrix order, metrics in the order
	 * the workload reported them, reps ascending */
	cr_expect_str_eq(vtb_strbuf_str(&w.sb), want);
	vtb_strbuf_release(&w.sb);
	/* the same once the campaign holds less than half the database's
	 * boots (read through the indexes, not by a scan of every sample) */
	other = begin_campaign(st, &t, "22222222-0000-4000-8000-000000000000", NULL);
	for (size_t i = 0; i < 2 * VTB_ARRAY_SIZE(order); i++) {
		recs_init(&r, order[i % 4].prefix, 5);
		snprintf(uuid, sizeof(uuid), "%08zx-1111-4000-8000-000000000000", i);
		b = boot_info(other, uuid, order[i % 4].key, (int)i);
		cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
		recs_release(&r);
	}
	w = (struct walk){ VTB_STRBUF_INIT, 0, 0 };
	cr_assert_eq(vtb_store_foreach_sample(st, id, collect, &w), 0, "%s", vtb_errmsg());
	cr_expect_str_eq(vtb_strbuf_str(&w.sb), want);
	vtb_strbuf_release(&w.sb);
	/* a callback error stops the walk and comes back */
	w = (struct walk){ VTB_STRBUF_INIT, 3, 0 };
	cr_expect_eq(vtb_store_foreach_sample(st, id, collect, &w), -1);
	cr_expect_str_eq(vtb_errmsg(), "enough");
	cr_expect_eq(w.n, 3);
	vtb_strbuf_release(&w.sb);
	vtb_store_close(st);
	matrix_release(&t);
}

static int collect_run(const struct vtb_run_row *row, void *arg)
{
	vtb_strbuf_addf(arg, "%s %s %s %s %ld %ld %ld\n", row->uuid, row->hostname,
			row->matrix_path, row->status, row->boots, row->boots_ok,
			row->boots_failed);
	return 0;
}

static int collect_cell(const struct vtb_cell_row *row, void *arg)
{
	vtb_strbuf_addf(arg, "%.8s %s %s %s %ld %ld\n", row->campaign_uuid, row->config_label,
			row->cell_name, row->params_json, row->boots, row->ok);
	return 0;
}

Test(store, runs_and_cells_are_listed_with_counts)
{
	struct vtb_store *st = open_store(), *ro = NULL;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	struct vtb_boot_info b;
	struct test_matrix t;
	struct test_recs r;
	int64_t id;

	matrix_init(&t);
	begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	id = begin_campaign(st, &t, "22222222-0000-4000-8000-000000000000", NULL);
	recs_init(&r, 'b', 1);
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "b000000000000000", 0);
	cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
	b = boot_info(id, "bbbbbbbb-0000-4000-8000-000000000000", "b000000000000000", 1);
	b.status = "failed";
	cr_assert_eq(vtb_store_boot(st, &b, NULL), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_campaign_end(st, id, "done"), 0);
	vtb_store_close(st);
	cr_assert_eq(vtb_store_open_ro(dbpath, &ro), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_foreach_run(ro, collect_run, &sb), 0, "%s", vtb_errmsg());
	cr_expect_str_eq(vtb_strbuf_str(&sb),
			 "11111111-0000-4000-8000-000000000000 box quick.conf running 0 0 0\n"
			 "22222222-0000-4000-8000-000000000000 box quick.conf done 2 1 1\n");
	vtb_strbuf_release(&sb);
	cr_assert_eq(vtb_store_foreach_cell(ro, id, collect_cell, &sb), 0, "%s", vtb_errmsg());
	/* configurations and cells in matrix order */
	cr_expect_str_eq(vtb_strbuf_str(&sb),
			 "22222222 baseline cpus=2 wakeup {\"runtime\":\"1s\"} 2 1\n"
			 "22222222 baseline cpus=2 membw {\"runtime\":\"1s\"} 2 0\n"
			 "22222222 baseline cpus=2 timer {\"runtime\":\"1s\"} 2 0\n"
			 "22222222 vm vcpus=2 wakeup {\"runtime\":\"1s\"} 0 0\n"
			 "22222222 vm vcpus=2 membw {\"runtime\":\"1s\"} 0 0\n"
			 "22222222 vm vcpus=2 timer {\"runtime\":\"1s\"} 0 0\n"
			 "22222222 vm vcpus=64 wakeup {\"runtime\":\"1s\"} 0 0\n");
	vtb_strbuf_release(&sb);
	cr_assert_eq(vtb_store_foreach_cell(ro, 0, collect_cell, &sb), 0);
	cr_expect_eq(strlen(vtb_strbuf_str(&sb)) > 0, 1);
	vtb_strbuf_release(&sb);
	vtb_store_close(ro);
	recs_release(&r);
	matrix_release(&t);
}

Test(store, events_belong_to_a_campaign_or_one_of_its_boots)
{
	struct vtb_store *st = open_store();
	struct vtb_boot_info b;
	struct test_matrix t;
	int64_t id;
	char *rows;
	sqlite3 *db;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "b000000000000000", 0);
	b.n_warnings = 0;
	cr_assert_eq(vtb_store_boot(st, &b, NULL), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_event(st, id, NULL, "info", "campaign 'x' started"), 0, "%s",
		     vtb_errmsg());
	cr_assert_eq(vtb_store_event(st, id, b.uuid, "error", "agent said: it's broken"), 0, "%s",
		     vtb_errmsg());
	cr_expect_eq(vtb_store_event(st, id, "no-such-boot", "warn", "x"), -1);
	cr_expect(strstr(vtb_errmsg(), "no boot 'no-such-boot'"), "%s", vtb_errmsg());
	cr_expect_eq(vtb_store_event(st, id, NULL, "shout", "x"), -1);
	cr_expect_eq(vtb_store_event(st, id + 7, NULL, "info", "x"), -1);
	cr_expect(strstr(vtb_errmsg(), "FOREIGN KEY"), "%s", vtb_errmsg());
	vtb_store_close(st);
	db = raw_open();
	rows = raw_rows(db, "SELECT boot_id IS NULL, level, message FROM event ORDER BY id");
	cr_expect_str_eq(rows, "1|info|campaign 'x' started\n0|error|agent said: it's broken\n");
	free(rows);
	sqlite3_close(db);
	matrix_release(&t);
}

/* Does some connection hold the write lock? */
static bool write_locked(void)
{
	sqlite3 *db = raw_open();
	bool locked;

	sqlite3_busy_timeout(db, 0);
	locked = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_BUSY;
	if (!locked)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	return locked;
}

Test(store, a_boot_killed_before_commit_leaves_nothing, .timeout = 60)
{
	struct vtb_store *st = open_store();
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct vtb_boot_info b;
	struct test_matrix t;
	struct test_recs r;
	int64_t id;
	int status, waited;
	pid_t pid;
	char *ok;
	sqlite3 *db;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	vtb_store_close(st);
	recs_init(&r, 'v', 10);
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "v000000000000000", 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		setenv("VTBENCH_TEST_COMMIT_DELAY_MS", "20000", 1);
		if (vtb_store_open(dbpath, &st) || vtb_store_boot(st, &b, &r.r))
			_exit(3);
		_exit(0);
	}
	for (waited = 0; waited < 2000 && !write_locked(); waited++)
		nanosleep(&tick, NULL);
	cr_assert_lt(waited, 2000, "the child never started its transaction");
	/* well inside the commit delay: everything but COMMIT is done */
	tick.tv_nsec = 300 * 1000 * 1000;
	nanosleep(&tick, NULL);
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	expect_empty_boot_tables();
	db = raw_open();
	ok = raw_text(db, "PRAGMA integrity_check");
	cr_expect_str_eq(ok, "ok");
	free(ok);
	sqlite3_close(db);
	st = open_store();
	cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	cr_expect_eq(count_rows("SELECT count(*) FROM boot"), 1);
	recs_release(&r);
	matrix_release(&t);
}

/* The plan of a VM configuration (its claims) is stored with it, for the
 * experiments to check guests against and for compare to show. */
Test(store, config_plan_is_stored)
{
	struct vtb_store *st = open_store();
	struct test_matrix t;
	sqlite3 *db;
	char *plan, *none;

	matrix_init(&t);
	begin_campaign(st, &t, "11111111-1111-4111-8111-111111111111", NULL);
	vtb_store_close(st);
	db = raw_open();
	plan = raw_text(db, "SELECT plan FROM config WHERE key = 'v000000000000000'");
	none = raw_text(db, "SELECT coalesce(plan, 'null') FROM config WHERE kind = 'baseline'");
	cr_assert_str_eq(plan, "{\"claims\":[{\"kind\":\"smt\",\"state\":\"true\"}]}");
	cr_assert_str_eq(none, "null");
	free(plan);
	free(none);
	sqlite3_close(db);
	matrix_release(&t);
}

Test(store, side_by_side_boots_and_guest_views_are_stored_together_or_not_at_all)
{
	struct vtb_store *st = open_store();
	struct vtb_vm_boot_info vm[2] = {
		{ .accelerator = "tcg",
		  .vm_index = 0,
		  .vms = 2,
		  .group_uuid = "99999999-0000-4000-8000-000000000000",
		  .claims = "[]",
		  .placement = "{\"samples\":3}",
		  .view = "{\"cpus\":[]}",
		  .tree = "{}",
		  .digest = "d1",
		  .levels = "MC" },
		{ .accelerator = "tcg",
		  .vm_index = 1,
		  .vms = 2,
		  .group_uuid = "99999999-0000-4000-8000-000000000000",
		  .topology_diff = "cpu0: levels SMT, plan MC" },
	};
	const struct vtb_boot_records *recs[2] = { NULL, NULL };
	struct vtb_boot_info b[2];
	struct test_matrix t;
	int64_t id;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	b[0] = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "v000000000000000", 0);
	b[1] = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000001", "v000000000000000", 0);
	b[0].vm = &vm[0];
	b[1].vm = &vm[1];
	b[1].status = "unexpected-topology";
	/* a malformed JSON text fails the whole group: nothing is stored */
	vm[1].placement = "{";
	cr_expect_eq(vtb_store_boots(st, b, recs, 2), -1);
	vm[1].placement = NULL;
	cr_assert_eq(vtb_store_boots(st, b, recs, 2), 0, "%s", vtb_errmsg());
	/* the same rep of the same VM cannot be stored twice */
	b[0].uuid = "aaaaaaaa-0000-4000-8000-000000000002";
	cr_expect_eq(vtb_store_boots(st, b, recs, 1), -1);
	vtb_store_close(st);
	cr_expect_eq(count_rows("SELECT count(*) FROM boot WHERE group_uuid IS NOT NULL"
				" AND vms = 2 AND kind = 'vm'"),
		     2);
	cr_expect_eq(count_rows(
			     "SELECT count(*) FROM boot WHERE vm_index = 1"
			     " AND status = 'unexpected-topology' AND topology_diff LIKE 'cpu0:%'"),
		     1);
	cr_expect_eq(count_rows("SELECT count(*) FROM guest_view JOIN boot ON boot.id = boot_id"
				" WHERE vm_index = 0 AND levels = 'MC' AND digest = 'd1'"),
		     1);
	matrix_release(&t);
}

Test(store, read_only_opening_of_an_older_database_migrates_a_copy_never_the_file)
{
	struct vtb_store *ro = NULL;
	int version = 0, n = 0;
	sqlite3 *db;

	make_v1_database();
	cr_assert_eq(vtb_store_open_ro(dbpath, &ro), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_schema_version(ro, &version), 0);
	cr_expect_eq(version, VTB_STORE_SCHEMA);
	cr_assert_eq(vtb_store_foreach_sample(ro, 1, count_sample, &n), 0, "%s", vtb_errmsg());
	cr_expect_eq(n, 1);
	vtb_store_close(ro);
	db = raw_open();
	cr_expect_eq(raw_int(db, "PRAGMA user_version"), 1, "the file was not migrated");
	sqlite3_close(db);
}

Test(store, a_reference_broken_by_hand_before_migrating_does_not_stop_the_migration)
{
	struct vtb_store *st;
	sqlite3 *db;

	make_v1_database();
	db = raw_open();
	/* the sqlite3 shell has foreign keys off: a boot deleted by hand
	 * leaves its result behind */
	raw_exec(db, "PRAGMA foreign_keys = OFF; DELETE FROM boot");
	sqlite3_close(db);
	cr_assert_eq(vtb_store_open(dbpath, &st), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	db = raw_open();
	cr_expect_eq(raw_int(db, "PRAGMA user_version"), VTB_STORE_SCHEMA);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM result"), 1);
	sqlite3_close(db);
}

/* ------------------------------------------------------------- merge */

static void sibling(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/*
 * A database at @path with one campaign on host @hostname: a baseline
 * boot and a VM boot (guest view) with records, a campaign event and
 * upload records (a boot and a campaign-level item).  Every column that
 * can hold a value holds one.
 */
static void fill_db(const char *path, const char *campaign_uuid, const char *boot_prefix,
		    const char *hostname)
{
	struct vtb_host_info h = host_a;
	struct vtb_vm_boot_info vm = {
		.accelerator = "tcg",
		.cpu_model = "kvm64",
		.guest_kernel = "6.6.0",
		.libvirt_version = "9.0.0",
		.qemu_version = "7.2.0",
		.live_xml = "<domain/>",
		.console_tail = "Linux version",
		.vm_index = 0,
		.vms = 1,
		.group_uuid = "99999999-0000-4000-8000-000000000000",
		.claims = "[]",
		.placement = "{\"samples\":3}",
		.probe = "{\"ok\":true}",
		.sched = "{\"profile\":\"x\"}",
		.topology_check = "match",
		.topology_diff = "none",
		.view = "{\"cpus\":[]}",
		.tree = "{}",
		.digest = "d1",
		.levels = "MC",
		.cpuid = "{}",
		.steal_before = "{}",
		.steal_after = "{}",
	};
	struct vtb_campaign_info ci = {
		.uuid = campaign_uuid,
		.matrix_path = "quick.conf",
		.matrix_text = "[global]\nreps = 2\n",
		.matrix_digest = "dg",
		.version = "v0-test",
		.cmdline = "vtbench run quick.conf",
		.state_json = "{\"thp\":{\"enabled\":\"madvise\"}}",
	};
	struct vtb_store *st = NULL;
	struct test_recs rb, rv;
	struct vtb_boot_info b;
	struct test_matrix t;
	char uuid[2][40];
	int64_t id, boot_id = 0;
	long points = 7;
	sqlite3 *db;

	h.hostname = hostname;
	matrix_init(&t);
	cr_assert_eq(vtb_store_open(path, &st), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_host(st, &h, &ci.host_id), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_campaign_begin(st, &ci, &t.m, &id), 0, "%s", vtb_errmsg());
	snprintf(uuid[0], sizeof(uuid[0]), "%s-0000-4000-8000-000000000000", boot_prefix);
	snprintf(uuid[1], sizeof(uuid[1]), "%s-0000-4000-8000-000000000001", boot_prefix);
	recs_init(&rb, 'b', 10);
	b = boot_info(id, uuid[0], "b000000000000000", 0);
	b.kind_detail = "{\"x\":1}";
	b.error = "none";
	cr_assert_eq(vtb_store_boot(st, &b, &rb.r), 0, "%s", vtb_errmsg());
	recs_init(&rv, 'v', 20);
	b = boot_info(id, uuid[1], "v000000000000000", 0);
	b.vm = &vm;
	cr_assert_eq(vtb_store_boot(st, &b, &rv.r), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_event(st, id, NULL, "info", "campaign started"), 0, "%s",
		     vtb_errmsg());
	cr_assert_eq(vtb_store_campaign_end(st, id, "done"), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	/* upload records: the boot's id is looked up behind the store's back */
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	boot_id = raw_int(db, "SELECT max(id) FROM boot");
	sqlite3_close(db);
	cr_assert_eq(vtb_store_open(path, &st), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_upload_mark(st, id, "influx://h:8086/db", "boot", &boot_id, &points,
					   1, "sent", NULL),
		     0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_upload_mark(st, id, "influx://h:8086/db", "aggregates", NULL,
					   &points, 0, "failed", "503"),
		     0, "%s", vtb_errmsg());
	vtb_store_close(st);
	recs_release(&rb);
	recs_release(&rv);
	matrix_release(&t);
}

/* Every value of every column but the ids, sorted, per table: what a
 * merge must carry whatever the ids became.  @schema: "main" or an
 * attached name; @other: a second schema whose rows are added. */
static char *values_of(sqlite3 *db, const char *schema, const char *other)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	sqlite3_stmt *t, *c;
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "SELECT name FROM %s.sqlite_master WHERE type = 'table' ORDER BY name", schema);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &t, NULL), SQLITE_OK, "%s",
		     sqlite3_errmsg(db));
	while (sqlite3_step(t) == SQLITE_ROW) {
		char *table = strdup((const char *)sqlite3_column_text(t, 0));

		snprintf(sql, sizeof(sql), "PRAGMA %s.table_info(%s)", schema, table);
		cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &c, NULL), SQLITE_OK);
		while (sqlite3_step(c) == SQLITE_ROW) {
			const char *col = (const char *)sqlite3_column_text(c, 1);
			size_t n = strlen(col);
			char *rows;

			if (!strcmp(col, "id") || (n > 3 && !strcmp(col + n - 3, "_id")))
				continue;
			if (other)
				snprintf(sql, sizeof(sql),
					 "SELECT quote(%s) FROM (SELECT %s FROM %s.%s UNION ALL"
					 " SELECT %s FROM %s.%s) ORDER BY 1",
					 col, col, schema, table, col, other, table);
			else
				snprintf(sql, sizeof(sql), "SELECT quote(%s) FROM %s.%s ORDER BY 1",
					 col, schema, table);
			rows = raw_rows(db, sql);
			vtb_strbuf_addf(&sb, "%s.%s:\n%s", table, col, rows);
			free(rows);
		}
		sqlite3_finalize(c);
		free(table);
	}
	sqlite3_finalize(t);
	vtb_strbuf_addstr(&sb, "");
	return vtb_strbuf_detach(&sb);
}

/* The rows tied to their owners by natural keys, sorted. */
static const char links_sql[] =
	"SELECT h.hostname, c.uuid, f.key, l.key, b.uuid, r.status, s.metric, s.value"
	" FROM %1$s.sample s JOIN %1$s.result r ON r.id = s.result_id"
	" JOIN %1$s.cell l ON l.id = r.cell_id JOIN %1$s.boot b ON b.id = r.boot_id"
	" JOIN %1$s.config f ON f.id = b.config_id AND f.id = l.config_id"
	" JOIN %1$s.campaign c ON c.id = b.campaign_id AND c.id = f.campaign_id"
	" JOIN %1$s.host h ON h.id = c.host_id"
	" UNION ALL SELECT 'hist', c.uuid, b.uuid, x.metric, x.buckets, 0, 0, 0"
	" FROM %1$s.histogram x JOIN %1$s.result r ON r.id = x.result_id"
	" JOIN %1$s.boot b ON b.id = r.boot_id JOIN %1$s.campaign c ON c.id = b.campaign_id"
	" UNION ALL SELECT 'event', c.uuid, coalesce(b.uuid, '-'), e.message, 0, 0, 0, 0"
	" FROM %1$s.event e JOIN %1$s.campaign c ON c.id = e.campaign_id"
	" LEFT JOIN %1$s.boot b ON b.id = e.boot_id"
	" UNION ALL SELECT 'view', c.uuid, b.uuid, g.digest, 0, 0, 0, 0"
	" FROM %1$s.guest_view g JOIN %1$s.boot b ON b.id = g.boot_id"
	" JOIN %1$s.campaign c ON c.id = b.campaign_id"
	" UNION ALL SELECT 'upload', c.uuid, coalesce(b.uuid, '-'), u.what, u.status, 0, 0, 0"
	" FROM %1$s.upload u JOIN %1$s.campaign c ON c.id = u.campaign_id"
	" LEFT JOIN %1$s.boot b ON b.id = u.boot_id ORDER BY 1, 2, 3, 4, 5, 6, 7, 8";

static char *links_of(sqlite3 *db, const char *schema)
{
	char sql[sizeof(links_sql) * 2];

	snprintf(sql, sizeof(sql), links_sql, schema);
	return raw_rows(db, sql);
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* @text's lines, sorted (in place; returns @text). */
static char *sort_lines(char *text)
{
	char *lines[256], *copy = strdup(text), *p = copy, *nl;
	size_t n = 0, off = 0;

	while (n < 256 && (nl = strchr(p, '\n'))) {
		*nl = '\0';
		lines[n++] = p;
		p = nl + 1;
	}
	qsort(lines, n, sizeof(*lines), line_cmp);
	for (size_t i = 0; i < n; i++)
		off += (size_t)sprintf(text + off, "%s\n", lines[i]);
	free(copy);
	return text;
}

struct merge_seen {
	int merged, skipped;
	char host[32];
};

static int on_merge(const struct vtb_merge_campaign *c, void *arg)
{
	struct merge_seen *m = arg;

	if (c->merged)
		m->merged++;
	else
		m->skipped++;
	snprintf(m->host, sizeof(m->host), "%s", c->hostname);
	cr_expect_eq(c->boots, 2);
	return 0;
}

static int refuse(const struct vtb_merge_campaign *c, void *arg)
{
	(void)c;
	(void)arg;
	return vtb_error("stop");
}

Test(store, merge_copies_every_column_of_every_table_with_ids_remapped)
{
	char out[160], in2[160], sql[400];
	struct vtb_merge_stats ms;
	struct merge_seen seen = { 0 };
	struct vtb_store *st = NULL;
	char *want, *got, *lwant, *lgot, *lb;
	sqlite3 *db;

	sibling(out, sizeof(out), "out.db");
	sibling(in2, sizeof(in2), "b.db");
	fill_db(dbpath, "11111111-1111-4111-8111-111111111111", "aaaaaaaa", "alpha");
	/* the output already holds another host's campaign: ids shift */
	fill_db(in2, "22222222-2222-4222-8222-222222222222", "bbbbbbbb", "beta");
	cr_assert_eq(vtb_store_open(out, &st), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_merge(st, in2, NULL, NULL, NULL), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_merge(st, dbpath, &ms, on_merge, &seen), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	cr_expect_eq(ms.campaigns, 1);
	cr_expect_eq(ms.skipped, 0);
	cr_expect_eq(ms.hosts, 1);
	cr_expect_eq(ms.boots, 2);
	cr_expect_eq(ms.samples, 8);
	cr_expect_eq(ms.histograms, 2);
	cr_expect_eq(ms.guest_views, 1);
	cr_expect_eq(ms.uploads, 2);
	cr_expect_eq(seen.merged, 1);
	cr_expect_str_eq(seen.host, "alpha");

	cr_assert_eq(sqlite3_open(out, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql), "ATTACH '%s' AS a; ATTACH '%s' AS b", dbpath, in2);
	raw_exec(db, sql);
	want = values_of(db, "a", "b");
	got = values_of(db, "main", NULL);
	cr_expect_str_eq(got, want, "every column of both inputs is in the output");
	/* the same rows hang together by natural keys: the output's links
	 * are those of both inputs (the uuids sort the inputs apart) */
	lwant = links_of(db, "a");
	lb = links_of(db, "b");
	lgot = links_of(db, "main");
	{
		struct vtb_strbuf sb = VTB_STRBUF_INIT;
		char *both;

		vtb_strbuf_addf(&sb, "%s%s", lwant, lb);
		both = sort_lines(vtb_strbuf_detach(&sb));
		cr_expect_str_eq(lgot, both);
		free(both);
	}
	cr_expect(strstr(lgot, "alpha|11111111-1111-4111-8111-111111111111|b000000000000000|"
			       "b000000000000000|aaaaaaaa-0000-4000-8000-000000000000|ok|rps|1000"),
		  "%s", lgot);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	free(want);
	free(got);
	free(lwant);
	free(lgot);
	free(lb);
	sqlite3_close(db);
}

Test(store, merging_again_adds_nothing_and_reports_the_campaign_skipped)
{
	char out[160];
	struct vtb_merge_stats ms;
	struct merge_seen seen = { 0 };
	struct vtb_store *st = NULL;
	char *before, *after;
	sqlite3 *db;

	sibling(out, sizeof(out), "out.db");
	fill_db(dbpath, "11111111-1111-4111-8111-111111111111", "aaaaaaaa", "alpha");
	cr_assert_eq(vtb_store_open(out, &st), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_merge(st, dbpath, NULL, NULL, NULL), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	cr_assert_eq(sqlite3_open(out, &db), SQLITE_OK);
	before = values_of(db, "main", NULL);
	sqlite3_close(db);
	cr_assert_eq(vtb_store_open(out, &st), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_merge(st, dbpath, &ms, on_merge, &seen), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	cr_expect_eq(ms.campaigns, 0);
	cr_expect_eq(ms.skipped, 1);
	cr_expect_eq(ms.boots + ms.samples + ms.events + ms.hosts + ms.uploads, 0);
	cr_expect_eq(seen.skipped, 1);
	cr_expect_eq(seen.merged, 0);
	cr_assert_eq(sqlite3_open(out, &db), SQLITE_OK);
	after = values_of(db, "main", NULL);
	cr_expect_str_eq(after, before);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM boot"), 2);
	sqlite3_close(db);
	free(before);
	free(after);
}

Test(store, an_older_input_is_merged_through_a_migrated_copy_and_left_as_it_was)
{
	char out[160];
	struct vtb_merge_stats ms;
	struct vtb_store *st = NULL;
	sqlite3 *db;

	sibling(out, sizeof(out), "out.db");
	make_v1_database();
	cr_assert_eq(vtb_store_open(out, &st), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_merge(st, dbpath, &ms, NULL, NULL), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	cr_expect_eq(ms.campaigns, 1);
	cr_expect_eq(ms.samples, 1);
	db = raw_open();
	cr_expect_eq(raw_int(db, "PRAGMA user_version"), 1, "the input was not migrated");
	sqlite3_close(db);
	cr_assert_eq(sqlite3_open(out, &db), SQLITE_OK);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM sample JOIN result r ON r.id = result_id"
				 " JOIN boot b ON b.id = r.boot_id WHERE b.uuid = 'b-1'"
				 " AND value = 42.5 AND b.kind = 'baseline'"),
		     1);
	sqlite3_close(db);
}

Test(store, a_newer_or_foreign_input_is_refused_and_nothing_is_merged)
{
	char out[160];
	struct vtb_store *st = NULL;
	sqlite3 *db;

	sibling(out, sizeof(out), "out.db");
	fill_db(dbpath, "11111111-1111-4111-8111-111111111111", "aaaaaaaa", "alpha");
	db = raw_open();
	raw_exec(db, "PRAGMA user_version = 99");
	sqlite3_close(db);
	cr_assert_eq(vtb_store_open(out, &st), 0, "%s", vtb_errmsg());
	cr_expect_eq(vtb_store_merge(st, dbpath, NULL, NULL, NULL), -1);
	cr_expect(strstr(vtb_errmsg(), "newer vtbench (schema 99"), "%s", vtb_errmsg());
	db = raw_open();
	raw_exec(db, "PRAGMA user_version = 6; PRAGMA application_id = 42");
	sqlite3_close(db);
	cr_expect_eq(vtb_store_merge(st, dbpath, NULL, NULL, NULL), -1);
	cr_expect(strstr(vtb_errmsg(), "is not a vtbench database"), "%s", vtb_errmsg());
	vtb_store_close(st);
	cr_assert_eq(sqlite3_open(out, &db), SQLITE_OK);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM campaign"), 0);
	sqlite3_close(db);
}

Test(store, a_merge_stopped_halfway_leaves_the_output_as_it_was)
{
	char out[160];
	struct vtb_store *st = NULL;
	sqlite3 *db;

	sibling(out, sizeof(out), "out.db");
	fill_db(dbpath, "11111111-1111-4111-8111-111111111111", "aaaaaaaa", "alpha");
	cr_assert_eq(vtb_store_open(out, &st), 0, "%s", vtb_errmsg());
	cr_expect_eq(vtb_store_merge(st, dbpath, NULL, refuse, NULL), -1);
	cr_expect_str_eq(vtb_errmsg(), "stop");
	/* the store stays usable: the same merge succeeds afterwards */
	cr_assert_eq(vtb_store_merge(st, dbpath, NULL, NULL, NULL), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	cr_assert_eq(sqlite3_open(out, &db), SQLITE_OK);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM campaign"), 1);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM boot"), 2);
	sqlite3_close(db);
}

/* Schema 8 (guest kernels as an axis): a database of schema 7 or older
 * keeps its boots, with no identity for them. */
Test(store, schema_8_keeps_old_boots_without_a_kernel_identity)
{
	struct vtb_store *st;
	sqlite3 *db;

	make_v1_database();
	st = open_store();
	vtb_store_close(st);
	db = raw_open();
	cr_expect_eq(raw_int(db, "PRAGMA user_version"), VTB_STORE_SCHEMA);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM boot WHERE guest_kernel_sha256 IS NULL"
				 " AND guest_kernel_config_sha256 IS NULL"),
		     1);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM sample"), 1);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'boot_kernel'"),
		     1);
	sqlite3_close(db);
}

static int collect_kernel(const struct vtb_kernel_row *r, void *arg)
{
	char **out = arg;
	char *s = vtb_asprintf("%s%s %s %s %s %ld/%ld;", *out ? *out : "", r->name ? r->name : "-",
			       r->release ? r->release : "-", r->sha256 ? r->sha256 : "-",
			       r->config_sha256 ? r->config_sha256 : "-", r->ok, r->boots);

	free(*out);
	*out = s;
	return 0;
}

static int collect_vm_kernel(const struct vtb_vm_boot_row *r, void *arg)
{
	cr_expect_str_eq(r->guest_kernel_sha256, "aa11");
	cr_expect_str_eq(r->guest_kernel_config_sha256, "cc22");
	(*(int *)arg)++;
	return 0;
}

/* A VM boot stores its kernel's identity; the latest probe of an image
 * is found by its sha256; run can mark a configuration not runnable. */
Test(store, a_vm_boot_stores_its_kernel_identity_and_probe)
{
	struct vtb_store *st = open_store();
	struct vtb_vm_boot_info vm = { .accelerator = "tcg",
				       .guest_kernel = "6.1.0-test",
				       .guest_kernel_sha256 = "aa11",
				       .guest_kernel_config_sha256 = "cc22",
				       .probe = "{\"knobs\":[\"features\"]}" };
	struct vtb_boot_info b;
	struct test_matrix t;
	char *probe = NULL, *rows = NULL;
	int64_t id;
	int n = 0;
	sqlite3 *db;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "v000000000000000", 0);
	b.vm = &vm;
	cr_assert_eq(vtb_store_boot(st, &b, NULL), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_foreach_vm_boot(st, id, collect_vm_kernel, &n), 0, "%s",
		     vtb_errmsg());
	cr_expect_eq(n, 1);
	cr_assert_eq(vtb_store_kernel_probe(st, "aa11", &probe), 0, "%s", vtb_errmsg());
	cr_expect_str_eq(probe, "{\"knobs\":[\"features\"]}");
	free(probe);
	cr_assert_eq(vtb_store_kernel_probe(st, "bb", &probe), 0, "%s", vtb_errmsg());
	cr_expect_null(probe);
	cr_assert_eq(vtb_store_foreach_kernel(st, id, collect_kernel, &rows), 0, "%s",
		     vtb_errmsg());
	cr_expect_str_eq(rows, "- 6.1.0-test aa11 cc22 1/1;");
	free(rows);
	cr_assert_eq(vtb_store_config_not_runnable(st, id, "v000000000000000",
						   "kernel proto lacks debugfs knob x"),
		     0, "%s", vtb_errmsg());
	vtb_store_close(st);
	db = raw_open();
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM config WHERE key = 'v000000000000000'"
				 " AND runnable = 0 AND why_not LIKE 'kernel proto%'"),
		     1);
	sqlite3_close(db);
	matrix_release(&t);
}

struct race_seen {
	char stop[16], winners[64], evidence[64];
	long rounds, boots, elims, last_round;
	char last_key[32];
};

static int seen_race(const struct vtb_race_row *r, void *arg)
{
	struct race_seen *s = arg;

	snprintf(s->stop, sizeof(s->stop), "%s", r->stop);
	snprintf(s->winners, sizeof(s->winners), "%s", r->winners);
	snprintf(s->evidence, sizeof(s->evidence), "%s",
		 r->stop_evidence ? r->stop_evidence : "(null)");
	s->rounds = r->rounds;
	s->boots = r->boots;
	return 0;
}

static int seen_elim(const struct vtb_race_elim_row *e, void *arg)
{
	struct race_seen *s = arg;

	s->elims++;
	s->last_round = e->round;
	snprintf(s->last_key, sizeof(s->last_key), "%s", e->config_key);
	return 0;
}

Test(store, the_race_is_replaced_whole_each_save_and_read_back)
{
	struct vtb_store *st = open_store();
	struct test_matrix t;
	struct race_seen s = { 0 };
	struct vtb_race_row r = { .objective = "[{\"cell\":\"wakeup\",\"metric\":\"p99\"}]",
				  .candidates = "[\"a\",\"b\",\"c\"]",
				  .stop = "running",
				  .winners = "[]",
				  .rounds = 2,
				  .boots = 6 };
	struct vtb_race_elim_row e[2] = {
		{ .round = 3,
		  .config_key = "c",
		  .metric = "wakeup/p99",
		  .best_key = "a",
		  .reason = "worse",
		  .evidence = "{\"q\":0.01}" },
		{ .round = 4,
		  .config_key = "b",
		  .metric = "wakeup/p99",
		  .best_key = "a",
		  .reason = "missing",
		  .evidence = "{}" },
	};
	int64_t id, latest = 0;
	bool found = true;

	matrix_init(&t);
	id = begin_campaign(st, &t, "22222222-0000-4000-8000-000000000000", NULL);
	cr_assert_eq(vtb_store_latest_race(st, &latest, &found), 0);
	cr_expect(!found, "a campaign of run has no race");
	cr_assert_eq(vtb_store_race_save(st, id, &r, NULL, 0), 0, "%s", vtb_errmsg());
	r = (struct vtb_race_row){ .objective = r.objective,
				   .candidates = r.candidates,
				   .stop = "one",
				   .winners = "[\"a\"]",
				   .rounds = 4,
				   .boots = 11 };
	cr_assert_eq(vtb_store_race_save(st, id, &r, e, 2), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_race_get(st, id, seen_race, &s, &found), 0, "%s", vtb_errmsg());
	cr_expect(found);
	cr_expect_str_eq(s.stop, "one");
	cr_expect_str_eq(s.winners, "[\"a\"]");
	cr_expect_eq(s.rounds, 4);
	cr_expect_eq(s.boots, 11);
	cr_assert_eq(vtb_store_foreach_race_elim(st, id, seen_elim, &s), 0, "%s", vtb_errmsg());
	cr_expect_eq(s.elims, 2);
	cr_expect_eq(s.last_round, 4);
	cr_expect_str_eq(s.last_key, "b");
	/* a replayed race saves again: the rows are replaced, not added */
	cr_assert_eq(vtb_store_race_save(st, id, &r, e, 1), 0, "%s", vtb_errmsg());
	s.elims = 0;
	cr_assert_eq(vtb_store_foreach_race_elim(st, id, seen_elim, &s), 0, "%s", vtb_errmsg());
	cr_expect_eq(s.elims, 1);
	cr_assert_eq(vtb_store_latest_race(st, &latest, &found), 0);
	cr_expect(found);
	cr_expect_eq(latest, id);
	/* what the schema refuses is refused whole */
	r.stop = "won";
	cr_expect_eq(vtb_store_race_save(st, id, &r, e, 2), -1);
	s.elims = 0;
	cr_assert_eq(vtb_store_foreach_race_elim(st, id, seen_elim, &s), 0, "%s", vtb_errmsg());
	cr_expect_eq(s.elims, 1, "the failed save left the race as it was");
	/* schema 10: the futility stop with its evidence */
	r.stop = "futile";
	r.stop_evidence = "{\"survivors\":2,\"last_round\":40}";
	cr_assert_eq(vtb_store_race_save(st, id, &r, e, 1), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_race_get(st, id, seen_race, &s, &found), 0, "%s", vtb_errmsg());
	cr_expect_str_eq(s.stop, "futile");
	cr_expect_str_eq(s.evidence, "{\"survivors\":2,\"last_round\":40}");
	r.stop_evidence = "not json";
	cr_expect_eq(vtb_store_race_save(st, id, &r, e, 1), -1, "evidence must be JSON");
	r.stop = "one";
	r.stop_evidence = NULL;
	cr_assert_eq(vtb_store_race_save(st, id, &r, e, 1), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_race_get(st, id, seen_race, &s, &found), 0, "%s", vtb_errmsg());
	cr_expect_str_eq(s.evidence, "(null)");
	matrix_release(&t);
	vtb_store_close(st);
}

/*
 * Schema 10 rebuilds the race table to allow the stop 'futile': a
 * schema-9 database keeps its race row and its eliminations, and the
 * rebuilt table takes 'futile' and refuses a stop it does not know.
 */
Test(store, schema_10_rebuilds_the_race_keeping_its_rows)
{
	struct vtb_store *st;
	char *rows;
	sqlite3 *db;

	db = make_database_at(9);
	raw_exec(db, "INSERT INTO race VALUES (1, '[{\"cell\":\"c1\"}]', '[\"k1\"]', 'rounds',"
		     " '[\"k1\"]', 40, 80, 123);"
		     "INSERT INTO race_elimination VALUES (7, 1, 3, 'k2', 'c1/rps', 'k1', 'worse',"
		     " '{\"q\":0.01}')");
	cr_expect_neq(sqlite3_exec(db, "UPDATE race SET stop = 'futile'", NULL, NULL, NULL),
		      SQLITE_OK, "schema 9 does not know 'futile'");
	sqlite3_close(db);
	st = open_store();
	vtb_store_close(st);
	db = raw_open();
	cr_expect_eq(raw_int(db, "PRAGMA user_version"), VTB_STORE_SCHEMA);
	rows = raw_rows(db, "SELECT campaign_id, objective, candidates, stop, winners, rounds,"
			    " boots, updated_ns, stop_evidence IS NULL FROM race");
	cr_expect_str_eq(rows, "1|[{\"cell\":\"c1\"}]|[\"k1\"]|rounds|[\"k1\"]|40|80|123|1\n");
	free(rows);
	rows = raw_rows(db,
			"SELECT id, campaign_id, round, config_key, reason FROM race_elimination");
	cr_expect_str_eq(rows, "7|1|3|k2|worse\n");
	free(rows);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'race_v10'"), 0);
	raw_exec(db, "UPDATE race SET stop = 'futile', stop_evidence = '{\"survivors\":2}'");
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM race WHERE stop = 'futile'"), 1);
	cr_expect_neq(sqlite3_exec(db, "UPDATE race SET stop = 'won'", NULL, NULL, NULL), SQLITE_OK,
		      "a stop the schema does not know is refused");
	/* the campaign's deletion still cascades to the rebuilt table */
	raw_exec(db, "PRAGMA foreign_keys = ON; DELETE FROM campaign WHERE id = 1");
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM race"), 0);
	sqlite3_close(db);
}

struct names_seen {
	char **want;
	size_t n, bad;
};

static int check_metric(const struct vtb_sample_row *row, void *arg)
{
	struct names_seen *s = arg;

	if (strcmp(row->cell_key, "b000000000000000"))
		return 0;
	if (s->n >= 2000 || strcmp(row->metric, s->want[s->n]) || strcmp(row->unit, s->want[s->n]))
		s->bad++;
	s->n++;
	return 0;
}

/* Compare's metric and unit names come from guests: names that all fell in
 * one slot of the former FNV-1a table (issue 25) are each kept, once, in
 * the order the workload reported them. */
Test(store, metric_names_chosen_to_collide_are_each_read_once)
{
	struct vtb_store *st = open_store();
	char **keys = fnv_colliding_keys(2000, 16);
	struct vtb_rs_sample *sm = calloc(2000, sizeof(*sm));
	struct names_seen seen = { keys, 0, 0 };
	struct test_matrix t;
	struct test_recs r;
	struct vtb_boot_info b;
	int64_t id;

	cr_assert(keys && sm);
	matrix_init(&t);
	id = begin_campaign(st, &t, "33333333-0000-4000-8000-000000000000", NULL);
	recs_init(&r, 'b', 1);
	for (size_t i = 0; i < 2000; i++)
		sm[i] = (struct vtb_rs_sample){ r.cells[0].cell, keys[i], keys[i], (double)i, 1 };
	r.r.samples = sm;
	r.r.n_samples = 2000;
	b = boot_info(id, "33333333-1111-4000-8000-000000000000", "b000000000000000", 0);
	cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_foreach_sample(st, id, check_metric, &seen), 0, "%s", vtb_errmsg());
	cr_expect_eq(seen.n, 2000);
	cr_expect_eq(seen.bad, 0);
	recs_release(&r);
	free(sm);
	free(keys);
	vtb_store_close(st);
	matrix_release(&t);
}

/*
 * Schema 11 rebuilds upload to allow the status 'in-flight' (issue 25):
 * a schema-10 database keeps its upload rows and indexes (a boot still
 * recorded once per sink), and the rebuilt table takes 'in-flight' and
 * refuses a status it does not know.
 */
Test(store, schema_11_rebuilds_upload_keeping_its_rows)
{
	struct vtb_store *st;
	char *rows;
	sqlite3 *db;

	db = make_database_at(10);
	raw_exec(db, "INSERT INTO upload VALUES (5, 1, 1, 'influx://h:8086/db', 'boot', 7, 'sent',"
		     " 3, NULL);"
		     "INSERT INTO upload VALUES (6, 1, NULL, 'http://h:80/x', 'aggregates', 8,"
		     " 'failed', 0, '503')");
	cr_expect_neq(sqlite3_exec(db, "UPDATE upload SET status = 'in-flight'", NULL, NULL, NULL),
		      SQLITE_OK, "schema 10 does not know 'in-flight'");
	sqlite3_close(db);
	st = open_store();
	vtb_store_close(st);
	db = raw_open();
	cr_expect_eq(raw_int(db, "PRAGMA user_version"), VTB_STORE_SCHEMA);
	rows = raw_rows(db, "SELECT * FROM upload ORDER BY id");
	cr_expect_str_eq(rows, "5|1|1|influx://h:8086/db|boot|7|sent|3|NULL\n"
			       "6|1|NULL|http://h:80/x|aggregates|8|failed|0|503\n");
	free(rows);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE name IN"
				 " ('upload_boot', 'upload_campaign')"),
		     2);
	cr_expect_neq(sqlite3_exec(db,
				   "INSERT INTO upload VALUES (7, 1, 1, 'influx://h:8086/db',"
				   " 'boot', 9, 'failed', 0, NULL)",
				   NULL, NULL, NULL),
		      SQLITE_OK, "a boot is still recorded once per sink");
	raw_exec(db, "UPDATE upload SET status = 'in-flight' WHERE id = 6");
	cr_expect_neq(sqlite3_exec(db, "UPDATE upload SET status = 'lost'", NULL, NULL, NULL),
		      SQLITE_OK, "a status the schema does not know is refused");
	raw_exec(db, "PRAGMA foreign_keys = ON; DELETE FROM campaign WHERE id = 1");
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM upload"), 0);
	sqlite3_close(db);
}

/*
 * A campaign-level item recorded in flight before its request is one
 * row that becomes the outcome: in flight, then sent (or failed, which
 * leaves nothing in flight); a failed attempt before stays a row of its
 * own.  What the records say of the item follows.
 */
Test(store, an_item_in_flight_becomes_its_outcome)
{
	static const char sink[] = "http://h:80/x";
	struct vtb_store *st = open_store();
	enum vtb_upload_state state;
	struct test_matrix t;
	int64_t id, since;
	long points = 4;
	char *rows;
	sqlite3 *db;

	matrix_init(&t);
	id = begin_campaign(st, &t, "c-1", NULL);
	cr_assert_eq(vtb_store_upload_item_state(st, id, sink, "aggregates", &state, &since), 0);
	cr_expect_eq(state, VTB_ITEM_NONE);
	cr_assert_eq(vtb_store_upload_mark(st, id, sink, "aggregates", NULL, &points, 0, "failed",
					   "503"),
		     0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_upload_mark(st, id, sink, "aggregates", NULL, &points, 0,
					   "in-flight", NULL),
		     0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_upload_item_state(st, id, sink, "aggregates", &state, &since), 0);
	cr_expect_eq(state, VTB_ITEM_IN_FLIGHT);
	cr_expect_gt(since, 0);
	/* the other sink and item know nothing of it */
	cr_assert_eq(vtb_store_upload_item_state(st, id, "http://h:80/y", "aggregates", &state,
						 &since),
		     0);
	cr_expect_eq(state, VTB_ITEM_NONE);
	/* sent again (--resend-in-flight): still one row in flight */
	cr_assert_eq(vtb_store_upload_mark(st, id, sink, "aggregates", NULL, &points, 0,
					   "in-flight", NULL),
		     0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_upload_mark(st, id, sink, "aggregates", NULL, &points, 0, "sent",
					   NULL),
		     0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_upload_item_state(st, id, sink, "aggregates", &state, &since), 0);
	cr_expect_eq(state, VTB_ITEM_SENT);
	/* in flight, then refused: nothing left in flight */
	cr_assert_eq(vtb_store_upload_mark(st, id, sink, "snapshot", NULL, &points, 0, "in-flight",
					   NULL),
		     0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_upload_mark(st, id, sink, "snapshot", NULL, &points, 0, "failed",
					   "400"),
		     0, "%s", vtb_errmsg());
	cr_assert_eq(vtb_store_upload_item_state(st, id, sink, "snapshot", &state, &since), 0);
	cr_expect_eq(state, VTB_ITEM_NONE);
	vtb_store_close(st);
	db = raw_open();
	rows = raw_rows(db, "SELECT what, status, points, error FROM upload ORDER BY id");
	cr_expect_str_eq(rows, "aggregates|failed|4|503\n"
			       "aggregates|sent|4|NULL\n"
			       "snapshot|failed|4|400\n");
	free(rows);
	sqlite3_close(db);
	matrix_release(&t);
}

/*
 * Databases come from other hosts (issue 25): SQL a file brings never
 * runs through the store.  A trigger added by another process after the
 * store opened (and checked) the file does not fire when upload marks a
 * boot sent, and a table swapped for a view behind its back is not read
 * through the view; the schema's own CHECKs (json_valid) still run.
 */
Test(store, a_trigger_or_view_added_behind_the_stores_back_never_runs)
{
	struct vtb_store *st = open_store();
	struct vtb_race_row race = {
		.objective = "[]", .candidates = "[]", .stop = "running", .winners = "[]"
	};
	struct race_seen seen = { 0 };
	struct vtb_boot_info b;
	struct test_matrix t;
	struct test_recs r;
	int64_t id, boot_id, samples;
	long points = 3;
	bool found;
	sqlite3 *db;

	matrix_init(&t);
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	recs_init(&r, 'v', 10);
	b = boot_info(id, "aaaaaaaa-0000-4000-8000-000000000000", "v000000000000000", 0);
	cr_assert_eq(vtb_store_boot(st, &b, &r.r), 0, "%s", vtb_errmsg());
	db = raw_open();
	samples = raw_int(db, "SELECT count(*) FROM sample");
	cr_assert_gt(samples, 0);
	boot_id = raw_int(db, "SELECT id FROM boot");
	raw_exec(db, "CREATE TRIGGER evil AFTER INSERT ON upload BEGIN DELETE FROM sample; END");
	cr_assert_eq(vtb_store_upload_mark(st, id, "http://h/x", "boot", &boot_id, &points, 1,
					   "sent", NULL),
		     0, "%s", vtb_errmsg());
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM upload"), 1);
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM sample"), samples,
		     "the trigger deleted the samples");
	/* race: a view that would answer a race for a campaign without one */
	raw_exec(db, "PRAGMA foreign_keys = OFF; DROP TABLE race; CREATE VIEW race AS SELECT"
		     " campaign.id AS campaign_id, '[]' AS objective, '[]' AS candidates, 'one'"
		     " AS stop, '[]' AS winners, 1 AS rounds, 1 AS boots, 0 AS updated_ns, NULL"
		     " AS stop_evidence FROM campaign");
	found = true;
	cr_expect_eq(vtb_store_race_get(st, id, seen_race, &seen, &found), -1, "the view was read");
	cr_expect_not(found);
	sqlite3_close(db);
	/* trusted_schema off, and our json_valid CHECKs still work */
	vtb_store_close(st);
	teardown();
	setup();
	st = open_store();
	id = begin_campaign(st, &t, "11111111-0000-4000-8000-000000000000", NULL);
	cr_expect_eq(vtb_store_race_save(st, id, &race, NULL, 0), 0, "%s", vtb_errmsg());
	race.objective = "{";
	cr_expect_eq(vtb_store_race_save(st, id, &race, NULL, 0), -1, "a CHECK did not run");
	vtb_store_close(st);
	recs_release(&r);
	matrix_release(&t);
}

/* A new database edited by hand (@edit, with foreign keys off): both
 * opens refuse it with "'F' is not a vtbench database as written: @what"
 * and leave it as it was. */
static void expect_not_ours(const char *edit, const char *what)
{
	struct vtb_store *st = open_store();
	char *want, *before, *after;
	sqlite3 *db;

	vtb_store_close(st);
	db = raw_open();
	raw_exec(db, "PRAGMA foreign_keys = OFF");
	raw_exec(db, edit);
	before = raw_rows(db, "SELECT type, name, sql FROM sqlite_master ORDER BY name");
	sqlite3_close(db);
	want = vtb_asprintf("'%s' is not a vtbench database as written: %s", dbpath, what);
	st = (struct vtb_store *)&st;
	cr_expect_eq(vtb_store_open(dbpath, &st), -1, "%s: opened", edit);
	cr_expect_null(st);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_eq(vtb_store_open_ro(dbpath, &st), -1, "%s: opened read-only", edit);
	cr_expect_str_eq(vtb_errmsg(), want);
	db = raw_open();
	after = raw_rows(db, "SELECT type, name, sql FROM sqlite_master ORDER BY name");
	cr_expect_str_eq(after, before, "%s: the file was changed", edit);
	sqlite3_close(db);
	free(want);
	free(before);
	free(after);
	teardown();
	setup();
}

/*
 * The schema read back must be the one vtbench writes (issue 25): each
 * object that is not vtbench's, or is and has another type, table or
 * definition, is named, before anything reads a table or writes.
 */
Test(store, an_object_that_is_not_vtbenchs_is_refused_by_name)
{
	expect_not_ours("CREATE TRIGGER evil AFTER INSERT ON upload BEGIN DELETE FROM sample; END",
			"trigger 'evil' on table 'upload' is not vtbench's");
	expect_not_ours("DROP TABLE host; CREATE VIEW host AS WITH RECURSIVE r(id) AS"
			" (SELECT 1 UNION ALL SELECT id + 1 FROM r) SELECT id FROM r",
			"view 'host' is not vtbench's (vtbench's 'host' is a table)");
	expect_not_ours("CREATE VIEW latest AS SELECT * FROM campaign",
			"view 'latest' is not vtbench's");
	expect_not_ours("CREATE TABLE notes (t TEXT)", "table 'notes' is not vtbench's");
	expect_not_ours("CREATE INDEX sample_value ON sample (value)",
			"index 'sample_value' on table 'sample' is not vtbench's");
	expect_not_ours("DROP INDEX boot_config; CREATE INDEX boot_config ON boot (config_id)"
			" WHERE length(printf('%.*c', 1000000, 'x')) > 0",
			"index 'boot_config' on table 'boot' is not vtbench's (it is defined "
			"otherwise)");
	expect_not_ours("DROP INDEX boot_config; CREATE INDEX boot_config ON event (boot_id)",
			"index 'boot_config' on table 'event' is not vtbench's (vtbench's is on "
			"table 'boot')");
	expect_not_ours("ALTER TABLE sample ADD COLUMN loud TEXT AS (upper(unit))",
			"generated column 'loud' of table 'sample' is not vtbench's");
	expect_not_ours("ALTER TABLE campaign ADD COLUMN notes TEXT",
			"column 'notes' of table 'campaign' is not vtbench's");
	expect_not_ours("ALTER TABLE boot DROP COLUMN topology_diff",
			"table 'boot' lacks vtbench's column 'topology_diff'");
	expect_not_ours("DROP TABLE race_elimination",
			"vtbench's table 'race_elimination' is missing");
	expect_not_ours("DROP TABLE host; CREATE VIRTUAL TABLE host USING fts4 (hostname)",
			"table 'host' is a virtual table");
	expect_not_ours("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT);"
			" INSERT INTO t VALUES (NULL); DROP TABLE t",
			"table 'sqlite_sequence' is not vtbench's");
}

/* The reference is per schema version: an older database may lack what
 * later migrations add, and may not hold it before its time; ANALYZE's
 * statistics (planner hints, no SQL) are accepted. */
Test(store, the_schema_is_checked_against_its_own_version)
{
	struct vtb_store *st;
	char *want;
	sqlite3 *db;

	make_v1_database();
	db = raw_open();
	raw_exec(db, "ANALYZE");
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'"),
		     1);
	sqlite3_close(db);
	cr_assert_eq(vtb_store_open_ro(dbpath, &st), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	teardown();
	setup();
	make_v1_database();
	db = raw_open();
	raw_exec(db, "CREATE INDEX boot_config ON boot (config_id)");
	sqlite3_close(db);
	want = vtb_asprintf("'%s' is not a vtbench database as written: index 'boot_config' on "
			    "table 'boot' is not vtbench's",
			    dbpath);
	cr_expect_eq(vtb_store_open_ro(dbpath, &st), -1);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_eq(vtb_store_open(dbpath, &st), -1);
	cr_expect_str_eq(vtb_errmsg(), want);
	free(want);
	/* ... and a current one after ANALYZE opens both ways */
	teardown();
	setup();
	st = open_store();
	vtb_store_close(st);
	db = raw_open();
	raw_exec(db, "ANALYZE");
	sqlite3_close(db);
	st = open_store();
	vtb_store_close(st);
	cr_assert_eq(vtb_store_open_ro(dbpath, &st), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
}

/*
 * A database is a regular file, checked before SQLite opens it (issue 25):
 * a FIFO (SQLite blocked for ever opening it), a character device (read
 * as an empty database), a directory.  A symbolic link to a database is
 * one; a link to nothing is refused, and never creates its target.
 */
Test(store, a_database_path_must_be_a_regular_file)
{
	char fifo[160], target[160], want[400];
	struct vtb_store *st;

	/* a hang guard (SIGALRM ends the test: a failure), not Criterion's
	 * .timeout: two .timeout tests running at once (--jobs 2) leak
	 * memory inside Criterion, which LeakSanitizer reports */
	alarm(20);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(want, sizeof(want), "'%s' is a FIFO, not a database file", fifo);
	cr_expect_eq(vtb_store_open_ro(fifo, &st), -1);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_eq(vtb_store_open(fifo, &st), -1);
	cr_expect_str_eq(vtb_errmsg(), want);
	unlink(fifo);
	cr_expect_eq(vtb_store_open_ro("/dev/null", &st), -1);
	cr_expect_str_eq(vtb_errmsg(), "'/dev/null' is a character device, not a database file");
	cr_expect_eq(vtb_store_open("/dev/null", &st), -1);
	cr_expect_str_eq(vtb_errmsg(), "'/dev/null' is a character device, not a database file");
	snprintf(want, sizeof(want), "'%s' is a directory, not a database file", dir);
	cr_expect_eq(vtb_store_open(dir, &st), -1);
	cr_expect_str_eq(vtb_errmsg(), want);
	/* a link to nothing: refused, its target not created */
	snprintf(target, sizeof(target), "%s/b.db", dir);
	cr_assert_eq(symlink("b.db", dbpath), 0);
	snprintf(want, sizeof(want),
		 "'%s' is a symbolic link to 'b.db', which does not exist: a new database is "
		 "never created through a link",
		 dbpath);
	cr_expect_eq(vtb_store_open(dbpath, &st), -1);
	cr_expect_str_eq(vtb_errmsg(), want);
	cr_expect_neq(access(target, F_OK), 0, "the link's target was created");
	/* a link to a database opens it */
	cr_assert_eq(vtb_store_open(target, &st), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	st = open_store();
	vtb_store_close(st);
	cr_assert_eq(vtb_store_open_ro(dbpath, &st), 0, "%s", vtb_errmsg());
	vtb_store_close(st);
	alarm(0);
}
