#!/bin/sh
# Fetches Debian's current amd64 kernel for guests without installing it:
# `apt-get download` of the package linux-image-amd64 depends on, unpacked
# with `dpkg-deb -x` into DIR (default build/guest/kernel).  Idempotent:
# does nothing when DIR already holds a vmlinuz.  The harness falls back to
# this kernel when matrix.conf names none and /boot has none QEMU can read.
set -eu

dir=${1:-build/guest/kernel}
if ls "$dir"/boot/vmlinuz-* >/dev/null 2>&1; then
	exit 0
fi
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n 1)
if [ -z "$pkg" ]; then
	apt-get update -q >/dev/null
	pkg=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n 1)
fi
if [ -z "$pkg" ]; then
	echo "fetch-kernel: cannot tell which package linux-image-amd64 depends on" >&2
	exit 1
fi
tmp=$(mktemp -d)
chmod 0755 "$tmp" # apt-get download drops privileges to _apt where it can
trap 'rm -rf "$tmp"' EXIT
echo "fetch-kernel: downloading $pkg for guests (not installed)"
(cd "$tmp" && apt-get download -q "$pkg" >/dev/null)
mkdir -p "$dir"
dpkg-deb -x "$tmp"/"$pkg"_*.deb "$tmp/x"
# Only the kernel image and its config are needed: the guest loads no modules.
mkdir -p "$dir/boot"
cp "$tmp"/x/boot/vmlinuz-* "$tmp"/x/boot/config-* "$dir/boot/"
chmod 0644 "$dir"/boot/*
echo "fetch-kernel: $(ls "$dir"/boot/vmlinuz-*)"
