//===- KVCacheFormat.h - How the KV cache stores keys and values ----------===//
//
// The element formats of `--kv-type`: float caches (f32, f16, bf16) hold the
// keys and values rounded to the format; quantized caches (int8, fp8 e4m3)
// hold each position's head row of head_dim codes followed by one f32 scale
// (the row's max |x| over the format's largest code), so a row dequantizes
// as code · scale. `!llm.kv_cache` with element type i8 / f8E4M3FN is the IR
// form of the same layout.
//
//===----------------------------------------------------------------------===//
#ifndef LLMC_FRONTEND_KVCACHEFORMAT_H
#define LLMC_FRONTEND_KVCACHEFORMAT_H

#include "ModelConfig.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace llmc {

enum class KVCacheFormat { F32, F16, BF16, Int8, FP8E4M3 };

/// "f32", "f16", "bf16", "int8" or "fp8" (the --kv-type spellings).
std::optional<KVCacheFormat> parseKVCacheFormat(llvm::StringRef name);
llvm::StringRef toString(KVCacheFormat format);
/// The float cache of a model dtype (`llmc info`'s default).
KVCacheFormat toKVCacheFormat(DType dtype);
bool isQuantized(KVCacheFormat format);
/// Bytes of one key (or value) element: 4, 2, 2, 1, 1.
int64_t getKVElementBytes(KVCacheFormat format);
/// Bytes of the scale stored after each quantized head row (an f32), 0 for
/// a float cache.
int64_t getKVScaleBytes(KVCacheFormat format);
/// Bytes of one position's keys (or values) of one KV head.
int64_t getKVHeadRowBytes(KVCacheFormat format, int64_t headDim);

} // namespace llmc

#endif // LLMC_FRONTEND_KVCACHEFORMAT_H
