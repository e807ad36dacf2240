/* SPDX-License-Identifier: MIT */
/* The plan as JSON (provenance, `vtbench plan`) and as a domain spec. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "planint.h"

/* ---------------------------------------------------------------- outputs */

static json_t *set_json(const struct vtb_cpuset *s)
{
	char *f = vtb_cpuset_format(s);
	json_t *j = f ? json_string(f) : NULL;

	free(f);
	return j;
}

char *vtb_plan_json(const struct vtb_plan *p)
{
	json_t *root, *claims = json_array(), *vms = json_array(), *notes = json_array();
	char *text = NULL;
	size_t i, j;
	int v;

	for (i = 0; claims && i < p->n_claims; i++)
		json_array_append_new(claims, json_pack("{s:s, s:i, s:o, s:s}", "kind",
							vtb_claim_kind_name(p->claims[i].kind),
							"vm", p->claims[i].vm, "vcpus",
							set_json(&p->claims[i].vcpus), "state",
							vtb_claim_state_name(p->claims[i].state)));
	for (v = 0; vms && v < p->req.vms; v++) {
		const struct vtb_plan_vm *m = &p->vm[v];
		json_t *pins = json_array(), *cells = json_array(), *vnotes = json_array();
		json_t *pcpus = json_array();

		for (i = 0; pins && i < (size_t)p->req.vcpus; i++)
			json_array_append_new(pins, m->pins ? set_json(&m->pins[i]) : json_null());
		/* each vCPU's pCPU in the assignment (what its cell and claims
		 * go by; its pins may be wider) */
		for (i = 0; pcpus && i < (size_t)p->req.vcpus; i++)
			json_array_append_new(pcpus, json_integer(m->pcpu[i]));
		for (j = 0; cells && j < m->n_cells; j++)
			json_array_append_new(cells,
					      json_pack("{s:o, s:I, s:i}", "vcpus",
							set_json(&m->cells[j].vcpus), "memory",
							(json_int_t)m->cells[j].memory_bytes,
							"host_node", m->cells[j].host_node));
		for (j = 0; vnotes && j < m->n_notes; j++)
			json_array_append_new(vnotes, json_string(m->notes[j]));
		json_array_append_new(vms,
				      json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "cpus",
						set_json(&m->cpus), "nodes", set_json(&m->nodes),
						"vcpupin", pins, "pcpus", pcpus, "cells", cells,
						"notes", vnotes));
	}
	for (i = 0; notes && i < p->n_notes; i++)
		json_array_append_new(notes, json_string(p->notes[i]));
	root = json_pack("{s:i, s:s, s:{s:i, s:i, s:i, s:i}, s:o, s:o, s:o, s:o}", "schema", 1,
			 "pinning", vtb_pinning_name(p->req.pinning), "topology", "sockets",
			 p->sockets, "dies", p->dies, "cores", p->cores, "threads", p->threads,
			 "housekeeping", set_json(&p->housekeeping), "vms", vms, "claims", claims,
			 "notes", notes);
	if (root && p->why_not)
		json_object_set_new(root, "not_runnable", json_string(p->why_not));
	if (root)
		text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(root);
	if (!text)
		vtb_error("out of memory");
	return text;
}
