"""A lock-step SIMT interpreter of llmc's CUDA kernels, at the kernels phase.

`llmc --compile-to=kernels --target=cuda:<sm>` prints the model's host
functions and a `gpu.module @llmc_kernels` of `gpu.func` kernels written in
the arith, math, memref, vector, scf, gpu, nvgpu and nvvm dialects (plus
llvm.extractvalue / llvm.call_intrinsic). This module parses those kernels and
executes a launch on the CPU: every thread of the grid runs in lock step
(all threads finish an op before any starts the next), each SSA value is a
numpy array with one row per thread, and control flow is executed under an
activity mask (both sides of a divergent `scf.if`, loops with per-thread
bounds iterated until every thread is done; uniform branches and loops run
once). Blocks run side by side in chunks of up to MAX_CHUNK_THREADS threads,
so a launch costs a few numpy operations per executed op and chunk, not per
thread: a whole tiny model's prefill takes about a second.

What it models
  - Values: f32 arithmetic in float32 with IEEE round-to-nearest (addf, mulf,
    divf, sqrt as PTX's .rn instructions); fma (math.fma, vector.fma) as one
    rounding of the float64 result; exp/log/sin/cos/tanh/erf in float64
    rounded to f32 (the GPU's libdevice functions are within 2 ulp of that);
    bf16/f16 values held exactly in float32 and rounded to nearest even by
    truncf; i32 arithmetic wrapping at 32 bits, index at 64; signed and
    unsigned comparisons, divisions and shifts as arith defines them;
    vector.reduction in element order (LLVM's ordered reduction).
  - Memory: kernel memref arguments are views of caller-provided numpy
    buffers, addressed through the memref descriptor (aligned pointer,
    sizes, strides) exactly as the device code does: static sizes and
    strides of the memref type win over the descriptor (a disagreement is
    reported), the descriptor's offset is ignored for identity layouts (and
    reported when not 0).
    Workgroup attributions are per-block arrays poisoned with NaN (floats)
    or 0x7A5A5A5A (integers), so a read of memory no thread wrote shows up in
    the results; memref.global constants (the RoPE frequency tables) are
    read-only arrays; memref.atomic_rmw is serialized in thread order.
  - Warp-level ops: gpu.shuffle (xor, idx, up, down; width 32);
    nvgpu.ldmatrix (x4, not transposed) and nvvm.mma.sync m16n8k16 bf16/f16
    with f32 accumulators, with the fragment layouts of the PTX ISA
    (products exact, sums in float64 rounded once to f32).
  - Checks, reported with the block and thread: an access outside a memref's
    extents or outside the buffer behind it; an `alignment` claim the byte
    address does not meet; a descriptor that disagrees with the kernel's
    static memref type; gpu.barrier reached by part of a block;
    gpu.shuffle/ldmatrix/mma.sync reached by part of a warp; shared-memory
    races (two threads of a block touching one address between two barriers,
    at least one writing, atomics excepted); global-memory races (a block
    reading or writing what another block, or another thread of its block
    since the last barrier, wrote or read in the same launch); integer
    division by zero; stores to constant memory.

What it does not model
  - Timing, occupancy, warp scheduling, the order in which blocks run (it
    runs them in lock step: a kernel that relies on an inter-block order is
    reported as racy rather than simulated), memory-model details beyond
    barriers (fences, caches, memory ordering of atomics), bank conflicts.
  - Anything after the kernels phase: it checks the kernels' IR semantics,
    not the PTX, ptxas or driver path. Code generation bugs of the NVPTX
    backend or ptxas, register spills, launch-resource limits (registers,
    shared memory size), FMA contraction or approximate math chosen below
    this level, and the driver's handling of parameters are invisible here
    (test/tools/llmc-compile-cuda.test, ptxas checks and the GPU tests
    cover those). Reads of global memory nobody wrote are caught only when
    the caller poisons it (simulate_artifact.py fills scratch and the KV
    cache with NaN bytes).

Usage
  module = cuda_sim.Module(open("kernels.mlir").read())
  kernel = module.kernels["gemv_n64_k64_f32_r1"]
  args = [cuda_sim.memref_of(x), cuda_sim.memref_of(w), cuda_sim.memref_of(y)]
  module.launch("gemv_n64_k64_f32_r1", grid=(8, 1, 1), block=(256, 1, 1),
                args=args)       # raises SimError listing what it found

  python3 cuda_sim.py <kernels.mlir>   parses every kernel (unsupported ops
                                       are reported) and lists them
"""
import re
import sys

import numpy as np

WARP = 32
MAX_CHUNK_THREADS = 1 << 14
MAX_REPORTS = 20
POISON_INT = 0x7A5A5A5A


class SimError(Exception):
    """An unsupported construct, or the problems a launch found."""


# ----------------------------------------------------------------- types

# element type -> (numpy dtype of values, numpy dtype in memory)
ELEMENTS = {
    "f32": (np.float32, np.float32), "f64": (np.float64, np.float64),
    "f16": (np.float32, np.float16), "bf16": (np.float32, np.uint16),
    "i1": (np.bool_, np.uint8), "i8": (np.int8, np.int8),
    "i16": (np.int16, np.int16), "i32": (np.int32, np.int32),
    "i64": (np.int64, np.int64), "index": (np.int64, np.int64),
}
UNSIGNED = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16,
            np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}


class VType:
    """A scalar (shape ()) or vector type: element and vector shape."""

    def __init__(self, elem, shape=()):
        if elem not in ELEMENTS:
            raise SimError("unsupported element type %s" % elem)
        self.elem, self.shape = elem, tuple(shape)
        self.dtype = ELEMENTS[elem][0]

    def __repr__(self):
        return "VType(%s, %s)" % (self.elem, self.shape)


def parse_vtype(text):
    text = text.strip()
    m = re.match(r"vector<([\dx]+)x(\w+)>$", text)
    if m:
        return VType(m.group(2), [int(d) for d in m.group(1).split("x")])
    return VType(text)


def split_top(text, sep=","):
    """Splits at `sep` outside <>, (), [] and {}."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


class MemRefType:
    """memref<shape x elem[, layout][, memory space]>: static sizes (None
    for ?), strides and offset (None when dynamic), shared or not."""

    def __init__(self, text):
        m = re.match(r"memref<(.*)>$", text.strip())
        if not m:
            raise SimError("not a memref type: %s" % text)
        parts = split_top(m.group(1))
        dims = parts[0].split("x")
        self.elem = dims[-1]
        if self.elem not in ELEMENTS:
            raise SimError("unsupported memref element %s" % text)
        self.shape = [None if d == "?" else int(d) for d in dims[:-1]]
        self.shared = False
        self.strides, self.offset, self.identity = None, 0, True
        for extra in parts[1:]:
            if extra in ("3", "#gpu.address_space<workgroup>"):
                self.shared = True
            elif extra in ("1", "#gpu.address_space<global>"):
                pass
            elif extra.startswith("strided<"):
                sm = re.match(r"strided<\[([^\]]*)\](?:,\s*offset:\s*(\?|-?\d+))?>", extra)
                self.strides = [None if s.strip() == "?" else int(s)
                                for s in sm.group(1).split(",") if s.strip()]
                off = sm.group(2)
                self.offset = 0 if off is None else (None if off == "?" else int(off))
                self.identity = False
            else:
                raise SimError("unsupported memref layout or space %s" % text)
        if self.strides is None:
            # Identity layout: a stride is static when every size after it is.
            self.strides, run = [], 1
            for size in reversed(self.shape):
                self.strides.insert(0, run)
                run = None if (run is None or size is None) else run * size
        self.rank = len(self.shape)
        self.text = text.strip()


# ------------------------------------------------------------ conversions

def round_bf16(values):
    """float32 values rounded to the nearest bf16 (ties to even), NaN kept."""
    a = np.ascontiguousarray(values, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = rounded.view(np.float32)
    return np.where(np.isnan(a), np.float32(np.nan), out)


def to_memory(values, elem):
    """Values (value dtype) -> memory representation."""
    if elem == "bf16":
        return (round_bf16(values).view(np.uint32) >> 16).astype(np.uint16)
    if elem == "f16":
        return np.asarray(values, np.float32).astype(np.float16)
    if elem == "i1":
        return np.asarray(values).astype(np.uint8)
    return np.asarray(values).astype(ELEMENTS[elem][1], copy=False)


def from_memory(raw, elem):
    """Memory representation -> values."""
    if elem == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32)
    if elem == "f16":
        return raw.astype(np.float32)
    if elem == "i1":
        return raw != 0
    return raw


def convert_float(values, elem):
    """Round float values to `elem` (values stay in their value dtype)."""
    if elem == "bf16":
        return round_bf16(values)
    if elem == "f16":
        return np.asarray(values, np.float32).astype(np.float16).astype(np.float32)
    return np.asarray(values).astype(ELEMENTS[elem][0])


def unsigned(a):
    a = np.asarray(a)
    return a.view(UNSIGNED[a.dtype]) if a.dtype in UNSIGNED else a


# ------------------------------------------------------------------ memory

class Storage:
    """A flat typed array that memrefs point into: a caller's buffer, a
    block's workgroup memory or a constant global. `key` names the memory
    behind it (storages over one host buffer share it) and `byte0` is the
    storage's start within that memory; `address` is its byte address (for
    alignment checks)."""

    def __init__(self, raw, elem, kind="global", key=None, byte0=0, address=0,
                 label=""):
        self.raw, self.elem, self.kind = raw, elem, kind
        self.key = key if key is not None else id(self)
        self.byte0, self.address, self.label = byte0, address, label
        self.esize = raw.dtype.itemsize


class MemRef:
    """A memref value: storage, element index of [0, ...] (an int, or one
    per thread for workgroup memory), sizes and strides. As a launch
    argument, `base` is the descriptor's aligned pointer and `offset` its
    offset field."""

    def __init__(self, storage, base, sizes, strides, mtype=None, offset=0):
        self.storage, self.base = storage, base
        self.sizes, self.strides = list(sizes), list(strides)
        self.type, self.offset = mtype, offset


def memref_of(array, elem=None, label="", address=None):
    """A MemRef over a whole numpy array (row-major, used in place), for
    tests. `elem` defaults from the dtype; bf16 arrays are uint16 bits."""
    if not array.flags.c_contiguous:
        raise SimError("memref_of needs a contiguous array")
    if elem is None:
        elem = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
                np.dtype(np.float16): "f16", np.dtype(np.int32): "i32",
                np.dtype(np.int64): "i64", np.dtype(np.uint16): "bf16"}[array.dtype]
    flat = array.reshape(-1)
    addr = flat.ctypes.data if address is None else address
    storage = Storage(flat, elem, "global", key=("np", flat.ctypes.data),
                      byte0=0, address=addr, label=label)
    strides = [int(np.prod(array.shape[i + 1:])) for i in range(array.ndim)]
    return MemRef(storage, 0, array.shape, strides)


BIG = np.int64(1) << 62


class Tracker:
    """Who touched which slot (`gran` bytes) of one memory, for race checks:
    the last writer, and the lowest and highest thread (launch-wide ids,
    block * T + thread) that read or atomically updated it since that
    block's last barrier (or ever, for readers in several blocks)."""

    def __init__(self, nbytes, gran):
        n = max(1, -(-nbytes // gran))
        self.gran = gran
        self.w_tid = np.full(n, -1, np.int64)
        self.w_ep = np.full(n, -1, np.int64)
        self.r_min = np.full(n, BIG, np.int64)
        self.r_max = np.full(n, -1, np.int64)
        self.r_ep = np.full(n, -1, np.int64)
        self.a_min = np.full(n, BIG, np.int64)
        self.a_max = np.full(n, -1, np.int64)
        self.a_ep = np.full(n, -1, np.int64)
        self.t_min = np.full(n, BIG, np.int64)
        self.t_max = np.full(n, -1, np.int64)


# --------------------------------------------------------------- parsing

class Op:
    def __init__(self, results, name, text, line):
        self.results, self.name, self.text, self.line = results, name, text, line
        self.regions = []


NAME = r"%[\w.$-]+"
RES_RE = re.compile(r"^((?:%s(?::\d+)?)(?:\s*,\s*%s(?::\d+)?)*)\s*=\s*([\w.]+)\s*(.*)$" % (NAME, NAME))
NORES_RE = re.compile(r"^([\w.]+)\s*(.*)$")
VAL = r"%[\w.$-]+(?:#\d+)?"


def parse_op_line(line, number):
    m = RES_RE.match(line)
    if m:
        results = []
        for r in m.group(1).split(","):
            r = r.strip()
            if ":" in r:
                base, n = r.split(":")
                results.extend("%s#%d" % (base, i) for i in range(int(n)))
            else:
                results.append(r)
        return Op(results, m.group(2), m.group(3), number)
    m = NORES_RE.match(line)
    if not m:
        raise SimError("line %d: cannot parse %r" % (number, line))
    return Op([], m.group(1), m.group(2), number)


def parse_region(lines, i):
    """Ops up to the closing '}' of a region; returns (ops, index of '}')."""
    ops = []
    while i < len(lines):
        line = lines[i].strip()
        if not line or line.startswith("//"):
            i += 1
            continue
        if line.startswith("}"):
            return ops, i
        op = parse_op_line(line, i + 1)
        i += 1
        if line.endswith("{"):
            body, i = parse_region(lines, i)
            op.regions.append(body)
            while lines[i].strip().startswith("} else {"):
                body, i = parse_region(lines, i + 1)
                op.regions.append(body)
            i += 1
        ops.append(op)
    raise SimError("unterminated region")


def parse_dense(text, vtype_elem, count):
    """Values of dense<...> for `count` elements of `vtype_elem`."""
    text = text.strip()
    value_dtype, mem_dtype = ELEMENTS[vtype_elem]
    if text.startswith('"0x'):
        raw = bytes.fromhex(text[3:-1])
        arr = np.frombuffer(raw, dtype=mem_dtype)
        if arr.size == 1:
            arr = np.repeat(arr, count)
        return from_memory(arr.copy(), vtype_elem)
    body = text.strip("[] ")
    items = [x for x in re.split(r"[\s,\[\]]+", body) if x]
    vals = [parse_scalar(x, vtype_elem) for x in items]
    if len(vals) == 1:
        vals = vals * count
    if len(vals) != count:
        raise SimError("dense literal of %d values for %d elements" % (len(vals), count))
    return np.array(vals, dtype=value_dtype)


def parse_scalar(text, elem):
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if elem in ("f32", "f64", "f16", "bf16"):
        if text.lower().startswith("0x"):
            bits = int(text, 16)
            if elem == "f32":
                return np.array([bits], np.uint32).view(np.float32)[0]
            if elem == "f64":
                return np.array([bits], np.uint64).view(np.float64)[0]
            return from_memory(np.array([bits], ELEMENTS[elem][1]), elem)[0]
        return float(text)
    value = int(text, 0)
    if elem == "i1":
        return value != 0
    bits = np.dtype(ELEMENTS[elem][0]).itemsize * 8
    value &= (1 << bits) - 1
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


class Kernel:
    def __init__(self, name, params, workgroup, block, body, module):
        self.name = name
        self.params = params          # [(name, MemRefType or VType)]
        self.workgroup = workgroup    # [(name, MemRefType)]
        self.known_block = block      # (x, y, z) or None
        self.body = body
        self.module = module
        self.stored = set()           # parameter names stored to
        self.code = Compiler(self).block(body)


class Module:
    """The gpu.module(s) of a kernels-phase listing."""

    def __init__(self, text):
        self.kernels, self.globals = {}, {}
        lines = text.split("\n")
        i = 0
        while i < len(lines):
            s = lines[i].strip()
            if s.startswith("memref.global"):
                self._global(s)
            elif s.startswith("gpu.func @"):
                i = self._func(lines, i)
                continue
            i += 1

    def _global(self, line):
        m = re.match(r'memref.global\s+(?:"\w+"\s+)?(constant\s+)?@(\w+)\s*:\s*(memref<[^>]*>)', line)
        if not m:
            raise SimError("cannot parse %s" % line)
        mtype = MemRefType(m.group(3))
        count = int(np.prod(mtype.shape))
        at = line.find("dense<", m.end())
        if at < 0:
            values = np.zeros(count, ELEMENTS[mtype.elem][0])
        else:
            depth, k = 0, at + len("dense")
            for k in range(at + len("dense"), len(line)):
                depth += line[k] == "<"
                depth -= line[k] == ">"
                if depth == 0:
                    break
            values = parse_dense(line[at + len("dense<"):k], mtype.elem, count)
        raw = to_memory(values, mtype.elem)
        storage = Storage(raw, mtype.elem, "const" if m.group(1) else "global",
                          label="@" + m.group(2), address=0)
        strides = [int(np.prod(mtype.shape[i + 1:])) for i in range(mtype.rank)]
        self.globals[m.group(2)] = MemRef(storage, 0, mtype.shape, strides, mtype)

    def _func(self, lines, i):
        head = lines[i].strip()
        name = re.match(r"gpu.func @(\w+)\(", head).group(1)
        # Parameters: up to the ')' that closes the parameter list.
        depth, j = 0, head.index("(")
        for k in range(j, len(head)):
            depth += head[k] in "(<[{"
            depth -= head[k] in ")>]}"
            if depth == 0:
                break
        params = []
        for p in split_top(head[j + 1:k]):
            pname, ptype = [x.strip() for x in p.split(":", 1)]
            ptype = re.sub(r"\s*\{.*\}$", "", ptype)
            params.append((pname, MemRefType(ptype) if ptype.startswith("memref")
                           else parse_vtype(ptype)))
        workgroup = []
        wm = re.search(r"workgroup\((.*?)\)\s*(?:private\(|kernel)", head)
        if wm:
            for p in split_top(wm.group(1)):
                pname, ptype = [x.strip() for x in p.split(":", 1)]
                ptype = re.sub(r"\s*\{.*\}$", "", ptype)
                workgroup.append((pname, MemRefType(ptype)))
        if "private(" in head:
            raise SimError("%s: private attributions are not supported" % name)
        bm = re.search(r"known_block_size = array<i32: (\d+), (\d+), (\d+)>", head)
        block = tuple(int(bm.group(g)) for g in (1, 2, 3)) if bm else None
        body, end = parse_region(lines, i + 1)
        self.kernels[name] = Kernel(name, params, workgroup, block, body, self)
        return end + 1

    def launch(self, name, grid, block, args, strict=True):
        """Runs kernel `name` on a grid of blocks. `args`: one value per
        parameter: a MemRef for a memref, a number for a scalar. Returns the
        list of problems found; raises SimError with them when `strict`."""
        kernel = self.kernels[name]
        run = LaunchRun(kernel, tuple(grid), tuple(block), args)
        reports = run.execute()
        if reports and strict:
            raise SimError("%s grid=%s block=%s:\n  %s" % (
                name, tuple(grid), tuple(block), "\n  ".join(reports)))
        return reports


# ------------------------------------------------------------- execution

class Stop(Exception):
    """Too many problems: the launch is abandoned."""


class LaunchRun:
    def __init__(self, kernel, grid, block, args):
        self.kernel, self.grid, self.block = kernel, grid, block
        self.T = block[0] * block[1] * block[2]
        self.nblocks = grid[0] * grid[1] * grid[2]
        self.reports = []
        self.trackers = {}   # storage key -> Tracker (global memory)
        if kernel.known_block and tuple(kernel.known_block) != tuple(block):
            self.report(None, "launched with block %s but known_block_size is %s"
                        % (block, kernel.known_block))
        if self.T <= 0 or self.T > 1024 or min(grid) <= 0:
            raise SimError("%s: bad launch shape grid=%s block=%s" % (kernel.name, grid, block))
        if len(args) != len(kernel.params):
            raise SimError("%s: %d arguments for %d parameters" % (
                kernel.name, len(args), len(kernel.params)))
        self.written_keys = set()
        self.args = []
        for (pname, ptype), value in zip(kernel.params, args):
            if isinstance(ptype, MemRefType):
                if pname in kernel.stored:
                    self.written_keys.add(value.storage.key)
                value = self.bind_memref(pname, ptype, value)
            self.args.append(value)

    def bind_memref(self, pname, mtype, value):
        if not isinstance(value, MemRef):
            raise SimError("%s: %s needs a MemRef" % (self.kernel.name, pname))
        name = "%s (%s)" % (pname, mtype.text)
        if value.storage.elem != mtype.elem:
            raise SimError("%s: %s bound to %s memory" % (self.kernel.name, name, value.storage.elem))
        if len(value.sizes) != mtype.rank:
            self.report(None, "%s: descriptor of rank %d" % (name, len(value.sizes)))
        sizes, strides = [], []
        for d in range(mtype.rank):
            size = mtype.shape[d] if mtype.shape[d] is not None else value.sizes[d]
            if mtype.shape[d] is not None and value.sizes[d] != mtype.shape[d]:
                self.report(None, "%s: descriptor size %d of dim %d, the type says %d"
                                % (name, value.sizes[d], d, mtype.shape[d]))
            sizes.append(int(size))
        for d in range(mtype.rank):
            static = mtype.strides[d]
            stride = static if static is not None else value.strides[d]
            if static is not None and value.strides[d] != static and sizes[d] > 1:
                self.report(None, "%s: descriptor stride %d of dim %d, the type says %d"
                                % (name, value.strides[d], d, static))
            strides.append(int(stride))
        if mtype.identity:
            want = [int(np.prod(sizes[d + 1:])) for d in range(mtype.rank)]
            for d in range(mtype.rank):
                if strides[d] != want[d] and sizes[d] > 1:
                    self.report(None, "%s: stride %d of dim %d is not contiguous (%d)"
                                    % (name, strides[d], d, want[d]))
        # value.base: the aligned pointer, as an element index of the storage.
        if mtype.offset is None:
            base = value.base + value.offset
        else:
            base = value.base + mtype.offset
            if value.offset != mtype.offset:
                self.report(None, "%s: descriptor offset %d, the type says %d (the kernel "
                                "uses the type's)" % (name, value.offset, mtype.offset))
        return MemRef(value.storage, base, sizes, strides, mtype)

    def report(self, where, message):
        self.reports.append(("%s: " % where if where else "") + message)
        if len(self.reports) >= MAX_REPORTS:
            raise Stop()

    def execute(self):
        per_chunk = max(1, MAX_CHUNK_THREADS // self.T)
        try:
            with np.errstate(all="ignore"):
                for first in range(0, self.nblocks, per_chunk):
                    blocks = np.arange(first, min(self.nblocks, first + per_chunk))
                    Chunk(self, blocks).execute()
        except Stop:
            self.reports.append("(stopped after %d problems)" % MAX_REPORTS)
        return self.reports


class Chunk:
    """Some blocks of a launch, executed together: N = blocks * T threads."""

    def __init__(self, run, blocks):
        self.run, self.kernel = run, run.kernel
        T, self.T = run.T, run.T
        self.nb = len(blocks)
        self.N = N = self.nb * T
        local = np.arange(N, dtype=np.int64)
        self.tid = local % T                  # linear thread id in its block
        self.blk_local = local // T
        self.blk = blocks[self.blk_local]     # linear block id in the grid
        self.gtid = self.blk * T + self.tid   # unique id in the launch
        gx, gy, _ = run.grid
        bx, by, _ = run.block
        self.block_id = (self.blk % gx, (self.blk // gx) % gy, self.blk // (gx * gy))
        self.thread_id = (self.tid % bx, (self.tid // bx) % by, self.tid // (bx * by))
        self.epoch = np.zeros(self.nb, np.int64)
        self.env = {}
        self.consts = {}
        for (pname, ptype), value in zip(self.kernel.params, run.args):
            if isinstance(ptype, MemRefType):
                self.env[pname] = value
            else:
                self.env[pname] = np.broadcast_to(np.asarray(value, ptype.dtype), (N,))
        for pname, mtype in self.kernel.workgroup:
            size = int(np.prod(mtype.shape))
            vdtype, mdtype = ELEMENTS[mtype.elem]
            if np.issubdtype(mdtype, np.floating) or mtype.elem == "bf16":
                raw = to_memory(np.full(size * self.nb, np.nan, np.float64).astype(vdtype),
                                mtype.elem)
            else:
                raw = np.full(size * self.nb, POISON_INT, np.int64).astype(mdtype)
            storage = Storage(raw, mtype.elem, "shared", label=pname)
            storage.tracker = Tracker(raw.nbytes, storage.esize)
            strides = [int(np.prod(mtype.shape[i + 1:])) for i in range(mtype.rank)]
            self.env[pname] = MemRef(storage, self.blk_local * size, mtype.shape, strides, mtype)

    def where(self, idx):
        """Block and thread of chunk-local thread `idx`, for reports."""
        return "block %s thread %d" % (
            tuple(int(b[idx]) for b in self.block_id), int(self.tid[idx]))

    def const(self, key, value, vtype):
        c = self.consts.get(key)
        if c is None:
            c = np.broadcast_to(np.asarray(value, vtype.dtype), (self.N,) + vtype.shape)
            self.consts[key] = c
        return c

    def execute(self):
        run_region(self, self.kernel.code, np.ones(self.N, bool))


def run_region(ch, code, mask):
    for fn in code:
        r = fn(ch, mask)
        if r is not None:
            return r
    return None


# ----------------------------------------------------------- memory access

def addresses(ch, mr, idx, mask, width, what):
    """(act, flat): the active threads whose access mr[idx] (`width`
    elements along the last dim) is inside the memref and its memory, and
    their flat element offsets. Out-of-bounds accesses are reported and
    dropped."""
    act = np.flatnonzero(mask)
    rank = len(mr.sizes)
    if len(idx) != rank:
        raise SimError("%s: %d indices for rank %d" % (what, len(idx), rank))
    if rank == 0 and width != 1:
        raise SimError("vector access of a rank-0 memref")
    base = mr.base
    flat = base[act] if isinstance(base, np.ndarray) else np.full(act.size, base, np.int64)
    bad_any = None
    for d in range(rank):
        i = idx[d][act]
        extent = width if d == rank - 1 else 1
        bad = (i < 0) | (i + extent > mr.sizes[d])
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            ch.run.report(ch.where(act[j]), "%s: index %d (+%d) of dim %d outside size %d of %s"
                          % (what, int(i[j]), extent, d, mr.sizes[d], mr.storage.label))
            bad_any = bad if bad_any is None else bad_any | bad
        flat = flat + i * mr.strides[d]
    n = mr.storage.raw.size
    bad = (flat < 0) | (flat + width > n)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        ch.run.report(ch.where(act[j]), "%s: element %d (+%d) outside the %d elements of the memory of %s"
                      % (what, int(flat[j]), width, n, mr.storage.label))
        bad_any = bad if bad_any is None else bad_any | bad
    if bad_any is not None:
        act, flat = act[~bad_any], flat[~bad_any]
    return act, flat


def check_alignment(ch, st, act, flat, align, what):
    byte = st.address + flat * st.esize
    bad = (byte % align) != 0
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        ch.run.report(ch.where(act[j]), "%s: alignment %d claimed, byte offset %d of %s is not"
                      % (what, align, int(flat[j] * st.esize), st.label))


def track(ch, st, act, flat, width, kind):
    """Race checks of one access: kind 'r' (read), 'w' (write) or 'a'
    (atomic). Accesses of one block separated by a barrier are ordered;
    anything else touching one slot, with at least one write, is a race
    (atomics do not race with each other)."""
    if st.kind == "shared":
        tr = st.tracker
    elif st.kind == "global" and st.key in ch.run.written_keys:
        tr = ch.run.trackers.get(st.key)
        if tr is None:
            return
    else:
        return
    if act.size == 0:
        return
    gran = tr.gran
    nsl = max(1, st.esize * width // gran)
    if act.size == 1 and nsl == 1 and kind == "r":
        # One thread reading one slot (serial loops): the same rules on ints.
        sl = int((st.byte0 + int(flat[0]) * st.esize) // gran)
        if sl >= tr.w_tid.size:
            return
        T = ch.T
        g = int(ch.gtid[act[0]])
        b = g // T
        ep = int(ch.epoch[ch.blk_local[act[0]]])
        wt = int(tr.w_tid[sl])
        lo, hi = int(tr.a_min[sl]), int(tr.a_max[sl])
        if ((wt >= 0 and wt != g and (wt // T != b or tr.w_ep[sl] == ep)) or
                (hi >= 0 and not (lo == g == hi) and
                 (lo // T != b or hi // T != b or tr.a_ep[sl] == ep))):
            return track_slow(ch, st, act, flat, width, kind, tr)
        lo, hi = int(tr.r_min[sl]), int(tr.r_max[sl])
        if hi >= 0 and lo // T == b and hi // T == b and tr.r_ep[sl] < ep:
            lo, hi = int(BIG), -1
        tr.r_min[sl] = min(lo, g)
        tr.r_max[sl] = max(hi, g)
        tr.r_ep[sl] = ep
        return
    return track_slow(ch, st, act, flat, width, kind, tr)


def track_slow(ch, st, act, flat, width, kind, tr):
    gran = tr.gran
    nsl = max(1, st.esize * width // gran)
    slots = ((st.byte0 + flat * st.esize) // gran)[:, None] + np.arange(nsl)[None, :]
    slots = slots.reshape(-1)
    if slots.max() >= tr.w_tid.size:
        return
    T = ch.T
    g = np.repeat(ch.gtid[act], nsl)
    b = g // T
    ep = ch.epoch[ch.blk_local[act]]
    ep = np.repeat(ep, nsl)

    def others(lo, hi, eps):
        """Accesses by threads other than g not ordered before this one."""
        present = hi >= 0
        only_g = (lo == g) & (hi == g)
        same_block = (lo // T == b) & (hi // T == b)
        return present & ~only_g & (~same_block | (eps == ep))

    wt = tr.w_tid[slots]
    w = (wt >= 0) & (wt != g) & ((wt // T != b) | (tr.w_ep[slots] == ep))
    bad = w.copy()
    r = a = None
    if kind != "r":
        r = others(tr.r_min[slots], tr.r_max[slots], tr.r_ep[slots])
        bad |= r
    if kind != "a":
        a = others(tr.a_min[slots], tr.a_max[slots], tr.a_ep[slots])
        bad |= a
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        sl = slots[j]
        if w[j]:
            other, lo, hi = "a write", tr.w_tid[sl], tr.w_tid[sl]
        elif a is not None and a[j]:
            other, lo, hi = "an atomic", tr.a_min[sl], tr.a_max[sl]
        else:
            other, lo, hi = "a read", tr.r_min[sl], tr.r_max[sl]
        who = lo if lo != g[j] else hi
        ch.run.report(ch.where(act[j // nsl]), "%s race on %s (byte %d): %s after %s by block %d thread %d"
                      % (st.kind, st.label, int(sl * gran - st.byte0),
                         {"r": "read", "w": "write", "a": "atomic"}[kind], other,
                         who // T, who % T))
    if kind == "w":
        # Two threads storing one slot in one op.
        tr.t_min[slots] = BIG
        tr.t_max[slots] = -1
        np.minimum.at(tr.t_min, slots, g)
        np.maximum.at(tr.t_max, slots, g)
        dup = tr.t_min[slots] != tr.t_max[slots]
        if dup.any():
            j = int(np.flatnonzero(dup)[0])
            ch.run.report(ch.where(act[j // nsl]), "%s race on %s: two threads store byte %d in one op"
                          % (st.kind, st.label, int(slots[j] * gran - st.byte0)))
        tr.w_tid[slots] = g
        tr.w_ep[slots] = ep
        return
    lo_a, hi_a, ep_a = (tr.r_min, tr.r_max, tr.r_ep) if kind == "r" else (tr.a_min, tr.a_max, tr.a_ep)
    # Accesses of this block before its last barrier are ordered: forget them.
    lo, hi = lo_a[slots], hi_a[slots]
    stale = (hi >= 0) & (lo // T == b) & (hi // T == b) & (ep_a[slots] < ep)
    if stale.any():
        lo_a[slots[stale]] = BIG
        hi_a[slots[stale]] = -1
    np.minimum.at(lo_a, slots, g)
    np.maximum.at(hi_a, slots, g)
    ep_a[slots] = ep


def load(ch, mr, idx, mask, width, align, what, vector=True):
    act, flat = addresses(ch, mr, idx, mask, width, what)
    st = mr.storage
    if align:
        check_alignment(ch, st, act, flat, align, what)
    track(ch, st, act, flat, width, "r")
    full = np.zeros(ch.N, np.int64)
    full[act] = flat
    if not vector:
        raw = st.raw[full]
    else:
        raw = st.raw[full[:, None] + np.arange(width)[None, :]]
    return from_memory(raw, st.elem)


def store(ch, mr, idx, mask, width, align, values, what, vector):
    act, flat = addresses(ch, mr, idx, mask, width, what)
    st = mr.storage
    if align:
        check_alignment(ch, st, act, flat, align, what)
    if st.kind == "const":
        ch.run.report(None, "%s: store to constant %s" % (what, st.label))
        return
    if st.kind == "global" and st.key in ch.run.written_keys and st.key not in ch.run.trackers:
        # Global memory is byte-addressable: threads storing neighbouring
        # bytes (a quantized KV cache's codes) do not race, so a buffer
        # first stored as bytes is tracked per byte, others per 2 bytes.
        ch.run.trackers[st.key] = Tracker(st.raw.nbytes + st.byte0, min(2, st.esize))
    track(ch, st, act, flat, width, "w")
    vals = np.broadcast_to(values, (ch.N,) + np.shape(values)[1:])[act]
    mem = to_memory(vals, st.elem)
    if vector:
        st.raw[(flat[:, None] + np.arange(width)[None, :]).reshape(-1)] = mem.reshape(-1)
    else:
        st.raw[flat] = mem


# -------------------------------------------------------------- compiler

def operands(text):
    return re.findall(VAL, text)


def bcast_cond(c, ndim):
    while c.ndim < ndim:
        c = c[..., None]
    return c


FLOAT_BIN = {
    "arith.addf": lambda x, y: x + y, "arith.subf": lambda x, y: x - y,
    "arith.mulf": lambda x, y: x * y, "arith.divf": lambda x, y: x / y,
    "arith.maximumf": np.maximum, "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax, "arith.minnumf": np.fmin,
    "arith.remf": np.fmod, "math.powf": np.power,
    "math.copysign": np.copysign, "math.atan2": np.arctan2,
}


def _trunc_div(x, y):
    q = np.abs(x) // np.where(y == 0, 1, np.abs(y))
    return np.where((x < 0) ^ (y < 0), -q, q).astype(x.dtype)


INT_BIN = {
    "arith.addi": lambda x, y: x + y, "arith.subi": lambda x, y: x - y,
    "arith.muli": lambda x, y: x * y,
    "arith.andi": lambda x, y: x & y, "arith.ori": lambda x, y: x | y,
    "arith.xori": lambda x, y: x ^ y,
    "arith.maxsi": np.maximum, "arith.minsi": np.minimum,
    "arith.maxui": lambda x, y: np.maximum(unsigned(x), unsigned(y)).view(x.dtype),
    "arith.minui": lambda x, y: np.minimum(unsigned(x), unsigned(y)).view(x.dtype),
    "arith.divui": lambda x, y: (unsigned(x) // np.where(y == 0, 1, unsigned(y))).view(x.dtype),
    "arith.remui": lambda x, y: (unsigned(x) % np.where(y == 0, 1, unsigned(y))).view(x.dtype),
    "arith.divsi": _trunc_div,
    "arith.remsi": lambda x, y: (x - _trunc_div(x, y) * y).astype(x.dtype),
    "arith.floordivsi": lambda x, y: x // np.where(y == 0, 1, y),
    "arith.ceildivsi": lambda x, y: -((-x) // np.where(y == 0, 1, y)),
    "arith.ceildivui": lambda x, y: ((unsigned(x) + unsigned(y) - 1) // np.where(y == 0, 1, unsigned(y))).view(x.dtype),
    "arith.shli": lambda x, y: x << y.astype(x.dtype),
    "arith.shrui": lambda x, y: (unsigned(x) >> unsigned(y).astype(unsigned(x).dtype)).view(x.dtype),
    "arith.shrsi": lambda x, y: x >> y.astype(x.dtype),
}
DIVIDES = {"arith.divui", "arith.remui", "arith.divsi", "arith.remsi",
           "arith.floordivsi", "arith.ceildivsi", "arith.ceildivui"}


def _f64(fn):
    return lambda x: fn(np.asarray(x, np.float64))


def _erf(x):
    import math
    return np.vectorize(math.erf, otypes=[np.float64])(x)


FLOAT_UN = {
    "arith.negf": lambda x: -x, "math.absf": np.abs, "math.floor": np.floor,
    "math.ceil": np.ceil, "math.roundeven": np.rint, "math.trunc": np.trunc,
    "math.exp": _f64(np.exp), "math.exp2": _f64(np.exp2), "math.expm1": _f64(np.expm1),
    "math.log": _f64(np.log), "math.log2": _f64(np.log2), "math.log1p": _f64(np.log1p),
    "math.log10": _f64(np.log10),
    "math.sin": _f64(np.sin), "math.cos": _f64(np.cos), "math.tan": _f64(np.tan),
    "math.tanh": _f64(np.tanh), "math.atan": _f64(np.arctan),
    "math.sqrt": lambda x: np.sqrt(x), "math.rsqrt": _f64(lambda x: 1.0 / np.sqrt(x)),
    "math.erf": _f64(_erf),
}

INTRINSICS = {
    "llvm.nvvm.sqrt.rn.f": lambda x: np.sqrt(np.asarray(x, np.float32)),
    "llvm.nvvm.rcp.rn.f": lambda x: np.float32(1) / np.asarray(x, np.float32),
    "llvm.nvvm.sqrt.f": lambda x: np.sqrt(np.asarray(x, np.float32)),
    "llvm.nvvm.ex2.approx.f": _f64(np.exp2),
    "llvm.nvvm.ex2.approx.ftz.f": _f64(np.exp2),
    "llvm.nvvm.rsqrt.approx.f": _f64(lambda x: 1.0 / np.sqrt(x)),
    "llvm.nvvm.fabs.f": np.abs,
}

CMPI = {
    "eq": lambda x, y: x == y, "ne": lambda x, y: x != y,
    "slt": lambda x, y: x < y, "sle": lambda x, y: x <= y,
    "sgt": lambda x, y: x > y, "sge": lambda x, y: x >= y,
    "ult": lambda x, y: unsigned(x) < unsigned(y), "ule": lambda x, y: unsigned(x) <= unsigned(y),
    "ugt": lambda x, y: unsigned(x) > unsigned(y), "uge": lambda x, y: unsigned(x) >= unsigned(y),
}


def _cmpf(pred):
    base = {"eq": np.equal, "gt": np.greater, "ge": np.greater_equal,
            "lt": np.less, "le": np.less_equal, "ne": np.not_equal}

    def fn(x, y):
        unordered = np.isnan(x) | np.isnan(y)
        if pred == "false":
            return np.zeros(np.broadcast(x, y).shape, bool)
        if pred == "true":
            return np.ones(np.broadcast(x, y).shape, bool)
        if pred == "ord":
            return ~unordered
        if pred == "uno":
            return unordered
        r = base[pred[1:]](x, y)
        return (r & ~unordered) if pred[0] == "o" else (r | unordered)
    return fn


def rounded(fn, vtype):
    """fn with its result rounded to vtype's element (bf16/f16 values are
    float32 arrays, so their arithmetic rounds once more)."""
    dt, elem = vtype.dtype, vtype.elem
    if elem in ("bf16", "f16"):
        return lambda *args: convert_float(np.asarray(fn(*args), np.float32), elem)
    return lambda *args: np.asarray(fn(*args), dt)


class Compiler:
    """Turns parsed ops into closures fn(chunk, mask) -> None | ('yield', values)."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.module = kernel.module
        self.param_names = {n for n, t in kernel.params if isinstance(t, MemRefType)}
        self.aliases = {}   # memref value -> the parameter it views

    def stores_to(self, mem):
        root = self.aliases.get(mem, mem)
        if root in self.param_names:
            self.kernel.stored.add(root)

    def block(self, ops):
        return [self.op(op) for op in ops]

    def op(self, op):
        try:
            fn = self._op(op)
        except SimError as error:
            raise SimError("%s line %d (%s): %s" % (self.kernel.name, op.line, op.name, error))
        except (AttributeError, ValueError, IndexError, KeyError) as error:
            raise SimError("%s line %d: cannot compile %s %s (%s)" % (
                self.kernel.name, op.line, op.name, op.text[:100], error))
        return fn

    def _op(self, op):
        n, t, R = op.name, op.text, op.results
        if n == "arith.constant":
            return self.constant(op)
        if n in FLOAT_BIN or n in INT_BIN:
            a, b = operands(t.split(":")[0])
            if n in FLOAT_BIN:
                f = rounded(FLOAT_BIN[n], parse_vtype(t.rsplit(":", 1)[1]))

                def fn(ch, m, a=a, b=b, r=R[0]):
                    e = ch.env
                    ch.env[r] = f(e[a], e[b])
            else:
                f = INT_BIN[n]
                check = n in DIVIDES
                what = "%s line %d" % (n, op.line)

                def fn(ch, m, a=a, b=b, r=R[0]):
                    e = ch.env
                    y = e[b]
                    if check:
                        bad = m & (y == 0) if y.ndim == 1 else m[:, None] & (y == 0)
                        if bad.any():
                            ch.run.report(ch.where(int(np.flatnonzero(bad.reshape(ch.N, -1).any(1))[0])),
                                          "%s: division by zero" % what)
                    x = e[a]
                    if x.dtype == np.bool_ and n in ("arith.andi", "arith.ori", "arith.xori"):
                        ch.env[r] = {"arith.andi": np.logical_and, "arith.ori": np.logical_or,
                                     "arith.xori": np.logical_xor}[n](x, y)
                    else:
                        ch.env[r] = f(x, y)
            return fn
        if n in FLOAT_UN:
            f = rounded(FLOAT_UN[n], parse_vtype(t.rsplit(":", 1)[1]))
            a = operands(t.split(":")[0])[0]

            def fn(ch, m, a=a, r=R[0]):
                ch.env[r] = f(ch.env[a])
            return fn
        if n == "llvm.call_intrinsic":
            m_ = re.match(r'"([\w.]+)"\((.*?)\)\s*:\s*\((.*?)\)\s*->\s*(\S+)', t)
            name = m_.group(1)
            if name not in INTRINSICS:
                raise SimError("unsupported intrinsic %s" % name)
            f = INTRINSICS[name]
            args = operands(m_.group(2))
            dt = parse_vtype(m_.group(4)).dtype

            def fn(ch, m, r=R[0]):
                ch.env[r] = np.asarray(f(*[ch.env[x] for x in args]), dt)
            return fn
        if n in ("math.fma", "vector.fma"):
            a, b, c = operands(t.split(":")[0])
            f = rounded(lambda x, y, z: np.asarray(x, np.float64) * y + z,
                        parse_vtype(t.rsplit(":", 1)[1]))

            def fn(ch, m, r=R[0]):
                e = ch.env
                ch.env[r] = f(e[a], e[b], e[c])
            return fn
        if n == "arith.cmpi":
            pred, a, b = [x.strip() for x in t.split(":")[0].split(",")]
            f = CMPI[pred]

            def fn(ch, m, r=R[0]):
                ch.env[r] = f(ch.env[a], ch.env[b])
            return fn
        if n == "arith.cmpf":
            pred, a, b = [x.strip() for x in t.split(":")[0].split(",")]
            f = _cmpf(pred)

            def fn(ch, m, r=R[0]):
                ch.env[r] = f(ch.env[a], ch.env[b])
            return fn
        if n == "arith.select":
            c, a, b = operands(t.split(":")[0])

            def fn(ch, m, r=R[0]):
                e = ch.env
                x = e[a]
                ch.env[r] = np.where(bcast_cond(e[c], x.ndim), x, e[b])
            return fn
        if n in ("arith.truncf", "arith.extf", "arith.sitofp", "arith.uitofp",
                 "arith.fptosi", "arith.fptoui", "arith.index_cast", "arith.index_castui",
                 "arith.extsi", "arith.extui", "arith.trunci", "arith.bitcast"):
            return self.cast(op)
        if n in ("gpu.thread_id", "gpu.block_id", "gpu.block_dim", "gpu.grid_dim",
                 "gpu.lane_id"):
            return self.ids(op)
        if n == "gpu.barrier":
            return self.barrier(op)
        if n == "gpu.return":
            return lambda ch, m: None
        if n == "gpu.shuffle":
            return self.shuffle(op)
        if n == "memref.dim":
            a, b = operands(t.split(":")[0])

            def fn(ch, m, r=R[0]):
                d = ch.env[b]
                dv = int(d[0])
                ch.env[r] = np.broadcast_to(np.int64(ch.env[a].sizes[dv]), (ch.N,))
            return fn
        if n in ("memref.load", "vector.load", "memref.store", "vector.store"):
            return self.access(op)
        if n == "memref.get_global":
            name = re.match(r"@(\w+)", t).group(1)
            if name not in self.module.globals:
                raise SimError("unknown global @%s" % name)
            g = self.module.globals[name]

            def fn(ch, m, r=R[0]):
                ch.env[r] = g
            return fn
        if n == "memref.atomic_rmw":
            return self.atomic(op)
        if n in ("memref.cast", "memref.collapse_shape", "memref.expand_shape",
                 "memref.reinterpret_cast", "memref.view", "memref.subview"):
            return self.memref_view(op)
        if n.startswith("vector."):
            return self.vector(op)
        if n == "nvgpu.ldmatrix":
            return self.ldmatrix(op)
        if n == "nvvm.mma.sync":
            return self.mma(op)
        if n == "llvm.extractvalue":
            m_ = re.match(r"(%[\w.$#-]+)\[(\d+)\]", t)
            src, k = m_.group(1), int(m_.group(2))

            def fn(ch, m, r=R[0]):
                ch.env[r] = ch.env[src][k]
            return fn
        if n == "scf.yield":
            names = operands(t.split(":")[0])

            def fn(ch, m):
                return ("yield", [ch.env[x] for x in names])
            return fn
        if n == "scf.for":
            return self.for_(op)
        if n == "scf.if":
            return self.if_(op)
        raise SimError("unsupported op %s" % n)

    # -- individual ops
    def constant(self, op):
        t = op.text
        m = re.match(r"dense<(.*)>\s*:\s*(vector<[^>]*>)$", t)
        if m:
            ty = parse_vtype(m.group(2))
            vals = parse_dense(m.group(1), ty.elem, int(np.prod(ty.shape))).reshape(ty.shape)
        elif t.strip() in ("true", "false"):
            ty, vals = VType("i1"), t.strip() == "true"
        else:
            m = re.match(r"(\S+)\s*:\s*(\w+)$", t)
            ty = VType(m.group(2))
            vals = parse_scalar(m.group(1), ty.elem)
        key = (op.line,)

        def fn(ch, mask, r=op.results[0]):
            ch.env[r] = ch.const(key, vals, ty)
        return fn

    def cast(self, op):
        n, t = op.name, op.text
        m = re.match(r"(%[\w.$#-]+)\s*:\s*(\S+)\s+to\s+(\S+)", t)
        src, sty, dty = m.group(1), parse_vtype(m.group(2)), parse_vtype(m.group(3))
        r = op.results[0]
        if n == "arith.truncf":
            f = lambda x: convert_float(x, dty.elem)
        elif n == "arith.extf":
            f = lambda x: np.asarray(x, dty.dtype)
        elif n in ("arith.sitofp",):
            f = lambda x: convert_float(np.asarray(x, np.float64), dty.elem)
        elif n == "arith.uitofp":
            f = lambda x: convert_float(unsigned(x).astype(np.float64), dty.elem)
        elif n in ("arith.fptosi", "arith.fptoui"):
            info = np.iinfo(dty.dtype) if n == "arith.fptosi" else np.iinfo(UNSIGNED[np.dtype(dty.dtype)])

            def f(x):
                y = np.trunc(np.nan_to_num(np.asarray(x, np.float64), nan=0.0))
                return np.clip(y, info.min, info.max).astype(info.dtype).view(dty.dtype)
        elif n in ("arith.index_cast", "arith.extsi", "arith.trunci"):
            f = lambda x: np.asarray(x).astype(dty.dtype)
        elif n in ("arith.index_castui", "arith.extui"):
            def f(x):
                if np.asarray(x).dtype == np.bool_:
                    return np.asarray(x).astype(dty.dtype)
                return unsigned(x).astype(UNSIGNED.get(np.dtype(dty.dtype), dty.dtype)).view(dty.dtype)
        elif n == "arith.bitcast":
            def f(x):
                raw = np.ascontiguousarray(to_memory(x, sty.elem))
                return from_memory(raw.view(ELEMENTS[dty.elem][1]), dty.elem)

        def fn(ch, mask):
            ch.env[r] = f(ch.env[src])
        return fn

    def ids(self, op):
        n, dim = op.name, op.text.strip()
        r = op.results[0]
        k = "xyz".index(dim) if dim else 0
        if n == "gpu.thread_id":
            return lambda ch, m: ch.env.__setitem__(r, ch.thread_id[k])
        if n == "gpu.block_id":
            return lambda ch, m: ch.env.__setitem__(r, ch.block_id[k])
        if n == "gpu.block_dim":
            return lambda ch, m: ch.env.__setitem__(r, np.broadcast_to(np.int64(ch.run.block[k]), (ch.N,)))
        if n == "gpu.grid_dim":
            return lambda ch, m: ch.env.__setitem__(r, np.broadcast_to(np.int64(ch.run.grid[k]), (ch.N,)))
        if n == "gpu.lane_id":
            return lambda ch, m: ch.env.__setitem__(r, ch.tid % WARP)

    def barrier(self, op):
        line = op.line

        def fn(ch, m):
            counts = m.reshape(ch.nb, ch.T).sum(1)
            bad = (counts != 0) & (counts != ch.T)
            if bad.any():
                b = int(np.flatnonzero(bad)[0])
                ch.run.report(ch.where(b * ch.T), "gpu.barrier (line %d) reached by %d of %d threads"
                              % (line, int(counts[b]), ch.T))
            ch.epoch += counts > 0
        return fn

    def warp_check(self, ch, m, what):
        if ch.T % WARP:
            raise SimError("%s in a block of %d threads (not whole warps)" % (what, ch.T))
        counts = m.reshape(-1, WARP).sum(1)
        bad = (counts != 0) & (counts != WARP)
        if bad.any():
            w = int(np.flatnonzero(bad)[0])
            ch.run.report(ch.where(w * WARP), "%s reached by %d of the 32 lanes of a warp"
                          % (what, int(counts[w])))

    def shuffle(self, op):
        m_ = re.match(r"(xor|idx|down|up)\s+(%[\w.$#-]+),\s*(%[\w.$#-]+),\s*(%[\w.$#-]+)\s*:", op.text)
        mode, v, off, width = m_.groups()
        what = "gpu.shuffle (line %d)" % op.line
        R = op.results

        def fn(ch, m):
            self.warp_check(ch, m, what)
            o = int(ch.env[off][0])
            if int(ch.env[width][0]) != WARP:
                raise SimError("%s: width other than 32" % what)
            lane = ch.tid % WARP
            if mode == "xor":
                src_lane = lane ^ o
            elif mode == "idx":
                src_lane = ch.env[off].astype(np.int64) % WARP
            elif mode == "down":
                src_lane = lane + o
            else:
                src_lane = lane - o
            valid = (src_lane >= 0) & (src_lane < WARP)
            src = np.arange(ch.N) - lane + np.where(valid, src_lane, lane)
            val = ch.env[v]
            ch.env[R[0]] = val[src]
            ch.env[R[1]] = valid
        return fn

    def access(self, op):
        n, t = op.name, op.text
        is_store = n.endswith("store")
        if is_store:
            m_ = re.match(r"(%[\w.$#-]+)\s*,\s*(%[\w.$#-]+)\[([^\]]*)\]\s*(\{[^}]*\})?\s*:\s*(memref<.*?>)(?:,\s*(vector<[^>]*>))?\s*$", t)
            val, mem, idx, attrs, mty, vty = m_.groups()
        else:
            m_ = re.match(r"(%[\w.$#-]+)\[([^\]]*)\]\s*(\{[^}]*\})?\s*:\s*(memref<.*?>)(?:,\s*(vector<[^>]*>))?\s*$", t)
            mem, idx, attrs, mty, vty = m_.groups()
        idx = operands(idx)
        vector = n.startswith("vector")
        width = 1
        if vector:
            vt = parse_vtype(vty)
            if len(vt.shape) != 1:
                raise SimError("multi-dimensional vector access")
            width = vt.shape[0]
        align = 0
        if attrs and "alignment" in attrs:
            align = int(re.search(r"alignment = (\d+)", attrs).group(1))
        what = "%s (line %d)" % (n, op.line)
        if is_store:
            self.stores_to(mem)
        if is_store:
            def fn(ch, m):
                e = ch.env
                store(ch, e[mem], [e[i] for i in idx], m, width, align, e[val], what, vector)
        elif vector:
            def fn(ch, m, r=op.results[0]):
                e = ch.env
                ch.env[r] = load(ch, e[mem], [e[i] for i in idx], m, width, align, what)
        else:
            def fn(ch, m, r=op.results[0]):
                e = ch.env
                ch.env[r] = load(ch, e[mem], [e[i] for i in idx], m, 1, align, what, False)
        return fn

    def atomic(self, op):
        m_ = re.match(r"(\w+)\s+(%[\w.$#-]+),\s*(%[\w.$#-]+)\[([^\]]*)\]\s*:\s*\((\w+),\s*(memref<.*>)\)\s*->", op.text)
        kind, val, mem, idx, ety = m_.group(1), m_.group(2), m_.group(3), operands(m_.group(4)), m_.group(5)
        if kind not in ("addi", "addf", "maxs", "mins", "maxu", "minu", "assign", "andi", "ori"):
            raise SimError("unsupported atomic kind %s" % kind)
        what = "memref.atomic_rmw (line %d)" % op.line
        self.stores_to(mem)
        r = op.results[0]

        def fn(ch, m):
            e = ch.env
            mr = e[mem]
            act, flat = addresses(ch, mr, [e[i] for i in idx], m, 1, what)
            st = mr.storage
            if st.kind == "const":
                ch.run.report(None, "%s: atomic on constant %s" % (what, st.label))
                return
            if st.kind == "global" and st.key in ch.run.written_keys and st.key not in ch.run.trackers:
                ch.run.trackers[st.key] = Tracker(st.raw.nbytes + st.byte0, 2)
            track(ch, st, act, flat, 1, "a")
            old = np.zeros(ch.N, ELEMENTS[st.elem][0])
            vals = np.broadcast_to(e[val], (ch.N,))[act]
            if kind in ("addi", "addf") and act.size:
                # Serialized in thread order: each thread sees the sum of
                # the earlier threads' values on its address.
                order = np.lexsort((act, flat))
                f_s, v_s = flat[order], vals[order]
                new_group = np.r_[True, f_s[1:] != f_s[:-1]]
                group = np.cumsum(new_group) - 1
                csum = np.cumsum(v_s)
                before = (csum - v_s)
                excl = before - before[new_group][group]
                cur = from_memory(st.raw[f_s], st.elem)
                old[act[order]] = cur + excl
                last = np.r_[new_group[1:], True]
                st.raw[f_s[last]] = to_memory((cur + excl + v_s)[last], st.elem)
            else:
                for j in range(act.size):          # serialized in thread order
                    cur = from_memory(st.raw[flat[j]:flat[j] + 1], st.elem)[0]
                    old[act[j]] = cur
                    v = vals[j]
                    new = {"maxs": lambda: max(cur, v), "mins": lambda: min(cur, v),
                           "assign": lambda: v, "andi": lambda: cur & v, "ori": lambda: cur | v,
                           "maxu": lambda: max(cur, v), "minu": lambda: min(cur, v)}[kind]()
                    st.raw[flat[j]] = to_memory(np.array([new], ELEMENTS[st.elem][0]), st.elem)[0]
            ch.env[r] = old
        return fn

    def memref_view(self, op):
        n, t = op.name, op.text
        src = operands(t)[0]
        self.aliases[op.results[0]] = self.aliases.get(src, src)
        if n == "memref.cast":
            m_ = re.match(r"(%[\w.$#-]+)\s*:\s*(memref<.*?>)\s+to\s+(memref<.*>)$", t)
            src, dst = m_.group(1), MemRefType(m_.group(3))

            def fn(ch, m, r=op.results[0]):
                s = ch.env[src]
                ch.env[r] = MemRef(s.storage, s.base, s.sizes, s.strides, dst)
            return fn
        if n in ("memref.collapse_shape", "memref.expand_shape"):
            m_ = re.match(r"(%[\w.$#-]+)\s*\[(.*?)\]\]\s*(?:output_shape\s*\[([^\]]*)\])?\s*:\s*(memref<.*?>)\s+(?:in)?to\s+(memref<.*>)$", t)
            src = m_.group(1)
            dst = MemRefType(m_.group(5))
            dyn = operands(m_.group(3) or "")

            def fn(ch, m, r=op.results[0]):
                s = ch.env[src]
                contiguous = all(s.strides[d] == int(np.prod(s.sizes[d + 1:]))
                                 for d in range(len(s.sizes)) if s.sizes[d] > 1)
                if not contiguous:
                    raise SimError("%s of a non-contiguous memref" % n)
                total = int(np.prod(s.sizes))
                sizes, it = [], iter(dyn)
                for d in dst.shape:
                    sizes.append(d if d is not None else None)
                if n == "memref.expand_shape":
                    sizes = [d if d is not None else int(ch.env[next(it)][0]) for d in sizes]
                else:
                    known = int(np.prod([d for d in sizes if d is not None]))
                    sizes = [d if d is not None else total // max(known, 1) for d in sizes]
                strides = [int(np.prod(sizes[i + 1:])) for i in range(len(sizes))]
                ch.env[r] = MemRef(s.storage, s.base, sizes, strides, dst)
            return fn
        raise SimError("unsupported op %s inside a kernel" % n)

    def vector(self, op):
        n, t, R = op.name, op.text, op.results
        if n == "vector.extract":
            m_ = re.match(r"(%[\w.$#-]+)\[([\d, ]+)\]\s*:", t)
            src = m_.group(1)
            pos = tuple(int(x) for x in m_.group(2).split(","))
            key = (slice(None),) + pos

            def fn(ch, m, r=R[0]):
                ch.env[r] = ch.env[src][key]
            return fn
        if n == "vector.insert":
            m_ = re.match(r"(%[\w.$#-]+),\s*(%[\w.$#-]+)\[([\d, ]+)\]\s*:", t)
            src, dst = m_.group(1), m_.group(2)
            key = (slice(None),) + tuple(int(x) for x in m_.group(3).split(","))

            def fn(ch, m, r=R[0]):
                out = np.array(ch.env[dst])
                out[key] = ch.env[src]
                ch.env[r] = out
            return fn
        if n == "vector.broadcast":
            m_ = re.match(r"(%[\w.$#-]+)\s*:\s*(\S+)\s+to\s+(vector<[^>]*>)", t)
            src, sty, dty = m_.group(1), parse_vtype(m_.group(2)), parse_vtype(m_.group(3))
            extra = len(dty.shape) - len(sty.shape)

            def fn(ch, m, r=R[0]):
                v = ch.env[src]
                v = v.reshape((ch.N,) + (1,) * extra + v.shape[1:])
                ch.env[r] = np.broadcast_to(v, (ch.N,) + dty.shape)
            return fn
        if n == "vector.splat":
            m_ = re.match(r"(%[\w.$#-]+)\s*:\s*(vector<[^>]*>)", t)
            src, dty = m_.group(1), parse_vtype(m_.group(2))

            def fn(ch, m, r=R[0]):
                v = ch.env[src].reshape((ch.N,) + (1,) * len(dty.shape))
                ch.env[r] = np.broadcast_to(v, (ch.N,) + dty.shape)
            return fn
        if n == "vector.from_elements":
            names = operands(t.split(":")[0])
            dty = parse_vtype(t.rsplit(":", 1)[1])

            def fn(ch, m, r=R[0]):
                ch.env[r] = np.stack([ch.env[x] for x in names], 1).reshape(
                    (ch.N,) + dty.shape).astype(dty.dtype)
            return fn
        if n == "vector.extract_strided_slice":
            m_ = re.match(r"(%[\w.$#-]+)\s*\{offsets = \[([\d, ]+)\], sizes = \[([\d, ]+)\], strides = \[([\d, ]+)\]\}", t)
            src = m_.group(1)
            offs, sizes, strides = ([int(x) for x in m_.group(g).split(",")] for g in (2, 3, 4))
            key = (slice(None),) + tuple(slice(o, o + s * st, st) for o, s, st in zip(offs, sizes, strides))

            def fn(ch, m, r=R[0]):
                ch.env[r] = ch.env[src][key]
            return fn
        if n == "vector.shuffle":
            m_ = re.match(r"(%[\w.$#-]+),\s*(%[\w.$#-]+)\s*\[([\d, ]+)\]", t)
            a, b = m_.group(1), m_.group(2)
            pos = np.array([int(x) for x in m_.group(3).split(",")])

            def fn(ch, m, r=R[0]):
                ch.env[r] = np.concatenate([ch.env[a], ch.env[b]], 1)[:, pos]
            return fn
        if n == "vector.reduction":
            m_ = re.match(r"<(\w+)>,\s*(%[\w.$#-]+)(?:,\s*(%[\w.$#-]+))?\s*:\s*(vector<[^>]*>)\s+into\s+(\w+)", t)
            kind, src, acc = m_.group(1), m_.group(2), m_.group(3)
            dt = parse_vtype(m_.group(5)).dtype
            step = {"add": lambda x, y: x + y, "mul": lambda x, y: x * y,
                    "maximumf": np.maximum, "minimumf": np.minimum,
                    "maxnumf": np.fmax, "minnumf": np.fmin,
                    "maxsi": np.maximum, "minsi": np.minimum,
                    "and": lambda x, y: x & y, "or": lambda x, y: x | y,
                    "xor": lambda x, y: x ^ y}[kind]

            def fn(ch, m, r=R[0]):
                v = ch.env[src]
                out = v[:, 0] if acc is None else step(ch.env[acc], v[:, 0])
                for i in range(1, v.shape[1]):      # in order, as LLVM's
                    out = step(out, v[:, i])        # ordered reduction
                ch.env[r] = np.asarray(out, dt)
            return fn
        if n == "vector.bitcast":
            m_ = re.match(r"(%[\w.$#-]+)\s*:\s*(vector<[^>]*>)\s+to\s+(vector<[^>]*>)", t)
            src, sty, dty = m_.group(1), parse_vtype(m_.group(2)), parse_vtype(m_.group(3))

            def fn(ch, m, r=R[0]):
                raw = np.ascontiguousarray(to_memory(ch.env[src], sty.elem))
                ch.env[r] = from_memory(raw.view(ELEMENTS[dty.elem][1]), dty.elem).reshape(
                    (ch.N,) + dty.shape)
            return fn
        if n in ("vector.load", "vector.store"):
            return self.access(op)
        raise SimError("unsupported op %s" % n)

    def ldmatrix(self, op):
        m_ = re.match(r"(%[\w.$#-]+)\[([^\]]*)\]\s*\{numTiles = (\d+) : i32, transpose = (\w+)\}\s*:\s*(memref<.*?>)\s*->\s*(vector<[^>]*>)", op.text)
        mem, idx, tiles, transpose = m_.group(1), operands(m_.group(2)), int(m_.group(3)), m_.group(4)
        if tiles != 4 or transpose != "false":
            raise SimError("ldmatrix other than x4 non-transposed")
        what = "nvgpu.ldmatrix (line %d)" % op.line
        lane = np.arange(WARP)
        src_lane = 8 * np.arange(4)[None, :] + (lane // 4)[:, None]          # (32, 4)
        cols = 2 * (lane % 4)[:, None] + np.arange(2)[None, :]                # (32, 2)

        def fn(ch, m, r=op.results[0]):
            self.warp_check(ch, m, what)
            e = ch.env
            mr = e[mem]
            if mr.storage.esize != 2:
                raise SimError("%s of %s" % (what, mr.storage.elem))
            # Each lane gives the address of one 16-byte row.
            rows = load(ch, mr, [e[i] for i in idx], m, 8, 16, what)       # (N, 8)
            rows = rows.reshape(-1, WARP, 8)
            out = rows[:, src_lane[:, :, None], cols[:, None, :]]          # (W, 32, 4, 2)
            ch.env[r] = out.reshape(ch.N, 4, 2)
        return fn

    def mma(self, op):
        m_ = re.match(r"A\[([^\]]*)\]\s*B\[([^\]]*)\]\s*C\[([^\]]*)\]\s*\{(.*)\}\s*:\s*\((\w+|vector<2x\w+>),", op.text)
        A, B, C = operands(m_.group(1)), operands(m_.group(2)), operands(m_.group(3))
        attrs, operand_type = m_.group(4), m_.group(5)
        if ("layoutA = #nvvm.mma_layout<row>" not in attrs or
                "layoutB = #nvvm.mma_layout<col>" not in attrs or
                "m = 16, n = 8, k = 16" not in attrs):
            raise SimError("mma.sync other than m16n8k16 row.col")
        if operand_type == "i32":
            # Pairs packed in i32 registers; the PTX type says of what.
            elem = re.search(r"multiplicandAPtxType = #nvvm.mma_type<(\w+)>", attrs).group(1)
        else:
            elem = parse_vtype(operand_type).elem
        if elem not in ("bf16", "f16"):
            raise SimError("mma.sync on %s" % elem)
        packed = operand_type == "i32"
        what = "nvvm.mma.sync (line %d)" % op.line
        lane = np.arange(WARP)
        g, tig = lane // 4, lane % 4
        j = np.arange(2)
        # A fragment: a0,a1 (row g, cols 2tig+j), a2,a3 (row g+8), a4,a5 (row g,
        # cols 8+2tig+j), a6,a7 (row g+8, cols 8+...): registers 0..3.
        a_rows = np.stack([g, g + 8, g, g + 8], 1)                       # (32, 4)
        a_cols = np.stack([2 * tig, 2 * tig, 2 * tig + 8, 2 * tig + 8], 1)
        b_rows = np.stack([2 * tig, 2 * tig + 8], 1)                     # (32, 2) (k)
        c_rows = np.stack([g, g, g + 8, g + 8], 1)
        c_cols = np.stack([2 * tig, 2 * tig + 1, 2 * tig, 2 * tig + 1], 1)

        def unpack(x):
            if not packed:
                return np.asarray(x, np.float64)                          # (N, 2)
            x = np.asarray(x).astype(np.int64) & 0xFFFFFFFF
            lo = from_memory((x & 0xFFFF).astype(np.uint16), elem)
            hi = from_memory((x >> 16).astype(np.uint16), elem)
            return np.stack([lo, hi], -1).astype(np.float64)              # (N, 2)

        def fn(ch, m):
            self.warp_check(ch, m, what)
            e = ch.env
            W = ch.N // WARP
            a = np.zeros((W, 16, 16))
            b = np.zeros((W, 16, 8))
            c = np.zeros((W, 16, 8))
            wi = np.arange(W)[:, None, None]
            for reg in range(4):
                v = unpack(e[A[reg]]).reshape(W, WARP, 2)
                a[wi, a_rows[None, :, reg, None], a_cols[None, :, reg, None] + j[None, None, :]] = v
            for reg in range(2):
                v = unpack(e[B[reg]]).reshape(W, WARP, 2)
                b[wi, b_rows[None, :, reg, None] + j[None, None, :], g[None, :, None]] = v
            for reg in range(4):
                v = np.asarray(e[C[reg]], np.float64).reshape(W, WARP)
                c[np.arange(W)[:, None], c_rows[None, :, reg], c_cols[None, :, reg]] = v
            d = (a @ b + c).astype(np.float32)
            out = [d[np.arange(W)[:, None], c_rows[None, :, reg], c_cols[None, :, reg]].reshape(ch.N)
                   for reg in range(4)]
            ch.env[op.results[0]] = out
        return fn

    def for_(self, op):
        m_ = re.match(r"(%[\w.$#-]+)\s*=\s*(%[\w.$#-]+)\s+to\s+(%[\w.$#-]+)\s+step\s+(%[\w.$#-]+)"
                      r"(?:\s+iter_args\((.*?)\)\s*->\s*\((.*)\))?\s*\{$", op.text)
        iv, lo, hi, st = m_.group(1), m_.group(2), m_.group(3), m_.group(4)
        names, inits = [], []
        if m_.group(5):
            for pair in split_top(m_.group(5)):
                a, b = [x.strip() for x in pair.split("=")]
                names.append(a)
                inits.append(b)
        body = self.block(op.regions[0])
        R = op.results

        def fn(ch, m):
            e = ch.env
            lov, hiv, stv = e[lo], e[hi], e[st]
            carried = [e[x] for x in inits]
            act = m
            if not act.any():
                for r, v in zip(R, carried):
                    e[r] = v
                return None
            la, ha, sa = lov[act], hiv[act], stv[act]
            if la.min() == la.max() and ha.min() == ha.max() and sa.min() == sa.max():
                l, h, s = int(la[0]), int(ha[0]), int(sa[0])
                if s <= 0:
                    raise SimError("scf.for with step %d" % s)
                for i in range(l, h, s):
                    e[iv] = np.broadcast_to(np.int64(i), (ch.N,))
                    for a, v in zip(names, carried):
                        e[a] = v
                    res = run_region(ch, body, m)
                    carried = res[1] if res else []
            else:
                if sa.min() <= 0:
                    raise SimError("scf.for with step %d" % sa.min())
                s_safe = np.where(stv > 0, stv, 1)
                trips = np.where(act, np.maximum(0, -(-(hiv - lov) // s_safe)), 0)
                for k in range(int(trips.max())):
                    it = act & (k < trips)
                    e[iv] = lov + k * stv
                    for a, v in zip(names, carried):
                        e[a] = v
                    res = run_region(ch, body, it)
                    new = res[1] if res else []
                    carried = [np.where(bcast_cond(it, np.ndim(nv)), nv, ov)
                               if not isinstance(nv, list) else nv
                               for nv, ov in zip(new, carried)]
            for r, v in zip(R, carried):
                e[r] = v
            return None
        return fn

    def if_(self, op):
        cond = operands(op.text.split("->")[0].split("{")[0])[0]
        then = self.block(op.regions[0])
        els = self.block(op.regions[1]) if len(op.regions) > 1 else None
        R = op.results

        def fn(ch, m):
            c = np.asarray(ch.env[cond], bool)
            tm = m & c
            em = m & ~c
            t_any, e_any = tm.any(), em.any()
            tv = ev = None
            if t_any or (R and not e_any):
                res = run_region(ch, then, tm)
                tv = res[1] if res else []
            if els is not None and (e_any or (R and not t_any)):
                res = run_region(ch, els, em)
                ev = res[1] if res else []
            for i, r in enumerate(R):
                if tv is None:
                    ch.env[r] = ev[i]
                elif ev is None:
                    ch.env[r] = tv[i]
                elif isinstance(tv[i], list):
                    ch.env[r] = [np.where(c, x, y) for x, y in zip(tv[i], ev[i])]
                else:
                    x = tv[i]
                    ch.env[r] = np.where(bcast_cond(c, np.ndim(x)), x, ev[i])
            return None
        return fn


def main():
    if len(sys.argv) != 2:
        print("usage: cuda_sim.py <kernels.mlir>")
        return 2
    module = Module(open(sys.argv[1]).read())
    for name, kernel in module.kernels.items():
        print("%s: %d parameters, block %s" % (name, len(kernel.params), kernel.known_block))
    print("%d kernels, %d globals" % (len(module.kernels), len(module.globals)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
