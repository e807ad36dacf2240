/* SPDX-License-Identifier: MIT */
/*
 * The results database (SQLite; docs/schema.md).  The only
 * module with SQL.  WAL, foreign keys, PRAGMA user_version migrations,
 * prepared statements only; a boot is stored in one transaction, whole or
 * not at all.  All functions return 0 or -1 with vtb_errmsg() set.
 */
#ifndef VTB_STORE_H
#define VTB_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "../matrix/conf.h"
#include "../records/recparse.h"

#define VTB_STORE_SCHEMA 12 /* current PRAGMA user_version */
/* PRAGMA application_id of every vtbench database ("vtb1") */
#define VTB_STORE_APPLICATION_ID 0x76746231

struct vtb_store;

/* Opens or creates @path and migrates it to VTB_STORE_SCHEMA; refuses a
 * newer schema ("'F' was written by a newer vtbench (schema N, this one
 * knows M)"), a non-empty SQLite file that is not a vtbench database
 * ("'F' is not a vtbench database"), one whose schema holds an object
 * vtbench's does not ("'F' is not a vtbench database as written: trigger
 * 'T' on table 'upload' is not vtbench's"), and a path that is not a
 * regular file ("'F' is a FIFO, not a database file"), before writing
 * anything to it.  A new database is created as a regular file, never
 * through a symbolic link.  Every connection reads its file as untrusted:
 * no trigger fires, no view runs (schema.c). */
int vtb_store_open(const char *path, struct vtb_store **out);
/* Whether vtb_store_open() made the file itself (exclusively): a file
 * another process created in the meantime is not this one's to remove. */
bool vtb_store_created(const struct vtb_store *st);
/* Opens for reading (read-only commands), with the same refusals.  An
 * older schema is copied into memory and the copy migrated (the queries
 * need the current schema; the file is never written).  A WAL database
 * on a read-only mount (or in a directory this user cannot write) is
 * read as immutable, unless changes wait in its -wal ("'F' has
 * un-checkpointed changes in 'F-wal' on a read-only mount, ..."). */
int vtb_store_open_ro(const char *path, struct vtb_store **out);
/* Accepts NULL. */
void vtb_store_close(struct vtb_store *st);
/* After a failed read: was it the database's content (a damaged or
 * crafted file: NULL where the schema forbids it, text that is not UTF-8,
 * a number that is text, JSON that is not JSON, SQLite's "malformed")
 * rather than the system?  Input error (exit 2) vs infrastructure (3). */
bool vtb_store_bad_content(const struct vtb_store *st);
int vtb_store_schema_version(struct vtb_store *st, int *version);
/* The SQL of the migration step that creates schema @version (1 = the
 * base schema), NULL when out of range.  For tests: released steps are
 * frozen (tests/fixtures/schema-v1.sql). */
const char *vtb_store_migration_sql(int version);

struct vtb_host_info {
	const char *hostname;
	const char *cpu_vendor, *cpu_model_name, *cpu_codename;
	int cpu_family, cpu_model;
	const char *topo_digest;
	const char *topo_summary; /* "1 package, 1 node, 1 LLC, 2 cores, 2 PUs" */
	const char *kernel;	  /* uname -r */
};
int vtb_store_host(struct vtb_store *st, const struct vtb_host_info *h, int64_t *id);

struct vtb_campaign_info {
	const char *uuid;
	int64_t host_id;
	const char *matrix_path, *matrix_text, *matrix_digest;
	const char *version; /* vtbench version */
	const char *cmdline;
	const char *state_json; /* host state snapshot */
	int64_t started_ns;	/* CLOCK_REALTIME ns; 0: now (fixtures give a fixed time) */
};
/* Inserts the campaign and its configurations and cells (one
 * transaction); fills the ids into @ids_config[i] / cell ids. */
int vtb_store_campaign_begin(struct vtb_store *st, const struct vtb_campaign_info *c,
			     const struct vtb_matrix *m, int64_t *campaign_id);
/* Latest unfinished-or-finished campaign of this matrix digest on this
 * host, for --resume; *found false when none. */
int vtb_store_campaign_find(struct vtb_store *st, const char *matrix_digest, int64_t host_id,
			    int64_t *campaign_id, char uuid[37], bool *found);
/* Makes sure configurations and cells of @m exist in the campaign (new
 * ones are added when resuming with --reps or --only changes). */
int vtb_store_campaign_sync(struct vtb_store *st, int64_t campaign_id, const struct vtb_matrix *m);
int vtb_store_campaign_end(struct vtb_store *st, int64_t campaign_id, const char *status);
/* Deletes campaign @uuid with everything stored under it, and its host
 * when no other campaign has it, in one transaction (run and explore
 * take back a campaign they began before an input error, exit 2). */
int vtb_store_campaign_delete(struct vtb_store *st, const char *uuid);
/* The same at a given time (CLOCK_REALTIME ns), for generated fixtures. */
int vtb_store_campaign_end_at(struct vtb_store *st, int64_t campaign_id, const char *status,
			      int64_t ended_ns);

/* Is (configuration key, rep) stored in the campaign, whatever its
 * status?  A boot is never stored twice. */
int vtb_store_boot_exists(struct vtb_store *st, int64_t campaign_id, const char *config_key,
			  int rep, bool *exists);

/* Warnings and errors of a campaign or a boot (boot_uuid may be NULL). */
int vtb_store_event(struct vtb_store *st, int64_t campaign_id, const char *boot_uuid,
		    const char *level, const char *message);

/* One rate or share derived from a cell's scheduler counters (issue 28),
 * stored as a sample of the cell named "evidence/..." (better: lower). */
struct vtb_evidence_metric {
	const char *metric, *unit;
	double value;
};
/* A cell's scheduler evidence: the guest's /proc/schedstat difference
 * and its vCPU threads on the host (JSON texts, NULL: none) and the
 * metrics derived from them (docs/evidence.md). */
struct vtb_cell_evidence {
	const char *cell; /* its key */
	const char *guest, *host;
	const struct vtb_evidence_metric *metrics;
	size_t n_metrics;
};

/* What a VM boot adds (NULL members are stored as NULL). */
struct vtb_vm_boot_info {
	const char *accelerator;  /* kvm | tcg */
	const char *cpu_model;	  /* host-passthrough | kvm64 ... */
	const char *guest_kernel; /* its release */
	/* its identity: the sha256 of the image and of its .config (NULL:
	 * unknown) */
	const char *guest_kernel_sha256, *guest_kernel_config_sha256;
	const char *libvirt_version, *qemu_version;
	const char *live_xml;	  /* virDomainGetXMLDesc after start */
	const char *console_tail; /* the kernel console's last bytes */
	/* side by side (vms = N): this VM's index and the group's uuid */
	int vm_index, vms;
	const char *group_uuid;
	/* JSON texts (NULL: none): this VM's claims from the plan, where its
	 * vCPUs ran (host-side summary), the guest kernel probe and the
	 * sched profile as applied */
	const char *claims, *placement, *probe, *sched;
	/* the guest's view against the plan: match | differs | unchecked (no
	 * plan or no view), and how it differs (also for a failed boot) */
	const char *topology_check, *topology_diff;
	/* the guest view (NULL view: none stored): the verbatim record, the
	 * normalised tree, its digest and level names, CPUID, steal */
	const char *view, *tree, *digest, *levels, *cpuid, *steal_before, *steal_after;
	/* per cell: its scheduler evidence (stored with the cell's result) */
	const struct vtb_cell_evidence *evidence;
	size_t n_evidence;
};

struct vtb_boot_info {
	int64_t campaign_id;
	const char *uuid;
	const char *config_key;
	int rep;
	const char *status; /* ok | failed | timeout | unexpected-topology */
	const char *error;  /* NULL when ok */
	int64_t started_ns; /* CLOCK_REALTIME ns */
	int64_t ended_ns;
	const char *nonce;
	const char *cpus;	 /* where it ran (cpulist) */
	const char *confinement; /* "affinity" ... */
	const char *stderr_tail;
	const char *kind_detail;	   /* JSON: accelerator, live XML... (NULL now) */
	const struct vtb_vm_boot_info *vm; /* NULL for a baseline boot */
	const char **warnings;		   /* stored as events of the boot */
	size_t n_warnings;
};
/* Stores the boot, its header, every cell result, sample and histogram,
 * and its errors as events, in one transaction.  Cells of the
 * configuration that have no records get a result with status "missing";
 * a cell started without cell_end is "failed"; records for a cell key the
 * configuration lacks become error events of the boot.  @recs may be NULL
 * (no records at all).  Storing (config, rep) twice fails ("boot N of
 * configuration 'K' is already stored in 'F'"), storing nothing. */
int vtb_store_boot(struct vtb_store *st, const struct vtb_boot_info *b,
		   const struct vtb_boot_records *recs);
/* Several boots in one transaction (VMs booted side by side): all or
 * none.  @recs[i] may be NULL. */
int vtb_store_boots(struct vtb_store *st, const struct vtb_boot_info *b,
		    const struct vtb_boot_records *const *recs, size_t n);

/* Queries for compare and list. */
int vtb_store_latest_campaign(struct vtb_store *st, int64_t *campaign_id, bool *found);

struct vtb_sample_row {
	const char *config_key, *config_label, *kind;
	const char *cell_key, *cell_name, *workload;
	const char *metric, *unit;
	int better;
	int rep;
	int64_t boot; /* the boot row's id in the store (boot.id) */
	double value;
	int cpus;	   /* the configuration's vcpus (VM) or cpus (baseline) */
	const char *pcpus; /* its host CPUs (cpulist) */
};
/* Calls @fn for every sample of ok results of @campaign_id, ordered by
 * configuration (campaign order), cell (matrix order), metric (the order
 * the workload reported them: its first sample in the cell), rep, sample
 * id.  Boots marked unexpected-topology are left out.  The samples are
 * held in memory (32 bytes each) to be ordered.  Row strings are valid
 * during the call.  In all foreach functions a negative return of
 * @fn stops the walk and is returned as -1 (its vtb_error kept). */
int vtb_store_foreach_sample(struct vtb_store *st, int64_t campaign_id,
			     int (*fn)(const struct vtb_sample_row *row, void *arg), void *arg);

struct vtb_run_row {
	int64_t id;
	const char *uuid, *hostname, *matrix_path, *version, *status;
	int64_t started_ns, ended_ns;
	long boots, boots_ok, boots_failed;
};
int vtb_store_foreach_run(struct vtb_store *st, int (*fn)(const struct vtb_run_row *row, void *arg),
			  void *arg);

/* The evidence of each VM boot of @campaign_id, in configuration order,
 * then rep and VM index: the plan of its configuration, what the guest
 * built (level names, tree digest), where its vCPUs ran (placement
 * summary) and its sched profile as applied (the guest's sched record:
 * the cmdline tokens and the knobs with their values read back).  NULL
 * members: not recorded. */
struct vtb_vm_boot_row {
	const char *config_key, *config_label, *plan_json;
	const char *status, *guest_kernel, *levels, *digest, *placement_json;
	const char *topology_diff, *topology_check, *params_json;
	const char *guest_kernel_sha256, *guest_kernel_config_sha256;
	const char *sched_json;
	int rep, vm_index, vms;
};
int vtb_store_foreach_vm_boot(struct vtb_store *st, int64_t campaign_id,
			      int (*fn)(const struct vtb_vm_boot_row *row, void *arg), void *arg);

/* The probe (JSON text, malloc'ed in *probe) of the latest VM boot of the
 * guest kernel image with @sha256 that stored one, in any campaign; NULL
 * when none.  -1 with vtb_error(). */
int vtb_store_kernel_probe(struct vtb_store *st, const char *sha256, char **probe);

/* The same probe with the boot that stored it (plan --db names it).
 * All members NULL/0 when none; release with vtb_kernel_probe_release(). */
struct vtb_kernel_probe {
	char *probe;	 /* JSON text */
	char *boot_uuid; /* of the boot */
	int64_t started_ns;
};
int vtb_store_kernel_probe_of(struct vtb_store *st, const char *sha256,
			      struct vtb_kernel_probe *out);
void vtb_kernel_probe_release(struct vtb_kernel_probe *kp);

/* Marks the configuration @key of @campaign_id not runnable, @why (run
 * found it so after the campaign started: a kernel without a knob its
 * sched profile needs).  -1 with vtb_error(). */
int vtb_store_config_not_runnable(struct vtb_store *st, int64_t campaign_id, const char *key,
				  const char *why);

/* One row per guest kernel identity of VM boots (campaign_id <= 0: of
 * every campaign), in first-boot order. */
struct vtb_kernel_row {
	const char *campaign_uuid, *name, *release, *sha256, *config_sha256;
	long boots, ok;
};
int vtb_store_foreach_kernel(struct vtb_store *st, int64_t campaign_id,
			     int (*fn)(const struct vtb_kernel_row *row, void *arg), void *arg);

/* campaign_id <= 0: the cells of every campaign. */
struct vtb_cell_row {
	const char *campaign_uuid, *config_key, *config_label, *cell_key;
	const char *cell_name, *workload, *params_json;
	long boots, ok;
};
int vtb_store_foreach_cell(struct vtb_store *st, int64_t campaign_id,
			   int (*fn)(const struct vtb_cell_row *row, void *arg), void *arg);

/* The cells of a campaign in matrix order (configuration, then cell),
 * without their results: cheap (compare lists them all). */
struct vtb_campaign_cell {
	const char *config_key, *cell_key, *cell_name, *workload;
};
int vtb_store_foreach_campaign_cell(struct vtb_store *st, int64_t campaign_id,
				    int (*fn)(const struct vtb_campaign_cell *row, void *arg),
				    void *arg);

/*
 * What the boots of one cell did (for compare's missing rows): results
 * stored (one per boot of the configuration), usable (ok, of boots that
 * built the planned topology: what compare counts), those of
 * unexpected-topology boots, and why the first result that is not ok is
 * not (its boot's error for a cell without records, else its own, else
 * its boot's; malloc'ed, NULL when none says).  All 0 for an unknown cell.
 */
struct vtb_cell_outcome {
	long results, usable, unexpected;
	char *error;
};
int vtb_store_cell_outcome(struct vtb_store *st, int64_t campaign_id, const char *config_key,
			   const char *cell_key, struct vtb_cell_outcome *out);

/* The boots of a campaign by status (compare opens with them). */
struct vtb_boot_counts {
	long total, ok, failed, timeout, unexpected;
};
int vtb_store_boot_counts(struct vtb_store *st, int64_t campaign_id, struct vtb_boot_counts *out);

/*
 * What failed in a campaign, in configuration order: boots that are not
 * ok (cell_name NULL; reason the boot's error, or how its topology
 * differed), then cells that failed or reported nothing in ok boots
 * (reason the result's error, else its boot's).  Alike failures (same
 * configuration, cell, status and reason) are one row: @boots of them,
 * @reps their reps ("0,3,4").  reason may be NULL.
 */
struct vtb_failure_row {
	const char *config_key, *config_label, *cell_name, *status, *reason, *reps;
	long boots;
};
int vtb_store_foreach_failure(struct vtb_store *st, int64_t campaign_id,
			      int (*fn)(const struct vtb_failure_row *row, void *arg), void *arg);

/* Campaigns whose uuid is @spec or starts with it: *n matches, *campaign_id
 * the first (by start time).  An empty @spec matches nothing. */
int vtb_store_campaign_lookup(struct vtb_store *st, const char *spec, int64_t *campaign_id,
			      size_t *n);

/* A campaign's provenance: its row, its host's, and what its VM boots
 * ran under.  The list members are the distinct non-NULL values of the
 * boots, sorted, joined with '\n' ("" when none). */
struct vtb_campaign_row {
	int64_t id;
	const char *uuid, *matrix_path, *matrix_digest, *version, *cmdline, *status;
	const char *host_state;	      /* JSON text, NULL when none */
	int64_t started_ns, ended_ns; /* ended_ns 0: not ended */
	const char *hostname, *cpu_vendor, *cpu_model_name, *cpu_codename, *host_kernel;
	const char *topo_summary, *topo_digest;
	const char *accelerators, *libvirt_versions, *qemu_versions, *guest_kernels;
};
/* Calls @fn once (no call when there is no such campaign). */
int vtb_store_campaign_get(struct vtb_store *st, int64_t campaign_id,
			   int (*fn)(const struct vtb_campaign_row *row, void *arg), void *arg);

/* How long the stored boots of each configuration key took, in campaign
 * @campaign_id (0: every campaign; plan's estimate, a resumed run's eta):
 * @seconds in all, of @boots boots. */
struct vtb_boot_time_row {
	const char *config_key, *kind; /* kind: "vm" | "baseline" */
	double seconds;
	size_t boots;
};
int vtb_store_foreach_boot_time(struct vtb_store *st, int64_t campaign_id,
				int (*fn)(const struct vtb_boot_time_row *row, void *arg),
				void *arg);

/* The configurations of a campaign in matrix order (seq). */
struct vtb_config_row {
	const char *key, *label, *kind, *params_json, *cpus;
	bool runnable;
};
int vtb_store_foreach_config(struct vtb_store *st, int64_t campaign_id,
			     int (*fn)(const struct vtb_config_row *row, void *arg), void *arg);
/* The same, each with its boots in @campaign_id by status (run's and
 * explore's --format json summary). */
int vtb_store_foreach_config_boots(struct vtb_store *st, int64_t campaign_id,
				   int (*fn)(const struct vtb_config_row *row,
					     const struct vtb_boot_counts *n, void *arg),
				   void *arg);

/* The histograms of ok results (boots that built the planned topology),
 * ordered as vtb_store_foreach_sample: configuration, cell, metric, rep. */
struct vtb_hist_row {
	const char *config_key, *cell_key, *cell_name, *metric, *unit;
	const char *params_json, *buckets_json;
	int rep;
	int64_t boot; /* the boot row's id (boot.id): VMs side by side share a rep */
};
int vtb_store_foreach_hist(struct vtb_store *st, int64_t campaign_id,
			   int (*fn)(const struct vtb_hist_row *row, void *arg), void *arg);

/* The c2c matrices of ok results (the "matrix" member of the result's
 * info: {"cpus": [...], "ns": [[...]]}), in configuration, cell, rep order. */
struct vtb_matrix_row {
	const char *config_key, *cell_key, *cell_name, *matrix_json;
	int rep;
};
int vtb_store_foreach_matrix(struct vtb_store *st, int64_t campaign_id,
			     int (*fn)(const struct vtb_matrix_row *row, void *arg), void *arg);

/*
 * membw cells of campaign @campaign_id whose arrays were below STREAM's
 * 4 x LLC rule (result info "stream_rule"), one row per configuration and
 * cell in matrix order: the array sizes seen (bytes), the rule's size
 * (4 x llc_bytes), the boots concerned and where the LLC size came from.
 */
struct vtb_stream_rule_row {
	const char *config_key, *config_kind, *cell_name, *llc_source;
	int64_t array_min, array_max, rule_bytes, boots;
};
int vtb_store_foreach_stream_rule(struct vtb_store *st, int64_t campaign_id,
				  int (*fn)(const struct vtb_stream_rule_row *row, void *arg),
				  void *arg);

/*
 * Upload (vtbench upload): what a sink has been sent.  @sink names the
 * sink as its URL without credentials.
 */
struct vtb_upload_campaign {
	int64_t id;
	char *uuid, *status, *hostname, *host_kernel;
	int64_t started_ns, ended_ns; /* ended_ns 0: not ended */
};
/* The campaign with @uuid (NULL: the latest); *found false when none.
 * Release with vtb_upload_campaign_release(). */
int vtb_store_upload_campaign(struct vtb_store *st, const char *uuid,
			      struct vtb_upload_campaign *out, bool *found);
void vtb_upload_campaign_release(struct vtb_upload_campaign *c);

/* One row per sample of an ok result of every boot of the campaign, and one
 * row with metric NULL for a boot without any (failed, no samples, or
 * unexpected-topology: its samples are not uploaded, as compare leaves them
 * out); ordered by boot start, boot id, configuration, cell, metric order.
 * @sent: the boot is already recorded as sent to @sink. */
struct vtb_upload_row {
	int64_t boot_id;
	const char *boot_uuid, *boot_kind, *boot_status;
	int64_t started_ns;
	const char *accelerator, *guest_kernel; /* NULL for baselines */
	const char *config_key, *config_label, *config_params;
	int cpus; /* the configuration's vcpus (VM) or cpus (baseline) */
	int rep, vm_index;
	bool sent;
	const char *cell_key, *cell_name, *workload, *metric, *unit;
	int better; /* 1: higher is better */
	double value;
};
int vtb_store_foreach_upload_row(struct vtb_store *st, int64_t campaign_id, const char *sink,
				 int (*fn)(const struct vtb_upload_row *row, void *arg), void *arg);
/* Records in one transaction that @n boots were sent to @sink
 * (status "sent", @points[i] points each), that sending them failed
 * (status "failed", @error), or that a request holding them is about to
 * go out (status "in-flight": its outcome replaces it).  A boot already
 * recorded as sent stays so.  @n == 0 records one campaign-level item
 * @what ("aggregates", "snapshot") with @points[0] (points may be NULL:
 * 0): a row per attempt, but the item's row in flight becomes the
 * outcome. */
int vtb_store_upload_mark(struct vtb_store *st, int64_t campaign_id, const char *sink,
			  const char *what, const int64_t *boot_ids, const long *points, size_t n,
			  const char *status, const char *error);
/* What the records say of the campaign-level item @what at @sink: sent;
 * else in flight (a request went out whose answer was never recorded:
 * the sink may have it), *since_ns when it went; else nothing. */
enum vtb_upload_state { VTB_ITEM_NONE, VTB_ITEM_SENT, VTB_ITEM_IN_FLIGHT };
int vtb_store_upload_item_state(struct vtb_store *st, int64_t campaign_id, const char *sink,
				const char *what, enum vtb_upload_state *state, int64_t *since_ns);

/*
 * Merge (vtbench merge): copies every campaign of the database @path that
 * @out lacks (by uuid), with its host, configurations, cells, boots,
 * results, samples, histograms, guest views, events and upload records,
 * ids remapped, in one transaction (all of @path or nothing).  A campaign
 * already in @out is skipped whole: merging again adds nothing.  @path is
 * checked as vtb_store_open_ro does (a newer schema or a foreign file is
 * refused; an older schema is migrated in memory, the file never
 * written).  @fn, when not NULL, is called for each campaign of @path
 * (merged or skipped) before the commit; its negative return aborts the
 * merge.  @stats counts what was added.
 */
struct vtb_merge_stats {
	long campaigns, skipped, hosts, configs, cells, boots, results, samples, histograms;
	long guest_views, events, uploads;
};
struct vtb_merge_campaign {
	const char *input, *uuid, *hostname, *status;
	int64_t started_ns;
	long boots;
	bool merged; /* false: already in the output, skipped */
};
int vtb_store_merge(struct vtb_store *out, const char *path, struct vtb_merge_stats *stats,
		    int (*fn)(const struct vtb_merge_campaign *c, void *arg), void *arg);

/*
 * vtbench explore's race (schema 9; 10 the futility stop): one row per campaign, rewritten
 * after every round with its eliminations (a resumed race replays its
 * stored rounds and writes the same rows again).  JSON members are text.
 */
struct vtb_race_row {
	const char *objective;	/* JSON array: {cell, metric, class, better} */
	const char *candidates; /* JSON array of configuration keys, race order */
	const char *stop;	/* running one same budget rounds empty futile time interrupted */
	const char *winners;	/* JSON array: the winner, then the survivors tied with it */
	const char *stop_evidence; /* JSON object for `futile` (explore.c), else NULL */
	long rounds, boots;
	int64_t updated_ns;
};
struct vtb_race_elim_row {
	long round;
	const char *config_key, *metric, *best_key;
	const char *reason;   /* worse | missing */
	const char *evidence; /* JSON object */
};
/* Replaces the race of @campaign_id and its eliminations, in one
 * transaction. */
int vtb_store_race_save(struct vtb_store *st, int64_t campaign_id, const struct vtb_race_row *r,
			const struct vtb_race_elim_row *elims, size_t n);
/* Calls @fn once with the race of @campaign_id; *found false (no call)
 * when the campaign has none. */
int vtb_store_race_get(struct vtb_store *st, int64_t campaign_id,
		       int (*fn)(const struct vtb_race_row *row, void *arg), void *arg,
		       bool *found);
/* The eliminations of @campaign_id in the order they happened (round,
 * then the order they were saved). */
int vtb_store_foreach_race_elim(struct vtb_store *st, int64_t campaign_id,
				int (*fn)(const struct vtb_race_elim_row *row, void *arg),
				void *arg);
/* The distinct sched-domain trees the guests of configuration
 * @config_key built in @campaign_id (guest_view's normalised tree), with
 * the boots that built each, in the order they first appeared. */
struct vtb_guest_tree_row {
	const char *digest, *tree;
	long boots;
	int first_rep;
};
int vtb_store_foreach_guest_tree(struct vtb_store *st, int64_t campaign_id, const char *config_key,
				 int (*fn)(const struct vtb_guest_tree_row *row, void *arg),
				 void *arg);
/* The latest campaign that has a race; *found false when none. */
int vtb_store_latest_race(struct vtb_store *st, int64_t *campaign_id, bool *found);

#endif
