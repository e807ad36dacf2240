# confinement = partition end to end on this machine: a cgroup-v2 cpuset
# root partition where the host offers one, else affinity with a warning
# and a stored confinement that names the fallback and why (on hybrid
# hosts cgroup v1 owns cpuset and the v2 hierarchy lacks it).
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0

cat >"$T/m.conf" <<'CONF'
[global]
reps = 1
[baseline]
cpus = 1
confinement = partition
[workload stream]
type = membw
size = 1M
iterations = 2
CONF
expect_exit "run with confinement = partition exits 0" 0 "$VTBENCH" run "$T/m.conf" --db "$T/r.db"
got=$(sql "$T/r.db" "select status from boot")
expect_eq "the baseline boot is ok" "$got" "ok"
conf=$(sql "$T/r.db" "select confinement from boot")
mnt=$(awk '$0 ~ / - cgroup2 / { print $5 }' /proc/self/mountinfo | head -n 1)
if [ -n "$mnt" ] && grep -qw cpuset "$mnt/cgroup.controllers" 2>/dev/null && [ "$(id -u)" = 0 ]; then
	case $conf in
	partition*) ok "a cpuset partition confined the baseline" ;;
	*"(partition unavailable: partition refused"*) ok "the kernel refused the partition and the boot says so" ;;
	*) notok "a cpuset partition confined the baseline" "$conf" ;;
	esac
	expect_eq "the partition's cgroup is removed" "$(ls -d "$mnt"/vtbench-* 2>/dev/null | wc -l)" "0"
elif [ -n "$mnt" ]; then
	case $conf in
	"affinity"*"(partition unavailable: "*) ok "the stored confinement names the fallback" ;;
	*) notok "the stored confinement names the fallback" "$conf" ;;
	esac
	if grep -qw cpuset "$mnt/cgroup.controllers" 2>/dev/null; then
		expect_grep "... and why (not root)" "$T/err" "confinement = partition: no partition"
	else
		expect_eq "... and why (cgroup2 at $mnt has no cpuset)" \
			"$(printf '%s' "$conf" | grep -c "cpuset controller not in cgroup2 ($mnt/cgroup.controllers")" "1"
		expect_grep "the run warns why" "$T/err" "cpuset controller not in cgroup2"
	fi
else
	expect_eq "no cgroup2: the stored confinement says so" \
		"$(printf '%s' "$conf" | grep -c "no cgroup2 hierarchy mounted")" "1"
fi
