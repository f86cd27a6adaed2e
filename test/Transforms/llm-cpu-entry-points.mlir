// llm-cpu-entry-points: C entry points around the bufferized model functions.
// RUN: llmc-opt %s -split-input-file --llm-cpu-entry-points | FileCheck %s
// Misuse of the pass: llm-cpu-entry-points-invalid.mlir.

// The model name becomes a C identifier ("tiny-model" -> tiny_model); every
// argument is viewed from a raw pointer, weights from the pointer table;
// prefill's seq_len fills the dynamic extent of its inputs, its logit_rows
// (an index argument) that of its logits; the model functions become
// internal. Each model function returns a buffer it allocates (whose
// dynamic extent is logit_rows), so it computes its logits in the caller's
// buffer instead: that buffer replaces the allocation as a new last
// argument (llm.output = "logits"), and nothing is copied or freed.
// CHECK-LABEL: func.func private @decode(
// CHECK-SAME: %[[DOUT:[a-z0-9]+]]: memref<1x1x8xf32> {llm.output = "logits"})
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// CHECK-NOT: memref.alloc
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[DOUT]] : memref<1x1x8xf32>)
// CHECK-NEXT: return{{$}}
// CHECK-LABEL: func.func private @prefill(
// CHECK-SAME: %[[ROWS:[a-z0-9]+]]: index {llm.input = "logit_rows"}, %[[POUT:[a-z0-9]+]]: memref<1x?x8xf32> {llm.output = "logits"})
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// CHECK-NOT: memref.alloc
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[POUT]] : memref<1x?x8xf32>)
// CHECK-NEXT: return{{$}}
// CHECK-LABEL: func.func @tiny_model_prefill(
// CHECK-SAME: %[[TOK:[a-z0-9]+]]: !llvm.ptr, %[[POS:[a-z0-9]+]]: !llvm.ptr, %[[T:[a-z0-9]+]]: i64, %[[R:[a-z0-9]+]]: i64, %[[CACHE:[a-z0-9]+]]: !llvm.ptr, %[[W:[a-z0-9]+]]: !llvm.ptr, %[[OUT:[a-z0-9]+]]: !llvm.ptr) -> i32
// CHECK: llvm.insertvalue %[[T]], %{{.*}}[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: %[[TOKM:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<1x?xi32>
// CHECK: builtin.unrealized_conversion_cast %{{.*}} to memref<2x1x1x4x1x2xf32>
// CHECK: %[[SLOT1:.*]] = llvm.getelementptr %[[W]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: llvm.load %[[SLOT1]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[RI:.*]] = arith.index_cast %[[R]] : i64 to index
// CHECK: llvm.insertvalue %[[OUT]], %{{.*}}[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
// CHECK: llvm.insertvalue %[[R]], %{{.*}}[3, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
// CHECK: %[[LOGM:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<1x?x8xf32>
// CHECK: call @prefill(%[[TOKM]], %{{.*}}, %[[RI]], %[[LOGM]]) : (memref<1x?xi32>, memref<1x?xi32>, memref<2x1x1x4x1x2xf32>, memref<8x2xf32>, memref<2xf32>, index, memref<1x?x8xf32>) -> ()
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.dealloc
// CHECK: return %{{.*}} : i32
// CHECK-LABEL: func.func @tiny_model_decode(
// CHECK-SAME: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK: call @decode({{.*}}) : ({{.*}}, memref<1x1x8xf32>) -> ()
// CHECK-NOT: memref.copy
module attributes {llm.model = "tiny-model"} {
  func.func private @decode(%tok: memref<1x1xi32> {llm.input = "tokens"}, %pos: memref<1x1xi32> {llm.input = "positions"}, %cache: memref<2x1x1x4x1x2xf32> {llm.input = "kv_cache"}, %w0: memref<8x2xf32> {llm.weight = "model.embed_tokens.weight"}, %w1: memref<2xf32> {llm.weight = "model.norm.weight"}) -> memref<1x1x8xf32> {
    %zero = arith.constant 0.0 : f32
    %a = memref.alloc() : memref<1x1x8xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<1x1x8xf32>)
    return %a : memref<1x1x8xf32>
  }
  func.func private @prefill(%tok: memref<1x?xi32> {llm.input = "tokens"}, %pos: memref<1x?xi32> {llm.input = "positions"}, %cache: memref<2x1x1x4x1x2xf32> {llm.input = "kv_cache"}, %w0: memref<8x2xf32> {llm.weight = "model.embed_tokens.weight"}, %w1: memref<2xf32> {llm.weight = "model.norm.weight"}, %rows: index {llm.input = "logit_rows"}) -> memref<1x?x8xf32> {
    %zero = arith.constant 0.0 : f32
    %a = memref.alloc(%rows) : memref<1x?x8xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<1x?x8xf32>)
    return %a : memref<1x?x8xf32>
  }
}

// -----

// A returned buffer that is not the function's own allocation of
// logit_rows rows (here one whose extent is computed from it) stays the model
// function's result: the entry point copies it into the caller's buffer
// and frees it.
// CHECK-LABEL: func.func private @prefill(
// CHECK-SAME: -> memref<1x?x8xf32>
// CHECK-LABEL: func.func @tiny_model_prefill(
// CHECK: %[[LOG:.*]] = call @prefill({{.*}}) : ({{.*}}) -> memref<1x?x8xf32>
// CHECK: memref.copy %[[LOG]], %{{.*}} : memref<1x?x8xf32> to memref<1x?x8xf32>
// CHECK: memref.dealloc %[[LOG]] : memref<1x?x8xf32>
// CHECK: return %{{.*}} : i32
module attributes {llm.model = "tiny-model"} {
  func.func private @prefill(%tok: memref<1x?xi32> {llm.input = "tokens"}, %rows: index {llm.input = "logit_rows"}) -> memref<1x?x8xf32> {
    %c1 = arith.constant 1 : index
    %extent = arith.maxsi %rows, %c1 : index
    %a = memref.alloc(%extent) : memref<1x?x8xf32>
    return %a : memref<1x?x8xf32>
  }
}

// -----

// A model function that something in the module calls (a test driver)
// keeps its signature: its logits stay its result, copied out by the entry
// point.
// CHECK-LABEL: func.func private @decode(
// CHECK-SAME: -> memref<1x1x8xf32>
// CHECK-LABEL: func.func @driver
// CHECK: call @decode(%{{.+}}) : (memref<1x1xi32>) -> memref<1x1x8xf32>
// CHECK-LABEL: func.func @tiny_model_decode(
// CHECK: %[[LOG:.*]] = call @decode({{.*}}) : ({{.*}}) -> memref<1x1x8xf32>
// CHECK: memref.copy %[[LOG]], %{{.*}} : memref<1x1x8xf32> to memref<1x1x8xf32>
// CHECK: memref.dealloc %[[LOG]] : memref<1x1x8xf32>
module attributes {llm.model = "tiny-model"} {
  func.func private @decode(%tok: memref<1x1xi32> {llm.input = "tokens"}) -> memref<1x1x8xf32> {
    %a = memref.alloc() : memref<1x1x8xf32>
    return %a : memref<1x1x8xf32>
  }
  func.func @driver(%tok: memref<1x1xi32>) -> memref<1x1x8xf32> {
    %l = call @decode(%tok) : (memref<1x1xi32>) -> memref<1x1x8xf32>
    return %l : memref<1x1x8xf32>
  }
}
