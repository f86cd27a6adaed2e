// Writes a compiled model as a linkable artifact: object, libraries, header, manifest.
#include "codegen/Artifact.h"

#include "codegen/CUDATarget.h"
#include "codegen/cpu/BF16Dot.h"
#include "dialect/LLMTypes.h"
#include "frontend/Architectures.h"
#include "passes/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llmc;

namespace {

/// Paths of every file of one artifact.
struct ArtifactPaths {
  std::string prefix, object, staticLibrary, sharedLibrary, header, manifest;

  ArtifactPaths(llvm::StringRef dir, llvm::StringRef modelName)
      : prefix(getModelSymbolPrefix(modelName)) {
    auto join = [&](const llvm::Twine &file) {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, file);
      return std::string(path);
    };
    object = join(prefix + ".o");
    staticLibrary = join("lib" + prefix + ".a");
    sharedLibrary = join("lib" + prefix + ".so");
    header = join(prefix + ".h");
    manifest = join(prefix + ".json");
  }
};

/// (planes, layers, batch, capacity, kv_heads, head_dim), as the entry
/// points expect the cache buffer: 2 planes (keys, values), or 1 when the
/// values are the keys.
std::vector<int64_t> getKVCacheShape(mlir::llm::KVCacheType cache) {
  return {cache.getPlaneCount(),
          cache.getLayers(),
          cache.getBatch(),
          cache.getCapacity(),
          cache.getKvHeads(),
          cache.getHeadDim()};
}

llvm::Error writeTextFile(llvm::StringRef path,
                          llvm::function_ref<void(llvm::raw_ostream &)> body) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return llvm::createStringError("cannot write '" + path +
                                   "': " + ec.message());
  body(out);
  return llvm::Error::success();
}

llvm::json::Array toJSON(const std::vector<int64_t> &shape) {
  llvm::json::Array array;
  for (int64_t extent : shape)
    array.push_back(extent);
  return array;
}

/// Bytes of a paged cache's page-table header: batch · capacity /
/// page_size entries, padded.
int64_t getPageTableBytes(mlir::llm::KVCacheType cache) {
  return mlir::llm::getPageTableBytes(cache.getPageCount());
}

/// The manifest's "kv_cache": layout, element type, logical shape, where
/// the values are ("separate", or "keys": stored once as the keys, one
/// plane), for a quantized cache the bytes of the scale after each head
/// row, and for the paged layout the page size and the page table's bytes
/// at the head of the buffer.
llvm::json::Object getKVCacheJSON(mlir::llm::KVCacheType cache) {
  llvm::json::Object json{
      {"layout", cache.isPaged() ? "paged" : "contiguous"},
      {"dtype", getWeightFormatName(cache.getElementType())},
      {"shape", toJSON(getKVCacheShape(cache))},
      {"values", mlir::llm::stringifyKVCacheValues(cache.getValues())}};
  if (cache.isQuantized())
    json["scale_bytes"] = cache.getScaleBytes();
  if (cache.isPaged()) {
    json["page_size"] = cache.getPageSize();
    json["page_table_bytes"] = getPageTableBytes(cache);
  }
  return json;
}

/// `target`: the manifest's "target" object; `libraries`: what a program
/// linking the static library must add to its link line; `extra`:
/// target-specific top-level fields (CUDA: the "cuda" object).
llvm::Error writeManifest(const ArtifactPaths &paths, const ModelConfig &config,
                          const ModelInterface &interface,
                          llvm::json::Object target,
                          llvm::ArrayRef<std::string> libraries,
                          llvm::json::Object extra = {}) {
  llvm::json::Array linkLibraries;
  for (const std::string &library : libraries)
    linkLibraries.push_back(library);
  llvm::json::Array weights;
  for (const InterfaceWeight &spec : interface.weights) {
    llvm::json::Object weight{{"name", spec.name},
                              {"shape", toJSON(spec.shape)},
                              {"dtype", spec.format}};
    // Groups of rows stored interleaved, repacked from the file's rows at
    // load (the dtype's blocks or elements, in another order).
    if (spec.interleave > 1)
      weight["interleave"] = spec.interleave;
    // ... a row's runs of elements side by side (bf16 pairs).
    if (spec.interleaveColumns > 1)
      weight["interleave_columns"] = spec.interleaveColumns;
    // Planes of each segment of the blocks (the same bytes, in another
    // order), repacked from the file's rows at load.
    if (spec.planar)
      weight["layout"] = "planar";
    // What the compiled model's weights file holds (used as it is, or
    // dequantized or converted to `dtype` at load), when it was compiled
    // from one.
    auto format = config.weightFormats.find(spec.getSourceName());
    if (format != config.weightFormats.end())
      weight["source_format"] = format->second;
    // Rows of a fused checkpoint tensor, copied out at load.
    if (!spec.source.empty())
      weight["source"] = llvm::json::Object{{"tensor", spec.source},
                                            {"rows", toJSON(spec.rows)}};
    weights.push_back(std::move(weight));
  }
  llvm::json::Object configJSON{
      {"architecture", config.architecture},
      {"hidden_size", config.hiddenSize},
      {"intermediate_size", config.intermediateSize},
      {"num_layers", config.numLayers},
      {"num_heads", config.numHeads},
      {"num_kv_heads", config.numKVHeads},
      {"head_dim", config.headDim},
      {"vocab_size", config.vocabSize},
      {"max_position_embeddings", config.maxPositionEmbeddings},
      {"rms_norm_eps", config.rmsNormEps},
      {"rope_theta", config.ropeTheta},
      {"rotary_dim", config.rotaryDim},
      {"rope_style", toString(config.ropeStyle)},
      // How the family's safetensors checkpoints order q/k rows, which the
      // runtime reorders to rope_style when they differ.
      {"safetensors_rope_style",
       toString(getCheckpointRopeStyle(config.architecture))},
      {"rope_scaling", toString(config.ropeScaling.kind)},
      {"tie_word_embeddings", config.tieWordEmbeddings},
      {"bos_token_id", config.bosTokenId},
      {"eos_token_id", config.eosTokenId},
  };
  if (config.slidingWindow)
    configJSON["sliding_window"] = *config.slidingWindow;

  llvm::json::Object manifest{
      {"abi_version", kArtifactABIVersion},
      {"name", config.name},
      {"target", std::move(target)},
      {"library", llvm::sys::path::filename(paths.sharedLibrary)},
      {"static_library", llvm::sys::path::filename(paths.staticLibrary)},
      {"link_libraries", std::move(linkLibraries)},
      {"library_dirs", llvm::json::Array{LLMC_OPENMP_LIBRARY_DIR}},
      {"header", llvm::sys::path::filename(paths.header)},
      {"entry_points",
       llvm::json::Object{{"prefill", paths.prefix + "_prefill"},
                          {"decode", paths.prefix + "_decode"}}},
      {"config", std::move(configJSON)},
      {"batch", interface.cache.getBatch()},
      {"context_length", interface.cache.getCapacity()},
      {"kv_cache", getKVCacheJSON(interface.cache)},
      {"logits_dtype", "f32"},
      {"weights", std::move(weights)},
  };
  for (auto &field : extra)
    manifest[field.first] = std::move(field.second);
  return writeTextFile(paths.manifest, [&](llvm::raw_ostream &os) {
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest)))
       << "\n";
  });
}

/// `targetDeclarations`: C declarations only one target has, placed after
/// the entry points.
llvm::Error writeHeader(const ArtifactPaths &paths, const ModelConfig &config,
                        const ModelInterface &interface,
                        llvm::StringRef targetDeclarations = "") {
  std::string macro = llvm::StringRef(paths.prefix).upper();
  mlir::llm::KVCacheType cache = interface.cache;
  std::vector<int64_t> cacheShape = getKVCacheShape(cache);
  int64_t cacheElements = 1;
  for (int64_t extent : cacheShape)
    cacheElements *= extent;
  size_t numWeights = interface.weights.size();
  return writeTextFile(paths.header, [&](llvm::raw_ostream &os) {
    os << "/* " << paths.prefix << ".h: entry points of the llmc artifact for "
       << "model '" << config.name << "' (generated by llmc). */\n"
       << "#ifndef LLMC_ARTIFACT_" << macro << "_H\n"
       << "#define LLMC_ARTIFACT_" << macro << "_H\n\n"
       << "#include <stdint.h>\n\n"
       << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
       << "#define " << macro << "_ABI_VERSION " << kArtifactABIVersion << "\n"
       << "#define " << macro << "_VOCAB_SIZE " << config.vocabSize << "\n"
       << "#define " << macro << "_BATCH " << cache.getBatch() << "\n"
       << "#define " << macro << "_CONTEXT_LENGTH " << cache.getCapacity()
       << "\n"
       << "/* Weight pointers the entry points take, in the order of the "
          "manifest's \"weights\". */\n"
       << "#define " << macro << "_NUM_WEIGHTS " << numWeights << "\n"
       << "/* KV cache: " << getWeightFormatName(cache.getElementType())
       << " elements shaped ("
       << (cache.valuesAreKeys() ? "1: the keys, which are also the values"
                                 : "2: keys, values")
       << ", layers, batch, capacity, kv_heads, head_dim) = ("
       << llvm::join(llvm::map_range(cacheShape,
                                     [](int64_t e) { return std::to_string(e); }),
                     ", ")
       << "), zeroed before the first call. */\n"
       << "#define " << macro << "_KV_CACHE_ELEMENTS " << cacheElements
       << "LL\n";
    if (cache.isQuantized())
      os << "/* Quantized KV cache: each head row of head_dim one-byte codes "
            "is followed by\n"
            "   its f32 scale (value = code * scale), KV_SCALE_BYTES "
            "bytes. */\n"
         << "#define " << macro << "_KV_SCALE_BYTES " << cache.getScaleBytes()
         << "\n";
    if (cache.isPaged())
      os << "/* Paged KV cache: the kv_cache buffer starts with the page "
            "table, batch *\n"
            "   (CONTEXT_LENGTH / KV_PAGE_SIZE) int32 page numbers in [0, "
            "that count),\n"
            "   padded to KV_PAGE_TABLE_BYTES; KV_CACHE_ELEMENTS elements "
            "follow it.\n"
            "   Position p of sequence b lives in slot p % KV_PAGE_SIZE of "
            "page\n"
            "   table[b * (CONTEXT_LENGTH / KV_PAGE_SIZE) + p / "
            "KV_PAGE_SIZE]. */\n"
         << "#define " << macro << "_KV_PAGE_SIZE " << cache.getPageSize()
         << "\n"
         << "#define " << macro << "_KV_PAGE_TABLE_BYTES "
         << getPageTableBytes(cache) << "\n";
    os << "\n"
       << "/* Runs the decoder on seq_len new tokens at the given absolute "
          "positions\n"
       << "   (batch * seq_len int32 each), appends their keys and values to "
          "kv_cache in\n"
       << "   place and writes the logits of the last logit_rows tokens of "
          "each sequence,\n"
       << "   batch * logit_rows * VOCAB_SIZE floats (1 <= logit_rows <= "
          "seq_len, unchecked).\n"
       << "   Returns 0. Calls sharing one kv_cache must not run "
          "concurrently. */\n"
       << "int32_t " << paths.prefix
       << "_prefill(const int32_t *tokens, const int32_t *positions,\n"
       << "    int64_t seq_len, int64_t logit_rows, void *kv_cache,\n"
       << "    const void *const *weights, float *logits);\n\n"
       << "/* The same for one token per sequence (seq_len = logit_rows = "
          "1). */\n"
       << "int32_t " << paths.prefix
       << "_decode(const int32_t *tokens, const int32_t *positions,\n"
       << "    void *kv_cache, const void *const *weights, float *logits);\n\n"
       << targetDeclarations
       << "#ifdef __cplusplus\n}\n#endif\n\n"
       << "#endif /* LLMC_ARTIFACT_" << macro << "_H */\n";
  });
}

llvm::Error writeStaticLibrary(const ArtifactPaths &paths) {
  llvm::Expected<llvm::NewArchiveMember> member =
      llvm::NewArchiveMember::getFile(paths.object, /*Deterministic=*/true);
  if (!member)
    return member.takeError();
  return llvm::writeArchive(paths.staticLibrary, {std::move(*member)},
                            llvm::SymtabWritingMode::NormalSymtab,
                            llvm::object::Archive::K_GNU,
                            /*Deterministic=*/true, /*Thin=*/false);
}

/// True when the kernels run on OpenMP threads (omp dialect regions), so
/// the libraries must be linked with libomp.
bool usesOpenMP(mlir::ModuleOp module) {
  bool found = false;
  module.walk([&](mlir::Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "omp") {
      found = true;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return found;
}

/// The libraries the object needs, in link order: libm (and glibc's vector
/// math library when the vectorizer called it), libomp for OpenMP regions.
std::vector<std::string> getLinkLibraries(const CPUObjectFile &object,
                                          bool openMP) {
  std::vector<std::string> libraries;
  if (object.callsVectorMath)
    libraries.push_back("mvec");
  libraries.push_back("m");
  if (openMP)
    libraries.push_back("omp");
  return libraries;
}

/// Links the object into a shared library with the system C compiler driver
/// (it knows the platform's libc and crt files) and `libraries`. libomp
/// comes from the LLVM installation llmc was built against; the rpath lets
/// dlopen find it.
llvm::Error writeSharedLibrary(const ArtifactPaths &paths,
                               llvm::ArrayRef<std::string> libraries) {
  llvm::ErrorOr<std::string> driver = llvm::sys::findProgramByName("cc");
  for (const char *fallback : {"gcc", "clang"})
    if (!driver)
      driver = llvm::sys::findProgramByName(fallback);
  if (!driver)
    return llvm::createStringError(
        "cannot link lib" + paths.prefix +
        ".so: no C compiler driver (cc, gcc or clang) on PATH");
  std::vector<std::string> flags;
  for (const std::string &library : libraries) {
    if (library == "omp")
      flags.insert(flags.end(), {"-L" LLMC_OPENMP_LIBRARY_DIR,
                                 "-Wl,-rpath," LLMC_OPENMP_LIBRARY_DIR});
    flags.push_back("-l" + library);
  }
  llvm::SmallVector<llvm::StringRef> args = {
      *driver, "-shared", "-o", paths.sharedLibrary, paths.object};
  args.append(flags.begin(), flags.end());
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*driver, args, std::nullopt, {}, 0, 0,
                                         &message);
  if (status != 0)
    return llvm::createStringError("linking '" + paths.sharedLibrary +
                                   "' failed (" + *driver + " exited with " +
                                   std::to_string(status) + ") " + message);
  return llvm::Error::success();
}

/// The CPU the host side of a CUDA artifact is compiled for.
#if defined(__x86_64__)
constexpr const char *kPortableHostCPU = "x86-64";
#else
constexpr const char *kPortableHostCPU = "generic";
#endif

} // namespace

llvm::Error llmc::writeCPUArtifact(mlir::ModuleOp module,
                                   const ModelConfig &config,
                                   const ModelInterface &interface,
                                   const CPUTargetOptions &targetOptions,
                                   llvm::StringRef outputDir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return llvm::createStringError("cannot create output directory '" +
                                   outputDir + "': " + ec.message());
  ArtifactPaths paths(outputDir, config.name);
  bool openMP = usesOpenMP(module);
  // How the decode GEMV and the prefill GEMM multiply block weights: with x
  // rounded to int8 (the instructions named), or in f32.
  Int8DotKind int8Dot = findInt8Dot(module);
  std::string blockDot = int8Dot == Int8DotKind::None
                             ? "f32"
                             : "int8-" + getInt8DotKindName(int8Dot).str();
  // How the prefill GEMM multiplies bf16 weights: with x rounded to bf16
  // (VDPBF16PS), or in f32.
  std::string bf16Dot = findBF16Dot(module) ? "bf16" : "f32";
  llvm::Expected<CPUObjectFile> object =
      emitCPUObjectFile(module, targetOptions, paths.object);
  if (!object)
    return object.takeError();
  if (llvm::Error err = writeStaticLibrary(paths))
    return err;
  std::vector<std::string> libraries = getLinkLibraries(*object, openMP);
  if (llvm::Error err = writeSharedLibrary(paths, libraries))
    return err;
  if (llvm::Error err = writeHeader(paths, config, interface))
    return err;
  CPUTargetDescription target = describeCPUTarget(targetOptions);
  return writeManifest(paths, config, interface,
                       llvm::json::Object{{"kind", "cpu"},
                                          {"triple", target.triple},
                                          {"cpu", target.cpu},
                                          {"block_dot", blockDot},
                                          {"bf16_dot", bf16Dot}},
                       libraries);
}

llvm::Error llmc::writeCUDAArtifact(mlir::ModuleOp module,
                                    const ModelConfig &config,
                                    const ModelInterface &interface,
                                    llvm::ArrayRef<std::string> archs,
                                    llvm::StringRef outputDir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return llvm::createStringError("cannot create output directory '" +
                                   outputDir + "': " + ec.message());
  ArtifactPaths paths(outputDir, config.name);
  llvm::Expected<std::vector<CUDAImage>> images =
      serializeCUDAKernels(module, /*withCubin=*/true);
  if (!images)
    return images.takeError();
  embedCUDAImages(module, paths.prefix, *images);
  // The host code only enqueues work: built for the baseline x86-64 (or
  // the host's default CPU elsewhere) so that the artifact runs on any
  // machine with the GPU.
  CPUTargetOptions hostOptions;
  hostOptions.cpu = kPortableHostCPU;
  llvm::Expected<CPUObjectFile> object =
      emitCPUObjectFile(module, hostOptions, paths.object);
  if (!object)
    return object.takeError();
  if (llvm::Error err = writeStaticLibrary(paths))
    return err;
  std::vector<std::string> libraries =
      getLinkLibraries(*object, /*openMP=*/false);
  if (llvm::Error err = writeSharedLibrary(paths, libraries))
    return err;

  std::string hostAPISymbol = paths.prefix + "_cuda_host_api";
  llvm::json::Array imageList;
  std::string declarations =
      "/* CUDA: every pointer above is a device pointer; the entry points "
      "enqueue\n   kernels through this table (runtime/include/llmc/"
      "cuda_host_api.h), which\n   must be set before the first call. */\n"
      "struct llmc_cuda_host_api;\n"
      "extern const struct llmc_cuda_host_api *" +
      hostAPISymbol + ";\n\n/* The kernels, one image per architecture and "
                      "format. */\n";
  for (const CUDAImage &image : *images) {
    std::string symbol = getCUDAImageSymbol(paths.prefix, image);
    imageList.push_back(llvm::json::Object{
        {"arch", image.arch},
        {"format", image.format},
        {"symbol", symbol},
        {"bytes", static_cast<int64_t>(image.data.size())}});
    declarations += "extern const unsigned char " + symbol + "[" +
                    std::to_string(image.data.size()) + "];\n";
  }
  declarations += "\n";
  if (llvm::Error err =
          writeHeader(paths, config, interface, declarations))
    return err;
  CPUTargetDescription host = describeCPUTarget(hostOptions);
  llvm::json::Array archList;
  for (const std::string &arch : archs)
    archList.push_back(arch);
  return writeManifest(
      paths, config, interface,
      llvm::json::Object{{"kind", "cuda"},
                         {"archs", std::move(archList)},
                         {"triple", host.triple}},
      libraries,
      llvm::json::Object{
          {"cuda", llvm::json::Object{{"host_api_version", kCUDAHostAPIVersion},
                                      {"host_api_symbol", hostAPISymbol},
                                      {"images", std::move(imageList)}}}});
}
