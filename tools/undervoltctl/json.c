// SPDX-License-Identifier: GPL-2.0
/*
 * json.c: the few JSON writers that status --json and report share.
 */
#include <stdio.h>

#include "undervoltctl.h"

/* Strings come from sysfs and DMI; escape anything not plain ASCII. */
void json_string(const char *str)
{
	const unsigned char *p;

	if (!str) {
		printf("null");
		return;
	}
	putchar('"');
	for (p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			printf("\\u%04x", *p);
		else
			putchar(*p);
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
