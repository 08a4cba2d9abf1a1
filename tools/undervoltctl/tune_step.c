// SPDX-License-Identifier: GPL-2.0
/*
 * tune_step.c: one value of undervoltctl tune under the load: the revert
 * armed, the offset written and read back, the runs, the offsets put back.
 *
 * A value counts only when it was in force for the whole run: the offset
 * of every package is read back before and after each run, and a run
 * after which it reads otherwise (another writer, a driver unloaded and
 * loaded, a trial's revert, mce-guard) is run again, never recorded as a
 * pass. A failure seen in such a run still counts: failing is the safe
 * side.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trial.h"
#include "tune.h"
#include "undervoltctl.h"

/* Runs of one value whose offset moved that are run again, at most. */
#define TUNE_RERUNS 3

/* S on every package; -ENODEV when the driver shows none. */
static int apply_setting(const struct uv_sysfs *s,
			 const struct tune_setting *set)
{
	struct uv_package_list list;
	char path[PATH_MAX];
	size_t i, k;
	int r;

	r = sysfs_packages(s, &list);
	if (!r && list.n == 0)
		r = -ENODEV;
	for (i = 0; !r && i < list.n; i++)
		for (k = 0; !r && k < set->n; k++) {
			r = sysfs_plane_path(s, list.id[i], set->plane[k],
					     "offset_mv", path, sizeof(path));
			if (!r)
				r = sysfs_write_long(path, set->mv[k]);
		}
	return r;
}

/* 0 when every package holds S; else -1 with what it holds in WHY. */
static int check_setting(const struct uv_sysfs *s,
			 const struct tune_setting *set, char *why,
			 size_t size)
{
	struct uv_package_list list;
	char path[PATH_MAX];
	size_t i, k;
	long v;
	int r;

	r = sysfs_packages(s, &list);
	if (r || list.n == 0) {
		snprintf(why, size, "the driver shows no package (unloaded?)");
		return -1;
	}
	for (i = 0; i < list.n; i++)
		for (k = 0; k < set->n; k++) {
			r = sysfs_plane_path(s, list.id[i], set->plane[k],
					     "offset_mv", path, sizeof(path));
			if (!r)
				r = sysfs_read_long(path, &v);
			if (!r && v == set->mv[k])
				continue;
			if (r)
				snprintf(why, size, "package %u %s: %s",
					 list.id[i], plane_name(set->plane[k]),
					 r == -ENODATA ? "the offset is unknown "
					 "(suspended or package offline)" :
					 strerror(-r));
			else
				snprintf(why, size, "package %u %s reads %ld mV, "
					 "not %d", list.id[i],
					 plane_name(set->plane[k]), v,
					 set->mv[k]);
			return -1;
		}
	return 0;
}

int tune_restore(const struct uv_sysfs *s, const struct tune_journal *j)
{
	struct tune_setting set = { .n = 0 };
	int r = 0;
	size_t i;

	for (i = 0; i < j->nplanes; i++) {
		set.n = 1;
		set.plane[0] = j->planes[i];
		set.mv[0] = j->original[i];
		if (!r)
			r = apply_setting(s, &set);
	}
	return r;
}

/* tune's own trial: if it hangs, the offsets go back by themselves. */
static int arm_revert(const struct uv_sysfs *s, const struct tune_journal *j)
{
	struct trial_offset off[TRIAL_MAX];
	struct uv_package_list list;
	size_t i, k, n = 0;

	if (sysfs_packages(s, &list))
		list.n = 0;
	for (i = 0; i < list.n; i++)
		for (k = 0; k < j->nplanes && n < TRIAL_MAX; k++) {
			off[n].pkg = list.id[i];
			off[n].plane = j->planes[k];
			off[n++].mv = j->original[k];
		}
	return trial_arm_values(s, off, n, j->duration + 60, "tune");
}

int tune_writes_allowed(const struct uv_sysfs *s, const struct tune_journal *j,
			bool probe)
{
	struct uv_package_list list;
	struct uv_diag *d = malloc(sizeof(*d));
	char path[PATH_MAX], why[512];
	const char *block = NULL;
	size_t i, k;
	int code = 0, r;
	long v;

	if (!d || sysfs_packages(s, &list)) {
		free(d);
		return 0;	/* the search says what is wrong */
	}
	diag_read(s, d, false);
	for (i = 0; i < list.n && !block; i++)
		block = diag_block(d, list.id[i], true);
	if (block) {
		uv_warn("tune: package %u: writes refused (%s): %s; tune cannot "
			"search here", list.id[i - 1], block, diag_advice(block));
		code = diag_code(block);
	}
	free(d);
	if (code)
		return code;
	/* A write of the offset in force changes nothing, or is refused. */
	for (i = 0; probe && i < list.n && !code; i++)
		for (k = 0; k < j->nplanes && !code; k++) {
			r = sysfs_plane_path(s, list.id[i], j->planes[k],
					     "offset_mv", path, sizeof(path));
			if (!r)
				r = sysfs_read_long(path, &v);
			if (!r)
				r = sysfs_write_long(path, v);
			if (!r)
				continue;
			code = diag_explain(s, list.id[i], path, -r, why,
					    sizeof(why));
			if (code < 0) {
				snprintf(why, sizeof(why), "%s", r == -ENODATA ?
					 "the offset is unknown (suspended or "
					 "package offline)" : strerror(-r));
				code = UV_EXIT_FAIL;
			}
			uv_warn("tune: package %u %s: a write of the offset in "
				"force failed: %s; tune cannot search here",
				list.id[i], plane_name(j->planes[k]), why);
		}
	return code;
}

void tune_describe(const struct tune_setting *set, char *buf, size_t size)
{
	if (set->n == 1)
		snprintf(buf, size, "%s %d mV", plane_name(set->plane[0]),
			 set->mv[0]);
	else
		snprintf(buf, size, "%s %d mV with %s %d mV",
			 plane_name(set->plane[0]), set->mv[0],
			 plane_name(set->plane[1]), set->mv[1]);
}

/* One run: its outcome, or TUNE_OUTCOME_COUNT when the load did not start. */
static int one_run(const struct tune_journal *j, const struct tune_cmd *c,
		   struct tune_watch *w, unsigned int *seconds, char *why,
		   size_t size)
{
	struct stress_opts so = {
		.seconds = j->duration, .engine = c->engine,
		.stall_seconds = 10 + j->duration / 4.0,
		.should_stop = tune_watch_check, .ctx = w,
	};
	struct stress_result r;

	tune_watch_begin(w);
	if (stress_run(&so, &r)) {
		snprintf(why, size, "the load could not start: %s", r.error);
		return TUNE_OUTCOME_COUNT;
	}
	tune_watch_check(w);
	*seconds += (unsigned int)(r.seconds + 0.5);
	if (r.wrong || r.stalled)
		snprintf(why, size, "%s", r.error);
	else if (w->mce || w->taint)
		snprintf(why, size, "%s", w->what);
	return r.wrong ? TUNE_WRONG : r.stalled ? TUNE_STALL :
	       w->mce ? TUNE_MCE : w->taint ? TUNE_TAINT : TUNE_PASS;
}

int tune_test_value(const struct uv_sysfs *s, const struct tune_journal *j,
		    const struct tune_cmd *c, struct tune_watch *w,
		    const struct tune_setting *set, unsigned int *seconds,
		    char *why, size_t size)
{
	char what[64], moved[160];
	int out = TUNE_PASS, err, again = 0;
	unsigned int run;

	*seconds = 0;
	why[0] = '\0';
	tune_describe(set, what, sizeof(what));
	for (run = 1; run <= j->runs && out == TUNE_PASS && !w->interrupted;) {
		err = arm_revert(s, j);
		if (err == -EBUSY) {
			snprintf(why, size, "a trial of someone else runs; "
				 "confirm it or let it end first");
			out = -1;
			break;
		}
		err = apply_setting(s, set);
		if (err) {
			snprintf(why, size, "cannot set %s: %s", what,
				 err == -ENODEV ? "the driver shows no package" :
				 strerror(-err));
			out = -1;
			break;
		}
		if (check_setting(s, set, moved, sizeof(moved))) {
			snprintf(why, size, "%s does not hold right after it "
				 "was written (%s): the firmware ignores it",
				 what, moved);
			out = -1;
			break;
		}
		printf("tune: %s: run %u of %u, %u s\n", what, run, j->runs,
		       j->duration);
		fflush(stdout);
		out = one_run(j, c, w, seconds, why, size);
		if (out == TUNE_OUTCOME_COUNT) {
			out = -1;
			break;
		}
		if (w->interrupted || !check_setting(s, set, moved,
						      sizeof(moved))) {
			run++;
			continue;
		}
		if (out != TUNE_PASS) {
			/* Failing is the safe side: the failure counts. */
			snprintf(why + strlen(why), size - strlen(why),
				 " (the offset moved too: %s)", moved);
			break;
		}
		uv_warn("tune: %s: at the end of run %u %s: the offset under "
			"test was not in force all along, so the run does not "
			"count; it runs again", what, run, moved);
		if (++again > TUNE_RERUNS) {
			snprintf(why, size, "the offset under test kept moving "
				 "(%s): another writer changes offsets during "
				 "the search", moved);
			out = -1;
			break;
		}
	}
	err = tune_restore(s, j);
	if (err)
		uv_warn("tune: cannot put the offsets back to their values "
			"before the search: %s; the trial's revert does it",
			strerror(-err));
	else
		trial_disarm_owner(s, "tune");
	return out;
}
