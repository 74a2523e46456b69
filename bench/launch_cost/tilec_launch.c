// tilec_launch's cost per call from C: a bundle's kernel (argv[1], argv[2])
// on 128x256x256 bf16 operands, best of 5 runs of 5000 launches.
#include "tilec/tilec_runtime.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static void tensor(tilec_arg *a, uint64_t p, int64_t r, int64_t c) {
  memset(a, 0, sizeof *a); a->kind = TILEC_ARG_TENSOR; a->dtype = TILEC_DTYPE_BF16; a->rank = 2; a->data = p;
  a->shape[0] = r; a->shape[1] = c; a->strides[0] = c; a->strides[1] = 1; }
int main(int argc, char **argv) {
  tilec_module *m; tilec_kernel *k;
  if (tilec_module_load_file(argv[1], &m) || tilec_module_get_kernel(m, argv[2], &k)) { printf("load: %s\n", tilec_last_error()); return 1; }
  int M = 128, N = 256, K = 256; uint64_t a, b, d;
  tilec_device_alloc(M * K * 2, &a); tilec_device_alloc(N * K * 2, &b); tilec_device_alloc(M * N * 2, &d);
  tilec_arg args[3]; tensor(&args[0], a, M, K); tensor(&args[1], b, N, K); tensor(&args[2], d, M, N);
  for (int i = 0; i < 200; ++i) if (tilec_launch(k, args, 3, NULL)) { printf("launch: %s\n", tilec_last_error()); return 1; }
  tilec_synchronize(NULL);
  int n = 5000; double best = 1e9;
  for (int r = 0; r < 5; ++r) { double t = now(); for (int i = 0; i < n; ++i) tilec_launch(k, args, 3, NULL);
    double us = (now() - t) / n * 1e6; tilec_synchronize(NULL); if (us < best) best = us; }
  printf("tilec_launch (C, bf16 128x256x256): %.2f us best of 5\n", best);
  return 0;
}
