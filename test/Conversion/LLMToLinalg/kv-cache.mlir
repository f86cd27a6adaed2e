// !llm.kv_cache becomes tensor<2xLxBxCxHxDxT> (1xLx... when the values are the keys); kv_append is a loop of insert_slice, kv_view two extract_slice (one).
// RUN: llmc-opt %s --llm-lower-to-linalg=parallel-min-weight-elements=0 -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @append
// CHECK-SAME: (%[[C:.+]]: tensor<2x3x2x512x4x8xbf16>, %[[K:.+]]: tensor<2x?x4x8xbf16>, %[[V:.+]]: tensor<2x?x4x8xbf16>, %[[P:.+]]: tensor<2x?xi32>) -> tensor<2x3x2x512x4x8xbf16>
// CHECK: %[[T:.+]] = tensor.dim %[[K]], %{{.+}} : tensor<2x?x4x8xbf16>
// CHECK: %[[OUTER:.+]] = scf.for %[[B:.+]] = %{{.+}} to %c2 step %{{.+}} iter_args(%[[CB:.+]] = %[[C]]) -> (tensor<2x3x2x512x4x8xbf16>)
// CHECK: %[[INNER:.+]] = scf.for %[[TI:.+]] = %{{.+}} to %[[T]] step %{{.+}} iter_args(%[[CT:.+]] = %[[CB]]) -> (tensor<2x3x2x512x4x8xbf16>)
// CHECK: %[[POS:.+]] = tensor.extract %[[P]][%[[B]], %[[TI]]] : tensor<2x?xi32>
// CHECK: %[[SLOT:.+]] = arith.index_cast %[[POS]] : i32 to index
// CHECK: %[[KROW:.+]] = tensor.extract_slice %[[K]][%[[B]], %[[TI]], 0, 0] [1, 1, 4, 8] [1, 1, 1, 1] : tensor<2x?x4x8xbf16> to tensor<4x8xbf16>
// CHECK: %[[WK:.+]] = tensor.insert_slice %[[KROW]] into %[[CT]][0, 2, %[[B]], %[[SLOT]], 0, 0] [1, 1, 1, 1, 4, 8] [1, 1, 1, 1, 1, 1] : tensor<4x8xbf16> into tensor<2x3x2x512x4x8xbf16>
// CHECK: %[[VROW:.+]] = tensor.extract_slice %[[V]][%[[B]], %[[TI]], 0, 0] [1, 1, 4, 8] [1, 1, 1, 1] : tensor<2x?x4x8xbf16> to tensor<4x8xbf16>
// CHECK: %[[WV:.+]] = tensor.insert_slice %[[VROW]] into %[[WK]][1, 2, %[[B]], %[[SLOT]], 0, 0] [1, 1, 1, 1, 4, 8] [1, 1, 1, 1, 1, 1] : tensor<4x8xbf16> into tensor<2x3x2x512x4x8xbf16>
// CHECK: scf.yield %[[WV]] : tensor<2x3x2x512x4x8xbf16>
// CHECK: scf.yield %[[INNER]] : tensor<2x3x2x512x4x8xbf16>
// CHECK: return %[[OUTER]] : tensor<2x3x2x512x4x8xbf16>
!cache = !llm.kv_cache<layers = 3, batch = 2, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16>
func.func @append(%c: !cache, %k: tensor<2x?x4x8xbf16>, %v: tensor<2x?x4x8xbf16>, %p: tensor<2x?xi32>) -> !cache {
  %c1 = llm.kv_append %c[2], %k, %v, %p : !cache, tensor<2x?x4x8xbf16>, tensor<2x?x4x8xbf16>, tensor<2x?xi32>
  return %c1 : !cache
}

// -----

// f32 keys and values into a bf16 cache: each rounded whole (arith.truncf on
// the tensor, which convert-elementwise-to-linalg lowers) before the loop
// stores its bf16 rows.
// CHECK-LABEL: func.func @append_rounding
// CHECK-SAME: (%[[C:.+]]: tensor<2x3x2x512x4x8xbf16>, %[[K:.+]]: tensor<2x?x4x8xf32>, %[[V:.+]]: tensor<2x?x4x8xf32>, %[[P:.+]]: tensor<2x?xi32>) -> tensor<2x3x2x512x4x8xbf16>
// CHECK: %[[KB:.+]] = arith.truncf %[[K]] : tensor<2x?x4x8xf32> to tensor<2x?x4x8xbf16>
// CHECK: %[[VB:.+]] = arith.truncf %[[V]] : tensor<2x?x4x8xf32> to tensor<2x?x4x8xbf16>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[KROW:.+]] = tensor.extract_slice %[[KB]]{{.*}} : tensor<2x?x4x8xbf16> to tensor<4x8xbf16>
// CHECK: tensor.insert_slice %[[KROW]] into
// CHECK: %[[VROW:.+]] = tensor.extract_slice %[[VB]]{{.*}} : tensor<2x?x4x8xbf16> to tensor<4x8xbf16>
// CHECK: tensor.insert_slice %[[VROW]] into
!cache = !llm.kv_cache<layers = 3, batch = 2, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16>
func.func @append_rounding(%c: !cache, %k: tensor<2x?x4x8xf32>, %v: tensor<2x?x4x8xf32>, %p: tensor<2x?xi32>) -> !cache {
  %c1 = llm.kv_append %c[2], %k, %v, %p : !cache, tensor<2x?x4x8xf32>, tensor<2x?x4x8xf32>, tensor<2x?xi32>
  return %c1 : !cache
}

// -----

// CHECK-LABEL: func.func @view
// CHECK-SAME: (%[[C:.+]]: tensor<2x3x2x512x4x8xbf16>) -> (tensor<2x512x4x8xbf16>, tensor<2x512x4x8xbf16>)
// CHECK-NEXT: %[[K:.+]] = tensor.extract_slice %[[C]][0, 1, 0, 0, 0, 0] [1, 1, 2, 512, 4, 8] [1, 1, 1, 1, 1, 1] : tensor<2x3x2x512x4x8xbf16> to tensor<2x512x4x8xbf16>
// CHECK-NEXT: %[[V:.+]] = tensor.extract_slice %[[C]][1, 1, 0, 0, 0, 0] [1, 1, 2, 512, 4, 8] [1, 1, 1, 1, 1, 1] : tensor<2x3x2x512x4x8xbf16> to tensor<2x512x4x8xbf16>
// CHECK-NEXT: return %[[K]], %[[V]]
!cache = !llm.kv_cache<layers = 3, batch = 2, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16>
func.func @view(%c: !cache) -> (tensor<2x512x4x8xbf16>, tensor<2x512x4x8xbf16>) {
  %k, %v = llm.kv_view %c[1] : !cache -> tensor<2x512x4x8xbf16>, tensor<2x512x4x8xbf16>
  return %k, %v : tensor<2x512x4x8xbf16>, tensor<2x512x4x8xbf16>
}

// -----

// One decoder layer's cache traffic, called from another function: the
// call, the callee signature and the returned cache are all converted, and
// attention reads the view (with the positions bounding its key loop).
// CHECK-LABEL: func.func @layer
// CHECK-SAME: (%[[C:.+]]: tensor<2x2x1x256x2x4xf32>, %[[Q:.+]]: tensor<1x?x4x4xf32>, %[[K:.+]]: tensor<1x?x2x4xf32>, %[[V:.+]]: tensor<1x?x2x4xf32>, %[[P:.+]]: tensor<1x?xi32>) -> (tensor<1x?x4x4xf32>, tensor<2x2x1x256x2x4xf32>)
// CHECK: %[[NEW:.+]] = scf.for {{.+}} iter_args(%{{.+}} = %[[C]]) -> (tensor<2x2x1x256x2x4xf32>)
// CHECK: tensor.insert_slice
// CHECK: %[[KV:.+]] = tensor.extract_slice %[[NEW]][0, 1, 0, 0, 0, 0] [1, 1, 1, 256, 2, 4] [1, 1, 1, 1, 1, 1] : tensor<2x2x1x256x2x4xf32> to tensor<1x256x2x4xf32>
// CHECK: %[[VV:.+]] = tensor.extract_slice %[[NEW]][1, 1, 0, 0, 0, 0] [1, 1, 1, 256, 2, 4] [1, 1, 1, 1, 1, 1] : tensor<2x2x1x256x2x4xf32> to tensor<1x256x2x4xf32>
// Blocks of 64 queries, each with the key range of its own positions, run
// as an scf.forall over the query heads (outer) and the blocks in balanced
// order (0, n-1, 1, n-2, ...); each head reads its KV head (h floordiv 2).
// CHECK: %[[NB:.+]] = arith.divui %{{.+}}, %c64
// CHECK: scf.forall (%[[H:.+]], %[[I:.+]]) in (4, %[[NB]]) shared_outs(%[[OUT:.+]] = %{{.+}})
// CHECK: %[[KVH:.+]] = arith.divui %[[H]], %c2
// CHECK: %[[PAIR:.+]] = arith.divui %[[I]], %c2
// CHECK: %[[BLOCK:.+]] = arith.select %{{.+}}, %{{.+}}, %[[PAIR]] : index
// CHECK: %[[QS:.+]] = arith.muli %[[BLOCK]], %c64
// CHECK: tensor.extract_slice %[[Q]][0, %[[QS]], %[[H]], 0] [1, %{{.+}}, 1, 4]
// CHECK: %[[PB:.+]] = tensor.extract_slice %[[P]][0, %[[QS]]]
// CHECK: linalg.generic {{.+}} ins(%[[PB]] : tensor<1x?xi32>) outs(%{{.+}}, %{{.+}} : tensor<i32>, tensor<i32>)
// CHECK: scf.for
// CHECK: tensor.extract_slice %[[KV]][0, %{{.+}}, %[[KVH]], 0] [1, 64, 1, 4]
// CHECK: tensor.extract_slice %[[VV]][0, %{{.+}}, %[[KVH]], 0] [1, 64, 1, 4]
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %{{.+}} into %[[OUT]][0, %[[QS]], %[[H]], 0]
// CHECK: return %{{.+}}, %[[NEW]] : tensor<1x?x4x4xf32>, tensor<2x2x1x256x2x4xf32>
// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[C:.+]]: tensor<2x2x1x256x2x4xf32>
// CHECK: %{{.+}}:2 = call @layer(%[[C]], {{.+}}) : (tensor<2x2x1x256x2x4xf32>, tensor<1x?x4x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?xi32>) -> (tensor<1x?x4x4xf32>, tensor<2x2x1x256x2x4xf32>)
!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 2, head_dim = 4, capacity = 256, element_type = f32>
func.func @layer(%c: !cache, %q: tensor<1x?x4x4xf32>, %k: tensor<1x?x2x4xf32>, %v: tensor<1x?x2x4xf32>, %p: tensor<1x?xi32>) -> (tensor<1x?x4x4xf32>, !cache) {
  %c1 = llm.kv_append %c[1], %k, %v, %p : !cache, tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?xi32>
  %kv, %vv = llm.kv_view %c1[1] : !cache -> tensor<1x256x2x4xf32>, tensor<1x256x2x4xf32>
  %o = llm.attention %q, %kv, %vv, %p {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x4x4xf32>, tensor<1x256x2x4xf32>, tensor<1x256x2x4xf32>, tensor<1x?xi32> -> tensor<1x?x4x4xf32>
  return %o, %c1 : tensor<1x?x4x4xf32>, !cache
}
func.func @caller(%c: !cache, %q: tensor<1x?x4x4xf32>, %k: tensor<1x?x2x4xf32>, %v: tensor<1x?x2x4xf32>, %p: tensor<1x?xi32>) -> (tensor<1x?x4x4xf32>, !cache) {
  %o, %c1 = call @layer(%c, %q, %k, %v, %p) : (!cache, tensor<1x?x4x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?xi32>) -> (tensor<1x?x4x4xf32>, !cache)
  return %o, %c1 : tensor<1x?x4x4xf32>, !cache
}

// -----

// A cache whose values are its keys converts to one plane, (1, layers, ...):
// kv_append writes the keys only, kv_view slices them once and yields them
// as both results.
// CHECK-LABEL: func.func @append_keys
// CHECK-SAME: (%[[C:.+]]: tensor<1x3x1x128x1x8xbf16>, %[[K:.+]]: tensor<1x?x1x8xbf16>, %[[P:.+]]: tensor<1x?xi32>) -> tensor<1x3x1x128x1x8xbf16>
// CHECK: scf.for {{.+}} iter_args(%{{.+}} = %[[C]]) -> (tensor<1x3x1x128x1x8xbf16>)
// CHECK: scf.for {{.+}} iter_args(%[[CT:[a-z0-9_]+]] = %{{.+}}) -> (tensor<1x3x1x128x1x8xbf16>)
// CHECK: %[[KROW:.+]] = tensor.extract_slice %[[K]][%{{.+}}, %{{.+}}, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<1x?x1x8xbf16> to tensor<1x8xbf16>
// CHECK: %[[WK:.+]] = tensor.insert_slice %[[KROW]] into %[[CT]][0, 2, %{{.+}}, %{{.+}}, 0, 0] [1, 1, 1, 1, 1, 8] [1, 1, 1, 1, 1, 1] : tensor<1x8xbf16> into tensor<1x3x1x128x1x8xbf16>
// CHECK-NOT: tensor.insert_slice
// CHECK: scf.yield %[[WK]] : tensor<1x3x1x128x1x8xbf16>
!latent = !llm.kv_cache<layers = 3, batch = 1, kv_heads = 1, head_dim = 8, capacity = 128, element_type = bf16, values = keys>
func.func @append_keys(%c: !latent, %k: tensor<1x?x1x8xbf16>, %p: tensor<1x?xi32>) -> !latent {
  %c1 = llm.kv_append %c[2], %k, %p : !latent, tensor<1x?x1x8xbf16>, tensor<1x?xi32>
  return %c1 : !latent
}

// -----

// CHECK-LABEL: func.func @view_keys
// CHECK-SAME: (%[[C:.+]]: tensor<1x3x1x128x1x8xbf16>) -> (tensor<1x128x1x8xbf16>, tensor<1x128x1x8xbf16>)
// CHECK-NEXT: %[[K:.+]] = tensor.extract_slice %[[C]][0, 1, 0, 0, 0, 0] [1, 1, 1, 128, 1, 8] [1, 1, 1, 1, 1, 1] : tensor<1x3x1x128x1x8xbf16> to tensor<1x128x1x8xbf16>
// CHECK-NEXT: return %[[K]], %[[K]]
!latent = !llm.kv_cache<layers = 3, batch = 1, kv_heads = 1, head_dim = 8, capacity = 128, element_type = bf16, values = keys>
func.func @view_keys(%c: !latent) -> (tensor<1x128x1x8xbf16>, tensor<1x128x1x8xbf16>) {
  %k, %v = llm.kv_view %c[1] : !latent -> tensor<1x128x1x8xbf16>, tensor<1x128x1x8xbf16>
  return %k, %v : tensor<1x128x1x8xbf16>, tensor<1x128x1x8xbf16>
}
