/* SPDX-License-Identifier: MIT */
/*
 * libvirt domain XML for one guest boot (the only place that writes
 * it): a virtual topology of sockets x dies x cores x threads and the
 * placement a plan decides (pins, guest cells, numatune, memory backing,
 * machine type).  What every domain has, and why:
 *   <features><acpi/><apic/>   without ACPI the guest halts instead of
 *                               powering off and the domain never ends
 *   on_poweroff/on_reboot/on_crash = destroy
 *                               a panicking guest must not reboot and run
 *                               its job again
 *   <panic model='isa'>         pvpanic: a guest panic becomes a libvirt
 *                               event
 *   direct kernel boot, serial0 = kernel console, serial1 = records (both
 *   pty, read through virDomainOpenConsole), no disk, network, graphics,
 *   USB or balloon.
 */
#ifndef VTB_DOMXML_H
#define VTB_DOMXML_H

#include <stdbool.h>
#include <stdint.h>

#include "../../common/vtbutil.h"

/* A guest NUMA cell: its vCPUs, memory and distances to every cell. */
struct vtb_domcell {
	const struct vtb_cpuset *vcpus; /* vCPU numbers */
	uint64_t memory_bytes;		/* the cells' sum is the domain's memory */
	const unsigned *distances;	/* n_cells values, NULL: libvirt's default */
	int host_node;			/* memnode binding target, -1: none */
};

struct vtb_domspec {
	const char *name;
	const char *uuid; /* NULL: libvirt picks one */
	bool kvm;	  /* domain type kvm, else qemu (TCG) */
	/* "host-passthrough", or a CPU model name (e.g. kvm64) used with
	 * match=exact and fallback=forbid */
	const char *cpu_model;
	int vcpus;
	int sockets, dies, cores, threads; /* all 0: no <topology> */
	uint64_t memory_bytes;
	const char *kernel, *initrd, *cmdline;

	/* Placement (issue 5; all optional: zero means "not set") */
	const char *machine;		      /* "pc" (default) or "q35" */
	const struct vtb_cpuset *vcpupin;     /* n = vcpus entries, or NULL: none */
	const struct vtb_cpuset *emulatorpin; /* NULL: none */
	const struct vtb_domcell *cells;      /* <numa><cell>, NULL: none */
	int n_cells;
	const struct vtb_cpuset *numatune_nodes; /* <numatune><memory nodeset=>, NULL: none */
	const char *numatune_mode;		 /* "strict" (default), "preferred"... */
	bool hugepages;				 /* <memoryBacking><hugepages/> */
	bool locked;				 /* <memoryBacking><locked/> */
	bool hint_dedicated;			 /* KVM only: <kvm><hint-dedicated/> */
};

/*
 * The domain XML (malloc'ed, caller frees), or NULL with vtb_error() when
 * the spec is inconsistent: topology product != vcpus, missing kernel;
 * a vcpupin or emulatorpin set that is empty; cells whose vCPU sets do
 * not partition 0..vcpus-1, whose memory (whole KiB each) does not add up
 * to memory_bytes, with distances on some cells only, or distances other
 * than 10 on the diagonal and 11-255 elsewhere; a cell's host_node
 * outside numatune_nodes; an unknown machine type (pc, q35, pc-i440fx-*,
 * pc-q35-*) or numatune mode (strict, preferred, interleave,
 * restrictive); hugepages with memory not in 2 MiB pages;
 * hint_dedicated on KVM without host-passthrough (libvirt refuses it).
 * hint_dedicated is dropped under TCG, where it means nothing.  Each
 * cell with host_node >= 0 gets a <memnode> with numatune_mode.
 */
char *vtb_domxml(const struct vtb_domspec *s);

#endif
