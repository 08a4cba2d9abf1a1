// SPDX-License-Identifier: GPL-2.0
/*
 * tune_watch.c: what a run of tune watches besides the load's own
 * verification: a machine check in the kernel log (/dev/kmsg, from the
 * run's start), a new kernel taint, and SIGINT or SIGTERM, which stop the
 * run without failing the value.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tune.h"
#include "undervoltctl.h"

/* Seconds a run waits after one that saw a machine check (see below). */
#define TUNE_MCE_SETTLE_S	2

static unsigned long read_taint(const struct uv_sysfs *s)
{
	char path[PATH_MAX];
	long v;

	if (uv_path(path, sizeof(path), "%s/sys/kernel/tainted", s->proc) ||
	    sysfs_read_long(path, &v))
		return 0;
	return (unsigned long)v;
}

int tune_watch_init(struct tune_watch *w, const struct uv_sysfs *s)
{
	char path[PATH_MAX];
	int r;

	memset(w, 0, sizeof(*w));
	w->s = s;
	sigemptyset(&w->stop_signals);
	sigaddset(&w->stop_signals, SIGINT);
	sigaddset(&w->stop_signals, SIGTERM);
	/* Blocked here and in the load's threads; tune_watch_check() takes them. */
	pthread_sigmask(SIG_BLOCK, &w->stop_signals, NULL);
	w->kmsg = malloc(sizeof(*w->kmsg));
	r = uv_path(path, sizeof(path), "%s/kmsg", s->dev);
	if (w->kmsg && !r)
		r = klog_open(w->kmsg, path);
	if (!w->kmsg || r) {
		uv_warn("tune: %s/kmsg: %s; machine checks are not seen",
			s->dev, strerror(w->kmsg ? -r : ENOMEM));
		free(w->kmsg);
		w->kmsg = NULL;
	}
	return 0;
}

void tune_watch_free(struct tune_watch *w)
{
	if (w->kmsg) {
		klog_close(w->kmsg);
		free(w->kmsg);
	}
	w->kmsg = NULL;
	pthread_sigmask(SIG_UNBLOCK, &w->stop_signals, NULL);
}

void tune_watch_begin(struct tune_watch *w)
{
	/*
	 * Corrected errors the last run caused can sit in the banks until
	 * the kernel's next poll (no CMCI in a VM: up to check_interval,
	 * 1 s where the tests set it): let them be logged before this run's
	 * window opens, so that they are not counted against this value.
	 */
	if (w->mce)
		sleep(TUNE_MCE_SETTLE_S);
	w->mce = w->taint = false;
	w->what[0] = '\0';
	w->taint0 = read_taint(w->s);
	if (w->kmsg)
		klog_skip_to_end(w->kmsg);
}

/* Reads what the kernel logged since tune_watch_begin(); true: stop. */
bool tune_watch_check(void *ctx)
{
	struct tune_watch *w = ctx;
	struct timespec zero = { 0, 0 };
	struct klog_record r;
	unsigned long taint;

	while (w->kmsg && !w->mce && klog_next(w->kmsg, &r) > 0) {
		if (!klog_is_machine_check(r.text, r.len))
			continue;
		w->mce = true;
		snprintf(w->what, sizeof(w->what), "the kernel logged '%.*s'",
			 (int)(r.len < 150 ? r.len : 150), r.text);
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
