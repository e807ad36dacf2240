/* SPDX-License-Identifier: MIT */
/*
 * Upload's internals, shared by the files of harness/upload and by
 * nothing else: the campaign as the sinks see it (boots, samples,
 * aggregates), a sink's ops table and the sink being sent to, the tags
 * of a point, and the HTTP client (http.c, the only libcurl user).
 */
#ifndef VTB_UPLOAD_PRIV_H
#define VTB_UPLOAD_PRIV_H

#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "../compare/stats.h"
#include "upload.h"

/* ---- the data: a campaign's boots and samples ---- */

/* Every text from the database is cut to VTB_UPLOAD_TEXT_MAX bytes as it
 * is read (vtb_upload_text()). */
struct up_sample {
	char *cell_key, *cell_name, *workload, *metric, *unit;
	int better;
	double value;
};

struct up_boot {
	int64_t id;
	char *uuid, *kind, *status, *accelerator, *guest_kernel;
	char *config_key, *config_label;
	char *topology, *pinning, *sched; /* of the configuration's params; NULL: none */
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
 * A sink.  Per-boot sinks (boot) get batches of unsent boots, then the
 * campaign's aggregates once (aggregates); campaign-level sinks only get
 * the aggregates, recorded as one item (what).
 *
 * resend says why sending a request again changes nothing at the sink
 * (InfluxDB overwrites a point of the same series and timestamp): after a
 * 2xx the store could not record, the next upload sends it again.  NULL:
 * a resend may count twice, so the item is recorded in flight before its
 * request and the next upload holds back what it finds in flight.  A
 * per-boot sink must have one (a boot's request in flight is not kept).
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
	const char *resend; /* why a resend changes nothing; NULL: it may count twice */
	long default_port;  /* 0: the scheme's */
	bool tls_by_scheme; /* http(s)://: TLS by the scheme (no "+https") */
	/* the request URL from the parsed sink URL */
	int (*endpoint)(struct sink *sk);
	/* a boot's payload appended to a batch's body, *points its points
	 * (NULL: a campaign-level sink); batches are built boot by boot */
	int (*boot)(struct sink *sk, const struct up_boot *b, struct vtb_strbuf *body,
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
	char *base;	       /* http(s)://host:port */
	char *path;	       /* the URL's path, unescaped, without the leading '/' */
	char *id;	       /* the sink's name in the store: URL without credentials */
	char *endpoint;	       /* the request URL */
	char *idempotency_key; /* its Idempotency-Key header's value (NULL: none) */
	struct vtb_store *st;  /* for the campaign document (json sink) */
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

/* ---- shared by the sinks (upload.c) ---- */

/* A warning to o->note (a replaced character, a retry...). */
void up_note(struct sink *sk, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Finite numbers as reals, everything else as null. */
json_t *up_json_real(double v);

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

/* The tags of boot @b's sample @s; up_tags_release() frees them. */
int up_tags_of(struct sink *sk, const struct up_boot *b, const struct up_sample *s, struct tags *t);
void up_tags_release(struct tags *t);

/* ---- the sinks, one file each; the registry is in upload.c ---- */

extern const struct vtb_sink_ops up_codespeed_ops;   /* codespeed.c */
extern const struct vtb_sink_ops up_influx1_ops;     /* influx.c */
extern const struct vtb_sink_ops up_influx2_ops;     /* influx.c */
extern const struct vtb_sink_ops up_json_ops;	     /* json.c */
extern const struct vtb_sink_ops up_pushgateway_ops; /* pushgateway.c */

/* ---- the HTTP client (http.c) ---- */

/* libcurl, once per process. */
int up_http_init(void);

/* A sink URL's parts (curl_free'd by up_url_release): the scheme as
 * written ("influx+https"), the host, the port (NULL: none given) and
 * the path, decoded.  Refused with vtb_errmsg(): what does not parse,
 * credentials, a query or fragment, a "." or ".." segment, an encoded
 * control character. */
struct up_url {
	char *scheme, *host, *port, *path;
};
int up_url_split(const char *url, struct up_url *u);
void up_url_release(struct up_url *u);

/* @s escaped for a URL (or a form field); malloc'ed, NULL on ENOMEM. */
char *up_url_escape(const char *s);
/* The URL's path again, each segment escaped ("" when empty); malloc'ed,
 * NULL with vtb_error(). */
char *up_path_escaped(const char *path);

/* The credentials: VTBENCH_UPLOAD_TOKEN, --token-file, or
 * VTBENCH_UPLOAD_USER and VTBENCH_UPLOAD_PASSWORD, into sk. */
int up_load_credentials(struct sink *sk);
/* Wipes and frees a secret; NULL is fine. */
void up_free_secret(char *s);

/*
 * Sends one request to sk->endpoint, retrying what may succeed later.
 * 0 on a 2xx; -1 with vtb_errmsg() saying why not (the last answer or
 * error).  *status: the last HTTP status (0: none); *message: the
 * server's last message, on one line (malloc'ed, may be NULL).
 */
int up_http_send(struct sink *sk, const char *body, size_t len, long *retries, long *requests,
		 long *status, char **message);

/* Sleeps @ms, through signals (the test hook of upload.c too). */
void up_sleep_ms(long ms);

#endif
