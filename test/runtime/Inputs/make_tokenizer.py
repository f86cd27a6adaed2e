"""Writes llama2.c tokenizer files (valid and corrupt) for the runtime lit tests.

Usage: make_tokenizer.py <case> <out.bin>. Standard library only.
"""
import struct
import sys


def record(score, piece):
    b = piece.encode() if isinstance(piece, str) else piece
    return struct.pack("<fi", score, len(b)) + b


def vocab():
    """A tiny vocab with the llama2.c conventions: 0 <unk>, 1 BOS, 2 EOS, byte tokens."""
    toks = [(0.0, "<unk>"), (0.0, "\n<s>\n"), (0.0, "\n</s>\n")]
    toks += [(0.0, "<0x%02X>" % b) for b in range(256)]
    toks += [(-1.0, " "), (-2.0, "a"), (-3.0, "b"), (-4.0, " a"), (-5.0, "ab"), (-6.0, " ab"),
             (-7.0, " b")]
    return toks


def main():
    case, out = sys.argv[1], sys.argv[2]
    toks = vocab()
    body = b"".join(record(s, p) for s, p in toks)
    head = struct.pack("<i", 7)
    if case == "valid":
        data = head + body
    elif case == "truncated":
        data = (head + body)[:-3]
    elif case == "negative-length":
        data = head + record(0.0, "<unk>") + struct.pack("<fi", 0.0, -5) + b"xxxx"
    elif case == "huge-length":
        data = head + record(0.0, "<unk>") + struct.pack("<fi", 0.0, 1 << 30) + b"xxxx"
    elif case == "negative-max":
        data = struct.pack("<i", -1) + body
    elif case == "header-only":
        data = head
    else:
        raise SystemExit("unknown case " + case)
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
