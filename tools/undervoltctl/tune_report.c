// SPDX-License-Identifier: GPL-2.0
/*
 * tune_report.c: the result of undervoltctl tune: the configuration it
 * writes, with the evidence, and tune --report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tune.h"
#include "undervoltctl.h"

/* The text of /proc/cpuinfo, to free; NULL when it cannot be read. */
char *tune_read_cpuinfo(const struct uv_sysfs *s)
{
	char path[PATH_MAX], *buf;
	size_t len;

	if (uv_path(path, sizeof(path), "%s/cpuinfo", s->proc) ||
	    uv_slurp(path, 1 << 22, &buf, &len))
		return NULL;
	return buf;
}

/* Skylake to Comet Lake: core and cache share one voltage. */
bool tune_couples(const struct uv_sysfs *s)
{
	static const unsigned int coupled[] = {
		0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6,
	};
	char *info = tune_read_cpuinfo(s), family[16], model[16];
	bool ret = false;
	size_t i;

	if (!info)
		return false;
	if (uv_cpuinfo_value(info, "cpu family", family, sizeof(family)) &&
	    uv_cpuinfo_value(info, "model", model, sizeof(model)) &&
	    strtoul(family, NULL, 10) == 6)
		for (i = 0; i < sizeof(coupled) / sizeof(coupled[0]); i++)
			if (strtoul(model, NULL, 10) == coupled[i])
				ret = true;
	free(info);
	return ret;
}

/* A field of /proc/cpuinfo for the result's evidence, or "unknown". */
void tune_cpuinfo_field(const struct uv_sysfs *s, const char *key,
			  char *out, size_t size)
{
	char *info = tune_read_cpuinfo(s);

	if (!info || !uv_cpuinfo_value(info, key, out, size))
		snprintf(out, size, "unknown");
	free(info);
}

static void describe_plane(FILE *f, const struct tune_journal *j,
			   enum plane plane)
{
	size_t i;

	fprintf(f, "# %s, values tested:", plane_name(plane));
	for (i = 0; i < j->nresults; i++) {
		const struct tune_result *r = &j->results[i];

		if (r->plane != plane)
			continue;
		fprintf(f, "\n#   %5d mV  %-13s %u s of load", r->mv,
			tune_outcome_name(r->outcome), r->seconds);
	}
	fputc('\n', f);
}

/* The configuration text of a finished search, evidence first. */
static char *result_text(const struct uv_sysfs *s,
			 const struct tune_journal *j, size_t *len)
{
	char model[128], ucode[32], when[64], *text = NULL;
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;
	size_t i;

	tune_cpuinfo_field(s, "model name", model, sizeof(model));
	tune_cpuinfo_field(s, "microcode", ucode, sizeof(ucode));
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime_r(&now, &tm));
	f = open_memstream(&text, len);
	if (!f)
		return NULL;
	fprintf(f, "# Written by undervoltctl tune on %s. See undervolt.conf(5).\n"
		"# CPU: %s, microcode %s\n"
		"# Load: verified FMA matrix multiply and 64-bit multiply chains, on\n"
		"# every CPU, then on each CPU alone; %u run(s) of %u s per value;\n"
		"# a value failed on a wrong result, a stalled worker, a machine\n"
		"# check, a new kernel taint or a crash.\n",
		when, model, ucode, j->runs, j->duration);
	for (i = 0; i < j->nplanes; i++) {
		enum plane p = j->planes[i];
		bool found;
		int mv;

		describe_plane(f, j, p);
		tune_next_value(j, p, &mv, &found);
		if (!found) {
			fprintf(f, "# %s: unstable even at %d mV: no offset\n",
				plane_name(p), j->start < 0 ? 0 : j->start);
			continue;
		}
		fprintf(f, "# %s: lowest value that passed %d mV, plus a margin "
			"of %d mV\n", plane_name(p), mv, j->margin);
		fprintf(f, "%s = %d\n", plane_name(p), tune_final_value(j, mv));
		if (p == PLANE_CORE && j->coupled)
			fprintf(f, "%s = %d\n", plane_name(PLANE_CACHE),
				tune_final_value(j, mv));
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
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

int tune_finish(const struct uv_sysfs *s, struct tune_journal *j,
		  const char *dir)
{
	char backup[PATH_MAX + 16], *text;
	size_t len, i;
	int r;

	for (i = 0; i < j->nplanes; i++)
		tune_set_plane(s, j->planes[i], j->original[i]);
	tune_trial_confirm(s);
	if (j->trial_saved >= 0)
		tune_trial_set(s, j->trial_saved);
	text = result_text(s, j, &len);
	if (!text) {
		uv_warn("tune: out of memory");
		return UV_EXIT_FAIL;
	}
	/* The user's own configuration is kept beside it, not lost. */
	if (access(j->config, F_OK) == 0 &&
	    !uv_path(backup, sizeof(backup), "%s.before-tune", j->config)) {
		char *old;
		size_t olen;

		if (!uv_slurp(j->config, CONFIG_MAX_SIZE, &old, &olen)) {
			if (!strstr(old, "# Written by undervoltctl tune"))
				uv_write_atomic(backup, old, olen);
			free(old);
		}
	}
	r = uv_write_atomic(j->config, text, len);
	if (r) {
		uv_warn("tune: cannot write %s: %s; the result is:\n%s",
			j->config, strerror(-r), text);
		free(text);
		return UV_EXIT_FAIL;
	}
	j->state = TUNE_DONE;
	if (tune_save(dir, j)) {
		free(text);
		return UV_EXIT_FAIL;
	}
	printf("tune: done; %s now holds:\n%s", j->config, text);
	printf("tune: apply it with 'undervoltctl apply' (undervoltctl.service "
	       "does at boot)\n");
	free(text);
	return UV_EXIT_OK;
}

int tune_report(const struct tune_cmd *c)
{
	struct tune_journal *j = c->j;
	char *text;
	size_t len, i;
	int r;

	r = tune_journal_load(c->state_dir, j);
	if (r == -ENOENT) {
		uv_warn("tune: no search on record in %s; start one with "
			"'undervoltctl tune'", c->state_dir);
		return UV_EXIT_FAIL;
	}
	if (r)
		return UV_EXIT_FAIL;
	printf("search: %s; %zu value(s) tested; %u crash(es) in a row\n",
	       tune_state_name(j->state), j->nresults, j->crashes);
	for (i = 0; i < j->nresults; i++)
		printf("  %-8s %5d mV  %-13s %u s\n",
		       plane_name(j->results[i].plane), j->results[i].mv,
		       tune_outcome_name(j->results[i].outcome),
		       j->results[i].seconds);
	if (j->in_step)
		printf("  %-8s %5d mV  under test\n", plane_name(j->step_plane),
		       j->step_mv);
	if (j->state == TUNE_DONE &&
	    !uv_slurp(j->config, CONFIG_MAX_SIZE, &text, &len)) {
		printf("result (%s):\n%s", j->config, text);
		free(text);
	}
	return UV_EXIT_OK;
}
