/* SPDX-License-Identifier: MIT */
/*
 * vtbench recommend: the answer of a campaign vtbench explore ran (the
 * document harness/explore/recommend.h builds) as text, HTML or JSON.
 * Exit codes as compare's: 0 written, 2 bad input, 3 infrastructure.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "../explore/recommend.h"
#include "../../reports/recommend.h"

_Static_assert(sizeof(VTB_RECOMMEND_SCHEMA) == sizeof(VTB_RECOMMEND_DOC_SCHEMA),
	       "the recommend document and its emitters know one schema");

enum {
	OPT_DB = 256,
	OPT_CAMPAIGN,
	OPT_FORMAT,
	OPT_OUTPUT = 'o',
};

static const char *const formats[] = { "text", "html", "json", NULL };

static const struct vtb_cli_opt recommend_opts[] = {
	{ .name = "db",
	  .id = OPT_DB,
	  .arg = "FILE",
	  .help = "results database (default: results.db)" },
	{ .name = "campaign",
	  .id = OPT_CAMPAIGN,
	  .arg = "ID",
	  .help = "campaign uuid or prefix (default: the latest campaign vtbench explore ran)" },
	{ .name = "format",
	  .id = OPT_FORMAT,
	  .arg = "FMT",
	  .help = "text (default; as wide as COLUMNS, else the terminal, also through a pipe, else 80 columns), html "
		  "(one page with the racing chart) or json (the document, schema " VTB_RECOMMEND_SCHEMA
		  ")" },
	{ .name = "output",
	  .id = OPT_OUTPUT,
	  .shortopt = 'o',
	  .arg = "FILE",
	  .help = "write to FILE (whole or not at all) instead of stdout; FILE.html or FILE.json "
		  "picks the format when --format is not given" },
	{ 0 },
};

const struct vtb_cli recommend_cli = {
	.cmd = "recommend",
	.usage = "[options]",
	.about = "Reports what vtbench explore found, per objective metric: the winning\n"
		 "configuration with its change against its bare-metal baseline and against\n"
		 "the runner-up, the sched-domain trees its guests built, its claims and vCPU\n"
		 "drift, and every eliminated candidate with the round and evidence.\n",
	.opts = recommend_opts,
	.exits = "0 written; 2 usage or input error (no explore campaign, an unknown campaign); "
		 "3 infrastructure failure.",
};

struct recommend_args {
	const char *campaign, *format, *out_path;
};

/* The format of -o FILE's extension, else text */
static const char *format_of_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (n > 5 && !strcasecmp(path + n - 5, ".html"))
		return "html";
	if (n > 5 && !strcasecmp(path + n - 5, ".json"))
		return "json";
	return "text";
}

static int parse_args(struct vtb_cmd_env *env, struct recommend_args *a, int *code)
{
	struct vtb_cli_parser cp;
	const char *arg;
	int c;

	vtb_cli_init(&cp, &recommend_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0) {
		switch (c) {
		case OPT_DB:
			env->db = arg;
			break;
		case OPT_CAMPAIGN:
			a->campaign = arg;
			break;
		case OPT_FORMAT:
			a->format = NULL;
			for (size_t i = 0; formats[i]; i++)
				if (!strcmp(arg, formats[i]))
					a->format = formats[i];
			if (!a->format) {
				vtb_cli_usage_error(
					&recommend_cli,
					"--format: unknown format '%s' (text, html, json)", arg);
				*code = VTB_EXIT_USAGE;
				return -1;
			}
			break;
		case OPT_OUTPUT:
			a->out_path = arg;
			break;
		}
	}
	if (c < 0) {
		*code = vtb_cli_exit(c);
		return -1;
	}
	if (cp.optind != env->argc) {
		vtb_cli_usage_error(&recommend_cli, "unexpected argument '%s'",
				    env->argv[cp.optind]);
		*code = VTB_EXIT_USAGE;
		return -1;
	}
	if (!a->format)
		a->format = format_of_path(a->out_path);
	return 0;
}

static int render(const char *format, const json_t *doc, FILE *f)
{
	if (!strcmp(format, "html"))
		return vtb_recommend_html(doc, f);
	if (!strcmp(format, "text")) {
		struct vtb_report_opts ro = { .columns = vtb_cmd_text_columns(f) };

		return vtb_recommend_text(doc, &ro, f);
	}
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12)) < 0 ||
	    fputc('\n', f) == EOF || fflush(f) || ferror(f))
		return vtb_error("cannot write the document");
	return 0;
}

int cmd_recommend(struct vtb_cmd_env *env)
{
	struct recommend_args a = { 0 };
	struct vtb_cmd_output out = { .f = stdout };
	struct vtb_out_input inputs[2] = { { .what = "the database", .sqlite = true } };
	json_t *doc = NULL;
	bool bad = false;
	int ret;

	if (parse_args(env, &a, &ret))
		return ret;
	ret = vtb_cmd_setup(env);
	if (ret)
		return ret;
	inputs[0].path = env->db;
	ret = vtb_cmd_output_open(env, &out, a.out_path, inputs);
	if (ret)
		goto out;
	if (vtb_recommend_build(env->store, env->db, a.campaign, &doc, &bad) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = bad ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
		goto out;
	}
	if (render(a.format, doc, out.f) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	ret = vtb_cmd_output_commit(env, &out);
out:
	vtb_cmd_output_abandon(&out);
	json_decref(doc);
	return ret;
}
