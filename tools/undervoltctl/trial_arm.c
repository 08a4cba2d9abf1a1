// SPDX-License-Identifier: GPL-2.0
/*
 * trial_arm.c: the revert of a trial, armed so that it runs whatever
 * becomes of the process that asked for it.
 *
 * Where systemd is PID 1 (/run/systemd/system exists), a transient timer:
 * "systemd-run --on-active=N --unit=undervoltctl-trial undervoltctl
 * trial-revert TOKEN", which the journal records. Otherwise a detached
 * process, "undervoltctl trial-revert --wait TOKEN": forked twice, in a
 * session of its own, so that neither the shell's exit nor its hangup
 * reaches it. Both run this binary again, with --sysfs-root if it was
 * given; the revert checks TOKEN against the trial file, so a revert of
 * an arming that was replaced or confirmed does nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trial.h"

#ifndef UV_SYSTEMD_RUN
#define UV_SYSTEMD_RUN "/usr/bin/systemd-run"
#endif
#ifndef UV_SYSTEMCTL
#define UV_SYSTEMCTL "/bin/systemctl"
#endif
#define TRIAL_UNIT "undervoltctl-trial"

/* Test builds run fakes of systemd-run and systemctl. */
static const char *tool(const char *var, const char *path)
{
	return var && *var ? var : path;
}

/* ARGV[0] with ARGV, its output to /dev/null; its exit status or -1. */
static int run_cmd(char *const argv[])
{
	pid_t pid;
	int status, null;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* This binary, as the revert must run it: ARGV up to its NULL. */
static int self_argv(const struct uv_sysfs *s, char *exe, size_t size,
		     const char **argv, bool wait, const char *token)
{
	ssize_t n = readlink("/proc/self/exe", exe, size - 1);
	int i = 0;

	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	argv[i++] = exe;
	if (s->sysfs_arg[0]) {
		argv[i++] = "--sysfs-root";
		argv[i++] = s->sysfs_arg;
	}
	argv[i++] = "trial-revert";
	if (wait)
		argv[i++] = "--wait";
	argv[i++] = token;
	argv[i] = NULL;
	return 0;
}

static bool systemd_runs(const struct uv_sysfs *s)
{
	char path[PATH_MAX];

	return !uv_path(path, sizeof(path), "%s/systemd/system", s->run) &&
	       access(path, F_OK) == 0;
}

static int arm_systemd(const struct uv_sysfs *s, struct trial_state *t,
		       double now)
{
	char exe[PATH_MAX], active[48];
	const char *self[8], *argv[16];
	double in = t->deadline - now;
	int i = 0, j;

	if (self_argv(s, exe, sizeof(exe), self, false, t->token))
		return -1;
	snprintf(active, sizeof(active), "--on-active=%lds",
		 in < 1 ? 1L : (long)(in + 0.999));
	argv[i++] = tool(uv_test_env("UNDERVOLTCTL_TEST_SYSTEMD_RUN"),
			 UV_SYSTEMD_RUN);
	argv[i++] = "--quiet";
	argv[i++] = "--collect";
	argv[i++] = "--unit=" TRIAL_UNIT;
	argv[i++] = "--description=undervoltctl: revert unconfirmed offsets";
	argv[i++] = active;
	argv[i++] = "--timer-property=AccuracySec=100ms";
	argv[i++] = "--";
	for (j = 0; self[j]; j++)
		argv[i++] = self[j];
	argv[i] = NULL;
	if (run_cmd((char *const *)argv) != 0)
		return -1;
	snprintf(t->armed, sizeof(t->armed), "systemd");
	t->pid = 0;
	return 0;
}

static int arm_detached(const struct uv_sysfs *s, struct trial_state *t)
{
	char exe[PATH_MAX];
	const char *argv[8];
	pid_t child, pid = -1;
	int pfd[2], null;
	ssize_t n;

	if (self_argv(s, exe, sizeof(exe), argv, true, t->token) ||
	    pipe2(pfd, O_CLOEXEC))
		return -1;
	fflush(stdout);
	fflush(stderr);
	child = fork();
	if (child == 0) {
		close(pfd[0]);
		if (setsid() >= 0)
			pid = fork();
		if (pid == 0) {
			null = open("/dev/null", O_RDWR | O_CLOEXEC);
			if (null >= 0) {
				dup2(null, STDIN_FILENO);
				dup2(null, STDOUT_FILENO);
				dup2(null, STDERR_FILENO);
			}
			if (chdir("/") == 0)
				execv(exe, (char *const *)argv);
			_exit(127);
		}
		n = write(pfd[1], &pid, sizeof(pid));
		_exit(n == (ssize_t)sizeof(pid) && pid > 0 ? 0 : 1);
	}
	close(pfd[1]);
	n = child < 0 ? -1 : read(pfd[0], &pid, sizeof(pid));
	close(pfd[0]);
	if (child > 0)
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	if (n != (ssize_t)sizeof(pid) || pid <= 0)
		return -1;
	snprintf(t->armed, sizeof(t->armed), "detached");
	t->pid = pid;
	return 0;
}

int trial_arm(const struct uv_sysfs *s, struct trial_state *t, double now)
{
	if (systemd_runs(s) && arm_systemd(s, t, now) == 0)
		return 0;
	if (systemd_runs(s))
		uv_warn("systemd-run failed to arm the trial's timer; a "
			"detached process reverts the offsets instead");
	return arm_detached(s, t);
}

/* A detached revert of T, still waiting: its command line names T's token. */
static bool our_waiter(const struct trial_state *t)
{
	char path[64], buf[4096];
	bool revert = false, token = false;
	ssize_t n;
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", t->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (i = 0; i < (size_t)n; i += strlen(buf + i) + 1) {
		revert |= strcmp(buf + i, "trial-revert") == 0;
		token |= strcmp(buf + i, t->token) == 0;
	}
	return revert && token;
}

void trial_disarm(const struct trial_state *t)
{
	char *argv[4] = { NULL, "stop", TRIAL_UNIT ".timer", NULL };

	if (strcmp(t->armed, "systemd") == 0) {
		argv[0] = (char *)tool(uv_test_env("UNDERVOLTCTL_TEST_SYSTEMCTL"),
				       UV_SYSTEMCTL);
		run_cmd(argv);	/* a timer that already fired is gone */
	} else if (t->pid > 0 && our_waiter(t)) {
		kill((pid_t)t->pid, SIGTERM);
	}
}
