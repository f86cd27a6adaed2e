"""The KV caches a quantized CPU artifact and its CUDA twin (run in the SIMT
simulator) write for the same calls, compared code by code.

Usage: compare_kv_codes.py <cpu artifact> <cuda artifact> <kernels.mlir>
                           <model.safetensors> <tokens-file> <prefill tokens>

Both artifacts (`llmc compile --kv-type=int8|fp8`, contiguous cache, batch 1)
run one prefill of the first <prefill tokens> tokens, then one decode call per
remaining token, on their own cache; the CPU artifact's entry points are called
directly (the same C ABI: tokens, positions, [seq_len, logit_rows,] cache,
weights, logits), the CUDA one through simulate_artifact.py's simulator. Then
every written row (position, layer, K/V, KV head: head_dim codes and an f32
scale) is compared: codes that differ, and how far apart (in steps of the
format: int8 codes, or places in the ordered list of e4m3 values, decoded here
from the OCP definition), and the scales' largest relative difference. Prints
one line; exits 1 when a code is more than one step from the CPU's or more
than MAX_DIFFERING of the codes differ.
"""
import ctypes
import json
import os
import sys
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "lib"))
import simulate_artifact  # noqa: E402
from host_trace import Artifact, Buffers, HostAPI, ModelBuffers, kv_cache_bytes  # noqa: E402


# Both backends quantize with the same f32 formulas, so a code can differ
# only where the inputs' own f32 differences (about 1e-6 relative: summation
# order, sin/cos) straddle a rounding boundary: a small fraction of the
# codes. Measured: none on simulated-kv-quant.test's tiny models; at the
# SmolLM2 shape 2 of layer 0's 27,648 int8 codes, and, as the attention
# carries that on, 283 of layer 1's (1.0%; 0.52% of all). Rounding down
# instead of to nearest changes 58% of them.
MAX_DIFFERING = 0.05


def e4m3_values():
    """The finite value of every e4m3 byte (NaN for 0x7F and 0xFF): sign, 4
    exponent bits (bias 7), 3 mantissa bits; exponent 0 is subnormal."""
    values = np.empty(256)
    for byte in range(256):
        sign = -1.0 if byte & 0x80 else 1.0
        exponent, mantissa = (byte >> 3) & 0xF, byte & 7
        if exponent == 0xF and mantissa == 7:
            values[byte] = np.nan
        elif exponent == 0:
            values[byte] = sign * mantissa * 2.0 ** -9
        else:
            values[byte] = sign * (1 + mantissa / 8) * 2.0 ** (exponent - 7)
    return values


def steps(codes, dtype):
    """Each code's place on the format's ordered scale of values."""
    if dtype == "i8":
        return codes.view(np.int8).astype(np.int64)
    values = e4m3_values()
    ordered = np.unique(values[~np.isnan(values)])  # -0 and +0 are one place
    return np.searchsorted(ordered, values[codes])


def run(model, calls, tokens, prefill):
    """Runs the prefill and the decode calls; `calls(entry, count)` -> status."""
    done = 0
    for entry, count in [("prefill", prefill)] + [("decode", 1)] * (len(tokens) - prefill):
        ids = np.array(tokens[done:done + count], np.int32)
        positions = np.arange(done, done + count, dtype=np.int32)
        ctypes.memmove(model.tokens, ids.ctypes.data, ids.nbytes)
        ctypes.memmove(model.positions, positions.ctypes.data, positions.nbytes)
        if calls(entry, count) != 0:
            raise SystemExit("%s of %d tokens failed" % (entry, count))
        done += count


def cache_rows(model, manifest, positions):
    """The written rows, (rows, head_dim + scale bytes) uint8."""
    kv = manifest["kv_cache"]
    data = np.frombuffer((ctypes.c_char * kv_cache_bytes(kv)).from_address(model.kv),
                         np.uint8).copy()
    two, layers, batch, capacity, kv_heads, head_dim = kv["shape"]
    rows = data.reshape(two, layers, batch, capacity, kv_heads, head_dim + kv["scale_bytes"])
    return rows[:, :, :, :positions].reshape(-1, head_dim + kv["scale_bytes"])


def main():
    if len(sys.argv) != 7:
        print(__doc__)
        return 2
    cpu_path, cuda_path, kernels, weights, tokens_path, prefill = sys.argv[1:]
    tokens = [int(t) for t in open(tokens_path).read().split()]
    prefill = int(prefill)

    manifest_name = [f for f in os.listdir(cpu_path) if f.endswith(".json")][0]
    manifest = json.load(open(os.path.join(cpu_path, manifest_name)))
    if manifest["kv_cache"].get("layout") == "paged" or manifest["batch"] != 1:
        raise SystemExit("contiguous batch-1 artifacts only")
    cpu = types.SimpleNamespace(manifest=manifest, vocab=manifest["config"]["vocab_size"],
                                batch=1, lib=ctypes.CDLL(os.path.join(cpu_path, manifest["library"])))
    cpu_buffers = Buffers()  # owns the memory: keep it while the model runs
    cpu_model = ModelBuffers(cpu, cpu_buffers, prefill, kv_fill=0xFF)
    simulate_artifact.fill_weights(cpu_model, manifest, weights)
    run(cpu_model, lambda entry, count: cpu_model.call(entry, count), tokens, prefill)

    artifact = Artifact(cuda_path)
    buffers = Buffers()
    sim = simulate_artifact.Simulator(artifact, buffers, kernels)
    api = HostAPI(artifact, buffers, on_launch=sim, scratch_fill=0xFF)
    cuda_model = ModelBuffers(artifact, buffers, prefill, kv_fill=0xFF)
    simulate_artifact.fill_weights(cuda_model, artifact.manifest, weights)
    run(cuda_model, lambda entry, count: cuda_model.call(entry, count), tokens, prefill)
    if api.errors or sim.problems:
        print("\n".join("error: " + p for p in api.errors + sim.problems))
        return 1

    dtype = manifest["kv_cache"]["dtype"]
    expected = cache_rows(cpu_model, manifest, len(tokens))
    actual = cache_rows(cuda_model, artifact.manifest, len(tokens))
    head_dim = manifest["kv_cache"]["shape"][-1]
    distance = np.abs(steps(expected[:, :head_dim], dtype) - steps(actual[:, :head_dim], dtype))
    scale_of = lambda rows: rows[:, head_dim:].copy().view(np.float32)[:, 0]
    ref_scale, test_scale = scale_of(expected), scale_of(actual)
    relative = np.abs(test_scale - ref_scale) / np.maximum(np.abs(ref_scale), np.finfo(np.float32).tiny)
    print("%s cache, %d rows: %d of %d codes differ, at most %d step%s apart; %d scales differ, "
          "by at most %.3g relative" % (
              dtype, expected.shape[0], int((distance > 0).sum()), distance.size,
              int(distance.max()), "" if distance.max() == 1 else "s",
              int((test_scale != ref_scale).sum()), float(relative.max())))
    if distance.max() > 1 or (distance > 0).mean() > MAX_DIFFERING:
        print("FAILED: codes more than one step apart, or more than %g of them differ"
              % MAX_DIFFERING)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
