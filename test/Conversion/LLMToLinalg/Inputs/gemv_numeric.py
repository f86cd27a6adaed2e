"""The vector projection kernels (GEMV for one row, register-tiled for more)
executed with OpenMP threads against numpy: K and N that do not fill a vector
or a row block, bias, bf16 weights, logits, dynamic token counts, the
packed-panel GEMM with its K blocks and row blocks, and weights stored in
interleaved groups of 16 rows (`!llm.interleaved<t, rows = 16>`)."""
import numpy as np

from llm_numeric_cases import MainBuilder, check_all, round_bf16
from llmc_numeric import run

rng = np.random.default_rng(11)
checks = []
m = MainBuilder()


def weights(n, k, dtype):
    # 1/√K keeps the outputs O(1), so the absolute tolerance means the same
    # for every K.
    w = (rng.standard_normal((n, k)) / np.sqrt(k)).astype(np.float32)
    if dtype == "f16":
        return w.astype(np.float16).astype(np.float32)
    return round_bf16(w) if dtype == "bf16" else w


def reference(x, w, b=None):
    out = x.astype(np.float64) @ w.astype(np.float64).T
    return out if b is None else out + b


def projection(name, lead, k, n, wtype="f32", bias=False, op="llm.linear",
               dynamic=False, interleaved=False, columns=1):
    """`columns` > 1: interleaved bf16 runs of that many columns."""
    x = rng.standard_normal(tuple(lead) + (k,)).astype(np.float32)
    w = weights(n, k, wtype)
    b = rng.standard_normal(n).astype(np.float32) if bias else None
    cw, wty = (m.interleaved_constant(w, wtype, columns) if interleaved
               else m.constant(w, wtype))
    cx, xty = m.constant(x)
    yty = "tensor<%sxf32>" % "x".join(str(d) for d in tuple(lead) + (n,))
    operands, types = [cx, cw], [xty, wty]
    if bias:
        cb, bty = m.constant(b)
        operands.append(cb)
        types.append(bty)
    if dynamic:  # the token (second) dimension only known at run time
        xdyn = "tensor<%dx?x%dxf32>" % (lead[0], k)
        ydyn = "tensor<%dx?x%dxf32>" % (lead[0], n)
        operands[0], _ = m.cast(cx, xty, xdyn)
        types[0] = xdyn
        r = m.op("%s %s : %s -> %s" % (op, ", ".join(operands),
                                       ", ".join(types), ydyn), ydyn)
        m.print(*m.cast(r[0], ydyn, yty))
    else:
        r = m.op("%s %s : %s -> %s" % (op, ", ".join(operands),
                                       ", ".join(types), yty), yty)
        m.print(*r)
    checks.append((name, reference(x, w, b)))


# Decode (one row): K = 16·q + r, N = 2·p + 1.
projection("gemv K tail N tail bias", [1, 1], 37, 7, bias=True)
projection("gemv K < vector", [1, 1], 5, 3)
projection("gemv exact blocks", [1, 1], 64, 32)
projection("gemv bf16 K tail", [1, 1], 100, 9, wtype="bf16", bias=True)
projection("gemv rank-2 input", [1], 48, 5, bias=True)
# f16 rows in two FMA chains (AVX-512): K = 88 = 2 double steps + one step
# + a masked 8; K = 96 = 3 double steps and nothing left.
projection("gemv f16 two chains K tail", [1, 1], 88, 7, wtype="f16", bias=True)
projection("gemv f16 two chains exact", [1, 1], 96, 6, wtype="f16")
projection("gemv logits", [1, 1], 45, 51, op="llm.logits")
projection("gemv logits bf16", [1, 1], 64, 40, wtype="bf16", op="llm.logits")
# Prefill (several rows): T % 4 leftover tokens, N % 2 (AVX-512 tile) or
# N % 3 (AVX2 tile) leftover rows, K % 16 or K % 8 leftover columns.
projection("gemm dynamic T=7 tails bias", [1, 7], 37, 7, bias=True,
           dynamic=True)
projection("gemm dynamic T=1", [1, 1], 40, 6, dynamic=True)
projection("gemm static 2x5 bf16", [2, 5], 33, 11, wtype="bf16", bias=True)
projection("gemm logits T=8", [1, 8], 64, 30, op="llm.logits", dynamic=True)
projection("gemm dynamic T=13 N%3=2 K<16", [1, 13], 13, 14, bias=True,
           dynamic=True)
projection("gemm f16 T=6 K%8=0", [1, 6], 24, 9, wtype="f16", dynamic=True)
# The packed-panel GEMM (panels of 12 rows for SSE, 24 for AVX2, 96 for
# AVX-512) with the rows below a panel left to the dot-product tiles: two
# blocks of x rows (128 + 5, a 1-row tail in the second), K in several
# blocks of panel (at most 256 KiB each: 2 of 1371 and 1370 for AVX2, 5
# for AVX-512) with a tail below a vector, a bias; 16-bit weights.
projection("gemm packed T=133 K=2741 N=101 bias", [1, 133], 2741, 101,
           bias=True, dynamic=True)
projection("gemm packed bf16 T=9 K=37 N=99", [1, 9], 37, 99, wtype="bf16",
           bias=True)
projection("gemm packed f16 T=6 K=64 N=192", [1, 6], 64, 192, wtype="f16",
           dynamic=True)

# Interleaved groups of 16 rows. Decode: K = 37 (9 steps of the 4 chains and
# one column left), K = 64 (no column left); f32, bf16 and f16 elements.
# Prefill: panels of 3 groups (AVX-512's 8 x 3 tiles; AVX2's are 6 x 1) and
# the groups below a panel, 8-row tiles and rows left below a tile, two
# blocks of x rows (128 + 5) and K in several blocks of the panel.
projection("gemv interleaved f16 K=37 N=48 bias", [1, 1], 37, 48, "f16",
           bias=True, interleaved=True)
projection("gemv interleaved bf16 K=64 N=16", [1, 1], 64, 16, "bf16",
           interleaved=True)
projection("gemv interleaved f32 logits K=20 N=32", [1, 1], 20, 32, "f32",
           op="llm.logits", interleaved=True)
projection("gemm interleaved f16 T=13 K=37 N=80 bias", [1, 13], 37, 80, "f16",
           bias=True, dynamic=True, interleaved=True)
projection("gemm interleaved f16 T=133 K=2741 N=64", [1, 133], 2741, 64, "f16",
           dynamic=True, interleaved=True)
projection("gemm interleaved bf16 static 2x5 K=33 N=32 bias", [2, 5], 33, 32,
           "bf16", bias=True, interleaved=True)
# bf16 in pairs of columns (`columns = 2`): the GEMV's 4 chains over K = 66
# leave one run to the tail loop, K = 64 none; the GEMM's K steps are runs
# (f32 FMAs here: no bf16-dot), 133 rows over K = 2742 in K blocks.
projection("gemv interleaved bf16 pairs K=66 N=48 bias", [1, 1], 66, 48,
           "bf16", bias=True, interleaved=True, columns=2)
projection("gemv interleaved bf16 pairs logits K=64 N=32", [1, 1], 64, 32,
           "bf16", op="llm.logits", interleaved=True, columns=2)
projection("gemm interleaved bf16 pairs T=13 K=38 N=80 bias", [1, 13], 38, 80,
           "bf16", bias=True, dynamic=True, interleaved=True, columns=2)
projection("gemm interleaved bf16 pairs T=133 K=2742 N=64", [1, 133], 2742,
           64, "bf16", dynamic=True, interleaved=True, columns=2)

check_all(checks, run(m.module()))
