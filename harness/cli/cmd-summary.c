/* SPDX-License-Identifier: MIT */
/*
 * The --format json summaries of run, explore, merge and upload: one
 * document on stdout when the command ends, built with jansson, for the
 * programs (a nightly wrapper) that would otherwise parse the prose.  The
 * shared parts live here: the document's envelope (schema, status, exit
 * code and its meaning), absolute paths, times, and a campaign's boots
 * and configurations as the database holds them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "../boot/runner.h"

const char *const vtb_cmd_formats[] = { "text", "json", NULL };

char *vtb_cmd_abspath(const char *path)
{
	char *r, *cwd;

	if (!path)
		return NULL;
	r = realpath(path, NULL);
	if (r || path[0] == '/')
		return r ? r : vtb_strdup(path);
	/* not there (any more): where it would be */
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return vtb_strdup(path);
	r = vtb_asprintf("%s/%s", cwd, path);
	free(cwd);
	return r;
}

/* A word as sh reads it: quoted only when it must be */
static int add_word(struct vtb_strbuf *sb, const char *w)
{
	const char *p;

	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_./:=@%+,-") == strlen(w))
		return vtb_strbuf_addf(sb, "%s", w);
	if (vtb_strbuf_addf(sb, "'"))
		return -1;
	for (p = w; *p; p++)
		if (*p == '\'' ? vtb_strbuf_addf(sb, "'\\''") : vtb_strbuf_addf(sb, "%c", *p))
			return -1;
	return vtb_strbuf_addf(sb, "'");
}

json_t *vtb_cmd_command_json(const char *const *argv)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	char *s;
	json_t *v;

	for (size_t i = 0; argv[i]; i++)
		if ((i && vtb_strbuf_addf(&sb, " ")) || add_word(&sb, argv[i])) {
			free(vtb_strbuf_detach(&sb));
			return NULL;
		}
	s = vtb_strbuf_detach(&sb);
	v = s ? json_string(s) : NULL;
	free(s);
	return v;
}

int64_t vtb_cmd_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

json_t *vtb_cmd_time_json(int64_t ns)
{
	char buf[32];
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns <= 0 || !gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return json_null();
	return json_string(buf);
}

/* What each exit code means, for programs that do not read --help */
static const char *exit_meaning(const char *cmd, int code)
{
	bool campaign = !strcmp(cmd, "run") || !strcmp(cmd, "explore");

	switch (code) {
	case VTB_EXIT_OK:
		return "ok";
	case VTB_EXIT_FAIL:
		return campaign ? "some boots failed or timed out, or a configuration was not run "
				  "(all stored)"
				: "failed";
	case VTB_EXIT_USAGE:
		return "usage or input error: nothing was run or written";
	case VTB_EXIT_INFRA:
		return !strcmp(cmd, "upload") ? "something remains unsent or could not be recorded"
		       : campaign	      ? "infrastructure failure (what was stored is kept)"
					      : "infrastructure failure";
	case VTB_EXIT_INTERRUPTED:
		return "interrupted by SIGINT (what was stored is kept: --resume)";
	case VTB_EXIT_TERMINATED:
		return "terminated by SIGTERM (what was stored is kept: --resume)";
	}
	return "?";
}

json_t *vtb_cmd_doc_new(const char *schema, const char *cmd)
{
	return json_pack("{s:s, s:s}", "schema", schema, "command", cmd);
}

int vtb_cmd_doc_print(const struct vtb_cmd_env *env, json_t *doc, bool bad, int code)
{
	char *text = NULL;

	if (doc && !bad)
		bad = json_object_set_new(doc, "exit", json_integer(code)) ||
		      json_object_set_new(doc, "exit_meaning",
					  json_string(exit_meaning(env->name, code)));
	if (doc && !bad)
		text = json_dumps(doc, JSON_INDENT(2));
	json_decref(doc);
	if (!text) {
		vtb_cmd_err(env, "cannot build the JSON summary: out of memory");
		return code ? code : VTB_EXIT_INFRA;
	}
	fflush(stderr);
	fputs(text, stdout);
	fputc('\n', stdout);
	free(text);
	return code;
}

/* The boots of one kind (or all), by status */
static json_t *counts_json(const struct vtb_boot_counts *n)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "total", (json_int_t)n->total, "ok",
			 (json_int_t)n->ok, "failed", (json_int_t)n->failed, "timeout",
			 (json_int_t)n->timeout, "unexpected_topology", (json_int_t)n->unexpected);
}

static void counts_add(struct vtb_boot_counts *to, const struct vtb_boot_counts *n)
{
	to->total += n->total;
	to->ok += n->ok;
	to->failed += n->failed;
	to->timeout += n->timeout;
	to->unexpected += n->unexpected;
}

struct cfg_walk {
	json_t *configs;
	struct vtb_boot_counts all, vm, baseline;
	bool bad;
};

static int on_config(const struct vtb_config_row *r, const struct vtb_boot_counts *n, void *arg)
{
	struct cfg_walk *w = arg;
	json_t *c = json_pack("{s:s, s:s, s:s, s:b, s:o}", "key", r->key ? r->key : "", "label",
			      r->label ? r->label : "", "kind", r->kind ? r->kind : "", "runnable",
			      r->runnable, "boots", counts_json(n));

	w->bad |= !c || json_array_append_new(w->configs, c);
	counts_add(&w->all, n);
	counts_add(r->kind && !strcmp(r->kind, "vm") ? &w->vm : &w->baseline, n);
	return 0;
}

struct camp_walk {
	json_t *doc;
	bool bad;
};

static int on_campaign(const struct vtb_campaign_row *r, void *arg)
{
	struct camp_walk *w = arg;

	w->bad |= json_object_set_new(w->doc, "host",
				      json_string(r->hostname ? r->hostname : "")) ||
		  json_object_set_new(w->doc, "campaign_status",
				      r->status ? json_string(r->status) : json_null()) ||
		  json_object_set_new(w->doc, "campaign_started",
				      vtb_cmd_time_json(r->started_ns)) ||
		  json_object_set_new(w->doc, "campaign_ended", vtb_cmd_time_json(r->ended_ns));
	return 0;
}

/* The campaign as stored: its host and times, boots by status and kind,
 * and each configuration with its boots */
static int add_stored(struct vtb_store *st, int64_t id, json_t *doc, json_t **configs)
{
	struct cfg_walk w = { .configs = json_array() };
	struct camp_walk cw = { .doc = doc };
	json_t *stored;

	if (!w.configs)
		return -1;
	if (vtb_store_campaign_get(st, id, on_campaign, &cw) < 0 ||
	    vtb_store_foreach_config_boots(st, id, on_config, &w) < 0 || w.bad || cw.bad) {
		json_decref(w.configs);
		return -1;
	}
	stored = json_pack("{s:o, s:o, s:o}", "all", counts_json(&w.all), "vm", counts_json(&w.vm),
			   "baseline", counts_json(&w.baseline));
	if (json_object_set_new(doc, "stored_boots", stored)) {
		json_decref(w.configs);
		return -1;
	}
	*configs = w.configs;
	return 0;
}

/* "vtbench CMD ARGS..." as one string for sh */
static json_t *command(const char *a0, const char *a1, const char *a2, const char *a3,
		       const char *a4, const char *a5)
{
	const char *argv[] = { "vtbench", a0, a1, a2, a3, a4, a5, NULL };

	return vtb_cmd_command_json(argv);
}

json_t *vtb_cmd_run_doc(const struct vtb_cmd_env *env, const char *schema, const char *matrix,
			const struct vtb_run_result *res, const char *status, const char *error,
			int64_t started_ns)
{
	json_t *doc = vtb_cmd_doc_new(schema, env->name), *configs = NULL, *next, *rows;
	char *mx = vtb_cmd_abspath(matrix), *db = vtb_cmd_abspath(res->db);
	int64_t id = 0;
	size_t n = 0;
	bool bad = !doc || (matrix && !mx) || (res->db && !db);

	if (bad)
		goto out;
	bad |= json_object_set_new(doc, "status", json_string(status)) ||
	       json_object_set_new(doc, "error", error ? json_string(error) : json_null()) ||
	       json_object_set_new(doc, "campaign",
				   res->campaign[0] ? json_string(res->campaign) : json_null()) ||
	       json_object_set_new(doc, "resumed", json_boolean(res->resumed)) ||
	       json_object_set_new(doc, "matrix", mx ? json_string(mx) : json_null()) ||
	       json_object_set_new(doc, "db", db ? json_string(db) : json_null()) ||
	       json_object_set_new(doc, "host", json_null()) ||
	       json_object_set_new(doc, "started", vtb_cmd_time_json(started_ns)) ||
	       json_object_set_new(doc, "ended", vtb_cmd_time_json(vtb_cmd_wall_ns()));
	/* this invocation's boots */
	bad |= json_object_set_new(doc, "boots",
				   json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "planned",
					     (json_int_t)res->planned, "ran", (json_int_t)res->ran,
					     "ok", (json_int_t)res->ok, "failed",
					     (json_int_t)res->failed, "timeout",
					     (json_int_t)res->timeout, "unexpected_topology",
					     (json_int_t)res->unexpected, "already_stored",
					     (json_int_t)res->skipped));
	bad |= json_object_set_new(doc, "configurations_not_run",
				   json_integer((json_int_t)res->lacking));
	if (res->reps_auto) {
		const char *stop = res->interrupted	      ? "interrupted"
				   : res->budget_spent	      ? "budget"
				   : res->capped	      ? "max_reps"
				   : res->undecided == 0      ? "decided"
				   : !strcmp(status, "error") ? "error"
							      : "stopped";

		bad |= json_object_set_new(
			doc, "reps_auto",
			json_pack("{s:I, s:o, s:I, s:s}", "rounds", (json_int_t)res->rounds,
				  "undecided",
				  res->undecided < 0 ? json_null()
						     : json_integer((json_int_t)res->undecided),
				  "missing", (json_int_t)(res->missing > 0 ? res->missing : 0),
				  "stop", stop));
	} else {
		bad |= json_object_set_new(doc, "reps_auto", json_null());
	}
	if (!bad && env->store && res->campaign[0] &&
	    (vtb_store_campaign_lookup(env->store, res->campaign, &id, &n) < 0 || n != 1 ||
	     add_stored(env->store, id, doc, &configs) < 0)) {
		/* the summary says what it could not read, the run stands */
		bad |= json_object_set_new(doc, "stored_error", json_string(vtb_errmsg()));
	}
	bad |= json_object_set_new(doc, "configurations", configs ? configs : json_array());
	/* what to run next */
	rows = json_array();
	bad |= !rows;
	if (rows && res->campaign[0] && db && strcmp(status, "done"))
		bad |= json_array_append_new(rows,
					     command(env->name, mx, "--db", db, "--resume", NULL));
	if (rows && res->campaign[0] && db)
		bad |= json_array_append_new(rows,
					     command("compare", "--db", db, NULL, NULL, NULL));
	if (rows && res->campaign[0] && db && !strcmp(env->name, "explore"))
		bad |= json_array_append_new(rows, command("recommend", "--db", db, "-o",
							   "race.html", NULL));
	next = rows;
	bad |= json_object_set_new(doc, "next", next);
out:
	free(mx);
	free(db);
	if (bad) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}
