// RUN: llmc-opt %s --llm-parallel-to-openmp -split-input-file -verify-diagnostics | FileCheck %s

// A 2-d scf.parallel becomes one omp.parallel over the flattened
// iterations (trip counts 4 × ceil((hi - lo) / 1)). Before the region, the
// iterations are cut into P = min(omp_get_max_threads(), 64) partitions,
// each a slot word [front, back) (back in the high 32 bits) on its own
// cache line of the function's stack, and the smallest chunk is
// ceil(total / (P · 16)). In the region, thread t visits the partitions
// from its own (v = (t + i) mod P): from its own it takes chunks at the
// front, from the others' at the back, each by one compare-and-swap of the
// slot (memref.generic_atomic_rmw), until the partition is empty. A take is
// a quarter of what the partition has left, rounded up, but at least the
// smallest chunk. The body runs
// on the delinearized induction variables (the last dimension fastest). No
// worksharing loop is left, and the OpenMP queries are declared once. The
// count is known only at run time, so the region forks only for more than
// one iteration.
// CHECK-LABEL: func.func @two_dims
// CHECK-SAME: (%[[LO:.+]]: index, %[[HI:.+]]: index, %[[BUF:.+]]: memref<?x8xf32>)
// CHECK: %[[SLOTS:.+]] = memref.alloca() {alignment = 64 : i64} : memref<64x8xi64>
// CHECK: %[[SPAN:.+]] = arith.subi %[[HI]], %[[LO]] : index
// CHECK: %[[ROWS:.+]] = arith.maxsi %[[SPAN]], %{{.+}} : index
// CHECK: %[[TOTAL:.+]] = arith.muli %[[ROWS]], %[[C4:.+]] : index
// CHECK: %[[MAX:.+]] = call @omp_get_max_threads() : () -> i32
// CHECK: %[[MAXI:.+]] = arith.index_cast %[[MAX]] : i32 to index
// CHECK: %[[ATLEAST1:.+]] = arith.maxsi %[[MAXI]], %c1{{.*}} : index
// CHECK: %[[P:.+]] = arith.minsi %[[ATLEAST1]], %c64 : index
// CHECK: %[[P64:.+]] = arith.index_cast %[[P]] : index to i64
// CHECK: %[[TOTAL64:.+]] = arith.index_cast %[[TOTAL]] : index to i64
// CHECK: scf.for %[[PART:.+]] = %{{.+}} to %[[P]] step %{{.+}} {
// CHECK: %[[PART64:.+]] = arith.index_cast %[[PART]] : index to i64
// CHECK: %[[NEXT:.+]] = arith.addi %[[PART64]], %c1_i64 : i64
// CHECK: %[[F0:.+]] = arith.muli %[[PART64]], %[[TOTAL64]] : i64
// CHECK: %[[FRONT:.+]] = arith.divui %[[F0]], %[[P64]] : i64
// CHECK: %[[B0:.+]] = arith.muli %[[NEXT]], %[[TOTAL64]] : i64
// CHECK: %[[BACK:.+]] = arith.divui %[[B0]], %[[P64]] : i64
// CHECK: %[[HIGH:.+]] = arith.shli %[[BACK]], %c32_i64 : i64
// CHECK: %[[WORD:.+]] = arith.ori %[[HIGH]], %[[FRONT]] : i64
// CHECK: memref.store %[[WORD]], %[[SLOTS]][%[[PART]], %{{.+}}] : memref<64x8xi64>
// CHECK: %[[CHUNKS:.+]] = arith.muli %[[P]], %c16{{.*}} : index
// CHECK: %[[PER:.+]] = arith.ceildivsi %[[TOTAL]], %[[CHUNKS]] : index
// CHECK: %[[MINCHUNK:.+]] = arith.maxsi %[[PER]], %{{.+}} : index
// CHECK: %[[MINCHUNK64:.+]] = arith.index_cast %[[MINCHUNK]] : index to i64
// CHECK: %[[SEVERAL:.+]] = arith.cmpi sgt, %[[TOTAL]], %c1{{.*}} : index
// CHECK: omp.parallel if(%[[SEVERAL]]) {
// CHECK: %[[THREAD:.+]] = func.call @omp_get_thread_num() : () -> i32
// CHECK: %[[T:.+]] = arith.index_cast %[[THREAD]] : i32 to index
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %[[P]] step %{{.+}} {
// CHECK: %[[TI:.+]] = arith.addi %[[T]], %[[I]] : index
// CHECK: %[[VICTIM:.+]] = arith.remui %[[TI]], %[[P]] : index
// CHECK: %[[OWN:.+]] = arith.cmpi eq, %[[VICTIM]], %[[T]] : index
// CHECK: scf.while : () -> (i64, i64) {
// CHECK: %[[OLD:.+]] = memref.generic_atomic_rmw %[[SLOTS]][%[[VICTIM]], %{{.+}}] : memref<64x8xi64> {
// CHECK: ^bb0(%[[CUR:.+]]: i64):
// CHECK: %[[CF:.+]] = arith.andi %[[CUR]], %c4294967295_i64{{.*}} : i64
// CHECK: %[[CB:.+]] = arith.shrui %[[CUR]], %c32_i64{{.*}} : i64
// CHECK: %[[LEFT:.+]] = arith.subi %[[CB]], %[[CF]] : i64
// CHECK: %[[LEFTUP:.+]] = arith.addi %[[LEFT]], %c3_i64{{.*}} : i64
// CHECK: %[[QUARTER:.+]] = arith.shrui %[[LEFTUP]], %c2_i64{{.*}} : i64
// CHECK: %[[CHUNK:.+]] = arith.maxsi %[[QUARTER]], %[[MINCHUNK64]] : i64
// CHECK: %[[CFC:.+]] = arith.addi %[[CF]], %[[CHUNK]] : i64
// CHECK: %[[OWNEND:.+]] = arith.minsi %[[CFC]], %[[CB]] : i64
// CHECK: %[[CBC:.+]] = arith.subi %[[CB]], %[[CHUNK]] : i64
// CHECK: %[[STOLEN:.+]] = arith.maxsi %[[CBC]], %[[CF]] : i64
// CHECK: %[[TSTART:.+]] = arith.select %[[OWN]], %[[CF]], %[[STOLEN]] : i64
// CHECK: %[[TEND:.+]] = arith.select %[[OWN]], %[[OWNEND]], %[[CB]] : i64
// CHECK: %[[NFRONT:.+]] = arith.select %[[OWN]], %[[TEND]], %[[CF]] : i64
// CHECK: %[[NBACK:.+]] = arith.select %[[OWN]], %[[CB]], %[[TSTART]] : i64
// CHECK: %[[NHIGH:.+]] = arith.shli %[[NBACK]], %c32_i64{{.*}} : i64
// CHECK: %[[NWORD:.+]] = arith.ori %[[NHIGH]], %[[NFRONT]] : i64
// CHECK: memref.atomic_yield %[[NWORD]] : i64
// CHECK: }
// CHECK: %[[OF:.+]] = arith.andi %[[OLD]], %{{.+}} : i64
// CHECK: %[[OB:.+]] = arith.shrui %[[OLD]], %{{.+}} : i64
// CHECK: %[[START:.+]] = arith.select %[[OWN]], %[[OF]], %{{.+}} : i64
// CHECK: %[[END:.+]] = arith.select %[[OWN]], %{{.+}}, %[[OB]] : i64
// CHECK: %[[MORE:.+]] = arith.cmpi slt, %[[START]], %[[END]] : i64
// CHECK: scf.condition(%[[MORE]]) %[[START]], %[[END]] : i64, i64
// CHECK: } do {
// CHECK: ^bb0(%[[FROM64:.+]]: i64, %[[TO64:.+]]: i64):
// CHECK: %[[TO:.+]] = arith.index_cast %[[TO64]] : i64 to index
// CHECK: %[[FROM:.+]] = arith.index_cast %[[FROM64]] : i64 to index
// CHECK: scf.for %[[FLAT:.+]] = %[[FROM]] to %[[TO]] step %{{.+}} {
// CHECK: %[[J:.+]] = arith.remsi %[[FLAT]], %[[C4]] : index
// CHECK: %[[II:.+]] = arith.divsi %[[FLAT]], %[[C4]] : index
// CHECK: %[[JS:.+]] = arith.muli %[[J]], %c2 : index
// CHECK: %[[JJ:.+]] = arith.addi %c0, %[[JS]] : index
// CHECK: %[[IS:.+]] = arith.muli %[[II]], %c1 : index
// CHECK: %[[IROW:.+]] = arith.addi %[[LO]], %[[IS]] : index
// CHECK: memref.store %{{.+}}, %[[BUF]][%[[IROW]], %[[JJ]]] : memref<?x8xf32>
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

// Two loops in one function share the function's slots (each sets them
// before its region), and a loop nested in another stays an scf.parallel
// inside the outer loop's region (run sequentially by its thread).
// CHECK-LABEL: func.func @sequence_and_nest
// CHECK: %[[SLOTS:.+]] = memref.alloca() {alignment = 64 : i64} : memref<64x8xi64>
// CHECK-NOT: memref.alloca()
// CHECK: memref.store %{{.+}}, %[[SLOTS]][%{{.+}}, %{{.+}}] : memref<64x8xi64>
// CHECK: omp.parallel if(%{{.+}}) {
// CHECK: scf.parallel
// CHECK: omp.terminator
// CHECK: memref.store %{{.+}}, %[[SLOTS]][%{{.+}}, %{{.+}}] : memref<64x8xi64>
// CHECK: omp.parallel if(%{{.+}}) {
// CHECK: omp.terminator
// CHECK-DAG: func.func private @omp_get_max_threads() -> i32
// CHECK-DAG: func.func private @omp_get_thread_num() -> i32
// CHECK-NOT: func.func private @omp_get
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

// Sibling loops (Q, K and V of one input) run in one region: each writes
// only a buffer allocated before it that the others do not touch, and only
// allocations and views lie between them. The region sits where the last
// loop was; the flattened iterations of the loops follow one another
// (ends 4, 4 + 2 = 6, 6 + 2 = 8) and an scf.if per boundary picks the body.
// A prefetch (whose interface declares a write) counts as a read, and so
// does nothing for a call of an LLVM intrinsic on values. The loop marked
// small joins its siblings' threads. The count is static: no `if`.
// CHECK-LABEL: func.func @siblings
// CHECK-SAME: (%[[X:.+]]: memref<8xf32>, %[[W:.+]]: memref<16x8xf32>)
// CHECK: %[[Q:.+]] = memref.alloc() : memref<8xf32>
// CHECK: %[[K:.+]] = memref.alloc() : memref<4xf32>
// CHECK: %[[V:.+]] = memref.alloc() : memref<4xf32>
// CHECK: %[[VIEW:.+]] = memref.expand_shape %[[V]]
// CHECK-NOT: scf.parallel
// CHECK: memref.store %{{.+}}, %{{.+}} : memref<64x8xi64>
// CHECK: omp.parallel {
// CHECK: } do {
// CHECK: scf.for %[[FLAT:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK: %[[IN_Q:.+]] = arith.cmpi slt, %[[FLAT]], %c4{{.*}} : index
// CHECK: scf.if %[[IN_Q]] {
// CHECK: memref.prefetch %[[W]]
// CHECK: memref.store %{{.+}}, %[[Q]][%{{.+}}] : memref<8xf32>
// CHECK: } else {
// CHECK: %[[FROM_K:.+]] = arith.subi %[[FLAT]], %c4{{.*}} : index
// CHECK: %[[IN_K:.+]] = arith.cmpi slt, %[[FLAT]], %c6{{.*}} : index
// CHECK: scf.if %[[IN_K]] {
// CHECK: func.call @llvm.x86.avx2.pmadd.wd
// CHECK: memref.store %{{.+}}, %[[K]][%{{.+}}] : memref<4xf32>
// CHECK: } else {
// CHECK: %[[FROM_V:.+]] = arith.subi %[[FLAT]], %c6{{.*}} : index
// CHECK: memref.store %{{.+}}, %[[VIEW]][%{{.+}}, %{{.+}}] : memref<2x2xf32>
// CHECK: omp.terminator
// CHECK-NOT: omp.parallel
// CHECK: return
func.func private @llvm.x86.avx2.pmadd.wd(vector<16xi16>, vector<16xi16>) -> vector<8xi32>
func.func @siblings(%x: memref<8xf32>, %w: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %ones = arith.constant dense<1> : vector<16xi16>
  %q = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c2) {
    memref.prefetch %w[%i, %c0], read, locality<2>, data : memref<16x8xf32>
    %a = memref.load %x[%i] : memref<8xf32>
    %b = memref.load %w[%i, %c0] : memref<16x8xf32>
    %p = arith.mulf %a, %b : f32
    memref.store %p, %q[%i] : memref<8xf32>
    scf.reduce
  }
  %k = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c2) {
    %d = func.call @llvm.x86.avx2.pmadd.wd(%ones, %ones) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
    %a = memref.load %x[%i] : memref<8xf32>
    memref.store %a, %k[%i] : memref<4xf32>
    scf.reduce
  } {llmc.small_parallel_loop}
  %v = memref.alloc() : memref<4xf32>
  %view = memref.expand_shape %v [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %a = memref.load %x[%i] : memref<8xf32>
    memref.store %a, %view[%i, %c0] : memref<2x2xf32>
    scf.reduce
  }
  return
}

// -----

// Loops that cannot share a region, each for its reason, keep their own:
// the second reads what the first writes; a store lies between two; two
// write function arguments (which may alias); one calls a function that may
// touch any memory, so the small loop after it has no sibling with threads
// and stays an scf.parallel (run sequentially).
// CHECK-LABEL: func.func @not_siblings
// CHECK-COUNT-5: omp.parallel {
// CHECK-NOT: omp.parallel
// CHECK: scf.parallel
// CHECK: } {llmc.small_parallel_loop}
// CHECK: return
func.func private @opaque(memref<8xf32>)
func.func @not_siblings(%x: memref<8xf32>, %y: memref<8xf32>, %z: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %a[%i] : memref<8xf32>
    scf.reduce
  }
  %b = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %a[%i] : memref<8xf32>
    memref.store %v, %b[%i] : memref<8xf32>
    scf.reduce
  }
  memref.store %zero, %x[%c0] : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %zero, %y[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %zero, %z[%i] : memref<8xf32>
    scf.reduce
  }
  %c = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    func.call @opaque(%x) : (memref<8xf32>) -> ()
    memref.store %zero, %c[%i] : memref<8xf32>
    scf.reduce
  }
  %d = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %d[%i] : memref<8xf32>
    scf.reduce
  } {llmc.small_parallel_loop}
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
