// GGUF tensor names rewritten to Hugging Face names (llama's, the q/k and post norms of qwen3, olmo2 and the gemmas, gemma2/3's pre-FFN norm, phi3's fused tensors, gpt_neox's own paths, deepseek2's latent attention).
#include "tensor_names.h"

#include <cctype>

namespace llmc::rt {

namespace {
struct NamePair {
  std::string_view gguf;
  std::string_view hf;
};

/// Model-level tensors (full name without the .weight/.bias suffix).
constexpr NamePair kGlobal[] = {
    {"token_embd", "model.embed_tokens"},
    {"output_norm", "model.norm"},
    {"output", "lm_head"},
};

/// Per-block tensors (the part after "blk.N.", without the suffix).
constexpr NamePair kBlock[] = {
    {"attn_q", "self_attn.q_proj"},
    {"attn_k", "self_attn.k_proj"},
    {"attn_v", "self_attn.v_proj"},
    {"attn_output", "self_attn.o_proj"},
    {"attn_norm", "input_layernorm"},
    {"ffn_gate", "mlp.gate_proj"},
    {"ffn_up", "mlp.up_proj"},
    {"ffn_down", "mlp.down_proj"},
    {"ffn_norm", "post_attention_layernorm"},
    // qwen3, gemma3 (per head) and olmo2 (over the projection): q/k RMSNorm.
    {"attn_q_norm", "self_attn.q_norm"},
    {"attn_k_norm", "self_attn.k_norm"},
    // olmo2, gemma2, gemma3: the norms of the sublayer outputs.
    {"post_attention_norm", "post_attention_layernorm"},
    {"post_ffw_norm", "post_feedforward_layernorm"},
};

/// Phi-3's converter keeps the checkpoint's fused tensors.
constexpr NamePair kPhi3Block[] = {
    {"attn_qkv", "self_attn.qkv_proj"},
    {"ffn_up", "mlp.gate_up_proj"},
};

/// Gemma 2 and 3: ffn_norm is the norm before the FFN
/// (pre_feedforward_layernorm), post_attention_norm the one after attention.
constexpr NamePair kSandwichGemmaBlock[] = {
    {"ffn_norm", "pre_feedforward_layernorm"},
};

/// GPT-NeoX keeps its own module paths (the norms are llama's names).
constexpr NamePair kNeoxGlobal[] = {
    {"token_embd", "gpt_neox.embed_in"},
    {"output_norm", "gpt_neox.final_layer_norm"},
    {"output", "embed_out"},
};
constexpr NamePair kNeoxBlock[] = {
    {"attn_qkv", "attention.query_key_value"},
    {"attn_output", "attention.dense"},
    {"ffn_up", "mlp.dense_h_to_4h"},
    {"ffn_down", "mlp.dense_4h_to_h"},
};

/// DeepSeek-V2/V3's multi-head latent attention (the converter writes
/// kv_b_proj as the per-head k_b_proj / v_b_proj parts; q_proj is attn_q).
constexpr NamePair kDeepseek2Block[] = {
    {"attn_q_a", "self_attn.q_a_proj"},
    {"attn_q_a_norm", "self_attn.q_a_layernorm"},
    {"attn_q_b", "self_attn.q_b_proj"},
    {"attn_kv_a_mqa", "self_attn.kv_a_proj_with_mqa"},
    {"attn_kv_a_norm", "self_attn.kv_a_layernorm"},
    {"attn_k_b", "self_attn.k_b_proj"},
    {"attn_v_b", "self_attn.v_b_proj"},
};

/// A table of name pairs.
struct NamePairs {
  const NamePair *first = nullptr, *last = nullptr;
  const NamePair *begin() const { return first; }
  const NamePair *end() const { return last; }
};
template <size_t N> constexpr NamePairs pairs(const NamePair (&a)[N]) {
  return {a, a + N};
}
/// Where an architecture's names differ from llama's: its layers' prefix,
/// and name pairs consulted before kGlobal / kBlock.
struct ArchNames {
  std::string_view architecture;
  std::string_view layers;
  NamePairs global, block;
};
constexpr ArchNames kArchNames[] = {
    {"phi3", "model.layers", {}, pairs(kPhi3Block)},
    {"gemma2", "model.layers", {}, pairs(kSandwichGemmaBlock)},
    {"gemma3", "model.layers", {}, pairs(kSandwichGemmaBlock)},
    {"gptneox", "gpt_neox.layers", pairs(kNeoxGlobal), pairs(kNeoxBlock)},
    {"deepseek2", "model.layers", {}, pairs(kDeepseek2Block)},
};
constexpr ArchNames kLlamaNames = {"", "model.layers", {}, {}};

const ArchNames &arch_names(std::string_view architecture) {
  for (const ArchNames &a : kArchNames)
    if (a.architecture == architecture)
      return a;
  return kLlamaNames;
}

/// Splits "stem.weight" / "stem.bias"; false for any other suffix.
bool split_suffix(std::string_view name, std::string_view *stem,
                  std::string_view *suffix) {
  for (std::string_view s : {std::string_view(".weight"), std::string_view(".bias")}) {
    if (name.size() > s.size() && name.substr(name.size() - s.size()) == s) {
      *stem = name.substr(0, name.size() - s.size());
      *suffix = s;
      return true;
    }
  }
  return false;
}
} // namespace

std::string layer_tensor_name(int layer, std::string_view suffix) {
  std::string out = "model.layers." + std::to_string(layer) + ".";
  out.append(suffix);
  return out;
}

std::string canonical_from_gguf(std::string_view name,
                                std::string_view architecture) {
  std::string_view stem, suffix;
  if (!split_suffix(name, &stem, &suffix))
    return std::string(name);
  const ArchNames &arch = arch_names(architecture);
  for (NamePairs table : {arch.global, pairs(kGlobal)})
    for (const NamePair &p : table)
      if (stem == p.gguf)
        return std::string(p.hf) + std::string(suffix);

  constexpr std::string_view kBlk = "blk.";
  if (stem.substr(0, kBlk.size()) != kBlk)
    return std::string(name);
  std::string_view rest = stem.substr(kBlk.size());
  size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits])))
    ++digits;
  if (digits == 0 || digits >= rest.size() || rest[digits] != '.')
    return std::string(name);
  std::string_view layer = rest.substr(0, digits);
  std::string_view part = rest.substr(digits + 1);
  for (NamePairs table : {arch.block, pairs(kBlock)})
    for (const NamePair &p : table)
      if (part == p.gguf)
        return std::string(arch.layers) + "." + std::string(layer) + "." +
               std::string(p.hf) + std::string(suffix);
  return std::string(name);
}

} // namespace llmc::rt
