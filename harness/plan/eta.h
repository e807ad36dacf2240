/* SPDX-License-Identifier: MIT */
/*
 * How long boots take: the stated per-boot model (before a boot of a
 * kind has finished, and for plan without stored boots), and the
 * estimator run and explore keep while a campaign runs (each
 * configuration's own finished boots, else its kind's, else the model).
 * Pure: no clock, no store.
 *
 * The model: a VM boot takes VTB_ETA_VM_KVM_S (KVM) or VTB_ETA_VM_TCG_S
 * (TCG) seconds to start and stop its guest, a bare-metal baseline
 * VTB_ETA_BASELINE_S; both then run each cell for its runtime + warmup
 * (time-valued parameters of the cell), or VTB_ETA_CELL_S for a cell
 * without a runtime (it runs a fixed amount of work).
 */
#ifndef VTB_ETA_H
#define VTB_ETA_H

#include <stdbool.h>
#include <stddef.h>

#define VTB_ETA_VM_KVM_S 10.0
#define VTB_ETA_VM_TCG_S 20.0
#define VTB_ETA_BASELINE_S 1.0
#define VTB_ETA_CELL_S 1.0

/* The model's sentence, for plan's text and JSON and the docs */
#define VTB_ETA_MODEL_TEXT                                                                     \
	"VM boot 10 s with KVM, 20 s under TCG, baseline 1 s, each cell its runtime + warmup " \
	"or 1 s"

struct vtb_config;

/* The model's seconds for one boot of @c (@kvm: the accelerator of its
 * VM boots). */
double vtb_eta_model(const struct vtb_config *c, bool kvm);

/* A campaign's boot times: per configuration (index into the matrix's
 * configurations) and per kind (0 baseline, 1 VM). */
struct vtb_eta {
	const struct vtb_config *configs;
	size_t n;
	bool kvm;
	double *sum; /* per configuration: seconds of its finished boots */
	size_t *cnt;
	double kind_sum[2];
	size_t kind_cnt[2];
};

/* 0, or -1 with vtb_error() (ENOMEM) */
int vtb_eta_init(struct vtb_eta *e, const struct vtb_config *configs, size_t n, bool kvm);
void vtb_eta_release(struct vtb_eta *e);
/* Counts a finished boot of configuration @i that took @seconds; _n:
 * @n boots that took @seconds in all (a resumed campaign's stored). */
void vtb_eta_add(struct vtb_eta *e, size_t i, double seconds);
void vtb_eta_add_n(struct vtb_eta *e, size_t i, double seconds, size_t n);
/* Expected seconds of a boot of configuration @i: the mean of its own
 * finished boots, else of its kind's, else the model. */
double vtb_eta_expect(const struct vtb_eta *e, size_t i);

/*
 * Seconds still to go: configuration @cur's running boot, which has
 * taken @taken so far (cur == SIZE_MAX: none running), then the boots of
 * @rest (n_rest configuration indices) and @extra more boots of unknown
 * configuration (reps = auto's and the race's most still possible; each
 * at the mean expectation of @rest and cur, else of every configuration).
 * A boot running past its expectation raises the expectation of the
 * boots to come of its configuration, and of its kind while none of
 * that kind has finished, to what it has taken: the eta never counts on
 * the next such boot being shorter than this one already is.
 */
double vtb_eta_left(const struct vtb_eta *e, size_t cur, double taken, const size_t *rest,
		    size_t n_rest, size_t extra);

#endif
