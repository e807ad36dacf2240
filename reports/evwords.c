/* SPDX-License-Identifier: MIT */
/* The scheduler evidence's differences said in words (evwords.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/vtbutil.h"
#include "evwords.h"

static double jnum(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *vtb_ev_num(double v, const char *suffix, char buf[VTB_EV_NUM_MAX])
{
	if (!isfinite(v))
		return "-";
	if (strlen(suffix) > 4)
		suffix = "";
	if (fabs(v) >= 1e9)
		snprintf(buf, VTB_EV_NUM_MAX, "%.3g%s", v, suffix);
	else if (fabs(v) >= 10 || v == 0)
		snprintf(buf, VTB_EV_NUM_MAX, "%.0f%s", v, suffix);
	else if (fabs(v) >= 1)
		snprintf(buf, VTB_EV_NUM_MAX, "%.1f%s", v, suffix);
	else
		snprintf(buf, VTB_EV_NUM_MAX, "%.2f%s", v, suffix);
	return buf;
}

char *vtb_ev_level(const char *key, size_t n)
{
	char *s = vtb_asprintf("%.*s", (int)n, key);

	for (size_t i = 0; s && s[i]; i++)
		if (s[i] >= 'a' && s[i] <= 'z')
			s[i] = (char)(s[i] - 'a' + 'A');
	return s;
}

/* "at MC" and the like for a level metric (@m ends in @suffix): -1 on ENOMEM */
static int add_level(struct vtb_strbuf *sb, const char *m, size_t suffix, const char *fmt,
		     const char *a, const char *b, const char *c, const char *d)
{
	char *lv = vtb_ev_level(m, strlen(m) - suffix);
	int r;

	if (!lv)
		return -1;
	r = vtb_strbuf_addf(sb, fmt, lv, a, b, c, d);
	free(lv);
	return r;
}

/* One item; -1 on ENOMEM. */
static int one(struct vtb_strbuf *sb, const json_t *it, const char *xn, const char *bn)
{
	const char *m = json_string_value(json_object_get(it, "metric"));
	double x = jnum(it, "x"), b = jnum(it, "base");
	char xs[VTB_EV_NUM_MAX], bs[VTB_EV_NUM_MAX];
	size_t len;

	if (!m || !isfinite(x) || !isfinite(b))
		return 0;
	vtb_ev_num(x, "", xs);
	vtb_ev_num(b, "", bs);
	len = strlen(m);
	if (len > 9 && !strcmp(m + len - 9, "_lb_per_s")) {
		const char *hi = x >= b ? xn : bn, *lo = x >= b ? bn : xn;
		double h = x >= b ? x : b, l = x >= b ? b : x;
		char *lv = vtb_ev_level(m, len - 9);
		int r;

		if (!lv)
			return -1;
		if (l <= 0)
			r = vtb_strbuf_addf(sb, "%s balanced at %s %s times a second, %s never", hi,
					    lv, x >= b ? xs : bs, lo);
		else
			r = vtb_strbuf_addf(sb,
					    "%s balanced at %s %.1fx as often as %s (%s/s, %s/s)",
					    hi, lv, h / l, lo, x >= b ? xs : bs, x >= b ? bs : xs);
		free(lv);
		return r;
	}
	if (!strcmp(m, "lb_per_s")) {
		const char *hi = x >= b ? xn : bn, *lo = x >= b ? bn : xn;
		double h = x >= b ? x : b, l = x >= b ? b : x;

		if (l <= 0)
			return vtb_strbuf_addf(sb, "%s load-balanced %s times a second, %s never",
					       hi, x >= b ? xs : bs, lo);
		return vtb_strbuf_addf(sb, "%s load-balanced %.1fx as often as %s (%s/s, %s/s)", hi,
				       h / l, lo, x >= b ? xs : bs, x >= b ? bs : xs);
	}
	if (len > 12 && !strcmp(m + len - 12, "_moved_per_s"))
		return add_level(sb, m, 12,
				 "balancing at %s moved %s tasks a second in %s, %s in %s", xs, xn,
				 bs, bn);
	if (len > 14 && !strcmp(m + len - 14, "_lb_failed_pct"))
		return add_level(sb, m, 14,
				 "at %s %s%% of %s's balancing attempts failed, %s%% of %s's", xs,
				 xn, bs, bn);
	if (!strcmp(m, "moved_per_s"))
		return vtb_strbuf_addf(sb, "load balancing moved %s tasks a second in %s, %s in %s",
				       xs, xn, bs, bn);
	if (!strcmp(m, "wake_remote_pct"))
		return vtb_strbuf_addf(sb, "%s%% of %s's wake-ups were remote, %s%% of %s's", xs,
				       xn, bs, bn);
	if (!strcmp(m, "wake_affine_pct"))
		return vtb_strbuf_addf(
			sb, "%s moved %s%% of its wake-ups to the waker (affine), %s %s%%", xn, xs,
			bn, bs);
	if (!strcmp(m, "lb_failed_pct"))
		return vtb_strbuf_addf(sb, "%s%% of %s's balancing attempts failed, %s%% of %s's",
				       xs, xn, bs, bn);
	if (!strcmp(m, "guest_runq_wait"))
		return vtb_strbuf_addf(
			sb, "on average %s tasks waited on each of %s's run queues, %s on %s's", xs,
			xn, bs, bn);
	if (!strcmp(m, "vcpu_busy_min_pct"))
		return vtb_strbuf_addf(sb, "%s's least busy vCPU ran %s%% of the time, %s's %s%%",
				       xn, xs, bn, bs);
	if (!strcmp(m, "vcpu_busy_pct"))
		return vtb_strbuf_addf(sb, "%s's vCPUs ran %s%% of the time, %s's %s%%", xn, xs, bn,
				       bs);
	if (!strcmp(m, "slices_per_s"))
		return vtb_strbuf_addf(sb, "%s ran %s timeslices a second, %s %s", xn, xs, bn, bs);
	if (!strcmp(m, "steal_pct"))
		return vtb_strbuf_addf(sb, "%s's vCPUs saw %s%% steal, %s's %s%%", xn, xs, bn, bs);
	if (!strcmp(m, "vcpu_run_delay_pct"))
		return vtb_strbuf_addf(sb,
				       "%s's vCPUs waited %s%% of the time on the host, %s's %s%%",
				       xn, xs, bn, bs);
	if (!strcmp(m, "vcpu_preempt_per_s"))
		return vtb_strbuf_addf(
			sb,
			"%s's vCPU threads were preempted %s times a second on the host, %s's %s",
			xn, xs, bn, bs);
	if (!strcmp(m, "vcpu_migrations_per_s"))
		return vtb_strbuf_addf(
			sb, "%s's vCPU threads moved between host CPUs %s times a second, %s's %s",
			xn, xs, bn, bs);
	{
		const char *u = json_string_value(json_object_get(it, "unit"));

		return vtb_strbuf_addf(sb, "%s: %s %s%s%s, %s %s%s%s", m, xn, xs, u ? " " : "",
				       u ? u : "", bn, bs, u ? " " : "", u ? u : "");
	}
}

char *vtb_ev_words(const json_t *items, const char *xname, const char *bname)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const json_t *it;
	size_t i;

	if (vtb_strbuf_addstr(&sb, ""))
		return NULL;
	json_array_foreach(items, i, it)
	{
		size_t before = sb.len;

		if ((sb.len && vtb_strbuf_addstr(&sb, "; ")) || one(&sb, it, xname, bname)) {
			vtb_strbuf_release(&sb);
			return NULL;
		}
		/* an item without figures says nothing: nor does its "; " */
		if (sb.len == before + (before ? 2 : 0)) {
			sb.len = before;
			sb.buf[before] = '\0';
		}
	}
	return sb.buf;
}
