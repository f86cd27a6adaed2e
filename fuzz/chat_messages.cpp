// Fuzz target: messages, tools and variables JSON (what llmc-run --messages reads) rendered by fixed real templates.
#include "test_inputs.h"
#include "walk.h"

#include <cstring>

namespace {

/// The family templates of the tests (test/runtime/Inputs/chat_templates).
const char *const kTemplates[] = {
    "chat_templates/chatml", "chat_templates/deepseek", "chat_templates/gemma",
    "chat_templates/llama3", "chat_templates/mistral",  "chat_templates/phi3",
    "chat_templates/qwen"};

} // namespace

/// The input is the messages list, then (with a fixed conversation) the
/// tools list and the variables object, for one template: the input's
/// length picks it (every mutation that changes the length moves on).
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const auto templates = llmc::fuzz::load_test_inputs(
      kTemplates, ".jinja", llmc_chat_template_load, llmc_chat_template_destroy);
  const char *json = reinterpret_cast<const char *>(data);
  const llmc_chat_template *tmpl = templates[size % templates.size()].get();
  const char *conversation = llmc::fuzz::sample_conversation(size);
  llmc::fuzz::render_messages(tmpl, json, size);
  llmc_chat_render_options opts = llmc::fuzz::full_render_options();
  opts.tools_json = json;
  opts.tools_json_len = size;
  llmc::fuzz::render_checked(tmpl, conversation, std::strlen(conversation),
                             &opts);
  opts = llmc::fuzz::full_render_options();
  opts.variables_json = json;
  opts.variables_json_len = size;
  llmc::fuzz::render_checked(tmpl, conversation, std::strlen(conversation),
                             &opts);
  return 0;
}
