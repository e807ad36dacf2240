/* SPDX-License-Identifier: MIT */
/*
 * matrix.conf's INI reader: sections and keys with their lines, bounded
 * sizes, UTF-8 text only, "file:line: message" errors (the format is in
 * conf.c's opening comment).
 */
#include <stdlib.h>
#include <string.h>

#include "confint.h"

/* ---------------------------------------------------------------- the INI reader */

int mx_perr(const struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int ret;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	ret = vtb_error("%s:%d: %s", p->path, line, msg ? msg : "out of memory");
	free(msg);
	return ret;
}

/* " (did you mean 'x'?)" or "" */
char *mx_did_you_mean(const char *fmt_q, const char *s)
{
	if (!s)
		return strdup("");
	return vtb_asprintf(fmt_q, s);
}

/* Keys are indexed (a section of 40k keys took 5 s when they were
 * compared pairwise), hashed with a secret: the file chooses them. */
const struct ent *mx_sect_ent(const struct sect *s, const char *key)
{
	size_t pos = 0, i;

	while (s && vtb_index_next(&s->keys, key, strlen(key), &pos, &i))
		if (!strcmp(s->ents[i].key, key))
			return &s->ents[i];
	return NULL;
}

/* Indexes ents[s->n - 1], the key just added. */
static int sect_index(struct sect *s)
{
	const char *key = s->ents[s->n - 1].key;

	return vtb_index_add(&s->keys, key, strlen(key), s->n - 1);
}

void mx_sects_release(struct parser *p)
{
	size_t i, j;

	for (i = 0; i < p->n_sects; i++) {
		struct sect *s = &p->sects[i];

		for (j = 0; j < s->n; j++) {
			free(s->ents[j].key);
			vtb_strbuf_release(&s->ents[j].val);
		}
		free(s->ents);
		vtb_index_release(&s->keys);
		free(s->name);
		free(s->title);
	}
	free(p->sects);
	p->sects = NULL;
	p->n_sects = 0;
}

/*
 * UTF-8 text (strictly: no surrogates, nothing above U+10FFFF, no
 * overlong forms) without control characters other than tab.  @cut: the
 * buffer was cut at the line limit, so a sequence may end early.  NULL,
 * or what is wrong.
 */
static const char *not_text(const unsigned char *s, size_t n, bool cut)
{
	size_t i = 0, k;
	bool truncated;

	while (i < n) {
		unsigned c = s[i];

		if (c < 0x80) {
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return "binary data";
			i++;
			continue;
		}
		k = vtb_utf8_char((const char *)s + i, n - i, &truncated);
		if (!k)
			return truncated && cut ? NULL
						: "not UTF-8 text (a byte that is not UTF-8, "
						  "a surrogate or a code point above U+10FFFF)";
		i += k;
	}
	return NULL;
}

bool mx_is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static bool good_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && !strchr("-_.", *s))
			return false;
	return true;
}

/* The TYPE and NAME (NULL when absent) of header line @s..@e, malloc'ed. */
static int header_words(struct parser *p, int line, const char *s, const char *e, char **type,
			char **name)
{
	const char *close = memchr(s, ']', (size_t)(e - s));
	const char *a, *b, *c, *d, *name_end;

	if (!close)
		return mx_perr(p, line, "unterminated section header '%.*s'", (int)(e - s), s);
	if (close + 1 != e)
		return mx_perr(p, line, "unexpected text after section header '%.*s'", (int)(e - s),
			       s);
	for (a = s + 1; a < close && mx_is_ws(*a); a++)
		;
	for (b = a; b < close && !mx_is_ws(*b); b++)
		;
	for (c = b; c < close && mx_is_ws(*c); c++)
		;
	for (d = c; d < close && !mx_is_ws(*d); d++)
		;
	name_end = d;
	if (a == b)
		return mx_perr(p, line, "empty section name '%.*s'", (int)(e - s), s);
	for (; d < close; d++)
		if (!mx_is_ws(*d))
			return mx_perr(p, line,
				       "bad section header '%.*s': expected [TYPE] or [TYPE NAME]",
				       (int)(e - s), s);
	*type = strndup(a, (size_t)(b - a));
	if (c < name_end)
		*name = strndup(c, (size_t)(name_end - c));
	return !*type || (c < name_end && !*name) ? vtb_error("out of memory") : 0;
}

/* The S_* of section @type, which must be named exactly when its kind is. */
static int header_kind(struct parser *p, int line, const char *type, const char *name, int *kind)
{
	char *hint;
	size_t i;
	int ret;

	*kind = -1;
	for (i = 0; i < VTB_ARRAY_SIZE(mx_sectdefs); i++)
		if (!strcmp(mx_sectdefs[i].type, type))
			*kind = (int)i;
	if (*kind < 0) {
		hint = mx_did_you_mean(" (did you mean [%s]?)", vtb_suggest(mx_sect_names, type));
		ret = mx_perr(p, line, "unknown section [%s]%s", type, hint ? hint : "");
		free(hint);
		return ret;
	}
	if (mx_sectdefs[*kind].named && !name)
		return mx_perr(p, line, "[%s] needs a name: [%s NAME]", type, type);
	if (!mx_sectdefs[*kind].named && name)
		return mx_perr(p, line, "[%s] takes no name", type);
	if (name && !good_name(name))
		return mx_perr(p, line,
			       "bad name '%s' in [%s %s]: use letters, digits, '-', '_' and '.'",
			       name, type, name);
	return 0;
}

static int lex_header(struct parser *p, int line, const char *s, const char *e)
{
	char *type = NULL, *name = NULL;
	struct sect *sec;
	size_t i;
	int kind, ret = -1;

	if (header_words(p, line, s, e, &type, &name) < 0 ||
	    header_kind(p, line, type, name, &kind) < 0)
		goto out;
	if (p->n_sects == SECTION_LIMIT) {
		ret = mx_perr(p, line, "too many sections (limit %d)", SECTION_LIMIT);
		goto out;
	}
	for (i = 0; i < p->n_sects; i++) {
		const struct sect *o = &p->sects[i];

		if (o->kind == kind && (!name || !strcmp(o->name, name))) {
			ret = mx_perr(p, line, "duplicate section %s, first at %s:%d", o->title,
				      p->path, o->line);
			goto out;
		}
	}
	if (mx_grow(&p->sects, &p->alloc_sects, p->n_sects + 1, sizeof(*p->sects)) < 0)
		goto out;
	sec = &p->sects[p->n_sects];
	memset(sec, 0, sizeof(*sec));
	sec->kind = kind;
	sec->line = line;
	sec->title = name ? vtb_asprintf("[%s %s]", type, name) : vtb_asprintf("[%s]", type);
	if (!sec->title) {
		ret = vtb_error("out of memory");
		goto out;
	}
	sec->name = name;
	name = NULL;
	p->n_sects++;
	ret = 0;
out:
	free(type);
	free(name);
	return ret;
}

static int lex_keyval(struct parser *p, int line, const char *s, const char *e)
{
	const char *eq = memchr(s, '=', (size_t)(e - s));
	const char *ke, *v;
	struct sect *sec;
	const struct ent *dup;
	struct ent *en;
	char *key = NULL;
	int ret = -1;

	if (!eq)
		return mx_perr(p, line, "expected 'key = value' or '[section]', got '%.*s'",
			       (int)(e - s), s);
	for (ke = eq; ke > s && mx_is_ws(ke[-1]); ke--)
		;
	if (ke == s)
		return mx_perr(p, line, "missing key before '='");
	for (v = eq + 1; v < e && mx_is_ws(*v); v++)
		;
	key = strndup(s, (size_t)(ke - s));
	if (!key)
		return vtb_error("out of memory");
	if (!p->n_sects) {
		ret = mx_perr(p, line, "key '%s' outside a section", key);
		goto out;
	}
	if (p->n_keys == KEY_LIMIT) {
		ret = mx_perr(p, line, "too many keys (limit %d in all sections)", KEY_LIMIT);
		goto out;
	}
	sec = &p->sects[p->n_sects - 1];
	dup = mx_sect_ent(sec, key);
	if (dup) {
		ret = mx_perr(p, line, "duplicate key '%s' in %s, first at %s:%d", key, sec->title,
			      p->path, dup->line);
		goto out;
	}
	if ((size_t)(e - v) > VALUE_LIMIT) {
		ret = mx_perr(p, line, "value of '%s' too long (%zu bytes, limit %d)", key,
			      (size_t)(e - v), VALUE_LIMIT);
		goto out;
	}
	if (mx_grow(&sec->ents, &sec->alloc, sec->n + 1, sizeof(*sec->ents)) < 0)
		goto out;
	en = &sec->ents[sec->n];
	memset(en, 0, sizeof(*en));
	if (vtb_strbuf_add(&en->val, v, (size_t)(e - v)) < 0 ||
	    vtb_strbuf_addstr(&en->val, "") < 0) {
		vtb_strbuf_release(&en->val);
		goto out;
	}
	en->key = key;
	en->line = line;
	key = NULL;
	sec->n++;
	p->n_keys++;
	ret = sect_index(sec);
out:
	free(key);
	return ret;
}

static int lex_continuation(struct parser *p, int line, const char *s, const char *e)
{
	struct sect *sec = &p->sects[p->n_sects - 1];
	struct ent *en = &sec->ents[sec->n - 1];
	size_t add = (size_t)(e - s) + (en->val.len ? 1 : 0);

	if (en->val.len + add > VALUE_LIMIT)
		return mx_perr(p, line, "value of '%s' too long (%zu bytes, limit %d)", en->key,
			       en->val.len + add, VALUE_LIMIT);
	if (en->val.len && vtb_strbuf_addstr(&en->val, " ") < 0)
		return -1;
	return vtb_strbuf_add(&en->val, s, (size_t)(e - s));
}

int mx_lex(struct parser *p, const char *text, size_t len)
{
	size_t pos = 0;
	int line = 0;
	bool can_continue = false;
	size_t key_indent = 0;

	while (pos < len) {
		const char *ln = text + pos, *s, *e, *q, *why;
		const char *nl = memchr(ln, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - ln) : len - pos;
		size_t indent;

		pos += n + (nl ? 1 : 0);
		line++;
		if (n && ln[n - 1] == '\r')
			n--;
		why = not_text((const unsigned char *)ln, n > LINE_LIMIT ? LINE_LIMIT + 1 : n,
			       n > LINE_LIMIT);
		if (why)
			return mx_perr(p, line, "%s", why);
		if (n > LINE_LIMIT)
			return mx_perr(p, line, "line too long (%zu bytes, limit %d)", n,
				       LINE_LIMIT);
		s = ln;
		e = ln + n;
		while (s < e && mx_is_ws(*s))
			s++;
		indent = (size_t)(s - ln);
		if (s == e) {
			can_continue = false;
			continue;
		}
		if (*s == ';' || *s == '#')
			continue;
		for (q = s + 1; q < e; q++)
			if ((*q == ';' || *q == '#') && mx_is_ws(q[-1])) {
				e = q;
				break;
			}
		while (e > s && mx_is_ws(e[-1]))
			e--;
		if (can_continue && indent > key_indent) {
			if (lex_continuation(p, line, s, e) < 0)
				return -1;
			continue;
		}
		if (*s == '[') {
			if (lex_header(p, line, s, e) < 0)
				return -1;
			can_continue = false;
		} else {
			if (lex_keyval(p, line, s, e) < 0)
				return -1;
			can_continue = true;
			key_indent = indent;
		}
	}
	return 0;
}
