// SPDX-License-Identifier: GPL-2.0
/*
 * tune_recover.c: tune --recover, run at boot before undervoltctl.service
 * (which Requires= it to succeed): a step the machine went down in is
 * recorded as a crash, and a configuration that would apply that value
 * is moved aside. A journal that does not load stops here, and with it
 * the boot apply.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune.h"
#include "undervoltctl.h"

/* The values of the step that crashed; a plane not in it is INT_MAX. */
struct crash {
	int mv[PLANE_COUNT];
	bool together;		/* every plane given at once (combined run) */
};

/* What a section leaves in force for core and cache, over the top ones. */
static int effective(const struct config *cfg, const struct config_section *src,
		     const struct config_section *pkg, enum plane p, bool *set)
{
	const struct config_section *order[] = { pkg, src, &cfg->all };
	size_t i;

	for (i = 0; i < 3; i++)
		if (order[i] && order[i]->set[p]) {
			*set = true;
			return order[i]->mv[p];
		}
	*set = false;
	return 0;
}

/*
 * Would a package under source SRC with section PKG (or none) apply the
 * crash's values or deeper? One plane at or below its value does it, or,
 * for a combined run, every plane of it at or below at once.
 */
static bool deep(const struct config *cfg, const struct config_section *src,
		 const struct config_section *pkg, const struct crash *k)
{
	bool any = false, all = true, set;
	enum plane p;
	int v;

	for (p = 0; p < PLANE_COUNT; p++) {
		if (k->mv[p] == INT_MAX)
			continue;
		v = effective(cfg, src, pkg, p, &set);
		any |= set && v <= k->mv[p];
		all &= set && v <= k->mv[p];
	}
	return k->together ? all : any;
}

static bool config_crashes(const struct config *cfg, const struct crash *k)
{
	int s, i;

	for (s = 0; s < SOURCE_COUNT; s++) {
		if (deep(cfg, &cfg->source[s], NULL, k))
			return true;
		for (i = 0; i < CONFIG_MAX_PACKAGES; i++)
			if (cfg->package[i].present &&
			    deep(cfg, &cfg->source[s], &cfg->package[i], k))
				return true;
	}
	return false;
}

/*
 * A configuration that would apply the values that crashed, or deeper, is
 * moved aside before undervoltctl.service reads it. On a CPU that couples
 * core and cache, either of them at that value crashes it.
 */
static void quarantine_config(const struct tune_journal *j,
			      const struct crash *k)
{
	struct config *cfg = malloc(sizeof(*cfg));
	struct config_error err;
	char aside[PATH_MAX + 16], *buf = NULL;
	size_t len;

	if (!cfg || uv_trusted_file(j->config, "tune: the configuration") ||
	    uv_slurp(j->config, CONFIG_MAX_SIZE, &buf, &len))
		goto out;
	if (config_parse(buf, len, cfg, &err) == 0 && config_crashes(cfg, k) &&
	    !uv_path(aside, sizeof(aside), "%s.crashed", j->config) &&
	    rename(j->config, aside) == 0)
		uv_warn("tune: %s sets offsets as deep as those that crashed "
			"this machine, or deeper; moved to %s", j->config, aside);
out:
	free(buf);
	free(cfg);
}

/* The step under test as a crash: recorded, and its configuration moved. */
static int record_crash(struct tune_journal *j)
{
	struct crash k = { .together = j->step_verify };
	enum plane p;

	for (p = 0; p < PLANE_COUNT; p++)
		k.mv[p] = INT_MAX;
	if (j->step_verify) {
		if (j->nverify >= TUNE_MAX_VERIFY)
			return -1;
		j->verify[j->nverify].core = k.mv[PLANE_CORE] = j->step_mv;
		j->verify[j->nverify].cache = k.mv[PLANE_CACHE] = j->step_cache;
		j->verify[j->nverify].outcome = TUNE_CRASH;
		j->verify[j->nverify++].seconds = 0;
		printf("tune: the machine went down while core was at %d mV "
		       "and cache at %d mV: that pair failed\n", j->step_mv,
		       j->step_cache);
	} else {
		if (j->nresults >= TUNE_MAX_RESULTS)
			return -1;
		j->results[j->nresults].plane = j->step_plane;
		j->results[j->nresults].mv = j->step_mv;
		j->results[j->nresults].outcome = TUNE_CRASH;
		j->results[j->nresults++].seconds = 0;
		k.mv[j->step_plane] = j->step_mv;
		if (j->coupled && (j->step_plane == PLANE_CORE ||
				   j->step_plane == PLANE_CACHE))
			k.mv[PLANE_CORE] = k.mv[PLANE_CACHE] = j->step_mv;
		printf("tune: the machine went down while %s was at %d mV: "
		       "that value failed\n", plane_name(j->step_plane),
		       j->step_mv);
	}
	j->in_step = false;
	j->crashes++;
	quarantine_config(j, &k);
	return 0;
}

int tune_recover(const struct uv_sysfs *s, const struct tune_cmd *c)
{
	struct tune_journal *j = c->j;
	char flag[PATH_MAX];
	int r;

	r = tune_journal_load(c->state_dir, j);
	if (r == -ENOENT)
		return UV_EXIT_OK;
	if (r || tune_journal_check_driver(s, j, c->state_dir))
		return UV_EXIT_FAIL;
	if (j->state != TUNE_RUNNING)
		return UV_EXIT_OK;
	if (j->in_step && record_crash(j))
		return UV_EXIT_FAIL;
	if (j->crashes > j->max_crashes) {
		j->state = TUNE_GAVE_UP;
		printf("tune: %u crashes in a row, more than --max-crashes %u: "
		       "the search is over; see 'undervoltctl tune --report'\n",
		       j->crashes, j->max_crashes);
	}
	if (tune_save(c->state_dir, j))
		return UV_EXIT_FAIL;
	if (state_path(c->state_dir, TUNE_RESUME_FLAG, flag, sizeof(flag)))
		return UV_EXIT_FAIL;
	if (j->state == TUNE_RUNNING && j->resume) {
		if (state_write(c->state_dir, TUNE_RESUME_FLAG, "", 0))
			return UV_EXIT_FAIL;
		printf("tune: the search resumes (undervoltctl tune --resume)\n");
	} else if (j->state == TUNE_RUNNING) {
		printf("tune: the search stopped; continue it with "
		       "'undervoltctl tune --resume'\n");
	}
	return UV_EXIT_OK;
}
