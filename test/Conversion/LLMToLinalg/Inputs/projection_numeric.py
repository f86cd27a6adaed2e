"""llm.linear (with/without bias, f32/bf16 weights, dynamic T, enough rows for
several of the GEMM's cache blocks), llm.logits (softcapped too, through the
GEMM, the GEMV and the generic contraction) and llm.embedding (f32 and bf16
tables, scaled too) against numpy."""
import numpy as np

from llm_numeric_cases import MainBuilder, check_all, round_bf16
from llmc_numeric import run

rng = np.random.default_rng(7)
B, T, K, N, V = 2, 3, 32, 24, 40
# Weights scaled by 1/√K keep the outputs O(1).
W_SCALE = 1.0 / np.sqrt(K)

x = rng.standard_normal((B, T, K)).astype(np.float32)
w = (rng.standard_normal((N, K)) * W_SCALE).astype(np.float32)
w_bf16 = round_bf16(w)
bias = rng.standard_normal(N).astype(np.float32)
bias_bf16 = round_bf16(bias)
head = (rng.standard_normal((V, K)) * W_SCALE).astype(np.float32)
table = rng.standard_normal((V, K)).astype(np.float32)
table_bf16 = round_bf16(table)
tokens = rng.integers(0, V, size=(B, T)).astype(np.int32)
tokens[0, 0], tokens[1, 2] = 0, V - 1  # both ends of the table


def linear(x, w, b=None):
    out = x.astype(np.float64) @ w.astype(np.float64).T
    return out if b is None else out + b


m = MainBuilder()
cx, xty = m.constant(x)
cw, wty = m.constant(w)
cwb, wbty = m.constant(w_bf16, "bf16")
cb, bty = m.constant(bias)
cbb, bbty = m.constant(bias_bf16, "bf16")
chead, headty = m.constant(head)
ctable, tablety = m.constant(table)
ctableb, tablebty = m.constant(table_bf16, "bf16")
ctok, tokty = m.constant(tokens, "i32")
yty = "tensor<%dx%dx%dxf32>" % (B, T, N)
lty = "tensor<%dx%dx%dxf32>" % (B, T, V)
ety = "tensor<%dx%dx%dxf32>" % (B, T, K)
checks = []

r = m.op("llm.linear %s, %s : %s, %s -> %s" % (cx, cw, xty, wty, yty), yty)
m.print(*r)
checks.append(("linear f32 no bias", linear(x, w)))

r = m.op("llm.linear %s, %s, %s : %s, %s, %s -> %s"
         % (cx, cw, cb, xty, wty, bty, yty), yty)
m.print(*r)
checks.append(("linear f32 bias", linear(x, w, bias)))

r = m.op("llm.linear %s, %s : %s, %s -> %s" % (cx, cwb, xty, wbty, yty), yty)
m.print(*r)
checks.append(("linear bf16 no bias", linear(x, w_bf16)))

r = m.op("llm.linear %s, %s, %s : %s, %s, %s -> %s"
         % (cx, cwb, cbb, xty, wbty, bbty, yty), yty)
m.print(*r)
checks.append(("linear bf16 bias", linear(x, w_bf16, bias_bf16)))

# Dynamic T, and a 2-D input (no leading dims but the row).
xdyn = "tensor<%dx?x%dxf32>" % (B, K)
ydyn = "tensor<%dx?x%dxf32>" % (B, N)
dx, _ = m.cast(cx, xty, xdyn)
r = m.op("llm.linear %s, %s, %s : %s, %s, %s -> %s"
         % (dx, cw, cb, xdyn, wty, bty, ydyn), ydyn)
m.print(*m.cast(r[0], ydyn, yty))
checks.append(("linear dynamic T bias", linear(x, w, bias)))

# Many rows, dynamic: K = 640 makes cache blocks of 36 rows (96 KiB of f32
# rows, rounded down to whole 4-row tiles), so 170 rows run as four blocks
# of 36 and one of 24 rows plus 2 leftover rows, and N = 37 leaves a weight
# row past the tiles.
TL, KL, NL = 170, 640, 37
xl = rng.standard_normal((1, TL, KL)).astype(np.float32)
wl = (rng.standard_normal((NL, KL)) / np.sqrt(KL)).astype(np.float32)
cxl, xlty = m.constant(xl)
cwl, wlty = m.constant(wl)
xldyn = "tensor<1x?x%dxf32>" % KL
yldyn = "tensor<1x?x%dxf32>" % NL
ylty = "tensor<1x%dx%dxf32>" % (TL, NL)
dxl, _ = m.cast(cxl, xlty, xldyn)
r = m.op("llm.linear %s, %s : %s, %s -> %s" % (dxl, cwl, xldyn, wlty, yldyn), yldyn)
m.print(*m.cast(r[0], yldyn, ylty))
checks.append(("linear dynamic T, row blocks", linear(xl, wl)))

x2 = x.reshape(B * T, K)
cx2, x2ty = m.constant(x2)
y2ty = "tensor<%dx%dxf32>" % (B * T, N)
r = m.op("llm.linear %s, %s : %s, %s -> %s" % (cx2, cw, x2ty, wty, y2ty), y2ty)
m.print(*r)
checks.append(("linear rank-2 input", linear(x2, w)))

r = m.op("llm.logits %s, %s : %s, %s -> %s" % (cx, chead, xty, headty, lty),
         lty)
m.print(*r)
checks.append(("logits", linear(x, head)))

r = m.op("llm.embedding %s, %s : %s, %s -> %s"
         % (ctok, ctable, tokty, tablety, ety), ety)
m.print(*r)
checks.append(("embedding f32", table[tokens]))

r = m.op("llm.embedding %s, %s : %s, %s -> %s"
         % (ctok, ctableb, tokty, tablebty, ety), ety)
m.print(*r)
checks.append(("embedding bf16", table_bf16[tokens]))

tdyn = "tensor<%dx?xi32>" % B
edyn = "tensor<%dx?x%dxf32>" % (B, K)
dtok, _ = m.cast(ctok, tokty, tdyn)
r = m.op("llm.embedding %s, %s : %s, %s -> %s"
         % (dtok, ctable, tdyn, tablety, edyn), edyn)
m.print(*m.cast(r[0], edyn, ety))
checks.append(("embedding dynamic T", table[tokens]))

# Gemma-2's final logit softcapping: a cap of 1 against logits of spread ~1
# (|z| up to ~3), so tanh bends most of them. Prefill rows (the GEMM), one
# decode row (the GEMV) and a rank-1 input (the generic contraction).
CAP = 1.0


def softcap(z):
    return CAP * np.tanh(z / CAP)


capped = "{softcap = %r : f64}" % CAP
r = m.op("llm.logits %s, %s %s : %s, %s -> %s"
         % (cx, chead, capped, xty, headty, lty), lty)
m.print(*r)
checks.append(("logits softcap prefill", softcap(linear(x, head))))
cx1, x1ty = m.constant(x[:1, :1])
l1ty = "tensor<1x1x%dxf32>" % V
r = m.op("llm.logits %s, %s %s : %s, %s -> %s"
         % (cx1, chead, capped, x1ty, headty, l1ty), l1ty)
m.print(*r)
checks.append(("logits softcap decode", softcap(linear(x[:1, :1], head))))
cxr, xrty = m.constant(x[0, 0])
lrty = "tensor<%dxf32>" % V
r = m.op("llm.logits %s, %s %s : %s, %s -> %s"
         % (cxr, chead, capped, xrty, headty, lrty), lrty)
m.print(*r)
checks.append(("logits softcap rank-1", softcap(linear(x[0, 0], head))))

# Gemma's embedding scale √hidden (here √K), in f32, on f32 and bf16 tables.
SCALE = np.sqrt(K)
scaled = "{scale = %r : f64}" % SCALE
r = m.op("llm.embedding %s, %s %s : %s, %s -> %s"
         % (ctok, ctable, scaled, tokty, tablety, ety), ety)
m.print(*r)
checks.append(("embedding scaled f32", table[tokens] * SCALE))
r = m.op("llm.embedding %s, %s %s : %s, %s -> %s"
         % (dtok, ctableb, scaled, tdyn, tablebty, edyn), edyn)
m.print(*m.cast(r[0], edyn, ety))
checks.append(("embedding scaled bf16 dynamic T",
               table_bf16.astype(np.float64)[tokens] * SCALE))

check_all(checks, run(m.module()))
