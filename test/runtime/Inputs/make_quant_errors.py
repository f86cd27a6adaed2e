"""Writes GGUF files whose quantized tensors have impossible row lengths, for dequant-errors.test.

Usage: make_quant_errors.py <case> <out.gguf>
  k-row:   a Q4_K matrix with rows of 128 elements (a K-quant super-block holds 256)
  iq-row:  an IQ4_NL vector of 48 elements (its blocks hold 32)
  q5-row:  a Q5_1 matrix with rows of 16 elements
Only the standard library is used (through make_gguf's writer).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_gguf import GGML_Q4_K, build  # noqa: E402

GGML_Q5_1 = 7
GGML_IQ4_NL = 20


def main():
    case, out = sys.argv[1], sys.argv[2]
    # The data sizes are whatever whole blocks would need; the row check comes before any size check.
    if case == "k-row":
        data = build([], [("blk.0.attn_q.weight", [128, 4], GGML_Q4_K, b"\0" * 288)])
    elif case == "iq-row":
        data = build([], [("blk.0.ffn_norm.weight", [48], GGML_IQ4_NL, b"\0" * 36)])
    elif case == "q5-row":
        data = build([], [("token_embd.weight", [16, 4], GGML_Q5_1, b"\0" * 48)])
    else:
        raise SystemExit("unknown case " + case)
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
