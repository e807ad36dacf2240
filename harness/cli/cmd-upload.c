/* SPDX-License-Identifier: MIT */
/* vtbench upload: a campaign to a dashboard, exactly once (upload.c) */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "../upload/upload.h"

enum {
	OPT_TO = 256,
	OPT_DB,
	OPT_CAMPAIGN,
	OPT_DRY_RUN,
	OPT_CACERT,
	OPT_TOKEN_FILE,
	OPT_CONNECT_TIMEOUT,
	OPT_TIMEOUT,
	OPT_ATTEMPTS,
	OPT_RETRY_TIME,
	OPT_BACKOFF,
	OPT_BATCH,
	OPT_BATCH_BYTES,
	OPT_RESEND_IN_FLIGHT,
	OPT_IN_FLIGHT_SENT,
	OPT_FORMAT,
	OPT_QUIET = 'q',
};

#define UPLOAD_SCHEMA "vtbench-upload-summary/1"

static const struct vtb_cli_opt upload_opts[] = {
	{ .name = "to", .id = OPT_TO, .arg = "URL", .help = "the sink (required)" },
	{ .name = "db",
	  .id = OPT_DB,
	  .arg = "FILE",
	  .help = "results database (default: results.db)" },
	{ .name = "campaign",
	  .id = OPT_CAMPAIGN,
	  .arg = "UUID",
	  .help = "the campaign to send (default: the latest)" },
	{ .name = "dry-run",
	  .id = OPT_DRY_RUN,
	  .help = "print each request (credentials masked); send and record nothing" },
	{ .name = "cacert",
	  .id = OPT_CACERT,
	  .arg = "FILE",
	  .help = "CA certificates for TLS (default: the system's; TLS is always verified)" },
	{ .name = "token-file",
	  .id = OPT_TOKEN_FILE,
	  .arg = "FILE",
	  .help = "the token, from a file no one else may access (chmod 600)" },
	{ .name = "connect-timeout",
	  .id = OPT_CONNECT_TIMEOUT,
	  .arg = "DUR",
	  .help = "per attempt (default: 10s)" },
	{ .name = "timeout",
	  .id = OPT_TIMEOUT,
	  .arg = "DUR",
	  .help = "per request, whole (default: 60s)" },
	{ .name = "attempts",
	  .id = OPT_ATTEMPTS,
	  .arg = "N",
	  .help = "per batch, the first included (default: 5)" },
	{ .name = "retry-time",
	  .id = OPT_RETRY_TIME,
	  .arg = "DUR",
	  .help = "per batch, retries and waits included (default: 2m)" },
	{ .name = "backoff",
	  .id = OPT_BACKOFF,
	  .arg = "DUR",
	  .help = "first retry delay, doubled each time, jittered (default: 500ms)" },
	{ .name = "batch",
	  .id = OPT_BATCH,
	  .arg = "N",
	  .help = "points per request, whole boots (default: 5000)" },
	{ .name = "batch-bytes",
	  .id = OPT_BATCH_BYTES,
	  .arg = "SIZE",
	  .help = "body bytes per request, whole boots: a larger boot goes alone (default: 1M)" },
	{ .name = "resend-in-flight",
	  .id = OPT_RESEND_IN_FLIGHT,
	  .help = "send again what an earlier upload sent without recording the answer" },
	{ .name = "in-flight-sent",
	  .id = OPT_IN_FLIGHT_SENT,
	  .help = "record what an earlier upload left in flight as sent, without a request" },
	{ .name = "format",
	  .id = OPT_FORMAT,
	  .arg = "FORMAT",
	  .values = vtb_cmd_formats,
	  .help = "the summary: text (default) or json (one document on stdout when upload "
		  "ends, \"schema\": \"" UPLOAD_SCHEMA "\"; the text summary and --dry-run's "
		  "requests go to stderr)" },
	{ .name = "quiet",
	  .id = OPT_QUIET,
	  .shortopt = 'q',
	  .help = "no summary line when everything was sent: only warnings and errors" },
	{ 0 },
};

const struct vtb_cli upload_cli = {
	.cmd = "upload",
	.usage = "--to URL [--db FILE] [--campaign UUID] [--dry-run] [options]",
	.about = "Sends a campaign (default: the latest) to a dashboard.  Each boot sent to a\n"
		 "sink is recorded in the database: a second upload to the same URL sends only\n"
		 "what is missing, and a batch counts as sent only after the server answered\n"
		 "2xx.  Sinks (vtbench list sinks):\n"
		 "  influx[+https]://HOST:PORT/DB           InfluxDB 1.x, line protocol\n"
		 "  influx2[+https]://HOST:PORT/ORG/BUCKET  InfluxDB 2.x, line protocol\n"
		 "      measurement vtbench: a point per boot, cell and metric;\n"
		 "      vtbench_campaign: the aggregates (the mean as compare computes it...)\n"
		 "  pushgateway[+https]://HOST:PORT/JOB     Prometheus Pushgateway: it keeps only\n"
		 "      the last value of a series and a PUT replaces the whole group, so this\n"
		 "      sink publishes the campaign as a snapshot (per configuration, cell and\n"
		 "      metric: a gauge family per quantity in base units, such as\n"
		 "      vtbench_wakeup_p99_seconds, with _stddev_seconds and _boots; no\n"
		 "      per-boot labels) under job/JOB/instance/HOST, again\n"
		 "      on every upload (each one recorded)\n"
		 "  codespeed+http[s]://HOST[:PORT]/        Codespeed: one result per\n"
		 "      configuration, cell and metric (mean, std_dev, min, max), once per\n"
		 "      campaign; the environment (the host name) must exist in Codespeed (the\n"
		 "      error says how to create it)\n"
		 "  http[s]://HOST[:PORT]/PATH              generic JSON: compare's document and\n"
		 "      every boot's samples in one POST, once per campaign\n"
		 "When the database cannot record a 2xx (disk full), InfluxDB and the\n"
		 "Pushgateway get the request again from the next upload, which changes\n"
		 "nothing there; Codespeed and JSON requests are recorded in flight before\n"
		 "they go, and the next upload reports one it finds in flight and holds it\n"
		 "back: check the sink, then --in-flight-sent or --resend-in-flight.\n",
	.opts = upload_opts,
	.more = "DUR is a time with a unit: 500ms, 10s, 2m (a bare number means seconds).\n"
		"Credentials come only from VTBENCH_UPLOAD_TOKEN, or VTBENCH_UPLOAD_USER and\n"
		"VTBENCH_UPLOAD_PASSWORD (basic authentication), or --token-file; they are never\n"
		"printed or stored.  Connection errors, timeouts, 429 (Retry-After honoured up to\n"
		"86400 s; a larger one gives up) and 5xx are retried, each wait at most a day;\n"
		"other answers fail at once with the server's message.  SIZE takes K, M, G\n"
		"(binary).  Text fields of the database are cut to 256 bytes, the cut marked.\n",
	.exits = "0 everything sent (or, with --dry-run, shown), 2 usage or input error, 3 "
		 "something remains unsent (a later upload sends it), is held back in flight, or "
		 "was accepted but could not be recorded (the message says what the next upload "
		 "sends again).",
};

/* A refusal the same request meets again: a 4xx other than a timeout
 * (408) or too many requests (429), which retrying may get past. */
static bool upload_refused(long status)
{
	return status >= 400 && status < 500 && status != 408 && status != 429;
}

static void on_note(void *arg, const char *msg)
{
	const struct vtb_cmd_env *env = arg;

	vtb_cmd_err(env, "%s", msg);
}

/* What one upload did, for --format json (docs/commands.md) */
static json_t *upload_json(const char *db, const struct vtb_upload_opts *o,
			   const struct vtb_upload_result *res, int r, const char *error)
{
	const char *status = r < 0				  ? "error"
			     : o->dry_run			  ? "dry-run"
			     : r > 0 && res->in_flight		  ? "in-flight"
			     : r > 0				  ? "partial"
			     : res->boots_sent || res->items_sent ? "sent"
								  : "nothing-new";
	char *path = vtb_cmd_abspath(db);
	json_t *next = json_null(), *v;

	if (r > 0 && !res->in_flight && res->sink && res->campaign) {
		const char *argv[] = { "vtbench",	 "upload",	"--db",
				       path ? path : db, "--to",	res->sink,
				       "--campaign",	 res->campaign, NULL };

		next = vtb_cmd_command_json(argv);
	}
	v = json_pack("{s:o, s:o, s:o, s:b, s:s, s:b, s:{s:I, s:I, s:I, s:I}, "
		      "s:{s:I, s:b, s:I, s:b, s:b}, s:I, s:I, s:I, s:o, s:o}",
		      "destination", res->sink ? json_string(res->sink) : json_null(), "campaign",
		      res->campaign ? json_string(res->campaign) : json_null(), "db",
		      path ? json_string(path) : json_null(), "dry_run", o->dry_run, "status",
		      status, "per_boot", res->per_boot, "boots", "campaign",
		      (json_int_t)res->boots, "sent_before", (json_int_t)res->boots_before,
		      "sent_now", (json_int_t)res->boots_sent, "unsent",
		      (json_int_t)res->boots_unsent, "campaign_item", "sent_now",
		      (json_int_t)res->items_sent, "sent_before", res->items_before, "unsent",
		      (json_int_t)res->items_unsent, "in_flight", res->in_flight,
		      "in_flight_recorded", res->in_flight_recorded, "points_sent",
		      (json_int_t)res->points_sent, "requests", (json_int_t)res->requests,
		      "retries", (json_int_t)res->retries, "error",
		      error ? json_string(error) : json_null(), "next", next);
	free(path);
	return v;
}

int vtb_cmd_upload(const struct vtb_cmd_env *env, struct vtb_store *st, const char *db,
		   struct vtb_upload_opts *o, bool quiet, json_t *sent)
{
	struct vtb_upload_result res;
	FILE *out = sent ? stderr : stdout;
	int r, ret;

	if (!o->note) {
		o->note = on_note;
		o->note_arg = (void *)env;
	}
	r = vtb_upload(st, o, &res);
	if (sent && json_array_append_new(sent, upload_json(db, o, &res, r,
							    r < 0	? vtb_errmsg()
							    : res.error ? res.error
									: NULL))) {
		vtb_cmd_err(env, "cannot build the JSON summary: out of memory");
		vtb_upload_result_release(&res);
		return VTB_EXIT_INFRA;
	}
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
	if (quiet && r == 0)
		; /* everything is sent: nothing to say */
	else if (res.per_boot)
		fprintf(out,
			"campaign %s -> %s: %ld boot%s sent now (%ld point%s, %ld request%s, %ld retr%s), %ld sent before, %ld unsent\n",
			res.campaign, res.sink, res.boots_sent, res.boots_sent == 1 ? "" : "s",
			res.points_sent, res.points_sent == 1 ? "" : "s", res.requests,
			res.requests == 1 ? "" : "s", res.retries, res.retries == 1 ? "y" : "ies",
			res.boots_before, res.boots_unsent);
	else
		fprintf(out, "campaign %s -> %s: %s (%ld point%s, %ld request%s, %ld retr%s)\n",
			res.campaign, res.sink,
			res.items_sent	   ? "sent"
			: res.items_before ? "nothing sent (sent before)"
			: res.in_flight	   ? "nothing sent (in flight: it may be there already)"
			: res.in_flight_recorded ? "nothing sent (in flight, now recorded as sent)"
						 : "nothing sent",
			res.points_sent, res.points_sent == 1 ? "" : "s", res.requests,
			res.requests == 1 ? "" : "s", res.retries, res.retries == 1 ? "y" : "ies");
	fflush(out);
	ret = 0;
	if (r > 0 && res.in_flight) {
		char when[40] = "?";
		time_t t = (time_t)(res.in_flight_ns / 1000000000);
		struct tm tm;

		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		vtb_cmd_err(env, "%s (its request went out at %s)", res.error ? res.error : "?",
			    when);
		vtb_cmd_err(
			env,
			"check %s for campaign %s: if it is there, record it as sent: vtbench upload --db %s --to %s --campaign %s --in-flight-sent; if not, send it again: vtbench upload --db %s --to %s --campaign %s --resend-in-flight",
			res.sink, res.campaign, db, res.sink, res.campaign, db, res.sink,
			res.campaign);
		ret = VTB_EXIT_INFRA;
	} else if (r > 0) {
		if (res.per_boot)
			vtb_cmd_err(env, "%ld of %ld boot%s%s remain unsent to %s: %s",
				    res.boots_unsent, res.boots, res.boots == 1 ? "" : "s",
				    res.items_unsent ? " and the campaign's summary" : "", res.sink,
				    res.error ? res.error : "?");
		else
			vtb_cmd_err(env, "the campaign remains unsent to %s: %s", res.sink,
				    res.error ? res.error : "?");
		if (upload_refused(res.status))
			vtb_cmd_err(
				env,
				"the server refused the request (HTTP %ld): the same upload again cannot help until what it says is fixed; then send the rest: vtbench upload --db %s --to %s --campaign %s",
				res.status, db, res.sink, res.campaign);
		else
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

	(void)env;
	if (vtb_parse_time_ns(s, &ns) || ns / 1000000 > 24 * 3600 * 1000ULL) {
		vtb_cli_usage_error(&upload_cli,
				    "--%s '%s': expected a duration such as 500ms, 10s or 2m (a bare "
				    "number means seconds)",
				    opt, s);
		return -1;
	}
	*out = (long)(ns / 1000000);
	return 0;
}

static int parse_long(const struct vtb_cmd_env *env, const char *opt, const char *s, long long max,
		      long *out)
{
	long long v;

	(void)env;
	if (vtb_parse_int(s, 1, max, &v)) {
		vtb_cli_usage_error(&upload_cli, "--%s: %s", opt, vtb_errmsg());
		return -1;
	}
	*out = (long)v;
	return 0;
}

/* A body size: at least 1 KiB (below that nearly every boot goes alone,
 * a request each), at most 1 GiB. */
static int parse_bytes(const struct vtb_cmd_env *env, const char *opt, const char *s, long *out)
{
	uint64_t v;

	(void)env;
	if (vtb_parse_size(s, &v) || v < 1024 || v > (1ULL << 30)) {
		vtb_cli_usage_error(&upload_cli,
				    "--%s '%s': expected a size from 1K to 1G, such as 256K or 4M",
				    opt, s);
		return -1;
	}
	*out = (long)v;
	return 0;
}

/* --format json: the upload's object in its envelope; when the upload
 * could not start (the database), the error alone */
static int print_json(const struct vtb_cmd_env *env, json_t *sent, int ret)
{
	json_t *doc = vtb_cmd_doc_new(UPLOAD_SCHEMA, env->name);
	json_t *one = json_array_get(sent, 0);
	char *db = vtb_cmd_abspath(env->db ? env->db : "results.db");
	bool bad = !doc || !db;

	if (!bad && one)
		bad = json_object_update(doc, one) < 0;
	else if (!bad)
		bad = json_object_set_new(doc, "status", json_string("error")) ||
		      json_object_set_new(doc, "destination", json_null()) ||
		      json_object_set_new(doc, "db", json_string(db)) ||
		      json_object_set_new(doc, "error",
					  vtb_cmd_last_err() ? json_string(vtb_cmd_last_err())
							     : json_null());
	free(db);
	json_decref(sent);
	return vtb_cmd_doc_print(env, doc, bad, ret);
}

int cmd_upload(struct vtb_cmd_env *env)
{
	struct vtb_cli_parser cp;
	const char *arg;
	struct vtb_upload_opts o = {
		.connect_timeout_ms = VTB_UPLOAD_CONNECT_TIMEOUT_MS,
		.timeout_ms = VTB_UPLOAD_TIMEOUT_MS,
		.attempts = VTB_UPLOAD_ATTEMPTS,
		.max_time_ms = VTB_UPLOAD_MAX_TIME_MS,
		.backoff_ms = VTB_UPLOAD_BACKOFF_MS,
		.batch_points = VTB_UPLOAD_BATCH_POINTS,
		.batch_bytes = VTB_UPLOAD_BATCH_BYTES,
		.dry_out = stdout,
	};
	bool quiet = false, json = false;
	json_t *sent = NULL;
	int c, ret;

	vtb_cli_init(&cp, &upload_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0) {
		switch (c) {
		case OPT_TO:
			o.url = arg;
			break;
		case OPT_DB:
			env->db = arg;
			break;
		case OPT_CAMPAIGN:
			o.campaign = arg;
			break;
		case OPT_DRY_RUN:
			o.dry_run = true;
			break;
		case OPT_CACERT:
			o.cacert = arg;
			break;
		case OPT_TOKEN_FILE:
			o.token_file = arg;
			break;
		case OPT_CONNECT_TIMEOUT:
			if (parse_ms(env, "connect-timeout", arg, &o.connect_timeout_ms))
				return VTB_EXIT_USAGE;
			break;
		case OPT_TIMEOUT:
			if (parse_ms(env, "timeout", arg, &o.timeout_ms))
				return VTB_EXIT_USAGE;
			break;
		case OPT_ATTEMPTS:
			if (parse_long(env, "attempts", arg, 100, &o.attempts))
				return VTB_EXIT_USAGE;
			break;
		case OPT_RETRY_TIME:
			if (parse_ms(env, "retry-time", arg, &o.max_time_ms))
				return VTB_EXIT_USAGE;
			break;
		case OPT_BACKOFF:
			if (parse_ms(env, "backoff", arg, &o.backoff_ms))
				return VTB_EXIT_USAGE;
			break;
		case OPT_BATCH:
			if (parse_long(env, "batch", arg, 10000000, &o.batch_points))
				return VTB_EXIT_USAGE;
			break;
		case OPT_BATCH_BYTES:
			if (parse_bytes(env, "batch-bytes", arg, &o.batch_bytes))
				return VTB_EXIT_USAGE;
			break;
		case OPT_RESEND_IN_FLIGHT:
			o.resend_in_flight = true;
			break;
		case OPT_IN_FLIGHT_SENT:
			o.in_flight_sent = true;
			break;
		case OPT_QUIET:
			quiet = true;
			break;
		case OPT_FORMAT:
			json = !strcmp(arg, "json");
			break;
		}
	}
	if (c < 0)
		return vtb_cli_exit(c);
	if (cp.optind != env->argc) {
		vtb_cli_usage_error(&upload_cli, "unexpected argument '%s'", env->argv[cp.optind]);
		return VTB_EXIT_USAGE;
	}
	if (!o.url) {
		vtb_cli_usage_error(&upload_cli, "--to URL is required (vtbench list sinks)");
		return VTB_EXIT_USAGE;
	}
	if (o.resend_in_flight && o.in_flight_sent) {
		vtb_cli_usage_error(&upload_cli,
				    "--resend-in-flight and --in-flight-sent exclude each other");
		return VTB_EXIT_USAGE;
	}
	/* a dry run only shows: a reader that has seen enough (| head) ends
	 * it quietly, as it would cat */
	if (o.dry_run)
		signal(SIGPIPE, SIG_DFL);

	if (!o.connect_timeout_ms || !o.timeout_ms) {
		vtb_cmd_err(env, "timeouts must be at least 1ms");
		return VTB_EXIT_USAGE;
	}
	if (json) {
		/* stdout is the document's */
		o.dry_out = stderr;
		sent = json_array();
		if (!sent) {
			vtb_cmd_err(env, "out of memory");
			return VTB_EXIT_INFRA;
		}
	}
	/* read-write (the row's flags): what is sent is recorded */
	ret = vtb_cmd_setup(env);
	if (!ret)
		ret = vtb_cmd_upload(env, env->store, env->db, &o, quiet, sent);
	return json ? print_json(env, sent, ret) : ret;
}
