/* SPDX-License-Identifier: MIT */
/*
 * vtbench doctor's checks: what this host can and cannot do before a
 * night's run.  Each check has a stable id (docs/commands.md lists them),
 * a status and one line of what it found, and for warn and fail one line
 * of what to do.  The checks read /dev, /sys, /proc and /run under a
 * root (VTBENCH_DOCTOR_ROOT for tests, else "/"), talk to libvirt only
 * through provision.h and read the database only through store.h.
 * `run` and `explore` run the cheap ones (VTB_DOCTOR_CHEAP) before they
 * write anything.
 */
#ifndef VTB_DOCTOR_H
#define VTB_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "../matrix/conf.h"

enum vtb_check_status {
	VTB_CHECK_OK,	/* as a benchmark wants it */
	VTB_CHECK_INFO, /* a fact, nothing to do */
	VTB_CHECK_WARN, /* runs, but measures worse or may fail: advice says why */
	VTB_CHECK_FAIL, /* a campaign cannot run as planned: advice says what to do */
};

/* "ok", "info", "warn", "fail" */
const char *vtb_check_status_name(enum vtb_check_status s);

struct vtb_check {
	const char *id; /* "libvirt", "dev-null", ...: static */
	enum vtb_check_status status;
	char *found;  /* what was found, one line (malloc'ed) */
	char *advice; /* what to do, one line; NULL for ok and info */
};

struct vtb_checks {
	struct vtb_check *v;
	size_t n, cap;
};
void vtb_checks_release(struct vtb_checks *c);
/* The first check that failed, or NULL. */
const struct vtb_check *vtb_checks_failed(const struct vtb_checks *c);

#define VTB_DOCTOR_CHEAP (1u << 0) /* only what run checks first (no KVM, no hygiene) */

struct vtb_doctor_opts {
	/* NULL: $VTBENCH_DOCTOR_ROOT, else "/" (where /dev, /sys, /proc
	 * and /run are read) */
	const char *root;
	/* the planned campaign, NULL: none (the libvirt URI is then the
	 * harness's default, the kernel the one it would pick) */
	const struct vtb_matrix *m;
	/* the matrix's database when it exists (stored kernel probes), or NULL */
	struct vtb_store *st;
	unsigned flags;
};

/*
 * Runs the checks into @out in a fixed order.  A check never stops the
 * others.  -1 with vtb_error() only on ENOMEM (@out holds what was done;
 * release it in both cases).
 */
int vtb_doctor(const struct vtb_doctor_opts *o, struct vtb_checks *out);

/* Every id vtb_doctor() may give, in its order, NULL-terminated. */
extern const char *const vtb_doctor_ids[];

#endif
