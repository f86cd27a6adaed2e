"""Random-weight models of every variant on the GPU against the CPU path.

Usage: run_random_configs.py <work dir> <cuda target> <step_logits> <variant>...
       [--f32 <variant>,...] [--stage all|prepare|check]

--stage splits the work between two machines (scripts/gpu-bundle.sh and
scripts/gpu-check.sh): `prepare` (where llmc runs) generates the models,
compiles every artifact and dumps the CPU's logits; `check` (on the GPU
machine, llmc-run on PATH) runs the CUDA artifacts of a prepared work dir
and compares. `all` (the default) does both.

For each variant (random_model.py): `llmc compile` for the CPU with f32
and with bf16 weights, and for the CUDA target with bf16 weights (and, for
the variants named by --f32, with f32 weights too); then on each artifact
  - `llmc-run --dump-logits`: one teacher-forced prefill of the prompt;
  - step_logits with the plan "P/2,P-P/2,d8": the prompt in two prefill
    calls (the second starts mid-sequence) and 8 decode calls after it;
and compares the CUDA logits with the CPU's. Prints one line per
comparison and a pooled line; exits 1 after everything has run if any bound
is broken (a failing variant does not stop the others).

Bounds:
  - f32 CUDA vs f32 CPU: max |diff| <= 1e-3. Both are f32 with another
    summation order; the CPU's own error against a float64 numpy decoder on
    these models is at most 1.4e-4 (measured, logits up to 92), so the GPU's
    should be of the same size: 1e-3 leaves a margin of 3 over their sum.
    Argmax on every row.
  - bf16 CUDA vs f32 CPU: max |diff| <= 4% of the logit scale (the largest
    |logit| of the CPU dump). Rounding the weights to bf16 alone moves the
    logits by 0.3% to 1.3% of that scale (measured with the CPU's bf16
    artifacts on these variants); the GPU's tensor-core projections round
    the activations to bf16 too, an error of the same kind and size; 4%
    leaves margin while a wrong kernel (index, mask, scaling) moves logits
    by amounts of the order of the scale itself. The same bound against
    the CPU's bf16 artifact (same rounded weights).
  - Argmax, bf16 CUDA vs bf16 CPU (the same weights, so only the GPU's own
    rounding can flip a row): a row flips only between two logits closer
    than twice the max |diff|, and random models have such near ties (the
    CPU's bf16 artifacts flip 30 of 1576 rows against its f32 ones, 4 of
    40 in the worst comparison), so agreement is required on 95% of all
    bf16 rows pooled over the variants and on 85% of each comparison's.
"""
import concurrent.futures
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_logits import check, compare, describe  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
F32_MAX_ABS = 1e-3
BF16_MAX_SCALED = 0.04
BF16_MIN_AGREE_POOLED = 0.95
BF16_MIN_AGREE_EACH = 0.85
DECODE_STEPS = 8
# random_model.py's vocabulary.
VOCAB = 1000


class Failed(Exception):
    pass


def run(args, log):
    """Runs a command; on failure records the end of its output in `log` and
    raises Failed. Also simulated_models.py's runner."""
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True)
    if result.returncode != 0:
        tail = "\n".join(result.stdout.splitlines()[-25:])
        log.append("command failed (exit %d): %s\n%s" % (
            result.returncode, " ".join(args), tail))
        raise Failed()
    return result.stdout


def check_variant(work, target, step_logits, name, with_f32, stage="all"):
    """(output lines, failed, pooled bf16 (agree, rows))."""
    lines, failed, agree, rows = [], False, 0, 0
    directory = os.path.join(work, name)
    prepare, check_on_gpu = stage in ("all", "prepare"), stage in ("all", "check")
    try:
        length_file = os.path.join(directory, "prompt.length")
        weights = os.path.join(directory, "model.safetensors")
        # random_model.py is deterministic (seeded by the variant's name), so
        # a prepared work dir may travel without its weights.
        if prepare or not os.path.exists(weights):
            prompt_len = int(run([sys.executable, os.path.join(HERE, "random_model.py"),
                                  directory, name], lines))
            with open(length_file, "w") as f:
                f.write("%d\n" % prompt_len)
        else:
            prompt_len = int(open(length_file).read())
        config = os.path.join(directory, "config.json")
        # One context for every variant: dynamic-rope's max_position_embeddings
        # is below its prompt (the KV cache must still hold it).
        context = "--context=512"
        builds = [("cpu", ["--target=cpu", context]),
                  ("cpu-bf16", ["--target=cpu", "--weight-type=bf16", context]),
                  ("bf16", ["--target=" + target, "--weight-type=bf16", context])]
        if with_f32:
            builds.append(("f32", ["--target=" + target, "--weight-type=f32", context]))
        half = prompt_len // 2
        plan = "%d,%d,d%d" % (half, prompt_len - half, DECODE_STEPS)
        for kind, flags in builds:
            artifact = os.path.join(directory, kind)
            on_gpu = kind in ("bf16", "f32")
            if prepare:
                run(["llmc", "compile", config, "-o", artifact] + flags, lines)
            if (on_gpu and not check_on_gpu) or (not on_gpu and not prepare):
                continue
            run(["llmc-run", artifact, "--weights", weights, "--tokens-file",
                 os.path.join(directory, "prompt.tokens"), "--dump-logits",
                 os.path.join(directory, kind + ".prefill.f32")], lines)
            run([step_logits, artifact, weights, os.path.join(directory, "all.tokens"),
                 plan, os.path.join(directory, kind + ".steps.f32")], lines)
        dump = lambda kind, what: os.path.join(directory, "%s.%s.f32" % (kind, what))
        if not check_on_gpu:
            lines.append("%s: prepared" % name)
            return lines, failed, agree, rows
        for what in ("prefill", "steps"):
            label = "%s bf16 %s" % (name, what)
            stats = compare(dump("bf16", what), dump("cpu", what), VOCAB)
            same_weights = compare(dump("bf16", what), dump("cpu-bf16", what), VOCAB)
            lines.append("%s: vs CPU f32: %s; vs CPU bf16: %s" % (
                label, describe(stats), describe(same_weights)))
            problems = check(stats, max_scaled=BF16_MAX_SCALED)
            problems += check(same_weights, max_scaled=BF16_MAX_SCALED,
                              min_agree=BF16_MIN_AGREE_EACH)
            agree += same_weights["agree"]
            rows += same_weights["rows"]
            if with_f32:
                f32_label = "%s f32 %s" % (name, what)
                f32_stats = compare(dump("f32", what), dump("cpu", what), VOCAB)
                lines.append("%s: vs CPU f32: %s" % (f32_label, describe(f32_stats)))
                f32_problems = check(f32_stats, max_abs=F32_MAX_ABS, min_agree=1.0)
                if f32_problems:
                    failed = True
                    lines.append("%s: FAILED: %s" % (f32_label, "; ".join(f32_problems)))
            if problems:
                failed = True
                lines.append("%s: FAILED: %s" % (label, "; ".join(problems)))
    except Failed:
        failed = True
        lines.append("%s: FAILED (a command failed)" % name)
    except (OSError, ValueError) as error:
        failed = True
        lines.append("%s: FAILED: %s" % (name, error))
    return lines, failed, agree, rows


def main():
    argv = sys.argv[1:]
    f32 = set()
    if "--f32" in argv:
        at = argv.index("--f32")
        f32 = set(argv[at + 1].split(","))
        del argv[at:at + 2]
    stage = "all"
    if "--stage" in argv:
        at = argv.index("--stage")
        stage = argv[at + 1]
        del argv[at:at + 2]
        if stage not in ("all", "prepare", "check"):
            print("unknown --stage %s; expected all, prepare or check" % stage)
            return 2
    work, target, step_logits, variants = argv[0], argv[1], argv[2], argv[3:]
    os.makedirs(work, exist_ok=True)
    # Variants run side by side: compiling (ptxas) is most of the time, and
    # a GPU runs several small processes' work at once.
    workers = max(1, min(len(variants), (os.cpu_count() or 2) // 2, 8))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(
            lambda v: check_variant(work, target, step_logits, v, v in f32, stage),
            variants))
    any_failed, agree, rows = False, 0, 0
    for lines, failed, variant_agree, variant_rows in results:
        print("\n".join(lines))
        any_failed |= failed
        agree += variant_agree
        rows += variant_rows
    if stage == "prepare":
        print("FAILED" if any_failed else "all variants prepared")
        return 1 if any_failed else 0
    print("bf16 pooled: argmax agrees on %d/%d rows (at least %g required)"
          % (agree, rows, BF16_MIN_AGREE_POOLED))
    if rows and agree < BF16_MIN_AGREE_POOLED * rows:
        print("bf16 pooled: FAILED")
        any_failed = True
    print("FAILED" if any_failed else "all variants passed")
    return 1 if any_failed else 0


if __name__ == "__main__":
    sys.exit(main())
