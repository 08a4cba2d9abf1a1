// SPDX-License-Identifier: GPL-2.0
/*
 * cpuinfo.c: fields of /proc/cpuinfo, for report and tune.
 */
#include <stdio.h>
#include <string.h>

#include "undervoltctl.h"

/* The value of KEY in the first processor block of /proc/cpuinfo, or NULL. */
const char *uv_cpuinfo_value(const char *info, const char *key, char *buf,
			     size_t size)
{
	size_t klen = strlen(key), n;
	const char *p = info, *v;

	while (p && *p && *p != '\n') {	/* a blank line ends the block */
		if (strncmp(p, key, klen) == 0 &&
		    (p[klen] == ' ' || p[klen] == '\t' || p[klen] == ':')) {
			v = strchr(p, ':');
			if (!v)
				return NULL;
			v++;
			v += strspn(v, " \t");
			n = strcspn(v, "\n");
			snprintf(buf, size, "%.*s", (int)n, v);
			return buf;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}
