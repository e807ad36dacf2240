/* SPDX-License-Identifier: MIT */
/* Typed VM configurations (vmreq.h): the words and the host-free shapes. */
#include <string.h>

#include "../../common/vtbutil.h"
#include "vmreq.h"

const char *const vtb_pinning_names[] = { "none", "strict", "core", "llc", "node", NULL };
const char *const vtb_vtopo_presets[] = { "flat", "cores", "mirror", "lie", NULL };

const char *vtb_pinning_name(enum vtb_pinning p)
{
	return (unsigned)p < VTB_ARRAY_SIZE(vtb_pinning_names) - 1 ? vtb_pinning_names[p] : "?";
}

int vtb_pinning_parse(const char *s, enum vtb_pinning *out)
{
	size_t i;

	for (i = 0; vtb_pinning_names[i]; i++)
		if (s && !strcmp(s, vtb_pinning_names[i])) {
			*out = (enum vtb_pinning)i;
			return 0;
		}
	return vtb_error("unknown pinning '%s': expected none, strict, core, llc or node",
			 s ? s : "");
}

int vtb_vtopo_preset(const char *s, enum vtb_vtopo *out)
{
	size_t i;

	for (i = 0; vtb_vtopo_presets[i]; i++)
		if (s && !strcmp(s, vtb_vtopo_presets[i])) {
			*out = (enum vtb_vtopo)i;
			return 0;
		}
	return -1;
}

int vtb_vtopo_shape(const struct vtb_plan_req *r, int *sockets, int *dies, int *cores, int *threads)
{
	switch (r->topology) {
	case VTB_VTOPO_FLAT:
		*sockets = r->vcpus;
		*dies = *cores = *threads = 1;
		return 0;
	case VTB_VTOPO_CORES:
		*sockets = *dies = *threads = 1;
		*cores = r->vcpus;
		return 0;
	case VTB_VTOPO_EXPLICIT:
		*sockets = r->sockets;
		*dies = r->dies;
		*cores = r->cores;
		*threads = r->threads;
		return 0;
	default:
		return -1;
	}
}
