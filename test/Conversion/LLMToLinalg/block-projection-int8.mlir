// The decode GEMV of block-quantized weights on int8 dot products (llm-lower-to-linalg int8-dot=vnni|avx2): x is
// rounded to int8 once per call, in 32-element blocks, for the K-quants in 256-element ones (codes, the scale
// max|x|/127, and scale · Σ codes per 16 elements); then per 32 weight elements one dot product of the weight's unsigned codes with x's codes (VPDPBUSD,
// or VPMADDUBSW + VPMADDWD); a weight in the file's rows is one row per tile (one sequential stream per thread),
// its dot converted to f32 and accumulated with the row's multiplier times x's scale, its addend times x's code sum
// in a scalar accumulator; an interleaved weight is a group of 8 rows per tile. The intrinsics are func.call'ed private declarations named
// llvm.x86.* (LLVM takes them for the intrinsics). The prefill GEMM (last case) decodes each tile of 16 weight
// rows once per x row block into repacked codes and multiplies them as an outer product. int8-dot=none keeps the
// f32 kernels (block-projection.mlir).
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg="int8-dot=vnni parallel-min-weight-elements=0" --canonicalize --cse | FileCheck %s
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg="int8-dot=avx2" --canonicalize --cse | FileCheck %s --check-prefix=AVX2
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg="int8-dot=avx2 vector-register-bits=256 vector-registers=16 parallel-min-weight-elements=0" --canonicalize --cse | FileCheck %s --check-prefix=KROWS
// Through bufferization, buffer deallocation and the LLVM dialect: the declarations become llvm.func, the calls
// llvm.call of the intrinsic names.
// RUN: llmc-opt %s -split-input-file --llmc-cpu-to-llvm="int8-dot=vnni" | FileCheck %s --check-prefix=LLVM
// RUN: llmc-opt %s -split-input-file --llmc-cpu-to-llvm | FileCheck %s --check-prefix=NONE

// Q4_0 in the file's rows, 2 blocks per row: x quantized first (outside the threads), then one weight row per
// tile (a vector accumulator for the products, a scalar one for the addends), per block the f16 scale d and the
// addend -8d; the 16 code bytes split into low nibbles (elements 0-15) and high nibbles (16-31). The row's
// blocks 16 KiB ahead are prefetched into L2: 456 rows of 36 bytes, clamped to the last row.
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
// CHECK: scf.parallel (%[[ROW:.+]]) = (%{{.+}}) to (%c8) step (%c1) {
// CHECK: %[[ACC:.+]]:2 = scf.for {{.+}} iter_args(%[[A:.+]] = %{{.+}}, %[[OFF:.+]] = %{{.+}}) -> (vector<8xf32>, f32) {
// CHECK: %[[D:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: %[[ADDEND:.+]] = arith.mulf %[[D]], %{{.+}} : f32
// CHECK: %[[AHEAD:.+]] = arith.addi %[[ROW]], %c456 : index
// CHECK: %[[PROW:.+]] = arith.minui %[[AHEAD]], %c7 : index
// CHECK: memref.prefetch %{{.+}}[%[[PROW]], %{{.+}}], read, locality<2>, data : memref<8x36xi8>
// CHECK: %[[XV:.+]] = vector.transfer_read %[[XQ]][%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true]} : memref<1x64xi8>, vector<32xi8>
// CHECK: %[[DX:.+]] = memref.load %[[XS]]
// CHECK: %[[Q:.+]] = vector.transfer_read %{{.+}}[%[[ROW]], %{{.+}}], %{{.+}} : tensor<8x36xi8>, vector<16xi8>
// CHECK: %[[QL:.+]] = arith.andi %[[Q]], %[[LOW]] : vector<16xi8>
// CHECK: %[[QH:.+]] = arith.shrui %[[Q]], %[[FOUR]] : vector<16xi8>
// CHECK: %[[CODES:.+]] = vector.shuffle %[[QL]], %[[QH]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] : vector<16xi8>, vector<16xi8>
// CHECK: %[[DOT:.+]] = {{(func\.)?}}call @llvm.x86.avx512.vpdpbusd.256(%[[ZERO]], %[[CODES]], %[[XV]]) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// CHECK-NOT: vpdpbusd
// CHECK: %[[DOTF:.+]] = arith.sitofp %[[DOT]] : vector<8xi32> to vector<8xf32>
// The row's multiplier d times x's scale; its addend -8d times x's code sum of the block.
// CHECK: %[[M:.+]] = arith.mulf %[[D]], %[[DX]] : f32
// CHECK: %[[MV:.+]] = vector.broadcast %[[M]] : f32 to vector<8xf32>
// CHECK: %[[OFF1:.+]] = math.fma %[[ADDEND]], %{{.+}}, %[[OFF]] : f32
// CHECK: %[[A1:.+]] = vector.fma %[[DOTF]], %[[MV]], %[[A]] : vector<8xf32>
// CHECK: scf.yield %[[A1]], %[[OFF1]] : vector<8xf32>, f32
// After the loop: the products' lanes summed, plus the addends.
// CHECK: %[[SUM:.+]] = vector.reduction <add>, %[[ACC]]#0 fastmath<reassoc> : vector<8xf32> into f32
// CHECK: %[[Y:.+]] = arith.addf %[[SUM]], %[[ACC]]#1 : f32
// CHECK: memref.store %[[Y]], %{{.+}}[%{{.+}}, %[[ROW]]] : memref<1x8xf32>
// AVX2-LABEL: func @gemv_q4_0
// AVX2: %[[P:.+]] = {{(func\.)?}}call @llvm.x86.avx2.pmadd.ub.sw(%{{.+}}, %{{.+}}) : (vector<32xi8>, vector<32xi8>) -> vector<16xi16>
// AVX2: {{(func\.)?}}call @llvm.x86.avx2.pmadd.wd(%[[P]], %{{.+}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// LLVM: llvm.func @llvm.x86.avx512.vpdpbusd.256(vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// LLVM-LABEL: llvm.func @gemv_q4_0
// LLVM: llvm.call @llvm.x86.avx512.vpdpbusd.256(%{{.+}}, %{{.+}}, %{{.+}}) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// NONE-NOT: llvm.x86
func.func @gemv_q4_0(%x: tensor<1x1x64xf32>, %w: tensor<8x64x!llm.block<q4_0>>) -> tensor<1x1x8xf32> {
  %y = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<8x64x!llm.block<q4_0>> -> tensor<1x1x8xf32>
  return %y : tensor<1x1x8xf32>
}

// -----

// Q8_0's codes are signed: |w| times x with w's sign (VPSIGNB; |w| is VPMADDUBSW's unsigned operand, |−128| reads as 128), and
// no addend. In the file's rows it prefetches like the other formats (prefetchesWeightRows).
// CHECK-LABEL: func @gemv_q8_0
// CHECK: memref.prefetch
// CHECK: %[[W:.+]] = vector.transfer_read %{{.+}} : tensor<2x34xi8>, vector<32xi8>
// CHECK: %[[SX:.+]] = {{(func\.)?}}call @llvm.x86.avx2.psign.b(%{{.+}}, %[[W]]) : (vector<32xi8>, vector<32xi8>) -> vector<32xi8>
// CHECK: %[[ABS:.+]] = math.absi %[[W]] : vector<32xi8>
// CHECK: {{(func\.)?}}call @llvm.x86.avx512.vpdpbusd.256(%{{.+}}, %[[ABS]], %[[SX]])
// CHECK-NOT: math.fma
// CHECK: return
func.func @gemv_q8_0(%x: tensor<1x1x32xf32>, %w: tensor<2x32x!llm.block<q8_0>>) -> tensor<1x1x2xf32> {
  %y = llm.linear %x, %w : tensor<1x1x32xf32>, tensor<2x32x!llm.block<q8_0>> -> tensor<1x1x2xf32>
  return %y : tensor<1x1x2xf32>
}

// -----

// Q6_K: 16 scale runs per 256-element block. x is rounded with one scale per 256 elements (the max over the
// block's eight 32-element chunks), so that the runs' products add up as integers: per block and weight row the
// 16 int8 scales read once, converted to f32 for the addends (−32·d·sc, times x's 16 code sums of the block in
// two vector FMAs into the row's accumulator) and truncated to int16 as pair weights; per 32 elements one
// VPMADDUBSW of the codes with x's, then one VPMADDWD against the scales of the chunk's two runs (pairs 0-7: run
// 2c, pairs 8-15: run 2c + 1), added in int32 over the block; per block one conversion and one FMA with d times
// x's scale. No scalar addend sums.
// CHECK-LABEL: func @gemv_q6_k
// CHECK-DAG: %[[NEG32:.+]] = arith.constant dense<-3.200000e+01> : vector<16xf32>
// CHECK: %[[XSCALES:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x1xf32>
// CHECK-COUNT-8: vector.reduction <maxnumf>
// CHECK-NOT: vector.reduction <maxnumf>
// CHECK: memref.store %{{.+}}, %[[XSCALES]][%c0, %c0] : memref<1x1xf32>
// CHECK: scf.parallel
// CHECK: %[[XSUMS:.+]] = vector.transfer_read %{{.+}} : memref<1x16xf32>, vector<16xf32>
// CHECK: %[[SC:.+]] = vector.transfer_read %{{.+}}[%{{.+}}, %c192], %{{.+}} : tensor<5x210xi8>, vector<16xi8>
// CHECK: %[[SCI:.+]] = arith.extsi %[[SC]] : vector<16xi8> to vector<16xi32>
// CHECK: %[[D:.+]] = vector.broadcast %[[DS:.+]] : f32 to vector<16xf32>
// CHECK: %[[SCF:.+]] = arith.sitofp %[[SCI]] : vector<16xi32> to vector<16xf32>
// CHECK: %[[MULT:.+]] = arith.mulf %[[SCF]], %[[D]] : vector<16xf32>
// CHECK: %[[ADD:.+]] = arith.mulf %[[MULT]], %[[NEG32]] : vector<16xf32>
// CHECK: %[[S0:.+]] = vector.extract_strided_slice %[[XSUMS]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK: %[[A0:.+]] = vector.extract_strided_slice %[[ADD]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK: %[[OFF0:.+]] = vector.fma %[[A0]], %[[S0]], %{{.+}} : vector<8xf32>
// CHECK: %[[S1:.+]] = vector.extract_strided_slice %[[XSUMS]] {offsets = [8], sizes = [8], strides = [1]}
// CHECK: %[[A1:.+]] = vector.extract_strided_slice %[[ADD]] {offsets = [8], sizes = [8], strides = [1]}
// CHECK: %[[OFF:.+]] = vector.fma %[[A1]], %[[S1]], %[[OFF0]] : vector<8xf32>
// CHECK: %[[SC16:.+]] = arith.extsi %[[SC]] : vector<16xi8> to vector<16xi16>
// CHECK: %[[W0:.+]] = vector.shuffle %[[SC16]], %[[SC16]] [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1] : vector<16xi16>, vector<16xi16>
// CHECK: %[[P0:.+]] = {{(func\.)?}}call @llvm.x86.avx2.pmadd.ub.sw(%{{.+}}, %{{.+}}) : (vector<32xi8>, vector<32xi8>) -> vector<16xi16>
// CHECK: %[[DOT0:.+]] = {{(func\.)?}}call @llvm.x86.avx2.pmadd.wd(%[[P0]], %[[W0]]) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// CHECK: %[[W1:.+]] = vector.shuffle %[[SC16]], %[[SC16]] [2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3] : vector<16xi16>, vector<16xi16>
// CHECK: %[[P1:.+]] = {{(func\.)?}}call @llvm.x86.avx2.pmadd.ub.sw(%{{.+}}, %{{.+}})
// CHECK: %[[DOT1:.+]] = {{(func\.)?}}call @llvm.x86.avx2.pmadd.wd(%[[P1]], %[[W1]])
// CHECK: arith.addi %[[DOT0]], %[[DOT1]] : vector<8xi32>
// CHECK: vector.shuffle %[[SC16]], %[[SC16]] [14, 14, 14, 14, 14, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15]
// CHECK: %[[DOTS:.+]] = arith.addi %{{.+}}, %{{.+}} : vector<8xi32>
// CHECK: %[[XSCALE:.+]] = memref.load %[[XSCALES]][%c0, %c0] : memref<1x1xf32>
// CHECK: %[[DX:.+]] = arith.mulf %[[DS]], %[[XSCALE]] : f32
// CHECK: %[[DXV:.+]] = vector.broadcast %[[DX]] : f32 to vector<8xf32>
// CHECK: %[[F:.+]] = arith.sitofp %[[DOTS]] : vector<8xi32> to vector<8xf32>
// CHECK: vector.fma %[[F]], %[[DXV]], %[[OFF]] : vector<8xf32>
// CHECK-NOT: vpdpbusd
// CHECK-NOT: math.fma
// CHECK: vector.reduction <add>
func.func @gemv_q6_k(%x: tensor<1x1x256xf32>, %w: tensor<5x256x!llm.block<q6_k>>) -> tensor<1x1x5xf32> {
  %y = llm.linear %x, %w : tensor<1x1x256xf32>, tensor<5x256x!llm.block<q6_k>> -> tensor<1x1x5xf32>
  return %y : tensor<1x1x5xf32>
}

// -----

// Q4_K: the 8 scales and mins packed in 12 bytes are unpacked in vector ops (BlockDecoder::getIntegerScales),
// one lane per sub-block: one read of the 12 bytes, unpacked once for both uses; per vector the low 6 (lanes 0-3) or 4 (lanes 4-7) bits of one
// byte per lane, or'ed with the top two bits of another (lanes 4-7 only). The mins are converted and times −dmin
// (addends, into the row's lanes with x's 8 code sums); the scales, truncated to int16, weight each 32-element
// chunk's pairs with its sub-block's scale (one shuffle) in VPMADDWD. No scalar unpacking, no from_elements.
// With 32 vector registers (AVX-512, this file's default) a tile is 2 weight rows (rows 0-3 in the parallel
// loop, row 4 after it); with 16 (AVX2) 1 row (KROWS).
// KROWS-LABEL: func @gemv_q4_k
// KROWS: scf.parallel (%{{.+}}) = (%c0) to (%c5) step (%c1)
// KROWS-COUNT-1: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<8xf32> into f32
// KROWS-NOT: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<8xf32> into f32
// KROWS: return
// CHECK-LABEL: func @gemv_q4_k
// CHECK-DAG: %[[SHIFT_MINS:.+]] = arith.constant dense<[0, 0, 0, 0, 4, 4, 4, 4]> : vector<8xi32>
// CHECK-DAG: %[[LOW:.+]] = arith.constant dense<[63, 63, 63, 63, 15, 15, 15, 15]> : vector<8xi32>
// CHECK-DAG: %[[TOP:.+]] = arith.constant dense<[0, 0, 0, 0, 3, 3, 3, 3]> : vector<8xi32>
// CHECK: scf.parallel (%{{.+}}) = (%c0) to (%c4) step (%c2)
// CHECK: %[[PACKED:.+]] = vector.transfer_read %{{.+}}[%{{.+}}, %c4], %{{.+}} : tensor<5x144xi8>, vector<12xi8>
// CHECK-NOT: vector<12xi8>
// CHECK: vector.shuffle %[[PACKED]], %[[PACKED]] [0, 1, 2, 3, 8, 9, 10, 11]
// CHECK: arith.andi %{{.+}}, %[[LOW]] : vector<8xi32>
// CHECK: vector.shuffle %[[PACKED]], %[[PACKED]] [0, 1, 2, 3, 0, 1, 2, 3]
// CHECK: arith.andi %{{.+}}, %[[TOP]] : vector<8xi32>
// CHECK: %[[SCALES:.+]] = arith.ori %{{.+}}, %{{.+}} : vector<8xi32>
// CHECK: vector.shuffle %[[PACKED]], %[[PACKED]] [4, 5, 6, 7, 8, 9, 10, 11]
// CHECK: arith.shrui %{{.+}}, %[[SHIFT_MINS]] : vector<8xi32>
// CHECK: vector.shuffle %[[PACKED]], %[[PACKED]] [4, 5, 6, 7, 4, 5, 6, 7]
// CHECK: %[[MINS:.+]] = arith.sitofp %{{.+}} : vector<8xi32> to vector<8xf32>
// CHECK: %[[M:.+]] = arith.mulf %[[MINS]], %{{.+}} : vector<8xf32>
// CHECK: %[[ADD:.+]] = arith.negf %[[M]] : vector<8xf32>
// CHECK: vector.fma %[[ADD]], %{{.+}}, %{{.+}} : vector<8xf32>
// CHECK: %[[SC16:.+]] = arith.trunci %[[SCALES]] : vector<8xi32> to vector<8xi16>
// CHECK: %[[W0:.+]] = vector.shuffle %[[SC16]], %[[SC16]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<8xi16>, vector<8xi16>
// CHECK: {{(func\.)?}}call @llvm.x86.avx2.pmadd.wd(%{{.+}}, %[[W0]])
// CHECK: vector.shuffle %[[SC16]], %[[SC16]] [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]
// CHECK-NOT: vector.from_elements
// CHECK: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<8xf32> into f32
// CHECK: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<8xf32> into f32
// CHECK: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<8xf32> into f32
// CHECK: memref.store %{{.+}}, %{{.+}}[%c0, %c4] : memref<1x5xf32>
// CHECK-NOT: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<8xf32> into f32
// CHECK: return
func.func @gemv_q4_k(%x: tensor<1x1x256xf32>, %w: tensor<5x256x!llm.block<q4_k>>) -> tensor<1x1x5xf32> {
  %y = llm.linear %x, %w : tensor<1x1x256xf32>, tensor<5x256x!llm.block<q4_k>> -> tensor<1x1x5xf32>
  return %y : tensor<1x1x5xf32>
}

// -----

// The prefill GEMM (dynamic rows): x quantized once (per 256 elements for this K-quant); per (x row block, tile
// of 16 weight rows) the tile decoded per panel of 8 rows: each 32-element chunk's codes of the 8 rows (8 words
// of 4 codes) transposed in registers and stored as 8 lines of the repacked codes, 64 lines (K/4) × 16 rows of 4
// bytes; per 16 elements the rows' int16 scales and f32 addends (Q6_K: value = code · d·sc − 32·d·sc), per block
// the rows' d. Then per tile of 4 x rows, per chunk of 32 elements and K group of 4, each x row's 4 codes
// broadcast into a vector<32xi8> against the two 8-row panels. With VNNI, VPDPBUSD sums each 16-element scale
// run's 4 groups in int32 (a fresh sum per run), and the run's sums are multiplied by the panel rows' scales
// (sign-extended to i32) and added over the block (8 chunks); without it, VPMADDUBSW, then VPMADDWD against
// the rows' scales of the group's run (each row's two pairs). Per 16 elements the addends times x's code sum;
// per block one conversion and one FMA with the rows' d times x's scale. 4 × 2 panels: 8 f32 and 8 int32
// accumulators.
// CHECK-LABEL: func @gemm_q6_k
// CHECK: %[[XQ:.+]] = memref.alloc(%{{.+}}) {alignment = 64 : i64} : memref<?x256xi8>
// CHECK: scf.parallel
// CHECK: %[[CODES:.+]] = memref.alloc() {alignment = 64 : i64} : memref<64x16xi32>
// CHECK: %[[RUNW:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x16xi16>
// CHECK: %[[DS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x16xf32>
// CHECK: %[[ADD:.+]] = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32>
// CHECK: %[[T0:.+]] = vector.shuffle %{{.+}}, %{{.+}} [0, 8, 1, 9, 2, 10, 3, 11] : vector<8xi32>, vector<8xi32>
// CHECK-COUNT-23: vector.shuffle %{{.+}}, %{{.+}} [{{[0-9, ]+}}] : vector<8xi32>, vector<8xi32>
// CHECK-COUNT-8: vector.store %{{.+}}, %[[CODES]][%{{.+}}, %c0] : memref<64x16xi32>, vector<8xi32>
// CHECK: memref.store %{{.+}}, %[[RUNW]][%{{.+}}, %{{.+}}] : memref<16x16xi16>
// CHECK: scf.for {{.+}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>)
// CHECK: %[[S0:.+]] = vector.transfer_read %[[RUNW]][%[[R16:.+]], %c0], {{.+}} : memref<16x16xi16>, vector<8xi16>
// CHECK: %[[W0:.+]] = arith.extsi %[[S0]] : vector<8xi16> to vector<8xi32>
// CHECK: %[[A0:.+]] = vector.transfer_read %[[ADD]][%[[R16]], %c0], {{.+}} : memref<16x16xf32>, vector<8xf32>
// CHECK: %[[P0:.+]] = vector.transfer_read %[[CODES]][%[[G:.+]], %c0], {{.+}} : memref<64x16xi32>, vector<8xi32>
// CHECK: %[[C0:.+]] = vector.bitcast %[[P0]] : vector<8xi32> to vector<32xi8>
// CHECK: %[[X4:.+]] = vector.transfer_read %[[XQ]][%{{.+}}, %{{.+}}], {{.+}} : memref<?x256xi8>, vector<4xi8>
// CHECK: %[[X1:.+]] = vector.bitcast %[[X4]] : vector<4xi8> to vector<1xi32>
// CHECK: %[[XW:.+]] = vector.extract %[[X1]][0] : i32 from vector<1xi32>
// CHECK: %[[XB:.+]] = vector.broadcast %[[XW]] : i32 to vector<8xi32>
// CHECK: %[[XS:.+]] = vector.bitcast %[[XB]] : vector<8xi32> to vector<32xi8>
// CHECK: %[[RUNSUM:.+]] = {{(func\.)?}}call @llvm.x86.avx512.vpdpbusd.256(%[[ZERO:.+]], %[[C0]], %[[XS]])
// CHECK-COUNT-3: {{(func\.)?}}call @llvm.x86.avx512.vpdpbusd.256(%[[ZERO]], %{{.+}}, %{{.+}})
// CHECK-NOT: pmadd
// CHECK: %[[RUNSUM1:.+]] = {{(func\.)?}}call @llvm.x86.avx512.vpdpbusd.256(%[[RUNSUM]], %{{.+}}, %{{.+}})
// CHECK-NOT: pmadd
// CHECK: %[[XSUM:.+]] = memref.load %{{.+}}[%{{.+}}, %[[R16]]] : memref<?x16xf32>
// CHECK: %[[XSUMV:.+]] = vector.broadcast %[[XSUM]] : f32 to vector<8xf32>
// CHECK: %[[WEIGHTED:.+]] = arith.muli %{{.+}}, %[[W0]] : vector<8xi32>
// CHECK: arith.addi %{{.+}}, %[[WEIGHTED]] : vector<8xi32>
// CHECK: vector.fma %[[A0]], %[[XSUMV]], %{{.+}} : vector<8xf32>
// CHECK: scf.yield
// CHECK: %[[D:.+]] = vector.transfer_read %[[DS]][%{{.+}}, %c0], {{.+}} : memref<1x16xf32>, vector<8xf32>
// CHECK: %[[F:.+]] = arith.sitofp %{{.+}} : vector<8xi32> to vector<8xf32>
// CHECK: %[[DX:.+]] = arith.mulf %[[D]], %{{.+}} : vector<8xf32>
// CHECK: vector.fma %[[F]], %[[DX]], %{{.+}} : vector<8xf32>
// CHECK-NOT: vpdpbusd
// CHECK: vector.extract %{{.+}}[7] : f32 from vector<8xf32>
// AVX2-LABEL: func @gemm_q6_k
// AVX2: %[[P:.+]] = {{(func\.)?}}call @llvm.x86.avx2.pmadd.ub.sw(%{{.+}}, %{{.+}}) : (vector<32xi8>, vector<32xi8>) -> vector<16xi16>
// AVX2: %[[S:.+]] = {{(func\.)?}}call @llvm.x86.avx2.pmadd.wd(%[[P]], %{{.+}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// AVX2: arith.addi %{{.+}}, %{{.+}} : vector<8xi32>
func.func @gemm_q6_k(%x: tensor<1x?x256xf32>, %w: tensor<16x256x!llm.block<q6_k>>) -> tensor<1x?x16xf32> {
  %y = llm.linear %x, %w : tensor<1x?x256xf32>, tensor<16x256x!llm.block<q6_k>> -> tensor<1x?x16xf32>
  return %y : tensor<1x?x16xf32>
}

// -----

// A K-quant of 32-element scale runs (Q4_K): with VNNI one weighting per chunk of 32 elements, its 8 groups'
// VPDPBUSD in int32 first (a fresh sum per chunk; 8 groups × 4 x rows × 2 panels), the rows' scales of the run's
// first 16 elements (equal to the second's), and its addends times x's code sums of both 16-element halves.
// CHECK-LABEL: func @gemm_q4_k
// CHECK: scf.for {{.+}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>)
// CHECK: %[[R16:.+]] = arith.muli %{{.+}}, %c2 : index
// CHECK: %[[S0:.+]] = vector.transfer_read %{{.+}}[%[[R16]], %c0], {{.+}} : memref<16x16xi16>, vector<8xi16>
// CHECK: %[[W0:.+]] = arith.extsi %[[S0]] : vector<8xi16> to vector<8xi32>
// CHECK-COUNT-64: {{(func\.)?}}call @llvm.x86.avx512.vpdpbusd.256
// CHECK-NOT: vpdpbusd
// CHECK: %[[SUM0:.+]] = memref.load %{{.+}}[%{{.+}}, %[[R16]]] : memref<?x16xf32>
// CHECK: %[[R16B:.+]] = arith.addi %[[R16]], %c1 : index
// CHECK: %[[SUM1:.+]] = memref.load %{{.+}}[%{{.+}}, %[[R16B]]] : memref<?x16xf32>
// CHECK: %[[XSUM:.+]] = arith.addf %[[SUM0]], %[[SUM1]] : f32
// CHECK: %[[WEIGHTED:.+]] = arith.muli %{{.+}}, %[[W0]] : vector<8xi32>
// CHECK: arith.addi %{{.+}}, %[[WEIGHTED]] : vector<8xi32>
// CHECK-NOT: vpdpbusd
// CHECK: scf.yield
// AVX2-LABEL: func @gemm_q4_k
// AVX2: {{(func\.)?}}call @llvm.x86.avx2.pmadd.ub.sw
// AVX2: {{(func\.)?}}call @llvm.x86.avx2.pmadd.wd
func.func @gemm_q4_k(%x: tensor<1x?x256xf32>, %w: tensor<16x256x!llm.block<q4_k>>) -> tensor<1x?x16xf32> {
  %y = llm.linear %x, %w : tensor<1x?x256xf32>, tensor<16x256x!llm.block<q4_k>> -> tensor<1x?x16xf32>
  return %y : tensor<1x?x16xf32>
}

// -----

// The int8 GEMM's x row blocks hold half the L2 of x's codes (at most 128 rows), so that a prompt of up to
// 128 tokens decodes each weight tile into codes once: 512 KiB on AVX-512 (32 registers; K = 4096 gives the
// whole 128 rows), 256 KiB on AVX2 (64 rows; the f32 kernels' 96 KiB of f32 rows would give 4).
// CHECK-LABEL: func @gemm_row_block
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) = (%c0, %c0) to (%{{.+}}, %c32) step (%c128, %c16)
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1024x16xi32>
// KROWS-LABEL: func @gemm_row_block
// KROWS: scf.parallel (%{{.+}}, %{{.+}}) = (%c0, %c0) to (%{{.+}}, %c32) step (%c64, %c8)
// KROWS: memref.alloc() {alignment = 64 : i64} : memref<1024x8xi32>
func.func @gemm_row_block(%x: tensor<1x?x4096xf32>, %w: tensor<32x4096x!llm.block<q4_0>>) -> tensor<1x?x32xf32> {
  %y = llm.linear %x, %w : tensor<1x?x4096xf32>, tensor<32x4096x!llm.block<q4_0>> -> tensor<1x?x32xf32>
  return %y : tensor<1x?x32xf32>
}

// -----

// Q4_0 in groups of 8 interleaved rows (llm-cpu-interleave-weights): the storage has a row per group
// (tensor<2x288xi8>: 2 groups, 8 rows x 2 blocks x 18 bytes), each tile is one group. Per block: the 8 rows'
// f16 scales in one 16-byte read, then 4 runs of 32 code bytes (4 bytes of each row), each split into low and
// high nibbles and multiplied with x's 4 codes at those elements broadcast to all 8 lanes, in two chains; one
// conversion, and the scales times x's scale and the scales times -8 times x's code sum in two vector FMAs:
// lane r is row r.
// CHECK-LABEL: func @gemv_q4_0_interleaved
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>)
// CHECK: %[[SCALES:.+]] = vector.transfer_read %{{.+}} {in_bounds = [true]} : tensor<2x288xi8>, vector<16xi8>
// CHECK: vector.bitcast %[[SCALES]] : vector<16xi8> to vector<8xf16>
// CHECK: arith.extf %{{.+}} : vector<8xf16> to vector<8xf32>
// CHECK: vector.transfer_read %{{.+}} : tensor<2x288xi8>, vector<32xi8>
// CHECK: vector.broadcast %{{.+}} : i32 to vector<8xi32>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.broadcast %{{.+}} : i32 to vector<8xi32>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.transfer_read %{{.+}} : tensor<2x288xi8>, vector<32xi8>
// CHECK: vector.broadcast %{{.+}} : i32 to vector<8xi32>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.broadcast %{{.+}} : i32 to vector<8xi32>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.transfer_read %{{.+}} : tensor<2x288xi8>, vector<32xi8>
// CHECK: vector.broadcast %{{.+}} : i32 to vector<8xi32>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.broadcast %{{.+}} : i32 to vector<8xi32>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.transfer_read %{{.+}} : tensor<2x288xi8>, vector<32xi8>
// CHECK: vector.broadcast %{{.+}} : i32 to vector<8xi32>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.broadcast %{{.+}} : i32 to vector<8xi32>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK-NOT: vpdpbusd
// CHECK: arith.sitofp %{{.+}} : vector<8xi32> to vector<8xf32>
// CHECK: vector.fma %{{.+}} : vector<8xf32>
// CHECK: vector.fma %{{.+}} : vector<8xf32>
// CHECK: scf.yield
// AVX2-LABEL: func @gemv_q4_0_interleaved
// AVX2-COUNT-4: call @llvm.x86.avx2.pmadd.ub.sw
func.func @gemv_q4_0_interleaved(%x: tensor<1x1x64xf32>, %w: tensor<16x64x!llm.block<q4_0, interleave = 8>>) -> tensor<1x1x16xf32> {
  %0 = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<16x64x!llm.block<q4_0, interleave = 8>> -> tensor<1x1x16xf32>
  return %0 : tensor<1x1x16xf32>
}

// -----

// Q4_1 in groups of 8 interleaved rows (20 bytes a block: 2 groups of 8 x 2 x 20 = 320 bytes): the 8 rows'
// headers (d, m) in one 32-byte read, each field gathered by a byte shuffle; the codes as Q4_0's, and the
// addend is m times x's code sum (both 16-element halves).
// CHECK-LABEL: func @gemv_q4_1_interleaved
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>)
// CHECK: %[[HEADERS:.+]] = vector.transfer_read %{{.+}} {in_bounds = [true]} : tensor<2x320xi8>, vector<32xi8>
// CHECK: %[[DBYTES:.+]] = vector.shuffle %[[HEADERS]], %[[HEADERS]] [0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29]
// CHECK: %[[DHALF:.+]] = vector.bitcast %[[DBYTES]] : vector<16xi8> to vector<8xf16>
// CHECK: %[[D:.+]] = arith.extf %[[DHALF]] : vector<8xf16> to vector<8xf32>
// CHECK-COUNT-8: call @llvm.x86.avx512.vpdpbusd.256
// CHECK-NOT: vpdpbusd
// CHECK: %[[PRODUCTS:.+]] = arith.sitofp %{{.+}} : vector<8xi32> to vector<8xf32>
// CHECK: %[[MULTIPLIERS:.+]] = arith.mulf %[[D]], %{{.+}} : vector<8xf32>
// CHECK: vector.fma %[[PRODUCTS]], %[[MULTIPLIERS]], %{{.+}} : vector<8xf32>
// CHECK: %[[MBYTES:.+]] = vector.shuffle %[[HEADERS]], %[[HEADERS]] [2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31]
// CHECK: %[[MHALF:.+]] = vector.bitcast %[[MBYTES]] : vector<16xi8> to vector<8xf16>
// CHECK: %[[M:.+]] = arith.extf %[[MHALF]] : vector<8xf16> to vector<8xf32>
// CHECK: vector.fma %[[M]], %{{.+}}, %{{.+}} : vector<8xf32>
// CHECK: scf.yield
func.func @gemv_q4_1_interleaved(%x: tensor<1x1x64xf32>, %w: tensor<16x64x!llm.block<q4_1, interleave = 8>>) -> tensor<1x1x16xf32> {
  %0 = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<16x64x!llm.block<q4_1, interleave = 8>> -> tensor<1x1x16xf32>
  return %0 : tensor<1x1x16xf32>
}

// -----

// Q5_0 in groups of 8 interleaved rows (22 bytes a block, 6 of them header: d and the fifth bits qh). The 48
// header bytes of a group block are one read; d and qh are gathered from it by byte shuffles. Per run of 4
// code bytes, each row's fifth bits of those elements (qh bits 4c..4c+3 for the low nibbles, 16+4c..16+4c+3
// for the high ones) are spread to bit 4 of the 4 bytes in its int32 lane: masked to 4 bits, times 0x00204081,
// shifted left by 4 and masked with 0x10101010, then or'ed into the nibbles. The value d·(q - 16) adds
// -16·d times x's code sum.
// CHECK-LABEL: func @gemv_q5_0_interleaved
// CHECK-DAG: %[[OFFSET:.+]] = arith.constant dense<-1.600000e+01> : vector<8xf32>
// CHECK-DAG: %[[SPREAD:.+]] = arith.constant dense<2113665> : vector<8xi32>
// CHECK-DAG: %[[FIFTH:.+]] = arith.constant dense<269488144> : vector<8xi32>
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>)
// CHECK: %[[HEADERS:.+]] = vector.transfer_read %{{.+}} {in_bounds = [true]} : tensor<2x352xi8>, vector<48xi8>
// CHECK: vector.shuffle %[[HEADERS]], %[[HEADERS]] [0, 1, 6, 7, 12, 13, 18, 19, 24, 25, 30, 31, 36, 37, 42, 43]
// CHECK: %[[QHBYTES:.+]] = vector.shuffle %[[HEADERS]], %[[HEADERS]] [2, 3, 4, 5, 8, 9, 10, 11, 14, 15, 16, 17, 20, 21, 22, 23, 26, 27, 28, 29, 32, 33, 34, 35, 38, 39, 40, 41, 44, 45, 46, 47]
// CHECK: %[[QH:.+]] = vector.bitcast %[[QHBYTES]] : vector<32xi8> to vector<8xi32>
// CHECK: %[[CODES:.+]] = vector.transfer_read %{{.+}} : tensor<2x352xi8>, vector<32xi8>
// CHECK: %[[LOW:.+]] = arith.andi %[[CODES]], %{{.+}} : vector<32xi8>
// CHECK: %[[BITS:.+]] = arith.andi %[[QH]], %{{.+}} : vector<8xi32>
// CHECK: %[[SPREADBITS:.+]] = arith.muli %[[BITS]], %[[SPREAD]] : vector<8xi32>
// CHECK: %[[PLACED:.+]] = arith.shli %[[SPREADBITS]], %{{.+}} : vector<8xi32>
// CHECK: %[[FIFTHBITS:.+]] = arith.andi %[[PLACED]], %[[FIFTH]] : vector<8xi32>
// CHECK: %[[FIFTHBYTES:.+]] = vector.bitcast %[[FIFTHBITS]] : vector<8xi32> to vector<32xi8>
// CHECK: %[[FIVEBIT:.+]] = arith.ori %[[LOW]], %[[FIFTHBYTES]] : vector<32xi8>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256(%{{.+}}, %[[FIVEBIT]], %{{.+}})
// CHECK-COUNT-7: call @llvm.x86.avx512.vpdpbusd.256
// CHECK-NOT: vpdpbusd
// CHECK: arith.mulf %{{.+}}, %[[OFFSET]] : vector<8xf32>
// CHECK: scf.yield
func.func @gemv_q5_0_interleaved(%x: tensor<1x1x64xf32>, %w: tensor<16x64x!llm.block<q5_0, interleave = 8>>) -> tensor<1x1x16xf32> {
  %0 = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<16x64x!llm.block<q5_0, interleave = 8>> -> tensor<1x1x16xf32>
  return %0 : tensor<1x1x16xf32>
}

// -----

// Q8_0 in groups of 8 interleaved rows (34 bytes a block: 2 groups of 8 x 2 x 34 = 544 bytes). Its signed codes
// enter VPDPBUSD as code + 128 (the sign bit flipped) with -128 times the scales times x's code sum; each of the
// 8 runs of 32 code bytes is one dot product (elements 4c..4c+3 of every row). The avx2 kind, whose int16 pair
// sums would saturate on code + 128, multiplies |code| with x's bytes given the codes' signs and adds nothing.
// Unlike the other interleaved GEMVs it prefetches nothing (prefetchesWeightRows: measured faster without).
// CHECK-LABEL: func @gemv_q8_0_interleaved
// CHECK-NOT: memref.prefetch
// CHECK: %[[OFFSET:.+]] = arith.constant dense<-1.280000e+02> : vector<8xf32>
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>)
// CHECK: vector.transfer_read %{{.+}} {in_bounds = [true]} : tensor<2x544xi8>, vector<16xi8>
// CHECK: vector.transfer_read %{{.+}} : tensor<2x544xi8>, vector<32xi8>
// CHECK: arith.xori %{{.+}} : vector<32xi8>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.transfer_read %{{.+}} : tensor<2x544xi8>, vector<32xi8>
// CHECK: arith.xori %{{.+}} : vector<32xi8>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.transfer_read %{{.+}} : tensor<2x544xi8>, vector<32xi8>
// CHECK: arith.xori %{{.+}} : vector<32xi8>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.transfer_read %{{.+}} : tensor<2x544xi8>, vector<32xi8>
// CHECK: arith.xori %{{.+}} : vector<32xi8>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.transfer_read %{{.+}} : tensor<2x544xi8>, vector<32xi8>
// CHECK: arith.xori %{{.+}} : vector<32xi8>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.transfer_read %{{.+}} : tensor<2x544xi8>, vector<32xi8>
// CHECK: arith.xori %{{.+}} : vector<32xi8>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.transfer_read %{{.+}} : tensor<2x544xi8>, vector<32xi8>
// CHECK: arith.xori %{{.+}} : vector<32xi8>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK: vector.transfer_read %{{.+}} : tensor<2x544xi8>, vector<32xi8>
// CHECK: arith.xori %{{.+}} : vector<32xi8>
// CHECK: call @llvm.x86.avx512.vpdpbusd.256
// CHECK-NOT: vpdpbusd
// CHECK: arith.sitofp %{{.+}} : vector<8xi32> to vector<8xf32>
// CHECK: arith.mulf %{{.+}}, %[[OFFSET]] : vector<8xf32>
// CHECK-NOT: memref.prefetch
// CHECK: return
// AVX2-LABEL: func @gemv_q8_0_interleaved
// AVX2-COUNT-8: call @llvm.x86.avx2.psign.b
func.func @gemv_q8_0_interleaved(%x: tensor<1x1x64xf32>, %w: tensor<16x64x!llm.block<q8_0, interleave = 8>>) -> tensor<1x1x16xf32> {
  %0 = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<16x64x!llm.block<q8_0, interleave = 8>> -> tensor<1x1x16xf32>
  return %0 : tensor<1x1x16xf32>
}

// -----

// Threads at the default threshold (256K weight elements) count an interleaved weight's rows, not its storage
// rows (groups of 8): 512 rows of 512 reach it and run threaded, 256 rows stay in a loop marked small.
// AVX2-LABEL: func @gemv_q4_0_interleaved_threads
// AVX2: scf.parallel (%{{.+}}) = (%{{.+}}) to (%{{.+}}) step (%{{.+}}) {
// AVX2: call @llvm.x86.avx2.pmadd.ub.sw
// AVX2-NOT: llmc.small_parallel_loop
// AVX2: return
// AVX2-LABEL: func @gemv_q4_0_interleaved_small
// AVX2: scf.parallel
// AVX2: } {llmc.small_parallel_loop}
func.func @gemv_q4_0_interleaved_threads(%x: tensor<1x1x512xf32>, %w: tensor<512x512x!llm.block<q4_0, interleave = 8>>) -> tensor<1x1x512xf32> {
  %0 = llm.linear %x, %w : tensor<1x1x512xf32>, tensor<512x512x!llm.block<q4_0, interleave = 8>> -> tensor<1x1x512xf32>
  return %0 : tensor<1x1x512xf32>
}
func.func @gemv_q4_0_interleaved_small(%x: tensor<1x1x512xf32>, %w: tensor<256x512x!llm.block<q4_0, interleave = 8>>) -> tensor<1x1x256xf32> {
  %0 = llm.linear %x, %w : tensor<1x1x512xf32>, tensor<256x512x!llm.block<q4_0, interleave = 8>> -> tensor<1x1x256xf32>
  return %0 : tensor<1x1x256xf32>
}

// -----

// Projections of one x share its int8 rows (QuantizedActivationCache): the Q4_0 and Q8_0 GEMVs read one
// quantization (scales per 32 elements), so that only the second one's result buffer lies between their loops
// (llm-parallel-to-openmp then runs them as one region); the Q4_K GEMV rounds x again, per 256 elements.
// CHECK-LABEL: func @shared_quantization
// CHECK: %[[CODES:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x256xi8>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x8xf32>
// CHECK: scf.parallel
// CHECK: vector.transfer_read %[[CODES]]
// CHECK: scf.reduce
// CHECK-NOT: memref.alloc() {alignment = 64 : i64} : memref<1x256xi8>
// CHECK: scf.parallel
// CHECK: vector.transfer_read %[[CODES]]
// CHECK: scf.reduce
// CHECK: %[[KCODES:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x256xi8>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x1xf32>
// CHECK: scf.parallel
// CHECK: vector.transfer_read %[[KCODES]]
func.func @shared_quantization(%x: tensor<1x1x256xf32>, %a: tensor<8x256x!llm.block<q4_0>>, %b: tensor<8x256x!llm.block<q8_0>>, %c: tensor<8x256x!llm.block<q4_k>>) -> (tensor<1x1x8xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>) {
  %0 = llm.linear %x, %a : tensor<1x1x256xf32>, tensor<8x256x!llm.block<q4_0>> -> tensor<1x1x8xf32>
  %1 = llm.linear %x, %b : tensor<1x1x256xf32>, tensor<8x256x!llm.block<q8_0>> -> tensor<1x1x8xf32>
  %2 = llm.linear %x, %c : tensor<1x1x256xf32>, tensor<8x256x!llm.block<q4_k>> -> tensor<1x1x8xf32>
  return %0, %1, %2 : tensor<1x1x8xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>
}
