/* SPDX-License-Identifier: MIT */
/*
 * Record framing, writer side.  One record per line:
 *
 *   @vtb1 <nonce> <json> <crc32>\n
 *
 * <nonce> is the boot's nonce (hex, from the job; "0" by hand), <json> a
 * compact single-line JSON object, <crc32> 8 lowercase hex digits of the
 * CRC-32 of the <json> bytes.  A payload longer than VTB_REC_MAX_JSON is
 * sent as "chunk" records carrying consecutive slices of its text, which
 * the reader joins and parses as one record.  See README "Record format".
 */
#ifndef VTB_RECORD_H
#define VTB_RECORD_H

#include <jansson.h>
#include <stddef.h>

#define VTB_REC_MAGIC "@vtb1"
#define VTB_REC_SCHEMA 1
#define VTB_REC_MAX_JSON (1024 * 1024)   /* bytes of <json> in one line */
#define VTB_REC_CHUNK (256 * 1024)       /* payload bytes per chunk record */
#define VTB_REC_MAX_NONCE 64

struct vtb_rec {
	int fd;
	char nonce[VTB_REC_MAX_NONCE + 1];
	unsigned long next_chunk_id;
};

int vtb_rec_init(struct vtb_rec *r, int fd, const char *nonce);
/* Frames and writes @rec (does not steal it); chunks when too large.
 * Every line is written whole with a write() loop.  -1 on I/O error. */
int vtb_rec_write(struct vtb_rec *r, json_t *rec);
/* Builds one framed line for @json_text into a malloc'ed string. */
char *vtb_rec_frame(const char *nonce, const char *json_text);

#endif
