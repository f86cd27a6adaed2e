"""The sampling kernels of a kernels listing (llmc_argmax_v<V>,
llmc_top_k_top_p_v<V>: codegen/cuda/SamplingKernels) run in the SIMT
simulator (test/lib/cuda_sim.py) against a Python port of the host sampler
(runtime/src/sampler.cpp, without the repetition penalty).

Usage: simulate_sampling.py <kernels.mlir>

Logits: random rows, rows with ties at the maximum, NaN (as -inf) and -inf
entries, an all-NaN row. Settings where the kernel is documented to match
the host exactly: greedy (temperature 0, top_k 1, top_p 0), 1 < top_k <= 256
with and without top_p < 1, and no top_k with top_p >= 1. Prints one line
per kernel and "ok"; exits 1 on a mismatch or a simulator report.
"""
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "lib"))
import cuda_sim  # noqa: E402


def host_sample(logits, temperature, top_k, top_p, u):
    """runtime/src/sampler.cpp's Sampler::sample for the uniform draw u."""
    x = np.where(np.isnan(logits), np.float32(-np.inf), logits).astype(np.float32)
    vocab = x.size
    best = int(np.argmax(x))  # the first of equal maxima
    if temperature <= 0 or top_k == 1 or top_p <= 0:
        return best
    if x[best] == -np.inf:
        return best
    inv_t = np.float32(1) / np.float32(temperature)
    p = np.exp(((x - x[best]) * inv_t).astype(np.float64)).astype(np.float32)
    # Index order unless top_k or top_p < 1 sorts (probability descending,
    # index ascending).
    by_probability = sorted(range(vocab), key=lambda i: (-float(p[i]), i))
    order = list(range(vocab))
    n = vocab
    if 0 < top_k < n:
        order, n = by_probability, top_k
    total = 0.0
    for i in range(n):
        total += float(p[order[i]])
    if np.float32(top_p) < 1:
        order = by_probability
        keep, cum, m = float(np.float32(top_p)) * total, 0.0, 0
        while m < n:
            cum += float(p[order[m]])
            m += 1
            if cum >= keep:
                break
        n, total = m, cum
    r, cum = float(np.float32(u)) * total, 0.0
    for i in range(n):
        cum += float(p[order[i]])
        if r < cum:
            return order[i]
    return order[n - 1]


def main():
    module = cuda_sim.Module(open(sys.argv[1]).read())
    names = [n for n in module.kernels if n.startswith("llmc_argmax_v")]
    if not names:
        print("no sampling kernels")
        return 1
    vocab = int(re.match(r"llmc_argmax_v(\d+)$", names[0]).group(1))
    rng = np.random.default_rng(7)
    rows = [rng.standard_normal(vocab).astype(np.float32) * 3 for _ in range(3)]
    tie = rng.standard_normal(vocab).astype(np.float32)
    tie[[vocab // 3, vocab // 2, vocab - 1]] = 9.0
    rows.append(tie)
    holes = rng.standard_normal(vocab).astype(np.float32) * 2
    holes[::7] = np.nan
    holes[3::11] = -np.inf
    rows.append(holes)
    rows.append(np.full(vocab, np.nan, np.float32))
    failures = []
    token = np.zeros(1, np.int32)
    argmax = "llmc_argmax_v%d" % vocab
    for i, row in enumerate(rows):
        token[0] = -1
        module.launch(argmax, (1, 1, 1), (1024, 1, 1),
                      [cuda_sim.memref_of(row), cuda_sim.memref_of(token)])
        want = host_sample(row, 0.0, 0, 1.0, 0.0)
        if token[0] != want:
            failures.append("%s row %d: %d, the host %d" % (argmax, i, token[0], want))
    print("%s: %d rows" % (argmax, len(rows)))
    draw = "llmc_top_k_top_p_v%d" % vocab
    settings = [(0.0, 0, 1.0), (0.8, 1, 1.0), (1.0, 0, 0.0), (0.8, 40, 1.0), (1.3, 40, 0.9),
                (1.0, 256, 0.5), (0.7, 0, 1.0), (1.0, vocab, 1.0)]
    count = 0
    for temperature, top_k, top_p in settings:
        for i, row in enumerate(rows[:5]):
            edges = (0.0, 0.999) if top_k in (40, vocab) and i < 2 else ()
            for u in (float(rng.random()),) + edges:
                token[0] = -1
                module.launch(draw, (1, 1, 1), (1024, 1, 1),
                              [cuda_sim.memref_of(row), temperature, top_k, top_p, u,
                               cuda_sim.memref_of(token)])
                want = host_sample(row, temperature, top_k, top_p, u)
                count += 1
                if token[0] != want:
                    failures.append("%s row %d T=%g top_k=%d top_p=%g u=%g: %d, the host %d"
                                    % (draw, i, temperature, top_k, top_p, u, token[0], want))
    print("%s: %d draws" % (draw, count))
    for failure in failures:
        print("error: " + failure)
    if failures:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cuda_sim.SimError as error:
        print("error: %s" % error)
        sys.exit(1)
