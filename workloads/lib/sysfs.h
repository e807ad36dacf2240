/* SPDX-License-Identifier: MIT */
/*
 * What the agent reads about the CPUs it runs on: last-level cache sizes
 * from sysfs and the process's CPU affinity.  @root parameters let unit
 * tests point at a fake tree (tests/fixtures/).
 */
#ifndef VTB_SYSFS_H
#define VTB_SYSFS_H

#include <stdint.h>

#include "vtbutil.h"

#define VTB_SYSFS_CPU_ROOT "/sys/devices/system/cpu"

/*
 * LLC bytes covering @cpus: for each CPU, the highest cache level listed
 * under ROOT/cpuN/cache/index* (instruction caches ignored); instances
 * shared by several CPUs (same level and shared_cpu_list) count once;
 * the result is the sum of the distinct instances' sizes.  @root NULL
 * means VTB_SYSFS_CPU_ROOT.  -1 with vtb_error() when a CPU has no cache
 * information or a file is malformed.
 */
int vtb_sysfs_llc_bytes(const char *root, const struct vtb_cpuset *cpus, uint64_t *out);

/* The calling thread's CPU affinity (sched_getaffinity) into @out, which
 * the caller releases with vtb_cpuset_release().  -1 with vtb_error(). */
int vtb_affinity_cpuset(struct vtb_cpuset *out);

#endif
