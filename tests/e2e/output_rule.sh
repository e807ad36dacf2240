# The one output rule (issue 25, common/outfile.h) for every command that
# writes a file at a path the user gave: compare -o, recommend -o, topo
# --export and plan --xml-dir.  Each case is an input that broke a root
# machine: `-o /dev/null` replaced the system's null device with a regular
# file (every later guest boot failed), a FIFO's reader was left blocked,
# a symlink replaced, a 0444 file came back 0644, `-o` naming the
# database destroyed the results, a symlink planted in --xml-dir
# overwrote its target.  Devices are made with mknod in a temporary
# directory, never the system's.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
"$MKFIXTURE" "$T/r.db" base clean 2>"$T/err" || notok "mkfixture" "$(cat "$T/err")"
dbsum() { sqlite3 "$T/r.db" "select count(*), sum(value) from sample"; }
db0=$(dbsum)

# kind PATH: what is at PATH, as ls -l's first letter (- regular, c char
# device, p FIFO, l symlink), and its mode
kind() { stat -c '%A' "$1" 2>/dev/null || echo missing; }

root=no
[ "$(id -u)" = 0 ] && root=yes

# ---- compare -o, every kind of path ----

# a character device (the null device, made here): written through, kept
if [ $root = yes ] && mknod "$T/null" c 1 3 2>/dev/null; then
	expect_exit "compare -o onto a character device succeeds" 0 \
		"$VTBENCH" compare --fail-on none --db "$T/r.db" --format json -o "$T/null"
	expect_eq "... which is still a character device" "$(kind "$T/null" | cut -c1)" "c"
	expect_eq "... and no temporary is left beside it" "$(ls "$T" | grep -c '^null\.')" "0"
	expect_eq "... and it still reads as empty (it is the null device)" "$(wc -c <"$T/null")" "0"
	rm -f "$T/null"
elif [ "${CI:-}" = true ]; then
	notok "mknod a null device in a temporary directory" "as $(id -un): needs root (CI runs as root)"
else
	skip "compare -o onto a character device" "mknod needs root"
fi

# a full device (/dev/full's numbers, made here): a write that fails is a
# disk error, exit 3, and the device stays
if [ $root = yes ] && mknod "$T/full" c 1 7 2>/dev/null; then
	expect_exit "compare -o onto a full device fails as a full disk" 3 \
		"$VTBENCH" compare --fail-on none --db "$T/r.db" --format json -o "$T/full"
	expect_grep "... saying why" "$T/err" "No space left on device"
	expect_eq "... and it is still a character device" "$(kind "$T/full" | cut -c1)" "c"
	rm -f "$T/full"
fi

# /dev/stdout: the descriptor the shell redirected (a file, then a pipe)
expect_exit "compare -o /dev/stdout writes to the redirected stdout" 0 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" --format csv -o /dev/stdout
expect_grep "... the CSV is there" "$T/out" "metric"
"$VTBENCH" compare --fail-on none --db "$T/r.db" --format csv -o /dev/stdout | cat >"$T/piped"
expect_grep "compare -o /dev/stdout through a pipe" "$T/piped" "metric"
expect_exit "compare -o - is stdout" 0 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" --format csv -o -
expect_grep "... the CSV is there" "$T/out" "metric"

# a FIFO: its reader gets the report and ends
mkfifo "$T/fifo"
(timeout 60 cat "$T/fifo" >"$T/fifo.got"; echo $? >"$T/fifo.rc") &
reader=$!
expect_exit "compare -o onto a FIFO succeeds" 0 \
	timeout 60 "$VTBENCH" compare --fail-on none --db "$T/r.db" --format csv -o "$T/fifo"
wait "$reader"
expect_eq "... its reader ended (not left blocked)" "$(cat "$T/fifo.rc")" "0"
expect_grep "... with the report" "$T/fifo.got" "metric"
expect_eq "... and the FIFO is still a FIFO" "$(kind "$T/fifo" | cut -c1)" "p"

# a symlink to a regular file: its target is written, the link stays
echo old >"$T/target.csv"
ln -s target.csv "$T/link.csv"
expect_exit "compare -o onto a symlink succeeds" 0 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" -o "$T/link.csv"
expect_eq "... the link is still a link" "$(kind "$T/link.csv" | cut -c1)" "l"
expect_grep "... its target holds the report" "$T/target.csv" "metric"
expect_grep "... and the resolution is said" "$T/err" "'$T/link.csv' is a symbolic link: writing its target '$T/target.csv'"

# a dangling symlink: nothing is created where the link points
ln -s "$T/nowhere/../planted" "$T/dangling.csv"
expect_exit "compare -o onto a dangling symlink is refused" 2 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" -o "$T/dangling.csv"
expect_grep "... saying why" "$T/err" "is a symbolic link to a missing file"
expect_eq "... nothing created at its target" "$(kind "$T/planted")" "missing"

# a symlink another user planted in a sticky world-writable directory
# (/tmp's kind): not followed, as the kernel's protected_symlinks would
# refuse it (vtbench reads the link itself, so the kernel cannot)
if [ $root = yes ]; then
	mkdir -p "$T/sticky" "$T/secret"
	chmod 1777 "$T/sticky"
	echo precious >"$T/secret/passwd"
	chmod 0600 "$T/secret/passwd"
	ln -s "$T/secret/passwd" "$T/sticky/report.csv"
	chown -h 65534:65534 "$T/sticky/report.csv"
	expect_exit "compare -o onto another user's link in a sticky directory is refused" 2 \
		"$VTBENCH" compare --fail-on none --db "$T/r.db" -o "$T/sticky/report.csv"
	expect_grep "... saying why" "$T/err" "protected_symlinks"
	expect_eq "... and its target is untouched" "$(cat "$T/secret/passwd")" "precious"
	ln -s "$T/secret/mine.csv" "$T/sticky/mine.csv"
	: >"$T/secret/mine.csv"
	expect_exit "... while root's own link there is followed" 0 \
		"$VTBENCH" compare --fail-on none --db "$T/r.db" -o "$T/sticky/mine.csv"
	expect_grep "... to its target" "$T/secret/mine.csv" "metric"
fi
ln -s link.csv "$T/chain.csv"
expect_exit "compare -o onto a link to a link is refused" 2 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" -o "$T/chain.csv"

# a 0444 file keeps its mode (and, as root, its owner)
echo old >"$T/ro.csv"
chmod 0444 "$T/ro.csv"
[ $root = yes ] && chown 65534:65534 "$T/ro.csv"
expect_exit "compare -o onto a 0444 file replaces it" 0 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" -o "$T/ro.csv"
expect_eq "... keeping its mode" "$(stat -c %a "$T/ro.csv")" "444"
if [ $root = yes ]; then
	expect_eq "... and its owner" "$(stat -c %u:%g "$T/ro.csv")" "65534:65534"
fi
expect_grep "... with the report" "$T/ro.csv" "metric"

# a new file: 0666 less the umask, no temporary left
(umask 027 && "$VTBENCH" compare --fail-on none --db "$T/r.db" -o "$T/new.csv")
expect_eq "compare -o makes a new file with 0666 less the umask" "$(stat -c %a "$T/new.csv")" "640"
expect_eq "... and leaves no temporary" "$(ls "$T" | grep -c '\.csv\.')" "0"

# a directory, a socket-less missing directory
mkdir "$T/adir"
expect_exit "compare -o onto a directory is refused" 2 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" --format csv -o "$T/adir"
expect_grep "... saying it is a directory" "$T/err" "it is a directory"
expect_exit "compare -o into a missing directory is refused" 2 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" -o "$T/missing/x.csv"

# the database itself, its WAL, a symlink to it: refused, nothing lost
expect_exit "compare -o naming its own database is refused" 2 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" --format csv -o "$T/r.db"
expect_grep "... saying it is the database" "$T/err" "it is the database this command reads"
ln -s r.db "$T/alias.db"
expect_exit "compare -o naming the database through a symlink is refused" 2 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" --format csv -o "$T/alias.db"
expect_exit "compare -o naming the database's -wal is refused" 2 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" --format csv -o "$T/r.db-wal"
expect_grep "... saying whose" "$T/err" "it is the wal file of the database"
mkdir -p "$T/real"
cp "$T/r.db" "$T/real/w.db"
ln -s real/w.db "$T/wlink.db"
expect_exit "compare -o naming the -wal beside a symlinked database's file is refused" 2 \
	"$VTBENCH" compare --fail-on none --db "$T/wlink.db" --format csv -o "$T/real/w.db-wal"
expect_exit "compare -o /dev/fd/N naming a read-only descriptor is refused" 2 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" --format csv -o /dev/fd/7 7<"$T/r.db"
expect_exit "compare -o /dev/fd/N naming the database is refused" 2 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" --format csv -o /dev/fd/7 7<>"$T/r.db"
expect_grep "... saying it is the database" "$T/err" "it is the database this command reads"
cp "$T/r.db" "$T/against.db"
expect_exit "compare -o naming the --against database is refused" 2 \
	"$VTBENCH" compare --fail-on none --db "$T/r.db" --against "$T/against.db" --format csv -o "$T/against.db"
expect_eq "... and the database is whole" "$(dbsum)" "$db0"
expect_exit "... and still opens" 0 "$VTBENCH" list runs --db "$T/r.db"

# ---- topo --export ----
if [ $root = yes ] && mknod "$T/null2" c 1 3 2>/dev/null; then
	expect_exit "topo --export onto a character device succeeds" 0 \
		"$VTBENCH" topo --host-topology "pack:1 core:2 pu:1" --export "$T/null2"
	expect_eq "... which is still a character device" "$(kind "$T/null2" | cut -c1)" "c"
fi
echo old >"$T/topo-target.xml"
chmod 0400 "$T/topo-target.xml"
ln -s topo-target.xml "$T/topo-link.xml"
expect_exit "topo --export onto a symlink writes its target" 0 \
	"$VTBENCH" topo --host-topology "pack:1 core:2 pu:1" --export "$T/topo-link.xml"
expect_eq "... the link stays" "$(kind "$T/topo-link.xml" | cut -c1)" "l"
expect_eq "... the target keeps its mode" "$(stat -c %a "$T/topo-target.xml")" "400"
expect_grep "... and holds the XML" "$T/topo-target.xml" "<topology"
expect_exit "topo --export over its own --host-topology file is refused" 2 \
	"$VTBENCH" topo --host-topology "$T/topo-target.xml" --export "$T/topo-target.xml"
expect_grep "... naming it" "$T/err" "it is the --host-topology file this command reads"

# ---- plan --xml-dir: names vtbench makes in the user's directory ----
printf '[vm]\nvcpus = 1\nmemory = 1G\n[workload t]\ntype = timer\n' >"$T/vm.conf"
H="pack:1 core:2 pu:1"
"$VTBENCH" plan "$T/vm.conf" --host-topology "$H" --xml-dir "$T/xml" >/dev/null
f=$(ls "$T/xml")
echo victim >"$T/victim"
rm -f "$T/xml/$f"
ln -s ../victim "$T/xml/$f"
expect_exit "plan --xml-dir with a symlink planted at a domain's file is refused" 2 \
	"$VTBENCH" plan "$T/vm.conf" --host-topology "$H" --xml-dir "$T/xml"
expect_grep "... naming the file" "$T/err" "cannot write '$T/xml/$f': it is a symbolic link"
expect_eq "... and the victim is untouched" "$(cat "$T/victim")" "victim"
rm -f "$T/xml/$f"
mkfifo "$T/xml/$f"
expect_exit "plan --xml-dir with a FIFO at a domain's file is refused, not blocked on" 2 \
	timeout 30 "$VTBENCH" plan "$T/vm.conf" --host-topology "$H" --xml-dir "$T/xml"
rm -f "$T/xml/$f"
echo old >"$T/xml/$f"
chmod 0640 "$T/xml/$f"
expect_exit "plan --xml-dir replaces an old domain file" 0 \
	"$VTBENCH" plan "$T/vm.conf" --host-topology "$H" --xml-dir "$T/xml"
expect_grep "... with the new XML" "$T/xml/$f" "<domain"
expect_eq "... keeping its mode" "$(stat -c %a "$T/xml/$f")" "640"
: >"$T/plainfile"
expect_exit "plan --xml-dir onto a regular file is an input error" 2 \
	"$VTBENCH" plan "$T/vm.conf" --host-topology "$H" --xml-dir "$T/plainfile"
expect_grep "... saying it is not a directory" "$T/err" "--xml-dir: '$T/plainfile' is not a directory"
expect_eq "... and prints no plan first" "$(wc -c <"$T/out")" "0"

# ---- recommend -o (a small bare-metal race) ----
cat >"$T/race.conf" <<'CONF'
[global]
timeout = 60s
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
if "$VTBENCH" explore "$T/race.conf" --db "$T/race.db" -q >"$T/explore.out" 2>&1; then
	if [ $root = yes ] && mknod "$T/null3" c 1 3 2>/dev/null; then
		expect_exit "recommend -o onto a character device succeeds" 0 \
			"$VTBENCH" recommend --db "$T/race.db" --format json -o "$T/null3"
		expect_eq "... which is still a character device" "$(kind "$T/null3" | cut -c1)" "c"
	fi
	expect_exit "recommend -o naming its database is refused" 2 \
		"$VTBENCH" recommend --db "$T/race.db" --format json -o "$T/race.db"
	expect_exit "... which still opens" 0 "$VTBENCH" recommend --db "$T/race.db"
else
	notok "explore runs a small bare-metal race" "$(tail -n 5 "$T/explore.out")"
fi

# ---- vtbench-agent --out ----
if [ $root = yes ] && mknod "$T/null4" c 1 3 2>/dev/null; then
	expect_exit "vtbench-agent --out onto a character device succeeds" 0 \
		"$AGENT" timer --loops 50 --out "$T/null4"
	expect_eq "... which is still a character device" "$(kind "$T/null4" | cut -c1)" "c"
fi
echo old >"$T/agent-target"
chmod 0400 "$T/agent-target"
ln -s agent-target "$T/agent-link"
expect_exit "vtbench-agent --out onto a symlink writes its target" 0 \
	"$AGENT" timer --loops 50 --records --out "$T/agent-link"
expect_eq "... the link stays" "$(kind "$T/agent-link" | cut -c1)" "l"
expect_eq "... the target keeps its mode" "$(stat -c %a "$T/agent-target")" "400"
expect_grep "... and holds the records" "$T/agent-target" "@vtb1"
# an interrupted agent leaves what it measured in --out (written in place)
timeout -s INT 2 "$AGENT" timer --duration 30s --records --out "$T/agent-int" 2>/dev/null
expect_grep "vtbench-agent --out interrupted keeps the records written so far" "$T/agent-int" "@vtb1"
expect_eq "... and no temporary is left" "$(ls "$T" | grep -c '^agent-int\.')" "0"
