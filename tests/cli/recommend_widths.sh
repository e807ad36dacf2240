# recommend's text at every width, as compare's (tests/cli/compare_widths.sh,
# docs/reports.md#widths): COLUMNS from 1 to 400, and 0, -5, abc and huge
# ones, on the generated race (mkfixture race) and on a copy of it with
# long names (labels of some 450 characters with a word of 400, a unit of
# 153, a metric of 85, a host name of 200, a matrix path of 800, a sched
# cmdline token of 400; edited with sqlite3 as anyone can edit a
# database).  Before, recommend wrote lines of 265 characters whatever
# the terminal.  Each run has a hang guard and a memory cap; checked:
# exit 0 at every width (nothing crashes, whatever the width), some
# output, every line within W = max(COLUMNS, 40) (the documented
# minimum: below it the text is laid out for 40, so every line is within
# the width from 40 on), and a COLUMNS that is not a width is ignored.
# Under ASan every 8th width and those around 40.
. "$SRCDIR/tests/cli/lib.sh"
cd "$SRCDIR" || exit 1

unset COLUMNS
need sqlite3 || exit 0
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
	exit 1
fi
"$MKFIXTURE" "$T/fx.db" race 2>"$T/err" || notok "mkfixture race" "$(cat "$T/err")"
cp "$T/fx.db" "$T/long.db"
# hex(zeroblob(N)) is 2N zeros: N-character runs without a blank
sql "$T/long.db" "
UPDATE config SET label = label || ' ' || replace(hex(zeroblob(200)), '0', 'L') || ' tail';
UPDATE race SET objective = json_set(objective,
	'\$[0].unit', 'u' || replace(hex(zeroblob(50)), '0', 'n') || 'it' ||
		replace(hex(zeroblob(24)), '0', 'x') || '/s',
	'\$[0].metric', 'request_p99_' || replace(hex(zeroblob(36)), '0', 'm'));
UPDATE host SET hostname = replace(hex(zeroblob(100)), '0', 'h');
UPDATE campaign SET matrix_path = '/' || replace(hex(zeroblob(400)), '0', 'd') || '/m.conf';
UPDATE boot SET sched = replace(sched, 'isolcpus=1', 'isolcpus=' || replace(hex(zeroblob(200)), '0', '1'))
	WHERE sched IS NOT NULL;
" 2>"$T/err" || notok "the long names are stored" "$(cat "$T/err")"

case $(ldd "$VTBENCH" 2>/dev/null) in
*libasan*)
	vmem=""
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1024"
	export ASAN_OPTIONS
	range=$(seq 1 400 | awk '$1 % 8 == 0 || $1 == 1 || ($1 >= 38 && $1 <= 42)')
	;;
*)
	vmem=524288 # KiB
	# every width where layouts change (up to 200), then every 4th to 400:
	# 800 runs took half a minute of CI's longer lane
	range=$(seq 1 400 | awk '$1 <= 200 || $1 % 4 == 0 || $1 == 399')
	;;
esac
widths="$range 0 -5 abc 10000 10001 99999999999999999999"

for db in fx long; do
	mkdir -p "$T/$db"
	(
		# shellcheck disable=SC3045
		[ -z "$vmem" ] || ulimit -v "$vmem"
		# setsid: no controlling terminal, whose width would be the default
		timeout 20 setsid -w "$VTBENCH" recommend --db "$T/$db.db" >"$T/$db/default" \
			2>"$T/$db/default.err"
		echo "default $?"
		for w in $widths; do
			COLUMNS=$w timeout 20 setsid -w "$VTBENCH" recommend --db "$T/$db.db" \
				>"$T/$db/$w" 2>"$T/$db/$w.err"
			rc=$?
			echo "$w $rc"
			[ "$rc" -eq 0 ] || break
		done
	) >"$T/$db.rc"
	bad=$(awk '$2 != 0 { print; exit }' "$T/$db.rc")
	runs=$(($(wc -l <"$T/$db.rc") - 1))
	if [ -z "$bad" ] && [ "$runs" -eq "$(echo "$widths" | wc -w)" ]; then
		ok "recommend text $db: exit 0 at every width (COLUMNS 1..400, 0, -5, abc, huge; $runs runs)"
	else
		# shellcheck disable=SC2086 # "WIDTH RC"
		set -- $bad
		notok "recommend text $db: exit 0 at every width (COLUMNS 1..400, 0, -5, abc, huge)" \
			"COLUMNS=${1:-?}: exit ${2:-?} (124: hung, killed after 20 s; 134/139: crashed)" \
			"$(head -c 600 "$T/$db/${1:-none}.err" 2>/dev/null)"
		continue
	fi
	# W: COLUMNS from 1 to 10000, at least 40; else the default, 80 (no
	# terminal here).  mawk counts bytes: the text is ASCII
	# shellcheck disable=SC2086 # a file per width
	long=$(cd "$T/$db" && awk '
		FNR == 1 {
			name = FILENAME
			W = name ~ /^[0-9]+$/ && name + 0 >= 1 && name + 0 <= 10000 ? name + 0 : 80
			if (W < 40) W = 40
		}
		length($0) > W {
			printf "COLUMNS=%s: a line of %d > %d: %.60s...\n", name, length($0), W, $0
		}
	' $widths | head -n 5)
	for w in $widths; do
		[ -s "$T/$db/$w" ] || long="$long
COLUMNS=$w: no output"
	done
	if [ -z "$long" ]; then
		ok "recommend text $db: output, every line within max(COLUMNS, 40)"
	else
		notok "recommend text $db: output, every line within max(COLUMNS, 40)" "$long"
	fi
	same=""
	for w in 0 -5 abc 10001 99999999999999999999; do
		cmp -s "$T/$db/$w" "$T/$db/default" || same="$same $w"
	done
	expect_eq "recommend text $db: COLUMNS that is not a width is ignored" "$same" ""
done

# the long fields are cut where shown (labels to 512 columns, names and
# units to 64), the cut said by '~'; JSON keeps them whole
unit=$(sql "$T/long.db" "SELECT json_extract(objective, '\$[0].unit') FROM race")
host=$(sql "$T/long.db" "SELECT hostname FROM host LIMIT 1")
COLUMNS=400 "$VTBENCH" recommend --db "$T/long.db" >"$T/long.txt" 2>"$T/err"
"$VTBENCH" recommend --db "$T/long.db" --format json >"$T/long.json" 2>"$T/err"
if [ -s "$T/long.txt" ] && ! grep -qF -e "$unit" -e "$host" "$T/long.txt" &&
	grep -qF "\"unit\": \"$unit\"" "$T/long.json"; then
	ok "recommend text: a unit of 153 characters and a host name of 200 cut where shown, whole in JSON"
else
	notok "recommend text: a unit of 153 characters and a host name of 200 cut where shown, whole in JSON" \
		"$(grep -F -e "$unit" -e "$host" "$T/long.txt" | head -c 300)"
fi
expect_grep "recommend text: the cut said with ~" "$T/long.txt" "$(printf '%.63s~' "$host")"
