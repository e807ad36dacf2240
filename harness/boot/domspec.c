/* SPDX-License-Identifier: MIT */
/* A plan's VM as a domain spec (domspec.h). */
#include <stdlib.h>
#include <string.h>

#include "../../common/vtbutil.h"
#include "domspec.h"

int vtb_plan_domspec(const struct vtb_plan *p, int vm, struct vtb_domspec *d,
		     struct vtb_plan_domstore *store)
{
	const struct vtb_plan_vm *m;
	size_t i;

	memset(store, 0, sizeof(*store));
	if (vm < 0 || vm >= p->req.vms)
		return vtb_error("no VM %d in the plan", vm);
	m = &p->vm[vm];
	d->vcpus = p->req.vcpus;
	d->sockets = p->sockets;
	d->dies = p->dies;
	d->cores = p->cores;
	d->threads = p->threads;
	d->memory_bytes = p->req.memory_bytes;
	d->vcpupin = m->pins;
	d->emulatorpin = p->housekeeping.n ? &p->housekeeping : NULL;
	d->hint_dedicated = p->req.pinning == VTB_PIN_STRICT && !p->req.overcommit;
	d->hugepages = p->req.hugepages;
	d->locked = p->req.locked;
	d->machine = p->machine;
	d->cells = NULL;
	d->n_cells = 0;
	if (m->n_cells) {
		store->cells = calloc(m->n_cells, sizeof(*store->cells));
		if (!store->cells)
			return vtb_error("out of memory");
		for (i = 0; i < m->n_cells; i++) {
			store->cells[i].vcpus = &m->cells[i].vcpus;
			store->cells[i].memory_bytes = m->cells[i].memory_bytes;
			store->cells[i].distances = m->distances ? m->distances + i * m->n_cells
								 : NULL;
			store->cells[i].host_node = m->cells[i].host_node;
		}
		d->cells = store->cells;
		d->n_cells = (int)m->n_cells;
	}
	d->numatune_nodes = m->nodes.n ? &m->nodes : NULL;
	d->numatune_mode = m->nodes.n ? "strict" : NULL;
	return 0;
}

void vtb_plan_domstore_release(struct vtb_plan_domstore *s)
{
	if (!s)
		return;
	free(s->cells);
	s->cells = NULL;
}
