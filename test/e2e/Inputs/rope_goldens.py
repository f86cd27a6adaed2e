"""Writes Hugging Face transformers golden logits (committed; small) for the RoPE / attention variants of
make_hf_model.py (rope-<variant>, ROPE_VARIANTS), read by rope-variants.test through compare_hf_golden.py.

Run in the reference venv (scripts/reference-venv.sh --full: transformers 5.24.0, torch 2.15.0):

    PY=$(scripts/reference-venv.sh --full)
    for v in $($PY test/e2e/Inputs/rope_goldens.py --list); do
      $PY test/e2e/Inputs/make_hf_model.py rope-$v /tmp/hf/rope-$v
      $PY test/e2e/Inputs/rope_goldens.py /tmp/hf/rope-$v test/e2e/Inputs/hf-random/rope/$v; done

For each variant, up to three files (forced_logits.py: the runs, the format):
  golden_long.json         one forward call over 36 fixed pseudo-random ids (teacher forcing): longer than
                           every original_max_position_embeddings of the variants, so dynamic NTK and
                           longrope use their scaled / long frequencies for the whole call;
  golden_short.json        one forward call over the first 12 ids (shorter than all of them: the unscaled /
                           short frequencies);
  golden_incremental.json  the same ids fed one at a time through the KV cache (transformers' per-call
                           semantics).
golden_short.json and golden_incremental.json only for the variants whose frequencies depend on the call (the
others would repeat golden_long.json's rows).
"""
import os
import sys

import torch
from transformers import AutoModelForCausalLM

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from forced_logits import PROMPT_LEN, forced_runs, prompt_and_probes, write_golden  # noqa: E402
from make_hf_model import ROPE_VARIANTS  # noqa: E402


def main():
    if sys.argv[1] == "--list":
        print(" ".join(sorted(ROPE_VARIANTS)))
        return
    model_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    model.eval()
    ids, probes = prompt_and_probes(model.config.vocab_size)
    runs, diff = forced_runs(model, ids)
    for name, (fed, logits) in runs.items():
        write_golden(os.path.join(out_dir, "golden_%s.json" % name), fed, logits, probes)
    print("%s: %d ids; long vs incremental max |diff| %.3g" % (out_dir, PROMPT_LEN, diff))


if __name__ == "__main__":
    main()
