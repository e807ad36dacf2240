/* SPDX-License-Identifier: MIT */
/*
 * guest: the newc writer (checked by the real cpio), bzImage release
 * parsing, the kernel choice and its notes, readability by others,
 * staging, the per-boot image's alignment, and the sweep.  Everything
 * happens in a fresh temporary directory per test; bzImages are fakes
 * with just enough setup header, plus Debian's real kernel when
 * scripts/fetch-kernel.sh has fetched it.
 *
 * Tests run as root, so "this process cannot read it" cannot be made
 * with chmod: a dangling vmlinuz-* symlink stands in for an unreadable
 * kernel, and readability by others is proved with modes alone.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../harness/boot/guest.h"
#include "../../harness/matrix/conf.h"
#include "../../common/vtbutil.h"

extern char **environ;

static char root[64];

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/vtbguest.XXXXXX");
	cr_assert(mkdtemp(root));
	/* mkdtemp makes it 0700: others must be able to enter it. */
	cr_assert_eq(chmod(root, 0755), 0);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void teardown(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(guest, .init = setup, .fini = teardown);

/* ROOT/rel, in a static ring so a test can hold a few at once. */
static const char *at(const char *rel)
{
	static char ring[8][PATH_MAX];
	static int next;
	char *p = ring[next++ % 8];

	snprintf(p, PATH_MAX, "%s/%s", root, rel);
	return p;
}

/* printf into a static ring (tests must not leak under ASan). */
static const char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static const char *fmt(const char *f, ...)
{
	static char ring[8][2048];
	static int next;
	char *p = ring[next++ % 8];
	va_list ap;

	va_start(ap, f);
	vsnprintf(p, sizeof(ring[0]), f, ap);
	va_end(ap);
	return p;
}

static void mkdir_mode(const char *path, mode_t mode)
{
	cr_assert_eq(mkdir(path, mode), 0, "mkdir %s: %s", path, strerror(errno));
	cr_assert_eq(chmod(path, mode), 0);
}

static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	cr_assert(fd >= 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	cr_assert_eq(close(fd), 0);
	cr_assert_eq(chmod(path, mode), 0);
}

/* Whole file, malloc'ed; *len its size. */
static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	int fd = open(path, O_RDONLY);

	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	cr_assert(buf);
	cr_assert_eq(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	buf[st.st_size] = 0;
	*len = (size_t)st.st_size;
	return buf;
}

/* A minimal bzImage: zeros, "HdrS" at 0x202, and at 0x20e the offset
 * (from 0x200) of @version at 0x1000, as the x86 boot protocol lays out. */
static void fake_bzimage(const char *path, const char *version, mode_t mode)
{
	unsigned char img[8192] = { 0 };
	size_t off = 0x1000 - 0x200;

	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = (unsigned char)(off & 0xff);
	img[0x20f] = (unsigned char)(off >> 8);
	memcpy(img + 0x1000, version, strlen(version) + 1);
	write_file(path, img, sizeof(img), mode);
}

static bool ci(void)
{
	const char *v = getenv("CI");

	return v && !strcmp(v, "true");
}

/*
 * Runs cpio with @argv, stdin from @in, stdout to @out, stderr to
 * /dev/null; returns its exit status.  A missing cpio skips the test,
 * except under CI=true where it fails it: nothing is skipped silently.
 */
static int run_cpio(const char *const argv[], const char *in, const char *out)
{
	posix_spawn_file_actions_t fa;
	int st = -1, rc;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == ENOENT) {
		if (ci())
			cr_assert_fail("cpio is not installed (apt-get install cpio)");
		cr_skip_test("cpio is not installed");
	}
	cr_assert_eq(rc, 0, "posix_spawnp cpio: %s", strerror(rc));
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* cpio -t of @archive, as one string. */
static char *cpio_list(const char *archive)
{
	const char *argv[] = { "cpio", "-t", NULL };
	const char *list = at("list.out");
	size_t len;

	cr_assert_eq(run_cpio(argv, archive, list), 0, "cpio -t rejected %s", archive);
	return (char *)slurp(list, &len);
}

/* cpio -i --to-stdout @member from @archive; *len its size. */
static unsigned char *cpio_extract(const char *archive, const char *member, size_t *len)
{
	const char *argv[] = { "cpio", "-i", "--to-stdout", member, NULL };
	const char *outp = at("member.out");

	cr_assert_eq(run_cpio(argv, archive, outp), 0, "cpio -i rejected %s", archive);
	return slurp(outp, len);
}

static const char JOB[] = "{\"schema\":1,\"nonce\":\"00ff\",\"cells\":[]}";

Test(guest, cpio_archive_is_read_back_by_cpio)
{
	static const char notes[] = "hello"; /* odd length: data padding */
	struct vtb_cpio c;
	unsigned char *got;
	char *list;
	size_t len;

	vtb_cpio_init(&c);
	cr_assert_eq(vtb_cpio_add_file(&c, "job.json", JOB, strlen(JOB), 0644), 0);
	cr_assert_eq(vtb_cpio_add_file(&c, "notes", notes, strlen(notes), 0600), 0);
	cr_assert_eq(vtb_cpio_finish(&c), 0);
	cr_expect_eq(c.len % 512, 0, "archive padded to 512 bytes, not %zu", c.len);
	cr_assert(c.len > 110);
	cr_expect_eq(memcmp(c.buf, "070701", 6), 0);
	cr_expect_eq(memcmp(c.buf + 6 + 8, "000081a4", 8), 0, "mode 0100644");
	write_file(at("a.cpio"), c.buf, c.len, 0644);

	list = cpio_list(at("a.cpio"));
	cr_expect_str_eq(list, "job.json\nnotes\n");
	free(list);
	got = cpio_extract(at("a.cpio"), "job.json", &len);
	cr_expect_eq(len, strlen(JOB));
	cr_expect_eq(memcmp(got, JOB, strlen(JOB)), 0);
	free(got);
	got = cpio_extract(at("a.cpio"), "notes", &len);
	cr_expect_eq(len, strlen(notes));
	cr_expect_eq(memcmp(got, notes, len), 0);
	free(got);
	vtb_cpio_release(&c);
}

Test(guest, cpio_pads_name_and_data_to_four_bytes)
{
	struct vtb_cpio c;

	vtb_cpio_init(&c);
	/* header 110 + "a\0" = 112 (aligned), data 1 byte + 3 of padding */
	cr_assert_eq(vtb_cpio_add_file(&c, "a", "x", 1, 0644), 0);
	cr_assert_eq(c.len, 116);
	cr_expect_eq(c.buf[112], 'x');
	cr_expect_eq(c.buf[113] | c.buf[114] | c.buf[115], 0);
	/* header 110 + "bc\0" = 113, padded to 116; empty data */
	cr_assert_eq(vtb_cpio_add_file(&c, "bc", NULL, 0, 0644), 0);
	cr_expect_eq(c.len, 116 + 116);
	cr_expect_eq(memcmp(c.buf + 116, "070701", 6), 0);
	cr_expect_eq(memcmp(c.buf + 116 + 6, "00000002", 8), 0, "inode numbers count up");
	cr_assert_eq(vtb_cpio_finish(&c), 0);
	cr_expect_eq(memcmp(c.buf + 232 + 110, "TRAILER!!!", 11), 0);
	cr_expect_eq(c.len, 512);
	vtb_cpio_release(&c);
	vtb_cpio_release(NULL);
}

Test(guest, cpio_rejects_names_that_escape_or_end_the_archive)
{
	static const char *const bad[] = { "", "/job.json", "..", "../job.json", "a/../b", "a/..",
					   "a//b", "a/", "TRAILER!!!",
					   /* no parent directory entries are written */
					   "etc/notes" };
	struct vtb_cpio c;

	vtb_cpio_init(&c);
	for (size_t i = 0; i < VTB_ARRAY_SIZE(bad); i++) {
		cr_expect_eq(vtb_cpio_add_file(&c, bad[i], "x", 1, 0644), -1, "'%s' accepted",
			     bad[i]);
		cr_expect(strstr(vtb_errmsg(), "bad cpio member name"), "%s", vtb_errmsg());
	}
	cr_expect_eq(c.len, 0, "nothing written for a rejected name");
	cr_expect_eq(vtb_cpio_add_file(&c, "a..b..c", "x", 1, 0644), 0, "dots inside names");
	cr_expect_eq(vtb_cpio_add_file(&c, "x", "x", 1, 0100644), -1, "mode beyond 07777");
	vtb_cpio_release(&c);
}

Test(guest, kernel_release_reads_the_setup_header)
{
	char *rel;

	fake_bzimage(at("vmlinuz-any-name"), "6.1.0-10-test (me@host) #1 SMP PREEMPT", 0644);
	rel = vtb_kernel_release(at("vmlinuz-any-name"));
	cr_assert_not_null(rel, "%s", vtb_errmsg());
	cr_expect_str_eq(rel, "6.1.0-10-test");
	free(rel);
}

Test(guest, kernel_release_rejects_what_is_not_a_bzimage)
{
	unsigned char img[4096] = { 0 };
	char *rel;

	write_file(at("tiny"), "MZ", 2, 0644);
	cr_expect_null(vtb_kernel_release(at("tiny")));
	cr_expect(strstr(vtb_errmsg(), "is not a Linux bzImage (no x86 boot setup header)"), "%s",
		  vtb_errmsg());

	write_file(at("zeros"), img, sizeof(img), 0644);
	cr_expect_null(vtb_kernel_release(at("zeros")));

	memcpy(img + 0x202, "HdrS", 4);
	write_file(at("nover"), img, sizeof(img), 0644);
	cr_expect_null(vtb_kernel_release(at("nover")), "kernel_version pointer 0");
	cr_expect(strstr(vtb_errmsg(), "no kernel version string"), "%s", vtb_errmsg());

	img[0x20e] = 0xff;
	img[0x20f] = 0xff; /* 0x101ff: far beyond the file */
	write_file(at("beyond"), img, sizeof(img), 0644);
	cr_expect_null(vtb_kernel_release(at("beyond")));
	cr_expect(strstr(vtb_errmsg(), "missing or cut off"), "%s", vtb_errmsg());

	/* A version string that runs into the end of the file. */
	img[0x20e] = (unsigned char)((sizeof(img) - 8 - 0x200) & 0xff);
	img[0x20f] = (unsigned char)((sizeof(img) - 8 - 0x200) >> 8);
	memcpy(img + sizeof(img) - 8, "6.1.0-99", 8);
	write_file(at("cutoff"), img, sizeof(img), 0644);
	cr_expect_null(vtb_kernel_release(at("cutoff")));

	fake_bzimage(at("slash"), "../../etc/x #1", 0644);
	cr_expect_null(vtb_kernel_release(at("slash")), "a release becomes a file name");
	fake_bzimage(at("space"), " 6.1.0", 0644);
	cr_expect_null(vtb_kernel_release(at("space")));

	cr_expect_null(vtb_kernel_release(root), "a directory");
	cr_expect(strstr(vtb_errmsg(), "not a regular file"), "%s", vtb_errmsg());
	rel = vtb_kernel_release(at("missing"));
	cr_expect_null(rel);
	cr_expect(strstr(vtb_errmsg(), "cannot read '"), "%s", vtb_errmsg());
	cr_expect(strstr(vtb_errmsg(), "No such file or directory"), "%s", vtb_errmsg());
}

/* What is no regular file or is past the cap (256 MiB) is refused on its
 * stat(): a FIFO is never opened (it could block), a 4 GiB sparse file
 * never read. */
Test(guest, kernel_release_refuses_fifos_and_images_past_the_cap)
{
	/* a hang guard (SIGALRM fails the test), not .timeout: two
	 * .timeout tests at once leak inside Criterion (LeakSanitizer) */
	alarm(30);
	char *rel;

	fake_bzimage(at("vmlinuz-big"), "6.1.0-10-test (me@host) #1 SMP PREEMPT", 0644);
	cr_assert_eq(truncate(at("vmlinuz-big"), (off_t)VTB_KERNEL_IMAGE_MAX + 1), 0);
	cr_expect_null(vtb_kernel_release(at("vmlinuz-big")));
	cr_expect(strstr(vtb_errmsg(),
			 "is not a Linux bzImage (larger than the 256 MiB a kernel image may be)"),
		  "%s", vtb_errmsg());
	cr_assert_eq(truncate(at("vmlinuz-big"), (off_t)4 << 30), 0);
	cr_expect_null(vtb_kernel_release(at("vmlinuz-big")));
	cr_assert_eq(truncate(at("vmlinuz-big"), (off_t)VTB_KERNEL_IMAGE_MAX), 0);
	rel = vtb_kernel_release(at("vmlinuz-big"));
	cr_expect_not_null(rel, "at the cap: %s", vtb_errmsg());
	free(rel);
	cr_assert_eq(mkfifo(at("vmlinuz-fifo"), 0644), 0);
	cr_expect_null(vtb_kernel_release(at("vmlinuz-fifo")));
	cr_expect(strstr(vtb_errmsg(), "not a regular file"), "%s", vtb_errmsg());
}

/* Debian's kernel, when scripts/fetch-kernel.sh has fetched it: its
 * header names the release its file name carries. */
Test(guest, kernel_release_of_the_fetched_debian_kernel)
{
	const char *src = getenv("SRCDIR") ? getenv("SRCDIR") : ".";
	char *dir = vtb_asprintf("%s/build/guest/kernel/boot", src);
	char *pattern = vtb_asprintf("%s/vmlinuz-*", dir);
	struct vtb_kernel_choice k;
	glob_t g;

	if (glob(pattern, 0, NULL, &g) != 0) {
		globfree(&g);
		cr_log_warn("no fetched kernel in %s: run scripts/fetch-kernel.sh to test it", dir);
		free(dir);
		free(pattern);
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *rel = vtb_kernel_release(g.gl_pathv[i]);

		cr_assert_not_null(rel, "%s", vtb_errmsg());
		cr_expect_str_eq(rel, strrchr(g.gl_pathv[i], '/') + 1 + strlen("vmlinuz-"));
		free(rel);
	}
	cr_assert_eq(vtb_kernel_pick(NULL, at("noboot"), dir, true, &k), 0, "%s", vtb_errmsg());
	cr_expect_str_eq(k.source, "fetched by install-deps");
	cr_expect_null(k.skipped);
	vtb_kernel_choice_release(&k);
	globfree(&g);
	free(dir);
	free(pattern);
}

/* A /boot as distributions leave it, plus junk. */
static void fill_boot(const char *dir)
{
	mkdir_mode(dir, 0755);
	fake_bzimage(fmt("%s/vmlinuz-6.1.0-9-amd64", dir), "6.1.0-9-amd64 #1", 0644);
	fake_bzimage(fmt("%s/vmlinuz-6.1.0-10-amd64", dir), "6.1.0-10-amd64 #1", 0600);
	write_file(fmt("%s/vmlinuz-6.10.0-1-amd64", dir), "not a kernel", 12, 0644);
	write_file(fmt("%s/vmlinuz-5.10.0-1-amd64", dir), "old junk", 8, 0644);
	cr_assert_eq(symlink("/nonexistent/kernel", fmt("%s/vmlinuz-6.11.0-1-amd64", dir)), 0);
	fake_bzimage(fmt("%s/config-6.12.0-1-amd64", dir), "6.12.0-1-amd64 #1", 0644);
	mkdir_mode(fmt("%s/vmlinuz-", dir), 0755);
}

Test(guest, pick_takes_the_newest_readable_bzimage_and_says_what_it_passed_over)
{
	struct vtb_kernel_choice k;

	fill_boot(at("boot"));
	cr_assert_eq(vtb_kernel_pick(NULL, at("boot"), at("fetched"), true, &k), 0, "%s",
		     vtb_errmsg());
	cr_expect_str_eq(k.path, at("boot/vmlinuz-6.1.0-10-amd64"), "strverscmp: 10 > 9");
	cr_expect_str_eq(k.release, "6.1.0-10-amd64");
	cr_expect_str_eq(k.source, at("boot"));
	cr_assert_not_null(k.skipped);
	cr_expect_str_eq(k.skipped,
			 fmt("'%s' (cannot read: No such file or directory); "
			     "'%s' (not a bzImage: no x86 boot setup header)",
			     at("boot/vmlinuz-6.11.0-1-amd64"), at("boot/vmlinuz-6.10.0-1-amd64")),
			 "newest first, older junk left out");
	vtb_kernel_choice_release(&k);
	vtb_kernel_choice_release(NULL);
}

Test(guest, pick_orders_by_the_header_release_not_the_file_name)
{
	struct vtb_kernel_choice k;

	mkdir_mode(at("boot"), 0755);
	fake_bzimage(at("boot/vmlinuz-9.9"), "6.1.0-1 #1", 0644);
	fake_bzimage(at("boot/vmlinuz-1.0"), "6.2.0-1 #1", 0644);
	cr_assert_eq(vtb_kernel_pick(NULL, at("boot"), NULL, false, &k), 0, "%s", vtb_errmsg());
	cr_expect_str_eq(k.path, at("boot/vmlinuz-1.0"));
	cr_expect_str_eq(k.release, "6.2.0-1");
	vtb_kernel_choice_release(&k);
}

Test(guest, pick_falls_back_to_the_fetched_kernel)
{
	struct vtb_kernel_choice k;

	mkdir_mode(at("boot"), 0755);
	write_file(at("boot/vmlinuz-6.1.0-1"), "junk", 4, 0644);
	mkdir_mode(at("fetched"), 0755);
	fake_bzimage(at("fetched/vmlinuz-6.1.0-57-amd64"), "6.1.0-57-amd64 (x) #1", 0644);
	cr_assert_eq(vtb_kernel_pick(NULL, at("boot"), at("fetched"), true, &k), 0, "%s",
		     vtb_errmsg());
	cr_expect_str_eq(k.path, at("fetched/vmlinuz-6.1.0-57-amd64"));
	cr_expect_str_eq(k.source, "fetched by install-deps");
	cr_expect_str_eq(k.skipped,
			 fmt("'%s' (not a bzImage: no x86 boot setup header)",
			     at("boot/vmlinuz-6.1.0-1")),
			 "why /boot gave nothing, even for older names");
	vtb_kernel_choice_release(&k);

	/* A missing /boot is simply empty. */
	cr_assert_eq(vtb_kernel_pick("", at("none"), at("fetched"), true, &k), 0, "%s",
		     vtb_errmsg());
	cr_expect_null(k.skipped);
	vtb_kernel_choice_release(&k);
}

Test(guest, pick_uses_the_configured_kernel_or_names_it)
{
	struct vtb_kernel_choice k;

	fill_boot(at("boot"));
	fake_bzimage(at("mine"), "5.15.0-custom #3", 0600);
	cr_assert_eq(vtb_kernel_pick(at("mine"), at("boot"), NULL, true, &k), 0, "%s",
		     vtb_errmsg());
	cr_expect_str_eq(k.path, at("mine"), "configured beats a newer /boot");
	cr_expect_str_eq(k.release, "5.15.0-custom");
	cr_expect_str_eq(k.source, "kernel = in matrix");
	cr_expect_null(k.skipped);
	vtb_kernel_choice_release(&k);

	cr_expect_eq(vtb_kernel_pick(at("gone"), at("boot"), NULL, true, &k), -1);
	cr_expect_str_eq(
		vtb_errmsg(),
		fmt("guest kernel '%s' (kernel = in [global]) cannot be read: No such file or directory",
		    at("gone")),
		"no fallback past a configured kernel");
	cr_expect_null(k.path);
	write_file(at("notk"), "text", 4, 0644);
	cr_expect_eq(vtb_kernel_pick(at("notk"), at("boot"), NULL, true, &k), -1);
	cr_expect_str_eq(
		vtb_errmsg(),
		fmt("guest kernel '%s' (kernel = in [global]) is not a Linux bzImage: no x86 boot setup header",
		    at("notk")));
}

Test(guest, pick_without_any_kernel_says_what_to_do)
{
	struct vtb_kernel_choice k;

	mkdir_mode(at("boot"), 0755);
	cr_expect_eq(vtb_kernel_pick(NULL, at("boot"), at("fetched"), true, &k), -1);
	cr_expect_str_eq(
		vtb_errmsg(),
		fmt("no guest kernel: '%s' has no readable vmlinuz-* bzImage and '%s' has none; set kernel = in [global] or run scripts/fetch-kernel.sh",
		    at("boot"), at("fetched")));
	cr_assert_eq(symlink("/nonexistent", at("boot/vmlinuz-6.8.0-45-generic")), 0);
	cr_expect_eq(vtb_kernel_pick(NULL, at("boot"), at("fetched"), true, &k), -1);
	cr_expect(
		strstr(vtb_errmsg(),
		       fmt("has none (passed over '%s' (cannot read: No such file or directory)); set kernel =",
			   at("boot/vmlinuz-6.8.0-45-generic"))),
		"%s", vtb_errmsg());
	cr_expect_null(k.path);
}

Test(guest, readable_means_others_can_read_and_reach_it)
{
	mkdir_mode(at("open"), 0755);
	mkdir_mode(at("closed"), 0700);
	write_file(at("open/pub"), "x", 1, 0644);
	write_file(at("open/priv"), "x", 1, 0600);
	write_file(at("closed/pub"), "x", 1, 0644);
	cr_expect(vtb_guest_readable(at("open/pub")));
	cr_expect_not(vtb_guest_readable(at("open/priv")), "file not o+r");
	cr_expect_not(vtb_guest_readable(at("closed/pub")), "directory not o+x");
	cr_expect(vtb_guest_readable(at("open")));
	cr_expect_not(vtb_guest_readable(at("closed")));
	cr_expect_not(vtb_guest_readable(at("open/missing")));

	/* Through a symlink: both the link's and the target's directories. */
	cr_assert_eq(symlink(at("open/pub"), at("closed/link")), 0);
	cr_expect_not(vtb_guest_readable(at("closed/link")));
	cr_assert_eq(symlink(at("closed/pub"), at("open/link")), 0);
	cr_expect_not(vtb_guest_readable(at("open/link")));
	cr_assert_eq(symlink(at("open/pub"), at("open/ok")), 0);
	cr_expect(vtb_guest_readable(at("open/ok")));

	/* Relative paths resolve against the working directory. */
	cr_assert_eq(chdir(at("open")), 0);
	cr_expect(vtb_guest_readable("pub"));
	cr_expect_not(vtb_guest_readable("priv"));
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "stat %s: %s", path, strerror(errno));
	return st.st_mode & 07777;
}

static bool same_bytes(const char *a, const char *b)
{
	size_t la, lb;
	unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
	bool same = la == lb && !memcmp(x, y, la);

	free(x);
	free(y);
	return same;
}

/* Leftover temporary files in @dir (names starting with '.'). */
static int hidden_files(const char *dir)
{
	const char *pattern = fmt("%s/.[!.]*", dir);
	glob_t g;
	int n = 0;

	if (glob(pattern, 0, NULL, &g) == 0) {
		n = (int)g.gl_pathc;
		globfree(&g);
	}
	return n;
}

Test(guest, stage_copies_a_kernel_others_cannot_read)
{
	struct vtb_guest_stage s, again;
	char *real;
	struct stat st1, st2;

	fill_boot(at("boot"));
	write_file(at("initramfs.cpio.gz"), "base", 4, 0644);
	umask(077); /* the stage must not depend on it */
	cr_assert_eq(vtb_guest_stage(at("stage/a/b"), NULL, at("boot"), NULL,
				     at("initramfs.cpio.gz"), true, &s),
		     0, "%s", vtb_errmsg());
	real = realpath(at("stage/a/b"), NULL);
	cr_assert_not_null(real);
	cr_expect_str_eq(s.dir, real);
	cr_expect_eq(mode_of(at("stage")), 0755);
	cr_expect_eq(mode_of(at("stage/a/b")), 0755);
	cr_expect_str_eq(s.kernel, fmt("%s/vmlinuz-6.1.0-10-amd64", real));
	cr_expect_eq(mode_of(s.kernel), 0644);
	cr_expect(same_bytes(s.kernel, at("boot/vmlinuz-6.1.0-10-amd64")));
	cr_expect_str_eq(s.initramfs, at("initramfs.cpio.gz"), "others can read it: in place");
	cr_expect_str_eq(s.release, "6.1.0-10-amd64");
	cr_expect_str_eq(s.kernel_source, at("boot"));
	cr_expect_not_null(s.kernel_skipped);
	cr_expect(s.others_must_read);
	cr_expect_eq(hidden_files(s.dir), 0, "no temporary file left");

	/* Again: the identical copy is kept, not rewritten. */
	cr_assert_eq(stat(s.kernel, &st1), 0);
	cr_assert_eq(vtb_guest_stage(at("stage/a/b"), NULL, at("boot"), NULL,
				     at("initramfs.cpio.gz"), true, &again),
		     0, "%s", vtb_errmsg());
	cr_assert_eq(stat(again.kernel, &st2), 0);
	cr_expect_eq(st1.st_ino, st2.st_ino);

	/* A changed kernel with the same release is copied over. */
	fake_bzimage(at("boot/vmlinuz-6.1.0-10-amd64"), "6.1.0-10-amd64 #2 rebuilt", 0600);
	vtb_guest_stage_release(&again);
	cr_assert_eq(vtb_guest_stage(at("stage/a/b"), NULL, at("boot"), NULL,
				     at("initramfs.cpio.gz"), true, &again),
		     0, "%s", vtb_errmsg());
	cr_expect(same_bytes(again.kernel, at("boot/vmlinuz-6.1.0-10-amd64")));
	vtb_guest_stage_release(&again);
	vtb_guest_stage_release(&s);
	vtb_guest_stage_release(NULL);
	free(real);
}

Test(guest, stage_copies_an_initramfs_others_cannot_read)
{
	struct vtb_guest_stage s;

	mkdir_mode(at("boot"), 0755);
	fake_bzimage(at("boot/vmlinuz-6.1.0-1"), "6.1.0-1 #1", 0644);
	mkdir_mode(at("private"), 0700);
	write_file(at("private/initramfs.cpio.gz"), "base", 4, 0644);
	mkdir_mode(at("stage"), 0755);
	cr_assert_eq(vtb_guest_stage(at("stage"), NULL, at("boot"), NULL,
				     at("private/initramfs.cpio.gz"), true, &s),
		     0, "%s", vtb_errmsg());
	cr_expect_str_eq(s.kernel, at("boot/vmlinuz-6.1.0-1"), "others can read it: in place");
	cr_expect_str_eq(s.initramfs, at("stage/initramfs.cpio.gz"));
	cr_expect_eq(mode_of(s.initramfs), 0644);
	cr_expect(same_bytes(s.initramfs, at("private/initramfs.cpio.gz")));
	vtb_guest_stage_release(&s);
}

Test(guest, stage_uses_files_in_place_for_a_session_hypervisor)
{
	struct vtb_guest_stage s;

	fill_boot(at("boot"));
	mkdir_mode(at("private"), 0700);
	write_file(at("private/initramfs.cpio.gz"), "base", 4, 0600);
	cr_assert_eq(vtb_guest_stage(at("stage"), NULL, at("boot"), NULL,
				     at("private/initramfs.cpio.gz"), false, &s),
		     0, "%s", vtb_errmsg());
	cr_expect_str_eq(s.kernel, at("boot/vmlinuz-6.1.0-10-amd64"));
	cr_expect_str_eq(s.initramfs, at("private/initramfs.cpio.gz"));
	cr_expect_not(s.others_must_read);
	cr_expect_neq(access(at("stage/vmlinuz-6.1.0-10-amd64"), F_OK), 0, "nothing copied");
	vtb_guest_stage_release(&s);
}

Test(guest, stage_errors_say_what_to_do)
{
	struct vtb_guest_stage s;

	fill_boot(at("boot"));
	cr_expect_eq(vtb_guest_stage(at("stage"), NULL, at("boot"), NULL, at("gone.cpio.gz"), true,
				     &s),
		     -1);
	cr_expect_str_eq(vtb_errmsg(),
			 fmt("guest image '%s' is missing: run make guest", at("gone.cpio.gz")));
	cr_expect_null(s.dir, "zeroed on failure");

	write_file(at("initramfs.cpio.gz"), "base", 4, 0644);
	cr_expect_eq(vtb_guest_stage(at("stage"), NULL, at("empty"), at("empty2"),
				     at("initramfs.cpio.gz"), true, &s),
		     -1);
	cr_expect(strstr(vtb_errmsg(), "no guest kernel: '"), "%s", vtb_errmsg());
	cr_expect(strstr(vtb_errmsg(), "run scripts/fetch-kernel.sh"), "%s", vtb_errmsg());

	mkdir_mode(at("home"), 0700);
	cr_expect_eq(vtb_guest_stage(at("home/cache"), NULL, at("boot"), NULL,
				     at("initramfs.cpio.gz"), true, &s),
		     -1);
	cr_expect_str_eq(
		vtb_errmsg(),
		fmt("the hypervisor's user cannot read '%s' (QEMU runs as another user under qemu:///system): make it and its directories world-readable, or set VTBENCH_GUEST_DIR to a directory that is",
		    at("home/cache")));
	cr_expect_null(s.kernel);

	write_file(at("file"), "x", 1, 0644);
	cr_expect_eq(vtb_guest_stage(at("file/sub"), NULL, at("boot"), NULL,
				     at("initramfs.cpio.gz"), true, &s),
		     -1);
	cr_expect(strstr(vtb_errmsg(), "cannot create directory"), "%s", vtb_errmsg());
}

/* A stage by hand: boot images need only the directory and the base. */
static struct vtb_guest_stage hand_stage(const char *base, size_t len)
{
	struct vtb_guest_stage s = { 0 };

	write_file(at("base.img"), base, len, 0644);
	s.dir = root;
	s.initramfs = (char *)at("base.img");
	return s;
}

static const char UUID[] = "0f8e2a4c-1b3d-4e5f-8a9b-0c1d2e3f4a5b";

Test(guest, boot_image_appends_the_job_at_a_four_byte_boundary)
{
	unsigned char base[1001];
	struct vtb_guest_stage s;
	unsigned char *img, *job;
	size_t len, jlen;
	char *path;
	char *list;

	memset(base, 0x5a, sizeof(base)); /* odd length, no zeros of its own */
	s = hand_stage((const char *)base, sizeof(base));
	umask(077);
	path = vtb_guest_boot_image(&s, UUID, JOB);
	cr_assert_not_null(path, "%s", vtb_errmsg());
	cr_expect_str_eq(path, at("boot-0f8e2a4c-1b3d-4e5f-8a9b-0c1d2e3f4a5b.img"));
	cr_expect_eq(mode_of(path), 0644);
	cr_expect_neq(access(fmt("%s.tmp", path), F_OK), 0, "temporary renamed");

	img = slurp(path, &len);
	cr_assert(len > 1004);
	cr_expect_eq(memcmp(img, base, sizeof(base)), 0, "the base comes first, unchanged");
	cr_expect_eq(img[1001] | img[1002] | img[1003], 0, "zero padding");
	cr_expect_eq(memcmp(img + 1004, "070701", 6), 0, "the job archive starts aligned");
	cr_expect_eq((len - 1004) % 512, 0);
	write_file(at("tail.cpio"), img + 1004, len - 1004, 0644);
	list = cpio_list(at("tail.cpio"));
	cr_expect_str_eq(list, "job.json\n");
	job = cpio_extract(at("tail.cpio"), "job.json", &jlen);
	cr_expect_eq(jlen, strlen(JOB));
	cr_expect_eq(memcmp(job, JOB, jlen), 0);
	free(list);
	free(job);
	free(img);
	free(path);
}

Test(guest, boot_image_adds_no_padding_to_an_aligned_base)
{
	struct vtb_guest_stage s = hand_stage("0123456789ab", 12);
	unsigned char *img;
	size_t len;
	char *path;

	path = vtb_guest_boot_image(&s, "ABCDEF-0123", JOB);
	cr_assert_not_null(path, "%s", vtb_errmsg());
	img = slurp(path, &len);
	cr_expect_eq(memcmp(img, "0123456789ab070701", 18), 0);
	free(img);
	free(path);
}

Test(guest, boot_image_refuses_unsafe_ids_and_a_missing_base)
{
	static const char *const bad[] = { "", "../../etc/passwd", "a/b", "0f8e 2a4c", "g00d" };
	struct vtb_guest_stage s = hand_stage("base", 4);

	for (size_t i = 0; i < VTB_ARRAY_SIZE(bad); i++) {
		cr_expect_null(vtb_guest_boot_image(&s, bad[i], JOB), "'%s' accepted", bad[i]);
		cr_expect(strstr(vtb_errmsg(), "bad boot id"), "%s", vtb_errmsg());
	}
	s.initramfs = (char *)at("gone.cpio.gz");
	cr_expect_null(vtb_guest_boot_image(&s, UUID, JOB));
	cr_expect_str_eq(vtb_errmsg(),
			 fmt("guest image '%s' is missing: run make guest", at("gone.cpio.gz")));
	cr_expect_neq(access(at("boot-0f8e2a4c-1b3d-4e5f-8a9b-0c1d2e3f4a5b.img.tmp"), F_OK), 0);
}

static void backdate(const char *path, long seconds)
{
	struct timespec ts[2];

	ts[0].tv_sec = ts[1].tv_sec = time(NULL) - seconds;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	cr_assert_eq(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), 0);
}

Test(guest, sweep_removes_old_boot_images_only)
{
	struct vtb_guest_stage s = { 0 };

	s.dir = root;
	write_file(at("boot-a.img"), "x", 1, 0644);
	write_file(at("boot-b.img.tmp"), "x", 1, 0644);
	write_file(at("boot-c.img"), "x", 1, 0644);
	write_file(at("vmlinuz-6.1.0-1"), "x", 1, 0644);
	write_file(at("boot-d.img.keep"), "x", 1, 0644);
	mkdir_mode(at("boot-e.img"), 0755);
	backdate(at("boot-a.img"), 2 * 86400);
	backdate(at("boot-b.img.tmp"), 2 * 86400);
	backdate(at("vmlinuz-6.1.0-1"), 2 * 86400);
	backdate(at("boot-d.img.keep"), 2 * 86400);
	backdate(at("boot-e.img"), 2 * 86400);
	backdate(at("boot-c.img"), 60);

	cr_expect_eq(vtb_guest_sweep(&s, 3600), 2);
	cr_expect_neq(access(at("boot-a.img"), F_OK), 0);
	cr_expect_neq(access(at("boot-b.img.tmp"), F_OK), 0);
	cr_expect_eq(access(at("boot-c.img"), F_OK), 0, "younger than the age");
	cr_expect_eq(access(at("vmlinuz-6.1.0-1"), F_OK), 0, "not a boot image");
	cr_expect_eq(access(at("boot-d.img.keep"), F_OK), 0);
	cr_expect_eq(access(at("boot-e.img"), F_OK), 0, "directories are left alone");
	cr_expect_eq(vtb_guest_sweep(&s, 3600), 0);

	s.dir = (char *)at("gone");
	cr_expect_eq(vtb_guest_sweep(&s, 3600), -1);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

Test(guest, default_locations)
{
	char *initramfs = vtb_guest_default_initramfs();
	char *fetched = vtb_guest_default_fetched_dir();
	char *dir = vtb_guest_default_dir();

	cr_assert_not_null(initramfs, "%s", vtb_errmsg());
	cr_assert_not_null(fetched, "%s", vtb_errmsg());
	cr_assert_not_null(dir, "%s", vtb_errmsg());
	cr_expect(initramfs[0] == '/' && ends_with(initramfs, "/guest/initramfs.cpio.gz"), "%s",
		  initramfs);
	cr_expect(fetched[0] == '/' && ends_with(fetched, "/guest/kernel/boot"), "%s", fetched);
	if (geteuid() == 0)
		cr_expect_str_eq(dir, "/var/lib/vtbench/guest");
	else
		cr_expect(ends_with(dir, "/vtbench/guest"), "%s", dir);
	free(initramfs);
	free(fetched);
	free(dir);
}

/* Images, kernel copies and the accelerator cache go there: a directory
 * others may write to, or someone else's, is refused. */
Test(guest, stage_refuses_a_directory_others_can_write)
{
	struct vtb_guest_stage s;

	fill_boot(at("boot"));
	write_file(at("initramfs.cpio.gz"), "base", 4, 0644);
	mkdir_mode(at("open"), 0777);
	chmod(at("open"), 0777);
	cr_expect_eq(vtb_guest_stage(at("open"), NULL, at("boot"), NULL, at("initramfs.cpio.gz"),
				     true, &s),
		     -1);
	cr_expect(strstr(vtb_errmsg(), "is writable by others (mode 0777)"), "%s", vtb_errmsg());
	mkdir_mode(at("theirs"), 0755);
	cr_assert_eq(chown(at("theirs"), 12345, 12345), 0);
	cr_expect_eq(vtb_guest_stage(at("theirs"), NULL, at("boot"), NULL, at("initramfs.cpio.gz"),
				     true, &s),
		     -1);
	cr_expect(strstr(vtb_errmsg(), "belongs to uid 12345"), "%s", vtb_errmsg());
}
