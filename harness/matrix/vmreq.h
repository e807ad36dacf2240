/* SPDX-License-Identifier: MIT */
/*
 * A VM configuration as typed values: what the matrix (conf.c) yields
 * and the placement planner (plan.h) takes.  The pinning words are
 * listed here once, the topology presets and their rules in
 * topologies/presets.h; conf.c validates against these lists and turns
 * them into enums, and nothing parses them again.
 */
#ifndef VTB_VMREQ_H
#define VTB_VMREQ_H

#include <stdbool.h>
#include <stdint.h>

#include "../../topologies/presets.h"

enum vtb_pinning { VTB_PIN_NONE, VTB_PIN_STRICT, VTB_PIN_CORE, VTB_PIN_LLC, VTB_PIN_NODE };

/* "none", "strict", "core", "llc", "node", NULL: in enum order */
extern const char *const vtb_pinning_names[];

struct vtb_plan_req {
	int vcpus; /* per VM */
	int vms;   /* side by side, disjoint pCPUs unless overcommit */
	bool overcommit;
	enum vtb_pinning pinning;
	enum vtb_vtopo topology;
	/* VTB_VTOPO_EXPLICIT: the shape; clusters > 1 is rejected (not
	 * expressible with libvirt 9.0 / QEMU 7.2); cells 0: by numa */
	int sockets, dies, cores, threads, clusters, cells;
	bool numa; /* numa = auto: one guest cell per host node used */
	uint64_t memory_bytes;
	const char *housekeeping; /* NULL or "auto", "none", or a cpulist */
	/* passed through to the domain */
	bool hugepages, locked;
	const char *machine; /* NULL: pc */
};

const char *vtb_pinning_name(enum vtb_pinning p);
int vtb_pinning_parse(const char *s, enum vtb_pinning *out);

/*
 * What the guest is told for the topologies that need no host (the
 * preset's shape rule, presets.h): flat, cores and explicit (the
 * [topology NAME] shape).  -1 for mirror and lie, which only the planner
 * shapes.
 */
int vtb_vtopo_shape(const struct vtb_plan_req *r, int *sockets, int *dies, int *cores,
		    int *threads);

#endif
