# vtbench doctor: one line per check (ok/info/warn/fail), JSON with stable
# ids, exit 1 on a failed check; run refuses before writing anything when
# one of the cheap checks fails.  The host's own answers vary (libvirt up
# or not, cpufreq or not); the simulated cases are strict: a fake root for
# /dev, /sys and /proc (VTBENCH_DOCTOR_ROOT) and a libvirt URI whose
# socket nobody listens on.  No guest boots.
. "$SRCDIR/tests/cli/lib.sh"
need python3 || exit 0
case "${VTBENCH_AGENT:=$AGENT}" in /*) ;; *) VTBENCH_AGENT=$(pwd)/$VTBENCH_AGENT ;; esac
export VTBENCH_AGENT

IDS="dev-null dev-zero dev-random dev-urandom dev-kvm libvirt virtlogd qemu kvm guest-kernel guest-image sched-knobs memory hugepages cgroups clocksource governor turbo smt load"

# json_check FILE: the document against the schema: every id once, in
# order; a known status; advice exactly for warn and fail; "ok" and the
# summary agree with the checks.  Prints what is wrong, or nothing; writes
# FILE.st, "ID STATUS ADVICE" a line, for status and advice (one python a
# document: the suite runs twice, on a loaded machine).
json_check() {
	python3 - "$1" "$IDS" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ids = sys.argv[2].split()
bad = []
if d.get("schema") != "vtbench-doctor/1": bad.append("schema %r" % d.get("schema"))
got = [c["id"] for c in d["checks"]]
if got != ids: bad.append("ids %s" % got)
n = {"ok": 0, "info": 0, "warn": 0, "fail": 0}
for c in d["checks"]:
    if c["status"] not in n: bad.append("status %r" % c["status"]); continue
    n[c["status"]] += 1
    if not isinstance(c["found"], str) or not c["found"]: bad.append("found of " + c["id"])
    if (c["advice"] is not None) != (c["status"] in ("warn", "fail")): bad.append("advice of " + c["id"])
if d["summary"] != n: bad.append("summary %s" % d["summary"])
if d["ok"] != (n["fail"] == 0): bad.append("ok %s" % d["ok"])
with open(sys.argv[1] + ".st", "w") as f:
    for c in d["checks"]: f.write("%s %s %s\n" % (c["id"], c["status"], c["advice"] or ""))
print("; ".join(bad))
PY
}
# status FILE ID: that check's status in a JSON document
# status FILE ID, advice FILE ID: of a document json_check read
status() { awk -v id="$2" '$1 == id { print $2 }' "$1.st"; }
advice() { awk -v id="$2" '$1 == id { $1 = ""; $2 = ""; sub(/^  /, ""); print }' "$1.st"; }

# ---- this machine: each check present, the exit code its answers give ----
"$VTBENCH" doctor --format json >"$T/host.json" 2>"$T/err"
rc=$?
expect_eq "doctor on this host exits 0 or 1" "$(case $rc in 0|1) echo yes;; *) echo "exit $rc";; esac)" yes
expect_eq "... its JSON names every check once, in order, as the schema says" "$(json_check "$T/host.json")" ""
fails=$(awk '$2 == "fail"' "$T/host.json.st" | wc -l)
expect_eq "... exit 1 exactly when a check failed" "$rc" "$([ "$fails" -gt 0 ] && echo 1 || echo 0)"
"$VTBENCH" doctor >"$T/host.txt" 2>"$T/err"
expect_eq "text: one line per check and a summary" "$(wc -l <"$T/host.txt" | tr -d ' ')" 21
expect_eq "... each check line starts ok/info/warn/fail and its id" \
	"$(head -n 20 "$T/host.txt" | grep -cE '^(ok|info|warn|fail) +[a-z-]+  ')" 20
expect_eq "... warn and fail lines say what to do" \
	"$(grep -E '^(warn|fail) ' "$T/host.txt" | grep -vc '; to fix: ')" 0
expect_grep "... the summary counts them" "$T/host.txt" "20 checks: "
"$VTBENCH" doctor -q >"$T/q.txt" 2>"$T/err"
expect_eq "-q: only warn and fail lines" "$(grep -cvE '^(warn|fail) ' "$T/q.txt")" 0

# ---- usage ----
expect_exit "doctor --help exits 0" 0 "$VTBENCH" doctor --help
expect_grep "... with its exit codes" "$T/out" "1 a check failed"
expect_exit "vtbench help lists doctor" 0 "$VTBENCH" help
expect_grep "... in the command table" "$T/out" "  doctor "
expect_exit "--format xml is a usage error" 2 "$VTBENCH" doctor --format xml
expect_exit "two matrices are a usage error" 2 "$VTBENCH" doctor a.conf b.conf
expect_exit "a matrix that does not exist: exit 2" 2 "$VTBENCH" doctor "$T/nosuch.conf"
expect_grep "... naming it" "$T/err" "nosuch.conf"

# ---- a fake root: /dev nodes are the real ones, no /sys at all ----
mkroot() {
	mkdir -p "$1/dev" "$1/proc"
	for n in null zero random urandom; do ln -s "/dev/$n" "$1/dev/$n"; done
	printf 'MemTotal:       %s kB\nMemFree:        %s kB\nMemAvailable:   %s kB\nHugePages_Total:       0\nHugePages_Free:        0\nHugepagesize:       2048 kB\n' \
		16777216 8388608 "$2" >"$1/proc/meminfo"
	echo "0.10 0.20 0.30 1/100 4242" >"$1/proc/loadavg"
}
mkroot "$T/good" 8388608
cat >"$T/bm.conf" <<'CONF'
[global]
reps = 1
[baseline]
cpus = 1
[workload t]
type = debug
CONF
expect_exit "a bare-metal matrix on a sane root with no cpufreq: exit 0" 0 \
	env VTBENCH_DOCTOR_ROOT="$T/good" "$VTBENCH" doctor "$T/bm.conf" --format json
cp "$T/out" "$T/good.json"
expect_eq "... its JSON is valid" "$(json_check "$T/good.json")" ""
expect_eq "... /dev/null ok" "$(status "$T/good.json" dev-null)" ok
expect_eq "... no cpufreq: the governor is info, not a failure" "$(status "$T/good.json" governor)" info
expect_eq "... nor turbo" "$(status "$T/good.json" turbo)" info
expect_eq "... an idle load average is ok" "$(status "$T/good.json" load)" ok
expect_eq "... libvirt is not needed by a bare-metal matrix" \
	"$(for id in libvirt virtlogd qemu kvm guest-kernel guest-image; do status "$T/good.json" $id; done | grep -cvE '^(ok|info)$')" 0

# ---- benchmark hygiene: governor, turbo, clock source ----
# (the fixture tree has no /dev: those checks fail there)
VTBENCH_DOCTOR_ROOT="$SRCDIR/tests/fixtures/hoststate/intel" "$VTBENCH" doctor "$T/bm.conf" --format json >"$T/intel.json" 2>"$T/err"
expect_eq "a host in powersave with turbo on: its JSON is valid" "$(json_check "$T/intel.json")" ""
expect_eq "... a governor other than performance is a warn" "$(status "$T/intel.json" governor)" warn
expect_eq "... turbo on is a warn" "$(status "$T/intel.json" turbo)" warn
expect_eq "... SMT is information" "$(status "$T/intel.json" smt)" info
mkroot "$T/tuned" 8388608
mkdir -p "$T/tuned/sys/devices/system/cpu/cpu0/cpufreq" "$T/tuned/sys/devices/system/cpu/intel_pstate" \
	"$T/tuned/sys/devices/system/clocksource/clocksource0"
echo performance >"$T/tuned/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
echo 1 >"$T/tuned/sys/devices/system/cpu/intel_pstate/no_turbo"
echo hpet >"$T/tuned/sys/devices/system/clocksource/clocksource0/current_clocksource"
expect_exit "a tuned host with an hpet clock" 0 \
	env VTBENCH_DOCTOR_ROOT="$T/tuned" "$VTBENCH" doctor "$T/bm.conf" --format json
cp "$T/out" "$T/tuned.json"
expect_eq "... its JSON is valid" "$(json_check "$T/tuned.json")" ""
expect_eq "... performance is ok" "$(status "$T/tuned.json" governor)" ok
expect_eq "... turbo off is ok" "$(status "$T/tuned.json" turbo)" ok
expect_eq "... a clock source other than tsc is a warn" "$(status "$T/tuned.json" clocksource)" warn

# ---- /dev/null replaced by a regular file ----
mkroot "$T/bad" 8388608
rm "$T/bad/dev/null"
echo junk >"$T/bad/dev/null"
expect_exit "/dev/null a regular file: exit 1" 1 \
	env VTBENCH_DOCTOR_ROOT="$T/bad" "$VTBENCH" doctor "$T/bm.conf"
expect_grep "... the check fails saying what it is" "$T/out" "fail  dev-null      /dev/null is a regular file, not the character device 1:3"
expect_grep "... and how to recreate it" "$T/out" "mknod -m 666 /dev/null c 1 3"
expect_exit "run refuses on that root: exit 2" 2 \
	env VTBENCH_DOCTOR_ROOT="$T/bad" "$VTBENCH" run "$T/bm.conf" --db "$T/bad.db" -q
expect_grep "... naming the check" "$T/err" "vtbench run: check 'dev-null' failed: /dev/null is a regular file"
expect_grep "... and vtbench doctor for the rest" "$T/err" "nothing was run or written; every check: vtbench doctor $T/bm.conf"
expect_eq "... and writes no database" "$(ls "$T"/bad.db* 2>/dev/null)" ""

# ---- /dev/null the wrong device ----
mkroot "$T/swap" 8388608
ln -sfn /dev/zero "$T/swap/dev/null"
expect_exit "/dev/null that is /dev/zero: exit 1" 1 \
	env VTBENCH_DOCTOR_ROOT="$T/swap" "$VTBENCH" doctor "$T/bm.conf"
expect_grep "... names both devices" "$T/out" "fail  dev-null      /dev/null is the character device 1:5, not 1:3"

# ---- libvirt: a socket nobody listens on ----
cat >"$T/vm.conf" <<CONF
[global]
reps = 1
uri = qemu+unix:///system?socket=$T/nobody.sock
[vm]
vcpus = 1
memory = 256M
[workload t]
type = debug
CONF
expect_exit "libvirt not reachable: exit 1" 1 "$VTBENCH" doctor "$T/vm.conf" --format json
cp "$T/out" "$T/nolv.json"
expect_eq "... its JSON is valid" "$(json_check "$T/nolv.json")" ""
expect_eq "... the libvirt check fails" "$(status "$T/nolv.json" libvirt)" fail
case "$(advice "$T/nolv.json" libvirt)" in
*"scripts/libvirtd.sh start"*) ok "... its advice says how to start the daemon" ;;
*) notok "... its advice says how to start the daemon" "$(advice "$T/nolv.json" libvirt)" ;;
esac
expect_eq "... KVM is not judged without it (no probe, no guess)" "$(status "$T/nolv.json" kvm)" info
expect_exit "run refuses a VM matrix without libvirt: exit 2" 2 \
	"$VTBENCH" run "$T/vm.conf" --db "$T/nolv.db" -q
expect_grep "... naming the check" "$T/err" "vtbench run: check 'libvirt' failed: "
expect_eq "... and writes no database" "$(ls "$T"/nolv.db* 2>/dev/null)" ""

# ---- a [global] kernel = that does not exist: refused before the database ----
sed "s|^reps = 1\$|reps = 1\nkernel = $T/no-such-vmlinuz|" "$T/vm.conf" >"$T/nokernel.conf"
expect_exit "run with a missing guest kernel: exit 2" 2 \
	"$VTBENCH" run "$T/nokernel.conf" --db "$T/nok.db" -q
expect_grep "... at the matrix's line, as it is read" "$T/err" "nokernel.conf:3: cannot read kernel image '$T/no-such-vmlinuz'"
expect_grep "... and the file" "$T/err" "$T/no-such-vmlinuz"
expect_eq "... and writes no database" "$(ls "$T"/nok.db* 2>/dev/null)" ""

# ---- memory: less available than the planned guests take ----
mkroot "$T/low" 65536
expect_exit "64 MiB available: a bare-metal matrix needs none of it" 0 \
	env VTBENCH_DOCTOR_ROOT="$T/low" "$VTBENCH" doctor "$T/bm.conf"
VTBENCH_DOCTOR_ROOT="$T/low" "$VTBENCH" doctor "$T/vm.conf" >"$T/out" 2>"$T/err"
expect_grep "... memory not locked is a warn: QEMU allocates it as the guest touches it" "$T/out" \
	"warn  memory        64MiB available, but 'vm vcpus=1"
sed 's/^memory = 256M$/memory = 256M\nlocked = yes/' "$T/vm.conf" >"$T/locked.conf"
expect_exit "locked guest memory that does not fit: exit 1" 1 \
	env VTBENCH_DOCTOR_ROOT="$T/low" "$VTBENCH" doctor "$T/locked.conf"
expect_grep "... the memory check fails naming the configuration" "$T/out" "fail  memory        64MiB available, but 'vm vcpus=1"
expect_exit "run refuses it: exit 2" 2 \
	env VTBENCH_DOCTOR_ROOT="$T/low" "$VTBENCH" run "$T/locked.conf" --db "$T/low.db" -q
expect_grep "... naming the check" "$T/err" "vtbench run: check 'memory' failed: "
expect_eq "... and writes no database" "$(ls "$T"/low.db* 2>/dev/null)" ""

# ---- explore runs the same preflight ----
cat >"$T/ex.conf" <<'CONF'
[vm]
vcpus = 1
memory = 256M
sched = a, b
[sched a]
[sched b]
cmdline = quiet
[workload wakeup]
type = wakeup
[explore]
objective = wakeup/request_p99
CONF
expect_exit "explore refuses on the root with a regular /dev/null: exit 2" 2 \
	env VTBENCH_DOCTOR_ROOT="$T/bad" "$VTBENCH" explore "$T/ex.conf" --db "$T/ex.db" -q
expect_grep "... naming the check" "$T/err" "vtbench explore: check 'dev-null' failed: "
expect_eq "... and writes no database" "$(ls "$T"/ex.db* 2>/dev/null)" ""
