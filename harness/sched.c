/* SPDX-License-Identifier: MIT */
/*
 * The job's "sched" object from a configuration's "sched.*" params.  The
 * values go to the agent as written in the matrix (after conf.c's
 * checks): the agent writes them and compares what it reads back, so a
 * normalisation here would only hide what the user asked for.  The one
 * exception is the partition's cpulist, which the kernel prints in its
 * own canonical form.
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"

#define PFX "sched."

bool vtb_sched_has_settings(const struct vtb_config *c)
{
	size_t i;

	if (c->kind != VTB_CONFIG_VM)
		return false;
	for (i = 0; i < c->params.n; i++)
		if (!strncmp(c->params.kv[i].key, PFX, strlen(PFX)))
			return true;
	return false;
}

const char *vtb_sched_cmdline(const struct vtb_config *c)
{
	return c->kind == VTB_CONFIG_VM ? vtb_params_get(&c->params, PFX "cmdline") : NULL;
}

/* Adds @k = @v to the object member @name of @o (made on first use). */
static int add_to(json_t *o, const char *name, const char *k, const char *v)
{
	json_t *sub = json_object_get(o, name);

	if (!sub) {
		sub = json_object();
		if (!sub || json_object_set_new(o, name, sub) < 0)
			return vtb_error("out of memory");
	}
	if (json_object_set_new(sub, k, json_string(v)) < 0)
		return vtb_error("sched setting '%s' is not valid UTF-8", k);
	return 0;
}

json_t *vtb_sched_job(const struct vtb_config *c)
{
	const char *name = vtb_params_get(&c->params, "sched");
	json_t *o;
	size_t i;

	if (!vtb_sched_has_settings(c))
		return NULL;
	o = json_pack("{s:s}", "name", name ? name : "");
	if (!o) {
		vtb_error("out of memory");
		return NULL;
	}
	for (i = 0; i < c->params.n; i++) {
		const char *k = c->params.kv[i].key, *v = c->params.kv[i].value;
		int r = 0;

		if (strncmp(k, PFX, strlen(PFX)))
			continue;
		k += strlen(PFX);
		if (!strncmp(k, "sysctl.", 7)) {
			r = add_to(o, "sysctl", k + 7, v);
		} else if (!strncmp(k, "debugfs.", 8)) {
			r = add_to(o, "debugfs", k + 8, v);
		} else if (!strcmp(k, "cmdline")) {
			if (json_object_set_new(o, "cmdline", json_string(v)) < 0)
				r = vtb_error("sched cmdline is not valid UTF-8");
		} else if (!strcmp(k, "cpuset.partition")) {
			struct vtb_cpuset set = { NULL, 0 };
			char *list = NULL;

			if (vtb_cpuset_parse(v, &set) == 0)
				list = vtb_cpuset_format(&set);
			vtb_cpuset_release(&set);
			if (!list ||
			    json_object_set_new(o, "cpuset_partition", json_string(list)) < 0)
				r = vtb_error("bad cpuset.partition '%s'", v);
			free(list);
		} else {
			r = vtb_error("unknown sched setting '%s'", k);
		}
		if (r < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}
