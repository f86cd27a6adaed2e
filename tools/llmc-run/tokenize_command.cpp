// llmc-run's tokenizer plumbing: --tokenize / --detokenize and the choice of tokenizer for --prompt.
#include "tokenize_command.h"

#include "chat.h"
#include "cli.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace llmc_run {

namespace {

bool ends_with(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool is_dir(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

const char *const kUsage =
    "usage: llmc-run --weights <W> --tokenize TEXT [--plain-special] [--no-bos]\n"
    "       llmc-run --weights <W> --messages conv.json --tokenize\n"
    "       llmc-run --weights <W> --detokenize \"1 2 3\"\n"
    "  W: a GGUF file or a model directory (tokenizer.json); --tokenizer FILE\n"
    "  may name the tokenizer instead. --tokenize prints the ids on one line,\n"
    "  with BOS/EOS as the tokenizer file asks (--no-bos: none);\n"
    "  --plain-special encodes special-token spellings as plain text.\n"
    "  With --messages, --tokenize takes no text: it prints the ids of the\n"
    "  conversation rendered by the model's chat template with the generation\n"
    "  prompt (what llmc-run <artifact> --messages would prefill).\n";

} // namespace

std::vector<int32_t> encode_text(const llmc_tokenizer *tok, const std::string &text,
                                 uint32_t flags, const char *step) {
  // Without normalization a text never takes more tokens than its bytes
  // plus BOS, EOS and a prefix space (runtime.h's bound); a normalizer
  // that grows the text costs one more round.
  constexpr size_t kTokensBeyondBytes = 3;
  return fill_buffer<std::vector<int32_t>>(
      text.size() + kTokensBeyondBytes, step, [&](int32_t *ids, size_t capacity, size_t *n) {
        return llmc_tokenizer_encode(tok, text.data(), text.size(), flags, ids, capacity, n);
      });
}

bool is_tokenize_command(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--tokenize") || !std::strcmp(argv[i], "--detokenize"))
      return true;
  return false;
}

llmc_tokenizer *open_tokenizer(const std::string &tokenizer_path,
                               const std::string &weights_path,
                               const llmc_weights *weights, int32_t vocab_size,
                               std::string &why) {
  llmc_tokenizer *tok = nullptr;
  if (!tokenizer_path.empty()) {
    bool hf_or_gguf = is_dir(tokenizer_path) || ends_with(tokenizer_path, ".json") ||
                      ends_with(tokenizer_path, ".gguf");
    check(hf_or_gguf ? llmc_tokenizer_load(tokenizer_path.c_str(), &tok)
                     : llmc_tokenizer_load_llama2c(tokenizer_path.c_str(), vocab_size, &tok),
          "loading the tokenizer");
    return tok;
  }
  if (!weights_path.empty() && is_dir(weights_path)) {
    // A Hugging Face model directory: its tokenizer.json.
    if (llmc_tokenizer_load(weights_path.c_str(), &tok) == LLMC_OK)
      return tok;
    why = llmc_last_error();
    return nullptr;
  }
  if (weights && llmc_tokenizer_from_weights(weights, &tok) == LLMC_OK)
    return tok;
  if (!weights && !weights_path.empty() &&
      llmc_tokenizer_load(weights_path.c_str(), &tok) == LLMC_OK)
    return tok;
  why = llmc_last_error();
  return nullptr;
}

int run_tokenize_command(int argc, char **argv) {
  std::string weights, tokenizer, text, ids, messages;
  bool encode = false, decode = false, plain = false, bos = true, has_messages = false;
  // With --messages the conversation is the text, so --tokenize takes no
  // value, wherever --messages stands on the line.
  for (int i = 1; i < argc; ++i)
    has_messages = has_messages || !std::strcmp(argv[i], "--messages");
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--plain-special") { plain = true; continue; }
    if (a == "--no-bos") { bos = false; continue; }
    if (a == "--tokenize" && has_messages) { encode = true; continue; }
    if (i + 1 >= argc)
      die("option " + a + " needs a value (see --help)");
    const char *v = argv[++i];
    if (a == "--weights") weights = v;
    else if (a == "--tokenizer") tokenizer = v;
    else if (a == "--tokenize") { text = v; encode = true; }
    else if (a == "--detokenize") { ids = v; decode = true; }
    else if (a == "--messages") messages = read_file(a, v);
    else die("option '" + a + "' does not go with --tokenize/--detokenize (see --help)");
  }
  if (encode && decode)
    die("give either --tokenize or --detokenize, not both");
  if (has_messages && decode)
    die("--messages goes with --tokenize (print the rendered ids), not --detokenize");
  if (weights.empty() && tokenizer.empty())
    die("--tokenize/--detokenize need --weights <GGUF or model directory> (or --tokenizer)");
  // A chat needs the tokenizer and the template: from a GGUF both come from
  // one parse of its metadata.
  llmc_weights *gguf = nullptr;
  if (has_messages && tokenizer.empty() && ends_with(weights, ".gguf"))
    check(llmc_weights_open(weights.c_str(), LLMC_WEIGHTS_AUTO, &gguf), "--messages");
  std::string why;
  llmc_tokenizer *tok = open_tokenizer(tokenizer, weights, gguf, 0, why);
  if (!tok)
    die(weights + ": no tokenizer: " + why);

  if (encode) {
    std::vector<int32_t> out;
    if (has_messages) {
      llmc_chat_template *tmpl = open_chat_template(tokenizer, weights, gguf);
      out = render_prompt(tok, tmpl, Conversation(messages));
      llmc_chat_template_destroy(tmpl);
    } else {
      uint32_t flags = (bos ? LLMC_ENCODE_FILE_DEFAULTS : 0) | (plain ? LLMC_ENCODE_PLAIN_SPECIAL : 0);
      out = encode_text(tok, text, flags, "--tokenize");
    }
    for (size_t k = 0; k < out.size(); ++k)
      std::printf(k ? " %d" : "%d", out[k]);
    std::printf("\n");
  } else {
    std::vector<int32_t> list = parse_token_list("--detokenize", ids);
    // Pieces are short: a few bytes per token covers most texts at once.
    constexpr size_t kBytesPerTokenGuess = 8;
    std::string out = fill_buffer<std::string>(
        list.size() * kBytesPerTokenGuess, "--detokenize", [&](char *buf, size_t capacity, size_t *len) {
          return llmc_tokenizer_decode_all(tok, list.data(), list.size(), buf, capacity, len);
        });
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::printf("\n");
  }
  llmc_tokenizer_destroy(tok);
  llmc_weights_destroy(gguf);
  return 0;
}

} // namespace llmc_run
