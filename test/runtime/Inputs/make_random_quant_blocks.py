"""Writes a GGUF whose tensors are random bytes in every quantized format llmc loads (test data).

Usage: make_random_quant_blocks.py <out.gguf> <seed>
Random bytes reach every code, scale and sign pattern of a format, which quantizing smooth data does not.
Blocks whose f16 fields decode to infinity or NaN (by the gguf package's own dequantization) are replaced,
so that every value compared is finite and must match bit for bit. Needs gguf and numpy.
"""
import sys

import gguf
import numpy as np

Q = gguf.GGMLQuantizationType
TYPES = [Q.Q8_0, Q.Q4_0, Q.Q4_1, Q.Q5_0, Q.Q5_1, Q.Q2_K, Q.Q3_K, Q.Q4_K, Q.Q5_K, Q.Q6_K, Q.IQ4_NL]
ROWS = 8
BLOCKS_PER_ROW = 4


def finite_blocks(rng, qtype, n):
    block_elems, block_bytes = gguf.GGML_QUANT_SIZES[qtype]
    kept = np.empty((0, block_bytes), dtype=np.uint8)
    while kept.shape[0] < n:
        cand = rng.integers(0, 256, size=(2 * n, block_bytes), dtype=np.uint8)
        with np.errstate(all="ignore"):  # the infinities and NaNs being filtered out
            values = gguf.quants.dequantize(cand, qtype).reshape(2 * n, block_elems)
        kept = np.concatenate([kept, cand[np.isfinite(values).all(axis=1)]])
    return kept[:n]


def main():
    out, seed = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(out, arch="llama")
    for qtype in TYPES:
        blocks = finite_blocks(rng, qtype, ROWS * BLOCKS_PER_ROW)
        w.add_tensor("random." + qtype.name, blocks.reshape(ROWS, -1), raw_dtype=qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
