#!/bin/sh
# Runs every test: Criterion unit binaries, CLI golden tests and end-to-end
# runner tests against BUILD, then the unit and CLI tests again against the
# ASan+UBSan build, then the fuzz smoke (each libFuzzer target of FUZZBUILD
# for $FUZZ_SMOKE seconds, default 30, all at once: scripts/fuzz.sh).
# Usage: tests/run.sh BUILD [ASANBUILD [FUZZBUILD]].
# Prints per-suite results and the closing line
# "N passed, N failed, N skipped".  Under CI=true a skipped test (missing
# tool or daemon) counts as failed: nothing is skipped silently.
set -u
BUILD=${1:-build}
ASAN=${2:-}
FUZZ=${3:-}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
export SRCDIR
passed=0 failed=0 skipped=0
failures=""

add() { # suite passed failed skipped
	passed=$((passed + $2)); failed=$((failed + $3)); skipped=$((skipped + $4))
	[ "$3" -gt 0 ] && failures="$failures $1"
	if [ "$4" -gt 0 ] && [ "${CI:-}" = true ]; then
		failed=$((failed + $4)); failures="$failures $1(skips-under-CI)"
	fi
	return 0
}

run_unit() { # build label
	for t in "$1"/tests/test_*; do
		[ -x "$t" ] || continue
		name="$2:$(basename "$t")"
		out=$("$t" --jobs 2 2>&1); rc=$?
		syn=$(printf '%s\n' "$out" | grep 'Synthesis:' | tail -n 1)
		p=$(printf '%s' "$syn" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
		f=$(printf '%s' "$syn" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
		c=$(printf '%s' "$syn" | sed -n 's/.*Crashing: \([0-9]*\).*/\1/p')
		p=${p:-0}; f=${f:-0}; c=${c:-0}
		f=$((f + c))
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
		if [ "$f" -gt 0 ]; then printf '%s\n' "$out" | grep -v '^\[----\]' | tail -n 40; fi
		printf '%-40s %3d passed, %d failed\n' "$name" "$p" "$f"
		add "$name" "$p" "$f" 0
	done
}

run_scripts() { # build label dir
	for s in "$SRCDIR"/tests/"$3"/*.sh; do
		[ -f "$s" ] || continue
		case "$(basename "$s")" in lib.sh) continue ;; esac
		name="$2:$3/$(basename "$s" .sh)"
		out=$(VTBENCH="$1/vtbench" AGENT="$1/vtbench-agent" VTBENCH_AGENT="$1/vtbench-agent" \
			sh "$s" 2>&1); rc=$?
		p=$(printf '%s\n' "$out" | grep -c '^ok ')
		f=$(printf '%s\n' "$out" | grep -c '^not ok ')
		k=$(printf '%s\n' "$out" | grep -c '^skip ')
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
		if [ "$f" -gt 0 ] || [ "$k" -gt 0 ]; then
			printf '%s\n' "$out" | grep -E '^(not ok|skip|#)' | head -n 60
		fi
		printf '%-40s %3d passed, %d failed, %d skipped\n' "$name" "$p" "$f" "$k"
		add "$name" "$p" "$f" "$k"
	done
}

# Real guests need a libvirt daemon: start one where none answers (no
# systemd here; scripts/libvirtd.sh) and stop it afterwards, by pid.  They
# share one staging directory, so the KVM probe runs once.  Not repeated
# under ASan (QEMU does the work; the harness paths are the same).
run_guests() { # build
	started=""
	if ! virsh -c qemu:///system version >/dev/null 2>&1; then
		if [ "$(id -u)" = 0 ] && sh "$SRCDIR/scripts/libvirtd.sh" start; then
			started=yes
		else
			echo "guest tests: no libvirt daemon and none could be started"
			if [ "${CI:-}" = true ]; then add guests 0 1 0; else add guests 0 0 1; fi
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
if [ -n "$FUZZ" ]; then
	start=$(date +%s)
	out=$(sh "$SRCDIR/scripts/fuzz.sh" "$FUZZ" "${FUZZ_SMOKE:-30}" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -E '^(ok|not ok|#)' | head -n 60
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	echo "fuzz smoke: $(($(date +%s) - start)) s wall"
	printf '%-40s %3d passed, %d failed\n' "fuzz:smoke" "$p" "$f"
	add fuzz "$p" "$f" 0
fi
[ -n "$failures" ] && echo "failed suites:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
