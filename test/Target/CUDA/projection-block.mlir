// Block-quantized weights (`!llm.block<...>`, every GGUF format of the
// dialect) in the CUDA kernels: the CUDA pipeline stores each one planar
// (llm-cuda-planar-weights: planes of its blocks' codes, high bits and
// scales), the weight becomes its bytes, memref<N x rowBytes x i8>, read as
// one array (memref.collapse_shape), and
// - llm.linear / llm.logits of one row → the GEMV (`gemv_..._<format>_r<rows>`):
//   a lane per block, decoded in registers 8 elements at a time (4 with two
//   rows per warp) and multiplied with x there; a block's codes are one
//   aligned 16-byte load (Q4_0: ld.global.v4 of its 16 code bytes, one
//   16-bit load of its scale), sliced for each decode; a K-quant
//   block (256 elements) runs as a warp-uniform loop over its eight
//   32-element groups (a chain of scf.if on the group);
// - any other row count → the tensor-core GEMM (`gemm_mma_..._<format>`):
//   each thread decodes a run of 16 elements of the 64 × 32 weight tile
//   (a chain of scf.if on the run's position in the block) and stores it
//   as f16 into the shared tile that ldmatrix / mma.sync read;
// - llm.embedding → a block per thread, decoded into the result row;
// - the fused GEMVs (multi_linear with a norm, mixing formats as Q4_K_M
//   files do; glu_linear with a norm; a residual).
// Every kernel assembles for sm_80 and sm_90 without spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

// KERNELS-LABEL: func.func private @gemv_q4_0(
// KERNELS-SAME: %arg1: memref<96x324xi8>
// KERNELS: gpu.launch_func @llmc_kernels::@gemv_n96_k576_q4_0_r1 blocks in (%c12, %c1, %c1) threads in (%c256, %c1, %c1) args({{.*}}, %arg1 : memref<96x324xi8>,
// KERNELS-LABEL: func.func private @gemm_q4_0(
// KERNELS: gpu.launch_func @llmc_kernels::@gemm_mma_n96_k576_q4_0 blocks in ({{.*}}, %c2, %c1) threads in (%c128, %c1, %c1)
// KERNELS-LABEL: func.func private @embed_q4_0(
// KERNELS: gpu.launch_func @llmc_kernels::@embedding_v96_d576_i32_q4_0_to_f32 blocks in ({{.*}}, %c1, %c1) threads in (%c32, %c1, %c1)

// KERNELS-LABEL: gpu.func @gemv_n96_k576_q4_0_r1(
// KERNELS-SAME: nvvm.minctasm = 2
// KERNELS: %[[BYTES:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1]] : memref<96x324xi8> into memref<31104xi8>
// KERNELS: vector.load %[[BYTES]][{{.*}}] {alignment = 2 : i64} : memref<31104xi8>, vector<2xi8>
// KERNELS: %[[CODES:.*]] = vector.load %[[BYTES]][{{.*}}] {alignment = 16 : i64} : memref<31104xi8>, vector<16xi8>
// KERNELS: vector.extract_strided_slice %[[CODES]] {offsets = [0], sizes = [8], strides = [1]} : vector<16xi8> to vector<8xi8>
// KERNELS: vector.fma {{.*}} : vector<8xf32>
// KERNELS: vector.extract_strided_slice %[[CODES]] {offsets = [8], sizes = [8], strides = [1]} : vector<16xi8> to vector<8xi8>
// KERNELS: gpu.shuffle xor

// KERNELS-LABEL: gpu.func @gemm_mma_n96_k576_q4_0(
// KERNELS-SAME: workgroup(%arg3 : memref<2x64x40xf16, 3> {llvm.align = 128 : i64}, %arg4 : memref<2x64x40xf16, 3> {llvm.align = 128 : i64})
// KERNELS: arith.cmpi eq, {{.*}}, %c0 : index
// KERNELS: arith.truncf {{.*}} : vector<16xf32> to vector<16xf16>
// KERNELS: vector.store {{.*}}, %arg4[%c0, {{.*}}] {alignment = 16 : i64} : memref<2x64x40xf16, 3>, vector<16xf16>
// KERNELS: nvgpu.ldmatrix %arg4
// KERNELS: nvvm.mma.sync

// KERNELS-LABEL: gpu.func @gemv_n96_k512_q4_k_r1(
// KERNELS: scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// KERNELS: arith.cmpi eq, %{{.*}}, %c0 : index
// KERNELS: vector.load %{{.*}}[{{.*}}] {alignment = 16 : i64} : memref<27648xi8>, vector<16xi8>

// KERNELS-LABEL: gpu.func @embedding_v96_d512_i32_q5_k_to_f32(
// KERNELS: scf.for %{{.*}} = %thread_id_x to %c2 step %c32
// KERNELS: vector.store {{.*}} : memref<?x512xf32>, vector<16xf32>

// KERNELS-LABEL: gpu.func @gemv_n4096_1024_1024_k4096_q4_k_q4_k_q6_k_normf32_r1(
// KERNELS-LABEL: gpu.func @gemv_glu_silu_n14336_k4096_q4_k_normf32(
// KERNELS: vector.fma {{.*}} : vector<4xf32>
// KERNELS-LABEL: gpu.func @gemv_n49152_k576_q8_0_r2(

// Q4_0's scales plane starts after the 96 x 18 blocks' 16 code bytes.
// PTX: .entry gemv_n96_k576_q4_0_r1(
// PTX: ld.global.b16 {{.*}}+27648];
// PTX: ld.global.v4.b32
// PTX: .entry gemv_n96_k512_q4_k_r1(
// PTX: ld.global.v4.b32
// PTX: .entry gemm_mma_n96_k512_q4_k(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// PTXAS-NOT: spill_stores={{[1-9]}}
// PTXAS-NOT: spill_loads={{[1-9]}}
// PTXAS-NOT: error
// PTXAS-DAG: kernel gemv_n96_k576_q8_0_r1 sm_80 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n96_k512_q6_k_r1 sm_90 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemm_mma_n96_k512_q6_k sm_90 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_glu_silu_n14336_k4096_q6_k_normf32 sm_80 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_glu_silu_n14336_k4096_q5_k_normf32 sm_80 {{.*}} spill_stores=0 spill_loads=0

module attributes {llm.model = "t"} {
  func.func private @gemv_q8_0(%x: tensor<1x1x576xf32>, %w: tensor<96x576x!llm.block<q8_0>>) -> tensor<1x1x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x1x576xf32>, tensor<96x576x!llm.block<q8_0>> -> tensor<1x1x96xf32>
    return %0 : tensor<1x1x96xf32>
  }
  func.func private @gemm_q8_0(%x: tensor<1x?x576xf32>, %w: tensor<96x576x!llm.block<q8_0>>) -> tensor<1x?x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x?x576xf32>, tensor<96x576x!llm.block<q8_0>> -> tensor<1x?x96xf32>
    return %0 : tensor<1x?x96xf32>
  }
  func.func private @embed_q8_0(%t: tensor<1x?xi32>, %w: tensor<96x576x!llm.block<q8_0>>) -> tensor<1x?x576xf32> {
    %0 = llm.embedding %t, %w : tensor<1x?xi32>, tensor<96x576x!llm.block<q8_0>> -> tensor<1x?x576xf32>
    return %0 : tensor<1x?x576xf32>
  }
  func.func private @gemv_q4_0(%x: tensor<1x1x576xf32>, %w: tensor<96x576x!llm.block<q4_0>>) -> tensor<1x1x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x1x576xf32>, tensor<96x576x!llm.block<q4_0>> -> tensor<1x1x96xf32>
    return %0 : tensor<1x1x96xf32>
  }
  func.func private @gemm_q4_0(%x: tensor<1x?x576xf32>, %w: tensor<96x576x!llm.block<q4_0>>) -> tensor<1x?x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x?x576xf32>, tensor<96x576x!llm.block<q4_0>> -> tensor<1x?x96xf32>
    return %0 : tensor<1x?x96xf32>
  }
  func.func private @embed_q4_0(%t: tensor<1x?xi32>, %w: tensor<96x576x!llm.block<q4_0>>) -> tensor<1x?x576xf32> {
    %0 = llm.embedding %t, %w : tensor<1x?xi32>, tensor<96x576x!llm.block<q4_0>> -> tensor<1x?x576xf32>
    return %0 : tensor<1x?x576xf32>
  }
  func.func private @gemv_q4_1(%x: tensor<1x1x576xf32>, %w: tensor<96x576x!llm.block<q4_1>>) -> tensor<1x1x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x1x576xf32>, tensor<96x576x!llm.block<q4_1>> -> tensor<1x1x96xf32>
    return %0 : tensor<1x1x96xf32>
  }
  func.func private @gemm_q4_1(%x: tensor<1x?x576xf32>, %w: tensor<96x576x!llm.block<q4_1>>) -> tensor<1x?x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x?x576xf32>, tensor<96x576x!llm.block<q4_1>> -> tensor<1x?x96xf32>
    return %0 : tensor<1x?x96xf32>
  }
  func.func private @embed_q4_1(%t: tensor<1x?xi32>, %w: tensor<96x576x!llm.block<q4_1>>) -> tensor<1x?x576xf32> {
    %0 = llm.embedding %t, %w : tensor<1x?xi32>, tensor<96x576x!llm.block<q4_1>> -> tensor<1x?x576xf32>
    return %0 : tensor<1x?x576xf32>
  }
  func.func private @gemv_q5_0(%x: tensor<1x1x576xf32>, %w: tensor<96x576x!llm.block<q5_0>>) -> tensor<1x1x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x1x576xf32>, tensor<96x576x!llm.block<q5_0>> -> tensor<1x1x96xf32>
    return %0 : tensor<1x1x96xf32>
  }
  func.func private @gemm_q5_0(%x: tensor<1x?x576xf32>, %w: tensor<96x576x!llm.block<q5_0>>) -> tensor<1x?x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x?x576xf32>, tensor<96x576x!llm.block<q5_0>> -> tensor<1x?x96xf32>
    return %0 : tensor<1x?x96xf32>
  }
  func.func private @embed_q5_0(%t: tensor<1x?xi32>, %w: tensor<96x576x!llm.block<q5_0>>) -> tensor<1x?x576xf32> {
    %0 = llm.embedding %t, %w : tensor<1x?xi32>, tensor<96x576x!llm.block<q5_0>> -> tensor<1x?x576xf32>
    return %0 : tensor<1x?x576xf32>
  }
  func.func private @gemv_q5_1(%x: tensor<1x1x576xf32>, %w: tensor<96x576x!llm.block<q5_1>>) -> tensor<1x1x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x1x576xf32>, tensor<96x576x!llm.block<q5_1>> -> tensor<1x1x96xf32>
    return %0 : tensor<1x1x96xf32>
  }
  func.func private @gemm_q5_1(%x: tensor<1x?x576xf32>, %w: tensor<96x576x!llm.block<q5_1>>) -> tensor<1x?x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x?x576xf32>, tensor<96x576x!llm.block<q5_1>> -> tensor<1x?x96xf32>
    return %0 : tensor<1x?x96xf32>
  }
  func.func private @embed_q5_1(%t: tensor<1x?xi32>, %w: tensor<96x576x!llm.block<q5_1>>) -> tensor<1x?x576xf32> {
    %0 = llm.embedding %t, %w : tensor<1x?xi32>, tensor<96x576x!llm.block<q5_1>> -> tensor<1x?x576xf32>
    return %0 : tensor<1x?x576xf32>
  }
  func.func private @gemv_q4_k(%x: tensor<1x1x512xf32>, %w: tensor<96x512x!llm.block<q4_k>>) -> tensor<1x1x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x1x512xf32>, tensor<96x512x!llm.block<q4_k>> -> tensor<1x1x96xf32>
    return %0 : tensor<1x1x96xf32>
  }
  func.func private @gemm_q4_k(%x: tensor<1x?x512xf32>, %w: tensor<96x512x!llm.block<q4_k>>) -> tensor<1x?x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x?x512xf32>, tensor<96x512x!llm.block<q4_k>> -> tensor<1x?x96xf32>
    return %0 : tensor<1x?x96xf32>
  }
  func.func private @embed_q4_k(%t: tensor<1x?xi32>, %w: tensor<96x512x!llm.block<q4_k>>) -> tensor<1x?x512xf32> {
    %0 = llm.embedding %t, %w : tensor<1x?xi32>, tensor<96x512x!llm.block<q4_k>> -> tensor<1x?x512xf32>
    return %0 : tensor<1x?x512xf32>
  }
  func.func private @gemv_q5_k(%x: tensor<1x1x512xf32>, %w: tensor<96x512x!llm.block<q5_k>>) -> tensor<1x1x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x1x512xf32>, tensor<96x512x!llm.block<q5_k>> -> tensor<1x1x96xf32>
    return %0 : tensor<1x1x96xf32>
  }
  func.func private @gemm_q5_k(%x: tensor<1x?x512xf32>, %w: tensor<96x512x!llm.block<q5_k>>) -> tensor<1x?x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x?x512xf32>, tensor<96x512x!llm.block<q5_k>> -> tensor<1x?x96xf32>
    return %0 : tensor<1x?x96xf32>
  }
  func.func private @embed_q5_k(%t: tensor<1x?xi32>, %w: tensor<96x512x!llm.block<q5_k>>) -> tensor<1x?x512xf32> {
    %0 = llm.embedding %t, %w : tensor<1x?xi32>, tensor<96x512x!llm.block<q5_k>> -> tensor<1x?x512xf32>
    return %0 : tensor<1x?x512xf32>
  }
  func.func private @gemv_q6_k(%x: tensor<1x1x512xf32>, %w: tensor<96x512x!llm.block<q6_k>>) -> tensor<1x1x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x1x512xf32>, tensor<96x512x!llm.block<q6_k>> -> tensor<1x1x96xf32>
    return %0 : tensor<1x1x96xf32>
  }
  func.func private @gemm_q6_k(%x: tensor<1x?x512xf32>, %w: tensor<96x512x!llm.block<q6_k>>) -> tensor<1x?x96xf32> {
    %0 = llm.linear %x, %w : tensor<1x?x512xf32>, tensor<96x512x!llm.block<q6_k>> -> tensor<1x?x96xf32>
    return %0 : tensor<1x?x96xf32>
  }
  func.func private @embed_q6_k(%t: tensor<1x?xi32>, %w: tensor<96x512x!llm.block<q6_k>>) -> tensor<1x?x512xf32> {
    %0 = llm.embedding %t, %w : tensor<1x?xi32>, tensor<96x512x!llm.block<q6_k>> -> tensor<1x?x512xf32>
    return %0 : tensor<1x?x512xf32>
  }
  func.func private @llama_qkv_q4km(%h: tensor<1x1x4096xf32>, %g: tensor<4096xf32>, %wq: tensor<4096x4096x!llm.block<q4_k>>, %wk: tensor<1024x4096x!llm.block<q4_k>>, %wv: tensor<1024x4096x!llm.block<q6_k>>) -> (tensor<1x1x4096xf32>, tensor<1x1x1024xf32>, tensor<1x1x1024xf32>) {
    %0:3 = llm.multi_linear %h norm(%g : tensor<4096xf32>) weights(%wq, %wk, %wv : tensor<4096x4096x!llm.block<q4_k>>, tensor<1024x4096x!llm.block<q4_k>>, tensor<1024x4096x!llm.block<q6_k>>) {norm_eps = 1.0e-05 : f64} : tensor<1x1x4096xf32> -> tensor<1x1x4096xf32>, tensor<1x1x1024xf32>, tensor<1x1x1024xf32>
    return %0#0, %0#1, %0#2 : tensor<1x1x4096xf32>, tensor<1x1x1024xf32>, tensor<1x1x1024xf32>
  }
  func.func private @llama_gate_up_q4k(%h: tensor<1x1x4096xf32>, %g: tensor<4096xf32>, %wg: tensor<14336x4096x!llm.block<q4_k>>, %wu: tensor<14336x4096x!llm.block<q4_k>>) -> tensor<1x1x14336xf32> {
    %a = llm.glu_linear silu %h norm(%g : tensor<4096xf32>), %wg, %wu {norm_eps = 1.0e-05 : f64} : tensor<1x1x4096xf32>, tensor<14336x4096x!llm.block<q4_k>>, tensor<14336x4096x!llm.block<q4_k>> -> tensor<1x1x14336xf32>
    return %a : tensor<1x1x14336xf32>
  }
  func.func private @llama_gate_up_q6k(%h: tensor<1x1x4096xf32>, %g: tensor<4096xf32>, %wg: tensor<14336x4096x!llm.block<q6_k>>, %wu: tensor<14336x4096x!llm.block<q6_k>>) -> tensor<1x1x14336xf32> {
    %a = llm.glu_linear silu %h norm(%g : tensor<4096xf32>), %wg, %wu {norm_eps = 1.0e-05 : f64} : tensor<1x1x4096xf32>, tensor<14336x4096x!llm.block<q6_k>>, tensor<14336x4096x!llm.block<q6_k>> -> tensor<1x1x14336xf32>
    return %a : tensor<1x1x14336xf32>
  }
  func.func private @smol_gate_up_q5_0(%h: tensor<1x1x576xf32>, %g: tensor<576xf32>, %wg: tensor<1536x576x!llm.block<q5_0>>, %wu: tensor<1536x576x!llm.block<q5_0>>) -> tensor<1x1x1536xf32> {
    %a = llm.glu_linear silu %h norm(%g : tensor<576xf32>), %wg, %wu {norm_eps = 1.0e-05 : f64} : tensor<1x1x576xf32>, tensor<1536x576x!llm.block<q5_0>>, tensor<1536x576x!llm.block<q5_0>> -> tensor<1x1x1536xf32>
    return %a : tensor<1x1x1536xf32>
  }
  func.func private @llama_down_q6k(%x: tensor<1x1x14336xf32>, %w: tensor<4096x14336x!llm.block<q6_k>>, %r: tensor<1x1x4096xf32>) -> tensor<1x1x4096xf32> {
    %0 = llm.linear %x, %w residual %r : tensor<1x1x14336xf32>, tensor<4096x14336x!llm.block<q6_k>> residual tensor<1x1x4096xf32> -> tensor<1x1x4096xf32>
    return %0 : tensor<1x1x4096xf32>
  }
  func.func private @llama_up_q5k_two_rows(%x: tensor<1x1x4096xf32>, %w: tensor<14336x4096x!llm.block<q5_k>>) -> tensor<1x1x14336xf32> {
    %0 = llm.linear %x, %w : tensor<1x1x4096xf32>, tensor<14336x4096x!llm.block<q5_k>> -> tensor<1x1x14336xf32>
    return %0 : tensor<1x1x14336xf32>
  }
  func.func private @smol_logits_q8_0(%x: tensor<1x1x576xf32>, %table: tensor<49152x576x!llm.block<q8_0>>) -> tensor<1x1x49152xf32> {
    %0 = llm.logits %x, %table {tied} : tensor<1x1x576xf32>, tensor<49152x576x!llm.block<q8_0>> -> tensor<1x1x49152xf32>
    return %0 : tensor<1x1x49152xf32>
  }
  func.func private @glu_q4_k_1(%h: tensor<1x1x4096xf32>, %g: tensor<4096xf32>, %wg: tensor<14336x4096x!llm.block<q4_k>>, %wu: tensor<14336x4096x!llm.block<q4_k>>) -> tensor<1x1x14336xf32> {
    %a = llm.glu_linear silu %h norm(%g : tensor<4096xf32>), %wg, %wu {norm_eps = 1.0e-05 : f64} : tensor<1x1x4096xf32>, tensor<14336x4096x!llm.block<q4_k>>, tensor<14336x4096x!llm.block<q4_k>> -> tensor<1x1x14336xf32>
    return %a : tensor<1x1x14336xf32>
  }
  func.func private @glu_q4_k_0(%h: tensor<1x1x4096xf32>, %g: tensor<4096xf32>, %wg: tensor<14336x4096x!llm.block<q4_k>>, %wu: tensor<14336x4096x!llm.block<q4_k>>) -> tensor<1x1x14336xf32> {
    %a = llm.glu_linear silu %h, %wg, %wu : tensor<1x1x4096xf32>, tensor<14336x4096x!llm.block<q4_k>>, tensor<14336x4096x!llm.block<q4_k>> -> tensor<1x1x14336xf32>
    return %a : tensor<1x1x14336xf32>
  }
  func.func private @glu_q5_k_1(%h: tensor<1x1x4096xf32>, %g: tensor<4096xf32>, %wg: tensor<14336x4096x!llm.block<q5_k>>, %wu: tensor<14336x4096x!llm.block<q5_k>>) -> tensor<1x1x14336xf32> {
    %a = llm.glu_linear silu %h norm(%g : tensor<4096xf32>), %wg, %wu {norm_eps = 1.0e-05 : f64} : tensor<1x1x4096xf32>, tensor<14336x4096x!llm.block<q5_k>>, tensor<14336x4096x!llm.block<q5_k>> -> tensor<1x1x14336xf32>
    return %a : tensor<1x1x14336xf32>
  }
  func.func private @glu_q5_k_0(%h: tensor<1x1x4096xf32>, %g: tensor<4096xf32>, %wg: tensor<14336x4096x!llm.block<q5_k>>, %wu: tensor<14336x4096x!llm.block<q5_k>>) -> tensor<1x1x14336xf32> {
    %a = llm.glu_linear silu %h, %wg, %wu : tensor<1x1x4096xf32>, tensor<14336x4096x!llm.block<q5_k>>, tensor<14336x4096x!llm.block<q5_k>> -> tensor<1x1x14336xf32>
    return %a : tensor<1x1x14336xf32>
  }
  func.func private @glu_q6_k_1(%h: tensor<1x1x4096xf32>, %g: tensor<4096xf32>, %wg: tensor<14336x4096x!llm.block<q6_k>>, %wu: tensor<14336x4096x!llm.block<q6_k>>) -> tensor<1x1x14336xf32> {
    %a = llm.glu_linear silu %h norm(%g : tensor<4096xf32>), %wg, %wu {norm_eps = 1.0e-05 : f64} : tensor<1x1x4096xf32>, tensor<14336x4096x!llm.block<q6_k>>, tensor<14336x4096x!llm.block<q6_k>> -> tensor<1x1x14336xf32>
    return %a : tensor<1x1x14336xf32>
  }
  func.func private @glu_q6_k_0(%h: tensor<1x1x4096xf32>, %g: tensor<4096xf32>, %wg: tensor<14336x4096x!llm.block<q6_k>>, %wu: tensor<14336x4096x!llm.block<q6_k>>) -> tensor<1x1x14336xf32> {
    %a = llm.glu_linear silu %h, %wg, %wu : tensor<1x1x4096xf32>, tensor<14336x4096x!llm.block<q6_k>>, tensor<14336x4096x!llm.block<q6_k>> -> tensor<1x1x14336xf32>
    return %a : tensor<1x1x14336xf32>
  }
}
