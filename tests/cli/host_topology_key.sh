# host_topology = in a matrix: plan plans for that host (a file next to the
# matrix is found), --host-topology wins over it, run warns and measures
# this machine.
. "$SRCDIR/tests/cli/lib.sh"
mkdir -p "$T/m"
cp "$SRCDIR/tests/fixtures/topo/epyc-rome-nps4.xml" "$T/m/host.xml"
cat >"$T/m/file.conf" <<'CONF'
[global]
host_topology = host.xml
[vm]
vcpus = 8
topology = mirror
pinning = strict
[workload s]
type = debug
CONF
cat >"$T/m/synth.conf" <<'CONF'
[global]
host_topology = pack:2 numa:2 l3:2 core:4 pu:2
reps = 1
[baseline]
cpus = 1
[workload s]
type = debug
CONF
# relative matrix paths below: run from $T with an absolute binary
case "$VTBENCH" in /*) ;; *) VTBENCH=$(pwd)/$VTBENCH ;; esac
case "${VTBENCH_AGENT:=$AGENT}" in /*) ;; *) VTBENCH_AGENT=$(pwd)/$VTBENCH_AGENT ;; esac
export VTBENCH_AGENT
cd "$T" || exit 1
expect_exit "plan with host_topology = FILE next to the matrix" 0 "$VTBENCH" plan m/file.conf
expect_grep "the plan is for the file's host" "$T/out" "host     xml:m/host.xml: 1 package, 4 nodes, 16 LLCs, 64 cores, 128 PUs"
expect_exit "plan with a synthetic host_topology" 0 "$VTBENCH" plan m/synth.conf
expect_grep "the plan is for the synthetic host" "$T/out" "2 packages, 4 nodes, 8 LLCs, 32 cores, 64 PUs"
expect_exit "--host-topology wins over the key" 0 "$VTBENCH" plan m/synth.conf --host-topology 'pack:1 core:3 pu:1'
expect_grep "the option's host is planned" "$T/out" "synthetic:pack:1 core:3 pu:1: 1 package"
cat >"$T/m/bad.conf" <<'CONF'
[global]
host_topology = missing-host.xml
[baseline]
cpus = 1
[workload s]
type = debug
CONF
expect_exit "a host_topology that cannot be loaded is an input error" 2 "$VTBENCH" plan m/bad.conf
expect_exit "run measures this machine" 0 "$VTBENCH" run m/synth.conf --db "$T/r.db" --quiet
expect_grep "run warns that host_topology is for plan" "$T/err" "is for vtbench plan: run measures this machine"
