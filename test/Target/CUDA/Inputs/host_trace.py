"""Runs the host side of a CUDA artifact on the CPU and checks every launch.

Usage: host_trace.py <artifact dir> prefill <seq_len> [<logit_rows>] | decode
                     [--scratch-trace FILE]

Loads lib<P>.so with ctypes and installs a recording llmc_cuda_host_api
table (runtime/include/llmc/cuda_host_api.h): `alloc` hands out host
buffers, `release` ends one (it is never handed out again, so a later
launch that points into it is reported), `copy` copies, `launch` records
the kernel instead of running it.
Then it calls the entry point with host buffers standing in for device
memory. Every launch is checked against the PTX image embedded in the
artifact: the kernel exists, it gets exactly the parameters its .entry
declares, the grid and block are positive (block at most 1024 threads),
and every pointer parameter points inside a buffer the call knows about
(a weight, the KV cache, tokens, positions, logits or scratch) — which
catches host/device disagreements about memref descriptors — and that
no launch reads scratch released before it. Prints one line per launch
(kernel name, grid, block) for FileCheck, the scratch totals (largest live
set, sum of all allocations) and "ok".

With --scratch-trace, no buffer has memory behind it (addresses only: the
host code never reads device memory, and a LLaMA-3-8B's weights would not
fit), launches are not printed, and FILE gets the call's scratch requests
for `llmc-runtime-test scratch-replay` (one per line: a size, or
"release <n>" for the n-th block).
Nothing runs on a GPU: the kernels' arithmetic is not checked here
(simulate_artifact.py runs the launches in test/lib/cuda_sim.py).

The pieces (Artifact, Buffers, HostAPI, ModelBuffers) are shared with
simulate_artifact.py.
"""
import ctypes
import json
import os
import re
import sys

PARAM_BYTES = {"u64": 8, "b64": 8, "s64": 8, "u32": 4, "b32": 4, "s32": 4, "f32": 4}
DTYPE_BYTES = {"f32": 4, "bf16": 2, "f16": 2}
# GGUF block formats: (elements, bytes) per block (dialect/LLMTypes.td).
BLOCK_FORMATS = {"q8_0": (32, 34), "q4_0": (32, 18), "q4_1": (32, 20),
                 "q5_0": (32, 22), "q5_1": (32, 24), "q4_k": (256, 144),
                 "q5_k": (256, 176), "q6_k": (256, 210)}


def weight_bytes(weight):
    """Bytes of a manifest weight: elements of a float dtype, or the rows'
    blocks."""
    if weight["dtype"] in BLOCK_FORMATS:
        elements, nbytes = BLOCK_FORMATS[weight["dtype"]]
        return element_count(weight["shape"]) // elements * nbytes
    return element_count(weight["shape"]) * DTYPE_BYTES[weight["dtype"]]
# cuMemAlloc's alignment; buffers here get it too, so alignment claims of
# the kernels are checked against realistic addresses.
DEVICE_ALIGNMENT = 256


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


class Artifact:
    """An artifact directory: manifest, the loaded library, its PTX kernels."""

    def __init__(self, path):
        manifest_path = [f for f in os.listdir(path) if f.endswith(".json")][0]
        self.manifest = json.load(open(os.path.join(path, manifest_path)))
        self.lib = ctypes.CDLL(os.path.join(path, self.manifest["library"]))
        self.cuda = self.manifest["cuda"]
        image = next(i for i in self.cuda["images"] if i["format"] == "ptx")
        ptx = bytes((ctypes.c_char * image["bytes"]).in_dll(self.lib, image["symbol"]))
        self.kernels = ptx_kernels(ptx.rstrip(b"\0").decode())
        self.vocab = self.manifest["config"]["vocab_size"]
        self.batch = self.manifest["batch"]


class Buffers:
    """Host buffers standing in for device memory, by address range; with
    `virtual`, address ranges only (no memory behind them)."""

    VIRTUAL_BASE = 1 << 44

    def __init__(self, virtual=False):
        self.keep, self.ranges, self.released = [], [], []
        self.virtual, self.next_virtual = virtual, self.VIRTUAL_BASE

    def new(self, size, label, fill=0):
        """The address of a new buffer of `size` bytes, DEVICE_ALIGNMENT
        aligned, every byte `fill`."""
        if self.virtual:
            address = self.next_virtual
            self.next_virtual += -(-max(size, 1) // DEVICE_ALIGNMENT) * DEVICE_ALIGNMENT
        else:
            buf = ctypes.create_string_buffer(max(size, 1) + DEVICE_ALIGNMENT)
            address = -(-ctypes.addressof(buf) // DEVICE_ALIGNMENT) * DEVICE_ALIGNMENT
            if fill:
                ctypes.memset(address, fill, size)
            self.keep.append(buf)
        self.ranges.append((address, size, label))
        return address

    def release(self, address, fill):
        """Ends the buffer that starts at `address` (its bytes become `fill`,
        as if a later block had overwritten them); False when no buffer
        starts there."""
        for index, entry in enumerate(self.ranges):
            if entry[0] == address:
                del self.ranges[index]
                self.released.append(entry)
                if not self.virtual:
                    ctypes.memset(address, fill, entry[1])
                return True
        return False

    def owner(self, address):
        """(base, size, label) of the buffer holding `address`, or None."""
        for entry in self.ranges:
            if entry[0] <= address < entry[0] + entry[1]:
                return entry
        return None

    def released_owner(self, address):
        """(base, size, label) of a released buffer holding `address`."""
        for entry in self.released:
            if entry[0] <= address < entry[0] + entry[1]:
                return entry
        return None


class HostAPI:
    """The recording llmc_cuda_host_api table of an artifact. Launches are
    checked against the PTX and recorded in `launches`; problems go to
    `errors`; `on_launch(name, grid, block, params)`, when given, runs each
    launch that passed the checks. New and released scratch buffers are
    filled with `scratch_fill` bytes (0xFF when 0: a released block must
    not be read again). `requests` lists the scratch requests (sizes, and
    ("release", n) for the n-th block); `live` and `largest_live` count the
    live scratch bytes, each block rounded up to DEVICE_ALIGNMENT as the
    runtime hands it out."""

    ALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64)
    LAUNCH = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p,
                              *([ctypes.c_uint32] * 7), ctypes.POINTER(ctypes.c_void_p))
    COPY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                            ctypes.c_uint64)
    RELEASE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)

    def __init__(self, artifact, buffers, on_launch=None, scratch_fill=0):
        self.artifact, self.buffers = artifact, buffers
        self.on_launch, self.scratch_fill = on_launch, scratch_fill
        self.errors, self.launches = [], []
        self.requests, self.scratch_index, self.sizes = [], {}, []
        self.live = self.largest_live = self.total_scratch = 0
        self.callbacks = (self.ALLOC(self.alloc), self.LAUNCH(self.launch),
                          self.COPY(self.copy), self.RELEASE(self.release))

        class Table(ctypes.Structure):
            _fields_ = [("alloc", self.ALLOC), ("launch", self.LAUNCH), ("copy", self.COPY),
                        ("ctx", ctypes.c_void_p), ("release", self.RELEASE)]

        self.table = Table(*self.callbacks[:3], None, self.callbacks[3])
        ctypes.c_void_p.in_dll(artifact.lib, artifact.cuda["host_api_symbol"]).value = \
            ctypes.addressof(self.table)

    def alloc(self, ctx, size):
        address = self.buffers.new(size, "scratch", self.scratch_fill)
        self.scratch_index[address] = len(self.sizes)
        self.sizes.append(size)
        self.requests.append(size)
        rounded = -(-max(size, 1) // DEVICE_ALIGNMENT) * DEVICE_ALIGNMENT
        self.live += rounded
        self.total_scratch += rounded
        self.largest_live = max(self.largest_live, self.live)
        return address

    def release(self, ctx, address):
        index = self.scratch_index.get(address)
        if index is None or not self.buffers.release(address, self.scratch_fill or 0xFF):
            self.errors.append("release: 0x%x is not a live scratch block" % (address or 0))
            return
        size = self.sizes[index]
        self.live -= -(-max(size, 1) // DEVICE_ALIGNMENT) * DEVICE_ALIGNMENT
        self.requests.append(("release", index))

    def launch(self, ctx, name, gx, gy, gz, bx, by, bz, shared, params):
        name = name.decode()
        self.launches.append("%s grid=(%d,%d,%d) block=(%d,%d,%d)" % (name, gx, gy, gz, bx, by, bz))
        kernels = self.artifact.kernels
        if name not in kernels:
            self.errors.append("%s: not a kernel of the PTX image" % name)
            return
        ok = True
        if min(gx, gy, gz, bx, by, bz) <= 0 or bx * by * bz > 1024:
            self.errors.append("%s: bad launch shape" % name)
            ok = False
        for index, (size, is_pointer) in enumerate(kernels[name]):
            slot = params[index]
            if not slot:
                self.errors.append("%s: parameter %d missing" % (name, index))
                return
            if is_pointer:
                address = ctypes.cast(slot, ctypes.POINTER(ctypes.c_uint64))[0]
                if self.buffers.owner(address) is None:
                    released = self.buffers.released_owner(address) is not None
                    self.errors.append("%s: pointer parameter %d (0x%x) is %s"
                                       % (name, index, address,
                                          "in scratch released before this launch" if released
                                          else "outside every buffer"))
                    ok = False
        if ok and self.on_launch and not self.errors:
            try:
                self.on_launch(name, (gx, gy, gz), (bx, by, bz), params)
            except Exception as error:  # ctypes callbacks must not raise
                self.errors.append("%s: %s" % (name, error))

    def copy(self, ctx, dst, src, size):
        for address, role in ((dst, "destination"), (src, "source")):
            entry = self.buffers.owner(address)
            if entry is None or self.buffers.owner(address + size - 1) != entry:
                self.errors.append("copy: %s range outside one buffer" % role)
                return
        if not self.buffers.virtual:
            ctypes.memmove(dst, src, size)


def element_count(shape):
    count = 1
    for extent in shape:
        count *= extent
    return count


def shuffled_page_table(batch, pages_per_sequence):
    """A paged cache's table, row-major (batch, pages per sequence): a
    fixed shuffle of the pool, so that no page is where the identity would
    put it and the sequences' pages interleave (the runtime hands out pages
    in reverse order; any table gives the same logits)."""
    import random
    pool = list(range(batch * pages_per_sequence))
    random.Random(pages_per_sequence).shuffle(pool)
    return pool


# Bytes of one code of a quantized KV cache (kv_cache.scale_bytes > 0).
KV_CODE_BYTES = {"i8": 1, "f8E4M3FN": 1}


def kv_cache_bytes(kv):
    """Bytes of the manifest's kv_cache: shape (2, layers, batch, capacity,
    kv_heads, head_dim) elements, or for a quantized cache head rows of
    head_dim codes and scale_bytes of scale each."""
    scale_bytes = kv.get("scale_bytes", 0)
    if not scale_bytes:
        return element_count(kv["shape"]) * DTYPE_BYTES[kv["dtype"]]
    rows = element_count(kv["shape"][:-1])
    return rows * (kv["shape"][-1] * KV_CODE_BYTES[kv["dtype"]] + scale_bytes)


class ModelBuffers:
    """Weights, KV cache, tokens, positions and logits of an entry point
    call for up to `max_tokens` tokens per sequence. A paged cache's buffer
    starts with its page table (page_table_bytes, shuffled_page_table), as
    the runtime lays it out."""

    def __init__(self, artifact, buffers, max_tokens, kv_fill=0):
        manifest = artifact.manifest
        self.artifact = artifact
        self.weights = (ctypes.c_void_p * len(manifest["weights"]))()
        self.weight_addresses = {}
        for i, w in enumerate(manifest["weights"]):
            size = weight_bytes(w)
            self.weights[i] = buffers.new(size, w["name"])
            self.weight_addresses[w["name"]] = (self.weights[i], size)
        kv = manifest["kv_cache"]
        table_bytes = kv["page_table_bytes"] if kv.get("layout") == "paged" else 0
        self.kv = buffers.new(table_bytes + kv_cache_bytes(kv),
                              "kv_cache", kv_fill)
        self.page_table = None
        if table_bytes:
            # shape: (2, layers, batch, capacity, kv_heads, head_dim).
            self.page_table = shuffled_page_table(artifact.batch,
                                                  kv["shape"][3] // kv["page_size"])
            table = (ctypes.c_int32 * len(self.page_table))(*self.page_table)
            if not buffers.virtual:
                ctypes.memmove(self.kv, table, ctypes.sizeof(table))
        rows = artifact.batch * max_tokens
        self.tokens = buffers.new(4 * rows, "tokens")
        self.positions = buffers.new(4 * rows, "positions")
        self.logits = buffers.new(4 * rows * artifact.vocab, "logits")

    def call(self, entry, seq_len, logit_rows=None):
        """Calls the prefill (seq_len tokens, the logits of the last
        logit_rows of them: all by default) or decode entry point."""
        lib, manifest = self.artifact.lib, self.artifact.manifest
        function = getattr(lib, manifest["entry_points"][entry])
        function.restype = ctypes.c_int32
        p = ctypes.c_void_p
        if entry == "prefill":
            rows = seq_len if logit_rows is None else logit_rows
            return function(p(self.tokens), p(self.positions), ctypes.c_int64(seq_len),
                            ctypes.c_int64(rows), p(self.kv), self.weights, p(self.logits))
        return function(p(self.tokens), p(self.positions), p(self.kv), self.weights,
                        p(self.logits))


def main():
    args = sys.argv[1:]
    trace_path = None
    if "--scratch-trace" in args:
        at = args.index("--scratch-trace")
        trace_path = args[at + 1]
        del args[at:at + 2]
    art, entry = args[0], args[1]
    seq_len = int(args[2]) if entry == "prefill" else 1
    logit_rows = int(args[3]) if entry == "prefill" and len(args) > 3 else None
    artifact = Artifact(art)
    buffers = Buffers(virtual=trace_path is not None)
    api = HostAPI(artifact, buffers)
    model = ModelBuffers(artifact, buffers, seq_len)
    status = model.call(entry, seq_len, logit_rows)
    if trace_path is None:
        for line in api.launches:
            print(line)
    else:
        with open(trace_path, "w") as trace:
            for request in api.requests:
                trace.write("release %d\n" % request[1] if isinstance(request, tuple)
                            else "%d\n" % request)
    print("launches %d, status %d" % (len(api.launches), status))
    allocs = len(api.scratch_index)
    print("scratch: %d blocks, %d released, largest live set %d bytes, all blocks %d bytes"
          % (allocs, len(api.requests) - allocs, api.largest_live, api.total_scratch))
    if api.live:
        print("scratch live at return: %d bytes" % api.live)
    for error in api.errors:
        print("error: " + error)
    if api.errors or status != 0:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
