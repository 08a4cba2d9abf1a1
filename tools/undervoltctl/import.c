// SPDX-License-Identifier: GPL-2.0
/*
 * import.c: convert an intel-undervolt configuration into undervolt.conf(5).
 *
 * intel-undervolt reads its file with a shell-like parser of its own; here
 * it is only split into words (blanks, '...' and "..." quotes, backslashes,
 * # comments), never executed. "undervolt INDEX 'NAME' MV" lines (spelt
 * "apply" in old versions) become PLANE = MV lines; every other line is
 * reported with the kernel interface to use instead.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "undervoltctl.h"

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

static const struct {
	const char *word;
	const char *advice;
} other[] = {
	{ "enable", "no resume trigger is needed: the kernel restores the "
	  "offsets after resume; 'systemctl enable undervoltctl.service' "
	  "applies /etc/undervolt.conf at boot" },
	{ "power", "power limits are not offsets: set them through powercap, "
	  "/sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw "
	  "(long term) and constraint_1_power_limit_uw (short term)" },
	{ "tdp", "power limits are not offsets: set them through powercap, "
	  "/sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw "
	  "(long term) and constraint_1_power_limit_uw (short term)" },
	{ "tjoffset", "the temperature target offset is set through the "
	  "intel_tcc_cooling driver: write cur_state of the "
	  "/sys/class/thermal/cooling_deviceN whose type is 'TCC Offset'" },
	{ "hwphint", "energy/performance hints are set through cpufreq: "
	  "/sys/devices/system/cpu/cpufreq/policyN/"
	  "energy_performance_preference (or power-profiles-daemon)" },
	{ "interval", "no daemon is needed: the kernel keeps the offsets and "
	  "restores them after resume" },
	{ "daemon", "no daemon is needed: the kernel keeps the offsets and "
	  "restores them after resume" },
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

/* A printable copy of a line for messages, shortened if long. */
static void quote_line(const char *p, const char *end, char *buf, size_t size)
{
	size_t n = 0;

	while (p < end && n + 4 < size)
		buf[n++] = (*p >= 0x20 && *p < 0x7f) ? *p++ : (p++, '?');
	if (p < end)
		buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
	buf[n] = '\0';
}

struct imported {
	bool set[PLANE_COUNT];
	long mv[PLANE_COUNT];
	unsigned int line[PLANE_COUNT];
};

static int convert_undervolt(const struct tokens *t, const char *file,
			     unsigned int line, struct imported *im,
			     FILE *diag)
{
	char *end;
	long idx;
	double mv;
	long whole;

	errno = 0;
	idx = t->n == 4 ? strtol(t->tok[1], &end, 10) : -1;
	if (t->n != 4 || *end || end == t->tok[1] || errno) {
		fprintf(diag, "undervoltctl: %s:%u: expected undervolt INDEX "
			"'NAME' MV; not carried over\n", file, line);
		return -1;
	}
	if (idx < 0 || idx >= (long)(sizeof(index_plane) /
				     sizeof(index_plane[0]))) {
		fprintf(diag, "undervoltctl: %s:%u: index %ld is none of "
			"intel-undervolt's planes 0 to 4; not carried over\n",
			file, line, idx);
		return -1;
	}
	errno = 0;
	mv = strtod(t->tok[3], &end);
	if (*end || end == t->tok[3] || errno || !isfinite(mv) ||
	    fabs(mv) > CONFIG_MAX_ABS_MV) {
		fprintf(diag, "undervoltctl: %s:%u: '%.32s' is not an offset "
			"in mV between -%d and %d; not carried over\n", file,
			line, t->tok[3], CONFIG_MAX_ABS_MV, CONFIG_MAX_ABS_MV);
		return -1;
	}
	whole = (long)trunc(mv);	/* toward 0: the safe side */
	if ((double)whole != mv)
		fprintf(diag, "undervoltctl: %s:%u: %s mV rounded toward 0 to "
			"%ld mV; offsets here are whole millivolts\n", file,
			line, t->tok[3], whole);
	if (im->set[index_plane[idx]])
		fprintf(diag, "undervoltctl: %s:%u: index %ld already set on "
			"line %u; this later value is used\n", file, line, idx,
			im->line[index_plane[idx]]);
	im->set[index_plane[idx]] = true;
	im->mv[index_plane[idx]] = whole;
	im->line[index_plane[idx]] = line;
	return 0;
}

static void report_other(const struct tokens *t, const char *file,
			 unsigned int line, const char *text, FILE *diag)
{
	size_t i;

	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		if (strcmp(t->tok[0], other[i].word) == 0) {
			fprintf(diag, "undervoltctl: %s:%u: '%s' not carried "
				"over; %s\n", file, line, text,
				other[i].advice);
			return;
		}
	}
	fprintf(diag, "undervoltctl: %s:%u: '%s' is no intel-undervolt "
		"directive known here; not carried over\n", file, line, text);
}

int import_convert(const char *buf, size_t len, const char *file, FILE *out,
		   FILE *diag)
{
	const char *p = buf, *end = buf + len, *nl;
	struct imported im;
	struct tokens *t;
	char text[64];
	unsigned int line = 0;
	int skipped = 0, n = 0;
	enum plane pl;

	t = malloc(sizeof(*t));
	if (!t)
		return -1;
	memset(&im, 0, sizeof(im));
	for (; p < end; p = nl ? nl + 1 : end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		line++;
		quote_line(p, nl ? nl : end, text, sizeof(text));
		if (tokenize(p, nl ? nl : end, t) < 0) {
			fprintf(diag, "undervoltctl: %s:%u: '%s' cannot be "
				"read (unterminated quote or too long); not "
				"carried over\n", file, line, text);
			skipped++;
		} else if (t->n == 0) {
			continue;
		} else if (strcmp(t->tok[0], "undervolt") == 0 ||
			   strcmp(t->tok[0], "apply") == 0) {	/* older versions */
			if (convert_undervolt(t, file, line, &im, diag) < 0)
				skipped++;
		} else {
			report_other(t, file, line, text, diag);
			skipped++;
		}
	}
	free(t);
	if (skipped)
		fprintf(diag, "undervoltctl: %d line%s of %s not carried over; "
			"see above for what to use instead\n", skipped,
			skipped == 1 ? "" : "s", file);
	for (pl = 0; pl < PLANE_COUNT; pl++)
		n += im.set[pl];
	if (n == 0)
		return 0;
	if (im.set[PLANE_CORE] && im.set[PLANE_CACHE] &&
	    im.mv[PLANE_CORE] != im.mv[PLANE_CACHE])
		fprintf(diag, "undervoltctl: %s: core and cache differ; on "
			"Skylake and later they are one plane, so give them one "
			"value before applying\n", file);
	fprintf(out, "# undervolt.conf(5), imported from %s by "
		"'undervoltctl import'.\n# Review it, then run "
		"'undervoltctl apply --dry-run'.\n", file);
	for (pl = 0; pl < PLANE_COUNT; pl++) {
		if (!im.set[pl])
			continue;
		fprintf(out, "%s = %ld\n", plane_name(pl), im.mv[pl]);
	}
	return n;
}

int cmd_import(const struct uv_opts *o)
{
	const char *file = o->argc ? o->argv[0] : UV_DEFAULT_IMPORT;
	size_t len;
	char *buf;
	int r, n;

	r = uv_slurp(file, 1024 * 1024, &buf, &len);
	if (r) {
		uv_warn("%s: %s; give the intel-undervolt configuration file "
			"as an argument", file, strerror(-r));
		return UV_EXIT_FAIL;
	}
	n = import_convert(buf, len, file, stdout, stderr);
	free(buf);
	if (n < 0) {
		uv_warn("out of memory");
		return UV_EXIT_FAIL;
	}
	if (n == 0) {
		uv_warn("%s: no undervolt line to import; is it an "
			"intel-undervolt configuration?", file);
		return UV_EXIT_FAIL;
	}
	return UV_EXIT_OK;
}
