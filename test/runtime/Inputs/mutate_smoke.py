"""Robustness smoke test: corrupts a valid file many ways and checks the loader never crashes.

Usage: mutate_smoke.py <tool> <command> <valid-file> <suffix> <count> <workdir>
Each mutant (random byte flips, truncations, and 8-byte length fields set to
huge values) is run as `<tool> <command> <mutant>`; exit codes 0 (accepted) and
1 (clean error) are fine, anything else (signal, sanitizer abort) fails the test.
The RNG is seeded so failures reproduce.
"""
import os
import random
import struct
import subprocess
import sys

SEED = 20240607  # fixed: a failure must reproduce on rerun


def mutants(data, count, rng):
    for i in range(count):
        d = bytearray(data)
        kind = i % 3
        if kind == 0:  # flip a few random bytes
            for _ in range(rng.randint(1, 8)):
                d[rng.randrange(len(d))] = rng.randrange(256)
        elif kind == 1:  # truncate anywhere
            d = d[:rng.randrange(len(d))]
        else:  # plant a huge little-endian u64 at a random offset
            if len(d) >= 8:
                at = rng.randrange(len(d) - 7)
                d[at:at + 8] = struct.pack("<Q", rng.choice([2 ** 63, 2 ** 64 - 1, 2 ** 40, 2 ** 32]))
        yield bytes(d)


def main():
    tool, command, valid, suffix, count, workdir = sys.argv[1:7]
    with open(valid, "rb") as f:
        data = f.read()
    os.makedirs(workdir, exist_ok=True)
    rng = random.Random(SEED)
    accepted = rejected = 0
    for i, m in enumerate(mutants(data, int(count), rng)):
        path = os.path.join(workdir, "mutant%d%s" % (i, suffix))
        with open(path, "wb") as f:
            f.write(m)
        r = subprocess.run([tool, command, path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        if r.returncode == 0:
            accepted += 1
        elif r.returncode == 1 and r.stderr.startswith(b"error: LLMC_ERR_"):
            rejected += 1
        else:
            sys.stderr.write(r.stderr.decode(errors="replace"))
            print("CRASH on mutant %d (%s): exit code %d" % (i, path, r.returncode))
            sys.exit(1)
        os.remove(path)
    print("no crashes: %d mutants, %d accepted, %d rejected cleanly" % (accepted + rejected, accepted, rejected))


if __name__ == "__main__":
    main()
