// llm-cuda-free-scratch: a memref.dealloc right after the last use of every
// scratch buffer a host function owns (its allocs, the owned results of its
// calls), through views, casts and calls that may return an argument.
// RUN: llmc-opt %s -split-input-file --llm-cuda-free-scratch | FileCheck %s

// A buffer dies after its last launch, counting the launches of its views;
// the returned one is the caller's. A dim is a use too, but not the last.
// CHECK-LABEL: func.func private @layer(
// CHECK: %[[A:.*]] = memref.alloc(%{{.*}}) : memref<1x?x64xf32>
// CHECK: %[[AV:.*]] = memref.collapse_shape %[[A]]
// CHECK: gpu.launch_func @k::@first {{.*}} args(%[[AV]] : memref<?x64xf32>)
// CHECK: %[[B:.*]] = memref.alloc(%{{.*}}) : memref<1x?x64xf32>
// CHECK: %[[BV:.*]] = memref.collapse_shape %[[B]]
// CHECK: gpu.launch_func @k::@second {{.*}} args(%[[AV]] : memref<?x64xf32>, %[[BV]] : memref<?x64xf32>)
// CHECK-NEXT: memref.dealloc %[[A]] : memref<1x?x64xf32>
// CHECK-NEXT: return %[[B]]
module attributes {gpu.container_module} {
  func.func private @layer(%x: memref<1x?x64xf32>, %n: index) -> memref<1x?x64xf32> {
    %c1 = arith.constant 1 : index
    %a = memref.alloc(%n) : memref<1x?x64xf32>
    %av = memref.collapse_shape %a [[0, 1], [2]] : memref<1x?x64xf32> into memref<?x64xf32>
    gpu.launch_func @k::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%av : memref<?x64xf32>)
    %d = memref.dim %a, %c1 : memref<1x?x64xf32>
    %b = memref.alloc(%d) : memref<1x?x64xf32>
    %bv = memref.collapse_shape %b [[0, 1], [2]] : memref<1x?x64xf32> into memref<?x64xf32>
    gpu.launch_func @k::@second blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%av : memref<?x64xf32>, %bv : memref<?x64xf32>)
    return %b : memref<1x?x64xf32>
  }

  // A call that returns its argument: that result is the argument again,
  // so the argument lives as long as the result is used.
  func.func private @identity(%x: memref<1x?x64xf32>) -> memref<1x?x64xf32> {
    return %x : memref<1x?x64xf32>
  }

  // The caller owns what @layer returns and frees each layer's output after
  // the next layer read it; @identity's result keeps %h1 alive until the
  // launch after it. The existing dealloc of %out is left alone.
  // CHECK-LABEL: func.func @model(
  // CHECK: %[[H1:.*]] = call @layer(%{{.*}}, %{{.*}})
  // CHECK-NEXT: %[[H2:.*]] = call @layer(%[[H1]], %{{.*}})
  // CHECK-NEXT: %[[SAME:.*]] = call @identity(%[[H1]])
  // CHECK-NEXT: gpu.launch_func @k::@third {{.*}} args(%[[SAME]] : memref<1x?x64xf32>)
  // CHECK-NEXT: memref.dealloc %[[H1]]
  // CHECK-NEXT: %[[OUT:.*]] = call @layer(%[[H2]], %{{.*}})
  // CHECK-NEXT: memref.dealloc %[[H2]]
  // CHECK-NEXT: memref.copy %[[OUT]], %{{.*}}
  // CHECK-NEXT: memref.dealloc %[[OUT]]
  // CHECK-NOT: memref.dealloc
  // CHECK: return
  func.func @model(%x: memref<1x?x64xf32>, %n: index, %result: memref<1x?x64xf32>) {
    %c1 = arith.constant 1 : index
    %h1 = call @layer(%x, %n) : (memref<1x?x64xf32>, index) -> memref<1x?x64xf32>
    %h2 = call @layer(%h1, %n) : (memref<1x?x64xf32>, index) -> memref<1x?x64xf32>
    %same = call @identity(%h1) : (memref<1x?x64xf32>) -> memref<1x?x64xf32>
    gpu.launch_func @k::@third blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%same : memref<1x?x64xf32>)
    %out = call @layer(%h2, %n) : (memref<1x?x64xf32>, index) -> memref<1x?x64xf32>
    memref.copy %out, %result : memref<1x?x64xf32> to memref<1x?x64xf32>
    memref.dealloc %out : memref<1x?x64xf32>
    return
  }

  gpu.module @k {
    gpu.func @first(%a: memref<?x64xf32>) kernel { gpu.return }
    gpu.func @second(%a: memref<?x64xf32>, %b: memref<?x64xf32>) kernel { gpu.return }
    gpu.func @third(%a: memref<1x?x64xf32>) kernel { gpu.return }
  }
}

// -----

// Kept: a buffer returned twice (neither result is the caller's to free),
// one used by an op that might keep its address, and everything in a
// function of several blocks.
// CHECK-LABEL: func.func private @twice(
// CHECK-NOT: memref.dealloc
// CHECK-LABEL: func.func @escapes(
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index
// CHECK-NOT: memref.dealloc
// CHECK-LABEL: func.func @blocks(
// CHECK-NOT: memref.dealloc
// CHECK: return
module attributes {gpu.container_module} {
  func.func private @twice(%n: index) -> (memref<?xf32>, memref<?xf32>) {
    %a = memref.alloc(%n) : memref<?xf32>
    return %a, %a : memref<?xf32>, memref<?xf32>
  }
  func.func @escapes(%n: index) -> index {
    %r:2 = call @twice(%n) : (index) -> (memref<?xf32>, memref<?xf32>)
    %a = memref.alloc(%n) : memref<?xf32>
    %p = memref.extract_aligned_pointer_as_index %a : memref<?xf32> -> index
    return %p : index
  }
  func.func @blocks(%n: index) {
    %a = memref.alloc(%n) : memref<?xf32>
    cf.br ^next
  ^next:
    return
  }
}
