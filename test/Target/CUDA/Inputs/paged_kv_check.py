"""The paged KV-cache kernels against the contiguous ones and float64 references, on a GPU or in the SIMT simulator.

Usage:
  paged_kv_check.py generate DIR   module, PTX, inputs, manifest.txt
  paged_kv_check.py simulate DIR   runs manifest.txt in test/lib/cuda_sim.py
  kernel_manifest_runner DIR       runs it on a GPU instead
  paged_kv_check.py compare DIR    one line per check, then a summary

`generate` writes a module whose functions run the same steps on a paged
cache (with a shuffled page table: pages in no order, the two sequences'
pages interleaved) and on a contiguous one, compiles it with llmc (the
kernels phase for the launches, PTX for sm_80 and sm_90) and writes random
inputs and a launch manifest (kernel_manifest_runner.cpp's format). Each
layer's keys and values are a buffer of their own (the host code's
memref.views of the cache bytes), poisoned with NaN, so that a slot written
by mistake or read before it is written shows. `compare` checks:

- chains (a two-chunk prefill through llm.rope_append and flash attention,
  then llm.kv_append of a decode token and split-K decode attention):
  * paged against contiguous, bit for bit: the rotated queries, every
    attention output, and the whole cache (the paged pool gathered
    through the table: a write to a wrong slot, or one that should have
    been skipped, differs);
  * against float64: the rotated queries and the cached keys (RoPE of the
    input, rounded to the cache's type) and values, and attention computed
    from the kernels' own queries and (gathered) cache.
- skip: llm.kv_append and llm.rope_append with positions past the capacity
  and page ids -1, 1000 and the pool size in the table: those tokens are
  not written (their pages keep their NaN), the others are.
- clamp: decode and prefill attention on a filled pool whose table holds
  the ids -3 and 1000 in the visible range: they read the last page of the
  pool (ids clamped into [0, pages - 1], unsigned), as the reference does.

The simulator also reports any access out of bounds (simulate exits 1).
"""
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "lib"))
import cuda_sim  # noqa: E402
from llmc_cuda_module import Manifest, compile_kernels, simulate_manifest  # noqa: E402
from rope_reference import rotate  # noqa: E402

MODULE = "paged"
THETA = 10000.0
# Rotated queries and f32 cache rows: a few ulp of 2 · max|x| (f32 angles,
# cos and sin); a bf16 cache row: its rounding, 2^-8 of 2 · max|x|.
ROPE_TOLERANCE = {"f32": 1e-5, "bf16": 2.0 ** -8}
# Attention from the kernels' own inputs: f32 dot products and online
# softmax over at most 147 keys stay well within 1e-5 of max|v| (the
# measured worst case is printed as a share of the bound).
ATTENTION_TOLERANCE = 1e-5

FUNCTIONS = []   # function texts, in module order
STEPS = []       # (case name, kind, spec)


def tensor(shape, elem):
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), elem)


def cache_type(c, paged):
    text = ("!llm.kv_cache<layers = 2, batch = %d, kv_heads = %d, head_dim = %d, "
            "capacity = %d, element_type = %s" % (c["batch"], c["kv_heads"], c["dim"],
                                                  c["capacity"], c["cache"]))
    if paged:
        text += ", layout = paged, page_size = %d" % c["page"]
    return text + ">"


def pages_clause(c, paged):
    if not paged:
        return ""
    return " pages(%%t : %s)" % tensor((c["batch"], c["capacity"] // c["page"]), "i32")


def attention_attrs(c):
    attrs = "causal, num_heads = %d : i64, num_kv_heads = %d : i64" % (c["heads"], c["kv_heads"])
    if c.get("window"):
        attrs += ", sliding_window = %d : i64" % c["window"]
    if c.get("softcap"):
        attrs += ", softcap = %r : f64" % c["softcap"]
    return attrs


def score_args(c):
    """The attention kernels' f32 score arguments (AttentionKernels.h's
    ScoreTransform): 1/√D, or 1/(√D · cap) and the cap."""
    scale = 1 / np.sqrt(c["dim"])
    if not c.get("softcap"):
        return [("f32", np.float32(scale))]
    return [("f32", np.float32(scale / c["softcap"])), ("f32", np.float32(c["softcap"]))]


def view_type(c):
    return tensor((c["batch"], c["capacity"], c["kv_heads"], c["dim"]), c["cache"])


def chain_function(name, c, paged):
    """Two prefill chunks (rope_append, kv_view, attention), then kv_append
    of one decode token and decode attention, all on layer 1."""
    B, H, Hkv, D = c["batch"], c["heads"], c["kv_heads"], c["dim"]
    cache, pages, view = cache_type(c, paged), pages_clause(c, paged), view_type(c)
    args = ["%%c: %s" % cache]
    if paged:
        args.append("%%t: %s" % tensor((B, c["capacity"] // c["page"]), "i32"))
    body, results = [], []
    state = "%c"
    for i, T in enumerate(c["chunks"]):
        q, kv, pos = tensor((B, T, H, D), "f32"), tensor((B, T, Hkv, D), "f32"), tensor((B, T), "i32")
        args += ["%%q%d: %s" % (i, q), "%%k%d: %s" % (i, kv), "%%v%d: %s" % (i, kv),
                 "%%p%d: %s" % (i, pos)]
        body.append("%%qr%d, %%c%d = llm.rope_append %s %s[1]%s, %%q%d, %%k%d, %%v%d, %%p%d "
                    "{theta = %e : f64, rotary_dim = %d : i64} : %s, %s, %s, %s"
                    % (i, i, c["style"], state, pages, i, i, i, i, THETA, D, cache, q, kv, pos))
        state = "%%c%d" % i
        body.append("%%kv%d:2 = llm.kv_view %s[1]%s : %s -> %s, %s" % (i, state, pages, cache, view, view))
        body.append("%%a%d = llm.attention %%qr%d, %%kv%d#0, %%kv%d#1, %%p%d {%s} : %s, %s, %s, %s -> %s"
                    % (i, i, i, i, i, attention_attrs(c), q, view, view, pos, q))
        results.append(("%%a%d" % i, q))
    kvd = tensor((B, 1, Hkv, D), c["cache"])
    qd, pd = tensor((B, 1, H, D), "f32"), tensor((B, 1), "i32")
    args += ["%%kd: %s" % kvd, "%%vd: %s" % kvd, "%%pd: %s" % pd, "%%qd: %s" % qd]
    body.append("%%cd = llm.kv_append %s[1]%s, %%kd, %%vd, %%pd : %s, %s, %s, %s"
                % (state, pages, cache, kvd, kvd, pd))
    body.append("%%kvd:2 = llm.kv_view %%cd[1]%s : %s -> %s, %s" % (pages, cache, view, view))
    body.append("%%ad = llm.attention %%qd, %%kvd#0, %%kvd#1, %%pd {%s} : %s, %s, %s, %s -> %s"
                % (attention_attrs(c), qd, view, view, pd, qd))
    results.append(("%ad", qd))
    results.append(("%cd", cache))
    return ("  func.func private @%s(%s) -> (%s) {\n    %s\n    return %s : %s\n  }\n" % (
        name, ", ".join(args), ", ".join(t for _, t in results), "\n    ".join(body),
        ", ".join(v for v, _ in results), ", ".join(t for _, t in results)))


def case_chain(name, **c):
    for paged in (True, False):
        FUNCTIONS.append(chain_function("%s_%s" % (name, "paged" if paged else "contig"), c, paged))
    STEPS.append((name, "chain", c))


def case_skip(name, **c):
    """kv_append into layer 0 and rope_append into layer 1 of a paged f32
    cache, both through one table."""
    B, T, H, Hkv, D = c["batch"], c["tokens"], c["heads"], c["kv_heads"], c["dim"]
    cache, pages = cache_type(c, True), pages_clause(c, True)
    q, kv, pos = tensor((B, T, H, D), "f32"), tensor((B, T, Hkv, D), "f32"), tensor((B, T), "i32")
    FUNCTIONS.append(
        "  func.func private @%s(%%c: %s, %%t: %s, %%q: %s, %%k: %s, %%v: %s, %%p: %s) -> (%s, %s) {\n"
        "    %%c0 = llm.kv_append %%c[0]%s, %%k, %%v, %%p : %s, %s, %s, %s\n"
        "    %%qr, %%c1 = llm.rope_append %s %%c0[1]%s, %%q, %%k, %%v, %%p "
        "{theta = %e : f64, rotary_dim = %d : i64} : %s, %s, %s, %s\n"
        "    return %%qr, %%c1 : %s, %s\n  }\n" % (
            name, cache, tensor((B, c["capacity"] // c["page"]), "i32"), q, kv, kv, pos, q, cache,
            pages, cache, kv, kv, pos, c["style"], pages, THETA, D, cache, q, kv, pos, q, cache))
    STEPS.append((name, "skip", c))


def case_clamp(name, **c):
    """Decode and prefill attention on layer 0 of a filled paged cache."""
    B, H, Hkv, D, T = c["batch"], c["heads"], c["kv_heads"], c["dim"], c["tokens"]
    cache, pages, view = cache_type(c, True), pages_clause(c, True), view_type(c)
    qd, pd = tensor((B, 1, H, D), "f32"), tensor((B, 1), "i32")
    qp, pp = tensor((B, T, H, D), "f32"), tensor((B, T), "i32")
    FUNCTIONS.append(
        "  func.func private @%s(%%c: %s, %%t: %s, %%qd: %s, %%pd: %s, %%qp: %s, %%pp: %s) -> (%s, %s) {\n"
        "    %%kv:2 = llm.kv_view %%c[0]%s : %s -> %s, %s\n"
        "    %%ad = llm.attention %%qd, %%kv#0, %%kv#1, %%pd {%s} : %s, %s, %s, %s -> %s\n"
        "    %%ap = llm.attention %%qp, %%kv#0, %%kv#1, %%pp {%s} : %s, %s, %s, %s -> %s\n"
        "    return %%ad, %%ap : %s, %s\n  }\n" % (
            name, cache, tensor((B, c["capacity"] // c["page"]), "i32"), qd, pd, qp, pp, qd, qp,
            pages, cache, view, view, attention_attrs(c), qd, view, view, pd, qd,
            attention_attrs(c), qp, view, view, pp, qp, qd, qp))
    STEPS.append((name, "clamp", c))


# f32 cache, 16-position pages: a 140-token chunk (three flash query
# blocks, keys over 9 pages) and a 6-token one, decode at 146 (two splits).
case_chain("chain_f32", cache="f32", page=16, capacity=256, batch=2, heads=4, kv_heads=2,
           dim=16, chunks=[140, 6], style="half")
# bf16 cache, 8-position pages, GQA 6/2, interleaved pairs, a sliding window
# of 12 (keys leave the window page by page).
case_chain("chain_bf16_window", cache="bf16", page=8, capacity=64, batch=2, heads=6,
           kv_heads=2, dim=32, chunks=[20, 5], style="interleaved", window=12)
# Gemma-2's softcapped scores (a cap of 1.5 against scores of spread ~1.3,
# so tanh bends most of them) with a sliding window of 6: flash attention
# over chunks of 12 and 3, split-K decode at 15.
case_chain("chain_softcap", cache="f32", page=8, capacity=32, batch=2, heads=4, kv_heads=2,
           dim=16, chunks=[12, 3], style="half", window=6, softcap=1.5)
# Writes skipped: seq 0 at 9 (id -1); seq 1 at 7 (id 1000), 12 (id 16 = the
# pool size) and 40 (past the capacity).
case_skip("skip", cache="f32", page=4, capacity=32, batch=2, heads=2, kv_heads=2, dim=8,
          tokens=4, style="half", positions=[[0, 5, 9, 31], [2, 7, 12, 40]],
          bad={(0, 2): -1, (1, 1): 1000, (1, 3): 16})
# Reads clamped: seq 1's pages 1 and 4 (ids -3 and 1000) read page 15;
# 6-position pages (not a power of two).
case_clamp("clamp", cache="bf16", page=6, capacity=48, batch=2, heads=4, kv_heads=2, dim=16,
           tokens=5, decode_positions=[40, 29], bad={(1, 1): -3, (1, 4): 1000})


def random_of(rng, shape, elem, scale):
    """(values as float64, memory array) of `elem` rounded values."""
    values = rng.uniform(-scale, scale, shape).astype(np.float32)
    rounded = cuda_sim.convert_float(values, elem)
    return rounded.astype(np.float64), np.ascontiguousarray(cuda_sim.to_memory(rounded, elem))


def shuffled_table(rng, c):
    """A permutation of the pool as (batch, pages per sequence): no page in
    order, the sequences' pages interleaved."""
    per_seq = c["capacity"] // c["page"]
    return rng.permutation(c["batch"] * per_seq).astype(np.int32).reshape(c["batch"], per_seq)


def gather(pool, table, c):
    """The logical (batch, capacity, row) view of a physical pool (pages ·
    page_size, row), page ids clamped into the pool as the kernels read."""
    page = c["page"]
    pages = pool.shape[0] // page
    ids = np.minimum(table.astype(np.int64) & 0xFFFFFFFF, pages - 1)
    rows = ids[:, np.arange(c["capacity"]) // page] * page + np.arange(c["capacity"]) % page
    return pool[rows]


def attention(q, k, v, positions, c):
    """float64 causal attention: q (B, T, H, D), k/v (B, S, Hkv, D), query
    positions (B, T); head h reads KV head h / (H / Hkv)."""
    B, T, H, D = q.shape
    group = H // c["kv_heads"]
    out = np.zeros((B, T, H, D))
    for b in range(B):
        for t in range(T):
            p = int(positions[b, t])
            begin = max(p - c["window"] + 1, 0) if c.get("window") else 0
            keys = slice(begin, min(p + 1, k.shape[1]))
            for h in range(H):
                s = k[b, keys, h // group] @ q[b, t, h] / np.sqrt(D)
                if c.get("softcap"):
                    s = c["softcap"] * np.tanh(s / c["softcap"])
                w = np.exp(s - s.max())
                out[b, t, h] = (w / w.sum()) @ v[b, keys, h // group]
    return out


def nan_output(shape):
    return np.full(shape, np.nan, np.float32)


def poison(rows, width, elem):
    return cuda_sim.to_memory(nan_output((rows, width)), elem)


class Builder:
    """Walks the launches of the compiled module in order."""

    def __init__(self, m, launches):
        self.m, self.launches = m, iter(launches)

    def launch(self, prefix, args):
        kernel, grid, block = next(self.launches)
        assert kernel.startswith(prefix), (kernel, prefix)
        assert None not in grid, (kernel, grid)
        self.m.launch(kernel, grid, block, args)
        return kernel


def generate_chain(m, b, name, c, rng, expected):
    B, H, Hkv, D, cap = c["batch"], c["heads"], c["kv_heads"], c["dim"], c["capacity"]
    row = Hkv * D
    table = shuffled_table(rng, c)
    m.buffer(name + "_table", table)
    inputs, start = [], 0
    for i, T in enumerate(c["chunks"]):
        data = {"q": rng.uniform(-2, 2, (B, T, H, D)).astype(np.float32),
                "k": rng.uniform(-2, 2, (B, T, Hkv, D)).astype(np.float32),
                "v": rng.uniform(-2, 2, (B, T, Hkv, D)).astype(np.float32),
                "p": np.tile(np.arange(start, start + T, dtype=np.int32), (B, 1))}
        for part, array in data.items():
            m.buffer("%s_%s%d" % (name, part, i), array)
        inputs.append(data)
        start += T
    kd, kd_mem = random_of(rng, (B, 1, Hkv, D), c["cache"], 2)
    vd, vd_mem = random_of(rng, (B, 1, Hkv, D), c["cache"], 2)
    qd = rng.uniform(-2, 2, (B, 1, H, D)).astype(np.float32)
    pd = np.full((B, 1), start, np.int32)
    for part, array in (("kd", kd_mem), ("vd", vd_mem), ("qd", qd), ("pd", pd)):
        m.buffer("%s_%s" % (name, part), array)
    splits = -(-cap // 128)
    outputs = {}
    for variant in ("paged", "contig"):
        paged = variant == "paged"
        pre = "%s_%s" % (name, variant)
        for half in ("ck", "cv"):
            m.buffer("%s_%s" % (pre, half), poison(B * cap, row, c["cache"]))
        kv_dims = ((B * cap // c["page"], c["page"], Hkv, D) if paged else (B, cap, Hkv, D))
        pool = [(pre + "_ck", kv_dims), (pre + "_cv", kv_dims)]
        rows = [(pre + "_ck", (B * cap, row)), (pre + "_cv", (B * cap, row))]
        table_arg = [(name + "_table", table.shape)] if paged else []
        for i, T in enumerate(c["chunks"]):
            n = B * T
            m.buffer("%s_qr%d" % (pre, i), nan_output((n, H * D)))
            m.buffer("%s_a%d" % (pre, i), nan_output((B, T, H, D)))
            b.launch("rope_append_", [
                ("%s_q%d" % (name, i), (n, H * D)), ("%s_k%d" % (name, i), (n, row)),
                ("%s_v%d" % (name, i), (n, row)), ("%s_p%d" % (name, i), (n,)),
                ("%s_qr%d" % (pre, i), (n, H * D))] + rows + table_arg)
            b.launch("attention_prefill_", [("%s_qr%d" % (pre, i), (B, T, H, D))] + pool
                     + table_arg + [("%s_p%d" % (name, i), (B, T)),
                                    ("%s_a%d" % (pre, i), (B, T, H, D))] + score_args(c))
        for part, shape in (("pm", (B, H, splits)), ("ps", (B, H, splits)),
                            ("pa", (B, H, splits, D)), ("ad", (B, 1, H, D))):
            m.buffer("%s_%s" % (pre, part), nan_output(shape))
        b.launch("kv_append_", [(name + "_kd", (B, row)), (name + "_vd", (B, row)),
                                (name + "_pd", (B,))] + rows + table_arg)
        partials = [(pre + "_pm", (B, H, splits)), (pre + "_ps", (B, H, splits)),
                    (pre + "_pa", (B, H, splits, D))]
        b.launch("attention_decode_", [(name + "_qd", (B, 1, H, D))] + pool + table_arg
                 + [(name + "_pd", (B, 1))] + partials + score_args(c))
        b.launch("attention_decode_combine_", [(name + "_pd", (B, 1))] + partials
                 + [(pre + "_ad", (B, 1, H, D))])
        dumps = ["%s_qr%d" % (pre, i) for i in range(len(c["chunks"]))]
        dumps += ["%s_a%d" % (pre, i) for i in range(len(c["chunks"]))]
        dumps += [pre + "_ad", pre + "_ck", pre + "_cv"]
        for dump in dumps:
            m.dump(dump)
        outputs[variant] = dumps
    expected.append((name, "chain", c, {"table": table, "inputs": inputs, "kd": kd, "vd": vd,
                                        "qd": qd, "pd": pd, "outputs": outputs}))


def generate_skip(m, b, name, c, rng, expected):
    B, T, H, Hkv, D, cap = c["batch"], c["tokens"], c["heads"], c["kv_heads"], c["dim"], c["capacity"]
    row = Hkv * D
    table = shuffled_table(rng, c)
    for (seq, column), page in c["bad"].items():
        table[seq, column] = page
    q = rng.uniform(-2, 2, (B * T, H * D)).astype(np.float32)
    k = rng.uniform(-2, 2, (B * T, row)).astype(np.float32)
    v = rng.uniform(-2, 2, (B * T, row)).astype(np.float32)
    pos = np.array(c["positions"], np.int32).reshape(B * T)
    for part, array in (("table", table), ("q", q), ("k", k), ("v", v), ("p", pos)):
        m.buffer("%s_%s" % (name, part), array)
    m.buffer(name + "_qr", nan_output((B * T, H * D)))
    for buffer in ("ck0", "cv0", "ck1", "cv1"):
        m.buffer("%s_%s" % (name, buffer), poison(B * cap, row, c["cache"]))
    rows = [(name + "_ck0", (B * cap, row)), (name + "_cv0", (B * cap, row))]
    b.launch("kv_append_", [(name + "_k", (B * T, row)), (name + "_v", (B * T, row)),
                            (name + "_p", (B * T,))] + rows + [(name + "_table", table.shape)])
    b.launch("rope_append_", [(name + "_q", (B * T, H * D)), (name + "_k", (B * T, row)),
                              (name + "_v", (B * T, row)), (name + "_p", (B * T,)),
                              (name + "_qr", (B * T, H * D)),
                              (name + "_ck1", (B * cap, row)), (name + "_cv1", (B * cap, row)),
                              (name + "_table", table.shape)])
    for buffer in ("qr", "ck0", "cv0", "ck1", "cv1"):
        m.dump("%s_%s" % (name, buffer))
    expected.append((name, "skip", c, {"table": table, "q": q, "k": k, "v": v, "p": pos}))


def generate_clamp(m, b, name, c, rng, expected):
    B, T, H, Hkv, D, cap = c["batch"], c["tokens"], c["heads"], c["kv_heads"], c["dim"], c["capacity"]
    row = Hkv * D
    table = shuffled_table(rng, c)
    for (seq, column), page in c["bad"].items():
        table[seq, column] = page
    ck, ck_mem = random_of(rng, (B * cap, row), c["cache"], 2)
    cv, cv_mem = random_of(rng, (B * cap, row), c["cache"], 2)
    qd = rng.uniform(-2, 2, (B, 1, H, D)).astype(np.float32)
    pd = np.array(c["decode_positions"], np.int32).reshape(B, 1)
    qp = rng.uniform(-2, 2, (B, T, H, D)).astype(np.float32)
    pp = (pd - T + 1 + np.arange(T, dtype=np.int32)[None, :]).astype(np.int32)
    for part, array in (("table", table), ("ck", ck_mem), ("cv", cv_mem), ("qd", qd), ("pd", pd),
                        ("qp", qp), ("pp", pp)):
        m.buffer("%s_%s" % (name, part), array)
    splits = -(-cap // 128)
    for part, shape in (("pm", (B, H, splits)), ("ps", (B, H, splits)),
                        ("pa", (B, H, splits, D)), ("ad", (B, 1, H, D)), ("ap", (B, T, H, D))):
        m.buffer("%s_%s" % (name, part), nan_output(shape))
    pool_dims = (B * cap // c["page"], c["page"], Hkv, D)
    pool = [(name + "_ck", pool_dims), (name + "_cv", pool_dims), (name + "_table", table.shape)]
    partials = [(name + "_pm", (B, H, splits)), (name + "_ps", (B, H, splits)),
                (name + "_pa", (B, H, splits, D))]
    b.launch("attention_decode_", [(name + "_qd", (B, 1, H, D))] + pool
             + [(name + "_pd", (B, 1))] + partials + score_args(c))
    b.launch("attention_decode_combine_", [(name + "_pd", (B, 1))] + partials
             + [(name + "_ad", (B, 1, H, D))])
    b.launch("attention_prefill_", [(name + "_qp", (B, T, H, D))] + pool
             + [(name + "_pp", (B, T)), (name + "_ap", (B, T, H, D))] + score_args(c))
    m.dump(name + "_ad")
    m.dump(name + "_ap")
    expected.append((name, "clamp", c, {"table": table, "ck": ck, "cv": cv, "qd": qd, "pd": pd,
                                        "qp": qp, "pp": pp}))


def generate(out):
    os.makedirs(out, exist_ok=True)
    kernels, launches = compile_kernels(
        out, MODULE, 'module attributes {llm.model = "t"} {\n' + "".join(FUNCTIONS) + "}\n")
    open(os.path.join(out, MODULE + ".kernels.mlir"), "w").write(kernels)
    rng = np.random.default_rng(11)
    m, expected = Manifest(out, MODULE), []
    builder = Builder(m, launches)
    for name, kind, c in STEPS:
        {"chain": generate_chain, "skip": generate_skip, "clamp": generate_clamp}[kind](
            m, builder, name, c, rng, expected)
    assert next(builder.launches, None) is None, "launches left over"
    m.save()
    pickle.dump(expected, open(os.path.join(out, "expected.pkl"), "wb"))


def simulate(out):
    return simulate_manifest(out, MODULE)


class Report:
    def __init__(self):
        self.failing = self.total = 0

    def check(self, what, ok, detail):
        self.total += 1
        self.failing += not ok
        print("%s: %s: %s" % (what, detail, "ok" if ok else "FAIL"))

    def bounded(self, what, got, reference, bound):
        """|got - reference| <= bound everywhere (NaN fails)."""
        error = np.abs(got - reference)
        bad = int(np.sum(~(error <= bound)))
        worst = float(np.max(error / bound)) if error.size else 0.0
        self.check(what, bad == 0, "max |diff| %.3g, worst %.3f of the bound%s" % (
            float(np.nanmax(error)) if error.size else 0.0, worst,
            "" if bad == 0 else " (%d values off)" % bad))


def read(out, buffer, elem, shape):
    raw = np.fromfile(os.path.join(out, "out", buffer + ".out"), cuda_sim.ELEMENTS[elem][1])
    return raw, cuda_sim.from_memory(raw, elem).astype(np.float64).reshape(shape)


def rope_bound(x, elem):
    return ROPE_TOLERANCE[elem] * 2 * np.max(np.abs(x), axis=-1, keepdims=True) + 1e-6


def attention_bound(v):
    return ATTENTION_TOLERANCE * np.max(np.abs(v)) + 1e-6


def compare_chain(out, r, name, c, e):
    B, H, Hkv, D, cap = c["batch"], c["heads"], c["kv_heads"], c["dim"], c["capacity"]
    row = Hkv * D
    table = e["table"]
    paged, contig = e["outputs"]["paged"], e["outputs"]["contig"]
    # Paged against contiguous, bit for bit.
    identical, differing = 0, []
    for p_name, c_name in zip(paged, contig):
        if p_name.endswith(("_ck", "_cv")):
            p_raw, _ = read(out, p_name, c["cache"], (B * cap, row))
            c_raw, _ = read(out, c_name, c["cache"], (B * cap, row))
            p_raw = gather(p_raw.reshape(B * cap, row), table, c).reshape(-1)
        else:
            p_raw = np.fromfile(os.path.join(out, "out", p_name + ".out"), np.uint32)
            c_raw = np.fromfile(os.path.join(out, "out", c_name + ".out"), np.uint32)
        if np.array_equal(p_raw.view(np.uint8), c_raw.view(np.uint8)):
            identical += 1
        else:
            differing.append(p_name)
    r.check(name + " paged vs contiguous", not differing,
            "%d of %d buffers bit-identical (cache gathered through the table)%s" % (
                identical, len(paged), "; differ: " + ", ".join(differing) if differing else ""))
    # Rotated queries and the cache against float64.
    _, ck = read(out, name + "_paged_ck", c["cache"], (B * cap, row))
    _, cv = read(out, name + "_paged_cv", c["cache"], (B * cap, row))
    keys, values = gather(ck, table, c), gather(cv, table, c)
    written = 0
    for i, data in enumerate(e["inputs"]):
        T = data["q"].shape[1]
        pos = data["p"].reshape(-1)
        _, qr = read(out, "%s_paged_qr%d" % (name, i), "f32", (B * T, H * D))
        q = data["q"].reshape(B * T, H, D)
        r.bounded("%s chunk %d rotated queries" % (name, i), qr,
                  rotate(q, pos, c["style"], D, THETA).reshape(B * T, -1),
                  rope_bound(q.reshape(B * T, -1), "f32"))
        k = data["k"].reshape(B * T, Hkv, D)
        v = data["v"].reshape(B * T, -1)
        ref_k = rotate(k, pos, c["style"], D, THETA).reshape(B * T, -1)
        got_k = keys[np.arange(B * T) // T, pos]
        got_v = values[np.arange(B * T) // T, pos]
        r.bounded("%s chunk %d cached keys" % (name, i), got_k, ref_k,
                  rope_bound(k.reshape(B * T, -1), c["cache"]))
        r.bounded("%s chunk %d cached values" % (name, i), got_v, v.astype(np.float64),
                  rope_bound(v, c["cache"]))
        written += B * T
        _, a = read(out, "%s_paged_a%d" % (name, i), "f32", (B, T, H, D))
        k4, v4 = keys.reshape(B, cap, Hkv, D), values.reshape(B, cap, Hkv, D)
        r.bounded("%s chunk %d prefill attention (%d queries)" % (name, i, T), a,
                  attention(qr.reshape(B, T, H, D), k4, v4, data["p"], c), attention_bound(v))
    pd = e["pd"]
    got_kd = keys[np.arange(B), pd[:, 0]]
    got_vd = values[np.arange(B), pd[:, 0]]
    r.check(name + " decode token appended", np.array_equal(got_kd, e["kd"].reshape(B, -1))
            and np.array_equal(got_vd, e["vd"].reshape(B, -1)),
            "rows at position %d equal the inputs" % pd[0, 0])
    _, ad = read(out, name + "_paged_ad", "f32", (B, 1, H, D))
    r.bounded("%s decode attention at %d" % (name, pd[0, 0]), ad,
              attention(e["qd"].astype(np.float64), keys.reshape(B, cap, Hkv, D),
                        values.reshape(B, cap, Hkv, D), pd, c),
              attention_bound(values[:, :pd[0, 0] + 1]))
    unwritten = np.ones((B, cap), bool)
    unwritten[:, :pd[0, 0] + 1] = False
    r.check(name + " unwritten slots", bool(np.all(np.isnan(keys[unwritten])))
            and bool(np.all(np.isnan(values[unwritten]))),
            "%d logical rows past the written positions keep their NaN" % int(unwritten.sum()))


def compare_skip(out, r, name, c, e):
    B, T, H, Hkv, D, cap = c["batch"], c["tokens"], c["heads"], c["kv_heads"], c["dim"], c["capacity"]
    row, page = Hkv * D, c["page"]
    pool_pages = B * cap // page
    table, pos = e["table"], e["p"]
    rows = {}
    for t in range(B * T):
        seq, p = t // T, int(pos[t])
        if p >= cap:
            continue
        page_id = int(table[seq, p // page])
        if 0 <= page_id < pool_pages:
            rows[t] = page_id * page + p % page
    _, qr = read(out, name + "_qr", "f32", (B * T, H * D))
    q = e["q"].reshape(B * T, H, D)
    r.bounded(name + " rotated queries (every token)", qr,
              rotate(q, pos, c["style"], D, THETA).reshape(B * T, -1), rope_bound(e["q"], "f32"))
    k = e["k"].reshape(B * T, Hkv, D)
    ref_rotated = rotate(k, pos, c["style"], D, THETA).reshape(B * T, -1)
    for layer, ref_k in ((0, e["k"].astype(np.float64)), (1, ref_rotated)):
        _, ck = read(out, "%s_ck%d" % (name, layer), c["cache"], (B * cap, row))
        _, cv = read(out, "%s_cv%d" % (name, layer), c["cache"], (B * cap, row))
        tokens = sorted(rows)
        physical = [rows[t] for t in tokens]
        r.bounded("%s layer %d written keys" % (name, layer), ck[physical], ref_k[tokens],
                  rope_bound(e["k"][tokens], c["cache"]))
        r.bounded("%s layer %d written values" % (name, layer), cv[physical],
                  e["v"][tokens].astype(np.float64), rope_bound(e["v"][tokens], c["cache"]))
        rest = np.ones(B * cap, bool)
        rest[physical] = False
        r.check("%s layer %d skipped tokens" % (name, layer),
                bool(np.all(np.isnan(ck[rest]))) and bool(np.all(np.isnan(cv[rest]))),
                "%d of %d tokens written, the other %d pool rows keep their NaN" % (
                    len(tokens), B * T, int(rest.sum())))


def compare_clamp(out, r, name, c, e):
    B, T, H, Hkv, D, cap = c["batch"], c["tokens"], c["heads"], c["kv_heads"], c["dim"], c["capacity"]
    keys = gather(e["ck"], e["table"], c).reshape(B, cap, Hkv, D)
    values = gather(e["cv"], e["table"], c).reshape(B, cap, Hkv, D)
    _, ad = read(out, name + "_ad", "f32", (B, 1, H, D))
    _, ap = read(out, name + "_ap", "f32", (B, T, H, D))
    r.bounded(name + " decode attention through clamped ids", ad,
              attention(e["qd"].astype(np.float64), keys, values, e["pd"], c),
              attention_bound(values))
    r.bounded(name + " prefill attention through clamped ids", ap,
              attention(e["qp"].astype(np.float64), keys, values, e["pp"], c),
              attention_bound(values))


def compare(out):
    r = Report()
    for name, kind, c, e in pickle.load(open(os.path.join(out, "expected.pkl"), "rb")):
        {"chain": compare_chain, "skip": compare_skip, "clamp": compare_clamp}[kind](
            out, r, name, c, e)
    print("%d failing checks of %d" % (r.failing, r.total))
    return 1 if r.failing else 0


if __name__ == "__main__":
    stage, directory = sys.argv[1], sys.argv[2]
    sys.exit({"generate": generate, "simulate": simulate,
              "compare": compare}[stage](directory) or 0)
