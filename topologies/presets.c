/* SPDX-License-Identifier: MIT */
/* The virtual-topology presets (presets.h): one rules table each. */
#include <stddef.h>
#include <string.h>

#include "presets.h"

/* One single-core socket per vCPU: libvirt's default, what a guest is
 * told when nobody says anything. */
static void flat_shape(int vcpus, const struct vtb_vshape *explicit_shape, struct vtb_vshape *out)
{
	(void)explicit_shape;
	*out = (struct vtb_vshape){ .sockets = vcpus, .dies = 1, .cores = 1, .threads = 1 };
}

/* One socket of vcpus cores, no SMT. */
static void cores_shape(int vcpus, const struct vtb_vshape *explicit_shape, struct vtb_vshape *out)
{
	(void)explicit_shape;
	*out = (struct vtb_vshape){ .sockets = 1, .dies = 1, .cores = vcpus, .threads = 1 };
}

/* The [topology NAME] section's counts, as written. */
static void explicit_shape(int vcpus, const struct vtb_vshape *explicit_shape,
			   struct vtb_vshape *out)
{
	(void)vcpus;
	*out = *explicit_shape;
}

static const struct vtb_preset flat = {
	.name = "flat",
	.id = VTB_VTOPO_FLAT,
	.summary = "one single-core socket per vCPU (libvirt's default)",
	.shape = flat_shape,
	.plan_as = VTB_VTOPO_FLAT,
	.llc_fallback = "",
};

static const struct vtb_preset cores = {
	.name = "cores",
	.id = VTB_VTOPO_CORES,
	.summary = "one socket of vcpus cores, no SMT",
	.shape = cores_shape,
	.plan_as = VTB_VTOPO_CORES,
	.llc_fallback = "",
};

static const struct vtb_preset mirror = {
	.name = "mirror",
	.id = VTB_VTOPO_MIRROR,
	.summary = "the host's own shape on the pCPUs it gets: a virtual die per LLC group, "
		   "SMT siblings as threads, a guest NUMA cell per host node",
	.from_host = true,
	.plan_as = VTB_VTOPO_MIRROR,
	.llc_fallback = " (mirror's virtual dies follow them)",
};

static const struct vtb_preset lie = {
	.name = "lie",
	.id = VTB_VTOPO_LIE,
	.summary = "mirror's counts, but each virtual die spans two host LLC groups and "
		   "SMT siblings sit on different cores: the claims are false",
	.from_host = true,
	.lies = true,
	.plan_as = VTB_VTOPO_MIRROR,
	.llc_fallback = " (lie's virtual dies span two of them)",
};

const struct vtb_preset vtb_preset_explicit = {
	.name = NULL,
	.id = VTB_VTOPO_EXPLICIT,
	.summary = "a [topology NAME] section: sockets, dies, cores, threads and cells as written",
	.shape = explicit_shape,
	.plan_as = VTB_VTOPO_EXPLICIT,
	.llc_fallback = "",
};

const struct vtb_preset *const vtb_presets[] = { &flat, &cores, &mirror, &lie, NULL };

const struct vtb_preset *vtb_preset_of(enum vtb_vtopo t)
{
	size_t i;

	for (i = 0; vtb_presets[i]; i++)
		if (vtb_presets[i]->id == t)
			return vtb_presets[i];
	return &vtb_preset_explicit;
}

int vtb_vtopo_preset(const char *s, enum vtb_vtopo *out)
{
	size_t i;

	for (i = 0; s && vtb_presets[i]; i++)
		if (!strcmp(s, vtb_presets[i]->name)) {
			*out = vtb_presets[i]->id;
			return 0;
		}
	return -1;
}
