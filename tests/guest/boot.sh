# A real guest through libvirt + QEMU: a 2-vCPU VM runs a tiny membw cell
# beside a 2-CPU baseline; results are stored per boot with the guest's
# provenance, the header proves which kernel booted with which nonce, the
# comparison shows guest vs host, and no domain of ours is left.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need virsh || exit 0
. "$SRCDIR/tests/guest/lib.sh"
if [ -z "$kernel" ]; then notok "fetched guest kernel" "run scripts/fetch-kernel.sh"; exit 0; fi

cat >"$T/m.conf" <<CONF
[global]
reps = 1
timeout = 2m
kernel = $kernel
[baseline]
cpus = 2
[vm]
vcpus = 2
topology = cores
memory = 512M
[workload stream]
type = membw
size = 4M
iterations = 2
CONF

expect_exit "plan shows the VM configuration as runnable" 0 "$VTBENCH" plan "$T/m.conf"
if grep -q 'not runnable' "$T/out"; then notok "no configuration is left out" "$(cat "$T/out")"; else ok "no configuration is left out"; fi

expect_exit "run exits 0" 0 "$VTBENCH" run "$T/m.conf" --db "$T/r.db"
expect_grep "run says what the guests run on" "$T/err" "guests: "
expect_grep "run names the guest kernel" "$T/err" "kernel $release"
got=$(sql "$T/r.db" "select kind || ':' || status from boot order by kind")
expect_eq "one baseline and one VM boot, both ok" "$(echo $got)" "baseline:ok vm:ok"
got=$(sql "$T/r.db" "select group_concat(metric, ',') from (select s.metric from sample s join result r on r.id = s.result_id join boot b on b.id = r.boot_id where b.kind = 'vm' and s.unit = 'MB/s' and s.value > 0 order by s.metric)")
expect_eq "the guest's four STREAM metrics and their means are stored" "$got" \
	"add,add_mean,copy,copy_mean,scale,scale_mean,triad,triad_mean"
got=$(sql "$T/r.db" "select json_extract(header, '\$.kernel') from boot where kind = 'vm'")
expect_eq "the guest header's uname -r is the booted kernel" "$got" "$release"
got=$(sql "$T/r.db" "select instr(json_extract(header, '\$.cmdline'), 'vtbench.nonce=' || nonce) > 0 from boot where kind = 'vm'")
expect_eq "the guest's /proc/cmdline carries the boot nonce" "$got" "1"
got=$(sql "$T/r.db" "select json_extract(header, '\$.pid1') || ' ' || json_extract(header, '\$.cpus') from boot where kind = 'vm'")
expect_eq "the agent ran as PID 1 on 2 vCPUs" "$got" "1 0-1"
got=$(sql "$T/r.db" "select accelerator || ' ' || cpu_model || ' ' || guest_kernel from boot where kind = 'vm'")
case "$got" in
"tcg kvm64 $release" | "kvm host-passthrough $release") ok "accelerator, CPU model and guest kernel are stored" ;;
*) notok "accelerator, CPU model and guest kernel are stored" "got '$got'" ;;
esac
got=$(sql "$T/r.db" "select (libvirt_version like '_%.%.%') + (qemu_version like '_%.%.%') from boot where kind = 'vm'")
expect_eq "libvirt and QEMU versions are stored" "$got" "2"
got=$(sql "$T/r.db" "select (live_xml like '%<domain type=%') + (live_xml like '%<on_crash>destroy</on_crash>%') + (live_xml like '%<panic model=''isa''%') + (live_xml like '%<topology sockets=''1'' dies=''1'' cores=''2'' threads=''1''/>%') from boot where kind = 'vm'")
expect_eq "the live domain XML is stored (destroy on crash, panic device, 1x2 topology)" "$got" "4"
got=$(sql "$T/r.db" "select console_tail like '%Run /init as init process%' from boot where kind = 'vm'")
expect_eq "the kernel console's tail is stored" "$got" "1"

# one boot a side (reps = 1): nothing can be judged, and the default gate
# says so with exit 1 (issue 26); the table is shown all the same
expect_exit "compare exits 1: one boot a side cannot be judged" 1 "$VTBENCH" compare --db "$T/r.db"
expect_grep "... and says what is needed" "$T/out" "nothing could be judged: 2 boots a side are needed"
expect_grep "compare has a guest vs host table" "$T/out" "guest vs host"
expect_grep "the guest is compared with its 2-CPU baseline" "$T/out" "stream (membw), baseline c1"
n=$(grep -cE '^(copy|scale|add|triad) \(\+\) ' "$T/out")
expect_eq "one guest vs host row per STREAM metric" "$n" "4"

expect_eq "no domain of ours remains" "$(ours)" "0"
left=0
for u in $(sql "$T/r.db" "select uuid from boot"); do
	[ -e "${VTBENCH_GUEST_DIR:-/var/lib/vtbench/guest}/boot-$u.img" ] && left=$((left + 1))
done
expect_eq "no per-boot image remains" "$left" "0"
