// Python semantics of the template operators: + - * / // % **, comparisons, `in`, unary minus.
#ifndef LLMC_RUNTIME_CHAT_OPERATORS_H
#define LLMC_RUNTIME_CHAT_OPERATORS_H

#include "chat_value.h"

#include <string>

namespace llmc::rt::chat {

/// Throws RenderFailure with Python's TypeError/ZeroDivisionError wording,
/// or the Undefined's own message when an operand is undefined.
Value binary_op(const std::string &op, const Value &a, const Value &b);
Value unary_op(const std::string &op, const Value &a);
/// a < b style comparisons ("<", ">", "<=", ">=").
bool order_compare(const std::string &op, const Value &a, const Value &b);
/// -1/0/1 ordering of two values of comparable types (sort, min, max).
int three_way(const Value &a, const Value &b);
/// `item in container`.
bool contains(const Value &container, const Value &item);

/// Uses of an Undefined other than printing, testing and iterating fail
/// with its message ("'x' is undefined").
[[noreturn]] void undefined_fail(const Value &undef);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_OPERATORS_H
