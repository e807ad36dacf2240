/* SPDX-License-Identifier: MIT */
/*
 * Host topology: the only hwloc and libcpuid user.  Loads the local
 * machine, an hwloc XML file, an hwloc synthetic description or libvirt
 * capabilities XML (a remote host) into the plain model of topo.h, and
 * answers what planning needs: CPUs in compact order, NUMA nodes, LLC
 * groups and sizes, identity and a digest of the shape.
 */
#ifndef VTB_HOSTTOPO_H
#define VTB_HOSTTOPO_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../../common/outfile.h"
#include "../matrix/conf.h"
#include "topo.h"

struct vtb_hosttopo {
	/* "local", "xml:FILE", "synthetic:DESC", "caps:FILE" or
	 * "libvirt:URI" */
	char *source;
	bool local;
	char *hostname; /* local only; else the source */
	char *kernel;	/* uname -r (local) */
	/* Identity: libcpuid (local), the Package's info attributes (hwloc
	 * XML), the <cpu> element (capabilities: vendor normalised to
	 * "GenuineIntel"/"AuthenticAMD", codename = libvirt's CPU model such
	 * as "EPYC-Rome").  NULL / 0 when unknown. */
	char *cpu_vendor, *cpu_model_name, *cpu_codename;
	int cpu_family, cpu_model;
	int packages, dies, nodes, llcs, cores, pus; /* pus: online PUs */
	int *compact;				     /* allowed PUs (OS numbers) in compact order */
	size_t n_compact;
	char digest[65]; /* vtb_topo_digest() */
	char *summary;	 /* "1 package, 1 node, 1 LLC, 2 cores, 2 PUs" */
	/* The LLC sizes and where they come from, for plan and run: "L3
	 * 32MiB x 8, from sysfs (hwloc)", "... from CPUID (hwloc: this
	 * kernel exposes no cache directories in sysfs)", "none: ...". */
	char *llc_source;
	struct vtb_topo model;
	struct vtb_host_ctx ctx; /* for matrix resolution; priv = this */
	void *topo;		 /* hwloc_topology_t; NULL for capabilities XML */
};

/*
 * @spec: NULL for the local machine; "caps:FILE" for libvirt
 * capabilities XML (`virsh capabilities`); a path to an hwloc XML file
 * (`lstopo --of xml`) or to a capabilities XML file (told apart by the
 * root element); or an hwloc synthetic string ("pack:2 l3:2(size=32MiB)
 * core:4 pu:2").  "libvirt:URI" is for the command layer, which fetches
 * the capabilities through provision.c and calls vtb_hosttopo_load_caps().
 * Returns 0 or -1 with vtb_errmsg() set (naming the file for an
 * unreadable or malformed one).  Caller frees with vtb_hosttopo_free().
 */
int vtb_hosttopo_load(const char *spec, struct vtb_hosttopo **out);
/* From capabilities XML text (@len bytes, NUL-terminated); @source names
 * it in the model and in errors ("libvirt:qemu:///system"). */
int vtb_hosttopo_load_caps(const char *xml, size_t len, const char *source,
			   struct vtb_hosttopo **out);
void vtb_hosttopo_free(struct vtb_hosttopo *h);

/* A CPU brand string without padding: words separated by one space, none
 * at either end (malloc'ed; NULL on ENOMEM). */
char *vtb_cpu_model_name_trim(const char *s);
/* Whether libcpuid @libversion names CPUs of @vendor's family @ext_family
 * right (older versions give an unknown AMD family an old part's name). */
bool vtb_cpu_codename_trusted(const char *vendor, int ext_family, const char *libversion);

/*
 * Writes the topology as hwloc XML to @path by the output rule
 * (common/outfile.h: a regular file replaced atomically, a device or FIFO
 * written through, a symlink resolved with *@note saying so, @inputs
 * refused), with hwloc's exporter.  A capabilities source is first rebuilt
 * as an hwloc topology from the model.  -1 with vtb_error() on write
 * errors; -2 with vtb_error() when the path is refused or the topology
 * cannot be expressed in hwloc XML (the rebuilt one would not have the
 * same digest).  *@note: malloc'ed or NULL.
 */
int vtb_hosttopo_export_xml(const struct vtb_hosttopo *h, const char *path,
			    const struct vtb_out_input *inputs, char **note);

#endif
