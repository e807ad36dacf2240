# The guest side of issue 6 in a real Debian guest kernel, without the
# harness: the initramfs plus a job cpio (as harness/boot/guest.c appends it)
# boots under QEMU/TCG with 1 socket x 1 core x 2 threads, and the records
# on the second serial port are checked with jq.  Boot A applies a sched
# profile that must read back and show in the guest view; boot B asks for
# a knob the kernel lacks, so its cell is rejected and the job fails.
. "$SRCDIR/tests/cli/lib.sh"
need qemu-system-x86_64 || exit 0
need jq || exit 0
need cpio || exit 0
kernel=$(ls "$SRCDIR"/build/guest/kernel/boot/vmlinuz-* 2>/dev/null | head -n 1)
if [ -z "$kernel" ]; then notok "fetched guest kernel" "run scripts/fetch-kernel.sh"; exit 0; fi
release=${kernel##*/vmlinuz-}
initrd=$(dirname "$AGENT")/guest/initramfs.cpio.gz
if [ ! -f "$initrd" ]; then notok "guest image" "$initrd is missing: run make guest"; exit 0; fi

# boot NAME JOB-JSON EXTRA-CMDLINE: records of the boot as JSON lines in $T/NAME.json
boot() {
	mkdir -p "$T/$1.stage"
	printf '%s\n' "$2" >"$T/$1.stage/job.json"
	(cd "$T/$1.stage" && echo job.json | cpio --quiet -o -H newc -R 0:0) >"$T/$1.cpio"
	cp "$initrd" "$T/$1.img"
	sz=$(stat -c %s "$T/$1.img")
	head -c $(((4 - sz % 4) % 4)) /dev/zero >>"$T/$1.img"
	cat "$T/$1.cpio" >>"$T/$1.img"
	timeout 180 qemu-system-x86_64 -accel tcg -cpu kvm64 -smp 2,sockets=1,cores=1,threads=2 \
		-m 512 -kernel "$kernel" -initrd "$T/$1.img" -append "console=ttyS0 panic=-1 $3" \
		-display none -monitor none -serial "file:$T/$1.console" \
		-serial "file:$T/$1.rec" -no-reboot
	sed -nE 's/^@vtb1 ab12 (\{.*\}) [0-9a-f]{8}\r?$/\1/p' "$T/$1.rec" >"$T/$1.json"
}
q() { jq -r -s "$2" "$T/$1.json" 2>&1; }

boot a '{"schema":1,"nonce":"ab12","view":true,"sched":{"name":"relax","cmdline":"relax_domain_level=1","sysctl":{"kernel.sched_schedstats":"1"},"debugfs":{"migration_cost_ns":"0","domains/SMT/imbalance_pct":"117","domains/cpu0/domain0/busy_factor":"8"}},"cells":[{"key":"k1","workload":"timer","params":{"duration":"100ms"}}]}' \
	relax_domain_level=1
expect_eq "records come in spec order" "$(q a '[.[].type | select(. != "sample" and . != "hist")] | join(" ")')" \
	"header probe sched guest_view steal cell schedstat cell_end steal end"
expect_eq "the cell's scheduler counters: a known schedstat version, both CPUs, no error" \
	"$(q a '[.[] | select(.type == "schedstat")][0] | [(.version >= 15), (.cpus | length), .error, (.seconds > 0)] | @tsv')" \
	"$(printf 'true\t2\t\ttrue')"
expect_eq "the header is the booted kernel" "$(q a '.[0].kernel')" "$release"
expect_eq "the probe finds debugfs, the CFS knobs of 6.1 and its SMT level" \
	"$(q a '.[1] | [.debugfs, (.knobs | index("min_granularity_ns") != null), (.knobs | index("base_slice_ns") == null), .domains_dir, (.levels | join(","))] | @tsv')" \
	"$(printf 'true\ttrue\ttrue\ttrue\tSMT')"
expect_eq "sched/verbose read N and the agent set it" \
	"$(q a '.[1] | [.verbose, .verbose_set] | @tsv')" "$(printf 'N\ttrue')"
expect_eq "the probe sees schedstat version 15, cgroup2 and cpuset" \
	"$(q a '.[1] | [.schedstat_version, .cgroup2, .cpuset_partition] | @tsv')" "$(printf '15\ttrue\ttrue')"
expect_eq "every setting of the profile read back" \
	"$(q a '.[2] | [.ok, (.settings | length), ([.settings[].ok] | all), .cmdline[0].present] | @tsv')" \
	"$(printf 'true\t5\ttrue\ttrue')"
expect_eq "the SMT level's knob was written for both CPUs" \
	"$(q a '[.[2].settings[] | select(.key == "debugfs.domains/SMT/imbalance_pct") | .path] | join(" ")')" \
	"/sys/kernel/debug/sched/domains/cpu0/domain0/imbalance_pct /sys/kernel/debug/sched/domains/cpu1/domain0/imbalance_pct"
expect_eq "the guest view shows the written knobs per domain" \
	"$(q a '.[3].domains | map(.levels[0] | [.name, .knobs.imbalance_pct, .knobs.busy_factor] | join(":")) | join(" ")')" \
	"SMT:117:8 SMT:117:16"
expect_eq "sysfs says the two vCPUs are SMT siblings" \
	"$(q a '.[3].cpus | map(.thread_siblings) | join(" ")')" "0-1 0-1"
expect_eq "schedstat domain lines (6.1 form: no name) give each CPU's SMT mask" \
	"$(q a '.[3].schedstat.domains | map("\(.cpu):\(.name):\(.mask)") | join(" ")')" \
	"0:null:3 1:null:3"
expect_eq "libcpuid reads the kvm64 model" "$(q a '.[3].cpuid.vendor')" "GenuineIntel"
expect_eq "steal has one value per CPU" "$(q a '[.[] | select(.type == "steal") | .per_cpu | length] | join(" ")')" "2 2"
expect_eq "the job ends ok" "$(q a '.[-1] | "\(.type) \(.status)"')" "end ok"

boot b '{"schema":1,"nonce":"ab12","view":true,"sched":{"name":"bad","cpuset_partition":"1","debugfs":{"foo_ns":"1"}},"cells":[{"key":"k1","workload":"timer","params":{"duration":"100ms"}}]}' ""
expect_eq "a cpuset root partition is made and reads back" \
	"$(q b '[.[] | select(.type == "sched") | .settings[] | select(.path | endswith("partition")) | .read] | join(" ")')" "root"
expect_grep "an unknown knob is an error naming it, the kernel and what exists" "$T/b.json" \
	"sched profile 'bad': debugfs.foo_ns: no such knob in guest kernel $release (sched/ has: debug, features,"
expect_eq "the cell is rejected without running" \
	"$(q b '[.[] | select(.type == "cell_end") | "\(.status) \(.error)"] | join(" ")')" \
	"failed not run: sched profile 'bad' did not apply"
expect_eq "no sample was taken" "$(q b '[.[] | select(.type == "sample")] | length')" "0"
expect_eq "the job ends failed" "$(q b '.[-1] | "\(.type) \(.status)"')" "end failed"
expect_eq "a one-CPU partition leaves no domains in the view" \
	"$(q b '[.[] | select(.type == "guest_view") | .domains[].levels | length] | join(" ")')" "0 0"
if [ -n "${VTB_KEEP_RECORDS:-}" ]; then cp "$T/a.rec" "$T/b.rec" "$VTB_KEEP_RECORDS"/; fi
