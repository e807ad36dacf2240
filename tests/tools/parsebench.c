/* SPDX-License-Identifier: MIT */
/*
 * parsebench [-n CELLS] [-r REPS]: the record parser's time on a stream
 * whose cell keys all collided in its former unkeyed FNV-1a tables,
 * against the same stream with random keys (issue 25, item 5; for
 * scripts/bench-parser.sh).  A figure, never an assertion: the goal is
 * colliding within 2x of random.
 *
 * The stream is what a guest writes: "@vtb1 <nonce> <json> <crc32>"
 * lines (vtb_rec_frame(), JSON as the agent dumps it), a header, then per
 * key a cell record and a sample of metric "m" (so both the cell table
 * and the (cell, metric) table see every key), then the end record; fed
 * to vtb_rec_parser_feed() in 64 KiB pieces as a console stream delivers
 * it, with the parser's real random key.  The keys collide in their low
 * B bits, B such that 2^B slots hold the tables at their final size: one
 * probe chain under FNV-1a.  Each rep times both, in turn first
 * (streams built beforehand; parser creation, feed and finish timed);
 * the medians are printed.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/record.h"
#include "../../common/vtbutil.h"
#include "../../harness/records/recparse.h"
#include "fnvkeys.h"

#define NONCE "c0ffee"
#define PIECE (64 * 1024)
#define MAX_REPS 99

static int add_rec(struct vtb_strbuf *sb, json_t *o)
{
	char *text = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII), *line;
	int ret;

	json_decref(o);
	line = text ? vtb_rec_frame(NONCE, text) : NULL;
	free(text);
	if (!line)
		return -1;
	ret = vtb_strbuf_addstr(sb, line);
	free(line);
	return ret;
}

/* The framed stream for @keys[0..n), or NULL. */
static char *make_stream(char **keys, size_t n, size_t *len)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int bad;

	bad = add_rec(&sb, json_pack("{s:s, s:i, s:s}", "type", "header", "schema", VTB_REC_SCHEMA,
				     "agent", "parsebench"));
	for (size_t i = 0; i < n && !bad; i++) {
		bad = add_rec(&sb, json_pack("{s:s, s:s, s:s, s:{}}", "type", "cell", "cell",
					     keys[i], "workload", "debug", "params"));
		bad = bad ||
		      add_rec(&sb, json_pack("{s:s, s:s, s:s, s:s, s:f, s:s}", "type", "sample",
					     "cell", keys[i], "metric", "m", "unit", "s", "value",
					     (double)i, "better", "lower"));
	}
	bad = bad || add_rec(&sb, json_pack("{s:s, s:s, s:I}", "type", "end", "status", "ok",
					    "cells", (json_int_t)n));
	if (bad) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	*len = sb.len;
	return vtb_strbuf_detach(&sb);
}

/* Seconds to parse @s; -1 when the parser did not take every record. */
static double parse_once(const char *s, size_t len, size_t n)
{
	const struct vtb_boot_records *r;
	struct vtb_rec_parser *p;
	uint64_t t0 = vtb_now_ns(), t1;
	bool ok;

	p = vtb_rec_parser_new(NONCE, NULL);
	if (!p)
		return -1;
	for (size_t off = 0; off < len; off += PIECE)
		vtb_rec_parser_feed(p, s + off, len - off < PIECE ? len - off : PIECE);
	vtb_rec_parser_finish(p);
	t1 = vtb_now_ns();
	r = vtb_rec_parser_result(p);
	ok = r->n_cells == n && r->n_samples == n && !r->n_errors && r->ended;
	if (!ok)
		fprintf(stderr, "parsebench: %zu cells, %zu samples, %zu errors%s%s\n", r->n_cells,
			r->n_samples, r->n_errors, r->n_errors ? ", first: " : "",
			r->n_errors ? r->errors[0] : "");
	vtb_rec_parser_free(p);
	return ok ? (double)(t1 - t0) / 1e9 : -1;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	double t_rand[MAX_REPS], t_coll[MAX_REPS], mr, mc;
	char **coll, **rnd, *s_coll, *s_rnd;
	size_t n = 80000, l_coll = 0, l_rnd = 0;
	unsigned bits = 8;
	int reps = 3, opt;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		default:
			n = 0;
		}
	}
	if (n < 1 || n > 99999 || reps < 1 || reps > MAX_REPS || optind != argc) {
		fprintf(stderr,
			"usage: parsebench [-n CELLS (1-99999, default 80000)] [-r REPS (1-%d, default 3)]\n",
			MAX_REPS);
		return 2;
	}
	/* the tables keep at most half their slots full */
	while ((UINT64_C(1) << bits) < 2 * (uint64_t)n)
		bits++;
	coll = fnv_colliding_keys(n, bits);
	rnd = fnv_random_keys(n, UINT64_C(0x9e3779b97f4a7c15));
	s_coll = coll ? make_stream(coll, n, &l_coll) : NULL;
	s_rnd = rnd ? make_stream(rnd, n, &l_rnd) : NULL;
	if (!s_coll || !s_rnd) {
		fprintf(stderr, "parsebench: out of memory\n");
		return 3;
	}
	printf("== record parser: %zu cells and %zu samples (%.1f MB of records), keys colliding in the low %u bits of FNV-1a vs random keys (goal: within 2x)\n",
	       n, n, (double)l_coll / 1e6, bits);
	fflush(stdout);
	/* interleaved, each first in every other rep: neither gains from
	 * the heap the other grew */
	for (int i = 0; i < reps; i++) {
		if (i % 2) {
			t_coll[i] = parse_once(s_coll, l_coll, n);
			t_rand[i] = parse_once(s_rnd, l_rnd, n);
		} else {
			t_rand[i] = parse_once(s_rnd, l_rnd, n);
			t_coll[i] = parse_once(s_coll, l_coll, n);
		}
		if (t_rand[i] < 0 || t_coll[i] < 0)
			return 3;
	}
	mr = median(t_rand, reps);
	mc = median(t_coll, reps);
	printf("  random keys:    %8.3f s (median of %d)\n", mr, reps);
	printf("  colliding keys: %8.3f s (median of %d)\n", mc, reps);
	printf("  ratio colliding/random: %.2fx: %s\n", mc / mr,
	       mc <= 2 * mr ? "within the 2x goal" : "OVER the 2x goal");
	free(s_coll);
	free(s_rnd);
	free(coll);
	free(rnd);
	return 0;
}
