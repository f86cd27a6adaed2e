"""Writes an F32 copy of a GGUF: every tensor dequantized by the gguf package (gguf.quants.dequantize, the
reference dequantizer), every metadata key copied. Runs in the reference venv (scripts/reference-venv.sh).

Usage: dequantize_gguf.py <in.gguf> <out.gguf>
Prints how many tensors of each type it dequantized.
"""
import collections
import sys

import gguf
import numpy as np

SKIPPED_KEYS = ("GGUF.", "general.architecture")  # written by GGUFWriter itself


def main():
    src, dst = sys.argv[1], sys.argv[2]
    reader = gguf.GGUFReader(src)
    writer = gguf.GGUFWriter(dst, reader.fields["general.architecture"].contents())
    for name, field in reader.fields.items():
        if name.startswith(SKIPPED_KEYS):
            continue
        vtype = field.types[0]
        sub_type = field.types[-1] if vtype == gguf.GGUFValueType.ARRAY else None
        if name == "general.alignment":
            continue  # GGUFWriter keeps its own (the default); the data is rewritten anyway
        writer.add_key_value(name, field.contents(), vtype, sub_type=sub_type)
    counts = collections.Counter()
    for tensor in reader.tensors:
        values = gguf.quants.dequantize(tensor.data, tensor.tensor_type).astype(np.float32)
        # GGUF shapes are innermost first; numpy's are outermost first.
        values = values.reshape([int(d) for d in reversed(tensor.shape)])
        writer.add_tensor(tensor.name, values)
        counts[tensor.tensor_type.name] += 1
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print("dequantized: " + " ".join("%s=%d" % kv for kv in sorted(counts.items())))


if __name__ == "__main__":
    main()
