// SPDX-License-Identifier: GPL-2.0
/*
 * tune_journal.c: the state of a tune search on disk.
 *
 * The search must survive the crashes it causes, so everything it knows
 * is in one text file, replaced whole (uv_write_atomic: a temporary file,
 * fsync, rename, fsync of the directory) before each step and after it.
 * A crash leaves either the old or the new journal, never a mix.
 *
 * What the journal says is written to the CPU and to the configuration
 * that is applied at every boot, so nothing in it is taken on trust: it
 * ends with a CRC-32 of everything before it, and every value is checked
 * against the bounds of the command line (tune_journal_validate()) and,
 * where the driver is bound, against the driver and the CPU
 * (tune_journal_check_driver()). A journal that fails stops the search
 * and applies nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"
#include "undervoltctl.h"

#define JOURNAL_VERSION "version 2"

static const char *const outcome_names[] = {
	[TUNE_PASS] = "pass",
	[TUNE_WRONG] = "wrong-result",
	[TUNE_STALL] = "stall",
	[TUNE_MCE] = "machine-check",
	[TUNE_TAINT] = "taint",
	[TUNE_CRASH] = "crash",
};

static const char *const state_names[] = {
	[TUNE_RUNNING] = "running",
	[TUNE_DONE] = "done",
	[TUNE_GAVE_UP] = "gave-up",
	[TUNE_ABORTED] = "aborted",
};

const char *tune_outcome_name(enum tune_outcome o)
{
	return outcome_names[o];
}

const char *tune_state_name(enum tune_state s)
{
	return state_names[s];
}

static int lookup(const char *const *names, size_t n, const char *word)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], word) == 0)
			return (int)i;
	return -1;
}

unsigned long tune_crc32(const char *data, size_t len)
{
	unsigned long crc = 0xffffffffUL;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= (unsigned char)data[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320UL & (0UL - (crc & 1)));
	}
	return crc ^ 0xffffffffUL;
}

int tune_journal_save(const char *dir, const struct tune_journal *j)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;
	int r;

	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "# undervoltctl tune journal; see undervoltctl(8)\n");
	fprintf(f, "%s\n", JOURNAL_VERSION);
	fprintf(f, "state %s\n", tune_state_name(j->state));
	fprintf(f, "config %s\n", j->config);
	fprintf(f, "settings %d %d %d %u %u %d %d %u %d %d\n", j->start,
		j->step, j->resolution, j->runs, j->duration, j->margin,
		j->limit, j->max_crashes, j->resume, j->coupled);
	fprintf(f, "crashes %u\n", j->crashes);
	fprintf(f, "plane-index %u\n", j->plane_index);
	for (i = 0; i < j->nplanes; i++)
		fprintf(f, "plane %s %d\n", plane_name(j->planes[i]),
			j->original[i]);
	for (i = 0; i < j->nresults; i++)
		fprintf(f, "result %s %d %s %u\n",
			plane_name(j->results[i].plane), j->results[i].mv,
			tune_outcome_name(j->results[i].outcome),
			j->results[i].seconds);
	for (i = 0; i < j->nverify; i++)
		fprintf(f, "verify %d %d %s %u\n", j->verify[i].core,
			j->verify[i].cache,
			tune_outcome_name(j->verify[i].outcome),
			j->verify[i].seconds);
	if (j->in_step && j->step_verify)
		fprintf(f, "step verify %d %d\n", j->step_mv, j->step_cache);
	else if (j->in_step)
		fprintf(f, "step %s %d\n", plane_name(j->step_plane),
			j->step_mv);
	fflush(f);
	fprintf(f, "checksum crc32 %08lx\n", tune_crc32(text, len));
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	r = state_write(dir, TUNE_JOURNAL, text, len);
	free(text);
	return r;
}

/* One "KEY ARGS" line into J; -EINVAL when it does not parse. */
static int parse_line(char *line, struct tune_journal *j)
{
	char word[32], word2[32];
	int mv, n = 0, a[7];
	unsigned int u, v, w;

	if (sscanf(line, "state %31s %n", word, &n) == 1 && !line[n]) {
		int s = lookup(state_names, TUNE_STATE_COUNT, word);

		if (s < 0)
			return -EINVAL;
		j->state = (enum tune_state)s;
	} else if (strncmp(line, "config ", 7) == 0) {
		if (uv_path(j->config, sizeof(j->config), "%s", line + 7))
			return -EINVAL;
	} else if (sscanf(line, "settings %d %d %d %u %u %d %d %u %d %d %n",
			  &a[0], &a[1], &a[2], &u, &v, &a[3], &a[4], &w,
			  &a[5], &a[6], &n) == 10 && !line[n]) {
		j->start = a[0];
		j->step = a[1];
		j->resolution = a[2];
		j->runs = u;
		j->duration = v;
		j->margin = a[3];
		j->limit = a[4];
		j->max_crashes = w;
		j->resume = a[5] != 0;
		j->coupled = a[6] != 0;
	} else if (sscanf(line, "crashes %u %n", &j->crashes, &n) == 1 &&
		   !line[n]) {
	} else if (sscanf(line, "plane-index %u %n", &j->plane_index,
			  &n) == 1 && !line[n]) {
	} else if (sscanf(line, "plane %31s %d %n", word, &mv, &n) == 2 &&
		   !line[n]) {
		int p = plane_lookup(word, strlen(word));

		if (p < 0 || j->nplanes >= PLANE_COUNT)
			return -EINVAL;
		j->planes[j->nplanes] = (enum plane)p;
		j->original[j->nplanes++] = mv;
	} else if (sscanf(line, "result %31s %d %31s %u %n", word, &mv, word2,
			  &u, &n) == 4 && !line[n]) {
		int p = plane_lookup(word, strlen(word));
		int o = lookup(outcome_names, TUNE_OUTCOME_COUNT, word2);

		if (p < 0 || o < 0 || j->nresults >= TUNE_MAX_RESULTS)
			return -EINVAL;
		j->results[j->nresults].plane = (enum plane)p;
		j->results[j->nresults].mv = mv;
		j->results[j->nresults].outcome = (enum tune_outcome)o;
		j->results[j->nresults++].seconds = u;
	} else if (sscanf(line, "verify %d %d %31s %u %n", &a[0], &a[1], word,
			  &u, &n) == 4 && !line[n]) {
		int o = lookup(outcome_names, TUNE_OUTCOME_COUNT, word);

		if (o < 0 || j->nverify >= TUNE_MAX_VERIFY)
			return -EINVAL;
		j->verify[j->nverify].core = a[0];
		j->verify[j->nverify].cache = a[1];
		j->verify[j->nverify].outcome = (enum tune_outcome)o;
		j->verify[j->nverify++].seconds = u;
	} else if (sscanf(line, "step verify %d %d %n", &a[0], &a[1], &n) == 2 &&
		   !line[n]) {
		j->in_step = j->step_verify = true;
		j->step_mv = a[0];
		j->step_cache = a[1];
	} else if (sscanf(line, "step %31s %d %n", word, &mv, &n) == 2 &&
		   !line[n]) {
		int p = plane_lookup(word, strlen(word));

		if (p < 0)
			return -EINVAL;
		j->in_step = true;
		j->step_plane = (enum plane)p;
		j->step_mv = mv;
	} else if (strcmp(line, JOURNAL_VERSION) != 0) {
		return -EINVAL;
	}
	return 0;
}

/* The last line, "checksum crc32 HEX", against the text before it. */
static int check_sum(const char *buf, size_t len)
{
	const char *last;
	unsigned long want;
	int n = 0;

	if (len < 2 || buf[len - 1] != '\n')
		return -1;
	for (last = buf + len - 1; last > buf && last[-1] != '\n'; last--)
		;
	if (sscanf(last, "checksum crc32 %8lx %n", &want, &n) != 1 ||
	    last[n] != '\0')
		return -1;
	return tune_crc32(buf, (size_t)(last - buf)) == want ? 0 : -1;
}

/* Said once for every kind of damage: what it means, what to do. */
static int damaged(const char *dir, const char *what)
{
	uv_warn("%s/%s: %s: the journal is damaged; the search stops and "
		"nothing is applied: move it away (mv %s/%s %s/%s.damaged) to "
		"start over", dir, TUNE_JOURNAL, what, dir, TUNE_JOURNAL, dir,
		TUNE_JOURNAL);
	return -EINVAL;
}

static bool in(int v, int lo, int hi)
{
	return v >= lo && v <= hi;
}

static bool has_plane(const struct tune_journal *j, enum plane p)
{
	size_t i;

	for (i = 0; i < j->nplanes; i++)
		if (j->planes[i] == p)
			return true;
	return false;
}

/*
 * Every value within what the command line accepts: a damaged journal
 * must not load a duration of 0 s, a margin below 0 or an offset below
 * the limit of the search.
 */
static const char *validate(const struct tune_journal *j)
{
	size_t i, k;

	if (!in(j->start, -500, 0) || !in(j->step, 1, 200) ||
	    !in(j->resolution, 1, 100) || !in((int)j->runs, 1, 100) ||
	    !in((int)j->duration, 1, 86400) || !in(j->margin, 0, 200) ||
	    !in(j->limit, -500, 0) || j->start < j->limit ||
	    !in((int)j->max_crashes, 0, 100))
		return "a setting is outside what tune accepts";
	if (j->config[0] != '/')
		return "the configuration is not an absolute path";
	if (j->nplanes == 0 || j->plane_index > j->nplanes ||
	    j->crashes > j->max_crashes + 1)
		return "the planes or counters do not add up";
	for (i = 0; i < j->nplanes; i++) {
		for (k = 0; k < i; k++)
			if (j->planes[k] == j->planes[i])
				return "a plane is listed twice";
		if (!in(j->original[i], -500, 500))
			return "an offset to go back to is beyond 500 mV";
		if (j->coupled && j->planes[i] == PLANE_CACHE)
			return "cache is searched alone on a coupled CPU";
	}
	for (i = 0; i < j->nresults; i++)
		if (!has_plane(j, j->results[i].plane) ||
		    !in(j->results[i].mv, j->limit, 0))
			return "a value tested is outside the search";
	for (i = 0; i < j->nverify; i++)
		if (j->coupled || !in(j->verify[i].core, j->limit, 500) ||
		    !in(j->verify[i].cache, j->limit, 500))
			return "a combined value is outside the search";
	if (j->in_step && !j->step_verify &&
	    (!has_plane(j, j->step_plane) || !in(j->step_mv, j->limit, 0)))
		return "the value under test is outside the search";
	if (j->in_step && j->step_verify &&
	    (j->coupled || !in(j->step_mv, j->limit, 500) ||
	     !in(j->step_cache, j->limit, 500)))
		return "the combined value under test is outside the search";
	return NULL;
}

int tune_journal_load(const char *dir, struct tune_journal *j)
{
	char *buf, *line, *next, what[128];
	const char *bad;
	unsigned int lineno = 0;
	size_t len;
	int r;

	memset(j, 0, sizeof(*j));
	r = state_slurp(dir, TUNE_JOURNAL, 1 << 20, &buf, &len);
	if (r)
		return r;
	if (check_sum(buf, len)) {
		free(buf);
		return damaged(dir, "its checksum does not match, or it has "
			       "none (written by an older undervoltctl?)");
	}
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (line[0] == '#' || line[0] == '\0' ||
		    strncmp(line, "checksum ", 9) == 0)
			continue;
		if (parse_line(line, j)) {
			snprintf(what, sizeof(what), "line %u does not parse: "
				 "'%.60s'", lineno, line);
			free(buf);
			return damaged(dir, what);
		}
	}
	free(buf);
	bad = validate(j);
	return bad ? damaged(dir, bad) : 0;
}

int tune_journal_needed(const char *dir, struct tune_journal *j,
			const char *what)
{
	int r = tune_journal_load(dir, j);

	if (r == -ENOENT)
		uv_warn("tune: no search on record in %s: %s; start one with "
			"'undervoltctl tune'", dir, what);
	return r ? UV_EXIT_FAIL : 0;
}

int tune_journal_check_driver(const struct uv_sysfs *s,
			      const struct tune_journal *j, const char *dir)
{
	struct uv_package_list list;
	char what[160];
	long min, max;
	size_t i, k;

	if (tune_couples(s) != j->coupled)
		return damaged(dir, j->coupled ? "it couples core and cache, "
			       "this CPU does not" : "this CPU couples core and "
			       "cache, the journal does not");
	if (sysfs_bounds(s, &min, &max) || sysfs_packages(s, &list))
		return 0;	/* said when the search writes */
	if (j->limit < min)
		return damaged(dir, "its limit is below the driver's "
			       "min_offset_mv");
	for (i = 0; i < j->nplanes; i++) {
		if (j->original[i] < min || j->original[i] > max) {
			snprintf(what, sizeof(what), "%s's offset to go back "
				 "to, %d mV, is outside the driver's bounds",
				 plane_name(j->planes[i]), j->original[i]);
			return damaged(dir, what);
		}
		for (k = 0; k < list.n; k++)
			if (!sysfs_has_plane(s, list.id[k], j->planes[i])) {
				snprintf(what, sizeof(what), "package %u has no "
					 "%s plane", list.id[k],
					 plane_name(j->planes[i]));
				return damaged(dir, what);
			}
	}
	return 0;
}

/* Save the journal, or say why not: the search cannot go on without it. */
int tune_save(const char *dir, const struct tune_journal *j)
{
	int r = tune_journal_save(dir, j);

	if (r)
		uv_warn("tune: cannot write the journal in %s: %s; stopped, "
			"nothing is applied", dir, strerror(-r));
	return r;
}
