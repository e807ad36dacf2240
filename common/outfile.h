/* SPDX-License-Identifier: MIT */
/*
 * The one rule for every file vtbench writes at a path a user gave
 * (-o, topo --export, plan --xml-dir's files).  vtbench runs as root on
 * shared servers, so a path is looked at before anything is written:
 *
 *   "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N
 *              the open descriptor itself (what the shell redirected)
 *   missing    created: a temporary beside it (O_EXCL), written, fsynced,
 *              then renamed into place only if nothing appeared there
 *              meanwhile (RENAME_NOREPLACE); mode 0666 less the umask
 *   regular    replaced atomically: a temporary beside it, fsynced,
 *              renamed over it, keeping its mode and (as root) its owner;
 *              the old file stays whole until the new one is
 *   character device, FIFO
 *              written through (opened O_WRONLY, never truncated or
 *              replaced): -o /dev/null simply works, a FIFO's reader gets
 *              the report
 *   symlink    its target (one level; a link to a link is refused) written
 *              by the rules above, and said (the note); a dangling link is
 *              refused (it would create a file where the link's author
 *              chose), and so is a link in a sticky world-writable
 *              directory (/tmp) that is neither ours nor the directory
 *              owner's (the kernel's protected_symlinks rule, which does
 *              not apply when vtbench reads the link itself); with
 *              VTB_OUT_NAMED_DIR (a file name the user did not give,
 *              inside a directory they named) every symlink is refused
 *   directory, block device, socket
 *              refused
 *   an input   the same file as one of the command's inputs (the database
 *              with its -wal/-shm/-journal, the matrix), by inode and by
 *              name, also through /dev/fd/N: refused
 *
 * VTB_OUT_STREAM (vtbench-agent --out, whose records may be followed as
 * they come and must survive an interrupted run): a missing or regular
 * file is written in place instead, as the shell's > does (created
 * O_EXCL|O_NOFOLLOW, or opened O_NOFOLLOW and truncated).
 *
 * Refusals are input errors (VTB_OUT_EINPUT: exit 2); a write that fails
 * (a full disk) is an infrastructure error (-1: exit 3).
 */
#ifndef VTB_OUTFILE_H
#define VTB_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* vtb_outfile_open(): the path is refused (the caller exits 2) */
#define VTB_OUT_EINPUT (-2)

/* flags */
/* the name was made by vtbench inside a directory the user named:
 * symlinks, devices and FIFOs are refused */
#define VTB_OUT_NAMED_DIR (1u << 0)
/* written in place, not replaced whole (above) */
#define VTB_OUT_STREAM (1u << 1)

/* What an input of the command is called in the refusal ("the database"). */
struct vtb_out_input {
	const char *path;
	const char *what;
	bool sqlite; /* also its -wal, -shm and -journal files */
};

struct vtb_outfile {
	FILE *f;      /* write here; stdout for "-" */
	char *path;   /* as given (malloc'ed) */
	char *target; /* where the bytes go: the path, or its symlink's target */
	char *tmp;    /* temporary beside target (replace or create), else NULL */
	char *note;   /* what the user should know (a symlink resolved), or NULL */
	bool create;  /* target did not exist: rename without replacing */
	bool inplace; /* VTB_OUT_STREAM: the file itself, fsynced at commit */
	bool own_f;   /* f is ours to close */
};

/*
 * Opens @path for writing by the rule above.  @inputs: the command's
 * inputs, ended by an entry with a NULL path (NULL: none).  0, or
 * VTB_OUT_EINPUT / -1 with vtb_error() set (naming the path); @o is then
 * empty and needs no abandon (abandon is harmless).  Ownership: @o holds
 * what it allocates until commit or abandon.
 */
int vtb_outfile_open(struct vtb_outfile *o, const char *path, unsigned flags,
		     const struct vtb_out_input *inputs);
/* The whole output is written: flushed, fsynced and put in place.  0, or
 * -1 with vtb_error() set (the old file, if any, is as it was). */
int vtb_outfile_commit(struct vtb_outfile *o);
/* After a failure, or after commit: frees @o; a temporary goes, the file
 * at the path stays as it was.  Accepts an empty @o. */
void vtb_outfile_abandon(struct vtb_outfile *o);
/* Writes @len bytes of @data to @path by the rule (open, write, commit).
 * 0, VTB_OUT_EINPUT or -1; *note as vtb_outfile's (malloc'ed, may be NULL). */
int vtb_outfile_write(const char *path, unsigned flags, const struct vtb_out_input *inputs,
		      const void *data, size_t len, char **note);

#endif
