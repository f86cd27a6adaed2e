// A read-only memory mapping of one file, the storage behind every weight format.
#ifndef LLMC_RUNTIME_MAPPED_FILE_H
#define LLMC_RUNTIME_MAPPED_FILE_H

#include <cstdint>
#include <memory>
#include <string>

namespace llmc::rt {

/// Weights are mmapped rather than read so that opening a multi-gigabyte
/// checkpoint costs nothing until tensors are touched, tensors can be handed
/// out zero-copy (to a backend that copies them away, to f32 readers), and
/// the page cache is shared between processes. The CPU executor reads its
/// weights from the set's resident copies instead (WeightSet::tensor_resident:
/// 2 MiB pages, where a mapping gives 4 KiB ones).
class MappedFile {
public:
  /// Maps `path` read-only. Throws LLMC_ERR_IO for a missing, unreadable,
  /// non-regular or empty file (an empty file cannot be mapped and is never a
  /// valid checkpoint, so it gets its own message).
  static std::shared_ptr<MappedFile> open(const std::string &path);

  ~MappedFile();
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;

  const uint8_t *data() const { return data_; }
  uint64_t size() const { return size_; }
  const std::string &path() const { return path_; }

private:
  MappedFile(std::string path, const uint8_t *data, uint64_t size)
      : path_(std::move(path)), data_(data), size_(size) {}

  std::string path_;
  const uint8_t *data_;
  uint64_t size_;
};

/// True if `path` names an existing directory.
bool is_directory(const std::string &path);
/// True if `path` names an existing file of any kind.
bool path_exists(const std::string &path);
/// The directory part of `path` ("." when it has none, "/" for a file in
/// the root), as dirname(1) gives it for a path without a trailing slash.
std::string parent_directory(const std::string &path);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_MAPPED_FILE_H
