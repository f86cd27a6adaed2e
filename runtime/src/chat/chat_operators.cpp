// Arithmetic, comparison and membership on template values, with Python's results and error messages.
#include "chat_operators.h"

#include "chat_bounded_text.h"

#include <cmath>

namespace llmc::rt::chat {

void undefined_fail(const Value &undef) {
  render_fail(LLMC_ERR_INVALID_ARGUMENT, undef.s.empty() ? "value is undefined" : undef.s);
}

namespace {

[[noreturn]] void unsupported_operands(const std::string &op, const Value &a, const Value &b) {
  if (op == "+" && (a.is_string() || a.is_plain_list()))
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "can only concatenate ", type_name(a), " (not \"",
                type_name(b), "\") to ", type_name(a));
  render_fail(LLMC_ERR_INVALID_ARGUMENT, "unsupported operand type(s) for ", op, ": '",
              type_name(a), "' and '", type_name(b), "'");
}

/// Python ints do not overflow; ours are 64-bit, so overflow is an error.
template <typename Op> int64_t checked(Op op, int64_t a, int64_t b) {
  int64_t r;
  if (op(a, b, &r))
    render_fail(LLMC_ERR_UNSUPPORTED, "integer overflow (chat templates compute in 64 bits)");
  return r;
}
bool add_ovf(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }
bool sub_ovf(int64_t a, int64_t b, int64_t *r) { return __builtin_sub_overflow(a, b, r); }
bool mul_ovf(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }

/// markupsafe.escape: what a Markup does to a plain string joined to it.
std::string html_escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&#34;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

/// Python's // on ints (b != 0). INT64_MIN // -1 is the one quotient that
/// does not fit (and traps in C++).
int64_t floor_div(int64_t a, int64_t b) {
  if (b == -1)
    return checked(sub_ovf, 0, a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

/// The bytes one copy of `seq` adds to a repetition: a string's characters;
/// a list's elements, each a Value with its own string (nested lists and
/// dicts are shared, not copied). 0 for an empty string or list.
size_t copy_bytes(const Value &seq) {
  if (seq.is_string())
    return seq.s.size();
  size_t bytes = 0;
  for (const Value &element : *seq.list)
    bytes += sizeof(Value) + element.s.size();
  return bytes;
}

Value repeat(const Value &seq, int64_t n) {
  size_t unit = copy_bytes(seq);
  if (n <= 0 || unit == 0) // also `'' * 10**18`: empty at once, no 10**18 appends
    return seq.is_string() ? Value::string("") : Value::make_list({}, seq.is_tuple);
  // Divides rather than multiplies: size * n can overflow int64.
  bool too_large = static_cast<uint64_t>(n) > kMaxTemplateTextBytes / unit;
  if (seq.is_string()) {
    require_text_bytes(too_large ? SIZE_MAX : unit * static_cast<size_t>(n));
    std::string out;
    for (int64_t k = 0; k < n; ++k)
      out += seq.s;
    return Value::string(out);
  }
  if (too_large)
    render_fail(LLMC_ERR_UNSUPPORTED, "list repetition too large");
  std::vector<Value> out;
  for (int64_t k = 0; k < n; ++k)
    out.insert(out.end(), seq.list->begin(), seq.list->end());
  return Value::make_list(out, seq.is_tuple);
}

/// `~` and `+` on strings: `{% set s = s ~ s %}` in a loop doubles.
Value concat(std::string_view a, std::string_view b) {
  BoundedText out;
  out += a;
  out += b;
  return Value::string(out.take());
}

/// base ** exp for exp >= 0 by squaring: log2(exp) steps, so `1 ** 10**18`
/// answers at once. A square that overflows while bits of exp remain means
/// the result overflows too (it has that square as a factor).
int64_t int_pow(int64_t base, int64_t exp) {
  int64_t acc = 1;
  while (exp > 0) {
    if (exp & 1)
      acc = checked(mul_ovf, acc, base);
    exp >>= 1;
    if (exp > 0)
      base = checked(mul_ovf, base, base);
  }
  return acc;
}

} // namespace

Value binary_op(const std::string &op, const Value &a, const Value &b) {
  if (op == "~")
    return concat(to_str(a), to_str(b));
  if (a.is_undefined())
    undefined_fail(a);
  if (b.is_undefined())
    undefined_fail(b);
  bool both_int = a.is_intlike() && b.is_intlike();
  bool both_num = a.is_number() && b.is_number();
  if (op == "+") {
    if (both_int)
      return Value::integer(checked(add_ovf, a.as_int(), b.as_int()));
    if (both_num)
      return Value::real(a.as_double() + b.as_double());
    if (a.is_string() && b.is_string()) {
      if (!a.is_markup && !b.is_markup)
        return concat(a.s, b.s);
      Value v = concat(a.is_markup ? a.s : html_escape(a.s), b.is_markup ? b.s : html_escape(b.s));
      v.is_markup = true;
      return v;
    }
    if (a.is_plain_list() && b.is_plain_list() && a.is_tuple == b.is_tuple) {
      std::vector<Value> out(*a.list);
      out.insert(out.end(), b.list->begin(), b.list->end());
      return Value::make_list(out, a.is_tuple);
    }
  } else if (op == "-") {
    if (both_int)
      return Value::integer(checked(sub_ovf, a.as_int(), b.as_int()));
    if (both_num)
      return Value::real(a.as_double() - b.as_double());
  } else if (op == "*") {
    if (both_int)
      return Value::integer(checked(mul_ovf, a.as_int(), b.as_int()));
    if (both_num)
      return Value::real(a.as_double() * b.as_double());
    if ((a.is_string() || a.is_plain_list()) && b.is_intlike())
      return repeat(a, b.as_int());
    if ((b.is_string() || b.is_plain_list()) && a.is_intlike())
      return repeat(b, a.as_int());
  } else if (op == "/") {
    if (both_num) {
      if (b.as_double() == 0) // Python's wording differs for int and float
        render_fail(LLMC_ERR_INVALID_ARGUMENT, both_int ? "division by zero" : "float division by zero");
      return Value::real(a.as_double() / b.as_double());
    }
  } else if (op == "//" || op == "%") {
    if (both_num) {
      if (b.as_double() == 0)
        render_fail(LLMC_ERR_INVALID_ARGUMENT, both_int      ? "integer division or modulo by zero"
                                               : op == "%" ? "float modulo"
                                                           : "float floor division by zero");
      if (both_int) {
        if (op == "%" && b.as_int() == -1) // x % -1 is 0 for every x, INT64_MIN too
          return Value::integer(0);
        int64_t q = floor_div(a.as_int(), b.as_int());
        return Value::integer(op == "//" ? q : a.as_int() - q * b.as_int());
      }
      double q = std::floor(a.as_double() / b.as_double());
      return Value::real(op == "//" ? q : a.as_double() - q * b.as_double());
    }
    if (op == "%" && a.is_string())
      render_fail(LLMC_ERR_UNSUPPORTED, "unsupported operator: string formatting with '%'");
  } else if (op == "**") {
    if (both_int && b.as_int() >= 0)
      return Value::integer(int_pow(a.as_int(), b.as_int()));
    if (both_num)
      return Value::real(std::pow(a.as_double(), b.as_double()));
  }
  unsupported_operands(op, a, b);
}

Value unary_op(const std::string &op, const Value &a) {
  if (a.is_undefined())
    undefined_fail(a);
  if (a.is_intlike())
    return op == "-" ? Value::integer(checked(sub_ovf, 0, a.as_int())) : Value::integer(a.as_int());
  if (a.kind == Value::Kind::Float)
    return Value::real(op == "-" ? -a.f : a.f);
  render_fail(LLMC_ERR_INVALID_ARGUMENT, "bad operand type for unary ", op, ": '", type_name(a), "'");
}

int three_way(const Value &a, const Value &b) {
  if (a.is_undefined())
    undefined_fail(a);
  if (b.is_undefined())
    undefined_fail(b);
  if (a.is_number() && b.is_number()) {
    if (a.kind != Value::Kind::Float && b.kind != Value::Kind::Float)
      return a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int() ? 1 : 0;
    return a.as_double() < b.as_double() ? -1 : a.as_double() > b.as_double() ? 1 : 0;
  }
  if (a.is_string() && b.is_string()) // UTF-8 byte order is code point order
    return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  if (a.is_plain_list() && b.is_plain_list() && a.is_tuple == b.is_tuple) {
    size_t n = std::min(a.list->size(), b.list->size());
    for (size_t k = 0; k < n; ++k)
      if (!equals((*a.list)[k], (*b.list)[k]))
        return three_way((*a.list)[k], (*b.list)[k]);
    return a.list->size() < b.list->size() ? -1 : a.list->size() > b.list->size() ? 1 : 0;
  }
  render_fail(LLMC_ERR_INVALID_ARGUMENT, "'<' not supported between instances of '", type_name(a),
              "' and '", type_name(b), "'");
}

bool order_compare(const std::string &op, const Value &a, const Value &b) {
  int c;
  try {
    c = three_way(a, b);
  } catch (RenderFailure &f) {
    if (f.message.rfind("'<' not supported", 0) == 0)
      f.message = "'" + op + f.message.substr(2);
    throw;
  }
  if (op == "<")
    return c < 0;
  if (op == ">")
    return c > 0;
  if (op == "<=")
    return c <= 0;
  return c >= 0;
}

bool contains(const Value &container, const Value &item) {
  switch (container.kind) {
  case Value::Kind::String:
    if (!item.is_string())
      render_fail(LLMC_ERR_INVALID_ARGUMENT, "'in <string>' requires string as left operand, not ",
                  type_name(item));
    return container.s.find(item.s) != std::string::npos;
  case Value::Kind::List:
    for (const Value &v : *container.list)
      if (equals(v, item))
        return true;
    return false;
  case Value::Kind::Dict:
    return item.is_string() && container.dict->find(item.s) != nullptr;
  case Value::Kind::Iterator: { // consumes up to and including the match, as Python does
    size_t &pos = *container.iter_pos;
    while (pos < container.list->size())
      if (equals((*container.list)[pos++], item))
        return true;
    return false;
  }
  case Value::Kind::Undefined:
    return false; // iterates as empty
  default:
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "argument of type '", type_name(container),
                "' is not iterable");
  }
}

} // namespace llmc::rt::chat
