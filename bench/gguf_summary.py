"""Prints what bench/quant.sh needs to know of a GGUF file, as one tab-separated line:

    <file type>  <weight bytes>  <bytes read per decoded token>  <prefill FLOPs per token>  <tensor types>

Usage: gguf_summary.py FILE

- file type: general.file_type as llama.cpp names it (Q4_K_M, Q8_0, F16, ...; MOSTLY_ dropped).
- weight bytes: the bytes of every tensor as stored (quantized blocks included).
- bytes per decoded token: what one decode step must read from memory: every tensor, except that an
  untied model's token_embd is only gathered (one row per token), so it counts one row; a tied model
  reads token_embd whole as its LM head.
- prefill FLOPs per token: 2 × the elements of every matrix a prompt token is multiplied with: every
  2-D tensor but token_embd (gathered), the LM head (output.weight, or a tied token_embd) and the last
  layer's matrices after its attention (attn_output, ffn_*), which a prefill applies to its last token
  only (llmc and llama.cpp alike compute the last layer's feed-forward network, llmc also its o_proj,
  for the rows whose logits are asked for). Attention's own products (Q·Kᵀ, P·V) are left out: at a
  128-token prompt about 2% of SmolLM2's FLOPs.
- tensor types: "Q4_K:120,Q6_K:31,F32:61" (counts of tensors per stored type), for the footnote that
  shows what a mix such as Q4_K_M became (rows of 576 fit no 256-element super-block).

Needs the gguf package (the reference venv, scripts/reference-venv.sh); reads only headers (memmap).
"""
import collections
import sys

import gguf


def main():
    r = gguf.GGUFReader(sys.argv[1])
    ftype = "?"
    f = r.fields.get("general.file_type")
    if f is not None:
        v = int(f.parts[f.data[0]][0])
        try:
            ftype = gguf.LlamaFileType(v).name.replace("MOSTLY_", "").replace("ALL_", "")
        except ValueError:
            ftype = "file_type %d" % v
    total = 0
    per_token = 0
    names = {t.name for t in r.tensors}
    tied = "output.weight" not in names
    types = collections.Counter()
    prefill_macs = 0
    blocks = [int(name.split(".")[1]) for name in names if name.startswith("blk.")]
    last_block = "blk.%d." % max(blocks) if blocks else None

    def last_token_only(name):
        if name in ("token_embd.weight", "output.weight"):
            return True
        if last_block is None or not name.startswith(last_block):
            return False
        role = name[len(last_block):]
        return role.startswith("attn_output.") or role.startswith("ffn_")

    for t in r.tensors:
        n = int(t.n_bytes)
        total += n
        if len(t.shape) == 2 and not last_token_only(t.name):
            prefill_macs += int(t.n_elements)
        types[t.tensor_type.name] += 1
        if t.name == "token_embd.weight" and not tied:
            rows = int(t.shape[-1]) if len(t.shape) > 1 else 1  # ne = [cols, rows]
            per_token += n // max(rows, 1)
        else:
            per_token += n
    mix = ",".join("%s:%d" % kv for kv in sorted(types.items(), key=lambda kv: -kv[1]))
    print("%s\t%d\t%d\t%d\t%s" % (ftype, total, per_token, 2 * prefill_macs, mix))


if __name__ == "__main__":
    main()
