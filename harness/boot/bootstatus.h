/* SPDX-License-Identifier: MIT */
/*
 * A boot's status, decided here only: ok, failed, timeout, interrupted or
 * unexpected-topology, with the error that says why.  Bare metal: the
 * agent's exit and records (vtb_boot_judge()); a VM: how the domain ended,
 * then the records (vtb_vm_judge()); then the harness's own checks after
 * the boot (confinement, cells, live pinning, sched profile, the guest's
 * view), each of which can only demote an ok boot (vtb_boot_demote()):
 * the first reason found is the one kept.
 */
#ifndef VTB_BOOTSTATUS_H
#define VTB_BOOTSTATUS_H

#include <stdbool.h>
#include <stdint.h>

#include "../records/recparse.h"

struct vtb_config;

struct vtb_boot_outcome {
	const char *status;	       /* "ok" | "failed" | "timeout" | "interrupted",
					  or "unexpected-topology" (VMs) */
	char *error;		       /* NULL when ok */
	char *stderr_tail;	       /* last bytes of the agent's stderr */
	int64_t started_ns, ended_ns;  /* CLOCK_REALTIME */
	struct vtb_rec_parser *parser; /* the boot's records */
	bool membind;		       /* bare metal: memory bound to req->mems */
	/* bare metal: what confined the agent, e.g. "partition+membind" or
	 * "affinity+membind (partition unavailable: ...)"; the warning when
	 * a partition was asked for and not used (else NULL) */
	char *confinement;
	char *warning;
};

void vtb_boot_outcome_release(struct vtb_boot_outcome *o);

/* Decides a boot's status from what the agent did and wrote. */
const char *vtb_boot_judge(int wstatus, const struct vtb_boot_records *r, char **error);

/* What a boot's end looked like, for vtb_vm_judge(). */
struct vtb_vm_facts {
	bool interrupted;
	bool timed_out;
	bool panicked;		  /* libvirt said so (pvpanic, or stopped "crashed") */
	bool qemu_failed;	  /* stopped "failed": the emulator died */
	const char *start_error;  /* the domain could not be started */
	const char *stream_error; /* the record stream broke */
	uint64_t timeout_ns;
	const char *console_tail; /* a "Kernel panic" line there is a panic */
};
/* A VM boot's status (ok | failed | timeout | interrupted) and its
 * error (malloc'ed, NULL when ok): the first of interrupted, could not
 * start, timeout, panic, QEMU failure, no records at all; otherwise the
 * records decide, as for bare metal (vtb_boot_judge). */
const char *vtb_vm_judge(const struct vtb_vm_facts *f, const struct vtb_boot_records *r,
			 char **error);

/*
 * After the boot, a check of the harness found @why (malloc'ed and
 * taken, or NULL: no error text): an ok boot becomes @to ("failed" or
 * "unexpected-topology") with @why as its error; a boot already not ok
 * keeps its status and error.
 */
void vtb_boot_demote(const char **status, char **error, const char *to, char *why);

/* The agent reports the affinity it ran with: an ok boot that ran on
 * other CPUs than @cpus is failed. */
void vtb_boot_check_confinement(struct vtb_boot_outcome *out, const char *cpus);

/* Every cell of @c must have reported: an ok boot where one did not is
 * failed. */
void vtb_boot_check_cells(struct vtb_boot_outcome *out, const struct vtb_config *c);

#endif
