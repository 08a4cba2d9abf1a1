// SPDX-License-Identifier: GPL-2.0
/*
 * stress_mult.c: the paths that compute the load's products: plain C;
 * AVX2 and AVX-512 kernels on packed copies of A and B; OpenBLAS, loaded
 * at run time. Each computes panels of C = A B; none checks them (that is
 * stress_check.c, the same for every path).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef UNDERVOLTCTL_NO_DLOPEN
#include <dlfcn.h>
#endif
#ifdef __x86_64__
#include <immintrin.h>
#endif

#include "stress.h"

/*
 * C's rows are padded to a multiple of this: a whole number of the widest
 * kernel's column strips (24), so that no kernel needs an edge case, and a
 * multiple of 8 doubles, so that the checker's vectors never straddle.
 */
#define LDC_ALIGN		24

/*
 * The paths. The builtin kernels follow the usual structure of a fast
 * GEMM: A and B are copied once per run into "packed" strips (MR rows of A
 * by k, k by NR columns of B, contiguous in the order the kernel reads
 * them), the k dimension is cut into blocks of KC so that one strip of B
 * stays in L1 while the panel's strips of A stream from L2, and the kernel
 * keeps an MR x NR tile of C in registers for a whole block. The packed
 * copies are read-only and shared by the workers; a wrong copy gives wrong
 * products, which the checks (against references computed from A and B)
 * find.
 */
typedef void (*kernel_fn)(unsigned int kc, const double *a, const double *b,
			  double *c, size_t ldc, bool first);

struct stress_mult {
	enum stress_path path;
	const struct stress_gemm *g;
	size_t ldc;
	char name[48];
	/* The builtin kernels. */
	unsigned int mr, nr, kc, mc;
	kernel_fn kernel;
	double *ap, *bp;		/* packed A (n x n), B (n x ldc) */
	/* OpenBLAS, loaded at run time so that the tool does not need it. */
	void *handle;
	void (*dgemm)(int order, int transa, int transb, int m, int n, int k,
		      double alpha, const double *a, int lda, const double *b,
		      int ldb, double beta, double *c, int ldc);
};

#ifdef __x86_64__
/*
 * C's tile (ROWS x COLS at C) was last touched a block of k ago: the
 * kernels fetch it while their FMAs run, not after them. A line per 8
 * doubles and one for the last, as a row may start mid-line.
 */
static inline void prefetch_tile(const double *c, size_t ldc,
				 unsigned int rows, unsigned int cols)
{
	unsigned int r, j;

	_Pragma("GCC unroll 8")
	for (r = 0; r < rows; r++)
		_Pragma("GCC unroll 4")
		for (j = 0; j < cols + 8; j += 8)
			_mm_prefetch((const char *)(c + r * ldc +
						    (j < cols ? j : cols - 1)),
				     _MM_HINT_T0);
}

/*
 * 4 rows by 12 columns of C in twelve 256-bit accumulators (of the 16
 * registers): per step of k, three loads of B and four broadcasts of A
 * feed twelve FMAs, enough independent ones to cover the FMA latency on
 * two ports.
 */
__attribute__((target("avx2,fma")))
static void kernel_avx2(unsigned int kc, const double *a, const double *b,
			double *c, size_t ldc, bool first)
{
	__m256d acc[4][3];
	unsigned int k, r, v;

	_Pragma("GCC unroll 8")
	for (r = 0; r < 4; r++)
		_Pragma("GCC unroll 8")
		for (v = 0; v < 3; v++)
			acc[r][v] = _mm256_setzero_pd();
	prefetch_tile(c, ldc, 4, 12);
	/* Fewer loop branches between the FMAs. */
	_Pragma("GCC unroll 4")
	for (k = 0; k < kc; k++) {
		__m256d b0 = _mm256_load_pd(b), b1 = _mm256_load_pd(b + 4);
		__m256d b2 = _mm256_load_pd(b + 8);

		_Pragma("GCC unroll 8")
		for (r = 0; r < 4; r++) {
			__m256d ar = _mm256_broadcast_sd(a + r);

			acc[r][0] = _mm256_fmadd_pd(ar, b0, acc[r][0]);
			acc[r][1] = _mm256_fmadd_pd(ar, b1, acc[r][1]);
			acc[r][2] = _mm256_fmadd_pd(ar, b2, acc[r][2]);
		}
		a += 4;
		b += 12;
	}
	_Pragma("GCC unroll 8")
	for (r = 0; r < 4; r++, c += ldc)
		_Pragma("GCC unroll 8")
		for (v = 0; v < 3; v++) {
			__m256d x = acc[r][v];

			if (!first)
				x = _mm256_add_pd(x, _mm256_loadu_pd(c + 4 * v));
			_mm256_storeu_pd(c + 4 * v, x);
		}
}

/*
 * 8 rows by 24 columns in twenty-four 512-bit accumulators (of 32): per
 * step of k, three loads of B and eight broadcasts of A for twenty-four
 * FMAs. Compiled for AVX-512F alone and called only when the CPU has it,
 * so that the binary still runs where it does not (AVX2 laptops, QEMU's
 * TCG).
 */
__attribute__((target("avx512f")))
static void kernel_avx512(unsigned int kc, const double *a, const double *b,
			  double *c, size_t ldc, bool first)
{
	__m512d acc[8][3];
	unsigned int k, r, v;

	_Pragma("GCC unroll 8")
	for (r = 0; r < 8; r++)
		_Pragma("GCC unroll 8")
		for (v = 0; v < 3; v++)
			acc[r][v] = _mm512_setzero_pd();
	prefetch_tile(c, ldc, 8, 24);
	/* Fewer loop branches between the FMAs. */
	_Pragma("GCC unroll 4")
	for (k = 0; k < kc; k++) {
		__m512d b0 = _mm512_load_pd(b), b1 = _mm512_load_pd(b + 8);
		__m512d b2 = _mm512_load_pd(b + 16);

		_Pragma("GCC unroll 8")
		for (r = 0; r < 8; r++) {
			__m512d ar = _mm512_set1_pd(a[r]);

			acc[r][0] = _mm512_fmadd_pd(ar, b0, acc[r][0]);
			acc[r][1] = _mm512_fmadd_pd(ar, b1, acc[r][1]);
			acc[r][2] = _mm512_fmadd_pd(ar, b2, acc[r][2]);
		}
		a += 8;
		b += 24;
	}
	_Pragma("GCC unroll 8")
	for (r = 0; r < 8; r++, c += ldc)
		_Pragma("GCC unroll 8")
		for (v = 0; v < 3; v++) {
			__m512d x = acc[r][v];

			if (!first)
				x = _mm512_add_pd(x, _mm512_loadu_pd(c + 8 * v));
			_mm512_storeu_pd(c + 8 * v, x);
		}
}
#endif

/* Strips of MR rows of A: strip s holds A[s MR + r][k] at (k MR + r). */
static void pack_a(const struct stress_gemm *g, unsigned int mr, double *ap)
{
	unsigned int n = g->n, s, k, r;

	for (s = 0; s < n / mr; s++)
		for (k = 0; k < n; k++)
			for (r = 0; r < mr; r++)
				*ap++ = g->a[(size_t)(s * mr + r) * n + k];
}

/* Strips of NR columns of B, zeros past column n: B[k][t NR + j] at k NR + j. */
static void pack_b(const struct stress_gemm *g, unsigned int nr, size_t ldc,
		   double *bp)
{
	unsigned int n = g->n, t, k, j;

	for (t = 0; t < ldc / nr; t++)
		for (k = 0; k < n; k++)
			for (j = 0; j < nr; j++)
				*bp++ = t * nr + j < n ?
					g->b[(size_t)k * n + t * nr + j] : 0;
}

static void rows_packed(const struct stress_mult *m, unsigned int row,
			unsigned int rows, double *c)
{
	unsigned int n = m->g->n, mr = m->mr, nr = m->nr, pc, kb, ic, mb, t, s;

	for (pc = 0; pc < n; pc += m->kc) {
		kb = n - pc < m->kc ? n - pc : m->kc;
		for (ic = row; ic < row + rows; ic += mb) {
			mb = row + rows - ic < m->mc ? row + rows - ic : m->mc;
			for (t = 0; t < m->ldc / nr; t++) {
				const double *b = m->bp + ((size_t)t * n + pc) * nr;

				for (s = ic / mr; s < (ic + mb) / mr; s++)
					m->kernel(kb, m->ap + ((size_t)s * n + pc) * mr,
						  b, c + (size_t)(s * mr - row) *
						  m->ldc + t * nr, m->ldc, pc == 0);
			}
		}
	}
}

/* For CPUs without AVX2 and FMA: exact all the same, only slower. */
static void rows_plain(const struct stress_mult *m, unsigned int row,
		       unsigned int rows, double *c)
{
	const struct stress_gemm *g = m->g;
	unsigned int n = g->n, i, j, k;

	for (i = 0; i < rows; i++, c += m->ldc) {
		for (j = 0; j < n; j++)
			c[j] = 0;
		for (k = 0; k < n; k++) {
			double aik = g->a[(size_t)(row + i) * n + k];
			const double *b = g->b + (size_t)k * n;

			for (j = 0; j < n; j++)
				c[j] += aik * b[j];
		}
	}
}

#define CBLAS_ROW_MAJOR		101
#define CBLAS_NO_TRANS		111

static void rows_openblas(const struct stress_mult *m, unsigned int row,
			  unsigned int rows, double *c)
{
	int n = (int)m->g->n;

	m->dgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, (int)rows,
		 n, n, 1.0, m->g->a + (size_t)row * n, n, m->g->b, n, 0.0, c,
		 (int)m->ldc);
}

void stress_mult_rows(const struct stress_mult *m, unsigned int row,
		      unsigned int rows, double *c)
{
	switch (m->path) {
	case STRESS_PATH_OPENBLAS:
		rows_openblas(m, row, rows, c);
		break;
	case STRESS_PATH_AVX2:
	case STRESS_PATH_AVX512:
		rows_packed(m, row, rows, c);
		break;
	default:
		rows_plain(m, row, rows, c);
		break;
	}
}

const char *stress_openblas_core(bool avx512, bool avx2_fma)
{
	if (avx512)
		return "SkylakeX";
	if (avx2_fma)
		return "Haswell";
	return NULL;
}

/*
 * OpenBLAS picks its kernels from the CPU models it knows when it is
 * loaded; on a model newer than the library (Debian 12's 0.3.21 on a
 * hypervisor's generic Xeon of model 207, for one) it falls back to its
 * SSE3 kernels ("Prescott"), a fraction of the CPU's rate and current. Its DGEMM
 * kernels depend only on the instruction set, so name the core from the
 * CPU's features, as OpenBLAS would for a model it knows, unless the user
 * chose one. The variable must be set before the library is loaded: it is
 * read once, by the library's constructor.
 */
#ifndef UNDERVOLTCTL_NO_DLOPEN
static void openblas_choose_core(void)
{
#ifdef __x86_64__
	const char *core;

	__builtin_cpu_init();
	core = stress_openblas_core(__builtin_cpu_supports("avx512f") &&
				    __builtin_cpu_supports("avx512dq") &&
				    __builtin_cpu_supports("avx512bw") &&
				    __builtin_cpu_supports("avx512vl") &&
				    __builtin_cpu_supports("avx512cd"),
				    __builtin_cpu_supports("avx2") &&
				    __builtin_cpu_supports("fma"));
	if (core)
		setenv("OPENBLAS_CORETYPE", core, 0);
#endif
}
#endif

static int openblas_load(struct stress_mult *m, char *msg, size_t size)
{
#ifdef UNDERVOLTCTL_NO_DLOPEN
	(void)m;
	snprintf(msg, size, "this build of undervoltctl cannot load OpenBLAS");
	return -1;
#else
	void (*set_threads)(int);
	char *(*corename)(void);

	openblas_choose_core();
	m->handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!m->handle) {
		snprintf(msg, size, "OpenBLAS (libopenblas.so.0) could not be "
			 "loaded; install libopenblas0 or use the builtin engine");
		return -1;
	}
	*(void **)&m->dgemm = dlsym(m->handle, "cblas_dgemm");
	*(void **)&set_threads = dlsym(m->handle, "openblas_set_num_threads");
	*(void **)&corename = dlsym(m->handle, "openblas_get_corename");
	if (!m->dgemm || !set_threads) {
		snprintf(msg, size, "libopenblas.so.0 has no cblas_dgemm or "
			 "openblas_set_num_threads");
		dlclose(m->handle);
		m->handle = NULL;
		return -1;
	}
	/* One thread per call: the workers are the parallelism. */
	set_threads(1);
	/* Its kernels are its guess of the CPU: worth seeing in the output. */
	if (corename)
		snprintf(m->name, sizeof(m->name), "openblas (core %s)",
			 corename());
	else
		snprintf(m->name, sizeof(m->name), "openblas");
	return 0;
#endif
}

/*
 * Whether the CPU (and the kernel, which must save the registers) has
 * what a path needs. libgcc's probe reads CPUID and XGETBV once; asking
 * again is cheap, so nothing is kept here.
 */
static bool path_supported(enum stress_path path)
{
#ifdef __x86_64__
	__builtin_cpu_init();
	if (path == STRESS_PATH_AVX2)
		return __builtin_cpu_supports("avx2") &&
		       __builtin_cpu_supports("fma");
	if (path == STRESS_PATH_AVX512)
		return __builtin_cpu_supports("avx512f");
#endif
	return path == STRESS_PATH_PLAIN || path == STRESS_PATH_OPENBLAS;
}

void stress_mult_free(struct stress_mult *m)
{
	if (!m)
		return;
#ifndef UNDERVOLTCTL_NO_DLOPEN
	if (m->handle)
		dlclose(m->handle);
#endif
	free(m->ap);
	free(m->bp);
	free(m);
}

struct stress_mult *stress_mult_new(enum stress_path path,
				    const struct stress_gemm *g, char *msg,
				    size_t size)
{
	static const char *const names[] = {
		[STRESS_PATH_PLAIN] = "plain",
		[STRESS_PATH_AVX2] = "avx2",
		[STRESS_PATH_AVX512] = "avx512",
	};
	struct stress_mult *m;

	if (path >= STRESS_PATH_COUNT || !path_supported(path)) {
		snprintf(msg, size, "this CPU cannot run the %s path",
			 path < STRESS_PATH_OPENBLAS ? names[path] : "given");
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		goto nomem;
	m->path = path;
	m->g = g;
	m->ldc = (g->n + LDC_ALIGN - 1) / LDC_ALIGN * LDC_ALIGN;
	if (path == STRESS_PATH_OPENBLAS) {
		if (openblas_load(m, msg, size)) {
			free(m);
			return NULL;
		}
		return m;
	}
	snprintf(m->name, sizeof(m->name), "builtin (%s)", names[path]);
#ifdef __x86_64__
	/*
	 * The blocks: a strip of B (KC x NR, 24 or 36 KiB) stays in L1 (32
	 * KiB on Haswell to Skylake, 48 KiB from Ice Lake on) while it meets
	 * MC rows of A (MC x KC, 192 KiB), which stay in L2 (256 KiB on
	 * Skylake laptops, 512 KiB or more from Ice Lake on).
	 */
	if (path == STRESS_PATH_AVX2) {
		m->mr = 4;
		m->nr = 12;
		m->kc = 256;
		m->mc = 96;
		m->kernel = kernel_avx2;
	} else if (path == STRESS_PATH_AVX512) {
		m->mr = 8;
		m->nr = 24;
		m->kc = 192;
		m->mc = 128;
		m->kernel = kernel_avx512;
	}
#endif
	if (m->kernel) {
		if (posix_memalign((void **)&m->ap, 64,
				   (size_t)g->n * g->n * sizeof(double)) ||
		    posix_memalign((void **)&m->bp, 64,
				   (size_t)g->n * m->ldc * sizeof(double))) {
			stress_mult_free(m);
			goto nomem;
		}
		pack_a(g, m->mr, m->ap);
		pack_b(g, m->nr, m->ldc, m->bp);
	}
	return m;
nomem:
	snprintf(msg, size, "out of memory");
	return NULL;
}

const char *stress_mult_name(const struct stress_mult *m)
{
	return m->name;
}

size_t stress_mult_ldc(const struct stress_mult *m)
{
	return m->ldc;
}

enum stress_path stress_mult_path(const struct stress_mult *m)
{
	return m->path;
}

struct stress_mult *stress_mult_builtin(const struct stress_gemm *g,
					char *msg, size_t size)
{
	static const enum stress_path best_first[] = {
		STRESS_PATH_AVX512, STRESS_PATH_AVX2, STRESS_PATH_PLAIN,
	};
	struct stress_mult *m = NULL;
	size_t i;

	for (i = 0; !m && i < sizeof(best_first) / sizeof(best_first[0]); i++)
		m = stress_mult_new(best_first[i], g, msg, size);
	/*
	 * The paths tried before say why they could not run in MSG; a run's
	 * MSG is its first failure, which must not be one of theirs.
	 */
	if (m && size)
		msg[0] = '\0';
	return m;
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
