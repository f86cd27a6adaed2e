/* naive_reference: a deliberately plain, single-threaded LLaMA decoder, written from the formulas,
 * used as the benchmark's floor and as an independent check of llmc's greedy tokens.
 *
 *   naive_reference <weights> --tokens "1 2 3" -n N [--config config.json]
 *
 * <weights> is a llama2.c checkpoint (.bin) or an f32 safetensors file (the config.json beside it, or
 * --config, gives the head count, RoPE theta and RMSNorm eps). Every token, prompt included, goes
 * through the same one-token forward pass (so prefill is not batched: that is the naive part), with a
 * KV cache. Greedy decoding. stdout: prompt and generated ids, space-separated (as llmc-run
 * --print-tokens prints them). stderr: one timing line.
 *
 * Model: x = E[token]; per layer  h = RMSNorm(x)·w_att; q,k,v = Wq h, Wk h, Wv h; RoPE (half style:
 * dim i rotates with dim i + Dh/2, frequency theta^(-2i/Dh)) on q and k; append k,v to the cache;
 * per query head (GQA: kv head = head / (H/KV)) softmax(q·k_t / sqrt(Dh)) over t <= pos, weighted sum
 * of v_t; x += Wo att; h = RMSNorm(x)·w_ffn; x += Wdown (silu(Wgate h) * Wup h); finally
 * logits = W_lm RMSNorm(x)·w_final, W_lm = E when tied. RMSNorm(x) = x / sqrt(mean(x^2) + eps).
 * llama2.c files store q/k rows for interleaved (adjacent pair) rotation: their rows are reordered to
 * the half layout at load, which computes the same function.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  const float *att_norm, *wq, *wk, *wv, *wo, *ffn_norm, *wgate, *wup, *wdown;
} Layer;

typedef struct {
  int D, I, L, H, KV, Dh, V;
  float theta, eps;
  const float *emb, *final_norm, *lm_head;
  Layer *layers;
} Model;

static void die(const char *fmt, const char *arg) {
  fprintf(stderr, "naive_reference: error: ");
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  exit(1);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const unsigned char *map_file(const char *path, size_t *size) {
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    die("cannot open %s", path);
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size <= 0)
    die("cannot stat %s (or it is empty)", path);
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    die("cannot mmap %s", path);
  *size = (size_t)st.st_size;
  return p;
}

/* ---- llama2.c ------------------------------------------------------------------------------ */

/* Rows (2i, 2i+1) of each head go to (i, i + Dh/2). */
static float *interleaved_to_half(const float *w, int heads, int Dh, int cols) {
  float *out = malloc(sizeof(float) * (size_t)heads * Dh * cols);
  if (!out)
    die("%s", "out of memory");
  for (int h = 0; h < heads; ++h)
    for (int r = 0; r < Dh; ++r) {
      int dst = r % 2 == 0 ? r / 2 : r / 2 + Dh / 2;
      memcpy(out + ((size_t)h * Dh + dst) * cols, w + ((size_t)h * Dh + r) * cols,
             sizeof(float) * cols);
    }
  return out;
}

static void load_llama2c(const char *path, Model *m) {
  size_t size;
  const unsigned char *data = map_file(path, &size);
  if (size < 28)
    die("%s: too small for a llama2.c header", path);
  int32_t hdr[7];
  memcpy(hdr, data, sizeof hdr);
  m->D = hdr[0], m->I = hdr[1], m->L = hdr[2], m->H = hdr[3], m->KV = hdr[4];
  int shared = hdr[5] > 0;
  m->V = abs(hdr[5]);
  int S = hdr[6];
  m->Dh = m->D / m->H;
  m->theta = 10000.0f, m->eps = 1e-5f;
  size_t D = m->D, I = m->I, L = m->L, KVD = (size_t)m->KV * m->Dh, V = m->V;
  size_t need = V * D + L * D + L * D * D + 2 * L * KVD * D + L * D * D + L * D + 3 * L * I * D + D +
                (size_t)S * m->Dh + (shared ? 0 : V * D);
  if (size < 28 + 4 * need)
    die("%s: shorter than its header says", path);
  const float *p = (const float *)(data + 28);
  m->emb = p, p += V * D;
  const float *rms_att = p; p += L * D;
  const float *wq = p; p += L * D * D;
  const float *wk = p; p += L * KVD * D;
  const float *wv = p; p += L * KVD * D;
  const float *wo = p; p += L * D * D;
  const float *rms_ffn = p; p += L * D;
  const float *w1 = p; p += L * I * D;
  const float *w2 = p; p += L * D * I;
  const float *w3 = p; p += L * I * D;
  m->final_norm = p, p += D;
  p += (size_t)S * m->Dh; /* the old RoPE tables */
  m->lm_head = shared ? m->emb : p;
  m->layers = calloc(L, sizeof(Layer));
  for (size_t l = 0; l < L; ++l) {
    Layer *ly = &m->layers[l];
    ly->att_norm = rms_att + l * D;
    ly->wq = interleaved_to_half(wq + l * D * D, m->H, m->Dh, m->D);
    ly->wk = interleaved_to_half(wk + l * KVD * D, m->KV, m->Dh, m->D);
    ly->wv = wv + l * KVD * D;
    ly->wo = wo + l * D * D;
    ly->ffn_norm = rms_ffn + l * D;
    ly->wgate = w1 + l * I * D;
    ly->wdown = w2 + l * D * I;
    ly->wup = w3 + l * I * D;
  }
}

/* ---- safetensors --------------------------------------------------------------------------- */

typedef struct {
  const unsigned char *data; /* start of the byte buffer */
  size_t data_size;
  char *header; /* NUL-terminated JSON */
} SafeTensors;

/* Finds `"name":{..."data_offsets":[a,b]...}`; returns NULL when absent. Checks dtype F32 and the
 * element count. */
static const float *st_find(const SafeTensors *st, const char *name, size_t elements) {
  char key[256];
  snprintf(key, sizeof key, "\"%s\"", name);
  const char *at = strstr(st->header, key);
  if (!at)
    return NULL;
  const char *end = strchr(at, '}');
  const char *dt = strstr(at, "\"dtype\"");
  const char *off = strstr(at, "\"data_offsets\"");
  if (!end || !dt || !off || dt > end || off > end)
    die("malformed safetensors entry for %s", name);
  dt = strchr(dt + 7, '"');
  if (!dt || strncmp(dt, "\"F32\"", 5) != 0)
    die("%s: only F32 safetensors are supported", name);
  off = strchr(off, '[');
  char *e;
  unsigned long long a = strtoull(off + 1, &e, 10);
  unsigned long long b = strtoull(strchr(e, ',') + 1, &e, 10);
  if (b < a || b > st->data_size || (b - a) != 4 * elements || a % 4)
    die("%s: offsets disagree with the expected shape", name);
  return (const float *)(st->data + a);
}

static const float *st_need(const SafeTensors *st, const char *name, size_t elements) {
  const float *p = st_find(st, name, elements);
  if (!p)
    die("tensor %s not found", name);
  return p;
}

/* The first number after "key": in a JSON text (enough for a flat config.json). */
static int json_number(const char *json, const char *key, double *out) {
  char k[128];
  snprintf(k, sizeof k, "\"%s\"", key);
  const char *at = strstr(json, k);
  if (!at)
    return 0;
  at = strchr(at + strlen(k), ':');
  if (!at)
    return 0;
  char *end;
  double v = strtod(at + 1, &end);
  if (end == at + 1)
    return 0;
  *out = v;
  return 1;
}

static void load_safetensors(const char *path, const char *config_path, Model *m) {
  size_t size;
  const unsigned char *file = map_file(path, &size);
  uint64_t hlen;
  if (size < 8)
    die("%s: too small for safetensors", path);
  memcpy(&hlen, file, 8);
  if (hlen > size - 8)
    die("%s: header length past the end of the file", path);
  SafeTensors st = {file + 8 + hlen, size - 8 - hlen, malloc(hlen + 1)};
  memcpy(st.header, file + 8, hlen);
  st.header[hlen] = 0;

  char cfgbuf[4096];
  if (config_path)
    snprintf(cfgbuf, sizeof cfgbuf, "%s", config_path);
  else {
    snprintf(cfgbuf, sizeof cfgbuf, "%s", path);
    char *slash = strrchr(cfgbuf, '/');
    snprintf(slash ? slash + 1 : cfgbuf, sizeof cfgbuf - (slash ? slash + 1 - cfgbuf : 0),
             "config.json");
  }
  FILE *f = fopen(cfgbuf, "rb");
  if (!f)
    die("cannot open the model's config %s", cfgbuf);
  static char cfg[1 << 16];
  size_t n = fread(cfg, 1, sizeof cfg - 1, f);
  cfg[n] = 0;
  fclose(f);
  double v;
#define NEED(key, dst)                                                                             \
  do {                                                                                             \
    if (!json_number(cfg, key, &v))                                                                \
      die("config has no numeric %s", key);                                                        \
    dst = v;                                                                                       \
  } while (0)
  NEED("hidden_size", m->D);
  NEED("intermediate_size", m->I);
  NEED("num_hidden_layers", m->L);
  NEED("num_attention_heads", m->H);
  NEED("vocab_size", m->V);
  m->KV = m->H;
  if (json_number(cfg, "num_key_value_heads", &v))
    m->KV = (int)v;
  m->Dh = m->D / m->H;
  if (json_number(cfg, "head_dim", &v))
    m->Dh = (int)v;
  m->theta = 10000.0f, m->eps = 1e-6f;
  if (json_number(cfg, "rope_theta", &v))
    m->theta = (float)v;
  if (json_number(cfg, "rms_norm_eps", &v))
    m->eps = (float)v;
#undef NEED
  if (m->Dh * m->H != m->D)
    die("%s", "head_dim * heads != hidden_size is not supported by the naive reference");

  size_t D = m->D, I = m->I, KVD = (size_t)m->KV * m->Dh, V = m->V;
  m->emb = st_need(&st, "model.embed_tokens.weight", V * D);
  m->final_norm = st_need(&st, "model.norm.weight", D);
  m->lm_head = st_find(&st, "lm_head.weight", V * D);
  if (!m->lm_head)
    m->lm_head = m->emb; /* tied */
  m->layers = calloc(m->L, sizeof(Layer));
  char name[256];
#define T(field, suffix, count)                                                                    \
  (snprintf(name, sizeof name, "model.layers.%d.%s", l, suffix),                                   \
   m->layers[l].field = st_need(&st, name, count))
  for (int l = 0; l < m->L; ++l) {
    T(att_norm, "input_layernorm.weight", D);
    T(wq, "self_attn.q_proj.weight", D * D);
    T(wk, "self_attn.k_proj.weight", KVD * D);
    T(wv, "self_attn.v_proj.weight", KVD * D);
    T(wo, "self_attn.o_proj.weight", D * D);
    T(ffn_norm, "post_attention_layernorm.weight", D);
    T(wgate, "mlp.gate_proj.weight", I * D);
    T(wup, "mlp.up_proj.weight", I * D);
    T(wdown, "mlp.down_proj.weight", D * I);
  }
#undef T
}

/* ---- the decoder --------------------------------------------------------------------------- */

typedef struct {
  float *x, *h, *q, *k, *v, *att, *ffn_g, *ffn_u, *scores, *logits;
  float *kcache, *vcache; /* [L][ctx][KV*Dh] */
  int ctx;
} State;

static void rmsnorm(float *out, const float *x, const float *w, int n, float eps) {
  float ss = 0;
  for (int i = 0; i < n; ++i)
    ss += x[i] * x[i];
  float r = 1.0f / sqrtf(ss / n + eps);
  for (int i = 0; i < n; ++i)
    out[i] = x[i] * r * w[i];
}

/* out[rows] = W[rows][cols] · x[cols] */
static void matvec(float *out, const float *W, const float *x, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float *w = W + (size_t)r * cols;
    float s = 0;
    for (int c = 0; c < cols; ++c)
      s += w[c] * x[c];
    out[r] = s;
  }
}

static void rope_half(float *v, int heads, int Dh, int pos, float theta) {
  int half = Dh / 2;
  for (int i = 0; i < half; ++i) {
    float freq = 1.0f / powf(theta, (float)(2 * i) / (float)Dh);
    float angle = (float)pos * freq;
    float c = cosf(angle), s = sinf(angle);
    for (int h = 0; h < heads; ++h) {
      float *p = v + h * Dh;
      float x0 = p[i], x1 = p[i + half];
      p[i] = x0 * c - x1 * s;
      p[i + half] = x0 * s + x1 * c;
    }
  }
}

static float *forward(const Model *m, State *s, int token, int pos) {
  int D = m->D, Dh = m->Dh, KVD = m->KV * m->Dh, group = m->H / m->KV;
  memcpy(s->x, m->emb + (size_t)token * D, sizeof(float) * D);
  for (int l = 0; l < m->L; ++l) {
    const Layer *ly = &m->layers[l];
    rmsnorm(s->h, s->x, ly->att_norm, D, m->eps);
    matvec(s->q, ly->wq, s->h, m->H * Dh, D);
    float *kc = s->kcache + ((size_t)l * s->ctx) * KVD, *vc = s->vcache + ((size_t)l * s->ctx) * KVD;
    float *k = kc + (size_t)pos * KVD, *v = vc + (size_t)pos * KVD;
    matvec(k, ly->wk, s->h, KVD, D);
    matvec(v, ly->wv, s->h, KVD, D);
    rope_half(s->q, m->H, Dh, pos, m->theta);
    rope_half(k, m->KV, Dh, pos, m->theta);
    float scale = 1.0f / sqrtf((float)Dh);
    for (int h = 0; h < m->H; ++h) {
      const float *q = s->q + h * Dh;
      int kvh = h / group;
      float mx = -INFINITY;
      for (int t = 0; t <= pos; ++t) {
        const float *kt = kc + (size_t)t * KVD + kvh * Dh;
        float d = 0;
        for (int i = 0; i < Dh; ++i)
          d += q[i] * kt[i];
        s->scores[t] = d * scale;
        if (s->scores[t] > mx)
          mx = s->scores[t];
      }
      float sum = 0;
      for (int t = 0; t <= pos; ++t) {
        s->scores[t] = expf(s->scores[t] - mx);
        sum += s->scores[t];
      }
      float *out = s->att + h * Dh;
      memset(out, 0, sizeof(float) * Dh);
      for (int t = 0; t <= pos; ++t) {
        const float *vt = vc + (size_t)t * KVD + kvh * Dh;
        float a = s->scores[t] / sum;
        for (int i = 0; i < Dh; ++i)
          out[i] += a * vt[i];
      }
    }
    matvec(s->h, ly->wo, s->att, D, m->H * Dh);
    for (int i = 0; i < D; ++i)
      s->x[i] += s->h[i];
    rmsnorm(s->h, s->x, ly->ffn_norm, D, m->eps);
    matvec(s->ffn_g, ly->wgate, s->h, m->I, D);
    matvec(s->ffn_u, ly->wup, s->h, m->I, D);
    for (int i = 0; i < m->I; ++i) {
      float g = s->ffn_g[i];
      s->ffn_g[i] = g / (1.0f + expf(-g)) * s->ffn_u[i];
    }
    matvec(s->h, ly->wdown, s->ffn_g, D, m->I);
    for (int i = 0; i < D; ++i)
      s->x[i] += s->h[i];
  }
  rmsnorm(s->h, s->x, m->final_norm, D, m->eps);
  matvec(s->logits, m->lm_head, s->h, m->V, D);
  return s->logits;
}

static int argmax(const float *v, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (v[i] > v[best])
      best = i;
  return best;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

int main(int argc, char **argv) {
  const char *weights = NULL, *tokens_text = NULL, *config = NULL;
  long n_new = 16;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--tokens") && i + 1 < argc)
      tokens_text = argv[++i];
    else if (!strcmp(argv[i], "-n") && i + 1 < argc)
      n_new = strtol(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--config") && i + 1 < argc)
      config = argv[++i];
    else if (argv[i][0] != '-' && !weights)
      weights = argv[i];
    else
      die("bad argument '%s' (usage: naive_reference <weights> --tokens \"1 2\" -n N "
          "[--config config.json])",
          argv[i]);
  }
  if (!weights || !tokens_text)
    die("%s", "usage: naive_reference <weights> --tokens \"1 2\" -n N [--config config.json]");

  Model m = {0};
  if (ends_with(weights, ".bin"))
    load_llama2c(weights, &m);
  else
    load_safetensors(weights, config, &m);

  int prompt[4096], n_prompt = 0;
  for (const char *p = tokens_text; *p;) {
    char *end;
    long t = strtol(p, &end, 10);
    if (end == p) {
      ++p;
      continue;
    }
    if (t < 0 || t >= m.V || n_prompt == 4096)
      die("token out of range or too many tokens in '%s'", tokens_text);
    prompt[n_prompt++] = (int)t;
    p = end;
  }
  if (n_prompt == 0)
    die("%s", "no prompt tokens");

  State s = {0};
  s.ctx = n_prompt + (int)n_new;
  size_t KVD = (size_t)m.KV * m.Dh;
  s.x = calloc(m.D, 4), s.h = calloc(m.D > m.I ? m.D : m.I, 4), s.q = calloc(m.H * m.Dh, 4);
  s.att = calloc(m.H * m.Dh, 4), s.ffn_g = calloc(m.I, 4), s.ffn_u = calloc(m.I, 4);
  s.scores = calloc(s.ctx, 4), s.logits = calloc(m.V, 4);
  s.kcache = calloc((size_t)m.L * s.ctx * KVD, 4), s.vcache = calloc((size_t)m.L * s.ctx * KVD, 4);
  if (!s.kcache || !s.vcache || !s.logits)
    die("%s", "out of memory");

  double t0 = now();
  const float *logits = NULL;
  for (int i = 0; i < n_prompt; ++i)
    logits = forward(&m, &s, prompt[i], i);
  double prefill_s = now() - t0;

  for (int i = 0; i < n_prompt; ++i)
    printf(i ? " %d" : "%d", prompt[i]);
  long decoded = 0;
  double decode_s = 0;
  int pos = n_prompt;
  for (long i = 0; i < n_new; ++i) {
    int next = argmax(logits, m.V);
    printf(" %d", next);
    if (i + 1 == n_new)
      break; /* the last token's logits are never needed (as in llmc-run) */
    double t1 = now();
    logits = forward(&m, &s, next, pos++);
    decode_s += now() - t1;
    ++decoded;
  }
  printf("\n");
  fflush(stdout);
  fprintf(stderr,
          "naive: %ld generated; prefill %d tokens in %.3f ms (%.1f tokens/s); decode %ld tokens in "
          "%.3f ms (%.1f tokens/s)\n",
          n_new, n_prompt, prefill_s * 1e3, n_prompt / prefill_s, decoded, decode_s * 1e3,
          decoded ? decoded / decode_s : 0.0);
  return 0;
}
