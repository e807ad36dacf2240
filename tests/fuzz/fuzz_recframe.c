/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the record parser past its framing.  Each input line is the
 * JSON of one record, framed with the boot's nonce and a valid CRC-32
 * (vtb_rec_frame), so mutations reach the schema checks, chunk
 * reassembly, histograms and guest records; a line starting with '!' goes
 * raw (console noise, broken frames).  Then the parser's promises
 * (rec_check.h).
 */
#include <stdlib.h>
#include <string.h>

#include "../../common/record.h"
#include "rec_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size;
	struct vtb_rec_parser *p = vtb_rec_parser_new("c0ffee", NULL);

	if (!p)
		return 0;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		if (n && s[0] == '!') {
			vtb_rec_parser_feed(p, s + 1, n - 1);
			vtb_rec_parser_feed(p, "\n", 1);
		} else {
			char *json = strndup(s, n), *line;

			/* a NUL would end the JSON text early: framed as it is */
			line = json ? vtb_rec_frame("c0ffee", json) : NULL;
			if (line)
				vtb_rec_parser_feed(p, line, strlen(line));
			free(line);
			free(json);
		}
		s += n + 1;
	}
	vtb_rec_parser_finish(p);
	check_result(vtb_rec_parser_result(p), &vtb_rec_default_limits);
	vtb_rec_parser_free(p);
	return 0;
}
