// SPDX-License-Identifier: GPL-2.0
/*
 * stress.c: the self-checking load of undervoltctl tune and stress; see
 * stress.h for why each check finds a single flipped bit.
 *
 *	the problem		stress_gemm_init(), the references
 *	the checks		stress_gemm_check_rows(), _cols(), the chains
 *	the paths		plain C; AVX2, AVX-512 kernels on packed copies;
 *				OpenBLAS (stress_mult_*)
 *	the run			workers, phases, stress_run()
 */
#include <errno.h>
#include <inttypes.h>
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
/*
 * C's rows are padded to a multiple of this: a whole number of the widest
 * kernel's column strips (24), so that no kernel needs an edge case, and a
 * multiple of 8 doubles, so that the checker's vectors never straddle.
 */
#define LDC_ALIGN		24

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
	    posix_memalign((void **)&g->b, 64, nn * sizeof(double)))
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

/*
 * The checker runs after every panel, so it must cost little beside the
 * product: entries two at a time in GCC's generic vectors, the width of
 * SSE2, which every x86-64 has (no CPU probe, one checker for all paths),
 * and no branch per entry.
 */
typedef double v2df __attribute__((vector_size(16)));
typedef uint64_t v2du __attribute__((vector_size(16)));

/*
 * Whether the 2 entries at P are exact integers below 2^51 in magnitude,
 * and their values. v + 1.5 * 2^52 lies in [2^52, 2^53), where the doubles
 * are the integers, exactly when |v| < 2^51 (NaN, infinity and larger
 * values leave that exponent); its low bits are then v + 2^51, and
 * subtracting 1.5 * 2^52 again gives back the same bits only when v was an
 * integer (and not -0, which comes back as +0). Nothing here is a
 * multiplication the compiler could fuse, and ISO C keeps the additions as
 * written. Returns non-zero bits in the lane of a bad entry; K gets the
 * values.
 */
static inline v2du exact2(const double *p, v2du *k)
{
	const v2df magic = { 0x1.8p52, 0x1.8p52 };
	const v2du magic_bits = (v2du)magic;
	const v2du exponent = { 0xfffULL << 52, 0xfffULL << 52 };
	v2df v, t, back;

	memcpy(&v, p, sizeof(v));
	t = v + magic;
	back = t - magic;
	*k = (v2du)t - magic_bits;
	return ((v2du)back ^ (v2du)v) | (((v2du)t ^ magic_bits) & exponent);
}

/* The first bad entry of CI (C's row ROW), into MSG. */
static void describe_entry(const double *ci, unsigned int n, unsigned int row,
			   char *msg, size_t size)
{
	unsigned int j, l;
	v2du k, bad;

	for (j = 0; j < n; j += 2) {
		bad = exact2(ci + j, &k);
		for (l = 0; l < 2; l++) {
			if (bad[l]) {
				snprintf(msg, size, "matrix entry (%u,%u) is %a, "
					 "not an exact integer", row, j + l,
					 ci[j + l]);
				return;
			}
		}
	}
	snprintf(msg, size, "row %u has an entry that is not an exact integer",
		 row);
}

/* COL[J] and COL[J + 1] += K, in the lanes' unsigned arithmetic. */
static inline void add_col(int64_t *col, v2du k)
{
	v2du acc;

	memcpy(&acc, col, sizeof(acc));
	acc += k;
	memcpy(col, &acc, sizeof(acc));
}

int stress_gemm_check_rows(const struct stress_gemm *g, const double *c,
			   size_t ldc, unsigned int row, unsigned int rows,
			   int64_t *col, char *msg, size_t size)
{
	unsigned int n = g->n, i, j;

	for (i = 0; i < rows; i++) {
		const double *ci = c + (size_t)i * ldc;
		v2du bad = { 0 }, sum0 = { 0 }, sum1 = { 0 }, k0, k1;
		int64_t total;

		/* Two independent chains of additions; n is a multiple of 8. */
		for (j = 0; j < n; j += 4) {
			bad |= exact2(ci + j, &k0) | exact2(ci + j + 2, &k1);
			sum0 += k0;
			sum1 += k1;
			add_col(col + j, k0);
			add_col(col + j + 2, k1);
		}
		if (bad[0] | bad[1]) {
			describe_entry(ci, n, row + i, msg, size);
			return -1;
		}
		/*
		 * Unsigned lanes: the entries are in range, so the sum is the
		 * row's (|sum| < n * 2^51), with no signed overflow on the way.
		 */
		sum0 += sum1;
		total = (int64_t)(sum0[0] + sum0[1]);
		if (total != g->row_ref[row + i]) {
			snprintf(msg, size, "row %u sums to %" PRId64
				 ", expected %" PRId64, row + i, total,
				 g->row_ref[row + i]);
			return -1;
		}
	}
	return 0;
}

int stress_gemm_check_cols(const struct stress_gemm *g, const int64_t *col,
			   char *msg, size_t size)
{
	unsigned int j;

	for (j = 0; j < g->n; j++) {
		if (col[j] != g->col_ref[j]) {
			snprintf(msg, size, "column %u sums to %" PRId64
				 ", expected %" PRId64, j, col[j], g->col_ref[j]);
			return -1;
		}
	}
	return 0;
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

static int openblas_load(struct stress_mult *m, char *msg, size_t size)
{
#ifdef UNDERVOLTCTL_NO_DLOPEN
	(void)m;
	snprintf(msg, size, "this build of undervoltctl cannot load OpenBLAS");
	return -1;
#else
	void (*set_threads)(int);
	char *(*corename)(void);

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

/* The best builtin path this CPU has. */
static struct stress_mult *builtin_new(const struct stress_gemm *g,
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
		cand[1] = builtin_new(&g, msg, len);
	for (i = 0; i < 2; i++) {
		if (!cand[i])
			continue;
		if (o->n) {
			n = o->n;
			/* Only a choice needs the rate. */
			rate = cand[!i] ? panel_rate(cand[i]->path, n, &t) : 0;
		} else {
			n = pick_size(cand[i]->path, &rate);
		}
		if (rate > best) {
			best = rate;
			*path = cand[i]->path;
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
