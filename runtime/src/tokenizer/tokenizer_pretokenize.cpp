// Pre-tokenizer steps (split behaviours, prefix space) and the regex lists behind GGUF tokenizer.ggml.pre names.
#include "tokenizer_pretokenize.h"

#include "error.h"

#include <utility>

namespace llmc::rt {

// Hugging Face tokenizers' ByteLevel pre-tokenizer (pre_tokenizers/byte_level.rs).
const char *const kGpt2SplitPattern =
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)re";
const char *const kDigitPattern = R"re(\p{N})re";

namespace {

// The patterns below are those of the models' original tokenizer.json files;
// llama.cpp's llama-vocab.cpp (llm_tokenizer_bpe) quotes the same ones as
// "original regex from tokenizer.json" (it rewrites (?i:...) because its own
// engine lacks it; PCRE2 has it, so the originals are used as they are).
// Code points outside ASCII are written as \x{...}: a character class that is
// copied as text can be NFC-normalized on the way (U+1FBE becomes U+03B9).

/// Llama 3 (tokenizer.json of Meta-Llama-3-8B; llama.cpp pre "llama-bpe").
const char *const kLlama3Pattern =
    R"re((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";
/// Qwen2: Llama 3's pattern with single digits (llama.cpp pre "qwen2").
const char *const kQwen2Pattern =
    R"re((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";
/// Mistral-Nemo's tekken (llama.cpp pre "tekken"): case-aware words.
const char *const kTekkenPattern =
    R"re([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";

/// deepseek-llm (DeepSeek LLM 7B/67B): five splits, then Digits with
/// individual_digits = false (a run of digits is one piece: \p{N}+).
const char *const kDeepseekLlmPatterns[] = {
    R"re([\r\n])re",
    R"re(\s?[A-Za-z\x{B5}\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{1BA}\x{1BC}-\x{1BF}\x{1C4}-\x{293}\x{295}-\x{2AF}\x{370}-\x{373}\x{376}\x{377}\x{37B}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A}\x{38C}\x{38E}-\x{3A1}\x{3A3}-\x{3F5}\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556}\x{10A0}-\x{10C5}\x{13A0}-\x{13F5}\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF}\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A}\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B}\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC}\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107}\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}\x{212F}-\x{2134}\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2183}\x{2184}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4}\x{2CEB}-\x{2CEE}\x{2CF2}\x{2CF3}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F}\x{A771}-\x{A787}\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{10400}-\x{1044F}\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2}\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}]+)re",
    R"re(\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3000}-\x{3002}]+)re",
    R"re(\s+$)re",
    R"re([\x{4E00}-\x{9FA5}\x{800}-\x{4E00}\x{AC00}-\x{D7FF}]+)re",
    R"re(\p{N}+)re",
};

/// DeepSeek-V3 (llama.cpp pre "deepseek-v3").
const char *const kDeepseekV3Patterns[] = {
    R"re(\p{N}{1,3})re",
    R"re([\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+)re",
    R"re([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};

} // namespace

void PreTokenizer::add_split(const std::string &pattern, bool literal,
                             SplitBehavior behavior, bool invert,
                             const std::string &origin) {
  Step s;
  s.regex = std::make_shared<const Regex>(pattern, literal, origin);
  s.behavior = behavior;
  s.invert = invert;
  steps_.push_back(std::move(s));
}

void PreTokenizer::add_prefix_space() { steps_.push_back(Step{}); }

void PreTokenizer::split(const Step &step, const std::string &piece,
                         std::vector<std::string> &out) const {
  std::vector<std::pair<size_t, size_t>> matches;
  step.regex->find_all(piece, matches);
  // Segments in order; `delim` marks the ones the behaviour acts on.
  struct Segment {
    size_t begin, end;
    bool delim;
  };
  std::vector<Segment> segs;
  size_t at = 0;
  for (auto [b, e] : matches) {
    if (b > at)
      segs.push_back({at, b, step.invert});
    segs.push_back({b, e, !step.invert});
    at = e;
  }
  if (at < piece.size())
    segs.push_back({at, piece.size(), step.invert});

  std::string_view text = piece;
  bool glue_next = false; // MergedWithNext: the last piece waits for the next
  bool prev_delim = false;
  for (const Segment &s : segs) {
    std::string_view part = text.substr(s.begin, s.end - s.begin);
    switch (step.behavior) {
    case SplitBehavior::Removed:
      if (!s.delim)
        out.emplace_back(part);
      break;
    case SplitBehavior::Isolated:
      out.emplace_back(part);
      break;
    case SplitBehavior::MergedWithPrevious:
      if (s.delim && !prev_delim && &s != &segs.front())
        out.back().append(part);
      else
        out.emplace_back(part);
      break;
    case SplitBehavior::MergedWithNext:
      if (glue_next && !s.delim)
        out.back().append(part);
      else
        out.emplace_back(part);
      glue_next = s.delim;
      break;
    case SplitBehavior::Contiguous:
      if (s.delim && prev_delim)
        out.back().append(part);
      else
        out.emplace_back(part);
      break;
    }
    prev_delim = s.delim;
  }
}

void PreTokenizer::run(std::string_view text, std::vector<std::string> &out) const {
  std::vector<std::string> pieces{std::string(text)}, next;
  for (const Step &step : steps_) {
    next.clear();
    for (std::string &p : pieces) {
      if (!step.regex) {
        if (p.empty() || p[0] != ' ')
          p.insert(p.begin(), ' ');
        next.push_back(std::move(p));
      } else {
        split(step, p, next);
      }
    }
    pieces.swap(next);
  }
  for (std::string &p : pieces)
    if (!p.empty())
      out.push_back(std::move(p));
}

PreTokenizerPreset pre_tokenizer_for_gguf(std::string_view name) {
  PreTokenizerPreset p;
  std::string origin = cat("tokenizer.ggml.pre '", name, "'");
  auto isolated = [&](const char *pattern) {
    p.pre.add_split(pattern, false, SplitBehavior::Isolated, false, origin);
  };
  // Name sets follow llama.cpp's llama_vocab::impl::load (the pre-type
  // switch), restricted to the families llmc has goldens for.
  if (name == "gpt-2") {
    isolated(kGpt2SplitPattern);
  } else if (name == "llama-bpe" || name == "llama3" || name == "llama-v3") {
    isolated(kLlama3Pattern);
    p.ignore_merges = true;
    p.add_bos = true;
  } else if (name == "qwen2" || name == "deepseek-r1-qwen") {
    isolated(kQwen2Pattern);
  } else if (name == "tekken") {
    isolated(kTekkenPattern);
    p.ignore_merges = true;
    p.add_bos = true;
  } else if (name == "smollm" || name == "starcoder") {
    // SmolLM2's tokenizer.json: Sequence[Digits(individual_digits = true),
    // ByteLevel(add_prefix_space = false, use_regex = true)].
    isolated(kDigitPattern);
    isolated(kGpt2SplitPattern);
  } else if (name == "deepseek-llm") {
    for (const char *pattern : kDeepseekLlmPatterns)
      isolated(pattern);
  } else if (name == "deepseek-v3") {
    for (const char *pattern : kDeepseekV3Patterns)
      isolated(pattern);
  } else {
    fail(LLMC_ERR_UNSUPPORTED, "GGUF tokenizer: pre-tokenizer '", name,
         "' (tokenizer.ggml.pre) is not supported; supported: gpt-2, llama-bpe, "
         "qwen2, tekken, smollm, starcoder, deepseek-llm, deepseek-v3");
  }
  return p;
}

} // namespace llmc::rt
