// Tokenizers from Hugging Face tokenizer.json (+ tokenizer_config.json): byte-level BPE and SentencePiece-style BPE.
#include "tokenizer.h"

#include "byte_level.h"
#include "error.h"
#include "json_lite.h"
#include "mapped_file.h"
#include "tokenizer_merges.h"
#include "unicode_normalize.h"

#include <algorithm>
#include <set>

namespace llmc::rt {

namespace {

/// U+2581, SentencePiece's visible space.
constexpr std::string_view kMetaSpace = "\xe2\x96\x81";

/// Reads typed members and names the JSON path of anything it refuses, so
/// that "unsupported" always says which component of which file.
class Reader {
public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void unsupported(const std::string &path, const std::string &what) const {
    fail(LLMC_ERR_UNSUPPORTED, file_, ": ", path, ": ", what);
  }
  [[noreturn]] void bad(const std::string &path, const std::string &what) const {
    fail(LLMC_ERR_FORMAT, file_, ": ", path, ": ", what);
  }

  const JsonValue *opt(const JsonValue &obj, const char *key) const {
    const JsonValue *v = obj.get(key);
    return v && v->kind != JsonValue::Kind::Null ? v : nullptr;
  }
  const JsonValue &req(const JsonValue &obj, const char *key, const std::string &path) const {
    const JsonValue *v = opt(obj, key);
    if (!v)
      bad(path + "." + key, "missing");
    return *v;
  }
  const std::string &str(const JsonValue &v, const std::string &path) const {
    if (v.kind != JsonValue::Kind::String)
      bad(path, cat("expected a string, got ", json_kind_name(v.kind)));
    return v.text;
  }
  std::string str_member(const JsonValue &obj, const char *key, const std::string &path) const {
    return str(req(obj, key, path), path + "." + key);
  }
  bool flag(const JsonValue &obj, const char *key, bool fallback, const std::string &path) const {
    const JsonValue *v = opt(obj, key);
    if (!v)
      return fallback;
    if (v->kind != JsonValue::Kind::Bool)
      bad(path + "." + key, "expected true or false");
    return v->boolean;
  }
  uint64_t uint(const JsonValue &v, const std::string &path) const {
    uint64_t out;
    if (v.kind != JsonValue::Kind::Number || !v.as_uint64(&out))
      bad(path, "expected a non-negative integer");
    return out;
  }
  /// A token id: below INT32_MAX, so that the vocabulary size (largest id
  /// + 1) neither wraps around nor exceeds what an int32 token holds.
  uint64_t token_id(const JsonValue &v, const std::string &path) const {
    uint64_t id = uint(v, path);
    if (id >= static_cast<uint64_t>(INT32_MAX))
      bad(path, cat("token id ", id, " is too large (ids must be below ", INT32_MAX, ")"));
    return id;
  }
  const std::vector<JsonValue> &array(const JsonValue &v, const std::string &path) const {
    if (v.kind != JsonValue::Kind::Array)
      bad(path, cat("expected an array, got ", json_kind_name(v.kind)));
    return v.items;
  }
  const std::string &type(const JsonValue &v, const std::string &path) const {
    if (v.kind != JsonValue::Kind::Object)
      bad(path, "expected an object");
    return str(req(v, "type", path), path + ".type");
  }
  const std::string &file() const { return file_; }

private:
  std::string file_;
};

std::string read_text(const std::string &path) {
  std::shared_ptr<MappedFile> f = MappedFile::open(path);
  return std::string(reinterpret_cast<const char *>(f->data()), f->size());
}

/// tokenizer.json's {"String": s} / {"Regex": r} patterns.
std::pair<std::string, bool> pattern_of(const Reader &r, const JsonValue &obj,
                                        const std::string &path) {
  const JsonValue &p = r.req(obj, "pattern", path);
  if (const JsonValue *s = r.opt(p, "String"))
    return {r.str(*s, path + ".pattern.String"), true};
  if (const JsonValue *s = r.opt(p, "Regex"))
    return {r.str(*s, path + ".pattern.Regex"), false};
  r.unsupported(path + ".pattern", "expected {\"String\": ...} or {\"Regex\": ...}");
}

SplitBehavior behavior_of(const Reader &r, const std::string &name, const std::string &path) {
  if (name == "Removed") return SplitBehavior::Removed;
  if (name == "Isolated") return SplitBehavior::Isolated;
  if (name == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
  if (name == "MergedWithNext") return SplitBehavior::MergedWithNext;
  if (name == "Contiguous") return SplitBehavior::Contiguous;
  r.unsupported(path, "split behavior '" + name + "' is not supported");
}

/// HF tokenizers chains components of one kind as {"type": "Sequence",
/// key: [...]}: when `type` is that, reads each item with `read(item, path)`
/// and returns true.
template <typename Read>
bool read_sequence(const Reader &r, const JsonValue &v, const std::string &type,
                   const std::string &path, const char *key, Read read) {
  if (type != "Sequence")
    return false;
  const auto &items = r.array(r.req(v, key, path), path + "." + key);
  for (size_t i = 0; i < items.size(); ++i)
    read(items[i], cat(path, ".", key, "[", i, "]"));
  return true;
}

/// What the pre_tokenizer / normalizer / decoder say about the model.
struct Shape {
  bool byte_level = false;  // a ByteLevel pre-tokenizer
  bool metaspace = false;   // SentencePiece spaces (normalizer or Metaspace)
  bool prefix_space = false;
  bool prefix_first_only = false;
  bool prefix_unless_space = false;
};

void read_pre_tokenizer(const Reader &r, const JsonValue &v, const std::string &path,
                        PreTokenizer &pre, Shape &shape) {
  const std::string &t = r.type(v, path);
  if (read_sequence(r, v, t, path, "pretokenizers",
                    [&](const JsonValue &item, const std::string &p) {
                      read_pre_tokenizer(r, item, p, pre, shape);
                    }))
    return;
  if (t == "ByteLevel") {
    shape.byte_level = true;
    if (r.flag(v, "add_prefix_space", true, path))
      pre.add_prefix_space();
    if (r.flag(v, "use_regex", true, path))
      pre.add_split(kGpt2SplitPattern, false, SplitBehavior::Isolated, false, path);
  } else if (t == "Split") {
    auto [pattern, literal] = pattern_of(r, v, path);
    SplitBehavior b = behavior_of(r, r.str_member(v, "behavior", path), path + ".behavior");
    pre.add_split(pattern, literal, b, r.flag(v, "invert", false, path), r.file() + ": " + path);
  } else if (t == "Digits") {
    pre.add_split(kDigitPattern, false,
                  r.flag(v, "individual_digits", false, path) ? SplitBehavior::Isolated
                                                              : SplitBehavior::Contiguous,
                  false, path);
  } else if (t == "Metaspace") {
    if (r.str_member(v, "replacement", path) != kMetaSpace)
      r.unsupported(path + ".replacement", "only U+2581 is supported");
    shape.metaspace = true;
    std::string scheme = "always";
    if (const JsonValue *s = r.opt(v, "prepend_scheme"))
      scheme = r.str(*s, path + ".prepend_scheme");
    else if (!r.flag(v, "add_prefix_space", true, path))
      scheme = "never";
    if (scheme != "always" && scheme != "first" && scheme != "never")
      r.unsupported(path + ".prepend_scheme", "'" + scheme + "' is not supported");
    shape.prefix_space = scheme != "never";
    shape.prefix_first_only = scheme == "first";
    shape.prefix_unless_space = true;
    // Metaspace's split cuts before each space; a piece never holds an
    // inner space then (our pieces spell U+2581 as ' ').
    if (r.flag(v, "split", true, path))
      pre.add_split(" ", true, SplitBehavior::MergedWithNext, false, path);
  } else {
    r.unsupported(path + ".type", "pre-tokenizer '" + t + "' is not supported "
                  "(supported: Sequence, ByteLevel, Split, Digits, Metaspace)");
  }
}

/// The Unicode normalization forms, which tokenizer.json names as ICU does.
bool normalization_form_of(const std::string &type, NormalizationForm &form) {
  for (NormalizationForm f : {NormalizationForm::NFC, NormalizationForm::NFD,
                              NormalizationForm::NFKC, NormalizationForm::NFKD})
    if (type == normalization_form_name(f)) {
      form = f;
      return true;
    }
  return false;
}

void read_normalizer(const Reader &r, const JsonValue &v, const std::string &path, Shape &shape,
                     UnicodeNormalizer &unicode) {
  const std::string &t = r.type(v, path);
  NormalizationForm form;
  if (read_sequence(r, v, t, path, "normalizers",
                    [&](const JsonValue &item, const std::string &p) {
                      read_normalizer(r, item, p, shape, unicode);
                    }))
    return;
  if (normalization_form_of(t, form)) {
    // Applied to the text before the SentencePiece space handling below,
    // whatever the order in a Sequence: no form changes ' ' or U+2581, nor
    // composes them with what follows.
    unicode.add(form, r.file() + ": " + path);
  } else if (t == "Prepend") {
    if (r.str_member(v, "prepend", path) != kMetaSpace)
      r.unsupported(path + ".prepend", "only U+2581 is supported");
    shape.prefix_space = true;
  } else if (t == "Replace") {
    auto [pattern, literal] = pattern_of(r, v, path);
    if (!literal || pattern != " " || r.str_member(v, "content", path) != kMetaSpace)
      r.unsupported(path, "only Replace(' ' -> U+2581) is supported");
    shape.metaspace = true;
  } else {
    r.unsupported(path + ".type", "normalizer '" + t + "' is not supported "
                  "(supported: null, Sequence, NFC, NFD, NFKC, NFKD, Prepend and Replace of "
                  "SentencePiece spaces)");
  }
}

void read_decoder(const Reader &r, const JsonValue &v, const std::string &path, bool byte_level) {
  const std::string &t = r.type(v, path);
  if (read_sequence(r, v, t, path, "decoders",
                    [&](const JsonValue &item, const std::string &p) {
                      read_decoder(r, item, p, byte_level);
                    }))
    return;
  bool ok = byte_level ? t == "ByteLevel"
                       : (t == "Replace" || t == "ByteFallback" || t == "Fuse" ||
                          t == "Strip" || t == "Metaspace");
  if (!ok)
    r.unsupported(path + ".type", "decoder '" + t + "' is not supported for a " +
                  (byte_level ? "byte-level" : "SentencePiece") + " model");
}

/// TemplateProcessing's single template: the special token before $A is the
/// BOS it adds, the one after is the EOS.
void read_post_processor(const Reader &r, const JsonValue &v, const std::string &path,
                         std::string &bos, std::string &eos) {
  const std::string &t = r.type(v, path);
  if (read_sequence(r, v, t, path, "processors",
                    [&](const JsonValue &item, const std::string &p) {
                      read_post_processor(r, item, p, bos, eos);
                    }))
    return;
  if (t == "ByteLevel") {
    // Offsets only: no effect on ids.
  } else if (t == "TemplateProcessing") {
    const auto &single = r.array(r.req(v, "single", path), path + ".single");
    bool seen_a = false;
    for (size_t i = 0; i < single.size(); ++i) {
      std::string p = cat(path, ".single[", i, "]");
      if (const JsonValue *s = r.opt(single[i], "SpecialToken")) {
        std::string id = r.str_member(*s, "id", p + ".SpecialToken");
        std::string &slot = seen_a ? eos : bos;
        if (!slot.empty())
          r.unsupported(p, "more than one special token on one side of $A");
        slot = id;
      } else if (r.opt(single[i], "Sequence")) {
        seen_a = true;
      } else {
        r.bad(p, "expected SpecialToken or Sequence");
      }
    }
  } else {
    r.unsupported(path + ".type", "post-processor '" + t + "' is not supported "
                  "(supported: TemplateProcessing, ByteLevel, Sequence)");
  }
}

/// bos_token / eos_token of tokenizer_config.json: a string or
/// {"content": ...} (an AddedToken).
std::string config_token(const Reader &r, const JsonValue &cfg, const char *key) {
  const JsonValue *v = r.opt(cfg, key);
  if (!v)
    return {};
  if (v->kind == JsonValue::Kind::Object)
    return r.str_member(*v, "content", key);
  return r.str(*v, key);
}

} // namespace

void load_tokenizer_hf(const std::string &path, Tokenizer &tok) {
  std::string json_path = path, config_path;
  if (is_directory(path)) {
    json_path = path + "/tokenizer.json";
    config_path = path + "/tokenizer_config.json";
    if (!path_exists(json_path))
      fail(LLMC_ERR_NOT_FOUND, path, ": the model directory has no tokenizer.json "
           "(llmc reads Hugging Face tokenizer.json files, not tokenizer.model)");
    if (!path_exists(config_path))
      config_path.clear();
  }
  Reader r(json_path);
  JsonValue root = parse_json(read_text(json_path), json_path);
  if (root.kind != JsonValue::Kind::Object)
    r.bad("(root)", "expected an object");

  const JsonValue &model = r.req(root, "model", "(root)");
  std::string mtype = r.type(model, "model");
  if (mtype != "BPE")
    r.unsupported("model.type", "model '" + mtype + "' is not supported (supported: BPE)");
  if (r.opt(model, "dropout"))
    r.unsupported("model.dropout", "BPE dropout is not supported");
  for (const char *k : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (const JsonValue *v = r.opt(model, k); v && !r.str(*v, cat("model.", k)).empty())
      r.unsupported(cat("model.", k), "'" + v->text + "' is not supported (only null or \"\")");
  bool byte_fallback = r.flag(model, "byte_fallback", false, "model");

  TokenizerSpec spec;
  spec.origin = json_path;
  Shape shape;
  if (const JsonValue *n = r.opt(root, "normalizer"))
    read_normalizer(r, *n, "normalizer", shape, spec.normalizer);
  if (const JsonValue *p = r.opt(root, "pre_tokenizer"))
    read_pre_tokenizer(r, *p, "pre_tokenizer", spec.pre, shape);
  if (shape.byte_level == shape.metaspace)
    r.unsupported("(root)", shape.byte_level
        ? "both a ByteLevel pre-tokenizer and SentencePiece spaces"
        : "neither a ByteLevel pre-tokenizer nor SentencePiece spaces (U+2581): "
          "this kind of BPE is not supported");
  spec.model = shape.byte_level ? TokenizerModel::ByteLevel : TokenizerModel::SentencePieceRanks;
  spec.add_space_prefix = shape.prefix_space;
  spec.prefix_first_only = shape.prefix_first_only;
  spec.prefix_unless_space = shape.prefix_unless_space;
  spec.ignore_merges = r.flag(model, "ignore_merges", false, "model");
  spec.byte_fallback = byte_fallback;
  spec.fuse_unk = r.flag(model, "fuse_unk", false, "model");
  if (const JsonValue *d = r.opt(root, "decoder"))
    read_decoder(r, *d, "decoder", shape.byte_level);

  // Vocabulary: model.vocab plus added_tokens (which may sit inside it).
  const JsonValue &vocab = r.req(model, "vocab", "model");
  if (vocab.kind != JsonValue::Kind::Object)
    r.bad("model.vocab", "expected an object");
  uint64_t size = 0;
  std::vector<std::pair<uint64_t, const std::string *>> ids;
  ids.reserve(vocab.members.size());
  for (const auto &[text, idv] : vocab.members) {
    uint64_t id = r.token_id(idv, "model.vocab['" + text + "']");
    ids.emplace_back(id, &text);
    size = std::max(size, id + 1);
  }
  struct Added {
    uint64_t id;
    std::string content;
    bool special;
  };
  std::vector<Added> added;
  if (const JsonValue *a = r.opt(root, "added_tokens")) {
    const auto &items = r.array(*a, "added_tokens");
    for (size_t i = 0; i < items.size(); ++i) {
      std::string p = cat("added_tokens[", i, "]");
      for (const char *k : {"lstrip", "rstrip", "single_word"})
        if (r.flag(items[i], k, false, p))
          r.unsupported(p + "." + k, "true is not supported");
      Added t{r.token_id(r.req(items[i], "id", p), p + ".id"), r.str_member(items[i], "content", p),
              r.flag(items[i], "special", false, p)};
      size = std::max(size, t.id + 1);
      added.push_back(std::move(t));
    }
  }
  if (size == 0) // ids are below INT32_MAX (token_id), so size fits an int32
    r.bad("model.vocab", cat("vocabulary size ", size, " is not usable"));
  // Contiguous ids of n tokens lie below n. Checked before the vocabulary is
  // sized by the largest id: one id near 2^31 in a small file would allocate
  // hundreds of GB. Some id below n is then missing; the first is named.
  size_t n_tokens = ids.size() + added.size();
  if (size > n_tokens) {
    std::vector<bool> present(n_tokens, false);
    for (const auto &entry : ids)
      if (entry.first < n_tokens)
        present[entry.first] = true;
    for (const Added &a : added)
      if (a.id < n_tokens)
        present[a.id] = true;
    size_t missing = std::find(present.begin(), present.end(), false) - present.begin();
    r.bad("model.vocab", cat("no token has id ", missing, " (ids must be contiguous)"));
  }
  spec.vocab.resize(size);
  std::vector<bool> filled(size, false);
  auto place = [&](uint64_t id, const std::string &text, TokenKind kind, const std::string &p) {
    if (filled[id] && spec.vocab[id].text != text)
      r.bad(p, cat("id ", id, " is both '", spec.vocab[id].text, "' and '", text, "'"));
    filled[id] = true;
    VocabEntry &e = spec.vocab[id];
    e.text = text;
    e.kind = kind;
  };
  for (auto &[id, text] : ids)
    place(id, *text, TokenKind::Normal, "model.vocab['" + *text + "']");
  for (const Added &a : added)
    place(a.id, a.content, a.special ? TokenKind::Control : TokenKind::UserDefined, "added_tokens");
  for (uint64_t id = 0; id < size; ++id)
    if (!filled[id])
      r.bad("model.vocab", cat("no token has id ", id, " (ids must be contiguous)"));

  // Pieces: the bytes each token stands for.
  for (uint64_t id = 0; id < size; ++id) {
    VocabEntry &e = spec.vocab[id];
    if (e.kind != TokenKind::Normal) {
      e.piece = e.text;
    } else if (shape.byte_level) {
      if (!byte_level_decode(e.text, e.piece))
        r.bad(cat("model.vocab['", e.text, "']"), "not spelled in the byte-level alphabet");
    } else if (byte_fallback && parse_byte_piece(e.text, &e.byte)) {
      e.kind = TokenKind::Byte;
      e.piece = e.text;
    } else {
      for (size_t i = 0; i < e.text.size();) {
        if (e.text.compare(i, kMetaSpace.size(), kMetaSpace) == 0) {
          e.piece.push_back(' ');
          i += kMetaSpace.size();
        } else {
          e.piece.push_back(e.text[i++]);
        }
      }
    }
  }
  if (const JsonValue *u = r.opt(model, "unk_token")) {
    std::string unk = r.str(*u, "model.unk_token");
    auto it = std::find_if(spec.vocab.begin(), spec.vocab.end(),
                           [&](const VocabEntry &e) { return e.text == unk; });
    if (it == spec.vocab.end())
      r.bad("model.unk_token", "'" + unk + "' is not in the vocabulary");
    spec.unk = static_cast<int32_t>(it - spec.vocab.begin());
    if (it->kind == TokenKind::Normal)
      it->kind = TokenKind::Unknown;
  }

  // Merges: "a b" strings (older files) or ["a", "b"] pairs (tokenizers >= 0.20).
  MergeResolver resolve(spec.vocab, json_path + ": model.merges");
  if (const JsonValue *m = r.opt(model, "merges")) {
    const auto &items = r.array(*m, "model.merges");
    spec.merges.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      const JsonValue &it = items[i];
      if (it.kind == JsonValue::Kind::String) {
        spec.merges.push_back(resolve.from_string(it.text, i));
      } else {
        const auto &pair = r.array(it, cat("model.merges[", i, "]"));
        if (pair.size() != 2)
          r.bad(cat("model.merges[", i, "]"), "expected two tokens");
        spec.merges.push_back(resolve.from_pair(r.str(pair[0], cat("model.merges[", i, "][0]")),
                                                r.str(pair[1], cat("model.merges[", i, "][1]")), i));
      }
    }
  }

  auto id_of = [&](const std::string &text, const std::string &where) -> int32_t {
    for (size_t id = 0; id < spec.vocab.size(); ++id)
      if (spec.vocab[id].text == text)
        return static_cast<int32_t>(id);
    fail(LLMC_ERR_FORMAT, where, ": '", text, "' is not in the vocabulary");
  };
  std::string post_bos, post_eos;
  if (const JsonValue *p = r.opt(root, "post_processor"))
    read_post_processor(r, *p, "post_processor", post_bos, post_eos);
  if (!post_bos.empty())
    spec.bos = id_of(post_bos, json_path + ": post_processor");
  if (!post_eos.empty())
    spec.eos = id_of(post_eos, json_path + ": post_processor");
  spec.add_bos = !post_bos.empty();
  spec.add_eos = !post_eos.empty();

  if (!config_path.empty()) {
    Reader c(config_path);
    JsonValue cfg = parse_json(read_text(config_path), config_path);
    if (cfg.kind != JsonValue::Kind::Object)
      c.bad("(root)", "expected an object");
    std::string bos = config_token(c, cfg, "bos_token");
    std::string eos = config_token(c, cfg, "eos_token");
    if (!bos.empty()) {
      int32_t id = id_of(bos, config_path + ": bos_token");
      if (!post_bos.empty() && id != spec.bos)
        c.bad("bos_token", "'" + bos + "' contradicts the BOS '" + post_bos +
              "' that tokenizer.json's post_processor adds");
      spec.bos = id;
    }
    if (!eos.empty())
      spec.eos = id_of(eos, config_path + ": eos_token");
    spec.add_bos = c.flag(cfg, "add_bos_token", spec.add_bos, "(root)");
    spec.add_eos = c.flag(cfg, "add_eos_token", spec.add_eos, "(root)");
    if (spec.add_bos && spec.bos < 0)
      c.bad("add_bos_token", "true, but neither bos_token nor tokenizer.json's "
            "post_processor names a BOS token");
    if (spec.add_eos && spec.eos < 0)
      c.bad("add_eos_token", "true, but neither eos_token nor tokenizer.json's "
            "post_processor names an EOS token");
  }
  tok.init(std::move(spec));
}

} // namespace llmc::rt
