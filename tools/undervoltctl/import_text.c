// SPDX-License-Identifier: GPL-2.0
/*
 * import_text.c: what every importer needs to read a text file it cannot
 * trust: its lines, trimmed, blank ones and comments skipped; millivolts;
 * messages that name the file and line, quote it printably, and stop after
 * IMPORT_MAX_NOTES so that a hostile file cannot flood the terminal.
 *
 * It sits below the importers and the dispatcher (import.c) and calls
 * neither.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_text.h"

/*
 * A printable copy of LEN bytes for messages and the output's header,
 * shortened if long: a control byte quoted as is could hide the rest of
 * the message (a carriage return) or start a line of the output.
 */
void import_printable(const char *p, size_t len, char *buf, size_t size)
{
	const char *end = p + len;
	size_t n = 0;

	while (p < end && n + 4 < size)
		buf[n++] = (*p >= 0x20 && *p < 0x7f) ? *p++ : (p++, '?');
	if (p < end)
		buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
	buf[n] = '\0';
}

void import_note(struct diag *d, unsigned int line, const char *fmt, ...)
{
	va_list ap;

	if (++d->notes > IMPORT_MAX_NOTES)
		return;
	fprintf(d->f, "undervoltctl: %s:%u: ", d->file, line);
	va_start(ap, fmt);
	vfprintf(d->f, fmt, ap);
	va_end(ap);
	fputc('\n', d->f);
}

int import_mv(const char *text, unsigned int line, struct diag *d, long *out)
{
	char *end, value[40];
	double mv;

	import_printable(text, strlen(text), value, sizeof(value));
	errno = 0;
	mv = strtod(text, &end);
	if (*end || end == text || errno || !isfinite(mv)) {
		import_note(d, line, "'%s' is not a number of millivolts; not "
			    "carried over", value);
		return -1;
	}
	if (fabs(mv) > CONFIG_MAX_ABS_MV) {
		import_note(d, line, "%s mV is beyond -%d to %d mV, more than "
			    "any CPU takes; not carried over", value,
			    CONFIG_MAX_ABS_MV, CONFIG_MAX_ABS_MV);
		return -1;
	}
	*out = (long)trunc(mv);	/* toward 0: the safe side */
	if ((double)*out != mv)
		import_note(d, line, "%s mV rounded toward 0 to %ld mV; offsets "
			    "here are whole millivolts", value, *out);
	return 0;
}

const char *import_line_end(const char *p, const char *eol)
{
	/* A file saved on Windows: the \r belongs to the line end. */
	return eol > p && eol[-1] == '\r' ? eol - 1 : eol;
}

const char *import_trim(const char *p, const char *end, const char **tail)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*tail = end;
	return p;
}

bool import_next_line(struct import_lines *it, const char **p,
		      const char **tail)
{
	const char *nl, *eol;

	while (it->p < it->end) {
		nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
		eol = import_line_end(it->p, nl ? nl : it->end);
		it->line++;
		*p = import_trim(it->p, eol, tail);
		it->p = nl ? nl + 1 : it->end;
		if (*p != *tail && **p != '#' && **p != ';')
			return true;
	}
	return false;
}
