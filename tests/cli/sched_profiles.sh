# [sched NAME] profiles: malformed keys are input errors (exit 2) naming
# file:line with a suggestion; a valid profile is planned runnable and its
# settings reach nothing on the host (plan only).
. "$SRCDIR/tests/cli/lib.sh"

conf() { # NAME LINES...: a matrix with one VM configuration and profile [sched p]
	_f="$T/$1.conf"; shift
	printf '[baseline]\nenabled = no\n[vm]\nvcpus = 2\nsched = p\n[sched p]\n' >"$_f"
	for l in "$@"; do printf '%s\n' "$l" >>"$_f"; done
	printf '[workload s]\ntype = c2c\n' >>"$_f"
}

conf ro 'debugfs.domains/MC/imbalance_pct = 110' 'debugfs.domains/MC/flags = 0'
expect_exit "a read-only domain file is an input error" 2 "$VTBENCH" plan "$T/ro.conf"
expect_grep "read-only names file:line" "$T/err" "$T/ro.conf:8: 'debugfs.domains/MC/flags' in [sched p]: 'flags' is read-only"

conf level 'debugfs.domains/SMTT/busy_factor = 8'
expect_exit "an unknown level is an input error" 2 "$VTBENCH" plan "$T/level.conf"
expect_grep "unknown level names file:line and suggests" "$T/err" "$T/level.conf:7: unknown sched-domain level 'SMTT' in 'debugfs.domains/SMTT/busy_factor' (did you mean 'SMT'?)"

conf knob 'debugfs.domains/cpu0/domain0/busy_factr = 8'
expect_exit "an unknown per-domain knob is an input error" 2 "$VTBENCH" plan "$T/knob.conf"
expect_grep "unknown knob suggests" "$T/err" "$T/knob.conf:7: unknown per-domain knob 'busy_factr' in 'debugfs.domains/cpu0/domain0/busy_factr' (did you mean 'busy_factor'?)"

conf comp 'debugfs.sched-x = 1'
expect_exit "a bad path component is an input error" 2 "$VTBENCH" plan "$T/comp.conf"
expect_grep "bad path component is named" "$T/err" "$T/comp.conf:7: bad key 'debugfs.sched-x' in [sched p]: path component 'sched-x' must be letters, digits and '_'"

conf empty 'sysctl.kernel.numa_balancing ='
expect_exit "an empty value is an input error" 2 "$VTBENCH" plan "$T/empty.conf"
expect_grep "empty value names file:line" "$T/err" "$T/empty.conf:7: empty value for 'sysctl.kernel.numa_balancing'"

conf part 'cpuset.partition = 1-'
expect_exit "a malformed partition cpulist is an input error" 2 "$VTBENCH" plan "$T/part.conf"
expect_grep "malformed partition names file:line" "$T/err" "$T/part.conf:7: bad CPU list '1-' for 'cpuset.partition'"

conf typo 'sysctrl.kernel.numa_balancing = 0'
expect_exit "an unknown key is an input error" 2 "$VTBENCH" plan "$T/typo.conf"
expect_grep "unknown key suggests" "$T/err" "$T/typo.conf:7: unknown key 'sysctrl.kernel.numa_balancing' in [sched p] (did you mean 'sysctl.'?)"

conf good 'cmdline = relax_domain_level=1' 'sysctl.kernel.numa_balancing = 0' \
	'debugfs.migration_cost_ns = 0' 'debugfs.domains/MC/imbalance_pct = 110' 'cpuset.partition = 1'
expect_exit "a valid profile plans" 0 "$VTBENCH" plan "$T/good.conf" --host-topology "pack:1 core:4 pu:1"
if grep -q "not runnable" "$T/out"; then
	notok "a profile with settings is runnable" "$(cat "$T/out")"
else
	ok "a profile with settings is runnable"
fi
