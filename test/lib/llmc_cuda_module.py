"""Compiles an `llm` module for the CUDA kernel tests (its launches and PTX)
and runs launch manifests in the simulator.

`compile_kernels(out, tag, text)` writes the module to out/<tag>.mlir, runs
`llmc --compile-to=kernels --target=cuda:sm_80` (the launches and the
kernels' IR, which test/lib/cuda_sim.py executes) and `--compile-to=ptx` for
sm_80 and sm_90, and writes each architecture's PTX to out/<tag>_<arch>.ptx,
the files test/Target/CUDA/Inputs/kernel_manifest_runner.cpp loads. `llmc`
must be on PATH (lit puts the build's there).

`Manifest` writes buffers and launches in kernel_manifest_runner.cpp's
format (the GPU runs it there); `simulate_manifest` runs the same manifest
in test/lib/cuda_sim.py on the module's kernels-phase text.

Large inputs need not travel as files: a `random` line has the runner fill
a buffer from a seed, and `random_values` computes the same elements here
(for the references, at compare time). Element i of the stream SEED is
k * 2^-b * SCALE, k = splitmix64(SEED + (i + 1) * golden) mod (2^(b+1) + 1)
- 2^b, with b the type's fraction bits (f32 23, bf16 7, f16 10) and SCALE
a power of two: every value is exact in its type, so the runner's C++ and
numpy agree bit for bit (test/Target/CUDA/kernel-manifest-runner.test).
"""
import math
import os
import re
import subprocess
import zlib

ARCHS = ("sm_80", "sm_90")
# Fraction bits of the element types a `random` line fills.
RANDOM_FRACTION_BITS = {"f32": 23, "bf16": 7, "f16": 10}
# f16 values stay normal (k * 2^-10 * SCALE >= 2^-14) and finite.
F16_SCALES = (2.0 ** -4, 2.0 ** 15)
GOLDEN = 0x9E3779B97F4A7C15


def random_values(elem, count, seed, scale):
    """(float64 values, memory array) of a manifest `random` line."""
    import numpy as np
    bits = RANDOM_FRACTION_BITS[elem]
    assert math.frexp(scale)[0] == 0.5, "scale %r is no power of two" % scale
    assert elem != "f16" or F16_SCALES[0] <= scale <= F16_SCALES[1], scale
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + np.arange(1, count + 1, dtype=np.uint64) * np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    k = (z % np.uint64(2 ** (bits + 1) + 1)).astype(np.int64) - 2 ** bits
    values = k * (2.0 ** -bits * scale)
    if elem == "bf16":
        memory = (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    else:
        memory = values.astype(np.float16 if elem == "f16" else np.float32)
    return values, memory


def extents(text):
    """A launch's `(%c128, %c1_3, %n)` as numbers, None for run-time values."""
    out = []
    for token in text.split(","):
        match = re.fullmatch(r"%c(\d+)(_\d+)?", token.strip())
        out.append(int(match.group(1)) if match else None)
    return out


def compile_kernels(out, tag, text):
    """Returns (kernels-phase text, launches in program order as (kernel,
    grid, block) lists of extents)."""
    path = os.path.join(out, tag + ".mlir")
    open(path, "w").write(text)
    kernels = subprocess.run(
        ["llmc", "--compile-to=kernels", "--target=cuda:sm_80", path],
        capture_output=True, text=True, check=True).stdout
    ptx = subprocess.run(
        ["llmc", "--compile-to=ptx", "--target=cuda:" + ",".join(ARCHS), path],
        capture_output=True, text=True, check=True).stdout
    sections = re.split(r"^// ---- llmc: PTX for (sm_\d+)\n", ptx, flags=re.M)
    for arch, body in zip(sections[1::2], sections[2::2]):
        open(os.path.join(out, "%s_%s.ptx" % (tag, arch)), "w").write(body)
    launches = [(name, extents(grid), extents(block)) for name, grid, block in
                re.findall(r"gpu.launch_func\s+@llmc_kernels::@(\S+) blocks in "
                           r"\(([^)]*)\) threads in \(([^)]*)\)", kernels)]
    return kernels, launches


class Manifest:
    """Buffers (saved as DIR/NAME.bin) and launches of kernels of `module`
    in kernel_manifest_runner.cpp's format."""

    def __init__(self, out, module):
        self.out, self.module, self.lines = out, module, []

    def buffer(self, name, array):
        import numpy as np
        np.ascontiguousarray(array).tofile(os.path.join(self.out, name + ".bin"))
        self.lines.append("load %s %s.bin" % (name, name))

    def random(self, name, shape, elem, scale):
        """A buffer the runner fills (see random_values); returns its spec
        (name, elem, shape, seed, scale), which `regenerate` turns into the
        float64 values."""
        seed = self.seed_of(name)
        count = math.prod(shape)
        random_values(elem, 1, seed, scale)  # checks the type and scale
        # %.17g: the scale exactly (the runner requires a power of two).
        self.lines.append("random %s %s %d %d %.17g" % (name, elem, count, seed, scale))
        return (name, elem, tuple(shape), seed, scale)

    @staticmethod
    def seed_of(name):
        """A `random` buffer's seed: its name's CRC, stable across runs."""
        return zlib.crc32(name.encode())

    def alloc(self, name, nbytes):
        """A buffer of `nbytes` 0xCD bytes."""
        self.lines.append("alloc %s %d" % (name, nbytes))

    def fill(self, name, offset, nbytes, byte):
        """Sets bytes [offset, offset + nbytes) of a buffer to `byte` (0xFF:
        NaN in f32, bf16 and f16)."""
        self.lines.append("fill %s %d %d %d" % (name, offset, nbytes, byte))

    def launch(self, kernel, grid, block, args):
        """args, one per kernel parameter in order: (buffer name, dims) for a
        memref, ("f32" or "i32", value) for a scalar."""
        self.lines.append("launch %s %s %d %d %d %d %d %d"
                          % ((self.module, kernel) + tuple(grid) + tuple(block)))
        for name, value in args:
            if name == "f32":
                self.lines.append("f32 %.9g" % value)
            elif name == "i32":
                self.lines.append("i32 %d" % value)
            else:
                self.lines.append("mem %s %d %s" % (name, len(value),
                                                    " ".join(str(d) for d in value)))
        self.lines.append("end")

    def dump(self, name):
        self.lines.append("dump %s %s.out" % (name, name))

    def save(self):
        open(os.path.join(self.out, "manifest.txt"), "w").write("\n".join(self.lines) + "\n")


def regenerate(spec):
    """The float64 values, in their shape, of a Manifest.random spec."""
    _, elem, shape, seed, scale = spec
    return random_values(elem, math.prod(shape), seed, scale)[0].reshape(shape)


def simulate_manifest(out, module=None):
    """Runs DIR/manifest.txt like kernel_manifest_runner.cpp, in the
    simulator on DIR/<module>.kernels.mlir (by default each launch line's
    module): each `mem` argument is the buffer viewed with its parameter's
    element type and the line's dims (launches share the buffers' memory);
    dumps go to DIR/out. Returns 1 (after printing the simulator's reports)
    on a problem, else 0."""
    # numpy only here: the compile step runs without it.
    import numpy as np
    import cuda_sim
    modules = {}

    def kernels_of(name):
        if name not in modules:
            path = os.path.join(out, name + ".kernels.mlir")
            modules[name] = cuda_sim.Module(open(path).read())
        return modules[name]

    os.makedirs(os.path.join(out, "out"), exist_ok=True)
    buffers = {}
    lines = iter(open(os.path.join(out, "manifest.txt")).read().splitlines())
    status = 0
    for line in lines:
        words = line.split()
        if words[0] == "load":
            buffers[words[1]] = np.fromfile(os.path.join(out, words[2]), np.uint8)
        elif words[0] == "alloc":
            buffers[words[1]] = np.full(int(words[2]), 0xCD, np.uint8)
        elif words[0] == "random":
            _, memory = random_values(words[2], int(words[3]), int(words[4]), float(words[5]))
            buffers[words[1]] = memory.view(np.uint8).copy()
        elif words[0] == "fill":
            offset, nbytes = int(words[2]), int(words[3])
            buffers[words[1]][offset:offset + nbytes] = int(words[4])
        elif words[0] == "dump":
            buffers[words[1]].tofile(os.path.join(out, "out", words[2]))
        elif words[0] == "launch":
            kernels = kernels_of(module or words[1])
            kernel = kernels.kernels[words[2]]
            grid, block = tuple(map(int, words[3:6])), tuple(map(int, words[6:9]))
            args, params = [], iter(kernel.params)
            for arg in iter(lambda: next(lines), "end"):
                kind, *rest = arg.split()
                _, mtype = next(params)
                if kind == "f32":
                    args.append(float(np.float32(rest[0])))
                elif kind == "i32":
                    args.append(int(rest[0]))
                else:
                    name, _, *dims = rest
                    memory = cuda_sim.ELEMENTS[mtype.elem][1]
                    shape = [int(d) for d in dims]
                    # A buffer may be longer than the view (a canary after it).
                    view = buffers[name].view(memory)[:math.prod(shape)].reshape(shape)
                    args.append(cuda_sim.memref_of(view, elem=mtype.elem, label=name))
            try:
                kernels.launch(words[2], grid=grid, block=block, args=args)
            except cuda_sim.SimError as error:
                print("simulator: %s" % error)
                status = 1
    return status
