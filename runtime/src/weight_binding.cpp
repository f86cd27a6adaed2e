// bind_weights: look up each manifest weight, check it, convert to f32 and fix its RoPE row order (or use blocks in place, or quantize).
#include "weight_binding.h"

#include "dtype.h"
#include "error.h"
#include "half.h"
#include "quant/interleave.h"
#include "quant/planar.h"
#include "quant/quantize.h"
#include "rope_permute.h"

#include <cstring>
#include <string>

namespace llmc::rt {

namespace {

constexpr const char *kLmHead = "lm_head.weight";
constexpr const char *kEmbedTokens = "model.embed_tokens.weight";

bool ends_with(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// Heads whose rows a tensor's RoPE layout governs: q_proj has num_heads,
/// k_proj num_kv_heads; 0 for every other tensor (v_proj is not rotated).
int64_t rope_heads(const Manifest &m, const std::string &name) {
  if (ends_with(name, ".q_proj.weight") || ends_with(name, ".q_proj.bias"))
    return m.num_heads;
  if (ends_with(name, ".k_proj.weight") || ends_with(name, ".k_proj.bias"))
    return m.num_kv_heads;
  return 0;
}

std::string shape_text(const int64_t *shape, size_t n) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i)
    s += cat(i ? "," : "", shape[i]);
  return s + "]";
}

/// Index of the tensor that supplies manifest weight `w`, applying the
/// tied-embedding rule for lm_head.weight.
size_t find_source(const Manifest &m, const WeightSet &set,
                   const ManifestWeight &w) {
  size_t index;
  if (set.try_find_tensor(w.source_name(), &index))
    return index;
  if (w.name == kLmHead) {
    if (!m.tie_word_embeddings)
      fail(LLMC_ERR_NOT_FOUND, "weights do not match the artifact: tensor '",
           kLmHead, "' is missing and the config does not tie it to '",
           kEmbedTokens, "' (tie_word_embeddings is false)");
    if (set.try_find_tensor(kEmbedTokens, &index))
      return index;
    fail(LLMC_ERR_NOT_FOUND, "weights do not match the artifact: neither '",
         kLmHead, "' nor the tied '", kEmbedTokens, "' is present");
  }
  if (!w.source.empty())
    fail(LLMC_ERR_NOT_FOUND, "weights do not match the artifact: tensor '",
         w.source, "' (holding '", w.name, "') is missing");
  fail(LLMC_ERR_NOT_FOUND, "weights do not match the artifact: tensor '",
       w.name, "' is missing");
}

/// The rows of the fused tensor `t` that make weight `w` (manifest
/// "source"), copied in t's own format into a buffer `owned` keeps: a
/// tensor entry of w's shape. Checks that t has the rows and w's row shape.
TensorEntry select_rows(const ManifestWeight &w, const TensorEntry &t,
                        std::vector<AlignedBuffer> &owned) {
  int64_t last_row =
      w.row_start + (w.row_groups - 1) * w.row_stride + w.row_count;
  bool row_shape = static_cast<size_t>(t.n_dims) == w.shape.size();
  for (size_t d = 1; row_shape && d < w.shape.size(); ++d)
    row_shape = t.shape[d] == w.shape[d];
  if (!row_shape || t.shape[0] < last_row)
    fail(LLMC_ERR_FORMAT, "weights do not match the artifact: tensor '",
         t.name, "' has shape ", shape_text(t.shape, static_cast<size_t>(t.n_dims)),
         "; the artifact reads '", w.name, "' from its rows up to ", last_row,
         " with rows of shape ", shape_text(w.shape.data() + 1, w.shape.size() - 1));
  uint64_t row_bytes = 0;
  dtype_storage_bytes(t.dtype, static_cast<uint64_t>(t.n_elements / t.shape[0]),
                      &row_bytes);
  AlignedBuffer buf(static_cast<size_t>(row_bytes * w.shape[0]), w.name.c_str());
  auto *out = static_cast<uint8_t *>(buf.data());
  for (int64_t g = 0; g < w.row_groups; ++g) {
    uint64_t first = static_cast<uint64_t>(w.row_start + g * w.row_stride);
    std::memcpy(out, t.data + first * row_bytes, row_bytes * w.row_count);
    out += row_bytes * w.row_count;
  }
  TensorEntry part = t;
  part.name = w.name;
  part.shape[0] = w.shape[0];
  part.n_elements = w.n_elements;
  part.n_bytes = row_bytes * w.shape[0];
  part.data = static_cast<const uint8_t *>(buf.data());
  owned.push_back(std::move(buf));
  return part;
}

/// Whether `t` holds the rows of the 2-D weight `w` stacked in more
/// dimensions, as llama.cpp's per-head 3-D attn_k_b / attn_v_b hold
/// DeepSeek's up-projections ([H][R][C] in memory is [H·R][C]).
bool stacks_rows(const TensorEntry &t, const ManifestWeight &w) {
  if (w.shape.size() != 2 || t.n_dims <= 2 ||
      t.shape[t.n_dims - 1] != w.shape[1])
    return false;
  int64_t rows = 1;
  for (int32_t d = 0; d + 1 < t.n_dims; ++d)
    rows *= t.shape[d]; // n_elements was overflow-checked at load
  return rows == w.shape[0];
}

/// `t` (stacks_rows) seen with w's 2-D shape; the data is unchanged.
TensorEntry as_rows(const TensorEntry &t, const ManifestWeight &w) {
  TensorEntry view = t;
  view.n_dims = 2;
  for (int32_t d = 0; d < LLMC_MAX_DIMS; ++d)
    view.shape[d] = d < 2 ? w.shape[d] : 1;
  return view;
}

/// A copy of `data` in the artifact's 16-bit dtype (bf16 or f16), rounded
/// to nearest even.
AlignedBuffer narrow_to(const ManifestWeight &w, const float *data) {
  size_t n = static_cast<size_t>(w.n_elements);
  AlignedBuffer buf(n * sizeof(uint16_t), w.name.c_str());
  auto *out = static_cast<uint16_t *>(buf.data());
  bool bf16 = w.dtype == "bf16";
  for (size_t i = 0; i < n; ++i)
    out[i] = bf16 ? f32_to_bf16(data[i]) : f32_to_f16(data[i]);
  return buf;
}

/// A block-quantized weight stored in exactly the artifact's format: used in
/// place (the compiled kernels decode the file's own blocks), or null when
/// it is a float tensor to quantize at load. A tensor in another block
/// format, or one whose rows would need the other RoPE order, is refused:
/// requantizing would compound two roundings, and block rows cannot be
/// reordered.
const void *bind_blocks(const ManifestWeight &w, const TensorEntry &t,
                        bool reorder) {
  bool stored_as_float = dtype_traits(t.dtype).dequantize == nullptr;
  if (stored_as_float && can_quantize(w.format))
    return nullptr;
  if (t.dtype != w.format)
    fail(LLMC_ERR_FORMAT, "weights do not match the artifact: tensor '", w.name,
         "'", t.name != w.name ? cat(" (bound to '", t.name, "')") : "",
         " is stored as ", dtype_traits(t.dtype).name,
         ", the artifact computes on ", w.dtype,
         " blocks; compile the artifact from this weights file");
  if (reorder)
    fail(LLMC_ERR_FORMAT, "weights do not match the artifact: tensor '", w.name,
         "' is in ", w.dtype, " blocks but its rows are in the other RoPE order, "
         "which block-quantized rows cannot be reordered into; compile the "
         "artifact from this weights file");
  return t.data;
}

/// `data` (f32, w.n_elements) quantized into the artifact's block format.
AlignedBuffer quantize_to(const ManifestWeight &w, const float *data) {
  const DTypeTraits &traits = dtype_traits(w.format);
  uint64_t blocks = static_cast<uint64_t>(w.n_elements) / traits.block_elems;
  AlignedBuffer buf(static_cast<size_t>(blocks * traits.block_bytes), w.name.c_str());
  quantize_blocks(w.format, data, blocks, static_cast<uint8_t *>(buf.data()));
  return buf;
}

/// bind_weight in the file's row layout (before any interleaving). With
/// `resident`, rows that are the set's tensor as stored come from the set's
/// resident copy (WeightSet::tensor_resident): the caller's kernels read
/// them as they are.
const void *bind_rows(const Manifest &m, WeightSet &set, size_t i,
                      std::vector<AlignedBuffer> &owned, bool cache_in_set,
                      bool resident) {
  const ManifestWeight &w = m.weights.at(i);
  size_t index = find_source(m, set, w);
  // A part of a fused tensor binds a copy of its rows (never the set's
  // whole-tensor f32 cache).
  const bool part = !w.source.empty();
  const bool stacked = !part && stacks_rows(set.tensor(index), w);
  TensorEntry rows;
  if (part)
    rows = select_rows(w, set.tensor(index), owned);
  else if (stacked)
    rows = as_rows(set.tensor(index), w);
  const TensorEntry &t = part || stacked ? rows : set.tensor(index);
  bool same_shape = static_cast<size_t>(t.n_dims) == w.shape.size();
  for (size_t d = 0; same_shape && d < w.shape.size(); ++d)
    same_shape = t.shape[d] == w.shape[d];
  if (!same_shape)
    fail(LLMC_ERR_FORMAT, "weights do not match the artifact: tensor '",
         w.name, "'", t.name != w.name ? cat(" (bound to '", t.name, "')") : "",
         " has shape ", shape_text(t.shape, static_cast<size_t>(t.n_dims)),
         ", the artifact expects ", shape_text(w.shape.data(), w.shape.size()));

  int64_t heads = rope_heads(m, w.name);
  // A safetensors file is ordered as its family's modeling code rotates.
  llmc_rope_layout stored = set.format == LLMC_WEIGHTS_SAFETENSORS
                                ? m.safetensors_rope_layout
                                : set.rope_layout;
  bool reorder = heads != 0 && stored != m.rope_layout;
  // The set's own tensor used as stored: the resident copy, or the file's
  // bytes (for a backend that copies each weight away, or rows repacked
  // next).
  resident = resident && !part && !stacked;
  auto as_stored = [&]() -> const void * {
    return resident ? set.tensor_resident(index) : t.data;
  };
  bool blocks = dtype_traits(w.format).dequantize != nullptr;
  if (blocks && bind_blocks(w, t, reorder))
    return as_stored();
  // Stored exactly as the artifact takes it: used as stored (no f32 detour,
  // which for a 16-bit checkpoint would also cache twice its size).
  size_t element_bytes = w.dtype == "f32" ? sizeof(float) : sizeof(uint16_t);
  if (!reorder && t.dtype == w.format &&
      reinterpret_cast<uintptr_t>(t.data) % element_bytes == 0)
    return as_stored();

  // Otherwise through f32: the set's cached conversion (shared by every
  // session on the set), or for a caller that copies the result away at
  // once, a conversion owned with the result; the RoPE row order and the
  // artifact's dtype are applied on top of that.
  const float *data;
  if (part && t.dtype == LLMC_DTYPE_F32) {
    data = reinterpret_cast<const float *>(t.data); // the aligned row copy
  } else if (!part && (cache_in_set || t.dtype == LLMC_DTYPE_F32)) {
    data = set.tensor_f32(index); // zero-copy for aligned f32, else resident
  } else {
    AlignedBuffer buf(static_cast<size_t>(t.n_elements) * sizeof(float),
                      w.name.c_str());
    convert_to_f32(t.dtype, t.data, static_cast<uint64_t>(t.n_elements), buf.f32());
    data = buf.f32();
    owned.push_back(std::move(buf));
  }

  if (reorder) {
    int64_t rows = w.shape[0];
    if (rows != heads * m.head_dim)
      fail(LLMC_ERR_FORMAT, "weights do not match the artifact: tensor '",
           w.name, "' has ", rows, " rows, expected ", heads, " heads x ",
           m.head_dim, " (head_dim) to reorder for RoPE");
    AlignedBuffer buf(static_cast<size_t>(w.n_elements) * sizeof(float),
                      w.name.c_str());
    rope_permute_rows(data, buf.f32(), heads, m.head_dim,
                      w.n_elements / rows, set.rope_layout, m.rope_layout);
    data = buf.f32();
    owned.push_back(std::move(buf));
  }
  if (w.dtype == "f32")
    return data;
  owned.push_back(blocks ? quantize_to(w, data) : narrow_to(w, data));
  return owned.back().data();
}

} // namespace

const void *bind_weight(const Manifest &m, WeightSet &set, size_t i,
                        std::vector<AlignedBuffer> &owned, bool cache_in_set) {
  const ManifestWeight &w = m.weights.at(i);
  // Rows the kernels read as they are: resident in the set when it caches
  // for the session; planar and interleaved rows are repacked from them.
  bool final_rows = !w.planar && w.interleave == 1;
  const size_t owned_before = owned.size();
  const void *rows =
      bind_rows(m, set, i, owned, cache_in_set, cache_in_set && final_rows);
  // Rows converted for this binding (the last buffer bind_rows made) are
  // dropped once repacked.
  auto keep_repacked = [&](AlignedBuffer repacked) {
    if (owned.size() > owned_before && rows == owned.back().data())
      owned.back() = std::move(repacked);
    else
      owned.push_back(std::move(repacked));
    return owned.back().data();
  };
  if (w.planar) {
    // The CUDA backend copies the planes to the device at once.
    AlignedBuffer planes(static_cast<size_t>(weight_bytes(w)), w.name.c_str());
    planar_blocks(w.format, static_cast<const uint8_t *>(rows),
                  w.n_elements / dtype_traits(w.format).block_elems,
                  static_cast<uint8_t *>(planes.data()));
    return keep_repacked(std::move(planes));
  }
  if (w.interleave == 1)
    return rows;
  // The file's own rows, whole: the set repacks them once for all of its
  // sessions (60-100 MB for SmolLM2-135M's block formats).
  size_t index = find_source(m, set, w);
  const int64_t row_blocks = w.shape[1] / dtype_traits(w.format).block_elems;
  if (cache_in_set && rows == set.tensor(index).data &&
      set.tensor(index).n_bytes == weight_bytes(w))
    return set.tensor_interleaved(index, w.format, w.shape[0], row_blocks,
                                  w.interleave, w.interleave_columns);
  AlignedBuffer groups(static_cast<size_t>(weight_bytes(w)), w.name.c_str());
  interleave_rows(w.format, static_cast<const uint8_t *>(rows), w.shape[0],
                  row_blocks, w.interleave, w.interleave_columns,
                  static_cast<uint8_t *>(groups.data()));
  return keep_repacked(std::move(groups));
}

uint64_t weight_bytes(const ManifestWeight &w) {
  // Sizes were overflow-checked against int64 at parse time, and block
  // formats take fewer bytes than elements x4, which fits in u64.
  uint64_t bytes = 0;
  dtype_storage_bytes(w.format, static_cast<uint64_t>(w.n_elements), &bytes);
  return bytes;
}

BoundWeights bind_weights(const Manifest &m, WeightSet &set) {
  BoundWeights bound;
  bound.pointers.reserve(m.weights.size());
  for (size_t i = 0; i < m.weights.size(); ++i)
    bound.pointers.push_back(bind_weight(m, set, i, bound.owned, true));
  return bound;
}

} // namespace llmc::rt
