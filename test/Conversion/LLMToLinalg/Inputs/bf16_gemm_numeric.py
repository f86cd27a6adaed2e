"""The prefill GEMM on bf16 weights, executed, against float64 products.

bf16_gemm_numeric.py KIND   KIND: f32 (x exact, f32 FMAs) or bf16-dot
(llm-lower-to-linalg's bf16-dot: VDPBF16PS on panels of 96 weight rows,
packed in pairs of K, with x rounded to bf16), added to
LLMC_PIPELINE_OPTIONS.

Shapes: N = 197 weight rows (two panels of 96 and 5 rows left to the f32
dot-product tiles), K = 67 (two 32-element blocks, a tail of 3, an odd last
pair) and K = 64; T = 5, 11 and 133 x rows (tiles of 4, single rows left
over, and two row blocks of at most 128); with and without a bf16 bias.
And the weights stored in interleaved groups of pairs
(`!llm.interleaved<bf16, rows = 16, columns = 2>`, read as stored): N = 208
(4 panels of 3 groups and one of a single group), K = 66 and 64, T = 5, 11
(8-row tiles and rows left over) and 133; every output of these goes through
VDPBF16PS under bf16-dot, through f32 FMAs on the widened pairs otherwise.

Bounds, per output (Σ|w·x| the magnitude, over K ≤ 67 terms):
  f32 kind, and the bf16-dot kind's columns past the last whole panel:
    1e-5 · Σ|w·x| (f32 sums in another order) + printing, against x · wᵀ;
  bf16-dot kind, the panels' columns: the same, against round_bf16(x) · wᵀ:
    each x element is rounded to nearest even (relative error up to 2^-9,
    which alone would exceed this bound), the products of two bf16 are exact
    in f32, and only their sums round.
Printing: printMemrefF32 keeps 6 significant digits (relative 5e-6).
"""
import os
import sys

KIND = sys.argv[1]
BF16_DOT = KIND == "bf16-dot"
os.environ["LLMC_PIPELINE_OPTIONS"] = " ".join(
    filter(None, [os.environ.get("LLMC_PIPELINE_OPTIONS", ""),
                  "bf16-dot=%s" % ("true" if BF16_DOT else "false")]))

import numpy as np  # noqa: E402

from llm_numeric_cases import MainBuilder, round_bf16  # noqa: E402
from llmc_numeric import run  # noqa: E402

OUTPUTS = 197
PANEL_ROWS = 96  # the AVX-512 GEMM tile's 6 vectors of 16 weight rows
PRINT_RTOL = 5e-6
F32_RTOL = 1e-5
# (K, T, bias, interleaved)
CASES = [(67, 5, False, False), (67, 11, True, False), (64, 133, False, False),
         (67, 133, True, False), (66, 5, False, True), (66, 11, True, True),
         (64, 133, True, True)]
INTERLEAVED_OUTPUTS = 208

rng = np.random.default_rng(41)


def main():
    m = MainBuilder()
    checks = []  # (name, reference, bound)
    for k, rows, with_bias, interleaved in CASES:
        outputs = INTERLEAVED_OUTPUTS if interleaved else OUTPUTS
        w = round_bf16(rng.standard_normal((outputs, k)) / np.sqrt(k))
        x = rng.standard_normal((rows, k)).astype(np.float32)
        bias = round_bf16(rng.standard_normal(outputs)) if with_bias else None
        cw, wty = (m.interleaved_constant(w, "bf16", columns=2) if interleaved
                   else m.constant(w, "bf16"))
        cx, xty = m.constant(x.reshape(1, rows, k))
        yty = "tensor<1x%dx%dxf32>" % (rows, outputs)
        if with_bias:
            cb, bty = m.constant(bias, "bf16")
            r = m.op("llm.linear %s, %s, %s : %s, %s, %s -> %s"
                     % (cx, cw, cb, xty, wty, bty, yty), yty)
        else:
            r = m.op("llm.linear %s, %s : %s, %s -> %s"
                     % (cx, cw, xty, wty, yty), yty)
        m.print(*r)
        w64 = w.astype(np.float64)
        exact = x.astype(np.float64) @ w64.T
        rounded = round_bf16(x).astype(np.float64) @ w64.T
        ref = exact.copy()
        if BF16_DOT:
            panels = outputs if interleaved else OUTPUTS // PANEL_ROWS * PANEL_ROWS
            ref[:, :panels] = rounded[:, :panels]
        if with_bias:
            ref = ref + bias
        magnitude = np.abs(x.astype(np.float64)) @ np.abs(w64).T
        bound = F32_RTOL * magnitude + PRINT_RTOL * np.abs(ref)
        label = "%sK=%d T=%d%s" % ("interleaved pairs N=208 " if interleaved
                                   else "", k, rows,
                                   " bias" if with_bias else "")
        # How far x's rounding alone moves the panels' outputs: what the
        # bound would have to absorb if x were not rounded as stated.
        spread = float(np.max(np.abs(rounded - exact) / bound))
        checks.append((label, ref.reshape(1, rows, outputs),
                       bound.reshape(1, rows, outputs), spread))
    results = run(m.module())
    if len(results) != len(checks):
        sys.exit("expected %d results, got %d" % (len(checks), len(results)))
    failed = False
    for (label, ref, bound, spread), got in zip(checks, results):
        err = np.abs(got - ref)
        worst = float(np.max(err / bound))
        ok = np.all(np.isfinite(got)) and worst <= 1.0
        print("%s: max |error| %.3g, at most %.2f of the bound (x's bf16 "
              "rounding: %.0f times it)%s"
              % (label, float(err.max()), worst, spread, "" if ok else " FAILED"))
        failed |= not ok
    sys.exit(1 if failed else 0)


main()
