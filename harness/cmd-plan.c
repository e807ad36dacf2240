/* SPDX-License-Identifier: MIT */
/* vtbench plan: the dry run.  Every configuration and cell, with keys. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "conf.h"

static const char plan_usage[] =
	"usage: vtbench plan MATRIX.conf [options]\n"
	"\n"
	"Shows what 'vtbench run' would do: every configuration (key, CPUs, memory\n"
	"nodes, whether it can run) and every cell (key, workload, resolved\n"
	"parameters), and the number of boots.  Runs nothing.\n"
	"\n"
	"options:\n"
	"  --format text|json     output format (default: text)\n"
	"  --host-topology SPEC   plan for another host (default: this machine): an\n"
	"                         hwloc XML file, an hwloc synthetic description,\n"
	"                         caps:FILE (virsh capabilities) or libvirt:URI;\n"
	"                         see 'vtbench topo --help'\n"
	"  --reps N               override the matrix's reps =\n"
	"  --help-matrix          the matrix.conf reference (sections, keys, defaults)\n"
	"  -h, --help             this help\n";

static const char *const order_names[] = { "interleave", "sequential", "random" };

static json_t *params_json(const struct vtb_params *p)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < p->n; i++)
		json_object_set_new(o, p->kv[i].key, json_string(p->kv[i].value));
	return o;
}

static int plan_json(const struct vtb_matrix *m, const struct vtb_hosttopo *h, size_t boots)
{
	json_t *root, *cfgs;
	size_t i, j;
	char *text;

	root = json_pack("{s:i, s:s, s:s, s:{s:s, s:s, s:i, s:s}, s:I, s:s, s:I, s:I}", "schema", 1,
			 "matrix", m->path, "digest", m->digest, "host", "source", h->source,
			 "summary", h->summary, "cpus", (int)h->n_compact, "digest", h->digest,
			 "reps", (json_int_t)m->reps, "order", order_names[m->order], "timeout_ns",
			 (json_int_t)m->timeout_ns, "boots", (json_int_t)boots);
	cfgs = json_array();
	if (!root || !cfgs)
		goto oom;
	for (i = 0; i < m->n_configs; i++) {
		const struct vtb_config *c = &m->configs[i];
		char *cpus = vtb_cpuset_format(&c->cpus);
		json_t *cells = json_array(), *jc;

		for (j = 0; cells && j < c->n_cells; j++) {
			const struct vtb_cell *cell = &c->cells[j];

			json_array_append_new(cells,
					      json_pack("{s:s, s:s, s:s, s:o, s:o}", "key",
							cell->key, "name", cell->name, "workload",
							cell->workload, "params",
							params_json(&cell->params), "resolved",
							params_json(&cell->resolved)));
		}
		jc = json_pack("{s:s, s:s, s:s, s:o, s:s, s:s?, s:b, s:s?, s:o}", "key", c->key,
			       "kind", c->kind == VTB_CONFIG_VM ? "vm" : "baseline", "label",
			       c->label, "params", params_json(&c->params), "cpus",
			       cpus ? cpus : "", "mems", c->mems, "runnable", c->runnable,
			       "why_not", c->why_not, "cells", cells);
		free(cpus);
		if (!jc || json_array_append_new(cfgs, jc))
			goto oom;
	}
	json_object_set_new(root, "configurations", cfgs);
	text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	if (!text)
		return vtb_error("out of memory");
	puts(text);
	free(text);
	return 0;
oom:
	json_decref(root);
	json_decref(cfgs);
	return vtb_error("out of memory");
}

static void plan_text(const struct vtb_matrix *m, const struct vtb_hosttopo *h, size_t boots)
{
	size_t i, j, k, runnable = 0, cells = 0;
	char *timeout = vtb_format_time_ns(m->timeout_ns);

	for (i = 0; i < m->n_configs; i++) {
		runnable += m->configs[i].runnable;
		cells += m->configs[i].n_cells;
	}
	printf("matrix   %s (sha256 %.16s)\n", m->path, m->digest);
	printf("host     %s: %s, %zu CPUs allowed\n", h->source, h->summary, h->n_compact);
	printf("order    %s", order_names[m->order]);
	if (m->order == VTB_ORDER_RANDOM)
		printf(":%llu", (unsigned long long)m->seed);
	printf(", reps %lld, timeout %s per boot\n", m->reps, timeout ? timeout : "?");
	printf("plan     %zu configuration%s (%zu runnable), %zu cell%s, %zu boot%s\n",
	       m->n_configs, m->n_configs == 1 ? "" : "s", runnable, cells, cells == 1 ? "" : "s",
	       boots, boots == 1 ? "" : "s");
	free(timeout);
	for (i = 0; i < m->n_configs; i++) {
		const struct vtb_config *c = &m->configs[i];
		char *cpus = vtb_cpuset_format(&c->cpus);

		printf("\n%s\n  key %s", c->label, c->key);
		if (c->cpus.n)
			printf("  cpus %s  mems %s", cpus ? cpus : "?", c->mems ? c->mems : "?");
		putchar('\n');
		free(cpus);
		if (!c->runnable)
			printf("  not runnable: %s\n", c->why_not ? c->why_not : "?");
		for (j = 0; j < c->n_cells; j++) {
			const struct vtb_cell *cell = &c->cells[j];

			printf("  cell %s  %s (%s)\n   ", cell->key, cell->name, cell->workload);
			for (k = 0; k < cell->resolved.n; k++) {
				const char *pv = vtb_params_get(&cell->params,
								cell->resolved.kv[k].key);

				printf(" %s=%s", cell->resolved.kv[k].key,
				       cell->resolved.kv[k].value);
				if (pv && strcmp(pv, cell->resolved.kv[k].value))
					printf("(%s)", pv);
			}
			putchar('\n');
		}
	}
}

int cmd_plan(struct vtb_cmd_env *env)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "host-topology", required_argument, NULL, 't' },
		{ "reps", required_argument, NULL, 'n' },
		{ "help-matrix", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vtb_matrix *m = NULL;
	struct vtb_bootref *order = NULL;
	const char *format = "text";
	long long reps = 0;
	size_t n_order = 0;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(env->argc, env->argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			if (strcmp(format, "text") && strcmp(format, "json")) {
				vtb_cmd_err(env, "unknown format '%s': expected text or json",
					    format);
				return VTB_EXIT_USAGE;
			}
			break;
		case 't':
			env->host_topology = optarg;
			break;
		case 'n':
			if (vtb_parse_int(optarg, 1, 100000, &reps)) {
				vtb_cmd_err(env, "--reps: %s", vtb_errmsg());
				return VTB_EXIT_USAGE;
			}
			break;
		case 'm':
			vtb_conf_help(stdout);
			return 0;
		case 'h':
			fputs(plan_usage, stdout);
			return 0;
		default:
			fputs(plan_usage, stderr);
			return VTB_EXIT_USAGE;
		}
	}
	if (optind != env->argc - 1) {
		vtb_cmd_err(env, "expected one matrix file");
		fputs(plan_usage, stderr);
		return VTB_EXIT_USAGE;
	}
	ret = vtb_cmd_setup(env);
	if (ret)
		return ret;
	if (vtb_matrix_load(env->argv[optind], &env->host->ctx, &m)) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return VTB_EXIT_USAGE;
	}
	if (reps)
		m->reps = reps;
	ret = VTB_EXIT_INFRA;
	if (vtb_matrix_boot_order(m, &order, &n_order)) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		goto out;
	}
	if (!strcmp(format, "json")) {
		if (plan_json(m, env->host, n_order)) {
			vtb_cmd_err(env, "%s", vtb_errmsg());
			goto out;
		}
	} else {
		plan_text(m, env->host, n_order);
	}
	ret = 0;
out:
	free(order);
	vtb_matrix_free(m);
	return ret;
}
