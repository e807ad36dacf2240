/* SPDX-License-Identifier: MIT */
/*
 * Record parser, harness side.  Everything the agent (or a guest) writes
 * is hostile input: the parser bounds every size and count, checks the
 * frame (magic, nonce, CRC), reassembles chunked payloads, validates each
 * record against the schema, and turns every problem into an error string
 * kept with the boot.  It never aborts and never trusts a length it read.
 */
#ifndef VTB_RECPARSE_H
#define VTB_RECPARSE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vtb_rec_limits {
	size_t max_line;    /* bytes in one line, framing included */
	size_t max_records; /* records per boot */
	size_t max_errors;  /* errors kept (further ones are counted) */
	size_t max_payload; /* bytes of one reassembled chunked payload */
	size_t max_total;   /* bytes fed per boot */
};
/* Defaults: 1 MiB + 128, 200000, 100, 64 MiB, 512 MiB. */
extern const struct vtb_rec_limits vtb_rec_default_limits;

struct vtb_rs_sample {
	char *cell, *metric, *unit;
	double value;
	int better; /* 0 lower, 1 higher */
};

struct vtb_rs_hist {
	char *cell, *metric, *unit;
	char *params_json;  /* canonical JSON object: bucket parameters */
	char *buckets_json; /* canonical JSON array */
};

struct vtb_rs_cell {
	char *cell; /* key from the "cell" record */
	char *workload;
	char *status; /* "ok" | "failed"; NULL until cell_end seen */
	char *error;  /* from cell_end or error records of this cell */
	double seconds;
	char *info_json; /* canonical JSON object, "{}" when none */
	/* the cell's "schedstat" record (a VM job's scheduler counters over
	 * the cell, docs/record-format.md), validated; NULL when none */
	json_t *schedstat;
};

struct vtb_boot_records {
	json_t *header; /* the header record, NULL if none */
	/* A VM job's guest records (issue 6 spec B), each validated, owned
	 * by the parser, NULL when absent, malformed or a duplicate (both
	 * are errors of the boot; the first valid one is kept). */
	json_t *probe;
	json_t *sched;
	json_t *view; /* the guest_view record */
	json_t *steal_before;
	json_t *steal_after;
	struct vtb_rs_cell *cells;
	size_t n_cells;
	struct vtb_rs_sample *samples;
	size_t n_samples;
	struct vtb_rs_hist *hists;
	size_t n_hists;
	char **errors; /* protocol and agent errors, in order */
	size_t n_errors;
	size_t errors_dropped; /* beyond max_errors */
	size_t noise_lines;    /* lines without the magic (console noise) */
	size_t records;	       /* valid records accepted */
	bool ended;	       /* the "end" record was seen */
	char *end_status;      /* its status */
};

struct vtb_rec_parser;

/* @nonce: the boot's nonce; records with another nonce are errors.  The
 * parser's hash tables (cells, samples) are keyed with a random secret
 * of its own (getrandom(2)): keys a guest chooses cannot collide on
 * purpose.  Returns NULL on ENOMEM or when getrandom fails (vtb_error()
 * says which). */
struct vtb_rec_parser *vtb_rec_parser_new(const char *nonce, const struct vtb_rec_limits *lim);
/* The boot's deadline (vtb_now_ns(), CLOCK_MONOTONIC; 0: none, the
 * default): once it is past, parsing stops, as at a hard limit, with the
 * error "record parsing stopped at the boot's deadline after N lines",
 * and what comes after is ignored, so a feed returns promptly however
 * costly the stream.  The clock is read every few dozen lines. */
void vtb_rec_parser_set_deadline(struct vtb_rec_parser *p, uint64_t deadline_ns);
/* Feeds bytes in any chunking.  Returns 0; -1 only on ENOMEM or when a
 * hard limit (max_total, max_records) or the deadline stops parsing
 * (error recorded). */
int vtb_rec_parser_feed(struct vtb_rec_parser *p, const void *data, size_t len);
/* End of stream: a partial last line and unfinished chunk sequences
 * become errors. */
void vtb_rec_parser_finish(struct vtb_rec_parser *p);
/* Owned by the parser. */
const struct vtb_boot_records *vtb_rec_parser_result(const struct vtb_rec_parser *p);
void vtb_rec_parser_free(struct vtb_rec_parser *p);

#endif
