/* llmc runtime public C API: weights, tokenizer, sampler, compiled models and sessions. */
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
  LLMC_WEIGHTS_LLAMA2C = 3,
  LLMC_WEIGHTS_RANDOM = 4 /* synthetic (llmc_weights_create_random); not a file */
} llmc_weights_format;

typedef enum llmc_dtype {
  LLMC_DTYPE_F32 = 0,
  LLMC_DTYPE_F16 = 1,
  LLMC_DTYPE_BF16 = 2,
  LLMC_DTYPE_Q8_0 = 3,  /* ggml block: f16 scale + 32 x int8 */
  LLMC_DTYPE_Q4_0 = 4,  /* ggml block: f16 scale + 32 x 4-bit, value (q-8)*d */
  LLMC_DTYPE_Q4_1 = 5,  /* ggml block: f16 d, f16 m + 32 x 4-bit, value q*d+m */
  LLMC_DTYPE_Q5_0 = 6,  /* ggml block: f16 d, u32 high bits + 32 x 4-bit, (q-16)*d */
  LLMC_DTYPE_Q5_1 = 7,  /* ggml block: f16 d, f16 m, u32 high bits + 32 x 4-bit, q*d+m */
  LLMC_DTYPE_Q2_K = 8,  /* ggml super-block of 256: 16 x (4-bit scale, 4-bit min), 2-bit q */
  LLMC_DTYPE_Q3_K = 9,  /* ggml super-block of 256: 16 x 6-bit scale, 3-bit q, f16 d */
  LLMC_DTYPE_Q4_K = 10, /* ggml super-block of 256: f16 d, dmin, 8 x 6-bit scale/min, 4-bit q */
  LLMC_DTYPE_Q5_K = 11, /* ggml super-block of 256: as Q4_K with 5-bit q */
  LLMC_DTYPE_Q6_K = 12, /* ggml super-block of 256: 16 x int8 scale, 6-bit q, f16 d */
  LLMC_DTYPE_IQ4_NL = 13 /* ggml block: f16 d + 32 x 4-bit index into a fixed 16-level table */
} llmc_dtype;

/* The dtype's name as GGUF and llama.cpp spell it ("F32", "BF16", "Q4_1",
 * "Q6_K", ...), for one of the enum's values. Thread-safe. */
const char *llmc_dtype_name(llmc_dtype dtype);

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

/* Where CPU sessions read the weights they use as stored (a tensor in the
 * format and row order the artifact takes). */
typedef enum llmc_weights_residency {
  /* The default: each such tensor is copied once into memory the handle
   * owns, in 2 MiB pages (the hardware prefetchers run on across them; a
   * file's mapping has 4 KiB ones), and its file pages are dropped from the
   * process. Faster decoding; the copies are the process's own memory and
   * cost time at the first session (about a second per 2 GB). */
  LLMC_WEIGHTS_RESIDENT = 0,
  /* Read from the file's mapping (zero-copy): processes that open the same
   * file share its pages through the page cache. Tensors the artifact takes
   * converted or repacked (an f32 artifact of an f16 file, the CPU's
   * interleaved q4_0/q4_1/q5_0/q5_1/q8_0 projections) are copies either
   * way. */
  LLMC_WEIGHTS_MAPPED = 1
} llmc_weights_residency;

/* Chooses the residency of the handle's weights; call it before the first
 * llmc_session_create on them. LLMC_ERR_INVALID_ARGUMENT for a value outside
 * the enum, or to choose LLMC_WEIGHTS_MAPPED once a session has made
 * resident copies. No effect on CUDA sessions (they upload the weights).
 * Not thread-safe with respect to llmc_session_create on the same handle. */
llmc_status llmc_weights_set_residency(llmc_weights *weights,
                                       llmc_weights_residency residency);
llmc_weights_residency llmc_weights_get_residency(const llmc_weights *weights);

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
 * Three tokenizer models:
 *  - SentencePiece BPE with scores (llama2.c tok*.bin, GGUF
 *    tokenizer.ggml.model = "llama");
 *  - SentencePiece-style BPE with ranked merges and byte fallback (a
 *    tokenizer.json of the Llama-2 / Mistral-v0.1 kind);
 *  - byte-level BPE of the GPT-2 family (GGUF "gpt2" with
 *    tokenizer.ggml.pre, or a byte-level tokenizer.json): a regex
 *    pre-tokenizer (PCRE2) cuts the text into words, each word's bytes merge
 *    by merge rank.
 * SentencePiece pieces are stored with plain spaces: the vocabulary's U+2581
 * ("▁") is translated to ' ' at load, which makes a GGUF vocab and the
 * equivalent llama2.c `tok*.bin` behave identically.
 * Text that spells a control, unknown or user-defined token (e.g.
 * "<|im_start|>") encodes to that one token (leftmost, longest spelling
 * first), except with LLMC_ENCODE_PLAIN_SPECIAL, which keeps control and
 * unknown spellings as text (user-defined tokens still match, as in Hugging
 * Face tokenizers and llama.cpp). llama2.c files mark no token as special,
 * so their text never spells one.
 * A tokenizer is immutable after creation: every function on it is
 * thread-safe on a shared handle. A detokenizer (streaming decode) holds
 * state: one per output stream, not shared between threads.
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

/* Loads a tokenizer from `path`: a GGUF file (its tokenizer.ggml.* metadata),
 * a Hugging Face tokenizer.json, or a model directory holding tokenizer.json
 * and optionally tokenizer_config.json (bos_token, eos_token, add_bos_token,
 * add_eos_token). Unsupported components are LLMC_ERR_UNSUPPORTED naming
 * them and their JSON path. */
llmc_status llmc_tokenizer_load(const char *path, llmc_tokenizer **out);

void llmc_tokenizer_destroy(llmc_tokenizer *tokenizer);

int32_t llmc_tokenizer_vocab_size(const llmc_tokenizer *tokenizer);
int32_t llmc_tokenizer_bos_id(const llmc_tokenizer *tokenizer); /* -1: none */
int32_t llmc_tokenizer_eos_id(const llmc_tokenizer *tokenizer); /* -1: none */
/* Whether the file asks for BOS / EOS around encoded text (GGUF
 * tokenizer.ggml.add_bos_token, tokenizer_config.json add_bos_token, or the
 * family's default); what LLMC_ENCODE_FILE_DEFAULTS applies. */
int llmc_tokenizer_adds_bos(const llmc_tokenizer *tokenizer);
int llmc_tokenizer_adds_eos(const llmc_tokenizer *tokenizer);

/* The ids that end a generation: eos first, then the other end-of-turn ids
 * the file marks (GGUF tokenizer.ggml.eot_token_id / eom_token_id,
 * tokenizer_config.json eos_token). Writes up to `capacity` ids and returns
 * how many there are. */
size_t llmc_tokenizer_end_of_generation(const llmc_tokenizer *tokenizer,
                                        int32_t *ids, size_t capacity);

/* Token kinds (GGUF's tokenizer.ggml.token_type numbering). */
typedef enum llmc_token_kind {
  LLMC_TOKEN_NORMAL = 1,
  LLMC_TOKEN_UNKNOWN = 2,
  LLMC_TOKEN_CONTROL = 3,      /* special: BOS, EOS, <|im_start|>, ... */
  LLMC_TOKEN_USER_DEFINED = 4, /* added, not special */
  LLMC_TOKEN_UNUSED = 5,
  LLMC_TOKEN_BYTE = 6          /* SentencePiece <0xXX> */
} llmc_token_kind;

/* The kind of `token`; LLMC_ERR_OUT_OF_RANGE for an id outside the vocab. */
llmc_status llmc_tokenizer_token_kind(const llmc_tokenizer *tokenizer,
                                      int32_t token, llmc_token_kind *kind);
/* The token's text as the file spells it (byte-level vocabularies: "Ġthe";
 * SentencePiece: "▁the"); valid as long as the tokenizer. Not
 * NUL-terminated. */
llmc_status llmc_tokenizer_token_text(const llmc_tokenizer *tokenizer,
                                      int32_t token, const char **text,
                                      size_t *len);
/* The id of the token the file spells `text` (as llmc_tokenizer_token_text
 * gives it), or -1. */
int32_t llmc_tokenizer_find_token(const llmc_tokenizer *tokenizer,
                                  const char *text, size_t len);

#define LLMC_ENCODE_ADD_BOS 1u /* prepend the BOS token */
#define LLMC_ENCODE_NO_SPACE_PREFIX 2u /* do not prepend the leading space */
#define LLMC_ENCODE_PLAIN_SPECIAL 4u /* control-token spellings are text */
#define LLMC_ENCODE_FILE_DEFAULTS 8u /* add BOS/EOS as the file asks */
#define LLMC_ENCODE_ADD_EOS 16u /* append the EOS token */

/* Encodes `len` bytes of UTF-8 text. Invalid UTF-8 is LLMC_ERR_INVALID_ARGUMENT
 * naming the byte offset. At most 2 * len + 3 tokens are produced (every
 * token covers at least one input byte except BOS, EOS and the SentencePiece
 * prefix space of each fragment), so a buffer of that size always suffices;
 * len + 3 does for text that spells no special token. A tokenizer.json
 * with a Unicode normalizer counts len after normalization, which can make
 * text up to 3 times (NFC, NFD) or 11 times (NFKC, NFKD) longer. On
 * LLMC_ERR_BUFFER_TOO_SMALL *n_tokens holds the required count. */
llmc_status llmc_tokenizer_encode(const llmc_tokenizer *tokenizer,
                                  const char *text, size_t len, uint32_t flags,
                                  int32_t *tokens, size_t capacity,
                                  size_t *n_tokens);

/* Bytes of `token` when it follows `prev_token` (-1 if none): byte tokens
 * give their raw byte, control tokens (BOS/EOS, <|im_end|>) give nothing,
 * and SentencePiece's leading space of the first piece (of the text or
 * after BOS) is dropped (as llama2.c does). A byte-level or byte-fallback
 * token can end inside a UTF-8 character: a streaming printer should use
 * llmc_detokenizer. LLMC_ERR_OUT_OF_RANGE for an id outside
 * [0, vocab_size). */
llmc_status llmc_tokenizer_decode(const llmc_tokenizer *tokenizer,
                                  int32_t prev_token, int32_t token,
                                  const char **piece, size_t *len);

/* Decodes a whole sequence into `buf` (not NUL-terminated). On
 * LLMC_ERR_BUFFER_TOO_SMALL *len holds the required size. */
llmc_status llmc_tokenizer_decode_all(const llmc_tokenizer *tokenizer,
                                      const int32_t *tokens, size_t n_tokens,
                                      char *buf, size_t capacity, size_t *len);

/*
 * Streaming decode that never splits a UTF-8 character: push tokens one at a
 * time and print what comes back; bytes of an unfinished character wait for
 * the next token. Bytes that can never start a valid character are passed
 * through at once. The detokenizer keeps a pointer to its tokenizer, which
 * must outlive it.
 */
typedef struct llmc_detokenizer llmc_detokenizer;

llmc_status llmc_detokenizer_create(const llmc_tokenizer *tokenizer,
                                    llmc_detokenizer **out);
void llmc_detokenizer_destroy(llmc_detokenizer *detokenizer);
/* Appends `token`; *text / *len: the bytes that are complete now (possibly
 * none), valid until the next call on this detokenizer. */
llmc_status llmc_detokenizer_push(llmc_detokenizer *detokenizer, int32_t token,
                                  const char **text, size_t *len);
/* Ends the stream: returns the held-back bytes (an unfinished character at
 * the end of generation) and resets the detokenizer. */
llmc_status llmc_detokenizer_flush(llmc_detokenizer *detokenizer,
                                   const char **text, size_t *len);

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

/*
 * Generation defaults of a Hugging Face model directory (generation_config.json).
 */
#define LLMC_MAX_EOS_IDS 16

typedef struct llmc_generation_config {
  int32_t found;      /* 1 when a generation_config.json was read, else 0 */
  int32_t n_eos_ids;  /* end-of-generation ids it lists (eos_token_id: one or a list) */
  int32_t eos_ids[LLMC_MAX_EOS_IDS];
  int32_t do_sample;  /* 0: transformers decodes greedily (sampler.temperature is then 0) */
  llmc_sampler_config sampler; /* temperature, top_k (transformers' default 50), top_p,
                                  repetition_penalty; seed 0 */
} llmc_generation_config;

/* Reads the generation_config.json that belongs to the weights at
 * `weights_path`: a model directory, or a safetensors file or index inside
 * one. For a GGUF or llama2.c file, or a directory without the file, fills
 * in found = 0, no eos ids and llmc_sampler_config_default's values (the
 * tokenizer's eos ids then apply). A malformed file or a key of the wrong
 * type is LLMC_ERR_FORMAT naming the file and the key. Thread-safe. */
llmc_status llmc_generation_config_load(const char *weights_path,
                                        llmc_generation_config *out);

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

/* ------------------------------------------------------------------------ */
/* RoPE row layout                                                          */
/* ------------------------------------------------------------------------ */

/* Reorders the rows of a q_proj / k_proj weight (or bias: row_len 1) from
 * one RoPE layout to the other, per head of `head_dim` rows (even):
 * interleaved -> half moves rows (2i, 2i+1) of each head to (i, i + Dh/2),
 * the inverse of llama.cpp's HF-to-GGUF permutation; half -> interleaved
 * undoes it. `src` and `dst` hold n_heads * head_dim * row_len floats and
 * must not overlap; from == to copies. Thread-safe. */
llmc_status llmc_rope_permute_rows(const float *src, float *dst,
                                   int64_t n_heads, int64_t head_dim,
                                   int64_t row_len, llmc_rope_layout from,
                                   llmc_rope_layout to);

/* ------------------------------------------------------------------------ */
/* Compiled models                                                          */
/* ------------------------------------------------------------------------ */

/*
 * A model is an artifact written by `llmc compile --target=cpu|cuda:<sm_XX,...>
 * -o <dir>`: `<dir>/<name>.json` (the manifest: ABI version, target, config,
 * KV cache and weight table) and `<dir>/lib<name>.so` exporting the prefill
 * and decode entry points the manifest names (and, for CUDA, the device
 * images and the host-API global of llmc/cuda_host_api.h). Opening checks
 * the manifest and resolves those symbols; no weights are involved yet, and
 * no GPU: a CUDA artifact opens on any machine, its sessions need the GPU.
 * A model is immutable after open: the functions on it are thread-safe on a
 * shared handle, and any number of sessions may run on it concurrently.
 */
typedef struct llmc_model llmc_model;

#define LLMC_ABI_VERSION 2 /* the manifest abi_version this runtime runs */

/* Where a model's entry points run. */
typedef enum llmc_target_kind {
  LLMC_TARGET_CPU = 0, /* host code; sessions use host memory */
  LLMC_TARGET_CUDA = 1 /* NVIDIA GPU; sessions load the CUDA driver */
} llmc_target_kind;

typedef struct llmc_model_info {
  const char *name;          /* NUL-terminated, owned by the model */
  const char *target_triple; /* NUL-terminated, owned by the model */
  llmc_target_kind target_kind;
  /* NUL-terminated, owned by the model: CPU: the CPU the code was tuned for
   * ("znver3"; "" when not recorded); CUDA: the GPU architectures, comma-
   * separated ("sm_80,sm_90"). */
  const char *target_arch;
  int32_t abi_version;
  int32_t batch;          /* sequences per call (this runtime runs batch 1) */
  int32_t context_length; /* positions the KV cache holds */
  int32_t vocab_size;
  int32_t hidden_size;
  int32_t num_layers;
  int32_t num_heads;
  int32_t num_kv_heads;
  int32_t head_dim;
  int32_t bos_token_id; /* -1: none */
  int32_t eos_token_id; /* the first EOS id; -1: none */
  llmc_rope_layout rope_layout; /* Q/K row order the compiled code expects */
  size_t n_weights;             /* tensors the entry points take */
  uint64_t kv_cache_bytes;      /* per session (a paged cache's page table included) */
} llmc_model_info;

/* Opens an artifact. `path` is the artifact directory (holding exactly one
 * manifest, or `<basename>.json`) or the manifest file itself. Fails with a
 * message naming the file and field for a missing directory or manifest,
 * malformed JSON, a missing/ill-typed field, abi_version != 1
 * (LLMC_ERR_UNSUPPORTED), a target kind other than "cpu" and "cuda"
 * (LLMC_ERR_UNSUPPORTED), a CUDA host API version outside
 * LLMC_CUDA_HOST_API_MIN_VERSION..LLMC_CUDA_HOST_API_VERSION (LLMC_ERR_UNSUPPORTED), a library that dlopen
 * rejects, a missing entry point, or (CUDA) a missing image or host-API
 * global, or an image whose size or format disagrees with the manifest.
 * Thread-safe (independent calls). */
llmc_status llmc_model_open(const char *path, llmc_model **out);

/* The entry points of abi_version 2, as declared in the artifact's <name>.h.
 * tokens, positions: int32[batch * seq_len] (absolute, 0-based positions);
 * kv_cache: the session's cache, updated in place; weights: one pointer per
 * manifest weight, in manifest order; logits: float[batch * logit_rows *
 * vocab] written by the call, the logits of the last logit_rows tokens of
 * each sequence (1 <= logit_rows <= seq_len; decode: 1). Return 0 on
 * success. */
typedef int32_t (*llmc_prefill_fn)(const int32_t *tokens,
                                   const int32_t *positions, int64_t seq_len,
                                   int64_t logit_rows, void *kv_cache,
                                   const void *const *weights, float *logits);
typedef int32_t (*llmc_decode_fn)(const int32_t *tokens,
                                  const int32_t *positions, void *kv_cache,
                                  const void *const *weights, float *logits);

/* Same as llmc_model_open, but for a program that links the artifact's
 * static library (lib<name>.a) itself: the manifest is read and checked as
 * usual, the library is not loaded, and these entry points are used. For a
 * CUDA artifact the images and the host-API global are looked up in the
 * program, which must export them (link with -rdynamic).
 * Thread-safe (independent calls). */
llmc_status llmc_model_open_linked(const char *path, llmc_prefill_fn prefill,
                                   llmc_decode_fn decode, llmc_model **out);

/* Sessions hold their own reference: a model may be destroyed before its
 * sessions. Not thread-safe with respect to other calls on the same handle. */
void llmc_model_destroy(llmc_model *model);

/* Thread-safe. */
llmc_status llmc_model_get_info(const llmc_model *model, llmc_model_info *out);
/* Readies the device a CUDA model runs on now, as its first session would:
 * loads the driver and the artifact's image for the GPU, and fails as
 * llmc_session_create would (LLMC_ERR_UNSUPPORTED "CUDA is not available:
 * ..." without a driver or GPU, or when no image suits the GPU). Does
 * nothing for a CPU model. Call it before loading weights to fail before
 * that work. Thread-safe. */
llmc_status llmc_model_prepare_device(const llmc_model *model);
/* 1 if `token` ends generation (any of the config's eos_token_id), else 0.
 * Thread-safe. */
int llmc_model_is_eos(const llmc_model *model, int32_t token);

/* Synthetic weights for benchmarks (decode speed of a model's shape without
 * its checkpoint): one tensor per entry of the model's weight table, with
 * its canonical name, shape and dtype (f32, bf16, f16, or the block
 * formats q8_0, q4_0, q4_1, q5_0 and q5_1, quantized as --weight-type
 * quantizes at load; K-quant tables are refused with LLMC_ERR_UNSUPPORTED),
 * in memory the handle owns; llmc_session_create binds them like loaded
 * weights (no conversion, no q/k reordering: the handle's RoPE layout is
 * the model's).
 * Values, deterministic in `seed`: norm weights (names ending in
 * "norm.weight") 1, biases 0, everything else uniform in
 * [-sqrt(3)*0.02, sqrt(3)*0.02] (standard deviation 0.02, as Hugging Face
 * initializes llama), so activations stay finite through deep models.
 * Each element comes from splitmix64 of (seed, tensor name, element index),
 * rounded to nearest even: the bytes do not depend on the thread count, and
 * the f32/bf16 and CPU/CUDA artifacts of one config get the same values (up
 * to rounding). Generated on every hardware thread: an 8B-parameter bf16
 * model (16 GB of host memory) takes seconds. The format is
 * LLMC_WEIGHTS_RANDOM, there is no metadata (no tokenizer).
 * Thread-safe (independent calls). */
llmc_status llmc_weights_create_random(const llmc_model *model, uint64_t seed,
                                       llmc_weights **out);

/* ------------------------------------------------------------------------ */
/* Sessions                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * A session is one sequence being decoded: the model's weights bound in
 * manifest order, a KV cache (zeroed, 64-byte aligned) and the current
 * position. Calls on one session are NOT thread-safe (the compiled code
 * updates the cache in place); different sessions run concurrently.
 *
 * On a CUDA model the session runs on the GPU (runtime/README.md, "CUDA
 * backend"): the weights are uploaded once at create, the KV cache lives in
 * GPU memory, and every prefill/decode/sample call returns after the GPU
 * work has finished (the call synchronizes), so it may be timed as is.
 * Logits come back to the host only when a call asks for them: generation
 * loops use llmc_session_sample / llmc_session_decode_sample, which draw
 * the next token on the GPU and copy back 4 bytes.
 * Sessions of one model serialize only the enqueuing of their work (the
 * artifact's host-API global is per model); their GPU work overlaps.
 * Environment: LLMC_CUDA_DEVICE (GPU ordinal, default 0), LLMC_CUDA_GRAPHS=0
 * (no CUDA graphs for decode steps), LLMC_CUDA_PROFILE=1 (time every kernel
 * launch with CUDA events, graphs off; llmc_session_destroy prints a table
 * per phase to stderr, see runtime/README.md), LLMC_CUDA_DRIVER (path of
 * libcuda.so.1).
 */
typedef struct llmc_session llmc_session;

/* Binds every manifest weight by canonical name, checking shape (LLMC_ERR_
 * FORMAT) and presence (LLMC_ERR_NOT_FOUND) with one message naming the
 * tensor; converts to the manifest dtype (f32, bf16 or f16); reorders
 * q_proj/k_proj rows when the file's RoPE layout differs from the
 * artifact's; uses model.embed_tokens.weight for a missing lm_head.weight
 * only when the config ties them. CPU: tensors stored in the artifact's
 * dtype (and not reordered) are read from the handle (its resident copies,
 * or the file's mapping: llmc_weights_set_residency), so `weights` must stay
 * open until the session is destroyed (CUDA
 * sessions copy everything to the GPU and do not need it afterwards).
 * A CUDA model fails with LLMC_ERR_UNSUPPORTED, with a message starting
 * "CUDA is not available: " when there is no driver or GPU, or naming the
 * artifact's and the GPU's architectures when none of its images suits the
 * GPU. Thread-safe (sessions may be created
 * concurrently from shared model and weights handles). */
llmc_status llmc_session_create(const llmc_model *model, llmc_weights *weights,
                                llmc_session **out);
void llmc_session_destroy(llmc_session *session);

/* Runs `n_tokens` tokens at the next positions and appends them to the
 * cache. *last_logits (if non-NULL) receives the vocab_size logits of the
 * last token; *all_logits (if non-NULL) all of them, row-major
 * [n_tokens, vocab_size]. Only when all_logits is non-NULL does the
 * compiled prefill compute the classifier for every token (logit_rows =
 * n_tokens), else for the last one; a CUDA session copies back from the
 * GPU the rows asked for, and nothing when both are NULL: pass NULL for
 * both before llmc_session_sample. Both stay valid until the next call on the session
 * other than llmc_session_sample.
 * LLMC_ERR_OUT_OF_RANGE, with nothing run, for a token id outside
 * [0, vocab_size) or when position + n_tokens exceeds the context length. */
llmc_status llmc_session_prefill(llmc_session *session, const int32_t *tokens,
                                 size_t n_tokens, const float **last_logits,
                                 const float **all_logits);

/* One token at the next position (the decode entry point); same checks.
 * *logits (if non-NULL) receives its vocab_size logits, valid as above; a
 * CUDA session copies them back from the GPU only when `logits` is
 * non-NULL. */
llmc_status llmc_session_decode(llmc_session *session, int32_t token,
                                const float **logits);

/* The CPU threads each prefill/decode call of a CPU session runs on:
 * `threads` >= 1, or 0 for the default, which is also a new session's:
 * OMP_NUM_THREADS when the environment sets it, else the CPUs the process
 * may run on (sched_getaffinity). LLMC_ERR_INVALID_ARGUMENT outside
 * [0, 1024]. No effect on a CUDA session. The calls run on libomp's threads,
 * each of which runs a partition of each loop and then takes over chunks
 * of the others' partitions (OMP_SCHEDULE has no effect). How a thread that runs out of work waits is chosen per call
 * (llmc_cpu_wait_stats):
 * it spins while the process has its cores to itself and sleeps at once
 * while other busy work shares them (spinning then burns the time slices
 * the other threads need, and the decode rate collapses). KMP_BLOCKTIME or
 * OMP_WAIT_POLICY in the environment turn that choice off. */
llmc_status llmc_session_set_threads(llmc_session *session, int threads);
/* The CPU threads a CPU session's calls run on; 0 for a CUDA session (or
 * NULL). */
int llmc_session_threads(const llmc_session *session);

/* How a CPU session's threads have waited so far (see
 * llmc_session_set_threads). A session judges the cores shared when the
 * thread that makes its calls waits on the scheduler's run queue for more
 * than 10% of their time (the kernel's schedstat run delay; windows of at
 * least 50 ms of calls, two in a row) and then makes its next calls with
 * threads that sleep at once (libomp blocktime 0); below that they spin
 * (blocktime 200 ms, libomp's default). */
typedef struct llmc_cpu_wait_stats {
  int adaptive;            /* 1: chosen per call as above; 0: libomp's own
                              settings (KMP_BLOCKTIME or OMP_WAIT_POLICY set,
                              no /proc/thread-self/schedstat, or a CUDA
                              session) */
  uint64_t calls;          /* prefill and decode calls made */
  uint64_t sleeping_calls; /* of those, made with sleeping threads */
} llmc_cpu_wait_stats;
llmc_status llmc_session_cpu_wait_stats(const llmc_session *session,
                                        llmc_cpu_wait_stats *stats);

/*
 * Sampling next to the logits. These draw exactly what llmc_sampler_sample
 * would draw from the same logits, with the same sampler (its RNG advances
 * the same way, so a seeded stream is the same token for token), but on a
 * CUDA session the logits need not leave the GPU: the artifact's sampling
 * kernels (codegen/cuda/SamplingKernels.cpp) draw the token there and 4
 * bytes come back. The GPU samples:
 *   - greedy configurations (temperature <= 0, top_k == 1 or top_p <= 0):
 *     the argmax kernel, lowest index on ties, NaN never wins;
 *   - temperature with 1 < top_k <= 256, or with the whole vocabulary
 *     (top_k <= 0 or >= vocab_size, top_p >= 1), or any top_k/top_p when
 *     vocab_size <= 256: the top-k/top-p kernel, given the uniform number
 *     the host sampler would draw (its f32 probabilities and f64 sums are
 *     the host's up to rounding: a draw can differ only when it lands within
 *     rounding of a boundary between two tokens).
 * Everything else is sampled on the host after copying the row back: any
 * repetition penalty (repetition_penalty != 1), top_k > 256, or top_p < 1
 * without top_k on a vocabulary above 256 (where the kernel would consider
 * only the 256 most probable tokens); so is everything on a CPU session,
 * and on a CUDA artifact built without the sampling kernels. The choice
 * depends on the sampler's configuration only, never on the logits. One
 * known difference: when every logit is NaN or -inf, the GPU returns token 0
 * like the host but has already taken a uniform number from the sampler,
 * which the host does not.
 * `history` (may be NULL when n_history is 0) is what llmc_sampler_sample
 * takes: the tokens the repetition penalty applies to.
 * The sampler must have been created for the model's vocab_size
 * (LLMC_ERR_INVALID_ARGUMENT otherwise); with a repetition penalty, a
 * history id outside the vocabulary is LLMC_ERR_OUT_OF_RANGE with nothing
 * run. Not thread-safe: neither the session nor the sampler may be used by
 * another thread during the call.
 */

/* The next token from the last row of logits of the previous
 * llmc_session_prefill or llmc_session_decode call (or the decode step of
 * llmc_session_decode_sample). LLMC_ERR_INVALID_ARGUMENT when there is none:
 * a new or reset session, or after a step that failed once it had started
 * running (a call its input checks reject changes nothing). The logits a
 * previous call returned stay valid. */
llmc_status llmc_session_sample(llmc_session *session, llmc_sampler *sampler,
                                const int32_t *history, size_t n_history,
                                int32_t *token);

/* llmc_session_decode(session, token, NULL) then llmc_session_sample, as one
 * step: on a GPU the sampling kernel is queued right behind the decode step
 * (a CUDA graph replay when graphs are on) and the call synchronizes once.
 * `token` is checked as by llmc_session_decode; on any failure
 * *next_token is not written, and the position advances only when both
 * halves succeeded. The step of a generation loop:
 *   llmc_session_prefill(s, prompt, n, NULL, NULL);
 *   llmc_session_sample(s, sampler, history, n_history, &next);
 *   while (...) llmc_session_decode_sample(s, next, sampler, history,
 *                                          n_history, &next);  */
llmc_status llmc_session_decode_sample(llmc_session *session, int32_t token,
                                       llmc_sampler *sampler,
                                       const int32_t *history, size_t n_history,
                                       int32_t *next_token);

/* Empties the cache (position 0). A CUDA error while zeroing it is
 * reported by the next prefill/decode call. */
void llmc_session_reset(llmc_session *session);

/* Keeps the first `position` tokens of the cache and makes `position` the
 * next one (0 <= position <= llmc_session_position; LLMC_ERR_OUT_OF_RANGE
 * otherwise, nothing changed). What a multi-turn chat needs to reuse the
 * cache of a shared prefix: rewind to the length of the prefix the new
 * prompt shares with the tokens in the cache, then prefill only the rest.
 * Nothing is cleared: attention reads no key at a position above its
 * query's, and the next calls overwrite the stale entries first. There are
 * no logits to sample afterwards until the next prefill or decode. Not
 * thread-safe (as every call on one session). */
llmc_status llmc_session_rewind(llmc_session *session, int32_t position);

/* Tokens in the cache = the position the next token takes. */
int32_t llmc_session_position(const llmc_session *session);

/* What the session runs on, NUL-terminated, valid until destroy: "cpu", or
 * for CUDA the GPU and the image loaded, e.g. "cuda:0 NVIDIA H200 (sm_90),
 * sm_90 cubin, CUDA graphs". "" for NULL. Thread-safe. */
const char *llmc_session_backend(const llmc_session *session);

/* ------------------------------------------------------------------------ */
/* Chat templates                                                           */
/* ------------------------------------------------------------------------ */

/*
 * A model's chat template (Jinja2) turned into the prompt text, rendered as
 * Hugging Face transformers' apply_chat_template(tokenize=False) does: jinja2
 * with trim_blocks and lstrip_blocks, the loopcontrols extension (break,
 * continue), the globals raise_exception(msg), strftime_now(fmt),
 * namespace(), dict(), range(), and a tojson filter that keeps non-ASCII
 * text (json.dumps(ensure_ascii=False); indent=, sort_keys=, separators=).
 * Undefined variables behave as jinja2's default Undefined: they print
 * nothing, are false, iterate as empty, and fail only when used otherwise.
 * The interpreter implements the Jinja subset the SmolLM2/ChatML, Qwen2/2.5,
 * Llama 3.x, Mistral (v0.1-v0.3, Nemo), DeepSeek, Gemma and Phi-3 templates
 * use (runtime/README.md, "Chat templates", lists it); anything else is an
 * error naming the construct and its line and column, at create for tags,
 * filters and tests, at render for methods.
 * A template is immutable after creation: render may be called concurrently
 * on one handle.
 */
typedef struct llmc_chat_template llmc_chat_template;

/* Parses `len` bytes of template text. A syntax error is LLMC_ERR_FORMAT,
 * an unsupported tag, filter or test LLMC_ERR_UNSUPPORTED; both messages
 * read "chat template line L, column C: ...". Thread-safe. */
llmc_status llmc_chat_template_create(const char *source, size_t len,
                                      llmc_chat_template **out);

/* Loads and parses a model's template from `path`: a GGUF file (metadata
 * tokenizer.chat_template), a Hugging Face model directory
 * (chat_template.jinja, else "chat_template" in tokenizer_config.json: a
 * string, or the entry named "default" of a list of {name, template}), or
 * such a *.jinja or tokenizer_config.json file itself. LLMC_ERR_NOT_FOUND
 * with a message naming the file when it holds no template. Thread-safe. */
llmc_status llmc_chat_template_load(const char *path, llmc_chat_template **out);

/* The template in an open weight set's metadata (a GGUF's
 * tokenizer.chat_template), without opening the file again; what
 * llmc_tokenizer_from_weights is to llmc_tokenizer_load. LLMC_ERR_NOT_FOUND
 * ("<file>: GGUF: the metadata has no tokenizer.chat_template") when it
 * holds none. Thread-safe on a shared weights handle. */
llmc_status llmc_chat_template_from_weights(const llmc_weights *weights,
                                            llmc_chat_template **out);

/* Not thread-safe with respect to other calls on the same handle. */
void llmc_chat_template_destroy(llmc_chat_template *tmpl);

/* The template text as given (not NUL-terminated). Thread-safe. */
llmc_status llmc_chat_template_source(const llmc_chat_template *tmpl,
                                      const char **source, size_t *len);

/* Zero-initialize ({0}): every field's zero is "off / not given". */
typedef struct llmc_chat_render_options {
  int add_generation_prompt; /* nonzero: end with the assistant header */
  const char *bos_token;     /* NUL-terminated; NULL: `bos_token` undefined */
  const char *eos_token;     /* NUL-terminated; NULL: `eos_token` undefined */
  const char *tools_json;    /* JSON list of tool schemas; NULL: tools = none */
  size_t tools_json_len;
  /* JSON object of more template variables (e.g. {"date_string": "26 Jul
   * 2024"}); NULL: none. They cannot be messages, tools, documents or
   * add_generation_prompt, and override bos_token/eos_token. */
  const char *variables_json;
  size_t variables_json_len;
} llmc_chat_render_options;

/* Renders `len` bytes of `messages_json`, an OpenAI-style JSON list of
 * message objects ({"role": ..., "content": ...}; content may be a list of
 * parts; every other field is visible to the template, fields set to null
 * are dropped as transformers does). `opts` may be NULL (no generation
 * prompt, no special tokens). Writes the prompt (UTF-8, not NUL-terminated)
 * into `buf`; on LLMC_ERR_BUFFER_TOO_SMALL *out_len holds the required size
 * (call with capacity 0 to measure). Malformed JSON is LLMC_ERR_FORMAT;
 * JSON of the wrong shape and failures while rendering (an undefined value
 * used, a type error) are LLMC_ERR_INVALID_ARGUMENT with the template line
 * and column; raise_exception("msg") in the template gives
 * LLMC_ERR_INVALID_ARGUMENT with exactly "msg" as the message (templates
 * use it to reject conversations, e.g. roles that do not alternate).
 * Thread-safe (concurrent renders on one template are fine). */
llmc_status llmc_chat_template_render(const llmc_chat_template *tmpl,
                                      const char *messages_json, size_t len,
                                      const llmc_chat_render_options *opts,
                                      char *buf, size_t capacity,
                                      size_t *out_len);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LLMC_RUNTIME_H */
