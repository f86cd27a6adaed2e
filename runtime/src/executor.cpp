// make_executor: the backend for the model's target kind; shared entry-point status check.
#include "executor.h"

#include "cpu_executor.h"
#include "cuda_executor.h"
#include "error.h"

namespace llmc::rt {

std::unique_ptr<Executor> make_executor(std::shared_ptr<const Model> model,
                                        WeightSet &weights) {
  if (model->manifest().target == TargetKind::Cuda)
    return make_cuda_executor(std::move(model), weights);
  return std::make_unique<CpuExecutor>(std::move(model), weights);
}

int32_t Executor::sample(const DeviceSampling &, Sampler &) {
  fail(LLMC_ERR_INTERNAL, "this backend has no device sampling");
}

int32_t Executor::decode_sample(int32_t, int32_t, const DeviceSampling &,
                                Sampler &) {
  fail(LLMC_ERR_INTERNAL, "this backend has no device sampling");
}

std::string describe_kv_cache(const Manifest &m) {
  return cat("the KV cache (", m.context_length,
             " tokens of context; recompile with a smaller --context to need "
             "less)");
}

void check_entry_status(const Manifest &m, int32_t status, const char *entry) {
  if (status != 0)
    fail(LLMC_ERR_INTERNAL, "the compiled ", entry, " entry point of '", m.name,
         "' returned ", status);
}

} // namespace llmc::rt
