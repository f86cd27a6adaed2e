"""The planar layout of block-quantized weights (`!llm.block<f, planar>`,
the CUDA kernels' layout; the runtime repacks the file's rows into it at
load): a test-side rewrite from the type's documentation, to hand the
kernels under test the bytes they read.

A block's bytes are cut into segments (codes, high bits, scales); plane p
holds segment p of every block of the matrix, blocks in row-major order, cut
into pieces as wide as the segment's alignment (the largest power of two, at
most 16, that divides its bytes) and stored piece-major: piece 0 of every
block, then piece 1 of every block, ... The planes follow each other widest
alignment first, ties in block order.
"""
import numpy as np

# format: block bytes, its segments (start, bytes) in block order.
SEGMENTS = {
    "q8_0": (34, [(0, 2), (2, 32)]),
    "q4_0": (18, [(0, 2), (2, 16)]),
    "q4_1": (20, [(0, 4), (4, 16)]),
    "q5_0": (22, [(0, 2), (2, 4), (6, 16)]),
    "q5_1": (24, [(0, 4), (4, 4), (8, 16)]),
    "q4_k": (144, [(0, 16), (16, 128)]),
    "q5_k": (176, [(0, 16), (16, 32), (48, 128)]),
    "q6_k": (210, [(0, 128), (128, 64), (192, 16), (208, 2)]),
}


def planar(fmt, raw):
    """The planar bytes of `raw` (uint8, any shape: the file's blocks, rows
    one after the other), in raw's shape."""
    block_bytes, segments = SEGMENTS[fmt]
    blocks = np.ascontiguousarray(raw, np.uint8).reshape(-1, block_bytes)
    width = lambda size: min(16, size & -size)  # noqa: E731
    order = sorted(segments, key=lambda s: -width(s[1]))
    pieces = [blocks[:, piece:piece + width(size)].reshape(-1)
              for start, size in order
              for piece in range(start, start + size, width(size))]
    return np.concatenate(pieces).reshape(np.shape(raw))
