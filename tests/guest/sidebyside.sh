# vms = 2 on 1 vCPU each: both guests boot together (created paused,
# resumed at once), on disjoint pCPUs, each with its own stored boot,
# records and placement samples, marked as one side-by-side group.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need virsh || exit 0
. "$SRCDIR/tests/guest/lib.sh"
if [ -z "$kernel" ]; then notok "fetched guest kernel" "run scripts/fetch-kernel.sh"; exit 0; fi

cat >"$T/m.conf" <<CONF
[global]
reps = 1
timeout = 3m
kernel = $kernel
[baseline]
enabled = no
[vm]
vcpus = 1
vms = 2
pinning = strict
memory = 256M
[workload wakeup]
type = wakeup
runtime = 200ms
CONF

expect_exit "plan places two VMs" 0 "$VTBENCH" plan "$T/m.conf"
expect_grep "VM 1 of the plan has its own pCPU" "$T/out" "vm 1: pcpus 1"
expect_exit "run exits 0" 0 "$VTBENCH" run "$T/m.conf" --db "$T/r.db"
q() { sql "$T/r.db" "$1"; }
expect_eq "two VM boots, both ok, indexes 0 and 1" \
	"$(echo $(q "select vm_index || ':' || status || ':' || vms from boot order by vm_index"))" "0:ok:2 1:ok:2"
expect_eq "both in one side-by-side group" \
	"$(q "select count(distinct group_uuid) || ' ' || count(group_uuid) from boot")" "1 2"
expect_eq "disjoint pCPUs" "$(echo $(q "select cpus from boot order by vm_index"))" "0 1"
expect_eq "each guest's results are stored under its own boot" \
	"$(q "select count(distinct r.boot_id) from result r join sample s on s.result_id = r.id where r.status = 'ok'")" "2"
expect_eq "each vCPU was sampled on its own pCPU" \
	"$(echo $(q "select json_extract(placement, '\$.vcpus[0].cpus_seen') from boot order by vm_index"))" "0 1"
expect_eq "the two boots ran at the same time (their intervals overlap)" \
	"$(q "select max(started_ns) < min(ended_ns) from boot")" "1"
expect_exit "compare exits 0" 0 "$VTBENCH" compare --db "$T/r.db"
expect_eq "no domain of ours remains" "$(ours)" "0"
