// Enums and attributes of the `llm` dialect (RoPE style and scaling methods, activations, cache layout).
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
// RoPE scaling: one attribute per context-extension method, each with the
// parameters of its method only; plain RoPE has none.
//===----------------------------------------------------------------------===//

def LLM_RopeScalingAttrInterface : AttrInterface<"RopeScalingAttrInterface"> {
  let cppNamespace = "::mlir::llm";
  let description = [{
    A RoPE context-extension method: how RoPE's inverse frequencies
    θ^(-2i/d) are changed to reach contexts longer than the pre-training
    one, by a factor ≥ 1. `llm.rope` and `llm.rope_append` take one as their
    optional `scaling`.
  }];
  let methods = [
    InterfaceMethod<"The method (for switches and kernel names).",
                    "::mlir::llm::RopeScalingKind", "getKind">,
    InterfaceMethod<"The context-extension factor.", "::llvm::APFloat",
                    "getFactor", (ins), [{ return $_attr.getFactor(); }]>
  ];
}

class LLM_RopeScalingAttr<string name, string kind, string mnemonicName>
    : AttrDef<LLM_Dialect, name, [
        DeclareAttrInterfaceMethods<LLM_RopeScalingAttrInterface, ["getKind"]>]> {
  let mnemonic = mnemonicName;
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDefinition = [{
    ::mlir::llm::RopeScalingKind $cppClass::getKind() const {
      return ::mlir::llm::RopeScalingKind::}] # kind # [{;
    }
  }];
}

/// A factor of at least 1 (parsed and printed as a double).
def LLM_RopeFactorParameter : APFloatParameter<"a factor of at least 1"> {
  let parser = LLM_F64Parameter<"1.0">.parser;
  let printer = LLM_F64Parameter<"1.0">.printer;
}

def LLM_RopeLinearAttr : LLM_RopeScalingAttr<"RopeLinear", "linear", "rope_linear"> {
  let summary = "RoPE position interpolation";
  let description = [{
    Positions divided by `factor` (inverse frequencies divided by it).

    ```mlir
    #llm.rope_linear<factor = 4.0>
    ```
  }];
  let parameters = (ins LLM_RopeFactorParameter:$factor);
}

def LLM_RopeNtkAttr : LLM_RopeScalingAttr<"RopeNtk", "ntk", "rope_ntk"> {
  let summary = "static NTK-aware RoPE scaling";
  let description = [{
    θ' = θ · factor^(d/(d-2)) (undefined for a single rotated pair, d = 2).

    ```mlir
    #llm.rope_ntk<factor = 2.0>
    ```
  }];
  let parameters = (ins LLM_RopeFactorParameter:$factor);
}

def LLM_RopeDynamicAttr : LLM_RopeScalingAttr<"RopeDynamic", "dynamic", "rope_dynamic"> {
  let summary = "dynamic NTK RoPE scaling";
  let description = [{
    When a call's sequence length L = max(positions) + 1 exceeds
    `original_max_position_embeddings` (M),
    θ' = θ · (factor·L/M − factor + 1)^(d/(d-2)); θ otherwise.

    ```mlir
    #llm.rope_dynamic<factor = 2.0, original_max_position_embeddings = 2048>
    ```
  }];
  let parameters = (ins LLM_RopeFactorParameter:$factor,
                        "int64_t":$original_max_position_embeddings);
}

def LLM_RopeYarnAttr : LLM_RopeScalingAttr<"RopeYarn", "yarn", "rope_yarn"> {
  let summary = "YaRN RoPE scaling";
  let description = [{
    Frequencies blended between interpolated (÷ `factor`) and extrapolated by
    a linear ramp between the dimensions where the wavelength spans
    `beta_fast` and `beta_slow` rotations of `original_max_position_embeddings`
    (M), rounded outwards to whole dimensions unless `truncate = false`;
    cos/sin scaled by `attention_factor` (0 means the default
    0.1·ln(factor) + 1).

    ```mlir
    #llm.rope_yarn<factor = 4.0, original_max_position_embeddings = 32768>
    #llm.rope_yarn<factor = 40.0, original_max_position_embeddings = 4096,
                   beta_fast = 32.0, beta_slow = 1.0, attention_factor = 0.707,
                   truncate = false>
    ```
  }];
  let parameters = (ins LLM_RopeFactorParameter:$factor,
                        "int64_t":$original_max_position_embeddings,
                        LLM_F64Parameter<"32.0">:$beta_fast,
                        LLM_F64Parameter<"1.0">:$beta_slow,
                        LLM_F64Parameter<"0.0">:$attention_factor,
                        LLM_BoolParameter<"true">:$truncate);
}

def LLM_RopeLlama3Attr : LLM_RopeScalingAttr<"RopeLlama3", "llama3", "rope_llama3"> {
  let summary = "Llama 3.1's RoPE scaling";
  let description = [{
    Wavelengths above M/`low_freq_factor` (M = `original_max_position_embeddings`)
    are divided by `factor`, those below M/`high_freq_factor` are kept, and
    the band between is smoothly interpolated.

    ```mlir
    #llm.rope_llama3<factor = 8.0, original_max_position_embeddings = 8192>
    ```
  }];
  let parameters = (ins LLM_RopeFactorParameter:$factor,
                        "int64_t":$original_max_position_embeddings,
                        LLM_F64Parameter<"1.0">:$low_freq_factor,
                        LLM_F64Parameter<"4.0">:$high_freq_factor);
}

def LLM_RopeLongropeAttr : LLM_RopeScalingAttr<"RopeLongrope", "longrope", "rope_longrope"> {
  let summary = "LongRoPE scaling (Phi-3)";
  let description = [{
    inv_freq[i] = θ^(-2i/d) / ext[i], where ext is `long_factor` when the
    call's sequence length L = max(positions) + 1 exceeds
    `original_max_position_embeddings` (M) and `short_factor` otherwise (one
    entry per rotated pair); cos/sin scaled by `attention_factor` (0 means
    the default sqrt(1 + ln(factor) / ln(M)), 1 when factor is 1).

    ```mlir
    #llm.rope_longrope<factor = 32.0, original_max_position_embeddings = 4096,
                       short_factor = [1.0, 1.0], long_factor = [1.0, 4.0]>
    ```
  }];
  let parameters = (ins LLM_RopeFactorParameter:$factor,
                        "int64_t":$original_max_position_embeddings,
                        LLM_F64Parameter<"0.0">:$attention_factor,
                        "::mlir::DenseF64ArrayAttr":$short_factor,
                        "::mlir::DenseF64ArrayAttr":$long_factor);
}

#endif // LLMC_DIALECT_LLMATTRS_TD
