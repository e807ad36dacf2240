/* SPDX-License-Identifier: MIT */
/* vtbench upload: a campaign to a dashboard, exactly once (upload.c) */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "upload.h"

static const char upload_usage[] =
	"usage: vtbench upload --to URL [--db FILE] [--campaign UUID] [--dry-run] [options]\n"
	"\n"
	"Sends a campaign (default: the latest) to a dashboard.  Each boot sent to a\n"
	"sink is recorded in the database: a second upload to the same URL sends only\n"
	"what is missing, and a batch counts as sent only after the server answered\n"
	"2xx.  Sinks (vtbench list sinks):\n"
	"  influx[+https]://HOST:PORT/DB           InfluxDB 1.x, line protocol\n"
	"  influx2[+https]://HOST:PORT/ORG/BUCKET  InfluxDB 2.x, line protocol\n"
	"  pushgateway[+https]://HOST:PORT/JOB     Prometheus Pushgateway: the Pushgateway keeps\n"
	"      only the last value of a series and a PUT replaces the whole group, so this\n"
	"      sink publishes the campaign as a snapshot (one gauge per configuration, cell\n"
	"      and metric: mean, stddev, n; no per-boot labels) under\n"
	"      job/JOB/instance/HOST, again on every upload (each one recorded)\n"
	"  codespeed+http[s]://HOST[:PORT]/        Codespeed: one result per configuration, cell\n"
	"      and metric (mean, std_dev, min, max), once per campaign; the environment\n"
	"      (the host name) must exist in Codespeed (the error says how to create it)\n"
	"  http[s]://HOST[:PORT]/PATH              generic JSON: compare's document and every\n"
	"      boot's samples in one POST, once per campaign\n"
	"\n"
	"options:\n"
	"  --to URL               the sink\n"
	"  --db FILE              results database (default: results.db)\n"
	"  --campaign UUID        the campaign to send (default: the latest)\n"
	"  --dry-run              print each request (credentials masked); send and record nothing\n"
	"  --cacert FILE          CA certificates for TLS (default: the system's; TLS is always verified)\n"
	"  --token-file FILE      the token, from a file no one else may access (chmod 600)\n"
	"  --connect-timeout DUR  per attempt (default: 10s)\n"
	"  --timeout DUR          per request, whole (default: 60s)\n"
	"  --attempts N           per batch, the first included (default: 5)\n"
	"  --retry-time DUR       per batch, retries and waits included (default: 2m)\n"
	"  --backoff DUR          first retry delay, doubled each time, jittered (default: 500ms)\n"
	"  --batch N              points per request, whole boots (default: 5000)\n"
	"  -h, --help             this help\n"
	"\n"
	"Credentials come only from VTBENCH_UPLOAD_TOKEN, or VTBENCH_UPLOAD_USER and\n"
	"VTBENCH_UPLOAD_PASSWORD (basic authentication), or --token-file; they are never\n"
	"printed or stored.  Connection errors, timeouts, 429 (Retry-After honoured up to\n"
	"86400 s; a larger one gives up) and 5xx are retried, each wait at most a day;\n"
	"other answers fail at once with the server's message.\n"
	"Exit: 0 everything sent, 2 usage or input error, 3 something remains unsent\n"
	"(a later upload sends it).\n";

static void on_note(void *arg, const char *msg)
{
	const struct vtb_cmd_env *env = arg;

	vtb_cmd_err(env, "%s", msg);
}

int vtb_cmd_upload(const struct vtb_cmd_env *env, struct vtb_store *st, const char *db,
		   struct vtb_upload_opts *o)
{
	struct vtb_upload_result res;
	int r, ret;

	if (!o->note) {
		o->note = on_note;
		o->note_arg = (void *)env;
	}
	r = vtb_upload(st, o, &res);
	if (r < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = res.sink ? VTB_EXIT_INFRA : VTB_EXIT_USAGE;
		/* nothing started: an input error; the store failing later is
		 * infrastructure, unless its content was (a damaged or crafted
		 * database) */
		if (!res.campaign || vtb_store_bad_content(st))
			ret = VTB_EXIT_USAGE;
		vtb_upload_result_release(&res);
		return ret;
	}
	if (o->dry_run) {
		fprintf(stderr,
			"dry run: campaign %s, %ld boot%s, %ld already sent to %s; nothing sent or recorded\n",
			res.campaign, res.boots, res.boots == 1 ? "" : "s", res.boots_before,
			res.sink);
		vtb_upload_result_release(&res);
		return 0;
	}
	if (res.per_boot)
		printf("campaign %s -> %s: %ld boot%s sent now (%ld point%s, %ld request%s, %ld retr%s), %ld sent before, %ld unsent\n",
		       res.campaign, res.sink, res.boots_sent, res.boots_sent == 1 ? "" : "s",
		       res.points_sent, res.points_sent == 1 ? "" : "s", res.requests,
		       res.requests == 1 ? "" : "s", res.retries, res.retries == 1 ? "y" : "ies",
		       res.boots_before, res.boots_unsent);
	else
		printf("campaign %s -> %s: %s (%ld point%s, %ld request%s, %ld retr%s)\n",
		       res.campaign, res.sink,
		       res.items_sent	  ? "sent"
		       : res.items_before ? "nothing sent (sent before)"
					  : "nothing sent",
		       res.points_sent, res.points_sent == 1 ? "" : "s", res.requests,
		       res.requests == 1 ? "" : "s", res.retries, res.retries == 1 ? "y" : "ies");
	fflush(stdout);
	ret = 0;
	if (r > 0) {
		if (res.per_boot)
			vtb_cmd_err(env, "%ld of %ld boot%s%s remain unsent to %s: %s",
				    res.boots_unsent, res.boots, res.boots == 1 ? "" : "s",
				    res.items_unsent ? " and the campaign's summary" : "", res.sink,
				    res.error ? res.error : "?");
		else
			vtb_cmd_err(env, "the campaign remains unsent to %s: %s", res.sink,
				    res.error ? res.error : "?");
		vtb_cmd_err(
			env,
			"run the same upload again to send the rest: vtbench upload --db %s --to %s --campaign %s",
			db, res.sink, res.campaign);
		ret = VTB_EXIT_INFRA;
	}
	vtb_upload_result_release(&res);
	return ret;
}

static int parse_ms(const struct vtb_cmd_env *env, const char *opt, const char *s, long *out)
{
	uint64_t ns;

	if (vtb_parse_time_ns(s, &ns) || ns / 1000000 > 24 * 3600 * 1000ULL) {
		vtb_cmd_err(env, "--%s '%s': expected a duration such as 500ms, 10s or 2m", opt, s);
		return -1;
	}
	*out = (long)(ns / 1000000);
	return 0;
}

static int parse_long(const struct vtb_cmd_env *env, const char *opt, const char *s, long long max,
		      long *out)
{
	long long v;

	if (vtb_parse_int(s, 1, max, &v)) {
		vtb_cmd_err(env, "--%s: %s", opt, vtb_errmsg());
		return -1;
	}
	*out = (long)v;
	return 0;
}

int cmd_upload(struct vtb_cmd_env *env)
{
	static const struct option longopts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "db", required_argument, NULL, 'd' },
		{ "campaign", required_argument, NULL, 'c' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "cacert", required_argument, NULL, 'C' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "connect-timeout", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 'm' },
		{ "attempts", required_argument, NULL, 'a' },
		{ "retry-time", required_argument, NULL, 'r' },
		{ "backoff", required_argument, NULL, 'b' },
		{ "batch", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vtb_upload_opts o = {
		.connect_timeout_ms = VTB_UPLOAD_CONNECT_TIMEOUT_MS,
		.timeout_ms = VTB_UPLOAD_TIMEOUT_MS,
		.attempts = VTB_UPLOAD_ATTEMPTS,
		.max_time_ms = VTB_UPLOAD_MAX_TIME_MS,
		.backoff_ms = VTB_UPLOAD_BACKOFF_MS,
		.batch_points = VTB_UPLOAD_BATCH_POINTS,
		.dry_out = stdout,
	};
	int c;

	optind = 1;
	while ((c = getopt_long(env->argc, env->argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			o.url = optarg;
			break;
		case 'd':
			env->db = optarg;
			break;
		case 'c':
			o.campaign = optarg;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case 'C':
			o.cacert = optarg;
			break;
		case 'T':
			o.token_file = optarg;
			break;
		case 'o':
			if (parse_ms(env, "connect-timeout", optarg, &o.connect_timeout_ms))
				return VTB_EXIT_USAGE;
			break;
		case 'm':
			if (parse_ms(env, "timeout", optarg, &o.timeout_ms))
				return VTB_EXIT_USAGE;
			break;
		case 'a':
			if (parse_long(env, "attempts", optarg, 100, &o.attempts))
				return VTB_EXIT_USAGE;
			break;
		case 'r':
			if (parse_ms(env, "retry-time", optarg, &o.max_time_ms))
				return VTB_EXIT_USAGE;
			break;
		case 'b':
			if (parse_ms(env, "backoff", optarg, &o.backoff_ms))
				return VTB_EXIT_USAGE;
			break;
		case 'B':
			if (parse_long(env, "batch", optarg, 10000000, &o.batch_points))
				return VTB_EXIT_USAGE;
			break;
		case 'h':
			fputs(upload_usage, stdout);
			return 0;
		default:
			fputs(upload_usage, stderr);
			return VTB_EXIT_USAGE;
		}
	}
	if (optind != env->argc) {
		vtb_cmd_err(env, "unexpected argument '%s'", env->argv[optind]);
		return VTB_EXIT_USAGE;
	}
	if (!o.url) {
		vtb_cmd_err(env, "--to URL is required (vtbench list sinks)");
		fputs(upload_usage, stderr);
		return VTB_EXIT_USAGE;
	}
	if (!o.connect_timeout_ms || !o.timeout_ms) {
		vtb_cmd_err(env, "timeouts must be at least 1ms");
		return VTB_EXIT_USAGE;
	}
	if (!env->db)
		env->db = "results.db";
	if (access(env->db, F_OK) < 0) {
		vtb_cmd_err(env, "cannot open database '%s': %s", env->db, strerror(errno));
		return VTB_EXIT_USAGE;
	}
	/* read-write: what is sent is recorded (schema 6 migrates here) */
	if (vtb_store_open(env->db, &env->store)) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return VTB_EXIT_USAGE;
	}
	return vtb_cmd_upload(env, env->store, env->db, &o);
}
