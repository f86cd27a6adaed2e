// Evaluates chat template statements and expressions with jinja2's scoping, undefined and loop semantics.
#include "chat_eval.h"

#include "chat_builtins.h"
#include "chat_operators.h"
#include "chat_source.h"
#include "chat_text.h"

#include <algorithm>
#include <optional>

namespace llmc::rt::chat {

namespace {
/// Recursive macros beyond this depth fail instead of overflowing the stack.
constexpr int kMaxCallDepth = 64;
/// Long left-deep chains (`a ~ b ~ c ...`, `x|f|g|...`) parse in a loop but
/// evaluate recursively; real templates stay far below this.
constexpr int kMaxEvalDepth = 500;
} // namespace

const Value *Frame::find(const std::string &name) const {
  for (const Frame *f = this; f; f = f->parent.get())
    if (const Value *v = f->vars.find(name))
      return v;
  return nullptr;
}

void Frame::set(const std::string &name, Value v) { vars.set(name, std::move(v)); }

std::string Renderer::render(const Body &body, std::shared_ptr<Frame> globals) {
  auto root = std::make_shared<Frame>();
  root->parent = std::move(globals);
  BoundedText out;
  struct ReleaseNamespaces {
    std::vector<std::weak_ptr<Dict>> &seen;
    ~ReleaseNamespaces() {
      for (auto &w : seen)
        if (auto ns = w.lock())
          std::vector<std::pair<std::string, Value>>().swap(ns->items);
    }
  } release{namespaces_};
  try {
    exec(body, root, out);
  } catch (const RenderFailure &f) {
    template_fail(f.status, src_, where_, f.message);
  }
  return out.take();
}

std::vector<Value> Renderer::iterate(const Value &v) {
  switch (v.kind) {
  case Value::Kind::List:
    return *v.list;
  case Value::Kind::Iterator: {
    size_t &pos = *v.iter_pos;
    std::vector<Value> rest(v.list->begin() + std::min(pos, v.list->size()), v.list->end());
    pos = v.list->size();
    return rest;
  }
  case Value::Kind::Dict: {
    std::vector<Value> keys;
    for (const auto &kv : v.dict->items)
      keys.push_back(Value::string(kv.first));
    return keys;
  }
  case Value::Kind::String: {
    std::vector<Value> chars;
    for (uint32_t cp : utf8_code_points(v.s)) {
      std::string c;
      utf8_append(c, cp);
      chars.push_back(Value::string(c));
    }
    return chars;
  }
  case Value::Kind::Undefined:
    return {};
  default:
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "'", type_name(v), "' object is not iterable");
  }
}

void Renderer::bind_targets(Frame &f, const std::vector<std::string> &targets, const Value &v) {
  if (targets.size() == 1) {
    f.set(targets[0], v);
    return;
  }
  std::vector<Value> parts = iterate(v);
  if (parts.size() < targets.size())
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "not enough values to unpack (expected ", targets.size(),
                ", got ", parts.size(), ")");
  if (parts.size() > targets.size())
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "too many values to unpack (expected ", targets.size(), ")");
  for (size_t k = 0; k < targets.size(); ++k)
    f.set(targets[k], parts[k]);
}

Renderer::Flow Renderer::exec(const Body &body, const std::shared_ptr<Frame> &frame, BoundedText &out) {
  for (const NodePtr &np : body) {
    const Node &n = *np;
    switch (n.kind) {
    case Node::Kind::Text:
      where_ = n.offset; // the output's bound names the text or {{ }} that passes it
      out += n.text;
      break;
    case Node::Kind::Output: {
      where_ = n.offset; // str() of a list names the {{ }}, or the filter or call within
      std::string text = to_str(eval(*n.expr, frame));
      where_ = n.offset;
      out += text;
      break;
    }
    case Node::Kind::If: {
      bool taken = false;
      for (const auto &br : n.branches) {
        if (truthy(eval(*br.first, frame))) {
          Flow fl = exec(br.second, frame, out);
          if (fl != Flow::Normal)
            return fl;
          taken = true;
          break;
        }
      }
      if (!taken) {
        Flow fl = exec(n.else_body, frame, out);
        if (fl != Flow::Normal)
          return fl;
      }
      break;
    }
    case Node::Kind::For: {
      Flow fl = exec_for(n, frame, out);
      if (fl != Flow::Normal)
        return fl;
      break;
    }
    case Node::Kind::Set:
      exec_set(n, frame, eval(*n.expr, frame));
      break;
    case Node::Kind::SetBlock: {
      BoundedText captured;
      exec(n.body, frame, captured);
      frame->set(n.targets[0], Value::string(captured.take()));
      break;
    }
    case Node::Kind::Macro:
      frame->set(n.name, define_macro(n, frame));
      break;
    case Node::Kind::Break:
      return Flow::Break;
    case Node::Kind::Continue:
      return Flow::Continue;
    case Node::Kind::FilterBlock: {
      BoundedText captured;
      Flow fl = exec(n.body, frame, captured);
      Value saved = std::move(block_input_);
      block_input_ = Value::string(captured.take());
      out += to_str(eval(*n.expr, frame));
      block_input_ = std::move(saved);
      if (fl != Flow::Normal)
        return fl;
      break;
    }
    case Node::Kind::Scope: {
      Flow fl = exec(n.body, frame, out);
      if (fl != Flow::Normal)
        return fl;
      break;
    }
    }
  }
  return Flow::Normal;
}

Renderer::Flow Renderer::exec_for(const Node &n, const std::shared_ptr<Frame> &frame, BoundedText &out) {
  std::vector<Value> all = iterate(eval(*n.expr, frame));
  where_ = n.offset;
  auto state = std::make_shared<LoopState>();
  if (n.filter) {
    for (const Value &item : all) {
      auto probe = std::make_shared<Frame>();
      probe->parent = frame;
      bind_targets(*probe, n.targets, item);
      if (truthy(eval(*n.filter, probe)))
        state->items.push_back(item);
    }
  } else {
    state->items = std::move(all);
  }
  Value loop_value;
  loop_value.kind = Value::Kind::Loop;
  loop_value.loop = state;
  for (size_t k = 0; k < state->items.size(); ++k) {
    state->index = k;
    auto iter = std::make_shared<Frame>();
    iter->parent = frame;
    where_ = n.offset;
    bind_targets(*iter, n.targets, state->items[k]);
    iter->set("loop", loop_value);
    if (exec(n.body, iter, out) == Flow::Break)
      break;
  }
  if (state->items.empty() && !n.else_body.empty()) {
    auto scope = std::make_shared<Frame>();
    scope->parent = frame;
    return exec(n.else_body, scope, out);
  }
  return Flow::Normal;
}

void Renderer::exec_set(const Node &n, const std::shared_ptr<Frame> &frame, Value v) {
  where_ = n.offset;
  if (n.ns_attr.empty()) {
    bind_targets(*frame, n.targets, v);
    return;
  }
  const Value *target = frame->find(n.targets[0]);
  if (!target || target->kind != Value::Kind::Namespace)
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "cannot assign attribute '", n.ns_attr, "' on '",
                n.targets[0], "': it is not a namespace()");
  if (n.ns_attr[0] == '_') // Hugging Face's TemplateNamespace refuses these
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "chat templates cannot store underscore-prefixed attributes on a namespace, but got '",
                n.ns_attr, "'");
  target->ns->set(n.ns_attr, std::move(v));
}

Value Renderer::define_macro(const Node &n, const std::shared_ptr<Frame> &frame) {
  const Node *node = &n;
  std::weak_ptr<Frame> defining = frame; // a macro stored in its own frame must not keep it alive
  return Value::make_function(n.name, [node, defining](Renderer &r, CallArgs &args) -> Value {
    auto scope = std::make_shared<Frame>();
    scope->parent = defining.lock();
    if (args.positional.size() > node->params.size())
      render_fail(LLMC_ERR_INVALID_ARGUMENT, "macro '", node->name, "' takes not more than ",
                  node->params.size(), " argument(s)");
    for (const auto &kw : args.keyword) {
      bool known = false;
      for (const auto &p : node->params)
        known |= p.first == kw.first;
      if (!known)
        render_fail(LLMC_ERR_INVALID_ARGUMENT, "macro '", node->name, "' takes no keyword argument '",
                    kw.first, "'");
    }
    for (size_t k = 0; k < node->params.size(); ++k) {
      const auto &p = node->params[k];
      Value v;
      bool given = false;
      if (k < args.positional.size()) {
        v = args.positional[k];
        given = true;
      }
      for (const auto &kw : args.keyword)
        if (kw.first == p.first) {
          v = kw.second;
          given = true;
        }
      if (!given)
        v = p.second ? r.eval(*p.second, scope) : Value::undefined(cat("'", p.first, "' is undefined"));
      scope->set(p.first, v);
    }
    struct DepthGuard {
      int &depth;
      ~DepthGuard() { --depth; }
    } guard{++r.call_depth_};
    if (r.call_depth_ > kMaxCallDepth)
      render_fail(LLMC_ERR_UNSUPPORTED, "macro calls nest deeper than ", kMaxCallDepth, " levels");
    BoundedText out;
    r.exec(node->body, scope, out);
    return Value::string(out.take());
  });
}

CallArgs Renderer::eval_args(const Expr &e, size_t first, const std::shared_ptr<Frame> &frame) {
  CallArgs a;
  for (size_t k = first; k < e.args.size(); ++k)
    a.positional.push_back(eval(*e.args[k], frame));
  for (const auto &kw : e.kwargs)
    a.keyword.emplace_back(kw.first, eval(*kw.second, frame));
  return a;
}

Value Renderer::getattr(const Value &obj, const std::string &name) {
  Value method;
  switch (obj.kind) {
  case Value::Kind::Undefined:
    undefined_fail(obj);
  case Value::Kind::Dict: {
    if (find_method(obj, name, method))
      return method;
    const Value *v = obj.dict->find(name);
    return v ? *v : Value::undefined(cat("'dict object' has no attribute '", name, "'"));
  }
  case Value::Kind::Namespace: {
    const Value *v = obj.ns->find(name);
    // jinja2 names the class of HF's namespace objects in full
    return v ? *v
             : Value::undefined(cat("'transformers.utils.chat_template_utils.TemplateNamespace object' has no attribute '",
                                    name, "'"));
  }
  case Value::Kind::Loop: {
    const LoopState &L = *obj.loop;
    int64_t n = static_cast<int64_t>(L.items.size()), i = static_cast<int64_t>(L.index);
    if (name == "index") return Value::integer(i + 1);
    if (name == "index0") return Value::integer(i);
    if (name == "revindex") return Value::integer(n - i);
    if (name == "revindex0") return Value::integer(n - i - 1);
    if (name == "first") return Value::boolean(i == 0);
    if (name == "last") return Value::boolean(i == n - 1);
    if (name == "length") return Value::integer(n);
    if (name == "depth") return Value::integer(1);
    if (name == "depth0") return Value::integer(0);
    if (name == "previtem")
      return i > 0 ? L.items[i - 1] : Value::undefined("there is no previous item");
    if (name == "nextitem")
      return i + 1 < n ? L.items[i + 1] : Value::undefined("there is no next item");
    if (name == "cycle") {
      auto state = obj.loop;
      return Value::make_function("loop.cycle", [state](Renderer &, CallArgs &args) {
        if (args.positional.empty())
          render_fail(LLMC_ERR_INVALID_ARGUMENT, "no items for cycling given");
        return args.positional[state->index % args.positional.size()];
      });
    }
    return Value::undefined(cat("'jinja2.runtime.LoopContext object' has no attribute '", name, "'"));
  }
  case Value::Kind::None:
    return Value::undefined(cat("'None' has no attribute '", name, "'"));
  default:
    if (find_method(obj, name, method))
      return method;
    return Value::undefined(cat("'", type_name(obj), " object' has no attribute '", name, "'"));
  }
}

Value Renderer::getitem(const Value &obj, const Value &key) {
  if (obj.is_undefined())
    undefined_fail(obj);
  if (key.is_undefined())
    undefined_fail(key);
  auto missing = [&]() {
    if (key.is_string())
      return getattr(obj, key.s); // jinja2 falls back to the attribute
    return Value::undefined(cat(obj.is_none() ? std::string("None") : type_name(obj) + " object",
                                " has no element ", to_repr(key)));
  };
  if (obj.is_dict()) {
    if (key.is_string()) {
      if (const Value *v = obj.dict->find(key.s))
        return *v;
      Value method;
      if (find_method(obj, key.s, method))
        return method;
      return Value::undefined(cat("'dict object' has no attribute '", key.s, "'"));
    }
    return missing();
  }
  if (obj.kind == Value::Kind::Iterator || (obj.is_list() && !obj.is_plain_list()))
    return missing(); // not subscriptable: jinja2 answers undefined
  if ((obj.is_list() || obj.is_string()) && key.is_intlike()) {
    int64_t i = key.as_int();
    if (obj.is_list()) {
      int64_t n = static_cast<int64_t>(obj.list->size());
      if (i < 0)
        i += n;
      if (i < 0 || i >= n)
        return missing();
      return (*obj.list)[i];
    }
    std::vector<uint32_t> cps = utf8_code_points(obj.s);
    int64_t n = static_cast<int64_t>(cps.size());
    if (i < 0)
      i += n;
    if (i < 0 || i >= n)
      return missing();
    std::string c;
    utf8_append(c, cps[i]);
    return Value::string(c);
  }
  return missing();
}

Value Renderer::slice(const Value &obj, const Value &start, const Value &stop, const Value &step) {
  if (obj.is_undefined())
    undefined_fail(obj);
  auto bound = [&](const Value &v, const char *what) -> std::optional<int64_t> {
    if (v.is_none() || v.is_undefined())
      return std::nullopt;
    if (!v.is_intlike())
      render_fail(LLMC_ERR_INVALID_ARGUMENT, "slice ", what, " must be an integer or None, not '",
                  type_name(v), "'");
    return v.as_int();
  };
  std::optional<int64_t> b = bound(start, "start"), e = bound(stop, "stop"), s = bound(step, "step");
  int64_t st = s.value_or(1);
  if (st == 0)
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "slice step cannot be zero");
  std::vector<uint32_t> cps;
  int64_t n;
  if (obj.is_string()) {
    cps = utf8_code_points(obj.s);
    n = static_cast<int64_t>(cps.size());
  } else if (obj.is_plain_list()) {
    n = static_cast<int64_t>(obj.list->size());
  } else {
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "'", type_name(obj), "' object is not subscriptable");
  }
  // Python's slice.indices(): clamp, with different defaults per direction.
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v)
      return dflt;
    int64_t x = *v;
    if (x < 0)
      x += n;
    if (st > 0)
      return std::min(std::max<int64_t>(x, 0), n);
    return std::min(std::max<int64_t>(x, -1), n - 1);
  };
  int64_t lo = clamp(b, st > 0 ? 0 : n - 1), hi = clamp(e, st > 0 ? n : -1);
  std::vector<int64_t> idx;
  for (int64_t k = lo; st > 0 ? k < hi : k > hi;) {
    idx.push_back(k);
    if (__builtin_add_overflow(k, st, &k)) // a step past INT64_MAX is past the end
      break;
  }
  if (obj.is_string()) {
    std::string out;
    for (int64_t k : idx)
      utf8_append(out, cps[k]);
    return Value::string(out);
  }
  std::vector<Value> out;
  for (int64_t k : idx)
    out.push_back((*obj.list)[k]);
  return Value::make_list(out, obj.is_tuple);
}

size_t Renderer::line_of(size_t offset) const {
  size_t line = 1;
  for (size_t k = 0; k < offset && k < src_.size(); ++k)
    line += src_[k] == '\n';
  return line;
}

Value Renderer::call(const Value &fn, CallArgs &args) {
  if (fn.is_undefined())
    undefined_fail(fn);
  if (fn.kind != Value::Kind::Function)
    render_fail(LLMC_ERR_INVALID_ARGUMENT, "'", type_name(fn), "' object is not callable");
  return fn.func->fn(*this, args);
}

Value Renderer::eval(const Expr &e, const std::shared_ptr<Frame> &frame) {
  struct DepthGuard {
    int &depth;
    ~DepthGuard() { --depth; }
  } guard{++eval_depth_};
  if (eval_depth_ > kMaxEvalDepth) {
    where_ = e.offset;
    render_fail(LLMC_ERR_UNSUPPORTED, "expression nests deeper than ", kMaxEvalDepth, " levels");
  }
  switch (e.kind) {
  case Expr::Kind::Literal:
    return e.value;
  case Expr::Kind::Name: {
    const Value *v = frame->find(e.name);
    return v ? *v : Value::undefined(cat("'", e.name, "' is undefined"));
  }
  case Expr::Kind::ListLit: {
    std::vector<Value> items;
    for (const auto &a : e.args)
      items.push_back(eval(*a, frame));
    return Value::make_list(std::move(items), e.is_tuple);
  }
  case Expr::Kind::DictLit: {
    Dict d;
    for (size_t k = 0; k + 1 < e.args.size(); k += 2) {
      Value key = eval(*e.args[k], frame);
      Value val = eval(*e.args[k + 1], frame);
      where_ = e.args[k]->offset;
      if (!key.is_string())
        render_fail(LLMC_ERR_UNSUPPORTED, "unsupported dict key of type '", type_name(key),
                    "' (only strings)");
      d.set(key.s, val);
    }
    return Value::make_dict(std::move(d));
  }
  case Expr::Kind::Attr: {
    Value obj = eval(*e.args[0], frame);
    where_ = e.offset;
    return getattr(obj, e.name);
  }
  case Expr::Kind::Item: {
    Value obj = eval(*e.args[0], frame);
    Value key = eval(*e.args[1], frame);
    where_ = e.offset;
    return getitem(obj, key);
  }
  case Expr::Kind::Slice: {
    Value obj = eval(*e.args[0], frame);
    Value parts[3];
    for (int k = 0; k < 3; ++k)
      parts[k] = e.args[k + 1] ? eval(*e.args[k + 1], frame) : Value::none();
    where_ = e.offset;
    return slice(obj, parts[0], parts[1], parts[2]);
  }
  case Expr::Kind::Call: {
    Value fn = eval(*e.args[0], frame);
    CallArgs args = eval_args(e, 1, frame);
    where_ = e.offset;
    return call(fn, args);
  }
  case Expr::Kind::Filter: {
    Value input = e.args[0] ? eval(*e.args[0], frame) : block_input_;
    CallArgs args = eval_args(e, 1, frame);
    where_ = e.offset;
    return apply_filter(*this, e.name, input, args);
  }
  case Expr::Kind::Test: {
    Value input = eval(*e.args[0], frame);
    CallArgs args = eval_args(e, 1, frame);
    where_ = e.offset;
    return Value::boolean(apply_test(*this, e.name, input, args) != e.negated);
  }
  case Expr::Kind::Unary: {
    Value a = eval(*e.args[0], frame);
    where_ = e.offset;
    return unary_op(e.name, a);
  }
  case Expr::Kind::Binary: {
    Value a = eval(*e.args[0], frame);
    Value b = eval(*e.args[1], frame);
    where_ = e.offset;
    return binary_op(e.name, a, b);
  }
  case Expr::Kind::And: {
    Value a = eval(*e.args[0], frame);
    return truthy(a) ? eval(*e.args[1], frame) : a;
  }
  case Expr::Kind::Or: {
    Value a = eval(*e.args[0], frame);
    return truthy(a) ? a : eval(*e.args[1], frame);
  }
  case Expr::Kind::Not:
    return Value::boolean(!truthy(eval(*e.args[0], frame)));
  case Expr::Kind::Compare: {
    Value left = eval(*e.args[0], frame);
    for (size_t k = 0; k < e.ops.size(); ++k) {
      Value right = eval(*e.args[k + 1], frame);
      where_ = e.offset;
      const std::string &op = e.ops[k];
      bool ok;
      if (op == "==")
        ok = equals(left, right);
      else if (op == "!=")
        ok = !equals(left, right);
      else if (op == "in")
        ok = contains(right, left);
      else if (op == "not in")
        ok = !contains(right, left);
      else
        ok = order_compare(op, left, right);
      if (!ok)
        return Value::boolean(false);
      left = std::move(right);
    }
    return Value::boolean(true);
  }
  case Expr::Kind::Cond: {
    if (truthy(eval(*e.args[0], frame)))
      return eval(*e.args[1], frame);
    if (e.args[2])
      return eval(*e.args[2], frame);
    return Value::undefined(cat("the inline if-expression on line ", line_of(e.offset),
                                " evaluated to false and no else section was defined."));
  }
  }
  return Value();
}

} // namespace llmc::rt::chat
