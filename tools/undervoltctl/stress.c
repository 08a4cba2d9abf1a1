// SPDX-License-Identifier: GPL-2.0
/*
 * stress.c: the self-checking load of undervoltctl tune and stress; see
 * stress.h for why each check finds a single flipped bit.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef UNDERVOLTCTL_NO_DLOPEN
#include <dlfcn.h>
#endif
#ifdef __x86_64__
#include <immintrin.h>
#endif

#include "stress.h"

#define PHASE_GAP_NS		200000000L	/* idle between load phases */
#define POLL_NS			100000000L
#define MAX_WORKERS		256

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A non-zero integer in [-2^STRESS_ENTRY_BITS, 2^STRESS_ENTRY_BITS]. */
static double random_entry(uint64_t *s)
{
	uint64_t r = splitmix(s);
	int64_t v = (int64_t)(r % (1u << STRESS_ENTRY_BITS)) + 1;

	return (double)((r >> 63) ? -v : v);
}

void stress_gemm_free(struct stress_gemm *g)
{
	free(g->a);
	free(g->b);
	free(g->c);
	free(g->row_ref);
	free(g->col_ref);
	memset(g, 0, sizeof(*g));
}

int stress_gemm_init(struct stress_gemm *g, unsigned int n, uint64_t seed)
{
	size_t nn = (size_t)n * n, i, k, j;
	int64_t *a_col, *b_row;

	memset(g, 0, sizeof(*g));
	if (n == 0 || n % 8 || n > STRESS_MAX_N)
		return -EINVAL;
	g->n = n;
	if (posix_memalign((void **)&g->a, 64, nn * sizeof(double)) ||
	    posix_memalign((void **)&g->b, 64, nn * sizeof(double)) ||
	    posix_memalign((void **)&g->c, 64, nn * sizeof(double)))
		goto nomem;
	g->row_ref = calloc(n, sizeof(int64_t));
	g->col_ref = calloc(n, sizeof(int64_t));
	a_col = calloc(n, sizeof(int64_t));
	b_row = calloc(n, sizeof(int64_t));
	if (!g->row_ref || !g->col_ref || !a_col || !b_row) {
		free(a_col);
		free(b_row);
		goto nomem;
	}
	for (i = 0; i < nn; i++) {
		g->a[i] = random_entry(&seed);
		g->b[i] = random_entry(&seed);
		g->c[i] = 0;
	}
	/* e^T A and B e, then the references, all exact in int64_t. */
	for (i = 0; i < n; i++)
		for (k = 0; k < n; k++) {
			a_col[k] += (int64_t)g->a[i * n + k];
			b_row[i] += (int64_t)g->b[i * n + k];
		}
	for (i = 0; i < n; i++)
		for (k = 0; k < n; k++)
			g->row_ref[i] += (int64_t)g->a[i * n + k] * b_row[k];
	for (k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			g->col_ref[j] += a_col[k] * (int64_t)g->b[k * n + j];
	free(a_col);
	free(b_row);
	return 0;
nomem:
	stress_gemm_free(g);
	return -ENOMEM;
}

/* V as an exact integer, or false when it is not the bit pattern of one. */
static bool exact_integer(double v, int64_t *out)
{
	uint64_t bits, want;
	double back;
	int64_t k;

	/* |C| <= n * 2^40 <= 2^50: anything larger is already wrong. */
	if (!isfinite(v) || fabs(v) > 0x1p51)
		return false;
	k = (int64_t)v;
	back = (double)k;
	memcpy(&bits, &v, sizeof(bits));
	memcpy(&want, &back, sizeof(want));
	*out = k;
	return bits == want;
}

int stress_gemm_verify(const struct stress_gemm *g, char *msg, size_t size)
{
	unsigned int n = g->n, i, j;
	int64_t *col, row, k;
	int ret = 0;

	col = calloc(n, sizeof(*col));
	if (!col) {
		snprintf(msg, size, "out of memory while verifying");
		return -1;
	}
	for (i = 0; i < n && !ret; i++) {
		row = 0;
		for (j = 0; j < n; j++) {
			double v = g->c[(size_t)i * n + j];

			if (!exact_integer(v, &k)) {
				snprintf(msg, size,
					 "matrix entry (%u,%u) is %a, not an exact integer",
					 i, j, v);
				ret = -1;
				break;
			}
			row += k;
			col[j] += k;
		}
		if (!ret && row != g->row_ref[i]) {
			snprintf(msg, size, "row %u sums to %" PRId64
				 ", expected %" PRId64, i, row, g->row_ref[i]);
			ret = -1;
		}
	}
	for (j = 0; j < n && !ret; j++) {
		if (col[j] != g->col_ref[j]) {
			snprintf(msg, size, "column %u sums to %" PRId64
				 ", expected %" PRId64, j, col[j], g->col_ref[j]);
			ret = -1;
		}
	}
	free(col);
	return ret;
}

uint64_t stress_lcg_jump(uint64_t x, uint64_t mult, uint64_t plus,
			 uint64_t steps)
{
	uint64_t acc_mult = 1, acc_plus = 0;

	while (steps) {
		if (steps & 1) {
			acc_mult *= mult;
			acc_plus = acc_plus * mult + plus;
		}
		plus = (mult + 1) * plus;
		mult *= mult;
		steps >>= 1;
	}
	return acc_mult * x + acc_plus;
}

static const uint64_t chain_seed[STRESS_CHAINS] = {
	0x0123456789abcdefULL, 0xfedcba9876543210ULL,
	0x0f1e2d3c4b5a6978ULL, 0x8796a5b4c3d2e1f0ULL,
};

void stress_chains_init(struct stress_chains *ch)
{
	unsigned int i;

	for (i = 0; i < STRESS_CHAINS; i++) {
		ch->x[i] = chain_seed[i];
		ch->end[i] = stress_lcg_jump(chain_seed[i], STRESS_CHAIN_MULT,
					     STRESS_CHAIN_PLUS,
					     STRESS_CHAIN_STEPS);
	}
}

/* In locals, so that the four chains stay in registers, in lockstep. */
void stress_chains_step(struct stress_chains *ch, unsigned int steps)
{
	uint64_t x0 = ch->x[0], x1 = ch->x[1], x2 = ch->x[2], x3 = ch->x[3];

	while (steps--) {
		x0 = x0 * STRESS_CHAIN_MULT + STRESS_CHAIN_PLUS;
		x1 = x1 * STRESS_CHAIN_MULT + STRESS_CHAIN_PLUS;
		x2 = x2 * STRESS_CHAIN_MULT + STRESS_CHAIN_PLUS;
		x3 = x3 * STRESS_CHAIN_MULT + STRESS_CHAIN_PLUS;
	}
	ch->x[0] = x0;
	ch->x[1] = x1;
	ch->x[2] = x2;
	ch->x[3] = x3;
}

int stress_chains_check(const struct stress_chains *ch, char *msg,
			size_t size)
{
	unsigned int i;

	for (i = 0; i < STRESS_CHAINS; i++) {
		if (ch->x[i] != ch->end[i]) {
			snprintf(msg, size, "integer multiply chain %u ended at "
				 "0x%016" PRIx64 ", expected 0x%016" PRIx64,
				 i, ch->x[i], ch->end[i]);
			return -1;
		}
	}
	return 0;
}

/* The engines: C = A B for square row-major matrices. */
typedef void (*gemm_fn)(const struct stress_gemm *g, void *engine_ctx);

#ifdef __x86_64__
/*
 * 4 rows by 8 columns of C in eight 256-bit accumulators: two loads of B
 * and four broadcasts of A feed eight FMAs per step of k.
 */
__attribute__((target("avx2,fma")))
static void gemm_fma(const struct stress_gemm *g, void *unused)
{
	unsigned int n = g->n, i, j, k, r;
	const double *a = g->a, *b = g->b;
	double *c = g->c;

	(void)unused;
	for (i = 0; i < n; i += 4) {
		for (j = 0; j < n; j += 8) {
			__m256d acc[4][2];

			for (r = 0; r < 4; r++)
				acc[r][0] = acc[r][1] = _mm256_setzero_pd();
			for (k = 0; k < n; k++) {
				__m256d b0 = _mm256_load_pd(b + (size_t)k * n + j);
				__m256d b1 = _mm256_load_pd(b + (size_t)k * n + j + 4);

				for (r = 0; r < 4; r++) {
					__m256d av = _mm256_broadcast_sd(
						a + (size_t)(i + r) * n + k);

					acc[r][0] = _mm256_fmadd_pd(av, b0, acc[r][0]);
					acc[r][1] = _mm256_fmadd_pd(av, b1, acc[r][1]);
				}
			}
			for (r = 0; r < 4; r++) {
				_mm256_store_pd(c + (size_t)(i + r) * n + j, acc[r][0]);
				_mm256_store_pd(c + (size_t)(i + r) * n + j + 4,
						acc[r][1]);
			}
		}
	}
}
#endif

/* For CPUs without AVX2 and FMA: exact all the same, only slower. */
static void gemm_plain(const struct stress_gemm *g, void *unused)
{
	unsigned int n = g->n, i, j, k;

	(void)unused;
	for (i = 0; i < n; i++) {
		double *c = g->c + (size_t)i * n;

		for (j = 0; j < n; j++)
			c[j] = 0;
		for (k = 0; k < n; k++) {
			double aik = g->a[(size_t)i * n + k];
			const double *b = g->b + (size_t)k * n;

			for (j = 0; j < n; j++)
				c[j] += aik * b[j];
		}
	}
}

/* OpenBLAS, loaded at run time so that the tool does not depend on it. */
struct openblas {
	void *handle;
	void (*dgemm)(int order, int transa, int transb, int m, int n, int k,
		      double alpha, const double *a, int lda, const double *b,
		      int ldb, double beta, double *c, int ldc);
};

#define CBLAS_ROW_MAJOR		101
#define CBLAS_NO_TRANS		111

static void gemm_openblas(const struct stress_gemm *g, void *engine_ctx)
{
	const struct openblas *ob = engine_ctx;
	int n = (int)g->n;

	ob->dgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, n, n, n,
		  1.0, g->a, n, g->b, n, 0.0, g->c, n);
}

static int openblas_load(struct openblas *ob)
{
#ifdef UNDERVOLTCTL_NO_DLOPEN
	(void)ob;
	return -1;
#else
	void (*set_threads)(int);

	ob->handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!ob->handle)
		return -1;
	*(void **)&ob->dgemm = dlsym(ob->handle, "cblas_dgemm");
	*(void **)&set_threads = dlsym(ob->handle, "openblas_set_num_threads");
	if (!ob->dgemm || !set_threads) {
		dlclose(ob->handle);
		ob->handle = NULL;
		return -1;
	}
	/* One thread per call: the workers are the parallelism. */
	set_threads(1);
	return 0;
#endif
}

static void openblas_unload(struct openblas *ob)
{
#ifndef UNDERVOLTCTL_NO_DLOPEN
	if (ob->handle)
		dlclose(ob->handle);
#endif
	ob->handle = NULL;
}

struct worker {
	pthread_t thread;
	bool started;
	int cpu;			/* pinned to it, or -1 */
	struct stress_gemm g;
	gemm_fn gemm;
	void *engine_ctx;
	atomic_bool *stop;
	atomic_ullong progress;		/* bumped after each step */
	atomic_ullong gemms, chains;
	atomic_uint wrong;
	atomic_bool done;
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

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	while (!atomic_load(w->stop)) {
		w->gemm(&w->g, w->engine_ctx);
		if (stress_gemm_verify(&w->g, w->error, sizeof(w->error))) {
			atomic_fetch_add(&w->wrong, 1);
			break;
		}
		atomic_fetch_add(&w->gemms, 1);
		atomic_fetch_add(&w->progress, 1);
		if (atomic_load(w->stop))
			break;
		if (!run_chains(w)) {
			atomic_fetch_add(&w->wrong, 1);
			break;
		}
		atomic_fetch_add(&w->chains, 1);
		atomic_fetch_add(&w->progress, 1);
	}
	atomic_store(&w->done, true);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

int stress_engine_parse(const char *name, enum stress_engine *e)
{
	static const char *const names[] = {
		[STRESS_ENGINE_AUTO] = "auto",
		[STRESS_ENGINE_BUILTIN] = "builtin",
		[STRESS_ENGINE_OPENBLAS] = "openblas",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(name, names[i]) == 0) {
			*e = (enum stress_engine)i;
			return 0;
		}
	}
	return -1;
}

struct engine {
	const char *name;
	gemm_fn gemm;
	void *ctx;
	struct openblas ob;
};

static int engine_pick(enum stress_engine want, struct engine *e, char *msg,
		       size_t size)
{
	memset(e, 0, sizeof(*e));
	if (want != STRESS_ENGINE_BUILTIN && openblas_load(&e->ob) == 0) {
		e->name = "openblas";
		e->gemm = gemm_openblas;
		e->ctx = &e->ob;
		return 0;
	}
	if (want == STRESS_ENGINE_OPENBLAS) {
		snprintf(msg, size, "OpenBLAS (libopenblas.so.0) could not be "
			 "loaded; install libopenblas0 or use the builtin engine");
		return -1;
	}
	e->name = "builtin";
	e->gemm = gemm_plain;
#ifdef __x86_64__
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		e->gemm = gemm_fma;
#endif
	return 0;
}

/* Largest size whose one multiplication takes under 50 ms, at least 64. */
static unsigned int pick_size(const struct engine *e)
{
	unsigned int n = 64;

	while (n < 512) {
		struct stress_gemm g;
		double t;

		if (stress_gemm_init(&g, n * 2, 1))
			break;
		t = now_s();
		e->gemm(&g, e->ctx);
		t = now_s() - t;
		stress_gemm_free(&g);
		if (t > 0.05)
			break;
		n *= 2;
	}
	return n;
}

/* One phase: a worker on each CPU in CPUS (N of them) for SECONDS. */
static int run_phase(const struct stress_opts *o, const struct engine *e,
		     unsigned int size, const int *cpus, int n, double seconds,
		     struct stress_result *r)
{
	struct worker *w = calloc(n, sizeof(*w));
	atomic_bool stop = false;
	unsigned long long *last;
	double *since, start, t;
	int i, ret = 0;

	last = calloc(n, sizeof(*last));
	since = calloc(n, sizeof(*since));
	if (!w || !last || !since) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		ret = -1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		w[i].cpu = cpus[i];
		w[i].gemm = e->gemm;
		w[i].engine_ctx = e->ctx;
		w[i].stop = &stop;
		if (stress_gemm_init(&w[i].g, size, 0x5eed0000u + i)) {
			snprintf(r->error, sizeof(r->error), "out of memory");
			ret = -1;
			goto out;
		}
	}
	start = now_s();
	for (i = 0; i < n; i++) {
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			snprintf(r->error, sizeof(r->error),
				 "cannot start a worker thread");
			atomic_store(&stop, true);
			ret = -1;
			break;
		}
		w[i].started = true;
		since[i] = start;
	}
	while (!ret) {
		bool all_done = true;

		sleep_ns(POLL_NS);
		t = now_s();
		for (i = 0; i < n; i++) {
			unsigned long long p = atomic_load(&w[i].progress);

			if (atomic_load(&w[i].wrong)) {
				if (!r->error[0])
					snprintf(r->error, sizeof(r->error),
						 "CPU %d: %s", w[i].cpu, w[i].error);
				r->wrong++;
				atomic_store(&w[i].wrong, 0);
			}
			if (!atomic_load(&w[i].done))
				all_done = false;
			if (p != last[i]) {
				last[i] = p;
				since[i] = t;
			} else if (!atomic_load(&w[i].done) &&
				   t - since[i] > o->stall_seconds) {
				if (!r->error[0])
					snprintf(r->error, sizeof(r->error),
						 "CPU %d: the worker made no progress for %.0f s",
						 w[i].cpu, t - since[i]);
				r->stalled++;
				since[i] = t;
			}
		}
		if (r->wrong || r->stalled)
			atomic_store(&stop, true);
		if (o->should_stop && !atomic_load(&stop) &&
		    o->should_stop(o->ctx)) {
			r->stopped = true;
			atomic_store(&stop, true);
		}
		if (t - start >= seconds)
			atomic_store(&stop, true);
		if (atomic_load(&stop) && all_done)
			break;
		/* A stalled worker never returns: do not wait for it. */
		if (atomic_load(&stop) && r->stalled && t - start >= seconds)
			break;
		if (atomic_load(&stop) && t - start > seconds + o->stall_seconds)
			break;
	}
	r->seconds += now_s() - start;
out:
	for (i = 0; w && i < n; i++) {
		if (w[i].started) {
			if (atomic_load(&w[i].done))
				pthread_join(w[i].thread, NULL);
			else
				pthread_detach(w[i].thread);
		}
		r->gemms += atomic_load(&w[i].gemms);
		r->chains += atomic_load(&w[i].chains);
		r->flops += 2.0 * size * size * size * atomic_load(&w[i].gemms);
		/* A detached worker still uses its matrices. */
		if (!w[i].started || atomic_load(&w[i].done))
			stress_gemm_free(&w[i].g);
	}
	free(w);
	free(last);
	free(since);
	return ret;
}

int stress_run(const struct stress_opts *o, struct stress_result *r)
{
	int cpus[MAX_WORKERS], ncpus, i, ret;
	struct engine e;
	unsigned int size;
	double each;

	memset(r, 0, sizeof(*r));
	if (engine_pick(o->engine, &e, r->error, sizeof(r->error)))
		return -1;
	r->engine = e.name;
	ncpus = allowed_cpus(cpus, MAX_WORKERS);
	if (ncpus <= 0) {
		snprintf(r->error, sizeof(r->error), "no CPU to run on");
		openblas_unload(&e.ob);
		return -1;
	}
	size = o->n ? o->n : pick_size(&e);
	r->n = size;
	each = o->all_cores_only ? o->seconds : o->seconds / 2;
	ret = run_phase(o, &e, size, cpus, ncpus, each, r);
	for (i = 0; !o->all_cores_only && !ret && i < ncpus; i++) {
		if (r->wrong || r->stalled || r->stopped)
			break;
		sleep_ns(PHASE_GAP_NS);
		ret = run_phase(o, &e, size, &cpus[i], 1,
				o->seconds / 2 / ncpus, r);
	}
	/* Workers left behind by a stall may still call into OpenBLAS. */
	if (!r->stalled)
		openblas_unload(&e.ob);
	return ret;
}
