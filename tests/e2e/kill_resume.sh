# Kill test: SIGKILL `vtbench run` at random points (and once while a boot
# is being committed), resume each time; at the end every expected
# (configuration, rep) is stored exactly once and the database is intact.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
# the agent through a link of this test's own: a surviving agent is found
# by that path, never confused with one of another run on the machine
a=${VTBENCH_AGENT:-$AGENT}
case $a in /*) ;; *) a=$PWD/$a ;; esac
ln -s "$a" "$T/vtbench-agent"
VTBENCH_AGENT=$T/vtbench-agent
export VTBENCH_AGENT

cat >"$T/m.conf" <<'CONF'
[global]
reps = 8
[baseline]
cpus = 1, $host_cpus
[workload nap]
type = debug
mode = sleep
seconds = 0.2
[workload stream]
type = membw
size = 1M
iterations = 3
CONF
DB="$T/k.db"
expected=$(( 2 * 8 ))
seed=${KILL_SEED:-$$}
echo "# seed $seed"
i=0
while [ $i -lt 8 ]; do
	i=$((i + 1))
	ms=$(( (seed * (i + 7) * 7919) % 1200 + 300 ))
	before=$(sql "$DB" 'select count(*) from boot' 2>/dev/null || echo 0)
	if [ $i -eq 3 ]; then
		# while a boot is being written: the commit waits 1.5 s before COMMIT
		VTBENCH_TEST_COMMIT_DELAY_MS=1500 "$VTBENCH" run "$T/m.conf" --db "$DB" --resume --quiet >/dev/null 2>&1 &
		ms=1300
	else
		"$VTBENCH" run "$T/m.conf" --db "$DB" --resume --quiet >/dev/null 2>&1 &
	fi
	pid=$!
	sleep "$(echo "$ms" | awk '{ printf "%.3f", $1 / 1000 }')"
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	echo "# kill $i after ${ms} ms: $(sql "$DB" 'select count(*) from boot' 2>&1) boots stored"
	got=$(sql "$DB" "pragma integrity_check" 2>&1)
	expect_eq "kill $i: database intact" "$got" "ok"
	if [ $i -eq 3 ]; then
		# the first boot of that run was killed inside its commit
		expect_eq "kill mid-commit: the boot is not stored, not even in part" \
			"$(sql "$DB" 'select count(*) from boot')" "$before"
		expect_eq "kill mid-commit: no orphan results" \
			"$(sql "$DB" 'select count(*) from result where boot_id not in (select id from boot)')" "0"
	fi
done
expect_exit "final resume completes" 0 "$VTBENCH" run "$T/m.conf" --db "$DB" --resume --quiet
got=$(sql "$DB" "select count(*) from boot")
expect_eq "every (configuration, rep) stored" "$got" "$expected"
got=$(sql "$DB" "select count(*) from (select distinct config_id, rep from boot)")
expect_eq "each stored exactly once" "$got" "$expected"
got=$(sql "$DB" "select count(*) from campaign")
expect_eq "one campaign across every resume" "$got" "1"
got=$(sql "$DB" "select count(*) from boot b join config c on c.id = b.config_id where b.rep between 0 and 7")
expect_eq "reps are 0..7 of the planned configurations" "$got" "$expected"
got=$(sql "$DB" "select count(*) from result where status != 'ok'")
expect_eq "every stored boot is complete" "$got" "0"
got=$(sql "$DB" "pragma integrity_check")
expect_eq "final integrity_check" "$got" "ok"
A="$T/vtbench-agent --job"
pgrep -f -- "$A" >/dev/null && notok "no agent survives its killed harness" "$(pgrep -af -- "$A")" || ok "no agent survives its killed harness"
