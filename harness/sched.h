/* SPDX-License-Identifier: MIT */
/*
 * Guest scheduler profiles ([sched NAME], README "Sched profiles") on the
 * harness side: what a VM configuration's job carries to the agent (the
 * "sched" object of the job) and what its guest kernel command line
 * gains.  Pure: reads the configuration's params, where conf.c keeps a
 * profile's keys as "sched.KEY" (validated at matrix load).
 */
#ifndef VTB_SCHED_H
#define VTB_SCHED_H

#include <jansson.h>
#include <stdbool.h>

#include "conf.h"

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

#endif
