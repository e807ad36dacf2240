/* SPDX-License-Identifier: MIT */
/*
 * vtbench doctor: what this host can and cannot do before a night's
 * run, one line per check (harness/doctor/doctor.h), as text or JSON.
 * Also the preflight of run and explore: the cheap checks, before they
 * write anything.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "../doctor/doctor.h"
#include "../plan/cfgplan.h"

static const char *const text_json[] = { "text", "json", NULL };

enum { OPT_FORMAT = 256, OPT_QUIET = 'q' };

static const struct vtb_cli_opt doctor_opts[] = {
	{ .name = "format",
	  .id = OPT_FORMAT,
	  .arg = "FMT",
	  .values = text_json,
	  .help = "output format: text (default) or json (schema vtbench-doctor/1)" },
	{ .name = "quiet",
	  .id = OPT_QUIET,
	  .shortopt = 'q',
	  .help = "text: only the warn and fail lines, no summary" },
	{ 0 },
};

const struct vtb_cli doctor_cli = {
	.cmd = "doctor",
	.usage = "[MATRIX.conf] [options]",
	.about = "Says what this host can and cannot do before a campaign, one line per\n"
		 "check: ok, info, warn or fail, what it found and, for warn and fail,\n"
		 "what to do.  /dev nodes libvirt needs, libvirt (the matrix's uri =),\n"
		 "virtlogd, QEMU, KVM (the probe's cached answer), the guest kernel and\n"
		 "image, the sched knobs of the profiles, memory against the largest\n"
		 "planned guests, hugepages, cgroup controllers, clock source, CPU\n"
		 "frequency governor, turbo, SMT and the load average.  With\n"
		 "MATRIX.conf the checks are those of its campaign.  Boots nothing.\n",
	.opts = doctor_opts,
	.exits = "0 no check failed (warnings allowed), 1 a check failed, 2 usage or input error "
		 "(a matrix that does not read), 3 infrastructure failure.",
};

/* The matrix's database, read-only, when it exists (stored kernel probes) */
static struct vtb_store *open_db(const struct vtb_matrix *m)
{
	const char *db = m->db ? m->db : "results.db";
	struct vtb_store *st = NULL;
	struct stat sb;

	if (stat(db, &sb) < 0 || !S_ISREG(sb.st_mode) || vtb_store_open_ro(db, &st) < 0)
		return NULL;
	return st;
}

static void print_text(const struct vtb_checks *c, bool quiet)
{
	size_t count[4] = { 0 };

	for (size_t i = 0; i < c->n; i++) {
		const struct vtb_check *k = &c->v[i];
		char *line;

		count[k->status]++;
		if (quiet && k->status < VTB_CHECK_WARN)
			continue;
		line = vtb_asprintf("%-4s  %-12s  %s%s%s", vtb_check_status_name(k->status), k->id,
				    k->found, k->advice ? "; to fix: " : "",
				    k->advice ? k->advice : "");
		vtb_term_fputs(line ? line : "out of memory", stdout);
		putchar('\n');
		free(line);
	}
	if (!quiet)
		printf("%zu checks: %zu ok, %zu info, %zu warn, %zu fail\n", c->n,
		       count[VTB_CHECK_OK], count[VTB_CHECK_INFO], count[VTB_CHECK_WARN],
		       count[VTB_CHECK_FAIL]);
}

static int print_json(const struct vtb_checks *c, const char *matrix)
{
	json_t *root = json_object(), *checks = json_array();
	size_t count[4] = { 0 };
	char *text = NULL;
	int ret = -1;

	if (!root || !checks)
		goto out;
	for (size_t i = 0; i < c->n; i++) {
		const struct vtb_check *k = &c->v[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:o}", "id", k->id, "status",
				      vtb_check_status_name(k->status), "found", k->found, "advice",
				      k->advice ? json_string(k->advice) : json_null());

		count[k->status]++;
		if (!o || json_array_append_new(checks, o))
			goto out;
	}
	if (json_object_set_new(root, "schema", json_string("vtbench-doctor/1")) ||
	    json_object_set_new(root, "vtbench", json_string(VTB_VERSION)) ||
	    json_object_set_new(root, "matrix", matrix ? json_string(matrix) : json_null()) ||
	    json_object_set_new(root, "ok", json_boolean(!count[VTB_CHECK_FAIL])) ||
	    json_object_set_new(root, "summary",
				json_pack("{s:I, s:I, s:I, s:I}", "ok",
					  (json_int_t)count[VTB_CHECK_OK], "info",
					  (json_int_t)count[VTB_CHECK_INFO], "warn",
					  (json_int_t)count[VTB_CHECK_WARN], "fail",
					  (json_int_t)count[VTB_CHECK_FAIL])) ||
	    json_object_set(root, "checks", checks))
		goto out;
	text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (!text)
		goto out;
	printf("%s\n", text);
	ret = 0;
out:
	free(text);
	json_decref(checks);
	json_decref(root);
	return ret;
}

int cmd_doctor(struct vtb_cmd_env *env)
{
	struct vtb_cli_parser cp;
	struct vtb_checks checks = { 0 };
	struct vtb_doctor_opts o = { 0 };
	struct vtb_matrix *m = NULL;
	const char *arg, *matrix = NULL;
	bool json = false, quiet = false;
	int c, ret;

	vtb_cli_init(&cp, &doctor_cli, env->argc, env->argv);
	while ((c = vtb_cli_next(&cp, &arg)) > 0) {
		if (c == OPT_FORMAT)
			json = !strcmp(arg, "json");
		else if (c == OPT_QUIET)
			quiet = true;
	}
	if (c < 0)
		return vtb_cli_exit(c);
	if (cp.optind < env->argc - 1) {
		vtb_cli_usage_error(&doctor_cli, "expected at most one matrix file");
		return VTB_EXIT_USAGE;
	}
	if (cp.optind == env->argc - 1) {
		matrix = env->argv[cp.optind];
		ret = vtb_cmd_setup_host(env);
		if (ret)
			return ret;
		if (vtb_matrix_load(matrix, &env->host->ctx, &m)) {
			vtb_cmd_err(env, "%s", vtb_errmsg());
			return VTB_EXIT_USAGE;
		}
		o.st = open_db(m);
	}
	o.m = m;
	if (vtb_doctor(&o, &checks) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	if (json && print_json(&checks, matrix) < 0) {
		vtb_cmd_err(env, "out of memory");
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	if (!json)
		print_text(&checks, quiet);
	ret = vtb_checks_failed(&checks) ? VTB_EXIT_FAIL : VTB_EXIT_OK;
out:
	vtb_checks_release(&checks);
	vtb_store_close(o.st);
	vtb_matrix_free(m);
	return ret;
}

int vtb_cmd_preflight(const struct vtb_cmd_env *env, const struct vtb_matrix *m, const char *matrix)
{
	struct vtb_doctor_opts o = { .m = m, .flags = VTB_DOCTOR_CHEAP };
	struct vtb_checks checks = { 0 };
	int ret = VTB_EXIT_OK;

	if (vtb_doctor(&o, &checks) < 0) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		ret = VTB_EXIT_INFRA;
		goto out;
	}
	for (size_t i = 0; i < checks.n; i++) {
		const struct vtb_check *k = &checks.v[i];

		if (k->status != VTB_CHECK_FAIL)
			continue;
		vtb_cmd_err(env, "check '%s' failed: %s; to fix: %s", k->id, k->found,
			    k->advice ? k->advice : "see vtbench doctor");
		ret = VTB_EXIT_USAGE;
	}
	if (ret) {
		char *safe = vtb_term_safe(matrix);

		fprintf(stderr, "nothing was run or written; every check: vtbench doctor %s\n",
			safe ? safe : matrix);
		free(safe);
	}
out:
	vtb_checks_release(&checks);
	return ret;
}
