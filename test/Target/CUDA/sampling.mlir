// The sampling kernels the runtime launches on @decode's logits (ABI in
// codegen/cuda/SamplingKernels.cpp): llmc_argmax_v<V> (one CTA of 1024
// threads; NaN as −inf, ties to the lowest index) and llmc_top_k_top_p_v<V>
// (the host sampler's temperature / top-k ≤ 256 / top-p draw: radix select
// of the k-th largest (p, index) key with shared-memory histograms, bitonic
// sort of the candidates, f64 prefix sums by thread 0; the whole vocabulary
// in index order without top-k and top-p). Both assemble for sm_80 and sm_90
// without spills; a module without @decode gets neither.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %S/norm.mlir | FileCheck %s --check-prefix=NODECODE
// NODECODE-NOT: llmc_argmax
// NODECODE-NOT: llmc_top_k_top_p

// A stand-in @decode whose result has the logits' shape (1, 1, V).
module attributes {llm.model = "t"} {
  func.func private @decode(%t: tensor<1x1xi32> {llm.input = "tokens"}, %w: tensor<64x32000xf32> {llm.weight = "w"}) -> tensor<1x1x32000xf32> {
    %0 = llm.embedding %t, %w : tensor<1x1xi32>, tensor<64x32000xf32> -> tensor<1x1x32000xf32>
    return %0 : tensor<1x1x32000xf32>
  }
}

// KERNELS-LABEL: gpu.func @llmc_argmax_v32000(
// KERNELS-SAME: %{{.*}}: memref<32000xf32>, %{{.*}}: memref<1xi32>)
// KERNELS-SAME: workgroup(%[[VALUES:.*]] : memref<32xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}, %[[INDICES:.*]] : memref<32xi32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// KERNELS-SAME: kernel attributes {known_block_size = array<i32: 1024, 1, 1>}
// KERNELS: scf.for %[[I:.*]] = %{{.*}} to %c32000 step %c1024 iter_args(%[[BEST:.*]] = %cst, %[[BESTI:.*]] = %c2147483647_i32) -> (f32, i32) {
// KERNELS: %[[L:.*]] = memref.load %arg0[%[[I]]] : memref<32000xf32>
// KERNELS: %[[NAN:.*]] = arith.cmpf uno, %[[L]], %[[L]] : f32
// KERNELS: %[[V:.*]] = arith.select %[[NAN]], %cst, %[[L]] : f32
// KERNELS: %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[BEST]] : f32
// KERNELS: %[[EQ:.*]] = arith.cmpf oeq, %[[V]], %[[BEST]] : f32
// KERNELS: %[[LOWER:.*]] = arith.cmpi slt, %{{.*}}, %[[BESTI]] : i32
// KERNELS-COUNT-5: gpu.shuffle xor %{{.*}} : f32
// KERNELS: memref.store %{{.*}}, %[[VALUES]]
// KERNELS: memref.store %{{.*}}, %[[INDICES]]
// KERNELS: gpu.barrier
// KERNELS-COUNT-5: gpu.shuffle xor %{{.*}} : i32
// KERNELS: gpu.barrier
// KERNELS: memref.store %{{.*}}, %arg1[%c0] : memref<1xi32>

// KERNELS-LABEL: gpu.func @llmc_top_k_top_p_v32000(
// KERNELS-SAME: %{{.*}}: memref<32000xf32>, %{{.*}}: f32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: memref<1xi32>)
// KERNELS-SAME: memref<256xi32, #gpu.address_space<workgroup>>
// KERNELS-SAME: memref<1024xf64, #gpu.address_space<workgroup>>
// KERNELS-SAME: known_block_size = array<i32: 1024, 1, 1>
// Greedy: temperature ≤ 0, top_k == 1, top_p ≤ 0 or every logit −inf.
// KERNELS-DAG: arith.cmpf ole, %arg1, %{{.*}} : f32
// KERNELS-DAG: arith.cmpi eq, %arg2, %c1_i32 : i32
// KERNELS-DAG: arith.cmpf ole, %arg3, %{{.*}} : f32
// The whole vocabulary: per-thread f64 chunk sums of exp((l − max) / T).
// KERNELS: arith.divf %{{.*}}, %arg1 : f32
// KERNELS: math.exp %{{.*}} : f32
// KERNELS: arith.extf %{{.*}} : f32 to f64
// KERNELS: gpu.barrier
// Top-k: 4 digit passes over p's bits, then 2 over the 15 index bits.
// KERNELS-COUNT-6: memref.atomic_rmw addi %c1_i32, %{{.*}} : (i32, memref<256xi32, #gpu.address_space<workgroup>>) -> i32
// KERNELS: memref.atomic_rmw addi %c1_i32, %{{.*}}[%c3] : (i32, memref<4xi32, #gpu.address_space<workgroup>>) -> i32
// The gather's barrier, then the bitonic sort of 256 candidates: 36
// compare-exchange steps.
// KERNELS-COUNT-37: gpu.barrier
// KERNELS-NOT: gpu.barrier
// KERNELS: memref.store %{{.*}}, %arg5[%c0] : memref<1xi32>
// KERNELS: gpu.return

// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-LABEL: .visible .entry llmc_argmax_v32000(
// PTX: .maxntid 1024, 1, 1
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX-LABEL: .visible .entry llmc_top_k_top_p_v32000(
// PTX: .param .f32 llmc_top_k_top_p_v32000_param_5,
// PTX: .param .u32 llmc_top_k_top_p_v32000_param_6,
// PTX: .param .f32 llmc_top_k_top_p_v32000_param_7,
// PTX: .param .f32 llmc_top_k_top_p_v32000_param_8,
// PTX: .maxntid 1024, 1, 1
// PTX: atom.shared.add.u32
// PTX: add.rn.f64
// PTX-NOT: .extern .func __nv_
// PTX-LABEL: // ---- llmc: PTX for sm_90

// PTXAS-DAG: kernel llmc_argmax_v32000 sm_80 regs={{[0-9]+}} smem=256 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel llmc_top_k_top_p_v32000 sm_80 regs={{[0-9]+}} smem=11648 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel llmc_argmax_v32000 sm_90 regs={{[0-9]+}} smem=256 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel llmc_top_k_top_p_v32000 sm_90 regs={{[0-9]+}} smem=11648 spill_stores=0 spill_loads=0
