// llm-cuda-host-to-llvm: the host side of a CUDA model in the LLVM dialect;
// device work goes through the table the runtime stores in the module's
// `<model>_cuda_host_api` global (llmc_cuda_host_api: alloc, launch, copy,
// context, release).
// RUN: llmc-opt %s -split-input-file --llm-cuda-host-to-llvm | FileCheck %s

// The model name is made a C identifier ("tiny-model" -> tiny_model); the
// table's global starts null (the runtime sets it). One name string per
// kernel, shared by its launches.
// CHECK: llvm.mlir.global internal constant @__llmc_kernel_name_bias("bias\00")
// CHECK: llvm.mlir.global internal constant @__llmc_kernel_name_scale("scale\00")
// CHECK: llvm.mlir.global external @tiny_model_cuda_host_api() {{.*}} : !llvm.ptr {
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.return %[[NULL]] : !llvm.ptr
// CHECK-NOT: __llmc_kernel_name_scale

// memref.alloc → alloc(ctx, bytes): field 0 called with field 3 (the
// context); the pointer fills both pointers of the descriptor.
// CHECK-LABEL: llvm.func @run(
// CHECK-SAME: %[[N:[a-z0-9]+]]: i64)
// CHECK: %[[END:.*]] = llvm.getelementptr %{{.*}}[%[[N]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[BYTES:.*]] = llvm.ptrtoint %[[END]] : !llvm.ptr to i64
// CHECK: %[[G0:.*]] = llvm.mlir.addressof @tiny_model_cuda_host_api : !llvm.ptr
// CHECK: %[[API0:.*]] = llvm.load %[[G0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[ALLOCSLOT:.*]] = llvm.getelementptr %[[API0]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr, ptr, ptr)>
// CHECK: %[[ALLOC:.*]] = llvm.load %[[ALLOCSLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[CTXSLOT0:.*]] = llvm.getelementptr %[[API0]][0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr, ptr, ptr)>
// CHECK: %[[CTX0:.*]] = llvm.load %[[CTXSLOT0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[BUF:.*]] = llvm.call %[[ALLOC]](%[[CTX0]], %[[BYTES]]) : !llvm.ptr, (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: llvm.insertvalue %[[BUF]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[BUF]], %{{.*}}[1]

// gpu.launch_func → launch(ctx, name, grid xyz, block xyz, 0, params):
// params is an array of pointers, one per kernel parameter, each at a
// stack copy of the value; a memref is its 5 descriptor fields (allocated
// and aligned pointer, offset, size, stride), as convert-gpu-to-nvvm
// expands it on the device: 10 parameters for two 1-d memrefs.
// CHECK: %[[TEN:.*]] = llvm.mlir.constant(10 : i64) : i64
// CHECK: %[[PARAMS:.*]] = llvm.alloca %[[TEN]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[SLOT]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[PARAMS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %[[SLOT]], %[[P0]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[OFFSLOT:.*]] = llvm.alloca %{{.*}} x i64 : (i64) -> !llvm.ptr
// CHECK: %[[P2:.*]] = llvm.getelementptr %[[PARAMS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %[[OFFSLOT]], %[[P2]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[P9:.*]] = llvm.getelementptr %[[PARAMS]][9] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NOT: llvm.getelementptr %[[PARAMS]][10]
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[NAME:.*]] = llvm.mlir.addressof @__llmc_kernel_name_scale : !llvm.ptr
// CHECK: %[[GX:.*]] = llvm.trunc %[[N]] : i64 to i32
// CHECK: %[[API1:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[LAUNCHSLOT:.*]] = llvm.getelementptr %[[API1]][0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr, ptr, ptr)>
// CHECK: %[[LAUNCH:.*]] = llvm.load %[[LAUNCHSLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[CTXSLOT1:.*]] = llvm.getelementptr %[[API1]][0, 3]
// CHECK: %[[CTX1:.*]] = llvm.load %[[CTXSLOT1]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call %[[LAUNCH]](%[[CTX1]], %[[NAME]], %[[GX]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[PARAMS]]) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32, i32, !llvm.ptr) -> ()

// The second launch of the same kernel uses the same name global.
// CHECK: llvm.mlir.addressof @__llmc_kernel_name_scale : !llvm.ptr
// CHECK: llvm.call %{{.*}}(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32, i32, !llvm.ptr) -> ()

// Scalars are one parameter each (index as i64): 5 + 2.
// CHECK: %[[SEVEN:.*]] = llvm.mlir.constant(7 : i64) : i64
// CHECK: %[[PARAMS2:.*]] = llvm.alloca %[[SEVEN]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: %[[FSLOT:.*]] = llvm.alloca %{{.*}} x f32 : (i64) -> !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[FSLOT]] : f32, !llvm.ptr
// CHECK: %[[P5:.*]] = llvm.getelementptr %[[PARAMS2]][5] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %[[FSLOT]], %[[P5]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[ISLOT:.*]] = llvm.alloca %{{.*}} x i64 : (i64) -> !llvm.ptr
// CHECK: llvm.store %[[N]], %[[ISLOT]] : i64, !llvm.ptr
// CHECK: %[[P6:.*]] = llvm.getelementptr %[[PARAMS2]][6] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: llvm.mlir.addressof @__llmc_kernel_name_bias

// memref.copy → copy(ctx, dst, src, bytes) (field 2), the pointers offset
// by the descriptors' offsets, bytes = size · 4.
// CHECK: %[[COUNT:.*]] = llvm.mul %{{.*}}, %{{.*}} : i64
// CHECK: %[[COPYBYTES:.*]] = llvm.mul %[[COUNT]], %{{.*}} : i64
// CHECK: %[[DST:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[SRC:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[COPYSLOT:.*]] = llvm.getelementptr %{{.*}}[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr, ptr, ptr)>
// CHECK: %[[COPY:.*]] = llvm.load %[[COPYSLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call %[[COPY]](%{{.*}}, %[[DST]], %[[SRC]], %[[COPYBYTES]]) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64) -> ()

// memref.dealloc → release(ctx, allocated pointer) (field 4), nothing after.
// CHECK: %[[ALLOCATED:.*]] = llvm.extractvalue %[[DESC:.*]][0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK: %[[RELEASESLOT:.*]] = llvm.getelementptr %{{.*}}[0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr, ptr, ptr)>
// CHECK: %[[RELEASE:.*]] = llvm.load %[[RELEASESLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[CTXSLOT2:.*]] = llvm.getelementptr %{{.*}}[0, 3]
// CHECK: %[[CTX2:.*]] = llvm.load %[[CTXSLOT2]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call %[[RELEASE]](%[[CTX2]], %[[ALLOCATED]]) : !llvm.ptr, (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: llvm.call
// CHECK: llvm.return

// The kernels are left to the device pipeline.
// CHECK: gpu.module @llmc_kernels {
// CHECK: gpu.func @scale(%{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>) kernel
module attributes {gpu.container_module, llm.model = "tiny-model"} {
  func.func @run(%x: memref<?xf32>, %out: memref<?xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %s = memref.alloc(%n) : memref<?xf32>
    gpu.launch_func @llmc_kernels::@scale blocks in (%n, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<?xf32>, %s : memref<?xf32>)
    gpu.launch_func @llmc_kernels::@scale blocks in (%n, %c1, %c1) threads in (%c256, %c1, %c1) args(%s : memref<?xf32>, %s : memref<?xf32>)
    %half = arith.constant 0.5 : f32
    gpu.launch_func @llmc_kernels::@bias blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%s : memref<?xf32>, %half : f32, %n : index)
    memref.copy %s, %out : memref<?xf32> to memref<?xf32>
    memref.dealloc %s : memref<?xf32>
    return
  }
  gpu.module @llmc_kernels {
    gpu.func @scale(%a: memref<?xf32>, %b: memref<?xf32>) kernel {
      gpu.return
    }
    gpu.func @bias(%a: memref<?xf32>, %s: f32, %n: index) kernel {
      gpu.return
    }
  }
}

// -----

// The copy tensor.extract_slice of whole rows lowers to (the prefill's last
// logit_rows hidden rows): a subview at a dynamic offset with the row-major
// strides of its sizes is one run of bytes, copied from the subview's offset.
// CHECK-LABEL: llvm.func @last_rows
// CHECK: %[[SUB:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<1x?x8xf32, strided<[?, 8, 1], offset: ?>>
// CHECK: llvm.extractvalue %[[SUB]][3, 2]
// CHECK: %[[COUNT:.*]] = llvm.mul
// CHECK: %[[BYTES:.*]] = llvm.mul %[[COUNT]], %{{.*}} : i64
// CHECK: %[[DST:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[SRCOFF:.*]] = llvm.extractvalue %[[SUB]][2]
// CHECK: %[[SRCBASE:.*]] = llvm.extractvalue %[[SUB]][1]
// CHECK: %[[SRC:.*]] = llvm.getelementptr %[[SRCBASE]][%[[SRCOFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: llvm.call %{{.*}}(%{{.*}}, %[[DST]], %[[SRC]], %[[BYTES]]) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64) -> ()
// CHECK-NOT: memrefCopy
module attributes {gpu.container_module, llm.model = "tiny-model"} {
  func.func @last_rows(%hidden: memref<1x?x8xf32>, %out: memref<1x?x8xf32>, %first: index, %rows: index) {
    %last = memref.subview %hidden[0, %first, 0] [1, %rows, 8] [1, 1, 1] : memref<1x?x8xf32> to memref<1x?x8xf32, strided<[?, 8, 1], offset: ?>>
    memref.copy %last, %out : memref<1x?x8xf32, strided<[?, 8, 1], offset: ?>> to memref<1x?x8xf32>
    return
  }
}
