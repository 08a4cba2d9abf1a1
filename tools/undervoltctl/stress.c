// SPDX-License-Identifier: GPL-2.0
/*
 * stress.c: the run of the self-checking load (stress_run()): the size
 * and path it picks, one worker per CPU, the phases on every CPU and on
 * each alone, stalls. The problem and its checks are in stress_check.c,
 * the paths that compute in stress_mult.c.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

#define PHASE_GAP_NS		200000000L	/* idle between load phases */
#define POLL_NS			100000000L
#define MAX_WORKERS		256

static double now_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The run: one worker per CPU, each with its own C and column sums. */
struct worker {
	pthread_t thread;
	bool started;
	int cpu;			/* pinned to it, or -1 */
	const struct stress_gemm *g;
	const struct stress_mult *m;
	double *c;			/* one panel */
	int64_t *col;			/* the product's column sums so far */
	atomic_bool *stop;
	atomic_ullong progress;		/* bumped after each panel and chain */
	atomic_ullong rows;		/* of C computed and checked */
	atomic_ullong gemms, chains;
	atomic_uint wrong;
	atomic_bool done;
	double end;			/* when it stopped, set before done */
	char error[160];
};

/* The chains of stress.h, through the functions its test feeds faults. */
static bool run_chains(struct worker *w)
{
	struct stress_chains ch;

	stress_chains_init(&ch);
	stress_chains_step(&ch, STRESS_CHAIN_STEPS);
	return stress_chains_check(&ch, w->error, sizeof(w->error)) == 0;
}

/*
 * One product, panel by panel, each checked as soon as it is computed; the
 * stop flag is seen between panels. 1 when the whole product was computed
 * and checked, 0 when stopped before, -1 on a wrong result.
 */
static int run_product(struct worker *w)
{
	unsigned int n = w->g->n, row, rows;
	size_t ldc = stress_mult_ldc(w->m);

	memset(w->col, 0, n * sizeof(*w->col));
	for (row = 0; row < n; row += rows) {
		rows = n - row < STRESS_PANEL_ROWS ? n - row : STRESS_PANEL_ROWS;
		if (atomic_load(w->stop))
			return 0;
		stress_mult_rows(w->m, row, rows, w->c);
		if (stress_gemm_check_rows(w->g, w->c, ldc, row, rows, w->col,
					   w->error, sizeof(w->error)))
			return -1;
		atomic_fetch_add(&w->rows, rows);
		atomic_fetch_add(&w->progress, 1);
	}
	if (stress_gemm_check_cols(w->g, w->col, w->error, sizeof(w->error)))
		return -1;
	return 1;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int ret;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	while (!atomic_load(w->stop)) {
		ret = run_product(w);
		if (ret < 0) {
			atomic_fetch_add(&w->wrong, 1);
			break;
		}
		if (ret == 0 || atomic_load(w->stop))
			break;
		atomic_fetch_add(&w->gemms, 1);
		if (!run_chains(w)) {
			atomic_fetch_add(&w->wrong, 1);
			break;
		}
		atomic_fetch_add(&w->chains, 1);
		atomic_fetch_add(&w->progress, 1);
	}
	w->end = now_s(CLOCK_MONOTONIC);
	atomic_store(&w->done, true);
	return NULL;
}

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The CPUs this process may run on, in order. */
static int allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n;
}

/*
 * The rate of PATH at size N, in FLOP per second of this thread's CPU time
 * for one panel, or -1. CPU time, not wall time: the size and the path
 * then depend on the engine and the CPU, not on what else runs at the
 * moment, and a run is reproducible. The second of two panels, so that
 * page faults and cold caches do not count. *SECONDS gets its time.
 */
static double panel_rate(enum stress_path path, unsigned int n,
			 double *seconds)
{
	unsigned int rows = n < STRESS_PANEL_ROWS ? n : STRESS_PANEL_ROWS;
	struct stress_mult *m;
	struct stress_gemm g;
	double *c, t = -1;
	char msg[160];

	if (stress_gemm_init(&g, n, 1))
		return -1;
	m = stress_mult_new(path, &g, msg, sizeof(msg));
	c = m ? malloc(rows * stress_mult_ldc(m) * sizeof(*c)) : NULL;
	if (c) {
		stress_mult_rows(m, 0, rows, c);
		t = now_s(CLOCK_THREAD_CPUTIME_ID);
		stress_mult_rows(m, 0, rows, c);
		t = now_s(CLOCK_THREAD_CPUTIME_ID) - t;
	}
	free(c);
	stress_mult_free(m);
	stress_gemm_free(&g);
	*seconds = t;
	/* A panel faster than the clock is as fast as any. */
	return t < 0 ? -1 : 2.0 * rows * n * n / (t > 1e-9 ? t : 1e-9);
}

/*
 * The largest size whose panel takes at most 50 ms, so that a worker sees
 * its stop flag that often; larger products run closer to the CPU's peak.
 * Sizes are 3 * 2^k, whole numbers of every kernel's strips. *RATE gets
 * the rate at that size (as panel_rate()).
 */
static unsigned int pick_size(enum stress_path path, double *rate)
{
	unsigned int n = 48;
	double t, r;

	*rate = panel_rate(path, n, &t);
	while (n * 2 <= STRESS_MAX_N) {
		r = panel_rate(path, n * 2, &t);
		if (r < 0 || t > 0.05)
			break;
		n *= 2;
		*rate = r;
	}
	return n;
}

/*
 * The path and size of a run. "auto" takes whichever of OpenBLAS and the
 * builtin engine multiplies faster here: OpenBLAS picks its kernels from
 * the CPU models it knows, and on a newer CPU it falls back to old ones
 * (SSE3 kernels on an AVX-512 CPU, a fifth of its peak), while the load
 * is worth as much as it is close to the CPU's peak. -1 with MSG when the
 * engine cannot run.
 */
static int plan_run(const struct stress_opts *o, enum stress_path *path,
		    unsigned int *size, char *msg, size_t len)
{
	struct stress_mult *cand[2] = { NULL, NULL };
	double rate, best = -1, t;
	struct stress_gemm g;
	unsigned int n, i;

	if (stress_gemm_init(&g, 48, 1)) {
		snprintf(msg, len, "out of memory");
		return -1;
	}
	/* Kept until the end, so that OpenBLAS stays loaded meanwhile. */
	if (o->engine != STRESS_ENGINE_BUILTIN)
		cand[0] = stress_mult_new(STRESS_PATH_OPENBLAS, &g, msg, len);
	if (o->engine != STRESS_ENGINE_OPENBLAS)
		cand[1] = stress_mult_builtin(&g, msg, len);
	for (i = 0; i < 2; i++) {
		if (!cand[i])
			continue;
		if (o->n) {
			n = o->n;
			/* Only a choice needs the rate. */
			rate = cand[!i] ? panel_rate(stress_mult_path(cand[i]), n, &t) : 0;
		} else {
			n = pick_size(stress_mult_path(cand[i]), &rate);
		}
		if (rate > best) {
			best = rate;
			*path = stress_mult_path(cand[i]);
			*size = n;
		}
	}
	/* With neither, MSG already says why. */
	if (best < 0 && (cand[0] || cand[1]))
		snprintf(msg, len, "out of memory");
	stress_mult_free(cand[0]);
	stress_mult_free(cand[1]);
	stress_gemm_free(&g);
	return best < 0 ? -1 : 0;
}

/* What the workers of a phase share; on the heap, as a stalled worker
 * may outlive the phase. */
struct phase {
	atomic_bool stop;
	int n;
	struct worker w[];
};

static void phase_free(struct phase *p)
{
	int i;

	for (i = 0; i < p->n; i++) {
		free(p->w[i].c);
		free(p->w[i].col);
	}
	free(p);
}

/* Whether every worker of P is done; *END gets when the last stopped. */
static bool all_stopped(struct phase *p, double *end)
{
	int i;

	*end = 0;
	for (i = 0; i < p->n; i++) {
		if (!atomic_load(&p->w[i].done))
			return false;
		if (p->w[i].end > *end)
			*end = p->w[i].end;
	}
	return true;
}

/* One phase: a worker on each CPU in CPUS (N of them) for SECONDS. */
static int run_phase(const struct stress_opts *o, const struct stress_gemm *g,
		     const struct stress_mult *m, const int *cpus, int n,
		     double seconds, struct stress_result *r)
{
	struct phase *p = calloc(1, sizeof(*p) + n * sizeof(p->w[0]));
	unsigned long long *last;
	double *since, start, t, end;
	int i, ret = 0;

	last = calloc(n, sizeof(*last));
	since = calloc(n, sizeof(*since));
	if (!p || !last || !since) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		ret = -1;
		goto out;
	}
	p->n = n;
	for (i = 0; i < n; i++) {
		struct worker *w = &p->w[i];

		w->cpu = cpus[i];
		w->g = g;
		w->m = m;
		w->stop = &p->stop;
		w->c = malloc(STRESS_PANEL_ROWS * stress_mult_ldc(m) *
			      sizeof(*w->c));
		w->col = malloc(g->n * sizeof(*w->col));
		if (!w->c || !w->col) {
			snprintf(r->error, sizeof(r->error), "out of memory");
			ret = -1;
			goto out;
		}
	}
	start = now_s(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++) {
		if (pthread_create(&p->w[i].thread, NULL, worker_main,
				   &p->w[i])) {
			snprintf(r->error, sizeof(r->error),
				 "cannot start a worker thread");
			atomic_store(&p->stop, true);
			ret = -1;
			break;
		}
		p->w[i].started = true;
		since[i] = start;
	}
	while (!ret) {
		bool all_done = true;

		/* Wake at the end of the phase, not up to a poll later. */
		t = start + seconds - now_s(CLOCK_MONOTONIC);
		sleep_ns(t > 0 && t < POLL_NS / 1e9 ? (long)(t * 1e9) + 1 : POLL_NS);
		t = now_s(CLOCK_MONOTONIC);
		for (i = 0; i < n; i++) {
			struct worker *w = &p->w[i];
			unsigned long long prog = atomic_load(&w->progress);

			if (atomic_load(&w->wrong)) {
				if (!r->error[0])
					snprintf(r->error, sizeof(r->error),
						 "CPU %d: %s", w->cpu, w->error);
				r->wrong++;
				atomic_store(&w->wrong, 0);
			}
			if (!atomic_load(&w->done))
				all_done = false;
			if (prog != last[i]) {
				last[i] = prog;
				since[i] = t;
			} else if (!atomic_load(&w->done) &&
				   t - since[i] > o->stall_seconds) {
				if (!r->error[0])
					snprintf(r->error, sizeof(r->error),
						 "CPU %d: the worker made no progress for %.0f s",
						 w->cpu, t - since[i]);
				r->stalled++;
				since[i] = t;
			}
		}
		if (r->wrong || r->stalled)
			atomic_store(&p->stop, true);
		if (o->should_stop && !atomic_load(&p->stop) &&
		    o->should_stop(o->ctx)) {
			r->stopped = true;
			atomic_store(&p->stop, true);
		}
		if (t - start >= seconds)
			atomic_store(&p->stop, true);
		if (atomic_load(&p->stop) && all_done)
			break;
		/* A stalled worker never returns: do not wait for it. */
		if (atomic_load(&p->stop) && r->stalled && t - start >= seconds)
			break;
		if (atomic_load(&p->stop) &&
		    t - start > seconds + o->stall_seconds)
			break;
	}
	/* Up to when the last worker stopped, not when this loop saw it:
	 * the rate is of the workers' time. */
	t = now_s(CLOCK_MONOTONIC);
	if (all_stopped(p, &end))
		t = end;
	r->seconds += t - start;
out:
	for (i = 0; p && i < n; i++) {
		struct worker *w = &p->w[i];

		if (w->started) {
			if (atomic_load(&w->done))
				pthread_join(w->thread, NULL);
			else
				pthread_detach(w->thread);
		}
		r->gemms += atomic_load(&w->gemms);
		r->chains += atomic_load(&w->chains);
		r->flops += 2.0 * g->n * g->n * atomic_load(&w->rows);
	}
	/* A worker left behind by a stall still uses the phase. */
	if (p && !r->stalled)
		phase_free(p);
	free(last);
	free(since);
	return ret;
}

int stress_run(const struct stress_opts *o, struct stress_result *r)
{
	int cpus[MAX_WORKERS], ncpus, i, ret;
	enum stress_path path = STRESS_PATH_PLAIN;
	unsigned int size = 0;
	struct stress_mult *m;
	struct stress_gemm g;
	double each;

	memset(r, 0, sizeof(*r));
	ncpus = allowed_cpus(cpus, MAX_WORKERS);
	if (ncpus <= 0) {
		snprintf(r->error, sizeof(r->error), "no CPU to run on");
		return -1;
	}
	if (plan_run(o, &path, &size, r->error, sizeof(r->error)))
		return -1;
	r->n = size;
	if (stress_gemm_init(&g, size, 0x5eed0000u)) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		return -1;
	}
	m = stress_mult_new(path, &g, r->error, sizeof(r->error));
	if (!m) {
		stress_gemm_free(&g);
		return -1;
	}
	snprintf(r->engine, sizeof(r->engine), "%s", stress_mult_name(m));
	each = o->all_cores_only ? o->seconds : o->seconds / 2;
	ret = run_phase(o, &g, m, cpus, ncpus, each, r);
	for (i = 0; !o->all_cores_only && !ret && i < ncpus; i++) {
		if (r->wrong || r->stalled || r->stopped)
			break;
		sleep_ns(PHASE_GAP_NS);
		ret = run_phase(o, &g, m, &cpus[i], 1, o->seconds / 2 / ncpus,
				r);
	}
	/* Workers left behind by a stall may still use both. */
	if (!r->stalled) {
		stress_mult_free(m);
		stress_gemm_free(&g);
	}
	return ret;
}
