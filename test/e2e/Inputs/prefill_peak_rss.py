"""Measures the peak RSS of a long CPU prefill against KV cache + O(T*d).

Usage: prefill_peak_rss.py <llmc-run> <artifact dir> <tokens> <constant>

Runs `llmc-run --random-weights -n 1` twice on one thread, with a 1-token
prompt (the baseline: code, libraries, weights, buffers of fixed size) and
with a <tokens>-token prompt, each in its own process, and reads each
one's peak RSS from getrusage (ru_maxrss of the waited-for child). The
bound is

    baseline + KV cache bytes + constant * T * (hidden + intermediate) * 4

with the KV cache's bytes from the manifest (its shape and dtype: the whole
cache, which a prompt as long as the context fills) and hidden and
intermediate sizes from its config: the activations of a prefill are a
few rows of those widths per token, so anything quadratic in T (a T x T
attention score matrix: T^2 * 4 bytes per head) or a buffer kept per layer
breaks it. Prints the numbers and whether the peak is within the bound;
exits 1 when it is not.
"""
import json
import os
import random
import resource
import subprocess
import sys
import tempfile

DTYPE_BYTES = {"f32": 4, "bf16": 2, "f16": 2}


def peak_rss(command):
    """Peak RSS in bytes of `command`, run to completion in a child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit("%s failed: %s" % (" ".join(command), result.stderr))
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of RUSAGE_CHILDREN is the largest child's so far: run the
    # smaller command first.
    if after < before:
        sys.exit("ru_maxrss went down")
    return after * 1024  # KiB on Linux


def main():
    llmc_run, artifact, tokens, constant = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    manifest_path = [f for f in os.listdir(artifact) if f.endswith(".json")][0]
    manifest = json.load(open(os.path.join(artifact, manifest_path)))
    kv = manifest["kv_cache"]
    kv_bytes = DTYPE_BYTES[kv["dtype"]]
    for extent in kv["shape"]:
        kv_bytes *= extent
    config = manifest["config"]
    width = config["hidden_size"] + config["intermediate_size"]
    vocab = config["vocab_size"]
    rng = random.Random(tokens)
    with tempfile.TemporaryDirectory() as tmp:
        def run(count):
            path = os.path.join(tmp, "ids%d.txt" % count)
            with open(path, "w") as f:
                f.write(" ".join(str(rng.randrange(vocab)) for _ in range(count)))
            return peak_rss([llmc_run, artifact, "--random-weights", "-n", "1", "--threads", "1",
                             "--tokens-file", path])
        baseline = run(1)
        peak = run(tokens)
    activations = tokens * width * 4
    bound = baseline + kv_bytes + constant * activations
    growth = peak - baseline - kv_bytes
    print("prompt: %d tokens; hidden + intermediate: %d" % (tokens, width))
    print("peak RSS: %d bytes; 1-token baseline: %d bytes" % (peak, baseline))
    print("KV cache: %d bytes; T*(hidden+intermediate)*4: %d bytes" % (kv_bytes, activations))
    print("peak - baseline - KV cache = %.2f x T*(hidden+intermediate)*4" % (growth / activations))
    print("bound (baseline + KV cache + %g x T*(hidden+intermediate)*4): %d bytes" % (constant, bound))
    within = peak <= bound
    print("within the bound: %s" % ("yes" if within else "no"))
    sys.exit(0 if within else 1)


if __name__ == "__main__":
    main()
