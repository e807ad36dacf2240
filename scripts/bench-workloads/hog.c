/* SPDX-License-Identifier: MIT */
/*
 * hog: the CPU hog of scripts/bench-workloads/wakeup.sh's preemption test.
 * Every PERIOD_MS it busy-loops for BURST_MS (from the period's start, on
 * absolute CLOCK_MONOTONIC deadlines), for SECONDS in all.  The script runs
 * it under `chrt -f` and `taskset`, so each burst takes its CPU from every
 * SCHED_OTHER thread there for BURST_MS.
 *
 * usage: hog BURST_MS PERIOD_MS SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t burst, period, end, next;
	struct timespec ts;

	if (argc != 4 || atof(argv[1]) <= 0 || atof(argv[2]) < atof(argv[1]) ||
	    atof(argv[3]) <= 0) {
		fprintf(stderr, "usage: hog BURST_MS PERIOD_MS SECONDS (PERIOD_MS >= BURST_MS)\n");
		return 2;
	}
	burst = (uint64_t)(atof(argv[1]) * 1e6);
	period = (uint64_t)(atof(argv[2]) * 1e6);
	next = now_ns();
	end = next + (uint64_t)(atof(argv[3]) * 1e9);
	while (next < end) {
		while (now_ns() < next + burst)
			;
		next += period;
		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return 0;
}
