// Bounds-checked little-endian cursor over an untrusted byte range.
#ifndef LLMC_RUNTIME_BYTE_READER_H
#define LLMC_RUNTIME_BYTE_READER_H

#include "error.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace llmc::rt {

/// All binary parsers read through this cursor so that every length and
/// offset in a file is checked in exactly one place; a read past the end
/// becomes an LLMC_ERR_FORMAT naming the field and offset, never a crash.
class ByteReader {
public:
  /// `context` prefixes error messages (usually "<path>: <format>").
  ByteReader(const uint8_t *data, uint64_t size, std::string context)
      : data_(data), size_(size), context_(std::move(context)) {}

  uint64_t pos() const { return pos_; }
  uint64_t size() const { return size_; }
  uint64_t remaining() const { return size_ - pos_; }
  const uint8_t *data() const { return data_; }
  const std::string &context() const { return context_; }

  /// Reads a little-endian scalar (host must be little-endian; memcpy keeps
  /// unaligned reads well-defined).
  template <typename T> T read(const char *field) {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T), field);
    T value;
    std::memcpy(&value, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  /// Returns a view of the next `n` bytes and advances past them.
  std::string_view read_bytes(uint64_t n, const char *field) {
    need(n, field);
    std::string_view view(reinterpret_cast<const char *>(data_ + pos_), n);
    pos_ += n;
    return view;
  }

  void skip(uint64_t n, const char *field) {
    need(n, field);
    pos_ += n;
  }

  void need(uint64_t n, const char *field) const {
    if (n > remaining())
      fail(LLMC_ERR_FORMAT, context_, ": truncated: ", field, " needs ", n,
           " bytes at offset ", pos_, " but only ", remaining(),
           " remain (size ", size_, ")");
  }

private:
  const uint8_t *data_;
  uint64_t size_;
  uint64_t pos_ = 0;
  std::string context_;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_BYTE_READER_H
