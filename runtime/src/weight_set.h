// The format-independent weight set: named tensors over mapped files plus metadata.
#ifndef LLMC_RUNTIME_WEIGHT_SET_H
#define LLMC_RUNTIME_WEIGHT_SET_H

#include "aligned_buffer.h"
#include "huge_page_arena.h"
#include "llmc/runtime.h"
#include "mapped_file.h"
#include "metadata.h"

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace llmc::rt {

/// One tensor as stored in a file. `data` points into a mapping owned by the
/// WeightSet; loaders have already checked that [data, data + n_bytes) lies
/// inside it and that n_bytes matches shape x dtype.
struct TensorEntry {
  std::string name;        // canonical (Hugging Face) name
  std::string source_name; // name as written in the file
  int32_t n_dims = 0;
  int64_t shape[LLMC_MAX_DIMS] = {1, 1, 1, 1}; // outermost first
  int64_t n_elements = 1;
  llmc_dtype dtype = LLMC_DTYPE_F32;
  const uint8_t *data = nullptr;
  uint64_t n_bytes = 0;
};

/// What every loader produces. Loaders fill it through add_tensor/add_meta,
/// which enforce name uniqueness; after loading it is only read, except for
/// the f32 conversion and interleaved-rows caches, which have their own lock.
class WeightSet {
public:
  llmc_weights_format format = LLMC_WEIGHTS_AUTO;
  llmc_rope_layout rope_layout = LLMC_ROPE_INTERLEAVED;

  /// Prefix for registry errors (duplicates), e.g. "<path>: GGUF"; loaders
  /// set it to the file being parsed so every message names its file.
  void set_context(std::string context) { context_ = std::move(context); }
  /// What errors about the set's contents name ("<path>: GGUF").
  const std::string &context() const { return context_; }

  /// Keeps a mapping alive for as long as tensors or metadata point into it.
  void keep_file(std::shared_ptr<MappedFile> file);
  /// Keeps memory alive that tensors point into (synthesized weights).
  void keep_buffer(AlignedBuffer buffer);
  /// Stores a string the set must own (synthesized metadata) and returns a
  /// view that stays valid for the set's lifetime.
  std::string_view own_string(std::string s);

  void add_tensor(TensorEntry entry);
  void add_meta(std::string key, MetaValue value);

  size_t tensor_count() const { return tensors_.size(); }
  const TensorEntry &tensor(size_t index) const { return tensors_[index]; }
  /// Index of the tensor with this canonical or source name; throws
  /// LLMC_ERR_NOT_FOUND.
  size_t find_tensor(std::string_view name) const;
  /// Same, but returns false instead of throwing.
  bool try_find_tensor(std::string_view name, size_t *index) const;

  size_t meta_count() const { return meta_.size(); }
  const std::pair<std::string, MetaValue> &meta_at(size_t i) const {
    return meta_[i];
  }
  /// nullptr when absent.
  const MetaValue *find_meta(std::string_view key) const;
  /// Throws LLMC_ERR_NOT_FOUND when absent.
  const MetaValue &meta(std::string_view key) const;

  /// f32 view of a tensor: zero-copy for aligned F32, otherwise converted
  /// once, into the resident weights, and cached. Thread-safe.
  const float *tensor_f32(size_t index);

  /// The bytes of tensor `index` as stored, copied once into the set's
  /// resident weights and cached, for kernels that read them on every token
  /// (the CPU executor): there they share 2 MiB pages with the other
  /// weights, where a file's mapping gives them 4 KiB ones. The file's pages
  /// of the tensor are then dropped from this process. Thread-safe.
  /// With keep_mapped(true), or for a tensor that is not in a file (memory
  /// the set owns already, e.g. random weights), the tensor's own bytes.
  const void *tensor_resident(size_t index);

  /// Whether tensor_resident leaves tensors in the file's mapping: zero-copy,
  /// their pages shared with other processes through the page cache, in
  /// 4 KiB pages. Fails with LLMC_ERR_INVALID_ARGUMENT once tensor_resident
  /// has made a copy, so that every session of the set reads one kind.
  void keep_mapped(bool mapped);
  bool keeps_mapped() const { return keep_mapped_; }

  /// The bytes of tensor `index`, `rows` rows of `row_blocks` blocks of
  /// `format` as the artifact takes them, repacked into groups of `group`
  /// rows in runs of `columns` (interleave_rows, quant/interleave.h) once, into the
  /// resident weights, and cached, so that every session binding the tensor
  /// reads one copy. Thread-safe.
  const void *tensor_interleaved(size_t index, llmc_dtype format, int64_t rows,
                                 int64_t row_blocks, int64_t group,
                                 int64_t columns);

private:
  std::string context_ = "weights";
  std::vector<std::shared_ptr<MappedFile>> files_;
  std::vector<AlignedBuffer> buffers_;
  std::deque<std::string> owned_strings_; // deque: stable addresses
  std::vector<TensorEntry> tensors_;
  std::unordered_map<std::string, size_t> tensor_index_; // both names
  std::vector<std::pair<std::string, MetaValue>> meta_;
  std::unordered_map<std::string, size_t> meta_index_;

  /// Whether `t` lies in a mapped file (else in memory the set owns).
  bool in_mapped_file(const TensorEntry &t) const;
  /// Drops the pages of `t` that a mapped file holds from this process (the
  /// page cache keeps them); memory the set owns is left alone.
  void release_file_pages(const TensorEntry &t) const;

  std::mutex cache_mutex_;
  bool keep_mapped_ = false;
  /// The copies the kernels read: tensor_resident's, tensor_f32's and
  /// tensor_interleaved's, by tensor, packed one after another.
  HugePageArena resident_;
  std::unordered_map<size_t, const void *> resident_cache_;
  std::unordered_map<size_t, const float *> f32_cache_;
  /// tensor_interleaved's copies, by tensor, rows, group size and runs.
  std::map<std::tuple<size_t, int64_t, int64_t, int64_t>, const void *>
      interleaved_cache_;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_WEIGHT_SET_H
