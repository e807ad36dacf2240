/* SPDX-License-Identifier: MIT */
/* Typed VM configurations (vmreq.h): the pinning words, the host-free shapes. */
#include <string.h>

#include "../../common/vtbutil.h"
#include "vmreq.h"

const char *const vtb_pinning_names[] = { "none", "strict", "core", "llc", "node", NULL };

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

int vtb_vtopo_shape(const struct vtb_plan_req *r, int *sockets, int *dies, int *cores, int *threads)
{
	const struct vtb_preset *t = vtb_preset_of(r->topology);
	const struct vtb_vshape ex = {
		.sockets = r->sockets, .dies = r->dies, .cores = r->cores, .threads = r->threads
	};
	struct vtb_vshape sh;

	if (!t->shape)
		return -1;
	t->shape(r->vcpus, &ex, &sh);
	*sockets = sh.sockets;
	*dies = sh.dies;
	*cores = sh.cores;
	*threads = sh.threads;
	return 0;
}
