// Builds the `llm` dialect module of a ModelConfig: one decoder body, emitted
// twice (prefill over T tokens, decode over one).
#include "graph/ModelBuilder.h"
#include "frontend/WeightTable.h"

#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace llmc;

namespace {

/// transformers' DeepseekV2RMSNorm / DeepseekV3RMSNorm default, which
/// q_a_layernorm and kv_a_layernorm keep (they are built without the
/// config's rms_norm_eps).
constexpr double kLatentNormEps = 1e-6;

/// The element type of a weight in `format`: a float type, or the
/// `!llm.block<...>` of a GGUF block format (the enums share their names).
Type getElementType(MLIRContext &context, WeightFormat format) {
  switch (format) {
  case WeightFormat::F32:
    return Float32Type::get(&context);
  case WeightFormat::F16:
    return Float16Type::get(&context);
  case WeightFormat::BF16:
    return BFloat16Type::get(&context);
  default:
    return llm::BlockQuantType::get(
        &context, *llm::symbolizeBlockFormat(toString(format)));
  }
}

Type getElementType(MLIRContext &context, DType dtype) {
  return getElementType(context, toWeightFormat(dtype));
}

/// The `!llm.kv_cache` element type of `format`: a float type, or the
/// code of a quantized cache.
Type getElementType(MLIRContext &context, KVCacheFormat format) {
  switch (format) {
  case KVCacheFormat::F32:
    return Float32Type::get(&context);
  case KVCacheFormat::F16:
    return Float16Type::get(&context);
  case KVCacheFormat::BF16:
    return BFloat16Type::get(&context);
  case KVCacheFormat::Int8:
    return IntegerType::get(&context, 8);
  case KVCacheFormat::FP8E4M3:
    return Float8E4M3FNType::get(&context);
  }
  llvm_unreachable("unknown KVCacheFormat");
}

llm::RopeStyle toIR(RopeStyle style) {
  return style == RopeStyle::Half ? llm::RopeStyle::half
                                  : llm::RopeStyle::interleaved;
}

llm::Activation toIR(Activation act) {
  switch (act) {
  case Activation::SiLU:
    return llm::Activation::silu;
  case Activation::GELU:
    return llm::Activation::gelu;
  case Activation::GELUTanh:
    return llm::Activation::gelu_tanh;
  case Activation::ReLU:
    return llm::Activation::relu;
  }
  llvm_unreachable("unknown activation");
}

/// The IR attribute of a context-extension method: each takes the config
/// parameters of its method; null for plain RoPE.
llm::RopeScalingAttrInterface toIR(MLIRContext &context,
                                   const RopeScaling &scaling) {
  APFloat factor(scaling.factor);
  int64_t originalMax = scaling.originalMaxPositionEmbeddings;
  // 0: the method's default, computed by the lowering.
  APFloat attentionFactor(scaling.attentionFactor.value_or(0.0));
  switch (scaling.kind) {
  case RopeScalingKind::None:
    return {};
  case RopeScalingKind::Linear:
    return llm::RopeLinearAttr::get(&context, factor);
  case RopeScalingKind::NTK:
    return llm::RopeNtkAttr::get(&context, factor);
  case RopeScalingKind::Dynamic:
    return llm::RopeDynamicAttr::get(&context, factor, originalMax);
  case RopeScalingKind::Yarn:
    return llm::RopeYarnAttr::get(&context, factor, originalMax,
                                  APFloat(scaling.betaFast),
                                  APFloat(scaling.betaSlow), attentionFactor,
                                  scaling.truncate);
  case RopeScalingKind::Llama3:
    return llm::RopeLlama3Attr::get(&context, factor, originalMax,
                                    APFloat(scaling.lowFreqFactor),
                                    APFloat(scaling.highFreqFactor));
  case RopeScalingKind::Longrope:
    return llm::RopeLongropeAttr::get(
        &context, factor, originalMax, attentionFactor,
        DenseF64ArrayAttr::get(&context, scaling.shortFactor),
        DenseF64ArrayAttr::get(&context, scaling.longFactor));
  }
  llvm_unreachable("unknown RoPE scaling method");
}

/// Emits one function of the decoder. Activations are f32 tensors shaped
/// (B, T, ...); T is dynamic for prefill and 1 for decode.
class DecoderEmitter {
public:
  DecoderEmitter(MLIRContext &context, const ModelConfig &config,
                 const ModelBuildOptions &options, ModuleOp module)
      : context(context), config(config), options(options),
        builder(OpBuilder::atBlockEnd(module.getBody())), loc(builder.getUnknownLoc()),
        weightTable(getWeightTable(config)) {
    f32 = builder.getF32Type();
    defaultWeightType = getElementType(context, config.dtype);
    kvType = getElementType(context, options.kvType);
    int64_t capacity = getKVCacheCapacity(config, options);
    cacheType = llm::KVCacheType::get(
        &context, config.numLayers, options.batch, config.numKVHeads,
        config.headDim, capacity, kvType,
        options.pagedKVCache ? llm::KVCacheLayout::paged
                             : llm::KVCacheLayout::contiguous,
        options.pagedKVCache ? options.kvPageSize : llm::kDefaultKVPageSize,
        cachesValuesAsKeys(config.block.attention)
            ? llm::KVCacheValues::keys
            : llm::KVCacheValues::separate);
    ropeScaling = toIR(context, config.ropeScaling);
  }

  void emitFunction(StringRef name, int64_t seqLen) {
    const int64_t batch = options.batch;
    auto i32 = builder.getI32Type();
    // (tokens, positions, kv_cache[, kv_page_table], weights...): a paged
    // cache's page table follows the cache.
    SmallVector<Type> argTypes = {tensor({batch, seqLen}, i32),
                                  tensor({batch, seqLen}, i32), cacheType};
    if (cacheType.isPaged())
      argTypes.push_back(cacheType.getPageTableType());
    const unsigned firstWeight = argTypes.size();
    for (const WeightSpec &spec : weightTable)
      argTypes.push_back(weightTensorType(spec));
    // A prefill computes the logits of its last `logit_rows` tokens only
    // (an index argument after the weights): a generation needs one row,
    // and the classifier is often the largest matrix of a small model.
    const bool slicesLogitRows = ShapedType::isDynamic(seqLen);
    if (slicesLogitRows)
      argTypes.push_back(builder.getIndexType());
    Type logitsType = tensor({batch, seqLen, config.vocabSize}, f32);
    auto funcType = builder.getFunctionType(argTypes, {logitsType, cacheType});

    OpBuilder::InsertionGuard guard(builder);
    auto func = func::FuncOp::create(builder, loc, name, funcType);
    // Internal to the model: the artifact's C entry points call it
    // (llm-cpu-entry-points), which lets bufferization update the KV cache
    // in place instead of returning a copy.
    func.setPrivate();
    func.setArgAttr(0, "llm.input", builder.getStringAttr("tokens"));
    func.setArgAttr(1, "llm.input", builder.getStringAttr("positions"));
    func.setArgAttr(2, "llm.input", builder.getStringAttr("kv_cache"));
    if (cacheType.isPaged())
      func.setArgAttr(3, "llm.input", builder.getStringAttr("kv_page_table"));
    if (slicesLogitRows)
      func.setArgAttr(argTypes.size() - 1, "llm.input",
                      builder.getStringAttr("logit_rows"));
    Block *entry = func.addEntryBlock();
    builder.setInsertionPointToStart(entry);

    weights.clear();
    for (auto [index, spec] : llvm::enumerate(weightTable)) {
      func.setArgAttr(firstWeight + index, "llm.weight",
                      builder.getStringAttr(spec.name));
      if (!spec.source.empty()) {
        // A part of a fused checkpoint tensor, split at load.
        func.setArgAttr(firstWeight + index, "llm.weight_source",
                        builder.getStringAttr(spec.source));
        func.setArgAttr(firstWeight + index, "llm.weight_rows",
                        builder.getDenseI64ArrayAttr(
                            {spec.rows.start, spec.rows.count,
                             spec.rows.stride, spec.rows.groups}));
      }
      weights[{spec.layer, spec.role, spec.bias}] =
          entry->getArgument(firstWeight + index);
    }
    Value tokens = entry->getArgument(0);
    positions = entry->getArgument(1);
    cache = entry->getArgument(2);
    pageTable = cacheType.isPaged() ? entry->getArgument(3) : Value();

    setLocation("model.embed_tokens");
    Type hiddenType = tensor({batch, seqLen, config.hiddenSize}, f32);
    Value hidden = llm::EmbeddingOp::create(
        builder, loc, hiddenType, tokens, weight(-1, WeightRole::Embedding),
        config.block.scaleEmbeddings ? getEmbeddingScale() : FloatAttr());
    // Layers run shared code: one call per layer to a layer function, one
    // function per distinct set of weight formats, which keeps the compiled
    // code (and compile time) independent of the layer count.
    // Layers alike in their weights' formats and their parameters (the
    // window) share a function.
    // A prefill's layers keep the last `output_rows` rows of their hidden
    // state from their attention's queries on (an index argument after the
    // layer index): every row but in the last layer, which keeps only the
    // rows whose logits are asked for (llama.cpp prunes its last layer from
    // the attention sublayer's output on); on a 128-token prompt that skips
    // 127/128 of the last layer's attention, o_proj and feed-forward
    // network. A function of its own for the last layer would compile the
    // prefill layer twice (a 4-layer F16 model: 4.3 -> 7.3 s).
    struct LayerVariant {
      SmallVector<Type> weightTypes;
      std::optional<int64_t> window;
      bool operator==(const LayerVariant &other) const {
        return weightTypes == other.weightTypes && window == other.window;
      }
    };
    SmallVector<std::pair<LayerVariant, func::FuncOp>> layerFuncs;
    Value logitRows, allRows;
    if (slicesLogitRows) {
      // Every layer but the last computes all rows.
      logitRows = entry->getArguments().back();
      if (config.numLayers > 1)
        allRows = tensor::DimOp::create(builder, loc, tokens, 1);
    }
    for (int64_t layer = 0; layer < config.numLayers; ++layer) {
      LayerVariant variant{getLayerWeightTypes(layer),
                           getLayerWindow(config, layer)};
      auto known = llvm::find_if(layerFuncs, [&](const auto &entry) {
        return entry.first == variant;
      });
      if (known == layerFuncs.end()) {
        std::string funcName = (name + "_layer").str();
        if (!layerFuncs.empty())
          funcName += "_" + std::to_string(layerFuncs.size());
        layerFuncs.push_back(
            {variant, emitLayerFunction(funcName, seqLen, variant.weightTypes,
                                        variant.window)});
        known = std::prev(layerFuncs.end());
      }
      func::FuncOp layerFunc = known->second;
      setLocation("model.layers." + Twine(layer));
      SmallVector<Value> operands = {hidden, positions, cache};
      if (pageTable)
        operands.push_back(pageTable);
      operands.push_back(arith::ConstantIndexOp::create(builder, loc, layer));
      if (slicesLogitRows)
        operands.push_back(layer == config.numLayers - 1 ? logitRows : allRows);
      for (const WeightSpec &spec : weightTable)
        if (spec.layer == layer)
          operands.push_back(weights.at({layer, spec.role, spec.bias}));
      auto call = func::CallOp::create(builder, loc, layerFunc, operands);
      hidden = call.getResult(0);
      cache = call.getResult(1);
    }
    setLocation("model.norm");
    // The last layer has kept only the last logit_rows rows: this slice of
    // all of them (none is dropped unless the model has no layers) gives
    // the logits the extent logit_rows visibly, which llm-cpu-entry-points
    // needs to compute them in the caller's buffer.
    if (logitRows)
      hidden = sliceLastRows(hidden, logitRows);
    Value normed = norm(hidden, -1, WeightRole::FinalNorm);
    Value head = config.tieWordEmbeddings ? weight(-1, WeightRole::Embedding)
                                          : weight(-1, WeightRole::LMHead);
    setLocation("lm_head");
    auto logits = llm::LogitsOp::create(
        builder, loc, logitsType, normed, head, bias(-1, WeightRole::LMHead),
        config.tieWordEmbeddings, optionalF64(config.block.finalLogitSoftcap));
    func::ReturnOp::create(builder, loc, ValueRange{logits, cache});
    loc = builder.getUnknownLoc();
  }

private:
  /// `@<name>`: one decoder layer, (hidden, positions, kv_cache
  /// [, kv_page_table], layer[, output_rows], the layer's weights) ->
  /// (hidden, kv_cache), the weights in the order of the weight table's layer
  /// entries, of `layerWeightTypes`. A prefill's layer (dynamic `seqLen`)
  /// takes output_rows: its attention's queries and everything after them
  /// are those of its last output_rows rows, the hidden state it returns
  /// too.
  func::FuncOp emitLayerFunction(StringRef name, int64_t seqLen,
                                 ArrayRef<Type> layerWeightTypes,
                                 std::optional<int64_t> window) {
    const bool takesOutputRows = ShapedType::isDynamic(seqLen);
    const int64_t batch = options.batch;
    Type hiddenType = tensor({batch, seqLen, config.hiddenSize}, f32);
    SmallVector<Type> argTypes = {hiddenType,
                                  tensor({batch, seqLen},
                                         builder.getI32Type()),
                                  cacheType};
    if (cacheType.isPaged())
      argTypes.push_back(cacheType.getPageTableType());
    const unsigned layerArg = argTypes.size();
    argTypes.push_back(builder.getIndexType());
    if (takesOutputRows)
      argTypes.push_back(builder.getIndexType());
    const unsigned firstWeight = argTypes.size();
    SmallVector<const WeightSpec *> layerWeights;
    for (const WeightSpec &spec : weightTable)
      if (spec.layer == 0)
        layerWeights.push_back(&spec);
    argTypes.append(layerWeightTypes.begin(), layerWeightTypes.end());

    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(
        builder.getBlock()->getParentOp()->getBlock());
    auto func = func::FuncOp::create(
        builder, builder.getUnknownLoc(), name,
        builder.getFunctionType(argTypes, {hiddenType, cacheType}));
    func.setPrivate();
    Block *entry = func.addEntryBlock();
    builder.setInsertionPointToStart(entry);

    // The layer body reads its weights as those of "layer 0" and addresses
    // the cache with the layer argument.
    std::map<WeightKey, Value> callerWeights;
    std::swap(weights, callerWeights);
    Value callerPositions = positions, callerCache = cache,
          callerPageTable = pageTable;
    for (auto [index, spec] : llvm::enumerate(layerWeights))
      weights[{0, spec->role, spec->bias}] =
          entry->getArgument(firstWeight + index);
    positions = entry->getArgument(1);
    cache = entry->getArgument(2);
    pageTable = cacheType.isPaged() ? entry->getArgument(3) : Value();
    layerIndex = entry->getArgument(layerArg);
    outputRows = takesOutputRows ? entry->getArgument(layerArg + 1) : Value();
    // T as the reshapes need it: a constant for decode, read once for
    // prefill.
    Value hidden = entry->getArgument(0);
    if (ShapedType::isDynamic(seqLen))
      seqLenExtent = tensor::DimOp::create(builder, builder.getUnknownLoc(),
                                           hidden, 1)
                         .getResult();
    else
      seqLenExtent = builder.getIndexAttr(seqLen);
    if (outputRows)
      firstOutputRow = arith::SubIOp::create(
          builder, builder.getUnknownLoc(), cast<Value>(seqLenExtent),
          outputRows);

    hidden = emitBlock(0, hidden, window);
    func::ReturnOp::create(builder, loc, ValueRange{hidden, cache});

    std::swap(weights, callerWeights);
    positions = callerPositions;
    cache = callerCache;
    pageTable = callerPageTable;
    layerIndex = Value();
    outputRows = firstOutputRow = Value();
    return func;
  }

  /// A weight's tensor type: its shape, in its format.
  RankedTensorType weightTensorType(const WeightSpec &spec) {
    auto format = options.weightFormats.find(spec.name);
    Type element = format == options.weightFormats.end()
                       ? defaultWeightType
                       : getElementType(context, format->second);
    return tensor(spec.shape, element);
  }

  /// The types of layer `layer`'s weights, in weight-table order.
  SmallVector<Type> getLayerWeightTypes(int64_t layer) {
    SmallVector<Type> types;
    for (const WeightSpec &spec : weightTable)
      if (spec.layer == layer)
        types.push_back(weightTensorType(spec));
    return types;
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type elementType) {
    return RankedTensorType::get(shape, elementType);
  }

  /// `type` with its last dimension replaced.
  RankedTensorType withLastDim(Value value, int64_t last) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.back() = last;
    return tensor(shape, f32);
  }

  /// The weight of `role`, or null when the model has none.
  Value weight(int64_t layer, WeightRole role) {
    auto it = weights.find({layer, role, false});
    return it == weights.end() ? Value() : it->second;
  }

  /// The bias of `role`'s projection or norm, or null when it has none.
  Value bias(int64_t layer, WeightRole role) {
    auto it = weights.find({layer, role, true});
    return it == weights.end() ? Value() : it->second;
  }

  /// The last `rows` tokens of `x` (batch, tokens, ...), every other
  /// dimension static and whole; `first` is the first of them when given.
  Value sliceLastRows(Value x, Value rows, Value first = Value()) {
    auto type = cast<RankedTensorType>(x.getType());
    if (!first)
      first = arith::SubIOp::create(
          builder, loc, tensor::DimOp::create(builder, loc, x, 1), rows);
    SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
    offsets[1] = first;
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : type.getShape())
      sizes.push_back(builder.getIndexAttr(size));
    sizes[1] = rows;
    SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(builder, loc, x, offsets, sizes,
                                          strides);
  }

  /// The block's norm of `x` with the weights of `role`: RMSNorm (any
  /// rank, over the last dimension) or LayerNorm with its bias.
  Value norm(Value x, int64_t layer, WeightRole role) {
    Value w = weight(layer, role);
    FloatAttr eps = builder.getF64FloatAttr(config.rmsNormEps);
    if (config.block.norm == NormKind::LayerNorm)
      return llm::LayerNormOp::create(builder, loc, x.getType(), x, w,
                                      bias(layer, role), eps);
    return llm::RMSNormOp::create(
        builder, loc, x.getType(), x, w, eps,
        builder.getF64FloatAttr(config.block.normWeightOffset));
  }

  /// `value` as an f64 attribute, or null.
  FloatAttr optionalF64(std::optional<double> value) {
    return value ? builder.getF64FloatAttr(*value) : FloatAttr();
  }

  /// sqrt(hidden_size) as transformers' Gemma builds it: a tensor of the
  /// model's dtype (bf16 turns sqrt(3072) = 55.43 into 55.5).
  FloatAttr getEmbeddingScale() {
    llvm::APFloat scale(std::sqrt(double(config.hiddenSize)));
    bool lost;
    if (config.dtype == DType::BF16)
      scale.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven,
                    &lost);
    else if (config.dtype == DType::F16)
      scale.convert(llvm::APFloat::IEEEhalf(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
    else
      scale.convert(llvm::APFloat::IEEEsingle(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
    scale.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                  &lost);
    return builder.getF64FloatAttr(scale.convertToDouble());
  }

  /// llm.linear of `role`'s weight, with its bias when the model has one.
  Value linear(Value x, int64_t layer, WeightRole role) {
    Value w = weight(layer, role);
    int64_t outDim = cast<RankedTensorType>(w.getType()).getDimSize(0);
    return llm::LinearOp::create(builder, loc, withLastDim(x, outDim), x, w,
                                 bias(layer, role), /*residual=*/Value());
  }

  /// (B, T, heads·width) → (B, T, heads, width); width is head_dim unless
  /// given.
  Value splitHeads(Value x, int64_t heads, int64_t width = 0) {
    if (width == 0)
      width = config.headDim;
    auto type = cast<RankedTensorType>(x.getType());
    auto resultType = tensor({type.getDimSize(0), type.getDimSize(1), heads,
                              width},
                             type.getElementType());
    SmallVector<OpFoldResult> outputShape = {
        builder.getIndexAttr(type.getDimSize(0)), seqLenExtent,
        builder.getIndexAttr(heads), builder.getIndexAttr(width)};
    return tensor::ExpandShapeOp::create(
        builder, loc, resultType, x,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}}, outputShape);
  }

  /// (B, T, heads, Dh) → (B, T, heads·Dh).
  Value mergeHeads(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    auto resultType =
        tensor({type.getDimSize(0), type.getDimSize(1),
                type.getDimSize(2) * type.getDimSize(3)},
               type.getElementType());
    return tensor::CollapseShapeOp::create(
        builder, loc, resultType, x,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  }

  /// RoPE as the layer uses it: windowed layers of a model with a local
  /// base (gemma3) rotate by it, unscaled.
  Value rope(Value x, std::optional<int64_t> window) {
    bool local = window && config.slidingRopeTheta;
    return llm::RopeOp::create(
        builder, loc, x.getType(), x, positions,
        llm::RopeStyleAttr::get(&context, toIR(config.ropeStyle)),
        builder.getF64FloatAttr(local ? *config.slidingRopeTheta
                                      : config.ropeTheta),
        builder.getI64IntegerAttr(config.rotaryDim),
        local ? llm::RopeScalingAttrInterface() : ropeScaling);
  }

  /// Names the location of the ops emitted next, so that diagnostics from
  /// later phases say which part of the model they come from.
  void setLocation(const Twine &name) {
    loc = NameLoc::get(builder.getStringAttr(name));
  }

  /// One decoder layer as the block description places its norms and
  /// joins its sublayers to the residual stream.
  Value emitBlock(int64_t layer, Value hidden, std::optional<int64_t> window) {
    const DecoderBlock &block = config.block;
    const bool preNorms = block.normPlacement != NormPlacement::Post;
    const bool postNorms = block.normPlacement != NormPlacement::Pre;
    auto sublayerInput = [&](Value x, WeightRole normRole) {
      return preNorms ? norm(x, layer, normRole) : x;
    };
    auto sublayerOutput = [&](Value y, WeightRole normRole) {
      return postNorms ? norm(y, layer, normRole) : y;
    };

    setLocation("self_attn");
    Value attentionInput = sublayerInput(hidden, WeightRole::AttnNorm);
    Value attended = sublayerOutput(
        emitAttention(layer, attentionInput, window), WeightRole::AttnPostNorm);
    if (outputRows) {
      // The attention answered the output rows' queries only; the rest of
      // the block is row-wise.
      hidden = sliceLastRows(hidden, outputRows, firstOutputRow);
      if (block.residual == ResidualTopology::Parallel &&
          block.parallelSharesNorm)
        attentionInput =
            sliceLastRows(attentionInput, outputRows, firstOutputRow);
    }
    if (block.residual == ResidualTopology::Parallel) {
      setLocation("mlp");
      Value fed = emitFeedForward(
          layer, block.parallelSharesNorm
                     ? attentionInput
                     : sublayerInput(hidden, WeightRole::FFNNorm));
      Value both = llm::AddOp::create(builder, loc, attended, fed);
      return llm::AddOp::create(builder, loc, hidden, both);
    }
    hidden = llm::AddOp::create(builder, loc, hidden, attended);
    setLocation("mlp");
    Value fed = sublayerOutput(
        emitFeedForward(layer, sublayerInput(hidden, WeightRole::FFNNorm)),
        WeightRole::FFNPostNorm);
    return llm::AddOp::create(builder, loc, hidden, fed);
  }

  /// Self-attention of the (normalized) input `x`, through the KV cache,
  /// projected back to the hidden size.
  Value emitAttention(int64_t layer, Value x, std::optional<int64_t> window) {
    if (config.block.attention == AttentionKind::Latent)
      return emitLatentAttention(layer, x, window);
    const QKNormKind qkNorm = config.block.qkNorm;
    Value qProj = linear(x, layer, WeightRole::QProj);
    Value kProj = linear(x, layer, WeightRole::KProj);
    if (qkNorm == QKNormKind::Projection) {
      qProj = norm(qProj, layer, WeightRole::QNorm);
      kProj = norm(kProj, layer, WeightRole::KNorm);
    }
    Value q = splitHeads(qProj, config.numHeads);
    Value k = splitHeads(kProj, config.numKVHeads);
    Value v = splitHeads(linear(x, layer, WeightRole::VProj),
                         config.numKVHeads);
    if (qkNorm == QKNormKind::PerHead) {
      q = norm(q, layer, WeightRole::QNorm);
      k = norm(k, layer, WeightRole::KNorm);
    }
    Value attended =
        attendThroughCache(rope(q, window), rope(k, window), v, window);
    return linear(mergeHeads(attended), layer, WeightRole::OProj);
  }

  /// Appends the (rotated) keys `k` and the values `v` to the layer's
  /// cache (which rounds them to its element type) and attends the queries `q`
  /// over the cached ones (causal, the layer's window, the block's scale
  /// and softcap). A cache whose values are its keys takes no `v`: the
  /// attention reads its values from the keys.
  Value attendThroughCache(Value q, Value k, Value v,
                           std::optional<int64_t> window) {
    assert(bool(v) != cacheType.valuesAreKeys() &&
           "values exactly when the cache stores them");
    cache = llm::KVAppendOp::create(builder, loc, cacheType, cache, k, v,
                                    positions, layerIndex, pageTable,
                                    IntegerAttr());
    auto view =
        llm::KVViewOp::create(builder, loc, cache, layerIndex, pageTable);
    IntegerAttr windowAttr;
    if (window)
      windowAttr = builder.getI64IntegerAttr(*window);
    // A prefill layer's queries: its output rows' only (sliced after the
    // append, which llm-fuse-rope-append wants before every use of the
    // rotated queries). What follows has their row count.
    Value queryPositions = positions;
    if (outputRows) {
      q = sliceLastRows(q, outputRows, firstOutputRow);
      queryPositions = sliceLastRows(positions, outputRows, firstOutputRow);
      seqLenExtent = outputRows;
    }
    return llm::AttentionOp::create(
        builder, loc, q.getType(), q, view.getKeys(), view.getValues(),
        queryPositions, config.numHeads, cacheType.getKvHeads(),
        /*causal=*/true, windowAttr, optionalF64(config.block.attentionScale),
        optionalF64(config.block.attentionSoftcap));
  }

  /// Multi-head latent attention with the up-projections absorbed. Per
  /// token the cache holds one head: the normalized latent c (kv_lora_rank)
  /// and the rotated shared key k_pe, [c; k_pe]. Query head h becomes
  /// [W_UK[h]ᵀ q_nope[h]; rope(q_pe[h])], so that its dot product with a
  /// cached [c; k_pe] is transformers' q[h] · k[h] (k_nope[h] = W_UK[h] c);
  /// attention over that one head (MQA, the scale of the original
  /// qk_head_dim) averages the cached heads, whose first kv_lora_rank
  /// elements are the latent average o, and W_UV[h] o is head h's value.
  Value emitLatentAttention(int64_t layer, Value x,
                            std::optional<int64_t> window) {
    const LatentAttentionShape &mla = config.latent;
    const int64_t heads = config.numHeads, rank = mla.kvLoraRank;
    Value queryInput = x;
    if (mla.qLoraRank)
      queryInput = latentNorm(linear(x, layer, WeightRole::QAProj), layer,
                              WeightRole::QANorm);
    Value qNope = splitHeads(linear(queryInput, layer, WeightRole::QProj),
                             heads, mla.qkNopeHeadDim);
    Value qPe = splitHeads(linear(queryInput, layer, WeightRole::QRopeProj),
                           heads, mla.qkRopeHeadDim);
    // kv_b_proj's key rows are (qk_nope_head_dim, kv_lora_rank) per head;
    // llama.cpp's k_b_proj stores them transposed.
    const bool keyRowsTransposed = config.block.latentUpProjection ==
                                   LatentUpProjectionLayout::Split;
    Value qLatent = llm::HeadLinearOp::create(
        builder, loc, withLastDim(qNope, rank), qNope,
        weight(layer, WeightRole::KUpProj),
        /*transpose_weight=*/!keyRowsTransposed);
    Value query = concatLast({qLatent, rope(qPe, window)});

    Value latent = splitHeads(
        latentNorm(linear(x, layer, WeightRole::KVAProj), layer,
                   WeightRole::KVANorm),
        1, rank);
    Value kPe = splitHeads(linear(x, layer, WeightRole::KRopeProj), 1,
                           mla.qkRopeHeadDim);
    Value key = concatLast({latent, rope(kPe, window)});
    // The values are the keys (the cache stores them once): their first
    // kv_lora_rank elements are the latent.
    Value attended = attendThroughCache(query, key, Value(), window);
    Value latentOut = sliceLast(attended, rank);
    Value values = llm::HeadLinearOp::create(
        builder, loc, withLastDim(latentOut, mla.vHeadDim), latentOut,
        weight(layer, WeightRole::VUpProj), /*transpose_weight=*/false);
    return linear(mergeHeads(values), layer, WeightRole::OProj);
  }

  /// RMSNorm of a latent (q_a_layernorm, kv_a_layernorm).
  Value latentNorm(Value x, int64_t layer, WeightRole role) {
    return llm::RMSNormOp::create(builder, loc, x.getType(), x,
                                  weight(layer, role),
                                  builder.getF64FloatAttr(kLatentNormEps),
                                  builder.getF64FloatAttr(0.0));
  }

  /// The tensors joined along their last dimension.
  Value concatLast(ValueRange parts) {
    int64_t rank = cast<RankedTensorType>(parts.front().getType()).getRank();
    return tensor::ConcatOp::create(builder, loc, rank - 1, parts);
  }

  /// The first `width` elements of `x`'s last dimension (B, T, H, ·).
  Value sliceLast(Value x, int64_t width) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<OpFoldResult> offsets(4, builder.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = {
        builder.getIndexAttr(type.getDimSize(0)), seqLenExtent,
        builder.getIndexAttr(type.getDimSize(2)), builder.getIndexAttr(width)};
    SmallVector<OpFoldResult> strides(4, builder.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(builder, loc, x, offsets, sizes,
                                          strides);
  }

  /// The feed-forward network of the (normalized) input `x`: gated
  /// (down(act(gate(x)) · up(x))) or plain (down(act(up(x)))).
  Value emitFeedForward(int64_t layer, Value x) {
    auto activation = llm::ActivationAttr::get(&context, toIR(config.hiddenAct));
    Value hidden;
    if (config.block.feedForward == FeedForwardKind::Gated) {
      Value gate = linear(x, layer, WeightRole::GateProj);
      Value up = linear(x, layer, WeightRole::UpProj);
      hidden = llm::GLUOp::create(builder, loc, activation, gate, up);
    } else {
      hidden = llm::ActivationOp::create(builder, loc, activation,
                                         linear(x, layer, WeightRole::UpProj));
    }
    return linear(hidden, layer, WeightRole::DownProj);
  }

  MLIRContext &context;
  const ModelConfig &config;
  const ModelBuildOptions &options;
  OpBuilder builder;
  Location loc;
  std::vector<WeightSpec> weightTable;
  Type f32, kvType;
  /// The type of weights without a format in the options.
  Type defaultWeightType;
  llm::KVCacheType cacheType;
  /// The model's context-extension method; null for plain RoPE.
  llm::RopeScalingAttrInterface ropeScaling;

  // State of the function being emitted.
  /// (layer, role, bias) -> the weight's argument; layer -1 outside the
  /// layers, 0 inside a layer function.
  using WeightKey = std::tuple<int64_t, WeightRole, bool>;
  std::map<WeightKey, Value> weights;
  Value positions, cache;
  /// The paged cache's page table; null for a contiguous cache.
  Value pageTable;
  OpFoldResult seqLenExtent;
  /// The layer function's `layer` argument while its body is emitted.
  Value layerIndex;
  /// A prefill layer's output_rows argument while its body is emitted: the
  /// rows its attention's queries and everything after them compute, from
  /// `firstOutputRow` (T - output_rows) on.
  Value outputRows, firstOutputRow;
};

} // namespace

OwningOpRef<ModuleOp> llmc::buildModelModule(MLIRContext &context,
                                             const ModelConfig &config,
                                             const ModelBuildOptions &options) {
  OpBuilder builder(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  (*module)->setAttr("llm.model", builder.getStringAttr(config.name));
  DecoderEmitter emitter(context, config, options, *module);
  emitter.emitFunction("prefill", ShapedType::kDynamic);
  emitter.emitFunction("decode", 1);
  return module;
}

int64_t llmc::getKVCacheCapacity(const ModelConfig &config,
                                 const ModelBuildOptions &options) {
  return options.contextLength > 0 ? options.contextLength
                                   : config.maxPositionEmbeddings;
}
