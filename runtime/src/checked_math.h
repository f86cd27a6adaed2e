// Overflow-checked integer arithmetic for sizes and offsets read from untrusted files.
#ifndef LLMC_RUNTIME_CHECKED_MATH_H
#define LLMC_RUNTIME_CHECKED_MATH_H

#include <cstdint>

namespace llmc::rt {

/// Returns false instead of wrapping: every size computed from file contents
/// goes through these so that a corrupt header cannot produce a small bogus
/// size that passes a bounds check.
inline bool checked_mul(uint64_t a, uint64_t b, uint64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool checked_add(uint64_t a, uint64_t b, uint64_t *out) {
  return !__builtin_add_overflow(a, b, out);
}

/// True when [offset, offset + length) lies inside [0, size).
inline bool range_fits(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CHECKED_MATH_H
