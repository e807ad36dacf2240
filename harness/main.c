/* SPDX-License-Identifier: MIT */
/*
 * vtbench: the command table and the shared setup it drives.
 */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../workloads/workload.h"
#include "cmd.h"
#include "provision.h"
#include "upload.h"

struct vtb_cmd {
	const char *name;
	int (*fn)(struct vtb_cmd_env *env);
	unsigned flags;
	const char *summary;
};

/* alphabetical */
static const struct vtb_cmd commands[] = {
	{ "compare", cmd_compare, VTB_CMD_NEED_DB,
	  "summarise a campaign's results per configuration, cell and metric" },
	{ "list", cmd_list, 0, "list runs, cells, workloads or upload sinks" },
	{ "merge", cmd_merge, 0,
	  "unite the databases of several hosts (campaigns by uuid; again adds nothing)" },
	{ "plan", cmd_plan, VTB_CMD_NEED_HOST,
	  "dry run: every configuration and cell, with keys and parameters" },
	{ "run", cmd_run, 0, "run a matrix and store every boot in SQLite" },
	{ "topo", cmd_topo, VTB_CMD_NEED_HOST,
	  "show the host topology (packages, nodes, LLCs, cores, PUs) or export it" },
	{ "upload", cmd_upload, 0, "send a campaign to a dashboard (InfluxDB ...), exactly once" },
};

/* Messages quote what guests, servers and files said: they reach the
 * terminal through the one sanitiser (vtb_term_safe), on one line. */
void vtb_cmd_err(const struct vtb_cmd_env *env, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	fprintf(stderr, "vtbench %s: ", env->name);
	vtb_term_fputs(msg ? msg : "out of memory", stderr);
	fputc('\n', stderr);
	free(msg);
}

int vtb_cmd_text_or_json(const struct vtb_cmd_env *env, const char *format)
{
	if (!strcmp(format, "text") || !strcmp(format, "json"))
		return 0;
	vtb_cmd_err(env, "unknown format '%s': expected text or json", format);
	return -1;
}

/* "libvirt:URI": the capabilities of that libvirt host.  A connection
 * that fails is infrastructure (3); XML that does not parse is input (2). */
static int load_libvirt_host(struct vtb_cmd_env *env, const char *uri)
{
	struct vtb_hv *hv = NULL;
	char *xml = NULL;
	int ret = VTB_EXIT_INFRA;

	if (vtb_hv_open(*uri ? uri : NULL, &hv) || vtb_hv_capabilities(hv, &xml))
		goto out;
	ret = VTB_EXIT_USAGE;
	if (vtb_hosttopo_load_caps(xml, strlen(xml), env->host_topology, &env->host))
		goto out;
	ret = 0;
out:
	if (ret)
		vtb_cmd_err(env, "%s", vtb_errmsg());
	free(xml);
	vtb_hv_close(hv);
	return ret;
}

int vtb_cmd_setup(struct vtb_cmd_env *env)
{
	const char *spec = env->host_topology;

	if ((env->flags & VTB_CMD_NEED_HOST) && spec && !strncmp(spec, "libvirt:", 8)) {
		int r = load_libvirt_host(env, spec + 8);

		if (r)
			return r;
	} else if (env->flags & VTB_CMD_NEED_HOST) {
		if (vtb_hosttopo_load(spec, &env->host)) {
			vtb_cmd_err(env, "%s", vtb_errmsg());
			return spec ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
		}
	}
	if (env->flags & VTB_CMD_NEED_DB) {
		if (!env->db)
			env->db = "results.db";
		if (access(env->db, F_OK) < 0) {
			vtb_cmd_err(env, "cannot open database '%s': %s", env->db, strerror(errno));
			return VTB_EXIT_USAGE;
		}
		if (vtb_store_open_ro(env->db, &env->store)) {
			vtb_cmd_err(env, "%s", vtb_errmsg());
			return VTB_EXIT_USAGE;
		}
	}
	return 0;
}

char *vtb_agent_path(void)
{
	const char *env = getenv("VTBENCH_AGENT");
	char self[4096];
	ssize_t n;

	if (env && *env)
		return strdup(env);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || (size_t)n >= sizeof(self) - 1)
		return strdup("vtbench-agent");
	self[n] = '\0';
	return vtb_asprintf("%s/vtbench-agent", dirname(self));
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: vtbench [--version] [--help] COMMAND [ARGS]\n\n"
		   "vtbench measures how much performance a VM loses against its bare-metal\n"
		   "host, and which guest scheduler configuration wins it back.\n\n"
		   "commands:\n");
	for (i = 0; i < VTB_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'vtbench COMMAND --help' shows a command's options.\n"
		   "exit codes: 0 ok, 1 regression found (compare) or boots failed (run),\n"
		   "2 usage or input error, 3 infrastructure failure, 130 interrupted.\n");
}

static char *join_cmdline(int argc, char **argv)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	int i;

	for (i = 0; i < argc; i++)
		if (vtb_strbuf_addf(&sb, "%s%s", i ? " " : "", argv[i]))
			break;
	return vtb_strbuf_detach(&sb);
}

int main(int argc, char **argv)
{
	struct vtb_cmd_env env = { 0 };
	const struct vtb_cmd *cmd = NULL;
	char *cmdline, *progname;
	size_t i;
	int ret;

	/* no GSL call may abort the process: errors come back as values
	 * (NaN, a status) that the callers check */
	gsl_set_error_handler_off();
	if (argc < 2) {
		usage(stderr);
		return VTB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return fflush(stdout) || ferror(stdout) ? VTB_EXIT_INFRA : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("vtbench %s\n", VTB_VERSION);
		return fflush(stdout) || ferror(stdout) ? VTB_EXIT_INFRA : 0;
	}
	for (i = 0; i < VTB_ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		const char *names[VTB_ARRAY_SIZE(commands) + 1];
		const char *near;

		for (i = 0; i < VTB_ARRAY_SIZE(commands); i++)
			names[i] = commands[i].name;
		names[i] = NULL;
		near = vtb_suggest(names, argv[1]);
		fprintf(stderr, "vtbench: unknown command '%s'%s%s%s\n", argv[1],
			near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		usage(stderr);
		return VTB_EXIT_USAGE;
	}
	if (vtb_workloads_check() || vtb_sinks_check()) {
		fprintf(stderr, "vtbench: internal error: %s\n", vtb_errmsg());
		return VTB_EXIT_INFRA;
	}
	/* a closed pipe (vtbench run ... | head) must not kill a run mid-way:
	 * writes fail instead and the exit code says so */
	signal(SIGPIPE, SIG_IGN);
	cmdline = join_cmdline(argc, argv);
	progname = vtb_asprintf("vtbench %s", cmd->name);
	if (progname)
		argv[1] = progname; /* getopt's messages name "vtbench CMD" */
	env.name = cmd->name;
	env.flags = cmd->flags;
	env.argc = argc - 1;
	env.argv = argv + 1;
	env.cmdline = cmdline;
	ret = cmd->fn(&env);
	vtb_store_close(env.store);
	vtb_hosttopo_free(env.host);
	free(cmdline);
	free(progname);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "vtbench %s: cannot write to standard output\n", cmd->name);
		if (!ret)
			ret = VTB_EXIT_INFRA;
	}
	return ret;
}
