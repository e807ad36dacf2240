/* SPDX-License-Identifier: MIT */
/*
 * tailbench ROWS N B: times the tail statistic of compare -- per row
 * vtb_tail_compare() of the p99.9 of N vs N boots, B replicates -- and
 * prints "rows R n N B B seconds S peak_rss_kb K".  Each boot is a
 * realistic latency histogram (100,000 lognormal values in ns, median
 * 5 us, a slow 1% in some boots; bits 6: a few hundred non-empty
 * buckets); 64 such boots are made before the clock starts and the rows
 * draw their boots from them.  For scripts/bench-stats.sh.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../../common/hist.h"
#include "../../common/vtbutil.h"
#include "../../harness/compare/tails.h"

#define POOL 64
#define VALUES 100000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One boot: its histogram made sparse, as the loader keeps it. */
static int make_boot(gsl_rng *r, int slow, struct vtb_tail_boot *b)
{
	struct vtb_hist h;
	double *v;
	uint64_t *c;
	size_t n = 0;

	if (vtb_hist_init(&h, 6, "ns"))
		return -1;
	for (int i = 0; i < VALUES; i++) {
		double x = 5000 * exp(gsl_ran_gaussian(r, 0.4));

		if (slow && gsl_rng_uniform(r) < 0.01)
			x *= 10;
		vtb_hist_add(&h, (uint64_t)x);
	}
	v = malloc(h.n_buckets * sizeof(*v));
	c = malloc(h.n_buckets * sizeof(*c));
	if (!v || !c)
		return -1;
	for (size_t i = 0; i < h.n_buckets; i++)
		if (h.buckets[i]) {
			v[n] = (double)(vtb_hist_bucket_lo(6, i) +
					(vtb_hist_bucket_width(6, i) - 1) / 2);
			c[n++] = h.buckets[i];
		}
	*b = (struct vtb_tail_boot){ .v = v, .c = c, .n = n, .max = (double)h.max };
	vtb_hist_release(&h);
	return 0;
}

int main(int argc, char **argv)
{
	struct vtb_tail_boot pool[POOL], *side;
	struct rusage ru;
	size_t rows, n, B, buckets = 0;
	unsigned excluded = 0;
	double t0, t1;
	gsl_rng *r;

	if (argc != 4) {
		fprintf(stderr, "usage: tailbench ROWS N B\n");
		return 2;
	}
	rows = strtoul(argv[1], NULL, 10);
	n = strtoul(argv[2], NULL, 10);
	B = strtoul(argv[3], NULL, 10);
	if (!rows || !n || n > POOL / 2 || !B) {
		fprintf(stderr, "tailbench: ROWS and B must be positive, N in 1-%d\n", POOL / 2);
		return 2;
	}
	r = gsl_rng_alloc(gsl_rng_mt19937);
	side = malloc(2 * n * sizeof(*side));
	if (!r || !side) {
		fprintf(stderr, "tailbench: out of memory\n");
		return 3;
	}
	gsl_rng_set(r, 1);
	for (size_t i = 0; i < POOL; i++) {
		if (make_boot(r, i % 5 == 0, &pool[i])) {
			fprintf(stderr, "tailbench: out of memory\n");
			return 3;
		}
		buckets += pool[i].n;
	}

	t0 = now();
	for (size_t i = 0; i < rows; i++) {
		struct vtb_tail t;
		double lo, hi;

		for (size_t j = 0; j < 2 * n; j++)
			side[j] = pool[(i * 7 + j * 3) % POOL];
		if (vtb_tail_compare(side, n, side + n, n, 99.9, 0.05, B, i, &t)) {
			fprintf(stderr, "tailbench: %s\n", vtb_errmsg());
			return 3;
		}
		vtb_tail_interval(&t, 0.05, &lo, &hi);
		excluded += lo > 0 || hi < 0;
		vtb_tail_release(&t);
	}
	t1 = now();

	getrusage(RUSAGE_SELF, &ru);
	printf("rows %zu n %zu B %zu seconds %.3f peak_rss_kb %ld buckets_per_boot %zu excluded %u\n",
	       rows, n, B, t1 - t0, ru.ru_maxrss, buckets / POOL, excluded);
	for (size_t i = 0; i < POOL; i++) {
		free((void *)pool[i].v);
		free((void *)pool[i].c);
	}
	free(side);
	gsl_rng_free(r);
	return 0;
}
