"""Copies a file with its tail cut off or zero bytes appended: resize_file.py <src> <dst> <delta>."""
import sys

src, dst, delta = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(src, "rb") as f:
    data = f.read()
data = data[:delta] if delta < 0 else data + b"\0" * delta
with open(dst, "wb") as f:
    f.write(data)
