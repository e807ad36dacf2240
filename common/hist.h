/* SPDX-License-Identifier: MIT */
/*
 * Log-linear latency histogram (fio and schbench style).  Values are
 * unsigned integers in one unit (ns or us).  With B bits (S = 2^B):
 * values below 2S have a bucket each (exact); above, every power-of-two
 * range [2^m, 2^(m+1)) is split into S equal buckets, so a bucket's width
 * is at most 1/S of its values: bounded relative error (1.6% for B=6)
 * with fixed memory ((65 - B) * S counters) over the whole uint64 range.
 *
 * Bucket index of v:  v < 2S:  v
 *                     else:    g * S + (v >> g),  g = floor(log2 v) - B
 * A bucket's representative value is the middle of its range, clamped to
 * the minimum and maximum seen.  hist records carry
 * {"kind":"loglinear","bits":B,"unit":U} as params and the sparse
 * [[index,count],...] list, so a reader can rebuild the histogram.
 */
#ifndef VTB_HIST_H
#define VTB_HIST_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define VTB_HIST_BITS_DEFAULT 6
#define VTB_HIST_BITS_MAX 16

struct vtb_hist {
	unsigned bits;
	char *unit;	   /* owned */
	uint64_t *buckets; /* owned, n_buckets counters */
	size_t n_buckets;
	uint64_t count;
	uint64_t min, max; /* valid when count > 0 */
	double sum;	   /* for the mean; double so it cannot overflow */
};

/* @bits in 1..VTB_HIST_BITS_MAX; @unit e.g. "us".  -1 with vtb_error(). */
int vtb_hist_init(struct vtb_hist *h, unsigned bits, const char *unit);
void vtb_hist_release(struct vtb_hist *h);
/* Cannot fail: memory is fixed at init. */
void vtb_hist_add(struct vtb_hist *h, uint64_t v);
/* Adds @src into @dst; both must have the same bits and unit. */
int vtb_hist_merge(struct vtb_hist *dst, const struct vtb_hist *src);
/* Value at percentile @p (0..100]: the representative value of the bucket
 * holding the ceil(p/100 * count)-th smallest value.  0 when empty. */
uint64_t vtb_hist_percentile(const struct vtb_hist *h, double p);
double vtb_hist_mean(const struct vtb_hist *h);

/* Bucket arithmetic, exposed for readers and tests. */
size_t vtb_hist_n_buckets(unsigned bits);
size_t vtb_hist_index(unsigned bits, uint64_t v);
uint64_t vtb_hist_bucket_lo(unsigned bits, size_t idx);
/* Number of values in the bucket (1 for exact ones). */
uint64_t vtb_hist_bucket_width(unsigned bits, size_t idx);

/* New references: {"kind":"loglinear","bits":B,"unit":U} and the sparse
 * [[index,count],...] array.  NULL on ENOMEM. */
json_t *vtb_hist_params_json(const struct vtb_hist *h);
json_t *vtb_hist_buckets_json(const struct vtb_hist *h);
/* Rebuilds a histogram from the two JSON values above (reader side);
 * -1 with vtb_error() when they are malformed. */
int vtb_hist_from_json(struct vtb_hist *h, json_t *params, json_t *buckets);

#endif
