/* A mock llmc CUDA artifact: the abi_version 2 entry points with device
 * pointers, launching the reference decoder's steps (mock_model.c) as
 * "kernels" through the runtime's llmc_cuda_host_api, with scratch from
 * alloc and the logits written through copy, as compiled host code does.
 * The images are fake_image descriptors that only fake_libcuda.c can load;
 * with MOCK_REAL_IMAGES they come from images.c instead (embed_cuda_images.py:
 * mock_cuda_kernels.cu built by nvcc), for a real GPU.
 * Build: cc -shared -fPIC -I<artifact dir> -I<runtime include> this file.
 * MOCK_BAD_IMAGES adds two malformed image symbols for the manifest tests.
 * The fake images also hold the sampling kernels (mock_sampling_kernels.c)
 * unless MOCK_NO_SAMPLING_KERNELS is defined: an artifact compiled before
 * llmc emitted them.
 * The head kernel asks for 64 KiB of dynamic shared memory, more than the
 * default 48 KiB, so that the runtime must opt the kernel in. */
#include "mock_config.h"
#define MOCK_NO_ENTRY_POINTS
#include "mock_model.c"

#include "fake_cuda.h"
#include "llmc/cuda_host_api.h"

_Static_assert(sizeof(struct fake_image) == 64, "make_artifact.py's FAKE_IMAGE_BYTES");

/* Set by the runtime before every entry-point call. */
const llmc_cuda_host_api *MOCK_CUDA_HOST_API;

#ifndef MOCK_REAL_IMAGES
#include "mock_sampling_kernels.c"

/* The fake driver's kernels: host functions over cuLaunchKernel's params. */
#define P(type, i) (*(type *)params[i])

/* (x, tokens, t, embed_table) */
static void k_embed(void **params) {
  embed_step(P(float *, 0), P(const int32_t *, 1)[P(int64_t, 2)],
             P(const float *, 3));
}

/* (x, kv_cache, layer, positions, t, 9 layer weights) */
static void k_layer(void **params) {
  const float *lw[PER_LAYER];
  for (int i = 0; i < PER_LAYER; ++i)
    lw[i] = P(const float *, 5 + i);
  layer_step(P(float *, 0), P(int32_t, 2), P(const int32_t *, 3)[P(int64_t, 4)],
             P(void *, 1), lw);
}

/* (logits row, x, norm, lm_head) */
static void k_head(void **params) {
  head_step(P(float *, 0), P(const float *, 1), P(const float *, 2),
            P(const float *, 3));
  mock_note_head_output(P(float *, 0));
}

static const struct fake_kernel kKernels[] = {
    {"mock_embed", k_embed, 4, {8, 8, 8, 8}},
    {"mock_layer", k_layer, 5 + PER_LAYER, {8, 8, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8}},
    {"mock_head", k_head, 4, {8, 8, 8, 8}},
#ifndef MOCK_NO_SAMPLING_KERNELS
    MOCK_SAMPLING_KERNELS
#endif
};

#define DEFINE_IMAGE(symbol, arch, format)                                     \
  const struct fake_image symbol = {"\177ELF llmc-fake " arch " " format,       \
                                    kKernels, sizeof kKernels / sizeof kKernels[0], {0}};
MOCK_CUDA_IMAGES(DEFINE_IMAGE)
#endif /* MOCK_REAL_IMAGES: embed_cuda_images.py's images.c instead */

#ifdef MOCK_BAD_IMAGES
const char mock_not_elf[8] = "notelf!";         /* a "cubin" without ELF magic */
const char mock_no_nul[4] = {'.', 'p', 't', 'x'}; /* "PTX" without its NUL */
#endif

/* Kernel names are constants: the runtime caches functions by pointer. */
static const char kEmbed[] = "mock_embed";
static const char kLayer[] = "mock_layer";
static const char kHead[] = "mock_head";

/* MOCK_GROW_SCRATCH=1 makes every call ask for 70 MiB more scratch than the
 * one before: host code whose allocations differ between calls, which the
 * runtime must survive (a decode graph cannot be captured then). */
static int64_t g_calls;
/* MOCK_PREFILL_SCRATCH=<bytes> makes a prefill (not a decode step) ask for
 * that many bytes of scratch per token, released at once: a longer prompt
 * grows the runtime's scratch arena, which then compacts. */
static int g_decoding;

int32_t MOCK_PREFILL(const int32_t *tokens, const int32_t *positions,
                     int64_t seq_len, int64_t logit_rows, void *kv_cache,
                     const void *const *weights, float *logits) {
  const llmc_cuda_host_api *api = MOCK_CUDA_HOST_API;
  ++g_calls;
  if (getenv("MOCK_GROW_SCRATCH"))
    api->alloc(api->ctx, (uint64_t)g_calls * (70u << 20));
  const char *per_token = getenv("MOCK_PREFILL_SCRATCH");
  if (per_token && !g_decoding)
    api->release(api->ctx, api->alloc(api->ctx, (uint64_t)seq_len * strtoull(per_token, NULL, 10)));
  /* Scratch: the activation row and one logits row, reused for every token. */
  float *x = api->alloc(api->ctx, sizeof(float) * MOCK_DIM);
  float *row = api->alloc(api->ctx, sizeof(float) * MOCK_VOCAB);
  const void *embed = weights[0];
  const void *const *tail = weights + 1 + MOCK_LAYERS * PER_LAYER;
  for (int64_t t = 0; t < seq_len; ++t) {
    void *embed_params[] = {&x, &tokens, &t, &embed};
    api->launch(api->ctx, kEmbed, 1, 1, 1, 1, 1, 1, 0, embed_params);
    for (int32_t l = 0; l < MOCK_LAYERS; ++l) {
      const void *lw[PER_LAYER];
      void *layer_params[5 + PER_LAYER] = {&x, &kv_cache, &l, &positions, &t};
      for (int i = 0; i < PER_LAYER; ++i) {
        lw[i] = weights[1 + l * PER_LAYER + i];
        layer_params[5 + i] = &lw[i];
      }
      api->launch(api->ctx, kLayer, 1, 1, 1, 1, 1, 1, 0, layer_params);
    }
    void *head_params[] = {&row, &x, (void *)&tail[0], (void *)&tail[1]};
    api->launch(api->ctx, kHead, 1, 1, 1, 1, 1, 1, 64 * 1024, head_params);
    /* Only the last logit_rows tokens' logits are written. */
    int64_t out_row = t - (seq_len - logit_rows);
    if (out_row >= 0)
      api->copy(api->ctx, logits + out_row * MOCK_VOCAB, row, sizeof(float) * MOCK_VOCAB);
  }
  /* Host API version 2: the blocks end here, as compiled host code ends
   * them after their last use; MOCK_BAD_RELEASE=1 releases one twice. */
  if (api->release) {
    api->release(api->ctx, row);
    api->release(api->ctx, x);
    if (getenv("MOCK_BAD_RELEASE"))
      api->release(api->ctx, x);
  }
  return 0;
}

int32_t MOCK_DECODE(const int32_t *tokens, const int32_t *positions,
                    void *kv_cache, const void *const *weights, float *logits) {
  g_decoding = 1;
  int32_t status = MOCK_PREFILL(tokens, positions, 1, 1, kv_cache, weights, logits);
  g_decoding = 0;
  return status;
}
