/* SPDX-License-Identifier: MIT */
/*
 * Domain XML: what every guest needs (ACPI, destroy on poweroff/reboot/
 * crash, a panic device, two serial ports, direct kernel boot), the
 * topology and CPU model, escaping of user-controlled text, rejected
 * specs; and the XML passes libvirt's own schema (virt-xml-validate).
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

#include "../../harness/domxml.h"
#include "../../workloads/lib/vtbutil.h"

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

/* libvirt's schema is the authority on what a domain may say. */
Test(domxml, passes_virt_xml_validate)
{
	char path[] = "/tmp/vtbdomxml.XXXXXX";
	char arg0[] = "virt-xml-validate", kind[] = "domain";
	char *argv[] = { arg0, path, kind, NULL };
	struct vtb_domspec s = spec();
	char *x = vtb_domxml(&s);
	posix_spawn_file_actions_t fa;
	int fd = mkstemp(path), st = -1;
	pid_t pid;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, x, strlen(x)), (ssize_t)strlen(x));
	close(fd);
	if (access("/usr/bin/virt-xml-validate", X_OK) != 0) {
		unlink(path);
		free(x);
		if (getenv("CI") && !strcmp(getenv("CI"), "true"))
			cr_assert_fail("virt-xml-validate is missing (libvirt-clients)");
		cr_skip_test("virt-xml-validate is missing");
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	cr_assert_eq(posix_spawnp(&pid, "virt-xml-validate", &fa, NULL, argv, environ), 0);
	waitpid(pid, &st, 0);
	posix_spawn_file_actions_destroy(&fa);
	unlink(path);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "virt-xml-validate rejected:\n%s", x);
	free(x);
}
