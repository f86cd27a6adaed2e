// Chat turns: render, tokenize, reuse the cached prefix, prefill the rest, generate; stdin lines as user turns.
#include "chat.h"

#include "cli.h"
#include "tokenize_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace llmc_run {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// `text` as a JSON string literal (UTF-8 passes through; the template's
/// JSON reader rejects invalid UTF-8 with its own message).
std::string json_string(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

std::string token_text(const llmc_tokenizer *tok, int32_t id) {
  if (id < 0)
    return "";
  const char *text = nullptr;
  size_t len = 0;
  check(llmc_tokenizer_token_text(tok, id, &text, &len), "chat template");
  return std::string(text, len);
}

/// The tokens in the session's cache, in order (what the next turn's
/// prompt is matched against).
struct CacheState {
  std::vector<int32_t> tokens;
  int turn = 0;
};

/// One turn: prefill what the cache lacks of the prompt, generate the
/// reply (streamed to stdout), keep the cache's tokens. Returns the reply.
std::string run_turn(const ChatSetup &chat, const std::vector<int32_t> &prompt, CacheState &cache) {
  if (prompt.empty())
    die("the chat template rendered an empty prompt");
  if (prompt.size() >= static_cast<size_t>(chat.context_length))
    die("the conversation has " + std::to_string(prompt.size()) +
        " tokens but the artifact's context holds " + std::to_string(chat.context_length));
  size_t reused = std::mismatch(cache.tokens.begin(), cache.tokens.end(), prompt.begin(),
                                prompt.end()).first - cache.tokens.begin();
  // The prefill must run at least the last token: its logits start the reply.
  reused = std::min(reused, prompt.size() - 1);
  check(llmc_session_rewind(chat.session, static_cast<int32_t>(reused)), "chat");
  cache.tokens.resize(reused);

  const float *logits = nullptr;
  auto start = std::chrono::steady_clock::now();
  size_t fresh = prompt.size() - reused;
  check(llmc_session_prefill(chat.session, prompt.data() + reused, fresh,
                             chat.generation.host_sampling ? &logits : nullptr, nullptr));
  double prefill_s = seconds_since(start);
  cache.tokens.insert(cache.tokens.end(), prompt.begin() + reused, prompt.end());

  TokenPrinter out(chat.tokenizer, chat.print_ids);
  std::vector<int32_t> history = prompt;
  GenerationResult reply = generate(chat.session, chat.sampler, logits, chat.context_length,
                                    chat.generation, history, out);
  std::fputc('\n', stdout);
  std::fflush(stdout);
  // Every reply token but one not fed back (at a limit) is in the cache.
  cache.tokens.insert(cache.tokens.end(), reply.tokens.begin(), reply.tokens.end());
  cache.tokens.resize(static_cast<size_t>(llmc_session_position(chat.session)));

  ++cache.turn;
  std::fprintf(stderr,
               "llmc-run: turn %d: prompt %zu tokens, %zu reused from the cache, %zu prefilled "
               "(%.1f tokens/s); %zu generated (stop: %s, %.1f tokens/s)\n",
               cache.turn, prompt.size(), reused, fresh, fresh / prefill_s, reply.tokens.size(),
               reply.stop, reply.decode_rate());
  return out.take_text();
}

} // namespace

Conversation::Conversation(std::string initial_json) : initial_(std::move(initial_json)) {
  while (!initial_.empty() && is_space(initial_.back()))
    initial_.pop_back();
  size_t open = initial_.find_first_not_of(" \t\r\n");
  if (open == std::string::npos || initial_[open] != '[' || initial_.back() != ']')
    die("--messages: expected a JSON list of messages ([{\"role\": ..., \"content\": ...}, ...])");
  initial_empty_ = initial_.find_first_not_of(" \t\r\n", open + 1) == initial_.size() - 1;
}

void Conversation::add(const std::string &role, const std::string &content) {
  if (!turns_.empty())
    turns_ += ", ";
  turns_ += "{\"role\": " + json_string(role) + ", \"content\": " + json_string(content) + "}";
}

std::string Conversation::json() const {
  if (turns_.empty())
    return initial_;
  std::string head = initial_.substr(0, initial_.size() - 1); // without ']'
  return head + (initial_empty_ ? "" : ", ") + turns_ + "]";
}

llmc_chat_template *open_chat_template(const std::string &tokenizer_path,
                                       const std::string &weights_path,
                                       const llmc_weights *weights) {
  llmc_chat_template *tmpl = nullptr;
  if (tokenizer_path.empty() && weights && llmc_weights_get_format(weights) == LLMC_WEIGHTS_GGUF)
    check(llmc_chat_template_from_weights(weights, &tmpl), "chat template");
  else
    check(llmc_chat_template_load(tokenizer_path.empty() ? weights_path.c_str() : tokenizer_path.c_str(),
                                  &tmpl),
          "chat template");
  return tmpl;
}

std::vector<int32_t> render_prompt(const llmc_tokenizer *tokenizer,
                                   const llmc_chat_template *chat_template,
                                   const Conversation &conversation) {
  std::string bos = token_text(tokenizer, llmc_tokenizer_bos_id(tokenizer));
  std::string eos = token_text(tokenizer, llmc_tokenizer_eos_id(tokenizer));
  llmc_chat_render_options opts{};
  opts.add_generation_prompt = 1;
  opts.bos_token = bos.c_str();
  opts.eos_token = eos.c_str();
  std::string messages = conversation.json();
  // The prompt is the messages' text plus the template's own: the JSON's
  // size and some room for headers is a first guess that usually fits.
  constexpr size_t kTemplateTextGuess = 1024;
  std::string text = fill_buffer<std::string>(
      messages.size() + kTemplateTextGuess, "chat template", [&](char *buf, size_t capacity, size_t *len) {
        return llmc_chat_template_render(chat_template, messages.data(), messages.size(), &opts,
                                         buf, capacity, len);
      });
  // Special-token text (<|im_start|>, ...) is matched as the tokens; no BOS
  // is added: the templates write it themselves.
  return encode_text(tokenizer, text, 0, "encoding the chat prompt");
}

void run_chat(const ChatSetup &chat, Conversation conversation, bool interactive) {
  CacheState cache;
  if (!conversation.empty()) {
    std::string reply = run_turn(chat, render_prompt(chat.tokenizer, chat.chat_template, conversation), cache);
    conversation.add("assistant", reply);
  }
  if (!interactive)
    return;
  bool tty = isatty(STDIN_FILENO);
  std::string line;
  while (true) {
    if (tty) {
      std::fputs("> ", stdout);
      std::fflush(stdout);
    }
    if (!std::getline(std::cin, line))
      break;
    if (line.empty())
      continue;
    conversation.add("user", line);
    std::string reply = run_turn(chat, render_prompt(chat.tokenizer, chat.chat_template, conversation), cache);
    conversation.add("assistant", reply);
  }
}

} // namespace llmc_run
