"""Compares llmc-run's teacher-forced logits ([rows, vocab] float32, --dump-logits) with a Hugging Face golden
file written by smollm2_goldens.py: max |diff| over every logit the golden holds (the top ids and the probe ids
of each position), and the argmax over the whole vocabulary wherever the golden's top-2 margin makes it stable.
Prints what it compared; exits non-zero on any violation (or when it compared nothing).

Usage: compare_hf_golden.py LOGITS GOLDEN MAX_ABS MIN_MARGIN [--before N EARLY_GOLDEN]
With --before, the rows before position N are held against EARLY_GOLDEN's instead (a model whose logits
depend on the call, as longrope's do on the call's length: llmc-run --prefixes' row of a short prefix is
what transformers computes on that prefix, which its token-by-token golden holds)."""
import json
import sys

import numpy as np

logits_path, golden_path, max_abs, min_margin = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
golden = json.load(open(golden_path))
positions = golden["positions"]
if len(sys.argv) == 8 and sys.argv[5] == "--before":
    early = json.load(open(sys.argv[7]))
    if early["prompt_ids"] + early["reply_ids"] != golden["prompt_ids"] + golden["reply_ids"]:
        sys.exit("FAILED: the two goldens are of other ids")
    split = int(sys.argv[6])
    positions = early["positions"][:split] + positions[split:]
elif len(sys.argv) != 5:
    sys.exit("usage: compare_hf_golden.py LOGITS GOLDEN MAX_ABS MIN_MARGIN [--before N EARLY_GOLDEN]")
ids = golden["prompt_ids"] + golden["reply_ids"]
test = np.fromfile(logits_path, dtype=np.float32)
if test.size % len(positions) != 0:
    sys.exit("FAILED: %d floats are not %d rows" % (test.size, len(positions)))
test = test.reshape(len(positions), -1)
if len(ids) != len(positions) or not np.all(np.isfinite(test)):
    sys.exit("FAILED: %d ids for %d positions, or non-finite logits" % (len(ids), len(positions)))
worst, compared, stable, argmax_ok = 0.0, 0, 0, 0
for row, pos in zip(test, positions):
    want_ids = pos["top_ids"] + golden["probe_ids"]
    want = np.array(pos["top_logits"] + pos["probe_logits"])
    worst = max(worst, float(np.abs(row[want_ids] - want).max()))
    compared += len(want_ids)
    if pos["margin"] >= min_margin:
        stable += 1
        argmax_ok += int(int(row.argmax()) == pos["argmax"])
print("positions %d, logits compared %d: max |diff| %.2e (bound %g); argmax equal at %d of %d positions "
      "with top-2 margin >= %g" % (len(positions), compared, worst, max_abs, argmax_ok, stable, min_margin))
if compared == 0 or worst > max_abs or argmax_ok != stable:
    sys.exit("FAILED")
