// llm.embedding → one CTA per token copying its table row with 128-bit loads
// (4 f32 or 8 bf16/f16 per thread), widened to the f32 result. An id outside
// [0, V) (the runtime rejects them first) reads row 0 and writes zeros, never
// out of bounds. Gemma's scale multiplies each widened row in f32 (an f32
// kernel argument). Every kernel assembles for sm_80 and sm_90 without spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

module attributes {llm.model = "t"} {
  func.func private @stories(%t: tensor<1x?xi32>, %e: tensor<512x64xf32>) -> tensor<1x?x64xf32> {
    %0 = llm.embedding %t, %e : tensor<1x?xi32>, tensor<512x64xf32> -> tensor<1x?x64xf32>
    return %0 : tensor<1x?x64xf32>
  }
  func.func private @qwen2_decode(%t: tensor<1x1xi32>, %e: tensor<151936x896xbf16>) -> tensor<1x1x896xf32> {
    %0 = llm.embedding %t, %e : tensor<1x1xi32>, tensor<151936x896xbf16> -> tensor<1x1x896xf32>
    return %0 : tensor<1x1x896xf32>
  }
  func.func private @llama3(%t: tensor<2x?xi32>, %e: tensor<128256x4096xf16>) -> tensor<2x?x4096xf32> {
    %0 = llm.embedding %t, %e : tensor<2x?xi32>, tensor<128256x4096xf16> -> tensor<2x?x4096xf32>
    return %0 : tensor<2x?x4096xf32>
  }
  func.func private @gemma2(%t: tensor<1x?xi32>, %e: tensor<256000x2304xbf16>) -> tensor<1x?x2304xf32> {
    %0 = llm.embedding %t, %e {scale = 48.0 : f64} : tensor<1x?xi32>, tensor<256000x2304xbf16> -> tensor<1x?x2304xf32>
    return %0 : tensor<1x?x2304xf32>
  }
}

// Host side: ids (B, T) → (B·T), result (B, T, D) → (B·T, D), grid = tokens,
// block = D / vector width rounded up to a warp (at most 256).
// KERNELS-LABEL: func.func private @stories
// KERNELS: %[[IDS:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<1x?xi32> into memref<?xi32>
// KERNELS: %[[OUT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<1x?x64xf32> into memref<?x64xf32>
// KERNELS: %[[N:.*]] = memref.dim %[[IDS]], %c0 : memref<?xi32>
// KERNELS: gpu.launch_func @llmc_kernels::@embedding_v512_d64_i32_f32_to_f32 blocks in (%[[N]], %c1, %c1) threads in (%c32, %c1, %c1) args(%[[IDS]] : memref<?xi32>, %arg1 : memref<512x64xf32>, %[[OUT]] : memref<?x64xf32>)
// KERNELS-LABEL: func.func private @qwen2_decode
// KERNELS: %[[DIDS:.*]] = memref.cast %{{.*}} : memref<1xi32> to memref<?xi32>
// KERNELS: %[[DOUT:.*]] = memref.cast %{{.*}} : memref<1x896xf32> to memref<?x896xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@embedding_v151936_d896_i32_bf16_to_f32 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%[[DIDS]] : memref<?xi32>, %arg1 : memref<151936x896xbf16>, %[[DOUT]] : memref<?x896xf32>)
// KERNELS-LABEL: func.func private @llama3
// KERNELS: gpu.launch_func @llmc_kernels::@embedding_v128256_d4096_i32_f16_to_f32 blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// KERNELS-LABEL: func.func private @gemma2
// KERNELS: %[[SCALE:.*]] = arith.constant 4.800000e+01 : f32
// KERNELS: gpu.launch_func @llmc_kernels::@embedding_v256000_d2304_i32_bf16_to_f32_scaled blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<?xi32>, %arg1 : memref<256000x2304xbf16>, %{{.*}} : memref<?x2304xf32>, %[[SCALE]] : f32)

// KERNELS-LABEL: gpu.func @embedding_v151936_d896_i32_bf16_to_f32(
// KERNELS-SAME: %{{.*}}: memref<?xi32>, %{{.*}}: memref<151936x896xbf16>, %{{.*}}: memref<?x896xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// KERNELS-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// KERNELS: %[[TOKEN:.*]] = gpu.block_id x
// KERNELS: %[[ID:.*]] = memref.load %arg0[%[[TOKEN]]] : memref<?xi32>
// KERNELS: %[[IDX:.*]] = arith.index_cast %[[ID]] : i32 to index
// KERNELS: %[[VALID:.*]] = arith.cmpi ult, %[[IDX]], %c151936 : index
// KERNELS: %[[ROW:.*]] = arith.select %[[VALID]], %[[IDX]], %c0 : index
// KERNELS: scf.for %[[V:.*]] = %{{.*}} to %c112 step %c128 {
// KERNELS: %[[COL:.*]] = arith.muli %[[V]], %c8 : index
// KERNELS: %[[LOAD:.*]] = vector.load %arg1[%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<151936x896xbf16>, vector<8xbf16>
// KERNELS: %[[WIDE:.*]] = arith.extf %[[LOAD]] : vector<8xbf16> to vector<8xf32>
// KERNELS: %[[SAFE:.*]] = arith.select %[[VALID]], %[[WIDE]], %[[ZEROS]] : vector<8xf32>
// KERNELS: vector.store %[[SAFE]], %arg2[%[[TOKEN]], %[[COL]]] {alignment = 16 : i64} : memref<?x896xf32>, vector<8xf32>
// KERNELS-LABEL: gpu.func @embedding_v256000_d2304_i32_bf16_to_f32_scaled(
// KERNELS-SAME: %{{.*}}: memref<?xi32>, %{{.*}}: memref<256000x2304xbf16>, %{{.*}}: memref<?x2304xf32>, %[[KSCALE:.*]]: f32)
// KERNELS: %[[GLOAD:.*]] = vector.load %arg1
// KERNELS: %[[GWIDE:.*]] = arith.extf %[[GLOAD]] : vector<8xbf16> to vector<8xf32>
// KERNELS: %[[SPLAT:.*]] = vector.broadcast %[[KSCALE]] : f32 to vector<8xf32>
// KERNELS: %[[SCALED:.*]] = arith.mulf %[[GWIDE]], %[[SPLAT]] : vector<8xf32>
// KERNELS: arith.select %{{.*}}, %[[SCALED]], %{{.*}} : vector<8xf32>

// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-LABEL: .visible .entry embedding_v512_d64_i32_f32_to_f32(
// PTX: .maxntid 32, 1, 1
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
// PTX-LABEL: .visible .entry embedding_v151936_d896_i32_bf16_to_f32(
// PTX: setp.lt.u32 {{.*}}, 151936;
// PTX: ld.global.v4.b32
// PTX-COUNT-8: cvt.f32.bf16
// PTX-COUNT-2: st.global.v4.b32
// PTX-LABEL: .visible .entry embedding_v128256_d4096_i32_f16_to_f32(
// PTX: ld.global.v4.b32
// PTX: cvt.f32.f16
// PTX-LABEL: .visible .entry embedding_v256000_d2304_i32_bf16_to_f32_scaled(
// PTX: ld.global.v4.b32
// PTX: cvt.f32.bf16
// PTX: mul.rn.f32
// PTX: st.global.v4.b32
// PTX-LABEL: // ---- llmc: PTX for sm_90

// PTXAS-DAG: kernel embedding_v512_d64_i32_f32_to_f32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel embedding_v151936_d896_i32_bf16_to_f32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel embedding_v128256_d4096_i32_f16_to_f32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel embedding_v512_d64_i32_f32_to_f32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel embedding_v151936_d896_i32_bf16_to_f32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel embedding_v128256_d4096_i32_f16_to_f32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel embedding_v256000_d2304_i32_bf16_to_f32_scaled sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel embedding_v256000_d2304_i32_bf16_to_f32_scaled sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
