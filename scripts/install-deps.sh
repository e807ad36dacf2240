#!/bin/sh
# Installs every Debian package vtbench needs to build, test and run.
# Idempotent: installs only what is missing; quiet when nothing is.
# This list is the one place packages are named; `--list` prints it for
# other installers, `--missing` only those not installed (cheap: dpkg's
# status, no package cache).
set -eu

PACKAGES="
build-essential
pkg-config
git
clang-format
clang
libclang-rt-dev
llvm
bsdutils
libvirt-dev
libhwloc-dev
hwloc
libcpuid-dev
libsqlite3-dev
sqlite3
libcurl4-openssl-dev
libxml2-dev
libxml2-utils
libjansson-dev
libgsl-dev
libssl-dev
libcriterion-dev
libc6-dev
cpio
procps
qemu-system-x86
libvirt-daemon
libvirt-daemon-driver-qemu
libvirt-clients
rt-tests
likwid
mbw
perl
python3-numpy
python3-scipy
python3
chromium
curl
influxdb
prometheus-pushgateway
jq
zsh
fish
rsync
man-db
groff-base
ansible
ansible-lint
"

# Where systemd runs the machine, the distribution's libvirt service is
# used as it is; elsewhere scripts/libvirtd.sh starts the daemon by hand.
if [ "$(cat /proc/1/comm 2>/dev/null)" = systemd ]; then
	PACKAGES="$PACKAGES libvirt-daemon-system"
fi

if [ "${1:-}" = "--list" ]; then
	printf '%s\n' $PACKAGES
	exit 0
fi

# one dpkg-query for the whole list (unknown names are left out of its
# answer, so they count as missing)
# shellcheck disable=SC2086
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $PACKAGES 2>/dev/null |
	awk '$2 == "install" && $3 == "ok" && $4 == "installed" { print $1 }')
# shellcheck disable=SC2086
missing=$(printf '%s\n' $PACKAGES | awk -v have="$installed" '
	BEGIN { n = split(have, a, "\n"); for (i = 1; i <= n; i++) h[a[i]] = 1 }
	!($1 in h) { printf " %s", $1 }')
if [ "${1:-}" = "--missing" ]; then
	[ -z "$missing" ] || printf '%s\n' $missing
	exit 0
fi
# The guest kernel of last resort (used when /boot has none QEMU can
# read and matrix.conf names none): Debian's, unpacked into build/guest.
fetch_kernel() {
	sh "$(dirname "$0")/fetch-kernel.sh" "$(dirname "$0")/../build/guest/kernel"
}
[ -z "$missing" ] && { fetch_kernel; exit 0; }

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing Debian packages:$missing" >&2
	echo "install-deps: run as root: sudo $0" >&2
	exit 1
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
fetch_kernel
echo "install-deps: done"
