/*===- tilec_runtime.h - tilec runtime C API ----------------------*- C -*-===*\
|*                                                                            *|
|* The C API of the tilec runtime, for C programs and for Python (ctypes).    *|
|* Every function returns a tilec_status; on failure the message that names   *|
|* the problem is kept per thread and read with tilec_last_error(). Needs no  *|
|* CUDA header: streams are passed as void* (a CUstream, NULL = default).     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILEC_RUNTIME_C_H
#define TILEC_RUNTIME_C_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TILEC_API
#else
#define TILEC_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Version of this API (major * 10000 + minor * 100 + patch). */
#define TILEC_RUNTIME_VERSION 100

/** Most dims of a tensor argument. */
#define TILEC_MAX_RANK 8

typedef enum tilec_status {
  TILEC_SUCCESS = 0,
  TILEC_ERROR_DRIVER_NOT_AVAILABLE = 1, /* no libcuda, no GPU, cuInit failed */
  TILEC_ERROR_INVALID_VALUE = 2,        /* misuse: null handle, bad count */
  TILEC_ERROR_INVALID_BUNDLE = 3,       /* malformed or unreadable bundle */
  TILEC_ERROR_NOT_FOUND = 4,            /* no kernel of that name */
  TILEC_ERROR_INVALID_ARGUMENT = 5,     /* a launch argument is wrong */
  TILEC_ERROR_CUDA = 6                  /* the driver reported an error */
} tilec_status;

/* Element types; the values are those of tilec::bundle::DType. */
typedef enum tilec_dtype {
  TILEC_DTYPE_F16 = 0,
  TILEC_DTYPE_BF16 = 1,
  TILEC_DTYPE_F32 = 2,
  TILEC_DTYPE_F64 = 3,
  TILEC_DTYPE_TF32 = 4,
  TILEC_DTYPE_I8 = 5,
  TILEC_DTYPE_U8 = 6,
  TILEC_DTYPE_I16 = 7,
  TILEC_DTYPE_U16 = 8,
  TILEC_DTYPE_I32 = 9,
  TILEC_DTYPE_U32 = 10,
  TILEC_DTYPE_I64 = 11,
  TILEC_DTYPE_U64 = 12,
  TILEC_DTYPE_E4M3 = 13,
  TILEC_DTYPE_E5M2 = 14,
  TILEC_DTYPE_E8M0 = 15
} tilec_dtype;

typedef enum tilec_arg_kind {
  TILEC_ARG_TENSOR = 0,
  TILEC_ARG_SCALAR = 1,
  TILEC_ARG_TENSOR_LIST = 2
} tilec_arg_kind;

/** One launch argument. Tensors: data, rank, shape and strides (in elements,
 *  outermost first). Scalars: int_value for integer dtypes, float_value for
 *  floating-point dtypes (u64 takes int_value's 64 bits as they are).
 *  Tensor lists: rank tensors (tilec_arg of kind TILEC_ARG_TENSOR) at the
 *  host address data, read during the call only. */
typedef struct tilec_arg {
  int32_t kind;  /* tilec_arg_kind */
  int32_t dtype; /* tilec_dtype */
  int32_t rank;
  int32_t reserved; /* zero */
  uint64_t data;
  int64_t shape[TILEC_MAX_RANK];
  int64_t strides[TILEC_MAX_RANK];
  int64_t int_value;
  double float_value;
} tilec_arg;

/** What a kernel expects for one argument (from its metadata). shape has -1
 *  for dims fixed only at launch (of a tensor list: its length, then each
 *  tensor's dims). name stays valid while the module lives. */
typedef struct tilec_arg_info {
  const char *name;
  int32_t kind;
  int32_t dtype;
  int32_t rank;
  int32_t capacity; /* tensor lists: the most tensors; otherwise 0 */
  int64_t shape[TILEC_MAX_RANK];
} tilec_arg_info;

typedef struct tilec_module tilec_module;
typedef struct tilec_kernel tilec_kernel;

/** The message of the last failed call on this thread ("" if none). */
TILEC_API const char *tilec_last_error(void);
/** "TILEC_ERROR_INVALID_ARGUMENT", ... */
TILEC_API const char *tilec_status_name(tilec_status status);
/** TILEC_SUCCESS if the CUDA driver loads, else why not. */
TILEC_API tilec_status tilec_driver_status(void);

/* Loading. A module is loaded into the context current on the calling thread,
 * else into device 0's primary context. */

/** A bundle file, or a raw .cubin/.ptx with <stem>.json beside it. */
TILEC_API tilec_status tilec_module_load_file(const char *path,
                                              tilec_module **module);
/** Bundle bytes. */
TILEC_API tilec_status tilec_module_load_data(const void *data, size_t size,
                                              tilec_module **module);
/** A raw cubin, fatbin or PTX image with its metadata JSON. */
TILEC_API tilec_status tilec_module_load_image(const void *image, size_t size,
                                               const char *metadata_json,
                                               size_t metadata_size,
                                               tilec_module **module);
TILEC_API tilec_status tilec_module_load_image_file(const char *image_path,
                                                    const char *metadata_path,
                                                    tilec_module **module);
/** Unloads the module; its kernels become invalid. NULL is allowed. */
TILEC_API tilec_status tilec_module_unload(tilec_module *module);

TILEC_API size_t tilec_module_num_kernels(const tilec_module *module);
/** Name of kernel \p index in metadata order, or NULL. */
TILEC_API const char *tilec_module_kernel_name(const tilec_module *module,
                                               size_t index);
/** The kernel named \p name; NULL or "" picks the only kernel. */
TILEC_API tilec_status tilec_module_get_kernel(tilec_module *module,
                                               const char *name,
                                               tilec_kernel **kernel);

/* Kernels. */

TILEC_API const char *tilec_kernel_name(const tilec_kernel *kernel);
TILEC_API size_t tilec_kernel_num_args(const tilec_kernel *kernel);
TILEC_API tilec_status tilec_kernel_arg_info(const tilec_kernel *kernel,
                                             size_t index,
                                             tilec_arg_info *info);
/** Checks the arguments on the CPU without launching. */
TILEC_API tilec_status tilec_check(const tilec_kernel *kernel,
                                   const tilec_arg *args, size_t nargs);
/** Checks the arguments and launches on \p stream (a CUstream or NULL). */
TILEC_API tilec_status tilec_launch(tilec_kernel *kernel, const tilec_arg *args,
                                    size_t nargs, void *stream);
/** At most \p ctas CTAs for \p kernel's persistent grid (0: no limit),
 *  rounded down to whole clusters, at least one; fixed grids ignore it. */
TILEC_API tilec_status tilec_kernel_set_persistent_limit(tilec_kernel *kernel,
                                                         uint32_t ctas);

/* Device memory helpers for tests and small apps (the driver loaded by the
 * runtime, in the same context a module would use). */

TILEC_API tilec_status tilec_device_alloc(size_t bytes, uint64_t *device_ptr);
TILEC_API tilec_status tilec_device_free(uint64_t device_ptr);
TILEC_API tilec_status tilec_copy_to_device(uint64_t device_ptr,
                                            const void *host, size_t bytes);
TILEC_API tilec_status tilec_copy_to_host(void *host, uint64_t device_ptr,
                                          size_t bytes);
/** Waits for \p stream (NULL: the whole context). */
TILEC_API tilec_status tilec_synchronize(void *stream);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_RUNTIME_C_H */
