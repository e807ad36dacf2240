/* SPDX-License-Identifier: MIT */
/*
 * The guest's view of its topology against the plan (docs/guest-runs.md "Guest view
 * and plan").  Pure (jansson only): the guest_view record comes from
 * recparse, the plan from plan.c.
 *
 * The normalised tree keeps what decides scheduling and drops what does
 * not compare across boots: per online CPU (ascending) its sched-domain
 * levels in order, each {"name" (DIE written PKG), "flags" (sorted array
 * of names, or null), "span" (cpulist from /proc/schedstat's mask of the
 * same domain index, or null)}, "thread_siblings", "llc" (the shared list
 * of the highest-level Unified or Data cache) and "node".  Names come
 * from the guest: a level name that is not [A-Za-z0-9_]{1,32}, or a flag
 * name not [A-Z0-9_]{1,32}, is "?".  Every cpulist is limited to online
 * CPUs; knob values are left out.  "levels" is null
 * when the guest gave no domain source at all (no debugfs domains and no
 * schedstat), [] when it has none (one CPU).
 *
 * The expectation follows the guest kernel (x86, 6.1 to 6.7+): vCPUs
 * are numbered threads fastest, then cores, dies, sockets; candidate
 * spans SMT = the core's threads (in its cell), MC = the die (QEMU's
 * L3, the LLC mask), PKG (DIE before 6.7) = cpu_cpu_mask(), which is the
 * CPU's node, then one NUMA level per larger distance of the cells'
 * table; a level spanning one CPU or the span of the level kept below it
 * is degenerate and dropped.  A virtual die or socket that spans cells
 * makes the kernel rebuild its levels (NUMA in package, LLC split per
 * node): then the levels are "unknown" and not checked.
 */
#ifndef VTB_GUESTVIEW_H
#define VTB_GUESTVIEW_H

#include <jansson.h>

#include "../plan/plan.h"

#define VTB_GV_MAX_CPUS 8192 /* guest CPU ids are below this */
#define VTB_GV_MAX_LEVELS 64
#define VTB_GV_MAX_CACHES 64
#define VTB_GV_MAX_NODES 1024
#define VTB_GV_DIFF_LINES 8 /* CPUs shown in a diff */

/*
 * The normalised tree of a guest_view record @view, and when @digest is
 * not NULL the SHA-256 (hex) of its compact sorted-keys JSON text.  New
 * reference, or NULL with vtb_error() for a malformed view (wrong types,
 * a CPU id out of range or listed twice, a bad cpulist or mask).
 */
json_t *vtb_gv_normalise(const json_t *view, char digest[65]);

/* The distinct level names of a tree, innermost first ("SMT MC PKG";
 * "" when none), malloc'ed; NULL on ENOMEM. */
char *vtb_gv_levels(const json_t *tree);

/*
 * What VM @vm of @plan must show: {"vm", "levels": "SMT MC" or "unknown",
 * "why_unknown" (when unknown), "cpus": [{"cpu", "thread_siblings",
 * "llc", "node", "levels": [{"name","span"}] or "unknown"}]}.  New
 * reference, or NULL with vtb_error().
 */
json_t *vtb_gv_expect(const struct vtb_plan *plan, int vm);

/*
 * Checks @view against VM @vm of @plan: 0 when they match, 1 when not
 * (*diff: malloc'ed, one line (it goes into one-line warnings): the
 * first VTB_GV_DIFF_LINES differing CPUs joined with "; ", e.g. "cpu0:
 * levels MC, plan SMT; cpu1: thread_siblings 1, plan 0-1; levels MC, plan
 * SMT", then "; (and N more CPUs differ)"), -1 with vtb_error() for a
 * malformed view.  Fields the guest did not report (null) and unknown
 * levels are not checked.
 */
int vtb_gv_check(const struct vtb_plan *plan, int vm, const json_t *view, char **diff);

#endif
