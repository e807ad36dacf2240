# A database file is untrusted input (issue 25): it comes from other hosts
# (vtbench merge, fleets).  SQL it brings never runs: a crafted trigger,
# view, table or index makes every command that opens the file exit 2
# naming the object, before anything is read or written (a view shadowing
# a table used to hang them, a trigger deleted every sample when upload
# marked a boot sent).  --db must be a regular file: a FIFO used to hang,
# a character device and a directory are refused; a new database is never
# created through a dangling symbolic link.  A WAL database on a
# read-only mount is read (it could not be), unless changes wait in its
# -wal, which is said.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
RECV_PID=""
cleanup() {
	[ -n "$RECV_PID" ] && kill "$RECV_PID" 2>/dev/null
	if [ -d "$T/ro" ] && mountpoint -q "$T/ro" 2>/dev/null; then umount "$T/ro"; fi
	rm -rf "$T"
}
trap cleanup EXIT

MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
	exit 1
fi
"$MKFIXTURE" "$T/base.db" base clean 2>"$T/err" || notok "mkfixture base clean" "$(cat "$T/err")"
export VTBENCH_AGENT="$AGENT"
spin_conf "$T/m.conf"
# a bare-metal race, so that explore opens the database as run does
cp "$T/m.conf" "$T/x.conf"
printf '[explore]\nobjective = spin/seconds\nmin_rounds = 2\nmax_rounds = 2\n' >>"$T/x.conf"
TOPO="$SRCDIR/tests/fixtures/topo/xeon-2s-snc2.xml"

# commands NAME DB WHAT: every command that opens a database exits 2 on
# DB, saying WHAT (timeout: a hang is a failure, not a wait)
commands() {
	_n=$1 _db=$2 _what=$3
	while IFS='|' read -r _name _c; do
		# shellcheck disable=SC2086 # the words of the command
		expect_exit "$_n: $_name exits 2" 2 timeout 20 "$VTBENCH" $_c &&
			expect_grep "... naming it" "$T/err" "$_what"
	done <<EOC
list runs|list runs --db $_db
list cells|list cells --db $_db
compare|compare --db $_db
compare --against|compare --db $T/base.db --against $_db
recommend|recommend --db $_db
upload|upload --db $_db --to http://127.0.0.1:9/x --dry-run
plan --db|plan $T/m.conf --host-topology $TOPO --db $_db
run --resume|run $T/m.conf --db $_db --resume -q
explore --resume|explore $T/x.conf --db $_db --resume --budget-boots 1 -q
EOC
	rm -f "$T/merged.db"
	expect_exit "$_n: merge of it exits 2" 2 timeout 20 "$VTBENCH" merge "$T/merged.db" "$_db" &&
		expect_grep "... naming it" "$T/err" "$_what"
	[ ! -e "$T/merged.db" ] && ok "... creating nothing" || notok "... creating nothing"
	cp "$T/base.db" "$T/out.db"
	expect_exit "$_n: merge into it exits 2" 2 timeout 20 "$VTBENCH" merge "$_db" "$T/out.db" &&
		expect_grep "... naming it" "$T/err" "$_what"
}

# crafted NAME SQL: a copy of the fixture database edited by SQL
crafted() {
	cp "$T/base.db" "$T/$1.db"
	sql "$T/$1.db" "PRAGMA foreign_keys = OFF; $2" >/dev/null ||
		notok "$1: the edit applies" "$2"
}

# ---- a trigger: upload marks a boot sent, the trigger would delete every sample ----
crafted trigger "CREATE TRIGGER evil AFTER INSERT ON upload BEGIN DELETE FROM sample; END"
samples=$(sql "$T/trigger.db" "select count(*) from sample")
sum=$(sha256sum <"$T/trigger.db")
rm -f "$T/port"
python3 "$SRCDIR/tests/tools/http_receiver.py" --json "$T/port" "$T/recv.log" 204 &
RECV_PID=$!
i=0
while [ ! -s "$T/port" ] && kill -0 $RECV_PID 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
expect_exit "trigger: upload exits 2" 2 timeout 20 "$VTBENCH" upload --db "$T/trigger.db" \
	--to "http://127.0.0.1:$(cat "$T/port")/x" &&
	expect_grep "... naming the trigger" "$T/err" \
		"'$T/trigger.db' is not a vtbench database as written: trigger 'evil' on table 'upload' is not vtbench's"
expect_eq "... every sample still there" "$(sql "$T/trigger.db" "select count(*) from sample")" "$samples"
expect_eq "... nothing sent" "$(cat "$T/recv.log" 2>/dev/null | wc -l | tr -d ' ')" "0"
expect_eq "... the file as it was" "$(sha256sum <"$T/trigger.db")" "$sum"
commands trigger "$T/trigger.db" "trigger 'evil' on table 'upload' is not vtbench's"

# ---- a view shadowing host, recursing for ever: it hung list, compare, upload and merge ----
crafted view "DROP TABLE host; CREATE VIEW host AS WITH RECURSIVE r(id, hostname, cpu_vendor,
	cpu_family, cpu_model, cpu_model_name, cpu_codename, topo_digest, topo_summary, kernel) AS
	(SELECT 1, 'h', 'v', 0, 0, 'm', 'c', 'd', 's', 'k' UNION ALL SELECT id + 1, hostname,
	cpu_vendor, cpu_family, cpu_model, cpu_model_name, cpu_codename, topo_digest, topo_summary,
	kernel FROM r) SELECT * FROM r"
commands view "$T/view.db" "view 'host' is not vtbench's (vtbench's 'host' is a table)"

# ---- a table, an index that are not vtbench's ----
crafted table "CREATE TABLE notes (t TEXT)"
expect_exit "extra table: list exits 2" 2 timeout 20 "$VTBENCH" list runs --db "$T/table.db" &&
	expect_grep "... naming it" "$T/err" "table 'notes' is not vtbench's"
crafted index "DROP INDEX boot_config; CREATE INDEX boot_config ON boot (config_id) WHERE
	length(printf('%.*c', 1000000, 'x')) > 0"
expect_exit "redefined index: upload exits 2" 2 timeout 20 "$VTBENCH" upload --db "$T/index.db" \
	--to http://127.0.0.1:9/x --dry-run &&
	expect_grep "... naming it" "$T/err" "index 'boot_config' on table 'boot' is not vtbench's (it is defined otherwise)"

# ---- --db that is not a regular file: refused before SQLite opens it ----
mkfifo "$T/fifo"
for c in "list runs" "compare" "upload --to http://127.0.0.1:9/x --dry-run" "merge $T/m2.db"; do
	case $c in merge*) args="$c $T/fifo" ;; *) args="$c --db $T/fifo" ;; esac
	# shellcheck disable=SC2086
	expect_exit "a FIFO: $(echo "$c" | cut -d' ' -f1) exits 2, not hanging" 2 timeout 20 "$VTBENCH" $args &&
		expect_grep "... saying so" "$T/err" "'$T/fifo' is a FIFO, not a database file"
done
expect_exit "a FIFO: run exits 2" 2 timeout 20 "$VTBENCH" run "$T/m.conf" --db "$T/fifo" -q &&
	expect_grep "... saying so" "$T/err" "'$T/fifo' is a FIFO, not a database file"
# a character device (mknod as root; /dev/null is one too)
chr="$T/null"
mknod "$chr" c 1 3 2>/dev/null || chr=/dev/null
expect_exit "a character device: list exits 2" 2 timeout 20 "$VTBENCH" list runs --db "$chr" &&
	expect_grep "... saying so" "$T/err" "'$chr' is a character device, not a database file"
expect_exit "a character device: run exits 2" 2 timeout 20 "$VTBENCH" run "$T/m.conf" --db "$chr" -q &&
	expect_grep "... saying so" "$T/err" "'$chr' is a character device, not a database file"
mkdir "$T/dir"
expect_exit "a directory: compare exits 2" 2 timeout 20 "$VTBENCH" compare --db "$T/dir" &&
	expect_grep "... saying so" "$T/err" "'$T/dir' is a directory, not a database file"

# ---- a new database through a dangling symbolic link: refused, its target never created ----
ln -s "$T/target.db" "$T/dangling.db"
expect_exit "a dangling link: run exits 2" 2 timeout 20 "$VTBENCH" run "$T/m.conf" --db "$T/dangling.db" -q &&
	expect_grep "... saying so" "$T/err" \
		"'$T/dangling.db' is a symbolic link to '$T/target.db', which does not exist: a new database is never created through a link"
expect_exit "a dangling link: merge into it exits 2" 2 timeout 20 "$VTBENCH" merge "$T/dangling.db" "$T/base.db"
[ ! -e "$T/target.db" ] && ok "... its target not created" || notok "... its target not created" "$(ls -l "$T")"
: >"$T/empty-target"
ln -s "$T/empty-target" "$T/to-empty.db"
expect_exit "a link to an empty file: run exits 2" 2 timeout 20 "$VTBENCH" run "$T/m.conf" --db "$T/to-empty.db" -q &&
	expect_grep "... saying so" "$T/err" "is a symbolic link to an empty file: a new database is never created through a link"
expect_eq "... its target left empty" "$(wc -c <"$T/empty-target")" "0"
ln -s "$T/base.db" "$T/link.db"
expect_exit "... while a link to a database is read" 0 "$VTBENCH" list runs --db "$T/link.db" -q

# ---- a WAL database on a read-only mount (root: a tmpfs remounted read-only) ----
mkdir "$T/ro"
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=16m vtbtest "$T/ro" 2>"$T/err"; then
	why="cannot mount a tmpfs ($(id -un): $(cat "$T/err"))"
	if [ "${CI:-}" = true ]; then notok "read-only mount" "$why"; else skip "read-only mount" "$why"; fi
	exit 0
fi
cp "$T/base.db" "$T/ro/r.db"
expect_eq "read-only mount: the database is in WAL mode" "$(sql "$T/ro/r.db" "pragma journal_mode")" "wal"
# a second one whose last change waits in its -wal (copied while a
# connection holds it; no -shm beside it)
cp "$T/base.db" "$T/w.db"
sql "$T/w.db" "PRAGMA wal_autocheckpoint = 0" "UPDATE sample SET value = value + 1 WHERE id = 1" \
	".shell cp '$T/w.db' '$T/w.db-wal' '$T/ro/'" >/dev/null
expect_eq "... and one with changes in its -wal" "$([ -s "$T/ro/w.db-wal" ] && echo yes)" "yes"
mount -o remount,ro "$T/ro" || notok "read-only mount: remount read-only"
"$VTBENCH" compare --db "$T/base.db" --format json >"$T/want.json" 2>/dev/null
want=$?
expect_exit "read-only mount: list runs" 0 "$VTBENCH" list runs --db "$T/ro/r.db" -q
expect_eq "... lists the campaigns" "$(cat "$T/out")" "$(sql "$T/base.db" "select uuid from campaign order by started_ns")"
expect_exit "read-only mount: compare answers as on a writable copy" "$want" "$VTBENCH" compare \
	--db "$T/ro/r.db" --format json
if cmp -s "$T/want.json" "$T/out"; then ok "... the same document"; else notok "... the same document" "$(diff "$T/want.json" "$T/out" | head)"; fi
rm -f "$T/m3.db"
expect_exit "read-only mount: merge reads it" 0 "$VTBENCH" merge "$T/m3.db" "$T/ro/r.db" -q
expect_exit "read-only mount: changes in the -wal: list exits 2" 2 "$VTBENCH" list runs --db "$T/ro/w.db" &&
	expect_grep "... saying why" "$T/err" \
		"'$T/ro/w.db' has un-checkpointed changes in '$T/ro/w.db-wal' on a read-only mount"
expect_exit "... and compare" 2 "$VTBENCH" compare --db "$T/ro/w.db"
