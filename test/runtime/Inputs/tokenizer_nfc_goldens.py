"""Writes Unicode-normalizing byte-level BPE tokenizers and their goldens for tokenizer-nfc.test.

Runs in the reference venv (/root/.cache/llmc/venv, made by scripts/reference-venv.sh) with the pinned
`tokenizers` 0.23.3; the oracle is that package, nothing here reads llmc's output. Reuses the corpus, hard
strings, Qwen2 regex and golden format of tokenizer_goldens.py (same directory).

Usage: tokenizer_nfc_goldens.py <out-dir>

Writes:
  - qwen2-nfc/: a model directory shaped like Qwen2 / Qwen2.5's: tokenizer.json with normalizer NFC, the
    Qwen2 Split regex + ByteLevel(use_regex=False) pre-tokenizer, ByteLevel decoder and post-processor
    (a small BPE trained here on the shared corpus plus text that needs normalizing), and a
    tokenizer_config.json with Qwen2's keys (no BOS, eos <|im_end|>);
  - nfd.json, nfkc.json, nfkd.json, sequence.json: the same vocab and merges with normalizer NFD, NFKC,
    NFKD and Sequence[NFD, NFKC];
  - <name>.golden for each, over NFC_HARD + the shared hard strings + the paragraph.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tokenizer_goldens import (HARD, PARAGRAPH, QWEN2, SPECIALS, USER_DEFINED, VOCAB_SIZE,  # noqa: E402
                               bytelevel_tail, corpus, goldens, split)
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

# Strings where the forms disagree with each other or with no normalization at all.
NFC_HARD = [
    "e\u0301", "cafe\u0301 vs caf\u00e9", "Cafe\u0301s re\u0301sume\u0301",
    # Hangul: conjoining jamo L V T compose to one syllable; a lone L or V stays; LV + T -> LVT.
    "\u1100\u1161\u11a8", "\u1112\u1161\u11ab\u1100\u1173\u11af \ud55c\uae00", "\u1100\u1161 \u1100 \u1161",
    "\uac00\u11a8", "\u3131\u314f compatibility jamo",
    # Compatibility characters NFC keeps and NFKC folds.
    "\ufb01 \u2460 \uff21\uff22 x\u00b2 \u00bd \u2122 \u3392", "\U0001d400\U0001d41a bold",
    "\u2000\u2002en spaces\u00a0", "\ufefb \u0644\u0627", "\u0e33 \u0eb3",
    # Canonical singletons every form replaces.
    "\u212b \u2126 \u212a",
    # Combining marks in sequence: canonical reordering, stacking, exclusions.
    "a\u0323\u0302 a\u0302\u0323", "q\u0307\u0323 \u1e0b\u0323 \u1e9b\u0323", "e\u0301\u0301\u0301 o\u0308\u0304",
    "A\u030a\u0301 \u00c5\u0301", "\u0958 \u0915\u093c", "\u0344 \u0390",
    "\u0301leading mark", " \u0301 space then mark", "\u0410\u0308 \u0419",
    # Next to special and user-defined tokens (cut before normalizing, as HF does).
    "e<|im_end|>\u0301", "<|im_start|>\u0301user", "<tool>\u0301",
    # Mixed scripts.
    "Mixed: cafe\u0301 \u4f60\u597d \u1112\u1161\u11ab \u0928\u092e\u0938\u094d\u0924\u0947 \U0001d400 \u0410\u0308 \U0001f600",
]

# Lines added to the training corpus so that merges exist for composed and decomposed text.
EXTRA_LINES = [s for s in NFC_HARD if "<" not in s] * 20

VARIANTS = {
    "nfd": normalizers.NFD,
    "nfkc": normalizers.NFKC,
    "nfkd": normalizers.NFKD,
    "sequence": lambda: normalizers.Sequence([normalizers.NFD(), normalizers.NFKC()]),
}

# Qwen2's tokenizer_config.json keys that llmc reads, with Qwen2's values.
QWEN2_CONFIG = {
    "add_bos_token": False, "add_prefix_space": False, "bos_token": None, "eos_token": "<|im_end|>",
    "pad_token": "<|endoftext|>", "errors": "replace", "model_max_length": 32768,
    "split_special_tokens": False, "tokenizer_class": "Qwen2Tokenizer", "unk_token": None,
}


def train_qwen2_nfc():
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([split(QWEN2), bytelevel_tail()])
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(corpus() + EXTRA_LINES, trainer=trainer)
    tok.add_tokens(USER_DEFINED)
    return tok


def main():
    out = sys.argv[1]
    strings = NFC_HARD + HARD + [PARAGRAPH]
    tok = train_qwen2_nfc()
    os.makedirs(out + "/qwen2-nfc", exist_ok=True)
    tok.save(out + "/qwen2-nfc/tokenizer.json")
    with open(out + "/qwen2-nfc/tokenizer_config.json", "w") as f:
        json.dump(QWEN2_CONFIG, f, indent=2, sort_keys=True)
        f.write("\n")
    goldens(Tokenizer.from_file(out + "/qwen2-nfc/tokenizer.json"), out + "/qwen2-nfc.golden", strings)
    for name, make in VARIANTS.items():
        tok.normalizer = make()
        tok.save(out + "/" + name + ".json")
        goldens(Tokenizer.from_file(out + "/" + name + ".json"), out + "/" + name + ".golden", strings)


if __name__ == "__main__":
    main()
