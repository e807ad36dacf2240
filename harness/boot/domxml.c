/* SPDX-License-Identifier: MIT */
/*
 * Domain XML with libxml2's tree API: escaping is libxml2's job, never
 * ours (paths and command lines come from the user).
 */
#include <inttypes.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/vtbutil.h"
#include "domxml.h"

#define X(s) ((const xmlChar *)(s))

/* Node helpers: return NULL on ENOMEM, which the caller checks once at
 * the end through the "failed" flag. */
struct b {
	bool failed;
};

static xmlNodePtr el(struct b *b, xmlNodePtr parent, const char *name, const char *text)
{
	xmlNodePtr n = xmlNewTextChild(parent, NULL, X(name), text ? X(text) : NULL);

	if (!n)
		b->failed = true;
	return n;
}

static void attr(struct b *b, xmlNodePtr n, const char *name, const char *value)
{
	if (!n || !xmlNewProp(n, X(name), X(value)))
		b->failed = true;
}

static void attr_int(struct b *b, xmlNodePtr n, const char *name, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	attr(b, n, name, buf);
}

static bool known_machine(const char *m)
{
	/* pc and q35 are the aliases libvirt resolves to the newest
	 * versioned type; a versioned name pins one (pc-q35-7.2). */
	return !strcmp(m, "pc") || !strcmp(m, "q35") || !strncmp(m, "pc-i440fx-", 10) ||
	       !strncmp(m, "pc-q35-", 7);
}

static bool known_numa_mode(const char *m)
{
	return !strcmp(m, "strict") || !strcmp(m, "preferred") || !strcmp(m, "interleave") ||
	       !strcmp(m, "restrictive");
}

#define HUGEPAGE_BYTES (2ull << 20) /* x86's default huge page */

/*
 * Guest cells: their vCPU sets partition 0..vcpus-1 (QEMU would put a
 * vCPU left out on node 0 behind the guest's back, and one vCPU in two
 * cells is an error), their memory adds up to the domain's, and the
 * distance matrix is complete with 10 on the diagonal only, as libvirt
 * and QEMU require.
 */
static int check_cells(const struct vtb_domspec *s)
{
	int *seen = NULL;
	uint64_t sum = 0;
	int i, j, with_dist = 0, ret = -1;

	if (s->n_cells < 1)
		return vtb_error("domain XML: cells given but n_cells is %d", s->n_cells);
	seen = calloc((size_t)s->vcpus, sizeof(*seen));
	if (!seen)
		return vtb_error("out of memory");
	for (i = 0; i < s->n_cells; i++) {
		const struct vtb_domcell *c = &s->cells[i];

		if (!c->vcpus || !c->vcpus->n) {
			vtb_error("domain XML: cell %d has no vCPUs", i);
			goto out;
		}
		for (size_t k = 0; k < c->vcpus->n; k++) {
			int v = c->vcpus->cpus[k];

			if (v < 0 || v >= s->vcpus) {
				vtb_error("domain XML: cell %d has vCPU %d, the domain has %d", i,
					  v, s->vcpus);
				goto out;
			}
			if (seen[v]) {
				vtb_error("domain XML: vCPU %d is in cell %d and in cell %d", v,
					  seen[v] - 1, i);
				goto out;
			}
			seen[v] = i + 1;
		}
		if (!c->memory_bytes || c->memory_bytes % 1024) {
			vtb_error("domain XML: cell %d memory %" PRIu64
				  " bytes is not a positive number of KiB",
				  i, c->memory_bytes);
			goto out;
		}
		if (s->hugepages && c->memory_bytes % HUGEPAGE_BYTES) {
			vtb_error("domain XML: cell %d memory %" PRIu64
				  " bytes is not a multiple of 2 MiB huge pages",
				  i, c->memory_bytes);
			goto out;
		}
		sum += c->memory_bytes;
		if (c->distances) {
			with_dist++;
			for (j = 0; j < s->n_cells; j++) {
				unsigned d = c->distances[j];

				if (i == j ? d != 10 : d <= 10 || d > 255) {
					vtb_error(
						"domain XML: distance %u from cell %d to cell %d: the local distance is 10, others 11-255",
						d, i, j);
					goto out;
				}
			}
		}
		if (c->host_node >= 0 && s->numatune_nodes &&
		    !vtb_cpuset_has(s->numatune_nodes, c->host_node)) {
			vtb_error(
				"domain XML: cell %d is bound to host node %d, outside the domain's nodeset",
				i, c->host_node);
			goto out;
		}
	}
	for (i = 0; i < s->vcpus; i++) {
		if (!seen[i]) {
			vtb_error("domain XML: vCPU %d is in no cell", i);
			goto out;
		}
	}
	if (with_dist && with_dist != s->n_cells) {
		vtb_error("domain XML: %d of %d cells have distances: all or none", with_dist,
			  s->n_cells);
		goto out;
	}
	if (sum != s->memory_bytes) {
		vtb_error("domain XML: the cells' memory adds up to %" PRIu64
			  " bytes, the domain has %" PRIu64,
			  sum, s->memory_bytes);
		goto out;
	}
	ret = 0;
out:
	free(seen);
	return ret;
}

static int check_placement(const struct vtb_domspec *s)
{
	if (s->machine && !known_machine(s->machine))
		return vtb_error("domain XML: unknown machine type '%s' (pc or q35)", s->machine);
	if (s->vcpupin) {
		for (int i = 0; i < s->vcpus; i++)
			if (!s->vcpupin[i].n)
				return vtb_error("domain XML: vCPU %d is pinned to no pCPU", i);
	}
	if (s->emulatorpin && !s->emulatorpin->n)
		return vtb_error("domain XML: the emulator is pinned to no pCPU");
	if (s->numatune_nodes && !s->numatune_nodes->n)
		return vtb_error("domain XML: an empty numatune nodeset");
	if (s->numatune_mode && !known_numa_mode(s->numatune_mode))
		return vtb_error(
			"domain XML: unknown numatune mode '%s' (strict, preferred, interleave or restrictive)",
			s->numatune_mode);
	if (s->hugepages && s->memory_bytes % HUGEPAGE_BYTES)
		return vtb_error("domain XML: memory %" PRIu64
				 " bytes is not a multiple of 2 MiB huge pages",
				 s->memory_bytes);
	/* libvirt refuses the hint with any other CPU mode */
	if (s->hint_dedicated && s->kvm &&
	    !(s->cpu_model && !strcmp(s->cpu_model, "host-passthrough")))
		return vtb_error("domain XML: hint-dedicated needs cpu host-passthrough, not '%s'",
				 s->cpu_model ? s->cpu_model : "kvm64");
	if (s->cells)
		return check_cells(s);
	if (s->n_cells)
		return vtb_error("domain XML: n_cells is %d but no cells are given", s->n_cells);
	return 0;
}

static int check(const struct vtb_domspec *s)
{
	long long prod;

	if (!s->name || !*s->name)
		return vtb_error("domain XML: no name");
	if (!s->kernel || !s->initrd)
		return vtb_error("domain XML: no kernel or initrd");
	if (s->vcpus < 1)
		return vtb_error("domain XML: %d vCPUs", s->vcpus);
	if (s->memory_bytes < (16u << 20))
		return vtb_error("domain XML: memory %" PRIu64 " bytes is below 16 MiB",
				 s->memory_bytes);
	if (s->sockets || s->dies || s->cores || s->threads) {
		if (s->sockets < 1 || s->dies < 1 || s->cores < 1 || s->threads < 1)
			return vtb_error("domain XML: topology %dx%dx%dx%d has a zero", s->sockets,
					 s->dies, s->cores, s->threads);
		prod = (long long)s->sockets * s->dies * s->cores * s->threads;
		if (prod != s->vcpus)
			return vtb_error(
				"domain XML: topology %d sockets x %d dies x %d cores x %d threads is %lld CPUs, not %d",
				s->sockets, s->dies, s->cores, s->threads, prod, s->vcpus);
	}
	return check_placement(s);
}

/* "0-3,8" as an attribute. */
static void attr_set(struct b *b, xmlNodePtr n, const char *name, const struct vtb_cpuset *set)
{
	char *v = vtb_cpuset_format(set);

	if (!v) {
		b->failed = true;
		return;
	}
	attr(b, n, name, v);
	free(v);
}

static void attr_u64(struct b *b, xmlNodePtr n, const char *name, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	attr(b, n, name, buf);
}

static void memory_backing(struct b *b, xmlNodePtr dom, const struct vtb_domspec *s)
{
	xmlNodePtr mb;

	if (!s->hugepages && !s->locked)
		return;
	mb = el(b, dom, "memoryBacking", NULL);
	if (s->hugepages)
		el(b, mb, "hugepages", NULL);
	if (s->locked)
		el(b, mb, "locked", NULL);
}

static void cputune(struct b *b, xmlNodePtr dom, const struct vtb_domspec *s)
{
	xmlNodePtr ct, n;

	if (!s->vcpupin && !s->emulatorpin)
		return;
	ct = el(b, dom, "cputune", NULL);
	for (int i = 0; s->vcpupin && i < s->vcpus; i++) {
		n = el(b, ct, "vcpupin", NULL);
		attr_int(b, n, "vcpu", i);
		attr_set(b, n, "cpuset", &s->vcpupin[i]);
	}
	if (s->emulatorpin) {
		n = el(b, ct, "emulatorpin", NULL);
		attr_set(b, n, "cpuset", s->emulatorpin);
	}
}

static void numatune(struct b *b, xmlNodePtr dom, const struct vtb_domspec *s)
{
	const char *mode = s->numatune_mode ? s->numatune_mode : "strict";
	bool memnodes = false;
	xmlNodePtr nt, n;
	int i;

	for (i = 0; s->cells && i < s->n_cells; i++)
		memnodes |= s->cells[i].host_node >= 0;
	if (!s->numatune_nodes && !memnodes)
		return;
	nt = el(b, dom, "numatune", NULL);
	if (s->numatune_nodes) {
		n = el(b, nt, "memory", NULL);
		attr(b, n, "mode", mode);
		attr_set(b, n, "nodeset", s->numatune_nodes);
	}
	for (i = 0; memnodes && i < s->n_cells; i++) {
		if (s->cells[i].host_node < 0)
			continue;
		n = el(b, nt, "memnode", NULL);
		attr_int(b, n, "cellid", i);
		attr(b, n, "mode", mode);
		attr_int(b, n, "nodeset", s->cells[i].host_node);
	}
}

static void numa_cells(struct b *b, xmlNodePtr cpu, const struct vtb_domspec *s)
{
	xmlNodePtr numa, cell, dist, n;

	if (!s->cells)
		return;
	numa = el(b, cpu, "numa", NULL);
	for (int i = 0; i < s->n_cells; i++) {
		const struct vtb_domcell *c = &s->cells[i];

		cell = el(b, numa, "cell", NULL);
		attr_int(b, cell, "id", i);
		attr_set(b, cell, "cpus", c->vcpus);
		attr_u64(b, cell, "memory", c->memory_bytes / 1024);
		attr(b, cell, "unit", "KiB");
		if (!c->distances)
			continue;
		dist = el(b, cell, "distances", NULL);
		for (int j = 0; j < s->n_cells; j++) {
			n = el(b, dist, "sibling", NULL);
			attr_int(b, n, "id", j);
			attr_int(b, n, "value", c->distances[j]);
		}
	}
}

/* <memory>, how it is backed, <vcpu> */
static void memory_vcpus(struct b *b, xmlNodePtr dom, const struct vtb_domspec *s)
{
	char *kib = vtb_asprintf("%" PRIu64, s->memory_bytes / 1024);
	char buf[16];
	xmlNodePtr n;

	n = el(b, dom, "memory", NULL);
	attr(b, n, "unit", "KiB");
	if (!kib)
		b->failed = true;
	else if (n)
		xmlNodeSetContent(n, X(kib));
	free(kib);
	memory_backing(b, dom, s);
	n = el(b, dom, "vcpu", NULL);
	attr(b, n, "placement", "static");
	if (n) {
		snprintf(buf, sizeof(buf), "%d", s->vcpus);
		xmlNodeSetContent(n, X(buf));
	}
}

/* direct kernel boot */
static void os_boot(struct b *b, xmlNodePtr dom, const struct vtb_domspec *s)
{
	xmlNodePtr os = el(b, dom, "os", NULL), n;

	n = el(b, os, "type", "hvm");
	attr(b, n, "arch", "x86_64");
	attr(b, n, "machine", s->machine ? s->machine : "pc");
	el(b, os, "kernel", s->kernel);
	el(b, os, "initrd", s->initrd);
	el(b, os, "cmdline", s->cmdline ? s->cmdline : "");
}

static void features(struct b *b, xmlNodePtr dom, const struct vtb_domspec *s)
{
	xmlNodePtr feat = el(b, dom, "features", NULL), n;

	el(b, feat, "acpi", NULL);
	el(b, feat, "apic", NULL);
	/* TCG has no paravirtual hints: the flag means nothing there */
	if (s->hint_dedicated && s->kvm) {
		n = el(b, feat, "kvm", NULL);
		n = el(b, n, "hint-dedicated", NULL);
		attr(b, n, "state", "on");
	}
}

/* <cpu>: the model, the topology the guest sees, its NUMA cells */
static void cpu(struct b *b, xmlNodePtr dom, const struct vtb_domspec *s)
{
	xmlNodePtr cpu = el(b, dom, "cpu", NULL), n;

	if (s->cpu_model && !strcmp(s->cpu_model, "host-passthrough")) {
		attr(b, cpu, "mode", "host-passthrough");
	} else {
		attr(b, cpu, "mode", "custom");
		attr(b, cpu, "match", "exact");
		n = el(b, cpu, "model", s->cpu_model ? s->cpu_model : "kvm64");
		attr(b, n, "fallback", "forbid");
	}
	if (s->sockets) {
		n = el(b, cpu, "topology", NULL);
		attr_int(b, n, "sockets", s->sockets);
		attr_int(b, n, "dies", s->dies);
		attr_int(b, n, "cores", s->cores);
		attr_int(b, n, "threads", s->threads);
	}
	numa_cells(b, cpu, s);
}

/* the clock, and any end of the guest ends the domain */
static void lifecycle(struct b *b, xmlNodePtr dom)
{
	xmlNodePtr n = el(b, dom, "clock", NULL);

	attr(b, n, "offset", "utc");
	el(b, dom, "on_poweroff", "destroy");
	el(b, dom, "on_reboot", "destroy");
	el(b, dom, "on_crash", "destroy");
}

/* two serial consoles (records, stderr), nothing else */
static void devices(struct b *b, xmlNodePtr dom)
{
	xmlNodePtr dev = el(b, dom, "devices", NULL), ser, n;

	for (int port = 0; port < 2; port++) {
		ser = el(b, dev, "serial", NULL);
		attr(b, ser, "type", "pty");
		n = el(b, ser, "target", NULL);
		attr_int(b, n, "port", port);
	}
	n = el(b, dev, "controller", NULL);
	attr(b, n, "type", "usb");
	attr(b, n, "model", "none");
	n = el(b, dev, "memballoon", NULL);
	attr(b, n, "model", "none");
	n = el(b, dev, "panic", NULL);
	attr(b, n, "model", "isa");
}

/* The document as text (malloc'ed), or NULL */
static char *dump(xmlDocPtr doc)
{
	xmlChar *text = NULL;
	const char *from;
	char *out, *nl;
	int len = 0;

	xmlDocDumpFormatMemoryEnc(doc, &text, &len, "UTF-8", 1);
	if (!text)
		return NULL;
	/* Drop the XML declaration: libvirt does not need it and it would
	 * only make stored XML differ from virsh dumpxml's. */
	from = (const char *)text;
	if (!strncmp(from, "<?xml", 5)) {
		nl = strchr(from, '\n');
		from = nl ? nl + 1 : from;
	}
	out = vtb_strdup(from);
	xmlFree(text);
	return out;
}

char *vtb_domxml(const struct vtb_domspec *s)
{
	struct b b = { false };
	xmlDocPtr doc = NULL;
	xmlNodePtr dom;
	char *out = NULL;

	if (check(s))
		return NULL;
	doc = xmlNewDoc(X("1.0"));
	dom = doc ? xmlNewNode(NULL, X("domain")) : NULL;
	if (!dom)
		goto out;
	xmlDocSetRootElement(doc, dom);
	attr(&b, dom, "type", s->kvm ? "kvm" : "qemu");
	el(&b, dom, "name", s->name);
	if (s->uuid)
		el(&b, dom, "uuid", s->uuid);
	memory_vcpus(&b, dom, s);
	cputune(&b, dom, s);
	numatune(&b, dom, s);
	os_boot(&b, dom, s);
	features(&b, dom, s);
	cpu(&b, dom, s);
	lifecycle(&b, dom);
	devices(&b, dom);
	if (!b.failed)
		out = dump(doc);
out:
	xmlFreeDoc(doc);
	if (!out)
		vtb_error("out of memory writing domain XML");
	return out;
}
