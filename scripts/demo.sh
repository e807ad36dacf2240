#!/bin/sh
# make demo: run the embedded default matrix on this machine's bare metal
# and print the comparison table.
set -eu
BUILD=${1:-build}
DB=${DEMO_DB:-$BUILD/demo.db}
rm -f "$DB" "$DB-wal" "$DB-shm"
echo "== vtbench plan examples/quick.conf"
"$BUILD/vtbench" plan examples/quick.conf
echo
echo "== vtbench run examples/quick.conf --db $DB"
rc=0
"$BUILD/vtbench" run examples/quick.conf --db "$DB" || rc=$?
echo
echo "== vtbench compare --db $DB"
"$BUILD/vtbench" compare --db "$DB"
echo
echo "database: $DB (sqlite3 $DB .tables)"
exit "$rc"
