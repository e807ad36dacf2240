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
 * the reader joins and parses as one record.  See docs/record-format.md.
 */
/*
 * Record schema v1 (docs/record-format.md copies this block).  Every
 * record is a JSON object with a "type"; KEY is a cell key (string).
 *
 *   header   {"type":"header","schema":1,"agent":VERSION,"kernel":uname -r,
 *             "cmdline":/proc/cmdline,"hostname":STR,"pid1":BOOL,
 *             "cpus":"0-1" (affinity cpulist),
 *             "cpu":{"vendor":STR,"family":INT,"model":INT,"codename":STR,
 *                    "brand":STR} | null (libcpuid failed),
 *             "boot":UUID|null,"config":KEY|null}
 *            First record of a stream, exactly once.
 *   cell     {"type":"cell","cell":KEY,"workload":NAME,"params":{OPT:TEXT,...}}
 *            Opens a cell; samples, hists and errors name an opened cell.
 *   sample   {"type":"sample","cell":KEY,"metric":"triad","unit":"MB/s",
 *             "value":NUMBER (finite),"better":"higher"|"lower"}
 *   hist     {"type":"hist","cell":KEY,"metric":STR,"unit":STR,
 *             "params":{"kind":"loglinear","bits":B,"unit":STR,...},
 *             "count":INT,"buckets":[[INDEX,COUNT],...]}   (only non-zero
 *             buckets, strictly increasing index; COUNTs add up to count;
 *             see common/hist.h)
 *   error    {"type":"error","cell":KEY|null,"message":STR}
 *   cell_end {"type":"cell_end","cell":KEY,"status":"ok"|"failed",
 *             "seconds":NUMBER,"info":{...},"error":STR (optional, failed)}
 *   end      {"type":"end","status":"ok"|"failed","cells":INT}
 *            Last record of a stream.
 *   probe, sched, guest_view, steal
 *            A VM job's guest records (docs/record-format.md; issue 6
 *            spec B): after the header, before the first cell; the
 *            second steal (phase "after") after the last cell_end.
 *   chunk    {"type":"chunk","id":N,"seq":I,"last":BOOL,"data":STR}
 *            Carries slice I (from 0) of the JSON text of one record longer
 *            than VTB_REC_MAX_JSON; slices are VTB_REC_CHUNK bytes (the
 *            last may be shorter); ids increase within a stream.  The
 *            reader joins the slices of one id and handles the result as
 *            the record it encodes.
 *
 * All JSON is written with JSON_ENSURE_ASCII, so a slice never splits a
 * UTF-8 sequence and every line is plain ASCII.
 */

#ifndef VTB_RECORD_H
#define VTB_RECORD_H

#include <jansson.h>
#include <stddef.h>

#define VTB_REC_MAGIC "@vtb1"
#define VTB_REC_SCHEMA 1
#define VTB_REC_MAX_JSON (1024 * 1024) /* bytes of <json> in one line */
#define VTB_REC_CHUNK (256 * 1024)     /* payload bytes per chunk record */
#define VTB_REC_MAX_NONCE 64
/* bytes of a sample's or a histogram's unit: the harness refuses a longer
 * one (the workloads' are at most 5: "count", "MB/s") */
#define VTB_REC_UNIT_MAX 64

struct vtb_rec {
	int fd;
	char nonce[VTB_REC_MAX_NONCE + 1];
	unsigned long next_chunk_id;
};

int vtb_rec_init(struct vtb_rec *r, int fd, const char *nonce);
/* Frames and writes @rec (does not steal it); chunks when too large.
 * Every line is written whole with a write() loop.  -1 on I/O error. */
int vtb_rec_write(struct vtb_rec *r, json_t *rec);
/* Builds one framed line for @json_text into a malloc'ed string,
 * trailing newline included; NULL on ENOMEM. */
char *vtb_rec_frame(const char *nonce, const char *json_text);

/* Writes @len raw bytes to the record fd with a write() loop (EINTR and
 * partial writes handled); used for whole frames and by test workloads
 * that inject noise.  -1 with vtb_error() on I/O error. */
int vtb_rec_write_raw(struct vtb_rec *r, const void *buf, size_t len);

#endif
