// Truthiness, str/repr and equality of chat template values, following Python.
#include "chat_value.h"

#include "chat_bounded_text.h"
#include "chat_text.h"

#include <algorithm>

namespace llmc::rt::chat {

const Value *Dict::find(const std::string &key) const {
  for (const auto &kv : items)
    if (kv.first == key)
      return &kv.second;
  return nullptr;
}

void Dict::set(const std::string &key, Value v) {
  for (auto &kv : items)
    if (kv.first == key) {
      kv.second = std::move(v);
      return;
    }
  items.emplace_back(key, std::move(v));
}

namespace {
uint32_t deepest(const Value &v) {
  return v.is_list() || v.is_dict() || v.kind == Value::Kind::Iterator ? v.depth : 0;
}
} // namespace

Value Value::make_list(std::vector<Value> items, bool tuple) {
  uint32_t d = 0;
  for (const Value &item : items)
    d = std::max(d, deepest(item));
  if (d + 1 > kMaxValueDepth)
    render_fail(LLMC_ERR_UNSUPPORTED, "values nest deeper than ", kMaxValueDepth, " lists/dicts");
  Value v = make(Kind::List);
  v.list = std::make_shared<const std::vector<Value>>(std::move(items));
  v.is_tuple = tuple;
  v.depth = d + 1;
  return v;
}

Value Value::make_dict(Dict dict) {
  uint32_t d = 0;
  for (const auto &kv : dict.items)
    d = std::max(d, deepest(kv.second));
  if (d + 1 > kMaxValueDepth)
    render_fail(LLMC_ERR_UNSUPPORTED, "values nest deeper than ", kMaxValueDepth, " lists/dicts");
  Value v = make(Kind::Dict);
  v.dict = std::make_shared<const Dict>(std::move(dict));
  v.depth = d + 1;
  return v;
}

Value Value::make_iterator(std::vector<Value> items, std::string type) {
  Value v = make_list(std::move(items));
  v.kind = Kind::Iterator;
  v.seq_type = std::move(type);
  v.iter_pos = std::make_shared<size_t>(0);
  return v;
}

Value Value::make_view(std::vector<Value> items, std::string type) {
  Value v = make_list(std::move(items));
  v.seq_type = std::move(type);
  return v;
}

bool truthy(const Value &v) {
  switch (v.kind) {
  case Value::Kind::Undefined:
  case Value::Kind::None:
    return false;
  case Value::Kind::Bool:
    return v.b;
  case Value::Kind::Int:
    return v.i != 0;
  case Value::Kind::Float:
    return v.f != 0;
  case Value::Kind::String:
    return !v.s.empty();
  case Value::Kind::List:
    return !v.list->empty();
  case Value::Kind::Dict:
    return !v.dict->items.empty();
  default:
    return true;
  }
}

std::string type_name(const Value &v) {
  switch (v.kind) {
  case Value::Kind::Undefined: return "Undefined";
  case Value::Kind::None: return "NoneType";
  case Value::Kind::Bool: return "bool";
  case Value::Kind::Int: return "int";
  case Value::Kind::Float: return "float";
  case Value::Kind::String: return "str";
  case Value::Kind::List: return !v.seq_type.empty() ? v.seq_type : v.is_tuple ? "tuple" : "list";
  case Value::Kind::Iterator: return v.seq_type;
  case Value::Kind::Dict: return "dict";
  case Value::Kind::Namespace: return "Namespace";
  case Value::Kind::Function: return "function";
  case Value::Kind::Loop: return "LoopContext";
  }
  return "?";
}

std::string to_str(const Value &v) {
  switch (v.kind) {
  case Value::Kind::Undefined: return "";
  case Value::Kind::String: return v.s;
  default: return to_repr(v);
  }
}

std::string to_repr(const Value &v) {
  switch (v.kind) {
  case Value::Kind::Undefined: return "";
  case Value::Kind::None: return "None";
  case Value::Kind::Bool: return v.b ? "True" : "False";
  case Value::Kind::Int: return std::to_string(v.i);
  case Value::Kind::Float: return py_repr_float(v.f);
  case Value::Kind::String: return py_repr_string(v.s);
  case Value::Kind::Iterator:
    render_fail(LLMC_ERR_UNSUPPORTED, "printing a ", v.seq_type,
                " object shows its memory address in Python; convert it with |list first");
  case Value::Kind::List: {
    if (!v.seq_type.empty()) { // dict_items([('a', 1)])
      Value plain = v;
      plain.seq_type.clear();
      BoundedText out;
      out += v.seq_type;
      out += '(';
      out += to_repr(plain);
      out += ')';
      return out.take();
    }
    // A list repeats shared elements: `[[s] * 80000] * 80000` is small, its text is not.
    BoundedText out;
    out += v.is_tuple ? '(' : '[';
    for (size_t k = 0; k < v.list->size(); ++k) {
      if (k)
        out += ", ";
      out += to_repr((*v.list)[k]);
    }
    if (v.is_tuple && v.list->size() == 1)
      out += ',';
    out += v.is_tuple ? ')' : ']';
    return out.take();
  }
  case Value::Kind::Dict: {
    BoundedText out;
    out += '{';
    bool first = true;
    for (const auto &kv : v.dict->items) {
      if (!first)
        out += ", ";
      out += py_repr_string(kv.first);
      out += ": ";
      out += to_repr(kv.second);
      first = false;
    }
    out += '}';
    return out.take();
  }
  case Value::Kind::Namespace: return "<Namespace>";
  case Value::Kind::Function: return "<function " + v.func->name + ">";
  case Value::Kind::Loop: return "<LoopContext>";
  }
  return "?";
}

bool equals(const Value &a, const Value &b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind == Value::Kind::Float || b.kind == Value::Kind::Float)
      return a.as_double() == b.as_double();
    return a.as_int() == b.as_int();
  }
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case Value::Kind::Undefined:
  case Value::Kind::None:
    return true;
  case Value::Kind::String:
    return a.s == b.s;
  case Value::Kind::Iterator:
    return a.iter_pos == b.iter_pos;
  case Value::Kind::List: {
    if (a.is_tuple != b.is_tuple || a.seq_type != b.seq_type || a.list->size() != b.list->size())
      return false;
    for (size_t k = 0; k < a.list->size(); ++k)
      if (!equals((*a.list)[k], (*b.list)[k]))
        return false;
    return true;
  }
  case Value::Kind::Dict: {
    if (a.dict->items.size() != b.dict->items.size())
      return false;
    for (const auto &kv : a.dict->items) {
      const Value *other = b.dict->find(kv.first);
      if (!other || !equals(kv.second, *other))
        return false;
    }
    return true;
  }
  case Value::Kind::Namespace: return a.ns == b.ns;
  case Value::Kind::Function: return a.func == b.func;
  case Value::Kind::Loop: return a.loop == b.loop;
  default: return false;
  }
}

} // namespace llmc::rt::chat
