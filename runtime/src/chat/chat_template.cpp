// Chat template parse/render entry points, the render variables, and finding a model's template on disk.
#include "chat_template.h"

#include "chat_builtins.h"
#include "chat_eval.h"
#include "chat_json.h"
#include "chat_lexer.h"
#include "chat_parser.h"
#include "chat_source.h"
#include "error.h"
#include "json_lite.h"
#include "mapped_file.h"
#include "metadata.h"
#include "weight_set.h"
#include "weights_open.h"

namespace llmc::rt::chat {

ChatTemplate::ChatTemplate(std::string_view raw_source)
    : raw_(raw_source), src_(normalize_template_source(raw_source)) {
  body_ = parse_template(tokenize_template(src_), src_);
}

namespace {

/// transformers' _alias_reasoning_fields: the names a message's reasoning
/// travels under; the first one present (and not null) is copied to all.
const char *const kReasoningFields[] = {"reasoning_content", "thinking", "reasoning"};

Value prepare_message(const Value &msg) {
  Dict d;
  for (const auto &kv : msg.dict->items)
    if (!kv.second.is_none()) // _normalize_chat_messages drops null fields
      d.items.push_back(kv);
  const Value *reasoning = nullptr;
  for (const char *f : kReasoningFields)
    if ((reasoning = d.find(f)))
      break;
  if (!reasoning)
    return Value::make_dict(std::move(d));
  Value r = *reasoning;
  // {"thinking": r, **message, "reasoning_content": r}
  Dict out;
  out.set("thinking", r);
  for (const auto &kv : d.items)
    out.set(kv.first, kv.second);
  out.set("reasoning_content", r);
  return Value::make_dict(std::move(out));
}

} // namespace

std::string ChatTemplate::render(std::string_view messages_json, const RenderInputs &in) const {
  JsonValue parsed = parse_json(messages_json, "chat messages");
  if (parsed.kind != JsonValue::Kind::Array)
    fail(LLMC_ERR_INVALID_ARGUMENT, "chat messages: expected a JSON list of message objects, got ",
         json_kind_name(parsed.kind));
  Value raw = value_from_json(parsed, "chat messages");
  std::vector<Value> messages;
  for (size_t k = 0; k < raw.list->size(); ++k) {
    const Value &m = (*raw.list)[k];
    if (!m.is_dict())
      fail(LLMC_ERR_INVALID_ARGUMENT, "chat messages: message ", k, " is a JSON ",
           json_kind_name(parsed.items[k].kind), ", not an object");
    messages.push_back(prepare_message(m));
  }

  auto globals = std::make_shared<Frame>();
  add_globals(*globals);
  auto vars = std::make_shared<Frame>();
  vars->parent = globals;
  vars->set("messages", Value::make_list(std::move(messages)));
  Value tools = Value::none();
  if (!in.tools_json.empty()) {
    JsonValue t = parse_json(in.tools_json, "chat tools");
    if (t.kind != JsonValue::Kind::Array && t.kind != JsonValue::Kind::Null)
      fail(LLMC_ERR_INVALID_ARGUMENT, "chat tools: expected a JSON list of tool schemas, got ",
           json_kind_name(t.kind));
    tools = value_from_json(t, "chat tools");
  }
  vars->set("tools", tools);
  vars->set("documents", Value::none());
  vars->set("add_generation_prompt", Value::boolean(in.add_generation_prompt));
  if (in.bos_token)
    vars->set("bos_token", Value::string(in.bos_token));
  if (in.eos_token)
    vars->set("eos_token", Value::string(in.eos_token));
  if (!in.extra_json.empty()) {
    JsonValue x = parse_json(in.extra_json, "chat template variables");
    if (x.kind != JsonValue::Kind::Object)
      fail(LLMC_ERR_INVALID_ARGUMENT, "chat template variables: expected a JSON object, got ",
           json_kind_name(x.kind));
    for (const auto &m : x.members) {
      if (m.first == "messages" || m.first == "tools" || m.first == "documents" ||
          m.first == "add_generation_prompt")
        fail(LLMC_ERR_INVALID_ARGUMENT, "chat template variables: '", m.first,
             "' has its own option; it cannot be an extra variable");
      vars->set(m.first, value_from_json(m.second, "chat template variables"));
    }
  }
  Renderer r(src_);
  auto scope = std::make_shared<Frame>(); // the template's own `set`s land here
  scope->parent = vars;
  return r.render(body_, scope);
}

namespace {

std::string read_text_file(const std::string &path) {
  auto f = MappedFile::open(path);
  return std::string(reinterpret_cast<const char *>(f->data()), f->size());
}

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string from_tokenizer_config(const std::string &path) {
  JsonValue cfg = parse_json(read_text_file(path), path);
  const JsonValue *t = cfg.get("chat_template");
  if (!t || t->kind == JsonValue::Kind::Null)
    fail(LLMC_ERR_NOT_FOUND, path, ": no \"chat_template\" in this tokenizer config");
  if (t->kind == JsonValue::Kind::String)
    return t->text;
  if (t->kind != JsonValue::Kind::Array)
    fail(LLMC_ERR_FORMAT, path, ": \"chat_template\" must be a string or a list of {name, template}, got ",
         json_kind_name(t->kind));
  std::string names;
  for (const JsonValue &entry : t->items) {
    const JsonValue *name = entry.get("name"), *tmpl = entry.get("template");
    if (!name || name->kind != JsonValue::Kind::String || !tmpl || tmpl->kind != JsonValue::Kind::String)
      fail(LLMC_ERR_FORMAT, path, ": each \"chat_template\" entry needs string \"name\" and \"template\"");
    if (name->text == "default")
      return tmpl->text;
    names += (names.empty() ? "" : ", ") + name->text;
  }
  fail(LLMC_ERR_NOT_FOUND, path, ": \"chat_template\" has no template named \"default\" (it has: ", names, ")");
}

} // namespace

std::string load_chat_template_source(const std::string &path) {
  if (is_directory(path)) {
    std::string jinja = path + "/chat_template.jinja", config = path + "/tokenizer_config.json";
    if (path_exists(jinja))
      return read_text_file(jinja);
    if (path_exists(config))
      return from_tokenizer_config(config);
    fail(LLMC_ERR_NOT_FOUND, path, ": no chat template (neither chat_template.jinja nor tokenizer_config.json)");
  }
  if (ends_with(path, ".jinja"))
    return read_text_file(path);
  if (ends_with(path, ".json"))
    return from_tokenizer_config(path);
  WeightSet set;
  open_weights(path, LLMC_WEIGHTS_AUTO, set);
  return chat_template_source_from_weights(set);
}

std::string chat_template_source_from_weights(const WeightSet &set) {
  const MetaValue *v = set.find_meta("tokenizer.chat_template");
  if (!v)
    fail(LLMC_ERR_NOT_FOUND, set.context(), ": the metadata has no tokenizer.chat_template");
  return std::string(meta_as_string(*v, "tokenizer.chat_template"));
}

} // namespace llmc::rt::chat
