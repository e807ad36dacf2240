/* SPDX-License-Identifier: MIT */
/*
 * /proc/schedstat for the agent and the harness.  The field lists follow
 * Documentation/scheduler/sched-stats.rst and show_schedstat() of each
 * version: the kernel prints the cpu counters as %u (five of them) and
 * %llu/%lu (three), every domain counter as %u, so a value wider than
 * its field is not the kernel's and is refused, and a 32-bit counter
 * that wrapped between two snapshots is still differenced exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guestview.h"
#include "schedstat.h"
#include "vtbutil.h"

/* tokens kept of one line: "domainN NAME MASK" and 45 counters fit, and
 * a longer line is still counted for its message */
#define MAX_TOKENS 64
/* bytes of a token quoted in a message */
#define SHOW_MAX 32
/* a mask: 32-bit words of hex digits, the first 1-8 digits, the others 8 */
#define MASK_WORDS (VTB_SS_MAX_CPUS / 32)
#define NOWHERE SIZE_MAX

struct tok {
	const char *s;
	size_t n;
};

/* '%.*s%s' of a token, cut at SHOW_MAX bytes */
#define SHOW(t) (int)((t).n > SHOW_MAX ? SHOW_MAX : (t).n), (t).s, (t).n > SHOW_MAX ? "..." : ""

/* One counter: its name in the kernel, where it goes, its width there. */
struct field {
	const char *name;
	size_t off;
	unsigned bits;
};

/* clang-format off */
#define CPUF(f, b) { #f, offsetof(struct vtb_ss_cpu, f), b }
#define LBF(k, f) { k, offsetof(struct vtb_ss_lb, f), 32 }
#define DOMF(f) { #f, offsetof(struct vtb_ss_domain, f), 32 }
/* clang-format on */
static const struct field cpu_fields[] = {
	CPUF(yld_count, 32),	{ "array_exp", NOWHERE, 32 }, CPUF(sched_count, 32),
	CPUF(sched_goidle, 32), CPUF(ttwu_count, 32),	      CPUF(ttwu_local, 32),
	CPUF(rq_cpu_time, 64),	CPUF(run_delay, 64),	      CPUF(pcount, 64),
};

/* v15 and v16: 8 per idle type */
static const struct field lb_v15[] = {
	LBF("lb_count", count),	    LBF("lb_balanced", balanced),
	LBF("lb_failed", failed),   LBF("lb_imbalance", imbalance),
	LBF("lb_gained", gained),   LBF("lb_hot_gained", hot_gained),
	LBF("lb_nobusyq", nobusyq), LBF("lb_nobusyg", nobusyg),
};
/* v17: lb_imbalance split in four, 11 per idle type */
static const struct field lb_v17[] = {
	LBF("lb_count", count),
	LBF("lb_balanced", balanced),
	LBF("lb_failed", failed),
	LBF("lb_imbalance_load", imb_load),
	LBF("lb_imbalance_util", imb_util),
	LBF("lb_imbalance_task", imb_task),
	LBF("lb_imbalance_misfit", imb_misfit),
	LBF("lb_gained", gained),
	LBF("lb_hot_gained", hot_gained),
	LBF("lb_nobusyq", nobusyq),
	LBF("lb_nobusyg", nobusyg),
};
/* every member of struct vtb_ss_lb, for the difference */
static const struct field lb_all[] = {
	LBF("lb_count", count),
	LBF("lb_balanced", balanced),
	LBF("lb_failed", failed),
	LBF("lb_imbalance", imbalance),
	LBF("lb_imbalance_load", imb_load),
	LBF("lb_imbalance_util", imb_util),
	LBF("lb_imbalance_task", imb_task),
	LBF("lb_imbalance_misfit", imb_misfit),
	LBF("lb_gained", gained),
	LBF("lb_hot_gained", hot_gained),
	LBF("lb_nobusyq", nobusyq),
	LBF("lb_nobusyg", nobusyg),
};

/* after the three idle-type blocks, in every version */
static const struct field dom_tail[] = {
	DOMF(alb_count),    DOMF(alb_failed),	    DOMF(alb_pushed),	    DOMF(sbe_count),
	DOMF(sbe_balanced), DOMF(sbe_pushed),	    DOMF(sbf_count),	    DOMF(sbf_balanced),
	DOMF(sbf_pushed),   DOMF(ttwu_wake_remote), DOMF(ttwu_move_affine), DOMF(ttwu_move_balance),
};

/* The idle-type blocks in the order each version prints them: v16
 * reordered enum cpu_idle_type (__CPU_NOT_IDLE, the busy case, first). */
static const int order_v15[VTB_SS_NIDLE] = { VTB_SS_IDLE, VTB_SS_BUSY, VTB_SS_NEWIDLE };
static const int order_v16[VTB_SS_NIDLE] = { VTB_SS_BUSY, VTB_SS_IDLE, VTB_SS_NEWIDLE };
static const char *const idle_names[VTB_SS_NIDLE] = { "busy", "idle", "newidle" };

static uint64_t *at(void *base, size_t off)
{
	return (uint64_t *)((char *)base + off);
}

static uint64_t get(const void *base, size_t off)
{
	return *(const uint64_t *)((const char *)base + off);
}

/* ------------------------------------------------------------ parsing */

struct parser {
	struct vtb_schedstat *out;
	size_t line;		 /* 1-based number of the line at hand */
	int state;		 /* 0: version next, 1: timestamp next, 2: cpus and domains */
	size_t cpu_cap, dom_cap; /* allocated: cpus, the last cpu's domains */
};

static int lerr(const struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int lerr(const struct parser *p, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return vtb_error("out of memory");
	vtb_error("schedstat line %zu: %s", p->line, msg);
	free(msg);
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool tok_is(struct tok t, const char *s)
{
	return t.n == strlen(s) && memcmp(t.s, s, t.n) == 0;
}

/* NULL with *@v set, or why @t is not a @bits-bit decimal number. */
static const char *number(struct tok t, unsigned bits, uint64_t *v)
{
	uint64_t x = 0;

	if (!t.n)
		return "is empty";
	for (size_t i = 0; i < t.n; i++) {
		unsigned d = (unsigned char)t.s[i] - '0';

		if (!is_digit(t.s[i]))
			return "is not a decimal number";
		if (x > (UINT64_MAX - d) / 10)
			return "does not fit 64 bits";
		x = x * 10 + d;
	}
	if (bits == 32 && x > UINT32_MAX)
		return "does not fit the kernel's 32 bits";
	*v = x;
	return NULL;
}

/* The N of "cpuN" or "domainN" after @skip bytes, as the kernel's %d
 * prints it (no sign, no leading zero); saturated at UINT64_MAX, which
 * every bound refuses.  -1 when it is not that. */
static int ident(struct tok t, size_t skip, uint64_t *v)
{
	uint64_t x = 0;

	if (t.n <= skip || (t.s[skip] == '0' && t.n > skip + 1))
		return -1;
	for (size_t i = skip; i < t.n; i++) {
		if (!is_digit(t.s[i]))
			return -1;
		x = x > UINT64_MAX / 10 - 1 ? UINT64_MAX : x * 10 + (uint64_t)(t.s[i] - '0');
	}
	*v = x;
	return 0;
}

/* Splits on spaces and tabs; returns the count, MAX_TOKENS kept. */
static size_t split(const char *s, size_t n, struct tok *t)
{
	size_t i = 0, count = 0;

	while (i < n) {
		size_t start;

		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n)
			break;
		start = i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		if (count < MAX_TOKENS)
			t[count] = (struct tok){ s + start, i - start };
		count++;
	}
	return count;
}

/* %*pb's text: comma-separated 32-bit words in hex, most significant
 * first, the first 1-8 digits wide, the others 8. */
static bool is_mask(struct tok t)
{
	size_t words = 1, digits = 0;

	for (size_t i = 0; i < t.n; i++) {
		char c = t.s[i];

		if (c == ',') {
			if (!digits || (words > 1 && digits != 8) || words == MASK_WORDS)
				return false;
			words++;
			digits = 0;
		} else if (is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
			if (++digits > 8)
				return false;
		} else {
			return false;
		}
	}
	return digits && (words == 1 || digits == 8);
}

static bool is_name(struct tok t)
{
	if (!t.n || t.n > VTB_SS_NAME_MAX)
		return false;
	for (size_t i = 0; i < t.n; i++) {
		char c = t.s[i];

		if (!is_digit(c) && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && c != '_')
			return false;
	}
	return true;
}

static int header_line(struct parser *p, const struct tok *t, size_t nt)
{
	struct vtb_schedstat *out = p->out;
	const char *why;
	uint64_t v;

	if (p->state == 0) {
		if (!tok_is(t[0], "version"))
			return lerr(p, "'%.*s%s' where 'version N' should be", SHOW(t[0]));
		if (nt != 2)
			return lerr(p, "the version line has %zu values, not 1", nt - 1);
		if ((why = number(t[1], 32, &v)) || v > INT_MAX)
			return lerr(p, "version '%.*s%s' %s", SHOW(t[1]),
				    why ? why : "is out of range");
		out->version = (int)v;
		if (v < 15 || v > 17)
			return lerr(p, "version %d is not supported (known: 15, 16, 17)",
				    out->version);
	} else {
		if (!tok_is(t[0], "timestamp"))
			return lerr(p, "'%.*s%s' where 'timestamp J' should be", SHOW(t[0]));
		if (nt != 2)
			return lerr(p, "the timestamp line has %zu values, not 1", nt - 1);
		if ((why = number(t[1], 64, &v)))
			return lerr(p, "timestamp '%.*s%s' %s", SHOW(t[1]), why);
		out->timestamp = v;
	}
	p->state++;
	return 0;
}

static int cpu_line(struct parser *p, const struct tok *t, size_t nt, uint64_t id)
{
	struct vtb_schedstat *out = p->out;
	struct vtb_ss_cpu *c;
	const char *why;
	uint64_t v;

	if (id >= VTB_SS_MAX_CPUS)
		return lerr(p, "cpu%.*s%s is beyond the bound of %d cpus",
			    SHOW(((struct tok){ t[0].s + 3, t[0].n - 3 })), VTB_SS_MAX_CPUS);
	if (out->n_cpus && (int)id == out->cpus[out->n_cpus - 1].cpu)
		return lerr(p, "cpu%d listed twice", (int)id);
	if (out->n_cpus && (int)id < out->cpus[out->n_cpus - 1].cpu)
		return lerr(p, "cpu%d after cpu%d: cpus out of order", (int)id,
			    out->cpus[out->n_cpus - 1].cpu);
	if (nt != 1 + VTB_ARRAY_SIZE(cpu_fields))
		return lerr(p, "cpu%d has %zu fields, version %d has %zu", (int)id, nt - 1,
			    out->version, VTB_ARRAY_SIZE(cpu_fields));
	if (out->n_cpus == p->cpu_cap) {
		size_t cap = p->cpu_cap ? p->cpu_cap * 2 : 8;
		struct vtb_ss_cpu *n = realloc(out->cpus, cap * sizeof(*n));

		if (!n)
			return vtb_error("out of memory");
		out->cpus = n;
		p->cpu_cap = cap;
	}
	c = &out->cpus[out->n_cpus];
	memset(c, 0, sizeof(*c));
	c->cpu = (int)id;
	out->n_cpus++;
	p->dom_cap = 0;
	for (size_t i = 0; i < VTB_ARRAY_SIZE(cpu_fields); i++) {
		const struct field *f = &cpu_fields[i];

		if ((why = number(t[1 + i], f->bits, &v)))
			return lerr(p, "cpu%d field %zu (%s) '%.*s%s' %s", c->cpu, i + 1, f->name,
				    SHOW(t[1 + i]), why);
		if (f->off != NOWHERE)
			*at(c, f->off) = v;
	}
	return 0;
}

static int domain_line(struct parser *p, const struct tok *t, size_t nt, uint64_t id)
{
	struct vtb_schedstat *out = p->out;
	bool v17 = out->version >= 17;
	const struct field *lb = v17 ? lb_v17 : lb_v15;
	size_t nlb = v17 ? VTB_ARRAY_SIZE(lb_v17) : VTB_ARRAY_SIZE(lb_v15);
	size_t head = v17 ? 3 : 2, want = 3 * nlb + VTB_ARRAY_SIZE(dom_tail);
	const int *order = out->version == 15 ? order_v15 : order_v16;
	struct vtb_ss_domain *d;
	struct vtb_ss_cpu *c;
	struct tok mask;
	const char *why;
	uint64_t v;

	if (!out->n_cpus)
		return lerr(p, "a domain line before any cpu line");
	c = &out->cpus[out->n_cpus - 1];
	if (c->n_domains == VTB_SS_MAX_DOMAINS)
		return lerr(p, "cpu%d has more than %d domains", c->cpu, VTB_SS_MAX_DOMAINS);
	if (id < c->n_domains)
		return lerr(p, "domain%d listed twice for cpu%d", (int)id, c->cpu);
	if (id > c->n_domains)
		return lerr(p, "domain%.*s%s of cpu%d where domain%zu should be",
			    SHOW(((struct tok){ t[0].s + 6, t[0].n - 6 })), c->cpu, c->n_domains);
	if (nt < head)
		return lerr(p, "domain%d of cpu%d has no %s", (int)id, c->cpu,
			    v17 ? "name and mask" : "mask");
	if (nt - head != want)
		return lerr(p, "domain%d of cpu%d has %zu counters, version %d has %zu", (int)id,
			    c->cpu, nt - head, out->version, want);
	if (v17 && !is_name(t[1]))
		return lerr(p, "domain%d name '%.*s%s' is not 1-%d letters, digits or '_'", (int)id,
			    SHOW(t[1]), VTB_SS_NAME_MAX);
	mask = t[head - 1];
	if (!is_mask(mask))
		return lerr(p, "domain%d mask '%.*s%s' is not a hex cpumask", (int)id, SHOW(mask));
	if (c->n_domains == p->dom_cap) {
		size_t cap = p->dom_cap ? p->dom_cap * 2 : 4;
		struct vtb_ss_domain *n = realloc(c->domains, cap * sizeof(*n));

		if (!n)
			return vtb_error("out of memory");
		c->domains = n;
		p->dom_cap = cap;
	}
	d = &c->domains[c->n_domains];
	memset(d, 0, sizeof(*d));
	d->index = (int)id;
	if (v17)
		memcpy(d->name, t[1].s, t[1].n);
	if (!(d->mask = strndup(mask.s, mask.n)))
		return vtb_error("out of memory");
	for (char *m = d->mask; *m; m++)
		if (*m >= 'A' && *m <= 'F')
			*m = (char)(*m - 'A' + 'a');
	c->n_domains++;
	for (size_t i = 0; i < want; i++) {
		const struct field *f;
		void *base;
		int type = -1;

		if (i < 3 * nlb) {
			type = order[i / nlb];
			f = &lb[i % nlb];
			base = &d->lb[type];
		} else {
			f = &dom_tail[i - 3 * nlb];
			base = d;
		}
		if ((why = number(t[head + i], f->bits, &v)))
			return lerr(p, "domain%d field %zu (%s%s%s) '%.*s%s' %s", d->index, i + 1,
				    f->name, type >= 0 ? ", " : "",
				    type >= 0 ? idle_names[type] : "", SHOW(t[head + i]), why);
		*at(base, f->off) = v;
	}
	return 0;
}

static int body_line(struct parser *p, const struct tok *t, size_t nt)
{
	uint64_t id;

	if (t[0].n >= 3 && !memcmp(t[0].s, "cpu", 3)) {
		if (ident(t[0], 3, &id))
			return lerr(p, "'%.*s%s' is not cpuN", SHOW(t[0]));
		return cpu_line(p, t, nt, id);
	}
	if (t[0].n >= 6 && !memcmp(t[0].s, "domain", 6)) {
		if (ident(t[0], 6, &id))
			return lerr(p, "'%.*s%s' is not domainN", SHOW(t[0]));
		return domain_line(p, t, nt, id);
	}
	return lerr(p, "unknown line '%.*s%s' (known: version, timestamp, cpuN, domainN)",
		    SHOW(t[0]));
}

void vtb_schedstat_release(struct vtb_schedstat *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_cpus; i++) {
		for (size_t j = 0; j < s->cpus[i].n_domains; j++)
			free(s->cpus[i].domains[j].mask);
		free(s->cpus[i].domains);
	}
	free(s->cpus);
	memset(s, 0, sizeof(*s));
}

int vtb_schedstat_parse(const char *text, size_t len, struct vtb_schedstat *out)
{
	struct parser p = { .out = out };
	struct tok t[MAX_TOKENS];
	size_t pos = 0, blank = 0;
	int version;

	memset(out, 0, sizeof(*out));
	if (len > VTB_SS_MAX_BYTES) {
		/* the line of the first byte past the bound */
		const char *s = text, *e = text + VTB_SS_MAX_BYTES;

		for (p.line = 1; (s = memchr(s, '\n', (size_t)(e - s))); s++)
			p.line++;
		return lerr(&p, "the text goes beyond %u bytes", VTB_SS_MAX_BYTES);
	}
	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos, nt;

		pos += n + (nl != NULL);
		p.line++;
		if (n > VTB_SS_MAX_LINE) {
			lerr(&p, "longer than %d bytes", VTB_SS_MAX_LINE);
			goto fail;
		}
		if (memchr(s, '\0', n)) {
			lerr(&p, "holds a NUL byte");
			goto fail;
		}
		nt = split(s, n, t);
		if (!nt) {
			blank = blank ? blank : p.line;
			continue;
		}
		if (blank) {
			lerr(&p, "text after the blank line %zu", blank);
			goto fail;
		}
		if (p.state < 2 ? header_line(&p, t, nt) : body_line(&p, t, nt))
			goto fail;
	}
	p.line++;
	if (p.state < 2 || !out->n_cpus) {
		lerr(&p, "the text ends before %s",
		     p.state == 0 ? "the version line"
				  : (p.state == 1 ? "the timestamp line" : "any cpu line"));
		goto fail;
	}
	return 0;
fail:
	version = out->version;
	vtb_schedstat_release(out);
	out->version = version;
	return -1;
}

int vtb_schedstat_read(const char *root, struct vtb_schedstat *out)
{
	char *path = vtb_gv_path(root, "/proc/schedstat");
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	char buf[65536];
	int fd = -1, ret = -1;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	if (!path)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		vtb_error("cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	/* one byte past the bound is enough for the parser to name the line */
	while (sb.len <= VTB_SS_MAX_BYTES) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			vtb_error("cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (vtb_strbuf_add(&sb, buf, (size_t)n))
			goto out;
	}
	ret = vtb_schedstat_parse(sb.buf ? sb.buf : "", sb.len, out);
	if (ret)
		vtb_error("%s: %s", path, vtb_errmsg());
out:
	if (fd >= 0)
		close(fd);
	vtb_strbuf_release(&sb);
	free(path);
	return ret;
}

/* ------------------------------------------------------------ difference */

static int note(json_t *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int note(json_t *notes, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int ret;

	if (!notes)
		return 0;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	ret = msg ? json_array_append_new(notes, json_string(msg)) : -1;
	free(msg);
	return ret ? vtb_error("out of memory") : 0;
}

/* @d = @b - @a over @n fields: 32-bit ones modulo 2^32.  The first
 * 64-bit field that went back, or NULL. */
static const struct field *sub(const void *a, const void *b, void *d, const struct field *f,
			       size_t n)
{
	const struct field *back = NULL;

	for (size_t i = 0; i < n; i++) {
		uint64_t x, y;

		if (f[i].off == NOWHERE)
			continue;
		x = get(a, f[i].off);
		y = get(b, f[i].off);
		if (f[i].bits == 32)
			*at(d, f[i].off) = (y - x) & UINT32_MAX;
		else if (y < x && !back)
			back = &f[i];
		else
			*at(d, f[i].off) = y - x;
	}
	return back;
}

/* Why the domain lines of @a and @b differ (malloc'ed), "" when they do
 * not; NULL on ENOMEM. */
static char *rebuilt(const struct vtb_ss_cpu *a, const struct vtb_ss_cpu *b)
{
	size_t n = a->n_domains < b->n_domains ? a->n_domains : b->n_domains;

	for (size_t i = 0; i < n; i++) {
		const struct vtb_ss_domain *x = &a->domains[i], *y = &b->domains[i];

		if (strcmp(x->name, y->name))
			return vtb_asprintf("domain%zu was %s, is %s", i, x->name, y->name);
		if (strcmp(x->mask, y->mask))
			return vtb_asprintf("domain%zu mask %s before, %s after", i, x->mask,
					    y->mask);
	}
	if (a->n_domains != b->n_domains)
		return vtb_asprintf("%zu domains before, %zu after", a->n_domains, b->n_domains);
	return strdup("");
}

static bool ascending(const struct vtb_schedstat *s)
{
	for (size_t i = 1; i < s->n_cpus; i++)
		if (s->cpus[i].cpu <= s->cpus[i - 1].cpu)
			return false;
	return true;
}

/* The difference of one cpu in both snapshots into @d (zeroed): 1 when
 * it is left out (noted), -1 on ENOMEM. */
static int diff_cpu(const struct vtb_ss_cpu *a, const struct vtb_ss_cpu *b, struct vtb_ss_cpu *d,
		    json_t *notes)
{
	const struct field *back;
	char *why;

	d->cpu = b->cpu;
	back = sub(a, b, d, cpu_fields, VTB_ARRAY_SIZE(cpu_fields));
	if (back)
		return note(notes,
			    "cpu %d: %s went back (%" PRIu64 " before, %" PRIu64
			    " after): counters reset, left out",
			    b->cpu, back->name, get(a, back->off), get(b, back->off))
			       ? -1
			       : 1;
	if (!(why = rebuilt(a, b)))
		return vtb_error("out of memory");
	if (*why) {
		int ret = note(notes,
			       "cpu %d: sched domains rebuilt (%s): its domain counters left out",
			       b->cpu, why);

		free(why);
		return ret;
	}
	free(why);
	if (!b->n_domains)
		return 0;
	if (!(d->domains = calloc(b->n_domains, sizeof(*d->domains))))
		return vtb_error("out of memory");
	for (size_t j = 0; j < b->n_domains; j++) {
		const struct vtb_ss_domain *x = &a->domains[j], *y = &b->domains[j];
		struct vtb_ss_domain *z = &d->domains[j];

		z->index = y->index;
		memcpy(z->name, y->name, sizeof(z->name));
		if (!(z->mask = strdup(y->mask)))
			return vtb_error("out of memory");
		d->n_domains++;
		for (int k = 0; k < VTB_SS_NIDLE; k++)
			sub(&x->lb[k], &y->lb[k], &z->lb[k], lb_all, VTB_ARRAY_SIZE(lb_all));
		sub(x, y, z, dom_tail, VTB_ARRAY_SIZE(dom_tail));
	}
	return 0;
}

int vtb_schedstat_diff(const struct vtb_schedstat *before, const struct vtb_schedstat *after,
		       struct vtb_schedstat *diff, json_t **notes)
{
	json_t *nt = NULL;
	size_t i = 0, j = 0;
	int ret = -1;

	memset(diff, 0, sizeof(*diff));
	if (notes && !(*notes = nt = json_array()))
		return vtb_error("out of memory");
	if (before->version != after->version) {
		vtb_error("schedstat versions differ: %d before, %d after", before->version,
			  after->version);
		goto out;
	}
	if (!ascending(before) || !ascending(after)) {
		vtb_error("schedstat cpus are not in ascending order");
		goto out;
	}
	diff->version = after->version;
	if (after->timestamp >= before->timestamp) {
		diff->timestamp = after->timestamp - before->timestamp;
	} else if (before->timestamp <= UINT32_MAX) {
		/* a 32-bit kernel's jiffies wrap 5 minutes after boot */
		diff->timestamp = (after->timestamp - before->timestamp) & UINT32_MAX;
	} else {
		vtb_error("schedstat timestamp went back from %" PRIu64 " to %" PRIu64
			  ": not one boot",
			  before->timestamp, after->timestamp);
		goto out;
	}
	if (after->n_cpus && !(diff->cpus = calloc(after->n_cpus, sizeof(*diff->cpus)))) {
		vtb_error("out of memory");
		goto out;
	}
	while (i < before->n_cpus || j < after->n_cpus) {
		const struct vtb_ss_cpu *a = i < before->n_cpus ? &before->cpus[i] : NULL;
		const struct vtb_ss_cpu *b = j < after->n_cpus ? &after->cpus[j] : NULL;
		int r;

		if (a && (!b || a->cpu < b->cpu)) {
			if (note(nt, "cpu %d present before, not after: left out", a->cpu))
				goto out;
			i++;
		} else if (b && (!a || b->cpu < a->cpu)) {
			if (note(nt, "cpu %d present after, not before: left out", b->cpu))
				goto out;
			j++;
		} else {
			struct vtb_ss_cpu *d = &diff->cpus[diff->n_cpus];

			/* counted at once: a failure below releases what it holds */
			diff->n_cpus++;
			r = diff_cpu(a, b, d, nt);
			if (r < 0)
				goto out;
			if (r > 0) {
				diff->n_cpus--;
				memset(d, 0, sizeof(*d));
			}
			i++;
			j++;
		}
	}
	ret = 0;
out:
	if (ret) {
		vtb_schedstat_release(diff);
		if (notes) {
			json_decref(nt);
			*notes = NULL;
		}
	}
	return ret;
}

/* ------------------------------------------------------------ JSON */

/* A JSON key and the counter it shows. */
struct jkey {
	const char *key;
	size_t off;
};

/* clang-format off */
#define LBK(k, f) { k, offsetof(struct vtb_ss_lb, f) }
#define DK(k, f) { k, offsetof(struct vtb_ss_domain, f) }
#define CK(k, f) { k, offsetof(struct vtb_ss_cpu, f) }
/* clang-format on */
static const struct jkey lbk_v15[] = {
	LBK("count", count),	     LBK("balanced", balanced), LBK("failed", failed),
	LBK("imbalance", imbalance), LBK("gained", gained),	LBK("hot_gained", hot_gained),
	LBK("nobusyq", nobusyq),     LBK("nobusyg", nobusyg),
};
static const struct jkey lbk_v17[] = {
	LBK("count", count),	       LBK("balanced", balanced), LBK("failed", failed),
	LBK("imb_load", imb_load),     LBK("imb_util", imb_util), LBK("imb_task", imb_task),
	LBK("imb_misfit", imb_misfit), LBK("gained", gained),	  LBK("hot_gained", hot_gained),
	LBK("nobusyq", nobusyq),       LBK("nobusyg", nobusyg),
};
static const struct jkey alb_k[] = { DK("count", alb_count), DK("failed", alb_failed),
				     DK("pushed", alb_pushed) };
static const struct jkey sbe_k[] = { DK("count", sbe_count), DK("balanced", sbe_balanced),
				     DK("pushed", sbe_pushed) };
static const struct jkey sbf_k[] = { DK("count", sbf_count), DK("balanced", sbf_balanced),
				     DK("pushed", sbf_pushed) };
static const struct jkey ttwu_k[] = { DK("remote", ttwu_wake_remote),
				      DK("affine", ttwu_move_affine),
				      DK("balance", ttwu_move_balance) };
static const struct jkey cpu_k[] = {
	CK("yield", yld_count),	  CK("sched", sched_count),	CK("goidle", sched_goidle),
	CK("ttwu", ttwu_count),	  CK("ttwu_local", ttwu_local), CK("run_ns", rq_cpu_time),
	CK("wait_ns", run_delay), CK("slices", pcount),
};

/* Sets @k to @v (stolen, also when the set fails); -1 when @v is NULL
 * (ENOMEM) or the set fails. */
static int put(json_t *o, const char *k, json_t *v)
{
	if (!v || json_object_set_new(o, k, v))
		return -1;
	return 0;
}

/* Sets @n counters of @base in @o; -1 with vtb_error() naming @what
 * ("cpu 3", "level MC lb.busy") and the key. */
static int counters_in(json_t *o, const void *base, const struct jkey *k, size_t n,
		       const char *what)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = get(base, k[i].off);

		if (v > INT64_MAX)
			return vtb_error("schedstat %s %s %" PRIu64 " is beyond INT64_MAX", what,
					 k[i].key, v);
		if (put(o, k[i].key, json_integer((json_int_t)v)))
			return vtb_error("out of memory");
	}
	return 0;
}

/* An object of @n counters of @base; NULL with vtb_error(). */
static json_t *counters(const void *base, const struct jkey *k, size_t n, const char *what)
{
	json_t *o = json_object();

	if (!o) {
		vtb_error("out of memory");
		return NULL;
	}
	if (counters_in(o, base, k, n, what)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* One (cpu, domain) of the difference under its level name. */
struct entry {
	/* a valid name with "_N" after it, or "domainN": room for any int */
	char name[VTB_SS_NAME_MAX + 16];
	int index, cpu;
	const struct vtb_ss_domain *d;
};

/* One level: entries [first, first + n) of the sorted array. */
struct level {
	const char *name;
	size_t first, n, cpus;
	int min_index, max_index;
};

static int cmp_int(int a, int b)
{
	return (a > b) - (a < b);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	c = cmp_int(x->cpu, y->cpu);
	return c ? c : cmp_int(x->index, y->index);
}

static int cmp_level(const void *a, const void *b)
{
	const struct level *x = a, *y = b;
	int c = cmp_int(x->min_index, y->min_index);

	if (!c)
		c = cmp_int(x->max_index, y->max_index);
	return c ? c : strcmp(x->name, y->name);
}

static void add_to(uint64_t *sum, uint64_t v)
{
	if (__builtin_add_overflow(*sum, v, sum))
		*sum = UINT64_MAX; /* beyond INT64_MAX: refused when shown */
}

static json_t *level_json(int version, const struct entry *e, const struct level *l)
{
	static const struct {
		const char *key;
		const struct jkey *k;
		size_t n;
	} parts[] = {
		{ "alb", alb_k, VTB_ARRAY_SIZE(alb_k) },
		{ "sbe", sbe_k, VTB_ARRAY_SIZE(sbe_k) },
		{ "sbf", sbf_k, VTB_ARRAY_SIZE(sbf_k) },
		{ "ttwu", ttwu_k, VTB_ARRAY_SIZE(ttwu_k) },
	};
	const struct jkey *lbk = version >= 17 ? lbk_v17 : lbk_v15;
	size_t nlbk = version >= 17 ? VTB_ARRAY_SIZE(lbk_v17) : VTB_ARRAY_SIZE(lbk_v15);
	struct vtb_ss_domain s;
	json_t *o = json_object(), *lb;
	/* "level NAME lb.newidle", NAME as long as an entry's: never cut */
	char what[sizeof(e->name) + 32];

	memset(&s, 0, sizeof(s));
	for (size_t i = l->first; i < l->first + l->n; i++) {
		for (int k = 0; k < VTB_SS_NIDLE; k++)
			for (size_t f = 0; f < VTB_ARRAY_SIZE(lb_all); f++)
				add_to(at(&s.lb[k], lb_all[f].off),
				       get(&e[i].d->lb[k], lb_all[f].off));
		for (size_t f = 0; f < VTB_ARRAY_SIZE(dom_tail); f++)
			add_to(at(&s, dom_tail[f].off), get(e[i].d, dom_tail[f].off));
	}
	if (!o || put(o, "level", json_string(l->name)) ||
	    put(o, "cpus", json_integer((json_int_t)l->cpus)) || put(o, "lb", json_object()))
		goto oom;
	lb = json_object_get(o, "lb");
	for (int k = 0; k < VTB_SS_NIDLE; k++) {
		json_t *c;

		snprintf(what, sizeof(what), "level %.*s lb.%s", (int)sizeof(e->name), l->name,
			 idle_names[k]);
		c = counters(&s.lb[k], lbk, nlbk, what);
		if (!c)
			goto fail;
		if (put(lb, idle_names[k], c))
			goto oom;
	}
	for (size_t i = 0; i < VTB_ARRAY_SIZE(parts); i++) {
		json_t *c;

		snprintf(what, sizeof(what), "level %.*s %s", (int)sizeof(e->name), l->name,
			 parts[i].key);
		c = counters(&s, parts[i].k, parts[i].n, what);
		if (!c)
			goto fail;
		if (put(o, parts[i].key, c))
			goto oom;
	}
	return o;
oom:
	vtb_error("out of memory");
fail:
	json_decref(o);
	return NULL;
}

/* The entries of @diff's domains under their level names, unsorted, in
 * *@n; NULL with vtb_error(). */
static struct entry *entries(const struct vtb_schedstat *diff,
			     const char *(*name)(int cpu, int dom, void *arg), void *arg, size_t *n)
{
	size_t total = 0, ne = 0;
	struct entry *e;

	*n = 0;
	for (size_t i = 0; i < diff->n_cpus; i++) {
		if (diff->cpus[i].n_domains > VTB_SS_MAX_DOMAINS) {
			vtb_error("schedstat cpu %d has more than %d domains", diff->cpus[i].cpu,
				  VTB_SS_MAX_DOMAINS);
			return NULL;
		}
		total += diff->cpus[i].n_domains;
	}
	if (!(e = calloc(total ? total : 1, sizeof(*e)))) {
		vtb_error("out of memory");
		return NULL;
	}
	for (size_t i = 0; i < diff->n_cpus; i++) {
		const struct vtb_ss_cpu *c = &diff->cpus[i];
		/* this cpu's level names so far, "" for domainN */
		char bases[VTB_SS_MAX_DOMAINS][VTB_SS_NAME_MAX + 1];

		for (size_t j = 0; j < c->n_domains; j++, ne++) {
			const struct vtb_ss_domain *d = &c->domains[j];
			const char *base = diff->version >= 17 ? d->name
					   : name	       ? name(c->cpu, d->index, arg)
							       : NULL;
			size_t len = base ? strnlen(base, VTB_SS_NAME_MAX + 1) : 0;
			int same = 0;

			e[ne].index = d->index;
			e[ne].cpu = c->cpu;
			e[ne].d = d;
			bases[j][0] = '\0';
			if (!len) {
				snprintf(e[ne].name, sizeof(e[ne].name), "domain%d", d->index);
				continue;
			}
			if (!is_name((struct tok){ base, len })) {
				vtb_error("schedstat cpu %d domain%d: level name '%.*s' is not 1-%d "
					  "letters, digits or '_'",
					  c->cpu, d->index, SHOW_MAX, base, VTB_SS_NAME_MAX);
				free(e);
				return NULL;
			}
			memcpy(bases[j], base, len);
			bases[j][len] = '\0';
			/* the kernel names every NUMA level "NUMA": the kth is NUMA_k */
			for (size_t k = 0; k < j; k++)
				same += !strcmp(bases[k], bases[j]);
			if (same)
				snprintf(e[ne].name, sizeof(e[ne].name), "%.*s_%d", VTB_SS_NAME_MAX,
					 bases[j], same + 1);
			else
				memcpy(e[ne].name, bases[j], len + 1);
		}
	}
	*n = ne;
	return e;
}

json_t *vtb_schedstat_json(const struct vtb_schedstat *diff,
			   const char *(*name)(int cpu, int dom, void *arg), void *arg)
{
	json_t *root = NULL, *levels = NULL, *cpus = NULL;
	struct level *lv = NULL;
	size_t ne = 0, nl = 0;
	struct entry *e;

	if (!(e = entries(diff, name, arg, &ne)))
		return NULL;
	qsort(e, ne, sizeof(*e), cmp_entry);
	if (!(lv = calloc(ne ? ne : 1, sizeof(*lv))))
		goto oom;
	for (size_t i = 0; i < ne; i++) {
		struct level *l = nl ? &lv[nl - 1] : NULL;

		if (!l || strcmp(l->name, e[i].name)) {
			l = &lv[nl++];
			*l = (struct level){ .name = e[i].name,
					     .first = i,
					     .min_index = e[i].index,
					     .max_index = e[i].index };
		}
		/* sorted by cpu within a name: a new cpu is counted once */
		l->cpus += !l->n || e[i - 1].cpu != e[i].cpu;
		l->n++;
		l->min_index = e[i].index < l->min_index ? e[i].index : l->min_index;
		l->max_index = e[i].index > l->max_index ? e[i].index : l->max_index;
	}
	qsort(lv, nl, sizeof(*lv), cmp_level);
	if (!(root = json_object()) || put(root, "version", json_integer(diff->version)) ||
	    put(root, "levels", levels = json_array()) || put(root, "cpus", cpus = json_array()))
		goto oom;
	for (size_t i = 0; i < nl; i++) {
		json_t *o = level_json(diff->version, e, &lv[i]);

		if (!o)
			goto fail;
		if (json_array_append_new(levels, o))
			goto oom;
	}
	for (size_t i = 0; i < diff->n_cpus; i++) {
		const struct vtb_ss_cpu *c = &diff->cpus[i];
		json_t *o = json_object();
		char what[32];

		if (!o || json_array_append_new(cpus, o) || put(o, "cpu", json_integer(c->cpu)))
			goto oom;
		snprintf(what, sizeof(what), "cpu %d", c->cpu);
		if (counters_in(o, c, cpu_k, VTB_ARRAY_SIZE(cpu_k), what))
			goto fail;
	}
	free(lv);
	free(e);
	return root;
oom:
	vtb_error("out of memory");
fail:
	json_decref(root);
	free(lv);
	free(e);
	return NULL;
}
