// Registration of the `llm` dialect's ops, attributes and types.
#include "dialect/LLMOps.h"

using namespace mlir;
using namespace mlir::llm;

#include "dialect/LLMDialect.cpp.inc"

namespace {
/// Prints `!kv_cache` aliases so that the long cache type is spelled once
/// per module instead of on every op that touches the cache.
struct LLMOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Type type, raw_ostream &os) const override {
    if (isa<KVCacheType>(type)) {
      os << "kv_cache";
      return AliasResult::OverridableAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void LLMDialect::initialize() {
  addInterfaces<LLMOpAsmInterface>();
  addOperations<
#define GET_OP_LIST
#include "dialect/LLMOps.cpp.inc"
      >();
  registerAttributes();
  registerTypes();
}
