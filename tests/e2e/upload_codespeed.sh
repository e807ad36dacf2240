# vtbench upload to Codespeed, against the loopback receiver modelling
# Codespeed's add_json_results (tests/tools/http_receiver.py --codespeed):
# an unknown environment refused with Codespeed's own message and the way
# to create it; reset, 500, 429 with Retry-After and a slow answer retried;
# every result checked against the database; a second upload sends nothing.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
RECV_PID=""
trap '[ -n "$RECV_PID" ] && kill "$RECV_PID" 2>/dev/null; rm -rf "$T"' EXIT

# start_receiver OPTION RESPONSE...: a fresh receiver; $PORT, $LOG
start_receiver() {
	LOG=$T/req.$(date +%s%N).log
	receiver_start "$@"
	: >>"$LOG"
}
requests() { wc -l <"$LOG" | tr -d ' '; }

cat >"$T/m.conf" <<'CONF'
[global]
reps = 3
order = sequential
[baseline]
cpus = 1, 2
[workload timer]
type = timer
duration = 100ms
CONF
"$VTBENCH" run "$T/m.conf" --db "$T/r.db" --quiet >/dev/null 2>&1
HOST=$(sql "$T/r.db" "select hostname from host")

# 1. an environment Codespeed does not know: its message, and how to create it
start_receiver --codespeed "elsewhere" "$T/port" "$T/log1" 204
LOG=$T/log1
URL="codespeed+http://127.0.0.1:$PORT/"
expect_exit "unknown environment: exit 3" 3 "$VTBENCH" upload --db "$T/r.db" --to "$URL"
expect_grep "... Codespeed's message" "$T/err" "HTTP 400 from http://127.0.0.1:$PORT: Environment $HOST not found"
expect_grep "... how to create it (admin)" "$T/err" "Environments -> Add, name '$HOST'"
expect_grep "... how to create it (shell)" "$T/err" "python manage.py shell -c"
expect_eq "... refused at once (4xx: no retry)" "$(requests)" "1"
expect_eq "... recorded failed, with the message" \
	"$(sql "$T/r.db" "select status, what, error like '%Environment $HOST not found%' from upload where sink = 'codespeed+http://127.0.0.1:$PORT/'")" "failed|aggregates|1"
expect_eq "... the POST: form field json, to /result/add/json/" \
	"$(python3 -c 'import json, sys, urllib.parse
r = json.loads(open(sys.argv[1]).readline())
f = urllib.parse.parse_qs(r["body"])
print(r["method"], r["path"], r["headers"]["Content-Type"], list(f), type(json.loads(f["json"][0])).__name__)' "$LOG")" \
	"POST /result/add/json/ application/x-www-form-urlencoded ['json'] list"

# 2. the environment exists; a slow answer (timeout), a reset, 500 and 429
#    with Retry-After 1 before Codespeed's 202: retried, recorded once
start_receiver --codespeed "other,$HOST" "$T/port" "$T/log2" slow:3 reset 500 429:1 204
LOG=$T/log2
URL="codespeed+http://127.0.0.1:$PORT/"
expect_exit "slow, reset, 500, 429, then 202: sent" 0 "$VTBENCH" upload --db "$T/r.db" --to "$URL" \
	--timeout 1s --backoff 10ms --attempts 6
expect_grep "... 5 requests, 4 retries" "$T/out" "sent ("
expect_grep "... 5 requests, 4 retries (count)" "$T/out" "5 requests, 4 retries"
expect_grep "... the timeout said" "$T/err" "timed out"
expect_grep "... Retry-After honoured" "$T/err" "retrying in 1000 ms"
# the slow request is answered (and logged) late: wait for it
i=0
while [ "$(requests)" -lt 5 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
NRES=$(sql "$T/r.db" "select count(*) from (select distinct boot.config_id, sample.metric from sample join result on result.id = sample.result_id join boot on boot.id = result.boot_id where result.status = 'ok')")
if out=$(python3 - "$T/log2.results" "$T/r.db" "$HOST" <<'PY' 2>&1
import json, sqlite3, statistics, sys
res = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    # Codespeed keeps one result per revision, executable, benchmark, environment
    res[(r["commitid"], r["executable"], r["benchmark"], r["environment"])] = r
db = sqlite3.connect(sys.argv[2])
kernel = db.execute("select kernel from host").fetchone()[0]
want = {}
for cpus, cell, metric, unit, better, v in db.execute(
        "select json_extract(config.params, '$.cpus'), cell.name, sample.metric, sample.unit,"
        " sample.better, sample.value from sample join result on result.id = sample.result_id"
        " join cell on cell.id = result.cell_id join boot on boot.id = result.boot_id"
        " join config on config.id = boot.config_id where result.status = 'ok'"):
    k = (kernel, "baremetal-%dcpu" % int(cpus), cell + "." + metric, sys.argv[3])
    want.setdefault(k, [unit, better, []])[2].append(v)
assert set(res) == set(want), (sorted(res), sorted(want))
for k, (unit, better, vs) in want.items():
    r = res[k]
    assert r["project"] == "vtbench" and r["branch"] == "default", r
    assert r["units"] == unit and r["lessisbetter"] == (better == "lower"), r
    assert abs(r["result_value"] - statistics.mean(vs)) <= 1e-9 * abs(statistics.mean(vs)), (r, vs)
    assert abs(r["std_dev"] - statistics.stdev(vs)) <= 1e-9 * max(1, statistics.stdev(vs)), (r, vs)
    assert r["min"] == min(vs) and r["max"] == max(vs), (r, vs)
    for d in ("revision_date", "result_date"):
        assert len(r[d]) == 19, r
print(len(res), "results")
PY
); then ok "every result as the database says: executable, benchmark, environment, commitid, mean, std_dev, min, max, units ($out)"; else notok "every result as the database says" "$out"; fi
expect_eq "... one result per configuration, cell and metric" "${out% results}" "$NRES"
expect_eq "... recorded sent once, with its results" \
	"$(sql "$T/r.db" "select status || ' ' || points from upload where sink = '$URL'")" "sent $NRES"

# 3. exactly once: a second upload sends nothing
N=$(requests)
expect_exit "a second upload" 0 "$VTBENCH" upload --db "$T/r.db" --to "$URL"
expect_grep "... says it was sent before" "$T/out" "nothing sent (sent before)"
expect_eq "... and sends nothing" "$(requests)" "$N"

# 4. a server failing for good: bounded, exit 3, recorded unsent, later sent
start_receiver --codespeed "$HOST" "$T/port" "$T/log4" 503
LOG=$T/log4
URL="codespeed+http://127.0.0.1:$PORT/"
expect_exit "503 for ever: exit 3 after --attempts" 3 "$VTBENCH" upload --db "$T/r.db" --to "$URL" \
	--backoff 10ms --attempts 3
expect_grep "... gave up" "$T/err" "gave up after 3 attempts"
expect_eq "... recorded failed" "$(sql "$T/r.db" "select status from upload where sink = '$URL'")" "failed"
RECV_PORT=$PORT start_receiver --codespeed "$HOST" "$T/port" "$T/log5" 204
LOG=$T/log5
expect_exit "... the next upload sends it" 0 "$VTBENCH" upload --db "$T/r.db" --to "$URL"
expect_eq "... in one request" "$(requests)" "1"
expect_eq "... recorded sent (after the failed attempt)" \
	"$(sql "$T/r.db" "select group_concat(status, ' ') from (select status from upload where sink = '$URL' order by id)")" "failed sent"
