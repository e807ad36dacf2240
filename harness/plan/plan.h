/* SPDX-License-Identifier: MIT */
/*
 * The placement planner: a pure function of (host model, VM request) to
 * a placement plan: which pCPUs each VM of a configuration uses, where
 * each vCPU may run (pinning), what the guest is told (virtual sockets,
 * dies, cores, threads, NUMA cells), and the claims that follow: every
 * relationship the guest will see (SMT pairs, LLC groups, nodes) and
 * whether the placement makes it true.  No hwloc, no libvirt: tests give
 * it synthetic hosts.
 *
 * Definitions the rest of vtbench relies on:
 * - vCPU numbering is QEMU's x86 one: threads fastest, then cores, dies,
 *   sockets.  A virtual die is a virtual LLC (QEMU shares L3 per die).
 * - The pool: the host's allowed PUs in compact order minus the
 *   housekeeping set and the SMT siblings of its CPUs.  Housekeeping
 *   "auto" is a core of node-less PUs, else the first core in compact
 *   order, unless the request would then not fit (a host with no spare
 *   CPU; with overcommit, one VM without a pCPU per vCPU, or guest
 *   memory that fits the nodes only without it): then it is empty and
 *   the plan says so in a note; and unless that core costs the VMs their room or
 *   their alignment with nodes and packages: then it is a core of a node
 *   no VM uses (else the last core no VM needs, else the last core), and a
 *   note says so.
 * - Without cache information the dies, else the packages, else the whole
 *   host stand for the LLC groups (mirror's dies, llc pinning, LLC
 *   claims), with a note.
 * - A claim can only be backed where pinning fixes the pCPUs: strict
 *   pinning backs every claim, core pinning backs SMT pairs; every other
 *   claim (llc or node pinning, none) is UNBACKED, even where its pCPUs
 *   happen to share the group: the host scheduler may move a vCPU within
 *   its set, and what the guest sees then changes with time.  A backed
 *   claim over a set of vCPUs at a level (core, LLC, node) is TRUE when
 *   every vCPU's allowed set lies inside one and the same host group of
 *   that level (a node claim also needs its cell's memory there), FALSE
 *   when each lies inside one group but not the same.
 * - mirror: each real LLC group used (split per node with numa = auto) is
 *   a virtual die; the packages used are the virtual sockets, each with
 *   the same number of dies.  Its shape is the best candidate when every
 *   VM is placed with it: memory that fits, whole cores, the host's SMT
 *   width, even loads, whole packages alike, the fewest nodes and
 *   packages, the largest dies, in that order.  Where the free pCPUs
 *   leave packages uneven (the housekeeping core takes a core from one
 *   LLC group), mirror skips LLC groups to keep whole packages alike and
 *   says so in a VM note; only when no such choice fits is the guest told
 *   one socket (a plan note).  lie has exactly mirror's counts and
 *   housekeeping (sockets, dies, cores, threads and cells: lie's cells
 *   group the vCPUs as mirror's do, on the nodes lie's pCPUs really are,
 *   which may be none single); it plans wherever mirror does, within
 *   mirror's cores (claims staying true, with a note) where lying would
 *   leave a VM no room.
 * - The pool never holds a PU on no node (topo.h's nodeless): such PUs
 *   are housekeeping's first choice, never a guest's.
 * - Side-by-side VMs get whole cores: a core one VM uses is used up for
 *   the others, so they never share SMT siblings.  overcommit = yes
 *   shares pCPUs only when it has to: whole free cores first, then the
 *   free siblings, then the least loaded pCPUs of the pool, so that with
 *   vms x vcpus <= the pool the VMs' pCPUs stay disjoint, and beyond it
 *   every pCPU is used and the loads differ by at most one vCPU (for
 *   mirror and lie, as far as their regular shape allows: a note says
 *   where it does not).
 * - Guest cells get memory in proportion to their vCPUs.  A cell bound to
 *   a host node must fit it with the other VMs' cells there (free huge
 *   pages with hugepages = yes); memory bound to several nodes (numa =
 *   off, cells spanning nodes) must fit what they have left.  VMs go where
 *   their memory fits; when nothing does, the plan is made but why_not
 *   says why it cannot run.
 * - The emulator threads go to the housekeeping CPUs whenever there are
 *   any, whatever the pinning.
 */
#ifndef VTB_PLAN_H
#define VTB_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../common/vtbutil.h"
#include "../host/topo.h"
#include "../matrix/vmreq.h"

enum vtb_claim_kind { VTB_CLAIM_SMT, VTB_CLAIM_LLC, VTB_CLAIM_NODE };
enum vtb_claim_state { VTB_CLAIM_TRUE, VTB_CLAIM_FALSE, VTB_CLAIM_UNBACKED };

struct vtb_plan_cell {
	struct vtb_cpuset vcpus;
	uint64_t memory_bytes;
	int host_node; /* OS number of the node its vCPUs' pCPUs are on, -1: several */
};

struct vtb_plan_vm {
	int *pcpu;		 /* per vCPU: its pCPU (OS number) in the assignment */
	struct vtb_cpuset *pins; /* per vCPU: where it may run; NULL for pinning none */
	struct vtb_cpuset cpus;	 /* the pCPUs this VM uses (none: as many, compact) */
	struct vtb_cpuset nodes; /* their host nodes (OS numbers) */
	struct vtb_plan_cell *cells;
	size_t n_cells;
	unsigned *distances; /* n_cells^2 from the host, NULL when unknown */
	char **notes;	     /* labels that concern this VM only (spanning dies, ...) */
	size_t n_notes;
};

struct vtb_claim {
	enum vtb_claim_kind kind;
	int vm;
	struct vtb_cpuset vcpus;
	enum vtb_claim_state state;
};

struct vtb_plan {
	struct vtb_plan_req req;
	int sockets, dies, cores, threads; /* what the guest is told */
	struct vtb_cpuset housekeeping;	   /* emulator threads go here; may be empty */
	struct vtb_plan_vm *vm;		   /* req.vms entries */
	struct vtb_claim *claims;
	size_t n_claims;
	const char *machine; /* "q35" or NULL (static strings) */
	char **notes;	     /* plan-wide labels (housekeeping, SNC, one socket...) */
	size_t n_notes;
	/* NULL, or why the configuration cannot run although it is placed:
	 * its guest memory does not fit the host nodes it is bound to (with
	 * the figures and the key to change) */
	char *why_not;
};

/* "smt", "llc", "node"; "true", "false", "unbacked". */
const char *vtb_claim_kind_name(enum vtb_claim_kind k);
const char *vtb_claim_state_name(enum vtb_claim_state s);

/*
 * Plans @req on @t.  0, or -1 with vtb_error() saying what is wrong (an
 * impossible explicit topology, clusters), or VTB_PLAN_NO_ROOM when the
 * host has too few pCPUs for it (vtb_error() says how many are needed
 * and available): a fact about this host, not an error in the request.
 * *out owned by the caller (vtb_plan_free()).
 */
#define VTB_PLAN_NO_ROOM (-2)
int vtb_plan_make(const struct vtb_topo *t, const struct vtb_plan_req *req, struct vtb_plan **out);

/* How many times vtb_plan_make() ran in this process: a campaign plans
 * each configuration once (tests count). */
unsigned long vtb_plan_calls(void);

/* Claims (and the plan's shape) as a JSON text (compact, sorted keys),
 * malloc'ed; NULL with vtb_error().  Plan-wide notes in "notes", each
 * VM's own in "vms"[i]."notes". */
char *vtb_plan_json(const struct vtb_plan *p);


void vtb_plan_free(struct vtb_plan *p);

#endif
