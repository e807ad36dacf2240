# vtbench upload against loopback receivers (tests/tools/http_receiver.py):
# the InfluxDB 2.x write request byte for byte (path, org, bucket, token
# header, body = the dry run's), and the fault handling every sink shares:
# 500, 429 with Retry-After, slow answers (timeouts) and connection resets
# retried, a batch recorded only after a 2xx.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
RECV_PID=""
trap '[ -n "$RECV_PID" ] && kill "$RECV_PID" 2>/dev/null; rm -rf "$T"' EXIT
TOKEN=tok-SECRET-0815

# start_receiver RESPONSE...: a fresh receiver (on $RECV_PORT if set); $PORT, $LOG
start_receiver() {
	LOG=$T/req.$#.$$.$(date +%s%N).log
	receiver_start "$T/port" "$LOG" "$@"
	: >>"$LOG"
}
field() { # N FIELD: a field of the Nth request (python repr for headers)
	python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2])]
f = sys.argv[3]
print(r["headers"].get(f[2:], "") if f.startswith("h:") else r[f], end="")' "$LOG" "$1" "$2"
}

cat >"$T/m.conf" <<'CONF'
[global]
reps = 3
[baseline]
cpus = 1
[workload timer]
type = timer
duration = 100ms
CONF
"$VTBENCH" run "$T/m.conf" --db "$T/r.db" --quiet >/dev/null 2>&1
export VTBENCH_UPLOAD_TOKEN=$TOKEN

# 1. InfluxDB 2.x: the request byte for byte
start_receiver 204
URL="influx2://127.0.0.1:$PORT/my%20org/bench"
expect_exit "influx2 dry run" 0 "$VTBENCH" upload --db "$T/r.db" --to "$URL" --dry-run --batch 1000
sed -n '5,$p' "$T/out" | sed '/^$/,$d' >"$T/dry-body"
expect_exit "influx2 upload" 0 "$VTBENCH" upload --db "$T/r.db" --to "$URL" --batch 1000
expect_eq "... path with org and bucket, precision ns" "$(field 0 path)" "/api/v2/write?org=my%20org&bucket=bench&precision=ns"
expect_eq "... POST" "$(field 0 method)" "POST"
expect_eq "... Authorization: Token" "$(field 0 h:Authorization)" "Token $TOKEN"
expect_eq "... content type" "$(field 0 h:Content-Type)" "text/plain; charset=utf-8"
field 0 body >"$T/body"
if cmp -s "$T/body" "$T/dry-body"; then ok "... body byte for byte the dry run's"; else notok "... body byte for byte the dry run's" "$(diff "$T/body" "$T/dry-body" | head -5)"; fi
expect_eq "... one line per sample, each with the boot field" \
	"$(grep -c ',boot="' "$T/body")" "$(sql "$T/r.db" "select count(*) from sample")"
expect_eq "... then the aggregates in a second request" "$(wc -l <"$LOG" | tr -d ' ')" "2"

# 2. a reset (a fresh connection closed without an answer), 500, 429 with
#    Retry-After 1, then 2xx: one batch sent after 4 attempts, recorded once
start_receiver reset 500 429:1 204
expect_exit "reset, 500, 429, then 204: retried to success" 0 "$VTBENCH" upload --db "$T/r.db" \
	--to "influx://127.0.0.1:$PORT/db" --backoff 10ms --attempts 5 --batch 1000
expect_grep "... 5 requests (4 for the boots, 1 for the aggregates), 3 retries" "$T/out" "5 requests, 3 retries"
expect_grep "... Retry-After honoured" "$T/err" "retrying in 1000 ms"
expect_eq "... every boot recorded sent once" \
	"$(sql "$T/r.db" "select count(*) || ' ' || count(distinct boot_id) from upload where sink like 'influx://%/db' and status = 'sent' and what = 'boot'")" "3 3"

# 3. a slow server: the request times out and is retried
start_receiver slow:3 204
expect_exit "a slow answer times out and is retried" 0 "$VTBENCH" upload --db "$T/r.db" \
	--to "influx://127.0.0.1:$PORT/slow" --timeout 500ms --backoff 10ms --batch 1000
expect_grep "... said so" "$T/err" "timed out"

# 4. bounded: 503 for ever gives up after --attempts; partial progress kept
start_receiver 204 503
expect_exit "a server failing for good: exit 3" 3 "$VTBENCH" upload --db "$T/r.db" \
	--to "influx://127.0.0.1:$PORT/down" --backoff 10ms --attempts 3 --batch 4
expect_grep "... after 3 attempts" "$T/err" "gave up after 3 attempts"
expect_grep "... with a summary" "$T/err" "2 of 3 boots remain unsent"
expect_eq "... the first batch (2xx) is recorded sent, the failed one failed" \
	"$(sql "$T/r.db" "select group_concat(status, ' ') from (select status from upload where sink like '%/down' order by boot_id)")" "sent failed"
RECV_PORT=$PORT start_receiver 204
expect_exit "... the next upload sends only the rest" 0 "$VTBENCH" upload --db "$T/r.db" \
	--to "influx://127.0.0.1:$PORT/down" --batch 4
expect_eq "... two boots and the aggregates" "$(wc -l <"$LOG" | tr -d ' ')" "3"
expect_eq "... no boot twice" \
	"$(sql "$T/r.db" "select count(*) from upload where sink like '%/down' and what = 'boot' and status = 'sent'")" "3"

# 5. a Retry-After beyond --retry-time: stop at once rather than wait
start_receiver 429:3600
expect_exit "a Retry-After beyond the retry time gives up" 3 "$VTBENCH" upload --db "$T/r.db" \
	--to "influx://127.0.0.1:$PORT/later" --retry-time 5s
expect_grep "... saying why" "$T/err" "would pass the retry time"

# 5b. Retry-After: 9223372036854775807 overflowed when turned into
#     milliseconds, and the retries fired back to back: capped at a day
#     (VTB_UPLOAD_MAX_RETRY_AFTER_S), beyond any retry time, so one request
start_receiver 429:9223372036854775807
expect_exit "a Retry-After of 2^63-1 seconds gives up" 3 "$VTBENCH" upload --db "$T/r.db" \
	--to "influx://127.0.0.1:$PORT/never" --attempts 5
expect_grep "... waiting a day at most" "$T/err" "waiting 86400000 ms more would pass the retry time"
expect_eq "... after one request, no retries back to back" "$(wc -l <"$LOG" | tr -d ' ')" "1"

# 5c. a server's message reaches the terminal through the sanitiser: a
#     C1 CSI (U+009B) and a bidi override are shown, not obeyed
start_receiver "400:bad $(printf '\302\233')2J $(printf '\342\200\256')x"
expect_exit "a refusal with escapes in its message: exit 3" 3 "$VTBENCH" upload --db "$T/r.db" \
	--to "influx://127.0.0.1:$PORT/esc"
expect_grep "... shown escaped" "$T/err" 'bad \u009b2J \u202ex'
if LC_ALL=C grep -q "$(printf '\302\233')" "$T/err"; then notok "... no raw CSI on stderr"; else ok "... no raw CSI on stderr"; fi

# 6. basic authentication from VTBENCH_UPLOAD_USER/PASSWORD
start_receiver 204
expect_exit "user and password: basic authentication" 0 env -u VTBENCH_UPLOAD_TOKEN \
	VTBENCH_UPLOAD_USER=me VTBENCH_UPLOAD_PASSWORD=pw-SECRET "$VTBENCH" upload --db "$T/r.db" \
	--to "influx://127.0.0.1:$PORT/basic"
expect_eq "... Authorization: Basic" "$(field 0 h:Authorization)" "Basic $(printf 'me:pw-SECRET' | base64)"
if grep -qF -e pw-SECRET -e "$TOKEN" "$T/out" "$T/err" || sql "$T/r.db" .dump | grep -qF -e pw-SECRET -e "$TOKEN"; then
	notok "credentials are never printed or stored"
else
	ok "credentials are never printed or stored"
fi
