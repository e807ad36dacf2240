# The command line follows Unix and git habits: help from one table per
# command (with exit codes, within 100 columns), `vtbench help CMD`, -V,
# a "did you mean" for a mistyped option instead of the whole help, quiet
# ends when the reader of stdout goes away, listings with a header row and
# in TSV and JSON, readable values and messages, run's exit codes per
# signal and its warnings naming the boot.
. "$SRCDIR/tests/cli/lib.sh"
need python3 || exit 0
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
	exit 1
fi
"$MKFIXTURE" "$T/f.db" base clean 2>"$T/err" || notok "mkfixture" "$(cat "$T/err")"
CMDS="compare list merge plan run topo upload"

# 1. help: every command's, the top level's, the matrix reference and the
#    agent's fit in 100 columns
wide=""
check_width() { # name file
	_w=$(awk 'length($0) > 100 { printf "%d: %s\n", NR, $0 }' "$2" | head -n 3)
	[ -n "$_w" ] && wide="$wide
$1: $_w"
}
"$VTBENCH" --help >"$T/h" && check_width "vtbench --help" "$T/h"
for c in $CMDS; do
	expect_exit "$c --help exits 0" 0 "$VTBENCH" "$c" --help
	check_width "$c --help" "$T/out"
	expect_grep "$c --help lists its exit codes" "$T/out" "exit codes: 0 "
	expect_grep "... and -h, --help" "$T/out" "-h, --help"
	cp "$T/out" "$T/dash"
	expect_exit "vtbench help $c exits 0" 0 "$VTBENCH" help "$c"
	if cmp -s "$T/out" "$T/dash"; then ok "vtbench help $c is vtbench $c --help"; else
		notok "vtbench help $c is vtbench $c --help" "$(diff "$T/dash" "$T/out" | head)"; fi
done
"$VTBENCH" plan --help-matrix >"$T/h" && check_width "plan --help-matrix" "$T/h"
"$AGENT" --help >"$T/h" && check_width "vtbench-agent --help" "$T/h"
for w in $("$AGENT" --list --all | awk '/^[a-z]/ { print $1 }'); do
	"$AGENT" "$w" --help >"$T/h" && check_width "vtbench-agent $w --help" "$T/h"
done
expect_eq "every --help and --help-matrix line fits in 100 columns" "$wide" ""
"$VTBENCH" plan --help-matrix >"$T/h"
expect_grep "--help-matrix says a bare time is seconds" "$T/h" "a bare number means seconds"

# 2. -V, help for an unknown command
expect_exit "-V exits 0" 0 "$VTBENCH" -V
cp "$T/out" "$T/v"
expect_exit "--version exits 0" 0 "$VTBENCH" --version
expect_eq "-V is --version" "$(cat "$T/v")" "$(cat "$T/out")"
expect_exit "help of an unknown command exits 2" 2 "$VTBENCH" help plna
expect_grep "... with a suggestion" "$T/err" "unknown command 'plna' (did you mean 'plan'?)"
expect_exit "a mistyped top-level option exits 2" 2 "$VTBENCH" --verison
expect_grep "... with a suggestion" "$T/err" "(did you mean '--version'?)"

# 3. a mistyped option: one line with the nearest option, not the help
expect_exit "plan --formt exits 2" 2 "$VTBENCH" plan --formt json "$SRCDIR/examples/quick.conf"
expect_eq "... one line naming the nearest option and --help" "$(cat "$T/err")" \
	"vtbench plan: unknown option '--formt' (did you mean '--format'?); see 'vtbench plan --help'"
expect_eq "... nothing on stdout" "$(cat "$T/out")" ""
expect_exit "a mistyped value exits 2" 2 "$VTBENCH" compare --db "$T/f.db" --format jsno
expect_grep "... naming the choices and the nearest" "$T/err" \
	"unknown value 'jsno' for --format: expected text, md, html, json or csv (did you mean 'json'?)"
expect_exit "an ambiguous abbreviation exits 2" 2 "$VTBENCH" compare --db "$T/f.db" --agai x
expect_grep "... naming the candidates" "$T/err" "option '--agai' is ambiguous: --against, --against-campaign"
expect_exit "a missing value exits 2" 2 "$VTBENCH" list runs --db
expect_grep "... says which" "$T/err" "option '--db' needs a value (FILE)"
expect_exit "a value to a flag exits 2" 2 "$VTBENCH" list workloads --all=yes
expect_grep "... says so" "$T/err" "option '--all' takes no value"
expect_exit "an unknown short option exits 2" 2 "$VTBENCH" merge -x a b
expect_grep "... names it" "$T/err" "unknown option '-x'"

# 4. quiet SIGPIPE: stdout is a pipe nobody reads; what only shows ends
#    like cat (killed by SIGPIPE, no message), what writes keeps its code
#    (one python run for them all: its start-up is slow on a loaded machine)
cat >"$T/closed.py" <<'PY'
import os, signal, subprocess, sys
for line in open(sys.argv[1]):
    args = line.rstrip("\n").split("\t")
    r, w = os.pipe()
    os.close(r)
    p = subprocess.run(args, stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    rc = p.returncode
    got = "signal %s" % signal.Signals(-rc).name if rc < 0 else "exit %d" % rc
    err = p.stderr.decode().replace("\n", " | ")
    print(got + (" stderr: " + err if err else ""))
PY
cp "$T/f.db" "$T/up.db"
tab=$(printf '\t')
cat >"$T/cmds" <<CMDS
$VTBENCH${tab}compare$tab--db$tab$T/f.db
$VTBENCH${tab}compare$tab--db$tab$T/f.db$tab--format${tab}html
$VTBENCH${tab}plan$tab$SRCDIR/examples/quick.conf
$VTBENCH${tab}plan$tab$SRCDIR/examples/quick.conf$tab--format${tab}json
$VTBENCH${tab}list${tab}runs$tab--db$tab$T/f.db
$VTBENCH${tab}topo
$VTBENCH${tab}upload$tab--db$tab$T/up.db$tab--to${tab}influx://127.0.0.1:1/x$tab--dry-run
$VTBENCH${tab}run$tab--help
$VTBENCH${tab}merge$tab$T/m.db$tab$T/f.db
CMDS
python3 "$T/closed.py" "$T/cmds" >"$T/pipe" 2>&1
closed() { # line name want
	expect_eq "$2: $3, no message" "$(sed -n "$1p" "$T/pipe")" "$3"
}
closed 1 "compare into a closed pipe" "signal SIGPIPE"
closed 2 "compare --format html into a closed pipe" "signal SIGPIPE"
closed 3 "plan into a closed pipe" "signal SIGPIPE"
closed 4 "plan --format json into a closed pipe" "signal SIGPIPE"
closed 5 "list runs into a closed pipe" "signal SIGPIPE"
closed 6 "topo into a closed pipe" "signal SIGPIPE"
closed 7 "upload --dry-run into a closed pipe" "signal SIGPIPE"
closed 8 "run --help into a closed pipe (run ignores SIGPIPE)" "exit 0"
closed 9 "merge into a closed pipe: merged, its own exit code" "exit 0"
expect_eq "... and the merge is whole" "$(sql "$T/m.db" "select count(*) from campaign")" \
	"$(sql "$T/f.db" "select count(*) from campaign")"
# what people type: the first line, then nothing more
"$VTBENCH" compare --db "$T/f.db" 2>"$T/err" | head -n 1 >"$T/first"
expect_eq "compare | head -1: no message" "$(cat "$T/err")" ""
expect_eq "... the first line" "$(wc -l <"$T/first")" "1"

# 5. listings: a header row for people, TSV and JSON for programs
expect_exit "list runs" 0 "$VTBENCH" list runs --db "$T/f.db"
expect_eq "... opens with a header row" "$(head -n 1 "$T/out" | tr -s ' ')" \
	"CAMPAIGN STARTED ENDED STATUS HOST BOOTS OK FAILED MATRIX"
"$VTBENCH" list runs --db "$T/f.db" --format json >"$T/runs.json" 2>&1
"$VTBENCH" list cells --db "$T/f.db" --format json >"$T/cells.json" 2>&1
"$VTBENCH" list cells --db "$T/f.db" --format tsv >"$T/cells.tsv" 2>&1
expect_eq "list cells --format tsv opens with a header row of the JSON keys" \
	"$(head -n 1 "$T/cells.tsv")" "$(printf 'cell\tconfig\tconfiguration\tworkload\tname\tboots\tok\tparams')"
if out=$(python3 -c '
import csv, json, sqlite3, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "vtbench-list/1" and d["list"] == "runs", d
want = [r[0] for r in sqlite3.connect(sys.argv[2]).execute("select uuid from campaign")]
got = [r["campaign"] for r in d["rows"]]
assert sorted(got) == sorted(want), (got, want)
keys = {"campaign", "started", "ended", "status", "host", "boots", "ok", "failed", "matrix"}
for r in d["rows"]:
    assert set(r) == keys, r
    assert r["started"].endswith("Z") and isinstance(r["boots"], int), r
c = json.load(open(sys.argv[3]))
assert c["list"] == "cells" and c["rows"], c
for r in c["rows"]:
    assert isinstance(r["params"], dict) and len(r["cell"]) == 16, r
rows = list(csv.DictReader(open(sys.argv[4]), delimiter="\t", quoting=csv.QUOTE_NONE))
assert [r["cell"] for r in rows] == [r["cell"] for r in c["rows"]], rows[:2]
assert all(r["boots"] == str(j["boots"]) for r, j in zip(rows, c["rows"]))
print("%d runs, %d cells" % (len(got), len(rows)))
' "$T/runs.json" "$T/f.db" "$T/cells.json" "$T/cells.tsv" 2>&1); then
	ok "list --format json parses (every campaign and its fields; cells, params as objects); the TSV reads back as the same rows ($out)"
else
	notok "list --format json parses; the TSV reads back as the same rows" "$out"
fi
expect_exit "list runs -q" 0 "$VTBENCH" list runs --db "$T/f.db" -q
expect_eq "... only the campaign uuids" "$(sort "$T/out")" "$(sql "$T/f.db" "select uuid from campaign order by uuid")"
expect_exit "list sinks --format tsv" 0 "$VTBENCH" list sinks --format tsv
expect_grep "... has the pushgateway" "$T/out" "$(printf 'pushgateway\tpushgateway')"

# 6. readable values and messages
printf '[baseline]\ncpus = 1\n[workload w]\ntype = wakeup\nsleep = 100\n' >"$T/bare.conf"
expect_exit "a bare number out of a time's range exits 2" 2 "$VTBENCH" plan "$T/bare.conf" --host-topology "pack:1 core:2 pu:1"
expect_grep "... and says a bare number means seconds" "$T/err" "'sleep' must be between 0ns and 1s, got '100' (a bare number means seconds)"
printf '[baseline]\ncpus = 1\n[workload w]\ntype = wakeup\nruntime = 2\n[workload s]\ntype = membw\n' >"$T/ok.conf"
expect_exit "plan shows times and sizes with units" 0 "$VTBENCH" plan "$T/ok.conf" --host-topology "pack:1 l3:1(size=1016MiB) core:2 pu:1"
expect_grep "... runtime=2s" "$T/out" " runtime=2s "
expect_grep "... llc=1016MiB(auto)" "$T/out" " llc=1016MiB(auto) "
expect_grep "... sleep=100us" "$T/out" " sleep=100us "
expect_exit "plan --format json keeps the exact values" 0 "$VTBENCH" plan "$T/ok.conf" --host-topology "pack:1 l3:1(size=1016MiB) core:2 pu:1" --format json
expect_grep "... runtime in ns" "$T/out" '"runtime": "2000000000ns"'

# topo's CPU identity: a trimmed model name; no libcpuid codename from an
# older family (this machine's family 26 was "Abu Dhabi", a family-21 part)
"$VTBENCH" topo --format json >"$T/topo.json" 2>&1
if out=$(python3 -c '
import json, sys
cpu = json.load(open(sys.argv[1]))["cpu"]
name, fam, code = cpu.get("model_name") or "", cpu.get("family"), cpu.get("codename") or ""
assert name == " ".join(name.split()), repr(name)
assert not (cpu.get("vendor") == "AuthenticAMD" and fam and fam > 0x19 and code == "Abu Dhabi"), code
print("%r, family %s, codename %r" % (name, fam, code))
' "$T/topo.json" 2>&1); then ok "topo: the CPU model trimmed, no codename of another family ($out)"; else notok "topo: the CPU model trimmed, no codename of another family" "$out"; fi

# 7. run: warnings name the program and the boot; SIGTERM exits 143
need taskset || exit 0
printf '[global]\nreps = 1\n[baseline]\ncpuset = 0\ncpus = 1\n[workload t]\ntype = timer\nduration = 50ms\n' >"$T/busy.conf"
taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
"$VTBENCH" run "$T/busy.conf" --db "$T/busy.db" --quiet >"$T/out" 2>"$T/err"
kill "$hog"
expect_grep "a warning names the program and the boot" "$T/err" "vtbench run: boot 1/1 baseline cpus=1 rep 0: warning: machine busy before the boot: cpu0 "
