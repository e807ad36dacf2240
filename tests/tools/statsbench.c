/* SPDX-License-Identifier: MIT */
/*
 * statsbench ROWS N: times the statistics of a compare table -- per row
 * two summaries and vtb_compare_samples() of N vs N synthetic per-boot
 * values (a time metric, CoV 2%), then BH and the verdicts over the table
 * -- and prints "rows N seconds peak_rss_kb worse".  The data are
 * generated before the clock starts.  For scripts/bench-stats.sh.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../../harness/compare/stats.h"
#include "../../common/vtbutil.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct vtb_test_opts o;
	struct vtb_comparison *c;
	struct rusage ru;
	double *v, *p, *q, t0, t1;
	size_t rows, n, i, j;
	unsigned worse = 0;
	gsl_rng *r;

	if (argc != 3) {
		fprintf(stderr, "usage: statsbench ROWS N\n");
		return 2;
	}
	rows = strtoul(argv[1], NULL, 10);
	n = strtoul(argv[2], NULL, 10);
	vtb_test_opts_default(&o);
	if (!rows || !n) {
		fprintf(stderr, "statsbench: ROWS and N must be positive\n");
		return 2;
	}
	v = malloc(rows * 2 * n * sizeof(*v));
	p = malloc(rows * sizeof(*p));
	q = malloc(rows * sizeof(*q));
	c = malloc(rows * sizeof(*c));
	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!v || !p || !q || !c || !r) {
		fprintf(stderr, "statsbench: out of memory\n");
		return 3;
	}
	gsl_rng_set(r, 1);
	for (i = 0; i < rows * 2 * n; i++)
		v[i] = 10 + gsl_ran_gaussian(r, 0.2) + (i % (2 * n) >= n && i % 7 == 0 ? 1 : 0);

	t0 = now();
	for (i = 0; i < rows; i++) {
		const double *b = v + i * 2 * n, *x = b + n;

		vtb_compare_samples(b, n, x, n, VTB_MC_TIME, &o, &c[i]);
		p[i] = c[i].p;
	}
	if (vtb_bh(p, rows, q)) {
		fprintf(stderr, "statsbench: %s\n", vtb_errmsg());
		return 3;
	}
	for (i = 0; i < rows; i++) {
		struct vtb_summary sb, sx;

		j = i * 2 * n;
		if (vtb_summarise(v + j, n, VTB_MC_TIME, &sb) ||
		    vtb_summarise(v + j + n, n, VTB_MC_TIME, &sx)) {
			fprintf(stderr, "statsbench: %s\n", vtb_errmsg());
			return 3;
		}
		c[i].q = q[i];
		worse += vtb_verdict(&c[i], false, &o, o.alpha) == VTB_V_WORSE;
	}
	t1 = now();

	getrusage(RUSAGE_SELF, &ru);
	printf("rows %zu n %zu seconds %.3f peak_rss_kb %ld worse %u\n", rows, n, t1 - t0,
	       ru.ru_maxrss, worse);
	gsl_rng_free(r);
	free(v);
	free(p);
	free(q);
	free(c);
	return 0;
}
