// CudaProfiler: pooled event pairs per launch, resolved after each call's synchronize, and the kernel table.
#include "cuda_profile.h"

#include "error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace llmc::rt {

namespace {

constexpr const char *kProfileEnv = "LLMC_CUDA_PROFILE";
constexpr const char *kPrefix = "llmc-profile: ";
constexpr const char *kPhaseNames[CudaProfiler::kPhases] = {"prefill", "decode",
                                                          "sample"};

template <typename... Args> std::string format(const char *fmt, Args... args) {
  int n = std::snprintf(nullptr, 0, fmt, args...);
  if (n <= 0)
    return std::string();
  std::string s(static_cast<size_t>(n), '\0');
  std::snprintf(s.data(), s.size() + 1, fmt, args...);
  return s;
}

} // namespace

bool cuda_profile_enabled() {
  const char *env = std::getenv(kProfileEnv);
  if (!env || !*env || std::strcmp(env, "0") == 0)
    return false;
  if (std::strcmp(env, "1") == 0)
    return true;
  fail(LLMC_ERR_INVALID_ARGUMENT, kProfileEnv, "='", env, "' must be 0 or 1");
}

CudaProfiler::~CudaProfiler() {
  for (CUevent e : events_)
    cu_.cuEventDestroy(e);
}

void CudaProfiler::begin_call() {
  launches_.clear();
  next_event_ = 0;
}

bool CudaProfiler::event(size_t i, std::string *error) {
  while (events_.size() <= i) {
    CUevent e = nullptr;
    CUresult r = cu_.cuEventCreate(&e, CU_EVENT_DEFAULT);
    if (r != CUDA_SUCCESS) {
      *error = cat("profiling: cuEventCreate: ", cuda_error_text(cu_, r));
      return false;
    }
    events_.push_back(e);
  }
  return true;
}

bool CudaProfiler::before_launch(CUstream stream, std::string *error) {
  if (!event(next_event_ + 1, error))
    return false;
  CUresult r = cu_.cuEventRecord(events_[next_event_], stream);
  if (r != CUDA_SUCCESS) {
    *error = cat("profiling: cuEventRecord: ", cuda_error_text(cu_, r));
    return false;
  }
  return true;
}

bool CudaProfiler::after_launch(const char *name, CUstream stream,
                                std::string *error) {
  CUresult r = cu_.cuEventRecord(events_[next_event_ + 1], stream);
  if (r != CUDA_SUCCESS) {
    *error = cat("profiling: cuEventRecord: ", cuda_error_text(cu_, r));
    return false;
  }
  launches_.push_back({name, next_event_});
  next_event_ += 2;
  return true;
}

void CudaProfiler::end_call(Phase phase) {
  add(phase, 0, launches_.size());
  begin_call();
}

void CudaProfiler::end_call(Phase phase, size_t split, Phase tail) {
  add(phase, 0, split);
  if (split < launches_.size())
    add(tail, split, launches_.size());
  begin_call();
}

void CudaProfiler::add(Phase phase, size_t first, size_t last) {
  PhaseStats &p = phases_[phase];
  ++p.calls;
  for (size_t i = first; i < last; ++i) {
    const Launch &l = launches_[i];
    float ms = 0;
    // The stream was synchronized, so every event has completed.
    cuda_check(cu_,
               cu_.cuEventElapsedTime(&ms, events_[l.first_event],
                                      events_[l.first_event + 1]),
               cat("profiling: cuEventElapsedTime of kernel '", l.name, "'"));
    auto [it, added] = p.index.emplace(l.name, p.kernels.size());
    if (added)
      p.kernels.push_back({l.name, 0, 0});
    KernelStat &k = p.kernels[it->second];
    ++k.calls;
    k.ms += ms;
    ++p.launches;
    p.ms += ms;
  }
}

std::string CudaProfiler::report(const std::string &title) const {
  std::string out;
  for (int ph = 0; ph < kPhases; ++ph) {
    const PhaseStats &p = phases_[ph];
    if (p.launches == 0)
      continue;
    if (out.empty())
      out = cat(kPrefix, title, "\n");
    std::vector<const KernelStat *> rows;
    size_t width = std::strlen("kernel");
    for (const KernelStat &k : p.kernels) {
      rows.push_back(&k);
      width = std::max(width, k.name.size());
    }
    // Largest total first; equal totals by name, so the order is stable.
    std::sort(rows.begin(), rows.end(), [](const KernelStat *a, const KernelStat *b) {
      return a->ms != b->ms ? a->ms > b->ms : a->name < b->name;
    });
    out += format("%s%s: %llu calls, %llu launches, %.3f ms GPU time\n", kPrefix,
                  kPhaseNames[ph], static_cast<unsigned long long>(p.calls),
                  static_cast<unsigned long long>(p.launches), p.ms);
    int w = static_cast<int>(width);
    out += format("%s  %-*s %8s %11s %11s %7s\n", kPrefix, w, "kernel", "calls",
                  "total_ms", "mean_us", "%gpu");
    for (const KernelStat *k : rows)
      out += format("%s  %-*s %8llu %11.3f %11.2f %7.1f\n", kPrefix, w,
                    k->name.c_str(), static_cast<unsigned long long>(k->calls),
                    k->ms, k->ms * 1e3 / static_cast<double>(k->calls),
                    p.ms > 0 ? 100.0 * k->ms / p.ms : 0.0);
  }
  return out;
}

} // namespace llmc::rt
