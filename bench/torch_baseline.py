"""PyTorch eager baseline: Hugging Face transformers' LlamaForCausalLM on the benchmark's weights.

    python torch_baseline.py <model-dir> --tokens "1 2 3" -n N [--threads T]

<model-dir> holds config.json + model.safetensors (f32), as bench/make_random_model.py writes them.
Greedy decoding with the model's KV cache (past_key_values), eager mode (no torch.compile), f32,
no EOS stop; one untimed warm-up forward pass first. stdout: prompt and generated ids, space-separated; stderr: one timing line in the same
shape as llmc-run's. Needs torch and transformers (bench/run.sh installs them into a venv under /tmp).
"""
import argparse
import sys
import time

import torch
from transformers import LlamaForCausalLM


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir")
    ap.add_argument("--tokens", required=True)
    ap.add_argument("-n", type=int, default=16)
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    args = ap.parse_args()

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    prompt = [int(t) for t in args.tokens.replace(",", " ").split()]
    model = LlamaForCausalLM.from_pretrained(args.model_dir, dtype=torch.float32,
                                             attn_implementation="eager")
    model.eval()

    with torch.inference_mode():
        # Warm-up (not timed): PyTorch's first forward pass pays one-time set-up (thread pool, kernel
        # selection, lazy allocations) that took seconds here; two tokens through a throwaway cache.
        model(input_ids=torch.tensor([prompt[:2]], dtype=torch.long), use_cache=True)
        ids = torch.tensor([prompt], dtype=torch.long)
        t0 = time.perf_counter()
        out = model(input_ids=ids, use_cache=True)
        prefill_s = time.perf_counter() - t0
        past, logits = out.past_key_values, out.logits[0, -1]
        generated, decode_s, decoded = [], 0.0, 0
        for i in range(args.n):
            nxt = int(torch.argmax(logits))
            generated.append(nxt)
            if i + 1 == args.n:
                break  # the last token's logits are never needed (as in llmc-run)
            t1 = time.perf_counter()
            out = model(input_ids=torch.tensor([[nxt]]), past_key_values=past, use_cache=True)
            decode_s += time.perf_counter() - t1
            decoded += 1
            past, logits = out.past_key_values, out.logits[0, -1]

    print(" ".join(str(t) for t in prompt + generated))
    sys.stdout.flush()
    print(f"torch: {len(generated)} generated; threads {torch.get_num_threads()}; "
          f"prefill {len(prompt)} tokens in {prefill_s * 1e3:.3f} ms ({len(prompt) / prefill_s:.1f} tokens/s); "
          f"decode {decoded} tokens in {decode_s * 1e3:.3f} ms "
          f"({(decoded / decode_s) if decoded else 0.0:.1f} tokens/s)", file=sys.stderr)


if __name__ == "__main__":
    main()
