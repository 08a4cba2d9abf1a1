/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stress.h: a CPU load that checks every result it computes.
 *
 * An undervolted CPU that is not stable computes wrong results before it
 * crashes. The load is dense double-precision matrix multiplication (FMA
 * work, the most power a core draws) and chains of 64-bit integer
 * multiplies (Plundervolt's faults were in imul), each verified so that a
 * single flipped bit in any result is always found:
 *
 * - The matrices hold non-zero integers of at most 2^20, so every product
 *   and every partial sum (at most STRESS_MAX_N * 2^40 < 2^51) is an exact
 *   double. Each entry of C must be the bit pattern of an integer below
 *   2^51 in magnitude; the exact integer row and column sums of C must
 *   equal A * (B e) and (e^T A) * B, computed once in 64-bit integers. A
 *   flipped bit either leaves a non-integer (or -0, NaN, infinity, or a
 *   value out of range), caught by the first test, or changes the
 *   integer, and with it its row and column sums.
 * - Each chain x <- x * M + c (mod 2^64, M odd) is compared with its value
 *   after L steps computed by jumping ahead (x_L = A x_0 + C, A and C by
 *   repeated squaring). Multiplying by an odd M is a bijection mod 2^64,
 *   so a difference at any step survives to the end.
 *
 * A product is computed and checked in panels of STRESS_PANEL_ROWS rows of
 * C, so that a worker sees its stop flag and shows progress between panels
 * however large the matrices are: the rows of a panel are checked as soon
 * as it is computed, the columns once every panel of the product is.
 *
 * stress_check.c holds the problem and these checks, stress_mult.c the
 * paths that compute, stress.c the run. None of them uses global state;
 * everything lives in the caller's struct stress_run, struct stress_gemm
 * and struct stress_mult.
 */
#ifndef UNDERVOLTCTL_STRESS_H
#define UNDERVOLTCTL_STRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 1536 * 2^40 < 2^51: the bound the verifier checks entries against. */
#define STRESS_MAX_N		1536
#define STRESS_ENTRY_BITS	20	/* |entries| of A and B at most 2^20 */
#define STRESS_PANEL_ROWS	512	/* rows of C computed between checks */

/* The problem: A and B, shared read-only by the workers of a run. */
struct stress_gemm {
	unsigned int n;			/* square, a multiple of 8 */
	double *a, *b;			/* row-major, n * n each */
	int64_t *row_ref, *col_ref;	/* A (B e) and (e^T A) B */
};

int stress_gemm_init(struct stress_gemm *g, unsigned int n, uint64_t seed);
void stress_gemm_free(struct stress_gemm *g);

/*
 * Check rows ROW to ROW + ROWS - 1 of C = A B, given as ROWS rows of LDC
 * doubles starting at C (the first n of each row are C's): every entry an
 * exact integer, every row sum the reference. Adds each column's sum to
 * COL (n entries). 0, or -1 with the first wrong entry or sum in MSG.
 */
int stress_gemm_check_rows(const struct stress_gemm *g, const double *c,
			   size_t ldc, unsigned int row, unsigned int rows,
			   int64_t *col, char *msg, size_t size);
/* Once every row went through the above: COL against the reference. */
int stress_gemm_check_cols(const struct stress_gemm *g, const int64_t *col,
			   char *msg, size_t size);

/* x <- x * mult + plus, STEPS times, by jumping ahead. */
uint64_t stress_lcg_jump(uint64_t x, uint64_t mult, uint64_t plus,
			 uint64_t steps);

/*
 * The multiply chains of one worker: four in lockstep keep the multiplier
 * busy. A worker initialises them, steps them STRESS_CHAIN_STEPS times and
 * checks the ends against the jumped-ahead values computed at init.
 */
#define STRESS_CHAINS		4
#define STRESS_CHAIN_STEPS	(1u << 18)
#define STRESS_CHAIN_MULT	0x5851f42d4c957f2dULL	/* odd */
#define STRESS_CHAIN_PLUS	0x14057b7ef767814fULL

struct stress_chains {
	uint64_t x[STRESS_CHAINS];	/* where each chain is */
	uint64_t end[STRESS_CHAINS];	/* where it must be after the steps */
};

void stress_chains_init(struct stress_chains *ch);
void stress_chains_step(struct stress_chains *ch, unsigned int steps);
/* 0 when every chain is at its end; otherwise -1 with the first in MSG. */
int stress_chains_check(const struct stress_chains *ch, char *msg,
			size_t size);

/* What the user asks for. */
enum stress_engine {
	STRESS_ENGINE_AUTO,		/* whichever of the two is faster */
	STRESS_ENGINE_BUILTIN,
	STRESS_ENGINE_OPENBLAS,
};

/* "auto", "builtin" or "openblas" into *E; -1 for anything else. */
int stress_engine_parse(const char *name, enum stress_engine *e);

/* What computes: the builtin engine picks the best path the CPU has. */
enum stress_path {
	STRESS_PATH_PLAIN,		/* builtin, plain C, any CPU */
	STRESS_PATH_AVX2,		/* builtin, AVX2 and FMA */
	STRESS_PATH_AVX512,		/* builtin, AVX-512F */
	STRESS_PATH_OPENBLAS,		/* libopenblas.so.0, one thread */
	STRESS_PATH_COUNT,
};

/* A path made ready for one problem (OpenBLAS loaded, or A, B packed). */
struct stress_mult;

/*
 * NULL with the reason in MSG when the CPU lacks the path's instructions,
 * OpenBLAS does not load, or memory runs out. G must outlive the result.
 */
struct stress_mult *stress_mult_new(enum stress_path path,
				    const struct stress_gemm *g, char *msg,
				    size_t size);
/* The best builtin path this CPU has (its name says which), or NULL. */
struct stress_mult *stress_mult_builtin(const struct stress_gemm *g,
					char *msg, size_t size);
void stress_mult_free(struct stress_mult *m);
/*
 * The OpenBLAS core (its OPENBLAS_CORETYPE) whose DGEMM kernels use what
 * the CPU has: "SkylakeX" with Skylake-SP's AVX-512 (F, DQ, BW, VL, CD),
 * "Haswell" with AVX2 and FMA, NULL for OpenBLAS's own choice. The
 * openblas path sets it before loading the library unless the user did.
 */
const char *stress_openblas_core(bool avx512, bool avx2_fma);
/* "builtin (avx512)", "openblas (core SkylakeX)"... */
const char *stress_mult_name(const struct stress_mult *m);
/* The path it computes on. */
enum stress_path stress_mult_path(const struct stress_mult *m);
/* The row length (>= n) that a buffer for C must have. */
size_t stress_mult_ldc(const struct stress_mult *m);
/*
 * Rows ROW to ROW + ROWS - 1 (ROW and ROWS multiples of 8) of C = A B into
 * C, ROWS rows of stress_mult_ldc() doubles; columns past n are scratch.
 */
void stress_mult_rows(const struct stress_mult *m, unsigned int row,
		      unsigned int rows, double *c);

struct stress_opts {
	double seconds;			/* the whole run */
	unsigned int n;			/* matrix size; 0 picks one */
	bool all_cores_only;		/* no phases on one core at a time */
	enum stress_engine engine;
	double stall_seconds;		/* a worker without progress this long */
	/* Called every 100 ms; true stops the run (an outside error). */
	bool (*should_stop)(void *ctx);
	void *ctx;
};

struct stress_result {
	char engine[48];		/* "openblas (...)", "builtin (avx2)"... */
	unsigned int n;
	double seconds;
	double flops;			/* of verified panels */
	unsigned long long gemms, chains;
	unsigned int wrong;		/* results that failed verification */
	unsigned int stalled;		/* workers that stopped making progress */
	bool stopped;			/* should_stop() said so */
	char error[200];		/* the first failure, "" when none */
};

/*
 * Run the load: half of the time on every online CPU at once, the other
 * half on each CPU in turn, pinned, with a short idle between phases (the
 * load steps that undervolted CPUs fail on). Returns 0 when the run ended
 * (R says whether anything failed), -1 when it could not start (MSG in
 * R->error).
 */
int stress_run(const struct stress_opts *o, struct stress_result *r);

#endif
