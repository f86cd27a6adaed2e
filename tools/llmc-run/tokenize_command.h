// llmc-run --tokenize / --detokenize: tokenizer-only commands that need no compiled artifact.
#ifndef LLMC_RUN_TOKENIZE_COMMAND_H
#define LLMC_RUN_TOKENIZE_COMMAND_H

#include "llmc/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llmc_run {

/// True when the command line asks for --tokenize or --detokenize.
bool is_tokenize_command(int argc, char **argv);
/// Runs it: prints the ids on one line (space-separated) or the text.
int run_tokenize_command(int argc, char **argv);

/// The tokenizer for a run: `tokenizer_path` when given (a GGUF, a
/// tokenizer.json, a model directory, or else a llama2.c tok*.bin), else
/// the one the weights carry (GGUF metadata, or the tokenizer.json of a
/// model directory). Returns nullptr and sets `why` when there is none.
llmc_tokenizer *open_tokenizer(const std::string &tokenizer_path,
                               const std::string &weights_path,
                               const llmc_weights *weights, int32_t vocab_size,
                               std::string &why);

/// `text` encoded with `flags` (LLMC_ENCODE_*); dies naming `step`.
std::vector<int32_t> encode_text(const llmc_tokenizer *tok, const std::string &text,
                                 uint32_t flags, const char *step);

} // namespace llmc_run

#endif // LLMC_RUN_TOKENIZE_COMMAND_H
