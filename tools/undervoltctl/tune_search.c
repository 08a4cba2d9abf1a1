// SPDX-License-Identifier: GPL-2.0
/*
 * tune_search.c: the search of undervoltctl tune: which value comes next,
 * and one value under the load, watched for machine checks, new taints
 * and signals besides the load's own verification.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"
#include "tune.h"
#include "undervoltctl.h"

/* What a step watches besides its own results. */
struct watch {
	const struct uv_sysfs *s;
	int kmsg;			/* /dev/kmsg from the step's start */
	unsigned long taint0;
	long reverts0;			/* the driver's mce_reverts, or -1 */
	sigset_t stop_signals;
	bool mce, taint, interrupted;
	char what[200];
};

int tune_plane_offset(const struct uv_sysfs *s, unsigned int pkg,
			enum plane plane, long *mv)
{
	char path[PATH_MAX];
	int r = sysfs_plane_path(s, pkg, plane, "offset_mv", path, sizeof(path));

	return r ? r : sysfs_read_long(path, mv);
}

/* Set PLANE to MV on every package; -errno of the first failure. */
int tune_set_plane(const struct uv_sysfs *s, enum plane plane, long mv)
{
	struct uv_package_list list;
	char path[PATH_MAX];
	size_t i;
	int r;

	r = sysfs_packages(s, &list);
	for (i = 0; !r && i < list.n; i++) {
		r = sysfs_plane_path(s, list.id[i], plane, "offset_mv", path,
				     sizeof(path));
		if (!r)
			r = sysfs_write_long(path, mv);
	}
	return r;
}

int tune_trial_set(const struct uv_sysfs *s, long seconds)
{
	char path[PATH_MAX];
	int r = sysfs_param_path(s, "trial_seconds", path, sizeof(path));

	return r ? r : sysfs_write_long(path, seconds);
}

long tune_trial_get(const struct uv_sysfs *s)
{
	char path[PATH_MAX];
	long v;

	if (sysfs_param_path(s, "trial_seconds", path, sizeof(path)) ||
	    sysfs_read_long(path, &v))
		return -1;
	return v;
}

void tune_trial_confirm(const struct uv_sysfs *s)
{
	char path[PATH_MAX];

	if (!sysfs_drv_path(s, "confirm", path, sizeof(path)))
		sysfs_write_long(path, 1);
}

static unsigned long read_taint(const struct uv_sysfs *s)
{
	char path[PATH_MAX];
	long v;

	if (uv_path(path, sizeof(path), "%s/sys/kernel/tainted", s->proc) ||
	    sysfs_read_long(path, &v))
		return 0;
	return (unsigned long)v;
}

/* The driver's count of machine-check reverts; -1 when it has none. */
static long read_mce_reverts(const struct uv_sysfs *s)
{
	char path[PATH_MAX];
	long v;

	if (sysfs_drv_path(s, "mce_reverts", path, sizeof(path)) ||
	    sysfs_read_long(path, &v))
		return -1;
	return v;
}

static void watch_begin(struct watch *w)
{
	w->mce = w->taint = false;
	w->what[0] = '\0';
	w->taint0 = read_taint(w->s);
	w->reverts0 = read_mce_reverts(w->s);
	if (w->kmsg >= 0)
		lseek(w->kmsg, 0, SEEK_END);
}

/* Reads what the kernel logged since watch_begin(); true: stop the run. */
static bool watch_check(void *ctx)
{
	struct watch *w = ctx;
	struct timespec zero = { 0, 0 };
	unsigned long taint;
	char rec[8192];		/* /dev/kmsg fails a read too small for a record */
	ssize_t n;

	while (w->kmsg >= 0 && !w->mce) {
		n = read(w->kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: read on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, "Hardware Error") ||
		    strstr(rec, "Machine check")) {
			char *text = strchr(rec, ';');

			w->mce = true;
			snprintf(w->what, sizeof(w->what), "the kernel logged '%.*s'",
				 (int)strcspn(text ? text + 1 : rec, "\n"),
				 text ? text + 1 : rec);
		}
	}
	/* The driver saw them too, and put the boot offsets back. */
	if (!w->mce && w->reverts0 >= 0 &&
	    read_mce_reverts(w->s) > w->reverts0) {
		w->mce = true;
		snprintf(w->what, sizeof(w->what), "machine checks made the "
			 "driver revert the offsets (mce_reverts)");
	}
	taint = read_taint(w->s);
	if (!w->mce && (taint & ~w->taint0)) {
		w->taint = true;
		snprintf(w->what, sizeof(w->what),
			 "the kernel took a new taint (flags 0x%lx)",
			 taint & ~w->taint0);
	}
	if (sigtimedwait(&w->stop_signals, NULL, &zero) > 0)
		w->interrupted = true;
	return w->mce || w->taint || w->interrupted;
}

/* Lowest passing value above the highest failing one, for PLANE. */
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

/* Runs the load at MV on PLANE; the outcome, or -1 (J->state aborted). */
static int test_value(const struct uv_sysfs *s, struct tune_journal *j,
		      const struct tune_cmd *c, struct watch *w, enum plane plane,
		      int mv, unsigned int *seconds, char *why, size_t size)
{
	struct stress_opts so = {
		.seconds = j->duration, .engine = c->engine,
		.stall_seconds = 10 + j->duration / 4.0,
		.should_stop = watch_check, .ctx = w,
	};
	enum tune_outcome out = TUNE_PASS;
	struct stress_result r;
	unsigned int run;
	int err;

	*seconds = 0;
	why[0] = '\0';
	err = tune_trial_set(s, (long)j->runs * j->duration + 60);
	if (!err)
		err = tune_set_plane(s, plane, mv);
	if (err) {
		snprintf(why, size, "cannot set %s to %d mV: %s", plane_name(plane),
			 mv, strerror(-err));
		return -1;
	}
	for (run = 1; run <= j->runs && out == TUNE_PASS; run++) {
		printf("tune: %s %d mV: run %u of %u, %u s\n", plane_name(plane),
		       mv, run, j->runs, j->duration);
		fflush(stdout);
		watch_begin(w);
		if (stress_run(&so, &r)) {
			snprintf(why, size, "the load could not start: %s", r.error);
			out = TUNE_OUTCOME_COUNT;
			break;
		}
		watch_check(w);
		*seconds += (unsigned int)(r.seconds + 0.5);
		if (w->interrupted)
			break;
		if (r.wrong) {
			out = TUNE_WRONG;
			snprintf(why, size, "%s", r.error);
		} else if (r.stalled) {
			out = TUNE_STALL;
			snprintf(why, size, "%s", r.error);
		} else if (w->mce) {
			out = TUNE_MCE;
			snprintf(why, size, "%s", w->what);
		} else if (w->taint) {
			out = TUNE_TAINT;
			snprintf(why, size, "%s", w->what);
		}
	}
	err = tune_set_plane(s, plane, j->original[j->plane_index]);
	if (err)
		uv_warn("tune: cannot put %s back to %d mV: %s; it reverts when "
			"the trial period ends", plane_name(plane),
			j->original[j->plane_index], strerror(-err));
	if (out == TUNE_OUTCOME_COUNT)
		return -1;
	return (int)out;
}

int tune_search(const struct uv_sysfs *s, struct tune_journal *j,
		  const struct tune_cmd *c)
{
	struct watch w = { .s = s };
	char why[256];
	int code = UV_EXIT_OK;

	sigemptyset(&w.stop_signals);
	sigaddset(&w.stop_signals, SIGINT);
	sigaddset(&w.stop_signals, SIGTERM);
	/* Blocked here and in the load's threads; watch_check() takes them. */
	pthread_sigmask(SIG_BLOCK, &w.stop_signals, NULL);
	w.kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (w.kmsg < 0)
		uv_warn("tune: /dev/kmsg: %s; machine checks are not seen",
			strerror(errno));

	while (j->plane_index < j->nplanes) {
		enum plane plane = j->planes[j->plane_index];
		unsigned int seconds;
		bool found;
		int mv, out;

		if (!tune_next_value(j, plane, &mv, &found)) {
			j->plane_index++;
			if (tune_save(c->state_dir, j))
				goto fail;
			continue;
		}
		if (j->nresults >= TUNE_MAX_RESULTS) {
			uv_warn("tune: more than %d values tested; stopped",
				TUNE_MAX_RESULTS);
			goto fail;
		}
		j->in_step = true;
		j->step_plane = plane;
		j->step_mv = mv;
		if (tune_save(c->state_dir, j))
			goto fail;
		out = test_value(s, j, c, &w, plane, mv, &seconds, why,
				 sizeof(why));
		if (w.interrupted) {
			/* Not a failure of the value: the step starts over. */
			j->in_step = false;
			tune_save(c->state_dir, j);
			uv_warn("tune: interrupted; %s is back to %d mV; continue "
				"with 'undervoltctl tune --resume'",
				plane_name(plane), j->original[j->plane_index]);
			code = UV_EXIT_FAIL;
			goto out;
		}
		if (out < 0) {
			j->in_step = false;
			j->state = TUNE_ABORTED;
			tune_save(c->state_dir, j);
			uv_warn("tune: %s; stopped", why);
			code = UV_EXIT_FAIL;
			goto out;
		}
		j->results[j->nresults].plane = plane;
		j->results[j->nresults].mv = mv;
		j->results[j->nresults].outcome = (enum tune_outcome)out;
		j->results[j->nresults++].seconds = seconds;
		j->in_step = false;
		j->crashes = 0;
		if (tune_save(c->state_dir, j))
			goto fail;
		printf("tune: %s %d mV: %s%s%s\n", plane_name(plane), mv,
		       tune_outcome_name((enum tune_outcome)out),
		       why[0] ? ": " : "", why);
		fflush(stdout);
	}
	code = tune_finish(s, j, c->state_dir);
	goto out;
fail:
	code = UV_EXIT_FAIL;
out:
	if (w.kmsg >= 0)
		close(w.kmsg);
	pthread_sigmask(SIG_UNBLOCK, &w.stop_signals, NULL);
	return code;
}
