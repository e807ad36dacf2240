/* SPDX-License-Identifier: MIT */
/*
 * The workload registry and the reporting helpers every workload uses.
 * vtb_workloads_check() runs once at agent start so a broken ops table
 * fails loudly before any measurement.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/hist.h"
#include "workload.h"

extern const struct vtb_workload_ops vtb_workload_membw;
extern const struct vtb_workload_ops vtb_workload_timer;
extern const struct vtb_workload_ops vtb_workload_messaging;
extern const struct vtb_workload_ops vtb_workload_c2c;
extern const struct vtb_workload_ops vtb_workload_wakeup;
extern const struct vtb_workload_ops vtb_workload_debug;

const struct vtb_workload_ops *const vtb_workloads[] = {
	&vtb_workload_membw,
	&vtb_workload_timer,
	&vtb_workload_messaging,
	&vtb_workload_c2c,
	&vtb_workload_wakeup,
	&vtb_workload_debug,
	NULL,
};

const struct vtb_workload_ops *vtb_workload_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; vtb_workloads[i]; i++)
		if (strcmp(vtb_workloads[i]->name, name) == 0)
			return vtb_workloads[i];
	return NULL;
}

const struct vtb_workload_ops *vtb_workload_modelling(const char *name)
{
	for (size_t i = 0; name && vtb_workloads[i]; i++)
		for (size_t j = 0; vtb_workloads[i]->models && vtb_workloads[i]->models[j]; j++)
			if (!strcasecmp(vtb_workloads[i]->models[j], name))
				return vtb_workloads[i];
	return NULL;
}

char *vtb_workload_unknown_hint(const char *name, bool hidden)
{
	const char *names[64];
	const struct vtb_workload_ops *model = vtb_workload_modelling(name);
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *near;
	size_t i, k = 0;
	int fail = 0;

	for (i = 0; vtb_workloads[i] && k + 1 < VTB_ARRAY_SIZE(names); i++) {
		const struct vtb_workload_ops *w = vtb_workloads[i];

		if (w->hidden && !hidden)
			continue;
		names[k++] = w->name;
	}
	names[k] = NULL;
	near = model ? NULL : vtb_suggest(names, name);
	if (model)
		fail |= vtb_strbuf_addf(&sb, " ('%s' is the %s model; known: ", model->name, name);
	else if (near)
		fail |= vtb_strbuf_addf(&sb, " (did you mean '%s'? known: ", near);
	else
		fail |= vtb_strbuf_addf(&sb, " (known: ");
	for (i = 0; i < k; i++)
		fail |= vtb_strbuf_addf(&sb, "%s%s", i ? ", " : "", names[i]);
	fail |= vtb_strbuf_addf(&sb, ")");
	if (fail) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

static int check_opts(const struct vtb_workload_ops *w)
{
	const struct vtb_opt *o, *p;
	union vtb_optval v;

	/* Agent flags; "records" may double as an option (--records=N). */
	static const char *const reserved[] = { "help", "nonce", "out",	   "job",
						"list", "all",	 "version" };
	size_t i;

	for (o = w->opts; o && o->name; o++) {
		for (i = 0; i < VTB_ARRAY_SIZE(reserved); i++)
			if (strcmp(o->name, reserved[i]) == 0)
				return vtb_error("workload '%s': option name '%s' is an agent flag",
						 w->name, o->name);
		if (o->shortopt == 'h')
			return vtb_error("workload '%s': option '%s' takes the letter 'h' of --help",
					 w->name, o->name);
		for (p = w->opts; p != o; p++) {
			if (strcmp(p->name, o->name) == 0)
				return vtb_error("workload '%s': option '%s' declared twice",
						 w->name, o->name);
			if (o->shortopt && p->shortopt == o->shortopt)
				return vtb_error(
					"workload '%s': options '%s' and '%s' share the letter '%c'",
					w->name, p->name, o->name, o->shortopt);
		}
		if (o->off >= w->params_size && !(o->flags & VTB_OPT_PREFIX))
			return vtb_error("workload '%s': option '%s' lies outside the params struct",
					 w->name, o->name);
		if (o->type == VTB_OPT_ENUM && !o->values)
			return vtb_error("workload '%s': enum option '%s' has no values", w->name,
					 o->name);
		if (o->def && vtb_opt_parse(o, o->def, &v))
			return vtb_error("workload '%s': default of '%s' does not parse: %s",
					 w->name, o->name, vtb_errmsg());
	}
	return 0;
}

int vtb_workloads_check(void)
{
	size_t i, j;

	for (i = 0; vtb_workloads[i]; i++) {
		const struct vtb_workload_ops *w = vtb_workloads[i];

		if (!w->name || !*w->name)
			return vtb_error("workload %zu has no name", i);
		if (!w->summary || !w->opts || !w->run)
			return vtb_error(
				"workload '%s' lacks a summary, an option table or a run hook",
				w->name);
		for (j = 0; j < i; j++)
			if (strcmp(vtb_workloads[j]->name, w->name) == 0)
				return vtb_error("workload '%s' registered twice", w->name);
		if (check_opts(w))
			return -1;
	}
	return 0;
}

static const char *better_str(enum vtb_better b)
{
	return b == VTB_BETTER_HIGHER ? "higher" : "lower";
}

int vtb_report_sample(struct vtb_workload_ctx *ctx, const char *metric, const char *unit,
		      double value, enum vtb_better better)
{
	struct vtb_sample *ns, *s;
	int ret = 0;

	if (!isfinite(value))
		return vtb_error("metric '%s' is not a finite number", metric);
	ns = realloc(ctx->samples, (ctx->n_samples + 1) * sizeof(*ns));
	if (!ns)
		return vtb_error("out of memory");
	ctx->samples = ns;
	s = &ns[ctx->n_samples];
	s->metric = vtb_strdup(metric);
	s->unit = vtb_strdup(unit);
	s->value = value;
	s->better = better;
	if (!s->metric || !s->unit) {
		free(s->metric);
		free(s->unit);
		return vtb_error("out of memory");
	}
	ctx->n_samples++;
	if (ctx->rec) {
		json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:f, s:s}", "type", "sample", "cell",
				      ctx->cell, "metric", metric, "unit", unit, "value", value,
				      "better", better_str(better));

		if (!r)
			return vtb_error("out of memory");
		ret = vtb_rec_write(ctx->rec, r);
		json_decref(r);
	}
	return ret;
}

int vtb_report_hist(struct vtb_workload_ctx *ctx, const char *metric, const struct vtb_hist *h)
{
	json_t *r;
	int ret;

	if (!ctx->rec)
		return 0;
	r = json_pack("{s:s, s:s, s:s, s:s, s:o?, s:I, s:o?}", "type", "hist", "cell", ctx->cell,
		      "metric", metric, "unit", h->unit, "params", vtb_hist_params_json(h), "count",
		      (json_int_t)h->count, "buckets", vtb_hist_buckets_json(h));
	if (!r || !json_object_get(r, "params") || !json_object_get(r, "buckets")) {
		json_decref(r);
		return vtb_error("out of memory");
	}
	ret = vtb_rec_write(ctx->rec, r);
	json_decref(r);
	return ret;
}

int vtb_report_error(struct vtb_workload_ctx *ctx, const char *message)
{
	json_t *r;
	int ret;

	if (!ctx->rec)
		return 0;
	r = json_pack("{s:s, s:s?, s:s}", "type", "error", "cell", ctx->cell, "message", message);
	if (!r)
		return vtb_error("out of memory");
	ret = vtb_rec_write(ctx->rec, r);
	json_decref(r);
	return ret;
}

int vtb_report_info(struct vtb_workload_ctx *ctx, const char *key, json_t *value)
{
	if (!value)
		return vtb_error("out of memory");
	if (!ctx->info) {
		ctx->info = json_object();
		if (!ctx->info) {
			json_decref(value);
			return vtb_error("out of memory");
		}
	}
	if (json_object_set_new(ctx->info, key, value))
		return vtb_error("cannot add info '%s'", key);
	return 0;
}

void vtb_workload_ctx_release(struct vtb_workload_ctx *ctx)
{
	size_t i;

	if (!ctx)
		return;
	for (i = 0; i < ctx->n_samples; i++) {
		free(ctx->samples[i].metric);
		free(ctx->samples[i].unit);
	}
	free(ctx->samples);
	ctx->samples = NULL;
	ctx->n_samples = 0;
	json_decref(ctx->info);
	ctx->info = NULL;
	vtb_cpuset_release(&ctx->cpus);
}

int vtb_workload_params(const struct vtb_workload_ops *w, const char *const *names,
			const char *const *vals, size_t n, void **out)
{
	void *p = calloc(1, w->params_size ? w->params_size : 1);
	size_t i;

	*out = NULL;
	if (!p)
		return vtb_error("out of memory");
	if (vtb_opts_defaults(w->opts, p))
		goto fail;
	for (i = 0; i < n; i++) {
		const struct vtb_opt *o = vtb_opt_find(w->opts, names[i]);
		union vtb_optval v;

		if (!o) {
			vtb_error("workload '%s' has no option '%s'", w->name, names[i]);
			goto fail;
		}
		if (vtb_opt_parse(o, vals[i], &v))
			goto fail;
		vtb_opt_store(o, p, &v);
	}
	*out = p;
	return 0;
fail:
	free(p);
	return -1;
}

void vtb_workload_params_free(void *params)
{
	free(params);
}

int vtb_workload_memory_need(const struct vtb_workload_ops *w, const void *params, size_t ncpus,
			     uint64_t *out)
{
	*out = 0;
	return w->memory_need ? w->memory_need(params, ncpus, out) : 0;
}

bool vtb_mem_fits(uint64_t need, uint64_t available)
{
	/* need < 80% of available, without overflow */
	return need < available / 100 * VTB_MEM_SHARE_PCT;
}
