/* SPDX-License-Identifier: MIT */
/*
 * The notes every report carries whatever its document and format:
 * compare's and recommend's text, Markdown and HTML say the TCG note in
 * these words, from this one place (report.h).
 */
#include <string.h>

#include "report.h"

const char vtb_report_tcg_note[] = "guests ran under TCG (software emulation): these ratios "
				   "measure QEMU's emulator, not virtualization overhead";

bool vtb_report_ran_tcg(const json_t *camp)
{
	const char *a = json_string_value(json_object_get(camp, "accelerators"));

	return a && strstr(a, "tcg");
}
