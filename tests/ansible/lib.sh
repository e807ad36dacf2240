# Shared by the ansible tests (sourced after tests/cli/lib.sh): an
# inventory of this machine on the local connection, every path of the
# roles under $T (install into a temporary PREFIX: the tree's build is
# never touched), and ansible-playbook wrappers.
need ansible-playbook || exit 0
need rsync || exit 0
ANSIBLE_DIR=$SRCDIR/ansible
export ANSIBLE_CONFIG="$ANSIBLE_DIR/ansible.cfg" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
export ANSIBLE_LOCAL_TEMP="$T/ansible-tmp" ANSIBLE_REMOTE_TEMP="$T/ansible-tmp"
# Cheaper plays, the same tasks: modules piped to python instead of
# copied into a temporary file per task, and facts gathered once per host
# and test (the plays that follow reuse them; this machine's facts do not
# change within a test).
export ANSIBLE_PIPELINING=True ANSIBLE_GATHERING=smart ANSIBLE_CACHE_PLUGIN=jsonfile \
	ANSIBLE_CACHE_PLUGIN_CONNECTION="$T/ansible-facts" ANSIBLE_CACHE_PLUGIN_TIMEOUT=3600
# the installed agent must be found beside the installed vtbench
unset VTBENCH_AGENT
# the roles' source copy, build and install are shared by the ansible
# tests, under build/ (make clean removes them; the tree's own build is
# not touched)
ANSIBLE_SHARED=$SRCDIR/build/ansible
mkdir -p "$ANSIBLE_SHARED"
# The role builds vtbench in its source copy (`make` there).  The build
# under test ($VTBENCH's, made from the same sources by the same
# Makefile) seeds that copy's build directory once, so the role's make
# finds its objects up to date and relinks at most, instead of compiling
# everything a third time; the role's build and install tasks still run.
_b=$(dirname "$VTBENCH")
if [ ! -e "$ANSIBLE_SHARED/src/build/obj" ] && [ -d "$_b/obj" ] && [ -f "$_b/guest/initramfs.cpio.gz" ]; then
	mkdir -p "$ANSIBLE_SHARED/src/build/guest"
	cp -a "$_b/obj" "$_b/libvtbh.a" "$_b/libvtbwl.a" "$_b/vtbench" "$_b/vtbench-agent" \
		"$ANSIBLE_SHARED/src/build/" &&
		cp -a "$_b/guest/initramfs.cpio.gz" "$ANSIBLE_SHARED/src/build/guest/" ||
		rm -rf "$ANSIBLE_SHARED/src/build"
fi

# host_vars for one simulated host NAME (paths of its own under $T)
host_vars() { # NAME HOST_ID
	cat <<YAML
      ansible_connection: local
      ansible_python_interpreter: /usr/bin/python3
      ansible_become: false
      vtbench_src_local: "$SRCDIR"
      vtbench_src_dir: "$ANSIBLE_SHARED/src"
      vtbench_prefix: "$ANSIBLE_SHARED/prefix"
      vtbench_libvirt: false
      vtbench_host_id: "$2"
      vtbench_nightly_etc: "$T/$1/etc"
      vtbench_nightly_dir: "$T/$1/state"
      vtbench_nightly_wrapper: "$T/$1/bin/vtbench-nightly"
      vtbench_nightly_unit_dir: "$T/$1/units"
      vtbench_nightly_matrix_template: "$SRCDIR/tests/ansible/tiny.conf.j2"
      vtbench_collect_dir: "$T/collected"
YAML
}

# play PLAYBOOK INVENTORY [ARGS...]: output in $T/play.out; the recap's
# changed= summed over hosts in $changed
play() {
	_pb=$1 _inv=$2; shift 2
	(cd "$ANSIBLE_DIR" && ansible-playbook -i "$_inv" "$_pb" "$@") >"$T/play.out" 2>&1
	_rc=$?
	changed=$(sed -n 's/.* changed=\([0-9]*\).*/\1/p' "$T/play.out" | awk '{ s += $1 } END { print s + 0 }')
	return $_rc
}

play_failed() { # NAME
	notok "$1" "$(grep -E 'fatal|FAILED|ERROR|failed=' "$T/play.out" | head -n 20)" \
		"$(tail -n 30 "$T/play.out")"
}
