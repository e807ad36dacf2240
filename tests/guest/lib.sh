# Helpers for the real-guest tests (sourced after tests/cli/lib.sh).  The
# libvirt daemon may be shared with other users: only domains that appear
# after the test began count as ours.
virsh_list() { virsh -c qemu:///system list --all --name 2>/dev/null | grep '^vtbench-' | sort; }
virsh_list >"$T/doms.before"
ours() { virsh_list | comm -13 "$T/doms.before" - | grep -c .; }
kernel=$(ls "$SRCDIR"/build/guest/kernel/boot/vmlinuz-* 2>/dev/null | head -n 1)
release=${kernel##*/vmlinuz-}
