// WeightSet: tensor/metadata registry with name aliases and the resident copies the kernels read (tensors as stored, the lazy f32 conversions, interleaved block matrices).
#include "weight_set.h"

#include "dtype.h"
#include "error.h"
#include "quant/interleave.h"

#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace llmc::rt {

namespace {

/// The C API hands names out NUL-terminated and looks them up by C string:
/// a name with a NUL inside would read as the part before it, which can be
/// another entry's name.
void refuse_nul(const std::string &context, const char *what,
                const std::string &name) {
  size_t nul = name.find('\0');
  if (nul != std::string::npos)
    fail(LLMC_ERR_FORMAT, context, ": ", what, " '", name.substr(0, nul),
         "' has a NUL byte at position ", nul, " (of ", name.size(), " bytes)");
}

} // namespace

void WeightSet::keep_file(std::shared_ptr<MappedFile> file) {
  files_.push_back(std::move(file));
}

void WeightSet::keep_buffer(AlignedBuffer buffer) {
  buffers_.push_back(std::move(buffer));
}

std::string_view WeightSet::own_string(std::string s) {
  owned_strings_.push_back(std::move(s));
  return owned_strings_.back();
}

void WeightSet::add_tensor(TensorEntry entry) {
  refuse_nul(context_, "tensor name", entry.source_name);
  refuse_nul(context_, "tensor name", entry.name);
  size_t index = tensors_.size();
  auto [it, inserted] = tensor_index_.emplace(entry.name, index);
  if (!inserted)
    fail(LLMC_ERR_FORMAT, context_, ": duplicate tensor '", entry.name, "'",
         entry.source_name != entry.name
             ? cat(" (from '", entry.source_name, "')")
             : std::string());
  if (entry.source_name != entry.name) {
    auto [it2, inserted2] = tensor_index_.emplace(entry.source_name, index);
    if (!inserted2)
      fail(LLMC_ERR_FORMAT, context_, ": tensor name '", entry.source_name,
           "' is used twice (as a source and as a canonical name)");
  }
  tensors_.push_back(std::move(entry));
}

void WeightSet::add_meta(std::string key, MetaValue value) {
  refuse_nul(context_, "metadata key", key);
  auto [it, inserted] = meta_index_.emplace(key, meta_.size());
  if (!inserted)
    fail(LLMC_ERR_FORMAT, context_, ": duplicate metadata key '", key, "'");
  meta_.emplace_back(std::move(key), std::move(value));
}

bool WeightSet::try_find_tensor(std::string_view name, size_t *index) const {
  auto it = tensor_index_.find(std::string(name));
  if (it == tensor_index_.end())
    return false;
  *index = it->second;
  return true;
}

size_t WeightSet::find_tensor(std::string_view name) const {
  size_t index;
  if (!try_find_tensor(name, &index))
    fail(LLMC_ERR_NOT_FOUND, "no tensor named '", name, "'");
  return index;
}

const MetaValue *WeightSet::find_meta(std::string_view key) const {
  auto it = meta_index_.find(std::string(key));
  return it == meta_index_.end() ? nullptr : &meta_[it->second].second;
}

const MetaValue &WeightSet::meta(std::string_view key) const {
  const MetaValue *v = find_meta(key);
  if (!v)
    fail(LLMC_ERR_NOT_FOUND, "no metadata key '", key, "'");
  return *v;
}

const float *WeightSet::tensor_f32(size_t index) {
  const TensorEntry &t = tensors_[index];
  if (t.dtype == LLMC_DTYPE_F32 &&
      reinterpret_cast<uintptr_t>(t.data) % alignof(float) == 0)
    return reinterpret_cast<const float *>(t.data);

  std::lock_guard<std::mutex> lock(cache_mutex_);
  auto it = f32_cache_.find(index);
  if (it != f32_cache_.end())
    return it->second;
  auto *values = static_cast<float *>(resident_.allocate(
      static_cast<size_t>(t.n_elements) * sizeof(float), t.name.c_str()));
  convert_to_f32(t.dtype, t.data, static_cast<uint64_t>(t.n_elements), values);
  f32_cache_.emplace(index, values);
  return values;
}

const void *WeightSet::tensor_resident(size_t index) {
  const TensorEntry &t = tensors_[index];
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (keep_mapped_ || !in_mapped_file(t))
    return t.data;
  auto it = resident_cache_.find(index);
  if (it != resident_cache_.end())
    return it->second;
  void *copy = resident_.allocate(static_cast<size_t>(t.n_bytes), t.name.c_str());
  std::memcpy(copy, t.data, static_cast<size_t>(t.n_bytes));
  release_file_pages(t);
  resident_cache_.emplace(index, copy);
  return copy;
}

const void *WeightSet::tensor_interleaved(size_t index, llmc_dtype format,
                                          int64_t rows, int64_t row_blocks,
                                          int64_t group, int64_t columns) {
  const TensorEntry &t = tensors_[index];
  std::lock_guard<std::mutex> lock(cache_mutex_);
  auto key = std::make_tuple(index, rows, group, columns);
  auto it = interleaved_cache_.find(key);
  if (it != interleaved_cache_.end())
    return it->second;
  void *groups = resident_.allocate(static_cast<size_t>(t.n_bytes), t.name.c_str());
  interleave_rows(format, t.data, rows, row_blocks, group, columns,
                  static_cast<uint8_t *>(groups));
  release_file_pages(t);
  interleaved_cache_.emplace(key, groups);
  return groups;
}

void WeightSet::keep_mapped(bool mapped) {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (mapped != keep_mapped_ && !resident_cache_.empty())
    fail(LLMC_ERR_INVALID_ARGUMENT, context_,
         ": the weights are already resident (a session has bound them); "
         "choose mapped or resident weights before the first session");
  keep_mapped_ = mapped;
}

bool WeightSet::in_mapped_file(const TensorEntry &t) const {
  for (const std::shared_ptr<MappedFile> &file : files_)
    if (t.data >= file->data() && t.data + t.n_bytes <= file->data() + file->size())
      return true;
  return false;
}

void WeightSet::release_file_pages(const TensorEntry &t) const {
#ifdef MADV_DONTNEED
  if (!in_mapped_file(t))
    return;
  // The whole pages inside the tensor: its neighbours keep theirs.
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  uintptr_t begin = reinterpret_cast<uintptr_t>(t.data);
  uintptr_t first = (begin + page - 1) / page * page;
  uintptr_t last = (begin + t.n_bytes) / page * page;
  if (last > first)
    (void)::madvise(reinterpret_cast<void *>(first), last - first,
                    MADV_DONTNEED); // a read-only file mapping: refaulted on use
#endif
}

} // namespace llmc::rt
