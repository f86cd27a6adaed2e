/* mock_sampling_kernels.c: host stand-ins for a CUDA artifact's sampling
 * kernels, llmc_argmax_v<V> and llmc_top_k_top_p_v<V>, for the fake driver
 * (included by mock_cuda_model.c; fake_cuda.h's kernel convention: params
 * are cuLaunchKernel's, one pointer per parameter).
 *
 * They follow the ABI of codegen/cuda/SamplingKernels.cpp's header comment:
 * every memref arrives as five scalars (allocated, aligned, offset, size,
 * stride), the kernels read from the aligned pointer; the top-k/top-p one
 * takes temperature, top_k, top_p and the uniform draw u, and draws as the
 * runtime's host sampler does (its documented order of operations, written
 * here from that description), including the 256-candidate cap that makes
 * the real kernel approximate for larger top_k. Each one aborts on a
 * descriptor the ABI does not allow, and with FAKE_CUDA_TRACE=1 prints its
 * scalar arguments, its result, and whether the row it read is the one the
 * last mock_head produced ("logits=last-head-output"), so tests see what the
 * runtime launched. mock_head reports its output row with
 * mock_note_head_output. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOCK_STR2(x) #x
#define MOCK_STR(x) MOCK_STR2(x)
#define MOCK_ARGMAX_NAME "llmc_argmax_v" MOCK_STR(MOCK_VOCAB)
#define MOCK_TOP_K_TOP_P_NAME "llmc_top_k_top_p_v" MOCK_STR(MOCK_VOCAB)

/* The real kernel's candidate sort size (kMaxTopK). */
#define MOCK_MAX_TOP_K 256

/* The last row mock_head wrote: the logits a sampling kernel must read. */
static const float *g_head_output;

static void mock_note_head_output(const float *row) { g_head_output = row; }

static int mock_trace(void) {
  const char *v = getenv("FAKE_CUDA_TRACE");
  return v && *v == '1';
}

/* The five scalars of a rank-1 memref, starting at params[first]. */
static void *mock_memref(void **params, int first, int64_t size, const char *what) {
  void *allocated = *(void **)params[first];
  void *aligned = *(void **)params[first + 1];
  int64_t offset = *(int64_t *)params[first + 2];
  int64_t n = *(int64_t *)params[first + 3];
  int64_t stride = *(int64_t *)params[first + 4];
  if (!aligned || allocated != aligned || offset != 0 || n != size || stride != 1) {
    fprintf(stderr,
            "mock-sampling: bad %s descriptor (allocated %p, aligned %p, offset "
            "%lld, size %lld, stride %lld; want size %lld, stride 1)\n",
            what, allocated, aligned, (long long)offset, (long long)n,
            (long long)stride, (long long)size);
    abort();
  }
  return aligned;
}

static const char *mock_which_logits(const float *logits) {
  return g_head_output &&
                 memcmp(logits, g_head_output, sizeof(float) * MOCK_VOCAB) == 0
             ? "last-head-output"
             : "OTHER";
}

static float mock_logit(const float *logits, int32_t i) {
  return isnan(logits[i]) ? -INFINITY : logits[i];
}

/* Lowest index among equal maxima; NaN counts as -inf. */
static int32_t mock_argmax(const float *logits) {
  int32_t best = 0;
  for (int32_t i = 1; i < MOCK_VOCAB; ++i)
    if (mock_logit(logits, i) > mock_logit(logits, best))
      best = i;
  return best;
}

/* (logits: 5, token: 5) */
static void k_argmax(void **params) {
  const float *logits = mock_memref(params, 0, MOCK_VOCAB, "logits");
  int32_t *token = mock_memref(params, 5, 1, "token");
  *token = mock_argmax(logits);
  if (mock_trace())
    fprintf(stderr, "mock-sampling: %s logits=%s -> %d\n", MOCK_ARGMAX_NAME,
            mock_which_logits(logits), *token);
}

/* Probability order: higher first, then lower index. */
static int mock_before(const float *p, int32_t a, int32_t b) {
  return p[a] != p[b] ? p[a] > p[b] : a < b;
}

static int32_t mock_draw(const float *logits, float temperature, int32_t top_k,
                         float top_p, float u) {
  int32_t best = mock_argmax(logits);
  float max = mock_logit(logits, best);
  if (temperature <= 0 || top_k == 1 || top_p <= 0 || max == -INFINITY)
    return best;
  static float p[MOCK_VOCAB];
  static int32_t order[MOCK_VOCAB];
  float inv_t = 1.0f / temperature;
  for (int32_t i = 0; i < MOCK_VOCAB; ++i) {
    p[i] = expf((mock_logit(logits, i) - max) * inv_t);
    order[i] = i;
  }
  int32_t n = MOCK_VOCAB;
  int whole = (top_k <= 0 || top_k >= MOCK_VOCAB) && top_p >= 1.0f;
  if (!whole) {
    int32_t cap = MOCK_VOCAB < MOCK_MAX_TOP_K ? MOCK_VOCAB : MOCK_MAX_TOP_K;
    n = top_k <= 0 || top_k > cap ? cap : top_k;
    /* Selection sort of the n best: small vocabularies only. */
    for (int32_t i = 0; i < n; ++i)
      for (int32_t j = i + 1; j < MOCK_VOCAB; ++j)
        if (mock_before(p, order[j], order[i])) {
          int32_t t = order[i];
          order[i] = order[j];
          order[j] = t;
        }
  }
  double total = 0;
  for (int32_t i = 0; i < n; ++i)
    total += p[order[i]];
  if (!whole && top_p < 1.0f) {
    double keep = top_p * total, cum = 0;
    int32_t m = 0;
    while (m < n) {
      cum += p[order[m++]];
      if (cum >= keep)
        break;
    }
    n = m;
    total = cum;
  }
  double r = (double)u * total, cum = 0;
  for (int32_t i = 0; i < n; ++i) {
    cum += p[order[i]];
    if (r < cum)
      return order[i];
  }
  return order[n - 1];
}

/* (logits: 5, temperature, top_k, top_p, u, token: 5) */
static void k_top_k_top_p(void **params) {
  const float *logits = mock_memref(params, 0, MOCK_VOCAB, "logits");
  float temperature = *(float *)params[5];
  int32_t top_k = *(int32_t *)params[6];
  float top_p = *(float *)params[7];
  float u = *(float *)params[8];
  int32_t *token = mock_memref(params, 9, 1, "token");
  *token = mock_draw(logits, temperature, top_k, top_p, u);
  if (mock_trace())
    fprintf(stderr,
            "mock-sampling: %s logits=%s temperature=%.9g top_k=%d top_p=%.9g "
            "u=%.9g -> %d\n",
            MOCK_TOP_K_TOP_P_NAME, mock_which_logits(logits), temperature,
            top_k, top_p, u, *token);
}

/* fake_kernel entries: parameter sizes as the real kernels take them. */
#define MOCK_SAMPLING_KERNELS                                                  \
  {MOCK_ARGMAX_NAME, k_argmax, 10, {8, 8, 8, 8, 8, 8, 8, 8, 8, 8}},             \
      {MOCK_TOP_K_TOP_P_NAME, k_top_k_top_p, 14,                               \
       {8, 8, 8, 8, 8, 4, 4, 4, 4, 8, 8, 8, 8, 8}},
