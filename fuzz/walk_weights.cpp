// Reading every tensor and metadata value of an open weight set, then its tokenizer and chat template.
#include "fuzz_check.h"
#include "walk.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace llmc::fuzz {

namespace {

/// Larger tensors are only listed: converting them would spend the fuzzing
/// time on memcpy instead of on parsing.
constexpr int64_t kMaxConvertedElements = int64_t(1) << 16;
/// Array elements read per metadata key (a vocabulary has 10^5).
constexpr uint64_t kMaxArrayElements = 64;

void walk_tensor(llmc_weights *weights, size_t index) {
  llmc_tensor_info info;
  LLMC_FUZZ_CHECK(llmc_weights_tensor_info(weights, index, &info) == LLMC_OK);
  LLMC_FUZZ_CHECK(info.n_dims >= 0 && info.n_dims <= LLMC_MAX_DIMS);
  int64_t product = 1;
  for (int32_t d = 0; d < info.n_dims; ++d) {
    LLMC_FUZZ_CHECK(info.shape[d] >= 0);
    product *= info.shape[d];
  }
  LLMC_FUZZ_CHECK(product == info.n_elements);

  size_t found = 0;
  LLMC_FUZZ_CHECK(llmc_weights_find(weights, info.name, &found) == LLMC_OK);
  const void *raw = nullptr;
  uint64_t n_bytes = 0;
  LLMC_FUZZ_CHECK(llmc_weights_tensor_raw(weights, info.name, &raw, &n_bytes) ==
                  LLMC_OK);
  LLMC_FUZZ_CHECK(n_bytes == info.n_bytes);
  // The whole tensor must be readable: ASan reports a read past the mapping.
  volatile uint8_t sink = 0;
  if (n_bytes > 0)
    sink = sink + static_cast<const uint8_t *>(raw)[n_bytes - 1];

  if (info.n_elements > kMaxConvertedElements)
    return;
  size_t needed = 0;
  llmc_status measured =
      llmc_weights_copy_f32(weights, info.name, nullptr, 0, &needed);
  if (measured != LLMC_OK && measured != LLMC_ERR_BUFFER_TOO_SMALL)
    return; // a dtype with no f32 conversion: refused with a message
  LLMC_FUZZ_CHECK(needed == static_cast<size_t>(info.n_elements));
  std::vector<float> values(needed);
  size_t written = 0;
  LLMC_FUZZ_CHECK(llmc_weights_copy_f32(weights, info.name, values.data(),
                                        values.size(), &written) == LLMC_OK);
  LLMC_FUZZ_CHECK(written == needed);
  const float *cached = nullptr;
  size_t n_cached = 0;
  if (llmc_weights_tensor_f32(weights, info.name, &cached, &n_cached) == LLMC_OK)
    LLMC_FUZZ_CHECK(n_cached == needed);
}

void walk_metadata_value(const llmc_weights *weights, const char *key) {
  llmc_meta_type type, elem;
  uint64_t length = 0;
  LLMC_FUZZ_CHECK(llmc_weights_meta_type(weights, key, &type, &elem, &length) ==
                  LLMC_OK);
  int64_t i = 0;
  double f = 0;
  const char *text = nullptr;
  size_t text_len = 0;
  llmc_weights_meta_int(weights, key, &i);
  llmc_weights_meta_float(weights, key, &f);
  if (llmc_weights_meta_string(weights, key, &text, &text_len) == LLMC_OK &&
      text_len > 0)
    (void)*(volatile const char *)&text[text_len - 1];
  if (type != LLMC_META_ARRAY)
    return;
  for (uint64_t k = 0; k < std::min(length, kMaxArrayElements); ++k) {
    llmc_weights_meta_array_int(weights, key, k, &i);
    llmc_weights_meta_array_float(weights, key, k, &f);
    if (llmc_weights_meta_array_string(weights, key, k, &text, &text_len) ==
            LLMC_OK &&
        text_len > 0)
      (void)*(volatile const char *)&text[text_len - 1];
  }
  // One past the end is refused, never read.
  LLMC_FUZZ_CHECK(llmc_weights_meta_array_int(weights, key, length, &i) != LLMC_OK);
}

} // namespace

void walk_weights(llmc_weights *weights) {
  llmc_weights_get_format(weights);
  llmc_weights_rope_layout(weights);
  size_t n_tensors = llmc_weights_tensor_count(weights);
  for (size_t t = 0; t < n_tensors; ++t)
    walk_tensor(weights, t);
  llmc_tensor_info past_end;
  LLMC_FUZZ_CHECK(llmc_weights_tensor_info(weights, n_tensors, &past_end) !=
                  LLMC_OK);

  size_t n_meta = llmc_weights_meta_count(weights);
  for (size_t m = 0; m < n_meta; ++m) {
    const char *key = nullptr;
    LLMC_FUZZ_CHECK(llmc_weights_meta_key(weights, m, &key) == LLMC_OK);
    walk_metadata_value(weights, key);
  }

  llmc_tokenizer *tokenizer = nullptr;
  if (llmc_tokenizer_from_weights(weights, &tokenizer) == LLMC_OK) {
    walk_tokenizer(tokenizer);
    llmc_tokenizer_destroy(tokenizer);
  }
  llmc_chat_template *tmpl = nullptr;
  if (llmc_chat_template_from_weights(weights, &tmpl) == LLMC_OK) {
    // One conversation: the template's own fuzzing is fuzz/chat_template.cpp.
    const char *messages = sample_conversation(n_meta);
    llmc_chat_render_options opts = full_render_options();
    render_checked(tmpl, messages, std::strlen(messages), &opts);
    llmc_chat_template_destroy(tmpl);
  }
}

void load_and_walk_weights(const std::string &path, llmc_weights_format format) {
  llmc_weights *weights = nullptr;
  if (llmc_weights_open(path.c_str(), format, &weights) != LLMC_OK)
    return;
  walk_weights(weights);
  llmc_weights_destroy(weights);
}

} // namespace llmc::fuzz
