/* SPDX-License-Identifier: MIT */
/* How long boots take: the per-boot model and the campaign's estimator
 * behind run's and explore's eta and plan's estimate. */
#include "eta.h"

#include <stdint.h>
#include <stdlib.h>

#include "../../common/vtbutil.h"
#include "../matrix/conf.h"

static double time_param(const struct vtb_params *p, const char *key, bool *found)
{
	const char *v = vtb_params_get(p, key);
	uint64_t ns;

	if (!v || vtb_parse_time_ns(v, &ns))
		return 0;
	*found = true;
	return (double)ns / 1e9;
}

double vtb_eta_model(const struct vtb_config *c, bool kvm)
{
	double s = c->kind == VTB_CONFIG_VM ? (kvm ? VTB_ETA_VM_KVM_S : VTB_ETA_VM_TCG_S)
					    : VTB_ETA_BASELINE_S;

	for (size_t j = 0; j < c->n_cells; j++) {
		bool found = false;
		double t = time_param(&c->cells[j].resolved, "runtime", &found);

		t += time_param(&c->cells[j].resolved, "warmup", &found);
		s += found ? t : VTB_ETA_CELL_S;
	}
	return s;
}

int vtb_eta_init(struct vtb_eta *e, const struct vtb_config *configs, size_t n, bool kvm)
{
	*e = (struct vtb_eta){ .configs = configs, .n = n, .kvm = kvm };
	e->sum = calloc(n ? n : 1, sizeof(*e->sum));
	e->cnt = calloc(n ? n : 1, sizeof(*e->cnt));
	if (!e->sum || !e->cnt) {
		vtb_eta_release(e);
		return vtb_error("out of memory");
	}
	return 0;
}

void vtb_eta_release(struct vtb_eta *e)
{
	if (!e)
		return;
	free(e->sum);
	free(e->cnt);
	e->sum = NULL;
	e->cnt = NULL;
}

static int kind_of(const struct vtb_eta *e, size_t i)
{
	return e->configs[i].kind == VTB_CONFIG_VM;
}

void vtb_eta_add_n(struct vtb_eta *e, size_t i, double seconds, size_t n)
{
	if (i >= e->n || !n || !(seconds >= 0))
		return;
	e->sum[i] += seconds;
	e->cnt[i] += n;
	e->kind_sum[kind_of(e, i)] += seconds;
	e->kind_cnt[kind_of(e, i)] += n;
}

void vtb_eta_add(struct vtb_eta *e, size_t i, double seconds)
{
	vtb_eta_add_n(e, i, seconds, 1);
}

double vtb_eta_expect(const struct vtb_eta *e, size_t i)
{
	int k;

	if (i >= e->n)
		return 0;
	if (e->cnt[i])
		return e->sum[i] / (double)e->cnt[i];
	k = kind_of(e, i);
	if (e->kind_cnt[k])
		return e->kind_sum[k] / (double)e->kind_cnt[k];
	return vtb_eta_model(&e->configs[i], e->kvm);
}

/* @i's expectation, raised by the running boot @cur's overrun */
static double expect_after(const struct vtb_eta *e, size_t i, size_t cur, double taken)
{
	double x = vtb_eta_expect(e, i);

	if (cur < e->n && taken > x &&
	    (i == cur ||
	     (!e->cnt[i] && kind_of(e, i) == kind_of(e, cur) && !e->kind_cnt[kind_of(e, cur)])))
		return taken;
	return x;
}

double vtb_eta_left(const struct vtb_eta *e, size_t cur, double taken, const size_t *rest,
		    size_t n_rest, size_t extra)
{
	double left = 0, mean = 0;
	size_t n_mean = 0;

	if (cur < e->n) {
		double x = vtb_eta_expect(e, cur);

		left += x > taken ? x - taken : 0;
		mean += expect_after(e, cur, cur, taken);
		n_mean++;
	}
	for (size_t j = 0; j < n_rest; j++) {
		double x = expect_after(e, rest[j], cur, taken);

		left += x;
		mean += x;
		n_mean++;
	}
	if (extra) {
		if (!n_mean)
			for (size_t i = 0; i < e->n; i++, n_mean++)
				mean += expect_after(e, i, cur, taken);
		left += n_mean ? mean / (double)n_mean * (double)extra : 0;
	}
	return left;
}
