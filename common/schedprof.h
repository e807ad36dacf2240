/* SPDX-License-Identifier: MIT */
/*
 * Applies a VM job's "sched" object (issue 6 spec A) inside the guest
 * and reads every value back: cpuset partition, sysctl, debugfs
 * top-level knobs, then per-domain knobs (after the partition, which
 * rebuilds the domains).  Files live under @root like lib/guestview.h
 * ("" or NULL is the real system, else a fake tree; in a fake tree a
 * file is truncated before it is written, as a regular file needs).
 */
#ifndef VTB_SCHEDPROF_H
#define VTB_SCHEDPROF_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define VTB_SCHED_PART_CGROUP "vtb-part" /* child of the cgroup2 root */

struct vtb_sched_result {
	json_t *record; /* {"type":"sched",...}; owned, released below */
	char **errors;	/* "sched profile 'NAME': KEY: ..." messages, in order */
	size_t n_errors;
	bool ok; /* every setting applied and read back, every token present */
};

/*
 * Applies @sched, naming @release (uname -r) in error messages.  Every
 * failure (an invalid sched object included) becomes a message in
 * @out->errors and a false "ok"; the caller writes them as error
 * records and rejects the job's cells.  Returns 0, or -1 with
 * vtb_error() on ENOMEM only (@out is then released).
 */
int vtb_sched_apply(const char *root, json_t *sched, const char *release,
		    struct vtb_sched_result *out);
void vtb_sched_result_release(struct vtb_sched_result *r);

#endif
