// SPDX-License-Identifier: GPL-2.0
/*
 * import_intel_undervolt.c: convert an intel-undervolt configuration into
 * undervolt.conf(5) planes.
 *
 * intel-undervolt reads its file with a shell-like parser of its own; here
 * it is only split into words (blanks, '...' and "..." quotes, backslashes,
 * # comments), never executed. "undervolt INDEX 'NAME' MV" lines (spelt
 * "apply" in old versions) become PLANE = MV lines; every other line is
 * reported with the kernel interface to use instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"

#define MAX_TOKENS 8
#define MAX_TOKEN 128
struct tokens {
	size_t n;
	char tok[MAX_TOKENS][MAX_TOKEN];
};

/* intel-undervolt's plane indexes, in its order. */
static const enum plane index_plane[] = {
	PLANE_CORE,		/* 0 CPU */
	PLANE_GPU,		/* 1 GPU */
	PLANE_CACHE,		/* 2 CPU Cache */
	PLANE_UNCORE,		/* 3 System Agent */
	PLANE_ANALOGIO,		/* 4 Analog I/O */
};

/* Where power limits are set; intel-rapl-mmio exists on some laptops too. */
#define POWERCAP "powercap: /sys/class/powercap/intel-rapl:0/" \
	"constraint_0_power_limit_uw (long term) and " \
	"constraint_1_power_limit_uw (short term), and intel-rapl-mmio:0 where " \
	"it exists (the firmware programs both, and the lower one wins)"

static const struct {
	const char *word;
	const char *advice;
} other[] = {
	{ "enable", "no resume trigger is needed: the kernel restores the "
	  "offsets after resume; 'systemctl enable undervoltctl.service' "
	  "applies /etc/undervolt.conf at boot" },
	{ "power", "power limits are not offsets: set them through " POWERCAP },
	{ "tdp", "power limits are not offsets: set them through " POWERCAP },
	{ "tjoffset", "the temperature target offset is set through the "
	  "intel_tcc_cooling driver: write cur_state of the "
	  "/sys/class/thermal/cooling_deviceN whose type is 'TCC Offset'" },
	{ "hwphint", "energy/performance hints are set through cpufreq: "
	  "/sys/devices/system/cpu/cpufreq/policyN/"
	  "energy_performance_preference (or power-profiles-daemon)" },
	{ "interval", "the period of intel-undervolt's daemon, which "
	  "re-applied what its 'daemon' lines name; see those" },
};

/*
 * "daemon ACTION": intel-undervolt re-applied ACTION every interval. For
 * offsets the kernel does that (it keeps them, restores them after
 * resume); power limits and the TCC offset are reset by the embedded
 * controller of many laptops, and nothing here re-applies them.
 */
static const struct {
	const char *action;
	const char *advice;
} daemon_actions[] = {
	{ "undervolt", "no daemon is needed for offsets: the kernel keeps them "
	  "and restores them after resume" },
	{ "power", "lost: nothing here re-applies the power limits that the "
	  "embedded controller resets (on a charger change, after resume); "
	  "set them through " POWERCAP ", and re-apply them yourself (a udev "
	  "rule or a timer) if the firmware keeps resetting them" },
	{ "tjoffset", "lost: nothing here re-applies the temperature target "
	  "offset that the embedded controller resets; write cur_state of "
	  "the 'TCC Offset' cooling device (intel_tcc_cooling) again when it "
	  "does" },
};

/* Split one line; -1 on an unterminated quote or an oversized line. */
static int tokenize(const char *p, const char *end, struct tokens *t)
{
	size_t len;
	char q;

	t->n = 0;
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p == '#')
			return 0;
		if (t->n == MAX_TOKENS)
			return -1;
		len = 0;
		while (p < end && *p != ' ' && *p != '\t') {
			if (*p == '\'' || *p == '"') {
				q = *p++;
				while (p < end && *p != q) {
					if (q == '"' && *p == '\\' &&
					    p + 1 < end)
						p++;
					if (len + 1 == MAX_TOKEN)
						return -1;
					t->tok[t->n][len++] = *p++;
				}
				if (p == end)
					return -1;
				p++;
				continue;
			}
			if (*p == '\\' && p + 1 < end)
				p++;	/* CPU\ Cache */
			if (len + 1 == MAX_TOKEN)
				return -1;
			t->tok[t->n][len++] = *p++;
		}
		t->tok[t->n++][len] = '\0';
	}
}

static int convert_undervolt(const struct tokens *t, unsigned int line,
			     struct imported *im, struct diag *d)
{
	char *end;
	long idx;
	long whole;

	errno = 0;
	idx = t->n == 4 ? strtol(t->tok[1], &end, 10) : -1;
	if (t->n != 4 || *end || end == t->tok[1] || errno) {
		import_note(d, line, "expected undervolt INDEX 'NAME' MV; not carried "
		     "over");
		return -1;
	}
	if (idx < 0 || idx >= (long)(sizeof(index_plane) /
				     sizeof(index_plane[0]))) {
		import_note(d, line, "index %ld is none of intel-undervolt's planes 0 "
		     "to 4; not carried over", idx);
		return -1;
	}
	if (import_mv(t->tok[3], line, d, &whole) < 0)
		return -1;
	if (im->set[index_plane[idx]])
		import_note(d, line, "index %ld already set on line %u; this later "
		     "value is used", idx, im->line[index_plane[idx]]);
	im->set[index_plane[idx]] = true;
	im->mv[index_plane[idx]] = whole;
	im->line[index_plane[idx]] = line;
	return 0;
}

/* True for a directive of intel-undervolt that has a kernel interface. */
static bool report_other(const struct tokens *t, unsigned int line,
			 const char *text, struct diag *d)
{
	size_t i, n;

	if (strcmp(t->tok[0], "daemon") == 0) {
		/* "undervolt:once", "power", "tjoffset" */
		for (i = 0; t->n == 2 &&
		     i < sizeof(daemon_actions) / sizeof(daemon_actions[0]); i++) {
			n = strlen(daemon_actions[i].action);
			if (strncmp(t->tok[1], daemon_actions[i].action, n) == 0 &&
			    (t->tok[1][n] == '\0' || t->tok[1][n] == ':')) {
				import_note(d, line, "'%s' not carried over; %s",
					    text, daemon_actions[i].advice);
				return true;
			}
		}
		import_note(d, line, "'%s': intel-undervolt's daemon re-applied "
			    "something this tool does not know; not carried "
			    "over", text);
		return false;
	}
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		if (strcmp(t->tok[0], other[i].word) == 0) {
			import_note(d, line, "'%s' not carried over; %s", text,
			     other[i].advice);
			return true;
		}
	}
	import_note(d, line, "'%s' is no intel-undervolt directive known here; not "
	     "carried over", text);
	return false;
}

/* "# undervolt 0 'CPU' -80": a line the user switched off. */
static bool commented_undervolt(const char *p, const char *end,
				struct tokens *t)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p != '#')
		return false;
	while (p < end && (*p == '#' || *p == ' ' || *p == '\t'))
		p++;
	return tokenize(p, end, t) == 0 && t->n == 4 &&
	       (strcmp(t->tok[0], "undervolt") == 0 ||
		strcmp(t->tok[0], "apply") == 0) &&
	       t->tok[1][0] >= '0' && t->tok[1][0] <= '9';
}

/* One line at a time, as intel-undervolt's own parser reads it. */
int import_intel_undervolt(const char *buf, size_t len, struct imported *im,
			   struct diag *d, struct import_result *res)
{
	const char *p = buf, *end = buf + len, *nl, *eol;
	unsigned int line = 0;
	struct tokens *t;
	char text[64];

	t = malloc(sizeof(*t));
	if (!t)
		return -1;
	for (; p < end; p = nl ? nl + 1 : end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		eol = import_line_end(p, nl ? nl : end);
		line++;
		import_printable(p, (size_t)(eol - p), text, sizeof(text));
		if (tokenize(p, eol, t) < 0) {
			import_note(d, line, "'%s' cannot be read (unterminated "
				    "quote or too long); not carried over",
				    text);
			res->failed++;
		} else if (t->n == 0) {
			res->commented += commented_undervolt(p, eol, t);
		} else if (strcmp(t->tok[0], "undervolt") == 0 ||
			   strcmp(t->tok[0], "apply") == 0) {	/* older versions */
			if (convert_undervolt(t, line, im, d) < 0)
				res->failed++;
		} else if (report_other(t, line, text, d)) {
			res->advised++;
		} else {
			res->failed++;
		}
	}
	free(t);
	return 0;
}
