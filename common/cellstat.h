/* SPDX-License-Identifier: MIT */
/*
 * A cell's scheduler counters, guest side (issue 28): /proc/schedstat and
 * each CPU's steal from /proc/stat read just before and just after the
 * cell's run, and the difference as the cell's "schedstat" record
 * (docs/record-format.md).  Files live under @root as in guestview.h.
 * Nothing here fails the cell: what cannot be read becomes the record's
 * "error" or a note.
 */
#ifndef VTB_CELLSTAT_H
#define VTB_CELLSTAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedstat.h"

struct vtb_cellstat {
	struct vtb_schedstat before;
	bool have;	  /* before was read */
	char *error;	  /* why not (malloc'ed) */
	uint64_t t0;	  /* vtb_now_ns() when the first reading ended */
	uint64_t cost_ns; /* the first reading took */
	long long *steal; /* per cpu number, -1: none */
	size_t n_steal;
};

/*
 * Switches schedstats on (kernel.sched_schedstats = 1): the per-domain
 * load-balancing counters count only then.  *@was: the value before
 * (malloc'ed, NULL when there is no such file); *@note: why it could not
 * be switched on (malloc'ed) or NULL.  -1 only on ENOMEM.
 */
int vtb_cellstat_enable(const char *root, char **was, char **note);
/* Writes @was back (nothing when NULL or already the value). */
void vtb_cellstat_restore(const char *root, const char *was);

/* The first reading, just before the cell runs. */
void vtb_cellstat_begin(const char *root, struct vtb_cellstat *cs);
/*
 * The second reading and the record {"type":"schedstat","cell":@cell,
 * "seconds","version","user_hz","levels","cpus" (each with its "steal"
 * ticks when /proc/stat has it),"notes":[@note, ...],"error","cost_ns"
 * (both readings took: what collecting costs the cell)}.  New
 * reference, NULL on ENOMEM (vtb_error()).  Releases @cs.
 */
json_t *vtb_cellstat_end(const char *root, struct vtb_cellstat *cs, const char *cell,
			 const char *note);
void vtb_cellstat_release(struct vtb_cellstat *cs);

#endif
