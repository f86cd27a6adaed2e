// generation_config.json: eos_token_id (one id or a list), do_sample, temperature, top_k, top_p, repetition_penalty.
#include "generation_config.h"

#include "api_guard.h"
#include "error.h"
#include "json_lite.h"
#include "mapped_file.h"

#include <cerrno>
#include <cstdlib>

namespace llmc::rt {

namespace {

constexpr const char *kFileName = "generation_config.json";

double number(const JsonValue &v, const std::string &context, const char *key) {
  if (v.kind != JsonValue::Kind::Number)
    fail(LLMC_ERR_FORMAT, context, ": '", key, "' must be a number, not ",
         json_kind_name(v.kind));
  errno = 0;
  char *end = nullptr;
  double d = std::strtod(v.text.c_str(), &end);
  if (errno || *end)
    fail(LLMC_ERR_FORMAT, context, ": '", key, "' = ", v.text, " is out of range");
  return d;
}

int32_t token_id(const JsonValue &v, const std::string &context) {
  uint64_t id = 0;
  if (!v.as_uint64(&id) || id > static_cast<uint64_t>(INT32_MAX))
    fail(LLMC_ERR_FORMAT, context, ": 'eos_token_id' holds ",
         v.kind == JsonValue::Kind::Number ? v.text : json_kind_name(v.kind),
         ", not a token id (a non-negative integer)");
  return static_cast<int32_t>(id);
}

void add_eos(llmc_generation_config &c, int32_t id, const std::string &context) {
  for (int32_t i = 0; i < c.n_eos_ids; ++i)
    if (c.eos_ids[i] == id)
      return;
  if (c.n_eos_ids == LLMC_MAX_EOS_IDS)
    fail(LLMC_ERR_UNSUPPORTED, context, ": more than ", LLMC_MAX_EOS_IDS,
         " distinct 'eos_token_id' values");
  c.eos_ids[c.n_eos_ids++] = id;
}

llmc_generation_config defaults() {
  llmc_generation_config c{};
  llmc_sampler_config_default(&c.sampler);
  return c;
}

} // namespace

llmc_generation_config parse_generation_config(std::string_view json,
                                               const std::string &context) {
  JsonValue root = parse_json(json, context);
  if (root.kind != JsonValue::Kind::Object)
    fail(LLMC_ERR_FORMAT, context, ": expected a JSON object, got ",
         json_kind_name(root.kind));
  llmc_generation_config c = defaults();
  if (const JsonValue *eos = root.get("eos_token_id")) {
    if (eos->kind == JsonValue::Kind::Array) {
      for (const JsonValue &item : eos->items)
        add_eos(c, token_id(item, context), context);
    } else if (eos->kind != JsonValue::Kind::Null) {
      add_eos(c, token_id(*eos, context), context);
    }
  }
  if (const JsonValue *v = root.get("do_sample")) {
    if (v->kind != JsonValue::Kind::Bool)
      fail(LLMC_ERR_FORMAT, context, ": 'do_sample' must be true or false, not ",
           json_kind_name(v->kind));
    c.do_sample = v->boolean ? 1 : 0;
  }
  // transformers' defaults (GenerationConfig) when a key is absent: the
  // ones of llmc_sampler_config_default, except top_k = 50.
  c.sampler.top_k = 50;
  if (const JsonValue *v = root.get("temperature"); v && v->kind != JsonValue::Kind::Null)
    c.sampler.temperature = static_cast<float>(number(*v, context, "temperature"));
  if (const JsonValue *v = root.get("top_p"); v && v->kind != JsonValue::Kind::Null)
    c.sampler.top_p = static_cast<float>(number(*v, context, "top_p"));
  if (const JsonValue *v = root.get("repetition_penalty"); v && v->kind != JsonValue::Kind::Null)
    c.sampler.repetition_penalty =
        static_cast<float>(number(*v, context, "repetition_penalty"));
  if (const JsonValue *v = root.get("top_k"); v && v->kind != JsonValue::Kind::Null) {
    uint64_t k = 0;
    if (!v->as_uint64(&k) || k > static_cast<uint64_t>(INT32_MAX))
      fail(LLMC_ERR_FORMAT, context, ": 'top_k' must be a non-negative integer, not ",
           v->kind == JsonValue::Kind::Number ? v->text : json_kind_name(v->kind));
    c.sampler.top_k = static_cast<int32_t>(k);
  }
  // Without sampling transformers decodes greedily whatever the rest says.
  if (!c.do_sample)
    c.sampler.temperature = 0.0f;
  c.found = 1;
  return c;
}

llmc_generation_config load_generation_config(const std::string &path) {
  std::string dir = is_directory(path) ? path : parent_directory(path);
  std::string file = dir + "/" + kFileName;
  // Only a Hugging Face directory has one: a GGUF keeps its eos in the
  // tokenizer metadata, and a file that merely sits beside some other
  // model's config would be read by mistake, hence the weights-file check.
  bool hf_weights = is_directory(path) || path.find(".safetensors") != std::string::npos;
  if (!hf_weights || !path_exists(file) || is_directory(file))
    return defaults();
  std::shared_ptr<MappedFile> mapped = MappedFile::open(file);
  return parse_generation_config(
      std::string_view(reinterpret_cast<const char *>(mapped->data()), mapped->size()),
      file);
}

} // namespace llmc::rt

using namespace llmc::rt;

extern "C" llmc_status llmc_generation_config_load(const char *weights_path,
                                                   llmc_generation_config *out) {
  return guarded([&] {
    require(weights_path, "llmc_generation_config_load", "weights_path");
    require(out, "llmc_generation_config_load", "out");
    *out = load_generation_config(weights_path);
  });
}
