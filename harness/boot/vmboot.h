/* SPDX-License-Identifier: MIT */
/*
 * VM boots for the runner: one libvirt connection, the staged guest
 * files and the accelerator decision per campaign; per boot the image
 * with its job, the domain XML and the boot itself (provision.c).
 */
#ifndef VTB_VMBOOT_H
#define VTB_VMBOOT_H

#include <signal.h>
#include <stdint.h>

#include "bootstatus.h"
#include "../matrix/conf.h"

/* A guest kernel of the campaign and its identity, stored with each boot. */
struct vtb_vmkernel {
	const char *path;    /* as the configuration names it; NULL: the staged one */
	char *staged;	     /* the path the hypervisor opens */
	char *release;	     /* from the image's header */
	char sha256[65];     /* of the image */
	char *config_sha256; /* of its .config (NULL: none known) */
};

struct vtb_vmhost {
	struct vtb_hv *hv;
	struct vtb_guest_stage *stage;
	/* [0]: the staged (configured or fetched) kernel; then one per
	 * image of [vm] kernel = */
	struct vtb_vmkernel *kernels;
	size_t n_kernels;
	char *accel;	 /* "kvm" | "tcg" */
	char *accel_why; /* how it was decided */
	char *cpu_model; /* "host-passthrough" | "kvm64" */
};

/* Notes for the user while setting up (accelerator choice...). */
typedef void (*vtb_note_fn)(const char *msg, void *arg);

/* What setting up may need: notes, and a stop request during the KVM
 * probe (as in struct vtb_vm_req). */
struct vtb_probe_ctl {
	vtb_note_fn note;
	void *arg;
	volatile sig_atomic_t *stop;
	const sigset_t *waitmask;
};

/*
 * Connects to m->uri, stages the guest kernel and initramfs, decides the
 * accelerator (m->accel; auto probes KVM with a short boot, and after a
 * failure a TCG control boot, the answer cached in the staging
 * directory per host, kernel, QEMU and libvirt version).
 * -1 with vtb_error(); *input is set when the cause is the user's input
 * (kernel =, a missing guest image) rather than the infrastructure.
 */
int vtb_vmhost_open(const struct vtb_matrix *m, const struct vtb_probe_ctl *ctl,
		    struct vtb_vmhost **out, bool *input);
void vtb_vmhost_free(struct vtb_vmhost *vh);

/* The KVM probe's answer cached in the staging directory @dir for the
 * connection @hv (this host, kernel, QEMU and libvirt version), without
 * probing (vtbench doctor): 1 with *accel ("kvm" | "tcg") and *why, how
 * it was decided, both malloc'ed; 0 when nothing is cached for them;
 * -1 with vtb_error() on ENOMEM. */
struct vtb_hv;
int vtb_accel_cached(struct vtb_hv *hv, const char *dir, char **accel, char **why);

/* The kernel @c boots (its kernel_path, else the staged one); never NULL
 * for a configuration of the matrix the host was opened with. */
const struct vtb_vmkernel *vtb_vmhost_kernel(const struct vtb_vmhost *vh,
					     const struct vtb_config *c);

/* The guest kernel command line of a boot (malloc'ed): the harness's
 * parameters, then those of @c's sched profile (@c may be NULL). */
char *vtb_vm_cmdline(const char *nonce, const struct vtb_config *c);

/* One VM of a side-by-side group: its own boot uuid (the domain is
 * "vtbench-UUID"), nonce and job. */
struct vtb_vmboot_vm {
	const char *uuid, *nonce, *job_json;
};

struct vtb_vmboot_group_req {
	const struct vtb_config *config;
	/* the host model the configuration was planned on: its placement
	 * (pins, cells, numatune) comes from the plan, VM k from the plan's
	 * VM k; NULL: no placement */
	const struct vtb_topo *model;
	const struct vtb_vmboot_vm *vms;
	size_t n; /* the configuration's vms = (the plan's VM count) */
	uint64_t timeout_ns;
	uint64_t placement_interval_ns; /* m->placement_interval_ns; 0: no sampling */
	bool evidence;			/* per-cell host readings of the vCPU threads */
	volatile sig_atomic_t *stop;
	const sigset_t *waitmask;
	void (*tick)(void *arg);
	void *tick_arg;
};

struct vtb_vmboot_result {
	struct vtb_boot_outcome out;
	char *live_xml;		       /* NULL if the domain never started */
	char *placement;	       /* the placement summary JSON (spec E) */
	char *claims;		       /* JSON array of the plan's claims of this VM (vm == k);
					  NULL without a plan */
	uint64_t samples, sampling_ns; /* samples taken and their cost, here */
	char *cell_host;	       /* per cell on the host (provision.h), NULL: none */
};

/*
 * Boots the configuration's @req->n VMs side by side (provision.c's
 * vtb_hv_boot_group(): all created paused, resumed back to back, one
 * event loop), VM k with the plan's placement for VM k.  0 with res[k]
 * filled for every k (each with its own status; placement and claims
 * set whenever the boot returned 0), -1 with vtb_error() on an
 * infrastructure failure (res[] then holds nothing to store; release
 * it all the same).  Release each with vtb_vmboot_result_release().
 */
int vtb_vm_boot_group(struct vtb_vmhost *vh, const struct vtb_vmboot_group_req *req,
		      struct vtb_vmboot_result *res);
void vtb_vmboot_result_release(struct vtb_vmboot_result *r);

#endif
