"""Checks a `llmc-run --dump-logits` file against a teacher-forced token sequence.

Usage: check_logits.py <logits.f32> <vocab> <tokens-file>
Prints the row count, on how many rows the argmax is the sequence's next
token, and the argmax of the last row (the model's next prediction).
Standard library only.
"""
import struct
import sys


def main():
    path, vocab, tokens_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    data = open(path, "rb").read()
    tokens = [int(t) for t in open(tokens_path).read().split()]
    if len(data) != 4 * vocab * len(tokens):
        print("size mismatch: %d bytes for %d tokens x %d vocab" % (len(data), len(tokens), vocab))
        return
    rows = []
    for r in range(len(tokens)):
        row = struct.unpack_from("<%df" % vocab, data, 4 * vocab * r)
        rows.append(max(range(vocab), key=lambda i: row[i]))
    match = sum(1 for r in range(len(tokens) - 1) if rows[r] == tokens[r + 1])
    print("rows %d: argmax is the next token on %d of %d rows; last row argmax %d"
          % (len(tokens), match, len(tokens) - 1, rows[-1]))


if __name__ == "__main__":
    main()
