/* SPDX-License-Identifier: GPL-2.0 */
/*
 * undervoltctl.h: what the verbs share.
 *
 *	main.c		options, usage(), verb dispatch, exit codes
 *	sysfs.c		every read and write of the driver's sysfs files
 *	diag.c		why writes are refused: lockdown, SGX, kdump, the
 *			driver's log lines, MSR hints; advice and exit codes
 *	klog.c		the kernel log (/dev/kmsg): records, the driver's lines
 *	plan.c		all-or-nothing writes: read, write, read back, roll back
 *	change.c	set, reset, apply: the plans they make
 *	trial.c		--trial, confirm, trial-revert: provisional offsets
 *	trial_arm.c	the revert of a trial: a systemd timer or a process
 *	boot.c		apply --boot, boot-confirm: the recovery switch and
 *			the boot assessment of applied offsets
 *	statedir.c	/var/lib/undervoltctl: checked before it is trusted,
 *			the lock of a tune search, backups
 *	mce.c		mce_record trace events: parsed and classified
 *	mce_guard.c	mce-guard: offsets to 0 mV after a core machine check
 *	status.c	status, as a table or as JSON
 *	json.c		JSON strings and numbers for status and report
 *	monitor.c	monitor: RAPL power, coretemp, cpufreq, offsets
 *	import.c	import: the verb, and the dispatcher: binary input
 *			refused, the format told, core and cache checked,
 *			undervolt.conf(5) written
 *	import_intel_undervolt.c  import of intel-undervolt's files
 *	import_throttled.c  import of throttled's [UNDERVOLT*] sections
 *	import_throttlestop.c  import of a ThrottleStop.ini's FIVR offsets
 *	import_text.c	what the importers share: lines, millivolts, notes
 *	outfile.c	import -o, tune: a file replaced whole or not at all
 *	report.c	report: what a bug report or compatibility table needs
 *	config.c	the undervolt.conf(5) parser (fuzzed by fuzz_config.c)
 *	power.c		AC or battery, for [ac] and [battery]
 *	cpuinfo.c	fields of /proc/cpuinfo
 *	stress.c	the self-checking load's run: workers, phases
 *	stress_check.c	its problem and checks (stress.h says how they check)
 *	stress_mult.c	its paths: plain C, AVX2, AVX-512, OpenBLAS
 *	stress_verb.c	stress: that load on its own
 *	tune.c		tune: its options, the plan, the lock
 *	tune_search.c	tune: the search: which value next, the loop
 *	tune_step.c	tune: one value under the load, read back, put back
 *	tune_watch.c	tune: what a run watches besides its results
 *	tune_result.c	tune: the configuration it writes at the end
 *	tune_report.c	tune --report
 *	tune_svg.c	tune --report --svg: the search drawn
 *	tune_recover.c	tune --recover: a crashed step at boot
 *	tune_journal.c	tune's journal, which survives the crashes
 *
 * Test builds (-DUNDERVOLTCTL_TEST_HOOKS, never installed) read a few
 * UNDERVOLTCTL_* environment variables through uv_test_env(); in other
 * builds uv_test_env() is NULL and the names are not even compiled in,
 * so that root with an inherited environment cannot be steered.
 */
#ifndef UNDERVOLTCTL_H
#define UNDERVOLTCTL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "config.h"
#include "klog.h"

/* Exit codes, documented in undervoltctl(8). */
enum {
	UV_EXIT_OK = 0,
	UV_EXIT_FAIL = 1,	/* the operation failed */
	UV_EXIT_USAGE = 2,	/* bad command line or configuration file */
	UV_EXIT_NODRIVER = 3,	/* the intel_undervolt driver is not there */
	UV_EXIT_POLICY = 4,	/* lockdown, SGX, kdump, recovery switch, boot */
	UV_EXIT_FIRMWARE = 5,	/* the firmware locked or ignored the offsets */
};

#ifdef UNDERVOLTCTL_TEST_HOOKS
#define uv_test_env(name) getenv(name)
#else
#define uv_test_env(name) ((const char *)NULL)
#endif

#define UV_DEFAULT_CONFIG "/etc/undervolt.conf"
#define UV_DEFAULT_IMPORT "/etc/intel-undervolt.conf"
/* The package's own state: tune's journal, the boot assessment. */
#define UV_STATE_DIR "/var/lib/undervoltctl"

/*
 * Where the files are. "/sys" unless --sysfs-root says otherwise; the
 * others are fixed, and only test builds move them (UNDERVOLTCTL_PROC_ROOT,
 * _DEV_ROOT, _RUN_ROOT, _STATE_DIR).
 */
struct uv_sysfs {
	char root[PATH_MAX];
	char drv[PATH_MAX];	/* ROOT/devices/system/cpu/intel_undervolt */
	char params[PATH_MAX];	/* ROOT/module/intel_undervolt/parameters */
	char proc[PATH_MAX];	/* "/proc" */
	char dev[PATH_MAX];	/* "/dev": kmsg, cpu/0/msr */
	char run[PATH_MAX];	/* "/run": undervoltctl/, systemd/system */
	char state[PATH_MAX];	/* "/var/lib/undervoltctl" */
	char sysfs_arg[PATH_MAX];	/* --sysfs-root as given, "" without */
};

/* The command line, parsed once by main(). */
struct uv_opts {
	bool help;		/* -h, --help: the verb's usage */
	bool json;
	bool dry_run;
	bool boot;		/* apply --boot: as undervoltctl.service runs it */
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
/* The same, and to syslog (LOG_* PRIORITY), for what runs unattended. */
void uv_log(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* sysfs.c */
int uv_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sysfs_init(struct uv_sysfs *s, const char *root);
int sysfs_require_driver(const struct uv_sysfs *s);
int sysfs_read_long(const char *path, long *v);
int sysfs_read_word(const char *path, char *buf, size_t size);
int sysfs_read_bool(const char *path, bool *v);
int sysfs_write_long(const char *path, long v);
int sysfs_plane_path(const struct uv_sysfs *s, unsigned int pkg,
		     enum plane plane, const char *suffix, char *buf,
		     size_t size);
int sysfs_initial_path(const struct uv_sysfs *s, unsigned int pkg,
		       enum plane plane, char *buf, size_t size);
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

/*
 * diag.c: what is known about refusals without writing. lockdown: 1
 * locked down, 0 not, -1 unknown; the MSR hints: 1, 0, or -1 unreadable.
 */
struct uv_diag {
	int lockdown;
	char lockdown_mode[24];	/* "none", "integrity", ... or "" */
	bool kdump;		/* a kdump kernel: the driver is read-only */
	bool sgx_flag;		/* the kernel's sgx CPU flag */
	int msr_oc_lock;	/* MSR 0x194 bit 20 */
	int msr_sgx;		/* MSR 0x3A bit 18 */
	int msr_uvp;		/* MSR 0x195 bit 1, where 0x10A bit 23 says so */
	int klog_err;		/* 0, or -errno of opening the kernel log */
	struct klog_driver klog;
};
void diag_read(const struct uv_sysfs *s, struct uv_diag *d, bool hints);
const char *diag_block(const struct uv_diag *d, unsigned int pkg, bool logged);
const char *diag_ignored(const struct uv_diag *d, unsigned int pkg,
			 char *buf, size_t size);
const char *diag_not_restored(const struct uv_diag *d, unsigned int pkg,
			      char *buf, size_t size);
const char *diag_advice(const char *reason);
int diag_code(const char *reason);
/* The message and exit code of a failed write; -1 for errnos it leaves. */
int diag_explain(const struct uv_sysfs *s, unsigned int pkg, const char *path,
		 int err, char *buf, size_t size);
bool uv_has_rawio(void);

/*
 * cpuinfo.c: the value of KEY in the first processor block of INFO (the
 * text of /proc/cpuinfo) copied into BUF; NULL when it is not there.
 */
const char *uv_cpuinfo_value(const char *info, const char *key, char *buf,
			     size_t size);
/*
 * From INFO (NULL allowed): 1 when core and cache are one plane (Skylake to
 * Raptor Lake), 0 when they are two (Haswell, Broadwell), -1 when unknown.
 */
int uv_cpu_couples_core_and_cache(const char *info);
/* The text of the machine's /proc/cpuinfo, to free; NULL if unreadable. */
char *uv_read_cpuinfo(const struct uv_sysfs *s);
/* uv_cpu_couples_core_and_cache() of this machine. */
int uv_this_cpu_couples(const struct uv_sysfs *s);

/* json.c: a JSON string (NULL: null); a number, null when ERR. */
void json_string(const char *str);
void json_long(int err, long v);

/*
 * statedir.c: directories and files root trusts (see there). Functions
 * return 0, a descriptor or -errno; a refusal to trust comes with its
 * message, a missing file (-ENOENT) without.
 */
int state_dir_check(const char *dir, bool create);
int state_path(const char *dir, const char *name, char *buf, size_t size);
int state_open(const char *dir, const char *name, int flags, mode_t mode);
int state_slurp(const char *dir, const char *name, size_t max, char **buf,
		size_t *len);
int state_write(const char *dir, const char *name, const char *data,
		size_t len);
int state_unlink(const char *dir, const char *name);
/*
 * Writers of offsets: 0 with *FD held (-1: nothing to hold) until
 * search_release(), or an exit code when a tune search runs (said).
 */
int search_hold(const struct uv_sysfs *s, int *fd);
void search_release(int fd);
/* tune: the lock of the search in DIR, held exclusively; -1 (said). */
int search_lock(const char *dir);
/* PATH absolute, root's, in a directory root alone writes; WHAT names it. */
int uv_trusted_file(const char *path, const char *what);

/*
 * boot.c: what runs at boot. The recovery switch undervolt=off on the
 * kernel command line; the boot assessment of offsets applied at boot.
 */
bool boot_recovery_switch(const struct uv_sysfs *s);
/* apply --boot: 0, or why it must apply nothing (said) and its exit code. */
int boot_check(const struct uv_sysfs *s, const char *file);
/* apply by hand: a note when the recovery switch is on; 0. */
int boot_note_switch(const struct uv_sysfs *s);
/* Before apply --boot writes: the mark that the next boot looks for. */
int boot_mark(const struct uv_sysfs *s, const char *config);
/* After a successful apply by hand: the boot apply may run again. */
void boot_forget_failure(const struct uv_sysfs *s);
enum boot_assessment { BOOT_NONE, BOOT_PENDING, BOOT_FAILED };
struct boot_state {
	enum boot_assessment state;
	double left;		/* BOOT_PENDING: seconds to go */
	char when[32];		/* BOOT_FAILED: when that boot applied */
	char config[PATH_MAX];
};
void boot_read(const struct uv_sysfs *s, struct boot_state *b);

/* power.c: the power source the machine runs on now. */
enum power_source power_source(const struct uv_sysfs *s);

/* The verbs; each returns an exit code. */
int cmd_status(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_set(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_reset(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_apply(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_confirm(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_boot_confirm(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_mce_guard(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_import(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_monitor(const struct uv_sysfs *s, const struct uv_opts *o);
int cmd_report(const struct uv_sysfs *s, const char *version);
/* Verbs that parse their own options: ARGV[0] is the verb. */
int cmd_tune(const struct uv_sysfs *s, int argc, char **argv);
int cmd_stress(int argc, char **argv);
int cmd_trial_revert(const struct uv_sysfs *s, int argc, char **argv);

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
 * (1-4; 0: the one the file has in use). COUPLED is what
 * uv_cpu_couples_core_and_cache() says of this machine: where core and
 * cache are one plane, a pair that differs fails (res->failed) and OUT has
 * both at the higher value. OUT gets a configuration only when
 * res->planes > 0. Returns 0, or -1 without memory.
 */
int import_convert(const char *buf, size_t len, const char *file,
		   unsigned int profile, int coupled, FILE *out, FILE *diag,
		   struct import_result *res);

/*
 * outfile.c: replace PATH, a regular file or nothing (a symbolic link is
 * written through), with LEN bytes at once, keeping its mode, owner, ACL
 * and labels, or leave it; 0 or -errno. Refused where its directory is
 * not root's or the caller's, or is writable by others without the sticky
 * bit. WHY (SIZE bytes) gets a sentence for the user on failure.
 */
int uv_replace_file(const char *path, const char *data, size_t len,
		    char *why, size_t size);
/* The same; says itself (uv_warn) what strerror() of the result would not. */
int uv_write_atomic(const char *path, const char *data, size_t len);
/*
 * DST, a regular file or nothing, replaced the same way by a copy of SRC,
 * a regular file (not a link), with SRC's mode, owner, ACL and labels.
 */
int uv_copy_file(const char *src, const char *dst);

/*
 * Read a whole small file ("-": standard input) into a NUL-terminated buffer
 * the caller frees; -EFBIG beyond MAX bytes.
 */
int uv_slurp(const char *path, size_t max, char **buf, size_t *len);
int uv_slurp_fd(int fd, size_t max, char **buf, size_t *len);
/* PATH as messages name it: "-" is "(standard input)". */
const char *uv_input_name(const char *path);

#endif
