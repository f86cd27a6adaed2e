"""Copies a GGUF file with RoPE scaling metadata set (the gguf package rewrites it; tensors unchanged).

Usage: gguf_rope_scaling.py <in.gguf> <out.gguf> <variant>   (a name of VARIANTS)

Used by llama_cpp_goldens.py (llama.cpp's logits on the copy) and by gguf-rope-llama-cpp.test (llmc's).
"""
import sys

import gguf
from gguf.scripts.gguf_new_metadata import MetadataDetails, copy_with_new_metadata

# <arch>.rope.* metadata of each variant, over a longer context than stories260K's training length.
T = gguf.GGUFValueType
YARN = {"rope.scaling.type": (T.STRING, "yarn"), "rope.scaling.factor": (T.FLOAT32, 4.0),
        "rope.scaling.original_context_length": (T.UINT32, 128), "context_length": (T.UINT32, 512)}
VARIANTS = {
    "yarn": YARN,
    # llama.cpp's own magnitude multiplier, on top of YaRN's 0.1 ln(factor) + 1.
    "yarn-attn-factor": dict(YARN, **{"rope.scaling.attn_factor": (T.FLOAT32, 1.5)}),
}


def main():
    source, target, variant = sys.argv[1:4]
    reader = gguf.GGUFReader(source)
    arch = reader.get_field(gguf.Keys.General.ARCHITECTURE).contents()
    writer = gguf.GGUFWriter(target, arch=arch, endianess=reader.endianess)
    metadata = {"%s.%s" % (arch, key): MetadataDetails(kind, value)
                for key, (kind, value) in VARIANTS[variant].items()}
    copy_with_new_metadata(reader, writer, metadata, [])


if __name__ == "__main__":
    main()
