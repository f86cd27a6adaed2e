// Enums and attributes of the `llm` dialect (RoPE style and scaling, activations, cache layout).
#ifndef LLMC_DIALECT_LLMATTRS_TD
#define LLMC_DIALECT_LLMATTRS_TD

include "dialect/LLMDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def LLM_RopeStyle : I32Enum<"RopeStyle", "which elements RoPE rotates together", [
    I32EnumCase<"half", 0>,        // (x[i], x[i + rotary_dim/2]): HF rotate_half
    I32EnumCase<"interleaved", 1>  // (x[2i], x[2i+1]): Meta, llama2.c, GGUF
  ]> {
  let cppNamespace = "::mlir::llm";
}
def LLM_RopeStyleAttr : EnumAttr<LLM_Dialect, LLM_RopeStyle, "rope_style">;

def LLM_RopeScalingKind : I32Enum<"RopeScalingKind", "RoPE context-extension method", [
    I32EnumCase<"none", 0>, I32EnumCase<"linear", 1>, I32EnumCase<"ntk", 2>,
    I32EnumCase<"dynamic", 3>, I32EnumCase<"yarn", 4>, I32EnumCase<"llama3", 5>,
    I32EnumCase<"longrope", 6>
  ]> {
  let cppNamespace = "::mlir::llm";
}

def LLM_Activation : I32Enum<"Activation", "FFN activation function", [
    I32EnumCase<"silu", 0>, I32EnumCase<"gelu", 1>, I32EnumCase<"gelu_tanh", 2>,
    I32EnumCase<"relu", 3>
  ]> {
  let cppNamespace = "::mlir::llm";
}
def LLM_ActivationAttr : EnumAttr<LLM_Dialect, LLM_Activation, "activation">;

def LLM_KVCacheLayout : I32Enum<"KVCacheLayout", "memory layout of the KV cache", [
    I32EnumCase<"contiguous", 0>, I32EnumCase<"paged", 1>
  ]> {
  let cppNamespace = "::mlir::llm";
}

/// Where a KV cache's values live: in their own storage beside the keys
/// (`separate`), or nowhere but in the keys (`keys`: the values are the
/// keys, as DeepSeek's latent cache [c; k_pe] is both).
def LLM_KVCacheValues : I32Enum<"KVCacheValues", "storage of the KV cache's values", [
    I32EnumCase<"separate", 0>, I32EnumCase<"keys", 1>
  ]> {
  let cppNamespace = "::mlir::llm";
}

/// GGUF's block-quantized weight formats that the kernels compute on (ggml's
/// names, lower case). Q8_0 ... Q5_1 pack 32 elements per block; the K-quants
/// pack 256 per super-block (8 sub-blocks of 32, Q6_K 16 of 16).
def LLM_BlockFormat : I32Enum<"BlockFormat", "block-quantized weight format", [
    I32EnumCase<"q8_0", 0>, I32EnumCase<"q4_0", 1>, I32EnumCase<"q4_1", 2>,
    I32EnumCase<"q5_0", 3>, I32EnumCase<"q5_1", 4>, I32EnumCase<"q4_k", 5>,
    I32EnumCase<"q5_k", 6>, I32EnumCase<"q6_k", 7>
  ]> {
  let cppNamespace = "::mlir::llm";
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

/// A double-precision parameter (stored as APFloat, which hashes), printed in
/// MLIR's round-trippable float syntax.
class LLM_F64Parameter<string default>
    : APFloatParameter<"a double-precision value"> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::APFloat> {
      ::llvm::APFloat value(0.0);
      if ($_parser.parseFloat(::llvm::APFloat::IEEEdouble(), value))
        return ::mlir::failure();
      return value;
    }() }];
  let printer = [{ $_printer.printFloat($_self) }];
  let defaultValue = "::llvm::APFloat(" # default # ")";
}

/// A boolean parameter printed as `true` / `false`.
class LLM_BoolParameter<string default>
    : AttrOrTypeParameter<"bool", "a boolean"> {
  let parser = [{ [&]() -> ::mlir::FailureOr<bool> {
      if (::mlir::succeeded($_parser.parseOptionalKeyword("true")))
        return true;
      if ($_parser.parseKeyword("false"))
        return ::mlir::failure();
      return false;
    }() }];
  let printer = [{ $_printer << ($_self ? "true" : "false") }];
  let defaultValue = default;
}

//===----------------------------------------------------------------------===//
// RoPE scaling
//===----------------------------------------------------------------------===//

def LLM_RopeScalingAttr : AttrDef<LLM_Dialect, "RopeScaling"> {
  let mnemonic = "rope_scaling";
  let summary = "RoPE frequency scaling for context extension";
  let description = [{
    Selects how RoPE's inverse frequencies θ^(-2i/d) are changed to reach
    contexts longer than the pre-training one. Parameters that do not apply to
    `kind` must keep their defaults; the verifier rejects them otherwise.

    - `none`: plain RoPE.
    - `linear` (position interpolation): positions divided by `factor`.
    - `ntk` (static NTK-aware): θ' = θ · factor^(d/(d-2)).
    - `dynamic` (dynamic NTK): when the sequence length L exceeds
      `original_max_position_embeddings` (M), θ' = θ · (factor·L/M − factor + 1)^(d/(d-2)).
    - `yarn`: frequencies blended between interpolated and extrapolated by a
      linear ramp between the dimensions where the wavelength spans
      `beta_fast` and `beta_slow` rotations of M (rounded outwards to whole
      dimensions unless `truncate = false`); cos/sin scaled by
      `attention_factor` (0 means the default 0.1·ln(factor) + 1).
    - `llama3`: wavelengths above M/`low_freq_factor` are divided by `factor`,
      those below M/`high_freq_factor` are kept, and the band between is
      smoothly interpolated.
    - `longrope`: inv_freq[i] = θ^(-2i/d) / ext[i], where ext is
      `long_factor` when the sequence length L = max(positions) + 1 of the
      call exceeds M and `short_factor` otherwise (one entry per rotated
      pair); cos/sin scaled by `attention_factor` (0 means the default
      sqrt(1 + ln(factor) / ln(M)), 1 when factor is 1).

    Example:
    ```mlir
    #llm.rope_scaling<kind = llama3, factor = 8.0, original_max_position_embeddings = 8192>
    ```
  }];
  let parameters = (ins
    EnumParameter<LLM_RopeScalingKind>:$kind,
    LLM_F64Parameter<"1.0">:$factor,
    DefaultValuedParameter<"int64_t", "0">:$original_max_position_embeddings,
    LLM_F64Parameter<"1.0">:$low_freq_factor,
    LLM_F64Parameter<"4.0">:$high_freq_factor,
    LLM_F64Parameter<"32.0">:$beta_fast,
    LLM_F64Parameter<"1.0">:$beta_slow,
    LLM_F64Parameter<"0.0">:$attention_factor,
    LLM_BoolParameter<"true">:$truncate,
    OptionalParameter<"::mlir::DenseF64ArrayAttr">:$short_factor,
    OptionalParameter<"::mlir::DenseF64ArrayAttr">:$long_factor
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  // Lets ops declare a default-valued attribute of this kind with a full
  // C++ expression as the default.
  let constBuilderCall = "$0";
  let builders = [
    AttrBuilder<(ins "RopeScalingKind":$kind, "double":$factor,
                     "int64_t":$original_max_position_embeddings,
                     "double":$low_freq_factor, "double":$high_freq_factor,
                     "double":$beta_fast, "double":$beta_slow,
                     "double":$attention_factor, "bool":$truncate,
                     "::llvm::ArrayRef<double>":$short_factor,
                     "::llvm::ArrayRef<double>":$long_factor), [{
      return $_get($_ctxt, kind, ::llvm::APFloat(factor),
                   original_max_position_embeddings,
                   ::llvm::APFloat(low_freq_factor),
                   ::llvm::APFloat(high_freq_factor), ::llvm::APFloat(beta_fast),
                   ::llvm::APFloat(beta_slow), ::llvm::APFloat(attention_factor),
                   truncate,
                   short_factor.empty() ? ::mlir::DenseF64ArrayAttr()
                       : ::mlir::DenseF64ArrayAttr::get($_ctxt, short_factor),
                   long_factor.empty() ? ::mlir::DenseF64ArrayAttr()
                       : ::mlir::DenseF64ArrayAttr::get($_ctxt, long_factor));
    }]>,
    AttrBuilder<(ins "RopeScalingKind":$kind), [{
      return $_get($_ctxt, kind, ::llvm::APFloat(1.0), 0, ::llvm::APFloat(1.0),
                   ::llvm::APFloat(4.0), ::llvm::APFloat(32.0),
                   ::llvm::APFloat(1.0), ::llvm::APFloat(0.0), true,
                   ::mlir::DenseF64ArrayAttr(), ::mlir::DenseF64ArrayAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The plain-RoPE attribute (`kind = none`).
    static RopeScalingAttr getNone(::mlir::MLIRContext *context) {
      return get(context, RopeScalingKind::none);
    }
    /// longrope's per-pair divisors (empty for the other kinds).
    ::llvm::ArrayRef<double> getShortFactorValues() const {
      return getShortFactor() ? getShortFactor().asArrayRef()
                              : ::llvm::ArrayRef<double>();
    }
    ::llvm::ArrayRef<double> getLongFactorValues() const {
      return getLongFactor() ? getLongFactor().asArrayRef()
                             : ::llvm::ArrayRef<double>();
    }
  }];
}

#endif // LLMC_DIALECT_LLMATTRS_TD
