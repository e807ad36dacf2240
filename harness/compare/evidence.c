/* SPDX-License-Identifier: MIT */
/*
 * What the guests saw, per VM configuration (the document's "evidence"):
 * what the guest was told (the plan's topology and claims), how many
 * boots built the planned topology, the scheduler domain levels per
 * guest kernel, where the vCPUs ran against the plan; and the membw
 * cells whose arrays were below STREAM's 4 x LLC rule ("stream_rule").
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compare-priv.h"

struct evidence {
	json_t *list; /* the document's "evidence" array */
	json_t *cur;  /* the configuration being filled */
	char *key;
	struct {
		size_t boots, matched, unexpected, unchecked, placed, smt_n, llc_n, node_n;
		double off_sum, off_max, smt_sum, llc_sum, node_sum;
	} n; /* of the configuration being filled */
	bool fail;
};

static void evidence_close(struct evidence *e)
{
	json_t *o = e->cur;

	if (!o)
		return;
	put(o, "boots", json_integer((json_int_t)e->n.boots), &e->fail);
	put(o, "matched", json_integer((json_int_t)e->n.matched), &e->fail);
	put(o, "unexpected", json_integer((json_int_t)e->n.unexpected), &e->fail);
	put(o, "unchecked", json_integer((json_int_t)e->n.unchecked), &e->fail);
	put(o, "placed", json_integer((json_int_t)e->n.placed), &e->fail);
	put(o, "off_planned_mean",
	    e->n.placed ? jreal(e->n.off_sum / (double)e->n.placed) : json_null(), &e->fail);
	put(o, "off_planned_max", e->n.placed ? jreal(e->n.off_max) : json_null(), &e->fail);
	put(o, "smt_split_core",
	    e->n.smt_n ? jreal(e->n.smt_sum / (double)e->n.smt_n) : json_null(), &e->fail);
	put(o, "llc_split_llc", e->n.llc_n ? jreal(e->n.llc_sum / (double)e->n.llc_n) : json_null(),
	    &e->fail);
	put(o, "node_split_node",
	    e->n.node_n ? jreal(e->n.node_sum / (double)e->n.node_n) : json_null(), &e->fail);
	if (!json_object_get(o, "guest_kernel"))
		put(o, "guest_kernel", json_null(), &e->fail);
	if (!json_object_get(o, "first_diff"))
		put(o, "first_diff", json_null(), &e->fail);
	e->cur = NULL;
}

/* What the guest was told: the plan's topology and claims. */
static void evidence_plan(struct evidence *e, json_t *o, const char *plan_json)
{
	json_t *p = plan_json ? json_loads(plan_json, 0, NULL) : NULL;
	json_t *t = json_object_get(p, "topology"), *told, *claims = json_array(), *c;
	size_t i;

	if (!p) {
		put(o, "told", json_null(), &e->fail);
		put(o, "claims", claims, &e->fail);
		return;
	}
	told = json_object();
	put(o, "told", told, &e->fail);
	if (told) {
		static const char *const dims[] = { "sockets", "dies", "cores", "threads" };

		for (i = 0; i < VTB_ARRAY_SIZE(dims); i++) {
			json_t *v = json_object_get(t, dims[i]);

			put(told, dims[i], json_is_integer(v) ? json_incref(v) : json_null(),
			    &e->fail);
		}
		put(told, "pinning", jstr(json_string_value(json_object_get(p, "pinning"))),
		    &e->fail);
	}
	json_array_foreach(json_object_get(p, "claims"), i, c)
	{
		json_t *k = json_object();

		push(claims, k, &e->fail);
		if (!k)
			break;
		put(k, "kind", jstr(json_string_value(json_object_get(c, "kind"))), &e->fail);
		put(k, "vcpus", jstr(json_string_value(json_object_get(c, "vcpus"))), &e->fail);
		put(k, "state", jstr(json_string_value(json_object_get(c, "state"))), &e->fail);
	}
	put(o, "claims", claims, &e->fail);
	json_decref(p);
}

static double num(json_t *o, const char *k, bool *ok)
{
	json_t *v = json_object_get(o, k);

	*ok = json_is_number(v);
	return json_number_value(v);
}

static void evidence_placement(struct evidence *e, const char *placement_json)
{
	json_t *p = json_loads(placement_json, 0, NULL);
	bool ok;
	double v;

	if (!p || json_integer_value(json_object_get(p, "samples")) <= 0) {
		json_decref(p);
		return;
	}
	v = num(p, "off_planned_mean", &ok);
	if (ok) {
		e->n.placed++;
		e->n.off_sum += v;
		v = num(p, "off_planned_max", &ok);
		e->n.off_max = ok && v > e->n.off_max ? v : e->n.off_max;
	}
	v = num(json_object_get(p, "smt_pairs"), "split_core", &ok);
	if (ok) {
		e->n.smt_sum += v;
		e->n.smt_n++;
	}
	v = num(json_object_get(p, "llc_groups"), "split_llc", &ok);
	if (ok) {
		e->n.llc_sum += v;
		e->n.llc_n++;
	}
	v = num(json_object_get(p, "nodes"), "split_node", &ok);
	if (ok) {
		e->n.node_sum += v;
		e->n.node_n++;
	}
	json_decref(p);
}

/* Level names are counted per guest kernel: domain trees are compared
 * only within one kernel. */
static void evidence_levels(struct evidence *e, const char *levels, const char *kernel)
{
	json_t *a = json_object_get(e->cur, "levels"), *l;
	size_t i;

	json_array_foreach(a, i, l)
	{
		const char *k = json_string_value(json_object_get(l, "guest_kernel"));

		if (!strcmp(json_string_value(json_object_get(l, "levels")), levels) &&
		    ((!k && !kernel) || (k && kernel && !strcmp(k, kernel)))) {
			json_object_set_new(l, "boots",
					    json_integer(json_integer_value(
								 json_object_get(l, "boots")) +
							 1));
			return;
		}
	}
	l = json_object();
	push(a, l, &e->fail);
	if (!l)
		return;
	put(l, "levels", json_string(levels), &e->fail);
	put(l, "guest_kernel", jstr(kernel), &e->fail);
	put(l, "boots", json_integer(1), &e->fail);
}

static int add_evidence(const struct vtb_vm_boot_row *r, void *arg)
{
	struct evidence *e = arg;

	if (!e->cur || strcmp(e->key, r->config_key)) {
		evidence_close(e);
		free(e->key);
		memset(&e->n, 0, sizeof(e->n));
		e->key = vtb_strdup(r->config_key);
		e->cur = json_object();
		push(e->list, e->cur, &e->fail);
		if (!e->key || !e->cur || e->fail)
			return vtb_error("out of memory");
		put(e->cur, "config", json_string(r->config_key), &e->fail);
		put(e->cur, "label", json_string(r->config_label), &e->fail);
		evidence_plan(e, e->cur, r->plan_json);
		put(e->cur, "levels", json_array(), &e->fail);
	}
	e->n.boots++;
	if (r->topology_check && !strcmp(r->topology_check, "match"))
		e->n.matched++;
	else if (!r->topology_check || !strcmp(r->topology_check, "unchecked"))
		e->n.unchecked++;
	if (!strcmp(r->status, "unexpected-topology"))
		e->n.unexpected++;
	if (r->topology_diff && !json_object_get(e->cur, "first_diff") &&
	    ((r->topology_check && !strcmp(r->topology_check, "differs")) ||
	     !strcmp(r->status, "unexpected-topology")))
		put(e->cur, "first_diff", json_string(r->topology_diff), &e->fail);
	if (r->guest_kernel && !json_object_get(e->cur, "guest_kernel"))
		put(e->cur, "guest_kernel", json_string(r->guest_kernel), &e->fail);
	/* the image's identity (schema 8): only where stored, so that the
	 * documents of older databases stay as they were */
	if (r->guest_kernel_sha256 && !json_object_get(e->cur, "guest_kernel_sha256"))
		put(e->cur, "guest_kernel_sha256", json_string(r->guest_kernel_sha256), &e->fail);
	if (r->guest_kernel_config_sha256 && !json_object_get(e->cur, "guest_kernel_config_sha256"))
		put(e->cur, "guest_kernel_config_sha256",
		    json_string(r->guest_kernel_config_sha256), &e->fail);
	if (r->levels)
		evidence_levels(e, r->levels, r->guest_kernel);
	if (r->placement_json)
		evidence_placement(e, r->placement_json);
	return e->fail ? vtb_error("out of memory") : 0;
}

/*
 * membw cells whose arrays were below STREAM's 4 x LLC rule (size = auto
 * cut to fit a guest's memory, or a size given smaller): a note on the
 * VM configuration's evidence ("notes"), and every such cell, baselines
 * included, in the document's "stream_rule".
 */
struct stream_notes {
	json_t *evidence, *list;
	bool fail;
};

static int add_stream_note(const struct vtb_stream_rule_row *r, void *arg)
{
	struct stream_notes *sn = arg;
	char *lo = vtb_format_size((uint64_t)r->array_min);
	char *hi = vtb_format_size((uint64_t)r->array_max);
	char *rule = vtb_format_size((uint64_t)r->rule_bytes);
	double pct = r->rule_bytes > 0 ? 100.0 * (double)r->array_max / (double)r->rule_bytes : NAN;
	char *note = NULL;
	json_t *e, *o = json_object();
	size_t i;

	push(sn->list, o, &sn->fail);
	if (o) {
		put(o, "config", jstr(r->config_key), &sn->fail);
		put(o, "kind", jstr(r->config_kind), &sn->fail);
		put(o, "cell", jstr(r->cell_name), &sn->fail);
		put(o, "array_bytes_min", json_integer(r->array_min), &sn->fail);
		put(o, "array_bytes_max", json_integer(r->array_max), &sn->fail);
		put(o, "rule_bytes", json_integer(r->rule_bytes), &sn->fail);
		put(o, "rule_pct", jreal(pct), &sn->fail);
		put(o, "boots", json_integer(r->boots), &sn->fail);
		put(o, "llc_source", jstr(r->llc_source), &sn->fail);
	}
	if (lo && hi && rule)
		note = r->array_min == r->array_max
			       ? vtb_asprintf(
					 "%s (membw): arrays of %s, %.1f%% of STREAM's 4 x LLC (%s): below the rule in %" PRId64
					 " boot%s",
					 r->cell_name ? r->cell_name : "?", hi, pct, rule, r->boots,
					 r->boots == 1 ? "" : "s")
			       : vtb_asprintf(
					 "%s (membw): arrays of %s to %s, at most %.1f%% of STREAM's 4 x LLC (%s): below the rule in %" PRId64
					 " boot%s",
					 r->cell_name ? r->cell_name : "?", lo, hi, pct, rule,
					 r->boots, r->boots == 1 ? "" : "s");
	if (!note)
		sn->fail = true;
	json_array_foreach(sn->evidence, i, e)
	{
		const char *k = json_string_value(json_object_get(e, "config"));
		json_t *notes;

		if (!note || !k || !r->config_key || strcmp(k, r->config_key))
			continue;
		notes = json_object_get(e, "notes");
		if (!notes) {
			notes = json_array();
			put(e, "notes", notes, &sn->fail);
		}
		push(notes, json_string(note), &sn->fail);
	}
	free(lo);
	free(hi);
	free(rule);
	free(note);
	return sn->fail ? vtb_error("out of memory") : 0;
}

static int build_stream_notes(struct vtb_store *st, const struct campaign *c, json_t *doc,
			      json_t *evidence)
{
	struct stream_notes sn = { evidence, json_array(), false };
	int ret = -1;

	if (!sn.list)
		return vtb_error("out of memory");
	if (vtb_store_foreach_stream_rule(st, c->id, add_stream_note, &sn) < 0)
		goto out;
	ret = json_array_size(sn.list) && json_object_set(doc, "stream_rule", sn.list)
		      ? vtb_error("out of memory")
		      : 0;
out:
	json_decref(sn.list);
	return ret;
}

int cm_build_evidence(struct vtb_store *st, const struct campaign *c, json_t *doc)
{
	struct evidence e = { .list = json_array() };
	int ret = -1;

	if (!e.list)
		return vtb_error("out of memory");
	if (vtb_store_foreach_vm_boot(st, c->id, add_evidence, &e) < 0)
		goto out;
	evidence_close(&e);
	if (e.fail) {
		vtb_error("out of memory");
		goto out;
	}
	ret = json_object_set(doc, "evidence", e.list) ? vtb_error("out of memory") : 0;
	if (!ret)
		ret = build_stream_notes(st, c, doc, e.list);
out:
	json_decref(e.list);
	free(e.key);
	return ret;
}
