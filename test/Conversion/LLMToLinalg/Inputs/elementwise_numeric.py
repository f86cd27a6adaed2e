"""llm.add, llm.glu (every activation) and llm.activation against numpy."""
import math

import numpy as np

from llm_numeric_cases import MainBuilder, check_all
from llmc_numeric import run

rng = np.random.default_rng(1234)
SHAPE = (2, 3, 16)
# Spread of the inputs: wide enough to reach the tails of exp/erf/tanh.
SPREAD = 3.0

erf = np.vectorize(math.erf)
ACTIVATIONS = {
    "silu": lambda x: x / (1.0 + np.exp(-x)),
    "gelu": lambda x: 0.5 * x * (1.0 + erf(x / math.sqrt(2.0))),
    "gelu_tanh": lambda x: 0.5 * x * (1.0 + np.tanh(
        math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3))),
    "relu": lambda x: np.maximum(x, 0.0),
}

a = (rng.standard_normal(SHAPE) * SPREAD).astype(np.float32)
b = (rng.standard_normal(SHAPE) * SPREAD).astype(np.float32)
m = MainBuilder()
ca, ty = m.constant(a)
cb, _ = m.constant(b)
checks = []

r = m.op("llm.add %s, %s : %s" % (ca, cb, ty), ty)
m.print(*r)
checks.append(("add", a.astype(np.float64) + b))

# The dynamic-T form of add (tensor<2x?x16xf32>).
dyn = "tensor<2x?x16xf32>"
da, _ = m.cast(ca, ty, dyn)
db, _ = m.cast(cb, ty, dyn)
r = m.op("llm.add %s, %s : %s" % (da, db, dyn), dyn)
r = m.cast(r[0], dyn, ty)
m.print(*r)
checks.append(("add dynamic T", a.astype(np.float64) + b))

for name, act in ACTIVATIONS.items():
    r = m.op("llm.glu %s %s, %s : %s" % (name, ca, cb, ty), ty)
    m.print(*r)
    checks.append(("glu " + name, act(a.astype(np.float64)) * b))

for name, act in ACTIVATIONS.items():
    r = m.op("llm.activation %s %s : %s" % (name, ca, ty), ty)
    m.print(*r)
    checks.append(("activation " + name, act(a.astype(np.float64))))

check_all(checks, run(m.module()))
