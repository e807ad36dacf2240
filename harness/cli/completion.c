/* SPDX-License-Identifier: MIT */
/*
 * Completion scripts for bash, zsh and fish, written from the option
 * tables (completion.h).  Each script is data the table gives (commands,
 * options, values) around a little fixed logic; nothing is looked up at
 * completion time but files, so a script never runs vtbench and stays
 * right for the binary that wrote it (make writes them at build time,
 * as it writes the manual pages).
 */
#include "completion.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/vtbutil.h"

const char *const vtb_completion_shells[] = { "bash", "zsh", "fish", NULL };

/* What an option's value, or an operand, completes to. */
enum comp_kind {
	COMP_NONE,  /* a free value: nothing */
	COMP_WORDS, /* words[] */
	COMP_FILES, /* files, only *.ext when ext is set (and directories) */
	COMP_DIRS,
};

struct comp_val {
	enum comp_kind kind;
	const char *const *words;
	char ext[16]; /* "db", "conf"; "" for any file */
};

static bool is_end(const struct vtb_cli_opt *o)
{
	return !o->name && !o->help;
}

/* "OTHER.db", "FILE.xml", "MATRIX.conf", "IN.db...": its extension; a
 * longer one than fits is no extension (any file). */
static void ext_of(const char *word, size_t len, char *ext, size_t size)
{
	const char *dot = memchr(word, '.', len);
	size_t n;

	ext[0] = '\0';
	if (!dot || dot == word)
		return;
	n = strspn(dot + 1, "abcdefghijklmnopqrstuvwxyz0123456789");
	if (n && n < size && dot + 1 + n <= word + len) {
		memcpy(ext, dot + 1, n);
		ext[n] = '\0';
	}
}

/* An option's value: its fixed values; files for FILE, PATH or NAME.ext
 * (the database options take *.db); directories for DIR; else nothing. */
static void value_of(const struct vtb_cli_opt *o, struct comp_val *v)
{
	memset(v, 0, sizeof(*v));
	if (o->values || o->values_of) {
		v->kind = COMP_WORDS;
		v->words = o->values ? o->values : o->values_of();
		return;
	}
	if (!o->arg)
		return;
	if (!strcmp(o->arg, "DIR")) {
		v->kind = COMP_DIRS;
		return;
	}
	ext_of(o->arg, strlen(o->arg), v->ext, sizeof(v->ext));
	if (!strcmp(o->name, "db"))
		strcpy(v->ext, "db");
	if (v->ext[0] || strstr(o->arg, "FILE") || strstr(o->arg, "PATH"))
		v->kind = COMP_FILES;
}

/* The operands: the table's fixed words, else files of the extension the
 * usage line's first word names ("MATRIX.conf", "OUT.db IN.db..."). */
static void operand_of(const struct vtb_cli *cli, struct comp_val *v)
{
	const char *u = cli->usage ? cli->usage : "";

	memset(v, 0, sizeof(*v));
	if (cli->operands) {
		v->kind = COMP_WORDS;
		v->words = cli->operands;
		return;
	}
	if (*u == '[' || *u == '-')
		return;
	ext_of(u, strcspn(u, " \n"), v->ext, sizeof(v->ext));
	if (v->ext[0])
		v->kind = COMP_FILES;
}

/* Words the scripts carry unquoted: option names, values, commands. */
static bool plain_word(const char *w)
{
	return *w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			       "-_.,+/@%") == strlen(w);
}

static void put_words(FILE *f, const char *const *words)
{
	for (size_t i = 0; words && words[i]; i++)
		if (plain_word(words[i]))
			fprintf(f, "%s%s", i ? " " : "", words[i]);
}

/* @s inside '...' for bash and zsh ('\'' for a quote); @brackets: also
 * _arguments' escapes in a [description] or message (as clap_complete
 * writes them).  Line breaks become spaces. */
static void put_sq(FILE *f, const char *s, bool brackets)
{
	for (; s && *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if (*s == '\n' || *s == '\t')
			fputc(' ', f);
		else if (brackets && strchr("[]\\:$`", *s))
			fprintf(f, "\\%c", *s);
		else
			fputc(*s, f);
	}
}

/* @s inside fish's '...': \\ and \' */
static void put_fish(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\'' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' || *s == '\t' ? ' ' : *s, f);
	}
}

/* the next option row of a table from @o (headings skipped), NULL at its end */
static const struct vtb_cli_opt *opt_from(const struct vtb_cli_opt *o)
{
	for (; o && !is_end(o); o++)
		if (o->name)
			return o;
	return NULL;
}

static const struct vtb_cli_opt help_opt = { .name = "help", .shortopt = 'h', .help = "this help" };

/* ---- bash ---------------------------------------------------------- */

static const char bash_head1[] =
	"_vtbench_words()\n"
	"{\n"
	"\tCOMPREPLY=($(compgen -P \"$_vtb_pre\" -W \"$1\" -- \"$_vtb_cur\"))\n"
	"}\n"
	"\n"
	"# files (only *.$1 when given, and directories), or directories (-d)\n"
	"_vtbench_files()\n"
	"{\n"
	"\tlocal IFS=$'\\n'\n"
	"\n"
	"\tcompopt -o filenames 2>/dev/null\n"
	"\tif [[ $1 == -d ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -d -- \"$_vtb_cur\"))\n"
	"\telif [[ -n $1 ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -d -- \"$_vtb_cur\") $(compgen -f -X \"!*.$1\" -- \"$_vtb_cur\"))\n"
	"\telse\n"
	"\t\tCOMPREPLY=($(compgen -f -- \"$_vtb_cur\"))\n"
	"\tfi\n"
	"}\n"
	"\n"
	"# how many operands come before the word completed ($1: the options\n"
	"# that take a value)\n"
	"_vtbench_operands()\n"
	"{\n"
	"\tlocal i w skip= n=0\n"
	"\n"
	"\tfor ((i = 2; i < COMP_CWORD; i++)); do\n"
	"\t\tw=${COMP_WORDS[i]}\n"
	"\t\tif [[ $w == = ]]; then\n"
	"\t\t\tskip=1\n"
	"\t\telif [[ -n $skip ]]; then\n"
	"\t\t\tskip=\n"
	"\t\telif [[ $w == -*=* ]]; then\n"
	"\t\t\t:\n"
	"\t\telif [[ $w == -* ]]; then\n"
	"\t\t\t[[ \" $1 \" == *\" $w \"* ]] && skip=1\n"
	"\t\telse\n"
	"\t\t\tn=$((n + 1))\n"
	"\t\tfi\n"
	"\tdone\n"
	"\techo $n\n"
	"}\n"
	"\n"
	"_vtbench()\n"
	"{\n"
	"\tlocal _vtb_cur=${COMP_WORDS[COMP_CWORD]} _vtb_pre= prev= cmd=\n"
	"\n"
	"\tCOMPREPLY=()\n"
	"\t((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
	"\t# --opt=value: split at '=' (COMP_WORDBREAKS) or not\n"
	"\tif [[ $_vtb_cur == = ]]; then\n"
	"\t\t_vtb_cur=\n"
	"\telif [[ $prev == = ]] && ((COMP_CWORD > 1)); then\n"
	"\t\tprev=${COMP_WORDS[COMP_CWORD - 2]}\n"
	"\telif [[ $_vtb_cur == --*=* ]]; then\n"
	"\t\tprev=${_vtb_cur%%=*}\n"
	"\t\t_vtb_pre=$prev=\n"
	"\t\t_vtb_cur=${_vtb_cur#*=}\n"
	"\tfi\n"
	"\tif ((COMP_CWORD == 1)); then\n"
	"\t\tif [[ $_vtb_cur == -* ]]; then\n"
	"\t\t\t_vtbench_words '-h --help -V --version --completion'\n"
	"\t\telse\n"
	"\t\t\t_vtbench_words \"$_vtbench_commands help\"\n"
	"\t\tfi\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tcmd=${COMP_WORDS[1]}\n"
	"\tcase $cmd in\n"
	"\t--completion)\n"
	"\t\t((COMP_CWORD == 2)) && _vtbench_words '";
static const char bash_head2[] = "'\n"
				 "\t\treturn\n"
				 "\t\t;;\n"
				 "\thelp)\n"
				 "\t\t((COMP_CWORD == 2)) && _vtbench_words \"$_vtbench_commands\"\n"
				 "\t\treturn\n"
				 "\t\t;;\n";

/* "-o|--output" */
static void bash_names(FILE *f, const struct vtb_cli_opt *o)
{
	if (o->shortopt)
		fprintf(f, "-%c|", o->shortopt);
	fprintf(f, "--%s", o->name);
}

static void bash_value(FILE *f, const struct comp_val *v, const char *indent)
{
	switch (v->kind) {
	case COMP_WORDS:
		fprintf(f, "%s_vtbench_words '", indent);
		put_words(f, v->words);
		fputs("'\n", f);
		break;
	case COMP_FILES:
		fprintf(f, "%s_vtbench_files%s%s\n", indent, v->ext[0] ? " " : "", v->ext);
		break;
	case COMP_DIRS:
		fprintf(f, "%s_vtbench_files -d\n", indent);
		break;
	case COMP_NONE:
		break;
	}
}

static void bash_cmd(FILE *f, const struct vtb_comp_cmd *c)
{
	const struct vtb_cli_opt *o;
	struct comp_val v;
	bool any = false;

	fprintf(f, "\t%s)\n\t\tcase $prev in\n", c->name);
	/* the free values first, in one arm: nothing to offer */
	for (o = opt_from(c->cli->opts); o; o = opt_from(o + 1)) {
		value_of(o, &v);
		if (!o->arg || v.kind != COMP_NONE)
			continue;
		fputs(any ? "|" : "\t\t", f);
		bash_names(f, o);
		any = true;
	}
	if (any)
		fputs(")\n\t\t\treturn\n\t\t\t;;\n", f);
	any = false;
	for (o = opt_from(c->cli->opts); o; o = opt_from(o + 1)) {
		value_of(o, &v);
		if (!o->arg || v.kind == COMP_NONE)
			continue;
		fputs("\t\t", f);
		bash_names(f, o);
		fputs(")\n", f);
		bash_value(f, &v, "\t\t\t");
		fputs("\t\t\treturn\n\t\t\t;;\n", f);
	}
	fputs("\t\tesac\n\t\tif [[ $_vtb_cur == -* ]]; then\n\t\t\t_vtbench_words '", f);
	for (o = opt_from(c->cli->opts); o; o = opt_from(o + 1)) {
		if (o->shortopt)
			fprintf(f, "-%c ", o->shortopt);
		fprintf(f, "--%s ", o->name);
	}
	fputs("-h --help'\n\t\t\treturn\n\t\tfi\n", f);
	operand_of(c->cli, &v);
	if (v.kind == COMP_FILES || v.kind == COMP_DIRS) {
		bash_value(f, &v, "\t\t");
	} else if (v.kind == COMP_WORDS) {
		fputs("\t\tlocal n=$(_vtbench_operands '", f);
		for (o = opt_from(c->cli->opts); o; o = opt_from(o + 1)) {
			if (!o->arg)
				continue;
			fprintf(f, "%s", any ? " " : "");
			if (o->shortopt)
				fprintf(f, "-%c ", o->shortopt);
			fprintf(f, "--%s", o->name);
			any = true;
		}
		fputs("')\n\t\t((n == 0)) &&\n", f);
		bash_value(f, &v, "\t\t\t");
	}
	fputs("\t\t;;\n", f);
}

static void write_bash(FILE *f, const struct vtb_comp_cmd *cmds, size_t n)
{
	fputs("# bash completion for vtbench, written by 'vtbench --completion bash' from\n"
	      "# the commands' option tables (vtbench " VTB_VERSION ")\n\n",
	      f);
	fputs("_vtbench_commands='", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " " : "", cmds[i].name);
	fputs("'\n\n", f);
	fputs(bash_head1, f);
	put_words(f, vtb_completion_shells);
	fputs(bash_head2, f);
	for (size_t i = 0; i < n; i++)
		bash_cmd(f, &cmds[i]);
	fputs("\tesac\n}\n\ncomplete -F _vtbench vtbench\n", f);
}

/* ---- zsh ----------------------------------------------------------- */

static void zsh_action(FILE *f, const struct comp_val *v)
{
	switch (v->kind) {
	case COMP_WORDS:
		fputc('(', f);
		put_words(f, v->words);
		fputc(')', f);
		break;
	case COMP_FILES:
		if (v->ext[0])
			fprintf(f, "_files -g \"*.%s(-.)\"", v->ext);
		else
			fputs("_files", f);
		break;
	case COMP_DIRS:
		fputs("_files -/", f);
		break;
	case COMP_NONE:
		fputc(' ', f);
		break;
	}
}

static void zsh_opt(FILE *f, const struct vtb_cli_opt *o)
{
	struct comp_val v;

	fputs(" \\\n\t\t", f);
	if (o->shortopt)
		fprintf(f, "'(-%c --%s)'{-%c%s,--%s%s}'", o->shortopt, o->name, o->shortopt,
			o->arg ? "+" : "", o->name, o->arg ? "=" : "");
	else
		fprintf(f, "'--%s%s", o->name, o->arg ? "=" : "");
	fputc('[', f);
	put_sq(f, o->help, true);
	fputc(']', f);
	if (o->arg) {
		value_of(o, &v);
		fputc(':', f);
		put_sq(f, o->arg, true);
		fputc(':', f);
		zsh_action(f, &v);
	}
	fputc('\'', f);
}

static void zsh_cmd(FILE *f, const struct vtb_comp_cmd *c)
{
	const struct vtb_cli_opt *o;
	struct comp_val v;
	const char *u = c->cli->usage ? c->cli->usage : "";
	char *what = strndup(u, strcspn(u, " \n"));

	fprintf(f, "_vtbench_%s()\n{\n\t_arguments -s -S", c->name);
	for (o = opt_from(c->cli->opts); o; o = opt_from(o + 1))
		zsh_opt(f, o);
	zsh_opt(f, &help_opt);
	operand_of(c->cli, &v);
	if (v.kind != COMP_NONE) {
		fprintf(f, " \\\n\t\t'%s:", v.kind == COMP_WORDS ? "1" : "*");
		put_sq(f, what ? what : "operand", true);
		fputc(':', f);
		zsh_action(f, &v);
		fputc('\'', f);
	}
	fputs("\n}\n\n", f);
	free(what);
}

static void write_zsh(FILE *f, const struct vtb_comp_cmd *cmds, size_t n)
{
	fputs("#compdef vtbench\n"
	      "# zsh completion for vtbench, written by 'vtbench --completion zsh' from\n"
	      "# the commands' option tables (vtbench " VTB_VERSION ")\n\n",
	      f);
	for (size_t i = 0; i < n; i++)
		zsh_cmd(f, &cmds[i]);
	fputs("_vtbench()\n{\n\tlocal -a cmds\n\tlocal cmd\n\n\tcmds=(", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\n\t\t'%s:", cmds[i].name);
		put_sq(f, cmds[i].summary, false);
		fputc('\'', f);
	}
	fputs("\n\t\t'help:a command'\\''s options and exit codes (= COMMAND --help)'\n\t)\n", f);
	fputs("\tif ((CURRENT == 2)); then\n"
	      "\t\tif [[ $PREFIX == -* ]]; then\n"
	      "\t\t\tcompadd -- -h --help -V --version --completion\n"
	      "\t\telse\n"
	      "\t\t\t_describe -t commands 'vtbench command' cmds\n"
	      "\t\tfi\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tcmd=$words[2]\n"
	      "\twords=($words[2,-1])\n"
	      "\t((CURRENT--))\n"
	      "\tcase $cmd in\n"
	      "\t--completion)\n"
	      "\t\t((CURRENT == 2)) && compadd bash zsh fish\n"
	      "\t\t;;\n"
	      "\thelp)\n"
	      "\t\t((CURRENT == 2)) && _describe -t commands 'vtbench command' cmds\n"
	      "\t\t;;\n",
	      f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "\t%s)\n\t\t_vtbench_%s\n\t\t;;\n", cmds[i].name, cmds[i].name);
	fputs("\tesac\n}\n\n"
	      "if [[ $funcstack[1] == _vtbench ]]; then\n"
	      "\t_vtbench \"$@\"\n"
	      "else\n"
	      "\tcompdef _vtbench vtbench\n"
	      "fi\n",
	      f);
}

/* ---- fish ---------------------------------------------------------- */

static void fish_value(FILE *f, const struct comp_val *v)
{
	switch (v->kind) {
	case COMP_WORDS:
		fputs(" -x -a '", f);
		put_words(f, v->words);
		fputc('\'', f);
		break;
	case COMP_FILES:
		if (v->ext[0])
			fprintf(f, " -x -a '(__fish_complete_suffix .%s)'", v->ext);
		else
			fputs(" -r -F", f);
		break;
	case COMP_DIRS:
		fputs(" -x -a '(__fish_complete_directories)'", f);
		break;
	case COMP_NONE:
		fputs(" -x", f);
		break;
	}
}

static void fish_opt(FILE *f, const char *cmd, const struct vtb_cli_opt *o)
{
	struct comp_val v;

	fprintf(f, "complete -c vtbench -n '__vtbench_cmd %s'", cmd);
	if (o->shortopt)
		fprintf(f, " -s %c", o->shortopt);
	fprintf(f, " -l %s", o->name);
	if (o->arg) {
		value_of(o, &v);
		fish_value(f, &v);
	}
	fputs(" -d '", f);
	put_fish(f, o->help);
	fputs("'\n", f);
}

static void fish_cmd(FILE *f, const struct vtb_comp_cmd *c)
{
	const struct vtb_cli_opt *o;
	struct comp_val v;

	fputc('\n', f);
	for (o = opt_from(c->cli->opts); o; o = opt_from(o + 1))
		fish_opt(f, c->name, o);
	fish_opt(f, c->name, &help_opt);
	operand_of(c->cli, &v);
	if (v.kind == COMP_WORDS) {
		fprintf(f, "complete -c vtbench -n '__vtbench_cmd %s; and __vtbench_first_operand",
			c->name);
		for (o = opt_from(c->cli->opts); o; o = opt_from(o + 1)) {
			if (!o->arg)
				continue;
			if (o->shortopt)
				fprintf(f, " -%c", o->shortopt);
			fprintf(f, " --%s", o->name);
		}
		fputc('\'', f);
		fish_value(f, &v);
		fputc('\n', f);
	} else if (v.kind == COMP_FILES) {
		fprintf(f, "complete -c vtbench -n '__vtbench_cmd %s'", c->name);
		if (v.ext[0])
			fprintf(f, " -a '(__fish_complete_suffix .%s)'\n", v.ext);
		else
			fputs(" -F\n", f);
	}
}

static void write_fish(FILE *f, const struct vtb_comp_cmd *cmds, size_t n)
{
	fputs("# fish completion for vtbench, written by 'vtbench --completion fish' from\n"
	      "# the commands' option tables (vtbench " VTB_VERSION ")\n\n"
	      "# the command is the first word after vtbench\n"
	      "function __vtbench_cmd\n"
	      "\tset -l t (commandline -opc)\n"
	      "\ttest (count $t) -ge 2; and test \"$t[2]\" = \"$argv[1]\"\n"
	      "end\n\n"
	      "# no operand yet after the command ($argv: the options that take a\n"
	      "# value, which is no operand)\n"
	      "function __vtbench_first_operand\n"
	      "\tset -l skip 0\n"
	      "\tfor w in (commandline -opc)[3..-1]\n"
	      "\t\tif test $skip = 1\n"
	      "\t\t\tset skip 0\n"
	      "\t\telse if contains -- $w $argv\n"
	      "\t\t\tset skip 1\n"
	      "\t\telse if not string match -q -- '-*' $w\n"
	      "\t\t\treturn 1\n"
	      "\t\tend\n"
	      "\tend\n"
	      "end\n\n"
	      "complete -c vtbench -f\n"
	      "complete -c vtbench -n __fish_use_subcommand -s h -l help -d 'the commands'\n"
	      "complete -c vtbench -n __fish_use_subcommand -s V -l version -d 'the version'\n"
	      "complete -c vtbench -n __fish_use_subcommand -l completion -x -a 'bash zsh fish' "
	      "-d 'a completion script'\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "complete -c vtbench -n __fish_use_subcommand -a %s -d '", cmds[i].name);
		put_fish(f, cmds[i].summary);
		fputs("'\n", f);
	}
	fputs("complete -c vtbench -n __fish_use_subcommand -a help "
	      "-d 'a command\\'s options and exit codes'\n"
	      "complete -c vtbench -n '__vtbench_cmd help; and __vtbench_first_operand' -a '",
	      f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " " : "", cmds[i].name);
	fputs("'\n", f);
	for (size_t i = 0; i < n; i++)
		fish_cmd(f, &cmds[i]);
}

int vtb_completion_write(FILE *f, const char *shell, const struct vtb_comp_cmd *cmds, size_t n)
{
	if (!strcmp(shell, "bash"))
		write_bash(f, cmds, n);
	else if (!strcmp(shell, "zsh"))
		write_zsh(f, cmds, n);
	else if (!strcmp(shell, "fish"))
		write_fish(f, cmds, n);
	else
		return -1;
	return 0;
}
