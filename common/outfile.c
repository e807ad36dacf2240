/* SPDX-License-Identifier: MIT */
/*
 * Writing a file at a path a user gave, safely as root (outfile.h has the
 * rule).  Why each step: renaming a temporary over a path replaced
 * /dev/null with a regular file (every later guest boot failed), left a
 * FIFO's reader blocked, replaced a symlink, lost a file's mode and, with
 * -o naming the database, destroyed the results.  So the path's kind is
 * looked at first (lstat), and only a regular file (or nothing) is ever
 * replaced by rename; everything else is written through or refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "vtbutil.h"

/* The descriptor a path names by convention ("-", /dev/stdout, /dev/fd/N,
 * /proc/self/fd/N), or -1. */
static int std_fd(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	long long n;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(dirs); i++) {
		size_t k = strlen(dirs[i]);

		if (!strncmp(path, dirs[i], k) && vtb_parse_int(path + k, 0, INT_MAX, &n) == 0)
			return (int)n;
	}
	return -1;
}

/* Errors that are the path's fault (exit 2), not the machine's. */
static bool input_errno(int e)
{
	return e == ENOENT || e == ENOTDIR || e == EACCES || e == EISDIR || e == EROFS ||
	       e == ELOOP || e == ENAMETOOLONG || e == EPERM || e == ENXIO || e == EBADF;
}

/* A refusal: the message, and the input error's code. */
static int __attribute__((format(printf, 1, 2))) refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtb_verror(fmt, ap);
	va_end(ap);
	return VTB_OUT_EINPUT;
}

static int fail(int e, const char *path)
{
	vtb_error("cannot write '%s': %s", path, strerror(e));
	return input_errno(e) ? VTB_OUT_EINPUT : -1;
}

/* @path made absolute and free of symlinks in its directory part, though
 * the file itself may not exist (malloc'ed, NULL when the directory cannot
 * be resolved). */
static char *canon(const char *path)
{
	char *d = vtb_strdup(path), *b = vtb_strdup(path), *rd = NULL, *ret = NULL;

	if (d && b && (rd = realpath(dirname(d), NULL)))
		ret = vtb_asprintf("%s/%s", strcmp(rd, "/") ? rd : "", basename(b));
	free(d);
	free(b);
	free(rd);
	return ret;
}

static bool same_file(const char *a, const struct stat *sb)
{
	struct stat sa;

	return !stat(a, &sa) && sa.st_dev == sb->st_dev && sa.st_ino == sb->st_ino;
}

/* @path's file as SQLite names it: symlinks resolved (a database's -wal
 * and -shm lie beside the resolved file), else canon()'s (malloc'ed). */
static char *input_name(const char *path)
{
	char *r = realpath(path, NULL);

	return r ? r : canon(path);
}

/* Is the file to write (named @target when it is a path, @st when it
 * exists) one of @inputs, or a SQLite side file of one? */
static int check_inputs(const char *path, const char *target, const struct stat *st,
			const struct vtb_out_input *inputs)
{
	static const char *const side[] = { "-wal", "-shm", "-journal" };
	char *ct = target ? canon(target) : NULL;
	int ret = 0;

	for (; inputs && inputs->path && !ret; inputs++) {
		char *ci = input_name(inputs->path);
		int hit = 0;

		if ((st && same_file(inputs->path, st)) || (ci && ct && !strcmp(ci, ct)))
			hit = 1;
		for (size_t i = 0; inputs->sqlite && !hit && ci && i < VTB_ARRAY_SIZE(side); i++) {
			char *cs = vtb_asprintf("%s%s", ci, side[i]);

			if (cs && ((st && same_file(cs, st)) || (ct && !strcmp(cs, ct))))
				hit = 2 + (int)i;
			free(cs);
		}
		free(ci);
		if (hit == 1)
			ret = refuse("cannot write '%s': it is %s this command reads ('%s')", path,
				     inputs->what, inputs->path);
		else if (hit)
			ret = refuse("cannot write '%s': it is the %s file of %s this command "
				     "reads ('%s')",
				     path, side[hit - 2] + 1, inputs->what, inputs->path);
	}
	free(ct);
	return ret;
}

/*
 * May the symlink at @path (lstat @lst) be followed?  The kernel's rule
 * for protected_symlinks, applied here because vtbench reads the link
 * itself (readlink, then writes its target), where the kernel's check
 * would not run: not in a sticky world-writable directory (/tmp) unless
 * the link is ours or the directory owner's.  A link another user
 * planted at a name in /tmp would otherwise make root write where that
 * user chose.
 */
static bool link_trusted(const char *path, const struct stat *lst)
{
	char *d = vtb_strdup(path);
	struct stat ds;
	bool ok;

	ok = d && !stat(dirname(d), &ds) &&
	     (!(ds.st_mode & S_ISVTX) || !(ds.st_mode & S_IWOTH) || lst->st_uid == geteuid() ||
	      lst->st_uid == ds.st_uid);
	free(d);
	return ok;
}

/* The file the symlink @path names, one level (malloc'ed: relative
 * targets joined to the link's directory), or NULL with errno. */
static char *link_target(const char *path)
{
	char *t = NULL, *d, *ret;
	size_t cap = 256;

	for (;;) {
		ssize_t n;

		free(t);
		t = malloc(cap);
		if (!t)
			return NULL;
		n = readlink(path, t, cap);
		if (n < 0) {
			free(t);
			return NULL;
		}
		if ((size_t)n < cap) {
			t[n] = '\0';
			break;
		}
		cap *= 2;
	}
	if (t[0] == '/')
		return t;
	d = vtb_strdup(path);
	ret = d ? vtb_asprintf("%s/%s", dirname(d), t) : NULL;
	free(d);
	free(t);
	return ret;
}

/* @fd (ours) as @o's stream: 0, or -1 with @fd closed. */
static int adopt_fd(struct vtb_outfile *o, int fd)
{
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		return vtb_error("out of memory");
	}
	o->own_f = true;
	return 0;
}

/* A failure after @fd was opened: closed, the error said. */
static int fail_fd(int fd, int e, const char *path)
{
	close(fd);
	return fail(e, path);
}

/* A temporary file beside @o->target, for a replace (@st: the file it
 * replaces) or a create (@st NULL). */
static int open_tmp(struct vtb_outfile *o, const struct stat *st)
{
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	o->tmp = vtb_asprintf("%s.XXXXXX", o->target);
	if (!o->tmp)
		return vtb_error("out of memory");
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		free(o->tmp);
		o->tmp = NULL;
		return fail(e, o->path);
	}
	if (st) {
		/* the file keeps its mode and, where we may, its owner */
		if (fchmod(fd, st->st_mode & 07777) < 0 ||
		    (geteuid() == 0 && (st->st_uid != 0 || st->st_gid != 0) &&
		     fchown(fd, st->st_uid, st->st_gid) < 0))
			return fail_fd(fd, errno, o->path);
	} else if (fchmod(fd, 0666 & ~mask) < 0) {
		return fail_fd(fd, errno, o->path);
	}
	o->create = !st;
	return adopt_fd(o, fd);
}

/* A character device or FIFO: opened and written through, never
 * truncated or replaced. */
static int open_through(struct vtb_outfile *o, const struct stat *st)
{
	struct stat now;
	int fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return fail(errno, o->path);
	/* what was looked at is what was opened */
	if (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		return refuse("cannot write '%s': it changed while it was opened", o->path);
	}
	return adopt_fd(o, fd);
}

/* A descriptor named by convention: it must be open for writing and not
 * one of the inputs (the database's descriptors have predictable
 * numbers: /proc/self/fd/4 may be its -wal). */
static int open_std(struct vtb_outfile *o, int fd, const struct vtb_out_input *inputs)
{
	struct stat st;
	int fl, d, r;

	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fstat(fd, &st) < 0)
		return refuse("cannot write '%s': %s", o->path, strerror(errno));
	if ((fl & O_ACCMODE) == O_RDONLY)
		return refuse("cannot write '%s': the descriptor is not open for writing", o->path);
	r = check_inputs(o->path, NULL, &st, inputs);
	if (r)
		return r;
	if (fd == 1 || fd == 2) {
		o->f = fd == 1 ? stdout : stderr;
		return 0;
	}
	d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (d < 0)
		return fail(errno, o->path);
	return adopt_fd(o, d);
}

/* VTB_OUT_STREAM: a missing or regular file written in place, as the
 * shell's > does (a reader may follow it, an interrupted writer leaves
 * what it wrote): created O_EXCL, or opened without following a link,
 * checked to be what was looked at, then truncated. */
static int open_inplace(struct vtb_outfile *o, const struct stat *st)
{
	struct stat now;
	int fd;

	if (!st)
		fd = open(o->target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	else
		fd = open(o->target, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail(errno, o->path);
	if (st && (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino)) {
		close(fd);
		return refuse("cannot write '%s': it changed while it was opened", o->path);
	}
	if (st && ftruncate(fd, 0) < 0)
		return fail_fd(fd, errno, o->path);
	o->inplace = true;
	return adopt_fd(o, fd);
}

int vtb_outfile_open(struct vtb_outfile *o, const char *path, unsigned flags,
		     const struct vtb_out_input *inputs)
{
	struct stat st;
	int fd, ret;
	bool exists;

	memset(o, 0, sizeof(*o));
	if (!path || !*path)
		return refuse("no file name to write");
	o->path = vtb_strdup(path);
	if (!o->path)
		return vtb_error("out of memory");
	fd = std_fd(path);
	if (fd >= 0 && !(flags & VTB_OUT_NAMED_DIR)) {
		ret = open_std(o, fd, inputs);
		goto out;
	}
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT) {
			ret = fail(errno, path);
			goto out;
		}
		exists = false;
	} else {
		exists = true;
	}
	if (exists && S_ISLNK(st.st_mode)) {
		if (flags & VTB_OUT_NAMED_DIR) {
			ret = refuse("cannot write '%s': it is a symbolic link, which vtbench "
				     "does not follow inside the directory",
				     path);
			goto out;
		}
		if (!link_trusted(path, &st)) {
			ret = refuse("cannot write '%s': it is a symbolic link owned by uid %u in a "
				     "sticky world-writable directory, which vtbench does not "
				     "follow (the kernel's protected_symlinks rule)",
				     path, (unsigned)st.st_uid);
			goto out;
		}
		o->target = link_target(path);
		if (!o->target) {
			ret = fail(errno ? errno : ENOMEM, path);
			goto out;
		}
		if (lstat(o->target, &st) < 0) {
			if (errno == ENOENT)
				ret = refuse("cannot write '%s': it is a symbolic link to a "
					     "missing file, which vtbench does not create",
					     path);
			else
				ret = fail(errno, path);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			ret = refuse("cannot write '%s': it is a symbolic link to another "
				     "symbolic link ('%s'), which vtbench does not follow",
				     path, o->target);
			goto out;
		}
		o->note = vtb_asprintf("'%s' is a symbolic link: writing its target '%s'", path,
				       o->target);
	} else {
		/* the path as given: the kernel resolves its directories (with
		 * its own protected_symlinks checks) when the temporary is made */
		o->target = vtb_strdup(path);
		if (!o->target) {
			ret = vtb_error("out of memory");
			goto out;
		}
	}
	ret = check_inputs(path, o->target, exists ? &st : NULL, inputs);
	if (ret)
		goto out;
	if ((!exists || S_ISREG(st.st_mode)) && (flags & VTB_OUT_STREAM)) {
		ret = open_inplace(o, exists ? &st : NULL);
	} else if (!exists) {
		ret = open_tmp(o, NULL);
	} else if (S_ISREG(st.st_mode)) {
		ret = open_tmp(o, &st);
	} else if ((S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) && !(flags & VTB_OUT_NAMED_DIR)) {
		ret = open_through(o, &st);
	} else {
		ret = refuse("cannot write '%s': it is %s, which vtbench does not replace", path,
			     vtb_file_kind(st.st_mode));
	}
out:
	if (ret)
		vtb_outfile_abandon(o);
	return ret;
}

/* fsync of the directory holding @path: the rename itself is durable */
static void sync_dir(const char *path)
{
	char *d = vtb_strdup(path);
	int fd = d ? open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(d);
}

int vtb_outfile_commit(struct vtb_outfile *o)
{
	FILE *f = o->f;
	int bad = 0, e = 0;

	if (!f)
		return 0;
	o->f = NULL;
	if (fflush(f) || ferror(f))
		bad = 1, e = errno;
	if (!bad && (o->tmp || o->inplace) && fsync(fileno(f)) < 0)
		bad = 1, e = errno;
	if (o->own_f && fclose(f) && !bad)
		bad = 1, e = errno;
	o->own_f = false;
	if (bad)
		return vtb_error("cannot write '%s': %s", o->path, strerror(e ? e : EIO));
	if (!o->tmp)
		return 0;
	if (o->create) {
		/* nothing may have appeared at the path meanwhile: never replace
		 * what someone else put there (a symlink planted after the
		 * check) */
		if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->target, RENAME_NOREPLACE) < 0) {
			if (errno != EINVAL && errno != ENOSYS)
				return vtb_error("cannot write '%s': %s", o->path,
						 errno == EEXIST
							 ? "it appeared while it was written"
							 : strerror(errno));
			/* a file system without RENAME_NOREPLACE: link() fails
			 * on an existing name too */
			if (link(o->tmp, o->target) < 0)
				return vtb_error("cannot write '%s': %s", o->path,
						 errno == EEXIST
							 ? "it appeared while it was written"
							 : strerror(errno));
			unlink(o->tmp);
		}
	} else if (rename(o->tmp, o->target) < 0) {
		return vtb_error("cannot write '%s': %s", o->path, strerror(errno));
	}
	free(o->tmp);
	o->tmp = NULL;
	sync_dir(o->target);
	return 0;
}

void vtb_outfile_abandon(struct vtb_outfile *o)
{
	if (!o)
		return;
	if (o->f && o->own_f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	free(o->target);
	free(o->note);
	memset(o, 0, sizeof(*o));
}

int vtb_outfile_write(const char *path, unsigned flags, const struct vtb_out_input *inputs,
		      const void *data, size_t len, char **note)
{
	struct vtb_outfile o;
	int ret;

	if (note)
		*note = NULL;
	ret = vtb_outfile_open(&o, path, flags, inputs);
	if (ret)
		return ret;
	if (len && fwrite(data, 1, len, o.f) != len)
		ret = vtb_error("cannot write '%s': %s", path, strerror(errno));
	if (!ret)
		ret = vtb_outfile_commit(&o);
	if (!ret && note) {
		*note = o.note;
		o.note = NULL;
	}
	vtb_outfile_abandon(&o);
	return ret;
}
