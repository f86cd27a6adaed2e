// extern "C" llmc_model_* entry points over Model.
#include "api_guard.h"
#include "handles.h"

#include <memory>

using namespace llmc::rt;

extern "C" {

llmc_status llmc_model_open(const char *path, llmc_model **out) {
  return guarded([&] {
    require(path, "llmc_model_open", "path");
    require(out, "llmc_model_open", "out");
    auto m = std::make_unique<llmc_model>();
    m->model = Model::open(path);
    *out = m.release();
  });
}

llmc_status llmc_model_open_linked(const char *path, llmc_prefill_fn prefill,
                                   llmc_decode_fn decode, llmc_model **out) {
  return guarded([&] {
    require(path, "llmc_model_open_linked", "path");
    require(out, "llmc_model_open_linked", "out");
    auto m = std::make_unique<llmc_model>();
    m->model = Model::open_linked(path, prefill, decode);
    *out = m.release();
  });
}

void llmc_model_destroy(llmc_model *model) { delete model; }

llmc_status llmc_model_prepare_device(const llmc_model *model) {
  return guarded([&] {
    require(model, "llmc_model_prepare_device", "model");
    if (CudaProgram *cuda = model->model->cuda())
      cuda->module(); // loads the driver and the image; throws without them
  });
}

llmc_status llmc_model_get_info(const llmc_model *model, llmc_model_info *out) {
  return guarded([&] {
    require(model, "llmc_model_get_info", "model");
    require(out, "llmc_model_get_info", "out");
    const Manifest &m = model->model->manifest();
    llmc_model_info info{};
    info.name = m.name.c_str();
    info.target_triple = m.target_triple.c_str();
    info.target_kind =
        m.target == TargetKind::Cuda ? LLMC_TARGET_CUDA : LLMC_TARGET_CPU;
    info.target_arch = m.target_arch.c_str();
    info.abi_version = static_cast<int32_t>(m.abi_version);
    info.batch = m.batch;
    info.context_length = m.context_length;
    info.vocab_size = m.vocab_size;
    info.hidden_size = m.hidden_size;
    info.num_layers = m.num_layers;
    info.num_heads = m.num_heads;
    info.num_kv_heads = m.num_kv_heads;
    info.head_dim = m.head_dim;
    info.bos_token_id = m.bos_token_id;
    info.eos_token_id = m.eos_token_ids.empty() ? -1 : m.eos_token_ids[0];
    info.rope_layout = m.rope_layout;
    info.n_weights = m.weights.size();
    info.kv_cache_bytes = m.kv_cache_bytes;
    *out = info;
  });
}

int llmc_model_is_eos(const llmc_model *model, int32_t token) {
  return model && model->model->is_eos(token) ? 1 : 0;
}

} // extern "C"
