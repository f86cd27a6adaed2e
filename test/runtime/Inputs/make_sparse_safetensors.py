"""Writes a safetensors file of one f32 tensor "x" of BYTES bytes whose data
is a hole (a sparse file: it takes no disk space), for tests of weights
larger than memory.

Usage: make_sparse_safetensors.py <out> <bytes, a multiple of 4>
"""
import json
import struct
import sys


def main():
    out, size = sys.argv[1], int(sys.argv[2])
    header = json.dumps({"x": {"dtype": "F32", "shape": [size // 4],
                               "data_offsets": [0, size]}}).encode()
    header += b" " * (-len(header) % 8)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(header)))
        f.write(header)
        f.truncate(8 + len(header) + size)


if __name__ == "__main__":
    main()
