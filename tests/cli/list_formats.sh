# The report formats come from one registry (reports/registry.c): `vtbench
# list formats` shows them (text, TSV, JSON, -q), every format it lists is
# one `compare --format` takes and writes, each extension it lists makes
# `compare -o FILE.EXT` write that format, and a mistyped format names the
# known ones with the nearest.
. "$SRCDIR/tests/cli/lib.sh"
# text into a file or a pipe: COLUMNS, else the controlling terminal, else 80 columns
unset COLUMNS

expect_exit "list formats" 0 "$VTBENCH" list formats
expect_eq "list formats: a header row, then one row per format" \
	"$(awk '{print $1}' "$T/out" | tr '\n' ' ')" "NAME text md html json csv "
expect_grep "list formats shows the media type" "$T/out" "text/html; charset=utf-8"
expect_exit "list formats -q" 0 "$VTBENCH" list formats -q
expect_eq "list formats -q: the names alone" "$(tr '\n' ' ' <"$T/out")" "text md html json csv "
expect_exit "list formats --format tsv" 0 "$VTBENCH" list formats --format tsv
expect_eq "list formats --format tsv: the JSON keys as header" "$(head -n 1 "$T/out")" \
	"$(printf 'name\textensions\tmedia_type\tsummary')"
expect_exit "list formats --format json" 0 "$VTBENCH" list formats --format json
cp "$T/out" "$T/formats.json"
if command -v python3 >/dev/null 2>&1; then
	got=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "vtbench-list/1" and d["list"] == "formats", d
print(" ".join("%s:%s" % (r["name"], ",".join(r["extensions"].split())) for r in d["rows"]))' "$T/formats.json")
	expect_eq "list formats --format json: names and extensions" "$got" \
		"text:.txt,.text md:.md,.markdown html:.html,.htm json:.json csv:.csv"
fi
expect_exit "list formts: a typo exits 2" 2 "$VTBENCH" list formts
expect_grep "... and suggests formats" "$T/err" "unknown list 'formts' (did you mean 'formats'?)"

# every listed format through compare, by name and by each extension
MKFIXTURE=$(dirname "$VTBENCH")/tests/tools/mkfixture
"$MKFIXTURE" "$T/f.db" base 2>"$T/err" || notok "mkfixture base" "$(cat "$T/err")"
"$VTBENCH" list formats --format tsv | tail -n +2 | while IFS="$(printf '\t')" read -r name exts media summary; do
	expect_exit "compare --format $name" 0 "$VTBENCH" compare --db "$T/f.db" --fail-on none \
		--format "$name" || continue
	mv "$T/out" "$T/by-name.$name"
	for e in $exts; do
		expect_exit "compare -o r$e" 0 "$VTBENCH" compare --db "$T/f.db" --fail-on none \
			-o "$T/r$e" || continue
		expect_eq "compare -o r$e writes $name" \
			"$(cmp -s "$T/r$e" "$T/by-name.$name" && echo same)" same
	done
done
expect_exit "compare --format jsno exits 2" 2 "$VTBENCH" compare --db "$T/f.db" --format jsno
expect_grep "... naming the formats and the nearest" "$T/err" \
	"unknown value 'jsno' for --format: expected text, md, html, json or csv (did you mean 'json'?)"
