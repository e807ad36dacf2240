/* SPDX-License-Identifier: MIT */
/*
 * vtbench upload: the campaign, read from the store, sent to a sink chosen
 * by the URL's scheme.  The only libcurl user.
 *
 * Exactly once is the store's job: each boot sent to a sink is recorded
 * (upload table), and a batch is recorded only after the server answered
 * 2xx.  A batch holds whole boots, so a boot is sent whole or not at all;
 * batches are recorded one by one, so an interrupted upload keeps what got
 * through.  What HTTP cannot promise stays: a server that wrote a batch
 * and died before answering gets it again on the next upload (InfluxDB
 * overwrites an identical point, so the data stays right).
 *
 * Retries: connection errors, timeouts, 429 (its Retry-After honoured)
 * and 5xx are retried with exponential backoff and full jitter, bounded
 * in attempts and in time per batch; other answers fail at once with the
 * server's message.  Credentials come from the environment or a private
 * file, go only into request headers and are never printed or stored.
 */
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "../compare/compare.h"
#include "../compare/stats.h"
#include "upload.h"

/* ---- the data: a campaign's boots and samples ---- */

struct up_sample {
	char *cell_key, *cell_name, *workload, *metric, *unit;
	int better;
	double value;
};

struct up_boot {
	int64_t id;
	char *uuid, *kind, *status, *accelerator, *guest_kernel;
	char *config_key, *config_label, *params;
	int cpus, rep, vm_index;
	int64_t started_ns, ts; /* ts: its distinct timestamp */
	bool sent;
	struct up_sample *s;
	size_t n, alloc;
};

/* One cell and metric of one configuration over the campaign's boots. */
struct up_aggr {
	const struct up_boot *first; /* a boot of the configuration (tags) */
	const struct up_sample *sample;
	double *v;
	size_t n, alloc;
	/* InfluxDB and the Pushgateway get st.mean (compare's: harmonic for
	 * rates); Codespeed st.amean (its result_value is a plain mean) */
	struct vtb_summary st;
	int64_t ts;
};

struct sink;

/*
 * A sink.  Per-boot sinks (boots) get batches of unsent boots, then the
 * campaign's aggregates once (aggregates); campaign-level sinks only get
 * the aggregates, recorded as one item (what).
 */
struct vtb_sink_ops {
	const char *name;
	const char *scheme; /* URL scheme; "+https" selects TLS */
	const char *url;    /* the URL's form, for --help and list */
	const char *summary;
	const char *auth_scheme; /* how a token is sent: "Bearer", "Token" */
	const char *content_type;
	const char *method; /* POST or PUT */
	const char *item;   /* campaign-level item: "aggregates" or "snapshot" */
	long default_port;  /* 0: the scheme's */
	bool tls_by_scheme; /* http(s)://: TLS by the scheme (no "+https") */
	/* the request URL from the parsed sink URL */
	int (*endpoint)(struct sink *sk);
	/* per-boot payload (NULL: a campaign-level sink) */
	int (*boots)(struct sink *sk, struct up_boot *const *b, size_t n, struct vtb_strbuf *body,
		     long *points);
	/* the campaign-level payload; *points the points it holds */
	int (*aggregates)(struct sink *sk, struct vtb_strbuf *body, long *points);
	/* what to do about a refusal (status, the server's message): a hint
	 * appended to the error (malloc'ed), or NULL */
	char *(*hint)(struct sink *sk, long status, const char *message);
};

struct sink {
	const struct vtb_sink_ops *ops;
	const struct vtb_upload_opts *o;
	char *base;	      /* http(s)://host:port */
	char *path;	      /* the URL's path, unescaped, without the leading '/' */
	char *id;	      /* the sink's name in the store: URL without credentials */
	char *endpoint;	      /* the request URL */
	struct vtb_store *st; /* for the campaign document (json sink) */
	char *campaign_uuid, *hostname, *host_kernel;
	int64_t agg_ts, started_ns, ended_ns;
	struct up_boot *boots;
	size_t n_boots, alloc_boots;
	struct up_aggr *aggr;
	size_t n_aggr, alloc_aggr;
	/* credentials */
	char *auth_header; /* "Authorization: ..." (secret) */
	char *user, *password;
	unsigned warned_replaced; /* a bit per tag */
	bool warned_float, warned_clash;
	gsl_rng *rng;
};

static void note(struct sink *sk, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct sink *sk, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	if (!sk->o->note)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg)
		sk->o->note(sk->o->note_arg, msg);
	free(msg);
}

/* ---- line protocol ---- */

static bool lp_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/*
 * InfluxDB's parser (1.x and 2.x) takes a backslash as an escape only
 * before the characters that need one; elsewhere it is a plain character
 * and must not be doubled (1.6 stores "a\\b" as two backslashes).  A tag
 * value cannot carry a backslash at its end or before an escaped
 * character: that one is sent as '/', with the warning.
 */
static char *lp_escape(const char *s, const char *special, bool tag, bool *replaced)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const unsigned char *p;
	int r = vtb_strbuf_add(&sb, "", 0);

	for (p = (const unsigned char *)s; *p && !r; p++) {
		unsigned char c = *p;

		if (lp_control(c)) {
			c = ' ';
			*replaced = true;
		} else if (tag && c == '\\' &&
			   (!p[1] || lp_control(p[1]) || strchr(special, p[1]))) {
			c = '/';
			*replaced = true;
		}
		if (strchr(special, c))
			r = vtb_strbuf_add(&sb, "\\", 1);
		if (!r)
			r = vtb_strbuf_add(&sb, (const char *)&c, 1);
	}
	if (r) {
		vtb_strbuf_release(&sb);
		vtb_error("out of memory");
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

char *vtb_lp_tag_value(const char *s, bool *replaced)
{
	return lp_escape(s ? s : "", ", =", true, replaced);
}

char *vtb_lp_field_string(const char *s, bool *replaced)
{
	return lp_escape(s ? s : "", "\"\\", false, replaced);
}

bool vtb_lp_float(double v, char *buf, size_t len)
{
	int prec;

	if (!isfinite(v))
		return false;
	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return true;
}

/* A params value of a configuration ("topology" ...), NULL when absent. */
static char *param(const char *params_json, const char *key)
{
	json_t *o = json_loads(params_json ? params_json : "{}", 0, NULL);
	const char *v = json_string_value(json_object_get(o, key));
	char *r = v ? strdup(v) : NULL;

	json_decref(o);
	return r;
}

/* The tags of a point: the series a dashboard draws.  Keys sorted, as
 * InfluxDB prefers.  A tag that does not apply (a baseline has no
 * topology) is left out, never given a stand-in value: "none" is a real
 * pinning.  "config" is the configuration's key: two configurations that
 * differ only in what no other tag says (memory, numa, a baseline's
 * cpuset) never share a series. */
#define N_TAGS 12
enum {
	T_ACCEL,
	T_CONFIG,
	T_KERNEL,
	T_HOST,
	T_KIND,
	T_METRIC,
	T_PINNING,
	T_SCHED,
	T_TOPOLOGY,
	T_UNIT,
	T_VCPUS,
	T_WORKLOAD
};
struct tags {
	const char *k[N_TAGS];
	char *v[N_TAGS]; /* raw values, malloc'ed; NULL: the tag does not apply */
};

static void tags_release(struct tags *t)
{
	for (size_t i = 0; i < N_TAGS; i++)
		free(t->v[i]);
}

static int tags_of(struct sink *sk, const struct up_boot *b, const struct up_sample *s,
		   struct tags *t)
{
	static const char *const keys[N_TAGS] = {
		"accelerator", "config", "guest_kernel", "host", "kind",  "metric",
		"pinning",     "sched",	 "topology",	 "unit", "vcpus", "workload",
	};
	bool vm = !strcmp(b->kind, "vm"), oom = false;
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < N_TAGS; i++)
		t->k[i] = keys[i];
	t->v[T_ACCEL] = vm ? vtb_strdup(b->accelerator) : NULL;
	t->v[T_CONFIG] = vtb_strdup(b->config_key);
	t->v[T_KERNEL] = vm ? vtb_strdup(b->guest_kernel) : NULL;
	t->v[T_HOST] = vtb_strdup(sk->hostname);
	t->v[T_KIND] = vtb_strdup(b->kind);
	t->v[T_METRIC] = vtb_strdup(s->metric);
	t->v[T_PINNING] = vm ? param(b->params, "pinning") : NULL;
	t->v[T_SCHED] = vm ? param(b->params, "sched") : NULL;
	t->v[T_TOPOLOGY] = vm ? param(b->params, "topology") : NULL;
	t->v[T_UNIT] = vtb_strdup(s->unit);
	t->v[T_VCPUS] = vtb_asprintf("%d", b->cpus);
	t->v[T_WORKLOAD] = vtb_strdup(s->cell_name);
	oom = (vm && b->accelerator && !t->v[T_ACCEL]) || !t->v[T_CONFIG] ||
	      (vm && b->guest_kernel && !t->v[T_KERNEL]) || !t->v[T_HOST] || !t->v[T_KIND] ||
	      !t->v[T_METRIC] || !t->v[T_UNIT] || !t->v[T_VCPUS] || !t->v[T_WORKLOAD];
	/* an empty value has no spelling in the line protocol: left out too */
	for (i = 0; i < N_TAGS; i++)
		if (t->v[i] && !*t->v[i]) {
			free(t->v[i]);
			t->v[i] = NULL;
		}
	if (oom) {
		tags_release(t);
		return vtb_error("out of memory");
	}
	return 0;
}

/* "MEASUREMENT,k=v,... " (the tags that apply) */
static int lp_series(struct sink *sk, struct vtb_strbuf *body, const char *measurement,
		     const struct tags *t)
{
	bool replaced = false;
	int r = vtb_strbuf_addstr(body, measurement);

	for (size_t i = 0; i < N_TAGS && !r; i++) {
		char *v;

		if (!t->v[i])
			continue;
		replaced = false;
		v = vtb_lp_tag_value(t->v[i], &replaced);

		if (!v)
			return -1;
		if (replaced && !(sk->warned_replaced & (1u << i))) {
			note(sk,
			     "tag %s: a character the line protocol cannot carry (a control character such as a newline is sent as a space, a backslash at the end or before a comma, space or equals sign as '/'): %s",
			     t->k[i], v);
			sk->warned_replaced |= 1u << i;
		}
		r = vtb_strbuf_addf(body, ",%s=%s", t->k[i], v);
		free(v);
	}
	return r ? vtb_error("out of memory") : 0;
}

static bool float_or_warn(struct sink *sk, double v, char *buf, size_t len, const char *metric)
{
	if (vtb_lp_float(v, buf, len))
		return true;
	if (!sk->warned_float)
		note(sk,
		     "metric '%s': a value that is not finite is not sent (the line protocol has no spelling for it)",
		     metric);
	sk->warned_float = true;
	return false;
}

static int lp_boots(struct sink *sk, struct up_boot *const *b, size_t n, struct vtb_strbuf *body,
		    long *points)
{
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		char *uuid = vtb_lp_field_string(b[i]->uuid, &replaced);

		if (!uuid)
			return -1;
		points[i] = 0;
		for (size_t j = 0; j < b[i]->n; j++) {
			const struct up_sample *s = &b[i]->s[j];
			struct tags t;
			char num[40];
			int r;

			if (!float_or_warn(sk, s->value, num, sizeof(num), s->metric))
				continue;
			if (tags_of(sk, b[i], s, &t) < 0) {
				free(uuid);
				return -1;
			}
			r = lp_series(sk, body, VTB_LP_BOOTS, &t);
			tags_release(&t);
			if (r || vtb_strbuf_addf(body, " value=%s,boot=\"%s\" %lld\n", num, uuid,
						 (long long)b[i]->ts)) {
				free(uuid);
				return vtb_error("out of memory");
			}
			points[i]++;
		}
		free(uuid);
	}
	return 0;
}

/*
 * The campaign's aggregates, in a measurement of their own (a panel of
 * boots never averages them in): per configuration, cell and metric the
 * mean as vtbench compare computes it (harmonic for rates, geometric for latencies), median,
 * stddev, min, max, n and the campaign's uuid.
 */
static int lp_aggregates(struct sink *sk, struct vtb_strbuf *body, long *points)
{
	bool replaced = false;
	char *uuid = vtb_lp_field_string(sk->campaign_uuid, &replaced);

	*points = 0;
	if (!uuid)
		return -1;
	for (size_t i = 0; i < sk->n_aggr; i++) {
		const struct up_aggr *a = &sk->aggr[i];
		const double v[5] = { a->st.mean, a->st.median, a->st.stddev, a->st.min,
				      a->st.max };
		char num[5][40];
		struct tags t;
		size_t k;
		int r;

		for (k = 0; k < 5; k++)
			if (!float_or_warn(sk, v[k], num[k], sizeof(num[k]), a->sample->metric))
				break;
		if (k < 5)
			continue;
		if (tags_of(sk, a->first, a->sample, &t) < 0)
			goto fail;
		r = lp_series(sk, body, VTB_LP_AGGREGATES, &t);
		tags_release(&t);
		if (r ||
		    vtb_strbuf_addf(
			    body,
			    " mean=%s,median=%s,stddev=%s,min=%s,max=%s,n=%zui,campaign=\"%s\" %lld\n",
			    num[0], num[1], num[2], num[3], num[4], a->st.n, uuid,
			    (long long)a->ts))
			goto fail;
		(*points)++;
	}
	free(uuid);
	return 0;
fail:
	free(uuid);
	return vtb_error("out of memory");
}

/* ---- Prometheus text format (Pushgateway) ---- */

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

	if (tags_of(sk, a->first, a->sample, &t) < 0)
		return -1;
	r = vtb_strbuf_addstr(body, "{");
	for (size_t k = 0; k < N_TAGS && !r; k++) {
		if (k == T_CONFIG) /* labels sorted, as the tags */
			r = prom_label(body, "cell", a->sample->cell_name, !t.v[T_ACCEL]);
		if (!r && t.v[k] && k != T_HOST && k != T_METRIC && k != T_UNIT && k != T_WORKLOAD)
			r = prom_label(body, t.k[k], t.v[k], k == T_ACCEL);
	}
	tags_release(&t);
	if (!r)
		r = vtb_strbuf_addstr(body, "}");
	return r ? vtb_error("out of memory") : 0;
}

/*
 * The latest campaign as a snapshot.  Per configuration, cell and metric,
 * in families named as prom_family() says: the mean over the campaign's
 * boots as vtbench compare computes it (harmonic for rates, geometric for latencies), its sample
 * standard deviation (FAMILY_stddev_UNIT) and the boots with a value
 * (FAMILY_boots); then vtbench_campaign_info{campaign} and the campaign's
 * start time.  A family's series come together, as the text format wants.
 * The Pushgateway keeps only the last value per series and a PUT replaces
 * the whole group: each upload replaces the snapshot.
 */
static int prom_snapshot(struct sink *sk, struct vtb_strbuf *body, long *points)
{
	static const char *const extra[] = { NULL, "stddev", "boots" };
	char **fam = calloc(3 * sk->n_aggr + 1, sizeof(*fam));
	double(*scale)[2] = calloc(sk->n_aggr + 1, sizeof(*scale));
	bool *skip = calloc(sk->n_aggr + 1, sizeof(*skip));
	size_t i, j, f;
	int r = 0;

	*points = 0;
	if (!fam || !scale || !skip) {
		r = -1;
		goto out;
	}
	for (f = 0; f < 3 && !r; f++)
		for (i = 0; i < sk->n_aggr && !r; i++) {
			const struct up_sample *sm = sk->aggr[i].sample;

			fam[f * sk->n_aggr + i] = prom_family(sm->workload, sm->metric, sm->unit,
							      extra[f], scale[i]);
			r = fam[f * sk->n_aggr + i] ? 0 : -1;
		}
	/* two metrics of one cell that name one family ("x_ns", "x_us")
	 * would be one series twice: the first is kept */
	for (i = 0; i < sk->n_aggr && !r; i++)
		for (j = 0; j < i && !skip[i]; j++)
			if (!skip[j] && !strcmp(fam[i], fam[j]) &&
			    !strcmp(sk->aggr[i].first->config_key, sk->aggr[j].first->config_key) &&
			    !strcmp(sk->aggr[i].sample->cell_key, sk->aggr[j].sample->cell_key)) {
				skip[i] = true;
				note(sk,
				     "metric '%s' of cell '%s' is left out: '%s' already names %s",
				     sk->aggr[i].sample->metric, sk->aggr[i].sample->cell_name,
				     sk->aggr[j].sample->metric, fam[i]);
			}
	for (f = 0; f < 3 && !r; f++) {
		char **names = fam + f * sk->n_aggr;

		for (i = 0; i < sk->n_aggr && !r; i++) {
			const struct up_sample *sm = sk->aggr[i].sample;
			bool seen = false;

			for (j = 0; j < i && !seen; j++)
				seen = !skip[j] && !strcmp(names[j], names[i]);
			if (seen || skip[i])
				continue;
			if (f == 0)
				r = vtb_strbuf_addf(
					body,
					"# HELP %s %s %s: the mean of the campaign's boots as vtbench compare computes it (harmonic for rates, geometric for latencies), from %s\n",
					names[i], sm->workload, sm->metric,
					*sm->unit ? sm->unit : "a count");
			else if (f == 1)
				r = vtb_strbuf_addf(
					body,
					"# HELP %s %s %s: the sample standard deviation over the campaign's boots\n",
					names[i], sm->workload, sm->metric);
			else
				r = vtb_strbuf_addf(
					body,
					"# HELP %s %s %s: the campaign's boots with a value\n",
					names[i], sm->workload, sm->metric);
			if (!r)
				r = vtb_strbuf_addf(body, "# TYPE %s gauge\n", names[i]);
			/* every series of the family, together */
			for (j = i; j < sk->n_aggr && !r; j++) {
				const struct up_aggr *a = &sk->aggr[j];

				if (skip[j] || strcmp(names[j], names[i]))
					continue;
				r = vtb_strbuf_addstr(body, names[j]);
				if (!r)
					r = prom_labels(sk, a, body);
				if (!r)
					r = prom_number(body, f == 0 ? a->st.mean * scale[j][0] /
									       scale[j][1]
							      : f == 1
								      ? a->st.stddev * scale[j][0] /
										scale[j][1]
								      : (double)a->st.n);
				*points += !r;
			}
		}
	}
	if (!r)
		r = vtb_strbuf_addstr(
			body, "# HELP vtbench_campaign_info the campaign this snapshot is of\n"
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
out:
	if (fam)
		for (i = 0; i < 3 * sk->n_aggr; i++)
			free(fam[i]);
	free(fam);
	free(scale);
	free(skip);
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

/* ---- Codespeed ---- */

/* "YYYY-MM-DD HH:MM:SS", UTC: the form Django's DateTimeField parses. */
static int cs_date(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		return vtb_error("cannot format the time %lld", (long long)ns);
	return 0;
}

static char *cs_exe_base(const struct up_boot *b)
{
	char *t, *p, *s, *r;

	if (strcmp(b->kind, "vm"))
		return vtb_strdup("baremetal");
	t = param(b->params, "topology");
	p = param(b->params, "pinning");
	s = param(b->params, "sched");
	r = vtb_asprintf("vm-%s-%s-%s", t ? t : "none", p ? p : "none", s ? s : "none");
	free(t);
	free(p);
	free(s);
	return r;
}

/*
 * The executable: "baremetal" or "vm-TOPOLOGY-PINNING-SCHED".  Codespeed
 * keeps one result per (revision, executable, benchmark, environment), so
 * two configurations of the campaign that share a name (baselines on 1
 * and 4 CPUs, VMs differing in vcpus) would overwrite each other: those
 * get "-<N>cpu" appended, and a warning if even that does not tell them
 * apart.
 */
static char *cs_executable(struct sink *sk, const struct up_boot *b)
{
	char *base = cs_exe_base(b), *r;
	bool clash = false, clash2 = false;

	if (!base)
		return NULL;
	for (size_t i = 0; i < sk->n_aggr; i++) {
		const struct up_boot *o = sk->aggr[i].first;
		char *ob;

		if (!strcmp(o->config_key, b->config_key))
			continue;
		ob = cs_exe_base(o);
		if (!ob) {
			free(base);
			return NULL;
		}
		if (!strcmp(ob, base)) {
			clash = true;
			clash2 |= o->cpus == b->cpus;
		}
		free(ob);
	}
	if (!clash)
		return base;
	if (clash2 && !sk->warned_clash)
		note(sk,
		     "configurations '%s' and others share the Codespeed executable '%s-%dcpu': Codespeed keeps only the last of their results",
		     b->config_label, base, b->cpus);
	sk->warned_clash |= clash2;
	r = vtb_asprintf("%s-%dcpu", base, b->cpus);
	free(base);
	return r;
}

static json_t *cs_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/*
 * POST /result/add/json/ with the form field json: an array of results,
 * one per configuration, cell and metric (the mean of the campaign's
 * boots, with stddev, min and max).  Codespeed creates project, branch,
 * executable, benchmark and revision as needed, but not the environment.
 */
static int cs_results(struct sink *sk, struct vtb_strbuf *body, long *points)
{
	char rev_date[32], res_date[32];
	json_t *arr = json_array();
	char *dump = NULL, *esc = NULL;
	int ret = -1;

	*points = 0;
	if (!arr)
		return vtb_error("out of memory");
	if (cs_date(sk->started_ns, rev_date, sizeof(rev_date)) < 0 ||
	    cs_date(sk->ended_ns ? sk->ended_ns : sk->agg_ts, res_date, sizeof(res_date)) < 0)
		goto out;
	for (size_t i = 0; i < sk->n_aggr; i++) {
		const struct up_aggr *a = &sk->aggr[i];
		const struct up_boot *b = a->first;
		bool vm = !strcmp(b->kind, "vm");
		const char *commit = vm ? b->guest_kernel : sk->host_kernel;
		char *exe, *bench;
		json_t *it;

		if (!isfinite(a->st.amean)) {
			if (!sk->warned_float)
				note(sk, "metric '%s': a mean that is not finite is not sent",
				     a->sample->metric);
			sk->warned_float = true;
			continue;
		}
		exe = cs_executable(sk, b);
		bench = vtb_asprintf("%s.%s", a->sample->cell_name, a->sample->metric);
		if (!exe || !bench) {
			free(exe);
			free(bench);
			vtb_error("out of memory");
			goto out;
		}
		it = json_pack(
			"{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:s, s:b, s:s, s:s}",
			"project", "vtbench", "executable", exe, "benchmark", bench, "environment",
			sk->hostname, "commitid", commit && *commit ? commit : "unknown", "branch",
			"default", "result_value", json_real(a->st.amean), "std_dev",
			cs_real(a->st.stddev), "min", cs_real(a->st.min), "max", cs_real(a->st.max),
			"units", a->sample->unit, "lessisbetter", !a->sample->better,
			"revision_date", rev_date, "result_date", res_date);
		free(exe);
		free(bench);
		if (!it || json_array_append_new(arr, it)) {
			vtb_error("out of memory");
			goto out;
		}
		(*points)++;
	}
	if (!*points) {
		ret = 0;
		goto out;
	}
	dump = json_dumps(arr, JSON_COMPACT);
	esc = dump ? curl_easy_escape(NULL, dump, 0) : NULL;
	if (!esc || vtb_strbuf_addf(body, "json=%s", esc)) {
		vtb_error("out of memory");
		goto out;
	}
	ret = 0;
out:
	curl_free(esc);
	free(dump);
	json_decref(arr);
	return ret;
}

/* Codespeed refuses a result whose environment it does not know (HTTP 400
 * "Environment NAME not found"); it is created once, by hand. */
static char *cs_hint(struct sink *sk, long status, const char *message)
{
	if (status != 400 || !message || !strstr(message, "Environment") ||
	    !strstr(message, "not found"))
		return NULL;
	return vtb_asprintf(
		"; create the environment '%s' in Codespeed first: its admin (/admin/, Environments -> Add, name '%s'), or on the server: python manage.py shell -c \"from codespeed.models import Environment; Environment.objects.get_or_create(name='%s')\"",
		sk->hostname, sk->hostname, sk->hostname);
}

/* ---- generic JSON ---- */

/*
 * The campaign as one JSON document: {"schema": "vtbench-upload/1",
 * "campaign", "host", "compare": the compare --format json document (null
 * with "compare_error" when compare has nothing to say), "boots": every
 * boot with its raw samples}.
 */
static int json_campaign(struct sink *sk, struct vtb_strbuf *body, long *points)
{
	struct vtb_compare_opts co;
	json_t *doc = NULL, *top = NULL, *boots = NULL;
	bool bad_input = false;
	char *dump = NULL;
	int ret = -1;

	*points = 0;
	vtb_compare_opts_default(&co);
	co.campaign = sk->campaign_uuid;
	top = json_pack("{s:s, s:s, s:s}", "schema", VTB_UPLOAD_JSON_SCHEMA, "campaign",
			sk->campaign_uuid, "host", sk->hostname);
	boots = json_array();
	if (!top || !boots)
		goto oom;
	if (vtb_compare_build(sk->st, "the database", NULL, NULL, &co, &doc, &bad_input) < 0) {
		if (!bad_input)
			goto out;
		if (json_object_set_new(top, "compare", json_null()) ||
		    json_object_set_new(top, "compare_error", json_string(vtb_errmsg())))
			goto oom;
	} else if (json_object_set_new(top, "compare", doc)) {
		doc = NULL;
		goto oom;
	}
	doc = NULL;
	for (size_t i = 0; i < sk->n_boots; i++) {
		const struct up_boot *b = &sk->boots[i];
		json_t *samples = json_array(), *jb;

		if (!samples)
			goto oom;
		for (size_t j = 0; j < b->n; j++) {
			const struct up_sample *s = &b->s[j];
			json_t *js = json_pack("{s:s, s:s, s:s, s:s, s:o}", "cell", s->cell_name,
					       "cell_key", s->cell_key, "metric", s->metric, "unit",
					       s->unit, "value", cs_real(s->value));

			if (!js || json_array_append_new(samples, js)) {
				json_decref(samples);
				goto oom;
			}
			(*points)++;
		}
		jb = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:o}", "uuid", b->uuid,
			       "config", b->config_key, "config_label", b->config_label, "kind",
			       b->kind, "rep", b->rep, "vm_index", b->vm_index, "status", b->status,
			       "samples", samples);
		if (!jb || json_array_append_new(boots, jb))
			goto oom;
	}
	if (json_object_set(top, "boots", boots))
		goto oom;
	dump = json_dumps(top, JSON_COMPACT);
	if (!dump || vtb_strbuf_addstr(body, dump))
		goto oom;
	ret = 0;
	goto out;
oom:
	vtb_error("out of memory");
out:
	free(dump);
	json_decref(doc);
	json_decref(boots);
	json_decref(top);
	return ret;
}

/* ---- endpoints ---- */

static char *url_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0);
	char *r = vtb_strdup(e);

	curl_free(e);
	return r;
}

/* influx://HOST:PORT/DB */
static int influx1_endpoint(struct sink *sk)
{
	char *db;

	if (!*sk->path || strchr(sk->path, '/'))
		return vtb_error("'%s': expected influx://HOST:PORT/DATABASE", sk->id);
	db = url_escape(sk->path);
	free(sk->endpoint);
	sk->endpoint = NULL;
	if (db)
		sk->endpoint = vtb_asprintf("%s/write?db=%s&precision=ns", sk->base, db);
	free(db);
	return sk->endpoint ? 0 : vtb_error("out of memory");
}

/* influx2://HOST:PORT/ORG/BUCKET */
static int influx2_endpoint(struct sink *sk)
{
	char *slash = strchr(sk->path, '/');
	char *org = NULL, *bucket = NULL;

	if (!slash || slash == sk->path || !slash[1] || strchr(slash + 1, '/'))
		return vtb_error("'%s': expected influx2://HOST:PORT/ORG/BUCKET", sk->id);
	*slash = '\0';
	org = url_escape(sk->path);
	bucket = url_escape(slash + 1);
	*slash = '/';
	free(sk->endpoint);
	sk->endpoint = NULL;
	if (org && bucket)
		sk->endpoint = vtb_asprintf("%s/api/v2/write?org=%s&bucket=%s&precision=ns",
					    sk->base, org, bucket);
	free(org);
	free(bucket);
	return sk->endpoint ? 0 : vtb_error("out of memory");
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

/* The URL's path again, each segment escaped ("" when empty). */
static char *path_escaped(const char *path)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *p = path;
	int r = vtb_strbuf_add(&sb, "", 0);

	while (*p && !r) {
		size_t n = strcspn(p, "/");
		char *seg = strndup(p, n), *e = seg ? url_escape(seg) : NULL;

		r = e ? vtb_strbuf_addf(&sb, "/%s", e) : -1;
		free(seg);
		free(e);
		p += n;
		if (*p == '/')
			p++;
	}
	if (r) {
		vtb_strbuf_release(&sb);
		vtb_error("out of memory");
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

/* codespeed+http(s)://HOST[:PORT][/PREFIX]/: POST PREFIX/result/add/json/ */
static int codespeed_endpoint(struct sink *sk)
{
	char *prefix = path_escaped(sk->path);

	free(sk->endpoint);
	sk->endpoint = prefix ? vtb_asprintf("%s%s/result/add/json/", sk->base, prefix) : NULL;
	free(prefix);
	return sk->endpoint ? 0 : -1;
}

/* http(s)://HOST[:PORT]/PATH: POST there */
static int json_endpoint(struct sink *sk)
{
	char *path = path_escaped(sk->path);

	free(sk->endpoint);
	sk->endpoint = path ? vtb_asprintf("%s%s%s", sk->base, path, *path ? "" : "/") : NULL;
	free(path);
	return sk->endpoint ? 0 : -1;
}

static const struct vtb_sink_ops codespeed_ops = {
	.name = "codespeed",
	.scheme = "codespeed",
	.url = "codespeed+http[s]://HOST[:PORT]/",
	.summary =
		"Codespeed: POST /result/add/json/, one result per configuration, cell and metric (mean, std_dev, min, max), once per campaign",
	.auth_scheme = "Bearer",
	.content_type = "application/x-www-form-urlencoded",
	.method = "POST",
	.item = "aggregates",
	.endpoint = codespeed_endpoint,
	.aggregates = cs_results,
	.hint = cs_hint,
};

static const struct vtb_sink_ops json_ops = {
	.name = "json",
	.scheme = "http",
	.url = "http[s]://HOST[:PORT]/PATH",
	.summary =
		"generic JSON: POST of the campaign (compare's JSON document and every boot's samples), once per campaign",
	.auth_scheme = "Bearer",
	.content_type = "application/json",
	.method = "POST",
	.item = "aggregates",
	.tls_by_scheme = true,
	.endpoint = json_endpoint,
	.aggregates = json_campaign,
};

static const struct vtb_sink_ops influx1_ops = {
	.name = "influx",
	.scheme = "influx",
	.url = "influx[+https]://HOST:PORT/DB",
	.summary =
		"InfluxDB 1.x: POST /write, line protocol, one point per boot and metric, then the campaign's aggregates",
	.auth_scheme = "Bearer",
	.content_type = "text/plain; charset=utf-8",
	.method = "POST",
	.item = "aggregates",
	.default_port = 8086,
	.endpoint = influx1_endpoint,
	.boots = lp_boots,
	.aggregates = lp_aggregates,
};

static const struct vtb_sink_ops influx2_ops = {
	.name = "influx2",
	.scheme = "influx2",
	.url = "influx2[+https]://HOST:PORT/ORG/BUCKET",
	.summary =
		"InfluxDB 2.x: POST /api/v2/write with Authorization: Token, line protocol as influx",
	.auth_scheme = "Token",
	.content_type = "text/plain; charset=utf-8",
	.method = "POST",
	.item = "aggregates",
	.default_port = 8086,
	.endpoint = influx2_endpoint,
	.boots = lp_boots,
	.aggregates = lp_aggregates,
};

static const struct vtb_sink_ops pushgateway_ops = {
	.name = "pushgateway",
	.scheme = "pushgateway",
	.url = "pushgateway[+https]://HOST:PORT/JOB",
	.summary =
		"Prometheus Pushgateway: the campaign as a snapshot (it keeps only last values), PUT to /metrics/job/JOB/instance/HOST",
	.auth_scheme = "Bearer",
	.content_type = "text/plain; version=0.0.4",
	.method = "PUT",
	.item = "snapshot",
	.default_port = 9091,
	.endpoint = pushgateway_endpoint,
	.aggregates = prom_snapshot,
};

/* alphabetical by name */
static const struct vtb_sink_ops *const sinks[] = {
	&codespeed_ops, &influx1_ops, &influx2_ops, &json_ops, &pushgateway_ops, NULL,
};

const struct vtb_sink_info *vtb_sink_info(size_t i)
{
	static struct vtb_sink_info info[VTB_ARRAY_SIZE(sinks)];

	if (i >= VTB_ARRAY_SIZE(sinks) || !sinks[i])
		return NULL;
	info[i].name = sinks[i]->name;
	info[i].url = sinks[i]->url;
	info[i].summary = sinks[i]->summary;
	return &info[i];
}

int vtb_sinks_check(void)
{
	for (size_t i = 0; sinks[i]; i++) {
		const struct vtb_sink_ops *s = sinks[i];

		if (!s->name || !s->scheme || !s->url || !s->summary || !s->endpoint ||
		    !s->aggregates || !s->method || !s->content_type || !s->item)
			return vtb_error("upload sink %zu lacks a required member", i);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(sinks[j]->scheme, s->scheme) ||
			    !strcmp(sinks[j]->name, s->name))
				return vtb_error("upload sinks '%s' and '%s' share a name or scheme",
						 sinks[j]->name, s->name);
	}
	return 0;
}

/* ---- URL, credentials ---- */

/*
 * The decoded path goes into request paths (escaped again segment by
 * segment) and into messages: a "." or ".." segment (curl removes the
 * literal ones, not "%2E%2E") would reach the server as path traversal,
 * and a control character (%0d%0a) would split a line.
 */
static int bad_path(const char *url, const char *path)
{
	for (const char *p = path; p && *p;) {
		size_t n = strcspn(p, "/");

		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return vtb_error("'%s': a '.' or '..' path segment (%%2E%%2E) is refused",
					 url);
		p += n + (p[n] == '/');
	}
	for (const unsigned char *c = (const unsigned char *)path; c && *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return vtb_error(
				"'%s': the path holds an encoded control character (%%%02X)", url,
				*c);
	return 0;
}

static int parse_url(struct sink *sk, const char *url)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL, *user = NULL, *pass = NULL,
	     *query = NULL, *frag = NULL, *base_scheme = NULL, *plus;
	bool tls = false;
	long portno;
	int ret = -1;

	if (!u)
		return vtb_error("out of memory");
	if (curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		vtb_error("cannot parse the URL '%s'", url);
		goto out;
	}
	curl_url_get(u, CURLUPART_USER, &user, 0);
	curl_url_get(u, CURLUPART_PASSWORD, &pass, 0);
	curl_url_get(u, CURLUPART_QUERY, &query, 0);
	curl_url_get(u, CURLUPART_FRAGMENT, &frag, 0);
	curl_url_get(u, CURLUPART_PORT, &port, 0);
	if (curl_url_get(u, CURLUPART_PATH, &path, CURLU_URLDECODE) != CURLUE_OK) {
		/* libcurl refuses to decode %00 and other control characters */
		vtb_error(
			"'%s': the path holds an encoded NUL or control character (%%00, %%0d, %%0a ...)",
			url);
		goto out;
	}
	if (bad_path(url, path) < 0)
		goto out;
	if (user || pass) {
		vtb_error(
			"credentials in the URL are refused (they would end up in logs and the database): use VTBENCH_UPLOAD_TOKEN, VTBENCH_UPLOAD_USER and VTBENCH_UPLOAD_PASSWORD, or --token-file");
		goto out;
	}
	if (query || frag) {
		vtb_error("'%s': a sink URL takes no query or fragment", url);
		goto out;
	}
	base_scheme = strdup(scheme);
	if (!base_scheme)
		goto oom;
	plus = strchr(base_scheme, '+');
	if (plus) {
		if (!strcmp(plus, "+https"))
			tls = true;
		else if (strcmp(plus, "+http")) {
			vtb_error("'%s': unknown transport '%s' (expected +https or +http)", url,
				  plus);
			goto out;
		}
		*plus = '\0';
	}
	for (size_t i = 0; sinks[i]; i++)
		if (!strcmp(sinks[i]->scheme, base_scheme) ||
		    (sinks[i]->tls_by_scheme && !strcmp(base_scheme, "https") &&
		     !strcmp(sinks[i]->scheme, "http")))
			sk->ops = sinks[i];
	if (sk->ops && sk->ops->tls_by_scheme) {
		if (plus) {
			vtb_error("'%s': expected http:// or https://", url);
			goto out;
		}
		tls = !strcmp(base_scheme, "https");
	}
	if (!sk->ops) {
		struct vtb_strbuf sb = VTB_STRBUF_INIT;

		for (size_t i = 0; sinks[i]; i++)
			vtb_strbuf_addf(&sb, "%s%s", i ? ", " : "", sinks[i]->url);
		vtb_error("'%s': unknown sink '%s' (vtbench list sinks: %s)", url, scheme,
			  vtb_strbuf_str(&sb));
		vtb_strbuf_release(&sb);
		goto out;
	}
	portno = port			 ? strtol(port, NULL, 10)
		 : sk->ops->default_port ? sk->ops->default_port
		 : tls			 ? 443
					 : 80;
	if (portno < 1 || portno > 65535) {
		vtb_error("'%s': port %ld is not a port a server listens on (1-65535)", url,
			  portno);
		goto out;
	}
	sk->path = strdup(path && path[0] == '/' ? path + 1 : path ? path : "");
	sk->base = vtb_asprintf("%s://%s:%ld", tls ? "https" : "http", host, portno);
	sk->id = vtb_asprintf("%s://%s:%ld/%s", scheme, host, portno, sk->path ? sk->path : "");
	if (!sk->path || !sk->base || !sk->id)
		goto oom;
	/* a trailing slash is the same sink */
	if (*sk->path && sk->path[strlen(sk->path) - 1] == '/')
		sk->path[strlen(sk->path) - 1] = '\0';
	ret = sk->ops->endpoint(sk);
	goto out;
oom:
	vtb_error("out of memory");
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(user);
	curl_free(pass);
	curl_free(query);
	curl_free(frag);
	free(base_scheme);
	curl_url_cleanup(u);
	return ret;
}

static void free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/* The token of --token-file: the file must deny others every access. */
static char *read_token_file(const char *path)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	struct stat stbuf;
	char buf[512];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0) {
		vtb_error("cannot open the token file '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &stbuf) < 0 || !S_ISREG(stbuf.st_mode)) {
		vtb_error("the token file '%s' is not a regular file", path);
		goto fail;
	}
	if (stbuf.st_mode & (S_IRWXG | S_IRWXO)) {
		vtb_error("the token file '%s' is accessible to others (mode %04o): chmod 600 '%s'",
			  path, (unsigned)(stbuf.st_mode & 07777), path);
		goto fail;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (vtb_strbuf_add(&sb, buf, (size_t)n)) {
			vtb_error("out of memory");
			goto fail;
		}
	explicit_bzero(buf, sizeof(buf));
	if (n < 0) {
		vtb_error("cannot read the token file '%s': %s", path, strerror(errno));
		goto fail;
	}
	close(fd);
	while (sb.len && (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == '\r' ||
			  sb.buf[sb.len - 1] == ' '))
		sb.buf[--sb.len] = '\0';
	if (!sb.len || strpbrk(sb.buf, "\r\n")) {
		free_secret(vtb_strbuf_detach(&sb));
		vtb_error("the token file '%s' must hold one line, the token", path);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
fail:
	close(fd);
	free_secret(vtb_strbuf_detach(&sb));
	return NULL;
}

static int load_credentials(struct sink *sk)
{
	const char *tok = getenv("VTBENCH_UPLOAD_TOKEN");
	const char *user = getenv("VTBENCH_UPLOAD_USER");
	const char *pass = getenv("VTBENCH_UPLOAD_PASSWORD");
	char *token = NULL;

	if (sk->o->token_file) {
		token = read_token_file(sk->o->token_file);
		if (!token)
			return -1;
	} else if (tok && *tok) {
		if (strpbrk(tok, "\r\n"))
			return vtb_error("VTBENCH_UPLOAD_TOKEN holds a line break");
		token = strdup(tok);
		if (!token)
			return vtb_error("out of memory");
	}
	if (token) {
		sk->auth_header = vtb_asprintf("Authorization: %s %s", sk->ops->auth_scheme, token);
		free_secret(token);
		return sk->auth_header ? 0 : vtb_error("out of memory");
	}
	if ((user && *user) != (pass && *pass))
		return vtb_error("VTBENCH_UPLOAD_USER and VTBENCH_UPLOAD_PASSWORD go together");
	if (user && *user) {
		sk->user = strdup(user);
		sk->password = strdup(pass);
		if (!sk->user || !sk->password)
			return vtb_error("out of memory");
	}
	return 0;
}

/* ---- HTTP with retries ---- */

struct resp {
	struct vtb_strbuf body;
};

static size_t on_body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct resp *r = arg;
	size_t n = size * nmemb;

	/* enough of the server's message to quote it */
	if (r->body.len < 4096 && vtb_strbuf_add(&r->body, p, n < 4096 ? n : 4096))
		return 0;
	return n;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Connection-level failures worth another attempt: the server may be
 * restarting or briefly overloaded.  TLS verification failures and bad
 * options are not. */
static bool curl_retryable(CURLcode c)
{
	switch (c) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

/* The server's message, on one line, bounded. */
static char *server_message(const struct resp *r)
{
	char *m = vtb_strdup(r->body.len ? r->body.buf : "");

	if (!m)
		return NULL;
	for (char *p = m; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	if (strlen(m) > 500)
		strcpy(m + 497, "...");
	return m;
}

long vtb_upload_retry_delay(long backoff_ms, long attempt, long long retry_after_s, double u)
{
	long w = backoff_ms < 1 ? 1 : backoff_ms, d;

	if (retry_after_s > 0)
		return (retry_after_s < VTB_UPLOAD_MAX_RETRY_AFTER_S
				? (long)retry_after_s
				: VTB_UPLOAD_MAX_RETRY_AFTER_S) *
		       1000;
	for (long i = 1; i < attempt && w < VTB_UPLOAD_MAX_DELAY_MS; i++)
		w *= 2;
	if (w > VTB_UPLOAD_MAX_DELAY_MS)
		w = VTB_UPLOAD_MAX_DELAY_MS;
	if (!(u >= 0) || u >= 1)
		u = 0;
	/* a double draw scaled: gsl_rng_uniform_int() aborted (GSL's error
	 * handler) once its bound passed 2^32, at attempt 15 of --backoff 10m */
	d = w / 2 + (long)(u * (double)(w - w / 2));
	return d > VTB_UPLOAD_MAX_DELAY_MS ? VTB_UPLOAD_MAX_DELAY_MS : d;
}

/*
 * Sends one request, retrying what may succeed later.  0 on a 2xx; -1
 * with vtb_errmsg() saying why not (the last answer or error).
 * *status: the last HTTP status (0: none).
 */
static int http_send(struct sink *sk, const char *body, size_t len, long *retries, long *requests,
		     long *status, char **message)
{
	const struct vtb_upload_opts *o = sk->o;
	struct curl_slist *hdrs = NULL;
	char errbuf[CURL_ERROR_SIZE];
	char *ctype = vtb_asprintf("Content-Type: %s", sk->ops->content_type);
	int64_t deadline = mono_ms() + o->max_time_ms;
	CURL *h = curl_easy_init();
	int ret = -1;

	*status = 0;
	*message = NULL;
	if (!h || !ctype)
		goto oom;
	hdrs = curl_slist_append(hdrs, ctype);
	if (hdrs)
		hdrs = curl_slist_append(hdrs, "Expect:");
	if (hdrs && sk->auth_header)
		hdrs = curl_slist_append(hdrs, sk->auth_header);
	if (!hdrs)
		goto oom;
	curl_easy_setopt(h, CURLOPT_URL, sk->endpoint);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "vtbench/" VTB_VERSION);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	if (strcmp(sk->ops->method, "POST"))
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, sk->ops->method);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	/* verification stays on: there is no option to turn it off */
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (o->cacert)
		curl_easy_setopt(h, CURLOPT_CAINFO, o->cacert);
	if (sk->user) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, sk->user);
		curl_easy_setopt(h, CURLOPT_PASSWORD, sk->password);
	}
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	for (long attempt = 1;; attempt++) {
		struct resp r = { VTB_STRBUF_INIT };
		curl_off_t retry_after = 0;
		CURLcode c;
		long code = 0, delay;
		char *why;

		errbuf[0] = '\0';
		curl_easy_setopt(h, CURLOPT_WRITEDATA, &r);
		c = curl_easy_perform(h);
		(*requests)++;
		if (c == CURLE_OK)
			curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		*status = code;
		if (c == CURLE_OK && code >= 200 && code < 300) {
			vtb_strbuf_release(&r.body);
			ret = 0;
			break;
		}
		free(*message);
		*message = server_message(&r);
		vtb_strbuf_release(&r.body);
		if (c != CURLE_OK)
			why = vtb_asprintf("%s", errbuf[0] ? errbuf : curl_easy_strerror(c));
		else
			why = vtb_asprintf("HTTP %ld from %s%s%s", code, sk->base,
					   *message && **message ? ": " : "",
					   *message ? *message : "");
		if (!why)
			goto oom;
		if (c != CURLE_OK ? !curl_retryable(c) : code != 429 && code < 500) {
			vtb_error("%s", why);
			free(why);
			break;
		}
		if (attempt >= o->attempts) {
			vtb_error("%s (gave up after %ld attempts)", why, attempt);
			free(why);
			break;
		}
		if (code == 429 && curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &retry_after))
			retry_after = 0;
		delay = vtb_upload_retry_delay(o->backoff_ms, attempt,
					       code == 429 ? (long long)retry_after : 0,
					       gsl_rng_uniform(sk->rng));
		if (mono_ms() + delay > deadline) {
			vtb_error(
				"%s (gave up: waiting %ld ms more would pass the retry time of %ld ms)",
				why, delay, o->max_time_ms);
			free(why);
			break;
		}
		note(sk, "%s; retrying in %ld ms (attempt %ld of %ld)", why, delay, attempt + 1,
		     o->attempts);
		free(why);
		(*retries)++;
		sleep_ms(delay);
	}
	goto out;
oom:
	vtb_error("out of memory");
out:
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	free(ctype);
	return ret;
}

/* --dry-run: the request as it would go, credentials masked. */
static int dry_print(struct sink *sk, const char *body, size_t len)
{
	FILE *f = sk->o->dry_out ? sk->o->dry_out : stdout;

	fprintf(f, "%s %s\nContent-Type: %s\n", sk->ops->method, sk->endpoint,
		sk->ops->content_type);
	if (sk->auth_header)
		fprintf(f, "Authorization: %s ****\n", sk->ops->auth_scheme);
	else if (sk->user)
		fprintf(f, "Authorization: Basic ****\n");
	fputc('\n', f);
	fwrite(body, 1, len, f);
	if (len && body[len - 1] != '\n')
		fputc('\n', f);
	fputc('\n', f);
	return ferror(f) ? vtb_error("cannot write the dry run: %s", strerror(errno)) : 0;
}

/* ---- loading the campaign ---- */

static void boot_release(struct up_boot *b)
{
	free(b->uuid);
	free(b->kind);
	free(b->status);
	free(b->accelerator);
	free(b->guest_kernel);
	free(b->config_key);
	free(b->config_label);
	free(b->params);
	for (size_t i = 0; i < b->n; i++) {
		free(b->s[i].cell_key);
		free(b->s[i].cell_name);
		free(b->s[i].workload);
		free(b->s[i].metric);
		free(b->s[i].unit);
	}
	free(b->s);
}

static int grow(void **p, size_t *alloc, size_t n, size_t size)
{
	void *np;
	size_t na;

	if (n < *alloc)
		return 0;
	na = *alloc ? *alloc * 2 : 16;
	np = realloc(*p, na * size);
	if (!np)
		return vtb_error("out of memory");
	memset((char *)np + *alloc * size, 0, (na - *alloc) * size);
	*p = np;
	*alloc = na;
	return 0;
}

static int on_row(const struct vtb_upload_row *r, void *arg)
{
	struct sink *sk = arg;
	struct up_boot *b = sk->n_boots ? &sk->boots[sk->n_boots - 1] : NULL;
	struct up_sample *s;

	if (!b || b->id != r->boot_id) {
		if (grow((void **)&sk->boots, &sk->alloc_boots, sk->n_boots, sizeof(*b)) < 0)
			return -1;
		b = &sk->boots[sk->n_boots++];
		b->id = r->boot_id;
		b->uuid = vtb_strdup(r->boot_uuid);
		b->kind = vtb_strdup(r->boot_kind);
		b->status = vtb_strdup(r->boot_status);
		b->accelerator = vtb_strdup(r->accelerator);
		b->guest_kernel = vtb_strdup(r->guest_kernel);
		b->config_key = vtb_strdup(r->config_key);
		b->config_label = vtb_strdup(r->config_label);
		b->params = vtb_strdup(r->config_params);
		b->cpus = r->cpus;
		b->rep = r->rep;
		b->vm_index = r->vm_index;
		b->started_ns = r->started_ns;
		b->sent = r->sent;
		if (!b->uuid || !b->kind || !b->status || !b->config_key || !b->config_label ||
		    !b->params || (r->accelerator && !b->accelerator) ||
		    (r->guest_kernel && !b->guest_kernel))
			return vtb_error("out of memory");
	}
	if (!r->metric)
		return 0;
	if (grow((void **)&b->s, &b->alloc, b->n, sizeof(*s)) < 0)
		return -1;
	s = &b->s[b->n++];
	s->cell_key = vtb_strdup(r->cell_key);
	s->cell_name = vtb_strdup(r->cell_name);
	s->workload = vtb_strdup(r->workload);
	s->metric = vtb_strdup(r->metric);
	s->unit = vtb_strdup(r->unit);
	s->better = r->better;
	s->value = r->value;
	if (!s->cell_key || !s->cell_name || !s->workload || !s->metric || !s->unit)
		return vtb_error("out of memory");
	return 0;
}

/* Per configuration, cell and metric: the values of the campaign's boots
 * (in boot order; configurations in the order their first boot ran). */
static int build_aggregates(struct sink *sk)
{
	int64_t last = 0;
	long nconf = 0;

	for (size_t i = 0; i < sk->n_boots; i++) {
		struct up_boot *b = &sk->boots[i];

		for (size_t j = 0; j < b->n; j++) {
			struct up_sample *s = &b->s[j];
			struct up_aggr *a = NULL;

			for (size_t k = 0; k < sk->n_aggr && !a; k++)
				if (!strcmp(sk->aggr[k].first->config_key, b->config_key) &&
				    !strcmp(sk->aggr[k].sample->cell_key, s->cell_key) &&
				    !strcmp(sk->aggr[k].sample->metric, s->metric))
					a = &sk->aggr[k];
			if (!a) {
				bool newconf = true;

				for (size_t k = 0; k < sk->n_aggr; k++)
					if (!strcmp(sk->aggr[k].first->config_key, b->config_key))
						newconf = false;
				nconf += newconf;
				if (grow((void **)&sk->aggr, &sk->alloc_aggr, sk->n_aggr,
					 sizeof(*a)) < 0)
					return -1;
				a = &sk->aggr[sk->n_aggr++];
				a->first = b;
				a->sample = s;
				/* a timestamp per configuration: two configurations
				 * with the same tags (they differ in memory, say)
				 * stay two points */
				a->ts = nconf - 1;
			}
			if (grow((void **)&a->v, &a->alloc, a->n, sizeof(double)) < 0)
				return -1;
			a->v[a->n++] = s->value;
		}
		if (b->ts > last)
			last = b->ts;
	}
	/* after every boot, and after the campaign's end when it has one */
	if (sk->agg_ts < last + 1)
		sk->agg_ts = last + 1;
	for (size_t k = 0; k < sk->n_aggr; k++) {
		sk->aggr[k].ts += sk->agg_ts;
		const struct up_sample *sm = sk->aggr[k].sample;

		if (vtb_summarise(sk->aggr[k].v, sk->aggr[k].n,
				  vtb_metric_class(sm->metric, sm->unit), &sk->aggr[k].st) < 0)
			return -1;
	}
	return 0;
}

static void sink_release(struct sink *sk)
{
	for (size_t i = 0; i < sk->n_boots; i++)
		boot_release(&sk->boots[i]);
	free(sk->boots);
	for (size_t i = 0; i < sk->n_aggr; i++)
		free(sk->aggr[i].v);
	free(sk->aggr);
	free(sk->base);
	free(sk->path);
	free(sk->id);
	free(sk->endpoint);
	free(sk->campaign_uuid);
	free(sk->hostname);
	free(sk->host_kernel);
	free_secret(sk->auth_header);
	free_secret(sk->user);
	free_secret(sk->password);
	gsl_rng_free(sk->rng);
}

void vtb_upload_result_release(struct vtb_upload_result *r)
{
	if (!r)
		return;
	free(r->sink);
	free(r->campaign);
	free(r->error);
	memset(r, 0, sizeof(*r));
}

/* Test hook: VTBENCH_TEST_UPLOAD_PAUSE_MS=N sleeps N ms after each batch
 * is recorded, so tests can stop the server between two batches. */
static void test_pause(void)
{
	const char *env = getenv("VTBENCH_TEST_UPLOAD_PAUSE_MS");

	if (env && *env)
		sleep_ms(strtol(env, NULL, 10));
}

static int fail_batch(struct vtb_upload_result *res, const char *msg)
{
	free(res->error);
	res->error = vtb_strdup(msg);
	return res->error ? 1 : vtb_error("out of memory");
}

/* Sends the unsent boots in batches of whole boots; stops at the first
 * batch that cannot be sent (the server is down, or refuses it). */
static int send_boots(struct vtb_store *st, int64_t campaign_id, struct sink *sk,
		      struct vtb_upload_result *res)
{
	struct up_boot **batch = calloc(sk->n_boots + 1, sizeof(*batch));
	int64_t *ids = calloc(sk->n_boots + 1, sizeof(*ids));
	long *points = calloc(sk->n_boots + 1, sizeof(*points));
	size_t i = 0;
	int ret = -1;

	if (!batch || !ids || !points) {
		vtb_error("out of memory");
		goto out;
	}
	while (i < sk->n_boots) {
		struct vtb_strbuf body = VTB_STRBUF_INIT;
		size_t n = 0, npts = 0;
		long total = 0, status;
		char *msg = NULL;
		int r;

		for (; i < sk->n_boots; i++) {
			struct up_boot *b = &sk->boots[i];

			if (b->sent)
				continue;
			if (n && npts + b->n > (size_t)sk->o->batch_points)
				break;
			batch[n++] = b;
			npts += b->n;
		}
		if (!n)
			break;
		if (sk->ops->boots(sk, batch, n, &body, points) < 0) {
			vtb_strbuf_release(&body);
			goto out;
		}
		for (size_t k = 0; k < n; k++) {
			ids[k] = batch[k]->id;
			total += points[k];
		}
		if (sk->o->dry_run) {
			r = body.len ? dry_print(sk, vtb_strbuf_str(&body), body.len) : 0;
			vtb_strbuf_release(&body);
			if (r < 0)
				goto out;
			continue;
		}
		/* a boot without points (a failed boot) needs no request */
		r = body.len ? http_send(sk, body.buf, body.len, &res->retries, &res->requests,
					 &status, &msg)
			     : 0;
		vtb_strbuf_release(&body);
		free(msg);
		if (r < 0) {
			char *why = vtb_strdup(vtb_errmsg());

			/* the attempt is recorded, the boots stay unsent */
			if (vtb_store_upload_mark(st, campaign_id, sk->id, "boot", ids, points, n,
						  "failed", why) < 0) {
				free(why);
				goto out;
			}
			ret = fail_batch(res, why);
			free(why);
			goto out;
		}
		if (vtb_store_upload_mark(st, campaign_id, sk->id, "boot", ids, points, n, "sent",
					  NULL) < 0)
			goto out;
		for (size_t k = 0; k < n; k++)
			batch[k]->sent = true;
		res->boots_sent += (long)n;
		res->points_sent += total;
		test_pause();
	}
	ret = 0;
out:
	free(batch);
	free(ids);
	free(points);
	return ret;
}

static int send_item(struct vtb_store *st, int64_t campaign_id, struct sink *sk,
		     struct vtb_upload_result *res)
{
	struct vtb_strbuf body = VTB_STRBUF_INIT;
	long points = 0, status;
	char *msg = NULL;
	int r, ret = -1;

	if (sk->ops->aggregates(sk, &body, &points) < 0)
		goto out;
	if (sk->o->dry_run) {
		ret = body.len ? dry_print(sk, vtb_strbuf_str(&body), body.len) : 0;
		goto out;
	}
	r = body.len ? http_send(sk, body.buf, body.len, &res->retries, &res->requests, &status,
				 &msg)
		     : 0;
	if (r < 0) {
		char *hint = sk->ops->hint ? sk->ops->hint(sk, status, msg) : NULL;
		char *why = vtb_asprintf("%s%s", vtb_errmsg(), hint ? hint : "");

		free(hint);
		if (!why)
			goto out;
		res->items_unsent++;
		if (vtb_store_upload_mark(st, campaign_id, sk->id, sk->ops->item, NULL, &points, 0,
					  "failed", why) == 0)
			ret = fail_batch(res, why);
		free(why);
		goto out;
	}
	if (vtb_store_upload_mark(st, campaign_id, sk->id, sk->ops->item, NULL, &points, 0, "sent",
				  NULL) < 0)
		goto out;
	res->items_sent++;
	res->points_sent += points;
	ret = 0;
out:
	free(msg);
	vtb_strbuf_release(&body);
	return ret;
}

int vtb_upload(struct vtb_store *st, const struct vtb_upload_opts *o, struct vtb_upload_result *res)
{
	struct vtb_upload_campaign camp;
	struct sink sk = { .o = o };
	bool found = false, item_sent = false;
	uint64_t seed = 0;
	int64_t prev = 0;
	int ret = -1, r;

	memset(res, 0, sizeof(*res));
	memset(&camp, 0, sizeof(camp));
	/* no GSL call may abort the process: errors are returned, and checked */
	gsl_set_error_handler_off();
	if (vtb_sinks_check() < 0)
		return -1;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return vtb_error("cannot initialise libcurl");
	if (parse_url(&sk, o->url) < 0 || load_credentials(&sk) < 0)
		goto out;
	res->sink = vtb_strdup(sk.id);
	if (!res->sink)
		goto oom;
	sk.rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!sk.rng)
		goto oom;
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = (uint64_t)time(NULL) ^ (uint64_t)getpid();
	gsl_rng_set(sk.rng, (unsigned long)seed);
	if (vtb_store_upload_campaign(st, o->campaign, &camp, &found) < 0)
		goto out;
	if (!found) {
		if (o->campaign)
			vtb_error("no campaign '%s' in the database", o->campaign);
		else
			vtb_error("no campaign in the database");
		goto out;
	}
	res->campaign = vtb_strdup(camp.uuid);
	sk.campaign_uuid = vtb_strdup(camp.uuid);
	sk.hostname = vtb_strdup(camp.hostname);
	sk.host_kernel = vtb_strdup(camp.host_kernel);
	sk.agg_ts = camp.ended_ns;
	sk.started_ns = camp.started_ns;
	sk.ended_ns = camp.ended_ns;
	sk.st = st;
	if (!res->campaign || !sk.campaign_uuid || !sk.hostname || !sk.host_kernel)
		goto oom;
	/* endpoints that name the campaign's host (Pushgateway's instance) */
	if (sk.ops->endpoint(&sk) < 0)
		goto out;
	if (vtb_store_foreach_upload_row(st, camp.id, sk.id, on_row, &sk) < 0)
		goto out;
	/* one distinct timestamp per boot, the same on every upload: its start,
	 * moved on by a nanosecond when two boots started together */
	for (size_t i = 0; i < sk.n_boots; i++) {
		struct up_boot *b = &sk.boots[i];

		b->ts = b->started_ns > prev ? b->started_ns : prev + 1;
		prev = b->ts;
		res->boots++;
		res->boots_before += b->sent;
	}
	if (build_aggregates(&sk) < 0)
		goto out;
	ret = 0;
	res->per_boot = sk.ops->boots != NULL;
	if (sk.ops->boots) {
		r = send_boots(st, camp.id, &sk, res);
		if (r < 0)
			ret = -1;
		else if (r > 0)
			ret = 1;
	}
	for (size_t i = 0; i < sk.n_boots && sk.ops->boots; i++)
		if (!sk.boots[i].sent)
			res->boots_unsent++;
	if (ret)
		goto out;
	/* the campaign-level item: once, when every boot is there */
	if (strcmp(sk.ops->item, "snapshot") &&
	    vtb_store_upload_item_sent(st, camp.id, sk.id, sk.ops->item, &item_sent) < 0) {
		ret = -1;
		goto out;
	}
	res->items_before = item_sent;
	if (item_sent)
		goto out;
	if (!strcmp(camp.status, "running") && !o->dry_run) {
		note(&sk, "campaign %s is still running: its %s are sent by a later upload",
		     camp.uuid, sk.ops->item);
		res->items_unsent++;
		goto out;
	}
	ret = send_item(st, camp.id, &sk, res);
	goto out;
oom:
	vtb_error("out of memory");
	ret = -1;
out:
	vtb_upload_campaign_release(&camp);
	sink_release(&sk);
	return ret;
}

int vtb_upload_check_url(const char *url)
{
	struct vtb_upload_opts o = { .url = url };
	struct sink sk = { .o = &o };
	int r = vtb_sinks_check();

	if (!r)
		r = parse_url(&sk, url);
	sink_release(&sk);
	return r;
}
