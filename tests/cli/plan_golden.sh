# Golden plans: `vtbench plan` on fixture matrices for described hosts
# (hwloc synthetic strings, never this machine).  Regenerate with
# UPDATE_GOLDEN=1 after an intended change, and review the diff.
. "$SRCDIR/tests/cli/lib.sh"
cd "$SRCDIR" || exit 1

golden() { # name expected-file args...
	_n=$1 _e=$2; shift 2
	"$VTBENCH" plan "$@" >"$T/got" 2>"$T/err"; _rc=$?
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then cp "$T/got" "$_e"; fi
	if [ $_rc -eq 0 ] && cmp -s "$T/got" "$_e"; then ok "$_n"; return; fi
	notok "$_n" "exit $_rc" "$(diff -u "$_e" "$T/got" | head -n 30)" "$(head -c 400 "$T/err")"
}

TWO_SOCKETS="pack:2 l3:2(size=32MiB) core:4 pu:2"
golden "plan full.conf on a 2-socket host (text)" tests/cli/expected/plan-full.txt \
	tests/fixtures/matrix/full.conf --host-topology "$TWO_SOCKETS"
golden "plan full.conf on a 2-socket host (json)" tests/cli/expected/plan-full.json \
	tests/fixtures/matrix/full.conf --host-topology "$TWO_SOCKETS" --format json
golden "plan quick.conf on a 2-core host" tests/cli/expected/plan-quick.txt \
	examples/quick.conf --host-topology "pack:1 l3:1(size=16MiB) core:2 pu:1"

# keys do not depend on section order or whitespace
awk 'BEGIN{RS=""; ORS="\n\n"} {b[NR]=$0} END{for(i=NR;i>=1;i--) print b[i]}' \
	tests/fixtures/matrix/full.conf | sed 's/ = /=/; s/^\(nt\) *= *no, yes/\1 = no,yes/' >"$T/reordered.conf"
"$VTBENCH" plan tests/fixtures/matrix/full.conf --host-topology "$TWO_SOCKETS" --format json |
	grep '"key"' | sort >"$T/k1"
"$VTBENCH" plan "$T/reordered.conf" --host-topology "$TWO_SOCKETS" --format json |
	grep '"key"' | sort >"$T/k2"
if cmp -s "$T/k1" "$T/k2" && [ -s "$T/k1" ]; then ok "keys survive reordered sections and whitespace"; else notok "keys survive reordered sections and whitespace" "$(diff "$T/k1" "$T/k2" | head)"; fi

# the matrix reference comes from the same tables that parse
expect_exit "plan --help-matrix exits 0" 0 "$VTBENCH" plan --help-matrix
expect_grep "--help-matrix documents [baseline] cpus" "$T/out" "cpus"
expect_grep "--help-matrix documents membw's options" "$T/out" "iterations"

expect_exit "a bad host topology is an input error" 2 "$VTBENCH" plan examples/quick.conf --host-topology "pack:zz"
expect_grep "a bad host topology is named" "$T/err" "pack:zz"
