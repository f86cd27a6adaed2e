"""Compiles an `llm` module for the CUDA kernel tests: its launches and PTX.

`compile_kernels(out, tag, text)` writes the module to out/<tag>.mlir, runs
`llmc --compile-to=kernels --target=cuda:sm_80` (the launches and the
kernels' IR, which test/lib/cuda_sim.py executes) and `--compile-to=ptx` for
sm_80 and sm_90, and writes each architecture's PTX to out/<tag>_<arch>.ptx,
the files test/Target/CUDA/Inputs/kernel_manifest_runner.cpp loads. `llmc`
must be on PATH (lit puts the build's there).
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
