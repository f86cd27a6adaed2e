/* step_logits.c: teacher-forced logits of an artifact through a plan of
 * prefill and decode calls, for comparing backends call pattern by call
 * pattern (llmc-run --dump-logits covers one prefill only).
 *
 * Usage: step_logits <artifact> <weights> <tokens-file> <plan> <out.f32>
 * plan: comma-separated steps, each a prefill of N tokens ("40") or a run of
 * N single-token decode calls ("d8"), consuming the file's tokens in order;
 * the plan must use them all. Writes float32 logits [tokens, vocab], one row
 * per token in order, and prints "<tokens> rows, vocab <V>".
 */
#include "llmc/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(llmc_status status, const char *what) {
  if (status != LLMC_OK) {
    fprintf(stderr, "step_logits: %s: %s: %s\n", what, llmc_status_name(status),
            llmc_last_error());
    exit(1);
  }
}

static void fail(const char *message) {
  fprintf(stderr, "step_logits: %s\n", message);
  exit(1);
}

int main(int argc, char **argv) {
  if (argc != 6)
    fail("usage: step_logits <artifact> <weights> <tokens-file> <plan> <out.f32>");
  int32_t tokens[4096];
  size_t count = 0;
  FILE *in = fopen(argv[3], "r");
  if (!in)
    fail("cannot open the tokens file");
  while (count < sizeof(tokens) / sizeof(tokens[0]) &&
         fscanf(in, "%d", &tokens[count]) == 1)
    ++count;
  fclose(in);

  llmc_model *model;
  check(llmc_model_open(argv[1], &model), "open");
  llmc_model_info info;
  check(llmc_model_get_info(model, &info), "info");
  llmc_weights *weights;
  check(llmc_weights_open(argv[2], LLMC_WEIGHTS_AUTO, &weights), "weights");
  llmc_session *session;
  check(llmc_session_create(model, weights, &session), "session");

  size_t vocab = (size_t)info.vocab_size;
  float *rows = malloc(count * vocab * sizeof(float));
  if (!rows)
    fail("out of memory");
  size_t done = 0;
  char *plan = argv[4]; /* strtok writes into it */
  for (char *step = strtok(plan, ","); step; step = strtok(NULL, ",")) {
    int decode = step[0] == 'd';
    long n = strtol(step + decode, NULL, 10);
    if (n <= 0 || done + (size_t)n > count)
      fail("the plan does not match the tokens file");
    if (decode) {
      for (long i = 0; i < n; ++i, ++done) {
        const float *logits;
        check(llmc_session_decode(session, tokens[done], &logits), "decode");
        memcpy(rows + done * vocab, logits, vocab * sizeof(float));
      }
    } else {
      const float *all;
      check(llmc_session_prefill(session, tokens + done, (size_t)n, NULL, &all),
            "prefill");
      memcpy(rows + done * vocab, all, (size_t)n * vocab * sizeof(float));
      done += (size_t)n;
    }
  }
  if (done != count)
    fail("the plan does not use every token");
  FILE *out = fopen(argv[5], "wb");
  if (!out || fwrite(rows, sizeof(float), count * vocab, out) != count * vocab)
    fail("cannot write the logits");
  fclose(out);
  printf("%zu rows, vocab %zu\n", count, vocab);
  free(rows);
  llmc_session_destroy(session);
  llmc_weights_destroy(weights);
  llmc_model_destroy(model);
  return 0;
}
