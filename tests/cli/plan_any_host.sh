# Every example matrix plans on every host description in topologies/hosts
# (2-socket EPYC- and Xeon-like servers, a 508 MiB L3 per core, four 2 GiB
# NUMA nodes, no cache information at all) and on this machine: each configuration is runnable or refused
# with a reason, never found out by a failed boot.  membw's size = auto
# is a number wherever the host gives an LLC size, the same for a VM
# configuration and the baselines on its pCPUs, and a note says where it
# is below STREAM's 4 x LLC (and where the host gives no LLC size).
. "$SRCDIR/tests/cli/lib.sh"
need python3 || exit 0
H=$SRCDIR/topologies/hosts

# check.py NAME PLAN.json...: "ok"/"not ok" lines for each plan, and
# PLAN.json.counts (configurations, cells cut, cells left to the agent)
cat >"$T/check.py" <<'EOF'
import json, sys
def check(name, path):
  plan = json.load(open(path))
  cfgs = plan["configurations"]
  bad = [c["label"] for c in cfgs if not c["runnable"] and not (c.get("why_not") or "").strip()]
  print(("ok" if not bad else "not ok") + " - %s: every configuration runnable or refused with a reason" % name)
  for b in bad[:5]:
      print("# refused without a reason: " + b)
  problems = []
  shrunk = 0
  unknown = 0
  def membw(c):
      return {x["name"]: x for x in c["cells"] if x["workload"] == "membw"}
  for c in cfgs:
      for n, x in membw(c).items():
          if x["params"].get("size") != "auto":
              continue
          size, llc = x["resolved"].get("size"), x["resolved"].get("llc")
          note = x.get("note") or ""
          if llc == "auto":
              unknown += 1
              if size != "auto" or "no LLC size" not in note:
                  problems.append("%s / %s: no LLC size but size=%s, note %r" % (c["label"], n, size, note))
              continue
          if not size.isdigit():
              problems.append("%s / %s: size = auto left unresolved with llc=%s" % (c["label"], n, llc))
              continue
          if int(size) < 4 * int(llc):
              shrunk += 1
              if "STREAM's 4 x LLC" not in note:
                  problems.append("%s / %s: %s bytes < 4 x %s without a note" % (c["label"], n, size, llc))
          elif note:
              problems.append("%s / %s: a note but the rule is met: %s" % (c["label"], n, note))
  # like for like: a VM configuration and the baseline on its pCPUs
  base = {c["cpus"]: c for c in cfgs if c["kind"] == "baseline"}
  for c in cfgs:
      if c["kind"] != "vm" or not c.get("plan"):
          continue
      vms = c["plan"].get("vms", [])
      b = base.get(vms[0]["cpus"]) if len(vms) == 1 else None
      if not b:
          continue
      bm = membw(b)
      for n, x in membw(c).items():
          if n in bm and bm[n]["resolved"].get("size") != x["resolved"].get("size"):
              problems.append("%s / %s: VM size %s, its baseline's %s" % (c["label"], n,
                              x["resolved"].get("size"), bm[n]["resolved"].get("size")))
  print(("ok" if not problems else "not ok") + " - %s: membw size = auto resolved like for like, noted where below the rule" % name)
  for p in problems[:8]:
      print("# " + p)
  open(path + ".counts", "w").write("%d %d %d\n" % (len(cfgs), shrunk, unknown))

args = sys.argv[1:]
for i in range(0, len(args), 2):
    check(args[i], args[i + 1])
EOF

# plan_on NAME SPEC MATRIX ID: plans into $T/plan-ID.json for check.py; a
# whole matrix refused (exit 2) must say which line and why
plan_on() {
	"$VTBENCH" plan "$3" --host-topology "$2" --format json >"$T/plan.json" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 2 ]; then
		if grep -q "$(basename "$3"):[0-9]*: " "$T/err"; then ok "$1: refused with a reason ($(head -c 160 "$T/err"))"; else notok "$1: refused without a file:line reason" "$(cat "$T/err")"; fi
		return
	fi
	if [ "$rc" -ne 0 ]; then
		notok "$1: plans (exit $rc)" "$(head -c 600 "$T/err")"
		return
	fi
	cp "$T/plan.json" "$T/plan-$4.json"
	checks="$checks|$1|$T/plan-$4.json"
}
checks=""

nhosts=0
for f in "$H"/*.synthetic "$H"/*.xml; do
	[ -f "$f" ] || continue
	nhosts=$((nhosts + 1))
	host=$(basename "$f"); host=${host%.*}
	spec=$f # a .synthetic file holds the description (vtbench reads it)
	for m in "$SRCDIR"/examples/*.conf; do
		plan_on "$(basename "$m") on $host" "$spec" "$m" "$host-$(basename "$m" .conf)"
	done
done
for m in "$SRCDIR"/examples/*.conf; do
	"$VTBENCH" plan "$m" --format json >"$T/plan.json" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		cp "$T/plan.json" "$T/plan-local-$(basename "$m" .conf).json"
		checks="$checks|$(basename "$m") on this machine|$T/plan-local-$(basename "$m" .conf).json"
	elif [ "$rc" -eq 2 ] && grep -q "$(basename "$m"):[0-9]*: " "$T/err"; then
		ok "$(basename "$m") on this machine: refused with a reason ($(head -c 160 "$T/err"))"
	else
		notok "$(basename "$m") on this machine: plans or is refused with a reason" "exit $rc" "$(head -c 600 "$T/err")"
	fi
done
if [ "$nhosts" -ge 5 ]; then ok "every host description of topologies/hosts planned on ($nhosts)"; else notok "every host description of topologies/hosts planned on" "$nhosts found"; fi
# one python for every plan (names hold spaces: split on |)
(IFS='|'; set -f; python3 "$T/check.py" ${checks#|})

# where it must: 4 x 2 x 508 MiB cannot fit quick.conf's 1 GiB guests
read -r _ shrunk unknown <"$T/plan-huge-l3-quick.json.counts" || shrunk=0
if [ "$shrunk" -ge 3 ]; then ok "quick.conf on a 508 MiB-per-core L3: membw cut to fit, noted ($shrunk cells)"; else notok "quick.conf on a 508 MiB-per-core L3: membw cut to fit" "$shrunk cells cut"; fi
read -r _ shrunk unknown <"$T/plan-no-cache-quick.json.counts" || unknown=0
if [ "$unknown" -ge 3 ]; then ok "quick.conf without cache information: size = auto left to the agent, noted"; else notok "quick.conf without cache information: size = auto left to the agent" "$unknown cells"; fi

# infeasible cells: the configuration is not runnable, with need, memory
# and the key to change; the rest of the matrix still runs
cat >"$T/big.conf" <<'EOF'
[global]
housekeeping = none
[baseline]
vm = yes
[vm]
vcpus = 2
pinning = strict
memory = 1G, 8G
[workload big]
type = membw
size = 1G
EOF
expect_exit "a matrix with an infeasible cell still plans" 0 \
	"$VTBENCH" plan "$T/big.conf" --host-topology "$(cat "$H/small-nodes.synthetic")"
expect_grep "the 1 GiB guest is not runnable, with need, memory and keys" "$T/out" \
	"not runnable: [workload big] (membw) needs about 3GiB, more than 80% of the guest's available memory"
expect_grep "... naming the keys to change" "$T/out" "raise [vm] memory or lower size"
expect_grep "the baseline on a 2 GiB node is not runnable, with its node's memory" "$T/out" \
	"more than 80% of the memory of host node 0 (2GiB)"
# the 8 GiB guest has room for the cell, but not on its 2 GiB host node:
# refused for that (the planner's node check), not for the cell
expect_eq "the 8 GiB guest is refused for its host node, not for the cell" \
	"$(grep -A2 '^vm vcpus=2 .*memory=8G' "$T/out" | grep -c 'not runnable: guest memory does not fit host node')" "1"
expect_grep "the runnable one: the full-host baseline" "$T/out" "(1 runnable)"

# --host-topology FILE.synthetic is the description the file holds: the
# same plan as the string itself; a file without one, or none, is refused
"$VTBENCH" plan "$SRCDIR/examples/numa-server.conf" --format json \
	--host-topology "$H/epyc-2s.synthetic" >"$T/byfile.json" 2>&1
"$VTBENCH" plan "$SRCDIR/examples/numa-server.conf" --format json \
	--host-topology "$(cat "$H/epyc-2s.synthetic")" >"$T/bystring.json" 2>&1
if cmp -s "$T/byfile.json" "$T/bystring.json" && grep -q '"configurations"' "$T/byfile.json"; then
	ok "a .synthetic file plans as the description it holds"
else
	notok "a .synthetic file plans as the description it holds" "$(diff "$T/byfile.json" "$T/bystring.json" | head -n 5)"
fi
printf '# only a comment\n\n' >"$T/empty.synthetic"
expect_exit "a .synthetic file without a description is a usage error" 2 \
	"$VTBENCH" plan "$SRCDIR/examples/quick.conf" --host-topology "$T/empty.synthetic"
expect_grep "... saying so, with the file" "$T/err" "empty.synthetic: no synthetic description in the file"
printf '# a host\npack:1 core:2 pu:2  # the line may end in a comment\n' >"$T/c.synthetic"
expect_exit "a .synthetic line may end in a comment" 0 "$VTBENCH" topo --host-topology "$T/c.synthetic"
printf 'pack:1 cores:2\n' >"$T/bad.synthetic"
expect_exit "a bad description in a .synthetic file is a usage error" 2 \
	"$VTBENCH" topo --host-topology "$T/bad.synthetic"
expect_grep "... naming the file" "$T/err" "bad.synthetic: 'pack:1 cores:2' is neither"
