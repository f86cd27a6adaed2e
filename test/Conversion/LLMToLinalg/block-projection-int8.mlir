// The decode GEMV of block-quantized weights on int8 dot products (llm-lower-to-linalg int8-dot=vnni|avx2): x is
// rounded to int8 once per call, in 32-element blocks (codes, the scale max|x|/127, and scale · Σ codes per 16
// elements); then per 32 weight elements one dot product of the weight's unsigned codes with x's codes (VPDPBUSD,
// or VPMADDUBSW + VPMADDWD), converted to f32 and accumulated with the weight's multiplier times x's scale, and
// the weight's addend times x's code sum in a scalar. The intrinsics are func.call'ed private declarations named
// llvm.x86.* (LLVM takes them for the intrinsics). The prefill GEMM and int8-dot=none keep the f32 kernels
// (block-projection.mlir).
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg="int8-dot=vnni parallel-min-weight-elements=0" --canonicalize --cse | FileCheck %s
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg="int8-dot=avx2" --canonicalize --cse | FileCheck %s --check-prefix=AVX2
// Through bufferization, buffer deallocation and the LLVM dialect: the declarations become llvm.func, the calls
// llvm.call of the intrinsic names.
// RUN: llmc-opt %s -split-input-file --llmc-cpu-to-llvm="int8-dot=vnni" | FileCheck %s --check-prefix=LLVM
// RUN: llmc-opt %s -split-input-file --llmc-cpu-to-llvm | FileCheck %s --check-prefix=NONE

// Q4_0, 2 blocks per row: x quantized first (outside the threads), then per block and weight row the f16 scale
// d and the addend -8d; the 16 code bytes split into low nibbles (elements 0-15) and high nibbles (16-31).
// CHECK: func.func private @llvm.x86.avx512.vpdpbusd.256(vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// CHECK-LABEL: func @gemv_q4_0
// CHECK-DAG: %[[LOW:.+]] = arith.constant dense<15> : vector<16xi8>
// CHECK-DAG: %[[FOUR:.+]] = arith.constant dense<4> : vector<16xi8>
// CHECK-DAG: %[[ZERO:.+]] = arith.constant dense<0> : vector<8xi32>
// CHECK-DAG: %[[MAXCODE:.+]] = arith.constant 1.270000e+02 : f32
// CHECK: %[[XQ:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x64xi8>
// CHECK: %[[XS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x2xf32>
// CHECK: %[[XSUM:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x4xf32>
// CHECK: scf.for
// CHECK: %[[AMAX:.+]] = vector.reduction <maxnumf>, %{{.+}} : vector<32xf32> into f32
// CHECK: arith.divf %[[AMAX]], %[[MAXCODE]] : f32
// CHECK: %[[R:.+]] = math.roundeven %{{.+}} : vector<32xf32>
// CHECK: %[[I:.+]] = arith.fptosi %[[R]] : vector<32xf32> to vector<32xi32>
// CHECK: %[[B:.+]] = arith.trunci %[[I]] : vector<32xi32> to vector<32xi8>
// CHECK: vector.transfer_write %[[B]], %[[XQ]]
// CHECK: vector.reduction <add>, %{{.+}} : vector<16xi32> into i32
// CHECK: scf.parallel
// CHECK: scf.for {{.+}} iter_args({{.+}}) -> (vector<8xf32>, vector<8xf32>, f32, f32)
// CHECK: %[[XV:.+]] = vector.transfer_read %[[XQ]][%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true]} : memref<1x64xi8>, vector<32xi8>
// CHECK: %[[DX:.+]] = memref.load %[[XS]]
// CHECK: %[[Q:.+]] = vector.transfer_read %{{.+}} : tensor<4x36xi8>, vector<16xi8>
// CHECK: %[[QL:.+]] = arith.andi %[[Q]], %[[LOW]] : vector<16xi8>
// CHECK: %[[QH:.+]] = arith.shrui %[[Q]], %[[FOUR]] : vector<16xi8>
// CHECK: %[[CODES:.+]] = vector.shuffle %[[QL]], %[[QH]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] : vector<16xi8>, vector<16xi8>
// CHECK: %[[DOT:.+]] = {{(func\.)?}}call @llvm.x86.avx512.vpdpbusd.256(%[[ZERO]], %[[CODES]], %[[XV]]) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// CHECK: %[[DOTF:.+]] = arith.sitofp %[[DOT]] : vector<8xi32> to vector<8xf32>
// CHECK: %[[M:.+]] = arith.mulf %{{.+}}, %[[DX]] : f32
// CHECK: %[[MV:.+]] = vector.broadcast %[[M]] : f32 to vector<8xf32>
// CHECK: math.fma %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK: vector.fma %[[DOTF]], %[[MV]], %{{.+}} : vector<8xf32>
// CHECK: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<8xf32> into f32
// AVX2-LABEL: func @gemv_q4_0
// AVX2: %[[P:.+]] = {{(func\.)?}}call @llvm.x86.avx2.pmadd.ub.sw(%{{.+}}, %{{.+}}) : (vector<32xi8>, vector<32xi8>) -> vector<16xi16>
// AVX2: {{(func\.)?}}call @llvm.x86.avx2.pmadd.wd(%[[P]], %{{.+}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// LLVM: llvm.func @llvm.x86.avx512.vpdpbusd.256(vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// LLVM-LABEL: llvm.func @gemv_q4_0
// LLVM: llvm.call @llvm.x86.avx512.vpdpbusd.256(%{{.+}}, %{{.+}}, %{{.+}}) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// NONE-NOT: llvm.x86
func.func @gemv_q4_0(%x: tensor<1x1x64xf32>, %w: tensor<4x64x!llm.block<q4_0>>) -> tensor<1x1x4xf32> {
  %y = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<4x64x!llm.block<q4_0>> -> tensor<1x1x4xf32>
  return %y : tensor<1x1x4xf32>
}

// -----

// Q8_0's codes are signed: |w| times x with w's sign (VPMADDUBSW's unsigned operand; |−128| reads as 128), and
// no addend.
// CHECK-LABEL: func @gemv_q8_0
// CHECK: %[[W:.+]] = vector.transfer_read %{{.+}} : tensor<2x34xi8>, vector<32xi8>
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[W]], %{{.+}} : vector<32xi8>
// CHECK: %[[SX:.+]] = arith.select %[[NEG]], %{{.+}}, %{{.+}} : vector<32xi1>, vector<32xi8>
// CHECK: %[[ABS:.+]] = math.absi %[[W]] : vector<32xi8>
// CHECK: {{(func\.)?}}call @llvm.x86.avx512.vpdpbusd.256(%{{.+}}, %[[ABS]], %[[SX]])
// CHECK-NOT: math.fma
// CHECK: return
func.func @gemv_q8_0(%x: tensor<1x1x32xf32>, %w: tensor<2x32x!llm.block<q8_0>>) -> tensor<1x1x2xf32> {
  %y = llm.linear %x, %w : tensor<1x1x32xf32>, tensor<2x32x!llm.block<q8_0>> -> tensor<1x1x2xf32>
  return %y : tensor<1x1x2xf32>
}

// -----

// Q6_K: 16-element scale runs, so each 32-element dot meets two multipliers (lanes 0-3 and 4-7) and two of x's
// 16-element sums; the prefill GEMM (dynamic rows) stays on the f32 kernels.
// CHECK-LABEL: func @gemv_q6_k
// CHECK: %[[LO:.+]] = vector.broadcast %{{.+}} : f32 to vector<4xf32>
// CHECK: %[[HI:.+]] = vector.broadcast %{{.+}} : f32 to vector<4xf32>
// CHECK: %[[MV:.+]] = vector.shuffle %[[LO]], %[[HI]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>
// CHECK: vector.fma %{{.+}}, %[[MV]], %{{.+}} : vector<8xf32>
// CHECK-LABEL: func @gemm_q6_k
// CHECK-NOT: llvm.x86
// CHECK: return
func.func @gemv_q6_k(%x: tensor<1x1x256xf32>, %w: tensor<3x256x!llm.block<q6_k>>) -> tensor<1x1x3xf32> {
  %y = llm.linear %x, %w : tensor<1x1x256xf32>, tensor<3x256x!llm.block<q6_k>> -> tensor<1x1x3xf32>
  return %y : tensor<1x1x3xf32>
}
func.func @gemm_q6_k(%x: tensor<1x?x256xf32>, %w: tensor<3x256x!llm.block<q6_k>>) -> tensor<1x?x3xf32> {
  %y = llm.linear %x, %w : tensor<1x?x256xf32>, tensor<3x256x!llm.block<q6_k>> -> tensor<1x?x3xf32>
  return %y : tensor<1x?x3xf32>
}
