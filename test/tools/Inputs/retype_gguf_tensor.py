"""Copies a GGUF file with one tensor's ggml type id replaced in its header (the data is left as it is): a way to
make a well-formed file that holds a type llmc cannot load. Standard library only.

Usage: retype_gguf_tensor.py <in.gguf> <out.gguf> <tensor name> <new type id>
"""
import struct
import sys

src, dst, name, new_type = sys.argv[1], sys.argv[2], sys.argv[3].encode(), int(sys.argv[4])
data = bytearray(open(src, "rb").read())
# A tensor info is: u64 name length, the name, u32 n_dims, n_dims x u64 dims, u32 type, u64 offset.
key = struct.pack("<Q", len(name)) + name
at = data.find(key)
if at < 0:
    sys.exit("no tensor named %s" % name.decode())
at += len(key)
n_dims = struct.unpack_from("<I", data, at)[0]
at += 4 + 8 * n_dims
struct.pack_into("<I", data, at, new_type)
open(dst, "wb").write(data)
