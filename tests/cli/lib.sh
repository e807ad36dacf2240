# Shared helpers for CLI and end-to-end tests (sourced).  Each check prints
# "ok - NAME" or "not ok - NAME" (with details on "# " lines); tests/run.sh
# counts them.  Needs $VTBENCH and $AGENT (set by tests/run.sh).
set -u
: "${VTBENCH:=build/vtbench}" "${AGENT:=build/vtbench-agent}"
: "${SRCDIR:=$(pwd)}"
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
