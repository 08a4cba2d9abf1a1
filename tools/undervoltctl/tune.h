/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tune.h: the search for the lowest stable offset (tune.c) and its
 * journal (tune_journal.c).
 */
#ifndef UNDERVOLTCTL_TUNE_H
#define UNDERVOLTCTL_TUNE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"

#define TUNE_STATE_DIR		"/var/lib/undervoltctl"
#define TUNE_JOURNAL		"tune.journal"
/* Present while a search waits to be resumed after a crash (systemd). */
#define TUNE_RESUME_FLAG	"tune.resume"
/* Held by the one tune process that may change the journal. */
#define TUNE_LOCK		"tune.lock"
#define TUNE_MAX_RESULTS	256

enum tune_outcome {
	TUNE_PASS,
	TUNE_WRONG,		/* a result failed verification */
	TUNE_STALL,		/* a worker stopped making progress */
	TUNE_MCE,		/* the kernel logged a machine check */
	TUNE_TAINT,		/* the kernel took a new taint */
	TUNE_CRASH,		/* the machine went down during the step */
	TUNE_OUTCOME_COUNT
};

enum tune_state {
	TUNE_RUNNING,
	TUNE_DONE,
	TUNE_GAVE_UP,		/* more crashes in a row than allowed */
	TUNE_ABORTED,		/* a write failed: nothing to search */
	TUNE_STATE_COUNT
};

struct tune_result {
	enum plane plane;
	int mv;
	enum tune_outcome outcome;
	unsigned int seconds;	/* of load at this value */
};

struct tune_journal {
	enum tune_state state;
	char config[PATH_MAX];	/* where the result goes */
	int start, step, resolution, margin, limit;	/* mV */
	unsigned int runs, duration;	/* per value; seconds per run */
	unsigned int max_crashes;
	bool resume;		/* --resume-after-crash */
	bool coupled;		/* core and cache are one plane */
	long trial_saved;	/* trial_seconds before the search, -1: none */
	unsigned int crashes;	/* in a row */
	size_t nplanes;
	enum plane planes[PLANE_COUNT];
	int original[PLANE_COUNT];	/* offsets before the search */
	unsigned int plane_index;	/* the plane being searched */
	size_t nresults;
	struct tune_result results[TUNE_MAX_RESULTS];
	bool in_step;		/* a value is under test right now */
	enum plane step_plane;
	int step_mv;
};

const char *tune_outcome_name(enum tune_outcome o);
const char *tune_state_name(enum tune_state s);
int tune_journal_path(const char *dir, const char *name, char *buf,
		      size_t size);
/* 0, or -errno; -ENOENT when there is no journal. */
int tune_journal_load(const char *dir, struct tune_journal *j);
int tune_journal_save(const char *dir, const struct tune_journal *j);

#endif
