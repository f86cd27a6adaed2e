// Recursive-descent parser for jinja2 statements and expressions, with jinja2's operator precedence.
#include "chat_parser.h"

#include "chat_builtins.h"
#include "chat_source.h"

#include <algorithm>

namespace llmc::rt::chat {

namespace {

/// Deeper nesting than any real template; stops a hostile input from
/// recursing the parser (and later the evaluator) off the stack.
constexpr int kMaxNesting = 128;

using K = Token::Kind;

class Parser {
public:
  Parser(const std::vector<Token> &t, std::string_view src) : t_(t), src_(src) {}

  Body parse_all() {
    return subparse({}); // with no end tags it runs to the end of the template
  }

private:
  const Token &cur() const { return t_[pos_]; }
  const Token &at(size_t k) const { return t_[std::min(pos_ + k, t_.size() - 1)]; }
  void advance() {
    if (pos_ + 1 < t_.size())
      ++pos_;
  }

  static std::string describe(const Token &t) {
    switch (t.kind) {
    case K::Data: return "text";
    case K::VarBegin: return "{{";
    case K::VarEnd: return "}}";
    case K::BlockBegin: return "{%";
    case K::BlockEnd: return "%}";
    case K::Name: return t.text;
    case K::String: return "string literal";
    case K::Integer:
    case K::Float: return t.text;
    case K::Op: return t.text;
    case K::End: return "end of template";
    }
    return "?";
  }

  template <typename... Args> [[noreturn]] void fail_here(llmc_status st, Args &&...args) const {
    template_fail(st, src_, cur().offset, std::forward<Args>(args)...);
  }

  bool is_op(const char *op) const { return cur().kind == K::Op && cur().text == op; }
  bool is_name(const char *n) const { return cur().kind == K::Name && cur().text == n; }

  void expect_op(const char *op) {
    if (!is_op(op))
      fail_here(LLMC_ERR_FORMAT, "expected '", op, "' but found '", describe(cur()), "'");
    advance();
  }
  std::string expect_name(const char *what) {
    if (cur().kind != K::Name)
      fail_here(LLMC_ERR_FORMAT, "expected ", what, " but found '", describe(cur()), "'");
    std::string n = cur().text;
    advance();
    return n;
  }
  void expect_block_end(const char *tag) {
    if (cur().kind != K::BlockEnd)
      fail_here(LLMC_ERR_FORMAT, "expected '%}' to end '", tag, "' but found '", describe(cur()), "'");
    advance();
  }

  /// `item, item, ...` up to and past the closing `close` (a trailing comma
  /// allowed, as in Python); `item` parses one entry.
  template <typename Item> void comma_list(const char *close, Item item) {
    bool first = true;
    while (!is_op(close)) {
      if (!first)
        expect_op(",");
      first = false;
      if (is_op(close))
        break;
      item();
    }
    advance(); // close
  }

  struct Depth {
    Parser &p;
    explicit Depth(Parser &parser) : p(parser) {
      if (++p.depth_ > kMaxNesting)
        p.fail_here(LLMC_ERR_UNSUPPORTED, "template nests deeper than ", kMaxNesting, " levels");
    }
    ~Depth() { --p.depth_; }
  };

  /// The body of a block with one end tag: statements up to and including
  /// `{% end_tag %}`.
  Body block_body(const char *end_tag) {
    Body body = subparse({end_tag});
    advance();
    expect_block_end(end_tag);
    return body;
  }

  /// Statements until `{% <one of ends> ...`; leaves that end tag's name as
  /// the current token. At top level (ends empty) runs to End.
  Body subparse(const std::vector<std::string> &ends) {
    Depth d(*this);
    Body body;
    while (true) {
      const Token &tk = cur();
      if (tk.kind == K::End) {
        if (!ends.empty())
          fail_here(LLMC_ERR_FORMAT, "unexpected end of template, expected '", join(ends), "'");
        return body;
      }
      if (tk.kind == K::Data) {
        auto n = std::make_unique<Node>(Node::Kind::Text, tk.offset);
        n->text = tk.text;
        body.push_back(std::move(n));
        advance();
      } else if (tk.kind == K::VarBegin) {
        auto n = std::make_unique<Node>(Node::Kind::Output, tk.offset);
        advance();
        n->expr = parse_tuple(true);
        if (cur().kind != K::VarEnd)
          fail_here(LLMC_ERR_FORMAT, "expected '}}' but found '", describe(cur()), "'");
        advance();
        body.push_back(std::move(n));
      } else if (tk.kind == K::BlockBegin) {
        advance();
        if (cur().kind != K::Name)
          fail_here(LLMC_ERR_FORMAT, "expected a tag name after '{%' but found '", describe(cur()), "'");
        if (std::find(ends.begin(), ends.end(), cur().text) != ends.end())
          return body;
        body.push_back(parse_statement(ends));
      } else { // the lexer emits tag-inner tokens only between begin and end
        fail_here(LLMC_ERR_INTERNAL, "token '", describe(tk), "' outside a tag");
      }
    }
  }

  static std::string join(const std::vector<std::string> &v) {
    std::string s;
    for (size_t k = 0; k < v.size(); ++k)
      s += (k ? "' or '" : "") + v[k];
    return s;
  }

  NodePtr parse_statement(const std::vector<std::string> &outer_ends) {
    const Token &tk = cur();
    const std::string &tag = tk.text;
    if (tag == "if")
      return parse_if();
    if (tag == "for")
      return parse_for();
    if (tag == "set")
      return parse_set();
    if (tag == "macro")
      return parse_macro();
    if (tag == "break" || tag == "continue") {
      auto n = std::make_unique<Node>(tag == "break" ? Node::Kind::Break : Node::Kind::Continue, tk.offset);
      advance();
      expect_block_end(tag == "break" ? "break" : "continue");
      return n;
    }
    if (tag == "generation") { // Hugging Face's assistant-mask tag: renders its body
      auto n = std::make_unique<Node>(Node::Kind::Scope, tk.offset);
      advance();
      expect_block_end("generation");
      n->body = block_body("endgeneration");
      return n;
    }
    if (tag == "filter") { // {% filter f(args) | g %}body{% endfilter %}
      auto n = std::make_unique<Node>(Node::Kind::FilterBlock, tk.offset);
      advance();
      ExprPtr chain;
      do {
        if (chain)
          advance(); // |
        chain = parse_filter(std::move(chain), false);
      } while (is_op("|"));
      n->expr = std::move(chain);
      expect_block_end("filter");
      n->body = block_body("endfilter");
      return n;
    }
    static const char *const kEndTags[] = {"endif", "endfor", "endset", "endmacro", "elif", "else",
                                           "endgeneration", "endblock", "endfilter", "endcall",
                                           "endwith", "endraw"};
    for (const char *e : kEndTags)
      if (tag == e) {
        if (outer_ends.empty())
          fail_here(LLMC_ERR_FORMAT, "unexpected '", tag, "' (no open block to end)");
        fail_here(LLMC_ERR_FORMAT, "unexpected '", tag, "', expected '", join(outer_ends), "'");
      }
    fail_here(LLMC_ERR_UNSUPPORTED, "unsupported tag '", tag, "'");
  }

  NodePtr parse_if() {
    auto n = std::make_unique<Node>(Node::Kind::If, cur().offset);
    advance(); // if
    while (true) {
      ExprPtr cond = parse_tuple(false);
      expect_block_end("if");
      Body body = subparse({"elif", "else", "endif"});
      n->branches.emplace_back(std::move(cond), std::move(body));
      if (cur().text == "elif") {
        advance();
        continue;
      }
      n->else_body = else_and_end("endif");
      return n;
    }
  }

  /// The optional `{% else %}` part of an if or a for, then its end tag;
  /// the current token is the name `else` or `end_tag`.
  Body else_and_end(const char *end_tag) {
    Body else_body;
    if (cur().text == "else") {
      advance();
      expect_block_end("else");
      else_body = subparse({end_tag});
    }
    advance();
    expect_block_end(end_tag);
    return else_body;
  }

  /// `, name, name...` after a first target of a for or a set.
  void more_names(std::vector<std::string> &names, const char *what) {
    while (is_op(",")) {
      advance();
      names.push_back(expect_name(what));
    }
  }

  NodePtr parse_for() {
    auto n = std::make_unique<Node>(Node::Kind::For, cur().offset);
    advance(); // for
    n->targets.push_back(expect_name("a loop variable"));
    more_names(n->targets, "a loop variable");
    if (!is_name("in"))
      fail_here(LLMC_ERR_FORMAT, "expected 'in' in 'for' but found '", describe(cur()), "'");
    advance();
    n->expr = parse_tuple(false);
    if (is_name("if")) {
      advance();
      n->filter = parse_expression(true);
    }
    if (is_name("recursive"))
      fail_here(LLMC_ERR_UNSUPPORTED, "unsupported 'recursive' for loop");
    expect_block_end("for");
    n->body = subparse({"endfor", "else"});
    n->else_body = else_and_end("endfor");
    return n;
  }

  NodePtr parse_set() {
    size_t at = cur().offset;
    advance(); // set
    std::vector<std::string> targets{expect_name("a variable name after 'set'")};
    std::string attr;
    if (is_op(".")) {
      advance();
      attr = expect_name("an attribute name");
    } else {
      more_names(targets, "a variable name");
    }
    if (is_op("=")) {
      advance();
      auto n = std::make_unique<Node>(Node::Kind::Set, at);
      n->targets = std::move(targets);
      n->ns_attr = attr;
      n->expr = parse_tuple(true);
      expect_block_end("set");
      return n;
    }
    if (!attr.empty() || targets.size() != 1)
      fail_here(LLMC_ERR_FORMAT, "expected '=' in 'set' but found '", describe(cur()), "'");
    if (is_op("|"))
      fail_here(LLMC_ERR_UNSUPPORTED, "unsupported filter on a block 'set'");
    expect_block_end("set");
    auto n = std::make_unique<Node>(Node::Kind::SetBlock, at);
    n->targets = std::move(targets);
    n->body = block_body("endset");
    return n;
  }

  NodePtr parse_macro() {
    auto n = std::make_unique<Node>(Node::Kind::Macro, cur().offset);
    advance(); // macro
    n->name = expect_name("a macro name");
    expect_op("(");
    comma_list(")", [&] {
      std::string p = expect_name("a parameter name");
      ExprPtr def;
      if (is_op("=")) {
        advance();
        def = parse_expression(true);
      } else if (!n->params.empty() && n->params.back().second) {
        fail_here(LLMC_ERR_FORMAT, "parameter without a default follows one with a default");
      }
      n->params.emplace_back(p, std::move(def));
    });
    expect_block_end("macro");
    n->body = subparse({"endmacro"});
    advance();
    if (cur().kind == K::Name && cur().text == n->name)
      advance();
    expect_block_end("endmacro");
    return n;
  }

  // ---- expressions (jinja2's precedence, loosest first) ----

  ExprPtr make(Expr::Kind k, size_t at) { return std::make_unique<Expr>(k, at); }

  /// `a, b` without parentheses is a tuple (as in `{{ a, b }}`).
  ExprPtr parse_tuple(bool with_condexpr) {
    size_t at = cur().offset;
    ExprPtr first = parse_expression(with_condexpr);
    if (!is_op(","))
      return first;
    auto t = make(Expr::Kind::ListLit, at);
    t->is_tuple = true;
    t->args.push_back(std::move(first));
    while (is_op(",")) {
      advance();
      if (cur().kind == K::VarEnd || cur().kind == K::BlockEnd)
        break;
      t->args.push_back(parse_expression(with_condexpr));
    }
    return t;
  }

  ExprPtr parse_expression(bool with_condexpr) {
    Depth d(*this);
    return with_condexpr ? parse_condexpr() : parse_or();
  }

  ExprPtr parse_condexpr() {
    ExprPtr e = parse_or();
    while (is_name("if")) {
      size_t at = cur().offset;
      advance();
      auto c = make(Expr::Kind::Cond, at);
      c->args.push_back(parse_or());
      c->args.push_back(std::move(e));
      if (is_name("else")) {
        advance();
        c->args.push_back(parse_condexpr());
      } else {
        c->args.push_back(nullptr);
      }
      e = std::move(c);
    }
    return e;
  }

  /// `a or b or c` / `a and b`: a left-associative chain of one keyword.
  ExprPtr keyword_chain(ExprPtr (Parser::*next)(), const char *keyword, Expr::Kind kind) {
    ExprPtr e = (this->*next)();
    while (is_name(keyword)) {
      auto n = make(kind, cur().offset);
      advance();
      n->args.push_back(std::move(e));
      n->args.push_back((this->*next)());
      e = std::move(n);
    }
    return e;
  }

  ExprPtr parse_or() { return keyword_chain(&Parser::parse_and, "or", Expr::Kind::Or); }
  ExprPtr parse_and() { return keyword_chain(&Parser::parse_not, "and", Expr::Kind::And); }

  ExprPtr parse_not() {
    if (is_name("not")) {
      Depth d(*this);
      auto n = make(Expr::Kind::Not, cur().offset);
      advance();
      n->args.push_back(parse_not());
      return n;
    }
    return parse_compare();
  }

  ExprPtr parse_compare() {
    size_t at = cur().offset;
    ExprPtr e = parse_math1();
    ExprPtr cmp;
    while (true) {
      std::string op;
      if (cur().kind == K::Op && (cur().text == "==" || cur().text == "!=" || cur().text == "<" ||
                                  cur().text == ">" || cur().text == "<=" || cur().text == ">=")) {
        op = cur().text;
        advance();
      } else if (is_name("in")) {
        op = "in";
        advance();
      } else if (is_name("not") && at_is_name(1, "in")) {
        op = "not in";
        advance();
        advance();
      } else {
        break;
      }
      if (!cmp) {
        cmp = make(Expr::Kind::Compare, at);
        cmp->args.push_back(std::move(e));
      }
      cmp->ops.push_back(op);
      cmp->args.push_back(parse_math1());
    }
    return cmp ? std::move(cmp) : std::move(e);
  }

  bool at_is_name(size_t k, const char *n) const { return at(k).kind == K::Name && at(k).text == n; }

  ExprPtr binary_chain(ExprPtr (Parser::*next)(), std::initializer_list<const char *> ops) {
    ExprPtr e = (this->*next)();
    while (true) {
      const char *hit = nullptr;
      for (const char *op : ops)
        if (is_op(op))
          hit = op;
      if (!hit)
        return e;
      auto n = make(Expr::Kind::Binary, cur().offset);
      n->name = hit;
      advance();
      n->args.push_back(std::move(e));
      n->args.push_back((this->*next)());
      e = std::move(n);
    }
  }

  ExprPtr parse_math1() { return binary_chain(&Parser::parse_concat, {"+", "-"}); }
  ExprPtr parse_concat() { return binary_chain(&Parser::parse_math2, {"~"}); }
  ExprPtr parse_math2() { return binary_chain(&Parser::parse_pow, {"*", "/", "//", "%"}); }
  ExprPtr parse_pow() { return binary_chain(&Parser::parse_unary_filtered, {"**"}); }
  ExprPtr parse_unary_filtered() { return parse_unary(true); }

  ExprPtr parse_unary(bool with_filter) {
    Depth d(*this);
    ExprPtr e;
    if (is_op("-") || is_op("+")) {
      e = make(Expr::Kind::Unary, cur().offset);
      e->name = cur().text;
      advance();
      e->args.push_back(parse_unary(false));
    } else {
      e = parse_primary();
    }
    e = parse_postfix(std::move(e));
    if (with_filter)
      e = parse_filter_expr(std::move(e));
    return e;
  }

  ExprPtr parse_primary() {
    const Token &tk = cur();
    size_t at = tk.offset;
    if (tk.kind == K::Name) {
      const std::string &n = tk.text;
      ExprPtr e = make(Expr::Kind::Literal, at);
      if (n == "true" || n == "True")
        e->value = Value::boolean(true);
      else if (n == "false" || n == "False")
        e->value = Value::boolean(false);
      else if (n == "none" || n == "None")
        e->value = Value::none();
      else {
        e = make(Expr::Kind::Name, at);
        e->name = n;
      }
      advance();
      return e;
    }
    if (tk.kind == K::String) {
      std::string s;
      while (cur().kind == K::String) { // adjacent literals concatenate
        s += cur().text;
        advance();
      }
      ExprPtr e = make(Expr::Kind::Literal, at);
      e->value = Value::string(s);
      return e;
    }
    if (tk.kind == K::Integer || tk.kind == K::Float) {
      ExprPtr e = make(Expr::Kind::Literal, at);
      e->value = tk.kind == K::Integer ? Value::integer(tk.integer) : Value::real(tk.real);
      advance();
      return e;
    }
    if (is_op("(")) {
      advance();
      if (is_op(")")) {
        advance();
        auto t = make(Expr::Kind::ListLit, at);
        t->is_tuple = true;
        return t;
      }
      ExprPtr first = parse_expression(true);
      if (is_op(")")) {
        advance();
        return first;
      }
      auto t = make(Expr::Kind::ListLit, at);
      t->is_tuple = true;
      t->args.push_back(std::move(first));
      while (is_op(",")) {
        advance();
        if (is_op(")"))
          break;
        t->args.push_back(parse_expression(true));
      }
      expect_op(")");
      return t;
    }
    if (is_op("[")) {
      advance();
      auto l = make(Expr::Kind::ListLit, at);
      comma_list("]", [&] { l->args.push_back(parse_expression(true)); });
      return l;
    }
    if (is_op("{")) {
      advance();
      auto d = make(Expr::Kind::DictLit, at);
      comma_list("}", [&] {
        d->args.push_back(parse_expression(true));
        expect_op(":");
        d->args.push_back(parse_expression(true));
      });
      return d;
    }
    if (tk.kind == K::VarEnd || tk.kind == K::BlockEnd || tk.kind == K::End)
      fail_here(LLMC_ERR_FORMAT, "expected an expression but found '", describe(tk), "'");
    fail_here(LLMC_ERR_FORMAT, "unexpected '", describe(tk), "'");
  }

  ExprPtr parse_postfix(ExprPtr e) {
    while (true) {
      if (is_op(".") || is_op("["))
        e = parse_subscript(std::move(e));
      else if (is_op("("))
        e = parse_call(std::move(e));
      else
        return e;
    }
  }

  ExprPtr parse_filter_expr(ExprPtr e) {
    while (true) {
      if (is_op("|"))
        e = parse_filter(std::move(e));
      else if (is_name("is"))
        e = parse_test(std::move(e));
      else if (is_op("("))
        e = parse_call(std::move(e));
      else
        return e;
    }
  }

  ExprPtr parse_subscript(ExprPtr e) {
    size_t at = cur().offset;
    if (is_op(".")) {
      advance();
      if (cur().kind == K::Integer) {
        auto n = make(Expr::Kind::Item, at);
        auto idx = make(Expr::Kind::Literal, cur().offset);
        idx->value = Value::integer(cur().integer);
        advance();
        n->args.push_back(std::move(e));
        n->args.push_back(std::move(idx));
        return n;
      }
      auto n = make(Expr::Kind::Attr, at);
      n->name = expect_name("an attribute name after '.'");
      n->args.push_back(std::move(e));
      return n;
    }
    advance(); // [
    ExprPtr parts[3];
    bool is_slice = false;
    int part = 0;
    while (!is_op("]")) {
      if (is_op(":")) {
        is_slice = true;
        if (++part > 2)
          fail_here(LLMC_ERR_FORMAT, "too many ':' in a slice");
        advance();
        continue;
      }
      if (is_op(","))
        fail_here(LLMC_ERR_UNSUPPORTED, "unsupported tuple subscript");
      if (parts[part])
        fail_here(LLMC_ERR_FORMAT, "expected ']' but found '", describe(cur()), "'");
      parts[part] = parse_expression(true);
    }
    advance(); // ]
    if (!is_slice) {
      if (!parts[0])
        template_fail(LLMC_ERR_FORMAT, src_, at, "empty subscript '[]'");
      auto n = make(Expr::Kind::Item, at);
      n->args.push_back(std::move(e));
      n->args.push_back(std::move(parts[0]));
      return n;
    }
    auto n = make(Expr::Kind::Slice, at);
    n->args.push_back(std::move(e));
    for (auto &p : parts)
      n->args.push_back(std::move(p));
    return n;
  }

  void parse_call_args(Expr &n) {
    expect_op("(");
    comma_list(")", [&] {
      if (is_op("*") || is_op("**"))
        fail_here(LLMC_ERR_UNSUPPORTED, "unsupported '", cur().text, "' argument unpacking");
      if (cur().kind == K::Name && at(1).kind == K::Op && at(1).text == "=") {
        std::string key = cur().text;
        advance();
        advance();
        n.kwargs.emplace_back(key, parse_expression(true));
      } else {
        if (!n.kwargs.empty())
          fail_here(LLMC_ERR_FORMAT, "positional argument follows keyword argument");
        n.args.push_back(parse_expression(true));
      }
    });
  }

  ExprPtr parse_call(ExprPtr e) {
    auto n = make(Expr::Kind::Call, cur().offset);
    n->args.push_back(std::move(e));
    parse_call_args(*n);
    return n;
  }

  /// `input` null: the body of a filter block. `after_pipe`: the '|' is
  /// the current token.
  ExprPtr parse_filter(ExprPtr e, bool after_pipe = true) {
    if (after_pipe)
      advance(); // |
    size_t at = cur().offset;
    auto n = make(Expr::Kind::Filter, at);
    n->name = expect_name("a filter name after '|'");
    if (!is_supported_filter(n->name))
      template_fail(LLMC_ERR_UNSUPPORTED, src_, at, "unsupported filter '", n->name, "'");
    n->args.push_back(std::move(e));
    if (is_op("("))
      parse_call_args(*n);
    return n;
  }

  ExprPtr parse_test(ExprPtr e) {
    advance(); // is
    auto n = make(Expr::Kind::Test, cur().offset);
    if (is_name("not")) {
      n->negated = true;
      advance();
    }
    size_t at = cur().offset;
    n->name = expect_name("a test name after 'is'");
    if (!is_supported_test(n->name))
      template_fail(LLMC_ERR_UNSUPPORTED, src_, at, "unsupported test '", n->name, "'");
    n->args.push_back(std::move(e));
    if (is_op("(")) {
      parse_call_args(*n);
    } else if ((cur().kind == K::Name || cur().kind == K::String || cur().kind == K::Integer ||
                cur().kind == K::Float || is_op("[") || is_op("{")) &&
               !is_name("else") && !is_name("or") && !is_name("and")) {
      if (is_name("is"))
        fail_here(LLMC_ERR_FORMAT, "tests cannot be chained with 'is'");
      n->args.push_back(parse_postfix(parse_primary())); // `x is divisibleby 3`
    }
    return n;
  }

  const std::vector<Token> &t_;
  std::string_view src_;
  size_t pos_ = 0;
  int depth_ = 0;
};

} // namespace

Body parse_template(const std::vector<Token> &tokens, std::string_view source) {
  return Parser(tokens, source).parse_all();
}

} // namespace llmc::rt::chat
