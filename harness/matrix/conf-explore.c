/* SPDX-License-Identifier: MIT */
/*
 * [explore]: the objective and the limits of vtbench explore's race
 * (docs/explore.md).  Kept apart from the other sections: it adds no
 * configuration and no cell, so the keys of a matrix do not move when it
 * is added.  The objective's cells are checked against the matrix's
 * cells here; its metrics only when a boot reports (the workloads
 * declare their metrics at run time).
 */
#include <stdlib.h>
#include <string.h>

#include "confint.h"

static const char *const multiplicity_values[] = { "bh", "holm", NULL };

const struct vtb_opt mx_explore_opts[] = {
	{ .name = "objective",
	  .type = VTB_OPT_STR,
	  .help = "CELL/METRIC to race on (wakeup/wakeup_p99); a comma list is a lexicographic order: a later metric decides only between candidates tied on the earlier ones" },
	{ .name = "direction",
	  .type = VTB_OPT_STR,
	  .def = "auto",
	  .help = "per objective metric, in its order: auto (the workload's word), lower or higher is better; one value applies to every metric" },
	{ .name = "min_rounds",
	  .type = VTB_OPT_INT,
	  .def = "3",
	  .min = 2,
	  .max = 100000,
	  .help = "rounds (one boot of every surviving candidate each) before the first elimination" },
	{ .name = "max_rounds",
	  .type = VTB_OPT_INT,
	  .def = "40",
	  .min = 2,
	  .max = 100000,
	  .help = "rounds at most" },
	{ .name = "budget_boots",
	  .type = VTB_OPT_INT,
	  .def = "0",
	  .min = 0,
	  .max = 100000000,
	  .help = "candidate boots at most, over the race (their baselines boot on top; 0: no budget)" },
	{ .name = "budget_time",
	  .type = VTB_OPT_TIME,
	  .def = "0",
	  .min = 0,
	  .max = 31536000000000000LL,
	  .help = "no boot starts that would end past this time since the start (0: no budget)" },
	{ .name = "multiplicity",
	  .type = VTB_OPT_ENUM,
	  .def = "bh",
	  .values = multiplicity_values,
	  .help = "how a round's p-values are adjusted: bh (Benjamini-Hochberg, compare's) or holm (family-wise)" },
	{ .name = "futility",
	  .type = VTB_OPT_BOOL,
	  .def = "no",
	  .help = "stop (futile) when no open comparison could be decided within the rounds and boots left and none is near a drop: the survivors are told apart no further" },
	{ .name = NULL },
};

void vtb_explore_conf_free(struct vtb_explore_conf *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_objective; i++) {
		free(e->objective[i].cell);
		free(e->objective[i].metric);
	}
	free(e->objective);
	free(e);
}

/* Is @name a cell of some configuration? */
static bool has_cell(const struct vtb_matrix *m, const char *name)
{
	for (size_t i = 0; i < m->n_configs; i++)
		for (size_t j = 0; j < m->configs[i].n_cells; j++)
			if (!strcmp(m->configs[i].cells[j].name, name))
				return true;
	return false;
}

/* The matrix's cell names, each once, for an error message. */
static char *cell_names(const struct vtb_matrix *m)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	struct strv seen = { 0 };

	for (size_t i = 0; i < m->n_configs; i++)
		for (size_t j = 0; j < m->configs[i].n_cells; j++) {
			const char *n = m->configs[i].cells[j].name;

			if (mx_strv_has(&seen, n) || mx_strv_push(&seen, n) < 0)
				continue;
			vtb_strbuf_addf(&sb, "%s'%s'", sb.len ? ", " : "", n);
		}
	mx_strv_release(&seen);
	return vtb_strbuf_detach(&sb);
}

/* One "CELL/METRIC" element of objective = (trimmed) into @om. */
static int parse_metric(struct parser *p, int line, const char *a, size_t len,
			struct vtb_explore_metric *om)
{
	const char *slash = NULL;
	char *names;
	int ret;

	for (size_t i = 0; i < len; i++)
		if (a[i] == '/')
			slash = a + i; /* the last: a cell name may hold '/' */
	if (!slash || slash == a || slash == a + len - 1)
		return mx_perr(p, line,
			       "objective '%.*s': expected CELL/METRIC (wakeup/wakeup_p99)",
			       (int)len, a);
	om->cell = strndup(a, (size_t)(slash - a));
	om->metric = strndup(slash + 1, len - (size_t)(slash - a) - 1);
	if (!om->cell || !om->metric)
		return vtb_error("out of memory");
	if (has_cell(p->m, om->cell))
		return 0;
	names = cell_names(p->m);
	ret = mx_perr(p, line, "objective '%s/%s': no cell '%s' in the matrix (its cells: %s)",
		      om->cell, om->metric, om->cell, names ? names : "none");
	free(names);
	return ret;
}

/* objective = A/B, C/D into e->objective */
static int parse_objective(struct parser *p, const char *v, int line, struct vtb_explore_conf *e)
{
	const char *s = v;

	for (;;) {
		const char *c = strchr(s, ','), *end = c ? c : s + strlen(s);
		struct vtb_explore_metric *g;

		while (s < end && mx_is_ws(*s))
			s++;
		while (end > s && mx_is_ws(end[-1]))
			end--;
		if (s == end)
			return mx_perr(p, line, "empty element in the list for 'objective'");
		for (size_t i = 0; i < e->n_objective; i++)
			if (strlen(e->objective[i].cell) + 1 + strlen(e->objective[i].metric) ==
				    (size_t)(end - s) &&
			    !strncmp(s, e->objective[i].cell, strlen(e->objective[i].cell)) &&
			    !strncmp(s + strlen(e->objective[i].cell) + 1, e->objective[i].metric,
				     strlen(e->objective[i].metric)))
				return mx_perr(p, line, "objective '%.*s' is listed twice",
					       (int)(end - s), s);
		g = realloc(e->objective, (e->n_objective + 1) * sizeof(*g));
		if (!g)
			return vtb_error("out of memory");
		e->objective = g;
		g[e->n_objective] = (struct vtb_explore_metric){ 0 };
		if (parse_metric(p, line, s, (size_t)(end - s), &g[e->n_objective++]) < 0)
			return -1;
		if (!c)
			return 0;
		s = c + 1;
	}
}

/* direction = auto | lower | higher, one for every metric or one each */
static int parse_direction(struct parser *p, const char *v, int line, struct vtb_explore_conf *e)
{
	struct strv sv = { 0 };
	const char *s = v;
	int ret = -1;

	for (;;) {
		const char *c = strchr(s, ','), *end = c ? c : s + strlen(s);
		char *t;

		while (s < end && mx_is_ws(*s))
			s++;
		while (end > s && mx_is_ws(end[-1]))
			end--;
		t = strndup(s, (size_t)(end - s));
		if (!t || mx_strv_push(&sv, t) < 0) {
			free(t);
			ret = vtb_error("out of memory");
			goto out;
		}
		if (strcmp(t, "auto") && strcmp(t, "lower") && strcmp(t, "higher")) {
			ret = mx_perr(
				p, line,
				"invalid value '%s' for 'direction': expected auto, lower or higher",
				t);
			free(t);
			goto out;
		}
		free(t);
		if (!c)
			break;
		s = c + 1;
	}
	if (sv.n != 1 && sv.n != e->n_objective) {
		ret = mx_perr(
			p, line,
			"direction has %zu values for %zu objective metrics: give one, or one each",
			sv.n, e->n_objective);
		goto out;
	}
	for (size_t i = 0; i < e->n_objective; i++) {
		const char *d = sv.v[sv.n == 1 ? 0 : i];

		e->objective[i].direction = !strcmp(d, "higher") ? 1 : !strcmp(d, "lower") ? -1 : 0;
	}
	ret = 0;
out:
	mx_strv_release(&sv);
	return ret;
}

/* A numeric key of [explore] (validated by its table) */
static int explore_num(struct parser *p, const struct sect *s, const char *key, long long *out,
		       int *line)
{
	char *v = NULL;

	if (mx_single(p, s, mx_explore_opts, key, &v, line) < 0)
		return -1;
	*out = strtoll(v, NULL, 10);
	free(v);
	return 0;
}

int mx_parse_explore(struct parser *p)
{
	struct sect *s = mx_find_sect(p, S_EXPLORE, NULL);
	struct vtb_explore_conf *e;
	char *v = NULL;
	long long budget_ns = 0;
	int line = 0, max_line = 0, ret = -1;

	if (!s)
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e)
		return vtb_error("out of memory");
	p->m->explore = e;
	e->line = s->line;
	if (mx_single(p, s, mx_explore_opts, "objective", &v, &line) < 0)
		goto out;
	if (!v) {
		ret = mx_perr(p, s->line,
			      "[explore] needs objective = CELL/METRIC (wakeup/wakeup_p99)");
		goto out;
	}
	e->objective_line = line;
	if (parse_objective(p, v, line, e) < 0)
		goto out;
	free(v);
	v = NULL;
	if (mx_single(p, s, mx_explore_opts, "direction", &v, &line) < 0 ||
	    parse_direction(p, v, line, e) < 0)
		goto out;
	free(v);
	v = NULL;
	if (explore_num(p, s, "min_rounds", &e->min_rounds, &line) < 0 ||
	    explore_num(p, s, "max_rounds", &e->max_rounds, &max_line) < 0 ||
	    explore_num(p, s, "budget_boots", &e->budget_boots, &line) < 0 ||
	    explore_num(p, s, "budget_time", &budget_ns, &line) < 0)
		goto out;
	e->budget_ns = (uint64_t)budget_ns;
	if (e->min_rounds > e->max_rounds) {
		ret = mx_perr(p, mx_sect_ent(s, "max_rounds") ? max_line : s->line,
			      "min_rounds %lld is above max_rounds %lld", e->min_rounds,
			      e->max_rounds);
		goto out;
	}
	if (mx_single(p, s, mx_explore_opts, "multiplicity", &v, &line) < 0)
		goto out;
	e->holm = !strcmp(v, "holm");
	free(v);
	v = NULL;
	if (mx_single(p, s, mx_explore_opts, "futility", &v, &line) < 0)
		goto out;
	e->futility = mx_is_yes(v);
	ret = 0;
out:
	free(v);
	return ret;
}
