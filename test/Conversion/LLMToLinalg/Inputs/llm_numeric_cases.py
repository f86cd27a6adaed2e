"""Shared pieces of the LLMToLinalg numeric tests: tolerances, bf16 rounding
and a builder for the `@main` function that the harness runs."""
import numpy as np

from llmc_numeric import PRINT_DECL, dense, print_tensor

# printMemrefF32 prints 6 significant digits, so a relative error of ~1e-5 is
# the floor of what a printed value can show; values here are O(1), for which
# an absolute 1e-4 also absorbs f32 rounding of sums over K <= 64 terms.
ATOL = 1e-4
RTOL = 1e-5


def round_bf16(array):
    """`array` rounded to bfloat16 (nearest, ties to even), as float32: the
    values a `tensor<...xbf16>` constant holds, exactly representable."""
    bits = np.asarray(array, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


# Rows per group of an interleaved float weight (`!llm.interleaved<...>`).
GROUP_ROWS = 16


class MainBuilder:
    """Collects the body of `func.func @main()`: constants, ops, prints."""

    def __init__(self):
        self.lines = []
        self.count = 0

    def fresh(self, stem):
        self.count += 1
        return "%%%s%d" % (stem, self.count)

    def constant(self, array, element_type="f32"):
        """An arith.constant holding `array`; returns (name, tensor type)."""
        literal, tensor_type = dense(array, element_type)
        name = self.fresh("c")
        self.lines.append("  %s = arith.constant %s" % (name, literal))
        return name, tensor_type

    def interleaved_constant(self, w, element_type, columns=1):
        """The weight `w` [N, K] stored in groups of 16 rows, as the dialect
        documents `!llm.interleaved<t, rows = 16, columns = c>`: group g's
        run p holds its rows' columns [c·p, c·p + c), row by row. Returns
        the storage constant [N / 16, 16 · K] cast to the logical type,
        and that type."""
        n, k = w.shape
        storage = (w.reshape(n // GROUP_ROWS, GROUP_ROWS, k // columns, columns)
                   .transpose(0, 2, 1, 3).reshape(n // GROUP_ROWS, -1))
        stored, storage_type = self.constant(storage, element_type)
        logical_type = "tensor<%dx%dx!llm.interleaved<%s, rows = %d%s>>" % (
            n, k, element_type, GROUP_ROWS,
            ", columns = %d" % columns if columns > 1 else "")
        name = self.fresh("w")
        self.lines.append("  %s = builtin.unrealized_conversion_cast %s : %s to %s"
                          % (name, stored, storage_type, logical_type))
        return name, logical_type

    def op(self, text, result_type):
        """Appends `%r = <text>`; returns (name, result type)."""
        name = self.fresh("r")
        self.lines.append("  %s = %s" % (name, text))
        return name, result_type

    def cast(self, value, from_type, to_type):
        """tensor.cast between a static and a dynamic type of one shape."""
        name = self.fresh("cast")
        self.lines.append("  %s = tensor.cast %s : %s to %s"
                          % (name, value, from_type, to_type))
        return name, to_type

    def print(self, value, tensor_type):
        self.lines.append(print_tensor(value, tensor_type).rstrip("\n"))

    def module(self):
        return (PRINT_DECL + "func.func @main() {\n" + "\n".join(self.lines)
                + "\n  return\n}\n")


def check_all(checks, results):
    """expect_close on every (name, reference) of `checks` against the
    printed `results`, in order (one line each), then one summary line for
    the test to FileCheck: how many tensors and values were compared, the
    largest error and the bound; exits non-zero on any failure."""
    from llmc_numeric import expect_close
    if len(results) != len(checks):
        raise SystemExit("expected %d printed tensors, got %d"
                         % (len(checks), len(results)))
    failed, values, worst = [], 0, 0.0
    for (name, want), got in zip(checks, results):
        values += np.asarray(want).size
        if np.asarray(got).shape == np.asarray(want).shape:
            worst = max(worst, float(np.max(np.abs(np.asarray(got, dtype=np.float64) - want), initial=0.0)))
        try:
            expect_close(name, got, want, ATOL, RTOL)
        except SystemExit as failure:
            print(failure)
            failed.append(name)
    print("compared %d tensors, %d values: %d within the bound (%g + %g*|ref|); max |error| %.3g"
          % (len(checks), values, len(checks) - len(failed), ATOL, RTOL, worst))
    if failed or not checks:
        raise SystemExit("FAILED: " + ", ".join(failed))
