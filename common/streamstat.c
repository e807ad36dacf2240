/* SPDX-License-Identifier: MIT */
/*
 * STREAM's best rate and likwid-bench's mean rate from one kernel's
 * iteration times; see streamstat.h.
 */
#include <math.h>

#include "streamstat.h"
#include "vtbutil.h"

int vtb_stream_stat(const double *times, size_t n, double bytes, struct vtb_stream_stat *out)
{
	double best = INFINITY, worst = 0, sum = 0, avg;
	size_t i;

	if (n < 2)
		return vtb_error("%zu iterations: STREAM needs at least 2 (the first is left out)",
				 n);
	if (!(bytes > 0) || !isfinite(bytes))
		return vtb_error("a kernel moving %g bytes has no rate", bytes);
	/* STREAM: the first iteration is left out of every figure */
	for (i = 1; i < n; i++) {
		if (!(times[i] > 0) || !isfinite(times[i]))
			return vtb_error("iteration %zu took %g s: no measurable time", i + 1,
					 times[i]);
		sum += times[i];
		if (times[i] < best)
			best = times[i];
		if (times[i] > worst)
			worst = times[i];
	}
	avg = sum / (double)(n - 1);
	if (avg < best) /* rounding of equal times: the mean is never below the best */
		avg = best;
	out->best_s = best;
	out->avg_s = avg;
	out->max_s = worst;
	out->best_rate = 1e-6 * bytes / best;
	out->mean_rate = 1e-6 * bytes / avg;
	return 0;
}
