/* SPDX-License-Identifier: MIT */
/*
 * The results database.  The only module with SQL: every other module
 * goes through the functions of store.h.
 *
 * Durability: WAL with synchronous=FULL.  WAL+NORMAL already survives a
 * killed process (the interesting case: the harness is SIGKILLed in the
 * middle of a boot), but may lose the last commits on power loss.  A boot
 * costs minutes of machine time and is stored with one commit, so one
 * more fsync per boot is nothing; FULL keeps a boot we reported as stored.
 *
 * Schema changes are migrations: migrations[i] takes a database from
 * user_version i to i + 1, each in its own transaction.  A released step
 * is never edited (tests/fixtures/schema-v1.sql freezes step 1); changes
 * go into a new step.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "store.h"

struct vtb_store {
	sqlite3 *db;
	char *path;
	bool ro;
	bool bad_content; /* the last error was the database's content */
};

static const char *const migrations[] = {
	/* 1: the base schema */
	"-- host: one machine identity (results compare only within one CPU, topology and kernel)\n"
	"CREATE TABLE host (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	hostname TEXT NOT NULL,\n"
	"	cpu_vendor TEXT NOT NULL,\n"
	"	cpu_family INTEGER NOT NULL,\n"
	"	cpu_model INTEGER NOT NULL,\n"
	"	cpu_model_name TEXT NOT NULL,\n"
	"	cpu_codename TEXT NOT NULL,\n"
	"	topo_digest TEXT NOT NULL,\n"
	"	topo_summary TEXT NOT NULL,\n"
	"	kernel TEXT NOT NULL,\n"
	"	UNIQUE (hostname, cpu_vendor, cpu_family, cpu_model, cpu_model_name,\n"
	"		cpu_codename, topo_digest, topo_summary, kernel)\n"
	");\n"
	"-- campaign: one `vtbench run` of one matrix on one host, with its provenance\n"
	"CREATE TABLE campaign (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	uuid TEXT NOT NULL UNIQUE,\n"
	"	host_id INTEGER NOT NULL REFERENCES host (id),\n"
	"	matrix_path TEXT NOT NULL,\n"
	"	matrix_text TEXT NOT NULL,\n"
	"	matrix_digest TEXT NOT NULL,\n"
	"	version TEXT NOT NULL,\n"
	"	cmdline TEXT NOT NULL,\n"
	"	started_ns INTEGER NOT NULL,\n"
	"	ended_ns INTEGER,\n"
	"	status TEXT NOT NULL DEFAULT 'running'\n"
	"		CHECK (status IN ('running', 'done', 'interrupted', 'failed')),\n"
	"	host_state TEXT CHECK (host_state IS NULL OR json_valid(host_state))\n"
	");\n"
	"-- config: a VM configuration or a baseline, in matrix order (seq); the\n"
	"-- non-runnable ones are kept with the reason\n"
	"CREATE TABLE config (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,\n"
	"	key TEXT NOT NULL,\n"
	"	kind TEXT NOT NULL CHECK (kind IN ('vm', 'baseline')),\n"
	"	label TEXT NOT NULL,\n"
	"	params TEXT NOT NULL CHECK (json_valid(params)),\n"
	"	cpus TEXT NOT NULL,\n"
	"	mems TEXT,\n"
	"	runnable INTEGER NOT NULL CHECK (runnable IN (0, 1)),\n"
	"	why_not TEXT,\n"
	"	seq INTEGER NOT NULL,\n"
	"	UNIQUE (campaign_id, key)\n"
	");\n"
	"-- cell: configuration x workload x workload parameters\n"
	"CREATE TABLE cell (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	config_id INTEGER NOT NULL REFERENCES config (id) ON DELETE CASCADE,\n"
	"	key TEXT NOT NULL,\n"
	"	name TEXT NOT NULL,\n"
	"	workload TEXT NOT NULL,\n"
	"	params TEXT NOT NULL CHECK (json_valid(params)),\n"
	"	resolved TEXT NOT NULL CHECK (json_valid(resolved)),\n"
	"	UNIQUE (config_id, key)\n"
	");\n"
	"-- boot: one rep of one configuration (a VM boot or a baseline agent run);\n"
	"-- stored whole in one transaction, never twice\n"
	"CREATE TABLE boot (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	uuid TEXT NOT NULL UNIQUE,\n"
	"	campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,\n"
	"	config_id INTEGER NOT NULL REFERENCES config (id) ON DELETE CASCADE,\n"
	"	rep INTEGER NOT NULL,\n"
	"	status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'timeout')),\n"
	"	error TEXT,\n"
	"	started_ns INTEGER NOT NULL,\n"
	"	ended_ns INTEGER NOT NULL,\n"
	"	nonce TEXT,\n"
	"	cpus TEXT,\n"
	"	confinement TEXT,\n"
	"	header TEXT CHECK (header IS NULL OR json_valid(header)),\n"
	"	stderr_tail TEXT,\n"
	"	detail TEXT CHECK (detail IS NULL OR json_valid(detail)),\n"
	"	noise_lines INTEGER NOT NULL DEFAULT 0,\n"
	"	records INTEGER NOT NULL DEFAULT 0,\n"
	"	UNIQUE (campaign_id, config_id, rep)\n"
	");\n"
	"-- result: one cell of one boot\n"
	"CREATE TABLE result (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	boot_id INTEGER NOT NULL REFERENCES boot (id) ON DELETE CASCADE,\n"
	"	cell_id INTEGER NOT NULL REFERENCES cell (id) ON DELETE CASCADE,\n"
	"	status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'missing')),\n"
	"	error TEXT,\n"
	"	seconds REAL,\n"
	"	info TEXT CHECK (info IS NULL OR json_valid(info)),\n"
	"	UNIQUE (boot_id, cell_id)\n"
	");\n"
	"-- sample: one scalar metric of a result\n"
	"CREATE TABLE sample (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	result_id INTEGER NOT NULL REFERENCES result (id) ON DELETE CASCADE,\n"
	"	metric TEXT NOT NULL,\n"
	"	unit TEXT NOT NULL,\n"
	"	value REAL NOT NULL,\n"
	"	better TEXT NOT NULL CHECK (better IN ('lower', 'higher'))\n"
	");\n"
	"-- histogram: a whole latency histogram of a result, with its bucket parameters\n"
	"CREATE TABLE histogram (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	result_id INTEGER NOT NULL REFERENCES result (id) ON DELETE CASCADE,\n"
	"	metric TEXT NOT NULL,\n"
	"	unit TEXT NOT NULL,\n"
	"	params TEXT NOT NULL CHECK (json_valid(params)),\n"
	"	buckets TEXT NOT NULL CHECK (json_valid(buckets))\n"
	");\n"
	"PRAGMA application_id = 1987338801;\n",
	/* 2: what compare, list and --resume look up, and the event log */
	"-- event: warnings and errors of a campaign, or of one of its boots\n"
	"CREATE TABLE event (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,\n"
	"	boot_id INTEGER REFERENCES boot (id) ON DELETE CASCADE,\n"
	"	time_ns INTEGER NOT NULL,\n"
	"	level TEXT NOT NULL CHECK (level IN ('info', 'warn', 'error')),\n"
	"	message TEXT NOT NULL\n"
	");\n"
	"CREATE INDEX event_campaign ON event (campaign_id);\n"
	"CREATE INDEX event_boot ON event (boot_id);\n"
	"-- --resume: the latest campaign of a matrix on a host\n"
	"CREATE INDEX campaign_find ON campaign (matrix_digest, host_id, started_ns);\n"
	"-- compare: results of a cell, samples and histograms of a result\n"
	"CREATE INDEX result_cell ON result (cell_id);\n"
	"CREATE INDEX sample_result ON sample (result_id);\n"
	"CREATE INDEX histogram_result ON histogram (result_id);\n"
	"-- list: boots of a configuration\n"
	"CREATE INDEX boot_config ON boot (config_id);\n",
	/* 3: VM boots: what ran the guest, and what it printed */
	"-- boot: kind of boot and, for VMs, the guest's provenance\n"
	"ALTER TABLE boot ADD COLUMN kind TEXT NOT NULL DEFAULT 'baseline'"
	" CHECK (kind IN ('baseline', 'vm'));\n"
	"ALTER TABLE boot ADD COLUMN accelerator TEXT;\n"
	"ALTER TABLE boot ADD COLUMN cpu_model TEXT;\n"
	"ALTER TABLE boot ADD COLUMN guest_kernel TEXT;\n"
	"ALTER TABLE boot ADD COLUMN libvirt_version TEXT;\n"
	"ALTER TABLE boot ADD COLUMN qemu_version TEXT;\n"
	"ALTER TABLE boot ADD COLUMN live_xml TEXT;\n"
	"ALTER TABLE boot ADD COLUMN console_tail TEXT;\n",
	/* 4: the placement plan of a VM configuration, with its claims */
	"-- config: the plan (JSON: virtual topology, vCPU pins, cells, claims)\n"
	"ALTER TABLE config ADD COLUMN plan TEXT;\n",
	/* 5: guest experiments: side-by-side VMs, the guest's view, where vCPUs
	 * ran.  boot is rebuilt (SQLite cannot change a CHECK or UNIQUE
	 * constraint in place); migrate() runs this with foreign keys off and
	 * checks them before committing. */
	"-- boot: vm_index and group_uuid for VMs booted side by side (vms = N),\n"
	"-- claims of that VM, the host-side placement summary, the guest kernel\n"
	"-- probe and the sched profile as applied; status unexpected-topology\n"
	"-- when the guest's view differs from the plan (topology_diff says how)\n"
	"CREATE TABLE boot_v5 (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	uuid TEXT NOT NULL UNIQUE,\n"
	"	campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,\n"
	"	config_id INTEGER NOT NULL REFERENCES config (id) ON DELETE CASCADE,\n"
	"	rep INTEGER NOT NULL,\n"
	"	status TEXT NOT NULL\n"
	"		CHECK (status IN ('ok', 'failed', 'timeout', 'unexpected-topology')),\n"
	"	error TEXT,\n"
	"	started_ns INTEGER NOT NULL,\n"
	"	ended_ns INTEGER NOT NULL,\n"
	"	nonce TEXT,\n"
	"	cpus TEXT,\n"
	"	confinement TEXT,\n"
	"	header TEXT CHECK (header IS NULL OR json_valid(header)),\n"
	"	stderr_tail TEXT,\n"
	"	detail TEXT CHECK (detail IS NULL OR json_valid(detail)),\n"
	"	noise_lines INTEGER NOT NULL DEFAULT 0,\n"
	"	records INTEGER NOT NULL DEFAULT 0,\n"
	"	kind TEXT NOT NULL DEFAULT 'baseline' CHECK (kind IN ('baseline', 'vm')),\n"
	"	accelerator TEXT,\n"
	"	cpu_model TEXT,\n"
	"	guest_kernel TEXT,\n"
	"	libvirt_version TEXT,\n"
	"	qemu_version TEXT,\n"
	"	live_xml TEXT,\n"
	"	console_tail TEXT,\n"
	"	vm_index INTEGER NOT NULL DEFAULT 0,\n"
	"	vms INTEGER NOT NULL DEFAULT 1,\n"
	"	group_uuid TEXT,\n"
	"	claims TEXT CHECK (claims IS NULL OR json_valid(claims)),\n"
	"	placement TEXT CHECK (placement IS NULL OR json_valid(placement)),\n"
	"	probe TEXT CHECK (probe IS NULL OR json_valid(probe)),\n"
	"	sched TEXT CHECK (sched IS NULL OR json_valid(sched)),\n"
	"	topology_check TEXT CHECK (topology_check IS NULL OR\n"
	"		topology_check IN ('match', 'differs', 'unchecked')),\n"
	"	topology_diff TEXT,\n"
	"	UNIQUE (campaign_id, config_id, rep, vm_index)\n"
	");\n"
	"INSERT INTO boot_v5 (id, uuid, campaign_id, config_id, rep, status, error, started_ns,\n"
	"	ended_ns, nonce, cpus, confinement, header, stderr_tail, detail, noise_lines,\n"
	"	records, kind, accelerator, cpu_model, guest_kernel, libvirt_version,\n"
	"	qemu_version, live_xml, console_tail)\n"
	"	SELECT id, uuid, campaign_id, config_id, rep, status, error, started_ns,\n"
	"	ended_ns, nonce, cpus, confinement, header, stderr_tail, detail, noise_lines,\n"
	"	records, kind, accelerator, cpu_model, guest_kernel, libvirt_version,\n"
	"	qemu_version, live_xml, console_tail FROM boot;\n"
	"DROP TABLE boot;\n"
	"ALTER TABLE boot_v5 RENAME TO boot;\n"
	"CREATE INDEX boot_config ON boot (config_id);\n"
	"-- guest_view: what the guest saw (verbatim record), its normalised\n"
	"-- sched-domain tree (DIE = PKG) with a digest, the level names, the\n"
	"-- CPUID view and steal time before and after the cells\n"
	"CREATE TABLE guest_view (\n"
	"	boot_id INTEGER PRIMARY KEY REFERENCES boot (id) ON DELETE CASCADE,\n"
	"	view TEXT NOT NULL CHECK (json_valid(view)),\n"
	"	tree TEXT CHECK (tree IS NULL OR json_valid(tree)),\n"
	"	digest TEXT,\n"
	"	levels TEXT,\n"
	"	cpuid TEXT CHECK (cpuid IS NULL OR json_valid(cpuid)),\n"
	"	steal_before TEXT CHECK (steal_before IS NULL OR json_valid(steal_before)),\n"
	"	steal_after TEXT CHECK (steal_after IS NULL OR json_valid(steal_after))\n"
	");\n",
	/* 6: what was uploaded where (vtbench upload) */
	"-- upload: per boot and sink what was sent and when (exactly once: a\n"
	"-- boot sent to a sink is never sent there again); a campaign-level item\n"
	"-- (boot_id NULL: the aggregates, a Pushgateway snapshot) is recorded\n"
	"-- the same way; a failed attempt is kept with its error until it succeeds\n"
	"CREATE TABLE upload (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,\n"
	"	boot_id INTEGER REFERENCES boot (id) ON DELETE CASCADE,\n"
	"	sink TEXT NOT NULL,\n"
	"	what TEXT NOT NULL CHECK (what IN ('boot', 'aggregates', 'snapshot')),\n"
	"	time_ns INTEGER NOT NULL,\n"
	"	status TEXT NOT NULL CHECK (status IN ('sent', 'failed')),\n"
	"	points INTEGER NOT NULL DEFAULT 0,\n"
	"	error TEXT\n"
	");\n"
	"CREATE UNIQUE INDEX upload_boot ON upload (boot_id, sink) WHERE boot_id IS NOT NULL;\n"
	"CREATE INDEX upload_campaign ON upload (campaign_id, sink, what);\n",
	/* 7: one sample per metric of a result (issue 15): a second sample of
	 * one metric in one cell of one boot counted as another boot.  The
	 * first is kept; each later one is dropped and stays as an event of
	 * its boot, with its value. */
	"-- sample: UNIQUE (result_id, metric); duplicates from older versions\n"
	"-- are kept as warn events of their boot before they are dropped\n"
	"INSERT INTO event (campaign_id, boot_id, time_ns, level, message)\n"
	"	SELECT boot.campaign_id, boot.id, boot.ended_ns, 'warn',\n"
	"		'schema 7 dropped a second sample of metric ''' || s.metric ||\n"
	"		''' of cell ''' || cell.name || ''': ' || s.value || ' ' || s.unit ||\n"
	"		' (the first is kept: one value per boot and metric)'\n"
	"	FROM sample s JOIN result ON result.id = s.result_id\n"
	"	JOIN boot ON boot.id = result.boot_id JOIN cell ON cell.id = result.cell_id\n"
	"	WHERE EXISTS (SELECT 1 FROM sample f WHERE f.result_id = s.result_id\n"
	"		AND f.metric = s.metric AND f.id < s.id)\n"
	"	ORDER BY s.id;\n"
	"DELETE FROM sample WHERE EXISTS (SELECT 1 FROM sample f\n"
	"	WHERE f.result_id = sample.result_id AND f.metric = sample.metric AND f.id < sample.id);\n"
	"DROP INDEX sample_result;\n"
	"CREATE UNIQUE INDEX sample_metric ON sample (result_id, metric);\n",
};

_Static_assert(VTB_ARRAY_SIZE(migrations) == VTB_STORE_SCHEMA,
	       "one migration step per schema version");

const char *vtb_store_migration_sql(int version)
{
	if (version < 1 || version > VTB_STORE_SCHEMA)
		return NULL;
	return migrations[version - 1];
}

/* Wall-clock time for campaign and event stamps (boots bring their own). */
static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int db_error(struct vtb_store *st, const char *what)
{
	int rc = sqlite3_errcode(st->db) & 0xff;

	/* a damaged or crafted file is input, not infrastructure */
	st->bad_content = rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
	return vtb_error("cannot %s in '%s': %s", what, st->path, sqlite3_errmsg(st->db));
}

bool vtb_store_bad_content(const struct vtb_store *st)
{
	return st && st->bad_content;
}

static int prepare(struct vtb_store *st, const char *sql, sqlite3_stmt **out)
{
	*out = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) != SQLITE_OK)
		return db_error(st, "prepare a statement");
	return 0;
}

/* Binders return the SQLite code: callers OR them and check once. */
static int bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (!v)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

/* For NOT NULL identity columns: an unknown value is "". */
static int bind_text0(sqlite3_stmt *s, int i, const char *v)
{
	return sqlite3_bind_text(s, i, v ? v : "", -1, SQLITE_STATIC);
}

static int bind_int(sqlite3_stmt *s, int i, int64_t v)
{
	return sqlite3_bind_int64(s, i, v);
}

/* An id of 0 (none) is NULL. */
static int bind_id(sqlite3_stmt *s, int i, int64_t id)
{
	return id ? sqlite3_bind_int64(s, i, id) : sqlite3_bind_null(s, i);
}

/*
 * Runs @s to completion (statements without rows) or to its first row
 * (*row true, the row is left readable); the caller resets.
 */
static int step(struct vtb_store *st, sqlite3_stmt *s, const char *what, bool *row)
{
	int rc = sqlite3_step(s);

	if (row)
		*row = rc == SQLITE_ROW;
	if (rc == SQLITE_DONE || rc == SQLITE_ROW)
		return 0;
	return db_error(st, what);
}

static const char *column_text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

/* SQL without bound values: pragmas and transaction control. */
static int exec_sql(struct vtb_store *st, const char *sql, const char *what)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_error(st, what);
	return 0;
}

static int begin(struct vtb_store *st)
{
	return exec_sql(st, "BEGIN IMMEDIATE", "begin a transaction");
}

static int commit(struct vtb_store *st)
{
	return exec_sql(st, "COMMIT", "commit");
}

/* Keeps the error message of what failed. */
static void rollback(struct vtb_store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

static int pragma_int(struct vtb_store *st, const char *sql, int *out)
{
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	if (prepare(st, sql, &s) < 0 || step(st, s, "read the database header", &row) < 0)
		goto out;
	*out = row ? sqlite3_column_int(s, 0) : 0;
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_schema_version(struct vtb_store *st, int *version)
{
	return pragma_int(st, "PRAGMA user_version", version);
}

/*
 * Is this a database we may use?  Checked before anything is written, so
 * a foreign file is left as it was.  *fresh: an empty database, ours to
 * create.
 */
static int check_identity(struct vtb_store *st, bool *fresh)
{
	int app_id, version, objects;

	*fresh = false;
	if (pragma_int(st, "PRAGMA application_id", &app_id) < 0 ||
	    pragma_int(st, "PRAGMA user_version", &version) < 0 ||
	    pragma_int(st, "SELECT count(*) FROM sqlite_master", &objects) < 0)
		return -1;
	if (app_id == 0 && version == 0 && objects == 0) {
		*fresh = true;
		return 0;
	}
	if (app_id != VTB_STORE_APPLICATION_ID)
		return vtb_error("'%s' is not a vtbench database", st->path);
	if (version > VTB_STORE_SCHEMA)
		return vtb_error(
			"'%s' was written by a newer vtbench (schema %d, this one knows %d)",
			st->path, version, VTB_STORE_SCHEMA);
	return 0;
}

/* Broken references in the database (PRAGMA foreign_key_check rows). */
static int fk_violations(struct vtb_store *st, int64_t *n, char **table)
{
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	*n = 0;
	if (prepare(st, "PRAGMA foreign_key_check", &s) < 0)
		return -1;
	for (;;) {
		if (step(st, s, "check foreign keys", &row) < 0)
			goto out;
		if (!row)
			break;
		if (!*n && table)
			*table = vtb_strdup(column_text(s, 0));
		(*n)++;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/* A migration step must not break a reference: more violations after
 * it than before (a row deleted by hand with foreign keys off, outside
 * vtbench, is an old one and does not stop the migration). */
static int fk_check(struct vtb_store *st, int64_t before)
{
	char *table = NULL;
	int64_t after;

	if (fk_violations(st, &after, &table) < 0)
		return -1;
	if (after > before) {
		vtb_error("migrating '%s' broke a reference in table '%s'", st->path,
			  table ? table : "?");
		free(table);
		return -1;
	}
	free(table);
	return 0;
}

static int migrate(struct vtb_store *st)
{
	int version, ret = -1;
	char *set_version = NULL;

	/* Steps that rebuild a table must not cascade its deletion into
	 * the tables that refer to it: foreign keys are off while migrating
	 * (the pragma is a no-op inside a transaction) and checked before
	 * each step commits. */
	if (exec_sql(st, "PRAGMA foreign_keys = OFF", "migrate the schema") < 0)
		return -1;
	for (;;) {
		int64_t fk_before;

		if (begin(st) < 0)
			goto out;
		/* Read again under the write lock: another vtbench may have
		 * migrated while we waited. */
		if (vtb_store_schema_version(st, &version) < 0)
			goto out;
		if (version > VTB_STORE_SCHEMA) {
			vtb_error(
				"'%s' was written by a newer vtbench (schema %d, this one knows %d)",
				st->path, version, VTB_STORE_SCHEMA);
			goto out;
		}
		if (version == VTB_STORE_SCHEMA)
			break;
		if (fk_violations(st, &fk_before, NULL) < 0 ||
		    exec_sql(st, migrations[version], "migrate the schema") < 0)
			goto out;
		/* PRAGMA takes no bound parameters; the value is our integer. */
		free(set_version);
		set_version = vtb_asprintf("PRAGMA user_version = %d", version + 1);
		if (!set_version) {
			vtb_error("out of memory");
			goto out;
		}
		if (exec_sql(st, set_version, "migrate the schema") < 0 ||
		    fk_check(st, fk_before) < 0 || commit(st) < 0)
			goto out;
	}
	if (commit(st) < 0)
		goto out;
	ret = 0;
out:
	if (ret < 0)
		rollback(st);
	if (exec_sql(st, "PRAGMA foreign_keys = ON", "enable foreign keys") < 0)
		ret = -1;
	free(set_version);
	return ret;
}

static int store_open(const char *path, bool ro, struct vtb_store **out)
{
	struct vtb_store *st;
	sqlite3_stmt *s = NULL;
	bool fresh, row;
	int ret = -1, flags;

	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		return vtb_error("out of memory");
	}
	st->ro = ro;
	flags = (ro ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
		SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
		if (!st->db)
			vtb_error("cannot open '%s': out of memory", path);
		else
			vtb_error("cannot open '%s': %s", path, sqlite3_errmsg(st->db));
		goto out;
	}
	sqlite3_extended_result_codes(st->db, 1);
	/* Several vtbench processes may share a database (run + compare). */
	sqlite3_busy_timeout(st->db, 10000);
	if (check_identity(st, &fresh) < 0)
		goto out;
	if (ro && fresh) {
		vtb_error("'%s' is not a vtbench database (it is empty)", path);
		goto out;
	}
	if (exec_sql(st, "PRAGMA foreign_keys = ON", "enable foreign keys") < 0)
		goto out;
	if (!ro) {
		if (prepare(st, "PRAGMA journal_mode = WAL", &s) < 0 ||
		    step(st, s, "switch to WAL", &row) < 0)
			goto out;
		/* :memory: and temporary databases have no WAL */
		if (!row ||
		    (strcmp(column_text(s, 0), "wal") && strcmp(column_text(s, 0), "memory"))) {
			vtb_error("cannot switch '%s' to WAL (journal mode '%s')", path,
				  row ? column_text(s, 0) : "?");
			goto out;
		}
		sqlite3_finalize(s);
		s = NULL;
		if (exec_sql(st, "PRAGMA synchronous = FULL", "set synchronous") < 0 ||
		    migrate(st) < 0)
			goto out;
	}
	*out = st;
	st = NULL;
	ret = 0;
out:
	sqlite3_finalize(s);
	vtb_store_close(st);
	return ret;
}

int vtb_store_open(const char *path, struct vtb_store **out)
{
	return store_open(path, false, out);
}

int vtb_store_open_ro(const char *path, struct vtb_store **out)
{
	struct vtb_store *mem = NULL;
	sqlite3_backup *b;
	int version, rc;

	if (store_open(path, true, out) < 0)
		return -1;
	if (vtb_store_schema_version(*out, &version) < 0)
		goto fail;
	if (version == VTB_STORE_SCHEMA)
		return 0;
	/* An older database: its queries need the current schema, but a
	 * read-only command must not write to it (it may be on a read-only
	 * mount, or another vtbench's).  Migrate an in-memory copy. */
	if (store_open(":memory:", false, &mem) < 0)
		goto fail;
	b = sqlite3_backup_init(mem->db, "main", (*out)->db, "main");
	if (!b) {
		vtb_error("cannot copy '%s' to migrate it: %s", path, sqlite3_errmsg(mem->db));
		goto fail;
	}
	rc = sqlite3_backup_step(b, -1);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		vtb_error("cannot copy '%s' to migrate it: %s", path, sqlite3_errstr(rc));
		goto fail;
	}
	free(mem->path);
	mem->path = vtb_strdup(path);
	if (!mem->path) {
		vtb_error("out of memory");
		goto fail;
	}
	if (migrate(mem) < 0) {
		vtb_error("'%s' has schema %d and could not be migrated to %d: %s", path, version,
			  VTB_STORE_SCHEMA, vtb_errmsg());
		goto fail;
	}
	mem->ro = true;
	vtb_store_close(*out);
	*out = mem;
	return 0;
fail:
	vtb_store_close(mem);
	vtb_store_close(*out);
	*out = NULL;
	return -1;
}

void vtb_store_close(struct vtb_store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

int vtb_store_host(struct vtb_store *st, const struct vtb_host_info *h, int64_t *id)
{
	static const char ins[] =
		"INSERT INTO host (hostname, cpu_vendor, cpu_family, cpu_model,"
		" cpu_model_name, cpu_codename, topo_digest, topo_summary, kernel)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT DO NOTHING";
	static const char sel[] = "SELECT id FROM host WHERE hostname = ?1 AND cpu_vendor = ?2"
				  " AND cpu_family = ?3 AND cpu_model = ?4 AND cpu_model_name = ?5"
				  " AND cpu_codename = ?6 AND topo_digest = ?7 AND topo_summary = ?8"
				  " AND kernel = ?9";
	const char *sqls[] = { ins, sel };
	sqlite3_stmt *s = NULL;
	bool row = false;
	int ret = -1;

	for (size_t i = 0; i < VTB_ARRAY_SIZE(sqls); i++) {
		sqlite3_finalize(s);
		if (prepare(st, sqls[i], &s) < 0)
			goto out;
		if (bind_text0(s, 1, h->hostname) | bind_text0(s, 2, h->cpu_vendor) |
		    bind_int(s, 3, h->cpu_family) | bind_int(s, 4, h->cpu_model) |
		    bind_text0(s, 5, h->cpu_model_name) | bind_text0(s, 6, h->cpu_codename) |
		    bind_text0(s, 7, h->topo_digest) | bind_text0(s, 8, h->topo_summary) |
		    bind_text0(s, 9, h->kernel)) {
			db_error(st, "bind the host");
			goto out;
		}
		if (step(st, s, "store the host", &row) < 0)
			goto out;
	}
	if (!row) {
		vtb_error("cannot find the host just stored in '%s'", st->path);
		goto out;
	}
	*id = sqlite3_column_int64(s, 0);
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/*
 * Configurations and cells of @m.  @sync: rows already there are kept
 * (and their seq); new configurations go after the existing ones, in
 * matrix order.  Without @sync a duplicate key is an error.
 */
static int insert_configs(struct vtb_store *st, int64_t campaign_id, const struct vtb_matrix *m,
			  bool sync)
{
	static const char ins_config[] =
		"INSERT INTO config (campaign_id, key, kind, label, params, cpus, mems,"
		" runnable, why_not, seq, plan)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
	static const char sync_config[] =
		"INSERT INTO config (campaign_id, key, kind, label, params, cpus, mems,"
		" runnable, why_not, seq, plan)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
		/* a configuration with no boot yet takes what this vtbench
		 * makes of it (it may now be runnable, or planned anew); one
		 * with boots keeps the rows they ran under */
		" ON CONFLICT (campaign_id, key) DO UPDATE SET label = excluded.label,"
		" cpus = excluded.cpus, mems = excluded.mems, runnable = excluded.runnable,"
		" why_not = excluded.why_not, plan = excluded.plan"
		" WHERE NOT EXISTS (SELECT 1 FROM boot WHERE boot.config_id = config.id)";
	static const char sel_config[] = "SELECT id FROM config WHERE campaign_id = ?1 AND key = ?2";
	static const char ins_cell[] =
		"INSERT INTO cell (config_id, key, name, workload, params, resolved)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
	static const char sync_cell[] =
		"INSERT INTO cell (config_id, key, name, workload, params, resolved)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (config_id, key) DO NOTHING";
	sqlite3_stmt *ic = NULL, *sc = NULL, *icell = NULL, *smax = NULL;
	char *cpus = NULL;
	int64_t base = 0;
	bool row;
	int ret = -1;

	if (prepare(st, sync ? sync_config : ins_config, &ic) < 0 ||
	    prepare(st, sel_config, &sc) < 0 ||
	    prepare(st, sync ? sync_cell : ins_cell, &icell) < 0)
		goto out;
	if (sync) {
		if (prepare(st,
			    "SELECT coalesce(max(seq) + 1, 0) FROM config WHERE campaign_id = ?1",
			    &smax) < 0)
			goto out;
		if (bind_int(smax, 1, campaign_id) ||
		    step(st, smax, "read configurations", &row) < 0)
			goto out;
		base = row ? sqlite3_column_int64(smax, 0) : 0;
	}
	for (size_t i = 0; i < m->n_configs; i++) {
		const struct vtb_config *cf = &m->configs[i];
		int64_t config_id;

		free(cpus);
		cpus = vtb_cpuset_format(&cf->cpus);
		if (!cpus) {
			vtb_error("out of memory");
			goto out;
		}
		if (bind_int(ic, 1, campaign_id) | bind_text(ic, 2, cf->key) |
		    bind_text(ic, 3, cf->kind == VTB_CONFIG_VM ? "vm" : "baseline") |
		    bind_text0(ic, 4, cf->label) |
		    bind_text(ic, 5, cf->params_json ? cf->params_json : "{}") |
		    bind_text(ic, 6, cpus) | bind_text(ic, 7, cf->mems) |
		    bind_int(ic, 8, cf->runnable) | bind_text(ic, 9, cf->why_not) |
		    bind_int(ic, 10, base + (int64_t)i) | bind_text(ic, 11, cf->plan_json)) {
			db_error(st, "bind a configuration");
			goto out;
		}
		if (step(st, ic, "store a configuration", NULL) < 0)
			goto out;
		sqlite3_reset(ic);
		if (bind_int(sc, 1, campaign_id) | bind_text(sc, 2, cf->key)) {
			db_error(st, "bind a configuration");
			goto out;
		}
		if (step(st, sc, "read a configuration", &row) < 0)
			goto out;
		if (!row) {
			vtb_error("configuration '%s' vanished from '%s'", cf->key, st->path);
			goto out;
		}
		config_id = sqlite3_column_int64(sc, 0);
		sqlite3_reset(sc);
		for (size_t j = 0; j < cf->n_cells; j++) {
			const struct vtb_cell *ce = &cf->cells[j];

			if (bind_int(icell, 1, config_id) | bind_text(icell, 2, ce->key) |
			    bind_text0(icell, 3, ce->name) | bind_text0(icell, 4, ce->workload) |
			    bind_text(icell, 5, ce->params_json ? ce->params_json : "{}") |
			    bind_text(icell, 6, ce->resolved_json ? ce->resolved_json : "{}")) {
				db_error(st, "bind a cell");
				goto out;
			}
			if (step(st, icell, "store a cell", NULL) < 0)
				goto out;
			sqlite3_reset(icell);
		}
	}
	ret = 0;
out:
	free(cpus);
	sqlite3_finalize(ic);
	sqlite3_finalize(sc);
	sqlite3_finalize(icell);
	sqlite3_finalize(smax);
	return ret;
}

int vtb_store_campaign_begin(struct vtb_store *st, const struct vtb_campaign_info *c,
			     const struct vtb_matrix *m, int64_t *campaign_id)
{
	static const char ins[] =
		"INSERT INTO campaign (uuid, host_id, matrix_path, matrix_text, matrix_digest,"
		" version, cmdline, started_ns, host_state)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
	sqlite3_stmt *s = NULL;
	int ret = -1;

	if (begin(st) < 0)
		return -1;
	if (prepare(st, ins, &s) < 0)
		goto out;
	if (bind_text(s, 1, c->uuid) | bind_int(s, 2, c->host_id) |
	    bind_text0(s, 3, c->matrix_path) | bind_text0(s, 4, c->matrix_text) |
	    bind_text0(s, 5, c->matrix_digest) | bind_text0(s, 6, c->version) |
	    bind_text0(s, 7, c->cmdline) |
	    bind_int(s, 8, c->started_ns ? c->started_ns : realtime_ns()) |
	    bind_text(s, 9, c->state_json)) {
		db_error(st, "bind the campaign");
		goto out;
	}
	if (step(st, s, "store the campaign", NULL) < 0)
		goto out;
	*campaign_id = sqlite3_last_insert_rowid(st->db);
	if (insert_configs(st, *campaign_id, m, false) < 0 || commit(st) < 0)
		goto out;
	ret = 0;
out:
	if (ret < 0)
		rollback(st);
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_campaign_sync(struct vtb_store *st, int64_t campaign_id, const struct vtb_matrix *m)
{
	if (begin(st) < 0)
		return -1;
	if (insert_configs(st, campaign_id, m, true) < 0 || commit(st) < 0) {
		rollback(st);
		return -1;
	}
	return 0;
}

int vtb_store_campaign_find(struct vtb_store *st, const char *matrix_digest, int64_t host_id,
			    int64_t *campaign_id, char uuid[37], bool *found)
{
	static const char sel[] =
		"SELECT id, uuid FROM campaign WHERE matrix_digest = ?1 AND host_id = ?2"
		" ORDER BY started_ns DESC, id DESC LIMIT 1";
	sqlite3_stmt *s = NULL;
	int ret = -1;

	*found = false;
	if (prepare(st, sel, &s) < 0)
		goto out;
	if (bind_text0(s, 1, matrix_digest) | bind_int(s, 2, host_id)) {
		db_error(st, "bind the campaign");
		goto out;
	}
	if (step(st, s, "find the campaign", found) < 0)
		goto out;
	if (*found) {
		*campaign_id = sqlite3_column_int64(s, 0);
		snprintf(uuid, 37, "%s", column_text(s, 1));
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_campaign_end(struct vtb_store *st, int64_t campaign_id, const char *status)
{
	return vtb_store_campaign_end_at(st, campaign_id, status, realtime_ns());
}

int vtb_store_campaign_end_at(struct vtb_store *st, int64_t campaign_id, const char *status,
			      int64_t ended_ns)
{
	sqlite3_stmt *s = NULL;
	int ret = -1;

	if (prepare(st, "UPDATE campaign SET status = ?1, ended_ns = ?2 WHERE id = ?3", &s) < 0)
		goto out;
	if (bind_text(s, 1, status) | bind_int(s, 2, ended_ns) | bind_int(s, 3, campaign_id)) {
		db_error(st, "bind the campaign");
		goto out;
	}
	if (step(st, s, "end the campaign", NULL) < 0)
		goto out;
	if (sqlite3_changes(st->db) != 1) {
		vtb_error("no campaign %" PRId64 " in '%s'", campaign_id, st->path);
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_boot_exists(struct vtb_store *st, int64_t campaign_id, const char *config_key,
			  int rep, bool *exists)
{
	static const char sel[] =
		"SELECT 1 FROM boot JOIN config ON config.id = boot.config_id"
		" WHERE boot.campaign_id = ?1 AND config.key = ?2 AND boot.rep = ?3";
	sqlite3_stmt *s = NULL;
	int ret = -1;

	*exists = false;
	if (prepare(st, sel, &s) < 0)
		goto out;
	if (bind_int(s, 1, campaign_id) | bind_text(s, 2, config_key) | bind_int(s, 3, rep)) {
		db_error(st, "bind the boot");
		goto out;
	}
	if (step(st, s, "look up the boot", exists) < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

static int insert_event(struct vtb_store *st, int64_t campaign_id, int64_t boot_id,
			const char *level, const char *message)
{
	static const char ins[] = "INSERT INTO event (campaign_id, boot_id, time_ns, level, message)"
				  " VALUES (?1, ?2, ?3, ?4, ?5)";
	sqlite3_stmt *s = NULL;
	int ret = -1;

	if (prepare(st, ins, &s) < 0)
		goto out;
	if (bind_int(s, 1, campaign_id) | bind_id(s, 2, boot_id) | bind_int(s, 3, realtime_ns()) |
	    bind_text(s, 4, level) | bind_text0(s, 5, message)) {
		db_error(st, "bind the event");
		goto out;
	}
	if (step(st, s, "store an event", NULL) < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_event(struct vtb_store *st, int64_t campaign_id, const char *boot_uuid,
		    const char *level, const char *message)
{
	sqlite3_stmt *s = NULL;
	int64_t boot_id = 0;
	bool row;
	int ret = -1;

	if (boot_uuid) {
		if (prepare(st, "SELECT id FROM boot WHERE uuid = ?1 AND campaign_id = ?2", &s) < 0)
			goto out;
		if (bind_text(s, 1, boot_uuid) | bind_int(s, 2, campaign_id)) {
			db_error(st, "bind the boot");
			goto out;
		}
		if (step(st, s, "look up the boot", &row) < 0)
			goto out;
		if (!row) {
			vtb_error("no boot '%s' in campaign %" PRId64 " of '%s'", boot_uuid,
				  campaign_id, st->path);
			goto out;
		}
		boot_id = sqlite3_column_int64(s, 0);
	}
	ret = insert_event(st, campaign_id, boot_id, level, message);
out:
	sqlite3_finalize(s);
	return ret;
}

/* A cell of the boot's configuration, and its result once stored. */
struct boot_cell {
	int64_t id;
	char *key;
	int64_t result_id;
};

struct boot_ctx {
	struct vtb_store *st;
	int64_t campaign_id, boot_id;
	const char *config_key;
	struct boot_cell *cells;
	size_t n_cells;
	const char **unknown; /* cell keys already reported as unknown */
	size_t n_unknown;
};

static struct boot_cell *find_cell(struct boot_ctx *bc, const char *key)
{
	for (size_t i = 0; key && i < bc->n_cells; i++)
		if (!strcmp(bc->cells[i].key, key))
			return &bc->cells[i];
	return NULL;
}

/* Records for a cell this configuration lacks: reported once per key, as
 * an error event of the boot (the guest is untrusted input). */
static int note_unknown(struct boot_ctx *bc, const char *key, const char *what)
{
	const char **grown;
	char *msg;
	int ret;

	for (size_t i = 0; i < bc->n_unknown; i++)
		if (!strcmp(bc->unknown[i], key ? key : ""))
			return 0;
	grown = realloc(bc->unknown, (bc->n_unknown + 1) * sizeof(*grown));
	if (!grown)
		return vtb_error("out of memory");
	bc->unknown = grown;
	bc->unknown[bc->n_unknown++] = key ? key : "";
	msg = vtb_asprintf("%s for cell '%s', which is not in configuration '%s'", what,
			   key ? key : "", bc->config_key);
	if (!msg)
		return vtb_error("out of memory");
	ret = insert_event(bc->st, bc->campaign_id, bc->boot_id, "error", msg);
	free(msg);
	return ret;
}

static int load_cells(struct boot_ctx *bc, int64_t config_id)
{
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	if (prepare(bc->st, "SELECT id, key FROM cell WHERE config_id = ?1 ORDER BY id", &s) < 0)
		goto out;
	if (bind_int(s, 1, config_id)) {
		db_error(bc->st, "bind the configuration");
		goto out;
	}
	for (;;) {
		struct boot_cell *grown;

		if (step(bc->st, s, "read cells", &row) < 0)
			goto out;
		if (!row)
			break;
		grown = realloc(bc->cells, (bc->n_cells + 1) * sizeof(*grown));
		if (!grown) {
			vtb_error("out of memory");
			goto out;
		}
		bc->cells = grown;
		grown[bc->n_cells] = (struct boot_cell){
			.id = sqlite3_column_int64(s, 0),
			.key = strdup(column_text(s, 1)),
		};
		if (!grown[bc->n_cells++].key) {
			vtb_error("out of memory");
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

static int insert_result(struct boot_ctx *bc, struct boot_cell *cell, const char *status,
			 const char *error, double seconds, bool has_seconds, const char *info)
{
	static const char ins[] =
		"INSERT INTO result (boot_id, cell_id, status, error, seconds, info)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
	sqlite3_stmt *s = NULL;
	int ret = -1;

	if (prepare(bc->st, ins, &s) < 0)
		goto out;
	if (bind_int(s, 1, bc->boot_id) | bind_int(s, 2, cell->id) | bind_text(s, 3, status) |
	    bind_text(s, 4, error) |
	    (has_seconds ? sqlite3_bind_double(s, 5, seconds) : sqlite3_bind_null(s, 5)) |
	    bind_text(s, 6, info)) {
		db_error(bc->st, "bind a result");
		goto out;
	}
	if (step(bc->st, s, "store a result", NULL) < 0)
		goto out;
	cell->result_id = sqlite3_last_insert_rowid(bc->st->db);
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

static int store_results(struct boot_ctx *bc, const struct vtb_boot_records *recs)
{
	for (size_t i = 0; i < recs->n_cells; i++) {
		const struct vtb_rs_cell *rc = &recs->cells[i];
		struct boot_cell *cell = find_cell(bc, rc->cell);
		const char *status = rc->status, *error = rc->error;
		bool finished = status != NULL;

		if (!cell) {
			if (note_unknown(bc, rc->cell, "records") < 0)
				return -1;
			continue;
		}
		if (cell->result_id) {
			char *msg = vtb_asprintf(
				"cell '%s' was reported twice; the first report is kept",
				cell->key);
			int rc = msg ? insert_event(bc->st, bc->campaign_id, bc->boot_id, "error",
						    msg)
				     : vtb_error("out of memory");

			free(msg);
			if (rc < 0)
				return -1;
			continue;
		}
		if (!finished) {
			/* started, never ended: the record stream stopped */
			status = "failed";
			if (!error)
				error = "no cell_end record (the record stream ended early)";
		} else if (strcmp(status, "ok") && strcmp(status, "failed")) {
			status = "failed";
			if (!error)
				error = "unknown cell status";
		}
		if (insert_result(bc, cell, status, error, rc->seconds, finished, rc->info_json) <
		    0)
			return -1;
	}
	for (size_t i = 0; i < bc->n_cells; i++) {
		if (bc->cells[i].result_id)
			continue;
		if (insert_result(bc, &bc->cells[i], "missing", "no records for this cell", 0,
				  false, NULL) < 0)
			return -1;
	}
	return 0;
}

/* The result a sample or histogram of @key belongs to; 0 (skip) after an
 * error event when the configuration has no such cell. */
static int result_of(struct boot_ctx *bc, const char *key, const char *what, int64_t *id)
{
	struct boot_cell *cell = find_cell(bc, key);

	*id = cell ? cell->result_id : 0;
	if (!cell)
		return note_unknown(bc, key, what);
	return 0;
}

/* A second sample of one metric in one result (the record parser refuses
 * them; a caller of this API may not): the first is kept, this one is an
 * error event of the boot. */
static int note_duplicate(struct boot_ctx *bc, const struct vtb_rs_sample *sm)
{
	char *msg = vtb_asprintf("a second sample of metric '%s' in cell '%s' (%g %s) was not "
				 "stored: one value per boot and metric",
				 sm->metric, sm->cell ? sm->cell : "", sm->value,
				 sm->unit ? sm->unit : "");
	int ret;

	if (!msg)
		return vtb_error("out of memory");
	ret = insert_event(bc->st, bc->campaign_id, bc->boot_id, "error", msg);
	free(msg);
	return ret;
}

static int store_samples(struct boot_ctx *bc, const struct vtb_boot_records *recs)
{
	static const char ins_sample[] =
		"INSERT INTO sample (result_id, metric, unit, value, better)"
		" VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (result_id, metric) DO NOTHING";
	static const char ins_hist[] =
		"INSERT INTO histogram (result_id, metric, unit, params, buckets)"
		" VALUES (?1, ?2, ?3, ?4, ?5)";
	sqlite3_stmt *s = NULL;
	int64_t result_id;
	int ret = -1;

	if (prepare(bc->st, ins_sample, &s) < 0)
		goto out;
	for (size_t i = 0; i < recs->n_samples; i++) {
		const struct vtb_rs_sample *sm = &recs->samples[i];

		if (result_of(bc, sm->cell, "samples", &result_id) < 0)
			goto out;
		if (!result_id)
			continue;
		/* the unit and metric are bound as they are: NULL violates
		 * NOT NULL and the whole boot is rolled back */
		if (bind_int(s, 1, result_id) | bind_text(s, 2, sm->metric) |
		    bind_text(s, 3, sm->unit) | sqlite3_bind_double(s, 4, sm->value) |
		    bind_text(s, 5, sm->better ? "higher" : "lower")) {
			db_error(bc->st, "bind a sample");
			goto out;
		}
		if (step(bc->st, s, "store a sample", NULL) < 0)
			goto out;
		sqlite3_reset(s);
		if (!sqlite3_changes(bc->st->db) && note_duplicate(bc, sm) < 0)
			goto out;
	}
	sqlite3_finalize(s);
	if (prepare(bc->st, ins_hist, &s) < 0)
		goto out;
	for (size_t i = 0; i < recs->n_hists; i++) {
		const struct vtb_rs_hist *hi = &recs->hists[i];

		if (result_of(bc, hi->cell, "histograms", &result_id) < 0)
			goto out;
		if (!result_id)
			continue;
		if (bind_int(s, 1, result_id) | bind_text(s, 2, hi->metric) |
		    bind_text(s, 3, hi->unit) | bind_text(s, 4, hi->params_json) |
		    bind_text(s, 5, hi->buckets_json)) {
			db_error(bc->st, "bind a histogram");
			goto out;
		}
		if (step(bc->st, s, "store a histogram", NULL) < 0)
			goto out;
		sqlite3_reset(s);
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

static int store_boot_events(struct boot_ctx *bc, const struct vtb_boot_info *b,
			     const struct vtb_boot_records *recs)
{
	char *msg;
	int ret;

	for (size_t i = 0; recs && i < recs->n_errors; i++)
		if (insert_event(bc->st, bc->campaign_id, bc->boot_id, "error", recs->errors[i]) <
		    0)
			return -1;
	if (recs && recs->errors_dropped) {
		msg = vtb_asprintf("%zu further errors were not kept", recs->errors_dropped);
		if (!msg)
			return vtb_error("out of memory");
		ret = insert_event(bc->st, bc->campaign_id, bc->boot_id, "error", msg);
		free(msg);
		if (ret < 0)
			return -1;
	}
	for (size_t i = 0; i < b->n_warnings; i++)
		if (insert_event(bc->st, bc->campaign_id, bc->boot_id, "warn", b->warnings[i]) < 0)
			return -1;
	return 0;
}

/*
 * Test hook: VTBENCH_TEST_COMMIT_DELAY_MS=N sleeps N ms inside the boot
 * transaction, just before COMMIT, so tests can SIGKILL vtbench in the
 * middle of storing a boot and check that nothing of it is left.
 */
static void test_commit_delay(void)
{
	const char *env = getenv("VTBENCH_TEST_COMMIT_DELAY_MS");
	struct timespec ts;
	long ms;

	if (!env || (ms = strtol(env, NULL, 10)) <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* One boot inside the caller's transaction. */
static int store_boot_in(struct vtb_store *st, const struct vtb_boot_info *b,
			 const struct vtb_boot_records *recs)
{
	static const char sel_config[] = "SELECT id FROM config WHERE campaign_id = ?1 AND key = ?2";
	static const char ins[] =
		"INSERT INTO boot (uuid, campaign_id, config_id, rep, status, error,"
		" started_ns, ended_ns, nonce, cpus, confinement, header, stderr_tail,"
		" detail, noise_lines, records, kind, accelerator, cpu_model, guest_kernel,"
		" libvirt_version, qemu_version, live_xml, console_tail, vm_index, vms,"
		" group_uuid, claims, placement, probe, sched, topology_diff, topology_check)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
		" ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32,"
		" ?33)";
	static const char ins_view[] =
		"INSERT INTO guest_view (boot_id, view, tree, digest, levels, cpuid, steal_before,"
		" steal_after) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
	static const struct vtb_vm_boot_info novm;
	static const struct vtb_boot_records none;
	const struct vtb_vm_boot_info *vm = b->vm ? b->vm : &novm;
	struct boot_ctx bc = { .st = st,
			       .campaign_id = b->campaign_id,
			       .config_key = b->config_key };
	sqlite3_stmt *s = NULL;
	char *header = NULL;
	int64_t config_id;
	bool row;
	int ret = -1;

	if (!recs)
		recs = &none;
	if (recs->header &&
	    !(header = json_dumps(recs->header, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY)))
		return vtb_error("out of memory");
	if (prepare(st, sel_config, &s) < 0)
		goto out;
	if (bind_int(s, 1, b->campaign_id) | bind_text(s, 2, b->config_key)) {
		db_error(st, "bind the boot");
		goto out;
	}
	if (step(st, s, "look up the configuration", &row) < 0)
		goto out;
	if (!row) {
		vtb_error("configuration '%s' is not in campaign %" PRId64 " of '%s'",
			  b->config_key ? b->config_key : "", b->campaign_id, st->path);
		goto out;
	}
	config_id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (prepare(st, ins, &s) < 0)
		goto out;
	if (bind_text(s, 1, b->uuid) | bind_int(s, 2, b->campaign_id) | bind_int(s, 3, config_id) |
	    bind_int(s, 4, b->rep) | bind_text(s, 5, b->status) | bind_text(s, 6, b->error) |
	    bind_int(s, 7, b->started_ns) | bind_int(s, 8, b->ended_ns) |
	    bind_text(s, 9, b->nonce) | bind_text(s, 10, b->cpus) |
	    bind_text(s, 11, b->confinement) | bind_text(s, 12, header) |
	    bind_text(s, 13, b->stderr_tail) | bind_text(s, 14, b->kind_detail) |
	    bind_int(s, 15, (int64_t)recs->noise_lines) | bind_int(s, 16, (int64_t)recs->records) |
	    bind_text(s, 17, b->vm ? "vm" : "baseline") | bind_text(s, 18, vm->accelerator) |
	    bind_text(s, 19, vm->cpu_model) | bind_text(s, 20, vm->guest_kernel) |
	    bind_text(s, 21, vm->libvirt_version) | bind_text(s, 22, vm->qemu_version) |
	    bind_text(s, 23, vm->live_xml) | bind_text(s, 24, vm->console_tail) |
	    bind_int(s, 25, vm->vm_index) | bind_int(s, 26, vm->vms > 0 ? vm->vms : 1) |
	    bind_text(s, 27, vm->group_uuid) | bind_text(s, 28, vm->claims) |
	    bind_text(s, 29, vm->placement) | bind_text(s, 30, vm->probe) |
	    bind_text(s, 31, vm->sched) | bind_text(s, 32, vm->topology_diff) |
	    bind_text(s, 33, vm->topology_check)) {
		db_error(st, "bind the boot");
		goto out;
	}
	if (sqlite3_step(s) != SQLITE_DONE) {
		if (sqlite3_extended_errcode(st->db) == SQLITE_CONSTRAINT_UNIQUE)
			vtb_error("boot %d of configuration '%s' is already stored in '%s'", b->rep,
				  b->config_key, st->path);
		else
			db_error(st, "store the boot");
		goto out;
	}
	bc.boot_id = sqlite3_last_insert_rowid(st->db);
	sqlite3_finalize(s);
	s = NULL;
	if (vm->view) {
		if (prepare(st, ins_view, &s) < 0)
			goto out;
		if (bind_int(s, 1, bc.boot_id) | bind_text(s, 2, vm->view) |
		    bind_text(s, 3, vm->tree) | bind_text(s, 4, vm->digest) |
		    bind_text(s, 5, vm->levels) | bind_text(s, 6, vm->cpuid) |
		    bind_text(s, 7, vm->steal_before) | bind_text(s, 8, vm->steal_after)) {
			db_error(st, "bind the guest view");
			goto out;
		}
		if (sqlite3_step(s) != SQLITE_DONE) {
			db_error(st, "store the guest view");
			goto out;
		}
	}
	if (load_cells(&bc, config_id) < 0 || store_results(&bc, recs) < 0 ||
	    store_samples(&bc, recs) < 0 || store_boot_events(&bc, b, recs) < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(s);
	free(header);
	for (size_t i = 0; i < bc.n_cells; i++)
		free(bc.cells[i].key);
	free(bc.cells);
	free(bc.unknown);
	return ret;
}

int vtb_store_boots(struct vtb_store *st, const struct vtb_boot_info *b,
		    const struct vtb_boot_records *const *recs, size_t n)
{
	if (begin(st) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (store_boot_in(st, &b[i], recs ? recs[i] : NULL) < 0) {
			rollback(st);
			return -1;
		}
	test_commit_delay();
	if (commit(st) < 0) {
		rollback(st);
		return -1;
	}
	return 0;
}

int vtb_store_boot(struct vtb_store *st, const struct vtb_boot_info *b,
		   const struct vtb_boot_records *recs)
{
	return vtb_store_boots(st, b, &recs, 1);
}

int vtb_store_latest_campaign(struct vtb_store *st, int64_t *campaign_id, bool *found)
{
	sqlite3_stmt *s = NULL;
	int ret = -1;

	*found = false;
	if (prepare(st, "SELECT id FROM campaign ORDER BY started_ns DESC, id DESC LIMIT 1", &s) <
	    0)
		goto out;
	if (step(st, s, "find the latest campaign", found) < 0)
		goto out;
	if (*found)
		*campaign_id = sqlite3_column_int64(s, 0);
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/*
 * Crafted databases.  A database is a file anyone may hand over, and its
 * schema may have been edited (a NOT NULL or a CHECK dropped) with
 * integrity_check still "ok": a NULL metric crashed compare, NULLs and
 * text that is not UTF-8 elsewhere became "out of memory".  So every row
 * read through query_each() is checked against the schema this vtbench
 * writes (built once, in memory, from the migrations): a NULL where it
 * says NOT NULL, text that is not UTF-8 or holds a NUL, a number column
 * holding text, a JSON column that is not JSON.  Each is an input error
 * naming the table, the column and the row (the query selects the rows'
 * ids for this).
 */
struct ref_col {
	char *table, *name;
	bool notnull, number, json, pk;
};

static struct {
	pthread_once_t once;
	struct ref_col *cols;
	size_t n;
	bool failed;
} ref = { .once = PTHREAD_ONCE_INIT };

/* Is "json_valid(NAME)" in @sql? */
static bool json_checked(const char *sql, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = sql; (p = strstr(p, "json_valid(")); p++)
		if (!strncmp(p + 11, name, n) && p[11 + n] == ')')
			return true;
	return false;
}

static void ref_build(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *t = NULL, *c = NULL;

	ref.failed = true;
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(migrations); i++)
		if (sqlite3_exec(db, migrations[i], NULL, NULL, NULL) != SQLITE_OK)
			goto out;
	if (sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_master WHERE type = 'table'", -1,
			       &t, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(
		    db, "SELECT name, upper(type), \"notnull\", pk FROM pragma_table_info(?1)", -1,
		    &c, NULL) != SQLITE_OK)
		goto out;
	while (sqlite3_step(t) == SQLITE_ROW) {
		const char *table = (const char *)sqlite3_column_text(t, 0);
		const char *sql = (const char *)sqlite3_column_text(t, 1);

		sqlite3_reset(c);
		if (sqlite3_bind_text(c, 1, table, -1, SQLITE_TRANSIENT) != SQLITE_OK)
			goto out;
		while (sqlite3_step(c) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(c, 0);
			const char *type = (const char *)sqlite3_column_text(c, 1);
			struct ref_col *g = realloc(ref.cols, (ref.n + 1) * sizeof(*g));

			if (!g)
				goto out;
			ref.cols = g;
			g[ref.n] = (struct ref_col){
				.table = strdup(table),
				.name = strdup(name),
				.notnull = sqlite3_column_int(c, 2) != 0,
				.number = !strcmp(type, "INTEGER") || !strcmp(type, "REAL"),
				.json = json_checked(sql, name),
				.pk = sqlite3_column_int(c, 3) != 0,
			};
			if (!g[ref.n].table || !g[ref.n].name)
				goto out;
			ref.n++;
		}
	}
	ref.failed = false;
out:
	sqlite3_finalize(t);
	sqlite3_finalize(c);
	sqlite3_close(db);
}

static const struct ref_col *ref_find(const char *table, const char *name)
{
	for (size_t i = 0; table && name && i < ref.n; i++)
		if (!strcmp(ref.cols[i].table, table) && !strcmp(ref.cols[i].name, name))
			return &ref.cols[i];
	return NULL;
}

/* Per statement: each column's schema entry, and the column holding the
 * id of its row (-1: none selected). */
struct row_check {
	int n;
	const struct ref_col **col;
	int *idcol;
};

static int row_check_init(struct vtb_store *st, sqlite3_stmt *s, struct row_check *rc)
{
	pthread_once(&ref.once, ref_build);
	rc->n = sqlite3_column_count(s);
	rc->col = calloc((size_t)rc->n + 1, sizeof(*rc->col));
	rc->idcol = calloc((size_t)rc->n + 1, sizeof(*rc->idcol));
	if (ref.failed || !rc->col || !rc->idcol)
		return vtb_error("cannot check the rows of '%s': out of memory", st->path);
	for (int i = 0; i < rc->n; i++)
		rc->col[i] = ref_find(sqlite3_column_table_name(s, i),
				      sqlite3_column_origin_name(s, i));
	for (int i = 0; i < rc->n; i++) {
		rc->idcol[i] = -1;
		for (int j = 0; rc->col[i] && j < rc->n; j++)
			if (rc->col[j] && rc->col[j]->pk &&
			    !strcmp(rc->col[j]->table, rc->col[i]->table))
				rc->idcol[i] = j;
	}
	return 0;
}

static void row_check_release(struct row_check *rc)
{
	free(rc->col);
	free(rc->idcol);
}

static int bad_row(struct vtb_store *st, sqlite3_stmt *s, const struct row_check *rc, int i,
		   const char *what)
{
	const struct ref_col *c = rc->col[i];

	st->bad_content = true;
	if (rc->idcol[i] >= 0)
		return vtb_error("'%s' is damaged or crafted: table %s, row %lld: column %s %s",
				 st->path, c->table,
				 (long long)sqlite3_column_int64(s, rc->idcol[i]), c->name, what);
	return vtb_error("'%s' is damaged or crafted: table %s: column %s %s", st->path, c->table,
			 c->name, what);
}

static int row_check(struct vtb_store *st, sqlite3_stmt *s, const struct row_check *rc)
{
	for (int i = 0; i < rc->n; i++) {
		const struct ref_col *c = rc->col[i];
		const char *t;
		int type, len;

		/* a rowid is an integer: nothing to check */
		if (c && c->pk)
			continue;
		type = sqlite3_column_type(s, i);
		/* a computed column (coalesce, group_concat, a union): no table
		 * to name, but its text is still from the file */
		if (!c) {
			if (type != SQLITE_TEXT)
				continue;
			t = (const char *)sqlite3_column_text(s, i);
			len = sqlite3_column_bytes(s, i);
			if (!t)
				return vtb_error("cannot read '%s': out of memory", st->path);
			if (memchr(t, '\0', (size_t)len) || !vtb_utf8_valid(t, (size_t)len)) {
				st->bad_content = true;
				return vtb_error("'%s' is damaged or crafted: column %d (%s) of a query "
						 "is not UTF-8 text",
						 st->path, i + 1, sqlite3_column_name(s, i));
			}
			continue;
		}
		if (type == SQLITE_NULL) {
			/* NULL throughout: a row a LEFT JOIN did not find */
			if (c->notnull && !(rc->idcol[i] >= 0 &&
					    sqlite3_column_type(s, rc->idcol[i]) == SQLITE_NULL))
				return bad_row(st, s, rc, i, "is NULL, which the schema forbids");
			continue;
		}
		if (c->number) {
			if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
				return bad_row(st, s, rc, i, "is not a number");
			continue;
		}
		t = (const char *)sqlite3_column_text(s, i);
		len = sqlite3_column_bytes(s, i);
		if (!t)
			return vtb_error("cannot read '%s': out of memory", st->path);
		if (memchr(t, '\0', (size_t)len) || !vtb_utf8_valid(t, (size_t)len))
			return bad_row(st, s, rc, i, "is not UTF-8 text");
		if (c->json) {
			json_t *j = json_loadb(t, (size_t)len, JSON_DECODE_ANY, NULL);

			if (!j)
				return bad_row(st, s, rc, i, "is not JSON");
			json_decref(j);
		}
	}
	return 0;
}

/*
 * Runs @sql (its ?1 bound to @id when @id is not 0 or the query has a
 * parameter) and hands each row, checked (row_check), to @emit, which
 * converts the columns and calls the caller's callback; a negative return
 * stops the walk.
 */
static int query_each(struct vtb_store *st, const char *sql, int64_t id, const char *what,
		      int (*emit)(sqlite3_stmt *s, void *ctx), void *ctx)
{
	struct row_check rc = { 0 };
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	st->bad_content = false;
	if (prepare(st, sql, &s) < 0 || row_check_init(st, s, &rc) < 0)
		goto out;
	if (sqlite3_bind_parameter_count(s) > 0 && bind_int(s, 1, id)) {
		db_error(st, "bind the campaign");
		goto out;
	}
	for (;;) {
		if (step(st, s, what, &row) < 0)
			goto out;
		if (!row)
			break;
		if (row_check(st, s, &rc) < 0 || emit(s, ctx) < 0)
			goto out;
	}
	ret = 0;
out:
	row_check_release(&rc);
	sqlite3_finalize(s);
	return ret;
}

/*
 * Samples for compare.  One statement that joins, filters and sorts a
 * campaign's samples in SQL took 5 s for a million (a temporary B-tree
 * for ORDER BY, a window or a grouped subquery for the metric order);
 * instead the cells come from one small query and the samples from one
 * lean unordered statement (numbers and two short names), and the order
 * is made here: a counting sort by cell, then per cell by metric, rep
 * and id.  Metric and unit names are interned, so a sample is 32 bytes.
 */
struct lean_cell {
	int64_t id;
	char *config_key, *config_label, *kind, *cell_key, *cell_name, *workload, *pcpus;
	int cpus;
};

struct lean_sample {
	int64_t id;
	double value;
	uint32_t cell, metric; /* index in cells[], names[] */
	uint32_t unit : 31, better : 1;
	int32_t rep;
};

struct lean {
	struct lean_cell *cells;
	size_t ncells, cellcap;
	int64_t *cell_ids; /* cell_ids[i] and cell_pos[i]: cells by id, to look up */
	uint32_t *cell_pos;
	struct lean_sample *s;
	size_t n, cap;
	char **names; /* interned metric and unit names */
	size_t nnames;
	uint32_t *slots; /* open addressing over names: index + 1, 0 empty */
	size_t nslots;
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The index of @name in l->names, added when new; -1 when out of memory. */
static long intern(struct lean *l, const char *name)
{
	size_t i;

	if (2 * (l->nnames + 1) > l->nslots) {
		size_t n = l->nslots ? 2 * l->nslots : 64;
		uint32_t *g = calloc(n, sizeof(*g));
		char **names = realloc(l->names, n / 2 * sizeof(*names));

		if (!g || !names) {
			free(g);
			if (names)
				l->names = names;
			return -1;
		}
		l->names = names;
		for (size_t k = 0; k < l->nnames; k++) {
			for (i = name_hash(names[k]) & (n - 1); g[i]; i = (i + 1) & (n - 1))
				;
			g[i] = (uint32_t)k + 1;
		}
		free(l->slots);
		l->slots = g;
		l->nslots = n;
	}
	for (i = name_hash(name) & (l->nslots - 1); l->slots[i]; i = (i + 1) & (l->nslots - 1))
		if (!strcmp(l->names[l->slots[i] - 1], name))
			return (long)l->slots[i] - 1;
	l->names[l->nnames] = vtb_strdup(name);
	if (!l->names[l->nnames])
		return -1;
	l->slots[i] = (uint32_t)++l->nnames;
	return (long)l->nnames - 1;
}

static void lean_release(struct lean *l)
{
	for (size_t i = 0; i < l->ncells; i++) {
		struct lean_cell *c = &l->cells[i];

		free(c->config_key);
		free(c->config_label);
		free(c->kind);
		free(c->cell_key);
		free(c->cell_name);
		free(c->workload);
		free(c->pcpus);
	}
	free(l->cells);
	free(l->cell_ids);
	free(l->cell_pos);
	free(l->s);
	for (size_t i = 0; i < l->nnames; i++)
		free(l->names[i]);
	free(l->names);
	free(l->slots);
}

static int lean_add_cell(sqlite3_stmt *s, void *ctx)
{
	struct lean *l = ctx;
	struct lean_cell *c;

	if (l->ncells == l->cellcap) {
		size_t cap = l->cellcap ? 2 * l->cellcap : 64;
		struct lean_cell *g = realloc(l->cells, cap * sizeof(*g));

		if (!g)
			return vtb_error("out of memory");
		l->cells = g;
		l->cellcap = cap;
	}
	c = &l->cells[l->ncells++];
	*c = (struct lean_cell){
		.id = sqlite3_column_int64(s, 0),
		.config_key = vtb_strdup(column_text(s, 1)),
		.config_label = vtb_strdup(column_text(s, 2)),
		.kind = vtb_strdup(column_text(s, 3)),
		.cell_key = vtb_strdup(column_text(s, 4)),
		.cell_name = vtb_strdup(column_text(s, 5)),
		.workload = vtb_strdup(column_text(s, 6)),
		.cpus = sqlite3_column_int(s, 7),
		.pcpus = vtb_strdup(column_text(s, 8)),
	};
	if (!c->config_key || !c->config_label || !c->kind || !c->cell_key || !c->cell_name ||
	    !c->workload || !c->pcpus)
		return vtb_error("out of memory");
	return 0;
}

static int cell_id_cmp(const void *a, const void *b, void *ctx)
{
	const int64_t *ids = ctx;
	int64_t x = ids[*(const uint32_t *)a], y = ids[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

/* cell_ids[] sorted and cell_pos[] their matrix positions. */
static int lean_index_cells(struct lean *l)
{
	int64_t *ids = malloc((l->ncells + 1) * sizeof(*ids));
	uint32_t *pos = malloc((l->ncells + 1) * sizeof(*pos));
	bool sorted = true;

	if (!ids || !pos) {
		free(ids);
		free(pos);
		return vtb_error("out of memory");
	}
	for (size_t i = 0; i < l->ncells; i++) {
		ids[i] = l->cells[i].id;
		pos[i] = (uint32_t)i;
		sorted = sorted && (!i || ids[i - 1] < ids[i]);
	}
	l->cell_ids = ids;
	l->cell_pos = pos;
	if (!sorted) {
		int64_t *tmp = malloc((l->ncells + 1) * sizeof(*tmp));

		if (!tmp)
			return vtb_error("out of memory");
		/* positions by id, then the ids likewise */
		qsort_r(pos, l->ncells, sizeof(*pos), cell_id_cmp, ids);
		for (size_t i = 0; i < l->ncells; i++)
			tmp[i] = ids[pos[i]];
		l->cell_ids = tmp;
		free(ids);
	}
	return 0;
}

/* The matrix position of cell @id, or -1: not a cell of the campaign. */
static long lean_cell_pos(const struct lean *l, int64_t id)
{
	size_t lo = 0, hi = l->ncells;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->cell_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->ncells && l->cell_ids[lo] == id ? (long)l->cell_pos[lo] : -1;
}

static int lean_add_sample(sqlite3_stmt *s, void *ctx)
{
	struct lean *l = ctx;
	long cell = lean_cell_pos(l, sqlite3_column_int64(s, 0)), metric, unit;
	struct lean_sample *r;

	if (cell < 0)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		struct lean_sample *g = realloc(l->s, cap * sizeof(*g));

		if (!g)
			return vtb_error("out of memory");
		l->s = g;
		l->cap = cap;
	}
	metric = intern(l, column_text(s, 2));
	unit = intern(l, column_text(s, 3));
	if (metric < 0 || unit < 0)
		return vtb_error("out of memory");
	r = &l->s[l->n++];
	r->id = sqlite3_column_int64(s, 1);
	r->cell = (uint32_t)cell;
	r->metric = (uint32_t)metric;
	r->unit = (uint32_t)unit & 0x7fffffffU;
	r->better = sqlite3_column_int(s, 4) != 0;
	r->rep = sqlite3_column_int(s, 5);
	r->value = sqlite3_column_double(s, 6);
	return 0;
}

/* Within a cell: by metric (grouping), rep, id. */
static int sample_cmp(const void *a, const void *b, void *ctx)
{
	const struct lean_sample *s = ctx, *x = &s[*(const uint32_t *)a],
				 *y = &s[*(const uint32_t *)b];

	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	if (x->rep != y->rep)
		return x->rep < y->rep ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

struct group {
	size_t lo, hi; /* in the cell's slice of the order */
	int64_t first; /* the metric's first sample id in the cell */
};

static int group_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct group *)a)->first, y = ((const struct group *)b)->first;

	return x < y ? -1 : x > y;
}

static int emit_counts(sqlite3_stmt *s, void *ctx)
{
	int64_t *n = ctx;

	n[0] = sqlite3_column_int64(s, 0);
	n[1] = sqlite3_column_int64(s, 1);
	return 0;
}

/*
 * How compare's queries reach a campaign's rows of a large table (sample,
 * histogram, result).  A campaign with at least half the database's
 * boots: one scan of the table in rowid order, its lookups of results,
 * boots, cells and configurations then moving forward (0.3 s a million
 * samples; an empty histogram table costs nothing).  A smaller one: from
 * its configurations or boots through the indexes (0.8 s a million, but
 * no row of another campaign read).  *scan says which.
 */
static int campaign_scan(struct vtb_store *st, int64_t campaign_id, bool *scan)
{
	static const char share[] = "SELECT (SELECT count(*) FROM boot WHERE campaign_id = ?1),"
				    " (SELECT count(*) FROM boot)";
	int64_t counts[2] = { 0, 0 };

	if (query_each(st, share, campaign_id, "count boots", emit_counts, counts) < 0)
		return -1;
	*scan = 2 * counts[0] >= counts[1];
	return 0;
}

int vtb_store_foreach_sample(struct vtb_store *st, int64_t campaign_id,
			     int (*fn)(const struct vtb_sample_row *row, void *arg), void *arg)
{
	static const char cells[] =
		"SELECT cell.id, config.key, config.label, config.kind, cell.key, cell.name,"
		" cell.workload,"
		" CAST(coalesce(json_extract(config.params, '$.vcpus'),"
		"  json_extract(config.params, '$.cpus'), 0) AS INTEGER), config.cpus,"
		" config.id" /* for row_check() */
		" FROM cell JOIN config ON config.id = cell.config_id"
		" WHERE config.campaign_id = ?1 ORDER BY config.seq, cell.id";
	/* campaign_scan() chooses; both filter alike: ok results of boots
	 * that built the planned topology (a guest that built another did
	 * not run this configuration) */
	static const char scan[] = "SELECT result.cell_id, sample.id, sample.metric, sample.unit,"
				   " sample.better = 'higher', boot.rep, sample.value, result.id,"
				   " boot.id"
				   " FROM sample CROSS JOIN result ON result.id = sample.result_id"
				   " CROSS JOIN boot ON boot.id = result.boot_id"
				   " WHERE boot.campaign_id = ?1 AND result.status = 'ok'"
				   " AND boot.status <> 'unexpected-topology'";
	static const char seek[] = "SELECT result.cell_id, sample.id, sample.metric, sample.unit,"
				   " sample.better = 'higher', boot.rep, sample.value, result.id,"
				   " boot.id"
				   " FROM boot JOIN result ON result.boot_id = boot.id"
				   " JOIN sample ON sample.result_id = result.id"
				   " WHERE boot.campaign_id = ?1 AND result.status = 'ok'"
				   " AND boot.status <> 'unexpected-topology'";
	struct lean l = { 0 };
	bool by_scan = false;
	uint32_t *order = NULL;
	size_t *start = NULL;
	struct group *groups = NULL;
	size_t ngroups_cap = 0;
	int ret = -1;

	if (query_each(st, cells, campaign_id, "read cells", lean_add_cell, &l) < 0 ||
	    lean_index_cells(&l) < 0 || campaign_scan(st, campaign_id, &by_scan) < 0 ||
	    query_each(st, by_scan ? scan : seek, campaign_id, "read samples", lean_add_sample,
		       &l) < 0)
		goto out;
	/* counting sort by cell position, stable */
	order = malloc((l.n + 1) * sizeof(*order));
	start = calloc(l.ncells + 1, sizeof(*start));
	if (!order || !start) {
		vtb_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < l.n; i++)
		start[l.s[i].cell + 1]++;
	for (size_t c = 0; c < l.ncells; c++)
		start[c + 1] += start[c];
	{
		size_t *next = malloc((l.ncells + 1) * sizeof(*next));

		if (!next) {
			vtb_error("out of memory");
			goto out;
		}
		memcpy(next, start, (l.ncells + 1) * sizeof(*next));
		for (size_t i = 0; i < l.n; i++)
			order[next[l.s[i].cell]++] = (uint32_t)i;
		free(next);
	}
	for (size_t c = 0; c < l.ncells; c++) {
		const struct lean_cell *cell = &l.cells[c];
		size_t lo = start[c], hi = start[c + 1], ng = 0;

		if (lo == hi)
			continue;
		qsort_r(order + lo, hi - lo, sizeof(*order), sample_cmp, l.s);
		for (size_t i = lo; i < hi; i++) {
			const struct lean_sample *r = &l.s[order[i]];

			if (i == lo || r->metric != l.s[order[i - 1]].metric) {
				if (ng == ngroups_cap) {
					size_t cap = ngroups_cap ? 2 * ngroups_cap : 16;
					struct group *g = realloc(groups, cap * sizeof(*g));

					if (!g) {
						vtb_error("out of memory");
						goto out;
					}
					groups = g;
					ngroups_cap = cap;
				}
				groups[ng++] = (struct group){ i, i, r->id };
			}
			groups[ng - 1].hi = i + 1;
			if (r->id < groups[ng - 1].first)
				groups[ng - 1].first = r->id;
		}
		/* metrics in the order the workload reported them (STREAM:
		 * copy, scale, add, triad), not alphabetically */
		qsort(groups, ng, sizeof(*groups), group_cmp);
		for (size_t g = 0; g < ng; g++)
			for (size_t i = groups[g].lo; i < groups[g].hi; i++) {
				const struct lean_sample *r = &l.s[order[i]];
				struct vtb_sample_row row = {
					.config_key = cell->config_key,
					.config_label = cell->config_label,
					.kind = cell->kind,
					.cell_key = cell->cell_key,
					.cell_name = cell->cell_name,
					.workload = cell->workload,
					.metric = l.names[r->metric],
					.unit = l.names[r->unit],
					.better = r->better,
					.rep = r->rep,
					.value = r->value,
					.cpus = cell->cpus,
					.pcpus = cell->pcpus,
				};

				if (fn(&row, arg) < 0)
					goto out;
			}
	}
	ret = 0;
out:
	free(order);
	free(start);
	free(groups);
	lean_release(&l);
	return ret;
}

struct vm_boot_walk {
	int (*fn)(const struct vtb_vm_boot_row *row, void *arg);
	void *arg;
};

static int emit_vm_boot(sqlite3_stmt *s, void *ctx)
{
	struct vm_boot_walk *w = ctx;
	struct vtb_vm_boot_row r = {
		.config_key = column_text(s, 0),
		.config_label = column_text(s, 1),
		.plan_json = (const char *)sqlite3_column_text(s, 2),
		.status = column_text(s, 3),
		.guest_kernel = (const char *)sqlite3_column_text(s, 4),
		.levels = (const char *)sqlite3_column_text(s, 5),
		.digest = (const char *)sqlite3_column_text(s, 6),
		.placement_json = (const char *)sqlite3_column_text(s, 7),
		.topology_diff = (const char *)sqlite3_column_text(s, 8),
		.rep = sqlite3_column_int(s, 9),
		.vm_index = sqlite3_column_int(s, 10),
		.vms = sqlite3_column_int(s, 11),
		.topology_check = (const char *)sqlite3_column_text(s, 12),
		.params_json = column_text(s, 13),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_vm_boot(struct vtb_store *st, int64_t campaign_id,
			      int (*fn)(const struct vtb_vm_boot_row *row, void *arg), void *arg)
{
	static const char sel[] =
		"SELECT config.key, config.label, config.plan, boot.status, boot.guest_kernel,"
		" guest_view.levels, guest_view.digest, boot.placement, boot.topology_diff,"
		" boot.rep, boot.vm_index, boot.vms, boot.topology_check, config.params,"
		" boot.id, config.id, guest_view.boot_id" /* for row_check() */
		" FROM boot JOIN config ON config.id = boot.config_id"
		" LEFT JOIN guest_view ON guest_view.boot_id = boot.id"
		" WHERE boot.campaign_id = ?1 AND boot.kind = 'vm'"
		" ORDER BY config.seq, boot.rep, boot.vm_index";
	struct vm_boot_walk w = { fn, arg };

	return query_each(st, sel, campaign_id, "read VM boots", emit_vm_boot, &w);
}

struct run_walk {
	int (*fn)(const struct vtb_run_row *row, void *arg);
	void *arg;
};

static int emit_run(sqlite3_stmt *s, void *ctx)
{
	struct run_walk *w = ctx;
	struct vtb_run_row r = {
		.id = sqlite3_column_int64(s, 0),
		.uuid = column_text(s, 1),
		.hostname = column_text(s, 2),
		.matrix_path = column_text(s, 3),
		.version = column_text(s, 4),
		.status = column_text(s, 5),
		.started_ns = sqlite3_column_int64(s, 6),
		.ended_ns = sqlite3_column_int64(s, 7),
		.boots = sqlite3_column_int64(s, 8),
		.boots_ok = sqlite3_column_int64(s, 9),
		.boots_failed = sqlite3_column_int64(s, 10),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_run(struct vtb_store *st, int (*fn)(const struct vtb_run_row *row, void *arg),
			  void *arg)
{
	static const char sel[] =
		"SELECT campaign.id, campaign.uuid, host.hostname, campaign.matrix_path,"
		" campaign.version, campaign.status, campaign.started_ns,"
		" coalesce(campaign.ended_ns, 0), count(boot.id),"
		" coalesce(sum(boot.status = 'ok'), 0), coalesce(sum(boot.status != 'ok'), 0),"
		" host.id" /* for row_check() */
		" FROM campaign JOIN host ON host.id = campaign.host_id"
		" LEFT JOIN boot ON boot.campaign_id = campaign.id"
		" GROUP BY campaign.id ORDER BY campaign.started_ns, campaign.id";
	struct run_walk w = { fn, arg };

	return query_each(st, sel, 0, "read campaigns", emit_run, &w);
}

struct cell_walk {
	int (*fn)(const struct vtb_cell_row *row, void *arg);
	void *arg;
};

static int emit_cell(sqlite3_stmt *s, void *ctx)
{
	struct cell_walk *w = ctx;
	struct vtb_cell_row r = {
		.campaign_uuid = column_text(s, 0),
		.config_key = column_text(s, 1),
		.config_label = column_text(s, 2),
		.cell_key = column_text(s, 3),
		.cell_name = column_text(s, 4),
		.workload = column_text(s, 5),
		.params_json = column_text(s, 6),
		.boots = sqlite3_column_int64(s, 7),
		.ok = sqlite3_column_int64(s, 8),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_cell(struct vtb_store *st, int64_t campaign_id,
			   int (*fn)(const struct vtb_cell_row *row, void *arg), void *arg)
{
	static const char sel[] =
		"SELECT campaign.uuid, config.key, config.label, cell.key, cell.name,"
		" cell.workload, cell.params, count(result.id),"
		" coalesce(sum(result.status = 'ok'), 0),"
		" campaign.id, config.id, cell.id" /* for row_check() */
		" FROM cell JOIN config ON config.id = cell.config_id"
		" JOIN campaign ON campaign.id = config.campaign_id"
		" LEFT JOIN result ON result.cell_id = cell.id"
		" WHERE ?1 <= 0 OR campaign.id = ?1"
		" GROUP BY cell.id"
		" ORDER BY campaign.started_ns, campaign.id, config.seq, cell.id";
	struct cell_walk w = { fn, arg };

	return query_each(st, sel, campaign_id, "read cells", emit_cell, &w);
}

struct campaign_cell_walk {
	int (*fn)(const struct vtb_campaign_cell *row, void *arg);
	void *arg;
};

static int emit_campaign_cell(sqlite3_stmt *s, void *ctx)
{
	struct campaign_cell_walk *w = ctx;
	struct vtb_campaign_cell r = {
		.config_key = column_text(s, 0),
		.cell_key = column_text(s, 1),
		.cell_name = column_text(s, 2),
		.workload = column_text(s, 3),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_campaign_cell(struct vtb_store *st, int64_t campaign_id,
				    int (*fn)(const struct vtb_campaign_cell *row, void *arg),
				    void *arg)
{
	static const char sel[] = "SELECT config.key, cell.key, cell.name, cell.workload"
				  " FROM cell JOIN config ON config.id = cell.config_id"
				  " WHERE config.campaign_id = ?1 ORDER BY config.seq, cell.id";
	struct campaign_cell_walk w = { fn, arg };

	return query_each(st, sel, campaign_id, "read cells", emit_campaign_cell, &w);
}

int vtb_store_cell_outcome(struct vtb_store *st, int64_t campaign_id, const char *config_key,
			   const char *cell_key, struct vtb_cell_outcome *out)
{
	/* why the first result that is not ok is not: its boot's error for a
	 * cell without records ("no records for this cell" says less), else
	 * its own, else its boot's */
	static const char sel[] =
		"SELECT count(result.id),"
		" coalesce(sum(result.status = 'ok' AND boot.status <> 'unexpected-topology'), 0),"
		" coalesce(sum(boot.status = 'unexpected-topology'), 0),"
		" (SELECT CASE r.status WHEN 'missing' THEN coalesce(b.error, r.error)"
		"  ELSE coalesce(r.error, b.error) END FROM result r JOIN boot b ON b.id = r.boot_id"
		"  WHERE r.cell_id = cell.id AND r.status <> 'ok'"
		"  AND coalesce(r.error, b.error) IS NOT NULL ORDER BY b.rep, r.id LIMIT 1)"
		" FROM cell JOIN config ON config.id = cell.config_id"
		" LEFT JOIN result ON result.cell_id = cell.id"
		" LEFT JOIN boot ON boot.id = result.boot_id"
		" WHERE config.campaign_id = ?1 AND config.key = ?2 AND cell.key = ?3"
		" GROUP BY cell.id";
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (prepare(st, sel, &s) < 0)
		goto out;
	if (bind_int(s, 1, campaign_id) | bind_text(s, 2, config_key) | bind_text(s, 3, cell_key)) {
		db_error(st, "bind the cell");
		goto out;
	}
	if (step(st, s, "read a cell's results", &row) < 0)
		goto out;
	if (row) {
		out->results = sqlite3_column_int64(s, 0);
		out->usable = sqlite3_column_int64(s, 1);
		out->unexpected = sqlite3_column_int64(s, 2);
		if (sqlite3_column_text(s, 3) &&
		    !(out->error = vtb_strdup((const char *)sqlite3_column_text(s, 3)))) {
			vtb_error("out of memory");
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_boot_counts(struct vtb_store *st, int64_t campaign_id,
			  struct vtb_boot_counts *out)
{
	static const char sel[] =
		"SELECT count(*), coalesce(sum(status = 'ok'), 0),"
		" coalesce(sum(status = 'failed'), 0), coalesce(sum(status = 'timeout'), 0),"
		" coalesce(sum(status = 'unexpected-topology'), 0)"
		" FROM boot WHERE campaign_id = ?1";
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (prepare(st, sel, &s) < 0)
		goto out;
	if (bind_int(s, 1, campaign_id)) {
		db_error(st, "bind the campaign");
		goto out;
	}
	if (step(st, s, "count the boots", &row) < 0)
		goto out;
	if (row) {
		out->total = sqlite3_column_int64(s, 0);
		out->ok = sqlite3_column_int64(s, 1);
		out->failed = sqlite3_column_int64(s, 2);
		out->timeout = sqlite3_column_int64(s, 3);
		out->unexpected = sqlite3_column_int64(s, 4);
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

struct failure_walk {
	int (*fn)(const struct vtb_failure_row *row, void *arg);
	void *arg;
};

static int emit_failure(sqlite3_stmt *s, void *ctx)
{
	struct failure_walk *w = ctx;
	struct vtb_failure_row r = {
		.config_key = column_text(s, 0),
		.config_label = column_text(s, 1),
		.cell_name = column_text(s, 2),
		.status = column_text(s, 3),
		.reason = column_text(s, 4),
		.boots = sqlite3_column_int64(s, 5),
		.reps = column_text(s, 6),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_failure(struct vtb_store *st, int64_t campaign_id,
			      int (*fn)(const struct vtb_failure_row *row, void *arg), void *arg)
{
	/* boots that are not ok (all their cells with them), then the cells
	 * that failed in ok boots; alike failures grouped, with their reps */
	static const char sel[] =
		/* cell is NULL for a whole boot: an expression, so the row check
		 * does not take it for cell.name (NOT NULL) */
		"SELECT key, label, CAST(cell AS TEXT), status, reason, count(*),"
		" group_concat(rep, ',')"
		" FROM (SELECT config.seq AS seq, -1 AS cell_id, config.key AS key,"
		"  config.label AS label, NULL AS cell, boot.status AS status,"
		"  coalesce(boot.error, boot.topology_diff) AS reason, boot.rep AS rep"
		"  FROM boot JOIN config ON config.id = boot.config_id"
		"  WHERE boot.campaign_id = ?1 AND boot.status <> 'ok'"
		" UNION ALL SELECT config.seq, cell.id, config.key, config.label, cell.name,"
		"  result.status, coalesce(result.error, boot.error), boot.rep"
		"  FROM result JOIN boot ON boot.id = result.boot_id"
		"  JOIN cell ON cell.id = result.cell_id JOIN config ON config.id = boot.config_id"
		"  WHERE boot.campaign_id = ?1 AND boot.status = 'ok' AND result.status <> 'ok'"
		"  ORDER BY 1, 2, 8)"
		" GROUP BY seq, cell_id, status, reason ORDER BY seq, cell_id, min(rep)";
	struct failure_walk w = { fn, arg };

	return query_each(st, sel, campaign_id, "read the failures", emit_failure, &w);
}

int vtb_store_campaign_lookup(struct vtb_store *st, const char *spec, int64_t *campaign_id,
			      size_t *n)
{
	/* a prefix, not a LIKE pattern: '%' and '_' in @spec are literal */
	static const char sel[] = "SELECT id FROM campaign WHERE ?1 <> '' AND"
				  " substr(uuid, 1, length(?1)) = ?1"
				  " ORDER BY started_ns, id";
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	*n = 0;
	if (prepare(st, sel, &s) < 0)
		goto out;
	if (bind_text0(s, 1, spec)) {
		db_error(st, "bind the campaign");
		goto out;
	}
	for (;;) {
		if (step(st, s, "find the campaign", &row) < 0)
			goto out;
		if (!row)
			break;
		if (!(*n)++)
			*campaign_id = sqlite3_column_int64(s, 0);
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

struct campaign_walk {
	int (*fn)(const struct vtb_campaign_row *row, void *arg);
	void *arg;
};

static int emit_campaign(sqlite3_stmt *s, void *ctx)
{
	struct campaign_walk *w = ctx;
	struct vtb_campaign_row r = {
		.id = sqlite3_column_int64(s, 0),
		.uuid = column_text(s, 1),
		.matrix_path = column_text(s, 2),
		.matrix_digest = column_text(s, 3),
		.version = column_text(s, 4),
		.cmdline = column_text(s, 5),
		.status = column_text(s, 6),
		.host_state = column_text(s, 7),
		.started_ns = sqlite3_column_int64(s, 8),
		.ended_ns = sqlite3_column_int64(s, 9),
		.hostname = column_text(s, 10),
		.cpu_vendor = column_text(s, 11),
		.cpu_model_name = column_text(s, 12),
		.cpu_codename = column_text(s, 13),
		.host_kernel = column_text(s, 14),
		.topo_summary = column_text(s, 15),
		.topo_digest = column_text(s, 16),
		.accelerators = column_text(s, 17),
		.libvirt_versions = column_text(s, 18),
		.qemu_versions = column_text(s, 19),
		.guest_kernels = column_text(s, 20),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_campaign_get(struct vtb_store *st, int64_t campaign_id,
			   int (*fn)(const struct vtb_campaign_row *row, void *arg), void *arg)
{
#define DISTINCT(col)                                                                    \
	" coalesce((SELECT group_concat(v, char(10)) FROM (SELECT DISTINCT " col " AS v" \
	" FROM boot WHERE boot.campaign_id = campaign.id AND " col " IS NOT NULL"        \
	" ORDER BY v)), '')"
	static const char sel[] =
		"SELECT campaign.id, campaign.uuid, campaign.matrix_path, campaign.matrix_digest,"
		" campaign.version, campaign.cmdline, campaign.status, campaign.host_state,"
		" campaign.started_ns, coalesce(campaign.ended_ns, 0), host.hostname,"
		" host.cpu_vendor, host.cpu_model_name, host.cpu_codename, host.kernel,"
		" host.topo_summary, host.topo_digest,"
		/* clang-format off */
		DISTINCT("accelerator") "," DISTINCT("libvirt_version") ","
		DISTINCT("qemu_version") "," DISTINCT("guest_kernel") ","
		" host.id" /* for row_check() */
		" FROM campaign JOIN host ON host.id = campaign.host_id WHERE campaign.id = ?1";
	/* clang-format on */
#undef DISTINCT
	struct campaign_walk w = { fn, arg };

	return query_each(st, sel, campaign_id, "read the campaign", emit_campaign, &w);
}

struct config_walk {
	int (*fn)(const struct vtb_config_row *row, void *arg);
	void *arg;
};

static int emit_config(sqlite3_stmt *s, void *ctx)
{
	struct config_walk *w = ctx;
	struct vtb_config_row r = {
		.key = column_text(s, 0),
		.label = column_text(s, 1),
		.kind = column_text(s, 2),
		.params_json = column_text(s, 3),
		.cpus = column_text(s, 4),
		.runnable = sqlite3_column_int(s, 5) != 0,
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_config(struct vtb_store *st, int64_t campaign_id,
			     int (*fn)(const struct vtb_config_row *row, void *arg), void *arg)
{
	static const char sel[] = "SELECT key, label, kind, params, cpus, runnable, id FROM config"
				  " WHERE campaign_id = ?1 ORDER BY seq, id";
	struct config_walk w = { fn, arg };

	return query_each(st, sel, campaign_id, "read configurations", emit_config, &w);
}

struct hist_walk {
	int (*fn)(const struct vtb_hist_row *row, void *arg);
	void *arg;
};

static int emit_hist(sqlite3_stmt *s, void *ctx)
{
	struct hist_walk *w = ctx;
	struct vtb_hist_row r = {
		.config_key = column_text(s, 0),
		.cell_key = column_text(s, 1),
		.metric = column_text(s, 2),
		.unit = column_text(s, 3),
		.params_json = column_text(s, 4),
		.buckets_json = column_text(s, 5),
		.rep = sqlite3_column_int(s, 6),
		.cell_name = column_text(s, 7),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_hist(struct vtb_store *st, int64_t campaign_id,
			   int (*fn)(const struct vtb_hist_row *row, void *arg), void *arg)
{
#define HIST_COLS                                                        \
	"SELECT config.key, cell.key, histogram.metric, histogram.unit," \
	" histogram.params, histogram.buckets, boot.rep, cell.name,"     \
	" histogram.id, boot.id, cell.id, config.id" /* row_check() */
#define HIST_WHERE                                                          \
	" WHERE config.campaign_id = ?1 AND result.status = 'ok'"           \
	" AND boot.status <> 'unexpected-topology'"                         \
	" ORDER BY config.seq, cell.id,"                                    \
	" min(histogram.id) OVER (PARTITION BY cell.id, histogram.metric)," \
	" boot.rep, boot.vm_index, histogram.id"
	/* the ORDER BY sorts only the campaign's histograms */
	static const char scan[] = HIST_COLS
		" FROM histogram"
		" CROSS JOIN result ON result.id = histogram.result_id"
		" CROSS JOIN boot ON boot.id = result.boot_id"
		" CROSS JOIN cell ON cell.id = result.cell_id"
		" CROSS JOIN config ON config.id = cell.config_id" HIST_WHERE;
	static const char seek[] = HIST_COLS
		" FROM histogram"
		" JOIN result ON result.id = histogram.result_id"
		" JOIN boot ON boot.id = result.boot_id"
		" JOIN cell ON cell.id = result.cell_id"
		" JOIN config ON config.id = cell.config_id" HIST_WHERE;
#undef HIST_COLS
#undef HIST_WHERE
	struct hist_walk w = { fn, arg };
	bool by_scan = false;

	if (campaign_scan(st, campaign_id, &by_scan) < 0)
		return -1;
	return query_each(st, by_scan ? scan : seek, campaign_id, "read histograms", emit_hist, &w);
}

struct matrix_walk {
	int (*fn)(const struct vtb_matrix_row *row, void *arg);
	void *arg;
};

static int emit_matrix(sqlite3_stmt *s, void *ctx)
{
	struct matrix_walk *w = ctx;
	struct vtb_matrix_row r = {
		.config_key = column_text(s, 0),
		.cell_key = column_text(s, 1),
		.matrix_json = column_text(s, 2),
		.rep = sqlite3_column_int(s, 3),
		.cell_name = column_text(s, 4),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_matrix(struct vtb_store *st, int64_t campaign_id,
			     int (*fn)(const struct vtb_matrix_row *row, void *arg), void *arg)
{
#define C2C_COLS                                                              \
	"SELECT config.key, cell.key, json_extract(result.info, '$.matrix')," \
	" boot.rep, cell.name, boot.id, cell.id, config.id FROM result"
#define C2C_WHERE                                                            \
	" WHERE result.info IS NOT NULL AND config.campaign_id = ?1"         \
	" AND result.status = 'ok' AND boot.status <> 'unexpected-topology'" \
	" AND json_type(result.info, '$.matrix') = 'object'"                 \
	" ORDER BY config.seq, cell.id, boot.rep, boot.vm_index"
	static const char scan[] = C2C_COLS
		" CROSS JOIN boot ON boot.id = result.boot_id"
		" CROSS JOIN cell ON cell.id = result.cell_id"
		" CROSS JOIN config ON config.id = cell.config_id" C2C_WHERE;
	static const char seek[] = C2C_COLS " JOIN boot ON boot.id = result.boot_id"
					    " JOIN cell ON cell.id = result.cell_id"
					    " JOIN config ON config.id = cell.config_id" C2C_WHERE;
#undef C2C_COLS
#undef C2C_WHERE
	struct matrix_walk w = { fn, arg };
	bool by_scan = false;

	if (campaign_scan(st, campaign_id, &by_scan) < 0)
		return -1;
	return query_each(st, by_scan ? scan : seek, campaign_id, "read c2c matrices", emit_matrix,
			  &w);
}

struct stream_rule_walk {
	int (*fn)(const struct vtb_stream_rule_row *row, void *arg);
	void *arg;
};

static int emit_stream_rule(sqlite3_stmt *s, void *ctx)
{
	struct stream_rule_walk *w = ctx;
	struct vtb_stream_rule_row r = {
		.config_key = column_text(s, 0),
		.config_kind = column_text(s, 1),
		.cell_name = column_text(s, 2),
		.array_min = sqlite3_column_int64(s, 3),
		.array_max = sqlite3_column_int64(s, 4),
		.rule_bytes = sqlite3_column_int64(s, 5),
		.boots = sqlite3_column_int64(s, 6),
		.llc_source = column_text(s, 7),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_stream_rule(struct vtb_store *st, int64_t campaign_id,
				  int (*fn)(const struct vtb_stream_rule_row *row, void *arg),
				  void *arg)
{
	/* results stored before the rule's size was recorded: 4 x llc_bytes */
	static const char sql[] =
		"SELECT config.key, config.kind, cell.name,"
		" min(json_extract(result.info, '$.array_bytes')),"
		" max(json_extract(result.info, '$.array_bytes')),"
		" max(coalesce(json_extract(result.info, '$.stream_rule_bytes'),"
		"  4 * json_extract(result.info, '$.llc_bytes'))),"
		" count(DISTINCT result.boot_id), max(json_extract(result.info, '$.llc_source'))"
		" FROM result JOIN cell ON cell.id = result.cell_id"
		" JOIN config ON config.id = cell.config_id"
		" WHERE config.campaign_id = ?1 AND result.status = 'ok'"
		" AND result.info IS NOT NULL AND json_valid(result.info)"
		" AND json_extract(result.info, '$.stream_rule') = 'below STREAM rule'"
		" GROUP BY config.id, cell.id ORDER BY config.seq, cell.id";
	struct stream_rule_walk w = { fn, arg };

	return query_each(st, sql, campaign_id, "read membw's STREAM rule notes",
			  emit_stream_rule, &w);
}

/* ---- upload ---- */

static char *col_dup(sqlite3_stmt *s, int i)
{
	const char *t = column_text(s, i);

	return t ? vtb_strdup(t) : NULL;
}

void vtb_upload_campaign_release(struct vtb_upload_campaign *c)
{
	if (!c)
		return;
	free(c->uuid);
	free(c->status);
	free(c->hostname);
	free(c->host_kernel);
	memset(c, 0, sizeof(*c));
}

int vtb_store_upload_campaign(struct vtb_store *st, const char *uuid,
			      struct vtb_upload_campaign *out, bool *found)
{
	static const char sel[] =
		"SELECT campaign.id, campaign.uuid, campaign.status, host.hostname, host.kernel,"
		" campaign.started_ns, coalesce(campaign.ended_ns, 0), host.id"
		" FROM campaign JOIN host ON host.id = campaign.host_id"
		" WHERE ?1 IS NULL OR campaign.uuid = ?1"
		" ORDER BY campaign.started_ns DESC, campaign.id DESC LIMIT 1";
	struct row_check rc = { 0 };
	sqlite3_stmt *s = NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	*found = false;
	st->bad_content = false;
	if (prepare(st, sel, &s) < 0 || row_check_init(st, s, &rc) < 0)
		goto out;
	if (bind_text(s, 1, uuid)) {
		db_error(st, "bind the campaign");
		goto out;
	}
	if (step(st, s, "find the campaign", found) < 0)
		goto out;
	if (*found && row_check(st, s, &rc) < 0) {
		*found = false;
		goto out;
	}
	if (*found) {
		out->id = sqlite3_column_int64(s, 0);
		out->uuid = col_dup(s, 1);
		out->status = col_dup(s, 2);
		out->hostname = col_dup(s, 3);
		out->host_kernel = col_dup(s, 4);
		out->started_ns = sqlite3_column_int64(s, 5);
		out->ended_ns = sqlite3_column_int64(s, 6);
		if (!out->uuid || !out->status || !out->hostname || !out->host_kernel) {
			vtb_upload_campaign_release(out);
			*found = false;
			vtb_error("out of memory");
			goto out;
		}
	}
	ret = 0;
out:
	row_check_release(&rc);
	sqlite3_finalize(s);
	return ret;
}

struct upload_walk {
	int (*fn)(const struct vtb_upload_row *row, void *arg);
	void *arg;
};

static int emit_upload_row(sqlite3_stmt *s, void *ctx)
{
	struct upload_walk *w = ctx;
	struct vtb_upload_row r = {
		.boot_id = sqlite3_column_int64(s, 0),
		.boot_uuid = column_text(s, 1),
		.boot_kind = column_text(s, 2),
		.boot_status = column_text(s, 3),
		.started_ns = sqlite3_column_int64(s, 4),
		.accelerator = column_text(s, 5),
		.guest_kernel = column_text(s, 6),
		.config_key = column_text(s, 7),
		.config_label = column_text(s, 8),
		.config_params = column_text(s, 9),
		.cpus = sqlite3_column_int(s, 10),
		.sent = sqlite3_column_int(s, 11) != 0,
		.cell_key = column_text(s, 12),
		.cell_name = column_text(s, 13),
		.workload = column_text(s, 14),
		.metric = column_text(s, 15),
		.unit = column_text(s, 16),
		.better = column_text(s, 17) && !strcmp(column_text(s, 17), "higher"),
		.value = sqlite3_column_double(s, 18),
		.rep = sqlite3_column_int(s, 19),
		.vm_index = sqlite3_column_int(s, 20),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_upload_row(struct vtb_store *st, int64_t campaign_id, const char *sink,
				 int (*fn)(const struct vtb_upload_row *row, void *arg), void *arg)
{
	static const char sel[] =
		"SELECT boot.id, boot.uuid, boot.kind, boot.status, boot.started_ns,"
		" boot.accelerator, boot.guest_kernel, config.key, config.label, config.params,"
		" CAST(coalesce(json_extract(config.params, '$.vcpus'),"
		"  json_extract(config.params, '$.cpus'), 0) AS INTEGER),"
		" EXISTS (SELECT 1 FROM upload WHERE upload.boot_id = boot.id"
		"  AND upload.sink = ?2 AND upload.status = 'sent'),"
		" s.cell_key, s.cell_name, s.workload, s.metric, s.unit, s.better, s.value,"
		" boot.rep, boot.vm_index,"
		" config.id, s.cell_id, s.sample_id" /* for row_check() */
		" FROM boot JOIN config ON config.id = boot.config_id"
		" LEFT JOIN (SELECT result.boot_id AS boot_id, cell.key AS cell_key,"
		"  cell.name AS cell_name, cell.workload AS workload, cell.id AS cell_id,"
		"  sample.metric AS metric, sample.unit AS unit, sample.better AS better,"
		"  sample.value AS value, sample.id AS sample_id,"
		"  min(sample.id) OVER (PARTITION BY cell.id, sample.metric) AS metric_order"
		"  FROM sample JOIN result ON result.id = sample.result_id"
		"  JOIN cell ON cell.id = result.cell_id WHERE result.status = 'ok') AS s"
		" ON s.boot_id = boot.id AND boot.status <> 'unexpected-topology'"
		" WHERE boot.campaign_id = ?1"
		" ORDER BY boot.started_ns, boot.id, s.cell_id, s.metric_order, s.sample_id";
	struct upload_walk w = { fn, arg };
	struct row_check rc = { 0 };
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	st->bad_content = false;
	if (prepare(st, sel, &s) < 0 || row_check_init(st, s, &rc) < 0)
		goto out;
	if (bind_int(s, 1, campaign_id) || bind_text(s, 2, sink)) {
		db_error(st, "bind the upload query");
		goto out;
	}
	for (;;) {
		if (step(st, s, "read the boots to upload", &row) < 0)
			goto out;
		if (!row)
			break;
		if (row_check(st, s, &rc) < 0 || emit_upload_row(s, &w) < 0)
			goto out;
	}
	ret = 0;
out:
	row_check_release(&rc);
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_upload_mark(struct vtb_store *st, int64_t campaign_id, const char *sink,
			  const char *what, const int64_t *boot_ids, const long *points, size_t n,
			  const char *status, const char *error)
{
	/* a boot is recorded once per sink: a failure is replaced by the
	 * next outcome, a success never */
	static const char ins[] =
		"INSERT INTO upload (campaign_id, boot_id, sink, what, time_ns, status, points,"
		" error) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
		" ON CONFLICT (boot_id, sink) WHERE boot_id IS NOT NULL DO UPDATE SET"
		" time_ns = excluded.time_ns, status = excluded.status,"
		" points = excluded.points, error = excluded.error"
		" WHERE upload.status <> 'sent'";
	sqlite3_stmt *s = NULL;
	int64_t now = realtime_ns();
	size_t i, rows = n ? n : 1;
	int ret = -1;

	if (begin(st) < 0)
		return -1;
	if (prepare(st, ins, &s) < 0)
		goto out;
	for (i = 0; i < rows; i++) {
		sqlite3_reset(s);
		if (bind_int(s, 1, campaign_id) || bind_id(s, 2, n ? boot_ids[i] : 0) ||
		    bind_text(s, 3, sink) || bind_text(s, 4, what) || bind_int(s, 5, now) ||
		    bind_text(s, 6, status) || bind_int(s, 7, points ? points[i] : 0) ||
		    bind_text(s, 8, error)) {
			db_error(st, "bind an upload record");
			goto out;
		}
		if (step(st, s, "record an upload", NULL) < 0)
			goto out;
	}
	if (commit(st) < 0)
		goto out;
	ret = 0;
out:
	if (ret < 0)
		rollback(st);
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_upload_item_sent(struct vtb_store *st, int64_t campaign_id, const char *sink,
			       const char *what, bool *sent)
{
	static const char sel[] = "SELECT 1 FROM upload WHERE campaign_id = ?1 AND sink = ?2"
				  " AND what = ?3 AND boot_id IS NULL AND status = 'sent'";
	sqlite3_stmt *s = NULL;
	int ret = -1;

	*sent = false;
	if (prepare(st, sel, &s) < 0)
		goto out;
	if (bind_int(s, 1, campaign_id) || bind_text(s, 2, sink) || bind_text(s, 3, what)) {
		db_error(st, "bind the upload query");
		goto out;
	}
	if (step(st, s, "read the upload records", sent) < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/*
 * Merge (vtbench merge).  The input is attached to the output's
 * connection as schema "vtbin" (the file itself when it has the current
 * schema; else a copy migrated in memory, as vtb_store_open_ro does) and
 * copied with INSERT ... SELECT in one transaction.  Natural keys carry
 * the identity across databases: a host by its identity columns, a
 * campaign and a boot by uuid, a configuration by (campaign, key), a cell
 * by (configuration, key), a result by (boot, cell).  temp.m_* tables map
 * the input's ids to the output's.  A campaign whose uuid is already in
 * the output is skipped whole, so merging again adds nothing.
 */
/* schema 7 added no column (an index on sample) */
_Static_assert(VTB_STORE_SCHEMA == 7,
	       "vtb_store_merge copies the columns of schema 7: add the new ones");

struct merge_step {
	const char *sql;
	size_t off; /* counter in struct vtb_merge_stats, or (size_t)-1 */
};

#define MERGE_NONE ((size_t)-1)
#define MERGE_COUNT(m) offsetof(struct vtb_merge_stats, m)

static const struct merge_step merge_steps[] = {
	{ "CREATE TEMP TABLE m_host (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);"
	  "CREATE TEMP TABLE m_campaign (src INTEGER PRIMARY KEY, dst INTEGER);"
	  "CREATE TEMP TABLE m_config (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);"
	  "CREATE TEMP TABLE m_cell (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);"
	  "CREATE TEMP TABLE m_boot (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);"
	  "CREATE TEMP TABLE m_result (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);",
	  MERGE_NONE },
	/* campaigns the output lacks */
	{ "INSERT INTO temp.m_campaign (src) SELECT id FROM vtbin.campaign"
	  " WHERE uuid NOT IN (SELECT uuid FROM main.campaign)",
	  MERGE_COUNT(campaigns) },
	{ "INSERT INTO main.host (hostname, cpu_vendor, cpu_family, cpu_model, cpu_model_name,"
	  " cpu_codename, topo_digest, topo_summary, kernel)"
	  " SELECT hostname, cpu_vendor, cpu_family, cpu_model, cpu_model_name, cpu_codename,"
	  " topo_digest, topo_summary, kernel FROM vtbin.host WHERE id IN (SELECT host_id FROM"
	  " vtbin.campaign c JOIN temp.m_campaign m ON m.src = c.id) ORDER BY id"
	  " ON CONFLICT DO NOTHING",
	  MERGE_COUNT(hosts) },
	{ "INSERT INTO temp.m_host (src, dst) SELECT s.id, d.id FROM vtbin.host s"
	  " JOIN main.host d ON d.hostname = s.hostname AND d.cpu_vendor = s.cpu_vendor"
	  " AND d.cpu_family = s.cpu_family AND d.cpu_model = s.cpu_model"
	  " AND d.cpu_model_name = s.cpu_model_name AND d.cpu_codename = s.cpu_codename"
	  " AND d.topo_digest = s.topo_digest AND d.topo_summary = s.topo_summary"
	  " AND d.kernel = s.kernel",
	  MERGE_NONE },
	{ "INSERT INTO main.campaign (uuid, host_id, matrix_path, matrix_text, matrix_digest,"
	  " version, cmdline, started_ns, ended_ns, status, host_state)"
	  " SELECT c.uuid, h.dst, c.matrix_path, c.matrix_text, c.matrix_digest, c.version,"
	  " c.cmdline, c.started_ns, c.ended_ns, c.status, c.host_state FROM vtbin.campaign c"
	  " JOIN temp.m_campaign m ON m.src = c.id JOIN temp.m_host h ON h.src = c.host_id"
	  " ORDER BY c.id",
	  MERGE_NONE },
	{ "UPDATE temp.m_campaign SET dst = (SELECT d.id FROM main.campaign d"
	  " JOIN vtbin.campaign s ON s.uuid = d.uuid WHERE s.id = m_campaign.src)",
	  MERGE_NONE },
	{ "INSERT INTO main.config (campaign_id, key, kind, label, params, cpus, mems, runnable,"
	  " why_not, seq, plan) SELECT m.dst, c.key, c.kind, c.label, c.params, c.cpus, c.mems,"
	  " c.runnable, c.why_not, c.seq, c.plan FROM vtbin.config c"
	  " JOIN temp.m_campaign m ON m.src = c.campaign_id ORDER BY c.id",
	  MERGE_COUNT(configs) },
	{ "INSERT INTO temp.m_config (src, dst) SELECT s.id, d.id FROM vtbin.config s"
	  " JOIN temp.m_campaign m ON m.src = s.campaign_id"
	  " JOIN main.config d ON d.campaign_id = m.dst AND d.key = s.key",
	  MERGE_NONE },
	{ "INSERT INTO main.cell (config_id, key, name, workload, params, resolved)"
	  " SELECT m.dst, c.key, c.name, c.workload, c.params, c.resolved FROM vtbin.cell c"
	  " JOIN temp.m_config m ON m.src = c.config_id ORDER BY c.id",
	  MERGE_COUNT(cells) },
	{ "INSERT INTO temp.m_cell (src, dst) SELECT s.id, d.id FROM vtbin.cell s"
	  " JOIN temp.m_config m ON m.src = s.config_id"
	  " JOIN main.cell d ON d.config_id = m.dst AND d.key = s.key",
	  MERGE_NONE },
	{ "INSERT INTO main.boot (uuid, campaign_id, config_id, rep, status, error, started_ns,"
	  " ended_ns, nonce, cpus, confinement, header, stderr_tail, detail, noise_lines, records,"
	  " kind, accelerator, cpu_model, guest_kernel, libvirt_version, qemu_version, live_xml,"
	  " console_tail, vm_index, vms, group_uuid, claims, placement, probe, sched,"
	  " topology_check, topology_diff)"
	  " SELECT b.uuid, mc.dst, mf.dst, b.rep, b.status, b.error, b.started_ns, b.ended_ns,"
	  " b.nonce, b.cpus, b.confinement, b.header, b.stderr_tail, b.detail, b.noise_lines,"
	  " b.records, b.kind, b.accelerator, b.cpu_model, b.guest_kernel, b.libvirt_version,"
	  " b.qemu_version, b.live_xml, b.console_tail, b.vm_index, b.vms, b.group_uuid,"
	  " b.claims, b.placement, b.probe, b.sched, b.topology_check, b.topology_diff"
	  " FROM vtbin.boot b JOIN temp.m_campaign mc ON mc.src = b.campaign_id"
	  " JOIN temp.m_config mf ON mf.src = b.config_id ORDER BY b.id",
	  MERGE_COUNT(boots) },
	{ "INSERT INTO temp.m_boot (src, dst) SELECT s.id, d.id FROM vtbin.boot s"
	  " JOIN temp.m_campaign m ON m.src = s.campaign_id JOIN main.boot d ON d.uuid = s.uuid",
	  MERGE_NONE },
	{ "INSERT INTO main.result (boot_id, cell_id, status, error, seconds, info)"
	  " SELECT mb.dst, ml.dst, r.status, r.error, r.seconds, r.info FROM vtbin.result r"
	  " JOIN temp.m_boot mb ON mb.src = r.boot_id JOIN temp.m_cell ml ON ml.src = r.cell_id"
	  " ORDER BY r.id",
	  MERGE_COUNT(results) },
	{ "INSERT INTO temp.m_result (src, dst) SELECT s.id, d.id FROM vtbin.result s"
	  " JOIN temp.m_boot mb ON mb.src = s.boot_id JOIN temp.m_cell ml ON ml.src = s.cell_id"
	  " JOIN main.result d ON d.boot_id = mb.dst AND d.cell_id = ml.dst",
	  MERGE_NONE },
	/* sample order is the order the workload reported: keep it */
	{ "INSERT INTO main.sample (result_id, metric, unit, value, better)"
	  " SELECT m.dst, x.metric, x.unit, x.value, x.better FROM vtbin.sample x"
	  " JOIN temp.m_result m ON m.src = x.result_id ORDER BY x.id",
	  MERGE_COUNT(samples) },
	{ "INSERT INTO main.histogram (result_id, metric, unit, params, buckets)"
	  " SELECT m.dst, x.metric, x.unit, x.params, x.buckets FROM vtbin.histogram x"
	  " JOIN temp.m_result m ON m.src = x.result_id ORDER BY x.id",
	  MERGE_COUNT(histograms) },
	{ "INSERT INTO main.guest_view (boot_id, view, tree, digest, levels, cpuid, steal_before,"
	  " steal_after) SELECT m.dst, g.view, g.tree, g.digest, g.levels, g.cpuid,"
	  " g.steal_before, g.steal_after FROM vtbin.guest_view g"
	  " JOIN temp.m_boot m ON m.src = g.boot_id ORDER BY g.boot_id",
	  MERGE_COUNT(guest_views) },
	{ "INSERT INTO main.event (campaign_id, boot_id, time_ns, level, message)"
	  " SELECT mc.dst, mb.dst, e.time_ns, e.level, e.message FROM vtbin.event e"
	  " JOIN temp.m_campaign mc ON mc.src = e.campaign_id"
	  " LEFT JOIN temp.m_boot mb ON mb.src = e.boot_id ORDER BY e.id",
	  MERGE_COUNT(events) },
	{ "INSERT INTO main.upload (campaign_id, boot_id, sink, what, time_ns, status, points,"
	  " error) SELECT mc.dst, mb.dst, u.sink, u.what, u.time_ns, u.status, u.points, u.error"
	  " FROM vtbin.upload u JOIN temp.m_campaign mc ON mc.src = u.campaign_id"
	  " LEFT JOIN temp.m_boot mb ON mb.src = u.boot_id ORDER BY u.id",
	  MERGE_COUNT(uploads) },
};

static const char merge_drop[] = "DROP TABLE IF EXISTS temp.m_host;"
				 "DROP TABLE IF EXISTS temp.m_campaign;"
				 "DROP TABLE IF EXISTS temp.m_config;"
				 "DROP TABLE IF EXISTS temp.m_cell;"
				 "DROP TABLE IF EXISTS temp.m_boot;"
				 "DROP TABLE IF EXISTS temp.m_result;";

/* Attaches @path as "vtbin": the file itself when open_ro found the
 * current schema, else an in-memory database the migrated copy is backed
 * up into. */
static int merge_attach(struct vtb_store *out, const char *path)
{
	struct vtb_store *in = NULL;
	sqlite3_stmt *s = NULL;
	sqlite3_backup *b;
	bool copy;
	int rc, ret = -1;

	/* refuses a newer schema or a foreign file; migrates an older one */
	if (vtb_store_open_ro(path, &in) < 0)
		goto out;
	copy = !sqlite3_db_filename(in->db, "main")[0];
	if (prepare(out, "ATTACH ?1 AS vtbin", &s) < 0)
		goto out;
	if (sqlite3_bind_text(s, 1, copy ? ":memory:" : path, -1, SQLITE_STATIC) != SQLITE_OK) {
		db_error(out, "bind the input");
		goto out;
	}
	if (step(out, s, "attach the input", NULL) < 0)
		goto out;
	if (copy) {
		b = sqlite3_backup_init(out->db, "vtbin", in->db, "main");
		if (!b) {
			vtb_error("cannot copy '%s' to merge it: %s", path,
				  sqlite3_errmsg(out->db));
			goto detach;
		}
		rc = sqlite3_backup_step(b, -1);
		sqlite3_backup_finish(b);
		if (rc != SQLITE_DONE) {
			vtb_error("cannot copy '%s' to merge it: %s", path, sqlite3_errstr(rc));
			goto detach;
		}
	}
	ret = 0;
	goto out;
detach:
	sqlite3_exec(out->db, "DETACH vtbin", NULL, NULL, NULL);
out:
	sqlite3_finalize(s);
	vtb_store_close(in);
	return ret;
}

/* Reports each campaign of the input, merged or skipped. */
static int merge_report(struct vtb_store *out, const char *path, long *skipped,
			int (*fn)(const struct vtb_merge_campaign *c, void *arg), void *arg)
{
	static const char sel[] = "SELECT c.uuid, h.hostname, c.status, c.started_ns,"
				  " (SELECT count(*) FROM vtbin.boot b WHERE b.campaign_id = c.id),"
				  " c.id IN (SELECT src FROM temp.m_campaign)"
				  " FROM vtbin.campaign c JOIN vtbin.host h ON h.id = c.host_id"
				  " ORDER BY c.started_ns, c.id";
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	if (prepare(out, sel, &s) < 0)
		return -1;
	for (;;) {
		struct vtb_merge_campaign c;

		if (step(out, s, "read the input's campaigns", &row) < 0)
			goto out;
		if (!row)
			break;
		c = (struct vtb_merge_campaign){
			.input = path,
			.uuid = column_text(s, 0),
			.hostname = column_text(s, 1),
			.status = column_text(s, 2),
			.started_ns = sqlite3_column_int64(s, 3),
			.boots = sqlite3_column_int64(s, 4),
			.merged = sqlite3_column_int(s, 5) != 0,
		};
		*skipped += !c.merged;
		if (fn && fn(&c, arg) < 0)
			goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_merge(struct vtb_store *out, const char *path, struct vtb_merge_stats *stats,
		    int (*fn)(const struct vtb_merge_campaign *c, void *arg), void *arg)
{
	struct vtb_merge_stats got = { 0 };
	bool attached = false;
	int ret = -1;

	if (out->ro)
		return vtb_error("'%s' is open read-only: cannot merge into it", out->path);
	if (merge_attach(out, path) < 0)
		goto out;
	attached = true;
	if (begin(out) < 0)
		goto out;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(merge_steps); i++) {
		if (exec_sql(out, merge_steps[i].sql, "merge") < 0) {
			vtb_error("cannot merge '%s' into '%s': %s", path, out->path,
				  sqlite3_errmsg(out->db));
			goto out;
		}
		if (merge_steps[i].off != MERGE_NONE)
			*(long *)((char *)&got + merge_steps[i].off) = sqlite3_changes(out->db);
	}
	if (merge_report(out, path, &got.skipped, fn, arg) < 0 ||
	    exec_sql(out, merge_drop, "drop the merge tables") < 0 || commit(out) < 0)
		goto out;
	ret = 0;
out:
	if (ret < 0) {
		rollback(out);
		sqlite3_exec(out->db, merge_drop, NULL, NULL, NULL);
	}
	if (attached && exec_sql(out, "DETACH vtbin", "detach the input") < 0)
		ret = -1;
	if (ret == 0 && stats)
		*stats = got;
	return ret;
}
