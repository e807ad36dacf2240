/* SPDX-License-Identifier: MIT */
/*
 * Shell completion scripts (bash, zsh, fish) written from the commands'
 * option tables (cliopt.h), so what a shell offers is what the parser
 * accepts: `vtbench --completion bash`.
 */
#ifndef VTB_COMPLETION_H
#define VTB_COMPLETION_H

#include <stddef.h>
#include <stdio.h>

#include "cliopt.h"

/* One row of main.c's command table, as completion sees it. */
struct vtb_comp_cmd {
	const char *name;
	const char *summary;
	const struct vtb_cli *cli;
};

/* The shells, NULL-terminated ("bash", "zsh", "fish"). */
extern const char *const vtb_completion_shells[];

/*
 * Writes the completion script of @shell for the @n commands to @f:
 * the commands (and "help COMMAND"), each command's options (long and
 * short), an option's fixed values (values, values_of), files for a
 * FILE or PATH value (only *.EXT for a value named like "OTHER.db" or
 * for --db; directories for DIR), nothing for other values, and the
 * operands the usage line names (the fixed words of vtb_cli.operands,
 * else files of MATRIX.conf's or OUT.db's extension).  Returns 0, or -1
 * for an unknown shell (nothing written).
 */
int vtb_completion_write(FILE *f, const char *shell, const struct vtb_comp_cmd *cmds, size_t n);

#endif
