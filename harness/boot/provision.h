/* SPDX-License-Identifier: MIT */
/*
 * Provisioning: the only libvirt caller.  A connection runs libvirt's
 * default event loop in the calling thread; a boot (of one guest or of
 * a side-by-side group) creates each transient domain paused with
 * VIR_DOMAIN_START_AUTODESTROY (a killed harness leaves no VM), opens
 * serial0 (kernel console) and serial1 (records) as streams before
 * resuming (no byte is lost), samples where its vCPU threads run, and
 * reads until the guest powers off, panics or times out.
 */
#ifndef VTB_PROVISION_H
#define VTB_PROVISION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "bootstatus.h"

struct vtb_hv;

/* Connects to @uri (NULL: qemu:///system).  libvirt's own stderr error
 * printer is silenced; its messages come back through vtb_errmsg().
 * -1 with vtb_error() saying whether the daemon is missing. */
int vtb_hv_open(const char *uri, struct vtb_hv **out);
void vtb_hv_close(struct vtb_hv *hv);
/* Replaces the connection with a fresh one unless it was used in the
 * last 10 s (called before each boot: libvirt's event loop does not run
 * between boots, so the daemon's keepalive may have dropped an idle
 * one).  -1 with vtb_error(). */
int vtb_hv_reconnect(struct vtb_hv *hv);
/* Waits for every domain still being torn down in the background (a
 * boot returns once its QEMU exited; libvirt's own teardown may go on
 * for a second or two).  vtb_hv_close() and vtb_hv_reconnect() drain
 * first; a domain left then goes with the connection (autodestroy). */
void vtb_hv_drain(struct vtb_hv *hv);
const char *vtb_hv_uri(const struct vtb_hv *hv);
/* "9.0.0" of the library and "7.2.0"-style hypervisor (QEMU) version. */
const char *vtb_hv_libvirt_version(const struct vtb_hv *hv);
const char *vtb_hv_qemu_version(const struct vtb_hv *hv);
/* True when the daemon is local and the QEMU it starts runs as another
 * user than us, as far as we can tell (qemu:///system). */
bool vtb_hv_system(const struct vtb_hv *hv);
/* Whether libvirt reports a kvm domain type for x86_64 (capabilities;
 * proves nothing about whether guests boot). */
bool vtb_hv_kvm_listed(struct vtb_hv *hv);

/* The host's capabilities XML (virConnectGetCapabilities: CPU, NUMA
 * cells with their CPUs, cache banks), malloc'ed into *xml for
 * vtb_hosttopo_load_caps().  -1 with vtb_error(). */
int vtb_hv_capabilities(struct vtb_hv *hv, char **xml);

struct vtb_placement;

struct vtb_vm_req {
	const char *xml; /* domain XML (vtb_domxml) */
	const char *name;
	const char *nonce;
	uint64_t timeout_ns;
	/* As in struct vtb_baremetal_req: set by SIGINT/SIGTERM handlers;
	 * the signals are unblocked with @waitmask while waiting. */
	volatile sig_atomic_t *stop;
	const sigset_t *waitmask;
	void (*tick)(void *arg);
	void *tick_arg;
};

/*
 * Boots one guest and reads its records.  Returns 0 with @out filled
 * (status ok | failed | timeout | interrupted; out->stderr_tail holds the
 * console tail) and *live_xml (virDomainGetXMLDesc after start, NULL if
 * the domain never started); -1 with vtb_error() only when the libvirt
 * connection itself is gone (an infrastructure failure).  The domain is
 * always destroyed before returning.
 */
int vtb_hv_boot(struct vtb_hv *hv, const struct vtb_vm_req *req, struct vtb_boot_outcome *out,
		char **live_xml);

/* One guest of a group. */
struct vtb_vm_spec {
	const char *xml; /* domain XML (vtb_domxml) */
	const char *name;
	const char *nonce;
	/* NULL: not watched.  Else fed while the guest runs: the live vCPU
	 * pinning (virDomainGetVcpuPinInfo) once created, the source
	 * ("proc" or "libvirt") and thread ids, a sample of every vCPU's
	 * host CPU each sample_ns, and the threads' counters at the first
	 * sample, once a second (four times during the job's last cell, with
	 * evidence), and when the agent's "end" record came (the last
	 * reading is the end).  Owned by the caller. */
	struct vtb_placement *placement;
	/* the job's cells: per-cell host readings stop after as many (a
	 * guest's cell records beyond the job's are not ours to pay for) */
	size_t n_cells;
};

/* A side-by-side group: created paused one by one, then resumed back to
 * back, served by one event loop.  The timeout, stop request and tick
 * are the group's. */
struct vtb_vm_group_req {
	const struct vtb_vm_spec *vms;
	size_t n;
	uint64_t timeout_ns; /* every guest's deadline, from the resume */
	uint64_t sample_ns;  /* sampling interval; 0: none (live pins only) */
	bool evidence;	     /* read the vCPU threads' counters per cell */
	/* For tests; NULL: "/proc" and libvirt's "/run/libvirt/qemu" (the
	 * QEMU pid files of the system driver). */
	const char *proc_root, *pid_dir;
	volatile sig_atomic_t *stop;
	const sigset_t *waitmask;
	void (*tick)(void *arg);
	void *tick_arg;
};

struct vtb_vm_result {
	struct vtb_boot_outcome out;
	char *live_xml;	      /* NULL if the domain never started */
	uint64_t samples;     /* samples taken of this guest */
	uint64_t sampling_ns; /* time they took, here (the cost of watching) */
	/* per cell, what its vCPU threads did on the host (JSON text, NULL:
	 * none; docs/evidence.md): {"KEY":{"seconds":S,"vcpus":[{"vcpu":V,
	 * "run_ns","wait_ns","slices","invol","migrations" (with /proc),
	 * "end_late" (the end is the last periodic reading),
	 * "moves","pcpus":[CPU...],"pcpus_seen"}]}} */
	char *cell_host;
};

/*
 * Boots the @g->n guests together: res[k] for guest k, each judged on
 * its own (ok | failed | timeout | interrupted), as vtb_hv_boot().  A
 * guest that cannot be created or resumed fails the whole group before
 * anything runs: the others are destroyed and failed with "not run:
 * side-by-side guest K ... could not start: WHY".  A stop request
 * destroys every guest.  Each guest's domain is destroyed as soon as it
 * is done.  Returns 0, or -1 with vtb_error() only when the libvirt
 * connection itself is gone (res[k].out.status is then NULL).  Release
 * each res[k] with vtb_boot_outcome_release(&res[k].out) and
 * free(res[k].live_xml).
 */
int vtb_hv_boot_group(struct vtb_hv *hv, const struct vtb_vm_group_req *g,
		      struct vtb_vm_result *res);

/* One turn of a boot's wait loop, for vtb_vm_wait_step(). */
struct vtb_vm_wait {
	bool stop;	  /* SIGINT/SIGTERM asked to stop */
	bool records_eof; /* the record stream ended */
	bool stopped;	  /* libvirt said the domain stopped */
	bool exited;	  /* its QEMU process exited (watched by pidfd) */
	bool ended;	  /* the agent's end record is checked: every record is in */
	bool destroyed;	  /* in/out: VTB_VM_END was answered (the domain destroyed) */
	uint64_t now, deadline, grace_ns;
	uint64_t grace_until; /* in/out: 0 until one of the two ends came */
};
enum vtb_vm_step { VTB_VM_WAIT, VTB_VM_DONE, VTB_VM_TIMEOUT, VTB_VM_STOP, VTB_VM_END };
/* A stop request wins; both ends (records EOF and domain stop) finish
 * the boot; the deadline times it out; once the end record is checked
 * while the domain still runs, VTB_VM_END (once): destroy it now, its
 * poweroff would measure nothing, and go on waiting for both ends; once
 * destroyed, its QEMU's exit is as good as libvirt's stop event (which
 * comes only after libvirt's own teardown); when only one end came, the
 * other gets grace_ns before the boot is finished anyway. */
enum vtb_vm_step vtb_vm_wait_step(struct vtb_vm_wait *w);

#endif
