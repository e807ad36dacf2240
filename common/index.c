/* SPDX-License-Identifier: MIT */
/* The index of index.h: linear probing over hashes kept in the slots, so
 * growing rehashes nothing. */
#include "index.h"

#include <stdlib.h>

#include "vtbutil.h"

static void put(struct vtb_index_slot *slots, size_t nslots, uint64_t hash, size_t item)
{
	size_t i;

	for (i = hash & (nslots - 1); slots[i].item; i = (i + 1) & (nslots - 1))
		;
	slots[i].hash = hash;
	slots[i].item = item + 1;
}

int vtb_index_add(struct vtb_index *x, const void *key, size_t len, size_t item)
{
	if (!x->nslots && vtb_sipkey_random(&x->key) < 0)
		return -1;
	if (2 * (x->n + 1) > x->nslots) {
		size_t n = x->nslots ? 2 * x->nslots : 16, i;
		struct vtb_index_slot *g = calloc(n, sizeof(*g));

		if (!g)
			return vtb_error("out of memory");
		for (i = 0; i < x->nslots; i++)
			if (x->slots[i].item)
				put(g, n, x->slots[i].hash, x->slots[i].item - 1);
		free(x->slots);
		x->slots = g;
		x->nslots = n;
	}
	put(x->slots, x->nslots, vtb_siphash(&x->key, key, len), item);
	x->n++;
	return 0;
}

bool vtb_index_next(const struct vtb_index *x, const void *key, size_t len, size_t *pos,
		    size_t *item)
{
	uint64_t hash;
	size_t i;

	if (!x->nslots)
		return false;
	hash = vtb_siphash(&x->key, key, len);
	/* *pos: the slots of the chain walked so far; at most half the
	 * slots are full, so the chain ends */
	for (i = (hash + *pos) & (x->nslots - 1); x->slots[i].item; i = (i + 1) & (x->nslots - 1)) {
		++*pos;
		if (x->slots[i].hash == hash) {
			*item = x->slots[i].item - 1;
			return true;
		}
	}
	return false;
}

void vtb_index_release(struct vtb_index *x)
{
	if (!x)
		return;
	free(x->slots);
	x->slots = NULL;
	x->nslots = x->n = 0;
}
