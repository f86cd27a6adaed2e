// PCRE2 compilation (UTF, UCP, JIT) and match iteration for the pre-tokenizers.
#include "tokenizer_regex.h"

#include "error.h"
#include "utf8.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace llmc::rt {

namespace {

/// JIT stack bounds: PCRE2's 32 kB default overflows on long whitespace runs
/// under patterns such as \s+(?!\S); 8 MB covers megabyte-long inputs.
constexpr size_t kJitStackStart = 32 * 1024;
constexpr size_t kJitStackMax = 8 * 1024 * 1024;
/// Buffer for PCRE2's error texts (its documentation suggests 120 bytes).
constexpr size_t kErrorTextSize = 256;

std::string pcre2_message(int code) {
  PCRE2_UCHAR buf[kErrorTextSize];
  if (pcre2_get_error_message(code, buf, sizeof buf) < 0)
    return cat("PCRE2 error ", code);
  return reinterpret_cast<const char *>(buf);
}

/// Per-call match state: match data, a match context and a JIT stack.
struct MatchState {
  pcre2_match_data *data = nullptr;
  pcre2_match_context *context = nullptr;
  pcre2_jit_stack *stack = nullptr;
  explicit MatchState(const pcre2_code *code) {
    data = pcre2_match_data_create_from_pattern(code, nullptr);
    context = pcre2_match_context_create(nullptr);
    stack = pcre2_jit_stack_create(kJitStackStart, kJitStackMax, nullptr);
    if (!data || !context || !stack)
      throw std::bad_alloc();
    pcre2_jit_stack_assign(context, nullptr, stack);
  }
  ~MatchState() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
    pcre2_match_data_free(data);
  }
};

} // namespace

Regex::Regex(const std::string &pattern, bool literal, const std::string &origin)
    : origin_(origin) {
  // PCRE2_LITERAL admits UTF but not UCP (which only affects \d, \w, [[:...:]]).
  uint32_t options = literal ? PCRE2_UTF | PCRE2_LITERAL : PCRE2_UTF | PCRE2_UCP;
  int err = 0;
  PCRE2_SIZE at = 0;
  pcre2_code *code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                    options, &err, &at, nullptr);
  if (!code)
    fail(LLMC_ERR_FORMAT, origin, ": cannot compile regex '", pattern, "' at offset ",
         at, ": ", pcre2_message(err));
  // Without JIT support (a PCRE2 built without it) matching still works,
  // only slower, so a JIT failure is not an error.
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  code_ = code;
}

Regex::~Regex() { pcre2_code_free(static_cast<pcre2_code *>(code_)); }

void Regex::find_all(std::string_view text,
                     std::vector<std::pair<size_t, size_t>> &matches) const {
  matches.clear();
  const pcre2_code *code = static_cast<const pcre2_code *>(code_);
  MatchState st(code);
  auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t offset = 0;
  while (offset <= text.size()) {
    int rc = pcre2_match(code, subject, text.size(), offset, PCRE2_NO_UTF_CHECK,
                         st.data, st.context);
    if (rc == PCRE2_ERROR_NOMATCH)
      break;
    if (rc < 0)
      fail(LLMC_ERR_INTERNAL, origin_, ": regex match failed: ", pcre2_message(rc));
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(st.data);
    size_t begin = ov[0], end = ov[1];
    if (end == begin) {
      // An empty match splits nothing; step over one character.
      if (begin >= text.size())
        break;
      size_t n = utf8_sequence_length(text, begin);
      offset = begin + (n ? n : 1);
      continue;
    }
    matches.emplace_back(begin, end);
    offset = end;
  }
}

} // namespace llmc::rt
