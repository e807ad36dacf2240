/* SPDX-License-Identifier: MIT */
/*
 * Host topology: the only hwloc and libcpuid user.  Loads the local
 * machine, an hwloc XML file or an hwloc synthetic description, and
 * answers what planning needs: CPUs in compact order, NUMA nodes, LLC
 * groups and sizes, identity and a digest of the shape.
 */
#ifndef VTB_HOSTTOPO_H
#define VTB_HOSTTOPO_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "conf.h"

struct vtb_hosttopo {
	char *source; /* "local", "xml:FILE" or "synthetic:DESC" */
	bool local;
	char *hostname; /* local only; else the source */
	char *kernel;	/* uname -r (local) */
	char *cpu_vendor, *cpu_model_name, *cpu_codename;
	int cpu_family, cpu_model;
	int packages, nodes, llcs, cores, pus;
	int *compact; /* allowed PUs (OS numbers) in compact order */
	size_t n_compact;
	char digest[65];
	char *summary;		 /* "1 package, 1 node, 1 LLC, 2 cores, 2 PUs" */
	struct vtb_host_ctx ctx; /* for matrix resolution; priv = this */
	void *topo;		 /* hwloc_topology_t */
};

/*
 * @spec: NULL for the local machine; a path to an hwloc XML file; or an
 * hwloc synthetic string ("pack:2 l3:2(size=32MB) core:4 pu:2").  Returns
 * 0 or -1 with vtb_errmsg() set.  Caller frees with vtb_hosttopo_free().
 */
int vtb_hosttopo_load(const char *spec, struct vtb_hosttopo **out);
void vtb_hosttopo_free(struct vtb_hosttopo *h);

#endif
