// SPDX-License-Identifier: GPL-2.0
/*
 * uffdwrite: a raw write to an MSR whose data the kernel cannot copy in
 * until the test says so. The 8 bytes live on a page registered with
 * userfaultfd, so write(2) on /dev/cpu/N/msr stops inside copy_from_user()
 * until this program resolves the fault: the window in which a driver
 * may claim the OC mailbox after the msr driver's check and before the
 * WRMSR.
 *
 *   uffdwrite CPU REG VALUE FIFO
 *
 * Prints "blocked" once the write waits in copy_from_user(), then reads a
 * line from FIFO (a named pipe the test writes to when it is ready),
 * resolves the fault, and prints "ok" or the errno name of the write.
 * Exit status 0 when the write was made, 1 otherwise, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct writer {
	int fd;
	uint64_t reg;
	void *data;
	int err;
};

static void *write_msr(void *arg)
{
	struct writer *w = arg;

	w->err = pwrite(w->fd, w->data, 8, (off_t)w->reg) == 8 ? 0 : errno;
	return NULL;
}

static void die(const char *what)
{
	fprintf(stderr, "uffdwrite: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_copy copy = { 0 };
	struct uffd_msg msg;
	struct writer w;
	pthread_t thread;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t value;
	char path[64], line[16], *source;
	int uffd;
	FILE *fifo;

	if (argc != 5) {
		fprintf(stderr, "usage: uffdwrite CPU REG VALUE FIFO\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/cpu/%s/msr", argv[1]);
	w.reg = strtoull(argv[2], NULL, 0);
	value = strtoull(argv[3], NULL, 0);
	w.fd = open(path, O_WRONLY);
	if (w.fd < 0)
		die(path);

	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		die("userfaultfd");
	w.data = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	source = malloc((size_t)page);
	if (w.data == MAP_FAILED || !source)
		die("mmap");
	reg.range.start = (uintptr_t)w.data;
	reg.range.len = (uint64_t)page;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");

	errno = pthread_create(&thread, NULL, write_msr, &w);
	if (errno)
		die("pthread_create");
	/* The fault of copy_from_user(): the write is held there now. */
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		die("reading the fault");
	puts("blocked");
	fflush(stdout);

	fifo = fopen(argv[4], "r");
	if (!fifo || !fgets(line, sizeof(line), fifo))
		die(argv[4]);
	memset(source, 0, (size_t)page);
	memcpy(source, &value, sizeof(value));
	copy.dst = (uintptr_t)w.data;
	copy.src = (uintptr_t)source;
	copy.len = (uint64_t)page;
	if (ioctl(uffd, UFFDIO_COPY, &copy))
		die("UFFDIO_COPY");
	pthread_join(thread, NULL);
	if (w.err) {
		printf("%s\n", w.err == EBUSY ? "EBUSY" : strerror(w.err));
		return 1;
	}
	puts("ok");
	return 0;
}
