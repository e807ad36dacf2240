/* SPDX-License-Identifier: MIT */
/*
 * Option descriptor tables.  An option is declared once, here as data, and
 * the same table parses matrix.conf sections (harness), the agent's command
 * line (getopt_long built from the table), job parameters, validation and
 * --help, and suggests the nearest name for a typo.
 */
#ifndef VTB_OPT_H
#define VTB_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum vtb_opt_type {
	VTB_OPT_INT,	 /* long long in [min, max] */
	VTB_OPT_BOOL,	 /* bool: yes/no/true/false/on/off/1/0 */
	VTB_OPT_STR,	 /* const char * */
	VTB_OPT_ENUM,	 /* const char *, one of values[] */
	VTB_OPT_TIME,	 /* uint64_t nanoseconds, in [min, max] when max > 0 */
	VTB_OPT_SIZE,	 /* uint64_t bytes, in [min, max] when max > 0 */
	VTB_OPT_CPULIST, /* const char *, Linux cpulist syntax */
};

/* flags */
#define VTB_OPT_AXIS (1u << 0)	 /* harness: a comma list is an axis */
#define VTB_OPT_VARS (1u << 1)	 /* harness: $host_cpus, $vcpus, N% allowed */
#define VTB_OPT_PREFIX (1u << 2) /* name ends in '.': matches "name*" keys */
#define VTB_OPT_AUTO (1u << 3)	 /* the value "auto" is allowed */
#define VTB_OPT_HOST_LLC                                                          \
	(1u << 4)		      /* "auto" is resolved by the harness to the \
				       * LLC bytes of the configuration's CPUs;   \
				       * stays "auto" in the cell key */
#define VTB_OPT_HIDDEN (1u << 5)      /* not shown in --help */
#define VTB_OPT_ENUM_PREFIX (1u << 6) /* ENUM value may be "value:ARG" */

struct vtb_opt {
	const char *name;
	enum vtb_opt_type type;
	unsigned flags;
	const char *def;	   /* default as text; NULL: no default */
	long long min, max;	   /* limits (INT; TIME/SIZE when max > 0) */
	const char *const *values; /* ENUM: NULL-terminated allowed values */
	const char *help;
	int shortopt; /* agent: getopt letter, 0 for none */
	size_t off;   /* offset of the field in the target struct */
};
/* Tables end with an entry whose name is NULL. */

union vtb_optval {
	long long i;
	bool b;
	uint64_t u; /* TIME (ns) and SIZE (bytes) */
	const char *s;
};

const struct vtb_opt *vtb_opt_find(const struct vtb_opt *table, const char *name);

/*
 * Parses and validates @text for @o.  On error returns -1 with a message
 * in vtb_errmsg() that names the option and the accepted values/range but
 * no file or line (the caller adds those).  "auto" yields out->s = "auto"
 * for VTB_OPT_AUTO options.  STR/ENUM/CPULIST results point into @text.
 */
int vtb_opt_parse(const struct vtb_opt *o, const char *text, union vtb_optval *out);

/*
 * Stores a parsed value into the struct at @base according to o->off:
 * INT -> long long, BOOL -> bool, TIME/SIZE -> uint64_t, STR/ENUM/CPULIST
 * -> const char *.  An "auto" value stores 0 (INT/TIME/SIZE), false (BOOL)
 * or the string "auto" (STR/ENUM/CPULIST).  PREFIX options are not stored.
 */
void vtb_opt_store(const struct vtb_opt *o, void *base, const union vtb_optval *v);

/* True when @v is the "auto" that vtb_opt_parse() returned for @o (the
 * union holds a pointer then, whatever the option's type). */
bool vtb_opt_is_auto(const struct vtb_opt *o, const union vtb_optval *v);

/* Applies every default of @table to @base (call before parsing input). */
int vtb_opts_defaults(const struct vtb_opt *table, void *base);

/*
 * Nearest candidate to @word by edit distance (at most 1/3 of its length,
 * at least 2), or NULL.  vtb_opt_suggest() searches a table's names,
 * vtb_suggest() a NULL-terminated list.
 */
const char *vtb_opt_suggest(const struct vtb_opt *table, const char *word);
const char *vtb_suggest(const char *const *cands, const char *word);
size_t vtb_edit_distance(const char *a, const char *b);

/*
 * --help text for a table: name, type, default, limits/values, help; no
 * line longer than VTB_HELP_WIDTH.  Help that does not fit beside the
 * other columns is wrapped under them, or goes on the lines below.
 */
void vtb_opts_help(FILE *f, const struct vtb_opt *table, bool with_short);
/* The type column of that help ("INT 1..1024|auto, ...", "yes|no");
 * the caller frees it; NULL when out of memory. */
char *vtb_opt_type_text(const struct vtb_opt *o);
/* A prefix option ("debugfs."): matches every "NAME*" key. */
bool vtb_opt_is_prefix(const struct vtb_opt *o);
#define VTB_HELP_WIDTH 100

/* Writes @text wrapped at @width columns: the first line continues at
 * column @col (already printed), the next ones are indented to @indent;
 * a '\n' in @text starts a new line.  A word longer than a line stays
 * whole. */
void vtb_wrap(FILE *f, const char *text, int col, int indent, int width);

#endif
