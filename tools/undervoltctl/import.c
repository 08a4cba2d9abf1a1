// SPDX-License-Identifier: GPL-2.0
/*
 * import.c: undervoltctl import, and the dispatcher above the importers.
 *
 * The input is whatever a user points it at, so it is treated as hostile:
 * binary input is refused here, before any importer sees it; the format is
 * told from the text (import_intel_undervolt.c, import_throttled.c,
 * import_throttlestop.c convert one each); what they carried over is
 * checked for core and cache as one plane and written as undervolt.conf(5),
 * to standard output or whole to -o FILE (outfile.c). The importers share
 * only import_text.c, which is below all of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import.h"
#include "undervoltctl.h"

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
 * On Skylake to Raptor Lake core and cache are one plane, and 'undervoltctl
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
			"(Skylake to Raptor Lake): 'undervoltctl apply' would "
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
		r = import_intel_undervolt(buf, len, &im, &d, res);
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
	if (d.notes > IMPORT_MAX_NOTES)
		fprintf(diag, "undervoltctl: %s: %u more messages not shown\n",
			name, d.notes - IMPORT_MAX_NOTES);
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
