// LLVM-dialect module → optimized native object file for a CPU.
#ifndef LLMC_CODEGEN_TARGET_H
#define LLMC_CODEGEN_TARGET_H

#include "codegen/cpu/Int8Dot.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llmc {

struct CPUTargetOptions {
  /// LLVM CPU name; "native" means the CPU of the machine running llmc,
  /// with its feature set (AVX2, AVX-512, ...).
  std::string cpu = "native";
  /// Optimization level of the LLVM pipeline (0-3).
  unsigned optLevel = 3;
};

/// What the object was built for, as recorded in the manifest.
struct CPUTargetDescription {
  std::string triple;
  std::string cpu;
  std::string features;
};

/// Resolves "native" and returns the triple, CPU and features used (on x86
/// with SSE4A off whatever the CPU: see kDisabledX86Features).
CPUTargetDescription describeCPUTarget(const CPUTargetOptions &options);

/// The SIMD registers of the target CPU: width in bits and number, for the
/// kernels' vector shapes (x86: 512 × 32 with AVX-512F, 256 × 16 with AVX,
/// 128 × 16 otherwise; other targets: 128 × 32 with NEON, else 128 × 16).
/// Fails for a CPU name LLVM does not know.
/// Also its int8 dot-product instructions (x86: VPDPBUSD with AVX-512 VNNI
/// and VL or with AVX-VNNI, else VPMADDUBSW with AVX2).
struct CPUVectorRegisterInfo {
  int64_t bits;
  int64_t count;
  Int8DotKind int8Dot = Int8DotKind::None;
  /// AVX-512 BF16 (VDPBF16PS on 512-bit registers).
  bool bf16Dot = false;
  /// The vector width of the float prefill GEMM's tile (0: `bits`). A
  /// measured choice, not a property of the FMA units: on AMD Zen 4
  /// (znver4) the f32 FMA rate is the same at 256 and 512 bits
  /// (bench/fma_peak.c: 233 GFLOP/s on 2 cores, either width; llvm-mca's
  /// znver4 model: 16 flops per cycle for both loops), yet the GEMM of
  /// 4 × 6 vector<8xf32> tiles prefilled LLaMA-3-8B-shaped F16 layers at
  /// 143 tokens/s against 135 with 4 × 6 vector<16xf32> (bench/
  /// turns.c, 1.04-1.07x over several runs; TinyLlama's F16 too).
  /// A profile finds the difference in both parts of the GEMM: packing
  /// 96-row panels (16 × 16 transposes in 512-bit shuffles) took 12-13%
  /// of its samples against 9-11% for 48-row ones, and the K loop ran
  /// some 3% longer; prefetching all of the next panel's rows (a tile
  /// prefetches one, 32 of 96 at 128 tokens) did not change it.
  int64_t floatGemmBits = 0;
};
llvm::Expected<CPUVectorRegisterInfo>
getCPUVectorRegisters(const CPUTargetOptions &options);

/// What the object file written by emitCPUObjectFile needs at link time
/// beyond libc and libm.
struct CPUObjectFile {
  /// The loop vectorizer turned calls of expf (softmax, SiLU) and other
  /// libm functions into glibc's vector variants (`_ZGV*`, libmvec).
  bool callsVectorMath = false;
};

/// Translates `module` (LLVM dialect only) to LLVM IR, tags every function
/// with the target CPU and features (without them the code is plain SSE),
/// optimizes it (at O3; on GNU/Linux the vectorizer may call glibc's vector
/// math library, libmvec, for exp and the other libm functions inside
/// loops) and writes a position-independent object file to `path`.
llvm::Expected<CPUObjectFile> emitCPUObjectFile(mlir::ModuleOp module,
                                                const CPUTargetOptions &options,
                                                llvm::StringRef path);

} // namespace llmc

#endif // LLMC_CODEGEN_TARGET_H
