// SPDX-License-Identifier: GPL-2.0
/*
 * stress_test: unit tests of the load (stress*.c): each path's products and
 * the verifiers, with injected faults. The expected products are computed
 * here, by a plain triple loop in 64-bit integers, and the chains by
 * stepping one by one, not by the code under test. Faults go through the
 * functions a worker uses (stress_mult_rows, stress_gemm_check_rows and
 * _cols, stress_chains_step and _check), fed a corrupted value. One TAP
 * line per property; exit status 1 when one fails.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../stress.h"

/* Rows in two panels (the last a short one), columns not a whole number
 * of any kernel's strips, and k in several blocks. */
#define N		520

static int failed;

static void check(int ok, const char *what)
{
	printf("%s - undervoltctl [stress]: %s\n", ok ? "ok" : "not ok", what);
	if (!ok)
		failed = 1;
}

/* C = A B in integers, independently of stress_mult.c's paths; ldc N. */
static int64_t *multiply_exact(const struct stress_gemm *g)
{
	unsigned int n = g->n, i, j, k;
	int64_t *c = calloc((size_t)n * n, sizeof(*c));

	for (i = 0; c && i < n; i++)
		for (k = 0; k < n; k++) {
			int64_t aik = (int64_t)g->a[i * n + k];

			for (j = 0; j < n; j++)
				c[i * n + j] += aik * (int64_t)g->b[k * n + j];
		}
	return c;
}

static void flip(double *v, unsigned int bit)
{
	uint64_t u;

	memcpy(&u, v, sizeof(u));
	u ^= 1ULL << bit;
	memcpy(v, &u, sizeof(u));
}

static unsigned int panel_rows(unsigned int n, unsigned int row)
{
	return n - row < STRESS_PANEL_ROWS ? n - row : STRESS_PANEL_ROWS;
}

/* The whole product through the worker's checks: 0 when it passes. */
static int verify(const struct stress_gemm *g, const double *c, size_t ldc,
		  char *msg, size_t size)
{
	int64_t *col = calloc(g->n, sizeof(*col));
	unsigned int row;
	int ret = 0;

	if (!col)
		return -1;
	for (row = 0; row < g->n && !ret; row += STRESS_PANEL_ROWS)
		ret = stress_gemm_check_rows(g, c + row * ldc, ldc, row,
					     panel_rows(g->n, row), col, msg,
					     size);
	if (!ret)
		ret = stress_gemm_check_cols(g, col, msg, size);
	free(col);
	return ret;
}

/* Whether the panel holding (I, J) fails its check with that entry's bit
 * BIT flipped: what a worker would see. */
static int flip_detected(const struct stress_gemm *g, double *c, size_t ldc,
			 unsigned int i, unsigned int j, unsigned int bit)
{
	unsigned int row = i / STRESS_PANEL_ROWS * STRESS_PANEL_ROWS;
	int64_t *col = calloc(g->n, sizeof(*col));
	char msg[200];
	int found;

	flip(&c[(size_t)i * ldc + j], bit);
	found = col && stress_gemm_check_rows(g, c + row * ldc, ldc, row,
					      panel_rows(g->n, row), col, msg,
					      sizeof(msg)) != 0;
	flip(&c[(size_t)i * ldc + j], bit);
	free(col);
	return found;
}

static const char *const path_names[] = {
	[STRESS_PATH_PLAIN] = "plain", [STRESS_PATH_AVX2] = "avx2",
	[STRESS_PATH_AVX512] = "avx512", [STRESS_PATH_OPENBLAS] = "openblas",
};

/*
 * One path: its product, computed panel by panel as a worker does, equals
 * the triple loop's bit for bit and passes; every single-bit flip of 32 of
 * its entries fails the check of its panel.
 */
static void test_path(enum stress_path p, const struct stress_gemm *g,
		      const int64_t *want)
{
	unsigned int n = g->n, row, e, bit, i, j, detected = 0, tried = 0;
	struct stress_mult *m;
	char msg[200], what[160];
	double *c = NULL;
	size_t ldc = 0;
	int ok;

	m = stress_mult_new(p, g, msg, sizeof(msg));
	if (!m) {
		printf("ok - undervoltctl [stress]: path %s # SKIP %s\n",
		       path_names[p], msg);
		return;
	}
	snprintf(what, sizeof(what), "path %s: named so (\"%s\")",
		 path_names[p], stress_mult_name(m));
	check(strstr(stress_mult_name(m), path_names[p]) != NULL, what);
	ldc = stress_mult_ldc(m);
	c = calloc((size_t)n * ldc, sizeof(*c));
	if (!c) {
		check(0, "memory for C");
		stress_mult_free(m);
		return;
	}
	for (row = 0; row < n; row += STRESS_PANEL_ROWS)
		stress_mult_rows(m, row, panel_rows(n, row), c + row * ldc);
	ok = ldc >= n;
	for (i = 0; ok && i < n; i++)
		for (j = 0; ok && j < n; j++) {
			double v = (double)want[(size_t)i * n + j];

			ok = memcmp(&c[i * ldc + j], &v, sizeof(v)) == 0;
		}
	snprintf(what, sizeof(what), "path %s: the product equals the "
		 "integer triple loop's, bit for bit", path_names[p]);
	check(ok, what);
	snprintf(what, sizeof(what), "path %s: its product passes "
		 "verification", path_names[p]);
	check(verify(g, c, ldc, msg, sizeof(msg)) == 0, what);

	/* Every bit of 32 entries spread over the matrix, one at a time. */
	for (e = 0; e < 32; e++) {
		unsigned int idx = (e * 7919 + e * e * 17) % (n * n);

		for (bit = 0; bit < 64; bit++) {
			tried++;
			detected += flip_detected(g, c, ldc, idx / n, idx % n,
						  bit);
		}
	}
	printf("# path %s: %u of %u single-bit flips detected\n",
	       path_names[p], detected, tried);
	snprintf(what, sizeof(what), "path %s: every single-bit flip of 32 "
		 "result entries fails its panel's check", path_names[p]);
	check(detected == tried && tried == 32 * 64, what);
	free(c);
	stress_mult_free(m);
}

/* Errors that cancel in a column or in a row: the other sums find them. */
static void test_cancelling(const struct stress_gemm *g, const int64_t *want)
{
	unsigned int n = g->n, i;
	double *c = malloc((size_t)n * n * sizeof(*c));
	char msg[200];
	int ok;

	if (!c) {
		check(0, "memory for C");
		return;
	}
	for (i = 0; i < n * n; i++)
		c[i] = (double)want[i];
	check(verify(g, c, n, msg, sizeof(msg)) == 0,
	      "the triple loop's product passes verification");
	c[0] += 4;
	c[n] -= 4;
	ok = verify(g, c, n, msg, sizeof(msg)) != 0 &&
	     strstr(msg, "row 0 ") != NULL;
	check(ok, "two errors that cancel in a column are found by the row sums");
	c[n] += 4;
	c[1] -= 4;
	ok = verify(g, c, n, msg, sizeof(msg)) != 0 &&
	     strstr(msg, "column 0 ") != NULL;
	check(ok, "two errors that cancel in a row are found by the column sums");
	c[0] -= 4;
	c[1] += 4;
	c[5 * n + 7] = 0.5 + (double)want[5 * n + 7];
	ok = verify(g, c, n, msg, sizeof(msg)) != 0 &&
	     strstr(msg, "entry (5,7)") != NULL;
	check(ok, "a non-integer entry is named in the message");
	free(c);
}

/*
 * A true zero result: row 0 of A alternates 1 and -1, B is all ones.
 * -0.0 equals 0.0 but is not the bit pattern the product has.
 */
static void test_negative_zero(void)
{
	struct stress_gemm g;
	double c[64];
	char msg[200];
	unsigned int i;
	int ok;

	if (stress_gemm_init(&g, 8, 3)) {
		check(0, "stress_gemm_init(8)");
		return;
	}
	for (i = 0; i < 64; i++) {
		g.a[i] = i < 8 ? ((i & 1) ? -1 : 1) : 2;
		g.b[i] = 1;
		c[i] = i < 8 ? 0 : 16;
	}
	for (i = 0; i < 8; i++) {
		g.row_ref[i] = i ? 8 * 16 : 0;
		g.col_ref[i] = 7 * 16;
	}
	ok = verify(&g, c, 8, msg, sizeof(msg)) == 0;
	flip(&c[3], 63);
	ok &= verify(&g, c, 8, msg, sizeof(msg)) != 0;
	check(ok, "a sign flip of a zero entry (-0.0) is detected");
	stress_gemm_free(&g);
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

/* Whether /proc/cpuinfo's first "flags" line lists every flag in WANT. */
static int cpuinfo_has(const char *const *want)
{
	char line[8192], padded[8200], key[32];
	FILE *f = fopen("/proc/cpuinfo", "r");
	const char *flags;
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strncmp(line, "flags", 5) == 0;
	if (f)
		fclose(f);
	if (!found)
		return 0;
	line[strcspn(line, "\n")] = '\0';
	flags = strchr(line, ':');
	snprintf(padded, sizeof(padded), "%s ", flags ? flags : line);
	for (; *want; want++) {
		snprintf(key, sizeof(key), " %s ", *want);
		if (!strstr(padded, key))
			return 0;
	}
	return 1;
}

/*
 * The OpenBLAS core the openblas path asks for: the literal rule, then
 * what the library reports it loaded, against the CPU's flags as the
 * kernel lists them (not the compiler's probe that stress_mult.c uses).
 * Runs before anything else loads OpenBLAS: the library reads the
 * variable once, when it is loaded.
 */
static void test_openblas_core(const struct stress_gemm *g)
{
	static const char *const avx512[] = {
		"avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512cd", NULL
	};
	static const char *const avx2[] = { "avx2", "fma", NULL };
	const char *core = NULL, *given = getenv("OPENBLAS_CORETYPE");
	struct stress_mult *m;
	char msg[256], want[64];

	check(strcmp(stress_openblas_core(true, true), "SkylakeX") == 0,
	      "OpenBLAS core with AVX-512: SkylakeX");
	check(strcmp(stress_openblas_core(false, true), "Haswell") == 0,
	      "OpenBLAS core with AVX2 and FMA: Haswell");
	check(stress_openblas_core(false, false) == NULL,
	      "OpenBLAS core without AVX2: the library's own choice");
	if (cpuinfo_has(avx512))
		core = "SkylakeX";
	else if (cpuinfo_has(avx2))
		core = "Haswell";
	if (given)
		core = given;
	m = core ? stress_mult_new(STRESS_PATH_OPENBLAS, g, msg, sizeof(msg))
		 : NULL;
	if (!m) {
		printf("ok - undervoltctl [stress]: OpenBLAS runs the core the "
		       "CPU's flags name # SKIP %s\n",
		       core ? msg : "no AVX2 in /proc/cpuinfo");
		return;
	}
	snprintf(want, sizeof(want), "openblas (core %s)", core);
	printf("# loaded: %s; OPENBLAS_CORETYPE %s\n", stress_mult_name(m),
	       given ? "given" : "not given");
	check(strcmp(stress_mult_name(m), want) == 0,
	      given ? "OpenBLAS runs the core OPENBLAS_CORETYPE names" :
		      "OpenBLAS runs the core the CPU's flags name");
	stress_mult_free(m);
}

/* A short run of engine E (whose name starts with NAME) at size N. */
static void test_run(enum stress_engine e, const char *name, unsigned int n)
{
	struct stress_opts o = {
		.seconds = 1, .n = n, .engine = e, .all_cores_only = true,
		.stall_seconds = 30,
	};
	struct stress_result r;
	char what[160];
	int ok;

	if (stress_run(&o, &r) != 0 && e == STRESS_ENGINE_OPENBLAS &&
	    strstr(r.error, "OpenBLAS") != NULL) {
		printf("ok - undervoltctl [stress]: a short run of %s # SKIP "
		       "%s\n", name, r.error);
		return;
	}
	printf("# %s, %ux%u: %llu products, %llu chains, %.1f GFLOP/s\n",
	       r.engine, r.n, r.n, r.gemms, r.chains,
	       r.flops / r.seconds / 1e9);
	/* A product of more than one panel may not end within the run in
	 * this sanitized build on a loaded machine; its checked panels count. */
	ok = r.flops > 0 && !r.wrong && !r.stalled && r.n == n &&
	     strncmp(r.engine, name, strlen(name)) == 0 &&
	     ((r.gemms > 0 && r.chains > 0) || n > STRESS_PANEL_ROWS);
	snprintf(what, sizeof(what), "a short run of %s at %ux%u verifies "
		 "its results", name, n, n);
	check(ok, what);
}

int main(void)
{
	struct stress_gemm g;
	int64_t *want;
	int p;

	check(stress_gemm_init(&(struct stress_gemm){ 0 }, 60, 1) != 0,
	      "a size that is not a multiple of 8 is refused");
	check(stress_gemm_init(&(struct stress_gemm){ 0 }, STRESS_MAX_N + 8,
			       1) != 0, "a size above STRESS_MAX_N is refused");
	if (stress_gemm_init(&g, N, 7)) {
		check(0, "stress_gemm_init(N)");
		return 1;
	}
	want = multiply_exact(&g);
	if (!want) {
		check(0, "memory for the triple loop");
		return 1;
	}
	test_openblas_core(&g);
	test_cancelling(&g, want);
	for (p = 0; p < STRESS_PATH_COUNT; p++)
		test_path((enum stress_path)p, &g, want);
	free(want);
	stress_gemm_free(&g);
	test_negative_zero();
	test_chains();
	test_run(STRESS_ENGINE_BUILTIN, "builtin", 64);
	test_run(STRESS_ENGINE_BUILTIN, "builtin", N);
	test_run(STRESS_ENGINE_OPENBLAS, "openblas", N);
	return failed;
}
