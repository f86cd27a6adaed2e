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
"""
import os
import re
import subprocess

ARCHS = ("sm_80", "sm_90")


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


def simulate_manifest(out, module):
    """Runs DIR/manifest.txt like kernel_manifest_runner.cpp, in the
    simulator on DIR/<module>.kernels.mlir: each `mem` argument is the
    buffer viewed with its parameter's element type and the line's dims
    (launches share the buffers' memory); dumps go to DIR/out. Returns 1
    (after printing the simulator's reports) on a problem, else 0."""
    # numpy only here: the compile step runs without it.
    import numpy as np
    import cuda_sim
    kernels = cuda_sim.Module(open(os.path.join(out, module + ".kernels.mlir")).read())
    os.makedirs(os.path.join(out, "out"), exist_ok=True)
    buffers = {}
    lines = iter(open(os.path.join(out, "manifest.txt")).read().splitlines())
    status = 0
    for line in lines:
        words = line.split()
        if words[0] == "load":
            buffers[words[1]] = np.fromfile(os.path.join(out, words[2]), np.uint8)
        elif words[0] == "dump":
            buffers[words[1]].tofile(os.path.join(out, "out", words[2]))
        elif words[0] == "launch":
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
                    view = buffers[name].view(memory).reshape([int(d) for d in dims])
                    args.append(cuda_sim.memref_of(view, elem=mtype.elem, label=name))
            try:
                kernels.launch(words[2], grid=grid, block=block, args=args)
            except cuda_sim.SimError as error:
                print("simulator: %s" % error)
                status = 1
    return status
