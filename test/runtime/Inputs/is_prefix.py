"""Prints whether file A's bytes are a prefix of file B's: is_prefix.py <a> <b>."""
import sys

a = open(sys.argv[1], "rb").read()
b = open(sys.argv[2], "rb").read()
if b.startswith(a):
    print("prefix of %d/%d bytes; rest: %r" % (len(a), len(b), b[len(a):]))
else:
    print("NOT a prefix")
