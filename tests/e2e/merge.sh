# vtbench merge: two tiny bare-metal campaigns of "two hosts" (this
# machine under two VTBENCH_HOST_ID / host_id = identities) united into
# one database, merged again (nothing new), then compare --axis host
# across them within the merged database.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need jq || exit 0

cat >"$T/a.conf" <<'CONF'
[global]
reps = 2
timeout = 20s
[baseline]
cpus = 1
[workload probe]
type = debug
mode = ok
CONF
# the second host names itself in its matrix; VTBENCH_HOST_ID wins over it
sed 's/^reps = 2$/reps = 3\nhost_id = from-matrix/' "$T/a.conf" >"$T/b.conf"

expect_exit "host alpha runs (VTBENCH_HOST_ID)" 0 \
	env VTBENCH_HOST_ID=alpha "$VTBENCH" run "$T/a.conf" --db "$T/alpha.db" --quiet
expect_exit "host beta runs (host_id = in [global])" 0 \
	env -u VTBENCH_HOST_ID "$VTBENCH" run "$T/b.conf" --db "$T/beta.db" --quiet
expect_eq "... the matrix's host_id is the stored host name" \
	"$(sql "$T/beta.db" "select hostname from host")" "from-matrix"
expect_exit "VTBENCH_HOST_ID overrides host_id =" 0 \
	env VTBENCH_HOST_ID=beta "$VTBENCH" run "$T/b.conf" --db "$T/beta2.db" --quiet
expect_eq "... stored as beta" "$(sql "$T/beta2.db" "select hostname from host")" "beta"

expect_exit "merge two hosts' databases into a new one" 0 \
	"$VTBENCH" merge "$T/all.db" "$T/alpha.db" "$T/beta2.db"
expect_grep "... reports each merged campaign with its host" "$T/out" "merged campaign"
expect_grep "... host alpha" "$T/out" "(host alpha, done, 2 boots)"
expect_grep "... summary" "$T/out" "merged 2 campaigns into $T/all.db (0 skipped: already there): 2 new hosts"
expect_eq "the merged database holds two hosts and both campaigns" \
	"$(sql "$T/all.db" "select group_concat(hostname || ':' || n, ' ') from (select hostname, count(b.id) n from host h join campaign c on c.host_id = h.id join boot b on b.campaign_id = c.id group by hostname order by hostname)")" \
	"alpha:2 beta:3"
expect_eq "... samples of both, integrity ok" \
	"$(sql "$T/all.db" "select count(*) from sample; pragma integrity_check; pragma foreign_key_check")" \
	"$(printf '5\nok')"

before=$(sql "$T/all.db" "select count(*) from boot; select count(*) from sample; select count(*) from event")
expect_exit "merging again succeeds" 0 "$VTBENCH" merge "$T/all.db" "$T/alpha.db" "$T/beta2.db"
expect_grep "... and merges nothing" "$T/out" "merged 0 campaigns into $T/all.db (2 skipped: already there)"
expect_grep "... saying which campaign was skipped" "$T/out" "skipped campaign"
expect_eq "... the database is unchanged" \
	"$(sql "$T/all.db" "select count(*) from boot; select count(*) from sample; select count(*) from event")" "$before"

expect_exit "an input that is the output is refused" 2 "$VTBENCH" merge "$T/all.db" "$T/all.db"
expect_exit "a missing input is refused before anything is merged" 2 \
	"$VTBENCH" merge "$T/new.db" "$T/alpha.db" "$T/nope.db"
if [ -e "$T/new.db" ]; then notok "... the output is not created"; else ok "... the output is not created"; fi
cp "$T/alpha.db" "$T/newer.db"
sql "$T/newer.db" "pragma user_version = 99"
expect_exit "a newer schema is refused" 2 "$VTBENCH" merge "$T/x.db" "$T/newer.db"
expect_grep "... saying so" "$T/err" "was written by a newer vtbench (schema 99"

expect_exit "compare --axis host within the merged database" 0 \
	"$VTBENCH" compare --db "$T/all.db" --axis host --format json -o "$T/cmp.json"
expect_eq "... compares one host against the other" \
	"$(jq -r '[.campaign.host, .against.host, .options.axis, (.rows | length > 0)] | join(" ")' "$T/cmp.json")" \
	"beta alpha host true"
expect_exit "... the text view names both hosts" 0 "$VTBENCH" compare --db "$T/all.db" --axis host
expect_grep "... beta" "$T/out" "host         beta"
expect_grep "... alpha" "$T/out" "host         alpha"
expect_exit "compare --axis host in one host's database says what is missing" 2 \
	"$VTBENCH" compare --db "$T/alpha.db" --axis host
expect_grep "... merge" "$T/err" "no campaign of another host"
