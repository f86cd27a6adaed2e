// jinja2's builtin tests (`x is defined`, `x is string`, ...), by name.
#include "chat_args.h"
#include "chat_builtins.h"
#include "chat_case.h"
#include "chat_eval.h"
#include "chat_operators.h"
#include "chat_text.h"

#include <map>

namespace llmc::rt::chat {

namespace {

using TestFn = bool (*)(Renderer &, const Value &, CallArgs &);

const Value &one_arg(const char *name, const CallArgs &a) {
  if (a.positional.size() != 1 || !a.keyword.empty())
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "test '", name, "' takes exactly one argument");
  return a.positional[0];
}

void no_args(const char *name, const CallArgs &a) {
  if (!a.positional.empty() || !a.keyword.empty())
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "test '", name, "' takes no arguments");
}

#define LLMC_SIMPLE_TEST(NAME, EXPR)                                                          \
  {NAME, [](Renderer &, const Value &v, CallArgs &a) {                                        \
     no_args(NAME, a);                                                                        \
     return static_cast<bool>(EXPR);                                                          \
   }}
#define LLMC_BINARY_TEST(NAME, EXPR)                                                          \
  {NAME, [](Renderer &, const Value &v, CallArgs &a) {                                        \
     const Value &o = one_arg(NAME, a);                                                       \
     return static_cast<bool>(EXPR);                                                          \
   }}

int64_t need_int_for(const char *name, const Value &v) {
  if (v.is_undefined())
    undefined_fail(v);
  if (!v.is_intlike())
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "test '", name, "' needs an integer, got '", type_name(v), "'");
  return v.as_int();
}

const std::map<std::string, TestFn> &tests() {
  using K = Value::Kind;
  static const std::map<std::string, TestFn> table = {
      LLMC_SIMPLE_TEST("defined", !v.is_undefined()),
      LLMC_SIMPLE_TEST("undefined", v.is_undefined()),
      LLMC_SIMPLE_TEST("none", v.is_none()),
      LLMC_SIMPLE_TEST("string", v.is_string()),
      LLMC_SIMPLE_TEST("mapping", v.is_dict()),
      // jinja2's default Undefined iterates as empty and has a length.
      LLMC_SIMPLE_TEST("iterable", v.is_list() || v.is_dict() || v.is_string() || v.is_undefined() ||
                                       v.kind == K::Iterator),
      // len() and [] both: not iterators, not dict views.
      LLMC_SIMPLE_TEST("sequence", v.is_plain_list() || v.is_dict() || v.is_string() || v.is_undefined()),
      LLMC_SIMPLE_TEST("number", v.is_number()),
      LLMC_SIMPLE_TEST("integer", v.kind == K::Int),
      LLMC_SIMPLE_TEST("float", v.kind == K::Float),
      LLMC_SIMPLE_TEST("boolean", v.kind == K::Bool),
      LLMC_SIMPLE_TEST("true", v.kind == K::Bool && v.b),
      LLMC_SIMPLE_TEST("false", v.kind == K::Bool && !v.b),
      LLMC_SIMPLE_TEST("callable", v.kind == K::Function),
      LLMC_SIMPLE_TEST("lower", py_islower(to_str(v), "test 'lower'")),
      LLMC_SIMPLE_TEST("upper", py_isupper(to_str(v), "test 'upper'")),
      LLMC_SIMPLE_TEST("odd", need_int_for("odd", v) % 2 != 0),
      LLMC_SIMPLE_TEST("even", need_int_for("even", v) % 2 == 0),
      LLMC_BINARY_TEST("divisibleby", need_int_for("divisibleby", o) != 0 &&
                                          need_int_for("divisibleby", v) % need_int_for("divisibleby", o) == 0),
      LLMC_BINARY_TEST("equalto", equals(v, o)),
      LLMC_BINARY_TEST("eq", equals(v, o)),
      LLMC_BINARY_TEST("==", equals(v, o)),
      LLMC_BINARY_TEST("ne", !equals(v, o)),
      LLMC_BINARY_TEST("!=", !equals(v, o)),
      LLMC_BINARY_TEST("lt", order_compare("<", v, o)),
      LLMC_BINARY_TEST("<", order_compare("<", v, o)),
      LLMC_BINARY_TEST("lessthan", order_compare("<", v, o)),
      LLMC_BINARY_TEST("le", order_compare("<=", v, o)),
      LLMC_BINARY_TEST("<=", order_compare("<=", v, o)),
      LLMC_BINARY_TEST("gt", order_compare(">", v, o)),
      LLMC_BINARY_TEST(">", order_compare(">", v, o)),
      LLMC_BINARY_TEST("greaterthan", order_compare(">", v, o)),
      LLMC_BINARY_TEST("ge", order_compare(">=", v, o)),
      LLMC_BINARY_TEST(">=", order_compare(">=", v, o)),
      LLMC_BINARY_TEST("in", contains(o, v)),
      LLMC_BINARY_TEST("sameas", v.kind == o.kind && (v.kind == K::None || v.kind == K::Undefined ||
                                                      (v.kind == K::Bool && v.b == o.b) ||
                                                      (v.kind == K::Namespace && v.ns == o.ns) ||
                                                      (v.kind == K::List && v.list == o.list) ||
                                                      (v.kind == K::Dict && v.dict == o.dict))),
  };
  return table;
}

#undef LLMC_SIMPLE_TEST
#undef LLMC_BINARY_TEST

} // namespace

bool is_supported_test(const std::string &name) { return tests().count(name) != 0; }

bool apply_test(Renderer &r, const std::string &name, const Value &input, CallArgs &args) {
  auto it = tests().find(name);
  if (it == tests().end()) // names were checked when parsing or by select()
    render_fail(LLMC_ERR_INTERNAL, "test '", name, "' has no implementation");
  return it->second(r, input, args);
}

} // namespace llmc::rt::chat
