/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tune.h: undervoltctl tune, the search for the lowest stable offset:
 * the verb (tune.c), the search (tune_search.c), the result and --report
 * (tune_report.c), the recovery at boot (tune_recover.c) and the journal
 * (tune_journal.c).
 */
#ifndef UNDERVOLTCTL_TUNE_H
#define UNDERVOLTCTL_TUNE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "stress.h"

struct uv_sysfs;

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

enum tune_mode { MODE_SEARCH, MODE_RESUME, MODE_RECOVER, MODE_REPORT };

/* The command line of tune. */
struct tune_cmd {
	enum tune_mode mode;
	bool dry_run;
	const char *state_dir;
	enum stress_engine engine;
	struct tune_journal *j;		/* settings of a new search */
	bool has_plane;
	enum plane plane;
};

/* tune_search.c */
int tune_plane_offset(const struct uv_sysfs *s, unsigned int pkg,
		      enum plane plane, long *mv);
int tune_set_plane(const struct uv_sysfs *s, enum plane plane, long mv);
int tune_trial_set(const struct uv_sysfs *s, long seconds);
long tune_trial_get(const struct uv_sysfs *s);
void tune_trial_confirm(const struct uv_sysfs *s);
int tune_next_value(const struct tune_journal *j, enum plane plane, int *mv,
		    bool *found);
int tune_final_value(const struct tune_journal *j, int lowest);
int tune_search(const struct uv_sysfs *s, struct tune_journal *j,
		const struct tune_cmd *c);

/* tune_report.c */
char *tune_read_cpuinfo(const struct uv_sysfs *s);
bool tune_couples(const struct uv_sysfs *s);
void tune_cpuinfo_field(const struct uv_sysfs *s, const char *key, char *out,
			size_t size);
int tune_save(const char *dir, const struct tune_journal *j);
int tune_finish(const struct uv_sysfs *s, struct tune_journal *j,
		const char *dir);
int tune_report(const struct tune_cmd *c);

/* tune_recover.c */
int tune_recover(const struct uv_sysfs *s, const struct tune_cmd *c);

#endif
