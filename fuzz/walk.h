// Reading every part of a parsed object that the C API hands out, as a caller would after a successful load.
#ifndef LLMC_FUZZ_WALK_H
#define LLMC_FUZZ_WALK_H

#include "llmc/runtime.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace llmc::fuzz {

/// Every tensor's info, raw bytes and (for small tensors) f32 conversion,
/// which runs the dequantizers on the file's blocks; every metadata value;
/// then the tokenizer the metadata defines, if any, and its chat template
/// over one conversation.
void walk_weights(llmc_weights *weights);

/// Opens `path` as `format` and, if it loads, walks it (walk_weights).
void load_and_walk_weights(const std::string &path, llmc_weights_format format);

/// Token kinds, texts and pieces of the first ids; a fixed set of texts
/// encoded (each under one of four flag combinations), decoded whole, piece
/// by piece and streamed back.
void walk_tokenizer(const llmc_tokenizer *tokenizer);

/// Encodes `len` bytes of `text` (any bytes: invalid UTF-8 is refused with a
/// message), checks every id against the vocabulary and decodes them back.
void encode_and_decode(const llmc_tokenizer *tokenizer, const char *text,
                       size_t len, uint32_t flags);

/// Renders a fixed set of conversations (system turns, tool calls, content
/// parts, unicode) under a fixed set of options.
void walk_chat_template(const llmc_chat_template *tmpl);

/// Renders `len` bytes of messages JSON without options, then with
/// full_render_options().
void render_messages(const llmc_chat_template *tmpl, const char *messages,
                     size_t len);

/// Renders once to measure and once into a buffer of exactly that size:
/// both calls must agree on the length. A render error is a message, not
/// a finding.
void render_checked(const llmc_chat_template *tmpl, const char *messages,
                    size_t len, const llmc_chat_render_options *opts);

/// A generation prompt, bos/eos tokens, one tool and two variables.
llmc_chat_render_options full_render_options();

/// One of the fixed conversations (any index; it wraps).
const char *sample_conversation(size_t index);

} // namespace llmc::fuzz

#endif // LLMC_FUZZ_WALK_H
