/* SPDX-License-Identifier: MIT */
/*
 * Where a running guest's vCPUs are on the host, read from /proc.  QEMU
 * names its vCPU threads "CPU N/TCG" or "CPU N/KVM" (libvirt starts it
 * with debug-threads=on); a sample is, for every vCPU, the host CPU its
 * thread last ran on (field 39 of /proc/PID/task/TID/stat).  The
 * cumulative counters (se.nr_migrations of .../sched, the run delay of
 * .../schedstat) are read separately, at the first and the last sample
 * only, so that a sample costs one small read per vCPU.
 *
 * No libvirt here: provision.c finds the QEMU pid and falls back to
 * virDomainGetVcpus where /proc cannot be read (a remote daemon).  The
 * /proc root is a parameter so that tests use a fake tree.
 */
#ifndef VTB_VCPUSAMPLE_H
#define VTB_VCPUSAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vtb_vcpu_sampler;

/*
 * The QEMU process of guest @name: the pid in @pidfile (libvirt's
 * /run/libvirt/qemu/NAME.pid for the system driver), accepted only when
 * that process's command line under @proc_root says -name guest=@name
 * (a stale pid file may name another process).  The pid, or -1 with
 * vtb_error().
 */
int vtb_vcpu_qemu_pid(const char *proc_root, const char *pidfile, const char *name);

/*
 * A pidfd (pidfd_open(2)) of guest @name's QEMU process, found as
 * vtb_vcpu_qemu_pid() finds it and checked again once open, so the
 * descriptor is that QEMU's even if its pid is reused later.  It polls
 * readable once the process has exited with all its threads (the vCPU
 * threads are gone).  The caller closes it.  -1 with vtb_error() (no pid
 * file, another process, a kernel without pidfd_open).
 */
int vtb_vcpu_qemu_pidfd(const char *proc_root, const char *pidfile, const char *name);

/*
 * Finds the @n_vcpus vCPU threads of process @pid under @proc_root
 * ("/proc", or a fake tree) and opens their stat files.  -1 with
 * vtb_error() when the task directory cannot be read or a vCPU thread
 * is missing (QEMU without debug-threads, single-threaded TCG): the
 * caller then samples through libvirt.  Free with
 * vtb_vcpu_sampler_free().
 */
int vtb_vcpu_sampler_open(const char *proc_root, int pid, int n_vcpus,
			  struct vtb_vcpu_sampler **out);
void vtb_vcpu_sampler_free(struct vtb_vcpu_sampler *s);

int vtb_vcpu_sampler_n(const struct vtb_vcpu_sampler *s);
/* Thread id of vCPU @vcpu. */
int vtb_vcpu_sampler_tid(const struct vtb_vcpu_sampler *s, int vcpu);

/*
 * One sample: cpus[v] = the host CPU vCPU v's thread is on, -1 when its
 * stat could not be read or parsed (the thread is gone: the guest
 * stopped).  Returns how many vCPUs were read (0: none, the process has
 * most likely exited).
 */
int vtb_vcpu_sampler_cpus(struct vtb_vcpu_sampler *s, int *cpus);

/* Cumulative per-thread counters; ok false when unreadable. */
struct vtb_vcpu_counters {
	bool ok;
	uint64_t migrations;   /* se.nr_migrations */
	uint64_t run_delay_ns; /* schedstat, 2nd field: time spent waiting on a runqueue */
	uint64_t run_ns;       /* schedstat, 1st field: time spent running */
	uint64_t slices;       /* schedstat, 3rd field: timeslices run */
	uint64_t invol;	       /* sched: nr_involuntary_switches (preempted) */
	bool full;	       /* run_ns, slices and invol were read too */
};
/* Reads every vCPU's counters into c[v]; returns how many were read. */
int vtb_vcpu_sampler_counters(struct vtb_vcpu_sampler *s, struct vtb_vcpu_counters *c);

/* Parsers, for tests.  -1 when malformed. */
/* "CPU 3/KVM" -> 3; any accelerator suffix after the slash. */
int vtb_vcpu_comm_index(const char *comm);
/* Field 39 (processor) of a stat line; the comm (field 2) may hold
 * spaces and parentheses: fields are counted after the last ')'. */
int vtb_vcpu_stat_cpu(const char *text);
/* The se.nr_migrations line of a sched file. */
int vtb_vcpu_sched_migrations(const char *text, uint64_t *out);
/* The second field of a schedstat line. */
int vtb_vcpu_schedstat_delay(const char *text, uint64_t *out);
/* The three fields of a schedstat line: run time, run delay, slices. */
int vtb_vcpu_schedstat_fields(const char *text, uint64_t out[3]);
/* The "@key : N" line of a sched file (se.nr_migrations,
 * nr_involuntary_switches). */
int vtb_vcpu_sched_field(const char *text, const char *key, uint64_t *out);

#endif
