// SPDX-License-Identifier: GPL-2.0
/*
 * dgemm-baseline: the rate of OpenBLAS's own DGEMM on this machine, with
 * all the threads it wants, for scripts/bench to compare undervoltctl
 * stress with. Not a test: it prints "dgemm: N.NN GFLOP/s".
 *
 *   dgemm-baseline SECONDS [N]     (N: matrix size, default 2048)
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds, start, t, *a, *b, *c;
	unsigned long calls = 0;
	size_t i, nn;
	int n;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: dgemm-baseline SECONDS [N]\n");
		return 2;
	}
	seconds = atof(argv[1]);
	n = argc == 3 ? atoi(argv[2]) : 2048;
	if (!(seconds > 0) || n < 8) {
		fprintf(stderr, "dgemm-baseline: bad SECONDS or N\n");
		return 2;
	}
	nn = (size_t)n * n;
	a = malloc(nn * sizeof(*a));
	b = malloc(nn * sizeof(*b));
	c = malloc(nn * sizeof(*c));
	if (!a || !b || !c) {
		fprintf(stderr, "dgemm-baseline: out of memory\n");
		return 1;
	}
	/* Random data, as the load draws most power with it. */
	srand(1);
	for (i = 0; i < nn; i++) {
		a[i] = rand() / (double)RAND_MAX - 0.5;
		b[i] = rand() / (double)RAND_MAX - 0.5;
	}
	start = now_s();
	do {
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,
			    1.0, a, n, b, n, 0.0, c, n);
		calls++;
		t = now_s() - start;
	} while (t < seconds);
	/* The core is OpenBLAS's guess of the CPU (a CPU newer than the
	 * library gets an old core's kernels, e.g. "Prescott", SSE3) unless
	 * OPENBLAS_CORETYPE names one: scripts/bench checks it is the core
	 * undervoltctl stress loaded. */
	printf("dgemm: %.2f GFLOP/s (core %s, %d threads, %lu calls of %dx%d, "
	       "%.1f s)\n", 2.0 * n * n * (double)n * calls / t / 1e9,
	       openblas_get_corename(), openblas_get_num_threads(), calls, n,
	       n, t);
	free(a);
	free(b);
	free(c);
	return 0;
}
