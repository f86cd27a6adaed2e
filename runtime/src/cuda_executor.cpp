// CudaExecutor: device buffers, the llmc_cuda_host_api the artifact calls, entry calls and decode-step graphs.
#include "cuda_executor.h"

#include "cuda_module.h"
#include "cuda_profile.h"
#include "cuda_sampling.h"
#include "cuda_scratch.h"
#include "error.h"
#include "kv_page_table.h"
#include "weight_binding.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace llmc::rt {

namespace {

constexpr const char *kGraphsEnv = "LLMC_CUDA_GRAPHS";
/// Device allocations are 256-byte aligned (what cuMemAlloc guarantees);
/// weights packed into one allocation keep that alignment each.
constexpr uint64_t kDeviceAlignment = 256;

uint64_t align_up(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }

void *as_pointer(CUdeviceptr p) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(p));
}
CUdeviceptr as_device(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

/// true unless LLMC_CUDA_GRAPHS=0; any value but 0 and 1 is an error, so a
/// typo does not silently leave graphs on.
bool graphs_enabled() {
  const char *env = std::getenv(kGraphsEnv);
  if (!env || !*env || std::strcmp(env, "1") == 0)
    return true;
  if (std::strcmp(env, "0") == 0)
    return false;
  fail(LLMC_ERR_INVALID_ARGUMENT, kGraphsEnv, "='", env, "' must be 0 or 1");
}

/// cuMemAlloc'ed memory, freed on destruction (the owner keeps the context
/// current and alive).
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(const CudaDriver &cu, uint64_t bytes, const char *what)
      : cu_(&cu), bytes_(bytes) {
    cuda_check(cu, cu.cuMemAlloc(&ptr_, bytes),
               cat("allocating ", bytes, " bytes of GPU memory for ", what));
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer &&o) noexcept { *this = std::move(o); }
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept {
    if (this != &o) {
      release();
      cu_ = o.cu_;
      ptr_ = o.ptr_;
      bytes_ = o.bytes_;
      o.ptr_ = 0;
      o.bytes_ = 0;
    }
    return *this;
  }
  CUdeviceptr ptr() const { return ptr_; }
  uint64_t size() const { return bytes_; }

private:
  void release() {
    if (ptr_)
      cu_->cuMemFree(ptr_);
    ptr_ = 0;
  }
  const CudaDriver *cu_ = nullptr;
  CUdeviceptr ptr_ = 0;
  uint64_t bytes_ = 0;
};

/// Page-locked host memory (cuMemAllocHost): device-to-host copies into it
/// run at full bandwidth and truly asynchronously.
class PinnedBuffer {
public:
  PinnedBuffer() = default;
  PinnedBuffer(const CudaDriver &cu, size_t bytes, const char *what)
      : cu_(&cu), bytes_(bytes) {
    cuda_check(cu, cu.cuMemAllocHost(&ptr_, bytes),
               cat("allocating ", bytes, " bytes of pinned host memory for ", what));
  }
  ~PinnedBuffer() { release(); }
  PinnedBuffer(PinnedBuffer &&o) noexcept { *this = std::move(o); }
  PinnedBuffer &operator=(PinnedBuffer &&o) noexcept {
    if (this != &o) {
      release();
      cu_ = o.cu_;
      ptr_ = o.ptr_;
      bytes_ = o.bytes_;
      o.ptr_ = nullptr;
      o.bytes_ = 0;
    }
    return *this;
  }
  void *data() const { return ptr_; }
  size_t size() const { return bytes_; }

private:
  void release() {
    if (ptr_)
      cu_->cuMemFreeHost(ptr_);
    ptr_ = nullptr;
  }
  const CudaDriver *cu_ = nullptr;
  void *ptr_ = nullptr;
  size_t bytes_ = 0;
};

/// The module's driver, after making its context current on this thread
/// (the stream is created in it).
const CudaDriver &made_current(const CudaModule &module) {
  module.make_current();
  return module.driver();
}

/// The session's stream, destroyed after every buffer (declared before
/// them) so that a half-constructed executor releases it too.
class Stream {
public:
  explicit Stream(const CudaDriver &cu) : cu_(cu) {
    cuda_check(cu, cu.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING),
               "cuStreamCreate");
  }
  ~Stream() {
    cu_.cuStreamSynchronize(stream_);
    cu_.cuStreamDestroy(stream_);
  }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  CUstream get() const { return stream_; }

private:
  const CudaDriver &cu_;
  CUstream stream_ = nullptr;
};

/// One session on the GPU. Every public call makes the context current on
/// the calling thread, enqueues its copies and the entry point on the
/// session's stream, copies the logits back and synchronizes, so the logits
/// it returns are final (and timing a call times the GPU work).
///
/// Decode steps after the first are replayed from a CUDA graph: the second
/// call is captured (the first warmed the scratch arena and the kernel
/// cache, so the capture allocates nothing), and every later one only
/// copies its token and position into the fixed device buffers the graph
/// reads and launches it. Prefill always runs the host code (its shapes
/// vary with the prompt). A call that grew the scratch arena compacts it
/// afterwards, which moves its addresses: the graph is dropped then and
/// captured again at the next step. A capture that fails (a driver or a host code
/// that cannot be captured) costs speed, not the session: that step and
/// every later one run through the host code, after one warning on stderr.
///
/// Logits stay on the GPU unless asked for (LogitRows, `host_logits`,
/// last_logits()). The sampling calls launch the artifact's sampling kernel
/// on the last row and copy back its 4-byte token. That launch follows the
/// decode step (graph replay, capture or host code) on the same stream
/// instead of being captured into the graph: its arguments change at every
/// step (a fresh uniform draw, and the kernel and settings are the
/// sampler's, which may differ from call to call), and a session may mix
/// plain decode and decode-sample steps, so the graph stays the decode step
/// both share. Stream order makes the kernel read the finished logits; the
/// cost is one more launch per token, with no synchronization in between.
class CudaExecutor final : public Executor {
public:
  CudaExecutor(std::shared_ptr<const Model> model, WeightSet &weights);
  ~CudaExecutor() override;

  const float *prefill(const int32_t *tokens, const int32_t *positions,
                       size_t n, LogitRows rows) override;
  const float *decode(int32_t token, int32_t position, bool host_logits) override;
  const float *last_logits() override;
  bool samples_on_device() const override { return sampling_->available(); }
  int32_t sample(const DeviceSampling &plan, Sampler &sampler) override;
  int32_t decode_sample(int32_t token, int32_t position,
                        const DeviceSampling &plan, Sampler &sampler) override;
  void reset() override;
  /// Zeroes the KV cache and writes a paged cache's table at its head.
  void clear_kv_cache();
  const std::string &description() const override { return description_; }

private:
  // llmc_cuda_host_api, called by the artifact's host code during an entry
  // call (under the model's entry mutex, on the calling thread).
  static void *api_alloc(void *ctx, uint64_t bytes) noexcept;
  static void api_release(void *ctx, void *ptr) noexcept;
  static void api_launch(void *ctx, const char *name, uint32_t grid_x,
                         uint32_t grid_y, uint32_t grid_z, uint32_t block_x,
                         uint32_t block_y, uint32_t block_z,
                         uint32_t shared_bytes, void **params) noexcept;
  static void api_copy(void *ctx, void *dst, const void *src,
                       uint64_t bytes) noexcept;

  /// Keeps the first error of the current entry call; later host API calls
  /// of that call then do nothing (their inputs may depend on the failed one).
  void record(const std::string &message) noexcept;
  /// Start of every public call: context current, earlier failures reported.
  void begin();
  /// Prepares an entry call: the artifact's global points at this session's
  /// table, the arena and the recorded error start over. Caller holds the
  /// model's entry mutex.
  void prepare_call();
  /// After the host code returned: its status, then any recorded error.
  void check_call(int32_t status, const char *entry);
  /// Waits for the stream; an error here (a faulting kernel) leaves the
  /// context unusable, so the session refuses further calls.
  void synchronize(const char *step);
  /// After a synchronized call that ran host code: a scratch arena that
  /// grew becomes one chunk (ScratchArena::compact), and a captured decode
  /// graph, which used the old addresses, is dropped (the next decode step
  /// runs the host code again, the one after it is captured).
  void compact_scratch();
  void check(CUresult result, const std::string &what);

  int32_t call_decode();
  void capture_decode();
  /// Copies the token and position in and enqueues the decode step (graph
  /// replay, capture or host code); the last row is then decode_logits_.
  void enqueue_decode(int32_t token, int32_t position);
  /// Enqueues `plan`'s kernel on the last row and the copy of its token into
  /// the staging buffer. On failure it waits for the stream (work of this
  /// call may still read the staging buffer) and throws.
  void enqueue_sample(const DeviceSampling &plan, Sampler &sampler);
  /// The token enqueue_sample copied back, once the stream synchronized.
  int32_t sampled_token() const;
  float *host_buffer(size_t bytes);

  std::shared_ptr<const Model> model_;
  const Manifest &m_;
  CudaProgram &program_;
  // Before every device resource: destroyed last, so the context outlives
  // them.
  std::shared_ptr<CudaModule> module_;
  const CudaDriver &cu_;
  std::string description_;

  Stream stream_holder_;
  CUstream stream_;
  DeviceBuffer weight_memory_;
  std::vector<const void *> weight_table_; // host array of device pointers
  DeviceBuffer kv_cache_;
  // A paged cache's table (empty for a contiguous one), copied to the head
  // of kv_cache_ whenever the cache is zeroed.
  std::vector<int32_t> page_table_;
  DeviceBuffer tokens_;        // int32[context]: prefill input; [0] for decode
  DeviceBuffer positions_;     // int32[context]
  DeviceBuffer decode_logits_; // f32[vocab]: fixed, a decode graph writes it
  DeviceBuffer prefill_logits_; // f32[n, vocab], grown to the longest prefill
  DeviceBuffer reserved_;      // what alloc returns after a failure
  DeviceBuffer sampled_token_; // int32[1]: what a sampling kernel writes
  PinnedBuffer staging_;       // int32[3]: decode token, position; sampled token
  PinnedBuffer logits_;        // host copy of the last call's logits
  ScratchArena arena_;
  std::unique_ptr<CudaSamplingKernels> sampling_;

  // The last row of logits of the previous prefill/decode (0: none), and
  // its host copy when that call brought it back (else nullptr).
  CUdeviceptr last_row_ = 0;
  const float *host_row_ = nullptr;

  llmc_cuda_host_api table_{};
  std::string call_error_; // first error of the running entry call
  std::string broken_;     // set once the context failed: every call fails
  std::string pending_;    // a failed reset(), reported by the next call

  bool graphs_ = true;
  int64_t decode_calls_ = 0;
  CUgraphExec graph_ = nullptr;
  // LLMC_CUDA_PROFILE=1: kernel times, printed when the session ends.
  std::unique_ptr<CudaProfiler> profiler_;
};

CudaExecutor::CudaExecutor(std::shared_ptr<const Model> model, WeightSet &weights)
    : model_(std::move(model)), m_(model_->manifest()), program_(*model_->cuda()),
      module_(program_.module()), cu_(module_->driver()),
      stream_holder_(made_current(*module_)),
      stream_(stream_holder_.get()),
      arena_(
          [this](uint64_t bytes, std::string *error) -> uint64_t {
            CUdeviceptr p = 0;
            CUresult r = cu_.cuMemAlloc(&p, bytes);
            if (r == CUDA_SUCCESS)
              return p;
            *error = cat("cuMemAlloc of ", bytes, " bytes: ", cuda_error_text(cu_, r));
            return 0;
          },
          [this](uint64_t address) { cu_.cuMemFree(address); }) {
  // Profiling times each launch with events recorded around it, which a
  // replayed graph would not do: it turns graphs off.
  if (cuda_profile_enabled())
    profiler_ = std::make_unique<CudaProfiler>(cu_);
  graphs_ = graphs_enabled() && !profiler_;
  description_ = cat(module_->description(),
                     graphs_ ? ", CUDA graphs" : ", no CUDA graphs",
                     profiler_ ? ", profiling" : "");

  // Weights: one allocation, each tensor at a 256-byte-aligned offset,
  // uploaded as soon as it is bound so the host holds one converted tensor
  // at a time.
  std::vector<uint64_t> offsets;
  uint64_t total = 0;
  for (const ManifestWeight &w : m_.weights) {
    offsets.push_back(total);
    total = align_up(total + weight_bytes(w), kDeviceAlignment);
  }
  weight_memory_ = DeviceBuffer(cu_, total, "the weights");
  for (size_t i = 0; i < m_.weights.size(); ++i) {
    std::vector<AlignedBuffer> owned;
    const void *data = bind_weight(m_, weights, i, owned, /*cache_in_set=*/false);
    CUdeviceptr dst = weight_memory_.ptr() + offsets[i];
    check(cu_.cuMemcpyHtoD(dst, data, weight_bytes(m_.weights[i])),
          cat("uploading weight '", m_.weights[i].name, "'"));
    weight_table_.push_back(as_pointer(dst));
  }

  kv_cache_ = DeviceBuffer(cu_, m_.kv_cache_bytes, describe_kv_cache(m_).c_str());
  uint64_t context_bytes = static_cast<uint64_t>(m_.context_length) * sizeof(int32_t);
  tokens_ = DeviceBuffer(cu_, context_bytes, "token ids");
  positions_ = DeviceBuffer(cu_, context_bytes, "positions");
  uint64_t row_bytes = static_cast<uint64_t>(m_.vocab_size) * sizeof(float);
  decode_logits_ = DeviceBuffer(cu_, row_bytes, "logits");
  reserved_ = DeviceBuffer(cu_, ScratchArena::kAlignment, "a reserved scratch block");
  sampled_token_ = DeviceBuffer(cu_, sizeof(int32_t), "the sampled token");
  staging_ = PinnedBuffer(cu_, 3 * sizeof(int32_t), "the decode inputs and the sampled token");
  logits_ = PinnedBuffer(cu_, row_bytes, "logits");
  page_table_ = make_page_table(m_);
  clear_kv_cache();

  // The first scratch chunk now, so that the first call does not pay for
  // (and a timed prefill does not include) a device allocation.
  std::string error;
  if (!arena_.alloc(1, &error))
    fail(LLMC_ERR_OUT_OF_MEMORY, "allocating GPU scratch memory: ", error);
  arena_.reset();
  sampling_ = std::make_unique<CudaSamplingKernels>(*module_, m_.vocab_size);

  table_.alloc = &CudaExecutor::api_alloc;
  table_.launch = &CudaExecutor::api_launch;
  table_.copy = &CudaExecutor::api_copy;
  table_.ctx = this;
  table_.release = &CudaExecutor::api_release;
}

CudaExecutor::~CudaExecutor() {
  // Errors are ignored here: the context may already be broken, and the
  // buffers and the stream (members, released after this body, in the
  // context made current here) go either way.
  cu_.cuCtxSetCurrent(module_->context());
  cu_.cuStreamSynchronize(stream_);
  if (graph_)
    cu_.cuGraphExecDestroy(graph_);
  if (profiler_) {
    try {
      std::string table =
          profiler_->report(cat("CUDA kernel times of '", m_.name, "' on ",
                                description_, " (cuEventElapsedTime per launch)"));
      std::fputs(table.c_str(), stderr); // one write: sessions do not interleave
    } catch (...) {
      // Out of memory while formatting: no table.
    }
    profiler_.reset(); // its events, while the context is current
  }
}

void CudaExecutor::check(CUresult result, const std::string &what) {
  cuda_check(cu_, result, what);
}

void CudaExecutor::record(const std::string &message) noexcept {
  if (call_error_.empty()) {
    try {
      call_error_ = message;
    } catch (...) {
      // Out of memory while recording: keep a short fixed message.
      call_error_.assign("out of memory");
    }
  }
}

void *CudaExecutor::api_alloc(void *ctx, uint64_t bytes) noexcept {
  auto *self = static_cast<CudaExecutor *>(ctx);
  try {
    if (self->call_error_.empty()) {
      std::string error;
      uint64_t p = self->arena_.alloc(bytes, &error);
      if (p)
        return as_pointer(p);
      self->record(cat("scratch allocation of ", bytes, " bytes failed: ", error));
    }
  } catch (...) {
    self->record("scratch allocation failed: out of host memory");
  }
  return as_pointer(self->reserved_.ptr());
}

void CudaExecutor::api_release(void *ctx, void *ptr) noexcept {
  auto *self = static_cast<CudaExecutor *>(ctx);
  try {
    // After an error every alloc returned the reserved block.
    if (!self->call_error_.empty() || as_device(ptr) == self->reserved_.ptr())
      return;
    std::string error;
    if (!self->arena_.release(as_device(ptr), &error))
      self->record(error);
  } catch (...) {
    self->record("scratch release failed: out of host memory");
  }
}

void CudaExecutor::api_launch(void *ctx, const char *name, uint32_t grid_x,
                              uint32_t grid_y, uint32_t grid_z,
                              uint32_t block_x, uint32_t block_y,
                              uint32_t block_z, uint32_t shared_bytes,
                              void **params) noexcept {
  auto *self = static_cast<CudaExecutor *>(ctx);
  try {
    if (!self->call_error_.empty())
      return;
    if (!name) {
      self->record("launch of a kernel with a NULL name");
      return;
    }
    std::string error;
    CUfunction f = self->module_->function(name, shared_bytes, &error);
    if (!f) {
      self->record(error);
      return;
    }
    CudaProfiler *profiler = self->profiler_.get();
    if (profiler && !profiler->before_launch(self->stream_, &error)) {
      self->record(error);
      return;
    }
    CUresult r = self->cu_.cuLaunchKernel(f, grid_x, grid_y, grid_z, block_x,
                                          block_y, block_z, shared_bytes,
                                          self->stream_, params, nullptr);
    if (r != CUDA_SUCCESS)
      self->record(cat("launching kernel '", name, "' (grid ", grid_x, "x",
                       grid_y, "x", grid_z, ", block ", block_x, "x", block_y,
                       "x", block_z, ", ", shared_bytes,
                       " bytes of shared memory): ",
                       cuda_error_text(self->cu_, r)));
    else if (profiler && !profiler->after_launch(name, self->stream_, &error))
      self->record(error);
  } catch (...) {
    self->record("kernel launch failed: out of host memory");
  }
}

void CudaExecutor::api_copy(void *ctx, void *dst, const void *src,
                            uint64_t bytes) noexcept {
  auto *self = static_cast<CudaExecutor *>(ctx);
  try {
    if (!self->call_error_.empty() || bytes == 0)
      return;
    if (!dst || !src) {
      self->record(cat("copy of ", bytes, " bytes with a NULL pointer"));
      return;
    }
    CUresult r = self->cu_.cuMemcpyDtoDAsync(as_device(dst), as_device(src),
                                             bytes, self->stream_);
    if (r != CUDA_SUCCESS)
      self->record(cat("device-to-device copy of ", bytes, " bytes: ",
                       cuda_error_text(self->cu_, r)));
  } catch (...) {
    self->record("copy failed: out of host memory");
  }
}

void CudaExecutor::begin() {
  if (!broken_.empty())
    fail(LLMC_ERR_INTERNAL, "the session's GPU context failed earlier (",
         broken_, "); destroy the session");
  module_->make_current();
  if (!pending_.empty()) {
    std::string message = std::move(pending_);
    pending_.clear();
    fail(LLMC_ERR_INTERNAL, message);
  }
}

void CudaExecutor::prepare_call() {
  *program_.host_api_slot() = &table_;
  arena_.reset();
  call_error_.clear();
  if (profiler_)
    profiler_->begin_call();
}

void CudaExecutor::check_call(int32_t status, const char *entry) {
  check_entry_status(m_, status, entry);
  if (!call_error_.empty())
    fail(LLMC_ERR_INTERNAL, "the ", entry, " entry point of '", m_.name,
         "' failed on the GPU: ", call_error_);
}

void CudaExecutor::synchronize(const char *step) {
  CUresult r = cu_.cuStreamSynchronize(stream_);
  if (r == CUDA_SUCCESS)
    return;
  broken_ = cat(step, ": ", cuda_error_text(cu_, r));
  fail(LLMC_ERR_INTERNAL, "CUDA error while ", step, " of '", m_.name, "': ",
       cuda_error_text(cu_, r));
}

void CudaExecutor::compact_scratch() {
  if (!arena_.compact())
    return;
  if (graph_) {
    cu_.cuGraphExecDestroy(graph_);
    graph_ = nullptr;
  }
  decode_calls_ = 0;
}

float *CudaExecutor::host_buffer(size_t bytes) {
  if (logits_.size() < bytes)
    logits_ = PinnedBuffer(cu_, bytes, "logits");
  return static_cast<float *>(logits_.data());
}

const float *CudaExecutor::prefill(const int32_t *tokens,
                                   const int32_t *positions, size_t n,
                                   LogitRows rows) {
  begin();
  last_row_ = 0;
  host_row_ = nullptr;
  uint64_t in_bytes = n * sizeof(int32_t);
  uint64_t row_bytes = static_cast<uint64_t>(m_.vocab_size) * sizeof(float);
  // Only the rows asked for are computed (the entry point's logit_rows): a
  // long prompt's logits are large (512 tokens x 128K vocab = 256 MiB), and
  // a generation needs the last one.
  bool all_rows = rows == LogitRows::All;
  size_t logit_rows = all_rows ? n : 1;
  uint64_t out_bytes = logit_rows * row_bytes;
  // Every call ends synchronized, so nothing in flight uses the old buffer.
  if (prefill_logits_.size() < out_bytes)
    prefill_logits_ = DeviceBuffer(cu_, out_bytes, "prefill logits");
  CUdeviceptr last = prefill_logits_.ptr() + out_bytes - row_bytes;
  float *out = rows == LogitRows::None ? nullptr : host_buffer(out_bytes);
  check(cu_.cuMemcpyHtoDAsync(tokens_.ptr(), tokens, in_bytes, stream_),
        "copying token ids to the GPU");
  check(cu_.cuMemcpyHtoDAsync(positions_.ptr(), positions, in_bytes, stream_),
        "copying positions to the GPU");
  {
    std::lock_guard<std::mutex> lock(program_.entry_mutex());
    prepare_call();
    int32_t status = model_->prefill()(
        static_cast<const int32_t *>(as_pointer(tokens_.ptr())),
        static_cast<const int32_t *>(as_pointer(positions_.ptr())),
        static_cast<int64_t>(n), static_cast<int64_t>(logit_rows),
        as_pointer(kv_cache_.ptr()),
        weight_table_.data(), static_cast<float *>(as_pointer(prefill_logits_.ptr())));
    check_call(status, "prefill");
  }
  if (out)
    check(cu_.cuMemcpyDtoHAsync(out, prefill_logits_.ptr(), out_bytes, stream_),
          "copying logits from the GPU");
  synchronize("running prefill");
  compact_scratch();
  if (profiler_)
    profiler_->end_call(CudaProfiler::Prefill);
  last_row_ = last;
  host_row_ = out && all_rows ? out + (n - 1) * m_.vocab_size : out;
  return out;
}

int32_t CudaExecutor::call_decode() {
  return model_->decode()(
      static_cast<const int32_t *>(as_pointer(tokens_.ptr())),
      static_cast<const int32_t *>(as_pointer(positions_.ptr())),
      as_pointer(kv_cache_.ptr()), weight_table_.data(),
      static_cast<float *>(as_pointer(decode_logits_.ptr())));
}

void CudaExecutor::capture_decode() {
  std::unique_lock<std::mutex> lock(program_.entry_mutex());
  prepare_call();
  // Thread-local mode: a host API call on this thread that cannot be
  // captured (an allocation) fails the capture instead of running; other
  // threads (other sessions) are unaffected.
  std::string problem;
  CUgraph graph = nullptr;
  CUresult started =
      cu_.cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  if (started != CUDA_SUCCESS) {
    problem = cat("cuStreamBeginCapture: ", cuda_error_text(cu_, started));
  } else {
    int32_t status = call_decode();
    CUresult end = cu_.cuStreamEndCapture(stream_, &graph);
    if (status != 0) {
      // The entry point refused the step: not a capture problem, and
      // nothing ran. Report it as the uncaptured call would.
      if (graph)
        cu_.cuGraphDestroy(graph);
      check_call(status, "decode");
    }
    if (!call_error_.empty())
      problem = call_error_;
    else if (end != CUDA_SUCCESS)
      problem = cat("cuStreamEndCapture: ", cuda_error_text(cu_, end));
  }
  CUgraphExec exec = nullptr;
  if (problem.empty()) {
    CUresult r = cu_.cuGraphInstantiateWithFlags(&exec, graph, 0);
    if (r != CUDA_SUCCESS)
      problem = cat("cuGraphInstantiateWithFlags: ", cuda_error_text(cu_, r));
  }
  if (graph)
    cu_.cuGraphDestroy(graph); // the executable graph does not need it
  if (!problem.empty()) {
    // A failed capture ran nothing (captured work only runs when the graph
    // is launched), so the step runs now through the host code, as every
    // later one will: the session goes on without graphs, a little slower,
    // instead of failing. One stderr line says why.
    graphs_ = false;
    std::string warning = cat("llmc: warning: capturing the decode step of '",
                              m_.name, "' as a CUDA graph failed (", problem,
                              "); decoding without CUDA graphs\n");
    std::fputs(warning.c_str(), stderr); // one write: sessions do not interleave
    prepare_call();
    check_call(call_decode(), "decode");
    return;
  }
  lock.unlock();
  graph_ = exec;
  check(cu_.cuGraphLaunch(graph_, stream_), "launching the decode graph");
}

void CudaExecutor::enqueue_decode(int32_t token, int32_t position) {
  last_row_ = 0;
  host_row_ = nullptr;
  // Pinned staging: the copies are asynchronous, and the previous call has
  // synchronized, so the buffer is free to overwrite.
  auto *in = static_cast<int32_t *>(staging_.data());
  in[0] = token;
  in[1] = position;
  check(cu_.cuMemcpyHtoDAsync(tokens_.ptr(), &in[0], sizeof(int32_t), stream_),
        "copying the token id to the GPU");
  check(cu_.cuMemcpyHtoDAsync(positions_.ptr(), &in[1], sizeof(int32_t), stream_),
        "copying the position to the GPU");
  if (graph_) {
    check(cu_.cuGraphLaunch(graph_, stream_), "launching the decode graph");
  } else if (graphs_ && decode_calls_ > 0) {
    capture_decode();
  } else {
    std::lock_guard<std::mutex> lock(program_.entry_mutex());
    prepare_call();
    check_call(call_decode(), "decode");
  }
  last_row_ = decode_logits_.ptr();
}

const float *CudaExecutor::decode(int32_t token, int32_t position,
                                  bool host_logits) {
  begin();
  size_t row_bytes = static_cast<size_t>(m_.vocab_size) * sizeof(float);
  float *out = host_logits ? host_buffer(row_bytes) : nullptr;
  enqueue_decode(token, position);
  if (out)
    check(cu_.cuMemcpyDtoHAsync(out, decode_logits_.ptr(), row_bytes, stream_),
          "copying logits from the GPU");
  synchronize("running a decode step");
  compact_scratch();
  ++decode_calls_;
  if (profiler_)
    profiler_->end_call(CudaProfiler::Decode);
  host_row_ = out;
  return out;
}

const float *CudaExecutor::last_logits() {
  if (host_row_)
    return host_row_;
  begin();
  if (!last_row_)
    fail(LLMC_ERR_INTERNAL, "no logits on the GPU to copy back");
  size_t row_bytes = static_cast<size_t>(m_.vocab_size) * sizeof(float);
  float *out = host_buffer(row_bytes);
  check(cu_.cuMemcpyDtoHAsync(out, last_row_, row_bytes, stream_),
        "copying logits from the GPU");
  synchronize("copying logits from the GPU");
  host_row_ = out;
  return out;
}

void CudaExecutor::enqueue_sample(const DeviceSampling &plan, Sampler &sampler) {
  if (!last_row_)
    fail(LLMC_ERR_INTERNAL, "no logits on the GPU to sample");
  const char *name = sampling_->name(plan.kernel);
  // Drawn only now, once the step before has been enqueued: a step that
  // fails does not move the sampler's stream.
  float u = plan.kernel == DeviceKernel::TopKTopP ? sampler.draw_unit() : 0.0f;
  std::string error;
  CudaProfiler *profiler = profiler_.get();
  if (!profiler || profiler->before_launch(stream_, &error)) {
    CUresult r = sampling_->launch(plan, u, last_row_, sampled_token_.ptr(), stream_);
    if (r != CUDA_SUCCESS)
      error = cat("launching the sampling kernel '", name, "' of '", m_.name,
                  "': ", cuda_error_text(cu_, r));
    else if (profiler)
      profiler->after_launch(name, stream_, &error);
  }
  if (error.empty()) {
    auto *staged = static_cast<int32_t *>(staging_.data());
    CUresult r = cu_.cuMemcpyDtoHAsync(&staged[2], sampled_token_.ptr(),
                                       sizeof(int32_t), stream_);
    if (r != CUDA_SUCCESS)
      error = cat("copying the sampled token from the GPU: ", cuda_error_text(cu_, r));
  }
  if (!error.empty()) {
    cu_.cuStreamSynchronize(stream_); // its error, if any, comes next call
    fail(LLMC_ERR_INTERNAL, error);
  }
}

int32_t CudaExecutor::sampled_token() const {
  return static_cast<const int32_t *>(staging_.data())[2];
}

int32_t CudaExecutor::sample(const DeviceSampling &plan, Sampler &sampler) {
  begin();
  if (profiler_)
    profiler_->begin_call();
  enqueue_sample(plan, sampler);
  synchronize("sampling a token");
  if (profiler_)
    profiler_->end_call(CudaProfiler::Sample);
  return sampled_token();
}

int32_t CudaExecutor::decode_sample(int32_t token, int32_t position,
                                    const DeviceSampling &plan, Sampler &sampler) {
  begin();
  enqueue_decode(token, position);
  size_t split = profiler_ ? profiler_->launches() : 0;
  enqueue_sample(plan, sampler);
  synchronize("running a decode step");
  compact_scratch();
  ++decode_calls_;
  if (profiler_)
    profiler_->end_call(CudaProfiler::Decode, split, CudaProfiler::Sample);
  return sampled_token();
}

void CudaExecutor::clear_kv_cache() {
  check(cu_.cuMemsetD8Async(kv_cache_.ptr(), 0, kv_cache_.size(), stream_),
        "zeroing the KV cache");
  if (!page_table_.empty())
    check(cu_.cuMemcpyHtoDAsync(kv_cache_.ptr(), page_table_.data(),
                                page_table_.size() * sizeof(int32_t), stream_),
          "writing the KV cache's page table");
  synchronize("zeroing the KV cache");
}

void CudaExecutor::reset() {
  // No status to return (llmc_session_reset is void): a failure is kept and
  // reported by the next call.
  try {
    last_row_ = 0;
    host_row_ = nullptr;
    begin();
    clear_kv_cache();
  } catch (const Error &e) {
    if (broken_.empty() && pending_.empty())
      pending_ = e.what();
  } catch (...) {
    // llmc_session_reset cannot report anything; keep the session usable
    // for the next call to fail cleanly.
    if (broken_.empty() && pending_.empty())
      pending_ = "resetting the KV cache failed: out of host memory";
  }
}

} // namespace

std::unique_ptr<Executor> make_cuda_executor(std::shared_ptr<const Model> model,
                                             WeightSet &weights) {
  if (!model->cuda())
    fail(LLMC_ERR_INTERNAL, "model '", model->manifest().name,
         "' has no CUDA program");
  return std::make_unique<CudaExecutor>(std::move(model), weights);
}

} // namespace llmc::rt
