// SPDX-License-Identifier: GPL-2.0
/*
 * tune_search.c: the search of undervoltctl tune: which value comes next,
 * when a plane is settled, what it found, and the loop that records each
 * value's outcome in the journal; a value under the load is tune_step.c.
 *
 * On CPUs that do not couple core and cache, each is searched with the
 * other at its value before the search; the two results together are then
 * run as one more value (the combined result), raised by --step until it
 * passes, before anything is written.
 */
#include <stdio.h>
#include <string.h>

#include "tune.h"
#include "undervoltctl.h"

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

static int record(struct tune_journal *j, const struct tune_setting *set,
		  int out, unsigned int seconds)
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
static int next_step(struct tune_journal *j, struct tune_setting *set)
{
	bool found, ok;
	int mv, cache;

	while (j->plane_index < j->nplanes) {
		if (tune_next_value(j, j->planes[j->plane_index], &mv, &found)) {
			*set = (struct tune_setting){ .n = 1, .mv[0] = mv,
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
	*set = (struct tune_setting){ .n = 2, .plane = { PLANE_CORE, PLANE_CACHE },
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
	struct tune_setting set;
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
		out = tune_test_value(s, j, c, &w, &set, &seconds, why,
				      sizeof(why));
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
		tune_describe(&set, what, sizeof(what));
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
