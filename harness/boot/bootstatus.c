/* SPDX-License-Identifier: MIT */
/* A boot's status (bootstatus.h). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../../common/vtbutil.h"
#include "bootstatus.h"
#include "../matrix/conf.h"

void vtb_boot_outcome_release(struct vtb_boot_outcome *o)
{
	if (!o)
		return;
	free(o->error);
	free(o->stderr_tail);
	free(o->confinement);
	free(o->warning);
	vtb_rec_parser_free(o->parser);
	memset(o, 0, sizeof(*o));
}

const char *vtb_boot_judge(int wstatus, const struct vtb_boot_records *r, char **error)
{
	size_t i;

	*error = NULL;
	if (WIFSIGNALED(wstatus)) {
		*error = vtb_asprintf("agent killed by signal %d (%s)", WTERMSIG(wstatus),
				      strsignal(WTERMSIG(wstatus)));
		return "failed";
	}
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
		const char *why = r->n_errors ? r->errors[r->n_errors - 1] : NULL;

		*error = why ? vtb_asprintf("agent exited with status %d: %s", WEXITSTATUS(wstatus),
					    why)
			     : vtb_asprintf("agent exited with status %d", WEXITSTATUS(wstatus));
		return "failed";
	}
	if (r->n_errors) {
		*error = vtb_asprintf("%zu record error%s (first: %s)",
				      r->n_errors + r->errors_dropped,
				      r->n_errors + r->errors_dropped == 1 ? "" : "s",
				      r->errors[0]);
		return "failed";
	}
	if (!r->ended) {
		*error = strdup("the agent ended without its end record");
		return "failed";
	}
	for (i = 0; i < r->n_cells; i++) {
		if (!r->cells[i].status || strcmp(r->cells[i].status, "ok")) {
			*error = vtb_asprintf("cell '%s' (%s) failed%s%s", r->cells[i].cell,
					      r->cells[i].workload ? r->cells[i].workload : "?",
					      r->cells[i].error ? ": " : "",
					      r->cells[i].error ? r->cells[i].error : "");
			return "failed";
		}
	}
	return "ok";
}

/* The first "Kernel panic" line of the console tail, or NULL. */
static char *panic_line(const char *tail)
{
	const char *p = strstr(tail, "Kernel panic");
	const char *e;

	if (!p)
		return NULL;
	e = strchr(p, '\n');
	return e ? strndup(p, (size_t)(e - p)) : vtb_strdup(p);
}

const char *vtb_vm_judge(const struct vtb_vm_facts *f, const struct vtb_boot_records *r,
			 char **error)
{
	char *pl = f->console_tail ? panic_line(f->console_tail) : NULL;
	const char *status = "failed";

	*error = NULL;
	if (f->interrupted) {
		status = "interrupted";
	} else if (f->start_error) {
		*error = vtb_strdup(f->start_error);
	} else if (f->timed_out) {
		status = "timeout";
		*error = vtb_asprintf(
			"the guest did not power off within %.0f s and was destroyed (%zu records read)",
			(double)f->timeout_ns * 1e-9, r->records);
	} else if (f->panicked || pl) {
		*error = vtb_asprintf("the guest kernel panicked%s%s", pl ? ": " : "",
				      pl ? pl : "");
	} else if (f->qemu_failed) {
		*error = vtb_strdup("QEMU failed (see the console tail and libvirt's log)");
	} else if (!r->records && !r->header) {
		*error = vtb_asprintf(
			"the guest wrote no records%s%s (its console tail is kept with the boot)",
			f->stream_error ? ": " : "", f->stream_error ? f->stream_error : "");
	} else {
		status = vtb_boot_judge(0, r, error);
	}
	free(pl);
	return status;
}

void vtb_boot_demote(const char **status, char **error, const char *to, char *why)
{
	if (strcmp(*status, "ok")) {
		free(why);
		return;
	}
	*status = to;
	free(*error);
	*error = why;
}

void vtb_boot_check_confinement(struct vtb_boot_outcome *out, const char *cpus)
{
	const struct vtb_boot_records *r = vtb_rec_parser_result(out->parser);
	const char *seen = r->header ? json_string_value(json_object_get(r->header, "cpus")) : NULL;

	if (!seen || !strcmp(seen, cpus) || strcmp(out->status, "ok"))
		return;
	vtb_boot_demote(&out->status, &out->error, "failed",
			vtb_asprintf("the agent ran on CPUs %s, not on the configuration's CPUs %s",
				     seen, cpus));
}

void vtb_boot_check_cells(struct vtb_boot_outcome *out, const struct vtb_config *c)
{
	const struct vtb_boot_records *r = vtb_rec_parser_result(out->parser);
	size_t i, k;

	if (strcmp(out->status, "ok"))
		return;
	for (i = 0; i < c->n_cells; i++) {
		for (k = 0; k < r->n_cells; k++)
			if (r->cells[k].cell && !strcmp(r->cells[k].cell, c->cells[i].key))
				break;
		if (k < r->n_cells)
			continue;
		vtb_boot_demote(&out->status, &out->error, "failed",
				vtb_asprintf("cell '%s' (%s) reported nothing", c->cells[i].name,
					     c->cells[i].key));
		return;
	}
}
