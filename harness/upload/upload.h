/* SPDX-License-Identifier: MIT */
/*
 * Upload: sends a campaign's results to a dashboard (docs/upload.md).
 * Sinks are chosen by the URL's scheme from one registry of ops tables
 * (upload.c), a file each; http.c is the only libcurl user.  Exactly
 * once: what a sink was sent is recorded per boot in the store's upload
 * table, a batch only after the server answered 2xx, so a second upload
 * sends only what is missing.  Where that record cannot be written after
 * a 2xx, a sink whose resend changes nothing gets it again; any other is
 * recorded "in flight" before its request, and the next upload holds
 * back what it finds in flight.
 */
#ifndef VTB_UPLOAD_H
#define VTB_UPLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../common/vtbutil.h"
#include "../store/store.h"

struct vtb_upload_opts {
	const char *url;
	const char *campaign;	 /* uuid; NULL: the latest campaign */
	const char *cacert;	 /* CA bundle for TLS (NULL: the system's) */
	const char *token_file;	 /* credentials file (docs/upload.md) */
	long connect_timeout_ms; /* each attempt */
	long timeout_ms;	 /* each request, whole */
	long attempts;		 /* per batch, first one included */
	long max_time_ms;	 /* per batch, retries and waits included */
	long backoff_ms;	 /* first retry delay; doubles, with jitter */
	long batch_points;	 /* points per request (whole boots) */
	long batch_bytes;	 /* body bytes per request (whole boots; one may pass it) */
	bool dry_run;		 /* print the requests, send and record nothing */
	FILE *dry_out;		 /* where --dry-run prints */
	/* warnings (a replaced character, a retry); may be NULL */
	void (*note)(void *arg, const char *msg);
	void *note_arg;
	/* what was left in flight (a request whose answer was never
	 * recorded): sent again, or recorded as sent without a request;
	 * neither: reported and held back */
	bool resend_in_flight, in_flight_sent;
};

/* The InfluxDB measurements: a point per boot, cell and metric; the
 * campaign's aggregates per configuration, cell and metric. */
#define VTB_LP_BOOTS "vtbench"
#define VTB_LP_AGGREGATES "vtbench_campaign"

/* The generic JSON sink's document (docs/upload.md). */
#define VTB_UPLOAD_JSON_SCHEMA "vtbench-upload/1"

/* Defaults of the options above (docs/upload.md, --help). */
#define VTB_UPLOAD_CONNECT_TIMEOUT_MS 10000L
#define VTB_UPLOAD_TIMEOUT_MS 60000L
#define VTB_UPLOAD_ATTEMPTS 5L
#define VTB_UPLOAD_MAX_TIME_MS 120000L
#define VTB_UPLOAD_BACKOFF_MS 500L
#define VTB_UPLOAD_BATCH_POINTS 5000L
#define VTB_UPLOAD_BATCH_BYTES (1L << 20)
/* The longest text field upload carries from the database (a host name,
 * kernel, label, unit...), and the longest string of compare's document
 * in the JSON sink (compare's own sentences stay whole): a longer one is
 * cut (vtb_upload_text()), so a huge field costs a bounded amount. */
#define VTB_UPLOAD_TEXT_MAX 256
#define VTB_UPLOAD_DOC_TEXT_MAX 4096
/* The longest wait between attempts (the largest --retry-time too), and
 * the largest Retry-After honoured: a larger one counts as this much,
 * more than any retry time, so the upload gives up at once. */
#define VTB_UPLOAD_MAX_DELAY_MS (24L * 3600 * 1000)
#define VTB_UPLOAD_MAX_RETRY_AFTER_S (24L * 3600)

struct vtb_upload_result {
	char *sink;		  /* the sink's URL without credentials (malloc'ed) */
	char *campaign;		  /* its uuid */
	long boots, boots_before; /* in the campaign; already sent before */
	long boots_sent, boots_unsent, points_sent, requests, retries;
	long items_sent, items_unsent; /* campaign-level: aggregates, snapshot */
	bool items_before;	       /* the campaign-level item was sent before */
	/* the campaign-level item was found in flight and held back (error
	 * says so); in_flight_ns: when its request went */
	bool in_flight;
	int64_t in_flight_ns;
	bool in_flight_recorded; /* found in flight, recorded as sent (--in-flight-sent) */
	bool per_boot;		 /* the sink takes boots (else only the campaign-level item) */
	char *error;		 /* why something remains unsent (NULL: nothing does) */
	long status;		 /* the HTTP status of that refusal (0: no answer) */
};
void vtb_upload_result_release(struct vtb_upload_result *r);

/*
 * Uploads the campaign to o->url.  0: everything is sent (or was); 1:
 * something remains unsent, res->error says why, what was sent is
 * recorded (res->in_flight: held back, it may have been delivered); -1
 * with vtb_errmsg(): nothing could start (bad URL, unknown scheme,
 * credentials, no such campaign), or the store failed (after a 2xx, the
 * message says what the next upload sends again).  Never prints:
 * warnings go to o->note, dry-run requests to o->dry_out.
 */
int vtb_upload(struct vtb_store *st, const struct vtb_upload_opts *o,
	       struct vtb_upload_result *res);

/* 0 when @url names a sink and parses (run --upload checks its URLs
 * before the campaign); -1 with vtb_errmsg() saying why not. */
int vtb_upload_check_url(const char *url);

/* The sinks (vtbench list sinks). */
struct vtb_sink_info {
	const char *name, *url, *summary;
};
/* NULL-terminated; checked by vtb_sinks_check() (hooks, unique schemes). */
const struct vtb_sink_info *vtb_sink_info(size_t i);
int vtb_sinks_check(void);

/*
 * Line protocol escaping (pure; exposed for tests).  A tag value: commas,
 * equals signs and spaces escaped with a backslash; a backslash is sent as
 * it is (InfluxDB does not unescape it), except at the end or before a
 * comma, space or equals sign, where the protocol cannot carry it: '/'.
 * Control characters (newline, carriage return, tab...) become a space.
 * Either replacement sets *replaced; "" stays "" (a tag value cannot be
 * empty: a tag without a value is left out of the point).  A string field value: quotes and
 * backslashes escaped, control characters replaced the same way.  malloc'ed.
 */
char *vtb_lp_tag_value(const char *s, bool *replaced);
char *vtb_lp_field_string(const char *s, bool *replaced);
/*
 * A text field as upload carries it: at most @max bytes (at least 64).
 * A longer one is cut on a character boundary and the cut marked,
 * "PREFIX...[cut: N bytes, crc32 XXXXXXXX]" with N its length and the
 * CRC of the whole, so two long values with one prefix stay apart.  The
 * same value is always cut the same way.  NULL gives NULL; malloc'ed,
 * else NULL with vtb_error() (out of memory).  Pure; exposed for tests.
 */
char *vtb_upload_text(const char *s, size_t max);

/* Shortest decimal that reads back as @v ("%.17g" at most); false for
 * NaN and infinities (the protocol has no spelling for them). */
bool vtb_lp_float(double v, char *buf, size_t len);

/*
 * The wait (ms) before the attempt after @attempt (1-based): full jitter
 * over an exponential window of @backoff_ms doubled per attempt, at least
 * half of it; or a 429's Retry-After (@retry_after_s > 0, seconds).  Both
 * are capped (VTB_UPLOAD_MAX_DELAY_MS, VTB_UPLOAD_MAX_RETRY_AFTER_S), so
 * nothing overflows.  @u: a uniform draw in [0, 1).  Pure, for tests.
 */
long vtb_upload_retry_delay(long backoff_ms, long attempt, long long retry_after_s, double u);

#endif
