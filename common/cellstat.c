/* SPDX-License-Identifier: MIT */
/* A cell's scheduler counters, guest side: see cellstat.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cellstat.h"
#include "guestview.h"
#include "vtbutil.h"

#define SCHEDSTATS_KNOB "/proc/sys/kernel/sched_schedstats"
#define STAT_MAX (8u * 1024 * 1024) /* /proc/stat of 8192 CPUs and their irqs */
#define NOTES_MAX 64		    /* the harness takes at most 64 notes */
#define NOTE_BYTES 500		    /* of at most 512 bytes each */
#define LEVELS_MAX 16		    /* and 16 levels */

int vtb_cellstat_enable(const char *root, char **was, char **note)
{
	char *p = vtb_gv_path(root, SCHEDSTATS_KNOB);
	int err;

	*was = NULL;
	*note = NULL;
	if (!p)
		return vtb_error("out of memory");
	*was = vtb_gv_read(p);
	free(p);
	if (!*was) {
		*note = vtb_strdup("no " SCHEDSTATS_KNOB " (a kernel without CONFIG_SCHEDSTATS): "
				   "the sched-domain counters stay 0");
		return *note ? 0 : vtb_error("out of memory");
	}
	if (!strcmp(*was, "1"))
		return 0;
	err = vtb_gv_write(root, SCHEDSTATS_KNOB, "1");
	if (err) {
		*note = vtb_asprintf("schedstats could not be switched on (%s: %s): the "
				     "sched-domain counters stay 0",
				     SCHEDSTATS_KNOB, strerror(err));
		if (!*note)
			return vtb_error("out of memory");
	}
	return 0;
}

void vtb_cellstat_restore(const char *root, const char *was)
{
	char *p, *now;

	if (!was)
		return;
	p = vtb_gv_path(root, SCHEDSTATS_KNOB);
	now = p ? vtb_gv_read(p) : NULL;
	if (now && strcmp(now, was))
		vtb_gv_write(root, SCHEDSTATS_KNOB, was);
	free(now);
	free(p);
}

/* The 8th value of each "cpuN" line of /proc/stat, by cpu number. */
static void read_steal(const char *root, struct vtb_cellstat *cs)
{
	char *p = vtb_gv_path(root, "/proc/stat");
	char *text = p ? vtb_read_file(p, STAT_MAX) : NULL, *line, *save = NULL;
	size_t cap = 0;

	free(p);
	cs->steal = NULL;
	cs->n_steal = 0;
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end;
		long long cpu, v;

		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		errno = 0;
		cpu = strtoll(line + 3, &end, 10);
		if (errno || cpu < 0 || cpu >= VTB_SS_MAX_CPUS || *end != ' ')
			continue;
		v = vtb_gv_steal_of(end);
		if (v < 0)
			continue;
		if ((size_t)cpu >= cap) {
			size_t n = cap ? cap : 64;
			long long *g;

			while (n <= (size_t)cpu)
				n *= 2;
			g = realloc(cs->steal, n * sizeof(*g));
			if (!g)
				break; /* no steal, as where /proc/stat has none */
			cs->steal = g;
			cap = n;
		}
		for (size_t k = cs->n_steal; k <= (size_t)cpu; k++)
			cs->steal[k] = -1;
		if ((size_t)cpu >= cs->n_steal)
			cs->n_steal = (size_t)cpu + 1;
		cs->steal[cpu] = v;
	}
	free(text);
}

void vtb_cellstat_begin(const char *root, struct vtb_cellstat *cs)
{
	uint64_t t = vtb_now_ns();

	memset(cs, 0, sizeof(*cs));
	read_steal(root, cs);
	if (vtb_schedstat_read(root, &cs->before) == 0)
		cs->have = true;
	else
		cs->error = vtb_strdup(vtb_errmsg());
	cs->t0 = vtb_now_ns();
	cs->cost_ns = cs->t0 - t;
}

void vtb_cellstat_release(struct vtb_cellstat *cs)
{
	vtb_schedstat_release(&cs->before);
	free(cs->error);
	free(cs->steal);
	memset(cs, 0, sizeof(*cs));
}

/* Level names before version 17: what debugfs (or the older procfs
 * sched_domain tree) calls domain @dom of @cpu. */
struct names {
	const char *root;
	char buf[16];
};

static const char *name_of(int cpu, int dom, void *arg)
{
	struct names *nm = arg;
	char *p, *v = NULL;
	size_t i;

	p = vtb_gv_path(nm->root, VTB_GV_SCHED_DIR "/domains/cpu%d/domain%d/name", cpu, dom);
	if (p)
		v = vtb_gv_read(p);
	free(p);
	if (!v) {
		p = vtb_gv_path(nm->root, "/proc/sys/kernel/sched_domain/cpu%d/domain%d/name", cpu,
				dom);
		if (p)
			v = vtb_gv_read(p);
		free(p);
	}
	nm->buf[0] = '\0';
	for (i = 0; v && v[i] && i < sizeof(nm->buf) - 1; i++) {
		if (!isalnum((unsigned char)v[i]) && v[i] != '_')
			break;
		nm->buf[i] = v[i];
	}
	/* anything odd: "domainN" */
	if (!v || v[i] || !i)
		nm->buf[0] = '\0';
	else
		nm->buf[i] = '\0';
	free(v);
	return nm->buf;
}

/* Adds each cpu's steal ticks over the cell to the record's cpus. */
static void add_steal(json_t *cpus, const struct vtb_cellstat *a, const struct vtb_cellstat *b)
{
	json_t *c;
	size_t i;

	json_array_foreach(cpus, i, c)
	{
		json_int_t n = json_integer_value(json_object_get(c, "cpu"));

		if (n < 0 || (size_t)n >= a->n_steal || (size_t)n >= b->n_steal ||
		    a->steal[n] < 0 || b->steal[n] < a->steal[n])
			continue;
		json_object_set_new(c, "steal", json_integer(b->steal[n] - a->steal[n]));
	}
}

/* Adds note @s, cut to the harness's 512 bytes of plain text; the last
 * place says that more were left out.  -1 on ENOMEM. */
static int note(json_t *notes, const char *s)
{
	char buf[NOTE_BYTES + 1];
	size_t i;

	if (!s || json_array_size(notes) >= NOTES_MAX)
		return 0;
	if (json_array_size(notes) == NOTES_MAX - 1)
		s = "more notes left out";
	for (i = 0; s[i] && i < NOTE_BYTES; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e ? '?' : s[i];
	buf[i] = '\0';
	if (s[i] && i >= 3)
		memcpy(buf + i - 3, "...", 3);
	return json_array_append_new(notes, json_string(buf)) ? -1 : 0;
}

/* The harness takes at most LEVELS_MAX levels: the innermost are kept. */
static int cap_levels(json_t *sum, json_t *notes)
{
	json_t *levels = json_object_get(sum, "levels");
	size_t n = json_array_size(levels);
	char msg[96];

	if (n <= LEVELS_MAX)
		return 0;
	while (json_array_size(levels) > LEVELS_MAX)
		if (json_array_remove(levels, json_array_size(levels) - 1))
			return -1;
	snprintf(msg, sizeof(msg), "%zu domain levels: the innermost %d kept", n, LEVELS_MAX);
	return note(notes, msg);
}

json_t *vtb_cellstat_end(const char *root, struct vtb_cellstat *cs, const char *cell,
			 const char *first_note)
{
	struct vtb_cellstat after = { 0 };
	struct vtb_schedstat diff = { 0 };
	struct names nm = { .root = root };
	json_t *rec = NULL, *notes = json_array(), *dn = NULL, *sum = NULL, *v;
	uint64_t t1 = vtb_now_ns();
	double secs = (double)(t1 - cs->t0) * 1e-9;
	long hz = sysconf(_SC_CLK_TCK);
	char *err = NULL;
	size_t i;

	if (!notes || note(notes, first_note))
		goto oom;
	read_steal(root, &after);
	if (!cs->have) {
		err = vtb_strdup(cs->error ? cs->error : "/proc/schedstat was not read");
	} else if (vtb_schedstat_read(root, &after.before) < 0 ||
		   vtb_schedstat_diff(&cs->before, &after.before, &diff, &dn) < 0) {
		err = vtb_strdup(vtb_errmsg());
	} else {
		sum = vtb_schedstat_json(&diff, name_of, &nm);
		if (!sum)
			err = vtb_strdup(vtb_errmsg());
	}
	json_array_foreach(dn, i, v) if (note(notes, json_string_value(v))) goto oom;
	/* the harness takes 512 bytes of plain text */
	for (i = 0; err && err[i]; i++)
		if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] > 0x7e)
			err[i] = '?';
	if (err && strlen(err) > 500)
		err[500] = '\0';
	if (!sum) {
		sum = json_pack("{s:o, s:[], s:[]}", "version",
				cs->before.version ? json_integer(cs->before.version) : json_null(),
				"levels", "cpus");
		if (!sum || !err)
			goto oom;
	}
	if (cap_levels(sum, notes))
		goto oom;
	add_steal(json_object_get(sum, "cpus"), cs, &after);
	rec = json_pack("{s:s, s:s, s:f, s:I, s:O, s:O, s:O, s:o, s:o, s:I}", "type", "schedstat",
			"cell", cell, "seconds", secs > 0 ? secs : 0.0, "user_hz",
			(json_int_t)(hz > 0 ? hz : 100), "version", json_object_get(sum, "version"),
			"levels", json_object_get(sum, "levels"), "cpus",
			json_object_get(sum, "cpus"), "notes", notes, "error",
			err ? json_string(err) : json_null(), "cost_ns",
			(json_int_t)(cs->cost_ns + (vtb_now_ns() - t1)));
	notes = NULL;
	if (!rec)
		goto oom;
	goto out;
oom:
	json_decref(rec);
	rec = NULL;
	vtb_error("out of memory building the schedstat record");
out:
	json_decref(notes);
	json_decref(dn);
	json_decref(sum);
	free(err);
	vtb_schedstat_release(&diff);
	vtb_cellstat_release(&after);
	vtb_cellstat_release(cs);
	return rec;
}
