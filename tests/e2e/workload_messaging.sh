# messaging (hackbench model): --help names the reference, the hackbench
# flags work by hand, limits and bad values are refused, a failed start
# leaves nothing behind, and a tiny bare-metal matrix over the four modes
# stores one plausible `seconds` per cell.
. "$SRCDIR/tests/cli/lib.sh"

expect_exit "messaging --help exits 0" 0 "$AGENT" messaging --help
expect_grep "--help names the reference model" "$T/out" "rt-tests hackbench"
expect_grep "--help shows hackbench's default groups" "$T/out" "default 10"
expect_grep "--help shows --pipe" "$T/out" "-p, --pipe"
expect_grep "--help shows --threads" "$T/out" "-T, --threads"

expect_exit "hackbench's flags by hand: -p -T" 0 "$AGENT" messaging -g 1 -f 2 -l 10 -p -T
expect_grep "-p -T runs threads over pipes" "$T/out" "threaded mode, pipes"
expect_grep "the time is printed as hackbench does" "$T/out" "Time: "
expect_exit "long flags with records: --pipe --threads" 0 "$AGENT" messaging --groups 1 --fds 2 --loops 10 --pipe --threads --records
expect_grep "the cell ends ok" "$T/out" '"status":"ok"'
expect_grep "the mode is recorded" "$T/out" '"mode":"thread"'
expect_grep "the transport is recorded" "$T/out" '"transport":"pipe"'
expect_grep "one seconds sample, lower is better" "$T/out" '"metric":"seconds","unit":"s"'
expect_exit "--threads=no is hackbench's -P" 0 "$AGENT" messaging -g 1 -f 2 -l 10 --threads=no
expect_grep "--threads=no forks processes" "$T/out" "process mode, AF_UNIX socket pairs"

expect_exit "zero groups is a usage error" 2 "$AGENT" messaging --groups 0
expect_grep "the error names groups" "$T/err" "groups"
expect_exit "an unknown option is a usage error" 2 "$AGENT" messaging --grups 2
expect_grep "the error suggests the option" "$T/err" "did you mean 'groups'"
expect_exit "too few open files fails before starting" 1 sh -c "ulimit -n 64 && exec \"\$0\" messaging --threads" "$AGENT"
expect_grep "the error names RLIMIT_NOFILE" "$T/err" "RLIMIT_NOFILE"

# A start that fails half way (test hook) kills and reaps what it started.
expect_exit "a failed start exits 1" 1 "$AGENT" messaging -g 3 -f 4 -l 777123 fail_after=13
expect_grep "the failure is reported" "$T/err" "test hook"
sleep 0.2
if pgrep -f -- "-l 777123" >/dev/null 2>&1; then notok "no task outlives a failed start" "$(pgrep -af -- '-l 777123')"; else ok "no task outlives a failed start"; fi

need sqlite3 || exit 0
cat >"$T/m.conf" <<'CONF'
[global]
reps = 1
[baseline]
cpus = $host_cpus
[workload hb]
type = messaging
groups = 2
fds = 4
loops = 50
threads = no, yes
pipe = no, yes
CONF
expect_exit "run exits 0" 0 "$VTBENCH" run "$T/m.conf" --db "$T/r.db" --quiet
got=$(sql "$T/r.db" "select count(*) from result where status = 'ok'")
expect_eq "four cells ok" "$got" "4"
got=$(sql "$T/r.db" "select count(*) from sample where metric = 'seconds' and unit = 's' and better = 'lower' and value > 0 and value < 60")
expect_eq "one plausible seconds sample per cell" "$got" "4"
got=$(sql "$T/r.db" "select group_concat(m, ' ') from (select json_extract(info, '\$.mode') || '+' || json_extract(info, '\$.transport') as m from result order by m)")
expect_eq "the four modes ran" "$got" "process+pipe process+socket thread+pipe thread+socket"
got=$(sql "$T/r.db" "select distinct json_extract(info, '\$.tasks') || ' ' || json_extract(info, '\$.messages') from result")
expect_eq "tasks and messages are stored" "$got" "16 1600"
