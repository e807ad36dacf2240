/* SPDX-License-Identifier: MIT */
/*
 * vtbench compare, first cut: per configuration, cell and metric of the
 * latest campaign: n (boots), mean, median, stddev, CoV, min, max.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compare.h"

static const char compare_usage[] =
	"usage: vtbench compare [options]\n"
	"\n"
	"Summarises the latest campaign of a database: one row per configuration,\n"
	"cell and metric, with n (boots: one value per boot), mean, median,\n"
	"standard deviation, coefficient of variation, min and max.\n"
	"\n"
	"options:\n"
	"  --db FILE    results database (default: results.db)\n"
	"  -h, --help   this help\n";

static void fmt_num(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

enum {
	COL_CONFIG,
	COL_CELL,
	COL_METRIC,
	COL_UNIT,
	COL_N,
	COL_MEAN,
	COL_MEDIAN,
	COL_STDDEV,
	COL_COV,
	COL_MIN,
	COL_MAX,
	NCOLS
};

static const char *const headers[NCOLS] = {
	"configuration", "cell",   "metric", "unit", "n",   "mean",
	"median",	 "stddev", "cov",    "min",  "max",
};

struct campaign_find {
	int64_t id;
	char *uuid, *matrix, *host;
};

static int find_run(const struct vtb_run_row *r, void *arg)
{
	struct campaign_find *f = arg;

	if (r->id == f->id) {
		f->uuid = vtb_strdup(r->uuid);
		f->matrix = vtb_strdup(r->matrix_path);
		f->host = vtb_strdup(r->hostname);
	}
	return 0;
}

static void print_table(const struct vtb_cmp_table *t)
{
	size_t width[NCOLS], i, c;
	char *(*cells)[NCOLS];

	cells = calloc(t->n ? t->n : 1, sizeof(*cells));
	if (!cells)
		return;
	for (c = 0; c < NCOLS; c++)
		width[c] = strlen(headers[c]);
	for (i = 0; i < t->n; i++) {
		const struct vtb_cmp_row *r = &t->rows[i];
		char num[7][64];

		fmt_num(num[0], sizeof(num[0]), r->st.mean);
		fmt_num(num[1], sizeof(num[1]), r->st.median);
		fmt_num(num[2], sizeof(num[2]), r->st.stddev);
		snprintf(num[3], sizeof(num[3]), "%.2f%%", r->st.cov * 100);
		fmt_num(num[4], sizeof(num[4]), r->st.min);
		fmt_num(num[5], sizeof(num[5]), r->st.max);
		cells[i][COL_CONFIG] = strdup(r->config_label);
		cells[i][COL_CELL] = strdup(r->cell_name);
		cells[i][COL_METRIC] = vtb_asprintf("%s %s", r->metric, r->better ? "(+)" : "(-)");
		cells[i][COL_UNIT] = strdup(r->unit);
		cells[i][COL_N] = vtb_asprintf("%zu", r->st.n);
		cells[i][COL_MEAN] = strdup(num[0]);
		cells[i][COL_MEDIAN] = strdup(num[1]);
		cells[i][COL_STDDEV] = strdup(num[2]);
		cells[i][COL_COV] = strdup(num[3]);
		cells[i][COL_MIN] = strdup(num[4]);
		cells[i][COL_MAX] = strdup(num[5]);
		for (c = 0; c < NCOLS; c++) {
			if (!cells[i][c])
				cells[i][c] = strdup("?");
			if (cells[i][c] && strlen(cells[i][c]) > width[c])
				width[c] = strlen(cells[i][c]);
		}
	}
	for (c = 0; c < NCOLS; c++)
		printf(c < COL_N ? "%-*s%s" : "%*s%s", (int)width[c], headers[c],
		       c + 1 < NCOLS ? "  " : "\n");
	for (i = 0; i < t->n; i++) {
		for (c = 0; c < NCOLS; c++) {
			printf(c < COL_N ? "%-*s%s" : "%*s%s", (int)width[c],
			       cells[i][c] ? cells[i][c] : "?", c + 1 < NCOLS ? "  " : "\n");
			free(cells[i][c]);
		}
	}
	free(cells);
}

/*
 * The baseline row a VM row is compared with: same cell name and metric,
 * on exactly the VM configuration's pCPUs when such a baseline ran
 * ([baseline] vm = yes), else on as many CPUs as the VM has vCPUs (VMs
 * side by side: their configuration's pCPUs are all VMs', each VM's
 * baseline has as many as one VM).
 */
static const struct vtb_cmp_row *host_row(const struct vtb_cmp_table *t,
					  const struct vtb_cmp_row *v)
{
	const struct vtb_cmp_row *count = NULL;

	for (size_t j = 0; j < t->n; j++) {
		const struct vtb_cmp_row *h = &t->rows[j];

		if (strcmp(h->kind, "baseline") || strcmp(h->cell_name, v->cell_name) ||
		    strcmp(h->metric, v->metric))
			continue;
		if (v->pcpus[0] && !strcmp(h->pcpus, v->pcpus) && h->cpus == v->cpus)
			return h;
		if (!count && h->cpus == v->cpus)
			count = h;
	}
	return count;
}

/*
 * Guest vs host: each VM row against its baseline row (host_row()).
 * Means only; tests and confidence intervals come with the statistics
 * of compare.
 */
static void print_guest_vs_host(const struct vtb_cmp_table *t, const char *accels)
{
	size_t i, wl = strlen("guest"), wb = strlen("host"), wc = strlen("cell"),
		  wm = strlen("metric"), shown = 0;

	for (i = 0; i < t->n; i++) {
		const struct vtb_cmp_row *v = &t->rows[i];
		const struct vtb_cmp_row *h;

		if (strcmp(v->kind, "vm") || !(h = host_row(t, v)))
			continue;
		wl = strlen(v->config_label) > wl ? strlen(v->config_label) : wl;
		wb = strlen(h->config_label) > wb ? strlen(h->config_label) : wb;
		wc = strlen(v->cell_name) > wc ? strlen(v->cell_name) : wc;
		wm = strlen(v->metric) + 4 > wm ? strlen(v->metric) + 4 : wm;
		shown++;
	}
	if (!shown)
		return;
	printf("\nguest vs host (means; guest/host as a percentage of the host)\n");
	if (accels && strstr(accels, "tcg"))
		printf("note: guests ran under TCG (software emulation): these ratios "
		       "measure QEMU's emulator, not virtualization overhead\n");
	printf("\n");
	printf("%-*s  %-*s  %-*s  %-*s  %12s  %12s  %8s\n", (int)wl, "guest", (int)wb, "host",
	       (int)wc, "cell", (int)wm, "metric", "guest", "host", "guest/host");
	for (i = 0; i < t->n; i++) {
		const struct vtb_cmp_row *v = &t->rows[i];
		const struct vtb_cmp_row *h;
		char gm[64], hm[64], ratio[32], *metric;

		if (strcmp(v->kind, "vm") || !(h = host_row(t, v)))
			continue;
		fmt_num(gm, sizeof(gm), v->st.mean);
		fmt_num(hm, sizeof(hm), h->st.mean);
		if (h->st.mean != 0)
			snprintf(ratio, sizeof(ratio), "%.1f%%", v->st.mean / h->st.mean * 100);
		else
			snprintf(ratio, sizeof(ratio), "-");
		metric = vtb_asprintf("%s %s", v->metric, v->better ? "(+)" : "(-)");
		printf("%-*s  %-*s  %-*s  %-*s  %12s  %12s  %8s\n", (int)wl, v->config_label,
		       (int)wb, h->config_label, (int)wc, v->cell_name, (int)wm,
		       metric ? metric : v->metric, gm, hm, ratio);
		free(metric);
	}
}

/* Per VM configuration, what backs its rows: the plan, what the guests
 * built and where their vCPUs ran. */
struct evidence {
	char *key, *label, *plan;
	size_t boots, unexpected, viewed, matched, unchecked;
	char *levels[8]; /* distinct level strings seen, with counts */
	size_t level_n[8], n_levels;
	char *kernel;
	double off_sum, off_max, smt_core_sum, llc_split_sum;
	size_t placed, smt_n, llc_n;
	char *diff; /* the first topology difference */
};

struct evidence_list {
	struct evidence *v;
	size_t n;
};

static double jnum(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static int add_evidence(const struct vtb_vm_boot_row *r, void *arg)
{
	struct evidence_list *l = arg;
	struct evidence *e = l->n ? &l->v[l->n - 1] : NULL;

	if (!e || strcmp(e->key, r->config_key)) {
		struct evidence *v = realloc(l->v, (l->n + 1) * sizeof(*v));

		if (!v)
			return vtb_error("out of memory");
		l->v = v;
		e = &v[l->n++];
		memset(e, 0, sizeof(*e));
		e->key = strdup(r->config_key);
		e->label = strdup(r->config_label);
		e->plan = r->plan_json ? strdup(r->plan_json) : NULL;
		if (!e->key || !e->label)
			return vtb_error("out of memory");
	}
	e->boots++;
	if (r->topology_check && !strcmp(r->topology_check, "match"))
		e->matched++;
	else if (!r->topology_check || !strcmp(r->topology_check, "unchecked"))
		e->unchecked++;
	if (r->topology_check && !strcmp(r->topology_check, "differs") && !e->diff &&
	    r->topology_diff)
		e->diff = strdup(r->topology_diff);
	if (!strcmp(r->status, "unexpected-topology")) {
		e->unexpected++;
		if (!e->diff && r->topology_diff)
			e->diff = strdup(r->topology_diff);
	}
	if (r->guest_kernel && !e->kernel)
		e->kernel = strdup(r->guest_kernel);
	if (r->levels) {
		size_t i;

		e->viewed++;
		for (i = 0; i < e->n_levels && strcmp(e->levels[i], r->levels); i++)
			;
		if (i == e->n_levels && i < VTB_ARRAY_SIZE(e->levels) &&
		    (e->levels[i] = strdup(r->levels)))
			e->n_levels++;
		if (i < e->n_levels)
			e->level_n[i]++;
	}
	if (r->placement_json) {
		json_t *p = json_loads(r->placement_json, 0, NULL);
		json_t *smt = json_object_get(p, "smt_pairs"),
		       *llc = json_object_get(p, "llc_groups");

		if (p && json_integer_value(json_object_get(p, "samples")) > 0) {
			double max = jnum(p, "off_planned_max");

			e->placed++;
			e->off_sum += jnum(p, "off_planned_mean");
			e->off_max = max > e->off_max ? max : e->off_max;
			if (json_is_object(smt)) {
				e->smt_core_sum += jnum(smt, "split_core");
				e->smt_n++;
			}
			if (json_is_object(llc)) {
				e->llc_split_sum += jnum(llc, "split_llc");
				e->llc_n++;
			}
		}
		json_decref(p);
	}
	return 0;
}

/* Text that came from a guest, printed without control characters. */
static void put_guest(const char *s)
{
	for (; *s; s++)
		putchar((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

static void print_plan_summary(const char *plan_json)
{
	json_t *p = plan_json ? json_loads(plan_json, 0, NULL) : NULL;
	json_t *t = json_object_get(p, "topology"), *c;
	size_t i;

	if (!p) {
		printf("  told     (no plan stored)\n");
		return;
	}
	printf("  told     %lld socket(s) x %lld die(s) x %lld core(s) x %lld thread(s), pinning %s\n",
	       json_integer_value(json_object_get(t, "sockets")),
	       json_integer_value(json_object_get(t, "dies")),
	       json_integer_value(json_object_get(t, "cores")),
	       json_integer_value(json_object_get(t, "threads")),
	       json_string_value(json_object_get(p, "pinning"))
		       ? json_string_value(json_object_get(p, "pinning"))
		       : "?");
	printf("  claims  ");
	json_array_foreach(json_object_get(p, "claims"), i, c)
	{
		if (i == 8) {
			printf(" ... (%zu in all)", json_array_size(json_object_get(p, "claims")));
			break;
		}
		printf("%s %s vcpus %s %s", i ? ";" : "",
		       json_string_value(json_object_get(c, "kind")),
		       json_string_value(json_object_get(c, "vcpus")),
		       json_string_value(json_object_get(c, "state")));
	}
	printf("%s\n", json_array_size(json_object_get(p, "claims")) ? "" : " none");
	json_decref(p);
}

static void print_evidence(struct evidence_list *l)
{
	if (!l->n)
		return;
	printf("\nguest evidence (per VM configuration: what the guest was told, what it built,\n"
	       "where its vCPUs ran on the host)\n");
	for (size_t i = 0; i < l->n; i++) {
		struct evidence *e = &l->v[i];

		printf("\n%s\n", e->label);
		print_plan_summary(e->plan);
		printf("  guest    ");
		if (!e->n_levels)
			printf("no sched-domain view recorded");
		for (size_t k = 0; k < e->n_levels; k++) {
			printf("%slevels ", k ? "; " : "");
			put_guest(e->levels[k][0] ? e->levels[k] : "none");
			printf(" (%zu of %zu boots)", e->level_n[k], e->boots);
		}
		printf("%s%s\n", e->kernel ? ", kernel " : "", e->kernel ? e->kernel : "");
		printf("  checked  %zu of %zu boots as planned, %zu unexpected-topology%s%s\n",
		       e->viewed - (e->unexpected < e->viewed ? e->unexpected : e->viewed),
		       e->boots, e->unexpected, e->diff ? ": " : "", e->diff ? e->diff : "");
		if (e->placed) {
			printf("  ran      off the planned pCPU %.1f%% mean, %.1f%% max",
			       e->off_sum / (double)e->placed * 100, e->off_max * 100);
			if (e->smt_n)
				printf("; SMT pairs on different cores %.1f%%",
				       e->smt_core_sum / (double)e->smt_n * 100);
			if (e->llc_n)
				printf("; LLC groups across LLCs %.1f%%",
				       e->llc_split_sum / (double)e->llc_n * 100);
			printf(" (%zu boots sampled)\n", e->placed);
		} else {
			printf("  ran      no host-side placement samples\n");
		}
	}
}

static void evidence_release(struct evidence_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct evidence *e = &l->v[i];

		free(e->key);
		free(e->label);
		free(e->plan);
		free(e->kernel);
		free(e->diff);
		for (size_t k = 0; k < e->n_levels; k++)
			free(e->levels[k]);
	}
	free(l->v);
}

int cmd_compare(struct vtb_cmd_env *env)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vtb_cmp_table t = { 0 };
	struct evidence_list ev = { 0 };
	struct campaign_find f = { 0 };
	char *accels = NULL;
	bool found = false;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(env->argc, env->argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			env->db = optarg;
			break;
		case 'h':
			fputs(compare_usage, stdout);
			return 0;
		default:
			fputs(compare_usage, stderr);
			return VTB_EXIT_USAGE;
		}
	}
	if (optind != env->argc) {
		vtb_cmd_err(env, "unexpected argument '%s'", env->argv[optind]);
		return VTB_EXIT_USAGE;
	}
	ret = vtb_cmd_setup(env);
	if (ret)
		return ret;
	if (vtb_store_latest_campaign(env->store, &f.id, &found)) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return VTB_EXIT_INFRA;
	}
	if (!found) {
		vtb_cmd_err(env, "no campaign in '%s'", env->db);
		return VTB_EXIT_USAGE;
	}
	if (vtb_store_foreach_run(env->store, find_run, &f) ||
	    vtb_compare_load(env->store, f.id, &t)) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	printf("campaign %s  matrix %s  host %s\n", f.uuid ? f.uuid : "?",
	       f.matrix ? f.matrix : "?", f.host ? f.host : "?");
	printf("n = boots; one value per boot and metric; (+) higher is better, (-) lower\n\n");
	if (!t.n)
		printf("no results with status ok in this campaign\n");
	else
		print_table(&t);
	if (vtb_store_accelerators(env->store, f.id, &accels)) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	print_guest_vs_host(&t, accels);
	if (vtb_store_foreach_vm_boot(env->store, f.id, add_evidence, &ev)) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	print_evidence(&ev);
	ret = 0;
out:
	evidence_release(&ev);
	vtb_cmp_table_release(&t);
	free(accels);
	free(f.uuid);
	free(f.matrix);
	free(f.host);
	return ret;
}
