"""The fused ops' CUDA kernels against float64 references, on a GPU or in the SIMT simulator.

Usage:
  fused_kernels_check.py generate DIR   module, PTX, inputs, manifest.txt
  fused_kernels_check.py simulate DIR   runs manifest.txt in test/lib/cuda_sim.py
  kernel_manifest_runner DIR            runs it on a GPU instead
  fused_kernels_check.py compare DIR    one line per case, then a summary

`generate` writes a module of fused ops: one-row projections
(llm.multi_linear with and without a norm and biases, llm.glu_linear,
llm.linear with a residual) and llm.rope_append. It compiles the module with
llmc (the kernels phase for the launches, PTX for sm_80 and sm_90), and
writes random inputs and a launch manifest in kernel_manifest_runner.cpp's
format (grid and block from the host code, arguments in the kernel ABI
order). Outputs start as NaN, so that anything a kernel fails to write shows.
`simulate` interprets the same manifest with the simulator, so the GPU path's
inputs and arguments are exercised without a GPU. `compare` checks every
output against numpy in float64. The shapes reach the paths the
whole-model simulation does not:
- GEMVs: two rows per warp (8192 weight rows or more) inside segments of
  odd sizes (the clamped second row and its guarded store at each
  segment's end), scalar loads (K = 13), outputs of mixed weight types;
- rope_append: interleaved and half pairs, partial rotary (the copied
  elements), two sequences, a position past the capacity (nothing written),
  a bf16 cache (rounded keys and values), linear scaling.
"""
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "lib"))
import cuda_sim  # noqa: E402
from llmc_cuda_module import Manifest, compile_kernels, simulate_manifest  # noqa: E402
from rope_reference import rotate  # noqa: E402

# |kernel − reference| ≤ TOLERANCE · Σ|w · n| (+ |bias| + |residual|) + 1e-6:
# f32 accumulation over K ≤ 40 terms, x·γ and the norm's scale each rounded
# once, stays within a few ulp of the sum of magnitudes.
TOLERANCE = 1e-5
EPS = 1e-5

# (name, function text, spec) in module order.
CASES = []
MODULE = "fused"


def tensor(shape, elem):
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), elem)


def case_multi(name, k, outputs, norm_type, bias_type):
    """llm.multi_linear of one row: outputs = [(N, weight type)]."""
    args = ["%%x: %s" % tensor((1, 1, k), "f32")]
    if norm_type:
        args.append("%%g: %s" % tensor((k,), norm_type))
    for i, (n, wtype) in enumerate(outputs):
        args.append("%%w%d: %s" % (i, tensor((n, k), wtype)))
    if bias_type:
        for i, (n, _) in enumerate(outputs):
            args.append("%%b%d: %s" % (i, tensor((n,), bias_type)))
    results = [tensor((1, 1, n), "f32") for n, _ in outputs]
    op = "llm.multi_linear %x"
    if norm_type:
        op += " norm(%%g : %s)" % tensor((k,), norm_type)
    op += " weights(%s : %s)" % (
        ", ".join("%%w%d" % i for i in range(len(outputs))),
        ", ".join(tensor((n, k), w) for n, w in outputs))
    if bias_type:
        op += " biases(%s : %s)" % (
            ", ".join("%%b%d" % i for i in range(len(outputs))),
            ", ".join(tensor((n,), bias_type) for n, _ in outputs))
    if norm_type:
        op += " {norm_eps = %e : f64}" % EPS
    op += " : %s -> %s" % (tensor((1, 1, k), "f32"), ", ".join(results))
    text = ("  func.func private @%s(%s) -> (%s) {\n    %%r:%d = %s\n"
            "    return %s : %s\n  }\n" % (
                name, ", ".join(args), ", ".join(results), len(outputs), op,
                ", ".join("%%r#%d" % i for i in range(len(outputs))),
                ", ".join(results)))
    CASES.append((name, text, ("multi", k, outputs, norm_type, bias_type)))


def case_glu(name, k, n, wtype, norm_type, activation):
    args = ["%%x: %s" % tensor((1, 1, k), "f32")]
    if norm_type:
        args.append("%%g: %s" % tensor((k,), norm_type))
    args += ["%%wg: %s" % tensor((n, k), wtype), "%%wu: %s" % tensor((n, k), wtype)]
    op = "llm.glu_linear %s %%x" % activation
    if norm_type:
        op += " norm(%%g : %s)" % tensor((k,), norm_type)
    op += ", %wg, %wu"
    if norm_type:
        op += " {norm_eps = %e : f64}" % EPS
    result = tensor((1, 1, n), "f32")
    op += " : %s, %s, %s -> %s" % (tensor((1, 1, k), "f32"), tensor((n, k), wtype),
                                   tensor((n, k), wtype), result)
    text = ("  func.func private @%s(%s) -> %s {\n    %%r = %s\n"
            "    return %%r : %s\n  }\n" % (name, ", ".join(args), result, op, result))
    CASES.append((name, text, ("glu", k, n, wtype, norm_type, activation)))


def case_residual(name, k, n, wtype):
    result = tensor((1, 1, n), "f32")
    text = ("  func.func private @%s(%%x: %s, %%w: %s, %%h: %s) -> %s {\n"
            "    %%r = llm.linear %%x, %%w residual %%h : %s, %s residual %s -> %s\n"
            "    return %%r : %s\n  }\n" % (
                name, tensor((1, 1, k), "f32"), tensor((n, k), wtype), result, result,
                tensor((1, 1, k), "f32"), tensor((n, k), wtype), result, result, result))
    CASES.append((name, text, ("residual", k, n, wtype)))


def case_rope_append(name, style, batch, tokens, heads, kv_heads, head_dim,
                     rotary_dim, capacity, cache_type, factor, positions):
    """llm.rope_append into layer 1 of a 2-layer cache; `positions` per
    sequence (one may pass the capacity)."""
    cache = ("!llm.kv_cache<layers = 2, batch = %d, kv_heads = %d, head_dim = %d, "
             "capacity = %d, element_type = %s>" % (batch, kv_heads, head_dim,
                                                    capacity, cache_type))
    q = tensor((batch, tokens, heads, head_dim), "f32")
    kv = tensor((batch, tokens, kv_heads, head_dim), "f32")
    pos = tensor((batch, tokens), "i32")
    scaling = ""
    if factor != 1.0:
        scaling = ", scaling = #llm.rope_linear<factor = %e>" % factor
    text = ("  func.func private @%s(%%c: %s, %%q: %s, %%k: %s, %%v: %s, %%p: %s) -> (%s, %s) {\n"
            "    %%qr, %%c1 = llm.rope_append %s %%c[1], %%q, %%k, %%v, %%p "
            "{theta = 1.000000e+04 : f64, rotary_dim = %d : i64%s} : %s, %s, %s, %s\n"
            "    return %%qr, %%c1 : %s, %s\n  }\n" % (
                name, cache, q, kv, kv, pos, q, cache, style, rotary_dim, scaling,
                cache, q, kv, pos, q, cache))
    CASES.append((name, text, ("rope_append", style, batch, tokens, heads, kv_heads,
                               head_dim, rotary_dim, capacity, cache_type, factor,
                               positions)))


# Two rows per warp (4097 + 2049 + 2047 = 8193 rows) in odd segments, a
# bf16 norm and bf16 biases.
case_multi("multi_r2", 24, [(4097, "bf16"), (2049, "bf16"), (2047, "bf16")], "bf16", "bf16")
# One row per warp, f32 and bf16 weights side by side, no norm, f32 biases.
case_multi("multi_mixed", 32, [(64, "f32"), (33, "bf16")], None, "f32")
# A norm without biases, f16 weights, K = 13 (scalar loads).
case_multi("multi_f16_k13", 13, [(40, "f16"), (7, "f16")], "f32", None)
# Gated units: SwiGLU with a bf16 norm, GeGLU (tanh) with K = 13.
case_glu("glu_silu", 32, 72, "bf16", "bf16", "silu")
case_glu("glu_gelu_tanh", 13, 40, "f32", "f32", "gelu_tanh")
# The residual epilogue with two rows per warp and an odd N.
case_residual("residual_r2", 16, 8193, "f16")
# A prefill of two sequences: interleaved pairs, rotary_dim 4 of 8 (the rest
# copied), an f32 cache; position 9 is past the capacity of 8.
case_rope_append("rope_append_partial", "interleaved", 2, 3, 4, 2, 8, 4, 8, "f32",
                 1.0, [[0, 1, 2], [5, 6, 9]])
# A decode step: half pairs, linear scaling, a bf16 cache, GQA 6/2, Dh 16.
case_rope_append("rope_append_bf16", "half", 1, 1, 6, 2, 16, 16, 32, "bf16",
                 2.0, [[17]])


def random_of(rng, shape, elem, scale):
    """(values as float64, memory array) of `elem` rounded values."""
    values = rng.uniform(-scale, scale, shape).astype(np.float32)
    rounded = cuda_sim.convert_float(values, elem)
    return rounded.astype(np.float64), np.ascontiguousarray(cuda_sim.to_memory(rounded, elem))


def act(name, v):
    if name == "silu":
        return v / (1 + np.exp(-v))
    return 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3)))


def compile_module(out):
    """Writes the module, its kernels-phase text (for the simulator) and its
    PTX per arch; returns the launches as (kernel, grid x, grid y, block x):
    grid x is None when it is the run-time token count."""
    kernels, launches = compile_kernels(
        out, MODULE, 'module attributes {llm.model = "t"} {\n'
        + "".join(text for _, text, _ in CASES) + "}\n")
    open(os.path.join(out, MODULE + ".kernels.mlir"), "w").write(kernels)
    assert len(launches) == len(CASES), launches
    return [(kernel, grid[0], grid[1], block[0]) for kernel, grid, block in launches]


def nan_output(shape):
    return np.full(shape, np.nan, np.float32)


def generate_projection(m, name, spec, kernel, grid_x, block, rng, expected):
    kind, k = spec[0], spec[1]
    x = rng.uniform(-2, 2, (1, k)).astype(np.float32)
    m.buffer(name + "_x", x)
    args = [(name + "_x", (1, k))]
    n_in = x.astype(np.float64)[0]
    norm_type = spec[4] if kind == "glu" else spec[3] if kind == "multi" else None
    if norm_type:
        gamma, gamma_mem = random_of(rng, (k,), norm_type, 1.5)
        m.buffer(name + "_g", gamma_mem)
        args.append((name + "_g", (k,)))
        n_in = n_in / np.sqrt(np.mean(n_in ** 2) + EPS) * gamma
    outputs = []  # (buffer, reference, magnitude)
    if kind == "multi":
        for i, (n, wtype) in enumerate(spec[2]):
            w, w_mem = random_of(rng, (n, k), wtype, 0.5)
            m.buffer("%s_w%d" % (name, i), w_mem)
            args.append(("%s_w%d" % (name, i), (n, k)))
            bias = np.zeros(n)
            if spec[4]:
                bias, b_mem = random_of(rng, (n,), spec[4], 1.0)
                m.buffer("%s_b%d" % (name, i), b_mem)
                args.append(("%s_b%d" % (name, i), (n,)))
            m.buffer("%s_y%d" % (name, i), nan_output((1, n)))
            args.append(("%s_y%d" % (name, i), (1, n)))
            outputs.append(("%s_y%d" % (name, i), w @ n_in + bias,
                            np.abs(w) @ np.abs(n_in) + np.abs(bias)))
    elif kind == "glu":
        _, _, n, wtype, _, activation = spec
        wg, wg_mem = random_of(rng, (n, k), wtype, 0.5)
        wu, wu_mem = random_of(rng, (n, k), wtype, 0.5)
        for part, mem in (("wg", wg_mem), ("wu", wu_mem)):
            m.buffer("%s_%s" % (name, part), mem)
            args.append(("%s_%s" % (name, part), (n, k)))
        m.buffer(name + "_y", nan_output((1, n)))
        args.append((name + "_y", (1, n)))
        gate, up = wg @ n_in, wu @ n_in
        magnitude = (np.abs(wg) @ np.abs(n_in)) * np.abs(up) + \
            (np.abs(wu) @ np.abs(n_in)) * np.abs(act(activation, gate))
        outputs.append((name + "_y", act(activation, gate) * up, magnitude))
    else:
        _, _, n, wtype = spec
        w, w_mem = random_of(rng, (n, k), wtype, 0.5)
        h = rng.uniform(-1, 1, (1, n)).astype(np.float32)
        m.buffer(name + "_w", w_mem)
        m.buffer(name + "_h", h)
        m.buffer(name + "_y", nan_output((1, n)))
        args += [(name + "_w", (n, k)), (name + "_h", (1, n)), (name + "_y", (1, n))]
        outputs.append((name + "_y", w @ n_in + h[0].astype(np.float64),
                        np.abs(w) @ np.abs(n_in) + np.abs(h[0])))
    m.launch(kernel, (grid_x, 1, 1), (block, 1, 1), args)
    checks = []
    for buffer, reference, magnitude in outputs:
        m.dump(buffer)
        checks.append((buffer, "f32", None, reference[None],
                       TOLERANCE * magnitude[None] + 1e-6))
    expected.append((name, kernel, (grid_x, 1, 1), "rows=%d" % sum(
        len(r) for _, r, _ in outputs), checks, []))


def generate_rope_append(m, name, spec, kernel, grid_y, block, rng, expected):
    (_, style, batch, tokens, heads, kv_heads, head_dim, rotary_dim, capacity,
     cache_type, factor, positions) = spec
    count = batch * tokens
    q = rng.uniform(-2, 2, (count, heads, head_dim)).astype(np.float32)
    k = rng.uniform(-2, 2, (count, kv_heads, head_dim)).astype(np.float32)
    v = rng.uniform(-2, 2, (count, kv_heads, head_dim)).astype(np.float32)
    pos = np.array(positions, np.int32).reshape(count)
    rows = batch * capacity
    poison = cuda_sim.to_memory(nan_output((rows, kv_heads * head_dim)), cache_type)
    for part, data in (("q", q), ("k", k), ("v", v)):
        m.buffer("%s_%s" % (name, part), data.reshape(count, -1))
    m.buffer(name + "_pos", pos)
    m.buffer(name + "_qr", nan_output((count, heads * head_dim)))
    m.buffer(name + "_ck", poison)
    m.buffer(name + "_cv", poison)
    m.launch(kernel, (count, grid_y, 1), (block, 1, 1), [
        (name + "_q", (count, heads * head_dim)), (name + "_k", (count, kv_heads * head_dim)),
        (name + "_v", (count, kv_heads * head_dim)), (name + "_pos", (count,)),
        (name + "_qr", (count, heads * head_dim)),
        (name + "_ck", (rows, kv_heads * head_dim)), (name + "_cv", (rows, kv_heads * head_dim))])
    for part in ("qr", "ck", "cv"):
        m.dump("%s_%s" % (name, part))
    # f32: a few ulp of 2 · max|x|; a bf16 cache: its rounding (2^-8).
    def bound(x, elem):
        scale = 2.0 ** -8 if elem == "bf16" else TOLERANCE
        return scale * 2 * np.max(np.abs(x), axis=-1, keepdims=True) + 1e-6
    ref_q = rotate(q, pos, style, rotary_dim, factor=factor).reshape(count, -1)
    ref_k = rotate(k, pos, style, rotary_dim, factor=factor).reshape(count, -1)
    checks = [(name + "_qr", "f32", None, ref_q, bound(q.reshape(count, -1), "f32"))]
    written = []
    for t in range(count):
        if pos[t] >= capacity:
            continue
        row = (t // tokens) * capacity + pos[t]
        written.append(row)
        checks.append((name + "_ck", cache_type, row, ref_k[t][None],
                       bound(k[t].reshape(1, -1), cache_type)))
        checks.append((name + "_cv", cache_type, row, v[t].reshape(1, -1).astype(np.float64),
                       bound(v[t].reshape(1, -1), cache_type)))
    untouched = [r for r in range(rows) if r not in written]
    expected.append((name, kernel, (count, grid_y, 1), "rows checked=%d" % len(checks),
                     checks, [(name + "_ck", cache_type, untouched, kv_heads * head_dim),
                              (name + "_cv", cache_type, untouched, kv_heads * head_dim)]))


def generate(out):
    os.makedirs(out, exist_ok=True)
    launches = compile_module(out)
    rng = np.random.default_rng(5)
    m, expected = Manifest(out, MODULE), []
    for (name, _, spec), (kernel, grid_x, grid_y, block) in zip(CASES, launches):
        if spec[0] == "rope_append":
            generate_rope_append(m, name, spec, kernel, grid_y, block, rng, expected)
        else:
            generate_projection(m, name, spec, kernel, grid_x, block, rng, expected)
    m.save()
    pickle.dump(expected, open(os.path.join(out, "expected.pkl"), "wb"))


def simulate(out):
    """Runs manifest.txt in the simulator (llmc_cuda_module's
    simulate_manifest); exit status 1 with its reports on a problem."""
    return simulate_manifest(out, MODULE)


def compare(out):
    failing = total = 0
    for name, kernel, grid, what, checks, untouched in pickle.load(
            open(os.path.join(out, "expected.pkl"), "rb")):
        worst, bad = 0.0, 0
        for buffer, elem, row, reference, bound in checks:
            raw = np.fromfile(os.path.join(out, "out", buffer + ".out"),
                              cuda_sim.ELEMENTS[elem][1])
            got = cuda_sim.from_memory(raw, elem).astype(np.float64)
            got = got.reshape(-1, reference.shape[-1])
            got = got[row][None] if row is not None else got
            error = np.abs(got - reference)
            bad += int(np.sum(~(error <= bound)))
            worst = max(worst, float(np.max(error / bound)))
        # Cache rows no token writes keep their NaN poison.
        for buffer, elem, rows, width in untouched:
            raw = np.fromfile(os.path.join(out, "out", buffer + ".out"),
                              cuda_sim.ELEMENTS[elem][1])
            got = cuda_sim.from_memory(raw, elem).reshape(-1, width)
            bad += int(np.sum(~np.isnan(got[rows])))
        total += 1
        failing += bad > 0
        print("%s: %s grid=%s %s worst error %.3f of the bound: %s" % (
            name, kernel, grid, what, worst,
            "ok" if bad == 0 else "FAIL (%d values off)" % bad))
    print("%d failing cases of %d" % (failing, total))
    return 1 if failing else 0


if __name__ == "__main__":
    stage, directory = sys.argv[1], sys.argv[2]
    sys.exit({"generate": generate, "simulate": simulate,
              "compare": compare}[stage](directory) or 0)
