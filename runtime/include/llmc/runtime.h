/* llmc runtime public C API: weights, tokenizer and sampler (the data layer). */
#ifndef LLMC_RUNTIME_H
#define LLMC_RUNTIME_H

/*
 * Conventions (apply to every function below unless its comment says otherwise):
 *
 * Errors. Every fallible function returns an llmc_status. On failure it also
 * stores a human-readable message in a *thread-local* slot that
 * llmc_last_error() returns. A thread-local slot (rather than a per-handle
 * string) is used because several calls fail before any handle exists (open,
 * create) and because it makes reading the message race-free without locks:
 * each thread only ever sees the messages of its own calls. Successful calls
 * leave the slot untouched, so read it right after the failing call.
 *
 * Output parameters are written only on LLMC_OK (except *_len / *_count
 * outputs documented as "required size" on LLMC_ERR_BUFFER_TOO_SMALL).
 *
 * Handles are opaque. Each `_create`/`_open` pairs with exactly one
 * `_destroy`; `_destroy(NULL)` is a no-op. Destroying a handle while another
 * thread uses it is undefined behaviour.
 *
 * Strings returned as `const char *` + length point into memory owned by the
 * handle (usually the mmap of the file) and stay valid until the handle is
 * destroyed. They are NOT NUL-terminated unless stated.
 *
 * No C++ exception ever crosses this API; the library does not link MLIR or
 * LLVM. Only little-endian hosts are supported (all formats are little-endian).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status and errors                                                        */
/* ------------------------------------------------------------------------ */

typedef enum llmc_status {
  LLMC_OK = 0,
  LLMC_ERR_INVALID_ARGUMENT = 1, /* NULL handle/pointer, bad option value */
  LLMC_ERR_IO = 2,               /* file missing, unreadable, empty, mmap failed */
  LLMC_ERR_FORMAT = 3,           /* malformed, truncated or inconsistent file */
  LLMC_ERR_UNSUPPORTED = 4,      /* well-formed but not supported (dtype, version) */
  LLMC_ERR_NOT_FOUND = 5,        /* no tensor / metadata key of that name */
  LLMC_ERR_OUT_OF_RANGE = 6,     /* index or token id outside its valid range */
  LLMC_ERR_BUFFER_TOO_SMALL = 7, /* caller buffer too small; required size reported */
  LLMC_ERR_OUT_OF_MEMORY = 8,
  LLMC_ERR_INTERNAL = 9
} llmc_status;

/* Message of the calling thread's most recent failed call ("" if none).
 * Valid until the next failing call on the same thread. Thread-safe. */
const char *llmc_last_error(void);

/* Static name of a status code, e.g. "LLMC_ERR_FORMAT". Thread-safe. */
const char *llmc_status_name(llmc_status status);

/* ------------------------------------------------------------------------ */
/* Weights                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * A weight set is a read-only collection of named tensors plus key/value
 * metadata, loaded from one of:
 *   - GGUF v2/v3 (`*.gguf`, magic "GGUF"),
 *   - safetensors (`*.safetensors`), a sharded checkpoint's
 *     `model.safetensors.index.json`, or a directory holding either,
 *   - a llama2.c checkpoint (`*.bin`).
 * Files are memory-mapped; nothing is copied at open time except metadata.
 *
 * Canonical tensor names are the Hugging Face llama names
 * ("model.embed_tokens.weight", "model.layers.0.self_attn.q_proj.weight",
 * "model.norm.weight", "lm_head.weight", ...). GGUF llama names
 * ("token_embd.weight", "blk.0.attn_q.weight", ...) and llama2.c arrays are
 * renamed onto them; every lookup accepts either the canonical or the
 * original (source) name. Unknown GGUF names are kept unchanged.
 *
 * Shapes are reported outermost-first (row-major, as in PyTorch): a GGUF
 * tensor with ne = [64, 128] (ne[0] = row length) is reported as [128, 64].
 * The bytes are not moved: GGUF data is already row-major in that order.
 *
 * RoPE caveat: canonical names do not make Q/K row orders equal. GGUF files
 * written by llama.cpp and llama2.c checkpoints order the rows of q_proj /
 * k_proj for *interleaved* (adjacent-pair) rotation; Hugging Face safetensors
 * for *half* rotation. llmc_weights_rope_layout() says which one applies.
 */
typedef struct llmc_weights llmc_weights;

typedef enum llmc_weights_format {
  LLMC_WEIGHTS_AUTO = 0, /* open(): detect from magic, extension, directory */
  LLMC_WEIGHTS_GGUF = 1,
  LLMC_WEIGHTS_SAFETENSORS = 2, /* single file or sharded index */
  LLMC_WEIGHTS_LLAMA2C = 3
} llmc_weights_format;

typedef enum llmc_dtype {
  LLMC_DTYPE_F32 = 0,
  LLMC_DTYPE_F16 = 1,
  LLMC_DTYPE_BF16 = 2,
  LLMC_DTYPE_Q8_0 = 3, /* ggml block: f16 scale + 32 x int8 */
  LLMC_DTYPE_Q4_0 = 4, /* ggml block: f16 scale + 32 x 4-bit, value (q-8)*d */
  LLMC_DTYPE_Q4_1 = 5  /* ggml block: f16 d, f16 m + 32 x 4-bit, value q*d+m */
} llmc_dtype;

typedef enum llmc_rope_layout {
  LLMC_ROPE_INTERLEAVED = 0, /* rotate adjacent pairs (GGUF, llama2.c) */
  LLMC_ROPE_HALF = 1         /* rotate first half with second half (HF) */
} llmc_rope_layout;

#define LLMC_MAX_DIMS 4

typedef struct llmc_tensor_info {
  const char *name;        /* canonical name, NUL-terminated, owned by the set */
  const char *source_name; /* name in the file, NUL-terminated, owned by the set */
  int32_t n_dims;          /* 0..LLMC_MAX_DIMS */
  int64_t shape[LLMC_MAX_DIMS]; /* outermost first; unused entries are 1 */
  int64_t n_elements;
  llmc_dtype dtype;        /* storage dtype in the file */
  uint64_t n_bytes;        /* storage size in the file */
} llmc_tensor_info;

/* Opens a weight set. `format` may be LLMC_WEIGHTS_AUTO. Validates every
 * header length, offset and tensor size against the file before returning;
 * a file that opens never makes a later call read out of bounds.
 * Thread-safe (independent calls). */
llmc_status llmc_weights_open(const char *path, llmc_weights_format format,
                              llmc_weights **out);

/* Not thread-safe with respect to other calls on the same handle. */
void llmc_weights_destroy(llmc_weights *weights);

/* The functions below are thread-safe on a shared handle. */
llmc_weights_format llmc_weights_get_format(const llmc_weights *weights);
llmc_rope_layout llmc_weights_rope_layout(const llmc_weights *weights);
size_t llmc_weights_tensor_count(const llmc_weights *weights);

/* Tensors are listed in file order. */
llmc_status llmc_weights_tensor_info(const llmc_weights *weights, size_t index,
                                     llmc_tensor_info *out);

/* Looks a tensor up by canonical or source name. */
llmc_status llmc_weights_find(const llmc_weights *weights, const char *name,
                              size_t *index);

/* Returns the tensor as contiguous f32 (n_elements values). F32 data that is
 * 4-byte aligned in the mapping is returned zero-copy; anything else
 * (F16/BF16/quantized, or unaligned F32) is converted once on first request
 * and cached in the handle until destroy. Thread-safe (internally locked). */
llmc_status llmc_weights_tensor_f32(llmc_weights *weights, const char *name,
                                    const float **data, size_t *n_elements);

/* Converts the tensor into a caller buffer of `capacity` floats without
 * caching (use this to stream large quantized models into other memory).
 * On LLMC_ERR_BUFFER_TOO_SMALL, *n_elements (if non-NULL) holds the
 * required size. Thread-safe. */
llmc_status llmc_weights_copy_f32(const llmc_weights *weights, const char *name,
                                  float *dst, size_t capacity,
                                  size_t *n_elements);

/* The tensor's bytes exactly as stored (for backends that consume F16/BF16
 * directly). Thread-safe. */
llmc_status llmc_weights_tensor_raw(const llmc_weights *weights,
                                    const char *name, const void **data,
                                    uint64_t *n_bytes);

/* Metadata. GGUF files expose their KV pairs unchanged. llama2.c checkpoints
 * expose their header as GGUF-style keys (general.architecture = "llama",
 * llama.embedding_length, llama.feed_forward_length, llama.block_count,
 * llama.attention.head_count, llama.attention.head_count_kv,
 * llama.context_length, llama.vocab_size). safetensors expose the string
 * pairs of "__metadata__" (and the index's "metadata") as strings.
 * Types follow GGUF numbering. All thread-safe. */
typedef enum llmc_meta_type {
  LLMC_META_UINT8 = 0,
  LLMC_META_INT8 = 1,
  LLMC_META_UINT16 = 2,
  LLMC_META_INT16 = 3,
  LLMC_META_UINT32 = 4,
  LLMC_META_INT32 = 5,
  LLMC_META_FLOAT32 = 6,
  LLMC_META_BOOL = 7,
  LLMC_META_STRING = 8,
  LLMC_META_ARRAY = 9,
  LLMC_META_UINT64 = 10,
  LLMC_META_INT64 = 11,
  LLMC_META_FLOAT64 = 12
} llmc_meta_type;

size_t llmc_weights_meta_count(const llmc_weights *weights);
/* Key of the index-th pair (file order); NUL-terminated, owned by the set. */
llmc_status llmc_weights_meta_key(const llmc_weights *weights, size_t index,
                                  const char **key);
/* Type of a value; for arrays also the element type and length (either
 * pointer may be NULL). */
llmc_status llmc_weights_meta_type(const llmc_weights *weights, const char *key,
                                   llmc_meta_type *type,
                                   llmc_meta_type *elem_type,
                                   uint64_t *array_len);
/* Any integer or bool value (LLMC_ERR_OUT_OF_RANGE if it does not fit). */
llmc_status llmc_weights_meta_int(const llmc_weights *weights, const char *key,
                                  int64_t *value);
/* Any float or integer value. */
llmc_status llmc_weights_meta_float(const llmc_weights *weights,
                                    const char *key, double *value);
llmc_status llmc_weights_meta_string(const llmc_weights *weights,
                                     const char *key, const char **data,
                                     size_t *len);
/* Elements of a scalar/string array. */
llmc_status llmc_weights_meta_array_int(const llmc_weights *weights,
                                        const char *key, uint64_t index,
                                        int64_t *value);
llmc_status llmc_weights_meta_array_float(const llmc_weights *weights,
                                          const char *key, uint64_t index,
                                          double *value);
llmc_status llmc_weights_meta_array_string(const llmc_weights *weights,
                                           const char *key, uint64_t index,
                                           const char **data, size_t *len);

/* ------------------------------------------------------------------------ */
/* Tokenizer                                                                */
/* ------------------------------------------------------------------------ */

/*
 * SentencePiece-style BPE with scores (the llama / llama2.c tokenizer).
 * Pieces are stored internally with plain spaces: the GGUF vocabulary's
 * U+2581 ("▁") is translated to ' ' at load, which makes a GGUF vocab and the
 * equivalent llama2.c `tok*.bin` behave identically.
 * A tokenizer is immutable after creation: every function on it is
 * thread-safe on a shared handle.
 */
typedef struct llmc_tokenizer llmc_tokenizer;

/* Loads a llama2.c tokenizer file (int32 max_token_length, then per token
 * f32 score, int32 length, bytes). `vocab_size` is the model's vocabulary
 * size, or 0 to read tokens until end of file. BOS = 1 and EOS = 2, as in
 * llama2.c. */
llmc_status llmc_tokenizer_load_llama2c(const char *path, int32_t vocab_size,
                                        llmc_tokenizer **out);

/* Builds a tokenizer from a weight set's GGUF metadata (tokenizer.ggml.*).
 * The tokenizer copies what it needs: the weight set may be destroyed. */
llmc_status llmc_tokenizer_from_weights(const llmc_weights *weights,
                                        llmc_tokenizer **out);

void llmc_tokenizer_destroy(llmc_tokenizer *tokenizer);

int32_t llmc_tokenizer_vocab_size(const llmc_tokenizer *tokenizer);
int32_t llmc_tokenizer_bos_id(const llmc_tokenizer *tokenizer); /* -1: none */
int32_t llmc_tokenizer_eos_id(const llmc_tokenizer *tokenizer); /* -1: none */

#define LLMC_ENCODE_ADD_BOS 1u /* prepend the BOS token */
#define LLMC_ENCODE_NO_SPACE_PREFIX 2u /* do not prepend the leading space */

/* Encodes `len` bytes of UTF-8 text (invalid UTF-8 falls back to byte
 * tokens). At most len + 2 tokens are produced, so a buffer of that size
 * always suffices. On LLMC_ERR_BUFFER_TOO_SMALL *n_tokens holds the required
 * count. */
llmc_status llmc_tokenizer_encode(const llmc_tokenizer *tokenizer,
                                  const char *text, size_t len, uint32_t flags,
                                  int32_t *tokens, size_t capacity,
                                  size_t *n_tokens);

/* Bytes of `token` when it follows `prev_token` (-1 if none): byte tokens
 * <0xXX> give one raw byte, control tokens (BOS/EOS) give nothing, and the
 * leading space of the first piece after BOS is dropped (as llama2.c does).
 * LLMC_ERR_OUT_OF_RANGE for an id outside [0, vocab_size). */
llmc_status llmc_tokenizer_decode(const llmc_tokenizer *tokenizer,
                                  int32_t prev_token, int32_t token,
                                  const char **piece, size_t *len);

/* Decodes a whole sequence into `buf` (not NUL-terminated). On
 * LLMC_ERR_BUFFER_TOO_SMALL *len holds the required size. */
llmc_status llmc_tokenizer_decode_all(const llmc_tokenizer *tokenizer,
                                      const int32_t *tokens, size_t n_tokens,
                                      char *buf, size_t capacity, size_t *len);

/* ------------------------------------------------------------------------ */
/* Sampler                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Turns a logits vector into a token id. Order of operations:
 * repetition penalty -> (greedy if temperature <= 0, top_k == 1 or top_p <= 0) ->
 * divide by temperature -> keep top_k -> softmax -> keep the smallest prefix
 * with probability mass >= top_p (always at least one token) -> draw.
 * The random stream is PCG32 (O'Neill, XSH-RR 64/32) seeded from `seed`:
 * the same seed, config and logits give the same tokens on every platform.
 * A sampler holds RNG state and scratch memory: calls on one handle are NOT
 * thread-safe; use one sampler per thread/sequence.
 */
typedef struct llmc_sampler llmc_sampler;

typedef struct llmc_sampler_config {
  float temperature;        /* <= 0: greedy */
  int32_t top_k;            /* <= 0: disabled (all tokens) */
  float top_p;              /* >= 1: disabled; <= 0: greedy */
  float repetition_penalty; /* 1: disabled; > 1 discourages repeats (CTRL) */
  uint64_t seed;
} llmc_sampler_config;

/* Fills in: temperature 1, top_k 0, top_p 1, repetition_penalty 1, seed 0. */
void llmc_sampler_config_default(llmc_sampler_config *config);

llmc_status llmc_sampler_create(const llmc_sampler_config *config,
                                int32_t vocab_size, llmc_sampler **out);
void llmc_sampler_destroy(llmc_sampler *sampler);

/* Restarts the random stream (same as a freshly created sampler). */
void llmc_sampler_reseed(llmc_sampler *sampler, uint64_t seed);

/* Samples from `logits` (vocab_size values, not modified). `history` holds
 * the previous tokens the repetition penalty applies to (may be NULL when
 * n_history is 0); each distinct id is penalised once: a positive logit is
 * divided by the penalty, a negative one multiplied. NaN logits never win. */
llmc_status llmc_sampler_sample(llmc_sampler *sampler, const float *logits,
                                const int32_t *history, size_t n_history,
                                int32_t *token);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LLMC_RUNTIME_H */
