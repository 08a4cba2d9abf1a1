/* SPDX-License-Identifier: GPL-2.0 */
/*
 * import.h: what the importers of each format share (import.c).
 */
#ifndef UNDERVOLTCTL_IMPORT_H
#define UNDERVOLTCTL_IMPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "undervoltctl.h"

/* The planes a file sets, and on which line; some per power source. */
struct imported {
	bool set[PLANE_COUNT];
	long mv[PLANE_COUNT];
	unsigned int line[PLANE_COUNT];
	bool src_set[SOURCE_COUNT][PLANE_COUNT];	/* [ac], [battery] */
	long src_mv[SOURCE_COUNT][PLANE_COUNT];
	char origin[80];	/* "" or what the header names, e.g. a profile */
};

/* Where messages go and how many were printed. */
struct diag {
	const char *file;	/* printable */
	FILE *f;
	unsigned int notes;
};

/* "undervoltctl: FILE:LINE: ..." on d->f, the first MAX_NOTES only. */
void import_note(struct diag *d, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A printable, shortened copy of LEN bytes for messages. */
void import_printable(const char *p, size_t len, char *buf, size_t size);
/* Millivolts, fractions rounded toward 0 (noted); -1 and a note if not. */
int import_mv(const char *text, unsigned int line, struct diag *d, long *out);
/* The end of the line P..EOL without a Windows \r. */
const char *import_line_end(const char *p, const char *eol);
/* P..END without blanks and tabs at either end; the new end in *TAIL. */
const char *import_trim(const char *p, const char *end, const char **tail);

/* The lines of an INI file, blank ones and comments (# or ;) skipped. */
struct import_lines {
	const char *p, *end;
	unsigned int line;	/* of the line last returned, from 1 */
};

/* The next line, trimmed, in *P..*TAIL; false after the last. */
bool import_next_line(struct import_lines *it, const char **p,
		      const char **tail);

/* import_throttled.c: 0, or -1 without memory. */
int import_throttled(const char *buf, size_t len, struct imported *im,
		     struct diag *d, struct import_result *res);

/* import_throttlestop.c: PROFILE 1-4, 0 the file's own; -1 without memory. */
int import_throttlestop(const char *buf, size_t len, unsigned int profile,
			struct imported *im, struct diag *d,
			struct import_result *res);

#endif
