/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: compare over a mutated database.  The seed is the generated
 * compare fixture (compare-seed.sql: `mkfixture OUT.db base` dumped),
 * loaded once with its NOT NULL and CHECK constraints dropped, as a hand
 * edit of the schema would (integrity_check still passes such a file).
 * Each input is a width (its first two bytes: 1 to 400) and a list of
 * mutations (set a column of a row to NULL, to text that may not be
 * UTF-8, to a long text (up to 512 KiB: a piece of the input repeated),
 * to an integer, a real, a JSON fragment; delete or copy a row) applied
 * to a copy, which is written to a file and opened as `vtbench compare`
 * opens it; then the document goes through every emitter, text at that
 * width.  A crafted database must give an error, never a crash, a leak,
 * undefined behaviour or a hang (libFuzzer's -timeout), and text must
 * keep report.h's promise of widths (issue 25: a narrow width or a long
 * unit made the old layout pad forever): every line within max(W,
 * VTB_REPORT_TABLE_COLUMNS), a line outside a table within W, W the width
 * and VTB_REPORT_MIN_COLUMNS at least.  Byte-level damage to the file is
 * SQLite's own business (its "malformed" is an input error here).
 */
#include <sqlite3.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/compare/compare.h"
#include "../../reports/report.h"
#include "../../harness/store/store.h"
#include "../../common/vtbutil.h"
#include "fuzz.h"

#define MAX_OPS 16
#define MAX_WIDTH 400
#define LONG_MAX_BYTES (512 * 1024)

struct table {
	char *name;
	char **cols; /* without the rowid alias */
	size_t ncols;
	int64_t max_rowid;
};

static sqlite3 *seed;
static struct table *tables;
static size_t ntables;
static char path[4096];
static FILE *devnull;

static void cleanup(void)
{
	unlink(path);
}

/* Drops "NOT NULL" and "CHECK (...)" from the CREATE TABLE statements. */
static void loosen(char *sql)
{
	for (char *c = sql; (c = strstr(c, "CREATE TABLE"));) {
		char *end = strstr(c, ");\n");

		if (!end)
			break;
		for (char *p = c; p < end; p++) {
			if (!strncmp(p, "NOT NULL", 8)) {
				memset(p, ' ', 8);
			} else if (!strncmp(p, "CHECK", 5)) {
				char *q = p + 5;
				int depth = 0;

				while (q < end && *q == ' ')
					q++;
				if (*q != '(')
					continue;
				for (; q < end; q++) {
					depth += (*q == '(') - (*q == ')');
					if (!depth)
						break;
				}
				memset(p, ' ', (size_t)(q - p) + 1);
			}
		}
		c = end;
	}
}

static void load_tables(void)
{
	sqlite3_stmt *t = NULL, *c = NULL;

	CHECK(sqlite3_prepare_v2(seed, "SELECT name FROM sqlite_master WHERE type = 'table'", -1,
				 &t, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(seed, "SELECT name, pk FROM pragma_table_info(?1)", -1, &c,
				 NULL) == SQLITE_OK);
	while (sqlite3_step(t) == SQLITE_ROW) {
		struct table *g = realloc(tables, (ntables + 1) * sizeof(*g));
		struct table *tb;
		char *q;
		sqlite3_stmt *m = NULL;

		CHECK(g);
		tables = g;
		tb = &tables[ntables++];
		memset(tb, 0, sizeof(*tb));
		tb->name = strdup((const char *)sqlite3_column_text(t, 0));
		sqlite3_reset(c);
		sqlite3_bind_text(c, 1, tb->name, -1, SQLITE_STATIC);
		while (sqlite3_step(c) == SQLITE_ROW) {
			if (sqlite3_column_int(c, 1) && strcmp(tb->name, "guest_view"))
				continue; /* id: the rowid */
			tb->cols = realloc(tb->cols, (tb->ncols + 1) * sizeof(*tb->cols));
			CHECK(tb->cols);
			tb->cols[tb->ncols++] = strdup((const char *)sqlite3_column_text(c, 0));
		}
		q = vtb_asprintf("SELECT coalesce(max(rowid), 0) FROM \"%s\"", tb->name);
		CHECK(q && sqlite3_prepare_v2(seed, q, -1, &m, NULL) == SQLITE_OK);
		CHECK(sqlite3_step(m) == SQLITE_ROW);
		tb->max_rowid = sqlite3_column_int64(m, 0);
		sqlite3_finalize(m);
		free(q);
	}
	sqlite3_finalize(t);
	sqlite3_finalize(c);
	CHECK(ntables > 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *src = getenv("SRCDIR"), *tmp = getenv("TMPDIR");
	char *file = vtb_asprintf("%s/tests/fuzz/compare-seed.sql", src && *src ? src : ".");
	char *sql = file ? vtb_read_file(file, 16 << 20) : NULL;
	int fd;

	(void)argc;
	(void)argv;
	if (!sql) {
		fprintf(stderr, "fuzz_compare: %s (set SRCDIR to the source tree)\n", vtb_errmsg());
		abort();
	}
	loosen(sql);
	CHECK(sqlite3_open(":memory:", &seed) == SQLITE_OK);
	if (sqlite3_exec(seed, sql, NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "fuzz_compare: the seed: %s\n", sqlite3_errmsg(seed));
		abort();
	}
	free(sql);
	free(file);
	load_tables();
	snprintf(path, sizeof(path), "%s/vtbfuzz-db.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	atexit(cleanup);
	devnull = fopen("/dev/null", "w");
	CHECK(devnull);
	return 0;
}

/* ---- the input as mutations ---- */

struct in {
	const uint8_t *d;
	size_t n, pos;
};

static unsigned u8(struct in *in)
{
	return in->pos < in->n ? in->d[in->pos++] : 0;
}

static unsigned u16(struct in *in)
{
	unsigned hi = u8(in);

	return hi << 8 | u8(in);
}

static uint64_t u64(struct in *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | u8(in);
	return v;
}

static const char *const fragments[] = {
	"[]",
	"{}",
	"null",
	"\"x\"",
	"1e999",
	"[[1,-5]]",
	"[[1,2],[1,3]]",
	"[[70,1],[1,1]]",
	"[[0,9223372036854775807],[1,9223372036854775807]]",
	"[[99999999,1]]",
	"[1,2]",
	"{\"kind\":\"loglinear\",\"bits\":6,\"unit\":\"us\"}",
	"{\"kind\":\"loglinear\",\"bits\":99,\"unit\":\"us\"}",
	"{\"kind\":\"linear\"}",
	"{\"matrix\":{\"cpus\":[0,1],\"ns\":[[0,1],[1,0]]}}",
	"{\"matrix\":{\"cpus\":[],\"ns\":[[null]]}}",
	"{\"vcpus\":\"-1\",\"cpus\":\"99999999999\"}",
	"{\"claims\":[{\"kind\":\"smt\",\"state\":\"bogus\"}]}",
	"{\"claims\":7}",
	"ok",
	"failed",
	"vm",
	"baseline",
	"higher",
	"lower",
	"unexpected-topology",
	"",
	"\xff\xfe",
	"\xed\xa0\x80",
	"a\x1b]52;c;x\x07",
};

static void mutate(sqlite3 *db, struct in *in)
{
	const struct table *t = &tables[u8(in) % ntables];
	unsigned op = u8(in) % 8;
	const char *col = t->ncols ? t->cols[u8(in) % t->ncols] : NULL;
	int64_t row = (int64_t)(u8(in) % (unsigned)(t->max_rowid + 2));
	sqlite3_stmt *s = NULL;
	char *q = NULL;

	if (!col)
		return;
	if (op == 4) {
		q = vtb_asprintf("DELETE FROM \"%s\" WHERE rowid = ?2", t->name);
	} else if (op == 6) {
		struct vtb_strbuf cols = VTB_STRBUF_INIT;

		for (size_t i = 0; i < t->ncols; i++)
			vtb_strbuf_addf(&cols, "%s\"%s\"", i ? ", " : "", t->cols[i]);
		q = vtb_asprintf(
			"INSERT OR IGNORE INTO \"%s\" (%s) SELECT %s FROM \"%s\" WHERE rowid = ?2",
			t->name, vtb_strbuf_str(&cols), vtb_strbuf_str(&cols), t->name);
		vtb_strbuf_release(&cols);
	} else {
		q = vtb_asprintf("UPDATE OR IGNORE \"%s\" SET \"%s\" = %s WHERE rowid = ?2",
				 t->name, col,
				 op == 1 || op == 5 || op == 7 ? "CAST(?1 AS TEXT)" : "?1");
	}
	if (!q || sqlite3_prepare_v2(db, q, -1, &s, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(s, 2, row);
	switch (op) {
	case 0:
		sqlite3_bind_null(s, 1);
		break;
	case 1: {
		size_t len = u8(in) % 48;

		if (len > in->n - in->pos)
			len = in->n - in->pos;
		sqlite3_bind_blob(s, 1, in->d + in->pos, (int)len, SQLITE_TRANSIENT);
		in->pos += len;
		break;
	}
	case 2:
		sqlite3_bind_int64(s, 1, (int64_t)u64(in));
		break;
	case 3: {
		uint64_t b = u64(in);
		double d;

		memcpy(&d, &b, sizeof(d));
		sqlite3_bind_double(s, 1, d);
		break;
	}
	case 5: {
		const char *f = fragments[u8(in) % VTB_ARRAY_SIZE(fragments)];

		sqlite3_bind_blob(s, 1, f, (int)strlen(f), SQLITE_STATIC);
		break;
	}
	case 7: {
		/* a piece of the input (1 to 16 bytes) repeated to 8 x N bytes */
		size_t piece = u8(in) % 16 + 1, len = (size_t)u16(in) * 8;
		char *b;

		if (piece > in->n - in->pos)
			piece = in->n - in->pos;
		if (!len || !piece)
			break;
		if (len > LONG_MAX_BYTES)
			len = LONG_MAX_BYTES;
		b = malloc(len);
		CHECK(b);
		for (size_t i = 0; i < len; i++)
			b[i] = (char)in->d[in->pos + i % piece];
		in->pos += piece;
		sqlite3_bind_blob(s, 1, b, (int)len, free);
		break;
	}
	default:
		break;
	}
	sqlite3_step(s);
out:
	sqlite3_finalize(s);
	free(q);
}

static void copy(sqlite3 *to, sqlite3 *from)
{
	sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");

	CHECK(b);
	CHECK(sqlite3_backup_step(b, -1) == SQLITE_DONE);
	CHECK(sqlite3_backup_finish(b) == SQLITE_OK);
}

/* Columns of @n bytes of @s: one per code point, as reports count. */
static size_t width_of(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Text at width @w, every line checked against report.h's promise: a
 * table (from a "metric" or "config" header to a blank line) within
 * max(W, VTB_REPORT_TABLE_COLUMNS), any other line within W. */
static void check_text(const json_t *doc, size_t w)
{
	const struct vtb_report_ops *text = vtb_report_find("text");
	struct vtb_report_opts o = { .columns = w };
	size_t W = w < VTB_REPORT_MIN_COLUMNS ? VTB_REPORT_MIN_COLUMNS : w, len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	bool table = false;

	CHECK(text && f);
	if (text->render(doc, &o, f) < 0) {
		fclose(f);
		free(buf);
		return;
	}
	CHECK(fclose(f) == 0);
	for (const char *p = buf; *p;) {
		size_t n = strcspn(p, "\n"), lw = width_of(p, n);
		size_t max = !table			    ? W
			     : W > VTB_REPORT_TABLE_COLUMNS ? W
							    : VTB_REPORT_TABLE_COLUMNS;

		if (!strncmp(p, "metric  ", 8) || !strncmp(p, "config  ", 8)) {
			table = true;
			max = W > VTB_REPORT_TABLE_COLUMNS ? W : VTB_REPORT_TABLE_COLUMNS;
		} else if (!n) {
			table = false;
		}
		if (lw > max) {
			fprintf(stderr,
				"fuzz_compare: text at %zu: a %s line of %zu columns: %.*s\n", w,
				table ? "table" : "prose", lw, (int)n, p);
			abort();
		}
		p += n + (p[n] == '\n');
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size, 0 };
	size_t width = u16(&in) % MAX_WIDTH + 1;
	struct vtb_compare_opts o;
	struct vtb_store *st = NULL;
	sqlite3 *work = NULL, *file = NULL;
	json_t *doc = NULL;
	bool bad = false;

	CHECK(sqlite3_open(":memory:", &work) == SQLITE_OK);
	copy(work, seed);
	for (int i = 0; i < MAX_OPS && in.pos < in.n; i++)
		mutate(work, &in);
	CHECK(sqlite3_open(path, &file) == SQLITE_OK);
	/* a scratch file: no journal, no fsync */
	sqlite3_exec(file, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", NULL, NULL, NULL);
	copy(file, work);
	sqlite3_close(file);
	sqlite3_close(work);

	if (vtb_store_open_ro(path, &st) < 0)
		return 0;
	vtb_compare_opts_default(&o);
	if (vtb_compare_build(st, path, NULL, NULL, &o, &doc, &bad) == 0) {
		char *j = json_dumps(doc, JSON_COMPACT);

		CHECK(j);
		free(j);
		for (size_t i = 0; vtb_reports[i]; i++)
			if (strcmp(vtb_reports[i]->name, "text"))
				vtb_reports[i]->render(doc, NULL, devnull);
		check_text(doc, width);
		json_decref(doc);
	} else {
		const char *e = vtb_errmsg();

		CHECK(*e);
		CHECK(doc == NULL);
	}
	vtb_store_close(st);
	return 0;
}
