// The filters, tests, methods and globals templates call (jinja2 + HF's); chat_{filters,tests,methods,globals}.cpp.
#ifndef LLMC_RUNTIME_CHAT_BUILTINS_H
#define LLMC_RUNTIME_CHAT_BUILTINS_H

#include "chat_value.h"

#include <string>

namespace llmc::rt::chat {

class Renderer;
struct Frame;

/// Checked at parse time, so that a template using anything else fails at
/// create with the construct's name and position.
bool is_supported_filter(const std::string &name);
bool is_supported_test(const std::string &name);

Value apply_filter(Renderer &r, const std::string &name, const Value &input, CallArgs &args);
bool apply_test(Renderer &r, const std::string &name, const Value &input, CallArgs &args);

/// `obj.name` when it names a method of a str, dict or list: true with the
/// bound method in `out`. A real Python method this engine lacks (str.format,
/// list.append, ...) fails as unsupported; anything else returns false.
bool find_method(const Value &obj, const std::string &name, Value &out);

/// raise_exception, strftime_now, namespace, dict, range: Hugging Face's
/// environment globals plus the jinja2 defaults templates use.
void add_globals(Frame &globals);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_BUILTINS_H
