"""The fused ops' CUDA kernels in the SIMT simulator against float64 references.

Usage: simulate_fused_kernels.py <dir>

Writes a module of fused ops to <dir>: one-row projections
(llm.multi_linear with and without a norm and biases, llm.glu_linear,
llm.linear with a residual) and llm.rope_append. Compiles it with
`llmc --compile-to=kernels --target=cuda:sm_80`, runs each function's launch
in test/lib/cuda_sim.py with random inputs (grid and block from the host
code, arguments in the kernel ABI order) and compares every output with
numpy in float64. The shapes reach the paths the whole-model simulation
does not:
- GEMVs: two rows per warp (8192 weight rows or more) inside segments of
  odd sizes (the clamped second row and its guarded store at each
  segment's end), scalar loads (K = 13), outputs of mixed weight types;
- rope_append: interleaved and half pairs, partial rotary (the copied
  elements), two sequences, a position past the capacity (nothing written),
  a bf16 cache (rounded keys and values), linear scaling.
Each case prints one line; the last line says whether all passed.
"""
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "lib"))
import cuda_sim  # noqa: E402

# |kernel − reference| ≤ TOLERANCE · Σ|w · n| (+ |bias| + |residual|) + 1e-6:
# f32 accumulation over K ≤ 40 terms, x·γ and the norm's scale each rounded
# once, stays within a few ulp of the sum of magnitudes.
TOLERANCE = 1e-5
EPS = 1e-5

# (name, function text, spec) in module order.
CASES = []


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
        scaling = ", scaling = #llm.rope_scaling<kind = linear, factor = %e>" % factor
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


def rotate(x, positions, style, rotary_dim, factor):
    """RoPE of x (tokens, heads, head_dim) in float64, as llm.rope defines
    it, with the angles of the f32 frequency table the kernels read."""
    half = rotary_dim // 2
    inv = (10000.0 ** (-2.0 * np.arange(half) / rotary_dim) / factor).astype(np.float32)
    angle = (positions.astype(np.float32)[:, None] * inv[None, :]).astype(np.float32)
    cos, sin = np.cos(angle.astype(np.float64)), np.sin(angle.astype(np.float64))
    out = x.astype(np.float64).copy()
    if style == "interleaved":
        x0, x1 = x[:, :, 0:rotary_dim:2], x[:, :, 1:rotary_dim:2]
        out[:, :, 0:rotary_dim:2] = x0 * cos[:, None] - x1 * sin[:, None]
        out[:, :, 1:rotary_dim:2] = x1 * cos[:, None] + x0 * sin[:, None]
    else:
        x0, x1 = x[:, :, :half], x[:, :, half:rotary_dim]
        out[:, :, :half] = x0 * cos[:, None] - x1 * sin[:, None]
        out[:, :, half:rotary_dim] = x1 * cos[:, None] + x0 * sin[:, None]
    return out


def run_rope_append(module, kernel, grid, block, spec, rng):
    """Simulates one rope_append launch; returns (rows checked, worst error
    over the bound, rows off)."""
    (_, style, batch, tokens, heads, kv_heads, head_dim, rotary_dim, capacity,
     cache_type, factor, positions) = spec
    count = batch * tokens
    q = rng.uniform(-2, 2, (count, heads, head_dim)).astype(np.float32)
    k = rng.uniform(-2, 2, (count, kv_heads, head_dim)).astype(np.float32)
    v = rng.uniform(-2, 2, (count, kv_heads, head_dim)).astype(np.float32)
    pos = np.array(positions, np.int32).reshape(count)
    rotated = np.full((count, heads * head_dim), np.nan, np.float32)
    # The layer's keys and values, (batch·capacity) rows, poisoned.
    poison = cuda_sim.to_memory(np.full((batch * capacity, kv_heads * head_dim),
                                        np.nan, np.float32), cache_type)
    cache_k, cache_v = poison.copy(), poison.copy()
    args = [cuda_sim.memref_of(q.reshape(count, -1)), cuda_sim.memref_of(k.reshape(count, -1)),
            cuda_sim.memref_of(v.reshape(count, -1)), cuda_sim.memref_of(pos),
            cuda_sim.memref_of(rotated),
            cuda_sim.memref_of(cache_k, elem=cache_type),
            cuda_sim.memref_of(cache_v, elem=cache_type)]
    module.launch(kernel, grid=grid, block=block, args=args)
    ref_q = rotate(q, pos, style, rotary_dim, factor).reshape(count, -1)
    ref_k = rotate(k, pos, style, rotary_dim, factor).reshape(count, -1)
    checks = [(rotated, ref_q, np.abs(q).reshape(count, -1), "f32")]
    got_k = cuda_sim.from_memory(cache_k, cache_type).astype(np.float64)
    got_v = cuda_sim.from_memory(cache_v, cache_type).astype(np.float64)
    written = np.zeros(batch * capacity, bool)
    worst, bad = 0.0, 0
    for t in range(count):
        if pos[t] >= capacity:
            continue
        row = (t // tokens) * capacity + pos[t]
        written[row] = True
        checks.append((got_k[row][None], ref_k[t][None], np.abs(k[t]).reshape(1, -1),
                       cache_type))
        checks.append((got_v[row][None], v[t].reshape(1, -1).astype(np.float64),
                       np.abs(v[t]).reshape(1, -1), cache_type))
    for got, reference, magnitude, elem in checks:
        # f32: a few ulp of |x0| + |x1|; a bf16 cache: its rounding (2^-8).
        scale = 2.0 ** -8 if elem == "bf16" else TOLERANCE
        bound = scale * 2 * np.max(magnitude, axis=1, keepdims=True) + 1e-6
        error = np.abs(np.asarray(got, np.float64) - reference)
        bad += int(np.sum(~(error <= bound)))
        worst = max(worst, float(np.max(error / bound)))
    # Rows no token writes keep their poison.
    untouched = ~written
    bad += int(np.sum(~np.isnan(got_k[untouched]))) + int(np.sum(~np.isnan(got_v[untouched])))
    return len(checks), worst, bad


def main(out):
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "fused.mlir")
    open(path, "w").write('module attributes {llm.model = "t"} {\n'
                          + "".join(text for _, text, _ in CASES) + "}\n")
    kernels = subprocess.run(
        ["llmc", "--compile-to=kernels", "--target=cuda:sm_80", path],
        capture_output=True, text=True, check=True).stdout
    module = cuda_sim.Module(kernels)
    # One launch per function: kernel, grid (x from the token count when it
    # is a run-time value), block.
    launches = re.findall(
        r"gpu.launch_func\s+@llmc_kernels::@(\S+) blocks in \((%\w+), %c(\d+), %c1\) "
        r"threads in \(%c(\d+), %c1, %c1\)", kernels)
    assert len(launches) == len(CASES), launches
    rng = np.random.default_rng(5)
    failed = False
    for (name, _, spec), (kernel, grid_x, grid_y, block) in zip(CASES, launches):
        kind = spec[0]
        if kind == "rope_append":
            tokens = spec[2] * spec[3]
            grid = (int(grid_x[2:]) if re.fullmatch(r"%c\d+", grid_x) else tokens,
                    int(grid_y), 1)
            try:
                rows, worst, bad = run_rope_append(module, kernel, grid,
                                                   (int(block), 1, 1), spec, rng)
            except cuda_sim.SimError as error:
                print("%s: %s FAILED in the simulator: %s" % (name, kernel, error))
                failed = True
                continue
            status = "ok" if bad == 0 else "FAILED (%d values off)" % bad
            print("%s: %s grid=%s rows checked=%d worst error %.3f of the bound: %s"
                  % (name, kernel, grid, rows, worst, status))
            failed |= bad > 0
            continue
        grid = int(grid_x[2:])
        k = spec[1]
        x = rng.uniform(-2, 2, (1, k)).astype(np.float32)
        args = [cuda_sim.memref_of(x)]
        n_in = x.astype(np.float64)[0]
        if kind in ("multi", "glu") and spec[4 if kind == "glu" else 3]:
            norm_type = spec[4 if kind == "glu" else 3]
            gamma, gamma_mem = random_of(rng, (k,), norm_type, 1.5)
            args.append(cuda_sim.memref_of(gamma_mem, elem=norm_type))
            n_in = n_in / np.sqrt(np.mean(n_in ** 2) + EPS) * gamma
        checks = []  # (output array, reference, tolerance)
        if kind == "multi":
            _, _, outputs, _, bias_type = spec
            for n, wtype in outputs:
                w, w_mem = random_of(rng, (n, k), wtype, 0.5)
                args.append(cuda_sim.memref_of(w_mem, elem=wtype))
                bias = np.zeros(n)
                if bias_type:
                    bias, b_mem = random_of(rng, (n,), bias_type, 1.0)
                    args.append(cuda_sim.memref_of(b_mem, elem=bias_type))
                y = np.full((1, n), np.nan, np.float32)
                args.append(cuda_sim.memref_of(y))
                reference = w @ n_in + bias
                checks.append((y, reference, np.abs(w) @ np.abs(n_in) + np.abs(bias)))
        elif kind == "glu":
            _, _, n, wtype, _, activation = spec
            wg, wg_mem = random_of(rng, (n, k), wtype, 0.5)
            wu, wu_mem = random_of(rng, (n, k), wtype, 0.5)
            y = np.full((1, n), np.nan, np.float32)
            args += [cuda_sim.memref_of(wg_mem, elem=wtype),
                     cuda_sim.memref_of(wu_mem, elem=wtype), cuda_sim.memref_of(y)]
            gate, up = wg @ n_in, wu @ n_in
            magnitude = (np.abs(wg) @ np.abs(n_in)) * np.abs(up) + \
                (np.abs(wu) @ np.abs(n_in)) * np.abs(act(activation, gate))
            checks.append((y, act(activation, gate) * up, magnitude))
        else:
            _, _, n, wtype = spec
            w, w_mem = random_of(rng, (n, k), wtype, 0.5)
            h = rng.uniform(-1, 1, (1, n)).astype(np.float32)
            y = np.full((1, n), np.nan, np.float32)
            args += [cuda_sim.memref_of(w_mem, elem=wtype), cuda_sim.memref_of(h),
                     cuda_sim.memref_of(y)]
            reference = w @ n_in + h[0].astype(np.float64)
            checks.append((y, reference, np.abs(w) @ np.abs(n_in) + np.abs(h[0])))
        try:
            module.launch(kernel, grid=(grid, 1, 1), block=(int(block), 1, 1),
                          args=args)
        except cuda_sim.SimError as error:
            print("%s: %s FAILED in the simulator: %s" % (name, kernel, error))
            failed = True
            continue
        worst, bad = 0.0, 0
        for y, reference, magnitude in checks:
            error = np.abs(y[0].astype(np.float64) - reference)
            bound = TOLERANCE * magnitude + 1e-6
            bad += int(np.sum(~(error <= bound)))
            worst = max(worst, float(np.max(error / bound)))
        rows = sum(len(r) for _, r, _ in checks)
        status = "ok" if bad == 0 else "FAILED (%d rows off)" % bad
        print("%s: %s grid=%s rows=%d worst error %.3f of the bound: %s"
              % (name, kernel, grid, rows, worst, status))
        failed |= bad > 0
    print("FAILED" if failed else "all fused kernel cases passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
