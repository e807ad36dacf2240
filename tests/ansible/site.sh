# site.yml for real against this machine (local connection): packages,
# build and make install into a temporary prefix, the nightly units
# installed and verified but not started (systemd is not PID 1 here), host
# tuning skipped with a message (a container); run-now.yml with a tiny
# bare-metal matrix; a second site.yml that changes nothing.
. "$SRCDIR/tests/cli/lib.sh"
. "$SRCDIR/tests/ansible/lib.sh"
need systemd-analyze || exit 0
need sqlite3 || exit 0

{ echo "vtbench:"; echo "  hosts:"; echo "    localhost:"; host_vars local ""; } >"$T/inventory.yml"
echo "      vtbench_nightly_reps: 2" >>"$T/inventory.yml"
# a setting asked for: skipped here, a container (nothing is left alone
# unless asked: fleet.sh sees the role say so)
echo "      vtbench_tune_hugepages: 64" >>"$T/inventory.yml"

# every file the roles install, with its checksum
installed() {
	{ find "$ANSIBLE_SHARED/prefix" -type f; find "$T/local/etc" "$T/local/bin" "$T/local/units" -type f; } |
		sort | xargs sha256sum
}

if play site.yml "$T/inventory.yml"; then ok "site.yml against this machine"; else play_failed "site.yml against this machine"; fi
expect_grep "... tuning skipped with a clear message" "$T/play.out" "host tuning skipped on localhost: this machine is a"
expect_grep "... units installed, not started (systemd is not PID 1)" "$T/play.out" "systemd is not PID 1 on localhost"
expect_grep "... and verified" "$T/play.out" "and verified"
if [ -x "$ANSIBLE_SHARED/prefix/bin/vtbench" ] && [ -x "$ANSIBLE_SHARED/prefix/bin/vtbench-agent" ]; then
	ok "... vtbench installed into the prefix"
else
	notok "... vtbench installed into the prefix" "$(ls -R "$ANSIBLE_SHARED/prefix" | head)"
fi
expect_exit "... the units pass systemd-analyze verify" 0 \
	systemd-analyze verify "$T/local/units/vtbench-nightly.service" "$T/local/units/vtbench-nightly.timer"
expect_eq "... the timer has a time and a random delay" \
	"$(grep -E '^(OnCalendar|RandomizedDelaySec|Persistent)=' "$T/local/units/vtbench-nightly.timer" | tr '\n' ' ')" \
	"OnCalendar=*-*-* 02:00:00 RandomizedDelaySec=30min Persistent=true "
expect_eq "... the configuration directory is root's alone" "$(stat -c %a "$T/local/etc")" "700"
installed >"$T/sums1"

if play run-now.yml "$T/inventory.yml"; then ok "run-now.yml runs the nightly job"; else play_failed "run-now.yml runs the nightly job"; fi
day=$(date +%Y-%m-%d)
expect_eq "... a campaign of the nightly matrix, done" \
	"$(sql "$T/local/state/results.db" "select status || ' ' || (select count(*) from boot where status = 'ok') from campaign")" "done 2"
for f in report.html report.txt results.db; do
	if [ -s "$T/local/state/reports/$day/$f" ]; then ok "... the dated folder has $f"; else notok "... the dated folder has $f" "$(ls -l "$T/local/state/reports/$day" 2>&1)"; fi
done
if play run-now.yml "$T/inventory.yml"; then ok "run-now.yml again: a second campaign"; else play_failed "run-now.yml again: a second campaign"; fi
expect_eq "... compared against the first" \
	"$(sql "$T/local/state/results.db" "select count(*) from campaign where status = 'done'")" "2"
expect_grep "... the report names the previous campaign" "$T/local/state/reports/$day/report.txt" \
	"against      $(sql "$T/local/state/results.db" "select uuid from campaign order by started_ns limit 1")"

if play site.yml "$T/inventory.yml"; then ok "site.yml again"; else play_failed "site.yml again"; fi
expect_eq "... reports zero changes" "$changed" "0"
grep -E '^(localhost|PLAY RECAP)' "$T/play.out" | tail -n 1 | sed 's/^/# /'
installed >"$T/sums2"
if cmp -s "$T/sums1" "$T/sums2"; then ok "... installed files and units unchanged (checksums)"; else notok "... installed files and units unchanged (checksums)" "$(diff "$T/sums1" "$T/sums2")"; fi
