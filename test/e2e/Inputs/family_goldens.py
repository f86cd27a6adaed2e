"""Writes Hugging Face transformers golden logits (committed; small) for the architecture families of
make_hf_model.py (configs and tensor layouts in hf_family_layouts.py), for end-to-end tests of each family.

Run in the reference venv (scripts/reference-venv.sh --full: transformers 5.24.0, torch 2.15.0):

    PY=$(scripts/reference-venv.sh --full)
    for f in $($PY test/e2e/Inputs/family_goldens.py --list); do
      $PY test/e2e/Inputs/family_goldens.py $f test/e2e/Inputs/hf-random/families/$f; done

Each family's model directory is written by make_hf_model.write_model into a temporary directory and loaded
with AutoModelForCausalLM; the run fails if transformers reports a missing, unexpected or mis-shaped tensor, or
builds another class than config.json's architectures[0], so the tensor names are transformers' own. Files
(forced_logits.py: the runs and the format compare_hf_golden.py reads): golden_long.json, teacher-forced logits
of one prefill over 36 fixed ids; for phi3-longrope, whose frequencies depend on the call, also
golden_incremental.json (the ids one at a time through the KV cache) and golden_short.json (the first 12 ids:
short factors). golden_long.json also holds
  model_type    config.json's
  parameters    transformers' parameter count (sum of numel over model.parameters(), a tied matrix once)
  files_sha256  sha256 of config.json and model.safetensors as written (hf-family-models.test rebuilds the
                directory with CI's numpy and checks these, so the goldens stay tied to the generator)
  sensitivity   for each semantic below that a config edit or a model edit can turn off or get wrong: the
                max |diff| of the long run's logits over the ones the golden holds (and over whole rows), and
                at how many positions with a top-2 margin >= 0.01 the argmax changes: whether a compare bound
                sees it (2e-3 misses the GELU form, see below).
  same_logits   spellings of the same model (EQUIVALENT) and their max |diff| (the run fails above 1e-4):
                evidence for the derivations stated below.

What each family exercises, and the transformers 5.24 semantics an implementation must match:
  qwen3        q_norm / k_norm: RMSNorm over each head (head_dim wide), after the projection and before RoPE;
               head_dim 24 set explicitly (attention width 96 != hidden 64; scaling head_dim^-0.5); GQA 4/2;
               tied; no biases.
  olmo2        post-norm: no input norm; h = x + post_attention_layernorm(attn(x)), then
               h + post_feedforward_layernorm(mlp(h)); q_norm / k_norm over the whole projection (4x16 and 2x16
               wide), before the reshape into heads and before RoPE; GQA 4/2; untied.
  gemma        RMSNorm as x * rsqrt(mean(x^2) + eps) * (1 + w) in float32 (then cast); embeddings multiplied by
               sqrt(hidden) = 8, the normalizer a tensor cast to the weight dtype first (bf16 rounds
               sqrt(3072) to 55.5; exact in f32 here); GeGLU down(gelu_tanh(gate) * up): GemmaConfig reads
               hidden_act and maps "gelu" (google/gemma-2b's spelling, written here) to gelu_pytorch_tanh;
               hidden_activation is not read by GemmaConfig; MQA with head_dim 32 (width 128); tied.
  gemma2       sandwich norms, all (1 + w): x + post_attention_layernorm(attn(input_layernorm(x))), then
               h + post_feedforward_layernorm(mlp(pre_feedforward_layernorm(h))); scores * query_pre_attn_scalar
               ^-0.5 (24, not head_dim 16), then softcap 5 * tanh(s / 5) BEFORE the causal / window mask is
               added; final logits 3 * tanh(l / 3) after the tied head; no layer_types in config.json:
               transformers derives layer i sliding when i is even (sliding, full, sliding); a sliding layer's
               query at position q sees keys k with q - 8 < k <= q (8 keys with itself); hidden_activation
               gelu_pytorch_tanh; eager attention (transformers' sdpa cannot softcap).
  gemma3_text  gemma2's sandwich norms and scaling (query_pre_attn_scalar 20) without softcaps; per-head
               q_norm / k_norm with (1 + w) before RoPE; explicit layer_types (sliding, sliding, full); local
               layers rotate with rope_local_base_freq 1e4, unscaled; global layers with rope_theta 1e6 and
               rope_scaling linear factor 8 (rope_scaling applies to full_attention layers only).
  gemma2-gguf  gemma2 with query_pre_attn_scalar = head_dim 16, the scale llama.cpp assumes for a GGUF file,
               whose converter drops the field (gguf-families.test): other weights (seed 33).
  gemma3-gguf  gemma3_text as llama.cpp's GGUF can hold it: 6 layers without layer_types, sliding_window_pattern
               6 (layers 0-4 sliding, 5 full: llama.cpp's fixed pattern), query_pre_attn_scalar = head_dim 16.
  gpt_neox     parallel block: x + attn(input_layernorm(x)) + mlp(post_attention_layernorm(x)) (both norms
               read x); LayerNorm with bias (eps 1e-5); query_key_value fused and ordered per head: the
               output viewed as [heads, 3 * head_size], q, k, v the three thirds of each head's 48 (weight
               and bias alike); rotary_pct 0.25: RoPE (rotate_half) on the first 4 of each head's 16
               dimensions, base rotary_emb_base, the rest passes; non-gated MLP with exact (erf) GELU ("gelu"
               here is not the tanh form, unlike gemma); biases on every linear; untied embed_out.
  gpt_neox-sequential  the same weights (same seed) with use_parallel_residual false:
               h = x + attn(input_layernorm(x)), then h + mlp(post_attention_layernorm(h)).
  phi3         qkv_proj fused as [all q rows | all k rows | all v rows] (GQA 4/2: 64 + 32 + 32);
               gate_up_proj as [gate rows | up rows], silu(gate) * up; partial_rotary_factor 0.5 is applied
               (transformers' Phi3 rotates the first 8 of 16 dimensions: unlike llama, which ignores it);
               sliding_window 20 (< the 36-id prompt) on every layer; untied.
  phi3-longrope  longrope in Phi-3-mini-128k's spelling: top-level original_max_position_embeddings 16,
               rope_scaling {"type": "longrope", short_factor, long_factor} without a factor, so the factor
               is max_position_embeddings / original = 4 and cos/sin are multiplied by
               sqrt(1 + ln 4 / ln 16); the long factors when the call's length (the largest position + 1)
               exceeds 16, else the short ones, for the whole call (a decode step at position >= 16 uses long
               factors while earlier cached keys keep short ones); partial_rotary_factor 0.75 (12 of 16
               dimensions rotate, 6 factors each); no sliding window.
  qwen2-window-layers  Qwen2 with use_sliding_window true: layer i slides (window 8) when i >= max_window_layers
               (1): full, sliding, sliding; q/k/v biases; tied.
  gptj         one LayerNorm (ln_1, with bias) feeding both branches: x + attn(ln_1(x)) + mlp(ln_1(x));
               rotary_dim 8 of 16 with interleaved pairs (x0, x1), (x2, x3), ... (rotate_every_two), base
               10000 fixed by the model; q/k/v/out_proj without biases, fc_in / fc_out with; gelu_new (tanh
               form); lm_head untied with a bias.
  deepseek_v3  MLA, every layer dense (first_k_dense_replace = layers, so no MoE tensors): q = q_b_proj(
               q_a_layernorm(q_a_proj(x))), per head [nope 16 | rope 8]; kv_a_proj_with_mqa(x) = [latent 32 |
               rope key 8]; the latent goes through kv_a_layernorm, then kv_b_proj gives per head [k_nope 16 |
               v 16]; each head's key is [k_nope | the one rope key shared by all heads]; RoPE on interleaved
               pairs (rope_interleave true; transformers writes the rotated halves de-interleaved, for q and k
               alike, which leaves q.k unchanged); YaRN factor 4 from 16 positions, beta_fast 32, beta_slow 1,
               cos/sin x mscale(4, mscale) / mscale(4, mscale_all_dim) = 1, and the softmax scale
               (nope + rope)^-0.5 x mscale(4, mscale_all_dim)^2 with mscale(s, m) = 0.1 m ln s + 1; what
               transformers caches per token: the normalized latent (32) and the rotated rope key (8).
  deepseek_v2  the same without a query LoRA (q_proj, as DeepSeek-V2-Lite), RoPE as complex multiplication of
               interleaved pairs, mscale = mscale_all_dim = 0.707.
  deepseek_v3-mscale  deepseek_v3 with mscale 1 and mscale_all_dim 0.707: cos/sin x mscale(4, 1) / mscale(4,
               0.707) (its GGUF file drops mscale; llama.cpp takes it to be mscale_all_dim)
  deepseek_v3-yarn-default  deepseek_v3's YaRN without mscale and mscale_all_dim: cos/sin x mscale(4, 1), the
               softmax scale (nope + rope)^-0.5 alone

Compare bounds: float32 reassociation moves these logits by 4e-6 to 2.2e-5 (transformers' own token-by-token
run against its prefill); every sensitivity is above 0.3 except the GELU form (erf against tanh), which moves
the golden's logits by only 7e-4 (gemma2) to 1.6e-3 (gpt_neox): a test bound of 2e-3 misses it, 2e-4 does not.
"""
import hashlib
import json
import math
import os
import shutil
import sys
import tempfile

import numpy as np
import torch
from torch import nn
from transformers import AutoModelForCausalLM
from transformers.utils import logging as hf_logging

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from forced_logits import TOP_K, forced_runs, long_logits, prompt_and_probes, write_golden  # noqa: E402
from hf_family_layouts import (FAMILIES, LONGROPE_LONG, LONGROPE_SHORT, deepseek_v3_mscale,  # noqa: E402
                               deepseek_v3_yarn_default)
from make_hf_model import write_model  # noqa: E402

# Families whose logits depend on the call (token by token != one prefill): they get the decode goldens.
PER_CALL = {"phi3-longrope"}
MARGIN = 0.01


def layers(model):
    return model.gpt_neox.layers if hasattr(model, "gpt_neox") else model.model.layers


class RegroupedRMSNorm(nn.Module):
    """An RMSNorm with `norm`'s weight and eps over groups of `group` values of the last dimension instead of
    the whole of it (group < width), or over the last two dimensions (group None): the per-head / whole-width
    mistakes a q_norm / k_norm implementation can make."""

    def __init__(self, norm, group):
        super().__init__()
        self.norm, self.group = norm, group

    def forward(self, x):
        eps = getattr(self.norm, "variance_epsilon", getattr(self.norm, "eps", None))
        grouped = x.reshape(*x.shape[:-2], -1) if self.group is None else x.reshape(*x.shape[:-1], -1, self.group)
        normed = grouped * torch.rsqrt(grouped.pow(2).mean(-1, keepdim=True) + eps)
        return normed.reshape(x.shape) * self.norm.weight


def swap_qk_norms(group):
    def edit(model):
        for layer in layers(model):
            attn = layer.self_attn
            attn.q_norm, attn.k_norm = RegroupedRMSNorm(attn.q_norm, group), RegroupedRMSNorm(attn.k_norm, group)
    return edit


def drop_qk_norms(model):
    for layer in layers(model):
        layer.self_attn.q_norm, layer.self_attn.k_norm = nn.Identity(), nn.Identity()


def set_activation(attr, act):
    def edit(model):
        for layer in layers(model):
            setattr(layer.mlp, attr, act)
    return edit


def unscaled_embeddings(model):
    model.model.embed_tokens.embed_scale.fill_(1.0)


def neox_qkv_as_blocks(model):
    """Reorders query_key_value so that transformers' per-head reading gives what reading the rows as
    [all q | all k | all v] blocks would."""
    heads = model.config.num_attention_heads
    for layer in layers(model):
        qkv = layer.attention.query_key_value
        for p in (qkv.weight, qkv.bias):
            p.copy_(p.reshape(3, heads, -1, *p.shape[1:]).transpose(0, 1).reshape(p.shape))


def swap_gate_up(model):
    for layer in layers(model):
        w = layer.mlp.gate_up_proj.weight
        w.copy_(torch.cat(w.chunk(2, dim=0)[::-1]))


def half_split_rope_rows(weight, group, start, rot):
    """Reorders the rows of a projection so that rotating interleaved pairs (transformers' GPT-J / DeepSeek-V2
    reading) of the result gives what rotating half-split pairs (i, i + rot/2) of the original would: in each
    group of `group` rows, the `rot` rotary rows from `start` on."""
    order = []
    for g in range(weight.shape[0] // group):
        rows = list(range(g * group, (g + 1) * group))
        half = [rows[start + i // 2 + (i % 2) * rot // 2] for i in range(rot)]
        order += rows[:start] + half + rows[start + rot:]
    weight.copy_(weight[order])


def gptj_half_split(model):
    hd, rot = model.config.n_embd // model.config.n_head, model.config.rotary_dim
    for layer in model.transformer.h:
        for proj in (layer.attn.q_proj, layer.attn.k_proj):
            half_split_rope_rows(proj.weight, hd, 0, rot)


def mla_half_split(model):
    c = model.config
    for layer in layers(model):
        attn = layer.self_attn
        query = attn.q_proj if attn.q_proj is not None else attn.q_b_proj
        half_split_rope_rows(query.weight, c.qk_nope_head_dim + c.qk_rope_head_dim, c.qk_nope_head_dim,
                             c.qk_rope_head_dim)
        half_split_rope_rows(attn.kv_a_proj_with_mqa.weight, c.kv_lora_rank + c.qk_rope_head_dim,
                             c.kv_lora_rank, c.qk_rope_head_dim)


def drop_kv_a_layernorm(model):
    for layer in layers(model):
        layer.self_attn.kv_a_layernorm = nn.Identity()


def unscaled_mla_softmax(model):
    for layer in layers(model):
        layer.self_attn.scaling = layer.self_attn.qk_head_dim ** -0.5


def longrope_scaling(**changes):
    return {"rope_scaling": dict({"type": "longrope", "short_factor": LONGROPE_SHORT,
                                  "long_factor": LONGROPE_LONG}, **changes)}


# family: [(what is turned off, config.json changes or None, model edit or None)]
SENSITIVITY = {
    "qwen3": [("no q_norm / k_norm", None, drop_qk_norms),
              ("q_norm / k_norm over all heads together", None, swap_qk_norms(None))],
    "olmo2": [("q_norm / k_norm per head instead of over the projection", None, swap_qk_norms(16)),
              ("no q_norm / k_norm", None, drop_qk_norms)],
    "gemma": [("exact erf GELU instead of the tanh form", None, set_activation("act_fn", nn.GELU())),
              ("embeddings not multiplied by sqrt(hidden)", None, unscaled_embeddings)],
    "gemma2": [("no attention softcapping", {"attn_logit_softcapping": None}, None),
               ("no final logit softcapping", {"final_logit_softcapping": None}, None),
               ("no sliding window", {"sliding_window": 4096}, None),
               ("full, sliding, full instead of sliding, full, sliding",
                {"layer_types": ["full_attention", "sliding_attention", "full_attention"]}, None),
               ("scaling head_dim^-0.5 instead of query_pre_attn_scalar^-0.5", {"query_pre_attn_scalar": 16},
                None),
               ("exact erf GELU instead of the tanh form", None, set_activation("act_fn", nn.GELU()))],
    "gemma3_text": [("no sliding window", {"sliding_window": 4096}, None),
                    ("local layers with rope_theta instead of rope_local_base_freq",
                     {"rope_local_base_freq": 1000000.0}, None),
                    ("global layers without linear scaling", {"rope_scaling": None}, None),
                    ("scaling head_dim^-0.5 instead of query_pre_attn_scalar^-0.5", {"query_pre_attn_scalar": 16},
                     None),
                    ("no q_norm / k_norm", None, drop_qk_norms)],
    # What llama.cpp's GGUF drops, had the model differed from what llama.cpp then assumes.
    "gemma2-gguf": [("scaling query_pre_attn_scalar 24^-0.5 instead of head_dim^-0.5",
                     {"query_pre_attn_scalar": 24}, None),
                    ("no attention softcapping", {"attn_logit_softcapping": None}, None)],
    "gemma3-gguf": [("every layer sliding (sliding_window_pattern 7)", {"sliding_window_pattern": 7}, None),
                    ("local layers with rope_theta instead of rope_local_base_freq",
                     {"rope_local_base_freq": 1000000.0}, None),
                    ("global layer without linear scaling", {"rope_scaling": None}, None),
                    ("scaling query_pre_attn_scalar 20^-0.5 instead of head_dim^-0.5",
                     {"query_pre_attn_scalar": 20}, None)],
    "gpt_neox": [("sequential residual", {"use_parallel_residual": False}, None),
                 ("rotary over whole heads", {"rotary_pct": 1.0}, None),
                 ("query_key_value read as [q | k | v] blocks", None, neox_qkv_as_blocks),
                 ("tanh GELU instead of exact erf", None, set_activation("act", nn.GELU(approximate="tanh")))],
    "gpt_neox-sequential": [("parallel residual", {"use_parallel_residual": True}, None)],
    "phi3": [("rotary over whole heads", {"partial_rotary_factor": 1.0}, None),
             ("no sliding window", {"sliding_window": None}, None),
             ("gate_up_proj read as [up | gate]", None, swap_gate_up)],
    "phi3-longrope": [("short factors for long calls too", longrope_scaling(long_factor=LONGROPE_SHORT), None),
                      ("attention factor 1", longrope_scaling(attention_factor=1.0), None)],
    "qwen2-window-layers": [("no sliding window", {"use_sliding_window": False}, None),
                            ("sliding, full, full instead of full, sliding, sliding",
                             {"layer_types": ["sliding_attention", "full_attention", "full_attention"]}, None)],
    "gptj": [("half-split pairs instead of interleaved pairs", None, gptj_half_split),
             ("rotary over whole heads", {"rotary_dim": 16}, None),
             ("exact erf GELU instead of the tanh form", {"activation_function": "gelu"}, None)],
    # The same change twice: by transformers' rope_interleave false and by the row reordering gptj and
    # deepseek_v2 use (equal diffs check the reordering).
    "deepseek_v3": [("half-split pairs instead of interleaved pairs (rope_interleave false)",
                     {"rope_interleave": False}, None),
                    ("half-split pairs instead of interleaved pairs (rows reordered)", None, mla_half_split),
                    ("no kv_a_layernorm", None, drop_kv_a_layernorm),
                    ("softmax scale qk_head_dim^-0.5 without mscale(factor, mscale_all_dim)^2", None,
                     unscaled_mla_softmax)],
    "deepseek_v2": [("half-split pairs instead of interleaved pairs", None, mla_half_split),
                    ("no kv_a_layernorm", None, drop_kv_a_layernorm),
                    ("softmax scale qk_head_dim^-0.5 without mscale(factor, mscale_all_dim)^2", None,
                     unscaled_mla_softmax)],
    # What their GGUF files lose (gguf-deepseek2.test runs those against llama.cpp's logits).
    "deepseek_v3-mscale": [("mscale 0.707 = mscale_all_dim, as llama.cpp reads the GGUF file (mscale dropped)",
                            {"rope_scaling": dict(deepseek_v3_mscale(0)["rope_scaling"], mscale=0.707)}, None)],
    "deepseek_v3-yarn-default": [("mscale_all_dim 1: the scores scaled by mscale(4)^2 as llama.cpp scales them "
                                  "(and cos/sin) without yarn_log_multiplier",
                                  {"rope_scaling": dict(deepseek_v3_yarn_default(0)["rope_scaling"],
                                                        mscale_all_dim=1.0)}, None)],
}


# family: [(a spelling of the same model, config.json changes)]: the logits must stay within SAME_BOUND,
# which confirms the semantics the notes above state (how transformers derives what the config leaves out).
EQUIVALENT = {
    "gemma": [("hidden_act gelu_pytorch_tanh instead of gelu", {"hidden_act": "gelu_pytorch_tanh"})],
    "gemma2": [("explicit layer_types sliding, full, sliding",
                {"layer_types": ["sliding_attention", "full_attention", "sliding_attention"]})],
    "gemma3_text": [("layer_types derived from sliding_window_pattern 3", {"layer_types": None,
                                                                          "sliding_window_pattern": 3})],
    "gemma3-gguf": [("explicit layer_types, five sliding then full",
                     {"layer_types": ["sliding_attention"] * 5 + ["full_attention"]})],
    "gpt_neox": [("hidden_act gelu_python (the erf formula)", {"hidden_act": "gelu_python"})],
    "phi3-longrope": [("explicit factor 4", longrope_scaling(factor=4.0)),
                      ("explicit attention_factor sqrt(1 + ln 4 / ln 16)",
                       longrope_scaling(attention_factor=math.sqrt(1 + math.log(4) / math.log(16))))],
    "qwen2-window-layers": [("explicit layer_types full, sliding, sliding",
                             {"layer_types": ["full_attention", "sliding_attention", "sliding_attention"]})],
    "gptj": [("activation_function gelu_pytorch_tanh instead of gelu_new", {"activation_function":
                                                                            "gelu_pytorch_tanh"})],
}
SAME_BOUND = 1e-4


def load(model_dir, config_changes=None):
    """The model of a directory (with config.json entries replaced), refusing any loading problem."""
    if config_changes:
        changed = tempfile.mkdtemp()
        for name in os.listdir(model_dir):
            if name != "config.json":
                os.symlink(os.path.join(model_dir, name), os.path.join(changed, name))
        cfg = json.load(open(os.path.join(model_dir, "config.json")))
        cfg.update(config_changes)
        json.dump(cfg, open(os.path.join(changed, "config.json"), "w"))
        model = load(changed)
        shutil.rmtree(changed)
        return model
    model, info = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32, output_loading_info=True)
    problems = {kind: keys for kind, keys in info.items() if keys}
    if problems:
        sys.exit("FAILED: transformers reports %s for %s" % (problems, model_dir))
    want = json.load(open(os.path.join(model_dir, "config.json")))["architectures"][0]
    if type(model).__name__ != want:
        sys.exit("FAILED: transformers built %s, config.json names %s" % (type(model).__name__, want))
    model.eval()
    return model


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def main():
    if sys.argv[1] == "--list":
        print(" ".join(FAMILIES))
        return
    family, out_dir = sys.argv[1], sys.argv[2]
    hf_logging.disable_progress_bar()
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    model_dir = tempfile.mkdtemp()
    write_model(family, model_dir)
    model = load(model_dir)
    ids, probes = prompt_and_probes(model.config.vocab_size)
    runs, diff = forced_runs(model, ids)
    if (len(runs) > 1) != (family in PER_CALL):
        sys.exit("FAILED: %s: token by token vs one prefill max |diff| %.3g, expected %s" % (
            family, diff, "a per-call difference" if family in PER_CALL else "none"))
    long = runs["long"][1]
    order = np.sort(long, axis=-1)
    stable = order[:, -1] - order[:, -2] >= MARGIN
    # The logits golden_long.json holds (what compare_hf_golden.py compares): each position's TOP_K best, probes.
    held = np.concatenate([np.argsort(-long, axis=-1, kind="stable")[:, :TOP_K],
                           np.tile(probes, (len(ids), 1))], axis=1)
    sensitivity = []
    for what, config_changes, edit in SENSITIVITY[family]:
        changed = load(model_dir, config_changes)
        if edit:
            with torch.no_grad():
                edit(changed)
        logits = long_logits(changed, ids)
        diff_held = np.abs(np.take_along_axis(logits, held, 1) - np.take_along_axis(long, held, 1)).max()
        sensitivity.append({"change": what, "max_abs_diff": round(float(diff_held), 4),
                            "max_abs_diff_whole_rows": round(float(np.abs(logits - long).max()), 4),
                            "argmax_changed": int(((logits.argmax(-1) != long.argmax(-1)) & stable).sum())})
    same = []
    for what, config_changes in EQUIVALENT.get(family, []):
        diff_same = float(np.abs(long_logits(load(model_dir, config_changes), ids) - long).max())
        if diff_same > SAME_BOUND:
            sys.exit("FAILED: %s: %s changes the logits by %.3g" % (family, what, diff_same))
        same.append({"change": what, "max_abs_diff": float("%.2g" % diff_same)})
    with torch.no_grad():
        hidden = model(torch.tensor([ids]), output_hidden_states=True).hidden_states
    extra = {"model_type": model.config.model_type,
             "parameters": sum(p.numel() for p in model.parameters()),
             "files_sha256": {name: sha256(os.path.join(model_dir, name))
                              for name in ("config.json", "model.safetensors")},
             "sensitivity": sensitivity, "same_logits": same}
    for name, (fed, logits) in runs.items():
        write_golden(os.path.join(out_dir, "golden_%s.json" % name), fed, logits, probes,
                     extra if name == "long" else None)
    margins = order[:, -1] - order[:, -2]
    print("%s: %d parameters; token by token vs one prefill max |diff| %.3g; top-2 margin >= %g at %d of %d "
          "(min %.4f); logits in [%.2f, %.2f]; hidden rms per layer %s" % (
              family, extra["parameters"], diff, MARGIN, (margins >= MARGIN).sum(), len(margins), margins.min(),
              long.min(), long.max(), " ".join("%.2f" % h.pow(2).mean().sqrt() for h in hidden)))
    for s in sensitivity:
        print("  %s: max |diff| %.4g over the golden's logits (%.4g over whole rows), argmax changed at %d of "
              "%d positions with top-2 margin >= %g" % (
                  s["change"], s["max_abs_diff"], s["max_abs_diff_whole_rows"], s["argmax_changed"], stable.sum(),
                  MARGIN))
    for s in same:
        print("  same model: %s: max |diff| %.2g" % (s["change"], s["max_abs_diff"]))
    shutil.rmtree(model_dir)


if __name__ == "__main__":
    main()
