"""Checks the kernel images a CUDA artifact's shared library exports against
its manifest: for each image of the manifest's "cuda" object, the symbol's
size equals "bytes", a PTX image is NUL-terminated text for its
architecture, a cubin an ELF file for it. Prints one line per image.

Usage: check_cuda_images.py <lib.so> <manifest.json>   (standard library only)
"""
import json
import re
import struct
import sys


def read_symbols(data):
    """{name: bytes} of the defined dynamic symbols of an ELF64 file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    dynsym = next(s for s in sections if s[1] == 11)  # SHT_DYNSYM
    strtab = sections[dynsym[6]]
    symbols = {}
    for offset in range(dynsym[4], dynsym[4] + dynsym[5], 24):
        name_at, _, _, index, value, size = struct.unpack_from("<IBBHQQ", data, offset)
        if index == 0:
            continue
        end = data.index(b"\0", strtab[4] + name_at)
        name = data[strtab[4] + name_at:end].decode()
        # The section holding the symbol maps its address to a file offset.
        section = sections[index]
        symbols[name] = data[section[4] + value - section[3]:][:size]
    return symbols


def cubin_arch(image):
    if image[:4] != b"\x7fELF":
        return None
    flags, = struct.unpack_from("<I", image, 48)
    # ELF ABI version 8 (CUDA 12.9+) keeps the SM number in bits 8-15.
    sm = (flags >> 8) & 0xFF if image[8] >= 8 else flags & 0xFF
    return "sm_%d" % sm


def main():
    data = open(sys.argv[1], "rb").read()
    manifest = json.load(open(sys.argv[2]))
    symbols = read_symbols(data)
    for entry in manifest["cuda"]["images"]:
        image = symbols.get(entry["symbol"])
        what = "%s %s" % (entry["arch"], entry["format"])
        if image is None:
            print("%s: symbol %s missing" % (what, entry["symbol"]))
            continue
        size = "%d bytes, %s" % (len(image), "as in the manifest"
                                 if len(image) == entry["bytes"] else
                                 "NOT the manifest's %d" % entry["bytes"])
        if entry["format"] == "ptx":
            target = re.search(rb"\.target\s+(sm_\d+)", image)
            print("%s: %s, .target %s, %s" % (
                what, size, target.group(1).decode() if target else "none",
                "NUL-terminated" if image.endswith(b"\0") else "NOT NUL-terminated"))
        else:
            print("%s: %s, %s, %s" % (what, size,
                                      "ELF" if image[:4] == b"\x7fELF" else "NOT ELF",
                                      cubin_arch(image)))


if __name__ == "__main__":
    main()
