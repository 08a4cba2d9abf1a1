// SPDX-License-Identifier: GPL-2.0
/*
 * import.c: convert an intel-undervolt configuration into undervolt.conf(5).
 *
 * intel-undervolt reads its file with a shell-like parser of its own; here
 * it is only split into words (blanks, '...' and "..." quotes, backslashes,
 * # comments), never executed. "undervolt INDEX 'NAME' MV" lines (spelt
 * "apply" in old versions) become PLANE = MV lines; every other line is
 * reported with the kernel interface to use instead.
 *
 * The input is whatever a user points it at, so it is treated as hostile:
 * binary input is refused, what is quoted back is made printable, and the
 * messages about single lines stop after MAX_NOTES.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import.h"
#include "undervoltctl.h"

#define MAX_TOKENS 8
#define MAX_TOKEN 128
/* Past this many, messages about single lines are counted, not printed. */
#define MAX_NOTES 20

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

	if (++d->notes > MAX_NOTES)
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

/* The first byte that no text file has, or NULL. */
static const char *binary_byte(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' &&
		    c != '\f')
			return buf + i;
		if (c == 0x7f)
			return buf + i;
	}
	return NULL;
}

static void write_config(const struct imported *im, const char *file,
			 const char *format, FILE *out)
{
	enum power_source src;
	enum plane pl;

	fprintf(out, "# undervolt.conf(5), imported from %s%s%s%s%s by "
		"'undervoltctl import'.\n# Review it, then run "
		"'undervoltctl apply --dry-run'.\n", file,
		format ? ", a configuration of " : "", format ? format : "",
		im->origin[0] ? ", " : "", im->origin);
	for (pl = 0; pl < PLANE_COUNT; pl++)
		if (im->set[pl])
			fprintf(out, "%s = %ld\n", plane_name(pl), im->mv[pl]);
	for (src = 0; src < SOURCE_COUNT; src++) {
		for (pl = 0; pl < PLANE_COUNT && !im->src_set[src][pl]; pl++)
			;
		if (pl == PLANE_COUNT)
			continue;
		fprintf(out, "\n[%s]\n", source_name(src));
		for (pl = 0; pl < PLANE_COUNT; pl++)
			if (im->src_set[src][pl])
				fprintf(out, "%s = %ld\n", plane_name(pl),
					im->src_mv[src][pl]);
	}
}

/*
 * On Skylake to Comet Lake core and cache are one plane, and 'undervoltctl
 * apply' refuses a pair that differs (the CPU would apply the higher
 * offset to both). Where this machine is such a CPU (COUPLED 1), a pair
 * that differs, at the top or on a power source, fails the import and is
 * written, with --partial, as the higher value for both; where it is not
 * known (-1: another CPU, or no /proc/cpuinfo), a warning says the same;
 * on Haswell and Broadwell (0) two values are fine.
 */
static void check_core_cache(struct imported *im, const char *name,
			     int coupled, FILE *diag, struct import_result *res)
{
	long core, cache, high;
	int view;

	for (view = -1; view < SOURCE_COUNT && coupled != 0; view++) {
		bool sc = view >= 0 && im->src_set[view][PLANE_CORE];
		bool sk = view >= 0 && im->src_set[view][PLANE_CACHE];
		long *pcore, *pcache;

		if ((!im->set[PLANE_CORE] && !sc) ||
		    (!im->set[PLANE_CACHE] && !sk) || (view >= 0 && !sc && !sk))
			continue;
		pcore = sc ? &im->src_mv[view][PLANE_CORE] : &im->mv[PLANE_CORE];
		pcache = sk ? &im->src_mv[view][PLANE_CACHE] :
			      &im->mv[PLANE_CACHE];
		core = *pcore;
		cache = *pcache;
		if (core == cache)
			continue;
		high = core > cache ? core : cache;
		if (coupled < 0) {
			fprintf(diag, "undervoltctl: %s: core and cache differ%s%s "
				"(%ld and %ld mV); on Skylake and later they are "
				"one plane, the CPU uses the higher offset (%ld mV) "
				"and 'undervoltctl apply' refuses the pair: give "
				"both the value you mean\n", name,
				view >= 0 ? " on " : "",
				view >= 0 ? source_name(view) : "", core, cache,
				high);
			continue;
		}
		fprintf(diag, "undervoltctl: %s: core and cache differ%s%s (%ld "
			"and %ld mV), and this CPU has them as one plane "
			"(Skylake to Comet Lake): 'undervoltctl apply' would "
			"refuse the pair; give both the value you mean in the "
			"file, e.g. %ld mV, the one the CPU uses (with "
			"--partial both are written as %ld mV)\n", name,
			view >= 0 ? " on " : "",
			view >= 0 ? source_name(view) : "", core, cache, high,
			high);
		res->failed++;
		if (view < 0) {
			*pcore = high;
			*pcache = high;
			continue;
		}
		/* In the section, even where one came from the top. */
		im->src_set[view][PLANE_CORE] = true;
		im->src_set[view][PLANE_CACHE] = true;
		im->src_mv[view][PLANE_CORE] = high;
		im->src_mv[view][PLANE_CACHE] = high;
	}
}

/* One line at a time, as intel-undervolt's own parser reads it. */
static int convert_intel_undervolt(const char *buf, size_t len,
				   struct imported *im, struct diag *d,
				   struct import_result *res)
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

enum format { FORMAT_INTEL_UNDERVOLT, FORMAT_THROTTLED, FORMAT_THROTTLESTOP };

/*
 * intel-undervolt's files have no sections; throttled's and ThrottleStop's
 * are INI files, ThrottleStop's with a [ThrottleStop] section and
 * FIVRVoltage keys.
 */
static enum format detect_format(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	bool ini = false;

	for (; p < end; p = nl ? nl + 1 : end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(end - p) >= 14 &&
		    strncasecmp(p, "[ThrottleStop]", 14) == 0)
			return FORMAT_THROTTLESTOP;
		if ((size_t)(end - p) >= 11 &&
		    strncasecmp(p, "FIVRVoltage", 11) == 0)
			return FORMAT_THROTTLESTOP;
		if (p < end && *p == '[')
			ini = true;
	}
	return ini ? FORMAT_THROTTLED : FORMAT_INTEL_UNDERVOLT;
}

int import_convert(const char *buf, size_t len, const char *file,
		   unsigned int profile, int coupled, FILE *out, FILE *diag,
		   struct import_result *res)
{
	struct diag d = { .f = diag };
	const char *p, *bad;
	struct imported im;
	unsigned int line = 0;
	char name[128];
	enum plane pl;
	int r = 0;

	memset(res, 0, sizeof(*res));
	memset(&im, 0, sizeof(im));
	import_printable(file, strlen(file), name, sizeof(name));
	d.file = name;
	/* A UTF-8 byte order mark (Notepad's): no part of the first line. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		buf += 3;
		len -= 3;
	}
	bad = binary_byte(buf, len);
	if (bad) {
		for (p = buf; p < bad; p++)
			line += *p == '\n';
		fprintf(diag, "undervoltctl: %s:%u: byte 0x%02x: this is not a "
			"text file, so not a configuration to import; nothing "
			"was imported\n", name, line + 1, (unsigned char)*bad);
		res->binary = true;
		return 0;
	}
	switch (detect_format(buf, len)) {
	case FORMAT_INTEL_UNDERVOLT:
		r = convert_intel_undervolt(buf, len, &im, &d, res);
		break;
	case FORMAT_THROTTLED:
		res->format = "throttled";
		r = import_throttled(buf, len, &im, &d, res);
		break;
	case FORMAT_THROTTLESTOP:
		res->format = "ThrottleStop";
		r = import_throttlestop(buf, len, profile, &im, &d, res);
		break;
	}
	if (profile && !res->format)
		fprintf(diag, "undervoltctl: %s: --profile is for a "
			"ThrottleStop.ini; an intel-undervolt configuration "
			"has none, so it is ignored\n", name);
	else if (profile && strcmp(res->format, "ThrottleStop") != 0)
		fprintf(diag, "undervoltctl: %s: --profile is for a "
			"ThrottleStop.ini; a throttled configuration's [ac] "
			"and [battery] both carry over, so it is ignored\n",
			name);
	if (r < 0)
		return -1;
	if (d.notes > MAX_NOTES)
		fprintf(diag, "undervoltctl: %s: %u more messages not shown\n",
			name, d.notes - MAX_NOTES);
	for (pl = 0; pl < PLANE_COUNT; pl++)
		res->planes += im.set[pl] || im.src_set[SOURCE_AC][pl] ||
			       im.src_set[SOURCE_BATTERY][pl];
	if (res->planes == 0)
		return 0;
	check_core_cache(&im, name, coupled, diag, res);
	write_config(&im, name, res->format, out);
	return 0;
}

/* The converted text to standard output, or whole to FILE (-o), or nothing. */
static int write_output(const char *file, const char *text, size_t len,
			int planes)
{
	char why[PATH_MAX + 256];

	if (!file || strcmp(file, "-") == 0) {
		if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) {
			uv_warn("standard output: %s; the import is incomplete",
				strerror(errno));
			return UV_EXIT_FAIL;
		}
		return UV_EXIT_OK;
	}
	if (uv_replace_file(file, text, len, why, sizeof(why))) {
		uv_warn("%s: %s", file, why);
		return UV_EXIT_FAIL;
	}
	printf("wrote %s: %d plane%s; review it, then run 'undervoltctl apply "
	       "--dry-run %s'\n", file, planes, planes == 1 ? "" : "s", file);
	return UV_EXIT_OK;
}

int cmd_import(const struct uv_sysfs *s, const struct uv_opts *o)
{
	const char *path = o->argc ? o->argv[0] : UV_DEFAULT_IMPORT;
	const char *file = uv_input_name(path);
	struct import_result res;
	char *buf, *text = NULL;
	size_t len, tlen = 0;
	FILE *out;
	int r, code = UV_EXIT_FAIL;

	r = uv_slurp(path, CONFIG_MAX_SIZE, &buf, &len);
	if (r == -EFBIG) {
		uv_warn("%s: larger than %d KiB, where an intel-undervolt "
			"configuration takes a few hundred bytes: is it the "
			"right file? nothing was imported", file,
			CONFIG_MAX_SIZE / 1024);
		return UV_EXIT_USAGE;
	}
	if (r) {
		uv_warn("%s: %s; nothing was imported%s", file, strerror(-r),
			o->argc ? "" : "; give the intel-undervolt "
			"configuration file as an argument");
		return UV_EXIT_FAIL;
	}
	/* Held in memory: nothing reaches the output unless all is well. */
	out = open_memstream(&text, &tlen);
	r = out ? import_convert(buf, len, file, o->profile,
				 uv_this_cpu_couples(s), out, stderr, &res) : -1;
	if (out && fclose(out))
		r = -1;
	free(buf);
	if (r < 0) {
		uv_warn("out of memory");
		goto done;
	}
	if (res.binary) {
		code = UV_EXIT_USAGE;
		goto done;
	}
	if (res.failed + res.advised)
		uv_warn("%s: %d line%s not carried over as written; see above for "
			"why and what to use instead", file,
			res.failed + res.advised,
			res.failed + res.advised == 1 ? "" : "s");
	if (res.planes == 0 && res.commented) {
		uv_warn("%s: every undervolt line is commented out (%d of "
			"them); remove the '#' before those you want, then "
			"import again", file, res.commented);
		goto done;
	}
	if (res.planes == 0) {
		if (res.format && strcmp(res.format, "ThrottleStop") == 0)
			uv_warn("%s: no FIVR offset in use in that profile "
				"(UnlockVoltage and a non-zero FIVRVoltage); "
				"nothing to import", file);
		else
			uv_warn("%s: no %s to import; is it %s configuration?",
				file, res.format ? "undervolt offset" :
				"undervolt line", res.format ? "a throttled" :
				"an intel-undervolt");
		goto done;
	}
	if (res.failed && !o->partial) {
		uv_warn("%s: %d line%s could not be converted; nothing was "
			"written: fix %s, or give --partial to import the rest",
			file, res.failed, res.failed == 1 ? "" : "s",
			res.failed == 1 ? "it" : "them");
		goto done;
	}
	code = write_output(o->output, text, tlen, res.planes);
done:
	free(text);
	return code;
}
