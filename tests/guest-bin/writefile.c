// SPDX-License-Identifier: GPL-2.0
/*
 * writefile: write bytes to a file in exactly one write(2), as a test needs
 * to exercise a sysfs store method, and report the errno by name.
 *
 *   writefile PATH STRING        writes STRING (no newline added)
 *   writefile -x PATH HEX        writes the bytes spelled in HEX
 *   writefile -f PATH SOURCE     writes the whole content of file SOURCE
 *
 * Prints "OK" or the errno name (EINVAL, ERANGE, ...) on stdout and exits 0
 * when the write returned the full length, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *errno_name(int e)
{
	static const struct { int e; const char *name; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EIO, "EIO" },
		{ EBUSY, "EBUSY" }, { EINVAL, "EINVAL" }, { ERANGE, "ERANGE" },
		{ EACCES, "EACCES" }, { ENODEV, "ENODEV" }, { ENXIO, "ENXIO" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ EAGAIN, "EAGAIN" }, { EFAULT, "EFAULT" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	return "EUNKNOWN";
}

static void usage(void)
{
	fprintf(stderr, "usage: writefile [-x|-f] PATH DATA\n");
	exit(2);
}

static size_t from_hex(const char *hex, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int byte;

	while (hex[0] && hex[1] && n < size) {
		if (sscanf(hex, "%2x", &byte) != 1)
			usage();
		buf[n++] = (char)byte;
		hex += 2;
	}
	return n;
}

static size_t from_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		exit(2);
	}
	n = fread(buf, 1, size, f);
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	const char *mode = "";
	size_t len;
	ssize_t n;
	int fd;

	if (argc == 4 && argv[1][0] == '-')
		mode = argv[1];
	else if (argc != 3)
		usage();
	argv += argc - 2;

	if (strcmp(mode, "-x") == 0) {
		len = from_hex(argv[1], buf, sizeof(buf));
	} else if (strcmp(mode, "-f") == 0) {
		len = from_file(argv[1], buf, sizeof(buf));
	} else if (mode[0] == '\0') {
		len = strlen(argv[1]);
		memcpy(buf, argv[1], len);
	} else {
		usage();
	}

	fd = open(argv[0], O_WRONLY);
	if (fd < 0) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	n = write(fd, buf, len);
	if (n < 0) {
		printf("%s\n", errno_name(errno));
		close(fd);
		return 1;
	}
	close(fd);
	if ((size_t)n != len) {
		printf("SHORT\n");
		return 1;
	}
	printf("OK\n");
	return 0;
}
