# vtbench upload's memory whatever the database holds (issue 25): 50 MB
# in host.hostname took a dry run past 4 GB (the host tag, copied into
# every point of a batch).  Every sink's dry run and a real upload run
# under `ulimit -v 600000` (ASan: its hard_rss_limit_mb, a virtual limit
# would stop its shadow memory), exit 0, peak RSS printed, and carry the
# host name cut to 256 bytes with the cut marked, as an independent
# computation of the cut says (in compare's document, which the JSON sink
# embeds, to 4096: compare's own sentences stay whole).  Batches keep to
# --batch-bytes: every request of several boots within it, the points the
# same as one batch's.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
RECV_PID=""
trap '[ -n "$RECV_PID" ] && kill "$RECV_PID" 2>/dev/null; rm -rf "$T"' EXIT

start_receiver() { # OPTION... LOG RESPONSE...: $PORT
	receiver_start "$@"
}

# bounded NAME CMD...: CMD under the memory limit, exit 0; output in
# $T/out and $T/err, peak RSS (KiB) in $RSS
LIMIT_KB=600000
LIMIT="ulimit -v $LIMIT_KB"
if ldd "$VTBENCH" 2>/dev/null | grep -q libasan; then
	ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}hard_rss_limit_mb=1000
	export ASAN_OPTIONS
	LIMIT_KB=unlimited
	LIMIT="ASan's hard_rss_limit_mb=1000"
fi
bounded() {
	_name=$1; shift
	RSS=$(python3 - "$T" "$LIMIT_KB" "$@" <<'PY'
import resource, subprocess, sys
t, limit = sys.argv[1], sys.argv[2]
def cap():
    if limit != "unlimited":
        kb = int(limit) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (kb, kb))
with open(t + "/out", "wb") as o, open(t + "/err", "wb") as e:
    rc = subprocess.call(sys.argv[3:], stdout=o, stderr=e, preexec_fn=cap)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
)
	_rc=${RSS% *}
	RSS=${RSS#* }
	if [ "$_rc" = 0 ]; then
		ok "$_name (peak RSS $((RSS / 1024)) MiB under $LIMIT)"
	else
		notok "$_name" "exit $_rc, peak RSS $RSS KiB" "$(head -c 600 "$T/err")"
	fi
}
# hosts SINK FILE: the host name as each request of FILE (dry run output,
# or the receiver's log with --log) carries it, one a line, sorted, unique
hosts() {
	python3 - "$@" <<'PY'
import base64, json, re, sys, urllib.parse
sink, path = sys.argv[1], sys.argv[2]
reqs = []
if len(sys.argv) > 3:  # the receiver's log
    for l in open(path):
        r = json.loads(l)
        reqs.append((r["method"] + " " + r["path"], r["body"]))
else:  # the dry run: "METHOD URL", headers, an empty line, the body, an empty line
    text = open(path).read()
    for m in re.finditer(r"^(POST|PUT) (\S+)\n(?:[^\n]+\n)*\n(.*?)\n\n", text, re.S | re.M):
        reqs.append((m.group(1) + " " + m.group(2), m.group(3)))
seen = set()
for line, body in reqs:
    if sink == "influx":
        for p in body.splitlines():
            m = re.search(r",host=((?:\\.|[^ ,\\])*)", p)
            seen.add(re.sub(r"\\(.)", r"\1", m.group(1)))
    elif sink == "json":
        d = json.loads(body)
        seen.add(d["host"])
        seen.add("compare: " + d["compare"]["campaign"]["host"])
    elif sink == "codespeed":
        for r in json.loads(urllib.parse.parse_qs(body)["json"][0]):
            seen.add(r["environment"])
    elif sink == "pushgateway":
        m = re.search(r"/instance@base64/([^/]*)$", line)
        seen.add(base64.urlsafe_b64decode(m.group(1)).decode() if m else line)
if not reqs:
    seen.add("(no request)")
print("\n".join(sorted(seen)))
PY
}

MKFIXTURE=$(dirname "$VTBENCH")/tests/tools/mkfixture
"$MKFIXTURE" "$T/r.db" base clean >/dev/null 2>&1 || notok "mkfixture" "$MKFIXTURE base clean failed"
cp "$T/r.db" "$T/small.db"
sql "$T/r.db" "UPDATE host SET hostname = printf('%.*c', 50000000, 'x')"
host_cut() { # MAX: the 50 MB host name as upload cuts it
	python3 -c 'import sys, zlib
m = "...[cut: 50000000 bytes, crc32 %08x]" % zlib.crc32(b"x" * 50000000)
print("x" * (int(sys.argv[1]) - len(m)) + m)' "$1"
}
WANT=$(host_cut 256)
WANT_JSON=$(printf 'compare: %s\n%s' "$(host_cut 4096)" "$WANT")

# 1. every sink's dry run
for s in influx:influx://127.0.0.1:9/db pushgateway:pushgateway://127.0.0.1:9/job \
	codespeed:codespeed+http://127.0.0.1:9/ json:http://127.0.0.1:9/hook; do
	sink=${s%%:*}
	bounded "$sink: a dry run with 50 MB in host.hostname" "$VTBENCH" upload --db "$T/r.db" \
		--to "${s#*:}" --dry-run
	want=$WANT
	[ "$sink" = json ] && want=$WANT_JSON
	expect_eq "... the host name cut to 256 bytes, the cut marked" "$(hosts "$sink" "$T/out")" "$want"
done

# 2. a real upload (InfluxDB, the generic JSON sink), what the receiver got
start_receiver "$T/port" "$T/influx.log" 204
bounded "influx: an upload with 50 MB in host.hostname" "$VTBENCH" upload --db "$T/r.db" \
	--to "influx://127.0.0.1:$PORT/db"
expect_eq "... received with the host name cut" "$(hosts influx "$T/influx.log" --log)" "$WANT"
start_receiver --json "$T/port" "$T/json.log" 204
bounded "json: an upload with 50 MB in host.hostname" "$VTBENCH" upload --db "$T/r.db" \
	--to "http://127.0.0.1:$PORT/hook"
expect_eq "... received with the host name cut" "$(hosts json "$T/json.log" --log)" "$WANT_JSON"

# 3. --batch-bytes: requests of several boots stay within it, and the
#    points are those of one batch
"$VTBENCH" upload --db "$T/small.db" --to "influx://127.0.0.1:9/one" --dry-run --batch 100000 \
	--batch-bytes 1G >"$T/one" 2>&1
start_receiver "$T/port" "$T/bytes.log" 204
expect_exit "--batch-bytes 4K" 0 "$VTBENCH" upload --db "$T/small.db" \
	--to "influx://127.0.0.1:$PORT/bytes" --batch-bytes 4K
if out=$(python3 - "$T/bytes.log" "$T/one" <<'PY' 2>&1
import json, re, sys
reqs = [json.loads(l)["body"] for l in open(sys.argv[1])]
boots = [r for r in reqs if "vtbench_campaign," not in r]
assert len(boots) > 1, len(boots)
for b in boots:
    n = len(set(re.findall(r'boot="([^"]*)"', b)))
    assert len(b.encode()) <= 4096 or n == 1, (len(b.encode()), n)
one = open(sys.argv[2]).read().split("\n\n")[1] + "\n"
assert "".join(boots) == one, "the points differ from one batch's"
print(len(boots), "requests of boots, the largest", max(len(b.encode()) for b in boots), "bytes")
PY
); then ok "... each request of several boots within 4 KiB, the same points ($out)"; else notok "... each request within 4 KiB" "$out"; fi
expect_exit "--batch-bytes below 1K is refused: exit 2" 2 "$VTBENCH" upload --db "$T/small.db" \
	--to "influx://127.0.0.1:9/x" --batch-bytes 100
expect_grep "... saying what it takes" "$T/err" "--batch-bytes '100': expected a size from 1K to 1G"
