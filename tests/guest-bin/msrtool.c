// SPDX-License-Identifier: GPL-2.0
/*
 * msrtool: read or write one MSR through /dev/cpu/N/msr, for guest tests.
 *
 *   msrtool read CPU REG          prints the value as 0x%016llx
 *   msrtool write CPU REG VALUE [TIMES]
 *                                 prints nothing on success; TIMES
 *                                 writes from one process, each tried
 *                                 even when one before it failed
 *   msrtool xfer CPU COMMAND [LATE]
 *                                 one OC mailbox command as a raw tool
 *                                 sends it: COMMAND written to MSR 0x150,
 *                                 which is read at once ("first"), then
 *                                 polled until the busy bit clears
 *                                 ("answer", with the number of polls and
 *                                 the microseconds since the write), for
 *                                 at most a second; with LATE, that word
 *                                 is written to 0x150 right after COMMAND,
 *                                 before the first read
 *
 * On failure it prints "msrtool: ...: ERRNAME (text)" and exits 1, so a
 * test can match the exact errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *errno_name(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EIO: return "EIO";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case ENXIO: return "ENXIO";
	case ENODEV: return "ENODEV";
	case ENOENT: return "ENOENT";
	default: return "E?";
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: msrtool read CPU REG\n"
			"       msrtool write CPU REG VALUE [TIMES]\n"
			"       msrtool xfer CPU COMMAND [LATE]\n");
	exit(2);
}

static uint64_t parse_u64(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *s == '\0' || *end != '\0') {
		fprintf(stderr, "msrtool: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int msr_io(int fd, int write_mode, uint64_t *value)
{
	ssize_t n = write_mode ? pwrite(fd, value, sizeof(*value), 0x150) :
				 pread(fd, value, sizeof(*value), 0x150);

	if (n == (ssize_t)sizeof(*value))
		return 0;
	fprintf(stderr, "msrtool: %s MSR 0x150: %s\n",
		write_mode ? "write" : "read", errno_name(n < 0 ? errno : EIO));
	return -1;
}

/* msrtool xfer: the protocol as user-space tools drive it. */
static int xfer(const char *cpu, uint64_t cmd, int late, uint64_t late_word)
{
	char path[64];
	uint64_t first, answer;
	int64_t start;
	unsigned long polls = 0;
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%s/msr", cpu);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "msrtool: %s: %s\n", path, errno_name(errno));
		return 1;
	}
	start = now_us();
	if (msr_io(fd, 1, &cmd) || (late && msr_io(fd, 1, &late_word)) ||
	    msr_io(fd, 0, &first))
		return 1;
	answer = first;
	while (answer >> 63) {
		if (now_us() - start > 1000000) {
			fprintf(stderr, "msrtool: MSR 0x150 still busy after 1 s\n");
			return 1;
		}
		if (msr_io(fd, 0, &answer))
			return 1;
		polls++;
	}
	printf("first 0x%016" PRIx64 "\n", first);
	printf("answer 0x%016" PRIx64 " polls %lu us %lld\n", answer, polls,
	       (long long)(now_us() - start));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	char path[64];
	uint64_t reg, value;
	int fd, write_mode, failed = 0;
	uint64_t times = 1, i;
	ssize_t n;

	if (argc < 4)
		usage();
	if (!strcmp(argv[1], "xfer")) {
		if (argc > 5)
			usage();
		return xfer(argv[2], parse_u64(argv[3]), argc == 5,
			    argc == 5 ? parse_u64(argv[4]) : 0);
	}
	write_mode = strcmp(argv[1], "write") == 0;
	if (!write_mode && strcmp(argv[1], "read") != 0)
		usage();
	if (write_mode ? argc != 5 && argc != 6 : argc != 4)
		usage();
	if (argc == 6)
		times = parse_u64(argv[5]);

	snprintf(path, sizeof(path), "/dev/cpu/%s/msr", argv[2]);
	reg = parse_u64(argv[3]);
	fd = open(path, write_mode ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "msrtool: %s: %s (%s)\n", path,
			errno_name(errno), strerror(errno));
		return 1;
	}
	if (write_mode)
		value = parse_u64(argv[4]);
	for (i = 0; i < times; i++) {
		if (write_mode)
			n = pwrite(fd, &value, sizeof(value), (off_t)reg);
		else
			n = pread(fd, &value, sizeof(value), (off_t)reg);
		if (n != (ssize_t)sizeof(value)) {
			int e = n < 0 ? errno : EIO;

			fprintf(stderr, "msrtool: %s MSR 0x%" PRIx64 ": %s (%s)\n",
				argv[1], reg, errno_name(e), strerror(e));
			failed = 1;
		}
	}
	if (!write_mode && !failed)
		printf("0x%016" PRIx64 "\n", value);
	close(fd);
	return failed;
}
