/* SPDX-License-Identifier: MIT */
/*
 * A change in percent, written one way by every report (report.h): text,
 * Markdown and HTML of compare and recommend print the same figure for
 * the same number, so a huge interval end reads "+1.47e+15%" in all of
 * them (the JSON's 1.47e15), never a clamped "+1000000000.0%" in one.
 */
#include <math.h>
#include <stdio.h>

#include "report.h"

struct vtb_pct vtb_report_pct(double v)
{
	struct vtb_pct p;

	if (!isfinite(v))
		snprintf(p.s, sizeof(p.s), "-");
	else if (fabs(v) >= VTB_REPORT_PCT_EXP)
		snprintf(p.s, sizeof(p.s), "%+.3g%%", v);
	else
		snprintf(p.s, sizeof(p.s), "%+.1f%%", v);
	return p;
}
