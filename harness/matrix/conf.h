/* SPDX-License-Identifier: MIT */
/*
 * matrix.conf: parsing, validation and expansion into configurations and
 * cells (docs/matrix.md).  Pure: the host is described by a
 * struct vtb_host_ctx, so unit tests use made-up hosts.  The matrix
 * never calls the planner: reading yields typed configurations, the
 * plan layer plans each VM configuration once (harness/plan/cfgplan.h,
 * whose vtb_matrix_load() is what a command calls), and
 * vtb_matrix_complete() then adds what depends on the plans.
 */
#ifndef VTB_CONF_H
#define VTB_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../common/vtbutil.h"
#include "vmreq.h"

#define VTB_KEY_LEN 16 /* hex digits of a configuration or cell key */

struct vtb_topo;
struct vtb_plan;
struct vtb_matrix_src;

/* What matrix resolution needs to know about the host. */
struct vtb_host_ctx {
	int host_cpus;	/* CPUs allowed for benchmarking */
	int host_nodes; /* NUMA nodes */
	int host_llcs;	/* last-level cache instances */
	/* Allowed CPUs in compact order (SMT siblings, then cores of one LLC,
	 * then LLCs of one node...): a baseline of N CPUs takes the first N. */
	const int *compact;
	size_t n_compact;
	/* CPUs of ours on no NUMA node (topo.h): never a guest's or a
	 * baseline's, housekeeping may name them */
	struct vtb_cpuset nodeless;
	/* LLC bytes covering @cpus: the sum of distinct last-level cache
	 * instances.  0 and -1 with vtb_error() when unknown. */
	int (*llc_bytes)(const struct vtb_host_ctx *h, const struct vtb_cpuset *cpus,
			 uint64_t *out);
	/* NUMA nodes holding @cpus as a cpulist-formatted set, malloc'ed. */
	char *(*mems_of)(const struct vtb_host_ctx *h, const struct vtb_cpuset *cpus);
	/* The host model VM configurations are planned on (plan.h, by the
	 * plan layer: the matrix only carries it); NULL: none, and VM
	 * configurations that need the planner (pinning, mirror, lie,
	 * cells) are not runnable. */
	const struct vtb_topo *model;
	/* The local host: MemAvailable when it was loaded, a bound on what a
	 * baseline may use besides its nodes' size; 0 unknown (a described
	 * host). */
	uint64_t mem_available;
	void *priv;
};

/* A resolved parameter: text after variable substitution, defaults
 * filled.  Arrays of them are kept sorted by key. */
struct vtb_kv {
	char *key;
	char *value;
};

struct vtb_params {
	struct vtb_kv *kv;
	size_t n;
};
const char *vtb_params_get(const struct vtb_params *p, const char *key);

/*
 * Parameter values are normalised text: integers in decimal, sizes in
 * bytes, times in nanoseconds with the unit ("250000ns"), booleans yes/no, cpulists re-formatted,
 * "auto" kept.  A VM configuration's params also hold the contents of the
 * [topology NAME] and [sched NAME] sections it uses ("topology.cores",
 * "sched.sysctl.kernel.numa_balancing"), so editing a profile changes
 * the key.  A cell's name is NAME, followed by " key=value" for each
 * workload key that has several values in the matrix ("hb mode=thread").
 */
struct vtb_cell {
	char key[VTB_KEY_LEN + 1];
	char *name;		    /* [workload NAME], plus its varying axes */
	char *workload;		    /* type = */
	struct vtb_params params;   /* as in the key (host "auto" kept) */
	struct vtb_params resolved; /* what the agent gets (auto resolved) */
	char *params_json;	    /* canonical JSON of params */
	char *resolved_json;	    /* canonical JSON of resolved */
	char *note;		    /* NULL, or what resolving it changed (membw size cut to fit) */
};

/* Sets resolved @key of @c to @value (adding it when absent) and renders
 * resolved_json again.  -1 with vtb_error() on ENOMEM. */
int vtb_cell_set_resolved(struct vtb_cell *c, const char *key, const char *value);

enum vtb_config_kind { VTB_CONFIG_BASELINE, VTB_CONFIG_VM };

struct vtb_config {
	char key[VTB_KEY_LEN + 1];
	enum vtb_config_kind kind;
	char *label;		  /* "baseline cpus=2", "vm vcpus=8 topology=mirror ..." */
	int line;		  /* of its section, for errors found after reading */
	struct vtb_params params; /* axis values and fixed settings (in the key) */
	char *params_json;
	struct vtb_cpuset cpus; /* pCPUs (host-dependent, not in the key); VM: every
				   VM's, from the plan */
	char *mems;		/* memory nodes, cpulist syntax */
	char *plan_json;	/* VM: the placement plan and its claims (vtb_plan_json()) */
	/* VM: the settings as typed values (strings in it point into
	 * params), what the planner takes */
	struct vtb_plan_req req;
	/* VM: the plan, made once per campaign after the matrix is read
	 * (cfgplan.h) and carried to the boot (NULL without a host model);
	 * released with plan_free; and each VM's pCPUs (req.vms sets) */
	struct vtb_plan *plan;
	void (*plan_free)(struct vtb_plan *p);
	uint64_t plan_ns; /* how long planning it took */
	struct vtb_cpuset *vm_cpus;
	size_t n_vm_cpus;
	/* VM: its guest kernel when [vm] has kernel = (params "kernel" and
	 * "kernel.cmdline"); NULL kernel_path: the staged or fetched kernel */
	char *kernel_name;	/* the [kernel NAME] or the path as written */
	char *kernel_path;	/* the image, taken from the matrix's directory */
	char *kernel_config;	/* its .config (NULL: none given nor beside it) */
	char kernel_sha256[65]; /* of the image when read; "" without kernel_path */
	bool runnable;
	char *why_not; /* when !runnable: why, for plan and run */
	struct vtb_cell *cells;
	size_t n_cells;
};

enum vtb_order { VTB_ORDER_INTERLEAVE, VTB_ORDER_SEQUENTIAL, VTB_ORDER_RANDOM };

/* [explore] (vtbench explore, docs/explore.md): the objective, one metric
 * of one cell or several in lexicographic order, and the race's limits. */
struct vtb_explore_metric {
	char *cell;    /* a cell name of the matrix ("wakeup", "hb mode=thread") */
	char *metric;  /* a metric its workload reports (checked when it reports) */
	int direction; /* 0: the workload's word (its samples' better), 1 higher,
			  -1 lower is better */
};

struct vtb_explore_conf {
	struct vtb_explore_metric *objective;
	size_t n_objective;
	long long min_rounds, max_rounds; /* rounds before the first test, at most */
	long long budget_boots;		  /* candidate boots at most (0: none) */
	uint64_t budget_ns;		  /* no boot starts past it (0: none) */
	bool holm;			  /* multiplicity = holm (else bh) */
	bool futility;			  /* futility = yes: stop a race no round within
					     the caps can decide (VTB_RACE_FUTILE) */
	int line;			  /* of [explore] */
	int objective_line;		  /* of its objective = */
};
void vtb_explore_conf_free(struct vtb_explore_conf *e);

struct vtb_matrix {
	char *path;
	char *text;	 /* the file as read */
	char digest[65]; /* SHA-256 of text, hex */
	char *name;
	long long reps; /* boots per configuration; with reps_auto the cap (max_reps) */
	/* reps = auto: interleaved rounds until every compare row of a
	 * configuration is decided, from min_reps to max_reps boots a
	 * configuration, no boot started past budget_ns (0: none) */
	bool reps_auto;
	long long min_reps, max_reps;
	uint64_t budget_ns;
	/* auto_compare = axis:NAME or baseline:SPEC (NULL, NULL: own) */
	char *auto_axis, *auto_baseline;
	enum vtb_order order;
	uint64_t seed;	     /* random:SEED */
	uint64_t timeout_ns; /* per boot */
	/* how often running guests' vCPU threads are sampled; 0: off */
	uint64_t placement_interval_ns;
	bool evidence; /* [global] evidence: per-cell scheduler counters */
	char *db;
	char *kernel;
	char *uri;
	char *accel;			  /* auto | kvm | tcg */
	char *host_id;			  /* stored as the host's name; NULL: its hostname */
	struct vtb_explore_conf *explore; /* [explore]; NULL without the section */
	struct vtb_config *configs;
	size_t n_configs;
	/* what reading keeps for vtb_matrix_complete() (the sections, the
	 * filters); NULL once complete */
	struct vtb_matrix_src *src;
};

/*
 * The first step: reads @path (or @text of @len bytes named @path)
 * against @host, validates it and expands its configurations and cells.
 * VM configurations carry their typed request (c->req), not a plan: they
 * are not runnable until planned, and their cells keep llc = auto.  On
 * error returns -1 with vtb_errmsg() = "FILE:LINE: what is wrong (did
 * you mean 'x'?)".  The matrix is owned by the caller.  A command loads
 * a matrix with cfgplan.h's vtb_matrix_load(), which takes every step.
 */
int vtb_matrix_read(const char *path, const struct vtb_host_ctx *host, struct vtb_matrix **out);
int vtb_matrix_read_text(const char *path, const char *text, size_t len,
			 const struct vtb_host_ctx *host, struct vtb_matrix **out);

/*
 * The last step, after each VM configuration was planned (c->plan, cpus,
 * vm_cpus, mems, why_not and runnable set by the plan layer): resolves
 * its cells' llc = auto from its pCPUs and adds the baselines on exactly
 * each VM's pCPUs ([baseline] vm = yes).  Releases m->src.  -1 with
 * vtb_error() ("FILE:LINE: ..." for the matrix's limits).
 */
int vtb_matrix_complete(struct vtb_matrix *m, const struct vtb_host_ctx *host);
void vtb_matrix_free(struct vtb_matrix *m);

/* The host_topology = of @path's [global] (malloc'ed), or NULL when the
 * key is absent or the file cannot be read or lexed (loading the matrix
 * reports those).  Read before the host is known, since the host decides
 * how the matrix resolves.  -1 only on ENOMEM. */
int vtb_matrix_host_topology(const char *path, char **out);

/* Stable 16-hex-digit key of a canonical JSON text (SHA-256 prefix). */
void vtb_key_of(const char *canonical_json, char out[VTB_KEY_LEN + 1]);

/* --reps N (N > 0) or --reps auto (N = 0): overrides the matrix's reps =;
 * auto takes the matrix's min_reps, max_reps, budget and auto_compare
 * (their defaults, 3, 20, none and own, when the matrix has reps = N). */
void vtb_matrix_set_reps(struct vtb_matrix *m, long long reps);

/* Boot order: fills @out with n_configs*reps (config index, rep) pairs
 * in the matrix's order.  Only runnable configurations are included. */
struct vtb_bootref {
	size_t config;
	int rep;
};
int vtb_matrix_boot_order(const struct vtb_matrix *m, struct vtb_bootref **out, size_t *n);

/*
 * The largest guest kernel image vtbench reads: a bzImage is 10 to 15
 * MiB, one with everything built in a few times that.  A path that is
 * no regular file or is larger is refused before it is opened, so a
 * mistyped path (a disk image, a FIFO) can neither make the matrix
 * reader hash gigabytes nor block it.  Kernel .config files have the
 * same cap.
 */
#define VTB_KERNEL_IMAGE_MAX (UINT64_C(256) << 20)

/* The .config of the kernel image @image: .config beside it, else
 * config-SUFFIX for vmlinuz-SUFFIX or bzImage-SUFFIX, else the only
 * config-* of its directory; NULL when none (or out of memory).
 * malloc'ed. */
char *vtb_kernel_config_beside(const char *image);

/* Section and key reference (plan --help-matrix). */
void vtb_conf_help(FILE *f);
/* The same tables as vtbench-matrix(5), in roff; @version for its header. */
void vtb_conf_man(FILE *f, const char *version);

#endif
