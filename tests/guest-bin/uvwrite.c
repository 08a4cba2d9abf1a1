// SPDX-License-Identifier: GPL-2.0
/*
 * uvwrite: hammer one offset file with random valid values, for the
 * stress tests.
 *
 *   uvwrite PATH COUNT SEED MIN MAX [ERRNO...]
 *
 * Writes COUNT values drawn from MIN..MAX (decimal, with a newline, one
 * write(2) each) to PATH. A write may fail with one of the ERRNO names
 * given (for example ENODEV while the package is offline); any other
 * failure is reported. Prints one line:
 *
 *   ok=N failed=N last=V     (last successful value, or "none")
 *
 * and, for each unexpected failure, "unexpected: VALUE ERRNO". Exits 0
 * when every failure was an expected one, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(void)
{
	fprintf(stderr, "usage: uvwrite PATH COUNT SEED MIN MAX [ERRNO...]\n");
	exit(2);
}

static int expected(int err, int nnames, char **names)
{
	const char *name = strerrorname_np(err);
	int i;

	for (i = 0; name && i < nnames; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	long count, i, ok = 0, failed = 0, unexpected = 0;
	int fd, min, max, v, last = 0, have_last = 0;
	char buf[32];
	size_t len;

	if (argc < 6)
		usage();
	count = atol(argv[2]);
	srandom((unsigned int)strtoul(argv[3], NULL, 0));
	min = atoi(argv[4]);
	max = atoi(argv[5]);
	if (count < 1 || min > max)
		usage();

	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < count; i++) {
		v = min + (int)(random() % ((long)max - min + 1));
		len = (size_t)snprintf(buf, sizeof(buf), "%d\n", v);
		if (pwrite(fd, buf, len, 0) == (ssize_t)len) {
			ok++;
			last = v;
			have_last = 1;
			continue;
		}
		failed++;
		if (!expected(errno, argc - 6, argv + 6)) {
			unexpected++;
			printf("unexpected: %d %s\n", v, strerrorname_np(errno));
		}
	}
	close(fd);
	if (have_last)
		printf("ok=%ld failed=%ld last=%d\n", ok, failed, last);
	else
		printf("ok=%ld failed=%ld last=none\n", ok, failed);
	return unexpected ? 1 : 0;
}
