/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers: the error slot, growable strings, unit parsing, CPU
 * lists, CRC-32 and random ids.  Used by the static agent and the harness,
 * so it depends on libc only.
 */
#include "vtbutil.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static _Thread_local struct vtb_strbuf errslot;

int vtb_verror(const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	vtb_strbuf_release(&errslot);
	if (msg) {
		errslot.buf = msg;
		errslot.len = strlen(msg);
		errslot.alloc = errslot.len + 1;
	}
	return -1;
}

int vtb_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtb_verror(fmt, ap);
	va_end(ap);
	return -1;
}

const char *vtb_errmsg(void)
{
	return errslot.buf ? errslot.buf : "out of memory";
}

void vtb_error_clear(void)
{
	vtb_strbuf_release(&errslot);
}

static int strbuf_grow(struct vtb_strbuf *sb, size_t extra)
{
	size_t need, alloc;
	char *p;

	if (extra > SIZE_MAX - sb->len - 1)
		return -1;
	need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return 0;
	alloc = sb->alloc ? sb->alloc : 64;
	while (alloc < need)
		alloc = alloc > SIZE_MAX / 2 ? need : alloc * 2;
	p = realloc(sb->buf, alloc);
	if (!p)
		return -1;
	sb->buf = p;
	sb->alloc = alloc;
	return 0;
}

int vtb_strbuf_add(struct vtb_strbuf *sb, const char *s, size_t n)
{
	if (strbuf_grow(sb, n))
		return vtb_error("out of memory");
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
	return 0;
}

int vtb_strbuf_addstr(struct vtb_strbuf *sb, const char *s)
{
	return vtb_strbuf_add(sb, s, strlen(s));
}

int vtb_strbuf_addf(struct vtb_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return vtb_error("bad format");
	if (strbuf_grow(sb, (size_t)n))
		return vtb_error("out of memory");
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return 0;
}

const char *vtb_strbuf_str(const struct vtb_strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

char *vtb_strbuf_detach(struct vtb_strbuf *sb)
{
	char *p = sb->buf ? sb->buf : strdup("");

	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return p;
}

void vtb_strbuf_release(struct vtb_strbuf *sb)
{
	if (!sb)
		return;
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

char *vtb_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *vtb_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : p;
}

/* Splits "12.5ms" into a non-negative number and its suffix. */
static int split_number(const char *s, double *num, const char **suffix, const char *what)
{
	char *end;

	if (!s || !*s)
		return vtb_error("empty %s", what);
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s) && *s != '.')
		return vtb_error("bad %s '%s': expected a non-negative number", what, s);
	/* decimal only: strtod also reads hex floats ("0x1p30") */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return vtb_error("bad %s '%s': hexadecimal numbers are not accepted", what, s);
	errno = 0;
	*num = strtod(s, &end);
	if (errno || end == s || !isfinite(*num) || *num < 0)
		return vtb_error("bad %s '%s'", what, s);
	*suffix = end;
	return 0;
}

static bool suffix_is(const char *got, const char *want)
{
	size_t n = strlen(want);

	if (strncasecmp(got, want, n))
		return false;
	got += n;
	while (isspace((unsigned char)*got))
		got++;
	return *got == '\0';
}

int vtb_parse_time_ns(const char *s, uint64_t *out_ns)
{
	static const struct {
		const char *sfx;
		double mult;
	} units[] = {
		{ "ns", 1 },   { "us", 1e3 },	{ "ms", 1e6 },	 { "s", 1e9 },
		{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 }, { "", 1e9 },
	};
	const char *sfx;
	double num, v;
	size_t i;

	if (split_number(s, &num, &sfx, "time"))
		return -1;
	for (i = 0; i < VTB_ARRAY_SIZE(units); i++) {
		if (!suffix_is(sfx, units[i].sfx))
			continue;
		v = round(num * units[i].mult);
		/* kept below 2^63 ns (292 years) so it fits every signed use */
		if (v >= 9223372036854775808.0)
			return vtb_error("time '%s' is too large", s);
		*out_ns = (uint64_t)v;
		return 0;
	}
	return vtb_error(
		"bad time unit in '%s': expected ns, us, ms, s, m or h (a bare number means seconds)",
		s);
}

bool vtb_time_is_bare(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return n && (isdigit((unsigned char)s[n - 1]) || s[n - 1] == '.');
}

int vtb_parse_size(const char *s, uint64_t *out_bytes)
{
	static const char units[] = "KMGTPE";
	const char *sfx, *p;
	double num, mult = 1, v;

	if (split_number(s, &num, &sfx, "size"))
		return -1;
	while (isspace((unsigned char)*sfx))
		sfx++;
	if (*sfx && *sfx != 'B' && *sfx != 'b') {
		p = strchr(units, toupper((unsigned char)*sfx));
		if (!p)
			goto bad;
		mult = ldexp(1.0, 10 * (int)(p - units + 1));
		sfx++;
		if (*sfx == 'i' || *sfx == 'I')
			sfx++;
	}
	if (*sfx == 'B' || *sfx == 'b')
		sfx++;
	if (*sfx)
		goto bad;
	v = num * mult;
	if (v >= 18446744073709551615.0)
		return vtb_error("size '%s' is too large", s);
	if (v != floor(v))
		return vtb_error("size '%s' is not a whole number of bytes", s);
	*out_bytes = (uint64_t)v;
	return 0;
bad:
	return vtb_error("bad size unit in '%s': expected K, M, G or T", s);
}

int vtb_parse_int(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return vtb_error("empty number");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return vtb_error("number '%s' is out of range", s);
	while (end != s && isspace((unsigned char)*end))
		end++;
	if (errno || end == s || *end)
		return vtb_error("bad number '%s'", s);
	if (v < min || v > max)
		return vtb_error("%lld is out of range [%lld, %lld]", v, min, max);
	*out = v;
	return 0;
}

int vtb_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; s && i < VTB_ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return vtb_error("bad boolean '%s': expected yes or no", s ? s : "");
}

char *vtb_format_time_ns(uint64_t ns)
{
	uint64_t s = ns / 1000000000u;

	if (ns < 1000)
		return vtb_asprintf("%" PRIu64 "ns", ns);
	if (ns < 1000000)
		return vtb_asprintf("%.4gus", ns / 1e3);
	if (ns < 1000000000)
		return vtb_asprintf("%.4gms", ns / 1e6);
	if (ns < 60000000000u || ns % 1000000000u)
		return vtb_asprintf("%.4gs", ns / 1e9);
	/* whole seconds from a minute up: 2m, 1h30m, 1h0m5s */
	if (s < 3600)
		return s % 60 ? vtb_asprintf("%" PRIu64 "m%" PRIu64 "s", s / 60, s % 60)
			      : vtb_asprintf("%" PRIu64 "m", s / 60);
	if (s % 60)
		return vtb_asprintf("%" PRIu64 "h%" PRIu64 "m%" PRIu64 "s", s / 3600, s / 60 % 60,
				    s % 60);
	return s % 3600 ? vtb_asprintf("%" PRIu64 "h%" PRIu64 "m", s / 3600, s / 60 % 60)
			: vtb_asprintf("%" PRIu64 "h", s / 3600);
}

char *vtb_format_size(uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t i = 0;

	while (v >= 1024 && i + 1 < VTB_ARRAY_SIZE(units)) {
		v /= 1024;
		i++;
	}
	if (v == floor(v))
		return vtb_asprintf("%.0f%s", v, units[i]);
	return vtb_asprintf("%.1f%s", v, units[i]);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int vtb_cpuset_add(struct vtb_cpuset *set, int cpu)
{
	int *p;

	bool append = !set->n || cpu > set->cpus[set->n - 1];

	if (!append && vtb_cpuset_has(set, cpu))
		return 0;
	p = realloc(set->cpus, (set->n + 1) * sizeof(*p));
	if (!p)
		return vtb_error("out of memory");
	set->cpus = p;
	set->cpus[set->n++] = cpu;
	/* ranges add CPUs in order: sort only when one comes out of order */
	if (!append)
		qsort(set->cpus, set->n, sizeof(*p), cmp_int);
	return 0;
}

bool vtb_cpuset_has(const struct vtb_cpuset *set, int cpu)
{
	return set->n && bsearch(&cpu, set->cpus, set->n, sizeof(int), cmp_int);
}

bool vtb_cpuset_equal(const struct vtb_cpuset *a, const struct vtb_cpuset *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->cpus, b->cpus, a->n * sizeof(*a->cpus)));
}

void vtb_cpuset_release(struct vtb_cpuset *set)
{
	if (!set)
		return;
	free(set->cpus);
	set->cpus = NULL;
	set->n = 0;
}

#define VTB_MAX_CPU 65535

int vtb_cpuset_parse(const char *s, struct vtb_cpuset *out)
{
	struct vtb_cpuset set = { NULL, 0 };
	const char *p = s;
	char *end;
	long a, b;

	if (!s)
		return vtb_error("empty CPU list");
	while (isspace((unsigned char)*p))
		p++;
	while (*p) {
		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			b = strtol(p, &end, 10);
			p = end;
		}
		if (a > b || b > VTB_MAX_CPU)
			goto bad;
		for (long c = a; c <= b; c++) {
			if (vtb_cpuset_add(&set, (int)c))
				goto err;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (*p == ',') {
			p++;
			while (isspace((unsigned char)*p))
				p++;
			if (!*p)
				goto bad;
		} else if (*p) {
			goto bad;
		}
	}
	vtb_cpuset_release(out);
	*out = set;
	return 0;
bad:
	vtb_error("bad CPU list '%s': expected e.g. 0-3,8,10-11", s);
err:
	vtb_cpuset_release(&set);
	return -1;
}

char *vtb_cpuset_format(const struct vtb_cpuset *set)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	size_t i = 0, j;

	if (vtb_strbuf_addstr(&sb, ""))
		return NULL;
	while (i < set->n) {
		j = i;
		while (j + 1 < set->n && set->cpus[j + 1] == set->cpus[j] + 1)
			j++;
		if (vtb_strbuf_addf(&sb, "%s%d", i ? "," : "", set->cpus[i]) ||
		    (j > i && vtb_strbuf_addf(&sb, "-%d", set->cpus[j]))) {
			vtb_strbuf_release(&sb);
			return NULL;
		}
		i = j + 1;
	}
	return vtb_strbuf_detach(&sb);
}

uint64_t vtb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

char *vtb_read_file(const char *path, size_t max_bytes)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;
	char buf[4096];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		vtb_error("cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (vtb_strbuf_addstr(&sb, ""))
		goto err;
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			vtb_error("cannot read '%s': %s", path, strerror(errno));
			goto err;
		}
		if (n == 0)
			break;
		if (sb.len + (size_t)n > max_bytes) {
			vtb_error("'%s' is larger than %zu bytes", path, max_bytes);
			goto err;
		}
		if (vtb_strbuf_add(&sb, buf, (size_t)n))
			goto err;
	}
	close(fd);
	while (sb.len && sb.buf[sb.len - 1] == '\n')
		sb.buf[--sb.len] = '\0';
	return vtb_strbuf_detach(&sb);
err:
	close(fd);
	vtb_strbuf_release(&sb);
	return NULL;
}

uint32_t vtb_crc32(const void *buf, size_t len)
{
	static uint32_t table[256];
	static _Atomic int ready;
	const unsigned char *p = buf;
	uint32_t crc = 0xffffffffu;

	if (!ready) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		ready = 1;
	}
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc ^ 0xffffffffu;
}

int vtb_random_bytes(void *buf, size_t n)
{
	unsigned char *p = buf;
	ssize_t got;

	while (n) {
		got = getrandom(p, n, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return vtb_error("getrandom failed: %s", strerror(errno));
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

int vtb_random_hex(char *out, size_t nbytes)
{
	unsigned char b[64];
	size_t i;

	if (nbytes > sizeof(b))
		return vtb_error("random_hex: %zu bytes requested, at most %zu", nbytes, sizeof(b));
	if (vtb_random_bytes(b, nbytes))
		return -1;
	for (i = 0; i < nbytes; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	out[2 * nbytes] = '\0';
	return 0;
}

int vtb_uuid(char out[37])
{
	unsigned char b[16];

	if (vtb_random_bytes(b, sizeof(b)))
		return -1;
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
	return 0;
}

int vtb_mkdir_p(const char *path, unsigned mode, bool exact)
{
	char *p = vtb_strdup(path);
	struct stat st;
	int ret = -1;

	if (!p)
		return vtb_error("out of memory");
	if (!*p) {
		free(p);
		return vtb_error("empty directory name");
	}
	for (char *s = p + 1;; s++) {
		bool last = *s == '\0';

		if (*s != '/' && !last)
			continue;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) == 0) {
			if (exact && chmod(p, (mode_t)mode)) {
				vtb_error("cannot set the mode of '%s': %s", p, strerror(errno));
				goto out;
			}
		} else if (errno != EEXIST) {
			vtb_error("cannot create directory '%s': %s", p, strerror(errno));
			goto out;
		}
		if (last)
			break;
		*s = '/';
	}
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		vtb_error("'%s' is not a directory", path);
		goto out;
	}
	ret = 0;
out:
	free(p);
	return ret;
}

const char *vtb_file_kind(unsigned mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "not a regular file";
}

/* ---- UTF-8 and the terminal ---- */

size_t vtb_utf8_char(const char *s, size_t n, bool *truncated)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t k, j;

	if (truncated)
		*truncated = false;
	if (!n)
		return 0;
	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		k = 1;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		k = 2;
		if (u[0] == 0xe0)
			lo = 0xa0; /* overlong below U+0800 */
		else if (u[0] == 0xed)
			hi = 0x9f; /* surrogates U+D800-U+DFFF */
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		k = 3;
		if (u[0] == 0xf0)
			lo = 0x90; /* overlong below U+10000 */
		else if (u[0] == 0xf4)
			hi = 0x8f; /* above U+10FFFF */
	} else {
		return 0; /* a continuation byte, C0/C1 (overlong), F5-FF */
	}
	for (j = 1; j <= k; j++) {
		if (j >= n) {
			if (truncated)
				*truncated = true;
			return 0;
		}
		if (u[j] < (j == 1 ? lo : 0x80) || u[j] > (j == 1 ? hi : 0xbf))
			return 0;
	}
	return k + 1;
}

bool vtb_utf8_valid(const char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		if ((unsigned char)s[i] < 0x80) { /* ASCII: most text */
			i++;
			continue;
		}
		k = vtb_utf8_char(s + i, n - i, NULL);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

size_t vtb_utf8_cut(const char *s, size_t n, size_t max)
{
	size_t cut = n < max ? n : max;

	/* back off continuation bytes: at most three */
	for (size_t i = 0; cut < n && i < 3 && cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80;
	     i++)
		cut--;
	return cut;
}

/* The code point of the valid @k-byte character at @u. */
static uint32_t utf8_cp(const unsigned char *u, size_t k)
{
	uint32_t v = k == 1 ? u[0] : k == 2 ? u[0] & 0x1fu : k == 3 ? u[0] & 0x0fu : u[0] & 0x07u;

	for (size_t i = 1; i < k; i++)
		v = v << 6 | (u[i] & 0x3fu);
	return v;
}

/* Code points that move the cursor or reorder text: C1 controls, line and
 * paragraph separators, bidirectional overrides and isolates. */
static bool invisible_control(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

int vtb_term_escape(struct vtb_strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(s), i = 0, run = 0;

	while (i < n) {
		const unsigned char *u = (const unsigned char *)s + i;
		size_t k = vtb_utf8_char(s + i, n - i, NULL);
		char e[16] = "";

		if (*u == '\t')
			strcpy(e, "\\t");
		else if (*u == '\n')
			strcpy(e, "\\n");
		else if (*u == '\r')
			strcpy(e, "\\r");
		else if (*u == '\\')
			strcpy(e, "\\\\");
		else if (*u < 0x20 || *u == 0x7f || !k)
			e[0] = '\\', e[1] = 'x', e[2] = hex[*u >> 4], e[3] = hex[*u & 15], e[4] = 0;
		else if (k > 1 && invisible_control(utf8_cp(u, k)))
			snprintf(e, sizeof(e), "\\u%04x", (unsigned)utf8_cp(u, k));
		if (!e[0]) {
			i += k;
			run += k;
			continue;
		}
		if (run && vtb_strbuf_add(sb, s + i - run, run))
			return -1;
		run = 0;
		if (vtb_strbuf_addstr(sb, e))
			return -1;
		/* a byte that is not UTF-8 is shown alone: what follows may
		 * be text again */
		i += k ? k : 1;
	}
	if (run && vtb_strbuf_add(sb, s + i - run, run))
		return -1;
	return vtb_strbuf_add(sb, "", 0);
}

char *vtb_term_safe(const char *s)
{
	struct vtb_strbuf sb = VTB_STRBUF_INIT;

	if (vtb_term_escape(&sb, s ? s : "")) {
		vtb_strbuf_release(&sb);
		return NULL;
	}
	return vtb_strbuf_detach(&sb);
}

int vtb_term_fputs(const char *s, FILE *f)
{
	char *t = vtb_term_safe(s);
	int r;

	if (!t)
		return fputs("(out of memory)", f);
	r = fputs(t, f);
	free(t);
	return r;
}
