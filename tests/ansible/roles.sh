# The roles document themselves and leave a host alone unless asked: a
# README and meta/argument_specs.yml per role that name every default,
# requirements.yml naming every collection used (and each one installed
# here), and the host settings script rendered with the defaults writing
# nothing (with a setting asked for, that one only).
. "$SRCDIR/tests/cli/lib.sh"
need python3 || exit 0
need ansible || exit 0
A=$SRCDIR/ansible
export ANSIBLE_CONFIG="$A/ansible.cfg" ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP="$T/ansible-tmp"

for role in vtbench_host vtbench_nightly; do
	if [ -s "$A/roles/$role/README.md" ]; then ok "$role has a README"; else notok "$role has a README"; fi
done
if out=$(python3 - "$A" <<'PY' 2>&1
import glob, os, re, sys, yaml
a = sys.argv[1]
errs = []
for role in ("vtbench_host", "vtbench_nightly"):
    d = os.path.join(a, "roles", role)
    defaults = yaml.safe_load(open(os.path.join(d, "defaults/main.yml")))
    specs = yaml.safe_load(open(os.path.join(d, "meta/argument_specs.yml")))["argument_specs"]
    opts = specs["main"]["options"]
    readme = open(os.path.join(d, "README.md")).read()
    for k in defaults:
        if k not in opts:
            errs.append("%s: %s has no argument spec" % (role, k))
    for k, o in opts.items():
        if k not in defaults:
            errs.append("%s: argument spec %s has no default" % (role, k))
        if not o.get("description") or not o.get("type"):
            errs.append("%s: %s lacks a type or description" % (role, k))
        if "default" in o and str(o["default"]) != str(defaults[k]):
            errs.append("%s: %s default %r, defaults/main.yml %r" % (role, k, o["default"], defaults[k]))
    # entry points: main and each tasks file a playbook starts
    for f in glob.glob(os.path.join(a, "*.yml")):
        for ep in re.findall(r"name: %s\s+tasks_from: ([a-z_]+)\.yml" % role, open(f).read()):
            if ep not in specs:
                errs.append("%s: tasks_from %s.yml (%s) has no argument spec" % (role, ep, f))
    for k in re.findall(r"`(vtbench_[a-z_]+)`", readme):
        if k in ("vtbench_host", "vtbench_nightly", "vtbench_numa_cpus"):
            continue
        if k not in opts and not k.startswith("vtbench_tune_"):
            errs.append("%s: README names %s, which the role does not take" % (role, k))
# every collection used is required
used = set()
for f in glob.glob(os.path.join(a, "**/*.yml"), recursive=True):
    used |= set(re.findall(r"^\s*-?\s*([a-z_]+\.[a-z_]+)\.[a-z_]+:", open(f).read(), re.M))
used -= {"ansible.builtin"}
req = {c["name"] for c in yaml.safe_load(open(os.path.join(a, "requirements.yml")))["collections"]}
if used - req:
    errs.append("collections used but not in requirements.yml: %s" % sorted(used - req))
if req - used:
    errs.append("collections required but not used: %s" % sorted(req - used))
print("\n".join(errs) if errs else "%s" % " ".join(sorted(req)))
sys.exit(1 if errs else 0)
PY
); then ok "argument specs name every default with a type and description, entry points per tasks file; requirements.yml names every collection used ($out)"; else notok "argument specs and requirements.yml" "$out"; fi
ansible-galaxy collection list >"$T/coll" 2>/dev/null
for c in $(sed -n 's/^  - name: \([a-z_.]*\).*/\1/p' "$A/requirements.yml"); do
	expect_grep "$c (requirements.yml) is installed here" "$T/coll" "$c "
done

# the host settings script, rendered with the role's defaults and with
# settings asked for (ansible's own template module, on the controller;
# one play for both: ansible starts slowly)
cat >"$T/render.yml" <<YML
- name: Render the host settings script
  hosts: localhost
  connection: local
  gather_facts: false
  vars_files: ["$A/roles/vtbench_host/defaults/main.yml"]
  tasks:
    - name: With the defaults
      ansible.builtin.template:
        src: "$A/roles/vtbench_host/templates/vtbench-tune.sh.j2"
        dest: "$T/tune-default.sh"
        mode: "0644"
    - name: With hugepages and swap asked for
      ansible.builtin.template:
        src: "$A/roles/vtbench_host/templates/vtbench-tune.sh.j2"
        dest: "$T/tune-asked.sh"
        mode: "0644"
      vars:
        vtbench_tune_hugepages: 4096
        vtbench_tune_swap: false
YML
(cd "$A" && ansible-playbook -i localhost, "$T/render.yml") >"$T/render.log" 2>&1 ||
	notok "the tune script renders" "$(tail -n 20 "$T/render.log")"
writes=$(grep -nE '^[[:space:]]*(put |swapoff|printf .* >"\$f")|for [fd] in' "$T/tune-default.sh")
expect_eq "with the defaults the tune script changes nothing (no hugepages, swap, numa_balancing...)" "$writes" ""
expect_grep "... with hugepages asked for, it sets nr_hugepages" "$T/tune-asked.sh" "put /proc/sys/vm/nr_hugepages 4096"
expect_grep "... with swap = false, it turns swap off" "$T/tune-asked.sh" "swapoff -a"
expect_eq "... and nothing else" "$(grep -cE '^[[:space:]]*put /' "$T/tune-asked.sh")" "1"
for f in "$T/tune-default.sh" "$T/tune-asked.sh"; do
	expect_exit "$(basename "$f") is valid sh" 0 sh -n "$f"
done
