/* SPDX-License-Identifier: MIT */
/*
 * The figures of one STREAM kernel from its iteration times (the pure
 * part of workloads/membw.c, kept apart so unit tests can feed it a
 * known series).  Two readings of the same times:
 *
 *   best rate  STREAM's rule: bytes moved / the shortest time of
 *              iterations 2..N (the first is left out of every figure);
 *   mean rate  likwid-bench's reading: all the bytes moved / all the
 *              time, which is bytes moved / the mean time of iterations
 *              2..N (likwid times its whole loop of iterations at once
 *              and divides; its first iteration runs on touched pages,
 *              as our 2..N do).
 *
 * Rates are MB/s of 10^6 bytes.  The best rate is never below the mean
 * rate; on a quiet machine they differ by a few percent, on a busy one
 * the best picks the luckiest iteration.
 */
#ifndef VTB_STREAMSTAT_H
#define VTB_STREAMSTAT_H

#include <stddef.h>

struct vtb_stream_stat {
	double best_s, avg_s, max_s; /* over iterations 2..N, seconds */
	double best_rate;	     /* MB/s: bytes / best_s (STREAM) */
	double mean_rate;	     /* MB/s: bytes / avg_s (likwid-bench) */
};

/*
 * Fills @out from @times[0..n), the seconds each iteration of a kernel
 * moving @bytes took.  -1 with vtb_error() when n < 2, @bytes is not
 * positive, or a time of iterations 2..N is not a positive number;
 * @out is then untouched.
 */
int vtb_stream_stat(const double *times, size_t n, double bytes, struct vtb_stream_stat *out);

#endif
