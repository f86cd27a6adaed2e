// The scalar formulas of a quantized KV cache (!llm.kv_cache with i8 or f8E4M3FN elements): codes and the f32 scale
// bytes stored after each head row, shared by every target.
#ifndef LLMC_CODEGEN_COMMON_KVQUANTIZATION_H
#define LLMC_CODEGEN_COMMON_KVQUANTIZATION_H

#include "mlir/IR/Builders.h"

namespace llmc {

/// The per-row factors of quantizing one head row whose largest magnitude
/// is the f32 `largest`: each element's code is encodeKVCode(x ·
/// `codeFactor`), codeFactor = maxCode / largest (0 for an all-zero row,
/// whose codes are then 0), and the row stores `scale` = largest / maxCode
/// (its value is code · scale). maxCode: 127 (i8) or 448 (f8E4M3FN),
/// KVCacheType::getMaxCode.
struct KVRowQuantization {
  mlir::Value codeFactor;
  mlir::Value scale;
};
KVRowQuantization getKVRowQuantization(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value largest, double maxCode);

/// The code byte (i8) of the f32 scalar `scaled` = x / scale, which lies
/// within ± the format's largest code: for i8 `codeType`, rounded to
/// nearest even and clamped to ±127; for f8E4M3FN, the nearest e4m3 value
/// (ties to even, subnormals included, clamped to ±448) as its bits.
mlir::Value encodeKVCode(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value scaled, mlir::Type codeType);

/// The f32 value of a code byte (i8) of `codeType`.
mlir::Value decodeKVCode(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value code, mlir::Type codeType);

/// Byte `byteIndex` (an index, 0 = least significant) of the f32 `scale`'s
/// bits, as i8: the cache stores each scale little endian.
mlir::Value getKVScaleByte(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value scale, mlir::Value byteIndex);

/// The f32 scale whose four little-endian bytes (i8) are `bytes`.
mlir::Value assembleKVScale(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::ValueRange bytes);

} // namespace llmc

#endif // LLMC_CODEGEN_COMMON_KVQUANTIZATION_H
