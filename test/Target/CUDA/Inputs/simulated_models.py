"""Whole CUDA artifacts of small random-weight models run on the CPU in the
SIMT simulator (simulate_artifact.py, test/lib/cuda_sim.py), against the CPU
artifacts' logits.

Usage: simulated_models.py <work dir> <step_logits> <case>...

A case is <variant>-<kind>[-paged][-unfused]. The variant: one of random_model.py's
(test/Integration/GPU/Inputs) with the tiny dimensions of TINY instead of
its BASE ones, or stories260k (configs/stories260k.json: head_dim 8, 5
layers, context 512). The kind: f32 (f32 weights and KV cache), bf16 or
f16 (weights and KV cache of that type), int8 or fp8 (f32 weights and a
quantized KV cache, --kv-type=int8 / fp8). -paged compiles the CUDA artifact
with --paged-kv-cache (16-position pages; host_trace.py writes a shuffled
page table at the head of the cache) and compares it with the same
contiguous CPU references: the table must not change the logits. -unfused
compiles it with --no-fusion (the unfused kernels: separate projections,
RoPE and cache appends that round f32 keys and values to a 16-bit cache).

Per case: random weights (random_model.py's tensors: 1/sqrt(fan_in)
projections, logits of a few units up to about 50), PROMPT + DECODE random
tokens; `llmc compile` for cuda:sm_90 and `llmc --compile-to=kernels` with
the same flags; simulate_artifact.py runs one prefill of the prompt and
DECODE decode calls (positions continuing). The reference: the CPU artifact
(`llmc compile --target=cpu`) through step_logits
(test/Integration/GPU/Inputs/step_logits.c, built by the test) with the
same plan of calls. The same calls, not one teacher-forced prefill of all
the tokens: with dynamic NTK RoPE the frequencies depend on the longest
position of the call, so a prefill of 72 tokens and one of 70 followed by
two decode steps give logits that differ by O(1) in the last rows.
Prints one line per comparison and per case, then "all cases passed", or
FAILED lines (exit 1).

TINY: hidden 64, 4 heads of 16 (2 KV heads), 2 layers, intermediate 168
(not a multiple of the GEMMs' 64-wide tiles, nor of the tensor-core GEMM's
32-deep K steps), vocabulary 300 (a partial tile of the logits GEMM and of
the GEMV's row groups), context 128. The prompt of 70 tokens spans two
64-key tiles of the flash-attention kernel and three 32-query blocks;
decode runs the split-K attention and its combine kernel.

Bounds (compare_logits.py of test/Integration/GPU/Inputs):
  - f32: max |diff| <= 1e-3 against the CPU's f32 artifact, and the argmax
    of every row. Both compute in f32 and differ in summation order and in
    the exp/sin/cos implementations (a few ulp); the simulator rounds like
    the GPU (f32 operations, fma rounded once), and measured differences on
    these models are 3e-5 to 6e-5 (logit scales 40 to 85), so 1e-3 leaves
    a margin of 15 or more, while a wrong index, mask or scale moves logits
    by O(1).
  - bf16, f16: max |diff| <= 4% of the logit scale against the CPU's f32
    artifact and against its artifact with weights of the same type, the
    bound of run_random_configs.py (weight rounding alone moves logits by
    0.3% to 1.3%; the tensor-core GEMMs also round activations to bf16, the
    16-bit KV cache rounds keys and values; the CPU target does not compile
    a 16-bit KV cache, so its reference keeps an f32 one); the argmax agreeing
    with the same-weights CPU artifact on 85% of the rows. Measured: 0.4% to
    1.5% of the logit scale.
  - int8, fp8: max |diff| <= 1e-3 (the f32 bound) against the CPU artifact
    with the same --kv-type, and the argmax of every row. Both backends
    quantize the same f32 rows with the same f32 formulas
    (codegen/common/KVQuantization: codes of x * (maxCode / max), the
    scale max / maxCode), so codes agree unless an input differs across a
    rounding boundary: measured on gqa (72 positions, 9216 codes per
    format) none differ, the scales differ by at most 1.04e-6 relative
    (the inputs' own f32 differences), and the logits by 3.4e-5 (int8) and
    2.7e-5 (fp8), as in f32; the quantization itself moves them by 0.31
    (int8) and 1.24 (fp8) from the f32 cache, so a wrong rounding, scale
    or byte order is far outside the bound. At the SmolLM2 shape codes do
    flip: its keys' f32 inputs differ by ~1e-6 too, which put 2 of the
    27,648 int8 codes of layer 0 one step from the CPU's (one of them at
    position 0, seen by every later query), and through the attention
    layer 1's inputs then differ by up to 7e-4 relative (139 + 144 of its
    codes one step apart); the logits by 0.060 (0.07% of the logit scale
    85.5; f32 at that shape: 7.4e-5). Its bound is 0.5% of the logit scale
    and the argmax of every row, seven times the measured effect of those
    one-step flips; compare_kv_codes.py checks the codes themselves.
"""
import concurrent.futures
import json
import os
import random
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STORIES = os.path.join(HERE, "..", "..", "..", "..", "configs", "stories260k.json")
GPU_INPUTS = os.path.join(HERE, "..", "..", "..", "Integration", "GPU", "Inputs")
sys.path.insert(0, GPU_INPUTS)
import random_model  # noqa: E402
from run_random_configs import Failed, run  # noqa: E402
from compare_logits import check, compare, describe  # noqa: E402

TINY = {"hidden_size": 64, "intermediate_size": 168, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 300,
        "max_position_embeddings": 128}
# family_<f>: test/e2e/Inputs/make_hf_model.py's tiny model of family <f>
# (the same directories hf-families.test checks against transformers).
FAMILIES = ("qwen3", "olmo2", "gpt_neox", "phi3", "gemma", "gemma2", "gemma3_text", "gptj",
            "deepseek_v2", "deepseek_v3")
MAKE_HF_MODEL = os.path.join(HERE, "..", "..", "..", "e2e", "Inputs", "make_hf_model.py")
# smollm2_shape: SmolLM2-135M's widths (hidden 576, 9 query heads of 64, 3
# KV heads, intermediate 1536, RoPE base 1e5, tied) with 2 layers and TINY's
# vocabulary and context.
SMOLLM2_SHAPE = {"hidden_size": 576, "intermediate_size": 1536, "num_attention_heads": 9,
                 "num_key_value_heads": 3, "rope_theta": 100000.0, "tie_word_embeddings": True}
# deepseek_v2_lite_latent: the tiny deepseek_v2 with DeepSeek-V2-Lite's latent head, kv_lora_rank 512 +
# qk_rope_head_dim 64 = 576 wide (the attention kernels' widest: one key per softmax update, one block per SM).
LITE_LATENT = {"kv_lora_rank": 512, "qk_rope_head_dim": 64}
VARIANTS = (set(random_model.VARIANTS) | {"stories260k", "smollm2_shape", "deepseek_v2_lite_latent"} |
            {"family_" + family for family in FAMILIES})
PROMPT, DECODE = 70, 2
# The KV cache of every variant: TINY's context, also where a variant's own
# max_position_embeddings is shorter than the prompt (dynamic-rope's 32).
CONTEXT = "--context=128"
PLAN = "%d,d%d" % (PROMPT, DECODE)
F32_MAX_ABS = 1e-3
BF16_MAX_SCALED = 0.04
BF16_MIN_AGREE = 0.85
# int8, fp8: f32 weights and a quantized KV cache (--kv-type), against the
# CPU artifact with the same cache. Bounds: see the docstring.
QUANTIZED_KV = ("int8", "fp8")
QUANTIZED_MAX_ABS = F32_MAX_ABS
# Where a code does flip (the SmolLM2 shape): a share of the logit scale.
QUANTIZED_MAX_SCALED = {"smollm2_shape": 0.005}


def config(variant, directory=None):
    """A tiny variant of random_model.py's, configs/stories260k.json, or a
    family's config.json as make_hf_model.py wrote it into `directory`."""
    if variant == "stories260k":
        with open(STORIES) as f:
            return json.load(f)
    if variant.startswith("family_") or variant == "deepseek_v2_lite_latent":
        with open(os.path.join(directory, "config.json")) as f:
            return json.load(f)
    cfg = dict(random_model.BASE, **TINY)
    cfg.update(SMOLLM2_SHAPE if variant == "smollm2_shape" else random_model.VARIANTS[variant][0])
    return cfg


def make_lite_latent_model(directory):
    """make_hf_model.py's deepseek_v2 directory with LITE_LATENT's widths: its
    config.json updated, its tensors (hf_family_layouts.py's layout of the
    new config) drawn again the way make_hf_model.py draws them."""
    sys.path.insert(0, os.path.dirname(MAKE_HF_MODEL))
    import hf_family_layouts  # noqa: E402
    import make_hf_model  # noqa: E402
    import numpy as np  # noqa: E402
    subprocess.run([sys.executable, MAKE_HF_MODEL, "deepseek_v2", directory], check=True,
                   stdout=subprocess.DEVNULL)
    path = os.path.join(directory, "config.json")
    with open(path) as f:
        cfg = dict(json.load(f), **LITE_LATENT)
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    rng = np.random.default_rng(33)
    tensors = {name: make_hf_model.WEIGHT_KINDS[kind](rng, shape).astype(np.float32)
               for name, (shape, kind) in sorted(hf_family_layouts.mla_layout(cfg).items())}
    make_hf_model.write_safetensors(os.path.join(directory, "model.safetensors"), tensors)


def make_model(directory, variant):
    """config.json, model.safetensors and all.tokens of a variant."""
    if variant.startswith("family_") or variant == "deepseek_v2_lite_latent":
        if variant == "deepseek_v2_lite_latent":
            make_lite_latent_model(directory)
        else:
            subprocess.run([sys.executable, MAKE_HF_MODEL, variant[len("family_"):], directory],
                           check=True, stdout=subprocess.DEVNULL)
        rng = random.Random("llmc-sim-" + variant)
        vocab = config(variant, directory)["vocab_size"]
        with open(os.path.join(directory, "all.tokens"), "w") as f:
            f.write(" ".join(str(rng.randrange(vocab)) for _ in range(PROMPT + DECODE)) + "\n")
        return
    cfg = config(variant)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    rng = random.Random("llmc-sim-" + variant)
    tensors = {name: (shape, random_model.random_tensor(rng, name, shape))
               for name, shape in random_model.weight_shapes(cfg).items()}
    random_model.write_safetensors(os.path.join(directory, "model.safetensors"), tensors)
    tokens = [rng.randrange(cfg["vocab_size"]) for _ in range(PROMPT + DECODE)]
    with open(os.path.join(directory, "all.tokens"), "w") as f:
        f.write(" ".join(str(t) for t in tokens) + "\n")


class Work:
    """The CPU references, each built once (in a pool of its own: the
    cases wait for them)."""

    def __init__(self, root, step_logits):
        self.root, self.step_logits = root, step_logits
        self.pool = concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2)
        self.futures = {}
        self.lock = threading.Lock()

    def cpu_logits(self, variant, weight_type, kv_type=None):
        """The CPU artifact's logits of every token (a future: path), with
        f32 KV cache or --kv-type=kv_type."""
        def build():
            directory = os.path.join(self.root, variant)
            log = []
            tag = weight_type + ("-kv" + kv_type if kv_type else "")
            artifact = os.path.join(directory, "cpu-" + tag)
            out = os.path.join(directory, "cpu-%s.f32" % tag)
            flags = ["--kv-type=" + kv_type] if kv_type else []
            try:
                run(["llmc", "compile", os.path.join(directory, "config.json"),
                     "--target=cpu", "--weight-type=" + weight_type, CONTEXT, "-o", artifact]
                    + flags, log)
                run([self.step_logits, artifact, os.path.join(directory, "model.safetensors"),
                     os.path.join(directory, "all.tokens"), PLAN, out], log)
            except Failed:
                raise RuntimeError("\n".join(log))
            return out
        key = (variant, weight_type, kv_type)
        with self.lock:  # cases of one variant ask at the same time
            if key not in self.futures:
                self.futures[key] = self.pool.submit(build)
            return self.futures[key]


CASE_OPTIONS = ("paged", "unfused")


def parse_case(case):
    """(variant, kind, options): options the set of CASE_OPTIONS the case
    names after its kind."""
    parts = case.split("-")
    options = set()
    while parts and parts[-1] in CASE_OPTIONS:
        options.add(parts.pop())
    return "-".join(parts[:-1]), parts[-1] if parts else "", options


def check_case(work, case):
    """(lines, failed)"""
    variant, kind, options = parse_case(case)
    paged = "paged" in options
    if variant not in VARIANTS or kind not in ("f32", "bf16", "f16") + QUANTIZED_KV:
        return ["%s: unknown case" % case], True
    lines, failed = [], False
    directory = os.path.join(work.root, variant)
    quantized = kind in QUANTIZED_KV
    flags = ["--target=cuda:sm_90", "--weight-type=" + ("f32" if quantized else kind), CONTEXT]
    tag = "-".join([kind] + sorted(options))
    if paged:
        flags.append("--paged-kv-cache")
    if "unfused" in options:
        flags.append("--no-fusion")
    references = [("f32", work.cpu_logits(variant, "f32"))]
    if quantized:
        flags.append("--kv-type=" + kind)
        references = [("f32 --kv-type=" + kind, work.cpu_logits(variant, "f32", kind))]
    elif kind != "f32":
        flags.append("--kv-type=" + kind)
        references.append((kind, work.cpu_logits(variant, kind)))
    try:
        config_path = os.path.join(directory, "config.json")
        artifact = os.path.join(directory, "cuda-" + tag)
        kernels = os.path.join(directory, "cuda-%s.kernels.mlir" % tag)
        run(["llmc", "compile", config_path, "-o", artifact] + flags, lines)
        with open(kernels, "w") as f:
            f.write(run(["llmc", "--compile-to=kernels", config_path] + flags, lines))
        out = os.path.join(directory, "sim-%s.f32" % tag)
        start = time.time()
        run([sys.executable, os.path.join(HERE, "simulate_artifact.py"), artifact, kernels,
             os.path.join(directory, "model.safetensors"), os.path.join(directory, "all.tokens"),
             PLAN, out], lines)
        seconds = time.time() - start
        vocab = config(variant, directory)["vocab_size"]
        for ref_kind, future in references:
            stats = compare(out, future.result(), vocab)
            label = "%s: simulated CUDA (prefill %d, decode %d) vs CPU %s" % (
                case, PROMPT, DECODE, ref_kind)
            lines.append("%s: %s" % (label, describe(stats)))
            if kind == "f32":
                problems = check(stats, max_abs=F32_MAX_ABS, min_agree=1.0)
            elif quantized:
                problems = (check(stats, max_scaled=QUANTIZED_MAX_SCALED[variant], min_agree=1.0)
                            if variant in QUANTIZED_MAX_SCALED else
                            check(stats, max_abs=QUANTIZED_MAX_ABS, min_agree=1.0))
            elif ref_kind != "f32":
                problems = check(stats, max_scaled=BF16_MAX_SCALED, min_agree=BF16_MIN_AGREE)
            else:
                problems = check(stats, max_scaled=BF16_MAX_SCALED)
            if problems:
                failed = True
                lines.append("%s: FAILED: %s" % (label, "; ".join(problems)))
        lines.append("%s: passed (simulation %.1f s)" % (case, seconds) if not failed else
                     "%s: FAILED" % case)
    except Failed:
        failed = True
        lines.append("%s: FAILED (a command failed)" % case)
    except (OSError, ValueError, RuntimeError) as error:
        failed = True
        lines.append("%s: FAILED: %s" % (case, error))
    return lines, failed


def main():
    root, step_logits, cases = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
    os.makedirs(root, exist_ok=True)
    start = time.time()
    for variant in sorted({parse_case(case)[0] for case in cases}):
        if variant in VARIANTS:
            make_model(os.path.join(root, variant), variant)
    work = Work(root, step_logits)
    cases_pool = concurrent.futures.ThreadPoolExecutor(len(cases))
    futures = [cases_pool.submit(check_case, work, case) for case in cases]
    any_failed = False
    for future in futures:
        lines, failed = future.result()
        print("\n".join(lines))
        any_failed |= failed
    print("FAILED" if any_failed else "all cases passed (%.0f s)" % (time.time() - start))
    return 1 if any_failed else 0


if __name__ == "__main__":
    sys.exit(main())
