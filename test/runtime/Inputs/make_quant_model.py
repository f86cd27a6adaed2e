"""Writes a small random-weight f32 LLaMA GGUF for llama.cpp's llama-quantize to quantize (test data).

Usage: make_quant_model.py <shape> <seed> <out.gguf>
  shape k256:  hidden 256, FFN 512, 2 layers, vocab 512: every matrix row is a multiple of 256, so
               every K-quant applies to every matrix.
  shape s576:  SmolLM2-135M's widths (hidden 576, FFN 1536, 9/3 heads), 1 layer, vocab 256: rows of
               576 are no multiple of 256, so llama-quantize falls back to 32-element formats there.

Needs the gguf package (the reference venv, scripts/reference-venv.sh) and numpy. Each matrix row is
scaled by its own log-uniform factor so that the blocks' f16 scales span normal and subnormal halves.
"""
import os
import sys

import gguf
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'scripts'))
from llama_gguf import add_llama_hparams, add_llama_tensors  # noqa: E402

SHAPES = {
    "k256": dict(hidden=256, ffn=512, layers=2, heads=4, kv_heads=2, vocab=512),
    "s576": dict(hidden=576, ffn=1536, layers=1, heads=9, kv_heads=3, vocab=256),
}
# Row scales from 1e-5 to 10: the smallest make block scales far below 2^-14 (f16 subnormals), the
# largest exercise the top of the f16 scale range that the formats' 6-bit sub-scales multiply.
ROW_SCALE_LOG10 = (-5.0, 1.0)
CONTEXT_LENGTH = 2048
RMS_EPS = 1e-5
ROPE_THETA = 10000.0


def main():
    shape_name, seed, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    s = SHAPES[shape_name]
    rng = np.random.default_rng(seed)
    D, F, L, H, KV, V = s["hidden"], s["ffn"], s["layers"], s["heads"], s["kv_heads"], s["vocab"]

    def mat(rows, cols):
        a = rng.standard_normal((rows, cols)).astype(np.float32)
        scale = 10.0 ** rng.uniform(*ROW_SCALE_LOG10, size=(rows, 1))
        # A few rows entirely positive or negative, so that min-based formats see one-signed blocks.
        a[: rows // 8] = np.abs(a[: rows // 8])
        a[rows // 8: rows // 4] = -np.abs(a[rows // 8: rows // 4])
        return (a * scale).astype(np.float32)

    def norm():
        return (1.0 + 0.1 * rng.standard_normal(D)).astype(np.float32)

    w = gguf.GGUFWriter(out, arch="llama")
    w.add_name("llmc-quant-test-" + shape_name)
    add_llama_hparams(w, CONTEXT_LENGTH, D, F, L, H, KV, V, ROPE_THETA, RMS_EPS)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    # A minimal SentencePiece-style vocabulary: llama-quantize keeps it, nothing reads it.
    w.add_tokenizer_model("llama")
    w.add_token_list(["<unk>", "<s>", "</s>"] + ["t%d" % i for i in range(3, V)])
    w.add_token_scores([0.0] * V)
    w.add_token_types([gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
                      + [gguf.TokenType.NORMAL] * (V - 3))
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)

    add_llama_tensors(w, D, F, L, H, KV, V, mat, norm, lm_head=True)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
