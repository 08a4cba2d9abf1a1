// SPDX-License-Identifier: GPL-2.0
/*
 * tune_journal.c: the state of a tune search on disk.
 *
 * The search must survive the crashes it causes, so everything it knows
 * is in one text file, replaced whole (uv_write_atomic: a temporary file,
 * fsync, rename, fsync of the directory) before each step and after it.
 * A crash leaves either the old or the new journal, never a mix.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"
#include "undervoltctl.h"

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

int tune_journal_path(const char *dir, const char *name, char *buf,
		      size_t size)
{
	return uv_path(buf, size, "%s/%s", dir, name);
}

int tune_journal_save(const char *dir, const struct tune_journal *j)
{
	char path[PATH_MAX], *text = NULL;
	size_t len = 0, i;
	FILE *f;
	int r;

	if (tune_journal_path(dir, TUNE_JOURNAL, path, sizeof(path)))
		return -ENAMETOOLONG;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "# undervoltctl tune journal; see undervoltctl(8)\n");
	fprintf(f, "version 1\n");
	fprintf(f, "state %s\n", tune_state_name(j->state));
	fprintf(f, "config %s\n", j->config);
	fprintf(f, "settings %d %d %d %u %u %d %d %u %d %d\n", j->start,
		j->step, j->resolution, j->runs, j->duration, j->margin,
		j->limit, j->max_crashes, j->resume, j->coupled);
	fprintf(f, "trial-saved %ld\n", j->trial_saved);
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
	if (j->in_step)
		fprintf(f, "step %s %d\n", plane_name(j->step_plane),
			j->step_mv);
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	r = uv_write_atomic(path, text, len);
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
	} else if (sscanf(line, "trial-saved %ld %n", &j->trial_saved,
			  &n) == 1 && !line[n]) {
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
	} else if (sscanf(line, "step %31s %d %n", word, &mv, &n) == 2 &&
		   !line[n]) {
		int p = plane_lookup(word, strlen(word));

		if (p < 0)
			return -EINVAL;
		j->in_step = true;
		j->step_plane = (enum plane)p;
		j->step_mv = mv;
	} else if (strcmp(line, "version 1") != 0) {
		return -EINVAL;
	}
	return 0;
}

int tune_journal_load(const char *dir, struct tune_journal *j)
{
	char path[PATH_MAX], *buf, *line, *next;
	unsigned int lineno = 0;
	size_t len;
	int r;

	memset(j, 0, sizeof(*j));
	if (tune_journal_path(dir, TUNE_JOURNAL, path, sizeof(path)))
		return -ENAMETOOLONG;
	r = uv_slurp(path, 1 << 20, &buf, &len);
	if (r)
		return r;
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (parse_line(line, j)) {
			uv_warn("%s: line %u does not parse: '%s'; the journal "
				"is damaged: move it away to start over", path,
				lineno, line);
			free(buf);
			return -EINVAL;
		}
	}
	free(buf);
	if (j->nplanes == 0 || !j->config[0] || j->runs == 0) {
		uv_warn("%s: incomplete journal; move it away to start over",
			path);
		return -EINVAL;
	}
	return 0;
}
