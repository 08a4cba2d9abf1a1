/* SPDX-License-Identifier: GPL-2.0 */
/*
 * undervoltctl.h: what the verbs share.
 *
 *	main.c		options, usage(), verb dispatch, exit codes
 *	sysfs.c		every read and write of the driver's sysfs files
 *	change.c	set, reset, apply, confirm: all-or-nothing writes
 *	status.c	status, as a table or as JSON
 *	json.c		JSON strings and numbers for status and report
 *	monitor.c	monitor: RAPL power, coretemp, cpufreq, offsets
 *	import.c	import: intel-undervolt files, format detection
 *	import_throttled.c  import of throttled's [UNDERVOLT*] sections
 *	outfile.c	import -o: a file replaced whole or not at all
 *	report.c	report: what a bug report or compatibility table needs
 *	config.c	the undervolt.conf(5) parser (fuzzed by fuzz_config.c)
 *	power.c		AC or battery, for [ac] and [battery]
 *	cpuinfo.c	fields of /proc/cpuinfo
 *	stress.c	the self-checking load (stress.h says how it checks)
 *	stress_verb.c	stress: that load on its own
 *	tune.c		tune: its options, the plan, the lock
 *	tune_search.c	tune: the search and one value under the load
 *	tune_report.c	tune: the result it writes, and tune --report
 *	tune_recover.c	tune --recover: a crashed step at boot
 *	tune_journal.c	tune's journal, which survives the crashes
 */
#ifndef UNDERVOLTCTL_H
#define UNDERVOLTCTL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"

/* Exit codes, documented in undervoltctl(8). */
enum {
	UV_EXIT_OK = 0,
	UV_EXIT_FAIL = 1,	/* the operation failed */
	UV_EXIT_USAGE = 2,	/* bad command line or configuration file */
	UV_EXIT_NODRIVER = 3,	/* the intel_undervolt driver is not there */
	UV_EXIT_POLICY = 4,	/* lockdown, SGX, OC lock, recovery switch */
	UV_EXIT_FIRMWARE = 5,	/* status: the firmware locked the offsets */
};

#define UV_DEFAULT_CONFIG "/etc/undervolt.conf"
#define UV_DEFAULT_IMPORT "/etc/intel-undervolt.conf"

/* Where the driver's files are; "/sys" unless --sysfs-root says otherwise. */
struct uv_sysfs {
	char root[PATH_MAX];
	char drv[PATH_MAX];	/* ROOT/devices/system/cpu/intel_undervolt */
	char params[PATH_MAX];	/* ROOT/module/intel_undervolt/parameters */
	char proc[PATH_MAX];	/* "/proc", or UNDERVOLTCTL_PROC_ROOT (tests) */
};

/* The command line, parsed once by main(). */
struct uv_opts {
	bool json;
	bool dry_run;
	bool has_package;
	unsigned int package;
	bool has_trial;
	unsigned int trial_seconds;
	double interval;	/* seconds */
	long count;		/* 0: until interrupted */
	const char *output;	/* import -o FILE, or NULL for stdout */
	bool partial;		/* import --partial */
	unsigned int profile;	/* import --profile: 1-4, 0 the file's own */
	int argc;		/* operands after the verb */
	char **argv;
};

struct uv_package_list {
	size_t n;
	unsigned int id[CONFIG_MAX_PACKAGES];
};

/* Messages: "undervoltctl: ..." on stderr. */
void uv_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* sysfs.c */
int uv_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sysfs_init(struct uv_sysfs *s, const char *root, const char *proc);
int sysfs_require_driver(const struct uv_sysfs *s);
int sysfs_read_long(const char *path, long *v);
int sysfs_read_word(const char *path, char *buf, size_t size);
int sysfs_read_bool(const char *path, bool *v);
int sysfs_write_long(const char *path, long v);
int sysfs_plane_path(const struct uv_sysfs *s, unsigned int pkg,
		     enum plane plane, const char *suffix, char *buf,
		     size_t size);
int sysfs_pkg_path(const struct uv_sysfs *s, unsigned int pkg,
		   const char *name, char *buf, size_t size);
int sysfs_drv_path(const struct uv_sysfs *s, const char *name, char *buf,
		   size_t size);
int sysfs_param_path(const struct uv_sysfs *s, const char *name, char *buf,
		     size_t size);
int sysfs_packages(const struct uv_sysfs *s, struct uv_package_list *list);
bool sysfs_has_plane(const struct uv_sysfs *s, unsigned int pkg,
		     enum plane plane);
int sysfs_bounds(const struct uv_sysfs *s, long *min, long *max);
int sysfs_block_reason(const struct uv_sysfs *s, unsigned int pkg, char *buf,
		       size_t size);
const char *sysfs_block_advice(const char *reason);
const char *sysfs_ignored_note(const char *reason);
bool sysfs_block_is_firmware(const char *reason);

/*
 * cpuinfo.c: the value of KEY in the first processor block of INFO (the
 * text of /proc/cpuinfo) copied into BUF; NULL when it is not there.
 */
const char *uv_cpuinfo_value(const char *info, const char *key, char *buf,
			     size_t size);

/* json.c: a JSON string (NULL: null); a number, null when ERR. */
void json_string(const char *str);
void json_long(int err, long v);

/* power.c: the power source the machine runs on now. */
enum power_source power_source(const struct uv_sysfs *s);

/* The verbs; each returns an exit code. */
int cmd_status(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_set(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_reset(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_apply(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_confirm(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_import(const struct uv_opts *o);
int cmd_monitor(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_report(const struct uv_sysfs *s, const char *version);
/* Verbs that parse their own options: ARGV[0] is the verb. */
int cmd_tune(const struct uv_sysfs *s, int argc, char **argv);
int cmd_stress(int argc, char **argv);

/* status.c: the object of status --json, or null without the driver. */
int status_json(const struct uv_sysfs *s);

/* import.c: what a conversion carried over and what it could not. */
struct import_result {
	bool binary;		/* not text: refused, nothing converted */
	const char *format;	/* NULL: intel-undervolt; "throttled", ... */
	int planes;		/* planes carried over (printed to OUT) */
	int failed;		/* lines that could not be converted */
	int advised;		/* directives reported with what to use instead */
	int commented;		/* undervolt lines commented out */
};

/*
 * Convert an intel-undervolt, throttled or ThrottleStop configuration into
 * undervolt.conf(5) on OUT, with one message per line not carried over on
 * DIAG; FILE names the input in them, PROFILE picks a ThrottleStop profile
 * (1-4; 0: the one the file has in use). OUT gets a configuration only when
 * res->planes > 0. Returns 0, or -1 without memory.
 */
int import_convert(const char *buf, size_t len, const char *file,
		   unsigned int profile, FILE *out, FILE *diag,
		   struct import_result *res);

/* outfile.c: replace PATH with LEN bytes at once, or leave it; -errno. */
int uv_write_atomic(const char *path, const char *data, size_t len);

/*
 * Read a whole small file ("-": standard input) into a NUL-terminated buffer
 * the caller frees; -EFBIG beyond MAX bytes.
 */
int uv_slurp(const char *path, size_t max, char **buf, size_t *len);
/* PATH as messages name it: "-" is "(standard input)". */
const char *uv_input_name(const char *path);

#endif
