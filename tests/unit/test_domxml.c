/* SPDX-License-Identifier: MIT */
/*
 * Domain XML: what every guest needs (ACPI, destroy on poweroff/reboot/
 * crash, a panic device, two serial ports, direct kernel boot), the
 * topology and CPU model, escaping of user-controlled text, every
 * placement element (pins, guest cells with distances, numatune, memory
 * backing, machine type, the KVM dedicated hint), rejected specs (cells
 * that do not partition the vCPUs or the memory...); golden files for a
 * handful of hand-built specs (tests/fixtures/domxml, rewritten with
 * UPDATE_GOLDEN=1); and every XML passes libvirt's own schema
 * (virt-xml-validate).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../harness/boot/domxml.h"
#include "../../common/vtbutil.h"

extern char **environ;

static struct vtb_domspec spec(void)
{
	return (struct vtb_domspec){ .name = "vtbench-test",
				     .uuid = "3e8d6c1a-1b8e-4d6f-9a53-3b0f5a0e7c11",
				     .kvm = false,
				     .cpu_model = "kvm64",
				     .vcpus = 4,
				     .sockets = 1,
				     .dies = 1,
				     .cores = 2,
				     .threads = 2,
				     .memory_bytes = 512ull << 20,
				     .kernel = "/var/lib/vtbench/guest/vmlinuz-6.1.0",
				     .initrd = "/var/lib/vtbench/guest/boot-x.img",
				     .cmdline = "console=ttyS0 panic=-1 vtbench.nonce=ab" };
}

/* Text of the first node matching @xpath, malloc'ed; NULL if none. */
static char *xp(const char *xml, const char *xpath)
{
	xmlDocPtr doc = xmlReadMemory(xml, (int)strlen(xml), "d.xml", NULL, XML_PARSE_NONET);
	xmlXPathContextPtr ctx;
	xmlXPathObjectPtr o;
	char *out = NULL;

	cr_assert_not_null(doc, "domain XML does not parse:\n%s", xml);
	ctx = xmlXPathNewContext(doc);
	o = xmlXPathEvalExpression((const xmlChar *)xpath, ctx);
	if (o && o->nodesetval && o->nodesetval->nodeNr > 0) {
		xmlChar *c = xmlNodeGetContent(o->nodesetval->nodeTab[0]);

		out = strdup(c ? (const char *)c : "");
		xmlFree(c);
	}
	xmlXPathFreeObject(o);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return out;
}

static int count(const char *xml, const char *xpath)
{
	xmlDocPtr doc = xmlReadMemory(xml, (int)strlen(xml), "d.xml", NULL, XML_PARSE_NONET);
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)xpath, ctx);
	int n = o && o->nodesetval ? o->nodesetval->nodeNr : 0;

	xmlXPathFreeObject(o);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return n;
}

static void expect_xp(const char *xml, const char *xpath, const char *want)
{
	char *got = xp(xml, xpath);

	cr_expect(got && !strcmp(got, want), "%s: got '%s', want '%s'", xpath, got ? got : "(none)",
		  want);
	free(got);
}

Test(domxml, every_guest_has_what_a_clean_poweroff_and_panic_need)
{
	struct vtb_domspec s = spec();
	char *x = vtb_domxml(&s);

	cr_assert_not_null(x, "%s", vtb_errmsg());
	expect_xp(x, "/domain/@type", "qemu");
	expect_xp(x, "/domain/on_poweroff", "destroy");
	expect_xp(x, "/domain/on_reboot", "destroy");
	expect_xp(x, "/domain/on_crash", "destroy");
	cr_expect_eq(count(x, "/domain/features/acpi"), 1);
	cr_expect_eq(count(x, "/domain/features/apic"), 1);
	expect_xp(x, "/domain/devices/panic/@model", "isa");
	cr_expect_eq(count(x, "/domain/devices/serial[@type='pty']"), 2);
	expect_xp(x, "/domain/devices/serial[2]/target/@port", "1");
	expect_xp(x, "/domain/os/kernel", s.kernel);
	expect_xp(x, "/domain/os/initrd", s.initrd);
	expect_xp(x, "/domain/os/cmdline", s.cmdline);
	expect_xp(x, "/domain/memory", "524288");
	expect_xp(x, "/domain/vcpu", "4");
	cr_expect_eq(count(x, "/domain/devices/disk"), 0);
	cr_expect_eq(count(x, "/domain/devices/interface"), 0);
	free(x);
}

Test(domxml, topology_and_cpu_model)
{
	struct vtb_domspec s = spec();
	char *x = vtb_domxml(&s);

	expect_xp(x, "/domain/cpu/@mode", "custom");
	expect_xp(x, "/domain/cpu/model", "kvm64");
	expect_xp(x, "/domain/cpu/model/@fallback", "forbid");
	expect_xp(x, "/domain/cpu/topology/@sockets", "1");
	expect_xp(x, "/domain/cpu/topology/@cores", "2");
	expect_xp(x, "/domain/cpu/topology/@threads", "2");
	free(x);
	s.kvm = true;
	s.cpu_model = "host-passthrough";
	s.sockets = s.dies = s.cores = s.threads = 0;
	x = vtb_domxml(&s);
	expect_xp(x, "/domain/@type", "kvm");
	expect_xp(x, "/domain/cpu/@mode", "host-passthrough");
	cr_expect_eq(count(x, "/domain/cpu/model"), 0);
	cr_expect_eq(count(x, "/domain/cpu/topology"), 0);
	free(x);
}

Test(domxml, user_text_is_escaped)
{
	struct vtb_domspec s = spec();
	char *x;

	s.cmdline = "a=<b> & c=\"d\" 'e'";
	s.kernel = "/tmp/a&b<c>/vmlinuz";
	x = vtb_domxml(&s);
	cr_assert_not_null(x);
	expect_xp(x, "/domain/os/cmdline", s.cmdline);
	expect_xp(x, "/domain/os/kernel", s.kernel);
	free(x);
}

Test(domxml, inconsistent_specs_are_rejected)
{
	struct vtb_domspec s = spec();

	s.cores = 3;
	cr_expect_null(vtb_domxml(&s));
	cr_expect(strstr(vtb_errmsg(), "is 6 CPUs, not 4"), "%s", vtb_errmsg());
	s = spec();
	s.threads = 0;
	cr_expect_null(vtb_domxml(&s));
	s = spec();
	s.kernel = NULL;
	cr_expect_null(vtb_domxml(&s));
	s = spec();
	s.memory_bytes = 1 << 20;
	cr_expect_null(vtb_domxml(&s));
	s = spec();
	s.vcpus = 0;
	cr_expect_null(vtb_domxml(&s));
}

/* cpusets for the specs, released after each test */
static struct vtb_cpuset pool[256];
static size_t npool;

static const struct vtb_cpuset *cs(const char *list)
{
	cr_assert_lt(npool, VTB_ARRAY_SIZE(pool));
	cr_assert_eq(vtb_cpuset_parse(list, &pool[npool]), 0, "%s", vtb_errmsg());
	return &pool[npool++];
}

static void pool_release(void)
{
	while (npool)
		vtb_cpuset_release(&pool[--npool]);
}

TestSuite(domxml, .fini = pool_release);

/* One pin per vCPU from a table of cpulists. */
static const struct vtb_cpuset *pins(const char *const *lists, int n)
{
	const struct vtb_cpuset *first = NULL;

	/* consecutive pool slots: the spec reads them as an array */
	for (int i = 0; i < n; i++) {
		const struct vtb_cpuset *p = cs(lists[i]);

		if (!first)
			first = p;
	}
	return first;
}

static const unsigned dist2[2][2] = { { 10, 21 }, { 21, 10 } };

/*
 * Mirror of host 'pack:2 numa:1 l3:2 core:2 pu:2' (16 PUs, an L3 per two
 * cores): two virtual sockets = two L3s on two host nodes, SMT pairs on
 * host cores, the emulator on the last PU; KVM, q35, locked memory.
 */
static struct vtb_domspec mirror_strict(struct vtb_domcell cells[2])
{
	static const char *const p[] = { "0", "1", "2", "3", "8", "9", "10", "11" };
	struct vtb_domspec s = spec();

	s.name = "vtbench-mirror-strict";
	s.kvm = true;
	s.cpu_model = "host-passthrough";
	s.vcpus = 8;
	s.sockets = 2;
	s.dies = 1;
	s.cores = 2;
	s.threads = 2;
	s.machine = "q35";
	s.vcpupin = pins(p, 8);
	s.emulatorpin = cs("15");
	cells[0] = (struct vtb_domcell){ cs("0-3"), 256ull << 20, dist2[0], 0 };
	cells[1] = (struct vtb_domcell){ cs("4-7"), 256ull << 20, dist2[1], 1 };
	s.cells = cells;
	s.n_cells = 2;
	s.numatune_nodes = cs("0-1");
	s.numatune_mode = "strict";
	s.locked = true;
	s.hint_dedicated = true;
	return s;
}

Test(domxml, every_placement_element)
{
	struct vtb_domcell cells[2];
	struct vtb_domspec s = mirror_strict(cells);
	char *x = vtb_domxml(&s);

	cr_assert_not_null(x, "%s", vtb_errmsg());
	expect_xp(x, "/domain/os/type/@machine", "q35");
	cr_expect_eq(count(x, "/domain/cputune/vcpupin"), 8);
	expect_xp(x, "/domain/cputune/vcpupin[1]/@vcpu", "0");
	expect_xp(x, "/domain/cputune/vcpupin[5]/@vcpu", "4");
	expect_xp(x, "/domain/cputune/vcpupin[5]/@cpuset", "8");
	expect_xp(x, "/domain/cputune/vcpupin[8]/@cpuset", "11");
	expect_xp(x, "/domain/cputune/emulatorpin/@cpuset", "15");
	expect_xp(x, "/domain/numatune/memory/@mode", "strict");
	expect_xp(x, "/domain/numatune/memory/@nodeset", "0-1");
	cr_expect_eq(count(x, "/domain/numatune/memnode"), 2);
	expect_xp(x, "/domain/numatune/memnode[2]/@cellid", "1");
	expect_xp(x, "/domain/numatune/memnode[2]/@mode", "strict");
	expect_xp(x, "/domain/numatune/memnode[2]/@nodeset", "1");
	cr_expect_eq(count(x, "/domain/cpu/numa/cell"), 2);
	expect_xp(x, "/domain/cpu/numa/cell[1]/@id", "0");
	expect_xp(x, "/domain/cpu/numa/cell[1]/@cpus", "0-3");
	expect_xp(x, "/domain/cpu/numa/cell[2]/@cpus", "4-7");
	expect_xp(x, "/domain/cpu/numa/cell[2]/@memory", "262144");
	expect_xp(x, "/domain/cpu/numa/cell[2]/@unit", "KiB");
	cr_expect_eq(count(x, "/domain/cpu/numa/cell/distances/sibling"), 4);
	expect_xp(x, "/domain/cpu/numa/cell[1]/distances/sibling[@id='1']/@value", "21");
	expect_xp(x, "/domain/cpu/numa/cell[2]/distances/sibling[@id='1']/@value", "10");
	cr_expect_eq(count(x, "/domain/memoryBacking/locked"), 1);
	cr_expect_eq(count(x, "/domain/memoryBacking/hugepages"), 0);
	expect_xp(x, "/domain/features/kvm/hint-dedicated/@state", "on");
	free(x);

	/* none of it unless asked for */
	s = spec();
	x = vtb_domxml(&s);
	cr_assert_not_null(x, "%s", vtb_errmsg());
	expect_xp(x, "/domain/os/type/@machine", "pc");
	cr_expect_eq(count(x, "/domain/cputune"), 0);
	cr_expect_eq(count(x, "/domain/numatune"), 0);
	cr_expect_eq(count(x, "/domain/cpu/numa"), 0);
	cr_expect_eq(count(x, "/domain/memoryBacking"), 0);
	cr_expect_eq(count(x, "/domain/features/kvm"), 0);
	free(x);
}

Test(domxml, memnode_without_domain_nodeset_and_cells_without_distances)
{
	struct vtb_domcell cells[2];
	struct vtb_domspec s = mirror_strict(cells);
	char *x;

	s.numatune_nodes = NULL;
	s.numatune_mode = "preferred";
	cells[0].distances = cells[1].distances = NULL;
	cells[1].host_node = -1;
	x = vtb_domxml(&s);
	cr_assert_not_null(x, "%s", vtb_errmsg());
	cr_expect_eq(count(x, "/domain/numatune/memory"), 0);
	cr_expect_eq(count(x, "/domain/numatune/memnode"), 1);
	expect_xp(x, "/domain/numatune/memnode/@mode", "preferred");
	cr_expect_eq(count(x, "/domain/cpu/numa/cell/distances"), 0);
	free(x);
}

Test(domxml, hugepages_and_a_pin_set_per_vcpu)
{
	static const char *const p[] = { "0-1", "0-1", "2-3", "2-3" };
	struct vtb_domspec s = spec();
	char *x;

	s.vcpupin = pins(p, 4);
	s.hugepages = true;
	s.numatune_nodes = cs("0");
	x = vtb_domxml(&s);
	cr_assert_not_null(x, "%s", vtb_errmsg());
	cr_expect_eq(count(x, "/domain/memoryBacking/hugepages"), 1);
	expect_xp(x, "/domain/cputune/vcpupin[2]/@cpuset", "0-1");
	expect_xp(x, "/domain/numatune/memory/@mode", "strict");
	cr_expect_eq(count(x, "/domain/cputune/emulatorpin"), 0);
	free(x);
}

Test(domxml, the_dedicated_hint_is_kvm_only)
{
	struct vtb_domcell cells[2];
	struct vtb_domspec s = mirror_strict(cells);
	char *x;

	/* TCG: no paravirtual hints, the flag is dropped */
	s.kvm = false;
	s.cpu_model = "kvm64";
	x = vtb_domxml(&s);
	cr_assert_not_null(x, "%s", vtb_errmsg());
	cr_expect_eq(count(x, "/domain/features/kvm"), 0);
	free(x);
	/* KVM with a named model: libvirt would refuse it */
	s.kvm = true;
	cr_expect_null(vtb_domxml(&s));
	cr_expect(strstr(vtb_errmsg(), "hint-dedicated needs cpu host-passthrough"), "%s",
		  vtb_errmsg());
}

Test(domxml, user_text_in_the_name_is_escaped)
{
	struct vtb_domspec s = spec();
	char *x;

	s.name = "vm <a> & \"b\"";
	x = vtb_domxml(&s);
	cr_assert_not_null(x);
	expect_xp(x, "/domain/name", s.name);
	free(x);
}

/* Each rejected spec, with the words its message must carry. */
static void expect_rejected(const struct vtb_domspec *s, const char *words)
{
	char *x = vtb_domxml(s);

	cr_expect_null(x, "accepted a spec that should fail with '%s'", words);
	free(x);
	cr_expect(strstr(vtb_errmsg(), words), "message '%s' lacks '%s'", vtb_errmsg(), words);
}

Test(domxml, inconsistent_placement_is_rejected)
{
	static const char *const p[] = { "0", "1", "", "3", "8", "9", "10", "11" };
	struct vtb_domcell cells[2];
	struct vtb_domspec s = mirror_strict(cells);
	static const unsigned bad_local[2] = { 21, 11 }, bad_remote[2] = { 10, 10 };

	cells[1].vcpus = cs("3-7"); /* vCPU 3 twice */
	expect_rejected(&s, "vCPU 3 is in cell 0 and in cell 1");
	cells[1].vcpus = cs("5-7"); /* vCPU 4 nowhere */
	expect_rejected(&s, "vCPU 4 is in no cell");
	cells[1].vcpus = cs("4-8"); /* vCPU 8 does not exist */
	expect_rejected(&s, "cell 1 has vCPU 8, the domain has 8");
	cells[1].vcpus = cs("4-7");
	cells[1].memory_bytes = 128ull << 20;
	expect_rejected(&s,
			"the cells' memory adds up to 402653184 bytes, the domain has 536870912");
	cells[1].memory_bytes = (256ull << 20) + 100;
	expect_rejected(&s, "is not a positive number of KiB");
	cells[1].memory_bytes = 256ull << 20;
	cells[1].distances = NULL;
	expect_rejected(&s, "1 of 2 cells have distances: all or none");
	cells[1].distances = bad_remote;
	expect_rejected(&s, "distance 10 from cell 1 to cell 0");
	cells[1].distances = bad_local;
	expect_rejected(&s, "distance 11 from cell 1 to cell 1");
	cells[1].distances = dist2[1];
	cells[1].host_node = 2;
	expect_rejected(&s, "cell 1 is bound to host node 2, outside the domain's nodeset");
	cells[1].host_node = 1;
	s.n_cells = 0;
	expect_rejected(&s, "cells given but n_cells is 0");

	s = mirror_strict(cells);
	s.vcpupin = pins(p, 8);
	expect_rejected(&s, "vCPU 2 is pinned to no pCPU");
	s = mirror_strict(cells);
	s.emulatorpin = cs("");
	expect_rejected(&s, "the emulator is pinned to no pCPU");
	s = mirror_strict(cells);
	s.numatune_nodes = cs("");
	expect_rejected(&s, "an empty numatune nodeset");
	s = mirror_strict(cells);
	s.numatune_mode = "bind";
	expect_rejected(&s, "unknown numatune mode 'bind'");
	s = mirror_strict(cells);
	s.machine = "isapc";
	expect_rejected(&s, "unknown machine type 'isapc'");
	s = mirror_strict(cells);
	s.hugepages = true;
	s.memory_bytes = (512ull << 20) + 4096;
	cells[1].memory_bytes += 4096;
	expect_rejected(&s, "is not a multiple of 2 MiB huge pages");
	s = mirror_strict(cells);
	cells[1].memory_bytes = 256ull << 20;
	s.cells = NULL;
	expect_rejected(&s, "n_cells is 2 but no cells are given");
}

/* libvirt's schema is the authority on what a domain may say: 1 when
 * virt-xml-validate accepts @xml. */
static void expect_valid(const char *xml, const char *what)
{
	char path[] = "/tmp/vtbdomxml.XXXXXX";
	char arg0[] = "virt-xml-validate", kind[] = "domain";
	char *argv[] = { arg0, path, kind, NULL };
	posix_spawn_file_actions_t fa;
	int fd, st = -1;
	pid_t pid;

	if (access("/usr/bin/virt-xml-validate", X_OK) != 0) {
		if (getenv("CI") && !strcmp(getenv("CI"), "true"))
			cr_assert_fail("virt-xml-validate is missing (libvirt-clients)");
		cr_skip_test("virt-xml-validate is missing");
	}
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, xml, strlen(xml)), (ssize_t)strlen(xml));
	close(fd);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	cr_assert_eq(posix_spawnp(&pid, "virt-xml-validate", &fa, NULL, argv, environ), 0);
	waitpid(pid, &st, 0);
	posix_spawn_file_actions_destroy(&fa);
	unlink(path);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "virt-xml-validate rejected %s:\n%s", what,
		  xml);
}

/*
 * The golden specs.  Their host (for tests/tools/check_domxml.sh, see
 * tests/fixtures/domxml/README):
 *   minimal              none: no placement, TCG, pc
 *   q35-flat             none: flat topology on q35, TCG
 *   mirror-strict        'pack:2 numa:1 l3:2 core:2 pu:2'
 *   core-hugepages       'pack:2 numa:1 l3:2 core:2 pu:2'
 *   epyc-interleaved     tests/fixtures/topo/epyc-rome-nps4.xml
 *                        (SMT siblings 64 apart, a CCX per 4 cores)
 */
static struct vtb_domspec golden(const char *name, struct vtb_domcell cells[2])
{
	static const char *const core_pins[] = { "0-1", "0-1", "2-3", "2-3" };
	static const char *const epyc_pins[] = { "0",  "64", "1",  "65", "2",  "66", "3",  "67",
						 "16", "80", "17", "81", "18", "82", "19", "83" };
	static const unsigned epyc_dist[2][2] = { { 10, 12 }, { 12, 10 } };
	struct vtb_domspec s = spec();

	if (!strcmp(name, "minimal"))
		return s;
	if (!strcmp(name, "q35-flat")) {
		s.name = "vtbench-q35-flat";
		s.machine = "q35";
		s.sockets = 4;
		s.dies = s.cores = s.threads = 1;
		return s;
	}
	if (!strcmp(name, "mirror-strict"))
		return mirror_strict(cells);
	if (!strcmp(name, "core-hugepages")) {
		s.name = "vtbench-core-hugepages";
		s.vcpupin = pins(core_pins, 4);
		s.emulatorpin = cs("15");
		s.hugepages = true;
		s.locked = true;
		s.numatune_nodes = cs("0");
		s.numatune_mode = "preferred";
		return s;
	}
	cr_assert_str_eq(name, "epyc-interleaved");
	s.name = "vtbench-epyc-interleaved";
	s.kvm = true;
	s.cpu_model = "host-passthrough";
	s.vcpus = 16;
	s.sockets = 1;
	s.dies = 2;
	s.cores = 4;
	s.threads = 2;
	s.memory_bytes = 1ull << 30;
	s.vcpupin = pins(epyc_pins, 16);
	s.emulatorpin = cs("63,127");
	cells[0] = (struct vtb_domcell){ cs("0-7"), 512ull << 20, epyc_dist[0], 0 };
	cells[1] = (struct vtb_domcell){ cs("8-15"), 512ull << 20, epyc_dist[1], 1 };
	s.cells = cells;
	s.n_cells = 2;
	s.numatune_nodes = cs("0-1");
	s.hint_dedicated = true;
	return s;
}

static const char *const golden_names[] = { "minimal", "q35-flat", "mirror-strict",
					    "core-hugepages", "epyc-interleaved" };

Test(domxml, golden_files_and_schema)
{
	const char *src = getenv("SRCDIR") ? getenv("SRCDIR") : ".";
	bool update = getenv("UPDATE_GOLDEN") && !strcmp(getenv("UPDATE_GOLDEN"), "1");

	for (size_t i = 0; i < VTB_ARRAY_SIZE(golden_names); i++) {
		struct vtb_domcell cells[2];
		struct vtb_domspec s = golden(golden_names[i], cells);
		char *path = vtb_asprintf("%s/tests/fixtures/domxml/%s.xml", src, golden_names[i]);
		char *x = vtb_domxml(&s), *want;

		cr_assert_not_null(x, "%s: %s", golden_names[i], vtb_errmsg());
		if (update) {
			FILE *f = fopen(path, "w");

			cr_assert_not_null(f, "cannot write %s", path);
			fputs(x, f);
			cr_assert_eq(fclose(f), 0);
		}
		want = vtb_read_file(path, 1 << 20);
		cr_assert_not_null(want, "%s (UPDATE_GOLDEN=1 writes it)", vtb_errmsg());
		/* vtb_read_file strips the final newline */
		cr_expect(!strncmp(x, want, strlen(want)) && !strcmp(x + strlen(want), "\n"),
			  "%s differs from the golden file; got:\n%s", path, x);
		expect_valid(x, path);
		free(want);
		free(x);
		free(path);
		pool_release();
	}
}
