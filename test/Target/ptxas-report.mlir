// REQUIRES: ptxas
// RUN: tilec %S/Inputs/copy.mlir --emit=bundle -o %t.tilec --report | FileCheck %s --check-prefix=COPY
// RUN: tilec %S/Inputs/gemm_one_stage.mlir --emit=cubin -o %t.cubin --report | FileCheck %s --check-prefix=GEMM
// ptxas assembles the kernels; the report gives registers, shared memory and
// spills (none), and where the outputs went.

// COPY: kernel tma_copy (sm_90a)
// COPY-NEXT: threads: 128 (1 warpgroups)
// COPY-NEXT: grid: fixed
// COPY-NEXT: shared memory: 16392 bytes dynamic
// COPY-NEXT: registers: {{[0-9]+}} per thread
// COPY: spills: 0 bytes stored, 0 bytes loaded
// COPY: wrote {{.*}}.tilec

// GEMM: kernel gemm_rung1 (sm_90a)
// GEMM: spills: 0 bytes stored, 0 bytes loaded
// GEMM: wrote {{.*}}.cubin
// GEMM: wrote {{.*}}.json
