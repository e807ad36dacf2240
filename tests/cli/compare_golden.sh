# `vtbench compare` on the generated fixture database (tests/tools/mkfixture.c,
# FIXTURE_VERSION): the JSON document golden, exit codes for CI (a campaign
# with an injected slowdown against a clean one exits 1, clean against
# clean 0, --fail-on none 0), selection, output files, and bad input (exit 2
# with a message).  Regenerate the goldens with UPDATE_GOLDEN=1 after an
# intended change (and after changing FIXTURE_VERSION), and review the diff.
. "$SRCDIR/tests/cli/lib.sh"
cd "$SRCDIR" || exit 1

E=tests/cli/expected
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
	exit 1
fi

if [ "${UPDATE_GOLDEN:-}" = 1 ]; then "$MKFIXTURE" --version >$E/compare-fixture.version; fi
expect_eq "the goldens were made from this fixture version" \
	"$("$MKFIXTURE" --version)" "$(cat $E/compare-fixture.version)"

for v in base clean slow other gaps; do
	"$MKFIXTURE" "$T/$v.db" "$v" 2>"$T/err" || notok "mkfixture $v" "$(cat "$T/err")"
done
"$MKFIXTURE" "$T/both.db" base clean 2>"$T/err" || notok "mkfixture base clean" "$(cat "$T/err")"
"$MKFIXTURE" "$T/empty.db" 2>"$T/err" || notok "mkfixture (empty)" "$(cat "$T/err")"

golden() { # name expected-file expected-exit args...
	_n=$1 _e=$2 _x=$3; shift 3
	"$VTBENCH" compare "$@" >"$T/got" 2>"$T/err"; _rc=$?
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then cp "$T/got" "$_e"; fi
	if [ $_rc -eq "$_x" ] && cmp -s "$T/got" "$_e"; then ok "$_n"; return; fi
	notok "$_n" "exit $_rc (want $_x)" "$(diff -u "$_e" "$T/got" | head -n 30)" \
		"$(head -c 400 "$T/err")"
}

# guest vs host: "vm ... pinning=none" is 10% slower than its baseline
golden "compare json: each VM against its own baseline" $E/compare-own.json 1 \
	--db "$T/base.db" --format json
golden "compare json: tonight (slowdown injected) against last night" \
	$E/compare-against-slow.json 1 --db "$T/slow.db" --against "$T/base.db" --format json
golden "compare json: along the topology axis" $E/compare-axis-topology.json 0 \
	--db "$T/base.db" --axis topology --format json

# rows without an answer are answers: missing and error rows, never a
# vanished row or an exit 3 for the whole compare (the text says why)
golden "compare text: missing and error rows say why" $E/compare-gaps.txt 1 \
	--db "$T/gaps.db" --format text
expect_exit "compare json on the gaps: exit 1, not 3" 1 "$VTBENCH" compare --db "$T/gaps.db" \
	--format json
if command -v python3 >/dev/null 2>&1; then
	got=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted("%s/%s/%s=%s" % (r["x"]["config"][-2:], r["cell"], r["metric"], r["verdict"])
		     for r in d["rows"] if r["verdict"] in ("missing", "error"))))' "$T/out")
	expect_eq "compare: each gap is its own missing or error row" "$got" \
		"01/c2c/one_way_mean_ns=error 01/stream/copy=error 01/stream/triad=missing 02/c2c/one_way_mean_ns=error 02/wakeup/wakeup_p50=missing 02/wakeup/wakeup_p99=missing 03/c2c/c2c_levels=error 03/c2c/one_way_mean_ns=error 03/stream/copy=error"
fi
expect_exit "compare --fail-on none on the gaps exits 0" 0 \
	"$VTBENCH" compare --db "$T/gaps.db" --fail-on none
expect_exit "compare --fail-on possible: an inconclusive row past the threshold exits 1" 1 \
	"$VTBENCH" compare --db "$T/base.db" --fail-on possible --metric 'wakeup_p99' \
	--baseline 'baseline*' --workload wakeup
expect_exit "compare --fail-on possible alone ignores worse rows" 0 \
	"$VTBENCH" compare --db "$T/slow.db" --against "$T/base.db" --fail-on possible
expect_exit "compare --fail-on worse,possible" 1 \
	"$VTBENCH" compare --db "$T/slow.db" --against "$T/base.db" --fail-on worse,possible
expect_exit "compare --fail-on garbage exits 2" 2 \
	"$VTBENCH" compare --db "$T/base.db" --fail-on worse,
expect_grep "compare --fail-on garbage says what it takes" "$T/err" "worse, possible"

# the other formats of the same comparison
golden "compare text: each VM against its own baseline" $E/compare-own.txt 1 \
	--db "$T/base.db" --format text
golden "compare md: each VM against its own baseline" $E/compare-own.md 1 \
	--db "$T/base.db" --format md
golden "compare csv: each VM against its own baseline" $E/compare-own.csv 1 \
	--db "$T/base.db" --format csv

expect_exit "compare: the same document twice" 0 \
	"$VTBENCH" compare --db "$T/base.db" --format json --fail-on none
cp "$T/out" "$T/first.json"
"$VTBENCH" compare --db "$T/base.db" --format json --fail-on none >"$T/second.json" 2>&1
if cmp -s "$T/first.json" "$T/second.json"; then ok "compare: reproducible"; else
	notok "compare: reproducible" "$(diff "$T/first.json" "$T/second.json" | head)"; fi
expect_grep "compare json: names its schema" "$T/first.json" '"schema": "vtbench-compare/2"'
if grep -qiE 'nan|inf' "$T/first.json"; then
	notok "compare json: no NaN or infinity" "$(grep -niE 'nan|inf' "$T/first.json" | head -3)"
else ok "compare json: no NaN or infinity"; fi

# exit codes for CI
expect_exit "compare --against: an injected slowdown exits 1" 1 \
	"$VTBENCH" compare --db "$T/slow.db" --against "$T/base.db"
expect_grep "compare --against: the slowdown is worse" "$T/out" "worse"
expect_exit "compare --against: two clean campaigns exit 0" 0 \
	"$VTBENCH" compare --db "$T/clean.db" --against "$T/base.db"
expect_exit "compare --fail-on none: a worse row exits 0" 0 \
	"$VTBENCH" compare --db "$T/slow.db" --against "$T/base.db" --fail-on none
expect_exit "compare --against-campaign within one database" 0 \
	"$VTBENCH" compare --db "$T/both.db" --against-campaign f1c70000-0000-4000-8000-00000000000a
expect_exit "compare --campaign by prefix" 1 \
	"$VTBENCH" compare --db "$T/both.db" --campaign f1c70000-0000-4000-8000-00000000000a \
	--format json
expect_grep "compare --campaign picks that campaign" "$T/out" \
	'"uuid": "f1c70000-0000-4000-8000-00000000000a"'
expect_exit "compare --baseline by label glob" 1 \
	"$VTBENCH" compare --db "$T/base.db" --baseline 'vm*smt*'
expect_exit "compare --metric keeps the matching metrics" 1 \
	"$VTBENCH" compare --db "$T/base.db" --metric 'tri*' --format csv
expect_eq "compare --metric: only triad rows" "$(grep -c triad "$T/out")" 3

# the text report keeps what the guest tests read
expect_exit "compare text: exit 1 on the fixture" 1 "$VTBENCH" compare --db "$T/base.db"
expect_grep "compare text: guest vs host" "$T/out" "guest vs host"
expect_grep "compare text: the SMT guest's levels" "$T/out" "levels SMT (4 of 5 boots)"

# output files: the format from the extension
expect_exit "compare -o FILE.json" 1 "$VTBENCH" compare --db "$T/base.db" -o "$T/r.json"
if cmp -s "$T/r.json" $E/compare-own.json; then ok "compare -o FILE.json writes the json"; else
	notok "compare -o FILE.json writes the json" "$(head -c 300 "$T/r.json")"; fi
expect_exit "compare -o FILE.html" 1 "$VTBENCH" compare --db "$T/base.db" -o "$T/r.html"
expect_grep "compare -o FILE.html writes html" "$T/r.html" "<html"
expect_exit "compare -o - is stdout" 1 "$VTBENCH" compare --db "$T/base.db" -o - --format csv
expect_grep "compare csv: a header line names the schema" "$T/out" "vtbench-compare/2"
expect_exit "compare -o FILE.unknown: exit 2" 2 "$VTBENCH" compare --db "$T/base.db" -o "$T/r.xyz"
expect_grep "compare -o FILE.unknown: says so" "$T/err" "cannot tell the format of"

# bad input: exit 2, a message each
expect_exit "compare: empty database exits 2" 2 "$VTBENCH" compare --db "$T/empty.db"
expect_grep "compare: empty database is named" "$T/err" "no campaign in '$T/empty.db'"
expect_exit "compare: unknown campaign exits 2" 2 \
	"$VTBENCH" compare --db "$T/base.db" --campaign 0123
expect_grep "compare: unknown campaign is named" "$T/err" "no campaign '0123'"
expect_exit "compare: ambiguous campaign prefix exits 2" 2 \
	"$VTBENCH" compare --db "$T/both.db" --campaign f1c7
expect_grep "compare: ambiguous campaign prefix says so" "$T/err" "is ambiguous"
expect_exit "compare --against with no matching cells exits 2" 2 \
	"$VTBENCH" compare --db "$T/other.db" --against "$T/base.db"
expect_grep "compare --against with no matching cells says so" "$T/err" "matches one of campaign"
expect_exit "compare --metric matching nothing exits 2" 2 \
	"$VTBENCH" compare --db "$T/base.db" --metric 'nothing*'
expect_grep "compare --metric matching nothing says so" "$T/err" "no metric matches 'nothing*'"
expect_exit "compare --workload unknown exits 2" 2 \
	"$VTBENCH" compare --db "$T/base.db" --workload nothing
expect_exit "compare --baseline matching nothing exits 2" 2 \
	"$VTBENCH" compare --db "$T/base.db" --baseline 'nothing*'
expect_exit "compare --axis unknown exits 2" 2 "$VTBENCH" compare --db "$T/base.db" --axis nope
expect_exit "compare --axis host without --against exits 2" 2 \
	"$VTBENCH" compare --db "$T/base.db" --axis host
expect_exit "compare --against a missing database exits 2" 2 \
	"$VTBENCH" compare --db "$T/base.db" --against "$T/none.db"
expect_exit "compare --threshold garbage exits 2" 2 \
	"$VTBENCH" compare --db "$T/base.db" --threshold x
expect_exit "compare --cov-limit garbage exits 2" 2 \
	"$VTBENCH" compare --db "$T/base.db" --cov-limit noise=3
expect_exit "compare --format unknown exits 2" 2 "$VTBENCH" compare --db "$T/base.db" --format yaml
