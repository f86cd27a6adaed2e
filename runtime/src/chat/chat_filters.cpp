// jinja2's builtin filters (the ones chat templates use) with HF's tojson, by name.
#include "chat_args.h"
#include "chat_builtins.h"
#include "chat_bounded_text.h"
#include "chat_case.h"
#include "chat_eval.h"
#include "chat_operators.h"
#include "chat_text.h"
#include "chat_json.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>

namespace llmc::rt::chat {

namespace {

int64_t length_of(const Value &v) {
  switch (v.kind) {
  case Value::Kind::String: return static_cast<int64_t>(codepoint_count(v.s));
  case Value::Kind::List: return static_cast<int64_t>(v.list->size());
  case Value::Kind::Dict: return static_cast<int64_t>(v.dict->items.size());
  case Value::Kind::Undefined: return 0;
  default: // iterators (map/select results) included: Python cannot size them
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "object of type '", type_name(v), "' has no len()");
  }
}

/// jinja2's attribute paths in selectattr/map/join: "a.b.0" looks up a, b, 0.
Value attr_path(Renderer &r, const Value &item, const std::string &path) {
  Value cur = item;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    bool digits = !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit);
    cur = r.getitem(cur, digits ? Value::integer(std::atoll(part.c_str())) : Value::string(part));
    if (dot == std::string::npos)
      return cur;
    start = dot + 1;
  }
}

std::optional<int64_t> parse_int(const std::string &text, int64_t base) {
  std::string t = py_strip(text, true, true, nullptr), digits;
  for (char c : t)
    if (c != '_')
      digits += c;
  if (digits.empty())
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(digits.c_str(), &end, static_cast<int>(base));
  if (errno || *end)
    return std::nullopt;
  return v;
}

std::optional<double> parse_float(const std::string &text) {
  std::string t = py_strip(text, true, true, nullptr);
  if (t.empty())
    return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (*end)
    return std::nullopt;
  return v;
}

Value filter_tojson(const Value &input, const CallArgs &args) {
  Bound p = bind("tojson", args, {"ensure_ascii", "indent", "separators", "sort_keys"});
  JsonDumpOptions o;
  o.ensure_ascii = opt_truthy(p[0], false);
  if (p[1] && !p[1]->is_none()) {
    o.has_indent = true;
    o.item_separator = ",";
    if (p[1]->is_string())
      o.indent = p[1]->s;
    else
      o.indent = BoundedText().append(std::max<int64_t>(0, opt_int("tojson indent", p[1], 0)), ' ').take();
  }
  if (p[2] && !p[2]->is_none()) {
    if (!p[2]->is_list() || p[2]->list->size() != 2 || !(*p[2]->list)[0].is_string() ||
        !(*p[2]->list)[1].is_string())
      render_fail(LLMC_ERR_INVALID_ARGUMENT, "tojson separators must be a pair of strings");
    o.item_separator = (*p[2]->list)[0].s;
    o.key_separator = (*p[2]->list)[1].s;
  }
  o.sort_keys = opt_truthy(p[3], false);
  BoundedText out;
  std::string bad;
  if (!dump_json(input, o, out, bad))
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "Object of type ", bad, " is not JSON serializable");
  return Value::string(out.take());
}

/// select/reject/selectattr/rejectattr: keep items whose test (or
/// truthiness, without a test name) equals `keep`.
Value filter_select(Renderer &r, const Value &input, const CallArgs &args, bool by_attr, bool keep,
                    const char *name) {
  size_t first = 0;
  std::string attr;
  if (by_attr) {
    if (args.positional.empty())
      render_fail(LLMC_ERR_INVALID_ARGUMENT, name, " needs an attribute name");
    attr = need_string(name, args.positional[0]);
    first = 1;
  }
  std::optional<std::string> test;
  CallArgs test_args;
  if (args.positional.size() > first) {
    test = need_string(name, args.positional[first]);
    if (!is_supported_test(*test))
      render_fail(LLMC_ERR_UNSUPPORTED, "unsupported test '", *test, "' in ", name);
    test_args.positional.assign(args.positional.begin() + first + 1, args.positional.end());
  }
  test_args.keyword = args.keyword;
  std::vector<Value> out;
  if (!truthy(input)) // jinja2 filters nothing out of a false value (None included)
    return Value::make_iterator(out, "generator");
  for (const Value &item : r.iterate(input)) {
    Value v = by_attr ? attr_path(r, item, attr) : item;
    bool pass = test ? apply_test(r, *test, v, test_args) : truthy(v);
    if (pass == keep)
      out.push_back(item);
  }
  return Value::make_iterator(out, "generator");
}

Value filter_map(Renderer &r, const Value &input, const CallArgs &args) {
  std::vector<Value> out;
  if (!truthy(input)) // as in jinja2: a false value (None included) maps to nothing
    return Value::make_iterator(out, "generator");
  const Value *attribute = nullptr, *dflt = nullptr;
  for (const auto &kw : args.keyword) {
    if (kw.first == "attribute")
      attribute = &kw.second;
    else if (kw.first == "default")
      dflt = &kw.second;
  }
  if (attribute) {
    std::string path = need_string("map attribute", *attribute);
    for (const Value &item : r.iterate(input)) {
      Value v = attr_path(r, item, path);
      out.push_back(v.is_undefined() && dflt ? *dflt : v);
    }
    return Value::make_iterator(out, "generator");
  }
  if (args.positional.empty())
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "map needs a filter name or attribute=");
  std::string filter = need_string("map", args.positional[0]);
  if (!is_supported_filter(filter))
    render_fail(LLMC_ERR_UNSUPPORTED, "unsupported filter '", filter, "' in map");
  CallArgs rest;
  rest.positional.assign(args.positional.begin() + 1, args.positional.end());
  rest.keyword = args.keyword;
  for (const Value &item : r.iterate(input))
    out.push_back(apply_filter(r, filter, item, rest));
  return Value::make_iterator(out, "generator");
}

/// Case-insensitive by default, like jinja2's sort/unique (str.lower()).
Value fold_case(const Value &v, bool case_sensitive, const char *filter) {
  if (case_sensitive || !v.is_string())
    return v;
  return Value::string(py_lower(v.s, cat("filter '", filter, "' (comparing case-insensitively)").c_str()));
}

/// min/max: the first item that no other beats (`sign` -1 for min).
Value extreme(Renderer &r, const Value &in, CallArgs &a, const char *name, int sign) {
  Bound p = bind(name, a, {"case_sensitive", "attribute"});
  bool cs = opt_truthy(p[0], false);
  std::string attr = p[1] && !p[1]->is_none() ? to_str(*p[1]) : "";
  std::vector<Value> items = r.iterate(in);
  if (items.empty())
    return Value::undefined(cat("No aggregated item, sequence was empty."));
  size_t best = 0;
  for (size_t k = 1; k < items.size(); ++k) {
    Value kb = fold_case(attr.empty() ? items[best] : attr_path(r, items[best], attr), cs, name);
    Value kk = fold_case(attr.empty() ? items[k] : attr_path(r, items[k], attr), cs, name);
    if (three_way(kk, kb) * sign > 0)
      best = k;
  }
  return items[best];
}

using FilterFn = std::function<Value(Renderer &, const Value &, CallArgs &)>;

/// length and its alias count: the size of the piped value.
FilterFn length_filter(const char *name) {
  return [name](Renderer &, const Value &in, CallArgs &a) {
    bind(name, a, {});
    return Value::integer(length_of(in));
  };
}

/// upper, lower, capitalize, title: no parameters, `map` over the piped
/// value's text (chat_case.h, which names the filter in its one error).
template <typename Map>
FilterFn text_filter(const char *name, Map map) {
  return [name, map](Renderer &, const Value &in, CallArgs &a) {
    bind(name, a, {});
    return Value::string(map(to_str(in), cat("filter '", name, "'").c_str()));
  };
}

const std::map<std::string, FilterFn> &filters() {
  static const std::map<std::string, FilterFn> table = {
      {"trim", [](Renderer &, const Value &in, CallArgs &a) {
         Bound p = bind("trim", a, {"chars"});
         std::string chars = p[0] && !p[0]->is_none() ? need_string("trim", *p[0]) : "";
         return Value::string(py_strip(to_str(in), true, true, p[0] && !p[0]->is_none() ? &chars : nullptr));
       }},
      {"length", length_filter("length")},
      {"count", length_filter("count")},
      {"upper", text_filter("upper", py_upper)},
      {"lower", text_filter("lower", py_lower)},
      {"capitalize", text_filter("capitalize", py_capitalize)},
      {"title", text_filter("title", jinja_title)},
      {"replace", [](Renderer &, const Value &in, CallArgs &a) {
         Bound p = bind("replace", a, {"old", "new", "count"});
         if (!p[0] || !p[1])
           render_fail(LLMC_ERR_INVALID_ARGUMENT, "replace needs 'old' and 'new'");
         return Value::string(py_replace(to_str(in), to_str(*p[0]), to_str(*p[1]),
                                         opt_int("replace count", p[2], -1)));
       }},
      {"default", [](Renderer &, const Value &in, CallArgs &a) {
         Bound p = bind("default", a, {"default_value", "boolean"});
         bool use = in.is_undefined() || (opt_truthy(p[1], false) && !truthy(in));
         return use ? (p[0] ? *p[0] : Value::string("")) : in;
       }},
      {"first", [](Renderer &r, const Value &in, CallArgs &a) {
         bind("first", a, {});
         if (in.kind == Value::Kind::Iterator) { // takes one item, the rest stays
           size_t &pos = *in.iter_pos;
           return pos < in.list->size() ? (*in.list)[pos++]
                                        : Value::undefined("No first item, sequence was empty.");
         }
         std::vector<Value> items = r.iterate(in);
         return items.empty() ? Value::undefined("No first item, sequence was empty.") : items.front();
       }},
      {"last", [](Renderer &r, const Value &in, CallArgs &a) {
         bind("last", a, {});
         if (in.kind == Value::Kind::Iterator)
           render_fail(LLMC_ERR_INVALID_ARGUMENT, "'", in.seq_type, "' object is not reversible");
         std::vector<Value> items = r.iterate(in);
         return items.empty() ? Value::undefined("No last item, sequence was empty.") : items.back();
       }},
      {"join", [](Renderer &r, const Value &in, CallArgs &a) {
         Bound p = bind("join", a, {"d", "attribute"});
         std::string sep = p[0] ? to_str(*p[0]) : "";
         BoundedText out;
         bool first = true;
         for (const Value &item : r.iterate(in)) {
           Value v = p[1] && !p[1]->is_none() ? attr_path(r, item, to_str(*p[1])) : item;
           if (!first)
             out += sep;
           out += to_str(v);
           first = false;
         }
         return Value::string(out.take());
       }},
      {"items", [](Renderer &, const Value &in, CallArgs &a) {
         bind("items", a, {});
         std::vector<Value> pairs;
         if (in.is_undefined())
           return Value::make_iterator(pairs, "generator");
         if (!in.is_dict())
           render_fail(LLMC_ERR_INVALID_ARGUMENT, "Can only get item pairs from a mapping.");
         for (const auto &kv : in.dict->items)
           pairs.push_back(Value::make_list({Value::string(kv.first), kv.second}, true));
         return Value::make_iterator(pairs, "generator");
       }},
      {"list", [](Renderer &r, const Value &in, CallArgs &a) {
         bind("list", a, {});
         return Value::make_list(r.iterate(in));
       }},
      {"string", [](Renderer &, const Value &in, CallArgs &a) {
         bind("string", a, {});
         return Value::string(to_str(in));
       }},
      {"safe", [](Renderer &, const Value &in, CallArgs &a) {
         bind("safe", a, {});
         // markupsafe.Markup: prints as is, but `+` with a plain string
         // HTML-escapes that string (autoescaping off does not change this).
         Value v = Value::string(to_str(in));
         v.is_markup = true;
         return v;
       }},
      {"int", [](Renderer &, const Value &in, CallArgs &a) {
         Bound p = bind("int", a, {"default", "base"});
         Value dflt = p[0] ? *p[0] : Value::integer(0);
         if (in.is_intlike())
           return Value::integer(in.as_int());
         if (in.kind == Value::Kind::Float)
           return std::isfinite(in.f) ? Value::integer(static_cast<int64_t>(in.f)) : dflt;
         if (in.is_string()) {
           if (auto v = parse_int(in.s, opt_int("int base", p[1], 10)))
             return Value::integer(*v);
           if (auto f = parse_float(in.s))
             return std::isfinite(*f) ? Value::integer(static_cast<int64_t>(*f)) : dflt;
         }
         return dflt;
       }},
      {"float", [](Renderer &, const Value &in, CallArgs &a) {
         Bound p = bind("float", a, {"default"});
         if (in.is_number())
           return Value::real(in.as_double());
         if (in.is_string())
           if (auto f = parse_float(in.s))
             return Value::real(*f);
         return p[0] ? *p[0] : Value::real(0.0);
       }},
      {"abs", [](Renderer &, const Value &in, CallArgs &a) {
         bind("abs", a, {});
         if (in.is_intlike())
           return Value::integer(std::llabs(in.as_int()));
         if (in.kind == Value::Kind::Float)
           return Value::real(std::fabs(in.f));
         render_fail(LLMC_ERR_INVALID_ARGUMENT, "bad operand type for abs(): '", type_name(in), "'");
       }},
      {"tojson", [](Renderer &, const Value &in, CallArgs &a) { return filter_tojson(in, a); }},
      {"select", [](Renderer &r, const Value &in, CallArgs &a) { return filter_select(r, in, a, false, true, "select"); }},
      {"reject", [](Renderer &r, const Value &in, CallArgs &a) { return filter_select(r, in, a, false, false, "reject"); }},
      {"selectattr", [](Renderer &r, const Value &in, CallArgs &a) { return filter_select(r, in, a, true, true, "selectattr"); }},
      {"rejectattr", [](Renderer &r, const Value &in, CallArgs &a) { return filter_select(r, in, a, true, false, "rejectattr"); }},
      {"map", [](Renderer &r, const Value &in, CallArgs &a) { return filter_map(r, in, a); }},
      {"reverse", [](Renderer &r, const Value &in, CallArgs &a) {
         bind("reverse", a, {});
         if (in.is_string()) {
           std::vector<uint32_t> cps = utf8_code_points(in.s);
           std::reverse(cps.begin(), cps.end());
           return Value::string(utf8_encode(cps));
         }
         // reversed(): an iterator over a list, dict or view; a generator
         // cannot be reversed, so jinja2 makes it a list.
         std::string type = in.is_plain_list()                   ? "list_reverseiterator"
                            : in.is_dict()                       ? "dict_reversekeyiterator"
                            : in.is_list() && in.seq_type == "dict_items" ? "dict_reverseitemiterator"
                            : in.is_list() && in.seq_type == "dict_keys"  ? "dict_reversekeyiterator"
                            : in.is_list()                        ? "dict_reversevalueiterator"
                            : in.is_undefined()                   ? "reversed" : "";
         std::vector<Value> items = r.iterate(in);
         std::reverse(items.begin(), items.end());
         return type.empty() ? Value::make_list(items) : Value::make_iterator(items, type);
       }},
      {"unique", [](Renderer &r, const Value &in, CallArgs &a) {
         Bound p = bind("unique", a, {"case_sensitive", "attribute"});
         bool cs = opt_truthy(p[0], false);
         std::vector<Value> out, seen;
         for (const Value &item : r.iterate(in)) {
           Value key = fold_case(p[1] && !p[1]->is_none() ? attr_path(r, item, to_str(*p[1])) : item, cs, "unique");
           bool dup = false;
           for (const Value &s : seen)
             dup |= equals(s, key);
           if (!dup) {
             seen.push_back(key);
             out.push_back(item);
           }
         }
         return Value::make_iterator(out, "generator");
       }},
      {"sort", [](Renderer &r, const Value &in, CallArgs &a) {
         Bound p = bind("sort", a, {"reverse", "case_sensitive", "attribute"});
         bool rev = opt_truthy(p[0], false), cs = opt_truthy(p[1], false);
         std::vector<Value> items = r.iterate(in);
         std::string attr = p[2] && !p[2]->is_none() ? to_str(*p[2]) : "";
         std::stable_sort(items.begin(), items.end(), [&](const Value &x, const Value &y) {
           Value kx = fold_case(attr.empty() ? x : attr_path(r, x, attr), cs, "sort");
           Value ky = fold_case(attr.empty() ? y : attr_path(r, y, attr), cs, "sort");
           return rev ? three_way(ky, kx) < 0 : three_way(kx, ky) < 0;
         });
         return Value::make_list(items);
       }},
      {"dictsort", [](Renderer &, const Value &in, CallArgs &a) {
         Bound p = bind("dictsort", a, {"case_sensitive", "by", "reverse"});
         bool cs = opt_truthy(p[0], false), rev = opt_truthy(p[2], false);
         std::string by = p[1] ? need_string("dictsort by", *p[1]) : "key";
         if (by != "key" && by != "value")
           render_fail(LLMC_ERR_INVALID_ARGUMENT, "You can only sort by either \"key\" or \"value\"");
         if (!in.is_dict())
           render_fail(LLMC_ERR_INVALID_ARGUMENT, "dictsort expects a mapping, got '", type_name(in), "'");
         std::vector<Value> pairs;
         for (const auto &kv : in.dict->items)
           pairs.push_back(Value::make_list({Value::string(kv.first), kv.second}, true));
         size_t at = by == "key" ? 0 : 1;
         std::stable_sort(pairs.begin(), pairs.end(), [&](const Value &x, const Value &y) {
           Value kx = fold_case((*x.list)[at], cs, "dictsort"), ky = fold_case((*y.list)[at], cs, "dictsort");
           return rev ? three_way(ky, kx) < 0 : three_way(kx, ky) < 0;
         });
         return Value::make_list(pairs);
       }},
      {"min", [](Renderer &r, const Value &in, CallArgs &a) { return extreme(r, in, a, "min", -1); }},
      {"max", [](Renderer &r, const Value &in, CallArgs &a) { return extreme(r, in, a, "max", 1); }},
      {"indent", [](Renderer &, const Value &in, CallArgs &a) {
         Bound p = bind("indent", a, {"width", "first", "blank"});
         std::string ind = p[0] && p[0]->is_string()
                               ? p[0]->s
                               : BoundedText().append(std::max<int64_t>(0, opt_int("indent width", p[0], 4)), ' ').take();
         bool first = opt_truthy(p[1], false), blank = opt_truthy(p[2], false);
         std::string s = to_str(in) + "\n";
         // str.splitlines() on the \n-terminated text: lines without their breaks.
         std::vector<std::string> lines;
         size_t start = 0;
         for (size_t k = 0; k < s.size(); ++k)
           if (s[k] == '\n' || s[k] == '\r') {
             lines.push_back(s.substr(start, k - start));
             if (s[k] == '\r' && k + 1 < s.size() && s[k + 1] == '\n')
               ++k;
             start = k + 1;
           }
         BoundedText out;
         for (size_t k = 0; k < lines.size(); ++k) {
           if (k)
             out += '\n';
           bool indent_it = (k > 0 || first) && (blank || !lines[k].empty());
           if (k == 0 && first && !blank && lines[k].empty())
             indent_it = true; // `first` indents the first line regardless
           if (indent_it)
             out += ind;
           out += lines[k];
         }
         return Value::string(out.take());
       }},
      {"sum", [](Renderer &r, const Value &in, CallArgs &a) {
         Bound p = bind("sum", a, {"attribute", "start"});
         Value acc = p[1] ? *p[1] : Value::integer(0);
         for (const Value &item : r.iterate(in))
           acc = binary_op("+", acc, p[0] && !p[0]->is_none() ? attr_path(r, item, to_str(*p[0])) : item);
         return acc;
       }},
  };
  return table;
}

} // namespace

bool is_supported_filter(const std::string &name) {
  return filters().count(name) || name == "d";
}

Value apply_filter(Renderer &r, const std::string &name, const Value &input, CallArgs &args) {
  auto it = filters().find(name == "d" ? "default" : name);
  if (it == filters().end()) // names were checked when parsing or by map()
    render_fail(LLMC_ERR_INTERNAL, "filter '", name, "' has no implementation");
  return it->second(r, input, args);
}

} // namespace llmc::rt::chat
