/* SPDX-License-Identifier: MIT */
/*
 * Host topology through hwloc, CPU identity through libcpuid, remote hosts
 * through libvirt capabilities XML (libxml2; provision.c fetches it).
 * Every source is turned into the plain model of topo.h, which answers
 * the questions; hwloc is kept only to export XML.  hwloc's logical order
 * is its topology order (siblings of a core, then cores of a cache, ...),
 * so "compact" is the PUs in logical order; OS numbers are never assumed
 * to be adjacent for siblings.
 */
#include "hosttopo.h"

#include "../../common/sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <libcpuid.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define X(s) ((const xmlChar *)(s))

/* topology files (hwloc XML of a 8192-CPU machine is ~5 MiB) */
#define TOPO_FILE_MAX (64u << 20)

/* ---- the model from hwloc ---------------------------------------------- */

/* The last-level cache: L3, else L2, else L1.  (An L4 on a few Intel
 * parts is a memory-side cache, not the LLC STREAM sizing means.) */
static hwloc_obj_type_t llc_type(hwloc_topology_t t, int *level)
{
	static const hwloc_obj_type_t types[] = {
		HWLOC_OBJ_L3CACHE,
		HWLOC_OBJ_L2CACHE,
		HWLOC_OBJ_L1CACHE,
	};
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(types); i++) {
		if (hwloc_get_nbobjs_by_type(t, types[i]) > 0) {
			*level = 3 - (int)i;
			return types[i];
		}
	}
	*level = 0;
	return HWLOC_OBJ_TYPE_MAX;
}

static int cpuset_from_bitmap(struct vtb_cpuset *s, hwloc_const_bitmap_t b)
{
	int i;

	hwloc_bitmap_foreach_begin(i, b)
	{
		if (vtb_cpuset_add(s, i))
			return -1;
	}
	hwloc_bitmap_foreach_end();
	return 0;
}

static int hwloc_groups(struct vtb_topo *m, hwloc_topology_t t, hwloc_obj_type_t type,
			enum vtb_topo_level level)
{
	hwloc_obj_t o = NULL;

	while ((o = hwloc_get_next_obj_by_type(t, type, o))) {
		struct vtb_topo_group *g = vtb_topo_add_group(m, level);

		if (!g)
			return -1;
		g->os = o->os_index == HWLOC_UNKNOWN_INDEX ? -1 : (int)o->os_index;
		if (hwloc_obj_type_is_cache(type))
			g->size = o->attr->cache.size;
		if (cpuset_from_bitmap(&g->pus, o->cpuset))
			return -1;
	}
	return 0;
}

/* A PU's node: the smallest node whose cpuset holds it (a CPU-less HBM or
 * CXL node hangs on a package or the machine and so has a larger cpuset
 * than the node of the PU's own DRAM), the lowest-numbered on a tie. */
static hwloc_obj_t pu_node(hwloc_topology_t t, unsigned os)
{
	hwloc_obj_t n = NULL, best = NULL;

	while ((n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n))) {
		if (!hwloc_bitmap_isset(n->cpuset, os))
			continue;
		if (!best || hwloc_bitmap_weight(n->cpuset) < hwloc_bitmap_weight(best->cpuset) ||
		    (hwloc_bitmap_weight(n->cpuset) == hwloc_bitmap_weight(best->cpuset) &&
		     n->os_index < best->os_index))
			best = n;
	}
	return best;
}

/* hwloc's page types: the first is the normal pages (what the huge page
 * pools leave of the node), the others the pools (nr_hugepages: their
 * size, not what is free). */
static void node_pages(struct vtb_topo_node *v, const struct hwloc_numanode_attr_s *a)
{
	unsigned i;

	for (i = 0; i < a->page_types_len; i++) {
		if (!i && a->page_types[i].size && a->page_types[i].size < VTB_TOPO_HUGEPAGE)
			v->normal = a->page_types[i].size * a->page_types[i].count;
		else if (a->page_types[i].size == VTB_TOPO_HUGEPAGE)
			v->hugepages = (int64_t)a->page_types[i].count;
	}
	if (v->normal > v->memory)
		v->normal = 0; /* inconsistent: the total is what we know */
}

static int hwloc_nodes(struct vtb_topo *m, hwloc_topology_t t)
{
	struct hwloc_distances_s *d = NULL;
	hwloc_obj_t n = NULL, pu = NULL;
	unsigned nr = 1, i, j;
	int nn = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);

	hwloc_const_nodeset_t allowed = hwloc_topology_get_allowed_nodeset(t);

	while ((n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n))) {
		struct vtb_topo_node *v = vtb_topo_add_node(m);

		if (!v)
			return -1;
		v->os = (int)n->os_index;
		/* kept with INCLUDE_DISALLOWED: its memory is not ours */
		v->denied = allowed && !hwloc_bitmap_isset(allowed, n->os_index);
		v->memory = n->attr->numanode.local_memory;
		node_pages(v, &n->attr->numanode);
	}
	while ((pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, pu))) {
		n = pu_node(t, pu->os_index);
		if (n && vtb_cpuset_add(&m->nodes[n->logical_index].pus, (int)pu->os_index))
			return -1;
	}
	if (nn <= 0 ||
	    hwloc_distances_get_by_type(t, HWLOC_OBJ_NUMANODE, &nr, &d,
					HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) ||
	    nr < 1)
		return 0;
	if (d->nbobjs == (unsigned)nn) {
		m->distances = calloc((size_t)nn * (size_t)nn, sizeof(unsigned));
		if (!m->distances) {
			hwloc_distances_release(t, d);
			return vtb_error("out of memory");
		}
		for (i = 0; i < d->nbobjs; i++)
			for (j = 0; j < d->nbobjs; j++)
				m->distances[d->objs[i]->logical_index * (unsigned)nn +
					     d->objs[j]->logical_index] =
					(unsigned)d->values[i * d->nbobjs + j];
	}
	hwloc_distances_release(t, d);
	return 0;
}

/* The model of a loaded hwloc topology; @affinity (local host) further
 * restricts the allowed PUs. */
static int model_from_hwloc(hwloc_topology_t t, const cpu_set_t *affinity, struct vtb_topo *m)
{
	hwloc_const_bitmap_t online = hwloc_topology_get_topology_cpuset(t);
	hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(t);
	hwloc_bitmap_t offline = hwloc_bitmap_alloc();
	hwloc_obj_type_t lt = llc_type(t, &m->llc_level);
	hwloc_obj_t pu = NULL;
	int *order = NULL, ret = -1, i;
	size_t n = 0;

	order = calloc((size_t)hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU) + 1, sizeof(int));
	if (!offline || !order) {
		vtb_error("out of memory");
		goto out;
	}
	while ((pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, pu))) {
		unsigned os = pu->os_index;
		bool ok = hwloc_bitmap_isset(allowed, os) &&
			  (!affinity || (os < CPU_SETSIZE && CPU_ISSET(os, affinity)));

		if (!vtb_topo_add_pu(m, (int)os, true, ok))
			goto out;
		order[n++] = (int)os;
	}
	/* offline CPUs are only in the machine's complete cpuset */
	hwloc_bitmap_andnot(offline, hwloc_topology_get_complete_cpuset(t), online);
	hwloc_bitmap_foreach_begin(i, offline)
	{
		if (!vtb_topo_add_pu(m, i, false, false))
			goto out;
	}
	hwloc_bitmap_foreach_end();
	if (hwloc_groups(m, t, HWLOC_OBJ_CORE, VTB_TOPO_CORE) ||
	    hwloc_groups(m, t, HWLOC_OBJ_L2CACHE, VTB_TOPO_L2) ||
	    (lt != HWLOC_OBJ_TYPE_MAX && hwloc_groups(m, t, lt, VTB_TOPO_LLC)) ||
	    hwloc_groups(m, t, HWLOC_OBJ_DIE, VTB_TOPO_DIE) ||
	    hwloc_groups(m, t, HWLOC_OBJ_PACKAGE, VTB_TOPO_PKG) || hwloc_nodes(m, t))
		goto out;
	ret = vtb_topo_finish(m, order, n);
out:
	hwloc_bitmap_free(offline);
	free(order);
	return ret;
}

char *vtb_cpu_model_name_trim(const char *s)
{
	char *r = malloc(strlen(s ? s : "") + 1), *w = r;

	if (!r)
		return NULL;
	for (; s && *s; s++) {
		if (isspace((unsigned char)*s)) {
			/* one space between words, none at either end */
			if (w > r && w[-1] != ' ')
				*w++ = ' ';
			continue;
		}
		*w++ = *s;
	}
	if (w > r && w[-1] == ' ')
		w--;
	*w = '\0';
	return r;
}

/*
 * libcpuid picks a codename by scoring its table's rows on the fields
 * that match and never counts a family that does not: a CPU of an AMD
 * family its table lacks gets the name of an older part that shares the
 * base family (15) and the model number.  Family 26 (Zen 5) model 2
 * came out as "Abu Dhabi", an Opteron of family 21, on 0.6.2.  So the
 * name is kept only for AMD families the installed version knows:
 * through 0x19 (Zen 3/4) since 0.6.0, 0x1a (Turin) from 0.7.1.
 */
bool vtb_cpu_codename_trusted(const char *vendor, int ext_family, const char *libversion)
{
	unsigned a = 0, b = 0, c = 0;
	int known = 0x19;

	if (!vendor || strcmp(vendor, "AuthenticAMD"))
		return true;
	if (libversion && sscanf(libversion, "%u.%u.%u", &a, &b, &c) >= 2 &&
	    (a > 0 || b > 7 || (b == 7 && c >= 1)))
		known = 0x1a;
	return ext_family <= known;
}

static void identify_cpu(struct vtb_hosttopo *h)
{
	struct cpu_raw_data_t raw;
	struct cpu_id_t id;

	memset(&id, 0, sizeof(id));
	if (cpuid_get_raw_data(&raw) < 0 || cpu_identify(&raw, &id) < 0)
		return;
	h->cpu_vendor = strdup(id.vendor_str);
	h->cpu_model_name = vtb_cpu_model_name_trim(id.brand_str);
	h->cpu_codename = strdup(
		vtb_cpu_codename_trusted(id.vendor_str, id.ext_family, cpuid_lib_version())
			? id.cpu_codename
			: "");
	h->cpu_family = id.ext_family;
	h->cpu_model = id.ext_model;
}

/* What hwloc recorded of the CPU (XML of another machine). */
static void identify_hwloc(struct vtb_hosttopo *h, hwloc_topology_t t)
{
	hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0);
	const char *v;

	if (!o)
		o = hwloc_get_root_obj(t);
	if ((v = hwloc_obj_get_info_by_name(o, "CPUVendor")))
		h->cpu_vendor = strdup(v);
	if ((v = hwloc_obj_get_info_by_name(o, "CPUModel")))
		h->cpu_model_name = vtb_cpu_model_name_trim(v);
	if ((v = hwloc_obj_get_info_by_name(o, "CPUFamilyNumber")))
		h->cpu_family = atoi(v);
	if ((v = hwloc_obj_get_info_by_name(o, "CPUModelNumber")))
		h->cpu_model = atoi(v);
}

/* ---- the model from libvirt capabilities XML --------------------------- */

static xmlNodePtr child(xmlNodePtr n, const char *name)
{
	for (n = n ? n->children : NULL; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE && !xmlStrcmp(n->name, X(name)))
			return n;
	return NULL;
}

static xmlNodePtr next_el(xmlNodePtr n, const char *name)
{
	for (n = n ? n->next : NULL; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE && !xmlStrcmp(n->name, X(name)))
			return n;
	return NULL;
}

#define FOR_CHILD(c, parent, name) for (xmlNodePtr c = child(parent, name); c; c = next_el(c, name))

/* An attribute as a non-negative integer; -1 when absent, -2 when bad. */
static long long attr_num(xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, X(name));
	long long r = -1;
	char *end;

	if (!v)
		return -1;
	errno = 0;
	r = strtoll((const char *)v, &end, 10);
	if (errno || end == (char *)v || *end || r < 0)
		r = -2;
	xmlFree(v);
	return r;
}

static char *text_of(xmlNodePtr n)
{
	xmlChar *v = n ? xmlNodeGetContent(n) : NULL;
	char *s;

	if (!v)
		return NULL;
	s = strdup((const char *)v);
	xmlFree(v);
	return s;
}

/* libvirt's scaled units (virScaleInteger): b, KB = 1000, K/KiB = 1024... */
static int unit_scale(const char *unit, const char *def, uint64_t *out)
{
	static const struct {
		const char *name;
		uint64_t mul;
	} units[] = {
		{ "b", 1 },
		{ "bytes", 1 },
		{ "k", 1ULL << 10 },
		{ "kib", 1ULL << 10 },
		{ "kb", 1000ULL },
		{ "m", 1ULL << 20 },
		{ "mib", 1ULL << 20 },
		{ "mb", 1000000ULL },
		{ "g", 1ULL << 30 },
		{ "gib", 1ULL << 30 },
		{ "gb", 1000000000ULL },
		{ "t", 1ULL << 40 },
		{ "tib", 1ULL << 40 },
		{ "tb", 1000000000000ULL },
	};
	size_t i;

	if (!unit)
		unit = def;
	for (i = 0; i < VTB_ARRAY_SIZE(units); i++) {
		if (!strcasecmp(unit, units[i].name)) {
			*out = units[i].mul;
			return 0;
		}
	}
	return -1;
}

/* "<memory unit='KiB'>123</memory>" or size='16' unit='MiB' as bytes. */
static int scaled(const char *num, const char *unit, const char *def, uint64_t *out)
{
	unsigned long long v;
	uint64_t mul;
	char *end;

	if (!num || unit_scale(unit, def, &mul))
		return -1;
	errno = 0;
	v = strtoull(num, &end, 10);
	while (*end == ' ' || *end == '\n' || *end == '\t')
		end++;
	if (errno || end == num || *end || *num == '-' || (mul && v > UINT64_MAX / mul))
		return -1;
	*out = v * mul;
	return 0;
}

/* Groups are found by a key of up to three ints (package; package, die;
 * siblings' first CPU or package, die, core). */
struct keyed {
	long long *keys; /* 3 per group */
	size_t n;
};

static int keyed_group(struct vtb_topo *m, enum vtb_topo_level level, struct keyed *k, long long a,
		       long long b, long long c, int os, struct vtb_topo_group **out)
{
	long long *p;
	size_t i;

	for (i = 0; i < k->n; i++) {
		if (k->keys[3 * i] == a && k->keys[3 * i + 1] == b && k->keys[3 * i + 2] == c) {
			*out = &m->groups[level][i];
			return 0;
		}
	}
	p = realloc(k->keys, (k->n + 1) * 3 * sizeof(*p));
	if (!p)
		return vtb_error("out of memory");
	k->keys = p;
	p[3 * k->n] = a;
	p[3 * k->n + 1] = b;
	p[3 * k->n + 2] = c;
	k->n++;
	*out = vtb_topo_add_group(m, level);
	if (!*out)
		return -1;
	(*out)->os = os;
	return 0;
}

static int caps_cpu(struct vtb_topo *m, const char *name, xmlNodePtr cpu, struct keyed *kp,
		    struct keyed *kd, struct keyed *kc, struct vtb_topo_node *node)
{
	long long id = attr_num(cpu, "id"), sock = attr_num(cpu, "socket_id");
	long long die = attr_num(cpu, "die_id"), core = attr_num(cpu, "core_id");
	xmlChar *sib = xmlGetProp(cpu, X("siblings"));
	struct vtb_cpuset sibs = { NULL, 0 };
	struct vtb_topo_group *g;
	long long ck;
	int ret = -1;

	if (id < 0) {
		vtb_error("%s: a <cpu> has no valid id", name);
		goto out;
	}
	if (sock < 0 || core < 0 || die == -2) {
		vtb_error("%s: cpu %lld has no valid socket_id or core_id", name, id);
		goto out;
	}
	if (die < 0)
		die = 0; /* libvirt before 6.0 */
	if (sib && vtb_cpuset_parse((const char *)sib, &sibs)) {
		vtb_error("%s: cpu %lld: bad siblings '%s'", name, id, (const char *)sib);
		goto out;
	}
	/* the siblings list names the core even where core ids repeat */
	ck = sibs.n ? sibs.cpus[0] : -1;
	if (!vtb_topo_add_pu(m, (int)id, true, true) || vtb_cpuset_add(&node->pus, (int)id) ||
	    keyed_group(m, VTB_TOPO_PKG, kp, sock, 0, 0, (int)sock, &g) ||
	    vtb_cpuset_add(&g->pus, (int)id) ||
	    keyed_group(m, VTB_TOPO_DIE, kd, sock, die, 0, (int)die, &g) ||
	    vtb_cpuset_add(&g->pus, (int)id) ||
	    keyed_group(m, VTB_TOPO_CORE, kc, ck >= 0 ? -1 : sock, ck >= 0 ? ck : die,
			ck >= 0 ? 0 : core, (int)core, &g) ||
	    vtb_cpuset_add(&g->pus, (int)id))
		goto out;
	ret = 0;
out:
	xmlFree(sib);
	vtb_cpuset_release(&sibs);
	return ret;
}

/* <cache><bank id='0' level='3' type='both' size='32' unit='MiB'
 * cpus='0-7'/>: the LLC groups (level 3; libvirt lists nothing below), and
 * L2s should a libvirt list them.  CPUs a bank names but no cell lists are
 * left out. */
static int caps_caches(struct vtb_topo *m, const char *name, xmlNodePtr cache,
		       const struct vtb_cpuset *listed)
{
	long long top = 0;
	int ret = 0;

	FOR_CHILD(b, cache, "bank")
	{
		long long lv = attr_num(b, "level");

		if (lv > top && lv <= 3)
			top = lv;
	}
	if (top < 2)
		return 0;
	m->llc_level = (int)top;
	FOR_CHILD(b, cache, "bank")
	{
		long long lv = attr_num(b, "level");
		xmlChar *type = xmlGetProp(b, X("type")), *size = xmlGetProp(b, X("size"));
		xmlChar *unit = xmlGetProp(b, X("unit")), *cpus = xmlGetProp(b, X("cpus"));
		struct vtb_cpuset s = { NULL, 0 };
		struct vtb_topo_group *g;
		uint64_t bytes = 0;
		size_t i;

		if ((lv == top || lv == 2) && !(type && !xmlStrcmp(type, X("code")))) {
			if (!cpus || vtb_cpuset_parse((const char *)cpus, &s) ||
			    scaled((const char *)size, (const char *)unit, "B", &bytes)) {
				ret = vtb_error("%s: bad cache bank (level %lld, cpus '%s')", name,
						lv, cpus ? (const char *)cpus : "");
			} else if (!(g = vtb_topo_add_group(m, lv == top ? VTB_TOPO_LLC
									 : VTB_TOPO_L2))) {
				ret = -1;
			} else {
				g->os = (int)attr_num(b, "id");
				g->size = bytes;
				for (i = 0; i < s.n && !ret; i++)
					if (vtb_cpuset_has(listed, s.cpus[i]))
						ret = vtb_cpuset_add(&g->pus, s.cpus[i]);
			}
		}
		vtb_cpuset_release(&s);
		xmlFree(type);
		xmlFree(size);
		xmlFree(unit);
		xmlFree(cpus);
		if (ret)
			return ret;
	}
	return 0;
}

static int caps_distances(struct vtb_topo *m, const char *name, xmlNodePtr cells)
{
	size_t n = m->n_nodes, i = 0, j;
	bool any = false;

	FOR_CHILD(cell, cells, "cell")
	{
		any = any || child(child(cell, "distances"), "sibling");
	}
	if (!any)
		return 0;
	m->distances = calloc(n * n, sizeof(unsigned));
	if (!m->distances)
		return vtb_error("out of memory");
	FOR_CHILD(cell, cells, "cell")
	{
		for (j = 0; j < n; j++) {
			long long v = -1;

			FOR_CHILD(s, child(cell, "distances"), "sibling")
			{
				if (attr_num(s, "id") == m->nodes[j].os)
					v = attr_num(s, "value");
			}
			if (v < 0 || v > 0xffff)
				return vtb_error("%s: cell %d has no valid distance to cell %d",
						 name, m->nodes[i].os, m->nodes[j].os);
			m->distances[i * n + j] = (unsigned)v;
		}
		i++;
	}
	return 0;
}

/* A cell's <pages unit='KiB' size='4'>N</pages>: libvirt counts the
 * normal pages as what the huge page pools leave of the node, and each
 * pool by its size (nr_hugepages, not what is free). */
static int caps_pages(xmlNodePtr cell, struct vtb_topo_node *node)
{
	int ret = 0;

	FOR_CHILD(pg, cell, "pages")
	{
		xmlChar *size = xmlGetProp(pg, X("size")), *unit = xmlGetProp(pg, X("unit"));
		char *count = text_of(pg);
		uint64_t bytes = 0, n = 0;

		/* <pages/> without a count (the host's <cpu> lists sizes so) */
		if (count && *count &&
		    (scaled((const char *)size, (const char *)unit, "KiB", &bytes) ||
		     scaled(count, "b", "b", &n)))
			ret = -1;
		else if (count && *count && bytes && bytes < VTB_TOPO_HUGEPAGE &&
			 n <= UINT64_MAX / bytes)
			node->normal = n * bytes;
		else if (count && *count && bytes == VTB_TOPO_HUGEPAGE && n <= INT64_MAX)
			node->hugepages = (int64_t)n;
		xmlFree(size);
		xmlFree(unit);
		free(count);
	}
	if (node->normal > node->memory)
		node->normal = 0;
	return ret;
}

static const char *vendor_id(const char *v)
{
	if (v && !strcmp(v, "Intel"))
		return "GenuineIntel";
	if (v && !strcmp(v, "AMD"))
		return "AuthenticAMD";
	return v;
}

static int model_from_caps(struct vtb_hosttopo *h, xmlDocPtr doc, const char *name)
{
	struct vtb_topo *m = &h->model;
	xmlNodePtr host = child(xmlDocGetRootElement(doc), "host");
	xmlNodePtr cpu = child(host, "cpu"), cells = child(child(host, "topology"), "cells");
	struct keyed kp = { 0 }, kd = { 0 }, kc = { 0 };
	struct vtb_cpuset listed = { NULL, 0 };
	size_t i;
	int ret = -1;

	if (!host) {
		vtb_error("%s: no <host> element", name);
		goto out;
	}
	if (!cells || !child(cells, "cell")) {
		vtb_error(
			"%s: no <topology><cells> in <host>: libvirt knows no CPU topology for this host",
			name);
		goto out;
	}
	if (cpu) {
		char *v = text_of(child(cpu, "vendor"));
		xmlNodePtr sig = child(cpu, "signature");

		h->cpu_vendor = vtb_strdup(vendor_id(v));
		free(v);
		h->cpu_codename = text_of(child(cpu, "model"));
		if (sig) {
			h->cpu_family = (int)attr_num(sig, "family");
			h->cpu_model = (int)attr_num(sig, "model");
			if (h->cpu_family < 0 || h->cpu_model < 0)
				h->cpu_family = h->cpu_model = 0;
		}
	}
	FOR_CHILD(cell, cells, "cell")
	{
		struct vtb_topo_node *node = vtb_topo_add_node(m);
		char *mem = text_of(child(cell, "memory"));
		xmlChar *unit = xmlGetProp(child(cell, "memory"), X("unit"));
		int bad;

		if (!node) {
			free(mem);
			xmlFree(unit);
			goto out;
		}
		node->os = (int)attr_num(cell, "id");
		bad = mem && scaled(mem, (const char *)unit, "KiB", &node->memory);
		free(mem);
		xmlFree(unit);
		if (node->os < 0 || bad) {
			vtb_error("%s: a <cell> has no valid id or memory", name);
			goto out;
		}
		if (caps_pages(cell, node)) {
			vtb_error("%s: cell %d has a <pages> without a valid size or count", name,
				  node->os);
			goto out;
		}
		FOR_CHILD(c, child(cell, "cpus"), "cpu")
		{
			if (caps_cpu(m, name, c, &kp, &kd, &kc, node))
				goto out;
		}
	}
	if (caps_distances(m, name, cells))
		goto out;
	for (i = 0; i < m->n_pus; i++)
		if (vtb_cpuset_add(&listed, m->pus[i].os))
			goto out;
	if (caps_caches(m, name, child(host, "cache"), &listed))
		goto out;
	/* vtb_error() formats before it frees the old message */
	if (vtb_topo_finish(m, NULL, 0)) {
		vtb_error("%s: %s", name, vtb_errmsg());
		goto out;
	}
	ret = 0;
out:
	free(kp.keys);
	free(kd.keys);
	free(kc.keys);
	vtb_cpuset_release(&listed);
	return ret;
}

/* ---- loading ------------------------------------------------------------ */

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static const char *plural(int n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static int host_llc_bytes(const struct vtb_host_ctx *ctx, const struct vtb_cpuset *cpus,
			  uint64_t *out)
{
	const struct vtb_hosttopo *h = ctx->priv;
	uint64_t sum;

	if (!h->model.llc_level)
		return vtb_error("host topology '%s' has no cache information", h->source);
	if (vtb_topo_llc_bytes(&h->model, cpus, &sum))
		return -1;
	if (!sum)
		return vtb_error("host topology '%s' gives no LLC size for the CPUs used",
				 h->source);
	*out = sum;
	return 0;
}

static char *host_mems_of(const struct vtb_host_ctx *ctx, const struct vtb_cpuset *cpus)
{
	const struct vtb_hosttopo *h = ctx->priv;
	struct vtb_cpuset nodes;
	char *s;

	if (vtb_topo_nodes_of(&h->model, cpus, &nodes))
		return NULL;
	s = vtb_cpuset_format(&nodes);
	vtb_cpuset_release(&nodes);
	return s;
}

/* h->llc_source (see hosttopo.h). */
static char *llc_source(const struct vtb_hosttopo *h)
{
	const struct vtb_topo *m = &h->model;
	size_t n = m->n_groups[VTB_TOPO_LLC], i;
	uint64_t lo = UINT64_MAX, hi = 0;
	const char *from;
	char *l = NULL, *u = NULL, *s;

	if (!m->llc_level || !n)
		return vtb_asprintf(
			"none: %s gives no cache information (membw size = auto is then resolved by the agent where it runs)",
			h->source);
	for (i = 0; i < n; i++) {
		uint64_t b = m->groups[VTB_TOPO_LLC][i].size;

		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	if (!hi)
		return vtb_asprintf("L%d x %zu, no sizes: %s gives none", m->llc_level, n,
				    h->source);
	if (!strncmp(h->source, "xml:", 4))
		from = "the hwloc XML file";
	else if (!strncmp(h->source, "synthetic:", 10))
		from = "the synthetic description";
	else if (h->local && access("/sys/devices/system/cpu/cpu0/cache", F_OK) != 0)
		from = "CPUID (hwloc: this kernel exposes no cache directories in sysfs)";
	else if (h->local)
		from = "sysfs (hwloc)";
	else
		from = "the capabilities' <cache> banks";
	l = vtb_format_size(lo);
	u = vtb_format_size(hi);
	if (!l || !u)
		s = NULL;
	else if (lo == hi)
		s = vtb_asprintf("L%d %s x %zu, from %s", m->llc_level, l, n, from);
	else
		s = vtb_asprintf("L%d %s-%s x %zu, from %s", m->llc_level, lo ? l : "?", u, n,
				 from);
	free(l);
	free(u);
	return s;
}

/* Everything derived from the model. */
static int host_finish(struct vtb_hosttopo *h)
{
	const struct vtb_topo *m = &h->model;
	size_t i;

	h->packages = (int)m->n_groups[VTB_TOPO_PKG];
	h->dies = (int)m->n_groups[VTB_TOPO_DIE];
	h->nodes = (int)m->n_nodes;
	h->llcs = (int)m->n_groups[VTB_TOPO_LLC];
	h->cores = (int)m->n_groups[VTB_TOPO_CORE];
	h->pus = (int)m->n_online;
	h->compact = calloc(m->n_online + 1, sizeof(int));
	if (!h->compact)
		return vtb_error("out of memory");
	for (i = 0; i < m->n_online; i++)
		if (m->pus[i].allowed)
			h->compact[h->n_compact++] = m->pus[i].os;
	if (!h->n_compact) {
		for (i = 0; i < m->n_online && !m->pus[i].nodeless; i++)
			;
		return vtb_error("host topology '%s' has no CPU we may use%s", h->source,
				 i < m->n_online
					 ? " (some are online but on no NUMA node we may take memory from)"
					 : "");
	}
	if (!h->hostname)
		h->hostname = strdup(h->source);
	h->summary = vtb_asprintf("%d %s, %d %s, %d %s, %d %s, %d %s", h->packages,
				  plural(h->packages, "package", "packages"), h->nodes,
				  plural(h->nodes, "node", "nodes"), h->llcs,
				  plural(h->llcs, "LLC", "LLCs"), h->cores,
				  plural(h->cores, "core", "cores"), h->pus,
				  plural(h->pus, "PU", "PUs"));
	h->llc_source = llc_source(h);
	if (!h->hostname || !h->summary || !h->llc_source)
		return vtb_error("out of memory");
	if (vtb_topo_digest(m, h->digest))
		return -1;
	h->ctx.host_cpus = (int)h->n_compact;
	h->ctx.host_nodes = h->nodes > 0 ? h->nodes : 1;
	h->ctx.host_llcs = h->llcs > 0 ? h->llcs : 1;
	h->ctx.compact = h->compact;
	h->ctx.n_compact = h->n_compact;
	for (i = 0; i < m->n_online; i++)
		if (m->pus[i].nodeless && vtb_cpuset_add(&h->ctx.nodeless, m->pus[i].os) < 0)
			return -1;
	h->ctx.llc_bytes = host_llc_bytes;
	h->ctx.mems_of = host_mems_of;
	h->ctx.model = &h->model;
	h->ctx.priv = h;
	return 0;
}

/* libxml2's last error as "line N: message" (no trailing newline). */
static char *xml_why(void)
{
	const xmlError *e = xmlGetLastError();
	char *s;
	size_t n;

	if (!e || !e->message)
		return strdup("not well-formed");
	s = vtb_asprintf("line %d: %s", e->line, e->message);
	n = s ? strlen(s) : 0;
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

static xmlDocPtr parse_xml(const char *text, size_t len, const char *name)
{
	xmlDocPtr doc;
	char *why;

	xmlResetLastError();
	doc = xmlReadMemory(text, (int)len, NULL, NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (doc && xmlDocGetRootElement(doc))
		return doc;
	xmlFreeDoc(doc);
	why = xml_why();
	vtb_error("%s is not well-formed XML (%s)", name, why ? why : "?");
	free(why);
	return NULL;
}

int vtb_hosttopo_load_caps(const char *xml, size_t len, const char *source,
			   struct vtb_hosttopo **out)
{
	struct vtb_hosttopo *h = calloc(1, sizeof(*h));
	xmlDocPtr doc = NULL;
	char *name = NULL;
	int ret = -1;

	if (!h)
		return vtb_error("out of memory");
	h->source = strdup(source);
	name = vtb_asprintf("capabilities XML '%s'", starts(source, "caps:") ? source + 5 : source);
	if (!h->source || !name) {
		vtb_error("out of memory");
		goto out;
	}
	doc = parse_xml(xml, len, name);
	if (!doc)
		goto out;
	if (xmlStrcmp(xmlDocGetRootElement(doc)->name, X("capabilities"))) {
		vtb_error("%s: the root element is <%s>, not <capabilities>", name,
			  (const char *)xmlDocGetRootElement(doc)->name);
		goto out;
	}
	if (model_from_caps(h, doc, name) || host_finish(h))
		goto out;
	*out = h;
	h = NULL;
	ret = 0;
out:
	xmlFreeDoc(doc);
	free(name);
	vtb_hosttopo_free(h);
	return ret;
}

/* The file's text; errors name it. */
static char *read_topo_file(const char *path)
{
	char *text = vtb_read_file(path, TOPO_FILE_MAX);

	if (!text)
		vtb_error("cannot read host topology file: %s", vtb_errmsg());
	return text;
}

static bool looks_like_path(const char *spec)
{
	size_t n = strlen(spec);

	return strchr(spec, '/') || (n > 4 && !strcasecmp(spec + n - 4, ".xml"));
}

/*
 * hwloc trusts the XML it imports: 2.9 dereferences NULL on a NUMA node
 * without complete_nodeset (found by fuzz_hosttopo), and a crafted file
 * must not crash vtbench.  So a file is first loaded by a child process,
 * which hands back hwloc's own export of what it read; only that export,
 * whole and consistent, is loaded here.  A malloc'ed copy (*@out_len
 * bytes), or NULL with vtb_error() naming the file.
 */
/*
 * What hwloc would spend minutes and gigabytes on: a PU or NUMA node
 * without os_index becomes index 2^32 - 1 (fuzz_hosttopo: 22 s, then out
 * of memory), and so do huge indexes and bitmaps.  Indexes below 2^20
 * (topo.c's bound), bitmaps in hwloc's syntax ("0xffffffff,0x0000000f")
 * that fit it.  0, or -1 naming the file and the line.
 */
#define HWLOC_MAX_OS (1 << 20)

static int hwloc_xml_bounded(xmlNodePtr n, const char *name)
{
	static const char *const sets[] = { "cpuset",	      "complete_cpuset", "allowed_cpuset",
					    "online_cpuset",  "nodeset",	 "complete_nodeset",
					    "allowed_nodeset" };

	for (; n; n = n->next) {
		xmlChar *type;
		bool index_needed;
		long long os;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!xmlStrcmp(n->name, X("object"))) {
			type = xmlGetProp(n, X("type"));
			index_needed = type && (!xmlStrcmp(type, X("PU")) ||
						!xmlStrcmp(type, X("NUMANode")));
			xmlFree(type);
			os = attr_num(n, "os_index");
			if (os == -2 || os >= HWLOC_MAX_OS || (os == -1 && index_needed))
				return vtb_error(
					"host topology file '%s':%ld: an object's os_index is missing or not below %d",
					name, xmlGetLineNo(n), HWLOC_MAX_OS);
			for (size_t i = 0; i < VTB_ARRAY_SIZE(sets); i++) {
				xmlChar *v = xmlGetProp(n, X(sets[i]));
				const char *c = (const char *)v;
				size_t words = 0;
				bool ok = true;

				/* hwloc_bitmap_snprintf(): 32-bit words "0x%08x", a zero
				 * word may be left empty ("0x0000ffff,,0x0000ffff"), an
				 * infinite set starts "0xf...f" */
				if (c && !strncmp(c, "0xf...f", 7))
					c += 7 + (c[7] == ',');
				while (c && *c && ok) {
					size_t hex = 0;

					if (c[0] == '0' && c[1] == 'x') {
						hex = strspn(c + 2, "0123456789abcdefABCDEF");
						ok = hex >= 1 && hex <= 8;
						c += 2 + hex;
					}
					ok = ok && ++words <= HWLOC_MAX_OS / 32 + 2 &&
					     (!*c || *c == ',');
					if (*c == ',' && !*++c)
						ok = false; /* a trailing comma */
				}
				xmlFree(v);
				if (!ok)
					return vtb_error(
						"host topology file '%s':%ld: %s is not an hwloc bitmap of CPUs below %d",
						name, xmlGetLineNo(n), sets[i], HWLOC_MAX_OS);
			}
		}
		if (hwloc_xml_bounded(n->children, name) < 0)
			return -1;
	}
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, (const char *)p + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

static char *hwloc_vetted(const char *xml, size_t len, const char *name, size_t *out_len)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int pfd[2], status, err = 0;
	char buf[65536];
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		vtb_error("cannot read hwloc XML '%s': pipe: %s", name, strerror(errno));
		return NULL;
	}
	pid = fork();
	if (pid < 0) {
		vtb_error("cannot read hwloc XML '%s': fork: %s", name, strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (pid == 0) {
		hwloc_topology_t t;
		char *out = NULL;
		int olen = 0, e = EINVAL;
		unsigned char ok = 0;

		close(pfd[0]);
		/* a crash ends this process quietly, whatever handlers it
		 * inherited (a sanitizer's, a fuzzer's): the parent says it */
		for (size_t i = 0; i < VTB_ARRAY_SIZE(fatal); i++)
			signal(fatal[i], SIG_DFL);
		/* a real topology loads in milliseconds: a runaway is ended */
		signal(SIGALRM, SIG_DFL);
		alarm(5);
		if (hwloc_topology_init(&t) == 0) {
			hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
			errno = 0;
			if (hwloc_topology_set_xmlbuffer(t, xml, (int)len + 1) == 0 &&
			    hwloc_topology_load(t) == 0 &&
			    hwloc_topology_export_xmlbuffer(t, &out, &olen, 0) == 0)
				ok = 1;
			else if (errno)
				e = errno;
		}
		/* a status byte, then the export (its NUL left out) or the errno */
		_exit(write_all(pfd[1], &ok, 1) || (ok ? write_all(pfd[1], out, (size_t)olen - 1)
						       : write_all(pfd[1], &e, sizeof(e)))
			      ? 3
			      : 0);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || sb.len > (64u << 20) || vtb_strbuf_add(&sb, buf, (size_t)n)) {
			err = n < 0 ? errno : ENOMEM;
			break;
		}
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!err && !sb.len) {
		/* died before saying anything (under ASan a crash is an exit) */
		vtb_error("hwloc crashed (%s %d) reading '%s': not hwloc XML that hwloc can load",
			  WIFSIGNALED(status) ? "signal" : "exit",
			  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), name);
	} else if (err || !WIFEXITED(status) || WEXITSTATUS(status)) {
		vtb_error("cannot read hwloc XML '%s': %s", name, strerror(err ? err : EIO));
	} else if (sb.buf[0] != 1) {
		memcpy(&err, sb.buf + 1, sb.len >= 1 + sizeof(err) ? sizeof(err) : 0);
		vtb_error("host topology file '%s' is not hwloc XML that hwloc can load%s%s", name,
			  err ? ": " : "", err ? strerror(err) : "");
	} else {
		char *x = malloc(sb.len);

		if (!x) {
			vtb_error("out of memory");
		} else {
			memcpy(x, sb.buf + 1, sb.len - 1);
			x[sb.len - 1] = '\0';
			*out_len = sb.len - 1;
		}
		vtb_strbuf_release(&sb);
		return x;
	}
	vtb_strbuf_release(&sb);
	return NULL;
}

/* hwloc sources: local, XML text, synthetic */
static int load_hwloc(struct vtb_hosttopo *h, const char *xml, size_t len, const char *synthetic)
{
	hwloc_topology_t t;
	cpu_set_t aff;

	if (hwloc_topology_init(&t) < 0)
		return vtb_error("hwloc_topology_init failed");
	h->topo = t;
	/* disallowed PUs (another cgroup's) are part of the machine: shown,
	 * in the digest, kept out of the compact order */
	hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	if (xml && hwloc_topology_set_xmlbuffer(t, xml, (int)len + 1) < 0)
		return vtb_error("cannot read hwloc XML '%s'", h->source + 4);
	if (synthetic && hwloc_topology_set_synthetic(t, synthetic) < 0)
		return vtb_error(
			"'%s' is neither a readable hwloc XML file nor a valid hwloc synthetic description (e.g. \"pack:2 l3:2(size=32MiB) core:4 pu:2\")",
			synthetic);
	errno = 0;
	if (hwloc_topology_load(t) < 0) {
		const char *why = errno ? strerror(errno) : NULL;

		if (xml)
			return vtb_error(
				"host topology file '%s' is not hwloc XML that hwloc can load%s%s",
				h->source + 4, why ? ": " : "", why ? why : "");
		return vtb_error("cannot load host topology '%s'%s%s", h->source, why ? ": " : "",
				 why ? why : "");
	}
	CPU_ZERO(&aff);
	if (h->local && sched_getaffinity(0, sizeof(aff), &aff) < 0)
		return vtb_error("sched_getaffinity: %s", strerror(errno));
	/* hwloc gives a synthetic node 1 GiB unless told: a guess, which the
	 * planner must not check guests against.  Unknown (0) in hwloc's
	 * objects too, so that an export says so as well. */
	if (synthetic && !strstr(synthetic, "memory=")) {
		hwloc_obj_t n = NULL;

		while ((n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n))) {
			n->attr->numanode.local_memory = 0;
			for (unsigned i = 0; i < n->attr->numanode.page_types_len; i++)
				n->attr->numanode.page_types[i].count = 0;
		}
	}
	if (model_from_hwloc(t, h->local ? &aff : NULL, &h->model))
		return vtb_error("host topology '%s': %s", h->source, vtb_errmsg());
	if (!h->local)
		identify_hwloc(h, t);
	return 0;
}

/* A sysfs counter; -1 when absent or not a number. */
static long long sysfs_count(const char *path)
{
	char *text = vtb_read_file(path, 64), *end;
	long long v;

	if (!text)
		return -1;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || end == text || v < 0 || (*end && *end != '\n'))
		v = -1;
	free(text);
	return v;
}

/* The free 2 MiB huge pages of each node of the local host: hwloc reads
 * the pools' sizes only.  A one-node host without per-node sysfs (no
 * CONFIG_NUMA) has the machine's counter. */
static void local_free_hugepages(struct vtb_topo *m)
{
	const char *fmt = "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/"
			  "free_hugepages";
	size_t i;

	for (i = 0; i < m->n_nodes; i++) {
		char *path = vtb_asprintf(fmt, m->nodes[i].os);
		long long v = path ? sysfs_count(path) : -1;

		if (v < 0 && m->n_nodes == 1)
			v = sysfs_count("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages");
		if (v < 0 && m->nodes[i].hugepages <= 0)
			v = 0; /* no pool (or no 2 MiB pages at all): nothing free */
		if (m->nodes[i].hugepages < 0)
			m->nodes[i].hugepages = 0;
		m->nodes[i].hugepages_free = v;
		free(path);
	}
}

static int load_local(struct vtb_hosttopo *h)
{
	struct utsname uts;
	char host[256];

	h->local = true;
	h->source = strdup("local");
	if (!h->source)
		return vtb_error("out of memory");
	if (load_hwloc(h, NULL, 0, NULL))
		return -1;
	local_free_hugepages(&h->model);
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		h->hostname = strdup(host);
	}
	if (uname(&uts) == 0)
		h->kernel = strdup(uts.release);
	identify_cpu(h);
	if (vtb_meminfo(NULL, NULL, &h->ctx.mem_available) < 0) {
		h->ctx.mem_available = 0; /* unknown: plans use the nodes' size */
		vtb_error_clear();
	}
	return 0;
}

/* A file: capabilities XML (root <capabilities>) or hwloc XML. */
static int load_file(struct vtb_hosttopo **out, struct vtb_hosttopo *h, const char *path, bool caps)
{
	char *text = read_topo_file(path), *name = NULL;
	xmlDocPtr doc = NULL;
	const char *root;
	size_t len;
	int ret = -1;

	if (!text)
		return -1;
	len = strlen(text);
	name = vtb_asprintf("host topology file '%s'", path);
	if (!name) {
		vtb_error("out of memory");
		goto out;
	}
	doc = parse_xml(text, len, name);
	if (!doc)
		goto out;
	root = (const char *)xmlDocGetRootElement(doc)->name;
	if (caps || !strcmp(root, "capabilities")) {
		char *src = vtb_asprintf("caps:%s", path);

		ret = src ? vtb_hosttopo_load_caps(text, len, src, out)
			  : vtb_error("out of memory");
		free(src);
		goto out;
	}
	if (strcmp(root, "topology")) {
		vtb_error(
			"%s: the root element is <%s>: expected hwloc XML (<topology>, `lstopo --of xml`) or libvirt capabilities XML (<capabilities>)",
			name, root);
		goto out;
	}
	h->source = vtb_asprintf("xml:%s", path);
	if (!h->source) {
		vtb_error("out of memory");
		goto out;
	}
	if (hwloc_xml_bounded(xmlDocGetRootElement(doc), path) < 0)
		goto out;
	{
		size_t vlen = 0;
		char *vetted = hwloc_vetted(text, len, path, &vlen);

		ret = !vetted || load_hwloc(h, vetted, vlen, NULL) || host_finish(h) ? -1 : 1;
		free(vetted);
	}
out:
	xmlFreeDoc(doc);
	free(name);
	free(text);
	return ret;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

/* "synthetic:DESCRIPTION" from FILE.synthetic: its first line that is
 * neither blank nor a '#' comment, its own '#' comment cut, trimmed; NULL
 * with vtb_error(). */
static char *synthetic_file(const char *path)
{
	char *text = vtb_read_file(path, 4096), *line, *save = NULL, *out = NULL;

	if (!text)
		return NULL;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t\r");
		if (!*line || *line == '#')
			continue;
		line[strcspn(line, "#\r")] = '\0'; /* a comment may end the line */
		while (*line && strchr(" \t", line[strlen(line) - 1]))
			line[strlen(line) - 1] = '\0';
		out = vtb_asprintf("synthetic:%s", line);
		if (!out)
			vtb_error("out of memory");
		break;
	}
	if (!line)
		vtb_error("%s: no synthetic description in the file", path);
	free(text);
	return out;
}

int vtb_hosttopo_load(const char *spec, struct vtb_hosttopo **out)
{
	struct vtb_hosttopo *h;
	struct stat st;
	int r;

	h = calloc(1, sizeof(*h));
	if (!h)
		return vtb_error("out of memory");
	if (!spec) {
		if (load_local(h) || host_finish(h))
			goto err;
	} else if (starts(spec, "libvirt:")) {
		vtb_error("'%s': a libvirt: source is fetched by the command layer", spec);
		goto err;
	} else if (!starts(spec, "caps:") && !starts(spec, "xml:") &&
		   ends_with(spec, ".synthetic")) {
		/* a file holding a synthetic description (topologies/hosts/) */
		h->source = synthetic_file(spec);
		if (!h->source)
			goto err;
		if (load_hwloc(h, NULL, 0, h->source + 10) || host_finish(h)) {
			char *why = vtb_strdup(vtb_errmsg());

			vtb_error("%s: %s", spec, why ? why : "out of memory");
			free(why);
			goto err;
		}
	} else if (starts(spec, "caps:") || starts(spec, "xml:") || stat(spec, &st) == 0 ||
		   looks_like_path(spec)) {
		const char *path = starts(spec, "caps:")  ? spec + 5
				   : starts(spec, "xml:") ? spec + 4
							  : spec;

		/* 0: loaded as capabilities into *out; 1: into h */
		r = load_file(out, h, path, starts(spec, "caps:"));
		if (r < 0)
			goto err;
		if (r == 0) {
			vtb_hosttopo_free(h);
			return 0;
		}
	} else {
		h->source = vtb_asprintf("synthetic:%s", spec);
		if (!h->source) {
			vtb_error("out of memory");
			goto err;
		}
		if (load_hwloc(h, NULL, 0, spec) || host_finish(h))
			goto err;
	}
	*out = h;
	return 0;
err:
	vtb_hosttopo_free(h);
	return -1;
}

void vtb_hosttopo_free(struct vtb_hosttopo *h)
{
	if (!h)
		return;
	if (h->topo)
		hwloc_topology_destroy(h->topo);
	vtb_topo_release(&h->model);
	free(h->source);
	free(h->hostname);
	free(h->kernel);
	free(h->cpu_vendor);
	free(h->cpu_model_name);
	free(h->cpu_codename);
	free(h->compact);
	vtb_cpuset_release(&h->ctx.nodeless);
	free(h->summary);
	free(h->llc_source);
	free(h);
}

/* ---- export ------------------------------------------------------------- */

/*
 * hwloc XML built from the model (capabilities sources), loaded back by
 * hwloc so that hwloc's exporter writes it.  The tree: Machine, packages,
 * dies (when the source named them), LLCs, L2s, cores, PUs, nested by
 * their PU sets; each NUMA node is a memory child of the object with the
 * same PU set, or of a Group made for it (several nodes in one LLC, or
 * one node over several LLCs), as hwloc itself builds them.
 */
struct xobj {
	const char *type;
	int rank; /* among objects with equal PU sets: outer first */
	int os;
	uint64_t size;
	int depth; /* caches */
	hwloc_bitmap_t set;
	int first;			  /* lowest PU */
	int parent;			  /* index in the array, -1 for the machine */
	const struct vtb_topo_node *node; /* NUMANode */
	int memparent;			  /* NUMANode: the object it hangs on */
};

struct xtree {
	struct xobj *o;
	size_t n;
};

static int xobj_add(struct xtree *x, const char *type, int rank, int os,
		    const struct vtb_cpuset *pus)
{
	struct xobj *o = realloc(x->o, (x->n + 1) * sizeof(*o));
	size_t i;

	if (!o)
		return vtb_error("out of memory");
	x->o = o;
	o = &o[x->n];
	memset(o, 0, sizeof(*o));
	o->type = type;
	o->rank = rank;
	o->os = os;
	o->parent = -1;
	o->memparent = -1;
	o->set = hwloc_bitmap_alloc();
	if (!o->set)
		return vtb_error("out of memory");
	for (i = 0; i < pus->n; i++)
		hwloc_bitmap_set(o->set, (unsigned)pus->cpus[i]);
	o->first = pus->n ? pus->cpus[0] : -1;
	x->n++;
	return 0;
}

static int xobj_cmp(const void *a, const void *b)
{
	const struct xobj *x = a, *y = b;
	int wx = hwloc_bitmap_weight(x->set), wy = hwloc_bitmap_weight(y->set);

	if (wx != wy)
		return wy - wx;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->first - y->first;
}

static void set_attr(xmlNodePtr n, const char *name, const char *v, bool *failed)
{
	if (!xmlNewProp(n, X(name), X(v)))
		*failed = true;
}

static void set_num(xmlNodePtr n, const char *name, unsigned long long v, bool *failed)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", v);
	set_attr(n, name, buf, failed);
}

static void set_bitmap(xmlNodePtr n, const char *name, hwloc_const_bitmap_t b, bool *failed)
{
	char *s = NULL;

	if (hwloc_bitmap_asprintf(&s, b) < 0 || !s) {
		*failed = true;
		return;
	}
	set_attr(n, name, s, failed);
	free(s);
}

/* nodeset of an object: the nodes its PUs are in (all for the machine) */
static void nodeset_of(const struct vtb_topo *m, hwloc_const_bitmap_t set, bool all,
		       hwloc_bitmap_t out)
{
	size_t i, j;

	hwloc_bitmap_zero(out);
	for (i = 0; i < m->n_nodes; i++) {
		bool in = all;

		for (j = 0; !in && j < m->nodes[i].pus.n; j++)
			in = hwloc_bitmap_isset(set, (unsigned)m->nodes[i].pus.cpus[j]);
		if (in)
			hwloc_bitmap_set(out, (unsigned)m->nodes[i].os);
	}
}

static void emit_obj(const struct vtb_hosttopo *h, const struct xtree *x, int idx,
		     xmlNodePtr parent, hwloc_const_bitmap_t machine, bool *failed);

static int cmp_first(const void *a, const void *b, void *arg)
{
	const struct xtree *x = arg;
	int fa = x->o[*(const int *)a].first, fb = x->o[*(const int *)b].first;

	return (fa > fb) - (fa < fb);
}

/* memory children first, then the others by their lowest PU, as hwloc
 * orders them */
static void emit_children(const struct vtb_hosttopo *h, const struct xtree *x, int idx,
			  xmlNodePtr e, hwloc_const_bitmap_t machine, bool *failed)
{
	int *kids = calloc(x->n + 1, sizeof(int));
	size_t i, n = 0;

	if (!kids) {
		*failed = true;
		return;
	}
	for (i = 0; i < x->n; i++)
		if (x->o[i].node && x->o[i].memparent == idx)
			emit_obj(h, x, (int)i, e, machine, failed);
	for (i = 0; i < x->n; i++)
		if (!x->o[i].node && x->o[i].parent == idx)
			kids[n++] = (int)i;
	qsort_r(kids, n, sizeof(int), cmp_first, (void *)x);
	for (i = 0; i < n; i++)
		emit_obj(h, x, kids[i], e, machine, failed);
	free(kids);
}

static void emit_obj(const struct vtb_hosttopo *h, const struct xtree *x, int idx,
		     xmlNodePtr parent, hwloc_const_bitmap_t machine, bool *failed)
{
	const struct xobj *o = idx < 0 ? NULL : &x->o[idx];
	const struct vtb_topo *m = &h->model;
	hwloc_bitmap_t ns = hwloc_bitmap_alloc();
	xmlNodePtr e = xmlNewChild(parent, NULL, X("object"), NULL);
	hwloc_const_bitmap_t set = !o		       ? machine
				   : !o->node	       ? o->set
				   : o->memparent >= 0 ? x->o[o->memparent].set
						       : machine;

	if (!e || !ns) {
		*failed = true;
		hwloc_bitmap_free(ns);
		return;
	}
	set_attr(e, "type", o ? o->type : "Machine", failed);
	if (!o || o->os >= 0)
		set_num(e, "os_index", o ? (unsigned long long)o->os : 0ULL, failed);
	set_bitmap(e, "cpuset", set, failed);
	if (!o) {
		hwloc_bitmap_t complete = hwloc_bitmap_dup(machine), allowed = hwloc_bitmap_alloc();
		size_t i;

		for (i = 0; complete && allowed && i < m->n_pus; i++) {
			hwloc_bitmap_set(complete, (unsigned)m->pus[i].os);
			if (m->pus[i].allowed)
				hwloc_bitmap_set(allowed, (unsigned)m->pus[i].os);
		}
		if (!complete || !allowed)
			*failed = true;
		else {
			set_bitmap(e, "complete_cpuset", complete, failed);
			set_bitmap(e, "allowed_cpuset", allowed, failed);
		}
		hwloc_bitmap_free(complete);
		hwloc_bitmap_free(allowed);
	} else {
		set_bitmap(e, "complete_cpuset", set, failed);
	}
	if (o && o->node)
		hwloc_bitmap_only(ns, (unsigned)o->node->os);
	else
		nodeset_of(m, set, !o, ns);
	set_bitmap(e, "nodeset", ns, failed);
	set_bitmap(e, "complete_nodeset", ns, failed);
	if (!o)
		set_bitmap(e, "allowed_nodeset", ns, failed);
	hwloc_bitmap_free(ns);
	if (o && o->node)
		set_num(e, "local_memory", o->node->memory, failed);
	if (o && o->node && o->node->normal) {
		xmlNodePtr pt = xmlNewChild(e, NULL, X("page_type"), NULL);

		if (!pt)
			*failed = true;
		else {
			set_num(pt, "size", 4096, failed);
			set_num(pt, "count", o->node->normal / 4096, failed);
		}
		pt = o->node->hugepages >= 0 ? xmlNewChild(e, NULL, X("page_type"), NULL) : NULL;
		if (o->node->hugepages >= 0 && !pt)
			*failed = true;
		else if (pt) {
			set_num(pt, "size", VTB_TOPO_HUGEPAGE, failed);
			set_num(pt, "count", (unsigned long long)o->node->hugepages, failed);
		}
	}
	if (o && o->depth > 0) {
		set_num(e, "cache_size", o->size, failed);
		set_num(e, "depth", (unsigned long long)o->depth, failed);
		set_num(e, "cache_linesize", 64, failed);
		set_num(e, "cache_associativity", 0, failed);
		set_num(e, "cache_type", 0, failed);
	}
	if (o && !strcmp(o->type, "Package")) {
		xmlNodePtr i;
		char buf[16];

		if (h->cpu_vendor && (i = xmlNewChild(e, NULL, X("info"), NULL))) {
			set_attr(i, "name", "CPUVendor", failed);
			set_attr(i, "value", h->cpu_vendor, failed);
		}
		if (h->cpu_vendor && (i = xmlNewChild(e, NULL, X("info"), NULL))) {
			snprintf(buf, sizeof(buf), "%d", h->cpu_family);
			set_attr(i, "name", "CPUFamilyNumber", failed);
			set_attr(i, "value", buf, failed);
		}
		if (h->cpu_vendor && (i = xmlNewChild(e, NULL, X("info"), NULL))) {
			snprintf(buf, sizeof(buf), "%d", h->cpu_model);
			set_attr(i, "name", "CPUModelNumber", failed);
			set_attr(i, "value", buf, failed);
		}
	}
	if (!o || !o->node)
		emit_children(h, x, idx, e, machine, failed);
}

static void xtree_release(struct xtree *x)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		hwloc_bitmap_free(x->o[i].set);
	free(x->o);
}

/* The model's packages, dies, caches and cores as hwloc objects */
static int xtree_groups(struct xtree *x, const struct vtb_topo *m)
{
	static const struct {
		enum vtb_topo_level level;
		const char *type;
		int rank;
	} kinds[] = {
		{ VTB_TOPO_PKG, "Package", 0 }, { VTB_TOPO_DIE, "Die", 1 },
		{ VTB_TOPO_LLC, NULL, 3 },	{ VTB_TOPO_L2, "L2Cache", 4 },
		{ VTB_TOPO_CORE, "Core", 5 },
	};
	size_t i, k;

	for (k = 0; k < VTB_ARRAY_SIZE(kinds); k++) {
		enum vtb_topo_level l = kinds[k].level;
		const char *type = kinds[k].type;

		if (l == VTB_TOPO_LLC)
			type = m->llc_level == 3   ? "L3Cache"
			       : m->llc_level == 2 ? "L2Cache"
						   : "L1Cache";
		if (l == VTB_TOPO_L2 && m->llc_level == 2)
			continue;
		for (i = 0; i < m->n_groups[l]; i++) {
			const struct vtb_topo_group *g = &m->groups[l][i];

			/* dies the source did not name are the packages */
			if (l == VTB_TOPO_DIE && g->os < 0)
				continue;
			if (xobj_add(x, type, kinds[k].rank, g->os, &g->pus))
				return -1;
			x->o[x->n - 1].size = g->size;
			if (l == VTB_TOPO_LLC)
				x->o[x->n - 1].depth = m->llc_level;
			if (l == VTB_TOPO_L2)
				x->o[x->n - 1].depth = 2;
		}
	}
	for (i = 0; i < m->n_online; i++) {
		struct vtb_cpuset one = { (int *)&m->pus[i].os, 1 };

		if (xobj_add(x, "PU", 6, m->pus[i].os, &one))
			return -1;
	}
	return 0;
}

/* NUMA nodes, and a Group for a node no object matches */
static int xtree_nodes(struct xtree *x, const struct vtb_topo *m, hwloc_const_bitmap_t machine)
{
	for (size_t i = 0; i < m->n_nodes; i++) {
		const struct vtb_topo_node *nd = &m->nodes[i];
		struct vtb_cpuset all = { NULL, 0 };
		bool match = false;
		size_t j;

		if (nd->pus.n) {
			hwloc_bitmap_t s = hwloc_bitmap_alloc();

			if (!s)
				return vtb_error("out of memory");
			for (j = 0; j < nd->pus.n; j++)
				hwloc_bitmap_set(s, (unsigned)nd->pus.cpus[j]);
			for (j = 0; j < x->n && !match; j++)
				match = !x->o[j].node && hwloc_bitmap_isequal(x->o[j].set, s);
			match = match || hwloc_bitmap_isequal(s, machine);
			hwloc_bitmap_free(s);
			if (!match && xobj_add(x, "Group", 2, -1, &nd->pus))
				return -1;
		}
		if (xobj_add(x, "NUMANode", 7, nd->os, nd->pus.n ? &nd->pus : &all))
			return -1;
		x->o[x->n - 1].node = nd;
	}
	return 0;
}

/* Sorts the objects and links each to its parent: the last object
 * before it in this order that holds its PUs (the smallest one); a node
 * hangs on the object with its set. */
static int xtree_link(struct xtree *x)
{
	qsort(x->o, x->n, sizeof(*x->o), xobj_cmp);
	for (size_t i = 0; i < x->n; i++) {
		struct xobj *o = &x->o[i];
		size_t j;

		if (o->node) {
			o->memparent = -1;
			if (!o->node->pus.n)
				continue;
			for (j = i; j-- > 0;) {
				if (!x->o[j].node && hwloc_bitmap_isequal(x->o[j].set, o->set)) {
					o->memparent = (int)j;
					break;
				}
			}
			continue;
		}
		for (j = i; j-- > 0;) {
			if (x->o[j].node)
				continue;
			if (hwloc_bitmap_isincluded(o->set, x->o[j].set)) {
				o->parent = (int)j;
				break;
			}
			if (hwloc_bitmap_intersects(o->set, x->o[j].set))
				return vtb_error(
					"cannot build an hwloc topology: %s %d and %s %d overlap without nesting",
					o->type, o->first, x->o[j].type, x->o[j].first);
		}
	}
	return 0;
}

/* The node distances, as hwloc 2 writes them */
static void emit_distances(xmlNodePtr top, const struct vtb_topo *m, bool *failed)
{
	xmlNodePtr d = xmlNewChild(top, NULL, X("distances2"), NULL), c;
	struct vtb_strbuf idx = VTB_STRBUF_INIT, val = VTB_STRBUF_INIT;
	size_t i;

	if (!d) {
		*failed = true;
		return;
	}
	set_attr(d, "type", "NUMANode", failed);
	set_num(d, "nbobjs", m->n_nodes, failed);
	set_num(d, "kind", HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_LATENCY,
		failed);
	set_attr(d, "name", "NUMALatency", failed);
	set_attr(d, "indexing", "os", failed);
	for (i = 0; i < m->n_nodes; i++)
		*failed |= vtb_strbuf_addf(&idx, "%d ", m->nodes[i].os) != 0;
	for (i = 0; i < m->n_nodes * m->n_nodes; i++)
		*failed |= vtb_strbuf_addf(&val, "%u ", m->distances[i]) != 0;
	c = xmlNewTextChild(d, NULL, X("indexes"), X(vtb_strbuf_str(&idx)));
	if (c)
		set_num(c, "length", idx.len, failed);
	c = c ? xmlNewTextChild(d, NULL, X("u64values"), X(vtb_strbuf_str(&val))) : NULL;
	if (c)
		set_num(c, "length", val.len, failed);
	*failed |= !c;
	vtb_strbuf_release(&idx);
	vtb_strbuf_release(&val);
}

static char *model_hwloc_xml(const struct vtb_hosttopo *h)
{
	const struct vtb_topo *m = &h->model;
	struct xtree x = { 0 };
	hwloc_bitmap_t machine = hwloc_bitmap_alloc();
	xmlDocPtr doc = NULL;
	xmlNodePtr top;
	xmlChar *buf = NULL;
	char *ret = NULL;
	bool failed = false;
	int size = 0;

	if (!machine)
		goto oom;
	for (size_t i = 0; i < m->n_online; i++)
		hwloc_bitmap_set(machine, (unsigned)m->pus[i].os);
	if (xtree_groups(&x, m) || xtree_nodes(&x, m, machine) || xtree_link(&x))
		goto out;
	doc = xmlNewDoc(X("1.0"));
	top = doc ? xmlNewNode(NULL, X("topology")) : NULL;
	if (!top)
		goto oom;
	xmlDocSetRootElement(doc, top);
	set_attr(top, "version", "2.0", &failed);
	emit_obj(h, &x, -1, top, machine, &failed);
	if (m->distances && m->n_nodes)
		emit_distances(top, m, &failed);
	if (failed)
		goto oom;
	xmlDocDumpMemoryEnc(doc, &buf, &size, "UTF-8");
	ret = buf ? strdup((const char *)buf) : NULL;
	if (!ret)
		goto oom;
	goto out;
oom:
	vtb_error("out of memory");
out:
	xmlFree(buf);
	xmlFreeDoc(doc);
	hwloc_bitmap_free(machine);
	xtree_release(&x);
	return ret;
}

int vtb_hosttopo_export_xml(const struct vtb_hosttopo *h, const char *path,
			    const struct vtb_out_input *inputs, char **note)
{
	hwloc_topology_t t = h->topo, built = NULL;
	struct vtb_topo check = { 0 };
	char *xml = NULL, *buf = NULL, digest[65];
	int len = 0, ret = -2, e;

	if (!t) {
		xml = model_hwloc_xml(h);
		if (!xml)
			return -2;
		if (hwloc_topology_init(&built) < 0) {
			vtb_error("hwloc_topology_init failed");
			goto out;
		}
		hwloc_topology_set_flags(built, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
		if (hwloc_topology_set_xmlbuffer(built, xml, (int)strlen(xml) + 1) < 0 ||
		    hwloc_topology_load(built) < 0) {
			vtb_error("hwloc refuses the topology built from '%s'", h->source);
			goto out;
		}
		if (model_from_hwloc(built, NULL, &check) || vtb_topo_digest(&check, digest))
			goto out;
		if (strcmp(digest, h->digest)) {
			vtb_error(
				"cannot express the topology of '%s' in hwloc XML: its shape would change",
				h->source);
			goto out;
		}
		t = built;
	}
	ret = -1;
	if (hwloc_topology_export_xmlbuffer(t, &buf, &len, 0) < 0 || !buf || len < 1) {
		vtb_error("hwloc cannot export the topology of '%s'", h->source);
		errno = ENOMEM;
		goto out;
	}
	ret = vtb_outfile_write(path, 0, inputs, buf, strlen(buf), note);
	if (ret == VTB_OUT_EINPUT)
		ret = -2;
out:
	e = errno;
	if (buf)
		hwloc_free_xmlbuffer(t, buf);
	if (built)
		hwloc_topology_destroy(built);
	vtb_topo_release(&check);
	free(xml);
	errno = e; /* the caller tells a bad path from a full disk */
	return ret;
}
