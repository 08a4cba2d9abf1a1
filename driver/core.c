// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel CPU voltage offset control through the OC mailbox
 *
 * Copyright (c) 2026 The linux-undervolt authors
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/kmod.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/panic.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/suspend.h>
#include <linux/syscore_ops.h>
#include <linux/topology.h>
#include <kunit/visibility.h>
#include <asm/cpu_device_id.h>
#include <asm/cpufeature.h>
#include <asm/intel-family.h>
#include <asm/msr.h>

#include "undervolt.h"

/**
 * DOC: Safety policy
 *
 * A write that would change a voltage offset is refused with -EPERM,
 * before any mailbox command, when the writer lacks CAP_SYS_RAWIO (as for
 * /dev/cpu/N/msr), when the recovery switch intel_undervolt.apply is 0,
 * when the kernel is locked down for integrity
 * (LOCKDOWN_UNDERVOLT), when SGX is enabled (Plundervolt,
 * CVE-2019-11157: an undervolted CPU faults inside enclaves on demand),
 * or when the firmware locked overclocking (MSR 0x194 bit 20, or a write
 * answered with completion code 1). The first offset other than 0 that
 * the firmware accepted taints the kernel with TAINT_CPU_OUT_OF_SPEC,
 * and every change is logged with the plane, the old and new offsets and
 * the writing process.
 */

static bool emulate;
module_param(emulate, bool, 0444);
MODULE_PARM_DESC(emulate,
		 "Talk to the emulated firmware of intel_undervolt_emu (testing only)");

static int max_undervolt_mv = 250;

static int max_undervolt_set(const char *val, const struct kernel_param *kp)
{
	int mv, ret;

	ret = kstrtoint(val, 10, &mv);
	if (ret)
		return ret;
	if (mv < 0 || mv > -UV_OFFSET_MIN_MV)
		return -ERANGE;
	WRITE_ONCE(max_undervolt_mv, mv);
	return 0;
}

static const struct kernel_param_ops max_undervolt_ops = {
	.set = max_undervolt_set,
	.get = param_get_int,
};
module_param_cb(max_undervolt_mv, &max_undervolt_ops, &max_undervolt_mv, 0644);
MODULE_PARM_DESC(max_undervolt_mv,
		 "Largest undervolt accepted, in mV, 0..1000 (default 250)");

static bool apply = true;
module_param(apply, bool, 0644);
MODULE_PARM_DESC(apply,
		 "0: recovery, bind read-only, apply no boot offsets and refuse every write until root sets it to 1 (default 1)");

static char *offsets;
module_param(offsets, charp, 0444);
MODULE_PARM_DESC(offsets,
		 "Offsets applied at probe on every package, e.g. core:-80,cache:-80,gpu:-40");

static unsigned int trial_seconds;
module_param(trial_seconds, uint, 0644);
MODULE_PARM_DESC(trial_seconds,
		 "Trial mode: a change reverts unless confirmed within this many seconds; 0 = off (default)");

static bool allow_overvolt;
module_param(allow_overvolt, bool, 0644);
MODULE_PARM_DESC(allow_overvolt, "Accept positive offsets up to +999 mV (default N)");

const char * const uv_plane_names[UV_NR_PLANES] = {
	[UV_PLANE_CORE] = "core",
	[UV_PLANE_GPU] = "gpu",
	[UV_PLANE_CACHE] = "cache",
	[UV_PLANE_UNCORE] = "uncore",
	[UV_PLANE_ANALOGIO] = "analogio",
};
EXPORT_SYMBOL_IF_KUNIT(uv_plane_names);

#define UV_ALL_PLANES	GENMASK(UV_NR_PLANES - 1, 0)

static const struct uv_model uv_model_uncoupled = {
	.planes = UV_ALL_PLANES,
	.coupled = false,
};

static const struct uv_model uv_model_coupled = {
	.planes = UV_ALL_PLANES,
	.coupled = true,
};

/*
 * Client parts known to have the voltage offset mailbox. From Skylake on,
 * core and cache share one voltage rail. Ice Lake and later are left out:
 * their firmware is reported to lock the mailbox or to answer with
 * unknown completion codes.
 */
static const struct x86_cpu_id uv_cpu_ids[] = {
	X86_MATCH_VFM(INTEL_HASWELL,		&uv_model_uncoupled),
	X86_MATCH_VFM(INTEL_HASWELL_L,		&uv_model_uncoupled),
	X86_MATCH_VFM(INTEL_HASWELL_G,		&uv_model_uncoupled),
	X86_MATCH_VFM(INTEL_BROADWELL,		&uv_model_uncoupled),
	X86_MATCH_VFM(INTEL_BROADWELL_G,	&uv_model_uncoupled),
	X86_MATCH_VFM(INTEL_SKYLAKE_L,		&uv_model_coupled),
	X86_MATCH_VFM(INTEL_SKYLAKE,		&uv_model_coupled),
	X86_MATCH_VFM(INTEL_KABYLAKE_L,		&uv_model_coupled),
	X86_MATCH_VFM(INTEL_KABYLAKE,		&uv_model_coupled),
	X86_MATCH_VFM(INTEL_COMETLAKE_L,	&uv_model_coupled),
	X86_MATCH_VFM(INTEL_COMETLAKE,		&uv_model_coupled),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, uv_cpu_ids);

static struct uv_dev uv_dev;
static bool uv_tainted;

/**
 * uv_min_offset_mv() - the lowest offset a write may set
 *
 * Return: -max_undervolt_mv.
 */
int uv_min_offset_mv(void)
{
	return -READ_ONCE(max_undervolt_mv);
}
EXPORT_SYMBOL_IF_KUNIT(uv_min_offset_mv);

/**
 * uv_max_offset_mv() - the highest offset a write may set
 *
 * Return: UV_OFFSET_MAX_MV with allow_overvolt, 0 otherwise.
 */
int uv_max_offset_mv(void)
{
	return READ_ONCE(allow_overvolt) ? UV_OFFSET_MAX_MV : 0;
}
EXPORT_SYMBOL_IF_KUNIT(uv_max_offset_mv);

static bool uv_sgx_enabled(struct uv_package *p)
{
	u64 feat_ctl;

	if (boot_cpu_has(X86_FEATURE_SGX))
		return true;
	if (!p->uv->cpu_has_sgx)
		return false;
	/* Fail safe: a CPU with SGX whose FEAT_CTL cannot be read counts as enabled. */
	if (p->uv->ops->read_msr(p->uv->ctx, p->id, MSR_IA32_FEAT_CTL, &feat_ctl))
		return true;
	return feat_ctl & FEAT_CTL_SGX_ENABLED;
}

static bool uv_oc_locked(struct uv_package *p)
{
	u64 flex;

	if (p->oc_locked)
		return true;
	if (p->uv->ops->read_msr(p->uv->ctx, p->id, UV_MSR_FLEX_RATIO, &flex))
		return false;
	return flex & UV_FLEX_RATIO_OC_LOCK;
}

/**
 * uv_block_reason() - why writes to a package are refused
 * @p: package
 *
 * Return: the first reason that applies, or UV_BLOCK_NONE.
 */
enum uv_block_reason uv_block_reason(struct uv_package *p)
{
	if (!READ_ONCE(apply))
		return UV_BLOCK_RECOVERY;
	if (security_locked_down(LOCKDOWN_UNDERVOLT))
		return UV_BLOCK_LOCKDOWN;
	if (uv_sgx_enabled(p))
		return UV_BLOCK_SGX;
	if (uv_oc_locked(p))
		return UV_BLOCK_OC_LOCK;
	return UV_BLOCK_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(uv_block_reason);

/**
 * uv_block_reason_name() - the name of a reason, as sysfs shows it
 * @reason: reason
 *
 * Return: "none", "recovery", "lockdown", "sgx" or "oc_lock".
 */
const char *uv_block_reason_name(enum uv_block_reason reason)
{
	static const char * const names[] = {
		[UV_BLOCK_NONE] = "none",
		[UV_BLOCK_RECOVERY] = "recovery",
		[UV_BLOCK_LOCKDOWN] = "lockdown",
		[UV_BLOCK_SGX] = "sgx",
		[UV_BLOCK_OC_LOCK] = "oc_lock",
	};

	return names[reason];
}

static void uv_log_refusal(struct uv_package *p, enum uv_plane plane,
			   enum uv_block_reason reason)
{
	const char *name = uv_plane_names[plane];

	switch (reason) {
	case UV_BLOCK_RECOVERY:
		pr_info_ratelimited("package %02u: %s offset write refused (recovery): intel_undervolt.apply=0; write 1 to /sys/module/intel_undervolt/parameters/apply to change voltage offsets\n",
				    p->id, name);
		break;
	case UV_BLOCK_LOCKDOWN:
		pr_info_ratelimited("package %02u: %s offset write refused (lockdown): boot without kernel lockdown to change voltage offsets\n",
				    p->id, name);
		break;
	case UV_BLOCK_SGX:
		pr_info_ratelimited("package %02u: %s offset write refused (sgx): SGX is enabled (Plundervolt, CVE-2019-11157); disable SGX in the firmware setup to change voltage offsets\n",
				    p->id, name);
		break;
	case UV_BLOCK_OC_LOCK:
		pr_info_ratelimited("package %02u: %s offset write refused (oc_lock): the firmware locked overclocking (MSR 0x194 bit 20); unlock it in the firmware setup to change voltage offsets\n",
				    p->id, name);
		break;
	default:
		break;
	}
}

/**
 * uv_read_offset() - read the offset of a plane from the firmware
 * @p: package
 * @plane: plane
 * @mv: the offset in millivolts
 *
 * Return: 0, or a negative errno.
 */
int uv_read_offset(struct uv_package *p, enum uv_plane plane, int *mv)
{
	u32 data;
	int ret;

	mutex_lock(&p->lock);
	ret = uv_mbox_cmd(p->uv, p->id, UV_CMD_READ_PLANE, plane, 0, &data);
	mutex_unlock(&p->lock);
	if (!ret)
		*mv = uv_data_get_offset(data);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(uv_read_offset);

/*
 * Read-modify-write one plane and read it back. The caller holds the
 * package lock. Returns 0 with the previous offset in *old_mv.
 */
static int uv_write_plane(struct uv_package *p, enum uv_plane plane, int mv,
			  int *old_mv)
{
	u32 data, check;
	int ret;

	ret = uv_mbox_cmd(p->uv, p->id, UV_CMD_READ_PLANE, plane, 0, &data);
	if (ret)
		return ret;
	*old_mv = uv_data_get_offset(data);
	data = uv_data_set_offset(data, mv);
	ret = uv_mbox_cmd(p->uv, p->id, UV_CMD_WRITE_PLANE, plane, data, NULL);
	if (ret)
		return ret;
	ret = uv_mbox_cmd(p->uv, p->id, UV_CMD_READ_PLANE, plane, 0, &check);
	if (ret)
		return ret;
	if ((check & UV_DATA_OFFSET) != (data & UV_DATA_OFFSET)) {
		pr_warn("package %02u: firmware ignored the %s offset write (%d mV, reads %d mV)\n",
			p->id, uv_plane_names[plane], mv, uv_data_get_offset(check));
		return -EIO;
	}
	p->offset_mv[plane] = mv;
	return 0;
}

static void uv_log_change(struct uv_package *p, enum uv_plane plane,
			  int old_mv, int mv)
{
	pr_info("package %02u: %s offset %d mV -> %d mV by %s[%d]\n",
		p->id, uv_plane_names[plane], old_mv, mv, current->comm,
		task_pid_nr(current));
	if (mv && !uv_tainted) {
		uv_tainted = true;
		add_taint(TAINT_CPU_OUT_OF_SPEC, LOCKDEP_STILL_OK);
	}
}

/**
 * DOC: Trial mode
 *
 * With the module parameter trial_seconds other than 0, a change is
 * provisional. Each successful offset write (from sysfs or from the
 * offsets parameter) starts the countdown again: unless 1 is written to
 * /sys/devices/system/cpu/intel_undervolt/confirm within trial_seconds of
 * the last change, a work item writes back, on every package, the offsets
 * of the last confirmation (at first, those the firmware had when the
 * driver bound) and logs it. trial_remaining_s reads the seconds left, 0
 * when nothing is provisional. While trial_seconds is 0, every change is
 * confirmed at once; setting it to 0 does not cancel a running trial.
 */

/* After a successful change of @p; no package lock held. */
static void uv_trial_changed(struct uv_package *p)
{
	struct uv_dev *uv = p->uv;
	unsigned int secs = READ_ONCE(trial_seconds);

	mutex_lock(&uv->trial_lock);
	/* Unloading: the boot offsets are written back next. */
	if (uv->trial_closed)
		goto out;
	if (secs) {
		uv->trial_pending = true;
		uv->trial_deadline = jiffies + secs * HZ;
		mod_delayed_work(system_wq, &uv->trial_work, secs * HZ);
	} else if (!uv->trial_pending) {
		mutex_lock(&p->lock);
		memcpy(p->confirmed_mv, p->offset_mv, sizeof(p->confirmed_mv));
		mutex_unlock(&p->lock);
	}
out:
	mutex_unlock(&uv->trial_lock);
}

static void uv_trial_expired(struct work_struct *work)
{
	struct uv_dev *uv = container_of(to_delayed_work(work), struct uv_dev,
					 trial_work);
	unsigned int i;

	mutex_lock(&uv->trial_lock);
	/* A change re-armed the countdown while this instance waited. */
	if (!uv->trial_pending || uv->trial_closed ||
	    time_before(jiffies, uv->trial_deadline))
		goto out;
	uv->trial_pending = false;
	pr_warn("trial: no confirmation within trial_seconds, reverting to the last confirmed offsets\n");
	for (i = 0; i < uv->nr_pkgs; i++) {
		struct uv_package *p = uv->pkgs[i];

		if (!p)
			continue;
		mutex_lock(&p->lock);
		uv_restore_package(p, p->confirmed_mv, "trial expired");
		mutex_unlock(&p->lock);
	}
out:
	mutex_unlock(&uv->trial_lock);
}

/**
 * uv_trial_confirm() - keep the provisional offsets
 *
 * Makes the current offsets of every package the confirmed ones and stops
 * the countdown. Does nothing when nothing is provisional.
 */
void uv_trial_confirm(void)
{
	struct uv_dev *uv = &uv_dev;
	unsigned int i;

	mutex_lock(&uv->trial_lock);
	if (uv->trial_pending) {
		cancel_delayed_work(&uv->trial_work);
		uv->trial_pending = false;
		for (i = 0; i < uv->nr_pkgs; i++) {
			struct uv_package *p = uv->pkgs[i];

			if (!p)
				continue;
			mutex_lock(&p->lock);
			memcpy(p->confirmed_mv, p->offset_mv,
			       sizeof(p->confirmed_mv));
			mutex_unlock(&p->lock);
		}
		pr_info("trial: offsets confirmed by %s[%d]\n", current->comm,
			task_pid_nr(current));
	}
	mutex_unlock(&uv->trial_lock);
}

/**
 * uv_trial_remaining_s() - time left before provisional offsets revert
 *
 * Return: seconds, rounded up; 0 when nothing is provisional.
 */
unsigned int uv_trial_remaining_s(void)
{
	struct uv_dev *uv = &uv_dev;
	unsigned int secs = 0;
	long left;

	mutex_lock(&uv->trial_lock);
	if (uv->trial_pending) {
		left = (long)(uv->trial_deadline - jiffies);
		secs = left > 0 ? DIV_ROUND_UP(left, HZ) : 0;
	}
	mutex_unlock(&uv->trial_lock);
	return secs;
}

/**
 * uv_write_offset() - set the offset of a plane
 * @p: package
 * @plane: plane
 * @mv: offset in millivolts
 *
 * Checks the bounds and the policy, then read-modify-writes the plane and
 * verifies it by reading it back. On models where core and cache are
 * coupled, a write to one of them is applied to both; if the second write
 * fails, the first plane is put back.
 *
 * Return: 0; -ERANGE out of bounds; -EPERM refused by policy or locked
 * firmware; -ENODEV while every CPU of the package is offline; -EIO
 * when the read-back differs; another errno from the mailbox.
 */
int uv_write_offset(struct uv_package *p, enum uv_plane plane, int mv)
{
	enum uv_plane targets[2] = { plane };
	enum uv_block_reason reason;
	int old_mv[2], ret = 0, n = 1, i;

	if (mv < uv_min_offset_mv() || mv > uv_max_offset_mv())
		return -ERANGE;
	if (!capable(CAP_SYS_RAWIO))
		return -EPERM;
	if (READ_ONCE(p->cpu) < 0)
		return -ENODEV;
	reason = uv_block_reason(p);
	if (reason != UV_BLOCK_NONE) {
		/*
		 * The package went offline after the check above: its MSRs
		 * could not be read, which counts as SGX enabled. Not a policy.
		 */
		if (READ_ONCE(p->cpu) < 0)
			return -ENODEV;
		uv_log_refusal(p, plane, reason);
		return -EPERM;
	}

	if (p->uv->model->coupled &&
	    (plane == UV_PLANE_CORE || plane == UV_PLANE_CACHE)) {
		enum uv_plane other = plane == UV_PLANE_CORE ?
				      UV_PLANE_CACHE : UV_PLANE_CORE;

		if (p->planes & BIT(other))
			targets[n++] = other;
	}

	mutex_lock(&p->lock);
	for (i = 0; i < n; i++) {
		ret = uv_write_plane(p, targets[i], mv, &old_mv[i]);
		if (ret)
			break;
	}
	if (ret && i == 1) {
		int dummy;

		if (uv_write_plane(p, targets[0], old_mv[0], &dummy))
			pr_warn("package %02u: could not restore the %s offset to %d mV\n",
				p->id, uv_plane_names[targets[0]], old_mv[0]);
	}
	/* Completion code 1: the firmware locked overclocking; stay read-only. */
	if (ret == -EPERM)
		p->oc_locked = true;
	mutex_unlock(&p->lock);

	if (ret == -EPERM)
		uv_log_refusal(p, plane, UV_BLOCK_OC_LOCK);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		uv_log_change(p, targets[i], old_mv[i], mv);
	uv_trial_changed(p);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(uv_write_offset);

/**
 * DOC: Firmware forgets, the driver remembers
 *
 * The firmware drops voltage offsets across S3 and when all CPUs of a
 * package go offline. The driver keeps, per package and plane, the last
 * offset a write set and the firmware verified, and writes it back:
 *
 * - on resume from suspend and hibernation, before user space thaws: in
 *   a syscore resume callback for the package of the CPU that resumes
 *   (interrupts off, the other CPUs still offline), and from a PM
 *   notifier (PM_POST_SUSPEND, PM_POST_HIBERNATION, PM_POST_RESTORE) for
 *   every package, which covers suspend to idle, where syscore does not
 *   run;
 * - when the first CPU of a package comes back online, from a work item
 *   the CPU hotplug callback queues. Each package has a control CPU; when
 *   it goes offline, another online CPU of the package takes over.
 *
 * A plane is written only when the firmware reports another offset than
 * the remembered one. Each package restore that wrote something adds one
 * to /sys/kernel/debug/intel_undervolt/restores and logs one line. On
 * unload, the driver writes back the offsets the firmware had when the
 * driver bound, on every package.
 */

/**
 * uv_restore_package() - write offsets back where the firmware differs
 * @p: package, its lock held
 * @mv: offset of each plane to write back
 * @why: what caused the restore, for the log line
 *
 * Reads every plane and rewrites, with read-back, those whose offset is
 * not @mv. Logs one line when it wrote any plane.
 *
 * Return: the number of planes written, or a negative errno when a plane
 * could not be read or written (the others are still restored).
 */
int uv_restore_package(struct uv_package *p, const int *mv, const char *why)
{
	unsigned long planes = p->planes;
	char text[160];
	int len = 0, n = 0, err = 0, ret, old;
	unsigned int plane;
	u32 data;

	text[0] = '\0';
	for_each_set_bit(plane, &planes, UV_NR_PLANES) {
		ret = uv_mbox_cmd(p->uv, p->id, UV_CMD_READ_PLANE, plane, 0, &data);
		if (!ret && uv_data_get_offset(data) == mv[plane])
			continue;
		if (!ret)
			ret = uv_write_plane(p, plane, mv[plane], &old);
		if (ret) {
			err = ret;
			continue;
		}
		len += scnprintf(text + len, sizeof(text) - len, " %s %d->%d mV",
				 uv_plane_names[plane], old, mv[plane]);
		n++;
	}
	if (n)
		pr_info("package %02u: %s: restored%s\n", p->id, why, text);
	if (err)
		pr_warn("package %02u: %s: could not restore every offset (%d)\n",
			p->id, why, err);
	return err ? err : n;
}
EXPORT_SYMBOL_IF_KUNIT(uv_restore_package);

/* The caller holds the package lock. */
static void uv_resume_package(struct uv_package *p, const char *why)
{
	if (!READ_ONCE(apply))
		return;
	if (uv_restore_package(p, p->offset_mv, why) > 0)
		atomic_inc(&p->uv->restores);
}

static void uv_restore_work(struct work_struct *work)
{
	struct uv_package *p = container_of(work, struct uv_package,
					    restore_work);

	mutex_lock(&p->lock);
	if (READ_ONCE(p->cpu) >= 0)
		uv_resume_package(p, "package online");
	mutex_unlock(&p->lock);
}

static struct uv_package *uv_cpu_package(struct uv_dev *uv, unsigned int cpu)
{
	unsigned int pkg = topology_logical_package_id(cpu);

	return pkg < uv->nr_pkgs ? uv->pkgs[pkg] : NULL;
}

static int uv_cpu_online(unsigned int cpu)
{
	struct uv_package *p = uv_cpu_package(&uv_dev, cpu);

	/* The first CPU of the package: the firmware may have forgotten. */
	if (p && READ_ONCE(p->cpu) < 0) {
		WRITE_ONCE(p->cpu, cpu);
		schedule_work(&p->restore_work);
	}
	return 0;
}

static int uv_cpu_offline(unsigned int cpu)
{
	struct uv_package *p = uv_cpu_package(&uv_dev, cpu);
	unsigned int next;

	if (!p || READ_ONCE(p->cpu) != cpu)
		return 0;
	next = cpumask_any_but(topology_core_cpumask(cpu), cpu);
	WRITE_ONCE(p->cpu, next < nr_cpu_ids ? (int)next : -1);
	return 0;
}

/* One CPU, interrupts off: nobody else can hold the lock, trylock does not sleep. */
static void uv_syscore_resume(void *data)
{
	struct uv_package *p = uv_cpu_package(data, smp_processor_id());

	if (!p || !mutex_trylock(&p->lock))
		return;
	uv_resume_package(p, "resume");
	mutex_unlock(&p->lock);
}

static const struct syscore_ops uv_syscore_ops = {
	.resume = uv_syscore_resume,
};

static struct syscore uv_syscore = {
	.ops = &uv_syscore_ops,
	.data = &uv_dev,
};

static int uv_pm_notify(struct notifier_block *nb, unsigned long action,
			void *unused)
{
	struct uv_dev *uv = &uv_dev;
	unsigned int i;

	switch (action) {
	case PM_POST_SUSPEND:
	case PM_POST_HIBERNATION:
	case PM_POST_RESTORE:
		for (i = 0; i < uv->nr_pkgs; i++) {
			struct uv_package *p = uv->pkgs[i];

			if (!p || READ_ONCE(p->cpu) < 0)
				continue;
			mutex_lock(&p->lock);
			uv_resume_package(p, "resume");
			mutex_unlock(&p->lock);
		}
		break;
	default:
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block uv_pm_nb = {
	.notifier_call = uv_pm_notify,
};

static void uv_cancel_restores(struct uv_dev *uv)
{
	unsigned int i;

	for (i = 0; i < uv->nr_pkgs; i++)
		if (uv->pkgs[i])
			cancel_work_sync(&uv->pkgs[i]->restore_work);
}

static int uv_lifecycle_init(struct uv_dev *uv)
{
	int ret;

	uv->debugfs = debugfs_create_dir("intel_undervolt", NULL);
	debugfs_create_atomic_t("restores", 0444, uv->debugfs, &uv->restores);

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "platform/intel_undervolt:online",
				uv_cpu_online, uv_cpu_offline);
	if (ret < 0)
		goto remove_debugfs;
	uv->hp_state = ret;
	ret = register_pm_notifier(&uv_pm_nb);
	if (ret)
		goto remove_hp;
	register_syscore(&uv_syscore);
	return 0;

remove_hp:
	cpuhp_remove_state_nocalls(uv->hp_state);
	uv->hp_state = 0;
	uv_cancel_restores(uv);
remove_debugfs:
	debugfs_remove_recursive(uv->debugfs);
	uv->debugfs = NULL;
	return ret;
}

static void uv_lifecycle_exit(struct uv_dev *uv)
{
	if (!uv->hp_state)
		return;
	mutex_lock(&uv->trial_lock);
	uv->trial_closed = true;
	uv->trial_pending = false;
	mutex_unlock(&uv->trial_lock);
	cancel_delayed_work_sync(&uv->trial_work);
	unregister_syscore(&uv_syscore);
	unregister_pm_notifier(&uv_pm_nb);
	cpuhp_remove_state_nocalls(uv->hp_state);
	uv->hp_state = 0;
	uv_cancel_restores(uv);
	debugfs_remove_recursive(uv->debugfs);
	uv->debugfs = NULL;
}

/* Unload: every package gets the offsets it had when the driver bound. */
static void uv_restore_boot_offsets(struct uv_dev *uv)
{
	unsigned int i;

	for (i = 0; i < uv->nr_pkgs; i++) {
		struct uv_package *p = uv->pkgs[i];

		if (!p)
			continue;
		mutex_lock(&p->lock);
		uv_restore_package(p, p->boot_mv, "unload");
		mutex_unlock(&p->lock);
	}
}

/**
 * DOC: Boot-time offsets and the recovery switch
 *
 * The module parameter offsets (intel_undervolt.offsets= on the kernel
 * command line) lists PLANE:MV entries separated by commas, for example
 * "core:-80,cache:-80,gpu:-40". At probe, each entry is applied to every
 * package through uv_write_offset(), the function behind a sysfs write,
 * so the same bounds and policy apply. An entry that does not parse,
 * names an unknown plane or is refused is logged and skipped; the driver
 * binds and the other entries still apply.
 *
 * The recovery switch intel_undervolt.apply=0 makes the driver bind
 * read-only: it applies no boot offsets, write_block_reason reads
 * "recovery" and every write is refused with -EPERM and a log line that
 * names the switch, until root writes 1 to
 * /sys/module/intel_undervolt/parameters/apply. Restores after resume and
 * hotplug are skipped while it is 0.
 */

/**
 * uv_parse_offset_entry() - parse one PLANE:MV entry of the offsets parameter
 * @entry: the entry, NUL-terminated
 * @plane: the plane
 * @mv: the offset in millivolts
 *
 * Return: 0, or -EINVAL when it is not a plane name, a colon and a
 * decimal integer; -ERANGE when the number overflows.
 */
int uv_parse_offset_entry(char *entry, enum uv_plane *plane, int *mv)
{
	char *colon = strchr(entry, ':');
	int i;

	if (!colon)
		return -EINVAL;
	*colon = '\0';
	i = match_string(uv_plane_names, UV_NR_PLANES, entry);
	*colon = ':';
	if (i < 0)
		return -EINVAL;
	*plane = i;
	/* kstrtoint() would accept a trailing newline; an entry has none. */
	if (strchr(colon + 1, '\n'))
		return -EINVAL;
	return uv_parse_mv(colon + 1, mv);
}
EXPORT_SYMBOL_IF_KUNIT(uv_parse_offset_entry);

static void uv_apply_boot_offsets(struct uv_dev *uv)
{
	char *buf, *cur, *entry;
	enum uv_plane plane;
	unsigned int i;
	int mv, ret;

	if (!offsets || !*offsets)
		return;
	if (!READ_ONCE(apply)) {
		pr_info("intel_undervolt.apply=0 (recovery): not applying offsets=%s\n",
			offsets);
		return;
	}
	buf = kstrdup(offsets, GFP_KERNEL);
	if (!buf)
		return;
	cur = buf;
	while ((entry = strsep(&cur, ",")) != NULL) {
		if (!*entry)
			continue;
		ret = uv_parse_offset_entry(entry, &plane, &mv);
		if (ret) {
			pr_warn("offsets: skipping \"%s\": not PLANE:MV with PLANE one of core, gpu, cache, uncore, analogio (%d)\n",
				entry, ret);
			continue;
		}
		for (i = 0; i < uv->nr_pkgs; i++) {
			struct uv_package *p = uv->pkgs[i];

			if (!p)
				continue;
			if (!(p->planes & BIT(plane))) {
				pr_warn("offsets: package %02u: skipping \"%s\": the firmware has no %s plane\n",
					p->id, entry, uv_plane_names[plane]);
				continue;
			}
			ret = uv_write_offset(p, plane, mv);
			if (ret)
				pr_warn("offsets: package %02u: skipping \"%s\": refused (%d)\n",
					p->id, entry, ret);
		}
	}
	kfree(buf);
}

static int uv_probe_package(struct uv_dev *uv, unsigned int id)
{
	struct uv_package *p;
	enum uv_plane plane;
	u32 data;
	int ret;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->uv = uv;
	p->id = id;
	p->cpu = -1;
	mutex_init(&p->lock);
	INIT_WORK(&p->restore_work, uv_restore_work);

	mutex_lock(&p->lock);
	ret = uv_mbox_cmd(uv, id, UV_CMD_GET_CAPS, 0, 0, &data);
	if (ret || !(data & UV_CAP_VOLTAGE_OFFSET)) {
		mutex_unlock(&p->lock);
		pr_info("package %02u: the firmware does not support voltage offsets (%d, capabilities 0x%08x), not binding\n",
			id, ret, ret ? 0 : data);
		kfree(p);
		return -ENODEV;
	}
	for (plane = 0; plane < UV_NR_PLANES; plane++) {
		if (!(uv->model->planes & BIT(plane)))
			continue;
		if (uv_mbox_cmd(uv, id, UV_CMD_READ_PLANE, plane, 0, &data))
			continue;
		p->planes |= BIT(plane);
		p->boot_mv[plane] = uv_data_get_offset(data);
		p->offset_mv[plane] = p->boot_mv[plane];
		p->confirmed_mv[plane] = p->boot_mv[plane];
	}
	mutex_unlock(&p->lock);

	if (!p->planes) {
		pr_info("package %02u: the firmware answers for no voltage plane, not binding\n",
			id);
		kfree(p);
		return -ENODEV;
	}

	/* From here on, the kobject owns p. */
	ret = uv_sysfs_add_package(uv, p);
	if (ret)
		return ret;
	uv->pkgs[id] = p;
	return 0;
}

static int uv_get_ops(struct uv_dev *uv)
{
	const struct uv_msr_access *emu;

	uv->ops = &uv_msr_mbox_ops;
	if (!emulate) {
		uv->ctx = (void *)&uv_native_msrs;
		return 0;
	}
	if (!IS_ENABLED(CONFIG_INTEL_UNDERVOLT_EMULATION)) {
		pr_info("emulate=1 but CONFIG_INTEL_UNDERVOLT_EMULATION is off, not binding\n");
		return -ENODEV;
	}
	/* Loads the module on demand without a link-time dependency on it. */
	emu = symbol_get(intel_undervolt_emu_msrs);
	if (!emu) {
		request_module("intel_undervolt_emu");
		emu = symbol_get(intel_undervolt_emu_msrs);
	}
	if (!emu) {
		pr_info("emulate=1 but module intel_undervolt_emu is not available, not binding\n");
		return -ENODEV;
	}
	uv->ctx = (void *)emu;
	return 0;
}

static void uv_put_ops(void)
{
	if (emulate)
		symbol_put(intel_undervolt_emu_msrs);
}

/*
 * Probe failure and unload: no sysfs access, then no lifecycle event,
 * then the boot offsets back, then free.
 */
static void uv_cleanup(struct uv_dev *uv)
{
	uv_sysfs_remove(uv);
	uv_lifecycle_exit(uv);
	uv_restore_boot_offsets(uv);
	uv_sysfs_exit(uv);
	kfree(uv->pkgs);
	uv->pkgs = NULL;
	uv_put_ops();
}

static int __init uv_init(void)
{
	const struct x86_cpu_id *id;
	struct uv_dev *uv = &uv_dev;
	unsigned long *present;
	unsigned int cpu, pkg;
	int ret;

	id = x86_match_cpu(uv_cpu_ids);
	if (!emulate) {
		if (!id) {
			pr_info("CPU model not known to have the voltage offset mailbox, not binding\n");
			return -ENODEV;
		}
		if (boot_cpu_has(X86_FEATURE_HYPERVISOR)) {
			pr_info("running under a hypervisor, not binding\n");
			return -ENODEV;
		}
	}
	uv->model = id ? (const struct uv_model *)id->driver_data :
			 &uv_model_uncoupled;
	/* The emulated CPU reports SGX: its FEAT_CTL decides. */
	uv->cpu_has_sgx = emulate || (boot_cpu_data.cpuid_level >= 7 &&
				      (cpuid_ebx(7) & BIT(2)));

	mutex_init(&uv->trial_lock);
	INIT_DELAYED_WORK(&uv->trial_work, uv_trial_expired);
	ret = uv_get_ops(uv);
	if (ret)
		return ret;

	uv->nr_pkgs = topology_max_packages();
	uv->pkgs = kcalloc(uv->nr_pkgs, sizeof(*uv->pkgs), GFP_KERNEL);
	if (!uv->pkgs) {
		ret = -ENOMEM;
		goto put_ops;
	}
	ret = uv_sysfs_init(uv);
	if (ret)
		goto free_pkgs;

	present = bitmap_zalloc(uv->nr_pkgs, GFP_KERNEL);
	if (!present) {
		ret = -ENOMEM;
		goto cleanup;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		pkg = topology_logical_package_id(cpu);
		if (pkg < uv->nr_pkgs)
			__set_bit(pkg, present);
	}
	cpus_read_unlock();
	for_each_set_bit(pkg, present, uv->nr_pkgs) {
		ret = uv_probe_package(uv, pkg);
		if (ret)
			break;
	}
	bitmap_free(present);
	if (ret)
		goto cleanup;
	ret = uv_lifecycle_init(uv);
	if (ret)
		goto cleanup;
	uv_apply_boot_offsets(uv);

	pr_info("voltage offset control ready%s, core and cache %s\n",
		emulate ? " on the emulated firmware" : "",
		uv->model->coupled ? "coupled" : "independent");
	return 0;

cleanup:
	uv_cleanup(uv);
	return ret;
free_pkgs:
	kfree(uv->pkgs);
	uv->pkgs = NULL;
put_ops:
	uv_put_ops();
	return ret;
}
module_init(uv_init);

static void __exit uv_exit(void)
{
	uv_cleanup(&uv_dev);
}
module_exit(uv_exit);

MODULE_DESCRIPTION("Intel CPU voltage offset control through the OC mailbox");
MODULE_AUTHOR("The linux-undervolt authors");
MODULE_LICENSE("GPL");
