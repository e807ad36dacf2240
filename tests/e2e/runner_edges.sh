# Edge cases of the bare-metal runner, with stand-in agents (shell scripts
# around the real one): a stop while the agent holds no pipe, a workload
# that leaves a process holding the pipes, an agent that escapes its CPUs,
# and a closed stdout (vtbench run | head).
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
REAL=$(cd "$(dirname "$AGENT")" && pwd)/$(basename "$AGENT")

cat >"$T/m.conf" <<'CONF'
[global]
reps = 2
timeout = 20s
[baseline]
cpus = 1
[workload probe]
type = debug
mode = ok
CONF

# 1. SIGINT while the agent has closed its output and still runs; the
# stand-in marks the end of its 30 s, which a prompt stop never lets come
# (no timing: the mark tells whether the run waited for the agent)
printf '#!/bin/sh\nexec >/dev/null 2>&1\nsleep 30\n: >"%s/mute.ended"\n' "$T" >"$T/mute"
chmod +x "$T/mute"
# (a background job of a script starts with SIGINT ignored, and vtbench
# keeps an inherited SIG_IGN: perl restores the default first)
VTBENCH_AGENT="$T/mute" perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die' \
	"$VTBENCH" run "$T/m.conf" --db "$T/mute.db" --quiet >"$T/out" 2>"$T/err" &
pid=$!
# once the agent runs (the campaign stored, the runner holding the
# signals): a fixed sleep loses that race on a loaded machine
i=0
while ! pgrep -f "^/bin/sh $T/mute" >/dev/null && [ $i -lt 1200 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -INT $pid
wait $pid; rc=$?
expect_eq "a stop is honoured while the agent holds no pipe (exit 130)" "$rc" "130"
if [ -e "$T/mute.ended" ]; then notok "... promptly" "the run waited for the agent's end"; else ok "... promptly (before the agent's end)"; fi
expect_eq "... campaign interrupted, no boot stored" \
	"$(sql "$T/mute.db" "select status || ' ' || (select count(*) from boot) from campaign")" "interrupted 0"

# 2. the workload leaves a process holding the pipes: the agent's exit ends the boot
# the leftover's command line is this test's own (sleep 30.PID): another
# run may run beside this one
# (it marks its end: no mark when the run returns means it did not wait)
printf '#!/bin/sh\n(sleep 30.%s; : >"%s/leftover.ended") &\nexec "%s" "$@"\n' "$$" "$T" "$REAL" >"$T/leaky"
chmod +x "$T/leaky"
expect_exit "an agent whose leftover child holds the pipes is judged by its exit" 0 \
	env VTBENCH_AGENT="$T/leaky" "$VTBENCH" run "$T/m.conf" --db "$T/leaky.db" --quiet
expect_eq "... both boots ok" "$(sql "$T/leaky.db" "select group_concat(status) from boot")" "ok,ok"
if [ -e "$T/leftover.ended" ]; then notok "... without waiting for the leftover" "the run waited for the leftover's end"; else ok "... without waiting for the leftover"; fi
if pgrep -f "^sleep 30\.$$\$" >/dev/null; then notok "... the leftover was killed with the group"; else ok "... the leftover was killed with the group"; fi

# 3. confinement is verified from what the agent reports
if [ "$(nproc)" -ge 2 ]; then
	first=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | cut -d, -f1 | cut -d- -f1)
	other=$(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' | sed 's/-.*//' | grep -vx "$first" | head -n 1)
	[ -n "$other" ] || other=$((first + 1))
	printf '#!/bin/sh\nexec taskset -c %s "%s" "$@"\n' "$other" "$REAL" >"$T/escape"
	chmod +x "$T/escape"
	expect_exit "an agent that escapes its CPUs fails the boot" 1 \
		env VTBENCH_AGENT="$T/escape" "$VTBENCH" run "$T/m.conf" --db "$T/esc.db" --quiet
	got=$(sql "$T/esc.db" "select error from boot limit 1")
	case "$got" in
	"the agent ran on CPUs $other, not on the configuration's CPUs $first") ok "... and says where it ran" ;;
	*) notok "... and says where it ran" "$got" ;;
	esac
else
	skip "confinement check" "needs 2 CPUs"
fi

# 4. a closed stdout does not kill the run half-way
"$VTBENCH" run "$T/m.conf" --db "$T/pipe.db" | head -c 1 >/dev/null
expect_eq "vtbench run | head: every boot stored, campaign closed" \
	"$(sql "$T/pipe.db" "select status || ' ' || (select count(*) from boot) from campaign")" "done 2"

# 5. an agent that skips a cell of its job does not make an ok boot
cat >"$T/two.conf" <<'CONF'
[global]
reps = 1
[baseline]
cpus = 1
[workload first]
type = debug
mode = ok
[workload second]
type = debug
mode = sleep
seconds = 0.01
CONF
cat >"$T/skipper" <<PERL
#!/usr/bin/perl
# drops the last cell of the job, then runs the real agent on the rest
use JSON::PP;
open(my \$in, '<', '/dev/fd/3') or die;
my \$job = decode_json(do { local \$/; <\$in> });
pop @{\$job->{cells}};
open(my \$out, '>', "$T/short.json") or die;
print \$out encode_json(\$job);
close \$out;
exec '$REAL', '--job', "$T/short.json", '--records';
PERL
chmod +x "$T/skipper"
expect_exit "a skipped cell fails the boot" 1 env VTBENCH_AGENT="$T/skipper" "$VTBENCH" run "$T/two.conf" --db "$T/skip.db" --quiet
got=$(sql "$T/skip.db" "select error from boot")
case "$got" in "cell 'second' ("*") reported nothing") ok "... naming the cell" ;; *) notok "... naming the cell" "$got" ;; esac
expect_eq "... its result is stored as missing, the other as ok" \
	"$(sql "$T/skip.db" "select group_concat(c.name || ':' || r.status) from result r join cell c on c.id = r.cell_id order by c.id")" "first:ok,second:missing"
