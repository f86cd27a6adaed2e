// With bf16-dot (llmc sets it for a CPU with AVX-512 BF16), the prefill GEMM's panels of bf16 weights multiply in
// VDPBF16PS: each panel of 96 weight rows is packed in pairs of K (row p of the panel holds every weight row's
// elements 2p and 2p + 1 side by side: 16 rows × 32 elements read as 16 vectors of 16 pairs, transposed in
// registers, stored as 16 rows of the panel; K % 32 read masked, so an odd K's last pair ends in a zero), x's
// rows are rounded to bf16 once per projection, by the calling thread before the threads start (an odd K's padding
// column written from the masked read's zeros), and each K pair of the 4 × 6 tile broadcasts each x row's pair (32
// bits) into 6 VDPBF16PS, called as the LLVM intrinsic. f16 weights, AVX2's 8-lane vectors and bf16-dot=false keep the f32 FMA panels (gemm.mlir).
// RUN: llmc-opt %s -split-input-file "--llm-lower-to-linalg=bf16-dot=true parallel-min-weight-elements=0" --canonicalize | FileCheck %s
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg=parallel-min-weight-elements=0 --canonicalize | FileCheck %s --check-prefix=OFF
// RUN: llmc-opt %s -split-input-file "--llm-lower-to-linalg=bf16-dot=true parallel-min-weight-elements=0 vector-register-bits=256 vector-registers=16" --canonicalize | FileCheck %s --check-prefix=OFF

// OFF-NOT: dpbf16
// CHECK: func.func private @llvm.x86.avx512bf16.dpbf16ps.512(vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// CHECK-LABEL: func @pair_panel
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x67xf32>, %[[W:.+]]: tensor<96x67xbf16>)
// CHECK: %[[ROWS:.+]] = tensor.dim %{{.+}}, %c0 : tensor<?x67xf32>
// CHECK: %[[XB:.+]] = memref.alloc(%[[ROWS]]) {alignment = 64 : i64} : memref<?x68xbf16>
// CHECK: scf.for %[[M:.+]] = %c0 to %[[ROWS]] step %c1 {
// CHECK: scf.for %[[K:.+]] = %c0 to %c64 step %c16 {
// CHECK: %[[XV:.+]] = vector.transfer_read %{{.+}}[%[[M]], %[[K]]], %{{.+}} {in_bounds = [true]} : tensor<?x67xf32>, vector<16xf32>
// CHECK: %[[XR:.+]] = arith.truncf %[[XV]] : vector<16xf32> to vector<16xbf16>
// CHECK: vector.store %[[XR]], %[[XB]][%[[M]], %[[K]]] : memref<?x68xbf16>, vector<16xbf16>
// CHECK: %[[XT:.+]] = vector.transfer_read %{{.+}}[%[[M]], %c64], %{{.+}}, %{{.+}} {in_bounds = [true]} : tensor<?x67xf32>, vector<16xf32>
// CHECK: %[[XTR:.+]] = arith.truncf %[[XT]] : vector<16xf32> to vector<16xbf16>
// CHECK: vector.transfer_write %[[XTR]], %[[XB]][%[[M]], %c64] : vector<16xbf16>, memref<?x68xbf16>
// CHECK: scf.parallel (%[[M0:.+]]) = (%c0) to (%{{.+}}) step (%c128) {
// CHECK: %[[PANEL:.+]] = memref.alloc() {alignment = 64 : i64} : memref<34x192xbf16>
// CHECK: scf.for %[[K0:.+]] = %c0 to %c64 step %c32 {
// CHECK: %[[R0:.+]] = vector.transfer_read %[[W]][%c0, %[[K0]]], %{{.+}} {in_bounds = [true]} : tensor<96x67xbf16>, vector<32xbf16>
// CHECK: vector.bitcast %[[R0]] : vector<32xbf16> to vector<16xi32>
// CHECK-COUNT-15: vector.transfer_read %[[W]]
// CHECK: vector.shuffle
// CHECK: %[[P0:.+]] = arith.divui %[[K0]], %c2 : index
// CHECK: %[[COLUMN0:.+]] = vector.bitcast %{{.+}} : vector<16xi32> to vector<32xbf16>
// CHECK: vector.store %[[COLUMN0]], %[[PANEL]][%[[P0]], %c0] : memref<34x192xbf16>, vector<32xbf16>
// CHECK: %[[TAIL:.+]] = vector.constant_mask [3] : vector<32xi1>
// CHECK: vector.transfer_read %[[W]][%c0, %c64], %{{.+}}, %[[TAIL]] {in_bounds = [true]} : tensor<96x67xbf16>, vector<32xbf16>
// CHECK: vector.store %{{.+}}, %[[PANEL]][%c32, %c0] : memref<34x192xbf16>, vector<32xbf16>
// CHECK: vector.store %{{.+}}, %[[PANEL]][%c33, %c0] : memref<34x192xbf16>, vector<32xbf16>
// CHECK-NOT: %[[PANEL]][%c34
// CHECK: vector.store %{{.+}}, %[[PANEL]][%c33, %c160] : memref<34x192xbf16>, vector<32xbf16>
// CHECK: scf.for %[[T:.+]] = %[[M0]] to %{{.+}} step %c4 {
// CHECK: scf.for %[[P:.+]] = %c0 to %c34 step %c1 iter_args({{.+}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[W0:.+]] = vector.load %[[PANEL]][%[[P]], %c0] : memref<34x192xbf16>, vector<32xbf16>
// CHECK-COUNT-5: vector.load %[[PANEL]][%[[P]], %c{{[0-9]+}}] : memref<34x192xbf16>, vector<32xbf16>
// CHECK: %[[PK:.+]] = arith.muli %[[P]], %c2 : index
// CHECK: %[[PAIR:.+]] = vector.load %[[XB]][%[[T]], %[[PK]]] : memref<?x68xbf16>, vector<2xbf16>
// CHECK: %[[BITS:.+]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// CHECK: %[[LANE:.+]] = vector.extract %[[BITS]][0] : i32 from vector<1xi32>
// CHECK: %[[SPLAT:.+]] = vector.broadcast %[[LANE]] : i32 to vector<16xi32>
// CHECK: %[[XPAIRS:.+]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// CHECK: func.call @llvm.x86.avx512bf16.dpbf16ps.512(%{{.+}}, %[[XPAIRS]], %[[W0]]) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// CHECK-COUNT-5: func.call @llvm.x86.avx512bf16.dpbf16ps.512(%{{.+}}, %[[XPAIRS]], %{{.+}})
// CHECK-COUNT-18: func.call @llvm.x86.avx512bf16.dpbf16ps.512
func.func @pair_panel(%x: tensor<1x?x67xf32>, %w: tensor<96x67xbf16>) -> tensor<1x?x96xf32> {
  %0 = llm.linear %x, %w : tensor<1x?x67xf32>, tensor<96x67xbf16> -> tensor<1x?x96xf32>
  return %0 : tensor<1x?x96xf32>
}

// -----

// f16 weights keep the f32 panels (x exact) with bf16-dot.
// CHECK-LABEL: func @f16_panel
// CHECK-NOT: dpbf16
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<64x96xf32>
// CHECK-NOT: dpbf16
// CHECK: return
func.func @f16_panel(%x: tensor<1x?x64xf32>, %w: tensor<96x64xf16>) -> tensor<1x?x96xf32> {
  %0 = llm.linear %x, %w : tensor<1x?x64xf32>, tensor<96x64xf16> -> tensor<1x?x96xf32>
  return %0 : tensor<1x?x96xf32>
}

// -----

// bf16 weights stored in interleaved groups of pairs (`columns = 2`): the
// panels of 3 groups are read as stored, each K pair's step one
// vector<32xbf16> per group (the VDPBF16PS operand), nothing packed; x is
// rounded to bf16 once as for the packed panels, and the 8 × 3 tile runs
// 24 VDPBF16PS per pair.
// CHECK-LABEL: func @interleaved_pairs
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x64xf32>, %[[W:.+]]: tensor<3x1024xbf16>)
// CHECK: %[[XP:.+]] = memref.alloc(%{{.+}}) {alignment = 64 : i64} : memref<?x64xbf16>
// CHECK: arith.truncf %{{.+}} : vector<16xf32> to vector<16xbf16>
// CHECK-NOT: memref.alloc() {{.*}}bf16
// CHECK: scf.for %[[P:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.+}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: %[[G0:.+]] = vector.transfer_read %[[W]][%{{.+}}, %[[COLUMN:.+]]], %{{.+}} {in_bounds = [true]} : tensor<3x1024xbf16>, vector<32xbf16>
// CHECK: %[[G1:.+]] = vector.transfer_read %[[W]][%{{.+}}, %[[COLUMN]]], %{{.+}} {in_bounds = [true]} : tensor<3x1024xbf16>, vector<32xbf16>
// CHECK: %[[G2:.+]] = vector.transfer_read %[[W]][%{{.+}}, %[[COLUMN]]], %{{.+}} {in_bounds = [true]} : tensor<3x1024xbf16>, vector<32xbf16>
// CHECK: vector.load %[[XP]][%{{.+}}, %{{.+}}] : memref<?x64xbf16>, vector<2xbf16>
// CHECK: call @llvm.x86.avx512bf16.dpbf16ps.512(%{{.+}}, %[[XB:.+]], %[[G0]])
// CHECK: call @llvm.x86.avx512bf16.dpbf16ps.512(%{{.+}}, %[[XB]], %[[G1]])
// CHECK: call @llvm.x86.avx512bf16.dpbf16ps.512(%{{.+}}, %[[XB]], %[[G2]])
// CHECK-COUNT-21: call @llvm.x86.avx512bf16.dpbf16ps.512
// CHECK: scf.yield
func.func @interleaved_pairs(%x: tensor<1x?x64xf32>, %w: tensor<48x64x!llm.interleaved<bf16, rows = 16, columns = 2>>) -> tensor<1x?x48xf32> {
  %y = llm.linear %x, %w : tensor<1x?x64xf32>, tensor<48x64x!llm.interleaved<bf16, rows = 16, columns = 2>> -> tensor<1x?x48xf32>
  return %y : tensor<1x?x48xf32>
}
