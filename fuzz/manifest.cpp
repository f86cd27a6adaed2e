// Fuzz target: an artifact manifest (<name>.json written by `llmc compile`) through the runtime's parser.
#include "artifact_manifest.h"
#include "error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  try {
    llmc::rt::parse_manifest(
        std::string(reinterpret_cast<const char *>(data), size),
        "fuzz/model.json");
  } catch (const llmc::rt::Error &) {
    // A refused manifest: the message is the tested path.
  }
  return 0;
}
