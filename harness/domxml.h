/* SPDX-License-Identifier: MIT */
/*
 * libvirt domain XML for one guest boot (the only place that writes
 * it).  Minimal until the topology planner lands: a virtual topology of
 * sockets x dies x cores x threads, no pinning, no guest NUMA.  What
 * every domain has, and why:
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
};

/* The domain XML (malloc'ed), or NULL with vtb_error() when the spec is
 * inconsistent (topology product != vcpus, missing kernel...). */
char *vtb_domxml(const struct vtb_domspec *s);

#endif
