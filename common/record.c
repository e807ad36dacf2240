/* SPDX-License-Identifier: MIT */
/*
 * Record writer: frames JSON records as "@vtb1 <nonce> <json> <crc32>"
 * lines and splits oversized payloads into chunk records.  Lines are
 * written whole so a reader on a serial port or a pipe sees either the
 * complete frame or a truncated one it can reject.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "vtbutil.h"

#define REC_DUMP_FLAGS (JSON_COMPACT | JSON_ENSURE_ASCII)

static bool nonce_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > VTB_REC_MAX_NONCE)
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

int vtb_rec_init(struct vtb_rec *r, int fd, const char *nonce)
{
	if (!nonce)
		nonce = "0";
	if (!nonce_ok(nonce))
		return vtb_error("invalid record nonce '%s': expected 1 to %d hex digits", nonce,
				 VTB_REC_MAX_NONCE);
	r->fd = fd;
	strcpy(r->nonce, nonce);
	r->next_chunk_id = 1;
	return 0;
}

char *vtb_rec_frame(const char *nonce, const char *json_text)
{
	uint32_t crc = vtb_crc32(json_text, strlen(json_text));

	return vtb_asprintf("%s %s %s %08x\n", VTB_REC_MAGIC, nonce, json_text, (unsigned)crc);
}

int vtb_rec_write_raw(struct vtb_rec *r, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(r->fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return vtb_error("cannot write records: %s", strerror(errno));
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_text(struct vtb_rec *r, const char *text)
{
	char *line = vtb_rec_frame(r->nonce, text);
	int ret;

	if (!line)
		return vtb_error("out of memory framing a record");
	ret = vtb_rec_write_raw(r, line, strlen(line));
	free(line);
	return ret;
}

/* The slices are cut from ASCII text (JSON_ENSURE_ASCII), so any byte
 * boundary is a character boundary. */
static int write_chunked(struct vtb_rec *r, const char *text, size_t len)
{
	unsigned long id = r->next_chunk_id++;
	size_t off, seq = 0;
	int ret = 0;

	for (off = 0; off < len; off += VTB_REC_CHUNK, seq++) {
		size_t n = len - off < VTB_REC_CHUNK ? len - off : VTB_REC_CHUNK;
		bool last = off + n == len;
		json_t *c;
		char *ctext;

		c = json_pack("{s:s, s:I, s:I, s:b, s:s%}", "type", "chunk", "id", (json_int_t)id,
			      "seq", (json_int_t)seq, "last", last, "data", text + off, n);
		if (!c)
			return vtb_error("out of memory building a chunk record");
		ctext = json_dumps(c, REC_DUMP_FLAGS);
		json_decref(c);
		if (!ctext)
			return vtb_error("out of memory building a chunk record");
		ret = write_text(r, ctext);
		free(ctext);
		if (ret)
			return ret;
	}
	return ret;
}

int vtb_rec_write(struct vtb_rec *r, json_t *rec)
{
	char *text;
	size_t len;
	int ret;

	text = json_dumps(rec, REC_DUMP_FLAGS);
	if (!text)
		return vtb_error("cannot serialise record (out of memory or not an object)");
	len = strlen(text);
	if (len > VTB_REC_MAX_JSON)
		ret = write_chunked(r, text, len);
	else
		ret = write_text(r, text);
	free(text);
	return ret;
}
