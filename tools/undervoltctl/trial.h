/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trial.h: provisional offsets (trial.c). A trial is a file,
 * /run/undervoltctl/trial, naming the offsets to go back to and when, and
 * a revert armed to run then whatever happens to the shell that asked: a
 * transient systemd timer where systemd runs, a detached process
 * otherwise. confirm disarms it.
 */
#ifndef UNDERVOLTCTL_TRIAL_H
#define UNDERVOLTCTL_TRIAL_H

#include "plan.h"

#define TRIAL_MAX (CONFIG_MAX_PACKAGES * PLANE_COUNT)

struct trial_offset {
	unsigned int pkg;
	enum plane plane;
	long mv;
};

struct trial_state {
	char token[24];		/* this arming; a revert of another exits */
	double deadline;	/* CLOCK_MONOTONIC seconds */
	unsigned int seconds;	/* as asked */
	char owner[16];		/* set, apply, reset, tune */
	char armed[16];		/* systemd, detached */
	long pid;		/* detached: the waiting process */
	size_t n;
	struct trial_offset off[TRIAL_MAX];	/* to go back to */
};

/* One change of offsets under the trial lock (plan.c). */
struct trial_txn {
	int lock;		/* -1: no trial involved */
	bool had;		/* a trial ran before */
	bool changed;		/* the trial file was replaced */
	bool rearmed;		/* a new revert was armed */
	unsigned int seconds;
	struct trial_state old, cur;
};

/*
 * Before a plan's writes: with SECONDS, arm (or extend) a trial whose
 * revert goes back to the offsets before the first unconfirmed change;
 * without, a trial that runs takes the plan's planes in. 0, or an exit
 * code with a message and nothing held.
 */
int trial_begin(const struct uv_sysfs *s, struct trial_txn *t,
		const struct plan *p, unsigned int seconds, const char *owner);
/* The writes failed: the trial as it was before. */
void trial_abort(const struct uv_sysfs *s, struct trial_txn *t);
/* The writes succeeded: say what is provisional. */
void trial_end(struct trial_txn *t);

/* 1 with the trial that runs and the seconds LEFT, 0 when none, -errno. */
int trial_read(const struct uv_sysfs *s, struct trial_state *t, double *left);

/*
 * tune: a trial of its own around each run, owned "tune", going back to
 * OFF. -EBUSY when a trial of someone else runs.
 */
int trial_arm_values(const struct uv_sysfs *s, const struct trial_offset *off,
		     size_t n, unsigned int seconds, const char *owner);
void trial_disarm_owner(const struct uv_sysfs *s, const char *owner);
/* mce-guard: whatever trial runs is over; true when there was one. */
bool trial_cancel(const struct uv_sysfs *s);

/* trial_arm.c: the revert of T armed (T->armed, T->pid set); 0 or -1. */
int trial_arm(const struct uv_sysfs *s, struct trial_state *t, double now);
void trial_disarm(const struct trial_state *t);

#endif
