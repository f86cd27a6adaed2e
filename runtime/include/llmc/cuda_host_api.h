/* The calls a CUDA artifact's host code makes into the runtime that drives it.
 *
 * `llmc compile --target=cuda:<arch>` emits host code (the entry points
 * <P>_prefill / <P>_decode, same C signatures as the CPU target, but every
 * buffer argument is a device pointer) that launches the artifact's kernels.
 * It does not link the CUDA driver or any MLIR runtime library: every launch,
 * scratch allocation and copy goes through the table below, which the runtime
 * stores into the artifact's global `<P>_cuda_host_api` before the first call.
 * A program may also provide its own table (e.g. to run the kernels on its own
 * stream); the runtime's implementation lives in runtime/src/cuda_executor.cpp.
 */
#ifndef LLMC_CUDA_HOST_API_H
#define LLMC_CUDA_HOST_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this table's layout and of the launch conventions below;
 * recorded in the manifest ("cuda.host_api_version") and checked. Version 2
 * added `release`; a version 1 artifact never calls it, and the table is
 * otherwise the same, so the runtime runs both. */
#define LLMC_CUDA_HOST_API_VERSION 2
#define LLMC_CUDA_HOST_API_MIN_VERSION 1

typedef struct llmc_cuda_host_api {
  /* Device scratch memory for intermediate tensors of one entry-point call,
   * aligned to 256 bytes. It stays valid until `release` or until the entry
   * point returns; the runtime reuses it for the next call, so the host code
   * need not release it. Calls that make the same allocs and releases in the
   * same order get the same addresses (this is what lets the runtime replay a
   * decode step as a CUDA graph). Never returns NULL: on failure the runtime
   * records the error and returns a reserved buffer. */
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
  /* Passed back as the first argument of every call. */
  void *ctx;
  /* (Version 2.) Ends the life of a block `alloc` returned in this call:
   * later `alloc`s of the call may return its bytes. Device work already
   * enqueued that reads or writes the block still sees it, since everything
   * runs in order on one stream; the host code calls it after the block's
   * last use. Releasing anything else is an error recorded like a failed
   * launch (the reserved buffer is ignored). */
  void (*release)(void *ctx, void *ptr);
} llmc_cuda_host_api;

#ifdef __cplusplus
}
#endif

#endif /* LLMC_CUDA_HOST_API_H */
