// The global functions Hugging Face's environment gives templates: raise_exception, strftime_now, namespace, dict, range.
#include "chat_args.h"
#include "chat_builtins.h"
#include "chat_eval.h"
#include "chat_operators.h"
#include "chat_text.h"

#include <ctime>

namespace llmc::rt::chat {

void add_globals(Frame &g) {
  g.set("raise_exception", Value::make_function("raise_exception", [](Renderer &, CallArgs &a) -> Value {
          Bound p = bind("raise_exception", a, {"message"});
          // The template's own words are the whole message: it is written for the user.
          throw Error(LLMC_ERR_INVALID_ARGUMENT, p[0] ? to_str(*p[0]) : std::string());
        }));
  g.set("strftime_now", Value::make_function("strftime_now", [](Renderer &, CallArgs &a) {
          Bound p = bind("strftime_now", a, {"format"});
          std::string fmt = p[0] ? need_string("strftime_now", *p[0]) : "";
          std::time_t now = std::time(nullptr);
          std::tm local{};
          localtime_r(&now, &local);
          /// Date strings in templates are short; this bounds a pathological format.
          constexpr size_t kMaxDateBytes = 256;
          char buf[kMaxDateBytes];
          size_t n = std::strftime(buf, sizeof buf, fmt.c_str(), &local);
          return Value::string(std::string(buf, n));
        }));
  g.set("namespace", Value::make_function("namespace", [](Renderer &r, CallArgs &a) {
          Value v;
          v.kind = Value::Kind::Namespace;
          v.ns = std::make_shared<Dict>();
          r.track_namespace(v.ns);
          for (const Value &p : a.positional) {
            if (!p.is_dict())
              render_fail(LLMC_ERR_INVALID_ARGUMENT, "namespace() takes only a dict or keyword arguments");
            for (const auto &kv : p.dict->items)
              v.ns->set(kv.first, kv.second);
          }
          for (const auto &kw : a.keyword) {
            if (!kw.first.empty() && kw.first[0] == '_')
              render_fail(LLMC_ERR_INVALID_ARGUMENT, "chat templates cannot store underscore-prefixed attributes on a namespace, but got '",
                          kw.first, "'");
            v.ns->set(kw.first, kw.second);
          }
          return v;
        }));
  g.set("dict", Value::make_function("dict", [](Renderer &, CallArgs &a) {
          Dict d;
          for (const Value &p : a.positional) {
            if (!p.is_dict())
              render_fail(LLMC_ERR_UNSUPPORTED, "dict() supports only a dict or keyword arguments");
            for (const auto &kv : p.dict->items)
              d.set(kv.first, kv.second);
          }
          for (const auto &kw : a.keyword)
            d.set(kw.first, kw.second);
          return Value::make_dict(std::move(d));
        }));
  g.set("range", Value::make_function("range", [](Renderer &, CallArgs &a) {
          if (!a.keyword.empty() || a.positional.empty() || a.positional.size() > 3)
            render_fail(LLMC_ERR_INVALID_ARGUMENT, "range expects 1 to 3 integer arguments");
          int64_t v[3] = {0, 0, 0};
          for (size_t k = 0; k < a.positional.size(); ++k) {
            if (!a.positional[k].is_intlike())
              render_fail(LLMC_ERR_INVALID_ARGUMENT, "'", type_name(a.positional[k]),
                          "' object cannot be interpreted as an integer");
            v[k] = a.positional[k].as_int();
          }
          int64_t start = a.positional.size() == 1 ? 0 : v[0];
          int64_t stop = a.positional.size() == 1 ? v[0] : v[1];
          int64_t step = a.positional.size() == 3 ? v[2] : 1;
          if (step == 0)
            render_fail(LLMC_ERR_INVALID_ARGUMENT, "range() arg 3 must not be zero");
          /// jinja2's sandbox limit (MAX_RANGE).
          constexpr int64_t kMaxRange = 100000;
          std::vector<Value> out;
          for (int64_t x = start; step > 0 ? x < stop : x > stop;) {
            if (static_cast<int64_t>(out.size()) >= kMaxRange)
              render_fail(LLMC_ERR_INVALID_ARGUMENT, "Range too big. The sandbox blocks ranges larger than MAX_RANGE (",
                          kMaxRange, ").");
            out.push_back(Value::integer(x));
            if (__builtin_add_overflow(x, step, &x)) // past INT64_MAX/MIN is past stop
              break;
          }
          return Value::make_list(out);
        }));
}

} // namespace llmc::rt::chat
