/* SPDX-License-Identifier: MIT */
/*
 * One bare-metal boot: the agent process runs a configuration's job,
 * confined to its CPUs by affinity, under a timeout.  The agent's output
 * goes through the record parser like a guest's.
 */
#ifndef VTB_BAREMETAL_H
#define VTB_BAREMETAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../workloads/lib/vtbutil.h"
#include "recparse.h"

struct vtb_baremetal_req {
	const char *agent;    /* path of vtbench-agent */
	const char *job_json; /* the job, as written to the agent */
	const char *nonce;
	const struct vtb_cpuset *cpus;
	/* memory nodes (cpulist syntax) the agent's memory is bound to with
	 * MPOL_BIND; NULL: not bound */
	const char *mems;
	uint64_t timeout_ns;
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

struct vtb_boot_outcome {
	const char *status;	       /* "ok" | "failed" | "timeout" | "interrupted" */
	char *error;		       /* NULL when ok */
	char *stderr_tail;	       /* last bytes of the agent's stderr */
	int64_t started_ns, ended_ns;  /* CLOCK_REALTIME */
	struct vtb_rec_parser *parser; /* the boot's records */
	bool membind;		       /* bare metal: memory bound to req->mems */
};

/* Returns 0 with @out filled (whatever the boot's fate); -1 with
 * vtb_errmsg() only when the harness itself failed (no pipe, no spawn). */
int vtb_baremetal_boot(const struct vtb_baremetal_req *req, struct vtb_boot_outcome *out);
void vtb_boot_outcome_release(struct vtb_boot_outcome *o);

/* Decides a boot's status from what the agent did and wrote. */
const char *vtb_boot_judge(int wstatus, const struct vtb_boot_records *r, char **error);

#endif
