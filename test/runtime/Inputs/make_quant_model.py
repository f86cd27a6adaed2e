"""Writes a small random-weight f32 LLaMA GGUF for llama.cpp's llama-quantize to quantize (test data).

Usage: make_quant_model.py <shape> <seed> <out.gguf>
  shape k256:  hidden 256, FFN 512, 2 layers, vocab 512: every matrix row is a multiple of 256, so
               every K-quant applies to every matrix.
  shape s576:  SmolLM2-135M's widths (hidden 576, FFN 1536, 9/3 heads), 1 layer, vocab 256: rows of
               576 are no multiple of 256, so llama-quantize falls back to 32-element formats there.

Needs the gguf package (the reference venv, scripts/reference-venv.sh) and numpy. Each matrix row is
scaled by its own log-uniform factor so that the blocks' f16 scales span normal and subnormal halves.
"""
import sys

import gguf
import numpy as np

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
    Dh = D // H

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
    w.add_context_length(CONTEXT_LENGTH)
    w.add_embedding_length(D)
    w.add_block_count(L)
    w.add_feed_forward_length(F)
    w.add_head_count(H)
    w.add_head_count_kv(KV)
    w.add_rope_dimension_count(Dh)
    w.add_rope_freq_base(ROPE_THETA)
    w.add_layer_norm_rms_eps(RMS_EPS)
    w.add_vocab_size(V)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    # A minimal SentencePiece-style vocabulary: llama-quantize keeps it, nothing reads it.
    w.add_tokenizer_model("llama")
    w.add_token_list(["<unk>", "<s>", "</s>"] + ["t%d" % i for i in range(3, V)])
    w.add_token_scores([0.0] * V)
    w.add_token_types([gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
                      + [gguf.TokenType.NORMAL] * (V - 3))
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)

    # numpy shape (rows, cols) is GGUF ne = [cols, rows]: rows are the quantized dimension's runs.
    w.add_tensor("token_embd.weight", mat(V, D))
    for l in range(L):
        p = "blk.%d." % l
        w.add_tensor(p + "attn_norm.weight", norm())
        w.add_tensor(p + "attn_q.weight", mat(H * Dh, D))
        w.add_tensor(p + "attn_k.weight", mat(KV * Dh, D))
        w.add_tensor(p + "attn_v.weight", mat(KV * Dh, D))
        w.add_tensor(p + "attn_output.weight", mat(D, H * Dh))
        w.add_tensor(p + "ffn_norm.weight", norm())
        w.add_tensor(p + "ffn_gate.weight", mat(F, D))
        w.add_tensor(p + "ffn_up.weight", mat(F, D))
        w.add_tensor(p + "ffn_down.weight", mat(D, F))
    w.add_tensor("output_norm.weight", norm())
    w.add_tensor("output.weight", mat(V, D))

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
