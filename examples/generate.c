/* generate.c: greedy text generation with a statically linked llmc artifact (stories260k).
 *
 * Build against the output of `llmc compile configs/stories260k.json --target=cpu -o art`:
 *   cc generate.c -Iart -I<llmc>/runtime/include art/libstories260k.a \
 *      <build>/runtime/libllmc_runtime.a <the manifest's link_libraries: -lmvec -lm -lomp>
 *      -lpcre2-8 -lstdc++ -lpthread -ldl -o generate
 * Run:  ./generate art stories260K.gguf            (vocab from the GGUF)
 *       ./generate art stories260K.bin tok512.bin  (llama2.c files)
 */
#include "llmc/runtime.h"
#include "stories260k.h" /* the artifact's entry points, linked in statically */

#include <stdio.h>
#include <stdlib.h>

/* Tokens to generate after BOS: a sentence or two of TinyStories. */
#define NEW_TOKENS 20

static void check(llmc_status status) {
  if (status != LLMC_OK) {
    fprintf(stderr, "generate: %s\n", llmc_last_error());
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s <artifact-dir> <weights> [tokenizer.bin]\n", argv[0]);
    return 2;
  }
  /* The manifest describes the model; the code is already linked in. */
  llmc_model *model;
  check(llmc_model_open_linked(argv[1], stories260k_prefill, stories260k_decode, &model));
  llmc_model_info info;
  check(llmc_model_get_info(model, &info));

  llmc_weights *weights;
  check(llmc_weights_open(argv[2], LLMC_WEIGHTS_AUTO, &weights));
  llmc_tokenizer *tok;
  if (argc > 3)
    check(llmc_tokenizer_load_llama2c(argv[3], info.vocab_size, &tok));
  else
    check(llmc_tokenizer_from_weights(weights, &tok));

  /* Binds the weights (checking names and shapes) and allocates the KV cache. */
  llmc_session *session;
  check(llmc_session_create(model, weights, &session));
  llmc_sampler_config config;
  llmc_sampler_config_default(&config);
  config.temperature = 0.0f; /* greedy */
  llmc_sampler *sampler;
  check(llmc_sampler_create(&config, info.vocab_size, &sampler));

  int32_t token = info.bos_token_id;
  const float *logits;
  check(llmc_session_prefill(session, &token, 1, &logits, NULL));
  for (int i = 0; i < NEW_TOKENS; ++i) {
    int32_t next;
    check(llmc_sampler_sample(sampler, logits, NULL, 0, &next));
    if (llmc_model_is_eos(model, next))
      break;
    const char *piece;
    size_t len;
    check(llmc_tokenizer_decode(tok, token, next, &piece, &len));
    fwrite(piece, 1, len, stdout);
    token = next;
    if (i + 1 < NEW_TOKENS)
      check(llmc_session_decode(session, token, &logits));
  }
  putchar('\n');

  llmc_sampler_destroy(sampler);
  llmc_session_destroy(session);
  llmc_tokenizer_destroy(tok);
  llmc_weights_destroy(weights);
  llmc_model_destroy(model);
  return 0;
}
