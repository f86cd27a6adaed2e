// Binding the arguments of builtin filters, tests and methods to parameter names, as Python calls do.
#ifndef LLMC_RUNTIME_CHAT_ARGS_H
#define LLMC_RUNTIME_CHAT_ARGS_H

#include "chat_value.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace llmc::rt::chat {

/// One slot per parameter, empty when the call did not pass it.
using Bound = std::vector<std::optional<Value>>;

/// Binds positional and keyword arguments to `names` (in order) the way
/// Python does, with one clear message for extra, unknown or repeated ones.
Bound bind(const std::string &what, const CallArgs &a, std::initializer_list<const char *> names);

bool opt_truthy(const std::optional<Value> &v, bool dflt);
/// The integer passed (None or absent: `dflt`); anything else fails.
int64_t opt_int(const std::string &what, const std::optional<Value> &v, int64_t dflt);
std::string need_string(const std::string &what, const Value &v);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_ARGS_H
