// SPDX-License-Identifier: GPL-2.0
/*
 * tune_result.c: the result of undervoltctl tune: the configuration it
 * writes at the end of a search, the evidence first (CPU, microcode, the
 * load, every value tested and how it ended), the user's own file kept as
 * FILE.before-tune.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trial.h"
#include "tune.h"
#include "undervoltctl.h"

/* A field of /proc/cpuinfo for the result's evidence, or "unknown". */
static void cpuinfo_field(const struct uv_sysfs *s, const char *key,
			  char *out, size_t size)
{
	char *info = uv_read_cpuinfo(s);

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

static void describe_verify(FILE *f, const struct tune_journal *j)
{
	size_t i;

	fprintf(f, "# core and cache together (this CPU does not couple them), "
		"values tested:");
	for (i = 0; i < j->nverify; i++)
		fprintf(f, "\n#   core %5d mV, cache %5d mV  %-13s %u s of load",
			j->verify[i].core, j->verify[i].cache,
			tune_outcome_name(j->verify[i].outcome),
			j->verify[i].seconds);
	fputc('\n', f);
}

/* The configuration text of a finished search, evidence first. */
static char *result_text(const struct uv_sysfs *s,
			 const struct tune_journal *j, size_t *len)
{
	char model[128], ucode[32], when[64], *text = NULL;
	time_t now = time(NULL);
	bool verified = j->nverify > 0;
	struct tm tm;
	FILE *f;
	size_t i;

	cpuinfo_field(s, "model name", model, sizeof(model));
	cpuinfo_field(s, "microcode", ucode, sizeof(ucode));
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
		if (verified || !tune_result_value(j, i, &mv))
			continue;
		fprintf(f, "%s = %d\n", plane_name(p), mv);
		if (p == PLANE_CORE && j->coupled)
			fprintf(f, "%s = %d\n", plane_name(PLANE_CACHE), mv);
	}
	if (verified) {
		describe_verify(f, j);
		if (j->verify[j->nverify - 1].outcome != TUNE_PASS)
			fprintf(f, "# together they failed even one --step "
				"below 0 mV: no offset\n");
		for (i = 0; i < j->nplanes; i++) {
			int mv;

			if (tune_result_value(j, i, &mv))
				fprintf(f, "%s = %d\n", plane_name(j->planes[i]),
					mv);
		}
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * The user's configuration is kept as FILE.before-tune, with its owner,
 * mode, ACL and labels, unless tune wrote it; the new one gets them too
 * (outfile.c, both). FD is the old file, or -1.
 */
static int keep_old(const char *config, int fd)
{
	char backup[PATH_MAX + 16], *old = NULL;
	size_t olen;
	bool ours;
	int r;

	if (fd < 0)
		return 0;
	r = uv_slurp_fd(fd, CONFIG_MAX_SIZE, &old, &olen);
	ours = !r && strstr(old, "# Written by undervoltctl tune");
	free(old);
	if (ours)
		return 0;
	r = uv_path(backup, sizeof(backup), "%s.before-tune", config);
	if (!r)
		r = uv_copy_file(config, backup);
	if (r)
		uv_warn("tune: cannot keep %s as %s.before-tune: %s; nothing is "
			"written", config, config, strerror(-r));
	return r;
}

int tune_finish(const struct uv_sysfs *s, struct tune_journal *j,
		const char *dir)
{
	char *text;
	size_t len;
	int r, fd = -1;

	r = tune_restore(s, j);
	if (r)
		uv_warn("tune: cannot put the offsets back to their values "
			"before the search: %s", strerror(-r));
	else
		trial_disarm_owner(s, "tune");
	text = result_text(s, j, &len);
	if (!text) {
		uv_warn("tune: out of memory");
		return UV_EXIT_FAIL;
	}
	r = uv_trusted_file(j->config, "tune: the configuration");
	if (!r) {
		fd = open(j->config, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		r = keep_old(j->config, fd);
	}
	if (!r)
		r = uv_write_atomic(j->config, text, len);
	if (fd >= 0)
		close(fd);
	if (r) {
		uv_warn("tune: %s is not written (%s); the result is:\n%s",
			j->config, strerror(r < 0 ? -r : EPERM), text);
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
