# Shared helpers for CLI and end-to-end tests (sourced).  Each check prints
# "ok - NAME" or "not ok - NAME" (with details on "# " lines); tests/run.sh
# counts them.  Needs $VTBENCH and $AGENT (set by tests/run.sh).
set -u
: "${VTBENCH:=build/vtbench}" "${AGENT:=build/vtbench-agent}"
: "${SRCDIR:=$(pwd)}"
# absolute, so a test may cd anywhere (tests/run.sh passes build/...)
abs_path() { case $1 in /*) echo "$1" ;; */*) echo "$(pwd)/$1" ;; *) echo "$1" ;; esac; }
VTBENCH=$(abs_path "$VTBENCH")
AGENT=$(abs_path "$AGENT")
[ -z "${VTBENCH_AGENT:-}" ] || VTBENCH_AGENT=$(abs_path "$VTBENCH_AGENT")
T=$(mktemp -d "${TMPDIR:-/tmp}/vtbtest.XXXXXX")
trap 'rm -rf "$T"' EXIT

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/# /'; done; }
skip() { echo "skip - $1 ($2)"; }

# expect_exit NAME CODE CMD...: runs CMD, output in $T/out and $T/err
expect_exit() {
	_name=$1 _code=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"; _rc=$?
	if [ "$_rc" -eq "$_code" ]; then ok "$_name"; return 0; fi
	notok "$_name" "exit $_rc, expected $_code: $*" "stdout: $(head -c 600 "$T/out")" \
		"stderr: $(head -c 600 "$T/err")"
	return 1
}

# expect_grep NAME FILE PATTERN (fixed string)
expect_grep() {
	if grep -qF -- "$3" "$2"; then ok "$1"; return 0; fi
	notok "$1" "'$3' not in $2:" "$(head -c 800 "$2")"
	return 1
}

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; return 0; fi
	notok "$1" "got '$2'" "want '$3'"
	return 1
}

need() { # tool: under CI=true missing tools fail, else skip
	command -v "$1" >/dev/null 2>&1 && return 0
	if [ "${CI:-}" = true ]; then notok "prerequisite $1" "$1 is missing"; else skip "$1" "missing"; fi
	return 1
}

sql() { sqlite3 -batch -noheader "$@"; }

# memo CMD ARG...: runs CMD, for tools that are not part of the build under
# test (validators, the independent checker, browsers, scipy).  When
# tests/run.sh sets VTBENCH_TEST_MEMO (a directory of its own) and the
# same command already ran on the same inputs in this test run (the ASan
# pass gets byte-identical files from the build under ASan), its stdout,
# stderr and exit status are replayed: running it again checks nothing
# new.  The key is each argument's content when it names a file (paths
# differ between passes), else the argument itself.
memo() {
	[ -n "${VTBENCH_TEST_MEMO:-}" ] && [ -d "$VTBENCH_TEST_MEMO" ] || { "$@"; return; }
	_mk=$(for _ma in "$@"; do
		if [ -f "$_ma" ]; then printf 'file:'; sha256sum <"$_ma" | cut -d' ' -f1; else printf 'arg:%s\n' "$_ma"; fi
	done | sha256sum | cut -c1-40)
	_md="$VTBENCH_TEST_MEMO/$_mk"
	if [ -f "$_md/rc" ]; then
		cat "$_md/out"
		cat "$_md/err" >&2
		return "$(cat "$_md/rc")"
	fi
	mkdir -p "$_md.tmp.$$"
	"$@" >"$_md.tmp.$$/out" 2>"$_md.tmp.$$/err"
	_mr=$?
	echo "$_mr" >"$_md.tmp.$$/rc"
	cat "$_md.tmp.$$/out"
	cat "$_md.tmp.$$/err" >&2
	mv -T "$_md.tmp.$$" "$_md" 2>/dev/null || rm -rf "$_md.tmp.$$"
	return "$_mr"
}

# spin_conf FILE: a bare-metal matrix of one boot of the debug workload's
# spin (a fixed amount of CPU work, timed; some 70 ms) on one CPU, the
# first this shell may run on, which it sets in $cpu
spin_conf() {
	cpu=$(taskset -cp $$ | sed 's/.*: //; s/[-,].*//')
	cat >"$1" <<CONF
[global]
reps = 1
timeout = 60s
[baseline]
cpus = 1
cpuset = $cpu
[workload spin]
type = debug
mode = spin
work = 15000000
CONF
}

# receiver_start ARG...: (re)starts the test HTTP receiver
# (tests/tools/http_receiver.py ARG..., whose port file is $T/port) on
# $RECV_PORT or a free port, stopping the one before; sets $RECV_PID and
# $PORT.  The caller's EXIT trap stops the last one.
receiver_start() {
	[ -n "${RECV_PID:-}" ] && kill "$RECV_PID" 2>/dev/null && wait "$RECV_PID" 2>/dev/null
	rm -f "$T/port"
	RECV_PORT=${RECV_PORT:-0} python3 "$SRCDIR/tests/tools/http_receiver.py" "$@" &
	RECV_PID=$!
	# until it says its port or dies (a loaded machine can take seconds
	# to start python; the bound only stops a hang)
	_i=0
	while [ ! -s "$T/port" ] && kill -0 "$RECV_PID" 2>/dev/null && [ $_i -lt 1200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	PORT=$(cat "$T/port")
}

# lines FILE: its line count, 0 when it does not exist
lines() { if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }
