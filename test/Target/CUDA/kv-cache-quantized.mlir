// A quantized KV cache on CUDA (--kv-type=int8 / fp8): each (position, KV
// head) row is head_dim one-byte codes followed by its f32 scale, so a
// layer view is (batch, capacity, kv_heads, head_dim + 4) bytes (paged:
// (pages, page_size, ...)). llm.kv_append and llm.rope_append quantize a
// head row per warp: max |x| by a shuffle reduction, codes from
// codegen/common/KVQuantization (x · maxCode / max, round to nearest even,
// or the nearest e4m3), each code stored by its lane, the scale's bytes by
// lanes 0..3. A quantized llm.kv_view is not materialized: the attention
// kernels take the layer's rows and decode codes · scale as they load them,
// with 32-bit loads (a row of head_dim + 4 bytes is only 4-byte aligned).
// Every kernel assembles for sm_80 and sm_90 without spills. Numbers:
// simulated-model.test's -int8 / -fp8 cases.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

// SmolLM2-135M's attention: 9 query heads, 3 KV heads of 64.
!int8 = !llm.kv_cache<layers = 30, batch = 1, kv_heads = 3, head_dim = 64, capacity = 2048, element_type = i8>
!fp8 = !llm.kv_cache<layers = 30, batch = 1, kv_heads = 3, head_dim = 64, capacity = 2048, element_type = f8E4M3FN, layout = paged>

module attributes {llm.model = "t"} {
  func.func private @int8_append(%c: !int8, %q: tensor<1x?x9x64xf32>, %k: tensor<1x?x3x64xf32>, %v: tensor<1x?x3x64xf32>, %p: tensor<1x?xi32>, %qd: tensor<1x1x9x64xf32>, %pd: tensor<1x1xi32>) -> (tensor<1x?x9x64xf32>, tensor<1x1x9x64xf32>, !int8) {
    %c1 = llm.kv_append %c[2], %k, %v, %p : !int8, tensor<1x?x3x64xf32>, tensor<1x?x3x64xf32>, tensor<1x?xi32>
    %kv:2 = llm.kv_view %c1[2] : !int8 -> tensor<1x2048x3x64xf32>, tensor<1x2048x3x64xf32>
    %0 = llm.attention %q, %kv#0, %kv#1, %p {causal, num_heads = 9 : i64, num_kv_heads = 3 : i64} : tensor<1x?x9x64xf32>, tensor<1x2048x3x64xf32>, tensor<1x2048x3x64xf32>, tensor<1x?xi32> -> tensor<1x?x9x64xf32>
    %1 = llm.attention %qd, %kv#0, %kv#1, %pd {causal, num_heads = 9 : i64, num_kv_heads = 3 : i64} : tensor<1x1x9x64xf32>, tensor<1x2048x3x64xf32>, tensor<1x2048x3x64xf32>, tensor<1x1xi32> -> tensor<1x1x9x64xf32>
    return %0, %1, %c1 : tensor<1x?x9x64xf32>, tensor<1x1x9x64xf32>, !int8
  }
  func.func private @fp8_rope_append(%c: !fp8, %t: tensor<1x128xi32>, %q: tensor<1x1x9x64xf32>, %k: tensor<1x1x3x64xf32>, %v: tensor<1x1x3x64xf32>, %p: tensor<1x1xi32>, %l: index) -> (tensor<1x1x9x64xf32>, !fp8) {
    %qr, %c1 = llm.rope_append half %c[%l] pages(%t : tensor<1x128xi32>), %q, %k, %v, %p {theta = 1.0e+05 : f64, rotary_dim = 64 : i64} : !fp8, tensor<1x1x9x64xf32>, tensor<1x1x3x64xf32>, tensor<1x1xi32>
    %kv:2 = llm.kv_view %c1[%l] pages(%t : tensor<1x128xi32>) : !fp8 -> tensor<1x2048x3x64xf32>, tensor<1x2048x3x64xf32>
    %0 = llm.attention %qr, %kv#0, %kv#1, %p {causal, num_heads = 9 : i64, num_kv_heads = 3 : i64} : tensor<1x1x9x64xf32>, tensor<1x2048x3x64xf32>, tensor<1x2048x3x64xf32>, tensor<1x1xi32> -> tensor<1x1x9x64xf32>
    return %0, %c1 : tensor<1x1x9x64xf32>, !fp8
  }
}

// Host side: layer 2's keys at 2 · 417792 bytes (2048 · 3 rows of 68), its
// values at (30 + 2) · 417792; the append kernel takes the layer as
// (2048, 3 · 68) byte rows, the attention kernels as (1, 2048, 3, 68).
// KERNELS-LABEL: func.func private @int8_append
// KERNELS-SAME: (%[[CACHE:[a-z0-9]+]]: memref<25067520xi8>,
// KERNELS: %[[K:.*]] = memref.view %[[CACHE]][%c835584][] : memref<25067520xi8> to memref<1x2048x3x68xi8>
// KERNELS: %[[V:.*]] = memref.view %[[CACHE]][%c13369344][] : memref<25067520xi8> to memref<1x2048x3x68xi8>
// KERNELS: gpu.launch_func @llmc_kernels::@kv_append_r192_c2048_f32_to_i8 {{.*}} args({{.*}} : memref<?xi32>, %{{.*}} : memref<2048x204xi8>, %{{.*}} : memref<2048x204xi8>)
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d64_h9_kv3_s2048_b1_f32_i8_causal_posi32 {{.*}} args(%{{.*}} : memref<1x?x9x64xf32>, %[[K]] : memref<1x2048x3x68xi8>, %[[V]] : memref<1x2048x3x68xi8>, %{{.*}} : memref<1x?xi32>,
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_d64_h9_kv3_s2048_b1_f32_i8_causal_posi32 {{.*}} args(%{{.*}} : memref<1x1x9x64xf32>, %[[K]] : memref<1x2048x3x68xi8>, %[[V]] : memref<1x2048x3x68xi8>,
// KERNELS-LABEL: func.func private @fp8_rope_append
// KERNELS: %[[PK:.*]] = memref.view %{{.*}} : memref<25067520xi8> to memref<128x16x3x68xi8>
// KERNELS: gpu.launch_func @llmc_kernels::@rope_append_half_h9_kv3_d64_r64_none_{{[0-9a-f]+}}_f32_c2048_pg16_to_f8E4M3FN_i32 {{.*}} : memref<2048x204xi8>, %{{.*}} : memref<2048x204xi8>, %{{.*}} : memref<1x128xi32>)
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_d64_h9_kv3_s2048_pg16_b1_f32_f8E4M3FN_causal_posi32 {{.*}} args(%{{.*}} : memref<1x1x9x64xf32>, %[[PK]] : memref<128x16x3x68xi8>, %{{.*}} : memref<128x16x3x68xi8>, %{{.*}} : memref<1x128xi32>,
// KERNELS-NOT: unrealized_conversion_cast

// The append kernel: warp w quantizes KV heads w, w + 8, ... (here one
// each): lane l holds elements l and l + 32, max |x| over the warp by five
// xor shuffles, codes of x · (127 / max) (0 for an all-zero row) rounded to
// nearest even and clamped to ±127, stored at head · 68 + element; lanes
// 0..3 store byte l of the scale max / 127 at head · 68 + 64 + l.
// KERNELS-LABEL: gpu.func @kv_append_r192_c2048_f32_to_i8(
// KERNELS: %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
// KERNELS: scf.for %[[HEAD:.*]] = %{{.*}} to %c3 step %c8 {
// KERNELS: %[[X:.*]] = memref.load %arg0
// KERNELS-COUNT-5: gpu.shuffle  xor
// KERNELS-NEXT: %[[MAX:.*]] = arith.maximumf
// KERNELS-NEXT: %[[NONZERO:.*]] = arith.cmpf ogt, %[[MAX]], %[[ZERO:.*]] : f32
// KERNELS-NEXT: %[[INV:.*]] = arith.divf %[[C127:.*]], %[[MAX]] : f32
// KERNELS-NEXT: %[[FACTOR:.*]] = arith.select %[[NONZERO]], %[[INV]], %[[ZERO]] : f32
// KERNELS-NEXT: %[[SCALE:.*]] = arith.divf %[[MAX]], %[[C127]] : f32
// KERNELS-NEXT: %[[START:.*]] = arith.muli %[[HEAD]], %c68 : index
// KERNELS-NEXT: %[[SCALED:.*]] = arith.mulf %[[X]], %[[FACTOR]] : f32
// KERNELS-NEXT: math.roundeven %[[SCALED]] : f32
// KERNELS: memref.store %{{.*}}, %arg3[%{{.*}}, %{{.*}}] : memref<2048x204xi8>
// KERNELS: %[[SCALELANE:.*]] = arith.cmpi ult, %[[LANE]], %c4 : index
// KERNELS-NEXT: scf.if %[[SCALELANE]] {
// KERNELS-NEXT: %[[BYTE:.*]] = arith.addi %[[LANE]], %c64 : index
// KERNELS-NEXT: %[[COLUMN:.*]] = arith.addi %[[START]], %[[BYTE]] : index
// KERNELS-NEXT: arith.bitcast %[[SCALE]] : f32 to i32
// KERNELS: memref.store %{{.*}}, %arg3[%{{.*}}, %[[COLUMN]]] : memref<2048x204xi8>

// Flash prefill: a thread stages a run of 16 codes of one key (4 32-bit
// loads after one of the row's scale at byte 64), each decoded and times
// the scale, into the f32 shared tile.
// KERNELS-LABEL: gpu.func @attention_prefill_d64_h9_kv3_s2048_b1_f32_i8_causal_posi32(
// KERNELS: vector.load %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %c64] {alignment = 4 : i64} : memref<1x2048x3x68xi8>, vector<4xi8>
// KERNELS-COUNT-4: vector.load %arg1[{{.*}}] {alignment = 4 : i64} : memref<1x2048x3x68xi8>, vector<4xi8>
// KERNELS: vector.store %{{.*}}, %arg6[%{{.*}}] {alignment = 16 : i64} : memref<4096xf32, 3>, vector<16xf32>

// fp8 decode: a code's sign, exponent and mantissa bits become f32 bits
// (exponent rebiased by 120), subnormals mantissa · 2^-9.
// KERNELS-LABEL: gpu.func @attention_decode_d64_h9_kv3_s2048_pg16_b1_f32_f8E4M3FN_causal_posi32(
// KERNELS: vector.load %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %c64] {alignment = 4 : i64} : memref<128x16x3x68xi8>, vector<4xi8>
// KERNELS: arith.addi %{{.*}}, %c120_i32 : i32
// KERNELS: arith.mulf %{{.*}}, %cst{{.*}} : f32

// In the generated code: the append's warp reduction and byte stores; the codes and scales
// of a row are read with 32-bit loads.
// PTX-LABEL: .entry kv_append_r192_c2048_f32_to_i8(
// PTX: shfl.sync.bfly.b32
// PTX: st.global.b8
// PTX-LABEL: .entry attention_decode_d64_h9_kv3_s2048_b1_f32_i8_causal_posi32(
// PTX: ld.global.b32

// PTXAS-DAG: kernel kv_append_r192_c2048_f32_to_i8 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel kv_append_r192_c2048_f32_to_i8 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_append_half_h9_kv3_d64_r64_none_{{[0-9a-f]+}}_f32_c2048_pg16_to_f8E4M3FN_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_append_half_h9_kv3_d64_r64_none_{{[0-9a-f]+}}_f32_c2048_pg16_to_f8E4M3FN_i32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d64_h9_kv3_s2048_b1_f32_i8_causal_posi32 sm_80 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d64_h9_kv3_s2048_b1_f32_i8_causal_posi32 sm_90 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d64_h9_kv3_s2048_b1_f32_i8_causal_posi32 sm_80 regs={{[0-9]+}} smem=3328 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d64_h9_kv3_s2048_b1_f32_i8_causal_posi32 sm_90 regs={{[0-9]+}} smem=3328 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d64_h9_kv3_s2048_pg16_b1_f32_f8E4M3FN_causal_posi32 sm_80 regs={{[0-9]+}} smem=3328 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d64_h9_kv3_s2048_pg16_b1_f32_f8E4M3FN_causal_posi32 sm_90 regs={{[0-9]+}} smem=3328 spill_stores=0 spill_loads=0
// PTXAS-NOT: spill_stores={{[1-9]}}
