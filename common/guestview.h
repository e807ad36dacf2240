/* SPDX-License-Identifier: MIT */
/*
 * What a guest kernel offers and what it built: the probe, guest_view
 * and steal records of a VM job (record schema: common/record.h,
 * issue 6 spec B).  Everything is read under @root, a path prefix: ""
 * or NULL is the real system, a directory is a fake tree holding
 * sys/... and proc/... (tests/fixtures/guestview/).  A missing or
 * unreadable file is JSON null, never an error: only running out of
 * memory fails.  Counts are bounded (VTB_GV_MAX_*): a tree claiming more
 * is cut at the bound.
 */
#ifndef VTB_GUESTVIEW_H
#define VTB_GUESTVIEW_H

#include <jansson.h>
#include <stdbool.h>

#define VTB_GV_MAX_CPUS 8192
#define VTB_GV_MAX_NODES 1024
#define VTB_GV_MAX_LEVELS 64
#define VTB_GV_MAX_CACHES 64
#define VTB_GV_MAX_NAMES 1024 /* entries of one directory listing */
/* sysctl names the probe lists per /proc/sys directory, and their bytes:
 * about 120 and 2 KB in kernel/, 50 and 1 KB in vm/ on 6.x kernels */
#define VTB_GV_MAX_SYSCTLS 512
#define VTB_GV_MAX_SYSCTL_BYTES (16 * 1024)

#define VTB_GV_SCHED_DIR "/sys/kernel/debug/sched"
#define VTB_GV_CGROUP_DIR "/sys/fs/cgroup"

/*
 * The probe record ({"type":"probe",...}).  With @set_verbose, a
 * sched/verbose reading "N" is set to "Y" first so that sched/domains
 * exists (kernels about 6.4+ hide it otherwise): "verbose" keeps the
 * value read before, "verbose_set" says the agent wrote it.  "sysctls":
 * {"kernel": [...], "vm": [...]} lists the files directly under
 * /proc/sys/kernel and /proc/sys/vm (null: missing, or over the
 * VTB_GV_MAX_SYSCTL* bounds).  Returns a new reference, NULL on ENOMEM
 * (vtb_error()).
 */
json_t *vtb_gv_probe(const char *root, bool set_verbose);

/*
 * Writes "Y" to sched/verbose when it reads "N".  *@was gets the value
 * read (malloc'ed, NULL when absent), *@set whether Y was written.
 * -1 with vtb_error() when the write fails; 0 otherwise (also when
 * there is no such file).  Either pointer may be NULL.
 */
int vtb_gv_ensure_verbose(const char *root, char **was, bool *set);

/*
 * The guest_view record: per possible CPU its sysfs topology and caches,
 * NUMA nodes, the debugfs sched-domain tree, /proc/schedstat domain
 * lines and (with @cpuid, when the CPU has the instruction) libcpuid's
 * identification.  New reference, NULL on ENOMEM.
 */
json_t *vtb_gv_view(const char *root, bool cpuid);

/* The steal record of @phase ("before"/"after") from /proc/stat: the
 * 8th value of the aggregate "cpu" line and of each "cpuN" line.  New
 * reference, NULL on ENOMEM. */
json_t *vtb_gv_steal(const char *root, const char *phase);
/* The steal ticks of a /proc/stat cpu line: the 8th value of @rest, the
 * line after its label (tokenised in place); -1 when it has fewer. */
long long vtb_gv_steal_of(char *rest);

/* Domain level names: DIE (before 6.7) and PKG (after) are one level. */
bool vtb_gv_level_match(const char *want, const char *name);

/*
 * Small file access under @root for lib/schedprof.c.  vtb_gv_path()
 * returns malloc'ed ROOT + formatted path (NULL on ENOMEM);
 * vtb_gv_read() the file's contents with trailing whitespace trimmed
 * (malloc'ed; NULL when absent, unreadable or over 64 KiB).
 */
char *vtb_gv_path(const char *root, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *vtb_gv_read(const char *path);
/* Writes @value to ROOT/@rel with a write() loop (in a fake tree the file
 * is truncated first, as a regular file needs): 0, or an errno. */
int vtb_gv_write(const char *root, const char *rel, const char *value);

/* Sorted names in directory @path: regular files (@dirs false) or
 * directories (@dirs true), symlinks followed.  An empty array when the
 * directory is missing; NULL on ENOMEM. */
json_t *vtb_gv_list(const char *path, bool dirs);

#endif
