"""Writes small safetensors checkpoints (single, sharded, corrupt) for the runtime lit tests.

Usage: make_safetensors.py <case> <out>   (<out> is a directory for 'single'/'sharded'
and the index cases, a file otherwise). Cases with known values print the expected
`llmc-runtime-test dump` output. Only the standard library is used (struct, json).
"""
import json
import os
import struct
import sys

DTYPE_SIZE = {"F32": 4, "F16": 2, "BF16": 2, "I32": 4, "Q9": 1}


def fmt_dump(name, vals):
    return name + ":" + "".join(" %.9g" % v for v in vals)


def st_bytes(tensors, metadata=None, align=8, extra_pad=0, offsets=None, raw_header=None):
    """tensors: list of (name, dtype, shape, data). offsets: {name: [b, e]} overrides.
    The header is space-padded so the data starts at a multiple of `align`
    (plus `extra_pad` bytes, to produce deliberately unaligned data)."""
    header, blob = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": (offsets or {}).get(name, [len(blob), len(blob) + len(data)])}
        blob += data
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    pad = (-(8 + len(text))) % align + extra_pad
    text += b" " * pad
    return struct.pack("<Q", len(text)) + text + blob


def f32(vals):
    return struct.pack("<%df" % len(vals), *vals)


def f16(vals):
    return struct.pack("<%de" % len(vals), *vals)


def bf16(bits):
    return struct.pack("<%dH" % len(bits), *bits)


def f16_round(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def bf16_value(b):
    return struct.unpack("<f", struct.pack("<I", b << 16))[0]


EMBED = [0.5, -1.0, 2.0, 3.25, -0.125, 100.0]
NORM = [1.0, 0.5, -0.099975586, 6.0e-5]
HEAD_BITS = [0x3F80, 0x4000, 0xBF00, 0x3E80]
Q = [float(i) for i in range(8)]


def standard_tensors():
    return [("model.embed_tokens.weight", "F32", [3, 2], f32(EMBED)),
            ("model.norm.weight", "F16", [4], f16(NORM)),
            ("lm_head.weight", "BF16", [2, 2], bf16(HEAD_BITS))]


def expected_standard():
    return "\n".join([
        fmt_dump("model.embed_tokens.weight", [struct.unpack("<f", struct.pack("<f", v))[0] for v in EMBED]),
        fmt_dump("model.norm.weight", [f16_round(v) for v in NORM]),
        fmt_dump("lm_head.weight", [bf16_value(b) for b in HEAD_BITS])]) + "\n"


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def make_dir(path):
    os.makedirs(path, exist_ok=True)
    return path


def case_single(out):
    make_dir(out)
    write(os.path.join(out, "model.safetensors"),
          st_bytes(standard_tensors(), metadata={"format": "pt", "note": "tiny"}))
    return expected_standard()


def case_unaligned(out):
    write(out, st_bytes([("x", "F32", [2, 2], f32([1.0, -2.0, 3.5, 4.0]))], align=8, extra_pad=1))
    return fmt_dump("x", [1.0, -2.0, 3.5, 4.0]) + "\n"


def shard_files(out, weight_map_overrides=None, skip_shard=None):
    make_dir(out)
    t = standard_tensors()
    q = ("model.layers.0.self_attn.q_proj.weight", "F32", [2, 4], f32(Q))
    shards = {"model-00001-of-00002.safetensors": [t[0], q],
              "model-00002-of-00002.safetensors": [t[1], t[2]]}
    weight_map = {}
    for shard, tensors in shards.items():
        if shard != skip_shard:
            write(os.path.join(out, shard), st_bytes(tensors, metadata={"format": "pt"}))
        for name, _, _, _ in tensors:
            weight_map[name] = shard
    weight_map.update(weight_map_overrides or {})
    index = {"metadata": {"total_size": 72}, "weight_map": weight_map}
    write(os.path.join(out, "model.safetensors.index.json"), json.dumps(index, indent=2).encode())


def case_sharded(out):
    shard_files(out)
    return expected_standard() + fmt_dump("model.layers.0.self_attn.q_proj.weight", Q) + "\n"


def case_error(name, out):
    t = [("w", "F32", [2], f32([1.0, 2.0]))]
    if name == "truncated":
        return write(out, b"\x10\0\0\0\0")
    if name == "header-past-eof":
        data = st_bytes(t)
        return write(out, struct.pack("<Q", 1 << 20) + data[8:])
    if name == "bad-json":
        return write(out, st_bytes([], raw_header=b'{"w": {"dtype": "F32", "shape": [2,'))
    if name == "bad-escape":
        return write(out, st_bytes([], raw_header=b'{"w\\q": 1}'))
    if name == "trailing-garbage":
        return write(out, st_bytes([], raw_header=b'{} x'))
    if name == "json-deep":
        return write(out, st_bytes([], raw_header=b'{"a":' + b"[" * 100 + b"]" * 100 + b"}"))
    if name == "tensor-name-nul":
        return write(out, st_bytes([("w\u0000x", "F32", [2], f32([1.0, 2.0]))]))
    if name == "not-object":
        return write(out, st_bytes([], raw_header=b"[1, 2]"))
    if name == "offsets-past-eof":
        return write(out, st_bytes(t, offsets={"w": [4096, 4104]}))
    if name == "size-mismatch":
        return write(out, st_bytes([("w", "F32", [3], f32([1.0, 2.0]))]))
    if name == "offsets-reversed":
        return write(out, st_bytes(t, offsets={"w": [8, 0]}))
    if name == "unsupported-dtype":
        return write(out, st_bytes([("w", "I32", [2], struct.pack("<2i", 1, 2))]))
    if name == "unknown-dtype":
        return write(out, st_bytes([("w", "Q9", [2], b"\0\0")]))
    if name == "missing-dtype":
        return write(out, st_bytes([], raw_header=b'{"w": {"shape": [1], "data_offsets": [0, 4]}}'))
    if name == "rank5":
        return write(out, st_bytes([("w", "F32", [1, 1, 1, 1, 2], f32([1.0, 2.0]))]))
    if name == "negative-shape":
        return write(out, st_bytes([], raw_header=b'{"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}'))
    if name == "missing-shard":
        return shard_files(out, skip_shard="model-00002-of-00002.safetensors")
    if name == "shard-missing-tensor":
        return shard_files(out, {"model.layers.9.mlp.up_proj.weight": "model-00001-of-00002.safetensors"})
    if name == "shard-nul":
        return shard_files(out, {"lm_head.weight": "model-00001-of-00002.safetensors\u0000.evil"})
    if name == "shard-escape":
        return shard_files(out, {"lm_head.weight": "../evil.safetensors"})
    if name == "index-no-map":
        make_dir(out)
        return write(os.path.join(out, "model.safetensors.index.json"), b'{"metadata": {}}')
    if name == "empty-dir":
        make_dir(out)
        return None
    raise SystemExit("unknown case " + name)


def main():
    case, out = sys.argv[1], sys.argv[2]
    builders = {"single": case_single, "unaligned": case_unaligned, "sharded": case_sharded}
    expected = builders[case](out) if case in builders else case_error(case, out)
    if expected:
        sys.stdout.write(expected)


if __name__ == "__main__":
    main()
