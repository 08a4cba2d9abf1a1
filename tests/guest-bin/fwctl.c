// SPDX-License-Identifier: GPL-2.0
/*
 * fwctl: observe and steer the OC mailbox model of our QEMU from inside a
 * guest (qemu/MODEL.md). Every operation is a read of the model's test-only
 * MSR range through /dev/cpu/N/msr, so it neither taints the guest kernel
 * nor needs writes that lockdown would refuse. It acts on the package of
 * CPU N: the first online CPU of package P with -p P (default 0).
 *
 *   fwctl [-p PACKAGE] present          exit 0 when the model answers
 *   fwctl [-p PACKAGE] resets           system resets the package has seen
 *   fwctl [-p PACKAGE] mces             machine checks the unstable profile
 *                                       reported on the package
 *   fwctl [-p PACKAGE] crashes          resets the unstable profile caused
 *   fwctl [-p PACKAGE] flips            ticks the unstable profile armed faults in
 *   fwctl [-p PACKAGE] fma-faults       FMA results it corrupted
 *   fwctl [-p PACKAGE] mul-faults       64-bit IMUL results it corrupted
 *   fwctl [-p PACKAGE] faults fma|mul|both|none
 *                                       the kinds of fault it arms
 *   fwctl [-p PACKAGE] busy-writes      writes to 0x150 lost to a busy command
 *   fwctl [-p PACKAGE] busy-us [US]     how long a command takes; with US (1..4095,
 *                                       0 for x-oc-busy-us again), set it
 *   fwctl [-p PACKAGE] word DOMAIN      a domain's data word, 0x%08x
 *   fwctl [-p PACKAGE] words            the five words on one line
 *   fwctl [-p PACKAGE] boot-words       the five words a reset leaves
 *   fwctl [-p PACKAGE] log              the command log, 0x%016llx a line
 *   fwctl [-p PACKAGE] clear-log
 *   fwctl [-p PACKAGE] inject CODE [N]  the next N commands (1..15, default
 *                                       1) complete with CODE
 *   fwctl [-p PACKAGE] inject-write CODE DOMAIN
 *                                       the next write to DOMAIN does
 *   fwctl [-p PACKAGE] injection        "none", "CODE xN" or "CODE write D"
 *   fwctl [-p PACKAGE] clear-injection
 *   fwctl [-p PACKAGE] busy|drop|lock|sgx|hint|uvp on|off
 *   fwctl [-p PACKAGE] settings         "lock=B sgx=B drop=B busy=B hint=B uvp=B"
 *   fwctl [-p PACKAGE] forget           the package's words back to boot
 *
 * Exit status 0, 1 on a failed access (with a message naming it), 2 on a
 * usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CTL_BASE	0x4f430000u
#define CTL_SIGNATURE	0x314c45444f4d434fULL	/* "OCMODEL1" */
#define NR_DOMAINS	5
#define MAX_CPUS	64

static void usage(void)
{
	fputs("usage: fwctl [-p PACKAGE] present|resets|mces|crashes|flips|"
	      "fma-faults|mul-faults|busy-writes|busy-us|\n"
	      "       words|boot-words|log|clear-log|injection|clear-injection|"
	      "settings|forget\n"
	      "       fwctl [-p PACKAGE] word DOMAIN\n"
	      "       fwctl [-p PACKAGE] inject CODE [N]\n"
	      "       fwctl [-p PACKAGE] inject-write CODE DOMAIN\n"
	      "       fwctl [-p PACKAGE] faults fma|mul|both|none\n"
	      "       fwctl [-p PACKAGE] busy-us US\n"
	      "       fwctl [-p PACKAGE] busy|drop|lock|sgx|hint|uvp on|off\n",
	      stderr);
	exit(2);
}

static unsigned long number(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *s == '\0' || *end != '\0' || v > max) {
		fprintf(stderr, "fwctl: not a number from 0 to %lu: %s\n", max, s);
		exit(2);
	}
	return v;
}

/* The first online CPU of the package, from sysfs. */
static int cpu_of_package(unsigned long pkg)
{
	char path[96];
	unsigned long id;
	FILE *f;
	int cpu, ok;

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/online", cpu);
		f = fopen(path, "r");
		if (f) {
			ok = fgetc(f) == '1';
			fclose(f);
			if (!ok)
				continue;
		}
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
			 cpu);
		f = fopen(path, "r");
		if (!f)
			continue;
		ok = fscanf(f, "%lu", &id) == 1 && id == pkg;
		fclose(f);
		if (ok)
			return cpu;
	}
	fprintf(stderr, "fwctl: package %lu has no online CPU\n", pkg);
	exit(1);
}

struct ctl {
	int fd;
	int cpu;
};

/* Reads OC_CTL_BASE + @n; 0 when the model refused (#GP: EIO). */
static int ctl_read(const struct ctl *c, unsigned int n, uint64_t *val)
{
	ssize_t r = pread(c->fd, val, sizeof(*val), CTL_BASE + n);

	if (r == (ssize_t)sizeof(*val))
		return 1;
	if (r < 0 && errno != EIO) {
		fprintf(stderr, "fwctl: reading MSR 0x%x on CPU %d: %s\n",
			CTL_BASE + n, c->cpu, strerror(errno));
		exit(1);
	}
	return 0;
}

static uint64_t ctl_must(const struct ctl *c, unsigned int n)
{
	uint64_t val;

	if (!ctl_read(c, n, &val)) {
		fprintf(stderr, "fwctl: the model refused control read 0x%x on CPU %d "
			"(is QEMU's oc-mailbox on?)\n", n, c->cpu);
		exit(1);
	}
	return val;
}

static unsigned int on_off(const char *s)
{
	if (!strcmp(s, "on"))
		return 1;
	if (!strcmp(s, "off"))
		return 0;
	usage();
	return 0;
}

int main(int argc, char **argv)
{
	/* The on/off settings and their control reads (qemu/MODEL.md). */
	static const struct {
		const char *name;
		unsigned int ctl;
	} toggles[] = {
		{ "busy", 0x5000 }, { "drop", 0x6000 }, { "lock", 0x7000 },
		{ "sgx", 0x8000 }, { "hint", 0xb000 }, { "uvp", 0xc000 },
	};
	static const char *const kinds[] = { "none", "fma", "mul", "both" };
	unsigned long pkg = 0;
	struct ctl c;
	char path[64];
	const char *cmd;
	uint64_t v, n;
	unsigned int i;

	if (argc >= 3 && !strcmp(argv[1], "-p")) {
		pkg = number(argv[2], 255);
		argv += 2;
		argc -= 2;
	}
	if (argc < 2)
		usage();
	cmd = argv[1];
	c.cpu = cpu_of_package(pkg);
	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", c.cpu);
	c.fd = open(path, O_RDONLY);
	if (c.fd < 0) {
		fprintf(stderr, "fwctl: %s: %s (CONFIG_X86_MSR, or modprobe msr)\n",
			path, strerror(errno));
		return 1;
	}

	if (!strcmp(cmd, "present") && argc == 2)
		return !(ctl_read(&c, 0x000, &v) && v == CTL_SIGNATURE);
	if (!strcmp(cmd, "resets") && argc == 2) {
		printf("%" PRIu64 "\n", ctl_must(&c, 0x001));
	} else if (!strcmp(cmd, "mces") && argc == 2) {
		printf("%" PRIu64 "\n", ctl_must(&c, 0x005));
	} else if (!strcmp(cmd, "crashes") && argc == 2) {
		printf("%" PRIu64 "\n", ctl_must(&c, 0x006));
	} else if (!strcmp(cmd, "flips") && argc == 2) {
		printf("%" PRIu64 "\n", ctl_must(&c, 0x007));
	} else if (!strcmp(cmd, "busy-writes") && argc == 2) {
		printf("%" PRIu64 "\n", ctl_must(&c, 0x008));
	} else if (!strcmp(cmd, "busy-us") && argc == 2) {
		printf("%" PRIu64 "\n", ctl_must(&c, 0x009));
	} else if (!strcmp(cmd, "busy-us") && argc == 3) {
		ctl_must(&c, 0xe000 | number(argv[2], 4095));
	} else if (!strcmp(cmd, "fma-faults") && argc == 2) {
		printf("%" PRIu64 "\n", ctl_must(&c, 0x00a));
	} else if (!strcmp(cmd, "mul-faults") && argc == 2) {
		printf("%" PRIu64 "\n", ctl_must(&c, 0x00b));
	} else if (!strcmp(cmd, "faults") && argc == 3) {
		for (i = 0; i < 4 && strcmp(argv[2], kinds[i]); i++)
			;
		if (i == 4)
			usage();
		ctl_must(&c, 0xd000 | i);
	} else if (!strcmp(cmd, "word") && argc == 3) {
		printf("0x%08" PRIx64 "\n",
		       ctl_must(&c, 0x010 + number(argv[2], NR_DOMAINS - 1)));
	} else if (!strcmp(cmd, "words") && argc == 2) {
		for (i = 0; i < NR_DOMAINS; i++)
			printf("%s0x%08" PRIx64, i ? " " : "", ctl_must(&c, 0x010 + i));
		putchar('\n');
	} else if (!strcmp(cmd, "boot-words") && argc == 2) {
		for (i = 0; i < NR_DOMAINS; i++)
			printf("%s0x%08" PRIx64, i ? " " : "", ctl_must(&c, 0x020 + i));
		putchar('\n');
	} else if (!strcmp(cmd, "log") && argc == 2) {
		n = ctl_must(&c, 0x004);
		for (i = 0; i < n; i++)
			printf("0x%016" PRIx64 "\n", ctl_must(&c, 0x1000 + i));
	} else if (!strcmp(cmd, "clear-log") && argc == 2) {
		ctl_must(&c, 0x2000);
	} else if (!strcmp(cmd, "inject") && (argc == 3 || argc == 4)) {
		n = argc == 4 ? number(argv[3], 15) : 1;
		if (n == 0)
			usage();
		ctl_must(&c, 0x3000 | n << 8 | number(argv[2], 255));
	} else if (!strcmp(cmd, "inject-write") && argc == 4) {
		ctl_must(&c, 0x4000 | number(argv[3], NR_DOMAINS - 1) << 8 |
			 number(argv[2], 255));
	} else if (!strcmp(cmd, "injection") && argc == 2) {
		v = ctl_must(&c, 0x002);
		if (v >> 32 == 1)
			printf("%u x%u\n", (unsigned int)(v & 0xff),
			       (unsigned int)(v >> 8 & 0xff));
		else if (v >> 32 == 2)
			printf("%u write %u\n", (unsigned int)(v & 0xff),
			       (unsigned int)(v >> 8 & 0xff));
		else
			puts("none");
	} else if (!strcmp(cmd, "clear-injection") && argc == 2) {
		ctl_must(&c, 0xa000);
	} else if (!strcmp(cmd, "settings") && argc == 2) {
		v = ctl_must(&c, 0x003);
		printf("lock=%u sgx=%u drop=%u busy=%u hint=%u uvp=%u\n",
		       (unsigned int)(v & 1), (unsigned int)(v >> 1 & 1),
		       (unsigned int)(v >> 2 & 1), (unsigned int)(v >> 3 & 1),
		       (unsigned int)(v >> 4 & 1), (unsigned int)(v >> 5 & 1));
	} else if (!strcmp(cmd, "forget") && argc == 2) {
		ctl_must(&c, 0x9000);
	} else {
		for (i = 0; i < sizeof(toggles) / sizeof(toggles[0]); i++)
			if (!strcmp(cmd, toggles[i].name) && argc == 3)
				break;
		if (i == sizeof(toggles) / sizeof(toggles[0]))
			usage();
		ctl_must(&c, toggles[i].ctl | on_off(argv[2]));
	}
	return 0;
}
