// RUN: llmc-opt %s --llm-parallel-to-openmp -split-input-file -verify-diagnostics | FileCheck %s

// A 2-d scf.parallel becomes one omp.parallel whose threads take chunks of
// the flattened iterations (trip counts 4 × ceil((hi - lo) / 1)) from a
// counter on the function's stack, reset before the region; the body runs
// on the delinearized induction variables (the last dimension fastest). No
// worksharing loop is left, and omp_get_num_threads is declared once.
// CHECK-LABEL: func.func @two_dims
// CHECK-SAME: (%[[LO:.+]]: index, %[[HI:.+]]: index, %[[BUF:.+]]: memref<?x8xf32>)
// CHECK: %[[COUNTER:.+]] = memref.alloca() : memref<i64>
// CHECK: %[[SPAN:.+]] = arith.subi %[[HI]], %[[LO]] : index
// CHECK: %[[ROWS:.+]] = arith.maxsi %[[SPAN]], %{{.+}} : index
// CHECK: %[[TOTAL:.+]] = arith.muli %[[ROWS]], %[[C4:.+]] : index
// CHECK: memref.store %{{.+}}, %[[COUNTER]][] : memref<i64>
// CHECK: omp.parallel {
// CHECK: %[[THREADS:.+]] = func.call @omp_get_num_threads() : () -> i32
// CHECK: %[[T:.+]] = arith.index_cast %[[THREADS]] : i32 to index
// CHECK: %[[CHUNKS:.+]] = arith.muli %[[T]], %c4{{.*}} : index
// CHECK: %[[PER:.+]] = arith.ceildivsi %[[TOTAL]], %[[CHUNKS]] : index
// CHECK: %[[CHUNK:.+]] = arith.maxsi %[[PER]], %{{.+}} : index
// CHECK: %[[CHUNK64:.+]] = arith.index_cast %[[CHUNK]] : index to i64
// CHECK: scf.while : () -> index {
// CHECK: %[[TAKEN:.+]] = memref.atomic_rmw addi %[[CHUNK64]], %[[COUNTER]][] : (i64, memref<i64>) -> i64
// CHECK: %[[START:.+]] = arith.index_cast %[[TAKEN]] : i64 to index
// CHECK: %[[MORE:.+]] = arith.cmpi slt, %[[START]], %[[TOTAL]] : index
// CHECK: scf.condition(%[[MORE]]) %[[START]] : index
// CHECK: } do {
// CHECK: ^bb0(%[[FROM:.+]]: index):
// CHECK: %[[NEXT:.+]] = arith.addi %[[FROM]], %[[CHUNK]] : index
// CHECK: %[[END:.+]] = arith.minsi %[[NEXT]], %[[TOTAL]] : index
// CHECK: scf.for %[[FLAT:.+]] = %[[FROM]] to %[[END]] step %{{.+}} {
// CHECK: %[[J:.+]] = arith.remsi %[[FLAT]], %[[C4]] : index
// CHECK: %[[I:.+]] = arith.divsi %[[FLAT]], %[[C4]] : index
// CHECK: %[[JS:.+]] = arith.muli %[[J]], %c2 : index
// CHECK: %[[JJ:.+]] = arith.addi %c0, %[[JS]] : index
// CHECK: %[[IS:.+]] = arith.muli %[[I]], %c1 : index
// CHECK: %[[II:.+]] = arith.addi %[[LO]], %[[IS]] : index
// CHECK: memref.store %{{.+}}, %[[BUF]][%[[II]], %[[JJ]]] : memref<?x8xf32>
// CHECK: omp.terminator
// CHECK-NOT: omp.wsloop
// CHECK-NOT: scf.parallel
func.func @two_dims(%lo: index, %hi: index, %buf: memref<?x8xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%lo, %c0) to (%hi, %c8) step (%c1, %c2) {
    memref.store %zero, %buf[%i, %j] : memref<?x8xf32>
    scf.reduce
  }
  return
}

// Two loops in one function share the function's counter (each resets it),
// and a loop nested in another stays an scf.parallel inside the outer
// loop's region (run sequentially by its thread).
// CHECK-LABEL: func.func @sequence_and_nest
// CHECK: %[[COUNTER:.+]] = memref.alloca() : memref<i64>
// CHECK-NOT: memref.alloca()
// CHECK: memref.store %{{.+}}, %[[COUNTER]][] : memref<i64>
// CHECK: omp.parallel {
// CHECK: scf.parallel
// CHECK: omp.terminator
// CHECK: memref.store %{{.+}}, %[[COUNTER]][] : memref<i64>
// CHECK: omp.parallel {
// CHECK: omp.terminator
// CHECK: func.func private @omp_get_num_threads() -> i32
// CHECK-NOT: func.func private @omp_get_num_threads
func.func @sequence_and_nest(%n: index, %buf: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.parallel (%j) = (%c0) to (%n) step (%c1) {
      memref.store %zero, %buf[%i, %j] : memref<?x?xf32>
      scf.reduce
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %buf[%i, %c0] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// -----

// A reduction has no chunked form: one clear error.
func.func @reduction(%n: index, %buf: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{llm-parallel-to-openmp: scf.parallel with reductions is not supported}}
  %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
    %x = memref.load %buf[%i] : memref<?xf32>
    scf.reduce(%x : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}
