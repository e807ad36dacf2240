/* SPDX-License-Identifier: MIT */
/*
 * Reads: the queries of compare, list, run (resume) and upload.  Every row
 * read through store_query_each() is checked against the schema first (a
 * database is a file anyone may hand over).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

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
 * Runs @sql (its ?1 bound to @id when @id is not 0 or the query has a
 * parameter) and hands each row, checked (row_check), to @emit, which
 * converts the columns and calls the caller's callback; a negative return
 * stops the walk.
 */
int store_query_each(struct vtb_store *st, const char *sql, int64_t id, const char *what,
		     int (*emit)(sqlite3_stmt *s, void *ctx), void *ctx)
{
	struct row_check rc = { 0 };
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	st->bad_content = false;
	if (prepare(st, sql, &s) < 0 || store_row_check_init(st, s, &rc) < 0)
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
		if (store_row_check(st, s, &rc) < 0 || emit(s, ctx) < 0)
			goto out;
	}
	ret = 0;
out:
	store_row_check_release(&rc);
	sqlite3_finalize(s);
	return ret;
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
int store_campaign_scan(struct vtb_store *st, int64_t campaign_id, bool *scan)
{
	static const char share[] = "SELECT (SELECT count(*) FROM boot WHERE campaign_id = ?1),"
				    " (SELECT count(*) FROM boot)";
	int64_t counts[2] = { 0, 0 };

	if (store_query_each(st, share, campaign_id, "count boots", emit_counts, counts) < 0)
		return -1;
	*scan = 2 * counts[0] >= counts[1];
	return 0;
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
		.guest_kernel_sha256 = (const char *)sqlite3_column_text(s, 14),
		.guest_kernel_config_sha256 = (const char *)sqlite3_column_text(s, 15),
		.sched_json = (const char *)sqlite3_column_text(s, 16),
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
		" boot.guest_kernel_sha256, boot.guest_kernel_config_sha256, boot.sched,"
		" boot.id, config.id, guest_view.boot_id" /* for store_row_check() */
		" FROM boot JOIN config ON config.id = boot.config_id"
		" LEFT JOIN guest_view ON guest_view.boot_id = boot.id"
		" WHERE boot.campaign_id = ?1 AND boot.kind = 'vm'"
		" ORDER BY config.seq, boot.rep, boot.vm_index";
	struct vm_boot_walk w = { fn, arg };

	return store_query_each(st, sel, campaign_id, "read VM boots", emit_vm_boot, &w);
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
		" host.id" /* for store_row_check() */
		" FROM campaign JOIN host ON host.id = campaign.host_id"
		" LEFT JOIN boot ON boot.campaign_id = campaign.id"
		" GROUP BY campaign.id ORDER BY campaign.started_ns, campaign.id";
	struct run_walk w = { fn, arg };

	return store_query_each(st, sel, 0, "read campaigns", emit_run, &w);
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
		" campaign.id, config.id, cell.id" /* for store_row_check() */
		" FROM cell JOIN config ON config.id = cell.config_id"
		" JOIN campaign ON campaign.id = config.campaign_id"
		" LEFT JOIN result ON result.cell_id = cell.id"
		" WHERE ?1 <= 0 OR campaign.id = ?1"
		" GROUP BY cell.id"
		" ORDER BY campaign.started_ns, campaign.id, config.seq, cell.id";
	struct cell_walk w = { fn, arg };

	return store_query_each(st, sel, campaign_id, "read cells", emit_cell, &w);
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

	return store_query_each(st, sel, campaign_id, "read cells", emit_campaign_cell, &w);
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

int vtb_store_boot_counts(struct vtb_store *st, int64_t campaign_id, struct vtb_boot_counts *out)
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

	return store_query_each(st, sel, campaign_id, "read the failures", emit_failure, &w);
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
		" host.id" /* for store_row_check() */
		" FROM campaign JOIN host ON host.id = campaign.host_id WHERE campaign.id = ?1";
	/* clang-format on */
#undef DISTINCT
	struct campaign_walk w = { fn, arg };

	return store_query_each(st, sel, campaign_id, "read the campaign", emit_campaign, &w);
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

	return store_query_each(st, sel, campaign_id, "read configurations", emit_config, &w);
}

struct config_boots_walk {
	int (*fn)(const struct vtb_config_row *row, const struct vtb_boot_counts *n, void *arg);
	void *arg;
};

static int emit_config_boots(sqlite3_stmt *s, void *ctx)
{
	struct config_boots_walk *w = ctx;
	struct vtb_config_row r = {
		.key = column_text(s, 0),
		.label = column_text(s, 1),
		.kind = column_text(s, 2),
		.params_json = column_text(s, 3),
		.cpus = column_text(s, 4),
		.runnable = sqlite3_column_int(s, 5) != 0,
	};
	struct vtb_boot_counts n = {
		.total = sqlite3_column_int64(s, 6),
		.ok = sqlite3_column_int64(s, 7),
		.failed = sqlite3_column_int64(s, 8),
		.timeout = sqlite3_column_int64(s, 9),
		.unexpected = sqlite3_column_int64(s, 10),
	};

	return w->fn(&r, &n, w->arg);
}

int vtb_store_foreach_config_boots(struct vtb_store *st, int64_t campaign_id,
				   int (*fn)(const struct vtb_config_row *row,
					     const struct vtb_boot_counts *n, void *arg),
				   void *arg)
{
	/* a correlated count per configuration: boot's (campaign_id,
	 * config_id, rep) index answers each */
	static const char sel[] =
		"SELECT key, label, kind, params, cpus, runnable,"
		" (SELECT count(*) FROM boot b WHERE b.campaign_id = ?1 AND b.config_id = config.id),"
		" (SELECT count(*) FROM boot b WHERE b.campaign_id = ?1 AND b.config_id = config.id"
		"  AND b.status = 'ok'),"
		" (SELECT count(*) FROM boot b WHERE b.campaign_id = ?1 AND b.config_id = config.id"
		"  AND b.status = 'failed'),"
		" (SELECT count(*) FROM boot b WHERE b.campaign_id = ?1 AND b.config_id = config.id"
		"  AND b.status = 'timeout'),"
		" (SELECT count(*) FROM boot b WHERE b.campaign_id = ?1 AND b.config_id = config.id"
		"  AND b.status = 'unexpected-topology')"
		" FROM config WHERE campaign_id = ?1 ORDER BY seq, id";
	struct config_boots_walk w = { fn, arg };

	return store_query_each(st, sel, campaign_id, "count the boots of each configuration",
				emit_config_boots, &w);
}

/* A result's boot, cell and configuration, joined as the planner is told:
 * CROSS JOIN keeps SQLite to the written order (a scan from the campaign's
 * results), JOIN lets it seek by index (store_campaign_scan() chooses). */
#define RESULT_JOINS(J)                           \
	" " J " boot ON boot.id = result.boot_id" \
	" " J " cell ON cell.id = result.cell_id" \
	" " J " config ON config.id = cell.config_id"

/* Runs the campaign's query as a scan or a seek, each row to @emit. */
static int campaign_rows(struct vtb_store *st, int64_t campaign_id, const char *scan,
			 const char *seek, const char *what,
			 int (*emit)(sqlite3_stmt *s, void *ctx), void *ctx)
{
	bool by_scan = false;

	if (store_campaign_scan(st, campaign_id, &by_scan) < 0)
		return -1;
	return store_query_each(st, by_scan ? scan : seek, campaign_id, what, emit, ctx);
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
		.boot = sqlite3_column_int64(s, 9),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_hist(struct vtb_store *st, int64_t campaign_id,
			   int (*fn)(const struct vtb_hist_row *row, void *arg), void *arg)
{
#define HIST_COLS                                                        \
	"SELECT config.key, cell.key, histogram.metric, histogram.unit," \
	" histogram.params, histogram.buckets, boot.rep, cell.name,"     \
	" histogram.id, boot.id, cell.id, config.id" /* store_row_check() */
#define HIST_WHERE                                                          \
	" WHERE config.campaign_id = ?1 AND result.status = 'ok'"           \
	" AND boot.status <> 'unexpected-topology'"                         \
	" ORDER BY config.seq, cell.id,"                                    \
	" min(histogram.id) OVER (PARTITION BY cell.id, histogram.metric)," \
	" boot.rep, boot.vm_index, histogram.id"
	/* the ORDER BY sorts only the campaign's histograms */
	static const char scan[] = HIST_COLS
		" FROM histogram"
		" CROSS JOIN result ON result.id = histogram.result_id" RESULT_JOINS("CROSS JOIN")
			HIST_WHERE;
	static const char seek[] = HIST_COLS
		" FROM histogram"
		" JOIN result ON result.id = histogram.result_id" RESULT_JOINS("JOIN") HIST_WHERE;
#undef HIST_COLS
#undef HIST_WHERE
	struct hist_walk w = { fn, arg };

	return campaign_rows(st, campaign_id, scan, seek, "read histograms", emit_hist, &w);
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
	static const char scan[] = C2C_COLS RESULT_JOINS("CROSS JOIN") C2C_WHERE;
	static const char seek[] = C2C_COLS RESULT_JOINS("JOIN") C2C_WHERE;
#undef C2C_COLS
#undef C2C_WHERE
	struct matrix_walk w = { fn, arg };

	return campaign_rows(st, campaign_id, scan, seek, "read c2c matrices", emit_matrix, &w);
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

	return store_query_each(st, sql, campaign_id, "read membw's STREAM rule notes",
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
	if (prepare(st, sel, &s) < 0 || store_row_check_init(st, s, &rc) < 0)
		goto out;
	if (bind_text(s, 1, uuid)) {
		db_error(st, "bind the campaign");
		goto out;
	}
	if (step(st, s, "find the campaign", found) < 0)
		goto out;
	if (*found && store_row_check(st, s, &rc) < 0) {
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
	store_row_check_release(&rc);
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
		" config.id, s.cell_id, s.sample_id" /* for store_row_check() */
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
	if (prepare(st, sel, &s) < 0 || store_row_check_init(st, s, &rc) < 0)
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
		if (store_row_check(st, s, &rc) < 0 || emit_upload_row(s, &w) < 0)
			goto out;
	}
	ret = 0;
out:
	store_row_check_release(&rc);
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_upload_item_state(struct vtb_store *st, int64_t campaign_id, const char *sink,
				const char *what, enum vtb_upload_state *state, int64_t *since_ns)
{
	/* a row sent wins over one in flight (a merge may bring both) */
	static const char sel[] =
		"SELECT status, time_ns FROM upload WHERE campaign_id = ?1 AND sink = ?2"
		" AND what = ?3 AND boot_id IS NULL AND status IN ('sent', 'in-flight')"
		" ORDER BY status = 'sent' DESC, time_ns DESC LIMIT 1";
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	*state = VTB_ITEM_NONE;
	*since_ns = 0;
	if (prepare(st, sel, &s) < 0)
		goto out;
	if (bind_int(s, 1, campaign_id) || bind_text(s, 2, sink) || bind_text(s, 3, what)) {
		db_error(st, "bind the upload query");
		goto out;
	}
	if (step(st, s, "read the upload records", &row) < 0)
		goto out;
	if (row) {
		*state = !strcmp(column_text(s, 0), "sent") ? VTB_ITEM_SENT : VTB_ITEM_IN_FLIGHT;
		*since_ns = sqlite3_column_int64(s, 1);
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_kernel_probe(struct vtb_store *st, const char *sha256, char **probe)
{
	struct vtb_kernel_probe kp;
	int ret = vtb_store_kernel_probe_of(st, sha256, &kp);

	*probe = NULL;
	if (ret == 0) {
		*probe = kp.probe;
		kp.probe = NULL;
	}
	vtb_kernel_probe_release(&kp);
	return ret;
}

int vtb_store_kernel_probe_of(struct vtb_store *st, const char *sha256,
			      struct vtb_kernel_probe *out)
{
	static const char sel[] = "SELECT probe, uuid, started_ns FROM boot"
				  " WHERE guest_kernel_sha256 = ?1 AND probe IS NOT NULL"
				  " ORDER BY started_ns DESC, id DESC LIMIT 1";
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (prepare(st, sel, &s) < 0)
		goto out;
	if (bind_text(s, 1, sha256)) {
		db_error(st, "bind the kernel");
		goto out;
	}
	if (step(st, s, "read a kernel's probe", &row) < 0)
		goto out;
	if (row && column_text(s, 0)) {
		out->probe = vtb_strdup(column_text(s, 0));
		out->boot_uuid = vtb_strdup(column_text(s, 1) ? column_text(s, 1) : "");
		out->started_ns = sqlite3_column_int64(s, 2);
		if (!out->probe || !out->boot_uuid) {
			vtb_kernel_probe_release(out);
			vtb_error("out of memory");
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

void vtb_kernel_probe_release(struct vtb_kernel_probe *kp)
{
	if (!kp)
		return;
	free(kp->probe);
	free(kp->boot_uuid);
	memset(kp, 0, sizeof(*kp));
}

struct kernel_walk {
	int (*fn)(const struct vtb_kernel_row *row, void *arg);
	void *arg;
};

static int emit_kernel(sqlite3_stmt *s, void *ctx)
{
	struct kernel_walk *w = ctx;
	struct vtb_kernel_row r = {
		.campaign_uuid = column_text(s, 0),
		.name = column_text(s, 1),
		.release = column_text(s, 2),
		.sha256 = column_text(s, 3),
		.config_sha256 = column_text(s, 4),
		.boots = sqlite3_column_int64(s, 5),
		.ok = sqlite3_column_int64(s, 6),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_kernel(struct vtb_store *st, int64_t campaign_id,
			     int (*fn)(const struct vtb_kernel_row *row, void *arg), void *arg)
{
	static const char sel[] =
		"SELECT campaign.uuid, json_extract(config.params, '$.kernel'), boot.guest_kernel,"
		" boot.guest_kernel_sha256, boot.guest_kernel_config_sha256, count(boot.id),"
		" coalesce(sum(boot.status = 'ok'), 0)"
		" FROM boot JOIN config ON config.id = boot.config_id"
		" JOIN campaign ON campaign.id = boot.campaign_id"
		" WHERE boot.kind = 'vm' AND (?1 <= 0 OR campaign.id = ?1)"
		" GROUP BY campaign.id, json_extract(config.params, '$.kernel'), boot.guest_kernel,"
		" boot.guest_kernel_sha256, boot.guest_kernel_config_sha256"
		" ORDER BY campaign.started_ns, campaign.id, min(boot.id)";
	struct kernel_walk w = { fn, arg };

	return store_query_each(st, sel, campaign_id, "read guest kernels", emit_kernel, &w);
}

struct boot_time_walk {
	int (*fn)(const struct vtb_boot_time_row *row, void *arg);
	void *arg;
};

static int emit_boot_time(sqlite3_stmt *s, void *ctx)
{
	struct boot_time_walk *w = ctx;
	struct vtb_boot_time_row r = {
		.config_key = column_text(s, 0),
		.kind = column_text(s, 1),
		.seconds = (double)sqlite3_column_int64(s, 2) / 1e9,
		.boots = (size_t)sqlite3_column_int64(s, 3),
	};

	if (!r.config_key || !r.kind)
		return 0;
	return w->fn(&r, w->arg);
}

int vtb_store_foreach_boot_time(struct vtb_store *st, int64_t campaign_id,
				int (*fn)(const struct vtb_boot_time_row *row, void *arg),
				void *arg)
{
	/* a configuration key names the same settings in any campaign;
	 * boots with a clock that went backwards are left out */
	static const char sel[] =
		"SELECT config.key, config.kind, SUM(boot.ended_ns - boot.started_ns), COUNT(*)"
		" FROM boot JOIN config ON config.id = boot.config_id"
		" WHERE boot.ended_ns >= boot.started_ns AND (?1 = 0 OR boot.campaign_id = ?1)"
		" GROUP BY config.key, config.kind ORDER BY config.key, config.kind";
	struct boot_time_walk w = { fn, arg };

	return store_query_each(st, sel, campaign_id, "read boot times", emit_boot_time, &w);
}
