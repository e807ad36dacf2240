#!/bin/sh
# Statistics against scipy: tests/tools/stats_scipy.py computes the row
# statistic of each class (change, t interval, p, degrees of freedom; for
# latencies scipy's own Welch test on the logs), BH q-values, percentiles
# and summaries on fixed data sets with Debian's python3-scipy, in this
# run; build/tests/tools/statsref recomputes each with harness/compare/stats.c and
# prints one ok/not ok line per case (match to 1e-6).  Without scipy the
# test is skipped, and fails under CI=true.
. "$(dirname "$0")/lib.sh"

REF=$(dirname "$VTBENCH")/tests/tools/statsref
# Debian's python3-scipy lives in /usr/bin/python3's dist-packages; a
# python3 earlier in PATH (pyenv, a venv) may lack it.
PY=""
for p in ${PYTHON:-} /usr/bin/python3 python3; do
	if memo "$p" -c 'import scipy.stats, numpy' >/dev/null 2>&1; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
	if [ "${CI:-}" = true ]; then notok "prerequisite python3-scipy" "no python3 with scipy and numpy"
	else skip "stats against scipy" "python3-scipy missing"; fi
	exit 0
fi
if [ ! -x "$REF" ]; then
	notok "statsref built" "$REF is missing: make tests"
	exit 0
fi
# the reference values do not depend on the build: computed once per run
if ! memo "$PY" "$SRCDIR/tests/tools/stats_scipy.py" >"$T/ref.json" 2>"$T/err"; then
	notok "scipy reference values" "$(cat "$T/err")"
	exit 0
fi
"$REF" "$T/ref.json"
rc=$?
[ "$rc" -le 1 ] || notok "statsref read the reference document" "exit $rc"
exit 0
