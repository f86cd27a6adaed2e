"""Cases of the check of the CUDA kernels on block-quantized weights
(simulated-block-kernels.test in the SIMT simulator, block-kernels-gpu.test on
a GPU): every GGUF block format llmc's dialect has, in the decode GEMV, the
prefill GEMM (mma.sync on weight tiles decoded to f16), the embedding gather
and tied logits; the fused GEMVs (a normalizing multi-output GEMV mixing
Q4_K and Q6_K as Q4_K_M files do, normalizing gated GEMVs) and a GEMV of two
rows per warp.

  block_projection_gpu.py generate DIR   one llm module with a function per
      case, compiled by llmc (DIR/blocks_sm_XX.ptx and the kernels phase for
      the simulator), DIR/manifest.txt (kernel_manifest_runner.cpp's
      format: the blocks as files, in the planar layout the CUDA kernels
      read (test/lib/planar_blocks.py), x as seeded `random` lines) and
      DIR/expected.json: what each output is, and DIR/ref_*.npy: the weights
      dequantized by the PyPI gguf package (the reference dequantizer; needs
      it: run with the reference venv's python), so that the comparison
      needs only numpy
  block_projection_gpu.py simulate DIR   runs the manifest in the simulator
  block_projection_gpu.py compare DIR    one line per output, exit 1 if any
      fails

The blocks are random bytes (every code and high-bit pattern) with the f16
multipliers and minimums set to magnitudes that keep outputs O(1) (random
bytes there would be up to 65504, or inf/NaN). References in float64 on the
gguf-dequantized weights; bounds, per output, relative to Σ|x·w|:
  - GEMV, fused GEMVs: 1e-5 (f32 FMAs in another order; each element is
    d·q + m in one FMA where gguf rounds twice: d·q is exact in f32, so
    both give the same element);
  - GEMM: x and the decoded weights are rounded to f16 in shared memory (the
    reference rounds them the same way), products exact, f32 sums: 1e-4;
  - embedding: the row itself, within 1e-6 relative (one rounding);
  - gated GEMV: act(g)·u with g and u each within 1e-5 of Σ|x·w|, so
    |Δ| <= 1e-5 · (|u| · Σ|x·w_g| · max|act'| + |act(g)| · Σ|x·w_u|) · 2.
A wrong scale, sub-block, nibble half or high bit moves an output by the
size of a term of Σ|x·w|, far above these bounds. Result buffers have 64
floats of 0xCD bytes after them that must stay untouched.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "lib"))
from llmc_cuda_module import Manifest, compile_kernels, regenerate, simulate_manifest  # noqa: E402
from planar_blocks import planar  # noqa: E402

MODULE = "blocks"
GEMV_TOLERANCE = 1e-5
GEMM_TOLERANCE = 1e-4
EMBEDDING_RTOL = 1e-6
CANARY = 64
CANARY_BYTE = 0xCD
X_SCALE = 1.0
# The fused norms' eps (written into the module as 1.0e-05).
EPS = 1e-5

# format: (elements per block, bytes per block, byte offsets of its f16
# multipliers, of its f16 minimums). Multipliers of ~0.02 with codes up to 63
# (K-quants: 6-bit sub-scales) keep the weights within about ±1.
FORMATS = {
    "q8_0": (32, 34, [0], []),
    "q4_0": (32, 18, [0], []),
    "q4_1": (32, 20, [0], [2]),
    "q5_0": (32, 22, [0], []),
    "q5_1": (32, 24, [0], [2]),
    "q4_k": (256, 144, [0], [2]),
    "q5_k": (256, 176, [0], [2]),
    "q6_k": (256, 210, [208], []),
}
SCALE_MAGNITUDE = {"q8_0": 0.01, "q4_0": 0.05, "q4_1": 0.05, "q5_0": 0.03,
                   "q5_1": 0.03, "q4_k": 0.002, "q5_k": 0.001, "q6_k": 0.001}
MIN_MAGNITUDE = 0.05
# Row lengths: the small formats 576 (SmolLM2's, 18 blocks: a partial step
# of the warp's 32 lanes), the K-quants 512 (two blocks: most lanes idle).
DEPTH = {name: 576 if spec[0] == 32 else 512 for name, spec in FORMATS.items()}
OUTPUTS = 70      # N: a partial CTA of GEMV warps, a partial GEMM tile
PREFILL_ROWS = 70  # two 64-row tiles of the GEMM, the second partial
TOKENS = [3, 69, 0, 70, 17]  # 70 is outside the table: a zero row

rng = np.random.default_rng(12)


def random_blocks(name, rows, k):
    """Raw bytes (rows, rowBytes) uint8."""
    elements, nbytes, scales, mins = FORMATS[name]
    blocks = k // elements
    raw = rng.integers(0, 256, size=(rows, blocks, nbytes), dtype=np.uint8)
    for offsets, magnitude in ((scales, SCALE_MAGNITUDE[name]), (mins, MIN_MAGNITUDE)):
        for off in offsets:
            values = (magnitude * rng.uniform(0.5, 1.5, size=(rows, blocks))
                      * rng.choice([-1.0, 1.0], size=(rows, blocks)))
            raw[:, :, off:off + 2] = values.astype(np.float16).view(np.uint8).reshape(
                rows, blocks, 2)
    return raw.reshape(rows, blocks * nbytes)


def dequantize(name, raw):
    """float64 weights (rows, K) by the gguf package."""
    import gguf
    qtype = getattr(gguf.GGMLQuantizationType, name.upper())
    return gguf.quants.dequantize(raw, qtype).astype(np.float64)


def tensor(name, n, k):
    return "tensor<%dx%dx!llm.block<%s>>" % (n, k, name)


class Cases:
    """The module's functions, in order, and per function what its launch
    reads and writes."""

    def __init__(self):
        self.functions, self.cases = [], []

    def add(self, text, case):
        self.functions.append("  func.func private @f%d%s\n" % (len(self.functions), text))
        self.cases.append(case)

    def linear(self, name, n, rows, tied=False, k=None):
        k = k or DEPTH[name]
        lead = "1x1" if rows == 1 else "1x?"
        x, out, w = ("tensor<%sx%dxf32>" % (lead, k), "tensor<%sx%dxf32>" % (lead, n),
                     tensor(name, n, k))
        op = ("llm.logits %%x, %%w {tied} : %s, %s -> %s" if tied else
              "llm.linear %%x, %%w : %s, %s -> %s") % (x, w, out)
        self.add("(%%x: %s, %%w: %s) -> %s {\n    %%0 = %s\n    return %%0 : %s\n  }"
                 % (x, w, out, op, out),
                 {"kind": "gemv" if rows == 1 else "gemm", "format": name, "n": n, "k": k,
                  "rows": rows, "tied": tied})

    def embedding(self, name, vocab):
        k = DEPTH[name]
        w, out = tensor(name, vocab, k), "tensor<1x?x%dxf32>" % k
        self.add("(%%t: tensor<1x?xi32>, %%w: %s) -> %s {\n"
                 "    %%0 = llm.embedding %%t, %%w : tensor<1x?xi32>, %s -> %s\n"
                 "    return %%0 : %s\n  }" % (w, out, w, out, out),
                 {"kind": "embedding", "format": name, "n": vocab, "k": k})

    def multi(self, outputs, k):
        """outputs: [(format, N)]; x normalized by an f32 γ."""
        ws = [tensor(f, n, k) for f, n in outputs]
        outs = ["tensor<1x1x%dxf32>" % n for _, n in outputs]
        names = ["%%w%d" % i for i in range(len(outputs))]
        self.add("(%%x: tensor<1x1x%dxf32>, %%g: tensor<%dxf32>, %s) -> (%s) {\n"
                 "    %%0:%d = llm.multi_linear %%x norm(%%g : tensor<%dxf32>) weights(%s : %s)"
                 " {norm_eps = 1.0e-05 : f64} : tensor<1x1x%dxf32> -> %s\n"
                 "    return %s : %s\n  }"
                 % (k, k, ", ".join("%s: %s" % p for p in zip(names, ws)), ", ".join(outs),
                    len(outputs), k, ", ".join(names), ", ".join(ws), k, ", ".join(outs),
                    ", ".join("%%0#%d" % i for i in range(len(outputs))), ", ".join(outs)),
                 {"kind": "multi", "outputs": outputs, "k": k})

    def glu(self, name, n):
        k = DEPTH[name]
        w, out = tensor(name, n, k), "tensor<1x1x%dxf32>" % n
        self.add("(%%x: tensor<1x1x%dxf32>, %%g: tensor<%dxf32>, %%wg: %s, %%wu: %s) -> %s {\n"
                 "    %%0 = llm.glu_linear silu %%x norm(%%g : tensor<%dxf32>), %%wg, %%wu"
                 " {norm_eps = 1.0e-05 : f64} : tensor<1x1x%dxf32>, %s, %s -> %s\n"
                 "    return %%0 : %s\n  }" % (k, k, w, w, out, k, k, w, w, out, out),
                 {"kind": "glu", "format": name, "n": n, "k": k})


def all_cases():
    c = Cases()
    for name in FORMATS:
        c.linear(name, OUTPUTS, 1)
        c.linear(name, OUTPUTS, PREFILL_ROWS)
        c.embedding(name, OUTPUTS)
    # Tied logits on a Q8_0 embedding (SmolLM2's file), decode and prefill.
    c.linear("q8_0", OUTPUTS, 1, tied=True)
    c.linear("q8_0", OUTPUTS, 5, tied=True)
    # Two rows per warp (8192 rows or more).
    c.linear("q4_0", 8200, 1, k=64)
    c.multi([("q4_k", 64), ("q4_k", 32), ("q6_k", 32)], 512)
    c.glu("q5_1", 40)
    c.glu("q6_k", 40)
    return c


def generate(out):
    os.makedirs(out, exist_ok=True)
    c = all_cases()
    kernels, launches = compile_kernels(
        out, MODULE, 'module attributes {llm.model = "t"} {\n' + "".join(c.functions) + "}\n")
    open(os.path.join(out, MODULE + ".kernels.mlir"), "w").write(kernels)
    assert len(launches) == len(c.cases), (len(launches), len(c.cases))
    manifest, expected = Manifest(out, MODULE), {}
    arrays = {}

    def array(values):
        """Saves float64-exact f32 values (gguf's dequantized weights) as
        DIR/ref_<n>.npy, readable by any numpy; returns the file name."""
        name = "ref_%d.npy" % len(arrays)
        arrays[name] = True
        np.save(os.path.join(out, name), np.asarray(values, np.float32))
        return name
    for index, (case, (kernel, grid, block)) in enumerate(zip(c.cases, launches)):
        k, args, refs, dumps = case["k"], [], {}, []

        def blocks(label, name, n):
            raw = random_blocks(name, n, k)
            # The kernels read the planar layout (llm-cuda-planar-weights);
            # the reference dequantizes the file's blocks.
            manifest.buffer("%s%d" % (label, index), planar(name, raw))
            args.append(("%s%d" % (label, index), raw.shape))
            return array(dequantize(name, raw))

        def result(label, shape):
            name = "%s%d" % (label, index)
            manifest.alloc(name, (int(np.prod(shape)) + CANARY) * 4)
            args.append((name, shape))
            dumps.append(name)
            return name + ".out"

        kind = case["kind"]
        if kind == "embedding":
            ids = np.array(TOKENS, np.int32)
            manifest.buffer("t%d" % index, ids)
            args.append(("t%d" % index, (len(ids),)))
            w = blocks("w", case["format"], case["n"])
            refs[result("o", (len(ids), k))] = ("embedding", w, TOKENS)
            grid = [len(ids) if g is None else g for g in grid]
        else:
            m = case.get("rows", 1)
            x = manifest.random("x%d" % index, (m, k), "f32", X_SCALE)
            args.append((x[0], (m, k)))
            gamma = None
            if kind in ("multi", "glu"):
                gamma = manifest.random("g%d" % index, (k,), "f32", 1.0)
                args.append((gamma[0], (k,)))
            if kind in ("gemv", "gemm"):
                w = blocks("w", case["format"], case["n"])
                refs[result("o", (m, case["n"]))] = (kind, x, None, [w])
            elif kind == "multi":
                for j, (name, n) in enumerate(case["outputs"]):
                    w = blocks("w%d_" % j, name, n)
                    refs[result("o%d_" % j, (1, n))] = ("gemv", x, gamma, [w])
            else:
                wg = blocks("wg", case["format"], case["n"])
                wu = blocks("wu", case["format"], case["n"])
                refs[result("o", (1, case["n"]))] = ("glu", x, gamma, [wg, wu])
            grid = [(m + 63) // 64 if g is None else g for g in grid]
        manifest.launch(kernel, grid, block, args)
        for name in dumps:
            manifest.dump(name)
        description = "%s %s%s" % (kernel, kind, " (tied logits)" if case.get("tied") else "")
        if kind == "gemm":
            description += " rows=%d" % case["rows"]
        for name, ref in refs.items():
            expected[name] = (description, ref)
    manifest.save()
    json.dump(expected, open(os.path.join(out, "expected.json"), "w"))


def simulate(out):
    return simulate_manifest(out, MODULE)


def f16(values):
    return np.asarray(values, np.float64).astype(np.float16).astype(np.float64)


def normalized(x, gamma):
    """x / sqrt(mean(x²) + eps) · γ as the fused norm applies it (to the sums;
    the same in exact arithmetic)."""
    return x / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + EPS) * gamma


def reference(out, ref):
    """(float64 values, bound) of one output; weights from DIR/ref_*.npy."""
    kind = ref[0]
    if kind == "embedding":
        _, table, tokens = ref
        w = np.load(os.path.join(out, table)).astype(np.float64)
        rows = np.zeros((len(tokens), w.shape[1]))
        for i, t in enumerate(tokens):
            if 0 <= t < w.shape[0]:
                rows[i] = w[t]
        return rows, EMBEDDING_RTOL * np.abs(rows) + 1e-30
    _, x_spec, gamma_spec, names = ref
    ws = [np.load(os.path.join(out, n)).astype(np.float64) for n in names]
    x = regenerate(tuple(x_spec))
    if gamma_spec is not None:
        x = normalized(x, regenerate(tuple(gamma_spec)))
    if kind == "gemm":
        x, w = f16(x), f16(ws[0])
        return x @ w.T, GEMM_TOLERANCE * (np.abs(x) @ np.abs(w).T) + 1e-6
    if kind == "gemv":
        w = ws[0]
        return x @ w.T, GEMV_TOLERANCE * (np.abs(x) @ np.abs(w).T) + 1e-6
    g, u = x @ ws[0].T, x @ ws[1].T
    mg = GEMV_TOLERANCE * (np.abs(x) @ np.abs(ws[0]).T) + 1e-6
    mu = GEMV_TOLERANCE * (np.abs(x) @ np.abs(ws[1]).T) + 1e-6
    silu = g / (1 + np.exp(-g))
    # silu' is at most 1.1 in magnitude.
    return silu * u, 2 * (1.1 * mg * np.abs(u) + (np.abs(silu) + 1.1 * mg) * mu)


def compare(out):
    expected = json.load(open(os.path.join(out, "expected.json")))
    failing = 0
    for name, (description, ref) in expected.items():
        path = os.path.join(out, "out", name)
        if not os.path.exists(path):
            print("FAIL %s: no output" % description)
            failing += 1
            continue
        values_ref, bound = reference(out, ref)
        raw = np.fromfile(path, np.uint8)
        values = raw[:values_ref.size * 4].view(np.float32).reshape(values_ref.shape)
        canary_ok = bool(np.all(raw[values_ref.size * 4:] == CANARY_BYTE))
        error = np.abs(values.astype(np.float64) - values_ref)
        ok = bool(np.all(error <= bound)) and canary_ok
        worst = float(np.max(error / bound))
        print("%s %s: max error %.3g, worst error/bound %.3g%s"
              % ("ok  " if ok else "FAIL", description, float(np.max(error)), worst,
                 "" if canary_ok else ", wrote past the result"))
        failing += not ok
    print("%d failing checks of %d" % (failing, len(expected)))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit({"generate": generate, "simulate": simulate,
              "compare": compare}[sys.argv[1]](sys.argv[2]) or 0)
