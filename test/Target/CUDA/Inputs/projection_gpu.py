"""Cases of the GPU check of the projection kernels (projection-gpu.test).

  projection_gpu.py generate DIR   writes one llm module with a function per
                                   projection, compiles it with llmc (PTX per
                                   architecture: DIR/proj_sm_XX.ptx), the
                                   inputs and DIR/manifest.txt (the launches,
                                   run by kernel_manifest_runner.cpp) and the
                                   expected outputs (DIR/expected.pkl)
  projection_gpu.py compare DIR    compares the runner's DIR/out/*.out with
                                   them, one line per check

Kernel names and grids come from llmc's kernels phase; the arguments mirror
ProjectionKernels.cpp (x (M, K), weight (N, K), bias (N), out (M, N)). The
reference is float64 over what the kernel reads: f32 x and weights widened
from bf16/f16, except that the tensor-core GEMM first rounds x to the
weight's type (it stages x in shared memory in that type). Each output may
differ from it by a small multiple of Σ|x·w| (f32 accumulation in another
order); an index or tail bug is off by the size of the sum itself. The
result buffers have 64 floats of 0xCD bytes past the last row, which must be
left alone.
"""
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "lib"))
from llmc_cuda_module import compile_kernels  # noqa: E402

MODULE = "proj"
# Allowed error relative to Σ|x·w| (+ |bias|): f32 FMAs in any order, and
# tensor cores, whose f32 accumulation may truncate the products' low bits.
F32_TOLERANCE = 1e-5
MMA_TOLERANCE = 1e-4
# Untouched floats after each result.
CANARY = 64
CANARY_BYTE = 0xCD

# (N, K, weight type, bias type or None, row counts, tied logits). A row
# count of "1x1" is decode (static, the GEMV); an integer is a prefill
# with T dynamic; "2x3" a static batch of 2 × 3 rows.
PROJECTIONS = [
    # stories260K (f32): every projection of the model, decode and prefill
    (64, 64, "f32", None, ["1x1", 1, 7, 65, 130], False),
    (32, 64, "f32", None, ["1x1", 7], False),
    (172, 64, "f32", None, ["1x1", 1, 65, 130], False),
    (64, 172, "f32", None, ["1x1", 1, 7, 65, 130], False),
    (512, 64, "f32", None, ["1x1", 7, 130], True),
    # odd shapes: K and N tails, scalar and 8-byte vectors, two rows per warp
    (100, 30, "f32", "f32", ["1x1", 65, "2x3"], False),
    (7, 13, "f32", None, ["1x1", 7], False),
    (8193, 13, "f16", "f32", ["1x1", 3], False),
    (8200, 200, "bf16", "bf16", ["1x1", 66], False),
    (100, 200, "bf16", "bf16", ["1x1", 1, 65, 130], False),
    (65, 13, "bf16", "f32", ["2x3", 64], False),
    (130, 172, "f16", "f16", ["1x1", 7, 65], False),
    (33, 172, "f16", None, ["1x1", 129], False),
    # LLaMA / Qwen2-shaped (bf16): whole K loops, several CTAs along N
    (128, 896, "bf16", "bf16", ["1x1", 1, 37, 130], False),
    (1024, 4096, "bf16", None, ["1x1", 130], False),
    (4096, 512, "f16", None, ["1x1", 200], False),
    (1000, 896, "bf16", None, ["1x1", 70], True),
]


def bf16_bits(values):
    """f32 → bf16 bit patterns, rounded to nearest even."""
    u = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def as_type(values, type_name):
    """(bytes to store, the f32 values a kernel reads back)."""
    values = np.asarray(values, np.float32)
    if type_name == "bf16":
        bits = bf16_bits(values)
        return bits, (bits.astype(np.uint32) << 16).view(np.float32)
    if type_name == "f16":
        half = values.astype(np.float16)
        return half, half.astype(np.float32)
    return values, values


def row_shape(rows):
    """The leading dimensions of x in the module and the row count M."""
    if rows == "1x1":
        return "1x1", 1
    if rows == "2x3":
        return "2x3", 6
    return "1x?", rows


def function(index, n, k, wtype, btype, rows, tied):
    lead, _ = row_shape(rows)
    x = "tensor<%sx%dxf32>" % (lead, k)
    w = "tensor<%dx%dx%s>" % (n, k, wtype)
    out = "tensor<%sx%dxf32>" % (lead, n)
    if tied:
        return ("  func.func private @p%d(%%x: %s, %%w: %s) -> %s {\n"
                "    %%0 = llm.logits %%x, %%w {tied} : %s, %s -> %s\n"
                "    return %%0 : %s\n  }\n" % (index, x, w, out, x, w, out, out))
    if btype:
        b = "tensor<%dx%s>" % (n, btype)
        return ("  func.func private @p%d(%%x: %s, %%w: %s, %%b: %s) -> %s {\n"
                "    %%0 = llm.linear %%x, %%w, %%b : %s, %s, %s -> %s\n"
                "    return %%0 : %s\n  }\n"
                % (index, x, w, b, out, x, w, b, out, out))
    return ("  func.func private @p%d(%%x: %s, %%w: %s) -> %s {\n"
            "    %%0 = llm.linear %%x, %%w : %s, %s -> %s\n"
            "    return %%0 : %s\n  }\n" % (index, x, w, out, x, w, out, out))


def cases():
    """(index, N, K, weight type, bias type, rows, tied, projection) per
    function; functions of one projection share its weight and bias."""
    out = []
    for projection, (n, k, wtype, btype, row_counts, tied) in enumerate(
            PROJECTIONS):
        for rows in row_counts:
            out.append((len(out), n, k, wtype, btype, rows, tied, projection))
    return out


def compile_module(out, text):
    """Writes the PTX sections; returns the launches in function order as
    (kernel, grid, block) with run-time grid extents as None."""
    return compile_kernels(out, MODULE, text)[1]


def generate(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(11)
    all_cases = cases()
    launches = compile_module(
        out, 'module attributes {llm.model = "t"} {\n'
        + "".join(function(*case[:7]) for case in all_cases) + "}\n")
    assert len(launches) == len(all_cases), launches
    manifest, expected, weights = [], {}, {}

    def save(name, data):
        np.ascontiguousarray(data).tofile(os.path.join(out, name + ".bin"))
        manifest.append("load %s %s.bin" % (name, name))

    for (index, n, k, wtype, btype, rows, tied, projection), \
            (kernel, grid, block) in zip(all_cases, launches):
        _, m = row_shape(rows)
        names = {"x": "x%d" % index, "w": "w%d" % projection,
                 "b": "b%d" % projection, "o": "o%d" % index}
        if projection not in weights:
            w_bytes, w = as_type(rng.uniform(-0.1, 0.1, (n, k)), wtype)
            save(names["w"], w_bytes)
            bias = np.zeros(n, np.float32)
            if btype:
                b_bytes, bias = as_type(rng.uniform(-1, 1, n), btype)
                save(names["b"], b_bytes)
            weights[projection] = (w, bias)
        w, bias = weights[projection]
        x = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        save(names["x"], x)
        manifest.append("alloc %s %d" % (names["o"], (m * n + CANARY) * 4))

        mma = kernel.startswith("gemm_mma")
        xr = as_type(x, wtype)[1] if mma else x
        products = xr.astype(np.float64) @ w.astype(np.float64).T
        magnitude = np.abs(xr.astype(np.float64)) @ np.abs(w.astype(np.float64)).T
        reference = products + bias.astype(np.float64)
        tolerance = ((MMA_TOLERANCE if mma else F32_TOLERANCE)
                     * (magnitude + np.abs(bias)) + 1e-6)

        # Dynamic grid extents: the row tiles of the GEMMs (64 rows each).
        grid = [(m + 63) // 64 if g is None else g for g in grid]
        decode = rows == "1x1"
        args = ["mem %s 2 %d %d" % (names["x"], 1 if decode else m, k),
                "mem %s 2 %d %d" % (names["w"], n, k)]
        if btype:
            args.append("mem %s 1 %d" % (names["b"], n))
        args.append("mem %s 2 %d %d" % (names["o"], 1 if decode else m, n))
        manifest.append("launch %s %s %d %d %d %d %d %d"
                        % (MODULE, kernel, *grid, *block))
        manifest.extend(args)
        manifest.append("end")
        manifest.append("dump %s %s.out" % (names["o"], names["o"]))
        description = "%s rows=%s%s" % (kernel, rows, " (tied logits)" if tied else "")
        expected[names["o"] + ".out"] = (reference.astype(np.float32),
                                         tolerance.astype(np.float32),
                                         description)
    open(os.path.join(out, "manifest.txt"), "w").write("\n".join(manifest) + "\n")
    pickle.dump(expected, open(os.path.join(out, "expected.pkl"), "wb"))


def compare(out):
    expected = pickle.load(open(os.path.join(out, "expected.pkl"), "rb"))
    failing = 0
    for name, (reference, tolerance, description) in expected.items():
        path = os.path.join(out, "out", name)
        if not os.path.exists(path):
            print("FAIL %s: no output" % description)
            failing += 1
            continue
        raw = np.fromfile(path, np.uint8)
        values = raw[:reference.size * 4].view(np.float32).reshape(reference.shape)
        canary_ok = bool(np.all(raw[reference.size * 4:] == CANARY_BYTE))
        error = np.abs(values.astype(np.float64) - reference)
        ok = bool(np.all(error <= tolerance)) and canary_ok
        worst = float(np.max(error / tolerance)) if error.size else 0.0
        print("%s %s: max error %.3g, worst error/tolerance %.3g%s"
              % ("ok  " if ok else "FAIL", description, float(np.max(error)),
                 worst, "" if canary_ok else ", wrote past the result"))
        failing += not ok
    print("%d failing checks of %d" % (failing, len(expected)))


if __name__ == "__main__":
    {"generate": generate, "compare": compare}[sys.argv[1]](sys.argv[2])
