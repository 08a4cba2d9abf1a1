// SPDX-License-Identifier: GPL-2.0
/*
 * diag.c: why offsets cannot be written, from what the kernel shows.
 *
 * Since v3 the driver keeps no write_block_reason: a refused write fails
 * with an errno and one line in the kernel log. What can be known without
 * writing comes from the kernel itself: lockdown (securityfs), a kdump
 * kernel (/proc/vmcore), SGX (the cpuinfo flag the driver checks first),
 * and the driver's lines since it bound (klog.c). MSR 0x194 bit 20 (the
 * overclocking lock) and 0x3A bit 18 (SGX enabled) are read, never
 * written, and only when /dev/cpu/0/msr is readable: they are hints, as
 * firmware differs in what it shows there. So is Undervolt Protection,
 * bit 1 of IA32_OVERCLOCKING_STATUS (0x195), read only where bit 23 of
 * IA32_ARCH_CAPABILITIES (0x10A) says the MSR exists; the driver reads
 * the same bit before every negative write.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "undervoltctl.h"

static const struct {
	const char *reason;
	int code;
	const char *advice;
} reasons[] = {
	{ "lockdown", UV_EXIT_POLICY, "the kernel is locked down, which "
	  "forbids changing offsets; this usually comes with Secure Boot, or "
	  "from lockdown= on the kernel command line: to change offsets, turn "
	  "Secure Boot off in the firmware setup, or boot without lockdown=" },
	{ "sgx", UV_EXIT_POLICY, "SGX is enabled; disable SGX (Software Guard "
	  "Extensions) in the firmware setup to allow offsets: undervolting "
	  "can break SGX enclaves (Plundervolt, CVE-2019-11157)" },
	{ "kdump", UV_EXIT_POLICY, "this is a kdump kernel: the driver raised "
	  "any undervolt to 0 mV and takes no writes; offsets can be set again "
	  "after the next normal boot" },
	{ "oc_lock", UV_EXIT_FIRMWARE, "the firmware set the overclocking lock; "
	  "clear it in the firmware setup if it offers the option (look for "
	  "\"Overclocking Lock\", not \"CFG Lock\"); many firmware "
	  "updates since Plundervolt set it with no option, and then offsets "
	  "cannot be changed on this machine" },
	{ "uvp", UV_EXIT_FIRMWARE, "Undervolt Protection (12th generation "
	  "and later) keeps every plane at or above the offset the firmware "
	  "setup programmed (its initial offset); turn it off in the "
	  "firmware setup if it offers the option, or lower the offset "
	  "there, otherwise offsets below the initial one cannot be set on "
	  "this machine" },
};

const char *diag_advice(const char *reason)
{
	size_t i;

	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(reason, reasons[i].reason) == 0)
			return reasons[i].advice;
	return "the driver refuses writes; its line in the kernel log "
	       "(dmesg | grep intel_undervolt) says why";
}

int diag_code(const char *reason)
{
	size_t i;

	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(reason, reasons[i].reason) == 0)
			return reasons[i].code;
	return UV_EXIT_POLICY;
}

/*
 * Writes need CAP_SYS_RAWIO besides the file mode. Unknown counts as able:
 * the write itself then says what is wrong.
 */
bool uv_has_rawio(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return true;
	return d[CAP_TO_INDEX(CAP_SYS_RAWIO)].effective &
	       CAP_TO_MASK(CAP_SYS_RAWIO);
}

/* Bit BIT of MSR REG of CPU 0: 1 or 0; -1 when it cannot be read. */
static int msr_bit(const struct uv_sysfs *s, unsigned int reg, unsigned int bit)
{
	char path[PATH_MAX];
	uint64_t v;
	ssize_t n;
	int fd;

	if (uv_path(path, sizeof(path), "%s/cpu/0/msr", s->dev))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, &v, sizeof(v), reg);
	close(fd);
	return n == (ssize_t)sizeof(v) ? (int)((v >> bit) & 1) : -1;
}

/* Undervolt Protection: 1 on, 0 off, -1 not enumerated or unreadable. */
static int msr_uvp(const struct uv_sysfs *s)
{
	return msr_bit(s, 0x10a, 23) == 1 ? msr_bit(s, 0x195, 1) : -1;
}

/* The word in brackets of "none [integrity] confidentiality". */
static void read_lockdown(const struct uv_sysfs *s, struct uv_diag *d)
{
	char path[PATH_MAX], buf[128], *open, *close;

	d->lockdown = -1;
	d->lockdown_mode[0] = '\0';
	if (uv_path(path, sizeof(path), "%s/kernel/security/lockdown",
		    s->root) ||
	    sysfs_read_word(path, buf, sizeof(buf)) ||
	    !(open = strchr(buf, '[')) || !(close = strchr(open, ']')))
		return;
	*close = '\0';
	snprintf(d->lockdown_mode, sizeof(d->lockdown_mode), "%s", open + 1);
	/* LOCKDOWN_UNDERVOLT is in the integrity part: both levels refuse. */
	d->lockdown = strcmp(d->lockdown_mode, "none") != 0;
}

/* The driver refuses while the kernel's sgx flag is set, whatever else. */
static bool read_sgx_flag(const struct uv_sysfs *s)
{
	char *info = uv_read_cpuinfo(s), *flags, *tok, *save;
	bool found = false;
	size_t len;

	if (!info)
		return false;
	len = strlen(info);
	flags = malloc(len + 1);
	if (flags && uv_cpuinfo_value(info, "flags", flags, len + 1))
		for (tok = strtok_r(flags, " \t", &save); tok && !found;
		     tok = strtok_r(NULL, " \t", &save))
			found = strcmp(tok, "sgx") == 0;
	free(flags);
	free(info);
	return found;
}

void diag_read(const struct uv_sysfs *s, struct uv_diag *d, bool hints)
{
	char path[PATH_MAX];

	read_lockdown(s, d);
	d->kdump = !uv_path(path, sizeof(path), "%s/vmcore", s->proc) &&
		   access(path, F_OK) == 0;
	d->sgx_flag = read_sgx_flag(s);
	d->msr_oc_lock = hints ? msr_bit(s, 0x194, 20) : -1;
	d->msr_sgx = hints ? msr_bit(s, 0x3a, 18) : -1;
	d->msr_uvp = hints ? msr_uvp(s) : -1;
	d->klog_err = uv_path(path, sizeof(path), "%s/kmsg", s->dev);
	if (!d->klog_err)
		d->klog_err = klog_driver_scan(path, &d->klog);
	if (d->klog_err)
		klog_driver_init(&d->klog);
}

/*
 * Why package PKG refuses writes, or NULL. What the kernel shows is
 * certain; with LOGGED, the driver's last line about the package counts
 * too (a dry run's guess: the firmware setup may have changed since).
 */
const char *diag_block(const struct uv_diag *d, unsigned int pkg, bool logged)
{
	const struct klog_package *p;

	if (d->lockdown == 1)
		return "lockdown";
	if (d->kdump)
		return "kdump";
	if (d->sgx_flag)
		return "sgx";
	if (!logged || pkg >= KLOG_MAX_PACKAGES)
		return NULL;
	p = &d->klog.pkg[pkg];
	/* "unsupported" is one plane's answer, not the package's state. */
	if (p->event != KLOG_REFUSED || strcmp(p->reason, "unsupported") == 0)
		return NULL;
	return p->reason;
}

/* The firmware kept its old offset at the last write: a note, or NULL. */
const char *diag_ignored(const struct uv_diag *d, unsigned int pkg,
			 char *buf, size_t size)
{
	const struct klog_package *p;

	if (pkg >= KLOG_MAX_PACKAGES)
		return NULL;
	p = &d->klog.pkg[pkg];
	if (p->event != KLOG_IGNORED)
		return NULL;
	snprintf(buf, size, "the firmware acknowledged the last write and "
		 "kept its old offset (%s: wrote %ld mV, reads %ld mV); "
		 "undervolting is likely disabled by the firmware or its "
		 "microcode (look for an undervolt protection or overclocking "
		 "option in the firmware setup)", p->plane, p->a, p->b);
	return buf;
}

/*
 * The driver's last restore of a plane of PKG (after resume, when the
 * package came back online) failed: the offset set before is gone. A
 * note, or NULL.
 */
const char *diag_not_restored(const struct uv_diag *d, unsigned int pkg,
			      char *buf, size_t size)
{
	const struct klog_package *p;

	if (pkg >= KLOG_MAX_PACKAGES)
		return NULL;
	p = &d->klog.pkg[pkg];
	if (p->event != KLOG_NOT_RESTORED)
		return NULL;
	snprintf(buf, size, "the driver could not write %s back to %ld mV "
		 "(%s, %s), so the firmware holds the offset shown below; "
		 "set it again, and if that fails too, its error says why",
		 p->plane, p->a, p->reason, p->err);
	return buf;
}

/*
 * Why a write to PATH (package PKG) failed with ERR, what to do, and the
 * exit code that goes with it. The driver logged its reason just now, so
 * the log is read again.
 */
int diag_explain(const struct uv_sysfs *s, unsigned int pkg, const char *path,
		 int err, char *buf, size_t size)
{
	struct uv_diag *d;
	const char *why;
	int code = UV_EXIT_FAIL;

	if ((err == EPERM && !uv_has_rawio()) ||
	    (err == EACCES && access(path, W_OK) != 0)) {
		snprintf(buf, size, "not permitted; run as root (writes need "
			 "CAP_SYS_RAWIO)");
		return UV_EXIT_FAIL;
	}
	if (err != EPERM && err != EACCES && err != EIO)
		return -1;
	d = malloc(sizeof(*d));
	if (!d) {
		snprintf(buf, size, "%s", strerror(err));
		return UV_EXIT_FAIL;
	}
	diag_read(s, d, false);
	why = diag_block(d, pkg, true);
	if (err == EIO) {
		if (!diag_ignored(d, pkg, buf, size))
			snprintf(buf, size, "the firmware ignored or failed the "
				 "write; this CPU may not allow offsets on that "
				 "plane");
	} else if (why && diag_code(why) == (err == EPERM ? UV_EXIT_POLICY :
					      UV_EXIT_FIRMWARE)) {
		snprintf(buf, size, "refused (%s): %s", why, diag_advice(why));
		code = diag_code(why);
	} else if (err == EPERM) {
		snprintf(buf, size, "refused by the kernel's policy (lockdown, "
			 "SGX or a kdump kernel); the kernel log says which "
			 "(dmesg | grep intel_undervolt)");
		code = UV_EXIT_POLICY;
	} else {
		snprintf(buf, size, "refused by the firmware (the overclocking "
			 "lock, or Undervolt Protection); look for those "
			 "options in the firmware setup");
		code = UV_EXIT_FIRMWARE;
	}
	free(d);
	return code;
}
