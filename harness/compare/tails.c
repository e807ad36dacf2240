/* SPDX-License-Identifier: MIT */
/* The tail statistic (tails.h): the interval of a bootstrap row. */
#include "tails.h"

#include <math.h>
#include <stdlib.h>

void vtb_tail_interval(const struct vtb_tail *t, double a, double *dlo, double *dhi)
{
	size_t k = (size_t)ceil(a * (double)t->B / 2);

	if (k < 1)
		k = 1;
	if (k > t->k)
		k = t->k;
	*dlo = k ? t->lo[k - 1] : NAN;
	*dhi = k ? t->hi[k - 1] : NAN;
}

void vtb_tail_release(struct vtb_tail *t)
{
	free(t->lo);
	free(t->hi);
	t->lo = t->hi = NULL;
}
