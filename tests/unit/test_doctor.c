/* SPDX-License-Identifier: MIT */
/*
 * doctor: the checks run and explore make before they write anything
 * (VTB_DOCTOR_CHEAP), on fake roots built in a temporary directory: the
 * /dev nodes are symbolic links to real ones (stat follows them), so no
 * test needs root.  A matrix without VM configurations keeps libvirt and
 * the guest files out of it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../harness/doctor/doctor.h"

static char dir[] = "/tmp/vtbdoctor.XXXXXX";

static void put(const char *rel, const char *text)
{
	char *p = vtb_asprintf("%s/%s", dir, rel);
	FILE *f = p ? fopen(p, "w") : NULL;

	cr_assert(f, "cannot write %s", p);
	fputs(text, f);
	fclose(f);
	free(p);
}

static void link_dev(const char *name, const char *target)
{
	char *p = vtb_asprintf("%s/dev/%s", dir, name);

	cr_assert(p);
	unlink(p);
	cr_assert_eq(symlink(target, p), 0);
	free(p);
}

static void setup(void)
{
	char *d, *pr;

	cr_assert(mkdtemp(dir));
	d = vtb_asprintf("%s/dev", dir);
	pr = vtb_asprintf("%s/proc", dir);
	cr_assert(d && pr && mkdir(d, 0755) == 0 && mkdir(pr, 0755) == 0);
	free(d);
	free(pr);
	link_dev("null", "/dev/null");
	link_dev("zero", "/dev/zero");
	link_dev("random", "/dev/random");
	link_dev("urandom", "/dev/urandom");
	put("proc/meminfo", "MemTotal: 16777216 kB\nMemAvailable: 8388608 kB\n");
}

static void teardown(void)
{
	const char *files[] = { "dev/null",	"dev/zero", "dev/random", "dev/urandom",
				"proc/meminfo", "proc",	    "dev" };

	for (size_t i = 0; i < VTB_ARRAY_SIZE(files); i++) {
		char *p = vtb_asprintf("%s/%s", dir, files[i]);

		if (p && unlink(p) < 0)
			rmdir(p);
		free(p);
	}
	rmdir(dir);
}

/* The cheap checks of a bare-metal matrix on the fake root */
static void cheap(struct vtb_checks *c)
{
	/* no VM configuration: no libvirt (its URI a socket nobody serves) */
	static char uri[] = "qemu+unix:///system?socket=/nonexistent/sock";
	static struct vtb_matrix m = { .uri = uri };
	struct vtb_doctor_opts o = { .root = dir, .m = &m, .flags = VTB_DOCTOR_CHEAP };

	cr_assert_eq(vtb_doctor(&o, c), 0, "%s", vtb_errmsg());
}

static const struct vtb_check *find(const struct vtb_checks *c, const char *id)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].id, id))
			return &c->v[i];
	cr_assert_fail("no check '%s'", id);
	return NULL;
}

TestSuite(doctor, .init = setup, .fini = teardown);

Test(doctor, cheap_checks_of_a_bare_metal_matrix_are_dev_and_memory)
{
	struct vtb_checks c = { 0 };
	const char *want[] = { "dev-null", "dev-zero", "dev-random", "dev-urandom", "memory" };

	cheap(&c);
	cr_assert_eq(c.n, VTB_ARRAY_SIZE(want));
	for (size_t i = 0; i < c.n; i++) {
		cr_assert_str_eq(c.v[i].id, want[i]);
		cr_assert_eq(c.v[i].status, VTB_CHECK_OK, "%s: %s", c.v[i].id, c.v[i].found);
		cr_assert_null(c.v[i].advice);
	}
	cr_assert_null(vtb_checks_failed(&c));
	vtb_checks_release(&c);
}

Test(doctor, a_regular_file_for_dev_null_fails_with_the_mknod_to_run)
{
	struct vtb_checks c = { 0 };
	const struct vtb_check *k;

	char *p = vtb_asprintf("%s/dev/null", dir);

	cr_assert(p && unlink(p) == 0);
	free(p);
	put("dev/null", "junk\n");
	cheap(&c);
	k = vtb_checks_failed(&c);
	cr_assert(k);
	cr_assert_str_eq(k->id, "dev-null");
	cr_assert(strstr(k->found, "is a regular file"), "%s", k->found);
	cr_assert(strstr(k->advice, "mknod -m 666 /dev/null c 1 3"), "%s", k->advice);
	cr_assert_eq(find(&c, "dev-zero")->status, VTB_CHECK_OK);
	vtb_checks_release(&c);
}

Test(doctor, another_device_in_its_place_fails_naming_both)
{
	struct vtb_checks c = { 0 };
	const struct vtb_check *k;

	link_dev("urandom", "/dev/zero");
	cheap(&c);
	k = vtb_checks_failed(&c);
	cr_assert(k);
	cr_assert_str_eq(k->id, "dev-urandom");
	cr_assert(strstr(k->found, "1:5, not 1:9"), "%s", k->found);
	vtb_checks_release(&c);
}

Test(doctor, no_meminfo_is_a_warning_not_a_failure)
{
	struct vtb_checks c = { 0 };
	char *p = vtb_asprintf("%s/proc/meminfo", dir);

	cr_assert(p && unlink(p) == 0);
	free(p);
	cheap(&c);
	cr_assert_eq(find(&c, "memory")->status, VTB_CHECK_WARN);
	cr_assert_null(vtb_checks_failed(&c));
	vtb_checks_release(&c);
}

Test(doctor, every_id_is_listed_once)
{
	for (size_t i = 0; vtb_doctor_ids[i]; i++)
		for (size_t j = i + 1; vtb_doctor_ids[j]; j++)
			cr_assert_str_neq(vtb_doctor_ids[i], vtb_doctor_ids[j]);
	cr_assert_str_eq(vtb_check_status_name(VTB_CHECK_FAIL), "fail");
}
