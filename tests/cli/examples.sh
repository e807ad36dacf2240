# The shipped examples plan cleanly: the realistic 2-socket NUMA-server
# matrix on a described EPYC-like host (every configuration runnable, claims
# shown, domain XML written for each), and the demo's matrix on this host.
. "$SRCDIR/tests/cli/lib.sh"
host='pack:2 numa:1 l3:8 core:8 pu:2'
mkdir -p "$T/xml"
expect_exit "numa-server.conf plans on a 2-socket host" 0 \
	"$VTBENCH" plan "$SRCDIR/examples/numa-server.conf" --host-topology "$host" --xml-dir "$T/xml"
if grep -q 'not runnable' "$T/out"; then notok "every numa-server configuration is runnable" "$(grep -B3 'not runnable' "$T/out" | head -20)"; else ok "every numa-server configuration is runnable"; fi
expect_eq "24 VM configurations (2 vcpus x 3 topologies x 2 pinnings x 2 profiles)" \
	"$(grep -c '^vm vcpus=' "$T/out")" "24"
expect_grep "mirror's claims are shown" "$T/out" "claims smt:"
expect_eq "one domain XML per VM configuration" "$(ls "$T/xml" | grep -c '\.xml$')" "24"
expect_exit "quick.conf plans on this host" 0 "$VTBENCH" plan "$SRCDIR/examples/quick.conf"
if grep -q 'not runnable' "$T/out"; then notok "every quick configuration is runnable" "$(cat "$T/out")"; else ok "every quick configuration is runnable"; fi
