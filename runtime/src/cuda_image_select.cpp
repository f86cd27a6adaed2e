// rank_cuda_images: exact cubin, then same-major cubins, then PTX not newer than the GPU.
#include "cuda_image_select.h"

#include "error.h"

#include <algorithm>

namespace llmc::rt {

namespace {

int32_t major_of(int32_t sm) { return sm / 10; }

/// Lower is tried first.
int rank_of(const ManifestCudaImage &img, int32_t sm) {
  bool cubin = img.format == "cubin";
  if (img.arch_specific)
    return img.sm == sm ? (cubin ? 0 : 4) : -1;
  if (cubin && img.sm == sm)
    return 1;
  if (cubin && major_of(img.sm) == major_of(sm) && img.sm < sm)
    return 2;
  if (!cubin && img.sm <= sm)
    return 3;
  return -1;
}

} // namespace

std::vector<size_t> rank_cuda_images(const std::vector<ManifestCudaImage> &images,
                                     int32_t sm) {
  std::vector<size_t> order;
  for (size_t i = 0; i < images.size(); ++i)
    if (rank_of(images[i], sm) >= 0)
      order.push_back(i);
  // Within a rank, the newest architecture first (closest to the GPU).
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    int ra = rank_of(images[a], sm), rb = rank_of(images[b], sm);
    if (ra != rb)
      return ra < rb;
    return images[a].sm > images[b].sm;
  });
  return order;
}

std::string describe_cuda_images(const std::vector<ManifestCudaImage> &images) {
  std::vector<std::string> archs;
  for (const auto &img : images)
    if (std::find(archs.begin(), archs.end(), img.arch) == archs.end())
      archs.push_back(img.arch);
  std::string out;
  for (const auto &arch : archs) {
    std::string formats;
    for (const auto &img : images)
      if (img.arch == arch)
        formats += cat(formats.empty() ? "" : ", ", img.format);
    out += cat(out.empty() ? "" : ", ", arch, " (", formats, ")");
  }
  return out;
}

std::string sm_name(int32_t sm) { return cat("sm_", sm); }

} // namespace llmc::rt
