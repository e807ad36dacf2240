/* SPDX-License-Identifier: MIT */
/*
 * LLC sizes from sysfs and the affinity mask.  The LLC sum is what the
 * STREAM rule (arrays >= 4x the caches) needs: with several LLC
 * instances in play (two CCXs, two sockets), all of them cache the
 * arrays, so their sizes add up.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "sysfs.h"

struct llc_inst {
	long level;
	char *shared; /* normalised cpulist */
	uint64_t bytes;
};

static char *read_attr(const char *dir, const char *name)
{
	char *path = vtb_asprintf("%s/%s", dir, name);
	char *s;

	if (!path) {
		vtb_error("out of memory");
		return NULL;
	}
	s = vtb_read_file(path, 4096);
	free(path);
	return s;
}

/* Finds the highest-level data/unified cache of one CPU. */
static int cpu_llc(const char *root, int cpu, struct llc_inst *best)
{
	char *cdir = vtb_asprintf("%s/cpu%d/cache", root, cpu);
	DIR *d = NULL;
	struct dirent *de;
	int ret = -1;

	best->level = -1;
	best->shared = NULL;
	best->bytes = 0;
	if (!cdir) {
		vtb_error("out of memory");
		goto out;
	}
	d = opendir(cdir);
	if (!d) {
		vtb_error("cannot open '%s': %s", cdir, strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		char *idir = NULL, *type = NULL, *level = NULL, *size = NULL, *shared = NULL;
		struct vtb_cpuset set = { 0 };
		long long lvl;
		uint64_t bytes;
		int bad = 1;

		if (strncmp(de->d_name, "index", 5) != 0)
			continue;
		idir = vtb_asprintf("%s/%s", cdir, de->d_name);
		if (!idir) {
			vtb_error("out of memory");
			goto next;
		}
		type = read_attr(idir, "type");
		level = read_attr(idir, "level");
		size = read_attr(idir, "size");
		shared = read_attr(idir, "shared_cpu_list");
		if (!type || !level || !size || !shared)
			goto next;
		if (strcmp(type, "Instruction") == 0) {
			bad = 0;
			goto next;
		}
		if (vtb_parse_int(level, 0, 16, &lvl) || vtb_parse_size(size, &bytes) ||
		    vtb_cpuset_parse(shared, &set)) {
			vtb_error("malformed cache description in '%s'", idir);
			goto next;
		}
		bad = 0;
		if (lvl > best->level) {
			char *norm = vtb_cpuset_format(&set);

			if (!norm) {
				vtb_error("out of memory");
				bad = 1;
				goto next;
			}
			free(best->shared);
			best->shared = norm;
			best->level = lvl;
			best->bytes = bytes;
		}
	next:
		vtb_cpuset_release(&set);
		free(idir);
		free(type);
		free(level);
		free(size);
		free(shared);
		if (bad)
			goto out;
	}
	if (best->level < 0) {
		vtb_error("no cache information for cpu %d in '%s'", cpu, cdir);
		goto out;
	}
	ret = 0;
out:
	if (ret) {
		free(best->shared);
		best->shared = NULL;
	}
	if (d)
		closedir(d);
	free(cdir);
	return ret;
}

int vtb_sysfs_llc_bytes(const char *root, const struct vtb_cpuset *cpus, uint64_t *out)
{
	struct llc_inst *inst = NULL;
	size_t n = 0, i, j;
	uint64_t sum = 0;
	int ret = -1;

	if (!root)
		root = VTB_SYSFS_CPU_ROOT;
	if (cpus->n == 0) {
		vtb_error("no cpus to compute the llc size of");
		goto out;
	}
	inst = calloc(cpus->n, sizeof(*inst));
	if (!inst) {
		vtb_error("out of memory");
		goto out;
	}
	for (i = 0; i < cpus->n; i++) {
		struct llc_inst c;
		bool seen = false;

		if (cpu_llc(root, cpus->cpus[i], &c))
			goto out;
		for (j = 0; j < n; j++) {
			if (inst[j].level == c.level && strcmp(inst[j].shared, c.shared) == 0) {
				seen = true;
				break;
			}
		}
		if (seen) {
			free(c.shared);
			continue;
		}
		inst[n++] = c;
		sum += c.bytes;
	}
	*out = sum;
	ret = 0;
out:
	for (i = 0; i < n; i++)
		free(inst[i].shared);
	free(inst);
	return ret;
}

int vtb_affinity_cpuset(struct vtb_cpuset *out)
{
	size_t ncpus = 1024, setsize;
	cpu_set_t *set = NULL;
	int ret = -1, cpu;

	out->cpus = NULL;
	out->n = 0;
	for (;;) {
		set = CPU_ALLOC(ncpus);
		if (!set) {
			vtb_error("out of memory");
			goto out;
		}
		setsize = CPU_ALLOC_SIZE(ncpus);
		if (sched_getaffinity(0, setsize, set) == 0)
			break;
		if (errno != EINVAL || ncpus >= (1u << 20)) {
			vtb_error("cannot read the cpu affinity: %s", strerror(errno));
			goto out;
		}
		CPU_FREE(set);
		set = NULL;
		ncpus *= 2;
	}
	for (cpu = 0; cpu < (int)ncpus; cpu++) {
		if (CPU_ISSET_S(cpu, setsize, set) && vtb_cpuset_add(out, cpu)) {
			vtb_cpuset_release(out);
			goto out;
		}
	}
	ret = 0;
out:
	if (set)
		CPU_FREE(set);
	return ret;
}
