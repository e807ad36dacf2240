/* SPDX-License-Identifier: MIT */
/*
 * What the agent reads about the CPUs it runs on: last-level cache sizes
 * from sysfs (else CPUID), the memory /proc/meminfo offers and the
 * process's CPU affinity.  @root parameters let unit
 * tests point at a fake tree (tests/fixtures/).
 */
#ifndef VTB_SYSFS_H
#define VTB_SYSFS_H

#include <stdbool.h>
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

/*
 * The same sum from CPUID (libcpuid), for kernels that expose no cache
 * directories in sysfs: the calling thread visits each CPU of @cpus
 * (its affinity is restored after), reads the size of the highest cache
 * level and, from CPUID leaf 4 (Intel) or 0x8000001D (AMD), how many
 * logical CPUs share it, which with the APIC id names the instance.
 * Where CPUID gives no sharing (some virtual CPUs), every CPU counts its
 * own instance: an upper bound, so arrays sized from it stay >= 4 x LLC;
 * *@guessed is then set.  -1 with vtb_error() when CPUID gives no cache
 * size.
 */
int vtb_cpuid_llc_bytes(const struct vtb_cpuset *cpus, uint64_t *out, bool *guessed);

/*
 * MemTotal and MemAvailable of ROOT/meminfo (@root NULL: /proc), in
 * bytes; either pointer may be NULL.  -1 with vtb_error() ("cannot check
 * available memory: ...") when the file or a field is missing.
 */
int vtb_meminfo(const char *root, uint64_t *total, uint64_t *available);

/* The calling thread's CPU affinity (sched_getaffinity) into @out, which
 * the caller releases with vtb_cpuset_release().  -1 with vtb_error(). */
int vtb_affinity_cpuset(struct vtb_cpuset *out);

#endif
