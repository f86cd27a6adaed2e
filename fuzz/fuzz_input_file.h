// A fuzz input written to a file, for the parsers that only take a path.
#ifndef LLMC_FUZZ_INPUT_FILE_H
#define LLMC_FUZZ_INPUT_FILE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace llmc::fuzz {

/// One private directory per fuzzer process (under $TMPDIR, else /dev/shm,
/// else /tmp: /dev/shm keeps a million writes off the disk), removed with
/// everything in it at exit. Parallel fuzzers (-jobs) never share a file.
const std::string &scratch_directory();

/// `name` inside scratch_directory(), rewritten with each input. The name
/// matters to the loaders that pick a format by extension ("x.gguf") or a
/// file name ("model.safetensors.index.json").
class InputFile {
public:
  explicit InputFile(const std::string &name);
  /// Replaces the file's contents with `size` bytes; returns its path.
  const std::string &write(const uint8_t *data, size_t size) const;
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

} // namespace llmc::fuzz

#endif // LLMC_FUZZ_INPUT_FILE_H
