// make_random_weights: a counter-based PRNG (splitmix64) fills the manifest's tensors on all hardware threads.
#include "random_weights.h"

#include "dtype.h"

#include "aligned_buffer.h"
#include "error.h"
#include "half.h"
#include "parallel_chunks.h"
#include "quant/quantize.h"
#include "weight_binding.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace llmc::rt {

namespace {

/// Elements per unit of work: big enough that scheduling costs nothing,
/// small enough that 16 threads stay busy on a model's last tensors.
constexpr uint64_t kChunkElements = uint64_t{1} << 20;
constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ull; // splitmix64's increment

/// splitmix64's output function (Steele, Lea, Flood 2014).
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// 64-bit FNV-1a: tensors are keyed by name, not by table position.
uint64_t fnv1a(const std::string &s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s)
    h = (h ^ c) * 0x100000001b3ull;
  return h;
}

bool ends_with(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

enum class Fill { Uniform, One, Zero };

Fill fill_of(const std::string &name) {
  if (ends_with(name, "norm.weight"))
    return Fill::One;
  if (ends_with(name, ".bias"))
    return Fill::Zero;
  return Fill::Uniform;
}

/// Element `i` of the stream `key`: the top 24 bits of splitmix64's
/// (i+1)-th output as an odd multiple of 2^-24 in (-1, 1) (exact in f32,
/// symmetric, never 0), scaled to the bound.
inline float uniform(uint64_t key, uint64_t i) {
  constexpr float kScale = static_cast<float>(kRandomWeightBound / 16777216.0);
  uint64_t x = mix64(key + (i + 1) * kGolden);
  int32_t q = static_cast<int32_t>(x >> 40) - (int32_t{1} << 23);
  return static_cast<float>(2 * q + 1) * kScale;
}

struct Job {
  void *data;
  llmc_dtype dtype;
  Fill fill;
  uint64_t key;
  uint64_t begin, end; // element range
};

/// Element `i`'s f32 value: 1, or the stream's uniform value.
inline float value_at(const Job &job, uint64_t i) {
  return job.fill == Fill::One ? 1.0f : uniform(job.key, i);
}

void run(const Job &job) {
  switch (job.dtype) {
  case LLMC_DTYPE_F32: {
    auto *out = static_cast<float *>(job.data);
    for (uint64_t i = job.begin; i < job.end; ++i)
      out[i] = value_at(job, i);
    break;
  }
  case LLMC_DTYPE_BF16:
  case LLMC_DTYPE_F16: {
    bool bf16 = job.dtype == LLMC_DTYPE_BF16;
    auto *out = static_cast<uint16_t *>(job.data);
    if (job.fill == Fill::One) {
      std::fill(out + job.begin, out + job.end,
                static_cast<uint16_t>(bf16 ? 0x3f80 : 0x3c00));
      break;
    }
    for (uint64_t i = job.begin; i < job.end; ++i) {
      float v = uniform(job.key, i);
      out[i] = bf16 ? f32_to_bf16(v) : f32_to_f16(v);
    }
    break;
  }
  default: { // a block format dtype_of admits: the f32 values, quantized
    // A chunk starts at a multiple of kChunkElements, so on a block.
    const DTypeTraits &traits = dtype_traits(job.dtype);
    uint64_t n = job.end - job.begin;
    std::vector<float> values(static_cast<size_t>(n));
    for (uint64_t i = 0; i < n; ++i)
      values[i] = value_at(job, job.begin + i);
    auto *out = static_cast<uint8_t *>(job.data) +
                job.begin / traits.block_elems * traits.block_bytes;
    quantize_blocks(job.dtype, values.data(), n / traits.block_elems, out);
    break;
  }
  }
}

llmc_dtype dtype_of(const ManifestWeight &w) {
  if (dtype_traits(w.format).dequantize && !can_quantize(w.format))
    fail(LLMC_ERR_UNSUPPORTED, "tensor '", w.name, "' is in ",
         w.dtype, " blocks; random weights fill f32, bf16, f16, q8_0, q4_0, "
         "q4_1, q5_0 and q5_1 tensors (compile the artifact with "
         "--weight-type=f32 or one of those)");
  return w.format;
}

} // namespace

void make_random_weights(const Manifest &m, uint64_t seed, WeightSet &set) {
  set.set_context(cat("random weights for '", m.name, "'"));
  set.format = LLMC_WEIGHTS_RANDOM;
  set.rope_layout = m.rope_layout; // binding never reorders q/k rows
  uint64_t seed_key = mix64(seed + kGolden);
  std::vector<Job> jobs;
  for (const ManifestWeight &w : m.weights) {
    if (w.shape.size() > LLMC_MAX_DIMS)
      fail(LLMC_ERR_UNSUPPORTED, "tensor '", w.name, "' has ",
           w.shape.size(), " dimensions (at most ", LLMC_MAX_DIMS, ")");
    TensorEntry t;
    t.name = w.name;
    t.source_name = w.name;
    t.n_dims = static_cast<int32_t>(w.shape.size());
    for (size_t d = 0; d < w.shape.size(); ++d)
      t.shape[d] = w.shape[d];
    t.n_elements = w.n_elements;
    t.dtype = dtype_of(w);
    t.n_bytes = weight_bytes(w);
    AlignedBuffer buf(static_cast<size_t>(t.n_bytes), w.name.c_str()); // zeroed
    t.data = static_cast<const uint8_t *>(buf.data());
    Fill fill = fill_of(w.name);
    if (fill != Fill::Zero) {
      uint64_t key = mix64(seed_key ^ fnv1a(w.name));
      uint64_t n = static_cast<uint64_t>(w.n_elements);
      for (uint64_t b = 0; b < n; b += kChunkElements)
        jobs.push_back({buf.data(), t.dtype, fill, key, b,
                        std::min(n, b + kChunkElements)});
    }
    set.keep_buffer(std::move(buf));
    set.add_tensor(std::move(t));
  }
  parallel_chunks(jobs.size(), 1, [&](size_t begin, size_t end) {
    for (size_t j = begin; j < end; ++j)
      run(jobs[j]);
  });
}

} // namespace llmc::rt
