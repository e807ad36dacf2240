# vtbench explore on real guests, short: examples/explore-quick.conf (two
# 2-vCPU guests under two sched profiles, one bare-metal baseline) with
# min_rounds 2 and a budget of 4 candidate boots, so the race tests once
# and stops; then recommend shows what the winner's guests built.  The
# full example (the known answer over 3+ rounds) is measured by hand in
# docs/explore.md: too long for CI.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need virsh || exit 0
. "$SRCDIR/tests/guest/lib.sh"
if [ -z "$kernel" ]; then notok "fetched guest kernel" "run scripts/fetch-kernel.sh"; exit 0; fi

sed -e 's|^min_rounds .*|min_rounds = 2|' -e "s|^db .*|kernel = $kernel|" \
	"$SRCDIR/examples/explore-quick.conf" >"$T/q.conf"
expect_exit "explore: two guests raced for two rounds" 0 \
	"$VTBENCH" explore "$T/q.conf" --db "$T/q.db" --budget-boots 4 -q
expect_eq "... every boot ok: 2 rounds of 2 guests and their baseline" \
	"$(sql "$T/q.db" "select kind || ':' || count(*) from boot where status = 'ok' group by kind order by kind")" \
	"baseline:2
vm:4"
expect_eq "... the race stopped after its one test, with a winner" \
	"$(sql "$T/q.db" "select stop in ('one', 'budget'), rounds, boots, json_array_length(winners) >= 1 from race")" \
	"1|2|4|1"
expect_exit "recommend on it" 0 "$VTBENCH" recommend --db "$T/q.db"
expect_grep "... the winner's margin over its bare-metal baseline" "$T/out" "against its bare-metal baseline 'baseline cpus=2"
expect_grep "... the sched-domain tree its guests built" "$T/out" "tree "
expect_grep "... its vCPU drift" "$T/out" "vCPU drift: off the planned pCPUs"
expect_eq "no domain of ours is left" "$(ours)" "0"
