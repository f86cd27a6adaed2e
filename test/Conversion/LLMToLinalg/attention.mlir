// llm.attention lowers to an scf.forall over query heads (each against its KV head's slice; a decode step's over KV heads and chunks of keys, combined after it) of an scf.for over key tiles with an online softmax: Q·Kᵀ and P·V as vector kernels (head_dim a multiple of 8), otherwise linalg.generic.
// RUN: llmc-opt %s --llm-lower-to-linalg=parallel-min-weight-elements=0 -split-input-file | FileCheck %s
// RUN: llmc-opt %s --llm-lower-to-linalg=parallel-min-weight-elements=0 -split-input-file | FileCheck %s --check-prefix=NO-SCORE-MATRIX
// RUN: llmc-opt %s --llm-lower-to-linalg -split-input-file | FileCheck %s --check-prefix=SMALL

// At the default threshold (heads × head_dim × keys below 262144) a call of
// one query block keeps its heads on one thread: no scf.forall, every head
// in each generic (a floordiv map shares the KV heads).
// SMALL-LABEL: func.func @gqa_static_causal
// SMALL-NOT: scf.forall
// SMALL: linalg.generic {{.+}} ins(%{{.+}} : tensor<1x64x2x16xbf16>) outs(%{{.+}} : tensor<1x64x2x16xf32>)
// SMALL: arith.divui %{{.+}}, %c4{{.*}} : index
// SMALL: vector.transfer_read %{{.+}} : tensor<1x64x2x16xf32>, vector<8xf32>
// SMALL: vector.transfer_write %{{.+}} : vector<8xf32>, tensor<1x4x8x64xf32>
// SMALL-NOT: scf.forall
// SMALL: return
// SMALL-LABEL: func.func @gqa_odd_head_dim
// SMALL-NOT: scf.forall
// SMALL: linalg.generic {{.+}} ins(%{{.+}}, %{{.+}} : tensor<1x4x8x12xf32>, tensor<1x64x2x12xbf16>)
// SMALL-NOT: scf.forall
// SMALL: return
// SMALL-LABEL: func.func @decode_positions
// SMALL-NOT: scf.forall
// SMALL: return
// A dynamic extent counts as large work.
// SMALL-LABEL: func.func @mqa_noncausal_dynamic
// SMALL: scf.forall

// No tensor spans all S keys of any case (scores are at most one tile wide).
// NO-SCORE-MATRIX-NOT: x100xf32>
// NO-SCORE-MATRIX-NOT: x4096xf32>
// NO-SCORE-MATRIX-NOT: x512xf32>

// GQA (8 query heads on 2 KV heads), static S = 100: an scf.forall over the
// 8 query heads, each reading the tiles of its KV head (h floordiv 4); one
// full tile of 64 keys and a static tail of 36; no 4x100 score matrix.
// head_dim 16: the vector kernels. Q·Kᵀ per query row, eight keys at a
// time (one q vector per chunk of 8, eight FMAs), the eight dot vectors
// summed pairwise into one vector of scores, scaled, the invisible keys
// (outside [0, p + 1 − tile start) of the tile) set to −1e30, written, and
// their running maximum kept (NaN-propagating: a NaN score makes the row
// NaN); the tail's 36 keys: 4 groups, then 4 one at a
// time. P·V: the row's 16 accumulators rescaled once, then one FMA per
// visible key.
// CHECK-LABEL: func.func @gqa_static_causal
// CHECK-SAME: (%[[Q:.+]]: tensor<1x4x8x16xf32>, %[[K:.+]]: tensor<1x100x2x16xbf16>, %[[V:.+]]: tensor<1x100x2x16xbf16>) -> tensor<1x4x8x16xf32>
// CHECK: %[[SCALE:.+]] = arith.constant 2.500000e-01 : f32
// CHECK: scf.forall (%[[H:.+]]) in (8) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<1x4x8x16xf32>)
// CHECK: %[[KVH:.+]] = arith.divui %[[H]], %c4{{.*}} : index
// CHECK: %[[QH:.+]] = tensor.extract_slice %[[Q]][0, 0, %[[H]], 0] [1, 4, 1, 16]
// CHECK: scf.for %[[S0:.+]] = %{{.+}} to %{{.+}} step %c64{{.*}} iter_args(
// CHECK: %[[KT:.+]] = tensor.extract_slice %[[K]][0, %[[S0]], %[[KVH]], 0] [1, 64, 1, 16] [1, 1, 1, 1] : tensor<1x100x2x16xbf16> to tensor<1x64x1x16xbf16>
// CHECK: %[[VT:.+]] = tensor.extract_slice %[[V]][0, %[[S0]], %[[KVH]], 0] [1, 64, 1, 16] [1, 1, 1, 1] : tensor<1x100x2x16xbf16> to tensor<1x64x1x16xbf16>
// The tiles, read by 4 query rows, widened to f32 once.
// CHECK: %[[KWIDE:.+]] = linalg.generic {{.+}} ins(%[[KT]] : tensor<1x64x1x16xbf16>) outs(%{{.+}} : tensor<1x64x1x16xf32>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: %[[VWIDE:.+]] = linalg.generic {{.+}} ins(%[[VT]] : tensor<1x64x1x16xbf16>) outs(%{{.+}} : tensor<1x64x1x16xf32>)
// The query rows (b, t, h): the scores tile and the row maxima carried.
// CHECK: scf.for %[[B:arg[0-9]+]] = {{.+}} -> (tensor<1x4x1x64xf32>, tensor<1x4x1xf32>)
// CHECK: scf.for %[[T:arg[0-9]+]] = {{.+}} -> (tensor<1x4x1x64xf32>, tensor<1x4x1xf32>)
// CHECK: scf.for %[[HR:arg[0-9]+]] = {{.+}} -> (tensor<1x4x1x64xf32>, tensor<1x4x1xf32>)
// Query t sits at t + 96 (S − T): it sees tile keys [0, t + 96 − s0 + 1).
// CHECK: %[[P:.+]] = arith.addi %[[T]], %c96 : index
// CHECK: %[[OFF:.+]] = arith.subi %[[P]], %[[S0]] : index
// CHECK: %[[AFTER:.+]] = arith.addi %[[OFF]], %{{.+}} : index
// CHECK: %[[LOW:.+]] = arith.maxsi %[[AFTER]], %{{.+}} : index
// CHECK: %[[END:.+]] = arith.minsi %[[LOW]], %c64{{.*}} : index
// CHECK: %[[GROUPS:.+]]:2 = scf.for %[[G:arg[0-9]+]] = %{{.+}} to %c64{{.*}} step %c8{{.*}} iter_args(%[[SC:.+]] = %{{.+}}, %[[RMAX:.+]] = %{{.+}}) -> (tensor<1x4x1x64xf32>, vector<8xf32>)
// CHECK: %[[DOTS:.+]]:8 = scf.for %[[C:arg[0-9]+]] = %{{.+}} to %c16{{.*}} step %c8{{.*}} iter_args({{.+}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: %[[QC:.+]] = vector.transfer_read %[[QH]][%[[B]], %[[T]], %[[HR]], %[[C]]], %{{.+}} {in_bounds = [true]} : tensor<1x4x1x16xf32>, vector<8xf32>
// CHECK: %[[KC:.+]] = vector.transfer_read %[[KWIDE]][%[[B]], %[[G]], %[[HR]], %[[C]]], %{{.+}} {in_bounds = [true]} : tensor<1x64x1x16xf32>, vector<8xf32>
// CHECK: vector.fma %[[QC]], %[[KC]], %{{.+}} : vector<8xf32>
// CHECK-COUNT-7: vector.fma %[[QC]]
// CHECK: vector.shuffle %[[DOTS]]#{{[0-9]}}, %[[DOTS]]#{{[0-9]}} [0, 2, 8, 10, 4, 6, 12, 14]
// CHECK: %[[HALF0:.+]] = vector.shuffle %{{.+}}, %{{.+}} [0, 1, 2, 3, 8, 9, 10, 11] : vector<8xf32>, vector<8xf32>
// CHECK: %[[HALF1:.+]] = vector.shuffle %{{.+}}, %{{.+}} [4, 5, 6, 7, 12, 13, 14, 15] : vector<8xf32>, vector<8xf32>
// CHECK: %[[SUMS:.+]] = arith.addf %[[HALF0]], %[[HALF1]] : vector<8xf32>
// CHECK: %[[SSCALE:.+]] = vector.broadcast %[[SCALE]] : f32 to vector<8xf32>
// CHECK: %[[SCALED:.+]] = arith.mulf %[[SUMS]], %[[SSCALE]] : vector<8xf32>
// CHECK: %[[KEYS:.+]] = arith.addi %{{.+}}, %{{.+}} : vector<8xi32>
// CHECK: arith.cmpi slt, %[[KEYS]], %{{.+}} : vector<8xi32>
// CHECK: arith.cmpi sge, %[[KEYS]], %{{.+}} : vector<8xi32>
// CHECK: %[[SEEN:.+]] = arith.andi %{{.+}}, %{{.+}} : vector<8xi1>
// CHECK: %[[MASKED:.+]] = arith.select %[[SEEN]], %[[SCALED]], %{{.+}} : vector<8xi1>, vector<8xf32>
// CHECK: %[[WRITTEN:.+]] = vector.transfer_write %[[MASKED]], %[[SC]][%[[B]], %[[T]], %[[HR]], %[[G]]] {in_bounds = [true]} : vector<8xf32>, tensor<1x4x1x64xf32>
// CHECK: %[[NMAX:.+]] = arith.maximumf %[[RMAX]], %[[MASKED]] : vector<8xf32>
// CHECK: scf.yield %[[WRITTEN]], %[[NMAX]]
// CHECK: %[[TMAX:.+]] = vector.reduction <maximumf>, %[[GROUPS]]#1 : vector<8xf32> into f32
// CHECK: tensor.insert %{{.+}} into %{{.+}}[%[[B]], %[[T]], %[[HR]]] : tensor<1x4x1xf32>
// m_new, alpha and l_scaled; the probabilities and their sum.
// CHECK: %[[RES:.+]]:3 = linalg.generic {{.+}} ins(%{{.+}} : tensor<1x4x1xf32>)
// CHECK: math.exp
// CHECK: %[[PROBS:.+]] = linalg.generic {{.+}} outs(%{{.+}} : tensor<1x4x1x64xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.+}} ins(%[[PROBS]] : tensor<1x4x1x64xf32>)
// P·V over the row's visible keys, its accumulator rescaled by alpha once.
// CHECK: scf.for %[[PB:arg[0-9]+]] = {{.+}} -> (tensor<1x4x1x16xf32>)
// CHECK: scf.for %[[PT:arg[0-9]+]] = {{.+}} -> (tensor<1x4x1x16xf32>)
// CHECK: scf.for %[[PH:arg[0-9]+]] = {{.+}} -> (tensor<1x4x1x16xf32>)
// CHECK: %[[ALPHA:.+]] = tensor.extract %[[RES]]#1[%[[PB]], %[[PT]], %[[PH]]] : tensor<1x4x1xf32>
// CHECK: %[[AV:.+]] = vector.broadcast %[[ALPHA]] : f32 to vector<16xf32>
// CHECK: %[[PEND:.+]] = arith.minsi %{{.+}}, %c64{{.*}} : index
// CHECK: scf.for %[[D0:arg[0-9]+]] = {{.+}} to %c16{{.*}} step %c16{{.*}} iter_args(%[[ACCT:.+]] = %{{.+}}) -> (tensor<1x4x1x16xf32>)
// CHECK: %[[OLD:.+]] = vector.transfer_read %[[ACCT]][%[[PB]], %[[PT]], %[[PH]], %[[D0]]]
// CHECK: %[[START:.+]] = arith.mulf %[[OLD]], %[[AV]] : vector<16xf32>
// CHECK: %[[SUMV:.+]] = scf.for %[[KEY:arg[0-9]+]] = %{{.+}} to %[[PEND]] step %{{.+}} iter_args(%[[ACCV:.+]] = %[[START]]) -> (vector<16xf32>)
// CHECK: %[[PR:.+]] = tensor.extract %[[PROBS]][%[[PB]], %[[PT]], %[[PH]], %[[KEY]]] : tensor<1x4x1x64xf32>
// CHECK: %[[VR:.+]] = vector.transfer_read %[[VWIDE]][%[[PB]], %[[KEY]], %[[PH]], %[[D0]]], %{{.+}} {in_bounds = [true]} : tensor<1x64x1x16xf32>, vector<16xf32>
// CHECK: %[[PV:.+]] = vector.broadcast %[[PR]] : f32 to vector<16xf32>
// CHECK: %[[NEXT:.+]] = vector.fma %[[PV]], %[[VR]], %[[ACCV]] : vector<16xf32>
// CHECK: scf.yield %[[NEXT]] : vector<16xf32>
// CHECK: vector.transfer_write %[[SUMV]], %[[ACCT]][%[[PB]], %[[PT]], %[[PH]], %[[D0]]] {in_bounds = [true]} : vector<16xf32>, tensor<1x4x1x16xf32>
// The static tail of 36 keys: 32 in groups of eight, 4 one at a time.
// CHECK: tensor.extract_slice %[[K]][0, %{{.+}}, %[[KVH]], 0] [1, 36, 1, 16] [1, 1, 1, 1] : tensor<1x100x2x16xbf16> to tensor<1x36x1x16xbf16>
// CHECK: scf.for %{{.+}} = %{{.+}} to %c32{{.*}} step %c8{{.*}} iter_args({{.+}}) -> (tensor<1x4x1x36xf32>, vector<8xf32>)
// CHECK: %[[ONE:.+]] = vector.reduction <add>, %{{.+}} : vector<8xf32> into f32
// CHECK: arith.mulf %[[ONE]], %[[SCALE]] : f32
// CHECK: tensor.insert %{{.+}} into %{{.+}} : tensor<1x4x1x36xf32>
// CHECK: scf.forall.in_parallel
func.func @gqa_static_causal(%q: tensor<1x4x8x16xf32>, %k: tensor<1x100x2x16xbf16>, %v: tensor<1x100x2x16xbf16>) -> tensor<1x4x8x16xf32> {
  %o = llm.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x4x8x16xf32>, tensor<1x100x2x16xbf16>, tensor<1x100x2x16xbf16> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// The same with head_dim 12 (not a multiple of 8): the tile's products stay
// linalg.generic loops (the score matrix of a tile, its mask, its maximum,
// P·V with the reduction over keys).
// CHECK-DAG: #[[QMAP:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[KMAP:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2, d4)>
// CHECK-DAG: #[[SMAP:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @gqa_odd_head_dim
// CHECK-SAME: (%[[Q:.+]]: tensor<1x4x8x12xf32>, %[[K:.+]]: tensor<1x100x2x12xbf16>, %[[V:.+]]: tensor<1x100x2x12xbf16>) -> tensor<1x4x8x12xf32>
// CHECK: %[[SCALE:.+]] = arith.constant 0.288675129 : f32
// CHECK: %[[HEADS:.+]] = scf.forall (%[[H:.+]]) in (8) shared_outs(%[[SHARED:.+]] = %{{.+}}) -> (tensor<1x4x8x12xf32>)
// CHECK: %[[KVH:.+]] = arith.divui %[[H]], %c4{{.*}} : index
// CHECK: %[[QH:.+]] = tensor.extract_slice %[[Q]][0, 0, %[[H]], 0] [1, 4, 1, 12] [1, 1, 1, 1] : tensor<1x4x8x12xf32> to tensor<1x4x1x12xf32>
// CHECK: %[[DEST:.+]] = tensor.extract_slice %[[SHARED]][0, 0, %[[H]], 0] [1, 4, 1, 12] [1, 1, 1, 1]
// CHECK: %[[M0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x4x1xf32>)
// CHECK: %[[L0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x4x1xf32>)
// CHECK: %[[A0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x4x1x12xf32>)
// CHECK: %[[LOOP:.+]]:3 = scf.for %[[S0:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[M:.+]] = %[[M0]], %[[L:.+]] = %[[L0]], %[[ACC:.+]] = %[[A0]]) -> (tensor<1x4x1xf32>, tensor<1x4x1xf32>, tensor<1x4x1x12xf32>)
// CHECK: %[[KT:.+]] = tensor.extract_slice %[[K]][0, %[[S0]], %[[KVH]], 0] [1, 64, 1, 12] [1, 1, 1, 1] : tensor<1x100x2x12xbf16> to tensor<1x64x1x12xbf16>
// CHECK: %[[VT:.+]] = tensor.extract_slice %[[V]][0, %[[S0]], %[[KVH]], 0] [1, 64, 1, 12] [1, 1, 1, 1] : tensor<1x100x2x12xbf16> to tensor<1x64x1x12xbf16>
// CHECK: %[[SC:.+]] = linalg.generic {indexing_maps = [#[[QMAP]], #[[KMAP]], #[[SMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[QH]], %[[KT]] : tensor<1x4x1x12xf32>, tensor<1x64x1x12xbf16>) outs(%{{.+}} : tensor<1x4x1x64xf32>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// Causal mask: key s0 + s visible iff it is at most t + S - T = t + 96.
// CHECK: %[[MASKED:.+]] = linalg.generic {{.+}} outs(%[[SC]] : tensor<1x4x1x64xf32>)
// CHECK: arith.mulf %{{.+}}, %[[SCALE]] : f32
// CHECK: %[[T:.+]] = linalg.index 1 : index
// CHECK: %[[P:.+]] = arith.addi %[[T]], %c96 : index
// CHECK: %[[SI:.+]] = linalg.index 3 : index
// CHECK: %[[KEY:.+]] = arith.addi %[[S0]], %[[SI]] : index
// CHECK: arith.cmpi sle, %[[KEY]], %[[P]] : index
// CHECK: arith.select
// CHECK: %[[TMAX:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[MASKED]] : tensor<1x4x1x64xf32>)
// CHECK: arith.maximumf
// m, alpha and l_scaled in one generic, m and l updated in their iter_args.
// CHECK: %[[RES:.+]]:3 = linalg.generic {{.+}} ins(%[[TMAX]] : tensor<1x4x1xf32>) outs(%[[M]], %{{.+}}, %[[L]] : tensor<1x4x1xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>)
// CHECK: math.exp
// CHECK: %[[PROBS:.+]] = linalg.generic {{.+}} ins(%[[MASKED]], %[[RES]]#0 : tensor<1x4x1x64xf32>, tensor<1x4x1xf32>)
// CHECK: math.exp
// CHECK: %[[LNEW:.+]] = linalg.generic {{.+}} ins(%[[PROBS]] : tensor<1x4x1x64xf32>) outs(%[[RES]]#2 : tensor<1x4x1xf32>)
// CHECK: %[[ASC:.+]] = linalg.generic {{.+}} ins(%[[RES]]#1 : tensor<1x4x1xf32>) outs(%[[ACC]] : tensor<1x4x1x12xf32>)
// P·V with head_dim innermost (contiguous in v and acc), keys the reduction:
// v shares K's map.
// CHECK: %[[ANEW:.+]] = linalg.generic {indexing_maps = [#[[SMAP]], #[[KMAP]], #[[QMAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[PROBS]], %[[VT]] : tensor<1x4x1x64xf32>, tensor<1x64x1x12xbf16>) outs(%[[ASC]] : tensor<1x4x1x12xf32>)
// CHECK: scf.yield %[[RES]]#0, %[[LNEW]], %[[ANEW]]
// The tail tile: keys 64..99, static.
// CHECK: tensor.extract_slice %[[K]][0, %{{.+}}, %[[KVH]], 0] [1, 36, 1, 12] [1, 1, 1, 1] : tensor<1x100x2x12xbf16> to tensor<1x36x1x12xbf16>
// CHECK: linalg.generic {{.+}} outs(%{{.+}} : tensor<1x4x1x36xf32>)
// Output: acc / l (0 where no key was visible), into the head's slice of
// the result.
// CHECK: %[[OUT:.+]] = linalg.generic {{.+}} ins(%{{.+}}, %{{.+}} : tensor<1x4x1x12xf32>, tensor<1x4x1xf32>) outs(%[[DEST]] : tensor<1x4x1x12xf32>)
// CHECK: arith.divf
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[OUT]] into %[[SHARED]][0, 0, %[[H]], 0] [1, 4, 1, 12]
// CHECK: return %[[HEADS]] : tensor<1x4x8x12xf32>
func.func @gqa_odd_head_dim(%q: tensor<1x4x8x12xf32>, %k: tensor<1x100x2x12xbf16>, %v: tensor<1x100x2x12xbf16>) -> tensor<1x4x8x12xf32> {
  %o = llm.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x4x8x12xf32>, tensor<1x100x2x12xbf16>, tensor<1x100x2x12xbf16> -> tensor<1x4x8x12xf32>
  return %o : tensor<1x4x8x12xf32>
}

// -----

// Decode (T = 1) over a 4096-slot cache view, MHA: the key range ends at
// min(max(positions) + 1, 4096) and is split into ⌈span / 64⌉ chunks (at
// most 16) of ⌈span / chunks⌉ keys; an scf.forall over (query head, chunk)
// runs the online softmax of each chunk, whose tail tile is dynamic behind
// an scf.if, and no tensor spans the 4096 keys. Query head h reads KV head
// h. The chunks' states are stacked along dimension 1 and combined after
// the forall: M = max_c m_c, w_c = exp(m_c − M), Σ_c w_c·l_c, Σ_c w_c·acc_c.
// CHECK-LABEL: func.func @decode_positions
// CHECK-SAME: (%[[Q:.+]]: tensor<1x1x4x8xf32>, %[[K:.+]]: tensor<1x4096x4x8xf32>, %[[V:.+]]: tensor<1x4096x4x8xf32>, %[[POS:.+]]: tensor<1x1xi64>)
// CHECK: %[[RANGE:.+]]:2 = linalg.generic {{.+}} iterator_types = ["reduction", "reduction"]} ins(%[[POS]] : tensor<1x1xi64>) outs(%{{.+}}, %{{.+}} : tensor<i64>, tensor<i64>)
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: %[[MAXP:.+]] = tensor.extract %[[RANGE]]#1[] : tensor<i64>
// CHECK: %[[MAXI:.+]] = arith.index_cast %[[MAXP]] : i64 to index
// CHECK: %[[AFTER:.+]] = arith.addi %[[MAXI]], %{{.+}} : index
// CHECK: %[[END:.+]] = arith.minsi %[[AFTER]], %c4096{{.*}} : index
// CHECK: %[[SPAN:.+]] = arith.maxsi %[[END]], %{{.+}} : index
// CHECK: %[[PER64:.+]] = arith.ceildivsi %[[SPAN]], %c64{{.*}} : index
// CHECK: %[[ATLEAST1:.+]] = arith.maxsi %[[PER64]], %c1{{.*}} : index
// CHECK: %[[CHUNKS:.+]] = arith.minsi %[[ATLEAST1]], %c16{{.*}} : index
// CHECK: %[[LENGTH:.+]] = arith.ceildivsi %[[SPAN]], %[[CHUNKS]] : index
// CHECK: %[[STATES:.+]]:3 = scf.forall (%[[H:.+]], %[[C:.+]]) in (4, %[[CHUNKS]]) shared_outs(%[[MS:.+]] = %{{.+}}, %[[LS:.+]] = %{{.+}}, %[[ACCS:.+]] = %{{.+}}) -> (tensor<1x?x4xf32>, tensor<1x?x4xf32>, tensor<1x?x4x8xf32>)
// CHECK: tensor.extract_slice %[[Q]][0, 0, %[[H]], 0] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<1x1x4x8xf32> to tensor<1x1x1x8xf32>
// CHECK: %[[FIRST:.+]] = arith.muli %[[C]], %[[LENGTH]] : index
// CHECK: %[[NEXT:.+]] = arith.addi %[[FIRST]], %[[LENGTH]] : index
// CHECK: %[[LAST:.+]] = arith.minsi %[[NEXT]], %[[END]] : index
// CHECK: %[[CSPAN0:.+]] = arith.subi %[[LAST]], %[[FIRST]] : index
// CHECK: %[[CSPAN:.+]] = arith.maxsi %[[CSPAN0]], %{{.+}} : index
// CHECK: %[[TAIL:.+]] = arith.remsi %[[CSPAN]], %c64{{.*}} : index
// CHECK: %[[PAST:.+]] = arith.addi %[[FIRST]], %[[CSPAN]] : index
// CHECK: %[[FULL:.+]] = arith.subi %[[PAST]], %[[TAIL]] : index
// CHECK: %[[LOOP:.+]]:3 = scf.for %[[S0:.+]] = %[[FIRST]] to %[[FULL]] step %c64{{.*}} iter_args(
// CHECK: tensor.extract_slice %[[K]][0, %[[S0]], %[[H]], 0] [1, 64, 1, 8] [1, 1, 1, 1] : tensor<1x4096x4x8xf32> to tensor<1x64x1x8xf32>
// The mask reads the query's position from the positions tensor.
// CHECK: %[[PQ:.+]] = tensor.extract %[[POS]][%{{.+}}, %{{.+}}] : tensor<1x1xi64>
// CHECK: arith.index_cast %[[PQ]] : i64 to index
// CHECK: vector.fma
// CHECK: arith.cmpi slt, %{{.+}}, %{{.+}} : vector<8xi32>
// CHECK: vector.transfer_write %{{.+}} : vector<8xf32>, tensor<1x1x1x64xf32>
// CHECK: scf.yield
// CHECK: %[[HAS_TAIL:.+]] = arith.cmpi sgt, %[[TAIL]], %{{.+}} : index
// CHECK: %[[STATE:.+]]:3 = scf.if %[[HAS_TAIL]] -> (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1x8xf32>)
// CHECK: tensor.extract_slice %[[K]][0, %[[FULL]], %[[H]], 0] [1, %[[TAIL]], 1, 8] [1, 1, 1, 1] : tensor<1x4096x4x8xf32> to tensor<1x?x1x8xf32>
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[LOOP]]#0, %[[LOOP]]#1, %[[LOOP]]#2
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[STATE]]#0 into %[[MS]][0, %[[C]], %[[H]]] [1, 1, 1] [1, 1, 1] : tensor<1x1x1xf32> into tensor<1x?x4xf32>
// CHECK-NEXT: tensor.parallel_insert_slice %[[STATE]]#1 into %[[LS]][0, %[[C]], %[[H]]] [1, 1, 1] [1, 1, 1] : tensor<1x1x1xf32> into tensor<1x?x4xf32>
// CHECK-NEXT: tensor.parallel_insert_slice %[[STATE]]#2 into %[[ACCS]][0, %[[C]], %[[H]], 0] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<1x1x1x8xf32> into tensor<1x?x4x8xf32>
// CHECK: %[[MAX:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[STATES]]#0 : tensor<1x?x4xf32>) outs(%{{.+}} : tensor<1x1x4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[W:.+]] = linalg.generic {{.+}} ins(%[[STATES]]#0, %[[MAX]] : tensor<1x?x4xf32>, tensor<1x1x4xf32>) outs(%{{.+}} : tensor<1x?x4xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[W]], %[[STATES]]#1 : tensor<1x?x4xf32>, tensor<1x?x4xf32>) outs(%{{.+}} : tensor<1x1x4xf32>)
// CHECK: %[[ACC:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[W]], %[[STATES]]#2 : tensor<1x?x4xf32>, tensor<1x?x4x8xf32>) outs(%{{.+}} : tensor<1x1x4x8xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[ACC]], %[[SUM]] : tensor<1x1x4x8xf32>, tensor<1x1x4xf32>)
// CHECK: arith.divf
func.func @decode_positions(%q: tensor<1x1x4x8xf32>, %k: tensor<1x4096x4x8xf32>, %v: tensor<1x4096x4x8xf32>, %p: tensor<1x1xi64>) -> tensor<1x1x4x8xf32> {
  %o = llm.attention %q, %k, %v, %p {num_heads = 4 : i64, num_kv_heads = 4 : i64, causal}
      : tensor<1x1x4x8xf32>, tensor<1x4096x4x8xf32>, tensor<1x4096x4x8xf32>, tensor<1x1xi64> -> tensor<1x1x4x8xf32>
  return %o : tensor<1x1x4x8xf32>
}

// -----

// A decode step (T = 1) of GQA, 8 query heads on 2 KV heads, over an f16
// cache view: an scf.forall over the 2 KV heads and the chunks of keys,
// each taking its 4 query heads (from 4 · kv head) against its KV head's
// tiles of the chunk, so that a tile is read from memory once for the 4.
// Each product prefetches, for the keys it reads, the same keys of the
// next tile (64 rows further, clamped to the last of the 4096) of the
// whole K and V, read as they are: Q·K per group of eight keys, P·V per
// key.
// CHECK-LABEL: func.func @gqa_decode
// CHECK-SAME: (%[[Q:.+]]: tensor<1x1x8x16xf32>, %[[K:.+]]: tensor<1x4096x2x16xf16>, %[[V:.+]]: tensor<1x4096x2x16xf16>, %[[POS:.+]]: tensor<1x1xi64>)
// CHECK: scf.forall (%[[KVH:.+]], %{{.+}}) in (2, %{{.+}})
// CHECK: %[[FIRST:.+]] = arith.muli %[[KVH]], %c4 : index
// CHECK: tensor.extract_slice %[[Q]][0, 0, %[[FIRST]], 0] [1, 1, 4, 16] [1, 1, 1, 1] : tensor<1x1x8x16xf32> to tensor<1x1x4x16xf32>
// CHECK: scf.for %[[S0:.+]] = %{{.+}} to %{{.+}} step %c64{{.*}} iter_args(
// CHECK: tensor.extract_slice %[[K]][0, %[[S0]], %[[KVH]], 0] [1, 64, 1, 16] [1, 1, 1, 1] : tensor<1x4096x2x16xf16> to tensor<1x64x1x16xf16>
// CHECK: %[[KBUF:.+]] = bufferization.to_buffer %[[K]] read_only : tensor<1x4096x2x16xf16> to memref<1x4096x2x16xf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: %[[VBUF:.+]] = bufferization.to_buffer %[[V]] read_only : tensor<1x4096x2x16xf16> to memref<1x4096x2x16xf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: scf.for %[[G:.+]] = %{{.+}} to %c64{{.*}} step %c8 iter_args(
// CHECK: %[[KEY:.+]] = arith.addi %[[S0]], %[[G]] : index
// CHECK: %[[AHEAD:.+]] = arith.addi %[[KEY]], %c64{{.*}} : index
// CHECK: %[[CLAMPED:.+]] = arith.minui %[[AHEAD]], %c4095{{.*}} : index
// CHECK: memref.prefetch %[[KBUF]][%{{.+}}, %[[CLAMPED]], %[[KVH]], %{{.+}}], read, locality<2>, data
// CHECK-COUNT-7: memref.prefetch %[[KBUF]]
// CHECK: vector.transfer_read %{{.+}} : tensor<1x64x1x16xf16>, vector<8xf16>
// CHECK: scf.for %[[PK:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (vector<16xf32>)
// CHECK: %[[PKEY:.+]] = arith.addi %[[S0]], %[[PK]] : index
// CHECK: %[[PAHEAD:.+]] = arith.addi %[[PKEY]], %c64{{.*}} : index
// CHECK: %[[PCLAMPED:.+]] = arith.minui %[[PAHEAD]], %c4095{{.*}} : index
// CHECK: memref.prefetch %[[VBUF]][%{{.+}}, %[[PCLAMPED]], %[[KVH]], %{{.+}}], read, locality<2>, data
// CHECK: vector.transfer_read %{{.+}} : tensor<1x64x1x16xf16>, vector<16xf16>
// CHECK: scf.forall.in_parallel
func.func @gqa_decode(%q: tensor<1x1x8x16xf32>, %k: tensor<1x4096x2x16xf16>, %v: tensor<1x4096x2x16xf16>, %p: tensor<1x1xi64>) -> tensor<1x1x8x16xf32> {
  %o = llm.attention %q, %k, %v, %p {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x1x8x16xf32>, tensor<1x4096x2x16xf16>, tensor<1x4096x2x16xf16>, tensor<1x1xi64> -> tensor<1x1x8x16xf32>
  return %o : tensor<1x1x8x16xf32>
}

// -----

// A decode step of MQA (one KV head): the chunks of keys are its
// parallelism, each iteration all 4 query heads against KV head 0.
// CHECK-LABEL: func.func @mqa_decode
// CHECK: scf.forall (%[[KVH:.+]], %{{.+}}) in (1, %{{.+}})
// CHECK: %[[FIRST:.+]] = arith.muli %[[KVH]], %c4 : index
// CHECK: tensor.extract_slice %{{.+}}[0, 0, %[[FIRST]], 0] [1, 1, 4, 16]
func.func @mqa_decode(%q: tensor<1x1x4x16xf32>, %k: tensor<1x4096x1x16xf16>, %v: tensor<1x4096x1x16xf16>, %p: tensor<1x1xi64>) -> tensor<1x1x4x16xf32> {
  %o = llm.attention %q, %k, %v, %p {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x1x4x16xf32>, tensor<1x4096x1x16xf16>, tensor<1x4096x1x16xf16>, tensor<1x1xi64> -> tensor<1x1x4x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// -----

// MQA, non-causal, f16, explicit scale, every extent dynamic: no positions
// reduction and no mask select; the loop runs to S = dim 1 of k; every
// query head reads KV head 0 (h floordiv 4); the scaled scores are written
// as they are.
// CHECK-LABEL: func.func @mqa_noncausal_dynamic
// CHECK-SAME: (%[[Q:.+]]: tensor<?x?x4x8xf16>, %[[K:.+]]: tensor<?x?x1x8xf16>, %[[V:.+]]: tensor<?x?x1x8xf16>) -> tensor<?x?x4x8xf16>
// CHECK-NOT: iterator_types = ["reduction", "reduction"]
// CHECK: %[[SCALE:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[S:.+]] = tensor.dim %[[K]], %{{.+}} : tensor<?x?x1x8xf16>
// CHECK: scf.forall (%[[H:.+]]) in (4)
// CHECK: %[[KVH:.+]] = arith.divui %[[H]], %c4{{.*}} : index
// CHECK: %[[SPAN:.+]] = arith.maxsi %[[S]], %{{.+}} : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c64 iter_args({{.+}}) -> (tensor<?x?x1xf32>, tensor<?x?x1xf32>, tensor<?x?x1x8xf32>)
// CHECK: tensor.extract_slice %[[K]][0, %{{.+}}, %[[KVH]], 0] [%{{.+}}, 64, 1, 8]
// The f16 tiles, read by T query rows, widened to f32 once (the f16
// queries a vector at a time).
// CHECK: linalg.generic {{.+}} outs(%{{.+}} : tensor<?x64x1x8xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: -> (tensor<?x?x1x64xf32>, tensor<?x?x1xf32>)
// CHECK: arith.extf %{{.+}} : vector<8xf16> to vector<8xf32>
// CHECK: %[[SV:.+]] = vector.broadcast %[[SCALE]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[XS:.+]] = arith.mulf %{{.+}}, %[[SV]] : vector<8xf32>
// CHECK-NEXT: vector.transfer_write %[[XS]]
// CHECK: scf.if
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @mqa_noncausal_dynamic(%q: tensor<?x?x4x8xf16>, %k: tensor<?x?x1x8xf16>, %v: tensor<?x?x1x8xf16>) -> tensor<?x?x4x8xf16> {
  %o = llm.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 1 : i64, scale = 0.5 : f64}
      : tensor<?x?x4x8xf16>, tensor<?x?x1x8xf16>, tensor<?x?x1x8xf16> -> tensor<?x?x4x8xf16>
  return %o : tensor<?x?x4x8xf16>
}

// -----

// Gemma-2's softcap (50) on the scaled score, before the causal mask:
// 50 · tanh(0.02 · score · scale), then the select.
// CHECK-LABEL: func.func @softcap_causal
// CHECK: %[[SCALE:.+]] = arith.constant 6.250000e-02 : f32
// CHECK: %[[SV:.+]] = vector.broadcast %[[SCALE]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[XS:.+]] = arith.mulf %{{.+}}, %[[SV]] : vector<8xf32>
// CHECK-NEXT: %[[INV:.+]] = arith.constant dense<2.000000e-02> : vector<8xf32>
// CHECK-NEXT: %[[CAP:.+]] = arith.constant dense<5.000000e+01> : vector<8xf32>
// CHECK-NEXT: %[[Z:.+]] = arith.mulf %[[XS]], %[[INV]] : vector<8xf32>
// CHECK-NEXT: %[[TANH:.+]] = math.tanh %[[Z]] : vector<8xf32>
// CHECK-NEXT: %[[CAPPED:.+]] = arith.mulf %[[TANH]], %[[CAP]] : vector<8xf32>
// CHECK: %[[VISIBLE:.+]] = arith.andi %{{.+}}, %{{.+}} : vector<8xi1>
// CHECK: arith.select %[[VISIBLE]], %[[CAPPED]], %{{.+}} : vector<8xi1>, vector<8xf32>
func.func @softcap_causal(%q: tensor<1x?x2x8xf32>, %k: tensor<1x512x1x8xf32>, %v: tensor<1x512x1x8xf32>, %p: tensor<1x?xi32>) -> tensor<1x?x2x8xf32> {
  %o = llm.attention %q, %k, %v, %p {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal, scale = 0.0625 : f64, softcap = 50.0 : f64}
      : tensor<1x?x2x8xf32>, tensor<1x512x1x8xf32>, tensor<1x512x1x8xf32>, tensor<1x?xi32> -> tensor<1x?x2x8xf32>
  return %o : tensor<1x?x2x8xf32>
}

// -----

// Sliding window W = 32 with positions: the loop starts at
// max(min(positions) - 31, 0), and the mask also requires p - key < 32.
// CHECK-LABEL: func.func @window
// CHECK: %[[RANGE:.+]]:2 = linalg.generic
// CHECK: %[[MINP:.+]] = tensor.extract %[[RANGE]]#0[] : tensor<i32>
// CHECK: %[[MINI:.+]] = arith.index_cast %[[MINP]] : i32 to index
// CHECK: %[[FIRST:.+]] = arith.subi %[[MINI]], %c31 : index
// CHECK: %[[BEGIN:.+]] = arith.maxsi %[[FIRST]], %c0{{.*}} : index
// CHECK: scf.for %[[S0:.+]] = %[[BEGIN]] to %{{.+}} step %c64
// A row at p sees the tile's keys [p − s0 − 31, p − s0 + 1), clamped to the
// tile.
// CHECK: %[[P:.+]] = arith.index_cast %{{.+}} : i32 to index
// CHECK: %[[OFF:.+]] = arith.subi %[[P]], %[[S0]] : index
// CHECK: %[[AFTER:.+]] = arith.addi %[[OFF]], %{{.+}} : index
// CHECK: arith.maxsi %[[AFTER]], %{{.+}} : index
// CHECK: %[[FIRSTK:.+]] = arith.subi %[[OFF]], %c31{{.*}} : index
// CHECK: %[[LOWK:.+]] = arith.maxsi %[[FIRSTK]], %{{.+}} : index
// CHECK: %[[BEGINK:.+]] = arith.minsi %[[LOWK]], %c64{{.*}} : index
// CHECK: arith.index_cast %[[BEGINK]] : index to i32
// CHECK: arith.cmpi sge, %{{.+}}, %{{.+}} : vector<8xi32>
func.func @window(%q: tensor<1x?x2x8xf32>, %k: tensor<1x512x1x8xf32>, %v: tensor<1x512x1x8xf32>, %p: tensor<1x?xi32>) -> tensor<1x?x2x8xf32> {
  %o = llm.attention %q, %k, %v, %p {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal, sliding_window = 32 : i64}
      : tensor<1x?x2x8xf32>, tensor<1x512x1x8xf32>, tensor<1x512x1x8xf32>, tensor<1x?xi32> -> tensor<1x?x2x8xf32>
  return %o : tensor<1x?x2x8xf32>
}
