// SPDX-License-Identifier: GPL-2.0
/*
 * kexecload: load a kernel for kexec or for kdump with kexec_file_load(2),
 * or boot the one loaded for kexec, for the guest tests of what the
 * driver leaves behind for the next kernel.
 *
 *   kexecload load KERNEL INITRD CMDLINE     for kexec
 *   kexecload crash KERNEL INITRD CMDLINE    as the capture kernel of a crash
 *   kexecload exec                           reboot into the kexec kernel
 *
 * Exit status 0, 1 with a message on failure, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kexec.h>
#include <linux/reboot.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "kexecload: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long flags = 0;
	int kernel, initrd;

	if (argc == 2 && !strcmp(argv[1], "exec")) {
		sync();
		syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
			LINUX_REBOOT_CMD_KEXEC, NULL);
		return fail("reboot(LINUX_REBOOT_CMD_KEXEC)");
	}
	if (argc != 5 || (strcmp(argv[1], "load") && strcmp(argv[1], "crash"))) {
		fprintf(stderr, "usage: kexecload load|crash KERNEL INITRD CMDLINE\n"
				"       kexecload exec\n");
		return 2;
	}
	if (!strcmp(argv[1], "crash"))
		flags |= KEXEC_FILE_ON_CRASH;
	kernel = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (kernel < 0)
		return fail(argv[2]);
	initrd = open(argv[3], O_RDONLY | O_CLOEXEC);
	if (initrd < 0)
		return fail(argv[3]);
	if (syscall(SYS_kexec_file_load, kernel, initrd, strlen(argv[4]) + 1,
		    argv[4], flags))
		return fail("kexec_file_load");
	return 0;
}
