// Block-quantized weights in the CUDA kernels: aligned reads of a planar block's bytes and the decoders over them.
#ifndef LLMC_CODEGEN_CUDA_BLOCKDEQUANT_H
#define LLMC_CODEGEN_CUDA_BLOCKDEQUANT_H

#include "codegen/common/BlockDecoding.h"

#include <string>

namespace llmc::cuda {

/// Elements one decode step turns into f32: 16, a whole run of one Q6_K
/// scale (the shortest run of any format), so one step needs one multiplier
/// and one addend; its code bytes are one 16-byte read (Q8_0 codes; Q4_K/
/// Q5_K nibbles, 16 bytes for 32 elements, read once for both halves after
/// CSE).
constexpr int64_t kBlockDecodeLanes = 16;

/// A BlockDecoder over the planar weight `storage` (memref<N x rowBytes x
/// i8> holding `!llm.block<f, planar>`: planes of each block segment, see
/// the type), whose reads are vector.loads of the aligned piece of the
/// segment that holds the bytes, up to 16 bytes: one ld.global.v4 per 16
/// code bytes, consecutive blocks' pieces consecutive in memory. `decode`
/// yields `lanes` elements (a divisor of kBlockDecodeLanes).
BlockDecoder makeBlockDecoder(mlir::llm::BlockQuantType format,
                              mlir::Value storage,
                              int64_t lanes = kBlockDecodeLanes);

/// The format's name for kernel names: "q4_0", "q6_k" (the CUDA kernels
/// read one layout, planar).
std::string getBlockTag(mlir::llm::BlockQuantType format);

} // namespace llmc::cuda

#endif // LLMC_CODEGEN_CUDA_BLOCKDEQUANT_H
