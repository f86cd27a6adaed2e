"""The tensors of a LLaMA GGUF (llama.cpp's names, in its order), shared by the random-model generators of the
tests (test/runtime/Inputs/make_quant_model.py) and of the benchmark (bench/make_llama_gguf.py)."""


def add_llama_tensors(writer, hidden, ffn, layers, heads, kv_heads, vocab, mat, norm, lm_head):
    """Adds every weight to the gguf.GGUFWriter `writer`: mat(rows, cols) makes a matrix and norm() a norm
    vector, called in file order (so a seeded generator writes the same file every time). numpy's shape
    (rows, cols) is GGUF's ne = [cols, rows]. Without `lm_head` there is no output.weight: llama.cpp and
    llmc then use token_embd as the classifier (tied)."""
    head_dim = hidden // heads
    writer.add_tensor("token_embd.weight", mat(vocab, hidden))
    for layer in range(layers):
        p = "blk.%d." % layer
        writer.add_tensor(p + "attn_norm.weight", norm())
        writer.add_tensor(p + "attn_q.weight", mat(heads * head_dim, hidden))
        writer.add_tensor(p + "attn_k.weight", mat(kv_heads * head_dim, hidden))
        writer.add_tensor(p + "attn_v.weight", mat(kv_heads * head_dim, hidden))
        writer.add_tensor(p + "attn_output.weight", mat(hidden, heads * head_dim))
        writer.add_tensor(p + "ffn_norm.weight", norm())
        writer.add_tensor(p + "ffn_gate.weight", mat(ffn, hidden))
        writer.add_tensor(p + "ffn_up.weight", mat(ffn, hidden))
        writer.add_tensor(p + "ffn_down.weight", mat(hidden, ffn))
    writer.add_tensor("output_norm.weight", norm())
    if lm_head:
        writer.add_tensor("output.weight", mat(vocab, hidden))


def add_llama_hparams(writer, context, hidden, ffn, layers, heads, kv_heads, vocab, rope_theta, rms_eps):
    """The llama.* hyper-parameters of an F32 file, rotary over the whole head."""
    writer.add_context_length(context)
    writer.add_embedding_length(hidden)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(ffn)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_rope_dimension_count(hidden // heads)
    writer.add_rope_freq_base(rope_theta)
    writer.add_layer_norm_rms_eps(rms_eps)
    writer.add_vocab_size(vocab)
