// SPDX-License-Identifier: GPL-2.0
/*
 * uvfuzz: random and adversarial writes to every offset file of
 * intel_undervolt (series v3), each checked against the documented rules
 * and the firmware model, with the driver loaded again and again with
 * random bounds.
 *
 *   uvfuzz [-n WRITES] [-r RELOAD] [-s SEED] [-c] [-v]
 *
 * -c: core and cache are coupled (Skylake and later). -r: load the driver
 * again every RELOAD writes (default 500). -v: print every write.
 *
 * The bounds are module options, read-only at run time
 * (Documentation/ABI: max_undervolt_mv 0..500, allow_overvolt a bool, both
 * 0444): so the fuzzer loads the driver itself, with "rmmod" and
 * "modprobe intel_undervolt max_undervolt_mv=N allow_overvolt=B", at the
 * start and every RELOAD writes, sometimes first with an option the
 * driver must refuse (the load fails and the driver is not loaded). After
 * each load min_offset_mv, max_offset_mv and the parameters must show
 * the bounds, initial_<plane>_offset_mv the model's offsets, and every
 * read-only file (the initial offsets, the bounds, the parameters) must
 * refuse to be opened for writing (EACCES). After each unload the model
 * must hold the words it held when the driver was loaded.
 *
 * Files written: package_00/<plane>_offset_mv of every plane present.
 * Each write is one write(2) of random bytes, adversarial text or a valid
 * value. The expected outcome, in the driver's order of checks:
 *
 * - sysfs hands a store at most one page, ending at the first NUL byte;
 *   an empty write returns 0 and does nothing;
 * - anything but a decimal integer (kstrtoint: optional sign, one
 *   optional trailing newline, nothing else, no NUL inside) is EINVAL,
 *   ERANGE when it overflows an int;
 * - outside min_offset_mv..max_offset_mv: ERANGE;
 * - SGX enabled (the model's "sgx on", toggled at random): EPERM;
 * - otherwise the driver reads the plane, writes it and reads it back,
 *   for each plane the write sets: with core and cache coupled, core
 *   first, whichever of the two was written. The model's OC lock ("lock
 *   on", toggled at random) answers the write with completion code 1:
 *   EACCES, after the read and the refused write of the first plane;
 *   nothing is remembered, so the next write is tried again.
 *
 * Offsets must reach the firmware exactly and nothing else may. The
 * firmware is the OC mailbox model of our QEMU (qemu/MODEL.md), observed
 * as fwctl does, with reads of its control MSRs through /dev/cpu/0/msr
 * (CPU 0 is in package 0 and cannot go offline): before each write its
 * command log (every value written to MSR 0x150) is cleared; after it, a
 * write the driver refused must have left it empty, one the firmware
 * refused must have logged exactly the read and the refused write, and
 * either kind every data word of the model unchanged and the offset
 * reading as before; an accepted write must have logged exactly the
 * expected command words, and the model's words and sysfs must read the
 * new value.
 *
 * Prints the seed first; "uvfuzz -s SEED -n WRITES -r RELOAD" replays a
 * run. Output is TAP-style: one "ok -" line per offset file with its
 * counts, one for the loads and one for the read-only files, a last one
 * for the whole run, and a "not ok -" line per mismatch (at most 20).
 * Exit status 1 on any mismatch.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UV_DIR		"/sys/devices/system/cpu/intel_undervolt"
#define PKG_DIR		UV_DIR "/package_00"
#define PARAM_DIR	"/sys/module/intel_undervolt/parameters"
#define CTL_DEV		"/dev/cpu/0/msr"
#define CTL_BASE	0x4f430000u	/* the model's control MSRs */
#define CTL_SIGNATURE	0x314c45444f4d434fULL	/* "OCMODEL1" */
#define CTL_LOG_LEN	0x004		/* words in the command log */
#define CTL_WORD	0x010		/* + domain: its data word */
#define CTL_LOG		0x1000		/* + n: log word n, oldest first */
#define CTL_CLEAR_LOG	0x2000
#define CTL_LOCK	0x7000		/* + 1: OC lock on, + 0: off */
#define CTL_SGX		0x8000		/* + 1: SGX enabled, + 0: disabled */
#define PAGE		4096
#define NR_PLANES	5
#define MAX_REPORTS	20
/* The driver's hard bound, either way (Intel's reference firmware's). */
#define POLICY_LIMIT_MV	500

static const char *const plane_names[NR_PLANES] = {
	"core", "gpu", "cache", "uncore", "analogio",
};

/* An offset file, or one of the two lines that are not one. */
struct target {
	char path[128];
	int plane;
	int fd;
	long writes, accepted, refused, fw_refused;
	long mismatches;	/* writes whose outcome was not as documented */
};

static struct target targets[NR_PLANES];
static int nr_targets;
static struct target loads = { .path = "loads" };
static struct target read_only = { .path = "read-only files" };

/* The model of the driver and firmware state. */
static uint32_t words[NR_PLANES];
static bool present[NR_PLANES];
static int max_undervolt;
static bool allow_overvolt, coupled, verbose, sgx_on, lock_on;

static int ctl_fd;
static long failures;
static uint64_t rng;

static uint64_t next(void)
{
	/* xorshift64*: reproducible from the seed on every libc */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned int below(unsigned int n)
{
	return (unsigned int)(next() % n);
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void report(const char *fmt, ...)
{
	va_list ap;

	failures++;
	if (failures > MAX_REPORTS)
		return;
	printf("not ok - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* The bytes of a write as C-escaped text, shortened. */
static const char *show(const char *buf, size_t len)
{
	static char out[200];
	size_t i, n = 0;

	for (i = 0; i < len && n < sizeof(out) - 24; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\n')
			n += (size_t)sprintf(out + n, "\\n");
		else if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
			out[n++] = (char)c;
		else
			n += (size_t)sprintf(out + n, "\\x%02x", c);
	}
	if (i < len)
		n += (size_t)sprintf(out + n, "...(%zu bytes)", len);
	out[n] = '\0';
	return out;
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0)
		die(path);
	return fd;
}

/* A sysfs file, opened afresh: its text, or "" when the read fails. */
static const char *read_file(const char *path)
{
	static char buf[64];
	int fd = open_or_die(path, O_RDONLY);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static long read_long(const char *path)
{
	return strtol(read_file(path), NULL, 0);
}

/* A read of the model's control MSR CTL_BASE + @n on CPU 0. */
static uint64_t ctl_read(unsigned int n)
{
	uint64_t val;
	ssize_t r = pread(ctl_fd, &val, sizeof(val), CTL_BASE + n);

	if (r != (ssize_t)sizeof(val)) {
		fprintf(stderr, "uvfuzz: reading MSR 0x%x of the firmware model: %s\n",
			CTL_BASE + n, r < 0 ? strerror(errno) : "short read");
		exit(2);
	}
	return val;
}

static uint32_t read_word(int plane)
{
	return (uint32_t)ctl_read(CTL_WORD + (unsigned int)plane);
}

/* Rules of lib/kstrtox.c, base 10. */
static int parse_ull(const char *s, unsigned long long *res)
{
	unsigned long long v = 0;
	bool overflow = false;
	size_t n = 0;

	if (*s == '+')
		s++;
	while (s[n] >= '0' && s[n] <= '9') {
		unsigned int d = (unsigned int)(s[n] - '0');

		if (v > (ULLONG_MAX - d) / 10)
			overflow = true;
		v = v * 10 + d;
		n++;
	}
	if (overflow)
		return -ERANGE;
	if (!n)
		return -EINVAL;
	s += n;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

static int parse_int(const char *s, int *res)
{
	unsigned long long u;
	long long v;
	int ret;

	if (s[0] == '-') {
		/* "-+1" is not a number: no second sign */
		if (s[1] == '+')
			return -EINVAL;
		ret = parse_ull(s + 1, &u);
		if (ret)
			return ret;
		if (u > (unsigned long long)LLONG_MAX + 1)
			return -ERANGE;
		v = u ? (long long)(0 - u) : 0;
	} else {
		ret = parse_ull(s, &u);
		if (ret)
			return ret;
		if (u > LLONG_MAX)
			return -ERANGE;
		v = (long long)u;
	}
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*res = (int)v;
	return 0;
}

static int min_mv(void)
{
	return -max_undervolt;
}

static int max_mv(void)
{
	return allow_overvolt ? POLICY_LIMIT_MV : 0;
}

/* uv_mv_to_units(): DIV_ROUND_CLOSEST(mv * 1024, 1000) */
static int mv_to_units(int mv)
{
	int x = mv * 1024;

	return x >= 0 ? (x + 500) / 1000 : (x - 500) / 1000;
}

static uint32_t with_offset(uint32_t word, int mv)
{
	return (word & 0x1fffffu) | (((uint32_t)mv_to_units(mv) & 0x7ffu) << 21);
}

/* The offset in a data word, in mV, to the nearest (uv_units_to_mv()). */
static int word_mv(uint32_t word)
{
	int units = (int)((word >> 21) & 0x7ff), x;

	if (units >= 1024)
		units -= 2048;
	x = units * 1000;
	return x >= 0 ? (x + 512) / 1024 : (x - 512) / 1024;
}

/* What a write of @s (the text the store sees, @n bytes) must do. */
struct outcome {
	int err;		/* 0 or the errno the write fails with */
	bool fw_refused;	/* refused by the firmware: the OC lock */
	int mv;			/* the new value */
};

static struct outcome expect(const char *s, size_t n)
{
	struct outcome o = { 0 };

	/* The ABI allows nothing after the number but one newline: no NUL. */
	if (strlen(s) != n) {
		o.err = EINVAL;
		return o;
	}
	o.err = -parse_int(s, &o.mv);
	if (!o.err && (o.mv < min_mv() || o.mv > max_mv()))
		o.err = ERANGE;
	if (!o.err && sgx_on)
		o.err = EPERM;
	if (!o.err && lock_on) {
		o.err = EACCES;
		o.fw_refused = true;
	}
	return o;
}

/* Input generation */

static const char *const adversarial[] = {
	"", "\n", "\n\n", " ", "\t", "\r\n", "-", "+", "--1", "++1", "+-1",
	"-+1", "-0", "+0", "0", "00", "-00", "0\n", "-0\n", "1", "-1", "+1",
	"1\n", "-1\n\n", " -1", "-1 ", "-1\t", "-1\r\n", "- 1", "1-",
	"0x10", "-0x10", "1e3", "-10mV", "-10.5", "10,5", "0b1", "010", "-010",
	"250", "-250", "-251", "251", "999", "1000", "1001", "-999", "-1000",
	"-1001", "2147483647", "2147483648", "-2147483648", "-2147483649",
	"4294967295", "4294967296", "-4294967296", "9223372036854775807",
	"9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"18446744073709551615", "18446744073709551616", "-18446744073709551615",
	"-18446744073709551616", "99999999999999999999999999999999",
	"-99999999999999999999999999999999", "99999999999999999999x",
	"\xd9\xa1\xd9\xa2", "\xef\xbc\x8d\xef\xbc\x91", "\xc2\xa0" "1",
	"1\xc2\xa0", "\xff", "\x80", "y", "Y", "n", "N", "t", "f", "on", "ON",
	"off", "oF", "o", "O", "yes", "no", "true", "false", "1\n", "Y\n",
	"y\n\n", " y", "\ty",
};
static const struct { size_t len; const char *s; } with_nul[] = {
	{ 1, "\0" }, { 2, "1\0" }, { 3, "-1\0" }, { 6, "-5\0abc" },
	{ 2, "\0" "1" }, { 4, "-5\0\n" }, { 3, "1\n\0" }, { 3, "y\0n" },
};

/* A value in range, sometimes with a sign, a leading 0 or a newline. */
static size_t gen_valid(char *buf)
{
	int v = min_mv() + (int)below((unsigned int)(max_mv() - min_mv() + 1));

	return (size_t)sprintf(buf, "%s%s%d%s", v >= 0 && below(8) == 0 ? "+" : "",
			       below(8) == 0 ? "0" : "", v, below(2) ? "\n" : "");
}

static size_t gen_input(char *buf, size_t size)
{
	size_t len, i;
	unsigned int k;

	switch (below(10)) {
	case 0:
	case 1:
	case 2:
	case 3:
		return gen_valid(buf);
	case 4:
		k = below(sizeof(adversarial) / sizeof(adversarial[0]));
		len = strlen(adversarial[k]);
		memcpy(buf, adversarial[k], len);
		return len;
	case 5:
		k = below(sizeof(with_nul) / sizeof(with_nul[0]));
		memcpy(buf, with_nul[k].s, with_nul[k].len);
		return with_nul[k].len;
	case 6:	/* a random 64-bit number */
		if (below(2))
			return (size_t)sprintf(buf, "%" PRId64 "%s",
					       (int64_t)(next() >> below(64)),
					       below(2) ? "\n" : "");
		return (size_t)sprintf(buf, "%" PRIu64, next() >> below(64));
	case 7:	/* random bytes */
		len = below(48);
		for (i = 0; i < len; i++)
			buf[i] = (char)next();
		return len;
	case 8:	/* long: a number after thousands of zeros, or filler */
		len = PAGE - 64 + below(PAGE + 128);
		if (len > size - 32)
			len = size - 32;
		k = below(4);
		memset(buf, "0 9a"[k], len);
		if (k == 0)
			len += gen_valid(buf + len);
		else if (below(2))
			buf[0] = '-';
		return len;
	default: /* a valid value, mutated */
		len = gen_valid(buf);
		for (k = below(3) + 1; k; k--) {
			i = below((unsigned int)len + 1);
			switch (below(3)) {
			case 0:	/* insert */
				memmove(buf + i + 1, buf + i, len - i);
				buf[i] = "0123456789+- \n\t\0x.\xff"[below(19)];
				len++;
				break;
			case 1:	/* delete */
				if (i < len) {
					memmove(buf + i, buf + i + 1, len - i - 1);
					len--;
				}
				break;
			default: /* replace */
				if (i < len)
					buf[i] = (char)next();
				break;
			}
		}
		return len;
	}
}

/* Checks */

static void clear_log(void)
{
	ctl_read(CTL_CLEAR_LOG);
}

/* The model's command log as text, one 0x%016llx word a line. */
static size_t read_log(char *buf, size_t size)
{
	uint64_t i, n = ctl_read(CTL_LOG_LEN);
	size_t len = 0;

	buf[0] = '\0';
	for (i = 0; i < n && len + 20 < size; i++)
		len += (size_t)sprintf(buf + len, "0x%016" PRIx64 "\n",
				       ctl_read(CTL_LOG + (unsigned int)i));
	return len;
}

/* Every data word of the model is what the fuzzer expects. */
static void check_words(const char *what, const char *in, size_t len)
{
	int p;

	for (p = 0; p < NR_PLANES; p++) {
		uint32_t w = read_word(p);

		if (w != words[p])
			report("%s \"%s\": firmware plane %d is 0x%08x, want 0x%08x",
			       what, show(in, len), p, w, words[p]);
		words[p] = w;
	}
}

/* The offset file of @t reads the offset in the model's word. */
static void check_reads(const struct target *t, const char *in, size_t len)
{
	char buf[64];
	ssize_t n = pread(t->fd, buf, sizeof(buf) - 1, 0);

	if (n < 0) {
		report("%s \"%s\": a read fails: %s", t->path, show(in, len),
		       strerrorname_np(errno));
		return;
	}
	buf[n] = '\0';
	if (atoi(buf) != word_mv(words[t->plane]))
		report("%s \"%s\": reads %d, want %d", t->path, show(in, len),
		       atoi(buf), word_mv(words[t->plane]));
}

/* The plane a write to @plane also sets, or -1. */
static int coupled_plane(int plane)
{
	if (!coupled || (plane != 0 && plane != 2) || !present[2 - plane])
		return -1;
	return 2 - plane;
}

static size_t log_command(char *buf, int cmd, int plane, uint32_t data)
{
	return (size_t)sprintf(buf, "0x%016" PRIx64 "\n", (uint64_t)1 << 63 |
			       ((uint64_t)plane << 40) | ((uint64_t)cmd << 32) | data);
}

/*
 * The command words a write of @mv to @t logs, plane by plane in the
 * order the driver takes them (core before cache): a read; nothing more
 * for a plane that reads @mv already (the driver writes nothing then);
 * else the write and a read, the read-back or, when the firmware refuses
 * the write (@lock), the read that follows a failed write, after which
 * the planes taken so far are read again to be put back (they held @mv
 * already: nothing to write). Returns whether a write was refused.
 */
static bool expected_log(const struct target *t, int mv, bool lock, char *buf)
{
	int other = coupled_plane(t->plane), planes[2], np = 0, i, j;
	size_t n = 0;

	if (other >= 0 && other < t->plane)
		planes[np++] = other;
	planes[np++] = t->plane;
	if (other > t->plane)
		planes[np++] = other;
	buf[0] = '\0';
	for (i = 0; i < np; i++) {
		n += log_command(buf + n, 0x10, planes[i], 0);
		if (word_mv(words[planes[i]]) == mv)
			continue;
		n += log_command(buf + n, 0x11, planes[i],
				 with_offset(words[planes[i]], mv));
		n += log_command(buf + n, 0x10, planes[i], 0);
		if (lock) {
			for (j = 0; j < i; j++)
				n += log_command(buf + n, 0x10, planes[j], 0);
			return true;
		}
	}
	return false;
}

static void accepted(const struct target *t, const struct outcome *o,
		     const char *in, size_t len, const char *log)
{
	int other = coupled_plane(t->plane);
	char want[512];

	expected_log(t, o->mv, false, want);
	words[t->plane] = with_offset(words[t->plane], o->mv);
	if (other >= 0)
		words[other] = with_offset(words[other], o->mv);
	if (strcmp(log, want))
		report("%s \"%s\": mailbox log\n%swant\n%s", t->path,
		       show(in, len), log, want);
	check_words(t->path, in, len);
	check_reads(t, in, len);
}

static void fuzz_one(struct target *t, char *in, size_t size)
{
	static char log[65536];
	char want[512];
	struct outcome o;
	size_t len, seen;
	ssize_t n;
	char text[PAGE + 1];

	len = gen_input(in, size);
	/* What the store sees: one page at most, then a NUL. */
	seen = len < PAGE ? len : PAGE;
	memcpy(text, in, seen);
	text[seen] = '\0';
	o = expect(text, seen);
	/* The OC lock refuses only what is written: a value in force is not. */
	if (o.fw_refused && !expected_log(t, o.mv, true, want)) {
		o.err = 0;
		o.fw_refused = false;
	}

	clear_log();
	n = pwrite(t->fd, in, len, 0);
	t->writes++;
	if (verbose)
		printf("# %s \"%s\" -> %zd %s\n", t->path, show(in, len), n,
		       n < 0 ? strerrorname_np(errno) : "");
	read_log(log, sizeof(log));

	if (len == 0) {
		if (n != 0)
			report("%s: an empty write returned %zd", t->path, n);
		if (*log)
			report("%s: an empty write reached the mailbox", t->path);
		t->refused++;
		return;
	}
	if (o.err) {
		if (n >= 0 || errno != o.err)
			report("%s \"%s\": returned %zd %s, want %s", t->path,
			       show(in, len), n, n < 0 ? strerrorname_np(errno) : "",
			       strerrorname_np(o.err));
		else
			t->refused++;
		if (o.fw_refused) {
			t->fw_refused++;
			if (strcmp(log, want))
				report("%s \"%s\": mailbox log of a write the firmware refuses\n%swant\n%s",
				       t->path, show(in, len), log, want);
		} else if (*log) {
			report("%s \"%s\": a refused write reached the mailbox:\n%s",
			       t->path, show(in, len), log);
		}
		check_words(t->path, in, len);
		check_reads(t, in, len);
		return;
	}
	if (n != (ssize_t)seen) {
		report("%s \"%s\": returned %zd %s, want %zu", t->path,
		       show(in, len), n, n < 0 ? strerrorname_np(errno) : "",
		       seen);
		check_words(t->path, in, len);
		return;
	}
	t->accepted++;
	accepted(t, &o, in, len, log);
}

/* Firmware settings the model stands for: the setup's SGX and OC lock. */
static void set_sgx(bool on)
{
	ctl_read(CTL_SGX + on);
	sgx_on = on;
}

static void set_lock(bool on)
{
	ctl_read(CTL_LOCK + on);
	lock_on = on;
}

/* Loads */

/* Runs "sh -c @cmd"; its exit status, or -1. */
static int run(const char *cmd)
{
	int status = system(cmd);

	if (verbose)
		printf("# %s -> %d\n", cmd, status);
	return status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Options the driver must refuse: max_undervolt_mv outside 0..500 or not
 * a number, allow_overvolt not a bool. */
static const char *const bad_options[] = {
	"max_undervolt_mv=501", "max_undervolt_mv=-1", "max_undervolt_mv=1000",
	"max_undervolt_mv=250x", "max_undervolt_mv=0x10", "max_undervolt_mv=",
	"max_undervolt_mv=99999999999", "allow_overvolt=maybe",
	"allow_overvolt=2", "allow_overvolt=",
};

/* Every read-only file refuses to be opened for writing: EACCES. */
static void check_read_only(void)
{
	static const char *const fixed[] = {
		UV_DIR "/min_offset_mv", UV_DIR "/max_offset_mv",
		PARAM_DIR "/max_undervolt_mv", PARAM_DIR "/allow_overvolt",
	};
	char path[128];
	unsigned int i;
	int p, fd;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + NR_PLANES; i++) {
		if (i < sizeof(fixed) / sizeof(fixed[0])) {
			snprintf(path, sizeof(path), "%s", fixed[i]);
		} else {
			p = (int)(i - sizeof(fixed) / sizeof(fixed[0]));
			if (!present[p])
				continue;
			snprintf(path, sizeof(path), PKG_DIR "/initial_%s_offset_mv",
				 plane_names[p]);
		}
		read_only.writes++;
		fd = open(path, below(2) ? O_WRONLY : O_RDWR);
		if (fd >= 0 || errno != EACCES) {
			report("%s: opened for writing: %s, want EACCES", path,
			       fd >= 0 ? "it opened" : strerrorname_np(errno));
			read_only.mismatches++;
		} else {
			read_only.refused++;
		}
		if (fd >= 0)
			close(fd);
	}
}

/*
 * Unload the driver and load it again with random bounds, after a load
 * with an option it must refuse now and then. The unload puts back the
 * words the model held at the last load; the load shows the bounds and
 * the model's offsets as the initial ones.
 */
static void reload(const uint32_t *at_load)
{
	char cmd[160], want[32];
	const char *got;
	long before = failures;
	int p;

	set_sgx(false);
	set_lock(false);
	for (p = 0; p < nr_targets; p++)
		close(targets[p].fd);
	if (run("rmmod intel_undervolt")) {
		report("rmmod intel_undervolt failed");
		exit(1);
	}
	for (p = 0; p < NR_PLANES; p++) {
		words[p] = read_word(p);
		if (words[p] != at_load[p])
			report("after the unload the model's plane %d is 0x%08x, want 0x%08x as at load",
			       p, words[p], at_load[p]);
	}
	if (below(3) == 0) {
		snprintf(cmd, sizeof(cmd), "modprobe intel_undervolt %s 2>/dev/null",
			 bad_options[below(sizeof(bad_options) / sizeof(bad_options[0]))]);
		loads.writes++;
		if (run(cmd) == 0 || access(PARAM_DIR, F_OK) == 0) {
			report("\"%s\": the load did not fail", cmd);
			run("rmmod intel_undervolt 2>/dev/null");
		} else {
			loads.refused++;
		}
	}
	max_undervolt = below(4) ? (int)below(POLICY_LIMIT_MV + 1) :
			below(2) ? POLICY_LIMIT_MV : 0;
	allow_overvolt = below(2);
	/* kstrtoint and kstrtobool spellings */
	snprintf(cmd, sizeof(cmd), "modprobe intel_undervolt max_undervolt_mv=%s%d allow_overvolt=%s",
		 below(8) == 0 ? "+0" : "", max_undervolt,
		 allow_overvolt ? (below(2) ? "1" : "Y") : (below(2) ? "0" : "n"));
	loads.writes++;
	if (run(cmd)) {
		report("\"%s\" failed", cmd);
		exit(1);
	}
	loads.accepted++;
	snprintf(want, sizeof(want), "%d\n", max_undervolt);
	got = read_file(PARAM_DIR "/max_undervolt_mv");
	if (strcmp(got, want))
		report("\"%s\": max_undervolt_mv reads \"%s\"", cmd, show(got, strlen(got)));
	got = read_file(PARAM_DIR "/allow_overvolt");
	if (strcmp(got, allow_overvolt ? "Y\n" : "N\n"))
		report("\"%s\": allow_overvolt reads \"%s\"", cmd, show(got, strlen(got)));
	if (read_long(UV_DIR "/min_offset_mv") != min_mv() ||
	    read_long(UV_DIR "/max_offset_mv") != max_mv())
		report("\"%s\": the bounds read %ld..%ld, want %d..%d", cmd,
		       read_long(UV_DIR "/min_offset_mv"),
		       read_long(UV_DIR "/max_offset_mv"), min_mv(), max_mv());
	for (p = 0; p < nr_targets; p++) {
		struct target *t = &targets[p];
		char path[128];

		t->fd = open_or_die(t->path, O_RDWR);
		snprintf(path, sizeof(path), PKG_DIR "/initial_%s_offset_mv",
			 plane_names[t->plane]);
		if (read_long(path) != word_mv(words[t->plane]))
			report("%s reads %ld, the model holds %d mV", path,
			       read_long(path), word_mv(words[t->plane]));
	}
	check_read_only();
	if (failures != before)
		loads.mismatches++;
}

static void setup(void)
{
	int p;

	ctl_fd = open_or_die(CTL_DEV, O_RDONLY);
	if (ctl_read(0) != CTL_SIGNATURE) {
		fprintf(stderr, "uvfuzz: no firmware model (is QEMU's oc-mailbox on?)\n");
		exit(2);
	}
	for (p = 0; p < NR_PLANES; p++) {
		struct target *t = &targets[nr_targets];

		words[p] = read_word(p);
		snprintf(t->path, sizeof(t->path), PKG_DIR "/%s_offset_mv",
			 plane_names[p]);
		if (access(t->path, F_OK))
			continue;
		present[p] = true;
		t->plane = p;
		t->fd = open_or_die(t->path, O_RDWR);
		nr_targets++;
	}
	if (!nr_targets) {
		fprintf(stderr, "uvfuzz: intel_undervolt shows no offset file\n");
		exit(2);
	}
}

static void print_target(const struct target *t, const char *extra)
{
	/* A target's line passes only when every write to it did. */
	if (t->mismatches)
		printf("not ok - %s: %ld of %ld not as documented\n",
		       t->path, t->mismatches, t->writes);
	else
		printf("ok - %s: %ld writes, %ld accepted, %ld refused as documented%s\n",
		       t->path, t->writes, t->accepted, t->refused, extra);
}

int main(int argc, char **argv)
{
	static char in[3 * PAGE];
	long writes = 10000, reload_every = 500, i, before;
	uint32_t at_load[NR_PLANES];
	struct timespec t0, t1;
	uint64_t seed = 0;
	char by_fw[48];
	int opt, k;

	while ((opt = getopt(argc, argv, "n:r:s:cv")) != -1) {
		switch (opt) {
		case 'n':
			writes = atol(optarg);
			break;
		case 'r':
			reload_every = atol(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			coupled = true;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr, "usage: uvfuzz [-n WRITES] [-r RELOAD] [-s SEED] [-c] [-v]\n");
			return 2;
		}
	}
	if (reload_every < 1)
		reload_every = 1;
	if (!seed) {
		clock_gettime(CLOCK_REALTIME, &t0);
		seed = (uint64_t)t0.tv_sec * 1000000007ULL ^ (uint64_t)t0.tv_nsec;
	}
	rng = seed ? seed : 1;
	printf("# uvfuzz -s %" PRIu64 " -n %ld -r %ld%s\n", seed, writes,
	       reload_every, coupled ? " -c" : "");
	fflush(stdout);
	setup();
	/* What the next unload must put back: the words at the last load,
	 * at first those the driver bound with (no write since). */
	memcpy(at_load, words, sizeof(at_load));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < writes; i++) {
		if (i % reload_every == 0) {
			fflush(stdout);
			reload(at_load);
			memcpy(at_load, words, sizeof(at_load));
		}
		/* the firmware setup changes now and then, for a while */
		if (below(sgx_on ? 10 : 100) == 0)
			set_sgx(!sgx_on);
		if (below(lock_on ? 10 : 100) == 0)
			set_lock(!lock_on);
		k = (int)below((unsigned int)nr_targets);
		before = failures;
		fuzz_one(&targets[k], in, sizeof(in));
		if (failures != before)
			targets[k].mismatches++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	set_sgx(false);
	set_lock(false);

	for (k = 0; k < nr_targets; k++) {
		snprintf(by_fw, sizeof(by_fw), " (%ld by the firmware)",
			 targets[k].fw_refused);
		print_target(&targets[k], by_fw);
	}
	print_target(&loads, ", each showing its bounds and the model's offsets");
	print_target(&read_only, " (EACCES)");
	if (failures > MAX_REPORTS)
		printf("# %ld more mismatches not shown\n", failures - MAX_REPORTS);
	printf("# %ld writes in %.1f s, seed %" PRIu64 "\n", writes,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       seed);
	if (failures)
		printf("not ok - %ld mismatches; replay with uvfuzz -s %" PRIu64 " -n %ld -r %ld%s\n",
		       failures, seed, writes, reload_every, coupled ? " -c" : "");
	else
		printf("ok - %ld writes, every outcome as documented\n", writes);
	return failures ? 1 : 0;
}
