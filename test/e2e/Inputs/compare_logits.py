"""Compares two teacher-forced logit dumps ([rows, vocab] float32) from
llmc-run --dump-logits: prints the max |difference| and how many rows agree
on the argmax; exits non-zero past the given bounds."""
import sys

import numpy as np

test_path, ref_path, vocab, max_abs, min_agree = sys.argv[1:6]
test = np.fromfile(test_path, dtype=np.float32).reshape(-1, int(vocab))
ref = np.fromfile(ref_path, dtype=np.float32).reshape(-1, int(vocab))
if test.shape != ref.shape or not np.all(np.isfinite(test)):
    sys.exit("shapes differ or non-finite logits: %s vs %s" % (test.shape, ref.shape))
diff = float(np.abs(test - ref).max())
agree = int((test.argmax(axis=1) == ref.argmax(axis=1)).sum())
print("rows %d: max |diff| %.2e (bound %s), argmax agrees on %d rows (at least %s)"
      % (len(ref), diff, max_abs, agree, min_agree))
if diff > float(max_abs) or agree < int(min_agree):
    sys.exit("FAILED")
