/* SPDX-License-Identifier: MIT */
/*
 * The InfluxDB sinks, 1.x (influx://) and 2.x (influx2://): the line
 * protocol, a point per boot, cell and metric (measurement vtbench),
 * then the campaign's aggregates once (vtbench_campaign).  Tags say the
 * series (up_tags_of()); a value the protocol cannot spell is left out
 * with a warning.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "upload-priv.h"

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
			up_note(sk,
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
		up_note(sk,
			"metric '%s': a value that is not finite is not sent (the line protocol has no spelling for it)",
			metric);
	sk->warned_float = true;
	return false;
}

/* The points of boot @b: every tag, field and timestamp is the same on
 * every upload (the boot's distinct timestamp, its texts cut the same
 * way), so a resend overwrites each point with itself. */
static int lp_boot(struct sink *sk, const struct up_boot *b, struct vtb_strbuf *body, long *points)
{
	bool replaced = false;
	char *uuid = vtb_lp_field_string(b->uuid, &replaced);

	if (!uuid)
		return -1;
	*points = 0;
	for (size_t j = 0; j < b->n; j++) {
		const struct up_sample *s = &b->s[j];
		struct tags t;
		char num[40];
		int r;

		if (!float_or_warn(sk, s->value, num, sizeof(num), s->metric))
			continue;
		if (up_tags_of(sk, b, s, &t) < 0) {
			free(uuid);
			return -1;
		}
		r = lp_series(sk, body, VTB_LP_BOOTS, &t);
		up_tags_release(&t);
		if (r || vtb_strbuf_addf(body, " value=%s,boot=\"%s\" %lld\n", num, uuid,
					 (long long)b->ts)) {
			free(uuid);
			return vtb_error("out of memory");
		}
		(*points)++;
	}
	free(uuid);
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

		for (k = 0; k < 5; k++) {
			/* one boot has no stddev (undefined, not 0): the field is left out */
			if (k == 2 && isnan(v[k]) && a->st.n < 2) {
				num[k][0] = 0;
				continue;
			}
			if (!float_or_warn(sk, v[k], num[k], sizeof(num[k]), a->sample->metric))
				break;
		}
		if (k < 5)
			continue;
		if (up_tags_of(sk, a->first, a->sample, &t) < 0)
			goto fail;
		r = lp_series(sk, body, VTB_LP_AGGREGATES, &t);
		up_tags_release(&t);
		if (r ||
		    vtb_strbuf_addf(
			    body,
			    " mean=%s,median=%s%s%s,min=%s,max=%s,n=%zui,campaign=\"%s\" %lld\n",
			    num[0], num[1], num[2][0] ? ",stddev=" : "", num[2], num[3], num[4],
			    a->st.n, uuid, (long long)a->ts))
			goto fail;
		(*points)++;
	}
	free(uuid);
	return 0;
fail:
	free(uuid);
	return vtb_error("out of memory");
}

/* ---- endpoints ---- */

/* Why a resend changes nothing: every tag, field and timestamp of a
 * point is the same on every upload (the boot's distinct timestamp) */
#define LP_RESEND \
	"InfluxDB keeps one point per series and timestamp: a point sent again overwrites itself"

/* influx://HOST:PORT/DB */
static int influx1_endpoint(struct sink *sk)
{
	char *db;

	if (!*sk->path || strchr(sk->path, '/'))
		return vtb_error("'%s': expected influx://HOST:PORT/DATABASE", sk->id);
	db = up_url_escape(sk->path);
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
	org = up_url_escape(sk->path);
	bucket = up_url_escape(slash + 1);
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

/* InfluxDB answers a write to a database or bucket that does not exist
 * with 404 ("database not found", "bucket ... not found"): no retry helps,
 * it is created once, by hand. */
static char *influx1_hint(struct sink *sk, long status, const char *message)
{
	(void)message;
	if (status != 404)
		return NULL;
	return vtb_asprintf(
		"; create the database '%s' first: influx -execute 'CREATE DATABASE \"%s\"' on its host, or curl -XPOST %s/query --data-urlencode 'q=CREATE DATABASE \"%s\"'",
		sk->path, sk->path, sk->base, sk->path);
}

static char *influx2_hint(struct sink *sk, long status, const char *message)
{
	const char *slash = strchr(sk->path, '/');

	(void)message;
	if (status != 404 || !slash)
		return NULL;
	return vtb_asprintf(
		"; create the bucket '%s' of organisation '%.*s' first: influx bucket create --host %s --org '%.*s' --name '%s'",
		slash + 1, (int)(slash - sk->path), sk->path, sk->base, (int)(slash - sk->path),
		sk->path, slash + 1);
}

const struct vtb_sink_ops up_influx1_ops = {
	.name = "influx",
	.scheme = "influx",
	.url = "influx[+https]://HOST:PORT/DB",
	.summary =
		"InfluxDB 1.x: POST /write, line protocol, one point per boot and metric, then the campaign's aggregates",
	.auth_scheme = "Bearer",
	.content_type = "text/plain; charset=utf-8",
	.method = "POST",
	.item = "aggregates",
	.resend = LP_RESEND,
	.default_port = 8086,
	.endpoint = influx1_endpoint,
	.boot = lp_boot,
	.aggregates = lp_aggregates,
	.hint = influx1_hint,
};

const struct vtb_sink_ops up_influx2_ops = {
	.name = "influx2",
	.scheme = "influx2",
	.url = "influx2[+https]://HOST:PORT/ORG/BUCKET",
	.summary =
		"InfluxDB 2.x: POST /api/v2/write with Authorization: Token, line protocol as influx",
	.auth_scheme = "Token",
	.content_type = "text/plain; charset=utf-8",
	.method = "POST",
	.item = "aggregates",
	.resend = LP_RESEND,
	.default_port = 8086,
	.endpoint = influx2_endpoint,
	.boot = lp_boot,
	.aggregates = lp_aggregates,
	.hint = influx2_hint,
};
