# A simulated fleet: two inventory hosts on the local connection, each
# with its own host_id, matrix (reps), database and paths.  site.yml,
# run-now.yml, collect.yml (with vtbench merge on the controller); the
# merged database holds two hosts and compare --axis host compares them.
. "$SRCDIR/tests/cli/lib.sh"
. "$SRCDIR/tests/ansible/lib.sh"
need sqlite3 || exit 0

{
	echo "vtbench:"; echo "  hosts:"
	echo "    numa-a:"; host_vars numa-a numa-a; echo "      vtbench_nightly_reps: 2"
	echo "    numa-b:"; host_vars numa-b numa-b; echo "      vtbench_nightly_reps: 3"
} >"$T/fleet.yml"

# one host at a time: both are this machine, and their boots would
# otherwise share its CPUs
if play site.yml "$T/fleet.yml" --forks 1; then ok "site.yml on the fleet"; else play_failed "site.yml on the fleet"; fi
expect_grep "... numa-b names itself in its matrix" "$T/numa-b/etc/nightly.conf" "host_id = numa-b"
expect_grep "... no host setting asked for: the host's own are kept" "$T/play.out" "no host setting asked for on numa-a"
if play run-now.yml "$T/fleet.yml" --forks 1; then ok "run-now.yml on every host"; else play_failed "run-now.yml on every host"; fi
expect_eq "... each host has its own database" \
	"$(sql "$T/numa-a/state/results.db" "select hostname from host") $(sql "$T/numa-b/state/results.db" "select hostname from host")" \
	"numa-a numa-b"
if play collect.yml "$T/fleet.yml" -e "vtbench_fleet_db=$T/fleet.db" \
	-e "vtbench_controller_bin=$ANSIBLE_SHARED/prefix/bin/vtbench" -e "vtbench_collect_dir=$T/collected"; then
	ok "collect.yml fetches and merges"
else
	play_failed "collect.yml fetches and merges"
fi
for h in numa-a numa-b; do
	if [ -s "$T/collected/$h.db" ]; then ok "... $h's database collected"; else notok "... $h's database collected" "$(ls -l "$T/collected" 2>&1)"; fi
done
expect_grep "... vtbench merge reports both" "$T/play.out" "merged 2 campaigns into $T/fleet.db"
expect_eq "the merged database holds two hosts" \
	"$(sql "$T/fleet.db" "select group_concat(hostname || ':' || n, ' ') from (select h.hostname, count(b.id) n from host h join campaign c on c.host_id = h.id join boot b on b.campaign_id = c.id group by h.hostname order by h.hostname)")" \
	"numa-a:2 numa-b:3"
expect_exit "vtbench merge of the collected databases again adds nothing" 0 \
	"$VTBENCH" merge "$T/fleet.db" "$T/collected/numa-a.db" "$T/collected/numa-b.db"
expect_grep "... says so" "$T/out" "merged 0 campaigns into $T/fleet.db (2 skipped: already there)"
expect_exit "compare --axis host compares the two hosts" 0 \
	"$VTBENCH" compare --db "$T/fleet.db" --axis host --format json -o "$T/cmp.json"
expect_eq "... numa-b against numa-a" \
	"$(jq -r '[.campaign.host, .against.host, (.rows | length)] | join(" ")' "$T/cmp.json")" "numa-b numa-a 1"
"$VTBENCH" compare --db "$T/fleet.db" --axis host 2>&1 | grep -E '^(campaign|host|against) |\(\+' | sed 's/^/# /'
