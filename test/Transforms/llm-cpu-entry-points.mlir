// llm-cpu-entry-points: C entry points around the bufferized model functions.
// RUN: llmc-opt %s --llm-cpu-entry-points | FileCheck %s
// Misuse of the pass: llm-cpu-entry-points-invalid.mlir.

// The model name becomes a C identifier ("tiny-model" -> tiny_model); every
// argument is viewed from a raw pointer, weights from the pointer table;
// prefill's seq_len fills the dynamic extent of its inputs, its logit_rows
// (an index argument) that of its logits, which are copied out and freed;
// the model functions become internal.
// CHECK-LABEL: func.func private @decode(
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// CHECK-LABEL: func.func private @prefill(
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// CHECK-LABEL: func.func @tiny_model_prefill(
// CHECK-SAME: %[[TOK:[a-z0-9]+]]: !llvm.ptr, %[[POS:[a-z0-9]+]]: !llvm.ptr, %[[T:[a-z0-9]+]]: i64, %[[R:[a-z0-9]+]]: i64, %[[CACHE:[a-z0-9]+]]: !llvm.ptr, %[[W:[a-z0-9]+]]: !llvm.ptr, %[[OUT:[a-z0-9]+]]: !llvm.ptr) -> i32
// CHECK: llvm.insertvalue %[[T]], %{{.*}}[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: %[[TOKM:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<1x?xi32>
// CHECK: builtin.unrealized_conversion_cast %{{.*}} to memref<2x1x1x4x1x2xf32>
// CHECK: %[[SLOT1:.*]] = llvm.getelementptr %[[W]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: llvm.load %[[SLOT1]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[RI:.*]] = arith.index_cast %[[R]] : i64 to index
// CHECK: %[[LOG:.*]] = call @prefill(%[[TOKM]], %{{.*}}, %[[RI]]) : (memref<1x?xi32>, memref<1x?xi32>, memref<2x1x1x4x1x2xf32>, memref<8x2xf32>, memref<2xf32>, index) -> memref<1x?x8xf32>
// CHECK: llvm.insertvalue %[[R]], %{{.*}}[3, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
// CHECK: memref.copy %[[LOG]], %{{.*}} : memref<1x?x8xf32> to memref<1x?x8xf32>
// CHECK: memref.dealloc %[[LOG]] : memref<1x?x8xf32>
// CHECK: return %{{.*}} : i32
// CHECK-LABEL: func.func @tiny_model_decode(
// CHECK-SAME: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK: call @decode(
module attributes {llm.model = "tiny-model"} {
  func.func private @decode(%tok: memref<1x1xi32> {llm.input = "tokens"}, %pos: memref<1x1xi32> {llm.input = "positions"}, %cache: memref<2x1x1x4x1x2xf32> {llm.input = "kv_cache"}, %w0: memref<8x2xf32> {llm.weight = "model.embed_tokens.weight"}, %w1: memref<2xf32> {llm.weight = "model.norm.weight"}) -> memref<1x1x8xf32> {
    %a = memref.alloc() : memref<1x1x8xf32>
    return %a : memref<1x1x8xf32>
  }
  func.func private @prefill(%tok: memref<1x?xi32> {llm.input = "tokens"}, %pos: memref<1x?xi32> {llm.input = "positions"}, %cache: memref<2x1x1x4x1x2xf32> {llm.input = "kv_cache"}, %w0: memref<8x2xf32> {llm.weight = "model.embed_tokens.weight"}, %w1: memref<2xf32> {llm.weight = "model.norm.weight"}, %rows: index {llm.input = "logit_rows"}) -> memref<1x?x8xf32> {
    %a = memref.alloc(%rows) : memref<1x?x8xf32>
    return %a : memref<1x?x8xf32>
  }
}
