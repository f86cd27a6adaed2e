/* The calls a CUDA artifact's host code makes into the runtime that drives it.
 *
 * `llmc compile --target=cuda:<arch>` emits host code (the entry points
 * <P>_prefill / <P>_decode, same C signatures as the CPU target, but every
 * buffer argument is a device pointer) that launches the artifact's kernels.
 * It does not link the CUDA driver or any MLIR runtime library: every launch,
 * scratch allocation and copy goes through the table below, which the runtime
 * stores into the artifact's global `<P>_cuda_host_api` before the first call.
 * A program may also provide its own table (e.g. to run the kernels on its own
 * stream); the runtime's implementation lives in runtime/src/cuda_backend.cpp.
 */
#ifndef LLMC_CUDA_HOST_API_H
#define LLMC_CUDA_HOST_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this table's layout and of the launch conventions below;
 * recorded in the manifest ("cuda.host_api_version") and checked. */
#define LLMC_CUDA_HOST_API_VERSION 1

typedef struct llmc_cuda_host_api {
  /* Device scratch memory for intermediate tensors of one entry-point call,
   * aligned to 256 bytes. It stays valid until the entry point returns; the
   * runtime reuses it for the next call, so the host code never frees it.
   * Calls made in the same order return the same addresses (this is what lets
   * the runtime replay a decode step as a CUDA graph). Never returns NULL: on
   * failure the runtime records the error and returns a reserved buffer. */
  void *(*alloc)(void *ctx, uint64_t bytes);
  /* Launches the kernel `name` (a NUL-terminated entry name of the
   * artifact's images; the pointer is a constant of the artifact, so it may
   * be used as a cache key) on the runtime's stream. `params` is
   * cuLaunchKernel's kernelParams: one pointer per kernel parameter. Errors
   * are recorded by the runtime and reported when the entry point returns. */
  void (*launch)(void *ctx, const char *name, uint32_t grid_x,
                 uint32_t grid_y, uint32_t grid_z, uint32_t block_x,
                 uint32_t block_y, uint32_t block_z, uint32_t shared_bytes,
                 void **params);
  /* Stream-ordered device-to-device copy of `bytes` bytes. */
  void (*copy)(void *ctx, void *dst, const void *src, uint64_t bytes);
  /* Passed back as the first argument of every call above. */
  void *ctx;
} llmc_cuda_host_api;

#ifdef __cplusplus
}
#endif

#endif /* LLMC_CUDA_HOST_API_H */
