// llm-cuda-host-to-llvm refuses what the runtime's host API cannot do.
// RUN: llmc-opt %s -split-input-file --llm-cuda-host-to-llvm -verify-diagnostics

// An async launch: the runtime launches in program order on one stream.
module attributes {gpu.container_module, llm.model = "m"} {
  func.func @run(%x: memref<?xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %token = gpu.wait async
    // expected-error @+1 {{'gpu.launch_func' op is async; the runtime's host API launches in program order on one stream, without async tokens}}
    %done = gpu.launch_func async [%token] @llmc_kernels::@scale blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<?xf32>)
    return
  }
  gpu.module @llmc_kernels {
    gpu.func @scale(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// A copy of rows of two sequences out of longer ones: the rows of each
// sequence are dense, but not the two together (the outer stride is unknown).
module attributes {gpu.container_module, llm.model = "m"} {
  func.func @run(%hidden: memref<2x?x8xf32>, %out: memref<2x?x8xf32>, %first: index, %rows: index) {
    %last = memref.subview %hidden[0, %first, 0] [2, %rows, 8] [1, 1, 1] : memref<2x?x8xf32> to memref<2x?x8xf32, strided<[?, 8, 1], offset: ?>>
    // expected-error @+1 {{'memref.copy' op copies device buffers that are not dense row-major; the host API copies one contiguous run of bytes}}
    memref.copy %last, %out : memref<2x?x8xf32, strided<[?, 8, 1], offset: ?>> to memref<2x?x8xf32>
    return
  }
}
