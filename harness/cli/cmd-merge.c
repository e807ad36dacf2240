/* SPDX-License-Identifier: MIT */
/* vtbench merge: unite the databases of several hosts (store.c does the copy) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"

enum { OPT_FORMAT = 256, OPT_QUIET = 'q', OPT_VERBOSE = 'v' };

#define MERGE_SCHEMA "vtbench-merge-summary/1"

static const struct vtb_cli_opt merge_opts[] = {
	{ .name = "format",
	  .id = OPT_FORMAT,
	  .arg = "FORMAT",
	  .values = vtb_cmd_formats,
	  .help = "the summary: text (default) or json (one document on stdout when merge ends, "
		  "\"schema\": \"" MERGE_SCHEMA "\"; the text lines go to stderr)" },
	{ .name = "quiet", .id = OPT_QUIET, .shortopt = 'q', .help = "only the summary line" },
	{ .name = "verbose",
	  .id = OPT_VERBOSE,
	  .shortopt = 'v',
	  .help = "also, per input, how many rows of each kind it added" },
	{ 0 },
};

const struct vtb_cli merge_cli = {
	.cmd = "merge",
	.usage = "OUT.db IN.db... [options]",
	.about =
		"Copies every campaign of each IN.db that OUT.db lacks (by uuid), with its host,\n"
		"configurations, cells, boots, results, samples, histograms, guest views, events\n"
		"and upload records, into OUT.db (created when missing); one transaction per\n"
		"input.  A campaign already in OUT.db is skipped: merging again adds nothing.\n"
		"An input with an older schema is read through an in-memory migrated copy (the\n"
		"file is never written); a newer schema or a file that is not a vtbench\n"
		"database is refused before anything is merged.  Hosts cloned from one image\n"
		"tell themselves apart with host_id = in [global] or VTBENCH_HOST_ID at run time.\n",
	.opts = merge_opts,
	.exits = "0 merged (or nothing new), 2 usage or input error (nothing merged), 3 "
		 "infrastructure failure (the inputs before the failing one stay merged).",
};

/* "[IN: ]merged N campaigns[ into OUT] (N skipped: ...): counts" */
static void print_stats(FILE *f, const char *in, const char *out, const struct vtb_merge_stats *s)
{
	fprintf(f,
		"%s%smerged %ld campaign%s%s%s (%ld skipped: already there): %ld new host%s, "
		"%ld configurations, %ld boots, %ld results, %ld samples, %ld histograms, "
		"%ld guest views, %ld events, %ld upload records\n",
		in ? in : "", in ? ": " : "", s->campaigns, s->campaigns == 1 ? "" : "s",
		out ? " into " : "", out ? out : "", s->skipped, s->hosts, s->hosts == 1 ? "" : "s",
		s->configs, s->boots, s->results, s->samples, s->histograms, s->guest_views,
		s->events, s->uploads);
}

struct merge_state {
	const char *out;
	bool quiet;
	FILE *f;	   /* the text lines: stdout, stderr with --format json */
	json_t *campaigns; /* --format json: the current input's campaigns */
};

static int on_campaign(const struct vtb_merge_campaign *c, void *arg)
{
	struct merge_state *ms = arg;

	if (ms->campaigns &&
	    json_array_append_new(ms->campaigns,
				  json_pack("{s:s, s:s, s:s, s:o, s:I, s:b}", "uuid", c->uuid,
					    "host", c->hostname, "status", c->status, "started",
					    vtb_cmd_time_json(c->started_ns), "boots",
					    (json_int_t)c->boots, "merged", c->merged)))
		return vtb_error("out of memory");
	if (ms->quiet)
		return 0;
	/* names from the input databases: through the sanitiser */
	char *uuid = vtb_term_safe(c->uuid), *host = vtb_term_safe(c->hostname);
	char *status = vtb_term_safe(c->status);

	if (uuid && host && status && c->merged)
		fprintf(ms->f, "%s: merged campaign %s (host %s, %s, %ld boot%s)\n", c->input, uuid,
			host, status, c->boots, c->boots == 1 ? "" : "s");
	else if (uuid && host && status)
		fprintf(ms->f, "%s: skipped campaign %s (host %s): already in %s\n", c->input, uuid,
			host, ms->out);
	free(uuid);
	free(host);
	free(status);
	return 0;
}

/* Same file as @out (after both exist)? */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* Each input (and an existing output) is one vtbench may read: checked
 * before anything is written. */
static int check_inputs(const struct vtb_cmd_env *env, const char *out, char **in, int n)
{
	struct vtb_store *st = NULL;

	if (access(out, F_OK) == 0) {
		if (vtb_store_open_ro(out, &st) < 0) {
			vtb_cmd_err(env, "%s", vtb_errmsg());
			return -1;
		}
		vtb_store_close(st);
	}
	for (int i = 0; i < n; i++) {
		if (access(in[i], F_OK) < 0) {
			vtb_cmd_err(env, "cannot open database '%s': %s", in[i], strerror(errno));
			return -1;
		}
		if (same_file(in[i], out)) {
			vtb_cmd_err(env, "'%s' is the output database", in[i]);
			return -1;
		}
		if (vtb_store_open_ro(in[i], &st) < 0) {
			vtb_cmd_err(env, "%s", vtb_errmsg());
			return -1;
		}
		vtb_store_close(st);
	}
	return 0;
}

static json_t *stats_json(const struct vtb_merge_stats *s)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "campaigns",
			 (json_int_t)s->campaigns, "skipped", (json_int_t)s->skipped, "hosts",
			 (json_int_t)s->hosts, "configurations", (json_int_t)s->configs, "boots",
			 (json_int_t)s->boots, "results", (json_int_t)s->results, "samples",
			 (json_int_t)s->samples, "histograms", (json_int_t)s->histograms,
			 "guest_views", (json_int_t)s->guest_views, "events", (json_int_t)s->events,
			 "upload_records", (json_int_t)s->uploads);
}

static void stats_add(struct vtb_merge_stats *t, const struct vtb_merge_stats *s)
{
	t->campaigns += s->campaigns;
	t->skipped += s->skipped;
	t->hosts += s->hosts;
	t->configs += s->configs;
	t->boots += s->boots;
	t->results += s->results;
	t->samples += s->samples;
	t->histograms += s->histograms;
	t->guest_views += s->guest_views;
	t->events += s->events;
	t->uploads += s->uploads;
}

/* --format json: the inputs as far as they went, the totals */
static int print_json(const struct vtb_cmd_env *env, const char *out, bool created, json_t *inputs,
		      const struct vtb_merge_stats *total, int ret)
{
	json_t *doc = vtb_cmd_doc_new(MERGE_SCHEMA, env->name);
	char *path = vtb_cmd_abspath(out);
	bool bad = !doc || !path;

	if (!bad)
		bad = json_object_set_new(doc, "status", json_string(ret ? "error" : "done")) ||
		      json_object_set_new(doc, "error",
					  ret && vtb_cmd_last_err()
						  ? json_string(vtb_cmd_last_err())
						  : json_null()) ||
		      json_object_set_new(doc, "output", json_string(path)) ||
		      json_object_set_new(doc, "created", json_boolean(created && !ret)) ||
		      json_object_set(doc, "inputs", inputs) ||
		      json_object_set_new(doc, "added", stats_json(total));
	free(path);
	return vtb_cmd_doc_print(env, doc, bad, ret);
}

/* Each input in turn; 0 or the exit code after the message */
static int merge_all(struct vtb_cmd_env *env, struct merge_state *ms, char **in, int n_in,
		     bool verbose, json_t *inputs, struct vtb_merge_stats *total)
{
	for (int i = 0; i < n_in; i++) {
		struct vtb_merge_stats s;
		json_t *one = NULL;
		char *path;
		int r;

		if (inputs) {
			path = vtb_cmd_abspath(in[i]);
			ms->campaigns = json_array();
			one = path && ms->campaigns ? json_pack("{s:s, s:O}", "path", path,
								"campaigns", ms->campaigns)
						    : NULL;
			free(path);
			json_decref(ms->campaigns);
			if (!one || json_array_append_new(inputs, one)) {
				vtb_cmd_err(env, "out of memory");
				return VTB_EXIT_INFRA;
			}
		}
		r = vtb_store_merge(env->store, in[i], &s, on_campaign, ms);
		if (r < 0) {
			vtb_cmd_err(env, "%s", vtb_errmsg());
			/* an input that is not (any more) a vtbench database as
			 * written, or damaged */
			return vtb_store_bad_content(env->store) ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
		}
		if (one && json_object_set_new(one, "added", stats_json(&s))) {
			vtb_cmd_err(env, "out of memory");
			return VTB_EXIT_INFRA;
		}
		if (verbose && !ms->quiet)
			print_stats(ms->f, in[i], NULL, &s);
		stats_add(total, &s);
	}
	return 0;
}

int cmd_merge(struct vtb_cmd_env *env)
{
	struct vtb_cli_parser cp;
	struct merge_state ms = { .f = stdout };
	struct vtb_merge_stats total = { 0 };
	const char *out_path, *arg;
	bool verbose = false, json = false, created;
	json_t *inputs = NULL;
	int c, n_in, ret;

	vtb_cli_init(&cp, &merge_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0) {
		if (c == OPT_QUIET)
			ms.quiet = true;
		else if (c == OPT_VERBOSE)
			verbose = true;
		else if (c == OPT_FORMAT)
			json = !strcmp(arg, "json");
	}
	if (c < 0)
		return vtb_cli_exit(c);
	optind = cp.optind;
	n_in = env->argc - optind - 1;
	if (n_in < 1) {
		vtb_cli_usage_error(&merge_cli,
				    "expected the output database and at least one input");
		return VTB_EXIT_USAGE;
	}
	out_path = env->argv[optind];
	ms.out = out_path;
	created = access(out_path, F_OK) < 0;
	if (json) {
		ms.f = stderr;
		inputs = json_array();
		if (!inputs) {
			vtb_cmd_err(env, "out of memory");
			return VTB_EXIT_INFRA;
		}
	}
	ret = VTB_EXIT_USAGE;
	if (check_inputs(env, out_path, env->argv + optind + 1, n_in) < 0)
		goto out;
	/* the output is opened (created) only once every input is known good */
	env->db = out_path;
	ret = vtb_cmd_setup(env);
	if (ret)
		goto out;
	ret = merge_all(env, &ms, env->argv + optind + 1, n_in, verbose, inputs, &total);
	if (!ret)
		print_stats(ms.f, NULL, out_path, &total);
out:
	if (json)
		ret = print_json(env, out_path, created, inputs, &total, ret);
	json_decref(inputs);
	return ret;
}
