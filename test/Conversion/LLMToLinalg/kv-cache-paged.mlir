// The CPU lowering of a paged KV cache: the cache becomes (2, layers, pages,
// page_size, kv_heads, head_dim); llm.kv_append writes each token's row to
// slot p mod page_size of page table[b, p / page_size] (clamped into the
// pool); llm.kv_view gathers the logical view through the table, a
// (kv_heads, head_dim) row of keys and of values per key; and
// llm.attention over a paged view gathers only its key tiles, leaving the
// view's whole-capacity gathers dead. Numerics: kv-cache-numeric.test.
// RUN: llmc-opt %s --llm-lower-to-linalg=parallel-min-weight-elements=0 --canonicalize | FileCheck %s

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 2, head_dim = 4, capacity = 64, element_type = f32, layout = paged>

// CHECK-LABEL: func.func @append(
// CHECK-SAME:    %[[CACHE:[^:]+]]: tensor<2x2x4x16x2x4xf32>, %[[TABLE:[^:]+]]: tensor<1x4xi32>
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[CACHE]])
// CHECK:           %[[POS:.*]] = arith.index_cast
// CHECK:           %[[IDX:.*]] = arith.divui %[[POS]], %c16
// CHECK:           %[[SLOT:.*]] = arith.remui %[[POS]], %c16
// CHECK:           %[[ENTRY:.*]] = tensor.extract %[[TABLE]][%c0, %[[IDX]]]
// CHECK:           %[[RAW:.*]] = arith.index_castui %[[ENTRY]]
// CHECK:           %[[PAGE:.*]] = arith.minui %[[RAW]], %c3
// CHECK:           %[[K:.*]] = tensor.insert_slice {{.*}} into %[[ACC]][0, %{{.*}}, %[[PAGE]], %[[SLOT]], 0, 0] [1, 1, 1, 1, 2, 4]
// CHECK:           tensor.insert_slice {{.*}} into %[[K]][1, %{{.*}}, %[[PAGE]], %[[SLOT]], 0, 0] [1, 1, 1, 1, 2, 4]
func.func @append(%c: !paged, %t: tensor<1x4xi32>, %k: tensor<1x?x2x4xf32>, %pos: tensor<1x?xi32>, %l: index) -> !paged {
  %c1 = llm.kv_append %c[%l] pages(%t : tensor<1x4xi32>), %k, %k, %pos : !paged, tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?xi32>
  return %c1 : !paged
}

// CHECK-LABEL: func.func @view(
// CHECK-SAME:    %[[CACHE:[^:]+]]: tensor<2x2x4x16x2x4xf32>, %[[TABLE:[^:]+]]: tensor<1x4xi32>
// One loop over the keys gathers both: per key one page lookup, then the
// (kv_heads, head_dim) row of the keys (0) and of the values (1) of layer 1.
// CHECK:         %[[GATHER:.*]]:2 = scf.for %[[KEY:[^ ]*]] = %c0 to %c64 step %c1 iter_args(%[[K:[^ ]*]] = %{{[^,]*}}, %[[V:[^ ]*]] = %{{.*}}) -> (tensor<1x64x2x4xf32>, tensor<1x64x2x4xf32>)
// CHECK:           %[[IDX:.*]] = arith.divui %[[KEY]], %c16
// CHECK:           %[[SLOT:.*]] = arith.remui %[[KEY]], %c16
// CHECK:           tensor.extract %[[TABLE]][%c0, %[[IDX]]]
// CHECK:           %[[PAGE:.*]] = arith.minui
// CHECK-NOT:       tensor.extract %[[TABLE]]
// CHECK:           %[[KROW:.*]] = tensor.extract_slice %[[CACHE]][0, 1, %[[PAGE]], %[[SLOT]], 0, 0] [1, 1, 1, 1, 2, 4]
// CHECK:           tensor.insert_slice %[[KROW]] into %[[K]][0, %[[KEY]], 0, 0] [1, 1, 2, 4]
// CHECK-NOT:       tensor.extract %[[TABLE]]
// CHECK:           %[[VROW:.*]] = tensor.extract_slice %[[CACHE]][1, 1, %[[PAGE]], %[[SLOT]], 0, 0] [1, 1, 1, 1, 2, 4]
// CHECK:           tensor.insert_slice %[[VROW]] into %[[V]][0, %[[KEY]], 0, 0] [1, 1, 2, 4]
// CHECK:         return %[[GATHER]]#1
func.func @view(%c: !paged, %t: tensor<1x4xi32>) -> tensor<1x64x2x4xf32> {
  %k, %v = llm.kv_view %c[1] pages(%t : tensor<1x4xi32>) : !paged -> tensor<1x64x2x4xf32>, tensor<1x64x2x4xf32>
  return %v : tensor<1x64x2x4xf32>
}

// One gather of K and V per key tile inside the tile loop (one page
// lookup per key for both), none of the whole 64-key view before it; a
// decode step splits by KV head and chunk of keys (an scf.forall
// iteration), which gathers the rows of its KV head once for its two query
// heads.
// CHECK-LABEL: func.func @attend(
// CHECK-SAME:    %[[CACHE:[^:]+]]: tensor<2x2x4x16x2x4xf32>, %[[TABLE:[^:]+]]: tensor<1x4xi32>
// CHECK-NOT:     tensor.extract_slice %[[CACHE]]
// CHECK:         scf.forall (%[[KVH:.+]], %{{.+}}) in (2, %{{.+}})
// CHECK-NOT:     arith.divui
// CHECK:         scf.for %[[START:.*]] = %{{.+}} to
// CHECK:           scf.for %[[S:[^ ]*]] = %c0 to %c64
// CHECK:             %[[KEY:.*]] = arith.addi %[[START]], %[[S]]
// CHECK:             arith.divui %[[KEY]], %c16
// CHECK:             tensor.extract %[[TABLE]]
// CHECK-NOT:         tensor.extract %[[TABLE]]
// CHECK:             tensor.extract_slice %[[CACHE]][0, 0, %{{.+}}, %{{.+}}, %[[KVH]], 0] [1, 1, 1, 1, 1, 4]
// CHECK-NOT:         tensor.extract %[[TABLE]]
// CHECK:             tensor.extract_slice %[[CACHE]][1, 0, %{{.+}}, %{{.+}}, %[[KVH]], 0] [1, 1, 1, 1, 1, 4]
// CHECK:             scf.yield
func.func @attend(%c: !paged, %t: tensor<1x4xi32>, %q: tensor<1x1x4x4xf32>, %pos: tensor<1x1xi32>) -> tensor<1x1x4x4xf32> {
  %k, %v = llm.kv_view %c[0] pages(%t : tensor<1x4xi32>) : !paged -> tensor<1x64x2x4xf32>, tensor<1x64x2x4xf32>
  %o = llm.attention %q, %k, %v, %pos {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x4x4xf32>, tensor<1x64x2x4xf32>, tensor<1x64x2x4xf32>, tensor<1x1xi32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}
