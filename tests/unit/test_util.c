/* Unit tests of common/vtbutil.c: units, cpulists, CRC, ids. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/index.h"
#include "../../common/vtbutil.h"

Test(util, time_units)
{
	uint64_t ns;

	cr_assert_eq(vtb_parse_time_ns("250us", &ns), 0);
	cr_expect_eq(ns, 250000);
	cr_assert_eq(vtb_parse_time_ns("10ms", &ns), 0);
	cr_expect_eq(ns, 10000000);
	cr_assert_eq(vtb_parse_time_ns("1.5s", &ns), 0);
	cr_expect_eq(ns, 1500000000);
	cr_assert_eq(vtb_parse_time_ns("5m", &ns), 0);
	cr_expect_eq(ns, 300000000000ull);
	cr_assert_eq(vtb_parse_time_ns("2h", &ns), 0);
	cr_expect_eq(ns, 7200000000000ull);
	cr_assert_eq(vtb_parse_time_ns("3", &ns), 0, "a bare number is seconds");
	cr_expect_eq(ns, 3000000000ull);
	cr_assert_eq(vtb_parse_time_ns("200000000ns", &ns), 0);
	cr_expect_eq(ns, 200000000);
}

Test(util, time_errors)
{
	uint64_t ns;

	cr_expect_eq(vtb_parse_time_ns("", &ns), -1);
	cr_expect_eq(vtb_parse_time_ns("-1s", &ns), -1);
	cr_expect_eq(vtb_parse_time_ns("10 parsecs", &ns), -1);
	cr_expect_str_eq(vtb_errmsg(),
			 "bad time unit in '10 parsecs': expected ns, us, ms, s, m or h (a bare number means seconds)");
	cr_expect_eq(vtb_parse_time_ns("3000000h", &ns), -1, "beyond 2^63 ns");
	cr_expect_str_eq(vtb_errmsg(), "time '3000000h' is too large");
}

Test(util, sizes)
{
	uint64_t b;

	cr_assert_eq(vtb_parse_size("4096", &b), 0);
	cr_expect_eq(b, 4096);
	cr_assert_eq(vtb_parse_size("4K", &b), 0);
	cr_expect_eq(b, 4096);
	cr_assert_eq(vtb_parse_size("512M", &b), 0);
	cr_expect_eq(b, 512ull << 20);
	cr_assert_eq(vtb_parse_size("4GiB", &b), 0);
	cr_expect_eq(b, 4ull << 30);
	cr_expect_eq(vtb_parse_size("4Q", &b), -1);
	cr_expect_eq(vtb_parse_size("0.3K", &b), -1, "not a whole number of bytes");
	cr_expect_eq(vtb_parse_size("99999999E", &b), -1);
}

Test(util, format_time_is_readable)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} cases[] = {
		{ 999, "999ns" },
		{ 250000, "250us" },
		{ 1500000000, "1.5s" },
		{ 120000000000ull, "2m" },
		{ 90000000000ull, "1m30s" },
		{ 3600000000000ull, "1h" },
		{ 5400000000000ull, "1h30m" },
		{ 2592000000000000ull, "720h" },
		{ 3605000000000ull, "1h0m5s" },
	};

	for (size_t i = 0; i < VTB_ARRAY_SIZE(cases); i++) {
		char *s = vtb_format_time_ns(cases[i].ns);

		cr_expect_str_eq(s, cases[i].want);
		free(s);
	}
}

Test(util, cpulists_round_trip)
{
	struct vtb_cpuset set = { NULL, 0 };
	char *s;

	cr_assert_eq(vtb_cpuset_parse("8,0-3, 10-11,2", &set), 0);
	cr_expect_eq(set.n, 7);
	s = vtb_cpuset_format(&set);
	cr_expect_str_eq(s, "0-3,8,10-11");
	free(s);
	cr_expect(vtb_cpuset_has(&set, 10));
	cr_expect(!vtb_cpuset_has(&set, 9));
	cr_assert_eq(vtb_cpuset_parse("0-65535", &set), 0, "a big range parses");
	cr_expect_eq(set.n, 65536);
	vtb_cpuset_release(&set);
	cr_expect_eq(vtb_cpuset_parse("3-1", &set), -1);
	cr_expect_eq(vtb_cpuset_parse("0,", &set), -1);
	cr_expect_eq(vtb_cpuset_parse("a", &set), -1);
	cr_expect_str_eq(vtb_errmsg(), "bad CPU list 'a': expected e.g. 0-3,8,10-11");
}

Test(util, crc32_matches_zlib)
{
	/* the standard check value of CRC-32/ISO-HDLC (zlib's crc32) */
	cr_expect_eq(vtb_crc32("123456789", 9), 0xcbf43926u);
	cr_expect_eq(vtb_crc32("", 0), 0);
}

/* The index finds each element by its key however many share one, keeps
 * them across growth, and finds nothing for a key never added. */
Test(util, index_finds_every_element_added)
{
	struct vtb_index x = VTB_INDEX_INIT;
	size_t pos = 0, item, seen, i;

	cr_expect(!vtb_index_next(&x, "a", 1, &pos, &item));
	for (i = 0; i < 5000; i++)
		cr_assert_eq(vtb_index_add(&x, &i, sizeof(i), i), 0);
	/* 300 elements of one key: a long chain through every growth */
	for (i = 5000; i < 5300; i++)
		cr_assert_eq(vtb_index_add(&x, "same", 4, i), 0);
	cr_expect_eq(x.n, 5300);
	cr_expect_leq(2 * x.n, x.nslots);
	for (i = 0; i < 5000; i++) {
		bool found = false;

		for (pos = 0; vtb_index_next(&x, &i, sizeof(i), &pos, &item);)
			found |= item == i;
		cr_expect(found, "element %zu not found", i);
	}
	for (seen = 0, pos = 0; vtb_index_next(&x, "same", 4, &pos, &item);) {
		cr_expect(item >= 5000 && item < 5300);
		seen++;
	}
	cr_expect_eq(seen, 300);
	pos = 0;
	cr_expect(!vtb_index_next(&x, "other", 5, &pos, &item), "a key never added found %zu",
		  item);
	vtb_index_release(&x);
	cr_expect_null(x.slots);
	vtb_index_release(NULL);
}

/* Its keys are hashed with a secret drawn per index: what lands where
 * cannot be chosen by whoever writes the keys. */
Test(util, index_hashes_with_a_secret_per_index)
{
	struct vtb_index a = VTB_INDEX_INIT, b = VTB_INDEX_INIT;

	cr_assert_eq(vtb_index_add(&a, "k", 1, 0), 0);
	cr_assert_eq(vtb_index_add(&b, "k", 1, 0), 0);
	cr_expect(a.key.k0 != b.key.k0 || a.key.k1 != b.key.k1);
	cr_expect(a.key.k0 || a.key.k1);
	vtb_index_release(&a);
	vtb_index_release(&b);
}

Test(util, cpusets_are_equal_by_their_cpus)
{
	struct vtb_cpuset a = { NULL, 0 }, b = { NULL, 0 }, e = { NULL, 0 };

	cr_assert_eq(vtb_cpuset_parse("0-3,8", &a), 0);
	cr_assert_eq(vtb_cpuset_parse("8,3,2,1,0", &b), 0);
	cr_expect(vtb_cpuset_equal(&a, &b));
	cr_expect(!vtb_cpuset_equal(&a, &e));
	cr_expect(vtb_cpuset_equal(&e, &e));
	cr_assert_eq(vtb_cpuset_add(&b, 9), 0);
	cr_expect(!vtb_cpuset_equal(&a, &b));
	vtb_cpuset_release(&a);
	vtb_cpuset_release(&b);
}

Test(util, uuid_is_v4)
{
	char a[37], b[37];

	cr_assert_eq(vtb_uuid(a), 0);
	cr_assert_eq(vtb_uuid(b), 0);
	cr_expect_eq(strlen(a), 36);
	cr_expect_eq(a[14], '4');
	cr_expect(strchr("89ab", a[19]) != NULL);
	cr_expect_str_neq(a, b);
}

Test(util, strbuf_and_errors_never_truncate)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	char big[5000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cr_assert_eq(vtb_strbuf_addf(&sb, "%s-%d", big, 7), 0);
	cr_expect_eq(sb.len, sizeof(big) - 1 + 2);
	vtb_strbuf_release(&sb);
	cr_expect_eq(vtb_error("%s", big), -1);
	cr_expect_eq(strlen(vtb_errmsg()), sizeof(big) - 1);
}

Test(util, hex_floats_are_refused)
{
	uint64_t v;

	/* strtod reads "0x1p30" as 2^30: a matrix value must be decimal */
	cr_expect_eq(vtb_parse_size("0x1p30", &v), -1);
	cr_expect(strstr(vtb_errmsg(), "hexadecimal"), "%s", vtb_errmsg());
	cr_expect_eq(vtb_parse_size(" 0X40000000", &v), -1);
	cr_expect_eq(vtb_parse_time_ns("0x1p3s", &v), -1);
	cr_expect(strstr(vtb_errmsg(), "hexadecimal"), "%s", vtb_errmsg());
	cr_expect_eq(vtb_parse_size("0.5K", &v), 0, "decimal fractions still parse");
	cr_expect_eq(v, 512);
}

Test(util, utf8_strict)
{
	bool tr;

	cr_expect(vtb_utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14));
	cr_expect(vtb_utf8_valid("\xed\x9f\xbf", 3), "U+D7FF");
	cr_expect(vtb_utf8_valid("\xf4\x8f\xbf\xbf", 4), "U+10FFFF");
	cr_expect(!vtb_utf8_valid("\xed\xa0\x80", 3), "a surrogate, U+D800");
	cr_expect(!vtb_utf8_valid("\xed\xbf\xbf", 3), "a surrogate, U+DFFF");
	cr_expect(!vtb_utf8_valid("\xf4\x90\x80\x80", 4), "U+110000");
	cr_expect(!vtb_utf8_valid("\xf5\x80\x80\x80", 4));
	cr_expect(!vtb_utf8_valid("\xc0\xaf", 2), "overlong '/'");
	cr_expect(!vtb_utf8_valid("\xe0\x80\xaf", 3), "overlong '/'");
	cr_expect(!vtb_utf8_valid("\xf0\x80\x80\xaf", 4), "overlong '/'");
	cr_expect(!vtb_utf8_valid("\x80", 1));
	cr_expect_eq(vtb_utf8_char("\xe2\x82", 2, &tr), 0);
	cr_expect(tr, "a valid start that ran out of bytes");
	cr_expect_eq(vtb_utf8_char("\xe2\x28\xac", 3, &tr), 0);
	cr_expect(!tr);
}

Test(util, utf8_cut_keeps_characters_whole)
{
	/* "aé€😀": 1 + 2 + 3 + 4 bytes */
	const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	size_t n = strlen(s);

	for (size_t max = 0; max <= n + 1; max++) {
		size_t c = vtb_utf8_cut(s, n, max);

		cr_expect(c <= max && c <= n);
		cr_expect(vtb_utf8_valid(s, c), "cut at %zu of max %zu splits a character", c, max);
	}
	cr_expect_eq(vtb_utf8_cut(s, n, 2), 1);
	cr_expect_eq(vtb_utf8_cut(s, n, 3), 3);
	cr_expect_eq(vtb_utf8_cut(s, n, 9), 6);
	cr_expect_eq(vtb_utf8_cut(s, n, 10), 10);
}

Test(util, term_safe_shows_control_characters)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "plain text", "plain text" },
		{ "\x1b]52;c;ZXZpbA==\x07", "\\x1b]52;c;ZXZpbA==\\x07" },
		{ "a\rb\nc\td\x7f\x01", "a\\rb\\nc\\td\\x7f\\x01" },
		{ "C:\\x1b", "C:\\\\x1b" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "csi \xc2\x9b"
		  "31m",
		  "csi \\u009b31m" },
		{ "rtl \xe2\x80\xae"
		  "x \xe2\x81\xa6"
		  "y \xe2\x80\xa8",
		  "rtl \\u202ex \\u2066y \\u2028" },
		{ "bad \xff\xfe utf8 \xed\xa0\x80!", "bad \\xff\\xfe utf8 \\xed\\xa0\\x80!" },
		{ "cut \xe2\x82", "cut \\xe2\\x82" },
		{ "", "" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *s = vtb_term_safe(t[i].in);

		cr_assert_not_null(s);
		cr_expect_str_eq(s, t[i].out);
		free(s);
	}
	char *s = vtb_term_safe(NULL);
	cr_expect_str_eq(s, "");
	free(s);
}

/* mkdir -p: the umask applies unless the mode must be exact (the guest
 * staging directory, which the hypervisor's user enters). */
Test(util, mkdir_p_makes_parents_with_the_mode_asked)
{
	char tmpl[] = "/tmp/vtbmkdir.XXXXXX", *root = mkdtemp(tmpl), *a, *b, *f;
	mode_t old = umask(077);
	struct stat st;
	FILE *fp;

	cr_assert_not_null(root);
	a = vtb_asprintf("%s/a/b/c", root);
	b = vtb_asprintf("%s/x/y", root);
	f = vtb_asprintf("%s/file", root);
	cr_assert_eq(vtb_mkdir_p(a, 0755, false), 0, "%s", vtb_errmsg());
	cr_assert_eq(stat(a, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0700, "umask kept: %o", st.st_mode & 0777);
	cr_assert_eq(vtb_mkdir_p(b, 0755, true), 0, "%s", vtb_errmsg());
	cr_assert_eq(stat(b, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0755, "exact: %o", st.st_mode & 0777);
	cr_assert_eq(vtb_mkdir_p(a, 0755, false), 0, "an existing directory is fine");
	fp = fopen(f, "w");
	cr_assert_not_null(fp);
	fclose(fp);
	cr_expect_lt(vtb_mkdir_p(f, 0755, false), 0);
	cr_expect_not_null(strstr(vtb_errmsg(), "not a directory"), "%s", vtb_errmsg());
	umask(old);
	unlink(f);
	for (const char *const *d = (const char *const[]){ "a/b/c", "a/b", "a", "x/y", "x", NULL }; *d;
	     d++) {
		char *p = vtb_asprintf("%s/%s", root, *d);

		rmdir(p);
		free(p);
	}
	rmdir(root);
	free(a);
	free(b);
	free(f);
}
