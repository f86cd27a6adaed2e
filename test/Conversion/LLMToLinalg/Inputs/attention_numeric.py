"""llm.attention lowered for the CPU vs a direct numpy softmax-attention reference.

The reference follows the op's documented semantics (full score matrix,
explicit mask, float64), independently of the tiled online-softmax lowering.
"""
import sys

import numpy as np

import llmc_numeric as ln

# printMemrefF32 prints 6 significant digits and the kernel accumulates in
# f32; outputs are convex combinations of values in [-2, 2], so 1e-4 is far
# above both errors and far below any masking or grouping mistake.
ATOL = 1e-4

# Bit pattern of a quiet NaN per element type, for "unwritten" cache slots
# that a correct lowering must never let into a result.
NAN_HEX = {"f32": "0x7FC00000", "f16": "0x7E00", "bf16": "0x7FC0"}

# Inputs are multiples of 1/64 in [-2, 2): exact in f16 and bf16, so the
# reference sees the same values as the kernel.
GRID = 64.0

RNG = np.random.default_rng(20261129)


def grid_values(shape):
    return RNG.integers(-2 * int(GRID), 2 * int(GRID), size=shape) / GRID


def literal(array, element_type):
    text, tensor_type = ln.dense(array, element_type)
    return text.replace("nan", NAN_HEX[element_type]), tensor_type


def reference(q, k, v, num_kv_heads, causal, window, scale, positions,
              softcap=None):
    batch, tokens, heads, head_dim = q.shape
    keys = k.shape[1]
    group = heads // num_kv_heads
    if scale is None:
        scale = 1.0 / np.sqrt(head_dim)
    out = np.zeros(q.shape)
    for b in range(batch):
        for t in range(tokens):
            p = positions[b, t] if positions is not None else t + keys - tokens
            s = np.arange(keys)
            visible = np.ones(keys, dtype=bool)
            if causal:
                visible &= s <= p
                if window is not None:
                    visible &= p - s < window
            if not visible.any():
                continue
            for h in range(heads):
                g = h // group
                scores = scale * (k[b, visible, g, :] @ q[b, t, h, :])
                if softcap is not None:
                    scores = softcap * np.tanh(scores / softcap)
                weights = np.exp(scores - scores.max())
                weights /= weights.sum()
                out[b, t, h, :] = weights @ v[b, visible, g, :]
    return out


def check(name, got, want):
    """expect_close where the reference is finite, and NaN exactly where it
    is NaN (a row whose query holds NaN: its output must say so, not come
    out finite as if its keys were masked); True when it passes."""
    nan = np.isnan(want)
    if not np.array_equal(np.isnan(got), nan):
        print("%s: FAILED, NaN where the reference is finite or the other "
              "way round" % name)
        return False
    try:
        ln.expect_close(name, got[~nan], want[~nan], ATOL)
    except SystemExit as failure:
        print(failure)
        return False
    return True


class Case:
    def __init__(self, name, batch, tokens, keys, heads, kv_heads, head_dim,
                 causal=True, window=None, scale=None, positions=None,
                 kv_type="f32", dynamic=(), poison_unseen=False,
                 softcap=None, nan_query=None):
        self.name = name
        # Everything but the name and head_dim, for with_head_dim.
        self.spec = dict(batch=batch, tokens=tokens, keys=keys, heads=heads,
                         kv_heads=kv_heads, causal=causal, window=window,
                         scale=scale, positions=positions, kv_type=kv_type,
                         dynamic=dynamic, poison_unseen=poison_unseen,
                         softcap=softcap, nan_query=nan_query)
        self.softcap = softcap
        self.heads, self.kv_heads = heads, kv_heads
        self.causal, self.window, self.scale = causal, window, scale
        self.kv_type, self.dynamic = kv_type, dynamic
        self.positions = (None if positions is None
                          else np.asarray(positions, dtype=np.int64))
        self.q = grid_values((batch, tokens, heads, head_dim))
        self.k = grid_values((batch, keys, kv_heads, head_dim))
        self.v = grid_values((batch, keys, kv_heads, head_dim))
        if nan_query is not None:
            # One query row (b, t, h) with a NaN: its scores are NaN, and
            # so is its output (the reference's softmax), for causal
            # attention too.
            self.q[nan_query][0] = np.nan
        if poison_unseen:
            # Slots past every query's position: never written in a real
            # cache, so they hold NaN here.
            last = self.positions.max()
            self.k[:, last + 1:] = np.nan
            self.v[:, last + 1:] = np.nan
            # Slots past this row's own position but inside the loaded
            # range: loaded with the tile, masked, must contribute 0.
            for b in range(batch):
                own = self.positions[b].max()
                self.k[b, own + 1:last + 1] = np.nan
                self.v[b, own + 1:last + 1] = np.nan

    def with_head_dim(self, head_dim):
        """The same case (fresh values) with another head_dim."""
        return Case("%s_d%d" % (self.name, head_dim), head_dim=head_dim,
                    **self.spec)

    def mlir(self):
        n = self.name
        q_lit, q_type = literal(self.q, "f32")
        k_lit, kv_type = literal(self.k, self.kv_type)
        v_lit, _ = literal(self.v, self.kv_type)
        lines = ["  %%q_%s = arith.constant %s" % (n, q_lit),
                 "  %%k_%s = arith.constant %s" % (n, k_lit),
                 "  %%v_%s = arith.constant %s" % (n, v_lit)]
        q, k, v = "%q_" + n, "%k_" + n, "%v_" + n
        operands = [q, k, v]
        types = [q_type, kv_type, kv_type]
        result_type = q_type
        if self.positions is not None:
            p_lit, p_type = ln.dense(self.positions.astype(np.int32), "i32")
            lines.append("  %%p_%s = arith.constant %s" % (n, p_lit))
            operands.append("%p_" + n)
            types.append(p_type)
        if self.dynamic:
            # The dimensions in `dynamic` (1: T and S, 3: head_dim) become
            # `?`: loop bounds, the tail tile or 1/sqrt(D) are then
            # computed at run time.
            def erase_dims(tensor_type):
                dims = tensor_type[len("tensor<"):-1].split("x")
                for d in self.dynamic:
                    if d < len(dims) - 1:
                        dims[d] = "?"
                return "tensor<" + "x".join(dims) + ">"
            for i in range(len(operands)):
                dyn_type = erase_dims(types[i])
                lines.append("  %s_dyn = tensor.cast %s : %s to %s"
                             % (operands[i], operands[i], types[i], dyn_type))
                operands[i] += "_dyn"
                types[i] = dyn_type
            result_type = types[0]
        attrs = ["num_heads = %d : i64" % self.heads,
                 "num_kv_heads = %d : i64" % self.kv_heads]
        if self.causal:
            attrs.append("causal")
        if self.window is not None:
            attrs.append("sliding_window = %d : i64" % self.window)
        if self.scale is not None:
            attrs.append("scale = %r : f64" % self.scale)
        if self.softcap is not None:
            attrs.append("softcap = %r : f64" % self.softcap)
        lines.append("  %%o_%s = llm.attention %s {%s} : %s -> %s"
                     % (n, ", ".join(operands), ", ".join(attrs),
                        ", ".join(types), result_type))
        out = "%o_" + n
        if self.dynamic:
            lines.append("  %s_static = tensor.cast %s : %s to %s"
                         % (out, out, result_type, q_type))
            out += "_static"
        return "\n".join(lines) + "\n" + ln.print_tensor(out, q_type)

    def expected(self):
        return reference(self.q, self.k, self.v, self.kv_heads, self.causal,
                         self.window, self.scale, self.positions,
                         self.softcap)


CASES = [
    # Prefill, T = S, one partial tile.
    Case("mha_causal", 1, 5, 5, 2, 2, 4),
    # T > S: queries 0 and 1 sit at positions -2 and -1 and see no key; the
    # lowering defines their output as 0 (the reference's empty softmax).
    Case("causal_no_visible_key", 1, 6, 4, 2, 2, 4),
    # GQA with S = 70: one full tile of 64 and a tail of 6; T < S.
    Case("gqa_causal_tail", 1, 3, 70, 4, 2, 8),
    # MQA, non-causal, S = 130 = 2 full tiles + 2; batch 2.
    Case("mqa_noncausal", 2, 2, 130, 4, 1, 4, causal=False),
    # Causal with explicit positions per batch row; NaN in slots no query
    # may see (past max(p), and past a row's own p inside the loaded range).
    Case("gqa_positions", 2, 3, 80, 6, 2, 4,
         positions=[[60, 61, 62], [5, 6, 7]], poison_unseen=True),
    # Sliding window W = 5 with T = 12 and S = 140 (> 2 tiles), no positions.
    Case("window_implicit", 1, 12, 140, 2, 1, 4, window=5),
    # Window longer than a tile: T = 80 and S = 150 both exceed W = 70.
    Case("window_long", 1, 80, 150, 2, 1, 4, window=70),
    # Sliding window with positions crossing a tile boundary.
    Case("window_positions", 1, 4, 100, 4, 4, 4, window=7,
         positions=[[62, 63, 64, 65]]),
    # f16 and bf16 keys/values (f32 queries and softmax), S < tile.
    Case("gqa_f16", 1, 4, 9, 4, 2, 8, kv_type="f16"),
    Case("gqa_bf16", 1, 4, 67, 4, 2, 8, kv_type="bf16"),
    # Explicit scale, non-causal, S a multiple of the tile.
    Case("scale_noncausal", 1, 2, 64, 2, 2, 4, causal=False, scale=0.3),
    # Dynamic T and S (tensor.cast), causal, S = 75.
    Case("dynamic_causal", 1, 3, 75, 4, 2, 4, dynamic=(1,)),
    # Dynamic T and S with positions and a window: run-time key range.
    Case("dynamic_window_positions", 1, 2, 150, 2, 1, 4, window=70,
         dynamic=(1,), positions=[[140, 141]]),
    # Dynamic head_dim without a scale attribute: 1/sqrt(D) at run time.
    Case("dynamic_head_dim", 2, 3, 5, 2, 1, 8, dynamic=(3,)),
    # Causal prefill of 150 queries: three blocks of up to 64 queries (the
    # last one partial), each over its own key range; positions out of order
    # (so a block's range comes from its own min and max), differing per
    # row, with NaN in every slot no query may see.
    Case("query_blocks_positions", 2, 150, 160, 4, 2, 4,
         positions=np.stack([np.random.RandomState(3).permutation(150),
                             5 + np.random.RandomState(4).permutation(150)]),
         poison_unseen=True),
    # The same with a dynamic T and a sliding window across the blocks.
    Case("query_blocks_dynamic_window", 1, 130, 140, 2, 1, 4, window=40,
         dynamic=(1,), positions=[list(range(10, 140))]),
    # Gemma-2's softcapped scores: caps of 1.5 and 2 against scores up to
    # ~11 (|q·k| ≤ 4·Dh, scale 1/√8 or 0.5), so tanh saturates for many
    # keys. With a window, positions and NaN slots (the cap comes before
    # the mask); and over a dynamic prefill of three key tiles.
    Case("softcap_window_positions", 2, 3, 80, 6, 2, 4, window=20,
         scale=0.5, softcap=1.5, positions=[[60, 61, 62], [5, 6, 7]],
         poison_unseen=True),
    Case("softcap_dynamic_prefill", 1, 70, 140, 4, 2, 8, softcap=2.0,
         dynamic=(1,)),
    Case("softcap_noncausal", 1, 2, 64, 2, 2, 8, causal=False, softcap=1.5),
    # A decode step (T = 1) over an f16 cache: the vector kernels widen each
    # key and value vector in registers (a tile of several query rows is
    # widened to f32 first); NaN past the position.
    Case("decode_f16_positions", 1, 1, 100, 4, 2, 16, kv_type="f16",
         positions=[[90]], poison_unseen=True),
    # Decode steps large enough (heads × head_dim × S ≥ 262144) for
    # threads: iterations of (KV head, chunk of keys), each with the KV
    # head's query heads, the chunks' states combined after them. Both
    # prefetch the next tile's rows, clamped to the last of S. GQA: keys
    # [0, 516) in 9 chunks of 58 (not tile-aligned), row 1 (at 300) seeing
    # no key of the last 3 chunks, which hold NaN; MQA: one KV head.
    Case("decode_gqa_threads_f16", 2, 1, 520, 8, 2, 64, kv_type="f16",
         positions=[[515], [300]], poison_unseen=True),
    Case("decode_mqa_threads_f16", 1, 1, 520, 8, 1, 64, kv_type="f16",
         positions=[[519]]),
    # MHA with a window: keys [51, 591) in 9 chunks of 60, each row seeing
    # 150 of them (most chunks none of a row's), NaN in the unseen slots.
    Case("decode_window_mha", 2, 1, 600, 8, 8, 64, window=150,
         positions=[[590], [200]], poison_unseen=True),
    # Non-causal over S = 1100: 16 chunks (the most) of 69 keys, the last
    # of 65.
    Case("decode_noncausal_chunks", 1, 1, 1100, 4, 2, 64, causal=False),
    # head_dim 12, not a multiple of 8: the linalg.generic products, per
    # chunk too.
    Case("decode_linalg_chunks", 1, 1, 2800, 8, 2, 12, positions=[[2700]],
         poison_unseen=True),
    # A NaN in one query row, causal over two tiles: that row's output is
    # NaN, every other row as without it.
    Case("nan_query_causal", 1, 4, 70, 4, 2, 16, nan_query=(0, 2, 1)),
    Case("nan_query_causal_linalg", 1, 4, 70, 4, 2, 4, nan_query=(0, 2, 1)),
]

# Head dimensions that are a multiple of 8 take the vector kernels of the
# tile's products (Q·Kᵀ eight keys at a time, P·V with the accumulator in
# registers, the mask as each row's visible key range); the cases above
# with head_dim 4 take the linalg.generic loops. Each of them again with 16
# (two vectors per row), and a few small ones with 64 and 128 (P·V in one
# and in two runs of 64 accumulator lanes). Dot products stay exact in f32
# (grid values: |q·k| ≤ 4·D needs at most 21 bits).
LINALG_CASES = [case for case in CASES
                if case.q.shape[3] == 4 and 3 not in case.dynamic]
CASES += [case.with_head_dim(16) for case in LINALG_CASES]
CASES += [case.with_head_dim(dim) for case, dim in
          ((CASES[0], 128), (CASES[1], 64), (CASES[4], 64),
           (CASES[7], 128))]


def main():
    body = "".join(case.mlir() for case in CASES)
    module = (ln.PRINT_DECL + "func.func @main() {\n" + body +
              "  return\n}\n")
    results = ln.run(module)
    if len(results) != len(CASES):
        sys.exit("expected %d printed tensors, got %d"
                 % (len(CASES), len(results)))
    failed = [case.name for case, got in zip(CASES, results)
              if not check(case.name, got, case.expected())]
    if failed:
        sys.exit("FAILED: " + ", ".join(failed))


if __name__ == "__main__":
    main()
