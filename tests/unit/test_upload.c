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

#include "../../harness/upload/upload.h"
#include "../../common/vtbutil.h"

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

/* ---- hostile URLs and servers (issue 16) ---- */

static void url_refused(const char *url, const char *why)
{
	cr_expect_eq(vtb_upload_check_url(url), -1, "'%s' accepted", url);
	cr_expect(strstr(vtb_errmsg(), why), "'%s': %s", url, vtb_errmsg());
}

Test(upload, path_traversal_port_0_and_encoded_control_characters_are_refused)
{
	/* curl removes literal dot segments, not encoded ones: the server
	 * would get them */
	url_refused("pushgateway://h/%2E%2E", "'..' path segment");
	url_refused("pushgateway://h/%2e", "'..' path segment");
	url_refused("http://h/a/%2e%2E/b", "'..' path segment");
	url_refused("codespeed+https://h/%2E%2E/x", "'..' path segment");
	url_refused("pushgateway://h:0/job", "port 0");
	url_refused("influx://h:0/db", "port 0");
	/* these yielded an empty path in the error message */
	url_refused("influx://h/db%00x", "encoded NUL or control character");
	url_refused("http://h/a%0d%0aX-Injected:%201", "encoded NUL or control character");
	url_refused("http://h/a%7f", "encoded control character (%7F)");
	cr_expect_eq(vtb_upload_check_url("pushgateway://h/job"), 0, "%s", vtb_errmsg());
	cr_expect_eq(vtb_upload_check_url("http://h:8080/caf%C3%A9/a..b"), 0, "%s", vtb_errmsg());
}

Test(upload, retry_delays_are_bounded_at_every_attempt)
{
	/* --backoff 10m: at attempt 15 the jitter's bound passed 2^32 and
	 * gsl_rng_uniform_int() aborted the process (exit 134) */
	for (long a = 1; a <= 100; a++)
		for (double u = 0; u < 1; u += 0.25) {
			long d = vtb_upload_retry_delay(600000, a, 0, u);
			long w = 600000L << (a - 1 < 10 ? a - 1 : 10);

			if (w > VTB_UPLOAD_MAX_DELAY_MS)
				w = VTB_UPLOAD_MAX_DELAY_MS;
			cr_assert(d >= w / 2 && d <= w, "attempt %ld: %ld ms", a, d);
		}
	cr_expect_eq(vtb_upload_retry_delay(500, 1, 0, 0), 250);
	cr_expect_eq(vtb_upload_retry_delay(500, 3, 0, 0.5), 1500);
	cr_expect_eq(vtb_upload_retry_delay(86400000, 100, 0, 0), VTB_UPLOAD_MAX_DELAY_MS / 2);
	cr_expect_leq(vtb_upload_retry_delay(86400000, 100, 0, 0.999999), VTB_UPLOAD_MAX_DELAY_MS);
}

Test(upload, a_huge_retry_after_is_capped_not_overflowed)
{
	/* Retry-After: 9223372036854775807 times 1000 overflowed: the
	 * retries fired back to back */
	cr_expect_eq(vtb_upload_retry_delay(500, 2, 9223372036854775807LL, 0.5),
		     VTB_UPLOAD_MAX_RETRY_AFTER_S * 1000);
	cr_expect_eq(vtb_upload_retry_delay(500, 2, 86401, 0.5),
		     VTB_UPLOAD_MAX_RETRY_AFTER_S * 1000);
	cr_expect_eq(vtb_upload_retry_delay(500, 2, 3, 0.5), 3000);
}

/*
 * Texts from the database are cut (issue 25: 50 MB in host.hostname
 * took an upload past 4 GB): at most the limit, on a character
 * boundary, the cut marked with the whole's length and CRC, the same
 * way every time, two long values with one prefix kept apart.
 */
Test(upload, long_texts_are_cut_and_marked)
{
	char *big = malloc(1001), *big2, *a, *b, *c, *u, *mark;
	char *utf = malloc(1001);

	cr_assert(big && utf);
	memset(big, 'x', 1000);
	big[1000] = '\0';
	cr_expect_null(vtb_upload_text(NULL, 256));
	a = vtb_upload_text("fixture-host", 256);
	cr_expect_str_eq(a, "fixture-host");
	free(a);
	a = vtb_upload_text(big + 744, 256); /* 256 bytes: whole */
	cr_expect_eq(strlen(a), 256);
	cr_expect_eq(strspn(a, "x"), 256);
	free(a);
	a = vtb_upload_text(big, 256);
	mark = vtb_asprintf("...[cut: 1000 bytes, crc32 %08x]", (unsigned)vtb_crc32(big, 1000));
	cr_expect_eq(strlen(a), 256);
	cr_expect_eq(strspn(a, "x"), 256 - strlen(mark));
	cr_expect_str_eq(a + 256 - strlen(mark), mark);
	b = vtb_upload_text(big, 256);
	cr_expect_str_eq(a, b, "the same value is cut the same way");
	big2 = strdup(big);
	big2[999] = 'y';
	c = vtb_upload_text(big2, 256);
	cr_expect_str_neq(a, c, "values that differ past the cut stay apart");
	free(b);
	b = vtb_upload_text(big, 10);
	cr_expect_leq(strlen(b), 64, "a limit below 64 bytes is 64");
	cr_expect(strstr(b, "[cut: 1000 bytes"));
	/* 500 two-byte characters: cut between two of them */
	for (int i = 0; i < 500; i++)
		memcpy(utf + 2 * i, "\xc3\xa9", 2);
	utf[1000] = '\0';
	u = vtb_upload_text(utf, 256);
	cr_expect_leq(strlen(u), 256);
	cr_expect(vtb_utf8_valid(u, strlen(u)), "%s", u);
	cr_assert(strstr(u, "...[cut"));
	cr_expect_eq((strstr(u, "...[cut") - u) % 2, 0, "whole characters kept");
	free(a);
	free(b);
	free(c);
	free(u);
	free(mark);
	free(big);
	free(big2);
	free(utf);
}
