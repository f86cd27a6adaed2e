// llmc-runtime-test: subcommands that exercise the runtime's C API for the lit tests.
//
// Every subcommand prints results on stdout; any failing API call prints
// "error: <STATUS>: <message>" on stderr and exits 1, so lit tests check
// error paths with `not llmc-runtime-test ... 2>&1 | FileCheck`.
#include "llmc/runtime.h"
// Internal: the f32 -> f16/bf16 rounding the weight binding uses, the CUDA
// image ranking and the scratch arena (pure logic, no driver).
#include "cpu_wait_policy.h"
#include "cuda_image_select.h"
#include "cuda_scratch.h"
#include "device_sampling.h"
#include "error.h"
#include "half.h"
#include "huge_page_arena.h"
#include "json_lite.h"
#include "parallel_chunks.h"
#include "quant/interleave.h"
#include "sampler.h"
#include "weight_binding.h"
#include "weight_set.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include <sys/resource.h>
#include <sys/stat.h>

extern "C" int llmc_test_header_is_c(void);

namespace {

[[noreturn]] void die_status(llmc_status st) {
  std::fprintf(stderr, "error: %s: %s\n", llmc_status_name(st), llmc_last_error());
  std::exit(1);
}

void check(llmc_status st) {
  if (st != LLMC_OK)
    die_status(st);
}

[[noreturn]] void die(const std::string &msg) {
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  std::exit(1);
}

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const char *dtype_name(llmc_dtype d) { return llmc_dtype_name(d); }

const char *format_name(llmc_weights_format f) {
  switch (f) {
  case LLMC_WEIGHTS_GGUF: return "gguf";
  case LLMC_WEIGHTS_SAFETENSORS: return "safetensors";
  case LLMC_WEIGHTS_LLAMA2C: return "llama2c";
  case LLMC_WEIGHTS_AUTO: return "auto";
  case LLMC_WEIGHTS_RANDOM: return "random";
  }
  return "?";
}

llmc_weights_format parse_format(const std::string &s) {
  if (s == "gguf") return LLMC_WEIGHTS_GGUF;
  if (s == "safetensors") return LLMC_WEIGHTS_SAFETENSORS;
  if (s == "llama2c") return LLMC_WEIGHTS_LLAMA2C;
  if (s == "auto") return LLMC_WEIGHTS_AUTO;
  if (s == "random") return LLMC_WEIGHTS_RANDOM; // not a file format: an error
  die("unknown format '" + s + "'");
}

/// RAII owners so early exits in checks do not matter.
struct Weights {
  llmc_weights *w = nullptr;
  Weights() = default;
  explicit Weights(const std::string &path,
                   llmc_weights_format f = LLMC_WEIGHTS_AUTO) {
    check(llmc_weights_open(path.c_str(), f, &w));
  }
  ~Weights() { llmc_weights_destroy(w); }
};

struct Tokenizer {
  llmc_tokenizer *t = nullptr;
  /// A .gguf path loads the vocabulary from metadata (through the weights,
  /// as llmc-run does); a .json file or a directory is a Hugging Face
  /// tokenizer; anything else is a llama2.c tokenizer file.
  explicit Tokenizer(const std::string &path) {
    struct stat st;
    bool dir = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    if (ends_with(path, ".gguf")) {
      Weights w(path);
      check(llmc_tokenizer_from_weights(w.w, &t));
    } else if (dir || ends_with(path, ".json")) {
      check(llmc_tokenizer_load(path.c_str(), &t));
    } else {
      check(llmc_tokenizer_load_llama2c(path.c_str(), 0, &t));
    }
  }
  ~Tokenizer() { llmc_tokenizer_destroy(t); }
};

std::string shape_string(const llmc_tensor_info &info) {
  std::string s = "[";
  for (int d = 0; d < info.n_dims; ++d)
    s += (d ? "," : "") + std::to_string(info.shape[d]);
  return s + "]";
}

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    die("cannot read " + path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::vector<int32_t> read_tokens(const std::string &path) {
  std::istringstream in(read_file(path));
  std::vector<int32_t> ids;
  long long v;
  while (in >> v)
    ids.push_back(static_cast<int32_t>(v));
  return ids;
}

std::string meta_value_string(llmc_weights *w, const char *key) {
  llmc_meta_type type, elem;
  uint64_t len;
  check(llmc_weights_meta_type(w, key, &type, &elem, &len));
  char buf[64];
  switch (type) {
  case LLMC_META_STRING: {
    const char *s;
    size_t n;
    check(llmc_weights_meta_string(w, key, &s, &n));
    return "\"" + std::string(s, n) + "\"";
  }
  case LLMC_META_FLOAT32:
  case LLMC_META_FLOAT64: {
    double v;
    check(llmc_weights_meta_float(w, key, &v));
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
  }
  case LLMC_META_UINT64: {
    int64_t v;
    llmc_status st = llmc_weights_meta_int(w, key, &v);
    if (st == LLMC_ERR_OUT_OF_RANGE)
      return "(uint64 above int64 range)";
    check(st);
    return std::to_string(v);
  }
  case LLMC_META_ARRAY: {
    std::string s = "array[" + std::to_string(len) + "]";
    uint64_t show = len < 4 ? len : 4;
    for (uint64_t i = 0; i < show; ++i) {
      s += i ? ", " : " ";
      if (elem == LLMC_META_STRING) {
        const char *p;
        size_t n;
        check(llmc_weights_meta_array_string(w, key, i, &p, &n));
        s += "\"" + std::string(p, n) + "\"";
      } else if (elem == LLMC_META_FLOAT32 || elem == LLMC_META_FLOAT64) {
        double v;
        check(llmc_weights_meta_array_float(w, key, i, &v));
        std::snprintf(buf, sizeof buf, "%.9g", v);
        s += buf;
      } else if (elem == LLMC_META_ARRAY) {
        s += "array";
      } else {
        int64_t v;
        check(llmc_weights_meta_array_int(w, key, i, &v));
        s += std::to_string(v);
      }
    }
    return s;
  }
  default: {
    int64_t v;
    check(llmc_weights_meta_int(w, key, &v));
    return std::to_string(v);
  }
  }
}

const char *meta_type_name(llmc_meta_type t) {
  static const char *const kNames[] = {"u8",   "i8",     "u16",   "i16", "u32",
                                       "i32",  "f32",    "bool",  "str", "arr",
                                       "u64",  "i64",    "f64"};
  return t <= LLMC_META_FLOAT64 ? kNames[t] : "?";
}

// --- weights ---------------------------------------------------------------

/// Prints format, tensors and metadata; also checks that the zero-copy /
/// cached f32 view and the caller-buffer copy agree for every tensor.
int cmd_info(const std::vector<std::string> &args) {
  if (args.empty())
    die("usage: info <path> [format]");
  Weights w(args[0], args.size() > 1 ? parse_format(args[1]) : LLMC_WEIGHTS_AUTO);
  std::printf("format: %s\n", format_name(llmc_weights_get_format(w.w)));
  std::printf("rope: %s\n", llmc_weights_rope_layout(w.w) == LLMC_ROPE_HALF
                                 ? "half" : "interleaved");
  size_t n = llmc_weights_tensor_count(w.w);
  std::printf("tensors: %zu\n", n);
  for (size_t i = 0; i < n; ++i) {
    llmc_tensor_info info;
    check(llmc_weights_tensor_info(w.w, i, &info));
    std::printf("tensor %s (%s) %s %s %llu\n", info.name, info.source_name,
                shape_string(info).c_str(), dtype_name(info.dtype),
                static_cast<unsigned long long>(info.n_bytes));
    const float *view;
    size_t count;
    check(llmc_weights_tensor_f32(w.w, info.name, &view, &count));
    std::vector<float> copy(count);
    check(llmc_weights_copy_f32(w.w, info.source_name, copy.data(), count, &count));
    if (count != static_cast<size_t>(info.n_elements) ||
        (count && std::memcmp(view, copy.data(), count * sizeof(float)) != 0))
      die(std::string("f32 view and copy differ for ") + info.name);
  }
  size_t m = llmc_weights_meta_count(w.w);
  std::printf("metadata: %zu\n", m);
  for (size_t i = 0; i < m; ++i) {
    const char *key;
    check(llmc_weights_meta_key(w.w, i, &key));
    llmc_meta_type type, elem;
    check(llmc_weights_meta_type(w.w, key, &type, &elem, nullptr));
    std::string t = meta_type_name(type);
    if (type == LLMC_META_ARRAY)
      t += std::string("<") + meta_type_name(elem) + ">";
    std::printf("meta %s %s = %s\n", key, t.c_str(), meta_value_string(w.w, key).c_str());
  }
  return 0;
}

/// Prints a tensor's f32 values, space-separated, "%.9g" (round-trip exact).
int cmd_dump(const std::vector<std::string> &args) {
  if (args.size() < 2)
    die("usage: dump <path> <tensor>...");
  Weights w(args[0]);
  for (size_t k = 1; k < args.size(); ++k) {
    const float *data;
    size_t n;
    check(llmc_weights_tensor_f32(w.w, args[k].c_str(), &data, &n));
    std::printf("%s:", args[k].c_str());
    for (size_t i = 0; i < n; ++i)
      std::printf(" %.9g", data[i]);
    std::printf("\n");
  }
  return 0;
}

/// Writes tensors' f32 values (as the runtime loads them) to one raw
/// little-endian file and prints one index line per tensor: "tensor <source
/// name> <dtype> <elements> <offset in elements>". Every tensor in file
/// order, or the named ones. Binary because bit-exact comparisons of whole
/// models through text are slow.
int cmd_dump_f32(const std::vector<std::string> &args) {
  if (args.size() < 2)
    die("usage: dump-f32 <path> <out.bin> [tensor...]");
  Weights w(args[0]);
  std::vector<size_t> order;
  if (args.size() == 2) {
    for (size_t i = 0; i < llmc_weights_tensor_count(w.w); ++i)
      order.push_back(i);
  } else {
    for (size_t k = 2; k < args.size(); ++k) {
      size_t i;
      check(llmc_weights_find(w.w, args[k].c_str(), &i));
      order.push_back(i);
    }
  }
  FILE *out = std::fopen(args[1].c_str(), "wb");
  if (!out)
    die("cannot write " + args[1]);
  uint64_t offset = 0;
  for (size_t i : order) {
    llmc_tensor_info info;
    check(llmc_weights_tensor_info(w.w, i, &info));
    const float *data;
    size_t count;
    check(llmc_weights_tensor_f32(w.w, info.source_name, &data, &count));
    if (count && std::fwrite(data, sizeof(float), count, out) != count)
      die("short write to " + args[1]);
    std::printf("tensor %s %s %zu %llu\n", info.source_name, dtype_name(info.dtype), count,
                static_cast<unsigned long long>(offset));
    offset += count;
  }
  if (std::fclose(out) != 0)
    die("cannot write " + args[1]);
  return 0;
}

/// llama.cpp's convert script permutes Q/K rows of HF checkpoints so that
/// interleaved RoPE equals HF's half rotation: within each head, row
/// j*(Dh/2) + i moves to i*2 + j.
bool equals_permuted(const float *a, const float *b, int64_t rows, int64_t cols,
                     int64_t heads) {
  if (heads <= 0 || rows % heads != 0 || (rows / heads) % 2 != 0)
    return false;
  int64_t dh = rows / heads;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < dh / 2; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        const float *src = a + (h * dh + j * (dh / 2) + i) * cols;
        const float *dst = b + (h * dh + i * 2 + j) * cols;
        if (std::memcmp(src, dst, cols * sizeof(float)) != 0)
          return false;
      }
  return true;
}

/// Compares every tensor of A with the tensor of the same canonical name in
/// B, bit for bit; reports those present on one side only.
int cmd_compare(const std::vector<std::string> &args) {
  if (args.size() != 2)
    die("usage: compare <a> <b>");
  Weights a(args[0]), b(args[1]);
  int64_t heads = 0, kv_heads = 0;
  llmc_weights_meta_int(a.w, "llama.attention.head_count", &heads);
  llmc_weights_meta_int(a.w, "llama.attention.head_count_kv", &kv_heads);
  size_t identical = 0, differ = 0, only_a = 0;
  size_t n = llmc_weights_tensor_count(a.w);
  std::map<std::string, bool> seen;
  for (size_t i = 0; i < n; ++i) {
    llmc_tensor_info ia, ib;
    check(llmc_weights_tensor_info(a.w, i, &ia));
    size_t j;
    if (llmc_weights_find(b.w, ia.name, &j) != LLMC_OK) {
      // A classifier tied to the embedding is stored once by llama2.c but
      // twice by some GGUF writers: say whether the copy is exact.
      const char *tied = "";
      size_t e;
      if (std::strcmp(ia.name, "lm_head.weight") == 0 &&
          llmc_weights_find(b.w, "model.embed_tokens.weight", &e) == LLMC_OK) {
        const float *da, *db;
        size_t na, nb;
        check(llmc_weights_tensor_f32(a.w, ia.name, &da, &na));
        check(llmc_weights_tensor_f32(b.w, "model.embed_tokens.weight", &db, &nb));
        tied = na == nb && std::memcmp(da, db, na * sizeof(float)) == 0
                   ? " (identical to B's tied model.embed_tokens.weight)"
                   : " (differs from B's model.embed_tokens.weight)";
      }
      std::printf("only-in-a %s%s\n", ia.name, tied);
      ++only_a;
      continue;
    }
    check(llmc_weights_tensor_info(b.w, j, &ib));
    seen[ib.name] = true;
    if (shape_string(ia) != shape_string(ib)) {
      std::printf("shape-differs %s %s vs %s\n", ia.name, shape_string(ia).c_str(),
                  shape_string(ib).c_str());
      ++differ;
      continue;
    }
    const float *da, *db;
    size_t count;
    check(llmc_weights_tensor_f32(a.w, ia.name, &da, &count));
    check(llmc_weights_tensor_f32(b.w, ib.name, &db, &count));
    if (std::memcmp(da, db, count * sizeof(float)) == 0) {
      ++identical;
      continue;
    }
    ++differ;
    bool is_q = std::strstr(ia.name, "q_proj") != nullptr;
    bool is_k = std::strstr(ia.name, "k_proj") != nullptr;
    const char *why = "";
    if ((is_q || is_k) && ia.n_dims == 2) {
      int64_t h = is_q ? heads : kv_heads;
      if (equals_permuted(da, db, ia.shape[0], ia.shape[1], h))
        why = " (B = A with the GGUF Q/K row permutation)";
      else if (equals_permuted(db, da, ia.shape[0], ia.shape[1], h))
        why = " (A = B with the GGUF Q/K row permutation)";
    }
    std::printf("differs %s%s\n", ia.name, why);
  }
  size_t only_b = 0;
  for (size_t j = 0, m = llmc_weights_tensor_count(b.w); j < m; ++j) {
    llmc_tensor_info ib;
    check(llmc_weights_tensor_info(b.w, j, &ib));
    if (!seen.count(ib.name)) {
      std::printf("only-in-b %s\n", ib.name);
      ++only_b;
    }
  }
  std::printf("compared %zu, identical %zu, differ %zu, only-in-a %zu, only-in-b %zu\n",
              identical + differ, identical, differ, only_a, only_b);
  return differ == 0 ? 0 : 1;
}

/// Opens weights and stops: the error paths' entry point.
int cmd_open(const std::vector<std::string> &args) {
  if (args.empty())
    die("usage: open <path> [format]");
  Weights w(args[0], args.size() > 1 ? parse_format(args[1]) : LLMC_WEIGHTS_AUTO);
  std::printf("ok: %zu tensors\n", llmc_weights_tensor_count(w.w));
  return 0;
}

int cmd_meta(const std::vector<std::string> &args) {
  if (args.size() != 2)
    die("usage: meta <path> <key>");
  Weights w(args[0]);
  std::printf("%s = %s\n", args[1].c_str(), meta_value_string(w.w, args[1].c_str()).c_str());
  return 0;
}

// --- tokenizer -------------------------------------------------------------

int cmd_tok_info(const std::vector<std::string> &args) {
  if (args.size() != 1)
    die("usage: tok-info <tokenizer>");
  Tokenizer t(args[0]);
  std::printf("vocab %d bos %d eos %d\n", llmc_tokenizer_vocab_size(t.t),
              llmc_tokenizer_bos_id(t.t), llmc_tokenizer_eos_id(t.t));
  return 0;
}

/// Decodes a whitespace-separated token-id file into `out` (raw bytes).
int cmd_tok_decode(const std::vector<std::string> &args) {
  if (args.size() != 3)
    die("usage: tok-decode <tokenizer> <ids-file> <out-file>");
  Tokenizer t(args[0]);
  std::vector<int32_t> ids = read_tokens(args[1]);
  size_t len = 0;
  llmc_status st = llmc_tokenizer_decode_all(t.t, ids.data(), ids.size(), nullptr, 0, &len);
  if (st != LLMC_OK && st != LLMC_ERR_BUFFER_TOO_SMALL)
    die_status(st);
  std::string out(len, '\0');
  check(llmc_tokenizer_decode_all(t.t, ids.data(), ids.size(), out.data(), out.size(), &len));
  // Piecewise decode must agree with decode_all.
  std::string pieces;
  for (size_t i = 0; i < ids.size(); ++i) {
    const char *p;
    size_t n;
    check(llmc_tokenizer_decode(t.t, i ? ids[i - 1] : -1, ids[i], &p, &n));
    pieces.append(p, n);
  }
  if (pieces != out)
    die("decode and decode_all disagree");
  std::ofstream f(args[2], std::ios::binary);
  f.write(out.data(), static_cast<std::streamsize>(out.size()));
  std::printf("decoded %zu tokens into %zu bytes\n", ids.size(), out.size());
  return 0;
}

/// `growth`: how many times longer the tokenizer's Unicode normalizer may
/// make the text (runtime.h: the token bound counts normalized bytes).
std::vector<int32_t> encode(llmc_tokenizer *t, const std::string &text, uint32_t flags,
                            size_t growth = 1) {
  size_t n = 0;
  llmc_status st = llmc_tokenizer_encode(t, text.data(), text.size(), flags, nullptr, 0, &n);
  if (st != LLMC_OK && st != LLMC_ERR_BUFFER_TOO_SMALL)
    die_status(st);
  if (n > 2 * growth * text.size() + 3)
    die(growth == 1 ? std::string("encode produced more than 2 * len + 3 tokens")
                    : "encode produced more than 2 * " + std::to_string(growth) + " * len + 3 tokens");
  std::vector<int32_t> ids(n);
  check(llmc_tokenizer_encode(t, text.data(), text.size(), flags, ids.data(), ids.size(), &n));
  return ids;
}

/// The C++ escapes \n, \t, \\ and \xHH in command-line text, so lit RUN
/// lines can pass newlines and arbitrary bytes.
std::string unescape(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    if (c == 'n') out += '\n';
    else if (c == 't') out += '\t';
    else if (c == 'x' && i + 2 < s.size() + 0) {
      out += static_cast<char>(std::strtol(s.substr(i + 1, 2).c_str(), nullptr, 16));
      i += 2;
    } else out += c;
  }
  return out;
}

/// Prints the ids of `text`; flags: --bos, --no-prefix, --plain-special,
/// --defaults (the file's BOS/EOS), --eos.
int cmd_tok_encode(const std::vector<std::string> &args) {
  if (args.size() < 2)
    die("usage: tok-encode <tokenizer> <text> [--bos] [--no-prefix] [--plain-special] "
        "[--defaults] [--eos]");
  Tokenizer t(args[0]);
  uint32_t flags = 0;
  for (size_t i = 2; i < args.size(); ++i) {
    if (args[i] == "--bos") flags |= LLMC_ENCODE_ADD_BOS;
    else if (args[i] == "--no-prefix") flags |= LLMC_ENCODE_NO_SPACE_PREFIX;
    else if (args[i] == "--plain-special") flags |= LLMC_ENCODE_PLAIN_SPECIAL;
    else if (args[i] == "--defaults") flags |= LLMC_ENCODE_FILE_DEFAULTS;
    else if (args[i] == "--eos") flags |= LLMC_ENCODE_ADD_EOS;
    else die("unknown flag " + args[i]);
  }
  std::vector<int32_t> ids = encode(t.t, unescape(args[1]), flags);
  std::printf("ids:");
  for (int32_t id : ids)
    std::printf(" %d", id);
  std::printf("\n");
  return 0;
}

/// encode(text, BOS) then decode must give back the text, byte for byte.
int cmd_tok_roundtrip(const std::vector<std::string> &args) {
  if (args.size() < 2)
    die("usage: tok-roundtrip <tokenizer> <text>...");
  Tokenizer t(args[0]);
  int failures = 0;
  for (size_t k = 1; k < args.size(); ++k) {
    std::string text = unescape(args[k]);
    std::vector<int32_t> ids = encode(t.t, text, LLMC_ENCODE_ADD_BOS);
    size_t len = 0;
    llmc_status st = llmc_tokenizer_decode_all(t.t, ids.data(), ids.size(), nullptr, 0, &len);
    if (st != LLMC_OK && st != LLMC_ERR_BUFFER_TOO_SMALL)
      die_status(st);
    std::string back(len, '\0');
    check(llmc_tokenizer_decode_all(t.t, ids.data(), ids.size(), back.data(), len, &len));
    bool ok = back == text;
    failures += !ok;
    std::printf("%s %zu tokens: %s\n", ok ? "roundtrip-ok" : "ROUNDTRIP-FAIL",
                ids.size(), args[k].c_str());
  }
  return failures ? 1 : 0;
}

/// Encodes the text file with BOS and compares with the id file: prints how
/// many leading ids agree and whether the sequences are equal.
int cmd_tok_match(const std::vector<std::string> &args) {
  if (args.size() != 3)
    die("usage: tok-match <tokenizer> <text-file> <ids-file>");
  Tokenizer t(args[0]);
  std::string text = read_file(args[1]);
  std::vector<int32_t> want = read_tokens(args[2]);
  std::vector<int32_t> got = encode(t.t, text, LLMC_ENCODE_ADD_BOS);
  size_t same = 0;
  while (same < got.size() && same < want.size() && got[same] == want[same])
    ++same;
  std::printf("encoded %zu tokens, reference %zu, common prefix %zu, %s\n",
              got.size(), want.size(), same,
              got == want ? "identical" : "different");
  std::printf("encoded-after-prefix:");
  for (size_t i = same; i < got.size(); ++i)
    std::printf(" %d", got[i]);
  std::printf("\nreference-after-prefix:");
  for (size_t i = same; i < want.size(); ++i)
    std::printf(" %d", want[i]);
  std::printf("\n");
  return 0;
}

std::string from_hex(const std::string &hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::strtol(hex.substr(i, 2).c_str(), nullptr, 16));
  return out;
}

std::vector<int32_t> parse_ids(const std::string &s) {
  std::istringstream in(s);
  std::vector<int32_t> ids;
  long long v;
  while (in >> v)
    ids.push_back(static_cast<int32_t>(v));
  return ids;
}

std::string ids_string(const std::vector<int32_t> &ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i)
    s += (i ? " " : "") + std::to_string(ids[i]);
  return s;
}

std::vector<std::string> split_tabs(const std::string &line) {
  std::vector<std::string> f;
  size_t at = 0;
  while (true) {
    size_t t = line.find('\t', at);
    f.push_back(line.substr(at, t == std::string::npos ? std::string::npos : t - at));
    if (t == std::string::npos)
      break;
    at = t + 1;
  }
  return f;
}

std::string decode_all(llmc_tokenizer *t, const std::vector<int32_t> &ids) {
  size_t len = 0;
  llmc_status st = llmc_tokenizer_decode_all(t, ids.data(), ids.size(), nullptr, 0, &len);
  if (st != LLMC_OK && st != LLMC_ERR_BUFFER_TOO_SMALL)
    die_status(st);
  std::string out(len, '\0');
  check(llmc_tokenizer_decode_all(t, ids.data(), ids.size(), out.data(), out.size(), &len));
  return out;
}

/// Streams `ids` through a detokenizer: the concatenation must equal
/// decode_all and no chunk may end inside a UTF-8 character.
std::string stream_decode(llmc_tokenizer *t, const std::vector<int32_t> &ids, bool *split_char,
                          size_t *held_back) {
  llmc_detokenizer *d = nullptr;
  check(llmc_detokenizer_create(t, &d));
  std::string out;
  *split_char = false;
  // A chunk whose last character is cut short would print as garbage: walk
  // the chunk by lead-byte lengths and flag one that runs past its end.
  auto take = [&](const char *p, size_t n) {
    for (size_t i = 0; i < n;) {
      unsigned char c = static_cast<unsigned char>(p[i]);
      size_t need = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
      if (i + need > n)
        *split_char = true;
      i += need;
    }
    out.append(p, n);
  };
  size_t pieces = 0; // bytes of the plain per-token pieces so far
  for (size_t i = 0; i < ids.size(); ++i) {
    const char *p;
    size_t n;
    check(llmc_tokenizer_decode(t, i ? ids[i - 1] : -1, ids[i], &p, &n));
    pieces += n;
    check(llmc_detokenizer_push(d, ids[i], &p, &n));
    take(p, n);
    *held_back += out.size() < pieces;
  }
  const char *p;
  size_t n;
  check(llmc_detokenizer_flush(d, &p, &n));
  out.append(p, n);
  llmc_detokenizer_destroy(d);
  return out;
}

/// What a chat front end asks a tokenizer: the file's BOS/EOS defaults, the
/// end-of-generation ids, and for each text its id, kind and spelling back.
int cmd_tok_special(const std::vector<std::string> &args) {
  if (args.empty())
    die("usage: tok-special <tokenizer> [token-text]...");
  Tokenizer t(args[0]);
  size_t n = llmc_tokenizer_end_of_generation(t.t, nullptr, 0);
  std::vector<int32_t> eog(n);
  llmc_tokenizer_end_of_generation(t.t, eog.data(), eog.size());
  std::printf("adds-bos %d adds-eos %d end-of-generation:", llmc_tokenizer_adds_bos(t.t),
              llmc_tokenizer_adds_eos(t.t));
  for (int32_t id : eog)
    std::printf(" %d", id);
  std::printf("\n");
  static const char *const kKinds[] = {"?", "normal", "unknown", "control",
                                       "user-defined", "unused", "byte"};
  for (size_t i = 1; i < args.size(); ++i) {
    std::string text = unescape(args[i]);
    int32_t id = llmc_tokenizer_find_token(t.t, text.data(), text.size());
    if (id < 0) {
      std::printf("'%s': absent\n", args[i].c_str());
      continue;
    }
    llmc_token_kind kind;
    check(llmc_tokenizer_token_kind(t.t, id, &kind));
    const char *p;
    size_t len;
    check(llmc_tokenizer_token_text(t.t, id, &p, &len));
    std::printf("'%s': id %d kind %s text-matches %d\n", args[i].c_str(), id,
                kind >= 1 && kind <= 6 ? kKinds[kind] : "?", std::string(p, len) == text);
  }
  return 0;
}

/// Compares encode and decode with a golden file written by
/// Inputs/tokenizer_goldens.py (the HF tokenizers oracle); see that file
/// for the line format. Prints every mismatch and a summary.
int cmd_tok_golden(const std::vector<std::string> &args) {
  // --growth=N: the tokenizer normalizes (NFD triples Hangul syllables).
  size_t growth = 1;
  if (args.size() == 3 && args[2].rfind("--growth=", 0) == 0 &&
      args[2].find_first_not_of("0123456789", 9) == std::string::npos && args[2].size() > 9)
    growth = std::stoul(args[2].substr(9));
  else if (args.size() != 2)
    die("usage: tok-golden <tokenizer> <golden-file> [--growth=N]");
  llmc_tokenizer *t = nullptr;
  if (ends_with(args[0], ".gguf") || ends_with(args[0], ".json")) {
    check(llmc_tokenizer_load(args[0].c_str(), &t));
  } else {
    Tokenizer owned(args[0]);
    t = owned.t;
    owned.t = nullptr;
  }
  std::istringstream in(read_file(args[1]));
  std::string line;
  size_t strings = 0, checks = 0, mismatches = 0, held_back = 0;
  auto mismatch = [&](const char *what, const std::string &text, const std::string &want,
                      const std::string &got) {
    ++mismatches;
    std::printf("MISMATCH %s for %s\n  want: %s\n  got:  %s\n", what, text.c_str(),
                want.c_str(), got.c_str());
  };
  auto hex = [](const std::string &s) {
    static const char *d = "0123456789abcdef";
    std::string h;
    for (unsigned char c : s) {
      h += d[c >> 4];
      h += d[c & 15];
    }
    return h;
  };
  while (std::getline(in, line)) {
    std::vector<std::string> f = split_tabs(line);
    if (f.size() == 3 && f[0] == "+bos") {
      std::string text = from_hex(f[1]);
      std::vector<int32_t> got = encode(t, text, LLMC_ENCODE_FILE_DEFAULTS, growth);
      ++checks;
      if (got != parse_ids(f[2]))
        mismatch("file-defaults ids", f[1], f[2], ids_string(got));
      continue;
    }
    if (f.size() != 4)
      die("bad golden line: " + line);
    ++strings;
    std::string text = from_hex(f[0]);
    std::vector<int32_t> want = parse_ids(f[1]);
    std::vector<int32_t> got = encode(t, text, 0, growth);
    checks += 4;
    if (got != want)
      mismatch("ids", f[0], f[1], ids_string(got));
    std::vector<int32_t> plain = encode(t, text, LLMC_ENCODE_PLAIN_SPECIAL, growth);
    if (plain != parse_ids(f[2]))
      mismatch("plain-special ids", f[0], f[2], ids_string(plain));
    std::string dec = decode_all(t, want);
    if (hex(dec) != f[3])
      mismatch("decode", f[0], f[3], hex(dec));
    bool split_char = false;
    std::string streamed = stream_decode(t, want, &split_char, &held_back);
    if (streamed != dec || split_char)
      mismatch(split_char ? "stream (split a character)" : "stream", f[0], hex(dec), hex(streamed));
  }
  llmc_tokenizer_destroy(t);
  std::printf("compared %zu strings (%zu checks): %zu mismatches\n", strings, checks, mismatches);
  std::printf("streaming decode held back an unfinished character %zu times\n", held_back);
  return mismatches ? 1 : 0;
}

// --- sampler ---------------------------------------------------------------

struct Sampler {
  llmc_sampler *s = nullptr;
  Sampler(const llmc_sampler_config &c, int32_t vocab) {
    check(llmc_sampler_create(&c, vocab, &s));
  }
  ~Sampler() { llmc_sampler_destroy(s); }
  int32_t sample(const std::vector<float> &logits, const std::vector<int32_t> &history = {}) {
    int32_t tok;
    check(llmc_sampler_sample(s, logits.data(), history.data(), history.size(), &tok));
    return tok;
  }
};

/// Deterministic test logits (a fixed LCG, independent of the runtime's RNG).
std::vector<float> test_logits(uint32_t seed, int32_t vocab) {
  std::vector<float> v(vocab);
  uint32_t x = seed * 2654435761u + 1;
  for (float &f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(x >> 8) / 16777216.0f * 8.0f - 4.0f;
  }
  return v;
}

int32_t argmax(const std::vector<float> &v) {
  int32_t best = 0;
  for (int32_t i = 1; i < static_cast<int32_t>(v.size()); ++i)
    if (v[i] > v[best])
      best = i;
  return best;
}

/// Prints "ok <name>" or "FAIL <name>" per property and counts the failures.
struct PropertyReport {
  int failures = 0;
  void operator()(const char *name, bool ok) {
    std::printf("%s %s\n", ok ? "ok" : "FAIL", name);
    failures += !ok;
  }
  int exit_code() const { return failures ? 1 : 0; }
};

/// Sampler properties; prints "ok <name>" per property, exits 1 on a failure.
int cmd_sampler(const std::vector<std::string> &) {
  /// Enough random logits vectors that an accidental agreement is unlikely.
  constexpr int kTrials = 200;
  constexpr int32_t kVocab = 512;
  PropertyReport report;
  llmc_sampler_config base;
  llmc_sampler_config_default(&base);

  {
    llmc_sampler_config c = base;
    c.temperature = 0;
    Sampler s(c, kVocab);
    bool ok = true;
    for (int i = 0; i < kTrials; ++i) {
      std::vector<float> l = test_logits(i, kVocab);
      ok = ok && s.sample(l) == argmax(l);
    }
    std::vector<float> ties(kVocab, 1.0f);
    ties[7] = ties[300] = 5.0f;
    ok = ok && s.sample(ties) == 7;
    report("temperature-0-is-argmax", ok);
  }
  for (int mode = 0; mode < 2; ++mode) {
    llmc_sampler_config c = base;
    c.temperature = 1.5f;
    if (mode == 0) c.top_k = 1;
    else c.top_p = 1e-6f;
    c.seed = 99;
    Sampler s(c, kVocab);
    bool ok = true;
    for (int i = 0; i < kTrials; ++i) {
      std::vector<float> l = test_logits(i, kVocab);
      ok = ok && s.sample(l) == argmax(l);
    }
    report(mode == 0 ? "top-k-1-is-greedy" : "top-p-tiny-is-greedy", ok);
  }
  {
    llmc_sampler_config c = base;
    c.seed = 42;
    c.top_k = 40;
    c.top_p = 0.9f;
    Sampler a(c, kVocab), b(c, kVocab);
    c.seed = 43;
    Sampler other(c, kVocab);
    std::vector<int32_t> sa, sb, so;
    for (int i = 0; i < kTrials; ++i) {
      std::vector<float> l = test_logits(i % 3, kVocab);
      sa.push_back(a.sample(l));
      sb.push_back(b.sample(l));
      so.push_back(other.sample(l));
    }
    report("same-seed-same-tokens", sa == sb);
    report("different-seed-different-tokens", sa != so);
    llmc_sampler_reseed(a.s, 42);
    std::vector<int32_t> again;
    for (int i = 0; i < kTrials; ++i)
      again.push_back(a.sample(test_logits(i % 3, kVocab)));
    report("reseed-restarts-stream", again == sa);
  }
  {
    // Golden sequence: pins PCG32 + the sampling order across platforms.
    llmc_sampler_config c = base;
    c.seed = 1234;
    Sampler s(c, kVocab);
    std::printf("seed-1234:");
    for (int i = 0; i < 8; ++i)
      std::printf(" %d", s.sample(test_logits(5, kVocab)));
    std::printf("\n");
  }
  {
    // Frequencies at T = 1 follow softmax: p = 0.5, 0.25, 0.25.
    /// 40000 draws: the standard error of a frequency is ~0.0025, so a
    /// 0.015 tolerance is six sigma.
    constexpr int kDraws = 40000;
    constexpr double kTolerance = 0.015;
    llmc_sampler_config c = base;
    c.seed = 7;
    Sampler s(c, 3);
    std::vector<float> l = {std::log(0.5f), std::log(0.25f), std::log(0.25f)};
    int counts[3] = {0, 0, 0};
    for (int i = 0; i < kDraws; ++i)
      ++counts[s.sample(l)];
    bool ok = std::fabs(counts[0] / double(kDraws) - 0.5) < kTolerance &&
              std::fabs(counts[1] / double(kDraws) - 0.25) < kTolerance &&
              std::fabs(counts[2] / double(kDraws) - 0.25) < kTolerance;
    report("softmax-frequencies", ok);

    c.top_p = 0.6f; // nucleus {0, 1}: 0.5 < 0.6 <= 0.75
    Sampler p(c, 3);
    std::vector<float> l2 = {std::log(0.5f), std::log(0.3f), std::log(0.2f)};
    bool only01 = true, saw1 = false;
    for (int i = 0; i < 2000; ++i) {
      int32_t t = p.sample(l2);
      only01 = only01 && t != 2;
      saw1 = saw1 || t == 1;
    }
    report("top-p-keeps-nucleus", only01 && saw1);

    c.top_p = 1.0f;
    c.top_k = 2;
    Sampler k(c, 3);
    bool only_top2 = true;
    for (int i = 0; i < 2000; ++i)
      only_top2 = only_top2 && k.sample(l2) != 2;
    report("top-k-keeps-k", only_top2);
  }
  {
    llmc_sampler_config c = base;
    c.temperature = 0;
    c.repetition_penalty = 1.5f;
    Sampler s(c, 2);
    bool ok = s.sample({2.0f, 1.9f}, {0}) == 1 &&  // 2.0/1.5 < 1.9
              s.sample({-1.0f, -1.2f}, {0, 0}) == 1 && // -1.5 < -1.2, once
              s.sample({2.0f, 1.9f}, {}) == 0;
    report("repetition-penalty", ok);
    int32_t tok;
    std::vector<float> l = {1.0f, 2.0f};
    int32_t bad = 5;
    report("repetition-history-out-of-range",
           llmc_sampler_sample(s.s, l.data(), &bad, 1, &tok) == LLMC_ERR_OUT_OF_RANGE);
  }
  {
    llmc_sampler_config c = base;
    Sampler s(c, 3);
    bool ok = true;
    for (int i = 0; i < 100; ++i)
      ok = ok && s.sample({NAN, 0.0f, NAN}) == 1;
    report("nan-never-wins", ok);
  }
  {
    llmc_sampler_config c = base;
    llmc_sampler *s = nullptr;
    report("zero-vocab-rejected", llmc_sampler_create(&c, 0, &s) == LLMC_ERR_INVALID_ARGUMENT);
    c.repetition_penalty = 0;
    report("bad-penalty-rejected", llmc_sampler_create(&c, 4, &s) == LLMC_ERR_INVALID_ARGUMENT);
  }
  report("header-compiles-as-c", llmc_test_header_is_c() == 1);
  return report.exit_code();
}

/// device-sampling: which side samples each configuration
/// (plan_device_sampling: "T k p penalty vocab -> argmax | top_k_top_p |
/// host"), then properties of the draws the device path takes from the
/// sampler ("ok <name>" each; exits 1 on a failure).
int cmd_device_sampling(const std::vector<std::string> &) {
  using llmc::rt::DeviceKernel;
  struct Case {
    float temperature;
    int32_t top_k;
    float top_p, penalty;
    int32_t vocab;
  };
  static const Case kCases[] = {
      {0, 0, 1, 1, 512},     {0.8f, 1, 1, 1, 512},  {0.8f, 0, 0, 1, 512},
      {0.8f, 40, 0.9f, 1, 512}, {0.8f, 256, 1, 1, 512}, {0.8f, 257, 1, 1, 512},
      {1, 0, 1, 1, 512},     {1, 512, 1, 1, 512},   {1, 600, 1, 1, 512},
      {1, 0, 0.9f, 1, 512},  {1, 512, 0.9f, 1, 512}, {1, 0, 0.9f, 1, 256},
      {1, 300, 0.9f, 1, 6},  {0, 0, 1, 1.1f, 512},  {0.8f, 40, 0.9f, 1.1f, 512},
  };
  for (const Case &c : kCases) {
    llmc_sampler_config config;
    llmc_sampler_config_default(&config);
    config.temperature = c.temperature;
    config.top_k = c.top_k;
    config.top_p = c.top_p;
    config.repetition_penalty = c.penalty;
    llmc::rt::DeviceSampling plan = llmc::rt::plan_device_sampling(config, c.vocab);
    const char *side = plan.kernel == DeviceKernel::ArgMax     ? "argmax"
                       : plan.kernel == DeviceKernel::TopKTopP ? "top_k_top_p"
                                                               : "host";
    std::printf("T=%g k=%d p=%g penalty=%g V=%d -> %s", c.temperature, c.top_k,
                c.top_p, c.penalty, c.vocab, side);
    if (plan.kernel == DeviceKernel::TopKTopP)
      std::printf(" (T=%g k=%d p=%g)", plan.temperature, plan.top_k, plan.top_p);
    std::string name = llmc::rt::device_kernel_name(plan.kernel, c.vocab);
    std::printf("%s%s\n", name.empty() ? "" : " ", name.c_str());
  }

  /// Logits vectors per property: enough steps for a stream to diverge.
  constexpr int kSteps = 50;
  constexpr int32_t kVocab = 512;
  PropertyReport report;
  llmc_sampler_config config;
  llmc_sampler_config_default(&config);
  config.temperature = 0.8f;
  config.top_k = 40;
  config.top_p = 0.9f;
  config.seed = 7;
  {
    // The host sampler draws exactly one uniform number per non-greedy
    // token, the one draw_unit() returns: a device stream that takes one
    // draw per token stays in step with the host's.
    llmc::rt::Sampler host(config, kVocab), device(config, kVocab);
    for (int i = 0; i < kSteps; ++i) {
      host.sample(test_logits(i, kVocab).data(), nullptr, 0);
      device.draw_unit();
    }
    report("one-draw-per-sampled-token", host.draw_unit() == device.draw_unit());
  }
  {
    // The draws are PCG32's, seeded as the C API's sampler is.
    llmc::rt::Sampler sampler(config, kVocab);
    llmc::rt::Pcg32 rng(config.seed);
    bool ok = true;
    for (int i = 0; i < kSteps; ++i)
      ok = ok && sampler.draw_unit() == rng.next_unit_float();
    report("draws-are-pcg32", ok);
  }
  {
    // Greedy tokens draw nothing, on either side.
    llmc_sampler_config greedy = config;
    greedy.temperature = 0;
    llmc::rt::Sampler host(greedy, kVocab), fresh(greedy, kVocab);
    for (int i = 0; i < kSteps; ++i)
      host.sample(test_logits(i, kVocab).data(), nullptr, 0);
    report("greedy-draws-nothing", host.draw_unit() == fresh.draw_unit());
  }
  return report.exit_code();
}

/// rng-draws <seed> <n>: the first n uniform numbers a sampler seeded with
/// <seed> draws (what the device path passes as u), one per line, %.9g.
int cmd_rng_draws(const std::vector<std::string> &args) {
  if (args.size() != 2)
    die("usage: rng-draws <seed> <n>");
  llmc_sampler_config config;
  llmc_sampler_config_default(&config);
  config.seed = std::stoull(args[0]);
  llmc::rt::Sampler sampler(config, 1);
  for (int i = 0, n = std::stoi(args[1]); i < n; ++i)
    std::printf("%.9g\n", sampler.draw_unit());
  return 0;
}

/// wait-detector: feeds ContentionDetector one call per argument,
/// "<wall ms>:<run-queue wait ms>" (or "<count>x<wall ms>:<wait ms>" for
/// that many equal calls), and prints after each argument whether the next
/// call's threads would sleep or spin.
int cmd_wait_detector(const std::vector<std::string> &args) {
  llmc::rt::ContentionDetector detector;
  for (const std::string &arg : args) {
    long count = 1;
    double ms = 0, waited_ms = 0;
    if (std::sscanf(arg.c_str(), "%ldx%lf:%lf", &count, &ms, &waited_ms) != 3) {
      count = 1;
      if (std::sscanf(arg.c_str(), "%lf:%lf", &ms, &waited_ms) != 2) {
        std::fprintf(stderr, "wait-detector: bad call '%s'\n", arg.c_str());
        return 2;
      }
    }
    for (long i = 0; i < count; ++i)
      detector.add_call(static_cast<int64_t>(ms * 1e6),
                        static_cast<int64_t>(waited_ms * 1e6));
    std::printf("%s: %s\n", arg.c_str(), detector.sleeping() ? "sleep" : "spin");
  }
  return 0;
}

/// Adds to `set` a rows x cols matrix `name` stored as `stored` in `bytes`
/// (`n_bytes` of them),
/// and to `m` its weight, which the artifact takes as `dtype` (`format`) in
/// groups of `interleave` rows.
void add_test_matrix(llmc::rt::WeightSet &set, llmc::rt::Manifest &m,
                     const char *name, llmc_dtype stored, const char *dtype,
                     llmc_dtype format, const uint8_t *bytes, size_t n_bytes,
                     int64_t rows, int64_t cols, int64_t interleave) {
  llmc::rt::TensorEntry t;
  t.name = t.source_name = name;
  t.n_dims = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.n_elements = rows * cols;
  t.dtype = stored;
  t.data = bytes;
  t.n_bytes = n_bytes;
  set.add_tensor(t);
  llmc::rt::ManifestWeight w;
  w.name = name;
  w.shape = {rows, cols};
  w.dtype = dtype;
  w.format = format;
  w.n_elements = rows * cols;
  w.interleave = interleave;
  m.weights.push_back(w);
}

/// bind-shared: a q4_0 matrix that an artifact takes in groups of 8 rows,
/// bound twice for the CPU on one weight set and once as the CUDA backend
/// binds (copying the result to the device at once): prints whether the CPU
/// bindings share one repacked copy and own nothing, whether the CUDA
/// binding owns its own, and whether each holds the bytes
/// interleave_rows makes of the file's rows.
int cmd_bind_shared(const std::vector<std::string> &) {
  using namespace llmc::rt;
  const int64_t rows = 16, cols = 64, row_blocks = 2; // 18-byte blocks
  std::vector<uint8_t> file(static_cast<size_t>(rows * row_blocks * 18));
  for (size_t i = 0; i < file.size(); ++i)
    file[i] = static_cast<uint8_t>(i * 37 + 11);
  WeightSet set;
  Manifest m;
  add_test_matrix(set, m, "model.layers.0.mlp.down_proj.weight",
                  LLMC_DTYPE_Q4_0, "q4_0", LLMC_DTYPE_Q4_0, file.data(),
                  file.size(), rows, cols, 8);
  std::vector<uint8_t> expected(file.size());
  interleave_rows(LLMC_DTYPE_Q4_0, file.data(), rows, row_blocks, 8, 1,
                  expected.data());
  auto bytes = [&](const void *p) {
    return std::memcmp(p, expected.data(), expected.size()) == 0 ? "interleaved"
                                                                 : "wrong";
  };
  BoundWeights first = bind_weights(m, set), second = bind_weights(m, set);
  std::vector<AlignedBuffer> cuda_owned;
  const void *cuda = bind_weight(m, set, 0, cuda_owned, /*cache_in_set=*/false);
  std::printf("cpu bindings: %s, owning %zu and %zu buffers, %s\n",
              first.pointers[0] == second.pointers[0] ? "one copy" : "two copies",
              first.owned.size(), second.owned.size(), bytes(first.pointers[0]));
  std::printf("cuda binding: %s, owning %zu buffers, %s\n",
              cuda == first.pointers[0] ? "the shared copy" : "its own copy",
              cuda_owned.size(), bytes(cuda));
  return 0;
}

/// huge-page-arena: allocations of 100 bytes, 3 MiB, 70 MiB (more than a
/// chunk) and 100 bytes: prints each one's alignment (64-byte lines; a
/// fresh chunk starts on a 2 MiB boundary), whether it is zeroed, and where
/// it lies: at an offset from the first (in the first chunk, packed), or in
/// a chunk of its own.
int cmd_huge_page_arena(const std::vector<std::string> &) {
  using namespace llmc::rt;
  HugePageArena arena;
  const char *first = nullptr;
  for (size_t bytes : {size_t{100}, size_t{3} << 20, size_t{70} << 20,
                       size_t{100}}) {
    auto *p = static_cast<char *>(arena.allocate(bytes, "test"));
    bool zeroed = true;
    for (size_t i = 0; i < bytes; i += 4096)
      zeroed = zeroed && p[i] == 0;
    zeroed = zeroed && p[bytes - 1] == 0;
    std::memset(p, 0xab, bytes); // writable to its end
    if (!first)
      first = p;
    uintptr_t address = reinterpret_cast<uintptr_t>(p);
    std::printf("%zu bytes: %s, %s, ", bytes,
                address % HugePageArena::kHugePage == 0 ? "2 MiB-aligned"
                : address % 64 == 0                      ? "64-byte-aligned"
                                                         : "misaligned",
                zeroed ? "zeroed" : "not zeroed");
    if (p >= first && p < first + HugePageArena::kMinChunkBytes)
      std::printf("at +%td from the first\n", p - first);
    else
      std::printf("in a chunk of its own\n");
  }
  return 0;
}

/// bind-resident <scratch file>: an f16 matrix the artifact takes as
/// stored, an f16 matrix it takes as f32, and a q4_0 matrix it takes in
/// groups of 8 rows, all three in a mapped file, bound twice for the CPU on
/// one weight set and once as the CUDA backend binds: prints whether the CPU
/// bindings are one set-owned copy per weight (none in the file's bytes,
/// none owned by a session) with the right bytes, and whether the CUDA
/// binding reads the file's bytes. Then the same file in a set that keeps
/// it mapped (llmc_weights_set_residency's LLMC_WEIGHTS_MAPPED), an f16
/// matrix in memory the set owns (not a file: random weights), and the
/// refusal to keep a set mapped whose sessions made copies.
int cmd_bind_resident(const std::vector<std::string> &args) {
  using namespace llmc::rt;
  if (args.size() != 1)
    die("usage: bind-resident <scratch file>");
  const int64_t rows = 16, cols = 64;
  std::vector<uint8_t> f16(static_cast<size_t>(rows * cols * 2)),
      q4(static_cast<size_t>(rows * 2 * 18));
  for (size_t i = 0; i < f16.size(); ++i)
    f16[i] = static_cast<uint8_t>(i % 2 ? 0x3c : i * 7); // finite halves
  for (size_t i = 0; i < q4.size(); ++i)
    q4[i] = static_cast<uint8_t>(i * 37 + 11);
  {
    std::ofstream out(args[0], std::ios::binary);
    out.write(reinterpret_cast<const char *>(f16.data()), f16.size());
    out.write(reinterpret_cast<const char *>(q4.data()), q4.size());
  }
  std::shared_ptr<MappedFile> file = MappedFile::open(args[0]);
  const uint8_t *file_f16 = file->data(), *file_q4 = file->data() + f16.size();
  auto add_matrices = [&](WeightSet &set, Manifest &m) {
    set.keep_file(file);
    add_test_matrix(set, m, "model.layers.0.mlp.up_proj.weight",
                    LLMC_DTYPE_F16, "f16", LLMC_DTYPE_F16, file_f16,
                    f16.size(), rows, cols, 1);
    add_test_matrix(set, m, "model.layers.0.mlp.gate_proj.weight",
                    LLMC_DTYPE_F16, "f32", LLMC_DTYPE_F32, file_f16,
                    f16.size(), rows, cols, 1);
    add_test_matrix(set, m, "model.layers.0.mlp.down_proj.weight",
                    LLMC_DTYPE_Q4_0, "q4_0", LLMC_DTYPE_Q4_0, file_q4,
                    q4.size(), rows, cols, 8);
  };
  std::vector<float> widened(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < widened.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, f16.data() + 2 * i, 2);
    widened[i] = f16_to_f32(h);
  }
  std::vector<uint8_t> groups(q4.size());
  interleave_rows(LLMC_DTYPE_Q4_0, q4.data(), rows, 2, 8, 1, groups.data());
  const void *expected[] = {f16.data(), widened.data(), groups.data()};
  const size_t sizes[] = {f16.size(), widened.size() * 4, groups.size()};
  auto print_bindings = [&](const Manifest &m, const BoundWeights &first,
                            const BoundWeights &second) {
    for (size_t i = 0; i < m.weights.size(); ++i) {
      const auto *p = static_cast<const uint8_t *>(first.pointers[i]);
      bool in_file = p == file_f16 || p == file_q4;
      std::printf("%s (%s): %s, %s, %s\n", m.weights[i].name.c_str(),
                  m.weights[i].dtype.c_str(),
                  first.pointers[i] == second.pointers[i] ? "one copy"
                                                          : "two copies",
                  in_file ? "the file's bytes" : "set-owned",
                  std::memcmp(p, expected[i], sizes[i]) == 0 ? "right bytes"
                                                             : "wrong bytes");
    }
    std::printf("sessions own %zu and %zu buffers\n", first.owned.size(),
                second.owned.size());
  };

  WeightSet set;
  Manifest m;
  add_matrices(set, m);
  BoundWeights first = bind_weights(m, set), second = bind_weights(m, set);
  print_bindings(m, first, second);
  std::vector<AlignedBuffer> cuda_owned;
  const void *cuda = bind_weight(m, set, 0, cuda_owned, /*cache_in_set=*/false);
  std::printf("cuda binding: %s\n",
              cuda == file_f16 ? "the file's bytes" : "a copy");
  try {
    set.keep_mapped(true);
    std::printf("kept mapped after resident copies\n");
  } catch (const Error &e) {
    std::printf("refused: %s\n", e.what());
  }

  std::printf("mapped:\n");
  WeightSet mapped;
  mapped.keep_mapped(true);
  Manifest mapped_m;
  add_matrices(mapped, mapped_m);
  print_bindings(mapped_m, bind_weights(mapped_m, mapped),
                 bind_weights(mapped_m, mapped));

  WeightSet owned;
  Manifest owned_m;
  add_test_matrix(owned, owned_m, "model.layers.0.mlp.up_proj.weight",
                  LLMC_DTYPE_F16, "f16", LLMC_DTYPE_F16, f16.data(), f16.size(),
                  rows, cols, 1);
  BoundWeights in_memory = bind_weights(owned_m, owned);
  std::printf("set-owned memory: %s\n", in_memory.pointers[0] == f16.data()
                                             ? "bound in place"
                                             : "copied");
  return 0;
}

/// residency <artifact> <weights>: llmc_weights_set_residency through the
/// C API, one line per call: the default, a value outside the enum, mapped
/// weights for a session (its first decode's argmax), back to resident for
/// a second session, and mapped again once that one has made its copies.
int cmd_residency(const std::vector<std::string> &args) {
  if (args.size() != 2)
    die("usage: residency <artifact> <weights>");
  llmc_model *model = nullptr;
  check(llmc_model_open(args[0].c_str(), &model));
  Weights w(args[1]);
  auto name = [](llmc_weights_residency r) {
    return r == LLMC_WEIGHTS_MAPPED ? "mapped" : "resident";
  };
  auto set = [&](int value) {
    llmc_status st = llmc_weights_set_residency(
        w.w, static_cast<llmc_weights_residency>(value));
    std::printf("set %d: %s%s%s -> %s\n", value, llmc_status_name(st),
                st == LLMC_OK ? "" : ": ", st == LLMC_OK ? "" : llmc_last_error(),
                name(llmc_weights_get_residency(w.w)));
  };
  auto first_token = [&]() {
    llmc_session *session = nullptr;
    check(llmc_session_create(model, w.w, &session));
    const float *logits = nullptr;
    check(llmc_session_decode(session, 1, &logits));
    llmc_model_info info;
    check(llmc_model_get_info(model, &info));
    int best = 0;
    for (int i = 1; i < info.vocab_size; ++i)
      best = logits[i] > logits[best] ? i : best;
    std::printf("session on %s weights: argmax %d\n",
                name(llmc_weights_get_residency(w.w)), best);
    llmc_session_destroy(session);
  };
  std::printf("default: %s\n", name(llmc_weights_get_residency(w.w)));
  set(2);
  set(LLMC_WEIGHTS_MAPPED);
  first_token();
  set(LLMC_WEIGHTS_RESIDENT);
  first_token();
  set(LLMC_WEIGHTS_MAPPED);
  llmc_model_destroy(model);
  return 0;
}

/// interleave-layout: float matrices of 160 rows (10 groups of 16) and
/// 8192 columns repacked by interleave_rows (in chunks on the machine's
/// threads) into groups of 16 rows in runs of 1 or 2 columns; prints per
/// case how many elements of the groups differ from the layout
/// `!llm.interleaved<t, rows = 16, columns = c>` documents: group g's run p
/// holds rows 16g + r's columns cp + j at (p · 16 + r) · c + j.
int cmd_interleave_layout(const std::vector<std::string> &) {
  using namespace llmc::rt;
  constexpr size_t kRows = 160, kCols = 8192, kGroup = 16;
  struct Case {
    llmc_dtype dtype;
    const char *name;
    size_t bytes, columns;
  };
  for (const Case &c : {Case{LLMC_DTYPE_F32, "f32", 4, 1},
                        Case{LLMC_DTYPE_F16, "f16", 2, 1},
                        Case{LLMC_DTYPE_BF16, "bf16", 2, 1},
                        Case{LLMC_DTYPE_BF16, "bf16", 2, 2}}) {
    // Element (row, col) of the file holds bytes that name it.
    auto element = [&](size_t row, size_t col, size_t byte) {
      return static_cast<uint8_t>((row * 131 + col * 7 + byte * 61) ^ (col >> 5));
    };
    std::vector<uint8_t> rows(kRows * kCols * c.bytes), groups(rows.size());
    for (size_t r = 0; r < kRows; ++r)
      for (size_t k = 0; k < kCols; ++k)
        for (size_t b = 0; b < c.bytes; ++b)
          rows[(r * kCols + k) * c.bytes + b] = element(r, k, b);
    interleave_rows(c.dtype, rows.data(), kRows, kCols, kGroup, c.columns,
                    groups.data());
    size_t wrong = 0;
    for (size_t g = 0; g < kRows / kGroup; ++g)
      for (size_t p = 0; p < kCols / c.columns; ++p)
        for (size_t r = 0; r < kGroup; ++r)
          for (size_t j = 0; j < c.columns; ++j) {
            size_t at = g * kGroup * kCols + (p * kGroup + r) * c.columns + j;
            for (size_t b = 0; b < c.bytes; ++b)
              wrong += groups[at * c.bytes + b] !=
                       element(g * kGroup + r, p * c.columns + j, b);
          }
    std::printf("%s in runs of %zu: %zu x %zu in %zu groups, %zu bytes wrong\n",
                c.name, c.columns, kRows, kCols, kRows / kGroup, wrong);
  }
  return 0;
}

/// parallel-chunks: the chunks parallel_chunks hands out for 10 items in
/// chunks of 3 (sorted), and whether 1000 items in chunks of 7 and 0 items
/// are each covered exactly once.
int cmd_parallel_chunks(const std::vector<std::string> &) {
  using namespace llmc::rt;
  std::mutex mutex;
  std::vector<std::pair<size_t, size_t>> chunks;
  parallel_chunks(10, 3, [&](size_t begin, size_t end) {
    std::lock_guard<std::mutex> lock(mutex);
    chunks.emplace_back(begin, end);
  });
  std::sort(chunks.begin(), chunks.end());
  for (const auto &[begin, end] : chunks)
    std::printf("[%zu, %zu)\n", begin, end);
  for (size_t count : {size_t{1000}, size_t{0}}) {
    std::vector<std::atomic<int>> visits(count);
    std::atomic<size_t> calls{0};
    parallel_chunks(count, 7, [&](size_t begin, size_t end) {
      ++calls;
      for (size_t i = begin; i < end; ++i)
        ++visits[i];
    });
    size_t once = 0;
    for (const auto &v : visits)
      once += v.load() == 1;
    std::printf("%zu items: %zu visited once, %zu calls\n", count, once,
                calls.load());
  }
  return 0;
}

/// planar-layout: two blocks of q4_0, q8_0, q5_1 and q6_k (a 2-row matrix)
/// bound as a CUDA artifact's planar weight; prints, a line per run, which
/// bytes of the file's blocks each stretch of the bound buffer holds
/// ("q4_0: dst [a, b) <- src [c, d)"). The file is bound twice, holding each byte's index's low
/// byte, then its high byte, so that every bound byte names its source.
int cmd_planar_layout(const std::vector<std::string> &) {
  using namespace llmc::rt;
  struct Case {
    llmc_dtype dtype;
    const char *name;
    int64_t cols, bytes;
  };
  for (const Case &c : {Case{LLMC_DTYPE_Q4_0, "q4_0", 32, 2 * 18},
                        Case{LLMC_DTYPE_Q8_0, "q8_0", 32, 2 * 34},
                        Case{LLMC_DTYPE_Q5_1, "q5_1", 32, 2 * 24},
                        Case{LLMC_DTYPE_Q6_K, "q6_k", 256, 2 * 210}}) {
    Manifest m;
    m.target = TargetKind::Cuda;
    ManifestWeight w;
    w.name = "model.layers.0.mlp.down_proj.weight";
    w.shape = {2, c.cols};
    w.dtype = c.name;
    w.format = c.dtype;
    w.n_elements = 2 * c.cols;
    w.planar = true;
    m.weights.push_back(w);
    std::vector<int64_t> source(static_cast<size_t>(c.bytes), 0);
    for (int shift : {0, 8}) {
      std::vector<uint8_t> file(static_cast<size_t>(c.bytes));
      for (size_t i = 0; i < file.size(); ++i)
        file[i] = static_cast<uint8_t>(i >> shift);
      WeightSet set;
      TensorEntry t;
      t.name = t.source_name = w.name;
      t.n_dims = 2;
      t.shape[0] = 2;
      t.shape[1] = c.cols;
      t.n_elements = w.n_elements;
      t.dtype = c.dtype;
      t.data = file.data();
      t.n_bytes = file.size();
      set.add_tensor(t);
      std::vector<AlignedBuffer> owned;
      const auto *bound =
          static_cast<const uint8_t *>(bind_weight(m, set, 0, owned, false));
      for (size_t d = 0; d < source.size(); ++d)
        source[d] |= static_cast<int64_t>(bound[d]) << shift;
    }
    for (size_t start = 0, d = 1; d <= source.size(); ++d) {
      if (d < source.size() && source[d] == source[d - 1] + 1)
        continue;
      std::printf("%s: dst [%zu, %zu) <- src [%lld, %lld)\n", c.name, start, d,
                  static_cast<long long>(source[start]),
                  static_cast<long long>(source[d - 1] + 1));
      start = d;
    }
  }
  return 0;
}

/// half-round: prints the f16 and bf16 bit patterns the runtime rounds each
/// argument (a decimal f32) to when it binds 16-bit weights.
int cmd_half_round(const std::vector<std::string> &args) {
  for (const std::string &arg : args) {
    float value = std::strtof(arg.c_str(), nullptr);
    std::printf("%s f16=0x%04x bf16=0x%04x\n", arg.c_str(),
                static_cast<unsigned>(llmc::rt::f32_to_f16(value)),
                static_cast<unsigned>(llmc::rt::f32_to_bf16(value)));
  }
  return 0;
}

/// rope-permute: reorders a tiny [n_heads * head_dim, row_len] tensor whose
/// element (r, c) is 100 * r + c, and prints, per destination row, the source
/// row it came from; then checks a round trip and the argument errors.
int cmd_rope_permute(const std::vector<std::string> &) {
  const int64_t heads = 2, head_dim = 8, row_len = 2, rows = heads * head_dim;
  std::vector<float> src(rows * row_len), mid(src.size()), back(src.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < row_len; ++c)
      src[r * row_len + c] = static_cast<float>(100 * r + c);
  auto print = [&](const char *label, const std::vector<float> &t) {
    std::printf("%s:", label);
    for (int64_t r = 0; r < rows; ++r) {
      bool row_intact = t[r * row_len + 1] == t[r * row_len] + 1;
      std::printf(" %d%s", static_cast<int>(t[r * row_len]) / 100, row_intact ? "" : "!");
    }
    std::printf("\n");
  };
  check(llmc_rope_permute_rows(src.data(), mid.data(), heads, head_dim, row_len,
                               LLMC_ROPE_INTERLEAVED, LLMC_ROPE_HALF));
  print("interleaved->half", mid);
  check(llmc_rope_permute_rows(src.data(), back.data(), heads, head_dim, row_len,
                               LLMC_ROPE_HALF, LLMC_ROPE_INTERLEAVED));
  print("half->interleaved", back);
  check(llmc_rope_permute_rows(mid.data(), back.data(), heads, head_dim, row_len,
                               LLMC_ROPE_HALF, LLMC_ROPE_INTERLEAVED));
  std::printf("round trip: %s\n", back == src ? "identical" : "DIFFERENT");
  check(llmc_rope_permute_rows(src.data(), back.data(), heads, head_dim, row_len,
                               LLMC_ROPE_HALF, LLMC_ROPE_HALF));
  std::printf("same layout: %s\n", back == src ? "copy" : "DIFFERENT");
  llmc_status st = llmc_rope_permute_rows(src.data(), back.data(), 2, 7, 2,
                                          LLMC_ROPE_INTERLEAVED, LLMC_ROPE_HALF);
  std::printf("odd head_dim: %s: %s\n", llmc_status_name(st), llmc_last_error());
  return 0;
}

/// info-model <artifact>: opens a model (no weights, no session, no GPU)
/// and prints its name and target, then the bytes of the KV cache a
/// session allocates.
int cmd_info_model(const std::vector<std::string> &args) {
  if (args.size() != 1)
    die("usage: info-model <artifact>");
  llmc_model *model = nullptr;
  check(llmc_model_open(args[0].c_str(), &model));
  llmc_model_info info;
  check(llmc_model_get_info(model, &info));
  std::printf("%s target %s arch '%s' triple '%s'\n", info.name,
              info.target_kind == LLMC_TARGET_CUDA ? "cuda" : "cpu",
              info.target_arch, info.target_triple);
  // What a session allocates for its cache.
  std::printf("kv_cache_bytes %llu context %d layers %d\n",
              static_cast<unsigned long long>(info.kv_cache_bytes),
              info.context_length, info.num_layers);
  llmc_model_destroy(model);
  return 0;
}

/// random-weights <artifact> <seed>: llmc_weights_create_random for the
/// artifact's table; per tensor its dtype, shape, the range, mean and
/// standard deviation of its f32 values and an FNV-1a hash of its bytes (to
/// compare seeds and artifacts); the generation time goes to stderr.
int cmd_random_weights(const std::vector<std::string> &args) {
  if (args.size() != 2)
    die("usage: random-weights <artifact> <seed>");
  llmc_model *model = nullptr;
  check(llmc_model_open(args[0].c_str(), &model));
  llmc_weights *w = nullptr;
  auto t0 = std::chrono::steady_clock::now();
  check(llmc_weights_create_random(model, std::stoull(args[1]), &w));
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("format: %s\n", format_name(llmc_weights_get_format(w)));
  std::printf("rope: %s\n", llmc_weights_rope_layout(w) == LLMC_ROPE_HALF
                                 ? "half" : "interleaved");
  std::printf("metadata: %zu\n", llmc_weights_meta_count(w));
  size_t n = llmc_weights_tensor_count(w);
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    llmc_tensor_info info;
    check(llmc_weights_tensor_info(w, i, &info));
    const void *raw = nullptr;
    uint64_t bytes = 0;
    check(llmc_weights_tensor_raw(w, info.name, &raw, &bytes));
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint64_t b = 0; b < bytes; ++b)
      h = (h ^ static_cast<const unsigned char *>(raw)[b]) * 0x100000001b3ull;
    const float *v = nullptr;
    size_t count = 0;
    check(llmc_weights_tensor_f32(w, info.name, &v, &count));
    double lo = v[0], hi = v[0], sum = 0, sq = 0;
    for (size_t k = 0; k < count; ++k) {
      lo = std::min<double>(lo, v[k]);
      hi = std::max<double>(hi, v[k]);
      sum += v[k];
      sq += static_cast<double>(v[k]) * v[k];
    }
    double mean = sum / count;
    std::printf("tensor %s %s %s min %.4f max %.4f mean %.4f std %.4f hash %016llx\n",
                info.name, dtype_name(info.dtype), shape_string(info).c_str(), lo,
                hi, mean, std::sqrt(std::max(0.0, sq / count - mean * mean)),
                static_cast<unsigned long long>(h));
    total += bytes;
  }
  std::fprintf(stderr, "random-weights: %llu bytes in %.3f s (%.2f GB/s)\n",
               static_cast<unsigned long long>(total), seconds, total / seconds / 1e9);
  llmc_weights_destroy(w);
  llmc_model_destroy(model);
  return 0;
}

/// cuda-rank <sm> <arch>:<format>...: the order in which the CUDA backend
/// would try an artifact's images on a GPU of compute capability <sm>
/// (10 * major + minor), or "none" and what the artifact carries.
int cmd_cuda_rank(const std::vector<std::string> &args) {
  if (args.size() < 2)
    die("usage: cuda-rank <sm> <arch>:<cubin|ptx>...");
  std::vector<llmc::rt::ManifestCudaImage> images;
  for (size_t i = 1; i < args.size(); ++i) {
    size_t colon = args[i].find(':');
    llmc::rt::ManifestCudaImage img;
    img.arch = args[i].substr(0, colon);
    img.format = args[i].substr(colon + 1);
    std::string digits = img.arch.substr(3);
    img.arch_specific = !digits.empty() && !std::isdigit(static_cast<unsigned char>(digits.back()));
    img.sm = std::stoi(digits);
    images.push_back(img);
  }
  std::vector<size_t> order = llmc::rt::rank_cuda_images(images, std::stoi(args[0]));
  std::printf("%s:", llmc::rt::sm_name(std::stoi(args[0])).c_str());
  for (size_t i : order)
    std::printf(" %s:%s", images[i].arch.c_str(), images[i].format.c_str());
  if (order.empty())
    std::printf(" none of %s", llmc::rt::describe_cuda_images(images).c_str());
  std::printf("\n");
  return 0;
}

/// A ScratchArena over made-up addresses (the arena never touches the
/// memory): chunks 1 MiB apart from 2^40, over 16 GiB refused (to test
/// failure). `log` prints each new chunk.
struct TestArena {
  uint64_t next = uint64_t{1} << 40;
  size_t chunks = 0, released = 0;
  bool log = true;
  llmc::rt::ScratchArena arena{
      [this](uint64_t bytes, std::string *error) -> uint64_t {
        if (bytes > (uint64_t{1} << 34)) {
          *error = "refused by the test allocator";
          return 0;
        }
        uint64_t base = next;
        next += (bytes + (uint64_t{1} << 20)) >> 20 << 20;
        if (log)
          std::printf("  new chunk %zu: %llu bytes\n", chunks,
                      static_cast<unsigned long long>(bytes));
        ++chunks;
        return base;
      },
      [this](uint64_t) { ++released; }};

  /// "chunk <i> + <offset>" of an address.
  std::string where(uint64_t p) const {
    size_t chunk = 0;
    while (chunk < arena.chunk_count() &&
           !(p >= arena.chunk_base(chunk) &&
             p < arena.chunk_base(chunk) + arena.chunk_bytes(chunk)))
      ++chunk;
    return "chunk " + std::to_string(chunk) + " + " +
           std::to_string(p - arena.chunk_base(chunk));
  }
};

/// scratch-arena <request>... : runs entry-point calls separated by "|" on
/// a ScratchArena and prints each block as chunk:offset (and each new
/// chunk's size). A request is a size, "free:<k>" (release the k-th block
/// of the call) or "compact" (between calls), so tests see the alignment,
/// the reuse of released blocks, the chunk growth, the compaction and that
/// a repeated call gets the same blocks.
int cmd_scratch_arena(const std::vector<std::string> &args) {
  size_t chunks = 0, released = 0;
  {
    TestArena t;
    int call = 0;
    std::vector<uint64_t> blocks;
    t.arena.reset();
    std::printf("call %d:\n", call);
    for (const std::string &a : args) {
      std::string error;
      if (a == "|") {
        t.arena.reset();
        blocks.clear();
        std::printf("call %d:\n", ++call);
      } else if (a == "compact") {
        bool changed = t.arena.compact();
        std::printf("compact: %s, %zu chunk(s)", changed ? "yes" : "no",
                    t.arena.chunk_count());
        for (size_t i = 0; i < t.arena.chunk_count(); ++i)
          std::printf(" %llu", static_cast<unsigned long long>(t.arena.chunk_bytes(i)));
        std::printf("\n");
        blocks.clear();
      } else if (a.rfind("free:", 0) == 0) {
        size_t k = std::stoul(a.substr(5));
        uint64_t p = k < blocks.size() ? blocks[k] : 12345;
        if (t.arena.release(p, &error))
          std::printf("  %s: live %llu\n", a.c_str(),
                      static_cast<unsigned long long>(t.arena.live_bytes()));
        else
          std::printf("  %s: error: %s\n", a.c_str(), error.c_str());
      } else {
        uint64_t p = t.arena.alloc(std::stoull(a), &error);
        blocks.push_back(p);
        if (!p)
          std::printf("  %s: error: %s\n", a.c_str(), error.c_str());
        else
          std::printf("  %s: %s\n", a.c_str(), t.where(p).c_str());
      }
    }
    chunks = t.chunks;
    released = t.released; // before the arena's destructor
  }
  std::printf("released %zu of %zu chunks before the end\n", released, chunks);
  return 0;
}

/// scratch-replay <trace>: the scratch requests of one entry-point call
/// (host_trace.py --scratch-trace: a size per line, or "release <n>") run
/// through a ScratchArena as the CUDA executor runs them: a first call from
/// the executor's starting state (one 64 MiB chunk), the compaction after
/// it, and two more calls. Prints the device memory the arena holds at each
/// point, the largest live set and their ratios, and fails when a later call
/// gets other addresses than the one before (a captured graph would break),
/// a block overlaps a live one, or the arena holds more than 2x the largest
/// live set.
int cmd_scratch_replay(const std::vector<std::string> &args) {
  std::ifstream in(args.at(0));
  std::vector<std::pair<bool, uint64_t>> trace; // (release, size or index)
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("release ", 0) == 0)
      trace.push_back({true, std::stoull(line.substr(8))});
    else if (!line.empty())
      trace.push_back({false, std::stoull(line)});
  }
  TestArena t;
  t.log = false;
  std::string error;
  t.arena.alloc(1, &error); // the executor's first chunk
  // One call; its addresses, the arena's bytes at its end and the largest
  // live set, checking that live blocks never overlap.
  uint64_t largest_live = 0;
  bool overlap = false;
  auto run = [&](std::vector<uint64_t> &addresses) -> bool {
    t.arena.reset();
    std::map<uint64_t, uint64_t> live; // address -> end
    for (const auto &[is_release, value] : trace) {
      if (is_release) {
        if (value >= addresses.size() ||
            !t.arena.release(addresses[value], &error)) {
          std::printf("error: release %llu: %s\n",
                      static_cast<unsigned long long>(value), error.c_str());
          return false;
        }
        live.erase(addresses[value]);
        continue;
      }
      uint64_t p = t.arena.alloc(value, &error);
      if (!p) {
        std::printf("error: alloc %llu: %s\n",
                    static_cast<unsigned long long>(value), error.c_str());
        return false;
      }
      uint64_t end = p + std::max<uint64_t>(value, 1);
      auto next = live.lower_bound(p);
      if ((next != live.end() && next->first < end) ||
          (next != live.begin() && std::prev(next)->second > p))
        overlap = true;
      live[p] = end;
      addresses.push_back(p);
      largest_live = std::max(largest_live, t.arena.live_bytes());
    }
    return true;
  };
  std::vector<uint64_t> first, second, third;
  if (!run(first))
    return 1;
  uint64_t first_bytes = t.arena.total_bytes();
  size_t first_chunks = t.arena.chunk_count();
  bool compacted = t.arena.compact();
  if (!run(second) || !run(third))
    return 1;
  uint64_t steady_bytes = t.arena.total_bytes();
  auto ratio = [&](uint64_t bytes) {
    return static_cast<double>(bytes) / static_cast<double>(largest_live);
  };
  size_t releases = 0;
  for (const auto &entry : trace)
    releases += entry.first;
  std::printf("requests: %zu allocs, %zu releases\n", first.size(), releases);
  std::printf("largest live set: %llu bytes\n",
              static_cast<unsigned long long>(largest_live));
  std::printf("first call: %zu chunks, %llu bytes (%.3fx the largest live set)\n",
              first_chunks, static_cast<unsigned long long>(first_bytes),
              ratio(first_bytes));
  std::printf("compacted: %s\n", compacted ? "yes" : "no");
  std::printf("later calls: %zu chunk, %llu bytes (%.3fx the largest live set)\n",
              t.arena.chunk_count(), static_cast<unsigned long long>(steady_bytes),
              ratio(steady_bytes));
  bool same = second == third;
  std::printf("later calls get the same addresses: %s\n", same ? "yes" : "no");
  std::printf("live blocks overlap: %s\n", overlap ? "yes" : "no");
  bool bounded = ratio(first_bytes) <= 2.0 && ratio(steady_bytes) <= 2.0;
  std::printf("within 2x the largest live set: %s\n", bounded ? "yes" : "no");
  size_t expected_chunks = first_chunks + (compacted ? 1 : 0);
  return same && !overlap && bounded && t.chunks == expected_chunks ? 0 : 1;
}

/// threads <artifact> <weights> <threads> <tokens>: one model and weight set
/// shared by <threads> threads, each with its own session decoding greedily
/// from BOS (prefill of [BOS], then decode steps) at the same time; prints
/// each thread's ids, which must all equal a single-threaded run's.
int cmd_threads(const std::vector<std::string> &args) {
  if (args.size() != 4)
    die("usage: threads <artifact> <weights> <threads> <tokens>");
  llmc_model *model = nullptr;
  check(llmc_model_open(args[0].c_str(), &model));
  llmc_model_info info;
  check(llmc_model_get_info(model, &info));
  Weights w(args[1]);
  int n_threads = std::stoi(args[2]), n_tokens = std::stoi(args[3]);
  std::vector<std::string> results(n_threads);
  std::vector<std::thread> threads;
  for (int t = 0; t < n_threads; ++t)
    threads.emplace_back([&, t] {
      llmc_session *session = nullptr;
      std::string &out = results[t];
      if (llmc_session_create(model, w.w, &session) != LLMC_OK) {
        out = std::string("create: ") + llmc_last_error();
        return;
      }
      int32_t token = info.bos_token_id;
      const float *logits = nullptr;
      llmc_status st = llmc_session_prefill(session, &token, 1, &logits, nullptr);
      out = std::to_string(token);
      for (int i = 1; i < n_tokens && st == LLMC_OK; ++i) {
        int best = 0;
        for (int v = 1; v < info.vocab_size; ++v)
          if (logits[v] > logits[best])
            best = v;
        token = best;
        out += " " + std::to_string(token);
        if (i + 1 < n_tokens)
          st = llmc_session_decode(session, token, &logits);
      }
      if (st != LLMC_OK)
        out += std::string(" error: ") + llmc_last_error();
      llmc_session_destroy(session);
    });
  for (auto &th : threads)
    th.join();
  for (int t = 0; t < n_threads; ++t)
    std::printf("thread %d: %s\n", t, results[t].c_str());
  llmc_model_destroy(model);
  return 0;
}

/// Token ids of a session op: "1,2,3", or "@file" for a file of
/// whitespace-separated ids (read_tokens).
std::vector<int32_t> parse_id_list(const std::string &list) {
  if (list.rfind("@", 0) == 0)
    return read_tokens(list.substr(1));
  std::vector<int32_t> ids;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ','))
    ids.push_back(std::stoi(item));
  return ids;
}

/// Minor page faults of this process so far (pages the kernel mapped and zeroed on first touch).
long minor_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

/// session <artifact> <weights | random:SEED> <op>...: drives the session API directly and
/// prints one line per op, so tests can check status codes the command-line
/// tool hides. Ops: prefill:1,2,3 (or prefill:@file, whitespace-separated ids; every
/// row's logits)  prefill-last:... (the last row only, compared with the last
/// row of the previous prefill:)  decode:5  reset  position  info  backend;
/// page-faults<N (whether fewer than N minor page faults happened since the
/// previous page-faults op, or since the session was created);
/// sampling: sampler:T,K,P,R,SEED (the sampler for the model's vocabulary;
/// default greedy), sampler-vocab:N (one for N tokens), sample (from the
/// last logits), decode-sample:5, null-args (each NULL argument of the two
/// sampling calls, one line each). The history of the sampling calls is
/// every token the ops ran so far, or what history:1,2 set last. A failing
/// op prints its status and message and the run continues.
/// prefill-last's bound on max |difference| / max |logit| against the last
/// row of an all-rows prefill (f32 sums in another order).
constexpr double kLastRowTolerance = 1e-5;

int cmd_session(const std::vector<std::string> &args) {
  if (args.size() < 2)
    die("usage: session <artifact> <weights | random:SEED> <op>...");
  llmc_model *model = nullptr;
  check(llmc_model_open(args[0].c_str(), &model));
  std::unique_ptr<Weights> w;
  if (args[1].rfind("random:", 0) == 0) {
    w = std::make_unique<Weights>();
    check(llmc_weights_create_random(model, std::stoull(args[1].substr(7)), &w->w));
  } else {
    w = std::make_unique<Weights>(args[1]);
  }
  llmc_session *session = nullptr;
  check(llmc_session_create(model, w->w, &session));
  llmc_model_info info;
  check(llmc_model_get_info(model, &info));
  // Sessions keep the model alive: destroying the handle here must be safe.
  llmc_model_destroy(model);
  auto argmax = [&](const float *row) {
    int best = 0;
    for (int i = 1; i < info.vocab_size; ++i)
      if (row[i] > row[best])
        best = i;
    return best;
  };
  llmc_sampler_config sampling;
  llmc_sampler_config_default(&sampling);
  sampling.temperature = 0;
  llmc_sampler *sampler = nullptr;
  check(llmc_sampler_create(&sampling, info.vocab_size, &sampler));
  std::vector<int32_t> history;
  std::vector<float> last_row_of_all; // the last row of the last all-rows prefill
  long faults_before = minor_page_faults();
  for (size_t i = 2; i < args.size(); ++i) {
    const std::string &op = args[i];
    llmc_status st = LLMC_OK;
    std::string result;
    if (op.rfind("prefill:", 0) == 0 || op.rfind("prefill-last:", 0) == 0) {
      bool last_only = op.rfind("prefill-last:", 0) == 0;
      std::string list = op.substr(op.find(':') + 1);
      std::vector<int32_t> ids = parse_id_list(list);
      const float *last = nullptr, *all = nullptr;
      st = llmc_session_prefill(session, ids.data(), ids.size(), &last,
                                last_only ? nullptr : &all);
      history.insert(history.end(), ids.begin(), ids.end());
      if (st == LLMC_OK && last_only) {
        // The last layer computes only the asked-for rows from its attention
        // on (GEMVs where the all-rows prefill ran GEMM tiles): the sums
        // run in another order, so the rows agree to rounding, not bit for
        // bit.
        double scale = 0, diff = 1;
        if (last_row_of_all.size() == static_cast<size_t>(info.vocab_size)) {
          diff = 0;
          for (int v = 0; v < info.vocab_size; ++v) {
            scale = std::max(scale, std::fabs(double(last_row_of_all[v])));
            diff = std::max(diff, std::fabs(double(last[v]) - last_row_of_all[v]));
          }
          diff /= std::max(scale, 1e-30);
        }
        char relative[32];
        std::snprintf(relative, sizeof relative, "%.1e", diff);
        result = "argmax " + std::to_string(argmax(last)) +
                 (diff <= kLastRowTolerance ? " (within 1e-5 of" : " (DIFFERENT from") +
                 " the last row of the previous all-rows prefill: max |d| / max |logit| " +
                 relative + ")";
      } else if (st == LLMC_OK) {
        result = "argmax";
        for (size_t r = 0; r < ids.size(); ++r)
          result += " " + std::to_string(argmax(all + r * info.vocab_size));
        result += last == all + (ids.size() - 1) * info.vocab_size ? " (last ok)" : " (last WRONG)";
        last_row_of_all.assign(last, last + info.vocab_size);
      }
    } else if (op.rfind("decode:", 0) == 0) {
      const float *logits = nullptr;
      st = llmc_session_decode(session, std::stoi(op.substr(7)), &logits);
      history.push_back(std::stoi(op.substr(7)));
      if (st == LLMC_OK)
        result = "argmax " + std::to_string(argmax(logits));
    } else if (op.rfind("sampler:", 0) == 0 || op.rfind("sampler-vocab:", 0) == 0) {
      int32_t vocab = info.vocab_size;
      if (op.rfind("sampler:", 0) == 0) {
        std::stringstream ss(op.substr(8));
        char sep;
        ss >> sampling.temperature >> sep >> sampling.top_k >> sep >>
            sampling.top_p >> sep >> sampling.repetition_penalty >> sep >>
            sampling.seed;
      } else {
        vocab = std::stoi(op.substr(14));
      }
      llmc_sampler_destroy(sampler);
      sampler = nullptr;
      check(llmc_sampler_create(&sampling, vocab, &sampler));
    } else if (op.rfind("history:", 0) == 0) {
      history = parse_id_list(op.substr(8));
    } else if (op == "sample") {
      int32_t token = -1;
      st = llmc_session_sample(session, sampler, history.data(), history.size(), &token);
      if (st == LLMC_OK)
        result = std::to_string(token);
    } else if (op.rfind("decode-sample:", 0) == 0) {
      int32_t token = std::stoi(op.substr(14)), next = -1;
      history.push_back(token);
      st = llmc_session_decode_sample(session, token, sampler, history.data(),
                                      history.size(), &next);
      if (st == LLMC_OK)
        result = std::to_string(next);
    } else if (op == "null-args") {
      int32_t token = 0;
      const int32_t one = 1;
      auto show = [](const char *name, llmc_status status) {
        std::printf("null %s: %s: %s\n", name, llmc_status_name(status),
                    status == LLMC_OK ? "" : llmc_last_error());
      };
      show("sample session", llmc_session_sample(nullptr, sampler, nullptr, 0, &token));
      show("sample sampler", llmc_session_sample(session, nullptr, nullptr, 0, &token));
      show("sample history", llmc_session_sample(session, sampler, nullptr, 1, &token));
      show("sample token", llmc_session_sample(session, sampler, &one, 1, nullptr));
      show("decode-sample session",
           llmc_session_decode_sample(nullptr, 1, sampler, nullptr, 0, &token));
      show("decode-sample sampler",
           llmc_session_decode_sample(session, 1, nullptr, nullptr, 0, &token));
      show("decode-sample history",
           llmc_session_decode_sample(session, 1, sampler, nullptr, 1, &token));
      show("decode-sample next_token",
           llmc_session_decode_sample(session, 1, sampler, &one, 1, nullptr));
      llmc_cpu_wait_stats waits;
      show("waits session", llmc_session_cpu_wait_stats(nullptr, &waits));
      show("waits stats", llmc_session_cpu_wait_stats(session, nullptr));
    } else if (op == "reset") {
      llmc_session_reset(session);
    } else if (op.rfind("page-faults<", 0) == 0) {
      long limit = std::stol(op.substr(12));
      long faults = minor_page_faults() - faults_before;
      result = "page faults since the last check " + std::to_string(faults) +
               (faults < limit ? " (below " : " (NOT below ") + op.substr(12) + ")";
    } else if (op.rfind("threads:", 0) == 0) {
      st = llmc_session_set_threads(session, std::stoi(op.substr(8)));
      if (st == LLMC_OK)
        result = std::to_string(llmc_session_threads(session));
    } else if (op == "waits") {
      llmc_cpu_wait_stats waits;
      st = llmc_session_cpu_wait_stats(session, &waits);
      if (st == LLMC_OK)
        result = std::string(waits.adaptive ? "adaptive" : "libomp's") + " calls " +
                 std::to_string(waits.calls) + " sleeping " +
                 std::to_string(waits.sleeping_calls);
    } else if (op == "position") {
      result = std::to_string(llmc_session_position(session));
    } else if (op == "info") {
      result = std::string(info.name) + " vocab " + std::to_string(info.vocab_size) +
               " context " + std::to_string(info.context_length) + " layers " +
               std::to_string(info.num_layers) + " rope " +
               (info.rope_layout == LLMC_ROPE_HALF ? "half" : "interleaved") +
               " weights " + std::to_string(info.n_weights) + " kv_bytes " +
               std::to_string(info.kv_cache_bytes) + " bos " +
               std::to_string(info.bos_token_id) + " eos " + std::to_string(info.eos_token_id) +
               " target " + (info.target_kind == LLMC_TARGET_CUDA ? "cuda" : "cpu") +
               " arch '" + info.target_arch + "'";
    } else if (op == "backend") {
      result = llmc_session_backend(session);
    } else {
      die("unknown op '" + op + "'");
    }
    if (op.rfind("page-faults<", 0) == 0)
      faults_before = minor_page_faults();
    if (st == LLMC_OK)
      std::printf("%s: ok%s%s\n", op.c_str(), result.empty() ? "" : " ", result.c_str());
    else
      std::printf("%s: %s: %s\n", op.c_str(), llmc_status_name(st), llmc_last_error());
  }
  llmc_sampler_destroy(sampler);
  llmc_session_destroy(session);
  return 0;
}


// ---- chat templates ----

/// Owns a template; TEMPLATE is anything llmc_chat_template_load takes.
struct ChatTemplate {
  llmc_chat_template *t = nullptr;
  explicit ChatTemplate(const std::string &path) { check(llmc_chat_template_load(path.c_str(), &t)); }
  ChatTemplate(const std::string &source, bool) {
    check(llmc_chat_template_create(source.data(), source.size(), &t));
  }
  ~ChatTemplate() { llmc_chat_template_destroy(t); }
};

/// Renders with the two-call BUFFER_TOO_SMALL protocol (measure, then fill),
/// which every render here exercises.
llmc_status chat_render(const llmc_chat_template *t, const std::string &messages,
                        const llmc_chat_render_options &opts, std::string &out) {
  size_t need = 0;
  llmc_status st = llmc_chat_template_render(t, messages.data(), messages.size(), &opts, nullptr, 0, &need);
  if (st == LLMC_OK) {
    out.clear();
    return st;
  }
  if (st != LLMC_ERR_BUFFER_TOO_SMALL)
    return st;
  std::string buf(need, '\0');
  size_t got = 0;
  st = llmc_chat_template_render(t, messages.data(), messages.size(), &opts, buf.data(), buf.size(), &got);
  if (st == LLMC_OK && got != need)
    die("chat render: the size changed between the measuring and the filling call");
  out = buf.substr(0, got);
  return st;
}

/// chat-render TEMPLATE MESSAGES_JSON_FILE [--add-generation-prompt]
///   [--bos X] [--eos Y] [--tools FILE] [--vars FILE] [--create]
/// Prints the prompt exactly (no newline added). --create reads TEMPLATE as
/// template text and uses llmc_chat_template_create instead of _load.
int cmd_chat_render(const std::vector<std::string> &args) {
  if (args.size() < 2)
    die("usage: chat-render TEMPLATE MESSAGES_JSON_FILE [--add-generation-prompt] [--bos X] [--eos Y] "
        "[--tools FILE] [--vars FILE] [--create]");
  llmc_chat_render_options opts{};
  std::string bos, eos, tools, vars;
  bool create = false;
  for (size_t i = 2; i < args.size(); ++i) {
    auto value = [&]() -> const std::string & {
      if (i + 1 >= args.size())
        die(args[i] + " needs a value");
      return args[++i];
    };
    if (args[i] == "--add-generation-prompt") {
      opts.add_generation_prompt = 1;
    } else if (args[i] == "--bos") {
      bos = value();
      opts.bos_token = bos.c_str();
    } else if (args[i] == "--eos") {
      eos = value();
      opts.eos_token = eos.c_str();
    } else if (args[i] == "--tools") {
      tools = read_file(value());
      opts.tools_json = tools.data();
      opts.tools_json_len = tools.size();
    } else if (args[i] == "--vars") {
      vars = read_file(value());
      opts.variables_json = vars.data();
      opts.variables_json_len = vars.size();
    } else if (args[i] == "--create") {
      create = true;
    } else {
      die("unknown option '" + args[i] + "'");
    }
  }
  std::unique_ptr<ChatTemplate> t = create ? std::make_unique<ChatTemplate>(read_file(args[0]), true)
                                           : std::make_unique<ChatTemplate>(args[0]);
  std::string out;
  check(chat_render(t->t, read_file(args[1]), opts, out));
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

/// chat-goldens GOLDENS_JSON INPUTS_DIR [MODEL_TEMPLATE]
/// Renders every case of a golden file written by Inputs/chat_goldens.py
/// and compares byte for byte with what transformers rendered: the output,
/// or for a case that must fail, the exact message (raise_exception), or
/// jinja2's message after llmc's "line L, column C: " (an undefined value used). A case names a template
/// file under INPUTS_DIR, carries its template text, or says "@model" (the
/// template loaded from MODEL_TEMPLATE, a GGUF file).
int cmd_chat_goldens(const std::vector<std::string> &args) {
  if (args.size() < 2)
    die("usage: chat-goldens GOLDENS_JSON INPUTS_DIR [MODEL_TEMPLATE]");
  llmc::rt::JsonValue doc = llmc::rt::parse_json(read_file(args[0]), args[0]);
  const llmc::rt::JsonValue *cases = doc.get("cases");
  if (!cases || cases->kind != llmc::rt::JsonValue::Kind::Array)
    die(args[0] + ": no \"cases\" list");
  std::map<std::string, std::unique_ptr<ChatTemplate>> loaded;
  size_t compared = 0, failed = 0;
  auto text = [](const llmc::rt::JsonValue &c, const char *key) -> const std::string * {
    const llmc::rt::JsonValue *v = c.get(key);
    return v && v->kind == llmc::rt::JsonValue::Kind::String ? &v->text : nullptr;
  };
  for (const llmc::rt::JsonValue &c : cases->items) {
    const std::string *name = text(c, "name"), *file = text(c, "template"), *source = text(c, "source");
    const std::string *messages = text(c, "messages_json");
    if (!name || !messages || (!file && !source))
      die(args[0] + ": a case lacks name, messages_json or template/source");
    std::string key = file ? *file : "inline:" + *name;
    if (!loaded.count(key)) {
      if (source)
        loaded[key] = std::make_unique<ChatTemplate>(*source, true);
      else if (*file == "@model" && args.size() > 2)
        loaded[key] = std::make_unique<ChatTemplate>(args[2]);
      else if (*file == "@model")
        die("case " + *name + " renders the model's template: pass MODEL_TEMPLATE");
      else
        loaded[key] = std::make_unique<ChatTemplate>(args[1] + "/" + *file);
    }
    llmc_chat_render_options opts{};
    const llmc::rt::JsonValue *agp = c.get("add_generation_prompt");
    opts.add_generation_prompt = agp && agp->boolean;
    const std::string *bos = text(c, "bos_token"), *eos = text(c, "eos_token");
    const std::string *tools = text(c, "tools_json"), *vars = text(c, "vars_json");
    opts.bos_token = bos ? bos->c_str() : nullptr;
    opts.eos_token = eos ? eos->c_str() : nullptr;
    if (tools) {
      opts.tools_json = tools->data();
      opts.tools_json_len = tools->size();
    }
    if (vars) {
      opts.variables_json = vars->data();
      opts.variables_json_len = vars->size();
    }
    std::string out;
    llmc_status st = chat_render(loaded[key]->t, *messages, opts, out);
    ++compared;
    const std::string *want = text(c, "expected"), *want_error = text(c, "error");
    const std::string *want_suffix = text(c, "error_suffix");
    if (want) {
      if (st != LLMC_OK) {
        ++failed;
        std::printf("FAIL %s: %s: %s\n", name->c_str(), llmc_status_name(st), llmc_last_error());
      } else if (out != *want) {
        ++failed;
        std::printf("FAIL %s: rendered differently\n--- expected\n%s\n--- got\n%s\n---\n", name->c_str(),
                    want->c_str(), out.c_str());
      }
    } else if (want_error) {
      if (st == LLMC_OK || *want_error != llmc_last_error()) {
        ++failed;
        std::printf("FAIL %s: expected the error '%s', got %s\n", name->c_str(), want_error->c_str(),
                    st == LLMC_OK ? "success" : llmc_last_error());
      }
    } else if (want_suffix) {
      std::string got = st == LLMC_OK ? "" : llmc_last_error();
      if (st == LLMC_OK || got.size() < want_suffix->size() + 2 ||
          got.compare(got.size() - want_suffix->size() - 2, std::string::npos, ": " + *want_suffix) != 0) {
        ++failed;
        std::printf("FAIL %s: expected an error ending in '%s', got %s\n", name->c_str(), want_suffix->c_str(),
                    st == LLMC_OK ? "success" : got.c_str());
      }
    } else {
      die(args[0] + ": case " + *name + " has neither expected nor error");
    }
  }
  std::printf("compared %zu renderings, %zu failed\n", compared, failed);
  return failed ? 1 : 0;
}


/// chat-api-checks: the C API's argument checks and the BUFFER_TOO_SMALL
/// protocol, one line per call: "<what>: <status>: <message>".
int cmd_chat_api_checks(const std::vector<std::string> &) {
  auto report = [](const char *what, llmc_status st) {
    std::printf("%s: %s: %s\n", what, llmc_status_name(st), st == LLMC_OK ? "" : llmc_last_error());
  };
  const char src[] = "{{ messages[0].content }}";
  const char msgs[] = "[{\"role\": \"user\", \"content\": \"Hello\"}]";
  llmc_chat_template *t = nullptr;
  report("create-null-out", llmc_chat_template_create(src, sizeof src - 1, nullptr));
  report("create-null-source", llmc_chat_template_create(nullptr, 3, &t));
  report("load-null-path", llmc_chat_template_load(nullptr, &t));
  report("load-null-out", llmc_chat_template_load("x.jinja", nullptr));
  report("from-weights-null-weights", llmc_chat_template_from_weights(nullptr, &t));
  check(llmc_chat_template_create(src, sizeof src - 1, &t));
  size_t len = 0;
  char small[3];
  report("render-null-template", llmc_chat_template_render(nullptr, msgs, sizeof msgs - 1, nullptr, small, 3, &len));
  report("render-null-len", llmc_chat_template_render(t, msgs, sizeof msgs - 1, nullptr, small, 3, nullptr));
  report("render-null-messages", llmc_chat_template_render(t, nullptr, 4, nullptr, small, 3, &len));
  llmc_status st = llmc_chat_template_render(t, msgs, sizeof msgs - 1, nullptr, small, sizeof small, &len);
  report("render-small-buffer", st);
  std::printf("required: %zu\n", len);
  report("render-null-buffer", llmc_chat_template_render(t, msgs, sizeof msgs - 1, nullptr, nullptr, 64, &len));
  char big[8];
  st = llmc_chat_template_render(t, msgs, sizeof msgs - 1, nullptr, big, sizeof big, &len);
  report("render-exact", st);
  std::printf("text: %.*s\n", static_cast<int>(len), big);
  const char *s = nullptr;
  report("source-null-len", llmc_chat_template_source(t, &s, nullptr));
  report("source", llmc_chat_template_source(t, &s, &len));
  std::printf("source: %.*s\n", static_cast<int>(len), s);
  llmc_chat_template_destroy(t);
  llmc_chat_template_destroy(nullptr);

  // Concurrent renders on one handle (the header promises they are safe):
  // every thread must get the single-threaded result every time.
  const char loop_src[] = "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}"
                          "{{ m.content | upper }}{{ m | tojson }}{% endfor %}{{ ns.n }}";
  check(llmc_chat_template_create(loop_src, sizeof loop_src - 1, &t));
  llmc_chat_render_options opts{};
  std::string want;
  check(chat_render(t, msgs, opts, want));
  constexpr int kThreads = 4, kRenders = 200;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k)
    threads.emplace_back([&, k] {
      for (int i = 0; i < kRenders; ++i) {
        std::string got;
        if (chat_render(t, msgs, opts, got) != LLMC_OK || got != want)
          ++mismatches[k];
      }
    });
  for (auto &th : threads)
    th.join();
  int total = 0;
  for (int m : mismatches)
    total += m;
  std::printf("concurrent renders: %d x %d, %d different\n", kThreads, kRenders, total);
  llmc_chat_template_destroy(t);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  static const std::map<std::string, std::function<int(const std::vector<std::string> &)>>
      kCommands = {
          {"info", cmd_info},           {"dump", cmd_dump},
          {"dump-f32", cmd_dump_f32},
          {"compare", cmd_compare},     {"open", cmd_open},
          {"meta", cmd_meta},           {"tok-info", cmd_tok_info},
          {"tok-decode", cmd_tok_decode}, {"tok-encode", cmd_tok_encode},
          {"tok-roundtrip", cmd_tok_roundtrip}, {"tok-match", cmd_tok_match},
          {"tok-golden", cmd_tok_golden}, {"tok-special", cmd_tok_special},
          {"sampler", cmd_sampler},     {"rope-permute", cmd_rope_permute},
          {"session", cmd_session},     {"half-round", cmd_half_round},
          {"wait-detector", cmd_wait_detector},
          {"bind-shared", cmd_bind_shared},
          {"bind-resident", cmd_bind_resident},
          {"residency", cmd_residency},
          {"huge-page-arena", cmd_huge_page_arena},
          {"planar-layout", cmd_planar_layout},
          {"interleave-layout", cmd_interleave_layout},
          {"parallel-chunks", cmd_parallel_chunks},
          {"cuda-rank", cmd_cuda_rank}, {"scratch-arena", cmd_scratch_arena},
          {"scratch-replay", cmd_scratch_replay},
          {"info-model", cmd_info_model}, {"threads", cmd_threads},
          {"random-weights", cmd_random_weights},
          {"device-sampling", cmd_device_sampling}, {"rng-draws", cmd_rng_draws},
          {"chat-render", cmd_chat_render}, {"chat-goldens", cmd_chat_goldens},
          {"chat-api-checks", cmd_chat_api_checks},
      };
  if (argc < 2 || !kCommands.count(argv[1])) {
    std::fprintf(stderr, "usage: llmc-runtime-test <command> [args]; commands:");
    for (const auto &c : kCommands)
      std::fprintf(stderr, " %s", c.first.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  return kCommands.at(argv[1])(args);
}
