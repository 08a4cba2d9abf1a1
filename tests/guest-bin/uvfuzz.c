// SPDX-License-Identifier: GPL-2.0
/*
 * uvfuzz: random and adversarial writes to every writable file of
 * intel_undervolt, each checked against the documented rules.
 *
 *   uvfuzz [-n WRITES] [-s SEED] [-c] [-v]
 *
 * -c: core and cache are coupled (Skylake and later). -v: print every write.
 *
 * Files: package_00/<plane>_offset_mv of every plane present, confirm, and
 * the run-time module parameters max_undervolt_mv, allow_overvolt and
 * apply (trial_seconds is left out: it makes writes revert in the
 * background; tests/guest/undervolt-trial.sh covers it). Each write is
 * one write(2) of random bytes, adversarial text or a valid value. The
 * expected outcome comes from the ABI and the admin guide:
 *
 * - sysfs hands a store at most one page, ending at the first NUL byte;
 *   an empty write returns 0 and does nothing;
 * - <plane>_offset_mv: a decimal integer (kstrtoint: optional sign, one
 *   optional trailing newline, nothing else: else EINVAL, ERANGE when it
 *   overflows an int), within min_offset_mv..max_offset_mv (else
 *   ERANGE), refused with EPERM while apply is 0; accepted, it sets the
 *   plane (and the coupled one) with read, write, read-back commands;
 *   the firmware refuses an offset beyond +-512/1024 V (+-500 mV) with
 *   completion code 4 (qemu/MODEL.md), which fails the write with ERANGE
 *   after the read and the refused write of the plane;
 * - confirm: kstrtouint, and the value must be 1 (else EINVAL);
 * - max_undervolt_mv: kstrtoint, 0..500 (else ERANGE), and at run time
 *   never above its current value (else EPERM); min_offset_mv follows;
 * - allow_overvolt, apply: kstrtobool (y, Y, t, T, 1, n, N, f, F, 0, on,
 *   off by their first characters); allow_overvolt cannot be turned on at
 *   run time (EPERM), and with it max_offset_mv is 500.
 *
 * Offsets must reach the firmware exactly and nothing else may. The
 * firmware is the OC mailbox model of our QEMU (qemu/MODEL.md), observed
 * as fwctl does, with reads of its control MSRs through /dev/cpu/0/msr
 * (CPU 0 is in package 0 and cannot go offline): before each write its
 * command log (every value written to MSR 0x150) is cleared; after it, a
 * write the driver refused must have left it empty, one the firmware
 * refused must have logged exactly the read and the refused write, and
 * either kind every data word of the model unchanged; an accepted offset
 * write must have logged exactly the expected command words, and the
 * model's words and sysfs must read the new value.
 *
 * Prints the seed first; "uvfuzz -s SEED -n WRITES" replays a run. Output
 * is TAP-style: one "ok -" line per file with its counts, and a "not ok -"
 * line per mismatch (at most 20). Exit status 1 on any mismatch.
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
#include <time.h>
#include <unistd.h>

#define UV_DIR		"/sys/devices/system/cpu/intel_undervolt"
#define PARAM_DIR	"/sys/module/intel_undervolt/parameters"
#define CTL_DEV		"/dev/cpu/0/msr"
#define CTL_BASE	0x4f430000u	/* the model's control MSRs */
#define CTL_SIGNATURE	0x314c45444f4d434fULL	/* "OCMODEL1" */
#define CTL_LOG_LEN	0x004		/* words in the command log */
#define CTL_WORD	0x010		/* + domain: its data word */
#define CTL_LOG		0x1000		/* + n: log word n, oldest first */
#define CTL_CLEAR_LOG	0x2000
#define PAGE		4096
#define NR_PLANES	5
#define FW_OFFSET_LIMIT	512	/* 1/1024 V: the model's limit, code 4 beyond */
#define MAX_REPORTS	20

static const char *const plane_names[NR_PLANES] = {
	"core", "gpu", "cache", "uncore", "analogio",
};

enum kind { OFFSET, CONFIRM, MAX_UNDERVOLT, ALLOW_OVERVOLT, APPLY };

struct target {
	enum kind kind;
	int plane;
	char path[128];
	int fd;
	long writes, accepted, refused, fw_refused;
	long mismatches;	/* writes whose outcome was not as documented */
};

static struct target targets[NR_PLANES + 4];
static int nr_targets;

/* The model of the driver and firmware state. */
static uint32_t words[NR_PLANES];
static int offsets[NR_PLANES];
static bool present[NR_PLANES];
static int max_undervolt;
static bool allow_overvolt, apply_on, coupled, verbose;

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

static size_t read_text(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	if (n < 0)
		die("pread");
	buf[n] = '\0';
	return (size_t)n;
}

/* A sysfs file, opened afresh and read with read(2). */
static long read_long(const char *path)
{
	char buf[64];
	int fd = open_or_die(path, O_RDONLY);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	if (n < 0)
		die(path);
	buf[n] = '\0';
	close(fd);
	return strtol(buf, NULL, 0);
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

static int parse_uint(const char *s, unsigned int *res)
{
	unsigned long long u;
	int ret = parse_ull(s, &u);

	if (ret)
		return ret;
	if (u > UINT_MAX)
		return -ERANGE;
	*res = (unsigned int)u;
	return 0;
}

static int parse_bool(const char *s, bool *res)
{
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N') {
			*res = true;
			return 0;
		}
		if (s[1] == 'f' || s[1] == 'F') {
			*res = false;
			return 0;
		}
		return -EINVAL;
	default:
		return -EINVAL;
	}
}

/* The driver's hard bound, either way (Intel's reference firmware's). */
#define POLICY_LIMIT_MV	500

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

/* What a write of @s (the text the store sees) must do. */
struct outcome {
	int err;		/* 0 or the errno the write fails with */
	bool fw_refused;	/* OFFSET: refused by the firmware, code 4 */
	int mv;			/* OFFSET: the new value */
	int ival;		/* MAX_UNDERVOLT: the new value */
	bool bval;		/* ALLOW_OVERVOLT, APPLY */
};

static struct outcome expect(const struct target *t, const char *s, size_t n)
{
	struct outcome o = { 0 };
	unsigned int u;

	/* The ABI allows nothing after the number but one newline: no NUL. */
	if (strlen(s) != n && (t->kind == OFFSET || t->kind == CONFIRM)) {
		o.err = EINVAL;
		return o;
	}
	switch (t->kind) {
	case OFFSET:
		o.err = -parse_int(s, &o.mv);
		if (!o.err && (o.mv < min_mv() || o.mv > max_mv()))
			o.err = ERANGE;
		if (!o.err && !apply_on)
			o.err = EPERM;
		if (!o.err && (mv_to_units(o.mv) > FW_OFFSET_LIMIT ||
			       mv_to_units(o.mv) < -FW_OFFSET_LIMIT)) {
			o.err = ERANGE;
			o.fw_refused = true;
		}
		break;
	case CONFIRM:
		o.err = -parse_uint(s, &u);
		if (!o.err && u != 1)
			o.err = EINVAL;
		break;
	case MAX_UNDERVOLT:
		o.err = -parse_int(s, &o.ival);
		if (!o.err && (o.ival < 0 || o.ival > POLICY_LIMIT_MV))
			o.err = ERANGE;
		if (!o.err && o.ival > max_undervolt)
			o.err = EPERM;
		break;
	case ALLOW_OVERVOLT:
		o.err = -parse_bool(s, &o.bval);
		if (!o.err && o.bval && !allow_overvolt)
			o.err = EPERM;
		break;
	case APPLY:
		o.err = -parse_bool(s, &o.bval);
		break;
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

/* Strings with an embedded NUL, as length and bytes. */
static const struct { size_t len; const char *s; } with_nul[] = {
	{ 1, "\0" }, { 2, "1\0" }, { 3, "-1\0" }, { 6, "-5\0abc" },
	{ 2, "\0" "1" }, { 4, "-5\0\n" }, { 3, "1\n\0" }, { 3, "y\0n" },
};

static size_t gen_valid(const struct target *t, char *buf)
{
	static const char *const bools[] = { "Y", "N", "1", "0", "y", "n", "on", "off" };
	int v;

	switch (t->kind) {
	case OFFSET:
		v = min_mv() + (int)below((unsigned int)(max_mv() - min_mv() + 1));
		/* bias towards in-range values that differ from now */
		break;
	case CONFIRM:
		return (size_t)sprintf(buf, "1%s", below(2) ? "\n" : "");
	case MAX_UNDERVOLT:
		/* mostly generous bounds, so that offsets are often accepted */
		v = below(4) ? 200 + (int)below(801) : (int)below(1001);
		break;
	default:
		return (size_t)sprintf(buf, "%s%s", bools[below(8)],
				       below(2) ? "\n" : "");
	}
	return (size_t)sprintf(buf, "%s%s%d%s", v >= 0 && below(8) == 0 ? "+" : "",
			       below(8) == 0 ? "0" : "", v, below(2) ? "\n" : "");
}

static size_t gen_input(const struct target *t, char *buf, size_t size)
{
	size_t len, i;
	unsigned int k;

	switch (below(10)) {
	case 0:
	case 1:
	case 2:
	case 3:
		return gen_valid(t, buf);
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
			len += gen_valid(t, buf + len);
		else if (below(2))
			buf[0] = '-';
		return len;
	default: /* a valid value, mutated */
		len = gen_valid(t, buf);
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

/*
 * The command words a write of @data to @plane logs: read, write, and the
 * read-back when the firmware accepted the write.
 */
static size_t expected_log(int plane, uint32_t data, bool read_back, char *buf)
{
	uint64_t rd = 0x8000001000000000ULL | ((uint64_t)plane << 40);
	uint64_t wr = 0x8000001100000000ULL | ((uint64_t)plane << 40) | data;

	if (!read_back)
		return (size_t)sprintf(buf, "0x%016" PRIx64 "\n0x%016" PRIx64 "\n", rd, wr);
	return (size_t)sprintf(buf, "0x%016" PRIx64 "\n0x%016" PRIx64 "\n0x%016" PRIx64 "\n",
			       rd, wr, rd);
}

static void apply_outcome(const struct target *t, const struct outcome *o,
			  const char *in, size_t len, const char *log)
{
	char want[512], buf[64];
	size_t n = 0;
	int p;

	switch (t->kind) {
	case OFFSET:
		for (p = 0; p < NR_PLANES; p++) {
			bool hit = p == t->plane ||
				   (coupled && ((t->plane == 0 && p == 2) ||
						(t->plane == 2 && p == 0)) && present[p]);

			if (!hit)
				continue;
			words[p] = with_offset(words[p], o->mv);
			offsets[p] = o->mv;
		}
		/* the written plane first, then the coupled one */
		n = expected_log(t->plane, words[t->plane], true, want);
		if (coupled && (t->plane == 0 || t->plane == 2) && present[2 - t->plane])
			expected_log(2 - t->plane, words[2 - t->plane], true, want + n);
		if (strcmp(log, want))
			report("%s \"%s\": mailbox log\n%swant\n%s", t->path,
			       show(in, len), log, want);
		check_words(t->path, in, len);
		clear_log();
		read_text(t->fd, buf, sizeof(buf));
		if (atoi(buf) != o->mv)
			report("%s \"%s\": reads %d, want %d", t->path,
			       show(in, len), atoi(buf), o->mv);
		return;
	case MAX_UNDERVOLT:
		max_undervolt = o->ival;
		if (read_long(UV_DIR "/min_offset_mv") != -max_undervolt)
			report("max_undervolt_mv \"%s\": min_offset_mv is %ld, want %d",
			       show(in, len), read_long(UV_DIR "/min_offset_mv"),
			       -max_undervolt);
		break;
	case ALLOW_OVERVOLT:
		allow_overvolt = o->bval;
		if (read_long(UV_DIR "/max_offset_mv") != max_mv())
			report("allow_overvolt \"%s\": max_offset_mv is %ld, want %d",
			       show(in, len), read_long(UV_DIR "/max_offset_mv"), max_mv());
		break;
	case APPLY:
		apply_on = o->bval;
		break;
	case CONFIRM:
		break;
	}
	/* Not an offset: nothing may reach the mailbox. */
	if (*log)
		report("%s \"%s\": commands reached the mailbox:\n%s", t->path,
		       show(in, len), log);
	check_words(t->path, in, len);
}

static void fuzz_one(struct target *t, char *in, size_t size)
{
	static char log[65536];
	char want[128];
	struct outcome o;
	size_t len, seen;
	ssize_t n;
	char text[PAGE + 1];

	len = gen_input(t, in, size);
	/* What the store sees: one page at most, then a NUL. */
	seen = len < PAGE ? len : PAGE;
	memcpy(text, in, seen);
	text[seen] = '\0';
	o = expect(t, text, seen);

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
			/* the plane written first: read, then the refused write */
			t->fw_refused++;
			expected_log(t->plane, with_offset(words[t->plane], o.mv),
				     false, want);
			if (strcmp(log, want))
				report("%s \"%s\": mailbox log of a write the firmware refuses\n%swant\n%s",
				       t->path, show(in, len), log, want);
		} else if (*log) {
			report("%s \"%s\": a refused write reached the mailbox:\n%s",
			       t->path, show(in, len), log);
		}
		check_words(t->path, in, len);
		return;
	}
	if (n != (ssize_t)seen) {
		report("%s \"%s\": returned %zd %s, want %zu", t->path,
		       show(in, len), n, n < 0 ? strerrorname_np(errno) : "", seen);
		check_words(t->path, in, len);
		return;
	}
	t->accepted++;
	apply_outcome(t, &o, in, len, log);
}

static void add_target(enum kind kind, int plane, const char *path)
{
	struct target *t = &targets[nr_targets++];

	t->kind = kind;
	t->plane = plane;
	snprintf(t->path, sizeof(t->path), "%s", path);
	t->fd = open_or_die(path, kind == OFFSET ? O_RDWR : O_WRONLY);
}

static void setup(void)
{
	char path[128], buf[16];
	int p, fd;

	ctl_fd = open_or_die(CTL_DEV, O_RDONLY);
	if (ctl_read(0) != CTL_SIGNATURE) {
		fprintf(stderr, "uvfuzz: no firmware model (is QEMU's oc-mailbox on?)\n");
		exit(2);
	}
	for (p = 0; p < NR_PLANES; p++) {
		words[p] = read_word(p);
		snprintf(path, sizeof(path), UV_DIR "/package_00/%s_offset_mv",
			 plane_names[p]);
		if (access(path, F_OK))
			continue;
		present[p] = true;
		offsets[p] = (int)read_long(path);
		add_target(OFFSET, p, path);
	}
	add_target(CONFIRM, -1, UV_DIR "/confirm");
	add_target(MAX_UNDERVOLT, -1, PARAM_DIR "/max_undervolt_mv");
	add_target(ALLOW_OVERVOLT, -1, PARAM_DIR "/allow_overvolt");
	add_target(APPLY, -1, PARAM_DIR "/apply");
	max_undervolt = (int)read_long(PARAM_DIR "/max_undervolt_mv");
	fd = open_or_die(PARAM_DIR "/allow_overvolt", O_RDONLY);
	read_text(fd, buf, sizeof(buf));
	allow_overvolt = buf[0] == 'Y';
	close(fd);
	fd = open_or_die(PARAM_DIR "/apply", O_RDONLY);
	read_text(fd, buf, sizeof(buf));
	apply_on = buf[0] == 'Y';
	close(fd);
	if (read_long(PARAM_DIR "/trial_seconds")) {
		fprintf(stderr, "uvfuzz: trial_seconds is not 0\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	static char in[3 * PAGE];
	long writes = 10000, i, before;
	struct timespec t0, t1;
	uint64_t seed = 0;
	int opt, k;

	while ((opt = getopt(argc, argv, "n:s:cv")) != -1) {
		switch (opt) {
		case 'n':
			writes = atol(optarg);
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
			fprintf(stderr, "usage: uvfuzz [-n WRITES] [-s SEED] [-c] [-v]\n");
			return 2;
		}
	}
	if (!seed) {
		clock_gettime(CLOCK_REALTIME, &t0);
		seed = (uint64_t)t0.tv_sec * 1000000007ULL ^ (uint64_t)t0.tv_nsec;
	}
	rng = seed ? seed : 1;
	printf("# uvfuzz -s %" PRIu64 " -n %ld%s\n", seed, writes, coupled ? " -c" : "");
	fflush(stdout);
	setup();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < writes; i++) {
		/* offsets take most writes; each other file a few percent */
		k = below(20);
		k = k < 16 ? (int)below((unsigned int)nr_targets - 4) :
			     nr_targets - 4 + (k - 16);
		before = failures;
		fuzz_one(&targets[k], in, sizeof(in));
		if (failures != before)
			targets[k].mismatches++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	for (k = 0; k < nr_targets; k++) {
		char by_fw[48] = "";

		if (targets[k].kind == OFFSET)
			snprintf(by_fw, sizeof(by_fw), " (%ld by the firmware)",
				 targets[k].fw_refused);
		/* A target's line passes only when every write to it did. */
		if (targets[k].mismatches)
			printf("not ok - %s: %ld of %ld writes not as documented\n",
			       targets[k].path, targets[k].mismatches, targets[k].writes);
		else
			printf("ok - %s: %ld writes, %ld accepted, %ld refused as documented%s\n",
			       targets[k].path, targets[k].writes, targets[k].accepted,
			       targets[k].refused, by_fw);
	}
	if (failures > MAX_REPORTS)
		printf("# %ld more mismatches not shown\n", failures - MAX_REPORTS);
	printf("# %ld writes in %.1f s, seed %" PRIu64 "\n", writes,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       seed);
	if (failures)
		printf("not ok - %ld mismatches; replay with uvfuzz -s %" PRIu64 " -n %ld%s\n",
		       failures, seed, writes, coupled ? " -c" : "");
	else
		printf("ok - %ld writes, every outcome as documented\n", writes);
	return failures ? 1 : 0;
}
