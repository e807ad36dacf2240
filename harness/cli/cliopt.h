/* SPDX-License-Identifier: MIT */
/*
 * Command-line option tables for vtbench's commands.  A command declares
 * its options once, as a table: the same rows build getopt_long's input,
 * check values that come from a fixed list, print --help (options, then
 * the exit codes) and suggest the nearest option for a typo.  The
 * command's own switch still turns each value into its type: typed
 * descriptors (common/opt.h) are the next step.
 */
#ifndef VTB_CLIOPT_H
#define VTB_CLIOPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

struct vtb_cli_opt {
	const char *name; /* long name without "--"; NULL with help: a heading */
	int id;		  /* what vtb_cli_next() returns (> 0, not '?' or ':') */
	char shortopt;	  /* "-x" too, 0 for none */
	const char *arg;  /* the value's name in --help ("FILE"); NULL: a flag */
	const char *help; /* one paragraph, wrapped by --help */
	/* NULL-terminated: the only values accepted (and suggested) */
	const char *const *values;
	/* the values a registry holds (report formats), for completion
	 * only: the command checks such a value itself */
	const char *const *(*values_of)(void);
};
/* A table ends with an all-zero row.  -h/--help is added by the parser. */

struct vtb_cli {
	const char *cmd;   /* "plan": messages say "vtbench plan: ..." */
	const char *usage; /* after "usage: vtbench CMD "; lines split by '\n' */
	const char *about; /* preformatted paragraphs, or NULL */
	const struct vtb_cli_opt *opts;
	const char *more;  /* preformatted text after the options, or NULL */
	const char *exits; /* "0 ok, 2 ...": the exit codes, wrapped */
	/* NULL-terminated: the words the first operand may be (list's
	 * kinds), for completion; NULL when it is free */
	const char *const *operands;
};

/* vtb_cli_next() results besides an option's id */
#define VTB_CLI_END 0	    /* options done: operands from p->optind */
#define VTB_CLI_HELP (-1)   /* --help printed on stdout: exit 0 */
#define VTB_CLI_ERROR (-2)  /* a usage error printed on stderr: exit 2 */
#define VTB_CLI_MAX_OPTS 48 /* rows per table (checked) */

struct vtb_cli_parser {
	const struct vtb_cli *cli;
	int argc;
	char **argv; /* argv[0] = the command's name */
	int optind;  /* after VTB_CLI_END: the first operand */
	bool started;
	/* built from the table by the first vtb_cli_next() */
	struct option longopts[VTB_CLI_MAX_OPTS + 2];
	char shortopts[2 * VTB_CLI_MAX_OPTS + 4];
};

void vtb_cli_init(struct vtb_cli_parser *p, const struct vtb_cli *cli, int argc, char **argv);

/*
 * The next option: its id with *arg its value (NULL for a flag), or
 * VTB_CLI_END, VTB_CLI_HELP or VTB_CLI_ERROR.  Errors (an unknown
 * option, with the nearest known one; a missing or unexpected value; a
 * value not in the option's list, with the nearest) are printed as one
 * line naming the command and pointing at its --help.
 */
int vtb_cli_next(struct vtb_cli_parser *p, const char **arg);

/* The exit code for VTB_CLI_HELP (0) or VTB_CLI_ERROR (2). */
int vtb_cli_exit(int r);

/* The whole --help text of @cli. */
void vtb_cli_help(FILE *f, const struct vtb_cli *cli);

/* The same, as roff for vtbench(1): usage lines, about, every option of
 * the table (headings included), more and the exit codes. */
void vtb_cli_man(FILE *f, const struct vtb_cli *cli);
/* Its usage lines alone ("vtbench CMD ..."), each ended by .br */
void vtb_cli_man_usage(FILE *f, const struct vtb_cli *cli);

/* Prints "vtbench CMD: MESSAGE; see 'vtbench CMD --help'" (usage errors
 * found after parsing, such as a missing operand). */
void vtb_cli_usage_error(const struct vtb_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Every --help line fits this width (tests check it). */
#define VTB_CLI_WIDTH 80

#endif
