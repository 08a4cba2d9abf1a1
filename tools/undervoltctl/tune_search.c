// SPDX-License-Identifier: GPL-2.0
/*
 * tune_search.c: the search of undervoltctl tune: which value comes next,
 * and one value under the load.
 *
 * A value counts only when it was in force for the whole run: the offset
 * of every package is read back before and after each run, and a run
 * after which it reads otherwise (another writer, a driver unloaded and
 * loaded, a trial's revert, mce-guard) is run again, never recorded as a
 * pass. A failure seen in such a run still counts: failing is the safe
 * side.
 *
 * On CPUs that do not couple core and cache, each is searched with the
 * other at its value before the search; the two results together are then
 * run as one more value (the combined result), raised by --step until it
 * passes, before anything is written.
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

/* The offsets one step sets on every package. */
struct setting {
	size_t n;
	enum plane plane[2];
	int mv[2];
};

static void plane_bounds(const struct tune_journal *j, enum plane plane,
			 bool *has_hi, int *hi, bool *has_lo, int *lo)
{
	size_t i;

	*has_hi = *has_lo = false;
	for (i = 0; i < j->nresults; i++) {
		const struct tune_result *r = &j->results[i];

		if (r->plane != plane || r->outcome == TUNE_PASS)
			continue;
		if (!*has_lo || r->mv > *lo)
			*lo = r->mv;
		*has_lo = true;
	}
	for (i = 0; i < j->nresults; i++) {
		const struct tune_result *r = &j->results[i];

		if (r->plane != plane || r->outcome != TUNE_PASS ||
		    (*has_lo && r->mv <= *lo))
			continue;
		if (!*has_hi || r->mv < *hi)
			*hi = r->mv;
		*has_hi = true;
	}
}

/*
 * The next value to test for PLANE: 1 with *MV, or 0 when the plane is
 * done: *FOUND says whether a value passed, *MV is then the lowest one.
 */
int tune_next_value(const struct tune_journal *j, enum plane plane,
		      int *mv, bool *found)
{
	bool has_hi, has_lo;
	int hi = 0, lo = 0;

	plane_bounds(j, plane, &has_hi, &hi, &has_lo, &lo);
	*found = false;
	if (!has_hi && !has_lo) {
		*mv = j->start;
		return 1;
	}
	if (!has_hi) {
		if (lo >= 0)
			return 0;	/* fails even at 0 */
		*mv = 0;		/* the start failed: bisect from 0 */
		return 1;
	}
	if (!has_lo) {
		if (hi <= j->limit) {
			*found = true;
			*mv = hi;
			return 0;
		}
		*mv = hi - j->step < j->limit ? j->limit : hi - j->step;
		return 1;
	}
	if (hi - lo <= j->resolution) {
		*found = true;
		*mv = hi;
		return 0;
	}
	*mv = hi - (hi - lo) / 2;
	return 1;
}

int tune_final_value(const struct tune_journal *j, int lowest)
{
	return lowest + j->margin < 0 ? lowest + j->margin : 0;
}


/* Core and cache searched one at a time: their results run together. */
static bool verifies(const struct tune_journal *j)
{
	return !j->coupled && j->nplanes == 2 &&
	       j->planes[0] == PLANE_CORE && j->planes[1] == PLANE_CACHE;
}

/* What the search of plane I found, or its value before the search. */
static int plane_result(const struct tune_journal *j, size_t i, bool *found)
{
	int mv;

	tune_next_value(j, j->planes[i], &mv, found);
	return *found ? tune_final_value(j, mv) : j->original[i];
}

/* V one --step nearer to 0 mV; a value at or above 0 stays. */
static int raise_mv(const struct tune_journal *j, int v)
{
	return v >= 0 ? v : v + j->step < 0 ? v + j->step : 0;
}

/*
 * The combined pair to run next: 1 with *CORE and *CACHE; 0 when it is
 * settled, *OK saying whether a pair passed (then *CORE, *CACHE).
 */
static int verify_next(const struct tune_journal *j, int *core, int *cache,
		       bool *ok)
{
	const struct tune_verify *last;
	bool fc, fk;

	*ok = false;
	if (!j->nverify) {
		*core = plane_result(j, 0, &fc);
		*cache = plane_result(j, 1, &fk);
		return fc || fk;
	}
	last = &j->verify[j->nverify - 1];
	*core = last->core;
	*cache = last->cache;
	if (last->outcome == TUNE_PASS) {
		*ok = true;
		return 0;
	}
	*core = raise_mv(j, last->core);
	*cache = raise_mv(j, last->cache);
	return *core != last->core || *cache != last->cache;
}

bool tune_result_value(const struct tune_journal *j, size_t i, int *mv)
{
	int core, cache;
	bool found, ok;

	*mv = plane_result(j, i, &found);
	if (!found || !verifies(j))
		return found;
	if (verify_next(j, &core, &cache, &ok) || !ok)
		return false;
	*mv = j->planes[i] == PLANE_CORE ? core : cache;
	return true;
}

/* S on every package; -ENODEV when the driver shows none. */
static int apply_setting(const struct uv_sysfs *s, const struct setting *set)
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
static int check_setting(const struct uv_sysfs *s, const struct setting *set,
			 char *why, size_t size)
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
	struct setting set = { .n = 0 };
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

static void describe(const struct setting *set, char *buf, size_t size)
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

/* Runs the load at SET; the outcome, or -1 (WHY says why: stop). */
static int test_value(const struct uv_sysfs *s, const struct tune_journal *j,
		      const struct tune_cmd *c, struct tune_watch *w,
		      const struct setting *set, unsigned int *seconds,
		      char *why, size_t size)
{
	char what[64], moved[160];
	int out = TUNE_PASS, err, again = 0;
	unsigned int run;

	*seconds = 0;
	why[0] = '\0';
	describe(set, what, sizeof(what));
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

static int record(struct tune_journal *j, const struct setting *set, int out,
		  unsigned int seconds)
{
	if (j->step_verify) {
		if (j->nverify >= TUNE_MAX_VERIFY)
			return -1;
		j->verify[j->nverify].core = set->mv[0];
		j->verify[j->nverify].cache = set->mv[1];
		j->verify[j->nverify].outcome = (enum tune_outcome)out;
		j->verify[j->nverify++].seconds = seconds;
	} else {
		if (j->nresults >= TUNE_MAX_RESULTS)
			return -1;
		j->results[j->nresults].plane = set->plane[0];
		j->results[j->nresults].mv = set->mv[0];
		j->results[j->nresults].outcome = (enum tune_outcome)out;
		j->results[j->nresults++].seconds = seconds;
	}
	j->in_step = false;
	j->crashes = 0;
	return 0;
}

/* The next step into J and SET: 1, or 0 when the search is over. */
static int next_step(struct tune_journal *j, struct setting *set)
{
	bool found, ok;
	int mv, cache;

	while (j->plane_index < j->nplanes) {
		if (tune_next_value(j, j->planes[j->plane_index], &mv, &found)) {
			*set = (struct setting){ .n = 1, .mv[0] = mv,
				.plane[0] = j->planes[j->plane_index] };
			j->step_verify = false;
			j->step_plane = set->plane[0];
			j->step_mv = mv;
			return 1;
		}
		j->plane_index++;
	}
	if (!verifies(j) || !verify_next(j, &mv, &cache, &ok))
		return 0;
	*set = (struct setting){ .n = 2, .plane = { PLANE_CORE, PLANE_CACHE },
				 .mv = { mv, cache } };
	j->step_verify = true;
	j->step_mv = mv;
	j->step_cache = cache;
	return 1;
}

int tune_search(const struct uv_sysfs *s, struct tune_journal *j,
		const struct tune_cmd *c)
{
	struct tune_watch w;
	struct setting set;
	unsigned int seconds;
	char why[512], what[64];
	int code = UV_EXIT_OK, out;

	tune_watch_init(&w, s);
	while (next_step(j, &set)) {
		if ((j->step_verify ? j->nverify >= TUNE_MAX_VERIFY :
		     j->nresults >= TUNE_MAX_RESULTS)) {
			uv_warn("tune: too many values tested; stopped");
			code = UV_EXIT_FAIL;
			goto out;
		}
		j->in_step = true;
		if (tune_save(c->state_dir, j))
			goto fail;
		out = test_value(s, j, c, &w, &set, &seconds, why, sizeof(why));
		j->in_step = false;
		if (w.interrupted) {
			/* Not a failure of the value: the step starts over. */
			tune_save(c->state_dir, j);
			uv_warn("tune: interrupted; the offsets are back to their "
				"values before the search; continue with "
				"'undervoltctl tune --resume'");
			goto fail;
		}
		if (out < 0) {
			j->state = TUNE_ABORTED;
			tune_save(c->state_dir, j);
			uv_warn("tune: %s; stopped", why);
			goto fail;
		}
		record(j, &set, out, seconds);
		if (tune_save(c->state_dir, j))
			goto fail;
		describe(&set, what, sizeof(what));
		printf("tune: %s: %s%s%s\n", what,
		       tune_outcome_name((enum tune_outcome)out),
		       why[0] ? ": " : "", why);
		fflush(stdout);
	}
	code = tune_finish(s, j, c->state_dir);
	goto out;
fail:
	code = UV_EXIT_FAIL;
out:
	tune_watch_free(&w);
	return code;
}
