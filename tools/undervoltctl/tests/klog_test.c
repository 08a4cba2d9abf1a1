// SPDX-License-Identifier: GPL-2.0
/*
 * tests/klog_test.c: the kernel log parser (klog.c) on literal records:
 * /dev/kmsg's record format, the driver's v3 lines (the ready line, a
 * refusal per reason, a write the firmware ignored, a change, an unknown
 * completion code, a driver that does not bind), which of them is current,
 * and the reader on a file cut in the middle of a line. One TAP line per
 * check; exit 1 if one failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../klog.h"

static int failed;

static void check(int ok, const char *what)
{
	printf("%s - klog: %s\n", ok ? "ok" : "not ok", what);
	if (!ok)
		failed = 1;
}

static void feed(struct klog_driver *d, const char *line)
{
	struct klog_record r;

	if (klog_parse(line, strlen(line), &r) == 0)
		klog_driver_feed(d, r.text, r.len, r.seq);
}

static void records(void)
{
	struct klog_record r;
	const char *l = "6,1234,5678901,-,caller=T1;intel_undervolt: x";

	check(klog_parse(l, strlen(l), &r) == 0 && r.seq == 1234 &&
	      r.level == 6 && r.len == 18 &&
	      memcmp(r.text, "intel_undervolt: x", 18) == 0,
	      "a record: level, sequence, text after ';'");
	l = "4,7,100;old kernel";
	check(klog_parse(l, strlen(l), &r) == 0 && r.seq == 7 && r.level == 4,
	      "a record of an older kernel without flags");
	l = "no semicolon here";
	check(klog_parse(l, strlen(l), &r) != 0, "a line that is no record");
	l = "3,x,1,-;text";
	check(klog_parse(l, strlen(l), &r) != 0, "a record with a bad sequence");
	l = "mce: [Hardware Error]: Machine check events logged";
	check(klog_is_machine_check(l, strlen(l)), "a machine check line");
	l = "intel_undervolt: package 00: core offset 0 mV -> -50 mV by x[1]";
	check(!klog_is_machine_check(l, strlen(l)), "a change is no machine check");
}

static void driver_lines(void)
{
	struct klog_driver d;

	klog_driver_init(&d);
	feed(&d, "6,1,10,-;intel_undervolt: voltage offset control ready, core and cache coupled");
	check(d.ready && d.coupled && d.ready_seq == 1, "the ready line, coupled");
	feed(&d, "6,2,11,-;intel_undervolt: package 00: core offset write refused (oc_lock): the firmware locked overclocking (completion code 1); unlock it in the firmware setup to change voltage offsets");
	check(d.pkg[0].event == KLOG_REFUSED && !strcmp(d.pkg[0].reason, "oc_lock") &&
	      !strcmp(d.pkg[0].plane, "core"), "a refusal (oc_lock) of package 0");
	feed(&d, "6,3,12,-;intel_undervolt: package 01: cache offset write refused (uvp): Undervolt Protection is on: no offset below the firmware setup's applies; only some firmware setups can turn it off");
	check(d.pkg[1].event == KLOG_REFUSED && !strcmp(d.pkg[1].reason, "uvp") &&
	      !strcmp(d.pkg[1].plane, "cache"), "a refusal (uvp) of package 1");
	feed(&d, "6,4,13,-;intel_undervolt: package 00: core offset 0 mV -> -50 mV by undervoltctl[99]");
	check(d.pkg[0].event == KLOG_CHANGED && d.pkg[0].a == 0 && d.pkg[0].b == -50,
	      "a later change supersedes the refusal");
	check(d.pkg[1].event == KLOG_REFUSED, "... of its own package only");
	feed(&d, "4,5,14,-;intel_undervolt: package 00: firmware ignored the gpu offset write (-30 mV, reads 0 mV): undervolting is likely disabled");
	check(d.pkg[0].event == KLOG_IGNORED && d.pkg[0].a == -30 && d.pkg[0].b == 0 &&
	      !strcmp(d.pkg[0].plane, "gpu"), "a write the firmware ignored");
	feed(&d, "6,6,15,-;intel_undervolt: package 00: gpu offset write not applied (uvp): Undervolt Protection is on: no offset below the firmware setup's applies; only some firmware setups can turn it off");
	check(d.pkg[0].event == KLOG_REFUSED && !strcmp(d.pkg[0].reason, "uvp") &&
	      !strcmp(d.pkg[0].plane, "gpu"),
	      "a write sent and not applied (uvp) supersedes the ignored one");
	feed(&d, "4,5,14,-;intel_undervolt: package 00: firmware answered the uncore offset write (-300 mV) with data word 0xf0043312 (-250 mV), putting 0x00043312 back");
	check(d.pkg[0].event == KLOG_IGNORED && d.pkg[0].a == -300 && d.pkg[0].b == -250 &&
	      !strcmp(d.pkg[0].plane, "uncore"), "a write the firmware answered with another word");
	feed(&d, "4,6,15,-;intel_undervolt: package 00: command 0x11 on plane 3: completion code 0x06");
	check(d.pkg[0].event == KLOG_FAILED && d.pkg[0].a == 6 &&
	      !strcmp(d.pkg[0].plane, "3"), "an unknown completion code");
	feed(&d, "4,7,16,-;intel_undervolt: package 00: resume: core offset not restored to -50 mV: -EACCES");
	check(d.pkg[0].event == KLOG_NOT_RESTORED && d.pkg[0].a == -50 &&
	      !strcmp(d.pkg[0].reason, "resume") && !strcmp(d.pkg[0].err, "-EACCES") &&
	      !strcmp(d.pkg[0].plane, "core"), "a restore the driver could not write");
	feed(&d, "6,7,16,-;intel_undervolt: package 01: gpu offset write refused (unsupported): the firmware does not take this command on this plane");
	check(d.pkg[1].event == KLOG_REFUSED && !strcmp(d.pkg[1].reason, "unsupported"),
	      "a plane the firmware does not take offsets on");
	feed(&d, "6,7,16,-;intel_undervolt: package 00: core offset write refused (lockdown): boot without kernel lockdown");
	feed(&d, "6,8,17,-;some_other_driver: package 00: core offset write refused (sgx): x");
	check(!strcmp(d.pkg[0].reason, "lockdown"), "another driver's line changes nothing");
	feed(&d, "6,9,18,-;intel_undervolt: voltage offset control ready, core and cache independent");
	check(d.ready && !d.coupled && d.ready_seq == 9 && d.pkg[0].event == KLOG_NONE &&
	      d.pkg[1].event == KLOG_NONE, "a new ready line forgets the driver before it");
	feed(&d, "6,10,19,-;intel_undervolt: package 150: core offset write refused (sgx): x");
	check(d.pkg[0].event == KLOG_NONE, "a package number beyond 99 is ignored");
	feed(&d, "6,11,20,-;intel_undervolt: CPU model not known to have the voltage offset mailbox, not binding");
	check(!d.ready && strstr(d.unbound, "not binding") != NULL,
	      "a driver that does not bind says why");
	feed(&d, "6,12,21,-;intel_undervolt: package 00: core offset write refused (a_very_long_reason_text): x");
	check(d.pkg[0].event == KLOG_NONE, "a reason too long for its field is left out");
}

/* A file cut in the middle of a record, read as the reader reads kmsg. */
static void reader(void)
{
	char path[] = "/tmp/klog_test.XXXXXX";
	struct klog_reader *k = malloc(sizeof(*k));
	struct klog_record r;
	int fd = mkstemp(path), n = 0, ok = 1;
	FILE *f;

	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || !k) {
		check(0, "a temporary file");
		free(k);
		return;
	}
	fprintf(f, "6,1,1,-;first\n SUBSYSTEM=cpu\n DEVICE=+cpu:0\n6,2,2,-;sec");
	fflush(f);
	check(klog_open(k, path) == 0, "the reader opens a file");
	while (klog_next(k, &r) > 0) {
		ok &= n == 0 && r.len == 5 && !memcmp(r.text, "first", 5);
		n++;
	}
	check(ok && n == 1, "the reader skips key=value lines and waits for a cut line");
	fprintf(f, "ond\n");
	fflush(f);
	ok = klog_next(k, &r) == 1 && r.seq == 2 && r.len == 6 &&
	     !memcmp(r.text, "second", 6);
	check(ok, "... and reads it once it is whole");
	fprintf(f, "6,3,3,-;third\n");
	fflush(f);
	klog_skip_to_end(k);
	check(klog_next(k, &r) == 0, "skip_to_end leaves only what comes later");
	klog_close(k);
	fclose(f);
	unlink(path);
	free(k);
}

int main(void)
{
	records();
	driver_lines();
	reader();
	return failed;
}
