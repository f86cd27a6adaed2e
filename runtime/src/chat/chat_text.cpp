// Python str semantics over UTF-8: decoding, whitespace, strip/split/replace, repr (case: chat_case.h).
#include "chat_text.h"

#include "chat_bounded_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace llmc::rt::chat {

size_t codepoint_count(std::string_view s) { return utf8_code_points(s).size(); }

bool is_py_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 ||
         cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

std::string py_strip(std::string_view s, bool left, bool right, const std::string *chars) {
  std::vector<uint32_t> cps = utf8_code_points(s);
  std::vector<uint32_t> set;
  if (chars)
    set = utf8_code_points(*chars);
  auto strip_me = [&](uint32_t cp) {
    if (!chars)
      return is_py_space(cp);
    for (uint32_t c : set)
      if (c == cp)
        return true;
    return false;
  };
  size_t b = 0, e = cps.size();
  if (left)
    while (b < e && strip_me(cps[b]))
      ++b;
  if (right)
    while (e > b && strip_me(cps[e - 1]))
      --e;
  return utf8_encode(std::vector<uint32_t>(cps.begin() + b, cps.begin() + e));
}

std::vector<std::string> py_split(std::string_view s, const std::string *sep, int64_t maxsplit) {
  std::vector<std::string> parts;
  if (sep) {
    size_t start = 0;
    while (maxsplit < 0 || static_cast<int64_t>(parts.size()) < maxsplit) {
      size_t at = s.find(*sep, start);
      if (at == std::string_view::npos)
        break;
      parts.emplace_back(s.substr(start, at - start));
      start = at + sep->size();
    }
    parts.emplace_back(s.substr(start));
    return parts;
  }
  std::vector<uint32_t> cps = utf8_code_points(s);
  size_t i = 0, n = cps.size();
  while (true) {
    while (i < n && is_py_space(cps[i]))
      ++i;
    if (i >= n)
      break;
    if (maxsplit >= 0 && static_cast<int64_t>(parts.size()) >= maxsplit) {
      // The remainder is kept as is, trailing whitespace included.
      parts.push_back(utf8_encode(std::vector<uint32_t>(cps.begin() + i, cps.end())));
      break;
    }
    size_t j = i;
    while (j < n && !is_py_space(cps[j]))
      ++j;
    parts.push_back(utf8_encode(std::vector<uint32_t>(cps.begin() + i, cps.begin() + j)));
    i = j;
  }
  return parts;
}

std::string py_replace(std::string_view s, std::string_view old_s, std::string_view new_s,
                       int64_t count) {
  BoundedText out; // `new` may be far longer than `old`, and `old` occur everywhere
  if (old_s.empty()) {
    // Python inserts `new` before every code point and at the end.
    std::vector<uint32_t> cps = utf8_code_points(s);
    int64_t done = 0;
    for (uint32_t cp : cps) {
      if (count < 0 || done < count) {
        out += new_s;
        ++done;
      }
      out.append_code_point(cp);
    }
    if (count < 0 || done < count)
      out += new_s;
    return out.take();
  }
  size_t start = 0;
  int64_t done = 0;
  while (count < 0 || done < count) {
    size_t at = s.find(old_s, start);
    if (at == std::string_view::npos)
      break;
    out += s.substr(start, at - start);
    out += new_s;
    start = at + old_s.size();
    ++done;
  }
  out += s.substr(start);
  return out.take();
}

namespace {
/// Python's str.isprintable() for the code points a repr escapes: C0, DEL,
/// C1 controls and the non-space separators; everything else prints as is.
bool repr_escapes(uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0xad || cp == 0x2028 ||
         cp == 0x2029 || (cp >= 0x2000 && cp <= 0x200f) || cp == 0x3000 || cp == 0xfeff ||
         cp == 0x1680 || cp == 0x202f || cp == 0x205f || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0xd800 && cp <= 0xdfff);
}
} // namespace

std::string py_repr_string(std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (uint32_t cp : utf8_code_points(s)) {
    char buf[16];
    if (cp == static_cast<uint32_t>(quote) || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (repr_escapes(cp)) {
      if (cp < 0x100)
        std::snprintf(buf, sizeof buf, "\\x%02x", cp);
      else
        std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      out += buf;
    } else {
      utf8_append(out, cp);
    }
  }
  out += quote;
  return out;
}

std::string py_repr_float(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  // sci: [-]d[.ddd]e(+|-)XX
  bool neg = sci[0] == '-';
  if (neg)
    sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string mant = sci.substr(0, e);
  int exp10 = std::atoi(sci.c_str() + e + 1);
  std::string digits;
  for (char c : mant)
    if (c != '.')
      digits += c;
  int decpt = exp10 + 1; // value = 0.digits * 10^decpt
  std::string out = neg ? "-" : "";
  /// Python's repr switches to exponent form outside 1e-4 <= |v| < 1e16.
  constexpr int kMinFixedDecpt = -3, kMaxFixedDecpt = 16;
  if (decpt < kMinFixedDecpt || decpt > kMaxFixedDecpt) {
    out += digits.substr(0, 1);
    if (digits.size() > 1)
      out += "." + digits.substr(1);
    std::snprintf(buf, sizeof buf, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += buf;
    return out;
  }
  if (decpt <= 0) {
    out += "0." + std::string(-decpt, '0') + digits;
  } else if (static_cast<size_t>(decpt) >= digits.size()) {
    out += digits + std::string(decpt - digits.size(), '0') + ".0";
  } else {
    out += digits.substr(0, decpt) + "." + digits.substr(decpt);
  }
  return out;
}

} // namespace llmc::rt::chat
