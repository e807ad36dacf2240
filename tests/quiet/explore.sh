# vtbench explore on real guests: examples/explore-quick.conf as users run
# it (only its db line swapped for the fetched guest kernel).  Two 2-vCPU
# guests pinned to the same two pCPUs, sched profiles `default` and
# `isolate` (isolcpus=1: every task on vCPU 0), one bare-metal baseline.
# The answer is known: `default` wins on the request latency's p99 and
# `isolate` is dropped with its evidence (its p99 is several times
# default's).  Then recommend shows the winner's margin, what its guests
# built and why the other lost.  About 3 rounds of 3 boots under TCG (2
# minutes; a race that decides nothing is run once more).
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need virsh || exit 0
. "$SRCDIR/tests/guest/lib.sh"
if [ -z "$kernel" ]; then notok "fetched guest kernel" "run scripts/fetch-kernel.sh"; exit 0; fi

# (a boot takes 15-25 s here: a TCG guest that hangs, seen once in a
# few hundred boots on CI machines, costs a minute instead of the
# example's three)
sed -e "s|^\[global\]|[global]\nkernel = $kernel|" -e "s|^timeout .*|timeout = 1m|" \
	"$SRCDIR/examples/explore-quick.conf" >"$T/q.conf"
expect_eq "the example is run as shipped (its race settings unchanged)" \
	"$(grep -E '^(objective|min_rounds|max_rounds|budget_time|sched) ' "$T/q.conf" | tr -s ' ')" \
	"sched = default, isolate
objective = wakeup/request_p99
min_rounds = 3
max_rounds = 6
budget_time = 9m ; no boot started that would end past 9 minutes"
default="vm vcpus=2 topology=cores pinning=strict memory=1G sched=default"
isolate="vm vcpus=2 topology=cores pinning=strict memory=1G sched=isolate"

# explore_once NAME: the race; exit 0, or exit 1 when the only boots not
# ok timed out (a hung TCG guest is the machine's, not the harness's: the
# race goes on without it, as it does for users, and says so)
explore_once() {
	"$VTBENCH" explore "$T/q.conf" --db "$T/q.db" -q >"$T/out" 2>"$T/err"; _rc=$?
	_bad=$(sql "$T/q.db" "select count(*) from boot where status not in ('ok', 'timeout')")
	_hung=$(sql "$T/q.db" "select count(*) from boot where status = 'timeout'")
	if [ "$_rc" -eq 0 ] || { [ "$_rc" -eq 1 ] && [ "$_bad" = 0 ] && [ "$_hung" -gt 0 ]; }; then
		[ "$_hung" = 0 ] || echo "# $_hung boot(s) timed out: the race went on without them"
		ok "$1"
	else
		notok "$1" "exit $_rc ($_bad boots failed, $_hung timed out)" \
			"stdout: $(head -c 600 "$T/out")" "stderr: $(head -c 600 "$T/err")"
	fi
}
explore_once "explore: the two guests raced"
# A busy machine spreads the guests' figures and the race rightly decides
# nothing (stop 'rounds'): one retry, said, before the checks below judge
stop=$(sql "$T/q.db" "select stop from race")
if [ "$stop" != one ]; then
	echo "# the race stopped '$stop' after $(sql "$T/q.db" "select rounds from race") rounds: once more"
	rm -f "$T/q.db"
	explore_once "explore: the two guests raced again"
fi
rounds=$(sql "$T/q.db" "select rounds from race")
expect_eq "... every boot ok (or hung and said): a baseline and both guests per round" \
	"$(sql "$T/q.db" "select kind || ':' || count(*) from boot where status in ('ok', 'timeout') group by kind order by kind")" \
	"baseline:$rounds
vm:$((2 * rounds))"
expect_eq "... at most one boot hung" "$(sql "$T/q.db" "select count(*) <= 1 from boot where status = 'timeout'")" "1"
expect_eq "... the known answer: one survivor, 'default', named the winner" \
	"$(sql "$T/q.db" "select r.stop, json_array_length(r.winners), c.label
		from race r join config c on c.key = json_extract(r.winners, '\$[0]')")" \
	"one|1|$default"
expect_eq "... 'isolate' dropped as worse on the objective, against 'default', from round 3" \
	"$(sql "$T/q.db" "select e.reason, e.metric, e.round >= 3 and e.round = r.rounds, c.label, b.label
		from race_elimination e join race r using (campaign_id)
		join config c on c.key = e.config_key join config b on b.key = e.best_key")" \
	"worse|wakeup/request_p99|1|$isolate|$default"
expect_eq "... its evidence: a change above the threshold whose whole interval is above 0, q < .05" \
	"$(sql "$T/q.db" "select json_extract(evidence, '\$.change_pct') > 5,
		json_extract(evidence, '\$.ci_low_pct') > 0, json_extract(evidence, '\$.q') < 0.05
		from race_elimination")" "1|1|1"

# (wide enough that no line folds: the checks read whole lines)
expect_exit "recommend on it" 0 env COLUMNS=1000 "$VTBENCH" recommend --db "$T/q.db"
expect_eq "... names the winner" "$(sed -n 1p "$T/out")" "winner: $default"
expect_grep "... the winner's margin over its bare-metal baseline" "$T/out" "against its bare-metal baseline 'baseline cpus=2"
expect_eq "... and over the runner-up: worse" \
	"$(grep -c "the runner-up '$isolate' against it: +[0-9.]*% \\[+[0-9.]*%, +[0-9.]*%\\] p [0-9.e-]*: worse\$" "$T/out")" "1"
expect_grep "... the sched-domain tree its guests built" "$T/out" "tree "
expect_grep "... its vCPU drift" "$T/out" "vCPU drift: off the planned pCPUs"
expect_grep "... why the other lost: its round and evidence" "$T/out" \
	"round $rounds  '$isolate': wakeup/request_p99 +"
expect_grep "... its sched profile as applied in the guest" "$T/out" \
	"sched profile isolate, as applied in all $(sql "$T/q.db" "select count(*) from boot b join config c on c.id = b.config_id
		where b.status = 'ok' and json_extract(c.params, '\$.sched') = 'isolate'") boots: cmdline isolcpus=1 (present); no knobs"
expect_eq "... its sched domains beside the winner's: vCPU 1 has none" \
	"$(grep -cE '^      its: +(cpu[0-9,-]+: [A-Za-z0-9_ ?]+; )*cpu(1|0-1): none' "$T/out") $(
		grep -cE "^      the winner's: cpu0-1: MC " "$T/out")" "1 1"
# issue 28: why, in the scheduler's counters: isolate has no level at
# all (the winner balances at MC, it never) and leaves vCPU 1 idle; which
# of its differences are the four largest depends on the host's load
if grep -qE "scheduler counters, cell wakeup, farthest from the winner's: .*(the winner balanced at MC [0-9.]+ times a second, this setup never|this setup's least busy vCPU ran 0\.[0-9]+% of the time)" "$T/out"; then
	ok "... and why in the scheduler's counters: no balancing, an idle vCPU"
else
	notok "... and why in the scheduler's counters: no balancing, an idle vCPU" \
		"$(grep -A2 'scheduler counters' "$T/out" | head -n 3)"
fi
# the host's side on a quiet machine: vCPU threads pinned apart (no
# overcommit) hardly wait (the harness and QEMU's other threads share
# the two CPUs: a few percent); tests/guest/sidebyside.sh has two VMs on
# one pCPU waiting half the time
rd=$(sql "$T/q.db" "select round(avg(s.value), 1) from sample s join result r on r.id = s.result_id join boot b on b.id = r.boot_id join config c on c.id = b.config_id where s.metric = 'evidence/vcpu_run_delay_pct' and json_extract(c.params, '\$.sched') = 'default'")
if awk -v v="$rd" 'BEGIN { exit !(v != "" && v + 0 < 15) }'; then
	ok "... the winner's vCPUs, pinned apart, waited $rd% of the time on the host"
else
	notok "... the winner's vCPUs, pinned apart, waited under 15% of the time on the host" "got '$rd'"
fi
if [ "$(sql "$T/q.db" "select count(*) from boot where accelerator = 'tcg'")" -gt 0 ]; then
	expect_grep "... and, under TCG, compare's TCG note" "$T/out" \
		"note: guests ran under TCG (software emulation): these ratios measure QEMU's emulator"
fi
expect_eq "no domain of ours is left" "$(ours)" "0"
