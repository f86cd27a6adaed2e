// Python's str case operations (upper, lower, capitalize, title, islower, isupper) for chat templates, through ICU.
#ifndef LLMC_RUNTIME_CHAT_CASE_H
#define LLMC_RUNTIME_CHAT_CASE_H

#include <string>
#include <string_view>

namespace llmc::rt::chat {

// Each function has Python 3's semantics over the code points of `s` (an
// invalid byte decodes as itself, by utf8_next's rule): full case mappings
// (ß -> "SS", ŉ -> "ʼN", ﬁ -> "FI", İ -> "i̇") and the Final_Sigma rule for
// Σ whenever it is lowered. ASCII code points are mapped here; every other
// one asks ICU (Unicode's own data, not a table of ours), loaded on first
// use. `operation` names the template operation ("filter 'upper'") for the
// one error: text that needs ICU when ICU cannot be loaded.

/// str.upper(): each code point's full uppercase mapping.
std::string py_upper(std::string_view s, const char *operation);
/// str.lower(): each code point's full lowercase mapping; Σ becomes ς at
/// the end of a word (Final_Sigma), σ elsewhere.
std::string py_lower(std::string_view s, const char *operation);
/// str.capitalize() (Python 3.8+): the first code point title-cased (ǆ ->
/// ǅ, ß -> "Ss"), all others lowered as by lower().
std::string py_capitalize(std::string_view s, const char *operation);
/// str.title(): a code point after a cased one is lowered, any other
/// title-cased ("o'neil" -> "O'Neil").
std::string py_title(std::string_view s, const char *operation);
/// jinja2's title filter, which differs from str.title(): words start after
/// runs of '-', whitespace, '(', '{', '[' or '<', and each word is
/// word[0].upper() + word[1:].lower() ("o'neil" -> "O'neil").
std::string jinja_title(std::string_view s, const char *operation);
/// str.islower(): some cased code point, and none uppercase or titlecase.
bool py_islower(std::string_view s, const char *operation);
/// str.isupper(): some cased code point, and none lowercase or titlecase.
bool py_isupper(std::string_view s, const char *operation);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_CASE_H
