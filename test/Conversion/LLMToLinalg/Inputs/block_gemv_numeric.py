"""Block-quantized weights in the CPU projection kernels, executed, against
float64 products on the weights as the gguf package dequantizes them.

block_gemv_numeric.py KIND   KIND: f32 (weights decoded to f32 in registers)
or an int8-dot kind of llm-lower-to-linalg (avx2, vnni: x rounded to int8
per 32 elements, per 256 for the K-quants, integer dot products), added to
LLMC_PIPELINE_OPTIONS. Each kind runs the decode GEMV (one row) and two
prefills through the GEMM (5 rows: one 4-row x tile and a row left over; 11
rows: two tiles sharing the decoded weight tile, and three left over), on
every block format with rows of two blocks (K-quants: two super-blocks) and
an odd number of outputs (1-row tiles after the multi-row ones). The int8
kinds round x in the GEMM as in the GEMV.

The blocks are random bytes (every code value occurs) with the f16 scales
set to sane magnitudes, so all of a format's bits are exercised, not only
what one quantizer produces. Bounds, per output n (with |w| the dequantized
weights):
  f32:  1e-5 · Σ|w·x| (f32 FMAs over K ≤ 512 in another order) + printing;
  int8: Σ_e |w_e| · d_b(e) · (1/2 + 1e-5) + the same, where d_b = max|x| / 127
        over x's scale block b (32 elements; a K-quant's super-block of 256,
        whose runs' integer products add up before one conversion): each x_e
        is rounded to a multiple of d_b by at most half a step, and every
        integer product is exact.
Printing: printMemrefF32 keeps 6 significant digits (relative 5e-6).
"""
import os
import sys

KIND = sys.argv[1]
INT8 = KIND != "f32"
os.environ["LLMC_PIPELINE_OPTIONS"] = " ".join(
    filter(None, [os.environ.get("LLMC_PIPELINE_OPTIONS", ""),
                  "int8-dot=%s" % (KIND if INT8 else "none")]))

import gguf  # noqa: E402
import numpy as np  # noqa: E402
from gguf import GGMLQuantizationType as Q  # noqa: E402

from llm_numeric_cases import MainBuilder  # noqa: E402
from llmc_numeric import dense, run  # noqa: E402
# (format, gguf type, byte offsets of its f16 multipliers and of its f16
# minimums/offsets)
FORMATS = [
    ("q8_0", Q.Q8_0, [0], []),
    ("q4_0", Q.Q4_0, [0], []),
    ("q4_1", Q.Q4_1, [0], [2]),
    ("q5_0", Q.Q5_0, [0], []),
    ("q5_1", Q.Q5_1, [0], [2]),
    ("q4_k", Q.Q4_K, [0], [2]),
    ("q5_k", Q.Q5_K, [0], [2]),
    ("q6_k", Q.Q6_K, [208], []),
]
ROWS_OF_BLOCKS = 2
OUTPUTS = 17
# `!llm.block<f, interleave = 8>` (the 32-element formats): 3 groups of 8
# rows; each block's header bytes (scales, 5-bit high bits) per format.
INTERLEAVE = 8
INTERLEAVED_OUTPUTS = 24
HEADER_BYTES = {"q8_0": 2, "q4_0": 2, "q4_1": 4, "q5_0": 6, "q5_1": 8}
# x rows: the decode GEMV, then prefills of one x tile (4 rows) and of two.
GEMM_ROWS = (1, 5, 11)
PRINT_RTOL = 5e-6
F32_RTOL = 1e-5

rng = np.random.default_rng(23)


def random_blocks(qtype, scale_offsets, min_offsets, outputs):
    """(raw bytes [outputs, rowBytes] as uint8, dequantized [outputs, K])."""
    block_elements, block_bytes = gguf.GGML_QUANT_SIZES[qtype]
    k = ROWS_OF_BLOCKS * block_elements
    raw = rng.integers(0, 256, size=(outputs, ROWS_OF_BLOCKS, block_bytes),
                       dtype=np.uint8)
    # Multipliers of ~1/(codes·√K) keep each output O(1); random signs.
    for offsets, magnitude in ((scale_offsets, 0.02), (min_offsets, 0.05)):
        for off in offsets:
            values = (magnitude * rng.uniform(0.5, 1.5, size=(outputs, ROWS_OF_BLOCKS))
                      * rng.choice([-1.0, 1.0], size=(outputs, ROWS_OF_BLOCKS)))
            raw[:, :, off:off + 2] = values.astype(np.float16).view(np.uint8).reshape(
                outputs, ROWS_OF_BLOCKS, 2)
    raw = raw.reshape(outputs, ROWS_OF_BLOCKS * block_bytes)
    weights = gguf.quants.dequantize(raw, qtype).astype(np.float64)
    assert weights.shape == (outputs, k), weights.shape
    return raw, weights


def interleave_rows(raw, block_bytes, header):
    """The rows of raw [N, rowBytes] in groups of INTERLEAVE rows, as the
    dialect documents the layout: per block, the group's headers row by row,
    then its codes in runs of 4 bytes, every row's run before the next."""
    n, row_bytes = raw.shape
    blocks = raw.reshape(n // INTERLEAVE, INTERLEAVE, row_bytes // block_bytes,
                         block_bytes)
    out = []
    for group in blocks:
        for b in range(group.shape[1]):
            out.append(group[:, b, :header].reshape(-1))
            codes = group[:, b, header:].reshape(INTERLEAVE, -1, 4)
            out.append(codes.transpose(1, 0, 2).reshape(-1))
    return np.concatenate(out).reshape(n, row_bytes)


def int8_step(x, scale_block):
    """Per element of x (rows [M, K]), the step of its scale block's int8
    codes."""
    blocks = x.reshape(x.shape[0], -1, scale_block)
    step = np.abs(blocks).max(axis=2, keepdims=True).astype(np.float32) / np.float32(127)
    return np.broadcast_to(step, blocks.shape).reshape(x.shape).astype(np.float64)


def main():
    m = MainBuilder()
    checks = []  # (name, reference, bound)
    cases = [(name, qtype, scale_offsets, min_offsets, False)
             for name, qtype, scale_offsets, min_offsets in FORMATS]
    cases += [(name, qtype, scale_offsets, min_offsets, True)
              for name, qtype, scale_offsets, min_offsets in FORMATS
              if name in HEADER_BYTES]
    for name, qtype, scale_offsets, min_offsets, interleaved in cases:
        outputs = INTERLEAVED_OUTPUTS if interleaved else OUTPUTS
        raw, w = random_blocks(qtype, scale_offsets, min_offsets, outputs)
        k = w.shape[1]
        # x's int8 scale blocks: a K-quant's super-block, else 32 elements.
        scale_block = 256 if name.endswith("_k") else 32
        element = name
        if interleaved:
            raw = interleave_rows(raw, gguf.GGML_QUANT_SIZES[qtype][1],
                                  HEADER_BYTES[name])
            raw = raw.reshape(outputs // INTERLEAVE, -1)
            element = "%s, interleave = %d" % (name, INTERLEAVE)
        literal, bytes_type = dense(raw.view(np.int8), "i8")
        wb = m.fresh("bytes")
        m.lines.append("  %s = arith.constant %s" % (wb, literal))
        block_type = "tensor<%dx%dx!llm.block<%s>>" % (outputs, k, element)
        wv = m.fresh("w")
        m.lines.append("  %s = builtin.unrealized_conversion_cast %s : %s to %s"
                       % (wv, wb, bytes_type, block_type))
        for rows in GEMM_ROWS:
            x = rng.standard_normal((rows, k)).astype(np.float32)
            # A scale block of zeros: its int8 scale is 0.
            x[0, :scale_block] = 0.0
            cx, xty = m.constant(x.reshape(1, rows, k))
            yty = "tensor<1x%dx%dxf32>" % (rows, outputs)
            r = m.op("llm.linear %s, %s : %s, %s -> %s"
                     % (cx, wv, xty, block_type, yty), yty)
            m.print(*r)
            x64 = x.astype(np.float64)
            ref = x64 @ w.T
            magnitude = np.abs(x64) @ np.abs(w).T
            bound = F32_RTOL * magnitude + PRINT_RTOL * np.abs(ref)
            if INT8:
                bound = bound + (int8_step(x, scale_block) * (0.5 + 1e-5)) @ np.abs(w).T
            label = "%s%s %s" % (name, " interleaved" if interleaved else "",
                                 "gemv" if rows == 1 else "gemm T=%d" % rows)
            checks.append((label, ref.reshape(1, rows, outputs),
                           bound.reshape(1, rows, outputs)))
    results = run(m.module())
    failed = False
    for (label, ref, bound), got in zip(checks, results):
        err = np.abs(got - ref)
        worst = float(np.max(err / bound))
        ok = np.all(np.isfinite(got)) and worst <= 1.0
        print("%s: max |error| %.3g, at most %.2f of the bound%s"
              % (label, float(err.max()), worst, "" if ok else " FAILED"))
        failed |= not ok
    if len(results) != len(checks):
        sys.exit("expected %d results, got %d" % (len(checks), len(results)))
    sys.exit(1 if failed else 0)


main()
