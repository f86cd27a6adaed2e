"""Cases of the GPU check of the norm, embedding, RoPE, logit softcap and
sampling kernels (small-kernels-gpu.test).

  small_kernels_gpu.py generate DIR   writes the llm modules, compiles them
                                      with llmc (PTX per architecture:
                                      DIR/<module>_sm_XX.ptx), the inputs,
                                      DIR/manifest.txt (the launches, run by
                                      kernel_manifest_runner.cpp) and the
                                      expected outputs (DIR/expected.pkl)
  small_kernels_gpu.py compare DIR    compares the runner's DIR/out/*.out
                                      with them, one line per check; exit
                                      status 1 if any fails

Kernel names and grids come from llmc's kernels phase; the arguments mirror
NormKernels.cpp, EmbeddingKernels.cpp, RopeKernels.cpp, ElementwiseKernels.cpp
(the softcap after a logits projection) and the sampling ABI
(SamplingKernels.cpp). References: float64 numpy for the norms and the
softcapped logits; RoPE with
inv_freq from Hugging Face's formulas and the angle rounded to f32 as both
targets compute it; a port of runtime/src/sampler.cpp for the token ids
(exact, except the documented approximate settings, which must pick one of
the 256 most probable tokens). Embedding ids outside [0, V) must give zeros.
"""
import math
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "lib"))
from llmc_cuda_module import compile_kernels, simulate_manifest  # noqa: E402

# Tolerance of f32 results, relative to the largest reference magnitude
# (at least 1): reduction order and libdevice cos/sin/exp differ from numpy.
F32_TOLERANCE = 2e-5
# Candidates the top-k kernel keeps; wider settings are approximate.
MAX_TOP_K = 256


class Cases:
    """Accumulates the manifest, the input files and the expected outputs."""

    def __init__(self, out):
        self.out = out
        self.manifest = []
        self.expected = {}  # output file -> (kind, reference, description)

    def save(self, name, array):
        np.ascontiguousarray(array).tofile(os.path.join(self.out, name + ".bin"))
        self.manifest.append("load %s %s.bin" % (name, name))

    def alloc(self, name, nbytes):
        self.manifest.append("alloc %s %d" % (name, nbytes))

    def dump(self, name, kind, reference, description):
        self.manifest.append("dump %s %s.out" % (name, name))
        self.expected[name + ".out"] = (kind, reference, description)

    def launch(self, module, kernel, grid, block, args):
        self.manifest.append("launch %s %s %d %d %d %d %d %d"
                             % (module, kernel, *grid, *block))
        self.manifest.extend(args)
        self.manifest.append("end")

    def compile(self, text, tag):
        """Writes the module, its PTX sections and kernels-phase text (for
        the simulator); returns its launches in order as (kernel, grid,
        block) with run-time grid extents as None."""
        kernels, launches = compile_kernels(self.out, tag, text)
        open(os.path.join(self.out, tag + ".kernels.mlir"), "w").write(kernels)
        return launches


def mem(name, shape):
    return "mem %s %d %s" % (name, len(shape), " ".join(str(s) for s in shape))


def fill(grid, runtime):
    return [runtime if g is None else g for g in grid]


def bf16_bits(values):
    """f32 → bf16 bit patterns, rounded to nearest even."""
    u = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def narrow(cases, name, values, type_name):
    """Saves `values` as `type_name`; returns what the kernel reads, in f32."""
    if type_name == "bf16":
        bits = bf16_bits(values)
        cases.save(name, bits)
        return (bits.astype(np.uint32) << 16).view(np.float32)
    if type_name == "f16":
        half = values.astype(np.float16)
        cases.save(name, half)
        return half.astype(np.float32)
    cases.save(name, values)
    return values


# ------------------------------------------------------------------ norms
ROWS = 3
NORMS = [  # (op, D, weight type, bias type or None, eps[, weight_offset,
    # heads, T]): block sizes 32-1024, 1 or 2 vectors per thread, idle
    # threads, vectors of 2 (D = 6)
    ("rms_norm", 896, "bf16", None, 1e-6),
    ("layer_norm", 64, "f32", "f32", 1e-5),
    ("rms_norm", 8192, "f16", None, 1e-5),
    ("layer_norm", 8192, "f16", None, 1e-5),
    ("rms_norm", 4096, "f32", None, 1e-5),
    ("rms_norm", 6, "f32", None, 1e-5),
    ("layer_norm", 1000, "bf16", "bf16", 1e-5),
    ("rms_norm", 5000, "f32", None, 1e-6),
    # Gemma's (1 + w) RMSNorm; Qwen3's per-head q/k norm over (B, T, H, Dh)
    # with a weight of Dh, at prefill (T dynamic: T·H rows) and decode
    # (T = 1); OLMo2's norm of a whole projection (H·Dh) at decode.
    ("rms_norm", 256, "bf16", None, 1e-6, 1.0),
    ("rms_norm", 128, "bf16", None, 1e-6, 0.0, 16),
    ("rms_norm", 128, "f32", None, 1e-6, 1.0, 8, 1),
    ("rms_norm", 2048, "f32", None, 1e-6, 0.0, 1, 1),
]


def norm_case(entry):
    """(op, D, weight type, bias type, eps, weight offset, heads, T or None
    for a dynamic T of ROWS tokens) of a NORMS entry."""
    return tuple(entry) + (0.0, 1, None)[len(entry) - 5:]


def norm_type(d, heads, tokens):
    t = "?" if tokens is None else str(tokens)
    if heads == 1:
        return "tensor<1x%sx%dxf32>" % (t, d)
    return "tensor<1x%sx%dx%dxf32>" % (t, heads, d)
# ------------------------------------------------------------- embeddings
# (V, D, table type[, scale]): Gemma scales the rows by √D (in f32).
EMBEDDINGS = [(512, 64, "f32"), (1000, 896, "bf16"), (300, 4096, "f16"),
              (1000, 2304, "bf16", math.sqrt(2304.0))]


def embedding_case(entry):
    """(V, D, table type, scale or None) of an EMBEDDINGS entry."""
    return tuple(entry) + (None,)[len(entry) - 3:]
# ------------------------------------------------- softcapped logits
# Gemma-2's final_logit_softcapping on a tied head (V, D): a cap of 2 against
# logits of spread ~1.3 (x in [-1, 1], weights in [-0.5, 0.5]), so tanh
# bends most of them; decode (the GEMV) and a prefill of LOGIT_ROWS rows
# (the f32 GEMM), each followed by the in-place softcap kernel.
LOGIT_VOCAB, LOGIT_DIM, LOGIT_CAP, LOGIT_ROWS = 300, 64, 2.0, 70
# ------------------------------------------------------------------- RoPE
THETA = 10000.0
HEADS = 4
POSITIONS = np.array([0, 1, 7, 100, 2047, 3000], np.int32)
LENGTH = int(POSITIONS.max()) + 1
SCALINGS = [
    ("none", {}),
    ("linear", {"kind": "linear", "factor": 4.0}),
    ("ntk", {"kind": "ntk", "factor": 4.0}),
    ("dynamic L <= M", {"kind": "dynamic", "factor": 2.0,
                        "original_max_position_embeddings": 4096}),
    ("dynamic L > M", {"kind": "dynamic", "factor": 2.0,
                       "original_max_position_embeddings": 2048}),
    ("yarn", {"kind": "yarn", "factor": 4.0,
              "original_max_position_embeddings": 1024}),
    ("yarn attention_factor", {"kind": "yarn", "factor": 8.0,
                               "original_max_position_embeddings": 512,
                               "beta_fast": 16.0, "beta_slow": 2.0,
                               "attention_factor": 1.5}),
    ("llama3", {"kind": "llama3", "factor": 8.0,
                "original_max_position_embeddings": 512}),
    # longrope: the short table (L <= M) or the long one, default and given
    # attention factors.
    ("longrope L <= M", {"kind": "longrope", "factor": 4.0,
                         "original_max_position_embeddings": 4096,
                         "short_factor": [1.0 + 0.05 * i for i in range(32)],
                         "long_factor": [1.0 + 0.5 * i for i in range(32)]}),
    ("longrope L > M", {"kind": "longrope", "factor": 8.0,
                        "original_max_position_embeddings": 2048, "attention_factor": 1.25,
                        "short_factor": [1.0 + 0.05 * i for i in range(32)],
                        "long_factor": [1.0 + 0.5 * i for i in range(32)]}),
]
ROPES = []  # (style, name, scaling, head_dim, rotary_dim)
for style in ("half", "interleaved"):
    for name, scaling in SCALINGS:
        ROPES.append((style, name, scaling, 64, 64))
    ROPES.append((style, "none", {}, 80, 32))
    ROPES.append((style, "llama3", dict(SCALINGS)["llama3"], 80, 32))


def inverse_frequencies(d, scaling):
    """(inv_freq over i in [0, d/2) in float64, cos/sin scale)."""
    kind = scaling.get("kind", "none")
    factor = scaling.get("factor", 1.0)
    big_m = scaling.get("original_max_position_embeddings", 0)
    i = np.arange(d // 2, dtype=np.float64)
    plain = THETA ** (-2.0 * i / d)
    if kind == "none":
        return plain, 1.0
    if kind == "linear":
        return plain / factor, 1.0
    if kind == "ntk":
        return (THETA * factor ** (d / (d - 2))) ** (-2.0 * i / d), 1.0
    if kind == "dynamic":
        if LENGTH > big_m:
            theta = THETA * (factor * LENGTH / big_m - (factor - 1)) ** (d / (d - 2))
            return theta ** (-2.0 * i / d), 1.0
        return plain, 1.0
    if kind == "yarn":
        attention = scaling.get("attention_factor", 0.0)
        if attention == 0.0:
            attention = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0

        def correction_dim(rotations):
            return d * math.log(big_m / (rotations * 2 * math.pi)) / (2 * math.log(THETA))

        low = max(math.floor(correction_dim(scaling.get("beta_fast", 32.0))), 0)
        high = min(math.ceil(correction_dim(scaling.get("beta_slow", 1.0))), d - 1)
        if high == low:
            high += 0.001
        extrapolation = 1.0 - np.clip((i - low) / (high - low), 0.0, 1.0)
        return plain / factor * (1 - extrapolation) + plain * extrapolation, attention
    if kind == "llama3":
        low_ff = scaling.get("low_freq_factor", 1.0)
        high_ff = scaling.get("high_freq_factor", 4.0)
        out = []
        for f in plain:
            wavelength = 2 * math.pi / f
            if wavelength > big_m / low_ff:
                out.append(f / factor)
            elif wavelength < big_m / high_ff:
                out.append(f)
            else:
                smooth = (big_m / wavelength - low_ff) / (high_ff - low_ff)
                out.append((1 - smooth) * f / factor + smooth * f)
        return np.array(out), 1.0
    if kind == "longrope":
        ext = np.array(scaling["long_factor" if LENGTH > big_m else "short_factor"])
        attention = scaling.get("attention_factor", 0.0)
        if attention == 0.0:
            attention = math.sqrt(1 + math.log(factor) / math.log(big_m)) if factor > 1 else 1.0
        return plain / ext, attention
    raise ValueError(kind)


def rope_reference(x, style, d, scaling):
    inv, scale = inverse_frequencies(d, scaling)
    angle = (POSITIONS.astype(np.float32)[:, None]
             * inv.astype(np.float32)[None, :]).astype(np.float64)
    cos = (np.cos(angle) * np.float32(scale))[:, None, :]
    sin = (np.sin(angle) * np.float32(scale))[:, None, :]
    x = x.astype(np.float64)
    out = x.copy()
    first, second = ((slice(0, d // 2), slice(d // 2, d)) if style == "half"
                     else (slice(0, d, 2), slice(1, d, 2)))
    out[..., first] = x[..., first] * cos - x[..., second] * sin
    out[..., second] = x[..., second] * cos + x[..., first] * sin
    return out


def scaling_attribute(scaling):
    if not scaling:
        return ""
    parts = []
    for key, value in scaling.items():
        if key != "kind":
            if isinstance(value, list):
                text = "[%s]" % ", ".join("%.6e" % v for v in value)
            else:
                text = value if isinstance(value, int) else "%.6e" % value
            parts.append("%s = %s" % (key, text))
    return ", scaling = #llm.rope_%s<%s>" % (scaling["kind"], ", ".join(parts))


def ops_module():
    args, ops, results = [], [], []
    for n, entry in enumerate(NORMS):
        op, d, wt, bt, eps, offset, heads, tokens = norm_case(entry)
        ty = norm_type(d, heads, tokens)
        args += ["%%nx%d: %s" % (n, ty), "%%nw%d: tensor<%dx%s>" % (n, d, wt)]
        operands, types = "%%nx%d, %%nw%d" % (n, n), "%s, tensor<%dx%s>" % (ty, d, wt)
        if bt:
            args.append("%%nb%d: tensor<%dx%s>" % (n, d, bt))
            operands += ", %%nb%d" % n
            types += ", tensor<%dx%s>" % (d, bt)
        attrs = "eps = %.17e : f64" % eps
        if offset:
            attrs += ", weight_offset = %r : f64" % offset
        ops.append("%%n%d = llm.%s %s {%s} : %s -> %s"
                   % (n, op, operands, attrs, types, ty))
        results.append(("%%n%d" % n, ty))
    args.append("%tok: tensor<1x?xi32>")
    for n, entry in enumerate(EMBEDDINGS):
        v, d, tt, scale = embedding_case(entry)
        args.append("%%et%d: tensor<%dx%dx%s>" % (n, v, d, tt))
        attrs = "" if scale is None else " {scale = %r : f64}" % scale
        ops.append("%%e%d = llm.embedding %%tok, %%et%d%s : tensor<1x?xi32>, "
                   "tensor<%dx%dx%s> -> tensor<1x?x%dxf32>"
                   % (n, n, attrs, v, d, tt, d))
        results.append(("%%e%d" % n, "tensor<1x?x%dxf32>" % d))
    args += ["%pos: tensor<1x?xi32>", "%%rx64: tensor<1x?x%dx64xf32>" % HEADS,
             "%%rx80: tensor<1x?x%dx80xf32>" % HEADS]
    for n, (style, _, scaling, dh, rot) in enumerate(ROPES):
        ty = "tensor<1x?x%dx%dxf32>" % (HEADS, dh)
        ops.append("%%r%d = llm.rope %s %%rx%d, %%pos {theta = %.6e : f64, "
                   "rotary_dim = %d : i64%s} : %s, tensor<1x?xi32>"
                   % (n, style, dh, THETA, rot, scaling_attribute(scaling), ty))
        results.append(("%%r%d" % n, ty))
    args += ["%%lx1: tensor<1x1x%dxf32>" % LOGIT_DIM,
             "%%lxp: tensor<1x?x%dxf32>" % LOGIT_DIM,
             "%%lw: tensor<%dx%dxf32>" % (LOGIT_VOCAB, LOGIT_DIM)]
    for n, (x, t) in enumerate((("%lx1", "1"), ("%lxp", "?"))):
        ty = "tensor<1x%sx%dxf32>" % (t, LOGIT_VOCAB)
        ops.append("%%l%d = llm.logits %s, %%lw {tied, softcap = %r : f64} : "
                   "tensor<1x%sx%dxf32>, tensor<%dx%dxf32> -> %s"
                   % (n, x, LOGIT_CAP, t, LOGIT_DIM, LOGIT_VOCAB, LOGIT_DIM, ty))
        results.append(("%%l%d" % n, ty))
    types = ", ".join(t for _, t in results)
    return ("module attributes {llm.model = \"t\"} {\n"
            "  func.func private @f(%s) -> (%s) {\n    %s\n    return %s : %s\n"
            "  }\n}\n" % (", ".join(args), types, "\n    ".join(ops),
                          ", ".join(v for v, _ in results), types))


def generate_ops(cases, rng):
    launches = iter(cases.compile(ops_module(), "ops"))

    def launch(prefix, runtime, args):
        kernel, grid, block = next(launches)
        assert kernel.startswith(prefix), (kernel, prefix)
        cases.launch("ops", kernel, fill(grid, runtime), block, args)

    for n, entry in enumerate(NORMS):
        op, d, wt, bt, eps, offset, heads, tokens = norm_case(entry)
        rows = (ROWS if tokens is None else tokens) * heads
        x = rng.standard_normal((rows, d)).astype(np.float32)
        if op == "layer_norm":
            x += 3.0  # a mean far from 0
        cases.save("nx%d" % n, x)
        w = narrow(cases, "nw%d" % n, (rng.standard_normal(d) * 0.5 + 1)
                   .astype(np.float32), wt)
        xd, eps32 = x.astype(np.float64), float(np.float32(eps))
        if op == "rms_norm":
            ref = (xd / np.sqrt((xd * xd).mean(-1, keepdims=True) + eps32)
                   * (w.astype(np.float64) + offset))
        else:
            centred = xd - xd.mean(-1, keepdims=True)
            ref = centred / np.sqrt((centred ** 2).mean(-1, keepdims=True) + eps32) * w
        args = [mem("nx%d" % n, (rows, d)), mem("nw%d" % n, (d,))]
        if bt:
            ref = ref + narrow(cases, "nb%d" % n,
                               rng.standard_normal(d).astype(np.float32), bt)
            args.append(mem("nb%d" % n, (d,)))
        cases.alloc("no%d" % n, rows * d * 4)
        args += [mem("no%d" % n, (rows, d)), "f32 %.9e" % np.float32(eps)]
        if offset:
            args.append("f32 %.9e" % np.float32(offset))
        launch(op, rows, args)
        cases.dump("no%d" % n, "f32", ref,
                   "%s D=%d weight %s bias %s offset %g heads %d T %s"
                   % (op, d, wt, bt, offset, heads, tokens or "dynamic"))

    for n, entry in enumerate(EMBEDDINGS):
        v, d, tt, scale = embedding_case(entry)
        ids = np.array([0, v - 1, -1, v, 3], np.int32)  # two invalid ids
        cases.save("ids%d" % n, ids)
        table = narrow(cases, "et%d" % n,
                       rng.standard_normal((v, d)).astype(np.float32), tt)
        ref = np.array([table[i] if 0 <= i < v else np.zeros(d, np.float32)
                        for i in ids], np.float64)
        cases.alloc("eo%d" % n, len(ids) * d * 4)
        args = [mem("ids%d" % n, (len(ids),)), mem("et%d" % n, (v, d)),
                mem("eo%d" % n, (len(ids), d))]
        description = "embedding V=%d D=%d %s" % (v, d, tt)
        if scale is not None:
            # One f32 product per element: the reference is that product
            # rounded to f32, so the comparison stays exact.
            args.append("f32 %.9e" % np.float32(scale))
            ref = (ref.astype(np.float32) * np.float32(scale)).astype(np.float64)
            description += " scale %g" % scale
        launch("embedding", len(ids), args)
        cases.dump("eo%d" % n, "exact", ref, description)

    tokens = len(POSITIONS)
    cases.save("pos", POSITIONS)
    inputs = {}
    for dh in (64, 80):
        inputs[dh] = rng.standard_normal((tokens, HEADS, dh)).astype(np.float32)
        cases.save("rx%d" % dh, inputs[dh])
    for n, (style, name, scaling, dh, rot) in enumerate(ROPES):
        row = HEADS * dh
        cases.alloc("ro%d" % n, tokens * row * 4)
        args = [mem("rx%d" % dh, (tokens, row)), mem("pos", (tokens,))]
        if scaling.get("kind") in ("dynamic", "longrope"):
            cases.alloc("rt%d" % n, rot // 2 * 4)
            launch("rope_dynamic_inv_freq", None,
                   [mem("pos", (tokens,)), mem("rt%d" % n, (rot // 2,))])
            table = inverse_frequencies(rot, scaling)[0].astype(np.float32)
            cases.dump("rt%d" % n, "exact", table.astype(np.float64),
                       "rope per-call table (%s)" % name)
            args.append(mem("rt%d" % n, (rot // 2,)))
        args.append(mem("ro%d" % n, (tokens, row)))
        launch("rope_" + style, tokens, args)
        cases.dump("ro%d" % n, "f32",
                   rope_reference(inputs[dh], style, rot, scaling).reshape(tokens, row),
                   "rope %s %s head_dim %d rotary_dim %d" % (style, name, dh, rot))
    w = rng.uniform(-0.5, 0.5, (LOGIT_VOCAB, LOGIT_DIM)).astype(np.float32)
    cases.save("lw", w)
    for n, rows in enumerate((1, LOGIT_ROWS)):
        x = rng.uniform(-1, 1, (rows, LOGIT_DIM)).astype(np.float32)
        cases.save("lx%d" % n, x)
        count = rows * LOGIT_VOCAB
        cases.alloc("lo%d" % n, count * 4)
        # The projection (GEMM row tiles of 64), then the softcap in place.
        launch("gemv" if rows == 1 else "gemm", -(-rows // 64),
               [mem("lx%d" % n, (rows, LOGIT_DIM)), mem("lw", (LOGIT_VOCAB, LOGIT_DIM)),
                mem("lo%d" % n, (rows, LOGIT_VOCAB))])
        launch("softcap", -(-count // 4 // 256),
               [mem("lo%d" % n, (count,)), mem("lo%d" % n, (count,)),
                "f32 %.9e" % np.float32(LOGIT_CAP), "f32 %.9e" % np.float32(1 / LOGIT_CAP)])
        z = x.astype(np.float64) @ w.astype(np.float64).T
        cases.dump("lo%d" % n, "f32", LOGIT_CAP * np.tanh(z / LOGIT_CAP),
                   "logits softcap %g V=%d D=%d rows %d" % (LOGIT_CAP, LOGIT_VOCAB,
                                                           LOGIT_DIM, rows))
    assert next(launches, None) is None


# --------------------------------------------------------------- sampling
SAMPLING = [  # (temperature, top_k, top_p, u)
    (0.0, 0, 1.0, 0.5), (1.0, 1, 1.0, 0.5), (1.0, 0, 0.0, 0.5),  # greedy
    (1.0, 0, 1.0, 0.0), (1.0, 0, 1.0, 0.3), (1.0, 0, 1.0, 0.999),  # whole vocab
    (0.7, 1 << 20, 1.0, 0.5), (1.3, 0, 1.0, 0.77),
    (1.0, 40, 1.0, 0.1), (1.0, 40, 1.0, 0.6), (0.8, 40, 0.9, 0.3),  # top-k
    (0.8, 40, 0.9, 0.95), (1.0, 256, 0.5, 0.42), (2.0, 2, 1.0, 0.7),
    (1.0, 100, 0.95, 0.01), (0.5, 7, 0.3, 0.99), (1.0, 255, 1.0, 0.5),
    (1.0, 0, 0.9, 0.5), (1.0, 1000, 1.0, 0.5),  # approximate on V > 256
]


def probabilities(logits, temperature):
    """The host sampler's unnormalised p in f32, NaN as −inf."""
    l = np.where(np.isnan(logits), np.float32(-np.inf), logits).astype(np.float32)
    best = int(np.argmax(l))
    inv_t = np.float32(1.0) / np.float32(temperature)
    with np.errstate(invalid="ignore"):  # all −inf: the caller is greedy
        return np.exp((l - l[best]) * inv_t).astype(np.float32), best, l[best]


def host_sample(logits, temperature, top_k, top_p, u):
    """runtime/src/sampler.cpp's Sampler::sample without repetition penalty."""
    best = int(np.argmax(np.where(np.isnan(logits), np.float32(-np.inf), logits)))
    if temperature <= 0 or top_k == 1 or top_p <= 0:
        return best
    p, best, max_logit = probabilities(logits, temperature)
    if max_logit == -np.inf:
        return best
    key = lambda i: (-float(p[i]), i)
    order, n, is_sorted = list(range(len(p))), len(p), False
    if 0 < top_k < n:
        order, n, is_sorted = sorted(order, key=key), top_k, True
    total = 0.0
    for i in range(n):
        total += float(p[order[i]])
    if np.float32(top_p) < 1.0:
        if not is_sorted:
            order = sorted(order[:n], key=key)
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


def is_approximate(logits, temperature, top_k, top_p):
    """The settings SamplingKernels.cpp documents as approximate."""
    vocab = len(logits)
    if vocab <= MAX_TOP_K or temperature <= 0 or top_k == 1 or top_p <= 0:
        return False
    if not np.any(logits > -np.inf):  # nothing has any probability: greedy
        return False
    no_top_k = top_k <= 0 or top_k >= vocab
    return (not no_top_k and top_k > MAX_TOP_K) or (no_top_k and top_p < 1)


def sampling_module(vocab):
    return ("module attributes {llm.model = \"t\"} {\n"
            "  func.func private @decode(%%t: tensor<1x1xi32> {llm.input = \"tokens\"},"
            " %%w: tensor<64x%dxf32> {llm.weight = \"w\"}) -> tensor<1x1x%dxf32> {\n"
            "    %%0 = llm.embedding %%t, %%w : tensor<1x1xi32>, tensor<64x%dxf32>"
            " -> tensor<1x1x%dxf32>\n    return %%0 : tensor<1x1x%dxf32>\n  }\n}\n"
            % ((vocab,) * 5))


def generate_sampling(cases, rng):
    count = 0
    for vocab in (32000, 200):
        module = "sampling%d" % vocab
        cases.compile(sampling_module(vocab), module)
        rand = (rng.standard_normal(vocab) * 3).astype(np.float32)
        rand[5] = np.nan
        rand[17] = rand[vocab - 3] = np.nanmax(rand) + 1  # tied maxima
        ties = (np.round(rng.standard_normal(vocab) * 2) / 2).astype(np.float32)
        peaked = (rng.standard_normal(vocab) * 0.1).astype(np.float32)
        peaked[vocab // 2] = 60.0
        nothing = np.full(vocab, np.nan, np.float32)
        nothing[::3] = -np.inf
        for name, logits in (("random", rand), ("ties", ties), ("peaked", peaked),
                             ("NaN/-inf", nothing)):
            lg = "lg%d" % count
            cases.save(lg, logits)
            one = [mem(lg, (vocab,))]
            cases.alloc("am%d" % count, 4)
            cases.launch(module, "llmc_argmax_v%d" % vocab, (1, 1, 1), (1024, 1, 1),
                         one + [mem("am%d" % count, (1,))])
            cases.dump("am%d" % count, "token", host_sample(logits, 0.0, 0, 1.0, 0.0),
                       "argmax V=%d %s" % (vocab, name))
            for k, (temperature, top_k, top_p, u) in enumerate(SAMPLING):
                out = "sp%d_%d" % (count, k)
                cases.alloc(out, 4)
                cases.launch(module, "llmc_top_k_top_p_v%d" % vocab, (1, 1, 1),
                             (1024, 1, 1),
                             one + ["f32 %.9e" % temperature,
                                    "i32 %d" % min(top_k, 2 ** 31 - 1),
                                    "f32 %.9e" % top_p, "f32 %.9e" % u,
                                    mem(out, (1,))])
                description = "sample V=%d %s T=%g top_k=%d top_p=%g u=%g" % (
                    vocab, name, temperature, top_k, top_p, u)
                if is_approximate(logits, temperature, top_k, top_p):
                    p, _, _ = probabilities(logits, temperature)
                    allowed = sorted(range(vocab), key=lambda i: (-float(p[i]), i))
                    cases.dump(out, "one of", set(allowed[:MAX_TOP_K]),
                               description + " (approximate)")
                else:
                    cases.dump(out, "token",
                               host_sample(logits, temperature, top_k, top_p, u),
                               description)
            count += 1


def generate(out):
    os.makedirs(out, exist_ok=True)
    cases = Cases(out)
    rng = np.random.default_rng(7)
    generate_ops(cases, rng)
    generate_sampling(cases, rng)
    open(os.path.join(out, "manifest.txt"), "w").write("\n".join(cases.manifest) + "\n")
    pickle.dump(cases.expected, open(os.path.join(out, "expected.pkl"), "wb"))


def simulate(out):
    """Runs manifest.txt in the simulator (llmc_cuda_module's
    simulate_manifest); exit status 1 with its reports on a problem."""
    return simulate_manifest(out)


def compare(out):
    expected = pickle.load(open(os.path.join(out, "expected.pkl"), "rb"))
    failing = 0
    for name, (kind, reference, description) in expected.items():
        path = os.path.join(out, "out", name)
        if not os.path.exists(path):
            print("FAIL %s: no output" % description)
            failing += 1
            continue
        if kind in ("token", "one of"):
            token = int(np.fromfile(path, np.int32)[0])
            ok = token == reference if kind == "token" else token in reference
            shown = reference if kind == "token" else "top %d" % MAX_TOP_K
            print("%s %s: token %d (expected %s)" % ("ok  " if ok else "FAIL",
                                                     description, token, shown))
        else:
            got = np.fromfile(path, np.float32).astype(np.float64).reshape(reference.shape)
            error = float(np.max(np.abs(got - reference)))
            tolerance = 0.0 if kind == "exact" else \
                F32_TOLERANCE * max(1.0, float(np.max(np.abs(reference))))
            ok = error <= tolerance and bool(np.all(np.isfinite(got)))
            print("%s %s: max error %.3g (tolerance %.3g)"
                  % ("ok  " if ok else "FAIL", description, error, tolerance))
        failing += not ok
    print("%d failing checks of %d" % (failing, len(expected)))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit({"generate": generate, "simulate": simulate, "compare": compare}[sys.argv[1]](sys.argv[2]) or 0)
