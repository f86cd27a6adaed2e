// The chat template evaluator: runs the statement tree against the render variables and collects the output.
#ifndef LLMC_RUNTIME_CHAT_EVAL_H
#define LLMC_RUNTIME_CHAT_EVAL_H

#include "chat_ast.h"
#include "chat_bounded_text.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::rt::chat {

/// Variables visible to a template. A for-loop iteration and a macro call
/// get a child frame: `set` there is not seen after it, as in jinja2 (which
/// is why templates carry state across iterations in a namespace()).
struct Frame {
  Dict vars; // insertion-ordered
  std::shared_ptr<Frame> parent;
  const Value *find(const std::string &name) const;
  void set(const std::string &name, Value v);
};

class Renderer {
public:
  Renderer(std::string_view source) : src_(source) {}

  /// Renders `body` with `globals` as the outermost frame. Errors of the
  /// template or its inputs throw Error with the line and column of the
  /// expression; raise_exception() throws its own message unchanged.
  std::string render(const Body &body, std::shared_ptr<Frame> globals);

  // Used by the builtins (filters, tests, methods).
  Value getattr(const Value &obj, const std::string &name);
  Value getitem(const Value &obj, const Value &key);
  Value call(const Value &fn, CallArgs &args);
  std::vector<Value> iterate(const Value &v);
  /// Namespaces are the only mutable values, so only they can form a
  /// reference cycle (`set ns.me = ns`); render() empties every namespace
  /// it saw when it finishes, which frees such cycles.
  void track_namespace(const std::shared_ptr<Dict> &ns) { namespaces_.push_back(ns); }

private:
  enum class Flow { Normal, Break, Continue };
  Flow exec(const Body &body, const std::shared_ptr<Frame> &frame, BoundedText &out);
  Flow exec_for(const Node &n, const std::shared_ptr<Frame> &frame, BoundedText &out);
  void exec_set(const Node &n, const std::shared_ptr<Frame> &frame, Value v);
  Value define_macro(const Node &n, const std::shared_ptr<Frame> &frame);
  Value eval(const Expr &e, const std::shared_ptr<Frame> &frame);
  CallArgs eval_args(const Expr &e, size_t first, const std::shared_ptr<Frame> &frame);
  Value slice(const Value &obj, const Value &start, const Value &stop, const Value &step);
  void bind_targets(Frame &f, const std::vector<std::string> &targets, const Value &v);
  size_t line_of(size_t offset) const;

  std::string_view src_;
  size_t where_ = 0; // offset of the construct being evaluated, for errors
  int call_depth_ = 0;
  int eval_depth_ = 0;
  Value block_input_; // the rendered body a {% filter %} block filters
  std::vector<std::weak_ptr<Dict>> namespaces_;
};

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_EVAL_H
