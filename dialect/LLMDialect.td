// The `llm` dialect: decoder-only transformer building blocks as tensor ops.
#ifndef LLMC_DIALECT_LLMDIALECT_TD
#define LLMC_DIALECT_LLMDIALECT_TD

include "mlir/IR/OpBase.td"

def LLM_Dialect : Dialect {
  let name = "llm";
  let cppNamespace = "::mlir::llm";
  let summary = "Decoder-only transformer ops: norms, RoPE, attention, GLU FFNs, KV cache.";
  let description = [{
    The `llm` dialect describes a LLaMA-family decoder at the level of its
    building blocks. Ops work on ranked tensors with value semantics; weights
    and the KV cache are function arguments, never constants, so the compiled
    code does not depend on weight values. Fusion passes rewrite these ops into
    fused `llm` ops and lowering passes turn them into CPU or GPU kernels.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
    // Defined next to the storage classes they need (LLMAttrs.cpp, LLMTypes.cpp).
    void registerAttributes();
    void registerTypes();
  }];
}

class LLM_Op<string mnemonic, list<Trait> traits = []>
    : Op<LLM_Dialect, mnemonic, traits>;

#endif // LLMC_DIALECT_LLMDIALECT_TD
