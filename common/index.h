/* SPDX-License-Identifier: MIT */
/*
 * An index over an array the caller owns, so that finding an element by
 * its contents takes constant time where a scan, or a sort per look-up,
 * made large matrices quadratic (issue 25).  Open addressing, at most
 * half full; each slot keeps an element's hash and its position in the
 * array (the array may move as it grows).  The caller gives each
 * element's key bytes and compares the elements vtb_index_next() walks:
 * those added with the same key, and rarely others whose hash matched.
 *
 * Keys are hashed with SipHash under a secret drawn when the first
 * element is added (siphash.h): the keys come from matrix text, and an
 * unkeyed hash would let a file choose keys that share one probe chain.
 */
#ifndef VTB_INDEX_H
#define VTB_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "siphash.h"

struct vtb_index_slot {
	uint64_t hash;
	size_t item; /* position + 1; 0: empty */
};

/* Zero-initialise (VTB_INDEX_INIT); vtb_index_release() frees it. */
struct vtb_index {
	struct vtb_index_slot *slots;
	size_t nslots, n;
	struct vtb_sipkey key;
};
#define VTB_INDEX_INIT \
	{              \
		0      \
	}

/* Adds the element at position @item whose key is @len bytes at @key.
 * -1 with vtb_error() when out of memory or without random bytes. */
int vtb_index_add(struct vtb_index *x, const void *key, size_t len, size_t item);
/* The next element added with the key @key (@len bytes), or one whose
 * hash matched: *@pos starts at 0.  False when there is no more. */
bool vtb_index_next(const struct vtb_index *x, const void *key, size_t len, size_t *pos,
		    size_t *item);
void vtb_index_release(struct vtb_index *x);

#endif
