/* SPDX-License-Identifier: MIT */
/*
 * Writes: hosts, campaigns with their configurations and cells, boots
 * (one transaction each, whole or not at all), events and upload records.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "store-int.h"

/* Wall-clock time for campaign and event stamps (boots bring their own). */
static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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

/* Where configurations added to a campaign start: after its last one. */
static int next_seq(struct vtb_store *st, int64_t campaign_id, int64_t *base)
{
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	if (prepare(st, "SELECT coalesce(max(seq) + 1, 0) FROM config WHERE campaign_id = ?1", &s) <
	    0)
		goto out;
	if (bind_int(s, 1, campaign_id) || step(st, s, "read configurations", &row) < 0)
		goto out;
	*base = row ? sqlite3_column_int64(s, 0) : 0;
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/* The statements of insert_configs(), prepared once for all rows. */
struct config_stmts {
	sqlite3_stmt *config, *config_id, *cell;
};

static void config_stmts_release(struct config_stmts *q)
{
	sqlite3_finalize(q->config);
	sqlite3_finalize(q->config_id);
	sqlite3_finalize(q->cell);
}

/* One configuration row (kept as it is under sync) and its id. */
static int insert_config(struct vtb_store *st, const struct config_stmts *q, int64_t campaign_id,
			 const struct vtb_config *cf, int64_t seq, int64_t *config_id)
{
	sqlite3_stmt *ic = q->config, *sc = q->config_id;
	char *cpus = vtb_cpuset_format(&cf->cpus);
	bool row;
	int ret = -1;

	if (!cpus)
		return vtb_error("out of memory");
	if (bind_int(ic, 1, campaign_id) | bind_text(ic, 2, cf->key) |
	    bind_text(ic, 3, cf->kind == VTB_CONFIG_VM ? "vm" : "baseline") |
	    bind_text0(ic, 4, cf->label) |
	    bind_text(ic, 5, cf->params_json ? cf->params_json : "{}") | bind_text(ic, 6, cpus) |
	    bind_text(ic, 7, cf->mems) | bind_int(ic, 8, cf->runnable) |
	    bind_text(ic, 9, cf->why_not) | bind_int(ic, 10, seq) |
	    bind_text(ic, 11, cf->plan_json)) {
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
	*config_id = sqlite3_column_int64(sc, 0);
	sqlite3_reset(sc);
	ret = 0;
out:
	free(cpus);
	return ret;
}

static int insert_cells(struct vtb_store *st, sqlite3_stmt *icell, int64_t config_id,
			const struct vtb_config *cf)
{
	for (size_t j = 0; j < cf->n_cells; j++) {
		const struct vtb_cell *ce = &cf->cells[j];

		if (bind_int(icell, 1, config_id) | bind_text(icell, 2, ce->key) |
		    bind_text0(icell, 3, ce->name) | bind_text0(icell, 4, ce->workload) |
		    bind_text(icell, 5, ce->params_json ? ce->params_json : "{}") |
		    bind_text(icell, 6, ce->resolved_json ? ce->resolved_json : "{}"))
			return db_error(st, "bind a cell");
		if (step(st, icell, "store a cell", NULL) < 0)
			return -1;
		sqlite3_reset(icell);
	}
	return 0;
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
	struct config_stmts q = { 0 };
	int64_t base = 0;
	int ret = -1;

	if (prepare(st, sync ? sync_config : ins_config, &q.config) < 0 ||
	    prepare(st, sel_config, &q.config_id) < 0 ||
	    prepare(st, sync ? sync_cell : ins_cell, &q.cell) < 0)
		goto out;
	if (sync && next_seq(st, campaign_id, &base) < 0)
		goto out;
	for (size_t i = 0; i < m->n_configs; i++) {
		const struct vtb_config *cf = &m->configs[i];
		int64_t config_id = 0;

		if (insert_config(st, &q, campaign_id, cf, base + (int64_t)i, &config_id) < 0 ||
		    insert_cells(st, q.cell, config_id, cf) < 0)
			goto out;
	}
	ret = 0;
out:
	config_stmts_release(&q);
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

int vtb_store_campaign_delete(struct vtb_store *st, const char *uuid)
{
	sqlite3_stmt *s = NULL;
	int64_t host = 0;
	bool row = false;
	int ret = -1;

	if (begin(st) < 0)
		return -1;
	if (prepare(st, "SELECT host_id FROM campaign WHERE uuid = ?1", &s) < 0)
		goto out;
	if (bind_text(s, 1, uuid)) {
		db_error(st, "bind the campaign");
		goto out;
	}
	if (step(st, s, "find the campaign", &row) < 0)
		goto out;
	if (!row) {
		vtb_error("no campaign %s in '%s'", uuid, st->path);
		goto out;
	}
	host = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	s = NULL;
	/* everything of the campaign goes with it (ON DELETE CASCADE) */
	if (prepare(st, "DELETE FROM campaign WHERE uuid = ?1", &s) < 0)
		goto out;
	if (bind_text(s, 1, uuid)) {
		db_error(st, "bind the campaign");
		goto out;
	}
	if (step(st, s, "delete the campaign", NULL) < 0)
		goto out;
	sqlite3_finalize(s);
	s = NULL;
	/* and its host, when it came with it */
	if (prepare(st,
		    "DELETE FROM host WHERE id = ?1"
		    " AND NOT EXISTS (SELECT 1 FROM campaign WHERE host_id = ?1)",
		    &s) < 0)
		goto out;
	if (bind_int(s, 1, host)) {
		db_error(st, "bind the host");
		goto out;
	}
	if (step(st, s, "delete the host", NULL) < 0)
		goto out;
	ret = commit(st);
out:
	sqlite3_finalize(s);
	if (ret)
		rollback(st);
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
	struct boot_cell **by_key; /* cells sorted by key, for find_cell */
	const char *unknown[16];   /* cell keys already reported as unknown */
	size_t n_unknown;
	size_t n_unknown_more; /* records for unknown cells past those listed */
};

static int cell_key_cmp(const void *a, const void *b)
{
	return strcmp((*(struct boot_cell *const *)a)->key, (*(struct boot_cell *const *)b)->key);
}

/* A guest may report any number of cells (up to the parser's limits):
 * each is looked up by bisection, not by a scan of the configuration's
 * cells. */
static struct boot_cell *find_cell(struct boot_ctx *bc, const char *key)
{
	struct boot_cell probe = { .key = (char *)key }, *pp = &probe, **hit;

	if (!key || !bc->n_cells)
		return NULL;
	hit = bsearch(&pp, bc->by_key, bc->n_cells, sizeof(*bc->by_key), cell_key_cmp);
	return hit ? *hit : NULL;
}

/* Records for a cell this configuration lacks: reported once per key, as
 * an error event of the boot (the guest is untrusted input), for the
 * first keys; past those only counted (unknown_more_event), so a guest
 * reporting 80k made-up cells costs neither a quadratic search nor 80k
 * event rows. */
static int note_unknown(struct boot_ctx *bc, const char *key, const char *what)
{
	char *msg;
	int ret;

	for (size_t i = 0; i < bc->n_unknown; i++)
		if (!strcmp(bc->unknown[i], key ? key : ""))
			return 0;
	if (bc->n_unknown == VTB_ARRAY_SIZE(bc->unknown)) {
		bc->n_unknown_more++;
		return 0;
	}
	bc->unknown[bc->n_unknown++] = key ? key : "";
	msg = vtb_asprintf("%s for cell '%s', which is not in configuration '%s'", what,
			   key ? key : "", bc->config_key);
	if (!msg)
		return vtb_error("out of memory");
	ret = insert_event(bc->st, bc->campaign_id, bc->boot_id, "error", msg);
	free(msg);
	return ret;
}

/* The records for unknown cells past the listed ones, as one event. */
static int unknown_more_event(struct boot_ctx *bc)
{
	char *msg;
	int ret;

	if (!bc->n_unknown_more)
		return 0;
	msg = vtb_asprintf("%zu more records for cells which are not in configuration '%s' "
			   "(the first %zu such cells are listed)",
			   bc->n_unknown_more, bc->config_key, bc->n_unknown);
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
	bc->by_key = calloc(bc->n_cells + 1, sizeof(*bc->by_key));
	if (!bc->by_key) {
		vtb_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < bc->n_cells; i++)
		bc->by_key[i] = &bc->cells[i];
	qsort(bc->by_key, bc->n_cells, sizeof(*bc->by_key), cell_key_cmp);
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

/* Each cell's scheduler evidence with its result: the counters' JSON
 * and the rates as samples (a rate a record already named is kept as
 * the record had it). */
static int store_evidence(struct boot_ctx *bc, const struct vtb_vm_boot_info *vm)
{
	static const char ins_ev[] = "INSERT INTO evidence (result_id, guest, host)"
				     " VALUES (?1, ?2, ?3)";
	static const char ins_sample[] =
		"INSERT INTO sample (result_id, metric, unit, value, better)"
		" VALUES (?1, ?2, ?3, ?4, 'lower') ON CONFLICT (result_id, metric) DO NOTHING";
	sqlite3_stmt *e = NULL, *s = NULL;
	int64_t result_id;
	int ret = -1;

	if (!vm || !vm->n_evidence)
		return 0;
	if (prepare(bc->st, ins_ev, &e) < 0 || prepare(bc->st, ins_sample, &s) < 0)
		goto out;
	for (size_t i = 0; i < vm->n_evidence; i++) {
		const struct vtb_cell_evidence *ev = &vm->evidence[i];

		if (result_of(bc, ev->cell, "scheduler evidence", &result_id) < 0)
			goto out;
		if (!result_id)
			continue;
		if (ev->guest || ev->host) {
			if (bind_int(e, 1, result_id) | bind_text(e, 2, ev->guest) |
			    bind_text(e, 3, ev->host)) {
				db_error(bc->st, "bind a cell's evidence");
				goto out;
			}
			if (step(bc->st, e, "store a cell's evidence", NULL) < 0)
				goto out;
			sqlite3_reset(e);
		}
		for (size_t k = 0; k < ev->n_metrics; k++) {
			const struct vtb_evidence_metric *m = &ev->metrics[k];

			if (bind_int(s, 1, result_id) | bind_text(s, 2, m->metric) |
			    bind_text(s, 3, m->unit) | sqlite3_bind_double(s, 4, m->value)) {
				db_error(bc->st, "bind an evidence sample");
				goto out;
			}
			if (step(bc->st, s, "store an evidence sample", NULL) < 0)
				goto out;
			sqlite3_reset(s);
		}
	}
	ret = 0;
out:
	sqlite3_finalize(e);
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

/* The id of the boot's configuration in its campaign. */
static int boot_config_id(struct vtb_store *st, const struct vtb_boot_info *b, int64_t *config_id)
{
	static const char sel_config[] = "SELECT id FROM config WHERE campaign_id = ?1 AND key = ?2";
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

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
	*config_id = sqlite3_column_int64(s, 0);
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/* The boot row; a second boot of one (configuration, rep) is refused. */
static int insert_boot(struct vtb_store *st, const struct vtb_boot_info *b,
		       const struct vtb_boot_records *recs, int64_t config_id, int64_t *boot_id)
{
	static const char ins[] =
		"INSERT INTO boot (uuid, campaign_id, config_id, rep, status, error,"
		" started_ns, ended_ns, nonce, cpus, confinement, header, stderr_tail,"
		" detail, noise_lines, records, kind, accelerator, cpu_model, guest_kernel,"
		" libvirt_version, qemu_version, live_xml, console_tail, vm_index, vms,"
		" group_uuid, claims, placement, probe, sched, topology_diff, topology_check,"
		" guest_kernel_sha256, guest_kernel_config_sha256)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
		" ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32,"
		" ?33, ?34, ?35)";
	static const struct vtb_vm_boot_info novm;
	const struct vtb_vm_boot_info *vm = b->vm ? b->vm : &novm;
	sqlite3_stmt *s = NULL;
	char *header = NULL;
	int ret = -1;

	if (recs->header &&
	    !(header = json_dumps(recs->header, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY)))
		return vtb_error("out of memory");
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
	    bind_text(s, 33, vm->topology_check) | bind_text(s, 34, vm->guest_kernel_sha256) |
	    bind_text(s, 35, vm->guest_kernel_config_sha256)) {
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
	*boot_id = sqlite3_last_insert_rowid(st->db);
	ret = 0;
out:
	sqlite3_finalize(s);
	free(header);
	return ret;
}

/* What the guest saw of its topology (VM boots that brought a view). */
static int insert_guest_view(struct vtb_store *st, int64_t boot_id,
			     const struct vtb_vm_boot_info *vm)
{
	static const char ins_view[] =
		"INSERT INTO guest_view (boot_id, view, tree, digest, levels, cpuid, steal_before,"
		" steal_after) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
	sqlite3_stmt *s = NULL;
	int ret = -1;

	if (prepare(st, ins_view, &s) < 0)
		goto out;
	if (bind_int(s, 1, boot_id) | bind_text(s, 2, vm->view) | bind_text(s, 3, vm->tree) |
	    bind_text(s, 4, vm->digest) | bind_text(s, 5, vm->levels) | bind_text(s, 6, vm->cpuid) |
	    bind_text(s, 7, vm->steal_before) | bind_text(s, 8, vm->steal_after)) {
		db_error(st, "bind the guest view");
		goto out;
	}
	if (sqlite3_step(s) != SQLITE_DONE) {
		db_error(st, "store the guest view");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/* One boot inside the caller's transaction. */
static int store_boot_in(struct vtb_store *st, const struct vtb_boot_info *b,
			 const struct vtb_boot_records *recs)
{
	static const struct vtb_boot_records none;
	struct boot_ctx bc = { .st = st,
			       .campaign_id = b->campaign_id,
			       .config_key = b->config_key };
	int64_t config_id = 0;
	int ret = -1;

	if (!recs)
		recs = &none;
	if (boot_config_id(st, b, &config_id) < 0 ||
	    insert_boot(st, b, recs, config_id, &bc.boot_id) < 0 ||
	    (b->vm && b->vm->view && insert_guest_view(st, bc.boot_id, b->vm) < 0) ||
	    load_cells(&bc, config_id) < 0 || store_results(&bc, recs) < 0 ||
	    store_samples(&bc, recs) < 0 || store_evidence(&bc, b->vm) < 0 ||
	    unknown_more_event(&bc) < 0 ||
	    store_boot_events(&bc, b, recs) < 0)
		goto out;
	ret = 0;
out:
	for (size_t i = 0; i < bc.n_cells; i++)
		free(bc.cells[i].key);
	free(bc.cells);
	free(bc.by_key);
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

int vtb_store_upload_mark(struct vtb_store *st, int64_t campaign_id, const char *sink,
			  const char *what, const int64_t *boot_ids, const long *points, size_t n,
			  const char *status, const char *error)
{
	/* a boot is recorded once per sink: a failure or a request in
	 * flight is replaced by the next outcome, a success never */
	static const char ins[] =
		"INSERT INTO upload (campaign_id, boot_id, sink, what, time_ns, status, points,"
		" error) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
		" ON CONFLICT (boot_id, sink) WHERE boot_id IS NOT NULL DO UPDATE SET"
		" time_ns = excluded.time_ns, status = excluded.status,"
		" points = excluded.points, error = excluded.error"
		" WHERE upload.status <> 'sent'";
	/* a campaign-level item keeps a row per attempt, but its request in
	 * flight is one row that becomes the outcome: left in flight, the
	 * next upload would take it for an answer never recorded */
	static const char upd[] =
		"UPDATE upload SET time_ns = ?4, status = ?5, points = ?6, error = ?7"
		" WHERE campaign_id = ?1 AND boot_id IS NULL AND sink = ?2 AND what = ?3"
		" AND status = 'in-flight'";
	sqlite3_stmt *s = NULL, *u = NULL;
	int64_t now = realtime_ns();
	size_t i, rows = n ? n : 1;
	int ret = -1;

	if (begin(st) < 0)
		return -1;
	if (prepare(st, ins, &s) < 0 || prepare(st, upd, &u) < 0)
		goto out;
	if (!n) {
		if (bind_int(u, 1, campaign_id) || bind_text(u, 2, sink) || bind_text(u, 3, what) ||
		    bind_int(u, 4, now) || bind_text(u, 5, status) ||
		    bind_int(u, 6, points ? points[0] : 0) || bind_text(u, 7, error)) {
			db_error(st, "bind an upload record");
			goto out;
		}
		if (step(st, u, "record an upload", NULL) < 0)
			goto out;
		if (sqlite3_changes(st->db))
			rows = 0;
	}
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
	sqlite3_finalize(u);
	return ret;
}

int vtb_store_config_not_runnable(struct vtb_store *st, int64_t campaign_id, const char *key,
				  const char *why)
{
	static const char upd[] = "UPDATE config SET runnable = 0, why_not = ?3"
				  " WHERE campaign_id = ?1 AND key = ?2";
	sqlite3_stmt *s = NULL;
	int ret = -1;

	if (prepare(st, upd, &s) < 0)
		goto out;
	if (bind_int(s, 1, campaign_id) | bind_text(s, 2, key) | bind_text(s, 3, why)) {
		db_error(st, "bind the configuration");
		goto out;
	}
	if (sqlite3_step(s) != SQLITE_DONE) {
		db_error(st, "mark the configuration not runnable");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}
