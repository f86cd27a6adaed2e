"""Writes Hugging Face transformers golden logits (committed; small) for the RoPE / attention variants of
make_hf_model.py (rope-<variant>, ROPE_VARIANTS), read by rope-variants.test through compare_hf_golden.py.

Run in the reference venv (scripts/reference-venv.sh --full: transformers 5.24.0, torch 2.15.0):

    PY=$(scripts/reference-venv.sh --full)
    for v in $($PY test/e2e/Inputs/rope_goldens.py --list); do
      $PY test/e2e/Inputs/make_hf_model.py rope-$v /tmp/hf/rope-$v
      $PY test/e2e/Inputs/rope_goldens.py /tmp/hf/rope-$v test/e2e/Inputs/hf-random/rope/$v; done

For each variant, up to three files in compare_hf_golden.py's format (prompt_ids = the fed ids, reply_ids empty):
  golden_long.json         one forward call over PROMPT_LEN fixed pseudo-random ids (teacher forcing): longer
                           than every original_max_position_embeddings of the variants, so dynamic NTK and
                           longrope use their scaled / long frequencies for the whole call;
  golden_short.json        one forward call over the first SHORT_LEN ids (shorter than all of them: the
                           unscaled / short frequencies);
  golden_incremental.json  the same PROMPT_LEN ids fed one at a time through the KV cache: every call picks
                           its frequencies from the length so far (transformers' per-call semantics), so the
                           cached keys of early positions keep the frequencies of their own call.
golden_short.json and golden_incremental.json only for the variants whose frequencies depend on the call (the
others would repeat golden_long.json's rows).
Each position keeps the argmax over the vocabulary, the top-2 margin, the TOP_K best logits and the logits of
PROBE_IDS fixed ids, rounded to DECIMALS.
"""
import json
import os
import sys

import numpy as np
import torch
from transformers import AutoModelForCausalLM

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_rows import golden_rows  # noqa: E402
from make_hf_model import ROPE_VARIANTS  # noqa: E402

PROMPT_LEN = 36
SHORT_LEN = 12
TOP_K = 4
PROBE_IDS = 8
DECIMALS = 5
SEED = 20261202
# Largest |long - incremental| logit difference of a variant whose frequencies do not depend on the call
# (float32 reassociation; ~2e-5 measured), far below what a per-call change makes (> 1).
PER_CALL_DIFF = 1e-3


def main():
    if sys.argv[1] == "--list":
        print(" ".join(sorted(ROPE_VARIANTS)))
        return
    model_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    model.eval()
    rng = np.random.default_rng(SEED)
    vocab = model.config.vocab_size
    # Ids past the byte-fallback and special entries of the sentencepiece vocabulary.
    ids = rng.integers(3, vocab, PROMPT_LEN).tolist()
    probes = rng.choice(vocab, PROBE_IDS, replace=False).tolist()
    runs = {}
    with torch.no_grad():
        # Token by token first: each call's length is the position + 1 (transformers resets dynamic NTK's
        # frequencies when a call is shorter than the original length, so the order of runs does not matter).
        rows, cache = [], None
        for t in range(PROMPT_LEN):
            out = model(torch.tensor([ids[t:t + 1]]), cache=cache, use_cache=True)
            cache = out.past_key_values
            rows.append(out.logits[0, -1].double().numpy())
        runs["incremental"] = (ids, np.stack(rows))
        runs["long"] = (ids, model(torch.tensor([ids])).logits[0].double().numpy())
        runs["short"] = (ids[:SHORT_LEN], model(torch.tensor([ids[:SHORT_LEN]])).logits[0].double().numpy())
    # Static frequencies: the token-by-token and short runs are the long run's rows up to rounding (the test
    # compares llmc's token-by-token logits with golden_long.json); only the per-call kinds keep their own.
    diff = np.abs(runs["long"][1] - runs["incremental"][1]).max()
    per_call = diff > PER_CALL_DIFF
    if not per_call:
        del runs["incremental"], runs["short"]
    for name, (fed, logits) in runs.items():
        with open(os.path.join(out_dir, "golden_%s.json" % name), "w") as f:
            json.dump({"generator": "transformers %s, torch %s, float32" % (
                           __import__("transformers").__version__, torch.__version__),
                       "prompt_ids": fed, "reply_ids": [], "probe_ids": probes,
                       "positions": golden_rows(logits, probes, TOP_K, DECIMALS)}, f, separators=(",", ":"))
            f.write("\n")
    print("%s: %d ids; long vs incremental max |diff| %.3g" % (out_dir, PROMPT_LEN, diff))


if __name__ == "__main__":
    main()
