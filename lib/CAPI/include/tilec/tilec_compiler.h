/*===- tilec_compiler.h - the tilec compiler's C API --------------*- C -*-===*\
|*                                                                            *|
|* The compiler as a library (libtilec_compiler.so): compile spec text to a   *|
|* bundle in process, pick the kernel library's configuration for a problem,  *|
|* and get a kernel through the in-memory and on-disk caches. Plain C: no C++ *|
|* type crosses it, every struct is plain data (ctypes can mirror it). Every  *|
|* function is thread-safe, never prints (except under the TILEC_PRINT_*     *|
|* switches of tilec_get_kernel), never throws and never exits. A failed call *|
|* returns a status and keeps a message naming the bad argument, read with    *|
|* tilec_compiler_last_error() on the same thread. docs/capi.md describes it. *|
|*                                                                            *|
|* The names differ from the runtime's (tilec_runtime.h), so that both        *|
|* headers can be included in one translation unit.                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILEC_COMPILER_C_H
#define TILEC_COMPILER_C_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TILEC_COMPILER_API
#else
#define TILEC_COMPILER_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Version of this API (major * 10000 + minor * 100 + patch). A struct gains
 *  fields only at its end and only with a new minor version. */
#define TILEC_COMPILER_API_VERSION 400

typedef enum tilec_compiler_status {
  TILEC_COMPILER_OK = 0,
  /* A bad request: null pointer, unknown family or dtype, non-positive
   * shape, malformed define, unknown target. The message names it. */
  TILEC_COMPILER_ERROR_INVALID_ARGUMENT = 1,
  /* The spec did not compile, or ptxas is missing or failed: the
   * diagnostics (or the message) say why. */
  TILEC_COMPILER_ERROR_COMPILE = 2,
  /* The cache directory cannot be created or written. */
  TILEC_COMPILER_ERROR_CACHE = 3,
  /* A bug in tilec. */
  TILEC_COMPILER_ERROR_INTERNAL = 4,
  /* tilec_get_kernel_ex with TILEC_KERNEL_CACHED_ONLY: the kernel is in
   * neither cache (or another thread is compiling it); nothing compiled. */
  TILEC_COMPILER_NOT_CACHED = 5
} tilec_compiler_status;

/** The compiler's version: "0.1.0", plus "+g<git hash>" (and "-dirty") when
 *  built from a git checkout. It is part of every kernel key, so a cache
 *  never hands a kernel of another compiler build. */
TILEC_COMPILER_API const char *tilec_compiler_version(void);
/** "TILEC_COMPILER_ERROR_COMPILE", ... */
TILEC_COMPILER_API const char *
tilec_compiler_status_name(tilec_compiler_status status);
/** The message of the last failed call on this thread ("" if none). */
TILEC_COMPILER_API const char *tilec_compiler_last_error(void);

/* ------------------------------------------------------------------------ */
/* Compiling a spec                                                         */
/* ------------------------------------------------------------------------ */

/** What to compile. Zero-initialise, then set the fields. */
typedef struct tilec_compile_request {
  /** The spec's text (the tile DSL, what a .tile file holds). */
  const char *spec;
  /** Its length in bytes; 0: spec is NUL-terminated. */
  size_t spec_size;
  /** The file name used in diagnostics (file:line:col); NULL: "<spec>". */
  const char *spec_name;
  /** num_defines strings "NAME=VALUE", as tilec's -D (VALUE an integer or,
   *  for a type param, an element type name). */
  const char *const *defines;
  size_t num_defines;
  /** "sm_90a", "sm_100a"; NULL or "": each kernel's own (else sm_90a). */
  const char *target;
  /** 0 to 3, as tilec -O (tilec's default is 3; 0 is a slow kernel). */
  int32_t opt_level;
  /** Nonzero: ptxas's slow-kernel warnings (setmaxnreg ignored, serialised
   *  wgmma) stay warnings, as tilec --allow-slow-kernels. */
  int32_t allow_slow_kernels;
  /** Nonzero: a hang-diagnosis build, as tilec --debug-hangs (every mbarrier
   *  wait reports a time-out with vprintf and traps; slow kernels, their
   *  ptxas warnings stay warnings). Bundles built so say "--debug-hangs" in
   *  their producer string; the kernel caches never build them. */
  int32_t debug_hangs;
} tilec_compile_request;

/** What a compile gave. The library allocates the buffers; release them with
 *  tilec_compile_result_free. */
typedef struct tilec_compile_result {
  /** The bundle (what tilec writes to a .tilec file); NULL on failure. */
  uint8_t *bundle;
  size_t bundle_size;
  /** Every error, warning and note, NUL-terminated, clang style, exactly as
   *  tilec prints them ("" when there were none). Set on success too. */
  char *diagnostics;
  size_t diagnostics_size;
  /** Wall time of the compile (front end to ptxas), in seconds. */
  double compile_seconds;
} tilec_compile_result;

/** Compiles one spec to a bundle (ptxas included: $TILEC_PTXAS, PATH,
 *  $CUDA_HOME/bin, /usr/local/cuda/bin). Several threads may compile at
 *  once. On TILEC_COMPILER_ERROR_COMPILE the diagnostics say why; on any
 *  failure tilec_compiler_last_error() holds the message too. \p result is
 *  always filled (release it even on failure). */
TILEC_COMPILER_API tilec_compiler_status
tilec_compile(const tilec_compile_request *request,
              tilec_compile_result *result);
/** Frees what tilec_compile allocated and zeroes \p result; NULL is allowed. */
TILEC_COMPILER_API void tilec_compile_result_free(tilec_compile_result *result);

/* ------------------------------------------------------------------------ */
/* The kernel library: families, configurations, keys                       */
/* ------------------------------------------------------------------------ */

/** Families: "bf16_gemm_nt", "bf16_gemm_nn", "bf16_gemm_tn", "bf16_gemm_tt",
 *  "fp8_gemm_1d2d", "fp8_gemm_1d1d", "splitk_reduce", the M-grouped
 *  "m_grouped_bf16_gemm_nt", "m_grouped_bf16_gemm_nn"
 *  and "m_grouped_fp8_gemm_1d2d" (docs/capi.md: layouts and dtypes). */
TILEC_COMPILER_API size_t tilec_num_kernel_families(void);
/** Name of family \p index, or NULL past the end. */
TILEC_COMPILER_API const char *tilec_kernel_family_name(size_t index);
/** The family's spec text as embedded in the library (static storage). */
TILEC_COMPILER_API tilec_compiler_status
tilec_kernel_family_spec(const char *family, const char **text, size_t *size);

/** A GEMM: D[M, N] (+)= A B with the family's layouts. */
typedef struct tilec_gemm_problem {
  int64_t m, n, k;
  /** "bf16", "e4m3", "f32", ...; NULL: the family's default (bf16 families:
   *  bf16, bf16, bf16; fp8 families: e4m3, e4m3, bf16). */
  const char *a_dtype;
  const char *b_dtype;
  const char *d_dtype;
  /** Nonzero: D += A B (the fp8 families need d_dtype "f32"). */
  int32_t accumulate;
  int32_t reserved; /* zero */
  /** M-grouped families (B [G, N, K]): the groups G, at least 1; 0 for the
   *  others. \c m is then the rows computed over all groups: A's rows for the
   *  contiguous layouts, G times the expected rows per group when masked. */
  int32_t num_groups;
  /** M-grouped families: a tilec_group_layout. */
  int32_t group_layout;
  /** M-grouped contiguous layouts: the alignment of each group's first row
   *  (DeepGEMM's mk alignment for contiguous layouts); 0: 128. */
  int32_t mk_alignment;
  int32_t reserved2; /* zero */
} tilec_gemm_problem;

/** How an M-grouped family's rows are grouped (DeepGEMM's GemmType). */
typedef enum tilec_group_layout {
  /* A [M, K], one group index per row (-1: padding), groups aligned. */
  TILEC_GROUP_LAYOUT_CONTIGUOUS = 0,
  /* A [M, K], one end row per group; group g starts at group g - 1's end
   * rounded up to mk_alignment. */
  TILEC_GROUP_LAYOUT_PSUM = 1,
  /* A [G, MAX_M, K], masked_m[G] valid rows per group, read on the GPU. */
  TILEC_GROUP_LAYOUT_MASKED = 2
} tilec_group_layout;

/** Where tilec_get_kernel found the kernel. */
typedef enum tilec_kernel_source {
  TILEC_KERNEL_SOURCE_NONE = 0,     /* tilec_kernel_config: not looked up */
  TILEC_KERNEL_SOURCE_MEMORY = 1,   /* this process had it */
  TILEC_KERNEL_SOURCE_DISK = 2,     /* read from the disk cache */
  TILEC_KERNEL_SOURCE_COMPILED = 3  /* compiled now (and stored) */
} tilec_kernel_source;

/** A chosen configuration (and, from tilec_get_kernel, where it came from).
 *  Strings are NUL-terminated and truncated to fit. */
typedef struct tilec_kernel_info {
  char family[32];
  char kernel_name[64]; /* the bundle's kernel (.entry) */
  char target[16];
  char key[80];         /* the kernel key, 64 hex digits */
  char params[256];     /* the spec's params set, "BLK_M=128 BLK_N=256 ...",
                           sorted by name: tilec -D values */
  char reason[256];     /* one line: why this configuration */
  int32_t block_m, block_n, block_k, stages;
  uint32_t threads;     /* per CTA */
  uint32_t cluster[3];
  uint32_t grid[3];     /* CTAs the runtime launches (persistent: the SMs) */
  uint32_t num_tiles;   /* output tiles of block_m x block_n */
  uint32_t shared_bytes; /* dynamic shared memory per CTA */
  int32_t source;       /* tilec_kernel_source */
  /** tilec_get_kernel: seconds spent reading the disk cache or compiling
   *  (0 for a memory hit). */
  double seconds;
} tilec_kernel_info;

/** The configuration \p family uses for \p problem on a GPU with \p sm_count
 *  SMs, for \p target ("sm_90a"; NULL: sm_90a). Compiles nothing. */
TILEC_COMPILER_API tilec_compiler_status
tilec_kernel_config(const char *family, const tilec_gemm_problem *problem,
                    int32_t sm_count, const char *target,
                    tilec_kernel_info *info);

/** The kernel for \p problem: configuration -> key -> memory cache -> disk
 *  cache -> compile (then stored in both). *bundle stays valid until the
 *  process ends. \p info may be NULL. Environment: TILEC_CACHE_DIR (default
 *  ~/.cache/tilec), TILEC_DISABLE_CACHE=1 (no disk cache),
 *  TILEC_PRINT_CONFIGS=1 (each new problem's configuration and why, to
 *  stderr), TILEC_PRINT_COMPILES=1 (each compile and its time, to stderr). */
TILEC_COMPILER_API tilec_compiler_status
tilec_get_kernel(const char *family, const tilec_gemm_problem *problem,
                 int32_t sm_count, const char *target, const uint8_t **bundle,
                 size_t *bundle_size, tilec_kernel_info *info);

/** Flags of tilec_get_kernel_ex. */
typedef enum tilec_kernel_flags {
  /* The configuration's quick build: its K loop not unrolled, its K blocks
   * not paired; the same tiles, stages and splits, the same bits out, a
   * compile several times cheaper. A first call runs it while the
   * configuration itself compiles (docs/capi.md). It is the configuration
   * itself when that has nothing to drop (info->params says which). */
  TILEC_KERNEL_QUICK = 1,
  /* Memory or disk only: TILEC_COMPILER_NOT_CACHED instead of compiling. */
  TILEC_KERNEL_CACHED_ONLY = 2
} tilec_kernel_flags;

/** tilec_get_kernel with \p flags (tilec_kernel_flags, or-ed). */
TILEC_COMPILER_API tilec_compiler_status
tilec_get_kernel_ex(const char *family, const tilec_gemm_problem *problem,
                    int32_t sm_count, const char *target, int32_t flags,
                    const uint8_t **bundle, size_t *bundle_size,
                    tilec_kernel_info *info);

/** The disk cache directory tilec_get_kernel uses now ($TILEC_CACHE_DIR, else
 *  ~/.cache/tilec), "" when TILEC_DISABLE_CACHE=1. Valid until the next call
 *  on this thread. */
TILEC_COMPILER_API const char *tilec_cache_dir(void);
/** Forgets the in-memory cache (later lookups read the disk cache); bundles
 *  handed out stay valid. */
TILEC_COMPILER_API void tilec_clear_memory_cache(void);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_COMPILER_C_H */
