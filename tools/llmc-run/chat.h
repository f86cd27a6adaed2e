// llmc-run --messages / --chat: conversations rendered by the model's chat template, the KV cache reused across turns.
#ifndef LLMC_RUN_CHAT_H
#define LLMC_RUN_CHAT_H

#include "generation.h"

#include "llmc/runtime.h"

#include <string>

namespace llmc_run {

struct ChatSetup {
  llmc_session *session = nullptr;
  llmc_sampler *sampler = nullptr;
  const llmc_tokenizer *tokenizer = nullptr;
  const llmc_chat_template *chat_template = nullptr;
  int32_t context_length = 0;
  GenerationSettings generation;
  bool print_ids = false;
};

/// A conversation as the OpenAI-style JSON list the template renders: the
/// messages of a --messages file (kept as written, so that fields other
/// than role and content reach the template) followed by the turns of this
/// run.
class Conversation {
public:
  /// `initial_json`: a JSON list of messages ("[]" for none); checked by
  /// the template when rendered.
  explicit Conversation(std::string initial_json);
  void add(const std::string &role, const std::string &content);
  std::string json() const;
  /// Whether the conversation ends with a user turn to answer.
  bool empty() const { return initial_empty_ && turns_.empty(); }

private:
  std::string initial_;
  bool initial_empty_;
  std::string turns_; // serialized objects, comma-separated
};

/// The model's chat template: from `tokenizer_path` when given (a GGUF, a
/// model directory or a tokenizer_config.json), else from the open weights'
/// metadata when they are a GGUF (no second parse of the file), else from
/// `weights_path` (a model directory). Dies with the runtime's message.
llmc_chat_template *open_chat_template(const std::string &tokenizer_path,
                                       const std::string &weights_path,
                                       const llmc_weights *weights);

/// The rendered prompt of `conversation` with the generation prompt, as
/// token ids (special-token text matched as the tokens, no BOS added: the
/// templates write it themselves).
std::vector<int32_t> render_prompt(const llmc_tokenizer *tokenizer,
                                   const llmc_chat_template *chat_template,
                                   const Conversation &conversation);

/// Runs the conversation's reply, then (with `interactive`) one turn per
/// line of stdin until end of input. Each turn reuses the cache of the
/// prefix its prompt shares with the tokens already in the cache and
/// prefills only the rest; stderr gets one line per turn with the counts.
void run_chat(const ChatSetup &chat, Conversation conversation, bool interactive);

} // namespace llmc_run

#endif // LLMC_RUN_CHAT_H
