/* SPDX-License-Identifier: MIT */
/*
 * PID-1 duties of the agent inside a guest (it is the initramfs's /init):
 * mount the pseudo filesystems, route stdout to the record port and
 * stderr to the kernel console, and power the guest off at the end.
 * Nothing here is used outside PID 1.
 */
#ifndef VTB_PID1_H
#define VTB_PID1_H

#define VTB_PID1_RECORD_TTY "/dev/ttyS1"
#define VTB_PID1_JOB "/job.json"

/*
 * Mounts devtmpfs on /dev, proc, sysfs, and (best effort) debugfs and
 * cgroup2; opens /dev/console as fds 0-2, then puts @record_tty in raw
 * mode as stdout.  Returns 0, or -1 with vtb_error() when records cannot
 * be written at all (the caller can only power off then).  A missing
 * optional filesystem is not an error.
 */
int vtb_pid1_setup(const char *record_tty);

/* Flushes, syncs and powers the machine off; never returns (halts and
 * waits when poweroff itself fails). */
void vtb_pid1_poweroff(void) __attribute__((noreturn));

#endif
