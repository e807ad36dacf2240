#!/bin/sh
# Runs every test: Criterion unit binaries, CLI golden tests and end-to-end
# runner tests against BUILD, then the unit and CLI tests again against the
# ASan+UBSan build.  Prints per-suite results and the closing line
# "N passed, N failed, N skipped".  Under CI=true a skipped test (missing
# tool or daemon) counts as failed: nothing is skipped silently.  Each
# suite's line ends with its wall time; the slowest are listed at the end.
set -u
BUILD=${1:-build}
ASAN=${2:-}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
export SRCDIR
passed=0 failed=0 skipped=0
failures=""
W=$(mktemp -d "${TMPDIR:-/tmp}/vtbrun.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
: >"$W/times"
run_t0=$(date +%s%N)

# elapsed T0: seconds since T0 (date +%s%N), one decimal
elapsed() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

# result NAME PASSED FAILED SKIPPED T0: the suite's line, its time kept
result() {
	_s=$(elapsed "$5")
	printf '%-40s %3d passed, %d failed, %d skipped %7s s\n' "$1" "$2" "$3" "$4" "$_s"
	printf '%s %s\n' "$_s" "$1" >>"$W/times"
	add "$1" "$2" "$3" "$4"
}

add() { # suite passed failed skipped
	passed=$((passed + $2)); failed=$((failed + $3)); skipped=$((skipped + $4))
	[ "$3" -gt 0 ] && failures="$failures $1"
	if [ "$4" -gt 0 ] && [ "${CI:-}" = true ]; then
		failed=$((failed + $4)); failures="$failures $1(skips-under-CI)"
	fi
	return 0
}

# Criterion's "Synthesis" line leaves skipped tests out (and counts a
# crash under both Failing and Crashing): the counts come from its TAP
# report instead.  "ok - S::T  # SKIP why" is a skip (cr_skip_test, or
# .disabled); a test the plan line announces but no line reports (the
# runner died) fails, as does a non-zero exit with nothing failed.
run_unit() { # build label
	for t in "$1"/tests/test_*; do
		[ -x "$t" ] || continue
		name="$2:$(basename "$t")"
		tap="$W/$2-$(basename "$t").tap"
		t0=$(date +%s%N)
		out=$("$t" --jobs 2 --tap="$tap" 2>&1); rc=$?
		[ -f "$tap" ] || : >"$tap"
		n=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$tap" | head -n 1)
		k=$(grep -c '^ok - [^ ]*  # SKIP' "$tap")
		p=$(($(grep -c '^ok ' "$tap") - k))
		f=$(grep -c '^not ok ' "$tap")
		[ -n "$n" ] && [ "$((p + f + k))" -lt "$n" ] && f=$((n - p - k))
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
		if [ "$f" -gt 0 ]; then printf '%s\n' "$out" | grep -v '^\[----\]' | tail -n 40; fi
		if [ "$k" -gt 0 ]; then grep '^ok - [^ ]*  # SKIP' "$tap" | sed 's/^ok - /skip - /'; fi
		result "$name" "$p" "$f" "$k" "$t0"
	done
}

run_scripts() { # build label dir
	for s in "$SRCDIR"/tests/"$3"/*.sh; do
		[ -f "$s" ] || continue
		case "$(basename "$s")" in lib.sh) continue ;; esac
		name="$2:$3/$(basename "$s" .sh)"
		t0=$(date +%s%N)
		out=$(VTBENCH="$1/vtbench" AGENT="$1/vtbench-agent" VTBENCH_AGENT="$1/vtbench-agent" \
			sh "$s" 2>&1); rc=$?
		p=$(printf '%s\n' "$out" | grep -c '^ok ')
		f=$(printf '%s\n' "$out" | grep -c '^not ok ')
		k=$(printf '%s\n' "$out" | grep -c '^skip ')
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
		if [ "$f" -gt 0 ] || [ "$k" -gt 0 ]; then
			printf '%s\n' "$out" | grep -E '^(not ok|skip|#)' | head -n 60
		fi
		result "$name" "$p" "$f" "$k" "$t0"
	done
}

# Real guests need a libvirt daemon: start one where none answers (no
# systemd here; scripts/libvirtd.sh) and stop it afterwards, by pid.  They
# share one staging directory, so the KVM probe runs once.  Not repeated
# under ASan (QEMU does the work; the harness paths are the same).
# VTBENCH_GUEST_LOCK=FILE: the guest tests hold flock(1) on FILE, so
# runs that share a machine (and its libvirt daemon) boot guests one at a
# time; the wait is not counted in any suite's time.
run_guests() { # build
	if [ -n "${VTBENCH_GUEST_LOCK:-}" ]; then
		exec 9>>"$VTBENCH_GUEST_LOCK"
		flock 9
	fi
	started=""
	if ! virsh -c qemu:///system version >/dev/null 2>&1; then
		if [ "$(id -u)" = 0 ] && sh "$SRCDIR/scripts/libvirtd.sh" start; then
			started=yes
		else
			echo "guest tests: no libvirt daemon and none could be started"
			if [ "${CI:-}" = true ]; then add guests 0 1 0; else add guests 0 0 1; fi
			[ -z "${VTBENCH_GUEST_LOCK:-}" ] || exec 9>&-
			return
		fi
	fi
	VTBENCH_GUEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/vtbguest.XXXXXX")
	chmod 0755 "$VTBENCH_GUEST_DIR"
	export VTBENCH_GUEST_DIR
	run_scripts "$1" guest guest
	rm -rf "$VTBENCH_GUEST_DIR"
	unset VTBENCH_GUEST_DIR
	[ -n "$started" ] && sh "$SRCDIR/scripts/libvirtd.sh" stop
	[ -z "${VTBENCH_GUEST_LOCK:-}" ] || exec 9>&-
}

cd "$SRCDIR" || exit 1
run_unit "$BUILD" unit
run_scripts "$BUILD" cli cli
run_scripts "$BUILD" e2e e2e
# the Ansible roles and playbooks (once: they install their own build)
run_scripts "$BUILD" ansible ansible
run_guests "$BUILD"
if [ -n "$ASAN" ]; then
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
	run_unit "$ASAN" asan
	run_scripts "$ASAN" asan-cli cli
	run_scripts "$ASAN" asan-e2e e2e
fi
echo "slowest suites (wall s):"
sort -rn "$W/times" | head -n 8 | awk '{ printf "  %7s  %s\n", $1, $2 }'
echo "total wall time: $(elapsed "$run_t0") s"
[ -n "$failures" ] && echo "failed suites:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
