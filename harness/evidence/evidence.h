/* SPDX-License-Identifier: MIT */
/*
 * Why a setup lost (issue 28): per cell of a VM boot, the guest
 * scheduler's own counters over the cell (the agent's "schedstat"
 * record: /proc/schedstat's difference summed per sched-domain level,
 * per-CPU run queues, steal) and what each vCPU thread did on the host
 * meanwhile (provision.c's per-cell readings), turned into the rates
 * and shares compare can put side by side: samples named evidence/...
 * (docs/evidence.md says what each one means).  They explain; they are
 * never part of compare's gate.
 *
 * Both inputs are validated before they get here (the record parser
 * bounds the guest's record); the arithmetic here still never trusts a
 * count: sums are in double, a zero interval gives no rate.
 */
#ifndef VTB_EVIDENCE_H
#define VTB_EVIDENCE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../store/store.h"

/* The metric prefix of every evidence sample. */
#define VTB_EVIDENCE_PREFIX "evidence/"

/* Is @metric an evidence metric (never gated)? */
bool vtb_evidence_metric(const char *metric);

/* One cell's evidence, ready for the store (ev points into it). */
struct vtb_evidence {
	struct vtb_cell_evidence ev;
	char *cell, *guest, *host;
	struct vtb_evidence_metric *metrics;
	char **names; /* the metrics' names (malloc'ed) */
	size_t n_metrics;
};

/*
 * Builds cell @cell's evidence from its validated "schedstat" record
 * (@guest, NULL: none) and its host readings (@host: one member of
 * provision's per-cell object, NULL: none).  0, or -1 with vtb_error()
 * on ENOMEM; an input that yields nothing gives an empty evidence (no
 * JSON, no metric).  Release with vtb_evidence_release().
 */
int vtb_evidence_build(const char *cell, const json_t *guest, const json_t *host,
		       struct vtb_evidence *out);
void vtb_evidence_release(struct vtb_evidence *e);

/* A domain level's short name in metric names: DIE and PKG are "pkg",
 * SMT "smt", CLS "cls", MC "mc", NUMA "numa", others lowercased with
 * every character but [a-z0-9] dropped (at most 15), "" for none;
 * @out holds 16 bytes. */
void vtb_evidence_level_key(const char *level, char out[16]);

#endif
