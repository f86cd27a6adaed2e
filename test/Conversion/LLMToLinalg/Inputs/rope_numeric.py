"""llm.rope, both styles x every scaling kind, partial rotary and dynamic T,
against a numpy reference written from the RoPE formulas (Hugging Face
transformers' modeling_rope_utils.py; the HF-expressible kinds are also
checked end to end against transformers itself, test/e2e/rope-variants.test)."""
import math

import numpy as np

from llm_numeric_cases import MainBuilder, check_all
from llmc_numeric import run

rng = np.random.default_rng(99)
B, T, H, DH = 2, 4, 2, 16
THETA = 10000.0
# Positions below this bound; dynamic NTK is run with M on both sides of it.
MAX_POSITION = 40

x = rng.standard_normal((B, T, H, DH)).astype(np.float32)
positions = rng.integers(0, MAX_POSITION, size=(B, T)).astype(np.int32)
positions[1, 3] = MAX_POSITION - 1  # L = max + 1 = MAX_POSITION exactly
LENGTH = int(positions.max()) + 1


def inverse_frequencies(d, scaling):
    """(inv_freq over i in [0, d/2), cos/sin scale) in float64."""
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
        theta = THETA * factor ** (d / (d - 2))
        return theta ** (-2.0 * i / d), 1.0
    if kind == "dynamic":
        if LENGTH > big_m:
            theta = THETA * (factor * LENGTH / big_m - (factor - 1)) ** (d / (d - 2))
            return theta ** (-2.0 * i / d), 1.0
        return plain, 1.0
    if kind == "yarn":
        beta_fast = scaling.get("beta_fast", 32.0)
        beta_slow = scaling.get("beta_slow", 1.0)
        attention = scaling.get("attention_factor", 0.0)
        if attention == 0.0:
            attention = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0

        def corr_dim(r):
            return d * math.log(big_m / (r * 2 * math.pi)) / (2 * math.log(THETA))

        low, high = corr_dim(beta_fast), corr_dim(beta_slow)
        if scaling.get("truncate", True):
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, d - 1)
        if high == low:
            high += 0.001
        ramp = np.clip((i - low) / (high - low), 0.0, 1.0)
        extrapolation = 1.0 - ramp
        inv = plain / factor * (1 - extrapolation) + plain * extrapolation
        return inv, attention
    if kind == "llama3":
        low_ff = scaling.get("low_freq_factor", 1.0)
        high_ff = scaling.get("high_freq_factor", 4.0)
        low_wl, high_wl = big_m / low_ff, big_m / high_ff
        out = []
        for f in plain:
            wl = 2 * math.pi / f
            if wl > low_wl:
                out.append(f / factor)
            elif wl < high_wl:
                out.append(f)
            else:
                smooth = (big_m / wl - low_ff) / (high_ff - low_ff)
                out.append((1 - smooth) * f / factor + smooth * f)
        return np.array(out), 1.0
    if kind == "longrope":
        ext = scaling["long_factor" if LENGTH > big_m else "short_factor"]
        attention = scaling.get("attention_factor", 0.0)
        if attention == 0.0:
            attention = math.sqrt(1 + math.log(factor) / math.log(big_m)) if factor > 1 else 1.0
        return plain / np.array(ext), attention
    raise ValueError(kind)


def rope(x, style, d, scaling):
    inv, scale = inverse_frequencies(d, scaling)
    angle = positions.astype(np.float64)[:, :, None] * inv  # (B, T, d/2)
    cos = (np.cos(angle) * scale)[:, :, None, :]
    sin = (np.sin(angle) * scale)[:, :, None, :]
    x = x.astype(np.float64)
    out = x.copy()
    if style == "half":
        x1, x2 = x[..., : d // 2], x[..., d // 2 : d]
        out[..., : d // 2] = x1 * cos - x2 * sin
        out[..., d // 2 : d] = x2 * cos + x1 * sin
    else:
        x1, x2 = x[..., 0:d:2], x[..., 1:d:2]
        out[..., 0:d:2] = x1 * cos - x2 * sin
        out[..., 1:d:2] = x2 * cos + x1 * sin
    return out


def attribute(scaling):
    if not scaling:
        return ""
    parts = []
    for key, value in scaling.items():
        if key == "kind":
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, list):
            text = "[%s]" % ", ".join("%.6e" % v for v in value)
        else:
            text = value if isinstance(value, int) else "%.6e" % value
        parts.append("%s = %s" % (key, text))
    return ", scaling = #llm.rope_%s<%s>" % (scaling["kind"], ", ".join(parts))


SCALINGS = [
    ("none", {}),
    ("linear", {"kind": "linear", "factor": 4.0}),
    ("ntk", {"kind": "ntk", "factor": 4.0}),
    ("dynamic L <= M", {"kind": "dynamic", "factor": 2.0,
                        "original_max_position_embeddings": 64}),
    ("dynamic L > M", {"kind": "dynamic", "factor": 2.0,
                       "original_max_position_embeddings": 20}),
    ("yarn", {"kind": "yarn", "factor": 4.0,
              "original_max_position_embeddings": 256}),
    ("yarn attention_factor", {"kind": "yarn", "factor": 8.0,
                               "original_max_position_embeddings": 64,
                               "beta_fast": 16.0, "beta_slow": 2.0,
                               "attention_factor": 1.5}),
    ("llama3", {"kind": "llama3", "factor": 8.0,
                "original_max_position_embeddings": 64}),
    # A fractional correction range (HF truncate: false).
    ("yarn untruncated", {"kind": "yarn", "factor": 4.0,
                          "original_max_position_embeddings": 256, "truncate": False}),
    # The short table when L <= M, the long one when L > M; default and set
    # attention factors.
    ("longrope L <= M", {"kind": "longrope", "factor": 4.0,
                         "original_max_position_embeddings": 64,
                         "short_factor": [1.0, 1.1, 1.3, 1.6, 2.0, 2.5, 3.0, 4.0],
                         "long_factor": [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 16.0]}),
    ("longrope L > M", {"kind": "longrope", "factor": 2.0,
                        "original_max_position_embeddings": 20, "attention_factor": 0.9,
                        "short_factor": [1.0, 1.1, 1.3, 1.6, 2.0, 2.5, 3.0, 4.0],
                        "long_factor": [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 16.0]}),
]
BY_NAME = dict(SCALINGS)
assert 20 < LENGTH <= 64

m = MainBuilder()
cx, xty = m.constant(x)
cpos, pty = m.constant(positions, "i32")
checks = []


def add_case(name, style, d, scaling, dynamic=False):
    value, posv, ty, pt = cx, cpos, xty, pty
    if dynamic:
        ty = "tensor<%dx?x%dx%dxf32>" % (B, H, DH)
        pt = "tensor<%dx?xi32>" % B
        value, _ = m.cast(cx, xty, ty)
        posv, _ = m.cast(cpos, pty, pt)
    r = m.op("llm.rope %s %s, %s {theta = %.6e : f64, rotary_dim = %d : i64%s}"
             " : %s, %s" % (style, value, posv, THETA, d, attribute(scaling),
                            ty, pt), ty)
    if dynamic:
        r = m.cast(r[0], ty, xty)
    m.print(*r)
    checks.append(("%s %s d=%d%s" % (style, name, d,
                                     " dynamic T" if dynamic else ""),
                   rope(x, style, d, scaling)))


for style in ("half", "interleaved"):
    for name, scaling in SCALINGS:
        add_case(name, style, DH, scaling)
    add_case("none", style, DH // 2, {})                          # partial
    add_case("llama3", style, DH // 2, BY_NAME["llama3"])           # partial
    add_case("dynamic L > M", style, DH // 2, BY_NAME["dynamic L > M"],
             dynamic=True)
    add_case("yarn", style, DH, BY_NAME["yarn"], dynamic=True)
    add_case("longrope L > M", style, DH // 2,                      # partial
             dict(BY_NAME["longrope L > M"],
                  short_factor=BY_NAME["longrope L > M"]["short_factor"][:4],
                  long_factor=BY_NAME["longrope L > M"]["long_factor"][:4]), dynamic=True)

check_all(checks, run(m.module()))
