# The generic JSON sink (http://) and run --upload, against the loopback
# receiver (tests/tools/http_receiver.py --json): the body parsed and
# checked against the database and compare's own document; exactly once;
# a failed upload after a run reported (exit 3), nothing stored changed,
# and sent by a later vtbench upload.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
RECV_PID=""
trap '[ -n "$RECV_PID" ] && kill "$RECV_PID" 2>/dev/null; rm -rf "$T"' EXIT

start_receiver() { # OPTION... PORTFILE LOG RESPONSE...: $PORT
	receiver_start "$@"
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

# 1. run --upload to the JSON sink (a 500 first: retried)
start_receiver --json "$T/port" "$T/log1" 500 204
URL="http://127.0.0.1:$PORT/hooks/vtbench"
expect_exit "run --upload http://...: exit 0" 0 "$VTBENCH" run "$T/m.conf" --db "$T/r.db" --quiet \
	--upload "$URL"
expect_grep "... the upload's summary" "$T/out" "-> $URL: sent ("
expect_eq "... two requests (500, then 200)" "$(lines "$T/log1")" "2"
"$VTBENCH" compare --db "$T/r.db" --format json -o "$T/compare.json" >/dev/null 2>&1
if out=$(python3 - "$T/log1" "$T/r.db" "$T/compare.json" <<'PY' 2>&1
import json, sqlite3, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
r = reqs[-1]
assert r["method"] == "POST" and r["path"] == "/hooks/vtbench", r["path"]
assert r["headers"]["Content-Type"] == "application/json", r["headers"]
assert r["status"] == 200
doc = json.loads(r["body"])
db = sqlite3.connect(sys.argv[2])
uuid, host = db.execute("select campaign.uuid, host.hostname from campaign join host on host.id = campaign.host_id").fetchone()
assert doc["schema"] == "vtbench-upload/1" and doc["campaign"] == uuid and doc["host"] == host, doc
cmp = json.load(open(sys.argv[3]))
def same(a, b, path="compare"):
    # compare prints 12 significant digits, the upload every digit
    if isinstance(a, float) or isinstance(b, float):
        assert abs(a - b) <= 1e-10 * max(abs(a), abs(b), 1e-300), (path, a, b)
    elif isinstance(a, dict):
        assert set(a) == set(b), (path, set(a) ^ set(b))
        for k in a:
            same(a[k], b[k], path + "/" + k)
    elif isinstance(a, list):
        assert len(a) == len(b), (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, "%s/%d" % (path, i))
    else:
        assert a == b, (path, a, b)
same(doc["compare"], cmp)
boots = {b["uuid"]: b for b in doc["boots"]}
dbb = db.execute("select boot.uuid, config.key, boot.rep, boot.vm_index, boot.status from boot join config on config.id = boot.config_id").fetchall()
assert len(boots) == len(dbb), (len(boots), len(dbb))
n = 0
for u, key, rep, vmi, status in dbb:
    b = boots[u]
    assert (b["config"], b["rep"], b["vm_index"], b["status"]) == (key, rep, vmi, status), b
    want = sorted(db.execute(
        "select cell.name, sample.metric, sample.unit, sample.value from sample"
        " join result on result.id = sample.result_id join cell on cell.id = result.cell_id"
        " join boot on boot.id = result.boot_id where boot.uuid = ? and result.status = 'ok'", (u,)))
    got = sorted((s["cell"], s["metric"], s["unit"], s["value"]) for s in b["samples"])
    assert got == want, (u, got[:3], want[:3])
    n += len(got)
print(len(boots), "boots,", n, "samples")
PY
); then ok "... the body: compare's document and every boot's samples, as stored ($out)"; else notok "... the body" "$out"; fi
expect_eq "... recorded sent once" \
	"$(sql "$T/r.db" "select status || ' ' || what from upload where sink = '$URL'")" "sent aggregates"
N=$(lines "$T/log1")
expect_exit "a second upload to the same URL" 0 "$VTBENCH" upload --db "$T/r.db" --to "$URL"
expect_grep "... sent before" "$T/out" "nothing sent (sent before)"
expect_eq "... sends nothing" "$(lines "$T/log1")" "$N"

# 2. run --upload to a sink that refuses (Codespeed without the environment)
#    and to one that takes it: exit 3, reported, what is stored unchanged
start_receiver --codespeed nowhere "$T/port" "$T/log2" 204
CS="codespeed+http://127.0.0.1:$PORT/"
expect_exit "run --upload with a refusing sink: exit 3" 3 "$VTBENCH" run "$T/m.conf" --db "$T/r2.db" \
	--quiet --upload "$CS"
expect_grep "... the refusal reported" "$T/err" "not found; create the environment"
expect_grep "... and how to send it later" "$T/err" "vtbench upload --db $T/r2.db --to $CS --campaign"
expect_eq "... every boot stored ok all the same" \
	"$(sql "$T/r2.db" "select count(*) || ' ' || sum(status = 'ok') from boot")" "3 3"
expect_eq "... the campaign done" "$(sql "$T/r2.db" "select status from campaign")" "done"
HOST=$(sql "$T/r2.db" "select hostname from host")
RECV_PORT=$PORT start_receiver --codespeed "$HOST" "$T/port" "$T/log3" 204
expect_exit "... a later vtbench upload sends it" 0 "$VTBENCH" upload --db "$T/r2.db" --to "$CS"
expect_eq "... in one request, accepted" "$(python3 -c 'import json, sys; print(*[json.loads(l)["status"] for l in open(sys.argv[1])])' "$T/log3")" "202"

# 3. a bad --upload URL is refused before any boot runs
expect_exit "run --upload with an unknown sink: exit 2" 2 "$VTBENCH" run "$T/m.conf" --db "$T/r3.db" \
	--upload "ftp://127.0.0.1/x"
expect_grep "... saying so" "$T/err" "unknown sink"
if [ -f "$T/r3.db" ] && [ "$(sql "$T/r3.db" "select count(*) from boot" 2>/dev/null)" != 0 ]; then
	notok "... nothing run"
else
	ok "... nothing run"
fi
