/* SPDX-License-Identifier: MIT */
/*
 * Command-line option tables (cliopt.h): getopt_long driven from a
 * command's table, with messages of our own instead of getopt's (opterr
 * is off), so a mistyped option gets the nearest known one and a pointer
 * to --help rather than the whole help on stderr, as git does.
 */
#include "cliopt.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/man.h"
#include "../../common/opt.h"
#include "../../common/vtbutil.h"

#define ID_HELP 'h'

static const struct vtb_cli_opt help_row = {
	.name = "help", .id = ID_HELP, .shortopt = 'h', .help = "this help"
};

static bool is_end(const struct vtb_cli_opt *o)
{
	return !o->name && !o->help;
}

static void err_line(const struct vtb_cli *cli, const char *fmt, va_list ap)
{
	fprintf(stderr, "vtbench %s: ", cli->cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "; see 'vtbench %s --help'\n", cli->cmd);
}

void vtb_cli_usage_error(const struct vtb_cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_line(cli, fmt, ap);
	va_end(ap);
}

void vtb_cli_init(struct vtb_cli_parser *p, const struct vtb_cli *cli, int argc, char **argv)
{
	memset(p, 0, sizeof(*p));
	p->cli = cli;
	p->argc = argc;
	p->argv = argv;
	p->optind = 1;
}

/* getopt_long's tables from ours; -1 (printed) when the table is too big */
static int build(struct vtb_cli_parser *p)
{
	const struct vtb_cli_opt *o;
	size_t n = 0, s = 0;

	p->shortopts[s++] = ':'; /* a missing value returns ':' */
	for (o = p->cli->opts; o && !is_end(o); o++) {
		if (!o->name)
			continue;
		if (n == VTB_CLI_MAX_OPTS) {
			fprintf(stderr, "vtbench %s: internal error: more than %d options\n",
				p->cli->cmd, VTB_CLI_MAX_OPTS);
			return -1;
		}
		p->longopts[n++] = (struct option){ o->name,
						    o->arg ? required_argument : no_argument, NULL,
						    o->id };
		if (o->shortopt) {
			p->shortopts[s++] = o->shortopt;
			if (o->arg)
				p->shortopts[s++] = ':';
		}
	}
	p->longopts[n++] = (struct option){ "help", no_argument, NULL, ID_HELP };
	p->longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	p->shortopts[s++] = 'h';
	p->shortopts[s] = '\0';
	return 0;
}

static const struct vtb_cli_opt *by_id(const struct vtb_cli *cli, int id)
{
	const struct vtb_cli_opt *o;

	for (o = cli->opts; o && !is_end(o); o++)
		if (o->name && o->id == id)
			return o;
	return id == ID_HELP ? &help_row : NULL;
}

/* "--name" or "-x": how the user spelled the option at argv[i] */
static bool spelled_long(const struct vtb_cli_parser *p)
{
	int i = optind - 1;

	return i >= 1 && i < p->argc && !strncmp(p->argv[i], "--", 2);
}

/* An unknown "--word[=value]": an ambiguous abbreviation, or the nearest
 * known name. */
static void unknown_long(const struct vtb_cli_parser *p, const char *spelled)
{
	const char *names[VTB_CLI_MAX_OPTS + 2];
	size_t len = strcspn(spelled + 2, "="), n = 0, hits = 0;
	char *word = strndup(spelled + 2, len);
	const char *near;
	int i;

	for (i = 0; p->longopts[i].name; i++) {
		names[n++] = p->longopts[i].name;
		hits += len && !strncmp(p->longopts[i].name, spelled + 2, len);
	}
	names[n] = NULL;
	if (word && hits > 1) {
		struct vtb_strbuf sb = VTB_STRBUF_INIT;

		for (i = 0; p->longopts[i].name; i++)
			if (!strncmp(p->longopts[i].name, word, len))
				vtb_strbuf_addf(&sb, "%s--%s", sb.len ? ", " : "",
						p->longopts[i].name);
		vtb_cli_usage_error(p->cli, "option '--%s' is ambiguous: %s", word,
				    sb.len ? vtb_strbuf_str(&sb) : "?");
		vtb_strbuf_release(&sb);
		free(word);
		return;
	}
	near = word ? vtb_suggest(names, word) : NULL;
	vtb_cli_usage_error(p->cli, "unknown option '--%s'%s%s%s", word ? word : spelled,
			    near ? " (did you mean '--" : "", near ? near : "", near ? "'?)" : "");
	free(word);
}

/* The value of an option with a fixed list of them. */
static int check_value(const struct vtb_cli_parser *p, const struct vtb_cli_opt *o, const char *v)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	const char *const *x;
	const char *near;

	for (x = o->values; *x; x++)
		if (!strcmp(*x, v))
			return 0;
	for (x = o->values; *x; x++)
		vtb_strbuf_addf(&sb, "%s%s", x == o->values ? "" : x[1] ? ", " : " or ", *x);
	near = vtb_suggest(o->values, v);
	vtb_cli_usage_error(p->cli, "unknown value '%s' for --%s: expected %s%s%s%s", v, o->name,
			    sb.len ? vtb_strbuf_str(&sb) : "?", near ? " (did you mean '" : "",
			    near ? near : "", near ? "'?)" : "");
	vtb_strbuf_release(&sb);
	return -1;
}

int vtb_cli_next(struct vtb_cli_parser *p, const char **arg)
{
	const struct vtb_cli_opt *o;
	int c;

	*arg = NULL;
	if (!p->started) {
		if (build(p) < 0)
			return VTB_CLI_ERROR;
		p->started = true;
		optind = 1;
		opterr = 0;
	}
	c = getopt_long(p->argc, p->argv, p->shortopts, p->longopts, NULL);
	p->optind = optind;
	if (c == -1)
		return VTB_CLI_END;
	if (c == ID_HELP) {
		vtb_cli_help(stdout, p->cli);
		return VTB_CLI_HELP;
	}
	if (c == ':') {
		o = by_id(p->cli, optopt);
		if (o && spelled_long(p))
			vtb_cli_usage_error(p->cli, "option '--%s' needs a value (%s)", o->name,
					    o->arg);
		else
			vtb_cli_usage_error(p->cli, "option '-%c' needs a value (%s)", optopt,
					    o ? o->arg : "?");
		return VTB_CLI_ERROR;
	}
	if (c == '?') {
		const char *spelled = p->argv[optind - 1];

		o = optopt ? by_id(p->cli, optopt) : NULL;
		if (spelled_long(p) && o && !o->arg &&
		    !strncmp(spelled + 2, o->name, strcspn(spelled + 2, "=")) &&
		    strchr(spelled, '='))
			vtb_cli_usage_error(p->cli, "option '--%s' takes no value", o->name);
		else if (spelled_long(p) && !optopt)
			unknown_long(p, spelled);
		else
			vtb_cli_usage_error(p->cli, "unknown option '-%c'", optopt);
		return VTB_CLI_ERROR;
	}
	o = by_id(p->cli, c);
	*arg = o && o->arg ? optarg : NULL;
	if (o && o->values && check_value(p, o, optarg) < 0)
		return VTB_CLI_ERROR;
	return c;
}

int vtb_cli_exit(int r)
{
	return r == VTB_CLI_HELP ? 0 : 2;
}

/* "-o, --output FILE" or "    --db FILE" */
static char *name_column(const struct vtb_cli_opt *o)
{
	if (o->shortopt)
		return vtb_asprintf("-%c, --%s%s%s", o->shortopt, o->name, o->arg ? " " : "",
				    o->arg ? o->arg : "");
	return vtb_asprintf("    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

#define NAME_MAX_COL 26 /* a longer name puts its help on the next line */

static void help_row_print(FILE *f, const struct vtb_cli_opt *o, int w)
{
	char *name = name_column(o);
	int len = name ? (int)strlen(name) : 0;

	fprintf(f, "  %s", name ? name : o->name);
	if (len > w) {
		fprintf(f, "\n%*s", 2 + w + 2, "");
	} else {
		fprintf(f, "%*s", w - len + 2, "");
	}
	vtb_wrap(f, o->help ? o->help : "", 2 + w + 2, 2 + w + 2, VTB_CLI_WIDTH);
	fputc('\n', f);
	free(name);
}

void vtb_cli_help(FILE *f, const struct vtb_cli *cli)
{
	const struct vtb_cli_opt *o;
	const char *u = cli->usage;
	int w = 0;

	/* each usage line says "usage: vtbench CMD ..." or lines up under it */
	while (u && *u) {
		size_t n = strcspn(u, "\n");

		fprintf(f, "%s vtbench %s %.*s\n", u == cli->usage ? "usage:" : "   or:", cli->cmd,
			(int)n, u);
		u += n + (u[n] == '\n');
	}
	if (cli->about)
		fprintf(f, "\n%s", cli->about);
	for (o = cli->opts; o && !is_end(o); o++) {
		char *name;

		if (!o->name)
			continue;
		name = name_column(o);
		if (name && (int)strlen(name) > w && strlen(name) <= NAME_MAX_COL)
			w = (int)strlen(name);
		free(name);
	}
	if (w < 10)
		w = 10; /* "-h, --help" */
	for (o = cli->opts; o && !is_end(o); o++) {
		if (!o->name) {
			fprintf(f, "\n%s\n", o->help);
			continue;
		}
		if (o == cli->opts)
			fprintf(f, "\noptions:\n");
		help_row_print(f, o, w);
	}
	if (!cli->opts || is_end(cli->opts))
		fprintf(f, "\noptions:\n");
	help_row_print(f, &help_row, w);
	if (cli->more)
		fprintf(f, "\n%s", cli->more);
	if (cli->exits) {
		fputs("\nexit codes: ", f);
		vtb_wrap(f, cli->exits, 12, 2, VTB_CLI_WIDTH);
		fputc('\n', f);
	}
}

/* "-o, --output FILE" in roff: names bold, the value's name italic */
static void man_tag(FILE *f, const struct vtb_cli_opt *o)
{
	vtb_man_tp(f);
	if (o->shortopt)
		fprintf(f, "\\fB\\-%c\\fR, ", o->shortopt);
	fputs("\\fB\\-\\-", f);
	vtb_man_text(f, o->name);
	fputs("\\fR", f);
	if (o->arg) {
		fputc(' ', f);
		vtb_man_font(f, 'I', o->arg);
	}
	fputc('\n', f);
	vtb_man_body(f, o->help ? o->help : "");
}

void vtb_cli_man_usage(FILE *f, const struct vtb_cli *cli)
{
	const char *u = cli->usage;

	while (u && *u) {
		size_t n = strcspn(u, "\n");
		char *line = strndup(u, n);

		fputs("\\fBvtbench ", f);
		vtb_man_text(f, cli->cmd);
		fputs("\\fR ", f);
		vtb_man_text(f, line ? line : "");
		fputs("\n.br\n", f);
		free(line);
		u += n + (u[n] == '\n');
	}
}

void vtb_cli_man(FILE *f, const struct vtb_cli *cli)
{
	const struct vtb_cli_opt *o;

	fputs(".PP\n", f);
	vtb_cli_man_usage(f, cli);
	if (cli->about)
		vtb_man_block(f, cli->about);
	for (o = cli->opts; o && !is_end(o); o++) {
		if (!o->name) {
			fputs(".PP\n", f);
			vtb_man_font(f, 'I', o->help);
			fputc('\n', f);
			continue;
		}
		if (o == cli->opts)
			vtb_man_para(f, "Options:");
		man_tag(f, o);
	}
	if (!cli->opts || is_end(cli->opts))
		vtb_man_para(f, "Options:");
	man_tag(f, &help_row);
	if (cli->more)
		vtb_man_block(f, cli->more);
	if (cli->exits) {
		fputs(".PP\nExit codes: ", f);
		vtb_man_text(f, cli->exits);
		fputc('\n', f);
	}
}
