/* SPDX-License-Identifier: MIT */
/*
 * vtbench: the command table and the shared setup it drives.
 */
#include <dirent.h>
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/man.h"
#include "../../reports/report.h"
#include "../../workloads/workload.h"
#include "../matrix/conf.h"
#include "cmd.h"
#include "completion.h"
#include "../plan/plan.h"
#include "../boot/provision.h"
#include "../upload/upload.h"

struct vtb_cmd {
	const char *name;
	int (*fn)(struct vtb_cmd_env *env);
	unsigned flags;
	const char *summary;
	const struct vtb_cli *cli; /* its options: --help and vtbench(1) */
};

/* alphabetical.  VTB_CMD_WRITES: the command changes the database, so a
 * closed pipe on stdout must not kill it mid-way; the others only show,
 * and end quietly when their reader goes away (SIGPIPE), as cat does. */
static const struct vtb_cmd commands[] = {
	{ "compare", cmd_compare, VTB_CMD_NEED_DB,
	  "summarise a campaign's results per configuration, cell and metric", &compare_cli },
	{ "doctor", cmd_doctor, VTB_CMD_NEED_HOST,
	  "what this host can and cannot do before a campaign: ok, warn or fail per check",
	  &doctor_cli },
	{ "explore", cmd_explore,
	  VTB_CMD_NEED_HOST | VTB_CMD_OPEN_DB_RW | VTB_CMD_CREATE_DB | VTB_CMD_WRITES,
	  "race a matrix's configurations on its [explore] objective; stored like run",
	  &explore_cli },
	{ "list", cmd_list, 0, "list runs, cells, kernels, workloads, sinks or formats",
	  &list_cli },
	{ "merge", cmd_merge, VTB_CMD_OPEN_DB_RW | VTB_CMD_CREATE_DB | VTB_CMD_WRITES,
	  "unite the databases of several hosts (campaigns by uuid; again adds nothing)",
	  &merge_cli },
	{ "plan", cmd_plan, VTB_CMD_NEED_HOST,
	  "dry run: every configuration and cell, with keys and parameters", &plan_cli },
	{ "recommend", cmd_recommend, VTB_CMD_NEED_DB,
	  "the winner of an explore campaign, its margins, sched domains and why the others lost",
	  &recommend_cli },
	{ "run", cmd_run,
	  VTB_CMD_NEED_HOST | VTB_CMD_OPEN_DB_RW | VTB_CMD_CREATE_DB | VTB_CMD_WRITES,
	  "run a matrix and store every boot in SQLite", &run_cli },
	{ "topo", cmd_topo, VTB_CMD_NEED_HOST,
	  "show the host topology (packages, nodes, LLCs, cores, PUs) or export it", &topo_cli },
	{ "upload", cmd_upload, VTB_CMD_OPEN_DB_RW | VTB_CMD_WRITES,
	  "send a campaign to a dashboard (InfluxDB ...), exactly once", &upload_cli },
};

/* the last message vtb_cmd_err() printed: the JSON summaries' "error" */
static char *last_err;

const char *vtb_cmd_last_err(void)
{
	return last_err;
}

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
	free(last_err);
	last_err = msg;
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

int vtb_cmd_setup_host(struct vtb_cmd_env *env)
{
	const char *spec = env->host_topology;

	if (!(env->flags & VTB_CMD_NEED_HOST) || env->host)
		return 0;
	if (spec && !strncmp(spec, "libvirt:", 8))
		return load_libvirt_host(env, spec + 8);
	if (vtb_hosttopo_load(spec, &env->host)) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return spec ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * No --db and no results.db here: say so, and name the databases the
 * working directory has (*.db, sorted, the first 10 and how many), as
 * `--db` candidates, rather than a bare "cannot open".
 */
static void no_default_db(const struct vtb_cmd_env *env)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	DIR *d = opendir(".");
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int fail = 0;

	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;

		if (len < 4 || strcmp(e->d_name + len - 3, ".db") || stat(e->d_name, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			char **g = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*g));

			if (!g)
				break;
			v = g;
		}
		if (!(v[n] = strdup(e->d_name)))
			break;
		n++;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n && i < 10; i++)
		fail |= vtb_strbuf_addf(&sb, "%s%s", i ? ", " : "", v[i]);
	if (n > 10)
		fail |= vtb_strbuf_addf(&sb, " (and %zu more)", n - 10);
	if (n && !fail)
		vtb_cmd_err(
			env,
			"no --db given and no results.db in the working directory; its databases: %s; name one: vtbench %s --db FILE",
			vtb_strbuf_str(&sb), env->name);
	else
		vtb_cmd_err(
			env,
			"no --db given and no results.db in the working directory (nor any other *.db): name the database with --db FILE, or store one first (vtbench %s MATRIX)",
			!strcmp(env->name, "recommend") ? "explore" : "run");
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	vtb_strbuf_release(&sb);
}

/* VTB_CMD_CREATE_DB: a database that does not exist yet is created; a
 * missing directory is the user's input, a file that cannot be created
 * is infrastructure.  An existing file that opens badly is the user's
 * input (it is no vtbench database, or a newer one, or not a regular
 * file), and so is a symbolic link to nothing (the store refuses to
 * create a database through it). */
static int open_store(struct vtb_cmd_env *env)
{
	struct stat sb;
	bool existed, defaulted = !env->db;

	if (!env->db)
		env->db = "results.db";
	existed = lstat(env->db, &sb) == 0;
	if (!existed && !(env->flags & VTB_CMD_CREATE_DB)) {
		if (defaulted && errno == ENOENT)
			no_default_db(env);
		else
			vtb_cmd_err(env, "cannot open database '%s': %s", env->db, strerror(errno));
		return VTB_EXIT_USAGE;
	}
	if (!existed) {
		char *dir = strdup(env->db);

		if (!dir) {
			vtb_cmd_err(env, "out of memory");
			return VTB_EXIT_INFRA;
		}
		if (access(dirname(dir), F_OK) < 0) {
			vtb_cmd_err(env,
				    "cannot create database '%s': directory '%s' does not exist",
				    env->db, dir);
			free(dir);
			return VTB_EXIT_USAGE;
		}
		free(dir);
	}
	if (env->flags & VTB_CMD_OPEN_DB_RW ? vtb_store_open(env->db, &env->store)
					    : vtb_store_open_ro(env->db, &env->store)) {
		vtb_cmd_err(env, "%s", vtb_errmsg());
		return existed ? VTB_EXIT_USAGE : VTB_EXIT_INFRA;
	}
	/* ours to remove on exit 2 only when this open made it: not a file
	 * another vtbench created between the lstat above and the open */
	if (vtb_store_created(env->store) && !(env->created_db = strdup(env->db))) {
		vtb_cmd_err(env, "out of memory");
		return VTB_EXIT_INFRA;
	}
	return 0;
}

/* Exit 2 writes nothing: a database this invocation created before it
 * found an input error (a kernel the guests cannot boot, a selection
 * compare refuses) is removed, with what SQLite kept beside it.  A
 * database that existed before is never removed. */
static void remove_created_db(const struct vtb_cmd_env *env)
{
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };

	for (size_t i = 0; i < VTB_ARRAY_SIZE(sfx); i++) {
		char *p = vtb_asprintf("%s%s", env->created_db, sfx[i]);

		if (p && unlink(p) < 0 && errno != ENOENT)
			fprintf(stderr, "vtbench %s: cannot remove '%s': %s\n", env->name, p,
				strerror(errno));
		free(p);
	}
}

int vtb_cmd_setup(struct vtb_cmd_env *env)
{
	int ret = vtb_cmd_setup_host(env);

	if (ret || env->store || !(env->flags & (VTB_CMD_NEED_DB | VTB_CMD_OPEN_DB_RW)))
		return ret;
	return open_store(env);
}

char *vtb_cmd_abs_path(const char *path)
{
	char *cwd;
	char *r;

	if (path[0] == '/' || !(cwd = getcwd(NULL, 0)))
		return strdup(path);
	r = vtb_asprintf("%s/%s", cwd, !strncmp(path, "./", 2) ? path + 2 : path);
	free(cwd);
	return r;
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

/* What vtbench is, for --help and vtbench(1) */
static const char about[] =
	"vtbench measures how much performance a VM loses against its bare-metal\n"
	"host, and which guest scheduler configuration wins it back.\n";
static const char exit_codes[] =
	"0 ok, 1 regression found (compare), boots failed (run) or a check\n"
	"failed (doctor), 2 usage or input error, 3 infrastructure failure;\n"
	"run: 130 interrupted (SIGINT), 143 terminated (SIGTERM).\n";

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: vtbench [-V | --version] [-h | --help] COMMAND [ARGS]\n"
		"       vtbench --completion bash|zsh|fish\n\n%s\ncommands:\n",
		about);
	for (i = 0; i < VTB_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n'vtbench help COMMAND' or 'vtbench COMMAND --help' shows a command's options\n"
		"and exit codes.\n"
		"exit codes: %s",
		exit_codes);
}

/* vtbench(1): the commands' tables, whole */
static void man_vtbench(FILE *f)
{
	size_t i;

	vtb_man_head(f, "vtbench", "1", "vtbench " VTB_VERSION, "vtbench manual");
	vtb_man_section(f, "NAME");
	fputs("vtbench \\- measure what a VM loses against its bare-metal host\n", f);
	vtb_man_section(f, "SYNOPSIS");
	fputs("\\fBvtbench\\fR [\\fB\\-V\\fR | \\fB\\-\\-version\\fR] "
	      "[\\fB\\-h\\fR | \\fB\\-\\-help\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n",
	      f);
	fputs(".br\n", f);
	for (i = 0; i < VTB_ARRAY_SIZE(commands); i++)
		vtb_cli_man_usage(f, commands[i].cli);
	vtb_man_section(f, "DESCRIPTION");
	vtb_man_block(f, about);
	vtb_man_para(f, "Each command declares its options in one table; this page, the "
			"command's --help and its error messages come from it.  "
			"'vtbench help COMMAND' shows one command's options.  "
			"The matrix file is described in vtbench-matrix(5), the workloads "
			"in vtbench-agent(1).");
	vtb_man_section(f, "COMMANDS");
	for (i = 0; i < VTB_ARRAY_SIZE(commands); i++) {
		char *h = vtb_asprintf("vtbench %s", commands[i].name);

		vtb_man_subsection(f, h ? h : commands[i].name);
		free(h);
		vtb_man_para(f, commands[i].summary);
		vtb_cli_man(f, commands[i].cli);
	}
	vtb_man_section(f, "EXIT STATUS");
	vtb_man_block(f, exit_codes);
	vtb_man_section(f, "ENVIRONMENT");
	vtb_man_tp(f);
	vtb_man_font(f, 'B', "VTBENCH_AGENT");
	vtb_man_body(f, "\nthe vtbench-agent to run for bare-metal baselines (default: the one "
			"beside vtbench)");
	vtb_man_tp(f);
	vtb_man_font(f, 'B', "VTBENCH_GUEST_DIR");
	vtb_man_body(f, "\nwhere kernels and guest images are staged for the hypervisor's user "
			"(default: /var/lib/vtbench/guest as root, else under XDG_CACHE_HOME "
			"or ~/.cache)");
	vtb_man_tp(f);
	vtb_man_font(f, 'B', "VTBENCH_GUEST_IMAGE");
	vtb_man_body(f, "\nthe guest initramfs (default: the one built or installed with vtbench)");
	vtb_man_tp(f);
	vtb_man_font(f, 'B', "VTBENCH_HOST_ID");
	vtb_man_body(f, "\nthe host identity run stores instead of the host name (host_id = in "
			"[global])");
	vtb_man_tp(f);
	vtb_man_font(f, 'B', "VTBENCH_UPLOAD_TOKEN, VTBENCH_UPLOAD_USER, VTBENCH_UPLOAD_PASSWORD");
	vtb_man_body(f, "\nupload credentials (see vtbench upload)");
	vtb_man_section(f, "SEE ALSO");
	fputs("\\fBvtbench\\-agent\\fR(1), \\fBvtbench\\-matrix\\fR(5), \\fBvirsh\\fR(1), "
	      "\\fBlstopo\\fR(1)\n",
	      f);
}

static int stdout_done(const char *cmd, int ret);

/* vtbench --man PAGE: a manual page, written at build time (Makefile) */
static int man_page(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[2], "vtbench"))
		man_vtbench(stdout);
	else if (argc == 3 && !strcmp(argv[2], "vtbench-matrix"))
		vtb_conf_man(stdout, "vtbench " VTB_VERSION);
	else {
		fprintf(stderr, "vtbench: --man takes vtbench or vtbench-matrix\n");
		return VTB_EXIT_USAGE;
	}
	return stdout_done(NULL, 0);
}

/* vtbench --completion SHELL: the shell's completion script, from the
 * commands' tables (make writes them at build time, as the pages) */
static int completion(int argc, char **argv)
{
	struct vtb_comp_cmd cmds[VTB_ARRAY_SIZE(commands)];
	const char *near;
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(commands); i++)
		cmds[i] = (struct vtb_comp_cmd){ commands[i].name, commands[i].summary,
						 commands[i].cli };
	if (argc == 3 && !vtb_completion_write(stdout, argv[2], cmds, VTB_ARRAY_SIZE(cmds)))
		return stdout_done(NULL, 0);
	near = argc == 3 ? vtb_suggest(vtb_completion_shells, argv[2]) : NULL;
	fprintf(stderr, "vtbench: --completion takes bash, zsh or fish%s%s%s\n",
		near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	return VTB_EXIT_USAGE;
}

static const struct vtb_cmd *find_cmd(const char *name)
{
	const char *names[VTB_ARRAY_SIZE(commands) + 1];
	const char *near;
	size_t i;

	for (i = 0; i < VTB_ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	for (i = 0; i < VTB_ARRAY_SIZE(commands); i++)
		names[i] = commands[i].name;
	names[i] = NULL;
	near = vtb_suggest(names, name);
	fprintf(stderr, "vtbench: unknown command '%s'%s%s%s; see 'vtbench --help'\n", name,
		near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	return NULL;
}

/* Flushes stdout: a write error is infrastructure (3), said once; a
 * reader that went away (EPIPE) is no error. */
static int stdout_done(const char *cmd, int ret)
{
	if (!fflush(stdout) && !ferror(stdout))
		return ret;
	/* the reader left: not an error of ours.  Commands that only show
	 * were ended by SIGPIPE before this; one that wrote the database
	 * (it ignores SIGPIPE) keeps the exit code of what it did. */
	if (errno == EPIPE)
		return ret;
	fprintf(stderr, "vtbench%s%s: cannot write to standard output: %s\n", cmd ? " " : "",
		cmd ? cmd : "", strerror(errno));
	return ret ? ret : VTB_EXIT_INFRA;
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
	char *cmdline;
	int ret;

	/* no GSL call may abort the process: errors come back as values
	 * (NaN, a status) that the callers check */
	gsl_set_error_handler_off();
	if (argc < 2) {
		usage(stderr);
		return VTB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return stdout_done(NULL, 0);
	}
	if (!strcmp(argv[1], "--man")) /* hidden: the build writes the pages */
		return man_page(argc, argv);
	if (!strcmp(argv[1], "--completion"))
		return completion(argc, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("vtbench %s\n", VTB_VERSION);
		return stdout_done(NULL, 0);
	}
	if (!strcmp(argv[1], "help")) {
		/* vtbench help CMD: what vtbench CMD --help says */
		static char help_opt[] = "--help";

		if (argc > 3) {
			fprintf(stderr,
				"vtbench help: expected one command; see 'vtbench --help'\n");
			return VTB_EXIT_USAGE;
		}
		cmd = find_cmd(argv[2]);
		if (!cmd)
			return VTB_EXIT_USAGE;
		argv[1] = argv[2];
		argv[2] = help_opt;
	} else if (argv[1][0] == '-') {
		const char *opts[] = { "help", "version", "completion", NULL };
		const char *near = !strncmp(argv[1], "--", 2) ? vtb_suggest(opts, argv[1] + 2)
							      : NULL;

		fprintf(stderr, "vtbench: unknown option '%s'%s%s%s; see 'vtbench --help'\n",
			argv[1], near ? " (did you mean '--" : "", near ? near : "",
			near ? "'?)" : "");
		return VTB_EXIT_USAGE;
	} else {
		cmd = find_cmd(argv[1]);
		if (!cmd)
			return VTB_EXIT_USAGE;
	}
	if (vtb_workloads_check() || vtb_sinks_check() || vtb_reports_check()) {
		fprintf(stderr, "vtbench: internal error: %s\n", vtb_errmsg());
		return VTB_EXIT_INFRA;
	}
	/* a closed pipe (vtbench run ... | head) must not kill a run mid-way:
	 * writes fail instead, quietly (stdout_done) */
	if (cmd->flags & VTB_CMD_WRITES)
		signal(SIGPIPE, SIG_IGN);
	cmdline = join_cmdline(argc, argv);
	env.name = cmd->name;
	env.flags = cmd->flags;
	env.argc = argc - 1;
	env.argv = argv + 1;
	env.cmdline = cmdline;
	ret = cmd->fn(&env);
	/* for tests: each configuration is planned once per campaign */
	if (getenv("VTBENCH_PLAN_CALLS"))
		fprintf(stderr, "vtbench: planner calls: %lu\n", vtb_plan_calls());
	vtb_store_close(env.store);
	if ((ret == VTB_EXIT_USAGE || env.discard_created_db) && env.created_db)
		remove_created_db(&env);
	free(env.created_db);
	free(last_err);
	vtb_hosttopo_free(env.host);
	free(cmdline);
	return stdout_done(cmd->name, ret);
}
