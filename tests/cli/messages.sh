# Messages that say what exists and what to do, and the rules they rest
# on: an unknown workload type (matrix and agent) lists the known ones and
# points a reference tool's name at the workload modelling it; --threshold
# takes 5% and says its form; --axis, --metric and --workload that match
# nothing name what the campaign has (only then); a matrix that cannot be
# opened is the first line; InfluxDB's 404 is answered with how to create
# the database, not with "run the same upload again"; CSV numbers in their
# shortest form of at most 15 digits, reading back to the database's
# values; db = from the matrix file's directory, and what compare says
# without --db when results.db is absent.  Bare-metal boots of 50 ms only.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
VTBENCH=$(cd "$(dirname "$VTBENCH")" && pwd)/$(basename "$VTBENCH")
AGENT=$(cd "$(dirname "$AGENT")" && pwd)/$(basename "$AGENT")
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
	exit 1
fi
"$MKFIXTURE" "$T/f.db" base 2>"$T/err" || notok "mkfixture base" "$(cat "$T/err")"
KNOWN="known: membw, timer, messaging, c2c, wakeup"

# the one line of stderr, or the whole of it
err1() { cat "$T/err"; }

# ---- unknown workload types
printf '[global]\nreps = 1\n[baseline]\ncpus = 1\n[workload lat]\ntype = schbench\n' >"$T/schbench.conf"
expect_exit "matrix: type = schbench exits 2" 2 "$VTBENCH" plan "$T/schbench.conf" \
	--host-topology 'pack:1 core:2 pu:1'
expect_grep "... naming file and line, the known types and the schbench model" "$T/err" \
	"schbench.conf:6: unknown workload type 'schbench' ('wakeup' is the schbench model; $KNOWN)"
printf '[global]\nreps = 1\n[baseline]\ncpus = 1\n[workload m]\ntype = membww\n' >"$T/typo.conf"
expect_exit "matrix: a misspelt type exits 2" 2 "$VTBENCH" plan "$T/typo.conf" \
	--host-topology 'pack:1 core:2 pu:1'
expect_grep "... with the nearest and the known types" "$T/err" \
	"typo.conf:6: unknown workload type 'membww' (did you mean 'membw'? $KNOWN)"
expect_exit "agent: vtbench-agent schbench exits 2" 2 "$AGENT" schbench
expect_grep "... naming the model, the known workloads and --list" "$T/err" \
	"unknown workload 'schbench' ('wakeup' is the schbench model; $KNOWN); vtbench-agent --list says what each measures"
expect_exit "agent: vtbench-agent hackbench exits 2" 2 "$AGENT" hackbench
expect_grep "... hackbench is the messaging model" "$T/err" "'messaging' is the hackbench model"

# ---- --threshold
expect_exit "compare --threshold 5% is accepted" 1 "$VTBENCH" compare --db "$T/f.db" \
	--threshold 5% --format json
cp "$T/out" "$T/pct.json"
expect_exit "compare --threshold 5 (the same)" 1 "$VTBENCH" compare --db "$T/f.db" --threshold 5 \
	--format json
if cmp -s "$T/out" "$T/pct.json"; then ok "... 5% and 5 give the same document"; else
	notok "... 5% and 5 give the same document" "$(diff "$T/pct.json" "$T/out" | head)"; fi
expect_exit "compare --threshold 5x exits 2" 2 "$VTBENCH" compare --db "$T/f.db" --threshold 5x
expect_grep "... saying the form it expects" "$T/err" \
	"bad value '5x' for --threshold: expected a percentage from 0 to 1000000, as 5 or 5%"
expect_exit "compare --threshold 5%% exits 2" 2 "$VTBENCH" compare --db "$T/f.db" --threshold 5%%
expect_exit "compare --alpha 2 exits 2" 2 "$VTBENCH" compare --db "$T/f.db" --alpha 2
expect_grep "... saying the range" "$T/err" "expected a level above 0 and at most 0.5, as 0.05"

# ---- --axis, --metric, --workload that match nothing
expect_exit "compare --axis cpu exits 2" 2 "$VTBENCH" compare --db "$T/f.db" --axis cpu
expect_grep "... with the nearest axis" "$T/err" "has the axis 'cpu' (did you mean 'cpus'?)"
expect_grep "... and the axes there are" "$T/err" \
	"(axes: topology, pinning, sched, vcpus, guest_kernel, host, host_kernel; parameters: confine, cpus, cpuset, memory, vms, topology.threads)"
expect_exit "compare --metric 'nosuch*' exits 2" 2 "$VTBENCH" compare --db "$T/f.db" --metric 'nosuch*'
expect_grep "... naming the metrics there are, counted" "$T/err" \
	"no metric matches 'nosuch*' in campaign f1c70000-0000-4000-8000-00000000000a; 5 metrics: copy, triad, wakeup_p50, wakeup_p99, one_way_mean_ns"
expect_exit "compare --workload membw --metric nosuch exits 2" 2 "$VTBENCH" compare --db "$T/f.db" \
	--workload membw --metric nosuch
expect_grep "... the metrics of that workload only" "$T/err" "; 2 metrics of membw: copy, triad"
expect_exit "compare --workload schbench exits 2" 2 "$VTBENCH" compare --db "$T/f.db" --workload schbench
expect_grep "... naming the model, the workloads and cells there are" "$T/err" \
	"no workload or cell 'schbench' in campaign f1c70000-0000-4000-8000-00000000000a ('wakeup' is the schbench model); 3 workloads: membw, wakeup, c2c; 3 cells: stream, wakeup, c2c"
expect_exit "compare --metric 'copy*' matches: no list" 1 "$VTBENCH" compare --db "$T/f.db" --metric 'copy*'
if grep -q "metrics:" "$T/err"; then notok "... and says nothing of the others" "$(cat "$T/err")"; else
	ok "... and says nothing of the others"; fi

# ---- a matrix that cannot be opened is the first line
for c in run explore plan; do
	expect_exit "$c nosuch.conf exits 2" 2 "$VTBENCH" $c "$T/nosuch.conf"
	expect_eq "... its only line says so (no host llc before it)" "$(cat "$T/err")" \
		"vtbench $c: cannot open '$T/nosuch.conf': No such file or directory"
done

# ---- InfluxDB's 404: create the database (bucket), no retry advice
receiver_start "$T/port" "$T/log" '404:{"error":"database not found: \"nosuch\""}'
trap 'kill "$RECV_PID" 2>/dev/null; rm -rf "$T"' EXIT
cp "$T/f.db" "$T/up.db"
expect_exit "upload: a database InfluxDB lacks exits 3" 3 "$VTBENCH" upload --db "$T/up.db" \
	--to "influx://127.0.0.1:$PORT/nosuch" --attempts 3 --backoff 10ms
expect_grep "... after one request" "$T/out" "1 request, 0 retries"
expect_grep "... quoting the server" "$T/err" "database not found"
expect_grep "... saying to create the database, with the command" "$T/err" \
	"create the database 'nosuch' first: influx -execute 'CREATE DATABASE \"nosuch\"' on its host, or curl -XPOST http://127.0.0.1:$PORT/query --data-urlencode 'q=CREATE DATABASE \"nosuch\"'"
expect_grep "... and that the same upload cannot help until then" "$T/err" \
	"the server refused the request (HTTP 404): the same upload again cannot help until what it says is fixed"
if grep -q "run the same upload again" "$T/err"; then
	notok "... never that running it again would send the rest" "$(cat "$T/err")"
else ok "... never that running it again would send the rest"; fi
expect_exit "upload: a bucket InfluxDB 2 lacks exits 3" 3 "$VTBENCH" upload --db "$T/up.db" \
	--to "influx2://127.0.0.1:$PORT/myorg/bk" --attempts 3 --backoff 10ms
expect_grep "... saying to create the bucket" "$T/err" \
	"create the bucket 'bk' of organisation 'myorg' first: influx bucket create --host http://127.0.0.1:$PORT --org 'myorg' --name 'bk'"
receiver_start "$T/port" "$T/log" 408 500
expect_exit "upload: 408 is retried, then 500 until the attempts run out: exit 3" 3 "$VTBENCH" \
	upload --db "$T/up.db" --to "influx://127.0.0.1:$PORT/vtb" --attempts 2 --backoff 10ms
expect_grep "... after a retry" "$T/out" "2 requests, 1 retry"
expect_grep "... a fault: running it again is the advice" "$T/err" "run the same upload again to send the rest"
kill "$RECV_PID" 2>/dev/null

# ---- CSV numbers: shortest, at most 15 digits, the database's values
"$VTBENCH" compare --db "$T/f.db" --format csv -o "$T/f.csv" --fail-on none 2>"$T/err" ||
	notok "compare --format csv" "$(cat "$T/err")"
if out=$(python3 - "$T/f.db" "$T/f.csv" <<'EOF' 2>&1
import csv, re, sqlite3, sys
num = re.compile(r"^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
checked = 0
for dbp, csvp in zip(sys.argv[1::2], sys.argv[2::2]):
    db = sqlite3.connect(dbp)
    ext = {}
    for key, cell, metric, lo, hi, n in db.execute(
            "select c.key, ce.name, s.metric, min(s.value), max(s.value), count(*) "
            "from sample s join result r on r.id = s.result_id join cell ce on ce.id = r.cell_id "
            "join config c on c.id = ce.config_id join boot b on b.id = r.boot_id "
            "where r.status = 'ok' and b.status != 'unexpected-topology' group by 1, 2, 3"):
        ext[(key, cell, metric)] = (lo, hi, n)
    rows = list(csv.DictReader(open(csvp, newline="")))
    for r in rows:
        for k, v in r.items():
            if not num.match(v or ""):
                continue
            digits = re.sub(r"[eE].*", "", v).replace("-", "").replace(".", "").lstrip("0")
            if len(digits) > 15:
                sys.exit("%s: %s = %s has %d digits" % (csvp, k, v, len(digits)))
            if re.search(r"(0{6,}[1-9]|9{6,}\d)$", re.sub(r"[eE].*", "", v)):
                sys.exit("%s: %s = %s carries last-bit noise" % (csvp, k, v))
        if r["kind"] != "verdict":
            continue
        for side in ("base", "x"):
            lo, hi, n = ext[(r[side + "_config"], r["cell"], r["metric"])]
            if int(r[side + "_n"]) != n:
                continue  # a side with boots set aside or pooled: not the raw extremes
            for col, want in (("_min", lo), ("_max", hi)):
                got = float(r[side + col])
                if got != float("%.15g" % want) or abs(got - want) > 1e-14 * abs(want):
                    sys.exit("%s: %s%s = %r, the database has %r" % (csvp, side, col, r[side + col], want))
                checked += 1
if checked < 20:
    sys.exit("only %d values checked" % checked)
print(checked)
EOF
); then ok "CSV numbers: at most 15 digits, no last-bit noise, min/max read back as the database's ($out values)"
else notok "CSV numbers: at most 15 digits, no last-bit noise, min/max read back as the database's" "$out"; fi
expect_grep "the CSV has 11696.3 where 17 digits printed 11696.300000000001" "$T/f.csv" ",11696.3,"

# ---- db = from the matrix file's directory
mkdir -p "$T/w/sub" "$T/elsewhere"
printf '[global]\nreps = 1\ndb = rel.db\n[baseline]\ncpus = 1\n[workload t]\ntype = timer\nduration = 50ms\n' \
	>"$T/w/sub/m.conf"
cd "$T/elsewhere" || exit 1
expect_exit "run sub/m.conf (db = rel.db) from another directory exits 0" 0 "$VTBENCH" run \
	../w/sub/m.conf --quiet
if [ -f "$T/w/sub/rel.db" ] && [ ! -e rel.db ]; then ok "... the database lands beside the matrix"
else notok "... the database lands beside the matrix" "$(ls -R "$T/w" "$T/elsewhere")"; fi
expect_grep "... and the run ends with its absolute path and the command to read it" "$T/out" \
	"results in $T/elsewhere/../w/sub/rel.db; see: vtbench compare --db $T/elsewhere/../w/sub/rel.db"
expect_exit "run --db here.db: the command line wins, from the working directory" 0 "$VTBENCH" run \
	../w/sub/m.conf --quiet --db here.db
if [ -f "$T/elsewhere/here.db" ]; then ok "... here.db is in the working directory"
else notok "... here.db is in the working directory" "$(ls "$T/elsewhere")"; fi
printf '[global]\nreps = 1\n[baseline]\ncpus = 1\n[workload t]\ntype = timer\nduration = 50ms\n' \
	>"$T/w/sub/nodb.conf"
expect_exit "run without db = writes results.db in the working directory" 0 "$VTBENCH" run \
	../w/sub/nodb.conf --quiet
if [ -f "$T/elsewhere/results.db" ] && [ ! -e "$T/w/sub/results.db" ]; then ok "... there, not beside the matrix"
else notok "... there, not beside the matrix" "$(ls -R "$T/w" "$T/elsewhere")"; fi
expect_exit "... which a plain compare reads" 0 "$VTBENCH" compare
rm -f results.db
touch b.db a.db
expect_exit "compare without --db and without results.db exits 2" 2 "$VTBENCH" compare
expect_eq "... naming the databases here" "$(cat "$T/err")" \
	"vtbench compare: no --db given and no results.db in the working directory; its databases: a.db, b.db, here.db; name one: vtbench compare --db FILE"
cd "$T/w" || exit 1
for c in compare list recommend upload; do
	set -- "$c"
	[ "$c" = list ] && set -- list runs
	[ "$c" = upload ] && set -- upload --to influx://127.0.0.1:9/x
	expect_exit "$c without --db in a directory without databases exits 2" 2 "$VTBENCH" "$@"
	expect_grep "... saying there is none and what to do" "$T/err" \
		"vtbench $c: no --db given and no results.db in the working directory (nor any other *.db): name the database with --db FILE, or store one first"
done
expect_exit "compare --db nosuch.db still says cannot open" 2 "$VTBENCH" compare --db nosuch.db
expect_grep "... naming it" "$T/err" "cannot open database 'nosuch.db': No such file or directory"
