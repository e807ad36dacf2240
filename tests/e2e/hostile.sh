# Hostile input (issue 16): what a guest, a server or a file sends can
# neither hang, crash nor forge the harness's output.  Each case feeds the
# hostile input through the real binaries and checks for a clear error,
# with nothing already stored lost.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need script || exit 0
need jq || exit 0

ESC=$(printf '\033') BEL=$(printf '\007') CR=$(printf '\r')

# no_raw NAME FILE: none of the guest's escape sequences, bells or carriage
# returns reached FILE raw (the harness's own "\r\033[K" may)
no_raw() {
	if LC_ALL=C grep -q -e "${ESC}\[31m" -e "${ESC}]52" -e "${ESC}\[2K" -e "$BEL" -e "red${BEL}" \
		-e "and${CR}forged" "$2"; then
		notok "$1" "$(LC_ALL=C od -c "$2" | head -n 20)"
	else
		ok "$1"
	fi
}

# ---- terminal escapes from the agent: shown as \xNN, stored as sent ----
cat >"$T/esc.conf" <<CONF
[global]
reps = 1
timeout = 20s
[baseline]
cpus = 1
[workload probe]
type = debug
mode = hostile
CONF
expect_exit "escapes: the run ends, the boot failed" 1 "$VTBENCH" run "$T/esc.conf" --db "$T/esc.db"
no_raw "escapes: nothing raw on stdout" "$T/out"
no_raw "escapes: nothing raw on stderr" "$T/err"
expect_grep "escapes: the agent's message is shown escaped" "$T/out" '\x1b[31mred\x07 and\rforged'
# the progress line of a terminal (script gives run a pty)
script -qec "$VTBENCH run '$T/esc.conf' --db '$T/esc.db'" /dev/null >"$T/tty" 2>&1
no_raw "escapes: nothing raw on a terminal's progress line" "$T/tty"
expect_grep "escapes: the terminal shows it escaped" "$T/tty" '\x1b[31mred\x07 and\rforged'
got=$(sql "$T/esc.db" "select count(*) from event where instr(message, char(27) || ']52;c;ZXZpbA==' || char(7)) > 0")
expect_eq "escapes: the database keeps what the guest sent" "$got" "2"
expect_exit "escapes: list cells runs" 0 "$VTBENCH" list runs --db "$T/esc.db"

# ---- crafted databases: exit 2 naming the table and the row ----
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
else
	"$MKFIXTURE" "$T/base.db" base 2>"$T/err" || notok "mkfixture base" "$(cat "$T/err")"
	# crafted NAME 'SQL edit' 'expected message': compare exits 2 with the
	# message, and leaves the file as it was
	# (a schema edit takes a connection of its own: SCHEMA, then EDIT)
	crafted() { # name schema-edit edit message
		cp "$T/base.db" "$T/c.db"
		{ [ -z "$2" ] || sql "$T/c.db" "$2"; } && sql "$T/c.db" "$3" >/dev/null ||
			notok "$1: the edit applies" "$2 $3"
		sum=$(sha256sum <"$T/c.db")
		expect_exit "$1: compare exits 2" 2 "$VTBENCH" compare --db "$T/c.db" &&
			expect_grep "$1: the error names table, row and column" "$T/err" "$4"
		expect_eq "$1: the database is left as it was" "$(sha256sum <"$T/c.db")" "$sum"
		for f in json csv; do
			"$VTBENCH" compare --db "$T/c.db" --format $f >/dev/null 2>&1; rc=$?
			expect_eq "$1: compare --format $f exits 2" "$rc" "2"
		done
	}
	# schema edited: NOT NULL or CHECK dropped (integrity_check stays ok)
	unnull() { # table column
		echo "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, '$2 TEXT NOT NULL', '$2 TEXT') WHERE name = '$1'; PRAGMA writable_schema = OFF"
	}
	crafted "NULL sample.metric" "$(unnull sample metric)" "UPDATE sample SET metric = NULL WHERE id = 5;" \
		"table sample, row 5: column metric is NULL, which the schema forbids"
	crafted "NULL cell.name" "$(unnull cell name)" "UPDATE cell SET name = NULL WHERE id = 2;" \
		"table cell, row 2: column name is NULL"
	crafted "NULL host.hostname" "$(unnull host hostname)" "UPDATE host SET hostname = NULL;" \
		"table host, row 1: column hostname is NULL"
	crafted "NULL config.label" "$(unnull config label)" "UPDATE config SET label = NULL WHERE id = 2;" \
		"table config, row 2: column label is NULL"
	crafted "sample.unit not UTF-8" "" "UPDATE sample SET unit = CAST(x'ff41' AS TEXT) WHERE id = 3;" \
		"table sample, row 3: column unit is not UTF-8 text"
	crafted "config.label a UTF-8 surrogate" "" "UPDATE config SET label = CAST(x'eda080' AS TEXT) WHERE id = 1;" \
		"table config, row 1: column label is not UTF-8 text"
	crafted "sample.value text" "" "UPDATE sample SET value = 'abc' WHERE id = 7;" \
		"table sample, row 7: column value is not a number"
	crafted "histogram.params not JSON" \
		"PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'CHECK (json_valid(params))', '') WHERE name = 'histogram'; PRAGMA writable_schema = OFF" "UPDATE histogram SET params = '{' WHERE id = 2;" \
		"table histogram, row 2: column params is not JSON"
	got=$(sql "$T/c.db" "pragma integrity_check")
	expect_eq "crafted: SQLite's integrity_check passes such files" "$got" "ok"
	# the failures compare lists first come from computed columns (a
	# boot's error or its topology difference): checked all the same
	"$MKFIXTURE" "$T/failed.db" failed 2>"$T/err" || notok "mkfixture failed" "$(cat "$T/err")"
	sql "$T/failed.db" "UPDATE boot SET error = CAST(x'41ff42' AS TEXT) WHERE status <> 'ok'"
	expect_exit "crafted: a failed boot's error not UTF-8: compare exits 2" 2 \
		"$VTBENCH" compare --db "$T/failed.db" &&
		expect_grep "... naming the column of the failures" "$T/err" "(reason) of a query is not UTF-8 text"
	# list and upload read the same rows
	cp "$T/base.db" "$T/c.db"
	sql "$T/c.db" "$(unnull cell name)" && sql "$T/c.db" "UPDATE cell SET name = NULL WHERE id = 2"
	expect_exit "crafted: list cells exits 2" 2 "$VTBENCH" list cells --db "$T/c.db" &&
		expect_grep "... naming the row" "$T/err" "table cell, row 2: column name is NULL"
	cp "$T/base.db" "$T/c.db"
	sql "$T/c.db" "UPDATE sample SET unit = CAST(x'c0af' AS TEXT) WHERE id = 9"
	expect_exit "crafted: upload --dry-run exits 2" 2 "$VTBENCH" upload --db "$T/c.db" \
		--to http://127.0.0.1:9/x --dry-run &&
		expect_grep "... naming the row" "$T/err" "table sample, row 9: column unit is not UTF-8 text"

	# histograms whose merged counts overflow: left out, never negative
	cp "$T/base.db" "$T/h.db"
	sql "$T/h.db" "UPDATE histogram SET buckets = '[[60,9223372036854775807]]'"
	"$VTBENCH" compare --db "$T/h.db" --format json >"$T/h.json" 2>"$T/err"; rc=$?
	expect_eq "overflowing histograms: compare still answers" "$rc" "1"
	got=$(jq '[.histograms[] | select(.buckets == null and (.error | test("2\\^63")))] | length' "$T/h.json")
	expect_eq "overflowing histograms: each merged one is left out with its reason" "$got" \
		"$(jq '.histograms | length' "$T/h.json")"
	got=$(jq '[.histograms[].buckets // [] | .[] | select(.[1] < 0)] | length' "$T/h.json")
	expect_eq "overflowing histograms: no negative count" "$got" "0"
	expect_exit "overflowing histograms: the HTML report is written" 1 "$VTBENCH" compare --db "$T/h.db" -o "$T/h.html"

	# ---- compare -o FILE: the old file or the whole new one, never a part ----
	mkdir "$T/o"
	cp "$T/base.db" "$T/o.db"
	# no WAL: reading it writes no -shm file that the limit would stop
	sql "$T/o.db" "PRAGMA journal_mode = DELETE" >/dev/null
	echo previous >"$T/o/r.html"
	# writes fail past 20-40 KiB (the report is ~90 KiB), SIGXFSZ ignored
	sh -c "trap '' XFSZ; ulimit -f 40; exec '$VTBENCH' compare --db '$T/o.db' -o '$T/o/r.html'" \
		>"$T/out" 2>"$T/err"
	expect_eq "-o: a write that fails midway exits 3" "$?" "3"
	expect_eq "-o: ... and leaves the old file as it was" "$(cat "$T/o/r.html")" "previous"
	expect_eq "-o: ... and no temporary file" "$(ls "$T/o")" "r.html"
	(umask 022 && "$VTBENCH" compare --db "$T/o.db" -o "$T/o/r.html" >/dev/null 2>&1)
	expect_eq "-o: a whole report replaces it" "$(head -n 1 "$T/o/r.html")" "<!DOCTYPE html>"
	expect_eq "-o: ... with the mode fopen would give it, and nothing else left" \
		"$(stat -c %a "$T/o/r.html") $(ls "$T/o")" "644 r.html"
	expect_exit "-o into a missing directory: exit 2" 2 "$VTBENCH" compare --db "$T/o.db" -o "$T/nodir/r.html"
fi

# ---- upload URLs a server would misread: exit 2 before anything is sent ----
if [ -f "$T/base.db" ]; then
	for url in 'pushgateway://127.0.0.1/%2E%2E' 'pushgateway://127.0.0.1:0/job' \
		'influx://127.0.0.1/db%00x' 'http://127.0.0.1/a%0d%0aX-Injected:%201'; do
		expect_exit "upload --to '$url': exit 2" 2 "$VTBENCH" upload --db "$T/base.db" --to "$url"
		if grep -q "to ''\|URL ''" "$T/err"; then notok "... names the URL" "$(cat "$T/err")"; else ok "... names the URL"; fi
	done
	expect_exit "run --upload with a traversing URL: exit 2 before the run" 2 \
		"$VTBENCH" run "$T/esc.conf" --db "$T/u.db" --upload 'http://127.0.0.1/x/%2e%2e/y'
	[ ! -e "$T/u.db" ] && ok "... nothing run" || notok "... nothing run"
fi

# ---- found by fuzz_hosttopo (corpus/fuzz_hosttopo/regress-*) ----
C=$SRCDIR/tests/fuzz/corpus/fuzz_hosttopo
# no PU at all: qsort(NULL, 0) in topo.c (undefined behaviour: the ASan+UBSan run)
expect_exit "a topology without a PU: exit 2" 2 "$VTBENCH" topo --host-topology "$C/regress-no-pu.xml"
expect_grep "... saying so" "$T/err" "the topology has no online CPU"
# hwloc 2.9 dereferences NULL on a NUMA node without complete_nodeset: a
# file is loaded by a child process first
expect_exit "hwloc XML that crashes hwloc: exit 2" 2 "$VTBENCH" topo \
	--host-topology "$C/regress-hwloc-crash-numa-without-complete-nodeset.xml"
expect_grep "... saying so, naming the file" "$T/err" \
	"hwloc crashed (signal 11) reading '$C/regress-hwloc-crash-numa-without-complete-nodeset.xml': not hwloc XML"
# a PU without os_index: hwloc took 22 s and ran out of memory
expect_exit "a PU without os_index: exit 2" 2 "$VTBENCH" topo --host-topology "$C/regress-pu-without-os-index.xml"
expect_grep "... naming the line" "$T/err" "regress-pu-without-os-index.xml':7: an object's os_index is missing"
expect_exit "... a good file still loads" 0 "$VTBENCH" topo --host-topology "$SRCDIR/tests/fixtures/topo/xeon-2s-snc2.xml"
