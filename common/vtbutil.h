/* SPDX-License-Identifier: MIT */
/*
 * Small helpers shared by the agent and the harness: unit parsing, CPU
 * lists, growable strings and error messages.  Nothing here exits or
 * prints: functions return 0 / negative (or NULL) and leave a message in
 * a caller-supplied buffer or in the per-thread error slot (vtb_error()).
 */
#ifndef VTB_UTIL_H
#define VTB_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define VTB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Error slot.  vtb_error() formats a message into a thread-local buffer
 * (never truncated: it is heap-grown) and returns -1 so callers can write
 * `ret = vtb_error("cannot open '%s': %s", path, strerror(errno));`.
 * vtb_errmsg() returns the last message ("" if none); it stays owned by
 * the slot and is valid until the next vtb_error() on this thread.
 */
int vtb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vtb_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
const char *vtb_errmsg(void);
void vtb_error_clear(void);

/* Growable NUL-terminated string.  Zero-initialise (VTB_STRBUF_INIT). */
struct vtb_strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};
#define VTB_STRBUF_INIT    \
	{                  \
		NULL, 0, 0 \
	}
int vtb_strbuf_add(struct vtb_strbuf *sb, const char *s, size_t n);
int vtb_strbuf_addstr(struct vtb_strbuf *sb, const char *s);
int vtb_strbuf_addf(struct vtb_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Returns the buffer ("" when empty); the caller keeps ownership. */
const char *vtb_strbuf_str(const struct vtb_strbuf *sb);
/* Hands the buffer to the caller (free() it) and resets @sb. */
char *vtb_strbuf_detach(struct vtb_strbuf *sb);
void vtb_strbuf_release(struct vtb_strbuf *sb);

/* strdup that returns NULL on NULL. */
char *vtb_strdup(const char *s);
/* malloc'ed printf; NULL on allocation failure. */
char *vtb_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Units.  Times: "250us", "10ms", "10s", "5m", "2h", a bare number is
 * seconds; result in nanoseconds.  Sizes: "512", "4K", "512M", "4G", "1T"
 * (binary: K = 1024, as QEMU and fio), optional trailing "B" or "iB";
 * result in bytes.  Both reject negative numbers, overflow, trailing
 * garbage and empty strings, returning -1 with vtb_errmsg() set.
 */
int vtb_parse_time_ns(const char *s, uint64_t *out_ns);
/* True when time @s has no unit (it was taken as seconds): messages say so. */
bool vtb_time_is_bare(const char *s);
int vtb_parse_size(const char *s, uint64_t *out_bytes);
/* Decimal integer in [min, max]; same error contract. */
int vtb_parse_int(const char *s, long long min, long long max, long long *out);
/* yes/no/true/false/on/off/1/0. */
int vtb_parse_bool(const char *s, bool *out);
/* Formats for humans: "1.5s", "32MiB".  Return static-free malloc'ed strings. */
char *vtb_format_time_ns(uint64_t ns);
char *vtb_format_size(uint64_t bytes);

/*
 * CPU lists in Linux cpulist syntax ("0-3,8,10-11").  A set is a sorted,
 * duplicate-free array of CPU numbers.
 */
struct vtb_cpuset {
	int *cpus;
	size_t n;
};
int vtb_cpuset_parse(const char *s, struct vtb_cpuset *out);
/* Returns malloc'ed "0-3,8"; "" for an empty set; NULL on ENOMEM. */
char *vtb_cpuset_format(const struct vtb_cpuset *set);
int vtb_cpuset_add(struct vtb_cpuset *set, int cpu);
bool vtb_cpuset_has(const struct vtb_cpuset *set, int cpu);
bool vtb_cpuset_equal(const struct vtb_cpuset *a, const struct vtb_cpuset *b);
void vtb_cpuset_release(struct vtb_cpuset *set);

/* Monotonic clock in nanoseconds. */
uint64_t vtb_now_ns(void);

/* Reads a whole (small) file into a malloc'ed NUL-terminated string,
 * trailing newline stripped.  NULL with vtb_errmsg() set on failure. */
char *vtb_read_file(const char *path, size_t max_bytes);

/* Creates @path and its missing parents as `mkdir -p` does: the new ones
 * get @mode and the umask, or @mode exactly when @exact (chmod after
 * mkdir: a directory another user, the hypervisor's, must enter).  -1
 * with vtb_error() naming the component that could not be made, or a
 * component that is not a directory. */
int vtb_mkdir_p(const char *path, unsigned mode, bool exact);
/* What a file of @mode is, for a message: "a directory", "a FIFO",
 * "a character device", "a block device", "a socket", "a symbolic link",
 * else "not a regular file" (static). */
const char *vtb_file_kind(unsigned mode);
/*
 * UTF-8, strictly (RFC 3629): no overlong forms, no surrogates
 * (U+D800-U+DFFF), nothing above U+10FFFF.
 * vtb_utf8_char(): length (1-4) of the valid character at @s, which has
 * @n bytes left; 0 when the bytes there are not one.  *@truncated (may be
 * NULL) tells a sequence that was valid so far but ran out of bytes.
 */
size_t vtb_utf8_char(const char *s, size_t n, bool *truncated);
bool vtb_utf8_valid(const char *s, size_t n);
/* The longest prefix of @s (@n bytes) of at most @max bytes that does not
 * end inside a character: cut there, text stays valid UTF-8. */
size_t vtb_utf8_cut(const char *s, size_t n, size_t max);

/*
 * The one sanitiser for what a guest, a server or a file says and a
 * terminal or a report shows.  Appends @s to @sb with tab, line feed and
 * carriage return as \t \n \r, other control characters (C0, DEL) and
 * every byte that is not part of valid UTF-8 as \xNN (ESC: "\x1b"), C1
 * controls, line/paragraph separators and bidi overrides/isolates as
 * \uNNNN, and a backslash doubled so the escapes stay unambiguous: no
 * escape sequence, bell, carriage return or line break gets through, and
 * valid UTF-8 text stays as it is.  -1 on ENOMEM.
 * vtb_term_safe(): the same as a malloc'ed string ("" for NULL; NULL on
 * ENOMEM); vtb_term_fputs() writes it to @f.
 */
int vtb_term_escape(struct vtb_strbuf *sb, const char *s);
char *vtb_term_safe(const char *s);
int vtb_term_fputs(const char *s, FILE *f);

/* CRC-32 (IEEE 802.3, as zlib's crc32()) of a buffer. */
uint32_t vtb_crc32(const void *buf, size_t len);

/* @n bytes from getrandom(2) (blocking until the kernel's pool is
 * ready, as at early boot); -1 with vtb_error() when it fails. */
int vtb_random_bytes(void *buf, size_t n);
/* 128 random bits as a lowercase RFC 4122 v4 UUID string (37 bytes). */
int vtb_uuid(char out[37]);
/* n random bytes as 2n lowercase hex digits into out (2n+1 bytes). */
int vtb_random_hex(char *out, size_t nbytes);

#endif
