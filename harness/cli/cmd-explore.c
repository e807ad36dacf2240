/* SPDX-License-Identifier: MIT */
/*
 * vtbench explore: run's campaign, booted in rounds chosen by the race of
 * the matrix's [explore] objective (harness/explore/explore.h), and the
 * race's outcome.  The boots go through the runner exactly as run's do;
 * only the choice of each round is the race's.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "../boot/runner.h"
#include "../explore/explore.h"
#include "../explore/recommend.h"
#include "../matrix/conf.h"
#include "../../reports/recommend.h"

enum {
	OPT_DB = 256,
	OPT_RESUME,
	OPT_BUDGET_BOOTS,
	OPT_BUDGET_TIME,
	OPT_FORMAT,
	OPT_QUIET = 'q',
	OPT_VERBOSE = 'v',
};

#define EXPLORE_SCHEMA "vtbench-explore-summary/1"

static const struct vtb_cli_opt explore_opts[] = {
	{ .name = "db",
	  .id = OPT_DB,
	  .arg = "FILE",
	  .help = "results database, from the working directory (default: the matrix's db =, from "
		  "the matrix file's directory, else results.db)" },
	{ .name = "resume",
	  .id = OPT_RESUME,
	  .help = "continue the latest campaign of this matrix on this host: the race is rebuilt "
		  "from its stored rounds and goes on; no boot runs twice" },
	{ .name = "budget-boots",
	  .id = OPT_BUDGET_BOOTS,
	  .arg = "N",
	  .help = "candidate boots at most (over [explore] budget_boots; 0: none)" },
	{ .name = "budget-time",
	  .id = OPT_BUDGET_TIME,
	  .arg = "DUR",
	  .help = "no boot starts that would end past DUR from now (over [explore] budget_time; "
		  "0: none)" },
	{ .name = "format",
	  .id = OPT_FORMAT,
	  .arg = "FORMAT",
	  .values = vtb_cmd_formats,
	  .help = "the closing summary: text (default) or json (one document on stdout when "
		  "explore ends, \"schema\": \"" EXPLORE_SCHEMA "\": run's fields and the race; "
		  "progress, messages, the text summary and the recommendation go to stderr)" },
	{ .name = "quiet",
	  .id = OPT_QUIET,
	  .shortopt = 'q',
	  .help = "no progress: only warnings, errors and the summary" },
	{ .name = "verbose",
	  .id = OPT_VERBOSE,
	  .shortopt = 'v',
	  .help = "every boot's outcome on its own line, also on a terminal" },
	{ 0 },
};

const struct vtb_cli explore_cli = {
	.cmd = "explore",
	.usage = "MATRIX.conf [options]",
	.about = "Races the matrix's configurations on its [explore] objective (F-Race style):\n"
		 "each round boots every surviving candidate once, interleaved, with its\n"
		 "bare-metal baseline; from min_rounds on, each round drops the candidates\n"
		 "worse than the round's best by compare's rules.  Stored as a campaign like\n"
		 "run's, with the race and every elimination.  Ends with the answer: the\n"
		 "winner, its margins, its guests' sched domains and why each other\n"
		 "candidate lost (vtbench recommend's text; its -o FILE.html adds the chart).\n",
	.opts = explore_opts,
	.exits = "0 the race ran (every boot ok); 1 some boots failed or timed out (all stored), or a "
		 "configuration's kernel lacks a knob of its sched profile; "
		 "2 usage or input error (no [explore], an objective no cell reports, a preflight "
		 "check failed: vtbench doctor); 3 "
		 "infrastructure failure; 130 interrupted by SIGINT, 143 by SIGTERM (resume with "
		 "--resume).",
};

struct explore_args {
	struct vtb_run_opts o;
	struct vtb_progress_state ps;
	long long budget_boots; /* -1: the matrix's */
	uint64_t budget_ns;
	bool budget_time;
};

static int parse_args(struct vtb_cmd_env *env, struct explore_args *a, int *code)
{
	struct vtb_cli_parser cp;
	const char *arg;
	int c;

	vtb_cli_init(&cp, &explore_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0) {
		switch (c) {
		case OPT_DB:
			a->o.db = arg;
			break;
		case OPT_RESUME:
			a->o.resume = true;
			break;
		case OPT_BUDGET_BOOTS:
			if (vtb_parse_int(arg, 0, 100000000, &a->budget_boots)) {
				vtb_cli_usage_error(&explore_cli, "--budget-boots: %s",
						    vtb_errmsg());
				*code = VTB_EXIT_USAGE;
				return -1;
			}
			break;
		case OPT_BUDGET_TIME:
			if (vtb_parse_time_ns(arg, &a->budget_ns)) {
				vtb_cli_usage_error(&explore_cli, "--budget-time: %s",
						    vtb_errmsg());
				*code = VTB_EXIT_USAGE;
				return -1;
			}
			a->budget_time = true;
			break;
		case OPT_QUIET:
			a->ps.quiet = true;
			break;
		case OPT_VERBOSE:
			a->ps.verbose = true;
			break;
		case OPT_FORMAT:
			a->ps.json = !strcmp(arg, "json");
			break;
		}
	}
	return vtb_cmd_run_args_end(&explore_cli, env, c, cp.optind, &a->ps, &a->o.matrix, code);
}

/* The race's news: through the progress display, as run's notes */
static void on_note(const char *msg, void *arg)
{
	struct vtb_progress p = { .note = msg, .eta_seconds = -1 };

	vtb_cmd_progress(&p, arg);
}

/* The matrix's race settings, with the command line's over them; the
 * runner boots up to max_rounds reps a configuration, within the time. */
static void settle(struct vtb_matrix *m, const struct explore_args *a)
{
	if (a->budget_boots >= 0)
		m->explore->budget_boots = a->budget_boots;
	if (a->budget_time)
		m->explore->budget_ns = a->budget_ns;
	m->max_reps = m->explore->max_rounds;
	m->min_reps = m->explore->min_rounds;
	m->budget_ns = m->explore->budget_ns;
}

/* The most boots the race takes, as plan says it: the progress's total */
static int race_total(const struct vtb_matrix *m, size_t *total)
{
	struct vtb_explore_plan x = { 0 };

	if (vtb_explore_plan_make(m, &x) < 0)
		return -1;
	*total = x.n >= 2 ? (size_t)(x.cand_boots + x.base_boots) : 0;
	vtb_explore_plan_release(&x);
	return 0;
}

static void print_summary(FILE *f, const struct vtb_run_result *res,
			  const struct vtb_explore_outcome *oc)
{
	vtb_cmd_run_boots_line(f, res);
	fprintf(f,
		"\nrace: %s after %zu round%s and %zu candidate boot%s; %zu of %zu candidate%s "
		"eliminated\n",
		oc->stop, oc->rounds, oc->rounds == 1 ? "" : "s", oc->boots,
		oc->boots == 1 ? "" : "s", oc->eliminated, oc->candidates,
		oc->candidates == 1 ? "" : "s");
	if (oc->why)
		fprintf(f, "%s\n", oc->why);
	if (oc->winner) {
		char *w = vtb_term_safe(oc->winner);

		fprintf(f, "winner: %s", w ? w : "?");
		if (oc->tied)
			fprintf(f, " (tied with %zu other%s: same within the threshold)", oc->tied,
				oc->tied == 1 ? "" : "s");
		fputc('\n', f);
		free(w);
	} else {
		fprintf(f, "winner: none yet (under min_rounds complete rounds)\n");
	}
}

/*
 * The answer in one command: a race with a winner is followed by what
 * `vtbench recommend` prints of it (the margins, what the winner's guests
 * built, why each other candidate lost).  A failure to build it is a
 * warning: the campaign and the race are stored.
 */
static void print_recommendation(FILE *f, struct vtb_cmd_env *env, const struct vtb_run_result *res,
				 const struct vtb_explore_outcome *oc)
{
	json_t *doc = NULL;
	bool bad = false;
	char *db = vtb_cmd_abs_path(res->db);
	const char *at = db ? db : res->db;

	if (oc->winner && !res->interrupted) {
		if (vtb_recommend_build(env->store, res->db, res->campaign, &doc, &bad) < 0) {
			vtb_cmd_err(env, "warning: no recommendation: %s", vtb_errmsg());
		} else {
			fprintf(f, "\nthe recommendation (vtbench recommend --db %s):\n\n", at);
			struct vtb_report_opts ro = { .columns = vtb_cmd_text_columns(f) };

			if (vtb_recommend_text(doc, &ro, f) < 0)
				vtb_cmd_err(env, "warning: no recommendation: %s", vtb_errmsg());
			json_decref(doc);
		}
	}
	fprintf(f,
		"results in %s; the report with the racing chart: vtbench recommend --db %s -o "
		"race.html\n",
		at, at);
	free(db);
}

/* The race as stored, for --format json: keys and labels of the winner and
 * the survivors tied with it, every elimination in order */
struct race_walk {
	json_t *race, *elims, *labels; /* labels: key -> label */
	bool bad;
};

static json_t *key_label(json_t *labels, const char *key)
{
	json_t *l = json_object_get(labels, key ? key : "");

	return json_pack("{s:s, s:O}", "key", key ? key : "", "label", l ? l : json_null());
}

static int on_race(const struct vtb_race_row *r, void *arg)
{
	struct race_walk *w = arg;
	json_t *winners = r->winners ? json_loads(r->winners, 0, NULL) : NULL;
	json_t *cands = r->candidates ? json_loads(r->candidates, 0, NULL) : NULL;
	json_t *win = json_null(), *tied = json_array(), *cl = json_array();
	size_t i;
	json_t *k;

	json_array_foreach(winners, i, k)
	{
		json_t *o = key_label(w->labels, json_string_value(k));

		w->bad |= i ? json_array_append_new(tied, o) : ((win = o) == NULL);
	}
	json_array_foreach(cands, i, k)
		w->bad |= json_array_append_new(cl, key_label(w->labels, json_string_value(k)));
	w->bad |= json_object_set_new(w->race, "stop", json_string(r->stop ? r->stop : "")) ||
		  json_object_set_new(w->race, "rounds", json_integer(r->rounds)) ||
		  json_object_set_new(w->race, "candidate_boots", json_integer(r->boots)) ||
		  json_object_set_new(w->race, "candidates", cl) ||
		  json_object_set_new(w->race, "winner", win) ||
		  json_object_set_new(w->race, "tied", tied);
	json_decref(winners);
	json_decref(cands);
	return 0;
}

static int on_elim(const struct vtb_race_elim_row *r, void *arg)
{
	struct race_walk *w = arg;
	json_t *l = json_object_get(w->labels, r->config_key ? r->config_key : "");
	json_t *e = json_pack("{s:I, s:s, s:O, s:s, s:s, s:s}", "round", (json_int_t)r->round,
			      "key", r->config_key ? r->config_key : "", "label",
			      l ? l : json_null(), "metric", r->metric ? r->metric : "", "best_key",
			      r->best_key ? r->best_key : "", "reason", r->reason ? r->reason : "");

	w->bad |= json_array_append_new(w->elims, e);
	return 0;
}

/* explore's document: run's, and "race" */
static json_t *race_doc(struct vtb_cmd_env *env, const struct explore_args *a,
			const struct vtb_run_result *res, const struct vtb_explore_outcome *oc,
			const char *status, int64_t t0)
{
	json_t *doc = vtb_cmd_run_doc(env, EXPLORE_SCHEMA, a->o.matrix, res, status,
				      strcmp(status, "error") ? NULL : vtb_cmd_last_err(), t0);
	struct race_walk w = { .race = json_object(),
			       .elims = json_array(),
			       .labels = json_object() };
	json_t *c;
	size_t i;
	int64_t id;
	size_t n;
	bool found = false;

	w.bad = !doc || !w.race || !w.elims || !w.labels;
	json_array_foreach(doc ? json_object_get(doc, "configurations") : NULL, i, c)
		w.bad |= json_object_set(w.labels, json_string_value(json_object_get(c, "key")),
					 json_object_get(c, "label")) < 0;
	if (!w.bad && oc)
		w.bad = json_object_set_new(w.race, "eliminated",
					    json_integer((json_int_t)oc->eliminated)) ||
			json_object_set_new(w.race, "why",
					    oc->why ? json_string(oc->why) : json_null());
	if (!w.bad && env->store && res->campaign[0] &&
	    !vtb_store_campaign_lookup(env->store, res->campaign, &id, &n) && n == 1 &&
	    (vtb_store_race_get(env->store, id, on_race, &w, &found) < 0 ||
	     vtb_store_foreach_race_elim(env->store, id, on_elim, &w) < 0))
		w.bad |= json_object_set_new(doc, "stored_error", json_string(vtb_errmsg()));
	if (!w.bad)
		w.bad = json_object_set(w.race, "eliminations", w.elims) ||
			json_object_set(doc, "race", found || oc ? w.race : json_null());
	json_decref(w.race);
	json_decref(w.elims);
	json_decref(w.labels);
	if (w.bad) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int cmd_explore(struct vtb_cmd_env *env)
{
	struct explore_args a = { .ps = { .cmd = "explore", .tty = isatty(2) },
				  .budget_boots = -1 };
	struct vtb_run_input in = { 0 };
	struct vtb_run_result res = { 0 };
	struct vtb_explore *ex = NULL;
	struct vtb_run_rounds rounds;
	struct vtb_explore_outcome oc;
	const char *status = "error";
	int64_t t0 = vtb_cmd_wall_ns();
	bool args_read = false, have_oc = false;
	char *agent = NULL;
	int ret;

	if (parse_args(env, &a, &ret))
		goto out;
	args_read = true;
	ret = vtb_cmd_run_opts(env, &a.o, &a.ps, &agent);
	if (ret)
		goto out;
	a.o.reps_auto = true; /* interleaved rounds */
	ret = vtb_cmd_setup_host(env);
	if (ret)
		goto out;
	if (vtb_run_load(&a.o, env->host, &in, &res) ||
	    !(ex = vtb_explore_new(in.m, on_note, &a.ps))) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = res.fail == VTB_RUN_INFRA ? VTB_EXIT_INFRA : VTB_EXIT_USAGE;
		goto out;
	}
	settle(in.m, &a);
	if (race_total(in.m, &a.o.max_boots) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	rounds = (struct vtb_run_rounds){ .decide = vtb_explore_decide, .arg = ex };
	a.o.rounds = &rounds;
	ret = vtb_cmd_preflight(env, in.m, a.o.matrix);
	if (ret)
		goto out;
	env->db = res.db;
	ret = vtb_cmd_setup(env);
	if (ret)
		goto out;
	if (vtb_run(&a.o, &in, env->store, &res)) {
		ret = vtb_cmd_run_failed(env, a.o.matrix, &a.ps, &res);
		/* libvirt or the guest kernel failed before the campaign
		 * began: a database made for it holds nothing */
		env->discard_created_db = !res.campaign[0];
		goto out;
	}
	if (a.ps.line_open)
		fputs("\r\033[K", stderr);
	if (vtb_explore_finish(ex, env->store, res.interrupted, res.budget_spent) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	vtb_explore_outcome(ex, &oc);
	have_oc = true;
	status = res.interrupted ? "interrupted" : "done";
	print_summary(a.ps.json ? stderr : stdout, &res, &oc);
	print_recommendation(a.ps.json ? stderr : stdout, env, &res, &oc);
	ret = vtb_cmd_run_exit(env, a.o.matrix, &res);
out:
	if (a.ps.json && args_read) {
		json_t *doc = race_doc(env, &a, &res, have_oc ? &oc : NULL, status, t0);

		ret = vtb_cmd_doc_print(env, doc, !doc, ret);
	}
	vtb_explore_free(ex);
	vtb_run_input_release(&in);
	vtb_run_result_release(&res);
	free(agent);
	return ret;
}
