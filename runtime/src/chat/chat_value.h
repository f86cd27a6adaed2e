// The dynamic values a chat template computes with (Python/Jinja semantics: None, bool, int, float, str, list, dict, ...).
#ifndef LLMC_RUNTIME_CHAT_VALUE_H
#define LLMC_RUNTIME_CHAT_VALUE_H

#include "error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llmc::rt::chat {

struct Value;
struct CallArgs;
class Renderer;

/// Insertion-ordered string-keyed map, like a Python dict built from JSON:
/// templates iterate messages' fields and tool schemas in source order.
struct Dict {
  std::vector<std::pair<std::string, Value>> items;
  const Value *find(const std::string &key) const;
  void set(const std::string &key, Value v);
};

/// A builtin function, bound method or macro. `fn` receives the evaluated
/// arguments; errors are thrown as RenderError by the callee.
struct Function {
  std::string name;
  std::function<Value(Renderer &, CallArgs &)> fn;
};

struct LoopState;

/// Lists and dicts are shared (the sandbox forbids mutating them, so sharing
/// is invisible); a namespace is shared on purpose: `set ns.x = ...` inside a
/// loop must be seen after it, which is the reason namespaces exist.
struct Value {
  enum class Kind { Undefined, None, Bool, Int, Float, String, List, Dict, Namespace, Function, Loop, Iterator };
  Kind kind = Kind::Undefined;
  bool b = false;
  bool is_tuple = false; // List: a Python tuple (repr with parentheses)
  bool is_markup = false; // String: a markupsafe.Markup (from the safe filter)
  uint32_t depth = 0;    // List/Dict/Iterator: 1 + the deepest element's depth
  /// List: "" for a list or tuple, else the dict view it stands for
  /// ("dict_items", "dict_keys", "dict_values": iterable, sized, not
  /// indexable). Iterator: the Python type ("generator", ...).
  std::string seq_type;
  /// Iterator: how many items have been consumed. Shared by copies, since a
  /// Python iterator runs once: map/select results iterated twice are empty
  /// the second time.
  std::shared_ptr<size_t> iter_pos;
  int64_t i = 0;
  double f = 0;
  std::string s; // String; Undefined: the message a use of it raises
  std::shared_ptr<const std::vector<Value>> list;
  std::shared_ptr<const Dict> dict;
  std::shared_ptr<Dict> ns;
  std::shared_ptr<const Function> func;
  std::shared_ptr<LoopState> loop;

  static Value undefined(std::string message) {
    Value v;
    v.s = std::move(message);
    return v;
  }
  static Value none() { return make(Kind::None); }
  static Value boolean(bool x) {
    Value v = make(Kind::Bool);
    v.b = x;
    return v;
  }
  static Value integer(int64_t x) {
    Value v = make(Kind::Int);
    v.i = x;
    return v;
  }
  static Value real(double x) {
    Value v = make(Kind::Float);
    v.f = x;
    return v;
  }
  static Value string(std::string x) {
    Value v = make(Kind::String);
    v.s = std::move(x);
    return v;
  }
  /// Containers record their nesting depth and refuse to nest deeper than
  /// kMaxValueDepth, so that printing, comparing or serializing a value a
  /// template built in a loop (`set ns.x = [ns.x]`) cannot exhaust the stack.
  static Value make_list(std::vector<Value> items, bool tuple = false);
  static Value make_dict(Dict d);
  /// A one-pass iterator over `items` (what jinja2's map/select/... return).
  static Value make_iterator(std::vector<Value> items, std::string type);
  /// A dict view (dict.items() and friends).
  static Value make_view(std::vector<Value> items, std::string type);
  static Value make_function(std::string name, std::function<Value(Renderer &, CallArgs &)> fn) {
    Value v = make(Kind::Function);
    v.func = std::make_shared<const Function>(Function{std::move(name), std::move(fn)});
    return v;
  }

  bool is_undefined() const { return kind == Kind::Undefined; }
  bool is_none() const { return kind == Kind::None; }
  bool is_string() const { return kind == Kind::String; }
  bool is_list() const { return kind == Kind::List; }
  /// A list or tuple proper: indexable, concatenable, JSON-serializable.
  bool is_plain_list() const { return kind == Kind::List && seq_type.empty(); }
  bool is_dict() const { return kind == Kind::Dict; }
  /// Python bool and int: arithmetic and comparisons treat True as 1.
  bool is_intlike() const { return kind == Kind::Int || kind == Kind::Bool; }
  bool is_number() const { return is_intlike() || kind == Kind::Float; }
  int64_t as_int() const { return kind == Kind::Bool ? (b ? 1 : 0) : i; }
  double as_double() const { return kind == Kind::Float ? f : static_cast<double>(as_int()); }

private:
  static Value make(Kind k) {
    Value v;
    v.kind = k;
    return v;
  }
};

/// Far deeper than JSON inputs (whose parser stops at 64) or any real template.
constexpr uint32_t kMaxValueDepth = 256;

/// Per-loop state behind the `loop` variable.
struct LoopState {
  std::vector<Value> items;
  size_t index = 0; // 0-based position of the current item
};

/// Evaluated call arguments: positional then keyword, as written.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;
};

/// A failure while rendering, thrown without a position: the renderer adds
/// the line and column of the expression it was evaluating.
struct RenderFailure {
  llmc_status status;
  std::string message;
};

template <typename... Args> [[noreturn]] void render_fail(llmc_status status, Args &&...args) {
  throw RenderFailure{status, cat(std::forward<Args>(args)...)};
}

/// Python truthiness (Undefined is false, as in jinja2's default Undefined).
bool truthy(const Value &v);
/// Python type name ("str", "int", "NoneType", ...) for error messages.
std::string type_name(const Value &v);
/// str(): what `{{ v }}`, `~` and the string filter produce (Undefined -> "").
std::string to_str(const Value &v);
/// repr(): strings quoted, containers recursive. The text of a list or dict
/// is bounded like every string a template builds (chat_bounded_text.h).
std::string to_repr(const Value &v);
/// Python ==, including 1 == 1.0 == True and order-free dict equality.
bool equals(const Value &a, const Value &b);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_VALUE_H
