/* SPDX-License-Identifier: MIT */
/* vtbench merge: one database's campaigns copied into another. */
#include <stddef.h>
#include <string.h>

#include "store-int.h"

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
/* schema 7 added no column (an index on sample); 8 the guest kernel
 * identity; 9 the race tables; 10 race.stop_evidence; 11 no column (upload's
 * status 'in-flight', copied as it is); 12 the evidence table */
_Static_assert(VTB_STORE_SCHEMA == 12,
	       "vtb_store_merge copies the columns of schema 12: add the new ones");

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
	  " topology_check, topology_diff, guest_kernel_sha256, guest_kernel_config_sha256)"
	  " SELECT b.uuid, mc.dst, mf.dst, b.rep, b.status, b.error, b.started_ns, b.ended_ns,"
	  " b.nonce, b.cpus, b.confinement, b.header, b.stderr_tail, b.detail, b.noise_lines,"
	  " b.records, b.kind, b.accelerator, b.cpu_model, b.guest_kernel, b.libvirt_version,"
	  " b.qemu_version, b.live_xml, b.console_tail, b.vm_index, b.vms, b.group_uuid,"
	  " b.claims, b.placement, b.probe, b.sched, b.topology_check, b.topology_diff,"
	  " b.guest_kernel_sha256, b.guest_kernel_config_sha256"
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
	{ "INSERT INTO main.evidence (result_id, guest, host) SELECT m.dst, x.guest, x.host"
	  " FROM vtbin.evidence x JOIN temp.m_result m ON m.src = x.result_id"
	  " ORDER BY x.result_id",
	  MERGE_NONE },
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
	/* vtbench explore's race: keyed by configuration key, not id */
	{ "INSERT INTO main.race (campaign_id, objective, candidates, stop, winners, rounds,"
	  " boots, updated_ns, stop_evidence) SELECT mc.dst, r.objective, r.candidates, r.stop,"
	  " r.winners, r.rounds, r.boots, r.updated_ns, r.stop_evidence FROM vtbin.race r"
	  " JOIN temp.m_campaign mc ON mc.src = r.campaign_id ORDER BY r.campaign_id",
	  MERGE_NONE },
	{ "INSERT INTO main.race_elimination (campaign_id, round, config_key, metric, best_key,"
	  " reason, evidence) SELECT mc.dst, e.round, e.config_key, e.metric, e.best_key,"
	  " e.reason, e.evidence FROM vtbin.race_elimination e"
	  " JOIN temp.m_campaign mc ON mc.src = e.campaign_id ORDER BY e.id",
	  MERGE_NONE },
};

static const char merge_drop[] = "DROP TABLE IF EXISTS temp.m_host;"
				 "DROP TABLE IF EXISTS temp.m_campaign;"
				 "DROP TABLE IF EXISTS temp.m_config;"
				 "DROP TABLE IF EXISTS temp.m_cell;"
				 "DROP TABLE IF EXISTS temp.m_boot;"
				 "DROP TABLE IF EXISTS temp.m_result;";

/* The first column of the first row of @sql on the output's connection
 * (0 when none). */
static int merge_int(struct vtb_store *out, const char *sql, int *v)
{
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	*v = 0;
	if (prepare(out, sql, &s) < 0 || step(out, s, "read the input's header", &row) < 0)
		goto out;
	if (row)
		*v = sqlite3_column_int(s, 0);
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/* The file attached as "vtbin" is the one open_ro checked: a file
 * swapped in since (another process) is refused as open_ro would. */
static int merge_recheck(struct vtb_store *out, const char *path)
{
	int app_id, version;

	if (merge_int(out, "PRAGMA vtbin.application_id", &app_id) < 0 ||
	    merge_int(out, "PRAGMA vtbin.user_version", &version) < 0)
		return -1;
	if (app_id != VTB_STORE_APPLICATION_ID || version != VTB_STORE_SCHEMA) {
		out->bad_content = true;
		return vtb_error("'%s' changed while it was merged: it is no vtbench database of "
				 "schema %d any more",
				 path, VTB_STORE_SCHEMA);
	}
	return store_schema_check(out, "vtbin", path, version);
}

/* Attaches @path as "vtbin": the file itself when open_ro found the
 * current schema, else an in-memory database the migrated copy is backed
 * up into (also for a file open_ro could only read as immutable, on a
 * read-only mount: ATTACH would need its -shm). */
static int merge_attach(struct vtb_store *out, const char *path)
{
	struct vtb_store *in = NULL;
	sqlite3_stmt *s = NULL;
	sqlite3_backup *b;
	bool copy;
	int rc, ret = -1;

	/* refuses a newer schema, a foreign file or one with objects that are
	 * not vtbench's; migrates an older one */
	if (vtb_store_open_ro(path, &in) < 0)
		goto out;
	copy = !sqlite3_db_filename(in->db, "main")[0] || in->immutable;
	if (prepare(out, "ATTACH ?1 AS vtbin", &s) < 0)
		goto out;
	if (sqlite3_bind_text(s, 1, copy ? ":memory:" : path, -1, SQLITE_STATIC) != SQLITE_OK) {
		db_error(out, "bind the input");
		goto out;
	}
	if (step(out, s, "attach the input", NULL) < 0)
		goto out;
	if (!copy && merge_recheck(out, path) < 0)
		goto detach;
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
