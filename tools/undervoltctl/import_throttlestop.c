// SPDX-License-Identifier: GPL-2.0
/*
 * import_throttlestop.c: convert the FIVR offsets of a ThrottleStop.ini
 * into undervolt.conf(5) planes.
 *
 * ThrottleStop keeps its settings as "KEY=VALUE" lines under one
 * [ThrottleStop] header. Its FIVR window has four profiles; "Profile=N"
 * (0 to 3) is the one in use and "ProfileNameN" (1 to 4) their names. The
 * offset of plane P in profile Q is "FIVRVoltagePQ=0xWORD": the data word
 * ThrottleStop sends through MSR 0x150, the offset in bits 31:21 as an
 * 11-bit two's complement number of 1/1024 V, bits 20:0 zero. Planes are
 * numbered as the driver numbers them (0 core, 1 gpu, 2 cache, 3 uncore,
 * 4 analogio); ThrottleStop's plane 5, "Digital I/O", has no driver file.
 * "UnlockVoltagePQ=1" is the "Unlock Adjustable Voltage" box: without it
 * ThrottleStop sends no offset for that plane at all.
 *
 * One profile is converted: the one in use, or the one --profile names.
 * Everything else in the file (clock modulation, power limits, turbo
 * ratios, the other profiles) is left out and counted in one message, not
 * quoted key by key: a ThrottleStop.ini has over a hundred of them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import.h"

#define TS_PROFILES 4
#define TS_PLANES 10		/* one decimal digit: planes 6-9 unknown */
/* Plane 5 of ThrottleStop's FIVR window, which the driver has no file for. */
#define TS_PLANE_DIGITAL_IO 5

/* What the file says of each plane and profile, and on which line. */
struct ts_file {
	unsigned long word[TS_PLANES][TS_PROFILES];
	unsigned int word_line[TS_PLANES][TS_PROFILES];
	int unlock[TS_PLANES][TS_PROFILES];	/* -1: no such key */
	unsigned int active;			/* "Profile=", 0 to 3 */
	unsigned int active_line;
	char name[TS_PROFILES][32];		/* "ProfileNameN" */
	unsigned int others;			/* keys not carried over */
};

/* The 1/1024 V units a driver writes for MV (round to nearest, as it does). */
static long units_of_mv(long mv)
{
	long a = mv < 0 ? -mv : mv;
	long u = (a * 1024 + 500) / 1000;

	return mv < 0 ? -u : u;
}

/*
 * The whole millivolts whose driver encoding is UNITS exactly, so that
 * applying the import writes the word ThrottleStop wrote; otherwise the
 * value rounded toward 0 (less undervolt, never more), noted.
 */
static long mv_of_units(long units, unsigned int line, struct diag *d)
{
	long toward0 = units * 1000 / 1024;	/* C division truncates */
	long away = toward0 + (units < 0 ? -1 : 1);

	if (units_of_mv(toward0) == units)
		return toward0;
	if (units_of_mv(away) == units)
		return away;
	import_note(d, line, "%.2f mV rounded toward 0 to %ld mV; offsets are "
		    "whole millivolts", (double)units * 1000.0 / 1024.0, toward0);
	return toward0;
}

/* KEY ends in exactly two decimal digits after PREFIX: plane, profile. */
static bool plane_profile_key(const char *key, const char *prefix,
			      unsigned int *plane, unsigned int *profile)
{
	size_t n = strlen(prefix);

	if (strncasecmp(key, prefix, n) != 0 || strlen(key) != n + 2 ||
	    key[n] < '0' || key[n] > '9' || key[n + 1] < '0' ||
	    key[n + 1] > '9')
		return false;
	*plane = (unsigned int)(key[n] - '0');
	*profile = (unsigned int)(key[n + 1] - '0');
	return true;
}

/* "0x" and at most 8 hex digits; *WORD untouched on failure. */
static int parse_hex_word(const char *v, unsigned long *word)
{
	unsigned long w;
	char *end;

	if (strncasecmp(v, "0x", 2) != 0 || !v[2] || v[2] == '-' ||
	    v[2] == '+' || v[2] == ' ')
		return -1;
	errno = 0;
	w = strtoul(v + 2, &end, 16);
	if (*end || errno || w > 0xffffffffUL)
		return -1;
	*word = w;
	return 0;
}

/*
 * One "KEY=VALUE" line into TS; returns -1 for a line that fails, 1 for
 * one left out with a reason.
 */
static int ts_line(const char *p, const char *end, unsigned int line,
		   struct ts_file *ts, struct diag *d)
{
	const char *eq = memchr(p, '=', (size_t)(end - p)), *kend, *v, *vend;
	char key[40], value[40];
	unsigned int pl, pr;

	if (!eq) {
		import_printable(p, (size_t)(end - p), key, sizeof(key));
		import_note(d, line, "'%s' is no KEY=VALUE line; not carried "
			    "over", key);
		return -1;
	}
	p = import_trim(p, eq, &kend);
	v = import_trim(eq + 1, end, &vend);
	import_printable(p, (size_t)(kend - p), key, sizeof(key));
	import_printable(v, (size_t)(vend - v), value, sizeof(value));
	if (plane_profile_key(key, "FIVRVoltage", &pl, &pr)) {
		if (pr >= TS_PROFILES) {
			import_note(d, line, "%s: ThrottleStop has profiles 0 "
				    "to 3 only; not carried over", key);
			return -1;
		}
		/* Windows' INI reader, which ThrottleStop uses, takes the first. */
		if (ts->word_line[pl][pr]) {
			import_note(d, line, "%s is left out: already set on "
				    "line %u, and ThrottleStop reads the first",
				    key, ts->word_line[pl][pr]);
			return 1;
		}
		if ((size_t)(vend - v) >= sizeof(value) ||
		    parse_hex_word(value, &ts->word[pl][pr]) < 0) {
			import_note(d, line, "%s: '%s' is not a 32-bit hex word "
				    "like 0xF3400000; not carried over", key,
				    value);
			return -1;
		}
		ts->word_line[pl][pr] = line;
		return 0;
	}
	if (plane_profile_key(key, "UnlockVoltage", &pl, &pr)) {
		if (pr < TS_PROFILES && ts->unlock[pl][pr] < 0)
			ts->unlock[pl][pr] = strcmp(value, "0") != 0;
		return 0;
	}
	if (strcasecmp(key, "Profile") == 0) {
		if (ts->active_line)
			return 0;	/* the first counts, as above */
		if (strlen(value) != 1 || value[0] < '0' || value[0] > '3') {
			import_note(d, line, "Profile=%s: ThrottleStop numbers "
				    "its profiles 0 to 3; not carried over",
				    value);
			return -1;
		}
		ts->active = (unsigned int)(value[0] - '0');
		ts->active_line = line;
		return 0;
	}
	if (strncasecmp(key, "ProfileName", 11) == 0 && strlen(key) == 12 &&
	    key[11] >= '1' && key[11] <= '4') {
		import_printable(v, (size_t)(vend - v), ts->name[key[11] - '1'],
				 sizeof(ts->name[0]));
		return 0;
	}
	ts->others++;
	return 0;
}

/* Plane PL of profile PR into IM; -1 for a word that is no offset. */
static int ts_plane(const struct ts_file *ts, unsigned int pl,
		    unsigned int pr, struct imported *im, struct diag *d,
		    struct import_result *res)
{
	unsigned long w = ts->word[pl][pr];
	unsigned int line = ts->word_line[pl][pr];
	long units;

	if (!line)
		return 0;
	/*
	 * Unticked "Unlock Adjustable Voltage": nothing was sent, whatever the
	 * word or the plane. Checked first: real files carry plane 5's words
	 * (FIVRVoltage50-53) with UnlockVoltage5x=0.
	 */
	if (ts->unlock[pl][pr] == 0) {
		if (w) {
			import_note(d, line, "FIVRVoltage%u%u is left out: "
				    "UnlockVoltage%u%u=0, so ThrottleStop does "
				    "not apply it", pl, pr, pl, pr);
			res->advised++;
		}
		return 0;
	}
	if (pl == TS_PLANE_DIGITAL_IO) {
		if (w)
			import_note(d, line, "FIVRVoltage%u%u: plane 5 is "
				    "ThrottleStop's digital I/O, which the "
				    "driver does not offer; not carried over "
				    "(untick its Unlock Adjustable Voltage, or "
				    "give --partial)", pl, pr);
		return w ? -1 : 0;
	}
	if (pl >= PLANE_COUNT) {
		if (w)
			import_note(d, line, "FIVRVoltage%u%u: plane %u is none "
				    "of ThrottleStop's planes 0 to 5; not "
				    "carried over", pl, pr, pl);
		return w ? -1 : 0;
	}
	if (w & 0x1fffff) {
		import_note(d, line, "FIVRVoltage%u%u=0x%08lX has bits 20:0 "
			    "set, so it is no offset ThrottleStop writes; not "
			    "carried over", pl, pr, w);
		return -1;
	}
	units = (long)(w >> 21);
	if (units >= 1024)
		units -= 2048;
	im->mv[pl] = mv_of_units(units, line, d);
	im->set[pl] = true;
	im->line[pl] = line;
	return 0;
}

int import_throttlestop(const char *buf, size_t len, unsigned int profile,
			struct imported *im, struct diag *d,
			struct import_result *res)
{
	struct import_lines it = { .p = buf, .end = buf + len };
	const char *p, *tail;
	struct ts_file *ts;
	unsigned int pl, pr, other_offsets = 0;

	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return -1;
	memset(ts->unlock, 0xff, sizeof(ts->unlock));	/* all -1 */
	while (import_next_line(&it, &p, &tail)) {
		if (*p == '[') {
			if ((size_t)(tail - p) != 14 ||
			    strncasecmp(p, "[ThrottleStop]", 14) != 0)
				ts->others++;
			continue;
		}
		switch (ts_line(p, tail, it.line, ts, d)) {
		case -1:
			res->failed++;
			break;
		case 1:
			res->advised++;
			break;
		}
	}
	pr = profile ? profile - 1 : ts->active;
	snprintf(im->origin, sizeof(im->origin), "profile %u%s%s%s",
		 pr + 1, ts->name[pr][0] ? " (" : "", ts->name[pr],
		 ts->name[pr][0] ? ")" : "");
	if (!profile && !ts->active_line)
		import_note(d, 1, "no Profile= line: taking profile 1, the "
			    "first; give --profile N for another");
	for (pl = 0; pl < TS_PLANES; pl++)
		if (ts_plane(ts, pl, pr, im, d, res) < 0)
			res->failed++;
	/* Say which other profiles set offsets, so none is lost unawares. */
	for (pl = 0; pl < TS_PLANES; pl++) {
		unsigned int q;

		for (q = 0; q < TS_PROFILES; q++)
			if (q != pr && ts->word[pl][q] &&
			    ts->unlock[pl][q] != 0)
				other_offsets |= 1u << q;
	}
	for (pr = 0; pr < TS_PROFILES; pr++)
		if (other_offsets & (1u << pr))
			import_note(d, ts->active_line ? ts->active_line : 1,
				    "profile %u%s%s%s has "
				    "offsets too and is left out; import it "
				    "with --profile %u into another file",
				    pr + 1, ts->name[pr][0] ? " (" : "",
				    ts->name[pr], ts->name[pr][0] ? ")" : "",
				    pr + 1);
	if (ts->others)
		import_note(d, 1, "%u other setting%s (clock modulation, power "
			    "limits, turbo ratios, ...) %s no offset%s and "
			    "%s not carried over; set power limits through "
			    "powercap (/sys/class/powercap/intel-rapl:0, and "
			    "intel-rapl-mmio:0 where it exists)",
			    ts->others, ts->others == 1 ? "" : "s",
			    ts->others == 1 ? "is" : "are",
			    ts->others == 1 ? "" : "s",
			    ts->others == 1 ? "is" : "are");
	free(ts);
	return 0;
}
