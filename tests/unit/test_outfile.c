/* Unit tests of common/outfile.c, the one output rule: what the CLI test
 * (tests/e2e/output_rule.sh) cannot time, such as a file planted at the
 * path while the output was being written. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/outfile.h"
#include "../../common/vtbutil.h"

static char dir[] = "/tmp/vtboutfile.XXXXXX";

static void setup(void)
{
	cr_assert(mkdtemp(dir));
}

/* the directory is flat: its entries, then itself */
static void teardown(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

static char *at(const char *name)
{
	char *p = vtb_asprintf("%s/%s", dir, name);

	cr_assert(p);
	return p;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *path)
{
	char *s = vtb_read_file(path, 1 << 20);

	cr_assert(s, "read %s: %s", path, vtb_errmsg());
	return s;
}

TestSuite(outfile, .init = setup, .fini = teardown);

Test(outfile, a_new_file_never_replaces_one_planted_while_it_was_written)
{
	char *path = at("new.txt"), *s;
	struct vtb_outfile o;

	cr_assert_eq(vtb_outfile_open(&o, path, 0, NULL), 0, "%s", vtb_errmsg());
	fputs("ours\n", o.f);
	put(path, "planted");
	cr_expect_eq(vtb_outfile_commit(&o), -1);
	cr_expect(strstr(vtb_errmsg(), "it appeared while it was written"), "%s", vtb_errmsg());
	vtb_outfile_abandon(&o);
	s = get(path);
	cr_expect_str_eq(s, "planted");
	free(s);
	free(path);
}

Test(outfile, a_replaced_file_is_whole_until_commit_and_abandon_keeps_the_old)
{
	char *path = at("old.txt"), *s;
	struct vtb_outfile o;

	put(path, "old");
	cr_assert_eq(vtb_outfile_open(&o, path, 0, NULL), 0, "%s", vtb_errmsg());
	fputs("new\n", o.f);
	fflush(o.f);
	s = get(path);
	cr_expect_str_eq(s, "old", "the old file stays until commit");
	free(s);
	vtb_outfile_abandon(&o);
	s = get(path);
	cr_expect_str_eq(s, "old", "abandon leaves it as it was");
	free(s);
	cr_assert_eq(vtb_outfile_write(path, 0, NULL, "new", 3, NULL), 0, "%s", vtb_errmsg());
	s = get(path);
	cr_expect_str_eq(s, "new");
	free(s);
	free(path);
}

Test(outfile, named_dir_refuses_symlinks_even_to_regular_files)
{
	char *victim = at("victim"), *link = at("k.xml"), *s;

	put(victim, "victim");
	cr_assert_eq(symlink("victim", link), 0);
	cr_expect_eq(vtb_outfile_write(link, VTB_OUT_NAMED_DIR, NULL, "x", 1, NULL),
		     VTB_OUT_EINPUT);
	s = get(victim);
	cr_expect_str_eq(s, "victim");
	free(s);
	free(victim);
	free(link);
}

Test(outfile, a_symlink_is_resolved_and_said)
{
	char *target = at("t.txt"), *link = at("l.txt"), *note = NULL, *s;
	struct stat st;

	put(target, "old");
	cr_assert_eq(symlink("t.txt", link), 0);
	cr_assert_eq(vtb_outfile_write(link, 0, NULL, "new", 3, &note), 0, "%s", vtb_errmsg());
	cr_assert(note);
	cr_expect(strstr(note, "is a symbolic link: writing its target"), "%s", note);
	cr_expect_eq(lstat(link, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the link stays a link");
	s = get(target);
	cr_expect_str_eq(s, "new");
	free(s);
	free(note);
	free(target);
	free(link);
}

Test(outfile, inputs_are_refused_by_inode_and_by_sqlite_side_file_name)
{
	char *db = at("r.db"), *alias = at("alias"), *wal = at("r.db-wal"), *s;
	struct vtb_out_input in[] = { { .path = db, .what = "the database", .sqlite = true },
				      { 0 } };

	put(db, "db");
	cr_assert_eq(link(db, alias), 0);
	cr_expect_eq(vtb_outfile_write(db, 0, in, "x", 1, NULL), VTB_OUT_EINPUT);
	cr_expect_eq(vtb_outfile_write(alias, 0, in, "x", 1, NULL), VTB_OUT_EINPUT,
		     "a hard link is the same file");
	cr_expect_eq(vtb_outfile_write(wal, 0, in, "x", 1, NULL), VTB_OUT_EINPUT,
		     "a -wal that does not exist yet is still the database's");
	cr_expect(strstr(vtb_errmsg(), "it is the wal file of the database"), "%s", vtb_errmsg());
	cr_expect_neq(access(wal, F_OK), 0);
	s = get(db);
	cr_expect_str_eq(s, "db");
	free(s);
	free(db);
	free(alias);
	free(wal);
}

Test(outfile, a_fifo_in_a_named_dir_is_refused_without_blocking)
{
	char *fifo = at("f.xml");

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_expect_eq(vtb_outfile_write(fifo, VTB_OUT_NAMED_DIR, NULL, "x", 1, NULL),
		     VTB_OUT_EINPUT);
	free(fifo);
}
