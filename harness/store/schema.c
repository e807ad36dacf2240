/* SPDX-License-Identifier: MIT */
/*
 * The store's schema: the migrations, opening and creating a database,
 * and the schema as the reference every database opened (its objects)
 * and every row read are checked against.
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
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <jansson.h>

#include "store-int.h"

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
	/* 8: guest kernels as an axis (issue 19): which image a VM boot ran */
	"-- boot: the guest kernel's identity besides its release (guest_kernel):\n"
	"-- the sha256 of the image booted and of its .config when known; the\n"
	"-- index finds an image's probe (its sched knobs) for plan and run\n"
	"ALTER TABLE boot ADD COLUMN guest_kernel_sha256 TEXT;\n"
	"ALTER TABLE boot ADD COLUMN guest_kernel_config_sha256 TEXT;\n"
	"CREATE INDEX boot_kernel ON boot (guest_kernel_sha256);\n",
	/* 9: vtbench explore's race (issue 19): its outcome and every
	 * elimination with its round and evidence */
	"-- race: the racing search of a campaign (vtbench explore): its objective\n"
	"-- (JSON: cell, metric, class, better per metric), the candidates'\n"
	"-- configuration keys in race order, why it stopped, the winner then the\n"
	"-- survivors tied with it (configuration keys), rounds and candidate boots\n"
	"CREATE TABLE race (\n"
	"	campaign_id INTEGER PRIMARY KEY REFERENCES campaign (id) ON DELETE CASCADE,\n"
	"	objective TEXT NOT NULL CHECK (json_valid(objective)),\n"
	"	candidates TEXT NOT NULL CHECK (json_valid(candidates)),\n"
	"	stop TEXT NOT NULL CHECK (stop IN ('running', 'one', 'same', 'budget',\n"
	"		'rounds', 'empty', 'time', 'interrupted')),\n"
	"	winners TEXT NOT NULL CHECK (json_valid(winners)),\n"
	"	rounds INTEGER NOT NULL,\n"
	"	boots INTEGER NOT NULL,\n"
	"	updated_ns INTEGER NOT NULL\n"
	");\n"
	"-- race_elimination: a candidate the race dropped: the round, the\n"
	"-- objective metric (CELL/METRIC) that decided, the best it lost to,\n"
	"-- worse or missing, and the evidence (JSON: change, interval, p, q,\n"
	"-- test, boots a side, the round's family and adjustment)\n"
	"CREATE TABLE race_elimination (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,\n"
	"	round INTEGER NOT NULL,\n"
	"	config_key TEXT NOT NULL,\n"
	"	metric TEXT NOT NULL,\n"
	"	best_key TEXT NOT NULL,\n"
	"	reason TEXT NOT NULL CHECK (reason IN ('worse', 'missing')),\n"
	"	evidence TEXT NOT NULL CHECK (json_valid(evidence)),\n"
	"	UNIQUE (campaign_id, config_key)\n"
	");\n",
	/* 10: the race's futility stop (explore's futility = yes): a CHECK
	 * list cannot be altered, so the table is rebuilt (foreign keys are
	 * off during migrate(); race_elimination refers to campaign, not to
	 * race) and every row copied */
	"-- race: stop 'futile' (no open comparison could be decided within the\n"
	"-- rounds and boots left) and its evidence (JSON: survivors, the last\n"
	"-- round reachable, each open comparison's boots needed a side)\n"
	"CREATE TABLE race_v10 (\n"
	"	campaign_id INTEGER PRIMARY KEY REFERENCES campaign (id) ON DELETE CASCADE,\n"
	"	objective TEXT NOT NULL CHECK (json_valid(objective)),\n"
	"	candidates TEXT NOT NULL CHECK (json_valid(candidates)),\n"
	"	stop TEXT NOT NULL CHECK (stop IN ('running', 'one', 'same', 'budget',\n"
	"		'rounds', 'empty', 'futile', 'time', 'interrupted')),\n"
	"	winners TEXT NOT NULL CHECK (json_valid(winners)),\n"
	"	rounds INTEGER NOT NULL,\n"
	"	boots INTEGER NOT NULL,\n"
	"	updated_ns INTEGER NOT NULL,\n"
	"	stop_evidence TEXT CHECK (stop_evidence IS NULL OR json_valid(stop_evidence))\n"
	");\n"
	"INSERT INTO race_v10 (campaign_id, objective, candidates, stop, winners, rounds, boots,\n"
	"	updated_ns)\n"
	"	SELECT campaign_id, objective, candidates, stop, winners, rounds, boots, updated_ns\n"
	"	FROM race ORDER BY campaign_id;\n"
	"DROP TABLE race;\n"
	"ALTER TABLE race_v10 RENAME TO race;\n",
	/* 11: upload's status 'in-flight' (issue 25): a sink whose resend is
	 * not harmless is recorded before the request, so an answer the
	 * store could not record is known at the next upload.  A CHECK list
	 * cannot be altered: the table is rebuilt as in step 10 (nothing
	 * refers to upload) and its indexes made again */
	"-- upload: status 'in-flight': recorded before a request to a sink whose\n"
	"-- resend would count twice (Codespeed, generic JSON), replaced by its\n"
	"-- outcome; still there, the server's answer was never recorded\n"
	"CREATE TABLE upload_v11 (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,\n"
	"	boot_id INTEGER REFERENCES boot (id) ON DELETE CASCADE,\n"
	"	sink TEXT NOT NULL,\n"
	"	what TEXT NOT NULL CHECK (what IN ('boot', 'aggregates', 'snapshot')),\n"
	"	time_ns INTEGER NOT NULL,\n"
	"	status TEXT NOT NULL CHECK (status IN ('sent', 'failed', 'in-flight')),\n"
	"	points INTEGER NOT NULL DEFAULT 0,\n"
	"	error TEXT\n"
	");\n"
	"INSERT INTO upload_v11 (id, campaign_id, boot_id, sink, what, time_ns, status, points,\n"
	"	error)\n"
	"	SELECT id, campaign_id, boot_id, sink, what, time_ns, status, points, error\n"
	"	FROM upload ORDER BY id;\n"
	"DROP TABLE upload;\n"
	"ALTER TABLE upload_v11 RENAME TO upload;\n"
	"CREATE UNIQUE INDEX upload_boot ON upload (boot_id, sink) WHERE boot_id IS NOT NULL;\n"
	"CREATE INDEX upload_campaign ON upload (campaign_id, sink, what);\n",
	/* 12: why a setup lost (issue 28): per cell the guest's scheduler
	 * counters and its vCPU threads on the host; the rates derived
	 * from them are samples named evidence/... */
	"-- evidence: per result of a VM boot, the guest's /proc/schedstat over the\n"
	"-- cell (levels summed over CPUs, per-CPU run queues) and what each vCPU\n"
	"-- thread did on the host meanwhile (run delay, preemptions, migrations,\n"
	"-- host CPUs); the rates derived from them are its samples evidence/...\n"
	"CREATE TABLE evidence (\n"
	"	result_id INTEGER PRIMARY KEY REFERENCES result (id) ON DELETE CASCADE,\n"
	"	guest TEXT CHECK (guest IS NULL OR json_valid(guest)),\n"
	"	host TEXT CHECK (host IS NULL OR json_valid(host))\n"
	");\n",
};

_Static_assert(VTB_ARRAY_SIZE(migrations) == VTB_STORE_SCHEMA,
	       "one migration step per schema version");

const char *vtb_store_migration_sql(int version)
{
	if (version < 1 || version > VTB_STORE_SCHEMA)
		return NULL;
	return migrations[version - 1];
}

bool vtb_store_bad_content(const struct vtb_store *st)
{
	return st && st->bad_content;
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
 * create; *version_out: its user_version.
 */
static int check_identity(struct vtb_store *st, bool *fresh, int *version_out)
{
	int app_id, version, objects;

	*fresh = false;
	*version_out = 0;
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
	if (version < 0)
		return vtb_error("'%s' is not a vtbench database (schema %d)", st->path, version);
	*version_out = version;
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

/*
 * trusted_schema is off (harden()): a function the schema calls must be
 * tagged innocuous, and SQLite's own json_valid is not in every version
 * (3.40's is not: "unsafe use of json_valid()" on every write to a table
 * with our CHECKs).  It is innocuous, so each connection gets a json_valid
 * declared so that asks SQLite's own on a private connection without a
 * schema: the answers stay SQLite's, NULL for NULL included.
 */
struct json_valid_fn {
	sqlite3 *db;
	sqlite3_stmt *s;
};

static void json_valid_free(void *arg)
{
	struct json_valid_fn *f = arg;

	if (!f)
		return;
	sqlite3_finalize(f->s);
	sqlite3_close(f->db);
	free(f);
}

static void json_valid_call(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct json_valid_fn *f = sqlite3_user_data(ctx);

	(void)argc;
	if (sqlite3_bind_value(f->s, 1, argv[0]) != SQLITE_OK || sqlite3_step(f->s) != SQLITE_ROW)
		sqlite3_result_error(ctx, sqlite3_errmsg(f->db), -1);
	else
		sqlite3_result_value(ctx, sqlite3_column_value(f->s, 0)); /* a copy */
	sqlite3_reset(f->s);
}

static int json_valid_register(struct vtb_store *st)
{
	struct json_valid_fn *f = calloc(1, sizeof(*f));

	if (!f ||
	    sqlite3_open_v2(":memory:", &f->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(f->db, "SELECT json_valid(?1)", -1, &f->s, NULL) != SQLITE_OK) {
		json_valid_free(f);
		return vtb_error("cannot open '%s': out of memory", st->path);
	}
	/* on failure SQLite calls json_valid_free itself */
	if (sqlite3_create_function_v2(st->db, "json_valid", 1,
				       SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, f,
				       json_valid_call, NULL, NULL, json_valid_free) != SQLITE_OK)
		return db_error(st, "declare json_valid innocuous");
	return 0;
}

/*
 * A database is a file another host may hand over (vtbench merge,
 * fleets): each connection reads it as untrusted, as SQLite's "Defense
 * Against the Dark Arts" (security.html) advises, so that SQL the file
 * brings never runs.  Defensive mode
 * (no writable_schema, no journal_mode=OFF, no schema_version=N); the
 * schema untrusted (its functions must be innocuous); triggers and views
 * disabled: vtbench's schema has neither, so a trigger the file brings
 * never fires and a view never runs, even one added by another process
 * after the check; cell sizes checked on every read; no memory-mapped
 * I/O.  Not done: integrity_check or quick_check at each open (they read
 * the whole file: minutes on a fleet's database, for every list),
 * lowered limits and a progress handler (compare's queries are long on
 * large databases; no statement here is the file's own any more).
 */
static int harden(struct vtb_store *st)
{
	static const struct {
		int op, on;
		const char *name;
	} cfg[] = {
		{ SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive" },
		{ SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "trusted_schema" },
		{ SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, "enable_trigger" },
		{ SQLITE_DBCONFIG_ENABLE_VIEW, 0, "enable_view" },
	};

	for (size_t i = 0; i < VTB_ARRAY_SIZE(cfg); i++) {
		int now = -1;

		if (sqlite3_db_config(st->db, cfg[i].op, cfg[i].on, &now) != SQLITE_OK ||
		    now != cfg[i].on)
			return vtb_error("cannot open '%s': SQLite refused to set %s to %d",
					 st->path, cfg[i].name, cfg[i].on);
	}
	if (json_valid_register(st) < 0)
		return -1;
	return exec_sql(st, "PRAGMA cell_size_check = ON; PRAGMA mmap_size = 0",
			"set cell_size_check and mmap_size");
}

/* Opens @name (the path, or a URI) with @flags: st->db, hardened. */
static int store_connect(struct vtb_store *st, const char *name, int flags)
{
	if (sqlite3_open_v2(name, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		if (!st->db)
			return vtb_error("cannot open '%s': out of memory", st->path);
		st->error_rc = sqlite3_errcode(st->db) & 0xff;
		return vtb_error("cannot open '%s': %s", st->path, sqlite3_errmsg(st->db));
	}
	sqlite3_extended_result_codes(st->db, 1);
	/* Several vtbench processes may share a database (run + compare). */
	sqlite3_busy_timeout(st->db, 10000);
	return harden(st);
}

/*
 * Before SQLite sees @path.  It must be a regular file (or a symbolic
 * link to one): SQLite blocks for ever opening a FIFO for reading, reads
 * a character device as an empty database, and says "disk I/O error" of
 * a directory; stat() opens nothing.  A new database (@create) is made
 * here, empty, with O_EXCL and O_NOFOLLOW (SQLite then opens it as a
 * fresh database): SQLite follows a dangling symbolic link and creates
 * its target, wherever it points, so a link planted at the path of a
 * database to be is refused.  *created: the file was made here.
 */
static int path_check(const char *path, bool create, bool *created)
{
	struct stat sb;
	char to[PATH_MAX];
	ssize_t n;
	int fd;

	*created = false;
	if (stat(path, &sb) == 0) {
		struct stat lsb;

		/* an empty file is a database to create: not through a link
		 * (one planted at results.db -> an empty file elsewhere) */
		if (S_ISREG(sb.st_mode) && create && sb.st_size == 0 && !lstat(path, &lsb) &&
		    S_ISLNK(lsb.st_mode))
			return vtb_error("'%s' is a symbolic link to an empty file: a new database "
					 "is never created through a link",
					 path);
		if (S_ISREG(sb.st_mode))
			return 0;
		return vtb_error("'%s' is %s, not a database file", path, vtb_file_kind(sb.st_mode));
	}
	if (errno != ENOENT)
		return vtb_error("cannot open '%s': %s", path, strerror(errno));
	if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		n = readlink(path, to, sizeof(to) - 1);
		to[n > 0 ? n : 0] = '\0';
		return vtb_error("'%s' is a symbolic link to '%s', which does not exist%s", path,
				 to,
				 create ? ": a new database is never created through a link" : "");
	}
	if (!create)
		return vtb_error("cannot open '%s': %s", path, strerror(ENOENT));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return vtb_error("cannot create '%s': %s", path, strerror(errno));
	close(fd);
	*created = true;
	return 0;
}

/* "file:PATH?immutable=1" with PATH percent-encoded but for RFC 3986's
 * unreserved characters and '/' ('?', '#' and '%' cannot change the
 * URI's meaning); an absolute path gets an empty authority ("file:///a"),
 * so that "//x" is never read as a host.  NULL: out of memory. */
static char *immutable_uri(const char *path)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int rc = vtb_strbuf_addstr(&sb, path[0] == '/' ? "file://" : "file:");

	for (const unsigned char *p = (const unsigned char *)path; *p && !rc; p++) {
		bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || strchr("-._~/", *p);

		rc = plain ? vtb_strbuf_add(&sb, (const char *)p, 1)
			   : vtb_strbuf_addf(&sb, "%%%02X", *p);
	}
	if (!rc)
		rc = vtb_strbuf_addstr(&sb, "?immutable=1");
	if (rc) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

/*
 * Reading a WAL database takes its -shm file, which SQLite cannot create
 * on a read-only mount, or in a directory this user cannot write: the
 * read-only open fails ("unable to open database file") though the file
 * is there to read.  Nobody can change it there, so it is read as
 * immutable (no locks, no -shm), provided nothing of it is beside it
 * that an immutable read would ignore: a -wal with un-checkpointed
 * changes (with a -shm beside it too, SQLite reads both, and the first
 * open worked), or a rollback journal to play back.  0: st->db reopened
 * so; -1 keeps the first open's error, or says why the file cannot be
 * read here.
 */
static int reopen_immutable(struct vtb_store *st)
{
	static const struct {
		const char *suffix, *what, *how;
	} side[] = {
		{ "-wal", "un-checkpointed changes", "read" },
		{ "-journal", "an unfinished transaction", "roll back" },
	};
	char *real = NULL, *dir = NULL, *file = NULL, *uri = NULL;
	const char *where;
	struct statvfs vfs;
	struct stat sb;
	bool link;
	int ret = -1;

	/* SQLite's error (not ours: a foreign file, a newer schema) */
	if (st->error_rc != SQLITE_CANTOPEN && st->error_rc != SQLITE_READONLY)
		return -1;
	real = realpath(st->path, NULL);
	dir = vtb_strdup(real);
	if (!dir)
		goto out;
	where = dirname(dir);
	if (statvfs(where, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
		where = "on a read-only mount";
	else if (access(where, W_OK) < 0)
		where = "in a directory this user cannot write to";
	else
		goto out;
	/* SQLite's -wal is beside the file the path resolves to */
	link = lstat(st->path, &sb) == 0 && S_ISLNK(sb.st_mode);
	for (size_t i = 0; i < VTB_ARRAY_SIZE(side); i++) {
		free(file);
		file = vtb_asprintf("%s%s", link ? real : st->path, side[i].suffix);
		if (!file) {
			vtb_error("cannot open '%s': out of memory", st->path);
			goto out;
		}
		if (stat(file, &sb) == 0 && sb.st_size > 0) {
			vtb_error("'%s' has %s in '%s' %s, which SQLite cannot %s there: open it "
				  "once where it can be written (that checkpoints it), or copy "
				  "both files to a writable directory",
				  st->path, side[i].what, file, where, side[i].how);
			goto out;
		}
	}
	uri = immutable_uri(st->path);
	if (!uri) {
		vtb_error("cannot open '%s': out of memory", st->path);
		goto out;
	}
	sqlite3_close(st->db);
	st->db = NULL;
	if (store_connect(st, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI) < 0)
		goto out;
	st->immutable = true;
	ret = 0;
out:
	free(real);
	free(dir);
	free(file);
	free(uri);
	return ret;
}

static int store_open(const char *path, bool ro, struct vtb_store **out)
{
	struct vtb_store *st;
	sqlite3_stmt *s = NULL;
	bool fresh, row, created = false;
	int ret = -1, flags, version;

	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		return vtb_error("out of memory");
	}
	st->ro = ro;
	flags = ro ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	if (strcmp(path, ":memory:") && *path) {
		if (path_check(path, !ro, &created) < 0)
			goto out;
		/* the file made above, not a link swapped in since */
		if (created)
			flags |= SQLITE_OPEN_NOFOLLOW;
	}
	if ((store_connect(st, path, flags) < 0 || check_identity(st, &fresh, &version) < 0) &&
	    (!ro || reopen_immutable(st) < 0 || check_identity(st, &fresh, &version) < 0))
		goto out;
	/* before anything else reads or writes a table */
	if (!fresh && store_schema_check(st, "main", path, version) < 0)
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
	st->created = created;
	*out = st;
	st = NULL;
	ret = 0;
out:
	sqlite3_finalize(s);
	vtb_store_close(st);
	return ret;
}

bool vtb_store_created(const struct vtb_store *st)
{
	return st && st->created;
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

/*
 * Crafted databases.  A database is a file anyone may hand over, and its
 * schema may have been edited (a NOT NULL or a CHECK dropped) with
 * integrity_check still "ok": a NULL metric crashed compare, NULLs and
 * text that is not UTF-8 elsewhere became "out of memory".  So every row
 * read through store_query_each() is checked against the schema this vtbench
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

/* An object of sqlite_master as the migrations make it: an index's SQL
 * (NULL: SQLite's own for a UNIQUE), a table's columns. */
struct ref_obj {
	char *type, *name, *table, *sql;
	char **cols;
	size_t ncols;
};

struct ref_schema {
	struct ref_obj *obj;
	size_t n;
};

static struct {
	pthread_once_t once;
	struct ref_col *cols; /* of the current schema */
	size_t n;
	struct ref_schema schema[VTB_STORE_SCHEMA + 1]; /* [v]: migrations 1..v */
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

/* sqlite_master of @db as it stands, into @rs. */
static int ref_snapshot(sqlite3 *db, struct ref_schema *rs)
{
	sqlite3_stmt *o = NULL, *c = NULL;
	int ret = -1;

	if (sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, sql FROM sqlite_master", -1, &o,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_xinfo(?1)", -1, &c, NULL) !=
		    SQLITE_OK)
		goto out;
	while (sqlite3_step(o) == SQLITE_ROW) {
		struct ref_obj *g = realloc(rs->obj, (rs->n + 1) * sizeof(*g)), *r;

		if (!g)
			goto out;
		rs->obj = g;
		r = &g[rs->n++];
		*r = (struct ref_obj){
			.type = vtb_strdup((const char *)sqlite3_column_text(o, 0)),
			.name = vtb_strdup((const char *)sqlite3_column_text(o, 1)),
			.table = vtb_strdup((const char *)sqlite3_column_text(o, 2)),
			.sql = vtb_strdup((const char *)sqlite3_column_text(o, 3)),
		};
		if (!r->type || !r->name || !r->table)
			goto out;
		if (strcmp(r->type, "table"))
			continue;
		sqlite3_reset(c);
		if (sqlite3_bind_text(c, 1, r->name, -1, SQLITE_STATIC) != SQLITE_OK)
			goto out;
		while (sqlite3_step(c) == SQLITE_ROW) {
			char **cols = realloc(r->cols, (r->ncols + 1) * sizeof(*cols));

			if (!cols)
				goto out;
			r->cols = cols;
			if (!(cols[r->ncols++] = vtb_strdup(
				      (const char *)sqlite3_column_text(c, 0))))
				goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(o);
	sqlite3_finalize(c);
	return ret;
}

static void ref_build(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *t = NULL, *c = NULL;

	ref.failed = true;
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(migrations); i++)
		if (sqlite3_exec(db, migrations[i], NULL, NULL, NULL) != SQLITE_OK ||
		    ref_snapshot(db, &ref.schema[i + 1]) < 0)
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

int store_row_check_init(struct vtb_store *st, sqlite3_stmt *s, struct row_check *rc)
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

void store_row_check_release(struct row_check *rc)
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

int store_row_check(struct vtb_store *st, sqlite3_stmt *s, const struct row_check *rc)
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
				return vtb_error(
					"'%s' is damaged or crafted: column %d (%s) of a query "
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
 * The schema read back is the one vtbench writes.  A database at
 * user_version v must hold exactly the objects migrations 1..v create:
 * sqlite_master's (type, name, table), each index's SQL (an index the
 * file redefines could hold expressions of its own), each table's column
 * names, none of them generated (a generated column is SQL run on
 * reading).  Anything else (a trigger, a view, a virtual table, a table,
 * index or column of another name, one of ours turned into a view) makes
 * it "not a vtbench database as written", an input error naming the
 * object, before any query touches a table.  A table's CREATE text is not
 * compared: a NOT NULL or CHECK dropped by hand is left to the row checks
 * above (store_row_check), which name the row.
 *
 * SQLite's own objects: sqlite_autoindex_* belong to our UNIQUE
 * constraints and are in the reference as they are.  sqlite_stat1 and
 * sqlite_stat4 are accepted: ANALYZE or PRAGMA optimize, which anyone may
 * run on their results file, writes them, and they hold planner hints,
 * never SQL (at worst a slower plan).  sqlite_sequence is refused: only
 * AUTOINCREMENT, which vtbench never declares, makes it.
 */
static bool stat_table(const char *type, const char *name, const char *table)
{
	return !strcmp(type, "table") && !strcmp(name, table) &&
	       (!strcmp(name, "sqlite_stat1") || !strcmp(name, "sqlite_stat4"));
}

/* @type NULL: of any type */
static const struct ref_obj *ref_obj_find(const struct ref_schema *rs, const char *type,
					  const char *name)
{
	for (size_t i = 0; i < rs->n; i++)
		if ((!type || !strcmp(rs->obj[i].type, type)) && !strcmp(rs->obj[i].name, name))
			return &rs->obj[i];
	return NULL;
}

/* "trigger 'evil' on table 'upload'", "view 'host'" (malloc'ed) */
static char *obj_desc(const char *type, const char *name, const char *table)
{
	if (!strcmp(type, "index") || !strcmp(type, "trigger"))
		return vtb_asprintf("%s '%s' on table '%s'", type, name, table);
	return vtb_asprintf("%s '%s'", type, name);
}

/* The error about @path, with @what (malloc'ed, freed; NULL: out of memory). */
static int not_ours(struct vtb_store *st, const char *path, char *what)
{
	st->bad_content = true;
	if (!what)
		return vtb_error("cannot check the schema of '%s': out of memory", path);
	vtb_error("'%s' is not a vtbench database as written: %s", path, what);
	free(what);
	return -1;
}

static const char *text0(sqlite3_stmt *s, int i)
{
	const char *t = column_text(s, i);

	return t ? t : "";
}

/* Both NULL (SQLite's own index), or the same text. */
static bool same_sql(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* The columns of table @r->name in @schema (@c: pragma_table_xinfo). */
static int table_check(struct vtb_store *st, sqlite3_stmt *c, const char *schema, const char *path,
		       const char *sql, const struct ref_obj *r)
{
	bool *has = calloc(r->ncols + 1, sizeof(*has)), row;
	int ret = -1;

	if (!has)
		return not_ours(st, path, NULL);
	if (sql && !strncasecmp(sql, "CREATE VIRTUAL", 14)) {
		not_ours(st, path, vtb_asprintf("table '%s' is a virtual table", r->name));
		goto out;
	}
	sqlite3_reset(c);
	if (bind_text(c, 1, r->name) != SQLITE_OK || bind_text(c, 2, schema) != SQLITE_OK) {
		db_error(st, "read the schema");
		goto out;
	}
	for (;;) {
		const char *name;
		size_t i;

		if (step(st, c, "read the schema", &row) < 0)
			goto out;
		if (!row)
			break;
		name = text0(c, 0);
		if (sqlite3_column_int(c, 1) != 0) {
			not_ours(st, path,
				 vtb_asprintf("generated column '%s' of table '%s' is not vtbench's",
					      name, r->name));
			goto out;
		}
		for (i = 0; i < r->ncols && strcmp(r->cols[i], name); i++)
			;
		if (i == r->ncols) {
			not_ours(st, path,
				 vtb_asprintf("column '%s' of table '%s' is not vtbench's", name,
					      r->name));
			goto out;
		}
		has[i] = true;
	}
	for (size_t i = 0; i < r->ncols; i++)
		if (!has[i]) {
			not_ours(st, path,
				 vtb_asprintf("table '%s' lacks vtbench's column '%s'", r->name,
					      r->cols[i]));
			goto out;
		}
	ret = 0;
out:
	free(has);
	return ret;
}

int store_schema_check(struct vtb_store *st, const char *schema, const char *path, int version)
{
	const struct ref_schema *rs;
	sqlite3_stmt *o = NULL, *c = NULL;
	char *sql = NULL;
	bool *seen = NULL, row;
	int ret = -1;

	pthread_once(&ref.once, ref_build);
	if (ref.failed || version < 0 || version > VTB_STORE_SCHEMA)
		return vtb_error("cannot check the schema of '%s' (schema %d)", path, version);
	rs = &ref.schema[version];
	seen = calloc(rs->n + 1, sizeof(*seen));
	sql = vtb_asprintf("SELECT type, name, tbl_name, sql FROM \"%s\".sqlite_master", schema);
	if (!seen || !sql) {
		not_ours(st, path, NULL);
		goto out;
	}
	if (prepare(st, sql, &o) < 0 ||
	    prepare(st, "SELECT name, hidden FROM pragma_table_xinfo(?1, ?2)", &c) < 0)
		goto out;
	for (;;) {
		const char *type, *name, *table;
		const struct ref_obj *r, *other;
		char *d;

		if (step(st, o, "read the schema", &row) < 0)
			goto out;
		if (!row)
			break;
		type = text0(o, 0);
		name = text0(o, 1);
		table = text0(o, 2);
		if (stat_table(type, name, table))
			continue;
		r = ref_obj_find(rs, type, name);
		if (!r) {
			other = ref_obj_find(rs, NULL, name);
			d = obj_desc(type, name, table);
			not_ours(st, path,
				 !d	 ? NULL
				 : other ? vtb_asprintf(
						   "%s is not vtbench's (vtbench's '%s' is a %s)",
						   d, name, other->type)
					 : vtb_asprintf("%s is not vtbench's", d));
			free(d);
			goto out;
		}
		seen[r - rs->obj] = true;
		if (strcmp(table, r->table)) {
			d = obj_desc(type, name, table);
			not_ours(st, path,
				 d ? vtb_asprintf("%s is not vtbench's (vtbench's is on table '%s')",
						  d, r->table)
				   : NULL);
			free(d);
			goto out;
		}
		if (!strcmp(type, "index") && !same_sql(column_text(o, 3), r->sql)) {
			d = obj_desc(type, name, table);
			not_ours(st, path,
				 d ? vtb_asprintf("%s is not vtbench's (it is defined otherwise)",
						  d)
				   : NULL);
			free(d);
			goto out;
		}
		if (!strcmp(type, "table") &&
		    table_check(st, c, schema, path, column_text(o, 3), r) < 0)
			goto out;
	}
	for (size_t i = 0; i < rs->n; i++)
		if (!seen[i]) {
			const struct ref_obj *r = &rs->obj[i];
			char *d = obj_desc(r->type, r->name, r->table);

			not_ours(st, path, d ? vtb_asprintf("vtbench's %s is missing", d) : NULL);
			free(d);
			goto out;
		}
	ret = 0;
out:
	sqlite3_finalize(o);
	sqlite3_finalize(c);
	free(sql);
	free(seen);
	return ret;
}
