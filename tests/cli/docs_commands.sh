#!/bin/sh
# Every vtbench command README.md and docs/*.md show in a fenced block
# runs as shown (or, for those that boot guests, parses and plans), with
# the exit code the doc implies, against fixture databases named as the
# docs name them; every synopsis line names a command and options that
# exist.  The rules, and the short list of what is not run as shown, are
# in tests/tools/docs_commands.py.  Also: every command's --help (and
# vtbench-agent's) ends with its exit codes, as the README says.
. "$(dirname "$0")/lib.sh"
need python3 || exit 0
need sqlite3 || exit 0
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
	exit 0
fi
case $VTBENCH in /*) ;; *) VTBENCH=$(pwd)/$VTBENCH ;; esac
case $AGENT in /*) ;; *) AGENT=$(pwd)/$AGENT ;; esac

# the fixture every named database gets: an explore race and, the latest
# (compare's default campaign), one with every kind of row; fleet.db: two
# hosts' campaigns merged
"$MKFIXTURE" "$T/fixture.db" base race 2>"$T/err" || notok "mkfixture base race" "$(cat "$T/err")"
sql "$T/fixture.db" "UPDATE campaign SET started_ns = started_ns + 172800000000000,
	ended_ns = ended_ns + 172800000000000 WHERE uuid = 'f1c70000-0000-4000-8000-00000000000a'"
"$MKFIXTURE" "$T/host1.db" base 2>"$T/err" || notok "mkfixture base" "$(cat "$T/err")"
"$MKFIXTURE" "$T/host2.db" clean 2>"$T/err" || notok "mkfixture clean" "$(cat "$T/err")"
sql "$T/host2.db" "UPDATE host SET hostname = 'fixture-host-2'"
"$VTBENCH" merge -q "$T/fleet.db" "$T/host1.db" "$T/host2.db" >/dev/null 2>"$T/err" ||
	notok "the fleet fixture merges" "$(cat "$T/err")"

mkdir "$T/work"
python3 "$SRCDIR/tests/tools/docs_commands.py" "$SRCDIR" "$VTBENCH" "$AGENT" "$T/fixture.db" \
	"$T/fleet.db" "$T/work" "$SRCDIR/README.md" "$SRCDIR"/docs/*.md >"$T/res" 2>"$T/err"
rc=$?
cat "$T/res"
expect_eq "the docs' commands were all checked (the checker exits 0)" "$rc:$(head -c 600 "$T/err")" "0:"
n=$(grep -c '^\(ok\|not ok\) - [^ ]*:[0-9]*: \(vtbench\|vtbench-agent\) ' "$T/res")
if [ "$n" -ge 15 ]; then ok "the docs show $n commands (15 at least: the extraction works)"
else notok "the docs show $n commands (15 at least: the extraction works)"; fi

# every --help ends with the exit codes (README: "Every command has --help
# (its options, defaults and exit codes")
for c in $("$VTBENCH" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }'); do
	"$VTBENCH" "$c" --help >"$T/h" 2>&1
	expect_grep "vtbench $c --help lists its exit codes" "$T/h" "exit codes: 0 "
done
"$VTBENCH" --help >"$T/h" 2>&1
expect_grep "vtbench --help lists the exit codes" "$T/h" "exit codes: 0 "
"$AGENT" --help >"$T/h" 2>&1
expect_grep "vtbench-agent --help lists its exit codes" "$T/h" "exit codes: 0 "
"$AGENT" membw --help >"$T/h" 2>&1
expect_grep "vtbench-agent membw --help lists its exit codes" "$T/h" "exit codes: 0 "

# the docs name no internal issue and no file outside the repository
if grep -nE '[Ii]ssues? [0-9]+|/work/|\.\./shared/|DESIGN\.md' "$SRCDIR/README.md" "$SRCDIR"/docs/*.md >"$T/iss"; then
	notok "README and docs cite no issue numbers or files outside the repository" "$(cat "$T/iss")"
else ok "README and docs cite no issue numbers or files outside the repository"; fi
# a matrix cited as FILE.conf:N names the line of a section there
grep -ohE 'examples/[a-z0-9-]+\.conf:[0-9]+' "$SRCDIR/README.md" "$SRCDIR"/docs/*.md | sort -u >"$T/cites"
while IFS=: read -r f l; do
	s=$(sed -n "${l}p" "$SRCDIR/$f")
	case $s in
	'['*) ok "$f:$l, cited by the docs, is a section ($s)" ;;
	*) notok "$f:$l, cited by the docs, is a section" "line $l is '$s'" ;;
	esac
done <"$T/cites"
