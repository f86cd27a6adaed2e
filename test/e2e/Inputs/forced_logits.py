"""Teacher-forced transformers logits of one model over fixed pseudo-random ids, and the golden files made from
them in compare_hf_golden.py's format (prompt_ids = the fed ids, reply_ids empty); shared by rope_goldens.py and
family_goldens.py (reference venv: transformers, torch).

Runs (forced_runs):
  long         one forward call over PROMPT_LEN ids;
  short        one forward call over the first SHORT_LEN ids;
  incremental  the same PROMPT_LEN ids fed one at a time through the KV cache: every call picks frequencies
               that depend on the call (dynamic NTK, longrope) from the length so far, so the cached keys of
               early positions keep the frequencies of their own call.
short and incremental are kept only when the incremental rows differ from the long run's by more than
PER_CALL_DIFF (else they would repeat golden_long.json's rows up to rounding).
Each position keeps the argmax over the vocabulary, the top-2 margin, the TOP_K best logits and the logits of
PROBE_IDS fixed ids, rounded to DECIMALS (golden_rows.py).
"""
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_rows import golden_rows  # noqa: E402

PROMPT_LEN = 36
SHORT_LEN = 12
TOP_K = 4
PROBE_IDS = 8
DECIMALS = 5
SEED = 20261202
# Largest |long - incremental| logit difference of a model whose frequencies do not depend on the call
# (float32 reassociation; ~2e-5 measured), far below what a per-call change makes (> 1).
PER_CALL_DIFF = 1e-3


def prompt_and_probes(vocab):
    """PROMPT_LEN ids past the byte-fallback and special entries of the sentencepiece vocabulary, and
    PROBE_IDS distinct probe ids."""
    rng = np.random.default_rng(SEED)
    ids = rng.integers(3, vocab, PROMPT_LEN).tolist()
    probes = rng.choice(vocab, PROBE_IDS, replace=False).tolist()
    return ids, probes


def long_logits(model, ids):
    with torch.no_grad():
        return model(torch.tensor([ids])).logits[0].double().numpy()


def forced_runs(model, ids):
    """({run name: (fed ids, logits [rows, vocab] float64)}, max |long - incremental|)."""
    runs = {}
    with torch.no_grad():
        # Token by token first: each call's length is the position + 1 (transformers resets dynamic NTK's
        # frequencies when a call is shorter than the original length, so the order of runs does not matter).
        rows, cache = [], None
        for t in range(len(ids)):
            out = model(torch.tensor([ids[t:t + 1]]), cache=cache, use_cache=True)
            cache = out.past_key_values
            rows.append(out.logits[0, -1].double().numpy())
        runs["incremental"] = (ids, np.stack(rows))
    runs["long"] = (ids, long_logits(model, ids))
    runs["short"] = (ids[:SHORT_LEN], long_logits(model, ids[:SHORT_LEN]))
    diff = float(np.abs(runs["long"][1] - runs["incremental"][1]).max())
    if diff <= PER_CALL_DIFF:
        del runs["incremental"], runs["short"]
    return runs, diff


def write_golden(path, fed, logits, probes, extra=None):
    """compare_hf_golden.py's format; `extra` keys go between the generator and the ids."""
    golden = {"generator": "transformers %s, torch %s, float32" % (
        __import__("transformers").__version__, torch.__version__)}
    golden.update(extra or {})
    golden.update({"prompt_ids": fed, "reply_ids": [], "probe_ids": probes,
                   "positions": golden_rows(logits, probes, TOP_K, DECIMALS)})
    with open(path, "w") as f:
        json.dump(golden, f, separators=(",", ":"))
        f.write("\n")
