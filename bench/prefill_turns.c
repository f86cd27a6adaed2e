/* prefill_turns: the prefill rate of several llmc CPU artifacts of one model, measured in one process with the
 * artifacts taking turns, for A/B comparisons of compiler changes that a host's moods would drown.
 *
 *   prefill_turns <weights> <rounds> <tokens> <artifact-dir>...
 *
 * Opens every artifact (at most 8) on one weight set, runs one untimed prefill of <tokens> fixed ids
 * ((1000 + i) mod the vocabulary's size) in each, then <rounds> rounds of one timed prefill per artifact (the order reversed every
 * other round), each on an empty cache asking for the last token's logits, as a generation's prefill does. Prints
 * per artifact the median, best and worst rate, and per artifact after the first the median of its per-round
 * ratio to the first (both measured within the same seconds). Threads: OMP_NUM_THREADS. One process, so the
 * weights are loaded once and the runs do not start right after a copy of them. Build:
 *   cc -O2 -I runtime/include bench/prefill_turns.c build/runtime/libllmc_runtime.a -lstdc++ -ldl -lpthread -lm
 */
#include <llmc/runtime.h>
#include <stdio.h>
#include <stdlib.h>

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
  fprintf(stderr, "prefill_turns: error: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  return 1;
}

/* The whole-number argument `text` in [1, max], or 0. */
static int count_argument(const char *text, int max) {
  char *end;
  long value = strtol(text, &end, 10);
  return *text && !*end && value >= 1 && value <= max ? (int)value : 0;
}

int main(int argc, char **argv) {
  if (argc < 5 || argc - 4 > kMaxArtifacts)
    return fail("usage: prefill_turns <weights> <rounds> <tokens> <artifact-dir>... (1 to 8 artifacts)", NULL);
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
    llmc_session_reset(sessions[a]);
  }

  static double rates[kMaxArtifacts][kMaxRounds];
  for (int r = 0; r < rounds; ++r)
    for (int turn = 0; turn < n_artifacts; ++turn) {
      int a = r % 2 ? n_artifacts - 1 - turn : turn;
      const float *logits;
      double start = now();
      if (llmc_session_prefill(sessions[a], tokens, n_tokens, &logits, NULL) != LLMC_OK)
        return fail(argv[4 + a], llmc_last_error());
      rates[a][r] = n_tokens / (now() - start);
      llmc_session_reset(sessions[a]);
    }

  static double sorted[kMaxRounds];
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
