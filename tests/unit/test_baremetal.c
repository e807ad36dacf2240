/* SPDX-License-Identifier: MIT */
/*
 * The pure parts of confinement = partition: finding the cgroup2 mount
 * in /proc/self/mountinfo text (a v2-only host, a hybrid host whose v2
 * hierarchy is /sys/fs/cgroup/unified, none) and deciding from a fake
 * cgroup2 root whether a cpuset partition can be tried, and if not why.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/boot/baremetal.h"

static char *fixture(const char *rel)
{
	const char *src = getenv("SRCDIR");

	return vtb_asprintf("%s/tests/fixtures/cgroup/%s", src ? src : ".", rel);
}

static char *mount_of(const char *rel)
{
	char *path = fixture(rel), *text, *mnt;

	text = vtb_read_file(path, 1 << 20);
	cr_assert_not_null(text, "%s: %s", path, vtb_errmsg());
	mnt = vtb_cgroup2_mount(text);
	free(text);
	free(path);
	return mnt;
}

Test(partition, cgroup2_mount_prefers_sys_fs_cgroup)
{
	char *m = mount_of("v2/mountinfo");

	cr_assert_str_eq(m, "/sys/fs/cgroup");
	free(m);
}

Test(partition, hybrid_host_has_cgroup2_under_unified)
{
	char *m = mount_of("hybrid/mountinfo");

	cr_assert_str_eq(m, "/sys/fs/cgroup/unified");
	free(m);
}

Test(partition, no_cgroup2_mounted)
{
	cr_assert_null(
		vtb_cgroup2_mount("31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
				  "34 31 0:31 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw\n"));
	cr_assert_null(vtb_cgroup2_mount(""));
}

Test(partition, cpuset_in_cgroup2_can_be_tried)
{
	char *root = fixture("v2");

	cr_assert_null(vtb_partition_unavailable(root));
	free(root);
}

Test(partition, hybrid_host_says_why_not)
{
	char *root = fixture("hybrid/unified"), *why = vtb_partition_unavailable(root);

	cr_assert_not_null(why);
	cr_assert(strstr(why, "cpuset controller not in cgroup2") && strstr(why, "hugetlb"), "%s",
		  why);
	free(why);
	free(root);
}

Test(partition, unreadable_root_says_why_not)
{
	char *why = vtb_partition_unavailable("/nonexistent/cgroup");

	cr_assert_not_null(why);
	cr_assert(strstr(why, "cannot read /nonexistent/cgroup/cgroup.controllers"), "%s", why);
	free(why);
}
