"""Compares two float32 logit dumps [rows, vocab] (llmc-run --dump-logits,
step_logits) with the standard library only (the GPU machine may lack
numpy).

As a program: compare_logits.py <label> <test.f32> <ref.f32> <vocab>
                  [--max-abs A] [--max-scaled R] [--min-agree F]
prints compare()'s line and exits 1 when check() finds a broken bound;
with `-` as <ref.f32>, only whether every logit of <test.f32> is finite.
"""
import argparse
import array
import math
import sys


def load(path, vocab):
    values = array.array("f")
    with open(path, "rb") as f:
        values.frombytes(f.read())
    if sys.byteorder != "little":
        values.byteswap()
    if len(values) % vocab:
        raise ValueError("%s: %d floats is not a multiple of the vocabulary %d"
                         % (path, len(values), vocab))
    return values


def compare(test_path, ref_path, vocab):
    """Statistics of test vs ref: rows; max_diff = max |test - ref|; scale =
    the largest |ref| logit; agree = rows whose argmax is the same;
    worst_pick = the largest (ref max - ref[test argmax]) over the rows,
    i.e. how much worse, by the reference, the test's top token can be."""
    test, ref = load(test_path, vocab), load(ref_path, vocab)
    if len(test) != len(ref):
        raise ValueError("%s has %d rows, %s %d" % (
            test_path, len(test) // vocab, ref_path, len(ref) // vocab))
    rows = len(ref) // vocab
    finite = all(math.isfinite(v) for v in test)
    stats = {"rows": rows, "finite": finite, "agree": 0, "worst_pick": 0.0,
             "max_diff": math.inf, "scale": max(abs(v) for v in ref)}
    if not finite:
        return stats
    stats["max_diff"] = max(abs(a - b) for a, b in zip(test, ref))
    for r in range(rows):
        row_t = test[r * vocab:(r + 1) * vocab]
        row_r = ref[r * vocab:(r + 1) * vocab]
        pick = max(range(vocab), key=row_t.__getitem__)
        best = max(range(vocab), key=row_r.__getitem__)
        stats["agree"] += pick == best
        stats["worst_pick"] = max(stats["worst_pick"], row_r[best] - row_r[pick])
    return stats


def finite(path, vocab):
    """One phrase on a dump without a reference, and whether every logit is
    finite (what a model too large to run on the CPU can be checked for)."""
    values = load(path, vocab)
    bad = [i for i, v in enumerate(values) if not math.isfinite(v)]
    rows = len(values) // vocab
    if bad:
        return ("rows %d: %d non-finite logits (first at row %d, column %d)"
                % (rows, len(bad), bad[0] // vocab, bad[0] % vocab)), False
    return ("rows %d: every logit finite, largest |logit| %.3g"
            % (rows, max(abs(v) for v in values))), True


def describe(stats):
    """One phrase: rows, max |diff|, its share of the logit scale, argmax."""
    return ("rows %d, max |diff| %.3g = %.3g of the logit scale %.3g, "
            "argmax agrees on %d/%d rows%s" % (
                stats["rows"], stats["max_diff"], stats["max_diff"] / stats["scale"],
                stats["scale"], stats["agree"], stats["rows"],
                "" if stats["agree"] == stats["rows"] else
                " (worst other pick %.3g below the best)" % stats["worst_pick"]))


def check(stats, max_abs=None, max_scaled=None, min_agree=None, max_pick=None):
    """The broken bounds, as phrases: max |diff| > max_abs; max |diff| >
    max_scaled * scale; argmax agreement below min_agree of the rows; a
    test argmax more than max_pick * scale below the reference's best."""
    failures = []
    if not stats["finite"]:
        failures.append("non-finite logits")
    if max_abs is not None and stats["max_diff"] > max_abs:
        failures.append("max |diff| above %g" % max_abs)
    if max_scaled is not None and stats["max_diff"] > max_scaled * stats["scale"]:
        failures.append("max |diff| above %g of the logit scale" % max_scaled)
    if min_agree is not None and stats["agree"] < min_agree * stats["rows"]:
        failures.append("argmax agrees on fewer than %g of the rows" % min_agree)
    if max_pick is not None and stats["worst_pick"] > max_pick * stats["scale"]:
        failures.append("an argmax %g of the logit scale below the best"
                        % (stats["worst_pick"] / stats["scale"]))
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("label")
    parser.add_argument("test")
    parser.add_argument("ref")
    parser.add_argument("vocab", type=int)
    parser.add_argument("--max-abs", type=float)
    parser.add_argument("--max-scaled", type=float)
    parser.add_argument("--min-agree", type=float)
    args = parser.parse_args()
    if args.ref == "-":
        phrase, ok = finite(args.test, args.vocab)
        print("%s: %s" % (args.label, phrase))
        if not ok:
            print("%s: FAILED: non-finite logits" % args.label)
        return 0 if ok else 1
    stats = compare(args.test, args.ref, args.vocab)
    print("%s: %s" % (args.label, describe(stats)))
    failures = check(stats, args.max_abs, args.max_scaled, args.min_agree)
    if failures:
        print("%s: FAILED: %s" % (args.label, "; ".join(failures)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
