/* turns: the prefill or decode rate of several llmc CPU artifacts of one model, measured in one process with the
 * artifacts taking turns, for A/B comparisons of compiler changes that a host's moods would drown.
 *
 *   turns [--decode <steps>] <weights> <rounds> <tokens> <artifact-dir>...
 *
 * Opens every artifact (at most 8) on one weight set and prefills <tokens> fixed ids ((1000 + i) mod the
 * vocabulary's size) in each, untimed. Then <rounds> rounds of one timed turn per artifact (the order reversed
 * every other round):
 *   - without --decode, a prefill of those ids on an empty cache asking for the last token's logits, as a
 *     generation's prefill does;
 *   - with --decode, <steps> decode calls after the prompt (the cache rewound to <tokens> positions first), each
 *     asking for its logits, as a generation's decode does.
 * Prints per artifact the median, best and worst rate, and per artifact after the first the median of its
 * per-round ratio to the first (both measured within the same seconds). Threads: OMP_NUM_THREADS. One process,
 * so the weights are loaded once and the runs do not start right after a copy of them. Build:
 *   cc -O2 -I runtime/include -I bench bench/turns.c build/runtime/libllmc_runtime.a -lstdc++ -ldl -lpthread -lm
 */
#include <llmc/runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "now.h"

enum { kMaxArtifacts = 8, kMaxRounds = 1000, kMaxTokens = 8192 };

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts values[0..n) and returns the median. */
static double median(double *values, int n) {
  qsort(values, n, sizeof values[0], compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static int fail(const char *what, const char *detail) {
  fprintf(stderr, "turns: error: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  return 1;
}

/* The whole-number argument `text` in [1, max], or 0. */
static int count_argument(const char *text, int max) {
  char *end;
  long value = strtol(text, &end, 10);
  return *text && !*end && value >= 1 && value <= max ? (int)value : 0;
}

/* One timed turn of `session`: its rate in tokens/s, or a negative value on failure. */
static double time_turn(llmc_session *session, const int32_t *tokens, int n_tokens, int decode_steps) {
  const float *logits;
  double start;
  if (!decode_steps) {
    start = now();
    if (llmc_session_prefill(session, tokens, n_tokens, &logits, NULL) != LLMC_OK)
      return -1;
    double rate = n_tokens / (now() - start);
    llmc_session_reset(session);
    return rate;
  }
  if (llmc_session_rewind(session, n_tokens) != LLMC_OK)
    return -1;
  start = now();
  for (int i = 0; i < decode_steps; ++i)
    if (llmc_session_decode(session, tokens[i % n_tokens], &logits) != LLMC_OK)
      return -1;
  return decode_steps / (now() - start);
}

int main(int argc, char **argv) {
  static const char *usage =
      "usage: turns [--decode <steps>] <weights> <rounds> <tokens> <artifact-dir>... (1 to 8 artifacts)";
  int decode_steps = 0;
  if (argc > 1 && !strcmp(argv[1], "--decode")) {
    if (argc < 3 || !(decode_steps = count_argument(argv[2], kMaxTokens)))
      return fail("--decode <steps> must be a whole number from 1 to 8192", argc < 3 ? NULL : argv[2]);
    argc -= 2;
    argv += 2;
  }
  if (argc < 5 || argc - 4 > kMaxArtifacts)
    return fail(usage, NULL);
  int rounds = count_argument(argv[2], kMaxRounds), n_tokens = count_argument(argv[3], kMaxTokens);
  if (!rounds)
    return fail("<rounds> must be a whole number from 1 to 1000", argv[2]);
  if (!n_tokens)
    return fail("<tokens> must be a whole number from 1 to 8192", argv[3]);
  int n_artifacts = argc - 4;
  static int32_t tokens[kMaxTokens];

  llmc_weights *weights;
  if (llmc_weights_open(argv[1], LLMC_WEIGHTS_AUTO, &weights) != LLMC_OK)
    return fail(argv[1], llmc_last_error());
  llmc_model *models[kMaxArtifacts];
  llmc_session *sessions[kMaxArtifacts];
  for (int a = 0; a < n_artifacts; ++a) {
    if (llmc_model_open(argv[4 + a], &models[a]) != LLMC_OK ||
        llmc_session_create(models[a], weights, &sessions[a]) != LLMC_OK)
      return fail(argv[4 + a], llmc_last_error());
    llmc_model_info info;
    if (llmc_model_get_info(models[a], &info) != LLMC_OK)
      return fail(argv[4 + a], llmc_last_error());
    for (int i = 0; i < n_tokens; ++i)
      tokens[i] = (1000 + i) % info.vocab_size;
    if (llmc_session_prefill(sessions[a], tokens, n_tokens, NULL, NULL) != LLMC_OK)
      return fail(argv[4 + a], llmc_last_error());
    if (!decode_steps)
      llmc_session_reset(sessions[a]);
  }

  static double rates[kMaxArtifacts][kMaxRounds];
  for (int r = 0; r < rounds; ++r)
    for (int turn = 0; turn < n_artifacts; ++turn) {
      int a = r % 2 ? n_artifacts - 1 - turn : turn;
      rates[a][r] = time_turn(sessions[a], tokens, n_tokens, decode_steps);
      if (rates[a][r] < 0)
        return fail(argv[4 + a], llmc_last_error());
    }

  static double sorted[kMaxRounds];
  if (decode_steps)
    printf("decode of %d tokens after %d, %d rounds, tokens/s:\n", decode_steps, n_tokens, rounds);
  else
    printf("prefill of %d tokens, %d rounds, tokens/s:\n", n_tokens, rounds);
  for (int a = 0; a < n_artifacts; ++a) {
    for (int r = 0; r < rounds; ++r)
      sorted[r] = rates[a][r];
    double mid = median(sorted, rounds);
    printf("  %s: median %.1f  best %.1f  worst %.1f\n", argv[4 + a], mid, sorted[rounds - 1], sorted[0]);
  }
  for (int a = 1; a < n_artifacts; ++a) {
    for (int r = 0; r < rounds; ++r)
      sorted[r] = rates[a][r] / rates[0][r];
    double mid = median(sorted, rounds);
    printf("  %s / %s: median %.3f  (%.3f to %.3f)\n", argv[4 + a], argv[4], mid, sorted[0], sorted[rounds - 1]);
  }
  for (int a = 0; a < n_artifacts; ++a) {
    llmc_session_destroy(sessions[a]);
    llmc_model_destroy(models[a]);
  }
  llmc_weights_destroy(weights);
  return 0;
}
