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
 * The only/exclude filters of [global] are comma lists of fnmatch() globs
 * matched against configuration labels ("baseline cpus=2") and against
 * "LABEL/CELL" ("baseline cpus=2/stream").  A cell is kept when `only` is
 * empty or one of its globs matches the label or "LABEL/CELL", and no
 * `exclude` glob matches either; a configuration is kept when some cell
 * is.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/man.h"
#include "../../common/opt.h"
#include "../../workloads/workload.h"
#include "conf.h"
#include "digest.h"

#define LINE_LIMIT 4096
#define VALUE_LIMIT 1024
#define FILE_LIMIT (64u << 20)
#define SECTION_LIMIT 4096
#define KEY_LIMIT 100000
#define CONFIG_LIMIT 10000
#define CELL_LIMIT 100000

/* ---------------------------------------------------------------- tables */

static const char *const order_values[] = { "interleave", "sequential", "random:SEED", NULL };
static const char *const accel_values[] = { "auto", "kvm", "tcg", NULL };
static const char *const confine_values[] = { "affinity", "partition", NULL };
static const char *const numa_values[] = { "auto", "off", NULL };
static const char *const machine_values[] = { "pc", "q35", NULL };

static const struct vtb_opt global_opts[] = {
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
	{ .name = "db", .type = VTB_OPT_STR, .def = "results.db", .help = "results database" },
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

static const struct vtb_opt baseline_opts[] = {
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

static const struct vtb_opt vm_opts[] = {
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

static const struct vtb_opt topology_opts[] = {
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

struct sectdef {
	const char *type;
	const struct vtb_opt *opts;
	bool named;
	const char *help;
};

enum { S_GLOBAL, S_BASELINE, S_VM, S_SCHED, S_TOPOLOGY, S_WORKLOAD };

static const struct sectdef sectdefs[] = {
	[S_GLOBAL] = { "global", global_opts, false, "campaign settings" },
	[S_BASELINE] = { "baseline", baseline_opts, false,
			 "bare metal: the agent confined to host CPUs" },
	[S_VM] = { "vm", vm_opts, false, "VM axes (a comma list is an axis)" },
	[S_SCHED] = { "sched", sched_opts, true, "a guest scheduler profile" },
	[S_TOPOLOGY] = { "topology", topology_opts, true, "an explicit guest topology" },
	[S_WORKLOAD] = { "workload", workload_opts, true, "a workload and its parameters" },
};

static const char *const sect_names[] = { "global",   "baseline", "vm", "sched",
					  "topology", "workload", NULL };

/* ---------------------------------------------------------------- small containers */

struct strv {
	char **v;
	size_t n, alloc;
};

static int grow(void *pp, size_t *alloc, size_t need, size_t size)
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

static int strv_push(struct strv *sv, const char *s)
{
	char *d;

	if (grow(&sv->v, &sv->alloc, sv->n + 1, sizeof(*sv->v)) < 0)
		return -1;
	d = strdup(s);
	if (!d)
		return vtb_error("out of memory");
	sv->v[sv->n++] = d;
	return 0;
}

static bool strv_has(const struct strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

static void strv_release(struct strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

static int params_add(struct vtb_params *p, size_t *alloc, const char *k, const char *v)
{
	struct vtb_kv kv;

	if (grow(&p->kv, alloc, p->n + 1, sizeof(*p->kv)) < 0)
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

static void params_sort(struct vtb_params *p)
{
	if (p->n)
		qsort(p->kv, p->n, sizeof(*p->kv), kv_cmp);
}

static void params_release(struct vtb_params *p)
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

static json_t *params_json(const struct vtb_params *p)
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

static char *canonical(const json_t *j)
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

/* ---------------------------------------------------------------- the INI reader */

struct ent {
	char *key;
	struct vtb_strbuf val;
	int line;
};

struct sect {
	int kind;    /* S_* */
	char *name;  /* NULL for unnamed sections */
	char *title; /* "[vm]", "[workload stream]" */
	int line;
	struct ent *ents;
	size_t n, alloc;
	size_t *slots; /* key -> index + 1 (0: empty), open addressing */
	size_t nslots;
};

struct parser {
	const char *path;
	const struct vtb_host_ctx *host;
	struct vtb_matrix *m;
	struct sect *sects;
	size_t n_sects, alloc_sects;
	size_t alloc_configs;
	struct strv only, exclude;
	int only_line;
	size_t n_cells;
	size_t n_keys;	   /* key lines in all sections (KEY_LIMIT) */
	bool vm_baselines; /* [baseline] enabled and vm = yes */
};

/* What reading keeps in the matrix for vtb_matrix_complete(). */
struct vtb_matrix_src {
	struct parser p;
};

static int perr(const struct parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(const struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int ret;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	ret = vtb_error("%s:%d: %s", p->path, line, msg ? msg : "out of memory");
	free(msg);
	return ret;
}

/* " (did you mean 'x'?)" or "" */
static char *did_you_mean(const char *fmt_q, const char *s)
{
	if (!s)
		return strdup("");
	return vtb_asprintf(fmt_q, s);
}

static uint64_t key_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static const struct ent *sect_ent(const struct sect *s, const char *key)
{
	size_t i, mask;

	if (!s || !s->nslots)
		return NULL;
	mask = s->nslots - 1;
	for (i = key_hash(key) & mask; s->slots[i]; i = (i + 1) & mask)
		if (!strcmp(s->ents[s->slots[i] - 1].key, key))
			return &s->ents[s->slots[i] - 1];
	return NULL;
}

/* Indexes ents[s->n - 1], the key just added; at most half full. */
static int sect_index(struct sect *s)
{
	size_t i, mask;

	if (2 * s->n > s->nslots) {
		size_t n = s->nslots ? 2 * s->nslots : 16;
		size_t *g = calloc(n, sizeof(*g));

		if (!g)
			return vtb_error("out of memory");
		free(s->slots);
		s->slots = g;
		s->nslots = n;
		for (size_t k = 0; k + 1 < s->n; k++) {
			for (i = key_hash(s->ents[k].key) & (n - 1); g[i]; i = (i + 1) & (n - 1))
				;
			g[i] = k + 1;
		}
	}
	mask = s->nslots - 1;
	for (i = key_hash(s->ents[s->n - 1].key) & mask; s->slots[i]; i = (i + 1) & mask)
		;
	s->slots[i] = s->n;
	return 0;
}

static void sects_release(struct parser *p)
{
	size_t i, j;

	for (i = 0; i < p->n_sects; i++) {
		struct sect *s = &p->sects[i];

		for (j = 0; j < s->n; j++) {
			free(s->ents[j].key);
			vtb_strbuf_release(&s->ents[j].val);
		}
		free(s->ents);
		free(s->slots);
		free(s->name);
		free(s->title);
	}
	free(p->sects);
	p->sects = NULL;
	p->n_sects = 0;
}

/*
 * UTF-8 text (strictly: no surrogates, nothing above U+10FFFF, no
 * overlong forms) without control characters other than tab.  @cut: the
 * buffer was cut at the line limit, so a sequence may end early.  NULL,
 * or what is wrong.
 */
static const char *not_text(const unsigned char *s, size_t n, bool cut)
{
	size_t i = 0, k;
	bool truncated;

	while (i < n) {
		unsigned c = s[i];

		if (c < 0x80) {
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return "binary data";
			i++;
			continue;
		}
		k = vtb_utf8_char((const char *)s + i, n - i, &truncated);
		if (!k)
			return truncated && cut ? NULL
						: "not UTF-8 text (a byte that is not UTF-8, "
						  "a surrogate or a code point above U+10FFFF)";
		i += k;
	}
	return NULL;
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static bool good_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && !strchr("-_.", *s))
			return false;
	return true;
}

/* The TYPE and NAME (NULL when absent) of header line @s..@e, malloc'ed. */
static int header_words(struct parser *p, int line, const char *s, const char *e, char **type,
			char **name)
{
	const char *close = memchr(s, ']', (size_t)(e - s));
	const char *a, *b, *c, *d, *name_end;

	if (!close)
		return perr(p, line, "unterminated section header '%.*s'", (int)(e - s), s);
	if (close + 1 != e)
		return perr(p, line, "unexpected text after section header '%.*s'", (int)(e - s),
			    s);
	for (a = s + 1; a < close && is_ws(*a); a++)
		;
	for (b = a; b < close && !is_ws(*b); b++)
		;
	for (c = b; c < close && is_ws(*c); c++)
		;
	for (d = c; d < close && !is_ws(*d); d++)
		;
	name_end = d;
	if (a == b)
		return perr(p, line, "empty section name '%.*s'", (int)(e - s), s);
	for (; d < close; d++)
		if (!is_ws(*d))
			return perr(p, line,
				    "bad section header '%.*s': expected [TYPE] or [TYPE NAME]",
				    (int)(e - s), s);
	*type = strndup(a, (size_t)(b - a));
	if (c < name_end)
		*name = strndup(c, (size_t)(name_end - c));
	return !*type || (c < name_end && !*name) ? vtb_error("out of memory") : 0;
}

/* The S_* of section @type, which must be named exactly when its kind is. */
static int header_kind(struct parser *p, int line, const char *type, const char *name, int *kind)
{
	char *hint;
	size_t i;
	int ret;

	*kind = -1;
	for (i = 0; i < VTB_ARRAY_SIZE(sectdefs); i++)
		if (!strcmp(sectdefs[i].type, type))
			*kind = (int)i;
	if (*kind < 0) {
		hint = did_you_mean(" (did you mean [%s]?)", vtb_suggest(sect_names, type));
		ret = perr(p, line, "unknown section [%s]%s", type, hint ? hint : "");
		free(hint);
		return ret;
	}
	if (sectdefs[*kind].named && !name)
		return perr(p, line, "[%s] needs a name: [%s NAME]", type, type);
	if (!sectdefs[*kind].named && name)
		return perr(p, line, "[%s] takes no name", type);
	if (name && !good_name(name))
		return perr(p, line,
			    "bad name '%s' in [%s %s]: use letters, digits, '-', '_' and '.'", name,
			    type, name);
	return 0;
}

static int lex_header(struct parser *p, int line, const char *s, const char *e)
{
	char *type = NULL, *name = NULL;
	struct sect *sec;
	size_t i;
	int kind, ret = -1;

	if (header_words(p, line, s, e, &type, &name) < 0 ||
	    header_kind(p, line, type, name, &kind) < 0)
		goto out;
	if (p->n_sects == SECTION_LIMIT) {
		ret = perr(p, line, "too many sections (limit %d)", SECTION_LIMIT);
		goto out;
	}
	for (i = 0; i < p->n_sects; i++) {
		const struct sect *o = &p->sects[i];

		if (o->kind == kind && (!name || !strcmp(o->name, name))) {
			ret = perr(p, line, "duplicate section %s, first at %s:%d", o->title,
				   p->path, o->line);
			goto out;
		}
	}
	if (grow(&p->sects, &p->alloc_sects, p->n_sects + 1, sizeof(*p->sects)) < 0)
		goto out;
	sec = &p->sects[p->n_sects];
	memset(sec, 0, sizeof(*sec));
	sec->kind = kind;
	sec->line = line;
	sec->title = name ? vtb_asprintf("[%s %s]", type, name) : vtb_asprintf("[%s]", type);
	if (!sec->title) {
		ret = vtb_error("out of memory");
		goto out;
	}
	sec->name = name;
	name = NULL;
	p->n_sects++;
	ret = 0;
out:
	free(type);
	free(name);
	return ret;
}

static int lex_keyval(struct parser *p, int line, const char *s, const char *e)
{
	const char *eq = memchr(s, '=', (size_t)(e - s));
	const char *ke, *v;
	struct sect *sec;
	const struct ent *dup;
	struct ent *en;
	char *key = NULL;
	int ret = -1;

	if (!eq)
		return perr(p, line, "expected 'key = value' or '[section]', got '%.*s'",
			    (int)(e - s), s);
	for (ke = eq; ke > s && is_ws(ke[-1]); ke--)
		;
	if (ke == s)
		return perr(p, line, "missing key before '='");
	for (v = eq + 1; v < e && is_ws(*v); v++)
		;
	key = strndup(s, (size_t)(ke - s));
	if (!key)
		return vtb_error("out of memory");
	if (!p->n_sects) {
		ret = perr(p, line, "key '%s' outside a section", key);
		goto out;
	}
	if (p->n_keys == KEY_LIMIT) {
		ret = perr(p, line, "too many keys (limit %d in all sections)", KEY_LIMIT);
		goto out;
	}
	sec = &p->sects[p->n_sects - 1];
	dup = sect_ent(sec, key);
	if (dup) {
		ret = perr(p, line, "duplicate key '%s' in %s, first at %s:%d", key, sec->title,
			   p->path, dup->line);
		goto out;
	}
	if ((size_t)(e - v) > VALUE_LIMIT) {
		ret = perr(p, line, "value of '%s' too long (%zu bytes, limit %d)", key,
			   (size_t)(e - v), VALUE_LIMIT);
		goto out;
	}
	if (grow(&sec->ents, &sec->alloc, sec->n + 1, sizeof(*sec->ents)) < 0)
		goto out;
	en = &sec->ents[sec->n];
	memset(en, 0, sizeof(*en));
	if (vtb_strbuf_add(&en->val, v, (size_t)(e - v)) < 0 ||
	    vtb_strbuf_addstr(&en->val, "") < 0) {
		vtb_strbuf_release(&en->val);
		goto out;
	}
	en->key = key;
	en->line = line;
	key = NULL;
	sec->n++;
	p->n_keys++;
	ret = sect_index(sec);
out:
	free(key);
	return ret;
}

static int lex_continuation(struct parser *p, int line, const char *s, const char *e)
{
	struct sect *sec = &p->sects[p->n_sects - 1];
	struct ent *en = &sec->ents[sec->n - 1];
	size_t add = (size_t)(e - s) + (en->val.len ? 1 : 0);

	if (en->val.len + add > VALUE_LIMIT)
		return perr(p, line, "value of '%s' too long (%zu bytes, limit %d)", en->key,
			    en->val.len + add, VALUE_LIMIT);
	if (en->val.len && vtb_strbuf_addstr(&en->val, " ") < 0)
		return -1;
	return vtb_strbuf_add(&en->val, s, (size_t)(e - s));
}

static int lex(struct parser *p, const char *text, size_t len)
{
	size_t pos = 0;
	int line = 0;
	bool can_continue = false;
	size_t key_indent = 0;

	while (pos < len) {
		const char *ln = text + pos, *s, *e, *q, *why;
		const char *nl = memchr(ln, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - ln) : len - pos;
		size_t indent;

		pos += n + (nl ? 1 : 0);
		line++;
		if (n && ln[n - 1] == '\r')
			n--;
		why = not_text((const unsigned char *)ln, n > LINE_LIMIT ? LINE_LIMIT + 1 : n,
			       n > LINE_LIMIT);
		if (why)
			return perr(p, line, "%s", why);
		if (n > LINE_LIMIT)
			return perr(p, line, "line too long (%zu bytes, limit %d)", n, LINE_LIMIT);
		s = ln;
		e = ln + n;
		while (s < e && is_ws(*s))
			s++;
		indent = (size_t)(s - ln);
		if (s == e) {
			can_continue = false;
			continue;
		}
		if (*s == ';' || *s == '#')
			continue;
		for (q = s + 1; q < e; q++)
			if ((*q == ';' || *q == '#') && is_ws(q[-1])) {
				e = q;
				break;
			}
		while (e > s && is_ws(e[-1]))
			e--;
		if (can_continue && indent > key_indent) {
			if (lex_continuation(p, line, s, e) < 0)
				return -1;
			continue;
		}
		if (*s == '[') {
			if (lex_header(p, line, s, e) < 0)
				return -1;
			can_continue = false;
		} else {
			if (lex_keyval(p, line, s, e) < 0)
				return -1;
			can_continue = true;
			key_indent = indent;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- values */

/* A value of @o as normalised text: decimal ints, bytes, "<n>ns", yes/no. */
static int norm_value(const struct vtb_opt *o, const char *text, char **out)
{
	struct vtb_cpuset set = { NULL, 0 };
	union vtb_optval v;

	*out = NULL;
	if (vtb_opt_parse(o, text, &v) < 0)
		return -1;
	if (vtb_opt_is_auto(o, &v)) {
		*out = strdup("auto");
	} else {
		switch (o->type) {
		case VTB_OPT_INT:
			*out = vtb_asprintf("%lld", v.i);
			break;
		case VTB_OPT_BOOL:
			*out = strdup(v.b ? "yes" : "no");
			break;
		case VTB_OPT_TIME:
			/* with its unit: a bare number would read as seconds */
			*out = vtb_asprintf("%lluns", (unsigned long long)v.u);
			break;
		case VTB_OPT_SIZE:
			*out = vtb_asprintf("%llu", (unsigned long long)v.u);
			break;
		case VTB_OPT_CPULIST:
			if (vtb_cpuset_parse(text, &set) < 0)
				return -1;
			*out = vtb_cpuset_format(&set);
			vtb_cpuset_release(&set);
			break;
		case VTB_OPT_STR:
		case VTB_OPT_ENUM:
			*out = strdup(text);
			break;
		}
	}
	return *out ? 0 : vtb_error("out of memory");
}

/* Where variables may be used and what they are worth. */
struct varctx {
	const char *where; /* "[baseline]" for messages */
	long long vcpus;   /* -1: $vcpus is not available */
	long long pct_base;
};

static int subst(const struct parser *p, int line, const struct varctx *vc, const char *key,
		 const char *elem, char **out)
{
	const struct vtb_host_ctx *h = p->host;
	size_t n = strlen(elem);
	long long v = 0, pct;
	char *hint = NULL;
	int ret = -1;

	*out = NULL;
	if (elem[0] == '$') {
		const char *var = elem + 1;
		const char *cands[] = { "$host_cpus", "$host_nodes", "$host_llcs",
					vc->vcpus >= 0 ? "$vcpus" : NULL, NULL };

		if (!strcmp(var, "host_cpus")) {
			v = h->host_cpus;
		} else if (!strcmp(var, "host_nodes")) {
			v = h->host_nodes;
		} else if (!strcmp(var, "host_llcs")) {
			v = h->host_llcs;
		} else if (!strcmp(var, "vcpus") && vc->vcpus >= 0) {
			v = vc->vcpus;
		} else if (!strcmp(var, "vcpus")) {
			ret = perr(p, line, "'$vcpus' cannot be used in '%s' of %s", key,
				   vc->where);
			goto out;
		} else {
			hint = did_you_mean(" (did you mean '%s'?)", vtb_suggest(cands, elem));
			ret = perr(p, line, "unknown variable '%s' in '%s'%s", elem, key,
				   hint ? hint : "");
			goto out;
		}
	} else if (n > 1 && elem[n - 1] == '%') {
		char *num = strndup(elem, n - 1);

		if (!num)
			return vtb_error("out of memory");
		if (vtb_parse_int(num, 0, 1000000, &pct) < 0 || num[0] < '0' || num[0] > '9') {
			free(num);
			ret = perr(p, line, "bad percentage '%s' for '%s'", elem, key);
			goto out;
		}
		free(num);
		v = vc->pct_base * pct / 100;
		if (v < 1)
			v = 1;
	} else {
		*out = strdup(elem);
		ret = *out ? 0 : vtb_error("out of memory");
		goto out;
	}
	*out = vtb_asprintf("%lld", v);
	ret = *out ? 0 : vtb_error("out of memory");
out:
	free(hint);
	return ret;
}

/*
 * The values of @o given as @text at @line: one element, or a comma list
 * for axes; variables substituted when @vc is given; normalised and
 * de-duplicated in order.
 */
static int values_of(const struct parser *p, int line, const struct vtb_opt *o, const char *key,
		     const char *text, bool axis, const struct varctx *vc, struct strv *out)
{
	const char *s = text;
	char *elem = NULL, *sub = NULL, *norm = NULL;
	int ret = -1;

	for (;;) {
		const char *c = axis ? strchr(s, ',') : NULL;
		const char *e = c ? c : s + strlen(s);
		const char *a = s, *b = e;

		while (a < b && is_ws(*a))
			a++;
		while (b > a && is_ws(b[-1]))
			b--;
		if (a == b) {
			if (axis && strchr(text, ','))
				ret = perr(p, line, "empty element in the list for '%s'", key);
			else
				ret = perr(p, line, "empty value for '%s'", key);
			goto out;
		}
		elem = strndup(a, (size_t)(b - a));
		if (!elem)
			goto oom;
		if (vc && (o->flags & VTB_OPT_VARS)) {
			if (subst(p, line, vc, key, elem, &sub) < 0)
				goto out;
		} else {
			sub = elem;
			elem = NULL;
		}
		if (norm_value(o, sub, &norm) < 0) {
			ret = perr(p, line, "%s", vtb_errmsg());
			goto out;
		}
		if (!strv_has(out, norm) && strv_push(out, norm) < 0)
			goto out;
		free(elem);
		free(sub);
		free(norm);
		elem = sub = norm = NULL;
		if (!c)
			break;
		s = c + 1;
	}
	ret = 0;
	goto out;
oom:
	ret = vtb_error("out of memory");
out:
	free(elem);
	free(sub);
	free(norm);
	return ret;
}

/* The text of @key in @s, or the table default; NULL when neither. */
static const char *val_of(const struct sect *s, const struct vtb_opt *table, const char *key,
			  int *line)
{
	const struct ent *e = sect_ent(s, key);
	const struct vtb_opt *o;

	if (e) {
		*line = e->line;
		return e->val.buf;
	}
	*line = s ? s->line : 1;
	o = vtb_opt_find(table, key);
	return o ? o->def : NULL;
}

/* One value of a non-axis option, normalised. */
static int single(const struct parser *p, const struct sect *s, const struct vtb_opt *table,
		  const char *key, char **out, int *line)
{
	const struct vtb_opt *o = vtb_opt_find(table, key);
	struct strv sv = { 0 };
	const char *text;
	int ret;

	*out = NULL;
	text = val_of(s, table, key, line);
	if (!text)
		return 0;
	ret = values_of(p, *line, o, key, text, false, NULL, &sv);
	if (ret == 0) {
		*out = sv.v[0];
		sv.v[0] = NULL;
	}
	strv_release(&sv);
	return ret;
}

static bool is_yes(const char *s)
{
	return s && !strcmp(s, "yes");
}

/* ---------------------------------------------------------------- sections */

static struct sect *find_sect(struct parser *p, int kind, const char *name)
{
	size_t i;

	for (i = 0; i < p->n_sects; i++)
		if (p->sects[i].kind == kind && (!name || !strcmp(p->sects[i].name, name)))
			return &p->sects[i];
	return NULL;
}

/*
 * A key of [sched NAME] (spec: docs/guest-runs.md "Sched profiles").  What the guest
 * kernel really offers is only known in the guest (the agent's probe);
 * here the shape: path components the agent can join safely, levels and
 * per-domain knobs that exist in some kernel, read-only files refused.
 */
static const char *const sched_levels[] = { "SMT", "CLS", "MC", "DIE", "PKG", "NUMA", NULL };
static const char *const domain_knobs[] = { "min_interval",  "max_interval",	 "busy_factor",
					    "imbalance_pct", "cache_nice_tries", NULL };

static bool good_component(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '_')
			return false;
	return true;
}

static bool in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return true;
	return false;
}

/* "cpu12" / "domain3": @pfx then a decimal number without leading zeros */
static bool numbered(const char *s, const char *pfx)
{
	size_t n = strlen(pfx);

	if (strncmp(s, pfx, n) || !s[n] || (s[n] == '0' && s[n + 1]))
		return false;
	return strspn(s + n, "0123456789") == strlen(s + n) && strlen(s + n) <= 5;
}

/*
 * [sched] cmdline: the harness's own parameters (vtbench.*) are not the
 * profile's.  Tokens are read as the kernel reads them (next_arg() in
 * lib/cmdline.c): split at white space outside double quotes, the quotes
 * then dropped, the name ending at the first '=': a quoted
 * "vtbench.nonce=..." is that parameter too.  An unbalanced quote would
 * swallow the rest of the line.
 */
static int check_cmdline(struct parser *p, const struct sect *s, const struct ent *e)
{
	static const char pfx[] = "vtbench.";
	const char *c = e->val.buf;

	while (*c) {
		size_t matched = 0; /* name characters equal to pfx so far */
		bool quoted = false, in_name = true, other = false;

		while (is_ws(*c))
			c++;
		if (!*c)
			break;
		for (; *c && (quoted || !is_ws(*c)); c++) {
			if (*c == '"') {
				quoted = !quoted;
				continue;
			}
			if (*c == '=')
				in_name = false;
			if (!in_name || other)
				continue;
			if (matched < sizeof(pfx) - 1 && *c == pfx[matched])
				matched++;
			else if (matched < sizeof(pfx) - 1)
				other = true;
		}
		if (quoted)
			return perr(p, e->line, "'cmdline' in %s: unbalanced '\"'", s->title);
		if (matched == sizeof(pfx) - 1)
			return perr(p, e->line,
				    "'cmdline' in %s: vtbench.* parameters belong to the harness",
				    s->title);
	}
	return 0;
}

/* cpuset.partition: a list of guest CPUs. */
static int check_partition(struct parser *p, const struct sect *s, const struct ent *e)
{
	struct vtb_cpuset set = { NULL, 0 };
	bool bad = vtb_cpuset_parse(e->val.buf, &set) < 0 || !set.n;

	vtb_cpuset_release(&set);
	if (bad)
		return perr(
			p, e->line,
			"bad CPU list '%s' for 'cpuset.partition' in %s: expected guest CPUs, e.g. 1 or 2-3",
			e->val.buf, s->title);
	return 0;
}

/* Splits @rest (a key's path after its prefix) at @sep into comp[] (at
 * most @max, malloc'ed, *n of them even on errors). */
static int key_components(struct parser *p, const struct sect *s, const struct ent *e,
			  const char *rest, char sep, char **comp, size_t max, size_t *n)
{
	const char *c;

	for (c = rest;; c++) {
		const char *e2 = strchr(c, sep);
		size_t len = e2 ? (size_t)(e2 - c) : strlen(c);

		if (!good_component(c, len))
			return perr(
				p, e->line,
				"bad key '%s' in %s: path component '%.*s' must be letters, digits and '_'",
				e->key, s->title, (int)len, c);
		if (*n == max)
			return perr(p, e->line, "bad key '%s' in %s: too many path components",
				    e->key, s->title);
		comp[*n] = strndup(c, len);
		if (!comp[(*n)++])
			return vtb_error("out of memory");
		if (!e2)
			return 0;
		c = e2;
	}
}

/* debugfs.domains/LEVEL/KNOB or debugfs.domains/cpuN/domainM/KNOB (@n
 * components in @comp): a known level, a writable knob, an integer. */
static int check_domain_key(struct parser *p, const struct sect *s, const struct ent *e,
			    char *const *comp, size_t n)
{
	const char *key = e->key, *val = e->val.buf, *knob = comp[n - 1];
	char *hint = NULL;
	int ret;

	if (strcmp(comp[0], "domains") || (n != 3 && n != 4))
		return perr(
			p, e->line,
			"bad key '%s' in %s: expected debugfs.KNOB, debugfs.domains/LEVEL/KNOB or debugfs.domains/cpuN/domainM/KNOB",
			key, s->title);
	if (n == 3 && !in_list(sched_levels, comp[1])) {
		hint = did_you_mean(" (did you mean '%s'?)", vtb_suggest(sched_levels, comp[1]));
		ret = perr(
			p, e->line,
			"unknown sched-domain level '%s' in '%s'%s: one of SMT, CLS, MC, DIE, PKG, NUMA",
			comp[1], key, hint ? hint : "");
		free(hint);
		return ret;
	}
	if (n == 4 && (!numbered(comp[1], "cpu") || !numbered(comp[2], "domain")))
		return perr(p, e->line, "bad key '%s' in %s: expected domains/cpuN/domainM/KNOB",
			    key, s->title);
	if (!strcmp(knob, "flags") || !strcmp(knob, "name"))
		return perr(p, e->line, "'%s' in %s: '%s' is read-only", key, s->title, knob);
	if (!in_list(domain_knobs, knob)) {
		hint = did_you_mean(" (did you mean '%s'?)", vtb_suggest(domain_knobs, knob));
		ret = perr(
			p, e->line,
			"unknown per-domain knob '%s' in '%s'%s: one of min_interval, max_interval, busy_factor, imbalance_pct, cache_nice_tries",
			knob, key, hint ? hint : "");
		free(hint);
		return ret;
	}
	if (strspn(val, "0123456789") != strlen(val) || strlen(val) > 10)
		return perr(p, e->line, "'%s' in %s must be a non-negative integer, got '%s'", key,
			    s->title, val);
	return 0;
}

static int check_sched_key(struct parser *p, const struct sect *s, const struct ent *e)
{
	char *comp[5] = { NULL };
	const char *rest;
	size_t n = 0, i;
	char sep;
	int ret;

	if (!strcmp(e->key, "cpuset.partition"))
		return check_partition(p, s, e);
	if (!strncmp(e->key, "sysctl.", 7)) {
		rest = e->key + 7;
		sep = '.';
	} else if (!strncmp(e->key, "debugfs.", 8)) {
		rest = e->key + 8;
		sep = '/';
	} else {
		return check_cmdline(p, s, e);
	}
	ret = key_components(p, s, e, rest, sep, comp, VTB_ARRAY_SIZE(comp), &n);
	/* sysctl.A.B and debugfs.KNOB: any well-formed path */
	if (!ret && sep == '/' && !(n == 1 && strcmp(comp[0], "domains")))
		ret = check_domain_key(p, s, e, comp, n);
	for (i = 0; i < n; i++)
		free(comp[i]);
	return ret;
}

static int check_keys(struct parser *p)
{
	size_t i, j;
	char *hint;
	int ret;

	for (i = 0; i < p->n_sects; i++) {
		const struct sect *s = &p->sects[i];
		const struct vtb_opt *table = sectdefs[s->kind].opts;

		for (j = 0; j < s->n; j++) {
			const struct ent *e = &s->ents[j];
			const struct vtb_opt *o;

			if (!e->val.len)
				return perr(p, e->line, "empty value for '%s'", e->key);
			if (s->kind == S_WORKLOAD)
				continue; /* checked against the workload's table */
			o = vtb_opt_find(table, e->key);
			if (!o) {
				hint = did_you_mean(" (did you mean '%s'?)",
						    vtb_opt_suggest(table, e->key));
				ret = perr(p, e->line, "unknown key '%s' in %s%s", e->key, s->title,
					   hint ? hint : "");
				free(hint);
				return ret;
			}
			if (s->kind == S_SCHED) {
				if (check_sched_key(p, s, e) < 0)
					return -1;
			} else if (o->flags & VTB_OPT_PREFIX) {
				const char *rest = e->key + strlen(o->name);

				if (strstr(rest, "..") || rest[0] == '/' ||
				    strspn(rest, "abcdefghijklmnopqrstuvwxyz"
						 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/") !=
					    strlen(rest))
					return perr(p, e->line, "bad key '%s' in %s", e->key,
						    s->title);
			}
		}
	}
	return 0;
}

static int split_globs(struct parser *p, const struct sect *g, const char *key, struct strv *out)
{
	const struct ent *e = sect_ent(g, key);
	const char *s;

	if (!e)
		return 0;
	p->only_line = e->line;
	for (s = e->val.buf;;) {
		const char *c = strchr(s, ',');
		const char *end = c ? c : s + strlen(s);
		const char *a = s, *b = end;
		char *glob;
		int r;

		while (a < b && is_ws(*a))
			a++;
		while (b > a && is_ws(b[-1]))
			b--;
		if (a == b)
			return perr(p, e->line, "empty element in the list for '%s'", key);
		glob = strndup(a, (size_t)(b - a));
		if (!glob)
			return vtb_error("out of memory");
		r = strv_push(out, glob);
		free(glob);
		if (r < 0)
			return -1;
		if (!c)
			break;
		s = c + 1;
	}
	return 0;
}

/* housekeeping = auto | none | a CPU list, checked where it is written
 * (a [global] one too when there is no [vm] to use it). */
static int check_housekeeping(const struct parser *p, const char *v, int line)
{
	static const char *const words[] = { "auto", "none", NULL };
	struct vtb_cpuset set = { NULL, 0 };
	char *hint;
	int ret;

	if (!v || !strcmp(v, "auto") || !strcmp(v, "none"))
		return 0;
	if (vtb_cpuset_parse(v, &set) == 0) {
		size_t i, j, left = 0;

		/* what the host decides is said here, at the key's own line
		 * ([global] or [vm]), not at a configuration's */
		for (i = 0; p->host->model && i < set.n; i++) {
			for (j = 0; j < p->host->n_compact && p->host->compact[j] != set.cpus[i];
			     j++)
				;
			if (j == p->host->n_compact) {
				ret = perr(
					p, line,
					"housekeeping = %s: CPU %d is not an online CPU this host allows",
					v, set.cpus[i]);
				vtb_cpuset_release(&set);
				return ret;
			}
		}
		for (j = 0; j < p->host->n_compact; j++)
			left += !vtb_cpuset_has(&set, p->host->compact[j]);
		vtb_cpuset_release(&set);
		if (p->host->model && p->host->n_compact && !left)
			return perr(p, line, "housekeeping = %s leaves no CPU for guests", v);
		return 0;
	}
	hint = did_you_mean(" (did you mean '%s'?)", vtb_suggest(words, v));
	ret = perr(p, line, "housekeeping = %s: not auto, none or a CPU list%s", v,
		   hint ? hint : "");
	free(hint);
	return ret;
}

/*
 * reps = N, or auto with min_reps, max_reps and budget (which only make
 * sense with auto: given with reps = N they are an error).  With auto,
 * m->reps is the cap, so the boot order and plan count the most boots.
 */
static int parse_reps(struct parser *p, const struct sect *g, const char *v, int reps_line)
{
	static const char *const auto_keys[] = { "min_reps", "max_reps", "budget", "auto_compare" };
	struct vtb_matrix *m = p->m;
	char *t = NULL;
	int line, min_line, max_line;
	bool oom = false;

	m->reps_auto = !strcmp(v, "auto");
	if (!m->reps_auto) {
		m->reps = strtoll(v, NULL, 10);
		for (size_t i = 0; i < VTB_ARRAY_SIZE(auto_keys); i++)
			if (sect_ent(g, auto_keys[i]))
				return perr(p, sect_ent(g, auto_keys[i])->line,
					    "%s is for reps = auto (reps is %lld, line %d)",
					    auto_keys[i], m->reps, reps_line);
	}
	/* with reps = N, the defaults: what --reps auto would use */
	if (single(p, g, global_opts, "min_reps", &t, &min_line) < 0)
		return -1;
	m->min_reps = strtoll(t, NULL, 10);
	free(t);
	if (single(p, g, global_opts, "max_reps", &t, &max_line) < 0)
		return -1;
	m->max_reps = strtoll(t, NULL, 10);
	free(t);
	if (single(p, g, global_opts, "budget", &t, &line) < 0)
		return -1;
	m->budget_ns = strtoull(t, NULL, 10);
	free(t);
	if (single(p, g, global_opts, "auto_compare", &t, &line) < 0)
		return -1;
	if (!strncmp(t, "axis:", 5) && t[5]) {
		m->auto_axis = strdup(t + 5);
		oom = !m->auto_axis;
	} else if (!strncmp(t, "baseline:", 9) && t[9]) {
		m->auto_baseline = strdup(t + 9);
		oom = !m->auto_baseline;
	} else if (strcmp(t, "own")) {
		perr(p, line, "auto_compare = %s: expected own, axis:NAME or baseline:SPEC", t);
		free(t);
		return -1;
	}
	free(t);
	if (oom)
		return vtb_error("out of memory");
	if (m->min_reps > m->max_reps)
		return perr(p, sect_ent(g, "min_reps") ? min_line : max_line,
			    "min_reps %lld is above max_reps %lld", m->min_reps, m->max_reps);
	if (m->reps_auto)
		m->reps = m->max_reps;
	return 0;
}

static int parse_global(struct parser *p)
{
	struct sect *g = find_sect(p, S_GLOBAL, NULL);
	struct vtb_matrix *m = p->m;
	char *v = NULL;
	int line, ret = -1;

	if (single(p, g, global_opts, "reps", &v, &line) < 0 || parse_reps(p, g, v, line) < 0)
		goto out;
	free(v);
	if (single(p, g, global_opts, "timeout", &v, &line) < 0)
		goto out;
	m->timeout_ns = strtoull(v, NULL, 10);
	free(v);
	if (single(p, g, global_opts, "placement_interval", &v, &line) < 0)
		goto out;
	m->placement_interval_ns = strtoull(v, NULL, 10);
	free(v);
	v = NULL;
	if (m->placement_interval_ns && m->placement_interval_ns < 1000000) {
		ret = perr(p, line, "placement_interval below 1ms (0 turns sampling off)");
		goto out;
	}
	if (single(p, g, global_opts, "order", &v, &line) < 0)
		goto out;
	if (!strcmp(v, "interleave")) {
		m->order = VTB_ORDER_INTERLEAVE;
	} else if (!strcmp(v, "sequential")) {
		m->order = VTB_ORDER_SEQUENTIAL;
	} else if (strncmp(v, "random:", strlen("random:"))) {
		ret = perr(
			p, line,
			"invalid value '%s' for 'order': expected one of interleave, sequential, random:SEED",
			v);
		goto out;
	} else {
		const char *seed = v + strlen("random:");
		char *end;

		m->order = VTB_ORDER_RANDOM;
		errno = 0;
		m->seed = strtoull(seed, &end, 10);
		if (errno || *end || seed[0] < '0' || seed[0] > '9') {
			ret = perr(p, line,
				   "bad seed '%s' in 'order': expected an unsigned 64-bit integer",
				   seed);
			goto out;
		}
	}
	free(v);
	v = NULL;
	if (m->reps_auto && m->order == VTB_ORDER_SEQUENTIAL) {
		ret = perr(
			p, line,
			"order = sequential with reps = auto: the stopping rule needs interleaved rounds (interleave or random:SEED)");
		goto out;
	}
	if (single(p, g, global_opts, "name", &m->name, &line) < 0 ||
	    single(p, g, global_opts, "db", &m->db, &line) < 0 ||
	    single(p, g, global_opts, "kernel", &m->kernel, &line) < 0 ||
	    single(p, g, global_opts, "uri", &m->uri, &line) < 0 ||
	    single(p, g, global_opts, "accel", &m->accel, &line) < 0 ||
	    single(p, g, global_opts, "host_id", &m->host_id, &line) < 0 ||
	    single(p, g, global_opts, "host_topology", &v, &line) < 0)
		goto out;
	if (!m->name) {
		const char *base = strrchr(p->path, '/');
		size_t n;

		base = base ? base + 1 : p->path;
		n = strlen(base);
		if (n > 5 && !strcmp(base + n - 5, ".conf"))
			n -= 5;
		m->name = strndup(base, n);
		if (!m->name) {
			ret = vtb_error("out of memory");
			goto out;
		}
	}
	if (split_globs(p, g, "only", &p->only) < 0 ||
	    split_globs(p, g, "exclude", &p->exclude) < 0)
		goto out;
	free(v);
	v = NULL;
	if (single(p, g, global_opts, "housekeeping", &v, &line) < 0 ||
	    check_housekeeping(p, v, line) < 0)
		goto out;
	ret = 0;
out:
	free(v);
	return ret;
}

/* [sched NAME] and [topology NAME]: shapes only. */
static int check_named(struct parser *p)
{
	struct strv sv = { 0 };
	size_t i, j;
	int ret = -1;

	for (i = 0; i < p->n_sects; i++) {
		const struct sect *s = &p->sects[i];
		const struct vtb_opt *table = sectdefs[s->kind].opts;

		if (s->kind != S_TOPOLOGY && s->kind != S_SCHED)
			continue;
		for (j = 0; j < s->n; j++) {
			const struct vtb_opt *o = vtb_opt_find(table, s->ents[j].key);

			if (values_of(p, s->ents[j].line, o, s->ents[j].key, s->ents[j].val.buf,
				      false, NULL, &sv) < 0)
				goto out;
			strv_release(&sv);
		}
	}
	ret = 0;
out:
	strv_release(&sv);
	return ret;
}

static int check_workloads(struct parser *p)
{
	const char *names[64];
	size_t i, j, k = 0;
	char *hint = NULL;
	int ret = -1;
	bool any = false;

	for (i = 0; vtb_workloads[i] && k + 1 < VTB_ARRAY_SIZE(names); i++)
		if (!vtb_workloads[i]->hidden)
			names[k++] = vtb_workloads[i]->name;
	names[k] = NULL;
	for (i = 0; i < p->n_sects; i++) {
		const struct sect *s = &p->sects[i];
		const struct ent *t;
		const struct vtb_workload_ops *w;

		if (s->kind != S_WORKLOAD)
			continue;
		any = true;
		t = sect_ent(s, "type");
		if (!t) {
			ret = perr(p, s->line, "%s has no 'type =' (one of the workloads)",
				   s->title);
			goto out;
		}
		w = vtb_workload_find(t->val.buf);
		if (!w) {
			hint = did_you_mean(" (did you mean '%s'?)",
					    vtb_suggest(names, t->val.buf));
			ret = perr(p, t->line, "unknown workload type '%s'%s", t->val.buf,
				   hint ? hint : "");
			goto out;
		}
		for (j = 0; j < s->n; j++) {
			const struct ent *e = &s->ents[j];

			if (e == t || vtb_opt_find(w->opts, e->key))
				continue;
			hint = did_you_mean(" (did you mean '%s'?)",
					    vtb_opt_suggest(w->opts, e->key));
			ret = perr(p, e->line, "unknown key '%s' in %s (%s)%s", e->key, s->title,
				   w->name, hint ? hint : "");
			goto out;
		}
	}
	if (!any) {
		ret = perr(p, 1, "no [workload] section: nothing to run");
		goto out;
	}
	ret = 0;
out:
	free(hint);
	return ret;
}

/* ---------------------------------------------------------------- expansion */

/* One axis of a cross product. */
struct axis {
	const char *key;
	struct strv vals;
};

static void axes_release(struct axis *ax, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		strv_release(&ax[i].vals);
}

/* Advances the odometer @idx over @ax; false when it wrapped. */
static bool next_combo(const struct axis *ax, size_t n, size_t *idx)
{
	size_t i = n;

	while (i--) {
		if (++idx[i] < ax[i].vals.n)
			return true;
		idx[i] = 0;
	}
	return false;
}

static int product(const struct parser *p, int line, const struct axis *ax, size_t n, size_t limit,
		   size_t *out)
{
	size_t i, total = 1;

	for (i = 0; i < n; i++) {
		if (ax[i].vals.n && total > limit / ax[i].vals.n)
			return perr(p, line, "matrix too large (more than %zu combinations)",
				    limit);
		total *= ax[i].vals.n;
	}
	if (total > limit)
		return perr(p, line, "matrix too large (%zu combinations, limit %zu)", total,
			    limit);
	*out = total;
	return 0;
}

static bool glob_any(const struct strv *globs, const char *s)
{
	size_t i;

	for (i = 0; i < globs->n; i++)
		if (!fnmatch(globs->v[i], s, 0))
			return true;
	return false;
}

static bool keep_cell(const struct parser *p, const char *label, const char *cell)
{
	char *full = vtb_asprintf("%s/%s", label, cell);
	bool keep;

	if (!full)
		return true;
	keep = !p->only.n || glob_any(&p->only, label) || glob_any(&p->only, full);
	if (glob_any(&p->exclude, label) || glob_any(&p->exclude, full))
		keep = false;
	free(full);
	return keep;
}

int vtb_cell_set_resolved(struct vtb_cell *c, const char *key, const char *value)
{
	char *v = strdup(value), *text;
	size_t i, alloc = c->resolved.n;
	json_t *j;

	if (!v)
		return vtb_error("out of memory");
	for (i = 0; i < c->resolved.n && strcmp(c->resolved.kv[i].key, key); i++)
		;
	if (i < c->resolved.n) {
		free(c->resolved.kv[i].value);
		c->resolved.kv[i].value = v;
	} else {
		int r = params_add(&c->resolved, &alloc, key, v);

		free(v);
		if (r < 0)
			return -1;
		params_sort(&c->resolved);
	}
	j = params_json(&c->resolved);
	text = canonical(j);
	json_decref(j);
	if (!text)
		return vtb_error("out of memory");
	free(c->resolved_json);
	c->resolved_json = text;
	return 0;
}

static void cell_release(struct vtb_cell *c)
{
	free(c->note);
	free(c->name);
	free(c->workload);
	params_release(&c->params);
	params_release(&c->resolved);
	free(c->params_json);
	free(c->resolved_json);
}

static void config_release(struct vtb_config *c)
{
	size_t i;

	free(c->label);
	params_release(&c->params);
	free(c->params_json);
	vtb_cpuset_release(&c->cpus);
	free(c->mems);
	free(c->plan_json);
	if (c->plan && c->plan_free)
		c->plan_free(c->plan);
	for (i = 0; i < c->n_vm_cpus; i++)
		vtb_cpuset_release(&c->vm_cpus[i]);
	free(c->vm_cpus);
	free(c->why_not);
	for (i = 0; i < c->n_cells; i++)
		cell_release(&c->cells[i]);
	free(c->cells);
}

/* A copy of an earlier cell's key and name: c->cells moves as it grows. */
struct seen_cell {
	char key[VTB_KEY_LEN + 1];
	const char *name; /* owned by the cell, stable */
};

static int cmp_seen_cell(const void *a, const void *b)
{
	return strcmp(((const struct seen_cell *)a)->key, ((const struct seen_cell *)b)->key);
}

/* The keys and names of @c's cells so far, sorted by key (NULL: none). */
static int seen_cells(const struct vtb_config *c, struct seen_cell **out)
{
	struct seen_cell *e;
	size_t i;

	*out = NULL;
	if (!c->n_cells)
		return 0;
	e = malloc(c->n_cells * sizeof(*e));
	if (!e)
		return vtb_error("out of memory");
	for (i = 0; i < c->n_cells; i++) {
		memcpy(e[i].key, c->cells[i].key, sizeof(e[i].key));
		e[i].name = c->cells[i].name;
	}
	qsort(e, c->n_cells, sizeof(*e), cmp_seen_cell);
	*out = e;
	return 0;
}

/*
 * A workload section's axes: each option of @w set in @s or with a
 * default (integers may use variables), then the prefix keys of @s.
 * *out holds *n axes, released by the caller even on errors.
 */
static int workload_axes(struct parser *p, const struct sect *s, const struct vtb_workload_ops *w,
			 long long vcpus, struct axis **out, size_t *n)
{
	struct varctx vc = { s->title, vcpus, vcpus };
	size_t n_opts = s->n, i; /* prefix keys: at most one per entry */
	struct axis *ax;

	for (i = 0; w->opts && w->opts[i].name; i++)
		n_opts++;
	ax = *out = calloc(n_opts + 1, sizeof(*ax));
	if (!ax)
		return vtb_error("out of memory");
	for (i = 0; w->opts && w->opts[i].name; i++) {
		const struct vtb_opt *o = &w->opts[i];
		const struct ent *e;
		struct vtb_opt vo = *o;

		if (o->flags & VTB_OPT_PREFIX)
			continue;
		e = sect_ent(s, o->name);
		if (!e && !o->def)
			continue;
		if (vo.type == VTB_OPT_INT)
			vo.flags |= VTB_OPT_VARS;
		ax[*n].key = o->name;
		if (values_of(p, e ? e->line : s->line, &vo, o->name, e ? e->val.buf : o->def, true,
			      &vc, &ax[(*n)++].vals) < 0)
			return -1;
	}
	for (i = 0; i < s->n; i++) {
		const struct ent *e = &s->ents[i];
		const struct vtb_opt *o = vtb_opt_find(w->opts, e->key);

		if (!o || !(o->flags & VTB_OPT_PREFIX))
			continue;
		ax[*n].key = e->key;
		if (values_of(p, e->line, o, e->key, e->val.buf, true, &vc, &ax[(*n)++].vals) < 0)
			return -1;
	}
	return 0;
}

/* The cell of @s at @idx: its name (NAME plus the varying axes), params
 * and resolved (the same until the host resolves llc = auto). */
static int make_cell(const struct sect *s, const struct vtb_workload_ops *w, const struct axis *ax,
		     size_t n_ax, const size_t *idx, struct vtb_cell *cell)
{
	struct vtb_strbuf name = VTB_STRBUF_INIT;
	size_t palloc = 0, ralloc = 0, i;

	if (vtb_strbuf_addstr(&name, s->name) < 0)
		goto fail;
	for (i = 0; i < n_ax; i++) {
		const char *v = ax[i].vals.v[idx[i]];

		if (ax[i].vals.n > 1 && vtb_strbuf_addf(&name, " %s=%s", ax[i].key, v) < 0)
			goto fail;
		if (params_add(&cell->params, &palloc, ax[i].key, v) < 0 ||
		    params_add(&cell->resolved, &ralloc, ax[i].key, v) < 0)
			goto fail;
	}
	params_sort(&cell->params);
	params_sort(&cell->resolved);
	cell->name = vtb_strbuf_detach(&name);
	cell->workload = strdup(w->name);
	if (!cell->name || !cell->workload)
		return vtb_error("out of memory");
	return 0;
fail:
	vtb_strbuf_release(&name);
	return -1;
}

/* The cell's JSON texts and its key: the configuration's (@cobj), the
 * workload type and the params, canonical. */
static int cell_key(struct vtb_cell *cell, const struct vtb_workload_ops *w, const json_t *cobj)
{
	json_t *pj = params_json(&cell->params), *rj = params_json(&cell->resolved), *obj;
	char *ctext;
	int ret = 0;

	cell->params_json = canonical(pj);
	cell->resolved_json = canonical(rj);
	obj = json_pack("{s:O, s:s, s:O}", "config", cobj, "workload", w->name, "params", pj);
	ctext = canonical(obj);
	if (!cell->params_json || !cell->resolved_json || !ctext)
		ret = vtb_error("out of memory");
	else
		vtb_key_of(ctext, cell->key);
	free(ctext);
	json_decref(obj);
	json_decref(pj);
	json_decref(rj);
	return ret;
}

/* The cells of one workload section for @c, appended to c->cells. */
static int expand_workload(struct parser *p, struct vtb_config *c, size_t *alloc,
			   const struct sect *s, long long vcpus, const json_t *cobj)
{
	const struct vtb_workload_ops *w = vtb_workload_find(sect_ent(s, "type")->val.buf);
	struct axis *ax = NULL;
	size_t n_ax = 0, total = 0, *idx = NULL, n_earlier = c->n_cells;
	struct seen_cell *earlier = NULL;
	struct vtb_cell cell;
	int ret = -1;

	memset(&cell, 0, sizeof(cell));
	if (seen_cells(c, &earlier) < 0 || workload_axes(p, s, w, vcpus, &ax, &n_ax) < 0 ||
	    product(p, s->line, ax, n_ax, CELL_LIMIT, &total) < 0)
		goto out;
	if (p->n_cells + total > CELL_LIMIT) {
		ret = perr(p, s->line, "matrix too large (more than %d cells)", CELL_LIMIT);
		goto out;
	}
	idx = calloc(n_ax + 1, sizeof(*idx));
	if (!idx) {
		ret = vtb_error("out of memory");
		goto out;
	}
	do {
		const struct seen_cell *hit;
		struct seen_cell want;

		memset(&cell, 0, sizeof(cell));
		if (make_cell(s, w, ax, n_ax, idx, &cell) < 0)
			goto out;
		if (!keep_cell(p, c->label, cell.name)) {
			cell_release(&cell);
			memset(&cell, 0, sizeof(cell));
			continue;
		}
		if (cell_key(&cell, w, cobj) < 0)
			goto out;
		/* the key leaves the section name out: two sections with the same
		 * type and parameters are one measurement, said twice (cells of
		 * one section differ by construction) */
		memcpy(want.key, cell.key, sizeof(want.key));
		hit = n_earlier
			      ? bsearch(&want, earlier, n_earlier, sizeof(*earlier), cmp_seen_cell)
			      : NULL;
		if (hit) {
			ret = perr(
				p, s->line,
				"[workload %s] measures the same as '%s' (same type and parameters): remove one",
				s->name, hit->name);
			goto out;
		}
		if (grow(&c->cells, alloc, c->n_cells + 1, sizeof(*c->cells)) < 0)
			goto out;
		c->cells[c->n_cells++] = cell;
		memset(&cell, 0, sizeof(cell));
		p->n_cells++;
	} while (next_combo(ax, n_ax, idx));
	ret = 0;
out:
	free(earlier);
	cell_release(&cell);
	axes_release(ax, n_ax);
	free(ax);
	free(idx);
	return ret;
}

/*
 * The host's LLC bytes over @c's pCPUs for its cells' llc = auto (the
 * options flagged VTB_OPT_HOST_LLC): a baseline's when it is expanded, a
 * VM configuration's once planned.  Unknown: "auto" stays, the agent
 * resolves it where it runs.
 */
static int resolve_host_llc(const struct vtb_host_ctx *h, struct vtb_config *c)
{
	char *llc = NULL;
	uint64_t bytes;
	size_t i, j;
	int ret = -1;

	if (!c->cpus.n || !h->llc_bytes)
		return 0;
	if (h->llc_bytes(h, &c->cpus, &bytes) < 0 || !bytes) {
		vtb_error_clear(); /* unknown: the agent resolves "auto" itself */
		return 0;
	}
	llc = vtb_asprintf("%llu", (unsigned long long)bytes);
	if (!llc)
		return vtb_error("out of memory");
	for (i = 0; i < c->n_cells; i++) {
		struct vtb_cell *cell = &c->cells[i];
		const struct vtb_workload_ops *w = vtb_workload_find(cell->workload);

		for (j = 0; w && j < cell->params.n; j++) {
			const struct vtb_kv *kv = &cell->params.kv[j];
			const struct vtb_opt *o = vtb_opt_find(w->opts, kv->key);

			if (o && (o->flags & VTB_OPT_HOST_LLC) && !strcmp(kv->value, "auto") &&
			    vtb_cell_set_resolved(cell, kv->key, llc) < 0)
				goto out;
		}
	}
	ret = 0;
out:
	free(llc);
	return ret;
}

/*
 * Finishes @c (kind, label, params, cpus set by the caller): key, cells,
 * filters.  Appends it to the matrix, or drops it when no cell is left.
 */
static int add_config(struct parser *p, struct vtb_config *c, long long vcpus)
{
	struct vtb_matrix *m = p->m;
	json_t *cobj = NULL;
	char *ctext = NULL;
	size_t i, alloc = 0;
	int ret = -1;

	params_sort(&c->params);
	cobj = json_pack("{s:s, s:o}", "kind", c->kind == VTB_CONFIG_VM ? "vm" : "baseline",
			 "params", params_json(&c->params));
	ctext = canonical(cobj);
	c->params_json = canonical(json_object_get(cobj, "params"));
	if (!ctext || !c->params_json)
		goto oom;
	vtb_key_of(ctext, c->key);
	for (i = 0; i < p->n_sects; i++)
		if (p->sects[i].kind == S_WORKLOAD &&
		    expand_workload(p, c, &alloc, &p->sects[i], vcpus, cobj) < 0)
			goto out;
	if (resolve_host_llc(p->host, c) < 0)
		goto out;
	if (!c->n_cells) {
		config_release(c);
		ret = 0;
		goto out;
	}
	if (m->n_configs >= CONFIG_LIMIT) {
		ret = perr(p, 1, "matrix too large (more than %d configurations)", CONFIG_LIMIT);
		goto out;
	}
	if (grow(&m->configs, &p->alloc_configs, m->n_configs + 1, sizeof(*m->configs)) < 0)
		goto out;
	m->configs[m->n_configs++] = *c;
	memset(c, 0, sizeof(*c));
	ret = 0;
	goto out;
oom:
	ret = vtb_error("out of memory");
out:
	if (ret < 0)
		config_release(c);
	memset(c, 0, sizeof(*c));
	json_decref(cobj);
	free(ctext);
	return ret;
}

/* [baseline] confinement (or its former name confine); in the key as
 * "confine", so keys made before the rename stay. */
static int baseline_confinement(struct parser *p, char **out)
{
	const struct sect *s = find_sect(p, S_BASELINE, NULL);
	int line;

	if (sect_ent(s, "confine") && sect_ent(s, "confinement"))
		return perr(p, sect_ent(s, "confine")->line,
			    "both confine and confinement in [baseline]: keep confinement");
	if (sect_ent(s, "confine"))
		return single(p, s, baseline_opts, "confine", out, &line);
	return single(p, s, baseline_opts, "confinement", out, &line);
}

static int expand_baseline(struct parser *p)
{
	const struct sect *s = find_sect(p, S_BASELINE, NULL);
	const struct vtb_host_ctx *h = p->host;
	struct varctx vc = { "[baseline]", -1, h->host_cpus };
	struct vtb_cpuset pool = { NULL, 0 }, set = { NULL, 0 };
	struct strv cpus = { 0 };
	struct vtb_config c;
	char *enabled = NULL, *cpuset = NULL, *confine = NULL, *dflt = NULL, *vm = NULL;
	const char *text;
	size_t i, alloc;
	int line, cpus_line, cpuset_line = 0, ret = -1;

	memset(&c, 0, sizeof(c));
	if (single(p, s, baseline_opts, "vm", &vm, &line) < 0)
		goto out;
	p->vm_baselines = s && is_yes(vm);
	if (single(p, s, baseline_opts, "enabled", &enabled, &line) < 0 ||
	    single(p, s, baseline_opts, "cpuset", &cpuset, &cpuset_line) < 0 ||
	    baseline_confinement(p, &confine) < 0)
		goto out;
	if (cpuset && vtb_cpuset_parse(cpuset, &set) < 0)
		goto out;
	/* the pool keeps the compact order (not a sorted set) */
	pool.cpus = calloc(h->n_compact + 1, sizeof(*pool.cpus));
	if (!pool.cpus)
		goto oom;
	for (i = 0; i < h->n_compact; i++)
		if (!cpuset || vtb_cpuset_has(&set, h->compact[i]))
			pool.cpus[pool.n++] = h->compact[i];
	if (cpuset && !pool.n) {
		ret = perr(p, cpuset_line,
			   "cpuset = %s holds none of the %zu CPUs this host allows", cpuset,
			   h->n_compact);
		goto out;
	}
	text = val_of(s, baseline_opts, "cpus", &cpus_line);
	if (!sect_ent(s, "cpus")) {
		/* default: every CPU of the pool */
		dflt = vtb_asprintf("%zu", pool.n ? pool.n : 1);
		if (!dflt)
			goto oom;
		text = dflt;
	}
	if (values_of(p, cpus_line, vtb_opt_find(baseline_opts, "cpus"), "cpus", text, true, &vc,
		      &cpus) < 0)
		goto out;
	if (!is_yes(enabled)) {
		p->vm_baselines = false;
		ret = 0;
		goto out;
	}
	for (i = 0; i < cpus.n; i++) {
		long long n = strtoll(cpus.v[i], NULL, 10);
		size_t k;

		if ((size_t)n > pool.n) {
			ret = perr(p, cpus_line,
				   "cpus = %lld but the host has only %zu CPUs available", n,
				   pool.n);
			goto out;
		}
		memset(&c, 0, sizeof(c));
		alloc = 0;
		c.kind = VTB_CONFIG_BASELINE;
		c.runnable = true;
		c.label = vtb_asprintf("baseline cpus=%lld", n);
		if (!c.label)
			goto oom;
		if (params_add(&c.params, &alloc, "cpus", cpus.v[i]) < 0 ||
		    params_add(&c.params, &alloc, "confine", confine) < 0 ||
		    (cpuset && params_add(&c.params, &alloc, "cpuset", cpuset) < 0))
			goto out;
		for (k = 0; k < (size_t)n; k++)
			if (vtb_cpuset_add(&c.cpus, pool.cpus[k]) < 0)
				goto out;
		if (h->mems_of)
			c.mems = h->mems_of(h, &c.cpus);
		if (add_config(p, &c, n) < 0)
			goto out;
	}
	ret = 0;
	goto out;
oom:
	ret = vtb_error("out of memory");
out:
	config_release(&c);
	free(enabled);
	free(cpuset);
	free(confine);
	free(dflt);
	free(vm);
	strv_release(&cpus);
	vtb_cpuset_release(&pool);
	vtb_cpuset_release(&set);
	return ret;
}

static bool same_set(const struct vtb_cpuset *a, const struct vtb_cpuset *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->cpus, b->cpus, a->n * sizeof(int)));
}

/*
 * The baseline of each planned VM configuration: the agent on exactly
 * the VM's pCPUs and memory nodes, so the comparison is like for like.
 * One per distinct pCPU set; none where a baseline of the cpus axis
 * already has that set.
 */
static int add_vm_baseline(struct parser *p, const struct vtb_cpuset *set, const char *mems,
			   const char *confine)
{
	struct vtb_matrix *m = p->m;
	struct vtb_config c;
	char *cpus = NULL, *count = NULL, *own_mems = NULL;
	size_t j, alloc = 0;
	int ret = -1;

	memset(&c, 0, sizeof(c));
	for (j = 0; j < m->n_configs; j++)
		if (m->configs[j].kind == VTB_CONFIG_BASELINE && same_set(&m->configs[j].cpus, set))
			return 0;
	cpus = vtb_cpuset_format(set);
	count = vtb_asprintf("%zu", set->n);
	if (!mems && p->host->mems_of)
		mems = own_mems = p->host->mems_of(p->host, set);
	if (!cpus || !count)
		goto oom;
	c.kind = VTB_CONFIG_BASELINE;
	c.runnable = true;
	c.label = vtb_asprintf("baseline cpus=%zu cpuset=%s", set->n, cpus);
	if (!c.label || params_add(&c.params, &alloc, "cpus", count) < 0 ||
	    params_add(&c.params, &alloc, "confine", confine) < 0 ||
	    params_add(&c.params, &alloc, "cpuset", cpus) < 0)
		goto out;
	for (j = 0; j < set->n; j++)
		if (vtb_cpuset_add(&c.cpus, set->cpus[j]) < 0)
			goto out;
	if (mems && !(c.mems = vtb_strdup(mems)))
		goto oom;
	if (add_config(p, &c, (long long)set->n) < 0)
		goto out;
	ret = 0;
	goto out;
oom:
	ret = vtb_error("out of memory");
out:
	config_release(&c);
	free(cpus);
	free(count);
	free(own_mems);
	return ret;
}

/*
 * The baseline of each planned VM configuration: the agent on exactly
 * the VM's pCPUs and memory nodes, so the comparison is like for like.
 * Side-by-side VMs (vms = N) get one per VM, on that VM's pCPUs (each
 * guest runs the cells alone in itself; the baseline runs them once, on
 * one VM's share).  One per distinct pCPU set; none where a baseline of
 * the cpus axis already has that set.
 */
static int expand_vm_baselines(struct parser *p)
{
	struct vtb_matrix *m = p->m;
	size_t n = m->n_configs, i, k;
	char *confine = NULL;
	int ret = -1;

	if (!p->vm_baselines)
		return 0;
	if (baseline_confinement(p, &confine) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		/* m->configs moves as baselines are added: no pointer into it */
		if (m->configs[i].kind != VTB_CONFIG_VM || !m->configs[i].plan ||
		    !m->configs[i].cpus.n)
			continue;
		if (m->configs[i].n_vm_cpus <= 1) {
			if (add_vm_baseline(p, &m->configs[i].cpus, m->configs[i].mems, confine) <
			    0)
				goto out;
			continue;
		}
		for (k = 0; k < m->configs[i].n_vm_cpus; k++)
			if (add_vm_baseline(p, &m->configs[i].vm_cpus[k], NULL, confine) < 0)
				goto out;
	}
	ret = 0;
out:
	free(confine);
	return ret;
}

/* "1G" for 1073741824, "1536M", "4097": for labels. */
static char *size_label(const char *bytes)
{
	unsigned long long b = strtoull(bytes, NULL, 10);
	static const char units[] = "TGMK";
	int i;

	for (i = 0; i < 4; i++) {
		unsigned long long u = 1ULL << (10 * (4 - i));

		if (b && b % u == 0)
			return vtb_asprintf("%llu%c", b / u, units[i]);
	}
	return vtb_asprintf("%llu", b);
}

/* Adds the settings of a named [sched]/[topology] section as "PFX.key". */
static int add_section_params(struct vtb_params *pp, size_t *alloc, const struct sect *s,
			      const char *pfx)
{
	size_t i;
	char *k;
	int r;

	for (i = 0; s && i < s->n; i++) {
		k = vtb_asprintf("%s.%s", pfx, s->ents[i].key);
		if (!k)
			return vtb_error("out of memory");
		r = params_add(pp, alloc, k, s->ents[i].val.buf);
		free(k);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int topology_cpus(struct parser *p, const struct sect *t, long long *out)
{
	static const char *const keys[] = { "sockets", "dies", "cores", "threads" };
	long long prod = 1;
	char *v = NULL;
	size_t i;
	int line;

	for (i = 0; i < VTB_ARRAY_SIZE(keys); i++) {
		if (single(p, t, topology_opts, keys[i], &v, &line) < 0)
			return -1;
		prod *= strtoll(v, NULL, 10);
		free(v);
	}
	*out = prod;
	return 0;
}

/* Every value of an axis must be one of @cands (NULL-terminated here);
 * else "unknown WHAT 'x'EXTRA (did you mean 'y'?)". */
static int check_known(const struct parser *p, int line, const struct strv *vals,
		       struct strv *cands, const char *what, const char *extra)
{
	char *hint;
	size_t i;
	int ret;

	if (grow(&cands->v, &cands->alloc, cands->n + 1, sizeof(*cands->v)) < 0)
		return -1;
	cands->v[cands->n] = NULL;
	for (i = 0; i < vals->n; i++) {
		if (strv_has(cands, vals->v[i]))
			continue;
		hint = did_you_mean(" (did you mean '%s'?)",
				    vtb_suggest((const char *const *)cands->v, vals->v[i]));
		ret = perr(p, line, "unknown %s '%s'%s%s", what, vals->v[i], extra,
			   hint ? hint : "");
		free(hint);
		return ret;
	}
	return 0;
}

/* ": not a preset (flat, cores, mirror, lie) nor a [topology NAME]" */
static char *not_a_preset(void)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t i;

	if (vtb_strbuf_addstr(&sb, ": not a preset (") < 0)
		goto fail;
	for (i = 0; vtb_presets[i]; i++)
		if (vtb_strbuf_addf(&sb, "%s%s", i ? ", " : "", vtb_presets[i]->name) < 0)
			goto fail;
	if (vtb_strbuf_addstr(&sb, ") nor a [topology NAME]") < 0)
		goto fail;
	return vtb_strbuf_detach(&sb);
fail:
	vtb_strbuf_release(&sb);
	return NULL;
}

/* A cpuset partition must name CPUs the guest has and leave the agent
 * (in the root cgroup) at least one. */
static int partition_why_not(struct vtb_config *c, const char *sched, long long vcpus)
{
	const char *part = vtb_params_get(&c->params, "sched.cpuset.partition");
	struct vtb_cpuset set = { NULL, 0 };
	bool why;

	if (!part || vtb_cpuset_parse(part, &set) < 0 || !set.n)
		return 0; /* checked when the section was read */
	why = set.cpus[set.n - 1] >= vcpus || (long long)set.n == vcpus;
	if (set.cpus[set.n - 1] >= vcpus)
		c->why_not = vtb_asprintf(
			"[sched %s]: cpuset.partition = %s names CPUs a guest of %lld vCPUs does not have",
			sched, part, vcpus);
	else if ((long long)set.n == vcpus)
		c->why_not = vtb_asprintf(
			"[sched %s]: cpuset.partition = %s takes every vCPU: the agent's root cgroup must keep one",
			sched, part);
	vtb_cpuset_release(&set);
	return why && !c->why_not ? vtb_error("out of memory") : 0;
}

/* A topology.KEY of @c as a number, @dflt when absent (normalised and
 * bounded when the section was read). */
static int topology_int(const struct vtb_config *c, const char *key, int dflt)
{
	const char *v = vtb_params_get(&c->params, key);

	return v ? (int)strtol(v, NULL, 10) : dflt;
}

/* @c's settings as typed values (c->params sorted, every value checked
 * already): what the planner and the boot take. */
static void vm_req(struct vtb_config *c, long long vcpus, const char *topo, const char *pin,
		   const char *memory, const char *numa, const char *vms, bool over, bool huge,
		   bool locked)
{
	struct vtb_plan_req *r = &c->req;

	r->vcpus = (int)vcpus;
	r->vms = (int)strtol(vms, NULL, 10);
	r->overcommit = over;
	if (vtb_pinning_parse(pin, &r->pinning) < 0)
		vtb_error_clear(); /* not reached: a checked enum */
	if (vtb_vtopo_preset(topo, &r->topology) < 0) {
		r->topology = VTB_VTOPO_EXPLICIT;
		r->sockets = topology_int(c, "topology.sockets", 1);
		r->dies = topology_int(c, "topology.dies", 1);
		r->cores = topology_int(c, "topology.cores", 1);
		r->threads = topology_int(c, "topology.threads", 1);
		r->clusters = topology_int(c, "topology.clusters", 1);
		r->cells = topology_int(c, "topology.cells", 0);
	}
	r->memory_bytes = strtoull(memory, NULL, 10);
	r->numa = !strcmp(numa, "auto");
	r->hugepages = huge;
	r->locked = locked;
	r->housekeeping = vtb_params_get(&c->params, "housekeeping");
	r->machine = vtb_params_get(&c->params, "machine");
}

enum { A_VCPUS, A_TOPOLOGY, A_PINNING, A_MEMORY, A_SCHED, N_VM_AXES };
static const char *const vm_axis_keys[N_VM_AXES] = { "vcpus", "topology", "pinning", "memory",
						     "sched" };

/* [vm]'s single-valued settings (normalised text) and its axes. */
struct vm_sect {
	const struct sect *s;
	char *enabled, *numa, *vms, *over, *hk, *huge, *locked, *machine;
	struct axis ax[N_VM_AXES];
	int lines[N_VM_AXES];
};

static void vm_sect_release(struct vm_sect *v)
{
	free(v->enabled);
	free(v->numa);
	free(v->vms);
	free(v->over);
	free(v->hk);
	free(v->huge);
	free(v->locked);
	free(v->machine);
	axes_release(v->ax, N_VM_AXES);
}

/* The settings; housekeeping from [global] when [vm] has none, and
 * "auto" (the default) left out so that it stays out of the key. */
static int vm_settings(struct parser *p, struct vm_sect *v)
{
	const struct sect *s = v->s;
	int line, hk_line = 1;

	if (single(p, s, vm_opts, "enabled", &v->enabled, &line) < 0 ||
	    single(p, s, vm_opts, "numa", &v->numa, &line) < 0 ||
	    single(p, s, vm_opts, "vms", &v->vms, &line) < 0 ||
	    single(p, s, vm_opts, "overcommit", &v->over, &line) < 0 ||
	    single(p, s, vm_opts, "housekeeping", &v->hk, &hk_line) < 0 ||
	    single(p, s, vm_opts, "hugepages", &v->huge, &line) < 0 ||
	    single(p, s, vm_opts, "locked", &v->locked, &line) < 0 ||
	    single(p, s, vm_opts, "machine", &v->machine, &line) < 0)
		return -1;
	if (!v->hk && single(p, find_sect(p, S_GLOBAL, NULL), global_opts, "housekeeping", &v->hk,
			     &hk_line) < 0)
		return -1;
	if (v->hk && !strcmp(v->hk, "auto")) {
		free(v->hk);
		v->hk = NULL;
	}
	return check_housekeeping(p, v->hk, hk_line);
}

/* The axes' values; sched without a value: every [sched] section, else
 * the built-in default. */
static int vm_axes(struct parser *p, struct vm_sect *v)
{
	struct varctx vc = { "[vm]", -1, p->host->host_cpus };
	struct axis *ax = v->ax;
	size_t i, j;

	for (i = 0; i < N_VM_AXES; i++) {
		const char *text = val_of(v->s, vm_opts, vm_axis_keys[i], &v->lines[i]);

		ax[i].key = vm_axis_keys[i];
		if (!text && i == A_SCHED) {
			for (j = 0; j < p->n_sects; j++)
				if (p->sects[j].kind == S_SCHED &&
				    strv_push(&ax[i].vals, p->sects[j].name) < 0)
					return -1;
			if (!ax[i].vals.n && strv_push(&ax[i].vals, "default") < 0)
				return -1;
			continue;
		}
		if (values_of(p, v->lines[i], vtb_opt_find(vm_opts, vm_axis_keys[i]),
			      vm_axis_keys[i], text, true, &vc, &ax[i].vals) < 0)
			return -1;
	}
	return 0;
}

/* topology: a preset (topologies/presets.h) or a [topology NAME] that
 * does not hide one. */
static int check_vm_topologies(struct parser *p, const struct vm_sect *v)
{
	const struct strv *vals = &v->ax[A_TOPOLOGY].vals;
	int line = v->lines[A_TOPOLOGY];
	struct strv cands = { 0 };
	char *extra = NULL;
	size_t i;
	int ret = -1;

	for (i = 0; vtb_presets[i]; i++)
		if (strv_push(&cands, vtb_presets[i]->name) < 0)
			goto out;
	for (i = 0; i < p->n_sects; i++) {
		if (p->sects[i].kind != S_TOPOLOGY)
			continue;
		if (strv_has(&cands, p->sects[i].name)) {
			ret = perr(p, p->sects[i].line,
				   "[topology %s] would hide the preset '%s': choose another name",
				   p->sects[i].name, p->sects[i].name);
			goto out;
		}
		if (strv_push(&cands, p->sects[i].name) < 0)
			goto out;
	}
	if (strv_has(vals, "clusters") && !strv_has(&cands, "clusters")) {
		ret = perr(
			p, line,
			"topology 'clusters' cannot be expressed with Debian 12's libvirt 9.0 / QEMU 7.2 (no <topology clusters=> before libvirt 10.1)");
		goto out;
	}
	extra = not_a_preset();
	if (!extra) {
		ret = vtb_error("out of memory");
		goto out;
	}
	ret = check_known(p, line, vals, &cands, "topology", extra);
out:
	strv_release(&cands);
	free(extra);
	return ret;
}

/* sched: a [sched NAME] or default. */
static int check_vm_scheds(struct parser *p, const struct vm_sect *v)
{
	struct strv cands = { 0 };
	size_t i;
	int ret = -1;

	if (strv_push(&cands, "default") < 0)
		goto out;
	for (i = 0; i < p->n_sects; i++)
		if (p->sects[i].kind == S_SCHED && !strv_has(&cands, p->sects[i].name) &&
		    strv_push(&cands, p->sects[i].name) < 0)
			goto out;
	ret = check_known(p, v->lines[A_SCHED], &v->ax[A_SCHED].vals, &cands, "sched profile", "");
out:
	strv_release(&cands);
	return ret;
}

/* Without a host model, more vCPUs than host CPUs need overcommit = yes
 * (with one, the planner says it, housekeeping included). */
static int check_vm_cpus(struct parser *p, const struct vm_sect *v)
{
	const struct strv *vcpus = &v->ax[A_VCPUS].vals;
	size_t i;

	for (i = 0; !p->host->model && !is_yes(v->over) && i < vcpus->n; i++) {
		long long n = strtoll(vcpus->v[i], NULL, 10) * strtoll(v->vms, NULL, 10);

		if (n > p->host->host_cpus)
			return perr(
				p, v->lines[A_VCPUS],
				"vcpus = %s (x%s VMs) but the host has only %d CPUs (set overcommit = yes)",
				vcpus->v[i], v->vms, p->host->host_cpus);
	}
	return 0;
}

/* The label and params (in the key) of the VM configuration at @idx. */
static int vm_params(struct parser *p, const struct vm_sect *v, const size_t *idx,
		     struct vtb_config *c)
{
	const char *topo = v->ax[A_TOPOLOGY].vals.v[idx[A_TOPOLOGY]];
	const char *sched = v->ax[A_SCHED].vals.v[idx[A_SCHED]];
	char *mem = size_label(v->ax[A_MEMORY].vals.v[idx[A_MEMORY]]);
	size_t i, alloc = 0;

	if (!mem)
		return vtb_error("out of memory");
	c->label = vtb_asprintf("vm vcpus=%s topology=%s pinning=%s memory=%s sched=%s%s%s%s",
				v->ax[A_VCPUS].vals.v[idx[A_VCPUS]], topo,
				v->ax[A_PINNING].vals.v[idx[A_PINNING]], mem, sched,
				strcmp(v->vms, "1") ? " vms=" : "",
				strcmp(v->vms, "1") ? v->vms : "",
				is_yes(v->over) ? " overcommit" : "");
	free(mem);
	if (!c->label)
		return vtb_error("out of memory");
	for (i = 0; i < N_VM_AXES; i++)
		if (params_add(&c->params, &alloc, vm_axis_keys[i], v->ax[i].vals.v[idx[i]]) < 0)
			return -1;
	/* settings added after the first release enter the key only when
	 * not at their default, so existing keys stay */
	if ((v->hk && params_add(&c->params, &alloc, "housekeeping", v->hk) < 0) ||
	    (is_yes(v->huge) && params_add(&c->params, &alloc, "hugepages", v->huge) < 0) ||
	    (is_yes(v->locked) && params_add(&c->params, &alloc, "locked", v->locked) < 0) ||
	    (v->machine && strcmp(v->machine, "pc") &&
	     params_add(&c->params, &alloc, "machine", v->machine) < 0) ||
	    params_add(&c->params, &alloc, "numa", v->numa) < 0 ||
	    params_add(&c->params, &alloc, "vms", v->vms) < 0 ||
	    params_add(&c->params, &alloc, "overcommit", v->over) < 0 ||
	    add_section_params(&c->params, &alloc, find_sect(p, S_TOPOLOGY, topo), "topology") <
		    0 ||
	    add_section_params(&c->params, &alloc, find_sect(p, S_SCHED, sched), "sched") < 0)
		return -1;
	params_sort(&c->params); /* vtb_params_get() searches a sorted array */
	return 0;
}

/*
 * The VM configuration at @idx, typed (c->req) and not planned: why_not
 * when its [topology] or [sched] cannot serve its vcpus, else left to
 * the plan layer (cfgplan.h).
 */
static int vm_config(struct parser *p, const struct vm_sect *v, const size_t *idx,
		     struct vtb_config *c)
{
	const char *topo = v->ax[A_TOPOLOGY].vals.v[idx[A_TOPOLOGY]];
	const struct sect *ts = find_sect(p, S_TOPOLOGY, topo);
	long long nv = strtoll(v->ax[A_VCPUS].vals.v[idx[A_VCPUS]], NULL, 10), tcpus;

	c->kind = VTB_CONFIG_VM;
	c->line = v->s->line;
	c->runnable = false; /* until the plan layer planned it */
	if (vm_params(p, v, idx, c) < 0)
		return -1;
	if (ts) {
		if (topology_cpus(p, ts, &tcpus) < 0)
			return -1;
		if (tcpus != nv &&
		    !(c->why_not = vtb_asprintf("topology '%s' describes %lld CPUs, not %lld", topo,
						tcpus, nv)))
			return vtb_error("out of memory");
	}
	vm_req(c, nv, topo, v->ax[A_PINNING].vals.v[idx[A_PINNING]],
	       v->ax[A_MEMORY].vals.v[idx[A_MEMORY]], v->numa, v->vms, is_yes(v->over),
	       is_yes(v->huge), is_yes(v->locked));
	if (!c->why_not && partition_why_not(c, v->ax[A_SCHED].vals.v[idx[A_SCHED]], nv) < 0)
		return -1;
	return 0;
}

static int expand_vm(struct parser *p)
{
	struct vm_sect v = { .s = find_sect(p, S_VM, NULL) };
	struct vtb_config c;
	size_t idx[N_VM_AXES] = { 0 }, total;
	int ret = -1;

	memset(&c, 0, sizeof(c));
	if (!v.s)
		return 0;
	if (vm_settings(p, &v) < 0 || vm_axes(p, &v) < 0 || check_vm_topologies(p, &v) < 0 ||
	    check_vm_scheds(p, &v) < 0)
		goto out;
	if (!is_yes(v.enabled)) {
		ret = 0;
		goto out;
	}
	if (check_vm_cpus(p, &v) < 0 ||
	    product(p, v.s->line, v.ax, N_VM_AXES, CONFIG_LIMIT, &total) < 0)
		goto out;
	do {
		memset(&c, 0, sizeof(c));
		if (vm_config(p, &v, idx, &c) < 0 ||
		    add_config(p, &c, strtoll(v.ax[A_VCPUS].vals.v[idx[A_VCPUS]], NULL, 10)) < 0)
			goto out;
	} while (next_combo(v.ax, N_VM_AXES, idx));
	ret = 0;
out:
	config_release(&c);
	vm_sect_release(&v);
	return ret;
}

/* ---------------------------------------------------------------- API */

static void src_free(struct vtb_matrix_src *src)
{
	if (!src)
		return;
	sects_release(&src->p);
	strv_release(&src->p.only);
	strv_release(&src->p.exclude);
	free(src);
}

void vtb_matrix_free(struct vtb_matrix *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n_configs; i++)
		config_release(&m->configs[i]);
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
	if (lex(p, text, len) < 0 || check_keys(p) < 0 || parse_global(p) < 0 ||
	    check_named(p) < 0 || check_workloads(p) < 0 || expand_baseline(p) < 0 ||
	    expand_vm(p) < 0)
		goto out;
	/* VM baselines come only from VM configurations: none here, none later */
	if (!m->n_configs) {
		if (p->only.n || p->exclude.n)
			ret = perr(p, p->only_line, "'only' and 'exclude' leave nothing to run");
		else
			ret = perr(p, 1,
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
		    resolve_host_llc(host, &m->configs[i]) < 0)
			goto out;
	if (expand_vm_baselines(p) < 0)
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
	if (read_matrix(path, &sb) == 0 && lex(&p, vtb_strbuf_str(&sb), sb.len) == 0) {
		v = val_of(find_sect(&p, S_GLOBAL, NULL), global_opts, "host_topology", &line);
		if (v && *v && !(*out = vtb_strdup(v)))
			ret = vtb_error("out of memory");
	}
	if (!ret)
		vtb_error_clear();
	sects_release(&p);
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
	for (i = 0; i < VTB_ARRAY_SIZE(sectdefs); i++) {
		int col = fprintf(f, "\n[%s%s]  ", sectdefs[i].type,
				  sectdefs[i].named ? " NAME" : "") -
			  1;

		vtb_wrap(f, sectdefs[i].help, col, 4, VTB_HELP_WIDTH);
		fputc('\n', f);
		vtb_opts_help(f, sectdefs[i].opts, false);
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
	for (i = 0; i < VTB_ARRAY_SIZE(sectdefs); i++) {
		char *h = vtb_asprintf("[%s%s]", sectdefs[i].type,
				       sectdefs[i].named ? " NAME" : "");

		vtb_man_subsection(f, h ? h : sectdefs[i].type);
		free(h);
		vtb_man_para(f, sectdefs[i].help);
		vtb_man_opts(f, sectdefs[i].opts, false);
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
