/* SPDX-License-Identifier: MIT */
/*
 * /proc/schedstat (Documentation/scheduler/sched-stats.rst, versions 15,
 * 16 and 17): parsed into counters, two snapshots differenced, and the
 * difference summarised as the JSON the guest agent sends.  The text
 * comes from a guest kernel the user built, so it is untrusted: sizes and
 * counts are bounded (VTB_SS_MAX_*), every number is checked against its
 * field's width in the kernel, and every refusal names the line.
 */
#ifndef VTB_SCHEDSTAT_H
#define VTB_SCHEDSTAT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define VTB_SS_MAX_CPUS 8192		     /* cpu numbers 0 .. VTB_SS_MAX_CPUS - 1 */
#define VTB_SS_MAX_DOMAINS 16		     /* domain lines per cpu */
#define VTB_SS_MAX_LINE 4096		     /* bytes of one line, its newline left out */
#define VTB_SS_MAX_BYTES (32u * 1024 * 1024) /* the whole text */
#define VTB_SS_NAME_MAX 15		     /* a level name: 1-15 of [A-Za-z0-9_] */

/* Idle types in the one order the structs keep, whatever the version
 * printed (v15: idle, busy, newly idle; v16 and v17: busy, idle, newly
 * idle). */
enum vtb_ss_idle { VTB_SS_BUSY, VTB_SS_IDLE, VTB_SS_NEWIDLE, VTB_SS_NIDLE };

/* sched_balance_rq() counters of one idle type.  imbalance exists in v15
 * and v16, the imb_* split in v17; the others stay 0. */
struct vtb_ss_lb {
	uint64_t count, balanced, failed;
	uint64_t imbalance;
	uint64_t imb_load, imb_util, imb_task, imb_misfit;
	uint64_t gained, hot_gained, nobusyq, nobusyg;
};

/* One domain line.  All its counters are 32 bits wide in the kernel. */
struct vtb_ss_domain {
	int index;			/* N of domainN: 0 is the innermost level */
	char name[VTB_SS_NAME_MAX + 1]; /* v17's level name, "" before */
	char *mask; /* the span as printed (hex words, commas), lower case; owned */
	struct vtb_ss_lb lb[VTB_SS_NIDLE];
	uint64_t alb_count, alb_failed, alb_pushed;
	uint64_t sbe_count, sbe_balanced, sbe_pushed;
	uint64_t sbf_count, sbf_balanced, sbf_pushed;
	uint64_t ttwu_wake_remote, ttwu_move_affine, ttwu_move_balance;
};

/* One cpu line and its domains.  yld_count .. ttwu_local are 32 bits wide
 * in the kernel, rq_cpu_time, run_delay (ns) and pcount 64.  The legacy
 * array_exp field (always 0) is checked as a 32-bit number, not kept. */
struct vtb_ss_cpu {
	int cpu;
	uint64_t yld_count, sched_count, sched_goidle, ttwu_count, ttwu_local;
	uint64_t rq_cpu_time, run_delay, pcount;
	size_t n_domains;
	struct vtb_ss_domain *domains; /* domains[i].index == i; owned */
};

struct vtb_schedstat {
	int version;	    /* 15, 16 or 17 */
	uint64_t timestamp; /* jiffies (a difference: jiffies elapsed) */
	size_t n_cpus;
	struct vtb_ss_cpu *cpus; /* ascending cpu numbers; owned */
};

/*
 * Parses @len bytes of /proc/schedstat text (NUL bytes in it are refused)
 * into @out, which the caller releases.  0, or -1 with vtb_error()
 * "schedstat line N: ..." (the caller names the source) and @out empty;
 * out->version is still the version line's number when there was one (so
 * "version 18 is not supported" can be told apart), else 0.  Refused: a
 * first line that is not "version N" with N 15-17, a second that is not
 * "timestamp J", a line of another kind than cpuN / domainN, a wrong field
 * count, a field that is not decimal or is wider than the kernel's, a
 * domain before any cpu, cpus not in ascending order (listed twice), a
 * domain index other than the next, more than VTB_SS_MAX_DOMAINS
 * domains, a cpu number from VTB_SS_MAX_CPUS on, a bad mask or name, an
 * overlong line, text over VTB_SS_MAX_BYTES, no cpu line at all, and text
 * after a blank line (blank lines at the end are fine).
 */
int vtb_schedstat_parse(const char *text, size_t len, struct vtb_schedstat *out);

/* Frees what @s owns and empties it; NULL is fine. */
void vtb_schedstat_release(struct vtb_schedstat *s);

/*
 * Reads and parses ROOT/proc/schedstat ("" or NULL: the real system; a
 * directory: a fake tree, as common/guestview.h), at most
 * VTB_SS_MAX_BYTES.  0 or -1 with vtb_error() naming the file.
 */
int vtb_schedstat_read(const char *root, struct vtb_schedstat *out);

/*
 * @after - @before (both as vtb_schedstat_parse() makes them) into @diff
 * (released by the caller): the same version, timestamp the jiffies
 * elapsed, and per cpu and domain the counters' increase.  32-bit
 * counters are taken modulo 2^32 (one wrap is exact).  Left out, each
 * with a note (a sentence, in *@notes, a new JSON array of strings, when
 * @notes is not NULL):
 * - a cpu in only one snapshot (hot-plug);
 * - a cpu whose 64-bit counters went back (a reset): the whole cpu;
 * - the domains of a cpu whose domain lines differ in number, name or
 *   mask: the kernel rebuilt its hierarchy, and rebuilding allocates
 *   every level of it afresh, so all its counters restarted from 0, not
 *   only those of the level that changed.  The cpu stays, without
 *   domains.  A rebuild that gives back the same levels and masks cannot
 *   be told from wraps: its domains come out as wrapped counters.
 * -1 with vtb_error() (and @diff empty, *@notes NULL) when the versions
 * differ, the timestamp went back (another boot; a 32-bit jiffies wrap
 * is taken), cpus are not ascending, or on ENOMEM.
 */
int vtb_schedstat_diff(const struct vtb_schedstat *before, const struct vtb_schedstat *after,
		       struct vtb_schedstat *diff, json_t **notes);

/*
 * The agent's summary of a difference (new reference):
 *   {"version":V,"levels":[LEVEL...],"cpus":[CPU...]}
 * LEVEL: {"level":NAME,"cpus":N,"lb":{"busy":LB,"idle":LB,"newidle":LB},
 *         "alb":{"count","failed","pushed"},
 *         "sbe":{"count","balanced","pushed"},
 *         "sbf":{"count","balanced","pushed"},
 *         "ttwu":{"remote","affine","balance"}}
 * LB: {"count","balanced","failed", "imbalance" (v15, v16) or
 *      "imb_load","imb_util","imb_task","imb_misfit" (v17),
 *      "gained","hot_gained","nobusyq","nobusyg"}
 * CPU: {"cpu","yield","sched","goidle","ttwu","ttwu_local","run_ns",
 *       "wait_ns","slices"}
 * A level sums one level name over the cpus that have it (N of them).
 * The name is the line's own in v17; before, @name(cpu, domain index,
 * @arg) gives it (the agent asks debugfs), and NULL, "" or no @name
 * means "domainN".  A cpu's second level of the same name (the kernel
 * names every NUMA level "NUMA") is NAME_2, its third NAME_3, and so on.
 * Levels come innermost first: by the smallest domain index at which
 * the name appears, then the largest (SMT at 0 before MC at 0 and 1 when
 * a cpu without a sibling has no SMT level), then by name.  Every value
 * is a JSON integer.  NULL with vtb_error() on ENOMEM, a @name result
 * that is not 1-15 of [A-Za-z0-9_], or a value beyond INT64_MAX (the
 * message names the cpu or level and the key).
 */
json_t *vtb_schedstat_json(const struct vtb_schedstat *diff,
			   const char *(*name)(int cpu, int dom, void *arg), void *arg);

#endif
