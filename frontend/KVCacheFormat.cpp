//===- KVCacheFormat.cpp - How the KV cache stores keys and values --------===//
#include "KVCacheFormat.h"

#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace llmc {

std::optional<KVCacheFormat> parseKVCacheFormat(StringRef name) {
  for (KVCacheFormat format :
       {KVCacheFormat::F32, KVCacheFormat::F16, KVCacheFormat::BF16,
        KVCacheFormat::Int8, KVCacheFormat::FP8E4M3})
    if (name == toString(format))
      return format;
  return std::nullopt;
}

StringRef toString(KVCacheFormat format) {
  switch (format) {
  case KVCacheFormat::F32:
    return "f32";
  case KVCacheFormat::F16:
    return "f16";
  case KVCacheFormat::BF16:
    return "bf16";
  case KVCacheFormat::Int8:
    return "int8";
  case KVCacheFormat::FP8E4M3:
    return "fp8";
  }
  llvm_unreachable("unknown KVCacheFormat");
}

KVCacheFormat toKVCacheFormat(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return KVCacheFormat::F32;
  case DType::F16:
    return KVCacheFormat::F16;
  case DType::BF16:
    return KVCacheFormat::BF16;
  }
  llvm_unreachable("unknown DType");
}

bool isQuantized(KVCacheFormat format) {
  return format == KVCacheFormat::Int8 || format == KVCacheFormat::FP8E4M3;
}

int64_t getKVElementBytes(KVCacheFormat format) {
  switch (format) {
  case KVCacheFormat::F32:
    return 4;
  case KVCacheFormat::F16:
  case KVCacheFormat::BF16:
    return 2;
  case KVCacheFormat::Int8:
  case KVCacheFormat::FP8E4M3:
    return 1;
  }
  llvm_unreachable("unknown KVCacheFormat");
}

int64_t getKVScaleBytes(KVCacheFormat format) {
  return isQuantized(format) ? 4 : 0;
}

int64_t getKVHeadRowBytes(KVCacheFormat format, int64_t headDim) {
  return headDim * getKVElementBytes(format) + getKVScaleBytes(format);
}

} // namespace llmc
