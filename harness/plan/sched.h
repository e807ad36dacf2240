/* SPDX-License-Identifier: MIT */
/*
 * Guest scheduler profiles ([sched NAME], docs/guest-runs.md "Sched profiles") on the
 * harness side: what a VM configuration's job carries to the agent (the
 * "sched" object of the job) and what its guest kernel command line
 * gains.  Pure: reads the configuration's params, where conf.c keeps a
 * profile's keys as "sched.KEY" (validated at matrix load).
 */
#ifndef VTB_SCHED_H
#define VTB_SCHED_H

#include <jansson.h>
#include <stdbool.h>

#include "../matrix/conf.h"

/* Whether @c's profile has any setting (an empty profile, like the
 * built-in default, changes nothing in the guest). */
bool vtb_sched_has_settings(const struct vtb_config *c);

/*
 * The job's "sched" object of @c: {"name", "cmdline", "sysctl": {NAME:
 * VALUE}, "debugfs": {PATH: VALUE}, "cpuset_partition": CPULIST}, members
 * absent when not set; the cpulist normalised.  NULL when the profile
 * has no settings (and for baselines), or with vtb_error() on ENOMEM or
 * a value that is not UTF-8 (tell them apart with
 * vtb_sched_has_settings()).  New reference for the caller.
 */
json_t *vtb_sched_job(const struct vtb_config *c);

/* The profile's kernel parameters for the guest command line (a pointer
 * into @c's params), or NULL. */
const char *vtb_sched_cmdline(const struct vtb_config *c);

/*
 * The harness's own check of what the guest reported for @c's profile,
 * so that an old or lying agent cannot make a profile silently not
 * apply.  Nothing is required when the profile has no settings.  Else
 * @sched (the boot's sched record, NULL when absent) must name the
 * profile and say "ok": true; every setting of the job (vtb_sched_job())
 * must be among its "settings" (every entry of that key, one per CPU for
 * a domains/LEVEL/ key) with ok true, want the job's value and read equal
 * to want (sysctl values with runs of whitespace collapsed, as the agent
 * compares them); cpuset.partition needs its cpuset.cpus entry (the
 * job's CPUs, read back as the same set) and cpuset.cpus.partition entry
 * (read "root"), every entry ok; every cmdline token must be "present".
 * Every top-level debugfs knob must be in @probe's "knobs", every
 * per-domain KNOB in its "domain_knobs".
 *
 * 0: fine; 1: not confirmed, *why a one-line malloc'ed reason (guest
 * strings in it shortened and stripped of control characters), owned by
 * the caller; -1 with vtb_error() on ENOMEM.
 */
int vtb_sched_verify(const struct vtb_config *c, const json_t *probe, const json_t *sched,
		     char **why);

/* Whether @c's profile sets a sysctl or a debugfs knob: what a guest
 * kernel may lack, and its probe can tell. */
bool vtb_sched_sets_knobs(const struct vtb_config *c);

/*
 * Does the kernel whose in-guest probe is @probe have every sysctl and
 * debugfs knob @c's profile sets?  Debugfs knobs are looked up in the
 * probe's "knobs" and "domain_knobs"; a sysctl DIR.NAME in its
 * "sysctls": {"DIR": [NAME...]} (the files directly under /proc/sys/DIR;
 * an older probe has none).  A sysctl the probe's lists do not cover (no
 * such list, null, or a nested name) is unchecked, never lacking.
 * 0: nothing lacking (or the profile sets nothing, or @probe is NULL);
 * 1: *why (malloc'ed) names the first key lacking, sysctls first as the
 * agent applies them ("lacks sysctl NAME (sysctl.NAME)", "lacks debugfs
 * knob KNOB (debugfs.KEY)"); -1 with vtb_error() on ENOMEM.  run marks
 * such a configuration not runnable once a boot of its kernel image
 * stored a probe; plan --db says so.
 */
int vtb_sched_knobs_lacking(const struct vtb_config *c, const json_t *probe, char **why);

/*
 * The keys of @c's profile that @probe cannot judge: every sysctl and
 * debugfs key when @probe is NULL, else the sysctls its lists do not
 * cover.  A new JSON array of "sysctl.NAME" / "debugfs.KEY" strings
 * (empty when none), NULL with vtb_error() on ENOMEM.
 */
json_t *vtb_sched_knobs_unchecked(const struct vtb_config *c, const json_t *probe);

#endif
