# vtbench plan shows what vtbench explore would race ([explore], issue
# 19): the objective metrics (direction, and how many candidates have the
# cell), the rounds, budgets and multiplicity, the candidates as explore
# picks them (the runnable VM configurations beside their bare-metal
# baselines, else the bare-metal ones), what one round boots and the most
# the race can boot.  Plans without [explore] are unchanged (the goldens
# of plan_golden.sh).
. "$SRCDIR/tests/cli/lib.sh"
need python3 || exit 0

# examples/explore.conf on the 2-socket EPYC-like host: 12 candidates
expect_exit "explore.conf plans on the 2-socket host" 0 \
	"$VTBENCH" plan "$SRCDIR/examples/explore.conf" \
	--host-topology "$SRCDIR/topologies/hosts/epyc-2s.synthetic"
sed -n '/^explore (/,$p' "$T/out" | grep -v '^    c' >"$T/block"
cat >"$T/want" <<EOT
explore ($SRCDIR/examples/explore.conf:56)
  objective    wakeup/wakeup_p99: direction auto (the workload's); cell 'wakeup' in 12 of 12 candidates
  then         hackbench/seconds: direction auto (the workload's); cell 'hackbench' in 12 of 12 candidates
  rounds       3 before the first elimination, 20 at most
  budget       no boot budget, time 12h
  multiplicity bh (Benjamini-Hochberg)
  futility     no
  candidates   12 VM configurations, each beside its bare-metal baseline (3 distinct)
  a round      12 candidate boots + 3 baseline boots = 15 boots
  at most      20 rounds, 240 candidate boots + 60 baseline boots = 300 boots
  time         at most about 3 hours 41 minutes with KVM, 4 hours 21 minutes under TCG (model: VM boot 10 s with KVM, 20 s under TCG, baseline 1 s, each cell its runtime + warmup or 1 s)
EOT
if cmp -s "$T/want" "$T/block"; then ok "... ends with the explore block"; else notok "... ends with the explore block" "$(diff -u "$T/want" "$T/block")"; fi
expect_eq "... listing the 12 candidates" "$(grep -c '^    c[0-9]* *[0-9a-f]\{16\}  vm vcpus=16 .*  beside baseline cpus=16 cpuset=' "$T/out")" "12"
expect_eq "... each with its id, key, label and baseline" "$(grep -c '^    c12 [0-9a-f]\{16\}  vm vcpus=16 topology=lie pinning=none memory=16G sched=relax-newidle  beside baseline cpus=16 cpuset=2-9,16-23$' "$T/out")" "1"
expect_exit "... -q" 0 "$VTBENCH" plan -q "$SRCDIR/examples/explore.conf" \
	--host-topology "$SRCDIR/topologies/hosts/epyc-2s.synthetic"
expect_grep "... keeps the explore block" "$T/out" "  a round      12 candidate boots + 3 baseline boots = 15 boots"
expect_eq "... without the candidates' lines" "$(grep -c '^    c' "$T/out")" "0"
expect_exit "... JSON" 0 "$VTBENCH" plan "$SRCDIR/examples/explore.conf" \
	--host-topology "$SRCDIR/topologies/hosts/epyc-2s.synthetic" --format json
got=$(python3 - "$T/out" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
x = p["explore"]
cfg = {c["key"]: c for c in p["configurations"]}
print(" ".join("%s/%s:%s:%d" % (o["cell"], o["metric"], o["direction"], o["candidates_with_cell"]) for o in x["objective"]))
print(x["min_rounds"], x["max_rounds"], x["budget_boots"], x["budget_ns"], x["multiplicity"], x["kind"], x["futility"])
print(len(x["candidates"]), len(x["baselines"]), x["candidates"][0]["id"], x["candidates"][11]["id"])
print(all(cfg[c["key"]]["kind"] == "vm" and cfg[c["baseline"]]["kind"] == "baseline" and c["baseline"] in x["baselines"] for c in x["candidates"]))
print(x["round"]["candidate_boots"], x["round"]["baseline_boots"], x["round"]["boots"])
print(x["at_most"]["rounds"], x["at_most"]["candidate_boots"], x["at_most"]["baseline_boots"], x["at_most"]["boots"], x["budget_short"])
PY
)
expect_eq "... an explore object with the same" "$got" "wakeup/wakeup_p99:auto:12 hackbench/seconds:auto:12
3 20 0 43200000000000 bh vm False
12 3 c1 c12
True
12 3 15
20 240 60 300 False"

# examples/explore-quick.conf: two candidates sharing one baseline
expect_exit "explore-quick.conf plans on a 2-core host" 0 \
	"$VTBENCH" plan "$SRCDIR/examples/explore-quick.conf" --host-topology 'pack:1 core:2 pu:1'
expect_grep "... its objective" "$T/out" \
	"  objective    wakeup/request_p99: direction auto (the workload's); cell 'wakeup' in 2 of 2 candidates"
expect_grep "... two candidates, one baseline" "$T/out" \
	"  candidates   2 VM configurations, each beside its bare-metal baseline (1 distinct)"
expect_grep "... a round boots 3" "$T/out" "  a round      2 candidate boots + 1 baseline boot = 3 boots"
expect_grep "... 6 rounds at most" "$T/out" "  at most      6 rounds, 12 candidate boots + 6 baseline boots = 18 boots"

# directions, Holm, and the boot budget: it bounds the candidate boots,
# and the rounds (2 survivors at least after the first test)
sed -e 's/^min_rounds .*/min_rounds = 3\ndirection = lower\nmultiplicity = holm\nfutility = yes\nbudget_boots = 8/' \
	"$SRCDIR/examples/explore-quick.conf" >"$T/b8.conf"
expect_exit "a boot budget" 0 "$VTBENCH" plan "$T/b8.conf" --host-topology 'pack:1 core:2 pu:1'
expect_grep "... the direction key" "$T/out" "  objective    wakeup/request_p99: direction lower; "
expect_grep "... Holm" "$T/out" "  multiplicity holm (Holm's step-down, family-wise)"
expect_grep "... futility" "$T/out" "  futility     yes (stops when no open comparison can be decided in the rounds left)"
expect_grep "... the budgets" "$T/out" "  budget       8 candidate boots, time 9m"
expect_grep "... bound the race" "$T/out" "  at most      4 rounds, 8 candidate boots + 4 baseline boots = 12 boots"
sed -e 's/^budget_boots = 8/budget_boots = 5/' "$T/b8.conf" >"$T/b5.conf"
expect_exit "a boot budget under min_rounds rounds" 0 "$VTBENCH" plan "$T/b5.conf" --host-topology 'pack:1 core:2 pu:1'
expect_grep "... bounds the rounds to whole rounds" "$T/out" "  at most      2 rounds, 4 candidate boots + 2 baseline boots = 6 boots"
expect_grep "... and says the race stops before its first test" "$T/out" \
	"  note         budget_boots 5 is under min_rounds (3) rounds of every candidate (6 boots): the race stops before its first test, with no winner"

# bare-metal candidates (no VM configuration), one without the cell
cat >"$T/bare.conf" <<'CONF'
[global]
exclude = baseline cpus=1/spin
[baseline]
cpus = 1, 2
[workload spin]
type = debug
mode = spin
[workload idle]
type = debug
mode = sleep
[explore]
objective = spin/seconds
direction = higher
CONF
expect_exit "bare-metal candidates" 0 "$VTBENCH" plan "$T/bare.conf" --host-topology 'pack:1 core:2 pu:1'
expect_grep "... races the bare-metal configurations, no baselines" "$T/out" \
	"  candidates   2 bare-metal configurations (no runnable VM configuration), no baselines"
expect_grep "... says how many candidates have the objective's cell" "$T/out" \
	"  objective    spin/seconds: direction higher; cell 'spin' in 1 of 2 candidates"
expect_grep "... a round boots the candidates only" "$T/out" "  a round      2 candidate boots + 0 baseline boots = 2 boots"
expect_exit "... JSON" 0 "$VTBENCH" plan "$T/bare.conf" --host-topology 'pack:1 core:2 pu:1' --format json
got=$(python3 -c 'import json,sys; x=json.load(open(sys.argv[1]))["explore"]; print(x["kind"], [c["baseline"] for c in x["candidates"]], x["baselines"], x["objective"][0]["candidates_with_cell"])' "$T/out")
expect_eq "... kind baseline, no baselines" "$got" "baseline [None, None] [] 1"

# without [explore] neither the text nor the JSON says anything of it
sed '/^\[explore\]/,$d' "$T/bare.conf" >"$T/plain.conf"
expect_exit "a plan without [explore]" 0 "$VTBENCH" plan "$T/plain.conf" --host-topology 'pack:1 core:2 pu:1'
expect_eq "... has no explore block" "$(grep -c '^explore' "$T/out")" "0"
expect_exit "... JSON" 0 "$VTBENCH" plan "$T/plain.conf" --host-topology 'pack:1 core:2 pu:1' --format json
expect_eq "... has no explore object" "$(python3 -c 'import json,sys; print("explore" in json.load(open(sys.argv[1])))' "$T/out")" "False"
