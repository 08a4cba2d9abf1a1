// SPDX-License-Identifier: GPL-2.0
/*
 * msrtool: read or write one MSR through /dev/cpu/N/msr, for guest tests.
 *
 *   msrtool read CPU REG          prints the value as 0x%016llx
 *   msrtool write CPU REG VALUE [TIMES]
 *                                 prints nothing on success; TIMES
 *                                 writes from one process, each tried
 *                                 even when one before it failed
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
			"       msrtool write CPU REG VALUE [TIMES]\n");
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

int main(int argc, char **argv)
{
	char path[64];
	uint64_t reg, value;
	int fd, write_mode, failed = 0;
	uint64_t times = 1, i;
	ssize_t n;

	if (argc < 4)
		usage();
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
