# Guest kernels as an axis, planned without a real kernel: two [kernel]
# sections (fake bzImages that carry only the "HdrS" setup magic) make
# two configurations each with its kernel in the label, and what is wrong
# with a kernel is an error naming file:line.  plan --db says in each
# configuration's block whether its kernel's sched knobs (debugfs knobs
# and sysctls) were checked, against which boot's probe, or that they are
# unchecked until a boot of that image stored one; a configuration is not
# runnable once the probe lacks a knob or a sysctl.  Without [vm] kernel =
# the default kernel is checked the same way.
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
# stored a probe, said in each configuration's block; a probe without the
# profile's debugfs knob or sysctl makes that kernel's configurations
# (only those) not runnable
cat >"$T/s.conf" <<'CONF'
[global]
reps = 1
[baseline]
enabled = no
[vm]
vcpus = 2
kernel = stock, proto
sched = knobby, syscty
[kernel stock]
path = vmlinuz-a
[kernel proto]
path = proto.bz
[sched knobby]
debugfs.features = NO_TTWU_QUEUE
[sched syscty]
sysctl.kernel.numa_balancing = 0
[workload t]
type = timer
duration = 1s
CONF
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
"$MKFIXTURE" "$T/r.db" base 2>"$T/err" || notok "mkfixture base" "$(cat "$T/err")"
proto_sha=$(sha256sum "$T/proto.bz" | cut -d' ' -f1)
stock_sha=$(sha256sum "$T/vmlinuz-a" | cut -d' ' -f1)
proto16=${proto_sha%${proto_sha#????????????????}}
stock16=${stock_sha%${stock_sha#????????????????}}
expect_exit "plan --db without a probe of either image" 0 \
	"$VTBENCH" plan "$T/s.conf" --host-topology "$H" --db "$T/r.db"
# each configuration's block: its label, key, then its knobs line
got=$(awk '/^vm /{l=$0} /^  knobs /{sub(/^vm vcpus=2 topology=flat pinning=none memory=1G /, "", l); print l ": " $0}' "$T/out")
expect_eq "... says in each configuration's block that its kernel's knobs are unchecked" "$got" \
"sched=knobby kernel=stock:   knobs unchecked: kernel stock (sha256 $stock16) not probed yet; checked at its first boot
sched=knobby kernel=proto:   knobs unchecked: kernel proto (sha256 $proto16) not probed yet; checked at its first boot
sched=syscty kernel=stock:   knobs unchecked: kernel stock (sha256 $stock16) not probed yet; checked at its first boot
sched=syscty kernel=proto:   knobs unchecked: kernel proto (sha256 $proto16) not probed yet; checked at its first boot"
got=$(sed -n '/^$/q; /knobs/p' "$T/out")
expect_eq "... and before the configurations only the count" "$got" \
	"knobs    4 configurations set sched knobs: 0 checked against a stored probe, 0 lacking a knob, 4 unchecked until their kernel's first boot"
expect_exit "plan --db without a probe, JSON" 0 \
	"$VTBENCH" plan "$T/s.conf" --host-topology "$H" --db "$T/r.db" --format json
got=$(python3 -c 'import json,sys; print(" ".join("%s:%s:%s:%s" % (c["knobs"]["state"], c["knobs"]["kernel"], c["knobs"]["sha256"][:8], ",".join(c["knobs"]["unchecked"])) for c in json.load(open(sys.argv[1]))["configurations"]))' "$T/out")
expect_eq "... each configuration's knobs object: state, kernel, sha256, the keys unchecked" "$got" \
	"unchecked:stock:${stock_sha%${stock_sha#????????}}:debugfs.features unchecked:proto:${proto_sha%${proto_sha#????????}}:debugfs.features unchecked:stock:${stock_sha%${stock_sha#????????}}:sysctl.kernel.numa_balancing unchecked:proto:${proto_sha%${proto_sha#????????}}:sysctl.kernel.numa_balancing"
# the proto kernel has the sysctl and not the knob; the stock kernel the knob and not the sysctl
sql "$T/r.db" "update boot set guest_kernel_sha256 = '$proto_sha', probe = '{\"knobs\":[\"migration_cost_ns\"],\"sysctls\":{\"kernel\":[\"numa_balancing\"],\"vm\":[]}}' where id = (select min(id) from boot where kind = 'vm')"
sql "$T/r.db" "update boot set guest_kernel_sha256 = '$stock_sha', probe = '{\"knobs\":[\"features\"],\"sysctls\":{\"kernel\":[\"sched_autogroup_enabled\"],\"vm\":null}}' where id = (select max(id) from boot where kind = 'vm')"
proto_boot=$(sql "$T/r.db" "select uuid from boot where id = (select min(id) from boot where kind = 'vm')")
stock_boot=$(sql "$T/r.db" "select uuid from boot where id = (select max(id) from boot where kind = 'vm')")
expect_exit "plan --db with a probe of each image" 0 \
	"$VTBENCH" plan "$T/s.conf" --host-topology "$H" --db "$T/r.db"
expect_grep "... the proto kernel's configuration is not runnable, naming the kernel and the knob" \
	"$T/out" "not runnable: kernel proto (sha256 $proto16) lacks debugfs knob features (debugfs.features)"
expect_grep "... the stock kernel's of the sysctl profile is not runnable, naming the sysctl" \
	"$T/out" "not runnable: kernel stock (sha256 $stock16) lacks sysctl kernel.numa_balancing (sysctl.kernel.numa_balancing)"
expect_grep "... the other two stay runnable" "$T/out" "plan     4 configurations (2 runnable)"
expect_grep "... a checked configuration names the boot whose probe checked it" "$T/out" \
	"  knobs checked against the probe of boot ${proto_boot%${proto_boot#????????}} ("
expect_exit "plan --db with a probe of each image, JSON" 0 \
	"$VTBENCH" plan "$T/s.conf" --host-topology "$H" --db "$T/r.db" --format json
got=$(python3 -c 'import json,sys; print(" ".join("%s:%s:%s:%s" % (c["runnable"], c["knobs"]["state"], c["knobs"]["probe"]["boot"], c["knobs"].get("lacks", "-")) for c in json.load(open(sys.argv[1]))["configurations"]))' "$T/out")
expect_eq "... the JSON says the same, with the probe's boot" "$got" \
	"True:checked:$stock_boot:- False:lacking:$proto_boot:lacks debugfs knob features (debugfs.features) False:lacking:$stock_boot:lacks sysctl kernel.numa_balancing (sysctl.kernel.numa_balancing) True:checked:$proto_boot:-"
# an older probe (no sysctl lists): the sysctl stays unchecked, not lacking
sql "$T/r.db" "update boot set probe = '{\"knobs\":[\"features\"]}' where uuid = '$stock_boot'"
expect_exit "plan --db with a probe that predates the sysctl lists" 0 \
	"$VTBENCH" plan "$T/s.conf" --host-topology "$H" --db "$T/r.db"
expect_grep "... leaves the sysctl unchecked" "$T/out" \
	"of kernel stock (sha256 $stock16); unchecked (its probe does not list them): sysctl.kernel.numa_balancing"
expect_grep "... and the configuration runnable" "$T/out" "plan     4 configurations (3 runnable)"

# without [vm] kernel = the default kernel ([global] kernel =) is hashed
# and checked the same way; a default kernel that cannot be found leaves
# the knobs unchecked, per configuration, and is no error
python3 - "$T" <<'PY'
import sys
b = bytearray(4096)
b[0] = 4
b[0x202:0x206] = b"HdrS"
b[0x20e:0x210] = (0x300).to_bytes(2, "little")
v = b"6.1.0-fake (nobody@nowhere) #1\0"
b[0x500:0x500 + len(v)] = v
open(sys.argv[1] + "/vmlinuz-d", "wb").write(b)
PY
d_sha=$(sha256sum "$T/vmlinuz-d" | cut -d' ' -f1)
sed -e '/^kernel = stock, proto$/d' -e "s|^reps = 1\$|reps = 1\nkernel = $T/vmlinuz-d|" "$T/s.conf" >"$T/d.conf"
sql "$T/r.db" "update boot set guest_kernel_sha256 = '$d_sha', probe = '{\"knobs\":[\"features\"],\"sysctls\":{\"kernel\":[\"sched_autogroup_enabled\"],\"vm\":[]}}' where uuid = '$stock_boot'"
expect_exit "plan --db, the default kernel" 0 "$VTBENCH" plan "$T/d.conf" --host-topology "$H" --db "$T/r.db"
expect_grep "... its configurations are checked against its probe" "$T/out" \
	"  knobs checked against the probe of boot ${stock_boot%${stock_boot#????????}} ("
expect_grep "... naming the default kernel" "$T/out" \
	"of the default kernel $T/vmlinuz-d (6.1.0-fake, sha256 ${d_sha%${d_sha#????????????????}})"
expect_grep "... a sysctl it lacks makes its configuration not runnable" "$T/out" \
	"not runnable: the default kernel $T/vmlinuz-d (sha256 ${d_sha%${d_sha#????????????????}}) lacks sysctl kernel.numa_balancing (sysctl.kernel.numa_balancing)"
sed "s|^kernel = $T/vmlinuz-d|kernel = $T/gone|" "$T/d.conf" >"$T/g.conf"
gline=$(grep -n "^kernel = $T/gone" "$T/g.conf" | cut -d: -f1)
expect_exit "plan: a [global] kernel = that does not exist is an input error, as [vm]'s" 2 \
	"$VTBENCH" plan "$T/g.conf" --host-topology "$H" --db "$T/r.db"
expect_grep "... naming file:line" "$T/err" \
	"g.conf:$gline: cannot read kernel image '$T/gone': No such file or directory ([global] kernel =)"
expect_exit "plan without --db" 0 "$VTBENCH" plan "$T/d.conf" --host-topology "$H"
n=$(grep -c "knobs" "$T/out")
expect_eq "... says nothing of knobs" "$n" "0"
