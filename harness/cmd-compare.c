/* SPDX-License-Identifier: MIT */
/*
 * vtbench compare: selects campaigns and configurations, builds the
 * report document (compare.h) and hands it to one emitter.  Exit codes:
 * 0 nothing worse, 1 a worse verdict (unless --fail-on none), 2 bad
 * input, 3 infrastructure.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "compare.h"
#include "report-html.h"
#include "report.h"

static const char compare_usage[] =
	"usage: vtbench compare [options]\n"
	"\n"
	"Compares the configurations of a campaign (each VM against its own bare-metal\n"
	"baseline by default), or a campaign against another (--against), with one value\n"
	"per boot and metric: change in percent with a bootstrap CI of the ratio, Welch's t\n"
	"(time, throughput on 1/x) or Mann-Whitney U (latency), Benjamini-Hochberg over the\n"
	"table, and a verdict per row; then the guest evidence.\n"
	"\n"
	"selection:\n"
	"  --db FILE                results database (default: results.db)\n"
	"  --campaign ID            campaign uuid or prefix (default: the latest)\n"
	"  --against OTHER.db       compare with the latest (or --against-campaign)\n"
	"                           campaign of another database, matched by cell key\n"
	"  --against-campaign ID    the campaign to compare with (in OTHER.db, else --db)\n"
	"  --baseline SPEC          own (default: each VM against the baseline on its pCPUs,\n"
	"                           else one with as many CPUs), or a configuration key\n"
	"                           prefix or label glob every other one is compared with\n"
	"  --axis NAME              compare along one axis holding every other parameter:\n"
	"                           topology, pinning, sched, vcpus or any parameter (the\n"
	"                           first value is the baseline); host, kernel (across\n"
	"                           campaigns: with --against)\n"
	"  --metric GLOB            metrics to compare (default: all)\n"
	"  --workload NAME          one workload type or cell name (default: all)\n"
	"\n"
	"statistics:\n"
	"  --threshold PCT          a verdict needs a change beyond PCT (default: 5)\n"
	"  --alpha A                significance level of the BH q-values (default: 0.05)\n"
	"  --B N                    bootstrap resamples (default: 2000)\n"
	"  --seed N                 bootstrap seed (default: 1)\n"
	"  --no-ci                  no bootstrap confidence intervals (B = 0)\n"
	"  --cov-limit CLASS=PCT    too noisy above this CoV: throughput, time (default 5),\n"
	"                           latency (default 20)\n"
	"  --fail-on worse|none     exit 1 when a row is worse (default: worse)\n"
	"\n"
	"output:\n"
	"  --format FMT             text (default), md, html, json, csv\n"
	"  -o, --output FILE        write to FILE (format from its extension; - is stdout)\n"
	"  -h, --help               this help\n";

typedef int (*emit_fn)(const json_t *doc, FILE *f);

static int emit_json(const json_t *doc, FILE *f)
{
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12)) ||
	    fputc('\n', f) == EOF)
		return vtb_error("cannot write the report: %s", strerror(errno));
	return 0;
}

static const struct format {
	const char *name;
	const char *const ext[3];
	emit_fn emit;
} formats[] = {
	{ "text", { ".txt", ".text" }, vtb_report_text },
	{ "md", { ".md", ".markdown" }, vtb_report_md },
	{ "html", { ".html", ".htm" }, vtb_report_html },
	{ "json", { ".json" }, emit_json },
	{ "csv", { ".csv" }, vtb_report_csv },
};

static const struct format *format_named(const char *name)
{
	for (size_t i = 0; i < VTB_ARRAY_SIZE(formats); i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

static const struct format *format_of_file(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot || strchr(dot, '/'))
		return NULL;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(formats); i++)
		for (size_t e = 0; e < VTB_ARRAY_SIZE(formats[i].ext) && formats[i].ext[e]; e++)
			if (!strcasecmp(dot, formats[i].ext[e]))
				return &formats[i];
	return NULL;
}

static int parse_double(const char *s, double min, double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*out) || *out < min || *out > max)
		return -1;
	return 0;
}

static int parse_cov_limit(const char *s, struct vtb_test_opts *t)
{
	static const char *const classes[] = { "throughput", "time", "latency" };
	const char *eq = strchr(s, '=');

	if (!eq)
		return -1;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(classes); i++)
		if (strlen(classes[i]) == (size_t)(eq - s) &&
		    !strncmp(s, classes[i], (size_t)(eq - s)))
			return parse_double(eq + 1, 0, 1e6, &t->cov_limit[i]);
	return -1;
}

enum {
	OPT_CAMPAIGN = 256,
	OPT_AGAINST,
	OPT_AGAINST_CAMPAIGN,
	OPT_BASELINE,
	OPT_AXIS,
	OPT_METRIC,
	OPT_WORKLOAD,
	OPT_THRESHOLD,
	OPT_ALPHA,
	OPT_B,
	OPT_SEED,
	OPT_NO_CI,
	OPT_COV_LIMIT,
	OPT_FAIL_ON,
	OPT_FORMAT,
};

int cmd_compare(struct vtb_cmd_env *env)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "campaign", required_argument, NULL, OPT_CAMPAIGN },
		{ "against", required_argument, NULL, OPT_AGAINST },
		{ "against-campaign", required_argument, NULL, OPT_AGAINST_CAMPAIGN },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "axis", required_argument, NULL, OPT_AXIS },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "workload", required_argument, NULL, OPT_WORKLOAD },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "B", required_argument, NULL, OPT_B },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "no-ci", no_argument, NULL, OPT_NO_CI },
		{ "cov-limit", required_argument, NULL, OPT_COV_LIMIT },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vtb_compare_opts o;
	const struct format *fmt = NULL;
	const char *against_db = NULL, *out_path = NULL;
	struct vtb_store *against = NULL;
	json_t *doc = NULL;
	char *tmp = NULL;
	FILE *f = stdout;
	bool bad = false;
	long long ll;
	int c, ret;

	vtb_compare_opts_default(&o);
	optind = 1;
	while ((c = getopt_long(env->argc, env->argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			env->db = optarg;
			break;
		case OPT_CAMPAIGN:
			o.campaign = optarg;
			break;
		case OPT_AGAINST:
			against_db = optarg;
			break;
		case OPT_AGAINST_CAMPAIGN:
			o.against_campaign = optarg;
			break;
		case OPT_BASELINE:
			o.baseline = optarg;
			break;
		case OPT_AXIS:
			o.axis = optarg;
			break;
		case OPT_METRIC:
			o.metric = optarg;
			break;
		case OPT_WORKLOAD:
			o.workload = optarg;
			break;
		case OPT_THRESHOLD:
			if (parse_double(optarg, 0, 1e6, &o.test.threshold_pct) < 0)
				goto bad_value;
			break;
		case OPT_ALPHA:
			if (parse_double(optarg, 0, 1, &o.test.alpha) < 0)
				goto bad_value;
			break;
		case OPT_B:
			if (vtb_parse_int(optarg, 0, 10000000, &ll) < 0)
				goto bad_value;
			o.test.B = (unsigned)ll;
			break;
		case OPT_SEED:
			if (vtb_parse_int(optarg, 0, INT64_MAX, &ll) < 0)
				goto bad_value;
			o.test.seed = (uint64_t)ll;
			break;
		case OPT_NO_CI:
			o.test.B = 0;
			break;
		case OPT_COV_LIMIT:
			if (parse_cov_limit(optarg, &o.test) < 0) {
				vtb_cmd_err(env,
					    "bad --cov-limit '%s' (CLASS=PCT, CLASS throughput, "
					    "time or latency)",
					    optarg);
				return VTB_EXIT_USAGE;
			}
			break;
		case OPT_FAIL_ON:
			if (strcmp(optarg, "worse") && strcmp(optarg, "none"))
				goto bad_value;
			o.fail_on_worse = !strcmp(optarg, "worse");
			break;
		case OPT_FORMAT:
			fmt = format_named(optarg);
			if (!fmt) {
				vtb_cmd_err(env, "unknown format '%s' (text, md, html, json, csv)",
					    optarg);
				return VTB_EXIT_USAGE;
			}
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			fputs(compare_usage, stdout);
			return 0;
		default:
			fputs(compare_usage, stderr);
			return VTB_EXIT_USAGE;
		}
		continue;
	bad_value:
		for (size_t i = 0; longopts[i].name; i++)
			if (longopts[i].val == c)
				vtb_cmd_err(env, "bad value '%s' for --%s", optarg,
					    longopts[i].name);
		return VTB_EXIT_USAGE;
	}
	if (optind != env->argc) {
		vtb_cmd_err(env, "unexpected argument '%s'", env->argv[optind]);
		return VTB_EXIT_USAGE;
	}
	if (!fmt && out_path && strcmp(out_path, "-")) {
		fmt = format_of_file(out_path);
		if (!fmt) {
			vtb_cmd_err(env,
				    "cannot tell the format of '%s' from its extension: give "
				    "--format",
				    out_path);
			return VTB_EXIT_USAGE;
		}
	}
	if (!fmt)
		fmt = format_named("text");
	ret = vtb_cmd_setup(env);
	if (ret)
		return ret;
	if (against_db && vtb_store_open_ro(against_db, &against) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return VTB_EXIT_USAGE;
	}
	if (vtb_compare_build(env->store, env->db, against, against_db, &o, &doc, &bad) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = bad ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
		goto out;
	}
	/* -o FILE: written to a temporary file beside it and renamed over
	 * it, so FILE is either the old one or the whole new report, never a
	 * truncated one (a full disk, a kill) */
	if (out_path && strcmp(out_path, "-")) {
		mode_t mask = umask(0);
		int fd;

		umask(mask);
		tmp = vtb_asprintf("%s.XXXXXX", out_path);
		fd = tmp ? mkstemp(tmp) : -1;
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f) {
			int e = tmp ? errno : ENOMEM;

			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			free(tmp);
			tmp = NULL;
			vtb_cmd_err(env, "cannot write '%s': %s", out_path, strerror(e));
			ret = e == ENOENT || e == EACCES || e == EISDIR || e == ENOTDIR
				      ? VTB_EXIT_USAGE
				      : VTB_EXIT_INFRA;
			goto out;
		}
		/* what fopen() would have made: 0666 less the umask */
		fchmod(fd, 0666 & ~mask);
	}
	if (fmt->emit(doc, f) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	if (f != stdout) {
		FILE *g = f;
		int bad_write = fflush(g) || fsync(fileno(g));

		f = NULL;
		if (fclose(g) || bad_write || rename(tmp, out_path)) {
			vtb_cmd_err(env, "cannot write '%s': %s", out_path, strerror(errno));
			ret = VTB_EXIT_INFRA;
			goto out;
		}
		free(tmp);
		tmp = NULL;
	}
	ret = o.fail_on_worse && vtb_compare_worse(doc) ? VTB_EXIT_FAIL : VTB_EXIT_OK;
out:
	if (f && f != stdout)
		fclose(f);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	json_decref(doc);
	vtb_store_close(against);
	return ret;
}
