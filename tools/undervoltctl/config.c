// SPDX-License-Identifier: GPL-2.0
/*
 * config.c: the undervolt.conf(5) parser.
 *
 *	# comment
 *	core = -80		applies to every package
 *	[package 1]
 *	core = -70		applies to package 1 only
 *	[battery]
 *	core = -60		every package, on battery, in place of -80
 *
 * One construct per line, blanks around tokens allowed, a comment may follow
 * on the same line. Lines may end in CRLF, and a UTF-8 byte order mark may
 * start the file, as Windows editors save them; import takes the same. Anything else is an error naming the line and what was
 * expected; the caller applies nothing from a file with an error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

static const char *const plane_names[PLANE_COUNT] = {
	[PLANE_CORE] = "core",
	[PLANE_GPU] = "gpu",
	[PLANE_CACHE] = "cache",
	[PLANE_UNCORE] = "uncore",
	[PLANE_ANALOGIO] = "analogio",
};

#define PLANE_LIST "core, gpu, cache, uncore, analogio"

static const char *const source_names[SOURCE_COUNT] = {
	[SOURCE_AC] = "ac",
	[SOURCE_BATTERY] = "battery",
};

const char *source_name(enum power_source s)
{
	return (unsigned int)s < SOURCE_COUNT ? source_names[s] : "?";
}

const char *plane_name(enum plane p)
{
	return (unsigned int)p < PLANE_COUNT ? plane_names[p] : "?";
}

int plane_lookup(const char *name, size_t len)
{
	int i;

	for (i = 0; i < PLANE_COUNT; i++)
		if (strlen(plane_names[i]) == len &&
		    memcmp(plane_names[i], name, len) == 0)
			return i;
	return -1;
}

/* The unparsed rest of one line. */
struct cursor {
	const char *p;
	const char *end;
};

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       is_digit(c) || c == '_' || c == '-';
}

static void skip_blanks(struct cursor *c)
{
	while (c->p < c->end && is_blank(*c->p))
		c->p++;
}

/* True when only blanks and an optional comment are left. */
static int at_end(struct cursor *c)
{
	skip_blanks(c);
	return c->p == c->end || *c->p == '#';
}

/* A printable excerpt of what the cursor points at, for messages. */
static void excerpt(const struct cursor *c, char *buf, size_t size)
{
	size_t n = 0;
	const char *p;

	for (p = c->p; p < c->end && !is_blank(*p) && n + 1 < size && n < 24;
	     p++)
		buf[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
	buf[n] = '\0';
}

__attribute__((format(printf, 3, 4)))
static int fail(struct config_error *err, unsigned int line, const char *fmt,
		...)
{
	va_list ap;

	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* Parse [+-]digits; at most 4 digits, so no overflow is possible. */
static int parse_int(struct cursor *c, int *out)
{
	int sign = 1, v = 0, digits = 0;

	if (c->p < c->end && (*c->p == '-' || *c->p == '+')) {
		sign = *c->p == '-' ? -1 : 1;
		c->p++;
	}
	while (c->p < c->end && is_digit(*c->p)) {
		if (++digits > 4)
			return -1;
		v = v * 10 + (*c->p++ - '0');
	}
	if (digits == 0)
		return -1;
	*out = sign * v;
	return 0;
}

/* True, and the cursor past it, when the next word is exactly WORD. */
static int word_is(struct cursor *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0 ||
	    (c->p + n < c->end && is_word(c->p[n])))
		return 0;
	c->p += n;
	return 1;
}

/* [ac] or [battery], the cursor past the word. */
static int parse_source(struct cursor *c, unsigned int line,
			struct config *cfg, enum power_source src,
			struct config_section **cur, struct config_error *err)
{
	char buf[32];

	skip_blanks(c);
	if (c->p == c->end || *c->p != ']')
		return fail(err, line, "expected ']' to close '[%s]'",
			    source_names[src]);
	c->p++;
	if (!at_end(c))
		return fail(err, line, "unexpected '%s' after '[%s]'; comments "
			    "start with '#'", (excerpt(c, buf, sizeof(buf)), buf),
			    source_names[src]);
	*cur = &cfg->source[src];
	if ((*cur)->present)
		return fail(err, line, "[%s] repeated; the first is on line %u, "
			    "merge the two", source_names[src], (*cur)->line);
	(*cur)->present = true;
	(*cur)->line = line;
	return 0;
}

static int parse_section(struct cursor *c, unsigned int line,
			 struct config *cfg, struct config_section **cur,
			 struct config_error *err)
{
	static const char kw[] = "package";
	char buf[32];
	int id = 0, digits = 0;

	c->p++;			/* '[' */
	skip_blanks(c);
	for (id = 0; id < SOURCE_COUNT; id++)
		if (word_is(c, source_names[id]))
			return parse_source(c, line, cfg, (enum power_source)id,
					    cur, err);
	id = 0;
	if ((size_t)(c->end - c->p) < sizeof(kw) - 1 ||
	    memcmp(c->p, kw, sizeof(kw) - 1) != 0)
		return fail(err, line, "expected '[package N]', '[ac]' or "
			    "'[battery]', found '[%s'",
			    (excerpt(c, buf, sizeof(buf)), buf));
	c->p += sizeof(kw) - 1;
	if (c->p == c->end || !is_blank(*c->p))
		return fail(err, line, "expected a package number after '%s'",
			    kw);
	skip_blanks(c);
	while (c->p < c->end && is_digit(*c->p) && digits < 3) {
		id = id * 10 + (*c->p++ - '0');
		digits++;
	}
	if (digits == 0)
		return fail(err, line, "expected a package number (0 to %d) "
			    "in '[package N]'", CONFIG_MAX_PACKAGES - 1);
	if (id >= CONFIG_MAX_PACKAGES || (c->p < c->end && is_digit(*c->p)))
		return fail(err, line, "package number out of range; "
			    "expected 0 to %d", CONFIG_MAX_PACKAGES - 1);
	skip_blanks(c);
	if (c->p == c->end || *c->p != ']')
		return fail(err, line, "expected ']' to close '[package N]'");
	c->p++;
	if (!at_end(c))
		return fail(err, line, "unexpected '%s' after '[package N]'; "
			    "comments start with '#'",
			    (excerpt(c, buf, sizeof(buf)), buf));
	*cur = &cfg->package[id];
	if ((*cur)->present)
		return fail(err, line, "[package %d] repeated; the first is on "
			    "line %u, merge the two", id, (*cur)->line);
	(*cur)->present = true;
	(*cur)->line = line;
	return 0;
}

static int parse_assignment(struct cursor *c, unsigned int line,
			    struct config_section *sec,
			    struct config_error *err)
{
	const char *word = c->p;
	char buf[32];
	int plane, mv;

	while (c->p < c->end && is_word(*c->p))
		c->p++;
	if (c->p == word)
		return fail(err, line, "expected 'PLANE = MV' or '[package N]', "
			    "found '%s'", (excerpt(c, buf, sizeof(buf)), buf));
	plane = plane_lookup(word, (size_t)(c->p - word));
	if (plane < 0) {
		struct cursor w = { word, c->p };

		excerpt(&w, buf, sizeof(buf));
		return fail(err, line, "unknown plane '%s'; expected one of "
			    PLANE_LIST, buf);
	}
	skip_blanks(c);
	if (c->p == c->end || *c->p != '=')
		return fail(err, line, "expected '=' after '%s'",
			    plane_names[plane]);
	c->p++;
	skip_blanks(c);
	if (parse_int(c, &mv) < 0 || (c->p < c->end && (*c->p == '.' ||
						       is_word(*c->p))))
		return fail(err, line, "expected whole millivolts after '%s =', "
			    "e.g. -50", plane_names[plane]);
	if (mv < -CONFIG_MAX_ABS_MV || mv > CONFIG_MAX_ABS_MV)
		return fail(err, line, "offset %d mV is beyond the file format's "
			    "limit of -%d to %d mV", mv, CONFIG_MAX_ABS_MV,
			    CONFIG_MAX_ABS_MV);
	if (!at_end(c))
		return fail(err, line, "unexpected '%s' after the value; "
			    "comments start with '#'",
			    (excerpt(c, buf, sizeof(buf)), buf));
	if (sec->set[plane])
		return fail(err, line, "%s set twice in one section; the first "
			    "is on line %u, keep one", plane_names[plane],
			    sec->plane_line[plane]);
	sec->set[plane] = true;
	sec->mv[plane] = mv;
	sec->plane_line[plane] = line;
	return 0;
}

static int parse_line(struct cursor *c, unsigned int line, struct config *cfg,
		      struct config_section **cur, struct config_error *err)
{
	const char *p;

	/* A file saved on Windows: the \r belongs to the line end. */
	if (c->end > c->p && c->end[-1] == '\r')
		c->end--;
	for (p = c->p; p < c->end; p++) {
		if (*p == '\0')
			return fail(err, line, "NUL byte found; this is not a "
				    "text file");
		if (*p == '\r')
			return fail(err, line, "carriage return inside a line; "
				    "lines end with a newline (or a carriage "
				    "return and a newline)");
	}
	if (at_end(c))
		return 0;
	if (*c->p == '[')
		return parse_section(c, line, cfg, cur, err);
	return parse_assignment(c, line, *cur, err);
}

/*
 * A plane that [ac] sets must have a value on battery too, and the other
 * way round: otherwise a change of power source would leave it at the
 * other source's value, which no line of the file says.
 */
static int check_sources(const struct config *cfg, struct config_error *err)
{
	const struct config_section *s, *o;
	int src, pl;

	for (src = 0; src < SOURCE_COUNT; src++) {
		s = &cfg->source[src];
		o = &cfg->source[!src];
		for (pl = 0; pl < PLANE_COUNT; pl++)
			if (s->set[pl] && !o->set[pl] && !cfg->all.set[pl])
				return fail(err, s->plane_line[pl], "%s is set in "
					    "[%s] only; give its value on %s in "
					    "[%s] or before the first section",
					    plane_names[pl], source_names[src],
					    source_names[!src],
					    source_names[!src]);
	}
	return 0;
}

int config_parse(const char *buf, size_t len, struct config *cfg,
		 struct config_error *err)
{
	struct config_section *cur = &cfg->all;
	const char *p = buf, *end = buf + len, *nl;
	unsigned int line = 0;

	memset(cfg, 0, sizeof(*cfg));
	memset(err, 0, sizeof(*err));
	cfg->all.present = true;
	if (len > CONFIG_MAX_SIZE)
		return fail(err, 0, "larger than %d bytes; is it the right "
			    "file?", CONFIG_MAX_SIZE);
	/* Windows editors start a UTF-8 file with a byte order mark. */
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < end) {
		struct cursor c;

		nl = memchr(p, '\n', (size_t)(end - p));
		c.p = p;
		c.end = nl ? nl : end;
		if (parse_line(&c, ++line, cfg, &cur, err) < 0)
			return -1;
		p = nl ? nl + 1 : end;
	}
	return check_sources(cfg, err);
}
