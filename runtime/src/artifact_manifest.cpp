// Parses and validates the artifact manifest written by `llmc compile`.
#include "artifact_manifest.h"

#include "dtype.h"
#include "quant/interleave.h"
#include "quant/planar.h"

#include "checked_math.h"
#include "error.h"
#include "json_lite.h"
#include "llmc/cuda_host_api.h"

#include <cctype>
#include <limits>

namespace llmc::rt {

namespace {

/// Number of KV cache dimensions: [planes (2: K and V; 1: keys that are
/// also the values), layers, batch, context, kv heads, head dim], the
/// contiguous layout of the ABI.
constexpr size_t kKvCacheRank = 6;

/// Reads fields of one JSON object, naming the full dotted path of a field in
/// every error ("config.vocab_size") so a hand-edited manifest is easy to fix.
class Fields {
public:
  Fields(const JsonValue &object, std::string prefix, const std::string &path)
      : obj_(object), prefix_(std::move(prefix)), path_(path) {}

  const JsonValue &value(const char *key) const {
    const JsonValue *v = obj_.get(key);
    if (!v)
      fail(LLMC_ERR_FORMAT, path_, ": manifest field '", prefix_, key,
           "' is missing");
    return *v;
  }
  const JsonValue *optional(const char *key) const {
    const JsonValue *v = obj_.get(key);
    return v && v->kind != JsonValue::Kind::Null ? v : nullptr;
  }
  std::string string(const char *key) const {
    const JsonValue &v = value(key);
    if (v.kind != JsonValue::Kind::String || v.text.empty())
      bad_type(key, "a non-empty string", v);
    return v.text;
  }
  int64_t integer(const char *key, int64_t lo, int64_t hi) const {
    return to_integer(value(key), key, lo, hi);
  }
  bool boolean(const char *key) const {
    const JsonValue &v = value(key);
    if (v.kind != JsonValue::Kind::Bool)
      bad_type(key, "true or false", v);
    return v.boolean;
  }
  Fields object(const char *key) const {
    const JsonValue &v = value(key);
    if (v.kind != JsonValue::Kind::Object)
      bad_type(key, "an object", v);
    return Fields(v, prefix_ + key + ".", path_);
  }
  const std::vector<JsonValue> &array(const char *key) const {
    const JsonValue &v = value(key);
    if (v.kind != JsonValue::Kind::Array)
      bad_type(key, "an array", v);
    return v.items;
  }

  /// An exact integer in [lo, hi]; fractions and exponents are rejected
  /// rather than rounded, since every size here must be exact.
  int64_t to_integer(const JsonValue &v, const std::string &key, int64_t lo,
                     int64_t hi) const {
    if (v.kind != JsonValue::Kind::Number)
      bad_type(key, "an integer", v);
    bool negative = !v.text.empty() && v.text[0] == '-';
    JsonValue magnitude = v;
    if (negative)
      magnitude.text.erase(0, 1);
    uint64_t u = 0;
    if (!magnitude.as_uint64(&u) ||
        u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail(LLMC_ERR_FORMAT, path_, ": manifest field '", prefix_, key,
           "' must be an integer, got ", v.text);
    int64_t i = negative ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
    if (i < lo || i > hi)
      fail(LLMC_ERR_FORMAT, path_, ": manifest field '", prefix_, key, "' = ",
           i, " is outside [", lo, ", ", hi, "]");
    return i;
  }

  [[noreturn]] void bad_type(const std::string &key, const char *want,
                             const JsonValue &got) const {
    fail(LLMC_ERR_FORMAT, path_, ": manifest field '", prefix_, key,
         "' must be ", want, ", got ", json_kind_name(got.kind));
  }

  const std::string &prefix() const { return prefix_; }
  const std::string &path() const { return path_; }

private:
  const JsonValue &obj_;
  std::string prefix_;
  const std::string &path_;
};

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

uint64_t mul_or_fail(uint64_t a, uint64_t b, const Manifest &m, const char *what) {
  uint64_t r;
  if (!checked_mul(a, b, &r))
    fail(LLMC_ERR_FORMAT, m.path, ": ", what, " overflows 64 bits");
  return r;
}

int32_t positive_i32(const Fields &f, const char *key) {
  return static_cast<int32_t>(f.integer(key, 1, kInt32Max));
}

/// eos_token_id is an integer in most configs but a list in Llama 3's.
std::vector<int32_t> eos_ids(const Fields &config) {
  std::vector<int32_t> ids;
  const JsonValue *v = config.optional("eos_token_id");
  if (!v)
    return ids;
  if (v->kind == JsonValue::Kind::Array) {
    for (size_t i = 0; i < v->items.size(); ++i)
      ids.push_back(static_cast<int32_t>(config.to_integer(
          v->items[i], cat("eos_token_id[", i, "]"), 0, kInt32Max)));
  } else {
    ids.push_back(static_cast<int32_t>(
        config.to_integer(*v, "eos_token_id", -1, kInt32Max)));
    if (ids.back() < 0)
      ids.clear();
  }
  return ids;
}

void parse_config(const Fields &c, Manifest &m) {
  m.architecture = c.string("architecture");
  m.hidden_size = positive_i32(c, "hidden_size");
  m.num_layers = positive_i32(c, "num_layers");
  m.num_heads = positive_i32(c, "num_heads");
  m.num_kv_heads = positive_i32(c, "num_kv_heads");
  m.head_dim = positive_i32(c, "head_dim");
  m.vocab_size = positive_i32(c, "vocab_size");
  m.max_position_embeddings = positive_i32(c, "max_position_embeddings");
  auto rope_layout = [&](const char *key) {
    std::string rope = c.string(key);
    if (rope == "half")
      return LLMC_ROPE_HALF;
    if (rope == "interleaved")
      return LLMC_ROPE_INTERLEAVED;
    fail(LLMC_ERR_UNSUPPORTED, m.path, ": manifest field 'config.", key,
         "' = '", rope, "' is not one of 'half', 'interleaved'");
  };
  m.rope_layout = rope_layout("rope_style");
  // Absent in artifacts from before GPT-J: every family rotated halves.
  if (c.optional("safetensors_rope_style"))
    m.safetensors_rope_layout = rope_layout("safetensors_rope_style");
  if (m.head_dim % 2 != 0)
    fail(LLMC_ERR_FORMAT, m.path, ": manifest field 'config.head_dim' = ",
         m.head_dim, " must be even (RoPE rotates pairs)");
  if (m.num_heads % m.num_kv_heads != 0)
    fail(LLMC_ERR_FORMAT, m.path, ": config.num_heads (", m.num_heads,
         ") is not a multiple of config.num_kv_heads (", m.num_kv_heads, ")");
  m.tie_word_embeddings = c.optional("tie_word_embeddings")
                              ? c.boolean("tie_word_embeddings")
                              : false;
  m.bos_token_id = c.optional("bos_token_id")
                       ? static_cast<int32_t>(c.integer("bos_token_id", -1, kInt32Max))
                       : -1;
  m.eos_token_ids = eos_ids(c);
}

/// A paged cache's page size and page-table header: the table, batch ·
/// context_length / page_size int32 entries, must fit the header, whose
/// size keeps the keys and values behind it 16-byte aligned.
void parse_page_table(const Fields &kv, Manifest &m) {
  m.kv_page_size =
      static_cast<int32_t>(kv.integer("page_size", 1, m.context_length));
  if (m.context_length % m.kv_page_size != 0)
    fail(LLMC_ERR_FORMAT, m.path, ": kv_cache.page_size (", m.kv_page_size,
         ") does not divide context_length (", m.context_length, ")");
  uint64_t entries = static_cast<uint64_t>(m.batch) *
                     static_cast<uint64_t>(m.context_length / m.kv_page_size);
  uint64_t table_bytes = static_cast<uint64_t>(
      kv.integer("page_table_bytes", 1, kInt32Max));
  if (table_bytes < entries * sizeof(int32_t) || table_bytes % 16 != 0)
    fail(LLMC_ERR_FORMAT, m.path, ": kv_cache.page_table_bytes (",
         table_bytes, ") must be a multiple of 16 that holds ", entries,
         " int32 page numbers");
  m.kv_cache_bytes += table_bytes;
}

void parse_kv_cache(const Fields &kv, Manifest &m) {
  std::string layout = kv.string("layout");
  if (layout != "contiguous" && layout != "paged")
    fail(LLMC_ERR_UNSUPPORTED, m.path, ": kv_cache.layout '", layout,
         "' is not supported (expected 'contiguous' or 'paged')");
  // The runtime only allocates the cache and zeroes it (0.0 in every float
  // format, code 0 with scale 0.0 in a quantized one); the compiled code
  // reads and writes its elements.
  std::string dtype = kv.string("dtype");
  bool quantized = dtype == "i8" || dtype == "f8E4M3FN";
  size_t element_bytes = dtype == "f32"                       ? 4
                         : (dtype == "bf16" || dtype == "f16") ? 2
                         : quantized                           ? 1
                                                               : 0;
  if (element_bytes == 0)
    fail(LLMC_ERR_UNSUPPORTED, m.path, ": kv_cache.dtype '", dtype,
         "' is not supported (expected 'f32', 'bf16', 'f16', 'i8' or "
         "'f8E4M3FN')");
  // A quantized cache's head rows (head_dim codes) each carry an f32 scale.
  uint64_t scale_bytes = 0;
  if (quantized) {
    scale_bytes = static_cast<uint64_t>(kv.integer("scale_bytes", 0, 64));
    if (scale_bytes != sizeof(float))
      fail(LLMC_ERR_FORMAT, m.path, ": kv_cache.scale_bytes (", scale_bytes,
           ") must be 4 (an f32 scale per head row) for dtype '", dtype,
           "'");
  }
  // "keys": the values are the keys, stored once (one plane, half the
  // bytes); "separate" (or absent, as before the field existed): two planes.
  std::string values =
      kv.optional("values") ? kv.string("values") : std::string("separate");
  if (values != "separate" && values != "keys")
    fail(LLMC_ERR_UNSUPPORTED, m.path, ": kv_cache.values '", values,
         "' is not supported (expected 'separate' or 'keys')");
  const int64_t planes = values == "keys" ? 1 : 2;
  const auto &dims = kv.array("shape");
  for (size_t i = 0; i < dims.size(); ++i)
    m.kv_shape.push_back(
        kv.to_integer(dims[i], cat("shape[", i, "]"), 1, kInt32Max));
  const std::vector<int64_t> expected = {planes,
                                         m.num_layers,
                                         m.batch,
                                         m.context_length,
                                         m.num_kv_heads,
                                         m.head_dim};
  if (m.kv_shape != expected) {
    std::string got, want;
    for (size_t i = 0; i < m.kv_shape.size(); ++i)
      got += cat(i ? "," : "", m.kv_shape[i]);
    for (size_t i = 0; i < kKvCacheRank; ++i)
      want += cat(i ? "," : "", expected[i]);
    fail(LLMC_ERR_FORMAT, m.path, ": kv_cache.shape [", got,
         "] does not match [",
         planes == 1 ? "1 (kv_cache.values 'keys')" : "2",
         ", num_layers, batch, context_length, num_kv_heads, head_dim] = [",
         want, "]");
  }
  uint64_t rows = 1;
  for (size_t i = 0; i + 1 < m.kv_shape.size(); ++i)
    rows = mul_or_fail(rows, static_cast<uint64_t>(m.kv_shape[i]), m,
                       "kv_cache size");
  uint64_t row_bytes =
      static_cast<uint64_t>(m.head_dim) * element_bytes + scale_bytes;
  m.kv_cache_bytes = mul_or_fail(rows, row_bytes, m, "kv_cache size");
  if (layout == "paged")
    parse_page_table(kv, m);
}

/// A weight's "source": {"tensor": name, "rows": [start, count, stride,
/// groups]}; the groups of rows make exactly the weight's first dimension.
void parse_weight_source(const Fields &source, const Manifest &m,
                         ManifestWeight &mw) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  mw.source = source.string("tensor");
  const auto &rows = source.array("rows");
  if (rows.size() != 4)
    fail(LLMC_ERR_FORMAT, m.path, ": weight '", mw.name,
         "' source.rows has ", rows.size(),
         " entries (expected start, count, stride, groups)");
  mw.row_start = source.to_integer(rows[0], "rows[0]", 0, kMax);
  mw.row_count = source.to_integer(rows[1], "rows[1]", 1, kMax);
  mw.row_stride = source.to_integer(rows[2], "rows[2]", 1, kMax);
  mw.row_groups = source.to_integer(rows[3], "rows[3]", 1, kMax);
  if (mw.row_groups > 1 && mw.row_stride < mw.row_count)
    fail(LLMC_ERR_FORMAT, m.path, ": weight '", mw.name, "' source.rows: ",
         "groups of ", mw.row_count, " rows overlap at stride ",
         mw.row_stride);
  if (mw.row_count * mw.row_groups != mw.shape[0])
    fail(LLMC_ERR_FORMAT, m.path, ": weight '", mw.name, "' source.rows select ",
         mw.row_groups, " x ", mw.row_count, " rows for ", mw.shape[0],
         " (its shape[0])");
}

void parse_weights(const Fields &top, Manifest &m) {
  const auto &items = top.array("weights");
  if (items.empty())
    fail(LLMC_ERR_FORMAT, m.path, ": manifest field 'weights' is empty");
  for (size_t i = 0; i < items.size(); ++i) {
    std::string prefix = cat("weights[", i, "].");
    if (items[i].kind != JsonValue::Kind::Object)
      fail(LLMC_ERR_FORMAT, m.path, ": manifest field 'weights[", i,
           "]' must be an object");
    Fields w(items[i], prefix, m.path);
    ManifestWeight mw;
    mw.name = w.string("name");
    mw.dtype = w.string("dtype");
    // The formats compiled code reads: floats, and the GGUF blocks the CPU
    // and CUDA kernels decode.
    bool block = false;
    if (!parse_artifact_dtype(mw.dtype, &mw.format, &block))
      fail(LLMC_ERR_UNSUPPORTED, m.path, ": weight '", mw.name, "' has dtype '",
           mw.dtype, "'; this runtime binds ", artifact_dtype_names(), " weights");
    const auto &dims = w.array("shape");
    if (dims.empty() || dims.size() > LLMC_MAX_DIMS)
      fail(LLMC_ERR_FORMAT, m.path, ": weight '", mw.name, "' has ",
           dims.size(), " dimensions (1 to ", LLMC_MAX_DIMS, " supported)");
    uint64_t n = 1;
    for (size_t d = 0; d < dims.size(); ++d) {
      mw.shape.push_back(w.to_integer(dims[d], cat("shape[", d, "]"), 1,
                                      std::numeric_limits<int64_t>::max()));
      n = mul_or_fail(n, static_cast<uint64_t>(mw.shape.back()), m, "weight size");
    }
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail(LLMC_ERR_FORMAT, m.path, ": weight '", mw.name, "' is too large");
    mw.n_elements = static_cast<int64_t>(n);
    uint32_t block_elems = dtype_traits(mw.format).block_elems;
    if (block && (mw.shape.size() != 2 || mw.shape[1] % block_elems != 0))
      fail(LLMC_ERR_FORMAT, m.path, ": weight '", mw.name, "' in ", mw.dtype,
           " must be a matrix whose rows are whole blocks of ", block_elems,
           " elements");
    if (w.optional("interleave")) {
      // Rows stored in interleaved groups (the CPU kernels' layout of some
      // block weights), repacked from the file's rows at load.
      mw.interleave = w.integer("interleave", 1, 16);
      if (mw.interleave != 1 &&
          (!can_interleave(mw.format, mw.interleave, 1) ||
           mw.shape.size() != 2 || mw.shape[0] % mw.interleave != 0 ||
           m.target != TargetKind::Cpu))
        fail(LLMC_ERR_FORMAT, m.path, ": weight '", mw.name, "' has interleave ",
             mw.interleave, "; this runtime interleaves groups of 8 rows of a "
             "CPU artifact's q8_0, q4_0, q4_1, q5_0 or q5_1 matrix, and groups "
             "of 16 rows of its f32, f16 or bf16 matrices, whose row count is "
             "a multiple of the group");
    }
    if (w.optional("interleave_columns")) {
      // A row's elements side by side in its group (bf16 pairs).
      mw.interleave_columns = w.integer("interleave_columns", 1, 2);
      if (mw.interleave_columns != 1 &&
          (mw.interleave == 1 ||
           !can_interleave(mw.format, mw.interleave, mw.interleave_columns) ||
           mw.shape[1] % mw.interleave_columns != 0))
        fail(LLMC_ERR_FORMAT, m.path, ": weight '", mw.name,
             "' has interleave_columns ", mw.interleave_columns,
             "; this runtime stores runs of 2 columns only in the interleaved "
             "groups of a bf16 matrix whose row length is even");
    }
    if (w.optional("layout")) {
      // "rows" (the file's, the default) or "planar": planes of each block
      // segment, the CUDA kernels' layout, repacked at load.
      const std::string layout = w.string("layout");
      if (layout == "planar")
        mw.planar = true;
      else if (layout != "rows")
        fail(LLMC_ERR_FORMAT, m.path, ": weight '", mw.name, "' has layout '",
             layout, "'; this runtime stores weights as 'rows' or 'planar'");
      if (mw.planar && (!has_planar_layout(mw.format) || mw.interleave != 1 ||
                        m.target != TargetKind::Cuda))
        fail(LLMC_ERR_FORMAT, m.path, ": weight '", mw.name,
             "' has layout 'planar'; this runtime stores planes of a CUDA "
             "artifact's q8_0, q4_0, q4_1, q5_0, q5_1, q4_k, q5_k or q6_k "
             "matrix that is not interleaved");
    }
    if (w.optional("source"))
      parse_weight_source(w.object("source"), m, mw);
    for (const auto &other : m.weights)
      if (other.name == mw.name)
        fail(LLMC_ERR_FORMAT, m.path, ": weight '", mw.name,
             "' is listed twice");
    m.weights.push_back(std::move(mw));
  }
}

/// "sm_<digits>[a|f]" → its compute capability as 10 * major + minor
/// (sm_86 → 86, sm_100 → 100) and whether it is an architecture-specific
/// variant; false for anything else.
bool parse_sm_arch(const std::string &arch, int32_t *sm, bool *specific) {
  if (arch.compare(0, 3, "sm_") != 0)
    return false;
  size_t i = 3;
  int32_t value = 0;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i]))) {
    value = value * 10 + (arch[i] - '0');
    if (value > 10000)
      return false;
    ++i;
  }
  size_t digits = i - 3;
  bool suffix = i + 1 == arch.size() && (arch[i] == 'a' || arch[i] == 'f');
  if (digits < 2 || (i != arch.size() && !suffix))
    return false;
  *sm = value;
  *specific = suffix;
  return true;
}

std::string sm_arch(const Fields &f, const JsonValue &v, const std::string &key,
                    int32_t *sm, bool *specific) {
  if (v.kind != JsonValue::Kind::String || v.text.empty())
    f.bad_type(key, "a non-empty string", v);
  if (!parse_sm_arch(v.text, sm, specific))
    fail(LLMC_ERR_FORMAT, f.path(), ": manifest field '", f.prefix(), key,
         "' = '", v.text, "' is not a CUDA architecture like 'sm_90'");
  return v.text;
}

/// target.archs and the "cuda" object of a CUDA artifact. The host API
/// version is checked before anything else in the object, like abi_version.
void parse_cuda(const Fields &top, const Fields &target, Manifest &m) {
  const auto &archs = target.array("archs");
  if (archs.empty())
    fail(LLMC_ERR_FORMAT, m.path, ": manifest field 'target.archs' is empty");
  for (size_t i = 0; i < archs.size(); ++i) {
    int32_t sm;
    bool specific;
    m.target_archs.push_back(
        sm_arch(target, archs[i], cat("archs[", i, "]"), &sm, &specific));
  }

  Fields cuda = top.object("cuda");
  m.cuda_host_api_version = cuda.integer("host_api_version", 0,
                                         std::numeric_limits<int64_t>::max());
  if (m.cuda_host_api_version < LLMC_CUDA_HOST_API_MIN_VERSION ||
      m.cuda_host_api_version > LLMC_CUDA_HOST_API_VERSION)
    fail(LLMC_ERR_UNSUPPORTED, m.path, ": the artifact's CUDA host API version ",
         m.cuda_host_api_version, " is not supported (this runtime implements "
         "versions ", LLMC_CUDA_HOST_API_MIN_VERSION, " to ",
         LLMC_CUDA_HOST_API_VERSION,
         "); recompile the model with a matching llmc");
  m.cuda_host_api_symbol = cuda.string("host_api_symbol");

  const auto &images = cuda.array("images");
  if (images.empty())
    fail(LLMC_ERR_FORMAT, m.path, ": manifest field 'cuda.images' is empty");
  for (size_t i = 0; i < images.size(); ++i) {
    if (images[i].kind != JsonValue::Kind::Object)
      fail(LLMC_ERR_FORMAT, m.path, ": manifest field 'cuda.images[", i,
           "]' must be an object");
    Fields img(images[i], cat("cuda.images[", i, "]."), m.path);
    ManifestCudaImage mi;
    mi.arch = sm_arch(img, img.value("arch"), "arch", &mi.sm, &mi.arch_specific);
    mi.format = img.string("format");
    if (mi.format != "cubin" && mi.format != "ptx")
      fail(LLMC_ERR_UNSUPPORTED, m.path, ": manifest field 'cuda.images[", i,
           "].format' = '", mi.format, "' is not one of 'cubin', 'ptx'");
    mi.symbol = img.string("symbol");
    mi.bytes = static_cast<uint64_t>(
        img.integer("bytes", 1, std::numeric_limits<int64_t>::max()));
    bool listed = false;
    for (const auto &a : m.target_archs)
      listed = listed || a == mi.arch;
    if (!listed)
      fail(LLMC_ERR_FORMAT, m.path, ": manifest field 'cuda.images[", i,
           "].arch' = '", mi.arch, "' is not one of target.archs");
    for (const auto &other : m.cuda_images)
      if (other.arch == mi.arch && other.format == mi.format)
        fail(LLMC_ERR_FORMAT, m.path, ": manifest field 'cuda.images' lists the ",
             mi.arch, " ", mi.format, " twice");
    m.cuda_images.push_back(std::move(mi));
  }
}

} // namespace

Manifest parse_manifest(const std::string &text, const std::string &path) {
  JsonValue root = parse_json(text, path);
  if (root.kind != JsonValue::Kind::Object)
    fail(LLMC_ERR_FORMAT, path, ": manifest must be a JSON object, got ",
         json_kind_name(root.kind));
  Manifest m;
  m.path = path;
  Fields top(root, "", path);

  m.abi_version = top.integer("abi_version", 0, std::numeric_limits<int64_t>::max());
  if (m.abi_version != LLMC_ABI_VERSION)
    fail(LLMC_ERR_UNSUPPORTED, path, ": artifact ABI version ", m.abi_version,
         " is not supported (this runtime runs version ", LLMC_ABI_VERSION,
         "); recompile the model with a matching llmc");
  Fields target = top.object("target");
  m.target_kind = target.string("kind");
  if (m.target_kind == "cpu")
    m.target = TargetKind::Cpu;
  else if (m.target_kind == "cuda")
    m.target = TargetKind::Cuda;
  else
    fail(LLMC_ERR_UNSUPPORTED, path, ": artifact was compiled for target '",
         m.target_kind, "'; this runtime runs 'cpu' and 'cuda' artifacts");
  if (m.target == TargetKind::Cuda)
    parse_cuda(top, target, m);
  m.target_triple = target.optional("triple") ? target.string("triple") : "";
  if (m.target == TargetKind::Cpu) {
    // Informational (llmc_model_info.target_arch): any string, even empty.
    if (const JsonValue *cpu = target.optional("cpu")) {
      if (cpu->kind != JsonValue::Kind::String)
        target.bad_type("cpu", "a string", *cpu);
      m.target_arch = cpu->text;
    }
  } else {
    for (const auto &a : m.target_archs)
      m.target_arch += cat(m.target_arch.empty() ? "" : ",", a);
  }

  m.name = top.string("name");
  m.library = top.string("library");
  if (m.library.find('/') != std::string::npos)
    fail(LLMC_ERR_FORMAT, path, ": manifest field 'library' must be a file name "
         "inside the artifact directory, got '", m.library, "'");
  Fields entries = top.object("entry_points");
  m.prefill_symbol = entries.string("prefill");
  m.decode_symbol = entries.string("decode");

  parse_config(top.object("config"), m);
  m.batch = positive_i32(top, "batch");
  if (m.batch != 1)
    fail(LLMC_ERR_UNSUPPORTED, path, ": artifact batch ", m.batch,
         " is not supported (sessions decode one sequence: batch 1)");
  m.context_length = positive_i32(top, "context_length");
  std::string logits = top.string("logits_dtype");
  if (logits != "f32")
    fail(LLMC_ERR_UNSUPPORTED, path, ": logits_dtype '", logits,
         "' is not supported (expected 'f32')");
  parse_kv_cache(top.object("kv_cache"), m);
  parse_weights(top, m);
  return m;
}

} // namespace llmc::rt
