"""Writes tiny llama2.c checkpoints (valid and corrupt) for the runtime lit tests.

Usage: make_llama2c.py <case> <out.bin>. The valid case prints the expected
`llmc-runtime-test dump` output for a few tensors. Standard library only.
"""
import struct
import sys

# A config small enough to read in a dump: GQA (2 heads, 1 KV head), head_dim 4.
DIM, HIDDEN, LAYERS, HEADS, KV_HEADS, VOCAB, SEQ = 8, 16, 2, 2, 1, 6, 4
HEAD_DIM = DIM // HEADS
KV_DIM = KV_HEADS * HEAD_DIM


def arrays(shared):
    """(name, element count) in file order; values are consecutive integers."""
    a = [("token_embedding", VOCAB * DIM), ("rms_att", LAYERS * DIM),
         ("wq", LAYERS * DIM * DIM), ("wk", LAYERS * KV_DIM * DIM),
         ("wv", LAYERS * KV_DIM * DIM), ("wo", LAYERS * DIM * DIM),
         ("rms_ffn", LAYERS * DIM), ("w1", LAYERS * HIDDEN * DIM),
         ("w2", LAYERS * DIM * HIDDEN), ("w3", LAYERS * HIDDEN * DIM),
         ("rms_final", DIM), ("freq_cis_real", SEQ * HEAD_DIM // 2),
         ("freq_cis_imag", SEQ * HEAD_DIM // 2)]
    if not shared:
        a.append(("wcls", VOCAB * DIM))
    return a


def build(shared=False, header=None):
    hdr = header or [DIM, HIDDEN, LAYERS, HEADS, KV_HEADS, VOCAB if shared else -VOCAB, SEQ]
    body, start, where = b"", 0, {}
    for name, n in arrays(shared):
        where[name] = (start, n)
        body += struct.pack("<%df" % n, *[float(start + i) for i in range(n)])
        start += n
    return struct.pack("<7i", *hdr) + body, where


def main():
    case, out = sys.argv[1], sys.argv[2]
    expected = None
    if case in ("unshared", "shared"):
        data, where = build(shared=case == "shared")
        s, _ = where["wk"]
        per = KV_DIM * DIM
        lines = ["model.layers.1.self_attn.k_proj.weight:" +
                 "".join(" %.9g" % float(s + per + i) for i in range(per))]
        s, n = where["rms_final"]
        lines.append("model.norm.weight:" + "".join(" %.9g" % float(s + i) for i in range(n)))
        if case == "unshared":
            s, n = where["wcls"]
            lines.append("lm_head.weight:" + "".join(" %.9g" % float(s + i) for i in range(n)))
        expected = "\n".join(lines) + "\n"
    elif case == "size-mismatch":
        data = build()[0] + b"\0\0\0\0"
    elif case == "short-header":
        data = struct.pack("<3i", DIM, HIDDEN, LAYERS)
    elif case == "bad-heads":
        data = build(header=[DIM, HIDDEN, LAYERS, 3, 1, VOCAB, SEQ])[0]
    elif case == "bad-kv-heads":
        data = build(header=[DIM, HIDDEN, LAYERS, HEADS, 3, VOCAB, SEQ])[0]
    elif case == "odd-head-dim":
        data = build(header=[6, HIDDEN, LAYERS, 2, 1, VOCAB, SEQ])[0]
    elif case == "zero-layers":
        data = build(header=[DIM, HIDDEN, 0, HEADS, KV_HEADS, VOCAB, SEQ])[0]
    elif case == "huge":
        data = struct.pack("<7i", 2 ** 30, 2 ** 30, 2 ** 30, 2, 2, 2 ** 30, 2 ** 30) + b"\0" * 64
    else:
        raise SystemExit("unknown case " + case)
    with open(out, "wb") as f:
        f.write(data)
    if expected:
        sys.stdout.write(expected)


if __name__ == "__main__":
    main()
