/* SPDX-License-Identifier: MIT */
/* vtbench merge: unite the databases of several hosts (store.c does the copy) */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"

static const char merge_usage[] =
	"usage: vtbench merge OUT.db IN.db...\n"
	"\n"
	"Copies every campaign of each IN.db that OUT.db lacks (by uuid), with its host,\n"
	"configurations, cells, boots, results, samples, histograms, guest views, events\n"
	"and upload records, into OUT.db (created when missing); one transaction per\n"
	"input.  A campaign already in OUT.db is skipped: merging again adds nothing.\n"
	"An input with an older schema is read through an in-memory migrated copy (the\n"
	"file is never written); a newer schema or a file that is not a vtbench\n"
	"database is refused before anything is merged.  Hosts cloned from one image\n"
	"tell themselves apart with host_id = in [global] or VTBENCH_HOST_ID at run time.\n"
	"\n"
	"options:\n"
	"  -q, --quiet  only the summary line\n"
	"  -h, --help   this help\n"
	"\n"
	"Exit: 0 merged (or nothing new), 2 usage or input error (nothing merged),\n"
	"3 infrastructure failure (the inputs before the failing one stay merged).\n";

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
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct merge_state ms = { 0 };
	struct vtb_merge_stats total = { 0 };
	struct vtb_store *out = NULL;
	const char *out_path;
	int c, n_in, ret = VTB_EXIT_INFRA;

	optind = 1;
	while ((c = getopt_long(env->argc, env->argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			ms.quiet = true;
			break;
		case 'h':
			fputs(merge_usage, stdout);
			return 0;
		default:
			fputs(merge_usage, stderr);
			return VTB_EXIT_USAGE;
		}
	}
	n_in = env->argc - optind - 1;
	if (n_in < 1) {
		vtb_cmd_err(env, "expected the output database and at least one input");
		fputs(merge_usage, stderr);
		return VTB_EXIT_USAGE;
	}
	out_path = env->argv[optind];
	ms.out = out_path;
	if (check_inputs(env, out_path, env->argv + optind + 1, n_in) < 0)
		return VTB_EXIT_USAGE;
	if (vtb_store_open(out_path, &out) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return VTB_EXIT_INFRA;
	}
	for (int i = 0; i < n_in; i++) {
		const char *in = env->argv[optind + 1 + i];
		struct vtb_merge_stats s;

		if (vtb_store_merge(out, in, &s, on_campaign, &ms) < 0) {
			vtb_cmd_err(env, "%s", vtb_errmsg());
			goto out;
		}
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
	printf("merged %ld campaign%s into %s (%ld skipped: already there): %ld new host%s, "
	       "%ld configurations, %ld boots, %ld results, %ld samples, %ld histograms, "
	       "%ld guest views, %ld events, %ld upload records\n",
	       total.campaigns, total.campaigns == 1 ? "" : "s", out_path, total.skipped,
	       total.hosts, total.hosts == 1 ? "" : "s", total.configs, total.boots, total.results,
	       total.samples, total.histograms, total.guest_views, total.events, total.uploads);
	ret = VTB_EXIT_OK;
out:
	vtb_store_close(out);
	return ret;
}
