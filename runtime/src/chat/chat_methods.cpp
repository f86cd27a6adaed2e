// Python str and dict methods templates call (`s.strip()`, `d.items()`, ...), and the ones refused.
#include "chat_args.h"
#include "chat_builtins.h"
#include "chat_case.h"
#include "chat_eval.h"
#include "chat_operators.h"
#include "chat_text.h"

namespace llmc::rt::chat {

namespace {

Value bind_method(const Value &self, const std::string &name,
                  Value (*impl)(const Value &, const std::string &, CallArgs &)) {
  return Value::make_function(name, [self, name, impl](Renderer &, CallArgs &a) { return impl(self, name, a); });
}

Value string_method(const Value &self, const std::string &name, CallArgs &a) {
  const std::string &s = self.s;
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    Bound p = bind(name, a, {"chars"});
    std::string chars = p[0] && !p[0]->is_none() ? need_string(name, *p[0]) : "";
    return Value::string(py_strip(s, name != "rstrip", name != "lstrip",
                                  p[0] && !p[0]->is_none() ? &chars : nullptr));
  }
  if (name == "startswith" || name == "endswith") {
    Bound p = bind(name, a, {"prefix"});
    if (!p[0])
      render_fail(LLMC_ERR_INVALID_ARGUMENT, name, " takes at least 1 argument");
    std::vector<Value> options = p[0]->is_list() && p[0]->is_tuple ? *p[0]->list : std::vector<Value>{*p[0]};
    for (const Value &o : options) {
      std::string x = need_string(name, o);
      if (x.size() <= s.size() &&
          (name == "startswith" ? s.compare(0, x.size(), x) == 0 : s.compare(s.size() - x.size(), x.size(), x) == 0))
        return Value::boolean(true);
    }
    return Value::boolean(false);
  }
  if (name == "split") {
    Bound p = bind(name, a, {"sep", "maxsplit"});
    std::string sep;
    bool has_sep = p[0] && !p[0]->is_none();
    if (has_sep) {
      sep = need_string(name, *p[0]);
      if (sep.empty())
        render_fail(LLMC_ERR_INVALID_ARGUMENT, "empty separator");
    }
    std::vector<Value> parts;
    for (auto &part : py_split(s, has_sep ? &sep : nullptr, opt_int("split maxsplit", p[1], -1)))
      parts.push_back(Value::string(part));
    return Value::make_list(parts);
  }
  if (name == "upper" || name == "lower" || name == "title" || name == "capitalize") {
    bind(name, a, {});
    std::string op = cat("method '", name, "'");
    return Value::string(name == "upper" ? py_upper(s, op.c_str()) : name == "lower" ? py_lower(s, op.c_str())
                         : name == "title" ? py_title(s, op.c_str()) : py_capitalize(s, op.c_str()));
  }
  if (name == "islower" || name == "isupper") {
    bind(name, a, {});
    std::string op = cat("method '", name, "'");
    return Value::boolean(name == "islower" ? py_islower(s, op.c_str()) : py_isupper(s, op.c_str()));
  }
  if (name == "replace") {
    Bound p = bind(name, a, {"old", "new", "count"});
    if (!p[0] || !p[1])
      render_fail(LLMC_ERR_INVALID_ARGUMENT, "replace expected at least 2 arguments");
    return Value::string(py_replace(s, need_string(name, *p[0]), need_string(name, *p[1]),
                                    opt_int("replace count", p[2], -1)));
  }
  if (name == "find" || name == "count") {
    Bound p = bind(name, a, {"sub"});
    if (!p[0])
      render_fail(LLMC_ERR_INVALID_ARGUMENT, name, " takes at least 1 argument");
    std::string sub = need_string(name, *p[0]);
    if (name == "find") {
      size_t at = s.find(sub);
      return Value::integer(at == std::string::npos ? -1 : static_cast<int64_t>(codepoint_count(s.substr(0, at))));
    }
    if (sub.empty())
      return Value::integer(static_cast<int64_t>(codepoint_count(s)) + 1);
    int64_t n = 0;
    for (size_t at = s.find(sub); at != std::string::npos; at = s.find(sub, at + sub.size()))
      ++n;
    return Value::integer(n);
  }
  render_fail(LLMC_ERR_INTERNAL, "string method ", name, " has no implementation"); // find_method lists only implemented ones
}

Value dict_method(const Value &self, const std::string &name, CallArgs &a) {
  const Dict &d = *self.dict;
  if (name == "get") {
    Bound p = bind("get", a, {"key", "default"});
    if (!p[0])
      render_fail(LLMC_ERR_INVALID_ARGUMENT, "get expected at least 1 argument, got 0");
    const Value *v = p[0]->is_string() ? d.find(p[0]->s) : nullptr;
    return v ? *v : (p[1] ? *p[1] : Value::none());
  }
  bind(name, a, {});
  std::vector<Value> out;
  for (const auto &kv : d.items) {
    if (name == "keys")
      out.push_back(Value::string(kv.first));
    else if (name == "values")
      out.push_back(kv.second);
    else
      out.push_back(Value::make_list({Value::string(kv.first), kv.second}, true));
  }
  return Value::make_view(out, "dict_" + name);
}

/// Hugging Face renders in jinja2's ImmutableSandboxedEnvironment, which
/// refuses methods that change a list or dict; the message is the sandbox's.
[[noreturn]] void unsafe_method(const Value &obj, const std::string &name) {
  render_fail(LLMC_ERR_UNSUPPORTED, "access to attribute '", name, "' of '", type_name(obj),
              "' object is unsafe (Hugging Face's sandbox forbids changing lists and dicts)");
}

bool contains_name(std::initializer_list<const char *> names, const std::string &n) {
  for (const char *x : names)
    if (n == x)
      return true;
  return false;
}

} // namespace

bool find_method(const Value &obj, const std::string &name, Value &out) {
  if (obj.is_string()) {
    if (contains_name({"strip", "lstrip", "rstrip", "startswith", "endswith", "split", "upper", "lower",
                       "title", "capitalize", "islower", "isupper", "replace", "find", "count"}, name)) {
      out = bind_method(obj, name, string_method);
      return true;
    }
    if (contains_name({"format", "format_map", "join", "rsplit", "splitlines", "index", "rfind", "rindex",
                       "isdigit", "isalpha", "isalnum", "isspace", "istitle",
                       "isnumeric", "isdecimal", "isidentifier", "isprintable", "isascii", "center",
                       "ljust", "rjust", "zfill", "swapcase", "casefold", "partition", "rpartition",
                       "expandtabs", "encode", "removeprefix", "removesuffix", "translate", "maketrans"},
                      name))
      render_fail(LLMC_ERR_UNSUPPORTED, "unsupported string method '", name, "'");
    return false;
  }
  if (obj.is_dict()) {
    if (contains_name({"items", "keys", "values", "get"}, name)) {
      out = bind_method(obj, name, dict_method);
      return true;
    }
    if (contains_name({"pop", "popitem", "setdefault", "update", "clear"}, name))
      unsafe_method(obj, name);
    if (contains_name({"copy", "fromkeys"}, name))
      render_fail(LLMC_ERR_UNSUPPORTED, "unsupported dict method '", name, "'");
    return false;
  }
  if (obj.is_list()) {
    if (contains_name({"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear"}, name))
      unsafe_method(obj, name);
    if (contains_name({"copy", "index", "count"}, name))
      render_fail(LLMC_ERR_UNSUPPORTED, "unsupported list method '", name, "'");
  }
  return false;
}

} // namespace llmc::rt::chat
