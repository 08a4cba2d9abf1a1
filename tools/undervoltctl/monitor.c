// SPDX-License-Identifier: GPL-2.0
/*
 * monitor.c: the monitor verb. Once per interval, print package power from
 * the RAPL energy counters, temperatures from coretemp, each CPU's
 * frequency from cpufreq and the current offsets. A source that is not
 * there is printed as missing; nothing is estimated.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "undervoltctl.h"

#define MAX_ZONES 16
#define MAX_IDS 1024
#define CPUS_PER_LINE 8

struct zone {
	unsigned int id;
	char name[32];
	long energy;		/* uJ at the previous sample, -errno if none */
	long range;		/* max_energy_range_uj, 0 if unknown */
};

struct monitor {
	char powercap[PATH_MAX];
	char hwmon[PATH_MAX];
	char cpus[PATH_MAX];
	size_t nzones;
	struct zone zone[MAX_ZONES];
	double last;		/* CLOCK_MONOTONIC of the previous sample */
};

struct id_list {
	size_t n;
	unsigned int id[MAX_IDS];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The N of every entry of DIR named PREFIX, N in decimal, then SUFFIX. */
static void list_ids(const char *dir, const char *prefix, const char *suffix,
		     struct id_list *list)
{
	size_t plen = strlen(prefix), i;
	struct dirent *de;
	unsigned long v;
	char *end;
	DIR *d;

	list->n = 0;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL && list->n < MAX_IDS) {
		if (strncmp(de->d_name, prefix, plen) != 0 ||
		    de->d_name[plen] < '0' || de->d_name[plen] > '9')
			continue;
		errno = 0;
		v = strtoul(de->d_name + plen, &end, 10);
		if (strcmp(end, suffix) != 0 || errno || v > 1000000)
			continue;
		for (i = list->n; i > 0 && list->id[i - 1] > v; i--)
			list->id[i] = list->id[i - 1];
		list->id[i] = (unsigned int)v;
		list->n++;
	}
	closedir(d);
}

static long read_energy(const struct monitor *m, const struct zone *z,
			const char *file)
{
	char path[PATH_MAX];
	long v;
	int r;

	if (uv_path(path, sizeof(path), "%s/intel-rapl:%u/%s", m->powercap,
		    z->id, file))
		return -ENAMETOOLONG;
	r = sysfs_read_long(path, &v);
	return r ? r : v;
}

static void zones_init(struct monitor *m)
{
	char path[PATH_MAX];
	struct id_list *ids;
	size_t i;

	m->nzones = 0;
	ids = malloc(sizeof(*ids));
	if (!ids)
		return;
	list_ids(m->powercap, "intel-rapl:", "", ids);
	for (i = 0; i < ids->n && m->nzones < MAX_ZONES; i++) {
		struct zone *z = &m->zone[m->nzones++];

		z->id = ids->id[i];
		if (uv_path(path, sizeof(path), "%s/intel-rapl:%u/name",
			    m->powercap, z->id) ||
		    sysfs_read_word(path, z->name, sizeof(z->name)))
			snprintf(z->name, sizeof(z->name), "intel-rapl:%u",
				 z->id);
		z->energy = read_energy(m, z, "energy_uj");
		z->range = read_energy(m, z, "max_energy_range_uj");
		if (z->range < 0)
			z->range = 0;
	}
	free(ids);
	m->last = now();
}

static void print_power(struct monitor *m, double t)
{
	size_t i;

	printf("  power   ");
	if (m->nzones == 0)
		printf(" missing (no %s/intel-rapl:N)", m->powercap);
	for (i = 0; i < m->nzones; i++) {
		struct zone *z = &m->zone[i];
		long e = read_energy(m, z, "energy_uj");
		long delta;

		printf(" %s ", z->name);
		if (e < 0 || z->energy < 0) {
			printf(e == -EACCES ? "unreadable (run as root)" :
			       "missing");
		} else {
			delta = e - z->energy;
			if (delta < 0)		/* the counter wrapped */
				delta += z->range;
			printf("%.1f W", t > m->last ?
			       (double)delta / 1e6 / (t - m->last) : 0.0);
		}
		z->energy = e;
	}
	putchar('\n');
}

static void print_temps(const struct monitor *m)
{
	char path[PATH_MAX], name[32], label[64];
	struct id_list *hw, *t;
	size_t i, j, shown = 0;
	long v;

	hw = malloc(sizeof(*hw));
	t = malloc(sizeof(*t));
	printf("  temp    ");
	for (i = 0; hw && t && (list_ids(m->hwmon, "hwmon", "", hw), i < hw->n);
	     i++) {
		if (uv_path(path, sizeof(path), "%s/hwmon%u/name", m->hwmon,
			    hw->id[i]) ||
		    sysfs_read_word(path, name, sizeof(name)) ||
		    strcmp(name, "coretemp") != 0)
			continue;
		if (uv_path(path, sizeof(path), "%s/hwmon%u", m->hwmon,
			    hw->id[i]))
			continue;
		list_ids(path, "temp", "_input", t);
		for (j = 0; j < t->n; j++) {
			if (uv_path(path, sizeof(path),
				    "%s/hwmon%u/temp%u_input", m->hwmon,
				    hw->id[i], t->id[j]) ||
			    sysfs_read_long(path, &v))
				continue;
			if (uv_path(path, sizeof(path),
				    "%s/hwmon%u/temp%u_label", m->hwmon,
				    hw->id[i], t->id[j]) ||
			    sysfs_read_word(path, label, sizeof(label)))
				snprintf(label, sizeof(label), "temp%u",
					 t->id[j]);
			if (shown && shown % 4 == 0)
				printf("\n          ");
			else if (shown)
				putchar(',');
			printf(" %s %ld C", label, v / 1000);
			shown++;
		}
	}
	if (!shown)
		printf(" missing (no coretemp in %s)", m->hwmon);
	putchar('\n');
	free(t);
	free(hw);
}

static void print_freqs(const struct monitor *m)
{
	char path[PATH_MAX];
	struct id_list *cpus;
	size_t i, shown = 0;
	long khz;

	cpus = malloc(sizeof(*cpus));
	printf("  MHz     ");
	if (cpus)
		list_ids(m->cpus, "cpu", "", cpus);
	for (i = 0; cpus && i < cpus->n; i++) {
		if (uv_path(path, sizeof(path),
			    "%s/cpu%u/cpufreq/scaling_cur_freq", m->cpus,
			    cpus->id[i]) ||
		    sysfs_read_long(path, &khz))
			continue;
		if (shown && shown % CPUS_PER_LINE == 0)
			printf("\n          ");
		printf(" cpu%u %ld", cpus->id[i], khz / 1000);
		shown++;
	}
	if (!shown)
		printf(" missing (no cpufreq in %s/cpuN)", m->cpus);
	putchar('\n');
	free(cpus);
}

static void print_offsets(const struct uv_sysfs *s)
{
	struct uv_package_list pkgs;
	char path[PATH_MAX];
	enum plane pl;
	size_t i;
	long v;

	printf("  offset  ");
	if (sysfs_packages(s, &pkgs) || pkgs.n == 0) {
		printf(" missing (no driver at %s)\n", s->drv);
		return;
	}
	for (i = 0; i < pkgs.n; i++) {
		/* Continuation lines indent like the label column above. */
		printf("%s package %u:", i ? "\n          " : "", pkgs.id[i]);
		for (pl = 0; pl < PLANE_COUNT; pl++) {
			if (sysfs_plane_path(s, pkgs.id[i], pl, "offset_mv",
					     path, sizeof(path)) ||
			    sysfs_read_long(path, &v))
				continue;
			printf(" %s %ld", plane_name(pl), v);
		}
		printf(" mV");
	}
	putchar('\n');
}

static void sleep_for(double seconds)
{
	struct timespec ts, rem;

	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &rem) < 0 && errno == EINTR)
		ts = rem;
}

int cmd_monitor(const struct uv_sysfs *s, const struct uv_opts *o)
{
	struct monitor *m;
	char stamp[32];
	struct tm tm;
	time_t wall;
	long i;
	double t;

	m = malloc(sizeof(*m));
	if (!m) {
		uv_warn("out of memory");
		return UV_EXIT_FAIL;
	}
	if (uv_path(m->powercap, sizeof(m->powercap), "%s/class/powercap",
		    s->root) ||
	    uv_path(m->hwmon, sizeof(m->hwmon), "%s/class/hwmon", s->root) ||
	    uv_path(m->cpus, sizeof(m->cpus), "%s/devices/system/cpu",
		    s->root)) {
		uv_warn("%s: path too long", s->root);
		free(m);
		return UV_EXIT_USAGE;
	}
	zones_init(m);
	for (i = 0; o->count == 0 || i < o->count; i++) {
		sleep_for(o->interval);
		t = now();
		wall = time(NULL);
		if (!localtime_r(&wall, &tm) ||
		    !strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm))
			snprintf(stamp, sizeof(stamp), "?");
		printf("%s\n", stamp);
		print_power(m, t);
		print_temps(m);
		print_freqs(m);
		print_offsets(s);
		m->last = t;
		if (fflush(stdout) == EOF)
			break;
	}
	free(m);
	return UV_EXIT_OK;
}
