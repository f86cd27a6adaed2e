// GGUF parser (spec: ggml/docs/gguf.md), bounds-checked at every length and offset.
#include "weights_gguf.h"

#include "byte_reader.h"
#include "checked_math.h"
#include "dtype.h"
#include "error.h"
#include "tensor_names.h"

#include <cstring>
#include <limits>
#include <string>

namespace llmc::rt {

namespace {

constexpr char kMagic[4] = {'G', 'G', 'U', 'F'};
/// Versions 2 and 3 share the layout parsed here (v3 only added big-endian
/// files, which are refused); v1 used 32-bit counts and is obsolete.
constexpr uint32_t kMinVersion = 2;
constexpr uint32_t kMaxVersion = 3;
/// Spec default when general.alignment is absent.
constexpr uint64_t kDefaultAlignment = 32;
/// Nested arrays are legal but never used by real files; a cap keeps a
/// hostile file from recursing the parser off the stack.
constexpr int kMaxArrayDepth = 8;
/// Smallest possible encodings, used to reject impossible counts before
/// reserving memory for them: a KV pair is a key length (8) + type (4) +
/// one byte of value; a tensor info is a name length (8) + n_dims (4) +
/// type (4) + offset (8).
constexpr uint64_t kMinKvBytes = 8 + 4 + 1;
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;
constexpr uint64_t kStringLenBytes = 8;

/// ggml_type numbering from ggml.h. Only the types with an llmc_dtype are
/// loadable; the others are named so the error says what the file holds.
struct GgmlType {
  uint32_t id;
  const char *name;
  bool supported;
  llmc_dtype dtype;
};
constexpr GgmlType kGgmlTypes[] = {
    {0, "F32", true, LLMC_DTYPE_F32},     {1, "F16", true, LLMC_DTYPE_F16},
    {2, "Q4_0", true, LLMC_DTYPE_Q4_0},   {3, "Q4_1", true, LLMC_DTYPE_Q4_1},
    {6, "Q5_0", true, LLMC_DTYPE_Q5_0},   {7, "Q5_1", true, LLMC_DTYPE_Q5_1},
    {8, "Q8_0", true, LLMC_DTYPE_Q8_0},   {9, "Q8_1", false, {}},
    {10, "Q2_K", true, LLMC_DTYPE_Q2_K},  {11, "Q3_K", true, LLMC_DTYPE_Q3_K},
    {12, "Q4_K", true, LLMC_DTYPE_Q4_K},  {13, "Q5_K", true, LLMC_DTYPE_Q5_K},
    {14, "Q6_K", true, LLMC_DTYPE_Q6_K},  {15, "Q8_K", false, {}},
    {16, "IQ2_XXS", false, {}},           {17, "IQ2_XS", false, {}},
    {18, "IQ3_XXS", false, {}},           {19, "IQ1_S", false, {}},
    {20, "IQ4_NL", true, LLMC_DTYPE_IQ4_NL}, {21, "IQ3_S", false, {}},
    {22, "IQ2_S", false, {}},             {23, "IQ4_XS", false, {}},
    {24, "I8", false, {}},                {25, "I16", false, {}},
    {26, "I32", false, {}},               {27, "I64", false, {}},
    {28, "F64", false, {}},               {29, "IQ1_M", false, {}},
    {30, "BF16", true, LLMC_DTYPE_BF16},  {34, "TQ1_0", false, {}},
    {35, "TQ2_0", false, {}},             {39, "MXFP4", false, {}},
};

const GgmlType *find_ggml_type(uint32_t id) {
  for (const GgmlType &t : kGgmlTypes)
    if (t.id == id)
      return &t;
  return nullptr;
}

/// "F32, F16, ..." in table order, for the error that refuses a type.
std::string supported_type_names() {
  std::string names;
  for (const GgmlType &t : kGgmlTypes)
    if (t.supported)
      names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}

/// Architectures that llama.cpp runs with NEOX-style (half) RoPE and whose
/// converters therefore do not permute Q/K rows. Everything else, llama
/// first of all, is stored for interleaved rotation.
constexpr std::string_view kHalfRopeArchs[] = {
    "qwen2", "qwen2moe", "qwen3", "qwen3moe", "phi2",      "phi3",
    "gemma", "gemma2",   "gemma3", "falcon",  "gptneox",   "stablelm",
    "starcoder2", "olmo2"};

class GgufParser {
public:
  GgufParser(const MappedFile &file, WeightSet &set)
      : file_(file), set_(set), r_(file.data(), file.size(), file.path() + ": GGUF") {}

  void parse() {
    parse_header();
    for (uint64_t i = 0; i < kv_count_; ++i)
      parse_kv(i);
    uint64_t alignment = read_alignment();
    std::vector<TensorEntry> tensors;
    std::vector<uint64_t> offsets;
    tensors.reserve(tensor_count_);
    for (uint64_t i = 0; i < tensor_count_; ++i)
      parse_tensor_info(tensors, offsets);
    place_tensors(alignment, tensors, offsets);
    set_.rope_layout = rope_layout();
  }

private:
  [[noreturn]] void error(llmc_status status, const std::string &msg) const {
    fail(status, file_.path(), ": GGUF: ", msg);
  }

  std::string_view read_string(const char *field) {
    uint64_t len = r_.read<uint64_t>(field);
    return r_.read_bytes(len, field);
  }

  void parse_header() {
    if (file_.size() < sizeof kMagic || std::memcmp(file_.data(), kMagic, 4) != 0) {
      uint8_t m[4] = {0, 0, 0, 0};
      std::memcpy(m, file_.data(), std::min<uint64_t>(4, file_.size()));
      error(LLMC_ERR_FORMAT,
            cat("bad magic: expected \"GGUF\", found bytes ", std::hex,
                int(m[0]), " ", int(m[1]), " ", int(m[2]), " ", int(m[3])));
    }
    r_.skip(4, "magic");
    uint32_t version = r_.read<uint32_t>("version");
    if (version < kMinVersion || version > kMaxVersion) {
      uint32_t swapped = __builtin_bswap32(version);
      if (swapped >= kMinVersion && swapped <= kMaxVersion)
        error(LLMC_ERR_UNSUPPORTED, "big-endian GGUF files are not supported");
      error(LLMC_ERR_UNSUPPORTED, cat("unsupported version ", version,
                                      " (supported: 2 and 3)"));
    }
    tensor_count_ = r_.read<uint64_t>("tensor count");
    kv_count_ = r_.read<uint64_t>("metadata KV count");
    if (kv_count_ > r_.remaining() / kMinKvBytes)
      error(LLMC_ERR_FORMAT, cat("metadata KV count ", kv_count_,
                                 " is impossible for a file of ", file_.size(),
                                 " bytes"));
    if (tensor_count_ > r_.remaining() / kMinTensorInfoBytes)
      error(LLMC_ERR_FORMAT, cat("tensor count ", tensor_count_,
                                 " is impossible for a file of ", file_.size(),
                                 " bytes"));
  }

  void parse_value(llmc_meta_type type, MetaValue &out, int depth,
                   const std::string &key) {
    if (type == LLMC_META_STRING) {
      out.type = LLMC_META_STRING;
      out.str = read_string("metadata string value");
      return;
    }
    if (type != LLMC_META_ARRAY) {
      uint32_t size = meta_scalar_size(type);
      std::string_view bytes = r_.read_bytes(size, "metadata value");
      meta_decode_scalar(type, reinterpret_cast<const uint8_t *>(bytes.data()), &out);
      return;
    }
    if (depth >= kMaxArrayDepth)
      error(LLMC_ERR_FORMAT, cat("metadata '", key, "': arrays nested deeper than ",
                                 kMaxArrayDepth));
    uint32_t elem = r_.read<uint32_t>("metadata array type");
    if (!meta_type_valid(elem))
      error(LLMC_ERR_FORMAT, cat("metadata '", key, "': unknown array element type ", elem));
    uint64_t count = r_.read<uint64_t>("metadata array length");
    out.type = LLMC_META_ARRAY;
    out.elem_type = static_cast<llmc_meta_type>(elem);
    out.count = count;
    uint32_t size = meta_scalar_size(out.elem_type);
    if (size != 0) {
      uint64_t bytes;
      if (!checked_mul(count, size, &bytes) || bytes > r_.remaining())
        error(LLMC_ERR_FORMAT, cat("metadata '", key, "': array of ", count,
                                   " ", meta_type_name(out.elem_type),
                                   " runs past the end of the file"));
      out.raw = r_.data() + r_.pos();
      r_.skip(bytes, "metadata array");
      return;
    }
    // Strings and nested arrays: each element takes at least 8 bytes, so a
    // count above remaining/8 is corrupt; checked before reserving memory.
    if (count > r_.remaining() / kStringLenBytes)
      error(LLMC_ERR_FORMAT, cat("metadata '", key, "': array length ", count,
                                 " runs past the end of the file"));
    if (out.elem_type == LLMC_META_STRING) {
      out.strings.reserve(count);
      for (uint64_t i = 0; i < count; ++i)
        out.strings.push_back(read_string("metadata array string"));
    } else {
      out.items.resize(count);
      for (uint64_t i = 0; i < count; ++i)
        parse_value(LLMC_META_ARRAY, out.items[i], depth + 1, key);
    }
  }

  void parse_kv(uint64_t index) {
    std::string key(read_string("metadata key"));
    uint32_t type = r_.read<uint32_t>("metadata value type");
    if (!meta_type_valid(type))
      error(LLMC_ERR_FORMAT, cat("metadata '", key, "' (KV #", index,
                                 "): unknown value type ", type));
    MetaValue value;
    parse_value(static_cast<llmc_meta_type>(type), value, 0, key);
    set_.add_meta(std::move(key), std::move(value));
  }

  uint64_t read_alignment() {
    const MetaValue *v = set_.find_meta("general.alignment");
    if (!v)
      return kDefaultAlignment;
    int64_t a = meta_as_int(*v, "general.alignment");
    if (a <= 0 || (a & (a - 1)) != 0)
      error(LLMC_ERR_FORMAT, cat("general.alignment ", a, " is not a power of two"));
    return static_cast<uint64_t>(a);
  }

  void parse_tensor_info(std::vector<TensorEntry> &tensors,
                         std::vector<uint64_t> &offsets) {
    TensorEntry t;
    t.source_name = std::string(read_string("tensor name"));
    const std::string &name = t.source_name;
    uint32_t n_dims = r_.read<uint32_t>("tensor n_dims");
    if (n_dims > LLMC_MAX_DIMS)
      error(LLMC_ERR_FORMAT, cat("tensor '", name, "': n_dims ", n_dims,
                                 " exceeds the maximum of ", LLMC_MAX_DIMS));
    uint64_t ne[LLMC_MAX_DIMS] = {1, 1, 1, 1};
    uint64_t n_elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      ne[d] = r_.read<uint64_t>("tensor dimension");
      if (ne[d] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
          !checked_mul(n_elements, ne[d], &n_elements) ||
          n_elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        error(LLMC_ERR_FORMAT, cat("tensor '", name,
                                   "': element count overflows (dimension ", d,
                                   " = ", ne[d], ")"));
    }
    uint32_t type_id = r_.read<uint32_t>("tensor type");
    uint64_t offset = r_.read<uint64_t>("tensor data offset");

    const GgmlType *type = find_ggml_type(type_id);
    if (!type)
      error(LLMC_ERR_UNSUPPORTED, cat("tensor '", name, "': unknown ggml type ", type_id));
    if (!type->supported)
      error(LLMC_ERR_UNSUPPORTED, cat("tensor '", name, "': ggml type ", type->name,
                                      " (", type_id, ") is not supported (",
                                      supported_type_names(), " are)"));
    t.dtype = type->dtype;
    const DTypeTraits &traits = dtype_traits(t.dtype);
    // Quantized blocks never straddle rows, so the row length (ne[0]) must
    // be a whole number of blocks.
    if (ne[0] % traits.block_elems != 0)
      error(LLMC_ERR_FORMAT, cat("tensor '", name, "': row length ", ne[0],
                                 " is not a multiple of the ", traits.name,
                                 " block size ", traits.block_elems));
    if (!dtype_storage_bytes(t.dtype, n_elements, &t.n_bytes))
      error(LLMC_ERR_FORMAT, cat("tensor '", name, "': byte size overflows"));

    // GGUF lists ne innermost-first; canonical shapes are outermost-first.
    t.n_dims = static_cast<int32_t>(n_dims);
    for (uint32_t d = 0; d < n_dims; ++d)
      t.shape[d] = static_cast<int64_t>(ne[n_dims - 1 - d]);
    t.n_elements = static_cast<int64_t>(n_elements);
    t.name = canonical_from_gguf(name, architecture());
    tensors.push_back(std::move(t));
    offsets.push_back(offset);
  }

  void place_tensors(uint64_t alignment, std::vector<TensorEntry> &tensors,
                     const std::vector<uint64_t> &offsets) {
    uint64_t header_end = r_.pos();
    uint64_t data_start;
    if (!checked_add(header_end, alignment - 1, &data_start))
      error(LLMC_ERR_FORMAT, "data section offset overflows");
    data_start -= data_start % alignment;
    uint64_t data_size = data_start <= file_.size() ? file_.size() - data_start : 0;
    if (!tensors.empty() && data_start > file_.size())
      error(LLMC_ERR_FORMAT, cat("data section starts at byte ", data_start,
                                 ", past the end of the file (", file_.size(),
                                 " bytes)"));
    for (size_t i = 0; i < tensors.size(); ++i) {
      TensorEntry &t = tensors[i];
      uint64_t off = offsets[i];
      if (off % alignment != 0)
        error(LLMC_ERR_FORMAT, cat("tensor '", t.source_name, "': data offset ", off,
                                   " is not a multiple of the alignment ", alignment));
      if (!range_fits(off, t.n_bytes, data_size))
        error(LLMC_ERR_FORMAT,
              cat("tensor '", t.source_name, "': data [", off, ", ", off, " + ",
                  t.n_bytes, ") lies past the end of the data section (",
                  data_size, " bytes; file truncated?)"));
      t.data = file_.data() + data_start + off;
      set_.add_tensor(std::move(t));
    }
  }

  /// general.architecture (metadata precedes the tensor infos), or "".
  std::string_view architecture() const {
    const MetaValue *arch = set_.find_meta("general.architecture");
    return arch && arch->type == LLMC_META_STRING ? std::string_view(arch->str)
                                                  : std::string_view();
  }

  llmc_rope_layout rope_layout() const {
    for (std::string_view a : kHalfRopeArchs)
      if (architecture() == a)
        return LLMC_ROPE_HALF;
    return LLMC_ROPE_INTERLEAVED;
  }

  const MappedFile &file_;
  WeightSet &set_;
  ByteReader r_;
  uint64_t tensor_count_ = 0;
  uint64_t kv_count_ = 0;
};

} // namespace

bool has_gguf_magic(const uint8_t *data, uint64_t size) {
  return size >= 4 && std::memcmp(data, kMagic, 4) == 0;
}

void load_gguf(const std::string &path, WeightSet &set) {
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  set.keep_file(file);
  set.format = LLMC_WEIGHTS_GGUF;
  set.set_context(path + ": GGUF");
  GgufParser(*file, set).parse();
}

} // namespace llmc::rt
