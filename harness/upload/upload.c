/* SPDX-License-Identifier: MIT */
/*
 * vtbench upload: the campaign, read from the store, sent to a sink chosen
 * by the URL's scheme.  This file is the driver: the sink registry, the
 * campaign loaded as the sinks see it, and what was sent recorded.  Each
 * sink has its own file (influx.c, pushgateway.c, codespeed.c, json.c);
 * http.c is the HTTP client, the only libcurl user.
 *
 * Exactly once is the store's job: each boot sent to a sink is recorded
 * (upload table), and a batch is recorded only after the server answered
 * 2xx.  A batch holds whole boots, so a boot is sent whole or not at all;
 * batches are recorded one by one, so an interrupted upload keeps what got
 * through.  What is sent but not recorded depends on the sink
 * (ops->resend).  InfluxDB and the Pushgateway get it again, which changes
 * nothing.  Codespeed and the generic JSON sink, where a resend may count
 * twice, are recorded in flight before their request: when the store's
 * commit fails after a 2xx (disk full) the mark stays in flight and the
 * next upload reports and holds it back.  A request whose answer never
 * came (a timeout or reset after the server took it) is marked failed and
 * sent again by the next upload: what HTTP cannot promise; the JSON sink's
 * Idempotency-Key lets a receiver drop the copy.
 *
 * Memory is bounded whatever the database holds: texts are cut as they
 * are read (vtb_upload_text()), so none is copied into every point at
 * its full length, and batches are built boot by boot up to --batch
 * points and --batch-bytes of body.
 */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "upload-priv.h"

/* ---- shared by the sinks ---- */

void up_note(struct sink *sk, const char *fmt, ...)
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

char *vtb_upload_text(const char *s, size_t max)
{
	char mark[64];
	size_t len, keep;
	char *r;

	if (!s)
		return NULL;
	len = strlen(s);
	if (max < sizeof(mark))
		max = sizeof(mark);
	if (len <= max) {
		r = strdup(s);
		if (!r)
			vtb_error("out of memory");
		return r;
	}
	/* at most 52 bytes: 20 digits, 8 hex */
	snprintf(mark, sizeof(mark), "...[cut: %zu bytes, crc32 %08x]", len,
		 (unsigned)vtb_crc32(s, len));
	keep = vtb_utf8_cut(s, len, max - strlen(mark));
	r = vtb_asprintf("%.*s%s", (int)keep, s, mark);
	if (!r)
		vtb_error("out of memory");
	return r;
}

json_t *up_json_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

void up_tags_release(struct tags *t)
{
	for (size_t i = 0; i < N_TAGS; i++)
		free(t->v[i]);
}

int up_tags_of(struct sink *sk, const struct up_boot *b, const struct up_sample *s, struct tags *t)
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
	t->v[T_PINNING] = vm ? vtb_strdup(b->pinning) : NULL;
	t->v[T_SCHED] = vm ? vtb_strdup(b->sched) : NULL;
	t->v[T_TOPOLOGY] = vm ? vtb_strdup(b->topology) : NULL;
	t->v[T_UNIT] = vtb_strdup(s->unit);
	t->v[T_VCPUS] = vtb_asprintf("%d", b->cpus);
	t->v[T_WORKLOAD] = vtb_strdup(s->cell_name);
	oom = (vm && b->accelerator && !t->v[T_ACCEL]) || !t->v[T_CONFIG] ||
	      (vm && b->guest_kernel && !t->v[T_KERNEL]) || !t->v[T_HOST] || !t->v[T_KIND] ||
	      !t->v[T_METRIC] || !t->v[T_UNIT] || !t->v[T_VCPUS] || !t->v[T_WORKLOAD] ||
	      (vm && b->pinning && !t->v[T_PINNING]) || (vm && b->sched && !t->v[T_SCHED]) ||
	      (vm && b->topology && !t->v[T_TOPOLOGY]);
	/* an empty value has no spelling in the line protocol: left out too */
	for (i = 0; i < N_TAGS; i++)
		if (t->v[i] && !*t->v[i]) {
			free(t->v[i]);
			t->v[i] = NULL;
		}
	if (oom) {
		up_tags_release(t);
		return vtb_error("out of memory");
	}
	return 0;
}

/* ---- the registry ---- */

/* alphabetical by name */
static const struct vtb_sink_ops *const sinks[] = {
	&up_codespeed_ops, &up_influx1_ops,	&up_influx2_ops,
	&up_json_ops,	   &up_pushgateway_ops, NULL,
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
		/* a boot is never recorded in flight (a request per batch would
		 * cost a commit more): its resend must change nothing */
		if (s->boot && !s->resend)
			return vtb_error(
				"upload sink '%s' takes boots but does not say why a resend changes nothing",
				s->name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(sinks[j]->scheme, s->scheme) ||
			    !strcmp(sinks[j]->name, s->name))
				return vtb_error("upload sinks '%s' and '%s' share a name or scheme",
						 sinks[j]->name, s->name);
	}
	return 0;
}

/* ---- the sink a URL names ---- */

/*
 * The sink of @scheme (a sink's scheme, with "+https" or "+http"; or
 * http:// and https:// for a sink that takes TLS from the scheme) in
 * sk->ops, and whether it goes over TLS.
 */
static int sink_select(struct sink *sk, const char *url, const char *scheme, bool *tls)
{
	char *base_scheme = strdup(scheme), *plus;
	int ret = -1;

	*tls = false;
	if (!base_scheme)
		return vtb_error("out of memory");
	plus = strchr(base_scheme, '+');
	if (plus) {
		if (!strcmp(plus, "+https"))
			*tls = true;
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
		*tls = !strcmp(base_scheme, "https");
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
	ret = 0;
out:
	free(base_scheme);
	return ret;
}

/* The sink @url names: its ops, its base URL (scheme, host and port), its
 * path, its name in the store (the URL without credentials) and the
 * request URL. */
static int parse_url(struct sink *sk, const char *url)
{
	struct up_url u;
	bool tls;
	long portno;

	if (up_url_split(url, &u) < 0)
		return -1;
	if (sink_select(sk, url, u.scheme, &tls) < 0)
		goto fail;
	portno = u.port			 ? strtol(u.port, NULL, 10)
		 : sk->ops->default_port ? sk->ops->default_port
		 : tls			 ? 443
					 : 80;
	if (portno < 1 || portno > 65535) {
		vtb_error("'%s': port %ld is not a port a server listens on (1-65535)", url,
			  portno);
		goto fail;
	}
	sk->path = strdup(u.path && u.path[0] == '/' ? u.path + 1 : u.path ? u.path : "");
	sk->base = vtb_asprintf("%s://%s:%ld", tls ? "https" : "http", u.host, portno);
	sk->id = vtb_asprintf("%s://%s:%ld/%s", u.scheme, u.host, portno, sk->path ? sk->path : "");
	up_url_release(&u);
	if (!sk->path || !sk->base || !sk->id)
		return vtb_error("out of memory");
	/* a trailing slash is the same sink */
	if (*sk->path && sk->path[strlen(sk->path) - 1] == '/')
		sk->path[strlen(sk->path) - 1] = '\0';
	return sk->ops->endpoint(sk);
fail:
	up_url_release(&u);
	return -1;
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
	if (sk->idempotency_key)
		fprintf(f, "Idempotency-Key: %s\n", sk->idempotency_key);
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
	free(b->topology);
	free(b->pinning);
	free(b->sched);
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

/* A text of the database as upload keeps it (vtb_upload_text()). */
static char *text(const char *s)
{
	return vtb_upload_text(s, VTB_UPLOAD_TEXT_MAX);
}

/* The configuration's topology, pinning and sched, from its params. */
static int boot_params(struct up_boot *b, const char *params)
{
	json_t *o = json_loads(params ? params : "{}", 0, NULL);
	const char *t = json_string_value(json_object_get(o, "topology"));
	const char *p = json_string_value(json_object_get(o, "pinning"));
	const char *s = json_string_value(json_object_get(o, "sched"));

	b->topology = text(t);
	b->pinning = text(p);
	b->sched = text(s);
	json_decref(o);
	return (t && !b->topology) || (p && !b->pinning) || (s && !b->sched)
		       ? vtb_error("out of memory")
		       : 0;
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
		b->uuid = text(r->boot_uuid);
		b->kind = text(r->boot_kind);
		b->status = text(r->boot_status);
		b->accelerator = text(r->accelerator);
		b->guest_kernel = text(r->guest_kernel);
		b->config_key = text(r->config_key);
		b->config_label = text(r->config_label);
		b->cpus = r->cpus;
		b->rep = r->rep;
		b->vm_index = r->vm_index;
		b->started_ns = r->started_ns;
		b->sent = r->sent;
		if (!b->uuid || !b->kind || !b->status || !b->config_key || !b->config_label ||
		    (r->accelerator && !b->accelerator) || (r->guest_kernel && !b->guest_kernel) ||
		    boot_params(b, r->config_params) < 0)
			return vtb_error("out of memory");
	}
	if (!r->metric)
		return 0;
	if (grow((void **)&b->s, &b->alloc, b->n, sizeof(*s)) < 0)
		return -1;
	s = &b->s[b->n++];
	s->cell_key = text(r->cell_key);
	s->cell_name = text(r->cell_name);
	s->workload = text(r->workload);
	s->metric = text(r->metric);
	s->unit = text(r->unit);
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
		struct up_aggr *a = &sk->aggr[k];
		const struct up_sample *sm = a->sample;
		enum vtb_metric_class cls = vtb_metric_class(sm->metric, sm->unit);
		struct vtb_test_opts o;
		bool *aside = calloc(a->n ? a->n : 1, sizeof(*aside));

		a->ts += sk->agg_ts;
		if (!aside)
			return vtb_error("out of memory");
		/* over the boots compare keeps: a boot it sets aside as an
		 * outlier is left out here too (docs/statistics.md) */
		vtb_test_opts_default(&o);
		if (vtb_screen_series(a->v, a->n, cls, sm->metric, o.threshold_pct, aside))
			a->n = vtb_screen_keep(a->v, a->n, aside, a->v);
		free(aside);
		if (vtb_summarise(a->v, a->n, cls, &a->st) < 0)
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
	free(sk->idempotency_key);
	free(sk->campaign_uuid);
	free(sk->hostname);
	free(sk->host_kernel);
	up_free_secret(sk->auth_header);
	up_free_secret(sk->user);
	up_free_secret(sk->password);
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
		up_sleep_ms(strtol(env, NULL, 10));
}

static int fail_batch(struct vtb_upload_result *res, const char *msg)
{
	free(res->error);
	res->error = vtb_strdup(msg);
	return res->error ? 1 : vtb_error("out of memory");
}

/* Drops what was appended to @sb after its first @len bytes. */
static void strbuf_cut(struct vtb_strbuf *sb, size_t len)
{
	if (sb->buf && len < sb->len) {
		sb->len = len;
		sb->buf[len] = '\0';
	}
}

/*
 * The next batch, from boot *i on, into @body: unsent boots, whole, as
 * long as one more stays within --batch points and --batch-bytes of body
 * (the first goes whatever its size).  A boot that would pass the bytes
 * is taken out again and starts the next batch.
 */
static int next_batch(struct sink *sk, size_t *i, struct up_boot **batch, long *points, size_t *n,
		      struct vtb_strbuf *body)
{
	size_t npts = 0;

	*n = 0;
	for (; *i < sk->n_boots; (*i)++) {
		struct up_boot *b = &sk->boots[*i];
		size_t before = body->len;

		if (b->sent)
			continue;
		if (*n && npts + b->n > (size_t)sk->o->batch_points)
			break;
		if (sk->ops->boot(sk, b, body, &points[*n]) < 0)
			return -1;
		if (*n && body->len > (size_t)sk->o->batch_bytes) {
			strbuf_cut(body, before);
			break;
		}
		batch[(*n)++] = b;
		npts += b->n;
	}
	return 0;
}

/* After a 2xx: @what the store could not record (its error in
 * vtb_errmsg()) and what the next upload does about it, as vtb_error(). */
static int unrecorded(struct sink *sk, const char *what, const char *again)
{
	char *why = vtb_strdup(vtb_errmsg());

	if (sk->ops->resend)
		vtb_error(
			"%s accepted %s of campaign %s, but recording that failed: %s; the next upload sends %s again, which changes nothing (%s)",
			sk->id, what, sk->campaign_uuid, why ? why : "out of memory", again,
			sk->ops->resend);
	else
		vtb_error(
			"%s accepted %s of campaign %s, but recording that failed: %s; the next upload sends nothing twice: the request stays recorded in flight, and the next upload reports it and sends it again only with --resend-in-flight",
			sk->id, what, sk->campaign_uuid, why ? why : "out of memory");
	free(why);
	return -1;
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
		size_t n = 0;
		long total = 0, status;
		bool request;
		char *msg = NULL;
		int r;

		if (next_batch(sk, &i, batch, points, &n, &body) < 0) {
			vtb_strbuf_release(&body);
			goto out;
		}
		if (!n)
			break;
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
		request = body.len > 0;
		r = request ? up_http_send(sk, body.buf, body.len, &res->retries, &res->requests,
					   &status, &msg)
			    : 0;
		vtb_strbuf_release(&body);
		if (r < 0) {
			char *hint = sk->ops->hint ? sk->ops->hint(sk, status, msg) : NULL;
			char *why = vtb_asprintf("%s%s", vtb_errmsg(), hint ? hint : "");

			free(hint);
			free(msg);
			if (!why) {
				vtb_error("out of memory");
				goto out;
			}
			res->status = status;
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
		free(msg);
		if (vtb_store_upload_mark(st, campaign_id, sk->id, "boot", ids, points, n, "sent",
					  NULL) < 0) {
			if (request) {
				char *what = vtb_asprintf("%zu boot%s", n, n == 1 ? "" : "s");
				char *again = vtb_asprintf("%s %zu boot%s",
							   n == 1 ? "this" : "these", n,
							   n == 1 ? "" : "s");

				unrecorded(sk, what ? what : "a batch", again ? again : "them");
				free(what);
				free(again);
			}
			goto out;
		}
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

/*
 * The campaign-level item: sent, or (@record_only: --in-flight-sent)
 * recorded as sent without a request.  A sink whose resend may count
 * twice has it recorded in flight before the request: if its answer
 * cannot be recorded, the next upload knows.
 */
static int send_item(struct vtb_store *st, int64_t campaign_id, struct sink *sk,
		     struct vtb_upload_result *res, bool record_only)
{
	struct vtb_strbuf body = VTB_STRBUF_INIT;
	long points = 0, status = 0;
	char *msg = NULL, *what = NULL;
	int r, ret = -1;

	if (sk->ops->aggregates(sk, &body, &points) < 0)
		goto out;
	if (sk->o->dry_run) {
		ret = body.len && !record_only ? dry_print(sk, vtb_strbuf_str(&body), body.len) : 0;
		goto out;
	}
	what = vtb_asprintf("the %s", sk->ops->item);
	if (!what) {
		vtb_error("out of memory");
		goto out;
	}
	if (record_only) {
		if (vtb_store_upload_mark(st, campaign_id, sk->id, sk->ops->item, NULL, &points, 0,
					  "sent", NULL) < 0)
			goto out;
		res->in_flight_recorded = true;
		ret = 0;
		goto out;
	}
	if (body.len && !sk->ops->resend &&
	    vtb_store_upload_mark(st, campaign_id, sk->id, sk->ops->item, NULL, &points, 0,
				  "in-flight", NULL) < 0)
		goto out;
	r = body.len ? up_http_send(sk, body.buf, body.len, &res->retries, &res->requests, &status,
				    &msg)
		     : 0;
	if (r < 0) {
		char *hint = sk->ops->hint ? sk->ops->hint(sk, status, msg) : NULL;
		char *why = vtb_asprintf("%s%s", vtb_errmsg(), hint ? hint : "");

		free(hint);
		if (!why)
			goto out;
		res->status = status;
		res->items_unsent++;
		/* replaces the record in flight: the request was refused */
		if (vtb_store_upload_mark(st, campaign_id, sk->id, sk->ops->item, NULL, &points, 0,
					  "failed", why) == 0)
			ret = fail_batch(res, why);
		free(why);
		goto out;
	}
	if (vtb_store_upload_mark(st, campaign_id, sk->id, sk->ops->item, NULL, &points, 0, "sent",
				  NULL) < 0) {
		if (body.len)
			unrecorded(sk, what, what);
		goto out;
	}
	res->items_sent++;
	res->points_sent += points;
	ret = 0;
out:
	free(msg);
	free(what);
	vtb_strbuf_release(&body);
	return ret;
}

/* The sink @o->url names, with its credentials and the random source of
 * its retries' jitter. */
static int sink_open(struct sink *sk, const struct vtb_upload_opts *o)
{
	uint64_t seed = 0;

	sk->o = o;
	if (parse_url(sk, o->url) < 0 || up_load_credentials(sk) < 0)
		return -1;
	sk->rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!sk->rng)
		return vtb_error("out of memory");
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = (uint64_t)time(NULL) ^ (uint64_t)getpid();
	gsl_rng_set(sk->rng, (unsigned long)seed);
	return 0;
}

/* The campaign (o->campaign, else the latest) as the sink sees it: its
 * boots with their samples and distinct timestamps, what was sent
 * before, and the aggregates. */
static int load_campaign(struct vtb_store *st, struct sink *sk, struct vtb_upload_campaign *camp,
			 struct vtb_upload_result *res)
{
	const struct vtb_upload_opts *o = sk->o;
	bool found = false;
	int64_t prev = 0;

	if (vtb_store_upload_campaign(st, o->campaign, camp, &found) < 0)
		return -1;
	if (!found)
		return o->campaign ? vtb_error("no campaign '%s' in the database", o->campaign)
				   : vtb_error("no campaign in the database");
	res->campaign = text(camp->uuid);
	sk->campaign_uuid = text(camp->uuid);
	sk->hostname = text(camp->hostname);
	sk->host_kernel = text(camp->host_kernel);
	sk->agg_ts = camp->ended_ns;
	sk->started_ns = camp->started_ns;
	sk->ended_ns = camp->ended_ns;
	sk->st = st;
	if (!res->campaign || !sk->campaign_uuid || !sk->hostname || !sk->host_kernel)
		return vtb_error("out of memory");
	/* endpoints that name the campaign's host (Pushgateway's instance) */
	if (sk->ops->endpoint(sk) < 0)
		return -1;
	if (vtb_store_foreach_upload_row(st, camp->id, sk->id, on_row, sk) < 0)
		return -1;
	/* one distinct timestamp per boot, the same on every upload: its start,
	 * moved on by a nanosecond when two boots started together */
	for (size_t i = 0; i < sk->n_boots; i++) {
		struct up_boot *b = &sk->boots[i];

		b->ts = b->started_ns > prev ? b->started_ns : prev + 1;
		prev = b->ts;
		res->boots++;
		res->boots_before += b->sent;
	}
	return build_aggregates(sk);
}

/*
 * A campaign-level item found in flight: a request went out and its
 * answer was never recorded.  Held back (1, res->error says so) unless
 * --resend-in-flight or --in-flight-sent says what to do: the sink's
 * resend may count twice, and only the sink's owner can tell whether it
 * got there.  0: go on (*record_only: record it, without a request).
 */
static int in_flight(const struct vtb_upload_campaign *camp, struct sink *sk, int64_t since_ns,
		     struct vtb_upload_result *res, bool *record_only)
{
	char *msg;
	int ret;

	*record_only = false;
	if (sk->o->resend_in_flight) {
		up_note(sk,
			"the %s of campaign %s may have been delivered to %s already: sending its request again (--resend-in-flight)",
			sk->ops->item, camp->uuid, sk->id);
		return 0;
	}
	if (sk->o->in_flight_sent) {
		*record_only = true;
		return 0;
	}
	res->in_flight = true;
	res->in_flight_ns = since_ns;
	res->items_unsent++;
	msg = vtb_asprintf(
		"the %s of campaign %s may have been delivered to %s already: the last upload could not record the server's answer",
		sk->ops->item, camp->uuid, sk->id);
	if (!msg)
		return vtb_error("out of memory");
	if (sk->o->dry_run)
		up_note(sk, "%s; not sent without --resend-in-flight", msg);
	ret = sk->o->dry_run ? 0 : fail_batch(res, msg);
	free(msg);
	return ret;
}

/* The unsent boots (a per-boot sink), then the campaign-level item, once
 * every boot is there and the campaign has ended.  As vtb_upload(). */
static int send_campaign(struct vtb_store *st, const struct vtb_upload_campaign *camp,
			 struct sink *sk, struct vtb_upload_result *res)
{
	enum vtb_upload_state state = VTB_ITEM_NONE;
	int64_t since_ns = 0;
	bool record_only = false;
	int ret = 0;

	res->per_boot = sk->ops->boot != NULL;
	if (sk->ops->boot) {
		int r = send_boots(st, camp->id, sk, res);

		ret = r < 0 ? -1 : r > 0 ? 1 : 0;
		for (size_t i = 0; i < sk->n_boots; i++)
			res->boots_unsent += !sk->boots[i].sent;
	}
	if (ret)
		return ret;
	/* a snapshot is sent again on every upload */
	if (strcmp(sk->ops->item, "snapshot") &&
	    vtb_store_upload_item_state(st, camp->id, sk->id, sk->ops->item, &state, &since_ns) < 0)
		return -1;
	res->items_before = state == VTB_ITEM_SENT;
	if (state == VTB_ITEM_SENT)
		return 0;
	if (state == VTB_ITEM_IN_FLIGHT) {
		ret = in_flight(camp, sk, since_ns, res, &record_only);
		if (ret || res->in_flight)
			return ret;
	}
	if (!strcmp(camp->status, "running") && !sk->o->dry_run) {
		up_note(sk, "campaign %s is still running: its %s are sent by a later upload",
			camp->uuid, sk->ops->item);
		res->items_unsent++;
		return 0;
	}
	return send_item(st, camp->id, sk, res, record_only);
}

int vtb_upload(struct vtb_store *st, const struct vtb_upload_opts *o, struct vtb_upload_result *res)
{
	struct vtb_upload_campaign camp;
	struct sink sk = { .o = o };
	int ret = -1;

	memset(res, 0, sizeof(*res));
	memset(&camp, 0, sizeof(camp));
	/* no GSL call may abort the process: errors are returned, and checked */
	gsl_set_error_handler_off();
	if (vtb_sinks_check() < 0 || up_http_init() < 0)
		return -1;
	if (sink_open(&sk, o) < 0)
		goto out;
	res->sink = vtb_strdup(sk.id);
	if (!res->sink) {
		vtb_error("out of memory");
		goto out;
	}
	if (load_campaign(st, &sk, &camp, res) < 0)
		goto out;
	ret = send_campaign(st, &camp, &sk, res);
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
