/* SPDX-License-Identifier: MIT */
/*
 * vtbench list runs|cells|kernels|workloads|sinks|formats.  Each listing is built once as
 * rows of named columns (JSON objects), then written as an aligned table
 * with a header row for people, as TSV or as JSON for programs.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../reports/report.h"
#include "../../workloads/workload.h"
#include "cmd.h"
#include "../upload/upload.h"

#define LIST_SCHEMA "vtbench-list/1"

static const char *const formats[] = { "text", "tsv", "json", NULL };
/* the listings by name, for completion (a test checks each is one) */
static const char *const kinds[] = { "runs",  "cells",	 "kernels", "workloads",
				     "sinks", "formats", NULL };

enum { OPT_DB = 256, OPT_ALL, OPT_FORMAT, OPT_QUIET = 'q' };

static const struct vtb_cli_opt list_opts[] = {
	{ .name = "db",
	  .id = OPT_DB,
	  .arg = "FILE",
	  .help = "results database (default: results.db)" },
	{ .name = "format",
	  .id = OPT_FORMAT,
	  .arg = "FMT",
	  .values = formats,
	  .help = "text (default: aligned columns under a header row), tsv (a header row, then "
		  "tab-separated values; tab, newline and backslash escaped as \\t, \\n, \\\\) or "
		  "json (\"schema\": \"" LIST_SCHEMA "\", rows as objects)" },
	{ .name = "all", .id = OPT_ALL, .help = "list hidden (debug) workloads too" },
	{ .name = "quiet",
	  .id = OPT_QUIET,
	  .shortopt = 'q',
	  .help = "only the first column (campaign uuids, cell keys, names), no header" },
	{ 0 },
};

const struct vtb_cli list_cli = {
	.cmd = "list",
	.usage = "runs|cells|kernels|workloads|sinks|formats [options]",
	.about = "  runs        campaigns in the database: uuid, start and end, status, host,\n"
		 "              boots (ok, failed), matrix\n"
		 "  cells       the cells of the latest campaign: cell and configuration keys,\n"
		 "              configuration, workload, name, boots stored (ok), parameters\n"
		 "  kernels     the guest kernels the VM boots of the latest campaign ran: kernel\n"
		 "              (its [vm] kernel = name), release, sha256 of the image and of its\n"
		 "              .config, boots (ok)\n"
		 "  workloads   the workloads the agent has (--all: with debug ones)\n"
		 "  sinks       where vtbench upload can send results (URL forms)\n"
		 "  formats     the report formats of vtbench compare --format (extensions\n"
		 "              -o recognises, media type)\n",
	.opts = list_opts,
	.exits = "0 listed, 2 usage or input error (no such database, no campaign), 3 the "
		 "database cannot be read.",
	.operands = kinds,
};

/* A listing's columns: the JSON key (TSV header) and the text header. */
struct column {
	const char *key, *title;
};

static const struct column run_cols[] = {
	{ "campaign", "CAMPAIGN" },
	{ "started", "STARTED" },
	{ "ended", "ENDED" },
	{ "status", "STATUS" },
	{ "host", "HOST" },
	{ "boots", "BOOTS" },
	{ "ok", "OK" },
	{ "failed", "FAILED" },
	{ "matrix", "MATRIX" },
	{ NULL, NULL },
};

static const struct column cell_cols[] = {
	{ "cell", "CELL" },
	{ "config", "CONFIG" },
	{ "configuration", "CONFIGURATION" },
	{ "workload", "WORKLOAD" },
	{ "name", "NAME" },
	{ "boots", "BOOTS" },
	{ "ok", "OK" },
	{ "params", "PARAMS" },
	{ NULL, NULL },
};

static const struct column kernel_cols[] = {
	{ "kernel", "KERNEL" }, { "release", "RELEASE" },
	{ "sha256", "SHA256" }, { "config_sha256", "CONFIG SHA256" },
	{ "boots", "BOOTS" },	{ "ok", "OK" },
	{ NULL, NULL },
};

static const struct column workload_cols[] = {
	{ "name", "NAME" },
	{ "summary", "SUMMARY" },
	{ NULL, NULL },
};

static const struct column sink_cols[] = {
	{ "name", "NAME" },
	{ "url", "URL" },
	{ "summary", "SUMMARY" },
	{ NULL, NULL },
};

static const struct column format_cols[] = {
	{ "name", "NAME" },
	{ "extensions", "EXTENSIONS" },
	{ "media_type", "MEDIA TYPE" },
	{ "summary", "SUMMARY" },
	{ NULL, NULL },
};

/* ISO 8601 UTC, or JSON null when not set */
static json_t *iso_time(int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	char buf[32];

	if (!ns || !gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return json_null();
	return json_string(buf);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static int add_row(json_t *rows, json_t *row)
{
	if (!row || json_array_append_new(rows, row))
		return vtb_error("out of memory");
	return 0;
}

static int on_run(const struct vtb_run_row *r, void *arg)
{
	return add_row(arg,
		       json_pack("{s:s, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:o}", "campaign",
				 r->uuid, "started", iso_time(r->started_ns), "ended",
				 iso_time(r->ended_ns), "status", str_or_null(r->status), "host",
				 str_or_null(r->hostname), "boots", (json_int_t)r->boots, "ok",
				 (json_int_t)r->boots_ok, "failed", (json_int_t)r->boots_failed,
				 "matrix", str_or_null(r->matrix_path)));
}

static int on_cell(const struct vtb_cell_row *r, void *arg)
{
	json_t *params = json_loads(r->params_json ? r->params_json : "{}", 0, NULL);

	return add_row(arg,
		       json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:o}", "cell", r->cell_key,
				 "config", r->config_key, "configuration", r->config_label,
				 "workload", r->workload, "name", r->cell_name, "boots",
				 (json_int_t)r->boots, "ok", (json_int_t)r->ok, "params",
				 params ? params : json_string(r->params_json)));
}

/* A cell's text: strings through the sanitiser (the database is a file
 * anyone may hand over: no escape sequence, tab or line break of its
 * strings reaches the terminal or splits a TSV field), numbers in
 * decimal, objects as compact JSON, null as "-" (text) or "" (TSV).
 * Malloc'ed. */
static char *cell_text(const json_t *v, bool tsv)
{
	if (json_is_string(v))
		return vtb_term_safe(json_string_value(v));
	if (json_is_integer(v))
		return vtb_asprintf("%lld", (long long)json_integer_value(v));
	if (!v || json_is_null(v))
		return strdup(tsv ? "" : "-");
	return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
}

static void put_tsv(const char *s)
{
	for (; *s; s++) {
		if (*s == '\t')
			fputs("\\t", stdout);
		else if (*s == '\n')
			fputs("\\n", stdout);
		else if (*s == '\r')
			fputs("\\r", stdout);
		else if (*s == '\\')
			fputs("\\\\", stdout);
		else
			putchar(*s);
	}
}

/*
 * A cell of a padded column in text: at most TEXT_CELL_MAX bytes, cut
 * with '~' (as compare's text cuts).  A host name or a matrix path is a
 * database's (anyone's file): one of 50 MB padded every line of the
 * listing to 50 MB.  TSV and JSON keep it whole, and so does the last
 * column, which is not padded.
 */
#define TEXT_CELL_MAX 64

static char *text_cell(const json_t *v, bool padded)
{
	char *t = cell_text(v, false);
	size_t n = t ? strlen(t) : 0;

	if (!padded || n <= TEXT_CELL_MAX)
		return t;
	n = vtb_utf8_cut(t, n, TEXT_CELL_MAX - 1);
	t[n] = '~';
	t[n + 1] = 0;
	return t;
}

/* A text cell padded to @w, or (w < 0) the last one of its line */
static void put_text(const char *s, int w)
{
	if (w < 0)
		printf("%s\n", s);
	else
		printf("%-*s  ", w, s);
}

static int emit(const char *what, const struct column *cols, json_t *rows, const char *format,
		bool quiet)
{
	size_t n_cols = 0, i, c, w[16] = { 0 };
	json_t *row;

	while (cols[n_cols].key && n_cols < VTB_ARRAY_SIZE(w))
		n_cols++;
	if (quiet)
		n_cols = 1;
	if (!strcmp(format, "json")) {
		json_t *doc = json_pack("{s:s, s:s, s:O}", "schema", LIST_SCHEMA, "list", what,
					"rows", rows);
		char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;

		json_decref(doc);
		if (!text)
			return vtb_error("out of memory");
		puts(text);
		free(text);
		return 0;
	}
	if (!strcmp(format, "tsv")) {
		for (c = 0; c < n_cols && !quiet; c++)
			printf("%s%s", c ? "\t" : "", cols[c].key);
		if (!quiet)
			putchar('\n');
		json_array_foreach(rows, i, row)
		{
			for (c = 0; c < n_cols; c++) {
				char *t = cell_text(json_object_get(row, cols[c].key), true);

				if (c)
					putchar('\t');
				put_tsv(t ? t : "");
				free(t);
			}
			putchar('\n');
		}
		return 0;
	}
	/* text: columns as wide as their widest cell (TEXT_CELL_MAX at most),
	 * the last one free */
	for (c = 0; c < n_cols; c++)
		w[c] = strlen(cols[c].title);
	json_array_foreach(rows, i, row)
	{
		for (c = 0; c < n_cols; c++) {
			char *t = text_cell(json_object_get(row, cols[c].key), c + 1 < n_cols);

			if (t && strlen(t) > w[c])
				w[c] = strlen(t);
			free(t);
		}
	}
	for (c = 0; c < n_cols && !quiet; c++)
		put_text(cols[c].title, c + 1 < n_cols ? (int)w[c] : -1);
	json_array_foreach(rows, i, row)
	{
		for (c = 0; c < n_cols; c++) {
			char *t = text_cell(json_object_get(row, cols[c].key), c + 1 < n_cols);

			put_text(t ? t : "?", c + 1 < n_cols ? (int)w[c] : -1);
			free(t);
		}
	}
	return 0;
}

/*
 * Each listing's rows: 0, or -1 with vtb_error() (-2: the input is at
 * fault, a usage error).  The store, when the listing needs it, is open.
 */
static int rows_of_workloads(struct vtb_cmd_env *env, json_t *rows, bool all)
{
	(void)env;
	for (size_t i = 0; vtb_workloads[i]; i++) {
		if (vtb_workloads[i]->hidden && !all)
			continue;
		if (add_row(rows, json_pack("{s:s, s:s}", "name", vtb_workloads[i]->name, "summary",
					    vtb_workloads[i]->summary)))
			return -1;
	}
	return 0;
}

static int rows_of_sinks(struct vtb_cmd_env *env, json_t *rows, bool all)
{
	const struct vtb_sink_info *si;

	(void)env, (void)all;
	for (size_t i = 0; (si = vtb_sink_info(i)); i++)
		if (add_row(rows, json_pack("{s:s, s:s, s:s}", "name", si->name, "url", si->url,
					    "summary", si->summary)))
			return -1;
	return 0;
}

/* extensions as one field: ".html .htm" */
static int rows_of_formats(struct vtb_cmd_env *env, json_t *rows, bool all)
{
	(void)env, (void)all;
	for (size_t i = 0; vtb_reports[i]; i++) {
		const struct vtb_report_ops *r = vtb_reports[i];
		struct vtb_strbuf ext = VTB_STRBUF_INIT;
		int ret = 0;

		for (size_t e = 0; e < VTB_ARRAY_SIZE(r->ext) && r->ext[e] && !ret; e++)
			ret = vtb_strbuf_addf(&ext, "%s%s", e ? " " : "", r->ext[e]);
		if (ret || add_row(rows, json_pack("{s:s, s:s, s:s, s:s}", "name", r->name,
						   "extensions", vtb_strbuf_str(&ext), "media_type",
						   r->media_type, "summary", r->summary)))
			ret = vtb_error("out of memory");
		vtb_strbuf_release(&ext);
		if (ret)
			return -1;
	}
	return 0;
}

static int rows_of_runs(struct vtb_cmd_env *env, json_t *rows, bool all)
{
	(void)all;
	return vtb_store_foreach_run(env->store, on_run, rows) ? -1 : 0;
}

/* The latest campaign's id: 0, -1 when the store fails, -2 (an input
 * error) when there is none. */
static int latest_campaign(struct vtb_cmd_env *env, int64_t *id)
{
	bool found = false;

	if (vtb_store_latest_campaign(env->store, id, &found))
		return -1;
	if (!found) {
		vtb_error("no campaign in '%s'", env->db);
		return -2;
	}
	return 0;
}

/* the cells of the latest campaign */
static int rows_of_cells(struct vtb_cmd_env *env, json_t *rows, bool all)
{
	int64_t id;
	int r = latest_campaign(env, &id);

	(void)all;
	if (r)
		return r;
	return vtb_store_foreach_cell(env->store, id, on_cell, rows) ? -1 : 0;
}

/* A guest kernel: "(staged)" without [vm] kernel =; identities older
 * databases did not store are null. */
static int on_kernel(const struct vtb_kernel_row *r, void *arg)
{
	return add_row(arg, json_pack("{s:s, s:o, s:o, s:o, s:I, s:I}", "kernel",
				      r->name ? r->name : "(staged)", "release",
				      str_or_null(r->release), "sha256", str_or_null(r->sha256),
				      "config_sha256", str_or_null(r->config_sha256), "boots",
				      (json_int_t)r->boots, "ok", (json_int_t)r->ok));
}

/* the guest kernels of the latest campaign */
static int rows_of_kernels(struct vtb_cmd_env *env, json_t *rows, bool all)
{
	int64_t id;
	int r = latest_campaign(env, &id);

	(void)all;
	if (r)
		return r;
	return vtb_store_foreach_kernel(env->store, id, on_kernel, rows) ? -1 : 0;
}

/* The listings, alphabetical; need_db: open the database first. */
static const struct listing {
	const char *name;
	const struct column *cols;
	int (*rows)(struct vtb_cmd_env *env, json_t *rows, bool all);
	bool need_db;
} listings[] = {
	{ "cells", cell_cols, rows_of_cells, true },
	{ "formats", format_cols, rows_of_formats, false },
	{ "kernels", kernel_cols, rows_of_kernels, true },
	{ "runs", run_cols, rows_of_runs, true },
	{ "sinks", sink_cols, rows_of_sinks, false },
	{ "workloads", workload_cols, rows_of_workloads, false },
};

/* The listing named @what; else NULL after the usage error (the nearest
 * name suggested). */
static const struct listing *listing_named(const char *what)
{
	const char *names[VTB_ARRAY_SIZE(listings) + 1], *near;
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(listings); i++) {
		if (!strcmp(listings[i].name, what))
			return &listings[i];
		names[i] = listings[i].name;
	}
	names[i] = NULL;
	near = vtb_suggest(names, what);
	vtb_cli_usage_error(&list_cli,
			    "unknown list '%s'%s%s%s: expected runs, cells, kernels, workloads, "
			    "sinks or formats",
			    what, near ? " (did you mean '" : "", near ? near : "",
			    near ? "'?)" : "");
	return NULL;
}

int cmd_list(struct vtb_cmd_env *env)
{
	struct vtb_cli_parser cp;
	const char *arg, *format = "text";
	const struct listing *l;
	json_t *rows = json_array();
	bool all = false, quiet = false;
	int c, ret = VTB_EXIT_USAGE;

	if (!rows) {
		vtb_cmd_err(env, "out of memory");
		return VTB_EXIT_INFRA;
	}
	vtb_cli_init(&cp, &list_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0) {
		switch (c) {
		case OPT_DB:
			env->db = arg;
			break;
		case OPT_ALL:
			all = true;
			break;
		case OPT_FORMAT:
			format = arg;
			break;
		case OPT_QUIET:
			quiet = true;
			break;
		}
	}
	if (c < 0) {
		ret = vtb_cli_exit(c);
		goto out;
	}
	if (cp.optind != env->argc - 1) {
		vtb_cli_usage_error(
			&list_cli,
			"expected one of runs, cells, kernels, workloads, sinks or formats");
		goto out;
	}
	l = listing_named(env->argv[cp.optind]);
	if (!l)
		goto out;
	if (l->need_db) {
		env->flags |= VTB_CMD_NEED_DB;
		ret = vtb_cmd_setup(env);
		if (ret)
			goto out;
	}
	ret = l->rows(env, rows, all);
	if (!ret)
		ret = emit(l->name, l->cols, rows, format, quiet);
	if (!ret)
		goto out;
	vtb_cmd_err(env, "%s", vtb_errmsg());
	/* a damaged or crafted database is input */
	ret = ret == -2 || (env->store && vtb_store_bad_content(env->store)) ? VTB_EXIT_USAGE
									     : VTB_EXIT_INFRA;
out:
	json_decref(rows);
	return ret;
}
