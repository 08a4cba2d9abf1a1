// SPDX-License-Identifier: GPL-2.0
/*
 * klog.c: records of /dev/kmsg, and what the intel_undervolt driver's own
 * lines in them say. See klog.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "klog.h"

#define DRIVER_PREFIX "intel_undervolt: "

int klog_parse(const char *line, size_t len, struct klog_record *r)
{
	const char *semi = memchr(line, ';', len);
	unsigned long long prio, seq;
	char head[64];
	int n = 0;

	if (!semi || (size_t)(semi - line) >= sizeof(head))
		return -1;
	memcpy(head, line, (size_t)(semi - line));
	head[semi - line] = '\0';
	/* "PRIO,SEQ,USEC,FLAGS" (older kernels end after USEC). */
	if (sscanf(head, "%llu,%llu,%*u%n", &prio, &seq, &n) != 2 || !n)
		return -1;
	r->level = (int)(prio & 7);
	r->seq = seq;
	r->text = semi + 1;
	r->len = len - (size_t)(semi + 1 - line);
	return 0;
}

static bool contains(const char *text, size_t len, const char *what)
{
	size_t n = strlen(what), i;

	for (i = 0; i + n <= len; i++)
		if (memcmp(text + i, what, n) == 0)
			return true;
	return false;
}

/* As tune has always read them: the MCE core's lines, and the EDAC ones. */
bool klog_is_machine_check(const char *text, size_t len)
{
	return contains(text, len, "Hardware Error") ||
	       contains(text, len, "Machine check");
}

void klog_driver_init(struct klog_driver *d)
{
	memset(d, 0, sizeof(*d));
}

/* WORD, copied into BUF (SIZE bytes), as long as it fits; 0 or -1. */
static int copy_word(char *buf, size_t size, const char *word)
{
	size_t n = strlen(word);

	if (n == 0 || n >= size)
		return -1;
	memcpy(buf, word, n + 1);
	return 0;
}

/* "package NN: REST" lines, the text after the prefix NUL-terminated. */
static void feed_package(struct klog_driver *d, const char *t,
			 unsigned long long seq)
{
	struct klog_package p = { .seq = seq };
	char plane[16], reason[16], err[16];
	unsigned int id;
	long a, b;
	int n = 0;

	if (sscanf(t, "package %u: %n", &id, &n) != 1 || !n ||
	    id >= KLOG_MAX_PACKAGES)
		return;
	t += n;
	n = 0;
	if ((sscanf(t, "%15s offset write refused (%15[^)]):%n", plane, reason,
		    &n) == 2 && n) ||
	    /* Sent, and dropped by the firmware for that reason. */
	    (sscanf(t, "%15s offset write not applied (%15[^)]):%n", plane,
		    reason, &n) == 2 && n)) {
		p.event = KLOG_REFUSED;
		if (copy_word(p.reason, sizeof(p.reason), reason))
			return;
	} else if (sscanf(t, "firmware ignored the %15s offset write (%ld mV, "
			  "reads %ld mV)%n", plane, &a, &b, &n) == 3 && n) {
		p.event = KLOG_IGNORED;
		p.a = a;
		p.b = b;
	} else if (sscanf(t, "firmware answered the %15s offset write (%ld mV) "
			  "with data word 0x%*x (%ld mV)%n", plane, &a, &b,
			  &n) == 3 && n) {
		/* Another word than the one written: the old one went back. */
		p.event = KLOG_IGNORED;
		p.a = a;
		p.b = b;
	} else if (sscanf(t, "%15s offset %ld mV -> %ld mV by %n", plane, &a,
			  &b, &n) == 3 && n) {
		p.event = KLOG_CHANGED;
		p.a = a;
		p.b = b;
	} else if (sscanf(t, "%15[^:]: %15s offset not restored to %ld mV: "
			  "%15s%n", reason, plane, &a, err, &n) == 4 && n) {
		/* A restore the driver could not write: the undervolt is gone. */
		p.event = KLOG_NOT_RESTORED;
		p.a = a;
		if (copy_word(p.reason, sizeof(p.reason), reason) ||
		    copy_word(p.err, sizeof(p.err), err))
			return;
	} else if (sscanf(t, "command 0x%*x on plane %15s completion code "
			  "0x%lx%n", plane, &a, &n) == 2 && n) {
		/* "plane 3:" comes with its colon; the number is enough. */
		plane[strcspn(plane, ":")] = '\0';
		p.event = KLOG_FAILED;
		p.a = a;
	} else {
		return;
	}
	if (copy_word(p.plane, sizeof(p.plane), plane))
		return;
	d->pkg[id] = p;
}

void klog_driver_feed(struct klog_driver *d, const char *text, size_t len,
		      unsigned long long seq)
{
	size_t plen = strlen(DRIVER_PREFIX);
	char t[1024];
	const char *rest;

	if (len < plen || memcmp(text, DRIVER_PREFIX, plen) != 0)
		return;
	text += plen;
	len -= plen;
	if (len >= sizeof(t))
		len = sizeof(t) - 1;
	memcpy(t, text, len);
	t[len] = '\0';
	rest = t;
	if (strncmp(rest, "voltage offset control ready, core and cache ",
		    45) == 0) {
		klog_driver_init(d);
		d->ready = true;
		d->ready_seq = seq;
		d->coupled = strncmp(rest + 45, "coupled", 7) == 0;
		return;
	}
	if (strstr(rest, "not binding")) {
		snprintf(d->unbound, sizeof(d->unbound), "%.199s", rest);
		d->ready = false;
		return;
	}
	feed_package(d, rest, seq);
}

int klog_open(struct klog_reader *k, const char *path)
{
	k->len = 0;
	k->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return k->fd < 0 ? -errno : 0;
}

void klog_close(struct klog_reader *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

void klog_skip_to_end(struct klog_reader *k)
{
	if (k->fd >= 0)
		lseek(k->fd, 0, SEEK_END);
	k->len = 0;
}

/*
 * /dev/kmsg gives one whole record per read; a file in a test gives any
 * number of lines, the last perhaps cut: lines are taken from the buffer,
 * and a cut one waits for the next read. Lines that start with a blank
 * carry a record's key=value pairs and are skipped.
 */
int klog_next(struct klog_reader *k, struct klog_record *r)
{
	char *nl;
	size_t used;
	ssize_t n;

	for (;;) {
		while ((nl = memchr(k->buf, '\n', k->len)) != NULL) {
			used = (size_t)(nl - k->buf) + 1;
			if (k->buf[0] != ' ' &&
			    klog_parse(k->buf, used - 1, r) == 0) {
				/* R points into the buffer: move it later. */
				memmove(k->buf + sizeof(k->buf) / 2, k->buf,
					used - 1);
				r->text = k->buf + sizeof(k->buf) / 2 +
					  (r->text - k->buf);
				memmove(k->buf, k->buf + used, k->len - used);
				k->len -= used;
				return 1;
			}
			memmove(k->buf, k->buf + used, k->len - used);
			k->len -= used;
		}
		if (k->fd < 0)
			return 0;
		if (k->len >= sizeof(k->buf) / 2 - 1)
			k->len = 0;	/* a line longer than any record */
		n = read(k->fd, k->buf + k->len, sizeof(k->buf) / 2 - 1 - k->len);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: read on */
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		k->len += (size_t)n;
	}
}

int klog_driver_scan(const char *path, struct klog_driver *d)
{
	struct klog_reader *k = malloc(sizeof(*k));
	struct klog_record r;
	int e;

	klog_driver_init(d);
	if (!k)
		return -ENOMEM;
	e = klog_open(k, path);
	if (e) {
		free(k);
		return e;
	}
	while (klog_next(k, &r) > 0)
		klog_driver_feed(d, r.text, r.len, r.seq);
	klog_close(k);
	free(k);
	return 0;
}
