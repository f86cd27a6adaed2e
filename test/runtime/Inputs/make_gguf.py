"""Writes small GGUF files (valid and deliberately corrupt) for the runtime lit tests.

Usage: make_gguf.py <case> <out.gguf>
Cases that carry known tensor values print the expected `llmc-runtime-test dump`
output on stdout. Only the standard library is used (struct), so CI needs no numpy.
"""
import struct
import sys

GGUF_MAGIC = b"GGUF"
ALIGNMENT = 32  # the GGUF default, used unless a case overrides general.alignment

# GGUF metadata value types.
U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)
SCALAR_FMT = {U8: "B", I8: "b", U16: "H", I16: "h", U32: "I", I32: "i", F32: "f",
              BOOL: "?", U64: "Q", I64: "q", F64: "d"}

# ggml tensor types.
GGML_F32, GGML_F16, GGML_Q4_0, GGML_Q4_1, GGML_Q8_0, GGML_Q4_K, GGML_BF16 = 0, 1, 2, 3, 8, 12, 30
GGML_IQ2_XXS = 16  # a type llmc does not load (256 elements in 66 bytes)


def gguf_str(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def value(vtype, v):
    if vtype == STR:
        return gguf_str(v)
    if vtype == ARR:
        etype, items = v
        out = struct.pack("<IQ", etype, len(items))
        return out + b"".join(value(etype, x) for x in items)
    return struct.pack("<" + SCALAR_FMT[vtype], v)


def kv(key, vtype, v):
    return gguf_str(key) + struct.pack("<I", vtype) + value(vtype, v)


def tensor_info(name, ne, ggml_type, offset):
    return (gguf_str(name) + struct.pack("<I", len(ne)) +
            b"".join(struct.pack("<Q", d) for d in ne) + struct.pack("<IQ", ggml_type, offset))


def build(kvs, tensors, version=3, alignment=ALIGNMENT, magic=GGUF_MAGIC, offsets=None):
    """kvs: list of encoded KV bytes; tensors: list of (name, ne, type, data);
    offsets: optional {tensor index: offset written instead of the real one}."""
    infos, blobs, offset = [], [], 0
    for i, (name, ne, ggml_type, data) in enumerate(tensors):
        infos.append(tensor_info(name, ne, ggml_type, (offsets or {}).get(i, offset)))
        pad = (-len(data)) % alignment
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad
    header = magic + struct.pack("<IQQ", version, len(tensors), len(kvs))
    header += b"".join(kvs) + b"".join(infos)
    header += b"\0" * ((-len(header)) % alignment)
    return header + b"".join(blobs)


def f32s(vals):
    return struct.pack("<%df" % len(vals), *vals)


def fmt(v):
    return "%.9g" % v


def dump_line(name, vals):
    return name + ":" + "".join(" " + fmt(v) for v in vals)


# --- quantized blocks (layouts from the GGUF spec) ---------------------------

def f16_bits(x):
    return struct.pack("<e", x)


def f16_round(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def q8_0_block(d, qs):
    assert len(qs) == 32
    return f16_bits(d) + struct.pack("<32b", *qs), [q * f16_round(d) for q in qs]


def nibbles(lo, hi):
    """Byte j holds element j (low nibble) and element j + 16 (high nibble)."""
    return bytes((lo[j] & 15) | ((hi[j] & 15) << 4) for j in range(16))


def q4_0_block(d, lo, hi):
    vals = [(q - 8) * f16_round(d) for q in lo + hi]
    return f16_bits(d) + nibbles(lo, hi), vals


def q4_1_block(d, m, lo, hi):
    vals = [q * f16_round(d) + f16_round(m) for q in lo + hi]
    return f16_bits(d) + f16_bits(m) + nibbles(lo, hi), vals


def case_quant():
    tensors, expected = [], []

    v = [1.5, -2.25, 0.0, 3.0e38]
    tensors.append(("t_f32", [4], GGML_F32, f32s(v)))
    expected.append(dump_line("t_f32", [struct.unpack("<f", struct.pack("<f", x))[0] for x in v]))

    v = [1.0, -2.5, 2.0 ** -14, 2.0 ** -24, 65504.0, -0.0, float("inf"), 1.0 / 3.0]
    tensors.append(("t_f16", [8], GGML_F16, b"".join(f16_bits(x) for x in v)))
    expected.append(dump_line("t_f16", [f16_round(x) for x in v]))

    bits = [0x3F80, 0xC049, 0x0001, 0x7F80]
    tensors.append(("t_bf16", [4], GGML_BF16, struct.pack("<4H", *bits)))
    expected.append(dump_line("t_bf16", [struct.unpack("<f", struct.pack("<I", b << 16))[0]
                                         for b in bits]))

    b0, v0 = q8_0_block(0.5, list(range(-16, 16)))
    b1, v1 = q8_0_block(0.25, [127, -128] + list(range(30)))
    tensors.append(("t_q8_0", [64], GGML_Q8_0, b0 + b1))
    expected.append(dump_line("t_q8_0", v0 + v1))

    b0, v0 = q4_0_block(0.5, list(range(16)), [15 - j for j in range(16)])
    b1, v1 = q4_0_block(-1.5, [(3 * j) % 16 for j in range(16)], [(5 * j) % 16 for j in range(16)])
    tensors.append(("t_q4_0", [32, 2], GGML_Q4_0, b0 + b1))  # 2 rows of 32
    expected.append(dump_line("t_q4_0", v0 + v1))

    b0, v0 = q4_1_block(0.25, -1.0, list(range(16)), [15 - j for j in range(16)])
    tensors.append(("t_q4_1", [32], GGML_Q4_1, b0))
    expected.append(dump_line("t_q4_1", v0))

    kvs = [kv("general.architecture", STR, "llama")]
    return build(kvs, tensors), "\n".join(expected) + "\n"


def case_names():
    """GGUF llama names, every metadata value type, a custom alignment."""
    kvs = [
        kv("general.architecture", STR, "llama"),
        kv("general.alignment", U32, 64),
        kv("test.u8", U8, 200), kv("test.i8", I8, -100), kv("test.u16", U16, 60000),
        kv("test.i16", I16, -30000), kv("test.u32", U32, 4000000000),
        kv("test.i32", I32, -2000000000), kv("test.f32", F32, 0.5), kv("test.bool", BOOL, True),
        kv("test.str", STR, "h\u00e9llo"), kv("test.u64", U64, 2 ** 63 + 5),
        kv("test.i64", I64, -(2 ** 62)), kv("test.f64", F64, 0.1),
        kv("test.arr_i32", ARR, (I32, [3, -1, 4])),
        kv("test.arr_str", ARR, (STR, ["a", "", "\u2581b"])),
        kv("test.arr_nested", ARR, (ARR, [(U8, [1, 2]), (U8, [])])),
        kv("test.arr_empty", ARR, (F64, [])),
    ]
    names = ["token_embd.weight", "output_norm.weight", "output.weight",
             "blk.0.attn_q.weight", "blk.0.attn_k.weight", "blk.0.attn_v.weight",
             "blk.0.attn_output.weight", "blk.0.attn_norm.weight", "blk.0.ffn_gate.weight",
             "blk.0.ffn_up.weight", "blk.0.ffn_down.weight", "blk.0.ffn_norm.weight",
             "blk.12.attn_q.bias", "rope_freqs.weight", "blk.x.attn_q.weight"]
    tensors = []
    for i, n in enumerate(names):
        ne = [4, 3] if "norm" not in n and "bias" not in n else [4]
        count = ne[0] * (ne[1] if len(ne) > 1 else 1)
        tensors.append((n, ne, GGML_F32, f32s([float(i * 100 + k) for k in range(count)])))
    return build(kvs, tensors, alignment=64), None


def case_tokenizer():
    """A tiny SentencePiece vocab in GGUF form (spaces spelled U+2581)."""
    toks = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    toks += ["\u2581", "a", "b", "\u2581a", "ab", "\u2581ab", "\u2581b"]
    types = [2, 3, 3] + [6] * 256 + [1] * 7
    scores = [0.0] * 259 + [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0]
    kvs = [kv("tokenizer.ggml.model", STR, "llama"),
           kv("tokenizer.ggml.tokens", ARR, (STR, toks)),
           kv("tokenizer.ggml.scores", ARR, (F32, scores)),
           kv("tokenizer.ggml.token_type", ARR, (I32, types)),
           kv("tokenizer.ggml.bos_token_id", U32, 1),
           kv("tokenizer.ggml.eos_token_id", U32, 2)]
    return build(kvs, []), None


def valid_small():
    return [("w", [32], GGML_F32, f32s([0.0] * 32))]


def case_error(name):
    t = valid_small()
    if name == "bad-magic":
        return build([], t, magic=b"GGUX")
    if name == "bad-version":
        return build([], t, version=7)
    if name == "version1":
        return build([], t, version=1)
    if name == "big-endian":
        return build([], t, version=3 << 24)
    if name == "truncated-header":
        return build([], t)[:12]  # magic + version + half the tensor count
    if name == "key-past-eof":
        return GGUF_MAGIC + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1 << 40) + b"key" + b"\0" * 32
    if name == "array-past-eof":
        return build([kv("a", ARR, (U32, [1, 2]))], []).replace(
            struct.pack("<IQ", U32, 2), struct.pack("<IQ", U32, 1 << 61), 1)
    if name == "string-array-past-eof":
        return build([kv("a", ARR, (STR, ["x"]))], []).replace(
            struct.pack("<IQ", STR, 1), struct.pack("<IQ", STR, 1 << 50), 1)
    if name == "kv-count-impossible":
        return GGUF_MAGIC + struct.pack("<IQQ", 3, 0, 1 << 62) + b"\0" * 64
    if name == "bad-kv-type":
        return build([gguf_str("k") + struct.pack("<I", 13) + b"\0" * 8], [])
    if name == "nested-too-deep":
        v = (U8, [])
        for _ in range(10):
            v = (ARR, [v])
        return build([kv("deep", ARR, v)], [])
    if name == "tensor-offset-past-eof":
        return build([], t, offsets={0: 4096})
    if name == "truncated-data":
        return build([], t)[:-4]
    if name == "misaligned-offset":
        return build([], [("w", [8], GGML_F32, f32s([0.0] * 8)),
                          ("v", [8], GGML_F32, f32s([0.0] * 8))], offsets={1: 4})
    if name == "bad-alignment":
        return build([kv("general.alignment", U32, 24)], [], alignment=32)
    if name == "unknown-dtype":
        return build([], [("w", [32], 99, f32s([0.0] * 32))])
    if name == "unsupported-dtype":
        return build([], [("w", [256], GGML_IQ2_XXS, b"\0" * 66)])
    if name == "ndims5":
        return build([], [("w", [1, 1, 1, 1, 2], GGML_F32, f32s([0.0, 0.0]))])
    if name == "overflow":
        return build([], [("w", [1 << 40, 1 << 40], GGML_F32, b"")])
    if name == "quant-row":
        return build([], [("w", [16, 2], GGML_Q8_0, b"\0" * 34)])
    if name == "duplicate-tensor":
        return build([], t + t)
    if name == "duplicate-key":
        return build([kv("k", U8, 1), kv("k", U8, 2)], [])
    if name == "key-nul":  # C callers would see two keys 'general.name'
        return build([kv("general.name", STR, "a"), kv("general.name\0x", STR, "b")], [])
    if name == "tensor-name-nul":
        return build([], [("w\0x", [2], GGML_F32, f32s([0.0, 0.0]))])
    if name == "tok-gpt2":
        return build([kv("tokenizer.ggml.model", STR, "gpt2"),
                      kv("tokenizer.ggml.tokens", ARR, (STR, ["a"]))], [])
    if name == "tok-scores-mismatch":
        return build([kv("tokenizer.ggml.model", STR, "llama"),
                      kv("tokenizer.ggml.tokens", ARR, (STR, ["a", "b"])),
                      kv("tokenizer.ggml.scores", ARR, (F32, [0.0]))], [])
    if name == "tok-bad-bos":
        return build([kv("tokenizer.ggml.tokens", ARR, (STR, ["a", "b"])),
                      kv("tokenizer.ggml.scores", ARR, (F32, [0.0, 0.0])),
                      kv("tokenizer.ggml.bos_token_id", U32, 7)], [])
    raise SystemExit("unknown case " + name)


def main():
    case, out = sys.argv[1], sys.argv[2]
    expected = None
    if case == "quant":
        data, expected = case_quant()
    elif case == "names":
        data, expected = case_names()
    elif case == "tokenizer":
        data, expected = case_tokenizer()
    else:
        data = case_error(case)
    with open(out, "wb") as f:
        f.write(data)
    if expected:
        sys.stdout.write(expected)


if __name__ == "__main__":
    main()
