"""Runs the host side of a CUDA artifact on the CPU and checks every launch.

Usage: host_trace.py <artifact dir> prefill <seq_len> | decode

Loads lib<P>.so with ctypes and installs a recording llmc_cuda_host_api
table (runtime/include/llmc/cuda_host_api.h): `alloc` hands out host
buffers, `copy` copies, `launch` records the kernel instead of running it.
Then it calls the entry point with host buffers standing in for device
memory. Every launch is checked against the PTX image embedded in the
artifact: the kernel exists, it gets exactly the parameters its .entry
declares, the grid and block are positive (block at most 1024 threads),
and every pointer parameter points inside a buffer the call knows about
(a weight, the KV cache, tokens, positions, logits or scratch) — which
catches host/device disagreements about memref descriptors. Prints one
line per launch (kernel name, grid, block) for FileCheck and "ok".
Nothing runs on a GPU: the kernels' arithmetic is not checked here.
"""
import ctypes
import json
import os
import re
import sys

PARAM_BYTES = {"u64": 8, "b64": 8, "s64": 8, "u32": 4, "b32": 4, "s32": 4, "f32": 4}


def ptx_kernels(ptx):
    """{name: [(size, is_pointer)]} from the .entry declarations."""
    kernels = {}
    for match in re.finditer(r"\.entry\s+(\w+)\(\s*(.*?)\)", ptx, re.S):
        params = []
        for decl in match.group(2).split(","):
            fields = decl.split()
            if not fields:
                continue
            kind = fields[1].lstrip(".")
            params.append((PARAM_BYTES[kind], ".ptr" in fields))
        kernels[match.group(1)] = params
    return kernels


class Buffers:
    """Host buffers standing in for device memory, by address range."""

    def __init__(self):
        self.keep, self.ranges = [], []

    def new(self, size, label):
        buf = ctypes.create_string_buffer(max(size, 1))
        self.keep.append(buf)
        self.ranges.append((ctypes.addressof(buf), size, label))
        return buf

    def owner(self, address):
        for base, size, label in self.ranges:
            if base <= address < base + size:
                return label
        return None


def main():
    art, entry = sys.argv[1], sys.argv[2]
    seq_len = int(sys.argv[3]) if entry == "prefill" else 1
    manifest_path = [f for f in os.listdir(art) if f.endswith(".json")][0]
    manifest = json.load(open(os.path.join(art, manifest_path)))
    lib = ctypes.CDLL(os.path.join(art, manifest["library"]))
    cuda = manifest["cuda"]
    ptx_image = next(i for i in cuda["images"] if i["format"] == "ptx")
    ptx = bytes((ctypes.c_char * ptx_image["bytes"]).in_dll(lib, ptx_image["symbol"]))
    kernels = ptx_kernels(ptx.rstrip(b"\0").decode())

    buffers = Buffers()
    errors, launches = [], []

    ALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64)
    LAUNCH = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p,
                              *([ctypes.c_uint32] * 7), ctypes.POINTER(ctypes.c_void_p))
    COPY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                            ctypes.c_uint64)

    def alloc(ctx, size):
        return ctypes.addressof(buffers.new(size, "scratch"))

    def launch(ctx, name, gx, gy, gz, bx, by, bz, shared, params):
        name = name.decode()
        launches.append("%s grid=(%d,%d,%d) block=(%d,%d,%d)" % (name, gx, gy, gz, bx, by, bz))
        if name not in kernels:
            errors.append("%s: not a kernel of the PTX image" % name)
            return
        if min(gx, gy, gz, bx, by, bz) <= 0 or bx * by * bz > 1024:
            errors.append("%s: bad launch shape" % name)
        for index, (size, is_pointer) in enumerate(kernels[name]):
            slot = params[index]
            if not slot:
                errors.append("%s: parameter %d missing" % (name, index))
                return
            if is_pointer:
                address = ctypes.cast(slot, ctypes.POINTER(ctypes.c_uint64))[0]
                if buffers.owner(address) is None:
                    errors.append("%s: pointer parameter %d (0x%x) is outside every buffer"
                                  % (name, index, address))

    def copy(ctx, dst, src, size):
        for address, role in ((dst, "destination"), (src, "source")):
            label = buffers.owner(address)
            if label is None or buffers.owner(address + size - 1) != label:
                errors.append("copy: %s range outside one buffer" % role)
                return
        ctypes.memmove(dst, src, size)

    callbacks = (ALLOC(alloc), LAUNCH(launch), COPY(copy))

    class HostAPI(ctypes.Structure):
        _fields_ = [("alloc", ALLOC), ("launch", LAUNCH), ("copy", COPY),
                    ("ctx", ctypes.c_void_p)]

    table = HostAPI(*callbacks, None)
    ctypes.c_void_p.in_dll(lib, cuda["host_api_symbol"]).value = ctypes.addressof(table)

    sizes = {"f32": 4, "bf16": 2, "f16": 2}
    weights = (ctypes.c_void_p * len(manifest["weights"]))()
    for i, w in enumerate(manifest["weights"]):
        count = 1
        for extent in w["shape"]:
            count *= extent
        weights[i] = ctypes.addressof(buffers.new(count * sizes[w["dtype"]], w["name"]))
    kv_elements = 1
    for extent in manifest["kv_cache"]["shape"]:
        kv_elements *= extent
    kv = buffers.new(kv_elements * sizes[manifest["kv_cache"]["dtype"]], "kv_cache")
    batch = manifest["batch"]
    tokens = buffers.new(4 * batch * seq_len, "tokens")
    positions = buffers.new(4 * batch * seq_len, "positions")
    logits = buffers.new(4 * batch * seq_len * manifest["config"]["vocab_size"], "logits")

    function = getattr(lib, manifest["entry_points"][entry])
    function.restype = ctypes.c_int32
    if entry == "prefill":
        status = function(tokens, positions, ctypes.c_int64(seq_len), kv, weights, logits)
    else:
        status = function(tokens, positions, kv, weights, logits)
    for line in launches:
        print(line)
    print("launches %d, status %d" % (len(launches), status))
    for error in errors:
        print("error: " + error)
    if errors or status != 0:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
