# Guest kernels as an axis, planned without a real kernel: two [kernel]
# sections (fake bzImages that carry only the "HdrS" setup magic) make
# two configurations each with its kernel in the label, and what is wrong
# with a kernel is an error naming file:line.  plan --db says a kernel's
# sched knobs are unchecked until a boot of that image stored a probe,
# and a configuration not runnable once the probe lacks a knob.
. "$SRCDIR/tests/cli/lib.sh"
need python3 || exit 0
need sqlite3 || exit 0
H="pack:1 core:4 pu:1"

python3 - "$T" <<'PY'
import sys
d = sys.argv[1]
for name, fill in (("vmlinuz-a", 1), ("proto.bz", 2), ("notk", 3)):
    b = bytearray(4096)
    b[0] = fill
    if name != "notk":
        b[0x202:0x206] = b"HdrS"
    open(d + "/" + name, "wb").write(b)
open(d + "/config-a", "w").write("CONFIG_X=y\n")
PY

cat >"$T/m.conf" <<'CONF'
[global]
reps = 1
[baseline]
enabled = no
[vm]
vcpus = 2
topology = flat, cores
kernel = stock, proto
[kernel stock]
path = vmlinuz-a
[kernel proto]
path = proto.bz
cmdline = foo=1
[sched knobby]
debugfs.features = NO_TTWU_QUEUE
[workload t]
type = timer
duration = 1s
CONF

expect_exit "plan with two kernels exits 0" 0 "$VTBENCH" plan "$T/m.conf" --host-topology "$H"
n=$(grep -c '^vm vcpus=2 topology=.* kernel=stock$' "$T/out")
expect_eq "two configurations of the stock kernel" "$n" "2"
n=$(grep -c '^vm vcpus=2 topology=.* kernel=proto$' "$T/out")
expect_eq "two configurations of the proto kernel" "$n" "2"
expect_exit "plan --format json" 0 "$VTBENCH" plan "$T/m.conf" --host-topology "$H" --format json
got=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(" ".join(sorted(set(c["params"].get("kernel","-")+":"+c["params"].get("kernel.cmdline","-") for c in p["configurations"]))))' "$T/out")
expect_eq "the kernel and its cmdline are parameters (in the key)" "$got" "proto:foo=1 stock:-"

sed 's/^kernel = stock, proto/kernel = stok, proto/' "$T/m.conf" >"$T/typo.conf"
expect_exit "an unknown kernel is an input error" 2 "$VTBENCH" plan "$T/typo.conf" --host-topology "$H"
expect_grep "... naming file:line and the nearest section" "$T/err" \
	"typo.conf:8: unknown kernel 'stok': not a [kernel NAME] nor a path (a path has a '/') (did you mean 'stock'?)"
sed 's/^path = proto.bz/path = gone.bz/' "$T/m.conf" >"$T/gone.conf"
expect_exit "a missing image is an input error" 2 "$VTBENCH" plan "$T/gone.conf" --host-topology "$H"
expect_grep "... at the line of its path =" "$T/err" "gone.conf:12: cannot read kernel image '$T/gone.bz'"
sed 's/^kernel = stock, proto/kernel = stock, .\/notk/' "$T/m.conf" >"$T/notk.conf"
expect_exit "a file that is no kernel is an input error" 2 "$VTBENCH" plan "$T/notk.conf" --host-topology "$H"
expect_grep "... the bzImage magic is checked" "$T/err" "notk.conf:8: '$T/./notk' is not a Linux kernel image (no bzImage setup header 'HdrS' at 0x202)"

# plan --db: a kernel's knobs are unchecked until a boot of its image
# stored a probe; a probe without the profile's knob makes that kernel's
# configurations (only those) not runnable
cat >"$T/s.conf" <<'CONF'
[global]
reps = 1
[baseline]
enabled = no
[vm]
vcpus = 2
kernel = stock, proto
sched = knobby
[kernel stock]
path = vmlinuz-a
[kernel proto]
path = proto.bz
[sched knobby]
debugfs.features = NO_TTWU_QUEUE
[workload t]
type = timer
duration = 1s
CONF
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
"$MKFIXTURE" "$T/r.db" base 2>"$T/err" || notok "mkfixture base" "$(cat "$T/err")"
expect_exit "plan --db without a probe of either image" 0 \
	"$VTBENCH" plan "$T/s.conf" --host-topology "$H" --db "$T/r.db"
n=$(grep -c 'unchecked until the first boot' "$T/out")
expect_eq "... says both kernels' knobs are unchecked until the first boot" "$n" "2"
proto_sha=$(sha256sum "$T/proto.bz" | cut -d' ' -f1)
stock_sha=$(sha256sum "$T/vmlinuz-a" | cut -d' ' -f1)
sql "$T/r.db" "update boot set guest_kernel_sha256 = '$proto_sha', probe = '{\"knobs\":[\"migration_cost_ns\"]}' where id = (select min(id) from boot where kind = 'vm')"
sql "$T/r.db" "update boot set guest_kernel_sha256 = '$stock_sha', probe = '{\"knobs\":[\"features\"]}' where id = (select max(id) from boot where kind = 'vm')"
expect_exit "plan --db with a probe of each image" 0 \
	"$VTBENCH" plan "$T/s.conf" --host-topology "$H" --db "$T/r.db"
expect_grep "... the proto kernel's configuration is not runnable, naming the kernel and the knob" \
	"$T/out" "not runnable: kernel proto (sha256 ${proto_sha%${proto_sha#????????????????}}) lacks debugfs knob features (debugfs.features)"
expect_grep "... the stock kernel's stays runnable" "$T/out" "plan     2 configurations (1 runnable)"
