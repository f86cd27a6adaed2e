"""Compares llmc's dequantized tensors bit for bit with the gguf package's (the independent reference).

Usage: compare_dequant.py [--tensors NAME,...] [--llmc-reads OTHER.gguf] <work-dir> <file.gguf>...
  For each file, runs `llmc-runtime-test dump-f32 <file> <work-dir>/values.bin [tensors]` (the runtime's
  f32 values as it loads them) and compares them with gguf.quants.dequantize of the same tensors read by
  gguf.GGUFReader.
  --tensors: only these tensors (default: every tensor of the file).
  --llmc-reads: let llmc read OTHER.gguf instead (a file with the same tensor names and types but other
                values): the comparison must then fail, which shows that it can.

Prints, per file and storage type, the tensors and elements compared. Exits 1 on any differing bit, on a
dtype llmc names differently from the file, on a tensor llmc did not load, or when a file had no quantized
element compared (a check that compared nothing must not pass).
"""
import argparse
import collections
import os
import subprocess
import sys

import gguf
import numpy as np

PLAIN_TYPES = {"F32", "F16", "BF16"}
MAX_REPORTED = 5  # first differing elements shown per tensor
RUNTIME_TOOL = "llmc-runtime-test"  # found on PATH, as lit sets it up


def llmc_values(path, tensors, work):
    """{source name: (dtype, uint32 bits)} as llmc loads them."""
    values_path = os.path.join(work, "values.bin")
    run = subprocess.run([RUNTIME_TOOL, "dump-f32", path, values_path] + list(tensors),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        print("error: %s dump-f32 %s failed: %s" % (RUNTIME_TOOL, path, run.stderr.strip()))
        return None
    out = run.stdout
    bits = np.fromfile(values_path, dtype="<u4")
    loaded = {}
    for line in out.splitlines():
        tag, name, dtype, count, offset = line.split()
        assert tag == "tensor", line
        loaded[name] = (dtype, bits[int(offset):int(offset) + int(count)])
    return loaded


def compare_file(path, only, llmc_path, work):
    """Prints the per-type lines; returns the number of failures."""
    label = os.path.basename(path)
    reader = gguf.GGUFReader(path)
    names = [t.name for t in reader.tensors if only is None or t.name in only]
    failures = 0
    if only is not None and set(only) - set(names):
        print("error: %s: no tensor named %s" % (label, ", ".join(sorted(set(only) - set(names)))))
        failures += 1
    loaded = llmc_values(llmc_path, names if only is not None else [], work)
    if loaded is None:
        return failures + 1
    stats = collections.defaultdict(lambda: [0, 0])
    for t in reader.tensors:
        if t.name not in names:
            continue
        qtype = gguf.GGMLQuantizationType(t.tensor_type)
        if t.name not in loaded:
            print("error: %s: llmc did not load tensor %s" % (label, t.name))
            failures += 1
            continue
        dtype, got = loaded[t.name]
        if dtype != qtype.name:
            print("error: %s: tensor %s: llmc says %s, the file says %s" % (label, t.name, dtype, qtype.name))
            failures += 1
            continue
        ref = np.ascontiguousarray(gguf.quants.dequantize(t.data, qtype), dtype=np.float32).reshape(-1)
        ref_bits = ref.view("<u4")
        if ref_bits.size != got.size:
            print("error: %s: tensor %s: llmc has %d elements, the reference %d"
                  % (label, t.name, got.size, ref_bits.size))
            failures += 1
            continue
        if not np.array_equal(ref_bits, got):
            bad = np.flatnonzero(ref_bits != got)
            print("MISMATCH %s: %s (%s): %d of %d elements differ"
                  % (label, t.name, qtype.name, bad.size, got.size))
            for j in bad[:MAX_REPORTED]:
                print("  element %d: llmc %r (0x%08x), gguf %r (0x%08x)"
                      % (j, got[j:j + 1].view("<f4")[0], got[j], ref[j], ref_bits[j]))
            failures += 1
            continue
        stats[qtype.name][0] += 1
        stats[qtype.name][1] += got.size
    for name in sorted(stats):
        n, e = stats[name]
        print("%s: %s %d tensors, %d elements bit-exact" % (label, name, n, e))
    if sum(e for name, (_, e) in stats.items() if name not in PLAIN_TYPES) == 0:
        print("error: %s: no quantized element was compared" % label)
        failures += 1
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tensors")
    ap.add_argument("--llmc-reads")
    ap.add_argument("work")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    only = args.tensors.split(",") if args.tensors else None
    os.makedirs(args.work, exist_ok=True)
    failures = sum(compare_file(f, only, args.llmc_reads or f, args.work) for f in args.files)
    if failures:
        print("FAILED: %d problem(s)" % failures)
        return 1
    print("all compared tensors bit-exact")
    return 0


if __name__ == "__main__":
    sys.exit(main())
