// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel CPU voltage offset control: sysfs interface
 *
 * Copyright (c) 2026 The linux-undervolt authors
 */

#include <linux/cpu.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <kunit/visibility.h>

#include "undervolt.h"

/**
 * DOC: sysfs interface
 *
 * /sys/devices/system/cpu/intel_undervolt/ holds min_offset_mv and
 * max_offset_mv, the bounds in force, and one directory package_NN per
 * CPU package. A package directory holds, for each plane the firmware
 * answers for, <plane>_offset_mv (read: the offset the firmware reports
 * now; write: a new offset) and <plane>_boot_offset_mv (the offset when
 * the driver bound), and write_block_reason. Values are decimal integer
 * millivolts; a write accepts exactly one trailing newline and nothing
 * else around the number.
 */

struct uv_plane_attr {
	struct kobj_attribute attr;
	enum uv_plane plane;
};

#define to_uv_package(k)	container_of(k, struct uv_package, kobj)
#define to_uv_plane(a)		container_of(a, struct uv_plane_attr, attr)->plane

/**
 * uv_parse_mv() - parse an offset written to sysfs
 * @buf: NUL-terminated text
 * @mv: the value
 *
 * Accepts a decimal integer with an optional sign and one trailing
 * newline.
 *
 * Return: 0, -EINVAL for anything else, -ERANGE when it overflows an int.
 */
int uv_parse_mv(const char *buf, int *mv)
{
	return kstrtoint(buf, 10, mv);
}
EXPORT_SYMBOL_IF_KUNIT(uv_parse_mv);

/*
 * The text reaches a store NUL-terminated after @count bytes; a NUL byte
 * inside would hide what follows it from the parser ("-5\0junk").
 */
static bool uv_has_nul(const char *buf, size_t count)
{
	return strnlen(buf, count) != count;
}

static ssize_t offset_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	int mv, ret;

	ret = uv_read_offset(to_uv_package(kobj), to_uv_plane(attr), &mv);
	return ret ? ret : sysfs_emit(buf, "%d\n", mv);
}

static ssize_t offset_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	int mv, ret;

	if (uv_has_nul(buf, count))
		return -EINVAL;
	ret = uv_parse_mv(buf, &mv);
	if (ret)
		return ret;
	ret = uv_write_offset(to_uv_package(kobj), to_uv_plane(attr), mv);
	return ret ? ret : count;
}

static ssize_t boot_offset_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct uv_package *p = to_uv_package(kobj);

	return sysfs_emit(buf, "%d\n", p->boot_mv[to_uv_plane(attr)]);
}

#define UV_PLANE_ATTR(_var, _attr, _plane)				\
	static struct uv_plane_attr _var = { .attr = _attr, .plane = _plane }

UV_PLANE_ATTR(uv_attr_core_offset,
	      __ATTR(core_offset_mv, 0644, offset_show, offset_store),
	      UV_PLANE_CORE);
UV_PLANE_ATTR(uv_attr_core_boot_offset,
	      __ATTR(core_boot_offset_mv, 0444, boot_offset_show, NULL),
	      UV_PLANE_CORE);
UV_PLANE_ATTR(uv_attr_gpu_offset,
	      __ATTR(gpu_offset_mv, 0644, offset_show, offset_store),
	      UV_PLANE_GPU);
UV_PLANE_ATTR(uv_attr_gpu_boot_offset,
	      __ATTR(gpu_boot_offset_mv, 0444, boot_offset_show, NULL),
	      UV_PLANE_GPU);
UV_PLANE_ATTR(uv_attr_cache_offset,
	      __ATTR(cache_offset_mv, 0644, offset_show, offset_store),
	      UV_PLANE_CACHE);
UV_PLANE_ATTR(uv_attr_cache_boot_offset,
	      __ATTR(cache_boot_offset_mv, 0444, boot_offset_show, NULL),
	      UV_PLANE_CACHE);
UV_PLANE_ATTR(uv_attr_uncore_offset,
	      __ATTR(uncore_offset_mv, 0644, offset_show, offset_store),
	      UV_PLANE_UNCORE);
UV_PLANE_ATTR(uv_attr_uncore_boot_offset,
	      __ATTR(uncore_boot_offset_mv, 0444, boot_offset_show, NULL),
	      UV_PLANE_UNCORE);
UV_PLANE_ATTR(uv_attr_analogio_offset,
	      __ATTR(analogio_offset_mv, 0644, offset_show, offset_store),
	      UV_PLANE_ANALOGIO);
UV_PLANE_ATTR(uv_attr_analogio_boot_offset,
	      __ATTR(analogio_boot_offset_mv, 0444, boot_offset_show, NULL),
	      UV_PLANE_ANALOGIO);

static ssize_t write_block_reason_show(struct kobject *kobj,
				       struct kobj_attribute *attr, char *buf)
{
	enum uv_block_reason reason = uv_block_reason(to_uv_package(kobj));

	return sysfs_emit(buf, "%s\n", uv_block_reason_name(reason));
}

static struct kobj_attribute uv_attr_write_block_reason =
	__ATTR_RO(write_block_reason);

static struct attribute *uv_package_attrs[] = {
	&uv_attr_core_offset.attr.attr,
	&uv_attr_core_boot_offset.attr.attr,
	&uv_attr_gpu_offset.attr.attr,
	&uv_attr_gpu_boot_offset.attr.attr,
	&uv_attr_cache_offset.attr.attr,
	&uv_attr_cache_boot_offset.attr.attr,
	&uv_attr_uncore_offset.attr.attr,
	&uv_attr_uncore_boot_offset.attr.attr,
	&uv_attr_analogio_offset.attr.attr,
	&uv_attr_analogio_boot_offset.attr.attr,
	&uv_attr_write_block_reason.attr,
	NULL
};

static umode_t uv_package_attr_visible(struct kobject *kobj,
				       struct attribute *a, int n)
{
	struct kobj_attribute *attr = container_of(a, struct kobj_attribute, attr);
	struct uv_package *p = to_uv_package(kobj);

	if (attr == &uv_attr_write_block_reason)
		return a->mode;
	return p->planes & BIT(to_uv_plane(attr)) ? a->mode : 0;
}

static const struct attribute_group uv_package_group = {
	.attrs = uv_package_attrs,
	.is_visible = uv_package_attr_visible,
};
__ATTRIBUTE_GROUPS(uv_package);

static void uv_package_release(struct kobject *kobj)
{
	struct uv_package *p = to_uv_package(kobj);

	mutex_destroy(&p->lock);
	kfree(p);
}

static const struct kobj_type uv_package_ktype = {
	.release = uv_package_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = uv_package_groups,
};

static ssize_t min_offset_mv_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", uv_min_offset_mv());
}

static struct kobj_attribute uv_attr_min_offset_mv = __ATTR_RO(min_offset_mv);

static ssize_t max_offset_mv_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", uv_max_offset_mv());
}

static struct kobj_attribute uv_attr_max_offset_mv = __ATTR_RO(max_offset_mv);

static ssize_t confirm_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	unsigned int val;
	int ret;

	if (uv_has_nul(buf, count))
		return -EINVAL;
	ret = kstrtouint(buf, 10, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;
	uv_trial_confirm();
	return count;
}

static struct kobj_attribute uv_attr_confirm = __ATTR_WO(confirm);

static ssize_t trial_remaining_s_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", uv_trial_remaining_s());
}

static struct kobj_attribute uv_attr_trial_remaining_s =
	__ATTR_RO(trial_remaining_s);

static struct attribute *uv_root_attrs[] = {
	&uv_attr_min_offset_mv.attr,
	&uv_attr_max_offset_mv.attr,
	&uv_attr_confirm.attr,
	&uv_attr_trial_remaining_s.attr,
	NULL
};

static const struct attribute_group uv_root_group = {
	.attrs = uv_root_attrs,
};

/**
 * uv_sysfs_init() - create /sys/devices/system/cpu/intel_undervolt
 * @uv: driver instance
 *
 * Return: 0 or a negative errno.
 */
int uv_sysfs_init(struct uv_dev *uv)
{
	struct device *dev_root;
	int ret;

	dev_root = bus_get_dev_root(&cpu_subsys);
	if (!dev_root)
		return -ENODEV;
	uv->root = kobject_create_and_add("intel_undervolt", &dev_root->kobj);
	put_device(dev_root);
	if (!uv->root)
		return -ENOMEM;
	ret = sysfs_create_group(uv->root, &uv_root_group);
	if (ret) {
		kobject_put(uv->root);
		uv->root = NULL;
	}
	return ret;
}

/**
 * uv_sysfs_add_package() - create package_NN
 * @uv: driver instance
 * @p: package; on failure too, its kobject owns it from now on
 *
 * Return: 0 or a negative errno.
 */
int uv_sysfs_add_package(struct uv_dev *uv, struct uv_package *p)
{
	int ret;

	ret = kobject_init_and_add(&p->kobj, &uv_package_ktype, uv->root,
				   "package_%02u", p->id);
	if (ret)
		kobject_put(&p->kobj);
	return ret;
}

/**
 * uv_sysfs_remove() - remove every sysfs file, keep the packages
 * @uv: driver instance
 *
 * Waits for the reads and writes in progress; none starts afterwards.
 */
void uv_sysfs_remove(struct uv_dev *uv)
{
	unsigned int i;

	for (i = 0; i < uv->nr_pkgs; i++)
		if (uv->pkgs[i] && uv->pkgs[i]->kobj.state_in_sysfs)
			kobject_del(&uv->pkgs[i]->kobj);
	if (uv->root)
		sysfs_remove_group(uv->root, &uv_root_group);
}

/**
 * uv_sysfs_exit() - remove the sysfs directories and free the packages
 * @uv: driver instance
 */
void uv_sysfs_exit(struct uv_dev *uv)
{
	unsigned int i;

	uv_sysfs_remove(uv);
	for (i = 0; i < uv->nr_pkgs; i++) {
		if (uv->pkgs[i])
			kobject_put(&uv->pkgs[i]->kobj);
		uv->pkgs[i] = NULL;
	}
	kobject_put(uv->root);
	uv->root = NULL;
}
