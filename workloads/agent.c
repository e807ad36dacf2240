/* SPDX-License-Identifier: MIT */
/*
 * vtbench-agent: runs workloads by hand (`vtbench-agent membw --size 64M`)
 * or from a job file written by the harness (`--job FILE`), and reports
 * either a summary for humans or framed records (--records) for the
 * harness.  The same binary is /init in guests (pid1_main: the job is
 * /job.json, records go to the record port, the guest powers off at the
 * end); the PID-1 chores (mounts, poweroff) live in lib/pid1.c.
 *
 * Exit codes: 0 ok, 1 a workload failed, 2 usage or input error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <libcpuid/libcpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../common/cellstat.h"
#include "../common/guestview.h"
#include "../common/man.h"
#include "../common/outfile.h"
#include "../common/pid1.h"
#include "../common/schedprof.h"
#include "../common/sysfs.h"
#include "workload.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define JOB_MAX_BYTES (16u << 20)

struct agent {
	bool records;
	const char *nonce;
	const char *out;
	struct vtb_rec rec;
	bool started; /* the header is written */
	bool ended;   /* the end record is written */
	bool guest;   /* the job runner of a guest's /init */
	char nonce_buf[VTB_REC_MAX_NONCE + 1];
	struct vtb_cpuset cpus; /* affinity at start */
	size_t cells_run;
	size_t cells_failed;
	bool sched_failed; /* the job's sched profile did not apply */
	char *reject;	   /* when set, every cell is rejected with it */
	/* the scheduler's counters over each cell (issue 28) */
	bool evidence;
	char *ss_was;  /* kernel.sched_schedstats before, restored after */
	char *ss_note; /* why the counters may be partial */
};

enum {
	OPT_RECORDS = 1000,
	OPT_NONCE,
	OPT_OUT,
	OPT_HELP,
	OPT_JOB,
	OPT_LIST,
	OPT_ALL,
	OPT_VERSION,
	OPT_MAN,
	OPT_EVIDENCE,
	OPT_WL = 2000
};

/*
 * The agent's own options, declared once: getopt's tables, --help and
 * vtbench-agent(1) come from these rows.  TOP: before any workload
 * (vtbench-agent --job ...); WL: after a workload's name, beside its own
 * options (which come from its vtb_opt table).
 */
#define TOP 1u
#define WL 2u

struct agent_opt {
	const char *name;
	int id;
	const char *arg;  /* the value's name; NULL: a flag */
	unsigned where;	  /* TOP, WL or both */
	const char *help; /* NULL: hidden */
};

static const struct agent_opt agent_opts[] = {
	{ "job", OPT_JOB, "FILE", TOP,
	  "run the cells of a job file, as the harness does (in a guest: /job.json)" },
	{ "records", OPT_RECORDS, NULL, TOP | WL,
	  "write framed records (the harness format) instead of a summary" },
	{ "nonce", OPT_NONCE, "HEX", WL, "nonce of the record frames (default 0)" },
	{ "out", OPT_OUT, "PATH", TOP | WL, "write output to PATH instead of stdout" },
	{ "evidence", OPT_EVIDENCE, NULL, WL,
	  "the scheduler's counters over the run, as in a guest (no host setting changed)" },
	{ "list", OPT_LIST, NULL, TOP, "list the workloads" },
	{ "all", OPT_ALL, NULL, TOP, "with --list or --help: the hidden (debug) workloads too" },
	{ "version", OPT_VERSION, NULL, TOP, "print the version and the record schema" },
	{ "help", OPT_HELP, NULL, TOP | WL, "this help; after a workload, its options" },
	{ "man", OPT_MAN, NULL, TOP, NULL }, /* vtbench-agent(1), written by the build */
	{ NULL, 0, NULL, 0, NULL },
};

/* getopt_long's rows for @where: at most VTB_ARRAY_SIZE(agent_opts) */
static size_t agent_longopts(struct option *lo, unsigned where, const struct vtb_workload_ops *w)
{
	const struct agent_opt *o;
	size_t n = 0;

	for (o = agent_opts; o->name; o++) {
		int has = o->arg ? required_argument : no_argument;

		if (!(o->where & where))
			continue;
		/* a workload option named like an agent flag ("records") is
		 * reached as --records=N: the bare flag stays the agent's */
		if (w && o->id == OPT_RECORDS && vtb_opt_find(w->opts, "records"))
			has = optional_argument;
		lo[n++] = (struct option){ o->name, has, NULL, o->id };
	}
	return n;
}

static void agent_opts_help(FILE *f, unsigned where, bool with_help)
{
	const struct agent_opt *o;

	for (o = agent_opts; o->name; o++) {
		char *name;

		if (!(o->where & where) || !o->help || (!with_help && o->id == OPT_HELP))
			continue;
		name = vtb_asprintf("--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-12s  %s\n", name ? name : o->name, o->help);
		free(name);
	}
}

static const char *const synopsis[] = {
	"WORKLOAD [OPTIONS] [--records] [--nonce HEX] [--out PATH]",
	"WORKLOAD --help",
	"--job FILE [--records] [--out PATH]",
	"--list [--all]",
	"--version",
	NULL,
};
static const char about[] =
	"Runs a vtbench workload and prints a summary, or framed records for the\n"
	"harness with --records.  Options are also accepted as NAME=VALUE.\n";
static const char wl_opts_intro[] =
	"--NAME VALUE, -LETTER VALUE or NAME=VALUE; a yes|no option alone means yes";
/* every --help ends with them, as vtbench's commands' do */
static const char exit_codes[] = "0 ok, 1 a workload failed, 2 usage or input error.";
static const char records_note[] =
	"(the workload's 'records' option is given as --records=N or records=N)";

static void usage(FILE *f)
{
	size_t i;

	for (i = 0; synopsis[i]; i++)
		fprintf(f, "%s vtbench-agent %s\n", i ? "      " : "usage:", synopsis[i]);
	fprintf(f, "\n%s", about);
}

static void list_workloads(FILE *f, bool all)
{
	size_t i;

	for (i = 0; vtb_workloads[i]; i++) {
		const struct vtb_workload_ops *w = vtb_workloads[i];

		if (w->hidden && !all)
			continue;
		fprintf(f, "%-10s ", w->name);
		vtb_wrap(f, w->summary, 11, 11, VTB_HELP_WIDTH);
		fprintf(f, "%s\n", w->hidden ? " [hidden]" : "");
	}
}

static void workload_help(FILE *f, const struct vtb_workload_ops *w)
{
	fprintf(f, "usage: vtbench-agent %s [OPTIONS] [--records] [--nonce HEX] [--out PATH]\n",
		w->name);
	vtb_wrap(f, w->summary, 0, 0, VTB_HELP_WIDTH);
	fprintf(f, "\n\nOptions (%s):\n", wl_opts_intro);
	vtb_opts_help(f, w->opts, true);
	fprintf(f, "\nAgent options:\n");
	agent_opts_help(f, WL, false);
	if (vtb_opt_find(w->opts, "records"))
		fprintf(f, "  %s\n", records_note);
	fprintf(f, "\nexit codes: %s\n", exit_codes);
}

/* vtbench-agent(1): the agent's table and every workload's */
static void man_page(FILE *f)
{
	const struct agent_opt *o;
	size_t i;

	vtb_man_head(f, "vtbench-agent", "1", "vtbench " VTB_VERSION, "vtbench manual");
	vtb_man_section(f, "NAME");
	fputs("vtbench\\-agent \\- the workloads of vtbench, run by hand or from a job\n", f);
	vtb_man_section(f, "SYNOPSIS");
	for (i = 0; synopsis[i]; i++) {
		fputs("\\fBvtbench\\-agent\\fR ", f);
		vtb_man_text(f, synopsis[i]);
		fputs("\n.br\n", f);
	}
	vtb_man_section(f, "DESCRIPTION");
	vtb_man_block(f, about);
	vtb_man_para(f, "The same binary is /init of the guests vtbench boots: as process 1 it "
			"mounts the kernel's file systems, reads /job.json, applies the job's "
			"scheduler profile, records the guest's view of its topology, runs each "
			"cell, writes records to the second serial port and powers the guest "
			"off.  vtbench run also starts it on the host for bare-metal baselines, "
			"confined to the configuration's CPUs.");
	vtb_man_section(f, "OPTIONS");
	for (i = 0; i < 2; i++) {
		unsigned where = i ? WL : TOP;

		vtb_man_para(f, i ? "After a workload's name, beside its own options:"
				  : "Without a workload:");
		for (o = agent_opts; o->name; o++) {
			if (!o->help || !(o->where & where))
				continue;
			vtb_man_tp(f);
			fputs("\\fB\\-\\-", f);
			vtb_man_text(f, o->name);
			fputs("\\fR", f);
			if (o->arg) {
				fputc(' ', f);
				vtb_man_font(f, 'I', o->arg);
			}
			fputc('\n', f);
			vtb_man_body(f, o->help);
		}
	}
	vtb_man_section(f, "WORKLOADS");
	vtb_man_para(f, "Each workload's options, as --NAME VALUE, -LETTER VALUE or NAME=VALUE "
			"after its name (a yes|no option alone means yes); the same keys "
			"[workload NAME] takes in the matrix file.");
	for (i = 0; vtb_workloads[i]; i++) {
		const struct vtb_workload_ops *w = vtb_workloads[i];

		if (w->hidden)
			continue;
		vtb_man_subsection(f, w->name);
		vtb_man_para(f, w->summary);
		vtb_man_opts(f, w->opts, true);
		if (vtb_opt_find(w->opts, "records"))
			vtb_man_para(f, records_note);
	}
	vtb_man_section(f, "EXIT STATUS");
	vtb_man_para(f, exit_codes);
	vtb_man_section(f, "SEE ALSO");
	fputs("\\fBvtbench\\fR(1), \\fBvtbench\\-matrix\\fR(5), \\fBcyclictest\\fR(8), "
	      "\\fBhackbench\\fR(8)\n",
	      f);
}

/* The header record: who and where, before any cell. */
static json_t *header_record(const struct agent *a, const char *boot, const char *config)
{
	struct cpu_raw_data_t raw;
	struct cpu_id_t id;
	struct utsname u;
	json_t *h = NULL, *cpu = NULL, *mem = NULL;
	char *cmdline = NULL, *cpus = NULL;
	uint64_t total = 0, avail = 0;

	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	cmdline = vtb_read_file("/proc/cmdline", 1 << 20);
	cpus = vtb_cpuset_format(&a->cpus);
	/* What the kernel left for us: the harness's guest memory reserve is
	 * measured from this (docs/guest-runs.md "Memory feasibility"). */
	if (vtb_meminfo(NULL, &total, &avail) == 0)
		mem = json_pack("{s:I, s:I}", "total", (json_int_t)total, "available",
				(json_int_t)avail);
	else
		vtb_error_clear();
	if (cpuid_present() && cpuid_get_raw_data(&raw) == 0 && cpu_identify(&raw, &id) == 0)
		cpu = json_pack("{s:s, s:i, s:i, s:s, s:s}", "vendor", id.vendor_str, "family",
				(int)id.ext_family, "model", (int)id.ext_model, "codename",
				id.cpu_codename, "brand", id.brand_str);
	h = json_pack("{s:s, s:i, s:s, s:s, s:s?, s:s, s:b, s:s?, s:o?, s:s?, s:s?, s:o?}", "type",
		      "header", "schema", VTB_REC_SCHEMA, "agent", VTB_VERSION, "kernel", u.release,
		      "cmdline", cmdline, "hostname", u.nodename, "pid1", a->guest || getpid() == 1,
		      "cpus", cpus, "cpu", cpu, "boot", boot, "config", config, "memory", mem);
	free(cmdline);
	free(cpus);
	return h;
}

static int write_rec(struct agent *a, json_t *r)
{
	int ret;

	if (!r)
		return vtb_error("out of memory building a record");
	ret = a->records ? vtb_rec_write(&a->rec, r) : 0;
	json_decref(r);
	return ret;
}

static void print_summary(const char *key, const char *wname, const struct vtb_workload_ctx *ctx,
			  bool ok, double seconds, const char *err)
{
	size_t i, wm = strlen("metric");

	printf("\n%s %s: %s in %.2fs\n", wname, key, ok ? "ok" : "FAILED", seconds);
	if (!ok) {
		printf("  error: %s\n", err);
		return;
	}
	for (i = 0; i < ctx->n_samples; i++)
		if (strlen(ctx->samples[i].metric) > wm)
			wm = strlen(ctx->samples[i].metric);
	printf("  %-*s  %14s  %-8s %s\n", (int)wm, "metric", "value", "unit", "better");
	for (i = 0; i < ctx->n_samples; i++) {
		const struct vtb_sample *s = &ctx->samples[i];

		printf("  %-*s  %14.2f  %-8s %s\n", (int)wm, s->metric, s->value, s->unit,
		       s->better == VTB_BETTER_HIGHER ? "higher" : "lower");
	}
}

/* --evidence by hand: the counters' summary under the workload's. */
static void print_schedstat(const json_t *ss)
{
	const json_t *l, *c, *err = json_object_get(ss, "error"), *n;
	double wait = 0, ttwu = 0, local = 0;
	size_t i;

	printf("  scheduler over %.2fs (schedstat version %lld)%s%s\n",
	       json_number_value(json_object_get(ss, "seconds")),
	       (long long)json_integer_value(json_object_get(ss, "version")),
	       json_is_string(err) ? ": " : "", json_is_string(err) ? json_string_value(err) : "");
	json_array_foreach(json_object_get(ss, "levels"), i, l)
	{
		const json_t *lb = json_object_get(l, "lb");
		json_int_t cnt = 0, gained = 0;

		for (const char *const *t = (const char *const[]){ "busy", "idle", "newidle", NULL };
		     *t; t++) {
			cnt += json_integer_value(json_object_get(json_object_get(lb, *t), "count"));
			gained += json_integer_value(
				json_object_get(json_object_get(lb, *t), "gained"));
		}
		printf("  %-8s balanced %lld times, moved %lld tasks, %lld remote wake-ups\n",
		       json_string_value(json_object_get(l, "level")), (long long)cnt,
		       (long long)gained,
		       (long long)json_integer_value(
			       json_object_get(json_object_get(l, "ttwu"), "remote")));
	}
	json_array_foreach(json_object_get(ss, "cpus"), i, c)
	{
		wait += (double)json_integer_value(json_object_get(c, "wait_ns"));
		ttwu += (double)json_integer_value(json_object_get(c, "ttwu"));
		local += (double)json_integer_value(json_object_get(c, "ttwu_local"));
	}
	printf("  run queues: tasks waited %.3fs; %.0f wake-ups, %.0f on the waker's CPU\n",
	       wait * 1e-9, ttwu, local);
	json_array_foreach(json_object_get(ss, "notes"), i, n)
	printf("  note: %s\n", json_string_value(n));
}

/*
 * Runs one parsed cell and writes its records (after the cell record,
 * which the caller has written).  A workload failure is recorded and
 * counted, not returned: only a record write failure returns -1.
 */
static int run_parsed(struct agent *a, const char *key, const struct vtb_workload_ops *w,
		      void *params)
{
	struct vtb_workload_ctx ctx = { 0 };
	struct vtb_cellstat cs = { 0 };
	uint64_t t0 = vtb_now_ns();
	json_t *ss = NULL;
	double secs;
	char *err = NULL;
	int ret = -1, rc;

	ctx.rec = a->records ? &a->rec : NULL;
	ctx.cell = key;
	if (vtb_cpuset_parse("", &ctx.cpus))
		goto out;
	for (size_t i = 0; i < a->cpus.n; i++)
		if (vtb_cpuset_add(&ctx.cpus, a->cpus.cpus[i]))
			goto out;
	vtb_error_clear();
	rc = w->prepare ? w->prepare(params, &ctx) : 0;
	if (rc == 0) {
		/* the counters over the run alone: after prepare's allocations */
		if (a->evidence)
			vtb_cellstat_begin("", &cs);
		rc = w->run(params, &ctx);
		if (a->evidence) {
			char *keep = rc && *vtb_errmsg() ? vtb_strdup(vtb_errmsg()) : NULL;

			ss = vtb_cellstat_end("", &cs, key, a->ss_note);
			if (!ss) {
				free(keep);
				goto out;
			}
			/* the workload's own message, never the counters' */
			if (keep)
				vtb_error("%s", keep);
			else
				vtb_error_clear();
			free(keep);
		}
	}
	secs = (double)(vtb_now_ns() - t0) * 1e-9;
	if (rc) {
		err = vtb_strdup(*vtb_errmsg() ? vtb_errmsg() : "workload failed");
		if (!err)
			goto out;
	}
	if (a->records) {
		if (err && write_rec(a, json_pack("{s:s, s:s, s:s}", "type", "error", "cell", key,
						  "message", err)))
			goto out;
		if (ss) {
			json_t *r = ss;

			ss = NULL;
			if (write_rec(a, r))
				goto out;
		}
		json_t *end = json_pack("{s:s, s:s, s:s, s:f, s:o}", "type", "cell_end", "cell",
					key, "status", err ? "failed" : "ok", "seconds", secs,
					"info", ctx.info ? json_incref(ctx.info) : json_object());

		if (end && err && json_object_set_new(end, "error", json_string(err))) {
			json_decref(end);
			end = NULL;
		}
		if (write_rec(a, end))
			goto out;
	} else {
		print_summary(key, w->name, &ctx, !err, secs, err);
		if (ss)
			print_schedstat(ss);
		fflush(stdout);
	}
	if (err) {
		fprintf(stderr, "vtbench-agent: %s: %s\n", w->name, err);
		a->cells_failed++;
	}
	a->cells_run++;
	ret = 0;
out:
	free(err);
	json_decref(ss);
	vtb_cellstat_release(&cs);
	vtb_workload_ctx_release(&ctx);
	return ret;
}

/* Records a cell that could not start (unknown workload, bad parameter). */
static int cell_rejected(struct agent *a, const char *key, const char *wname, const char *msg)
{
	fprintf(stderr, "vtbench-agent: cell %s (%s): %s\n", key, wname, msg);
	a->cells_run++;
	a->cells_failed++;
	if (!a->records)
		return 0;
	if (write_rec(a,
		      json_pack("{s:s, s:s, s:s}", "type", "error", "cell", key, "message", msg)))
		return -1;
	return write_rec(a,
			 json_pack("{s:s, s:s, s:s, s:f, s:{}, s:s}", "type", "cell_end", "cell",
				   key, "status", "failed", "seconds", 0.0, "info", "error", msg));
}

static int write_end(struct agent *a)
{
	int ret = write_rec(a, json_pack("{s:s, s:s, s:I}", "type", "end", "status",
					 a->cells_failed || a->sched_failed ? "failed" : "ok",
					 "cells", (json_int_t)a->cells_run));

	a->ended = ret == 0;
	return ret;
}

static void unknown_workload_msg(const char *name)
{
	char *hint = vtb_workload_unknown_hint(name, false);

	vtb_error("unknown workload '%s'%s; vtbench-agent --list says what each measures", name,
		  hint ? hint : "");
	free(hint);
}

static int unknown_option_msg(const struct vtb_workload_ops *w, const char *name)
{
	const char *sug = vtb_opt_suggest(w->opts, name);

	return vtb_error("unknown option '%s' for %s%s%s%s", name, w->name,
			 sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
}

/* A word a boolean option takes as its value: yes/no/true/false/on/off/1/0. */
static bool is_bool_word(const char *s)
{
	static const char *const words[] = { "yes", "no", "true", "false", "on", "off", "1", "0" };

	for (size_t i = 0; i < VTB_ARRAY_SIZE(words); i++)
		if (!strcmp(s, words[i]))
			return true;
	return false;
}

/* Parses @text for option @name into @params and records it in @texts. */
static int set_param(const struct vtb_workload_ops *w, void *params, json_t *texts,
		     const char *name, const char *text)
{
	const struct vtb_opt *o = vtb_opt_find(w->opts, name);
	union vtb_optval v;

	if (!o)
		return unknown_option_msg(w, name);
	if (vtb_opt_parse(o, text, &v))
		return -1;
	vtb_opt_store(o, params, &v);
	if (json_object_set_new(texts, o->name, json_string(text)))
		return vtb_error("out of memory");
	return 0;
}

/* Params text object with every default, for the cell record. */
static json_t *default_texts(const struct vtb_workload_ops *w)
{
	json_t *t = json_object();
	const struct vtb_opt *o;

	for (o = w->opts; t && o->name; o++) {
		if (o->def && json_object_set_new(t, o->name, json_string(o->def))) {
			json_decref(t);
			return NULL;
		}
	}
	return t;
}

/* --out PATH, by the one output rule (common/outfile.h) in its streaming
 * form: a regular file written in place as records come (an interrupted
 * run leaves what it measured; tail -f works), a device or FIFO written
 * through, a symlink resolved and said.  Stdout is the file from here on. */
static struct vtb_outfile out_file;

static int open_out(const char *path)
{
	int r;

	if (!path)
		return 0;
	r = vtb_outfile_open(&out_file, path, VTB_OUT_STREAM, NULL);
	if (r)
		return r;
	if (out_file.note)
		fprintf(stderr, "vtbench-agent: %s\n", out_file.note);
	fflush(stdout);
	if (dup2(fileno(out_file.f), STDOUT_FILENO) < 0) {
		vtb_outfile_abandon(&out_file);
		return vtb_error("cannot redirect output to '%s': %s", path, strerror(errno));
	}
	return 0;
}

/* The output synced and closed (stdout already flushed): 0 or -1. */
static int close_out(void)
{
	int r = 0;

	if (out_file.path) {
		r = vtb_outfile_commit(&out_file);
		vtb_outfile_abandon(&out_file);
	}
	return r;
}

static int agent_start(struct agent *a, const char *boot, const char *config)
{
	if (vtb_affinity_cpuset(&a->cpus))
		return -1;
	if (vtb_rec_init(&a->rec, STDOUT_FILENO, a->nonce))
		return -1;
	if (open_out(a->out))
		return -1;
	a->started = true;
	if (a->records)
		return write_rec(a, header_record(a, boot, config));
	return 0;
}

/* What cmd_workload parses its arguments into. */
struct wl_args {
	const struct vtb_workload_ops *w;
	size_t nopts; /* rows of w->opts */
	void *params;
	json_t *texts; /* the given values as text, for the cell record */
	bool help;
};

/* getopt_long's tables: the agent's options beside a workload's, then
 * each of the workload's (but "records", the agent's own) and its letters. */
static int wl_getopt_tables(const struct wl_args *wa, struct option **lopts,
			    struct vtb_strbuf *shorts)
{
	const struct vtb_workload_ops *w = wa->w;
	size_t k;

	*lopts = calloc(wa->nopts + VTB_ARRAY_SIZE(agent_opts), sizeof(**lopts));
	if (!*lopts || vtb_strbuf_addstr(shorts, ":h"))
		return vtb_error("out of memory");
	k = agent_longopts(*lopts, WL, w);
	for (size_t i = 0; i < wa->nopts; i++) {
		const struct vtb_opt *o = &w->opts[i];
		bool isbool = o->type == VTB_OPT_BOOL;

		if (!strcmp(o->name, "records"))
			continue;
		(*lopts)[k++] = (struct option){ o->name,
						 isbool ? optional_argument : required_argument,
						 NULL, OPT_WL + (int)i };
		/* a boolean's letter is a bare flag (cyclictest -m, hackbench
		 * -p -T), so letters group (-Tp); a value may follow as the
		 * next word (-m no), or NAME=VALUE */
		if (o->shortopt && vtb_strbuf_addf(shorts, "%c%s", o->shortopt, isbool ? "" : ":"))
			return vtb_error("out of memory");
	}
	return 0;
}

/* getopt's '?' or ':' for the option argv[optind - 1]. */
static int bad_option(const struct vtb_workload_ops *w, int c, const char *arg)
{
	char *name;

	if (c == ':')
		return vtb_error("%s: option '%s' needs a value", w->name, arg);
	if (strncmp(arg, "--", 2) == 0) {
		name = strndup(arg + 2, strcspn(arg + 2, "="));
	} else {
		name = vtb_asprintf("-%c", optopt ? optopt : '?');
	}
	if (!name)
		return vtb_error("out of memory");
	unknown_option_msg(w, name);
	free(name);
	return -1;
}

/* The options after the workload's name: the agent's into @a, the
 * workload's into wa->params. */
static int wl_parse_options(int argc, char **argv, struct wl_args *wa, struct agent *a)
{
	const struct vtb_workload_ops *w = wa->w;
	struct option *lopts = NULL;
	struct vtb_strbuf shorts = VTB_STRBUF_INIT;
	int ret = -1, c;

	if (wl_getopt_tables(wa, &lopts, &shorts))
		goto out;
	opterr = 0;
	optind = 2;
	while ((c = getopt_long(argc, argv, vtb_strbuf_str(&shorts), lopts, NULL)) != -1) {
		const struct vtb_opt *o = NULL;
		const char *val = optarg;

		if (c == 'h' || c == OPT_HELP) {
			wa->help = true;
			continue;
		}
		if (c == OPT_RECORDS && !optarg) {
			a->records = true;
			continue;
		}
		if (c == OPT_RECORDS) {
			o = vtb_opt_find(w->opts, "records");
		} else if (c == OPT_NONCE) {
			a->nonce = optarg;
			continue;
		} else if (c == OPT_OUT) {
			a->out = optarg;
			continue;
		} else if (c == OPT_EVIDENCE) {
			a->evidence = true;
			continue;
		} else if (c >= OPT_WL && c < OPT_WL + (int)wa->nopts) {
			o = &w->opts[c - OPT_WL];
		} else if (c == '?' || c == ':') {
			bad_option(w, c, argv[optind - 1]);
			goto out;
		} else {
			for (size_t i = 0; i < wa->nopts; i++)
				if (w->opts[i].shortopt == c)
					o = &w->opts[i];
			if (!o)
				continue;
		}
		if (!val && o->type == VTB_OPT_BOOL) {
			val = "yes";
			if (optind < argc && is_bool_word(argv[optind]))
				val = argv[optind++];
		}
		if (set_param(w, wa->params, wa->texts, o->name, val)) {
			vtb_error("%s: %s", w->name, vtb_errmsg());
			goto out;
		}
	}
	ret = 0;
out:
	free(lopts);
	vtb_strbuf_release(&shorts);
	return ret;
}

/* The NAME=VALUE words after the options. */
static int wl_parse_assignments(int argc, char **argv, struct wl_args *wa)
{
	const struct vtb_workload_ops *w = wa->w;

	for (; optind < argc; optind++) {
		char *eq = strchr(argv[optind], '='), *name;
		int r;

		if (!eq)
			return vtb_error(
				"%s: unexpected argument '%s' (options are --NAME VALUE or NAME=VALUE)",
				w->name, argv[optind]);
		name = strndup(argv[optind], (size_t)(eq - argv[optind]));
		if (!name)
			return vtb_error("out of memory");
		r = set_param(w, wa->params, wa->texts, name, eq + 1);
		free(name);
		if (r)
			return vtb_error("%s: %s", w->name, vtb_errmsg());
	}
	return 0;
}

static int cmd_workload(int argc, char **argv)
{
	struct agent a = { .nonce = "0" };
	struct wl_args wa = { .w = vtb_workload_find(argv[1]) };
	const struct vtb_workload_ops *w = wa.w;
	int ret = EXIT_USAGE;

	if (!w) {
		unknown_workload_msg(argv[1]);
		fprintf(stderr, "vtbench-agent: %s\n", vtb_errmsg());
		return EXIT_USAGE;
	}
	while (w->opts[wa.nopts].name)
		wa.nopts++;
	wa.params = calloc(1, w->params_size ? w->params_size : 1);
	wa.texts = default_texts(w);
	if (!wa.params || !wa.texts) {
		fprintf(stderr, "vtbench-agent: out of memory\n");
		goto out;
	}
	if (vtb_opts_defaults(w->opts, wa.params)) {
		fprintf(stderr, "vtbench-agent: %s: %s\n", w->name, vtb_errmsg());
		ret = EXIT_FAIL;
		goto out;
	}
	if (wl_parse_options(argc, argv, &wa, &a) || wl_parse_assignments(argc, argv, &wa)) {
		fprintf(stderr, "vtbench-agent: %s\n", vtb_errmsg());
		goto out;
	}
	if (wa.help) {
		workload_help(stdout, w);
		ret = 0;
		goto out;
	}
	ret = EXIT_FAIL;
	if (agent_start(&a, NULL, NULL)) {
		fprintf(stderr, "vtbench-agent: %s\n", vtb_errmsg());
		ret = EXIT_USAGE;
		goto out;
	}
	/* by hand the host's settings stay as they are: schedstats off
	 * leaves the per-domain counters at 0, and the summary says so */
	if (a.evidence) {
		char *p = vtb_gv_path("", "/proc/sys/kernel/sched_schedstats");
		char *v = p ? vtb_gv_read(p) : NULL;

		free(p);
		if (!v || strcmp(v, "1"))
			a.ss_note = vtb_asprintf(
				"kernel.sched_schedstats is %s: the sched-domain counters stay 0 "
				"(this host's settings are not changed; sysctl "
				"kernel.sched_schedstats=1 to count them)",
				v ? v : "absent");
		free(v);
	}
	if (write_rec(&a, json_pack("{s:s, s:s, s:s, s:O}", "type", "cell", "cell", "manual",
				    "workload", w->name, "params", wa.texts)) ||
	    run_parsed(&a, "manual", w, wa.params) || write_end(&a)) {
		fprintf(stderr, "vtbench-agent: %s\n", vtb_errmsg());
		goto out;
	}
	ret = a.cells_failed ? EXIT_FAIL : 0;
out:
	free(a.ss_note);
	free(wa.params);
	json_decref(wa.texts);
	vtb_cpuset_release(&a.cpus);
	return ret;
}

/* One job cell: records its failure to start, or runs it. */
static int job_cell(struct agent *a, json_t *cell, size_t idx)
{
	const struct vtb_workload_ops *w;
	const char *key = NULL, *wname = NULL, *name;
	json_t *params = NULL, *texts = NULL, *v;
	void *pstruct = NULL;
	int ret = -1;

	if (json_unpack(cell, "{s:s, s:s, s?o}", "key", &key, "workload", &wname, "params",
			&params)) {
		char *k = vtb_asprintf("cell%zu", idx);

		if (!k)
			return vtb_error("out of memory");
		ret = write_rec(a, json_pack("{s:s, s:s, s:s, s:{}}", "type", "cell", "cell", k,
					     "workload", "?", "params"));
		if (!ret)
			ret = cell_rejected(a, k, "?",
					    "job cell lacks a string 'key' or 'workload'");
		free(k);
		return ret;
	}
	texts = json_object();
	if (!texts)
		return vtb_error("out of memory");
	if (params && !json_is_object(params)) {
		ret = write_rec(a, json_pack("{s:s, s:s, s:s, s:O}", "type", "cell", "cell", key,
					     "workload", wname, "params", texts));
		if (!ret)
			ret = cell_rejected(a, key, wname, "job cell 'params' is not an object");
		goto out;
	}
	if (params)
		json_object_update(texts, params);
	if (write_rec(a, json_pack("{s:s, s:s, s:s, s:O}", "type", "cell", "cell", key, "workload",
				   wname, "params", texts)))
		goto out;
	if (a->reject) {
		ret = cell_rejected(a, key, wname, a->reject);
		goto out;
	}
	w = vtb_workload_find(wname);
	if (!w) {
		unknown_workload_msg(wname);
		ret = cell_rejected(a, key, wname, vtb_errmsg());
		goto out;
	}
	pstruct = calloc(1, w->params_size ? w->params_size : 1);
	if (!pstruct) {
		vtb_error("out of memory");
		goto out;
	}
	if (vtb_opts_defaults(w->opts, pstruct)) {
		ret = cell_rejected(a, key, wname, vtb_errmsg());
		goto out;
	}
	json_object_foreach(params, name, v)
	{
		const char *text = json_string_value(v);

		if (!text) {
			vtb_error("parameter '%s' is not a string", name);
			ret = cell_rejected(a, key, wname, vtb_errmsg());
			goto out;
		}
		if (set_param(w, pstruct, texts, name, text)) {
			ret = cell_rejected(a, key, wname, vtb_errmsg());
			goto out;
		}
	}
	ret = run_parsed(a, key, w, pstruct);
out:
	free(pstruct);
	json_decref(texts);
	return ret;
}

/* Writes an error record naming no cell. */
static int job_error(struct agent *a, const char *msg)
{
	fprintf(stderr, "vtbench-agent: %s\n", msg);
	return write_rec(a, json_pack("{s:s, s:n, s:s}", "type", "error", "cell", "message", msg));
}

/*
 * Applies the job's sched profile (guests only: a host's scheduler
 * settings are never changed) and writes its record and errors.  On
 * failure every cell of the job is rejected.  -1 on a record write
 * failure or ENOMEM.
 */
static int job_sched(struct agent *a, json_t *sched)
{
	const char *name = json_string_value(json_object_get(sched, "name"));
	struct vtb_sched_result sr = { 0 };
	struct utsname u;
	size_t i;
	int ret = -1;

	if (!name)
		name = "?";
	if (uname(&u) != 0)
		snprintf(u.release, sizeof(u.release), "?");
	if (!a->guest) {
		char *msg = vtb_asprintf(
			"sched profile '%s': not applied outside a guest's /init (the host's scheduler settings are never changed)",
			name);

		a->sched_failed = true;
		ret = msg ? job_error(a, msg) : vtb_error("out of memory");
		free(msg);
		if (ret)
			return ret;
		ret = -1;
	} else {
		if (vtb_sched_apply("", sched, u.release, &sr))
			return -1;
		if (write_rec(a, json_incref(sr.record)))
			goto out;
		for (i = 0; i < sr.n_errors; i++)
			if (job_error(a, sr.errors[i]))
				goto out;
		a->sched_failed = !sr.ok;
	}
	if (a->sched_failed) {
		a->reject = vtb_asprintf("not run: sched profile '%s' did not apply", name);
		if (!a->reject) {
			vtb_error("out of memory");
			goto out;
		}
	}
	ret = 0;
out:
	vtb_sched_result_release(&sr);
	return ret;
}

/*
 * The records of a VM job before its cells (issue 6 spec B): probe,
 * sched, guest_view, steal before.  The probe sets sched/verbose to Y
 * when it is N, so that the domains exist for the profile and the view.
 */
static int job_view_begin(struct agent *a, json_t *sched)
{
	if (write_rec(a, vtb_gv_probe("", a->guest)))
		return -1;
	if (sched && job_sched(a, sched))
		return -1;
	if (write_rec(a, vtb_gv_view("", true)))
		return -1;
	return write_rec(a, vtb_gv_steal("", "before"));
}

/* The value the job's sched profile gives kernel.sched_schedstats, or NULL. */
static const char *schedstats_of(const json_t *sched)
{
	return json_string_value(
		json_object_get(json_object_get(sched, "sysctl"), "kernel.sched_schedstats"));
}

static int cmd_job(const char *path, struct agent *a)
{
	json_error_t jerr;
	json_t *job = NULL, *cells = NULL, *cell, *sched = NULL;
	const char *nonce = "0", *boot = NULL, *config = NULL;
	json_int_t schema = 0;
	int view = 0, evidence = 1;
	char *text;
	size_t i;
	int ret = EXIT_USAGE;

	text = vtb_read_file(path, JOB_MAX_BYTES);
	if (!text)
		goto fail;
	job = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!job) {
		vtb_error("%s:%d: invalid job JSON: %s", path, jerr.line, jerr.text);
		goto fail;
	}
	if (json_unpack_ex(job, &jerr, 0, "{s:I, s?s, s?s, s?s, s:o, s?b, s?o, s?b}", "schema",
			   &schema, "nonce", &nonce, "boot", &boot, "config", &config, "cells",
			   &cells, "view", &view, "sched", &sched, "evidence", &evidence) ||
	    !json_is_array(cells)) {
		vtb_error("%s: invalid job: %s", path,
			  json_is_array(cells) || !cells ? jerr.text : "'cells' is not an array");
		goto fail;
	}
	if (schema != VTB_REC_SCHEMA) {
		vtb_error("%s: job schema %lld not supported (expected %d)", path,
			  (long long)schema, VTB_REC_SCHEMA);
		goto fail;
	}
	if (sched && !view) {
		vtb_error("%s: invalid job: 'sched' without \"view\": true", path);
		goto fail;
	}
	/* keep our own copy: the job's text is freed at the end, and PID 1
	 * needs the nonce if this process dies mid-job */
	snprintf(a->nonce_buf, sizeof(a->nonce_buf), "%s", nonce);
	a->nonce = a->nonce_buf;
	if (agent_start(a, boot, config))
		goto fail;
	ret = EXIT_FAIL;
	if (view && job_view_begin(a, sched))
		goto fail;
	/* a guest's cells carry the scheduler's counters (issue 28): a
	 * guest only, the host's settings are never changed */
	a->evidence = view && evidence && a->guest;
	if (a->evidence && schedstats_of(sched)) {
		/* the profile under test sets it: left as the profile has it */
		a->ss_note = vtb_asprintf("kernel.sched_schedstats is the sched profile's (%s): "
					  "left as set%s",
					  schedstats_of(sched),
					  strcmp(schedstats_of(sched), "0") ? ""
									    : ", the sched-domain counters stay 0");
		if (!a->ss_note) {
			vtb_error("out of memory");
			goto fail;
		}
	} else if (a->evidence && vtb_cellstat_enable("", &a->ss_was, &a->ss_note)) {
		goto fail;
	}
	json_array_foreach(cells, i, cell)
	{
		if (job_cell(a, cell, i))
			goto fail;
	}
	if (a->evidence)
		vtb_cellstat_restore("", a->ss_was);
	if (view && write_rec(a, vtb_gv_steal("", "after")))
		goto fail;
	if (write_end(a))
		goto fail;
	ret = a->cells_failed || a->sched_failed ? EXIT_FAIL : 0;
	goto out;
fail:
	fprintf(stderr, "vtbench-agent: %s\n", vtb_errmsg());
out:
	free(a->reject);
	a->reject = NULL;
	free(a->ss_was);
	free(a->ss_note);
	a->ss_was = a->ss_note = NULL;
	json_decref(job);
	return ret;
}

/* The boot nonce from the kernel command line (vtbench.nonce=HEX), for
 * records written when the job itself could not be read. */
static void nonce_from_cmdline(struct agent *a)
{
	char *cmdline = vtb_read_file("/proc/cmdline", 1 << 20), *p, *e;

	if (!cmdline)
		return;
	p = strstr(cmdline, "vtbench.nonce=");
	if (p) {
		p += strlen("vtbench.nonce=");
		e = p + strspn(p, "0123456789abcdef");
		if (e > p && (size_t)(e - p) < sizeof(a->nonce_buf)) {
			memcpy(a->nonce_buf, p, (size_t)(e - p));
			a->nonce_buf[e - p] = '\0';
			a->nonce = a->nonce_buf;
		}
	}
	free(cmdline);
}

/* Reports a job that could not run at all: header (when the job did not
 * get that far), error, end. */
static void job_failed(struct agent *a, const char *msg)
{
	if (!a->started) {
		nonce_from_cmdline(a);
		if (agent_start(a, NULL, NULL))
			return;
	}
	if (write_rec(a, json_pack("{s:s, s:n, s:s}", "type", "error", "cell", "message",
				   msg ? msg : "out of memory")) == 0) {
		a->cells_failed++;
		write_end(a);
	}
}

/*
 * /init of a guest.  The job runs in a child: a workload that crashes
 * or exits must not take PID 1 with it (the kernel panics when init
 * dies), so the parent turns the child's abnormal end into an error
 * record, then powers off whatever happened.  The child's struct agent
 * lives in shared memory, so the parent knows whether the header and
 * the end record went out.  PID 1 never returns.
 */
static void pid1_main(void)
{
	struct agent *a;
	char *msg = NULL;
	int st = 0;
	pid_t pid;

	if (vtb_pid1_setup(VTB_PID1_RECORD_TTY)) {
		fprintf(stderr, "vtbench-agent: %s\n", vtb_errmsg());
		vtb_pid1_poweroff();
	}
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED) {
		fprintf(stderr, "vtbench-agent: cannot map shared memory: %s\n", strerror(errno));
		vtb_pid1_poweroff();
	}
	memset(a, 0, sizeof(*a));
	a->nonce = "0";
	a->records = true;
	a->guest = true;
	pid = fork();
	if (pid == 0) {
		if (cmd_job(VTB_PID1_JOB, a) == EXIT_USAGE) {
			msg = vtb_strdup(vtb_errmsg());
			job_failed(a, msg);
		}
		fflush(stdout);
		_exit(0);
	}
	if (pid < 0) {
		msg = vtb_asprintf("cannot fork the job runner: %s", strerror(errno));
		job_failed(a, msg);
		vtb_pid1_poweroff();
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) != 0) || !a->ended) {
		struct agent p = { .nonce = "0", .records = true, .guest = true };

		p.started = a->started;
		p.nonce = a->nonce_buf[0] ? a->nonce_buf : "0";
		if (p.started && vtb_rec_init(&p.rec, STDOUT_FILENO, p.nonce) != 0)
			vtb_pid1_poweroff();
		/* the runner may have died in the middle of a line: ours start on
		 * a fresh one (an empty line is only noise to the reader) */
		if (p.started)
			vtb_rec_write_raw(&p.rec, "\n", 1);
		if (WIFSIGNALED(st))
			msg = vtb_asprintf("the job runner was killed by signal %d (%s)",
					   WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
			msg = vtb_asprintf("the job runner exited with status %d", WEXITSTATUS(st));
		else
			msg = vtb_strdup("the job runner ended without its end record");
		job_failed(&p, msg);
		vtb_cpuset_release(&p.cpus);
	}
	free(msg);
	vtb_pid1_poweroff();
}

static int cmd_top(int argc, char **argv)
{
	struct option lopts[VTB_ARRAY_SIZE(agent_opts)];
	struct agent a = { .nonce = "0" };
	const char *job = NULL;
	bool list = false, all = false, version = false, help = false, man = false;
	int c, ret;

	lopts[agent_longopts(lopts, TOP, NULL)] = (struct option){ NULL, 0, NULL, 0 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		switch (c) {
		case OPT_JOB:
			job = optarg;
			break;
		case OPT_RECORDS:
			a.records = true;
			break;
		case OPT_OUT:
			a.out = optarg;
			break;
		case OPT_LIST:
			list = true;
			break;
		case OPT_ALL:
			all = true;
			break;
		case OPT_VERSION:
			version = true;
			break;
		case OPT_MAN:
			man = true;
			break;
		case 'h':
		case OPT_HELP:
			help = true;
			break;
		case ':':
			fprintf(stderr, "vtbench-agent: option '%s' needs a value\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "vtbench-agent: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"vtbench-agent: unexpected argument '%s' (the workload comes first)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (man) {
		man_page(stdout);
		return 0;
	}
	if (help) {
		usage(stdout);
		printf("\nOptions:\n");
		agent_opts_help(stdout, TOP, true);
		printf("\nWorkloads:\n");
		list_workloads(stdout, all);
		printf("\nexit codes: %s\n", exit_codes);
		return 0;
	}
	if (version) {
		printf("vtbench-agent %s (record schema %d)\n", VTB_VERSION, VTB_REC_SCHEMA);
		return 0;
	}
	if (list) {
		list_workloads(stdout, all);
		return 0;
	}
	if (!job) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* A job's agent must not outlive the harness that reads its records
	 * (a SIGKILLed harness would otherwise leave it running and skew the
	 * next boot).  Not as PID 1 in a guest, where there is no parent. */
	if (getpid() != 1) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			return EXIT_FAIL;
	}
	ret = cmd_job(job, &a);
	vtb_cpuset_release(&a.cpus);
	return ret;
}

int main(int argc, char **argv)
{
	int ret;

	if (getpid() == 1)
		pid1_main();
	if (vtb_workloads_check()) {
		fprintf(stderr, "vtbench-agent: internal error: %s\n", vtb_errmsg());
		return EXIT_FAIL;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (argv[1][0] == '-')
		ret = cmd_top(argc, argv);
	else
		ret = cmd_workload(argc, argv);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "vtbench-agent: cannot write output: %s\n", strerror(errno));
		if (!ret)
			ret = EXIT_FAIL;
	}
	if (close_out() < 0) {
		fprintf(stderr, "vtbench-agent: %s\n", vtb_errmsg());
		if (!ret)
			ret = EXIT_FAIL;
	}
	return ret;
}
