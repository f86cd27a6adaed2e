// The artifact manifest (<name>.json written by `llmc compile`): parsed and checked into a struct.
#ifndef LLMC_RUNTIME_ARTIFACT_MANIFEST_H
#define LLMC_RUNTIME_ARTIFACT_MANIFEST_H

#include "llmc/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llmc::rt {

/// One argument of the entry points' weight table, in argument order.
struct ManifestWeight {
  std::string name; // canonical (Hugging Face) name
  std::vector<int64_t> shape;
  std::string dtype; // "f32", "bf16", "f16" or a block format ("q4_k")
  llmc_dtype format = LLMC_DTYPE_F32; // `dtype` parsed
  int64_t n_elements = 1;
  /// Rows stored together: 1 (the file's rows), or 8 for a block matrix the
  /// CPU kernels read in interleaved groups (quant/interleave.h), repacked
  /// at load.
  int64_t interleave = 1;
  /// Elements of a row side by side in an interleaved group (manifest
  /// "interleave_columns"): 1, or 2 for a bf16 matrix in VDPBF16PS's pairs.
  int64_t interleave_columns = 1;
  /// A block matrix the CUDA kernels read as planes of each block segment
  /// (quant/planar.h; manifest "layout": "planar"), repacked at load.
  bool planar = false;
  /// A part of a fused checkpoint tensor (phi3's qkv_proj, gpt_neox's
  /// query_key_value): the tensor, and its rows this weight is, for g in
  /// [0, row_groups): [row_start + g·row_stride, ... + row_count). Empty
  /// `source`: the tensor named `name`, whole.
  std::string source;
  int64_t row_start = 0, row_count = 0, row_stride = 0, row_groups = 1;

  /// The checkpoint tensor to read.
  const std::string &source_name() const {
    return source.empty() ? name : source;
  }
};

/// Where the entry points run: the host CPU, or an NVIDIA GPU through the
/// CUDA backend (every buffer argument is then a device pointer).
enum class TargetKind { Cpu, Cuda };

/// One device image embedded in a CUDA artifact's library (manifest
/// "cuda.images[i]"): a cubin for exactly one architecture, or PTX text that
/// the driver compiles for its GPU.
struct ManifestCudaImage {
  std::string arch;   // "sm_90", "sm_90a"
  int32_t sm = 0;     // 10 * major + minor of the compute capability: 90
  bool arch_specific = false; // "sm_90a"/"sm_100f": runs on that major.minor only
  std::string format; // "cubin" or "ptx"
  std::string symbol; // the image's bytes in lib<name>.so
  uint64_t bytes = 0; // image size; PTX includes its trailing NUL
};

/// Everything the runtime needs from a manifest. Parsing checks types and
/// internal consistency (KV cache shape against the config, positive sizes)
/// so that the session can trust every number here.
struct Manifest {
  std::string path; // the manifest file, for messages
  int64_t abi_version = 0;
  std::string name;
  std::string target_kind; // "cpu" or "cuda", as written
  TargetKind target = TargetKind::Cpu;
  std::string target_triple;
  std::vector<std::string> target_archs; // CUDA: "sm_80", ...
  std::string target_arch; // CPU: target.cpu ("znver3"); CUDA: "sm_80,sm_90"

  // CUDA artifacts only ("cuda" object).
  int64_t cuda_host_api_version = 0;
  std::string cuda_host_api_symbol; // a `const llmc_cuda_host_api *` global
  std::vector<ManifestCudaImage> cuda_images;

  std::string library;
  std::string prefill_symbol;
  std::string decode_symbol;

  std::string architecture;
  int32_t hidden_size = 0, num_layers = 0, num_heads = 0, num_kv_heads = 0,
          head_dim = 0, vocab_size = 0, max_position_embeddings = 0;
  llmc_rope_layout rope_layout = LLMC_ROPE_HALF;
  /// The q/k row order of the family's safetensors checkpoints (HF
  /// modeling code rotates halves, GPT-J interleaved pairs).
  llmc_rope_layout safetensors_rope_layout = LLMC_ROPE_HALF;
  bool tie_word_embeddings = false;
  int32_t bos_token_id = -1;
  std::vector<int32_t> eos_token_ids;

  int32_t batch = 0;
  int32_t context_length = 0;
  std::vector<int64_t> kv_shape;
  /// Paged layout: positions per page; 0 for the contiguous layout.
  int32_t kv_page_size = 0;
  /// The whole cache buffer: the page table (paged), then keys and values.
  uint64_t kv_cache_bytes = 0;
  std::vector<ManifestWeight> weights;
};

/// Parses manifest text. Throws Error naming `path` and the offending field:
/// LLMC_ERR_FORMAT for malformed JSON, missing or ill-typed fields and
/// inconsistent sizes; LLMC_ERR_UNSUPPORTED for an abi_version other than
/// LLMC_ABI_VERSION, a target kind other than "cpu" and "cuda", a CUDA host
/// API version outside LLMC_CUDA_HOST_API_MIN_VERSION..LLMC_CUDA_HOST_API_VERSION, or a dtype/layout this
/// runtime cannot bind. Version and target are checked first, so a manifest
/// from a newer compiler fails on its version, not on a renamed field.
Manifest parse_manifest(const std::string &text, const std::string &path);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_ARTIFACT_MANIFEST_H
