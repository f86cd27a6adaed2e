// Shared parts of the llm.attention CUDA kernels: static parameters, key visibility, online softmax.
#ifndef LLMC_CODEGEN_CUDA_ATTENTIONKERNELS_H
#define LLMC_CODEGEN_CUDA_ATTENTIONKERNELS_H

#include "codegen/cuda/DeviceBuilder.h"
#include "codegen/cuda/KVCacheKernels.h"
#include "codegen/cuda/KernelModule.h"

#include <optional>

namespace llmc::cuda::attention {

/// Score of a masked key and the initial running maximum, as in the CPU
/// lowering: finite, so that exp(m_old − m_new) is exp(0) = 1 (never NaN)
/// while a row has seen no visible key, and far below any real score so
/// that exp(kMaskedScore − m) underflows to 0 once one is seen.
constexpr double kMaskedScore = -1.0e30;

/// f32 elements of one register chunk: a 16-byte shared-memory access.
constexpr int64_t kChunk = 4;

/// Largest head_dim with a specialization: multi-head latent attention's
/// kv_lora_rank + qk_rope_head_dim of DeepSeek-V2/V3 (512 + 64), whose
/// per-thread query and accumulator slices (36 f32 each at 16 lanes) the
/// flash kernel's wide tiling above 256 (one row per lane group, one key per
/// update, one block per SM) and the split-K kernel (one head per block) hold
/// without spilling.
constexpr int64_t kMaxHeadDim = 576;

/// Most query heads of one GQA group a block serves (each holds its query
/// and accumulator slices in registers); larger groups are split over
/// blocks, each reading the group's K/V.
constexpr int64_t kMaxHeadsPerBlock = 8;

/// The static parameters of one llm.attention, which name its kernels.
struct AttentionShape {
  int64_t batch;
  int64_t numHeads;
  int64_t numKvHeads;
  int64_t headDim;
  /// S, the keys of k and v (ShapedType::kDynamic when not static).
  int64_t keyCount;
  /// For K/V read from a paged cache (a paged llm.kv_view): its page size
  /// and pool size (0 for plain buffers). The kernels then take the K/V
  /// page pools (pages, page_size, Hkv, Dh) and, after them, the page
  /// table, and read key s of sequence b at getCacheReadIndex(b, s).
  int64_t pageSize = 0;
  int64_t pageCount = 0;
  /// Query heads per KV head: head h reads KV head h / groupSize.
  int64_t groupSize;
  /// Query heads of one prefill block: getHeadsPerBlock(groupSize,
  /// kMaxHeadsPerBlock). (The decode kernel picks its own.)
  int64_t headsPerBlock;
  bool causal;
  std::optional<int64_t> window;
  mlir::Type queryType;
  /// The K/V element type; for a quantized cache (`quantized`) the code
  /// type (i8 or f8E4M3FN), whose layer views the kernels then take as
  /// (.., kv_heads, head_dim + 4) bytes: each head row's codes and scale.
  mlir::Type kvType;
  bool quantized = false;
  /// The positions' integer type; null without positions.
  mlir::Type positionType;
  double scale;
  /// Gemma-2's score cap c (score = c · tanh(scale · q · k / c), before the
  /// mask), or none.
  std::optional<double> softcap;

  /// "d<Dh>_h<H>_kv<Hkv>_s<S>[_pg<page size>]_b<B>_<q type>_<kv
  /// type>_<mask>": every parameter a kernel is specialized to.
  std::string getNameSuffix() const;
  bool isPaged() const { return pageSize != 0; }
  /// The kernel's page table (its argument `table`; none unless paged).
  PageTable getPageTable(mlir::Value table) const {
    if (!isPaged())
      return {};
    return {table, pageSize, pageCount};
  }
};

/// A thread's share of one head_dim vector: `lanes` consecutive lanes
/// (a power of two dividing the warp) split it into chunks of kChunk f32;
/// memory is accessed in vectors of `vector` elements (4 or 8, one 16-byte
/// access for the narrowest type), interleaved over the lanes so that a
/// group's accesses are contiguous: lane l's vector j covers elements
/// [(j · lanes + l) · vector, + vector).
struct Slice {
  int64_t lanes;
  int64_t vector;
  int64_t headDim;

  /// Elements per lane.
  int64_t getElements() const { return headDim / lanes; }
  int64_t getChunks() const { return getElements() / kChunk; }
  int64_t getVectors() const { return getElements() / vector; }
  /// The element offset of the lane's vector `j` in the head_dim vector.
  mlir::Value getVectorOffset(DeviceBuilder &d, mlir::Value lane,
                              int64_t j) const;
};

/// Elements of one K/V load: 16 bytes of the element type, or for a
/// quantized cache kCodeLoadBytes codes; halved until it divides `elements`.
int64_t getKVLoadVector(const AttentionShape &shape, int64_t elements);

/// Query heads one block serves: the largest divisor of `groupSize` (so
/// they share one KV head) that is at most `maxHeads`.
int64_t getHeadsPerBlock(int64_t groupSize, int64_t maxHeads);

/// Lanes that share one head_dim vector: the largest power of two up to a
/// warp that leaves each lane about `targetElements` (never fewer) and a
/// whole number of chunks.
int64_t getLanesPerVector(int64_t headDim, int64_t targetElements);

/// Bytes of one load of quantized codes: a head row of head_dim codes and
/// a 4-byte scale (head_dim a multiple of kChunk) starts at a multiple of
/// 4 bytes, which allows 32-bit loads and no wider.
constexpr int64_t kCodeLoadBytes = 4;

/// A read of a quantized head row: its codes' type and its f32 scale.
struct KVCodes {
  mlir::Type codeType;
  mlir::Value scale;
};

/// The f32 scale of the quantized head row at `index` (its first indices
/// in the layer view `rows`, up to the KV head): one 32-bit load of the
/// bytes after the codes, assembled by codegen/common/KVQuantization.
mlir::Value loadRowScale(DeviceBuilder &d, const AttentionShape &shape,
                         mlir::Value rows, llvm::ArrayRef<mlir::Value> index);

/// `count` (a multiple of kCodeLoadBytes) codes of the head row at `index`
/// from byte `column` on, as 32-bit loads, each decoded
/// (codegen/common/KVQuantization) and multiplied by the row's scale, as
/// the CPU lowering does: vector<count x f32>.
mlir::Value loadDecodedCodes(DeviceBuilder &d, mlir::Value rows,
                             llvm::ArrayRef<mlir::Value> index,
                             mlir::Value column, int64_t count,
                             const KVCodes &codes);

/// Loads the lane's slice of the head_dim vector of `buffer` that starts at
/// `indices` (each vector's offset is added to the last one) and converts
/// it to f32 chunks; with `codes`, `buffer` holds quantized head rows and
/// the slice is their codes, decoded times the scale (loadDecodedCodes).
llvm::SmallVector<mlir::Value> loadSlice(DeviceBuilder &d, const Slice &slice,
                                         mlir::Value buffer,
                                         llvm::ArrayRef<mlir::Value> indices,
                                         mlir::Value lane,
                                         const KVCodes *codes = nullptr);
/// Stores f32 chunks as the lane's slice (converted to the buffer's type).
void storeSlice(DeviceBuilder &d, const Slice &slice,
                llvm::ArrayRef<mlir::Value> chunks, mlir::Value buffer,
                llvm::ArrayRef<mlir::Value> indices, mlir::Value lane);

/// Σ over the chunks of a · b, summed within the lane (the caller reduces
/// across the lanes that share the vector).
mlir::Value dotChunks(DeviceBuilder &d, llvm::ArrayRef<mlir::Value> a,
                      llvm::ArrayRef<mlir::Value> b);

/// Butterfly (shfl.sync.bfly) sum over aligned groups of `lanes` lanes;
/// every lane of a group receives its group's sum.
mlir::Value groupSum(DeviceBuilder &d, mlir::Value value, int64_t lanes);

/// `value` (f32 scalar or vector) from the lane `offset` away in xor.
mlir::Value shuffleXor(DeviceBuilder &d, mlir::Value value, int64_t offset);

/// How a kernel turns a dot product q · k into a score, from f32 kernel
/// arguments: dot · scale, or with a softcap cap · tanh(dot · scale) where
/// the `scale` argument is then scale / cap (one multiply per score either
/// way).
struct ScoreTransform {
  mlir::Value scale;
  /// The cap; null without softcapping.
  mlir::Value cap;

  /// Host side: the arguments (scale, or scale / cap and cap) for `shape`,
  /// passed after the kernel's buffers.
  static llvm::SmallVector<mlir::Value>
  getArgs(mlir::OpBuilder &b, mlir::Location loc, const AttentionShape &shape);
  /// Kernel side: the arguments getArgs passed, from `func`'s argument
  /// `arg` on (advanced past them).
  static ScoreTransform fromKernel(mlir::gpu::GPUFuncOp func, unsigned &arg,
                                   const AttentionShape &shape);
  mlir::Value apply(DeviceBuilder &d, mlir::Value dot) const;
};

/// [begin, end) of the keys a query at `position` sees, as the CPU lowering
/// defines them: every key [0, S) without `causal`; else keys s ≤ position
/// (end = position + 1 clamped to [0, S)) and, with a window W,
/// position − s < W (begin = max(position − W + 1, 0)). Empty when
/// begin ≥ end.
struct KeyRange {
  mlir::Value begin;
  mlir::Value end;
};
KeyRange getVisibleKeys(DeviceBuilder &d, const AttentionShape &shape,
                        mlir::Value position, mlir::Value keyCount);

/// The position of query t of batch b: positions[b, t] (sign-extended),
/// else t + S − T.
mlir::Value getQueryPosition(DeviceBuilder &d, mlir::Value positions,
                             mlir::Value b, mlir::Value t, mlir::Value keyCount,
                             mlir::Value queryCount);

/// The running online-softmax state of one query row: maximum score, sum
/// of exp(score − max) and Σ exp(score − max) · v as f32 chunks (or one f32
/// scalar per element).
struct SoftmaxState {
  mlir::Value max;
  mlir::Value sum;
  llvm::SmallVector<mlir::Value> acc;

  /// No key seen: kMaskedScore, 0, zeros shaped like `accTypes`.
  static SoftmaxState getEmpty(DeviceBuilder &d, mlir::TypeRange accTypes);
  /// (max, sum, acc...) for scf iter_args, and back.
  void appendTo(llvm::SmallVectorImpl<mlir::Value> &values) const;
  static SoftmaxState take(mlir::ValueRange &values, size_t accSize);
};

/// Adds a block of scores (already scaled, kMaskedScore where invisible)
/// and their value chunks: m_new = max(m, scores), the old sum and
/// accumulator rescaled by exp(m − m_new), p = exp(score − m_new) for
/// visible keys and exactly 0 for the others, acc += p · v. The kernels
/// pass only values of keys inside the range some query of the block sees
/// (a decode lane past its chunk re-reads a visible key; prefill stages
/// keys past the block's range as zeros): written cache rows when the
/// positions are consecutive, so p · v never meets the NaN bits of an
/// unwritten slot (the CPU lowering selects instead of multiplying).
SoftmaxState accumulate(DeviceBuilder &d, const SoftmaxState &state,
                        llvm::ArrayRef<mlir::Value> scores,
                        llvm::ArrayRef<mlir::Value> visible,
                        llvm::ArrayRef<llvm::SmallVector<mlir::Value>> values);

/// The state of the union of two disjoint key sets (max-rescaling).
SoftmaxState merge(DeviceBuilder &d, const SoftmaxState &a,
                   const SoftmaxState &b);

/// acc / sum per element, or 0 for a row that saw no visible key (sum 0),
/// as the CPU lowering writes it.
mlir::Value normalize(DeviceBuilder &d, mlir::Value acc, mlir::Value sum);

/// The prefill kernel (flash attention) and its launch; returns the
/// result buffer. `positions` may be null; `pageTable` is the page table
/// buffer of paged K/V (shape.isPaged()), else null.
mlir::Value emitFlashAttention(mlir::OpBuilder &b, mlir::Location loc,
                               KernelModule &kernels,
                               const AttentionShape &shape,
                               mlir::MemRefType resultType, mlir::Value q,
                               mlir::Value k, mlir::Value v,
                               mlir::Value pageTable, mlir::Value positions);

/// The decode kernels (split-K partials, then their combination) and their
/// launches for one query row per sequence and a static S (`pageTable` as
/// for emitFlashAttention).
mlir::Value emitDecodeAttention(mlir::OpBuilder &b, mlir::Location loc,
                                KernelModule &kernels,
                                const AttentionShape &shape,
                                mlir::MemRefType resultType, mlir::Value q,
                                mlir::Value k, mlir::Value v,
                                mlir::Value pageTable, mlir::Value positions);

} // namespace llmc::cuda::attention

#endif // LLMC_CODEGEN_CUDA_ATTENTIONKERNELS_H
