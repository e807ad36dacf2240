/* SPDX-License-Identifier: MIT */
/*
 * LLC sizes from sysfs and the affinity mask.  The LLC sum is what the
 * STREAM rule (arrays >= 4x the caches) needs: with several LLC
 * instances in play (two CCXs, two sockets), all of them cache the
 * arrays, so their sizes add up.
 */
#include <dirent.h>
#include <libcpuid/libcpuid.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
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

/* "NAME:   123 kB" of /proc/meminfo, in bytes. */
static int meminfo_field(const char *text, const char *name, uint64_t *out)
{
	const char *p = text;
	size_t len = strlen(name);
	unsigned long long kb;

	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ':' &&
		    sscanf(p + len + 1, " %llu kB", &kb) == 1 && kb <= UINT64_MAX / 1024) {
			*out = (uint64_t)kb * 1024;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return vtb_error("cannot check available memory: no %s in /proc/meminfo", name);
}

int vtb_meminfo(const char *root, uint64_t *total, uint64_t *available)
{
	char *path = vtb_asprintf("%s/meminfo", root ? root : "/proc");
	char *text = path ? vtb_read_file(path, 1 << 20) : NULL;
	int ret = -1;

	if (!path) {
		vtb_error("out of memory");
		goto out;
	}
	if (!text) {
		vtb_error("cannot check available memory: %s", vtb_errmsg());
		goto out;
	}
	if ((total && meminfo_field(text, "MemTotal", total)) ||
	    (available && meminfo_field(text, "MemAvailable", available)))
		goto out;
	ret = 0;
out:
	free(path);
	free(text);
	return ret;
}

/* Leaf 4 / 0x8000001D: EAX[4:0] type (1 data, 3 unified), EAX[7:5]
 * level, EAX[25:14] logical CPUs sharing it minus one. */
static int cpuid_sharing(const uint32_t (*leaf)[NUM_REGS], int n, int level)
{
	int i;

	for (i = 0; i < n; i++) {
		uint32_t eax = leaf[i][0], type = eax & 0x1f;

		if (type == 0)
			break;
		if ((type == 1 || type == 3) && (int)((eax >> 5) & 7) == level)
			return (int)((eax >> 14) & 0xfff) + 1;
	}
	return 0;
}

/* One CPU's LLC: bytes, level and the instance id (the APIC id with the
 * sharing bits cleared; -1 without sharing information). */
static int cpuid_llc_here(uint64_t *bytes, long long *inst)
{
	struct cpu_raw_data_t raw;
	struct cpu_id_t id;
	int level, share = 0;
	uint32_t apic;

	if (!cpuid_present())
		return vtb_error("no CPUID on this processor");
	if (cpuid_get_raw_data(&raw) || cpu_identify(&raw, &id))
		return vtb_error("cannot read CPUID: %s", cpuid_error());
	if (id.l3_cache > 0) {
		level = 3;
		*bytes = (uint64_t)id.l3_cache << 10;
	} else if (id.l2_cache > 0) {
		level = 2;
		*bytes = (uint64_t)id.l2_cache << 10;
	} else {
		return vtb_error("CPUID gives no L2 or L3 size");
	}
	if (id.vendor == VENDOR_AMD || id.vendor == VENDOR_HYGON)
		share = cpuid_sharing((const uint32_t(*)[NUM_REGS])raw.amd_fn8000001dh,
				      MAX_AMDFN8000001DH_LEVEL, level);
	else if (id.vendor == VENDOR_INTEL)
		share = cpuid_sharing((const uint32_t(*)[NUM_REGS])raw.intel_fn4,
				      MAX_INTELFN4_LEVEL, level);
	/* x2APIC id (leaf 0xB EDX) where the leaf exists, else leaf 1 EBX[31:24] */
	if (raw.basic_cpuid[0][0] >= 0xb && raw.intel_fn11[0][1])
		apic = raw.intel_fn11[0][3];
	else
		apic = raw.basic_cpuid[1][1] >> 24;
	if (share <= 0) {
		*inst = -1;
	} else {
		int shift = 0;

		while ((1 << shift) < share && shift < 31)
			shift++;
		*inst = (long long)(apic >> shift);
	}
	return 0;
}

int vtb_cpuid_llc_bytes(const struct vtb_cpuset *cpus, uint64_t *out, bool *guessed)
{
	cpu_set_t *old = NULL, *one = NULL;
	size_t setsz = 0, i, j, n = 0, ncpu;
	long long *seen = NULL;
	uint64_t sum = 0;
	int ret = -1;

	*guessed = false;
	if (cpus->n == 0)
		return vtb_error("no cpus to compute the llc size of");
	ncpu = (size_t)cpus->cpus[cpus->n - 1] + 1;
	if (ncpu < 1024)
		ncpu = 1024;
	old = CPU_ALLOC(ncpu);
	one = CPU_ALLOC(ncpu);
	seen = calloc(cpus->n, sizeof(*seen));
	if (!old || !one || !seen) {
		vtb_error("out of memory");
		goto out;
	}
	setsz = CPU_ALLOC_SIZE(ncpu);
	if (sched_getaffinity(0, setsz, old)) {
		vtb_error("cannot read the cpu affinity: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < cpus->n; i++) {
		uint64_t bytes = 0;
		long long inst = -1;

		CPU_ZERO_S(setsz, one);
		CPU_SET_S((size_t)cpus->cpus[i], setsz, one);
		if (sched_setaffinity(0, setsz, one)) {
			vtb_error("cannot run on cpu %d to read its CPUID: %s", cpus->cpus[i],
				  strerror(errno));
			goto restore;
		}
		if (cpuid_llc_here(&bytes, &inst))
			goto restore;
		if (inst < 0)
			*guessed = true;
		for (j = 0; j < n && (inst < 0 || seen[j] != inst); j++)
			;
		if (inst >= 0 && j < n)
			continue;
		seen[n++] = inst;
		sum += bytes;
	}
	*out = sum;
	ret = 0;
restore:
	if (sched_setaffinity(0, setsz, old) && !ret)
		ret = vtb_error("cannot restore the cpu affinity: %s", strerror(errno));
out:
	if (old)
		CPU_FREE(old);
	if (one)
		CPU_FREE(one);
	free(seen);
	return ret;
}
