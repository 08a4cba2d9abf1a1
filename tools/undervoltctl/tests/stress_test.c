// SPDX-License-Identifier: GPL-2.0
/*
 * stress_test: unit tests of the load's verifiers (stress.c) with injected
 * faults. The expected products are computed here, by a plain triple loop
 * in 64-bit integers, and the chains by stepping one by one, not by the
 * code under test. Faults in the chains go through the functions a worker
 * uses (stress_chains_step and _check), fed a corrupted value. One TAP
 * line per property; exit status 1 when one fails.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../stress.h"

static int failed;

static void check(int ok, const char *what)
{
	printf("%s - undervoltctl [stress]: %s\n", ok ? "ok" : "not ok", what);
	if (!ok)
		failed = 1;
}

/* C = A B in integers, independently of stress.c's engines. */
static void multiply_exact(struct stress_gemm *g)
{
	unsigned int n = g->n, i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int64_t sum = 0;

			for (k = 0; k < n; k++)
				sum += (int64_t)g->a[i * n + k] *
				       (int64_t)g->b[k * n + j];
			g->c[i * n + j] = (double)sum;
		}
}

static void flip(double *v, unsigned int bit)
{
	uint64_t u;

	memcpy(&u, v, sizeof(u));
	u ^= 1ULL << bit;
	memcpy(v, &u, sizeof(u));
}

static uint64_t step_naive(uint64_t x, uint64_t steps)
{
	while (steps--)
		x = x * 0x5851f42d4c957f2dULL + 0x14057b7ef767814fULL;
	return x;
}

static void test_chains(void)
{
	static const uint64_t steps[] = { 0, 1, 2, 3, 1000, 65537, 1u << 18 };
	const uint64_t mult = 0x5851f42d4c957f2dULL;
	const uint64_t plus = 0x14057b7ef767814fULL;
	unsigned int detected = 0, tried = 0, i, c;
	struct stress_chains ch, start;
	uint64_t seed = 42;
	char msg[200];
	int ok = 1;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		ok &= stress_lcg_jump(12345, mult, plus, steps[i]) ==
		      step_naive(12345, steps[i]);
	check(ok, "the multiply chain's jump-ahead equals stepping one by one");

	/* The worker's chains, against this file's own stepping, from where
	 * init puts them and from anywhere else. */
	stress_chains_init(&start);
	ok = STRESS_CHAIN_MULT == mult && STRESS_CHAIN_PLUS == plus;
	for (c = 0; c < STRESS_CHAINS; c++)
		ok &= start.end[c] == step_naive(start.x[c], STRESS_CHAIN_STEPS);
	ch = start;
	stress_chains_step(&ch, 1000);
	for (c = 0; c < STRESS_CHAINS; c++)
		ok &= ch.x[c] == step_naive(start.x[c], 1000);
	for (c = 0; c < STRESS_CHAINS; c++)
		ch.x[c] = 1000 + c;
	stress_chains_step(&ch, 1000);
	for (c = 0; c < STRESS_CHAINS; c++)
		ok &= ch.x[c] == step_naive(1000 + c, 1000);
	ch = start;
	stress_chains_step(&ch, STRESS_CHAIN_STEPS);
	ok &= stress_chains_check(&ch, msg, sizeof(msg)) == 0;
	check(ok, "the chains step and end as stepping one by one says");

	/*
	 * A flipped bit at a random step of a random chain, through the
	 * worker's functions; first, of each chain, before the first step and
	 * after the last.
	 */
	for (i = 0; i < 512; i++) {
		uint64_t s = (seed = seed * 6364136223846793005ULL + 1) >> 11;
		unsigned int at = (unsigned int)(s % (STRESS_CHAIN_STEPS + 1));
		unsigned int bit = (unsigned int)(s >> 20) % 64;

		c = (unsigned int)(s >> 30) % STRESS_CHAINS;
		if (i < 2 * STRESS_CHAINS) {
			at = i % 2 ? STRESS_CHAIN_STEPS : 0;
			c = i / 2;
		}
		ch = start;
		stress_chains_step(&ch, at);
		ch.x[c] ^= 1ULL << bit;
		stress_chains_step(&ch, STRESS_CHAIN_STEPS - at);
		tried++;
		detected += stress_chains_check(&ch, msg, sizeof(msg)) != 0;
	}
	printf("# %u of %u flipped chain steps detected\n", detected, tried);
	check(detected == tried, "a flipped bit at any step of a chain fails "
	      "the worker's check");
}

int main(void)
{
	struct stress_gemm g;
	unsigned int detected = 0, tried = 0, e, bit, i;
	char msg[200];
	int ok;

	if (stress_gemm_init(&g, 64, 7)) {
		check(0, "stress_gemm_init(64)");
		return 1;
	}
	check(stress_gemm_init(&(struct stress_gemm){ 0 }, 60, 1) != 0,
	      "a size that is not a multiple of 8 is refused");
	multiply_exact(&g);
	check(stress_gemm_verify(&g, msg, sizeof(msg)) == 0,
	      "the exact product passes verification");

	/* Every bit of 32 entries spread over the matrix, one at a time. */
	for (e = 0; e < 32; e++) {
		unsigned int idx = (e * 131 + e * e * 17) % (64 * 64);

		for (bit = 0; bit < 64; bit++) {
			flip(&g.c[idx], bit);
			tried++;
			detected += stress_gemm_verify(&g, msg, sizeof(msg)) != 0;
			flip(&g.c[idx], bit);
		}
	}
	printf("# %u of %u single-bit flips detected\n", detected, tried);
	check(detected == tried && tried == 32 * 64,
	      "every single-bit flip of 32 result entries is detected");
	check(stress_gemm_verify(&g, msg, sizeof(msg)) == 0,
	      "the product passes again once the flips are undone");

	/* Two errors that cancel in their column still change two rows. */
	g.c[0] += 4;
	g.c[64] -= 4;
	ok = stress_gemm_verify(&g, msg, sizeof(msg)) != 0 &&
	     strstr(msg, "row") != NULL;
	g.c[0] -= 4;
	g.c[64] += 4;
	check(ok, "two errors that cancel in a column are found by the row sums");

	stress_gemm_free(&g);

	/*
	 * A true zero result: row 0 of A alternates 1 and -1, B is all ones.
	 * -0.0 equals 0.0 but is not the bit pattern the product has.
	 */
	if (stress_gemm_init(&g, 8, 3)) {
		check(0, "stress_gemm_init(8)");
		return 1;
	}
	for (i = 0; i < 64; i++) {
		g.a[i] = i < 8 ? ((i & 1) ? -1 : 1) : 2;
		g.b[i] = 1;
	}
	multiply_exact(&g);
	memset(g.row_ref, 0, 8 * sizeof(*g.row_ref));
	memset(g.col_ref, 0, 8 * sizeof(*g.col_ref));
	for (i = 0; i < 64; i++) {
		g.row_ref[i / 8] += (int64_t)g.c[i];
		g.col_ref[i % 8] += (int64_t)g.c[i];
	}
	ok = g.c[3] == 0 && stress_gemm_verify(&g, msg, sizeof(msg)) == 0;
	flip(&g.c[3], 63);
	ok &= stress_gemm_verify(&g, msg, sizeof(msg)) != 0;
	check(ok, "a sign flip of a zero entry (-0.0) is detected");
	stress_gemm_free(&g);

	test_chains();

	{
		struct stress_opts o = {
			.seconds = 0.6, .n = 64, .engine = STRESS_ENGINE_BUILTIN,
			.stall_seconds = 30,
		};
		struct stress_result r;

		ok = stress_run(&o, &r) == 0 && r.gemms > 0 && r.chains > 0 &&
		     !r.wrong && !r.stalled;
		check(ok, "a short run of the builtin engine verifies its results");
	}
	return failed;
}
