"""llm.rms_norm (f32 and bf16 weights, static and dynamic T, Gemma's weight
offset, per-head and decode shapes) and llm.layer_norm (with and without
bias) against numpy."""
import numpy as np

from llm_numeric_cases import MainBuilder, check_all, round_bf16
from llmc_numeric import run

rng = np.random.default_rng(2024)
B, T, D = 2, 3, 64
EPS = 1e-5
# An eps large enough against mean(x²) ≈ 4 for its handling to show.
LARGE_EPS = 0.5
# A mean offset and spread so that layer_norm's centring matters.
OFFSET, SPREAD = 0.5, 2.0

x = (rng.standard_normal((B, T, D)) * SPREAD + OFFSET).astype(np.float32)
w = (rng.standard_normal(D) * 0.5 + 1.0).astype(np.float32)
w_bf16 = round_bf16(w)
bias = rng.standard_normal(D).astype(np.float32)


def rms_norm(x, w, eps=EPS, offset=0.0):
    x = x.astype(np.float64)
    w = w.astype(np.float64) + offset
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def layer_norm(x, w, b=None, eps=EPS):
    x = x.astype(np.float64)
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=-1, keepdims=True)
    out = (x - mean) / np.sqrt(var + eps) * w
    return out if b is None else out + b


m = MainBuilder()
cx, xty = m.constant(x)
cw, wty = m.constant(w)
cwb, wbty = m.constant(w_bf16, "bf16")
cbias, bty = m.constant(bias)
attrs = "{eps = %.6e : f64}" % EPS
checks = []

r = m.op("llm.rms_norm %s, %s %s : %s, %s -> %s"
         % (cx, cw, attrs, xty, wty, xty), xty)
m.print(*r)
checks.append(("rms_norm f32 weight", rms_norm(x, w)))

r = m.op("llm.rms_norm %s, %s %s : %s, %s -> %s"
         % (cx, cwb, attrs, xty, wbty, xty), xty)
m.print(*r)
checks.append(("rms_norm bf16 weight", rms_norm(x, w_bf16)))

dyn = "tensor<%dx?x%dxf32>" % (B, D)
dx, _ = m.cast(cx, xty, dyn)
r = m.op("llm.rms_norm %s, %s %s : %s, %s -> %s"
         % (dx, cw, attrs, dyn, wty, dyn), dyn)
m.print(*m.cast(r[0], dyn, xty))
checks.append(("rms_norm dynamic T", rms_norm(x, w)))

r = m.op("llm.layer_norm %s, %s, %s %s : %s, %s, %s -> %s"
         % (cx, cw, cbias, attrs, xty, wty, bty, xty), xty)
m.print(*r)
checks.append(("layer_norm bias", layer_norm(x, w, bias)))

r = m.op("llm.layer_norm %s, %s %s : %s, %s -> %s"
         % (cx, cw, attrs, xty, wty, xty), xty)
m.print(*r)
checks.append(("layer_norm no bias", layer_norm(x, w)))

r = m.op("llm.layer_norm %s, %s %s : %s, %s -> %s"
         % (dx, cwb, attrs, dyn, wbty, dyn), dyn)
m.print(*m.cast(r[0], dyn, xty))
checks.append(("layer_norm bf16 weight dynamic T", layer_norm(x, w_bf16)))

big = "{eps = %.6e : f64}" % LARGE_EPS
r = m.op("llm.rms_norm %s, %s %s : %s, %s -> %s"
         % (cx, cw, big, xty, wty, xty), xty)
m.print(*r)
checks.append(("rms_norm large eps", rms_norm(x, w, eps=LARGE_EPS)))

r = m.op("llm.layer_norm %s, %s, %s %s : %s, %s, %s -> %s"
         % (cx, cw, cbias, big, xty, wty, bty, xty), xty)
m.print(*r)
checks.append(("layer_norm large eps",
               layer_norm(x, w, bias, eps=LARGE_EPS)))

# Gemma's (1 + w): a stored weight near 0 (HF stores w − 1), offset 1.
w_gemma = (rng.standard_normal(D) * 0.2).astype(np.float32)
cwg, _ = m.constant(w_gemma)
gemma = "{eps = %.6e : f64, weight_offset = 1.0 : f64}" % EPS
r = m.op("llm.rms_norm %s, %s %s : %s, %s -> %s"
         % (dx, cwg, gemma, dyn, wty, dyn), dyn)
m.print(*m.cast(r[0], dyn, xty))
checks.append(("rms_norm weight offset 1 dynamic T",
               rms_norm(x, w_gemma, offset=1.0)))
cwgb, _ = m.constant(round_bf16(w_gemma), "bf16")
r = m.op("llm.rms_norm %s, %s %s : %s, %s -> %s"
         % (cx, cwgb, gemma, xty, wbty, xty), xty)
m.print(*r)
checks.append(("rms_norm weight offset 1 bf16 weight",
               rms_norm(x, round_bf16(w_gemma), offset=1.0)))

# Qwen3's per-head q/k norm: (B, T, H, Dh) over Dh, a weight of Dh; prefill
# (dynamic T) and decode (T = 1).
H, DH = 4, 16
xh = x.reshape(B, T, H, DH)
wh = (rng.standard_normal(DH) * 0.5 + 1.0).astype(np.float32)
cxh, xhty = m.constant(xh)
cwh, whty = m.constant(wh)
dynh = "tensor<%dx?x%dx%dxf32>" % (B, H, DH)
dxh, _ = m.cast(cxh, xhty, dynh)
r = m.op("llm.rms_norm %s, %s %s : %s, %s -> %s"
         % (dxh, cwh, attrs, dynh, whty, dynh), dynh)
m.print(*m.cast(r[0], dynh, xhty))
checks.append(("rms_norm per head dynamic T", rms_norm(xh, wh)))
cxh1, xh1ty = m.constant(xh[:, :1])
r = m.op("llm.rms_norm %s, %s %s : %s, %s -> %s"
         % (cxh1, cwh, attrs, xh1ty, whty, xh1ty), xh1ty)
m.print(*r)
checks.append(("rms_norm per head decode", rms_norm(xh[:, :1], wh)))

# OLMo2's norm of a whole projection at decode: (B, 1, H·Dh), weight H·Dh.
cx1, x1ty = m.constant(x[:, :1])
r = m.op("llm.rms_norm %s, %s %s : %s, %s -> %s"
         % (cx1, cw, attrs, x1ty, wty, x1ty), x1ty)
m.print(*r)
checks.append(("rms_norm whole projection decode", rms_norm(x[:, :1], w)))

check_all(checks, run(m.module()))
