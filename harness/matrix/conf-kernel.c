/* SPDX-License-Identifier: MIT */
/*
 * matrix.conf's guest kernels: [kernel NAME] sections and [vm] kernel =,
 * an axis whose values are such sections or paths to a bzImage.  Each
 * image is checked when the matrix is read (it exists, is readable, has
 * the x86 boot setup header) and hashed, so the plan can look up what an
 * earlier boot of the same image reported (its sched knobs) and every
 * boot stores which image it ran.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confint.h"
#include "digest.h"

#define HDRS_OFF 0x202 /* "HdrS": the boot protocol's setup header magic */

char *mx_from_matrix_dir(const struct parser *p, const char *path)
{
	char *copy, *dir, *out;

	if (path[0] == '/')
		return vtb_strdup(path);
	copy = vtb_strdup(p->path);
	if (!copy)
		return NULL;
	dir = dirname(copy);
	out = strcmp(dir, ".") ? vtb_asprintf("%s/%s", dir, path) : vtb_strdup(path);
	free(copy);
	return out;
}

/* What is wrong with the file of @st for a kernel image (malloc'ed), or
 * NULL and *oom. */
static char *image_why(const char *path, const struct stat *st, bool *oom)
{
	char *why = NULL;

	if (!S_ISREG(st->st_mode))
		why = vtb_asprintf("kernel image '%s' is not a regular file", path);
	else if ((uint64_t)st->st_size > VTB_KERNEL_IMAGE_MAX)
		why = vtb_asprintf("kernel image '%s' is too large (%llu bytes, limit %llu MiB)",
				   path, (unsigned long long)st->st_size,
				   (unsigned long long)(VTB_KERNEL_IMAGE_MAX >> 20));
	else
		return NULL;
	*oom = !why;
	return why;
}

/*
 * 0 when @path is a readable regular file of at most VTB_KERNEL_IMAGE_MAX
 * bytes with the bzImage header, else *why (malloc'ed) says what is
 * wrong.  stat() first: what is no regular file is never opened (a FIFO
 * would block, a device may act), what is too large never read.
 */
static int image_check(const char *path, char **why)
{
	unsigned char magic[4];
	struct stat st;
	bool oom = false;
	ssize_t got;
	int fd;

	*why = NULL;
	if (stat(path, &st) < 0) {
		*why = vtb_asprintf("cannot read kernel image '%s': %s", path, strerror(errno));
		return *why ? 0 : -1;
	}
	if ((*why = image_why(path, &st, &oom)) || oom)
		return oom ? -1 : 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		*why = vtb_asprintf("cannot read kernel image '%s': %s", path, strerror(errno));
		return *why ? 0 : -1;
	}
	/* the same checks on what was opened: it may have been replaced */
	if (fstat(fd, &st)) {
		*why = vtb_asprintf("cannot read kernel image '%s': %s", path, strerror(errno));
	} else if (!(*why = image_why(path, &st, &oom)) && !oom) {
		got = pread(fd, magic, sizeof(magic), HDRS_OFF);
		if (got < 0)
			*why = vtb_asprintf("cannot read kernel image '%s': %s", path,
					    strerror(errno));
		else if (got != (ssize_t)sizeof(magic) || memcmp(magic, "HdrS", 4))
			*why = vtb_asprintf(
				"'%s' is not a Linux kernel image (no bzImage setup header 'HdrS' at 0x202)",
				path);
	}
	close(fd);
	return oom ? -1 : 0;
}

static bool readable_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, R_OK);
}

char *vtb_kernel_config_beside(const char *image)
{
	char *copy = vtb_strdup(image), *copy2 = vtb_strdup(image), *dir, *base, *c = NULL;
	const char *suffix = NULL;
	char *only = NULL;
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	if (!copy || !copy2)
		goto out;
	dir = dirname(copy);
	base = basename(copy2);
	c = vtb_asprintf("%s/.config", dir);
	if (!c || readable_file(c))
		goto out;
	free(c);
	c = NULL;
	if (!strncmp(base, "vmlinuz-", 8))
		suffix = base + 8;
	else if (!strncmp(base, "bzImage-", 8))
		suffix = base + 8;
	if (suffix) {
		c = vtb_asprintf("%s/config-%s", dir, suffix);
		if (!c || readable_file(c))
			goto out;
		free(c);
		c = NULL;
	}
	/* else the one config-* of the directory */
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "config-", 7))
			continue;
		if (n++) {
			free(only);
			only = NULL;
			break;
		}
		only = vtb_asprintf("%s/%s", dir, e->d_name);
	}
	if (d)
		closedir(d);
	if (only && readable_file(only)) {
		c = only;
		only = NULL;
	}
out:
	free(only);
	free(copy);
	free(copy2);
	return c;
}

/* The [kernel NAME] or path @value of [vm] kernel = (line @line): its
 * image and config, checked, in @c. */
static int kernel_resolve(struct parser *p, const char *value, int line, struct vtb_config *c)
{
	const struct sect *s = mx_find_sect(p, S_KERNEL, value);
	const struct ent *pe = NULL, *ce = NULL;
	int path_line = line;
	char *why = NULL;

	if (s) {
		pe = mx_sect_ent(s, "path");
		ce = mx_sect_ent(s, "config");
		if (!pe)
			return mx_perr(p, s->line, "[kernel %s] has no 'path =' (the kernel image)",
				       value);
		path_line = pe->line;
	}
	c->kernel_name = vtb_strdup(value);
	c->kernel_path = mx_from_matrix_dir(p, pe ? pe->val.buf : value);
	if (!c->kernel_name || !c->kernel_path)
		return vtb_error("out of memory");
	if (image_check(c->kernel_path, &why) < 0)
		return vtb_error("out of memory");
	if (why) {
		int r = mx_perr(p, path_line, "%s", why);

		free(why);
		return r;
	}
	if (vtb_sha256_file_hex(c->kernel_path, VTB_KERNEL_IMAGE_MAX, c->kernel_sha256) < 0)
		return mx_perr(p, path_line, "%s", vtb_errmsg());
	if (ce) {
		c->kernel_config = mx_from_matrix_dir(p, ce->val.buf);
		if (!c->kernel_config)
			return vtb_error("out of memory");
		if (!readable_file(c->kernel_config))
			return mx_perr(p, ce->line, "cannot read kernel config '%s'",
				       c->kernel_config);
	} else {
		c->kernel_config = vtb_kernel_config_beside(c->kernel_path);
	}
	return 0;
}

int mx_check_global_kernel(struct parser *p, const char *path, int line)
{
	char *why = NULL;
	int ret;

	/* the path as the guests' staging reads it: as written */
	if (image_check(path, &why) < 0)
		return vtb_error("out of memory");
	if (!why)
		return 0;
	ret = mx_perr(p, line, "%s ([global] kernel =)", why);
	free(why);
	return ret;
}

int mx_check_kernels(struct parser *p, const struct strv *vals, int line)
{
	struct strv cands = { 0 };
	char *hint = NULL;
	size_t i;
	int ret = 0;

	for (i = 0; i < p->n_sects; i++)
		if (p->sects[i].kind == S_KERNEL && mx_strv_push(&cands, p->sects[i].name) < 0) {
			ret = -1;
			goto out;
		}
	if (mx_grow(&cands.v, &cands.alloc, cands.n + 1, sizeof(*cands.v)) < 0) {
		ret = -1;
		goto out;
	}
	cands.v[cands.n] = NULL;
	for (i = 0; i < vals->n; i++) {
		const char *v = vals->v[i];

		if (mx_strv_has(&cands, v) || strchr(v, '/'))
			continue;
		hint = mx_did_you_mean(" (did you mean '%s'?)",
				       vtb_suggest((const char *const *)cands.v, v));
		ret = mx_perr(
			p, line,
			"unknown kernel '%s': not a [kernel NAME] nor a path (a path has a '/')%s",
			v, hint ? hint : "");
		goto out;
	}
out:
	free(hint);
	mx_strv_release(&cands);
	return ret;
}

int mx_kernel_params(struct parser *p, const char *value, int line, struct vtb_config *c,
		     size_t *alloc)
{
	const struct sect *s;
	const struct ent *e;

	if (!value)
		return 0;
	if (kernel_resolve(p, value, line, c) < 0)
		return -1;
	if (mx_params_add(&c->params, alloc, "kernel", value) < 0)
		return -1;
	s = mx_find_sect(p, S_KERNEL, value);
	e = s ? mx_sect_ent(s, "cmdline") : NULL;
	if (e && mx_params_add(&c->params, alloc, "kernel.cmdline", e->val.buf) < 0)
		return -1;
	return 0;
}
