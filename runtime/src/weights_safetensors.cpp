// safetensors parsing: 8-byte LE header length, JSON header, data_offsets checked against shape and file.
#include "weights_safetensors.h"

#include "checked_math.h"
#include "dtype.h"
#include "error.h"
#include "json_lite.h"
#include "mapped_file.h"

#include <cstring>
#include <limits>
#include <unordered_map>

namespace llmc::rt {

namespace {

/// The header starts after its own little-endian u64 length.
constexpr uint64_t kHeaderLenBytes = 8;
constexpr std::string_view kMetadataKey = "__metadata__";

/// safetensors dtype strings. Only the float types the executor consumes are
/// loadable; the rest are listed so the error can say "unsupported" rather
/// than "unknown".
struct StDtype {
  std::string_view name;
  bool supported;
  llmc_dtype dtype;
};
constexpr StDtype kStDtypes[] = {
    {"F32", true, LLMC_DTYPE_F32},  {"F16", true, LLMC_DTYPE_F16},
    {"BF16", true, LLMC_DTYPE_BF16}, {"F64", false, {}},
    {"I64", false, {}},  {"I32", false, {}},   {"I16", false, {}},
    {"I8", false, {}},   {"U64", false, {}},   {"U32", false, {}},
    {"U16", false, {}},  {"U8", false, {}},    {"BOOL", false, {}},
    {"F8_E4M3", false, {}}, {"F8_E5M2", false, {}}, {"F8_E8M0", false, {}},
    {"F6_E2M3", false, {}}, {"F6_E3M2", false, {}}, {"F4", false, {}},
    {"C64", false, {}},
};

[[noreturn]] void st_error(llmc_status status, const std::string &path,
                           const std::string &msg) {
  fail(status, path, ": safetensors: ", msg);
}

void add_string_metadata(const JsonValue &obj, WeightSet &set) {
  for (const auto &[key, value] : obj.members) {
    if (set.find_meta(key))
      continue; // shards repeat the same pairs; the first one wins
    MetaValue m;
    if (value.kind == JsonValue::Kind::String) {
      m.type = LLMC_META_STRING;
      m.str = set.own_string(value.text);
    } else if (value.as_uint64(&m.u)) {
      m.type = LLMC_META_UINT64;
    } else {
      continue; // only strings and sizes are meaningful here
    }
    set.add_meta(key, std::move(m));
  }
}

TensorEntry parse_tensor(const std::string &path, const std::string &name,
                         const JsonValue &desc, const MappedFile &file,
                         uint64_t data_start) {
  auto bad = [&](const std::string &msg) {
    st_error(LLMC_ERR_FORMAT, path, cat("tensor '", name, "': ", msg));
  };
  if (desc.kind != JsonValue::Kind::Object)
    bad("entry is not an object");
  const JsonValue *dtype = desc.get("dtype");
  const JsonValue *shape = desc.get("shape");
  const JsonValue *offsets = desc.get("data_offsets");
  if (!dtype || dtype->kind != JsonValue::Kind::String)
    bad("missing string field 'dtype'");
  if (!shape || shape->kind != JsonValue::Kind::Array)
    bad("missing array field 'shape'");
  if (!offsets || offsets->kind != JsonValue::Kind::Array ||
      offsets->items.size() != 2)
    bad("'data_offsets' must be an array of two integers");

  TensorEntry t;
  t.name = t.source_name = name;
  const StDtype *st = nullptr;
  for (const StDtype &d : kStDtypes)
    if (d.name == dtype->text)
      st = &d;
  if (!st || !st->supported)
    st_error(LLMC_ERR_UNSUPPORTED, path,
             cat("tensor '", name, "': ", st ? "unsupported" : "unknown",
                 " dtype '", dtype->text, "' (F32, F16, BF16 are supported)"));
  t.dtype = st->dtype;

  if (shape->items.size() > LLMC_MAX_DIMS)
    st_error(LLMC_ERR_UNSUPPORTED, path,
             cat("tensor '", name, "': rank ", shape->items.size(),
                 " exceeds the maximum of ", LLMC_MAX_DIMS));
  t.n_dims = static_cast<int32_t>(shape->items.size());
  uint64_t n = 1;
  for (size_t d = 0; d < shape->items.size(); ++d) {
    uint64_t dim = 0;
    if (!shape->items[d].as_uint64(&dim))
      bad(cat("shape[", d, "] is not a non-negative integer"));
    if (!checked_mul(n, dim, &n) ||
        n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      bad("element count overflows");
    t.shape[d] = static_cast<int64_t>(dim);
  }
  t.n_elements = static_cast<int64_t>(n);
  if (!dtype_storage_bytes(t.dtype, n, &t.n_bytes))
    bad("byte size overflows");

  uint64_t begin = 0, end = 0;
  if (!offsets->items[0].as_uint64(&begin) || !offsets->items[1].as_uint64(&end))
    bad("'data_offsets' must be non-negative integers");
  if (end < begin)
    bad(cat("data_offsets [", begin, ", ", end, "] end before they begin"));
  uint64_t data_size = file.size() - data_start;
  if (end > data_size)
    bad(cat("data_offsets [", begin, ", ", end,
            "] lie past the end of the file (data section has ", data_size,
            " bytes; file truncated?)"));
  if (end - begin != t.n_bytes)
    bad(cat("data_offsets span ", end - begin, " bytes but shape x ",
            dtype_traits(t.dtype).name, " needs ", t.n_bytes));
  t.data = file.data() + data_start + begin;
  return t;
}

/// Parses one file; returns the names of the tensors it added, in order.
std::vector<std::string> load_one(const std::string &path, WeightSet &set) {
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  set.keep_file(file);
  set.set_context(path + ": safetensors");
  if (file->size() < kHeaderLenBytes)
    st_error(LLMC_ERR_FORMAT, path,
             cat("truncated: ", file->size(),
                 " bytes is shorter than the 8-byte header length"));
  uint64_t header_len;
  std::memcpy(&header_len, file->data(), sizeof header_len);
  if (header_len > file->size() - kHeaderLenBytes)
    st_error(LLMC_ERR_FORMAT, path,
             cat("header length ", header_len,
                 " runs past the end of the file (", file->size(), " bytes)"));
  uint64_t data_start = kHeaderLenBytes + header_len;
  std::string_view text(reinterpret_cast<const char *>(file->data()) + kHeaderLenBytes,
                        header_len);
  JsonValue header = parse_json(text, path + ": safetensors header");
  if (header.kind != JsonValue::Kind::Object)
    st_error(LLMC_ERR_FORMAT, path, "header is not a JSON object");

  std::vector<std::string> names;
  for (const auto &[name, desc] : header.members) {
    if (name == kMetadataKey) {
      if (desc.kind == JsonValue::Kind::Object)
        add_string_metadata(desc, set);
      continue;
    }
    set.add_tensor(parse_tensor(path, name, desc, *file, data_start));
    names.push_back(name);
  }
  return names;
}

/// Shard names come from an untrusted file: keep them inside the index's
/// directory.
bool safe_relative_path(const std::string &p) {
  if (p.empty() || p[0] == '/')
    return false;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos)
      end = p.size();
    if (p.compare(start, end - start, "..") == 0 && end - start == 2)
      return false;
    start = end + 1;
  }
  return true;
}

} // namespace

bool looks_like_safetensors(const uint8_t *data, uint64_t size) {
  if (size < kHeaderLenBytes + 2)
    return false;
  uint64_t len;
  std::memcpy(&len, data, sizeof len);
  return len <= size - kHeaderLenBytes && data[kHeaderLenBytes] == '{';
}

void load_safetensors(const std::string &path, WeightSet &set) {
  set.format = LLMC_WEIGHTS_SAFETENSORS;
  set.rope_layout = LLMC_ROPE_HALF;
  load_one(path, set);
}

void load_safetensors_index(const std::string &index_path, WeightSet &set) {
  set.format = LLMC_WEIGHTS_SAFETENSORS;
  set.rope_layout = LLMC_ROPE_HALF;
  std::shared_ptr<MappedFile> file = MappedFile::open(index_path);
  std::string_view text(reinterpret_cast<const char *>(file->data()), file->size());
  JsonValue index = parse_json(text, index_path);
  auto bad = [&](const std::string &msg) {
    fail(LLMC_ERR_FORMAT, index_path, ": safetensors index: ", msg);
  };
  const JsonValue *map = index.get("weight_map");
  if (!map || map->kind != JsonValue::Kind::Object)
    bad("missing object 'weight_map'");
  if (const JsonValue *meta = index.get("metadata");
      meta && meta->kind == JsonValue::Kind::Object)
    add_string_metadata(*meta, set);

  std::string dir = parent_directory(index_path);
  std::vector<std::string> shard_order;
  std::unordered_map<std::string, std::vector<std::string>> shard_tensors;
  for (const auto &[tensor, shard] : map->members) {
    if (shard.kind != JsonValue::Kind::String)
      bad(cat("weight_map['", tensor, "'] is not a string"));
    // A NUL would cut the path when it reaches open(): the file opened
    // would not be the one named.
    if (shard.text.find('\0') != std::string::npos)
      bad(cat("weight_map['", tensor, "'] names a shard path with a NUL byte"));
    if (!safe_relative_path(shard.text))
      bad(cat("shard path '", shard.text,
              "' must be relative and stay inside the index's directory"));
    if (shard_tensors.find(shard.text) == shard_tensors.end())
      shard_order.push_back(shard.text);
    shard_tensors[shard.text].push_back(tensor);
  }
  if (shard_order.empty())
    bad("'weight_map' is empty");

  for (const std::string &shard : shard_order) {
    std::string shard_path = dir + "/" + shard;
    std::vector<std::string> loaded = load_one(shard_path, set);
    std::unordered_map<std::string, bool> present;
    for (const std::string &n : loaded)
      present[n] = true;
    for (const std::string &tensor : shard_tensors[shard])
      if (!present.count(tensor))
        bad(cat("weight_map puts '", tensor, "' in '", shard,
                "', but that shard has no such tensor"));
  }
}

} // namespace llmc::rt
