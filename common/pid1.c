/* SPDX-License-Identifier: MIT */
/*
 * The agent as PID 1.  The kernel starts /init with no /dev populated
 * and possibly without fds 0-2, so the console is opened only after
 * devtmpfs is mounted.  The record port is put in raw mode: a cooked
 * tty would turn "\n" into "\r\n" and could eat bytes as control
 * characters.  PID 1 must never exit (the kernel panics), so the end is
 * always reboot(RB_POWER_OFF), which ACPI turns into a domain shutdown.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "pid1.h"
#include "vtbutil.h"

static void mount_one(const char *src, const char *dir, const char *type, bool required,
		      int *failed)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, MS_NOSUID | MS_NOEXEC | (strcmp(type, "devtmpfs") ? MS_NODEV : 0),
		  NULL) == 0 ||
	    errno == EBUSY)
		return;
	fprintf(stderr, "vtbench-agent: cannot mount %s on %s: %s\n", type, dir, strerror(errno));
	if (required)
		*failed = 1;
}

int vtb_pid1_setup(const char *record_tty)
{
	struct termios t;
	int failed = 0, fd;

	mount_one("devtmpfs", "/dev", "devtmpfs", true, &failed);
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	mount_one("proc", "/proc", "proc", true, &failed);
	mount_one("sysfs", "/sys", "sysfs", true, &failed);
	mount_one("debugfs", "/sys/kernel/debug", "debugfs", false, &failed);
	mount_one("cgroup2", "/sys/fs/cgroup", "cgroup2", false, &failed);
	if (failed)
		fprintf(stderr, "vtbench-agent: a required filesystem is missing; going on\n");
	fd = open(record_tty, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return vtb_error("cannot open the record port '%s': %s", record_tty,
				 strerror(errno));
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		cfsetospeed(&t, B115200);
		if (tcsetattr(fd, TCSANOW, &t) != 0)
			fprintf(stderr, "vtbench-agent: cannot make '%s' raw: %s\n", record_tty,
				strerror(errno));
	}
	if (dup2(fd, STDOUT_FILENO) < 0) {
		close(fd);
		return vtb_error("cannot route stdout to '%s': %s", record_tty, strerror(errno));
	}
	if (fd != STDOUT_FILENO)
		close(fd);
	return 0;
}

void vtb_pid1_poweroff(void)
{
	fflush(stdout);
	fflush(stderr);
	/* Let the UART drain: tcdrain waits until the last byte left. */
	tcdrain(STDOUT_FILENO);
	sync();
	reboot(RB_POWER_OFF);
	fprintf(stderr, "vtbench-agent: poweroff failed: %s\n", strerror(errno));
	for (;;)
		pause();
}
