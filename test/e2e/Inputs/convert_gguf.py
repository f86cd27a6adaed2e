"""Writes a copy of a GGUF with its tensors converted by the gguf package, the reference (de)quantizer; every
metadata key is copied. Runs in the reference venv (scripts/reference-venv.sh).

Usage: convert_gguf.py <in.gguf> <out.gguf>            every tensor dequantized to F32 (gguf.quants.dequantize)
       convert_gguf.py <in.gguf> <out.gguf> <TYPE>     every F32 matrix whose rows are whole TYPE blocks quantized
                                                       to TYPE (gguf.quants.quantize; Q8_0, Q4_0, Q4_1, Q5_0, Q5_1),
                                                       the other tensors copied
Prints how many tensors of each type it wrote from which.
"""
import collections
import sys

import gguf
import numpy as np

SKIPPED_KEYS = ("GGUF.", "general.architecture")  # written by GGUFWriter itself


def copy_metadata(reader, writer):
    for name, field in reader.fields.items():
        if name.startswith(SKIPPED_KEYS):
            continue
        vtype = field.types[0]
        sub_type = field.types[-1] if vtype == gguf.GGUFValueType.ARRAY else None
        if name == "general.alignment":
            continue  # GGUFWriter keeps its own (the default); the data is rewritten anyway
        writer.add_key_value(name, field.contents(), vtype, sub_type=sub_type)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    target = gguf.GGMLQuantizationType[sys.argv[3]] if len(sys.argv) > 3 else None
    reader = gguf.GGUFReader(src)
    writer = gguf.GGUFWriter(dst, reader.fields["general.architecture"].contents())
    copy_metadata(reader, writer)
    counts = collections.Counter()
    for tensor in reader.tensors:
        # GGUF shapes are innermost first; numpy's are outermost first.
        shape = [int(d) for d in reversed(tensor.shape)]
        values = gguf.quants.dequantize(tensor.data, tensor.tensor_type).astype(np.float32).reshape(shape)
        block = gguf.GGML_QUANT_SIZES[target][0] if target is not None else None
        if target is None:
            writer.add_tensor(tensor.name, values)
            counts["%s->F32" % tensor.tensor_type.name] += 1
        elif tensor.tensor_type == gguf.GGMLQuantizationType.F32 and len(shape) == 2 and shape[1] % block == 0:
            writer.add_tensor(tensor.name, gguf.quants.quantize(values, target), raw_dtype=target)
            counts["F32->%s" % target.name] += 1
        else:
            writer.add_tensor(tensor.name, values)
            counts["%s->F32" % tensor.tensor_type.name] += 1
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print("converted: " + " ".join("%s=%d" % kv for kv in sorted(counts.items())))


if __name__ == "__main__":
    main()
