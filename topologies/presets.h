/* SPDX-License-Identifier: MIT */
/*
 * The virtual-topology presets: what a guest is told about its CPUs, one
 * rules table per preset (flat, cores, mirror, lie), registered in one
 * array, plus the rules of an explicit [topology NAME] shape.  The matrix
 * (harness/matrix) takes the preset words from here; the planner
 * (harness/plan) and the boot take the shapes and the rules.  Pure data
 * and arithmetic: no host, no I/O.
 */
#ifndef VTB_PRESETS_H
#define VTB_PRESETS_H

#include <stdbool.h>

/* In the order of vtb_presets[]; EXPLICIT last, not a preset word. */
enum vtb_vtopo {
	VTB_VTOPO_FLAT,
	VTB_VTOPO_CORES,
	VTB_VTOPO_MIRROR,
	VTB_VTOPO_LIE,
	VTB_VTOPO_EXPLICIT
};

/* What the guest is told: sockets x dies x cores x threads. */
struct vtb_vshape {
	int sockets, dies, cores, threads;
};

struct vtb_preset {
	const char *name; /* the word in [vm] topology = ("flat"); NULL: explicit */
	enum vtb_vtopo id;
	const char *summary; /* one line, for docs and messages */
	/*
	 * The shape when it needs no host: flat, cores, and explicit (the
	 * section's counts, in @explicit).  NULL for the presets only the
	 * planner shapes (mirror, lie): they take the host's LLC groups.
	 */
	void (*shape)(int vcpus, const struct vtb_vshape *explicit_shape, struct vtb_vshape *out);
	/* The guest is shaped from the LLC groups of the host pCPUs it gets:
	 * the planner searches the regular shapes of the free pCPUs, whole
	 * cores per VM; pinned (or mirrored) vCPUs never overcommit a VM. */
	bool from_host;
	/* The guest is told mirror's counts but each virtual die spans two
	 * host LLC groups, SMT siblings on different cores: planned as
	 * mirror first (.plan_as), then its VMs placed to make the SMT and
	 * LLC claims false. */
	bool lies;
	enum vtb_vtopo plan_as; /* the preset whose plan decides the counts */
	/* Said after "its LLC groups are taken to be X" when the host gives
	 * no caches; "" when the preset does not depend on them. */
	const char *llc_fallback;
};

/* flat, cores, mirror, lie: NULL-terminated, in enum order. */
extern const struct vtb_preset *const vtb_presets[];
/* The rules of an explicit [topology NAME] (not a preset word). */
extern const struct vtb_preset vtb_preset_explicit;

/* The rules of @t (never NULL for a valid enum). */
const struct vtb_preset *vtb_preset_of(enum vtb_vtopo t);
/* A preset's enum; -1 when @s is not a preset word (no error set). */
int vtb_vtopo_preset(const char *s, enum vtb_vtopo *out);

#endif
