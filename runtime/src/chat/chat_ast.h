// The parsed form of a chat template: expression and statement trees.
#ifndef LLMC_RUNTIME_CHAT_AST_H
#define LLMC_RUNTIME_CHAT_AST_H

#include "chat_value.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llmc::rt::chat {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// One node kind per jinja2 expression form the supported templates use.
struct Expr {
  enum class Kind {
    Literal,   // value
    Name,      // name
    ListLit,   // args; is_tuple for (a, b)
    DictLit,   // args: key, value, key, value...
    Attr,      // args[0] . name
    Item,      // args[0] [ args[1] ]
    Slice,     // args[0] [ args[1] : args[2] : args[3] ] (null parts omitted)
    Call,      // args[0] ( args[1..], kwargs )
    Filter,    // args[0] | name ( args[1..], kwargs )
    Test,      // args[0] is [not] name ( args[1..] )
    Unary,     // name = "-", "+" ; args[0]
    Binary,    // name = operator; args[0], args[1]
    And,       // args[0] and args[1]
    Or,
    Not,       // not args[0]
    Compare,   // args[0] op1 args[1] op2 args[2]...; ops
    Cond,      // args[1] if args[0] else args[2] (args[2] may be null)
  };
  Kind kind;
  size_t offset = 0; // where it starts in the source (for errors)
  Value value;
  std::string name;
  bool negated = false;
  bool is_tuple = false;
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  std::vector<std::string> ops; // Compare: "==", "in", "not in", ...

  Expr(Kind k, size_t at) : kind(k), offset(at) {}
};

struct Node;
using NodePtr = std::unique_ptr<Node>;
using Body = std::vector<NodePtr>;

/// One node kind per supported tag; text and {{ }} are nodes too.
struct Node {
  enum class Kind { Text, Output, If, For, Set, SetBlock, Macro, Break, Continue, Scope, FilterBlock };
  Kind kind;
  size_t offset = 0;
  std::string text;                 // Text
  ExprPtr expr;                     // Output, Set value, For iterable; FilterBlock: the
                                    // filter chain, its innermost input null (the body)
  std::vector<std::pair<ExprPtr, Body>> branches; // If: (condition, body) ...
  Body body;                        // For/SetBlock/Macro/Scope body
  Body else_body;                   // If else, For else
  std::vector<std::string> targets; // For/Set names (several: unpacking)
  std::string ns_attr;              // Set: `set targets[0].ns_attr = ...`
  ExprPtr filter;                   // For: `if` condition
  std::string name;                 // Macro name
  std::vector<std::pair<std::string, ExprPtr>> params; // Macro (default may be null)

  Node(Kind k, size_t at) : kind(k), offset(at) {}
};

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_AST_H
