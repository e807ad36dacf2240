/* SPDX-License-Identifier: MIT */
/*
 * Guest boot files.  The job reaches the guest as a second initramfs
 * archive appended to the base image, so the agent finds /job.json in
 * its root without any device or network: this file writes that archive
 * (newc cpio, what the kernel unpacks), chooses the kernel from bzImage
 * setup headers (file names lie: vmlinuz-* may be a symlink, a backup or
 * an EFI blob), and stages both where QEMU can open them.  Under
 * qemu:///system QEMU runs as another user, so "readable" means readable
 * by others, checked up the whole directory chain.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"
#include "../../common/vtbutil.h"
#include "../matrix/conf.h"

/* ---- newc cpio ---- */

#define CPIO_HDR_LEN 110
#define CPIO_TRAILER "TRAILER!!!"
#define CPIO_MAX_NAME 4096
#define ALIGN4(n) (((n) + 3) & ~(size_t)3)

void vtb_cpio_init(struct vtb_cpio *c)
{
	memset(c, 0, sizeof(*c));
	c->next_ino = 1; /* 0 is the trailer's */
}

void vtb_cpio_release(struct vtb_cpio *c)
{
	if (!c)
		return;
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

static int cpio_grow(struct vtb_cpio *c, size_t more)
{
	size_t cap = c->cap ? c->cap : 1024;
	unsigned char *p;

	if (more > SIZE_MAX - c->len)
		return vtb_error("out of memory");
	while (cap < c->len + more) {
		if (cap > SIZE_MAX / 2)
			return vtb_error("out of memory");
		cap *= 2;
	}
	if (cap == c->cap)
		return 0;
	p = realloc(c->buf, cap);
	if (!p)
		return vtb_error("out of memory");
	c->buf = p;
	c->cap = cap;
	return 0;
}

/* Appends @n zero bytes (space already reserved). */
static void cpio_zero(struct vtb_cpio *c, size_t n)
{
	memset(c->buf + c->len, 0, n);
	c->len += n;
}

/* Eight lowercase hex digits, no NUL: the width of every newc field. */
static void put_hex8(unsigned char *p, uint32_t v)
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 7; i >= 0; i--, v >>= 4)
		p[i] = (unsigned char)hex[v & 0xf];
}

static int cpio_entry(struct vtb_cpio *c, const char *name, uint32_t ino, uint32_t mode,
		      const void *data, size_t len)
{
	size_t namesize = strlen(name) + 1;
	size_t head = ALIGN4(CPIO_HDR_LEN + namesize);
	/* ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor,
	 * rdevmajor, rdevminor, namesize, check */
	const uint32_t field[13] = {
		ino, mode, 0, 0, 1, 0, (uint32_t)len, 0, 0, 0, 0, (uint32_t)namesize, 0
	};

	if (len > 0xffffffffu)
		return vtb_error("'%s' is too large for a cpio archive (%zu bytes)", name, len);
	if (cpio_grow(c, head + ALIGN4(len)))
		return -1;
	memcpy(c->buf + c->len, "070701", 6);
	for (size_t i = 0; i < VTB_ARRAY_SIZE(field); i++)
		put_hex8(c->buf + c->len + 6 + 8 * i, field[i]);
	c->len += CPIO_HDR_LEN;
	memcpy(c->buf + c->len, name, namesize);
	c->len += namesize;
	cpio_zero(c, head - CPIO_HDR_LEN - namesize);
	if (len)
		memcpy(c->buf + c->len, data, len);
	c->len += len;
	cpio_zero(c, ALIGN4(len) - len);
	return 0;
}

/* Relative, no empty or ".." component: the kernel creates the file
 * under / with this name, and must not be led out of it. */
static const char *cpio_name_problem(const char *name)
{
	const char *p = name;

	if (!*name)
		return "empty name";
	if (*name == '/')
		return "absolute name";
	if (strlen(name) >= CPIO_MAX_NAME)
		return "name too long";
	if (!strcmp(name, CPIO_TRAILER))
		return "reserved for the archive's end";
	/* the kernel does not create parent directories for a member */
	if (strchr(name, '/'))
		return "directories are not supported (no '/' in names)";
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 0)
			return "empty path component";
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return "'..' component";
		p += n;
		if (*p == '/' && !*++p)
			return "trailing '/'";
	}
	return NULL;
}

int vtb_cpio_add_file(struct vtb_cpio *c, const char *name, const void *data, size_t len,
		      unsigned mode)
{
	const char *why = cpio_name_problem(name);

	if (why)
		return vtb_error("bad cpio member name '%s': %s", name, why);
	if (mode & ~07777u)
		return vtb_error("bad mode %o for cpio member '%s': permission bits only", mode,
				 name);
	if (cpio_entry(c, name, (uint32_t)c->next_ino, 0100000u | mode, data, len))
		return -1;
	c->next_ino++;
	return 0;
}

int vtb_cpio_finish(struct vtb_cpio *c)
{
	size_t pad;

	if (cpio_entry(c, CPIO_TRAILER, 0, 0, NULL, 0))
		return -1;
	pad = (512 - c->len % 512) % 512;
	if (cpio_grow(c, pad))
		return -1;
	cpio_zero(c, pad);
	return 0;
}

/* ---- small file helpers ---- */

static ssize_t pread_full(int fd, void *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static ssize_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

#define COPY_CHUNK (1024 * 1024)

/* ---- kernels ---- */

/* x86 boot protocol (Documentation/arch/x86/boot.rst): the setup header
 * at 0x1f1; "HdrS" at 0x202; at 0x20e a u16 pointer to the NUL-terminated
 * kernel_version string, relative to 0x200. */
#define SETUP_MAGIC_OFF 0x202
#define SETUP_KVER_OFF 0x20e
#define SETUP_HDR_END 0x210
#define KVER_MAX 256

static bool release_chars_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		/* It becomes a file name (vmlinuz-<release>) in the stage. */
		if (!isalnum(ch) && !strchr("._+~-", ch))
			return false;
	}
	return true;
}

/* Why the file of @st is no kernel image by its kind or size, or NULL. */
_Static_assert(VTB_KERNEL_IMAGE_MAX == UINT64_C(256) << 20, "image_why() says 256 MiB");
static const char *image_why(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if ((uint64_t)st->st_size > VTB_KERNEL_IMAGE_MAX)
		return "larger than the 256 MiB a kernel image may be";
	return NULL;
}

/*
 * The release from @path's setup header, or NULL with *why (a fixed
 * reason: not a bzImage) or *err (errno of an I/O failure).  Every read
 * is bounded: the file may be tiny or hostile.
 */
static char *read_release(const char *path, const char **why, int *err)
{
	unsigned char hdr[SETUP_HDR_END];
	char ver[KVER_MAX];
	struct stat st;
	char *rel = NULL;
	size_t off, n;
	ssize_t got;
	int fd;

	*why = NULL;
	*err = 0;
	/* stat() first: a FIFO or a device named vmlinuz-x is never opened,
	 * a file past the cap never read (VTB_KERNEL_IMAGE_MAX) */
	if (stat(path, &st)) {
		*err = errno;
		return NULL;
	}
	if ((*why = image_why(&st)))
		return NULL;
	/* O_NONBLOCK: should it have become a FIFO since, no hang */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		*err = errno;
		return NULL;
	}
	if (fstat(fd, &st)) {
		*err = errno;
		goto out;
	}
	if ((*why = image_why(&st)))
		goto out;
	got = pread_full(fd, hdr, sizeof(hdr), 0);
	if (got < 0) {
		*err = errno;
		goto out;
	}
	if ((size_t)got < sizeof(hdr) || memcmp(hdr + SETUP_MAGIC_OFF, "HdrS", 4)) {
		*why = "no x86 boot setup header";
		goto out;
	}
	off = (size_t)hdr[SETUP_KVER_OFF] | (size_t)hdr[SETUP_KVER_OFF + 1] << 8;
	if (!off) {
		*why = "no kernel version string";
		goto out;
	}
	got = pread_full(fd, ver, sizeof(ver), (off_t)(off + 0x200));
	if (got < 0) {
		*err = errno;
		goto out;
	}
	if (!memchr(ver, '\0', (size_t)got)) {
		*why = "kernel version string is missing or cut off";
		goto out;
	}
	n = strcspn(ver, " ");
	if (!n || !release_chars_ok(ver, n)) {
		*why = "kernel version string does not start with a release";
		goto out;
	}
	rel = strndup(ver, n);
	if (!rel)
		*err = ENOMEM;
out:
	close(fd);
	return rel;
}

char *vtb_kernel_release(const char *path)
{
	const char *why;
	int err;
	char *rel = read_release(path, &why, &err);

	if (rel)
		return rel;
	if (err == ENOMEM)
		vtb_error("out of memory");
	else if (err)
		vtb_error("cannot read '%s': %s", path, strerror(err));
	else
		vtb_error("'%s' is not a Linux bzImage (%s)", path, why);
	return NULL;
}

void vtb_kernel_choice_release(struct vtb_kernel_choice *k)
{
	if (!k)
		return;
	free(k->path);
	free(k->release);
	free(k->source);
	free(k->skipped);
	memset(k, 0, sizeof(*k));
}

/* A vmlinuz-* that was passed over, and why. */
struct knote {
	char *path;
	char *why;
	const char *ver; /* file name after "vmlinuz-", inside path */
	int dir;	 /* 0: boot_dir, 1: fetched_dir */
};

struct kscan {
	struct knote *notes;
	size_t n;
	char *best_path, *best_rel;
	int best_dir; /* -1: none yet */
};

static void kscan_release(struct kscan *ks)
{
	for (size_t i = 0; i < ks->n; i++) {
		free(ks->notes[i].path);
		free(ks->notes[i].why);
	}
	free(ks->notes);
	free(ks->best_path);
	free(ks->best_rel);
}

/* Takes @path and @why (both malloc'ed; freed on failure). */
static int kscan_note(struct kscan *ks, int dir, char *path, char *why)
{
	struct knote *p = NULL;
	const char *slash;

	if (path && why)
		p = realloc(ks->notes, (ks->n + 1) * sizeof(*p));
	if (!p) {
		free(path);
		free(why);
		return vtb_error("out of memory");
	}
	ks->notes = p;
	slash = strrchr(path, '/');
	p[ks->n].path = path;
	p[ks->n].why = why;
	p[ks->n].ver = (slash ? slash + 1 : path) + strlen("vmlinuz-");
	p[ks->n].dir = dir;
	ks->n++;
	return 0;
}

/* Newest release first; equal releases by name, for a stable choice. */
static bool kernel_newer(const char *rel, const char *path, const char *best_rel,
			 const char *best_path)
{
	int c = strverscmp(rel, best_rel);

	return c > 0 || (c == 0 && strcmp(path, best_path) < 0);
}

/* Looks at every @dir/vmlinuz-*: the newest bzImage this process can read
 * becomes ks->best unless a better one is there already. */
static int kscan_dir(struct kscan *ks, const char *dir, int which)
{
	struct dirent *de;
	DIR *d;
	int ret = -1;

	d = opendir(dir);
	if (!d) {
		int err = errno;

		/* No such directory: simply no kernel there. */
		if (err == ENOENT || err == ENOTDIR)
			return 0;
		return kscan_note(ks, which, vtb_asprintf("%s/vmlinuz-", dir),
				  vtb_asprintf("cannot list: %s", strerror(err)));
	}
	while ((errno = 0, de = readdir(d))) {
		const char *why;
		char *path, *rel;
		int err;

		if (strncmp(de->d_name, "vmlinuz-", strlen("vmlinuz-")) ||
		    !de->d_name[strlen("vmlinuz-")])
			continue;
		path = vtb_asprintf("%s/%s", dir, de->d_name);
		if (!path) {
			vtb_error("out of memory");
			goto out;
		}
		rel = read_release(path, &why, &err);
		if (!rel) {
			if (err == ENOMEM) {
				free(path);
				vtb_error("out of memory");
				goto out;
			}
			if (kscan_note(ks, which, path,
				       err ? vtb_asprintf("cannot read: %s", strerror(err))
					   : vtb_asprintf("not a bzImage: %s", why)))
				goto out;
			continue;
		}
		if (ks->best_dir < 0 || kernel_newer(rel, path, ks->best_rel, ks->best_path)) {
			free(ks->best_path);
			free(ks->best_rel);
			ks->best_path = path;
			ks->best_rel = rel;
			ks->best_dir = which;
		} else {
			free(path);
			free(rel);
		}
	}
	if (errno) {
		int err = errno;

		ret = kscan_note(ks, which, vtb_asprintf("%s/vmlinuz-", dir),
				 vtb_asprintf("cannot list: %s", strerror(err)));
		goto out;
	}
	ret = 0;
out:
	closedir(d);
	return ret;
}

static int knote_cmp(const void *a, const void *b)
{
	const struct knote *x = a, *y = b;

	if (x->dir != y->dir)
		return x->dir - y->dir;
	return strverscmp(y->ver, x->ver);
}

/* The notes that explain the choice: every note of a directory that gave
 * nothing, and those of the chosen directory that sort newer than the
 * chosen kernel.  NULL when none (or on ENOMEM, which only loses notes). */
static char *kscan_notes(struct kscan *ks)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;

	if (ks->n) /* qsort(NULL, 0) is undefined */
		qsort(ks->notes, ks->n, sizeof(*ks->notes), knote_cmp);
	for (size_t i = 0; i < ks->n; i++) {
		const struct knote *k = &ks->notes[i];

		if (ks->best_dir >= 0 && k->dir > ks->best_dir)
			continue;
		if (ks->best_dir == k->dir && strverscmp(k->ver, ks->best_rel) <= 0)
			continue;
		if (vtb_strbuf_addf(&sb, "%s'%s' (%s)", sb.len ? "; " : "", k->path, k->why)) {
			vtb_strbuf_release(&sb);
			return NULL;
		}
	}
	return sb.len ? vtb_strbuf_detach(&sb) : NULL;
}

int vtb_kernel_pick(const char *configured, const char *boot_dir, const char *fetched_dir,
		    bool others_must_read, struct vtb_kernel_choice *out)
{
	struct kscan ks = { .best_dir = -1 };
	struct vtb_kernel_choice k = { 0 };
	int ret = -1;

	/* Selection does not depend on it: vtb_guest_stage() copies a
	 * kernel only this process can read to where others can. */
	(void)others_must_read;
	memset(out, 0, sizeof(*out));
	if (configured && *configured) {
		const char *why;
		int err;

		k.release = read_release(configured, &why, &err);
		if (!k.release) {
			if (err == ENOMEM)
				ret = vtb_error("out of memory");
			else if (err)
				ret = vtb_error(
					"guest kernel '%s' (kernel = in [global]) cannot be read: %s",
					configured, strerror(err));
			else
				ret = vtb_error(
					"guest kernel '%s' (kernel = in [global]) is not a Linux bzImage: %s",
					configured, why);
			goto out;
		}
		k.path = vtb_strdup(configured);
		k.source = vtb_strdup("kernel = in matrix");
		if (!k.path || !k.source) {
			ret = vtb_error("out of memory");
			goto out;
		}
		goto done;
	}
	if (boot_dir && kscan_dir(&ks, boot_dir, 0))
		goto out;
	if (ks.best_dir < 0 && fetched_dir && kscan_dir(&ks, fetched_dir, 1))
		goto out;
	k.skipped = kscan_notes(&ks);
	if (ks.best_dir < 0) {
		ret = vtb_error(
			"no guest kernel: '%s' has no readable vmlinuz-* bzImage and '%s' has none%s%s%s; set kernel = in [global] or run scripts/fetch-kernel.sh",
			boot_dir ? boot_dir : "/boot",
			fetched_dir ? fetched_dir : "(no fetched kernel directory)",
			k.skipped ? " (passed over " : "", k.skipped ? k.skipped : "",
			k.skipped ? ")" : "");
		goto out;
	}
	k.path = ks.best_path;
	k.release = ks.best_rel;
	ks.best_path = ks.best_rel = NULL;
	k.source = vtb_strdup(ks.best_dir == 0 ? boot_dir : "fetched by install-deps");
	if (!k.source) {
		ret = vtb_error("out of memory");
		goto out;
	}
done:
	*out = k;
	memset(&k, 0, sizeof(k));
	ret = 0;
out:
	vtb_kernel_choice_release(&k);
	kscan_release(&ks);
	return ret;
}

/* ---- readability by the hypervisor's user ---- */

/* Every directory above @abs (an absolute path) is o+x. */
static bool ancestors_searchable(const char *abs)
{
	char *p = vtb_strdup(abs);
	bool ok = p != NULL;
	char *slash;

	while (ok && (slash = strrchr(p, '/'))) {
		struct stat st;

		if (slash == p)
			slash[1] = '\0'; /* "/" itself */
		else
			*slash = '\0';
		if (stat(p, &st) || !(st.st_mode & S_IXOTH))
			ok = false;
		if (slash == p)
			break;
	}
	free(p);
	return ok;
}

bool vtb_guest_readable(const char *path)
{
	char *real = realpath(path, NULL);
	char *lexical = NULL, cwd[PATH_MAX];
	mode_t need = S_IROTH;
	struct stat st;
	bool ok = false;

	if (!real || stat(real, &st))
		goto out;
	if (S_ISDIR(st.st_mode))
		need |= S_IXOTH;
	if ((st.st_mode & need) != need || !ancestors_searchable(real))
		goto out;
	/* The path as given is what the hypervisor may walk too: its
	 * directories (before symlinks resolve) need o+x as well. */
	if (path[0] == '/')
		lexical = vtb_strdup(path);
	else if (getcwd(cwd, sizeof(cwd)))
		lexical = vtb_asprintf("%s/%s", cwd, path);
	ok = lexical && ancestors_searchable(lexical);
out:
	free(real);
	free(lexical);
	return ok;
}

/* ---- staging ---- */

void vtb_guest_stage_release(struct vtb_guest_stage *s)
{
	if (!s)
		return;
	free(s->dir);
	free(s->kernel);
	free(s->initramfs);
	free(s->release);
	free(s->kernel_source);
	free(s->kernel_skipped);
	memset(s, 0, sizeof(*s));
}

char *vtb_guest_default_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *dir;

	if (geteuid() == 0)
		dir = vtb_strdup("/var/lib/vtbench/guest");
	else if (xdg && xdg[0] == '/')
		dir = vtb_asprintf("%s/vtbench/guest", xdg);
	else if (home && home[0] == '/')
		dir = vtb_asprintf("%s/.cache/vtbench/guest", home);
	else {
		vtb_error("no guest staging directory: HOME is not set; set VTBENCH_GUEST_DIR");
		return NULL;
	}
	if (!dir)
		vtb_error("out of memory");
	return dir;
}

/* 1 when @a and @b hold the same bytes, 0 when not (or unreadable). */
static int same_content(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ba = NULL, *bb = NULL;
	int fa = -1, fb = -1, same = 0;

	fa = open(a, O_RDONLY | O_CLOEXEC);
	fb = open(b, O_RDONLY | O_CLOEXEC);
	if (fa < 0 || fb < 0 || fstat(fa, &sa) || fstat(fb, &sb) || !S_ISREG(sb.st_mode) ||
	    sa.st_size != sb.st_size)
		goto out;
	ba = malloc(COPY_CHUNK);
	bb = malloc(COPY_CHUNK);
	if (!ba || !bb)
		goto out;
	for (;;) {
		ssize_t na = read_full(fa, ba, COPY_CHUNK);
		ssize_t nb = read_full(fb, bb, COPY_CHUNK);

		if (na < 0 || na != nb || memcmp(ba, bb, (size_t)na))
			goto out;
		if (na == 0)
			break;
	}
	same = 1;
out:
	free(ba);
	free(bb);
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/*
 * Copies @src to @dir/@name, mode 0644, through a temporary name so a
 * concurrent harness never sees half a file; an identical file already
 * there is kept.  The copy's path goes to *out.
 */
static int stage_copy(const char *src, const char *dir, const char *name, char **out)
{
	char *dst = vtb_asprintf("%s/%s", dir, name);
	char *tmp = vtb_asprintf("%s/.%s.XXXXXX", dir, name);
	char *buf = malloc(COPY_CHUNK);
	int in = -1, fd = -1, ret = -1;
	bool created = false;
	struct stat st;

	if (!dst || !tmp || !buf) {
		ret = vtb_error("out of memory");
		goto out;
	}
	if (same_content(src, dst)) {
		if (stat(dst, &st) || ((st.st_mode & 07777) != 0644 && chmod(dst, 0644))) {
			ret = vtb_error("cannot make '%s' world-readable: %s", dst,
					strerror(errno));
			goto out;
		}
		goto done;
	}
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		ret = vtb_error("cannot open '%s': %s", src, strerror(errno));
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = vtb_error("cannot create a file in '%s': %s", dir, strerror(errno));
		goto out;
	}
	created = true;
	if (fchmod(fd, 0644)) {
		ret = vtb_error("cannot set the mode of '%s': %s", tmp, strerror(errno));
		goto out;
	}
	for (;;) {
		ssize_t n = read_full(in, buf, COPY_CHUNK);

		if (n < 0) {
			ret = vtb_error("cannot read '%s': %s", src, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (write_all(fd, buf, (size_t)n)) {
			ret = vtb_error("cannot write '%s': %s", tmp, strerror(errno));
			goto out;
		}
	}
	if (close(fd)) {
		fd = -1;
		ret = vtb_error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, dst)) {
		ret = vtb_error("cannot rename '%s' to '%s': %s", tmp, dst, strerror(errno));
		goto out;
	}
	created = false;
done:
	*out = dst;
	dst = NULL;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (in >= 0)
		close(in);
	if (created)
		unlink(tmp);
	free(tmp);
	free(dst);
	free(buf);
	return ret;
}

static int unreadable_error(const char *path)
{
	return vtb_error(
		"the hypervisor's user cannot read '%s' (QEMU runs as another user under qemu:///system): make it and its directories world-readable, or set VTBENCH_GUEST_DIR to a directory that is",
		path);
}

static char *resolve(const char *path)
{
	char *real = realpath(path, NULL);

	if (!real)
		vtb_error("cannot resolve '%s': %s", path, strerror(errno));
	return real;
}

/* Boot images, copied kernels and the accelerator cache are written
 * there: a directory someone else owns or may write to could have them
 * replaced under us. */
static int check_private(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) != 0)
		return vtb_error("cannot stat '%s': %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return vtb_error("guest staging '%s' is not a directory", dir);
	if (st.st_uid != geteuid())
		return vtb_error(
			"guest staging directory '%s' belongs to uid %u, not to us: use a directory of ours (VTBENCH_GUEST_DIR)",
			dir, (unsigned)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return vtb_error(
			"guest staging directory '%s' is writable by others (mode %04o): chmod go-w it or use another (VTBENCH_GUEST_DIR)",
			dir, (unsigned)(st.st_mode & 07777));
	return 0;
}

int vtb_guest_stage(const char *dir, const char *configured_kernel, const char *boot_dir,
		    const char *fetched_dir, const char *initramfs, bool others_must_read,
		    struct vtb_guest_stage *out)
{
	struct vtb_kernel_choice k = { 0 };
	struct vtb_guest_stage s = { 0 };
	char *want = NULL, *copy = NULL, *name = NULL;
	int ret = -1, fd;

	memset(out, 0, sizeof(*out));
	s.others_must_read = others_must_read;
	want = dir ? vtb_strdup(dir) : vtb_guest_default_dir();
	if (!want) {
		if (dir)
			vtb_error("out of memory");
		goto out;
	}
	/* the hypervisor's user must enter what this creates */
	if (vtb_mkdir_p(want, 0755, true))
		goto out;
	s.dir = resolve(want);
	if (!s.dir || check_private(s.dir))
		goto out;

	fd = open(initramfs, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			vtb_error("guest image '%s' is missing: run make guest", initramfs);
		else
			vtb_error("cannot read guest image '%s': %s", initramfs, strerror(errno));
		goto out;
	}
	close(fd);
	s.initramfs = resolve(initramfs);
	if (!s.initramfs)
		goto out;

	if (vtb_kernel_pick(configured_kernel, boot_dir, fetched_dir, others_must_read, &k))
		goto out;
	s.kernel = resolve(k.path);
	if (!s.kernel)
		goto out;
	s.release = k.release;
	s.kernel_source = k.source;
	s.kernel_skipped = k.skipped;
	k.release = k.source = k.skipped = NULL;

	if (others_must_read) {
		if (!vtb_guest_readable(s.dir)) {
			unreadable_error(s.dir);
			goto out;
		}
		if (!vtb_guest_readable(s.kernel)) {
			name = vtb_asprintf("vmlinuz-%s", s.release);
			if (!name) {
				vtb_error("out of memory");
				goto out;
			}
			if (stage_copy(s.kernel, s.dir, name, &copy))
				goto out;
			free(s.kernel);
			s.kernel = copy;
			copy = NULL;
		}
		if (!vtb_guest_readable(s.initramfs)) {
			const char *slash = strrchr(s.initramfs, '/');

			if (stage_copy(s.initramfs, s.dir, slash + 1, &copy))
				goto out;
			free(s.initramfs);
			s.initramfs = copy;
			copy = NULL;
		}
		if (!vtb_guest_readable(s.kernel)) {
			unreadable_error(s.kernel);
			goto out;
		}
		if (!vtb_guest_readable(s.initramfs)) {
			unreadable_error(s.initramfs);
			goto out;
		}
	}
	*out = s;
	memset(&s, 0, sizeof(s));
	ret = 0;
out:
	vtb_guest_stage_release(&s);
	vtb_kernel_choice_release(&k);
	free(want);
	free(name);
	free(copy);
	return ret;
}

int vtb_guest_stage_kernel(const struct vtb_guest_stage *s, const char *path, const char *sha256,
			   char **staged, char **release)
{
	char *rel = vtb_kernel_release(path), *k = NULL, *name = NULL, *copy = NULL;
	int ret = -1;

	*staged = *release = NULL;
	if (!rel)
		goto out;
	k = resolve(path);
	if (!k)
		goto out;
	if (s->others_must_read && !vtb_guest_readable(k)) {
		name = vtb_asprintf("vmlinuz-%s-%.16s", rel, sha256);
		if (!name) {
			vtb_error("out of memory");
			goto out;
		}
		if (stage_copy(k, s->dir, name, &copy))
			goto out;
		free(k);
		k = copy;
		copy = NULL;
		if (!vtb_guest_readable(k)) {
			unreadable_error(k);
			goto out;
		}
	}
	*staged = k;
	*release = rel;
	k = rel = NULL;
	ret = 0;
out:
	free(rel);
	free(k);
	free(name);
	free(copy);
	return ret;
}

/* ---- per-boot image ---- */

#define BASE_MAX (256ull << 20)

/* The id becomes part of a file name: hex and '-' only. */
static bool boot_id_ok(const char *id)
{
	size_t n = strlen(id);

	return n > 0 && n <= 64 && strspn(id, "0123456789abcdefABCDEF-") == n;
}

/* The shared guest image, opened for copying: a regular file of at most
 * BASE_MAX.  An fd, or -1. */
static int open_base(const char *initramfs)
{
	struct stat st;
	int in = open(initramfs, O_RDONLY | O_CLOEXEC);

	if (in < 0) {
		if (errno == ENOENT)
			vtb_error("guest image '%s' is missing: run make guest", initramfs);
		else
			vtb_error("cannot read guest image '%s': %s", initramfs, strerror(errno));
		return -1;
	}
	if (fstat(in, &st) || !S_ISREG(st.st_mode) || (unsigned long long)st.st_size > BASE_MAX) {
		vtb_error("guest image '%s' is not a regular file of at most %llu MiB", initramfs,
			  BASE_MAX >> 20);
		close(in);
		return -1;
	}
	return in;
}

/* Copies the base image @in to @fd (@tmp), at most BASE_MAX; then the
 * boot's archive @c, which the kernel looks for at 4-byte aligned
 * offsets only, skipping zeros (init/initramfs.c). */
static int write_image(int in, const char *initramfs, int fd, const char *tmp,
		       const struct vtb_cpio *c)
{
	static const unsigned char zeros[4];
	unsigned long long total = 0;
	char *buf = malloc(COPY_CHUNK);
	int ret = -1;

	if (!buf)
		return vtb_error("out of memory");
	for (;;) {
		ssize_t n = read_full(in, buf, COPY_CHUNK);

		if (n < 0) {
			vtb_error("cannot read guest image '%s': %s", initramfs, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		total += (unsigned long long)n;
		if (total > BASE_MAX) {
			vtb_error("guest image '%s' grew beyond %llu MiB while being read",
				  initramfs, BASE_MAX >> 20);
			goto out;
		}
		if (write_all(fd, buf, (size_t)n)) {
			vtb_error("cannot write '%s': %s", tmp, strerror(errno));
			goto out;
		}
	}
	if (write_all(fd, zeros, (4 - total % 4) % 4) || write_all(fd, c->buf, c->len)) {
		vtb_error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

char *vtb_guest_boot_image(const struct vtb_guest_stage *s, const char *boot_uuid,
			   const char *job_json)
{
	struct vtb_cpio c;
	char *path = NULL, *tmp = NULL, *ret = NULL;
	int in = -1, fd = -1;
	bool created = false;

	vtb_cpio_init(&c);
	if (!boot_id_ok(boot_uuid)) {
		vtb_error("bad boot id '%s': expected hex digits and '-'", boot_uuid);
		goto out;
	}
	if (vtb_cpio_add_file(&c, "job.json", job_json, strlen(job_json), 0644) ||
	    vtb_cpio_finish(&c))
		goto out;
	path = vtb_asprintf("%s/boot-%s.img", s->dir, boot_uuid);
	tmp = vtb_asprintf("%s/boot-%s.img.tmp", s->dir, boot_uuid);
	if (!path || !tmp) {
		vtb_error("out of memory");
		goto out;
	}
	in = open_base(s->initramfs);
	if (in < 0)
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		vtb_error("cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	created = true;
	if (fchmod(fd, 0644)) {
		vtb_error("cannot set the mode of '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (write_image(in, s->initramfs, fd, tmp, &c))
		goto out;
	if (close(fd)) {
		fd = -1;
		vtb_error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path)) {
		vtb_error("cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		goto out;
	}
	created = false;
	ret = path;
	path = NULL;
out:
	if (fd >= 0)
		close(fd);
	if (in >= 0)
		close(in);
	if (created)
		unlink(tmp);
	vtb_cpio_release(&c);
	free(path);
	free(tmp);
	return ret;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int vtb_guest_sweep(const struct vtb_guest_stage *s, long age_s)
{
	time_t now = time(NULL);
	struct dirent *de;
	int count = 0;
	DIR *d;

	d = opendir(s->dir);
	if (!d)
		return vtb_error("cannot list '%s': %s", s->dir, strerror(errno));
	while ((de = readdir(d))) {
		struct stat st;

		if (strncmp(de->d_name, "boot-", 5) ||
		    !(ends_with(de->d_name, ".img") || ends_with(de->d_name, ".img.tmp")))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || now - st.st_mtime <= age_s)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			count++;
	}
	closedir(d);
	return count;
}

/* ---- default locations ---- */

/* BINDIR/guest/@rel, else BINDIR/../share/vtbench/guest/@rel. */
static char *default_path(const char *rel)
{
	char exe[PATH_MAX], *slash, *first, *second;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe));
	if (n < 0 || (size_t)n >= sizeof(exe)) {
		vtb_error("cannot read /proc/self/exe: %s",
			  n < 0 ? strerror(errno) : "path too long");
		return NULL;
	}
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	first = vtb_asprintf("%s/guest/%s", exe, rel);
	second = vtb_asprintf("%s/../share/vtbench/guest/%s", exe, rel);
	if (!first || !second) {
		free(first);
		free(second);
		vtb_error("out of memory");
		return NULL;
	}
	if (access(first, F_OK) && !access(second, F_OK)) {
		free(first);
		return second;
	}
	free(second);
	return first;
}

char *vtb_guest_default_initramfs(void)
{
	return default_path("initramfs.cpio.gz");
}

char *vtb_guest_default_fetched_dir(void)
{
	return default_path("kernel/boot");
}
