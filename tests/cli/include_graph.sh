#!/bin/sh
# The include graph (issue 18, docs/architecture.md "What each part may
# include"): no circle between files or between parts, workloads/ and
# common/ include nothing from the harness or reports, only the command
# layer includes harness/cli and reports/.  The checker is first shown to
# catch each fault on a small tree made here.
. "$(dirname "$0")/lib.sh"
need python3 || exit 0
CHK="$SRCDIR/tests/tools/include_graph.py"

# a tree with every fault: plan <-> boot, workloads -> harness, store -> cli
mk() { mkdir -p "$T/bad/$(dirname "$1")" && printf '%s\n' "$2" >"$T/bad/$1"; }
mk harness/plan/plan.h '#include "../boot/boot.h"'
mk harness/boot/boot.h '#include "../plan/plan.h"'
mk harness/store/store.c '#include "../cli/cmd.h"'
mk harness/cli/cmd.h ''
mk workloads/membw.c '#include "../harness/plan/plan.h"'
mk common/util.h '#include "../reports/report.h"'
mk reports/report.h ''
python3 "$CHK" "$T/bad" >"$T/bad.out" 2>&1
expect_grep "the checker finds a circle between files" "$T/bad.out" "not ok - the file include graph has no circle"
expect_grep "the checker finds a circle between parts" "$T/bad.out" "not ok - the part include graph has no circle"
expect_grep "the checker finds workloads/ reaching into the harness" "$T/bad.out" "workloads -> harness/plan"
expect_grep "the checker finds a part below the commands including harness/cli" "$T/bad.out" "not ok - only the command layer includes harness/cli"
expect_grep "the checker finds common/ including reports/" "$T/bad.out" "not ok - only the command layer includes reports/"

rc=0
python3 "$CHK" "$SRCDIR" >"$T/out" 2>&1 || rc=$?
n=$(grep -c '^\(not \)\{0,1\}ok - ' "$T/out")
if [ "$n" -lt 6 ]; then
	notok "the checker ran its 6 checks on the tree" "exit $rc, $n result lines" "$(tail -n 5 "$T/out")"
fi
while IFS= read -r line; do
	case "$line" in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) notok "${line#not ok - }" "$(grep '^#' "$T/out" | head -n 3)" ;;
	esac
done <"$T/out"
python3 "$CHK" "$SRCDIR" --parts | sed 's/^/# /'
