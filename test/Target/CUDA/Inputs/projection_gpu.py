"""Cases of the GPU check of the projection kernels (projection-gpu.test).

  projection_gpu.py generate DIR   writes one llm module with a function per
                                   projection, compiles it with llmc (PTX per
                                   architecture: DIR/proj_sm_XX.ptx),
                                   DIR/manifest.txt (the launches, run by
                                   kernel_manifest_runner.cpp; the inputs are
                                   seeded `random` lines the runner fills) and
                                   what each output is (DIR/expected.pkl)
  projection_gpu.py compare DIR    computes the references from the same
                                   seeds and compares the runner's
                                   DIR/out/*.out with them, one line per check;
                                   exit status 1 if any fails

Kernel names and grids come from llmc's kernels phase; the arguments mirror
ProjectionKernels.cpp (x (M, K), weight (N, K), bias (N), out (M, N)). The
reference is float64 over what the kernel reads: f32 x and weights widened
from bf16/f16, except that the tensor-core GEMM first rounds x to the
weight's type (it stages x in shared memory in that type). Each output may
differ from it by a small multiple of Σ|x·w| (f32 accumulation in another
order); an index or tail bug is off by the size of the sum itself. The
result buffers have 64 floats of 0xCD bytes past the last row, which must be
left alone. Inputs travel as seeds, not files (the largest weight is 8 MB),
so the generated folder stays small enough to carry to a GPU machine.
"""
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "lib"))
from llmc_cuda_module import Manifest, compile_kernels, regenerate, simulate_manifest  # noqa: E402

MODULE = "proj"
# Allowed error relative to Σ|x·w| (+ |bias|): f32 FMAs in any order, and
# tensor cores, whose f32 accumulation may truncate the products' low bits.
F32_TOLERANCE = 1e-5
MMA_TOLERANCE = 1e-4
# Untouched floats after each result.
CANARY = 64
CANARY_BYTE = 0xCD
# Input ranges (powers of two, as seeded inputs need): x in [-1, 1], weights
# in [-1/8, 1/8], biases in [-1, 1].
X_SCALE, W_SCALE, B_SCALE = 1.0, 0.125, 1.0

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


def bf16_round(values):
    """f32 values rounded to bf16 (nearest even), as f32."""
    u = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint32)
    return (bits << 16).view(np.float32)


def as_type(values, type_name):
    """The f32 values a kernel reads after rounding to `type_name`."""
    values = np.asarray(values, np.float32)
    if type_name == "bf16":
        return bf16_round(values)
    if type_name == "f16":
        return values.astype(np.float16).astype(np.float32)
    return values


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
    """Writes the PTX sections and the kernels-phase text (for the
    simulator); returns the launches in function order as (kernel, grid,
    block) with run-time grid extents as None."""
    kernels, launches = compile_kernels(out, MODULE, text)
    open(os.path.join(out, MODULE + ".kernels.mlir"), "w").write(kernels)
    return launches


def generate(out):
    os.makedirs(out, exist_ok=True)
    all_cases = cases()
    launches = compile_module(
        out, 'module attributes {llm.model = "t"} {\n'
        + "".join(function(*case[:7]) for case in all_cases) + "}\n")
    assert len(launches) == len(all_cases), launches
    manifest, expected, weights = Manifest(out, MODULE), {}, {}
    for (index, n, k, wtype, btype, rows, tied, projection), \
            (kernel, grid, block) in zip(all_cases, launches):
        _, m = row_shape(rows)
        if projection not in weights:
            w = manifest.random("w%d" % projection, (n, k), wtype, W_SCALE)
            b = manifest.random("b%d" % projection, (n,), btype, B_SCALE) if btype else None
            weights[projection] = (w, b)
        w, b = weights[projection]
        x = manifest.random("x%d" % index, (m, k), "f32", X_SCALE)
        out_name = "o%d" % index
        manifest.alloc(out_name, (m * n + CANARY) * 4)
        # Dynamic grid extents: the row tiles of the GEMMs (64 rows each).
        grid = [(m + 63) // 64 if g is None else g for g in grid]
        decode = rows == "1x1"
        args = [(x[0], (1 if decode else m, k)), (w[0], (n, k))]
        if b:
            args.append((b[0], (n,)))
        args.append((out_name, (1 if decode else m, n)))
        manifest.launch(kernel, grid, block, args)
        manifest.dump(out_name)
        description = "%s rows=%s%s" % (kernel, rows, " (tied logits)" if tied else "")
        expected[out_name + ".out"] = (x, w, b, kernel.startswith("gemm_mma"), wtype,
                                       description)
    manifest.save()
    pickle.dump(expected, open(os.path.join(out, "expected.pkl"), "wb"))


def simulate(out):
    """Runs manifest.txt in the simulator (llmc_cuda_module's
    simulate_manifest); exit status 1 with its reports on a problem."""
    return simulate_manifest(out, MODULE)


def reference(x_spec, w_spec, b_spec, mma, wtype):
    """(float64 reference, tolerance) of one output. The tensor-core GEMM
    stages x in the weight's type."""
    x, w = regenerate(x_spec), regenerate(w_spec)
    bias = regenerate(b_spec) if b_spec else np.zeros(w.shape[0])
    if mma:
        x = as_type(x, wtype).astype(np.float64)
    magnitude = np.abs(x) @ np.abs(w).T
    tolerance = (MMA_TOLERANCE if mma else F32_TOLERANCE) * (magnitude + np.abs(bias)) + 1e-6
    return x @ w.T + bias, tolerance


def compare(out):
    expected = pickle.load(open(os.path.join(out, "expected.pkl"), "rb"))
    failing = 0
    for name, (x, w, b, mma, wtype, description) in expected.items():
        path = os.path.join(out, "out", name)
        if not os.path.exists(path):
            print("FAIL %s: no output" % description)
            failing += 1
            continue
        ref, tolerance = reference(x, w, b, mma, wtype)
        raw = np.fromfile(path, np.uint8)
        values = raw[:ref.size * 4].view(np.float32).reshape(ref.shape)
        canary_ok = bool(np.all(raw[ref.size * 4:] == CANARY_BYTE))
        error = np.abs(values.astype(np.float64) - ref)
        ok = bool(np.all(error <= tolerance)) and canary_ok
        worst = float(np.max(error / tolerance)) if error.size else 0.0
        print("%s %s: max error %.3g, worst error/tolerance %.3g%s"
              % ("ok  " if ok else "FAIL", description, float(np.max(error)),
                 worst, "" if canary_ok else ", wrote past the result"))
        failing += not ok
    print("%d failing checks of %d" % (failing, len(expected)))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit({"generate": generate, "simulate": simulate, "compare": compare}[sys.argv[1]](sys.argv[2]) or 0)
