// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel CPU voltage offset control: emulated OC mailbox firmware (testing)
 *
 * Copyright (c) 2026 The linux-undervolt authors
 */

#include <linux/bitfield.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/suspend.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <asm/msr.h>

#include "undervolt.h"

/**
 * DOC: Emulated firmware
 *
 * Module intel_undervolt_emu models the MSRs the driver uses: the OC
 * mailbox (0x150) with its busy bit, completion codes, capability command
 * and the data words of five planes; MSR 0x194 with the OC lock in bit
 * 20; and MSR_IA32_FEAT_CTL with the SGX enable in bit 18. All packages
 * share one model. intel_undervolt loaded with emulate=1 gets the
 * accessors with symbol_request(), which loads this module on demand and
 * lets it outlive the driver. It is steered through
 * /sys/kernel/debug/intel_undervolt_emu/:
 *
 * - log: every word written to MSR 0x150, "0x%016llx" per line, oldest
 *   first (the last UV_EMU_LOG_LEN); writing anything clears it.
 * - plane0 ... plane4: the current data word of each plane, "0x%08x";
 *   writable.
 * - fault: "none"; a completion code in decimal, returned by the next
 *   command only; "CODE write PLANE", completion code CODE returned by the
 *   next write to plane PLANE only (reads and other planes pass, so a
 *   failure can be aimed at the middle of a multi-plane change); "busy",
 *   the busy bit never clears (until "none" is written); "drop", writes
 *   are acknowledged with success but ignored.
 * - oc_lock, sgx: 0 or 1.
 * - forget: 1 (the default) or 0. With 1, the firmware forgets, as real
 *   firmware does: every plane goes back to its data word at load time
 *   when the system prepares to suspend or hibernate (PM notifier
 *   PM_SUSPEND_PREPARE, PM_HIBERNATION_PREPARE, so suspend to idle and
 *   every pm_test level see it) and when the last online CPU of a
 *   package goes offline.
 */

#define UV_EMU_LOG_LEN		4096
#define UV_EMU_CC_UNKNOWN	0x1f

enum uv_emu_fault {
	UV_EMU_FAULT_NONE,
	UV_EMU_FAULT_CODE,
	UV_EMU_FAULT_WRITE_CODE,
	UV_EMU_FAULT_BUSY,
	UV_EMU_FAULT_DROP,
};

static DEFINE_SPINLOCK(uv_emu_lock);
static u64 uv_emu_mailbox;
/* Max ratio in 7:0 and a voltage target in 19:8, offset 0. */
static u32 uv_emu_planes[UV_NR_PLANES] = {
	[UV_PLANE_CORE] = 0x0004cd2c,
	[UV_PLANE_GPU] = 0x00048c16,
	[UV_PLANE_CACHE] = 0x0004cd28,
	[UV_PLANE_UNCORE] = 0x00043312,
	[UV_PLANE_ANALOGIO] = 0x00040001,
};

static u32 uv_emu_boot_planes[UV_NR_PLANES];
static u64 uv_emu_forget = 1;
static int uv_emu_hp_state;

static enum uv_emu_fault uv_emu_fault;
static u8 uv_emu_fault_code;
static unsigned int uv_emu_fault_plane;
static u64 uv_emu_oc_lock;
static u64 uv_emu_sgx;
static u64 uv_emu_log[UV_EMU_LOG_LEN];
static unsigned int uv_emu_log_head, uv_emu_log_count;
static struct dentry *uv_emu_dir;

static void uv_emu_log_word(u64 val)
{
	uv_emu_log[(uv_emu_log_head + uv_emu_log_count) % UV_EMU_LOG_LEN] = val;
	if (uv_emu_log_count < UV_EMU_LOG_LEN)
		uv_emu_log_count++;
	else
		uv_emu_log_head = (uv_emu_log_head + 1) % UV_EMU_LOG_LEN;
}

/* The firmware's answer to a command word; uv_emu_lock is held. */
static u64 uv_emu_command(u64 cmd)
{
	unsigned int plane = FIELD_GET(UV_MBOX_PLANE, cmd);
	u32 data = FIELD_GET(UV_MBOX_DATA, cmd);
	u8 code = UV_CC_SUCCESS;

	if (uv_emu_fault == UV_EMU_FAULT_CODE ||
	    (uv_emu_fault == UV_EMU_FAULT_WRITE_CODE &&
	     FIELD_GET(UV_MBOX_CMD, cmd) == UV_CMD_WRITE_PLANE &&
	     plane == uv_emu_fault_plane)) {
		uv_emu_fault = UV_EMU_FAULT_NONE;
		code = uv_emu_fault_code;
		data = 0;
		goto out;
	}

	switch (FIELD_GET(UV_MBOX_CMD, cmd)) {
	case UV_CMD_GET_CAPS:
		data = UV_CAP_RATIO | UV_CAP_VOLTAGE_OVERRIDE |
		       UV_CAP_VOLTAGE_OFFSET;
		break;
	case UV_CMD_READ_PLANE:
		if (plane >= UV_NR_PLANES) {
			code = UV_CC_INVALID_DOMAIN;
			data = 0;
			break;
		}
		data = uv_emu_planes[plane];
		break;
	case UV_CMD_WRITE_PLANE:
		if (plane >= UV_NR_PLANES)
			code = UV_CC_INVALID_DOMAIN;
		else if (uv_emu_oc_lock)
			code = UV_CC_OC_LOCKED;
		else if (uv_emu_fault != UV_EMU_FAULT_DROP)
			uv_emu_planes[plane] = data;
		break;
	default:
		code = UV_EMU_CC_UNKNOWN;
		data = 0;
		break;
	}
out:
	return (cmd & UV_MBOX_PLANE) | FIELD_PREP(UV_MBOX_CMD, code) |
	       FIELD_PREP(UV_MBOX_DATA, data);
}

static int uv_emu_rdmsr(u32 msr, u64 *val)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&uv_emu_lock, flags);
	switch (msr) {
	case MSR_IA32_OC_MAILBOX:
		*val = uv_emu_mailbox;
		break;
	case UV_MSR_FLEX_RATIO:
		*val = uv_emu_oc_lock ? UV_FLEX_RATIO_OC_LOCK : 0;
		break;
	case MSR_IA32_FEAT_CTL:
		*val = FEAT_CTL_LOCKED | (uv_emu_sgx ? FEAT_CTL_SGX_ENABLED : 0);
		break;
	default:
		ret = -EIO;
		break;
	}
	spin_unlock_irqrestore(&uv_emu_lock, flags);
	return ret;
}

static int uv_emu_wrmsr(u32 msr, u64 val)
{
	unsigned long flags;

	if (msr != MSR_IA32_OC_MAILBOX)
		return -EIO;

	spin_lock_irqsave(&uv_emu_lock, flags);
	uv_emu_log_word(val);
	if (!(val & UV_MBOX_BUSY) || uv_emu_fault == UV_EMU_FAULT_BUSY)
		uv_emu_mailbox = val;
	else
		uv_emu_mailbox = uv_emu_command(val);
	spin_unlock_irqrestore(&uv_emu_lock, flags);
	return 0;
}

const struct uv_msr_access intel_undervolt_emu_msrs = {
	.read = uv_emu_rdmsr,
	.write = uv_emu_wrmsr,
};
EXPORT_SYMBOL_GPL(intel_undervolt_emu_msrs);

static int uv_emu_log_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	spin_lock_irq(&uv_emu_lock);
	for (i = 0; i < uv_emu_log_count; i++)
		seq_printf(m, "0x%016llx\n",
			   uv_emu_log[(uv_emu_log_head + i) % UV_EMU_LOG_LEN]);
	spin_unlock_irq(&uv_emu_lock);
	return 0;
}

static int uv_emu_log_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, uv_emu_log_show, NULL,
				UV_EMU_LOG_LEN * sizeof("0x0123456789abcdef\n"));
}

static ssize_t uv_emu_log_write(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	spin_lock_irq(&uv_emu_lock);
	uv_emu_log_head = 0;
	uv_emu_log_count = 0;
	spin_unlock_irq(&uv_emu_lock);
	return count;
}

static const struct file_operations uv_emu_log_fops = {
	.owner = THIS_MODULE,
	.open = uv_emu_log_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = uv_emu_log_write,
	.release = single_release,
};

static int uv_emu_plane_get(void *data, u64 *val)
{
	spin_lock_irq(&uv_emu_lock);
	*val = *(u32 *)data;
	spin_unlock_irq(&uv_emu_lock);
	return 0;
}

static int uv_emu_plane_set(void *data, u64 val)
{
	if (val > U32_MAX)
		return -ERANGE;
	spin_lock_irq(&uv_emu_lock);
	*(u32 *)data = val;
	spin_unlock_irq(&uv_emu_lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(uv_emu_plane_fops, uv_emu_plane_get, uv_emu_plane_set,
			 "0x%08llx\n");

static int uv_emu_flag_get(void *data, u64 *val)
{
	*val = READ_ONCE(*(u64 *)data);
	return 0;
}

static int uv_emu_flag_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	WRITE_ONCE(*(u64 *)data, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(uv_emu_flag_fops, uv_emu_flag_get, uv_emu_flag_set,
			 "%llu\n");

static ssize_t uv_emu_fault_read(struct file *file, char __user *buf,
				 size_t count, loff_t *ppos)
{
	char text[24];
	int len;

	spin_lock_irq(&uv_emu_lock);
	switch (uv_emu_fault) {
	case UV_EMU_FAULT_CODE:
		len = scnprintf(text, sizeof(text), "%u\n", uv_emu_fault_code);
		break;
	case UV_EMU_FAULT_WRITE_CODE:
		len = scnprintf(text, sizeof(text), "%u write %u\n",
				uv_emu_fault_code, uv_emu_fault_plane);
		break;
	case UV_EMU_FAULT_BUSY:
		len = scnprintf(text, sizeof(text), "busy\n");
		break;
	case UV_EMU_FAULT_DROP:
		len = scnprintf(text, sizeof(text), "drop\n");
		break;
	default:
		len = scnprintf(text, sizeof(text), "none\n");
		break;
	}
	spin_unlock_irq(&uv_emu_lock);
	return simple_read_from_buffer(buf, count, ppos, text, len);
}

static ssize_t uv_emu_fault_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	enum uv_emu_fault fault;
	unsigned int plane = 0;
	char text[24];
	u8 code = 0;
	ssize_t len;

	len = simple_write_to_buffer(text, sizeof(text) - 1, ppos, ubuf, count);
	if (len < 0)
		return len;
	text[len] = '\0';

	if (sysfs_streq(text, "none"))
		fault = UV_EMU_FAULT_NONE;
	else if (sysfs_streq(text, "busy"))
		fault = UV_EMU_FAULT_BUSY;
	else if (sysfs_streq(text, "drop"))
		fault = UV_EMU_FAULT_DROP;
	else if (!kstrtou8(text, 10, &code))
		fault = UV_EMU_FAULT_CODE;
	else if (sscanf(text, "%hhu write %u", &code, &plane) == 2 &&
		 plane < UV_NR_PLANES)
		fault = UV_EMU_FAULT_WRITE_CODE;
	else
		return -EINVAL;

	spin_lock_irq(&uv_emu_lock);
	/* Leaving "busy": the firmware finishes the stuck command. */
	if (uv_emu_fault == UV_EMU_FAULT_BUSY && fault != UV_EMU_FAULT_BUSY)
		uv_emu_mailbox &= ~UV_MBOX_BUSY;
	uv_emu_fault = fault;
	uv_emu_fault_code = code;
	uv_emu_fault_plane = plane;
	spin_unlock_irq(&uv_emu_lock);
	return count;
}

static const struct file_operations uv_emu_fault_fops = {
	.owner = THIS_MODULE,
	.read = uv_emu_fault_read,
	.write = uv_emu_fault_write,
	.llseek = default_llseek,
};

/* The firmware forgets: every plane back to its word at load time. */
static void uv_emu_reset_planes(const char *why)
{
	if (!READ_ONCE(uv_emu_forget))
		return;
	spin_lock_irq(&uv_emu_lock);
	memcpy(uv_emu_planes, uv_emu_boot_planes, sizeof(uv_emu_planes));
	spin_unlock_irq(&uv_emu_lock);
	pr_info("intel_undervolt_emu: %s: planes reset to their boot words\n", why);
}

static int uv_emu_pm_notify(struct notifier_block *nb, unsigned long action,
			    void *unused)
{
	if (action == PM_SUSPEND_PREPARE || action == PM_HIBERNATION_PREPARE)
		uv_emu_reset_planes("suspend");
	return NOTIFY_OK;
}

static struct notifier_block uv_emu_pm_nb = {
	.notifier_call = uv_emu_pm_notify,
};

static int uv_emu_cpu_offline(unsigned int cpu)
{
	if (cpumask_any_but(topology_core_cpumask(cpu), cpu) >= nr_cpu_ids)
		uv_emu_reset_planes("package offline");
	return 0;
}

static int __init uv_emu_init(void)
{
	char name[8];
	int i, ret;

	memcpy(uv_emu_boot_planes, uv_emu_planes, sizeof(uv_emu_planes));
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					"platform/intel_undervolt_emu:online",
					NULL, uv_emu_cpu_offline);
	if (ret < 0)
		return ret;
	uv_emu_hp_state = ret;
	ret = register_pm_notifier(&uv_emu_pm_nb);
	if (ret) {
		cpuhp_remove_state_nocalls(uv_emu_hp_state);
		return ret;
	}

	uv_emu_dir = debugfs_create_dir("intel_undervolt_emu", NULL);
	debugfs_create_file("log", 0644, uv_emu_dir, NULL, &uv_emu_log_fops);
	for (i = 0; i < UV_NR_PLANES; i++) {
		snprintf(name, sizeof(name), "plane%d", i);
		debugfs_create_file_unsafe(name, 0644, uv_emu_dir,
					   &uv_emu_planes[i], &uv_emu_plane_fops);
	}
	debugfs_create_file("fault", 0644, uv_emu_dir, NULL, &uv_emu_fault_fops);
	debugfs_create_file_unsafe("oc_lock", 0644, uv_emu_dir, &uv_emu_oc_lock,
				   &uv_emu_flag_fops);
	debugfs_create_file_unsafe("sgx", 0644, uv_emu_dir, &uv_emu_sgx,
				   &uv_emu_flag_fops);
	debugfs_create_file_unsafe("forget", 0644, uv_emu_dir, &uv_emu_forget,
				   &uv_emu_flag_fops);
	pr_info("intel_undervolt_emu: emulated OC mailbox firmware loaded, for testing only\n");
	return 0;
}
module_init(uv_emu_init);

static void __exit uv_emu_exit(void)
{
	debugfs_remove_recursive(uv_emu_dir);
	unregister_pm_notifier(&uv_emu_pm_nb);
	cpuhp_remove_state_nocalls(uv_emu_hp_state);
}
module_exit(uv_emu_exit);

MODULE_DESCRIPTION("Emulated OC mailbox firmware for testing intel_undervolt");
MODULE_AUTHOR("The linux-undervolt authors");
MODULE_LICENSE("GPL");
