// Rendering a chat template over a fixed set of conversations and options.
#include "fuzz_check.h"
#include "walk.h"

#include <cstring>
#include <string>

namespace llmc::fuzz {

namespace {

/// The conversation shapes the real templates branch on (those of
/// test/runtime/Inputs/chat_goldens.py): a system turn or none, several
/// turns, tool calls and tool results, content as a list of parts, extra
/// fields, text that looks like template syntax.
const char *const kConversations[] = {
    R"([{"role": "user", "content": "Hello!"}])",
    R"([{"role": "system", "content": "You are terse."},
        {"role": "user", "content": "What is 2+2?"},
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": "And 3+3?"}])",
    R"([{"role": "user", "content": "Quotes ' \" and braces {{ x }} {% y %} {# z #}\nnew\ttab  "},
        {"role": "assistant", "content": "  Ünïcödé: 日本語, emoji 🙂, backslash \\ end\n"}])",
    R"([{"role": "system", "content": "Tools are available."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "", "tool_calls": [
          {"id": "call12345", "type": "function",
           "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}}]},
        {"role": "tool", "tool_call_id": "call12345", "content": "{\"temp\": 21}"},
        {"role": "assistant", "content": "It is 21 °C.", "reasoning_content": "Because."}])",
    R"([{"role": "user", "content": [{"type": "text", "text": "Part one."}, {"type": "image"},
                                     {"type": "text", "text": "Part two."}],
         "name": null, "meta": {"k": [1, 2.5, true, null]}},
        {"role": "user", "content": "not alternating"}])",
};

const char kTools[] = R"([{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object",
                   "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                   "required": ["city"]}}}])";
const char kVariables[] = R"({"date_string": "26 Jul 2024", "tools_in_user_message": false})";

} // namespace

void render_checked(const llmc_chat_template *tmpl, const char *messages,
                    size_t len, const llmc_chat_render_options *opts) {
  size_t needed = 0;
  llmc_status measured =
      llmc_chat_template_render(tmpl, messages, len, opts, nullptr, 0, &needed);
  if (measured != LLMC_OK && measured != LLMC_ERR_BUFFER_TOO_SMALL)
    return; // a render error (raise_exception, undefined value) is a message
  std::string out(needed, '\0');
  size_t written = 0;
  LLMC_FUZZ_CHECK(llmc_chat_template_render(tmpl, messages, len, opts,
                                            out.data(), out.size(),
                                            &written) == LLMC_OK);
  LLMC_FUZZ_CHECK(written == needed);
}

llmc_chat_render_options full_render_options() {
  llmc_chat_render_options opts = {};
  opts.add_generation_prompt = 1;
  opts.bos_token = "<s>";
  opts.eos_token = "</s>";
  opts.tools_json = kTools;
  opts.tools_json_len = sizeof(kTools) - 1;
  opts.variables_json = kVariables;
  opts.variables_json_len = sizeof(kVariables) - 1;
  return opts;
}

void render_messages(const llmc_chat_template *tmpl, const char *messages,
                     size_t len) {
  render_checked(tmpl, messages, len, nullptr);
  llmc_chat_render_options opts = full_render_options();
  render_checked(tmpl, messages, len, &opts);
}

void walk_chat_template(const llmc_chat_template *tmpl) {
  const char *source = nullptr;
  size_t source_len = 0;
  LLMC_FUZZ_CHECK(llmc_chat_template_source(tmpl, &source, &source_len) ==
                  LLMC_OK);
  for (const char *messages : kConversations)
    render_messages(tmpl, messages, std::strlen(messages));
}

const char *sample_conversation(size_t index) {
  constexpr size_t kCount = sizeof(kConversations) / sizeof(kConversations[0]);
  return kConversations[index % kCount];
}

} // namespace llmc::fuzz
