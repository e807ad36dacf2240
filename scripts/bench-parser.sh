#!/bin/sh
# make bench: the record parser's figure (never an assertion).  A guest
# chooses its cell keys: 80 000 cells and their samples with keys that all
# fell in one probe chain of the former unkeyed FNV-1a tables, against
# random keys, through vtb_rec_parser_feed() with the parser's real random
# key (issue 25: 80 000 colliding cells took 124 s, random ones 0.25 s).
# Goal: colliding within 2x of random.  BENCH_PARSER_N and BENCH_PARSER_REPS
# change the size and the repetitions.
set -eu
BUILD=${1:-build}
"$BUILD/tests/tools/parsebench" -n "${BENCH_PARSER_N:-80000}" -r "${BENCH_PARSER_REPS:-3}"
