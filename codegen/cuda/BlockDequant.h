// Block-quantized weights in the CUDA kernels: aligned reads of a block's bytes and the decoders over them.
#ifndef LLMC_CODEGEN_CUDA_BLOCKDEQUANT_H
#define LLMC_CODEGEN_CUDA_BLOCKDEQUANT_H

#include "codegen/common/BlockDecoding.h"

#include <string>

namespace llmc::cuda {

/// Elements one decode step turns into f32: 16, a whole run of one Q6_K
/// scale (the shortest run of any format), so one step needs one multiplier
/// and one addend; its code bytes are one 16-byte read where the block's
/// alignment allows (Q8_0 codes; Q4_K/Q5_K nibbles, 16 bytes for 32
/// elements, read once for both halves after CSE).
constexpr int64_t kBlockDecodeLanes = 16;

/// The largest power of two, at most 16, that divides the byte address of
/// every block of a weight stored as rows of `rowBytes` bytes (the buffer
/// itself 16-byte aligned, as every device buffer is): gcd(rowBytes,
/// block bytes) capped at 16. Only Q4_K (144 bytes) and Q5_K (176) reach 16
/// on any row length; the 32-element formats' blocks (18 to 34 bytes) are 2-
/// or 4-byte aligned, so their reads are 16- or 32-bit loads.
int64_t getBlockAlignment(mlir::llm::BlockQuantType format, int64_t rowBytes);

/// A BlockDecoder over `storage` (memref<N x rowBytes x i8>) whose reads are
/// vector.load of the bytes with the alignment their address guarantees
/// (getBlockAlignment and the offset within the block), which LLVM splits
/// into the widest aligned global loads. `decode` yields `lanes` elements
/// (a divisor of kBlockDecodeLanes).
BlockDecoder makeBlockDecoder(mlir::llm::BlockQuantType format,
                              mlir::Value storage,
                              int64_t lanes = kBlockDecodeLanes);

/// The format's name for kernel names: "q4_0", "q6_k".
std::string getBlockTag(mlir::llm::BlockQuantType format);

} // namespace llmc::cuda

#endif // LLMC_CODEGEN_CUDA_BLOCKDEQUANT_H
