// RUN: llmc-opt %s --llm-openmp-loop-schedule | FileCheck %s
// RUN: llmc-opt %s --llm-openmp-loop-schedule --llm-openmp-loop-schedule | FileCheck %s

// A worksharing loop without a schedule clause (what convert-scf-to-openmp
// emits) gets schedule(runtime): the runtime picks it per call.
// CHECK-LABEL: func.func @unscheduled
// CHECK: omp.wsloop schedule(runtime) {
func.func @unscheduled(%lo: index, %hi: index, %buf: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%lo) to (%hi) step (%c1) {
        memref.store %zero, %buf[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// A loop that has a schedule keeps it.
// CHECK-LABEL: func.func @scheduled
// CHECK: omp.wsloop schedule(static) {
func.func @scheduled(%lo: index, %hi: index, %buf: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  omp.parallel {
    omp.wsloop schedule(static) {
      omp.loop_nest (%i) : index = (%lo) to (%hi) step (%c1) {
        memref.store %zero, %buf[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
