/* SPDX-License-Identifier: MIT */
/*
 * Record parser against hostile streams: every malformed frame or record
 * becomes a bounded error string and parsing goes on; and a writer ->
 * parser round trip, including a chunked payload over 1 MiB fed in
 * random-sized pieces.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../harness/records/recparse.h"
#include "../../common/record.h"
#include "../../common/vtbutil.h"
#include "../tools/fnvkeys.h"

#define NONCE "c0ffee"

static struct vtb_rec_parser *P;

static void setup(void)
{
	P = vtb_rec_parser_new(NONCE, NULL);
	cr_assert_not_null(P);
}

static void teardown(void)
{
	vtb_rec_parser_free(P);
	P = NULL;
}

TestSuite(recparse, .init = setup, .fini = teardown);

static void feed(const char *s)
{
	vtb_rec_parser_feed(P, s, strlen(s));
}

/* Feeds one framed record with the parser's nonce. */
static void rec(const char *json)
{
	char *line = vtb_rec_frame(NONCE, json);

	cr_assert_not_null(line);
	feed(line);
	free(line);
}

static const struct vtb_boot_records *res(void)
{
	return vtb_rec_parser_result(P);
}

/* True when some error contains @needle. */
static bool has_error(const char *needle)
{
	const struct vtb_boot_records *r = res();
	size_t i;

	for (i = 0; i < r->n_errors; i++)
		if (strstr(r->errors[i], needle))
			return true;
	return false;
}

static void dump_errors(void)
{
	const struct vtb_boot_records *r = res();
	size_t i;

	for (i = 0; i < r->n_errors; i++)
		cr_log_info("error: %s", r->errors[i]);
}

#define HEADER "{\"type\":\"header\",\"schema\":1,\"agent\":\"t\"}"
#define HPARAMS "{\"kind\":\"loglinear\",\"bits\":6,\"unit\":\"us\"}"
#define CELL "{\"type\":\"cell\",\"cell\":\"k1\",\"workload\":\"membw\",\"params\":{}}"

static void good_stream(void)
{
	rec(HEADER);
	rec(CELL);
	rec("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"triad\",\"unit\":\"MB/s\",\"value\":12.5,\"better\":\"higher\"}");
	rec("{\"type\":\"hist\",\"cell\":\"k1\",\"metric\":\"lat\",\"unit\":\"us\",\"params\":{\"unit\":\"us\",\"kind\":\"loglinear\",\"bits\":6},\"count\":3,\"buckets\":[[1,2],[70,1]]}");
	rec("{\"type\":\"error\",\"cell\":\"k1\",\"message\":\"something odd\"}");
	rec("{\"type\":\"cell_end\",\"cell\":\"k1\",\"status\":\"ok\",\"seconds\":1.5,\"info\":{\"z\":1,\"a\":[1,2]}}");
	rec("{\"type\":\"end\",\"status\":\"ok\",\"cells\":1}");
}

Test(recparse, well_formed_stream_yields_every_record)
{
	const struct vtb_boot_records *r;

	good_stream();
	vtb_rec_parser_finish(P);
	r = res();
	dump_errors();
	cr_assert_not_null(r->header);
	cr_assert_eq(r->n_cells, 1);
	cr_assert_str_eq(r->cells[0].cell, "k1");
	cr_assert_str_eq(r->cells[0].workload, "membw");
	cr_assert_str_eq(r->cells[0].status, "ok");
	cr_assert_str_eq(r->cells[0].error, "something odd");
	cr_assert_float_eq(r->cells[0].seconds, 1.5, 1e-12);
	cr_assert_str_eq(r->cells[0].info_json, "{\"a\":[1,2],\"z\":1}");
	cr_assert_eq(r->n_samples, 1);
	cr_assert_str_eq(r->samples[0].metric, "triad");
	cr_assert_str_eq(r->samples[0].unit, "MB/s");
	cr_assert_float_eq(r->samples[0].value, 12.5, 1e-12);
	cr_assert_eq(r->samples[0].better, 1);
	cr_assert_eq(r->n_hists, 1);
	cr_assert_str_eq(r->hists[0].params_json,
			 "{\"bits\":6,\"kind\":\"loglinear\",\"unit\":\"us\"}");
	cr_assert_str_eq(r->hists[0].buckets_json, "[[1,2],[70,1]]");
	cr_assert(r->ended);
	cr_assert_str_eq(r->end_status, "ok");
	cr_assert_eq(r->records, 7);
	/* the agent's error record is kept, as an agent error */
	cr_assert_eq(r->n_errors, 1);
	cr_assert(has_error("agent: cell k1: something odd"));
}

Test(recparse, one_byte_at_a_time_gives_the_same_result)
{
	char *all = NULL;
	const char *lines[] = {
		HEADER, CELL,
		"{\"type\":\"cell_end\",\"cell\":\"k1\",\"status\":\"failed\",\"seconds\":0,\"error\":\"boom\"}",
		"{\"type\":\"end\",\"status\":\"failed\",\"cells\":1}"
	};
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(lines); i++) {
		char *l = vtb_rec_frame(NONCE, lines[i]);

		vtb_strbuf_addstr(&sb, "console noise\r\n");
		vtb_strbuf_addstr(&sb, l);
		free(l);
	}
	all = vtb_strbuf_detach(&sb);
	for (i = 0; all[i]; i++)
		cr_assert_eq(vtb_rec_parser_feed(P, all + i, 1), 0);
	vtb_rec_parser_finish(P);
	free(all);
	dump_errors();
	cr_assert_eq(res()->n_errors, 0);
	cr_assert_eq(res()->noise_lines, 4);
	cr_assert_str_eq(res()->cells[0].status, "failed");
	cr_assert_str_eq(res()->cells[0].error, "boom");
	cr_assert_str_eq(res()->cells[0].info_json, "{}");
	cr_assert_str_eq(res()->end_status, "failed");
}

Test(recparse, crlf_line_endings_are_accepted)
{
	char *l = vtb_rec_frame(NONCE, HEADER);

	l[strlen(l) - 1] = '\r';
	feed(l);
	feed("\n");
	free(l);
	cr_assert_not_null(res()->header);
	cr_assert_eq(res()->n_errors, 0);
}

Test(recparse, lines_without_the_magic_are_noise)
{
	feed("hello\n\n[ 1.0] vtb1 kernel\n@vt\n");
	vtb_rec_parser_finish(P);
	cr_assert_eq(res()->noise_lines, 4);
	cr_assert_eq(res()->n_errors, 0);
}

Test(recparse, another_framing_version_is_an_error)
{
	feed("@vtb2 " NONCE " {} 00000000\n");
	feed("@vtb1x\n");
	cr_assert_eq(res()->noise_lines, 0);
	cr_assert(has_error("unsupported record framing '@vtb2'"));
	cr_assert(has_error("unsupported record framing '@vtb1x'"));
}

Test(recparse, wrong_nonce_is_an_error)
{
	char *l = vtb_rec_frame("deadbeef", HEADER);

	feed(l);
	free(l);
	cr_assert_null(res()->header);
	cr_assert(has_error("nonce 'deadbeef', expected 'c0ffee'"));
}

/* A parser that compared only the nonce's length would pass the test
 * above: this nonce differs in one digit, not in length. */
Test(recparse, wrong_nonce_of_the_same_length_is_an_error)
{
	char *l = vtb_rec_frame("c0ffef", HEADER);

	feed(l);
	free(l);
	cr_assert_null(res()->header);
	cr_assert_eq(res()->records, 0);
	cr_assert(has_error("nonce 'c0ffef', expected 'c0ffee'"));
}

Test(recparse, crc_mismatch_is_an_error)
{
	char *l = vtb_rec_frame(NONCE, HEADER);
	size_t n = strlen(l);

	l[n - 2] = l[n - 2] == '0' ? '1' : '0';
	feed(l);
	free(l);
	cr_assert_null(res()->header);
	cr_assert(has_error("crc mismatch"));
}

Test(recparse, malformed_frames_are_errors)
{
	feed("@vtb1 " NONCE "\n");
	feed("@vtb1 " NONCE " {} 0000000\n");
	feed("@vtb1 " NONCE " {} 0000000G\n");
	feed("@vtb1 " NONCE " {} 0000000A\n");
	cr_assert_eq(res()->n_errors, 4);
	cr_assert(has_error("malformed record frame"));
	cr_assert(has_error("malformed record crc"));
}

Test(recparse, invalid_json_is_an_error)
{
	rec("{\"type\":\"header\",");
	rec("[1,2]");
	rec("{\"type\":\"header\",\"type\":\"cell\"}");
	cr_assert(has_error("invalid JSON in record"));
	cr_assert(has_error("record is not a JSON object"));
	cr_assert_eq(res()->n_errors, 3);
}

Test(recparse, missing_fields_and_wrong_types_are_errors)
{
	rec("{\"type\":\"header\",\"schema\":2}");
	rec("{\"type\":\"header\",\"schema\":\"1\"}");
	rec(CELL);
	rec("{\"cell\":\"k1\"}");
	rec("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"m\",\"value\":1,\"better\":\"higher\"}");
	rec("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"m\",\"unit\":\"u\",\"value\":\"12\",\"better\":\"higher\"}");
	rec("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"m\",\"unit\":\"u\",\"value\":1,\"better\":\"up\"}");
	rec("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"m\",\"unit\":\"u\",\"value\":1e999,\"better\":\"higher\"}");
	rec("{\"type\":\"cell_end\",\"cell\":\"k1\",\"status\":\"done\",\"seconds\":1}");
	rec("{\"type\":\"cell_end\",\"cell\":\"k1\",\"status\":\"ok\",\"seconds\":-1}");
	rec("{\"type\":\"cell_end\",\"cell\":\"k1\",\"status\":\"ok\",\"seconds\":1,\"info\":[]}");
	rec("{\"type\":\"hist\",\"cell\":\"k1\",\"metric\":\"m\",\"unit\":\"u\",\"params\":" HPARAMS
	    ",\"count\":1,\"buckets\":[[1]]}");
	rec("{\"type\":\"hist\",\"cell\":\"k1\",\"metric\":\"m\",\"unit\":\"u\",\"params\":" HPARAMS
	    ",\"count\":1,\"buckets\":[[1,-2]]}");
	rec("{\"type\":\"end\",\"status\":\"ok\",\"cells\":\"1\"}");
	rec("{\"type\":\"error\",\"cell\":5,\"message\":\"x\"}");
	dump_errors();
	cr_assert_eq(res()->n_samples, 0);
	cr_assert_eq(res()->n_hists, 0);
	cr_assert_null(res()->cells[0].status);
	cr_assert_not(res()->ended);
	cr_assert_null(res()->header);
	cr_assert_eq(res()->n_errors, 15); /* with "record before the header record" */
	cr_assert(has_error("record without a string 'type'"));
	cr_assert(has_error("field 'unit' missing or not a string"));
	cr_assert(has_error("field 'value' missing or not a number"));
	cr_assert(has_error("expected higher or lower"));
	cr_assert(has_error("status 'done', expected ok or failed"));
	cr_assert(has_error("negative 'seconds'"));
	cr_assert(has_error("field 'info' missing or not an object"));
	cr_assert(has_error("is not an [index, count] pair"));
	cr_assert(has_error("unsupported record schema 2"));
}

/* a unit is a short word a report shows in a column (VTB_REC_UNIT_MAX):
 * a longer one is refused, the record with it; one of 64 bytes is kept */
Test(recparse, units_over_64_bytes_are_refused)
{
	char *s[2], *h;

	rec(HEADER);
	rec(CELL);
	for (int k = 0; k < 2; k++) {
		s[k] = vtb_asprintf("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"m%d\","
				    "\"unit\":\"%0*d\",\"value\":1,\"better\":\"lower\"}",
				    k, 64 + k, 0);
		rec(s[k]);
	}
	h = vtb_asprintf("{\"type\":\"hist\",\"cell\":\"k1\",\"metric\":\"lat\",\"unit\":\"%0100d\","
			 "\"params\":" HPARAMS ",\"count\":1,\"buckets\":[[1,1]]}",
			 0);
	rec(h);
	dump_errors();
	cr_assert_eq(res()->n_samples, 1);
	cr_assert_eq(strlen(res()->samples[0].unit), 64);
	cr_assert_eq(res()->n_hists, 0);
	cr_assert_eq(res()->n_errors, 2);
	cr_assert(has_error("line 4: sample record: field 'unit' is longer than 64 bytes"));
	cr_assert(has_error("line 5: hist record: field 'unit' is longer than 64 bytes"));
	free(s[0]);
	free(s[1]);
	free(h);
}

Test(recparse, unknown_type_is_an_error)
{
	rec("{\"type\":\"bogus\"}");
	cr_assert(has_error("unknown record type 'bogus'"));
	cr_assert_eq(res()->records, 0);
}

Test(recparse, records_for_an_unknown_cell_are_errors)
{
	rec("{\"type\":\"sample\",\"cell\":\"k9\",\"metric\":\"m\",\"unit\":\"u\",\"value\":1,\"better\":\"lower\"}");
	rec("{\"type\":\"cell_end\",\"cell\":\"k9\",\"status\":\"ok\",\"seconds\":1}");
	rec(CELL);
	rec(CELL);
	rec("{\"type\":\"cell_end\",\"cell\":\"k1\",\"status\":\"ok\",\"seconds\":1}");
	rec("{\"type\":\"cell_end\",\"cell\":\"k1\",\"status\":\"ok\",\"seconds\":1}");
	rec("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"m\",\"unit\":\"u\",\"value\":1,\"better\":\"lower\"}");
	cr_assert(has_error("sample record for unknown cell 'k9'"));
	cr_assert(has_error("cell_end record for unknown cell 'k9'"));
	cr_assert(has_error("duplicate cell record for 'k1'"));
	cr_assert(has_error("duplicate cell_end record for 'k1'"));
	cr_assert(has_error("after its cell_end"));
	cr_assert_eq(res()->n_samples, 0);
	cr_assert_eq(res()->n_cells, 1);
}

Test(recparse, duplicate_header_is_an_error)
{
	rec(HEADER);
	rec(HEADER);
	cr_assert_not_null(res()->header);
	cr_assert(has_error("duplicate header record"));
	cr_assert_eq(res()->n_errors, 1);
}

Test(recparse, records_after_end_are_errors)
{
	rec("{\"type\":\"end\",\"status\":\"ok\",\"cells\":0}");
	rec(CELL);
	cr_assert(has_error("cell record after the end record"));
	cr_assert_eq(res()->n_cells, 0);
}

Test(recparse, many_cells_are_found_quickly)
{
	char buf[128];
	int i;

	rec(HEADER);
	for (i = 0; i < 3000; i++) {
		snprintf(buf, sizeof(buf),
			 "{\"type\":\"cell\",\"cell\":\"c%d\",\"workload\":\"w\"}", i);
		rec(buf);
	}
	for (i = 2999; i >= 0; i -= 7) {
		snprintf(buf, sizeof(buf),
			 "{\"type\":\"cell_end\",\"cell\":\"c%d\",\"status\":\"ok\",\"seconds\":%d}",
			 i, i);
		rec(buf);
	}
	cr_assert_eq(res()->n_errors, 0);
	cr_assert_eq(res()->n_cells, 3000);
	cr_assert_str_eq(res()->cells[2999].status, "ok");
	cr_assert_float_eq(res()->cells[2999].seconds, 2999, 1e-9);
	cr_assert_null(res()->cells[2998].status);
}

/*
 * One value per boot and metric: a second sample of a metric in a cell
 * would count as another boot in compare.  It is an error of the boot and
 * the first value is kept; the same metric in another cell, and many
 * metrics in one cell, are fine.
 */
Test(recparse, a_second_sample_of_a_metric_in_a_cell_is_refused)
{
	char buf[160];

	rec(HEADER);
	rec(CELL);
	rec("{\"type\":\"cell\",\"cell\":\"k2\",\"workload\":\"membw\",\"params\":{}}");
	rec("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"triad\",\"unit\":\"MB/s\",\"value\":12.5,\"better\":\"higher\"}");
	rec("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"triad\",\"unit\":\"MB/s\",\"value\":99,\"better\":\"higher\"}");
	rec("{\"type\":\"sample\",\"cell\":\"k2\",\"metric\":\"triad\",\"unit\":\"MB/s\",\"value\":13,\"better\":\"higher\"}");
	for (int i = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf),
			 "{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"m%d\",\"unit\":\"s\","
			 "\"value\":%d,\"better\":\"lower\"}",
			 i, i);
		rec(buf);
	}
	rec("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"m1999\",\"unit\":\"s\",\"value\":1,\"better\":\"lower\"}");
	dump_errors();
	cr_assert_eq(res()->n_samples, 2002);
	cr_assert_float_eq(res()->samples[0].value, 12.5, 1e-12);
	cr_assert_str_eq(res()->samples[1].cell, "k2");
	cr_assert_eq(res()->n_errors, 2);
	cr_assert(has_error(
		"line 5: a second sample of metric 'triad' in cell 'k1' (the first is kept)"));
	cr_assert(has_error("a second sample of metric 'm1999' in cell 'k1'"));
}

/* ---- keys a guest chose to collide (issue 25) ---- */

#define NCOLL 3000
#define COLL_BITS 16 /* every table of up to 65536 slots: NCOLL needs 8192 */

/* Keys on which the former FNV-1a tables put everything in one chain;
 * checked here, so the test keeps proving what it claims. */
static char **colliding_keys(void)
{
	char **k = fnv_colliding_keys(NCOLL, COLL_BITS);

	cr_assert_not_null(k);
	for (size_t i = 0; i < NCOLL; i++)
		cr_assert_eq(fnv1a(k[i]) & ((1u << COLL_BITS) - 1), 0, "key %zu", i);
	return k;
}

/* Every key is stored, distinct, and found again by every record that
 * names it; a repeated one is still a duplicate and an unopened one still
 * unknown, though each shares its FNV-1a slot with all the others. */
Test(recparse, colliding_cell_keys_are_each_stored_and_found)
{
	char **k = colliding_keys(), buf[256];
	const struct vtb_boot_records *r;

	rec(HEADER);
	for (size_t i = 0; i < NCOLL; i++) {
		snprintf(buf, sizeof(buf), "{\"type\":\"cell\",\"cell\":\"%s\",\"workload\":\"w\"}",
			 k[i]);
		rec(buf);
	}
	/* the cells in another order: a sample and the end of each */
	for (size_t j = 0; j < NCOLL; j++) {
		size_t i = (j * 7) % NCOLL; /* 7 and 3000 coprime: each once */

		snprintf(buf, sizeof(buf),
			 "{\"type\":\"sample\",\"cell\":\"%s\",\"metric\":\"m\",\"unit\":\"s\","
			 "\"value\":%zu,\"better\":\"lower\"}",
			 k[i], i);
		rec(buf);
		snprintf(buf, sizeof(buf),
			 "{\"type\":\"cell_end\",\"cell\":\"%s\",\"status\":\"ok\",\"seconds\":%zu}",
			 k[i], i);
		rec(buf);
	}
	dump_errors();
	r = res();
	cr_assert_eq(r->n_errors, 0);
	cr_assert_eq(r->n_cells, NCOLL);
	cr_assert_eq(r->n_samples, NCOLL);
	for (size_t i = 0; i < NCOLL; i++) {
		cr_assert_str_eq(r->cells[i].cell, k[i]);
		cr_assert_str_eq(r->cells[i].status, "ok", "cell %zu", i);
		cr_assert_float_eq(r->cells[i].seconds, (double)i, 1e-9, "cell %zu", i);
	}
	for (size_t j = 0; j < NCOLL; j++) {
		size_t i = (j * 7) % NCOLL;

		cr_assert_str_eq(r->samples[j].cell, k[i]);
		cr_assert_float_eq(r->samples[j].value, (double)i, 1e-9);
	}
	/* a repeated key, and a key that collides with all of them but was
	 * never opened */
	snprintf(buf, sizeof(buf), "{\"type\":\"cell\",\"cell\":\"%s\",\"workload\":\"w\"}",
		 k[NCOLL / 2]);
	rec(buf);
	free(k);
	k = fnv_colliding_keys(NCOLL + 1, COLL_BITS);
	cr_assert_not_null(k);
	snprintf(buf, sizeof(buf),
		 "{\"type\":\"cell_end\",\"cell\":\"%s\",\"status\":\"ok\",\"seconds\":1}",
		 k[NCOLL]);
	rec(buf);
	cr_assert_eq(r->n_cells, NCOLL);
	cr_assert_eq(r->n_errors, 2);
	snprintf(buf, sizeof(buf), "duplicate cell record for '%s'", r->cells[NCOLL / 2].cell);
	cr_assert(has_error(buf), "%s", buf);
	snprintf(buf, sizeof(buf), "cell_end record for unknown cell '%s'", k[NCOLL]);
	cr_assert(has_error(buf), "%s", buf);
	free(k);
}

/* The (cell, metric) table likewise: colliding metric names in one cell
 * are each kept once, and a second sample of one of them is refused. */
Test(recparse, colliding_metric_names_are_each_kept_once)
{
	char **k = colliding_keys(), buf[256];
	const struct vtb_boot_records *r;

	rec(HEADER);
	rec(CELL);
	for (size_t i = 0; i < NCOLL; i++) {
		snprintf(buf, sizeof(buf),
			 "{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"%s\",\"unit\":\"s\","
			 "\"value\":%zu,\"better\":\"lower\"}",
			 k[i], i);
		rec(buf);
	}
	snprintf(buf, sizeof(buf),
		 "{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"%s\",\"unit\":\"s\","
		 "\"value\":-1,\"better\":\"lower\"}",
		 k[NCOLL - 1]);
	rec(buf);
	dump_errors();
	r = res();
	cr_assert_eq(r->n_samples, NCOLL);
	for (size_t i = 0; i < NCOLL; i++) {
		cr_assert_str_eq(r->samples[i].metric, k[i]);
		cr_assert_float_eq(r->samples[i].value, (double)i, 1e-9);
	}
	cr_assert_eq(r->n_errors, 1);
	snprintf(buf, sizeof(buf), "a second sample of metric '%s' in cell 'k1'", k[NCOLL - 1]);
	cr_assert(has_error(buf), "%s", buf);
	free(k);
}

/* ---- the boot's deadline ---- */

Test(recparse, a_parser_past_its_deadline_stops_and_says_so)
{
	const struct vtb_boot_records *r;

	vtb_rec_parser_set_deadline(P, 1); /* 1 ns after the clock's start */
	cr_assert_eq(vtb_rec_parser_feed(P, "noise\n", 6), -1);
	rec(HEADER);
	rec(CELL);
	vtb_rec_parser_finish(P);
	r = res();
	dump_errors();
	cr_assert_null(r->header);
	cr_assert_eq(r->n_cells, 0);
	cr_assert_eq(r->noise_lines, 0, "no line was read");
	cr_assert_eq(r->n_errors, 1);
	cr_assert_str_eq(
		r->errors[0],
		"record parsing stopped at the boot's deadline after 0 lines, rest of the stream ignored");
}

/* What came before the deadline is kept; what comes after is not read. */
Test(recparse, records_before_the_deadline_are_kept)
{
	const struct vtb_boot_records *r;

	vtb_rec_parser_set_deadline(P, vtb_now_ns() + 3600 * UINT64_C(1000000000));
	rec(HEADER);
	rec(CELL);
	feed("noise\n");
	cr_assert_eq(res()->n_errors, 0);
	vtb_rec_parser_set_deadline(P, 1);
	rec("{\"type\":\"cell_end\",\"cell\":\"k1\",\"status\":\"ok\",\"seconds\":1}");
	rec("{\"type\":\"end\",\"status\":\"ok\",\"cells\":1}");
	vtb_rec_parser_finish(P);
	r = res();
	cr_assert_not_null(r->header);
	cr_assert_eq(r->n_cells, 1);
	cr_assert_null(r->cells[0].status);
	cr_assert(!r->ended);
	cr_assert_eq(r->n_errors, 1);
	cr_assert(has_error("stopped at the boot's deadline after 3 lines"));
}

/* No deadline (the default): a parser never reads the clock's verdict. */
Test(recparse, without_a_deadline_parsing_goes_on)
{
	vtb_rec_parser_set_deadline(P, 0);
	good_stream();
	vtb_rec_parser_finish(P);
	cr_assert(res()->ended);
	cr_assert_eq(res()->n_errors, 1); /* the stream's own agent error */
}

/* ---- chunks ---- */

static void chunk(long id, long seq, bool last, const char *data)
{
	json_t *c = json_pack("{s:s, s:i, s:i, s:b, s:s}", "type", "chunk", "id", (int)id, "seq",
			      (int)seq, "last", last, "data", data);
	char *t = json_dumps(c, JSON_COMPACT);

	rec(t);
	free(t);
	json_decref(c);
}

Test(recparse, chunks_are_joined_into_one_record)
{
	chunk(1, 0, false, "{\"type\":\"header\",");
	chunk(1, 1, false, "\"schema\":1,");
	chunk(1, 2, true, "\"agent\":\"x\"}");
	dump_errors();
	cr_assert_eq(res()->n_errors, 0);
	cr_assert_not_null(res()->header);
	cr_assert_str_eq(json_string_value(json_object_get(res()->header, "agent")), "x");
}

Test(recparse, chunk_gap_is_an_error)
{
	chunk(1, 0, false, "{\"type\":\"header\",");
	chunk(1, 2, true, "\"schema\":1}");
	vtb_rec_parser_finish(P);
	cr_assert_null(res()->header);
	cr_assert(has_error("gap, expected seq 1, got 2"));
	cr_assert_eq(res()->n_errors, 1);
}

Test(recparse, chunk_repeat_is_an_error)
{
	chunk(1, 0, false, "{\"type\":\"header\",");
	chunk(1, 0, false, "{\"type\":\"header\",");
	chunk(1, 1, true, "\"schema\":1}");
	vtb_rec_parser_finish(P);
	cr_assert_null(res()->header);
	cr_assert(has_error("seq 0 repeated"));
	/* the rest of the broken sequence is not reported again */
	cr_assert_eq(res()->n_errors, 1);
}

Test(recparse, chunk_id_reuse_is_an_error)
{
	chunk(3, 0, true, HEADER);
	chunk(3, 0, true, CELL);
	chunk(2, 0, true, CELL);
	cr_assert_not_null(res()->header);
	cr_assert_eq(res()->n_cells, 0);
	cr_assert(has_error("chunk id 3 reused"));
	cr_assert(has_error("chunk id 2 reused"));
}

Test(recparse, chunk_sequence_not_starting_at_zero_is_an_error)
{
	chunk(1, 1, true, HEADER);
	cr_assert(has_error("chunk sequence 1 starts at seq 1"));
}

Test(recparse, interleaved_sequence_abandons_the_first)
{
	chunk(1, 0, false, "{\"type\":");
	chunk(2, 0, true, HEADER);
	cr_assert(has_error("chunk sequence 1 unfinished"));
	cr_assert_not_null(res()->header);
}

Test(recparse, chunk_payload_over_the_limit_is_an_error)
{
	struct vtb_rec_limits lim = vtb_rec_default_limits;

	vtb_rec_parser_free(P);
	lim.max_payload = 16;
	P = vtb_rec_parser_new(NONCE, &lim);
	chunk(1, 0, false, "{\"type\":\"header\",");
	chunk(1, 1, true, "\"schema\":1}");
	cr_assert_null(res()->header);
	cr_assert(has_error("payload over 16 bytes"));
	cr_assert_eq(res()->n_errors, 1);
}

Test(recparse, unfinished_chunk_sequence_at_eof_is_an_error)
{
	chunk(7, 0, false, "{\"type\":\"header\",");
	vtb_rec_parser_finish(P);
	cr_assert(has_error("unfinished chunk sequence 7 at end of stream"));
}

Test(recparse, nested_chunk_and_bad_chunk_json_are_errors)
{
	chunk(1, 0, true, "{\"type\":\"chunk\",\"id\":2,\"seq\":0,\"last\":true,\"data\":\"{}\"}");
	chunk(2, 0, true, "{\"type\":");
	chunk(3, 0, "x", "y");
	rec("{\"type\":\"chunk\",\"id\":\"4\",\"seq\":0,\"last\":true,\"data\":\"{}\"}");
	cr_assert(has_error("chunk record inside a chunked payload"));
	cr_assert(has_error("chunk sequence 2: invalid JSON"));
	cr_assert(has_error("needs integers 'id' and 'seq'"));
}

/* ---- stream-level limits ---- */

Test(recparse, truncated_last_line_is_an_error)
{
	char *l = vtb_rec_frame(NONCE, HEADER);

	vtb_rec_parser_feed(P, l, strlen(l) - 5);
	free(l);
	vtb_rec_parser_finish(P);
	cr_assert_null(res()->header);
	cr_assert(has_error("truncated record at end of stream"));
}

Test(recparse, overlong_line_is_skipped_without_buffering)
{
	struct vtb_rec_limits lim = vtb_rec_default_limits;
	char *big = malloc(5000);

	vtb_rec_parser_free(P);
	lim.max_line = 200;
	P = vtb_rec_parser_new(NONCE, &lim);
	memset(big, 'x', 4999);
	big[4999] = '\0';
	memcpy(big, "@vtb1 ", 6);
	feed(big); /* no newline yet: fed in two pieces */
	feed(big);
	feed("\n");
	rec(HEADER);
	free(big);
	cr_assert_not_null(res()->header);
	cr_assert_eq(res()->n_errors, 1);
	cr_assert(has_error("longer than 200 bytes, skipped"));
}

Test(recparse, errors_beyond_the_limit_are_counted)
{
	struct vtb_rec_limits lim = vtb_rec_default_limits;
	int i;

	vtb_rec_parser_free(P);
	lim.max_errors = 3;
	P = vtb_rec_parser_new(NONCE, &lim);
	rec(HEADER);
	for (i = 0; i < 10; i++)
		rec("{\"type\":\"bogus\"}");
	cr_assert_eq(res()->n_errors, 3);
	cr_assert_eq(res()->errors_dropped, 7);
}

Test(recparse, record_limit_stops_parsing)
{
	struct vtb_rec_limits lim = vtb_rec_default_limits;
	char *l = vtb_rec_frame(NONCE, CELL);
	int i, ret = 0;

	vtb_rec_parser_free(P);
	lim.max_records = 5;
	P = vtb_rec_parser_new(NONCE, &lim);
	for (i = 0; i < 10; i++)
		ret = vtb_rec_parser_feed(P, l, strlen(l));
	free(l);
	cr_assert_eq(ret, -1);
	cr_assert(has_error("more than 5 records"));
	cr_assert_eq(res()->n_cells, 1);
}

Test(recparse, total_limit_stops_parsing)
{
	struct vtb_rec_limits lim = vtb_rec_default_limits;
	char *l = vtb_rec_frame(NONCE, HEADER);

	vtb_rec_parser_free(P);
	lim.max_total = strlen(l) + 3;
	P = vtb_rec_parser_new(NONCE, &lim);
	cr_assert_eq(vtb_rec_parser_feed(P, l, strlen(l)), 0);
	cr_assert_eq(vtb_rec_parser_feed(P, l, strlen(l)), -1);
	free(l);
	vtb_rec_parser_finish(P);
	cr_assert_not_null(res()->header);
	cr_assert(has_error("stream longer than"));
	cr_assert_eq(res()->n_errors, 1);
}

Test(recparse, random_bytes_never_crash)
{
	unsigned seed = 12345;
	char buf[4096];
	int round, i;

	for (round = 0; round < 200; round++) {
		size_t n = (size_t)(rand_r(&seed) % (int)sizeof(buf));

		for (i = 0; i < (int)n; i++) {
			int r = rand_r(&seed) % 16;

			buf[i] = r == 0 ? '\n' : r == 1 ? '@' : (char)rand_r(&seed);
		}
		vtb_rec_parser_feed(P, buf, n);
		feed("@vtb1 c0ffee {\"type\":\"chunk\",\"id\":1,\"seq\":0,\"last\":false,\"data\":\"");
	}
	vtb_rec_parser_finish(P);
	cr_assert_leq(res()->n_errors, vtb_rec_default_limits.max_errors);
}

/* ---- writer -> parser ---- */

#define CHUNK_PREFIX "@vtb1 " NONCE " {\"type\":\"chunk\""

Test(recparse, writer_round_trip_with_a_chunked_payload)
{
	int fd = memfd_create("records", 0);
	struct vtb_rec w;
	json_t *big, *r, *info;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	char *text, *expect;
	off_t len;
	size_t i, off;
	unsigned seed = 42;
	int chunk_lines = 0;

	cr_assert_geq(fd, 0);
	cr_assert_eq(vtb_rec_init(&w, fd, NONCE), 0);
	/* > 1 MiB with quotes, backslashes, newlines and non-ASCII text. */
	for (i = 0; i < 60000; i++)
		vtb_strbuf_addstr(&sb, "\"q\\ \xc3\xa9t\xc3\xa9\n \xe2\x82\xac ");
	big = json_string(sb.buf);
	vtb_strbuf_release(&sb);
	cr_assert_not_null(big);
	info = json_pack("{s:o, s:i}", "blob", big, "n", 3);

	r = json_pack("{s:s, s:i, s:s}", "type", "header", "schema", 1, "agent", "t");
	cr_assert_eq(vtb_rec_write(&w, r), 0);
	json_decref(r);
	r = json_pack("{s:s, s:s, s:s, s:{s:s}}", "type", "cell", "cell", "k\xc3\xa9", "workload",
		      "membw", "params", "size", "64M");
	cr_assert_eq(vtb_rec_write(&w, r), 0);
	json_decref(r);
	r = json_pack("{s:s, s:s, s:s, s:s, s:f, s:s}", "type", "sample", "cell", "k\xc3\xa9",
		      "metric", "triad", "unit", "MB/s", "value", 1234.5, "better", "higher");
	cr_assert_eq(vtb_rec_write(&w, r), 0);
	json_decref(r);
	r = json_pack("{s:s, s:s, s:s, s:f, s:O}", "type", "cell_end", "cell", "k\xc3\xa9",
		      "status", "ok", "seconds", 2.0, "info", info);
	cr_assert_eq(vtb_rec_write(&w, r), 0);
	json_decref(r);
	r = json_pack("{s:s, s:s, s:i}", "type", "end", "status", "ok", "cells", 1);
	cr_assert_eq(vtb_rec_write(&w, r), 0);
	json_decref(r);

	len = lseek(fd, 0, SEEK_END);
	cr_assert_gt(len, VTB_REC_MAX_JSON);
	text = malloc((size_t)len);
	cr_assert_eq(pread(fd, text, (size_t)len, 0), len);
	close(fd);
	for (off = 0; off < (size_t)len; off++) {
		cr_assert((unsigned char)text[off] < 0x80, "record stream is not ASCII");
		if (text[off] == '\n' && off + 1 < (size_t)len &&
		    strncmp(text + off + 1, CHUNK_PREFIX, strlen(CHUNK_PREFIX)) == 0)
			chunk_lines++;
	}
	cr_assert_geq(chunk_lines, 4, "the payload was not chunked (%d chunks)", chunk_lines);
	for (off = 0; off < (size_t)len;) {
		size_t n = 1 + (size_t)(rand_r(&seed) % 70000);

		if (n > (size_t)len - off)
			n = (size_t)len - off;
		cr_assert_eq(vtb_rec_parser_feed(P, text + off, n), 0);
		off += n;
	}
	free(text);
	vtb_rec_parser_finish(P);
	dump_errors();
	cr_assert_eq(res()->n_errors, 0);
	cr_assert_eq(res()->n_cells, 1);
	cr_assert_str_eq(res()->cells[0].cell, "k\xc3\xa9");
	cr_assert_str_eq(res()->cells[0].status, "ok");
	cr_assert_eq(res()->n_samples, 1);
	cr_assert_float_eq(res()->samples[0].value, 1234.5, 1e-9);
	expect = json_dumps(info, JSON_SORT_KEYS | JSON_COMPACT);
	cr_assert(strcmp(res()->cells[0].info_json, expect) == 0,
		  "chunked info did not round-trip");
	free(expect);
	json_decref(info);
	cr_assert(res()->ended);
	cr_assert_eq(res()->records, 5);
}

Test(recparse, header_comes_first_once)
{
	rec(CELL);
	rec(HEADER);
	cr_expect(has_error("record before the header record"));
	cr_expect(has_error("header record after other records"));
	cr_expect_null(res()->header, "a late header is not accepted");
}

Test(recparse, deep_nesting_is_an_error_not_a_store_failure)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int i;

	rec(HEADER);
	rec(CELL);
	vtb_strbuf_addstr(&sb, "{\"type\":\"cell_end\",\"cell\":\"k1\",\"status\":\"ok\","
			       "\"seconds\":1,\"info\":{\"x\":");
	for (i = 0; i < 2040; i++)
		vtb_strbuf_addstr(&sb, "[");
	for (i = 0; i < 2040; i++)
		vtb_strbuf_addstr(&sb, "]");
	vtb_strbuf_addstr(&sb, "}}");
	rec(sb.buf);
	vtb_strbuf_release(&sb);
	cr_expect(has_error("record nested deeper than 32 levels"));
}

Test(recparse, an_empty_first_line_is_noise)
{
	feed("\n\n");
	rec(HEADER);
	cr_expect_eq(res()->n_errors, 0);
}

/* ---- guest records (issue 6): probe, sched, guest_view, steal ---- */

/* Feeds a record stream a real Debian 6.1 guest wrote (nonce ab12). */
static struct vtb_rec_parser *parse_fixture(const char *name)
{
	const char *src = getenv("SRCDIR");
	char *path = vtb_asprintf("%s/tests/fixtures/guestview/records/%s", src ? src : ".", name);
	char *text = path ? vtb_read_file(path, 1 << 20) : NULL;
	struct vtb_rec_parser *p = vtb_rec_parser_new("ab12", NULL);

	cr_assert_not_null(text, "%s", vtb_errmsg());
	cr_assert_not_null(p);
	vtb_rec_parser_feed(p, text, strlen(text));
	vtb_rec_parser_feed(p, "\n", 1);
	vtb_rec_parser_finish(p);
	free(text);
	free(path);
	return p;
}

Test(recparse, a_real_guests_records_are_kept)
{
	struct vtb_rec_parser *p = parse_fixture("deb61-smt2-relax.rec");
	const struct vtb_boot_records *r = vtb_rec_parser_result(p);

	for (size_t i = 0; i < r->n_errors; i++)
		cr_log_error("%s", r->errors[i]);
	cr_expect_eq(r->n_errors, 0);
	cr_assert_not_null(r->probe);
	cr_assert_not_null(r->sched);
	cr_assert_not_null(r->view);
	cr_assert_not_null(r->steal_before);
	cr_assert_not_null(r->steal_after);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(r->probe, "levels"), 0)),
			 "SMT");
	cr_expect(json_is_true(json_object_get(r->sched, "ok")));
	cr_expect_eq(json_array_size(json_object_get(r->view, "cpus")), 2);
	cr_expect_str_eq(json_string_value(json_object_get(r->steal_after, "phase")), "after");
	cr_expect(r->ended);
	cr_expect_str_eq(r->end_status, "ok");
	vtb_rec_parser_free(p);
}

Test(recparse, a_sched_failure_is_an_agent_error_and_the_cell_failed)
{
	struct vtb_rec_parser *p = parse_fixture("deb61-smt2-badknob.rec");
	const struct vtb_boot_records *r = vtb_rec_parser_result(p);
	bool named = false;

	for (size_t i = 0; i < r->n_errors; i++)
		if (strstr(r->errors[i],
			   "agent: sched profile 'bad': debugfs.foo_ns: no such knob"))
			named = true;
	cr_expect(named);
	cr_assert_not_null(r->sched);
	cr_expect(json_is_false(json_object_get(r->sched, "ok")));
	cr_assert_eq(r->n_cells, 1);
	cr_expect_str_eq(r->cells[0].status, "failed");
	cr_expect_str_eq(r->cells[0].error, "not run: sched profile 'bad' did not apply");
	cr_expect_str_eq(r->end_status, "failed");
	vtb_rec_parser_free(p);
}

#define PROBE                                                                                      \
	"{\"type\":\"probe\",\"debugfs\":true,\"knobs\":[\"latency_ns\"],\"domains_dir\":true,"    \
	"\"verbose\":null,\"verbose_set\":false,\"domain_knobs\":[],\"levels\":[\"SMT\",\"DIE\"]," \
	"\"schedstats\":\"0\",\"schedstat_version\":15,\"cgroup2\":true,\"cpuset_partition\":true}"
#define STEAL(phase) \
	"{\"type\":\"steal\",\"phase\":\"" phase "\",\"user_hz\":100,\"ticks\":3,\"per_cpu\":[1,2]}"
#define CPU0                                                                                         \
	"{\"cpu\":0,\"online\":true,\"core_id\":\"0\",\"die_id\":null,\"package_id\":\"0\","         \
	"\"thread_siblings\":\"0\",\"core_siblings\":\"0\",\"die_cpus\":null,\"package_cpus\":null," \
	"\"cluster_cpus\":null,\"caches\":[{\"index\":0,\"level\":\"1\",\"type\":\"Data\","          \
	"\"size\":\"32K\",\"shared\":\"0\"}]}"
#define VIEW(cpus, domains)                                                                   \
	"{\"type\":\"guest_view\",\"cpus\":[" cpus "],\"nodes\":[{\"node\":0,\"cpus\":\"0\"," \
	"\"distance\":\"10\"}],\"domains\":[" domains "],\"schedstat\":{\"version\":17,"      \
	"\"domains\":[{\"cpu\":0,\"domain\":0,\"name\":\"PKG\",\"mask\":\"1\"}]},\"cpuid\":null}"
#define DOM0                                                                        \
	"{\"cpu\":0,\"levels\":[{\"domain\":0,\"name\":\"PKG\",\"flags\":\"SD_X\"," \
	"\"knobs\":{\"busy_factor\":\"16\",\"min_interval\":null}}]}"
#define SCHED(setting)                                                                   \
	"{\"type\":\"sched\",\"name\":\"relax\",\"ok\":true,\"settings\":[" setting "]," \
	"\"cmdline\":[{\"token\":\"a=1\",\"present\":true}]}"
#define SETTING \
	"{\"key\":\"sysctl.a\",\"path\":\"/proc/sys/a\",\"want\":\"1\",\"read\":\"1\",\"ok\":true}"

Test(recparse, valid_guest_records_are_exposed)
{
	const struct vtb_boot_records *r;

	rec(HEADER);
	rec(PROBE);
	rec(SCHED(SETTING));
	rec(VIEW(CPU0, DOM0));
	rec(STEAL("before"));
	rec(STEAL("after"));
	r = res();
	dump_errors();
	cr_expect_eq(r->n_errors, 0);
	cr_expect_not_null(r->probe);
	cr_expect_not_null(r->sched);
	cr_expect_not_null(r->view);
	cr_expect_not_null(r->steal_before);
	cr_expect_not_null(r->steal_after);
	cr_expect_eq(r->records, 6);
}

/* One malformed record: the error names its member, nothing is kept. */
static void malformed(const char *json, const char *err)
{
	const struct vtb_boot_records *r;

	rec(HEADER);
	rec(json);
	r = res();
	dump_errors();
	cr_expect(has_error(err), "no error containing \"%s\"", err);
	cr_expect_null(r->probe);
	cr_expect_null(r->sched);
	cr_expect_null(r->view);
	cr_expect_null(r->steal_before);
	cr_expect_null(r->steal_after);
	cr_expect_eq(r->records, 1);
}

Test(recparse, probe_member_of_the_wrong_type)
{
	malformed("{\"type\":\"probe\",\"debugfs\":true,\"knobs\":\"latency_ns\"}",
		  "probe record: knobs is not an array");
}

/* PROBE with "sysctls": @sysctls (malloc'ed) */
static char *probe_with(const char *sysctls)
{
	char *probe = strdup(PROBE), *r;

	cr_assert_not_null(probe);
	probe[strlen(probe) - 1] = '\0'; /* the final } */
	r = vtb_asprintf("%s,\"sysctls\":%s}", probe, sysctls);
	cr_assert_not_null(r);
	free(probe);
	return r;
}

/* sysctls (newer agents): the names of /proc/sys/kernel and vm, each a
 * list of strings or null */
Test(recparse, probe_sysctls_are_kept)
{
	char *p = probe_with("{\"kernel\":[\"numa_balancing\"],\"vm\":null}");
	const struct vtb_boot_records *r;

	rec(HEADER);
	rec(p);
	r = res();
	dump_errors();
	cr_expect_eq(r->n_errors, 0);
	cr_assert_not_null(r->probe);
	cr_expect_str_eq(json_string_value(json_array_get(
				 json_object_get(json_object_get(r->probe, "sysctls"), "kernel"),
				 0)),
			 "numa_balancing");
	free(p);
}

Test(recparse, probe_sysctls_of_the_wrong_type)
{
	char *p = probe_with("{\"kernel\":[1]}");

	malformed(p, "probe record: sysctls.kernel[0] is not a string");
	free(p);
}

/* at most 512 names a directory, as the agent bounds them */
Test(recparse, probe_sysctls_are_bounded)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	char *p;

	vtb_strbuf_addstr(&sb, "{\"vm\":[");
	for (int i = 0; i < 513; i++)
		vtb_strbuf_addf(&sb, "%s\"k%d\"", i ? "," : "", i);
	vtb_strbuf_addstr(&sb, "]}");
	p = probe_with(vtb_strbuf_str(&sb));
	malformed(p, "probe record: sysctls.vm has 513 elements, at most 512");
	free(p);
	vtb_strbuf_release(&sb);
}

/* a name is a file name (NAME_MAX, 255 bytes): a longer one is refused,
 * so a guest cannot store megabytes of "names" in its probe */
Test(recparse, probe_names_are_bounded)
{
	char name[300];
	char *list, *p;

	memset(name, 'k', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	list = vtb_asprintf("{\"kernel\":[\"%s\"]}", name);
	p = probe_with(list);
	malformed(p, "probe record: sysctls.kernel[0] is longer than 255 bytes");
	free(p);
	free(list);
}

Test(recparse, probe_names_of_255_bytes_are_kept)
{
	char name[256];
	char *list, *p;
	const struct vtb_boot_records *r;

	memset(name, 'k', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	list = vtb_asprintf("{\"kernel\":[\"%s\"]}", name);
	p = probe_with(list);
	rec(HEADER);
	rec(p);
	r = res();
	dump_errors();
	cr_expect_eq(r->n_errors, 0);
	cr_expect_not_null(r->probe);
	free(p);
	free(list);
}

Test(recparse, probe_member_missing)
{
	malformed("{\"type\":\"probe\",\"debugfs\":true,\"knobs\":[]}",
		  "probe record: domains_dir missing");
}

Test(recparse, view_nested_member_of_the_wrong_type)
{
	malformed(VIEW("{\"cpu\":0,\"online\":true,\"core_id\":\"0\",\"die_id\":null,"
		       "\"package_id\":\"0\",\"thread_siblings\":\"0\",\"core_siblings\":\"0\","
		       "\"die_cpus\":null,\"package_cpus\":null,\"cluster_cpus\":null,"
		       "\"caches\":[{\"index\":0,\"level\":\"1\",\"type\":\"Data\",\"size\":32,"
		       "\"shared\":\"0\"}]}",
		       DOM0),
		  "guest_view record: cpus[0].caches[0].size is not a string or null");
}

Test(recparse, view_negative_cpu_number)
{
	malformed(VIEW(CPU0, "{\"cpu\":-1,\"levels\":[]}"),
		  "guest_view record: domains[0].cpu is not a non-negative integer");
}

Test(recparse, view_knob_that_is_not_a_string)
{
	malformed(VIEW(CPU0, "{\"cpu\":0,\"levels\":[{\"domain\":0,\"name\":null,\"flags\":null,"
			     "\"knobs\":{\"busy_factor\":[1]}}]}"),
		  "guest_view record: domains[0].levels[0].knobs is not an object of strings");
}

Test(recparse, sched_setting_without_ok)
{
	malformed(SCHED("{\"key\":\"k\",\"path\":\"p\",\"want\":\"1\",\"read\":null}"),
		  "sched record: settings[0].ok missing");
}

Test(recparse, steal_of_an_unknown_phase)
{
	malformed(STEAL("during"), "steal record: phase is 'during'");
}

Test(recparse, steal_with_a_negative_count)
{
	malformed("{\"type\":\"steal\",\"phase\":\"after\",\"user_hz\":100,\"ticks\":null,"
		  "\"per_cpu\":[1,-2]}",
		  "per_cpu[1] is not a non-negative integer");
}

Test(recparse, a_second_guest_record_of_a_kind_is_an_error_and_the_first_stays)
{
	const struct vtb_boot_records *r;

	rec(HEADER);
	rec(PROBE);
	rec("{\"type\":\"probe\",\"debugfs\":false,\"knobs\":[],\"domains_dir\":false,"
	    "\"verbose\":null,\"verbose_set\":false,\"domain_knobs\":[],\"levels\":[],"
	    "\"schedstats\":null,\"schedstat_version\":null,\"cgroup2\":false,"
	    "\"cpuset_partition\":false}");
	rec(STEAL("before"));
	rec(STEAL("before"));
	rec(VIEW(CPU0, DOM0));
	rec(VIEW(CPU0, DOM0));
	rec(SCHED(SETTING));
	rec(SCHED(SETTING));
	r = res();
	cr_expect(has_error("duplicate probe record"));
	cr_expect(has_error("duplicate steal record"));
	cr_expect(has_error("duplicate guest_view record"));
	cr_expect(has_error("duplicate sched record"));
	cr_expect(json_is_true(json_object_get(r->probe, "debugfs")), "the first probe stays");
	cr_expect_null(r->steal_after);
}

Test(recparse, more_cpus_than_the_bound_is_an_error)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int i;

	vtb_strbuf_addstr(&sb, "{\"type\":\"guest_view\",\"cpus\":[");
	for (i = 0; i <= 8192; i++)
		vtb_strbuf_addstr(&sb, i ? ",0" : "0");
	vtb_strbuf_addstr(&sb, "],\"nodes\":[],\"domains\":[],\"schedstat\":null,\"cpuid\":null}");
	malformed(sb.buf, "guest_view record: cpus has 8193 elements, at most 8192");
	vtb_strbuf_release(&sb);
}

Test(recparse, more_levels_than_the_bound_is_an_error)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int i;

	vtb_strbuf_addstr(&sb, "{\"cpu\":0,\"levels\":[");
	for (i = 0; i < 65; i++)
		vtb_strbuf_addstr(&sb, i ? ",{}" : "{}");
	vtb_strbuf_addstr(&sb, "]}");
	{
		char *v = vtb_asprintf("{\"type\":\"guest_view\",\"cpus\":[],\"nodes\":[],"
				       "\"domains\":[%s],\"schedstat\":null,\"cpuid\":null}",
				       sb.buf);

		malformed(v, "domains[0].levels has 65 elements, at most 64");
		free(v);
	}
	vtb_strbuf_release(&sb);
}

Test(recparse, a_deeply_nested_guest_view_is_an_error)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int i;

	vtb_strbuf_addstr(&sb, "{\"type\":\"guest_view\",\"cpus\":[],\"nodes\":[],\"domains\":[],"
			       "\"schedstat\":null,\"cpuid\":{\"vendor\":");
	for (i = 0; i < 100; i++)
		vtb_strbuf_addstr(&sb, "[");
	for (i = 0; i < 100; i++)
		vtb_strbuf_addstr(&sb, "]");
	vtb_strbuf_addstr(&sb, "}}");
	malformed(sb.buf, "record nested deeper than 32 levels");
	vtb_strbuf_release(&sb);
}

Test(recparse, a_chunked_guest_view_is_reassembled_and_kept)
{
	struct vtb_rec w;
	json_t *v = json_loads(VIEW(CPU0, DOM0), 0, NULL), *big = json_array();
	int fds[2];
	char buf[65536];
	ssize_t n;

	cr_assert_not_null(v);
	/* 1.2 MiB of flags text: over one line, so the writer chunks it */
	for (int i = 0; i < 1200; i++)
		json_array_append_new(
			big,
			json_string(
				"SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_CPUCAPACITY SD_SHARE_PKG_RESOURCES SD_PREFER_SIBLING SD_NUMA SD_ASYM_PACKING SD_SERIALIZE SD_OVERLAP SD_ASYM_CPUCAPACITY_FULL SD_CLUSTER_X SD_SHARE_LLC SD_BALANCE_WAKE SD_X SD_Y SD_Z SD_EXTRA_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING_PADDING"));
	json_object_set_new(v, "extra", big);
	cr_assert_eq(pipe(fds), 0);
	rec(HEADER);
	cr_assert_eq(vtb_rec_init(&w, fds[1], NONCE), 0);
	if (fork() == 0) {
		close(fds[0]);
		_exit(vtb_rec_write(&w, v) ? 1 : 0);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0)
		vtb_rec_parser_feed(P, buf, (size_t)n);
	close(fds[0]);
	wait(NULL);
	vtb_rec_parser_finish(P);
	dump_errors();
	cr_expect_eq(res()->n_errors, 0);
	cr_assert_not_null(res()->view);
	cr_expect_eq(json_array_size(json_object_get(res()->view, "extra")), 1200);
	json_decref(v);
}

/* ---- hostile histograms, error floods, long messages (issue 16) ---- */

static void hist(const char *count, const char *buckets)
{
	char *j =
		vtb_asprintf("{\"type\":\"hist\",\"cell\":\"k1\",\"metric\":\"lat\",\"unit\":\"us\","
			     "\"params\":" HPARAMS ",\"count\":%s,\"buckets\":%s}",
			     count, buckets);

	cr_assert_not_null(j);
	rec(j);
	free(j);
}

Test(recparse, hist_with_a_repeated_index_is_refused)
{
	rec(HEADER);
	rec(CELL);
	hist("3", "[[1,2],[70,1]]");
	hist("4", "[[1,2],[1,2]]");
	dump_errors();
	cr_assert_eq(res()->n_hists, 1, "the valid histogram stays");
	cr_assert(has_error("bucket index 1 repeated"));
}

Test(recparse, hist_with_decreasing_or_out_of_range_indexes_is_refused)
{
	rec(HEADER);
	rec(CELL);
	hist("2", "[[70,1],[1,1]]");
	hist("1", "[[99999999,1]]");
	dump_errors();
	cr_assert_eq(res()->n_hists, 0);
	cr_assert(has_error("bucket index 1 after 70"));
	cr_assert(has_error("bucket index 99999999 beyond the 3776 buckets of 6 bits"));
}

Test(recparse, hist_counts_that_overflow_are_refused)
{
	rec(HEADER);
	rec(CELL);
	/* two buckets of INT64_MAX: the sum wrapped, and compare's JSON showed
	 * negative counts */
	hist("9223372036854775807", "[[1,9223372036854775807],[2,9223372036854775807]]");
	hist("9223372036854775807", "[[1,9223372036854775806],[2,1]]");
	dump_errors();
	cr_assert_eq(res()->n_hists, 1, "INT64_MAX in total is still a histogram");
	cr_assert(has_error("bucket counts add up to more than 9223372036854775807"));
}

Test(recparse, hist_total_must_match_its_count)
{
	rec(HEADER);
	rec(CELL);
	hist("5", "[[1,2],[70,1]]");
	rec("{\"type\":\"hist\",\"cell\":\"k1\",\"metric\":\"lat\",\"unit\":\"us\",\"params\":" HPARAMS
	    ",\"buckets\":[[1,2]]}");
	rec("{\"type\":\"hist\",\"cell\":\"k1\",\"metric\":\"lat\",\"unit\":\"us\",\"params\":{},"
	    "\"count\":2,\"buckets\":[[1,2]]}");
	dump_errors();
	cr_assert_eq(res()->n_hists, 0);
	cr_assert(has_error("buckets hold 3 samples, the record claims 5"));
	cr_assert(has_error("field 'count' missing"));
	cr_assert(has_error("'params' is not"));
}

Test(recparse, an_error_flood_keeps_the_first_errors_and_counts_the_rest)
{
	char msg[1100];
	const struct vtb_boot_records *r;

	rec(HEADER);
	rec(CELL);
	rec("{\"type\":\"sample\",\"cell\":\"k1\",\"metric\":\"triad\",\"unit\":\"MB/s\",\"value\":1,\"better\":\"higher\"}");
	/* distinct 1 KiB messages: each used to be appended to the whole
	 * text so far (quadratic, and the text as large as the stream) */
	for (int i = 0; i < 600; i++) {
		char *j;

		memset(msg, 'a' + i % 26, 1024);
		snprintf(msg + 1024, sizeof(msg) - 1024, "%d", i);
		j = vtb_asprintf("{\"type\":\"error\",\"cell\":\"k1\",\"message\":\"%s\"}", msg);
		rec(j);
		free(j);
	}
	rec("{\"type\":\"cell_end\",\"cell\":\"k1\",\"status\":\"failed\",\"seconds\":1}");
	vtb_rec_parser_finish(P);
	r = res();
	cr_assert_eq(r->n_cells, 1);
	cr_assert_not_null(r->cells[0].error);
	cr_assert_leq(strlen(r->cells[0].error), 16 * 1024 + 64);
	cr_assert(strstr(r->cells[0].error, "; and 592 more errors (not kept)"), "%.200s",
		  r->cells[0].error + strlen(r->cells[0].error) - 100);
	cr_assert_eq(strncmp(r->cells[0].error, msg, 0), 0);
	cr_assert_eq(r->cells[0].error[0], 'a', "the first error is kept");
	cr_assert_eq(r->n_samples, 1, "what came before is kept");
	cr_assert_str_eq(r->cells[0].status, "failed");
}

Test(recparse, an_agent_message_is_cut_on_a_character_boundary)
{
	/* 4095 bytes then a 2-byte character: a cut at 4096 bytes split it */
	struct vtb_strbuf j = VTB_STRBUF_INIT;
	const struct vtb_boot_records *r;

	rec(HEADER);
	rec(CELL);
	vtb_strbuf_addstr(&j, "{\"type\":\"error\",\"cell\":\"k1\",\"message\":\"");
	for (int i = 0; i < 4095; i++)
		vtb_strbuf_addstr(&j, "x");
	vtb_strbuf_addstr(&j, "\\u00e9\\u00e9\"}");
	rec(vtb_strbuf_str(&j));
	vtb_strbuf_release(&j);
	vtb_rec_parser_finish(P);
	r = res();
	cr_assert_not_null(r->cells[0].error);
	cr_assert_eq(strlen(r->cells[0].error), 4095);
	cr_assert(vtb_utf8_valid(r->cells[0].error, strlen(r->cells[0].error)));
	for (size_t i = 0; i < r->n_errors; i++)
		cr_assert(vtb_utf8_valid(r->errors[i], strlen(r->errors[i])), "error %zu", i);
	cr_assert(has_error("xxx..."));
}
