/* SPDX-License-Identifier: MIT */
/*
 * One bare-metal boot: the agent process runs a configuration's job,
 * confined to its CPUs by affinity (or, with confinement = partition, in
 * a cgroup-v2 cpuset root partition where the host offers one), under a
 * timeout.  The agent's output
 * goes through the record parser like a guest's.
 */
#ifndef VTB_BAREMETAL_H
#define VTB_BAREMETAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../common/vtbutil.h"
#include "bootstatus.h"
#include "../records/recparse.h"

struct vtb_baremetal_req {
	const char *agent;    /* path of vtbench-agent */
	const char *job_json; /* the job, as written to the agent */
	const char *nonce;
	const struct vtb_cpuset *cpus;
	/* memory nodes (cpulist syntax) the agent's memory is bound to with
	 * MPOL_BIND; NULL: not bound */
	const char *mems;
	uint64_t timeout_ns;
	/* confinement = partition: a cgroup-v2 cpuset root partition named
	 * vtbench-@uuid under @cgroup_root (NULL: the cgroup2 mount of
	 * /proc/self/mountinfo); affinity, with a warning, where there is
	 * none.  Affinity and membind apply either way. */
	bool partition;
	const char *uuid;
	const char *cgroup_root;
	/* Set asynchronously (SIGINT/SIGTERM): the boot is killed and
	 * reported "interrupted".  The caller blocks those signals; @waitmask
	 * is the mask to wait with (ppoll), which unblocks them. */
	volatile sig_atomic_t *stop;
	const sigset_t *waitmask;
	/* Optional: called about once a second while the agent runs
	 * (progress displays). */
	void (*tick)(void *arg);
	void *tick_arg;
};

/*
 * cgroup-v2 cpuset partitions, the pure parts.  vtb_cgroup2_mount(): the
 * mount point of the cgroup2 hierarchy in @mountinfo (the text of
 * /proc/self/mountinfo): /sys/fs/cgroup when it is one, else the first
 * (hybrid hosts: /sys/fs/cgroup/unified); NULL when none or out of
 * memory.  vtb_partition_unavailable(): NULL when a partition can be
 * tried under @root (cpuset in its cgroup.controllers), else why not,
 * e.g. "cpuset controller not in cgroup2 (/sys/fs/cgroup/unified/
 * cgroup.controllers: hugetlb; cgroup v1 may hold it)".  Both malloc'ed.
 */
char *vtb_cgroup2_mount(const char *mountinfo);
char *vtb_partition_unavailable(const char *root);

/* Returns 0 with @out filled (whatever the boot's fate); -1 with
 * vtb_errmsg() only when the harness itself failed (no pipe, no spawn). */
int vtb_baremetal_boot(const struct vtb_baremetal_req *req, struct vtb_boot_outcome *out);

#endif
