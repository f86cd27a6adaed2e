// llama.cpp's teacher-forced logits of a GGUF file, float32 [tokens, vocab], through its public C API: one
// batch at positions 0.., f32 KV cache, flash attention off (its CPU kernel computes in f16), one thread.
// Built and run by llama_cpp_goldens.py against the pinned llama.cpp (scripts/build-llama-cpp.sh).
//
//   llama_cpp_logits <model.gguf> <out.f32> <token id>...
#include "llama.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <model.gguf> <out.f32> <token id>...\n", argv[0]);
    return 2;
  }
  llama_backend_init();
  llama_model *model = llama_model_load_from_file(argv[1], llama_model_default_params());
  if (!model)
    return 3;
  std::vector<llama_token> tokens;
  for (int i = 3; i < argc; ++i)
    tokens.push_back(std::atoi(argv[i]));
  llama_context_params params = llama_context_default_params();
  params.n_ctx = params.n_batch = params.n_ubatch = tokens.size();
  params.n_threads = params.n_threads_batch = 1;
  params.type_k = params.type_v = GGML_TYPE_F32;
  params.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
  llama_context *context = llama_init_from_model(model, params);
  if (!context)
    return 4;
  llama_batch batch = llama_batch_init(tokens.size(), 0, 1);
  for (size_t i = 0; i < tokens.size(); ++i) {
    batch.token[i] = tokens[i];
    batch.pos[i] = i;
    batch.n_seq_id[i] = 1;
    batch.seq_id[i][0] = 0;
    batch.logits[i] = 1;
  }
  batch.n_tokens = tokens.size();
  if (llama_decode(context, batch))
    return 5;
  int vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
  FILE *out = std::fopen(argv[2], "wb");
  if (!out)
    return 6;
  for (size_t i = 0; i < tokens.size(); ++i)
    std::fwrite(llama_get_logits_ith(context, i), sizeof(float), vocab, out);
  std::fclose(out);
  llama_batch_free(batch);
  llama_free(context);
  llama_model_free(model);
  return 0;
}
