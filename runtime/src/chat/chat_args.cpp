// Python-style argument binding for the builtins: positional then keyword, with Python's messages.
#include "chat_args.h"

namespace llmc::rt::chat {

Bound bind(const std::string &what, const CallArgs &a, std::initializer_list<const char *> names) {
  std::vector<const char *> n(names);
  Bound out(n.size());
  if (a.positional.size() > n.size())
    render_fail(LLMC_ERR_INVALID_ARGUMENT, what, " takes at most ", n.size(), " argument(s), ",
                a.positional.size(), " given");
  for (size_t k = 0; k < a.positional.size(); ++k)
    out[k] = a.positional[k];
  for (const auto &kw : a.keyword) {
    size_t k = 0;
    while (k < n.size() && kw.first != n[k])
      ++k;
    if (k == n.size())
      render_fail(LLMC_ERR_INVALID_ARGUMENT, what, " got an unexpected keyword argument '", kw.first, "'");
    if (out[k])
      render_fail(LLMC_ERR_INVALID_ARGUMENT, what, " got multiple values for argument '", kw.first, "'");
    out[k] = kw.second;
  }
  return out;
}

bool opt_truthy(const std::optional<Value> &v, bool dflt) { return v ? truthy(*v) : dflt; }

int64_t opt_int(const std::string &what, const std::optional<Value> &v, int64_t dflt) {
  if (!v || v->is_none())
    return dflt;
  if (!v->is_intlike())
    render_fail(LLMC_ERR_INVALID_ARGUMENT, what, " expects an integer, got '", type_name(*v), "'");
  return v->as_int();
}

std::string need_string(const std::string &what, const Value &v) {
  if (!v.is_string())
    render_fail(LLMC_ERR_INVALID_ARGUMENT, what, " expects a string, got '", type_name(v), "'");
  return v.s;
}

} // namespace llmc::rt::chat
