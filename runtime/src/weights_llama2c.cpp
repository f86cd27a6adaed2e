// llama2.c checkpoint parsing: config header, exact size check, per-layer tensor slicing.
#include "weights_llama2c.h"

#include "checked_math.h"
#include "error.h"
#include "tensor_names.h"

#include <cstring>

namespace llmc::rt {

namespace {

/// dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len.
constexpr uint64_t kHeaderInts = 7;
constexpr uint64_t kHeaderBytes = kHeaderInts * sizeof(int32_t);
/// llama2.c's run.c hardcodes this RMSNorm epsilon; exposing it keeps the
/// metadata as complete as a GGUF file's.
constexpr float kLlama2cRmsEps = 1e-5f;

struct Config {
  int64_t dim, hidden, layers, heads, kv_heads, vocab, seq_len;
  bool shared_classifier;
};

class Llama2cLoader {
public:
  Llama2cLoader(const MappedFile &file, WeightSet &set) : file_(file), set_(set) {}

  void load() {
    read_config();
    check_size();
    add_tensors();
    add_metadata();
  }

private:
  [[noreturn]] void error(const std::string &msg) const {
    fail(LLMC_ERR_FORMAT, file_.path(), ": llama2.c checkpoint: ", msg);
  }

  void read_config() {
    if (file_.size() < kHeaderBytes)
      error(cat("truncated: ", file_.size(), " bytes is shorter than the ",
                kHeaderBytes, "-byte config header"));
    int32_t h[kHeaderInts];
    std::memcpy(h, file_.data(), sizeof h);
    c_ = {h[0], h[1], h[2], h[3], h[4], h[5] < 0 ? -int64_t(h[5]) : h[5], h[6],
          h[5] > 0};
    if (c_.dim <= 0 || c_.hidden <= 0 || c_.layers <= 0 || c_.heads <= 0 ||
        c_.kv_heads <= 0 || c_.vocab <= 0 || c_.seq_len <= 0)
      error(cat("config header has a non-positive field (dim ", c_.dim,
                ", hidden_dim ", c_.hidden, ", n_layers ", c_.layers,
                ", n_heads ", c_.heads, ", n_kv_heads ", c_.kv_heads,
                ", vocab_size ", h[5], ", seq_len ", c_.seq_len, ")"));
    if (c_.dim % c_.heads != 0)
      error(cat("dim ", c_.dim, " is not divisible by n_heads ", c_.heads));
    if (c_.heads % c_.kv_heads != 0)
      error(cat("n_heads ", c_.heads, " is not a multiple of n_kv_heads ",
                c_.kv_heads));
    head_dim_ = c_.dim / c_.heads;
    if (head_dim_ % 2 != 0)
      error(cat("head dimension ", head_dim_, " is odd (RoPE needs pairs)"));
  }

  /// Bytes of every array in file order; the sum must equal the file size.
  void check_size() {
    uint64_t D = c_.dim, H = c_.hidden, L = c_.layers, V = c_.vocab,
             KV = c_.kv_heads * head_dim_, S = c_.seq_len, Dh = head_dim_;
    uint64_t floats = 0;
    bool ok = true;
    auto add = [&](std::initializer_list<uint64_t> dims) {
      uint64_t n = 1;
      for (uint64_t d : dims)
        ok = ok && checked_mul(n, d, &n);
      ok = ok && checked_add(floats, n, &floats);
    };
    add({V, D});                   // token_embedding
    add({L, D});                   // rms_att
    add({L, D, D});                // wq
    add({L, KV, D});               // wk
    add({L, KV, D});               // wv
    add({L, D, D});                // wo
    add({L, D});                   // rms_ffn
    add({L, H, D});                // w1
    add({L, D, H});                // w2
    add({L, H, D});                // w3
    add({D});                      // rms_final
    add({S, Dh / 2});              // freq_cis_real (unused)
    add({S, Dh / 2});              // freq_cis_imag (unused)
    if (!c_.shared_classifier)
      add({V, D});                 // wcls
    uint64_t expected = 0;
    ok = ok && checked_mul(floats, sizeof(float), &expected) &&
         checked_add(expected, kHeaderBytes, &expected);
    if (!ok)
      error("config header implies a size that overflows");
    if (expected != file_.size())
      error(cat("size mismatch: the config header (dim ", c_.dim,
                ", hidden_dim ", c_.hidden, ", n_layers ", c_.layers,
                ", n_heads ", c_.heads, ", n_kv_heads ", c_.kv_heads,
                ", vocab_size ", c_.vocab,
                c_.shared_classifier ? " shared" : " unshared", ", seq_len ",
                c_.seq_len, ") implies ", expected, " bytes but the file has ",
                file_.size()));
  }

  /// Adds one f32 array at the cursor. `stacked` arrays hold one tensor per
  /// layer and are split into per-layer canonical names.
  void add_array(const char *source, bool stacked, const std::string &name_or_suffix,
                 std::initializer_list<int64_t> shape) {
    int64_t per = 1;
    for (int64_t d : shape)
      per *= d; // cannot overflow: check_size() bounded the total
    int64_t count = stacked ? c_.layers : 1;
    for (int64_t l = 0; l < count; ++l) {
      TensorEntry t;
      t.name = stacked ? layer_tensor_name(static_cast<int>(l), name_or_suffix)
                       : name_or_suffix;
      t.source_name = stacked ? cat(source, "[", l, "]") : std::string(source);
      t.n_dims = static_cast<int32_t>(shape.size());
      int i = 0;
      for (int64_t d : shape)
        t.shape[i++] = d;
      t.n_elements = per;
      t.dtype = LLMC_DTYPE_F32;
      t.n_bytes = static_cast<uint64_t>(per) * sizeof(float);
      t.data = file_.data() + cursor_;
      cursor_ += t.n_bytes;
      set_.add_tensor(std::move(t));
    }
  }

  void add_tensors() {
    int64_t D = c_.dim, H = c_.hidden, KV = c_.kv_heads * head_dim_;
    cursor_ = kHeaderBytes;
    add_array("token_embedding_table", false, "model.embed_tokens.weight", {c_.vocab, D});
    add_array("rms_att_weight", true, "input_layernorm.weight", {D});
    add_array("wq", true, "self_attn.q_proj.weight", {D, D});
    add_array("wk", true, "self_attn.k_proj.weight", {KV, D});
    add_array("wv", true, "self_attn.v_proj.weight", {KV, D});
    add_array("wo", true, "self_attn.o_proj.weight", {D, D});
    add_array("rms_ffn_weight", true, "post_attention_layernorm.weight", {D});
    add_array("w1", true, "mlp.gate_proj.weight", {H, D});
    add_array("w2", true, "mlp.down_proj.weight", {D, H});
    add_array("w3", true, "mlp.up_proj.weight", {H, D});
    add_array("rms_final_weight", false, "model.norm.weight", {D});
    // Skip the two legacy RoPE tables (recomputed by every consumer).
    cursor_ += 2 * static_cast<uint64_t>(c_.seq_len) * (head_dim_ / 2) * sizeof(float);
    if (!c_.shared_classifier)
      add_array("wcls", false, "lm_head.weight", {c_.vocab, D});
  }

  void add_u32(const char *key, int64_t v) {
    MetaValue m;
    m.type = LLMC_META_UINT32;
    m.u = static_cast<uint64_t>(v);
    set_.add_meta(key, std::move(m));
  }

  void add_metadata() {
    MetaValue arch;
    arch.type = LLMC_META_STRING;
    arch.str = set_.own_string("llama");
    set_.add_meta("general.architecture", std::move(arch));
    add_u32("llama.embedding_length", c_.dim);
    add_u32("llama.feed_forward_length", c_.hidden);
    add_u32("llama.block_count", c_.layers);
    add_u32("llama.attention.head_count", c_.heads);
    add_u32("llama.attention.head_count_kv", c_.kv_heads);
    add_u32("llama.context_length", c_.seq_len);
    add_u32("llama.vocab_size", c_.vocab);
    add_u32("llama.rope.dimension_count", head_dim_);
    MetaValue eps;
    eps.type = LLMC_META_FLOAT32;
    eps.f = kLlama2cRmsEps;
    set_.add_meta("llama.attention.layer_norm_rms_epsilon", std::move(eps));
  }

  const MappedFile &file_;
  WeightSet &set_;
  Config c_{};
  int64_t head_dim_ = 0;
  uint64_t cursor_ = 0;
};

} // namespace

void load_llama2c(const std::string &path, WeightSet &set) {
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  set.keep_file(file);
  set.format = LLMC_WEIGHTS_LLAMA2C;
  set.rope_layout = LLMC_ROPE_INTERLEAVED;
  set.set_context(path + ": llama2.c checkpoint");
  Llama2cLoader(*file, set).load();
}

} // namespace llmc::rt
