# Every workload runs inside a real guest, as the job runner of /init, with
# tiny parameters: each stores its metrics and histograms and the boot is
# ok.  (Whether the numbers are right is what make bench-workloads checks
# on bare metal; here the point is that nothing breaks under PID 1.)
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need virsh || exit 0
. "$SRCDIR/tests/guest/lib.sh"

cat >"$T/w.conf" <<CONF
[global]
reps = 1
timeout = 3m
kernel = $kernel
[baseline]
enabled = no
[vm]
vcpus = 2
topology = cores
memory = 512M
[workload stream]
type = membw
size = 2M
iterations = 2
[workload timer]
type = timer
duration = 1s
[workload hb]
type = messaging
groups = 1
loops = 10
[workload c2c]
type = c2c
time = 1ms
[workload wakeup]
type = wakeup
runtime = 2s
warmup = 500ms
CONF
expect_exit "a guest runs every workload" 0 "$VTBENCH" run "$T/w.conf" --db "$T/w.db" --quiet
got=$(sql "$T/w.db" "select status from boot")
expect_eq "the boot is ok" "$got" "ok"
got=$(sql "$T/w.db" "select group_concat(c.workload || '=' || r.status, ' ') from result r join cell c on c.id = r.cell_id order by c.id")
expect_eq "every cell ok" "$got" "membw=ok timer=ok messaging=ok c2c=ok wakeup=ok"
for m in triad timer_avg timer_max seconds c2c_median wakeup_p99 request_p50 rps; do
	got=$(sql "$T/w.db" "select count(*) from sample where metric = '$m' and value >= 0")
	expect_eq "metric $m stored" "$got" "1"
done
got=$(sql "$T/w.db" "select group_concat(metric, ' ') from (select distinct metric from histogram order by metric)")
expect_eq "latency histograms stored whole" "$got" "request timer_latency wakeup"
got=$(sql "$T/w.db" "select json_array_length(json_extract(info, '\$.matrix.cpus')) from result r join cell c on c.id = r.cell_id where c.workload = 'c2c'")
expect_eq "the c2c matrix covers the guest's 2 vCPUs" "$got" "2"
expect_eq "no domain left" "$(ours)" "0"
