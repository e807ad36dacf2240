/* SPDX-License-Identifier: MIT */
/*
 * Guest view against the plan.  Everything read from the view came from
 * a guest, so it is untrusted even after recparse: CPU sets are parsed
 * into fixed-size bitmaps (ids below VTB_GV_MAX_CPUS, ranges filled a
 * word at a time) rather than growable arrays, so a hostile list costs
 * time proportional to its length and nothing more.
 */
#include "guestview.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../matrix/digest.h"

#define WORDS (VTB_GV_MAX_CPUS / 64)
#define MASK_TEXT_LIMIT 4096

struct bits {
	uint64_t w[WORDS];
};

static void bits_set_range(struct bits *b, unsigned a, unsigned z)
{
	for (unsigned i = a; i <= z;) {
		if (i % 64 == 0 && z - i >= 63) {
			b->w[i / 64] = ~0ull;
			i += 64;
		} else {
			b->w[i / 64] |= 1ull << (i % 64);
			i++;
		}
	}
}

static bool bits_has(const struct bits *b, unsigned i)
{
	return i < VTB_GV_MAX_CPUS && (b->w[i / 64] >> (i % 64)) & 1;
}

static void bits_and(struct bits *b, const struct bits *o)
{
	for (size_t i = 0; i < WORDS; i++)
		b->w[i] &= o->w[i];
}

static bool bits_eq(const struct bits *a, const struct bits *b)
{
	return !memcmp(a->w, b->w, sizeof(a->w));
}

static unsigned bits_count(const struct bits *b)
{
	unsigned n = 0;

	for (size_t i = 0; i < WORDS; i++)
		n += (unsigned)__builtin_popcountll(b->w[i]);
	return n;
}

/* Linux cpulist ("0-3,8"), ids below VTB_GV_MAX_CPUS; "" is empty. */
static int bits_parse(const char *s, struct bits *b)
{
	const char *p = s;

	memset(b, 0, sizeof(*b));
	while (*p) {
		unsigned long a, z;
		char *end;

		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtoul(p, &end, 10);
		z = a;
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				goto bad;
			z = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (a > z || z >= VTB_GV_MAX_CPUS)
			goto bad;
		bits_set_range(b, (unsigned)a, (unsigned)z);
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	return 0;
bad:
	return vtb_error("bad CPU list '%.64s'", s);
}

/* A kernel cpumask in hex, 32-bit groups separated by commas, most
 * significant first ("00000000,00000003"). */
static int bits_parse_mask(const char *s, struct bits *b)
{
	size_t n = strlen(s), bit = 0;

	memset(b, 0, sizeof(*b));
	if (!n || n > MASK_TEXT_LIMIT)
		goto bad;
	while (n--) {
		int c = (unsigned char)s[n], v;

		if (c == ',')
			continue;
		if (!isxdigit(c))
			goto bad;
		v = isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
		for (int k = 0; k < 4; k++, bit++)
			if ((v >> k) & 1) {
				if (bit >= VTB_GV_MAX_CPUS)
					goto bad;
				b->w[bit / 64] |= 1ull << (bit % 64);
			}
	}
	return 0;
bad:
	return vtb_error("bad CPU mask '%.64s'", s);
}

/* Formats @b as a cpulist: a new JSON string, NULL on ENOMEM. */
static char *bits_format(const struct bits *b)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	unsigned i = 0, j;
	bool first = true;

	if (vtb_strbuf_addstr(&sb, "") < 0)
		return NULL;
	while (i < VTB_GV_MAX_CPUS) {
		if (!b->w[i / 64] && i % 64 == 0) {
			i += 64;
			continue;
		}
		if (!bits_has(b, i)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < VTB_GV_MAX_CPUS && bits_has(b, j + 1); j++)
			;
		if (vtb_strbuf_addf(&sb, "%s%u", first ? "" : ",", i) < 0 ||
		    (j > i && vtb_strbuf_addf(&sb, "-%u", j) < 0)) {
			vtb_strbuf_release(&sb);
			return NULL;
		}
		first = false;
		i = j + 1;
	}
	return vtb_strbuf_detach(&sb);
}

static json_t *bits_json(const struct bits *b)
{
	char *s = bits_format(b);
	json_t *j = s ? json_string(s) : NULL;

	free(s);
	return j;
}

/* ---------------------------------------------------------------- normalising */

/* An integer member in [0, max) or -1. */
static long long int_in(const json_t *o, const char *key, long long max)
{
	const json_t *v = json_object_get(o, key);
	long long x;

	if (!json_is_integer(v))
		return -1;
	x = json_integer_value(v);
	return x >= 0 && x < max ? x : -1;
}

/* @key of @o is a string (*out), null or absent (*out = NULL); else -1. */
static int opt_str(const json_t *o, const char *key, const char **out)
{
	const json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return vtb_error("'%s' is not a string", key);
	*out = json_string_value(v);
	return 0;
}

/* A cpulist member limited to @online: a JSON string, or JSON null when
 * absent. */
static int list_member(const json_t *o, const char *key, const struct bits *online, json_t **out)
{
	const char *s;
	struct bits b;

	*out = NULL;
	if (opt_str(o, key, &s) < 0)
		return -1;
	if (!s) {
		*out = json_null();
		return 0;
	}
	if (bits_parse(s, &b) < 0)
		return vtb_error("%s: %s", key, vtb_errmsg());
	bits_and(&b, online);
	*out = bits_json(&b);
	return *out ? 0 : vtb_error("out of memory");
}

/* Longest level or flag name kept from the guest. */
#define NAME_MAX_LEN 32

/* Whether @s is 1 to NAME_MAX_LEN characters of [A-Za-z0-9_] (@upper:
 * [A-Z0-9_], a flag name). */
static bool name_ok(const char *s, bool upper)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (i == NAME_MAX_LEN ||
		    !((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      (!upper && s[i] >= 'a' && s[i] <= 'z')))
			return false;
	return i > 0;
}

/* A level name as the tree keeps it: DIE written PKG, and "?" for a
 * name the kernel never writes (the guest is untrusted: "SMT MC" must
 * not fake two levels in the space-joined list, nor an escape sequence
 * reach a terminal). */
static const char *norm_name(const char *name)
{
	if (name && !name_ok(name, false))
		return "?";
	return name && !strcmp(name, "DIE") ? "PKG" : name;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "SD_A SD_B" -> ["SD_A","SD_B"], sorted and unique, "?" for a name
 * that is not [A-Z0-9_]{1,32}; null stays null. */
static json_t *flags_json(const char *s)
{
	char *dup, *tok, *save = NULL, **v = NULL;
	size_t n = 0, alloc = 0, i;
	json_t *a = NULL;

	if (!s)
		return json_null();
	dup = strdup(s);
	if (!dup)
		return NULL;
	for (tok = strtok_r(dup, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (n == alloc) {
			char **q = realloc(v, (alloc = alloc ? 2 * alloc : 16) * sizeof(*v));

			if (!q)
				goto out;
			v = q;
		}
		v[n++] = name_ok(tok, true) ? tok : (char *)"?";
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	a = json_array();
	for (i = 0; a && i < n; i++) {
		if (i && !strcmp(v[i], v[i - 1]))
			continue;
		if (json_array_append_new(a, json_string(v[i])) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
out:
	free(v);
	free(dup);
	return a;
}

struct sstat {
	long long cpu, domain;
	const json_t *o;
};

static int cmp_sstat(const void *a, const void *b)
{
	const struct sstat *x = a, *y = b;

	if (x->cpu != y->cpu)
		return (x->cpu > y->cpu) - (x->cpu < y->cpu);
	return (x->domain > y->domain) - (x->domain < y->domain);
}

struct view {
	const json_t *cpu[VTB_GV_MAX_CPUS]; /* entries of "cpus" by id */
	const json_t *dom[VTB_GV_MAX_CPUS]; /* entries of "domains" by cpu */
	int node_of[VTB_GV_MAX_CPUS];
	struct bits online;
	struct sstat *ss; /* schedstat domains, sorted by (cpu, domain) */
	size_t n_ss;
	bool have_domains; /* some domain source exists */
};

static const json_t *sstat_find(const struct view *v, long long cpu, long long domain)
{
	struct sstat key = { cpu, domain, NULL }, *hit;

	hit = v->n_ss ? bsearch(&key, v->ss, v->n_ss, sizeof(key), cmp_sstat) : NULL;
	return hit ? hit->o : NULL;
}

static int read_view(const json_t *view, struct view *v)
{
	const json_t *cpus = json_object_get(view, "cpus"), *nodes = json_object_get(view, "nodes");
	const json_t *doms = json_object_get(view, "domains"),
		     *ss = json_object_get(view, "schedstat");
	const json_t *e;
	size_t i;

	if (!json_is_object(view) || !json_is_array(cpus) ||
	    json_array_size(cpus) > VTB_GV_MAX_CPUS)
		return vtb_error("guest view: 'cpus' is not an array of at most %d CPUs",
				 VTB_GV_MAX_CPUS);
	json_array_foreach(cpus, i, e)
	{
		long long c = int_in(e, "cpu", VTB_GV_MAX_CPUS);

		if (!json_is_object(e) || c < 0)
			return vtb_error("guest view: cpus[%zu] has no valid 'cpu'", i);
		if (v->cpu[c])
			return vtb_error("guest view: cpu %lld listed twice", c);
		v->cpu[c] = e;
		if (!json_is_false(json_object_get(e, "online")))
			bits_set_range(&v->online, (unsigned)c, (unsigned)c);
	}
	for (i = 0; i < VTB_GV_MAX_CPUS; i++)
		v->node_of[i] = -1;
	if (nodes && !json_is_null(nodes)) {
		if (!json_is_array(nodes) || json_array_size(nodes) > VTB_GV_MAX_NODES)
			return vtb_error("guest view: 'nodes' is not an array of at most %d nodes",
					 VTB_GV_MAX_NODES);
		json_array_foreach(nodes, i, e)
		{
			long long n = int_in(e, "node", 1 << 20);
			const char *s;
			struct bits b;

			if (n < 0 || opt_str(e, "cpus", &s) < 0)
				return vtb_error("guest view: nodes[%zu] is malformed", i);
			if (s && bits_parse(s, &b) < 0)
				return vtb_error("guest view: node %lld: %s", n, vtb_errmsg());
			for (unsigned c = 0; s && c < VTB_GV_MAX_CPUS; c++)
				if (bits_has(&b, c) && v->node_of[c] < 0)
					v->node_of[c] = (int)n;
		}
	}
	if (doms && !json_is_null(doms)) {
		if (!json_is_array(doms) || json_array_size(doms) > VTB_GV_MAX_CPUS)
			return vtb_error("guest view: 'domains' is not an array");
		json_array_foreach(doms, i, e)
		{
			long long c = int_in(e, "cpu", VTB_GV_MAX_CPUS);
			const json_t *l = json_object_get(e, "levels");

			if (c < 0 || !json_is_array(l) || json_array_size(l) > VTB_GV_MAX_LEVELS)
				return vtb_error("guest view: domains[%zu] is malformed", i);
			if (v->dom[c])
				return vtb_error("guest view: domains of cpu %lld listed twice", c);
			v->dom[c] = e;
			v->have_domains = true;
		}
	}
	if (ss && !json_is_null(ss)) {
		const json_t *sd = json_object_get(ss, "domains");

		if (!json_is_object(ss) || !json_is_array(sd) ||
		    json_array_size(sd) > (size_t)VTB_GV_MAX_CPUS * VTB_GV_MAX_LEVELS)
			return vtb_error("guest view: 'schedstat' is malformed");
		v->have_domains = true;
		v->ss = calloc(json_array_size(sd) + 1, sizeof(*v->ss));
		if (!v->ss)
			return vtb_error("out of memory");
		json_array_foreach(sd, i, e)
		{
			struct sstat s = { int_in(e, "cpu", VTB_GV_MAX_CPUS),
					   int_in(e, "domain", VTB_GV_MAX_LEVELS), e };

			if (s.cpu < 0 || s.domain < 0)
				return vtb_error("guest view: schedstat domains[%zu] is malformed",
						 i);
			v->ss[v->n_ss++] = s;
		}
		if (v->n_ss)
			qsort(v->ss, v->n_ss, sizeof(*v->ss), cmp_sstat);
		for (i = 1; i < v->n_ss; i++)
			if (!cmp_sstat(&v->ss[i], &v->ss[i - 1]))
				return vtb_error(
					"guest view: schedstat lists cpu %lld domain %lld twice",
					v->ss[i].cpu, v->ss[i].domain);
	}
	return 0;
}

/* The span of (cpu, domain) from schedstat, limited to online CPUs, or
 * JSON null. */
static json_t *span_of(const struct view *v, long long cpu, long long domain)
{
	const json_t *s = sstat_find(v, cpu, domain);
	const char *mask = NULL;
	struct bits b;

	if (!s || opt_str(s, "mask", &mask) < 0 || !mask)
		return json_null();
	if (bits_parse_mask(mask, &b) < 0)
		return NULL;
	bits_and(&b, &v->online);
	return bits_json(&b);
}

static int cmp_domain(const void *a, const void *b)
{
	long long x = int_in(*(json_t *const *)a, "domain", VTB_GV_MAX_LEVELS);
	long long y = int_in(*(json_t *const *)b, "domain", VTB_GV_MAX_LEVELS);

	return (x > y) - (x < y);
}

static json_t *levels_of(const struct view *v, long long cpu)
{
	const json_t *lv[VTB_GV_MAX_LEVELS], *l;
	json_t *out;
	size_t n = 0, i;

	if (!v->have_domains)
		return json_null();
	if (v->dom[cpu]) {
		json_array_foreach(json_object_get(v->dom[cpu], "levels"), i, l)
		{
			if (int_in(l, "domain", VTB_GV_MAX_LEVELS) < 0) {
				vtb_error("guest view: cpu %lld: a domain without a valid index",
					  cpu);
				return NULL;
			}
			lv[n++] = l;
		}
	} else {
		struct sstat key = { cpu, 0, NULL };
		size_t lo = 0, hi = v->n_ss;

		while (lo < hi) { /* first entry of this cpu */
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_sstat(&v->ss[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < v->n_ss && v->ss[lo].cpu == cpu && n < VTB_GV_MAX_LEVELS; lo++)
			lv[n++] = v->ss[lo].o;
	}
	if (n)
		qsort(lv, n, sizeof(*lv), cmp_domain);
	out = json_array();
	for (i = 0; out && i < n; i++) {
		long long d = int_in(lv[i], "domain", VTB_GV_MAX_LEVELS);
		const char *name, *flags = NULL;
		json_t *o, *fj, *sp;

		if (i && d == int_in(lv[i - 1], "domain", VTB_GV_MAX_LEVELS)) {
			vtb_error("guest view: cpu %lld lists domain %lld twice", cpu, d);
			goto fail;
		}
		if (opt_str(lv[i], "name", &name) < 0 ||
		    (v->dom[cpu] && opt_str(lv[i], "flags", &flags) < 0)) {
			vtb_error("guest view: cpu %lld domain %lld: %s", cpu, d, vtb_errmsg());
			goto fail;
		}
		sp = span_of(v, cpu, d);
		if (!sp) {
			vtb_error("guest view: cpu %lld domain %lld: %s", cpu, d, vtb_errmsg());
			goto fail;
		}
		fj = flags_json(flags);
		/* "o" steals each value, also when packing fails */
		o = json_pack("{s:o, s:o*, s:o}", "name",
			      name ? json_string(norm_name(name)) : json_null(), "flags", fj,
			      "span", sp);
		if (!fj || !o || json_array_append_new(out, o) < 0) {
			json_decref(o);
			vtb_error("out of memory");
			goto fail;
		}
	}
	return out;
fail:
	json_decref(out);
	return NULL;
}

/* The shared list of the highest-level Unified or Data cache, or null. */
static int llc_of(const json_t *cpu, const struct bits *online, json_t **out)
{
	const json_t *caches = json_object_get(cpu, "caches"), *c, *best = NULL;
	long best_level = -1;
	size_t i;

	*out = NULL;
	if (caches && !json_is_null(caches)) {
		if (!json_is_array(caches) || json_array_size(caches) > VTB_GV_MAX_CACHES)
			return vtb_error("'caches' is not an array of at most %d caches",
					 VTB_GV_MAX_CACHES);
		json_array_foreach(caches, i, c)
		{
			const char *type = NULL, *level = NULL;
			long l;

			if (opt_str(c, "type", &type) < 0 || opt_str(c, "level", &level) < 0)
				return -1;
			if (!type || !level || (strcmp(type, "Unified") && strcmp(type, "Data")))
				continue;
			l = strtol(level, NULL, 10);
			if (l > best_level) {
				best_level = l;
				best = c;
			}
		}
	}
	if (!best) {
		*out = json_null();
		return 0;
	}
	return list_member(best, "shared", online, out);
}

json_t *vtb_gv_normalise(const json_t *view, char digest[65])
{
	struct view *v = calloc(1, sizeof(*v));
	json_t *tree = NULL, *cpus = json_array();
	char *text = NULL;

	if (!v || !cpus) {
		vtb_error("out of memory");
		goto out;
	}
	if (read_view(view, v) < 0)
		goto out;
	for (long long c = 0; c < VTB_GV_MAX_CPUS; c++) {
		json_t *o, *ts = NULL, *llc = NULL, *lv;

		if (!v->cpu[c] || !bits_has(&v->online, (unsigned)c))
			continue;
		if (list_member(v->cpu[c], "thread_siblings", &v->online, &ts) < 0 ||
		    llc_of(v->cpu[c], &v->online, &llc) < 0) {
			json_decref(ts);
			vtb_error("guest view: cpu %lld: %s", c, vtb_errmsg());
			goto out;
		}
		lv = levels_of(v, c);
		if (!lv) {
			json_decref(ts);
			json_decref(llc);
			goto out;
		}
		o = json_pack("{s:I, s:o, s:o, s:o, s:o}", "cpu", c, "thread_siblings", ts, "llc",
			      llc, "node",
			      v->node_of[c] >= 0 ? json_integer(v->node_of[c]) : json_null(),
			      "levels", lv);
		if (!o || json_array_append_new(cpus, o) < 0) {
			vtb_error("out of memory");
			goto out;
		}
	}
	tree = json_pack("{s:O}", "cpus", cpus);
	if (!tree) {
		vtb_error("out of memory");
		goto out;
	}
	if (digest) {
		text = json_dumps(tree, JSON_COMPACT | JSON_SORT_KEYS);
		if (!text || vtb_sha256_hex(text, strlen(text), digest) < 0) {
			if (!text)
				vtb_error("out of memory");
			json_decref(tree);
			tree = NULL;
		}
	}
out:
	free(text);
	json_decref(cpus);
	if (v)
		free(v->ss);
	free(v);
	return tree;
}

char *vtb_gv_levels(const json_t *tree)
{
	const json_t *cpus = json_object_get(tree, "cpus"), *c;
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *seen[VTB_GV_MAX_LEVELS];
	size_t n_seen = 0, i, d, k;

	if (vtb_strbuf_addstr(&sb, "") < 0)
		return NULL;
	for (d = 0; d < VTB_GV_MAX_LEVELS; d++) {
		json_array_foreach(cpus, i, c)
		{
			const char *name = json_string_value(
				json_object_get(json_array_get(json_object_get(c, "levels"), d),
						"name"));

			if (!name || n_seen == VTB_GV_MAX_LEVELS)
				continue;
			for (k = 0; k < n_seen && strcmp(seen[k], name); k++)
				;
			if (k < n_seen)
				continue;
			seen[n_seen++] = name;
			if (vtb_strbuf_addf(&sb, "%s%s", sb.len ? " " : "", name) < 0) {
				vtb_strbuf_release(&sb);
				return NULL;
			}
		}
	}
	return vtb_strbuf_detach(&sb);
}

/* ---------------------------------------------------------------- the plan's side */

struct expect_level {
	const char *name;
	struct bits span;
};

/* Cell of every vCPU of VM @m (0 when the plan has no cells). */
static int cells_of(const struct vtb_plan_vm *m, int n, int *cell)
{
	for (int v = 0; v < n; v++)
		cell[v] = m->n_cells ? -1 : 0;
	for (size_t c = 0; c < m->n_cells; c++)
		for (size_t j = 0; j < m->cells[c].vcpus.n; j++) {
			int v = m->cells[c].vcpus.cpus[j];

			if (v < 0 || v >= n)
				return vtb_error("plan: cell %zu holds vCPU %d of %d", c, v, n);
			cell[v] = (int)c;
		}
	for (int v = 0; v < n; v++)
		if (cell[v] < 0)
			return vtb_error("plan: vCPU %d is in no cell", v);
	return 0;
}

static unsigned distance(const struct vtb_plan_vm *m, int a, int b)
{
	if (m->distances && m->n_cells)
		return m->distances[(size_t)a * m->n_cells + (size_t)b];
	return a == b ? 10 : 20; /* QEMU's default table */
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* A VM's planned shape, as the guest kernel will see it */
struct expect_geom {
	const struct vtb_plan_vm *m;
	int n, per_core, per_die, per_sock;
	int *cell;	/* guest cell of each vCPU */
	unsigned *dist; /* the distinct distances, ascending */
	size_t n_dist;
};

/* Why the kernel's levels cannot be foretold (malloc'ed), or NULL: a
 * virtual die or socket that spans guest cells */
static char *unforeseeable(const struct expect_geom *g)
{
	for (int v = 1; v < g->n; v++) {
		if (v / g->per_die == (v - 1) / g->per_die && g->cell[v] != g->cell[v - 1])
			return vtb_asprintf("virtual die %d spans guest cells %d and %d",
					    v / g->per_die, g->cell[v - 1], g->cell[v]);
		if (v / g->per_sock == (v - 1) / g->per_sock && g->cell[v] != g->cell[v - 1])
			return vtb_asprintf("virtual socket %d spans guest cells %d and %d",
					    v / g->per_sock, g->cell[v - 1], g->cell[v]);
	}
	return NULL;
}

static void distinct_distances(struct expect_geom *g, size_t nc)
{
	g->n_dist = 0;
	for (size_t a = 0; a < nc; a++)
		for (size_t b = 0; b < nc; b++) {
			unsigned d = distance(g->m, (int)a, (int)b);
			size_t k;

			for (k = 0; k < g->n_dist && g->dist[k] != d; k++)
				;
			if (k == g->n_dist)
				g->dist[g->n_dist++] = d;
		}
	qsort(g->dist, g->n_dist, sizeof(*g->dist), cmp_uint);
}

/* vCPU @v's sched domain levels into @lv (3 + n_dist of them), its
 * thread siblings and LLC; returns how many levels the kernel keeps. */
static size_t vcpu_levels(const struct expect_geom *g, int v, struct expect_level *lv,
			  struct bits *ts, struct bits *llc)
{
	size_t k = 0, kept = 0;

	for (int u = 0; u < g->n; u++) {
		if (u / g->per_core == v / g->per_core && g->cell[u] == g->cell[v])
			bits_set_range(ts, (unsigned)u, (unsigned)u);
		if (u / g->per_die == v / g->per_die)
			bits_set_range(llc, (unsigned)u, (unsigned)u);
	}
	/* the kernel's candidates, innermost first */
	lv[k].name = "SMT";
	lv[k++].span = *ts;
	lv[k].name = "MC";
	lv[k++].span = *llc;
	lv[k].name = "PKG"; /* cpu_cpu_mask(): the node */
	memset(&lv[k].span, 0, sizeof(lv[k].span));
	for (int u = 0; u < g->n; u++)
		if (g->cell[u] == g->cell[v])
			bits_set_range(&lv[k].span, (unsigned)u, (unsigned)u);
	k++;
	for (size_t j = 1; j < g->n_dist; j++, k++) {
		lv[k].name = "NUMA";
		memset(&lv[k].span, 0, sizeof(lv[k].span));
		for (int u = 0; u < g->n; u++)
			if (distance(g->m, g->cell[v], g->cell[u]) <= g->dist[j])
				bits_set_range(&lv[k].span, (unsigned)u, (unsigned)u);
	}
	/* degenerate levels dropped; a span not covering the one below is
	 * widened to it, as build_sched_domain() does */
	for (size_t j = 0; j < k; j++) {
		if (kept) {
			for (size_t w = 0; w < WORDS; w++)
				lv[j].span.w[w] |= lv[kept - 1].span.w[w];
			if (bits_eq(&lv[j].span, &lv[kept - 1].span))
				continue;
		}
		if (bits_count(&lv[j].span) < 2)
			continue;
		lv[kept++] = lv[j];
	}
	return kept;
}

/* vCPU @v's expected view (NULL: out of memory); levels "unknown" when
 * they cannot be foretold (@why) */
static json_t *expect_cpu(const struct expect_geom *g, int v, struct expect_level *lv,
			  const char *why)
{
	struct bits ts = { { 0 } }, llc = { { 0 } };
	size_t kept = vcpu_levels(g, v, lv, &ts, &llc);
	json_t *levels;

	if (why) {
		levels = json_string("unknown");
	} else {
		levels = json_array();
		for (size_t j = 0; levels && j < kept; j++) {
			json_t *l = json_pack("{s:s, s:o*}", "name", lv[j].name, "span",
					      bits_json(&lv[j].span));

			if (!l || json_array_append_new(levels, l) < 0) {
				json_decref(levels);
				levels = NULL;
			}
		}
	}
	return json_pack("{s:i, s:o*, s:o*, s:i, s:o*}", "cpu", v, "thread_siblings",
			 bits_json(&ts), "llc", bits_json(&llc), "node", g->cell[v], "levels",
			 levels);
}

/* The document: the vCPUs, and the level names innermost first over
 * every vCPU (they may differ with uneven cells) */
static json_t *expect_doc(int vm, json_t *cpus, const char *why)
{
	json_t *root;
	char *names;

	if (why)
		return json_pack("{s:i, s:s, s:s, s:O}", "vm", vm, "levels", "unknown",
				 "why_unknown", why, "cpus", cpus);
	root = json_pack("{s:O}", "cpus", cpus);
	names = root ? vtb_gv_levels(root) : NULL;
	json_decref(root);
	root = names ? json_pack("{s:i, s:s, s:O}", "vm", vm, "levels", names, "cpus", cpus) : NULL;
	free(names);
	return root;
}

json_t *vtb_gv_expect(const struct vtb_plan *p, int vm)
{
	struct expect_geom g = { 0 };
	struct expect_level *lv = NULL;
	json_t *root = NULL, *cpus = NULL;
	char *why = NULL;
	size_t nc;

	if (!p || vm < 0 || vm >= p->req.vms) {
		vtb_error("plan has no VM %d", vm);
		return NULL;
	}
	g.m = &p->vm[vm];
	g.n = p->req.vcpus;
	g.per_core = p->threads;
	g.per_die = g.per_core * p->cores;
	g.per_sock = g.per_die * p->dies;
	if (g.n < 1 || g.n > VTB_GV_MAX_CPUS || g.per_core < 1 || g.per_sock * p->sockets != g.n) {
		vtb_error("plan: %d vCPUs do not fill %d sockets x %d dies x %d cores x %d threads",
			  g.n, p->sockets, p->dies, p->cores, p->threads);
		return NULL;
	}
	nc = g.m->n_cells ? g.m->n_cells : 1;
	g.cell = malloc((size_t)g.n * sizeof(*g.cell));
	g.dist = malloc(nc * nc * sizeof(*g.dist));
	cpus = json_array();
	if (!g.cell || !g.dist || !cpus)
		goto oom;
	if (cells_of(g.m, g.n, g.cell) < 0)
		goto out;
	why = unforeseeable(&g);
	distinct_distances(&g, nc);
	lv = calloc(3 + g.n_dist, sizeof(*lv)); /* SMT, MC, PKG, a NUMA level per distance */
	if (!lv)
		goto oom;
	for (int v = 0; v < g.n; v++) {
		json_t *o = expect_cpu(&g, v, lv, why);

		if (!o || json_array_append_new(cpus, o) < 0)
			goto oom;
	}
	root = expect_doc(vm, cpus, why);
	if (!root)
		goto oom;
	goto out;
oom:
	vtb_error("out of memory");
out:
	json_decref(cpus);
	free(why);
	free(lv);
	free(g.dist);
	free(g.cell);
	return root;
}

/* ---------------------------------------------------------------- the check */

/* "SMT MC" of a levels array ("?" for unnamed levels, "(none)" when
 * empty); *unnamed when some level has no name. */
static char *level_names(const json_t *levels, bool *unnamed)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const json_t *l;
	size_t i;

	*unnamed = false;
	if (vtb_strbuf_addstr(&sb, "") < 0)
		return NULL;
	json_array_foreach(levels, i, l)
	{
		const char *name = json_string_value(json_object_get(l, "name"));

		*unnamed |= !name;
		if (vtb_strbuf_addf(&sb, "%s%s", i ? " " : "", name ? name : "?") < 0) {
			vtb_strbuf_release(&sb);
			return NULL;
		}
	}
	if (!sb.len && vtb_strbuf_addstr(&sb, "(none)") < 0) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

/* Appends "; " or "cpuN: " then the formatted difference. */
static int differ(struct vtb_strbuf *line, long long cpu, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int differ(struct vtb_strbuf *line, long long cpu, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int r;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return vtb_error("out of memory");
	r = line->len ? vtb_strbuf_addf(line, "; %s", s)
		      : vtb_strbuf_addf(line, "cpu%lld: %s", cpu, s);
	free(s);
	return r;
}

static int compare_cpu(const json_t *g, const json_t *e, long long cpu, struct vtb_strbuf *line)
{
	static const char *const lists[] = { "thread_siblings", "llc" };
	const json_t *gl = json_object_get(g, "levels"), *el = json_object_get(e, "levels");
	const json_t *gn = json_object_get(g, "node");
	char *gs = NULL, *es = NULL;
	bool unnamed, dummy;
	size_t i;
	int ret = -1;

	for (i = 0; i < VTB_ARRAY_SIZE(lists); i++) {
		const char *a = json_string_value(json_object_get(g, lists[i]));
		const char *b = json_string_value(json_object_get(e, lists[i]));

		if (a && b && strcmp(a, b) &&
		    differ(line, cpu, "%s %s, plan %s", lists[i], a[0] ? a : "(none)", b) < 0)
			return -1;
	}
	if (json_is_integer(gn) &&
	    json_integer_value(gn) != json_integer_value(json_object_get(e, "node")) &&
	    differ(line, cpu, "node %lld, plan %lld", (long long)json_integer_value(gn),
		   (long long)json_integer_value(json_object_get(e, "node"))) < 0)
		return -1;
	if (!json_is_array(gl) || !json_is_array(el))
		return 0; /* no domain source in the guest, or unknown in the plan */
	gs = level_names(gl, &unnamed);
	es = level_names(el, &dummy);
	if (!gs || !es) {
		vtb_error("out of memory");
		goto out;
	}
	if (!unnamed && strcmp(gs, es)) {
		if (differ(line, cpu, "levels %s, plan %s", gs, es) < 0)
			goto out;
	} else if (json_array_size(gl) == json_array_size(el)) {
		for (i = 0; i < json_array_size(gl); i++) {
			const json_t *a = json_array_get(gl, i), *b = json_array_get(el, i);
			const char *sa = json_string_value(json_object_get(a, "span"));
			const char *sb = json_string_value(json_object_get(b, "span"));
			const char *nb = json_string_value(json_object_get(b, "name"));

			if (sa && sb && strcmp(sa, sb) &&
			    differ(line, cpu, "%s span %s, plan %s", nb, sa, sb) < 0)
				goto out;
		}
	} else if (differ(line, cpu, "levels %s, plan %s", gs, es) < 0) {
		goto out;
	}
	ret = 0;
out:
	free(gs);
	free(es);
	return ret;
}

int vtb_gv_check(const struct vtb_plan *plan, int vm, const json_t *view, char **diff)
{
	json_t *tree = NULL, *exp = NULL;
	const json_t *gc, *ec;
	struct vtb_strbuf out = VTB_STRBUF_INIT, line = VTB_STRBUF_INIT;
	size_t gi = 0, ei = 0, shown = 0, more = 0;
	int ret = -1;

	*diff = NULL;
	tree = vtb_gv_normalise(view, NULL);
	exp = tree ? vtb_gv_expect(plan, vm) : NULL;
	if (!exp || vtb_strbuf_addstr(&out, "") < 0)
		goto done;
	gc = json_object_get(tree, "cpus");
	ec = json_object_get(exp, "cpus");
	/* both sorted by cpu: a merge */
	while (gi < json_array_size(gc) || ei < json_array_size(ec)) {
		const json_t *g = json_array_get(gc, gi), *e = json_array_get(ec, ei);
		long long a = g ? json_integer_value(json_object_get(g, "cpu")) : -1;
		long long b = e ? json_integer_value(json_object_get(e, "cpu")) : -1;
		long long cpu;
		int r;

		vtb_strbuf_release(&line);
		if (g && (!e || a < b)) {
			cpu = a;
			r = differ(&line, cpu, "not in the plan");
			gi++;
		} else if (e && (!g || b < a)) {
			cpu = b;
			r = differ(&line, cpu, "missing in the guest");
			ei++;
		} else {
			cpu = a;
			r = compare_cpu(g, e, cpu, &line);
			gi++;
			ei++;
		}
		if (r < 0)
			goto done;
		if (!line.len)
			continue;
		if (shown == VTB_GV_DIFF_LINES) {
			more++;
			continue;
		}
		if (vtb_strbuf_addf(&out, "%s%s", shown ? "; " : "", line.buf) < 0)
			goto done;
		shown++;
	}
	if (more && vtb_strbuf_addf(&out, "; (and %zu more CPUs differ)", more) < 0)
		goto done;
	if (shown) {
		*diff = vtb_strbuf_detach(&out);
		ret = *diff ? 1 : vtb_error("out of memory");
	} else {
		ret = 0;
	}
done:
	vtb_strbuf_release(&line);
	vtb_strbuf_release(&out);
	json_decref(tree);
	json_decref(exp);
	return ret;
}
