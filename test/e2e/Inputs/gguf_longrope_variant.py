"""Copies a Phi-3 longrope GGUF file (hf_to_gguf.py's) with its longrope factor tensors or metadata broken in one
way, for the errors llmc gives on each (gguf-families.test). Every other tensor and key is copied unchanged.

Usage: gguf_longrope_variant.py <in.gguf> <out.gguf> <variant>   (a name of VARIANTS)

  long-f16         rope_factors_long.weight stored as F16
  long-short       rope_factors_long.weight with its last entry dropped
  long-2d          rope_factors_long.weight as a [2][n/2] matrix
  long-zero        rope_factors_long.weight with a 0 entry
  no-short         rope_factors_short.weight left out
  yarn             rope.scaling.type "yarn" (factor 4) added
  no-attn-factor   rope.scaling.attn_factor left out
  attn-factor-1    rope.scaling.attn_factor 1
  truncated        the file cut inside the data of the factor tensor written last
"""
import os
import sys

import gguf
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convert_gguf import copy_metadata  # noqa: E402

LONG, SHORT = "rope_factors_long.weight", "rope_factors_short.weight"


def long_f16(values):
    return values.astype(np.float16)


def long_zero(values):
    values = values.copy()
    values[1] = 0.0
    return values


# variant -> (tensor edits: name -> function of the f32 values, or None to leave it out; metadata to add; key to drop)
VARIANTS = {
    "long-f16": ({LONG: long_f16}, {}, None),
    "long-short": ({LONG: lambda v: v[:-1]}, {}, None),
    "long-2d": ({LONG: lambda v: v.reshape(2, -1)}, {}, None),
    "long-zero": ({LONG: long_zero}, {}, None),
    "no-short": ({SHORT: None}, {}, None),
    "yarn": ({}, {"rope.scaling.type": "yarn", "rope.scaling.factor": 4.0}, None),
    "no-attn-factor": ({}, {}, "rope.scaling.attn_factor"),
    "attn-factor-1": ({}, {"rope.scaling.attn_factor": 1.0}, "rope.scaling.attn_factor"),
    "truncated": ({}, {}, None),
}


def main():
    source, target, variant = sys.argv[1:4]
    edits, added, dropped = VARIANTS[variant]
    reader = gguf.GGUFReader(source)
    arch = reader.get_field(gguf.Keys.General.ARCHITECTURE).contents()
    writer = gguf.GGUFWriter(target, arch)
    if dropped:
        del reader.fields["%s.%s" % (arch, dropped)]
    copy_metadata(reader, writer)
    for key, value in added.items():
        kind = gguf.GGUFValueType.STRING if isinstance(value, str) else gguf.GGUFValueType.FLOAT32
        writer.add_key_value("%s.%s" % (arch, key), value, kind)
    # The factors last, so that "truncated" cuts into one.
    tensors = sorted(reader.tensors, key=lambda t: t.name in (LONG, SHORT))
    for tensor in tensors:
        values = np.array(tensor.data)
        assert tensor.tensor_type == gguf.GGMLQuantizationType.F32, tensor.name
        edit = edits.get(tensor.name, lambda v: v)
        if tensor.name in edits and edit is None:
            continue
        writer.add_tensor(tensor.name, edit(values))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    if variant == "truncated":
        last = int(gguf.GGUFReader(target).tensors[-1].data_offset)
        with open(target, "r+b") as f:
            f.truncate(last + 4)


if __name__ == "__main__":
    main()
