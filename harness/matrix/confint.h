/* SPDX-License-Identifier: MIT */
/*
 * Private to harness/matrix/conf*.c: the reader's state (sections,
 * entries, the parser), the shared option tables and the helpers the
 * files of the matrix reader share (prefixed mx_).  Nothing outside
 * harness/matrix includes it: the matrix's interface is conf.h.
 */
#ifndef VTB_CONFINT_H
#define VTB_CONFINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/index.h"
#include "../../common/opt.h"
#include "../../common/vtbutil.h"
#include "conf.h"

#define LINE_LIMIT 4096
#define VALUE_LIMIT 1024
#define FILE_LIMIT (64u << 20)
#define SECTION_LIMIT 4096
#define KEY_LIMIT 100000
#define CONFIG_LIMIT 10000
#define CELL_LIMIT 100000

struct sectdef {
	const char *type;
	const struct vtb_opt *opts;
	bool named;
	const char *help;
};

enum { S_GLOBAL, S_BASELINE, S_VM, S_SCHED, S_TOPOLOGY, S_WORKLOAD, S_KERNEL, S_EXPLORE, N_SECTS };

struct strv {
	char **v;
	size_t n, alloc;
};

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
	struct vtb_index keys; /* ents by key */
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
	long long *vcpus; /* of each configuration: what $vcpus and N% take */
	size_t alloc_vcpus;
	size_t n_keys;	   /* key lines in all sections (KEY_LIMIT) */
	bool vm_baselines; /* [baseline] enabled and vm = yes */
};

/* What reading keeps in the matrix for vtb_matrix_complete(). */
struct vtb_matrix_src {
	struct parser p;
};

/* Where variables may be used and what they are worth. */
struct varctx {
	const char *where; /* "[baseline]" for messages */
	long long vcpus;   /* -1: $vcpus is not available */
	long long pct_base;
};

/* One axis of a cross product. */
struct axis {
	const char *key;
	struct strv vals;
};

extern const struct vtb_opt mx_baseline_opts[];
extern const struct vtb_opt mx_global_opts[];
extern const char *const mx_sect_names[];
extern const struct sectdef mx_sectdefs[N_SECTS];
extern const struct vtb_opt mx_kernel_opts[];
extern const struct vtb_opt mx_explore_opts[];
extern const struct vtb_opt mx_topology_opts[];
extern const struct vtb_opt mx_vm_opts[];

int mx_add_config(struct parser *p, struct vtb_config *c, long long vcpus);
void mx_axes_release(struct axis *ax, size_t n);
char *mx_canonical(const json_t *j);
int mx_check_housekeeping(const struct parser *p, const char *v, int line);
int mx_check_keys(struct parser *p);
int mx_check_kernels(struct parser *p, const struct strv *vals, int line);
/* [global] kernel = @path (line @line): a readable bzImage of at most
 * VTB_KERNEL_IMAGE_MAX bytes, as a [vm] kernel = path must be; 0 or -1
 * with the error naming the line. */
int mx_check_global_kernel(struct parser *p, const char *path, int line);
int mx_check_named(struct parser *p);
int mx_check_workloads(struct parser *p);
void mx_config_release(struct vtb_config *c);
char *mx_did_you_mean(const char *fmt_q, const char *s);
/* @path taken from the matrix file's directory when relative (malloc'ed):
 * every path a matrix names (db =, kernel images and configs) is read
 * from where the matrix is, whatever the working directory. */
char *mx_from_matrix_dir(const struct parser *p, const char *path);
int mx_expand_baseline(struct parser *p);
int mx_expand_cells(struct parser *p, size_t first);
int mx_expand_vm(struct parser *p);
int mx_expand_vm_baselines(struct parser *p);
struct sect *mx_find_sect(struct parser *p, int kind, const char *name);
int mx_grow(void *pp, size_t *alloc, size_t need, size_t size);
bool mx_is_ws(char c);
bool mx_is_yes(const char *s);
int mx_kernel_params(struct parser *p, const char *value, int line, struct vtb_config *c,
		     size_t *alloc);
int mx_lex(struct parser *p, const char *text, size_t len);
bool mx_next_combo(const struct axis *ax, size_t n, size_t *idx);
int mx_params_add(struct vtb_params *p, size_t *alloc, const char *k, const char *v);
json_t *mx_params_json(const struct vtb_params *p);
void mx_params_release(struct vtb_params *p);
void mx_params_sort(struct vtb_params *p);
int mx_parse_global(struct parser *p);
int mx_parse_explore(struct parser *p);
int mx_perr(const struct parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int mx_product(const struct parser *p, int line, const struct axis *ax, size_t n, size_t limit,
	       size_t *out);
int mx_resolve_host_llc(const struct vtb_host_ctx *h, struct vtb_config *c);
const struct ent *mx_sect_ent(const struct sect *s, const char *key);
void mx_sects_release(struct parser *p);
int mx_single(const struct parser *p, const struct sect *s, const struct vtb_opt *table,
	      const char *key, char **out, int *line);
bool mx_strv_has(const struct strv *sv, const char *s);
int mx_strv_push(struct strv *sv, const char *s);
void mx_strv_release(struct strv *sv);
const char *mx_val_of(const struct sect *s, const struct vtb_opt *table, const char *key,
		      int *line);
int mx_values_of(const struct parser *p, int line, const struct vtb_opt *o, const char *key,
		 const char *text, bool axis, const struct varctx *vc, struct strv *out);

#endif
