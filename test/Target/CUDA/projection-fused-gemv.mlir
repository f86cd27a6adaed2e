// The fused projections of decode (the `fused` phase's ops, one row) → one
// GEMV kernel each:
// - llm.multi_linear: the warps of one grid take the rows of the first
//   weight, then of the second, ... (a chain of warp-uniform scf.if), all
//   reading the same x;
// - llm.glu_linear: a warp computes the gate row and the up row of one
//   output from the same x vectors and stores only act(gate) · up;
// - a fused norm: x · γ in the dot products, Σx² in one more accumulator
//   per lane, and the sums scaled by 1/sqrt(mean + eps) (sqrt.rn, div.rn)
//   at the end; the normalized row never goes to memory;
// - a residual: added by lane 0 when it stores the row.
// Every kernel assembles for sm_80 and sm_90 without spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

module attributes {llm.model = "t"} {
  // LLaMA-3-8B's attention input: rms_norm + q/k/v.
  func.func private @llama3_qkv(%h: tensor<1x1x4096xf32>, %g: tensor<4096xbf16>, %wq: tensor<4096x4096xbf16>, %wk: tensor<1024x4096xbf16>, %wv: tensor<1024x4096xbf16>) -> (tensor<1x1x4096xf32>, tensor<1x1x1024xf32>, tensor<1x1x1024xf32>) {
    %0:3 = llm.multi_linear %h norm(%g : tensor<4096xbf16>) weights(%wq, %wk, %wv : tensor<4096x4096xbf16>, tensor<1024x4096xbf16>, tensor<1024x4096xbf16>) {norm_eps = 1.0e-05 : f64} : tensor<1x1x4096xf32> -> tensor<1x1x4096xf32>, tensor<1x1x1024xf32>, tensor<1x1x1024xf32>
    return %0#0, %0#1, %0#2 : tensor<1x1x4096xf32>, tensor<1x1x1024xf32>, tensor<1x1x1024xf32>
  }
  // LLaMA-3-8B's FFN: rms_norm + gate/up + SwiGLU, then down + residual.
  func.func private @llama3_ffn(%h: tensor<1x1x4096xf32>, %g: tensor<4096xbf16>, %wg: tensor<14336x4096xbf16>, %wu: tensor<14336x4096xbf16>, %wd: tensor<4096x14336xbf16>) -> tensor<1x1x4096xf32> {
    %a = llm.glu_linear silu %h norm(%g : tensor<4096xbf16>), %wg, %wu {norm_eps = 1.0e-05 : f64} : tensor<1x1x4096xf32>, tensor<14336x4096xbf16>, tensor<14336x4096xbf16> -> tensor<1x1x14336xf32>
    %o = llm.linear %a, %wd residual %h : tensor<1x1x14336xf32>, tensor<4096x14336xbf16> residual tensor<1x1x4096xf32> -> tensor<1x1x4096xf32>
    return %o : tensor<1x1x4096xf32>
  }
  // Qwen2-0.5B's q/k/v with biases, without a norm.
  func.func private @qwen2_qkv(%x: tensor<1x1x896xf32>, %wq: tensor<896x896xbf16>, %wk: tensor<128x896xbf16>, %bq: tensor<896xbf16>, %bk: tensor<128xbf16>) -> (tensor<1x1x896xf32>, tensor<1x1x128xf32>) {
    %0:2 = llm.multi_linear %x weights(%wq, %wk : tensor<896x896xbf16>, tensor<128x896xbf16>) biases(%bq, %bk : tensor<896xbf16>, tensor<128xbf16>) : tensor<1x1x896xf32> -> tensor<1x1x896xf32>, tensor<1x1x128xf32>
    return %0#0, %0#1 : tensor<1x1x896xf32>, tensor<1x1x128xf32>
  }
  // GeGLU over f32 weights with an f32 norm and an odd K.
  func.func private @small_geglu(%h: tensor<1x1x13xf32>, %g: tensor<13xf32>, %wg: tensor<40x13xf32>, %wu: tensor<40x13xf32>) -> tensor<1x1x40xf32> {
    %a = llm.glu_linear gelu_tanh %h norm(%g : tensor<13xf32>), %wg, %wu {norm_eps = 1.0e-06 : f64} : tensor<1x1x13xf32>, tensor<40x13xf32>, tensor<40x13xf32> -> tensor<1x1x40xf32>
    return %a : tensor<1x1x40xf32>
  }
}

// Host side: one launch for q, k and v, 6144 rows at 8 per CTA; x, the norm
// weight, then each output's weight and result.
// KERNELS-LABEL: func.func private @llama3_qkv
// KERNELS-COUNT-3: memref.alloc()
// KERNELS: gpu.launch_func @llmc_kernels::@gemv_n4096_1024_1024_k4096_bf16_normbf16_r1 blocks in (%c768, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<1x4096xf32>, %arg1 : memref<4096xbf16>, %arg2 : memref<4096x4096xbf16>, %{{.*}} : memref<1x4096xf32>, %arg3 : memref<1024x4096xbf16>, %{{.*}} : memref<1x1024xf32>, %arg4 : memref<1024x4096xbf16>, %{{.*}} : memref<1x1024xf32>)
// KERNELS-NOT: gpu.launch_func
// KERNELS: return
// The FFN: 14336 gated outputs, one per warp; the down projection adds %h.
// KERNELS-LABEL: func.func private @llama3_ffn
// KERNELS: gpu.launch_func @llmc_kernels::@gemv_glu_silu_n14336_k4096_bf16_normbf16 blocks in (%c1792, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<1x4096xf32>, %arg1 : memref<4096xbf16>, %arg2 : memref<14336x4096xbf16>, %arg3 : memref<14336x4096xbf16>, %{{.*}} : memref<1x14336xf32>)
// KERNELS: gpu.launch_func @llmc_kernels::@gemv_n4096_k14336_bf16_res_r1 blocks in (%c512, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<1x14336xf32>, %arg4 : memref<4096x14336xbf16>, %[[H:.*]] : memref<1x4096xf32>, %{{.*}} : memref<1x4096xf32>)
// KERNELS-LABEL: func.func private @qwen2_qkv
// KERNELS: gpu.launch_func @llmc_kernels::@gemv_n896_128_k896_bf16_biasbf16_r1 blocks in (%c128, %c1, %c1) {{.*}} args(%{{.*}} : memref<1x896xf32>, %arg1 : memref<896x896xbf16>, %arg3 : memref<896xbf16>, %{{.*}} : memref<1x896xf32>, %arg2 : memref<128x896xbf16>, %arg4 : memref<128xbf16>, %{{.*}} : memref<1x128xf32>)

// The q/k/v kernel: warps 0..4095 take q's rows, 4096..5119 k's, the rest
// up to 6143 v's. Each lane loads x, γ and the weight row, accumulates Σx²
// as a scalar and the weight · (x · γ) products in a vector; the warp's
// sums are scaled by 1/sqrt(Σx²/4096 + eps).
// KERNELS-LABEL: gpu.func @gemv_n4096_1024_1024_k4096_bf16_normbf16_r1(%arg0: memref<1x4096xf32>, %arg1: memref<4096xbf16>, %arg2: memref<4096x4096xbf16>, %arg3: memref<1x4096xf32>, %arg4: memref<1024x4096xbf16>, %arg5: memref<1x1024xf32>, %arg6: memref<1024x4096xbf16>, %arg7: memref<1x1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 4 : i32}
// KERNELS: %[[WARP:.*]] = arith.addi
// KERNELS: %[[INQ:.*]] = arith.cmpi ult, %[[WARP]], %c4096 : index
// KERNELS-NEXT: scf.if %[[INQ]] {
// KERNELS: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[SQ:.*]] = %{{.*}}) -> (vector<8xf32>, f32)
// KERNELS: %[[X:.*]] = vector.load %arg0[%c0, %[[COL:.*]]] {alignment = 16 : i64} : memref<1x4096xf32>, vector<8xf32>
// KERNELS-NEXT: %[[G:.*]] = vector.load %arg1[%[[COL]]] {alignment = 16 : i64} : memref<4096xbf16>, vector<8xbf16>
// KERNELS-NEXT: %[[W:.*]] = vector.load %arg2[%[[WARP]], %[[COL]]] {alignment = 16 : i64} : memref<4096x4096xbf16>, vector<8xbf16>
// KERNELS: %[[X2:.*]] = arith.mulf %[[X]], %[[X]] : vector<8xf32>
// KERNELS-NEXT: %[[SQ1:.*]] = vector.reduction <add>, %[[X2]], %[[SQ]] : vector<8xf32> into f32
// KERNELS-NEXT: %[[GF:.*]] = arith.extf %[[G]] : vector<8xbf16> to vector<8xf32>
// KERNELS-NEXT: %[[XG:.*]] = arith.mulf %[[X]], %[[GF]] : vector<8xf32>
// KERNELS-NEXT: %[[WF:.*]] = arith.extf %[[W]] : vector<8xbf16> to vector<8xf32>
// KERNELS-NEXT: vector.fma %[[WF]], %[[XG]], %[[ACC]] : vector<8xf32>
// KERNELS: %[[MEAN:.*]] = arith.mulf %{{.*}}, %cst{{.*}} : f32
// KERNELS-NEXT: %[[VAR:.*]] = arith.addf %[[MEAN]], %cst{{.*}} : f32
// KERNELS-NEXT: %[[ROOT:.*]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%[[VAR]]) : (f32) -> f32
// KERNELS-NEXT: %[[SCALE:.*]] = arith.divf %cst{{.*}}, %[[ROOT]] : f32
// KERNELS-NEXT: %[[Q:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// KERNELS: memref.store %[[Q]], %arg3[%c0, %[[WARP]]] : memref<1x4096xf32>
// KERNELS: } else {
// KERNELS-NEXT: %[[INK:.*]] = arith.cmpi ult, %[[WARP]], %c5120 : index
// KERNELS-NEXT: scf.if %[[INK]] {
// KERNELS-NEXT: %[[KROW:.*]] = arith.subi %[[WARP]], %c4096 : index
// KERNELS: vector.load %arg4[%[[KROW]], %{{.*}}] {alignment = 16 : i64} : memref<1024x4096xbf16>, vector<8xbf16>
// KERNELS: memref.store %{{.*}}, %arg5[%c0, %[[KROW]]] : memref<1x1024xf32>
// KERNELS: } else {
// KERNELS-NEXT: %[[INV:.*]] = arith.cmpi ult, %[[WARP]], %c6144 : index
// KERNELS-NEXT: scf.if %[[INV]] {
// KERNELS-NEXT: %[[VROW:.*]] = arith.subi %[[WARP]], %c5120 : index
// KERNELS: memref.store %{{.*}}, %arg7[%c0, %[[VROW]]] : memref<1x1024xf32>
// KERNELS: gpu.return

// The gated kernel: the gate and up rows of output `warp` share each x · γ
// vector; lane 0 stores silu(gate) · up.
// KERNELS-LABEL: gpu.func @gemv_glu_silu_n14336_k4096_bf16_normbf16(
// KERNELS-SAME: nvvm.minctasm = 2 : i32
// KERNELS: %[[ROW:.*]] = arith.addi
// KERNELS: arith.cmpi ult, %[[ROW]], %c14336 : index
// KERNELS: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, f32)
// KERNELS: %[[GW:.*]] = vector.load %arg2[%[[ROW]], %[[C:.*]]] {alignment = 16 : i64} : memref<14336x4096xbf16>, vector<8xbf16>
// KERNELS-NEXT: %[[UW:.*]] = vector.load %arg3[%[[ROW]], %[[C]]] {alignment = 16 : i64} : memref<14336x4096xbf16>, vector<8xbf16>
// KERNELS: %[[S:.*]] = arith.divf %cst{{.*}}, %{{.*}} : f32
// KERNELS-NEXT: %[[GATE:.*]] = arith.mulf %{{.*}}, %[[S]] : f32
// KERNELS-NEXT: %[[UP:.*]] = arith.mulf %{{.*}}, %[[S]] : f32
// KERNELS: %[[NEG:.*]] = arith.negf %[[GATE]] : f32
// KERNELS-NEXT: %[[E:.*]] = math.exp %[[NEG]] : f32
// KERNELS-NEXT: %[[D:.*]] = arith.addf %[[E]], %cst{{.*}} : f32
// KERNELS-NEXT: %[[SILU:.*]] = arith.divf %[[GATE]], %[[D]] : f32
// KERNELS-NEXT: %[[UNIT:.*]] = arith.mulf %[[SILU]], %[[UP]] : f32
// KERNELS-NEXT: memref.store %[[UNIT]], %arg4[%c0, %[[ROW]]] : memref<1x14336xf32>

// The residual epilogue: lane 0 adds residual[0, row] to the row's sum.
// KERNELS-LABEL: gpu.func @gemv_n4096_k14336_bf16_res_r1(
// KERNELS: %[[R:.*]] = memref.load %arg2[%c0, %[[RROW:.*]]] : memref<1x4096xf32>
// KERNELS-NEXT: %[[SUM:.*]] = arith.addf %{{.*}}, %[[R]] : f32
// KERNELS-NEXT: memref.store %[[SUM]], %arg3[%c0, %[[RROW]]] : memref<1x4096xf32>

// Biases per output: k's bias indexed by the row within k.
// KERNELS-LABEL: gpu.func @gemv_n896_128_k896_bf16_biasbf16_r1(
// KERNELS: %[[KR:.*]] = arith.subi %{{.*}}, %c896 : index
// KERNELS: %[[KB:.*]] = arith.minui %[[KR]], %c127 : index
// KERNELS-NEXT: memref.load %arg5[%[[KB]]] : memref<128xbf16>
// KERNELS: memref.store %{{.*}}, %arg6[%c0, %[[KR]]] : memref<1x128xf32>

// K = 13: scalar loads of x, γ and both weights; GeGLU (tanh form).
// KERNELS-LABEL: gpu.func @gemv_glu_gelu_tanh_n40_k13_f32_normf32(
// KERNELS: vector.load %arg0[%c0, %{{.*}}] {alignment = 4 : i64} : memref<1x13xf32>, vector<1xf32>
// KERNELS-NEXT: vector.load %arg1[%{{.*}}] {alignment = 4 : i64} : memref<13xf32>, vector<1xf32>
// KERNELS-NEXT: vector.load %arg2[%{{.*}}] {alignment = 4 : i64} : memref<40x13xf32>, vector<1xf32>
// KERNELS-NEXT: vector.load %arg3[%{{.*}}] {alignment = 4 : i64} : memref<40x13xf32>, vector<1xf32>
// KERNELS: math.tanh

// The PTX has the occupancy target, 128-bit loads, the correctly rounded
// square root.
// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-LABEL: .entry gemv_n4096_1024_1024_k4096_bf16_normbf16_r1(
// PTX: .maxntid 256, 1, 1
// PTX-NEXT: .minnctapersm 4
// PTX: ld.global.v4.b32
// PTX: shfl.sync.bfly.b32
// PTX: sqrt.rn.f32
// PTX-LABEL: .entry gemv_glu_silu_n14336_k4096_bf16_normbf16(
// PTX: .minnctapersm 2
// PTX: ex2.approx
// PTX-LABEL: // ---- llmc: PTX for sm_90

// PTXAS-DAG: kernel gemv_n4096_1024_1024_k4096_bf16_normbf16_r1 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_glu_silu_n14336_k4096_bf16_normbf16 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n4096_k14336_bf16_res_r1 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n896_128_k896_bf16_biasbf16_r1 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_glu_gelu_tanh_n40_k13_f32_normf32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n4096_1024_1024_k4096_bf16_normbf16_r1 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_glu_silu_n14336_k4096_bf16_normbf16 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n4096_k14336_bf16_res_r1 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n896_128_k896_bf16_biasbf16_r1 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_glu_gelu_tanh_n40_k13_f32_normf32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
