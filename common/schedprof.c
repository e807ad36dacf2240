/* SPDX-License-Identifier: MIT */
/*
 * A sched profile applied and proved.  A value that does not read back
 * is an error, never a silent difference: kernels clamp, ignore or
 * reject writes (a root partition that cannot be exclusive reads
 * "root invalid (...)"), and a profile is only worth measuring if the
 * guest really runs with it.  Every message names the key, the path and
 * the guest kernel release, since what exists differs between kernels.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guestview.h"
#include "schedprof.h"
#include "vtbutil.h"

static const char *const domain_knobs[] = { "min_interval", "max_interval", "busy_factor",
					    "imbalance_pct", "cache_nice_tries" };

enum cmp { CMP_TRIM, CMP_SPACES, CMP_CPULIST, CMP_WORD };

struct sp {
	const char *root, *name, *release;
	json_t *settings;
	struct vtb_sched_result *res;
	bool oom;
};

static void fail(struct sp *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct sp *s, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL, *full, **ne;
	int n;

	s->res->ok = false;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	full = n < 0 ? NULL : vtb_asprintf("sched profile '%s': %s", s->name, msg);
	free(msg);
	ne = full ? realloc(s->res->errors, (s->res->n_errors + 1) * sizeof(*ne)) : NULL;
	if (!ne) {
		free(full);
		s->oom = true;
		return;
	}
	ne[s->res->n_errors++] = full;
	s->res->errors = ne;
}

static bool exists(const char *root, const char *rel, bool dir)
{
	char *p = vtb_gv_path(root, "%s", rel);
	struct stat st;
	bool ok;

	if (!p)
		return false;
	ok = stat(p, &st) == 0 && (!dir || S_ISDIR(st.st_mode));
	free(p);
	return ok;
}

static char *read_rel(const char *root, const char *rel)
{
	char *p = vtb_gv_path(root, "%s", rel), *v;

	if (!p)
		return NULL;
	v = vtb_gv_read(p);
	free(p);
	return v;
}


static bool has_word(const char *list, const char *word)
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

/* Runs of whitespace collapsed to one space, ends trimmed. */
static char *collapse(const char *s)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	bool space = false;

	if (vtb_strbuf_addstr(&sb, ""))
		return NULL;
	for (s += strspn(s, " \t\n"); *s; s++) {
		if (isspace((unsigned char)*s)) {
			space = true;
			continue;
		}
		if ((space && vtb_strbuf_add(&sb, " ", 1)) || vtb_strbuf_add(&sb, s, 1)) {
			vtb_strbuf_release(&sb);
			return NULL;
		}
		space = false;
	}
	return vtb_strbuf_detach(&sb);
}

static bool same(enum cmp how, const char *want, const char *got)
{
	bool eq = false;

	if (!got)
		return false;
	switch (how) {
	case CMP_TRIM: {
		size_t b = strspn(want, " \t\n"), n = strlen(want);

		while (n > b && isspace((unsigned char)want[n - 1]))
			n--;
		eq = strlen(got) == n - b && !strncmp(got, want + b, n - b);
		break;
	}
	case CMP_SPACES: {
		char *w = collapse(want), *g = collapse(got);

		eq = w && g && !strcmp(w, g);
		free(w);
		free(g);
		break;
	}
	case CMP_CPULIST: {
		struct vtb_cpuset a = { 0 }, b = { 0 };

		eq = !vtb_cpuset_parse(want, &a) && !vtb_cpuset_parse(got, &b) && a.n == b.n &&
		     (a.n == 0 || !memcmp(a.cpus, b.cpus, a.n * sizeof(int)));
		vtb_cpuset_release(&a);
		vtb_cpuset_release(&b);
		break;
	}
	case CMP_WORD:
		eq = has_word(got, want);
		break;
	}
	return eq;
}

static void add_setting(struct sp *s, const char *key, const char *rel, const char *want,
			const char *got, bool ok)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s?, s:b}", "key", key, "path", rel, "want", want,
			      "read", got, "ok", ok);

	if (!o || json_array_append_new(s->settings, o))
		s->oom = true;
}

/*
 * Writes @want to @rel (which exists), reads it back and records the
 * setting; @cmp_want is what the read-back is compared with (@want when
 * NULL).  Returns true when it applied.
 */
static bool apply(struct sp *s, const char *key, const char *rel, const char *want,
		  const char *cmp_want, enum cmp how)
{
	int err = vtb_gv_write(s->root, rel, want);
	char *got = read_rel(s->root, rel);
	bool ok = !err && same(how, cmp_want ? cmp_want : want, got);

	add_setting(s, key, rel, want, got, ok);
	if (err)
		fail(s, "%s: cannot write '%s' to '%s': %s (guest kernel %s)", key, want, rel,
		     strerror(err), s->release);
	else if (!ok)
		fail(s, "%s: '%s' reads '%s' after writing '%s' (guest kernel %s)", key, rel,
		     got ? got : "(unreadable)", want, s->release);
	free(got);
	return ok;
}

static bool name_ok(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && !strchr(extra, *s))
			return false;
	return true;
}

/* "a, b, c" of a JSON array of strings. */
static char *join(json_t *arr)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	json_t *v;
	size_t i;

	if (vtb_strbuf_addstr(&sb, ""))
		return NULL;
	json_array_foreach(arr, i,
			   v) if (vtb_strbuf_addf(&sb, "%s%s", i ? ", " : "", json_string_value(v)))
	{
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

static void check_cmdline(struct sp *s, const char *cmdline, json_t *out)
{
	char *have = read_rel(s->root, "/proc/cmdline"), *copy = strdup(cmdline), *save = NULL;
	char *t;

	if (!copy) {
		s->oom = true;
		free(have);
		return;
	}
	for (t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		bool present = have && has_word(have, t);

		if (json_array_append_new(out,
					  json_pack("{s:s, s:b}", "token", t, "present", present)))
			s->oom = true;
		if (!present)
			fail(s, "cmdline: token '%s' absent from /proc/cmdline (guest kernel %s)",
			     t, s->release);
	}
	free(copy);
	free(have);
}

static void apply_partition(struct sp *s, const char *cpus)
{
	const char *key = "cpuset.partition";
	const char *cg = VTB_GV_CGROUP_DIR;
	char *ctl = NULL, *sub = NULL, *rel = NULL, *dir = NULL, *got = NULL;

	ctl = vtb_asprintf("%s/cgroup.controllers", cg);
	sub = vtb_asprintf("%s/cgroup.subtree_control", cg);
	rel = vtb_asprintf("%s/" VTB_SCHED_PART_CGROUP, cg);
	if (!ctl || !sub || !rel) {
		s->oom = true;
		goto out;
	}
	got = read_rel(s->root, ctl);
	if (!got) {
		fail(s, "%s: no cgroup2 hierarchy at %s in guest kernel %s", key, cg, s->release);
		goto out;
	}
	if (!has_word(got, "cpuset")) {
		fail(s, "%s: no cpuset controller in '%s' (has: %s) in guest kernel %s", key, ctl,
		     got, s->release);
		goto out;
	}
	free(got);
	got = read_rel(s->root, sub);
	if (!got || !has_word(got, "cpuset")) {
		if (!apply(s, key, sub, "+cpuset", "cpuset", CMP_WORD))
			goto out;
	}
	dir = vtb_gv_path(s->root, "%s", rel);
	if (!dir) {
		s->oom = true;
		goto out;
	}
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fail(s, "%s: cannot create '%s': %s (guest kernel %s)", key, rel, strerror(errno),
		     s->release);
		goto out;
	}
	free(got);
	got = vtb_asprintf("%s/cpuset.cpus", rel);
	if (!got) {
		s->oom = true;
		goto out;
	}
	if (!exists(s->root, got, false)) {
		fail(s, "%s: '%s' missing in guest kernel %s", key, got, s->release);
		goto out;
	}
	if (!apply(s, key, got, cpus, NULL, CMP_CPULIST))
		goto out;
	free(got);
	got = vtb_asprintf("%s/cpuset.cpus.partition", rel);
	if (!got) {
		s->oom = true;
		goto out;
	}
	if (!exists(s->root, got, false)) {
		fail(s, "%s: '%s' missing: no cpuset partitions in guest kernel %s", key, got,
		     s->release);
		goto out;
	}
	{
		int err = vtb_gv_write(s->root, got, "root");
		char *back = read_rel(s->root, got);
		bool ok = !err && back && !strcmp(back, "root");

		add_setting(s, key, got, "root", back, ok);
		if (!ok)
			fail(s,
			     "%s: partition of CPUs '%s' refused: %s%s%s '%s' reads '%s' (guest kernel %s)",
			     key, cpus, err ? "write: " : "", err ? strerror(err) : "",
			     err ? ";" : "", got, back ? back : "(unreadable)", s->release);
		free(back);
	}
out:
	free(ctl);
	free(sub);
	free(rel);
	free(dir);
	free(got);
}

static void apply_sysctl(struct sp *s, const char *name, const char *val)
{
	char *key = vtb_asprintf("sysctl.%s", name);
	char *rel = vtb_asprintf("/proc/sys/%s", name), *p;

	if (!key || !rel) {
		s->oom = true;
		goto out;
	}
	if (!name_ok(name, ".-") || strstr(name, "..") || name[0] == '.' ||
	    name[strlen(name) - 1] == '.') {
		fail(s, "%s: invalid sysctl name", key);
		goto out;
	}
	for (p = rel + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
	if (!exists(s->root, rel, false)) {
		fail(s, "%s: no such sysctl in guest kernel %s ('%s' is missing)", key, s->release,
		     rel);
		goto out;
	}
	apply(s, key, rel, val, NULL, CMP_SPACES);
out:
	free(key);
	free(rel);
}

static void apply_knob(struct sp *s, const char *knob, const char *val)
{
	char *key = vtb_asprintf("debugfs.%s", knob);
	char *rel = vtb_asprintf(VTB_GV_SCHED_DIR "/%s", knob), *dir = NULL, *have = NULL;
	json_t *knobs = NULL;

	if (!key || !rel) {
		s->oom = true;
		goto out;
	}
	if (!name_ok(knob, "")) {
		fail(s, "%s: invalid knob name", key);
		goto out;
	}
	if (!exists(s->root, VTB_GV_SCHED_DIR, true)) {
		fail(s, "%s: %s is not available in guest kernel %s", key, VTB_GV_SCHED_DIR,
		     s->release);
		goto out;
	}
	if (!exists(s->root, rel, false)) {
		dir = vtb_gv_path(s->root, VTB_GV_SCHED_DIR);
		knobs = dir ? vtb_gv_list(dir, false) : NULL;
		have = knobs ? join(knobs) : NULL;
		if (!have) {
			s->oom = true;
			goto out;
		}
		fail(s, "%s: no such knob in guest kernel %s (sched/ has: %s)", key, s->release,
		     have);
		goto out;
	}
	apply(s, key, rel, val, NULL, CMP_TRIM);
out:
	json_decref(knobs);
	free(dir);
	free(have);
	free(key);
	free(rel);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* CPU numbers of the domains/cpuN directories, sorted; NULL on ENOMEM. */
static int *domain_cpus(const char *root, size_t *n)
{
	char *dir = vtb_gv_path(root, VTB_GV_SCHED_DIR "/domains");
	json_t *l = dir ? vtb_gv_list(dir, true) : NULL, *v;
	int *ids = NULL;
	size_t i;

	free(dir);
	*n = 0;
	if (!l)
		return NULL;
	ids = calloc(json_array_size(l) + 1, sizeof(*ids));
	if (ids) {
		json_array_foreach(l, i, v)
		{
			const char *name = json_string_value(v);
			long long c;

			if (!strncmp(name, "cpu", 3) &&
			    !vtb_parse_int(name + 3, 0, VTB_GV_MAX_CPUS - 1, &c))
				ids[(*n)++] = (int)c;
		}
		qsort(ids, *n, sizeof(*ids), cmp_int);
	}
	json_decref(l);
	return ids;
}

/* Splits @copy (domains/LEVEL/KNOB or domains/cpuN/domainM/KNOB) into
 * @comp; the number of components, 0 when one is not a name. */
static size_t domain_split(char *copy, char *comp[5])
{
	char *save = NULL;
	size_t nc = 0;

	for (char *t = strtok_r(copy, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (nc == 5 || !name_ok(t, ""))
			return 0;
		comp[nc++] = t;
	}
	return nc;
}

static bool domain_knob_known(const char *knob)
{
	for (size_t k = 0; k < VTB_ARRAY_SIZE(domain_knobs); k++)
		if (!strcmp(knob, domain_knobs[k]))
			return true;
	return false;
}

/* domains/cpuN/domainM/KNOB: that one file. */
static void apply_domain_file(struct sp *s, const char *key, char *const comp[5], const char *val)
{
	char *rel = vtb_asprintf(VTB_GV_SCHED_DIR "/domains/%s/%s/%s", comp[1], comp[2], comp[3]);

	if (!rel) {
		s->oom = true;
		return;
	}
	if (!exists(s->root, rel, false))
		fail(s, "%s: no such domain knob in guest kernel %s ('%s' is missing)", key,
		     s->release, rel);
	else
		apply(s, key, rel, val, NULL, CMP_TRIM);
	free(rel);
}

/*
 * Domain directory @d: its level's name joins @levels (once), and @knob
 * is set there when the domain is of @level.  1 when it is, 0 when not,
 * -1 on ENOMEM.
 */
static int apply_in_domain(struct sp *s, const char *key, const char *d, const char *level,
			   const char *knob, const char *val, json_t *levels)
{
	char *name = vtb_asprintf("%s/name", d), *nm, *rel;
	bool seen = false, hit = false;
	json_t *lv;
	size_t k;

	if (!name) {
		s->oom = true;
		return -1;
	}
	nm = read_rel(s->root, name);
	free(name);
	json_array_foreach(levels, k, lv) if (nm && !strcmp(json_string_value(lv), nm)) seen = true;
	if (nm && !seen && json_array_append_new(levels, json_string(nm)))
		s->oom = true;
	if (vtb_gv_level_match(level, nm)) {
		rel = vtb_asprintf("%s/%s", d, knob);
		if (!rel) {
			s->oom = true;
		} else if (!exists(s->root, rel, false)) {
			fail(s, "%s: '%s' is missing in guest kernel %s", key, rel, s->release);
		} else {
			apply(s, key, rel, val, NULL, CMP_TRIM);
		}
		free(rel);
		hit = true;
	}
	free(nm);
	return hit;
}

/* domains/LEVEL/KNOB: @knob in every domain of @level, of every cpu. */
static void apply_domain_level(struct sp *s, const char *key, const char *level, const char *knob,
			       const char *val)
{
	json_t *levels = json_array();
	char *names = NULL;
	size_t ncpu = 0;
	int *cpus = NULL;
	bool hit = false;

	if (!levels) {
		s->oom = true;
		return;
	}
	cpus = domain_cpus(s->root, &ncpu);
	if (!cpus) {
		s->oom = true;
		goto out;
	}
	for (size_t i = 0; i < ncpu; i++) {
		for (int m = 0; m < VTB_GV_MAX_LEVELS; m++) {
			char *d = vtb_asprintf(VTB_GV_SCHED_DIR "/domains/cpu%d/domain%d", cpus[i],
					       m);
			int r;

			if (!d) {
				s->oom = true;
				goto out;
			}
			if (!exists(s->root, d, true)) {
				free(d);
				break;
			}
			r = apply_in_domain(s, key, d, level, knob, val, levels);
			free(d);
			if (r < 0)
				goto out;
			hit = hit || r;
		}
	}
	if (!hit) {
		names = join(levels);
		if (!names) {
			s->oom = true;
			goto out;
		}
		fail(s, "%s: no %s level in guest kernel %s (levels: %s)", key, level, s->release,
		     *names ? names : "none");
	}
out:
	json_decref(levels);
	free(cpus);
	free(names);
}

static void apply_domain(struct sp *s, const char *path, const char *val)
{
	char *key = vtb_asprintf("debugfs.%s", path), *copy = strdup(path);
	char *comp[5] = { 0 };
	const char *knob;
	size_t nc;

	if (!key || !copy) {
		s->oom = true;
		goto out;
	}
	nc = domain_split(copy, comp);
	if (nc != 3 && nc != 4) {
		fail(s, "%s: expected domains/LEVEL/KNOB or domains/cpuN/domainM/KNOB", key);
		goto out;
	}
	knob = comp[nc - 1];
	if (!domain_knob_known(knob)) {
		fail(s,
		     "%s: '%s' is not a writable per-domain knob (min_interval, max_interval, busy_factor, imbalance_pct, cache_nice_tries)",
		     key, knob);
		goto out;
	}
	if (vtb_gv_ensure_verbose(s->root, NULL, NULL))
		fail(s, "%s: %s (guest kernel %s)", key, vtb_errmsg(), s->release);
	if (!exists(s->root, VTB_GV_SCHED_DIR "/domains", true)) {
		fail(s, "%s: %s/domains is not available in guest kernel %s", key, VTB_GV_SCHED_DIR,
		     s->release);
		goto out;
	}
	if (nc == 4)
		apply_domain_file(s, key, comp, val);
	else
		apply_domain_level(s, key, comp[1], knob, val);
out:
	free(copy);
	free(key);
}

/* Checks the shape of @sched; false (with failures recorded) when bad. */
static bool valid(struct sp *s, json_t *sched)
{
	static const char *const objs[] = { "sysctl", "debugfs" };
	const char *k;
	json_t *v, *o;
	size_t i;
	bool ok = true;

	if (!json_is_object(sched)) {
		fail(s, "the job's 'sched' is not an object");
		return false;
	}
	json_object_foreach(sched, k, v) if (strcmp(k, "name") && strcmp(k, "cmdline") &&
					     strcmp(k, "sysctl") && strcmp(k, "debugfs") &&
					     strcmp(k, "cpuset_partition"))
	{
		fail(s, "unknown member '%s' in the job's 'sched'", k);
		ok = false;
	}
	v = json_object_get(sched, "cmdline");
	if (v && !json_is_string(v)) {
		fail(s, "'cmdline' is not a string");
		ok = false;
	}
	v = json_object_get(sched, "cpuset_partition");
	if (v && !json_is_string(v)) {
		fail(s, "'cpuset_partition' is not a string");
		ok = false;
	}
	for (i = 0; i < VTB_ARRAY_SIZE(objs); i++) {
		o = json_object_get(sched, objs[i]);
		if (!o)
			continue;
		if (!json_is_object(o)) {
			fail(s, "'%s' is not an object", objs[i]);
			ok = false;
			continue;
		}
		json_object_foreach(o, k, v) if (!json_is_string(v))
		{
			fail(s, "%s.%s: value is not a string", objs[i], k);
			ok = false;
		}
	}
	return ok;
}

int vtb_sched_apply(const char *root, json_t *sched, const char *release,
		    struct vtb_sched_result *out)
{
	struct sp s = { .root = root ? root : "", .release = release ? release : "?", .res = out };
	json_t *cmdline = json_array(), *o, *v;
	const char *k, *cpus;

	memset(out, 0, sizeof(*out));
	out->ok = true;
	s.name = json_string_value(json_object_get(sched, "name"));
	if (!s.name)
		s.name = "?";
	s.settings = json_array();
	if (!s.settings || !cmdline) {
		s.oom = true;
		goto out;
	}
	if (!valid(&s, sched))
		goto out;
	if (json_object_get(sched, "cmdline"))
		check_cmdline(&s, json_string_value(json_object_get(sched, "cmdline")), cmdline);
	cpus = json_string_value(json_object_get(sched, "cpuset_partition"));
	if (cpus)
		apply_partition(&s, cpus);
	o = json_object_get(sched, "sysctl");
	json_object_foreach(o, k, v) apply_sysctl(&s, k, json_string_value(v));
	/* top-level knobs first, per-domain ones last */
	o = json_object_get(sched, "debugfs");
	json_object_foreach(o, k, v) if (!strchr(k, '/')) apply_knob(&s, k, json_string_value(v));
	json_object_foreach(o, k, v) if (strchr(k, '/'))
	{
		if (strncmp(k, "domains/", 8))
			fail(&s, "debugfs.%s: expected a top-level knob or domains/...", k);
		else
			apply_domain(&s, k, json_string_value(v));
	}
out:
	if (!s.oom) {
		out->record = json_pack("{s:s, s:s, s:b, s:O, s:O}", "type", "sched", "name",
					s.name, "ok", out->ok, "settings", s.settings, "cmdline",
					cmdline);
		if (!out->record)
			s.oom = true;
	}
	json_decref(s.settings);
	json_decref(cmdline);
	if (s.oom) {
		vtb_sched_result_release(out);
		return vtb_error("out of memory applying the sched profile");
	}
	return 0;
}

void vtb_sched_result_release(struct vtb_sched_result *r)
{
	size_t i;

	if (!r)
		return;
	json_decref(r->record);
	for (i = 0; i < r->n_errors; i++)
		free(r->errors[i]);
	free(r->errors);
	memset(r, 0, sizeof(*r));
}
