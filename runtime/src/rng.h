// PCG32 random number generator (O'Neill 2014, XSH-RR variant) for reproducible sampling.
#ifndef LLMC_RUNTIME_RNG_H
#define LLMC_RUNTIME_RNG_H

#include <cstdint>

namespace llmc::rt {

/// PCG32 rather than std::mt19937 + std::uniform_real_distribution because
/// the standard distributions are implementation-defined: the same seed must
/// give the same tokens with every compiler and standard library.
class Pcg32 {
public:
  explicit Pcg32(uint64_t seed = 0) { reseed(seed); }

  /// The reference pcg32_srandom_r initialisation with a fixed stream.
  void reseed(uint64_t seed) {
    state_ = 0;
    next_u32();
    state_ += seed;
    next_u32();
  }

  uint32_t next_u32() {
    uint64_t old = state_;
    state_ = old * kMultiplier + kIncrement;
    uint32_t xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = static_cast<uint32_t>(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
  }

  /// Uniform in [0, 1): the top 24 bits fill an f32 mantissa exactly.
  float next_unit_float() {
    return static_cast<float>(next_u32() >> 8) * (1.0f / 16777216.0f);
  }

private:
  /// The LCG multiplier from the PCG reference implementation.
  static constexpr uint64_t kMultiplier = 6364136223846793005ull;
  /// Stream selector (must be odd); PCG's default stream constant.
  static constexpr uint64_t kIncrement = 1442695040888963407ull;
  uint64_t state_ = 0;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_RNG_H
