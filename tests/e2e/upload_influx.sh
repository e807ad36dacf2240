# vtbench upload against a real InfluxDB 1.x (Debian's influxd on loopback,
# a throwaway data directory, stopped by pid): every point read back,
# exactly once shown by the server's own write counters (a second upload
# sends nothing; an upload interrupted by killing the server is completed
# by the next one, each point written once in total), awkward tag values
# round trip, and the token never shows up anywhere.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
need influxd || exit 0
need curl || exit 0
CHECK="python3 $SRCDIR/tests/tools/influx_check.py"
TOKEN=tok-SECRET-4711
INFLUX_PID=""
stop_influx() {
	[ -n "$INFLUX_PID" ] && kill -KILL "$INFLUX_PID" 2>/dev/null && wait "$INFLUX_PID" 2>/dev/null
	INFLUX_PID=""
}
trap 'stop_influx; rm -rf "$T"' EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
HTTP_PORT=$(free_port)
RPC_PORT=$(free_port)
URL=http://127.0.0.1:$HTTP_PORT
cat >"$T/influxdb.conf" <<EOF
reporting-disabled = true
bind-address = "127.0.0.1:$RPC_PORT"
[meta]
  dir = "$T/influx/meta"
[data]
  dir = "$T/influx/data"
  wal-dir = "$T/influx/wal"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:$HTTP_PORT"
  log-enabled = false
[monitor]
  store-enabled = false
[continuous_queries]
  enabled = false
EOF
start_influx() {
	influxd -config "$T/influxdb.conf" >>"$T/influxd.log" 2>&1 &
	INFLUX_PID=$!
	i=0
	# (the bound only stops a hang: a loaded machine starts it slowly)
	while [ $i -lt 600 ] && kill -0 $INFLUX_PID 2>/dev/null; do
		curl -sf -o /dev/null "$URL/ping" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	notok "influxd answers on $URL" "$(tail -n 20 "$T/influxd.log")"
	exit 1
}
create_db() {
	curl -sf -o /dev/null -XPOST "$URL/query" --data-urlencode "q=CREATE DATABASE $1"
}
start_influx
for db in vtb esc intr fix; do create_db $db; done

# the fixture campaign: 5 bare-metal boots of two cells, 12 points a boot (timer 4, membw 8)
cat >"$T/m.conf" <<'CONF'
[global]
reps = 5
[baseline]
cpus = 1
[workload timer]
type = timer
duration = 100ms
[workload stream]
type = membw
size = 1M
iterations = 2
CONF
"$VTBENCH" run "$T/m.conf" --db "$T/r.db" --quiet >/dev/null 2>&1
BOOT_POINTS=$(sql "$T/r.db" "select count(*) from sample")
AGGR_POINTS=$(sql "$T/r.db" "select count(distinct cell_id || metric) from sample join result on result.id = result_id")
ALL=$((BOOT_POINTS + AGGR_POINTS))
echo "# campaign: $BOOT_POINTS per-boot points, $AGGR_POINTS aggregates"
cp "$T/r.db" "$T/esc.db"

export VTBENCH_UPLOAD_TOKEN=$TOKEN
up() { # expected-exit name db sink [options]
	_code=$1 _name=$2 _db=$3 _sink=$4
	shift 4
	expect_exit "$_name" "$_code" "$VTBENCH" upload --db "$_db" --to "$_sink" "$@"
	cat "$T/out" "$T/err" >>"$T/all-output"
}

# 1. dry run: the exact payload, the token masked, nothing recorded
up 0 "a dry run exits 0" "$T/r.db" "influx://127.0.0.1:$HTTP_PORT/vtb" --dry-run
expect_grep "... prints the request line" "$T/out" "POST $URL/write?db=vtb&precision=ns"
expect_grep "... and the token masked" "$T/out" "Authorization: Bearer ****"
expect_eq "... one line per point" "$(grep -c '^vtbench\(_campaign\)\?,' "$T/out")" "$ALL"
expect_eq "... the aggregates in their own measurement" "$(grep -c '^vtbench_campaign,' "$T/out")" "$AGGR_POINTS"
expect_eq "... records nothing" "$(sql "$T/r.db" "select count(*) from upload")" "0"
cp "$T/out" "$T/dry"

# 2. the upload, read back point by point
before=$($CHECK counters "$URL")
up 0 "upload to influx:// sends the campaign" "$T/r.db" "influx://127.0.0.1:$HTTP_PORT/vtb"
expect_grep "... and says what it sent" "$T/out" "5 boots sent now ($ALL points"
if out=$($CHECK readback "$URL" vtb "$T/r.db" "$VTBENCH" 2>&1); then
	ok "every point reads back with its tags (no 'none' stand-ins), fields and timestamp; the aggregates equal compare's statistics ($out)"
else
	notok "every point reads back with its tags, fields and timestamp; the aggregates equal compare's statistics" "$out"
fi
after=$($CHECK counters "$URL")
expect_eq "the server counted each point once (pointsWrittenOK delta)" \
	"$(( ${after% *} - ${before% *} ))" "$ALL"
expect_eq "... what the dry run showed is what was sent (line count)" \
	"$(grep -c '^vtbench\(_campaign\)\?,' "$T/dry")" "$(( ${after% *} - ${before% *} ))"
expect_eq "the store records each boot as sent, and the aggregates" \
	"$(sql "$T/r.db" "select group_concat(what || ':' || status || ':' || points, ' ') from (select * from upload order by id)")" \
	"$(sql "$T/r.db" "select group_concat('boot:sent:12', ' ') from boot") aggregates:sent:$AGGR_POINTS"

# 3. a second upload sends nothing: the server's counters do not move
up 0 "a second upload succeeds" "$T/r.db" "influx://127.0.0.1:$HTTP_PORT/vtb"
expect_grep "... and sends nothing" "$T/out" "0 boots sent now (0 points, 0 requests"
again=$($CHECK counters "$URL")
expect_eq "... pointsWrittenOK and writeReq unchanged" "$again" "$after"

# 4. 4xx other than 429: at once, with the server's message
up 3 "an unknown database fails with exit 3" "$T/r.db" "influx://127.0.0.1:$HTTP_PORT/nosuch" --attempts 5
expect_grep "... quoting the server" "$T/err" 'database not found'
expect_grep "... after one request" "$T/out" "1 request, 0 retries"
expect_grep "... with a summary" "$T/err" "5 of 5 boots remain unsent"
expect_grep "... saying to create the database" "$T/err" "CREATE DATABASE \"nosuch\""
if grep -q "run the same upload again" "$T/err"; then
	notok "... and not that the same upload again would help" "$(cat "$T/err")"
else
	ok "... and not that the same upload again would help"
fi

# 5. the server killed mid-upload: the next upload completes, nothing twice
base=$($CHECK counters "$URL")
VTBENCH_TEST_UPLOAD_PAUSE_MS=2500 "$VTBENCH" upload --db "$T/r.db" \
	--to "influx://127.0.0.1:$HTTP_PORT/intr" --batch 8 --attempts 2 --backoff 50ms \
	--retry-time 1s --connect-timeout 1s >"$T/k.out" 2>"$T/k.err" &
upid=$!
# between two batches (each followed by a 2.5 s pause, longer than a poll
# takes on a loaded machine): once the second batch is counted, kill the
# server at once
killed=""
i=0
while [ $i -lt 200 ]; do
	c=$($CHECK counters "$URL")
	if [ $(( ${c#* } - ${base#* } )) -ge 2 ]; then
		kill -KILL "$INFLUX_PID"
		wait "$INFLUX_PID" 2>/dev/null
		INFLUX_PID=""
		killed=$c
		break
	fi
	sleep 0.05
	i=$((i + 1))
done
wait $upid
rc=$?
cat "$T/k.out" "$T/k.err" >>"$T/all-output"
expect_eq "an upload whose server dies exits 3" "$rc" "3"
written1=$(( ${killed% *} - ${base% *} ))
sent1=$(sql "$T/r.db" "select coalesce(sum(points), 0) from upload where sink like '%/intr' and status = 'sent'")
expect_eq "... what it recorded as sent is what the server counted" "$sent1" "$written1"
expect_grep "... and says what remains" "$T/k.err" "remain unsent to influx://127.0.0.1:$HTTP_PORT/intr"
start_influx
up 0 "after a restart, the next upload completes" "$T/r.db" "influx://127.0.0.1:$HTTP_PORT/intr"
c2=$($CHECK counters "$URL")
expect_eq "... each point written once in total (counters before the kill + after the restart)" \
	"$(( written1 + ${c2% *} ))" "$ALL"
expect_eq "... and every point is stored" "$($CHECK count "$URL" intr)" "$ALL"
up 0 "... a further upload" "$T/r.db" "influx://127.0.0.1:$HTTP_PORT/intr"
expect_eq "... sends nothing" "$($CHECK counters "$URL")" "$c2"

# 6. awkward tag values round trip (a newline and a backslash at the end
#    cannot: replaced, with a warning)
sql "$T/esc.db" "update host set hostname = 'box 1,rack=\"a\\b\" ünï'; update cell set name = 'st,r=e am\\x' where name = 'stream'; update cell set name = 'ti'||char(10)||'mer\\' where name = 'timer'"
up 0 "awkward tag values upload" "$T/esc.db" "influx://127.0.0.1:$HTTP_PORT/esc"
expect_eq "... host with spaces, commas, equals, quotes, backslash, non-ASCII" \
	"$($CHECK tags "$URL" esc host)" 'box 1,rack="a\b" ünï'
expect_eq "... workload values (newline -> space, final backslash -> /)" \
	"$($CHECK tags "$URL" esc workload | sort)" "$(printf 'st,r=e am\\x\nti mer/')"
expect_grep "... with a warning" "$T/err" "tag workload: a character the line protocol cannot carry"
expect_eq "... every point arrived" "$($CHECK count "$URL" esc)" "$ALL"

# 7. VM and baseline configurations (the compare fixture): a tag that does
#    not apply is left out, so pinning=none is only the real pinning none;
#    every configuration its own series; aggregates equal compare's
MKFIXTURE=$(dirname "$VTBENCH")/tests/tools/mkfixture
"$MKFIXTURE" "$T/fix.db" base >/dev/null 2>&1 || notok "mkfixture" "$MKFIXTURE base failed"
up 0 "the compare fixture (VMs pinned none and strict, a baseline) uploads" "$T/fix.db" "influx://127.0.0.1:$HTTP_PORT/fix"
if out=$($CHECK readback "$URL" fix "$T/fix.db" "$VTBENCH" 2>&1); then
	ok "... every point and aggregate reads back; aggregates equal compare's series ($out)"
else
	notok "... every point and aggregate reads back; aggregates equal compare's series" "$out"
fi
expect_eq "... pinning has only its real values (no 'none' for a baseline)" \
	"$($CHECK tags "$URL" fix pinning | sort | tr '\n' ' ')" "none strict "
expect_eq "... pinning=none selects the unpinned VM's points only" \
	"$($CHECK select "$URL" fix "select count(value) from vtbench where pinning = 'none'" count)" \
	"$(sql "$T/fix.db" "select count(*) from sample s join result r on r.id = s.result_id join boot b on b.id = r.boot_id join config c on c.id = b.config_id where r.status = 'ok' and c.kind = 'vm' and c.params like '%\"pinning\":\"none\"%'")"
expect_eq "... a baseline's points have no pinning tag" \
	"$($CHECK select "$URL" fix "select count(value) from vtbench where pinning = ''" count)" \
	"$(sql "$T/fix.db" "select count(*) from sample s join result r on r.id = s.result_id join boot b on b.id = r.boot_id where r.status = 'ok' and b.kind = 'baseline'")"
expect_eq "... a series per configuration (the config tag)" \
	"$($CHECK select "$URL" fix "select count(mean) from vtbench_campaign group by config" count | wc -l)" \
	"$(sql "$T/fix.db" "select count(*) from config where id in (select config_id from boot)")"

# ... and the InfluxQL of docs/dashboards.md answers on it
awk '/^```influxql$/ { q = 1; next } /^```/ { q = 0 } q' "$SRCDIR/docs/dashboards.md" |
	sed 's/\$timeFilter/time > 0/' >"$T/queries"
nq=0
while IFS= read -r q; do
	nq=$((nq + 1))
	if out=$($CHECK select "$URL" fix "$q" time 2>&1) && [ -n "$out" ]; then
		ok "docs/dashboards.md query $nq answers ($(printf '%s\n' "$out" | wc -l) rows)"
	else
		notok "docs/dashboards.md query $nq answers" "$q" "$out"
	fi
done <"$T/queries"
[ "$nq" -ge 4 ] && ok "... all $nq of them" || notok "docs/dashboards.md has its InfluxQL queries" "found $nq"

# 8. credentials: never in the URL, a token file must be private
up 2 "credentials in the URL are refused" "$T/r.db" "influx://u:p@127.0.0.1:$HTTP_PORT/vtb"
expect_grep "... saying where they belong" "$T/err" "VTBENCH_UPLOAD_TOKEN"
printf '%s\n' "$TOKEN" >"$T/token"
chmod 644 "$T/token"
up 2 "a token file others can read is refused" "$T/r.db" "influx://127.0.0.1:$HTTP_PORT/x" --dry-run --token-file "$T/token"
expect_grep "... saying how to fix it" "$T/err" "chmod 600"
chmod 600 "$T/token"
up 0 "a private token file is used" "$T/r.db" "influx2://127.0.0.1:$HTTP_PORT/org/bucket" --dry-run --token-file "$T/token"
expect_grep "... masked in the dry run" "$T/out" "Authorization: Token ****"
up 2 "an unknown scheme is refused" "$T/r.db" "influxx://127.0.0.1:1/x"
expect_grep "... naming the sinks" "$T/err" "vtbench list sinks"

# 9. the token is nowhere: outputs, dry runs, the database, the server
sql "$T/r.db" .dump >"$T/dump.sql"
sql "$T/esc.db" .dump >>"$T/dump.sql"
curl -s -G "$URL/query" --data-urlencode db=vtb --data-urlencode 'q=select * from /vtbench.*/' >"$T/server.json"
found=""
for f in "$T/all-output" "$T/dry" "$T/dump.sql" "$T/server.json" "$T/influxd.log"; do
	grep -qF "$TOKEN" "$f" && found="$found $(basename "$f")"
done
expect_eq "the token never appears in stdout, stderr, dry runs, the database or the server" "$found" ""
