// Fuzz target: chat template source, parsed and rendered over fixed conversations and options.
#include "walk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llmc_chat_template *tmpl = nullptr;
  if (llmc_chat_template_create(reinterpret_cast<const char *>(data), size,
                                &tmpl) != LLMC_OK)
    return 0;
  llmc::fuzz::walk_chat_template(tmpl);
  llmc_chat_template_destroy(tmpl);
  return 0;
}
