/* SPDX-License-Identifier: MIT */
/*
 * Upload, the pure parts: line protocol escaping as InfluxDB's parser
 * reads it (checked against a real 1.6 server by tests/e2e/upload_influx.sh),
 * float spelling, and the sink registry.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/upload.h"

static void tag_is(const char *in, const char *want, bool want_replaced)
{
	bool replaced = false;
	char *got = vtb_lp_tag_value(in, &replaced);

	cr_assert_not_null(got);
	cr_expect_str_eq(got, want, "tag value '%s'", in ? in : "(null)");
	cr_expect_eq(replaced, want_replaced, "replaced for '%s'", in ? in : "(null)");
	free(got);
}

Test(upload, tag_values_escape_commas_spaces_and_equals)
{
	tag_is("a b,c=d", "a\\ b\\,c\\=d", false);
	tag_is("quote\"s", "quote\"s", false);
	tag_is("\xc3\xbcnicode", "\xc3\xbcnicode", false);
}

Test(upload, a_backslash_is_sent_as_is_where_the_parser_keeps_it)
{
	tag_is("a\\b", "a\\b", false);
	tag_is("a\\\\b", "a\\\\b", false);
}

Test(upload, a_backslash_the_protocol_cannot_carry_becomes_a_slash)
{
	tag_is("end\\", "end/", true);
	tag_is("a\\ b", "a/\\ b", true);
	tag_is("a\\,b", "a/\\,b", true);
	tag_is("a\\\nb", "a/\\ b", true);
}

Test(upload, control_characters_become_spaces_and_empty_stays_empty)
{
	tag_is("two\nlines\r\t", "two\\ lines\\ \\ ", true);
	tag_is("", "", false); /* no value: the tag is left out */
	tag_is(NULL, "", false);
}

Test(upload, string_fields_escape_quotes_and_backslashes)
{
	bool replaced = false;
	char *got = vtb_lp_field_string("say \"hi\" \\ there\n", &replaced);

	cr_assert_not_null(got);
	cr_expect_str_eq(got, "say \\\"hi\\\" \\\\ there ");
	cr_expect(replaced);
	free(got);
}

Test(upload, floats_are_the_shortest_spelling_that_reads_back)
{
	char buf[40];

	cr_assert(vtb_lp_float(0.1, buf, sizeof(buf)));
	cr_expect_str_eq(buf, "0.1");
	cr_assert(vtb_lp_float(97.89192424242424, buf, sizeof(buf)));
	cr_expect_eq(strtod(buf, NULL), 97.89192424242424);
	cr_assert(vtb_lp_float(1e300, buf, sizeof(buf)));
	cr_expect_str_eq(buf, "1e+300");
	cr_expect_not(vtb_lp_float(NAN, buf, sizeof(buf)));
	cr_expect_not(vtb_lp_float(INFINITY, buf, sizeof(buf)));
}

Test(upload, the_sink_registry_is_consistent_and_listed)
{
	const struct vtb_sink_info *si;
	size_t n = 0;

	cr_assert_eq(vtb_sinks_check(), 0, "%s", vtb_errmsg());
	for (; (si = vtb_sink_info(n)); n++) {
		cr_expect_not_null(si->name);
		cr_expect(strstr(si->url, "://") != NULL, "%s", si->url);
	}
	cr_expect_geq(n, 2);
}
