// SPDX-License-Identifier: GPL-2.0
/*
 * undervoltctl: set and watch Intel CPU voltage offsets through the
 * intel_undervolt driver's sysfs interface. See undervoltctl(8).
 *
 * This file parses the command line and hands over to one cmd_*() per verb;
 * undervoltctl.h lists which file implements what.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "undervoltctl.h"

enum {
	OPT_JSON = 1 << 0,
	OPT_PACKAGE = 1 << 1,
	OPT_TRIAL = 1 << 2,
	OPT_DRY_RUN = 1 << 3,
	OPT_INTERVAL = 1 << 4,
	OPT_COUNT = 1 << 5,
	OPT_OUTPUT = 1 << 6,
	OPT_PARTIAL = 1 << 7,
	OPT_PROFILE = 1 << 8,
	OPT_BOOT = 1 << 9,
};

/* The Makefile passes VERSION; a build without it still says something. */
#ifndef UNDERVOLTCTL_VERSION
#define UNDERVOLTCTL_VERSION "unknown"
#endif

struct verb {
	const char *name;
	unsigned int options;	/* the OPT_* it accepts */
	int min_args, max_args;
	int (*run)(const struct uv_sysfs *s, const struct uv_opts *o);
};

static int run_import(const struct uv_sysfs *s, const struct uv_opts *o)
{
	(void)s;
	return cmd_import(o);
}

static int run_report(const struct uv_sysfs *s, const struct uv_opts *o)
{
	(void)o;
	return cmd_report(s, UNDERVOLTCTL_VERSION);
}

static const struct verb verbs[] = {
	{ "status", OPT_JSON | OPT_PACKAGE, 0, 0, cmd_status },
	{ "set", OPT_PACKAGE | OPT_TRIAL | OPT_DRY_RUN, 1, PLANE_COUNT,
	  cmd_set },
	{ "confirm", 0, 0, 0, cmd_confirm },
	{ "reset", OPT_PACKAGE | OPT_DRY_RUN, 0, 0, cmd_reset },
	{ "apply", OPT_PACKAGE | OPT_TRIAL | OPT_DRY_RUN | OPT_BOOT, 0, 1,
	  cmd_apply },
	{ "import", OPT_OUTPUT | OPT_PARTIAL | OPT_PROFILE, 0, 1, run_import },
	{ "monitor", OPT_INTERVAL | OPT_COUNT, 0, 0, cmd_monitor },
	{ "report", 0, 0, 0, run_report },
	{ "boot-confirm", 0, 0, 0, cmd_boot_confirm },
	{ "mce-guard", 0, 0, 0, cmd_mce_guard },
};

void uv_warn(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("undervoltctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * What the processes that run unattended (the trial's revert, the boot
 * assessment, mce-guard) did: to syslog, which is the journal under
 * systemd, and to standard error. Test builds append to the file named by
 * UNDERVOLTCTL_TEST_SYSLOG instead of syslog.
 */
void uv_log(int priority, const char *fmt, ...)
{
	const char *file = uv_test_env("UNDERVOLTCTL_TEST_SYSLOG");
	char msg[1024];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	uv_warn("%s", msg);
	if (file && *file) {
		f = fopen(file, "a");
		if (f) {
			fprintf(f, "<%d> undervoltctl: %s\n", priority, msg);
			fclose(f);
		}
		return;
	}
	openlog("undervoltctl", LOG_PID, LOG_DAEMON);
	syslog(priority, "%s", msg);
	closelog();
}

static void usage(FILE *f, int code)
{
	fprintf(f,
"usage: undervoltctl [--sysfs-root DIR] VERB ...\n"
"       undervoltctl --help | --version\n"
"       undervoltctl status [--json] [--package N]\n"
"       undervoltctl set PLANE=MV ... [--package N] [--trial SECONDS] [--dry-run]\n"
"       undervoltctl confirm\n"
"       undervoltctl reset [--package N] [--dry-run]\n"
"       undervoltctl apply [FILE] [--package N] [--trial SECONDS] [--dry-run]\n"
"                          [--boot]\n"
"       undervoltctl import [FILE] [-o OUTPUT] [--partial] [--profile N]\n"
"       undervoltctl monitor [--interval SECONDS] [--count N]\n"
"       undervoltctl report\n"
"       undervoltctl mce-guard | boot-confirm\n"
"       undervoltctl tune [PLANE] [--start MV] [--step MV] [--resolution MV]\n"
"                         [--runs N] [--duration SECONDS] [--margin MV] [--limit MV]\n"
"                         [--max-crashes N] [--resume-after-crash] [-o FILE]\n"
"                         [--engine auto|builtin|openblas] [--dry-run]\n"
"                         [--state-dir DIR]\n"
"       undervoltctl tune --resume | --recover | --report | --help\n"
"       undervoltctl stress [--duration SECONDS] [--all-cores] [--size N]\n"
"                           [--engine auto|builtin|openblas]\n"
"PLANE is core, gpu, cache, uncore or analogio; MV is whole millivolts.\n"
"FILE '-' is standard input. See undervoltctl(8).\n");
	exit(code);
}

/* The name of the lowest OPT_* bit in BITS. */
static const char *option_name(unsigned int bits)
{
	static const char *const names[] = {
		"--json", "--package", "--trial", "--dry-run", "--interval",
		"--count", "--output", "--partial", "--profile", "--boot",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bits & (1u << i))
			return names[i];
	return "?";
}

static int parse_ulong(const char *arg, unsigned long max, unsigned long *v)
{
	char *end;

	if (arg[0] < '0' || arg[0] > '9')
		return -1;
	*v = strtoul(arg, &end, 10);
	return (*end || *v > max) ? -1 : 0;
}

static int parse_options(int argc, char **argv, struct uv_opts *o,
			 const char **root, unsigned int *seen)
{
	static const struct option longopts[] = {
		{ "sysfs-root", required_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'j' },
		{ "package", required_argument, NULL, 'p' },
		{ "trial", required_argument, NULL, 't' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "partial", no_argument, NULL, 'P' },
		{ "profile", required_argument, NULL, 'r' },
		{ "boot", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	char *end;
	int ch;

	opterr = 0;		/* our messages start with "undervoltctl:" */
	while ((ch = getopt_long(argc, argv, "hjnp:t:i:c:o:", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'R':
			*root = optarg;
			break;
		case 'j':
			o->json = true;
			*seen |= OPT_JSON;
			break;
		case 'n':
			o->dry_run = true;
			*seen |= OPT_DRY_RUN;
			break;
		case 'p':
			if (parse_ulong(optarg, CONFIG_MAX_PACKAGES - 1, &v)) {
				uv_warn("--package '%s': expected a package "
					"number from 0 to %d", optarg,
					CONFIG_MAX_PACKAGES - 1);
				return -1;
			}
			o->has_package = true;
			o->package = (unsigned int)v;
			*seen |= OPT_PACKAGE;
			break;
		case 't':
			if (parse_ulong(optarg, 86400, &v)) {
				uv_warn("--trial '%s': expected seconds from 0 "
					"(off) to 86400", optarg);
				return -1;
			}
			o->has_trial = true;
			o->trial_seconds = (unsigned int)v;
			*seen |= OPT_TRIAL;
			break;
		case 'i':
			o->interval = strtod(optarg, &end);
			if (*end || end == optarg || !(o->interval > 0) ||
			    o->interval > 3600) {
				uv_warn("--interval '%s': expected seconds "
					"above 0, at most 3600", optarg);
				return -1;
			}
			*seen |= OPT_INTERVAL;
			break;
		case 'c':
			if (parse_ulong(optarg, 1000000000, &v) || v == 0) {
				uv_warn("--count '%s': expected a number of "
					"samples, 1 or more", optarg);
				return -1;
			}
			o->count = (long)v;
			*seen |= OPT_COUNT;
			break;
		case 'o':
			if (!*optarg) {
				uv_warn("--output: expected a file name");
				return -1;
			}
			o->output = optarg;
			*seen |= OPT_OUTPUT;
			break;
		case 'P':
			o->partial = true;
			*seen |= OPT_PARTIAL;
			break;
		case 'r':
			/* Numbered as ThrottleStop's window shows them. */
			if (parse_ulong(optarg, 4, &v) || v == 0) {
				uv_warn("--profile '%s': expected a ThrottleStop "
					"profile from 1 to 4", optarg);
				return -1;
			}
			o->profile = (unsigned int)v;
			*seen |= OPT_PROFILE;
			break;
		case 'b':
			o->boot = true;
			*seen |= OPT_BOOT;
			break;
		case 'h':
			usage(stdout, UV_EXIT_OK);
			break;
		case 'V':
			printf("undervoltctl %s\n", UNDERVOLTCTL_VERSION);
			exit(UV_EXIT_OK);
		default:
			uv_warn("'%s': unknown option or missing value",
				argv[optind - 1]);
			return -1;
		}
	}
	return 0;
}

/*
 * tune, stress and trial-revert have options of their own: the common
 * options before the verb are parsed here, everything after it by the
 * verb. The index of such a verb in ARGV, or 0.
 */
static int own_options_verb(int argc, char **argv)
{
	int i = 1;

	while (i < argc) {
		if (strcmp(argv[i], "--sysfs-root") == 0) {
			i += 2;
		} else if (strncmp(argv[i], "--sysfs-root=", 13) == 0) {
			i++;
		} else if (strcmp(argv[i], "tune") == 0 ||
			   strcmp(argv[i], "stress") == 0 ||
			   strcmp(argv[i], "trial-revert") == 0) {
			return i;
		} else {
			return 0;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct uv_opts o = { .interval = 1.0 };
	const char *root = NULL;
	const struct verb *verb = NULL;
	int own = own_options_verb(argc, argv);
	unsigned int seen = 0;
	struct uv_sysfs s;
	size_t i;

	if (own) {
		if (parse_options(own, argv, &o, &root, &seen) < 0)
			usage(stderr, UV_EXIT_USAGE);
		if (sysfs_init(&s, root) < 0) {
			uv_warn("--sysfs-root: path too long");
			return UV_EXIT_USAGE;
		}
		if (strcmp(argv[own], "stress") == 0)
			return cmd_stress(argc - own, argv + own);
		if (strcmp(argv[own], "trial-revert") == 0)
			return cmd_trial_revert(&s, argc - own, argv + own);
		return cmd_tune(&s, argc - own, argv + own);
	}
	if (parse_options(argc, argv, &o, &root, &seen) < 0)
		usage(stderr, UV_EXIT_USAGE);
	if (optind == argc)
		usage(stderr, UV_EXIT_USAGE);
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strcmp(argv[optind], verbs[i].name) == 0)
			verb = &verbs[i];
	if (!verb) {
		uv_warn("'%s': unknown verb; run 'undervoltctl --help' for "
			"the list", argv[optind]);
		return UV_EXIT_USAGE;
	}
	o.argc = argc - optind - 1;
	o.argv = argv + optind + 1;
	if (seen & ~verb->options) {
		uv_warn("%s: %s is not an option of this verb; see "
			"'undervoltctl --help'", verb->name,
			option_name(seen & ~verb->options));
		return UV_EXIT_USAGE;
	}
	if (o.argc < verb->min_args || o.argc > verb->max_args) {
		uv_warn("%s: wrong number of arguments; see 'undervoltctl "
			"--help'", verb->name);
		return UV_EXIT_USAGE;
	}
	if (sysfs_init(&s, root) < 0) {
		uv_warn("--sysfs-root: path too long");
		return UV_EXIT_USAGE;
	}
	return verb->run(&s, &o);
}
