// llm.logits with a softcap (Gemma-2's final_logit_softcapping): the plain
// projection (GEMV for one row, GEMM otherwise) into the logits buffer, then
// one element-wise kernel that rewrites it in place, cap · tanh(z · 1/cap),
// with cap and 1/cap as f32 arguments (one kernel for every cap). Every
// kernel assembles for sm_80 and sm_90 without spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

module attributes {llm.model = "t"} {
  func.func private @gemma2_decode(%h: tensor<1x1x2304xf32>, %table: tensor<256000x2304xbf16>) -> tensor<1x1x256000xf32> {
    %0 = llm.logits %h, %table {tied, softcap = 30.0 : f64} : tensor<1x1x2304xf32>, tensor<256000x2304xbf16> -> tensor<1x1x256000xf32>
    return %0 : tensor<1x1x256000xf32>
  }
  func.func private @gemma2_prefill(%h: tensor<1x?x2304xf32>, %table: tensor<256000x2304xbf16>) -> tensor<1x?x256000xf32> {
    %0 = llm.logits %h, %table {tied, softcap = 30.0 : f64} : tensor<1x?x2304xf32>, tensor<256000x2304xbf16> -> tensor<1x?x256000xf32>
    return %0 : tensor<1x?x256000xf32>
  }
}

// KERNELS-LABEL: func.func private @gemma2_decode
// KERNELS-DAG: %[[CAP:.*]] = arith.constant 3.000000e+01 : f32
// KERNELS-DAG: %[[INV:.*]] = arith.constant 0.0333333351 : f32
// KERNELS: %[[OUT:.*]] = memref.alloc() : memref<1x1x256000xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@gemv_n256000_k2304_bf16_{{.*}} args({{.*}}, %arg1 : memref<256000x2304xbf16>, %{{.*}} : memref<1x256000xf32>)
// KERNELS: %[[FLAT:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1, 2]] : memref<1x1x256000xf32> into memref<256000xf32>
// KERNELS: %[[DYN:.*]] = memref.cast %[[FLAT]] : memref<256000xf32> to memref<?xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@softcap_f32_v4 blocks in (%c250, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[DYN]] : memref<?xf32>, %[[DYN]] : memref<?xf32>, %[[CAP]] : f32, %[[INV]] : f32)
// KERNELS: return %[[OUT]]
// KERNELS-LABEL: func.func private @gemma2_prefill
// KERNELS: gpu.launch_func @llmc_kernels::@gemm_mma_n256000_k2304_bf16
// KERNELS: gpu.launch_func @llmc_kernels::@softcap_f32_v4
// KERNELS-LABEL: gpu.func @softcap_f32_v4(
// KERNELS-SAME: %[[IN:arg[0-9]+]]: memref<?xf32>, %[[KOUT:arg[0-9]+]]: memref<?xf32>, %[[KCAP:arg[0-9]+]]: f32, %[[KINV:arg[0-9]+]]: f32)
// KERNELS: %[[V:.*]] = vector.load %[[IN]][%[[I:.*]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// KERNELS: %[[C:.*]] = vector.broadcast %[[KCAP]] : f32 to vector<4xf32>
// KERNELS: %[[R:.*]] = vector.broadcast %[[KINV]] : f32 to vector<4xf32>
// KERNELS: %[[Z:.*]] = arith.mulf %[[V]], %[[R]] : vector<4xf32>
// KERNELS: %[[T:.*]] = math.tanh %[[Z]] : vector<4xf32>
// KERNELS: %[[Y:.*]] = arith.mulf %[[T]], %[[C]] : vector<4xf32>
// KERNELS: vector.store %[[Y]], %[[KOUT]][%[[I]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>

// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-LABEL: .visible .entry softcap_f32_v4(
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
// PTX-NOT: __nv_
// PTX-LABEL: // ---- llmc: PTX for sm_90

// PTXAS-DAG: kernel softcap_f32_v4 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel softcap_f32_v4 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
