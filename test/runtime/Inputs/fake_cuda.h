/* The contract between fake_libcuda.c (a CPU stand-in for the CUDA driver)
 * and mock_cuda_model.c (a mock CUDA artifact): what a fake "device image"
 * holds. Device memory is host memory, so the fake's kernels are host
 * functions; an image names them with relocated pointers, which is possible
 * only because the fake runs in the same process as the library. */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

#include <stdint.h>

#define FAKE_MAX_PARAMS 16

/* A kernel: `params` is cuLaunchKernel's kernelParams (one pointer per
 * parameter); `param_bytes` lets the fake copy the values when it captures
 * a launch into a graph, as the driver does. */
struct fake_kernel {
  const char *name;
  void (*fn)(void **params);
  uint32_t n_params;
  uint32_t param_bytes[FAKE_MAX_PARAMS];
};

/* 64 bytes (make_artifact.py's FAKE_IMAGE_BYTES). `text` starts like an ELF
 * file, so the runtime's cubin check passes, then names the arch and format
 * ("\177ELF llmc-fake sm_90 cubin"); the zero tail ends a "PTX" image with
 * the NUL the runtime requires. */
struct fake_image {
  char text[40];
  const struct fake_kernel *kernels;
  uint64_t n_kernels;
  char tail[8];
};

#endif
