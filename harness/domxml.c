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

#include "../workloads/lib/vtbutil.h"
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
	return 0;
}

char *vtb_domxml(const struct vtb_domspec *s)
{
	struct b b = { false };
	xmlDocPtr doc = NULL;
	xmlNodePtr dom, os, n, feat, cpu, dev, ser;
	xmlChar *mem = NULL;
	char *out = NULL;
	int len = 0, port;

	if (check(s))
		return NULL;
	doc = xmlNewDoc(X("1.0"));
	if (!doc)
		goto oom;
	dom = xmlNewNode(NULL, X("domain"));
	if (!dom)
		goto oom;
	xmlDocSetRootElement(doc, dom);
	attr(&b, dom, "type", s->kvm ? "kvm" : "qemu");
	el(&b, dom, "name", s->name);
	if (s->uuid)
		el(&b, dom, "uuid", s->uuid);
	n = el(&b, dom, "memory", NULL);
	attr(&b, n, "unit", "KiB");
	mem = (xmlChar *)vtb_asprintf("%" PRIu64, s->memory_bytes / 1024);
	if (!mem)
		goto oom;
	if (n)
		xmlNodeSetContent(n, mem);
	n = el(&b, dom, "vcpu", NULL);
	attr(&b, n, "placement", "static");
	if (n) {
		char buf[16];

		snprintf(buf, sizeof(buf), "%d", s->vcpus);
		xmlNodeSetContent(n, X(buf));
	}

	os = el(&b, dom, "os", NULL);
	n = el(&b, os, "type", "hvm");
	attr(&b, n, "arch", "x86_64");
	attr(&b, n, "machine", "pc");
	el(&b, os, "kernel", s->kernel);
	el(&b, os, "initrd", s->initrd);
	el(&b, os, "cmdline", s->cmdline ? s->cmdline : "");

	feat = el(&b, dom, "features", NULL);
	el(&b, feat, "acpi", NULL);
	el(&b, feat, "apic", NULL);

	cpu = el(&b, dom, "cpu", NULL);
	if (s->cpu_model && !strcmp(s->cpu_model, "host-passthrough")) {
		attr(&b, cpu, "mode", "host-passthrough");
	} else {
		attr(&b, cpu, "mode", "custom");
		attr(&b, cpu, "match", "exact");
		n = el(&b, cpu, "model", s->cpu_model ? s->cpu_model : "kvm64");
		attr(&b, n, "fallback", "forbid");
	}
	if (s->sockets) {
		n = el(&b, cpu, "topology", NULL);
		attr_int(&b, n, "sockets", s->sockets);
		attr_int(&b, n, "dies", s->dies);
		attr_int(&b, n, "cores", s->cores);
		attr_int(&b, n, "threads", s->threads);
	}

	n = el(&b, dom, "clock", NULL);
	attr(&b, n, "offset", "utc");
	el(&b, dom, "on_poweroff", "destroy");
	el(&b, dom, "on_reboot", "destroy");
	el(&b, dom, "on_crash", "destroy");

	dev = el(&b, dom, "devices", NULL);
	for (port = 0; port < 2; port++) {
		ser = el(&b, dev, "serial", NULL);
		attr(&b, ser, "type", "pty");
		n = el(&b, ser, "target", NULL);
		attr_int(&b, n, "port", port);
	}
	n = el(&b, dev, "controller", NULL);
	attr(&b, n, "type", "usb");
	attr(&b, n, "model", "none");
	n = el(&b, dev, "memballoon", NULL);
	attr(&b, n, "model", "none");
	n = el(&b, dev, "panic", NULL);
	attr(&b, n, "model", "isa");
	if (b.failed)
		goto oom;

	xmlDocDumpFormatMemoryEnc(doc, (xmlChar **)&out, &len, "UTF-8", 1);
	if (!out)
		goto oom;
	/* Drop the XML declaration: libvirt does not need it and it would
	 * only make stored XML differ from virsh dumpxml's. */
	if (!strncmp(out, "<?xml", 5)) {
		char *nl = strchr(out, '\n');
		char *copy = vtb_strdup(nl ? nl + 1 : out);

		xmlFree(out);
		out = copy;
		if (!out)
			goto oom;
	} else {
		char *copy = vtb_strdup(out);

		xmlFree(out);
		out = copy;
		if (!out)
			goto oom;
	}
	free(mem);
	xmlFreeDoc(doc);
	return out;
oom:
	free(mem);
	xmlFreeDoc(doc);
	vtb_error("out of memory writing domain XML");
	return NULL;
}
