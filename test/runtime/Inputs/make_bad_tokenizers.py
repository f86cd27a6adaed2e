"""Writes deliberately broken tokenizer sources (GGUF metadata, tokenizer.json, model directories) for tokenizer-errors-bpe.test.

Usage: make_bad_tokenizers.py <case> <out path>. Standard library only (GGUF bytes come from make_gguf.py).
"""
import copy
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_gguf import ARR, BOOL, I32, STR, U32, build, kv  # noqa: E402

# A byte-level vocabulary just big enough for merges: GPT-2's spelling of
# "a", "b", "ab" and the space ("Ġ").
TOKENS = ["a", "b", "ab", "\u0120", "<s>"]
TYPES = [1, 1, 1, 1, 3]


def gguf_bpe(model="gpt2", pre="gpt-2", merges=("a b",), tokens=TOKENS, types=TYPES, extra=()):
    kvs = [kv("tokenizer.ggml.model", STR, model),
           kv("tokenizer.ggml.tokens", ARR, (STR, list(tokens))),
           kv("tokenizer.ggml.token_type", ARR, (I32, list(types))),
           kv("tokenizer.ggml.merges", ARR, (STR, list(merges)))]
    if pre is not None:
        kvs.append(kv("tokenizer.ggml.pre", STR, pre))
    return build(kvs + list(extra), [])


BASE_JSON = {
    "version": "1.0",
    "added_tokens": [{"id": 4, "content": "<s>", "single_word": False, "lstrip": False,
                      "rstrip": False, "normalized": False, "special": True}],
    "normalizer": None,
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                      "use_regex": True},
    "post_processor": {"type": "ByteLevel"},
    "decoder": {"type": "ByteLevel"},
    "model": {"type": "BPE", "dropout": None, "unk_token": None, "byte_fallback": False,
              "vocab": {"a": 0, "b": 1, "ab": 2, "\u0120": 3}, "merges": [["a", "b"]]},
}


def json_case(name):
    j = copy.deepcopy(BASE_JSON)
    if name == "model-type":
        j["model"]["type"] = "WordPiece"
    elif name == "pre-type":
        j["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}]}
    elif name == "nfc":
        j["normalizer"] = {"type": "NFC"}
    elif name == "decoder":
        j["decoder"] = {"type": "WordPiece"}
    elif name == "post":
        j["post_processor"] = {"type": "RobertaProcessing"}
    elif name == "lstrip":
        j["added_tokens"][0]["lstrip"] = True
    elif name == "merge-absent":
        j["model"]["merges"] = [["a", "b"], ["ab", "zz"]]
    elif name == "dropout":
        j["model"]["dropout"] = 0.1
    elif name == "gap":
        j["added_tokens"][0]["id"] = 6
    elif name == "bad-regex":
        j["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated",
             "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}]}
    elif name == "behavior":
        j["pre_tokenizer"] = {"type": "Split", "pattern": {"String": " "}, "behavior": "Sideways",
                              "invert": False}
    elif name == "post-bos":
        j["post_processor"] = {"type": "TemplateProcessing",
                               "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                          {"Sequence": {"id": "A", "type_id": 0}}]}
    elif name == "root-array":
        return [j]
    elif name == "no-model":
        del j["model"]
    elif name == "type-number":
        j["model"]["type"] = 7
    elif name == "flag-string":
        j["model"]["byte_fallback"] = "yes"
    elif name == "negative-id":
        j["model"]["vocab"]["a"] = -1
    elif name == "huge-id":  # 2**64 - 1: the largest id + 1 wraps to 0 in 64 bits
        j["model"]["vocab"]["a"] = 2**64 - 1
    elif name == "huge-added-id":  # the first id that an int32 vocabulary size cannot hold
        j["added_tokens"][0]["id"] = 2**31 - 1
    elif name == "merges-object":
        j["model"]["merges"] = {"a": "b"}
    elif name == "pre-string":
        j["pre_tokenizer"] = "ByteLevel"
    elif name == "pattern-kind":
        j["pre_tokenizer"] = {"type": "Split", "pattern": {"Glob": "*"}, "behavior": "Isolated"}
    elif name == "subword-prefix":
        j["model"]["continuing_subword_prefix"] = "##"
    elif name == "vocab-array":
        j["model"]["vocab"] = ["a"]
    elif name == "empty-vocab":
        j["model"]["vocab"] = {}
        j["model"]["merges"] = []
        j["added_tokens"] = []
    elif name == "id-clash":
        j["added_tokens"][0]["id"] = 0
    elif name == "json-not-byte-level":
        j["model"]["vocab"]["\u2192"] = 4
        j["added_tokens"][0]["id"] = 5
    elif name == "unk-absent":
        j["model"]["unk_token"] = "<unk>"
    elif name == "merge-triple":
        j["model"]["merges"] = [["a", "b", "c"]]
    elif name == "post-absent":
        j["post_processor"] = {"type": "TemplateProcessing",
                               "single": [{"SpecialToken": {"id": "<bos>", "type_id": 0}},
                                          {"Sequence": {"id": "A", "type_id": 0}}]}
    elif name == "post-two":
        j["post_processor"] = {"type": "TemplateProcessing",
                               "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                          {"SpecialToken": {"id": "<s>", "type_id": 0}},
                                          {"Sequence": {"id": "A", "type_id": 0}}]}
    elif name == "post-item":
        j["post_processor"] = {"type": "TemplateProcessing", "single": [{"Piece": {}}]}
    elif name == "lowercase":
        j["normalizer"] = {"type": "Lowercase"}
    elif name == "both":
        j["normalizer"] = {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}
    elif name == "neither":
        j["pre_tokenizer"] = None
    elif name.startswith("sp-"):
        # SentencePiece-style: spaces as U+2581 (Metaspace), no byte tokens.
        j = copy.deepcopy(BASE_JSON)
        j["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581",
                              "prepend_scheme": "always", "split": False}
        j["decoder"] = {"type": "Metaspace", "replacement": "\u2581"}
        j["post_processor"] = None
        j["model"]["vocab"] = {"a": 0, "b": 1, "ab": 2, "\u2581": 3}
        j["model"]["byte_fallback"] = True
        if name == "sp-replacement":
            j["pre_tokenizer"]["replacement"] = "_"
        elif name == "sp-scheme":
            j["pre_tokenizer"]["prepend_scheme"] = "sometimes"
        elif name == "sp-prepend":
            j["pre_tokenizer"] = None
            j["normalizer"] = {"type": "Sequence", "normalizers": [
                {"type": "Prepend", "prepend": "_"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]}
        elif name == "sp-replace":
            j["pre_tokenizer"] = None
            j["normalizer"] = {"type": "Replace", "pattern": {"Regex": "\\s"}, "content": "\u2581"}
        elif name != "sp-valid":
            raise SystemExit("unknown case " + name)
    elif name != "valid":
        raise SystemExit("unknown case " + name)
    return j


def main():
    case, out = sys.argv[1], sys.argv[2]
    if case.startswith("gguf-"):
        c = case[len("gguf-"):]
        data = {
            "unknown-model": lambda: gguf_bpe(model="bert"),
            "unknown-pre": lambda: gguf_bpe(pre="fancy-new-pre"),
            "missing-pre": lambda: gguf_bpe(pre=None),
            "merge-absent": lambda: gguf_bpe(merges=("a b", "ab zz")),
            "merge-result": lambda: gguf_bpe(merges=("b a",)),
            "merge-shape": lambda: gguf_bpe(merges=("ab",)),
            "not-byte-level": lambda: gguf_bpe(tokens=["a", "b", "ab", "\u2192", "<s>"]),
            "bos-missing": lambda: gguf_bpe(extra=[kv("tokenizer.ggml.add_bos_token", BOOL, True)]),
            "valid": lambda: gguf_bpe(extra=[kv("tokenizer.ggml.bos_token_id", U32, 4)]),
            "eos-missing": lambda: gguf_bpe(extra=[kv("tokenizer.ggml.add_eos_token", BOOL, True)]),
            "merges-not-strings": lambda: build(
                [kv("tokenizer.ggml.model", STR, "gpt2"), kv("tokenizer.ggml.pre", STR, "gpt-2"),
                 kv("tokenizer.ggml.tokens", ARR, (STR, TOKENS)),
                 kv("tokenizer.ggml.merges", ARR, (I32, [1, 2]))], []),
            "no-merges": lambda: build(
                [kv("tokenizer.ggml.model", STR, "gpt2"), kv("tokenizer.ggml.pre", STR, "gpt-2"),
                 kv("tokenizer.ggml.tokens", ARR, (STR, TOKENS))], []),
        }[c]()
        with open(out, "wb") as f:
            f.write(data)
        return
    # tokenizer.json cases: <case> writes a file; dir-<case> a model directory.
    if case == "dir-no-tokenizer-json":
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
            json.dump({"bos_token": "<s>"}, f)
        return
    if case.startswith("dir-"):
        c = case[len("dir-"):]
        os.makedirs(out, exist_ok=True)
        config = {"bos-absent": {"bos_token": "<|begin|>"},
                  "bos-contradicts": {"bos_token": {"content": "ab"}},
                  "add-bos-without-bos": {"add_bos_token": True},
                  "add-eos-without-eos": {"add_eos_token": True},
                  "config-array": [1],
                  "valid": {"bos_token": "<s>", "eos_token": {"content": "<s>"},
                            "add_bos_token": True}}[c]
        with open(os.path.join(out, "tokenizer.json"), "w") as f:
            json.dump(json_case("post-bos" if c == "bos-contradicts" else "valid"), f)
        with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
            json.dump(config, f)
        return
    with open(out, "w") as f:
        if case == "bad-json":
            f.write('{"model": ')
        else:
            json.dump(json_case(case), f)


if __name__ == "__main__":
    main()
