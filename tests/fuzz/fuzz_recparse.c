/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the record parser on a raw stream, as a guest's serial port
 * delivers it: the bytes fed in pieces whose size the first byte chooses
 * (its low bit: default or tight limits); then its promises
 * (rec_check.h).  Random bytes rarely frame a record with the right CRC:
 * fuzz_recframe.c frames them.
 */
#include "rec_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct vtb_rec_limits tight = {
		.max_line = 4096,
		.max_records = 500,
		.max_errors = 20,
		.max_payload = 1 << 16,
		.max_total = 1 << 20,
	};
	const struct vtb_rec_limits *lim;
	struct vtb_rec_parser *p;
	size_t step;

	if (!size)
		return 0;
	step = data[0] >> 1 ? data[0] >> 1 : 1 << 16;
	lim = data[0] & 1 ? &tight : &vtb_rec_default_limits;
	p = vtb_rec_parser_new("c0ffee", lim);
	if (!p)
		return 0;
	for (size_t off = 1; off < size; off += step)
		vtb_rec_parser_feed(p, data + off, size - off < step ? size - off : step);
	vtb_rec_parser_finish(p);
	check_result(vtb_rec_parser_result(p), lim);
	vtb_rec_parser_free(p);
	return 0;
}
