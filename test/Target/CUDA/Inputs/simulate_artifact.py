"""Runs a whole CUDA artifact on the CPU: its host code (lib<P>.so) with
host_trace.py's recording host API, and every kernel launch in the SIMT
simulator test/lib/cuda_sim.py on the actual host buffers.

Usage: simulate_artifact.py <artifact> <kernels.mlir> <model.safetensors|.gguf>
                            <tokens-file> <plan> <out.f32> [<last rows>]

<kernels.mlir> is `llmc --compile-to=kernels` of the same model and flags
(the artifact embeds only PTX). The plan is step_logits.c's
(test/Integration/GPU/Inputs): comma-separated steps, each a prefill of N
tokens ("6") or N single-token decode calls ("d2"), consuming the tokens
file in order with positions counting on from 0. Writes float32 logits
[tokens, vocab] like step_logits and prints one line per call.

Device memory is host memory here. Weights come from the safetensors file
(F32/F16/BF16 tensors under the artifact's weight names), rounded to the
dtype the manifest asks for (round to nearest even, as the runtime does),
or from a GGUF file (<model.gguf>, read with the PyPI gguf package: run
this with the reference venv's python): a weight the manifest wants in a
block format gets the tensor's blocks as stored (the format must match;
repacked into planes where its "layout" is "planar", as the runtime does),
a float weight its F32 values.
Scratch buffers and the KV cache start as 0xFF bytes (NaN in every float
type, -1 as an integer): a kernel that reads memory nobody wrote gets NaN
(the runtime zeroes the KV cache; a kernel must not need that). Each launch
is checked by host_trace (kernel in the PTX, parameter count, pointers
inside buffers) and then simulated: parameters are decoded as the kernel's
memref descriptors (allocated pointer, aligned pointer, offset, sizes,
strides) and scalars in order, and cuda_sim reports out-of-bounds or
misaligned accesses, divergent barriers and shuffles and races. The first
problem stops the run (exit 1).

With <last rows> R, the plan's first prefill (N tokens) then runs once more
on a fresh cache with logit_rows = R (the last layer's attention and what
follows it, the final norm and the classifier included, compute its last R
rows only): its R rows of logits must be bit-identical to the last R rows of
the all-rows run.
"""
import ctypes
import json
import os
import struct
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "lib"))
import cuda_sim  # noqa: E402
from planar_blocks import planar  # noqa: E402
from host_trace import Artifact, Buffers, HostAPI, ModelBuffers  # noqa: E402

SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}


def read_safetensors(path):
    """{name: float32 array} of a safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    length = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + length])
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = np.frombuffer(data[8 + length + begin:8 + length + end],
                            SAFETENSORS_DTYPES[info["dtype"]])
        if info["dtype"] == "BF16":
            values = cuda_sim.from_memory(raw, "bf16")
        else:
            values = raw.astype(np.float32)
        tensors[name] = values.reshape(info["shape"])
    return tensors


def read_gguf_weights(path, manifest):
    """{name: float32 array, or uint8 blocks (rows, row bytes)} of a GGUF
    file under the artifact's weight names (llama.cpp's tensor names)."""
    import gguf
    sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "e2e", "Inputs"))
    from decoder_numeric import gguf_name
    stored = {t.name: t for t in gguf.GGUFReader(path).tensors}
    tensors = {}
    for w in manifest["weights"]:
        name = w.get("source", {"tensor": w["name"]})["tensor"]
        t = stored.get(gguf_name(name))
        if t is None:
            continue
        kind = t.tensor_type.name.lower()
        if w["dtype"] not in ("f32", "f16", "bf16"):
            if kind != w["dtype"]:
                raise SystemExit("%s: %s is %s, the artifact wants %s"
                                 % (path, name, kind, w["dtype"]))
            tensors[name] = np.asarray(t.data, np.uint8).reshape(t.data.shape[0], -1)
        else:
            values = gguf.quants.dequantize(t.data, t.tensor_type)
            tensors[name] = np.asarray(values, np.float32).reshape(
                [int(extent) for extent in reversed(t.shape)])
    return tensors


def fill_weights(model, manifest, path):
    if path.endswith(".gguf"):
        tensors = read_gguf_weights(path, manifest)
    else:
        tensors = read_safetensors(path)
    for w in manifest["weights"]:
        # A part of a fused tensor: its "source" tensor's rows, for g in
        # [0, groups): [start + g * stride, ... + count).
        source = w.get("source", {"tensor": w["name"]})
        if source["tensor"] not in tensors:
            raise SystemExit("%s: no tensor %s" % (path, source["tensor"]))
        values = tensors[source["tensor"]]
        if "rows" in source:
            start, count, stride, groups = source["rows"]
            values = np.concatenate([values[start + g * stride:start + g * stride + count]
                                     for g in range(groups)])
        if values.dtype == np.uint8:  # blocks, as stored
            if w.get("interleave", 1) > 1:
                raise SystemExit("%s: %s: interleaved block rows (a CPU artifact's) are not "
                                 "written here" % (path, w["name"]))
            raw = np.ascontiguousarray(values)
            if w.get("layout") == "planar":
                raw = planar(w["dtype"], raw)
            address, size = model.weight_addresses[w["name"]]
            if raw.nbytes != size:
                raise SystemExit("%s: %s has %d bytes of blocks, the artifact wants %d"
                                 % (path, w["name"], raw.nbytes, size))
            ctypes.memmove(address, raw.ctypes.data, size)
            continue
        if values.ndim > 2 and values.size == np.prod(w["shape"]):
            # A 3-D tensor (deepseek2's per-head attn_k_b / attn_v_b) bound
            # as the rows of a 2-D weight, as the runtime binds it.
            values = values.reshape(w["shape"])
        if list(values.shape) != list(w["shape"]):
            raise SystemExit("%s: %s has shape %s, the artifact wants %s"
                             % (path, w["name"], list(values.shape), w["shape"]))
        if w.get("interleave", 1) > 1:
            # A CPU artifact's float rows in interleaved groups: run p (of
            # `columns` columns) of a group's rows together
            # (`!llm.interleaved<t, rows = R, columns = c>`).
            group, columns = w["interleave"], w.get("interleave_columns", 1)
            n, k = values.shape
            values = values.reshape(n // group, group, k // columns,
                                    columns).transpose(0, 2, 1, 3)
        raw = np.ascontiguousarray(cuda_sim.to_memory(values.reshape(-1), w["dtype"]))
        address, size = model.weight_addresses[w["name"]]
        assert raw.nbytes == size
        ctypes.memmove(address, raw.ctypes.data, size)


class Simulator:
    """host_trace's on_launch: decodes the parameters and runs the kernel."""

    def __init__(self, artifact, buffers, kernels_path):
        self.module = cuda_sim.Module(open(kernels_path).read())
        self.buffers = buffers
        self.artifact = artifact
        self.problems = []
        self.count = 0

    def storage(self, address, elem):
        entry = self.buffers.owner(address)
        base, size, label = entry
        key = (base, elem)
        cached = self.storages.get(key)
        if cached is None:
            dtype = cuda_sim.ELEMENTS[elem][1]
            count = size // np.dtype(dtype).itemsize
            raw = np.frombuffer((ctypes.c_char * size).from_address(base), dtype, count)
            cached = cuda_sim.Storage(raw, elem, "global", key=base, byte0=0,
                                      address=base, label=label)
            self.storages[key] = cached
        return cached

    def __call__(self, name, grid, block, params):
        if self.problems:
            return
        kernel = self.module.kernels.get(name)
        if kernel is None:
            self.problems.append("%s: not in the kernels listing" % name)
            return
        self.storages = {}
        args, slot = [], 0

        def field(ctype):
            nonlocal slot
            value = ctypes.cast(params[slot], ctypes.POINTER(ctype))[0]
            slot += 1
            return value

        for pname, ptype in kernel.params:
            if isinstance(ptype, cuda_sim.MemRefType):
                field(ctypes.c_uint64)                      # allocated pointer
                aligned = field(ctypes.c_uint64)
                offset = field(ctypes.c_int64)
                sizes = [field(ctypes.c_int64) for _ in range(ptype.rank)]
                strides = [field(ctypes.c_int64) for _ in range(ptype.rank)]
                storage = self.storage(aligned, ptype.elem)
                byte = aligned - storage.address
                if byte % storage.esize:
                    self.problems.append("%s: %s points at byte %d of %s, not an element boundary"
                                         % (name, pname, byte, storage.label))
                    return
                memref = cuda_sim.MemRef(storage, byte // storage.esize, sizes, strides)
                memref.offset = offset
                args.append(memref)
            else:
                ctype = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i32": ctypes.c_int32,
                         "i64": ctypes.c_int64, "index": ctypes.c_int64}[ptype.elem]
                args.append(field(ctype))
        expected = len(self.artifact.kernels[name])
        if slot != expected:
            self.problems.append("%s: the kernel listing has %d parameter fields, the PTX %d"
                                 % (name, slot, expected))
            return
        self.count += 1
        reports = self.module.launch(name, grid, block, args, strict=False)
        if reports:
            self.problems.append("%s grid=%s block=%s:\n  %s" % (
                name, grid, block, "\n  ".join(reports)))


def call(model, api, sim, entry, ids, positions, logit_rows):
    """Runs one entry point on `ids` at `positions`: (status, its logit_rows
    rows of logits), the logits None (after printing the problems) when a
    launch or the call failed."""
    ctypes.memmove(model.tokens, ids.ctypes.data, ids.nbytes)
    ctypes.memmove(model.positions, positions.ctypes.data, positions.nbytes)
    status = model.call(entry, len(ids), logit_rows)
    problems = api.errors + sim.problems
    if problems or status != 0:
        for problem in problems:
            print("error: " + problem)
        return status, None
    vocab = model.artifact.vocab
    out = np.frombuffer((ctypes.c_char * (4 * logit_rows * vocab)).from_address(model.logits),
                        np.float32).reshape(logit_rows, vocab)
    return status, out.copy()


def main():
    if len(sys.argv) not in (7, 8):
        print(__doc__)
        return 2
    art_path, kernels_path, weights_path, tokens_path, plan, out_path = sys.argv[1:7]
    last_rows = int(sys.argv[7]) if len(sys.argv) == 8 else None
    tokens = [int(t) for t in open(tokens_path).read().split()]
    steps = []
    for step in plan.split(","):
        steps.append(("decode", int(step[1:])) if step.startswith("d") else ("prefill", int(step)))
    if sum(n for _, n in steps) != len(tokens):
        raise SystemExit("the plan does not use every token")

    artifact = Artifact(art_path)
    if artifact.batch != 1:
        raise SystemExit("batch 1 artifacts only")
    buffers = Buffers()
    sim = Simulator(artifact, buffers, kernels_path)
    api = HostAPI(artifact, buffers, on_launch=sim, scratch_fill=0xFF)
    longest = max(n for kind, n in steps if kind == "prefill") if any(
        kind == "prefill" for kind, _ in steps) else 1
    model = ModelBuffers(artifact, buffers, longest, kv_fill=0xFF)
    fill_weights(model, artifact.manifest, weights_path)

    vocab = artifact.vocab
    rows, done = [], 0
    for kind, n in steps:
        calls = [(kind, n)] if kind == "prefill" else [("decode", 1)] * n
        for entry, count in calls:
            ids = np.array(tokens[done:done + count], np.int32)
            pos = np.arange(done, done + count, dtype=np.int32)
            start, before = time.time(), sim.count
            status, out = call(model, api, sim, entry, ids, pos, count)
            print("%s of %d token%s at %d: %d launches simulated, status %d, %.1f s" % (
                entry, count, "s" if count > 1 else "", done, sim.count - before, status,
                time.time() - start))
            if out is None:
                return 1
            rows.append(out)
            done += count
    np.concatenate(rows).tofile(out_path)
    print("%d rows, vocab %d" % (done, vocab))
    if last_rows is None:
        return 0

    kind, n = steps[0]
    if kind != "prefill" or not 1 <= last_rows <= n:
        raise SystemExit("<last rows> needs a first prefill of at least that many tokens")
    model = ModelBuffers(artifact, buffers, longest, kv_fill=0xFF)
    fill_weights(model, artifact.manifest, weights_path)
    _, out = call(model, api, sim, "prefill", np.array(tokens[:n], np.int32),
                  np.arange(n, dtype=np.int32), last_rows)
    if out is None:
        return 1
    same = np.array_equal(out, rows[0][n - last_rows:])
    print("prefill of %d tokens with logit_rows %d: %s the last rows of the all-rows prefill" % (
        n, last_rows, "bit-identical to" if same else "DIFFERENT from"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
