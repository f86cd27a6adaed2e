/* Compiles runtime.h as C: the public header must stay valid C, not just C++. */
#include "llmc/runtime.h"

int llmc_test_header_is_c(void) {
  llmc_sampler_config config;
  llmc_tensor_info info;
  llmc_sampler_config_default(&config);
  info.n_dims = 0;
  return config.top_k == 0 && info.n_dims == 0 && LLMC_OK == 0;
}
