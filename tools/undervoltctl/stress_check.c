// SPDX-License-Identifier: GPL-2.0
/*
 * stress_check.c: the problem of the self-checking load and its checks;
 * stress.h says why each check finds a single flipped bit.
 *
 *	the problem		stress_gemm_init(), the references
 *	the checks		stress_gemm_check_rows(), _cols()
 *	the chains		stress_chains_*(), stress_lcg_jump()
 *
 * Nothing here computes a product: the paths that do are in stress_mult.c,
 * and the test (tests/stress_test.c) feeds these checks faults directly.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

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
