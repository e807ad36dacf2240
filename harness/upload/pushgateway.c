/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus Pushgateway sink (pushgateway://): the campaign's
 * aggregates as a snapshot in the Prometheus text format, PUT to
 * /metrics/job/JOB/instance/HOST, replacing the group's last snapshot.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "upload-priv.h"

/* A label value: backslash, quote and newline escaped; the format carries
 * every other character. */
static int prom_label(struct vtb_strbuf *sb, const char *k, const char *v, bool first)
{
	int r = vtb_strbuf_addf(sb, "%s%s=\"", first ? "" : ",", k);

	for (const char *p = v; *p && !r; p++) {
		if (*p == '\\' || *p == '"')
			r = vtb_strbuf_addf(sb, "\\%c", *p);
		else if (*p == '\n')
			r = vtb_strbuf_addstr(sb, "\\n");
		else
			r = vtb_strbuf_add(sb, p, 1);
	}
	return r ? r : vtb_strbuf_addstr(sb, "\"");
}

static int prom_number(struct vtb_strbuf *sb, double v)
{
	char num[40];

	if (!vtb_lp_float(v, num, sizeof(num)))
		snprintf(num, sizeof(num), "%s", isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf");
	return vtb_strbuf_addf(sb, " %s\n", num);
}

/*
 * Prometheus names (https://prometheus.io/docs/practices/naming/): one
 * family per quantity, in base units named by the suffix.  The family of
 * workload W's metric M in unit U is vtbench_W_M_SUFFIX: M lower-cased,
 * without a leading "W_" and without a trailing unit ("c2c_L3_ns" of c2c
 * -> "l3"); times in seconds, MB/s (10^6 bytes) in bytes per second, rps
 * in requests per second, counts without a suffix.  A value of U times
 * scale[0] over scale[1] is in the base unit.  Malloc'ed; NULL on ENOMEM.
 */
static char *prom_family(const char *workload, const char *metric, const char *unit,
			 const char *extra, double scale[2])
{
	/* a value in the unit is multiplied by mul and divided by div: a
	 * division by an exact power of ten keeps 69.8us 6.98e-05 s */
	static const struct {
		const char *unit, *suffix;
		double mul, div;
	} units[] = {
		{ "ns", "seconds", 1, 1e9 },
		{ "us", "seconds", 1, 1e6 },
		{ "ms", "seconds", 1, 1e3 },
		{ "s", "seconds", 1, 1 },
		{ "MB/s", "bytes_per_second", 1e6, 1 },
		{ "rps", "requests_per_second", 1, 1 },
		{ "Hz", "hertz", 1, 1 },
		{ "count", "", 1, 1 },
		{ "", "", 1, 1 },
	};
	static const char *const time_words[] = { "ns", "us", "ms", "s", "seconds" };
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	char *m = NULL, *u = NULL, *p;
	const char *suffix = NULL;
	size_t n, wl = strlen(workload);
	int r;

	scale[0] = scale[1] = 1;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(units); i++)
		if (!strcmp(unit ? unit : "", units[i].unit)) {
			suffix = units[i].suffix;
			scale[0] = units[i].mul;
			scale[1] = units[i].div;
		}
	if (!suffix) {
		/* another unit: spelled out ("foo/s" -> foo_per_second) */
		const char *sl = unit ? strstr(unit, "/s") : NULL;

		u = sl && !sl[2] ? vtb_asprintf("%.*s_per_second", (int)(sl - unit), unit)
				 : vtb_strdup(unit);
		if (!u)
			return NULL;
		for (p = u; *p; p++)
			*p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
		suffix = u;
	}
	m = vtb_strdup(!strncmp(metric, workload, wl) && metric[wl] == '_' ? metric + wl + 1
									   : metric);
	if (!m) {
		free(u);
		return NULL;
	}
	for (p = m; *p; p++)
		*p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
	n = strlen(m);
	if (!strcmp(suffix, "seconds"))
		for (size_t i = 0; i < VTB_ARRAY_SIZE(time_words); i++) {
			size_t k = strlen(time_words[i]);

			if (n == k && !strcmp(m, time_words[i]))
				n = 0;
			else if (n > k && m[n - k - 1] == '_' && !strcmp(m + n - k, time_words[i]))
				n -= k + 1;
		}
	if (!strcmp(suffix, "requests_per_second") && !strcmp(m, "rps"))
		n = 0;
	r = vtb_strbuf_addstr(&sb, "vtbench_");
	for (const char *w = workload; *w && !r; w++)
		r = vtb_strbuf_addf(&sb, "%c",
				    isalnum((unsigned char)*w) ? tolower((unsigned char)*w) : '_');
	if (!r && n)
		r = vtb_strbuf_addf(&sb, "_%.*s", (int)n, m);
	if (!r && extra)
		r = vtb_strbuf_addf(&sb, "_%s", extra);
	/* a count of boots has its own unit */
	if (!r && *suffix && !(extra && !strcmp(extra, "boots")))
		r = vtb_strbuf_addf(&sb, "_%s", suffix);
	free(m);
	free(u);
	if (r) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

/* The labels of a series: the configuration and the cell, and the tags
 * that apply, except host (the Pushgateway's instance says it), metric
 * and unit (the family's name says them) and workload (the cell). */
static int prom_labels(struct sink *sk, const struct up_aggr *a, struct vtb_strbuf *body)
{
	struct tags t;
	int r;

	if (up_tags_of(sk, a->first, a->sample, &t) < 0)
		return -1;
	r = vtb_strbuf_addstr(body, "{");
	for (size_t k = 0; k < N_TAGS && !r; k++) {
		if (k == T_CONFIG) /* labels sorted, as the tags */
			r = prom_label(body, "cell", a->sample->cell_name, !t.v[T_ACCEL]);
		if (!r && t.v[k] && k != T_HOST && k != T_METRIC && k != T_UNIT && k != T_WORKLOAD)
			r = prom_label(body, t.k[k], t.v[k], k == T_ACCEL);
	}
	up_tags_release(&t);
	if (!r)
		r = vtb_strbuf_addstr(body, "}");
	return r ? vtb_error("out of memory") : 0;
}

/* The quantities of a snapshot, a family each per cell and metric. */
enum { Q_MEAN, Q_STDDEV, Q_BOOTS, N_Q };

/* The families of a snapshot: per quantity q and aggregate i its name
 * (fam[q * n + i]); per aggregate the scale to the base unit, and
 * whether it is left out (skip). */
struct prom_names {
	char **fam;
	double (*scale)[2];
	bool *skip;
	size_t n;
};

static void prom_names_release(struct prom_names *pn)
{
	if (pn->fam)
		for (size_t i = 0; i < N_Q * pn->n; i++)
			free(pn->fam[i]);
	free(pn->fam);
	free(pn->scale);
	free(pn->skip);
}

/* Names the families of every aggregate.  Two metrics of one cell that
 * name one family ("x_ns", "x_us") would be one series twice: the first
 * is kept.  -1: out of memory. */
static int prom_names(struct sink *sk, struct prom_names *pn)
{
	static const char *const extra[N_Q] = { NULL, "stddev", "boots" };
	const struct up_aggr *ag = sk->aggr;
	size_t n = sk->n_aggr;

	pn->n = n;
	pn->fam = calloc(N_Q * n + 1, sizeof(*pn->fam));
	pn->scale = calloc(n + 1, sizeof(*pn->scale));
	pn->skip = calloc(n + 1, sizeof(*pn->skip));
	if (!pn->fam || !pn->scale || !pn->skip)
		return -1;
	for (size_t q = 0; q < N_Q; q++)
		for (size_t i = 0; i < n; i++) {
			const struct up_sample *sm = ag[i].sample;

			pn->fam[q * n + i] = prom_family(sm->workload, sm->metric, sm->unit,
							 extra[q], pn->scale[i]);
			if (!pn->fam[q * n + i])
				return -1;
		}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i && !pn->skip[i]; j++)
			if (!pn->skip[j] && !strcmp(pn->fam[i], pn->fam[j]) &&
			    !strcmp(ag[i].first->config_key, ag[j].first->config_key) &&
			    !strcmp(ag[i].sample->cell_key, ag[j].sample->cell_key)) {
				pn->skip[i] = true;
				up_note(sk,
					"metric '%s' of cell '%s' is left out: '%s' already names %s",
					ag[i].sample->metric, ag[i].sample->cell_name,
					ag[j].sample->metric, pn->fam[i]);
			}
	return 0;
}

/* The family of quantity @q named first by aggregate @i: its HELP and
 * TYPE, then every series of it, together, as the text format wants. */
static int prom_write_family(struct sink *sk, const struct prom_names *pn, int q, size_t i,
			     struct vtb_strbuf *body, long *points)
{
	char *const *names = pn->fam + q * pn->n;
	const struct up_sample *sm = sk->aggr[i].sample;
	int r;

	if (q == Q_MEAN)
		r = vtb_strbuf_addf(
			body,
			"# HELP %s %s %s: the mean of the campaign's boots as vtbench compare computes it (harmonic for rates, geometric for latencies), from %s\n",
			names[i], sm->workload, sm->metric, *sm->unit ? sm->unit : "a count");
	else if (q == Q_STDDEV)
		r = vtb_strbuf_addf(
			body,
			"# HELP %s %s %s: the sample standard deviation over the campaign's boots\n",
			names[i], sm->workload, sm->metric);
	else
		r = vtb_strbuf_addf(body, "# HELP %s %s %s: the campaign's boots with a value\n",
				    names[i], sm->workload, sm->metric);
	if (!r)
		r = vtb_strbuf_addf(body, "# TYPE %s gauge\n", names[i]);
	for (size_t j = i; j < pn->n && !r; j++) {
		const struct up_aggr *a = &sk->aggr[j];

		if (pn->skip[j] || strcmp(names[j], names[i]))
			continue;
		/* one boot has no stddev (undefined, not 0): no sample, as influx */
		if (q == Q_STDDEV && isnan(a->st.stddev))
			continue;
		r = vtb_strbuf_addstr(body, names[j]);
		if (!r)
			r = prom_labels(sk, a, body);
		if (!r)
			r = prom_number(body,
					q == Q_MEAN ? a->st.mean * pn->scale[j][0] / pn->scale[j][1]
					: q == Q_STDDEV
						? a->st.stddev * pn->scale[j][0] / pn->scale[j][1]
						: (double)a->st.n);
		*points += !r;
	}
	return r;
}

/* vtbench_campaign_info{campaign} and the campaign's start time. */
static int prom_campaign(struct sink *sk, struct vtb_strbuf *body)
{
	int r = vtb_strbuf_addstr(body,
				  "# HELP vtbench_campaign_info the campaign this snapshot is of\n"
				  "# TYPE vtbench_campaign_info gauge\nvtbench_campaign_info{");

	if (!r)
		r = prom_label(body, "campaign", sk->campaign_uuid, true);
	if (!r)
		r = vtb_strbuf_addstr(body, "} 1\n");
	if (!r && sk->started_ns)
		r = vtb_strbuf_addf(
			body,
			"# HELP vtbench_campaign_start_time_seconds when the campaign started\n"
			"# TYPE vtbench_campaign_start_time_seconds gauge\n"
			"vtbench_campaign_start_time_seconds %.3f\n",
			(double)sk->started_ns / 1e9);
	return r;
}

/*
 * The latest campaign as a snapshot.  Per configuration, cell and metric,
 * in families named as prom_family() says: the mean over the campaign's
 * boots as vtbench compare computes it (harmonic for rates, geometric for
 * latencies), its sample standard deviation (FAMILY_stddev_UNIT) and the
 * boots with a value (FAMILY_boots); then the campaign.  The Pushgateway
 * keeps only the last value per series and a PUT replaces the whole
 * group: each upload replaces the snapshot.
 */
static int prom_snapshot(struct sink *sk, struct vtb_strbuf *body, long *points)
{
	struct prom_names pn = { 0 };
	int r;

	*points = 0;
	r = prom_names(sk, &pn);
	for (int q = 0; q < N_Q && !r; q++) {
		char *const *names = pn.fam + q * pn.n;

		for (size_t i = 0; i < pn.n && !r; i++) {
			bool seen = false;

			for (size_t j = 0; j < i && !seen; j++)
				seen = !pn.skip[j] && !strcmp(names[j], names[i]);
			if (!seen && !pn.skip[i])
				r = prom_write_family(sk, &pn, q, i, body, points);
		}
	}
	if (!r)
		r = prom_campaign(sk, body);
	prom_names_release(&pn);
	return r ? vtb_error("out of memory") : 0;
}

/* A grouping label's value in a Pushgateway path: as it is when plain,
 * else base64url ("LABEL@base64/VALUE"), which carries anything. */
static char *prom_path_label(const char *label, const char *v)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)v;
	size_t n = strlen(v), i;
	int r;

	if (n &&
	    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n)
		return vtb_asprintf("%s/%s", label, v);
	r = vtb_strbuf_addf(&sb, "%s@base64/", label);
	for (i = 0; i < n && !r; i += 3) {
		unsigned x = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		char q[5] = { b64[x >> 18 & 63], b64[x >> 12 & 63],
			      i + 1 < n ? b64[x >> 6 & 63] : '=', i + 2 < n ? b64[x & 63] : '=',
			      0 };

		r = vtb_strbuf_addstr(&sb, q);
	}
	if (!n && !r)
		r = vtb_strbuf_addstr(&sb, "=");
	if (r) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

/* pushgateway://HOST:PORT/JOB: PUT /metrics/job/JOB/instance/HOST */
static int pushgateway_endpoint(struct sink *sk)
{
	char *job, *inst;

	if (!*sk->path || strchr(sk->path, '/'))
		return vtb_error("'%s': expected pushgateway://HOST:PORT/JOB", sk->id);
	/* the instance is the campaign's host, known once it is loaded */
	if (!sk->hostname)
		return 0;
	job = prom_path_label("job", sk->path);
	inst = prom_path_label("instance", sk->hostname);
	free(sk->endpoint);
	sk->endpoint = job && inst ? vtb_asprintf("%s/metrics/%s/%s", sk->base, job, inst) : NULL;
	free(job);
	free(inst);
	return sk->endpoint ? 0 : vtb_error("out of memory");
}

const struct vtb_sink_ops up_pushgateway_ops = {
	.name = "pushgateway",
	.scheme = "pushgateway",
	.url = "pushgateway[+https]://HOST:PORT/JOB",
	.summary =
		"Prometheus Pushgateway: the campaign as a snapshot (it keeps only last values), PUT to /metrics/job/JOB/instance/HOST",
	.auth_scheme = "Bearer",
	.content_type = "text/plain; version=0.0.4",
	.method = "PUT",
	.item = "snapshot",
	.resend = "a PUT replaces the group's snapshot: the same snapshot again changes nothing",
	.default_port = 9091,
	.endpoint = pushgateway_endpoint,
	.aggregates = prom_snapshot,
};
