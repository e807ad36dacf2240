# membw cells whose arrays were below STREAM's 4 x LLC rule (size = auto
# cut to fit a guest) are said in compare's guest evidence, in every
# format: text, Markdown, JSON ("notes" per VM configuration and the
# document's "stream_rule", baselines included) and the HTML report.  The
# fixture is mkfixture's "stream" variant: 207 MiB arrays against 4 x 1016
# MiB of LLC in every boot of a baseline and three VM configurations.
. "$SRCDIR/tests/cli/lib.sh"
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
	exit 0
fi
"$MKFIXTURE" "$T/s.db" stream || { notok "mkfixture stream" "exit $?"; exit 0; }
"$MKFIXTURE" "$T/b.db" base || { notok "mkfixture base" "exit $?"; exit 0; }
note="stream (membw): arrays of 207MiB, 5.1% of STREAM's 4 x LLC (4.0GiB): below the rule in 5 boots"

# wide enough that the note is one line (text folds at COLUMNS)
expect_exit "compare (text) of arrays below the rule" 1 env COLUMNS=200 "$VTBENCH" compare --db "$T/s.db"
expect_eq "text: a note in each VM configuration's evidence" \
	"$(grep -cF "  note     $note" "$T/out")" "3"
expect_exit "compare (md)" 1 "$VTBENCH" compare --db "$T/s.db" --format md
expect_eq "md: a note in each VM configuration's evidence" "$(grep -cF -- "- note $note" "$T/out")" "3"
expect_exit "compare (json)" 1 "$VTBENCH" compare --db "$T/s.db" --format json
if need python3; then
	python3 - "$T/out" >"$T/py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
notes = [e.get("notes") for e in d["evidence"]]
sr = d.get("stream_rule", [])
ok = (len(notes) == 3 and all(n and len(n) == 1 and "5.1% of STREAM's 4 x LLC" in n[0] for n in notes)
      and len(sr) == 4 and sorted(x["kind"] for x in sr) == ["baseline", "vm", "vm", "vm"]
      and all(x["array_bytes_max"] == 217055232 and x["rule_bytes"] == 4261412864
              and x["boots"] == 5 and x["cell"] == "stream" for x in sr))
print("ok" if ok else "bad: %r %r" % (notes, sr))
EOF
	expect_eq "json: evidence notes and stream_rule with every configuration, baseline included" \
		"$(cat "$T/py")" "ok"
fi
expect_exit "compare -o report.html" 1 "$VTBENCH" compare --db "$T/s.db" -o "$T/r.html"
expect_eq "html: the note under the evidence table, per VM configuration" \
	"$(grep -o 'class="note stream-rule"' "$T/r.html" | wc -l | tr -d ' ')" "3"
expect_grep "html: the note's text" "$T/r.html" "vm vcpus=2 topology=smt pinning=strict: $note"

# arrays that met the rule: nothing is said
expect_exit "compare (json) where the rule was met" 1 "$VTBENCH" compare --db "$T/b.db" --format json
if grep -q '"stream_rule"\|"notes"' "$T/out"; then notok "no stream notes where the rule was met" "$(grep -m3 'stream_rule\|notes' "$T/out")"; else ok "no stream notes where the rule was met"; fi
