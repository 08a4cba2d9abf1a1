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
 * is in tune_search.c, one value under the load in tune_step.c, the
 * configuration it writes in tune_result.c, --report in tune_report.c
 * (--svg in tune_svg.c), the recovery at boot in tune_recover.c, the
 * journal in tune_journal.c.
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
#include "trial.h"
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

static void usage(void)
{
	printf(
"usage: undervoltctl tune [PLANE] [--start MV] [--step MV] [--resolution MV]\n"
"                         [--runs N] [--duration SECONDS] [--margin MV]\n"
"                         [--limit MV] [--max-crashes N] [--resume-after-crash]\n"
"                         [-o FILE] [--state-dir DIR]\n"
"                         [--engine auto|builtin|openblas] [--dry-run]\n"
"       undervoltctl tune --resume | --recover | --help\n"
"       undervoltctl tune --report [--svg FILE]\n"
"Finds the lowest offset this CPU runs stable at, under a verified load;\n"
"writes it with the evidence to FILE (/etc/undervolt.conf). Defaults:\n"
"--start 0 --step 25 --resolution 5 --runs 3 --duration 300 --margin 10\n"
"--limit -250 --max-crashes 3. See undervoltctl(8).\n");
}

/* 0, 1 after --help, or -1 (said). */
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
		{ "svg", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tune_journal *j = c->j;
	int ch, v;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage();
			return 1;
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
		case 'G':
			c->svg = optarg;
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
	if (c->svg && c->mode != MODE_REPORT) {
		uv_warn("tune: --svg draws the search on record: give it with "
			"--report (undervoltctl tune --report --svg FILE)");
		return -1;
	}
	if (j->start < j->limit) {
		uv_warn("tune: --start %d is below --limit %d", j->start,
			j->limit);
		return -1;
	}
	return 0;
}

/*
 * Skylake to Raptor Lake: core and cache share one voltage. A CPU the list
 * does not know counts as two planes, as Haswell and Broadwell.
 */
bool tune_couples(const struct uv_sysfs *s)
{
	return uv_this_cpu_couples(s) == 1;
}

/* The planes to search: the one asked for, or core (and cache). */
static int pick_planes(const struct uv_sysfs *s, struct tune_journal *j,
		       const struct tune_cmd *c)
{
	struct uv_package_list list;
	char path[PATH_MAX];
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
		r = sysfs_plane_path(s, list.id[0], j->planes[i], "offset_mv",
				     path, sizeof(path));
		if (!r)
			r = sysfs_read_long(path, &mv);
		if (r) {
			uv_warn("tune: cannot read the %s offset: %s",
				plane_name(j->planes[i]), r == -ENODATA ?
				"it is unknown (suspended or package offline)" :
				strerror(-r));
			return -1;
		}
		j->original[i] = (int)mv;
	}
	return 0;
}

/* udev loads the driver some time into the boot; a resume waits for it. */
static void wait_for_driver(const struct uv_sysfs *s)
{
	const char *v = uv_test_env("UNDERVOLTCTL_TEST_DRIVER_WAIT_S");
	unsigned int seconds = v && *v ? (unsigned int)atoi(v) : 120;
	struct stat st;

	if (stat(s->drv, &st) == 0)
		return;
	printf("tune: waiting up to %u s for the intel_undervolt driver to "
	       "bind\n", seconds);
	fflush(stdout);
	while (seconds-- > 0 && stat(s->drv, &st) != 0)
		sleep(1);
}

/* A trial of someone else would move the offsets under test. */
static int no_trial(const struct uv_sysfs *s)
{
	struct trial_state *t = malloc(sizeof(*t));
	double left;
	int r = t ? trial_read(s, t, &left) : 0;

	if (r == 1 && strcmp(t->owner, "tune") != 0)
		uv_warn("tune: a trial runs (%s, %.0f s left): its revert would "
			"move the offsets under test; confirm it or let it end "
			"first", t->owner, left > 0 ? left : 0);
	r = r == 1 && strcmp(t->owner, "tune") != 0;
	free(t);
	return r ? UV_EXIT_FAIL : 0;
}

static int resume(const struct uv_sysfs *s, const struct tune_cmd *c)
{
	struct tune_journal *j = c->j;
	int code;

	if (tune_journal_needed(c->state_dir, j, "nothing to resume"))
		return UV_EXIT_FAIL;
	if (j->state != TUNE_RUNNING) {
		uv_warn("tune: the search in %s is %s: nothing to resume",
			c->state_dir, tune_state_name(j->state));
		return UV_EXIT_FAIL;
	}
	if (j->in_step) {
		uv_warn("tune: a step is unfinished; run 'undervoltctl tune "
			"--recover' first (at boot it runs by itself)");
		return UV_EXIT_FAIL;
	}
	if (boot_recovery_switch(s)) {
		uv_warn("tune: undervolt=off is on the kernel command line (the "
			"recovery switch): the search is not resumed and nothing "
			"is applied; after a boot without it, 'undervoltctl tune "
			"--resume' goes on");
		return UV_EXIT_POLICY;
	}
	wait_for_driver(s);
	code = sysfs_require_driver(s);
	if (!code && tune_journal_check_driver(s, j, c->state_dir))
		code = UV_EXIT_FAIL;
	if (!code)
		code = no_trial(s);
	if (!code)
		code = tune_writes_allowed(s, j, true);
	if (code)
		return code;
	state_unlink(c->state_dir, TUNE_RESUME_FLAG);
	return tune_search(s, j, c);
}

/* -o FILE as the journal keeps it: an absolute path. */
static int absolute_config(struct tune_journal *j)
{
	char cwd[PATH_MAX], rel[PATH_MAX];

	if (j->config[0] == '/')
		return 0;
	if (!getcwd(cwd, sizeof(cwd)) ||
	    uv_path(rel, sizeof(rel), "%s", j->config) ||
	    uv_path(j->config, sizeof(j->config), "%s/%s", cwd, rel)) {
		uv_warn("tune: -o %s: give an absolute path", j->config);
		return -1;
	}
	return 0;
}

static int start(const struct uv_sysfs *s, const struct tune_cmd *c)
{
	struct tune_journal *j = c->j, *old;
	long bmin, bmax;
	int code, r;

	code = sysfs_require_driver(s);
	if (code)
		return code;
	if (!sysfs_bounds(s, &bmin, &bmax) && j->limit < bmin) {
		j->limit = (int)bmin;
		if (j->start < j->limit)
			j->start = j->limit;
	}
	if (absolute_config(j) || pick_planes(s, j, c))
		return UV_EXIT_FAIL;
	code = no_trial(s);
	if (!code)
		code = tune_writes_allowed(s, j, true);
	if (code)
		return code;
	if (c->dry_run) {
		print_plan(j);
		return UV_EXIT_OK;
	}
	old = malloc(sizeof(*old));
	r = old ? tune_journal_load(c->state_dir, old) : -ENOMEM;
	if (!r && old->state == TUNE_RUNNING)
		uv_warn("tune: a search is already on record in %s; continue it "
			"with 'undervoltctl tune --resume' or move %s away",
			c->state_dir, TUNE_JOURNAL);
	code = (!r && old->state == TUNE_RUNNING) || (r && r != -ENOENT);
	free(old);
	if (code)
		return UV_EXIT_FAIL;
	j->state = TUNE_RUNNING;
	print_plan(j);
	if (tune_save(c->state_dir, j))
		return UV_EXIT_FAIL;
	return tune_search(s, j, c);
}

int cmd_tune(const struct uv_sysfs *s, int argc, char **argv)
{
	struct tune_journal *j = calloc(1, sizeof(*j));
	struct tune_cmd c = {
		.mode = MODE_SEARCH, .state_dir = s->state, .j = j,
	};
	int code = UV_EXIT_USAGE, lock = -1, r;

	if (!j) {
		uv_warn("tune: out of memory");
		return UV_EXIT_FAIL;
	}
	*j = (struct tune_journal){
		.start = 0, .step = 25, .resolution = 5, .runs = 3,
		.duration = 300, .margin = 10, .limit = -250,
		.max_crashes = 3,
	};
	snprintf(j->config, sizeof(j->config), "%s", UV_DEFAULT_CONFIG);
	r = parse_args(argc, argv, &c);
	if (r) {
		code = r > 0 ? UV_EXIT_OK : UV_EXIT_USAGE;
		goto out;
	}
	if (c.mode == MODE_REPORT) {
		code = state_dir_check(c.state_dir, false) == -EPERM ?
		       UV_EXIT_FAIL : tune_report(&c);
		goto out;
	}
	code = UV_EXIT_FAIL;
	if (!c.dry_run) {
		lock = search_lock(c.state_dir);
		if (lock < 0)
			goto out;
	}
	/* At boot the driver may bind later: recovery does not need it. */
	if (c.mode == MODE_RECOVER)
		code = tune_recover(s, &c);
	else if (c.mode == MODE_RESUME)
		code = resume(s, &c);
	else
		code = start(s, &c);
out:
	if (lock >= 0)
		close(lock);
	free(j);
	return code;
}
