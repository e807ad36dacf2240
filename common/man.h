/* SPDX-License-Identifier: MIT */
/*
 * Roff (man(7)) output for the manual pages both binaries write from their
 * option tables (vtbench --man PAGE, vtbench-agent --man), so a page lists
 * exactly what --help and --help-matrix list.  Text is escaped here: a
 * backslash, every '-' (so options copy as ASCII), a leading '.' or '\'',
 * and non-ASCII characters (as \[uXXXX]).
 */
#ifndef VTB_MAN_H
#define VTB_MAN_H

#include <stdio.h>

#include "opt.h"

/* .TH and the settings every page shares: left-adjusted, no hyphenation
 * (an option name never breaks). */
void vtb_man_head(FILE *f, const char *name, const char *section, const char *version,
		  const char *manual);
/* .SH HEADING / .SS HEADING */
void vtb_man_section(FILE *f, const char *heading);
void vtb_man_subsection(FILE *f, const char *heading);

/* Escaped text, no newline at the end; '\n' in @text becomes a space. */
void vtb_man_text(FILE *f, const char *text);
/* @text in a font: 'B' bold, 'I' italic. */
void vtb_man_font(FILE *f, char font, const char *text);
/* A paragraph of filled text (.PP); '\n' in @text breaks the line. */
void vtb_man_para(FILE *f, const char *text);
/*
 * Text laid out for --help: paragraphs split by blank lines; lines that
 * start with a space are kept as they are (a list, a table), the others
 * are filled.
 */
void vtb_man_block(FILE *f, const char *text);
/* ".TP" then the caller writes the tag line and ends it with '\n';
 * vtb_man_body() then writes the indented paragraph under it. */
void vtb_man_tp(FILE *f);
void vtb_man_body(FILE *f, const char *text);

/*
 * One .TP entry per option of @table (hidden ones left out): the name
 * (with its letter and "--" when @with_short, as the agent's command
 * line takes it), type and limits, default, and help.
 */
void vtb_man_opts(FILE *f, const struct vtb_opt *table, bool with_short);

#endif
