/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog.h: the kernel log as /dev/kmsg hands it out, one record per read:
 * "PRIORITY,SEQUENCE,MICROSECONDS,FLAGS;TEXT\n", then " KEY=VALUE" lines.
 *
 * The driver keeps no state about why writes fail (v3 of its ABI): it logs
 * one line per refusal, per write the firmware ignored and per change.
 * klog_driver_feed() turns those lines into what status and the verbs that
 * write need; it is pure, and tests/klog_test.c feeds it literal records.
 * This unit depends on the C library only.
 */
#ifndef UNDERVOLTCTL_KLOG_H
#define UNDERVOLTCTL_KLOG_H

#include <stdbool.h>
#include <stddef.h>

struct klog_record {
	unsigned long long seq;
	int level;			/* 0 (emerg) to 7 (debug) */
	const char *text;		/* LEN bytes, no newline, not NUL-ended */
	size_t len;
};

/* One line of /dev/kmsg into R (pointing into LINE); 0, or -1. */
int klog_parse(const char *line, size_t len, struct klog_record *r);

/* True for the kernel's lines about a machine check. */
bool klog_is_machine_check(const char *text, size_t len);

#define KLOG_MAX_PACKAGES 100

enum klog_event {
	KLOG_NONE,
	KLOG_CHANGED,		/* "PLANE offset A mV -> B mV by COMM[PID]" */
	KLOG_REFUSED,		/* "PLANE offset write refused (REASON): ..." */
	KLOG_IGNORED,		/* "firmware ignored the PLANE offset write" */
	KLOG_FAILED,		/* "completion code 0xXX" (EIO) */
	KLOG_NOT_RESTORED,	/* "WHY: PLANE offset not restored to A mV: ERR" */
};

/* The last of the driver's lines about one package since it bound. */
struct klog_package {
	enum klog_event event;
	char plane[12];
	/* KLOG_REFUSED: lockdown, sgx, kdump, oc_lock, uvp, unsupported;
	 * KLOG_NOT_RESTORED: the restore (resume, online, unload, ...) */
	char reason[16];
	char err[16];		/* KLOG_NOT_RESTORED: the errno, as logged */
	/* CHANGED: A -> B mV; IGNORED: wrote A, reads B; NOT_RESTORED: to A */
	long a, b;
	unsigned long long seq;
};

struct klog_driver {
	bool ready;		/* "voltage offset control ready" was logged */
	bool coupled;		/* ... "core and cache coupled" */
	unsigned long long ready_seq;
	/* The last "not binding" line, when it came after the last ready. */
	char unbound[200];
	struct klog_package pkg[KLOG_MAX_PACKAGES];
};

void klog_driver_init(struct klog_driver *d);
/*
 * One record's text. A ready line forgets what came before: the lines of
 * a driver that was unloaded say nothing about the one bound now.
 */
void klog_driver_feed(struct klog_driver *d, const char *text, size_t len,
		      unsigned long long seq);

/*
 * A non-blocking reader of /dev/kmsg (or of a file of such lines, in tests):
 * opened, it starts at the oldest record the kernel still has.
 */
struct klog_reader {
	int fd;
	size_t len;
	char buf[16384];	/* /dev/kmsg refuses a read too small for a record */
};

int klog_open(struct klog_reader *k, const char *path);	/* 0 or -errno */
void klog_close(struct klog_reader *k);
/* From now on only new records. */
void klog_skip_to_end(struct klog_reader *k);
/* The next record into R: 1; 0 when there is none yet; -errno. */
int klog_next(struct klog_reader *k, struct klog_record *r);

/* Every record of PATH from the start, fed to D; 0 or -errno of the open. */
int klog_driver_scan(const char *path, struct klog_driver *d);

#endif
