/* SPDX-License-Identifier: GPL-2.0 */
/*
 * import_text.h: what the importers share (import_text.c): the planes a
 * file sets, where messages go, and the reading of untrusted text.
 */
#ifndef UNDERVOLTCTL_IMPORT_TEXT_H
#define UNDERVOLTCTL_IMPORT_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "undervoltctl.h"

/* Past this many, messages about single lines are counted, not printed. */
#define IMPORT_MAX_NOTES 20

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

/* "undervoltctl: FILE:LINE: ..." on d->f, the first IMPORT_MAX_NOTES. */
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

#endif
