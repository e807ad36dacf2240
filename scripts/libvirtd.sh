#!/bin/sh
# Brings up a libvirt system daemon where no init system runs one
# (containers, CI), and stops only what it started, by pid.
#
#   scripts/libvirtd.sh start   # no-op when a daemon already answers
#   scripts/libvirtd.sh stop    # stops the daemons this script started
#   scripts/libvirtd.sh status
#
# Where systemd is PID 1 the distribution's service is used as it is and
# this script refuses to start anything.  It writes /etc/libvirt/qemu.conf
# only when that file does not exist (QEMU as root, no relabelling): a
# configuration someone wrote is never touched.  `stop` leaves that file
# and the system user libvirt-qemu in place (the next start reuses them).
set -eu

RUNDIR=${VTBENCH_LIBVIRT_RUNDIR:-/run/vtbench}
SOCK=/run/libvirt/libvirt-sock
LIBVIRTD_PID=$RUNDIR/libvirtd.pid
VIRTLOGD_PID=$RUNDIR/virtlogd.pid

say() { echo "libvirtd.sh: $*" >&2; }

# alive PIDFILE NAME: the pid in PIDFILE runs and is NAME (a stale pid
# file whose pid was reused by another program must not get it killed)
alive() {
	[ -s "$1" ] || return 1
	_pid=$(cat "$1")
	kill -0 "$_pid" 2>/dev/null && [ "$(cat "/proc/$_pid/comm" 2>/dev/null)" = "$2" ]
}

answers() { [ -S "$SOCK" ] && virsh -c qemu:///system version >/dev/null 2>&1; }

start() {
	if answers; then
		exit 0
	fi
	if [ "$(cat /proc/1/comm 2>/dev/null)" = systemd ]; then
		say "systemd runs this machine: start the distribution's service (systemctl start libvirtd)"
		exit 1
	fi
	if [ "$(id -u)" != 0 ]; then
		say "starting the system daemon needs root"
		exit 1
	fi
	for b in libvirtd virtlogd qemu-system-x86_64; do
		command -v "$b" >/dev/null || {
			say "'$b' is missing: run scripts/install-deps.sh"
			exit 1
		}
	done
	mkdir -p "$RUNDIR" /etc/libvirt /var/log/libvirt/qemu /var/lib/libvirt /var/cache/libvirt /run/libvirt
	if ! getent passwd libvirt-qemu >/dev/null; then
		getent group libvirt-qemu >/dev/null || groupadd --system libvirt-qemu
		useradd --system --no-create-home --home-dir /var/lib/libvirt \
			--shell /usr/sbin/nologin -g libvirt-qemu libvirt-qemu
	fi
	if [ ! -e /etc/libvirt/qemu.conf ]; then
		cat >/etc/libvirt/qemu.conf <<'CONF'
# Written by vtbench scripts/libvirtd.sh for a machine without systemd.
user = "root"
group = "root"
dynamic_ownership = 0
remember_owner = 0
security_driver = "none"
CONF
	fi
	# The daemons outlive us and keep every descriptor they inherit: a
	# caller's flock(1) lock (the guest tests' lock file) would be held
	# for ever.  They get stdin, stdout and stderr only.
	if ! alive "$VIRTLOGD_PID" virtlogd; then
		virtlogd --daemon --pid-file "$VIRTLOGD_PID" 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
	fi
	if ! alive "$LIBVIRTD_PID" libvirtd; then
		libvirtd --daemon --pid-file "$LIBVIRTD_PID" 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
	fi
	i=0
	while [ ! -S "$SOCK" ]; do
		i=$((i + 1))
		if [ $i -gt 300 ]; then
			say "libvirtd did not create $SOCK within 30 s"
			exit 1
		fi
		sleep 0.1
	done
	# The first connection probes QEMU's capabilities (~7 s here).
	if ! virsh -c qemu:///system version >/dev/null; then
		say "libvirtd runs but does not answer on qemu:///system"
		exit 1
	fi
}

stop_one() {
	if alive "$1" "$2"; then
		pid=$(cat "$1")
		kill "$pid"
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
			i=$((i + 1))
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
	fi
	rm -f "$1"
}

case "${1:-}" in
start) start ;;
stop)
	stop_one "$LIBVIRTD_PID" libvirtd
	stop_one "$VIRTLOGD_PID" virtlogd
	;;
status)
	if answers; then echo "libvirtd answers on qemu:///system"; else
		echo "no libvirt daemon answers"
		exit 1
	fi
	;;
*)
	echo "usage: $0 start|stop|status" >&2
	exit 2
	;;
esac
