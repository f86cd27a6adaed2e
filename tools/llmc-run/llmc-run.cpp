// llmc-run: loads a compiled llmc artifact plus weights and generates text (or dumps logits).
//
// Every failure prints one `llmc-run: error: ...` line on stderr and exits 1.
// Generated text streams to stdout; statistics go to stderr so stdout stays
// exactly the model's output.
#include "chat.h"
#include "cli.h"
#include "generation.h"
#include "token_printer.h"
#include "tokenize_command.h"

#include "llmc/runtime.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace llmc_run;

namespace {

/// Generated tokens when -n is not given: a few sentences of a small model,
/// short enough that a mistaken run is quick.
constexpr long kDefaultNewTokens = 128;
/// Decode steps left out of the steady-state rate: on CUDA the first runs
/// the host code (warming the scratch arena and the kernel cache) and the
/// second is captured as a CUDA graph; the CPU skips the same for caches.
constexpr long kWarmupSteps = 2;

const char *const kUsage =
    "usage: llmc-run <artifact-dir> --weights <file> [options]\n"
    "       llmc-run <artifact-dir> --random-weights[=SEED] [options]\n"
    "  --weights FILE         GGUF, safetensors (file/index/dir) or llama2.c .bin\n"
    "  --random-weights[=S]   no weights file: every tensor of the artifact's table\n"
    "                         filled with seeded pseudo-random values (norms 1, biases\n"
    "                         0, the rest uniform with std 0.02), for benchmarks;\n"
    "                         implies --ignore-eos (default seed 0)\n"
    "       llmc-run --weights <W> --tokenize TEXT | --detokenize \"1 2 3\" (no artifact;\n"
    "                         see llmc-run --tokenize x --help)\n"
    "  --mapped-weights       CPU: read the weights from the file's mapping (zero-copy,\n"
    "                         shared between processes) instead of resident copies\n"
    "                         in 2 MiB pages (the default; faster decoding)\n"
    "  --tokenizer FILE       tokenizer: GGUF, tokenizer.json, model directory or\n"
    "                         llama2.c tok*.bin; default: the weights' (GGUF vocab,\n"
    "                         or a model directory's tokenizer.json)\n"
    "  --prompt TEXT          prompt, encoded with BOS/EOS as the tokenizer asks and\n"
    "                         special-token spellings as those tokens (default: BOS alone)\n"
    "  --plain-special        --prompt: special-token spellings stay plain text\n"
    "  --tokens \"1 403 407\"   prompt as token ids (no BOS added)\n"

    "  --tokens-file FILE     the same, read from a file\n"
    "  --messages FILE        a conversation (OpenAI-style JSON list of {role, content})\n"
    "                         rendered by the model's chat template with the generation\n"
    "                         prompt; prints the assistant's reply\n"
    "  --chat                 multi-turn: a user turn per line of stdin (after --messages,\n"
    "                         if given); each turn prefills only what the KV cache lacks\n"
    "  -n N                   tokens to generate (default 128; per turn in a chat); stops\n"
    "                         earlier at an end-of-generation id or when the context is full\n"
    "  --temp T               temperature; 0 = greedy (default 0, or the model directory's\n"
    "                         generation_config.json when no sampling flag is given)\n"
    "  --top-k K              keep the K most likely tokens (default 0: all)\n"
    "  --top-p P              nucleus sampling mass (default 1: off)\n"
    "  --repeat-penalty R     repetition penalty (default 1: off)\n"
    "  --seed S               sampling seed (default 0)\n"
    "  --host-sampling        copy every step's logits to the host and sample\n"
    "                         there (the reference for the GPU's sampling kernels;\n"
    "                         default: the runtime samples next to the logits)\n"
    "  --dump-logits FILE     write float32 logits [prompt tokens, vocab] of a\n"
    "                         teacher-forced prefill and generate nothing\n"
    "  --incremental          with --dump-logits: feed the prompt one token at a time\n"
    "                         through decode (the KV cache path) instead of one prefill\n"
    "  --prefixes             with --dump-logits: row i from a prefill of the first i+1\n"
    "                         tokens that asks for its last row only (the path of a\n"
    "                         generation's prefill) instead of one prefill of all rows\n"
    "  --print-tokens         print token ids (prompt + generated) instead of text\n"
    "  --ignore-eos           generate exactly -n tokens (unless the context fills)\n"
    "  --warmup               run the prompt's prefill once untimed and reset before\n"
    "                         the timed run (first-launch costs out of the rate)\n"
    "  --profile              CUDA: time every kernel launch (CUDA events; disables\n"
    "                         graphs) and print a table per phase at the end, as\n"
    "                         LLMC_CUDA_PROFILE=1 does\n"
    "  --threads N            CPU threads per call (default: OMP_NUM_THREADS, else the\n"
    "                         CPUs this process may run on; ignored on CUDA)\n"
    "  --device cpu|cuda      backend; must match the artifact's target (default:\n"
    "                         the artifact's). CUDA environment: LLMC_CUDA_DEVICE=N,\n"
    "                         LLMC_CUDA_GRAPHS=0 (no decode graphs)\n";

struct Options {
  std::string artifact, weights, tokenizer, prompt, tokens, dump_logits, messages;
  std::string device; // "" = the artifact's target kind
  bool has_prompt = false, has_tokens = false, print_tokens = false;
  bool random_weights = false, ignore_eos = false, profile = false, warmup = false;
  bool host_sampling = false, chat = false, plain_special = false;
  bool incremental = false, prefixes = false, mapped_weights = false;
  /// A sampling flag was given: the model's generation_config.json
  /// defaults then do not apply.
  bool sampling_flags = false;
  uint64_t random_seed = 0;
  long n = kDefaultNewTokens;
  int threads = 0; // 0: the runtime's default
  llmc_sampler_config sampler;
};

long parse_int(const std::string &flag, const char *text, long lo, long hi) {
  char *end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi)
    die(flag + " expects an integer in [" + std::to_string(lo) + ", " +
        std::to_string(hi) + "], got '" + text + "'");
  return v;
}

float parse_float(const std::string &flag, const char *text) {
  char *end = nullptr;
  errno = 0;
  float v = std::strtof(text, &end);
  if (errno || end == text || *end || !(v == v))
    die(flag + " expects a number, got '" + text + "'");
  return v;
}

Options parse_args(int argc, char **argv) {
  Options o;
  llmc_sampler_config_default(&o.sampler);
  o.sampler.temperature = 0.0f; // greedy unless asked: reproducible runs
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    // Flags without a value.
    static const std::pair<const char *, bool Options::*> kSwitches[] = {
        {"--print-tokens", &Options::print_tokens}, {"--ignore-eos", &Options::ignore_eos},
        {"--profile", &Options::profile},           {"--warmup", &Options::warmup},
        {"--incremental", &Options::incremental}, {"--prefixes", &Options::prefixes},
        {"--mapped-weights", &Options::mapped_weights},
        {"--host-sampling", &Options::host_sampling}, {"--chat", &Options::chat},
        {"--plain-special", &Options::plain_special}};
    auto on = std::find_if(std::begin(kSwitches), std::end(kSwitches),
                           [&](const auto &flag) { return a == flag.first; });
    if (on != std::end(kSwitches)) {
      o.*(on->second) = true;
      continue;
    }
    if (a == "--random-weights" || a.rfind("--random-weights=", 0) == 0) {
      o.random_weights = true;
      if (a.size() > std::strlen("--random-weights")) {
        const char *v = argv[i] + std::strlen("--random-weights=");
        char *end = nullptr;
        errno = 0;
        unsigned long long seed = std::strtoull(v, &end, 10);
        if (errno || end == v || *end || *v == '-')
          die(std::string("--random-weights=SEED expects an unsigned integer, got '") +
              v + "'");
        o.random_seed = seed;
      }
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      if (i + 1 >= argc)
        die("option " + a + " needs a value");
      const char *v = argv[++i];
      if (a == "--weights") o.weights = v;
      else if (a == "--tokenizer") o.tokenizer = v;
      else if (a == "--prompt") { o.prompt = v; o.has_prompt = true; }
      else if (a == "--tokens") { o.tokens = v; o.has_tokens = true; }
      else if (a == "--tokens-file") { o.tokens = read_file(a, v); o.has_tokens = true; }
      else if (a == "--messages") o.messages = read_file(a, v);
      else if (a == "-n") o.n = parse_int(a, v, 0, INT32_MAX);
      else if (a == "--temp") { o.sampler.temperature = parse_float(a, v); o.sampling_flags = true; }
      else if (a == "--top-k") { o.sampler.top_k = static_cast<int32_t>(parse_int(a, v, 0, INT32_MAX)); o.sampling_flags = true; }
      else if (a == "--top-p") { o.sampler.top_p = parse_float(a, v); o.sampling_flags = true; }
      else if (a == "--repeat-penalty") { o.sampler.repetition_penalty = parse_float(a, v); o.sampling_flags = true; }
      else if (a == "--seed") o.sampler.seed = static_cast<uint64_t>(parse_int(a, v, 0, LONG_MAX));
      else if (a == "--dump-logits") o.dump_logits = v;
      else if (a == "--device") o.device = v;
      else if (a == "--threads") o.threads = static_cast<int>(parse_int(a, v, 1, 1024));
      else die("unknown option '" + a + "' (see --help)");
      continue;
    }
    if (!o.artifact.empty())
      die("more than one artifact directory given ('" + o.artifact + "', '" + a + "')");
    o.artifact = a;
  }
  if (o.artifact.empty() && !o.messages.empty())
    die("--messages without an artifact needs --tokenize (print the rendered ids)");
  if (o.artifact.empty())
    die("no artifact directory given (usage: llmc-run <dir> --weights <file>; see --help)");
  if (o.weights.empty() && !o.random_weights)
    die("--weights <file> (or --random-weights) is required");
  if (!o.weights.empty() && o.random_weights)
    die("give either --weights or --random-weights, not both");
  if (o.random_weights)
    o.ignore_eos = true; // a random model's EOS means nothing
  if (o.has_prompt && o.has_tokens)
    die("give either --prompt or --tokens/--tokens-file, not both");
  bool chat = o.chat || !o.messages.empty();
  if (chat && (o.has_prompt || o.has_tokens))
    die("--messages/--chat render the prompt with the chat template; they do not go with "
        "--prompt or --tokens");
  if (o.plain_special && !o.has_prompt)
    die("--plain-special applies to --prompt text");
  if (chat && !o.dump_logits.empty())
    die("--dump-logits takes --prompt or --tokens, not --messages/--chat");
  if (o.incremental && o.dump_logits.empty())
    die("--incremental applies to --dump-logits");
  if (o.prefixes && o.dump_logits.empty())
    die("--prefixes applies to --dump-logits");
  if (o.prefixes && o.incremental)
    die("--prefixes and --incremental are two ways to compute the rows; give one");
  return o;
}

/// How dump_logits computes its rows.
enum class LogitRowsSource {
  Prefill,     // one prefill of the whole prompt, every row
  Incremental, // one decode call per token (the first through a prefill)
  Prefixes,    // one last-row-only prefill per prefix, on an empty cache
};

/// Teacher-forced logits of every prompt token, [prompt tokens, vocab]:
/// from one prefill; one decode call per token, which checks the decode
/// kernels and the KV cache against the prefill's; or one prefill per
/// prefix asking for its last row, which checks the prefill of a
/// generation (its last layer computes the last row alone from its
/// attention on) against the prefill of all rows.
void dump_logits(llmc_session *session, const std::vector<int32_t> &prompt,
                 int32_t vocab, const std::string &path, LogitRowsSource source) {
  size_t row = static_cast<size_t>(vocab), n = prompt.size() * row;
  // A prefill's logits stay valid in the session until its next call; the
  // steps of an incremental run or the prefixes' rows are gathered here.
  const float *all = nullptr;
  std::vector<float> steps;
  auto start = std::chrono::steady_clock::now();
  if (source == LogitRowsSource::Prefixes) {
    steps.resize(n);
    for (size_t i = 0; i < prompt.size(); ++i) {
      const float *last = nullptr;
      llmc_session_reset(session);
      check(llmc_session_prefill(session, prompt.data(), i + 1, &last, nullptr));
      std::copy(last, last + row, steps.begin() + i * row);
    }
    all = steps.data();
  } else if (source == LogitRowsSource::Incremental) {
    steps.resize(n);
    for (size_t i = 0; i < prompt.size(); ++i) {
      const float *step = nullptr;
      if (i == 0)
        check(llmc_session_prefill(session, prompt.data(), 1, &step, nullptr));
      else
        check(llmc_session_decode(session, prompt[i], &step));
      std::copy(step, step + row, steps.begin() + i * row);
    }
    all = steps.data();
  } else {
    check(llmc_session_prefill(session, prompt.data(), prompt.size(), nullptr, &all));
  }
  double t = seconds_since(start);
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    die(path + ": cannot write logits: " + std::strerror(errno));
  bool ok = std::fwrite(all, sizeof(float), n, f) == n;
  ok = std::fclose(f) == 0 && ok;
  if (!ok)
    die(path + ": error writing logits");
  // The tokens computed: the prefixes' prefills run 1 + 2 + ... + n of them.
  size_t computed = source == LogitRowsSource::Prefixes
                        ? prompt.size() * (prompt.size() + 1) / 2
                        : prompt.size();
  std::fprintf(stderr, "llmc-run: wrote logits [%zu, %d] (float32) to %s; %s %.1f tokens/s\n",
               prompt.size(), vocab, path.c_str(),
               source == LogitRowsSource::Incremental ? "decode" : "prefill",
               computed / t);
}

/// The machine-readable rates (both backends): prefill over the whole
/// prompt; decode over the steps after the first kWarmupSteps.
void print_rates(size_t prompt_tokens, double prefill_s,
                 const std::vector<double> &step_s) {
  std::fprintf(stderr, "llmc-run: prefill: %.1f tokens/s (%zu tokens, %.3f ms)\n",
               prompt_tokens / prefill_s, prompt_tokens, prefill_s * 1e3);
  long steps = 0;
  double total = 0;
  for (size_t i = kWarmupSteps; i < step_s.size(); ++i, ++steps)
    total += step_s[i];
  if (steps > 0)
    std::fprintf(stderr,
                 "llmc-run: decode: %.1f tokens/s (steady state, %ld steps, %.3f ms)\n",
                 steps / total, steps, total * 1e3);
  else
    std::fprintf(stderr,
                 "llmc-run: decode: n/a (steady state, 0 steps: the first %ld decode "
                 "steps are warm-up and graph capture; generate more tokens)\n",
                 kWarmupSteps);
}

/// How the CPU threads waited: the runtime's choice per call (spinning on
/// free cores, sleeping beside other busy work) or libomp's settings.
void print_cpu_waits(llmc_session *session) {
  llmc_cpu_wait_stats waits;
  check(llmc_session_cpu_wait_stats(session, &waits));
  if (waits.adaptive)
    std::fprintf(stderr,
                 "llmc-run: cpu waits: adaptive; threads slept in %llu of %llu calls "
                 "(cores shared with other work)\n",
                 static_cast<unsigned long long>(waits.sleeping_calls),
                 static_cast<unsigned long long>(waits.calls));
  else
    std::fprintf(stderr, "llmc-run: cpu waits: libomp's (KMP_BLOCKTIME / OMP_WAIT_POLICY)\n");
}

/// An artifact runs only on the target it was compiled for, so --device can
/// only confirm it; a mismatch names both and the way out.
void check_device(const Options &opt, const llmc_model_info &info) {
  bool cuda = info.target_kind == LLMC_TARGET_CUDA;
  if (opt.device == "cuda" && !cuda)
    die("--device cuda: " + opt.artifact +
        " is a CPU artifact (compiled with --target=cpu); compile the model "
        "with --target=cuda:<sm_XX> to run it on a GPU");
  if (opt.device == "cpu" && cuda)
    die("--device cpu: " + opt.artifact + " is a CUDA artifact (" +
        info.target_arch +
        "); it runs only with --device cuda (compile the model with "
        "--target=cpu to run it on the CPU)");
}

/// Everything a run holds, released in dependency order when main returns:
/// the session first (it uses the weights in place on the CPU, and prints
/// the --profile table when destroyed), the model last.
struct RunHandles {
  llmc_model *model = nullptr;
  llmc_weights *weights = nullptr;
  llmc_tokenizer *tokenizer = nullptr;
  llmc_chat_template *chat_template = nullptr;
  llmc_session *session = nullptr;
  llmc_sampler *sampler = nullptr;
  ~RunHandles() {
    llmc_sampler_destroy(sampler);
    llmc_session_destroy(session);
    llmc_chat_template_destroy(chat_template);
    llmc_tokenizer_destroy(tokenizer);
    llmc_weights_destroy(weights);
    llmc_model_destroy(model);
  }
};

} // namespace

int main(int argc, char **argv) {
  if (llmc_run::is_tokenize_command(argc, argv))
    return llmc_run::run_tokenize_command(argc, argv);
  Options opt = parse_args(argc, argv);
  if (!opt.device.empty() && opt.device != "cpu" && opt.device != "cuda")
    die("unknown device '" + opt.device + "' (expected cpu or cuda)");

  RunHandles run;
  check(llmc_model_open(opt.artifact.c_str(), &run.model));
  llmc_model *model = run.model;
  llmc_model_info info;
  check(llmc_model_get_info(model, &info));
  check_device(opt, info);
  // A missing GPU is reported before the weights are read or generated
  // (gigabytes for a large model).
  check(llmc_model_prepare_device(model));

  bool cuda = info.target_kind == LLMC_TARGET_CUDA;
  if (opt.profile) {
    if (!cuda)
      die("--profile times CUDA kernels; " + opt.artifact + " is a CPU artifact");
    // Read by the runtime when the session is created.
    if (setenv("LLMC_CUDA_PROFILE", "1", 1) != 0)
      die(std::string("--profile: setenv: ") + std::strerror(errno));
  }

  llmc_weights *&weights = run.weights;
  if (opt.random_weights) {
    auto t0 = std::chrono::steady_clock::now();
    check(llmc_weights_create_random(model, opt.random_seed, &weights),
          "random weights");
    double bytes = 0;
    size_t n_tensors = llmc_weights_tensor_count(weights);
    for (size_t i = 0; i < n_tensors; ++i) {
      llmc_tensor_info ti;
      check(llmc_weights_tensor_info(weights, i, &ti));
      bytes += static_cast<double>(ti.n_bytes);
    }
    std::fprintf(stderr,
                 "llmc-run: random weights (seed %llu): %zu tensors, %.3f GB, "
                 "generated in %.3f s\n",
                 static_cast<unsigned long long>(opt.random_seed), n_tensors,
                 bytes / 1e9, seconds_since(t0));
  } else {
    check(llmc_weights_open(opt.weights.c_str(), LLMC_WEIGHTS_AUTO, &weights));
  }

  std::string no_tokenizer;
  run.tokenizer = llmc_run::open_tokenizer(opt.tokenizer, opt.weights, weights,
                                                 info.vocab_size, no_tokenizer);
  const llmc_tokenizer *tok = run.tokenizer;
  // No vocab in the weights: fine unless text is needed.
  if (!tok && opt.has_prompt)
    die((opt.random_weights ? std::string("random weights carry")
                            : opt.weights + " carries") +
        " no tokenizer (" + no_tokenizer +
        "); pass --tokenizer <tok.bin> to encode --prompt");
  if (tok && llmc_tokenizer_vocab_size(tok) != info.vocab_size)
    die("the tokenizer has " + std::to_string(llmc_tokenizer_vocab_size(tok)) +
        " tokens but the model's vocabulary is " + std::to_string(info.vocab_size));

  bool chat = opt.chat || !opt.messages.empty();
  // Checked before anything is loaded for the chat.
  Conversation conversation(opt.messages.empty() ? "[]" : opt.messages);
  if (!tok && chat)
    die((opt.random_weights ? std::string("random weights carry")
                            : opt.weights + " carries") +
        " no tokenizer (" + no_tokenizer + "); --messages/--chat need one (--tokenizer <file>)");
  std::vector<int32_t> prompt;
  if (opt.has_tokens) {
    prompt = parse_token_list("--tokens", opt.tokens);
  } else if (opt.has_prompt) {
    prompt = encode_text(tok, opt.prompt,
                         LLMC_ENCODE_FILE_DEFAULTS | (opt.plain_special ? LLMC_ENCODE_PLAIN_SPECIAL : 0),
                         "encoding the prompt");
  } else if (!chat) {
    int32_t bos = info.bos_token_id >= 0 ? info.bos_token_id
                                         : (tok ? llmc_tokenizer_bos_id(tok) : -1);
    if (bos < 0)
      die("no prompt given and the model has no BOS token; pass --prompt or --tokens");
    prompt.push_back(bos);
  }
  if (prompt.size() > static_cast<size_t>(info.context_length))
    die("the prompt has " + std::to_string(prompt.size()) +
        " tokens but the artifact's context holds " +
        std::to_string(info.context_length));

  llmc_generation_config generation;
  check(llmc_generation_config_load(opt.random_weights ? "" : opt.weights.c_str(), &generation));
  if (generation.found && !opt.sampling_flags) {
    // The model's own defaults, as transformers' generate() applies them;
    // any sampling flag means the user chose instead (seed kept).
    uint64_t seed = opt.sampler.seed;
    opt.sampler = generation.sampler;
    opt.sampler.seed = seed;
  }
  GenerationSettings settings;
  settings.max_tokens = opt.n;
  settings.host_sampling = opt.host_sampling;
  if (!opt.ignore_eos)
    settings.stop_ids = end_of_generation_ids(info, tok, generation);

  if (chat)
    run.chat_template = open_chat_template(opt.tokenizer, opt.weights, weights);

  if (opt.mapped_weights)
    check(llmc_weights_set_residency(weights, LLMC_WEIGHTS_MAPPED));
  check(llmc_session_create(model, weights, &run.session));
  llmc_session *session = run.session;
  if (opt.threads > 0)
    check(llmc_session_set_threads(session, opt.threads));
  if (!cuda) {
    std::fprintf(stderr, "llmc-run: cpu threads: %d\n", llmc_session_threads(session));
  } else {
    std::fprintf(stderr, "llmc-run: device: %s\n", llmc_session_backend(session));
    // The session copied everything to the GPU (and the tokenizer copied
    // its vocabulary): the host copy of the weights can go now.
    llmc_weights_destroy(weights);
    weights = nullptr;
  }

  check(llmc_sampler_create(&opt.sampler, info.vocab_size, &run.sampler), "sampler");
  llmc_sampler *sampler = run.sampler;

  if (chat) {
    ChatSetup setup;
    setup.session = session;
    setup.sampler = sampler;
    setup.tokenizer = tok;
    setup.chat_template = run.chat_template;
    setup.context_length = info.context_length;
    setup.generation = settings;
    setup.print_ids = opt.print_tokens;
    run_chat(setup, std::move(conversation), opt.chat);
    return 0;
  }

  if (opt.warmup) {
    // The first call of a session loads kernels (lazily, on a GPU) and
    // grows scratch memory; a reset leaves an empty cache for the timed run.
    check(llmc_session_prefill(session, prompt.data(), prompt.size(), nullptr, nullptr),
          "warm-up prefill");
    llmc_session_reset(session);
  }

  if (!opt.dump_logits.empty()) {
    dump_logits(session, prompt, info.vocab_size, opt.dump_logits,
                opt.incremental ? LogitRowsSource::Incremental
                : opt.prefixes  ? LogitRowsSource::Prefixes
                                : LogitRowsSource::Prefill);
    return 0;
  }

  // Session calls return once the device work has finished (a CUDA session
  // synchronizes its stream), so these clocks time the device work too.
  // By default the runtime samples next to the logits (on a GPU they stay
  // there: 4 bytes come back per token); --host-sampling brings every row
  // of logits back and samples it here, the reference for that path.
  auto start = std::chrono::steady_clock::now();
  const float *logits = nullptr;
  check(llmc_session_prefill(session, prompt.data(), prompt.size(),
                             opt.host_sampling ? &logits : nullptr, nullptr));
  double prefill_s = seconds_since(start);

  // The prompt is echoed only once it has run, so a rejected prompt prints
  // nothing but its error.
  TokenPrinter out(tok, opt.print_tokens);
  for (int32_t t : prompt)
    out.emit(t);
  std::vector<int32_t> history = prompt;
  GenerationResult result = generate(session, sampler, logits, info.context_length, settings,
                                     history, out);
  if (opt.print_tokens || isatty(STDOUT_FILENO))
    std::fputc('\n', stdout);
  std::fflush(stdout);

  const std::vector<double> &step_s = result.step_seconds;
  std::fprintf(stderr,
               "llmc-run: %zu generated (stop: %s); prefill %zu tokens in %.3f ms "
               "(%.1f tokens/s); decode %zu tokens in %.3f ms (%.1f tokens/s)\n",
               result.tokens.size(), result.stop, prompt.size(), prefill_s * 1e3,
               prompt.size() / prefill_s, step_s.size(), result.decode_seconds() * 1e3,
               result.decode_rate());
  print_rates(prompt.size(), prefill_s, step_s);
  if (!cuda)
    print_cpu_waits(session);
  return 0;
}
