# vtbench explore and recommend on bare-metal candidates (issue 19): a
# race whose answer is known (one candidate's workload made eight times
# slower through its job), its elimination stored with round and
# evidence, a tie (constant values: same), the boot budget, futility (a
# near-tie stopped `futile` before the cap), SIGINT in the
# middle and --resume to the same winner, recommend's text, JSON and HTML
# (the racing chart), merge carrying the race, and the input errors.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0

conf() { # file min_rounds mode
	cat >"$1" <<CONF
[global]
timeout = 60s
[baseline]
cpus = 1, 2
[workload spin]
type = debug
mode = $3
work = 2000000
[explore]
objective = spin/seconds
min_rounds = $2
max_rounds = 12
CONF
}
conf "$T/race.conf" 3 spin
keyof() { # conf label
	"$VTBENCH" plan "$1" --format json | python3 -c 'import json,sys
print([c["key"] for c in json.load(sys.stdin)["configurations"] if c["label"] == sys.argv[1]][0])' "$2"
}
slow=$(keyof "$T/race.conf" "baseline cpus=1")
fast=$(keyof "$T/race.conf" "baseline cpus=2")
# The real agent, its spin seconds rewritten (CRC and all) to fixed
# values: the same 2.5% spread round by round for every configuration,
# $slow's FACTOR times as long.  The race's decisions are then the
# statistics' alone, not the machine's load (a loaded machine once took
# a real eightfold spin four rounds to tell apart).
cat >"$T/rewrite.py" <<'PY'
import json, sys, zlib
value = float(sys.argv[1])
for line in sys.stdin:
    if line.startswith("@vtb1 "):
        _, nonce, rest = line.rstrip("\n").split(" ", 2)
        text = rest.rsplit(" ", 1)[0]
        rec = json.loads(text)
        if rec.get("type") == "sample" and rec.get("metric") == "seconds":
            rec["value"] = value
            text = json.dumps(rec, separators=(",", ":"))
            line = "@vtb1 %s %s %08x\n" % (nonce, text, zlib.crc32(text.encode()))
    sys.stdout.write(line)
    sys.stdout.flush()
PY
# fixed_agent FILE FACTOR
fixed_agent() {
	cat >"$1" <<SH
#!/bin/sh
cat /dev/fd/3 >"$T/job.\$\$"
rep=\$(sed -n 's/.*"rep":\([0-9]*\).*/\1/p' "$T/job.\$\$")
case \$rep in 0) v=1.0 ;; 1) v=1.025 ;; 2) v=0.975 ;; *) v=1.0 ;; esac
grep -q '"config":"$slow"' "$T/job.\$\$" && v=\$(python3 -c "print(\$v * $2)")
exec 3<"$T/job.\$\$"
rm -f "$T/job.\$\$"
"$AGENT" "\$@" | python3 "$T/rewrite.py" "\$v"
SH
	chmod +x "$1"
}
fixed_agent "$T/slow-agent" 8
export VTBENCH_AGENT="$T/slow-agent"

expect_exit "plan reads [explore]" 0 "$VTBENCH" plan "$T/race.conf"
expect_exit "explore: the race runs" 0 "$VTBENCH" explore "$T/race.conf" --db "$T/r.db"
expect_grep "... names the fast candidate the winner" "$T/out" "winner: baseline cpus=2"
expect_grep "... stops at one survivor after min_rounds" "$T/out" "race: one after 3 rounds and 6 candidate boots; 1 of 2 candidates eliminated"
expect_grep "... then the answer in the same command: recommend's text" "$T/out" "the recommendation (vtbench recommend --db $T/r.db):"
expect_grep "... with the runner-up's margin" "$T/out" "the runner-up 'baseline cpus=1' against it: +"
expect_grep "... and why the other lost" "$T/out" "round 3  'baseline cpus=1': spin/seconds +"
expect_grep "... says the elimination as it happens" "$T/err" "explore, round 3: 'baseline cpus=1' dropped: spin/seconds +"
expect_eq "... the race is stored: stop, winner, rounds, boots" \
	"$(sql "$T/r.db" "select stop, json_extract(winners, '\$[0]'), rounds, boots from race")" "one|$fast|3|6"
expect_eq "... the elimination with its round, metric, best and evidence" \
	"$(sql "$T/r.db" "select round, config_key, metric, best_key, reason, json_extract(evidence, '\$.change_pct') > 100, json_extract(evidence, '\$.q') < 0.05, json_extract(evidence, '\$.boots') from race_elimination")" \
	"3|$slow|spin/seconds|$fast|worse|1|1|3"
expect_eq "... the boots stored as run stores them" "$(sql "$T/r.db" "select count(*), sum(status = 'ok') from boot")" "6|6"

expect_exit "recommend: text" 0 "$VTBENCH" recommend --db "$T/r.db"
expect_grep "... the winner first" "$T/out" "winner: baseline cpus=2"
expect_grep "... the runner-up's margin" "$T/out" "the runner-up 'baseline cpus=1' against it: +"
expect_grep "... the elimination with its round and evidence" "$T/out" "round 3  'baseline cpus=1': spin/seconds +"
expect_exit "recommend: JSON" 0 "$VTBENCH" recommend --db "$T/r.db" --format json
expect_eq "... the document: schema, winner, elimination round" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["schema"], d["winner"]["label"], d["eliminations"][0]["round"], d["objective"][0]["runner_up"]["verdict"], len(d["candidates"][0]["values"][0]))' "$T/out")" \
	"vtbench-recommend/1 baseline cpus=2 3 worse 3"
expect_exit "recommend: HTML to a file" 0 "$VTBENCH" recommend --db "$T/r.db" -o "$T/r.html"
expect_eq "... with the racing chart: one run per candidate, the winner circled, the loser crossed" \
	"$(python3 -c 'import sys,xml.dom.minidom as m
d=m.parse(sys.argv[1]); s=[e for e in d.getElementsByTagName("svg") if e.getAttribute("class") == "racechart"][0]
cls=lambda c: sum(1 for e in s.getElementsByTagName("*") if c in e.getAttribute("class").split())
print(s.getAttribute("data-marks"), cls("run"), cls("pt"), cls("win"), cls("out"))' "$T/r.html")" "2 2 6 1 1"

# constant values: every survivor the same, a tie at min_rounds
conf "$T/same.conf" 3 ok
sed -i 's|^objective = .*|objective = spin/value|' "$T/same.conf"
expect_exit "a tie: explore stops when the survivors are the same" 0 \
	"$VTBENCH" explore "$T/same.conf" --db "$T/s.db" -q
expect_grep "... says so" "$T/out" "race: same after 3 rounds"
expect_grep "... and who is tied" "$T/out" "(tied with 1 other: same within the threshold)"
expect_eq "... both stored as winners" "$(sql "$T/s.db" "select json_array_length(winners) from race")" "2"

# the boot budget: another round would pass 5 boots of candidates
conf "$T/budget.conf" 4 spin
expect_exit "--budget-boots stops the race before a round would pass it" 0 \
	"$VTBENCH" explore "$T/budget.conf" --db "$T/b.db" --budget-boots 5 -q
expect_grep "... says the budget stopped it" "$T/out" "race: budget after 2 rounds and 4 candidate boots"
expect_eq "... no boot past it" "$(sql "$T/b.db" "select count(*) from boot")" "4"

# futility: a near-tie no round within the cap can decide: the same
# spread, the slow one 2% slower.  At round 3 `same` needs about 8 boots
# a side and max_rounds is 5: futile
fixed_agent "$T/tie-agent" 1.02
conf "$T/tie.conf" 3 spin
sed -i -e 's|^max_rounds = .*|max_rounds = 5|' -e '$a futility = yes' "$T/tie.conf"
expect_exit "futility = yes: a near-tie stops futile before the cap" 0 \
	env VTBENCH_AGENT="$T/tie-agent" "$VTBENCH" explore "$T/tie.conf" --db "$T/f.db"
expect_grep "... says why, with the boots it would need" "$T/out" "futile: the 2 survivors could not be told apart within the rounds left (round 5 is the last max_rounds and budget_boots allow; each open comparison needs >= "
expect_grep "... after 3 rounds, the leader the winner" "$T/out" "race: futile after 3 rounds and 6 candidate boots; 0 of 2 candidates eliminated"
expect_grep "... and its progress line says so" "$T/err" "explore: stopped after 3 rounds (futile: the 2 survivors"
expect_eq "... stored: stop futile, the winner, the evidence" \
	"$(sql "$T/f.db" "select stop, json_extract(winners, '\$[0]'), json_extract(stop_evidence, '\$.survivors'), json_extract(stop_evidence, '\$.comparisons[0].config'), json_extract(stop_evidence, '\$.boots_needed') > 5 from race")" \
	"futile|$fast|2|$slow|1"
expect_exit "... recommend says so" 0 "$VTBENCH" recommend --db "$T/f.db"
expect_grep "... with the open comparison's evidence" "$T/out" "  'baseline cpus=1' against 'baseline cpus=2': spin/seconds +2.0% ["
expect_grep "... the stop in the race line" "$T/out" "race: futile after 3 rounds"

# SIGINT in the middle of the race, then --resume: the same winner
conf "$T/int.conf" 6 spin
if env --default-signal=INT true 2>/dev/null; then
	env --default-signal=INT "$VTBENCH" explore "$T/int.conf" --db "$T/i.db" -q \
		>"$T/int.out" 2>"$T/int.err" &
	pid=$!
	n=0
	while [ "$n" -lt 300 ] && [ "$(sql "$T/i.db" 'select count(*) from boot' 2>/dev/null || echo 0)" -lt 3 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	kill -INT "$pid"
	wait "$pid"
	expect_eq "SIGINT mid-race: explore exits 130" "$?" "130"
	expect_eq "... the race is stored as interrupted, before its first test" \
		"$(sql "$T/i.db" "select stop, (select count(*) from race_elimination) from race")" "interrupted|0"
	expect_exit "... --resume rebuilds the race and finishes it" 0 \
		"$VTBENCH" explore "$T/int.conf" --db "$T/i.db" --resume
	expect_grep "... with the same winner" "$T/out" "winner: baseline cpus=2"
	expect_grep "... on the same campaign" "$T/out" "(resumed)"
	expect_eq "... every (configuration, rep) once, the loser dropped at min_rounds" \
		"$(sql "$T/i.db" "select count(*) = count(distinct config_id || '/' || rep) from boot; select round, config_key from race_elimination; select stop from race")" \
		"1
6|$slow
one"
else
	skip "SIGINT mid-race" "env --default-signal is missing"
fi

expect_exit "merge carries the race" 0 "$VTBENCH" merge "$T/m.db" "$T/r.db"
expect_exit "... recommend reads it there" 0 "$VTBENCH" recommend --db "$T/m.db"
expect_grep "... the same answer" "$T/out" "round 3  'baseline cpus=1'"

# input errors
sed 's|^objective = .*|objective = nope/seconds|' "$T/race.conf" >"$T/bad.conf"
expect_exit "an objective cell the matrix lacks: exit 2" 2 "$VTBENCH" plan "$T/bad.conf"
expect_grep "... says where and which cells there are" "$T/err" "bad.conf:10: objective 'nope/seconds': no cell 'nope' in the matrix (its cells: 'spin')"
sed 's|^objective = .*|objective = spin/latency|' "$T/race.conf" >"$T/bad.conf"
expect_exit "a metric the cell does not report: exit 2 after the first round" 2 \
	"$VTBENCH" explore "$T/bad.conf" --db "$T/bad.db" -q
expect_grep "... at the objective's line, naming the metrics it reports" "$T/err" "bad.conf:10: objective 'spin/latency': cell 'spin' reports no metric 'latency' (it reports: 'seconds')"
sed '/^\[explore\]/,$d' "$T/race.conf" >"$T/none.conf"
expect_exit "a matrix without [explore]: exit 2" 2 "$VTBENCH" explore "$T/none.conf" --db "$T/n.db"
expect_grep "... says what is missing" "$T/err" "has no [explore] section"
"$VTBENCH" run "$T/none.conf" --db "$T/run.db" --reps 1 -q >/dev/null 2>&1
expect_exit "recommend on a database without an explore campaign: exit 2" 2 \
	"$VTBENCH" recommend --db "$T/run.db"
expect_grep "... says so" "$T/err" "no campaign of vtbench explore in"
expect_exit "recommend --campaign unknown: exit 2" 2 "$VTBENCH" recommend --db "$T/r.db" --campaign ffff
