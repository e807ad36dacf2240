/* SPDX-License-Identifier: MIT */
/*
 * The host topology model: hwloc synthetic strings, the hwloc XML and
 * capabilities XML fixtures of tests/fixtures/topo (see gen.py there):
 * OS numbers of siblings 64 apart, offline CPUs, sub-NUMA clusters, an L3
 * per 4-core CCX; the capabilities parser against the equivalent hwloc
 * input; the export round trip; malformed inputs.  Never this machine.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/host/hosttopo.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

static char *fixture(const char *name)
{
	const char *src = getenv("SRCDIR");
	char *p = vtb_asprintf("%s/tests/fixtures/topo/%s", src ? src : ".", name);

	cr_assert(p);
	return p;
}

static struct vtb_hosttopo *load(const char *spec)
{
	struct vtb_hosttopo *h = NULL;

	cr_assert_eq(vtb_hosttopo_load(spec, &h), 0, "load '%s': %s", spec, vtb_errmsg());
	cr_assert_not_null(h);
	return h;
}

static struct vtb_hosttopo *load_fixture(const char *name, const char *prefix)
{
	char *path = fixture(name), *spec = vtb_asprintf("%s%s", prefix, path);
	struct vtb_hosttopo *h = load(spec);

	free(path);
	free(spec);
	return h;
}

/* "0,64" etc. */
static void expect_set(const struct vtb_cpuset *s, const char *want, const char *what)
{
	char *got;

	cr_assert_not_null(s, "%s: no set", what);
	got = vtb_cpuset_format(s);
	cr_expect_str_eq(got, want, "%s: got %s, want %s", what, got, want);
	free(got);
}

static void expect_load_error(const char *spec, const char *want)
{
	struct vtb_hosttopo *h = NULL;

	cr_assert_eq(vtb_hosttopo_load(spec, &h), -1, "'%s' loaded", spec);
	cr_assert_null(h);
	cr_expect(strstr(vtb_errmsg(), want), "error '%s' lacks '%s'", vtb_errmsg(), want);
}

static char *write_tmp(const char *text)
{
	char path[] = "/tmp/vtbtopo.XXXXXX";
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return strdup(path);
}

Test(hosttopo, synthetic_keeps_hwloc_order_and_answers_the_matrix)
{
	struct vtb_hosttopo *h = load("pack:2 l3:2(size=32MiB) core:4 pu:2");
	struct vtb_cpuset cpus = { NULL, 0 };
	uint64_t bytes = 0;
	char *mems;
	size_t i;

	cr_expect_str_eq(h->summary, "2 packages, 1 node, 4 LLCs, 16 cores, 32 PUs");
	cr_expect_str_eq(h->source, "synthetic:pack:2 l3:2(size=32MiB) core:4 pu:2");
	cr_expect_eq(h->n_compact, 32);
	for (i = 0; i < h->n_compact; i++)
		cr_expect_eq(h->compact[i], (int)i);
	cr_expect_eq(h->dies, 2, "no dies in the source: one per package");
	cr_expect_eq(h->model.llc_level, 3);
	cr_expect_eq(h->ctx.host_llcs, 4);
	vtb_cpuset_parse("0-1", &cpus);
	cr_assert_eq(h->ctx.llc_bytes(&h->ctx, &cpus, &bytes), 0);
	cr_expect_eq(bytes, 32 * MIB);
	vtb_cpuset_release(&cpus);
	vtb_cpuset_parse("0,8,16", &cpus);
	cr_assert_eq(h->ctx.llc_bytes(&h->ctx, &cpus, &bytes), 0);
	cr_expect_eq(bytes, 3 * 32 * MIB, "three distinct LLCs");
	mems = h->ctx.mems_of(&h->ctx, &cpus);
	cr_expect_str_eq(mems, "0");
	free(mems);
	vtb_cpuset_release(&cpus);
	vtb_cpuset_parse("99", &cpus);
	cr_expect_eq(h->ctx.llc_bytes(&h->ctx, &cpus, &bytes), -1);
	cr_expect_str_eq(vtb_errmsg(), "CPU 99 is not in the host topology");
	vtb_cpuset_release(&cpus);
	vtb_hosttopo_free(h);
}

Test(hosttopo, synthetic_without_caches_says_so)
{
	struct vtb_hosttopo *h = load("pack:1 core:2 pu:1");
	struct vtb_cpuset cpus = { NULL, 0 };
	uint64_t bytes;

	cr_expect_eq(h->llcs, 0);
	cr_expect_eq(h->ctx.host_llcs, 1);
	vtb_cpuset_parse("0", &cpus);
	cr_expect_eq(h->ctx.llc_bytes(&h->ctx, &cpus, &bytes), -1);
	cr_expect(strstr(vtb_errmsg(), "has no cache information"));
	vtb_cpuset_release(&cpus);
	vtb_hosttopo_free(h);
}

/* Node memory comes into the model from every source, and what a source
 * does not give is unknown, never hwloc's 1 GiB guess for a synthetic
 * node. */
Test(hosttopo, node_memory_and_huge_pages_from_every_source)
{
	static const char *const nocache[][2] = { { "nocache-2s.xml", "" },
						  { "nocache-2s.caps.xml", "caps:" } };
	struct vtb_hosttopo *h;
	uint64_t bytes;
	bool free_known;
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(nocache); i++) {
		h = load_fixture(nocache[i][0], nocache[i][1]);
		cr_assert_eq(h->model.n_nodes, 2);
		cr_expect_eq(h->model.nodes[0].memory, 16 * GIB);
		/* the pool is carved out of the node: 2 GiB of 16 */
		cr_expect_eq(h->model.nodes[0].normal, 14 * GIB, "%s", nocache[i][0]);
		cr_expect_eq(h->model.nodes[0].hugepages, 1024);
		cr_expect_eq(h->model.nodes[1].hugepages, 0);
		cr_expect_eq(h->model.nodes[0].hugepages_free, -1, "only the local host knows");
		cr_expect(vtb_topo_node_capacity(&h->model, 0, false, &bytes, &free_known));
		cr_expect_eq(bytes, 14 * GIB);
		cr_expect(vtb_topo_node_capacity(&h->model, 0, true, &bytes, &free_known));
		cr_expect_eq(bytes, 2 * GIB, "the pool, for want of the free count");
		cr_expect_not(free_known);
		cr_expect(vtb_topo_node_capacity(&h->model, 1, true, &bytes, &free_known));
		cr_expect_eq(bytes, 0, "no pool: no huge pages");
		cr_expect_eq(h->model.llc_level, 0, "no caches in the description");
		vtb_hosttopo_free(h);
	}
	h = load("pack:2 numa:1(memory=8GiB) core:2 pu:1");
	cr_expect_eq(h->model.nodes[1].memory, 8 * GIB);
	cr_expect(vtb_topo_node_capacity(&h->model, 1, false, &bytes, NULL));
	cr_expect_eq(bytes, 8 * GIB);
	vtb_hosttopo_free(h);
	h = load("pack:2 numa:1 core:2 pu:1");
	cr_expect_eq(h->model.nodes[0].memory, 0, "hwloc's default is a guess, not memory");
	cr_expect_not(vtb_topo_node_capacity(&h->model, 0, false, &bytes, NULL));
	cr_expect_not(vtb_topo_node_capacity(&h->model, 0, true, &bytes, NULL));
	vtb_hosttopo_free(h);
}

Test(hosttopo, epyc_siblings_are_64_apart_and_llc_is_the_ccx)
{
	struct vtb_hosttopo *h = load_fixture("epyc-rome-nps4.xml", "");
	const struct vtb_topo *m = &h->model;
	const struct vtb_topo_pu *p;
	struct vtb_cpuset cpus = { NULL, 0 }, nodes;
	uint64_t bytes;
	size_t i;

	cr_expect_str_eq(h->summary, "1 package, 4 nodes, 16 LLCs, 64 cores, 128 PUs");
	cr_expect_str_eq(h->cpu_vendor, "AuthenticAMD");
	cr_expect_eq(h->cpu_family, 23);
	cr_expect_eq(h->cpu_model, 49);
	cr_expect_str_eq(h->cpu_model_name, "AMD EPYC 7702P 64-Core Processor");
	/* compact: 0,64,1,65,...: siblings first, never assumed adjacent */
	cr_assert_eq(h->n_compact, 128);
	for (i = 0; i < 128; i++)
		cr_expect_eq(h->compact[i], (int)(i / 2 + (i % 2) * 64), "compact[%zu]", i);
	expect_set(vtb_topo_pus_of(m, VTB_TOPO_CORE, 0), "0,64", "siblings of 0");
	expect_set(vtb_topo_pus_of(m, VTB_TOPO_CORE, 70), "6,70", "siblings of 70");
	expect_set(vtb_topo_pus_of(m, VTB_TOPO_LLC, 5), "4-7,68-71", "CCX of 5");
	expect_set(vtb_topo_pus_of(m, VTB_TOPO_L2, 65), "1,65", "L2 of 65");
	cr_expect_eq(m->n_groups[VTB_TOPO_LLC], 16);
	for (i = 0; i < 16; i++)
		cr_expect_eq(m->groups[VTB_TOPO_LLC][i].size, 16 * MIB);
	cr_expect_eq(m->groups[VTB_TOPO_L2][0].size, 512 * 1024);
	/* NPS4: 4 nodes in one package, 4 CCXs each */
	cr_assert_eq(m->n_nodes, 4);
	expect_set(&m->nodes[1].pus, "16-31,80-95", "node 1");
	cr_expect_eq(m->nodes[3].memory, 64 * GIB);
	cr_expect_eq(vtb_topo_distance(m, 0, 0), 10);
	cr_expect_eq(vtb_topo_distance(m, 0, 3), 12);
	p = vtb_topo_pu_by_os(m, 80);
	cr_assert_not_null(p);
	cr_expect_eq(p->node, 1);
	cr_expect_eq(p->llc, 4);
	cr_expect_eq(p->core, 16);
	cr_expect_eq(p->pkg, 0);
	vtb_cpuset_parse("0-7", &cpus);
	cr_assert_eq(vtb_topo_llc_bytes(m, &cpus, &bytes), 0);
	cr_expect_eq(bytes, 32 * MIB, "two CCXs");
	vtb_cpuset_release(&cpus);
	vtb_cpuset_parse("0,16,127", &cpus);
	cr_assert_eq(vtb_topo_nodes_of(m, &cpus, &nodes), 0);
	expect_set(&nodes, "0-1,3", "nodes of 0,16,127");
	vtb_cpuset_release(&nodes);
	vtb_cpuset_release(&cpus);
	vtb_hosttopo_free(h);
}

Test(hosttopo, xeon_offline_cpus_are_shown_but_never_allowed)
{
	struct vtb_hosttopo *h = load_fixture("xeon-2s-snc2.xml", "");
	const struct vtb_topo *m = &h->model;
	const struct vtb_topo_pu *p;
	size_t i;

	cr_expect_str_eq(h->summary, "2 packages, 4 nodes, 2 LLCs, 12 cores, 22 PUs");
	cr_expect_eq(m->n_pus, 24);
	cr_expect_eq(m->n_online, 22);
	cr_expect_eq(h->n_compact, 22);
	for (i = 0; i < h->n_compact; i++)
		cr_expect(h->compact[i] != 17 && h->compact[i] != 23, "offline CPU in compact");
	p = vtb_topo_pu_by_os(m, 17);
	cr_assert_not_null(p);
	cr_expect(!p->online && !p->allowed);
	cr_expect_eq(p->core, -1);
	cr_expect_eq(p->node, -1);
	/* the offline ones come last */
	cr_expect_eq(m->pus[22].os, 17);
	cr_expect_eq(m->pus[23].os, 23);
	expect_set(vtb_topo_pus_of(m, VTB_TOPO_CORE, 5), "5", "core of 5, sibling 17 offline");
	expect_set(vtb_topo_pus_of(m, VTB_TOPO_CORE, 0), "0,12", "siblings 12 apart");
	cr_expect_null(vtb_topo_pus_of(m, VTB_TOPO_CORE, 17));
	vtb_hosttopo_free(h);
}

Test(hosttopo, xeon_snc_puts_two_nodes_under_one_llc)
{
	struct vtb_hosttopo *h = load_fixture("xeon-2s-snc2.xml", "");
	const struct vtb_topo *m = &h->model;
	static const int want[] = { 0, 12, 1, 13, 2, 14, 3, 15, 4,  16, 5,
				    6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11 };
	struct vtb_cpuset cpus = { NULL, 0 }, nodes;
	size_t i;

	cr_assert_eq(h->n_compact, VTB_ARRAY_SIZE(want));
	for (i = 0; i < VTB_ARRAY_SIZE(want); i++)
		cr_expect_eq(h->compact[i], want[i], "compact[%zu]", i);
	cr_expect_eq(m->n_nodes, 4);
	cr_expect_eq(m->n_groups[VTB_TOPO_LLC], 2);
	expect_set(vtb_topo_pus_of(m, VTB_TOPO_LLC, 3), "0-5,12-16", "L3 of package 0");
	expect_set(&m->nodes[0].pus, "0-2,12-14", "node 0");
	expect_set(&m->nodes[1].pus, "3-5,15-16", "node 1");
	cr_assert_eq(vtb_topo_nodes_of(m, vtb_topo_pus_of(m, VTB_TOPO_LLC, 0), &nodes), 0);
	expect_set(&nodes, "0-1", "the LLC spans two nodes");
	vtb_cpuset_release(&nodes);
	cr_expect_eq(vtb_topo_distance(m, 0, 1), 11);
	cr_expect_eq(vtb_topo_distance(m, 1, 2), 21);
	/* core ids have gaps (0,1,2,8,9,10); indexes do not */
	cr_expect_eq(m->groups[VTB_TOPO_CORE][3].os, 8);
	cr_expect_eq(vtb_topo_pu_by_os(m, 3)->core, 3);
	cr_expect_eq(vtb_topo_pu_by_os(m, 18)->pkg, 1);
	vtb_cpuset_parse("0,6", &cpus);
	cr_expect_eq(vtb_topo_llc_bytes(m, &cpus, &(uint64_t){ 0 }), 0);
	vtb_cpuset_release(&cpus);
	vtb_hosttopo_free(h);
}

static bool same_sets(const struct vtb_cpuset *a, const struct vtb_cpuset *b)
{
	return a->n == b->n && !memcmp(a->cpus, b->cpus, a->n * sizeof(int));
}

/* Two models of one machine: same online PUs in the same order, same
 * groups at every level the capabilities give, same nodes. */
static void expect_same_model(const struct vtb_hosttopo *a, const struct vtb_hosttopo *b)
{
	static const enum vtb_topo_level levels[] = { VTB_TOPO_CORE, VTB_TOPO_LLC, VTB_TOPO_DIE,
						      VTB_TOPO_PKG };
	const struct vtb_topo *x = &a->model, *y = &b->model;
	size_t i, k;

	cr_expect_str_eq(a->digest, b->digest, "digests differ: %s vs %s", a->source, b->source);
	cr_expect_str_eq(a->summary, b->summary);
	cr_assert_eq(a->n_compact, b->n_compact);
	for (i = 0; i < a->n_compact; i++)
		cr_expect_eq(a->compact[i], b->compact[i], "compact[%zu]", i);
	for (k = 0; k < VTB_ARRAY_SIZE(levels); k++) {
		enum vtb_topo_level l = levels[k];

		cr_assert_eq(x->n_groups[l], y->n_groups[l], "%s count", vtb_topo_level_name(l));
		for (i = 0; i < x->n_groups[l]; i++) {
			cr_expect(same_sets(&x->groups[l][i].pus, &y->groups[l][i].pus),
				  "%s %zu differs", vtb_topo_level_name(l), i);
			cr_expect_eq(x->groups[l][i].size, y->groups[l][i].size);
		}
	}
	cr_expect_eq(x->llc_level, y->llc_level);
	cr_assert_eq(x->n_nodes, y->n_nodes);
	for (i = 0; i < x->n_nodes; i++) {
		cr_expect_eq(x->nodes[i].os, y->nodes[i].os);
		cr_expect_eq(x->nodes[i].memory, y->nodes[i].memory, "node %zu memory", i);
		cr_expect_eq(x->nodes[i].normal, y->nodes[i].normal, "node %zu normal pages", i);
		/* hwloc XML lists no 2 MiB page type where a machine had none */
		if (x->nodes[i].hugepages >= 0 && y->nodes[i].hugepages >= 0)
			cr_expect_eq(x->nodes[i].hugepages, y->nodes[i].hugepages,
				     "node %zu huge pages", i);
		cr_expect(same_sets(&x->nodes[i].pus, &y->nodes[i].pus), "node %zu", i);
		/* hwloc keeps no 1x1 matrix: one node's distance says nothing */
		for (k = 0; x->n_nodes > 1 && k < x->n_nodes; k++)
			cr_expect_eq(vtb_topo_distance(x, i, k), vtb_topo_distance(y, i, k),
				     "distance %zu-%zu", i, k);
	}
	for (i = 0; i < x->n_online; i++) {
		const struct vtb_topo_pu *p = &x->pus[i], *q = &y->pus[i];

		cr_expect(p->os == q->os && p->core == q->core && p->llc == q->llc &&
				  p->die == q->die && p->pkg == q->pkg && p->node == q->node,
			  "PU %d differs", p->os);
	}
}

Test(hosttopo, capabilities_parse_into_the_hwloc_model)
{
	static const char *const pairs[][2] = {
		{ "epyc-rome-nps4.xml", "epyc-rome-nps4.caps.xml" },
		{ "xeon-2s-snc2.xml", "xeon-2s-snc2.caps.xml" },
		{ "nocache-2s.xml", "nocache-2s.caps.xml" },
	};
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(pairs); i++) {
		struct vtb_hosttopo *hw = load_fixture(pairs[i][0], "");
		struct vtb_hosttopo *cp = load_fixture(pairs[i][1], "caps:");

		cr_expect_eq(cp->topo, NULL);
		cr_expect_eq(strncmp(cp->source, "caps:", 5), 0);
		cr_expect_str_eq(cp->cpu_vendor, hw->cpu_vendor, "vendor normalised");
		cr_expect_eq(cp->cpu_family, hw->cpu_family);
		cr_expect_eq(cp->cpu_model, hw->cpu_model);
		cr_expect_eq(cp->model.n_groups[VTB_TOPO_L2], 0, "libvirt lists no L2");
		expect_same_model(hw, cp);
		vtb_hosttopo_free(hw);
		vtb_hosttopo_free(cp);
	}
}

Test(hosttopo, capabilities_file_is_recognised_without_prefix)
{
	struct vtb_hosttopo *a = load_fixture("vm-2cpu.caps.xml", "");
	struct vtb_hosttopo *b = load("pack:1 l3:1(size=32MiB) core:2 pu:1");

	cr_expect_eq(strncmp(a->source, "caps:", 5), 0);
	cr_expect_str_eq(a->cpu_codename, "kvm64");
	cr_expect_eq(a->model.nodes[0].memory, 8742728ULL * 1024);
	/* what `virsh capabilities` said on a 2-vCPU VM is that synthetic shape */
	cr_expect_str_eq(a->digest, b->digest);
	cr_expect_str_eq(a->summary, b->summary);
	vtb_hosttopo_free(a);
	vtb_hosttopo_free(b);
}

Test(hosttopo, compact_rule_reproduces_hwloc_order)
{
	static const char *const specs[] = {
		"pack:2 l3:2(size=32MiB) core:4 pu:2",
		"pack:2 core:4 pu:2(indexes=core:pack)",
		"pack:2 numa:2 l3:1(size=8MiB) core:2 pu:2",
		"pack:1 l3:1(size=8MiB) numa:2 core:2 pu:2(indexes=core:pack)",
		"pack:2 die:2 l3:2(size=8MiB) l2:2(size=1MiB) core:2 pu:2",
	};
	static const char *const files[] = { "epyc-rome-nps4.xml", "xeon-2s-snc2.xml" };
	size_t i, k;

	for (i = 0; i < VTB_ARRAY_SIZE(specs) + VTB_ARRAY_SIZE(files); i++) {
		struct vtb_hosttopo *h = i < VTB_ARRAY_SIZE(specs)
						 ? load(specs[i])
						 : load_fixture(files[i - VTB_ARRAY_SIZE(specs)],
								"");
		int *rule = calloc(h->model.n_online, sizeof(int));

		cr_assert(rule);
		vtb_topo_compact_rule(&h->model, rule);
		for (k = 0; k < h->model.n_online; k++)
			cr_expect_eq(rule[k], h->model.pus[k].os, "%s: position %zu", h->source, k);
		free(rule);
		vtb_hosttopo_free(h);
	}
}

Test(hosttopo, digest_ignores_how_the_shape_was_numbered_but_not_the_shape)
{
	struct vtb_hosttopo *a = load("pack:2 l3:1(size=32MiB) core:4 pu:2");
	struct vtb_hosttopo *b = load("pack:2 l3:1(size=16MiB) core:4 pu:2");
	struct vtb_hosttopo *c = load("pack:2 l3:1(size=32MiB) core:4 pu:2(indexes=core:pack)");
	struct vtb_hosttopo *d = load("pack:2 l3:1(size=32MiB) core:4 pu:2");

	cr_expect_str_eq(a->digest, d->digest);
	cr_expect_str_neq(a->digest, b->digest, "LLC size is shape");
	cr_expect_str_neq(a->digest, c->digest, "sibling numbering is shape");
	vtb_hosttopo_free(a);
	vtb_hosttopo_free(b);
	vtb_hosttopo_free(c);
	vtb_hosttopo_free(d);
}

static void round_trip(struct vtb_hosttopo *h)
{
	char path[] = "/tmp/vtbexport.XXXXXX";
	struct vtb_hosttopo *back;
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	close(fd);
	cr_assert_eq(vtb_hosttopo_export_xml(h, path, NULL, NULL), 0, "export %s: %s", h->source, vtb_errmsg());
	back = load(path);
	cr_expect_eq(strncmp(back->source, "xml:", 4), 0);
	expect_same_model(h, back);
	cr_expect_eq(back->model.n_pus, h->model.n_pus, "offline CPUs survive");
	vtb_hosttopo_free(back);
	unlink(path);
}

Test(hosttopo, export_round_trip_keeps_the_digest)
{
	static const char *const files[][2] = {
		{ "epyc-rome-nps4.xml", "" },		{ "xeon-2s-snc2.xml", "" },
		{ "epyc-rome-nps4.caps.xml", "caps:" }, { "xeon-2s-snc2.caps.xml", "caps:" },
		{ "vm-2cpu.caps.xml", "caps:" },
	};
	struct vtb_hosttopo *h;
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(files); i++) {
		h = load_fixture(files[i][0], files[i][1]);
		round_trip(h);
		vtb_hosttopo_free(h);
	}
	h = load("pack:2 l3:2(size=32MiB) core:4 pu:2");
	round_trip(h);
	vtb_hosttopo_free(h);
}

Test(hosttopo, export_to_a_missing_directory_is_refused)
{
	struct vtb_hosttopo *h = load("pack:1 core:2 pu:1");

	cr_expect_eq(vtb_hosttopo_export_xml(h, "/nonexistent-dir/x.xml", NULL, NULL), -2,
		     "a path the user got wrong is input");
	cr_expect(strstr(vtb_errmsg(), "/nonexistent-dir/x.xml"));
	vtb_hosttopo_free(h);
}

Test(hosttopo, unreadable_or_malformed_files_are_named)
{
	char *bad = write_tmp("<topology><object");
	char *root = write_tmp("<domain/>");
	char *hw = write_tmp(
		"<topology version=\"2.0\"><object type=\"Machine\" cpuset=\"zz\"/></topology>");
	char *spec;

	expect_load_error("/nonexistent/host.xml", "'/nonexistent/host.xml'");
	expect_load_error("missing.xml", "cannot read host topology file");
	expect_load_error("/tmp", "cannot read host topology file: cannot read '/tmp'");
	expect_load_error(bad, "is not well-formed XML");
	expect_load_error(bad, bad);
	expect_load_error(root, "the root element is <domain>");
	expect_load_error(hw, ":1: cpuset is not an hwloc bitmap");
	spec = vtb_asprintf("caps:%s", hw);
	expect_load_error(spec, "not <capabilities>");
	free(spec);
	expect_load_error("pack:zz", "'pack:zz' is neither");
	expect_load_error("libvirt:qemu:///system", "fetched by the command layer");
	unlink(bad);
	unlink(root);
	unlink(hw);
	free(bad);
	free(root);
	free(hw);
}

static void bad_caps(const char *cells, const char *cache, const char *want)
{
	char *xml = vtb_asprintf("<capabilities><host><cpu><vendor>AMD</vendor></cpu>"
				 "<topology><cells num='9'>%s</cells></topology>"
				 "<cache>%s</cache></host></capabilities>",
				 cells, cache);
	struct vtb_hosttopo *h = NULL;

	cr_assert(xml);
	cr_expect_eq(vtb_hosttopo_load_caps(xml, strlen(xml), "caps:t.xml", &h), -1, "accepted: %s",
		     xml);
	cr_expect_null(h);
	cr_expect(strstr(vtb_errmsg(), want), "error '%s' lacks '%s'", vtb_errmsg(), want);
	cr_expect(strstr(vtb_errmsg(), "'t.xml'"), "error '%s' does not name the file",
		  vtb_errmsg());
	free(xml);
}

#define CPU(id, s, c, sib) \
	"<cpu id='" #id "' socket_id='" #s "' core_id='" #c "' siblings='" sib "'/>"
#define CELL(id, cpus) \
	"<cell id='" #id "'><memory unit='KiB'>1024</memory><cpus>" cpus "</cpus></cell>"

Test(hosttopo, malformed_capabilities_are_input_errors)
{
	bad_caps(CELL(0, "<cpu id='0' core_id='0'/>"), "", "cpu 0 has no valid socket_id");
	bad_caps(CELL(0, "<cpu socket_id='0' core_id='0'/>"), "", "a <cpu> has no valid id");
	bad_caps(CELL(0, CPU(0, 0, 0, "0")) CELL(1, CPU(0, 0, 0, "0")), "",
		 "CPU 0 is listed twice");
	bad_caps(CELL(0, CPU(0, 0, 0, "0")) CELL(0, CPU(1, 0, 1, "1")), "",
		 "NUMA node 0 is listed twice");
	bad_caps(CELL(0, CPU(0, 0, 0, "0-x")), "", "bad siblings");
	bad_caps(CELL(0, CPU(0, 0, 0, "0") CPU(1, 0, 1, "1")),
		 "<bank id='0' level='3' type='both' size='8' unit='MiB' cpus='0-1'/>"
		 "<bank id='1' level='3' type='both' size='8' unit='MiB' cpus='1'/>",
		 "CPU 1 is in two LLCs");
	bad_caps(CELL(0, CPU(0, 0, 0, "0")),
		 "<bank id='0' level='3' type='both' size='8' unit='parsecs' cpus='0'/>",
		 "bad cache bank");
	bad_caps("<cell id='0'><memory unit='KiB'>lots</memory></cell>", "",
		 "no valid id or memory");
	bad_caps("", "", "no <topology><cells>");
}

Test(hosttopo, capabilities_tolerate_what_old_libvirt_omits)
{
	/* no die_id (libvirt < 6), no siblings, no caches, no distances */
	static const char xml[] =
		"<capabilities><host><topology><cells num='1'><cell id='0'>"
		"<memory unit='KiB'>1048576</memory><cpus num='4'>"
		"<cpu id='0' socket_id='0' core_id='0'/><cpu id='1' socket_id='0' core_id='1'/>"
		"<cpu id='2' socket_id='0' core_id='0'/><cpu id='3' socket_id='0' core_id='1'/>"
		"</cpus></cell></cells></topology></host></capabilities>";
	struct vtb_hosttopo *h = NULL;

	cr_assert_eq(vtb_hosttopo_load_caps(xml, strlen(xml), "libvirt:test:///x", &h), 0, "%s",
		     vtb_errmsg());
	cr_expect_str_eq(h->summary, "1 package, 1 node, 0 LLCs, 2 cores, 4 PUs");
	expect_set(vtb_topo_pus_of(&h->model, VTB_TOPO_CORE, 2), "0,2", "core 0 by core_id");
	cr_expect_eq(h->compact[1], 2, "siblings first");
	cr_expect_null(h->model.distances);
	cr_expect_eq(h->model.nodes[0].memory, GIB);
	cr_expect_null(h->cpu_vendor);
	vtb_hosttopo_free(h);
}

Test(topo, finish_rejects_inconsistent_models)
{
	struct vtb_topo t = { 0 };
	struct vtb_topo_group *g;

	cr_assert(vtb_topo_add_pu(&t, 0, true, true));
	cr_assert(vtb_topo_add_pu(&t, 1, false, false));
	g = vtb_topo_add_group(&t, VTB_TOPO_CORE);
	cr_assert(g);
	vtb_cpuset_add(&g->pus, 0);
	vtb_cpuset_add(&g->pus, 1);
	cr_expect_eq(vtb_topo_finish(&t, NULL, 0), -1);
	cr_expect_str_eq(vtb_errmsg(), "core 0 holds CPU 1, which is not an online CPU");
	vtb_topo_release(&t);

	cr_assert(vtb_topo_add_pu(&t, 3, true, true));
	cr_assert(vtb_topo_add_pu(&t, 4, true, true));
	cr_expect_eq(vtb_topo_finish(&t, (const int[]){ 3, 3 }, 2), -1);
	cr_expect(strstr(vtb_errmsg(), "listed twice"));
	vtb_topo_release(&t);

	cr_assert(vtb_topo_add_pu(&t, 3, false, true));
	cr_expect_eq(vtb_topo_finish(&t, NULL, 0), -1);
	cr_expect_str_eq(vtb_errmsg(), "the topology has no online CPU");
	vtb_topo_release(&t);
}

Test(topo, groups_are_numbered_by_first_appearance)
{
	struct vtb_topo t = { 0 };
	struct vtb_topo_group *g;
	struct vtb_topo_node *n;
	char digest[65];
	int i;

	/* packages listed backwards, with odd/even numbering */
	for (i = 0; i < 4; i++)
		cr_assert(vtb_topo_add_pu(&t, i, true, i != 2));
	for (i = 1; i >= 0; i--) {
		g = vtb_topo_add_group(&t, VTB_TOPO_PKG);
		cr_assert(g);
		g->os = 7 + i;
		vtb_cpuset_add(&g->pus, i);
		vtb_cpuset_add(&g->pus, i + 2);
		n = vtb_topo_add_node(&t);
		cr_assert(n);
		n->os = 5 - i;
		n->memory = GIB;
		vtb_cpuset_add(&n->pus, i);
		vtb_cpuset_add(&n->pus, i + 2);
	}
	n = vtb_topo_add_node(&t); /* memory only */
	n->os = 9;
	cr_assert_eq(vtb_topo_finish(&t, NULL, 0), 0, "%s", vtb_errmsg());
	cr_expect_eq(t.pus[0].os, 0);
	cr_expect_eq(t.pus[1].os, 2);
	cr_expect_eq(t.pus[2].os, 1);
	cr_expect_eq(t.groups[VTB_TOPO_PKG][0].os, 7, "package of CPU 0 is package 0");
	cr_expect_eq(t.groups[VTB_TOPO_DIE][0].os, -1, "dies made from packages");
	cr_expect_eq(t.nodes[0].os, 4, "nodes by number");
	cr_expect_eq(t.nodes[2].os, 9);
	cr_expect_eq(t.pus[0].node, 1, "CPU 0 is in node 5");
	cr_expect(!vtb_topo_pu_by_os(&t, 2)->allowed);
	cr_assert_eq(vtb_topo_digest(&t, digest), 0);
	cr_expect_eq(strlen(digest), 64);
	vtb_topo_release(&t);
}

static void trimmed(const char *in, const char *want)
{
	char *got = vtb_cpu_model_name_trim(in);

	cr_assert_not_null(got);
	cr_expect_str_eq(got, want, "'%s'", in);
	free(got);
}

Test(hosttopo, cpu_model_name_without_padding)
{
	/* libcpuid's brand string of this machine's virtual CPU, padded */
	trimmed("Oxide Virtual Turin-like Processor             ",
		"Oxide Virtual Turin-like Processor");
	trimmed("      Intel(R) Xeon(R)  CPU E5-2680 v4 @ 2.40GHz",
		"Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz");
	trimmed("\tAMD EPYC 7763 64-Core Processor\n", "AMD EPYC 7763 64-Core Processor");
	trimmed("   ", "");
	trimmed("", "");
}

Test(hosttopo, no_libcpuid_codename_for_an_amd_family_it_does_not_know)
{
	/* 0.6.2 calls family 26 model 2 "Abu Dhabi" (family 21) */
	cr_expect_not(vtb_cpu_codename_trusted("AuthenticAMD", 0x1a, "0.6.2"));
	cr_expect_not(vtb_cpu_codename_trusted("AuthenticAMD", 0x1a, "0.7.0"));
	cr_expect(vtb_cpu_codename_trusted("AuthenticAMD", 0x1a, "0.7.1"), "0.7.1 knows Turin");
	cr_expect(vtb_cpu_codename_trusted("AuthenticAMD", 0x1a, "1.0.0"));
	cr_expect_not(vtb_cpu_codename_trusted("AuthenticAMD", 0x1b, "0.7.1"));
	cr_expect(vtb_cpu_codename_trusted("AuthenticAMD", 0x19, "0.6.2"), "Zen 3/4 known");
	cr_expect(vtb_cpu_codename_trusted("AuthenticAMD", 0x17, "0.6.2"));
	cr_expect(vtb_cpu_codename_trusted("GenuineIntel", 6, "0.6.2"));
	cr_expect_not(vtb_cpu_codename_trusted("AuthenticAMD", 0x1a, NULL));
}
