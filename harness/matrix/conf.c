/* SPDX-License-Identifier: MIT */
/*
 * matrix.conf: a small INI reader, validation of every section against
 * option tables, and expansion into configurations and cells with stable
 * keys.
 *
 * Why not inih: Debian 12's libinih is built with 200-byte lines, no line
 * numbers and multi-line mode on, so a long axis list would be cut and
 * errors could not name a line.  The format here is small enough to read
 * by hand with exact limits and "file:line: message" errors.
 *
 * Format:
 *  - `[type]` or `[type NAME]` headers; `key = value` lines; full-line
 *    comments starting with ';' or '#', inline comments after whitespace
 *    (" ;" or " #"), so values cannot contain those two sequences;
 *  - a line indented deeper than the key line before it (no blank line
 *    between) continues that value, joined with one space: a comma list
 *    may span lines, and keys indented alike stay separate keys;
 *  - lines up to 4096 bytes, values up to 1024 bytes, UTF-8 text only;
 *  - at most 4096 sections and 100000 keys in all: the file limit (64 MiB)
 *    allows millions, and the checks and expansion after the reader go
 *    over sections; keys are found by hashing, so a big section costs
 *    linear time (40k sections took 13.6 s, 40k keys in one section 5 s,
 *    a million sections would have taken most of an hour).
 *
 * Files: conf.c (the option tables, small containers, the API), conf-ini.c
 * (the INI reader), conf-check.c (values, variables and the checks of each
 * section), conf-expand.c (axes, cells, configurations, baselines),
 * conf-vm.c ([vm]: typed VM configurations); confint.h is their private
 * header.
 *
 * The only/exclude filters of [global] are comma lists of fnmatch() globs
 * matched against configuration labels ("baseline cpus=2") and against
 * "LABEL/CELL" ("baseline cpus=2/stream").  A cell is kept when `only` is
 * empty or one of its globs matches the label or "LABEL/CELL", and no
 * `exclude` glob matches either; a configuration is kept when some cell
 * is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/man.h"
#include "../../workloads/workload.h"
#include "confint.h"
#include "digest.h"

/* ---------------------------------------------------------------- tables */

static const char *const order_values[] = { "interleave", "sequential", "random:SEED", NULL };
static const char *const accel_values[] = { "auto", "kvm", "tcg", NULL };
static const char *const confine_values[] = { "affinity", "partition", NULL };
static const char *const numa_values[] = { "auto", "off", NULL };
static const char *const machine_values[] = { "pc", "q35", NULL };

const struct vtb_opt mx_global_opts[] = {
	{ .name = "name",
	  .type = VTB_OPT_STR,
	  .help = "campaign name (default: the file name without .conf)" },
	{ .name = "reps",
	  .type = VTB_OPT_INT,
	  .flags = VTB_OPT_AUTO,
	  .def = "3",
	  .min = 1,
	  .max = 100000,
	  .help = "boots (VM) or agent processes (baseline) per configuration; auto: interleaved rounds until every compare row of a configuration is decided (min_reps..max_reps, budget)" },
	{ .name = "min_reps",
	  .type = VTB_OPT_INT,
	  .def = "3",
	  .min = 2,
	  .max = 100000,
	  .help = "reps = auto: boots of every configuration before the first decision" },
	{ .name = "max_reps",
	  .type = VTB_OPT_INT,
	  .def = "20",
	  .min = 2,
	  .max = 100000,
	  .help = "reps = auto: the cap, boots of a configuration at most" },
	{ .name = "budget",
	  .type = VTB_OPT_TIME,
	  .def = "0",
	  .min = 0,
	  .max = 31536000000000000LL,
	  .help = "reps = auto: no boot starts that would end past this time since the start (0: no budget)" },
	{ .name = "auto_compare",
	  .type = VTB_OPT_STR,
	  .def = "own",
	  .help = "reps = auto: the compare whose rows decide: own (each VM against its own baseline), axis:NAME or baseline:SPEC (as compare --axis, --baseline)" },
	{ .name = "order",
	  .type = VTB_OPT_ENUM,
	  .flags = VTB_OPT_ENUM_PREFIX,
	  .def = "interleave",
	  .values = order_values,
	  .help = "boot order (drift control); SEED is an unsigned 64-bit integer" },
	{ .name = "timeout",
	  .type = VTB_OPT_TIME,
	  .def = "10m",
	  .min = 1000000000LL,
	  .max = 2592000000000000LL,
	  .help = "per boot (1s to 30 days)" },
	{ .name = "placement_interval",
	  .type = VTB_OPT_TIME,
	  .def = "50ms",
	  .min = 0,
	  .max = 60000000000LL,
	  .help = "how often a running guest's vCPU threads are sampled for where they ran (0: off; up to 1m)" },
	{ .name = "evidence",
	  .type = VTB_OPT_BOOL,
	  .def = "yes",
	  .help = "read the guest scheduler's counters and the host's vCPU threads over each cell (docs/evidence.md); no: neither, for a run that must not pay even that" },
	{ .name = "db",
	  .type = VTB_OPT_STR,
	  .def = "results.db",
	  .help = "results database: a relative path is from the matrix file's directory (without db =: results.db in the working directory; --db wins)" },
	{ .name = "kernel", .type = VTB_OPT_STR, .help = "guest kernel (direct boot)" },
	{ .name = "uri", .type = VTB_OPT_STR, .def = "qemu:///system", .help = "libvirt URI" },
	{ .name = "accel",
	  .type = VTB_OPT_ENUM,
	  .def = "auto",
	  .values = accel_values,
	  .help = "guest accelerator; auto: KVM when a probe boot proves it works, else TCG" },
	{ .name = "host_id",
	  .type = VTB_OPT_STR,
	  .help = "identity stored for this host instead of its hostname (hosts cloned from one image; VTBENCH_HOST_ID overrides it)" },
	{ .name = "host_topology",
	  .type = VTB_OPT_STR,
	  .help = "host that plan plans for (hwloc XML, caps:FILE, synthetic); run warns" },
	{ .name = "housekeeping",
	  .type = VTB_OPT_STR,
	  .help = "pCPUs kept out of plans for the harness, libvirt and emulator threads: auto (one core, none where the host has no spare CPU), none, or a CPU list" },
	{ .name = "only",
	  .type = VTB_OPT_STR,
	  .help = "comma list of globs on labels or LABEL/CELL: keep matches" },
	{ .name = "exclude",
	  .type = VTB_OPT_STR,
	  .help = "comma list of globs on labels or LABEL/CELL: drop matches" },
	{ .name = NULL },
};

const struct vtb_opt mx_baseline_opts[] = {
	{ .name = "enabled",
	  .type = VTB_OPT_BOOL,
	  .def = "yes",
	  .help = "run the workloads on bare metal too" },
	{ .name = "cpus",
	  .type = VTB_OPT_INT,
	  .flags = VTB_OPT_AXIS | VTB_OPT_VARS,
	  .def = "$host_cpus",
	  .min = 1,
	  .max = 65536,
	  .help = "CPU counts ($host_cpus, N% of host CPUs); the first N in compact order" },
	{ .name = "cpuset", .type = VTB_OPT_CPULIST, .help = "restrict the CPUs baselines may use" },
	{ .name = "vm",
	  .type = VTB_OPT_BOOL,
	  .def = "yes",
	  .help = "also a baseline for each planned VM configuration, on exactly its pCPUs and memory nodes (pinning none: as many CPUs, compact)" },
	{ .name = "confinement",
	  .type = VTB_OPT_ENUM,
	  .def = "affinity",
	  .values = confine_values,
	  .help = "how the agent is confined to its CPUs: affinity, or partition (a cgroup-v2 cpuset root partition; affinity with a warning where unavailable)" },
	{ .name = "confine",
	  .type = VTB_OPT_ENUM,
	  .flags = VTB_OPT_HIDDEN,
	  .values = confine_values,
	  .help = "the former name of confinement" },
	{ .name = NULL },
};

const struct vtb_opt mx_vm_opts[] = {
	{ .name = "enabled", .type = VTB_OPT_BOOL, .def = "yes", .help = "boot VMs" },
	{ .name = "vcpus",
	  .type = VTB_OPT_INT,
	  .flags = VTB_OPT_AXIS | VTB_OPT_VARS,
	  .def = "2",
	  .min = 1,
	  .max = 1024,
	  .help = "vCPU counts ($host_cpus, N% of host CPUs)" },
	{ .name = "topology",
	  .type = VTB_OPT_STR,
	  .flags = VTB_OPT_AXIS,
	  .def = "flat",
	  .help = "what the guest is told: flat, cores, mirror, lie or a [topology NAME]" },
	{ .name = "pinning",
	  .type = VTB_OPT_ENUM,
	  .flags = VTB_OPT_AXIS,
	  .def = "none",
	  .values = vtb_pinning_names,
	  .help = "how vCPUs are bound to pCPUs" },
	{ .name = "memory",
	  .type = VTB_OPT_SIZE,
	  .flags = VTB_OPT_AXIS,
	  .def = "1G",
	  .min = 16LL << 20,
	  .max = 1LL << 44,
	  .help = "guest memory" },
	{ .name = "numa",
	  .type = VTB_OPT_ENUM,
	  .def = "auto",
	  .values = numa_values,
	  .help = "auto: one guest cell per host node used" },
	{ .name = "sched",
	  .type = VTB_OPT_STR,
	  .flags = VTB_OPT_AXIS,
	  .help = "[sched NAME] profiles (default: every [sched] section, else default)" },
	{ .name = "vms",
	  .type = VTB_OPT_INT,
	  .def = "1",
	  .min = 1,
	  .max = 64,
	  .help = "VMs booted side by side" },
	{ .name = "overcommit",
	  .type = VTB_OPT_BOOL,
	  .def = "no",
	  .help = "allow more vCPUs in total than host CPUs" },
	{ .name = "housekeeping",
	  .type = VTB_OPT_STR,
	  .help = "pCPUs kept out of plans for the harness, libvirt and emulator threads: overrides [global]; auto (one core, none where the host has no spare CPU), none, or a CPU list" },
	{ .name = "hugepages",
	  .type = VTB_OPT_BOOL,
	  .def = "no",
	  .help = "guest memory from the host's huge pages (<memoryBacking><hugepages/>)" },
	{ .name = "locked",
	  .type = VTB_OPT_BOOL,
	  .def = "no",
	  .help = "guest memory locked in host RAM (<memoryBacking><locked/>)" },
	{ .name = "machine",
	  .type = VTB_OPT_ENUM,
	  .def = "pc",
	  .values = machine_values,
	  .help = "QEMU machine type" },
	{ .name = "kernel",
	  .type = VTB_OPT_STR,
	  .flags = VTB_OPT_AXIS,
	  .help = "guest kernels: [kernel NAME] sections or paths to a bzImage (a path has a '/'; relative to the matrix file); default: the staged or fetched kernel" },
	{ .name = NULL },
};

const struct vtb_opt mx_kernel_opts[] = {
	{ .name = "path",
	  .type = VTB_OPT_STR,
	  .help = "the kernel image (an x86 bzImage), relative to the matrix file" },
	{ .name = "cmdline",
	  .type = VTB_OPT_STR,
	  .help = "appended to the guest kernel command line of this kernel's boots" },
	{ .name = "config",
	  .type = VTB_OPT_STR,
	  .help = "the kernel's .config, for its digest (default: .config or config-RELEASE beside the image)" },
	{ .name = NULL },
};

static const struct vtb_opt sched_opts[] = {
	{ .name = "cmdline",
	  .type = VTB_OPT_STR,
	  .help = "appended to the guest kernel command line" },
	{ .name = "sysctl.",
	  .type = VTB_OPT_STR,
	  .flags = VTB_OPT_PREFIX,
	  .help = "sysctl.NAME = VALUE written in the guest (kernel.numa_balancing: /proc/sys/kernel/numa_balancing)" },
	{ .name = "debugfs.",
	  .type = VTB_OPT_STR,
	  .flags = VTB_OPT_PREFIX,
	  .help = "debugfs.PATH = VALUE under the guest's /sys/kernel/debug/sched/: KNOB, domains/LEVEL/KNOB (every CPU's LEVEL domain; SMT, CLS, MC, DIE = PKG, NUMA) or domains/cpuN/domainM/KNOB; per-domain KNOB: min_interval, max_interval, busy_factor, imbalance_pct, cache_nice_tries" },
	{ .name = "cpuset.partition",
	  .type = VTB_OPT_CPULIST,
	  .help = "guest CPUs of a cgroup v2 cpuset root partition in the guest (the agent stays outside it)" },
	{ .name = NULL },
};

const struct vtb_opt mx_topology_opts[] = {
	{ .name = "sockets",
	  .type = VTB_OPT_INT,
	  .def = "1",
	  .min = 1,
	  .max = 1024,
	  .help = "sockets" },
	{ .name = "dies",
	  .type = VTB_OPT_INT,
	  .def = "1",
	  .min = 1,
	  .max = 1024,
	  .help = "dies per socket (a die is a virtual LLC)" },
	{ .name = "cores",
	  .type = VTB_OPT_INT,
	  .def = "1",
	  .min = 1,
	  .max = 1024,
	  .help = "cores per die" },
	{ .name = "threads",
	  .type = VTB_OPT_INT,
	  .def = "1",
	  .min = 1,
	  .max = 1024,
	  .help = "threads per core" },
	{ .name = "clusters",
	  .type = VTB_OPT_INT,
	  .def = "1",
	  .min = 1,
	  .max = 1024,
	  .help = "clusters per die: only 1 (libvirt 9.0 / QEMU 7.2 cannot express more)" },
	{ .name = "cells",
	  .type = VTB_OPT_INT,
	  .min = 1,
	  .max = 1024,
	  .help = "guest NUMA cells: the vCPUs split evenly in order (default: by numa)" },
	{ .name = NULL },
};

static const struct vtb_opt workload_opts[] = {
	{ .name = "type",
	  .type = VTB_OPT_STR,
	  .help = "registered workload; its options below are keys too (each an axis)" },
	{ .name = NULL },
};

const struct sectdef mx_sectdefs[] = {
	[S_GLOBAL] = { "global", mx_global_opts, false, "campaign settings" },
	[S_BASELINE] = { "baseline", mx_baseline_opts, false,
			 "bare metal: the agent confined to host CPUs" },
	[S_VM] = { "vm", mx_vm_opts, false, "VM axes (a comma list is an axis)" },
	[S_SCHED] = { "sched", sched_opts, true, "a guest scheduler profile" },
	[S_TOPOLOGY] = { "topology", mx_topology_opts, true, "an explicit guest topology" },
	[S_WORKLOAD] = { "workload", workload_opts, true, "a workload and its parameters" },
	[S_KERNEL] = { "kernel", mx_kernel_opts, true, "a guest kernel ([vm] kernel = NAME)" },
	[S_EXPLORE] = { "explore", mx_explore_opts, false,
			"vtbench explore: the objective and the race's limits" },
};

const char *const mx_sect_names[] = { "global",	  "baseline", "vm",	 "sched",  "topology",
				      "workload", "kernel",   "explore", NULL };

/* ---------------------------------------------------------------- small containers */

int mx_grow(void *pp, size_t *alloc, size_t need, size_t size)
{
	void **p = pp;
	size_t n = *alloc ? *alloc : 4;
	void *q;

	if (need <= *alloc)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return vtb_error("out of memory");
	*p = q;
	*alloc = n;
	return 0;
}

int mx_strv_push(struct strv *sv, const char *s)
{
	char *d;

	if (mx_grow(&sv->v, &sv->alloc, sv->n + 1, sizeof(*sv->v)) < 0)
		return -1;
	d = strdup(s);
	if (!d)
		return vtb_error("out of memory");
	sv->v[sv->n++] = d;
	return 0;
}

bool mx_strv_has(const struct strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

void mx_strv_release(struct strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

int mx_params_add(struct vtb_params *p, size_t *alloc, const char *k, const char *v)
{
	struct vtb_kv kv;

	if (mx_grow(&p->kv, alloc, p->n + 1, sizeof(*p->kv)) < 0)
		return -1;
	kv.key = strdup(k);
	kv.value = strdup(v);
	if (!kv.key || !kv.value) {
		free(kv.key);
		free(kv.value);
		return vtb_error("out of memory");
	}
	p->kv[p->n++] = kv;
	return 0;
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct vtb_kv *)a)->key, ((const struct vtb_kv *)b)->key);
}

void mx_params_sort(struct vtb_params *p)
{
	if (p->n)
		qsort(p->kv, p->n, sizeof(*p->kv), kv_cmp);
}

void mx_params_release(struct vtb_params *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->kv[i].key);
		free(p->kv[i].value);
	}
	free(p->kv);
	p->kv = NULL;
	p->n = 0;
}

const char *vtb_params_get(const struct vtb_params *p, const char *key)
{
	size_t lo = 0, hi = p ? p->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(p->kv[mid].key, key);

		if (!c)
			return p->kv[mid].value;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

json_t *mx_params_json(const struct vtb_params *p)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < p->n; i++) {
		if (json_object_set_new(o, p->kv[i].key, json_string(p->kv[i].value)) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

char *mx_canonical(const json_t *j)
{
	return j ? json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
}

void vtb_key_of(const char *canonical_json, char out[VTB_KEY_LEN + 1])
{
	char full[65];

	if (vtb_sha256_hex(canonical_json, strlen(canonical_json), full) < 0)
		memset(full, '0', VTB_KEY_LEN);
	memcpy(out, full, VTB_KEY_LEN);
	out[VTB_KEY_LEN] = '\0';
}

/* ---------------------------------------------------------------- API */

static void src_free(struct vtb_matrix_src *src)
{
	if (!src)
		return;
	mx_sects_release(&src->p);
	mx_strv_release(&src->p.only);
	mx_strv_release(&src->p.exclude);
	free(src->p.vcpus);
	free(src);
}

void vtb_matrix_free(struct vtb_matrix *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n_configs; i++)
		mx_config_release(&m->configs[i]);
	free(m->configs);
	free(m->path);
	free(m->text);
	free(m->name);
	free(m->db);
	free(m->kernel);
	free(m->uri);
	free(m->host_id);
	free(m->auto_axis);
	free(m->auto_baseline);
	free(m->accel);
	vtb_explore_conf_free(m->explore);
	src_free(m->src);
	free(m);
}

int vtb_matrix_read_text(const char *path, const char *text, size_t len,
			 const struct vtb_host_ctx *host, struct vtb_matrix **out)
{
	struct parser *p;
	struct vtb_matrix *m;
	int ret = -1;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->src = calloc(1, sizeof(*m->src)))) {
		free(m);
		return vtb_error("out of memory");
	}
	p = &m->src->p;
	p->m = m;
	p->host = host;
	m->path = strdup(path);
	m->text = malloc(len + 1);
	if (!m->path || !m->text) {
		ret = vtb_error("out of memory");
		goto out;
	}
	p->path = m->path;
	memcpy(m->text, text, len);
	m->text[len] = '\0';
	if (vtb_sha256_hex(text, len, m->digest) < 0)
		goto out;
	/* a UTF-8 byte-order mark (some editors write one) is not content */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		text += 3;
		len -= 3;
	}
	if (mx_lex(p, text, len) < 0 || mx_check_keys(p) < 0 || mx_parse_global(p) < 0 ||
	    mx_check_named(p) < 0 || mx_check_workloads(p) < 0 || mx_expand_baseline(p) < 0 ||
	    mx_expand_vm(p) < 0 || mx_expand_cells(p, 0) < 0 || mx_parse_explore(p) < 0)
		goto out;
	/* VM baselines come only from VM configurations: none here, none later */
	if (!m->n_configs) {
		if (p->only.n || p->exclude.n)
			ret = mx_perr(p, p->only_line, "'only' and 'exclude' leave nothing to run");
		else
			ret = mx_perr(p, 1,
				      "nothing to run: [baseline] is disabled and there is no [vm]");
		goto out;
	}
	*out = m;
	m = NULL;
	ret = 0;
out:
	vtb_matrix_free(m);
	return ret;
}

int vtb_matrix_complete(struct vtb_matrix *m, const struct vtb_host_ctx *host)
{
	struct parser *p;
	size_t i;
	int ret = -1;

	if (!m->src)
		return vtb_error("internal error: the matrix '%s' is complete already", m->path);
	p = &m->src->p;
	p->host = host;
	for (i = 0; i < m->n_configs; i++)
		if (m->configs[i].kind == VTB_CONFIG_VM && m->configs[i].plan &&
		    mx_resolve_host_llc(host, &m->configs[i]) < 0)
			goto out;
	if (mx_expand_vm_baselines(p) < 0)
		goto out;
	ret = 0;
out:
	src_free(m->src);
	m->src = NULL;
	return ret;
}

/* Reads a matrix file whole (bounded), into @sb. */
static int read_matrix(const char *path, struct vtb_strbuf *sb)
{
	char buf[65536];
	ssize_t n;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return vtb_error("cannot open '%s': %s", path, strerror(errno));
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = vtb_error("cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (sb->len + (size_t)n > FILE_LIMIT) {
			ret = vtb_error("%s:1: file too large (limit %u MiB)", path,
					FILE_LIMIT >> 20);
			goto out;
		}
		if (vtb_strbuf_add(sb, buf, (size_t)n) < 0)
			goto out;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

int vtb_matrix_read(const char *path, const struct vtb_host_ctx *host, struct vtb_matrix **out)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int ret;

	*out = NULL;
	ret = read_matrix(path, &sb);
	if (!ret)
		ret = vtb_matrix_read_text(path, vtb_strbuf_str(&sb), sb.len, host, out);
	vtb_strbuf_release(&sb);
	return ret;
}

int vtb_matrix_host_topology(const char *path, char **out)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	struct parser p;
	const char *v;
	int line, ret = 0;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	p.path = path;
	/* the lexer needs no host; a file that cannot be read or lexed is
	 * "not set" here: loading the matrix for real reports it */
	if (read_matrix(path, &sb) == 0 && mx_lex(&p, vtb_strbuf_str(&sb), sb.len) == 0) {
		v = mx_val_of(mx_find_sect(&p, S_GLOBAL, NULL), mx_global_opts, "host_topology",
			      &line);
		if (v && *v && !(*out = vtb_strdup(v)))
			ret = vtb_error("out of memory");
	}
	if (!ret)
		vtb_error_clear();
	mx_sects_release(&p);
	vtb_strbuf_release(&sb);
	return ret;
}

/* splitmix64: tiny, good enough to shuffle, identical on every platform. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void vtb_matrix_set_reps(struct vtb_matrix *m, long long reps)
{
	m->reps_auto = reps <= 0;
	m->reps = reps > 0 ? reps : m->max_reps;
}

int vtb_matrix_boot_order(const struct vtb_matrix *m, struct vtb_bootref **out, size_t *n)
{
	struct vtb_bootref *v;
	size_t runnable = 0, i, k = 0;
	long long r;
	uint64_t state;

	*out = NULL;
	*n = 0;
	for (i = 0; i < m->n_configs; i++)
		runnable += m->configs[i].runnable;
	if (!runnable || m->reps <= 0)
		return 0;
	if (runnable > SIZE_MAX / sizeof(*v) / (size_t)m->reps)
		return vtb_error("too many boots");
	v = calloc(runnable * (size_t)m->reps, sizeof(*v));
	if (!v)
		return vtb_error("out of memory");
	if (m->order == VTB_ORDER_SEQUENTIAL) {
		for (i = 0; i < m->n_configs; i++)
			for (r = 0; r < m->reps && m->configs[i].runnable; r++)
				v[k++] = (struct vtb_bootref){ i, (int)r };
	} else {
		for (r = 0; r < m->reps; r++)
			for (i = 0; i < m->n_configs; i++)
				if (m->configs[i].runnable)
					v[k++] = (struct vtb_bootref){ i, (int)r };
	}
	if (m->order == VTB_ORDER_RANDOM) {
		state = m->seed;
		for (i = k; i > 1; i--) {
			size_t j = (size_t)(splitmix64(&state) % i);
			struct vtb_bootref t = v[i - 1];

			v[i - 1] = v[j];
			v[j] = t;
		}
	}
	*out = v;
	*n = k;
	return 0;
}

/* What --help-matrix and vtbench-matrix(5) say before the sections */
static const char conf_intro[] =
	"matrix.conf: INI sections and keys.  A comma list is an axis (marked ', ...');\n"
	"INT axes accept $host_cpus, $host_nodes, $host_llcs, $vcpus and N%.\n"
	"Comments start with ';' or '#'; a line indented deeper than its key continues the value.\n"
	"only/exclude globs match labels (\"baseline cpus=2\") and LABEL/CELL.\n"
	"TIME takes a unit: ns, us, ms, s, m, h (a bare number means seconds); SIZE takes\n"
	"K, M, G, T (powers of 1024; a bare number is bytes).\n";

void vtb_conf_help(FILE *f)
{
	size_t i, w;

	fputs(conf_intro, f);
	for (i = 0; i < VTB_ARRAY_SIZE(mx_sectdefs); i++) {
		int col = fprintf(f, "\n[%s%s]  ", mx_sectdefs[i].type,
				  mx_sectdefs[i].named ? " NAME" : "") -
			  1;

		vtb_wrap(f, mx_sectdefs[i].help, col, 4, VTB_HELP_WIDTH);
		fputc('\n', f);
		vtb_opts_help(f, mx_sectdefs[i].opts, false);
	}
	fprintf(f, "\nWorkload types and their keys (INT keys accept variables too):\n");
	for (w = 0; vtb_workloads[w]; w++) {
		if (vtb_workloads[w]->hidden)
			continue;
		int col = fprintf(f, "\ntype = %s  ", vtb_workloads[w]->name) - 1;

		vtb_wrap(f, vtb_workloads[w]->summary ? vtb_workloads[w]->summary : "", col, 4,
			 VTB_HELP_WIDTH);
		fputc('\n', f);
		vtb_opts_help(f, vtb_workloads[w]->opts, false);
	}
}

void vtb_conf_man(FILE *f, const char *version)
{
	size_t i, w;

	vtb_man_head(f, "vtbench-matrix", "5", version, "vtbench manual");
	vtb_man_section(f, "NAME");
	fputs("vtbench\\-matrix \\- the matrix file of vtbench plan and vtbench run\n", f);
	vtb_man_section(f, "SYNOPSIS");
	fputs("\\fBvtbench plan\\fR \\fIMATRIX.conf\\fR\n.br\n"
	      "\\fBvtbench run\\fR \\fIMATRIX.conf\\fR\n.br\n"
	      "\\fBvtbench plan \\-\\-help\\-matrix\\fR\n",
	      f);
	vtb_man_section(f, "DESCRIPTION");
	vtb_man_block(f, conf_intro);
	vtb_man_para(f, "A configuration is one point of the VM axes, or a bare-metal baseline; "
			"a cell is a configuration, a workload and its parameters.  Each "
			"rep of a VM configuration boots once and runs every cell of that "
			"configuration.  'vtbench plan MATRIX.conf' shows every configuration "
			"and cell without running anything; the examples installed with "
			"vtbench (share/vtbench/examples) are matrices to start from.");
	vtb_man_section(f, "SECTIONS");
	for (i = 0; i < VTB_ARRAY_SIZE(mx_sectdefs); i++) {
		char *h = vtb_asprintf("[%s%s]", mx_sectdefs[i].type,
				       mx_sectdefs[i].named ? " NAME" : "");

		vtb_man_subsection(f, h ? h : mx_sectdefs[i].type);
		free(h);
		vtb_man_para(f, mx_sectdefs[i].help);
		vtb_man_opts(f, mx_sectdefs[i].opts, false);
	}
	vtb_man_section(f, "WORKLOAD TYPES");
	vtb_man_para(f, "The keys of [workload NAME] beside type =, per type (INT keys accept "
			"variables too); the same options vtbench-agent takes on its command "
			"line.");
	for (w = 0; vtb_workloads[w]; w++) {
		char *h;

		if (vtb_workloads[w]->hidden)
			continue;
		h = vtb_asprintf("type = %s", vtb_workloads[w]->name);
		vtb_man_subsection(f, h ? h : vtb_workloads[w]->name);
		free(h);
		vtb_man_para(f, vtb_workloads[w]->summary ? vtb_workloads[w]->summary : "");
		vtb_man_opts(f, vtb_workloads[w]->opts, false);
	}
	vtb_man_section(f, "SEE ALSO");
	fputs("\\fBvtbench\\fR(1), \\fBvtbench\\-agent\\fR(1)\n", f);
}
