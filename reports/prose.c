/* SPDX-License-Identifier: MIT */
/*
 * What the text and Markdown reports both write (doc.h): figures as
 * words, prose folded to the width, the answer first (verdicts, boots,
 * failures, the TCG note, advice), the legend, the campaign and the guest
 * evidence.  Markdown differs in markup only.
 */
#include <math.h>
#include <string.h>

#include "doc.h"
#include "evwords.h"
#include "report.h"

/*
 * Figures have a bounded width, whatever the document holds (a table's
 * column is as wide as its widest figure, text.c): a mean at most 11
 * columns ("-1.235e+308"), a change 11 ("+1.23e+308%"), n 12
 * ("n=-1.23e+308"), a CoV 15 ("cov -1.23e+308%").
 */

/* Lists of the evidence (claims, levels, guest kernels) show this many. */
#define MAX_LISTED 8

/* A mean, a median: 4 significant digits, whole numbers from 1000 on. */
const char *rep_num(struct ctx *c, double v)
{
	if (isnan(v))
		return "-";
	if (fabs(v) >= 1e9)
		return rep_fmt(c, "%.4g", v);
	if (fabs(v) >= 1000)
		return rep_fmt(c, "%.0f", v);
	return rep_fmt(c, "%.4g", v);
}

const char *rep_pctv(struct ctx *c, double v)
{
	return rep_fmt(c, "%s", vtb_report_pct(v).s);
}

const char *rep_cov_s(struct ctx *c, double cov)
{
	if (isnan(cov))
		return "cov -";
	if (fabs(cov * 100) >= 1e6)
		return rep_fmt(c, "cov %.3g%%", cov * 100);
	return rep_fmt(c, "cov %.1f%%", cov * 100);
}

const char *rep_n_s(struct ctx *c, double n)
{
	if (isnan(n))
		return "n=-";
	return rep_fmt(c, fabs(n) >= 1e6 ? "n=%.3g" : "n=%.0f", n);
}

/* A tail row judged on the pooled histograms says so: its change and
 * interval are not of the per-boot means shown beside them. */
static bool pooled(const struct rrow *r)
{
	return r->test && !strcmp(r->test, "pooled-boot-bootstrap");
}

const char *rep_ci_s(struct ctx *c, const struct rrow *r)
{
	if (isnan(r->ci_lo) || isnan(r->ci_hi))
		return "ci -";
	return rep_fmt(c, "%sci %s..%s", pooled(r) ? "pooled " : "", rep_pctv(c, r->ci_lo),
		       rep_pctv(c, r->ci_hi));
}

const char *rep_metric_s(struct ctx *c, const struct rrow *r)
{
	const char *m = rep_show(c, r->metric, REP_NAME_MAX);

	if (!r->better)
		return m;
	return rep_fmt(c, "%s %s", m, !strcmp(r->better, "higher") ? "(+)" : "(-)");
}

/*
 * Text: @s folded at blanks into lines of at most c->cols, the first line
 * after @first, the others indented as far (not at all when @first is
 * wider than half a line); a word longer than a line is cut where the
 * line ends and goes on on the next (fold -s does the same), so every
 * line fits.  Markdown: one line, the reader folds.
 */
void rep_put_folded(struct ctx *c, const char *first, const char *s)
{
	rep_put_hanging(c, first, rep_width(first), s);
}

void rep_put_hanging(struct ctx *c, const char *first, size_t hang, const char *s)
{
	size_t cols = c->cols ? c->cols : 1, ind = hang, col = rep_width(first), start;

	fputs(first, c->f);
	if (c->mode == M_MD) {
		fprintf(c->f, "%s\n", s);
		return;
	}
	if (ind > cols / 2)
		ind = 0;
	/* the first line's first word goes right after @first (after a
	 * blank when @first is the indent and wider than half a line) */
	start = hang == col ? ind : col;
	while (*s) {
		size_t n = strcspn(s, " "), w = rep_width_n(s, n);

		if (col > start && col + 1 + w > cols) {
			fprintf(c->f, "\n%*s", (int)ind, "");
			col = start = ind;
		} else if (col > start) {
			fputc(' ', c->f);
			col++;
		}
		/* here col < cols (ind is; a word after another fits), so
		 * each pass writes a part of the word */
		while (col + w > cols) {
			size_t k = rep_bytes_of(s, n, cols - col);

			fprintf(c->f, "%.*s\n%*s", (int)k, s, (int)ind, "");
			s += k;
			n -= k;
			w = rep_width_n(s, n);
			col = start = ind;
		}
		fprintf(c->f, "%.*s", (int)n, s);
		col += w;
		s += n;
		s += strspn(s, " ");
	}
	fputc('\n', c->f);
}

/* One line per campaign fact: the same words in text and Markdown. */
static void put_kv(struct ctx *c, const char *k, const char *v)
{
	if (c->mode == M_MD)
		rep_put_folded(c, k[0] ? rep_fmt(c, "- **%s** ", k) : "  - ", v);
	else
		rep_put_folded(c, rep_fmt(c, "%-12s ", k), v);
}

/* A string member shown (cut to @max columns), "?" when absent. */
static const char *str_max(struct ctx *c, const json_t *o, const char *k, size_t max)
{
	const char *s = rep_jstr(o, k);

	return s ? rep_show(c, s, max) : "?";
}

/* A name or short fact (a host name, a version). */
static const char *str_or(struct ctx *c, const json_t *o, const char *k)
{
	return str_max(c, o, k, REP_NAME_MAX);
}

/* Did campaign @camp have VM configurations?  (A campaign of baselines
 * alone has no accelerator, libvirt, QEMU or guest kernel to show.) */
static bool has_vms(const struct ctx *c, const json_t *camp)
{
	const char *u = rep_jstr(camp, "uuid");

	for (size_t i = 0; i < c->ncfg; i++)
		if (c->cfgs[i].kind && !strcmp(c->cfgs[i].kind, "vm") &&
		    (!u || !c->cfgs[i].campaign || !strcmp(c->cfgs[i].campaign, u)))
			return true;
	return rep_jstr(camp, "accelerators") ||
	       json_array_size(json_object_get(camp, "guest_kernels"));
}

static void put_campaign(struct ctx *c, const char *title, const json_t *camp)
{
	const json_t *gk = json_object_get(camp, "guest_kernels"), *k;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t i;

	put_kv(c, title,
	       rep_fmt(c, "%s (matrix %s, vtbench %s)", str_or(c, camp, "uuid"),
		       str_max(c, camp, "matrix_path", REP_TEXT_MAX), str_or(c, camp, "version")));
	put_kv(c, "host",
	       rep_fmt(c, "%s, cpu %s, kernel %s", str_or(c, camp, "host"), str_or(c, camp, "cpu"),
		       str_or(c, camp, "kernel")));
	if (!has_vms(c, camp))
		return;
	json_array_foreach(gk, i, k)
	{
		if (i == MAX_LISTED) {
			c->oom |= vtb_strbuf_addf(&sb, ", ... (%zu in all)", json_array_size(gk)) <
				  0;
			break;
		}
		if ((i && vtb_strbuf_addstr(&sb, ", ")) ||
		    vtb_strbuf_addstr(&sb, json_string_value(k)
						   ? rep_show(c, json_string_value(k), REP_NAME_MAX)
						   : "?"))
			c->oom = true;
	}
	put_kv(c, "accelerator",
	       rep_fmt(c, "%s, libvirt %s, qemu %s, guest kernels %s",
		       str_or(c, camp, "accelerators"), str_or(c, camp, "libvirt_version"),
		       str_or(c, camp, "qemu_version"), i ? vtb_strbuf_str(&sb) : "-"));
	vtb_strbuf_release(&sb);
}

static const char *opt_num(struct ctx *c, const char *k, const char *f)
{
	double v = rep_jnumv(c->opts, k);

	return isnan(v) ? "?" : rep_fmt(c, f, v);
}

void rep_put_header(struct ctx *c)
{
	const json_t *lim = json_object_get(c->opts, "cov_limit");
	const char *axis = rep_jstr(c->opts, "axis");
	double level = rep_jnumv(c->summary, "ci_level");

	if (isnan(level))
		level = rep_jnumv(c->opts, "ci_level");

	put_campaign(c, "campaign", c->camp);
	if (json_is_object(c->against))
		put_campaign(c, "against", c->against);
	put_kv(c, "options",
	       rep_fmt(c, "baseline %s%s%s, fail on %s", str_or(c, c->opts, "baseline"),
		       axis ? ", axis " : "", axis ? rep_show(c, axis, REP_NAME_MAX) : "",
		       str_or(c, c->opts, "fail_on")));
	put_kv(c, "statistics",
	       rep_fmt(c,
		       "threshold %s, alpha %s (intervals at %s), noisy above CoV %s/%s/%s (throughput/time/latency)%s",
		       opt_num(c, "threshold_pct", "%g%%"), opt_num(c, "alpha", "%g"),
		       isnan(level) ? "?" : rep_fmt(c, "%.4g%%", level * 100),
		       isnan(rep_jnumv(lim, "throughput"))
			       ? "?"
			       : rep_fmt(c, "%g%%", rep_jnumv(lim, "throughput")),
		       isnan(rep_jnumv(lim, "time")) ? "?"
						     : rep_fmt(c, "%g%%", rep_jnumv(lim, "time")),
		       isnan(rep_jnumv(lim, "latency"))
			       ? "?"
			       : rep_fmt(c, "%g%%", rep_jnumv(lim, "latency")),
		       json_is_false(json_object_get(c->opts, "robust"))
			       ? ", --no-robust: no boot set aside, tails per boot"
			       : ""));
}

/* Under TCG the ratios say nothing about virtualization: said up front. */
void rep_put_note(struct ctx *c)
{
	if (!vtb_report_ran_tcg(c->camp) &&
	    !(json_is_object(c->against) && vtb_report_ran_tcg(c->against)))
		return;
	if (c->mode == M_MD)
		fprintf(c->f, "\n> note: %s\n", vtb_report_tcg_note);
	else
		rep_put_folded(c, "note: ", vtb_report_tcg_note);
}

/* What the tables compare, from the options. */
const char *rep_title(struct ctx *c)
{
	const char *axis = rep_jstr(c->opts, "axis"), *base = rep_jstr(c->opts, "baseline");

	if (json_is_object(c->against))
		return rep_fmt(c, "campaign %s vs campaign %s (--against, matched by cell key)",
			       str_or(c, c->camp, "uuid"), str_or(c, c->against, "uuid"));
	if (axis)
		return rep_fmt(c, "along %s (every other parameter fixed)",
			       rep_show(c, axis, REP_NAME_MAX));
	if (!base || !strcmp(base, "own"))
		return "guest vs host (each VM configuration against its bare-metal baseline)";
	return rep_fmt(c, "against baseline %s", rep_show(c, base, REP_NAME_MAX));
}

const char *rep_legend(struct ctx *c)
{
	double level = rep_jnumv(c->summary, "ci_level");
	const char *fam = rep_jstr(c->summary, "family");

	if (isnan(level))
		level = rep_jnumv(c->opts, "ci_level");
	return rep_fmt(
		c,
		"%s significant (Benjamini-Hochberg q < %s over the %s rows%s); change = mean / baseline mean - 1 (harmonic means for rates, geometric for latencies); pooled ci = a tail's change and interval of the pooled histograms of its boots, not of the per-boot values shown; ci = its interval at %s, the level BH selects by (Benjamini-Yekutieli: significant exactly when it leaves out 0); n = boots kept (a boot far from its side's others is set aside and named); cov = stddev / mean, noisy when above its class limit (a note, never a verdict); verdicts: worse, better (significant, the change beyond %s; confirmed: the whole interval beyond it), same (the interval within +-%s), inconclusive (neither yet: more boots would decide), few (under 2 boots a side: not judged), missing (no result on a side), error (values the statistic cannot take)",
		c->mode == M_MD ? "\\*" : "*", opt_num(c, "alpha", "%g"),
		fam && !strcmp(fam, "all") ? "comparison's" : "shown",
		fam && !strcmp(fam, "all") ? ", whatever --metric and --workload show" : "",
		isnan(level) ? "?" : rep_fmt(c, "%.4g%%", level * 100),
		opt_num(c, "threshold_pct", "%g%%"), opt_num(c, "threshold_pct", "%g%%"));
}

void rep_put_configs(struct ctx *c)
{
	bool two = json_is_object(c->against);

	if (c->mode == M_MD)
		fprintf(c->f,
			"\n## Configurations\n\n| name | label | kind | pCPUs |%s\n|---|---|---|---|%s\n",
			two ? " campaign |" : "", two ? "---|" : "");
	else
		fprintf(c->f, "\nconfigurations\n");
	for (size_t i = 0; i < c->ncfg; i++) {
		const struct rcfg *g = &c->cfgs[i];
		const char *camp = "";

		if (two && g->campaign)
			camp = rep_fmt(c, "%.8s%s", rep_show(c, g->campaign, REP_NAME_MAX),
				       rep_jstr(c->against, "uuid") &&
						       !strcmp(rep_jstr(c->against, "uuid"),
							       g->campaign)
					       ? ", against"
					       : "");
		if (c->mode == M_MD)
			fprintf(c->f, "| %s | %s | %s | %s |%s\n", g->name,
				rep_show(c, g->label, REP_TEXT_MAX),
				g->kind ? rep_show(c, g->kind, REP_NAME_MAX) : "-",
				g->cpus ? rep_show(c, g->cpus, REP_NAME_MAX) : "-",
				two ? rep_fmt(c, " %s |", camp) : "");
		else
			rep_put_folded(c, rep_fmt(c, "  %-4s = ", g->name),
				       rep_fmt(c, "%s (%s, pCPUs %s%s%s)",
					       rep_show(c, g->label, REP_TEXT_MAX),
					       g->kind ? rep_show(c, g->kind, REP_NAME_MAX) : "?",
					       g->cpus ? rep_show(c, g->cpus, REP_NAME_MAX) : "?",
					       two ? ", campaign " : "", camp));
	}
}

const char *rep_group_title(struct ctx *c, const struct rgroup *g)
{
	if (!strcmp(g->cell, g->workload))
		return rep_fmt(c, "%s, baseline %s", rep_show(c, g->cell, REP_NAME_MAX),
			       g->base->name);
	return rep_fmt(c, "%s (%s), baseline %s", rep_show(c, g->cell, REP_NAME_MAX),
		       rep_show(c, g->workload, REP_NAME_MAX), g->base->name);
}

/* The guest evidence: the lines of today's compare, kept word for word. */
static void put_ev(struct ctx *c, const char *k, const char *v)
{
	if (c->mode == M_MD)
		fprintf(c->f, "- %s %s\n", k, v);
	else
		rep_put_folded(c, rep_fmt(c, "  %-8s ", k), v);
}

/* "12", "1.2", "0.05", "-" for none */
static const char *evnum(struct ctx *c, const json_t *o, const char *k, const char *suffix)
{
	char buf[VTB_EV_NUM_MAX];

	return rep_fmt(c, "%s", vtb_ev_num(rep_jnumv(o, k), suffix, buf));
}

static const char *evmetric(struct ctx *c, const json_t *cell, const char *k, const char *suffix)
{
	return evnum(c, json_object_get(json_object_get(cell, "metrics"), k), "mean", suffix);
}

/* A table row under put_ev's column: as it is where the width allows,
 * folded (its spacing lost) where it does not. */
static void put_ev_row(struct ctx *c, const char *row)
{
	if (11 + rep_width(row) <= c->cols)
		fprintf(c->f, "%11s%s\n", "", row);
	else
		put_ev(c, "", row);
}

/* One cell's scheduler counters (issue 28): per level a row, then the
 * run queues, wake-ups and the host's view of the vCPU threads. */
static void put_sched_cell(struct ctx *c, const json_t *cell)
{
	const json_t *levels = json_object_get(cell, "levels"), *l;
	size_t i;

	put_ev(c, "sched",
	       rep_fmt(c, "cell %s, mean of %.0f boots:",
		       rep_show(c, rep_jstr(cell, "cell") ? rep_jstr(cell, "cell") : "?",
				REP_NAME_MAX),
		       rep_jnumv(cell, "boots")));
	if (json_array_size(levels)) {
		if (c->mode == M_MD) {
			fprintf(c->f, "\n| level | balance attempts/s | failed | tasks moved/s |\n"
				      "|---|---:|---:|---:|\n");
			json_array_foreach(levels, i, l)
			fprintf(c->f, "| %s | %s | %s | %s |\n",
				rep_show(c, rep_jstr(l, "level") ? rep_jstr(l, "level") : "?",
					 REP_NAME_MAX),
				evnum(c, l, "lb_per_s", ""), evnum(c, l, "lb_failed_pct", "%"),
				evnum(c, l, "moved_per_s", ""));
			fputc('\n', c->f);
		} else {
			put_ev_row(c, rep_fmt(c, "%-6s %10s %7s %8s", "level", "balance/s", "failed",
					      "moved/s"));
			json_array_foreach(levels, i, l)
			{
				const char *n = rep_jstr(l, "level") ? rep_jstr(l, "level") : "?";
				char *up = vtb_ev_level(n, strlen(n));

				if (!up) {
					c->oom = true;
					return;
				}
				put_ev_row(c, rep_fmt(c, "%-6s %10s %7s %8s", rep_show(c, up, 6),
						      evnum(c, l, "lb_per_s", ""),
						      evnum(c, l, "lb_failed_pct", "%"),
						      evnum(c, l, "moved_per_s", "")));
				free(up);
			}
		}
	} else {
		put_ev(c, "", "no sched-domain level balanced (no domains, or no counters)");
	}
	put_ev(c, "",
	       rep_fmt(c,
		       "wake-ups %s remote, %s affine; %s tasks waiting per run queue; steal %s",
		       evmetric(c, cell, "wake_remote_pct", "%"),
		       evmetric(c, cell, "wake_affine_pct", "%"),
		       evmetric(c, cell, "guest_runq_wait", ""),
		       evmetric(c, cell, "steal_pct", "%")));
	put_ev(c, "",
	       rep_fmt(c,
		       "host: vCPUs busy %s (least %s), waited %s of the time, preempted %s/s, "
		       "migrated %s/s, on %s pCPUs each",
		       evmetric(c, cell, "vcpu_busy_pct", "%"),
		       evmetric(c, cell, "vcpu_busy_min_pct", "%"),
		       evmetric(c, cell, "vcpu_run_delay_pct", "%"),
		       evmetric(c, cell, "vcpu_preempt_per_s", ""),
		       evmetric(c, cell, "vcpu_migrations_per_s", ""),
		       evmetric(c, cell, "vcpu_pcpus", "")));
}

static void put_evidence_one(struct ctx *c, const json_t *e)
{
	const json_t *told = json_object_get(e, "told"), *claims = json_object_get(e, "claims"),
		     *levels = json_object_get(e, "levels"), *o;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *label = rep_jstr(e, "label"), *key = rep_jstr(e, "config"), *kernel, *diff;
	const char *camp = rep_jstr(c->camp, "uuid");
	double boots = rep_jnumv(e, "boots"), off = rep_jnumv(e, "off_planned_mean");
	bool err = false;
	size_t i;

	/* the evidence is the campaign's: with --against a key is in both */
	for (i = 0; i < c->ncfg && key && strcmp(c->cfgs[i].key, key); i++)
		;
	for (size_t k = i; k < c->ncfg && key && camp; k++)
		if (!strcmp(c->cfgs[k].key, key) && c->cfgs[k].campaign &&
		    !strcmp(c->cfgs[k].campaign, camp))
			i = k;
	if (c->mode == M_MD) {
		fprintf(c->f, "\n### %s%s%s\n\n", i < c->ncfg ? c->cfgs[i].name : "",
			i < c->ncfg ? " = " : "", rep_show(c, label ? label : "?", REP_TEXT_MAX));
	} else {
		fputc('\n', c->f);
		rep_put_folded(c, i < c->ncfg ? rep_fmt(c, "%s = ", c->cfgs[i].name) : "",
			       rep_show(c, label ? label : "?", REP_TEXT_MAX));
	}
	if (json_is_object(told))
		put_ev(c, "told",
		       rep_fmt(c,
			       "%.0f socket(s) x %.0f die(s) x %.0f core(s) x %.0f thread(s), pinning %s",
			       rep_jnumv(told, "sockets"), rep_jnumv(told, "dies"),
			       rep_jnumv(told, "cores"), rep_jnumv(told, "threads"),
			       str_or(c, told, "pinning")));
	else
		put_ev(c, "told", "(no plan stored)");
	json_array_foreach(claims, i, o)
	{
		if (i == MAX_LISTED) {
			err |= vtb_strbuf_addf(&sb, " ... (%zu in all)", json_array_size(claims)) <
			       0;
			break;
		}
		err |= vtb_strbuf_addf(&sb, "%s%s vcpus %s %s", i ? "; " : "", str_or(c, o, "kind"),
				       str_or(c, o, "vcpus"), str_or(c, o, "state")) < 0;
	}
	put_ev(c, "claims", json_array_size(claims) ? vtb_strbuf_str(&sb) : "none");
	vtb_strbuf_release(&sb);
	json_array_foreach(levels, i, o)
	{
		const char *lv = rep_jstr(o, "levels");

		if (i == MAX_LISTED) {
			err |= vtb_strbuf_addf(&sb, "; ... (%zu in all)", json_array_size(levels)) <
			       0;
			break;
		}
		err |= vtb_strbuf_addf(&sb, "%slevels %s (%.0f of %.0f boots)", i ? "; " : "",
				       lv && lv[0] ? rep_show(c, lv, REP_NAME_MAX) : "none",
				       rep_jnumv(o, "boots"), boots) < 0;
	}
	if (!json_array_size(levels))
		err |= vtb_strbuf_addstr(&sb, "no sched-domain view recorded") < 0;
	if ((kernel = rep_jstr(e, "guest_kernel")))
		err |= vtb_strbuf_addf(&sb, ", kernel %s", rep_show(c, kernel, REP_NAME_MAX)) < 0;
	put_ev(c, "guest", vtb_strbuf_str(&sb));
	vtb_strbuf_release(&sb);
	diff = rep_jstr(e, "first_diff");
	put_ev(c, "checked",
	       rep_fmt(c,
		       "%.0f of %.0f boots as planned, %.0f unexpected-topology, %.0f unchecked%s%s",
		       rep_jnumv(e, "matched"), boots, rep_jnumv(e, "unexpected"),
		       rep_jnumv(e, "unchecked"), diff ? ": " : "",
		       diff ? rep_show(c, diff, REP_TEXT_MAX) : ""));
	if (isnan(off)) {
		put_ev(c, "ran", "no host-side placement samples");
	} else {
		static const struct {
			const char *k, *what;
		} split[] = {
			{ "smt_split_core", "SMT pairs on different cores" },
			{ "llc_split_llc", "LLC groups across LLCs" },
			{ "node_split_node", "NUMA nodes across host nodes" },
		};

		err |= vtb_strbuf_addf(&sb, "off the planned pCPU %.1f%% mean, %.1f%% max",
				       off * 100, rep_jnumv(e, "off_planned_max") * 100) < 0;
		for (i = 0; i < VTB_ARRAY_SIZE(split); i++)
			if (!isnan(rep_jnumv(e, split[i].k)))
				err |= vtb_strbuf_addf(&sb, "; %s %.1f%%", split[i].what,
						       rep_jnumv(e, split[i].k) * 100) < 0;
		put_ev(c, "ran", vtb_strbuf_str(&sb));
		vtb_strbuf_release(&sb);
	}
	/* membw below STREAM's 4 x LLC rule (compare.c, "notes") */
	json_array_foreach(json_object_get(e, "notes"), i, o) if (json_is_string(o))
		put_ev(c, "note", rep_show(c, json_string_value(o), REP_TEXT_MAX));
	json_array_foreach(json_object_get(e, "sched"), i, o)
	put_sched_cell(c, o);
	if (err)
		c->oom = true;
}

static const char *cfg_name(struct ctx *c, const char *key)
{
	for (size_t i = 0; key && i < c->ncfg; i++)
		if (!strcmp(c->cfgs[i].key, key))
			return c->cfgs[i].name;
	return "?";
}

/* The largest differences of the scheduler evidence per compared pair
 * and cell (compare's "evidence_diffs"), in words. */
static void put_evidence_diffs(struct ctx *c)
{
	const json_t *diffs = json_object_get(c->doc, "evidence_diffs"), *d;
	size_t i;

	if (!json_array_size(diffs))
		return;
	if (c->mode == M_MD)
		fprintf(c->f, "\n### Scheduler evidence: the largest differences\n\n");
	else {
		fputc('\n', c->f);
		rep_put_folded(c, "", "scheduler evidence, the largest differences (they explain, "
				      "they are not gated; docs/evidence.md):");
	}
	json_array_foreach(diffs, i, d)
	{
		const char *xn = cfg_name(c, rep_jstr(d, "x")), *bn = cfg_name(c, rep_jstr(d, "base"));
		char *w = vtb_ev_words(json_object_get(d, "items"), xn, bn);

		if (!w) {
			c->oom = true;
			return;
		}
		if (c->mode == M_MD)
			fprintf(c->f, "- %s vs %s, %s: %s\n", xn, bn,
				rep_show(c, rep_jstr(d, "cell") ? rep_jstr(d, "cell") : "?",
					 REP_NAME_MAX),
				rep_show(c, w, REP_TEXT_MAX));
		else
			rep_put_folded(c,
				       rep_fmt(c, "  %s vs %s, %s: ", xn, bn,
					       rep_show(c,
							rep_jstr(d, "cell") ? rep_jstr(d, "cell") : "?",
							REP_NAME_MAX)),
				       rep_show(c, w, REP_TEXT_MAX));
		free(w);
		rep_pool_reset(c);
	}
}

void rep_put_evidence(struct ctx *c)
{
	const json_t *e;
	size_t i;

	if (!json_array_size(c->evidence))
		return;
	if (c->mode == M_MD)
		fprintf(c->f,
			"\n## Guest evidence\n\nPer VM configuration: what the guest was told, what it built, where its vCPUs ran on the host.\n");
	else {
		fputc('\n', c->f);
		rep_put_folded(
			c, "",
			"guest evidence (per VM configuration: what the guest was told, what it "
			"built, where its vCPUs ran on the host)");
	}
	json_array_foreach(c->evidence, i, e)
	{
		put_evidence_one(c, e);
		rep_pool_reset(c);
	}
	put_evidence_diffs(c);
}

/* The configurations of a row, for the list of undecided rows. */
static const char *row_who(struct ctx *c, const struct rrow *r)
{
	return rep_fmt(c, "%s vs %s", r->x.cfg->name, r->base.cfg->name);
}

/* Why a row is not decided, in words. */
static const char *undecided_why(struct ctx *c, const struct rrow *r)
{
	double t = rep_jnumv(c->opts, "threshold_pct");

	if (!strcmp(r->verdict, "missing") || !strcmp(r->verdict, "error"))
		return r->reason ? rep_show(c, r->reason, REP_TEXT_MAX) : "?";
	if (!strcmp(r->verdict, "few"))
		return rep_fmt(
			c,
			"%.0f boot%s against %.0f: not judged, the t test needs at least 2 a side",
			r->x.n, r->x.n == 1 ? "" : "s", r->base.n);
	return rep_fmt(
		c, "change %s, ci %s..%s reaches past %s%s at n=%.0f vs %.0f%s",
		rep_pctv(c, r->change), rep_pctv(c, r->ci_lo), rep_pctv(c, r->ci_hi),
		isnan(t) ? "the threshold" : rep_fmt(c, "+-%g%%", t), r->noisy ? " (noisy)" : "",
		r->x.n, r->base.n,
		!isnan(r->boots_over)
			? rep_fmt(c, "; more than %.0f boots a side would be needed at this spread",
				  r->boots_over)
		: isnan(r->boots_needed)
			? ""
			: rep_fmt(c, "; about %.0f boots a side would decide it at this spread",
				  r->boots_needed));
}

/* The verdicts counted: the answer, right after what was compared.  Rows
 * that could not be judged (few) come first: a gate never passes them
 * unsaid. */
void rep_put_summary(struct ctx *c)
{
	static const char *const k[] = { "rows",	 "worse", "better",  "same",
					 "inconclusive", "few",	  "missing", "error" };
	double s[VTB_ARRAY_SIZE(k)], cw = 0, cb = 0, aside = rep_jnumv(c->summary, "set_aside");
	double level = rep_jnumv(c->summary, "ci_level"), minn = rep_jnumv(c->opts, "min_n");
	const char *b = c->mode == M_MD ? "**" : "";

	for (size_t i = 0; i < VTB_ARRAY_SIZE(k); i++)
		s[i] = rep_jnumv(c->summary, k[i]);
	if (!json_is_object(c->summary) || isnan(s[0])) {
		/* no summary in the document: count the rows */
		memset(s, 0, sizeof(s));
		s[0] = (double)c->nrows;
		for (size_t i = 0; i < c->nrows; i++)
			for (size_t v = 0; v < VTB_ARRAY_SIZE(rep_verdicts); v++)
				if (!strcmp(c->rows[i].verdict, rep_verdicts[v]))
					s[v + 1]++;
	}
	for (size_t i = 0; i < c->nrows; i++) {
		cw += c->rows[i].confirmed && !strcmp(c->rows[i].verdict, "worse");
		cb += c->rows[i].confirmed && !strcmp(c->rows[i].verdict, "better");
	}
	if (!c->nrows)
		return; /* nothing compared: the advice says what would */
	if (isnan(minn) || minn < 2)
		minn = 2;
	if (s[5] > 0 && s[5] == s[0]) {
		rep_put_folded(
			c, "",
			rep_fmt(c,
				"%snothing could be judged: %.0f boots a side are needed; every one of the %.0f rows has fewer on a side (few)%s",
				b, minn, s[0], b));
		return;
	}
	rep_put_folded(
		c, "",
		rep_fmt(c,
			"%s%.0f rows: %s%.0f worse%s, %.0f better%s, %.0f same, %.0f inconclusive, %s%.0f missing, %.0f error%s%s%s",
			b, s[0],
			s[5] > 0 ? rep_fmt(c, "%.0f few (not judged: under %.0f boots a side), ",
					   s[5], minn)
				 : "",
			s[1], cw > 0 ? rep_fmt(c, " (%.0f confirmed)", cw) : "", s[2],
			cb > 0 ? rep_fmt(c, " (%.0f confirmed)", cb) : "", s[3], s[4],
			s[5] > 0 ? "" : "0 few, ", s[6], s[7], b,
			isnan(level) || !(rep_jnumv(c->summary, "tested") > 0)
				? ""
				: rep_fmt(c,
					  "; intervals at %.4g%% (%.0f of %.0f rows tested significant)",
					  level * 100, rep_jnumv(c->summary, "significant"),
					  rep_jnumv(c->summary, "tested")),
			aside > 0
				? rep_fmt(c,
					  "; %.0f row%s with a boot set aside as an outlier (listed below; --no-robust shows the plain statistic)",
					  aside, aside == 1 ? "" : "s")
				: ""));
}

/* A side's boots set aside, in one phrase. */
const char *rep_aside_s(struct ctx *c, const struct rside *sd)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const json_t *e;
	const char *r;
	size_t i;

	if (!sd->aside)
		return NULL;
	json_array_foreach(sd->aside, i, e)
	{
		const char *why = rep_jstr(e, "why");

		if (vtb_strbuf_addf(&sb, "%sboot rep %.0f (id %.0f) of %s: %s", i ? "; " : "",
				    rep_jnumv(e, "rep"), rep_jnumv(e, "boot"), sd->cfg->name,
				    why ? rep_show(c, why, REP_TEXT_MAX) : "?") < 0)
			c->oom = true;
	}
	r = rep_fmt(c, "%s", vtb_strbuf_str(&sb));
	vtb_strbuf_release(&sb);
	return r;
}

/* The boots set aside, row by row: never silent. */
void rep_put_set_aside(struct ctx *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nrows; i++) {
		const struct rrow *r = &c->rows[i];
		const char *xb = rep_aside_s(c, &r->x), *bb = rep_aside_s(c, &r->base);

		if (!xb && !bb)
			continue;
		if (!n++) {
			fputc('\n', c->f);
			rep_put_folded(
				c, "",
				c->mode == M_MD
					? "Boots set aside as outliers (beyond the threshold and 8 robust deviations from the median of their side; the row's statistic is of the others):\n"
					: "boots set aside as outliers (beyond the threshold and 8 robust deviations from the median of their side; the row's statistic is of the others):");
		}
		rep_put_folded(c, c->mode == M_MD ? "- " : "  ",
			       rep_fmt(c, "%s %s, %s: %s%s%s", rep_show(c, r->cell, REP_NAME_MAX),
				       rep_show(c, r->metric, REP_NAME_MAX), row_who(c, r),
				       xb ? xb : "", xb && bb ? "; " : "", bb ? bb : ""));
		rep_pool_reset(c);
	}
}

/* The rows without a decision, with why: after the tables. */
void rep_put_undecided(struct ctx *c)
{
	size_t undecided = 0;

	for (size_t i = 0; i < c->nrows; i++) {
		const struct rrow *r = &c->rows[i];

		if (strcmp(r->verdict, "inconclusive") && strcmp(r->verdict, "few") &&
		    strcmp(r->verdict, "missing") && strcmp(r->verdict, "error"))
			continue;
		if (!undecided++)
			fprintf(c->f, "%s\n",
				c->mode == M_MD ? "\nRows not decided, and why:\n"
						: "\nrows not decided, and why:");
		rep_put_folded(c, c->mode == M_MD ? "- " : "  ",
			       rep_fmt(c, "%s %s%s, %s: %s: %s", rep_show(c, r->cell, REP_NAME_MAX),
				       rep_show(c, r->metric, REP_NAME_MAX),
				       r->unit[0] ? rep_fmt(c, " (%s)",
							    rep_show(c, r->unit, REP_NAME_MAX))
						  : "",
				       row_who(c, r), r->verdict, undecided_why(c, r)));
		rep_pool_reset(c);
	}
}

/* "0-4", "1,3,7-9": a failure's reps (sorted, as the store lists them). */
static const char *reps_s(struct ctx *c, const json_t *reps)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t n = json_array_size(reps), i, j;
	const char *r;

	for (i = 0; i < n; i = j + 1) {
		json_int_t a = json_integer_value(json_array_get(reps, i));

		for (j = i; j + 1 < n && json_integer_value(json_array_get(reps, j + 1)) ==
						 json_integer_value(json_array_get(reps, j)) + 1;
		     j++)
			;
		if (vtb_strbuf_addf(&sb, i ? ",%" JSON_INTEGER_FORMAT : "%" JSON_INTEGER_FORMAT,
				    a) < 0 ||
		    (j > i && vtb_strbuf_addf(&sb, "-%" JSON_INTEGER_FORMAT,
					      json_integer_value(json_array_get(reps, j))) < 0))
			c->oom = true;
	}
	r = rep_fmt(c, "%s", sb.len ? vtb_strbuf_str(&sb) : "?");
	vtb_strbuf_release(&sb);
	return r;
}

/* At most this many failures are listed (the JSON has them all). */
#define MAX_FAILURES 20

/*
 * The campaign's boots by status and what failed: before any table, as
 * a reader must know what the verdicts leave out.  A failed boot takes
 * all its cells with it (they are missing rows, or no rows at all when
 * every boot of a configuration failed); a failed cell in an ok boot is
 * listed with its own reason.
 */
static void put_boots_of(struct ctx *c, const char *title, const json_t *camp)
{
	static const char *const st[] = { "ok", "failed", "timeout", "unexpected-topology" };
	const json_t *b = json_object_get(camp, "boots"), *fl = json_object_get(camp, "failures");
	const json_t *o;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	double total = rep_jnumv(b, "total");
	size_t i;

	if (!json_is_object(b))
		return;
	for (i = 0; i < VTB_ARRAY_SIZE(st); i++) {
		double v = rep_jnumv(b, st[i]);

		if (!i || v > 0)
			c->oom |= vtb_strbuf_addf(&sb, "%s%.0f %s", i ? ", " : "", isnan(v) ? 0 : v,
						  st[i]) < 0;
	}
	put_kv(c, title, rep_fmt(c, "%.0f: %s", isnan(total) ? 0 : total, vtb_strbuf_str(&sb)));
	vtb_strbuf_release(&sb);
	json_array_foreach(fl, i, o)
	{
		const struct rcfg *g = rep_cfg_of(c, rep_jstr(o, "config"), rep_jstr(camp, "uuid"));
		const char *cell = rep_jstr(o, "cell"), *status = rep_jstr(o, "status");
		double n = rep_jnumv(o, "boots");
		const char *what, *reason = rep_jstr(o, "reason");

		if (i == MAX_FAILURES) {
			put_kv(c, "",
			       rep_fmt(c, "... and %zu more (--format json lists them all)",
				       json_array_size(fl) - i));
			break;
		}
		if (cell)
			what = rep_fmt(c, "%s %s: %s in %.0f boot%s (rep%s %s)",
				       g ? g->name
					 : rep_show(c, rep_jstr(o, "label"), REP_TEXT_MAX),
				       rep_show(c, cell, REP_NAME_MAX),
				       rep_show(c, status, REP_NAME_MAX), n, n == 1 ? "" : "s",
				       n == 1 ? "" : "s", reps_s(c, json_object_get(o, "reps")));
		else
			what = rep_fmt(c, "%s: %.0f boot%s %s (rep%s %s)",
				       g ? g->name
					 : rep_show(c, rep_jstr(o, "label"), REP_TEXT_MAX),
				       n, n == 1 ? "" : "s", rep_show(c, status, REP_NAME_MAX),
				       n == 1 ? "" : "s", reps_s(c, json_object_get(o, "reps")));
		put_kv(c, i ? "" : "failures",
		       rep_fmt(c, "%s%s%s", what, reason ? ": " : "",
			       reason ? rep_show(c, reason, REP_TEXT_MAX) : ""));
	}
}

void rep_put_boots(struct ctx *c)
{
	bool two = json_is_object(c->against);

	put_boots_of(c, "boots", c->camp);
	if (two)
		put_boots_of(c, "against boots", c->against);
}

/* Nothing compared: what would compare (compare.c's advice). */
void rep_put_advice(struct ctx *c)
{
	const char *a = rep_jstr(c->doc, "advice");

	if (c->nrows)
		return;
	if (c->mode == M_MD)
		fprintf(c->f, "\n**Nothing to compare.** %s\n",
			a ? rep_show(c, a, REP_TEXT_MAX) : "");
	else
		rep_put_folded(c, "nothing to compare: ",
			       a ? rep_show(c, a, REP_TEXT_MAX) : "no rows");
}

/* A row's value in the unit of its metric line (the line's first row's):
 * a value in another unit (an error row: units differ) is not shown. */
double rep_x_mean(const struct rrow *r, const struct rrow *line)
{
	return line && strcmp(r->unit, line->unit) ? NAN : r->x.mean;
}
