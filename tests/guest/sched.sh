# Sched profiles end to end in real guests: `relax_domain_level=0` on the
# kernel command line and debugfs knobs (a top-level one and a per-level
# one), applied by the agent, read back, and visible in the stored
# per-level flags (the MC level loses SD_BALANCE_NEWIDLE against the
# default profile's guest); a knob the guest kernel lacks fails that boot
# with a message naming it, and the other boots are unaffected; a second
# profile needing a knob that kernel lacks is not booted at all (its
# kernel's probe, stored by the first boot, says so: issue 19), the
# configuration is stored not runnable with why, and run exits 1.  The
# same for a sysctl the kernel lacks (bogus3): the probe lists the
# sysctls of /proc/sys/kernel and vm, so no boot is spent on it either.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need virsh || exit 0
. "$SRCDIR/tests/guest/lib.sh"
if [ -z "$kernel" ]; then notok "fetched guest kernel" "run scripts/fetch-kernel.sh"; exit 0; fi

cat >"$T/m.conf" <<CONF
[global]
reps = 1
timeout = 3m
kernel = $kernel
[baseline]
enabled = no
[vm]
vcpus = 2
topology = cores
pinning = strict
memory = 512M
sched = bogus, default, isolate, relax, bogus2, bogus3
[sched default]
[sched isolate]
cmdline = isolcpus=1
[sched relax]
cmdline = relax_domain_level=0
debugfs.migration_cost_ns = 100000
debugfs.domains/MC/imbalance_pct = 125
[sched bogus]
debugfs.no_such_knob_ns = 1
[sched bogus2]
debugfs.no_such_knob_ns = 2
[sched bogus3]
sysctl.kernel.no_such_sysctl = 1
[workload wakeup]
type = wakeup
runtime = 200ms
[workload msg]
type = messaging
groups = 1
CONF

expect_exit "plan accepts the five profiles" 0 "$VTBENCH" plan "$T/m.conf"
expect_exit "run exits 1 (one boot failed, two configurations not run)" 1 "$VTBENCH" run "$T/m.conf" --db "$T/r.db"
expect_grep "run says which configuration it did not run, and why" "$T/err" "lacks debugfs knob no_such_knob_ns"
expect_grep "... and the sysctl" "$T/err" "lacks sysctl kernel.no_such_sysctl (sysctl.kernel.no_such_sysctl)"
expect_grep "... and counts them" "$T/out" "2 configurations not run (its kernel lacks a knob of its sched profile)"
q() { sql "$T/r.db" "$1"; }
pq() { # profile, expression over boot b, guest_view g
	q "select $2 from boot b join config c on c.id = b.config_id left join guest_view g on g.boot_id = b.id where json_extract(c.params, '\$.sched') = '$1'"
}
expect_eq "default and relax boots are ok" "$(pq default b.status) $(pq relax b.status)" "ok ok"
expect_eq "the relax guest's /proc/cmdline carries relax_domain_level=0" \
	"$(pq relax "instr(json_extract(b.header, '\$.cmdline'), 'relax_domain_level=0') > 0")" "1"
expect_eq "every setting of the relax profile read back" \
	"$(pq relax "json_extract(b.sched, '\$.ok') || ' ' || (select count(*) from json_each(b.sched, '\$.settings') where json_extract(value, '\$.ok') = 1)")" "1 3"
expect_eq "the per-level knob is in the stored view (imbalance_pct of MC on both CPUs)" \
	"$(pq relax "(select count(*) from json_each(g.view, '\$.domains') d, json_each(d.value, '\$.levels') l where json_extract(l.value, '\$.name') = 'MC' and json_extract(l.value, '\$.knobs.imbalance_pct') = '125')")" "2"
expect_eq "default: the MC level balances on newly idle CPUs" \
	"$(pq default "instr(json_extract(g.view, '\$.domains[0].levels[0].flags'), 'SD_BALANCE_NEWIDLE') > 0")" "1"
expect_eq "relax: the MC level does not (the flags show the profile's effect)" \
	"$(pq relax "instr(json_extract(g.view, '\$.domains[0].levels[0].flags'), 'SD_BALANCE_NEWIDLE') > 0")" "0"
expect_eq "the normalised trees of default, relax and isolate differ" \
	"$(q "select count(distinct digest) from guest_view")" "3"
# issue 28: each cell's scheduler counters, guest and host
ev() { # profile, expression over the msg cell's evidence e
	pq "$1" "(select $2 from result r join cell ce on ce.id = r.cell_id join evidence e on e.result_id = r.id where r.boot_id = b.id and ce.name = 'msg')"
}
expect_eq "default: messaging balanced at MC (attempts over the cell > 0)" \
	"$(ev default "(select sum(json_extract(l.value, '\$.lb.busy.count') + json_extract(l.value, '\$.lb.idle.count') + json_extract(l.value, '\$.lb.newidle.count')) from json_each(e.guest, '\$.levels') l where json_extract(l.value, '\$.level') = 'MC') > 0")" "1"
expect_eq "isolate: isolcpus=1 leaves no level to balance at" \
	"$(ev isolate "json_array_length(e.guest, '\$.levels') || ' ' || (json_extract(e.guest, '\$.version') >= 15)")" "0 1"
expect_eq "the host read both vCPU threads over the cell" \
	"$(ev default "(select count(*) from json_each(e.host, '\$.vcpus') v where json_type(v.value, '\$.wait_ns') = 'integer' and json_extract(v.value, '\$.run_ns') > 0)")" "2"
expect_eq "... and isolate's vCPU 1 ran far less than vCPU 0" \
	"$(ev isolate "json_extract(e.host, '\$.vcpus[1].run_ns') * 10 < json_extract(e.host, '\$.vcpus[0].run_ns')")" "1"
expect_eq "the rates are samples of the cell (evidence/...)" \
	"$(pq default "(select count(*) from sample s join result r on r.id = s.result_id join cell ce on ce.id = r.cell_id where r.boot_id = b.id and ce.name = 'msg' and s.metric in ('evidence/mc_lb_per_s', 'evidence/wake_remote_pct', 'evidence/vcpu_run_delay_pct'))")" "3"
# against the default profile's guest (the first, bogus, never ran a cell)
expect_exit "compare against sched=default" 0 "$VTBENCH" compare --db "$T/r.db" \
	--baseline '*sched=default' --fail-on none
expect_grep "... says the largest differences in words" "$T/out" "scheduler evidence, the largest differences"
expect_exit "compare --metric 'evidence/*': evidence rows are never gated" 0 \
	"$VTBENCH" compare --db "$T/r.db" --baseline '*sched=default' --metric 'evidence/*'
expect_eq "bogus: the boot failed" "$(pq bogus b.status)" "failed"
got=$(pq bogus b.error)
case "$got" in
*no_such_knob_ns*) ok "bogus: the error names the missing knob" ;;
*) notok "bogus: the error names the missing knob" "got '$got'" ;;
esac
expect_eq "bogus: its cells were not run" \
	"$(pq bogus "(select count(*) from result r where r.boot_id = b.id and r.status = 'ok')")" "0"
# everything else is stored: a resume boots nothing, and still exits 1
# for the configuration its kernel cannot run
expect_exit "run --resume exits 1 for the configuration not run alone" 1 \
	"$VTBENCH" run "$T/m.conf" --db "$T/r.db" --resume
expect_grep "... and boots nothing" "$T/out" ": 0 boots run"
expect_eq "bogus2: never booted" "$(pq bogus2 "count(b.id)")" "0"
got=$(q "select runnable || ' ' || coalesce(why_not, '') from config where json_extract(params, '\$.sched') = 'bogus2'")
case "$got" in
"0 kernel "*"lacks debugfs knob no_such_knob_ns"*) ok "bogus2: stored not runnable, naming the kernel and the knob" ;;
*) notok "bogus2: stored not runnable, naming the kernel and the knob" "got '$got'" ;;
esac
expect_eq "bogus3: never booted" "$(pq bogus3 "count(b.id)")" "0"
got=$(q "select runnable || ' ' || coalesce(why_not, '') from config where json_extract(params, '\$.sched') = 'bogus3'")
case "$got" in
"0 kernel "*"lacks sysctl kernel.no_such_sysctl (sysctl.kernel.no_such_sysctl)"*) ok "bogus3: stored not runnable, naming the kernel and the sysctl" ;;
*) notok "bogus3: stored not runnable, naming the kernel and the sysctl" "got '$got'" ;;
esac
expect_eq "the stored probe lists the guest's sysctls (kernel and vm)" \
	"$(pq default "(select count(*) from json_each(b.probe, '\$.sysctls.kernel') where value = 'sched_schedstats') || ' ' || (select count(*) from json_each(b.probe, '\$.sysctls.vm') where value = 'swappiness')")" "1 1"
# plan --db says the same before a run, per configuration
expect_exit "plan --db after the run" 0 "$VTBENCH" plan "$T/m.conf" --db "$T/r.db"
expect_grep "... bogus3 is not runnable, naming the sysctl" "$T/out" "lacks sysctl kernel.no_such_sysctl (sysctl.kernel.no_such_sysctl)"
n=$(grep -c "^  knobs checked against the probe of boot " "$T/out")
expect_eq "... relax's knobs and sysctls checked against a stored probe" "$n" "1"
expect_eq "no domain of ours remains" "$(ours)" "0"
