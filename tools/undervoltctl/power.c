// SPDX-License-Identifier: GPL-2.0
/*
 * power.c: which power source the machine runs on, for the [ac] and
 * [battery] sections of undervolt.conf(5).
 *
 * From /sys/class/power_supply: on AC when a mains supply, or a USB one (a
 * USB-C charger), is online; on battery when there is a battery and no
 * such supply is online; on AC when there is no battery at all (a
 * desktop). Supplies whose scope is "Device" power a peripheral (a
 * Bluetooth mouse, a keyboard, a game pad), not this machine: a desktop
 * with a wireless mouse is not on battery, so they are left out. The udev
 * rule runs apply again on each change of a mains or USB supply.
 */
#include <dirent.h>
#include <string.h>

#include "undervoltctl.h"

enum power_source power_source(const struct uv_sysfs *s)
{
	char dir[PATH_MAX], path[PATH_MAX], type[32], scope[32];
	bool battery = false, online = false;
	struct dirent *de;
	long v;
	DIR *d;

	if (uv_path(dir, sizeof(dir), "%s/class/power_supply", s->root))
		return SOURCE_AC;
	d = opendir(dir);
	if (!d)
		return SOURCE_AC;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    uv_path(path, sizeof(path), "%s/%s/type", dir, de->d_name) ||
		    sysfs_read_word(path, type, sizeof(type)))
			continue;
		if (!uv_path(path, sizeof(path), "%s/%s/scope", dir,
			     de->d_name) &&
		    !sysfs_read_word(path, scope, sizeof(scope)) &&
		    strcmp(scope, "Device") == 0)
			continue;
		if (strcmp(type, "Battery") == 0) {
			battery = true;
			continue;
		}
		if (strcmp(type, "Mains") != 0 && strcmp(type, "USB") != 0)
			continue;
		if (!uv_path(path, sizeof(path), "%s/%s/online", dir,
			     de->d_name) &&
		    !sysfs_read_long(path, &v) && v > 0)
			online = true;
	}
	closedir(d);
	return online || !battery ? SOURCE_AC : SOURCE_BATTERY;
}
