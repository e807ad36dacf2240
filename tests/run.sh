#!/bin/sh
# Runs every test: Criterion unit binaries, CLI golden tests and end-to-end
# runner tests against BUILD, the Ansible roles and the real guests once,
# then the unit, CLI and end-to-end tests again against the ASan+UBSan
# build, and the fuzz smoke (the libFuzzer targets built in FUZZBUILD,
# each for $FUZZ_SMOKE seconds, default 30, all at once: scripts/fuzz.sh).
# Usage: tests/run.sh BUILD [ASANBUILD [FUZZBUILD]].  Prints per-suite
# results and the closing line "N passed, N failed, N skipped".  Under
# CI=true a skipped test (missing tool or daemon) counts as failed:
# nothing is skipped silently.  Each suite's line ends with its wall time;
# the slowest suites and the total close the run.
#
# Two lanes run side by side (VTBENCH_TEST_LANES=1: one after the other),
# each a fixed sequence of suites:
#   lane 1: unit, guests, ansible, asan unit, fuzz build, fuzz smoke
#   lane 2: cli, e2e, asan e2e, asan cli
# (lane 1 starts the guests, about 6 minutes under TCG, at once; lane 2
# holds the ASan passes of the CLI and end-to-end suites, about 9.5
# minutes: the Ansible suite and the fuzz build and smoke, two and a half
# minutes with the ASan unit tests, run after the guests to even them:
# "lane N: S s" lines say how even they are), then,
# once both lanes have ended, alone:
#   quiet: tests/quiet/, checks that rest on measured performance
#   (explore-quick's known winner on real guests, compare's verdicts on
#   a hogged and two clean bare-metal campaigns): a lane beside them
#   would take the CPUs their figures need
# On one machine all guest suites share one staging directory (the KVM
# probe runs once).
# Many suites mostly wait (timeouts, sleeps, daemons starting, retries
# with backoff, guests booting), so the other lane's work fills the wait.
# Nothing in one lane reads or kills what the other runs: temporary
# directories and ports are per test, and the process checks name their
# own build's agent.  A lane prints its suites when it ends.
set -u
BUILD=${1:-build}
ASAN=${2:-}
FUZZ=${3:-}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
export SRCDIR
W=$(mktemp -d "${TMPDIR:-/tmp}/vtbrun.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
: >"$W/times"
: >"$W/tally"
run_t0=$(date +%s%N)
# Tools outside the build (validators, the independent checker, the
# browser, scipy) run once per input in this run: the ASan pass replays
# their answers for byte-identical inputs (tests/cli/lib.sh, memo).
VTBENCH_TEST_MEMO="$W/memo"
mkdir -p "$VTBENCH_TEST_MEMO"
export VTBENCH_TEST_MEMO

# elapsed T0: seconds since T0 (date +%s%N), one decimal
elapsed() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

# result NAME PASSED FAILED SKIPPED T0: the suite's line, its time and
# counts kept (appended: the lanes write the same files)
result() {
	_s=$(elapsed "$5")
	printf '%-40s %3d passed, %d failed, %d skipped %7s s\n' "$1" "$2" "$3" "$4" "$_s"
	printf '%s %s\n' "$_s" "$1" >>"$W/times"
	add "$1" "$2" "$3" "$4"
}

add() { # suite passed failed skipped
	printf '%s %d %d %d\n' "$1" "$2" "$3" "$4" >>"$W/tally"
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
# share one staging directory ($GUESTDIR), so the KVM probe runs once.
# Not repeated under ASan (QEMU does the work; the harness paths are the
# same).  VTBENCH_GUEST_LOCK=FILE: the guest tests hold flock(1) on FILE,
# so runs that share a machine (and its libvirt daemon) boot guests one at
# a time; the wait is not counted in any suite's time.
# (not under $W: QEMU, another user, reads the images in it)
GUESTDIR=$(mktemp -d "${TMPDIR:-/tmp}/vtbguest.XXXXXX") || exit 1
chmod 0755 "$GUESTDIR"
trap 'rm -rf "$W" "$GUESTDIR"' EXIT
run_guests() { # build label dir
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
			if [ "${CI:-}" = true ]; then add "$2" 0 1 0; else add "$2" 0 0 1; fi
			[ -z "${VTBENCH_GUEST_LOCK:-}" ] || exec 9>&-
			return
		fi
	fi
	VTBENCH_GUEST_DIR=$GUESTDIR
	export VTBENCH_GUEST_DIR
	run_scripts "$1" "$2" "$3"
	unset VTBENCH_GUEST_DIR
	[ -n "$started" ] && sh "$SRCDIR/scripts/libvirtd.sh" stop
	[ -z "${VTBENCH_GUEST_LOCK:-}" ] || exec 9>&-
}

asan_env() {
	# a suite may plan a smaller grid under ASan (tests/cli/plan_rules.sh)
	export VTBENCH_TEST_PASS=asan
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
}

lane1() {
	run_unit "$BUILD" unit
	run_guests "$BUILD" guest guest
	# the Ansible roles and playbooks (once: they install their own build)
	run_scripts "$BUILD" ansible ansible
	if [ -n "$ASAN" ]; then
		(asan_env; run_unit "$ASAN" asan)
	fi
	if [ -n "$FUZZ" ] && fuzz_build; then fuzz_smoke; fi
}

# The fuzz variant (clang, ASan+UBSan, libFuzzer coverage) is built at
# the end of lane 1, after the guests (a build beside TCG guests would
# take the CPU their vCPU threads need), and its smoke follows: each
# target for $FUZZ_SMOKE seconds, all at once (scripts/fuzz.sh).
fuzz_build() {
	t0=$(date +%s%N)
	out=$(make -C "$SRCDIR" --no-print-directory fuzz-build FUZZ_BUILD="$FUZZ" 2>&1); rc=$?
	if [ "$rc" -ne 0 ]; then
		printf '%s\n' "$out" | tail -n 30
		result fuzz:build 0 1 0 "$t0"
		return 1
	fi
	result fuzz:build 1 0 0 "$t0"
}

fuzz_smoke() {
	t0=$(date +%s%N)
	out=$(sh "$SRCDIR/scripts/fuzz.sh" "$FUZZ" "${FUZZ_SMOKE:-30}" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -E '^(ok|not ok|#)' | head -n 60
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	result fuzz:smoke "$p" "$f" 0 "$t0"
}

lane2() {
	run_scripts "$BUILD" cli cli
	run_scripts "$BUILD" e2e e2e
	[ -n "$ASAN" ] || return 0
	asan_env
	run_scripts "$ASAN" asan-e2e e2e
	run_scripts "$ASAN" asan-cli cli
}

cd "$SRCDIR" || exit 1
if [ "${VTBENCH_TEST_LANES:-2}" = 1 ]; then
	lane1
	lane2
else
	# each lane's wall time on its last line: the longer one sets the
	# run's, so the two are balanced by moving suites between them
	(lt0=$(date +%s%N); lane1; echo "lane 1: $(elapsed "$lt0") s") >"$W/lane1.out" 2>&1 &
	l1=$!
	(lt0=$(date +%s%N); lane2; echo "lane 2: $(elapsed "$lt0") s") >"$W/lane2.out" 2>&1 &
	l2=$!
	wait "$l1"
	cat "$W/lane1.out"
	wait "$l2"
	cat "$W/lane2.out"
fi
qt0=$(date +%s%N)
run_guests "$BUILD" quiet quiet
echo "quiet: $(elapsed "$qt0") s"

# the counts; under CI=true a skip fails its suite
eval "$(awk -v ci="${CI:-}" '
	{ p += $2; f += $3; k += $4
	  if ($3 > 0) fl = fl " " $1
	  if ($4 > 0 && ci == "true") { f += $4; fl = fl " " $1 "(skips-under-CI)" } }
	END { printf "passed=%d failed=%d skipped=%d failures=\"%s\"\n", p, f, k, fl }' "$W/tally")"
echo "slowest suites (wall s):"
sort -rn "$W/times" | head -n 8 | awk '{ printf "  %7s  %s\n", $1, $2 }'
echo "total wall time: $(elapsed "$run_t0") s"
[ -n "$failures" ] && echo "failed suites:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
