// Which of a CUDA artifact's images (cubin per arch, PTX) can run on a given GPU, best first.
#ifndef LLMC_RUNTIME_CUDA_IMAGE_SELECT_H
#define LLMC_RUNTIME_CUDA_IMAGE_SELECT_H

#include "artifact_manifest.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llmc::rt {

/// Indices into `images` of those a GPU of compute capability `sm`
/// (10 * major + minor) can load, in the order to try them:
///  1. the cubin built for exactly this GPU (an arch-specific "sm_90a" one
///     first: it was built for this very chip);
///  2. cubins of the same major version and an older minor, newest first
///     (binary compatible, as CUDA's fatbinary loader would pick them);
///  3. PTX of the newest architecture not above the GPU's, then older ones
///     (the driver compiles it: slower to load, runs anywhere newer).
/// Arch-specific ("a"/"f") images only ever match their own compute
/// capability. Empty when nothing fits. Pure: no driver needed.
std::vector<size_t> rank_cuda_images(const std::vector<ManifestCudaImage> &images,
                                     int32_t sm);

/// "sm_80 (cubin, ptx), sm_90 (cubin)": what an artifact carries, for messages.
std::string describe_cuda_images(const std::vector<ManifestCudaImage> &images);

/// "sm_90" for 90.
std::string sm_name(int32_t sm);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CUDA_IMAGE_SELECT_H
