#!/bin/sh
# Builds the guest initramfs: the static vtbench-agent as /init and the
# empty mount points it fills (dev, proc, sys).  Nothing else: no shell,
# no libraries, no modules.  Reproducible (sorted names, owner 0, fixed
# mtimes, gzip without a name or time stamp).
#
#   scripts/mkinitramfs.sh AGENT OUT.cpio.gz
set -eu

agent=$1
out=$2
if ! file_is_static=$(LC_ALL=C readelf -d "$agent" 2>/dev/null); then
	echo "mkinitramfs: '$agent' is not an ELF binary" >&2
	exit 1
fi
if echo "$file_is_static" | grep -q NEEDED; then
	echo "mkinitramfs: '$agent' is linked dynamically; the guest has no libraries" >&2
	exit 1
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/dev" "$stage/proc" "$stage/sys"
cp "$agent" "$stage/init"
chmod 0755 "$stage/init"
touch -d @0 "$stage/init" "$stage/dev" "$stage/proc" "$stage/sys" "$stage"
mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) | gzip -9n >"$out.tmp"
mv "$out.tmp" "$out"
