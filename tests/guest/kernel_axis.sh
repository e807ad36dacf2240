# Guest kernels as an axis on a real guest: the fetched kernel under two
# names ([kernel a] and [kernel b], the same image with another command
# line) boots once each; both boots store the kernel's identity (release,
# the image's sha256), list kernels shows them, and compare --axis
# guest_kernel pairs the two configurations.  Kept short: 2 vCPUs, one
# rep, a timer cell of a second.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need virsh || exit 0
. "$SRCDIR/tests/guest/lib.sh"
if [ -z "$kernel" ]; then notok "fetched guest kernel" "run scripts/fetch-kernel.sh"; exit 0; fi

cat >"$T/m.conf" <<CONF
[global]
reps = 1
timeout = 2m
[baseline]
enabled = no
[vm]
vcpus = 2
memory = 512M
kernel = a, b
[kernel a]
path = $kernel
[kernel b]
path = $kernel
cmdline = vtbench.test=b
[workload t]
type = timer
duration = 1s
CONF

expect_exit "run with two kernels exits 0" 0 "$VTBENCH" run "$T/m.conf" --db "$T/r.db"
sha=$(sha256sum "$kernel" | cut -d' ' -f1)
got=$(sql "$T/r.db" "select json_extract(config.params, '\$.kernel') || ':' || boot.status || ':' || boot.guest_kernel || ':' || (boot.guest_kernel_sha256 = '$sha') from boot join config on config.id = boot.config_id order by 1")
expect_eq "each kernel's boot stores its release and the image's sha256" "$(echo $got)" "a:ok:$release:1 b:ok:$release:1"
got=$(sql "$T/r.db" "select instr(json_extract(header, '\$.cmdline'), 'vtbench.test=b') > 0 from boot join config on config.id = boot.config_id order by json_extract(config.params, '\$.kernel')")
expect_eq "kernel b's command line reached its guest only" "$(echo $got)" "0 1"
expect_exit "list kernels" 0 "$VTBENCH" list kernels --db "$T/r.db"
expect_grep "... shows both with the image's sha256" "$T/out" "$sha"
n=$(grep -c "$sha" "$T/out")
expect_eq "... one row per kernel" "$n" "2"
# one boot a kernel: every row few, exit 1 (nothing could be judged)
expect_exit "compare --axis guest_kernel exits 1 (one boot a side: few)" 1 "$VTBENCH" compare --db "$T/r.db" --axis guest_kernel --format json -o "$T/cmp.json"
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["rows"]) > 0, sorted(set(e.get("guest_kernel_sha256","-") for e in d["evidence"])) == [sys.argv[2]])' "$T/cmp.json" "$sha" 2>&1)
expect_eq "... rows pair the two kernels, the evidence names the image" "$got" "True True"
expect_eq "no domain of ours is left" "$(ours)" "0"
