"""Writes the tokenizer golden files (and small trained tokenizers) for tokenizer-goldens.test.

Runs in the reference venv (/root/.cache/llmc/venv, made by scripts/reference-venv.sh) with the pinned
versions it was written against: tokenizers 0.23.3, gguf 0.19.0. The oracle is the Hugging Face
`tokenizers` package; nothing here reads llmc's output.

Usage: tokenizer_goldens.py <out-dir> [--smollm2 <SmolLM2 GGUF> | --stories <stories260K.gguf>]

Families:
  - smollm2: the real SmolLM2-135M-Instruct GGUF. The reference tokenizer is built with `tokenizers`
    from the GGUF's own vocab and merges plus the semantics of SmolLM2's original tokenizer.json:
    pre_tokenizer Sequence[Digits(individual_digits=True), ByteLevel(add_prefix_space=False,
    use_regex=True)], decoder ByteLevel, the control tokens as special added tokens. It is NOT built
    with transformers' GGUF loader, which silently uses plain GPT-2 splitting for pre "smollm" (wrong
    for digits after a space: " 2024" must be " ", "2", "0", "2", "4").
  - gpt-2, llama-bpe, qwen2, tekken, deepseek-llm, deepseek-v3: a small byte-level BPE trained here (the
    tokenizers trainer, on a corpus generated below from a fixed seed) with that family's pre-tokenizer
    as in its original tokenizer.json; saved as <family>.json and as <family>.gguf (same vocab, merges
    and tokenizer.ggml.pre name, written with the gguf package).
  - metaspace: a trained SentencePiece-style BPE (Metaspace pre-tokenizer with split, prepend_scheme
    "first", a fused unknown token, no byte fallback), as metaspace.json only.
  - stories260k (SentencePiece via tokenizer.json): transformers converts the stories260K GGUF vocab
    (llama scores, byte fallback) into stories260k/tokenizer.json + tokenizer_config.json
    (AutoTokenizer(gguf_file=...).save_pretrained); goldens from `tokenizers` on that tokenizer.json.
    transformers 5.24 fails on the file's "no token" ids (0xFFFFFFFF padding/separator), so only the
    tokenizer keys are copied into a temporary GGUF first.

Golden file lines (tab-separated; text and decoded text as hex of UTF-8):
  <hex text> <ids: specials parsed> <ids: special spellings as text> <hex of decode(ids, skip special)>
and one line per string starting with "+bos" holding the ids with the file's own BOS/EOS post-processor.
"""
import random
import sys

import gguf
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors, trainers

# Family patterns: the original tokenizer.json regexes (see runtime/src/tokenizer_pretokenize.cpp).
GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
LLAMA3 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
QWEN2 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
TEKKEN = (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|"
          r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}|"
          r" ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
DEEPSEEK_LETTERS = (
    "A-Za-z\u00b5\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-\u02af"
    "\u0370-\u0373\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-\u03a1\u03a3-\u03f5"
    "\u03f7-\u0481\u048a-\u052f\u0531-\u0556\u10a0-\u10c5\u13a0-\u13f5\u13f8-\u13fd\u1c90-\u1cba"
    "\u1cbd-\u1cbf\u1d00-\u1d2b\u1d6b-\u1d77\u1d79-\u1d9a\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45"
    "\u1f48-\u1f4d\u1f50-\u1f57\u1f59\u1f5b\u1f5d\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe"
    "\u1fc2-\u1fc4\u1fc6-\u1fcc\u1fd0-\u1fd3\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc"
    "\u2102\u2107\u210a-\u2113\u2115\u2119-\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134\u2139"
    "\u213c-\u213f\u2145-\u2149\u214e\u2183\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee\u2cf2\u2cf3"
    "\ua640-\ua66d\ua680-\ua69b\ua722-\ua76f\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf\ufb00-\ufb06"
    "\ufb13-\ufb17\uff21-\uff3a\uff41-\uff5a\U00010400-\U0001044f\U000104b0-\U000104d3"
    "\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-\U00010cf2\U000118a0-\U000118df"
    "\U0001e900-\U0001e943")
DEEPSEEK_LLM = ["[\r\n]", "\\s?[" + DEEPSEEK_LETTERS + "]+",
                "\\s?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+", "\\s+$",
                "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"]
DEEPSEEK_V3 = [r"\p{N}{1,3}", "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
               r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""]


def split(p):
    return pre_tokenizers.Split(Regex(p), behavior="isolated", invert=False)


def bytelevel_tail():
    return pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)


# name -> (pre_tokenizer, ignore_merges, add_bos)
FAMILIES = {
    "gpt-2": (lambda: pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True), False, False),
    "llama-bpe": (lambda: pre_tokenizers.Sequence([split(LLAMA3), bytelevel_tail()]), True, True),
    "qwen2": (lambda: pre_tokenizers.Sequence([split(QWEN2), bytelevel_tail()]), False, False),
    "tekken": (lambda: pre_tokenizers.Sequence([split(TEKKEN), bytelevel_tail()]), True, True),
    "deepseek-llm": (lambda: pre_tokenizers.Sequence(
        [split(p) for p in DEEPSEEK_LLM] + [pre_tokenizers.Digits(individual_digits=False),
                                              bytelevel_tail()]), False, True),
    "deepseek-v3": (lambda: pre_tokenizers.Sequence([split(p) for p in DEEPSEEK_V3] + [bytelevel_tail()]),
                    False, True),
}
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
USER_DEFINED = ["<tool>"]  # an added, non-special token: always matched
VOCAB_SIZE = 1500

# Hard strings: every tokenizer is checked on all of them.
HARD = [
    "", " ", "  ", "   leading", "trailing   ", "\n", "\n\n\n", "a\n\nb", " \n \n ", "\t", "a\tb\t\tc",
    "\r\n", "line1\r\nline2", "12", "123", "1234567", " 2024", "3.14159", "1,000,000", "x = 42;",
    "The year 1999 and 20000.",
    "it's", "IT'S", "don't", "they're", "we've", "I'm", "you'll", "he'd", "THEY'RE WE'VE I'M YOU'LL HE'D",
    "caf\u00e9 na\u00efve r\u00e9sum\u00e9", "Stra\u00dfe \u00c5ngstr\u00f6m", "e\u0301 (combining)",
    "\u4f60\u597d\uff0c\u4e16\u754c\u3002", "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8", "\ud55c\uad6d\uc5b4",
    "\U0001f600", "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 family", "\U0001f44d\U0001f3fd ok",
    "\u03a9\u2126 \u212a K \u1fbe \u0392\u03b5\u03c4\u03b1", "\u0645\u0631\u062d\u0628\u0627", "\u0928\u092e\u0938\u094d\u0924\u0947",
    "def f(x):\n    return x ** 2  # square\n", "if (a && b) { c->d[0] = \"s\"; }", "<html><body>hi</body></html>",
    "path/to/file.txt", "user@example.com http://x.y/z?q=1",
    "<|im_start|>user\nhello<|im_end|>\n", "<|endoftext|>", "a<|im_end|>b", "<|im_start|<|im_end|>>",
    "use <tool> here<tool>", "CamelCaseWord and lowerUPPER MiXeD",
    "$$$ ... !!! ??? --- ===", "\u00a0non-breaking\u00a0space", "\u3000ideographic space",
    "\u2028line separator", "tab\t\t\tthen spaces   end",
]
PARAGRAPH = ("The quick brown fox jumps over the lazy dog. " * 3 +
             "In 2023, 1,234 people visited 56 places; they're happy (mostly)! "
             "Caf\u00e9s, \u4e2d\u6587, and emoji \U0001f389 too.\n\n" +
             "    indented code line\n\tand a tab line\n") * 6


def corpus(seed=1):
    rng = random.Random(seed)
    words = ("the of and to in is was for on that with as by at from his her they it you we are "
             "be this have not but had were an which one all their there been has more when will "
             "would who so no if out up said what its about into than them can only other new some "
             "could time these two may then do first any my now such like our over man me even most "
             "made after also did many before must through back years where much your way well "
             "down should because each just those people how too little state good very make world "
             "still own see men work long get here between both life being under never day same "
             "another know while last might us great old year off come since against go came right "
             "used take three").split()
    extra = ["caf\u00e9", "na\u00efve", "\u4f60\u597d", "\u4e16\u754c", "\u65e5\u672c", "\ud55c\uad6d",
             "\U0001f600", "\u03b1\u03b2\u03b3", "Stra\u00dfe", "it's", "don't", "THEY'RE", "I'm"]
    lines = []
    for _ in range(4000):
        n = rng.randint(3, 14)
        toks = []
        for _ in range(n):
            r = rng.random()
            if r < 0.08:
                toks.append(str(rng.randint(0, 99999)))
            elif r < 0.14:
                toks.append(rng.choice(extra))
            elif r < 0.2:
                toks.append(rng.choice(words).capitalize())
            else:
                toks.append(rng.choice(words))
        sep = rng.choice([" ", " ", " ", "  ", ", ", "\t"])
        lines.append(sep.join(toks) + rng.choice([".", "!", "?", ":", ";", ""]))
    return lines


def add_added_tokens(tok):
    tok.add_special_tokens(SPECIALS)
    tok.add_tokens(USER_DEFINED)


def train_family(name):
    make_pre, ignore_merges, add_bos = FAMILIES[name]
    tok = Tokenizer(models.BPE(ignore_merges=ignore_merges))
    tok.pre_tokenizer = make_pre()
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(corpus(), trainer=trainer)
    tok.add_tokens(USER_DEFINED)
    if add_bos:
        bos = "<|endoftext|>"
        tok.post_processor = processors.TemplateProcessing(
            single=bos + " $A", pair=bos + " $A " + bos + " $B",
            special_tokens=[(bos, tok.token_to_id(bos))])
    return tok


def train_metaspace():
    """SentencePiece-style BPE as tokenizer.json (no GGUF twin): Metaspace with split and prepend_scheme
    "first", an unknown token fused over runs (no byte fallback: the alphabet is the corpus')."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="first", split=True)
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="first", split=True)
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE, special_tokens=["<unk>"] + SPECIALS,
                                  show_progress=False)
    tok.train_from_iterator(corpus(), trainer=trainer)
    tok.add_tokens(USER_DEFINED)
    return tok


def write_gguf(path, tok, pre, add_bos, eos_text, eot_text=None):
    """GGUF tokenizer metadata for the same vocab and merges as `tok` (no tensors)."""
    import json
    spec = json.loads(tok.to_str())
    vocab = spec["model"]["vocab"]
    added = {t["id"]: t for t in spec["added_tokens"]}
    size = tok.get_vocab_size(with_added_tokens=True)
    tokens, types = [None] * size, [0] * size
    for text, i in vocab.items():
        tokens[i], types[i] = text, gguf.TokenType.NORMAL
    for i, t in added.items():
        tokens[i] = t["content"]
        types[i] = gguf.TokenType.CONTROL if t["special"] else gguf.TokenType.USER_DEFINED
    merges = [m if isinstance(m, str) else " ".join(m) for m in spec["model"]["merges"]]
    w = gguf.GGUFWriter(path, "llama")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(tok.token_to_id("<|endoftext|>"))
    w.add_eos_token_id(tok.token_to_id(eos_text))
    if eot_text:
        w.add_eot_token_id(tok.token_to_id(eot_text))
    w.add_add_bos_token(add_bos)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def goldens(tok, path, strings=None):
    strings = strings or HARD + [PARAGRAPH]
    with open(path, "w") as f:
        for s in strings:
            tok.encode_special_tokens = False
            ids = tok.encode(s, add_special_tokens=False).ids
            with_bos = tok.encode(s, add_special_tokens=True).ids
            tok.encode_special_tokens = True
            plain = tok.encode(s, add_special_tokens=False).ids
            tok.encode_special_tokens = False
            dec = tok.decode(ids, skip_special_tokens=True)
            f.write("\t".join([s.encode().hex(), " ".join(map(str, ids)), " ".join(map(str, plain)),
                               dec.encode().hex()]) + "\n")
            f.write("\t".join(["+bos", s.encode().hex(), " ".join(map(str, with_bos))]) + "\n")


def smollm2_reference(path):
    r = gguf.GGUFReader(path)

    def strings(key):
        f = r.fields[key]
        return [bytes(f.parts[i]).decode("utf-8") for i in f.data]

    tokens = strings("tokenizer.ggml.tokens")
    types = [int(r.fields["tokenizer.ggml.token_type"].parts[i][0])
             for i in r.fields["tokenizer.ggml.token_type"].data]
    merges = [tuple(m.split(" ")) for m in strings("tokenizer.ggml.merges")]
    vocab = {t: i for i, t in enumerate(tokens)}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    tok.decoder = decoders.ByteLevel()
    from tokenizers import AddedToken
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False)
                            for t, ty in zip(tokens, types) if ty == gguf.TokenType.CONTROL])
    return tok


def stories_tokenizer_json(src, out_dir):
    import os
    import tempfile
    from transformers import AutoTokenizer
    r = gguf.GGUFReader(src)

    def strings(key):
        f = r.fields[key]
        return [bytes(f.parts[i]).decode("utf-8") for i in f.data]

    def numbers(key):
        f = r.fields[key]
        return [f.parts[i][0].item() for i in f.data]

    tmp = tempfile.mkdtemp()
    w = gguf.GGUFWriter(os.path.join(tmp, "tok.gguf"), "llama")
    w.add_tokenizer_model("llama")
    w.add_token_list(strings("tokenizer.ggml.tokens"))
    w.add_token_scores(numbers("tokenizer.ggml.scores"))
    w.add_token_types(numbers("tokenizer.ggml.token_type"))
    for add, key in ((w.add_bos_token_id, "bos"), (w.add_eos_token_id, "eos"),
                     (w.add_unk_token_id, "unknown")):
        add(numbers("tokenizer.ggml.%s_token_id" % key)[0])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    AutoTokenizer.from_pretrained(tmp, gguf_file="tok.gguf").save_pretrained(out_dir)
    for name in os.listdir(out_dir):  # keep only what llmc reads
        if name not in ("tokenizer.json", "tokenizer_config.json"):
            os.remove(os.path.join(out_dir, name))


def main():
    out = sys.argv[1]
    if "--stories" in sys.argv:
        stories_tokenizer_json(sys.argv[sys.argv.index("--stories") + 1], out + "/stories260k")
        goldens(Tokenizer.from_file(out + "/stories260k/tokenizer.json"), out + "/stories260k.golden")
        return
    if "--smollm2" in sys.argv:
        tok = smollm2_reference(sys.argv[sys.argv.index("--smollm2") + 1])
        goldens(tok, out + "/smollm2.golden")
        return
    for name, (_, _, add_bos) in FAMILIES.items():
        tok = train_family(name)
        tok.save(out + "/" + name + ".json")
        write_gguf(out + "/" + name + ".gguf", tok, name, add_bos, "<|im_end|>", "<|endoftext|>")
        goldens(tok, out + "/" + name + ".golden")
    tok = train_metaspace()
    tok.save(out + "/metaspace.json")
    goldens(tok, out + "/metaspace.golden")


if __name__ == "__main__":
    main()
