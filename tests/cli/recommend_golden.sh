# `vtbench recommend` on the generated race (tests/tools/mkfixture.c,
# variant race: explore-quick's two guests and a third profile, under
# TCG): the text, JSON and HTML goldens, and what they must say of each
# loser beyond its statistic (issue: the loser `sched=isolate` was
# explained only by its statistic): its sched profile as applied in the
# guest (cmdline tokens, knobs with the values read back, the boots that
# disagree), its sched-domain levels per CPU beside the winner's (an
# isolated CPU has none), compare's TCG note (and none without TCG), and
# the scheduler counters farthest from the winner's (issue 28).  Regenerate the goldens
# with UPDATE_GOLDEN=1 after an intended change and review the diff.
. "$SRCDIR/tests/cli/lib.sh"
cd "$SRCDIR" || exit 1

E=tests/cli/expected
# text is sized to COLUMNS (else the terminal, also the one a pipe is read
# on, else 80): the goldens are 100 columns wide
COLUMNS=100
export COLUMNS
need sqlite3 || exit 0
need python3 || exit 0
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
	exit 1
fi
"$MKFIXTURE" "$T/race.db" race 2>"$T/err" || notok "mkfixture race" "$(cat "$T/err")"

golden() { # name expected-file args...
	_n=$1 _e=$2; shift 2
	"$VTBENCH" recommend "$@" >"$T/got" 2>"$T/err"; _rc=$?
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then cp "$T/got" "$_e"; fi
	if [ $_rc -eq 0 ] && cmp -s "$T/got" "$_e"; then ok "$_n"; return; fi
	notok "$_n" "exit $_rc" "$(diff -u "$_e" "$T/got" | head -n 30)" "$(head -c 400 "$T/err")"
}

golden "recommend text: the winner, its margins, why each other setup lost" \
	$E/recommend-race.txt --db "$T/race.db"
cp "$T/got" "$T/race.txt"
golden "recommend json: the document" $E/recommend-race.json --db "$T/race.db" --format json
cp "$T/got" "$T/race.json"
golden "recommend html: the page with the racing chart" $E/recommend-race.html \
	--db "$T/race.db" --format html
cp "$T/got" "$T/race.html"

# each loser: its profile as applied, its domains beside the winner's
expect_grep "text: isolate's profile as applied in every boot" "$T/race.txt" \
	"    sched profile isolate, as applied in all 3 boots: cmdline isolcpus=1 (present); no knobs"
expect_grep "text: isolate's CPUs have no sched domain, beside the winner's MC" "$T/race.txt" \
	"      its:          cpu0-1: none (3 of 3 boots, tree 9d0a2f92348f)
      the winner's: cpu0-1: MC (3 of 3 boots, tree 19e891631cdc)"
expect_grep "text: the boots that disagree, each with its rounds" "$T/race.txt" \
	"    sched profile tuned: the boots disagree"
COLUMNS=1000 "$VTBENCH" recommend --db "$T/race.db" >"$T/wide.txt" 2>"$T/err"
expect_grep "text: a knob that did not read back in one domain, with the round" "$T/wide.txt" \
	"      1 of 3 boots (round 2), not as set: no cmdline; knobs sysctl.kernel.numa_balancing = 0: read 0; debugfs.migration_cost_ns = 0: read 0; debugfs.domains/MC/imbalance_pct = 110: read 110 in 1, 117 in 1 of 2 files, not as set"
expect_grep "text: the winner's profile, without settings" "$T/race.txt" \
	"    the winner's sched profile default: no settings (nothing applied)"
expect_grep "text: why isolate lost, in the scheduler's counters" "$T/race.txt" \
	"    scheduler counters, cell wakeup, farthest from the winner's: the winner balanced at MC 60 times"
expect_grep "html: the same in the page" "$T/race.html" \
	"cell wakeup: the winner balanced at MC 60 times a second, this setup never"
expect_grep "text: compare's TCG note" "$T/race.txt" \
	"note: guests ran under TCG (software emulation): these ratios measure QEMU's emulator, not"
expect_grep "html: compare's TCG note" "$T/race.html" \
	"Note: guests ran under TCG (software emulation): these ratios measure QEMU's emulator, not virtualization overhead."
expect_grep "text: a round without a value reads -" "$T/race.txt" "  c3      63580       -   63513 x"
expect_eq "json: every loser's setup, with its counters farthest from the winner's" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for e in d["eliminations"]:
	s = e["setup"]
	print(e["label"].split()[-1], [i["metric"] for c in s["evidence"] for i in c["items"]][:2],
	      s["sched"]["profile"], s["sched"]["agree"],
	      [g["levels"] or "none" for t in s["trees"] for g in t["levels_by_cpu"]],
	      [(k["key"], k["ok"]) for a in s["sched"]["applied"] for k in a["knobs"]][-1:])
print(d["campaign"]["accelerators"], d["guest"]["sched"]["profile"], d["guest"]["sched"]["declared"])' "$T/race.json")" \
	"sched=isolate ['mc_lb_per_s', 'vcpu_busy_min_pct'] isolate True ['none'] []
sched=tuned ['mc_lb_failed_pct', 'mc_lb_per_s'] tuned False ['MC'] [('debugfs.domains/MC/imbalance_pct', False)]
tcg default {}"

# without TCG no note, in text or HTML
cp "$T/race.db" "$T/kvm.db"
sql "$T/kvm.db" "UPDATE boot SET accelerator = 'kvm' WHERE accelerator IS NOT NULL"
for f in text html; do
	expect_exit "recommend $f under KVM" 0 "$VTBENCH" recommend --db "$T/kvm.db" --format $f
	if grep -q "TCG" "$T/out"; then
		notok "recommend $f under KVM: no TCG note" "$(grep TCG "$T/out" | head -n 2)"
	else ok "recommend $f under KVM: no TCG note"; fi
done

# a stored sched record that is not JSON is refused as a damaged file
cp "$T/race.db" "$T/bad.db"
sql "$T/bad.db" "PRAGMA ignore_check_constraints = 1; UPDATE boot SET sched = '{oops' WHERE sched IS NOT NULL"
expect_exit "recommend: a damaged sched record is an input error" 2 \
	"$VTBENCH" recommend --db "$T/bad.db"
expect_grep "... naming the table and column" "$T/err" "column sched"

# boots that stored no sched record: said, with what the matrix set
cp "$T/race.db" "$T/norec.db"
sql "$T/norec.db" "UPDATE boot SET sched = NULL"
COLUMNS=1000 "$VTBENCH" recommend --db "$T/norec.db" >"$T/norec.txt" 2>"$T/err"
expect_grep "text: a profile whose boots recorded nothing says so and what was set" \
	"$T/norec.txt" \
	"    sched profile isolate: nothing recorded in its 3 boots (no sched record); set cmdline = isolcpus=1"
