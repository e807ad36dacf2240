# The shipped examples plan cleanly: the realistic 2-socket NUMA-server
# matrix on a described EPYC-like host (topologies/hosts/epyc-2s.synthetic:
# every configuration runnable, claims shown, domain XML written for each),
# and the demo's matrix on this host.
. "$SRCDIR/tests/cli/lib.sh"
host=$(cat "$SRCDIR/topologies/hosts/epyc-2s.synthetic")
mkdir -p "$T/xml"
expect_exit "numa-server.conf plans on a 2-socket host" 0 \
	"$VTBENCH" plan "$SRCDIR/examples/numa-server.conf" --host-topology "$host" --xml-dir "$T/xml"
if grep -q 'not runnable' "$T/out"; then notok "every numa-server configuration is runnable" "$(grep -B3 'not runnable' "$T/out" | head -20)"; else ok "every numa-server configuration is runnable"; fi
expect_eq "24 VM configurations (2 vcpus x 3 topologies x 2 pinnings x 2 profiles)" \
	"$(grep -c '^vm vcpus=' "$T/out")" "24"
expect_grep "mirror's claims are shown" "$T/out" "claims smt:"
expect_eq "one domain XML per VM configuration" "$(ls "$T/xml" | grep -c '\.xml$')" "24"
expect_exit "explore.conf plans on the 2-socket host (by its file)" 0 \
	"$VTBENCH" plan -q "$SRCDIR/examples/explore.conf" \
	--host-topology "$SRCDIR/topologies/hosts/epyc-2s.synthetic"
expect_grep "... its 12 candidates and their 4 baselines all runnable" "$T/out" "16 configurations (16 runnable)"
expect_exit "explore-quick.conf plans on a 2-core host" 0 \
	"$VTBENCH" plan -q "$SRCDIR/examples/explore-quick.conf" --host-topology 'pack:1 core:2 pu:1'

expect_grep "... 2 candidates and their one baseline" "$T/out" "3 configurations (3 runnable)"
expect_exit "quick.conf plans on this host" 0 "$VTBENCH" plan "$SRCDIR/examples/quick.conf"
if grep -q 'not runnable' "$T/out"; then notok "every quick configuration is runnable" "$(cat "$T/out")"; else ok "every quick configuration is runnable"; fi

# what the examples' comments claim is what plan says
claim=$(sed -n 's/^; plan: \([0-9]*\) configurations (\([0-9]*\) VM, \([0-9]*\) baseline) x \([0-9]*\) reps = \([0-9]*\) boots.*/\1 \2 \3 \5/p' "$SRCDIR/examples/numa-server.conf")
"$VTBENCH" plan "$SRCDIR/examples/numa-server.conf" --host-topology "$host" >"$T/ns" 2>&1
got="$(sed -n 's/^plan *\([0-9]*\) configurations.* \([0-9]*\) boots$/\1/p' "$T/ns") $(grep -c '^vm vcpus=' "$T/ns") $(grep -c '^baseline ' "$T/ns") $(sed -n 's/^plan .* \([0-9]*\) boots$/\1/p' "$T/ns")"
expect_eq "numa-server.conf's comment states the plan's counts (configurations, VM, baseline, boots)" "$got" "$claim"
if grep -qi 'not runnable yet\|run once the guest boot path' "$SRCDIR/examples/matrix.conf"; then
	notok "matrix.conf no longer says VMs cannot run yet"
else
	ok "matrix.conf no longer says VMs cannot run yet"
fi
expect_exit "matrix.conf plans on a 2-CPU host" 0 "$VTBENCH" plan -q "$SRCDIR/examples/matrix.conf" --host-topology 'pack:1 core:2 pu:1'
expect_grep "... with the counts its comment gives" "$T/out" "9 configurations (9 runnable), 9 cells, 90 boots"
grep -q '9 configurations, 90 boots' "$SRCDIR/examples/matrix.conf" && ok "... which it does" || notok "... which it does" "matrix.conf's comment lacks '9 configurations, 90 boots'"

# a host too small for some configurations lists them, and plans the rest
expect_exit "numa-server.conf on a 2-CPU host exits 0" 0 \
	"$VTBENCH" plan "$SRCDIR/examples/numa-server.conf" --host-topology 'pack:1 core:2 pu:1'
expect_eq "... every VM configuration listed as not runnable for this host" \
	"$(grep -c '^  not runnable: does not fit this host: too many vCPUs: ' "$T/out")" "24"
expect_grep "... the baseline on the host's CPUs stays runnable" "$T/out" "25 configurations (1 runnable)"
expect_exit "... and plan -q lists them" 0 \
	"$VTBENCH" plan -q "$SRCDIR/examples/numa-server.conf" --host-topology 'pack:1 core:2 pu:1'
expect_eq "... one line each" "$(grep -c '^not runnable: vm vcpus=' "$T/out")" "24"
