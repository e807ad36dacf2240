# --format json on run, explore, merge and upload: stdout is exactly one
# JSON document (progress, messages and the text summary on stderr), its
# fields checked against the database; and exit 2 writes nothing: no
# database is left behind, an existing one keeps its bytes and mtime.
# Bare-metal only, the debug workload: a few seconds.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
trap '[ -n "${RECV_PID:-}" ] && kill "$RECV_PID" 2>/dev/null; rm -rf "$T"' EXIT

cat >"$T/a.conf" <<'CONF'
[global]
reps = 2
timeout = 20s
[baseline]
cpus = 1
[workload probe]
type = debug
mode = ok
CONF

# jget FILE EXPR: EXPR evaluated in python with d the parsed document
# (stdout must be exactly one JSON document: json.load fails otherwise)
jget() {
	python3 -S -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}

# ---- run
(cd "$T" && "$VTBENCH" run a.conf --db rel.db --format json) >"$T/run.json" 2>"$T/run.err"
expect_eq "run --format json: exit 0" "$?" 0
expect_eq "... stdout is one document of schema vtbench-run-summary/1, status done" \
	"$(jget "$T/run.json" 'd["schema"], d["command"], d["status"], d["exit"], d["exit_meaning"]')" \
	"('vtbench-run-summary/1', 'run', 'done', 0, 'ok')"
camp=$(sql "$T/rel.db" "select uuid from campaign")
expect_eq "... the campaign id is the stored one" "$(jget "$T/run.json" 'd["campaign"]')" "$camp"
expect_eq "... matrix and db are absolute paths" \
	"$(jget "$T/run.json" 'd["matrix"], d["db"]')" "('$T/a.conf', '$T/rel.db')"
expect_eq "... the host is the stored one" "$(jget "$T/run.json" 'd["host"]')" \
	"$(sql "$T/rel.db" "select hostname from host")"
expect_eq "... this invocation's boots by status" \
	"$(jget "$T/run.json" '[d["boots"][k] for k in ("planned", "ran", "ok", "failed", "timeout", "already_stored")]')" \
	"[2, 2, 2, 0, 0, 0]"
expect_eq "... the stored boots by kind match the database" \
	"$(jget "$T/run.json" 'd["stored_boots"]["baseline"]["ok"], d["stored_boots"]["vm"]["total"], d["stored_boots"]["all"]["total"]')" \
	"($(sql "$T/rel.db" "select count(*) from boot where status = 'ok'"), 0, $(sql "$T/rel.db" "select count(*) from boot"))"
expect_eq "... each configuration with its key, label, kind and boots" \
	"$(jget "$T/run.json" '[(c["key"], c["label"], c["kind"], c["boots"]["ok"]) for c in d["configurations"]]')" \
	"$(sql "$T/rel.db" "select key, label, kind from config" | python3 -c 'import sys
print([tuple(l.rstrip("\n").split("|")) + (2,) for l in sys.stdin])')"
expect_eq "... started and ended are UTC times, the campaign done" \
	"$(jget "$T/run.json" 'd["started"][-1], d["ended"][-1], d["campaign_status"], d["reps_auto"], d["uploads"]')" \
	"('Z', 'Z', 'done', None, [])"
expect_eq "... what to run next: compare on the absolute db" \
	"$(jget "$T/run.json" 'd["next"]')" "['vtbench compare --db $T/rel.db']"
expect_grep "... the text summary went to stderr" "$T/run.err" "campaign $camp: 2 boots run (2 ok"
expect_grep "... with every boot's line" "$T/run.err" "boot 2/2 baseline cpus=1 rep 1: ok"

expect_exit "run --resume --format json: nothing left to run" 0 \
	"$VTBENCH" run "$T/a.conf" --db "$T/rel.db" --resume --format json
expect_eq "... resumed, the boots already stored counted" \
	"$(jget "$T/out" 'd["resumed"], d["boots"]["ran"], d["boots"]["already_stored"], d["stored_boots"]["all"]["ok"]')" \
	"(True, 0, 2, 2)"

# a failing boot: exit 1, said in the document
sed 's/^mode = ok$/mode = crash/' "$T/a.conf" >"$T/crash.conf"
expect_exit "run --format json with failing boots: exit 1" 1 \
	"$VTBENCH" run "$T/crash.conf" --db "$T/crash.db" --format json -q
expect_eq "... status done, exit 1 with its meaning, failures counted as stored" \
	"$(jget "$T/out" 'd["status"], d["exit"], d["boots"]["failed"], d["stored_boots"]["all"]["failed"]')" \
	"('done', 1, 2, $(sql "$T/crash.db" "select count(*) from boot where status = 'failed'"))"

# interrupted: the document is still printed, with its status
cat >"$T/nap.conf" <<'CONF'
[global]
reps = 1
timeout = 120s
[baseline]
cpus = 1
[workload nap]
type = debug
mode = sleep
seconds = 100
CONF
"$VTBENCH" run "$T/nap.conf" --db "$T/int.db" --format json >"$T/int.json" 2>"$T/int.err" &
pid=$!
# SIGINT once the campaign is stored (the runner holds the signals by then)
i=0
while [ "$(sql "$T/int.db" "select count(*) from campaign" 2>/dev/null)" != 1 ] && [ $i -lt 1200 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -INT $pid
wait $pid
expect_eq "run --format json interrupted by SIGINT: exit 130" "$?" 130
expect_eq "... the document says interrupted, and how to resume" \
	"$(jget "$T/int.json" 'd["status"], d["exit"], d["campaign_status"], d["next"][0]')" \
	"('interrupted', 130, 'interrupted', 'vtbench run $T/nap.conf --db $T/int.db --resume')"

# ---- explore
cat >"$T/race.conf" <<'CONF'
[global]
timeout = 20s
[baseline]
cpus = 1, 2
[workload spin]
type = debug
mode = spin
work = 200000
[explore]
objective = spin/seconds
min_rounds = 2
max_rounds = 2
CONF
expect_exit "explore --format json: the race runs" 0 \
	"$VTBENCH" explore "$T/race.conf" --db "$T/race.db" --format json
expect_eq "... schema vtbench-explore-summary/1, status done" \
	"$(jget "$T/out" 'd["schema"], d["status"], d["exit"]')" \
	"('vtbench-explore-summary/1', 'done', 0)"
expect_eq "... the race's stop, rounds and boots as stored" \
	"$(jget "$T/out" '"%s|%d|%d" % (d["race"]["stop"], d["race"]["rounds"], d["race"]["candidate_boots"])')" \
	"$(sql "$T/race.db" "select stop, rounds, boots from race")"
expect_eq "... the winner's key as stored, with its label" \
	"$(jget "$T/out" 'd["race"]["winner"]["key"], d["race"]["winner"]["label"] in ("baseline cpus=1", "baseline cpus=2")')" \
	"('$(sql "$T/race.db" "select json_extract(winners, '\$[0]') from race")', True)"
expect_eq "... the eliminations as stored" \
	"$(jget "$T/out" 'len(d["race"]["eliminations"])')" \
	"$(sql "$T/race.db" "select count(*) from race_elimination")"
expect_eq "... next: compare and recommend" \
	"$(jget "$T/out" 'd["next"]')" \
	"['vtbench compare --db $T/race.db', 'vtbench recommend --db $T/race.db -o race.html']"
expect_grep "... the recommendation went to stderr" "$T/err" "the recommendation (vtbench recommend --db"

# ---- merge
expect_exit "merge --format json into a new database" 0 \
	"$VTBENCH" merge "$T/all.db" "$T/rel.db" "$T/race.db" --format json
expect_eq "... schema, output, created, each input's campaigns" \
	"$(jget "$T/out" 'd["schema"], d["status"], d["output"], d["created"], [(i["path"], [c["uuid"] for c in i["campaigns"]], i["added"]["boots"]) for i in d["inputs"]]')" \
	"('vtbench-merge-summary/1', 'done', '$T/all.db', True, [('$T/rel.db', ['$camp'], 2), ('$T/race.db', ['$(sql "$T/race.db" "select uuid from campaign")'], 4)])"
expect_eq "... the totals are what the output holds" \
	"$(jget "$T/out" 'd["added"]["campaigns"], d["added"]["boots"]')" \
	"($(sql "$T/all.db" "select count(*) from campaign"), $(sql "$T/all.db" "select count(*) from boot"))"
expect_grep "... the text lines went to stderr" "$T/err" "merged 2 campaigns into"
expect_exit "merge --format json again: nothing new" 0 \
	"$VTBENCH" merge "$T/all.db" "$T/rel.db" --format json
expect_eq "... skipped, said per campaign" \
	"$(jget "$T/out" 'd["created"], d["added"]["campaigns"], d["added"]["skipped"], d["inputs"][0]["campaigns"][0]["merged"]')" \
	"(False, 0, 1, False)"
expect_exit "merge --format json with a missing input: exit 2" 2 \
	"$VTBENCH" merge "$T/new.db" "$T/rel.db" "$T/nope.db" --format json
expect_eq "... the document says error, and why" \
	"$(jget "$T/out" 'd["status"], d["exit"], "nope.db" in d["error"]')" "('error', 2, True)"

# ---- upload (the test receiver answers as InfluxDB does)
receiver_start "$T/port" "$T/recv.log" 204
URL="influx://127.0.0.1:$PORT/vtb"
expect_exit "upload --dry-run --format json" 0 env VTBENCH_UPLOAD_USER=u \
	VTBENCH_UPLOAD_PASSWORD=pw-SECRET "$VTBENCH" upload --db "$T/rel.db" --to "$URL" \
	--dry-run --format json
expect_eq "... schema, dry run, nothing sent" \
	"$(jget "$T/out" 'd["schema"], d["status"], d["dry_run"], d["boots"]["sent_now"], d["destination"]')" \
	"('vtbench-upload-summary/1', 'dry-run', True, 0, '$URL')"
expect_grep "... the requests went to stderr" "$T/err" "POST http://127.0.0.1:$PORT/write"
if grep -q pw-SECRET "$T/out" "$T/err"; then notok "... the password is never printed"; else ok "... the password is never printed"; fi
expect_exit "upload --format json sends the campaign" 0 env VTBENCH_UPLOAD_USER=u \
	VTBENCH_UPLOAD_PASSWORD=pw-SECRET "$VTBENCH" upload --db "$T/rel.db" --to "$URL" --format json
expect_eq "... sent: every boot, as recorded in the database" \
	"$(jget "$T/out" 'd["status"], d["campaign"], d["boots"]["sent_now"], d["boots"]["sent_before"], d["points_sent"] > 0')" \
	"('sent', '$camp', $(sql "$T/rel.db" "select count(*) from upload where what = 'boot' and status = 'sent'"), 0, True)"
if grep -q pw-SECRET "$T/out" "$T/err"; then notok "... the password is never printed"; else ok "... the password is never printed"; fi
expect_exit "upload --format json again: exactly once" 0 "$VTBENCH" upload --db "$T/rel.db" \
	--to "$URL" --format json
expect_eq "... nothing new, what was sent before counted" \
	"$(jget "$T/out" 'd["status"], d["boots"]["sent_now"], d["boots"]["sent_before"], d["requests"]')" \
	"('nothing-new', 0, 2, 0)"
expect_exit "run --upload --format json: the upload is in run's document" 0 \
	"$VTBENCH" run "$T/a.conf" --db "$T/up.db" --upload "$URL" --format json -q
expect_eq "... one upload object: destination, sent, this campaign" \
	"$(jget "$T/out" '[(u["destination"], u["status"], u["boots"]["sent_now"], u["campaign"] == d["campaign"]) for u in d["uploads"]]')" \
	"[('$URL', 'sent', 2, True)]"
expect_grep "... its text line went to stderr" "$T/err" "-> $URL: 2 boots sent now"
receiver_start "$T/port" "$T/recv2.log" 500
expect_exit "upload --format json to a failing server: exit 3" 3 "$VTBENCH" upload \
	--db "$T/rel.db" --to "influx://127.0.0.1:$PORT/other" --attempts 1 --format json
expect_eq "... partial, the error and the command that sends the rest" \
	"$(jget "$T/out" 'd["status"], d["exit"], d["boots"]["unsent"], d["error"] is not None, d["next"]')" \
	"('partial', 3, 2, True, 'vtbench upload --db $T/rel.db --to influx://127.0.0.1:$PORT/other --campaign $camp')"
expect_exit "upload --format json without the database: exit 2" 2 "$VTBENCH" upload \
	--db "$T/none.db" --to "$URL" --format json
expect_eq "... the document says error" "$(jget "$T/out" 'd["status"], d["exit"]')" "('error', 2)"

# ---- exit 2 writes nothing
printf '[global]\nreps = 1\n[baseline]\ncpus = 1\n[workload probe]\ntype = nosuch\n' >"$T/bad.conf"
printf '[global]\nreps = 1\nkernel = %s/no-such-bzImage\n[baseline]\ncpus = 1\n[workload probe]\ntype = debug\nmode = ok\n' "$T" >"$T/kern.conf"
expect_exit "plan: a [global] kernel = that does not exist is an input error" 2 \
	"$VTBENCH" plan "$T/kern.conf"
expect_grep "... naming the file and line" "$T/err" \
	"kern.conf:3: cannot read kernel image '$T/no-such-bzImage': No such file or directory ([global] kernel =)"
cp "$T/rel.db" "$T/keep.db"
touch -d '2001-01-01 00:00:00' "$T/keep.db"
sum_keep=$(sha256sum <"$T/keep.db")
keep_state() { echo "$(sha256sum <"$T/keep.db") $(stat -c %Y "$T/keep.db")"; }
want_keep="$sum_keep $(stat -c %Y "$T/keep.db")"
for c in "bad matrix|$T/bad.conf" "missing [global] kernel|$T/kern.conf" \
	"--reps 0|$T/a.conf --reps 0" "--upload to an unknown scheme|$T/a.conf --upload nosuch://x" \
	"--format yaml|$T/a.conf --format yaml" "no such matrix|$T/nosuch.conf"; do
	what=${c%%|*} args=${c#*|}
	for cmd in run explore; do
		rm -f "$T/fresh.db"
		# shellcheck disable=SC2086 # args is a word list
		expect_exit "$cmd, $what: exit 2" 2 "$VTBENCH" $cmd $args --db "$T/fresh.db"
		if [ -e "$T/fresh.db" ]; then notok "... no database is created"; else ok "... no database is created"; fi
		# shellcheck disable=SC2086
		expect_exit "$cmd, $what, an existing database: exit 2" 2 "$VTBENCH" $cmd $args --db "$T/keep.db"
		expect_eq "... the existing database keeps its bytes and mtime" "$(keep_state)" "$want_keep"
	done
done
# an input error found after the database was opened: explore's objective
# no cell reports (the race's first decision)
sed 's|^objective = spin/seconds$|objective = spin/nosuch|' "$T/race.conf" >"$T/obj.conf"
rm -f "$T/fresh.db"
expect_exit "explore, an objective no cell reports: exit 2" 2 \
	"$VTBENCH" explore "$T/obj.conf" --db "$T/fresh.db" --format json
if ls "$T"/fresh.db* >/dev/null 2>&1; then notok "... the database it created is removed" "$(ls "$T")"; else ok "... the database it created is removed"; fi
expect_eq "... and the document still says why" "$(jget "$T/out" 'd["status"], d["exit"]')" "('error', 2)"
expect_grep "... said" "$T/err" "nothing is kept: '$T/fresh.db' is removed"
before=$(sql "$T/keep.db" "select group_concat(uuid) from campaign; select count(*) from host; select count(*) from boot")
expect_exit "explore, the same into an existing database: exit 2" 2 \
	"$VTBENCH" explore "$T/obj.conf" --db "$T/keep.db" -q
expect_eq "... the campaign it began is taken out again: the database holds what it held" \
	"$(sql "$T/keep.db" "select group_concat(uuid) from campaign; select count(*) from host; select count(*) from boot")" \
	"$before"
expect_grep "... said" "$T/err" "is taken out of '$T/keep.db' again"
expect_eq "... the database is consistent" \
	"$(sql "$T/keep.db" "pragma integrity_check; pragma foreign_key_check")" "ok"
