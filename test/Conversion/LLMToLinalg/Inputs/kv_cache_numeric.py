"""llm.kv_append / llm.kv_view lowered for the CPU vs numpy, and a decode step.

Part 1 writes keys/values at scattered positions into two layers of a
three-layer cache (one append with a dynamic token count) and prints every
layer's view: written slots must hold the new rows, all others the initial
contents. Part 2 is a decode step over a bf16 cache of capacity 4 x the key
tile whose unwritten slots are NaN: prefill rows appended out of order, one
new token per sequence, kv_view, then causal attention at the new positions.
Part 3 repeats part 2's steps on a paged cache (page size 8) whose page
table hands the pages out in a shuffled order: the appends scatter through
the table, the printed view is in logical order, and the attention reads
its key tiles through the table; all three against the same numpy model of
a logical cache.
"""
import sys

import numpy as np

import llmc_numeric as ln
from attention_numeric import NAN_HEX, check, grid_values, reference

# Shape of the cache in part 1: layers, batch, kv_heads, head_dim, capacity.
L1, B1, H1, D1, C1 = 3, 2, 2, 3, 16
# Part 2: capacity 256 = 4 x the lowering's 64-key tile.
L2, B2, H2, D2, C2 = 2, 2, 2, 4, 256
HEADS2 = 4


# Part 3: capacity 192 in pages of 8 (24 per sequence, 48 in the pool).
L3, B3, H3, D3, C3, PAGE3 = 2, 2, 2, 4, 192, 8
HEADS3 = 4


def cache_type(layers, batch, heads, dim, capacity, element, page_size=None):
    paged = (", layout = paged, page_size = %d" % page_size
             if page_size else "")
    return ("!llm.kv_cache<layers = %d, batch = %d, kv_heads = %d, "
            "head_dim = %d, capacity = %d, element_type = %s%s>"
            % (layers, batch, heads, dim, capacity, element, paged))


def tensor_type(shape, element):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [element])


class Module:
    def __init__(self):
        self.lines = []
        self.count = 0

    def const(self, array, element, name=None):
        self.count += 1
        name = name or "%%c%d" % self.count
        text, ttype = ln.dense(array, element)
        self.lines.append("  %s = arith.constant %s" % (name, text))
        return name, ttype

    def add(self, text):
        self.lines.append(text)


def append(module, cache, ctype, layer, keys, values, positions, element,
           dynamic=False, pages=""):
    """Emits llm.kv_append (`pages`: its ` pages(...)` clause, if any);
    returns the new cache value."""
    k, ktype = module.const(keys, element)
    v, _ = module.const(values, element)
    p, ptype = module.const(positions.astype(np.int32), "i32")
    if dynamic:
        dims = ktype[len("tensor<"):-1].split("x")
        dims[1] = "?"
        dyn = "tensor<" + "x".join(dims) + ">"
        pdims = ptype[len("tensor<"):-1].split("x")
        pdims[1] = "?"
        pdyn = "tensor<" + "x".join(pdims) + ">"
        for name in (k, v):
            module.add("  %s_d = tensor.cast %s : %s to %s"
                       % (name, name, ktype, dyn))
        module.add("  %s_d = tensor.cast %s : %s to %s" % (p, p, ptype, pdyn))
        k, v, p, ktype, ptype = k + "_d", v + "_d", p + "_d", dyn, pdyn
    module.count += 1
    out = "%%cache%d" % module.count
    module.add("  %s = llm.kv_append %s[%d]%s, %s, %s, %s : %s, %s, %s, %s"
               % (out, cache, layer, pages, k, v, p, ctype, ktype, ktype,
                  ptype))
    return out


def append_rows(module, cache, ctype, ref, layer, positions, head_shape,
                element, **flags):
    """Appends fresh keys and values (batch, tokens of `positions`,
    head_shape) at `positions` of `layer`, in the IR and in `ref`; returns
    the new cache value. `flags`: append()'s."""
    shape = positions.shape + tuple(head_shape)
    keys, values = grid_values(shape), grid_values(shape)
    write_reference(ref, layer, keys, values, positions)
    return append(module, cache, ctype, layer, keys, values, positions,
                  element, **flags)


def write_reference(cache, layer, keys, values, positions):
    for b in range(positions.shape[0]):
        for t in range(positions.shape[1]):
            cache[0, layer, b, positions[b, t]] = keys[b, t]
            cache[1, layer, b, positions[b, t]] = values[b, t]


def attend(module, expected, label, views, view_type, shape, decode, ref):
    """Causal attention of one new query per sequence (at `decode`) over
    the views (keys, values) of a cache; the reference reads ref (keys,
    values) of shape (batch, capacity, kv_heads, head_dim). shape: (batch,
    heads, kv_heads, head_dim)."""
    batch, heads, kv_heads, dim = shape
    query = grid_values((batch, 1, heads, dim))
    q, q_type = module.const(query, "f32")
    p, p_type = module.const(decode.astype(np.int32), "i32")
    out = "%" + label
    module.add("  %s = llm.attention %s, %s, %s, %s {num_heads = %d : i64, "
               "num_kv_heads = %d : i64, causal} : %s, %s, %s, %s -> %s"
               % (out, q, views[0], views[1], p, heads, kv_heads, q_type,
                  view_type, view_type, p_type, q_type))
    module.add(ln.print_tensor(out, q_type).rstrip("\n"))
    expected.append((label, reference(query, ref[0], ref[1], kv_heads, True,
                                      None, None, decode)))


def part1(module, expected):
    ctype = cache_type(L1, B1, H1, D1, C1, "f32")
    full = (2, L1, B1, C1, H1, D1)
    initial = grid_values(full)
    init, init_type = module.const(initial, "f32")
    module.add("  %%cache_a = builtin.unrealized_conversion_cast %s : %s to %s"
               % (init, init_type, ctype))
    ref = initial.copy()
    cache = "%cache_a"
    # Layer 2: 5 tokens per sequence at scattered, per-row positions.
    positions = np.array([[9, 2, 15, 0, 7], [4, 11, 3, 8, 1]])
    cache = append_rows(module, cache, ctype, ref, 2, positions, (H1, D1),
                        "f32")
    # Layer 0: 3 tokens, dynamic token count.
    positions = np.array([[5, 6, 14], [13, 0, 10]])
    cache = append_rows(module, cache, ctype, ref, 0, positions, (H1, D1),
                        "f32", dynamic=True)
    view_type = tensor_type((B1, C1, H1, D1), "f32")
    for layer in range(L1):
        k, v = "%%view_k%d" % layer, "%%view_v%d" % layer
        module.add("  %s, %s = llm.kv_view %s[%d] : %s -> %s, %s"
                   % (k, v, cache, layer, ctype, view_type, view_type))
        module.add(ln.print_tensor(k, view_type).rstrip("\n"))
        module.add(ln.print_tensor(v, view_type).rstrip("\n"))
        expected.append(("layer%d_keys" % layer, ref[0, layer]))
        expected.append(("layer%d_values" % layer, ref[1, layer]))


def part2(module, expected):
    ctype = cache_type(L2, B2, H2, D2, C2, "bf16")
    full = (2, L2, B2, C2, H2, D2)
    full_type = tensor_type(full, "bf16")
    module.add("  %%nan_init = arith.constant dense<%s> : %s"
               % (NAN_HEX["bf16"], full_type))
    module.add("  %%cache_b = builtin.unrealized_conversion_cast %%nan_init : "
               "%s to %s" % (full_type, ctype))
    ref = np.full(full, np.nan)
    cache = "%cache_b"
    # Prefill rows written out of order; row 1 also parks rows at 200..203,
    # beyond its decode position (never visible, never loaded).
    prefill = np.array([[3, 0, 7, 5, 1, 6, 2, 4],
                        [2, 201, 0, 203, 3, 200, 1, 202]])
    for layer in (1, 0):
        cache = append_rows(module, cache, ctype, ref, layer, prefill,
                            (H2, D2), "bf16")
    # Decode: one token per row at position 8 (row 0) and 4 (row 1). Row 1
    # loads slots 5..8 with the tile (max position 8) but must ignore them:
    # they are NaN.
    decode = np.array([[8], [4]])
    cache = append_rows(module, cache, ctype, ref, 1, decode, (H2, D2), "bf16")
    view_type = tensor_type((B2, C2, H2, D2), "bf16")
    module.add("  %%dk, %%dv = llm.kv_view %s[1] : %s -> %s, %s"
               % (cache, ctype, view_type, view_type))
    attend(module, expected, "decode_attention", ("%dk", "%dv"), view_type,
           (B2, HEADS2, H2, D2), decode, (ref[0, 1], ref[1, 1]))


def part3(module, expected):
    ctype = cache_type(L3, B3, H3, D3, C3, "f32", PAGE3)
    per_sequence = C3 // PAGE3
    # Every pool page once, in a shuffled order.
    table = np.random.RandomState(7).permutation(B3 * per_sequence)
    table = table.reshape(B3, per_sequence).astype(np.int32)
    t, t_type = module.const(table, "i32", "%page_table")
    pages = " pages(%s : %s)" % (t, t_type)
    pool = (2, L3, B3 * per_sequence, PAGE3, H3, D3)
    pool_type = tensor_type(pool, "f32")
    module.add("  %%pool_nan = arith.constant dense<%s> : %s"
               % (NAN_HEX["f32"], pool_type))
    module.add("  %%cache_c = builtin.unrealized_conversion_cast %%pool_nan : "
               "%s to %s" % (pool_type, ctype))
    ref = np.full((2, L3, B3, C3, H3, D3), np.nan)
    cache = "%cache_c"
    # A 70-token prefill (two key tiles) in scrambled order on layer 0,
    # then one decode token per sequence at 70 and 69.
    prefill = np.stack([np.random.RandomState(s).permutation(70)
                        for s in (1, 2)])
    cache = append_rows(module, cache, ctype, ref, 0, prefill, (H3, D3),
                        "f32", dynamic=True, pages=pages)
    decode = np.array([[70], [69]])
    cache = append_rows(module, cache, ctype, ref, 0, decode, (H3, D3),
                        "f32", pages=pages)
    view_type = tensor_type((B3, C3, H3, D3), "f32")
    module.add("  %%pk, %%pv = llm.kv_view %s[0]%s : %s -> %s, %s"
               % (cache, pages, ctype, view_type, view_type))
    # The logical view's rows that both sequences wrote (the rest is NaN).
    written = tensor_type((B3, 70, H3, D3), "f32")
    module.add("  %%pk_written = tensor.extract_slice %%pk[0, 0, 0, 0] "
               "[%d, 70, %d, %d] [1, 1, 1, 1] : %s to %s"
               % (B3, H3, D3, view_type, written))
    module.add(ln.print_tensor("%pk_written", written).rstrip("\n"))
    expected.append(("paged_view_keys", ref[0, 0, :, :70]))
    attend(module, expected, "paged_decode_attention", ("%pk", "%pv"),
           view_type, (B3, HEADS3, H3, D3), decode, (ref[0, 0], ref[1, 0]))


def main():
    module = Module()
    expected = []
    part1(module, expected)
    part2(module, expected)
    part3(module, expected)
    text = (ln.PRINT_DECL + "func.func @main() {\n" +
            "\n".join(module.lines) + "\n  return\n}\n")
    results = ln.run(text)
    if len(results) != len(expected):
        sys.exit("expected %d printed tensors, got %d"
                 % (len(expected), len(results)))
    failed = [name for (name, want), got in zip(expected, results)
              if not check(name, got, want)]
    if failed:
        sys.exit("FAILED: " + ", ".join(failed))


if __name__ == "__main__":
    main()
