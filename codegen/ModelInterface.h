// What a compiled model takes from its caller, read off the `llm` module: the weight table and the KV cache.
#ifndef LLMC_CODEGEN_MODELINTERFACE_H
#define LLMC_CODEGEN_MODELINTERFACE_H

#include "dialect/LLMTypes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llmc {

/// One weight the entry points take.
struct InterfaceWeight {
  /// The `llm.weight` name (Hugging Face's).
  std::string name;
  /// Logical shape, output-major ([N, K] for a matrix).
  std::vector<int64_t> shape;
  /// "f32", "f16", "bf16", or a block format ("q4_k"): how the buffer the
  /// runtime passes is laid out.
  std::string format;
  /// Rows stored together (`interleave` of `!llm.block`, `rows` of
  /// `!llm.interleaved`): 1, or 8 (blocks) or 16 (floats) when the runtime
  /// repacks the rows at load.
  int64_t interleave = 1;
  /// Elements of a row side by side in an interleaved group (`columns` of
  /// `!llm.interleaved`): 1, or 2 for bf16 pairs.
  int64_t interleaveColumns = 1;
  /// A block format stored as planes (`planar` of `!llm.block`), repacked
  /// from the file's rows at load.
  bool planar = false;
  /// A part of a fused checkpoint tensor (`llm.weight_source`), else empty;
  /// `rows` (`llm.weight_rows`): start, count, stride, groups.
  std::string source;
  std::vector<int64_t> rows;

  /// The checkpoint tensor the weight is read from.
  const std::string &getSourceName() const {
    return source.empty() ? name : source;
  }
};

/// The artifact's contract with its caller. The manifest and the header are
/// written from this, so that they describe the compiled code itself rather
/// than a second derivation from the model config.
struct ModelInterface {
  /// In argument order.
  std::vector<InterfaceWeight> weights;
  mlir::llm::KVCacheType cache;
};

/// Reads the interface off `module` in the `llm` or `fused` phase (the
/// latter has the weight layout the kernels read): the arguments of its
/// `@decode` function with an `llm.weight` name, in order, and its
/// `!llm.kv_cache` argument. `@prefill` takes the same weights.
llvm::Expected<ModelInterface> getModelInterface(mlir::ModuleOp module);

/// The name of a weight element type in manifests: f32, f16, bf16 or the
/// block format's.
std::string getWeightFormatName(mlir::Type elementType);

} // namespace llmc

#endif // LLMC_CODEGEN_MODELINTERFACE_H
