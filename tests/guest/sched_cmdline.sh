# A sched profile's cmdline reaches a real guest: it follows the harness's
# own kernel parameters in /proc/cmdline (the agent's header), and the
# profile's settings do not keep the configuration from running.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need virsh || exit 0
. "$SRCDIR/tests/guest/lib.sh"
if [ -z "$kernel" ]; then notok "fetched guest kernel" "run scripts/fetch-kernel.sh"; exit 0; fi

cat >"$T/m.conf" <<CONF
[global]
reps = 1
timeout = 2m
kernel = $kernel
[baseline]
enabled = no
[vm]
vcpus = 2
topology = cores
memory = 512M
[sched relax]
cmdline = relax_domain_level=1
[workload stream]
type = membw
size = 4M
iterations = 2
CONF

expect_exit "plan: a profile with settings is runnable" 0 "$VTBENCH" plan "$T/m.conf"
if grep -q 'not runnable' "$T/out"; then notok "nothing is left out" "$(cat "$T/out")"; else ok "nothing is left out"; fi
expect_exit "run exits 0" 0 "$VTBENCH" run "$T/m.conf" --db "$T/r.db"
got=$(sql "$T/r.db" "select status from boot")
expect_eq "the boot is ok" "$got" "ok"
got=$(sql "$T/r.db" "select json_extract(header, '\$.cmdline') like '%vtbench.nonce=' || nonce || ' relax_domain_level=1%' from boot")
expect_eq "the guest booted with the profile's cmdline after the nonce" "$got" "1"
expect_eq "no domain of ours remains" "$(ours)" "0"
