/* SPDX-License-Identifier: MIT */
/*
 * vtbench compare: selects campaigns and configurations, builds the
 * report document (compare.h) and hands it to one emitter.  Exit codes:
 * 0 nothing fails, 1 a row fails under --fail-on (default: a worse,
 * missing or error row), 2 bad input, 3 infrastructure.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "../compare/compare.h"
#include "../../reports/report-html.h"
#include "../../reports/report.h"

static const char *const format_names[] = { "text", "md", "html", "json", "csv", NULL };

enum {
	OPT_DB = 256,
	OPT_CAMPAIGN,
	OPT_AGAINST,
	OPT_AGAINST_CAMPAIGN,
	OPT_BASELINE,
	OPT_AXIS,
	OPT_METRIC,
	OPT_WORKLOAD,
	OPT_THRESHOLD,
	OPT_ALPHA,
	OPT_COV_LIMIT,
	OPT_FAIL_ON,
	OPT_FORMAT,
	OPT_OUTPUT = 'o',
	OPT_QUIET = 'q',
};

static const struct vtb_cli_opt compare_opts[] = {
	{ .help = "selection:" },
	{ .name = "db",
	  .id = OPT_DB,
	  .arg = "FILE",
	  .help = "results database (default: results.db)" },
	{ .name = "campaign",
	  .id = OPT_CAMPAIGN,
	  .arg = "ID",
	  .help = "campaign uuid or prefix (default: the latest)" },
	{ .name = "against",
	  .id = OPT_AGAINST,
	  .arg = "OTHER.db",
	  .help = "compare with the latest (or --against-campaign) campaign of another database, "
		  "matched by cell key" },
	{ .name = "against-campaign",
	  .id = OPT_AGAINST_CAMPAIGN,
	  .arg = "ID",
	  .help = "the campaign to compare with (in OTHER.db, else --db)" },
	{ .name = "baseline",
	  .id = OPT_BASELINE,
	  .arg = "SPEC",
	  .help = "own (default: each VM against the baseline on its pCPUs, else one with as many "
		  "CPUs), or a configuration key prefix or label glob every other one is compared "
		  "with" },
	{ .name = "axis",
	  .id = OPT_AXIS,
	  .arg = "NAME",
	  .help = "compare along one axis holding every other parameter: topology, pinning, sched, "
		  "vcpus or any parameter (the first value is the baseline); host, kernel (across "
		  "campaigns: with --against)" },
	{ .name = "metric",
	  .id = OPT_METRIC,
	  .arg = "GLOB",
	  .help = "metrics to compare (default: all)" },
	{ .name = "workload",
	  .id = OPT_WORKLOAD,
	  .arg = "NAME",
	  .help = "one workload type or cell name (default: all)" },
	{ .help = "statistics:" },
	{ .name = "threshold",
	  .id = OPT_THRESHOLD,
	  .arg = "PCT",
	  .help = "a change that matters: worse/better beyond it, same within it (default: 5)" },
	{ .name = "alpha",
	  .id = OPT_ALPHA,
	  .arg = "A",
	  .help = "significance level of the BH q-values; intervals are at 1 - A (default: 0.05)" },
	{ .name = "cov-limit",
	  .id = OPT_COV_LIMIT,
	  .arg = "CLASS=PCT",
	  .help = "note a row as noisy above this CoV (never a verdict): throughput, time "
		  "(default 5), latency (default 20)" },
	{ .name = "fail-on",
	  .id = OPT_FAIL_ON,
	  .arg = "LIST",
	  .help = "exit 1 for: worse (a worse, missing or error row; the default), possible (an "
		  "inconclusive row whose interval reaches past the threshold on the worse side), a "
		  "comma list of both, or none" },
	{ .help = "output:" },
	{ .name = "format",
	  .id = OPT_FORMAT,
	  .arg = "FMT",
	  .values = format_names,
	  .help = "text (default; as wide as COLUMNS, else the terminal, else 100 columns), md, "
		  "html, json, csv" },
	{ .name = "output",
	  .id = OPT_OUTPUT,
	  .shortopt = 'o',
	  .arg = "FILE",
	  .help = "write to FILE (format from its extension; - is stdout)" },
	{ .name = "quiet",
	  .id = OPT_QUIET,
	  .shortopt = 'q',
	  .help = "no report on stdout (-o FILE is still written): the exit code says whether "
		  "a row is worse" },
	{ 0 },
};

const struct vtb_cli compare_cli = {
	.cmd = "compare",
	.usage = "[options]",
	.about =
		"Compares the configurations of a campaign (each VM against its own bare-metal\n"
		"baseline by default), or a campaign against another (--against), with one value\n"
		"per boot and metric.  Per row one statistic: the ratio of means (harmonic for\n"
		"rates, geometric for latencies) with its t interval and t test on the log scale,\n"
		"Benjamini-Hochberg over the table; the verdict is read from the interval: worse or\n"
		"better (significant, beyond the threshold; confirmed when the whole interval is),\n"
		"same (the interval within +-threshold), inconclusive (with the boots a side that\n"
		"would decide it), few (under 2 boots a side), missing (a result absent on one side),\n"
		"error (values the statistic cannot take); then the guest evidence.\n",
	.opts = compare_opts,
	.exits = "0 no row fails (see --fail-on), 1 a row is worse, missing or an error (or what "
		 "--fail-on names), 2 usage or input "
		 "error (no campaign, nothing to match), 3 infrastructure failure (the database, "
		 "writing the report).",
};

/* "worse", "possible", "worse,possible" (any order), or "none". */
static int parse_fail_on(const char *s, unsigned *out)
{
	unsigned f = 0;
	size_t n;

	if (!strcmp(s, "none")) {
		*out = 0;
		return 0;
	}
	for (; *s; s += n + (s[n] == ',')) {
		n = strcspn(s, ",");
		if (n == 5 && !strncmp(s, "worse", n))
			f |= VTB_FAIL_WORSE;
		else if (n == 8 && !strncmp(s, "possible", n))
			f |= VTB_FAIL_POSSIBLE;
		else
			return -1;
		if (s[n] == ',' && !s[n + 1])
			return -1;
	}
	if (!f)
		return -1;
	*out = f;
	return 0;
}

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

/* The width text is written for: COLUMNS, else the terminal's (when the
 * report goes to it), else VTB_REPORT_COLUMNS, as ls and git do. */
static size_t text_columns(FILE *f)
{
	const char *e = getenv("COLUMNS");
	struct winsize ws;
	char *end;

	if (e && *e) {
		unsigned long v;

		errno = 0;
		v = strtoul(e, &end, 10);
		if (!errno && !*end && v > 0 && v <= 10000)
			return v;
	}
	if (f == stdout && isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) &&
	    ws.ws_col > 0)
		return ws.ws_col;
	return VTB_REPORT_COLUMNS;
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

int cmd_compare(struct vtb_cmd_env *env)
{
	struct vtb_cli_parser cp;
	struct vtb_compare_opts o;
	const struct format *fmt = NULL;
	const char *against_db = NULL, *out_path = NULL;
	struct vtb_store *against = NULL;
	json_t *doc = NULL;
	char *tmp = NULL;
	FILE *f = stdout;
	const char *arg;
	bool bad = false, quiet = false;
	int c, ret;

	vtb_compare_opts_default(&o);
	vtb_cli_init(&cp, &compare_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0) {
		switch (c) {
		case OPT_DB:
			env->db = arg;
			break;
		case OPT_CAMPAIGN:
			o.campaign = arg;
			break;
		case OPT_AGAINST:
			against_db = arg;
			break;
		case OPT_AGAINST_CAMPAIGN:
			o.against_campaign = arg;
			break;
		case OPT_BASELINE:
			o.baseline = arg;
			break;
		case OPT_AXIS:
			o.axis = arg;
			break;
		case OPT_METRIC:
			o.metric = arg;
			break;
		case OPT_WORKLOAD:
			o.workload = arg;
			break;
		case OPT_THRESHOLD:
			if (parse_double(arg, 0, 1e6, &o.test.threshold_pct) < 0)
				goto bad_value;
			break;
		case OPT_ALPHA:
			if (parse_double(arg, 1e-9, 0.5, &o.test.alpha) < 0)
				goto bad_value;
			break;
		case OPT_COV_LIMIT:
			if (parse_cov_limit(arg, &o.test) < 0) {
				vtb_cli_usage_error(
					&compare_cli,
					"bad --cov-limit '%s' (CLASS=PCT, CLASS throughput, "
					"time or latency)",
					arg);
				return VTB_EXIT_USAGE;
			}
			break;
		case OPT_FAIL_ON:
			if (parse_fail_on(arg, &o.fail_on) < 0) {
				vtb_cli_usage_error(&compare_cli,
						    "bad --fail-on '%s' (worse, possible, worse,possible or "
						    "none)",
						    arg);
				return VTB_EXIT_USAGE;
			}
			break;
		case OPT_FORMAT:
			fmt = format_named(arg);
			break;
		case OPT_OUTPUT:
			out_path = arg;
			break;
		case OPT_QUIET:
			quiet = true;
			break;
		}
		continue;
	bad_value:
		for (const struct vtb_cli_opt *x = compare_opts; x->name || x->help; x++)
			if (x->name && x->id == c)
				vtb_cli_usage_error(&compare_cli, "bad value '%s' for --%s", arg,
						    x->name);
		return VTB_EXIT_USAGE;
	}
	if (c < 0)
		return vtb_cli_exit(c);
	if (cp.optind != env->argc) {
		vtb_cli_usage_error(&compare_cli, "unexpected argument '%s'", env->argv[cp.optind]);
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
	if ((!quiet || f != stdout) &&
	    (fmt->emit == vtb_report_text ? vtb_report_text_cols(doc, f, text_columns(f))
					  : fmt->emit(doc, f)) < 0) {
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
	ret = vtb_compare_failing(doc, o.fail_on) ? VTB_EXIT_FAIL : VTB_EXIT_OK;
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
