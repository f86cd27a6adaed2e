// RUN: llmc-opt %s --llm-cpu-hoist-allocas -split-input-file | FileCheck %s

// In an OpenMP region, the scratch of an iteration of the chunk loop (and
// of a loop nested in it) moves to the region's entry: one buffer per
// thread, which its iterations reuse. The alloca with a dynamic size stays
// in its iteration.
// CHECK-LABEL: func.func @region_scratch
// CHECK: omp.parallel {
// CHECK-NEXT: %[[ROW:.+]] = memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// CHECK-NEXT: %[[BLOCK:.+]] = memref.alloca() : memref<3x64xf32>
// CHECK-NEXT: scf.for %[[I:.+]] =
// CHECK-NEXT: memref.store %{{.+}}, %[[ROW]][%{{.+}}]
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.store %{{.+}}, %[[BLOCK]][%{{.+}}, %{{.+}}]
// CHECK: %[[DYN:.+]] = memref.alloca(%[[I]]) : memref<?xf32>
// CHECK-NEXT: memref.store %{{.+}}, %[[DYN]]
// CHECK: omp.terminator
func.func @region_scratch(%lo: index, %hi: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  omp.parallel {
    scf.for %i = %lo to %hi step %c1 {
      %row = memref.alloca() {alignment = 64 : i64} : memref<64xf32>
      memref.store %x, %row[%c0] : memref<64xf32>
      scf.for %j = %c0 to %c3 step %c1 {
        %block = memref.alloca() : memref<3x64xf32>
        memref.store %x, %block[%j, %c0] : memref<3x64xf32>
      }
      %dynamic = memref.alloca(%i) : memref<?xf32>
      memref.store %x, %dynamic[%c0] : memref<?xf32>
    }
    omp.terminator
  }
  return
}

// -----

// Outside a region, the allocas of sequential loops (an scf.parallel that
// stayed sequential, an scf.for) and those after a loop move to the front
// of the function's entry block, in their order, before the ops that were
// ahead of them: LLVM gives fixed frame slots only to the allocas of a
// function's first block, which scf-to-cf would split at each loop.
// CHECK-LABEL: func.func @function_scratch
// CHECK-NEXT: %[[A:.+]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT: %[[B:.+]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT: %[[C:.+]] = memref.alloca() : memref<16xf32>
// CHECK-NEXT: arith.constant
// CHECK: scf.parallel
// CHECK-NEXT: memref.store %{{.+}}, %[[A]]
// CHECK: scf.for
// CHECK-NEXT: memref.store %{{.+}}, %[[B]]
// CHECK: memref.store %{{.+}}, %[[C]]
func.func @function_scratch(%n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %a = memref.alloca() : memref<4xf32>
    memref.store %x, %a[%c0] : memref<4xf32>
    scf.reduce
  }
  scf.for %j = %c0 to %n step %c1 {
    %b = memref.alloca() : memref<8xf32>
    memref.store %x, %b[%c0] : memref<8xf32>
  }
  %c = memref.alloca() : memref<16xf32>
  memref.store %x, %c[%c0] : memref<16xf32>
  return
}

// -----

// An scf.while is a loop but no allocation scope: each of its iterations
// allocates a buffer of its own, which may stay alive across iterations
// (here it is carried to the next one), so its alloca stays in place. One
// in an scf.for inside the while's body ends with that loop's iteration and
// moves to the function's entry.
// CHECK-LABEL: func.func @while_scratch
// CHECK-NEXT: %[[FOR:.+]] = memref.alloca() : memref<2xf32>
// CHECK: scf.while
// CHECK: %[[CARRIED:.+]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT: scf.condition
// CHECK: scf.for
// CHECK-NEXT: memref.store %{{.+}}, %[[FOR]]
func.func @while_scratch(%n: index, %x: f32, %first: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %done = scf.while (%previous = %first) : (memref<4xf32>) -> memref<4xf32> {
    %v = memref.load %previous[%c0] : memref<4xf32>
    %more = arith.cmpf olt, %v, %x : f32
    %next = memref.alloca() : memref<4xf32>
    scf.condition(%more) %next : memref<4xf32>
  } do {
  ^bb0(%carried: memref<4xf32>):
    memref.store %x, %carried[%c0] : memref<4xf32>
    scf.for %j = %c0 to %n step %c1 {
      %inner = memref.alloca() : memref<2xf32>
      memref.store %x, %inner[%c0] : memref<2xf32>
    }
    scf.yield %carried : memref<4xf32>
  }
  return
}
