/* SPDX-License-Identifier: MIT */
/*
 * Host state snapshot: the settings that decide guest-vs-host results
 * (frequency governor and boost, cpuidle, THP, KSM, numa_balancing, SMT,
 * mitigations, microcode, kernel, cmdline, isolcpus, nohz_full), read by
 * vtbench itself from procfs/sysfs under a root directory (tests use a
 * fake tree).  And a busy check of the CPUs a boot will use.
 */
#ifndef VTB_HOSTSTATE_H
#define VTB_HOSTSTATE_H

#include <jansson.h>

#include "../../common/vtbutil.h"

/* Snapshot as a JSON object (caller owns).  @root is "/" normally.
 * Missing files become null values, never errors. */
json_t *vtb_hoststate_snapshot(const char *root);

/* Human-readable differences between two snapshots, one per line
 * (joined with '\n', no final newline), keys sorted, nested keys joined
 * with dots ("thp.enabled: always -> never"); strings bare, other values as JSON,
 * "(absent)" for a missing key.  NULL when equal.  malloc'ed. */
char *vtb_hoststate_diff(const json_t *before, const json_t *after);

/* Samples /proc/stat under @root twice @interval_ms apart and reports,
 * for CPUs in @cpus busier than @threshold (0..1), one line each into a
 * malloc'ed string ("cpu1 37% busy"); *out NULL when all idle. */
int vtb_hoststate_busy(const char *root, const struct vtb_cpuset *cpus, int interval_ms,
		       double threshold, char **out);
/* The same on two /proc/stat texts (pure, for tests).  @cpus NULL: every
 * CPU.  Lines are joined with '\n' (no final newline); a CPU of @cpus
 * missing from either text reads "cpuN offline".  -1 on a malformed cpuN line or ENOMEM. */
int vtb_hoststate_busy_from(const char *stat_before, const char *stat_after,
			    const struct vtb_cpuset *cpus, double threshold, char **out);

#endif
