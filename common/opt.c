/* SPDX-License-Identifier: MIT */
/*
 * Option descriptor tables: lookup, parsing, storing, defaults, typo
 * suggestions and --help text.  One table serves matrix.conf, the
 * agent's command line and job parameters, so every message here names
 * the option but no file or line: callers add those.
 *
 * "auto" (VTB_OPT_AUTO / VTB_OPT_HOST_LLC options) parses to out->s
 * pointing at one static "auto" string, whatever the option's type, so
 * vtb_opt_is_auto() can tell it apart from a number by identity.
 * vtb_opt_store() then writes 0 for INT/TIME/SIZE, false for BOOL, and
 * the "auto" string for STR/ENUM/CPULIST: a numeric 0 means "auto" to
 * the workload, which is why AUTO numeric options should have min >= 1.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "vtbutil.h"

static const char opt_auto[] = "auto";

bool vtb_opt_is_auto(const struct vtb_opt *o, const union vtb_optval *v)
{
	if (!(o->flags & (VTB_OPT_AUTO | VTB_OPT_HOST_LLC)))
		return false;
	return v->s == opt_auto;
}

static bool is_prefix_opt(const struct vtb_opt *o)
{
	size_t n = strlen(o->name);

	return (o->flags & VTB_OPT_PREFIX) || (n > 0 && o->name[n - 1] == '.');
}

bool vtb_opt_is_prefix(const struct vtb_opt *o)
{
	return is_prefix_opt(o);
}

const struct vtb_opt *vtb_opt_find(const struct vtb_opt *table, const char *name)
{
	const struct vtb_opt *o;

	if (!table || !name)
		return NULL;
	/* Exact names win over prefixes, whatever the table order. */
	for (o = table; o->name; o++)
		if (!is_prefix_opt(o) && !strcmp(o->name, name))
			return o;
	for (o = table; o->name; o++) {
		size_t n = strlen(o->name);

		if (is_prefix_opt(o) && !strncmp(o->name, name, n) && name[n])
			return o;
	}
	return NULL;
}

/* "a, b, c" of an ENUM's values, malloc'ed. */
static char *enum_list(const struct vtb_opt *o)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *const *v;

	for (v = o->values; v && *v; v++)
		if (vtb_strbuf_addf(&sb, "%s%s", v == o->values ? "" : ", ", *v) < 0)
			goto fail;
	if (vtb_strbuf_addstr(&sb, "") < 0)
		goto fail;
	return vtb_strbuf_detach(&sb);
fail:
	vtb_strbuf_release(&sb);
	return NULL;
}

/*
 * ENUM matching.  An allowed value "random:SEED" (with VTB_OPT_ENUM_PREFIX)
 * accepts "random:" followed by a non-empty argument; a plain allowed
 * value "x" accepts "x", and with VTB_OPT_ENUM_PREFIX also "x:ARG".
 */
static bool enum_match(const struct vtb_opt *o, const char *text)
{
	const char *const *v;
	bool pfx = o->flags & VTB_OPT_ENUM_PREFIX;

	for (v = o->values; v && *v; v++) {
		const char *colon = strchr(*v, ':');
		size_t n = colon ? (size_t)(colon - *v) : strlen(*v);

		if (!colon && !strcmp(*v, text))
			return true;
		if (colon && !pfx && !strcmp(*v, text))
			return true;
		if (pfx && !strncmp(*v, text, n) && text[n] == ':' && text[n + 1])
			return true;
	}
	return false;
}

/* "invalid value 'atuo' for 'numa': expected one of auto, off (did you
 * mean 'auto'?)": the nearest allowed value, as for key names. */
static int bad_enum(const struct vtb_opt *o, const char *text)
{
	char *list = enum_list(o);
	const char *near = vtb_suggest(o->values, text);
	int ret;

	ret = vtb_error("invalid value '%s' for '%s': expected one of %s%s%s%s", text, o->name,
			list ? list : "?", near ? " (did you mean '" : "", near ? near : "",
			near ? "'?)" : "");
	free(list);
	return ret;
}

static int out_of_range_u(const struct vtb_opt *o, const char *text, bool time)
{
	char *lo, *hi;
	int ret;

	if (time) {
		lo = vtb_format_time_ns((uint64_t)o->min);
		hi = vtb_format_time_ns((uint64_t)o->max);
	} else {
		lo = vtb_format_size((uint64_t)o->min);
		hi = vtb_format_size((uint64_t)o->max);
	}
	/* "sleep = 100" meant 100us more often than 100 seconds */
	ret = vtb_error("'%s' must be between %s and %s, got '%s'%s", o->name, lo ? lo : "?",
			hi ? hi : "?", text,
			time && vtb_time_is_bare(text) ? " (a bare number means seconds)" : "");
	free(lo);
	free(hi);
	return ret;
}

int vtb_opt_parse(const struct vtb_opt *o, const char *text, union vtb_optval *out)
{
	struct vtb_cpuset set = { NULL, 0 };
	long long ll;
	uint64_t u;
	bool b;

	if (!text)
		return vtb_error("missing value for '%s'", o->name);
	if ((o->flags & (VTB_OPT_AUTO | VTB_OPT_HOST_LLC)) && !strcmp(text, "auto")) {
		out->s = opt_auto;
		return 0;
	}
	switch (o->type) {
	case VTB_OPT_INT:
		/* Limits 0..0 mean unbounded. */
		if (vtb_parse_int(text, LLONG_MIN, LLONG_MAX, &ll) < 0)
			return vtb_error("invalid integer '%s' for '%s'%s", text, o->name,
					 (o->flags & VTB_OPT_AUTO) ? " (or auto)" : "");
		if ((o->min || o->max) && (ll < o->min || ll > o->max))
			return vtb_error("'%s' must be between %lld and %lld, got '%s'", o->name,
					 o->min, o->max, text);
		out->i = ll;
		return 0;
	case VTB_OPT_BOOL:
		if (vtb_parse_bool(text, &b) < 0)
			return vtb_error("invalid value '%s' for '%s': expected yes or no", text,
					 o->name);
		out->b = b;
		return 0;
	case VTB_OPT_STR:
		out->s = text;
		return 0;
	case VTB_OPT_ENUM:
		if (!enum_match(o, text))
			return bad_enum(o, text);
		out->s = text;
		return 0;
	case VTB_OPT_TIME:
		if (vtb_parse_time_ns(text, &u) < 0)
			return vtb_error("bad time '%s' for '%s': %s", text, o->name, vtb_errmsg());
		if (o->max > 0 && (u < (uint64_t)o->min || u > (uint64_t)o->max))
			return out_of_range_u(o, text, true);
		out->u = u;
		return 0;
	case VTB_OPT_SIZE:
		if (vtb_parse_size(text, &u) < 0)
			return vtb_error("bad size '%s' for '%s': %s", text, o->name, vtb_errmsg());
		if (o->max > 0 && (u < (uint64_t)o->min || u > (uint64_t)o->max))
			return out_of_range_u(o, text, false);
		out->u = u;
		return 0;
	case VTB_OPT_CPULIST:
		if (vtb_cpuset_parse(text, &set) < 0)
			return vtb_error("bad cpu list '%s' for '%s': %s", text, o->name,
					 vtb_errmsg());
		vtb_cpuset_release(&set);
		out->s = text;
		return 0;
	}
	return vtb_error("option '%s' has an unknown type %d", o->name, (int)o->type);
}

void vtb_opt_store(const struct vtb_opt *o, void *base, const union vtb_optval *v)
{
	char *p = (char *)base + o->off;
	bool is_auto = vtb_opt_is_auto(o, v);
	long long ll;
	uint64_t u;
	bool b;

	if (!base || is_prefix_opt(o))
		return;
	switch (o->type) {
	case VTB_OPT_INT:
		ll = is_auto ? 0 : v->i;
		memcpy(p, &ll, sizeof(ll));
		break;
	case VTB_OPT_BOOL:
		b = is_auto ? false : v->b;
		memcpy(p, &b, sizeof(b));
		break;
	case VTB_OPT_TIME:
	case VTB_OPT_SIZE:
		u = is_auto ? 0 : v->u;
		memcpy(p, &u, sizeof(u));
		break;
	case VTB_OPT_STR:
	case VTB_OPT_ENUM:
	case VTB_OPT_CPULIST:
		memcpy(p, &v->s, sizeof(v->s));
		break;
	}
}

int vtb_opts_defaults(const struct vtb_opt *table, void *base)
{
	const struct vtb_opt *o;
	union vtb_optval v;

	for (o = table; o && o->name; o++) {
		if (!o->def || is_prefix_opt(o))
			continue;
		if (vtb_opt_parse(o, o->def, &v) < 0)
			return vtb_error("bad default for '%s': %s", o->name, vtb_errmsg());
		vtb_opt_store(o, base, &v);
	}
	return 0;
}

size_t vtb_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, ret;
	size_t *row;

	row = malloc((lb + 1) * sizeof(*row));
	if (!row)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	ret = row[lb];
	free(row);
	return ret;
}

static size_t suggest_limit(const char *word)
{
	size_t n = strlen(word) / 3;

	return n < 2 ? 2 : n;
}

const char *vtb_suggest(const char *const *cands, const char *word)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, lim;

	if (!cands || !word)
		return NULL;
	lim = suggest_limit(word);
	for (; *cands; cands++) {
		size_t d = vtb_edit_distance(*cands, word);

		if (d <= lim && d < best_d) {
			best = *cands;
			best_d = d;
		}
	}
	return best;
}

const char *vtb_opt_suggest(const struct vtb_opt *table, const char *word)
{
	const struct vtb_opt *o;
	const char *best = NULL;
	size_t best_d = SIZE_MAX, lim;

	if (!table || !word)
		return NULL;
	lim = suggest_limit(word);
	for (o = table; o->name; o++) {
		size_t d;

		if (o->flags & VTB_OPT_HIDDEN)
			continue;
		if (is_prefix_opt(o)) {
			/* "sysctl_kernel.x" vs "sysctl.": compare the head only. */
			size_t n = strlen(o->name);
			char *head = strndup(word, n);

			if (!head)
				continue;
			d = vtb_edit_distance(o->name, head);
			free(head);
		} else {
			d = vtb_edit_distance(o->name, word);
		}
		if (d <= lim && d < best_d) {
			best = o->name;
			best_d = d;
		}
	}
	return best;
}

static const char *type_name(const struct vtb_opt *o)
{
	switch (o->type) {
	case VTB_OPT_INT:
		return "INT";
	case VTB_OPT_BOOL:
		return "BOOL";
	case VTB_OPT_STR:
		return "STR";
	case VTB_OPT_ENUM:
		return "ENUM";
	case VTB_OPT_TIME:
		return "TIME";
	case VTB_OPT_SIZE:
		return "SIZE";
	case VTB_OPT_CPULIST:
		return "CPULIST";
	}
	return "?";
}

void vtb_wrap(FILE *f, const char *text, int col, int indent, int width)
{
	const char *p = text;
	bool space = false; /* a word before this one on the line */

	while (*p) {
		size_t n;

		if (*p == '\n') {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			space = false;
			p++;
			continue;
		}
		if (*p == ' ') {
			p++;
			continue;
		}
		n = strcspn(p, " \n");
		/* a word longer than a line goes on its own line, whole */
		if (space && col + 1 + (int)n > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			space = false;
		}
		if (space) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, n, f);
		col += (int)n;
		p += n;
		space = true;
	}
}

/* The "type/values" column: "INT 1..1024|auto", "yes|no", "a|b|c". */
static char *type_column(const struct vtb_opt *o)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *const *v;
	int r = 0;

	switch (o->type) {
	case VTB_OPT_ENUM:
		for (v = o->values; v && *v && r == 0; v++)
			r = vtb_strbuf_addf(&sb, "%s%s", v == o->values ? "" : "|", *v);
		break;
	case VTB_OPT_BOOL:
		r = vtb_strbuf_addstr(&sb, "yes|no");
		break;
	case VTB_OPT_INT:
		if (o->min || o->max)
			r = vtb_strbuf_addf(&sb, "INT %lld..%lld", o->min, o->max);
		else
			r = vtb_strbuf_addstr(&sb, "INT");
		break;
	case VTB_OPT_TIME:
	case VTB_OPT_SIZE:
		if (o->max > 0) {
			bool t = o->type == VTB_OPT_TIME;
			char *lo = t ? vtb_format_time_ns((uint64_t)o->min)
				     : vtb_format_size((uint64_t)o->min);
			char *hi = t ? vtb_format_time_ns((uint64_t)o->max)
				     : vtb_format_size((uint64_t)o->max);

			r = vtb_strbuf_addf(&sb, "%s %s..%s", type_name(o), lo ? lo : "?",
					    hi ? hi : "?");
			free(lo);
			free(hi);
		} else {
			r = vtb_strbuf_addstr(&sb, type_name(o));
		}
		break;
	default:
		r = vtb_strbuf_addstr(&sb, type_name(o));
		break;
	}
	if (r == 0 && (o->flags & (VTB_OPT_AUTO | VTB_OPT_HOST_LLC)))
		r = vtb_strbuf_addstr(&sb, "|auto");
	if (r == 0 && (o->flags & VTB_OPT_AXIS))
		r = vtb_strbuf_addstr(&sb, ", ...");
	if (r == 0)
		r = vtb_strbuf_addstr(&sb, "");
	if (r < 0) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

char *vtb_opt_type_text(const struct vtb_opt *o)
{
	return type_column(o);
}

static char *name_column(const struct vtb_opt *o, bool with_short)
{
	const char *suffix = is_prefix_opt(o) ? "KEY" : "";

	if (!with_short)
		return vtb_asprintf("%s%s", o->name, suffix);
	if (o->shortopt)
		return vtb_asprintf("-%c, --%s%s", o->shortopt, o->name, suffix);
	return vtb_asprintf("    --%s%s", o->name, suffix);
}

/*
 * Columns name, type, default, help.  The help column wraps within
 * VTB_HELP_WIDTH when it starts early enough to leave room for text;
 * where the other columns are wide (an ENUM's values), every row's help
 * goes on the lines under it instead, indented past the name.
 */
#define HELP_COL_MAX 56

void vtb_opts_help(FILE *f, const struct vtb_opt *table, bool with_short)
{
	const struct vtb_opt *o;
	size_t wn = 0, wt = 0, wd = 0, n;
	char *name, *type;
	int col;

	for (o = table; o && o->name; o++) {
		if (o->flags & VTB_OPT_HIDDEN)
			continue;
		name = name_column(o, with_short);
		type = type_column(o);
		if (name && strlen(name) > wn)
			wn = strlen(name);
		if (type && strlen(type) > wt)
			wt = strlen(type);
		n = o->def ? strlen(o->def) + strlen("default ") : 0;
		if (n > wd)
			wd = n;
		free(name);
		free(type);
	}
	col = (int)(2 + wn + 2 + wt + 2 + wd + 2);
	for (o = table; o && o->name; o++) {
		char *def;

		if (o->flags & VTB_OPT_HIDDEN)
			continue;
		name = name_column(o, with_short);
		type = type_column(o);
		def = o->def ? vtb_asprintf("default %s", o->def) : NULL;
		if (col <= HELP_COL_MAX) {
			fprintf(f, "  %-*s  %-*s  %-*s  ", (int)wn, name ? name : o->name, (int)wt,
				type ? type : "", (int)wd, def ? def : "");
			vtb_wrap(f, o->help ? o->help : "", col, col, VTB_HELP_WIDTH);
		} else {
			int indent = (int)(2 + wn + 2);

			fprintf(f, "  %-*s  %-*s%s%s", (int)wn, name ? name : o->name,
				def ? (int)wt : 0, type ? type : "", def ? "  " : "",
				def ? def : "");
			if (o->help && *o->help) {
				fprintf(f, "\n%*s", indent, "");
				vtb_wrap(f, o->help, indent, indent, VTB_HELP_WIDTH);
			}
		}
		fputc('\n', f);
		free(name);
		free(type);
		free(def);
	}
}
