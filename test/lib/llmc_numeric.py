"""Numeric checks of lowered `llm` ops: run MLIR on the CPU, compare with numpy.

A test script builds a `func.func @main()` whose inputs are dense constants
(see `dense`), calls `print_tensor` on each result, and hands the module to
`run`, which lowers it with llmc-opt's CPU recipe, executes it with
mlir-runner and returns the printed tensors as numpy arrays. `expect_close`
then compares them with an independent numpy reference.
"""
import os
import re
import subprocess
import sys

import numpy as np

# llmc's own CPU pipeline from `llm` ops on tensors to the LLVM dialect
# (passes/Pipeline.cpp), so the numbers checked here are those of the code
# llmc emits: vector kernels, bufferization, OpenMP threads.
# LLMC_PIPELINE_OPTIONS (e.g. "parallel-min-weight-elements=0") reaches the
# pipeline, so a test can force the threaded kernels on small shapes.
CPU_LOWERING = ["--llmc-cpu-to-llvm" + (
    "=" + os.environ["LLMC_PIPELINE_OPTIONS"]
    if os.environ.get("LLMC_PIPELINE_OPTIONS") else "")]

LLVM_LIB_DIR = os.environ.get("LLMC_LLVM_LIB_DIR", "/usr/lib/llvm-22/lib")

# Printing helpers, and libomp for the __kmpc_* calls of scf.parallel loops.
RUNNER_LIBS = ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so",
               "libomp.so")

PRINT_DECL = "func.func private @printMemrefF32(memref<*xf32>)\n"


def dense(array, element_type="f32"):
    """An `arith.constant` literal type pair for `array`: (literal, type)."""
    array = np.asarray(array)
    shape = "x".join(str(d) for d in array.shape)
    if np.issubdtype(array.dtype, np.integer):
        body = np.array2string(array, separator=", ", threshold=sys.maxsize,
                               max_line_width=sys.maxsize)
    else:
        body = np.array2string(array.astype(np.float64), separator=", ",
                               threshold=sys.maxsize, max_line_width=sys.maxsize,
                               floatmode="unique")
    tensor_type = "tensor<%s%s%s>" % (shape, "x" if shape else "", element_type)
    return "dense<%s> : %s" % (body, tensor_type), tensor_type


def print_tensor(value, tensor_type, counter=[0]):
    """MLIR lines that print the f32 tensor `value` of static `tensor_type`.

    Each to_buffer carries its own `llmc.print` number: CSE must not merge
    two prints of one tensor into the first, whose buffer bufferization may
    reuse in between (it cannot see reads through the memref)."""
    counter[0] += 1
    n = counter[0]
    memref_type = tensor_type.replace("tensor<", "memref<")
    return ("  %%pb%d = bufferization.to_buffer %s {llmc.print = %d} : %s to %s\n"
            "  %%pu%d = memref.cast %%pb%d : %s to memref<*xf32>\n"
            "  call @printMemrefF32(%%pu%d) : (memref<*xf32>) -> ()\n"
            % (n, value, n, tensor_type, memref_type, n, n, memref_type, n))


def run(module_text):
    """Lowers and executes `module_text`; returns the printed tensors."""
    lowered = subprocess.run(["llmc-opt"] + CPU_LOWERING, input=module_text,
                             capture_output=True, text=True)
    if lowered.returncode != 0:
        sys.stderr.write(module_text)
        sys.exit("llmc-opt failed:\n" + lowered.stderr)
    libs = ",".join(os.path.join(LLVM_LIB_DIR, lib) for lib in RUNNER_LIBS)
    executed = subprocess.run(
        ["mlir-runner", "-e", "main", "-entry-point-result=void",
         "-shared-libs=" + libs], input=lowered.stdout, capture_output=True,
        text=True)
    if executed.returncode != 0:
        sys.exit("mlir-runner failed:\n" + executed.stderr)
    return parse_printed(executed.stdout)


def parse_printed(text):
    results = []
    for block in re.split(r"Unranked Memref", text)[1:]:
        sizes = re.search(r"sizes = \[([^\]]*)\]", block).group(1)
        shape = [int(s) for s in sizes.split(",") if s.strip()]
        data = block.split("data =", 1)[1]
        numbers = re.findall(r"[-+]?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?)", data)
        results.append(np.array([float(x) for x in numbers],
                                dtype=np.float64).reshape(shape))
    return results


def expect_close(name, got, want, atol, rtol=0.0):
    """Prints the max error and exits non-zero when it exceeds the bound."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        sys.exit("%s: shape %s, expected %s" % (name, got.shape, want.shape))
    if not np.all(np.isfinite(got)):
        sys.exit("%s: FAILED, the result holds NaN or Inf" % name)
    err = np.abs(got - want)
    bound = atol + rtol * np.abs(want)
    worst = float(np.max(err - bound)) if err.size else 0.0
    print("%s: max |error| = %.3g (bound %.3g + %.3g*|ref|)"
          % (name, float(np.max(err)) if err.size else 0.0, atol, rtol))
    if worst > 0:
        sys.exit("%s: FAILED, error above the bound" % name)
