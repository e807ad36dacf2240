/* SPDX-License-Identifier: MIT */
/* vtbench merge: unite the databases of several hosts (store.c does the copy) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"

enum { OPT_QUIET = 'q', OPT_VERBOSE = 'v' };

static const struct vtb_cli_opt merge_opts[] = {
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
static void print_stats(const char *in, const char *out, const struct vtb_merge_stats *s)
{
	printf("%s%smerged %ld campaign%s%s%s (%ld skipped: already there): %ld new host%s, "
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
};

static int on_campaign(const struct vtb_merge_campaign *c, void *arg)
{
	struct merge_state *ms = arg;

	if (ms->quiet)
		return 0;
	/* names from the input databases: through the sanitiser */
	char *uuid = vtb_term_safe(c->uuid), *host = vtb_term_safe(c->hostname);
	char *status = vtb_term_safe(c->status);

	if (uuid && host && status && c->merged)
		printf("%s: merged campaign %s (host %s, %s, %ld boot%s)\n", c->input, uuid, host,
		       status, c->boots, c->boots == 1 ? "" : "s");
	else if (uuid && host && status)
		printf("%s: skipped campaign %s (host %s): already in %s\n", c->input, uuid, host,
		       ms->out);
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

int cmd_merge(struct vtb_cmd_env *env)
{
	struct vtb_cli_parser cp;
	struct merge_state ms = { 0 };
	struct vtb_merge_stats total = { 0 };
	const char *out_path, *arg;
	bool verbose = false;
	int c, n_in, ret;

	vtb_cli_init(&cp, &merge_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0) {
		if (c == OPT_QUIET)
			ms.quiet = true;
		else if (c == OPT_VERBOSE)
			verbose = true;
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
	if (check_inputs(env, out_path, env->argv + optind + 1, n_in) < 0)
		return VTB_EXIT_USAGE;
	/* the output is opened (created) only once every input is known good */
	env->db = out_path;
	ret = vtb_cmd_setup(env);
	if (ret)
		return ret;
	for (int i = 0; i < n_in; i++) {
		const char *in = env->argv[optind + 1 + i];
		struct vtb_merge_stats s;

		if (vtb_store_merge(env->store, in, &s, on_campaign, &ms) < 0) {
			vtb_cmd_err(env, "%s", vtb_errmsg());
			/* an input that is not (any more) a vtbench database as
			 * written, or damaged */
			return vtb_store_bad_content(env->store) ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
		}
		if (verbose && !ms.quiet)
			print_stats(in, NULL, &s);
		total.campaigns += s.campaigns;
		total.skipped += s.skipped;
		total.hosts += s.hosts;
		total.configs += s.configs;
		total.boots += s.boots;
		total.results += s.results;
		total.samples += s.samples;
		total.histograms += s.histograms;
		total.guest_views += s.guest_views;
		total.events += s.events;
		total.uploads += s.uploads;
	}
	print_stats(NULL, out_path, &total);
	return VTB_EXIT_OK;
}
