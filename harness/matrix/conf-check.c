/* SPDX-License-Identifier: MIT */
/*
 * matrix.conf's values and checks: each value normalised against its
 * option (variables substituted), every key of every section checked
 * ([sched] keys, [global] settings, named sections, workloads).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../workloads/workload.h"
#include "confint.h"

/* ---------------------------------------------------------------- values */

/* A value of @o as normalised text: decimal ints, bytes, "<n>ns", yes/no. */
static int norm_value(const struct vtb_opt *o, const char *text, char **out)
{
	struct vtb_cpuset set = { NULL, 0 };
	union vtb_optval v;

	*out = NULL;
	if (vtb_opt_parse(o, text, &v) < 0)
		return -1;
	if (vtb_opt_is_auto(o, &v)) {
		*out = strdup("auto");
	} else {
		switch (o->type) {
		case VTB_OPT_INT:
			*out = vtb_asprintf("%lld", v.i);
			break;
		case VTB_OPT_BOOL:
			*out = strdup(v.b ? "yes" : "no");
			break;
		case VTB_OPT_TIME:
			/* with its unit: a bare number would read as seconds */
			*out = vtb_asprintf("%lluns", (unsigned long long)v.u);
			break;
		case VTB_OPT_SIZE:
			*out = vtb_asprintf("%llu", (unsigned long long)v.u);
			break;
		case VTB_OPT_CPULIST:
			if (vtb_cpuset_parse(text, &set) < 0)
				return -1;
			*out = vtb_cpuset_format(&set);
			vtb_cpuset_release(&set);
			break;
		case VTB_OPT_STR:
		case VTB_OPT_ENUM:
			*out = strdup(text);
			break;
		}
	}
	return *out ? 0 : vtb_error("out of memory");
}

static int subst(const struct parser *p, int line, const struct varctx *vc, const char *key,
		 const char *elem, char **out)
{
	const struct vtb_host_ctx *h = p->host;
	size_t n = strlen(elem);
	long long v = 0, pct;
	char *hint = NULL;
	int ret = -1;

	*out = NULL;
	if (elem[0] == '$') {
		const char *var = elem + 1;
		const char *cands[] = { "$host_cpus", "$host_nodes", "$host_llcs",
					vc->vcpus >= 0 ? "$vcpus" : NULL, NULL };

		if (!strcmp(var, "host_cpus")) {
			v = h->host_cpus;
		} else if (!strcmp(var, "host_nodes")) {
			v = h->host_nodes;
		} else if (!strcmp(var, "host_llcs")) {
			v = h->host_llcs;
		} else if (!strcmp(var, "vcpus") && vc->vcpus >= 0) {
			v = vc->vcpus;
		} else if (!strcmp(var, "vcpus")) {
			ret = mx_perr(p, line, "'$vcpus' cannot be used in '%s' of %s", key,
				      vc->where);
			goto out;
		} else {
			hint = mx_did_you_mean(" (did you mean '%s'?)", vtb_suggest(cands, elem));
			ret = mx_perr(p, line, "unknown variable '%s' in '%s'%s", elem, key,
				      hint ? hint : "");
			goto out;
		}
	} else if (n > 1 && elem[n - 1] == '%') {
		char *num = strndup(elem, n - 1);

		if (!num)
			return vtb_error("out of memory");
		if (vtb_parse_int(num, 0, 1000000, &pct) < 0 || num[0] < '0' || num[0] > '9') {
			free(num);
			ret = mx_perr(p, line, "bad percentage '%s' for '%s'", elem, key);
			goto out;
		}
		free(num);
		v = vc->pct_base * pct / 100;
		if (v < 1)
			v = 1;
	} else {
		*out = strdup(elem);
		ret = *out ? 0 : vtb_error("out of memory");
		goto out;
	}
	*out = vtb_asprintf("%lld", v);
	ret = *out ? 0 : vtb_error("out of memory");
out:
	free(hint);
	return ret;
}

/*
 * The values of @o given as @text at @line: one element, or a comma list
 * for axes; variables substituted when @vc is given; normalised and
 * de-duplicated in order.
 */
int mx_values_of(const struct parser *p, int line, const struct vtb_opt *o, const char *key,
		 const char *text, bool axis, const struct varctx *vc, struct strv *out)
{
	const char *s = text;
	char *elem = NULL, *sub = NULL, *norm = NULL;
	int ret = -1;

	for (;;) {
		const char *c = axis ? strchr(s, ',') : NULL;
		const char *e = c ? c : s + strlen(s);
		const char *a = s, *b = e;

		while (a < b && mx_is_ws(*a))
			a++;
		while (b > a && mx_is_ws(b[-1]))
			b--;
		if (a == b) {
			if (axis && strchr(text, ','))
				ret = mx_perr(p, line, "empty element in the list for '%s'", key);
			else
				ret = mx_perr(p, line, "empty value for '%s'", key);
			goto out;
		}
		elem = strndup(a, (size_t)(b - a));
		if (!elem)
			goto oom;
		if (vc && (o->flags & VTB_OPT_VARS)) {
			if (subst(p, line, vc, key, elem, &sub) < 0)
				goto out;
		} else {
			sub = elem;
			elem = NULL;
		}
		if (norm_value(o, sub, &norm) < 0) {
			ret = mx_perr(p, line, "%s", vtb_errmsg());
			goto out;
		}
		if (!mx_strv_has(out, norm) && mx_strv_push(out, norm) < 0)
			goto out;
		free(elem);
		free(sub);
		free(norm);
		elem = sub = norm = NULL;
		if (!c)
			break;
		s = c + 1;
	}
	ret = 0;
	goto out;
oom:
	ret = vtb_error("out of memory");
out:
	free(elem);
	free(sub);
	free(norm);
	return ret;
}

/* The text of @key in @s, or the table default; NULL when neither. */
const char *mx_val_of(const struct sect *s, const struct vtb_opt *table, const char *key, int *line)
{
	const struct ent *e = mx_sect_ent(s, key);
	const struct vtb_opt *o;

	if (e) {
		*line = e->line;
		return e->val.buf;
	}
	*line = s ? s->line : 1;
	o = vtb_opt_find(table, key);
	return o ? o->def : NULL;
}

/* One value of a non-axis option, normalised. */
int mx_single(const struct parser *p, const struct sect *s, const struct vtb_opt *table,
	      const char *key, char **out, int *line)
{
	const struct vtb_opt *o = vtb_opt_find(table, key);
	struct strv sv = { 0 };
	const char *text;
	int ret;

	*out = NULL;
	text = mx_val_of(s, table, key, line);
	if (!text)
		return 0;
	ret = mx_values_of(p, *line, o, key, text, false, NULL, &sv);
	if (ret == 0) {
		*out = sv.v[0];
		sv.v[0] = NULL;
	}
	mx_strv_release(&sv);
	return ret;
}

bool mx_is_yes(const char *s)
{
	return s && !strcmp(s, "yes");
}

/* ---------------------------------------------------------------- sections */

struct sect *mx_find_sect(struct parser *p, int kind, const char *name)
{
	size_t i;

	for (i = 0; i < p->n_sects; i++)
		if (p->sects[i].kind == kind && (!name || !strcmp(p->sects[i].name, name)))
			return &p->sects[i];
	return NULL;
}

/*
 * A key of [sched NAME] (spec: docs/guest-runs.md "Sched profiles").  What the guest
 * kernel really offers is only known in the guest (the agent's probe);
 * here the shape: path components the agent can join safely, levels and
 * per-domain knobs that exist in some kernel, read-only files refused.
 */
static const char *const sched_levels[] = { "SMT", "CLS", "MC", "DIE", "PKG", "NUMA", NULL };
static const char *const domain_knobs[] = { "min_interval",  "max_interval",	 "busy_factor",
					    "imbalance_pct", "cache_nice_tries", NULL };

static bool good_component(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '_')
			return false;
	return true;
}

static bool in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return true;
	return false;
}

/* "cpu12" / "domain3": @pfx then a decimal number without leading zeros */
static bool numbered(const char *s, const char *pfx)
{
	size_t n = strlen(pfx);

	if (strncmp(s, pfx, n) || !s[n] || (s[n] == '0' && s[n + 1]))
		return false;
	return strspn(s + n, "0123456789") == strlen(s + n) && strlen(s + n) <= 5;
}

/*
 * [sched] cmdline: the harness's own parameters (vtbench.*) are not the
 * profile's.  Tokens are read as the kernel reads them (next_arg() in
 * lib/cmdline.c): split at white space outside double quotes, the quotes
 * then dropped, the name ending at the first '=': a quoted
 * "vtbench.nonce=..." is that parameter too.  An unbalanced quote would
 * swallow the rest of the line.
 */
static int check_cmdline(struct parser *p, const struct sect *s, const struct ent *e)
{
	static const char pfx[] = "vtbench.";
	const char *c = e->val.buf;

	while (*c) {
		size_t matched = 0; /* name characters equal to pfx so far */
		bool quoted = false, in_name = true, other = false;

		while (mx_is_ws(*c))
			c++;
		if (!*c)
			break;
		for (; *c && (quoted || !mx_is_ws(*c)); c++) {
			if (*c == '"') {
				quoted = !quoted;
				continue;
			}
			if (*c == '=')
				in_name = false;
			if (!in_name || other)
				continue;
			if (matched < sizeof(pfx) - 1 && *c == pfx[matched])
				matched++;
			else if (matched < sizeof(pfx) - 1)
				other = true;
		}
		if (quoted)
			return mx_perr(p, e->line, "'cmdline' in %s: unbalanced '\"'", s->title);
		if (matched == sizeof(pfx) - 1)
			return mx_perr(p, e->line,
				       "'cmdline' in %s: vtbench.* parameters belong to the harness",
				       s->title);
	}
	return 0;
}

/* cpuset.partition: a list of guest CPUs. */
static int check_partition(struct parser *p, const struct sect *s, const struct ent *e)
{
	struct vtb_cpuset set = { NULL, 0 };
	bool bad = vtb_cpuset_parse(e->val.buf, &set) < 0 || !set.n;

	vtb_cpuset_release(&set);
	if (bad)
		return mx_perr(
			p, e->line,
			"bad CPU list '%s' for 'cpuset.partition' in %s: expected guest CPUs, e.g. 1 or 2-3",
			e->val.buf, s->title);
	return 0;
}

/* Splits @rest (a key's path after its prefix) at @sep into comp[] (at
 * most @max, malloc'ed, *n of them even on errors). */
static int key_components(struct parser *p, const struct sect *s, const struct ent *e,
			  const char *rest, char sep, char **comp, size_t max, size_t *n)
{
	const char *c;

	for (c = rest;; c++) {
		const char *e2 = strchr(c, sep);
		size_t len = e2 ? (size_t)(e2 - c) : strlen(c);

		if (!good_component(c, len))
			return mx_perr(
				p, e->line,
				"bad key '%s' in %s: path component '%.*s' must be letters, digits and '_'",
				e->key, s->title, (int)len, c);
		if (*n == max)
			return mx_perr(p, e->line, "bad key '%s' in %s: too many path components",
				       e->key, s->title);
		comp[*n] = strndup(c, len);
		if (!comp[(*n)++])
			return vtb_error("out of memory");
		if (!e2)
			return 0;
		c = e2;
	}
}

/* debugfs.domains/LEVEL/KNOB or debugfs.domains/cpuN/domainM/KNOB (@n
 * components in @comp): a known level, a writable knob, an integer. */
static int check_domain_key(struct parser *p, const struct sect *s, const struct ent *e,
			    char *const *comp, size_t n)
{
	const char *key = e->key, *val = e->val.buf, *knob = comp[n - 1];
	char *hint = NULL;
	int ret;

	if (strcmp(comp[0], "domains") || (n != 3 && n != 4))
		return mx_perr(
			p, e->line,
			"bad key '%s' in %s: expected debugfs.KNOB, debugfs.domains/LEVEL/KNOB or debugfs.domains/cpuN/domainM/KNOB",
			key, s->title);
	if (n == 3 && !in_list(sched_levels, comp[1])) {
		hint = mx_did_you_mean(" (did you mean '%s'?)", vtb_suggest(sched_levels, comp[1]));
		ret = mx_perr(
			p, e->line,
			"unknown sched-domain level '%s' in '%s'%s: one of SMT, CLS, MC, DIE, PKG, NUMA",
			comp[1], key, hint ? hint : "");
		free(hint);
		return ret;
	}
	if (n == 4 && (!numbered(comp[1], "cpu") || !numbered(comp[2], "domain")))
		return mx_perr(p, e->line, "bad key '%s' in %s: expected domains/cpuN/domainM/KNOB",
			       key, s->title);
	if (!strcmp(knob, "flags") || !strcmp(knob, "name"))
		return mx_perr(p, e->line, "'%s' in %s: '%s' is read-only", key, s->title, knob);
	if (!in_list(domain_knobs, knob)) {
		hint = mx_did_you_mean(" (did you mean '%s'?)", vtb_suggest(domain_knobs, knob));
		ret = mx_perr(
			p, e->line,
			"unknown per-domain knob '%s' in '%s'%s: one of min_interval, max_interval, busy_factor, imbalance_pct, cache_nice_tries",
			knob, key, hint ? hint : "");
		free(hint);
		return ret;
	}
	if (strspn(val, "0123456789") != strlen(val) || strlen(val) > 10)
		return mx_perr(p, e->line, "'%s' in %s must be a non-negative integer, got '%s'",
			       key, s->title, val);
	return 0;
}

static int check_sched_key(struct parser *p, const struct sect *s, const struct ent *e)
{
	char *comp[5] = { NULL };
	const char *rest;
	size_t n = 0, i;
	char sep;
	int ret;

	if (!strcmp(e->key, "cpuset.partition"))
		return check_partition(p, s, e);
	if (!strncmp(e->key, "sysctl.", 7)) {
		rest = e->key + 7;
		sep = '.';
	} else if (!strncmp(e->key, "debugfs.", 8)) {
		rest = e->key + 8;
		sep = '/';
	} else {
		return check_cmdline(p, s, e);
	}
	ret = key_components(p, s, e, rest, sep, comp, VTB_ARRAY_SIZE(comp), &n);
	/* sysctl.A.B and debugfs.KNOB: any well-formed path */
	if (!ret && sep == '/' && !(n == 1 && strcmp(comp[0], "domains")))
		ret = check_domain_key(p, s, e, comp, n);
	for (i = 0; i < n; i++)
		free(comp[i]);
	return ret;
}

int mx_check_keys(struct parser *p)
{
	size_t i, j;
	char *hint;
	int ret;

	for (i = 0; i < p->n_sects; i++) {
		const struct sect *s = &p->sects[i];
		const struct vtb_opt *table = mx_sectdefs[s->kind].opts;

		for (j = 0; j < s->n; j++) {
			const struct ent *e = &s->ents[j];
			const struct vtb_opt *o;

			if (!e->val.len)
				return mx_perr(p, e->line, "empty value for '%s'", e->key);
			if (s->kind == S_WORKLOAD)
				continue; /* checked against the workload's table */
			o = vtb_opt_find(table, e->key);
			if (!o) {
				hint = mx_did_you_mean(" (did you mean '%s'?)",
						       vtb_opt_suggest(table, e->key));
				ret = mx_perr(p, e->line, "unknown key '%s' in %s%s", e->key,
					      s->title, hint ? hint : "");
				free(hint);
				return ret;
			}
			if (s->kind == S_SCHED) {
				if (check_sched_key(p, s, e) < 0)
					return -1;
			} else if (o->flags & VTB_OPT_PREFIX) {
				const char *rest = e->key + strlen(o->name);

				if (strstr(rest, "..") || rest[0] == '/' ||
				    strspn(rest, "abcdefghijklmnopqrstuvwxyz"
						 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/") !=
					    strlen(rest))
					return mx_perr(p, e->line, "bad key '%s' in %s", e->key,
						       s->title);
			}
		}
	}
	return 0;
}

static int split_globs(struct parser *p, const struct sect *g, const char *key, struct strv *out)
{
	const struct ent *e = mx_sect_ent(g, key);
	const char *s;

	if (!e)
		return 0;
	p->only_line = e->line;
	for (s = e->val.buf;;) {
		const char *c = strchr(s, ',');
		const char *end = c ? c : s + strlen(s);
		const char *a = s, *b = end;
		char *glob;
		int r;

		while (a < b && mx_is_ws(*a))
			a++;
		while (b > a && mx_is_ws(b[-1]))
			b--;
		if (a == b)
			return mx_perr(p, e->line, "empty element in the list for '%s'", key);
		glob = strndup(a, (size_t)(b - a));
		if (!glob)
			return vtb_error("out of memory");
		r = mx_strv_push(out, glob);
		free(glob);
		if (r < 0)
			return -1;
		if (!c)
			break;
		s = c + 1;
	}
	return 0;
}

/* housekeeping = auto | none | a CPU list, checked where it is written
 * (a [global] one too when there is no [vm] to use it). */
int mx_check_housekeeping(const struct parser *p, const char *v, int line)
{
	static const char *const words[] = { "auto", "none", NULL };
	struct vtb_cpuset set = { NULL, 0 };
	char *hint;
	int ret;

	if (!v || !strcmp(v, "auto") || !strcmp(v, "none"))
		return 0;
	if (vtb_cpuset_parse(v, &set) == 0) {
		size_t i, j, left = 0;

		/* what the host decides is said here, at the key's own line
		 * ([global] or [vm]), not at a configuration's */
		for (i = 0; p->host->model && i < set.n; i++) {
			for (j = 0; j < p->host->n_compact && p->host->compact[j] != set.cpus[i];
			     j++)
				;
			/* a CPU on no node is ours for housekeeping, never a guest's */
			if (j == p->host->n_compact &&
			    !vtb_cpuset_has(&p->host->nodeless, set.cpus[i])) {
				ret = mx_perr(
					p, line,
					"housekeeping = %s: CPU %d is not an online CPU this host allows",
					v, set.cpus[i]);
				vtb_cpuset_release(&set);
				return ret;
			}
		}
		for (j = 0; j < p->host->n_compact; j++)
			left += !vtb_cpuset_has(&set, p->host->compact[j]);
		vtb_cpuset_release(&set);
		if (p->host->model && p->host->n_compact && !left)
			return mx_perr(p, line, "housekeeping = %s leaves no CPU for guests", v);
		return 0;
	}
	hint = mx_did_you_mean(" (did you mean '%s'?)", vtb_suggest(words, v));
	ret = mx_perr(p, line, "housekeeping = %s: not auto, none or a CPU list%s", v,
		      hint ? hint : "");
	free(hint);
	return ret;
}

/* [global] kernel =: a path of the matrix like every other, from its
 * directory when relative; then checked as an image */
static int global_kernel(struct parser *p, struct vtb_matrix *m, int line)
{
	char *k = mx_from_matrix_dir(p, m->kernel);

	if (!k)
		return vtb_error("out of memory");
	free(m->kernel);
	m->kernel = k;
	return mx_check_global_kernel(p, m->kernel, line);
}

/*
 * reps = N, or auto with min_reps, max_reps and budget (which only make
 * sense with auto: given with reps = N they are an error).  With auto,
 * m->reps is the cap, so the boot order and plan count the most boots.
 */
static int parse_reps(struct parser *p, const struct sect *g, const char *v, int reps_line)
{
	static const char *const auto_keys[] = { "min_reps", "max_reps", "budget", "auto_compare" };
	struct vtb_matrix *m = p->m;
	char *t = NULL;
	int line, min_line, max_line;
	bool oom = false;

	m->reps_auto = !strcmp(v, "auto");
	if (!m->reps_auto) {
		m->reps = strtoll(v, NULL, 10);
		for (size_t i = 0; i < VTB_ARRAY_SIZE(auto_keys); i++)
			if (mx_sect_ent(g, auto_keys[i]))
				return mx_perr(p, mx_sect_ent(g, auto_keys[i])->line,
					       "%s is for reps = auto (reps is %lld, line %d)",
					       auto_keys[i], m->reps, reps_line);
	}
	/* with reps = N, the defaults: what --reps auto would use */
	if (mx_single(p, g, mx_global_opts, "min_reps", &t, &min_line) < 0)
		return -1;
	m->min_reps = strtoll(t, NULL, 10);
	free(t);
	if (mx_single(p, g, mx_global_opts, "max_reps", &t, &max_line) < 0)
		return -1;
	m->max_reps = strtoll(t, NULL, 10);
	free(t);
	if (mx_single(p, g, mx_global_opts, "budget", &t, &line) < 0)
		return -1;
	m->budget_ns = strtoull(t, NULL, 10);
	free(t);
	if (mx_single(p, g, mx_global_opts, "auto_compare", &t, &line) < 0)
		return -1;
	if (!strncmp(t, "axis:", 5) && t[5]) {
		m->auto_axis = strdup(t + 5);
		oom = !m->auto_axis;
	} else if (!strncmp(t, "baseline:", 9) && t[9]) {
		m->auto_baseline = strdup(t + 9);
		oom = !m->auto_baseline;
	} else if (strcmp(t, "own")) {
		mx_perr(p, line, "auto_compare = %s: expected own, axis:NAME or baseline:SPEC", t);
		free(t);
		return -1;
	}
	free(t);
	if (oom)
		return vtb_error("out of memory");
	if (m->min_reps > m->max_reps)
		return mx_perr(p, mx_sect_ent(g, "min_reps") ? min_line : max_line,
			       "min_reps %lld is above max_reps %lld", m->min_reps, m->max_reps);
	if (m->reps_auto)
		m->reps = m->max_reps;
	return 0;
}

int mx_parse_global(struct parser *p)
{
	struct sect *g = mx_find_sect(p, S_GLOBAL, NULL);
	struct vtb_matrix *m = p->m;
	char *v = NULL;
	int line, ret = -1;

	if (mx_single(p, g, mx_global_opts, "reps", &v, &line) < 0 || parse_reps(p, g, v, line) < 0)
		goto out;
	free(v);
	if (mx_single(p, g, mx_global_opts, "timeout", &v, &line) < 0)
		goto out;
	m->timeout_ns = strtoull(v, NULL, 10);
	free(v);
	if (mx_single(p, g, mx_global_opts, "placement_interval", &v, &line) < 0)
		goto out;
	m->placement_interval_ns = strtoull(v, NULL, 10);
	free(v);
	v = NULL;
	if (m->placement_interval_ns && m->placement_interval_ns < 1000000) {
		ret = mx_perr(p, line, "placement_interval below 1ms (0 turns sampling off)");
		goto out;
	}
	if (mx_single(p, g, mx_global_opts, "evidence", &v, &line) < 0)
		goto out;
	m->evidence = mx_is_yes(v);
	free(v);
	v = NULL;
	if (mx_single(p, g, mx_global_opts, "order", &v, &line) < 0)
		goto out;
	if (!strcmp(v, "interleave")) {
		m->order = VTB_ORDER_INTERLEAVE;
	} else if (!strcmp(v, "sequential")) {
		m->order = VTB_ORDER_SEQUENTIAL;
	} else if (strncmp(v, "random:", strlen("random:"))) {
		ret = mx_perr(
			p, line,
			"invalid value '%s' for 'order': expected one of interleave, sequential, random:SEED",
			v);
		goto out;
	} else {
		const char *seed = v + strlen("random:");
		char *end;

		m->order = VTB_ORDER_RANDOM;
		errno = 0;
		m->seed = strtoull(seed, &end, 10);
		if (errno || *end || seed[0] < '0' || seed[0] > '9') {
			ret = mx_perr(
				p, line,
				"bad seed '%s' in 'order': expected an unsigned 64-bit integer",
				seed);
			goto out;
		}
	}
	free(v);
	v = NULL;
	if (m->reps_auto && m->order == VTB_ORDER_SEQUENTIAL) {
		ret = mx_perr(
			p, line,
			"order = sequential with reps = auto: the stopping rule needs interleaved rounds (interleave or random:SEED)");
		goto out;
	}
	if (mx_single(p, g, mx_global_opts, "name", &m->name, &line) < 0 ||
	    mx_single(p, g, mx_global_opts, "db", &m->db, &line) < 0 ||
	    mx_single(p, g, mx_global_opts, "kernel", &m->kernel, &line) < 0 ||
	    (m->kernel && *m->kernel && global_kernel(p, m, line) < 0) ||
	    mx_single(p, g, mx_global_opts, "uri", &m->uri, &line) < 0 ||
	    mx_single(p, g, mx_global_opts, "accel", &m->accel, &line) < 0 ||
	    mx_single(p, g, mx_global_opts, "host_id", &m->host_id, &line) < 0 ||
	    mx_single(p, g, mx_global_opts, "host_topology", &v, &line) < 0)
		goto out;
	/* db = is a path of the matrix: from its directory; without one,
	 * results.db in the working directory, every command's default */
	if (m->db && mx_sect_ent(g, "db") && m->db[0] != '/') {
		char *d = mx_from_matrix_dir(p, m->db);

		if (!d) {
			ret = vtb_error("out of memory");
			goto out;
		}
		free(m->db);
		m->db = d;
	}
	if (!m->name) {
		const char *base = strrchr(p->path, '/');
		size_t n;

		base = base ? base + 1 : p->path;
		n = strlen(base);
		if (n > 5 && !strcmp(base + n - 5, ".conf"))
			n -= 5;
		m->name = strndup(base, n);
		if (!m->name) {
			ret = vtb_error("out of memory");
			goto out;
		}
	}
	if (split_globs(p, g, "only", &p->only) < 0 ||
	    split_globs(p, g, "exclude", &p->exclude) < 0)
		goto out;
	free(v);
	v = NULL;
	if (mx_single(p, g, mx_global_opts, "housekeeping", &v, &line) < 0 ||
	    mx_check_housekeeping(p, v, line) < 0)
		goto out;
	ret = 0;
out:
	free(v);
	return ret;
}

/* [sched NAME] and [topology NAME]: shapes only. */
int mx_check_named(struct parser *p)
{
	struct strv sv = { 0 };
	size_t i, j;
	int ret = -1;

	for (i = 0; i < p->n_sects; i++) {
		const struct sect *s = &p->sects[i];
		const struct vtb_opt *table = mx_sectdefs[s->kind].opts;

		if (s->kind != S_TOPOLOGY && s->kind != S_SCHED)
			continue;
		for (j = 0; j < s->n; j++) {
			const struct vtb_opt *o = vtb_opt_find(table, s->ents[j].key);

			if (mx_values_of(p, s->ents[j].line, o, s->ents[j].key, s->ents[j].val.buf,
					 false, NULL, &sv) < 0)
				goto out;
			mx_strv_release(&sv);
		}
	}
	ret = 0;
out:
	mx_strv_release(&sv);
	return ret;
}

int mx_check_workloads(struct parser *p)
{
	size_t i, j;
	char *hint = NULL;
	int ret = -1;
	bool any = false;

	for (i = 0; i < p->n_sects; i++) {
		const struct sect *s = &p->sects[i];
		const struct ent *t;
		const struct vtb_workload_ops *w;

		if (s->kind != S_WORKLOAD)
			continue;
		any = true;
		t = mx_sect_ent(s, "type");
		if (!t) {
			ret = mx_perr(p, s->line, "%s has no 'type =' (one of the workloads)",
				      s->title);
			goto out;
		}
		w = vtb_workload_find(t->val.buf);
		if (!w) {
			hint = vtb_workload_unknown_hint(t->val.buf, false);
			ret = mx_perr(p, t->line, "unknown workload type '%s'%s", t->val.buf,
				      hint ? hint : "");
			goto out;
		}
		for (j = 0; j < s->n; j++) {
			const struct ent *e = &s->ents[j];

			if (e == t || vtb_opt_find(w->opts, e->key))
				continue;
			hint = mx_did_you_mean(" (did you mean '%s'?)",
					       vtb_opt_suggest(w->opts, e->key));
			ret = mx_perr(p, e->line, "unknown key '%s' in %s (%s)%s", e->key, s->title,
				      w->name, hint ? hint : "");
			goto out;
		}
	}
	if (!any) {
		ret = mx_perr(p, 1, "no [workload] section: nothing to run");
		goto out;
	}
	ret = 0;
out:
	free(hint);
	return ret;
}
