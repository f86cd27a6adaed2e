// llm.rope → a kernel specialized to (style, heads, head_dim, rotary_dim,
// frequencies) on a grid (tokens, pair groups of 128): thread item = one
// rotated pair (head, i), angle = f32(position) · inv_freq[i], cos/sin from
// libdevice in f32 (the accurate versions: Payne–Hanek reduction through
// __cudart_i2opi_f, no sin/cos.approx), scaled by YaRN's attention factor;
// items past the pairs copy the elements beyond rotary_dim (partial rotary).
// Static scaling kinds bake the CPU's f32 inv_freq table as a constant
// global shared by Q and K; dynamic NTK computes it per call with a one-block
// kernel from max(positions) + 1, and longrope picks its short or long table
// there. Every kernel assembles for sm_80 and sm_90
// without spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=GLOBALS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

module attributes {llm.model = "t"} {
  // LLaMA-3: θ = 500000, half style, Q and K share one table.
  func.func private @none_half(%q: tensor<1x?x32x128xf32>, %k: tensor<1x?x8x128xf32>, %p: tensor<1x?xi32>) -> (tensor<1x?x32x128xf32>, tensor<1x?x8x128xf32>) {
    %0 = llm.rope half %q, %p {theta = 5.0e+05 : f64, rotary_dim = 128 : i64} : tensor<1x?x32x128xf32>, tensor<1x?xi32>
    %1 = llm.rope half %k, %p {theta = 5.0e+05 : f64, rotary_dim = 128 : i64} : tensor<1x?x8x128xf32>, tensor<1x?xi32>
    return %0, %1 : tensor<1x?x32x128xf32>, tensor<1x?x8x128xf32>
  }
  // llama2.c / GGUF: interleaved pairs, decode (T = 1).
  func.func private @none_interleaved(%q: tensor<1x1x8x8xf32>, %p: tensor<1x1xi32>) -> tensor<1x1x8x8xf32> {
    %0 = llm.rope interleaved %q, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x1x8x8xf32>, tensor<1x1xi32>
    return %0 : tensor<1x1x8x8xf32>
  }
  func.func private @linear(%q: tensor<1x?x4x64xf32>, %p: tensor<1x?xi32>) -> tensor<1x?x4x64xf32> {
    %0 = llm.rope half %q, %p {theta = 1.0e+04 : f64, rotary_dim = 64 : i64, scaling = #llm.rope_linear<factor = 4.0>} : tensor<1x?x4x64xf32>, tensor<1x?xi32>
    return %0 : tensor<1x?x4x64xf32>
  }
  func.func private @ntk(%q: tensor<1x?x4x64xf32>, %p: tensor<1x?xi32>) -> tensor<1x?x4x64xf32> {
    %0 = llm.rope interleaved %q, %p {theta = 1.0e+04 : f64, rotary_dim = 64 : i64, scaling = #llm.rope_ntk<factor = 4.0>} : tensor<1x?x4x64xf32>, tensor<1x?xi32>
    return %0 : tensor<1x?x4x64xf32>
  }
  // Dynamic NTK: a one-block kernel computes the table from max(positions).
  func.func private @dynamic(%q: tensor<1x?x4x64xf32>, %p: tensor<1x?xi32>) -> tensor<1x?x4x64xf32> {
    %0 = llm.rope half %q, %p {theta = 1.0e+04 : f64, rotary_dim = 64 : i64, scaling = #llm.rope_dynamic<factor = 2.0, original_max_position_embeddings = 2048>} : tensor<1x?x4x64xf32>, tensor<1x?xi32>
    return %0 : tensor<1x?x4x64xf32>
  }
  // longrope: the same one-block kernel picks the short or long table.
  func.func private @longrope(%q: tensor<1x?x4x8xf32>, %p: tensor<1x?xi32>) -> tensor<1x?x4x8xf32> {
    %0 = llm.rope half %q, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64, scaling = #llm.rope_longrope<factor = 4.0, original_max_position_embeddings = 16, short_factor = [1.0, 1.5, 2.0, 2.5], long_factor = [1.0, 2.0, 4.0, 8.0]>} : tensor<1x?x4x8xf32>, tensor<1x?xi32>
    return %0 : tensor<1x?x4x8xf32>
  }
  // YaRN: cos and sin scaled by 0.1·ln(4) + 1.
  func.func private @yarn(%q: tensor<1x?x4x64xf32>, %p: tensor<1x?xi32>) -> tensor<1x?x4x64xf32> {
    %0 = llm.rope half %q, %p {theta = 1.0e+04 : f64, rotary_dim = 64 : i64, scaling = #llm.rope_yarn<factor = 4.0, original_max_position_embeddings = 4096>} : tensor<1x?x4x64xf32>, tensor<1x?xi32>
    return %0 : tensor<1x?x4x64xf32>
  }
  func.func private @llama3(%q: tensor<1x?x32x128xf32>, %p: tensor<1x?xi32>) -> tensor<1x?x32x128xf32> {
    %0 = llm.rope half %q, %p {theta = 5.0e+05 : f64, rotary_dim = 128 : i64, scaling = #llm.rope_llama3<factor = 8.0, original_max_position_embeddings = 8192>} : tensor<1x?x32x128xf32>, tensor<1x?xi32>
    return %0 : tensor<1x?x32x128xf32>
  }
  // Partial rotary: 32 of 80 elements rotated, 48 per head copied.
  func.func private @partial(%q: tensor<1x?x4x80xf32>, %p: tensor<1x?xi32>) -> tensor<1x?x4x80xf32> {
    %0 = llm.rope interleaved %q, %p {theta = 1.0e+04 : f64, rotary_dim = 32 : i64, scaling = #llm.rope_yarn<factor = 2.0, original_max_position_embeddings = 4096, attention_factor = 1.5>} : tensor<1x?x4x80xf32>, tensor<1x?xi32>
    return %0 : tensor<1x?x4x80xf32>
  }
}

// Host side: x (B, T, H, Dh) → (B·T, H·Dh), positions → (B·T); grid y =
// ceil(max(pairs, copied elements) / 128).
// KERNELS-LABEL: func.func private @none_half
// KERNELS: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2, 3]] : memref<1x?x32x128xf32> into memref<?x4096xf32>
// KERNELS: %[[POS:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1]] : memref<1x?xi32> into memref<?xi32>
// KERNELS: %[[OUT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : memref<1x?x32x128xf32> into memref<?x4096xf32>
// KERNELS: %[[T:.*]] = memref.dim %[[POS]], %c0 : memref<?xi32>
// KERNELS: gpu.launch_func @llmc_kernels::@rope_half_h32_d128_r128_none_[[TAG:[0-9a-f]+]]_f32_i32 blocks in (%[[T]], %c16, %c1) threads in (%c128, %c1, %c1) args(%[[X]] : memref<?x4096xf32>, %[[POS]] : memref<?xi32>, %[[OUT]] : memref<?x4096xf32>)
// KERNELS: gpu.launch_func @llmc_kernels::@rope_half_h8_d128_r128_none_[[TAG]]_f32_i32 blocks in (%[[T]], %c4, %c1)
// KERNELS-LABEL: func.func private @none_interleaved
// KERNELS: gpu.launch_func @llmc_kernels::@rope_interleaved_h8_d8_r8_none_{{[0-9a-f]+}}_f32_i32 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%{{.*}} : memref<?x64xf32>, %{{.*}} : memref<?xi32>, %{{.*}} : memref<?x64xf32>)
// KERNELS-LABEL: func.func private @linear
// KERNELS: gpu.launch_func @llmc_kernels::@rope_half_h4_d64_r64_linear_{{[0-9a-f]+}}_f32_i32
// KERNELS-LABEL: func.func private @ntk
// KERNELS: gpu.launch_func @llmc_kernels::@rope_interleaved_h4_d64_r64_ntk_{{[0-9a-f]+}}_f32_i32
// KERNELS-LABEL: func.func private @dynamic
// KERNELS: %[[DPOS:.*]] = memref.collapse_shape %arg1
// KERNELS: %[[TABLE:.*]] = memref.alloc() : memref<32xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@rope_dynamic_inv_freq_r64_dynamic_[[DTAG:[0-9a-f]+]]_i32 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[DPOS]] : memref<?xi32>, %[[TABLE]] : memref<32xf32>)
// KERNELS: gpu.launch_func @llmc_kernels::@rope_half_h4_d64_r64_dynamic_[[DTAG]]_f32_i32 {{.*}} args(%{{.*}} : memref<?x256xf32>, %[[DPOS]] : memref<?xi32>, %[[TABLE]] : memref<32xf32>, %{{.*}} : memref<?x256xf32>)
// KERNELS-LABEL: func.func private @longrope
// KERNELS: %[[LTABLE:.*]] = memref.alloc() : memref<4xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@rope_dynamic_inv_freq_r8_longrope_[[LTAG:[0-9a-f]+]]_i32 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<?xi32>, %[[LTABLE]] : memref<4xf32>)
// KERNELS: gpu.launch_func @llmc_kernels::@rope_half_h4_d8_r8_longrope_[[LTAG]]_f32_i32 {{.*}} %[[LTABLE]] : memref<4xf32>
// KERNELS-LABEL: func.func private @yarn
// KERNELS: gpu.launch_func @llmc_kernels::@rope_half_h4_d64_r64_yarn_{{[0-9a-f]+}}_f32_i32
// KERNELS-LABEL: func.func private @llama3
// KERNELS: gpu.launch_func @llmc_kernels::@rope_half_h32_d128_r128_llama3_{{[0-9a-f]+}}_f32_i32
// KERNELS-LABEL: func.func private @partial
// KERNELS: gpu.launch_func @llmc_kernels::@rope_interleaved_h4_d80_r32_yarn_{{[0-9a-f]+}}_f32_i32 blocks in (%{{.*}}, %c2, %c1)

// The tables: the CPU lowering's f32 values (test/Conversion/LLMToLinalg/rope.mlir).
// KERNELS-DAG: memref.global "private" constant @rope_inv_freq_r8_none_{{[0-9a-f]+}} : memref<4xf32> = dense<[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]> {alignment = 16 : i64}
// KERNELS-DAG: memref.global "private" constant @rope_inv_freq_r64_linear_{{[0-9a-f]+}} : memref<32xf32> = dense<[2.500000e-01, 0.18747355,
// KERNELS-DAG: memref.global "private" constant @rope_inv_freq_r64_ntk_{{[0-9a-f]+}} : memref<32xf32> = dense<[1.000000e+00, 0.717098355,
// KERNELS-DAG: memref.global "private" constant @rope_inv_freq_r64_yarn_{{[0-9a-f]+}} : memref<32xf32> = dense<[1.000000e+00, 0.749894201,
// KERNELS-DAG: memref.global "private" constant @rope_inv_freq_r128_llama3_{{[0-9a-f]+}} : memref<64xf32>
// KERNELS-DAG: memref.global "private" constant @rope_inv_freq_r128_none_{{[0-9a-f]+}} : memref<64xf32>
// KERNELS-DAG: memref.global "private" constant @rope_inv_freq_r32_yarn_{{[0-9a-f]+}} : memref<16xf32>

// Half style: pair (i, i + 64) of head item / 64.
// KERNELS-LABEL: gpu.func @rope_half_h32_d128_r128_none_{{[0-9a-f]+}}_f32_i32(
// KERNELS-SAME: known_block_size = array<i32: 128, 1, 1>
// KERNELS: %[[TABLE:.*]] = memref.get_global @rope_inv_freq_r128_none_{{[0-9a-f]+}} : memref<64xf32>
// KERNELS: %[[TOKEN:.*]] = gpu.block_id x
// KERNELS: %[[ITEM:.*]] = arith.addi
// KERNELS: %[[PAIR:.*]] = arith.cmpi ult, %[[ITEM]], %c2048 : index
// KERNELS: scf.if %[[PAIR]] {
// KERNELS: %[[HEAD:.*]] = arith.divui %[[ITEM]], %c64 : index
// KERNELS: %[[I:.*]] = arith.remui %[[ITEM]], %c64 : index
// KERNELS: %[[P:.*]] = memref.load %arg1[%[[TOKEN]]] : memref<?xi32>
// KERNELS: %[[PF:.*]] = arith.sitofp %[[P]] : i32 to f32
// KERNELS: %[[F:.*]] = memref.load %[[TABLE]][%[[I]]] : memref<64xf32>
// KERNELS: %[[ANGLE:.*]] = arith.mulf %[[PF]], %[[F]] : f32
// KERNELS: %[[COS:.*]] = math.cos %[[ANGLE]] : f32
// KERNELS: %[[SIN:.*]] = math.sin %[[ANGLE]] : f32
// KERNELS: %[[BASE:.*]] = arith.muli %[[HEAD]], %c128 : index
// KERNELS: %[[C0:.*]] = arith.addi %[[BASE]], %[[I]] : index
// KERNELS: %[[C1:.*]] = arith.addi %[[C0]], %c64 : index
// KERNELS: %[[X0:.*]] = memref.load %arg0[%[[TOKEN]], %[[C0]]]
// KERNELS: %[[X1:.*]] = memref.load %arg0[%[[TOKEN]], %[[C1]]]
// KERNELS: %[[NSIN:.*]] = arith.negf %[[SIN]] : f32
// KERNELS-DAG: %[[A:.*]] = arith.mulf %[[X1]], %[[NSIN]] : f32
// KERNELS-DAG: %[[B:.*]] = arith.mulf %[[X0]], %[[COS]] : f32
// KERNELS: %[[OUT0:.*]] = arith.addf %[[B]], %[[A]] : f32
// KERNELS-DAG: %[[C:.*]] = arith.mulf %[[X0]], %[[SIN]] : f32
// KERNELS-DAG: %[[D:.*]] = arith.mulf %[[X1]], %[[COS]] : f32
// KERNELS: %[[OUT1:.*]] = arith.addf %[[D]], %[[C]] : f32
// KERNELS: memref.store %[[OUT0]], %arg2[%[[TOKEN]], %[[C0]]]
// KERNELS: memref.store %[[OUT1]], %arg2[%[[TOKEN]], %[[C1]]]
// KERNELS-NOT: scf.if
// KERNELS: gpu.return

// Interleaved: the pair (2i, 2i + 1) is one 8-byte vector.
// KERNELS-LABEL: gpu.func @rope_interleaved_h8_d8_r8_none_{{[0-9a-f]+}}_f32_i32(
// KERNELS: %[[TWO:.*]] = arith.muli %{{.*}}, %c2 : index
// KERNELS: %[[COL:.*]] = arith.addi %{{.*}}, %[[TWO]] : index
// KERNELS: vector.load %arg0[%{{.*}}, %[[COL]]] {alignment = 8 : i64} : memref<?x64xf32>, vector<2xf32>
// KERNELS: vector.store %{{.*}}, %arg2[%{{.*}}, %[[COL]]] {alignment = 8 : i64} : memref<?x64xf32>, vector<2xf32>

// Dynamic NTK: L = max(positions) + 1 (f32 maximum, exact below 2^24), ln θ'
// and exp in f64, rounded to f32 like the CPU.
// KERNELS-LABEL: gpu.func @rope_dynamic_inv_freq_r64_dynamic_{{[0-9a-f]+}}_i32(
// KERNELS-SAME: %{{.*}}: memref<?xi32>, %{{.*}}: memref<32xf32>) workgroup(%{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// KERNELS: arith.maximumf
// KERNELS: gpu.barrier
// KERNELS: %[[MAX:.*]] = arith.extf %{{.*}} : f32 to f64
// KERNELS: %[[L:.*]] = arith.addf %[[MAX]], %cst{{.*}} : f64
// KERNELS: math.log %{{.*}} : f64
// KERNELS: %[[LONGER:.*]] = arith.cmpf ogt, %[[L]], %cst{{.*}} : f64
// KERNELS: %[[LOGTHETA:.*]] = arith.select %[[LONGER]]
// KERNELS: scf.for %[[J:.*]] = %{{.*}} to %c32 step %c256 {
// KERNELS: math.exp %{{.*}} : f64
// KERNELS: %[[F32:.*]] = arith.truncf %{{.*}} : f64 to f32
// KERNELS: memref.store %[[F32]], %arg1[%[[J]]] : memref<32xf32>
// KERNELS-LABEL: gpu.func @rope_half_h4_d64_r64_dynamic_{{[0-9a-f]+}}_f32_i32(
// KERNELS-NOT: memref.get_global
// KERNELS: memref.load %arg2[%{{.*}}] : memref<32xf32>

// longrope: θ^(−2i/d) / short_factor, then / long_factor, baked in f32; the
// per-call kernel copies the long half when L = max(positions) + 1 > 16; cos
// and sin times sqrt(1 + ln 4 / ln 16).
// GLOBALS: memref.global "private" constant @rope_longrope_inv_freq_r8_longrope_{{[0-9a-f]+}} : memref<8xf32> = dense<[1.000000e+00, 0.0666666701, 5.000000e-03, 4.000000e-04, 1.000000e+00, 5.000000e-02, 2.500000e-03, 1.250000e-04]>
// KERNELS-LABEL: gpu.func @rope_dynamic_inv_freq_r8_longrope_{{[0-9a-f]+}}_i32(
// KERNELS: %[[LL:.*]] = arith.addf %{{.*}}, %cst{{.*}} : f64
// KERNELS: %[[LTABLES:.*]] = memref.get_global @rope_longrope_inv_freq_r8_longrope_{{[0-9a-f]+}} : memref<8xf32>
// KERNELS: %[[LONG:.*]] = arith.cmpf ogt, %[[LL]], %cst{{.*}} : f64
// KERNELS: %[[OFFSET:.*]] = arith.select %[[LONG]], %c4, %c0 : index
// KERNELS: scf.for %[[LI:.*]] = %{{.*}} to %c4 step %c256 {
// KERNELS: %[[LIDX:.*]] = arith.addi %[[OFFSET]], %[[LI]] : index
// KERNELS: %[[LV:.*]] = memref.load %[[LTABLES]][%[[LIDX]]] : memref<8xf32>
// KERNELS: memref.store %[[LV]], %arg1[%[[LI]]] : memref<4xf32>
// KERNELS-LABEL: gpu.func @rope_half_h4_d8_r8_longrope_{{[0-9a-f]+}}_f32_i32(
// KERNELS: arith.constant 1.22474492 : f32

// YaRN: cos and sin times 0.1·ln(4) + 1.
// KERNELS-LABEL: gpu.func @rope_half_h4_d64_r64_yarn_{{[0-9a-f]+}}_f32_i32(
// KERNELS: %[[AF:.*]] = arith.constant 1.13862944 : f32
// KERNELS: %[[YCOS:.*]] = math.cos
// KERNELS: %[[YSIN:.*]] = math.sin
// KERNELS: arith.mulf %[[YCOS]], %[[AF]] : f32
// KERNELS: arith.mulf %[[YSIN]], %[[AF]] : f32

// Partial rotary: 4 heads · 48 elements past rotary_dim copied.
// KERNELS-LABEL: gpu.func @rope_interleaved_h4_d80_r32_yarn_{{[0-9a-f]+}}_f32_i32(
// KERNELS: arith.constant 1.500000e+00 : f32
// KERNELS: arith.cmpi ult, %{{.*}}, %c64 : index
// KERNELS: %[[COPY:.*]] = arith.cmpi ult, %[[CITEM:.*]], %c192 : index
// KERNELS: scf.if %[[COPY]] {
// KERNELS: %[[CHEAD:.*]] = arith.divui %[[CITEM]], %c48 : index
// KERNELS: %[[CJ:.*]] = arith.remui %[[CITEM]], %c48 : index
// KERNELS: %[[J:.*]] = arith.addi %[[CJ]], %c32 : index
// KERNELS: %[[CBASE:.*]] = arith.muli %[[CHEAD]], %c80 : index
// KERNELS: %[[CCOL:.*]] = arith.addi %[[CBASE]], %[[J]] : index
// KERNELS: %[[V:.*]] = memref.load %arg0[%{{.*}}, %[[CCOL]]] : memref<?x320xf32>
// KERNELS: memref.store %[[V]], %arg2[%{{.*}}, %[[CCOL]]] : memref<?x320xf32>

// The PTX shows accurate libdevice sin/cos (no approximations, no unresolved
// calls), the table read through the non-coherent cache, interleaved pairs
// as 64-bit accesses.
// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-NOT: .extern .func __nv_
// PTX-NOT: sin.approx
// PTX-NOT: cos.approx
// PTX-DAG: .global .align 4 .b8 __cudart_i2opi_f[24]
// PTX-DAG: .global .align 16 .b8 rope_inv_freq_r128_none_{{[0-9a-f]+}}[256]
// PTX-LABEL: .visible .entry rope_half_h32_d128_r128_none_{{[0-9a-f]+}}_f32_i32(
// PTX: .maxntid 128, 1, 1
// PTX: ld.global.nc.b32
// PTX: __cudart_i2opi_f
// PTX-LABEL: .visible .entry rope_interleaved_h8_d8_r8_none_{{[0-9a-f]+}}_f32_i32(
// PTX: ld.global.v2.b32
// PTX: st.global.v2.b32
// PTX-LABEL: // ---- llmc: PTX for sm_90
// PTX-NOT: sin.approx
// PTX-NOT: cos.approx

// PTXAS-DAG: kernel rope_half_h32_d128_r128_none_{{[0-9a-f]+}}_f32_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_half_h8_d128_r128_none_{{[0-9a-f]+}}_f32_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_interleaved_h8_d8_r8_none_{{[0-9a-f]+}}_f32_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_half_h4_d64_r64_linear_{{[0-9a-f]+}}_f32_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_interleaved_h4_d64_r64_ntk_{{[0-9a-f]+}}_f32_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_dynamic_inv_freq_r64_dynamic_{{[0-9a-f]+}}_i32 sm_80 regs={{[0-9]+}} smem=32 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_half_h4_d64_r64_dynamic_{{[0-9a-f]+}}_f32_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_dynamic_inv_freq_r8_longrope_{{[0-9a-f]+}}_i32 sm_80 regs={{[0-9]+}} smem=32 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_half_h4_d8_r8_longrope_{{[0-9a-f]+}}_f32_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_half_h4_d64_r64_yarn_{{[0-9a-f]+}}_f32_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_half_h32_d128_r128_llama3_{{[0-9a-f]+}}_f32_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_interleaved_h4_d80_r32_yarn_{{[0-9a-f]+}}_f32_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_half_h32_d128_r128_none_{{[0-9a-f]+}}_f32_i32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_interleaved_h8_d8_r8_none_{{[0-9a-f]+}}_f32_i32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_dynamic_inv_freq_r64_dynamic_{{[0-9a-f]+}}_i32 sm_90 regs={{[0-9]+}} smem=32 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_half_h32_d128_r128_llama3_{{[0-9a-f]+}}_f32_i32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_interleaved_h4_d80_r32_yarn_{{[0-9a-f]+}}_f32_i32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
