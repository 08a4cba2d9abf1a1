// SPDX-License-Identifier: GPL-2.0
/*
 * tune_report.c: undervoltctl tune --report: the search on record as
 * text, the values tested and how each ended, and the result; with --svg
 * FILE the same drawn (tune_svg.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"
#include "undervoltctl.h"

/* The drawing to FILE, whole or not at all, or alone to standard output. */
static int write_svg(const struct tune_journal *j, const char *file)
{
	char *text = NULL, why[PATH_MAX + 256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int r = f ? tune_svg(j, f) : -1;

	if (f && fclose(f))
		r = -1;
	if (r) {
		free(text);
		uv_warn("tune: out of memory; no drawing written");
		return UV_EXIT_FAIL;
	}
	if (strcmp(file, "-") == 0) {
		r = fwrite(text, 1, len, stdout) != len || fflush(stdout);
		if (r)
			uv_warn("tune: standard output: %s; the drawing is "
				"incomplete", strerror(errno));
	} else if (uv_replace_file(file, text, len, why, sizeof(why))) {
		uv_warn("tune: %s: %s; no drawing written", file, why);
		r = 1;
	}
	free(text);
	return r ? UV_EXIT_FAIL : UV_EXIT_OK;
}

int tune_report(const struct tune_cmd *c)
{
	struct tune_journal *j = c->j;
	char *text;
	size_t len, i;

	if (tune_journal_needed(c->state_dir, j, "nothing to report"))
		return UV_EXIT_FAIL;
	/* Alone: the drawing is the output, and text would break it. */
	if (c->svg && strcmp(c->svg, "-") == 0)
		return write_svg(j, c->svg);
	printf("search: %s; %zu value(s) tested; %u crash(es) in a row\n",
	       tune_state_name(j->state), j->nresults, j->crashes);
	for (i = 0; i < j->nresults; i++)
		printf("  %-8s %5d mV  %-13s %u s\n",
		       plane_name(j->results[i].plane), j->results[i].mv,
		       tune_outcome_name(j->results[i].outcome),
		       j->results[i].seconds);
	for (i = 0; i < j->nverify; i++)
		printf("  together core %d mV, cache %d mV  %-13s %u s\n",
		       j->verify[i].core, j->verify[i].cache,
		       tune_outcome_name(j->verify[i].outcome),
		       j->verify[i].seconds);
	if (j->in_step && j->step_verify)
		printf("  together core %d mV, cache %d mV  under test\n",
		       j->step_mv, j->step_cache);
	else if (j->in_step)
		printf("  %-8s %5d mV  under test\n", plane_name(j->step_plane),
		       j->step_mv);
	if (j->state == TUNE_DONE && !uv_trusted_file(j->config,
						       "tune: the configuration") &&
	    !uv_slurp(j->config, CONFIG_MAX_SIZE, &text, &len)) {
		printf("result (%s):\n%s", j->config, text);
		free(text);
	}
	if (!c->svg)
		return UV_EXIT_OK;
	if (write_svg(j, c->svg))
		return UV_EXIT_FAIL;
	printf("drawn in %s\n", c->svg);
	return UV_EXIT_OK;
}
