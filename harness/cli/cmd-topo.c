/* SPDX-License-Identifier: MIT */
/*
 * vtbench topo: the host model as a tree (packages > nodes > LLCs > cores
 * > PUs), as JSON, or exported as hwloc XML.  What the planner will see,
 * for this machine or the one --host-topology describes.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

static const char *const text_json[] = { "text", "json", NULL };

enum { OPT_FORMAT = 256, OPT_HOST_TOPOLOGY, OPT_EXPORT };

static const struct vtb_cli_opt topo_opts[] = {
	{ .name = "host-topology",
	  .id = OPT_HOST_TOPOLOGY,
	  .arg = "SPEC",
	  .help = "another host (default: this machine): an hwloc XML file (lstopo --of xml), an "
		  "hwloc synthetic string (\"pack:2 l3:2(size=32MiB) core:4 pu:2\") or a FILE.synthetic "
		  "holding one (topologies/hosts/), caps:FILE "
		  "(virsh capabilities), or libvirt:URI (its capabilities)" },
	{ .name = "format",
	  .id = OPT_FORMAT,
	  .arg = "FMT",
	  .values = text_json,
	  .help = "output format: text (default) or json" },
	{ .name = "export",
	  .id = OPT_EXPORT,
	  .arg = "FILE.xml",
	  .help = "also write the topology as hwloc XML (loadable with --host-topology FILE.xml "
		  "and lstopo --input)" },
	{ 0 },
};

const struct vtb_cli topo_cli = {
	.cmd = "topo",
	.usage = "[options]",
	.about = "Shows the host topology the planner uses: packages, dies, NUMA nodes\n"
		 "(memory, distances), last-level caches, cores with their L2 and PUs by\n"
		 "OS number, offline CPUs, CPU identity and the topology digest.\n",
	.opts = topo_opts,
	.exits = "0 shown, 2 usage or input error (a --host-topology that cannot be read, an "
		 "--export path that cannot be written), 3 infrastructure failure (this host's "
		 "topology or libvirt cannot be read).",
};

/* ---- text --------------------------------------------------------------- */

#define LV_NODE VTB_TOPO_NLEVELS

struct tree {
	const struct vtb_hosttopo *h;
	const struct vtb_topo *m;
	int levels[5];
	size_t n_levels;
	bool die_inline; /* one die per package: "package 0  (die 0)" */
};

static int field(const struct vtb_topo_pu *p, int level)
{
	switch (level) {
	case VTB_TOPO_PKG:
		return p->pkg;
	case VTB_TOPO_DIE:
		return p->die;
	case VTB_TOPO_LLC:
		return p->llc;
	case VTB_TOPO_CORE:
		return p->core;
	default:
		return p->node;
	}
}

static void print_set(const char *label, const struct vtb_cpuset *s)
{
	char *t = vtb_cpuset_format(s);

	printf("%s%s", label, t ? t : "?");
	free(t);
}

static void print_size(const char *sep, uint64_t bytes)
{
	char *s = vtb_format_size(bytes);

	printf("%s%s", sep, s ? s : "?");
	free(s);
}

static void print_distances(const struct vtb_topo *m, size_t node)
{
	size_t j;

	if (!m->distances)
		return;
	printf("  distances");
	for (j = 0; j < m->n_nodes; j++)
		printf(" %u", vtb_topo_distance(m, node, j));
}

static void print_node(const struct vtb_topo *m, size_t i)
{
	const struct vtb_topo_node *n = &m->nodes[i];
	struct vtb_cpuset pkgs = { NULL, 0 };
	size_t j;

	printf("node %d", n->os);
	if (n->memory)
		print_size("  ", n->memory);
	else
		printf("  memory unknown");
	if (n->hugepages > 0) {
		print_size("  hugepages ", (uint64_t)n->hugepages * VTB_TOPO_HUGEPAGE);
		if (n->hugepages_free >= 0) {
			print_size(" (free ", (uint64_t)n->hugepages_free * VTB_TOPO_HUGEPAGE);
			putchar(')');
		}
	}
	if (!n->pus.n)
		printf("  no cpus");
	if (n->denied)
		printf("  (not allowed: outside our cpuset.mems)");
	print_distances(m, i);
	/* a node over several packages (NUMA off) shows under each */
	for (j = 0; j < n->pus.n; j++) {
		const struct vtb_topo_pu *p = vtb_topo_pu_by_os(m, n->pus.cpus[j]);

		if (p && p->pkg >= 0)
			vtb_cpuset_add(&pkgs, p->pkg);
	}
	if (pkgs.n > 1) {
		print_set("  (spans packages ", &pkgs);
		putchar(')');
	}
	vtb_cpuset_release(&pkgs);
	putchar('\n');
}

static void print_core(const struct tree *t, int core)
{
	const struct vtb_topo *m = t->m;
	const struct vtb_topo_group *c = &m->groups[VTB_TOPO_CORE][core];
	const struct vtb_topo_pu *p = vtb_topo_pu_by_os(m, c->pus.cpus[0]);
	struct vtb_cpuset denied = { NULL, 0 }, nodeless = { NULL, 0 };
	size_t i;

	printf("core %d", core);
	if (p && p->l2 >= 0) {
		const struct vtb_topo_group *l2 = &m->groups[VTB_TOPO_L2][p->l2];

		/* an L2 shared by several cores (a cluster) shows its index */
		if (l2->pus.n == c->pus.n)
			printf("  L2");
		else
			printf("  L2 %d", p->l2);
		if (l2->size)
			print_size(" ", l2->size);
	}
	print_set("  pus ", &c->pus);
	for (i = 0; i < c->pus.n; i++) {
		p = vtb_topo_pu_by_os(m, c->pus.cpus[i]);
		if (p && p->nodeless)
			vtb_cpuset_add(&nodeless, p->os);
		else if (p && !p->allowed)
			vtb_cpuset_add(&denied, p->os);
	}
	if (denied.n) {
		print_set("  (not allowed: ", &denied);
		putchar(')');
	}
	if (nodeless.n) {
		print_set("  (no node: ", &nodeless);
		putchar(')');
	}
	vtb_cpuset_release(&denied);
	vtb_cpuset_release(&nodeless);
	putchar('\n');
}

static void print_header(const struct tree *t, int level, int g)
{
	const struct vtb_topo *m = t->m;
	const struct vtb_topo_group *grp;
	struct vtb_cpuset nodes;
	size_t i;

	switch (level) {
	case VTB_TOPO_PKG:
		printf("package %d", g);
		if (t->die_inline) {
			for (i = 0; i < m->n_pus; i++)
				if (m->pus[i].pkg == g && m->pus[i].die >= 0) {
					printf("  (die %d)", m->pus[i].die);
					break;
				}
		}
		putchar('\n');
		break;
	case VTB_TOPO_DIE:
		printf("die %d\n", g);
		break;
	case LV_NODE:
		print_node(m, (size_t)g);
		break;
	case VTB_TOPO_LLC:
		grp = &m->groups[VTB_TOPO_LLC][g];
		printf("L%d %d", m->llc_level, g);
		if (grp->size)
			print_size("  ", grp->size);
		print_set("  cpus ", &grp->pus);
		if (!vtb_topo_nodes_of(m, &grp->pus, &nodes)) {
			if (nodes.n > 1) {
				print_set("  (spans nodes ", &nodes);
				putchar(')');
			}
			vtb_cpuset_release(&nodes);
		}
		putchar('\n');
		break;
	default:
		print_core(t, g);
	}
}

/*
 * One level of the tree over @list (indexes into pus[], compact order):
 * the groups of this level in order of first appearance, each followed by
 * the next level over its PUs.  PUs without a group at a level go to the
 * next level directly.
 */
static int render(const struct tree *t, const int *list, size_t n, size_t li, int depth)
{
	const struct vtb_topo *m = t->m;
	int *sub, *seen_g;
	size_t i, j, k;
	int level;

	if (li == t->n_levels || !n)
		return 0;
	level = t->levels[li];
	sub = calloc(n, sizeof(int));
	seen_g = calloc(n, sizeof(int));
	if (!sub || !seen_g) {
		free(sub);
		free(seen_g);
		return vtb_error("out of memory");
	}
	k = 0;
	for (i = 0; i < n; i++) {
		int g = field(&m->pus[list[i]], level);
		size_t ns = 0;
		bool done = false;

		for (j = 0; j < k && !done; j++)
			done = seen_g[j] == g;
		if (done)
			continue;
		seen_g[k++] = g;
		for (j = i; j < n; j++)
			if (field(&m->pus[list[j]], level) == g)
				sub[ns++] = list[j];
		if (g < 0 && level == VTB_TOPO_CORE) {
			for (j = 0; j < ns; j++)
				printf("%*spu %d\n", 2 * depth, "", m->pus[sub[j]].os);
			continue;
		}
		if (g < 0) {
			if (render(t, sub, ns, li + 1, depth))
				goto err;
			continue;
		}
		printf("%*s", 2 * depth, "");
		print_header(t, level, g);
		if (level != VTB_TOPO_CORE && render(t, sub, ns, li + 1, depth + 1))
			goto err;
	}
	free(sub);
	free(seen_g);
	return 0;
err:
	free(sub);
	free(seen_g);
	return -1;
}

static int topo_text(const struct vtb_hosttopo *h)
{
	const struct vtb_topo *m = &h->model;
	struct tree t = { .h = h, .m = m };
	struct vtb_cpuset offline = { NULL, 0 }, denied = { NULL, 0 }, nodeless = { NULL, 0 };
	int *list;
	size_t i;
	int ret;

	/* names from an XML file or a libvirt host: through the sanitiser */
	printf("source   ");
	vtb_term_fputs(h->source, stdout);
	printf("\ncpu      ");
	if (h->cpu_vendor && *h->cpu_vendor) {
		vtb_term_fputs(h->cpu_vendor, stdout);
		printf(" family %d model %d", h->cpu_family, h->cpu_model);
	} else {
		printf("unknown");
	}
	if (h->cpu_model_name && *h->cpu_model_name) {
		fputs(": ", stdout);
		vtb_term_fputs(h->cpu_model_name, stdout);
	}
	if (h->cpu_codename && *h->cpu_codename) {
		fputs(" (", stdout);
		vtb_term_fputs(h->cpu_codename, stdout);
		fputc(')', stdout);
	}
	putchar('\n');
	printf("shape    %s\n", h->summary);
	for (i = 0; i < m->n_pus; i++) {
		if (!m->pus[i].online)
			vtb_cpuset_add(&offline, m->pus[i].os);
		else if (m->pus[i].nodeless)
			vtb_cpuset_add(&nodeless, m->pus[i].os);
		else if (!m->pus[i].allowed)
			vtb_cpuset_add(&denied, m->pus[i].os);
	}
	printf("cpus     %zu online, %zu allowed, %zu offline\n", m->n_online, h->n_compact,
	       offline.n);
	if (offline.n) {
		print_set("offline  ", &offline);
		putchar('\n');
	}
	if (denied.n) {
		print_set("denied   ", &denied);
		printf("  (online, not ours to use)\n");
	}
	if (nodeless.n) {
		print_set("no node  ", &nodeless);
		printf("  (online, on no NUMA node we may take memory from: never given to guests or baselines)\n");
	}
	vtb_cpuset_release(&offline);
	vtb_cpuset_release(&denied);
	vtb_cpuset_release(&nodeless);
	if (!m->llc_level)
		printf("caches   none in the description: plans take the dies, else the packages, for LLC groups\n");
	printf("digest   %s\n\n", h->digest);

	t.die_inline = true;
	for (i = 0; i < m->n_groups[VTB_TOPO_PKG]; i++) {
		size_t dies = 0, j;

		for (j = 0; j < m->n_groups[VTB_TOPO_DIE]; j++) {
			const struct vtb_topo_pu *p =
				vtb_topo_pu_by_os(m, m->groups[VTB_TOPO_DIE][j].pus.cpus[0]);

			dies += p && p->pkg == (int)i;
		}
		t.die_inline = t.die_inline && dies <= 1;
	}
	t.levels[t.n_levels++] = VTB_TOPO_PKG;
	if (!t.die_inline)
		t.levels[t.n_levels++] = VTB_TOPO_DIE;
	t.levels[t.n_levels++] = LV_NODE;
	t.levels[t.n_levels++] = VTB_TOPO_LLC;
	t.levels[t.n_levels++] = VTB_TOPO_CORE;
	list = calloc(m->n_online + 1, sizeof(int));
	if (!list)
		return vtb_error("out of memory");
	for (i = 0; i < m->n_online; i++)
		list[i] = (int)i;
	ret = render(&t, list, m->n_online, 0, 0);
	free(list);
	for (i = 0; i < m->n_nodes && !ret; i++)
		if (!m->nodes[i].pus.n)
			print_node(m, i);
	return ret;
}

/* ---- json --------------------------------------------------------------- */

static json_t *int_array(const struct vtb_cpuset *s)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < s->n; i++)
		json_array_append_new(a, json_integer(s->cpus[i]));
	return a;
}

static json_t *index_or_null(int i)
{
	return i < 0 ? json_null() : json_integer(i);
}

static json_t *groups_json(const struct vtb_topo *m, enum vtb_topo_level level)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < m->n_groups[level]; i++) {
		const struct vtb_topo_group *g = &m->groups[level][i];
		json_t *o = json_pack("{s:I, s:o, s:o}", "index", (json_int_t)i, "os",
				      index_or_null(g->os), "pus", int_array(&g->pus));

		if (o && (level == VTB_TOPO_LLC || level == VTB_TOPO_L2))
			json_object_set_new(o, "size", json_integer((json_int_t)g->size));
		json_array_append_new(a, o);
	}
	return a;
}

static int topo_json(const struct vtb_hosttopo *h)
{
	const struct vtb_topo *m = &h->model;
	json_t *root, *nodes = json_array(), *pus = json_array(), *compact = json_array();
	size_t i, j;
	char *text;

	for (i = 0; nodes && i < m->n_nodes; i++) {
		json_t *d = m->distances ? json_array() : json_null();

		for (j = 0; m->distances && d && j < m->n_nodes; j++)
			json_array_append_new(d, json_integer(vtb_topo_distance(m, i, j)));
		const struct vtb_topo_node *n = &m->nodes[i];

		json_array_append_new(
			nodes,
			json_pack("{s:I, s:i, s:b, s:o, s:o, s:o, s:o, s:o, s:o}", "index",
				  (json_int_t)i, "os", n->os, "allowed", !n->denied, "memory",
				  n->memory ? json_integer((json_int_t)n->memory) : json_null(),
				  "normal",
				  n->normal ? json_integer((json_int_t)n->normal) : json_null(),
				  "hugepages_2m",
				  n->hugepages >= 0 ? json_integer(n->hugepages) : json_null(),
				  "hugepages_2m_free",
				  n->hugepages_free >= 0 ? json_integer(n->hugepages_free)
							 : json_null(),
				  "pus", int_array(&n->pus), "distances", d));
	}
	for (i = 0; pus && i < m->n_pus; i++) {
		const struct vtb_topo_pu *p = &m->pus[i];

		json_array_append_new(pus,
				      json_pack("{s:i, s:b, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o}",
						"os", p->os, "online", p->online, "allowed",
						p->allowed, "nodeless", p->nodeless, "core", index_or_null(p->core), "l2",
						index_or_null(p->l2), "llc", index_or_null(p->llc),
						"die", index_or_null(p->die), "package",
						index_or_null(p->pkg), "node",
						index_or_null(p->node)));
	}
	for (i = 0; compact && i < h->n_compact; i++)
		json_array_append_new(compact, json_integer(h->compact[i]));
	root = json_pack("{s:i, s:s, s:s?, s:s?, s:s, s:s, s:{s:s?, s:i, s:i, s:s?, s:s?}, s:i, "
			 "s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "schema", 1, "source", h->source, "hostname",
			 h->local ? h->hostname : NULL, "kernel", h->kernel, "summary", h->summary,
			 "digest", h->digest, "cpu", "vendor", h->cpu_vendor, "family",
			 h->cpu_family, "model", h->cpu_model, "model_name", h->cpu_model_name,
			 "codename", h->cpu_codename, "llc_level", m->llc_level, "compact", compact,
			 "packages", groups_json(m, VTB_TOPO_PKG), "dies",
			 groups_json(m, VTB_TOPO_DIE), "llcs", groups_json(m, VTB_TOPO_LLC), "l2s",
			 groups_json(m, VTB_TOPO_L2), "cores", groups_json(m, VTB_TOPO_CORE),
			 "nodes", nodes, "pus", pus);
	if (!root)
		return vtb_error("out of memory");
	text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	if (!text)
		return vtb_error("out of memory");
	puts(text);
	free(text);
	return 0;
}

int cmd_topo(struct vtb_cmd_env *env)
{
	struct vtb_cli_parser cp;
	const char *format = "text", *export = NULL, *arg;
	int c, ret;

	vtb_cli_init(&cp, &topo_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0) {
		switch (c) {
		case OPT_FORMAT:
			format = arg;
			break;
		case OPT_HOST_TOPOLOGY:
			env->host_topology = arg;
			break;
		case OPT_EXPORT:
			export = arg;
			if (!*export) {
				vtb_cli_usage_error(&topo_cli, "--export needs a file name");
				return VTB_EXIT_USAGE;
			}
			break;
		}
	}
	if (c < 0)
		return vtb_cli_exit(c);
	if (cp.optind != env->argc) {
		vtb_cli_usage_error(&topo_cli, "unexpected argument '%s'", env->argv[cp.optind]);
		return VTB_EXIT_USAGE;
	}
	ret = vtb_cmd_setup(env);
	if (ret)
		return ret;
	if (export) {
		struct vtb_out_input inputs[2] = {
			{ .path = env->host_topology, .what = "the --host-topology file" }
		};
		char *note = NULL;
		int r;

		/* a synthetic string or caps: prefix names no file of ours */
		if (inputs[0].path && access(inputs[0].path, F_OK))
			inputs[0].path = NULL;
		r = vtb_hosttopo_export_xml(env->host, export, inputs, &note);
		if (note)
			vtb_cmd_err(env, "%s", note);
		free(note);
		if (r) {
			vtb_cmd_err(env, "%s", vtb_errmsg());
			/* a topology hwloc cannot hold, or a path refused, is
			 * input; anything else the disk */
			return r == -2 ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
		}
	}
	if (!strcmp(format, "json") ? topo_json(env->host) : topo_text(env->host)) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return VTB_EXIT_INFRA;
	}
	return 0;
}
