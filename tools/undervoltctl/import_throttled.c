// SPDX-License-Identifier: GPL-2.0
/*
 * import_throttled.c: convert the undervolt sections of a throttled
 * configuration (/etc/throttled.conf) into undervolt.conf(5) planes.
 *
 * throttled reads an INI file with Python's configparser: "[SECTION]"
 * headers, "KEY: VALUE" or "KEY = VALUE" lines, whole-line comments that
 * start with '#' or ';', keys in any case. Its offsets are in
 * [UNDERVOLT.AC] and [UNDERVOLT.BATTERY] (one [UNDERVOLT] in early
 * releases), keys CORE, GPU, CACHE, UNCORE and ANALOGIO in millivolts,
 * numbered as the driver numbers the planes.
 *
 * A plane on which AC and battery agree becomes a line before the first
 * section of undervolt.conf(5); one on which they differ goes into its
 * [ac] and [battery] sections. The other sections are reported once each
 * with what to use instead.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import.h"

enum profile { PROFILE_ONE, PROFILE_AC, PROFILE_BATTERY, PROFILE_COUNT };

static const char *const profile_section[PROFILE_COUNT] = {
	[PROFILE_ONE] = "UNDERVOLT",
	[PROFILE_AC] = "UNDERVOLT.AC",
	[PROFILE_BATTERY] = "UNDERVOLT.BATTERY",
};

#define POWER_ADVICE "power limits, temperature target and HWP hints are " \
	"not offsets: set power limits through powercap " \
	"(/sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw and " \
	"constraint_1_power_limit_uw, and intel-rapl-mmio:0 where it exists), " \
	"the temperature target through the intel_tcc_cooling cooling device, " \
	"hints through cpufreq's energy_performance_preference"
#define ICCMAX_ADVICE "current limits (IccMax) have no kernel interface; " \
	"they stay as the firmware set them"

static const struct {
	const char *name;
	const char *advice;
} other_sections[] = {
	{ "GENERAL", "throttled's own settings: its daemon re-applied, every "
	  "Update_Rate_s, the power limits and the temperature target offset "
	  "that the embedded controller resets; nothing here does, so that is "
	  "lost (set them through powercap, intel-rapl and intel-rapl-mmio, "
	  "and intel_tcc_cooling, and re-apply them yourself if the firmware "
	  "resets them); the offsets alone need no daemon: the kernel keeps "
	  "them and restores them after resume" },
	{ "AC", POWER_ADVICE },
	{ "BATTERY", POWER_ADVICE },
	{ "ICCMAX", ICCMAX_ADVICE },
	{ "ICCMAX.AC", ICCMAX_ADVICE },
	{ "ICCMAX.BATTERY", ICCMAX_ADVICE },
};

struct profiles {
	struct imported p[PROFILE_COUNT];
	unsigned int header[PROFILE_COUNT];	/* line, 0: no such section */
};

/* A section header; returns the profile, -1 for any other section. */
static int section(const char *p, const char *end, unsigned int line,
		   struct diag *d, struct import_result *res)
{
	const char *close = memchr(p, ']', (size_t)(end - p)), *tail;
	char name[40];
	size_t i;

	if (!close) {
		import_printable(p, (size_t)(end - p), name, sizeof(name));
		import_note(d, line, "'%s' cannot be read (no ']'); not "
			    "carried over", name);
		res->failed++;
		return -1;
	}
	p = import_trim(p + 1, close, &tail);
	import_printable(p, (size_t)(tail - p), name, sizeof(name));
	for (i = 0; i < PROFILE_COUNT; i++)
		if (strcasecmp(name, profile_section[i]) == 0)
			return (int)i;
	for (i = 0; i < sizeof(other_sections) / sizeof(other_sections[0]);
	     i++) {
		if (strcasecmp(name, other_sections[i].name) == 0) {
			import_note(d, line, "[%s] not carried over; %s", name,
				    other_sections[i].advice);
			res->advised++;
			return -1;
		}
	}
	import_note(d, line, "[%s] is no throttled section known here; not "
		    "carried over", name);
	res->failed++;
	return -1;
}

/* "KEY: VALUE" in an undervolt section. */
static void key_value(const char *p, const char *end, unsigned int line,
		      struct imported *im, struct diag *d,
		      struct import_result *res)
{
	const char *sep = p, *kend, *v, *vend;
	char key[40], value[40];
	int pl;

	while (sep < end && *sep != ':' && *sep != '=')
		sep++;
	p = import_trim(p, sep, &kend);
	import_printable(p, (size_t)(kend - p), key, sizeof(key));
	if (sep == end) {
		import_note(d, line, "'%s' is no KEY: VALUE line; not carried "
			    "over", key);
		res->failed++;
		return;
	}
	/* throttled's keys are the planes' names, in capitals. */
	for (pl = 0; pl < PLANE_COUNT; pl++)
		if (strcasecmp(key, plane_name(pl)) == 0)
			break;
	if (pl == PLANE_COUNT) {
		import_note(d, line, "'%s' is none of CORE, GPU, CACHE, UNCORE, "
			    "ANALOGIO; not carried over", key);
		res->failed++;
		return;
	}
	v = import_trim(sep + 1, end, &vend);
	/* import_mv wants a string: copied whole or refused as too long. */
	if ((size_t)(vend - v) >= sizeof(value)) {
		import_note(d, line, "the value of %s is too long; not carried "
			    "over", key);
		res->failed++;
		return;
	}
	memcpy(value, v, (size_t)(vend - v));
	value[vend - v] = '\0';
	if (import_mv(value, line, d, &im->mv[pl]) < 0) {
		res->failed++;
		return;
	}
	im->set[pl] = true;
	im->line[pl] = line;
}

/* The AC and battery profiles: common values at the top, the rest apart. */
static void merge(const struct profiles *pr, struct imported *im)
{
	const struct imported *ac = &pr->p[PROFILE_AC];
	const struct imported *bat = &pr->p[PROFILE_BATTERY];
	long a, b;
	int pl;

	for (pl = 0; pl < PLANE_COUNT; pl++) {
		if (!ac->set[pl] && !bat->set[pl])
			continue;
		/* A profile that leaves a plane out does not undervolt it. */
		a = ac->set[pl] ? ac->mv[pl] : 0;
		b = bat->set[pl] ? bat->mv[pl] : 0;
		im->line[pl] = ac->set[pl] ? ac->line[pl] : bat->line[pl];
		if (a == b) {
			im->set[pl] = true;
			im->mv[pl] = a;
			continue;
		}
		im->src_set[SOURCE_AC][pl] = true;
		im->src_mv[SOURCE_AC][pl] = a;
		im->src_set[SOURCE_BATTERY][pl] = true;
		im->src_mv[SOURCE_BATTERY][pl] = b;
	}
}

int import_throttled(const char *buf, size_t len, struct imported *im,
		     struct diag *d, struct import_result *res)
{
	struct import_lines it = { .p = buf, .end = buf + len };
	const char *p, *tail;
	struct profiles *pr;
	unsigned int line;
	int cur = -1;

	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -1;
	while (import_next_line(&it, &p, &tail)) {
		line = it.line;
		if (*p == '[') {
			cur = section(p, tail, line, d, res);
			if (cur >= 0)
				pr->header[cur] = line;
		} else if (cur >= 0) {
			key_value(p, tail, line, &pr->p[cur], d, res);
		}
		/* Lines of other sections: reported with their header. */
	}
	if (pr->header[PROFILE_AC] || pr->header[PROFILE_BATTERY]) {
		merge(pr, im);
		if (pr->header[PROFILE_ONE]) {
			import_note(d, pr->header[PROFILE_ONE], "[UNDERVOLT] is "
				    "left out: [UNDERVOLT.AC] and "
				    "[UNDERVOLT.BATTERY] replace it");
			res->failed++;
		}
	} else {
		*im = pr->p[PROFILE_ONE];
	}
	free(pr);
	return 0;
}
