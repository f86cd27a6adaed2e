"""Cases of the llm.attention GPU check (attention-gpu.test).

  attention_gpu_cases.py DIR               writes DIR/cases.mlir (one function
                                           per kernel configuration) and
                                           DIR/cases.inc (the runs, included
                                           by attention_gpu_check.cpp)
  attention_gpu_cases.py --split PTX DIR   writes each architecture's section
                                           of llmc's PTX to DIR/cases_sm_XX.ptx

Runs cover prefill and decode, f32/bf16/f16 caches, GQA groups of 1, 2, 4, 7
and 8 (MQA), head_dim 8 to 256, sliding windows, no positions (static and
dynamic S), non-causal attention, batch 2, and S not a multiple of a split.
Cache slots past the written positions hold NaN: a kernel that touches them
fails. Bench runs (timed, not checked) use LLaMA-3-8B and Mistral shapes.
"""
import os
import re
import sys

KV = {"f32": 0, "bf16": 1, "f16": 2}
configs = []  # (B, H, Hkv, Dh, S, staticS, kv, causal, window, pos, decode)
runs = []     # (config, T, positions (B*T) or [], valid keys per batch, bench)


def config(B, H, Hkv, Dh, S, kv, causal=True, window=0, pos=True,
           decode=False, static_s=True):
    configs.append((B, H, Hkv, Dh, S, static_s, kv, causal, window, pos,
                    decode))
    return len(configs) - 1


def run(c, T, positions=None, bench=False):
    B, S = configs[c][0], configs[c][4]
    if positions is None:
        positions, valid = [], [S if configs[c][5] else T] * B
    else:
        valid = [max(positions[b * T:(b + 1) * T]) + 1 for b in range(B)]
    runs.append((c, T, positions, valid, bench))


def seq(start, n):
    return list(range(start, start + n))


# stories260K: head_dim 8, groups of 2.
c = config(1, 8, 4, 8, 512, "f32")
run(c, 37, seq(0, 37)); run(c, 20, seq(37, 20)); run(c, 300, seq(100, 300))
c = config(1, 8, 4, 8, 512, "f32", decode=True)
for p in [0, 5, 255, 256, 300, 511]:
    run(c, 1, [p])
# LLaMA-3-8B shapes with a bf16 and an f32 cache.
c = config(1, 32, 8, 128, 1024, "bf16")
run(c, 100, seq(0, 100)); run(c, 77, seq(200, 77))
c = config(1, 32, 8, 128, 1024, "bf16", decode=True)
for p in [0, 100, 767, 1023]:
    run(c, 1, [p])
c = config(1, 32, 8, 128, 1024, "f32")
run(c, 65, seq(3, 65))
c = config(1, 32, 8, 128, 1024, "f32", decode=True)
for p in [1, 700]:
    run(c, 1, [p])
# Sliding window (Mistral's shape, a window of 100).
c = config(1, 32, 8, 128, 1024, "f32", window=100)
run(c, 300, seq(0, 300)); run(c, 50, seq(400, 50))
c = config(1, 32, 8, 128, 1024, "f32", window=100, decode=True)
for p in [50, 99, 100, 600, 1023]:
    run(c, 1, [p])
# No positions: S = T dynamic; S static with T < S (query t at t + S - T).
c = config(1, 4, 2, 64, -1, "f32", pos=False, static_s=False); run(c, 70)
c = config(1, 4, 2, 64, 96, "f32", pos=False); run(c, 40)
c = config(1, 4, 2, 64, 96, "f32", pos=False, window=10); run(c, 40)
# Non-causal multi-query attention.
c = config(1, 4, 1, 64, 50, "f32", causal=False, pos=False); run(c, 33)
# A group of 7 (Qwen2-0.5B), f16 cache.
c = config(1, 14, 2, 64, 512, "f16"); run(c, 45, seq(0, 45))
c = config(1, 14, 2, 64, 512, "f16", decode=True)
run(c, 1, [300]); run(c, 1, [44])
# head_dim 256, a group of 8, a window; S = 600 is no multiple of a split.
c = config(1, 16, 2, 256, 600, "bf16", window=64); run(c, 130, seq(0, 130))
c = config(1, 16, 2, 256, 600, "bf16", window=64, decode=True)
run(c, 1, [599]); run(c, 1, [10])
# Decode without positions (the query at S - 1), multi-head.
c = config(1, 8, 8, 128, 300, "f32", pos=False, decode=True); run(c, 1)
# Batch 2 with different positions per sequence.
c = config(2, 8, 4, 8, 512, "f32"); run(c, 10, seq(0, 10) + seq(30, 10))
c = config(2, 8, 4, 8, 512, "f32", decode=True); run(c, 1, [7, 400])
# head_dim 48 (2 lanes per row) and 80 (a partial last staging round).
c = config(1, 6, 6, 48, 256, "f32"); run(c, 50, seq(0, 50))
c = config(1, 6, 6, 48, 256, "f32", decode=True); run(c, 1, [77])
c = config(1, 4, 4, 80, 256, "bf16"); run(c, 33, seq(0, 33))
c = config(1, 4, 4, 80, 256, "bf16", decode=True); run(c, 1, [200])
# Bench: LLaMA-3-8B (bf16 cache of 8192) and Mistral (f32, window 4096).
c = config(1, 32, 8, 128, 8192, "bf16"); run(c, 2048, seq(0, 2048), bench=True)
c = config(1, 32, 8, 128, 8192, "bf16", decode=True)
run(c, 1, [1023], bench=True); run(c, 1, [8191], bench=True)
c = config(1, 32, 8, 128, 32768, "f32", window=4096)
run(c, 8192, seq(0, 8192), bench=True)
c = config(1, 32, 8, 128, 32768, "f32", window=4096, decode=True)
run(c, 1, [32767], bench=True)


def write_cases(directory):
    lines = ['module attributes {llm.model = "t"} {']
    for i, (B, H, Hkv, Dh, S, static_s, kv, causal, window, pos,
            decode) in enumerate(configs):
        T = "1" if decode else "?"
        s = str(S) if static_s else "?"
        q = "tensor<%dx%sx%dx%dxf32>" % (B, T, H, Dh)
        k = "tensor<%dx%sx%dx%dx%s>" % (B, s, Hkv, Dh, kv)
        p = "tensor<%dx%sxi32>" % (B, T)
        attrs = ["num_heads = %d : i64" % H, "num_kv_heads = %d : i64" % Hkv]
        if causal:
            attrs.insert(0, "causal")
        if window:
            attrs.append("sliding_window = %d : i64" % window)
        args = "%%q: %s, %%k: %s, %%v: %s" % (q, k, k)
        operands, types = "%q, %k, %v", "%s, %s, %s" % (q, k, k)
        if pos:
            args += ", %%p: %s" % p
            operands += ", %p"
            types += ", " + p
        lines.append("  func.func private @c%d(%s) -> %s {" % (i, args, q))
        lines.append("    %%0 = llm.attention %s {%s} : %s -> %s"
                     % (operands, ", ".join(attrs), types, q))
        lines.append("    return %%0 : %s\n  }" % q)
    lines.append("}")
    with open(os.path.join(directory, "cases.mlir"), "w") as f:
        f.write("\n".join(lines) + "\n")

    with open(os.path.join(directory, "cases.inc"), "w") as f:
        f.write("static const Config kConfigs[] = {\n")
        for (B, H, Hkv, Dh, S, static_s, kv, causal, window, pos,
             decode) in configs:
            f.write("  {%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d},\n" % (
                B, H, Hkv, Dh, S, static_s, KV[kv], causal, window, pos,
                decode))
        f.write("};\nstatic const Run kRuns[] = {\n")
        for (c, T, positions, valid, bench) in runs:
            f.write("  {%d, %d, {%s}, {%s}, %d},\n" % (
                c, T, ", ".join(map(str, positions)),
                ", ".join(map(str, valid)), bench))
        f.write("};\n")


def split_ptx(ptx, directory):
    parts = re.split(r"^// ---- llmc: PTX for (sm_\d+)\s*$", open(ptx).read(),
                     flags=re.M)
    for i in range(1, len(parts), 2):
        with open(os.path.join(directory, "cases_%s.ptx" % parts[i]), "w") as f:
            f.write(parts[i + 1])


if __name__ == "__main__":
    if sys.argv[1] == "--split":
        split_ptx(sys.argv[2], sys.argv[3])
    else:
        write_cases(sys.argv[1])
