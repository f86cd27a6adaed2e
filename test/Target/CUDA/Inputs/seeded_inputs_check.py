"""The launch manifest's seeded inputs (kernel-manifest-runner.test).

  seeded_inputs_check.py write DIR   a manifest of `random` buffers of every
                                     type (scales at the f16 limits), `fill`
                                     ranges inside them and in an `alloc`
                                     buffer, and a dump of each
  seeded_inputs_check.py check DIR   compares the runner's dumps (DIR/out)
                                     with llmc_cuda_module.random_values and
                                     the fills, byte for byte; one line per
                                     buffer, exit status 1 on a difference

The runner's C++ generator and the numpy one must agree bit for bit: the
GPU checks compute their references from the seeds (projection_gpu.py).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "lib"))
from llmc_cuda_module import Manifest, regenerate, random_values  # noqa: E402

# (name, shape, type, scale): odd counts, every type, f16 at both ends of
# its allowed scales.
BUFFERS = [
    ("a", (3, 333), "f32", 1.0),
    ("b", (1001,), "bf16", 0.125),
    ("c", (999,), "f16", 2.0 ** -4),
    ("d", (7, 9), "f16", 2.0 ** 15),
    ("e", (4096,), "f32", 2.0 ** -20),
]
# (buffer, offset, bytes, byte): inside a random buffer, at the end of one,
# and in an alloc'ed one.
FILLS = [("a", 8, 16, 0xFF), ("b", 2000, 2, 0), ("z", 0, 5, 7)]
ALLOC_BYTES = 40


def write(out):
    os.makedirs(out, exist_ok=True)
    m = Manifest(out, "none")
    for name, shape, elem, scale in BUFFERS:
        m.random(name, shape, elem, scale)
    m.alloc("z", ALLOC_BYTES)
    for name, offset, nbytes, byte in FILLS:
        m.fill(name, offset, nbytes, byte)
    for name in [b[0] for b in BUFFERS] + ["z"]:
        m.dump(name)
    m.save()


def expected_bytes(name):
    """The bytes a buffer must hold, and a description."""
    for buffer, shape, elem, scale in BUFFERS:
        if buffer == name:
            seed = Manifest.seed_of(name)
            values, memory = random_values(elem, int(np.prod(shape)), seed, scale)
            spec = (name, elem, shape, seed, scale)
            assert np.array_equal(regenerate(spec).ravel(), values)
            data = memory.view(np.uint8).copy()
            what = "%d %s values in [%g, %g]" % (values.size, elem, values.min(), values.max())
            break
    else:
        data = np.full(ALLOC_BYTES, 0xCD, np.uint8)
        what = "%d alloc bytes" % ALLOC_BYTES
    for buffer, offset, nbytes, byte in FILLS:
        if buffer == name:
            data[offset:offset + nbytes] = byte
            what += ", bytes [%d, %d) = %d" % (offset, offset + nbytes, byte)
    return data, what


def check(out):
    failing = 0
    for name in [b[0] for b in BUFFERS] + ["z"]:
        data, what = expected_bytes(name)
        path = os.path.join(out, "out", name + ".out")
        got = np.fromfile(path, np.uint8) if os.path.exists(path) else None
        ok = got is not None and np.array_equal(got, data)
        print("%s %s: %s" % ("ok" if ok else "FAIL", name, what))
        failing += not ok
    print("%d failing buffers" % failing)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit({"write": write, "check": check}[sys.argv[1]](sys.argv[2]) or 0)
