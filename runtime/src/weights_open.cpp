// Chooses the loader for a weights path (magic, extension, directory layout).
#include "weights_open.h"

#include "error.h"
#include "mapped_file.h"
#include "weights_gguf.h"
#include "weights_llama2c.h"
#include "weights_safetensors.h"

namespace llmc::rt {

namespace {

constexpr const char *kIndexName = "model.safetensors.index.json";
constexpr const char *kSingleName = "model.safetensors";

bool ends_with(const std::string &s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

llmc_weights_format detect(const std::string &path, std::string *resolved) {
  *resolved = path;
  if (is_directory(path)) {
    std::string index = path + "/" + kIndexName;
    std::string single = path + "/" + kSingleName;
    if (path_exists(index)) {
      *resolved = index;
      return LLMC_WEIGHTS_SAFETENSORS;
    }
    if (path_exists(single)) {
      *resolved = single;
      return LLMC_WEIGHTS_SAFETENSORS;
    }
    fail(LLMC_ERR_IO, path, ": directory holds neither ", kIndexName, " nor ",
         kSingleName);
  }
  if (ends_with(path, ".gguf"))
    return LLMC_WEIGHTS_GGUF;
  if (ends_with(path, ".json") || ends_with(path, ".safetensors"))
    return LLMC_WEIGHTS_SAFETENSORS;
  if (ends_with(path, ".bin"))
    return LLMC_WEIGHTS_LLAMA2C;
  // No telling extension: sniff the content.
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  if (has_gguf_magic(file->data(), file->size()))
    return LLMC_WEIGHTS_GGUF;
  if (looks_like_safetensors(file->data(), file->size()))
    return LLMC_WEIGHTS_SAFETENSORS;
  fail(LLMC_ERR_UNSUPPORTED, path,
       ": unrecognized weight format (expected GGUF, safetensors or a llama2.c "
       ".bin; name the format explicitly if the extension is unusual)");
}

} // namespace

void open_weights(const std::string &path, llmc_weights_format format,
                  WeightSet &set) {
  std::string resolved = path;
  if (format == LLMC_WEIGHTS_AUTO)
    format = detect(path, &resolved);
  switch (format) {
  case LLMC_WEIGHTS_GGUF:
    load_gguf(resolved, set);
    return;
  case LLMC_WEIGHTS_SAFETENSORS:
    if (is_directory(resolved)) {
      llmc_weights_format f = detect(resolved, &resolved);
      (void)f;
    }
    if (ends_with(resolved, ".json"))
      load_safetensors_index(resolved, set);
    else
      load_safetensors(resolved, set);
    return;
  case LLMC_WEIGHTS_LLAMA2C:
    load_llama2c(resolved, set);
    return;
  case LLMC_WEIGHTS_RANDOM:
    fail(LLMC_ERR_INVALID_ARGUMENT, path, ": LLMC_WEIGHTS_RANDOM is not a file "
         "format (llmc_weights_create_random makes random weights)");
  case LLMC_WEIGHTS_AUTO:
    break;
  }
  fail(LLMC_ERR_INVALID_ARGUMENT, "invalid weights format ", int(format));
}

} // namespace llmc::rt
