/* SPDX-License-Identifier: MIT */
/* The scheduler evidence's differences said in words (evwords.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/vtbutil.h"
#include "evwords.h"

static double jnum(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "12", "1.2", "0.05": enough digits to tell small values apart; "3.2e+15"
 * past a billion (a buffer of 32 holds every form whole) */
static void fmt(char *buf, size_t n, double v)
{
	if (fabs(v) >= 1e9)
		snprintf(buf, n, "%.3g", v);
	else if (fabs(v) >= 10 || v == 0)
		snprintf(buf, n, "%.0f", v);
	else if (fabs(v) >= 1)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.2f", v);
}

static const char *level_name(const char *k, char *buf, size_t n)
{
	size_t i;

	for (i = 0; k[i] && i + 1 < n; i++)
		buf[i] = (char)(k[i] >= 'a' && k[i] <= 'z' ? k[i] - 'a' + 'A' : k[i]);
	buf[i] = '\0';
	return buf;
}

/* One item; -1 on ENOMEM. */
static int one(struct vtb_strbuf *sb, const json_t *it, const char *xn, const char *bn)
{
	const char *m = json_string_value(json_object_get(it, "metric"));
	double x = jnum(it, "x"), b = jnum(it, "base");
	char xs[32], bs[32], lv[24];
	size_t len;

	if (!m || !isfinite(x) || !isfinite(b))
		return 0;
	fmt(xs, sizeof(xs), x);
	fmt(bs, sizeof(bs), b);
	len = strlen(m);
	if (len > 9 && !strcmp(m + len - 9, "_lb_per_s")) {
		char key[24];
		const char *hi = x >= b ? xn : bn, *lo = x >= b ? bn : xn;
		double h = x >= b ? x : b, l = x >= b ? b : x;

		snprintf(key, sizeof(key), "%.*s", (int)(len - 9 < 20 ? len - 9 : 20), m);
		level_name(key, lv, sizeof(lv));
		if (l <= 0)
			return vtb_strbuf_addf(sb, "%s balanced at %s %s times a second, %s never", hi,
					       lv, x >= b ? xs : bs, lo);
		return vtb_strbuf_addf(sb, "%s balanced at %s %.1fx as often as %s (%s/s, %s/s)",
				       hi, lv, h / l, lo, x >= b ? xs : bs, x >= b ? bs : xs);
	}
	if (!strcmp(m, "lb_per_s")) {
		const char *hi = x >= b ? xn : bn, *lo = x >= b ? bn : xn;
		double h = x >= b ? x : b, l = x >= b ? b : x;

		if (l <= 0)
			return vtb_strbuf_addf(sb, "%s load-balanced %s times a second, %s never", hi,
					       x >= b ? xs : bs, lo);
		return vtb_strbuf_addf(sb, "%s load-balanced %.1fx as often as %s (%s/s, %s/s)",
				       hi, h / l, lo, x >= b ? xs : bs, x >= b ? bs : xs);
	}
	if (len > 12 && !strcmp(m + len - 12, "_moved_per_s")) {
		char key[24];

		snprintf(key, sizeof(key), "%.*s", (int)(len - 12 < 20 ? len - 12 : 20), m);
		return vtb_strbuf_addf(sb, "balancing at %s moved %s tasks a second in %s, %s in %s",
				       level_name(key, lv, sizeof(lv)), xs, xn, bs, bn);
	}
	if (len > 14 && !strcmp(m + len - 14, "_lb_failed_pct")) {
		char key[24];

		snprintf(key, sizeof(key), "%.*s", (int)(len - 14 < 20 ? len - 14 : 20), m);
		return vtb_strbuf_addf(sb, "at %s %s%% of %s's balancing attempts failed, %s%% of %s's",
				       level_name(key, lv, sizeof(lv)), xs, xn, bs, bn);
	}
	if (!strcmp(m, "moved_per_s"))
		return vtb_strbuf_addf(sb, "load balancing moved %s tasks a second in %s, %s in %s",
				       xs, xn, bs, bn);
	if (!strcmp(m, "wake_remote_pct"))
		return vtb_strbuf_addf(sb, "%s%% of %s's wake-ups were remote, %s%% of %s's", xs, xn,
				       bs, bn);
	if (!strcmp(m, "wake_affine_pct"))
		return vtb_strbuf_addf(sb, "%s moved %s%% of its wake-ups to the waker (affine), %s %s%%",
				       xn, xs, bn, bs);
	if (!strcmp(m, "lb_failed_pct"))
		return vtb_strbuf_addf(sb, "%s%% of %s's balancing attempts failed, %s%% of %s's", xs,
				       xn, bs, bn);
	if (!strcmp(m, "guest_runq_wait"))
		return vtb_strbuf_addf(
			sb, "on average %s tasks waited on each of %s's run queues, %s on %s's", xs, xn,
			bs, bn);
	if (!strcmp(m, "vcpu_busy_min_pct"))
		return vtb_strbuf_addf(sb, "%s's least busy vCPU ran %s%% of the time, %s's %s%%", xn,
				       xs, bn, bs);
	if (!strcmp(m, "vcpu_busy_pct"))
		return vtb_strbuf_addf(sb, "%s's vCPUs ran %s%% of the time, %s's %s%%", xn, xs, bn,
				       bs);
	if (!strcmp(m, "slices_per_s"))
		return vtb_strbuf_addf(sb, "%s ran %s timeslices a second, %s %s", xn, xs, bn, bs);
	if (!strcmp(m, "steal_pct"))
		return vtb_strbuf_addf(sb, "%s's vCPUs saw %s%% steal, %s's %s%%", xn, xs, bn, bs);
	if (!strcmp(m, "vcpu_run_delay_pct"))
		return vtb_strbuf_addf(sb, "%s's vCPUs waited %s%% of the time on the host, %s's %s%%",
				       xn, xs, bn, bs);
	if (!strcmp(m, "vcpu_preempt_per_s"))
		return vtb_strbuf_addf(sb,
				       "%s's vCPU threads were preempted %s times a second on the host, %s's %s",
				       xn, xs, bn, bs);
	if (!strcmp(m, "vcpu_migrations_per_s"))
		return vtb_strbuf_addf(
			sb, "%s's vCPU threads moved between host CPUs %s times a second, %s's %s", xn,
			xs, bn, bs);
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
