# compare's text at every width (issue 25): COLUMNS from 1 to 400, and 0,
# -5, abc and huge ones, on the generated fixture (mkfixture base clean)
# and on a copy of it with long names (metrics of 85 characters, a unit
# of 153, cell names of 86, labels of some 450 with a word of 400, a host
# name of 200, a matrix path of 800; edited with sqlite3 as anyone can
# edit a database).  The old layout wrapped a width below zero (the
# fixture at COLUMNS=53 and below, the long names at any width) and
# padded forever, growing without bound: each run has a hang guard
# (timeout) and a memory cap (ulimit -v; under ASan, whose shadow memory
# no such cap allows, its hard_rss_limit_mb), and the first run that
# fails ends the loop.  What is checked is the promise of
# docs/reports.md#widths: exit 0 or 1 (compare's, the same at every
# width), some output, every line of prose within W = max(COLUMNS, 40),
# every line of a table within max(W, 86); a COLUMNS that is not a width
# (0, -5, abc, over 10000) is ignored: the report is the one without it.
# A run takes some 30 ms of CPU (half of it starting vtbench), the 800 of
# them 20 s; under ASan five times as much, so that pass takes every 8th
# width and those around 40 (it looks for memory errors, which the
# layout's code meets at any width; test_report takes every width from 0
# to 130 in one process under ASan too).
. "$SRCDIR/tests/cli/lib.sh"
cd "$SRCDIR" || exit 1

unset COLUMNS
need sqlite3 || exit 0
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
	exit 1
fi
"$MKFIXTURE" "$T/fx.db" base clean 2>"$T/err" || notok "mkfixture base clean" "$(cat "$T/err")"
cp "$T/fx.db" "$T/long.db"
# hex(zeroblob(N)) is 2N zeros: N-character runs without a blank
sql "$T/long.db" "
UPDATE sample SET unit = 'u' || replace(hex(zeroblob(50)), '0', 'n') || 'it' ||
	replace(hex(zeroblob(24)), '0', 'x') || '/s';
UPDATE sample SET metric = metric || '_' || replace(hex(zeroblob(40)), '0', 'm');
UPDATE histogram SET metric = metric || '_' || replace(hex(zeroblob(40)), '0', 'm');
UPDATE cell SET name = name || '-' || replace(hex(zeroblob(40)), '0', 'c');
UPDATE config SET label = label || ' ' || replace(hex(zeroblob(200)), '0', 'L') || ' tail';
UPDATE host SET hostname = replace(hex(zeroblob(100)), '0', 'h'),
	kernel = replace(hex(zeroblob(60)), '0', 'k'),
	cpu_model_name = replace(hex(zeroblob(60)), '0', 'p');
UPDATE campaign SET matrix_path = '/' || replace(hex(zeroblob(400)), '0', 'd') || '/m.conf';
" 2>"$T/err" || notok "the long names are stored" "$(cat "$T/err")"

case $(ldd "$VTBENCH" 2>/dev/null) in
*libasan*)
	vmem=""
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1024"
	export ASAN_OPTIONS
	range=$(seq 1 400 | awk '$1 % 8 == 0 || $1 == 1 || ($1 >= 38 && $1 <= 42)')
	;;
*)
	vmem=524288 # KiB: a run takes some 20 MB, and 128 MiB of mappings
	range=$(seq 1 400)
	;;
esac
widths="$range 0 -5 abc 10000 10001 99999999999999999999"

# every run of compare under the cap and the hang guard (dash and bash
# have ulimit -v)
# shellcheck disable=SC3045
capped() { ( [ -z "$vmem" ] || ulimit -v "$vmem"; exec timeout 20 "$@" ); }

for db in fx long; do
	mkdir -p "$T/$db"
	# one subshell for the loop: the cap holds for every run in it; the
	# exit code without COLUMNS first, which every width must give
	(
		# shellcheck disable=SC3045
		[ -z "$vmem" ] || ulimit -v "$vmem"
		# setsid: no controlling terminal, whose width would be the default
		timeout 20 setsid -w "$VTBENCH" compare --db "$T/$db.db" >"$T/$db/default" \
			2>"$T/$db/default.err"
		want=$?
		echo "default $want"
		[ "$want" -le 1 ] || exit 0
		for w in $widths; do
			COLUMNS=$w timeout 20 setsid -w "$VTBENCH" compare --db "$T/$db.db" \
				>"$T/$db/$w" 2>"$T/$db/$w.err"
			rc=$?
			echo "$w $rc"
			[ "$rc" -eq "$want" ] || break
		done
	) >"$T/$db.rc"
	want=$(awk '$1 == "default" { print $2 }' "$T/$db.rc")
	bad=$(awk -v want="$want" '$2 != want || $2 > 1 { print; exit }' "$T/$db.rc")
	runs=$(($(wc -l <"$T/$db.rc") - 1))
	if [ -z "$bad" ] && [ "$runs" -eq "$(echo "$widths" | wc -w)" ]; then
		ok "compare text $db: exit $want at every width (COLUMNS 1..400, 0, -5, abc, huge; $runs runs)"
	else
		# shellcheck disable=SC2086 # "WIDTH RC"
		set -- $bad
		notok "compare text $db: exit 0 or 1 at every width (COLUMNS 1..400, 0, -5, abc, huge)" \
			"COLUMNS=${1:-?}: exit ${2:-?} (124: hung, killed after 20 s; 134/139: crashed; want that of the default, 0 or 1)" \
			"$(head -c 600 "$T/$db/${1:-none}.err" 2>/dev/null)"
		continue
	fi
	# W: COLUMNS from 1 to 10000, at least 40; else the default, 80
	# (no terminal here); a table from its "metric" or "config" header
	# line to the next blank line (mawk counts bytes: the text is ASCII)
	# shellcheck disable=SC2086 # a file per width
	long=$(cd "$T/$db" && awk '
		FNR == 1 {
			name = FILENAME
			W = name ~ /^[0-9]+$/ && name + 0 >= 1 && name + 0 <= 10000 ? name + 0 : 80
			if (W < 40) W = 40
			table = 0
		}
		/^(metric|config)  / { table = 1 }
		/^$/ { table = 0 }
		{
			max = table ? (W > 86 ? W : 86) : W
			if (length($0) > max)
				printf "COLUMNS=%s: a %s line of %d > %d: %.60s...\n", name,
					table ? "table" : "prose", length($0), max, $0
		}
	' $widths | head -n 5)
	for w in $widths; do
		[ -s "$T/$db/$w" ] || long="$long
COLUMNS=$w: no output"
	done
	if [ -z "$long" ]; then
		ok "compare text $db: output, prose within max(COLUMNS, 40), tables within max(COLUMNS, 86)"
	else
		notok "compare text $db: output, prose within max(COLUMNS, 40), tables within max(COLUMNS, 86)" \
			"$long"
	fi
	same=""
	for w in 0 -5 abc 10001 99999999999999999999; do
		cmp -s "$T/$db/$w" "$T/$db/default" || same="$same $w"
	done
	expect_eq "compare text $db: COLUMNS that is not a width is ignored" "$same" ""
done

# the long fields are cut where shown (64 columns for names and units,
# 512 for labels and paths), the cut said by '~'; JSON keeps them whole
unit=$(sql "$T/long.db" "SELECT unit FROM sample LIMIT 1")
host=$(sql "$T/long.db" "SELECT hostname FROM host LIMIT 1")
COLUMNS=400 capped "$VTBENCH" compare --db "$T/long.db" >"$T/long.txt" 2>"$T/err"
COLUMNS=400 capped "$VTBENCH" compare --db "$T/long.db" --format md >"$T/long.md" 2>"$T/err"
capped "$VTBENCH" compare --db "$T/long.db" --format json >"$T/long.json" 2>"$T/err"
for f in txt md; do
	if [ -s "$T/long.$f" ] && ! grep -qF -e "$unit" -e "$host" "$T/long.$f" &&
		grep -qF "\"unit\": \"$unit\"" "$T/long.json"; then
		ok "compare $f: a unit of 153 characters and a host name of 200 cut where shown, whole in JSON"
	else
		notok "compare $f: a unit of 153 characters and a host name of 200 cut where shown, whole in JSON" \
			"$(grep -F -e "$unit" -e "$host" "$T/long.$f" | head -c 300)"
	fi
done
expect_grep "compare text: the cut said with ~" "$T/long.txt" "$(printf '%.63s~' "$host")"

# list's text pads its columns: a host name of 200 is cut to 64 there;
# TSV keeps it whole
capped "$VTBENCH" list runs --db "$T/long.db" >"$T/runs" 2>"$T/err"
capped "$VTBENCH" list runs --db "$T/long.db" --format tsv >"$T/runs.tsv" 2>"$T/err"
expect_eq "list runs: a host name of 200 bytes cut to 64 with ~ in text, whole in TSV" \
	"$(awk 'NR == 2 { print index($0, "~") - index($0, "hhh") + 1 }' "$T/runs") $(
		awk -F '\t' 'NR == 2 { print length($5) }' "$T/runs.tsv")" "64 200"
