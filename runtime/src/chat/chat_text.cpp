// Python str semantics over UTF-8: decoding, whitespace, strip/split/replace, case mapping, repr.
#include "chat_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace llmc::rt::chat {

std::vector<uint32_t> decode_utf8(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
      out.push_back(c); // a stray byte stays one unit
      ++i;
      continue;
    }
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    bool ok = true;
    for (int k = 1; k < len; ++k) {
      unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 2) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (d & 0x3f);
    }
    if (!ok) {
      out.push_back(c);
      ++i;
      continue;
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

void append_utf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

std::string encode_utf8(const std::vector<uint32_t> &cps) {
  std::string out;
  out.reserve(cps.size());
  for (uint32_t cp : cps)
    append_utf8(out, cp);
  return out;
}

size_t codepoint_count(std::string_view s) { return decode_utf8(s).size(); }

bool is_py_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 ||
         cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

std::string py_strip(std::string_view s, bool left, bool right, const std::string *chars) {
  std::vector<uint32_t> cps = decode_utf8(s);
  std::vector<uint32_t> set;
  if (chars)
    set = decode_utf8(*chars);
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
  return encode_utf8(std::vector<uint32_t>(cps.begin() + b, cps.begin() + e));
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
  std::vector<uint32_t> cps = decode_utf8(s);
  size_t i = 0, n = cps.size();
  while (true) {
    while (i < n && is_py_space(cps[i]))
      ++i;
    if (i >= n)
      break;
    if (maxsplit >= 0 && static_cast<int64_t>(parts.size()) >= maxsplit) {
      // The remainder is kept as is, trailing whitespace included.
      parts.push_back(encode_utf8(std::vector<uint32_t>(cps.begin() + i, cps.end())));
      break;
    }
    size_t j = i;
    while (j < n && !is_py_space(cps[j]))
      ++j;
    parts.push_back(encode_utf8(std::vector<uint32_t>(cps.begin() + i, cps.begin() + j)));
    i = j;
  }
  return parts;
}

std::string py_replace(std::string_view s, std::string_view old_s, std::string_view new_s,
                       int64_t count) {
  std::string out;
  if (old_s.empty()) {
    // Python inserts `new` before every code point and at the end.
    std::vector<uint32_t> cps = decode_utf8(s);
    int64_t done = 0;
    for (uint32_t cp : cps) {
      if (count < 0 || done < count) {
        out += new_s;
        ++done;
      }
      append_utf8(out, cp);
    }
    if (count < 0 || done < count)
      out += new_s;
    return out;
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
  return out;
}

uint32_t upper_cp(uint32_t cp) {
  if (cp >= 'a' && cp <= 'z')
    return cp - 32;
  if (cp == 0xb5)
    return 0x39c; // micro sign -> Greek capital mu
  if ((cp >= 0xe0 && cp <= 0xfe && cp != 0xf7))
    return cp - 32;
  if (cp == 0xff)
    return 0x178;
  if (cp >= 0x100 && cp <= 0x17f && cp != 0x131 && cp != 0x138 && cp != 0x149 && cp != 0x17f) {
    // Latin Extended-A pairs: even/odd, with an odd/even stretch.
    bool odd_upper = (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17e);
    if (odd_upper ? (cp % 2 == 0) : (cp % 2 == 1))
      return cp - 1;
    return cp;
  }
  if (cp >= 0x3b1 && cp <= 0x3c9 && cp != 0x3c2)
    return cp - 32;
  if (cp == 0x3c2)
    return 0x3a3;
  if (cp >= 0x430 && cp <= 0x44f)
    return cp - 32;
  if (cp >= 0x450 && cp <= 0x45f)
    return cp - 80;
  return cp;
}

uint32_t lower_cp(uint32_t cp) {
  if (cp >= 'A' && cp <= 'Z')
    return cp + 32;
  if (cp >= 0xc0 && cp <= 0xde && cp != 0xd7)
    return cp + 32;
  if (cp == 0x178)
    return 0xff;
  if (cp >= 0x100 && cp <= 0x17f && cp != 0x130 && cp != 0x138 && cp != 0x149 && cp != 0x17f) {
    bool odd_upper = (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17e);
    if (odd_upper ? (cp % 2 == 1) : (cp % 2 == 0))
      return cp + 1;
    return cp;
  }
  if (cp >= 0x391 && cp <= 0x3a9 && cp != 0x3a2)
    return cp + 32;
  if (cp >= 0x410 && cp <= 0x42f)
    return cp + 32;
  if (cp >= 0x400 && cp <= 0x40f)
    return cp + 80;
  return cp;
}

std::string py_upper(std::string_view s) {
  std::string out;
  for (uint32_t cp : decode_utf8(s)) {
    if (cp == 0xdf) { // sharp s has no single capital: Python writes "SS"
      out += "SS";
      continue;
    }
    append_utf8(out, upper_cp(cp));
  }
  return out;
}

std::string py_lower(std::string_view s) {
  std::string out;
  for (uint32_t cp : decode_utf8(s))
    append_utf8(out, lower_cp(cp));
  return out;
}

std::string py_capitalize(std::string_view s) {
  std::vector<uint32_t> cps = decode_utf8(s);
  std::string out;
  for (size_t k = 0; k < cps.size(); ++k)
    append_utf8(out, k == 0 ? upper_cp(cps[k]) : lower_cp(cps[k]));
  return out;
}

std::string py_title(std::string_view s) {
  std::string out;
  bool prev_cased = false;
  for (uint32_t cp : decode_utf8(s)) {
    bool cased = upper_cp(cp) != cp || lower_cp(cp) != cp;
    append_utf8(out, cased ? (prev_cased ? lower_cp(cp) : upper_cp(cp)) : cp);
    prev_cased = cased;
  }
  return out;
}

bool py_is_case(std::string_view s, bool want_lower) {
  bool any = false;
  for (uint32_t cp : decode_utf8(s)) {
    bool is_lower = upper_cp(cp) != cp, is_upper = lower_cp(cp) != cp;
    if (is_lower || is_upper) {
      any = true;
      if (want_lower ? is_upper : is_lower)
        return false;
    }
  }
  return any;
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
  for (uint32_t cp : decode_utf8(s)) {
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
      append_utf8(out, cp);
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
