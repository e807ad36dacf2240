# vtbench upload when the store cannot record a 2xx (issue 25): the
# database on a small tmpfs of its own, which the loopback receiver
# (tests/tools/http_receiver.py, response "fill:FILE") fills while it
# serves the request, so the commit after the 2xx fails for real (SQLite:
# database or disk is full).  InfluxDB: exit 3 naming the boots the next
# upload sends again, and it sends exactly those again.  The generic
# JSON and Codespeed sinks (a resend may count twice): exit 3, the
# request left in flight; the next upload sends nothing, reports it and
# says how to go on; --resend-in-flight sends it once more (with its
# Idempotency-Key), --in-flight-sent records it without a request.
# Needs root (mount); CI runs as root.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
RECV_PID=""
DISK=$T/disk
mkdir -p "$DISK"
trap '[ -n "$RECV_PID" ] && kill "$RECV_PID" 2>/dev/null; umount "$DISK" 2>/dev/null; rm -rf "$T"' EXIT
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=2m vtbtest "$DISK" 2>"$T/mount.err"; then
	if [ "${CI:-}" = true ]; then
		notok "a tmpfs of its own for the database" "$(cat "$T/mount.err" 2>/dev/null)"
	else
		skip "upload when the store cannot record a 2xx" "needs root to mount a tmpfs"
	fi
	exit 0
fi

# start_receiver OPTION... LOG RESPONSE...: a fresh receiver ($RECV_PORT if set); $PORT
start_receiver() {
	receiver_start "$@"
}
# boots LOG: the boot uuids of every line protocol point the receiver got, sorted
boots() {
	python3 -c 'import json, re, sys
print("\n".join(sorted({u for l in open(sys.argv[1]) for u in re.findall(r"boot=\"([^\"]*)\"", json.loads(l)["body"])})))' "$1"
}

MKFIXTURE=$(dirname "$VTBENCH")/tests/tools/mkfixture
DB=$DISK/r.db
"$MKFIXTURE" "$DB" base >/dev/null 2>&1 || notok "mkfixture" "$MKFIXTURE base failed"
UUID=$(sql "$DB" "select uuid from campaign")
FILL=$DISK/fill

# 1. InfluxDB, batches of 3 boots (5 points each): the first batch is
#    accepted while the disk fills, its record fails
start_receiver "$T/port" "$T/influx1" "fill:$FILL" 204
IN="influx://127.0.0.1:$PORT/db"
"$VTBENCH" upload --db "$DB" --to "$IN" --dry-run >"$T/dry" 2>&1
grep -o 'boot="[^"]*"' "$T/dry" | sed 's/boot="//; s/"$//' | sort -u >"$T/b0"
expect_exit "influx: the record of an accepted batch fails: exit 3" 3 "$VTBENCH" upload --db "$DB" \
	--to "$IN" --batch 15
expect_grep "... the store's error" "$T/err" "database or disk is full"
expect_grep "... how many boots the next upload sends again, and why that is harmless" "$T/err" \
	"$IN accepted 3 boots of campaign $UUID, but recording that failed: cannot commit in '$DB': database or disk is full; the next upload sends these 3 boots again, which changes nothing (InfluxDB keeps one point per series and timestamp"
expect_eq "... one request" "$(lines "$T/influx1")" "1"
rm -f "$FILL"
expect_eq "... nothing recorded sent" \
	"$(sql "$DB" "select count(*) from upload where sink = '$IN' and status = 'sent'")" "0"
RECV_PORT=$PORT start_receiver "$T/port" "$T/influx2" 204
expect_exit "influx: the next upload" 0 "$VTBENCH" upload --db "$DB" --to "$IN" --batch 15
boots "$T/influx1" >"$T/b1"
boots "$T/influx2" >"$T/b2"
if cmp -s "$T/b0" "$T/b2"; then ok "... sends every boot"; else notok "... sends every boot" "$(diff "$T/b0" "$T/b2")"; fi
expect_eq "... and again only the 3 boots it named" "$(comm -12 "$T/b1" "$T/b2" | wc -l | tr -d ' ')" "3"
if python3 - "$T/influx1" "$T/influx2" <<'PY'
import json, sys
first = json.loads(open(sys.argv[1]).readline())["body"]
again = json.loads(open(sys.argv[2]).readline())["body"]
sys.exit(first != again)
PY
then ok "... byte for byte the same points (InfluxDB overwrites each with itself)"; else notok "... byte for byte the same points"; fi

# 2. The generic JSON sink: recorded in flight before the request; the
#    record of its 2xx fails
start_receiver --json "$T/port" "$T/json1" "fill:$FILL" 204
JS="http://127.0.0.1:$PORT/hook"
expect_exit "json: the record of an accepted document fails: exit 3" 3 "$VTBENCH" upload --db "$DB" \
	--to "$JS"
expect_grep "... says so, and that nothing will be sent twice" "$T/err" \
	"$JS accepted the aggregates of campaign $UUID, but recording that failed: cannot commit in '$DB': database or disk is full; the next upload sends nothing twice: the request stays recorded in flight"
rm -f "$FILL"
expect_eq "... recorded in flight" \
	"$(sql "$DB" "select group_concat(status) from upload where sink = '$JS'")" "in-flight"
RECV_PORT=$PORT start_receiver --json "$T/port" "$T/json2" 204
expect_exit "json: the next upload holds it back: exit 3" 3 "$VTBENCH" upload --db "$DB" --to "$JS"
expect_eq "... no request" "$(lines "$T/json2")" "0"
expect_grep "... reported" "$T/err" \
	"the aggregates of campaign $UUID may have been delivered to $JS already: the last upload could not record the server's answer"
expect_grep "... with what to do" "$T/err" "--campaign $UUID --resend-in-flight"
expect_grep "... in the summary" "$T/out" "nothing sent (in flight"
expect_exit "json: a dry run shows no request for it" 0 "$VTBENCH" upload --db "$DB" --to "$JS" --dry-run
expect_grep "... and says why" "$T/err" "not sent without --resend-in-flight"
expect_exit "json: --resend-in-flight sends it again" 0 "$VTBENCH" upload --db "$DB" --to "$JS" \
	--resend-in-flight
expect_grep "... saying so" "$T/err" "may have been delivered to $JS already: sending its request again"
expect_eq "... in one request" "$(lines "$T/json2")" "1"
expect_eq "... with the campaign as its Idempotency-Key" \
	"$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["headers"].get("Idempotency-Key"))' "$T/json2")" \
	"\"$UUID\""
expect_eq "... the same key as the first request" \
	"$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["headers"].get("Idempotency-Key"))' "$T/json1")" \
	"\"$UUID\""
expect_eq "... recorded sent, nothing left in flight" \
	"$(sql "$DB" "select group_concat(status) from upload where sink = '$JS'")" "sent"
expect_exit "json: an upload after that" 0 "$VTBENCH" upload --db "$DB" --to "$JS"
expect_eq "... sends nothing" "$(lines "$T/json2")" "1"

# 3. Codespeed: the same, then recorded as sent without a request
HOST=$(sql "$DB" "select hostname from host")
start_receiver --codespeed "$HOST" "$T/port" "$T/cs1" "fill:$FILL" 204
CS="codespeed+http://127.0.0.1:$PORT/"
expect_exit "codespeed: the record of accepted results fails: exit 3" 3 "$VTBENCH" upload --db "$DB" \
	--to "$CS"
expect_grep "... nothing will be sent twice" "$T/err" "the next upload sends nothing twice"
rm -f "$FILL"
RECV_PORT=$PORT start_receiver --codespeed "$HOST" "$T/port" "$T/cs2" 204
expect_exit "codespeed: the next upload holds it back: exit 3" 3 "$VTBENCH" upload --db "$DB" --to "$CS"
expect_eq "... no request" "$(lines "$T/cs2")" "0"
expect_exit "codespeed: --in-flight-sent records it" 0 "$VTBENCH" upload --db "$DB" --to "$CS" \
	--in-flight-sent
expect_eq "... without a request" "$(lines "$T/cs2")" "0"
expect_grep "... said so" "$T/out" "nothing sent (in flight, now recorded as sent)"
NRES=$(python3 -c 'import json, sys, urllib.parse
body = json.loads(open(sys.argv[1]).readline())["body"]
print(len(json.loads(urllib.parse.parse_qs(body)["json"][0])))' "$T/cs1")
expect_eq "... each result saved once in all" "$(lines "$T/cs1.results") $(lines "$T/cs2.results")" \
	"$NRES 0"
expect_exit "codespeed: an upload after that" 0 "$VTBENCH" upload --db "$DB" --to "$CS"
expect_grep "... sent before" "$T/out" "nothing sent (sent before)"
expect_exit "--resend-in-flight and --in-flight-sent together: exit 2" 2 "$VTBENCH" upload --db "$DB" \
	--to "$CS" --resend-in-flight --in-flight-sent
