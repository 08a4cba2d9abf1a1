// SPDX-License-Identifier: GPL-2.0
/*
 * cpuinfo.c: fields of /proc/cpuinfo, for report, import and tune.
 */
#include <stdio.h>
#include <stdlib.h>
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

/*
 * Intel family 6 models: Skylake to Raptor Lake, where the CPU applies the
 * higher of the core and cache offsets to both (the driver, which binds to
 * the same models, writes the two together), and Haswell and Broadwell,
 * where the two are apart. import checks a file against it, tune searches
 * by it, and tune's journal records it.
 */
int uv_cpu_couples_core_and_cache(const char *info)
{
	static const unsigned long coupled[] = {
		0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6,	/* Skylake-Comet Lake */
		0x7e, 0x8c, 0x8d, 0xa7,			/* Ice, Tiger, Rocket */
		0x97, 0x9a, 0xb7, 0xba, 0xbf,		/* Alder, Raptor Lake */
	};
	static const unsigned long apart[] = {
		0x3c, 0x3f, 0x45, 0x46, 0x3d, 0x47, 0x4f, 0x56,
	};
	char vendor[32], family[16], model[16];
	unsigned long m;
	size_t i;

	if (!info || !uv_cpuinfo_value(info, "vendor_id", vendor, sizeof(vendor)) ||
	    strcmp(vendor, "GenuineIntel") != 0 ||
	    !uv_cpuinfo_value(info, "cpu family", family, sizeof(family)) ||
	    strcmp(family, "6") != 0 ||
	    !uv_cpuinfo_value(info, "model", model, sizeof(model)))
		return -1;
	m = strtoul(model, NULL, 10);
	for (i = 0; i < sizeof(coupled) / sizeof(coupled[0]); i++)
		if (m == coupled[i])
			return 1;
	for (i = 0; i < sizeof(apart) / sizeof(apart[0]); i++)
		if (m == apart[i])
			return 0;
	return -1;
}

/* The text of /proc/cpuinfo, to free; NULL when it cannot be read. */
char *uv_read_cpuinfo(const struct uv_sysfs *s)
{
	char path[PATH_MAX], *buf;
	size_t len;

	if (uv_path(path, sizeof(path), "%s/cpuinfo", s->proc) ||
	    uv_slurp(path, 1 << 22, &buf, &len))
		return NULL;
	return buf;
}

int uv_this_cpu_couples(const struct uv_sysfs *s)
{
	char *info = uv_read_cpuinfo(s);
	int r = uv_cpu_couples_core_and_cache(info);

	free(info);
	return r;
}
