/* A mock llmc artifact library: the abi_version 2 entry points over a naive
 * reference LLaMA decoder (float32, one token at a time), for testing the
 * runtime and llmc-run without the compiler. The config comes from
 * mock_config.h, written by make_artifact.py next to the manifest.
 * mock_cuda_model.c includes this file with MOCK_NO_ENTRY_POINTS defined to
 * reuse the decoder steps behind the CUDA artifact ABI, and
 * mock_cuda_kernels.cu compiles the same steps as GPU kernels. */
#include "mock_config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* How the decoder's functions are declared: mock_cuda_kernels.cu compiles
 * them for the GPU (static __device__). */
#ifndef MOCK_FN
#define MOCK_FN static __attribute__((unused))
#endif

#define KV_DIM (MOCK_KV_HEADS * MOCK_HEAD_DIM)
#define Q_DIM (MOCK_HEADS * MOCK_HEAD_DIM)
/* Weights per layer, in manifest order: input_layernorm, q, k, v, o,
 * post_attention_layernorm, gate, up, down. */
#define PER_LAYER 9

MOCK_FN void rmsnorm(float *out, const float *x, const float *w, int n) {
  float ss = 0.0f;
  for (int i = 0; i < n; ++i)
    ss += x[i] * x[i];
  ss = 1.0f / sqrtf(ss / n + MOCK_EPS);
  for (int i = 0; i < n; ++i)
    out[i] = w[i] * (ss * x[i]);
}

/* out[rows] = W[rows, cols] x[cols] */
MOCK_FN void matvec(float *out, const float *w, const float *x, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    float s = 0.0f;
    for (int c = 0; c < cols; ++c)
      s += w[(size_t)r * cols + c] * x[c];
    out[r] = s;
  }
}

/* Rotates each head of vec (n_heads x HEAD_DIM) for position pos. */
MOCK_FN void rope(float *vec, int n_heads, int pos) {
  const int half = MOCK_HEAD_DIM / 2;
  for (int h = 0; h < n_heads; ++h) {
    float *v = vec + h * MOCK_HEAD_DIM;
    for (int i = 0; i < half; ++i) {
      float freq = 1.0f / powf(MOCK_THETA, (2.0f * i) / (float)MOCK_HEAD_DIM);
      float angle = pos * freq, c = cosf(angle), s = sinf(angle);
      int a = MOCK_ROPE_HALF ? i : 2 * i;
      int b = MOCK_ROPE_HALF ? i + half : 2 * i + 1;
      float x0 = v[a], x1 = v[b];
      v[a] = x0 * c - x1 * s;
      v[b] = x0 * s + x1 * c;
    }
  }
}

/* kv_cache[2][layers][1][ctx][kv_heads][head_dim] */
MOCK_FN float *cache_at(void *kv_cache, int kind, int layer, int pos) {
  size_t layer_size = (size_t)MOCK_CTX * KV_DIM;
  return (float *)kv_cache +
         ((size_t)kind * MOCK_LAYERS + layer) * layer_size + (size_t)pos * KV_DIM;
}

/* The decoder in three steps, so that the CUDA mock (mock_cuda_model.c) can
 * launch each as a "kernel" and compute exactly the same numbers. */
MOCK_FN void embed_step(float *x, int32_t token, const float *table) {
  memcpy(x, table + (size_t)token * MOCK_DIM, sizeof(float) * MOCK_DIM);
}

/* lw: the layer's PER_LAYER weights, in manifest order. */
MOCK_FN void layer_step(float *x, int l, int32_t pos, void *kv_cache,
                       const float *const *lw) {
  float xb[MOCK_DIM], q[Q_DIM], att_out[Q_DIM], tmp[MOCK_DIM];
  float h1[MOCK_HIDDEN], h3[MOCK_HIDDEN];
  float scores[MOCK_CTX];
  rmsnorm(xb, x, lw[0], MOCK_DIM);
  float *k = cache_at(kv_cache, 0, l, pos), *v = cache_at(kv_cache, 1, l, pos);
  matvec(q, lw[1], xb, Q_DIM, MOCK_DIM);
  matvec(k, lw[2], xb, KV_DIM, MOCK_DIM);
  matvec(v, lw[3], xb, KV_DIM, MOCK_DIM);
  rope(q, MOCK_HEADS, pos);
  rope(k, MOCK_KV_HEADS, pos);
  for (int h = 0; h < MOCK_HEADS; ++h) {
    int kvh = h / (MOCK_HEADS / MOCK_KV_HEADS);
    const float *qh = q + h * MOCK_HEAD_DIM;
    float max = -INFINITY, sum = 0.0f;
    for (int t = 0; t <= pos; ++t) {
      const float *kt = cache_at(kv_cache, 0, l, t) + kvh * MOCK_HEAD_DIM;
      float s = 0.0f;
      for (int i = 0; i < MOCK_HEAD_DIM; ++i)
        s += qh[i] * kt[i];
      scores[t] = s / sqrtf((float)MOCK_HEAD_DIM);
      if (scores[t] > max)
        max = scores[t];
    }
    for (int t = 0; t <= pos; ++t) {
      scores[t] = expf(scores[t] - max);
      sum += scores[t];
    }
    float *out = att_out + h * MOCK_HEAD_DIM;
    memset(out, 0, sizeof(float) * MOCK_HEAD_DIM);
    for (int t = 0; t <= pos; ++t) {
      const float *vt = cache_at(kv_cache, 1, l, t) + kvh * MOCK_HEAD_DIM;
      for (int i = 0; i < MOCK_HEAD_DIM; ++i)
        out[i] += scores[t] / sum * vt[i];
    }
  }
  matvec(tmp, lw[4], att_out, MOCK_DIM, Q_DIM);
  for (int i = 0; i < MOCK_DIM; ++i)
    x[i] += tmp[i];
  rmsnorm(xb, x, lw[5], MOCK_DIM);
  matvec(h1, lw[6], xb, MOCK_HIDDEN, MOCK_DIM);
  matvec(h3, lw[7], xb, MOCK_HIDDEN, MOCK_DIM);
  for (int i = 0; i < MOCK_HIDDEN; ++i)
    h1[i] = h1[i] / (1.0f + expf(-h1[i])) * h3[i];
  matvec(tmp, lw[8], h1, MOCK_DIM, MOCK_HIDDEN);
  for (int i = 0; i < MOCK_DIM; ++i)
    x[i] += tmp[i];
}

MOCK_FN void head_step(float *logits, const float *x, const float *norm,
                      const float *lm_head) {
  float xb[MOCK_DIM];
  rmsnorm(xb, x, norm, MOCK_DIM);
  matvec(logits, lm_head, xb, MOCK_VOCAB, MOCK_DIM);
}

#ifndef MOCK_NO_ENTRY_POINTS
static void forward(int32_t token, int32_t pos, void *kv_cache,
                    const void *const *weights, float *logits) {
  float x[MOCK_DIM];
  const float *const *w = (const float *const *)weights;
  embed_step(x, token, w[0]);
  for (int l = 0; l < MOCK_LAYERS; ++l)
    layer_step(x, l, pos, kv_cache, w + 1 + l * PER_LAYER);
  const float *const *tail = w + 1 + MOCK_LAYERS * PER_LAYER;
  head_step(logits, x, tail[0], tail[1]);
}

int32_t MOCK_PREFILL(const int32_t *tokens, const int32_t *positions,
                     int64_t seq_len, int64_t logit_rows, void *kv_cache,
                     const void *const *weights, float *logits) {
  /* Tokens before the last logit_rows ones compute their logits into a row
   * that is thrown away. */
  float unused[MOCK_VOCAB];
  for (int64_t t = 0; t < seq_len; ++t) {
    int64_t row = t - (seq_len - logit_rows);
    forward(tokens[t], positions[t], kv_cache, weights,
            row < 0 ? unused : logits + (size_t)row * MOCK_VOCAB);
  }
  return 0;
}

int32_t MOCK_DECODE(const int32_t *tokens, const int32_t *positions,
                    void *kv_cache, const void *const *weights, float *logits) {
  return MOCK_PREFILL(tokens, positions, 1, 1, kv_cache, weights, logits);
}
#endif /* MOCK_NO_ENTRY_POINTS */
