/* SPDX-License-Identifier: MIT */
/*
 * Log-linear histogram: see hist.h for the bucket layout.  Indexing is a
 * count-leading-zeros and a shift, so adding a value costs a few cycles
 * and can sit inside latency loops.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "vtbutil.h"

size_t vtb_hist_n_buckets(unsigned bits)
{
	return (size_t)(65 - bits) << bits;
}

size_t vtb_hist_index(unsigned bits, uint64_t v)
{
	unsigned msb, g;

	if (v < (UINT64_C(2) << bits))
		return (size_t)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	g = msb - bits;
	return ((size_t)g << bits) + (size_t)(v >> g);
}

uint64_t vtb_hist_bucket_lo(unsigned bits, size_t idx)
{
	size_t s = (size_t)1 << bits;
	unsigned g;

	if (idx < 2 * s)
		return idx;
	g = (unsigned)(idx >> bits) - 1;
	return (uint64_t)(s + (idx & (s - 1))) << g;
}

uint64_t vtb_hist_bucket_width(unsigned bits, size_t idx)
{
	if (idx < ((size_t)2 << bits))
		return 1;
	return UINT64_C(1) << ((idx >> bits) - 1);
}

int vtb_hist_init(struct vtb_hist *h, unsigned bits, const char *unit)
{
	memset(h, 0, sizeof(*h));
	if (bits < 1 || bits > VTB_HIST_BITS_MAX)
		return vtb_error("histogram bits %u out of range 1-%d", bits, VTB_HIST_BITS_MAX);
	h->bits = bits;
	h->n_buckets = vtb_hist_n_buckets(bits);
	h->buckets = calloc(h->n_buckets, sizeof(*h->buckets));
	h->unit = vtb_strdup(unit ? unit : "");
	if (!h->buckets || !h->unit) {
		vtb_hist_release(h);
		return vtb_error("out of memory allocating a histogram");
	}
	return 0;
}

void vtb_hist_release(struct vtb_hist *h)
{
	if (!h)
		return;
	free(h->buckets);
	free(h->unit);
	memset(h, 0, sizeof(*h));
}

void vtb_hist_add(struct vtb_hist *h, uint64_t v)
{
	h->buckets[vtb_hist_index(h->bits, v)]++;
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (h->count == 0 || v > h->max)
		h->max = v;
	h->count++;
	h->sum += (double)v;
}

int vtb_hist_merge(struct vtb_hist *dst, const struct vtb_hist *src)
{
	size_t i;

	if (dst->bits != src->bits || strcmp(dst->unit, src->unit) != 0)
		return vtb_error("cannot merge histograms of %u bits '%s' and %u bits '%s'",
				 dst->bits, dst->unit, src->bits, src->unit);
	if (src->count == 0)
		return 0;
	for (i = 0; i < dst->n_buckets; i++)
		dst->buckets[i] += src->buckets[i];
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (dst->count == 0 || src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	return 0;
}

uint64_t vtb_hist_percentile(const struct vtb_hist *h, double p)
{
	uint64_t rank, cum = 0;
	size_t i;

	if (h->count == 0)
		return 0;
	if (!(p > 0))
		return h->min;
	if (p >= 100)
		return h->max;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (i = 0; i < h->n_buckets; i++) {
		cum += h->buckets[i];
		if (cum >= rank) {
			uint64_t w = vtb_hist_bucket_width(h->bits, i);
			uint64_t v = vtb_hist_bucket_lo(h->bits, i) + (w - 1) / 2;

			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

double vtb_hist_mean(const struct vtb_hist *h)
{
	return h->count ? h->sum / (double)h->count : 0.0;
}

json_t *vtb_hist_params_json(const struct vtb_hist *h)
{
	return json_pack("{s:s, s:i, s:s}", "kind", "loglinear", "bits", (int)h->bits, "unit",
			 h->unit);
}

json_t *vtb_hist_buckets_json(const struct vtb_hist *h)
{
	json_t *arr = json_array();
	size_t i;

	if (!arr)
		return NULL;
	for (i = 0; i < h->n_buckets; i++) {
		json_t *pair;

		if (!h->buckets[i])
			continue;
		pair = json_pack("[I, I]", (json_int_t)i, (json_int_t)h->buckets[i]);
		if (!pair || json_array_append_new(arr, pair)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

int vtb_hist_from_json(struct vtb_hist *h, json_t *params, json_t *buckets)
{
	const char *kind = NULL, *unit = NULL;
	json_int_t bits = 0;
	json_t *pair;
	size_t i;

	memset(h, 0, sizeof(*h));
	if (json_unpack(params, "{s:s, s:I, s:s}", "kind", &kind, "bits", &bits, "unit", &unit) ||
	    strcmp(kind, "loglinear") != 0)
		return vtb_error("histogram parameters are not a loglinear description");
	if (bits < 1 || bits > VTB_HIST_BITS_MAX)
		return vtb_error("histogram bits %lld out of range 1-%d", (long long)bits,
				 VTB_HIST_BITS_MAX);
	if (!json_is_array(buckets))
		return vtb_error("histogram buckets are not an array");
	if (vtb_hist_init(h, (unsigned)bits, unit))
		return -1;
	json_array_foreach(buckets, i, pair)
	{
		json_int_t idx, cnt;
		uint64_t lo, hi;

		if (json_unpack(pair, "[I, I]", &idx, &cnt) || idx < 0 ||
		    (size_t)idx >= h->n_buckets || cnt < 0) {
			vtb_hist_release(h);
			return vtb_error("histogram bucket %zu is not a valid [index, count] pair",
					 i);
		}
		if (cnt == 0)
			continue;
		if (__builtin_add_overflow(h->count, (uint64_t)cnt, &h->count) ||
		    h->count > (uint64_t)INT64_MAX) {
			vtb_hist_release(h);
			return vtb_error("histogram counts add up to more than 2^63 - 1");
		}
		h->buckets[idx] += (uint64_t)cnt;
		lo = vtb_hist_bucket_lo(h->bits, (size_t)idx);
		hi = lo + (vtb_hist_bucket_width(h->bits, (size_t)idx) - 1);
		if (h->count == (uint64_t)cnt || lo < h->min)
			h->min = lo;
		if (h->count == (uint64_t)cnt || hi > h->max)
			h->max = hi;
		h->sum += (double)cnt * ((double)lo + (double)(hi - lo) / 2);
	}
	return 0;
}
