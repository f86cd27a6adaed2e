// A quantized !llm.kv_cache (i8 or f8E4M3FN codes) becomes bytes, tensor<2xLxBxCxHx(D+4)xi8> (1x... when its values are its keys): each head row is D
// codes and its f32 scale. kv_append quantizes a whole row (one contiguous store), kv_view dequantizes, and
// llm.attention reads the codes and scales from the cache inside its key-tile loop.
// RUN: llmc-opt %s --llm-lower-to-linalg=parallel-min-weight-elements=0 -split-input-file | FileCheck %s

// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[HEAD:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @append
// CHECK-SAME: (%[[C:.+]]: tensor<2x3x1x128x2x8xi8>, %[[K:.+]]: tensor<1x?x2x4xf32>, %[[V:.+]]: tensor<1x?x2x4xf32>, %[[P:.+]]: tensor<1x?xi32>) -> tensor<2x3x1x128x2x8xi8>
// CHECK: scf.for
// CHECK: scf.for {{.+}} iter_args(%[[CT:.+]] = %{{.+}}) -> (tensor<2x3x1x128x2x8xi8>)
// CHECK: %[[SLOT:.+]] = arith.index_cast
// CHECK: %[[KROW:.+]] = tensor.extract_slice %[[K]][{{.+}}] [1, 1, 2, 4] [1, 1, 1, 1] : tensor<1x?x2x4xf32> to tensor<2x4xf32>
// max |x| per head:
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[ROW]], #[[HEAD]]], iterator_types = ["parallel", "reduction"]} ins(%[[KROW]] : tensor<2x4xf32>)
// CHECK: math.absf
// CHECK: arith.maximumf
// The stored row: codes x · 127 / max (nearest even, clamped) in bytes 0..3, the scale max / 127 in bytes 4..7.
// CHECK: %[[QROW:.+]] = linalg.generic {indexing_maps = [#[[HEAD]], #[[ROW]]], iterator_types = ["parallel", "parallel"]} ins(%[[MAX]] : tensor<2xf32>) outs(%{{.+}} : tensor<2x8xi8>)
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[ISCODE:.+]] = arith.cmpi ult, %[[J]], %c4
// CHECK: %[[X:.+]] = tensor.extract %[[KROW]]
// CHECK: %[[C127:.+]] = arith.constant 1.270000e+02 : f32
// CHECK: %[[NONZERO:.+]] = arith.cmpf ogt, %[[LARGEST:.+]], %{{.+}} : f32
// CHECK: %[[INV:.+]] = arith.divf %[[C127]], %[[LARGEST]] : f32
// CHECK: %[[FACTOR:.+]] = arith.select %[[NONZERO]], %[[INV]], %{{.+}} : f32
// CHECK: %[[SCALE:.+]] = arith.divf %[[LARGEST]], %[[C127]] : f32
// CHECK: %[[SCALED:.+]] = arith.mulf %[[X]], %[[FACTOR]] : f32
// CHECK: math.roundeven %[[SCALED]]
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: arith.fptosi
// CHECK: %[[CODE:.+]] = arith.trunci %{{.+}} : i32 to i8
// CHECK: %[[BITS:.+]] = arith.bitcast %[[SCALE]] : f32 to i32
// CHECK: %[[SHIFTED:.+]] = arith.shrui %[[BITS]]
// CHECK: %[[BYTE:.+]] = arith.trunci %[[SHIFTED]] : i32 to i8
// CHECK: arith.select %[[ISCODE]], %[[CODE]], %[[BYTE]] : i8
// CHECK: %[[WK:.+]] = tensor.insert_slice %[[QROW]] into %[[CT]][0, 2, %{{.+}}, %[[SLOT]], 0, 0] [1, 1, 1, 1, 2, 8] [1, 1, 1, 1, 1, 1] : tensor<2x8xi8> into tensor<2x3x1x128x2x8xi8>
// CHECK: tensor.extract_slice %[[V]]
// CHECK: tensor.insert_slice %{{.+}} into %[[WK]][1, 2, %{{.+}}, %[[SLOT]], 0, 0] [1, 1, 1, 1, 2, 8]
!cache = !llm.kv_cache<layers = 3, batch = 1, kv_heads = 2, head_dim = 4, capacity = 128, element_type = i8>
func.func @append(%c: !cache, %k: tensor<1x?x2x4xf32>, %v: tensor<1x?x2x4xf32>, %p: tensor<1x?xi32>) -> !cache {
  %c1 = llm.kv_append %c[2], %k, %v, %p : !cache, tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?xi32>
  return %c1 : !cache
}

// -----

// fp8: codes rounded to e4m3 (the f32 mantissa rounded to three bits, subnormals as multiples of 2^-9).
// CHECK-LABEL: func.func @append_fp8
// CHECK-SAME: (%{{.+}}: tensor<2x1x1x64x1x12xi8>
// CHECK: arith.constant 4.480000e+02 : f32
// CHECK: math.absf
// CHECK: arith.minimumf
// CHECK: arith.constant 524287 : i32
// CHECK: arith.constant 5.120000e+02 : f32
// CHECK: math.roundeven
// CHECK: arith.constant 126 : i32
// CHECK: tensor.insert_slice %{{.+}} [1, 1, 1, 1, 1, 12]
!cache = !llm.kv_cache<layers = 1, batch = 1, kv_heads = 1, head_dim = 8, capacity = 64, element_type = f8E4M3FN>
func.func @append_fp8(%c: !cache, %k: tensor<1x1x1x8xf32>, %p: tensor<1x1xi32>) -> !cache {
  %c1 = llm.kv_append %c[0], %k, %k, %p : !cache, tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>, tensor<1x1xi32>
  return %c1 : !cache
}

// -----

// kv_view of a quantized cache: the scale from bytes 4..7 of each row, then codes · scale.
// CHECK: #map = affine_map<(d0, d1, d2) -> (d0, d1, d2, 4)>
// CHECK-NEXT: #map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2, 5)>
// CHECK-NEXT: #map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2, 6)>
// CHECK-NEXT: #map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2, 7)>
// CHECK-LABEL: func.func @view
// CHECK-SAME: (%[[C:.+]]: tensor<2x3x1x128x2x8xi8>) -> (tensor<1x128x2x4xf32>, tensor<1x128x2x4xf32>)
// CHECK: %[[KROWS:.+]] = tensor.extract_slice %[[C]][0, 1, 0, %{{.+}}, 0, 0] [1, 1, 1, 128, 2, 8] [1, 1, 1, 1, 1, 1] : tensor<2x3x1x128x2x8xi8> to tensor<1x128x2x8xi8>
// CHECK-NEXT: tensor.extract_slice %[[C]][1, 1, 0, %{{.+}}, 0, 0] [1, 1, 1, 128, 2, 8]
// CHECK: %[[KSCALES:.+]] = linalg.generic {indexing_maps = [#map, #map1, #map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[KROWS]], %[[KROWS]], %[[KROWS]], %[[KROWS]] : {{.+}}) outs(%{{.+}} : tensor<1x128x2xf32>)
// CHECK: arith.extui
// CHECK: arith.shli
// CHECK: arith.ori
// CHECK: arith.bitcast %{{.+}} : i32 to f32
// CHECK: %[[KCODES:.+]] = tensor.extract_slice %[[KROWS]][0, 0, 0, 0] [1, 128, 2, 4] [1, 1, 1, 1] : tensor<1x128x2x8xi8> to tensor<1x128x2x4xi8>
// CHECK: %[[KEYS:.+]] = linalg.generic {{.+}} ins(%[[KCODES]], %[[KSCALES]] : tensor<1x128x2x4xi8>, tensor<1x128x2xf32>) outs(%{{.+}} : tensor<1x128x2x4xf32>)
// CHECK: ^bb0(%[[CODE:.+]]: i8, %[[S:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[X:.+]] = arith.sitofp %[[CODE]] : i8 to f32
// CHECK: arith.mulf %[[X]], %[[S]] : f32
// CHECK: return %[[KEYS]], %{{.+}} : tensor<1x128x2x4xf32>, tensor<1x128x2x4xf32>
!cache = !llm.kv_cache<layers = 3, batch = 1, kv_heads = 2, head_dim = 4, capacity = 128, element_type = i8>
func.func @view(%c: !cache) -> (tensor<1x128x2x4xf32>, tensor<1x128x2x4xf32>) {
  %k, %v = llm.kv_view %c[1] : !cache -> tensor<1x128x2x4xf32>, tensor<1x128x2x4xf32>
  return %k, %v : tensor<1x128x2x4xf32>, tensor<1x128x2x4xf32>
}

// -----

// Attention over a quantized view reads each key tile's rows from the cache (not the dequantized view) and
// decodes the codes inside Q·K and P·V, the row's scale an input of both. A decode step splits by KV head
// and chunk of keys (an scf.forall iteration): it reads the rows of its KV head once for its two query heads (h floordiv 2
// of the tile's one KV head).
// CHECK: #[[$KMAP:map[0-9]+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2 floordiv 2, d4)>
// CHECK-NEXT: #[[$SMAP:map[0-9]+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2 floordiv 2)>
// CHECK-LABEL: func.func @attend
// CHECK-SAME: (%[[C:.+]]: tensor<2x3x1x128x2x8xi8>
// CHECK: scf.forall (%[[KVH:.+]], %{{.+}}) in (2, %{{.+}})
// CHECK-NOT: arith.divui
// CHECK: scf.for %[[S:.+]] = {{.+}} iter_args(
// CHECK: %[[KT:.+]] = tensor.extract_slice %[[C]][0, 1, 0, %[[S]], %[[KVH]], 0] [1, 1, 1, 64, 1, 8] [1, 1, 1, 1, 1, 1] : tensor<2x3x1x128x2x8xi8> to tensor<1x64x1x8xi8>
// CHECK: %[[VT:.+]] = tensor.extract_slice %[[C]][1, 1, 0, %[[S]], %[[KVH]], 0] [1, 1, 1, 64, 1, 8]
// CHECK: %[[KS:.+]] = linalg.generic {{.+}} ins(%[[KT]], %[[KT]], %[[KT]], %[[KT]] : {{.+}}) outs(%{{.+}} : tensor<1x64x1xf32>)
// CHECK: %[[VS:.+]] = linalg.generic {{.+}} ins(%[[VT]], %[[VT]], %[[VT]], %[[VT]] : {{.+}}) outs(%{{.+}} : tensor<1x64x1xf32>)
// CHECK: %[[KC:.+]] = tensor.extract_slice %[[KT]][0, 0, 0, 0] [1, 64, 1, 4]
// CHECK: %[[VC:.+]] = tensor.extract_slice %[[VT]][0, 0, 0, 0] [1, 64, 1, 4]
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$KMAP]], #[[$SMAP]], #{{.+}}], {{.+}} ins(%{{.+}}, %[[KC]], %[[KS]] : tensor<1x1x2x4xf32>, tensor<1x64x1x4xi8>, tensor<1x64x1xf32>)
// CHECK: arith.sitofp
// CHECK: linalg.generic {{.+}} ins(%{{.+}}, %[[VC]], %[[VS]] : tensor<1x1x2x64xf32>, tensor<1x64x1x4xi8>, tensor<1x64x1xf32>)
// CHECK: arith.sitofp
!cache = !llm.kv_cache<layers = 3, batch = 1, kv_heads = 2, head_dim = 4, capacity = 128, element_type = i8>
func.func @attend(%c: !cache, %q: tensor<1x1x4x4xf32>, %p: tensor<1x1xi32>) -> tensor<1x1x4x4xf32> {
  %k, %v = llm.kv_view %c[1] : !cache -> tensor<1x128x2x4xf32>, tensor<1x128x2x4xf32>
  %o = llm.attention %q, %k, %v, %p {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x4x4xf32>, tensor<1x128x2x4xf32>, tensor<1x128x2x4xf32>, tensor<1x1xi32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}

// -----

// A paged int8 cache whose values are its keys: one plane, (1, layers,
// pages, page_size, kv_heads, head_dim + 4). Each key tile is gathered once
// through the page table (one tile carried by the gather loop), its scales
// decoded once, and its codes and scales feed both Q·K and P·V.
// CHECK-LABEL: func.func @attend_keys
// CHECK-SAME: (%[[C:.+]]: tensor<1x3x8x16x1x8xi8>
// CHECK: scf.for %{{.+}} = {{.+}} step %c64{{.*}} iter_args(
// CHECK: %[[T:.+]] = scf.for {{.+}} -> (tensor<1x64x1x8xi8>) {
// CHECK: tensor.extract_slice %[[C]][0, 1, %{{.+}}, %{{.+}}, %{{.+}}, 0] [1, 1, 1, 1, 1, 8]
// CHECK: %[[S:.+]] = linalg.generic {{.+}} ins(%[[T]], %[[T]], %[[T]], %[[T]] : {{.+}}) outs(%{{.+}} : tensor<1x64x1xf32>)
// CHECK-NOT: outs(%{{.+}} : tensor<1x64x1xf32>)
// CHECK: %[[CODES:.+]] = tensor.extract_slice %[[T]][0, 0, 0, 0] [1, 64, 1, 4]
// CHECK: linalg.generic {{.+}} ins(%{{.+}}, %[[CODES]], %[[S]] : tensor<1x1x4x4xf32>, tensor<1x64x1x4xi8>, tensor<1x64x1xf32>)
// CHECK: linalg.generic {{.+}} ins(%{{.+}}, %[[CODES]], %[[S]] : tensor<1x1x4x64xf32>, tensor<1x64x1x4xi8>, tensor<1x64x1xf32>)
!latent = !llm.kv_cache<layers = 3, batch = 1, kv_heads = 1, head_dim = 4, capacity = 128, element_type = i8, layout = paged, values = keys>
func.func @attend_keys(%c: !latent, %t: tensor<1x8xi32>, %q: tensor<1x1x4x4xf32>, %p: tensor<1x1xi32>) -> tensor<1x1x4x4xf32> {
  %k, %v = llm.kv_view %c[1] pages(%t : tensor<1x8xi32>) : !latent -> tensor<1x128x1x4xf32>, tensor<1x128x1x4xf32>
  %o = llm.attention %q, %k, %v, %p {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal} : tensor<1x1x4x4xf32>, tensor<1x128x1x4xf32>, tensor<1x128x1x4xf32>, tensor<1x1xi32> -> tensor<1x1x4x4xf32>
  return %o : tensor<1x1x4x4xf32>
}

// -----

// A paged int8 cache whose values are its keys: each token's key row is
// quantized once and scattered once, into plane 0 of the page's slot.
// CHECK-LABEL: func.func @append_keys
// CHECK-SAME: (%[[C:.+]]: tensor<1x3x8x16x1x8xi8>, %[[T:.+]]: tensor<1x8xi32>, %[[K:.+]]: tensor<1x?x1x4xf32>, %[[P:.+]]: tensor<1x?xi32>) -> tensor<1x3x8x16x1x8xi8>
// CHECK: scf.for {{.+}} iter_args(%{{.+}} = %[[C]]) -> (tensor<1x3x8x16x1x8xi8>)
// CHECK: scf.for {{.+}} iter_args(%[[CT:[a-z0-9_]+]] = %{{.+}}) -> (tensor<1x3x8x16x1x8xi8>)
// CHECK: %[[PAGE:.+]] = arith.minui
// CHECK: %[[KROW:.+]] = tensor.extract_slice %[[K]][{{.+}}] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x?x1x4xf32> to tensor<1x4xf32>
// CHECK: %[[QROW:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<1x8xi8>)
// CHECK: %[[WK:.+]] = tensor.insert_slice %[[QROW]] into %[[CT]][0, 2, %[[PAGE]], %{{.+}}, 0, 0] [1, 1, 1, 1, 1, 8] [1, 1, 1, 1, 1, 1] : tensor<1x8xi8> into tensor<1x3x8x16x1x8xi8>
// CHECK-NOT: tensor.insert_slice
// CHECK: scf.yield %[[WK]]
!latent = !llm.kv_cache<layers = 3, batch = 1, kv_heads = 1, head_dim = 4, capacity = 128, element_type = i8, layout = paged, values = keys>
func.func @append_keys(%c: !latent, %t: tensor<1x8xi32>, %k: tensor<1x?x1x4xf32>, %p: tensor<1x?xi32>) -> !latent {
  %c1 = llm.kv_append %c[2] pages(%t : tensor<1x8xi32>), %k, %p : !latent, tensor<1x?x1x4xf32>, tensor<1x?xi32>
  return %c1 : !latent
}
