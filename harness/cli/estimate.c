/* SPDX-License-Identifier: MIT */
/* plan's time estimate: stored boot times, else the per-boot model. */
#include "estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/vtbutil.h"
#include "../plan/eta.h"
#include "../matrix/conf.h"
#include "../store/store.h"

/* The stored boots: per configuration of the matrix and per kind */
struct stored {
	const struct vtb_matrix *m;
	double *sum, kind_sum[2];
	size_t *cnt, kind_cnt[2];
};

static int add_time(const struct vtb_boot_time_row *r, void *arg)
{
	struct stored *s = arg;
	int k = !strcmp(r->kind, "vm");

	s->kind_sum[k] += r->seconds;
	s->kind_cnt[k] += r->boots;
	for (size_t i = 0; i < s->m->n_configs; i++)
		if (!strcmp(s->m->configs[i].key, r->config_key)) {
			s->sum[i] += r->seconds;
			s->cnt[i] += r->boots;
		}
	return 0;
}

int vtb_plan_estimate(struct vtb_store *st, const struct vtb_matrix *m, const double *boots,
		      struct vtb_plan_estimate *e)
{
	size_t n = m->n_configs ? m->n_configs : 1;
	struct stored s = { .m = m,
			    .sum = calloc(n, sizeof(double)),
			    .cnt = calloc(n, sizeof(size_t)) };
	int ret = -1;

	*e = (struct vtb_plan_estimate){ .accel = m->accel ? m->accel : "auto" };
	if (!s.sum || !s.cnt) {
		vtb_error("out of memory");
		goto out;
	}
	if (st && vtb_store_foreach_boot_time(st, 0, add_time, &s) < 0)
		goto out;
	for (size_t i = 0; i < m->n_configs; i++) {
		const struct vtb_config *c = &m->configs[i];
		int k = c->kind == VTB_CONFIG_VM;
		double kvm, tcg;

		if (!(boots[i] > 0))
			continue;
		if (s.cnt[i]) {
			kvm = tcg = s.sum[i] / (double)s.cnt[i];
			e->by_own++;
			e->stored_boots += s.cnt[i];
		} else if (s.kind_cnt[k]) {
			kvm = tcg = s.kind_sum[k] / (double)s.kind_cnt[k];
			e->by_kind++;
		} else {
			kvm = vtb_eta_model(c, true);
			tcg = vtb_eta_model(c, false);
			e->by_model++;
		}
		e->seconds_kvm += boots[i] * kvm;
		e->seconds_tcg += boots[i] * tcg;
	}
	/* the kind's boots count once, whatever number of configurations
	 * took their mean */
	for (int k = 0; k < 2; k++) {
		bool used = false;

		for (size_t i = 0; i < m->n_configs; i++)
			used |= boots[i] > 0 && !s.cnt[i] && s.kind_cnt[k] &&
				(m->configs[i].kind == VTB_CONFIG_VM) == k;
		if (used)
			e->stored_boots += s.kind_cnt[k];
	}
	ret = 0;
out:
	free(s.sum);
	free(s.cnt);
	return ret;
}

/* "31 minutes", "2 hours 5 minutes", "40 seconds" */
static void about(struct vtb_strbuf *sb, double s)
{
	long t = lround(s);

	if (t < 90)
		vtb_strbuf_addf(sb, "%ld second%s", t, t == 1 ? "" : "s");
	else if (t < 90 * 60)
		vtb_strbuf_addf(sb, "%ld minutes", (t + 30) / 60);
	else
		vtb_strbuf_addf(sb, "%ld hour%s %ld minute%s", (t + 30) / 3600,
				(t + 30) / 3600 == 1 ? "" : "s", (t + 30) / 60 % 60,
				(t + 30) / 60 % 60 == 1 ? "" : "s");
}

/* The estimate's own number: the accelerator's, TCG for auto */
static double seconds(const struct vtb_plan_estimate *e)
{
	return !strcmp(e->accel, "kvm") ? e->seconds_kvm : e->seconds_tcg;
}

static const char *basis(const struct vtb_plan_estimate *e)
{
	if (!e->by_kind && !e->by_model)
		return "stored";
	if (!e->by_own && !e->by_kind)
		return "model";
	return e->by_model ? "stored and model" : "stored";
}

char *vtb_plan_estimate_text(const struct vtb_plan_estimate *e)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t n = e->by_own + e->by_kind + e->by_model;

	vtb_strbuf_addstr(&sb, "about ");
	if (!strcmp(e->accel, "auto") && lround(e->seconds_kvm) != lround(e->seconds_tcg)) {
		about(&sb, e->seconds_kvm);
		vtb_strbuf_addstr(&sb, " with KVM, ");
		about(&sb, e->seconds_tcg);
		vtb_strbuf_addstr(&sb, " under TCG");
	} else {
		about(&sb, seconds(e));
	}
	if (e->budget_ns && (double)e->budget_ns / 1e9 < fmax(e->seconds_kvm, e->seconds_tcg)) {
		char *b = vtb_format_time_ns(e->budget_ns);

		vtb_strbuf_addf(&sb, "; the budget (%s) ends it sooner", b ? b : "?");
		free(b);
	}
	if (e->by_own || e->by_kind) {
		vtb_strbuf_addf(&sb,
				" (from %zu stored boot%s: %zu of %zu configuration%s by their "
				"own",
				e->stored_boots, e->stored_boots == 1 ? "" : "s", e->by_own, n,
				n == 1 ? "" : "s");
		if (e->by_kind)
			vtb_strbuf_addf(&sb, ", %zu by their kind's", e->by_kind);
		if (e->by_model)
			vtb_strbuf_addf(&sb, ", %zu by the model: %s", e->by_model,
					VTB_ETA_MODEL_TEXT);
		vtb_strbuf_addstr(&sb, ")");
	} else {
		vtb_strbuf_addstr(&sb, " (model: " VTB_ETA_MODEL_TEXT ")");
	}
	return vtb_strbuf_detach(&sb);
}

json_t *vtb_plan_estimate_json(const struct vtb_plan_estimate *e)
{
	return json_pack("{s:I, s:I, s:I, s:s, s:s, s:s, s:I, s:{s:I, s:I, s:I}, s:I}", "seconds",
			 (json_int_t)lround(seconds(e)), "seconds_kvm",
			 (json_int_t)lround(e->seconds_kvm), "seconds_tcg",
			 (json_int_t)lround(e->seconds_tcg), "accel", e->accel, "basis", basis(e),
			 "model", VTB_ETA_MODEL_TEXT, "stored_boots", (json_int_t)e->stored_boots,
			 "configurations", "own", (json_int_t)e->by_own, "kind",
			 (json_int_t)e->by_kind, "model", (json_int_t)e->by_model, "budget_ns",
			 (json_int_t)e->budget_ns);
}
