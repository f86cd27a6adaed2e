// Canonical (Hugging Face) tensor naming and the GGUF/llama2.c-to-canonical mapping.
#ifndef LLMC_RUNTIME_TENSOR_NAMES_H
#define LLMC_RUNTIME_TENSOR_NAMES_H

#include <string>
#include <string_view>

namespace llmc::rt {

/// Hugging Face names are canonical because safetensors checkpoints (the
/// most common source) already use them and the compiler's manifest is
/// derived from HF configs. GGUF names are mapped onto them:
///   token_embd.weight        -> model.embed_tokens.weight
///   output_norm.weight       -> model.norm.weight
///   output.weight            -> lm_head.weight
///   blk.N.attn_q / attn_k / attn_v / attn_output
///                            -> model.layers.N.self_attn.{q,k,v,o}_proj
///   blk.N.attn_norm          -> model.layers.N.input_layernorm
///   blk.N.ffn_gate / ffn_up / ffn_down
///                            -> model.layers.N.mlp.{gate,up,down}_proj
///   blk.N.ffn_norm           -> model.layers.N.post_attention_layernorm
/// keeping the ".weight" / ".bias" suffix. Names with no mapping are
/// returned unchanged (they stay reachable under their GGUF name). Some
/// architectures (general.architecture) store fused tensors under these
/// names: phi3's blk.N.attn_qkv -> self_attn.qkv_proj ([q; k; v]) and
/// blk.N.ffn_up -> mlp.gate_up_proj ([gate; up]); gemma2's and gemma3's
/// blk.N.ffn_norm is the pre-FFN norm (pre_feedforward_layernorm, with
/// post_attention_norm -> post_attention_layernorm and post_ffw_norm ->
/// post_feedforward_layernorm around it); gptneox's tensors take
/// GPT-NeoX's paths (gpt_neox.embed_in, gpt_neox.layers.N.attention.
/// query_key_value — [q; k; v] in GGUF —, mlp.dense_h_to_4h, embed_out, ...);
/// deepseek2's latent attention takes transformers' names (attn_q_a ->
/// self_attn.q_a_proj, attn_kv_a_mqa -> self_attn.kv_a_proj_with_mqa, ...)
/// and the converter's for the per-head 3-D attn_k_b / attn_v_b
/// (self_attn.k_b_proj / v_b_proj).
std::string canonical_from_gguf(std::string_view gguf_name,
                                std::string_view architecture);

/// Canonical names of per-layer tensors, used by the llama2.c loader.
std::string layer_tensor_name(int layer, std::string_view suffix);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_TENSOR_NAMES_H
