/* SPDX-License-Identifier: MIT */
/*
 * vtbench explore's race in the store (schema 9, 10): its outcome and its
 * eliminations, rewritten whole after every round.  Rewriting rather than
 * appending keeps a resumed race exact: it replays the stored rounds and
 * saves what the replay decided, whatever an interrupted run had written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store-int.h"

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int insert_elims(struct vtb_store *st, int64_t campaign_id,
			const struct vtb_race_elim_row *e, size_t n)
{
	static const char ins[] =
		"INSERT INTO race_elimination (campaign_id, round, config_key, metric, best_key,"
		" reason, evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
	sqlite3_stmt *s = NULL;
	int ret = -1;

	if (prepare(st, ins, &s) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		sqlite3_reset(s);
		if (bind_int(s, 1, campaign_id) | bind_int(s, 2, e[i].round) |
		    bind_text0(s, 3, e[i].config_key) | bind_text0(s, 4, e[i].metric) |
		    bind_text0(s, 5, e[i].best_key) | bind_text0(s, 6, e[i].reason) |
		    bind_text0(s, 7, e[i].evidence)) {
			db_error(st, "bind an elimination");
			goto out;
		}
		if (step(st, s, "store an elimination", NULL) < 0)
			goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_race_save(struct vtb_store *st, int64_t campaign_id, const struct vtb_race_row *r,
			const struct vtb_race_elim_row *elims, size_t n)
{
	static const char up[] =
		"INSERT OR REPLACE INTO race (campaign_id, objective, candidates, stop, winners,"
		" rounds, boots, updated_ns, stop_evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		" ?9)";
	static const char del[] = "DELETE FROM race_elimination WHERE campaign_id = ?1";
	sqlite3_stmt *s = NULL;
	int ret = -1;

	if (begin(st) < 0)
		return -1;
	if (prepare(st, up, &s) < 0)
		goto out;
	if (bind_int(s, 1, campaign_id) | bind_text0(s, 2, r->objective) |
	    bind_text0(s, 3, r->candidates) | bind_text0(s, 4, r->stop) |
	    bind_text0(s, 5, r->winners) | bind_int(s, 6, r->rounds) | bind_int(s, 7, r->boots) |
	    bind_int(s, 8, r->updated_ns ? r->updated_ns : realtime_ns()) |
	    bind_text(s, 9, r->stop_evidence)) {
		db_error(st, "bind the race");
		goto out;
	}
	if (step(st, s, "store the race", NULL) < 0)
		goto out;
	sqlite3_finalize(s);
	s = NULL;
	if (prepare(st, del, &s) < 0 || bind_int(s, 1, campaign_id) ||
	    step(st, s, "replace the eliminations", NULL) < 0 ||
	    insert_elims(st, campaign_id, elims, n) < 0 || commit(st) < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(s);
	if (ret)
		rollback(st);
	return ret;
}

struct race_walk {
	int (*fn)(const struct vtb_race_row *row, void *arg);
	void *arg;
	bool *found;
};

static int emit_race(sqlite3_stmt *s, void *ctx)
{
	struct race_walk *w = ctx;
	struct vtb_race_row r = {
		.objective = column_text(s, 0),
		.candidates = column_text(s, 1),
		.stop = column_text(s, 2),
		.winners = column_text(s, 3),
		.rounds = sqlite3_column_int64(s, 4),
		.boots = sqlite3_column_int64(s, 5),
		.updated_ns = sqlite3_column_int64(s, 6),
		.stop_evidence = column_text(s, 7),
	};

	*w->found = true;
	return w->fn(&r, w->arg);
}

int vtb_store_race_get(struct vtb_store *st, int64_t campaign_id,
		       int (*fn)(const struct vtb_race_row *row, void *arg), void *arg, bool *found)
{
	static const char sel[] = "SELECT objective, candidates, stop, winners, rounds, boots,"
				  " updated_ns, stop_evidence FROM race WHERE campaign_id = ?1";
	struct race_walk w = { fn, arg, found };

	*found = false;
	return store_query_each(st, sel, campaign_id, "read the race", emit_race, &w);
}

struct elim_walk {
	int (*fn)(const struct vtb_race_elim_row *row, void *arg);
	void *arg;
};

static int emit_elim(sqlite3_stmt *s, void *ctx)
{
	struct elim_walk *w = ctx;
	struct vtb_race_elim_row r = {
		.round = sqlite3_column_int64(s, 0),
		.config_key = column_text(s, 1),
		.metric = column_text(s, 2),
		.best_key = column_text(s, 3),
		.reason = column_text(s, 4),
		.evidence = column_text(s, 5),
	};

	return w->fn(&r, w->arg);
}

int vtb_store_foreach_race_elim(struct vtb_store *st, int64_t campaign_id,
				int (*fn)(const struct vtb_race_elim_row *row, void *arg),
				void *arg)
{
	static const char sel[] = "SELECT round, config_key, metric, best_key, reason, evidence"
				  " FROM race_elimination WHERE campaign_id = ?1 ORDER BY round, id";
	struct elim_walk w = { fn, arg };

	return store_query_each(st, sel, campaign_id, "read the eliminations", emit_elim, &w);
}

int vtb_store_latest_race(struct vtb_store *st, int64_t *campaign_id, bool *found)
{
	sqlite3_stmt *s = NULL;
	int ret = -1;

	*found = false;
	if (prepare(st,
		    "SELECT campaign.id FROM campaign JOIN race ON race.campaign_id = campaign.id"
		    " ORDER BY campaign.started_ns DESC, campaign.id DESC LIMIT 1",
		    &s) < 0)
		goto out;
	if (step(st, s, "find the latest race", found) < 0)
		goto out;
	if (*found)
		*campaign_id = sqlite3_column_int64(s, 0);
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int vtb_store_foreach_guest_tree(struct vtb_store *st, int64_t campaign_id, const char *config_key,
				 int (*fn)(const struct vtb_guest_tree_row *row, void *arg),
				 void *arg)
{
	static const char sel[] =
		"SELECT g.digest, g.tree, count(*), min(b.rep) FROM guest_view g"
		" JOIN boot b ON b.id = g.boot_id JOIN config c ON c.id = b.config_id"
		" WHERE b.campaign_id = ?1 AND c.key = ?2 AND g.tree IS NOT NULL"
		" AND g.digest IS NOT NULL GROUP BY g.digest ORDER BY min(b.rep), g.digest";
	sqlite3_stmt *s = NULL;
	bool row;
	int ret = -1;

	if (prepare(st, sel, &s) < 0)
		goto out;
	if (bind_int(s, 1, campaign_id) | bind_text0(s, 2, config_key)) {
		db_error(st, "bind the configuration");
		goto out;
	}
	for (;;) {
		struct vtb_guest_tree_row r;

		if (step(st, s, "read the guest views", &row) < 0)
			goto out;
		if (!row)
			break;
		r = (struct vtb_guest_tree_row){
			.digest = column_text(s, 0),
			.tree = column_text(s, 1),
			.boots = sqlite3_column_int64(s, 2),
			.first_rep = sqlite3_column_int(s, 3),
		};
		if (!r.digest || !r.tree) {
			st->bad_content = true;
			vtb_error("'%s': a guest view without its tree", st->path);
			goto out;
		}
		if (fn(&r, arg) < 0)
			goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}
