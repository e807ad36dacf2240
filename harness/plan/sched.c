/* SPDX-License-Identifier: MIT */
/*
 * The job's "sched" object from a configuration's "sched.*" params.  The
 * values go to the agent as written in the matrix (after conf.c's
 * checks): the agent writes them and compares what it reads back, so a
 * normalisation here would only hide what the user asked for.  The one
 * exception is the partition's cpulist, which the kernel prints in its
 * own canonical form.
 *
 * vtb_sched_verify() does not take the agent's word ("ok": true) for it:
 * it holds the record against the job, key by key, so an agent that
 * predates a kind of setting, skips one or reports what it did not read
 * fails the boot instead of measuring a profile that never applied.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

#define PFX "sched."

bool vtb_sched_has_settings(const struct vtb_config *c)
{
	size_t i;

	if (c->kind != VTB_CONFIG_VM)
		return false;
	for (i = 0; i < c->params.n; i++)
		if (!strncmp(c->params.kv[i].key, PFX, strlen(PFX)))
			return true;
	return false;
}

const char *vtb_sched_cmdline(const struct vtb_config *c)
{
	return c->kind == VTB_CONFIG_VM ? vtb_params_get(&c->params, PFX "cmdline") : NULL;
}

/* Adds @k = @v to the object member @name of @o (made on first use). */
static int add_to(json_t *o, const char *name, const char *k, const char *v)
{
	json_t *sub = json_object_get(o, name);

	if (!sub) {
		sub = json_object();
		if (!sub || json_object_set_new(o, name, sub) < 0)
			return vtb_error("out of memory");
	}
	if (json_object_set_new(sub, k, json_string(v)) < 0)
		return vtb_error("sched setting '%s' is not valid UTF-8", k);
	return 0;
}

json_t *vtb_sched_job(const struct vtb_config *c)
{
	const char *name = vtb_params_get(&c->params, "sched");
	json_t *o;
	size_t i;

	if (!vtb_sched_has_settings(c))
		return NULL;
	o = json_pack("{s:s}", "name", name ? name : "");
	if (!o) {
		vtb_error("out of memory");
		return NULL;
	}
	for (i = 0; i < c->params.n; i++) {
		const char *k = c->params.kv[i].key, *v = c->params.kv[i].value;
		int r = 0;

		if (strncmp(k, PFX, strlen(PFX)))
			continue;
		k += strlen(PFX);
		if (!strncmp(k, "sysctl.", 7)) {
			r = add_to(o, "sysctl", k + 7, v);
		} else if (!strncmp(k, "debugfs.", 8)) {
			r = add_to(o, "debugfs", k + 8, v);
		} else if (!strcmp(k, "cmdline")) {
			if (json_object_set_new(o, "cmdline", json_string(v)) < 0)
				r = vtb_error("sched cmdline is not valid UTF-8");
		} else if (!strcmp(k, "cpuset.partition")) {
			struct vtb_cpuset set = { NULL, 0 };
			char *list = NULL;

			if (vtb_cpuset_parse(v, &set) == 0)
				list = vtb_cpuset_format(&set);
			vtb_cpuset_release(&set);
			if (!list ||
			    json_object_set_new(o, "cpuset_partition", json_string(list)) < 0)
				r = vtb_error("bad cpuset.partition '%s'", v);
			free(list);
		} else {
			r = vtb_error("unknown sched setting '%s'", k);
		}
		if (r < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* ---------------------------------------------------------------- verify */

/* Longest guest string quoted in a reason. */
#define SHOWN_MAX 64
#define KEEP_MAX 8

struct verify {
	const char *name; /* the profile's (from the matrix) */
	char *why;	  /* the first failure */
	char *keep[KEEP_MAX];
	size_t n_keep;
	bool oom;
};

/* @s (from the guest) fit for a one-line reason: bytes outside printable
 * ASCII as '?', cut at SHOWN_MAX with "...".  Owned by @v; "" after an
 * ENOMEM (which @v records). */
static const char *shown(struct verify *v, const char *s)
{
	size_t n, i;
	char *o;

	if (!s)
		s = "(none)";
	n = strnlen(s, SHOWN_MAX + 1);
	o = v->n_keep < KEEP_MAX ? malloc(n + 4) : NULL;
	if (!o) {
		v->oom = true;
		return "";
	}
	for (i = 0; i < n && i < SHOWN_MAX; i++)
		o[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
	strcpy(o + i, n > SHOWN_MAX ? "..." : "");
	v->keep[v->n_keep++] = o;
	return o;
}

static void refuse(struct verify *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the first failure, "sched profile 'NAME': " + @fmt. */
static void refuse(struct verify *v, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int n;

	if (v->why || v->oom)
		return;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	v->why = n < 0 ? NULL : vtb_asprintf("sched profile '%s': %s", v->name, msg);
	if (!v->why)
		v->oom = true;
	free(msg);
}

static bool done(const struct verify *v)
{
	return v->why || v->oom;
}

/* Equal after trimming and collapsing runs of whitespace (the agent's
 * sysctl read-back rule). */
static bool same_spaces(const char *a, const char *b)
{
	for (;;) {
		a += strspn(a, " \t\n");
		b += strspn(b, " \t\n");
		if (!*a || !*b)
			return !*a && !*b;
		while (*a && *b && !isspace((unsigned char)*a) && *a == *b) {
			a++;
			b++;
		}
		if ((*a && !isspace((unsigned char)*a)) || (*b && !isspace((unsigned char)*b)))
			return false;
	}
}

static const char *member_str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* Whether @path ends in "/" @file. */
static bool ends_with(const char *path, const char *file)
{
	size_t n = path ? strlen(path) : 0, m = strlen(file);

	return n > m && path[n - m - 1] == '/' && !strcmp(path + n - m, file);
}

/* Every setting of @key in @settings: want @want, ok, read == want; at
 * least one.  @spaces: sysctl's whitespace rule for read. */
static void check_key(struct verify *v, const json_t *settings, const char *key, const char *want,
		      bool spaces)
{
	size_t i, n = 0;

	for (i = 0; i < json_array_size(settings) && !done(v); i++) {
		const json_t *e = json_array_get(settings, i);
		const char *k = member_str(e, "key"), *w = member_str(e, "want");
		const char *r = member_str(e, "read");
		bool ok = json_is_true(json_object_get(e, "ok"));

		if (!k || strcmp(k, key))
			continue;
		n++;
		if (!w || strcmp(w, want))
			refuse(v, "the guest wrote '%s' for %s, the profile says '%s'", shown(v, w),
			       key, want);
		else if (!r || !(spaces ? same_spaces(r, want) : !strcmp(r, want)))
			refuse(v, "the guest did not confirm %s (read '%s', want '%s')", key,
			       shown(v, r), want);
		else if (!ok)
			refuse(v, "the guest did not confirm %s (it reports the setting failed)",
			       key);
	}
	if (!n)
		refuse(v, "the guest did not confirm %s (its sched record has no such setting)",
		       key);
}

/* cpuset.partition: the cpuset.cpus entry (@cpus, read back the same),
 * the cpuset.cpus.partition entry (read "root"), every entry ok (the
 * cgroup.subtree_control one too, whose read is the controller list). */
static void check_partition(struct verify *v, const json_t *settings, const char *cpus)
{
	const char *key = "cpuset.partition";
	bool have_cpus = false, have_part = false;
	size_t i;

	for (i = 0; i < json_array_size(settings) && !done(v); i++) {
		const json_t *e = json_array_get(settings, i);
		const char *k = member_str(e, "key"), *w = member_str(e, "want");
		const char *r = member_str(e, "read"), *p = member_str(e, "path");
		const char *exp = NULL;

		if (!k || strcmp(k, key))
			continue;
		if (ends_with(p, "cpuset.cpus")) {
			exp = cpus;
			have_cpus = true;
		} else if (ends_with(p, "cpuset.cpus.partition")) {
			exp = "root";
			have_part = true;
		}
		if (exp && (!w || strcmp(w, exp)))
			refuse(v, "the guest wrote '%s' to '%s' for %s, the profile says '%s'",
			       shown(v, w), shown(v, p), key, exp);
		else if (exp && (!r || strcmp(r, exp)))
			refuse(v, "the guest did not confirm %s ('%s' read '%s', want '%s')", key,
			       shown(v, p), shown(v, r), exp);
		else if (!json_is_true(json_object_get(e, "ok")))
			refuse(v,
			       "the guest did not confirm %s ('%s': it reports the setting failed)",
			       key, shown(v, p));
	}
	if (!have_cpus || !have_part)
		refuse(v, "the guest did not confirm %s (its sched record has no %s setting)", key,
		       have_cpus ? "cpuset.cpus.partition" : "cpuset.cpus");
}

static void check_cmdline(struct verify *v, const json_t *tokens, const char *cmdline)
{
	const char *t = cmdline;

	while (!done(v)) {
		size_t n, i;
		bool present = false;

		t += strspn(t, " \t\n");
		n = strcspn(t, " \t\n");
		if (!n)
			break;
		for (i = 0; i < json_array_size(tokens) && !present; i++) {
			const json_t *e = json_array_get(tokens, i);
			const char *tok = member_str(e, "token");

			present = tok && strlen(tok) == n && !strncmp(tok, t, n) &&
				  json_is_true(json_object_get(e, "present"));
		}
		if (!present)
			refuse(v, "the guest did not confirm cmdline token '%.*s' in /proc/cmdline",
			       (int)n, t);
		t += n;
	}
}

static bool in_list(const json_t *list, const char *s)
{
	size_t i;

	for (i = 0; i < json_array_size(list); i++) {
		const char *e = json_string_value(json_array_get(list, i));

		if (e && !strcmp(e, s))
			return true;
	}
	return false;
}

/* Top-level knobs in probe.knobs, per-domain KNOBs in probe.domain_knobs. */
static void check_probe(struct verify *v, const json_t *probe, const json_t *debugfs)
{
	const char *k;
	json_t *val;

	if (!json_object_size(debugfs))
		return;
	if (!json_is_object(probe)) {
		refuse(v, "the guest sent no probe record to show its sched knobs");
		return;
	}
	json_object_foreach((json_t *)debugfs, k, val)
	{
		const char *slash = strrchr(k, '/');
		const char *list = slash ? "domain_knobs" : "knobs";

		if (done(v))
			break;
		if (!in_list(json_object_get(probe, list), slash ? slash + 1 : k))
			refuse(v, "the guest's probe does not list %s for debugfs.%s (probe.%s)",
			       slash ? slash + 1 : k, k, list);
	}
}

int vtb_sched_verify(const struct vtb_config *c, const json_t *probe, const json_t *sched,
		     char **why)
{
	struct verify v = { 0 };
	json_t *job, *o, *val;
	const json_t *settings = json_object_get(sched, "settings");
	const char *k, *name, *s;
	size_t i;
	int ret = -1;

	*why = NULL;
	if (!vtb_sched_has_settings(c))
		return 0;
	job = vtb_sched_job(c);
	if (!job)
		return -1;
	v.name = member_str(job, "name");
	name = member_str(sched, "name");
	if (!json_is_object(sched))
		refuse(&v,
		       "the guest sent no sched record (an agent that does not apply profiles?)");
	else if (!name || strcmp(name, v.name))
		refuse(&v, "the guest applied profile '%s' instead", shown(&v, name));
	if (!done(&v) && json_object_get(sched, "settings") && !json_is_array(settings))
		refuse(&v, "the guest's sched settings are not a list");
	s = member_str(job, "cpuset_partition");
	if (s && !done(&v))
		check_partition(&v, settings, s);
	o = json_object_get(job, "sysctl");
	json_object_foreach(o, k, val)
	{
		char *key;

		if (done(&v))
			break;
		key = vtb_asprintf("sysctl.%s", k);
		if (!key) {
			v.oom = true;
			break;
		}
		check_key(&v, settings, key, json_string_value(val), true);
		free(key);
	}
	o = json_object_get(job, "debugfs");
	json_object_foreach(o, k, val)
	{
		char *key;

		if (done(&v))
			break;
		key = vtb_asprintf("debugfs.%s", k);
		if (!key) {
			v.oom = true;
			break;
		}
		check_key(&v, settings, key, json_string_value(val), false);
		free(key);
	}
	s = member_str(job, "cmdline");
	if (s && !done(&v))
		check_cmdline(&v, json_object_get(sched, "cmdline"), s);
	if (!done(&v))
		check_probe(&v, probe, o);
	if (!done(&v) && !json_is_true(json_object_get(sched, "ok")))
		refuse(&v, "the guest reports that the profile did not apply");
	if (v.oom) {
		free(v.why);
		vtb_error("out of memory");
	} else {
		*why = v.why;
		ret = v.why ? 1 : 0;
	}
	for (i = 0; i < v.n_keep; i++)
		free(v.keep[i]);
	json_decref(job);
	return ret;
}

bool vtb_sched_sets_knobs(const struct vtb_config *c)
{
	size_t i;

	if (c->kind != VTB_CONFIG_VM)
		return false;
	for (i = 0; i < c->params.n; i++)
		if (!strncmp(c->params.kv[i].key, PFX "sysctl.", strlen(PFX "sysctl.")) ||
		    !strncmp(c->params.kv[i].key, PFX "debugfs.", strlen(PFX "debugfs.")))
			return true;
	return false;
}

enum knob_state { KNOB_HAS, KNOB_LACKS, KNOB_UNKNOWN };

/*
 * sysctl NAME by the probe's "sysctls": {"DIR": [FILE...] | null}, the
 * files directly under /proc/sys/DIR.  A name in a directory the probe
 * did not list (an older agent, a nested name like kernel.random.x, a
 * listing cut at its bound) is unknown, never missing.
 */
static enum knob_state sysctl_state(const json_t *probe, const char *name)
{
	const char *dot = strchr(name, '.');
	const json_t *dirs = json_object_get(probe, "sysctls"), *files;
	char *dir;

	if (!dot || strchr(dot + 1, '.') || !json_is_object(dirs))
		return KNOB_UNKNOWN;
	dir = strndup(name, (size_t)(dot - name));
	files = dir ? json_object_get(dirs, dir) : NULL;
	free(dir);
	/* an empty list is no listing: every kernel has files there (the
	 * agent sends null then; a guest that sends [] proves nothing) */
	if (!json_is_array(files) || !json_array_size(files))
		return KNOB_UNKNOWN;
	return in_list(files, dot + 1) ? KNOB_HAS : KNOB_LACKS;
}

/* debugfs KEY: top-level knobs in probe.knobs, per-domain KNOBs in
 * probe.domain_knobs (every probe lists both).  A guest that built no
 * sched domain (one vCPU, isolcpus on every CPU but one) lists no
 * per-domain knob: that proves nothing of its kernel. */
static enum knob_state debugfs_state(const json_t *probe, const char *key)
{
	const char *slash = strrchr(key, '/');

	if (slash && !json_array_size(json_object_get(probe, "domain_knobs")))
		return KNOB_UNKNOWN;
	return in_list(json_object_get(probe, slash ? "domain_knobs" : "knobs"),
		       slash ? slash + 1 : key)
		       ? KNOB_HAS
		       : KNOB_LACKS;
}

int vtb_sched_knobs_lacking(const struct vtb_config *c, const json_t *probe, char **why)
{
	json_t *job, *val;
	const char *k;
	int ret = 0;

	*why = NULL;
	if (!vtb_sched_has_settings(c) || !json_is_object(probe))
		return 0;
	job = vtb_sched_job(c);
	if (!job)
		return -1;
	/* in the order the agent applies them: sysctls, then debugfs */
	json_object_foreach(json_object_get(job, "sysctl"), k, val)
	{
		(void)val;
		if (sysctl_state(probe, k) != KNOB_LACKS)
			continue;
		*why = vtb_asprintf("lacks sysctl %s (sysctl.%s)", k, k);
		ret = *why ? 1 : vtb_error("out of memory");
		goto out;
	}
	json_object_foreach(json_object_get(job, "debugfs"), k, val)
	{
		const char *slash = strrchr(k, '/');

		(void)val;
		if (debugfs_state(probe, k) != KNOB_LACKS)
			continue;
		*why = vtb_asprintf("lacks debugfs knob %s (debugfs.%s)", slash ? slash + 1 : k, k);
		ret = *why ? 1 : vtb_error("out of memory");
		goto out;
	}
out:
	json_decref(job);
	return ret;
}

json_t *vtb_sched_knobs_unchecked(const struct vtb_config *c, const json_t *probe)
{
	json_t *job = NULL, *keys = json_array(), *val;
	const char *k;

	if (!keys)
		goto oom;
	if (!vtb_sched_has_settings(c))
		return keys;
	job = vtb_sched_job(c);
	if (!job) {
		json_decref(keys);
		return NULL;
	}
	json_object_foreach(json_object_get(job, "sysctl"), k, val)
	{
		(void)val;
		if (json_is_object(probe) && sysctl_state(probe, k) != KNOB_UNKNOWN)
			continue;
		if (json_array_append_new(keys, json_sprintf("sysctl.%s", k)) < 0)
			goto oom;
	}
	json_object_foreach(json_object_get(job, "debugfs"), k, val)
	{
		(void)val;
		if (json_is_object(probe))
			continue;
		if (json_array_append_new(keys, json_sprintf("debugfs.%s", k)) < 0)
			goto oom;
	}
	json_decref(job);
	return keys;
oom:
	json_decref(job);
	json_decref(keys);
	vtb_error("out of memory");
	return NULL;
}
