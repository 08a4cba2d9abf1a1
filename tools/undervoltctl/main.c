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

/*
 * The synopsis of each verb, as usage() prints it: all of them for
 * "undervoltctl --help", one for "undervoltctl VERB --help".
 */
static const struct {
	const char *verb;
	const char *text;
} synopses[] = {
	{ "status", "status [--json] [--package N]\n" },
	{ "set", "set PLANE=MV ... [--package N] [--trial SECONDS] [--dry-run]\n" },
	{ "confirm", "confirm\n" },
	{ "reset", "reset [--package N] [--dry-run]\n" },
	{ "apply", "apply [FILE] [--package N] [--trial SECONDS] [--dry-run]\n"
		   "                          [--boot]\n" },
	{ "import", "import [FILE] [-o OUTPUT] [--partial] [--profile N]\n" },
	{ "monitor", "monitor [--interval SECONDS] [--count N]\n" },
	{ "report", "report\n" },
	{ "mce-guard", "mce-guard\n" },
	{ "boot-confirm", "boot-confirm\n" },
	{ "tune",
	  "tune [PLANE] [--start MV] [--step MV] [--resolution MV]\n"
	  "                         [--runs N] [--duration SECONDS] [--margin MV] [--limit MV]\n"
	  "                         [--max-crashes N] [--resume-after-crash] [-o FILE]\n"
	  "                         [--engine auto|builtin|openblas] [--dry-run]\n"
	  "                         [--state-dir DIR]\n"
	  "       undervoltctl tune --resume | --recover | --help\n"
	  "       undervoltctl tune --report [--svg FILE]\n" },
	{ "stress",
	  "stress [--duration SECONDS] [--all-cores] [--size N]\n"
	  "                           [--engine auto|builtin|openblas]\n" },
};

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
	{ "import", OPT_OUTPUT | OPT_PARTIAL | OPT_PROFILE, 0, 1, cmd_import },
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

/* Every verb's synopsis; VERB: that verb's only. Exits with CODE. */
static void usage(FILE *f, const char *verb, int code)
{
	size_t i;

	if (!verb)
		fprintf(f, "usage: undervoltctl [--sysfs-root DIR] VERB ...\n"
			"       undervoltctl --help | --version\n");
	for (i = 0; i < sizeof(synopses) / sizeof(synopses[0]); i++)
		if (!verb || strcmp(verb, synopses[i].verb) == 0)
			fprintf(f, "%s undervoltctl %s", verb ? "usage:" : "      ",
				synopses[i].text);
	for (i = 0; verb && i < sizeof(synopses) / sizeof(synopses[0]) &&
		    strcmp(verb, synopses[i].verb) != 0; i++)
		;
	if (!verb || strstr(synopses[i].text, "PLANE"))
		fprintf(f, "PLANE is core, gpu, cache, uncore or analogio; MV "
			"is whole millivolts.\n");
	if (!verb || strstr(synopses[i].text, "FILE"))
		fprintf(f, "FILE '-' is standard input.\n");
	fprintf(f, "See undervoltctl(8).\n");
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

/* The options that take a value as the next word. */
static bool takes_value(const char *arg)
{
	static const char *const with_value[] = {
		"--sysfs-root", "--package", "-p", "--trial", "-t", "--interval",
		"-i", "--count", "-c", "--output", "-o", "--profile",
	};
	size_t i;

	for (i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++)
		if (strcmp(arg, with_value[i]) == 0)
			return true;
	return false;
}

/*
 * "set core -10": getopt would read "-10" as options -1 and -0 and blame
 * something else. No option starts with a digit, so a word that does,
 * other than an option's value, is a value that lost its "PLANE=".
 */
static int detached_value(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (argv[i][0] != '-' || argv[i][1] < '0' || argv[i][1] > '9' ||
		    takes_value(argv[i - 1]))
			continue;
		if (plane_lookup(argv[i - 1], strlen(argv[i - 1])) >= 0)
			uv_warn("'%s %s': expected PLANE=MV, e.g. %s=%s, with no "
				"space around '='", argv[i - 1], argv[i],
				argv[i - 1], argv[i]);
		else
			uv_warn("'%s': expected PLANE=MV, e.g. core=%s", argv[i],
				argv[i]);
		return -1;
	}
	return 0;
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

	if (detached_value(argc, argv) < 0)
		return -1;
	opterr = 0;		/* our messages start with "undervoltctl:" */
	/* The leading ':' tells a missing value from an unknown option. */
	while ((ch = getopt_long(argc, argv, ":hjnp:t:i:c:o:", longopts,
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
			o->help = true;	/* the verb's usage, once it is known */
			break;
		case 'V':
			printf("undervoltctl %s\n", UNDERVOLTCTL_VERSION);
			exit(UV_EXIT_OK);
		case ':':
			uv_warn("'%s': expects a value; see 'undervoltctl VERB "
				"--help'", argv[optind - 1]);
			return -1;
		default:
			if (optopt)
				uv_warn("'-%c': unknown option; see 'undervoltctl "
					"VERB --help'", optopt);
			else
				uv_warn("'%s': unknown option; see 'undervoltctl "
					"VERB --help'", argv[optind - 1]);
			return -1;
		}
	}
	return 0;
}

/* -h or --help among the options of a verb that parses its own. */
static bool asks_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	return false;
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
			return UV_EXIT_USAGE;
		if (o.help)
			usage(stdout, NULL, UV_EXIT_OK);
		if (sysfs_init(&s, root) < 0) {
			uv_warn("--sysfs-root: path too long");
			return UV_EXIT_USAGE;
		}
		if (strcmp(argv[own], "stress") == 0) {
			if (asks_help(argc - own, argv + own))
				usage(stdout, "stress", UV_EXIT_OK);
			return cmd_stress(argc - own, argv + own);
		}
		if (strcmp(argv[own], "trial-revert") == 0)
			return cmd_trial_revert(&s, argc - own, argv + own);
		return cmd_tune(&s, argc - own, argv + own);
	}
	if (parse_options(argc, argv, &o, &root, &seen) < 0)
		return UV_EXIT_USAGE;	/* one line said what is wrong */
	if (optind == argc)
		usage(o.help ? stdout : stderr, NULL,
		      o.help ? UV_EXIT_OK : UV_EXIT_USAGE);
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strcmp(argv[optind], verbs[i].name) == 0)
			verb = &verbs[i];
	if (!verb) {
		uv_warn("'%s': unknown verb; run 'undervoltctl --help' for "
			"the list", argv[optind]);
		return UV_EXIT_USAGE;
	}
	if (o.help)
		usage(stdout, verb->name, UV_EXIT_OK);
	o.argc = argc - optind - 1;
	o.argv = argv + optind + 1;
	if (seen & ~verb->options) {
		uv_warn("%s: %s is not an option of this verb; see "
			"'undervoltctl %s --help'", verb->name,
			option_name(seen & ~verb->options), verb->name);
		return UV_EXIT_USAGE;
	}
	if (o.argc < verb->min_args || o.argc > verb->max_args) {
		uv_warn("%s: wrong number of arguments; see 'undervoltctl "
			"%s --help'", verb->name, verb->name);
		return UV_EXIT_USAGE;
	}
	if (sysfs_init(&s, root) < 0) {
		uv_warn("--sysfs-root: path too long");
		return UV_EXIT_USAGE;
	}
	return verb->run(&s, &o);
}
