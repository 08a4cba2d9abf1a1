/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tune.h: undervoltctl tune, the search for the lowest stable offset:
 * the verb (tune.c), the search (tune_search.c), one value under the load
 * (tune_step.c), what a run watches
 * (tune_watch.c), the configuration it writes (tune_result.c), --report
 * (tune_report.c) and its drawing (tune_svg.c), the recovery at boot
 * (tune_recover.c) and the journal (tune_journal.c).
 */
#ifndef UNDERVOLTCTL_TUNE_H
#define UNDERVOLTCTL_TUNE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "klog.h"
#include "stress.h"

struct uv_sysfs;

#define TUNE_JOURNAL		"tune.journal"
/* Present while a search waits to be resumed after a crash (systemd). */
#define TUNE_RESUME_FLAG	"tune.resume"
#define TUNE_MAX_RESULTS	256
#define TUNE_MAX_VERIFY		32

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

/* A run of the combined result (core and cache not coupled). */
struct tune_verify {
	int core, cache;	/* mV */
	enum tune_outcome outcome;
	unsigned int seconds;
};

struct tune_journal {
	enum tune_state state;
	char config[PATH_MAX];	/* where the result goes */
	int start, step, resolution, margin, limit;	/* mV */
	unsigned int runs, duration;	/* per value; seconds per run */
	unsigned int max_crashes;
	bool resume;		/* --resume-after-crash */
	bool coupled;		/* core and cache are one plane */
	unsigned int crashes;	/* in a row */
	size_t nplanes;
	enum plane planes[PLANE_COUNT];
	int original[PLANE_COUNT];	/* offsets before the search */
	unsigned int plane_index;	/* the plane being searched */
	size_t nresults;
	struct tune_result results[TUNE_MAX_RESULTS];
	size_t nverify;
	struct tune_verify verify[TUNE_MAX_VERIFY];
	bool in_step;		/* a value is under test right now */
	bool step_verify;	/* ... the combined result */
	enum plane step_plane;
	int step_mv;
	int step_cache;		/* step_verify: cache's value, step_mv core's */
};

const char *tune_outcome_name(enum tune_outcome o);
const char *tune_state_name(enum tune_state s);
/* 0, or -errno; -ENOENT when there is none. Damage is said, -EINVAL. */
int tune_journal_load(const char *dir, struct tune_journal *j);
int tune_journal_save(const char *dir, const struct tune_journal *j);
/* tune_journal_load(), saying so when there is none: 0, or an exit code. */
int tune_journal_needed(const char *dir, struct tune_journal *j,
			const char *what);
/* The journal against the driver in force: 0, or -EINVAL (said). */
int tune_journal_check_driver(const struct uv_sysfs *s,
			      const struct tune_journal *j, const char *dir);
/* CRC-32 (IEEE 802.3) of LEN bytes of DATA. */
unsigned long tune_crc32(const char *data, size_t len);

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
	const char *svg;		/* --report --svg FILE, "-" stdout */
};

/* What a run watches besides its own results (tune_watch.c). */
struct tune_watch {
	const struct uv_sysfs *s;
	struct klog_reader *kmsg;	/* NULL: the kernel log is not read */
	unsigned long taint0;
	sigset_t stop_signals;
	bool mce, taint, interrupted;
	char what[200];
};

int tune_watch_init(struct tune_watch *w, const struct uv_sysfs *s);
void tune_watch_free(struct tune_watch *w);
void tune_watch_begin(struct tune_watch *w);
/* stress_opts.should_stop: true stops the run. */
bool tune_watch_check(void *ctx);

/* The offsets one step sets on every package. */
struct tune_setting {
	size_t n;
	enum plane plane[2];
	int mv[2];
};

/* tune_step.c: "core -80 mV", "core -80 mV with cache -60 mV". */
void tune_describe(const struct tune_setting *set, char *buf, size_t size);
/* Runs the load at SET; the outcome, or -1 (WHY says why: stop). */
int tune_test_value(const struct uv_sysfs *s, const struct tune_journal *j,
		    const struct tune_cmd *c, struct tune_watch *w,
		    const struct tune_setting *set, unsigned int *seconds,
		    char *why, size_t size);
/* Every plane of the search back to its value before it; -errno. */
int tune_restore(const struct uv_sysfs *s, const struct tune_journal *j);
/* Writes refused, as far as can be told: an exit code (said), or 0. */
int tune_writes_allowed(const struct uv_sysfs *s, const struct tune_journal *j,
			bool probe);

/* tune_search.c */
int tune_next_value(const struct tune_journal *j, enum plane plane, int *mv,
		    bool *found);
int tune_final_value(const struct tune_journal *j, int lowest);
/* The values the result sets (the verified pair where there is one). */
bool tune_result_value(const struct tune_journal *j, size_t plane_index,
		       int *mv);
int tune_search(const struct uv_sysfs *s, struct tune_journal *j,
		const struct tune_cmd *c);

/* tune.c: Skylake to Raptor Lake, as uv_this_cpu_couples() says. */
bool tune_couples(const struct uv_sysfs *s);
/* tune_journal.c: the journal saved, or the reason said: 0 or -errno. */
int tune_save(const char *dir, const struct tune_journal *j);

/* tune_result.c: the configuration written at the end; an exit code. */
int tune_finish(const struct uv_sysfs *s, struct tune_journal *j,
		const char *dir);

/* tune_report.c: --report, and the drawing of --svg; an exit code. */
int tune_report(const struct tune_cmd *c);

/* tune_svg.c: the search of J drawn as SVG on F; 0, or -1 (F's error). */
int tune_svg(const struct tune_journal *j, FILE *f);

/* tune_recover.c */
int tune_recover(const struct uv_sysfs *s, const struct tune_cmd *c);

#endif
