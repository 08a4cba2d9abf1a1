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
 * This file holds the verb: its options, the plan, the lock; the search
 * is in tune_search.c, the result and --report in tune_report.c, the
 * recovery at boot in tune_recover.c, the journal in tune_journal.c.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stress.h"
#include "tune.h"
#include "undervoltctl.h"

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
	j->coupled = tune_couples(s);
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
		r = tune_plane_offset(s, list.id[0], j->planes[i], &mv);
		if (r) {
			uv_warn("tune: cannot read the %s offset: %s",
				plane_name(j->planes[i]), strerror(-r));
			return -1;
		}
		j->original[i] = (int)mv;
	}
	return 0;
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
		code = tune_report(&c);
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
		code = tune_recover(s, &c);
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
		j->trial_saved = tune_trial_get(s);
		code = tune_search(s, j, &c);
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
	if (tune_trial_get(s) < 0) {
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
	j->trial_saved = tune_trial_get(s);
	j->state = TUNE_RUNNING;
	print_plan(j);
	if (tune_save(c.state_dir, j))
		goto out;
	code = tune_search(s, j, &c);
out:
	if (lock >= 0)
		close(lock);
	free(j);
	return code;
}
