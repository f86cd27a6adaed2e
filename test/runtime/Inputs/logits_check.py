"""Sanity checks of `llmc-run --dump-logits` files ([rows, vocab] float32).

Usage: logits_check.py <logits.f32> <vocab> [<reference.f32> <max-scaled>]
Prints whether every value is finite and how large the largest |logit| is
(a bound, so the output does not depend on rounding); with a reference,
whether max |a - b| / max |b| stays within <max-scaled> and on how many
rows the argmax agrees. Standard library only.
"""
import math
import struct
import sys


def load(path, vocab):
    data = open(path, "rb").read()
    if len(data) % (4 * vocab):
        sys.exit("%s: %d bytes is not a whole number of rows of %d" % (path, len(data), vocab))
    values = struct.unpack("<%df" % (len(data) // 4), data)
    return [values[r * vocab:(r + 1) * vocab] for r in range(len(values) // vocab)]


def argmax(row):
    return max(range(len(row)), key=lambda i: row[i])


def main():
    vocab = int(sys.argv[2])
    rows = load(sys.argv[1], vocab)
    flat = [v for row in rows for v in row]
    finite = all(math.isfinite(v) for v in flat)
    print("rows %d: all finite: %s" % (len(rows), "yes" if finite else "NO"))
    if not finite:
        return
    peak = max(abs(v) for v in flat)
    print("max |logit| in (0, 100): %s" % ("yes" if 0 < peak < 100 else "NO (%g)" % peak))
    print("argmax varies across rows: %s"
          % ("yes" if len(set(argmax(r) for r in rows)) > 1 else "no"))
    if len(sys.argv) > 3:
        ref = load(sys.argv[3], vocab)
        bound = float(sys.argv[4])
        ref_peak = max(abs(v) for row in ref for v in row)
        diff = max(abs(a - b) for ra, rb in zip(rows, ref) for a, b in zip(ra, rb))
        agree = sum(1 for ra, rb in zip(rows, ref) if argmax(ra) == argmax(rb))
        print("max |diff| / max |reference| within %s: %s"
              % (sys.argv[4], "yes" if diff <= bound * ref_peak else "NO (%g)" % (diff / ref_peak)))
        print("argmax agrees on at least half the rows: %s"
              % ("yes" if 2 * agree >= len(rows) else "NO (%d of %d)" % (agree, len(rows))))


if __name__ == "__main__":
    main()
