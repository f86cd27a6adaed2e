/* The mock CUDA artifact's kernels for a real GPU: the reference decoder's
 * steps (mock_model.c, compiled for the device) as the three kernels
 * mock_cuda_model.c launches, with the same parameters. One thread each:
 * these kernels exist to test the runtime against the real driver (image
 * loading, launches, scratch, copies, graphs), not to be fast.
 * Build: nvcc -cubin -arch=sm_XX (or -ptx -arch=compute_XX) --fmad=false
 *        -I<artifact dir> this file. */
#include "mock_config.h"
#define MOCK_FN static __device__
#define MOCK_NO_ENTRY_POINTS
#include "mock_model.c"

extern "C" __global__ void mock_embed(float *x, const int32_t *tokens,
                                      int64_t t, const float *table) {
  embed_step(x, tokens[t], table);
}

extern "C" __global__ void mock_layer(float *x, void *kv_cache, int32_t layer,
                                      const int32_t *positions, int64_t t,
                                      const float *w0, const float *w1,
                                      const float *w2, const float *w3,
                                      const float *w4, const float *w5,
                                      const float *w6, const float *w7,
                                      const float *w8) {
  const float *lw[PER_LAYER] = {w0, w1, w2, w3, w4, w5, w6, w7, w8};
  layer_step(x, layer, positions[t], kv_cache, lw);
}

/* Launched with 64 KiB of dynamic shared memory (above the default 48 KiB
 * limit, so the runtime must opt the kernel in); the normalized row lives
 * there. */
extern "C" __global__ void mock_head(float *logits, const float *x,
                                     const float *norm, const float *lm_head) {
  extern __shared__ float normalized[];
  rmsnorm(normalized, x, norm, MOCK_DIM);
  matvec(logits, lm_head, normalized, MOCK_VOCAB, MOCK_DIM);
}
