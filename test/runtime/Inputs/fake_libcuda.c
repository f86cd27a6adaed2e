/* fake_libcuda.c: a CPU stand-in for libcuda.so.1, for testing the runtime's
 * CUDA backend on machines without a GPU (LLMC_CUDA_DRIVER=<this .so>).
 *
 * Device memory is host memory; "kernels" are host functions named by the
 * fake images of mock_cuda_model.c (fake_cuda.h). Work runs when it is
 * enqueued, except on a capturing stream, where it is recorded into a graph
 * (kernel parameters copied by value, as the driver does) and run by
 * cuGraphLaunch. The fake is strict where the real driver is:
 *   - calls that need a context fail with CUDA_ERROR_INVALID_CONTEXT unless
 *     one is current on the calling thread;
 *   - copies and memsets must stay inside one live allocation (else abort);
 *   - while a thread-local capture is in progress on this thread,
 *     allocations, frees and synchronization fail with
 *     CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidate the capture;
 *   - cubins load only on their own compute capability (or a newer minor of
 *     the same major), PTX on any newer one;
 *   - new device memory is filled with 0xff (NaN as floats), not zeros.
 * Time is simulated: a clock that each kernel execution advances by 10 us
 * per kernel parameter (nothing else takes time), which events record
 * when they execute in stream order, so cuEventElapsedTime around a launch
 * gives that kernel's fixed "duration".
 * Environment: FAKE_CUDA_INIT_ERROR=<code> (cuInit's result),
 * FAKE_CUDA_DEVICES=<n> (default 1), FAKE_CUDA_CC=<sm> (default 90),
 * FAKE_CUDA_REJECT=cubin|ptx|all (loads of that format fail),
 * FAKE_CUDA_FAIL_KERNEL=<name> (its launches fail),
 * FAKE_CUDA_MEMORY=<bytes> (the device's memory: a cuMemAlloc that would
 * hold more in all fails with CUDA_ERROR_OUT_OF_MEMORY),
 * FAKE_CUDA_FAULT_AFTER=<n> (the n-th kernel execution "faults": the next
 * synchronization returns CUDA_ERROR_ILLEGAL_ADDRESS),
 * FAKE_CUDA_FAIL_CAPTURE=begin|end (cuStreamBeginCapture fails with
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, or cuStreamEndCapture with
 * CUDA_ERROR_STREAM_CAPTURE_INVALIDATED; nothing captured runs),
 * FAKE_CUDA_NOOP_IMAGES=1 (an image that is no fake one, real PTX or a
 * cubin, loads, and every kernel it is asked for does nothing: a dry run of
 * programs that launch real kernels, which reads all their input and
 * computes nothing),
 * FAKE_CUDA_LOG=1 (one stderr line per load, capture and graph launch, and a
 * summary at exit: live allocations, context references, launches, events),
 * FAKE_CUDA_TRACE=1 (one stderr line per kernel and device-to-host copy as
 * it executes, graph replays included: which kernels ran and how many
 * bytes came back).
 * Thread-safe: every entry point runs under one lock; the current context
 * and the capture in progress are per thread, as in the driver. */
#define _GNU_SOURCE /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#include "fake_cuda.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

enum {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  NOT_INITIALIZED = 3,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  INVALID_IMAGE = 200,
  INVALID_CONTEXT = 201,
  NO_BINARY_FOR_GPU = 209,
  INVALID_HANDLE = 400,
  NOT_FOUND = 500,
  ILLEGAL_ADDRESS = 700,
  CAPTURE_UNSUPPORTED = 900,
  CAPTURE_INVALIDATED = 901,
};

static const struct {
  int code;
  const char *name, *text;
} kErrors[] = {
    {SUCCESS, "CUDA_SUCCESS", "no error"},
    {INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
};

/* ---- state ---------------------------------------------------------------- */

static pthread_mutex_t g_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static void unlock(int *unused) {
  (void)unused;
  pthread_mutex_unlock(&g_lock);
}
/* Holds the lock until the end of the enclosing entry point. */
#define LOCKED                                                                 \
  int lock_scope_ __attribute__((cleanup(unlock))) =                           \
      (pthread_mutex_lock(&g_lock), 0);                                        \
  (void)lock_scope_

struct alloc {
  char *base;
  size_t bytes;
  int host; /* cuMemAllocHost */
  struct alloc *next;
};

struct event {
  int recorded;   /* has executed at least once */
  double time_us; /* the simulated clock when it last executed */
};

enum op_kind { OP_KERNEL, OP_COPY, OP_SET, OP_EVENT };
struct op {
  enum op_kind kind;
  const struct fake_kernel *kernel;
  struct event *event;
  unsigned char args[FAKE_MAX_PARAMS][16];
  char *dst;
  const char *src;
  size_t bytes;
  unsigned char value;
  int to_host; /* OP_COPY: device-to-host */
};

struct graph {
  struct op *ops;
  size_t n, cap;
};

struct stream {
  int capturing;
  int invalidated;
  struct graph *graph;
};

struct module {
  const struct fake_image *image;
};

static int g_initialized;
static int g_ctx_refs;
static int g_ctx_object; /* its address is the primary context */
static __thread void *t_current_ctx;
static __thread struct stream *t_capturing; /* this thread's capture */
static struct alloc *g_allocs;
static long g_kernel_runs, g_graph_launches, g_captures, g_fault_pending;
static long g_events_live;
static double g_clock_us; /* simulated GPU time */

static int log_on(void) {
  const char *v = getenv("FAKE_CUDA_LOG");
  return v && *v == '1';
}

static int trace_on(void) {
  const char *v = getenv("FAKE_CUDA_TRACE");
  return v && *v == '1';
}

static long env_long(const char *name, long fallback) {
  const char *v = getenv(name);
  return v && *v ? strtol(v, NULL, 10) : fallback;
}

static void summary(void) {
  if (!log_on())
    return;
  long live = 0;
  for (struct alloc *a = g_allocs; a; a = a->next)
    ++live;
  fprintf(stderr,
          "fake-cuda: exit: %ld allocations live, %d context references, "
          "%ld kernel runs, %ld captures, %ld graph launches, %ld events live\n",
          live, g_ctx_refs, g_kernel_runs, g_captures, g_graph_launches,
          g_events_live);
}

static int need_ctx(void) { return t_current_ctx == &g_ctx_object; }

/* An unsafe call during this thread's capture: fails and invalidates it. */
static int capture_forbids(void) {
  if (!t_capturing)
    return 0;
  t_capturing->invalidated = 1;
  return 1;
}

static struct alloc *find_alloc(const void *p, size_t bytes, int host) {
  for (struct alloc *a = g_allocs; a; a = a->next)
    if (a->host == host && (const char *)p >= a->base &&
        (const char *)p + bytes <= a->base + a->bytes)
      return a;
  return NULL;
}

static void check_range(const char *what, const void *p, size_t bytes) {
  if (!find_alloc(p, bytes, 0)) {
    fprintf(stderr, "fake-cuda: %s: [%p, +%zu) is not inside one device allocation\n",
            what, p, bytes);
    abort();
  }
}

static void run_op(const struct op *op) {
  switch (op->kind) {
  case OP_KERNEL: {
    void *params[FAKE_MAX_PARAMS];
    for (uint32_t i = 0; i < op->kernel->n_params; ++i)
      params[i] = (void *)op->args[i];
    if (trace_on())
      fprintf(stderr, "fake-cuda: kernel %s\n", op->kernel->name);
    op->kernel->fn(params);
    ++g_kernel_runs;
    g_clock_us += 10.0 * op->kernel->n_params;
    if (g_kernel_runs == env_long("FAKE_CUDA_FAULT_AFTER", -1))
      g_fault_pending = 1;
    break;
  }
  case OP_COPY:
    if (op->to_host && trace_on())
      fprintf(stderr, "fake-cuda: copy device-to-host %zu bytes\n", op->bytes);
    memmove(op->dst, op->src, op->bytes);
    break;
  case OP_SET:
    memset(op->dst, op->value, op->bytes);
    break;
  case OP_EVENT:
    op->event->recorded = 1;
    op->event->time_us = g_clock_us;
    break;
  }
}

/* Runs `op` now, or records it when `s` is capturing. */
static CUresult submit(struct stream *s, const struct op *op) {
  if (s && s->capturing) {
    struct graph *g = s->graph;
    if (g->n == g->cap) {
      g->cap = g->cap ? 2 * g->cap : 16;
      g->ops = realloc(g->ops, g->cap * sizeof *g->ops);
    }
    g->ops[g->n++] = *op;
    return SUCCESS;
  }
  run_op(op);
  return SUCCESS;
}

/* ---- errors, init, devices ----------------------------------------------- */

CUresult cuGetErrorName(CUresult error, const char **name) {
  LOCKED;
  for (size_t i = 0; i < sizeof kErrors / sizeof kErrors[0]; ++i)
    if (kErrors[i].code == error) {
      *name = kErrors[i].name;
      return SUCCESS;
    }
  *name = NULL;
  return INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  LOCKED;
  for (size_t i = 0; i < sizeof kErrors / sizeof kErrors[0]; ++i)
    if (kErrors[i].code == error) {
      *text = kErrors[i].text;
      return SUCCESS;
    }
  *text = NULL;
  return INVALID_VALUE;
}

CUresult cuInit(unsigned flags) {
  LOCKED;
  if (flags != 0)
    return INVALID_VALUE;
  long forced = env_long("FAKE_CUDA_INIT_ERROR", 0);
  if (forced)
    return (CUresult)forced;
  if (!g_initialized)
    atexit(summary);
  g_initialized = 1;
  return SUCCESS;
}

CUresult cuDriverGetVersion(int *version) {
  LOCKED;
  *version = 13000;
  return SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  LOCKED;
  if (!g_initialized)
    return NOT_INITIALIZED;
  *count = (int)env_long("FAKE_CUDA_DEVICES", 1);
  return SUCCESS;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  LOCKED;
  if (!g_initialized)
    return NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= env_long("FAKE_CUDA_DEVICES", 1))
    return INVALID_DEVICE;
  *device = ordinal;
  return SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  LOCKED;
  (void)device;
  long sm = env_long("FAKE_CUDA_CC", 90);
  if (attribute == 75) /* COMPUTE_CAPABILITY_MAJOR */
    *value = (int)(sm / 10);
  else if (attribute == 76) /* COMPUTE_CAPABILITY_MINOR */
    *value = (int)(sm % 10);
  else
    return INVALID_VALUE;
  return SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, int device) {
  LOCKED;
  snprintf(name, (size_t)len, "Fake GPU %d", device);
  return SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int device) {
  LOCKED;
  (void)device;
  ++g_ctx_refs;
  *ctx = &g_ctx_object;
  return SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  LOCKED;
  (void)device;
  if (g_ctx_refs <= 0)
    return INVALID_CONTEXT;
  --g_ctx_refs;
  return SUCCESS;
}

/* attention_gpu_check.cpp's context: the primary one, made current. */
CUresult cuCtxCreate_v2(void **ctx, unsigned flags, int device) {
  LOCKED;
  (void)flags;
  (void)device;
  ++g_ctx_refs;
  *ctx = t_current_ctx = &g_ctx_object;
  return SUCCESS;
}

CUresult cuCtxSetCurrent(void *ctx) {
  LOCKED;
  if (ctx && (ctx != &g_ctx_object || g_ctx_refs <= 0))
    return INVALID_CONTEXT;
  t_current_ctx = ctx;
  return SUCCESS;
}

/* ---- modules ----------------------------------------------------------------- */

static int noop_images(void) {
  const char *v = getenv("FAKE_CUDA_NOOP_IMAGES");
  return v && *v == '1';
}

/* Every kernel of a FAKE_CUDA_NOOP_IMAGES module: no parameters are copied
 * and nothing runs. */
static void noop_kernel(void **params) { (void)params; }
static const struct fake_kernel kNoopKernel = {"no-op", noop_kernel, 0, {0}};

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n_options,
                            int *options, void **values) {
  LOCKED;
  if (!need_ctx())
    return INVALID_CONTEXT;
  const struct fake_image *img = image;
  char arch[16] = {0}, format[16] = {0};
  if (strncmp(img->text, "\177ELF llmc-fake ", 15) != 0 ||
      sscanf(img->text + 15, "%15s %15s", arch, format) != 2) {
    if (!noop_images())
      return INVALID_IMAGE;
    struct module *m = malloc(sizeof *m);
    m->image = NULL;
    *module = m;
    if (log_on())
      fprintf(stderr, "fake-cuda: loaded a real image as no-op kernels\n");
    return SUCCESS;
  }
  int img_sm = atoi(arch + 3);
  long sm = env_long("FAKE_CUDA_CC", 90);
  int cubin = strcmp(format, "cubin") == 0;
  int fits = cubin ? (img_sm / 10 == sm / 10 && img_sm <= sm) : img_sm <= sm;
  const char *reject = getenv("FAKE_CUDA_REJECT");
  int rejected = reject && (strcmp(reject, "all") == 0 || strcmp(reject, format) == 0);
  if (!fits || rejected) {
    /* Fill the JIT error log the runtime passes, as ptxas would. */
    for (unsigned i = 0; i < n_options; ++i)
      if (options[i] == 5 /* CU_JIT_ERROR_LOG_BUFFER */) {
        size_t size = 0;
        for (unsigned j = 0; j < n_options; ++j)
          if (options[j] == 6)
            size = (size_t)(uintptr_t)values[j];
        if (size)
          snprintf(values[i], size, "fake-cuda rejects %s %s", arch, format);
      }
    return NO_BINARY_FOR_GPU;
  }
  struct module *m = malloc(sizeof *m);
  m->image = img;
  *module = m;
  if (log_on())
    fprintf(stderr, "fake-cuda: loaded %s %s on sm_%ld\n", arch, format, sm);
  return SUCCESS;
}

CUresult cuModuleUnload(void *module) {
  LOCKED;
  free(module);
  return SUCCESS;
}

CUresult cuModuleGetFunction(const struct fake_kernel **function, void *module,
                             const char *name) {
  LOCKED;
  if (!need_ctx())
    return INVALID_CONTEXT;
  const struct fake_image *img = ((struct module *)module)->image;
  if (!img) { /* FAKE_CUDA_NOOP_IMAGES */
    *function = &kNoopKernel;
    return SUCCESS;
  }
  for (uint64_t i = 0; i < img->n_kernels; ++i)
    if (strcmp(img->kernels[i].name, name) == 0) {
      *function = &img->kernels[i];
      return SUCCESS;
    }
  return NOT_FOUND;
}

CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  LOCKED;
  (void)function;
  (void)attribute;
  return value > 227 * 1024 ? INVALID_VALUE : SUCCESS;
}

/* ---- memory ------------------------------------------------------------------ */

static CUresult allocate(void **p, size_t bytes, int host) {
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (capture_forbids())
    return CAPTURE_UNSUPPORTED;
  if (bytes == 0)
    return INVALID_VALUE;
  if (!host) {
    long limit = env_long("FAKE_CUDA_MEMORY", -1);
    size_t held = 0;
    for (struct alloc *a = g_allocs; a; a = a->next)
      if (!a->host)
        held += a->bytes;
    if (limit >= 0 && (held > (size_t)limit || bytes > (size_t)limit - held))
      return OUT_OF_MEMORY;
  }
  char *base = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!base)
    return OUT_OF_MEMORY;
  memset(base, 0xff, bytes);
  struct alloc *a = malloc(sizeof *a);
  *a = (struct alloc){base, bytes, host, g_allocs};
  g_allocs = a;
  *p = base;
  return SUCCESS;
}

static CUresult release(void *p, int host) {
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (capture_forbids())
    return CAPTURE_UNSUPPORTED;
  for (struct alloc **link = &g_allocs; *link; link = &(*link)->next)
    if ((*link)->base == p && (*link)->host == host) {
      struct alloc *a = *link;
      *link = a->next;
      free(a->base);
      free(a);
      return SUCCESS;
    }
  fprintf(stderr, "fake-cuda: free of %p, which is not a live %s allocation\n",
          p, host ? "host" : "device");
  abort();
}

CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes) {
  LOCKED;
  void *p = NULL;
  CUresult r = allocate(&p, bytes, 0);
  if (r == SUCCESS)
    *ptr = (unsigned long long)(uintptr_t)p;
  return r;
}

CUresult cuMemFree_v2(unsigned long long ptr) {
  LOCKED;
  return release((void *)(uintptr_t)ptr, 0);
}

CUresult cuMemAllocHost_v2(void **ptr, size_t bytes) {
  LOCKED;
  return allocate(ptr, bytes, 1);
}

CUresult cuMemFreeHost(void *ptr) {
  LOCKED;
  return release(ptr, 1);
}

static CUresult copy(struct stream *s, void *dst, const void *src, size_t bytes,
                     int dst_device, int src_device) {
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (dst_device)
    check_range("copy destination", dst, bytes);
  if (src_device)
    check_range("copy source", src, bytes);
  struct op op = {.kind = OP_COPY, .dst = dst, .src = src, .bytes = bytes,
                  .to_host = src_device && !dst_device};
  return submit(s, &op);
}

CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t bytes) {
  LOCKED;
  if (capture_forbids())
    return CAPTURE_UNSUPPORTED;
  return copy(NULL, (void *)(uintptr_t)dst, src, bytes, 1, 0);
}

CUresult cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src,
                              size_t bytes, struct stream *s) {
  LOCKED;
  return copy(s, (void *)(uintptr_t)dst, src, bytes, 1, 0);
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t bytes,
                              struct stream *s) {
  LOCKED;
  return copy(s, dst, (const void *)(uintptr_t)src, bytes, 0, 1);
}

/* The synchronous calls of test/Target/CUDA/Inputs/kernel_manifest_runner.cpp
 * and attention_gpu_check.cpp (the default stream: work runs at once). */
CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes) {
  LOCKED;
  if (capture_forbids())
    return CAPTURE_UNSUPPORTED;
  return copy(NULL, dst, (const void *)(uintptr_t)src, bytes, 0, 1);
}

CUresult cuMemsetD8_v2(unsigned long long dst, unsigned char value, size_t bytes) {
  LOCKED;
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (capture_forbids())
    return CAPTURE_UNSUPPORTED;
  check_range("memset", (void *)(uintptr_t)dst, bytes);
  struct op op = {.kind = OP_SET, .dst = (char *)(uintptr_t)dst, .bytes = bytes,
                  .value = value};
  return submit(NULL, &op);
}

CUresult cuMemsetD32_v2(unsigned long long dst, unsigned value, size_t count) {
  LOCKED;
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (capture_forbids())
    return CAPTURE_UNSUPPORTED;
  check_range("memset", (void *)(uintptr_t)dst, count * 4);
  for (size_t i = 0; i < count; ++i)
    memcpy((char *)(uintptr_t)dst + 4 * i, &value, 4);
  return SUCCESS;
}

CUresult cuCtxSynchronize(void) {
  LOCKED;
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (capture_forbids())
    return CAPTURE_UNSUPPORTED;
  return g_fault_pending ? ILLEGAL_ADDRESS : SUCCESS;
}

CUresult cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src,
                              size_t bytes, struct stream *s) {
  LOCKED;
  return copy(s, (void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes, 1, 1);
}

CUresult cuMemsetD8Async(unsigned long long dst, unsigned char value,
                         size_t bytes, struct stream *s) {
  LOCKED;
  if (!need_ctx())
    return INVALID_CONTEXT;
  check_range("memset", (void *)(uintptr_t)dst, bytes);
  struct op op = {.kind = OP_SET, .dst = (char *)(uintptr_t)dst, .bytes = bytes,
                  .value = value};
  return submit(s, &op);
}

/* ---- streams, launches, graphs ---------------------------------------------- */

CUresult cuStreamCreate(struct stream **s, unsigned flags) {
  LOCKED;
  (void)flags;
  if (!need_ctx())
    return INVALID_CONTEXT;
  *s = calloc(1, sizeof **s);
  return SUCCESS;
}

CUresult cuStreamDestroy_v2(struct stream *s) {
  LOCKED;
  if (!need_ctx())
    return INVALID_CONTEXT;
  free(s);
  return SUCCESS;
}

CUresult cuStreamSynchronize(struct stream *s) {
  LOCKED;
  (void)s;
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (capture_forbids())
    return CAPTURE_UNSUPPORTED;
  return g_fault_pending ? ILLEGAL_ADDRESS : SUCCESS;
}

CUresult cuLaunchKernel(const struct fake_kernel *f, unsigned gx, unsigned gy,
                        unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, struct stream *s, void **params,
                        void **extra) {
  LOCKED;
  (void)shared;
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (!f || !gx || !gy || !gz || !bx || !by || !bz || extra || !params)
    return INVALID_VALUE;
  const char *fail = getenv("FAKE_CUDA_FAIL_KERNEL");
  if (fail && strcmp(fail, f->name) == 0)
    return INVALID_VALUE;
  struct op op = {.kind = OP_KERNEL, .kernel = f};
  for (uint32_t i = 0; i < f->n_params; ++i)
    memcpy(op.args[i], params[i], f->param_bytes[i]);
  return submit(s, &op);
}

/* FAKE_CUDA_FAIL_CAPTURE=begin|end: that capture call fails (begin: as a
 * driver without stream capture would; end: the capture is invalidated). */
static int capture_fails_at(const char *stage) {
  const char *v = getenv("FAKE_CUDA_FAIL_CAPTURE");
  return v && strcmp(v, stage) == 0;
}

CUresult cuStreamBeginCapture_v2(struct stream *s, int mode) {
  LOCKED;
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (mode != 1 /* THREAD_LOCAL */ || s->capturing || t_capturing)
    return INVALID_VALUE;
  if (capture_fails_at("begin"))
    return CAPTURE_UNSUPPORTED;
  s->capturing = 1;
  s->invalidated = 0;
  s->graph = calloc(1, sizeof *s->graph);
  t_capturing = s;
  return SUCCESS;
}

CUresult cuStreamEndCapture(struct stream *s, struct graph **graph) {
  LOCKED;
  if (!s->capturing)
    return INVALID_VALUE;
  s->capturing = 0;
  t_capturing = NULL;
  if (s->invalidated || capture_fails_at("end")) {
    free(s->graph->ops);
    free(s->graph);
    s->graph = NULL;
    *graph = NULL;
    return CAPTURE_INVALIDATED;
  }
  *graph = s->graph;
  s->graph = NULL;
  ++g_captures;
  if (log_on())
    fprintf(stderr, "fake-cuda: captured a graph of %zu operations\n", (*graph)->n);
  return SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(struct graph **exec, struct graph *graph,
                                     unsigned long long flags) {
  LOCKED;
  if (flags != 0 || !graph)
    return INVALID_VALUE;
  struct graph *e = calloc(1, sizeof *e);
  e->n = e->cap = graph->n;
  e->ops = malloc(graph->n * sizeof *e->ops + 1);
  memcpy(e->ops, graph->ops, graph->n * sizeof *e->ops);
  *exec = e;
  return SUCCESS;
}

CUresult cuGraphLaunch(struct graph *exec, struct stream *s) {
  LOCKED;
  (void)s;
  if (!need_ctx())
    return INVALID_CONTEXT;
  for (size_t i = 0; i < exec->n; ++i)
    run_op(&exec->ops[i]);
  ++g_graph_launches;
  return SUCCESS;
}

static CUresult destroy_graph(struct graph *g) {
  if (!g)
    return INVALID_VALUE;
  free(g->ops);
  free(g);
  return SUCCESS;
}

CUresult cuGraphExecDestroy(struct graph *exec) {
  LOCKED;
  return destroy_graph(exec);
}
CUresult cuGraphDestroy(struct graph *graph) {
  LOCKED;
  return destroy_graph(graph);
}

/* ---- events ------------------------------------------------------------------ */

CUresult cuEventCreate(struct event **e, unsigned flags) {
  LOCKED;
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (flags != 0 /* CU_EVENT_DEFAULT: the only kind that times */)
    return INVALID_VALUE;
  *e = calloc(1, sizeof **e);
  ++g_events_live;
  return SUCCESS;
}

CUresult cuEventRecord(struct event *e, struct stream *s) {
  LOCKED;
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (!e)
    return INVALID_HANDLE;
  struct op op = {.kind = OP_EVENT, .event = e};
  return submit(s, &op);
}

CUresult cuEventSynchronize(struct event *e) {
  LOCKED;
  if (!need_ctx())
    return INVALID_CONTEXT;
  return e ? SUCCESS : INVALID_HANDLE; /* work runs when enqueued */
}

static CUresult elapsed(float *ms, struct event *start, struct event *end) {
  if (!need_ctx())
    return INVALID_CONTEXT;
  if (!ms || !start || !end || !start->recorded || !end->recorded)
    return INVALID_HANDLE;
  *ms = (float)((end->time_us - start->time_us) / 1000.0);
  return SUCCESS;
}

CUresult cuEventElapsedTime_v2(float *ms, struct event *start, struct event *end) {
  LOCKED;
  return elapsed(ms, start, end);
}

CUresult cuEventElapsedTime(float *ms, struct event *start, struct event *end) {
  LOCKED;
  return elapsed(ms, start, end);
}

CUresult cuEventDestroy_v2(struct event *e) {
  LOCKED;
  if (!e)
    return INVALID_HANDLE;
  free(e);
  --g_events_live;
  return SUCCESS;
}
