# Guests that go wrong: a job that hangs is destroyed at its timeout and
# the next boot runs; a panicking guest is recorded as failed once, not
# rebooted; SIGTERM mid-boot destroys the guest and stores nothing of it;
# kill -9 of `vtbench run` mid-boot leaves no domain (autodestroy) and
# --resume completes the campaign.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need virsh || exit 0
. "$SRCDIR/tests/guest/lib.sh"

# -- hang: destroyed at the timeout, then the next boot runs (30 s: the
# next guest, about 15 s under TCG, needs room on a busy machine)
cat >"$T/hang.conf" <<CONF
[global]
reps = 1
order = sequential
timeout = 30s
kernel = $kernel
exclude = vm*memory=256M*/ok, vm*memory=320M*/hang
[vm]
vcpus = 1
memory = 256M, 320M
[baseline]
enabled = no
[workload hang]
type = debug
mode = hang
[workload ok]
type = debug
CONF
expect_exit "a campaign with a hanging guest exits 1" 1 "$VTBENCH" run "$T/hang.conf" --db "$T/h.db"
got=$(sql "$T/h.db" "select c.label || ':' || b.status from boot b join config c on c.id = b.config_id order by b.started_ns")
expect_eq "the hanging guest timed out and the next boot ran" "$(echo $got | sed 's/ topology=[^:]*memory=/ memory=/g; s/ sched=default//g')" "vm vcpus=1 memory=256M:timeout vm vcpus=1 memory=320M:ok"
got=$(sql "$T/h.db" "select error like '%did not power off within 30 s%' from boot where status = 'timeout'")
expect_eq "the timeout says so" "$got" "1"
got=$(sql "$T/h.db" "select console_tail like '%Run /init%' from boot where status = 'timeout'")
expect_eq "the timed-out boot keeps the console tail" "$got" "1"
got=$(sql "$T/h.db" "select (ended_ns - started_ns) / 1000000000 between 30 and 55 from boot where status = 'timeout'")
expect_eq "destroyed at its timeout (30 s), not later" "$got" "1"
expect_eq "no domain left after the timeout" "$(ours)" "0"

# -- panic: failed once, never rebooted into a second run of the job
cat >"$T/panic.conf" <<CONF
[global]
reps = 1
timeout = 90s
kernel = $kernel
[baseline]
enabled = no
[vm]
vcpus = 1
memory = 256M
[workload boom]
type = debug
mode = panic
CONF
expect_exit "a panicking guest makes the run exit 1" 1 "$VTBENCH" run "$T/panic.conf" --db "$T/p.db"
got=$(sql "$T/p.db" "select count(*) || ' ' || status from boot")
expect_eq "one boot, failed" "$got" "1 failed"
got=$(sql "$T/p.db" "select error like 'the guest kernel panicked%' from boot")
expect_eq "the error says the kernel panicked" "$got" "1"
got=$(sql "$T/p.db" "select (console_tail like '%Kernel panic%') + (console_tail like '%Run /init%') from boot")
expect_eq "the console tail shows the panic" "$got" "2"
got=$(sql "$T/p.db" "select records from boot")
expect_eq "the job ran once (header, probe, guest view, steal before and the cell record; no second boot)" "$got" "5"
got=$(sql "$T/p.db" "select (ended_ns - started_ns) < 90000000000 from boot")
expect_eq "the panic ended the boot (no reboot loop until the timeout)" "$got" "1"
expect_eq "no domain left after the panic" "$(ours)" "0"

# -- kill -9 mid-boot: autodestroy removes the domain; --resume completes
cat >"$T/kill.conf" <<CONF
[global]
reps = 2
timeout = 2m
kernel = $kernel
[baseline]
enabled = no
[vm]
vcpus = 1
memory = 256M
[workload nap]
type = debug
mode = sleep
seconds = 3s
CONF
# -- a workload that crashes or exits in the guest: an error record from
# /init, which survives it and writes its end record (the harness then
# ends the guest), not a kernel panic
cat >"$T/crash.conf" <<CONF
[global]
reps = 1
timeout = 90s
kernel = $kernel
exclude = vm*memory=256M*/exit, vm*memory=272M*/crash
[baseline]
enabled = no
[vm]
vcpus = 1
memory = 256M, 272M
[workload crash]
type = debug
mode = crash
[workload exit]
type = debug
mode = exit
CONF
expect_exit "guests whose workload crashes make the run exit 1" 1 "$VTBENCH" run "$T/crash.conf" --db "$T/c.db"
got=$(sql "$T/c.db" "select group_concat(error, ' | ') from (select b.error from boot b join config c on c.id = b.config_id order by c.seq)")
case "$got" in
*"killed by signal 6"*"exited with status 3"*) ok "the crash and the exit are reported by /init as errors" ;;
*) notok "the crash and the exit are reported by /init as errors" "got '$got'" ;;
esac
got=$(sql "$T/c.db" "select count(*) from boot where console_tail like '%Kernel panic%' or error like '%panicked%'")
expect_eq "no panic: /init outlived the job in both guests" "$got" "0"
expect_eq "no domain left after the crashes" "$(ours)" "0"

# wait_domain: until a domain of ours exists (60 s at most)
wait_domain() {
	i=0
	while [ "$(ours)" = 0 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(ours)" != 0 ]
}
wait_no_domain() {
	i=0
	while [ "$(ours)" != 0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

# SIGTERM mid-boot: the guest is destroyed, nothing half-stored, exit 143
"$VTBENCH" run "$T/kill.conf" --db "$T/k.db" --quiet >"$T/kout" 2>&1 &
pid=$!
wait_domain || notok "a domain was started" "$(cat "$T/kout")"
sleep 2
kill -TERM $pid
wait $pid
rc=$?
expect_eq "SIGTERM mid-boot exits 143" "$rc" "143"
wait_no_domain
expect_eq "SIGTERM mid-boot leaves no domain" "$(ours)" "0"
got=$(sql "$T/k.db" "select count(*) || ' ' || (select status from campaign) from boot")
expect_eq "no boot stored, campaign interrupted" "$got" "0 interrupted"

# kill -9 mid-boot: autodestroy removes the domain; --resume completes
"$VTBENCH" run "$T/kill.conf" --db "$T/k.db" --resume --quiet >"$T/kout" 2>&1 &
pid=$!
wait_domain || notok "a domain was started" "$(cat "$T/kout")"
sleep 2
kill -9 $pid
wait $pid 2>/dev/null
wait_no_domain
expect_eq "kill -9 mid-boot leaves no domain" "$(ours)" "0"
expect_exit "--resume completes the campaign" 0 "$VTBENCH" run "$T/kill.conf" --db "$T/k.db" --resume --quiet
got=$(sql "$T/k.db" "select count(*) || ' ' || sum(status = 'ok') from boot")
expect_eq "both boots stored, both ok" "$got" "2 2"
got=$(sql "$T/k.db" "select count(*) || ' ' || group_concat(status) from campaign")
expect_eq "one campaign, done" "$got" "1 done"

# -- a long baseline between VM boots: libvirt's keepalive must not drop
# the connection while its event loop does not run (about 30 s here)
cat >"$T/long.conf" <<CONF
[global]
reps = 1
order = sequential
timeout = 2m
kernel = $kernel
exclude = vm*/nap, baseline*/ok
[baseline]
cpus = 1
vm = no
[vm]
vcpus = 1
memory = 256M
[workload nap]
type = debug
mode = sleep
seconds = 40s
[workload ok]
type = debug
CONF
expect_exit "a VM boot after a 40 s baseline works" 0 "$VTBENCH" run "$T/long.conf" --db "$T/l.db" --quiet
got=$(sql "$T/l.db" "select group_concat(kind || ':' || status, ' ') from (select * from boot order by started_ns)")
expect_eq "baseline then VM, both ok" "$got" "baseline:ok vm:ok"
