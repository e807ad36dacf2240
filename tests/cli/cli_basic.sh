# CLI behaviour: help, version, usage errors, exit codes, matrix errors
# with file:line and suggestions.
. "$SRCDIR/tests/cli/lib.sh"

expect_exit "no arguments is a usage error" 2 "$VTBENCH"
expect_exit "--help exits 0" 0 "$VTBENCH" --help
expect_grep "--help lists run" "$T/out" "run "
expect_exit "--version exits 0" 0 "$VTBENCH" --version
expect_grep "--version names vtbench" "$T/out" "vtbench "
expect_exit "unknown command exits 2" 2 "$VTBENCH" rnu
expect_grep "unknown command suggests" "$T/err" "did you mean 'run'?"
for c in run plan compare list; do
	expect_exit "$c --help exits 0" 0 "$VTBENCH" "$c" --help
	expect_grep "$c --help shows usage" "$T/out" "usage: vtbench $c"
done
expect_exit "run --help documents --resume" 0 "$VTBENCH" run --help
expect_grep "run --help documents --resume" "$T/out" "--resume"
expect_exit "unknown option exits 2" 2 "$VTBENCH" run --frobnicate x.conf
expect_exit "run without a matrix exits 2" 2 "$VTBENCH" run

# an unknown key: exit 2, file:line, a suggestion; nothing run, no db made
cat >"$T/typo.conf" <<'CONF'
[global]
reps = 2

[baseline]
cpu = 1

[workload stream]
type = membw
CONF
expect_exit "unknown key exits 2" 2 "$VTBENCH" run "$T/typo.conf" --db "$T/typo.db"
expect_grep "unknown key names file:line" "$T/err" "$T/typo.conf:5:"
expect_grep "unknown key suggests the nearest" "$T/err" "did you mean 'cpus'?"
if [ -e "$T/typo.db" ]; then notok "input error creates no database"; else ok "input error creates no database"; fi

expect_exit "plan: missing file exits 2" 2 "$VTBENCH" plan "$T/nope.conf"
expect_grep "plan: missing file is named" "$T/err" "cannot open '$T/nope.conf'"

expect_exit "compare: missing database exits 2" 2 "$VTBENCH" compare --db "$T/none.db"
expect_grep "compare: missing database is named" "$T/err" "$T/none.db"
printf 'not a database at all, just text\n' >"$T/text.db"
expect_exit "compare: a non-database exits 2" 2 "$VTBENCH" compare --db "$T/text.db"

expect_exit "list workloads" 0 "$VTBENCH" list workloads
expect_grep "list workloads shows membw" "$T/out" "membw"
if grep -q '^debug' "$T/out"; then notok "debug workload hidden by default"; else ok "debug workload hidden by default"; fi
expect_exit "list bogus exits 2" 2 "$VTBENCH" list runz
expect_grep "list bogus suggests" "$T/err" "did you mean 'runs'?"

expect_exit "agent --help exits 0" 0 "$AGENT" --help
expect_exit "agent membw --help exits 0" 0 "$AGENT" membw --help
expect_grep "agent membw --help names STREAM" "$T/out" "STREAM"
expect_exit "agent unknown workload exits 2" 2 "$AGENT" nosuch
expect_exit "agent bad option value exits 2" 2 "$AGENT" membw --iterations 1
# the reference tools' bare flags: a yes/no option alone is yes, letters
# group, a yes/no word may follow; NAME=VALUE still works
flags() { # name want args...
	_n=$1 _w=$2; shift 2
	if "$AGENT" "$@" --records >"$T/out" 2>"$T/err" &&
		grep -q "\"mlockall\":\"$_w\"" "$T/out"; then ok "$_n"; else notok "$_n" "$(head -c 400 "$T/err")" "$(grep -o '"mlockall":"[a-z]*"' "$T/out" | head -1)"; fi
}
flags "timer -m is cyclictest's mlockall" yes timer -t 1 -l 2 -i 1ms -m
flags "timer -m before other options" yes timer -m -t 1 -l 2 -i 1ms
flags "timer -m no" no timer -t 1 -l 2 -i 1ms -m no
flags "timer --mlockall" yes timer -t 1 -l 2 -i 1ms --mlockall
flags "timer --mlockall=no" no timer -t 1 -l 2 -i 1ms --mlockall=no
flags "timer mlockall=yes" yes timer -t 1 -l 2 -i 1ms mlockall=yes
expect_exit "messaging -Tp: grouped flags" 0 "$AGENT" messaging -Tp -g 1 -f 2 -l 2
expect_grep "messaging -Tp runs threads over pipes" "$T/out" "threaded mode, pipes"

# databases that cannot be used are input errors, named, and untouched
printf '[baseline]\ncpus = 1\n[workload s]\ntype = membw\nsize = 1M\n' >"$T/one.conf"
expect_exit "run: --db in a missing directory exits 2" 2 "$VTBENCH" run "$T/one.conf" --db "$T/no/such/dir/r.db"
expect_grep "run: --db in a missing directory says so" "$T/err" "directory '$T/no/such/dir' does not exist"
expect_exit "run: a non-database --db exits 2" 2 "$VTBENCH" run "$T/one.conf" --db "$T/text.db"
expect_grep "run: a non-database --db is named" "$T/err" "'$T/text.db'"
expect_eq "run: the non-database file is untouched" "$(cat "$T/text.db")" "not a database at all, just text"
expect_exit "plan: unknown format" 2 "$VTBENCH" plan "$SRCDIR/examples/quick.conf" --format yaml
expect_grep "plan: the format error names the choices" "$T/err" "unknown value 'yaml' for --format: expected text or json"

# --xml-dir creates its directory as mkdir -p would; a file in the way is named
printf '[vm]\nvcpus = 1\nmemory = 1G\n[workload t]\ntype = timer\n' >"$T/vm.conf"
expect_exit "plan --xml-dir into a directory that does not exist yet" 0 \
	"$VTBENCH" plan "$T/vm.conf" --host-topology "pack:1 core:2 pu:1" --xml-dir "$T/new/deep/xml"
expect_eq "... which holds the domain XML" "$(ls "$T/new/deep/xml" | grep -c '\.xml$')" "1"
: >"$T/afile"
expect_exit "plan --xml-dir under a file fails" 2 \
	"$VTBENCH" plan "$T/vm.conf" --host-topology "pack:1 core:2 pu:1" --xml-dir "$T/afile/xml"
expect_grep "... naming the directory" "$T/err" "--xml-dir: cannot create directory '$T/afile/xml'"
