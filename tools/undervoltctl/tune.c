// SPDX-License-Identifier: GPL-2.0
/*
 * tune.c: undervoltctl tune, the search for the lowest stable offset.
 *
 * Per plane (core and cache as one where the CPU couples them), from
 * --start down in --step mV until a value fails, then by bisection down to
 * --resolution mV. A value passes when --runs runs of --duration seconds
 * of the self-checking load (stress.c) see no wrong result, no stalled
 * worker, no machine check in the kernel log and no new kernel taint.
 * The result is the lowest value that passed plus --margin mV.
 *
 * What keeps a crash from losing or breaking anything:
 * - the journal (tune_journal.c) names the value under test before the
 *   offset is written, and records each outcome when the step ends;
 * - the driver's trial mode is armed for each step, so a user space that
 *   hangs gets its offsets reverted by the kernel;
 * - "tune --recover", run at boot before undervoltctl.service, marks the
 *   value of an unfinished step as a crash and, after --resume-after-crash,
 *   leaves TUNE_RESUME_FLAG for the unit that runs "tune --resume";
 * - only the final value, which lies above values that passed, is ever
 *   written to a configuration, and no kernel command line is touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"
#include "tune.h"
#include "undervoltctl.h"

enum tune_mode { MODE_SEARCH, MODE_RESUME, MODE_RECOVER, MODE_REPORT };

struct tune_cmd {
	enum tune_mode mode;
	bool dry_run;
	const char *state_dir;
	enum stress_engine engine;
	struct tune_journal *j;		/* settings of a new search */
	bool has_plane;
	enum plane plane;
};

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

/* The text of /proc/cpuinfo, to free; NULL when it cannot be read. */
static char *read_cpuinfo(const struct uv_sysfs *s)
{
	char path[PATH_MAX], *buf;
	size_t len;

	if (uv_path(path, sizeof(path), "%s/cpuinfo", s->proc) ||
	    uv_slurp(path, 1 << 22, &buf, &len))
		return NULL;
	return buf;
}

/* Skylake to Comet Lake: core and cache share one voltage. */
static bool cpu_couples_core_and_cache(const struct uv_sysfs *s)
{
	static const unsigned int coupled[] = {
		0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6,
	};
	char *info = read_cpuinfo(s), family[16], model[16];
	bool ret = false;
	size_t i;

	if (!info)
		return false;
	if (uv_cpuinfo_value(info, "cpu family", family, sizeof(family)) &&
	    uv_cpuinfo_value(info, "model", model, sizeof(model)) &&
	    strtoul(family, NULL, 10) == 6)
		for (i = 0; i < sizeof(coupled) / sizeof(coupled[0]); i++)
			if (strtoul(model, NULL, 10) == coupled[i])
				ret = true;
	free(info);
	return ret;
}

/* A field of /proc/cpuinfo for the result's evidence, or "unknown". */
static void cpuinfo_field(const struct uv_sysfs *s, const char *key,
			  char *out, size_t size)
{
	char *info = read_cpuinfo(s);

	if (!info || !uv_cpuinfo_value(info, key, out, size))
		snprintf(out, size, "unknown");
	free(info);
}

static int plane_offset(const struct uv_sysfs *s, unsigned int pkg,
			enum plane plane, long *mv)
{
	char path[PATH_MAX];
	int r = sysfs_plane_path(s, pkg, plane, "offset_mv", path, sizeof(path));

	return r ? r : sysfs_read_long(path, mv);
}

/* Set PLANE to MV on every package; -errno of the first failure. */
static int set_plane(const struct uv_sysfs *s, enum plane plane, long mv)
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

static int trial_set(const struct uv_sysfs *s, long seconds)
{
	char path[PATH_MAX];
	int r = sysfs_param_path(s, "trial_seconds", path, sizeof(path));

	return r ? r : sysfs_write_long(path, seconds);
}

static long trial_get(const struct uv_sysfs *s)
{
	char path[PATH_MAX];
	long v;

	if (sysfs_param_path(s, "trial_seconds", path, sizeof(path)) ||
	    sysfs_read_long(path, &v))
		return -1;
	return v;
}

static void trial_confirm(const struct uv_sysfs *s)
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
static int next_value(const struct tune_journal *j, enum plane plane,
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

static int final_value(const struct tune_journal *j, int lowest)
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
	err = trial_set(s, (long)j->runs * j->duration + 60);
	if (!err)
		err = set_plane(s, plane, mv);
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
	err = set_plane(s, plane, j->original[j->plane_index]);
	if (err)
		uv_warn("tune: cannot put %s back to %d mV: %s; it reverts when "
			"the trial period ends", plane_name(plane),
			j->original[j->plane_index], strerror(-err));
	if (out == TUNE_OUTCOME_COUNT)
		return -1;
	return (int)out;
}

static void describe_plane(FILE *f, const struct tune_journal *j,
			   enum plane plane)
{
	size_t i;

	fprintf(f, "# %s, values tested:", plane_name(plane));
	for (i = 0; i < j->nresults; i++) {
		const struct tune_result *r = &j->results[i];

		if (r->plane != plane)
			continue;
		fprintf(f, "\n#   %5d mV  %-13s %u s of load", r->mv,
			tune_outcome_name(r->outcome), r->seconds);
	}
	fputc('\n', f);
}

/* The configuration text of a finished search, evidence first. */
static char *result_text(const struct uv_sysfs *s,
			 const struct tune_journal *j, size_t *len)
{
	char model[128], ucode[32], when[64], *text = NULL;
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;
	size_t i;

	cpuinfo_field(s, "model name", model, sizeof(model));
	cpuinfo_field(s, "microcode", ucode, sizeof(ucode));
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime_r(&now, &tm));
	f = open_memstream(&text, len);
	if (!f)
		return NULL;
	fprintf(f, "# Written by undervoltctl tune on %s. See undervolt.conf(5).\n"
		"# CPU: %s, microcode %s\n"
		"# Load: verified FMA matrix multiply and 64-bit multiply chains, on\n"
		"# every CPU, then on each CPU alone; %u run(s) of %u s per value;\n"
		"# a value failed on a wrong result, a stalled worker, a machine\n"
		"# check, a new kernel taint or a crash.\n",
		when, model, ucode, j->runs, j->duration);
	for (i = 0; i < j->nplanes; i++) {
		enum plane p = j->planes[i];
		bool found;
		int mv;

		describe_plane(f, j, p);
		next_value(j, p, &mv, &found);
		if (!found) {
			fprintf(f, "# %s: unstable even at %d mV: no offset\n",
				plane_name(p), j->start < 0 ? 0 : j->start);
			continue;
		}
		fprintf(f, "# %s: lowest value that passed %d mV, plus a margin "
			"of %d mV\n", plane_name(p), mv, j->margin);
		fprintf(f, "%s = %d\n", plane_name(p), final_value(j, mv));
		if (p == PLANE_CORE && j->coupled)
			fprintf(f, "%s = %d\n", plane_name(PLANE_CACHE),
				final_value(j, mv));
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* Save the journal, or say why not: the search cannot go on without it. */
static int save(const char *dir, const struct tune_journal *j)
{
	int r = tune_journal_save(dir, j);

	if (r)
		uv_warn("tune: cannot write the journal in %s: %s; stopped, "
			"nothing is applied", dir, strerror(-r));
	return r;
}

static int finish(const struct uv_sysfs *s, struct tune_journal *j,
		  const char *dir)
{
	char backup[PATH_MAX + 16], *text;
	size_t len, i;
	int r;

	for (i = 0; i < j->nplanes; i++)
		set_plane(s, j->planes[i], j->original[i]);
	trial_confirm(s);
	if (j->trial_saved >= 0)
		trial_set(s, j->trial_saved);
	text = result_text(s, j, &len);
	if (!text) {
		uv_warn("tune: out of memory");
		return UV_EXIT_FAIL;
	}
	/* The user's own configuration is kept beside it, not lost. */
	if (access(j->config, F_OK) == 0 &&
	    !uv_path(backup, sizeof(backup), "%s.before-tune", j->config)) {
		char *old;
		size_t olen;

		if (!uv_slurp(j->config, CONFIG_MAX_SIZE, &old, &olen)) {
			if (!strstr(old, "# Written by undervoltctl tune"))
				uv_write_atomic(backup, old, olen);
			free(old);
		}
	}
	r = uv_write_atomic(j->config, text, len);
	if (r) {
		uv_warn("tune: cannot write %s: %s; the result is:\n%s",
			j->config, strerror(-r), text);
		free(text);
		return UV_EXIT_FAIL;
	}
	j->state = TUNE_DONE;
	if (save(dir, j)) {
		free(text);
		return UV_EXIT_FAIL;
	}
	printf("tune: done; %s now holds:\n%s", j->config, text);
	printf("tune: apply it with 'undervoltctl apply' (undervoltctl.service "
	       "does at boot)\n");
	free(text);
	return UV_EXIT_OK;
}

static int search(const struct uv_sysfs *s, struct tune_journal *j,
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

		if (!next_value(j, plane, &mv, &found)) {
			j->plane_index++;
			if (save(c->state_dir, j))
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
		if (save(c->state_dir, j))
			goto fail;
		out = test_value(s, j, c, &w, plane, mv, &seconds, why,
				 sizeof(why));
		if (w.interrupted) {
			/* Not a failure of the value: the step starts over. */
			j->in_step = false;
			save(c->state_dir, j);
			uv_warn("tune: interrupted; %s is back to %d mV; continue "
				"with 'undervoltctl tune --resume'",
				plane_name(plane), j->original[j->plane_index]);
			code = UV_EXIT_FAIL;
			goto out;
		}
		if (out < 0) {
			j->in_step = false;
			j->state = TUNE_ABORTED;
			save(c->state_dir, j);
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
		if (save(c->state_dir, j))
			goto fail;
		printf("tune: %s %d mV: %s%s%s\n", plane_name(plane), mv,
		       tune_outcome_name((enum tune_outcome)out),
		       why[0] ? ": " : "", why);
		fflush(stdout);
	}
	code = finish(s, j, c->state_dir);
	goto out;
fail:
	code = UV_EXIT_FAIL;
out:
	if (w.kmsg >= 0)
		close(w.kmsg);
	pthread_sigmask(SIG_UNBLOCK, &w.stop_signals, NULL);
	return code;
}

static void print_plan(const struct tune_journal *j)
{
	unsigned int coarse, bisect = 0, values, span;
	size_t i;

	span = (unsigned int)(j->start - j->limit);
	coarse = span / (unsigned int)j->step + 1 + (span % j->step ? 1 : 0);
	for (span = (unsigned int)j->step; span > (unsigned int)j->resolution;
	     span = (span + 1) / 2)
		bisect++;
	values = coarse + bisect;
	printf("tune plan:");
	for (i = 0; i < j->nplanes; i++)
		printf(" %s%s", plane_name(j->planes[i]),
		       j->planes[i] == PLANE_CORE && j->coupled ?
		       " (with cache: coupled)" : "");
	printf("\n  coarse: from %d mV down in steps of %d mV to at most %d mV\n"
	       "  then bisection to %d mV; result: lowest clean value + %d mV\n"
	       "  each value: %u run(s) of %u s\n"
	       "  at most %u values per plane, %u min of load per plane; "
	       "written to %s\n",
	       j->start, j->step, j->limit, j->resolution, j->margin, j->runs,
	       j->duration, values, (values * j->runs * j->duration + 59) / 60,
	       j->config);
}

static int parse_mv(const char *opt, const char *arg, int lo, int hi, int *v)
{
	char *end;
	long l;

	errno = 0;
	l = strtol(arg, &end, 10);
	if (errno || end == arg || *end || l < lo || l > hi) {
		uv_warn("tune: %s '%s': expected a whole number from %d to %d",
			opt, arg, lo, hi);
		return -1;
	}
	*v = (int)l;
	return 0;
}

static int parse_args(int argc, char **argv, struct tune_cmd *c)
{
	static const struct option longopts[] = {
		{ "start", required_argument, NULL, 's' },
		{ "step", required_argument, NULL, 'S' },
		{ "resolution", required_argument, NULL, 'r' },
		{ "runs", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "margin", required_argument, NULL, 'm' },
		{ "limit", required_argument, NULL, 'l' },
		{ "max-crashes", required_argument, NULL, 'c' },
		{ "resume-after-crash", no_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "state-dir", required_argument, NULL, 'D' },
		{ "engine", required_argument, NULL, 'e' },
		{ "dry-run", no_argument, NULL, 'N' },
		{ "resume", no_argument, NULL, 'R' },
		{ "recover", no_argument, NULL, 'B' },
		{ "report", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct tune_journal *j = c->j;
	int ch, v;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			if (parse_mv("--start", optarg, -500, 0, &j->start))
				return -1;
			break;
		case 'S':
			if (parse_mv("--step", optarg, 1, 200, &j->step))
				return -1;
			break;
		case 'r':
			if (parse_mv("--resolution", optarg, 1, 100,
				     &j->resolution))
				return -1;
			break;
		case 'n':
			if (parse_mv("--runs", optarg, 1, 100, &v))
				return -1;
			j->runs = (unsigned int)v;
			break;
		case 'd':
			if (parse_mv("--duration", optarg, 1, 86400, &v))
				return -1;
			j->duration = (unsigned int)v;
			break;
		case 'm':
			if (parse_mv("--margin", optarg, 0, 200, &j->margin))
				return -1;
			break;
		case 'l':
			if (parse_mv("--limit", optarg, -500, 0, &j->limit))
				return -1;
			break;
		case 'c':
			if (parse_mv("--max-crashes", optarg, 0, 100, &v))
				return -1;
			j->max_crashes = (unsigned int)v;
			break;
		case 'a':
			j->resume = true;
			break;
		case 'o':
			if (uv_path(j->config, sizeof(j->config), "%s", optarg))
				return -1;
			break;
		case 'D':
			c->state_dir = optarg;
			break;
		case 'e':
			if (stress_engine_parse(optarg, &c->engine)) {
				uv_warn("tune: --engine '%s': expected auto, "
					"builtin or openblas", optarg);
				return -1;
			}
			break;
		case 'N':
			c->dry_run = true;
			break;
		case 'R':
			c->mode = MODE_RESUME;
			break;
		case 'B':
			c->mode = MODE_RECOVER;
			break;
		case 'P':
			c->mode = MODE_REPORT;
			break;
		default:
			uv_warn("tune: '%s': unknown option or missing value; "
				"see undervoltctl(8)", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		int p = plane_lookup(argv[optind], strlen(argv[optind]));

		if (p < 0 || optind + 1 < argc) {
			uv_warn("tune: '%s': expected one plane (core, cache, "
				"gpu, uncore or analogio)", argv[optind]);
			return -1;
		}
		c->has_plane = true;
		c->plane = (enum plane)p;
	}
	if (j->start < j->limit) {
		uv_warn("tune: --start %d is below --limit %d", j->start,
			j->limit);
		return -1;
	}
	return 0;
}

/* The planes to search: the one asked for, or core (and cache). */
static int pick_planes(const struct uv_sysfs *s, struct tune_journal *j,
		       const struct tune_cmd *c)
{
	struct uv_package_list list;
	long mv;
	size_t i;
	int r;

	r = sysfs_packages(s, &list);
	if (r || list.n == 0) {
		uv_warn("tune: the driver shows no package: %s",
			strerror(r ? -r : ENODEV));
		return -1;
	}
	j->coupled = cpu_couples_core_and_cache(s);
	if (c->has_plane) {
		if (c->plane == PLANE_CACHE && j->coupled) {
			uv_warn("tune: this CPU couples cache to core: tune "
				"core, which sets both");
			return -1;
		}
		j->planes[j->nplanes++] = c->plane;
	} else {
		j->planes[j->nplanes++] = PLANE_CORE;
		if (!j->coupled && sysfs_has_plane(s, list.id[0], PLANE_CACHE))
			j->planes[j->nplanes++] = PLANE_CACHE;
	}
	for (i = 0; i < j->nplanes; i++) {
		if (!sysfs_has_plane(s, list.id[0], j->planes[i])) {
			uv_warn("tune: package %u has no %s plane",
				list.id[0], plane_name(j->planes[i]));
			return -1;
		}
		r = plane_offset(s, list.id[0], j->planes[i], &mv);
		if (r) {
			uv_warn("tune: cannot read the %s offset: %s",
				plane_name(j->planes[i]), strerror(-r));
			return -1;
		}
		j->original[i] = (int)mv;
	}
	return 0;
}

static int cmd_report_journal(const struct tune_cmd *c)
{
	struct tune_journal *j = c->j;
	char *text;
	size_t len, i;
	int r;

	r = tune_journal_load(c->state_dir, j);
	if (r == -ENOENT) {
		uv_warn("tune: no search on record in %s; start one with "
			"'undervoltctl tune'", c->state_dir);
		return UV_EXIT_FAIL;
	}
	if (r)
		return UV_EXIT_FAIL;
	printf("search: %s; %zu value(s) tested; %u crash(es) in a row\n",
	       tune_state_name(j->state), j->nresults, j->crashes);
	for (i = 0; i < j->nresults; i++)
		printf("  %-8s %5d mV  %-13s %u s\n",
		       plane_name(j->results[i].plane), j->results[i].mv,
		       tune_outcome_name(j->results[i].outcome),
		       j->results[i].seconds);
	if (j->in_step)
		printf("  %-8s %5d mV  under test\n", plane_name(j->step_plane),
		       j->step_mv);
	if (j->state == TUNE_DONE &&
	    !uv_slurp(j->config, CONFIG_MAX_SIZE, &text, &len)) {
		printf("result (%s):\n%s", j->config, text);
		free(text);
	}
	return UV_EXIT_OK;
}

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

static int cmd_recover(const struct uv_sysfs *s, const struct tune_cmd *c)
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
	j->trial_saved = trial_get(s);
	if (save(c->state_dir, j))
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

/*
 * One search at a time: a lock on TUNE_LOCK in the state directory, held
 * until the process exits (the kernel drops it on a crash or a kill).
 * The descriptor, or -1 with a message.
 */
static int lock_state(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		uv_warn("tune: cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (tune_journal_path(dir, TUNE_LOCK, path, sizeof(path)))
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		uv_warn("tune: %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		uv_warn("tune: another undervoltctl tune is running (%s is "
			"locked); wait for it or stop it", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* udev loads the driver some time into the boot; a resume waits for it. */
static void wait_for_driver(const struct uv_sysfs *s, unsigned int seconds)
{
	struct stat st;

	while (seconds-- > 0 && stat(s->drv, &st) != 0)
		sleep(1);
}

int cmd_tune(const struct uv_sysfs *s, int argc, char **argv)
{
	struct tune_journal *j = calloc(1, sizeof(*j));
	struct tune_cmd c = {
		.mode = MODE_SEARCH, .state_dir = TUNE_STATE_DIR, .j = j,
	};
	char flag[PATH_MAX];
	long bmin, bmax;
	int code = UV_EXIT_USAGE, lock = -1;

	if (!j) {
		uv_warn("tune: out of memory");
		return UV_EXIT_FAIL;
	}
	*j = (struct tune_journal){
		.start = 0, .step = 25, .resolution = 5, .runs = 3,
		.duration = 300, .margin = 10, .limit = -250,
		.max_crashes = 3, .trial_saved = -1,
	};
	snprintf(j->config, sizeof(j->config), "%s", UV_DEFAULT_CONFIG);
	if (parse_args(argc, argv, &c))
		goto out;
	if (c.mode == MODE_REPORT) {
		code = cmd_report_journal(&c);
		goto out;
	}
	code = UV_EXIT_FAIL;
	if (!c.dry_run) {
		lock = lock_state(c.state_dir);
		if (lock < 0)
			goto out;
	}
	/* At boot the driver may bind later: recovery does not need it. */
	if (c.mode == MODE_RECOVER) {
		code = cmd_recover(s, &c);
		goto out;
	}
	if (c.mode == MODE_RESUME)
		wait_for_driver(s, 120);
	code = UV_EXIT_NODRIVER;
	if (sysfs_require_driver(s))
		goto out;
	code = UV_EXIT_FAIL;
	if (c.mode == MODE_RESUME) {
		if (tune_journal_load(c.state_dir, j))
			goto out;
		if (j->state != TUNE_RUNNING) {
			uv_warn("tune: the search in %s is %s: nothing to "
				"resume", c.state_dir, tune_state_name(j->state));
			goto out;
		}
		if (j->in_step) {
			uv_warn("tune: a step is unfinished; run 'undervoltctl "
				"tune --recover' first (at boot it runs by itself)");
			goto out;
		}
		if (!tune_journal_path(c.state_dir, TUNE_RESUME_FLAG, flag,
				       sizeof(flag)))
			unlink(flag);
		j->trial_saved = trial_get(s);
		code = search(s, j, &c);
		goto out;
	}
	if (!sysfs_bounds(s, &bmin, &bmax) && j->limit < bmin) {
		j->limit = (int)bmin;
		if (j->start < j->limit)
			j->start = j->limit;
	}
	if (pick_planes(s, j, &c))
		goto out;
	if (c.dry_run) {
		print_plan(j);
		code = UV_EXIT_OK;
		goto out;
	}
	if (trial_get(s) < 0) {
		uv_warn("tune: the driver has no trial mode "
			"(parameters/trial_seconds); tune needs it to revert a "
			"hung step: update the driver");
		goto out;
	}
	{
		struct tune_journal old;

		if (tune_journal_load(c.state_dir, &old) == 0 &&
		    old.state == TUNE_RUNNING) {
			uv_warn("tune: a search is already on record in %s; "
				"continue it with 'undervoltctl tune --resume' or "
				"move %s away", c.state_dir, TUNE_JOURNAL);
			goto out;
		}
	}
	j->trial_saved = trial_get(s);
	j->state = TUNE_RUNNING;
	print_plan(j);
	if (save(c.state_dir, j))
		goto out;
	code = search(s, j, &c);
out:
	if (lock >= 0)
		close(lock);
	free(j);
	return code;
}
