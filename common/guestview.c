/* SPDX-License-Identifier: MIT */
/*
 * The guest's own account of its topology and scheduler, recorded
 * verbatim (trimmed file contents, null where a file is missing): the
 * harness normalises and judges it, the agent only reports.  Kernels
 * differ in what exists (DIE vs PKG, CFS vs EEVDF knobs, sched/verbose
 * gating, schedstat line formats), so nothing here assumes a file is
 * there; and a guest reading its own kernel is still bounded, because
 * the records it writes go to a harness that trusts nothing.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libcpuid/libcpuid.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guestview.h"
#include "vtbutil.h"

#define READ_MAX (64 * 1024)
#define LINE_MAX_BYTES (1024 * 1024)

static const char *const domain_knobs[] = { "min_interval", "max_interval", "busy_factor",
					    "imbalance_pct", "cache_nice_tries" };

char *vtb_gv_path(const char *root, const char *fmt, ...)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	va_list ap;
	char *rel;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&rel, fmt, ap);
	va_end(ap);
	if (n < 0) {
		vtb_error("out of memory");
		return NULL;
	}
	if (vtb_strbuf_addstr(&sb, root ? root : "") || vtb_strbuf_addstr(&sb, rel)) {
		free(rel);
		vtb_strbuf_release(&sb);
		vtb_error("out of memory");
		return NULL;
	}
	free(rel);
	return vtb_strbuf_detach(&sb);
}

int vtb_gv_write(const char *root, const char *rel, const char *value)
{
	char *p = vtb_gv_path(root, "%s", rel);
	size_t len = strlen(value), off = 0;
	int fd, err = 0;

	if (!p)
		return ENOMEM;
	fd = open(p, O_WRONLY | O_CLOEXEC | (root && *root ? O_TRUNC : 0));
	free(p);
	if (fd < 0)
		return errno;
	while (off < len) {
		ssize_t n = write(fd, value + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) != 0 && !err)
		err = errno;
	return err;
}

char *vtb_gv_read(const char *path)
{
	char *s = vtb_read_file(path, READ_MAX);
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Reads ROOT + formatted path; NULL when absent (or on ENOMEM). */
static char *readf(const char *root, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static char *readf(const char *root, const char *fmt, ...)
{
	va_list ap;
	char *rel, *path, *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&rel, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	path = vtb_gv_path(root, "%s", rel);
	free(rel);
	if (!path)
		return NULL;
	s = vtb_gv_read(path);
	free(path);
	return s;
}

static bool existsf(const char *root, bool dir, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool existsf(const char *root, bool dir, const char *fmt, ...)
{
	struct stat st;
	va_list ap;
	char *rel, *path;
	bool ok;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&rel, fmt, ap);
	va_end(ap);
	if (n < 0)
		return false;
	path = vtb_gv_path(root, "%s", rel);
	free(rel);
	if (!path)
		return false;
	ok = stat(path, &st) == 0 && (dir ? S_ISDIR(st.st_mode) : true);
	free(path);
	return ok;
}

/* A string member from a malloc'ed value (taken), null when NULL. */
static json_t *jstr(char *s)
{
	json_t *v = s ? json_string(s) : json_null();

	free(s);
	return v;
}

/* Sets @k to @v (stolen); -1 when @v is NULL (ENOMEM) or the set fails. */
static int put(json_t *o, const char *k, json_t *v)
{
	if (!v || json_object_set_new(o, k, v))
		return -1;
	return 0;
}

static int append(json_t *a, json_t *v)
{
	if (!v || json_array_append_new(a, v))
		return -1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names of @path's directories (@dirs) or regular files, sorted, at
 * most VTB_GV_MAX_NAMES.  *whole is false when the listing is not all
 * of the directory: it cannot be opened or read, or holds more.  NULL on
 * ENOMEM (vtb_error), never a list cut short by it.
 */
static json_t *list_names(const char *path, bool dirs, bool *whole)
{
	char **names = NULL;
	size_t n = 0, i = 0;
	json_t *arr = json_array();
	struct dirent *de;
	bool oom = !arr;
	DIR *d = oom ? NULL : opendir(path);

	*whole = d != NULL;
	if (d && !(names = calloc(VTB_GV_MAX_NAMES, sizeof(*names))))
		oom = true;
	while (d && !oom) {
		struct stat st;
		char *full;

		errno = 0;
		if (!(de = readdir(d))) {
			*whole = *whole && errno == 0;
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		if (n == VTB_GV_MAX_NAMES) {
			*whole = false;
			break;
		}
		if (!(full = vtb_asprintf("%s/%s", path, de->d_name))) {
			oom = true;
			break;
		}
		if (stat(full, &st) < 0)
			*whole = false; /* an entry we cannot tell */
		else if (dirs ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)) {
			names[n] = strdup(de->d_name);
			oom = !names[n];
			n += !oom;
		}
		free(full);
	}
	if (d)
		closedir(d);
	if (!oom && n) {
		qsort(names, n, sizeof(*names), cmp_str);
		for (; i < n && !oom; i++)
			oom = append(arr, json_string(names[i])) != 0;
	}
	for (size_t j = 0; j < n; j++)
		free(names[j]);
	free(names);
	if (!oom)
		return arr;
	json_decref(arr);
	vtb_error("out of memory");
	return NULL;
}

json_t *vtb_gv_list(const char *path, bool dirs)
{
	bool whole;

	return list_names(path, dirs, &whole);
}

bool vtb_gv_level_match(const char *want, const char *name)
{
	if (!want || !name)
		return false;
	if (strcmp(want, name) == 0)
		return true;
	return (!strcmp(want, "DIE") && !strcmp(name, "PKG")) ||
	       (!strcmp(want, "PKG") && !strcmp(name, "DIE"));
}

int vtb_gv_ensure_verbose(const char *root, char **was, bool *set)
{
	char *path = vtb_gv_path(root, VTB_GV_SCHED_DIR "/verbose"), *v;
	int ret = 0, fd;

	if (was)
		*was = NULL;
	if (set)
		*set = false;
	if (!path)
		return -1;
	v = vtb_gv_read(path);
	if (v && strcmp(v, "N") == 0) {
		fd = open(path, O_WRONLY | O_CLOEXEC | (root && *root ? O_TRUNC : 0));
		if (fd < 0 || write(fd, "Y", 1) != 1) {
			ret = vtb_error("cannot write 'Y' to '%s': %s", VTB_GV_SCHED_DIR "/verbose",
					strerror(errno));
		} else if (set) {
			*set = true;
		}
		if (fd >= 0)
			close(fd);
	}
	if (was)
		*was = v;
	else
		free(v);
	free(path);
	return ret;
}

/* The possible CPUs (cpu/possible, else the cpuN directories), cut at
 * VTB_GV_MAX_CPUS.  -1 only on ENOMEM. */
static int possible_cpus(const char *root, struct vtb_cpuset *out)
{
	char *s = readf(root, "/sys/devices/system/cpu/possible");
	struct vtb_cpuset all = { 0 };
	size_t i;

	out->cpus = NULL;
	out->n = 0;
	if (!s || vtb_cpuset_parse(s, &all)) {
		char *dir = vtb_gv_path(root, "/sys/devices/system/cpu");
		json_t *l = dir ? vtb_gv_list(dir, true) : NULL, *v;

		free(dir);
		free(s);
		if (!l)
			return -1;
		json_array_foreach(l, i, v)
		{
			const char *n = json_string_value(v);
			long long c;

			if (strncmp(n, "cpu", 3) ||
			    vtb_parse_int(n + 3, 0, VTB_GV_MAX_CPUS - 1, &c))
				continue;
			if (vtb_cpuset_add(&all, (int)c)) {
				json_decref(l);
				return -1;
			}
		}
		json_decref(l);
	} else {
		free(s);
	}
	for (i = 0; i < all.n && all.cpus[i] < VTB_GV_MAX_CPUS; i++)
		if (vtb_cpuset_add(out, all.cpus[i])) {
			vtb_cpuset_release(&all);
			vtb_cpuset_release(out);
			return -1;
		}
	vtb_cpuset_release(&all);
	return 0;
}

/* ---- probe ---- */

/* Distinct domain names, by domain index then CPU order. */
static json_t *domain_levels(const char *root, const struct vtb_cpuset *cpus)
{
	json_t *levels = json_array();
	size_t i, k;
	int m;

	if (!levels)
		return NULL;
	for (m = 0; m < VTB_GV_MAX_LEVELS; m++) {
		bool any = false;

		for (i = 0; i < cpus->n; i++) {
			char *name = readf(root, VTB_GV_SCHED_DIR "/domains/cpu%d/domain%d/name",
					   cpus->cpus[i], m);
			json_t *v;
			bool seen = false;

			if (!name) {
				if (existsf(root, true, VTB_GV_SCHED_DIR "/domains/cpu%d/domain%d",
					    cpus->cpus[i], m))
					any = true;
				continue;
			}
			any = true;
			json_array_foreach(levels, k, v) if (!strcmp(json_string_value(v), name))
				seen = true;
			if (!seen && json_array_size(levels) < VTB_GV_MAX_LEVELS &&
			    append(levels, json_string(name))) {
				free(name);
				json_decref(levels);
				return NULL;
			}
			free(name);
		}
		if (!any)
			break;
	}
	return levels;
}

/* Files of the first domain directory found (cpuN/domain0 by CPU). */
static json_t *first_domain_knobs(const char *root, const struct vtb_cpuset *cpus)
{
	size_t i;

	for (i = 0; i < cpus->n; i++) {
		char *p = vtb_gv_path(root, VTB_GV_SCHED_DIR "/domains/cpu%d/domain0",
				      cpus->cpus[i]);
		json_t *l;

		if (!p)
			return NULL;
		if (!existsf("", true, "%s", p)) {
			free(p);
			continue;
		}
		l = vtb_gv_list(p, false);
		free(p);
		return l;
	}
	return json_array();
}

/* "version N" of /proc/schedstat, -1 when absent. */
static long long schedstat_version(const char *root)
{
	char *path = vtb_gv_path(root, "/proc/schedstat");
	char line[256];
	long long v = -1;
	FILE *f;

	if (!path)
		return -1;
	f = fopen(path, "re");
	free(path);
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f) && strncmp(line, "version ", 8) == 0) {
		line[strcspn(line, "\n")] = '\0';
		if (vtb_parse_int(line + 8, 0, 1000000, &v))
			v = -1;
	}
	fclose(f);
	return v;
}

/* A cgroup2 hierarchy at /sys/fs/cgroup, by ROOT/proc/mounts. */
static bool cgroup2_mounted(const char *root)
{
	char *path = vtb_gv_path(root, "/proc/mounts");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	if (!path)
		return false;
	f = fopen(path, "re");
	free(path);
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char dev[256], mnt[256], type[64];

		if (sscanf(line, "%255s %255s %63s", dev, mnt, type) == 3 &&
		    !strcmp(mnt, VTB_GV_CGROUP_DIR) && !strcmp(type, "cgroup2"))
			found = true;
	}
	free(line);
	fclose(f);
	return found;
}

static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while (p && *p) {
		p += strspn(p, " \t\n");
		if (!strncmp(p, word, n) && (p[n] == '\0' || isspace((unsigned char)p[n])))
			return true;
		p += strcspn(p, " \t\n");
	}
	return false;
}

/*
 * The sysctl names directly under ROOT/proc/sys/@dir (its files), sorted:
 * what lets the harness tell a kernel lacks a sysctl a profile sets
 * before booting it.  Null, "not listed", when the directory is missing,
 * cannot be read whole (opendir, readdir or stat fails), is empty, or
 * holds more than VTB_GV_MAX_SYSCTLS files or VTB_GV_MAX_SYSCTL_BYTES of
 * names: a list cut short would call a sysctl missing.
 */
static json_t *sysctl_names(const char *root, const char *dir)
{
	char *path = vtb_gv_path(root, "/proc/sys/%s", dir);
	json_t *l, *v;
	size_t i, bytes = 0;
	bool whole;

	if (!path)
		return NULL;
	if (!existsf("", true, "%s", path)) {
		free(path);
		return json_null();
	}
	l = list_names(path, false, &whole);
	free(path);
	if (!l)
		return NULL;
	json_array_foreach(l, i, v) bytes += json_string_length(v);
	if (!whole || !json_array_size(l) || json_array_size(l) > VTB_GV_MAX_SYSCTLS ||
	    bytes > VTB_GV_MAX_SYSCTL_BYTES) {
		json_decref(l);
		return json_null();
	}
	return l;
}

json_t *vtb_gv_probe(const char *root, bool set_verbose)
{
	struct vtb_cpuset cpus = { 0 };
	char *verbose = NULL, *sched = NULL, *ctl;
	bool vset = false;
	long long ver;
	json_t *p = NULL;

	if (set_verbose) {
		/* a failed write leaves verbose_set false: the missing
		 * domains then show in the probe and the view */
		vtb_gv_ensure_verbose(root, &verbose, &vset);
	} else {
		verbose = readf(root, VTB_GV_SCHED_DIR "/verbose");
	}
	sched = vtb_gv_path(root, VTB_GV_SCHED_DIR);
	if (!sched || possible_cpus(root, &cpus))
		goto oom;
	ver = schedstat_version(root);
	ctl = readf(root, VTB_GV_CGROUP_DIR "/cgroup.controllers");
	p = json_pack("{s:s, s:b, s:o, s:b, s:o, s:b, s:o, s:o, s:o, s:o, s:b, s:b, s:o}", "type",
		      "probe", "debugfs", existsf(root, true, VTB_GV_SCHED_DIR), "knobs",
		      vtb_gv_list(sched, false), "domains_dir",
		      existsf(root, true, VTB_GV_SCHED_DIR "/domains"), "verbose", jstr(verbose),
		      "verbose_set", vset, "domain_knobs", first_domain_knobs(root, &cpus),
		      "levels", domain_levels(root, &cpus), "schedstats",
		      jstr(readf(root, "/proc/sys/kernel/sched_schedstats")), "schedstat_version",
		      ver >= 0 ? json_integer(ver) : json_null(), "cgroup2", cgroup2_mounted(root),
		      "cpuset_partition", ctl && word_in(ctl, "cpuset"), "sysctls",
		      json_pack("{s:o, s:o}", "kernel", sysctl_names(root, "kernel"), "vm",
				sysctl_names(root, "vm")));
	verbose = NULL;
	free(ctl);
	if (!p)
		goto oom;
	free(sched);
	vtb_cpuset_release(&cpus);
	return p;
oom:
	free(verbose);
	free(sched);
	vtb_cpuset_release(&cpus);
	vtb_error("out of memory building the probe record");
	return NULL;
}

/* ---- guest view ---- */

static json_t *cpu_caches(const char *root, int cpu)
{
	json_t *caches = json_array();
	int i;

	if (!caches)
		return NULL;
	for (i = 0; i < VTB_GV_MAX_CACHES; i++) {
		json_t *c;

		if (!existsf(root, true, "/sys/devices/system/cpu/cpu%d/cache/index%d", cpu, i))
			continue;
#define CACHE_ATTR(name) \
	jstr(readf(root, "/sys/devices/system/cpu/cpu%d/cache/index%d/" name, cpu, i))
		c = json_pack("{s:i, s:o, s:o, s:o, s:o}", "index", i, "level", CACHE_ATTR("level"),
			      "type", CACHE_ATTR("type"), "size", CACHE_ATTR("size"), "shared",
			      CACHE_ATTR("shared_cpu_list"));
#undef CACHE_ATTR
		if (append(caches, c)) {
			json_decref(caches);
			return NULL;
		}
	}
	return caches;
}

static json_t *view_cpus(const char *root, const struct vtb_cpuset *cpus)
{
	struct vtb_cpuset online = { 0 };
	char *ol = readf(root, "/sys/devices/system/cpu/online");
	json_t *arr = json_array();
	bool have_online = ol && vtb_cpuset_parse(ol, &online) == 0;
	size_t i;

	free(ol);
	if (!arr)
		goto fail;
	for (i = 0; i < cpus->n; i++) {
		int c = cpus->cpus[i];
		json_t *o;

#define TOPO(name) jstr(readf(root, "/sys/devices/system/cpu/cpu%d/topology/" name, c))
		o = json_pack("{s:i, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "cpu", c,
			      "online", have_online ? vtb_cpuset_has(&online, c) : true, "core_id",
			      TOPO("core_id"), "die_id", TOPO("die_id"), "package_id",
			      TOPO("physical_package_id"), "thread_siblings",
			      TOPO("thread_siblings_list"), "core_siblings",
			      TOPO("core_siblings_list"), "die_cpus", TOPO("die_cpus_list"),
			      "package_cpus", TOPO("package_cpus_list"), "cluster_cpus",
			      TOPO("cluster_cpus_list"), "caches", cpu_caches(root, c));
#undef TOPO
		if (append(arr, o))
			goto fail;
	}
	vtb_cpuset_release(&online);
	return arr;
fail:
	vtb_cpuset_release(&online);
	json_decref(arr);
	return NULL;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static json_t *view_nodes(const char *root)
{
	char *dir = vtb_gv_path(root, "/sys/devices/system/node");
	json_t *l = dir ? vtb_gv_list(dir, true) : NULL, *arr = json_array(), *v;
	int *ids = NULL;
	size_t i, n = 0;

	free(dir);
	if (!l || !arr)
		goto fail;
	ids = calloc(json_array_size(l) + 1, sizeof(*ids));
	if (!ids)
		goto fail;
	json_array_foreach(l, i, v)
	{
		const char *name = json_string_value(v);
		long long id;

		if (strncmp(name, "node", 4) ||
		    vtb_parse_int(name + 4, 0, VTB_GV_MAX_NODES * 64, &id) || n >= VTB_GV_MAX_NODES)
			continue;
		ids[n++] = (int)id;
	}
	qsort(ids, n, sizeof(*ids), cmp_int);
	for (i = 0; i < n; i++) {
		json_t *o = json_pack("{s:i, s:o, s:o}", "node", ids[i], "cpus",
				      jstr(readf(root, "/sys/devices/system/node/node%d/cpulist",
						 ids[i])),
				      "distance",
				      jstr(readf(root, "/sys/devices/system/node/node%d/distance",
						 ids[i])));

		if (append(arr, o))
			goto fail;
	}
	free(ids);
	json_decref(l);
	return arr;
fail:
	free(ids);
	json_decref(l);
	json_decref(arr);
	return NULL;
}

static json_t *domain_level(const char *root, int cpu, int m)
{
	json_t *knobs = json_object(), *o;
	size_t k;

	if (!knobs)
		return NULL;
	for (k = 0; k < VTB_ARRAY_SIZE(domain_knobs); k++)
		if (put(knobs, domain_knobs[k],
			jstr(readf(root, VTB_GV_SCHED_DIR "/domains/cpu%d/domain%d/%s", cpu, m,
				   domain_knobs[k])))) {
			json_decref(knobs);
			return NULL;
		}
	o = json_pack("{s:i, s:o, s:o, s:o}", "domain", m, "name",
		      jstr(readf(root, VTB_GV_SCHED_DIR "/domains/cpu%d/domain%d/name", cpu, m)),
		      "flags",
		      jstr(readf(root, VTB_GV_SCHED_DIR "/domains/cpu%d/domain%d/flags", cpu, m)),
		      "knobs", knobs);
	return o;
}

static json_t *view_domains(const char *root, const struct vtb_cpuset *cpus)
{
	json_t *arr = json_array();
	size_t i;

	if (!arr)
		return NULL;
	for (i = 0; i < cpus->n; i++) {
		int c = cpus->cpus[i], m;
		json_t *levels, *o;

		if (!existsf(root, true, VTB_GV_SCHED_DIR "/domains/cpu%d", c))
			continue;
		levels = json_array();
		for (m = 0; levels && m < VTB_GV_MAX_LEVELS; m++) {
			if (!existsf(root, true, VTB_GV_SCHED_DIR "/domains/cpu%d/domain%d", c, m))
				break;
			if (append(levels, domain_level(root, c, m))) {
				json_decref(levels);
				levels = NULL;
			}
		}
		o = json_pack("{s:i, s:o}", "cpu", c, "levels", levels);
		if (append(arr, o)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static bool is_mask(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s) && *s != ',')
			return false;
	return true;
}

/*
 * /proc/schedstat domain lines: "domainN MASK stats..." (6.1) or
 * "domainN NAME MASK stats..." (newer).  A second token that is not a
 * hex mask is the level name.
 */
static json_t *view_schedstat(const char *root)
{
	char *path = vtb_gv_path(root, "/proc/schedstat");
	char *line = NULL;
	size_t cap = 0, n = 0;
	long long version = -1, cpu = -1;
	json_t *doms = NULL, *r = NULL;
	ssize_t len;
	FILE *f;

	if (!path)
		return NULL;
	f = fopen(path, "re");
	free(path);
	if (!f)
		return json_null();
	doms = json_array();
	if (!doms)
		goto out;
	while ((len = getline(&line, &cap, f)) > 0) {
		char *save = NULL, *t0, *t1, *t2;
		long long v;

		if (len > LINE_MAX_BYTES)
			continue;
		t0 = strtok_r(line, " \t\n", &save);
		t1 = t0 ? strtok_r(NULL, " \t\n", &save) : NULL;
		if (!t0 || !t1)
			continue;
		if (!strcmp(t0, "version")) {
			if (vtb_parse_int(t1, 0, 1000000, &v) == 0)
				version = v;
		} else if (!strncmp(t0, "cpu", 3)) {
			cpu = vtb_parse_int(t0 + 3, 0, VTB_GV_MAX_CPUS - 1, &v) ? -1 : v;
		} else if (!strncmp(t0, "domain", 6) && cpu >= 0 &&
			   n < (size_t)VTB_GV_MAX_CPUS * VTB_GV_MAX_LEVELS &&
			   vtb_parse_int(t0 + 6, 0, VTB_GV_MAX_LEVELS - 1, &v) == 0) {
			const char *name = NULL, *mask = t1;
			json_t *o;

			if (!is_mask(t1)) {
				t2 = strtok_r(NULL, " \t\n", &save);
				if (!t2)
					continue;
				name = t1;
				mask = t2;
			}
			o = json_pack("{s:I, s:I, s:o, s:s}", "cpu", (json_int_t)cpu, "domain",
				      (json_int_t)v, "name", name ? json_string(name) : json_null(),
				      "mask", mask);
			if (append(doms, o))
				goto out;
			n++;
		}
	}
	r = json_pack("{s:o, s:O}", "version", version >= 0 ? json_integer(version) : json_null(),
		      "domains", doms);
out:
	json_decref(doms);
	free(line);
	fclose(f);
	return r;
}

static json_t *view_cpuid(bool want)
{
	struct cpu_raw_data_t raw;
	struct cpu_id_t id;

	if (!want || !cpuid_present() || cpuid_get_raw_data(&raw) != 0 ||
	    cpu_identify(&raw, &id) != 0)
		return json_null();
	return json_pack("{s:s, s:i, s:i, s:s, s:s, s:i, s:i, s:i, s:o}", "vendor", id.vendor_str,
			 "family", (int)id.ext_family, "model", (int)id.ext_model, "codename",
			 id.cpu_codename, "brand", id.brand_str, "num_cores", (int)id.num_cores,
			 "num_logical_cpus", (int)id.num_logical_cpus, "total_logical_cpus",
			 (int)id.total_logical_cpus, "l3_kb",
			 id.l3_cache >= 0 ? json_integer(id.l3_cache) : json_null());
}

json_t *vtb_gv_view(const char *root, bool cpuid)
{
	struct vtb_cpuset cpus = { 0 };
	json_t *v;

	if (possible_cpus(root, &cpus)) {
		vtb_error("out of memory building the guest_view record");
		return NULL;
	}
	v = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "type", "guest_view", "cpus",
		      view_cpus(root, &cpus), "nodes", view_nodes(root), "domains",
		      view_domains(root, &cpus), "schedstat", view_schedstat(root), "cpuid",
		      view_cpuid(cpuid));
	vtb_cpuset_release(&cpus);
	if (!v)
		vtb_error("out of memory building the guest_view record");
	return v;
}

/* ---- steal ---- */

long long vtb_gv_steal_of(char *rest)
{
	char *save = NULL, *t;
	long long v = -1;
	int i;

	for (i = 0, t = strtok_r(rest, " \t\n", &save); t && i < 8;
	     i++, t = strtok_r(NULL, " \t\n", &save))
		if (i == 7 && vtb_parse_int(t, 0, INT64_MAX, &v))
			v = -1;
	return i == 8 ? v : -1;
}

json_t *vtb_gv_steal(const char *root, const char *phase)
{
	char *path = vtb_gv_path(root, "/proc/stat");
	char *line = NULL;
	size_t cap = 0;
	long long total = -1;
	json_t *per = json_array(), *r = NULL;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = NULL;

	if (!path || !per)
		goto out;
	f = fopen(path, "re");
	while (f && getline(&line, &cap, f) > 0) {
		char *sp = strchr(line, ' ');
		long long s;

		if (strncmp(line, "cpu", 3) || !sp)
			continue;
		s = vtb_gv_steal_of(sp);
		if (sp == line + 3) {
			total = s;
		} else if (json_array_size(per) < VTB_GV_MAX_CPUS) {
			if (append(per, json_integer(s >= 0 ? s : 0)))
				goto out;
		}
	}
	r = json_pack("{s:s, s:s, s:I, s:o, s:O}", "type", "steal", "phase", phase, "user_hz",
		      (json_int_t)(hz > 0 ? hz : 100), "ticks",
		      total >= 0 ? json_integer(total) : json_null(), "per_cpu", per);
out:
	if (f)
		fclose(f);
	free(line);
	free(path);
	json_decref(per);
	if (!r)
		vtb_error("out of memory building the steal record");
	return r;
}
