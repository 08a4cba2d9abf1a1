// SPDX-License-Identifier: GPL-2.0
/*
 * json.c: the few JSON writers that status --json and report share.
 */
#include <stdio.h>

#include "undervoltctl.h"

/*
 * The length of the valid UTF-8 sequence at P (1 to 4), or 0: no overlong
 * forms, no surrogates, nothing above U+10FFFF (RFC 3629).
 */
static int utf8_length(const unsigned char *p)
{
	int n, i;
	unsigned int cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* the NUL ends it here too */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * Strings come from sysfs and DMI, where vendors write what they like:
 * valid UTF-8 goes out as it is ("Café"), escaped only where JSON requires
 * it; a byte that is no part of valid UTF-8 becomes U+FFFD, so the
 * document always parses.
 */
void json_string(const char *str)
{
	const unsigned char *p;
	int n;

	if (!str) {
		printf("null");
		return;
	}
	putchar('"');
	for (p = (const unsigned char *)str; *p; p += n) {
		n = utf8_length(p);
		if (n == 0) {
			fputs("\xef\xbf\xbd", stdout);
			n = 1;
		} else if (*p == '"' || *p == '\\') {
			printf("\\%c", *p);
		} else if (*p < 0x20) {
			printf("\\u%04x", *p);
		} else {
			fwrite(p, 1, (size_t)n, stdout);
		}
	}
	putchar('"');
}

void json_long(int err, long v)
{
	if (err)
		printf("null");
	else
		printf("%ld", v);
}
