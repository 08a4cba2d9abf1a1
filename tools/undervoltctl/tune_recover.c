// SPDX-License-Identifier: GPL-2.0
/*
 * tune_recover.c: tune --recover, run at boot before undervoltctl.service:
 * a step the machine went down in is recorded as a crash, and a
 * configuration that would apply that value is moved aside.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune.h"
#include "undervoltctl.h"

/*
 * A configuration that would apply VALUE or deeper on PLANE is moved
 * aside before undervoltctl.service reads it: that value crashed.
 */
static void quarantine_config(const struct tune_journal *j, enum plane plane,
			      int value)
{
	struct config cfg;
	struct config_error err;
	char aside[PATH_MAX + 16], *buf;
	size_t len;
	bool bad = false;
	int i;

	if (uv_slurp(j->config, CONFIG_MAX_SIZE, &buf, &len))
		return;
	if (config_parse(buf, len, &cfg, &err) == 0) {
		bad = cfg.all.set[plane] && cfg.all.mv[plane] <= value;
		for (i = 0; i < SOURCE_COUNT; i++)
			bad |= cfg.source[i].set[plane] &&
			       cfg.source[i].mv[plane] <= value;
		for (i = 0; i < CONFIG_MAX_PACKAGES; i++)
			bad |= cfg.package[i].set[plane] &&
			       cfg.package[i].mv[plane] <= value;
	}
	if (bad && !uv_path(aside, sizeof(aside), "%s.crashed", j->config) &&
	    uv_write_atomic(aside, buf, len) == 0 && unlink(j->config) == 0)
		uv_warn("tune: %s set %s to %d mV or lower, which crashed this "
			"machine; moved to %s", j->config, plane_name(plane),
			value, aside);
	free(buf);
}

int tune_recover(const struct uv_sysfs *s, const struct tune_cmd *c)
{
	struct tune_journal *j = c->j;
	char flag[PATH_MAX];
	int r;

	r = tune_journal_load(c->state_dir, j);
	if (r == -ENOENT)
		return UV_EXIT_OK;
	if (r)
		return UV_EXIT_FAIL;
	if (j->state != TUNE_RUNNING)
		return UV_EXIT_OK;
	if (j->in_step) {
		if (j->nresults >= TUNE_MAX_RESULTS)
			return UV_EXIT_FAIL;
		j->results[j->nresults].plane = j->step_plane;
		j->results[j->nresults].mv = j->step_mv;
		j->results[j->nresults].outcome = TUNE_CRASH;
		j->results[j->nresults++].seconds = 0;
		j->in_step = false;
		j->crashes++;
		printf("tune: the machine went down while %s was at %d mV: "
		       "that value failed\n", plane_name(j->step_plane),
		       j->step_mv);
		quarantine_config(j, j->step_plane, j->step_mv);
	}
	if (j->crashes > j->max_crashes) {
		j->state = TUNE_GAVE_UP;
		printf("tune: %u crashes in a row, more than --max-crashes %u: "
		       "the search is over; see 'undervoltctl tune --report'\n",
		       j->crashes, j->max_crashes);
	}
	/* After a reset the driver's parameter is its boot value again. */
	j->trial_saved = tune_trial_get(s);
	if (tune_save(c->state_dir, j))
		return UV_EXIT_FAIL;
	if (tune_journal_path(c->state_dir, TUNE_RESUME_FLAG, flag,
			      sizeof(flag)))
		return UV_EXIT_FAIL;
	if (j->state == TUNE_RUNNING && j->resume) {
		if (uv_write_atomic(flag, "", 0))
			return UV_EXIT_FAIL;
		printf("tune: the search resumes (undervoltctl tune --resume)\n");
	} else if (j->state == TUNE_RUNNING) {
		printf("tune: the search stopped; continue it with "
		       "'undervoltctl tune --resume'\n");
	}
	return UV_EXIT_OK;
}
