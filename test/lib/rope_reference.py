"""RoPE in float64 as llm.rope defines it, with the angles of the f32
frequency table the CUDA kernels read: the reference of the kernel checks
that rotate queries and keys (fused_kernels_check.py, paged_kv_check.py)."""
import numpy as np


def rotate(x, positions, style, rotary_dim, theta=10000.0, factor=1.0):
    """x (tokens, heads, head_dim) rotated at `positions` (tokens): pairs
    (2i, 2i+1) for "interleaved", (i, i + rotary_dim/2) for "half"; the
    elements past rotary_dim pass through. `factor` divides the inverse
    frequencies (linear scaling)."""
    half = rotary_dim // 2
    inv = (theta ** (-2.0 * np.arange(half) / rotary_dim) / factor).astype(np.float32)
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
