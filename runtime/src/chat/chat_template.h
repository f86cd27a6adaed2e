// A parsed chat template and how to render a conversation with it (the inputs Hugging Face passes).
#ifndef LLMC_RUNTIME_CHAT_TEMPLATE_H
#define LLMC_RUNTIME_CHAT_TEMPLATE_H

#include "chat_ast.h"

#include "weight_set.h"

#include <string>
#include <string_view>

namespace llmc::rt::chat {

/// What apply_chat_template(tokenize=False) passes besides the messages.
struct RenderInputs {
  bool add_generation_prompt = false;
  const char *bos_token = nullptr; // null: the variable is undefined
  const char *eos_token = nullptr;
  std::string_view tools_json;     // empty: tools = none
  std::string_view extra_json;     // empty, or a JSON object of more variables
};

/// Immutable after parse: render() may run concurrently on one template.
class ChatTemplate {
public:
  /// Parses (syntax and supported-construct checks happen here).
  explicit ChatTemplate(std::string_view raw_source);

  /// Renders an OpenAI-style JSON list of message objects. Like
  /// transformers, message fields whose value is null are dropped first, and
  /// a message's reasoning (reasoning_content / thinking / reasoning) is
  /// also offered under the other two names.
  std::string render(std::string_view messages_json, const RenderInputs &in) const;

  const std::string &raw_source() const { return raw_; }

private:
  std::string raw_;
  std::string src_; // normalized (what offsets refer to)
  Body body_;
};

/// The template text of a model: a GGUF file (tokenizer.chat_template), a
/// Hugging Face model directory (chat_template.jinja, else the
/// chat_template of tokenizer_config.json: a string, or the entry named
/// "default" of a list), or such a .jinja / tokenizer_config.json file.
std::string load_chat_template_source(const std::string &path);

/// The tokenizer.chat_template of an open weight set's metadata (a GGUF's);
/// the error when there is none names the set's file.
std::string chat_template_source_from_weights(const WeightSet &set);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_TEMPLATE_H
