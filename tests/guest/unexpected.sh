# A guest that builds another topology than the plan says is marked
# unexpected-topology, with the difference stored: two single-core sockets
# in two NUMA cells, booted with numa=off, see one node and a PKG level
# instead of two nodes and a NUMA level.  Its samples are left out of
# compare's rows, and run exits 1.  A profile that isolates CPUs (a cpuset
# partition) reshapes the domains on purpose: the difference is kept but
# the boot is not marked.
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
vcpus = 2
topology = two
pinning = strict
memory = 512M
sched = numaoff, part
[topology two]
sockets = 2
cores = 1
cells = 2
[sched numaoff]
cmdline = numa=off
[sched part]
cpuset.partition = 1
[workload wakeup]
type = wakeup
runtime = 200ms
CONF

expect_exit "run exits 1 (a boot is unexpected-topology)" 1 "$VTBENCH" run "$T/m.conf" --db "$T/r.db"
expect_grep "run says how many" "$T/out" "1 unexpected-topology"
expect_grep "run warns with the difference" "$T/err" "the guest's topology differs from the plan: cpu0: levels PKG, plan NUMA"
pq() { sql "$T/r.db" "select $2 from boot b join config c on c.id = b.config_id where json_extract(c.params, '\$.sched') = '$1'"; }
expect_eq "numa=off: the boot is unexpected-topology, the check differs" \
	"$(pq numaoff "b.status || ' ' || b.topology_check")" "unexpected-topology differs"
got=$(pq numaoff b.topology_diff)
case "$got" in
*"cpu1: node 0, plan 1"*"levels PKG, plan NUMA"*) ok "numa=off: the difference names the node and the levels" ;;
*) notok "numa=off: the difference names the node and the levels" "got '$got'" ;;
esac
expect_eq "numa=off: the difference is one line" "$(pq numaoff "instr(b.topology_diff, char(10))")" "0"
expect_eq "numa=off: the guest's results are stored" \
	"$(pq numaoff "(select count(*) from result r where r.boot_id = b.id and r.status = 'ok')")" "1"
expect_eq "partition: the boot is ok, the levels unchecked, the difference kept" \
	"$(pq part "b.status || ' ' || b.topology_check || ' ' || (b.topology_diff is not null) || coalesce(': ' || b.error, '')")" \
	"ok unchecked 1"
expect_exit "compare exits 0" 0 "$VTBENCH" compare --db "$T/r.db"
# the per-configuration table names configurations c1, c2... (the legend)
c=$(sed -n 's/^  \(c[0-9]*\) *= .*sched=numaoff.*/\1/p' "$T/out" | head -n 1)
if [ -n "$c" ] && ! grep -q "^$c  *wakeup " "$T/out"; then
	ok "compare leaves the unexpected boot's samples out"
else notok "compare leaves the unexpected boot's samples out" "'$c': $(grep "^$c " "$T/out")"; fi
expect_grep "compare lists the unexpected boot before the tables" "$T/out" "$c: 1 boot unexpected-topology (rep "
expect_grep "compare's evidence counts it" "$T/out" "0 of 1 boots as planned, 1 unexpected-topology"
expect_eq "no domain of ours remains" "$(ours)" "0"
