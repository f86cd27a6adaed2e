// Sampling kernels the runtime launches on a logits row: argmax and temperature
// / top-k / top-p draws.
//
// ABI (stable names, one CTA of 1024 threads each, launched with grid 1×1×1
// and block 1024×1×1; V is the model's vocabulary size). Every memref
// argument is passed as its full descriptor, expanded in this order:
// allocated pointer, aligned pointer, offset (i64), size (i64), stride (i64).
// The kernels index from the aligned pointer and ignore the offset, so a
// batch row is selected by advancing both pointers.
//
//   llmc_argmax_v<V>(memref<V x f32> logits, memref<1 x i32> token)
//     token[0] = the index of the largest logit; ties go to the lowest
//     index; NaN counts as −inf (all NaN or −inf: 0). Same as the host
//     sampler's greedy path.
//
//   llmc_top_k_top_p_v<V>(memref<V x f32> logits, f32 temperature,
//                         i32 top_k, f32 top_p, f32 u,
//                         memref<1 x i32> token)
//     The host sampler's draw (runtime/src/sampler.cpp) without the
//     repetition penalty (apply it to the logits first), with u ∈ [0, 1) the
//     uniform number the host sampler would draw:
//     - greedy (argmax) when temperature ≤ 0, top_k == 1, top_p ≤ 0, or every
//       logit is −inf / NaN;
//     - else p_i = exp((l_i − max) / T) with candidates ordered by p
//       (descending) then index (ascending);
//     - 1 < top_k ≤ 256 (or top_k ≥ V when V ≤ 256): the top_k candidates,
//       top-p prefix, inverse-CDF pick with u, all as the host does;
//     - top_k ≤ 0 or top_k ≥ V, and top_p ≥ 1: the whole vocabulary in index
//       order, as the host does;
//     - otherwise (top_k > 256, or no top_k with top_p < 1 on V > 256):
//       APPROXIMATE — only the 256 most probable tokens are considered. The
//       runtime should sample such configurations on the host.
//     Sums are f64 like the host's; the whole-vocabulary path groups them
//     per thread, so a draw can differ only when u·total lands within
//     rounding of a boundary.
#include "codegen/cuda/DeviceBuilder.h"
#include "codegen/cuda/LLMToCUDA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/bit.h"

#include <limits>

using namespace mlir;
using namespace llmc::cuda;

namespace {

/// One CTA covers the vocabulary: sampling runs once per token, so a single
/// block avoids a grid-wide reduction.
constexpr int64_t kBlockSize = 1024;
constexpr int64_t kNumWarps = kBlockSize / kWarpSize;
/// Most candidates the top-k path keeps: the size of its shared-memory
/// bitonic sort.
constexpr int64_t kMaxTopK = 256;
/// Bits per radix-select digit: 256 histogram bins, one per thread.
constexpr int64_t kDigitBits = 8;

/// Fixed-shape scf.if helpers (the bodies build their ops with the same
/// builder).
SmallVector<Value> buildIfElse(OpBuilder &b, Location loc, Value condition,
                               TypeRange types,
                               function_ref<SmallVector<Value>()> thenBody,
                               function_ref<SmallVector<Value>()> elseBody) {
  auto op = scf::IfOp::create(b, loc, types, condition, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(op.thenBlock());
  scf::YieldOp::create(b, loc, thenBody());
  b.setInsertionPointToStart(op.elseBlock());
  scf::YieldOp::create(b, loc, elseBody());
  return SmallVector<Value>(op.getResults());
}

void buildIf(OpBuilder &b, Location loc, Value condition,
             function_ref<void()> body) {
  auto op = scf::IfOp::create(b, loc, condition, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(op.thenBlock());
  body();
}

/// scf.for lb..ub step with loop-carried `init`; `body(iv, carried)` returns
/// the next values.
SmallVector<Value>
buildFor(OpBuilder &b, Location loc, Value lb, Value ub, Value step,
         ValueRange init,
         function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  auto loop = scf::ForOp::create(b, loc, lb, ub, step, init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  scf::YieldOp::create(b, loc,
                       body(loop.getInductionVar(), loop.getRegionIterArgs()));
  return SmallVector<Value>(loop.getResults());
}

/// Builds the bodies of the two kernels for a vocabulary of `vocab`.
class SamplingBuilder {
public:
  SamplingBuilder(OpBuilder &b, Location loc, Value logits, int64_t vocab)
      : b(b), loc(loc), d(b, loc), logits(logits), vocab(vocab) {
    tid = d.threadId();
  }

  /// (value, index) of the largest logit, NaN as −inf, lowest index among
  /// equals; every thread receives it. `values` / `indices`: workgroup
  /// buffers of kNumWarps f32 / i32. Contains barriers.
  std::pair<Value, Value> blockArgMax(Value values, Value indices);

  /// The top-k / top-p / temperature draw; thread 0 stores the token.
  void sample(Value maxLogit, Value argMax, Value temperature, Value topK,
              Value topP, Value u, Value out, ValueRange buffers);

  Value isThreadZero() {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                 d.index(0));
  }

private:
  struct Candidate {
    Value value; // f32
    Value index; // i32
  };
  /// The better of two candidates: larger value, then lower index.
  Candidate pick(Candidate a, Candidate c);
  Candidate shuffleXor(Candidate c, int32_t offset);
  Candidate warpArgMax(Candidate c);

  Value loadLogit(Value i);
  /// p_i = exp((l_i − max)·(1/T)), as the host sampler computes it.
  Value probability(Value i);
  /// The radix-select key of candidate i: (bits of p_i, 2^b − 1 − i), whose
  /// lexicographic order is the host sampler's (p descending, index
  /// ascending).
  std::pair<Value, Value> getKey(Value p, Value i);

  /// Loops i over [0, vocab) strided by the block; `body(i)`.
  void forEachToken(function_ref<void(Value)> body);

  /// The k-th largest key (k ≤ kMaxTopK) as (hi, lo): keys ≥ it are
  /// exactly the top k.
  std::pair<Value, Value> selectThreshold(Value k);
  void sortCandidates();
  /// Thread 0: top-p prefix and inverse-CDF pick over the k sorted
  /// candidates.
  void drawFromCandidates(Value k, Value topP, Value u, Value out);
  /// The whole vocabulary in index order.
  void drawFromVocabulary(Value u, Value out);

  Value i32(int64_t v) { return d.i32(static_cast<int32_t>(v)); }
  Value f64(double v) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  }
  Value toI32(Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
  }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value load(Value buffer, Value index) {
    return memref::LoadOp::create(b, loc, buffer, ValueRange{d.toIndex(index)});
  }
  void store(Value value, Value buffer, Value index) {
    memref::StoreOp::create(b, loc, value, buffer,
                            ValueRange{d.toIndex(index)});
  }

  OpBuilder &b;
  Location loc;
  DeviceBuilder d;
  Value logits;
  int64_t vocab;
  Value tid;
  // Set by sample().
  Value maxLogit, inverseTemperature;
  Value histogram, candidateKeys, candidateIndices, state, chunkSums;
};

SamplingBuilder::Candidate SamplingBuilder::pick(Candidate a, Candidate c) {
  Value larger = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                       c.value, a.value);
  Value equal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                      c.value, a.value);
  Value lower = cmpi(arith::CmpIPredicate::slt, c.index, a.index);
  Value takeC = arith::OrIOp::create(
      b, loc, larger, arith::AndIOp::create(b, loc, equal, lower));
  return {select(takeC, c.value, a.value), select(takeC, c.index, a.index)};
}

SamplingBuilder::Candidate SamplingBuilder::shuffleXor(Candidate c,
                                                       int32_t offset) {
  auto shuffle = [&](Value v) -> Value {
    return gpu::ShuffleOp::create(b, loc, v, d.i32(offset), d.i32(kWarpSize),
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  return {shuffle(c.value), shuffle(c.index)};
}

SamplingBuilder::Candidate SamplingBuilder::warpArgMax(Candidate c) {
  for (int32_t offset = kWarpSize / 2; offset > 0; offset /= 2)
    c = pick(c, shuffleXor(c, offset));
  return c;
}

Value SamplingBuilder::loadLogit(Value i) {
  Value l = memref::LoadOp::create(b, loc, logits, ValueRange{i});
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, l, l);
  return select(isNaN, d.f32(-std::numeric_limits<double>::infinity()), l);
}

void SamplingBuilder::forEachToken(function_ref<void(Value)> body) {
  auto loop =
      scf::ForOp::create(b, loc, tid, d.index(vocab), d.index(kBlockSize));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body(loop.getInductionVar());
}

std::pair<Value, Value> SamplingBuilder::blockArgMax(Value values,
                                                     Value indices) {
  Candidate init{d.f32(-std::numeric_limits<double>::infinity()),
                 i32(std::numeric_limits<int32_t>::max())};
  SmallVector<Value> best = buildFor(
      b, loc, tid, d.index(vocab), d.index(kBlockSize),
      ValueRange{init.value, init.index},
      [&](Value i, ValueRange carried) -> SmallVector<Value> {
        Candidate c = pick({carried[0], carried[1]}, {loadLogit(i), toI32(i)});
        return {c.value, c.index};
      });
  Candidate warpBest = warpArgMax({best[0], best[1]});
  // Lane 0 of each warp publishes; every warp then reduces the 32 partials
  // (kNumWarps == kWarpSize: one per lane).
  Value lane = d.laneId(), warp = d.warpId();
  buildIf(b, loc, cmpi(arith::CmpIPredicate::eq, lane, d.index(0)), [&] {
    store(warpBest.value, values, warp);
    store(warpBest.index, indices, warp);
  });
  d.barrier();
  Candidate blockBest = warpArgMax({load(values, lane), load(indices, lane)});
  d.barrier();
  return {blockBest.value, blockBest.index};
}

Value SamplingBuilder::probability(Value i) {
  Value shifted = arith::SubFOp::create(b, loc, loadLogit(i), maxLogit);
  return math::ExpOp::create(
      b, loc, arith::MulFOp::create(b, loc, shifted, inverseTemperature));
}

/// Bits of the index part of a key: enough for vocab − 1.
static int64_t getIndexBits(int64_t vocab) {
  return std::max<int64_t>(1, llvm::bit_width(uint64_t(vocab - 1)));
}

std::pair<Value, Value> SamplingBuilder::getKey(Value p, Value i) {
  Value hi = arith::BitcastOp::create(b, loc, b.getI32Type(), p);
  int64_t reversed = (int64_t(1) << getIndexBits(vocab)) - 1;
  Value lo = arith::SubIOp::create(b, loc, i32(reversed), toI32(i));
  return {hi, lo};
}

std::pair<Value, Value> SamplingBuilder::selectThreshold(Value k) {
  // Digits from the most significant: p's 32 bits, then the index bits.
  struct Digit {
    bool low;
    int64_t shift, width;
  };
  SmallVector<Digit> digits;
  for (int64_t shift = 32 - kDigitBits; shift >= 0; shift -= kDigitBits)
    digits.push_back({false, shift, kDigitBits});
  for (int64_t top = getIndexBits(vocab); top > 0;) {
    int64_t width = std::min(kDigitBits, top);
    digits.push_back({true, top - width, width});
    top -= width;
  }

  // (prefixHi, maskHi, prefixLo, maskLo, needed, done): the digits fixed
  // so far, how many keys with that prefix still belong to the top k, and
  // whether all of them do (the remaining digits are then left at 0).
  Value zero = i32(0);
  SmallVector<Value> selection{
      zero, zero, zero,
      zero, k,    arith::ConstantOp::create(b, loc, b.getBoolAttr(false))};
  SmallVector<Type> types(5, b.getI32Type());
  types.push_back(b.getI1Type());
  for (const Digit &digit : digits) {
    Value notDone = arith::XOrIOp::create(
        b, loc, selection[5],
        arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
    selection = buildIfElse(
        b, loc, notDone, types,
        [&]() -> SmallVector<Value> {
          Value prefixHi = selection[0], maskHi = selection[1];
          Value prefixLo = selection[2], maskLo = selection[3];
          Value needed = selection[4];
          int64_t bins = int64_t(1) << digit.width;
          buildIf(b, loc, cmpi(arith::CmpIPredicate::ult, tid, d.index(bins)),
                  [&] { store(zero, histogram, tid); });
          d.barrier();
          forEachToken([&](Value i) {
            auto [hi, lo] = getKey(probability(i), i);
            Value matchHi =
                cmpi(arith::CmpIPredicate::eq,
                     arith::AndIOp::create(b, loc, hi, maskHi), prefixHi);
            Value matchLo =
                cmpi(arith::CmpIPredicate::eq,
                     arith::AndIOp::create(b, loc, lo, maskLo), prefixLo);
            buildIf(
                b, loc, arith::AndIOp::create(b, loc, matchHi, matchLo), [&] {
                  Value word = digit.low ? lo : hi;
                  Value bin = arith::AndIOp::create(
                      b, loc,
                      arith::ShRUIOp::create(b, loc, word, i32(digit.shift)),
                      i32(bins - 1));
                  memref::AtomicRMWOp::create(
                      b, loc, arith::AtomicRMWKind::addi, i32(1), histogram,
                      ValueRange{d.toIndex(bin)});
                });
          });
          d.barrier();
          // Thread 0 walks the bins from the top until the count reaches
          // `needed`: that bin is the digit.
          buildIf(b, loc, isThreadZero(), [&] {
            Value falseValue =
                arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
            SmallVector<Value> walk = buildFor(
                b, loc, d.index(0), d.index(bins), d.index(1),
                ValueRange{zero, falseValue, zero, zero, zero},
                [&](Value j, ValueRange c) -> SmallVector<Value> {
                  Value above = c[0], found = c[1];
                  Value bin =
                      arith::SubIOp::create(b, loc, i32(bins - 1), toI32(j));
                  Value count = load(histogram, bin);
                  Value reach = arith::AddIOp::create(b, loc, above, count);
                  Value hit = arith::AndIOp::create(
                      b, loc,
                      arith::XOrIOp::create(b, loc, found,
                                            arith::ConstantOp::create(
                                                b, loc, b.getBoolAttr(true))),
                      cmpi(arith::CmpIPredicate::sge, reach, needed));
                  return {reach, arith::OrIOp::create(b, loc, found, hit),
                          select(hit, bin, c[2]),
                          select(hit,
                                 arith::SubIOp::create(b, loc, needed, above),
                                 c[3]),
                          select(hit, count, c[4])};
                });
            store(walk[2], state, d.index(0));
            store(walk[3], state, d.index(1));
            store(walk[4], state, d.index(2));
          });
          d.barrier();
          Value bin = load(state, d.index(0));
          Value stillNeeded = load(state, d.index(1));
          Value binCount = load(state, d.index(2));
          Value placed = arith::ShLIOp::create(b, loc, bin, i32(digit.shift));
          Value digitMask = i32((bins - 1) << digit.shift);
          if (digit.low) {
            prefixLo = arith::OrIOp::create(b, loc, prefixLo, placed);
            maskLo = arith::OrIOp::create(b, loc, maskLo, digitMask);
          } else {
            prefixHi = arith::OrIOp::create(b, loc, prefixHi, placed);
            maskHi = arith::OrIOp::create(b, loc, maskHi, digitMask);
          }
          Value done = cmpi(arith::CmpIPredicate::eq, binCount, stillNeeded);
          return {prefixHi, maskHi, prefixLo, maskLo, stillNeeded, done};
        },
        [&]() -> SmallVector<Value> { return selection; });
  }
  return {selection[0], selection[2]};
}

void SamplingBuilder::sortCandidates() {
  // Bitonic sort of kMaxTopK (key, index) pairs into the host order (key
  // descending, then index ascending); thread t < kMaxTopK/2 owns one
  // compare-exchange per step.
  auto before = [&](Value keyA, Value indexA, Value keyB,
                    Value indexB) -> Value {
    Value greater = cmpi(arith::CmpIPredicate::sgt, keyA, keyB);
    Value equal = cmpi(arith::CmpIPredicate::eq, keyA, keyB);
    Value lower = cmpi(arith::CmpIPredicate::slt, indexA, indexB);
    return arith::OrIOp::create(b, loc, greater,
                                arith::AndIOp::create(b, loc, equal, lower));
  };
  Value active = cmpi(arith::CmpIPredicate::ult, tid, d.index(kMaxTopK / 2));
  for (int64_t size = 2; size <= kMaxTopK; size *= 2) {
    for (int64_t stride = size / 2; stride > 0; stride /= 2) {
      buildIf(b, loc, active, [&] {
        // i: t with a zero bit inserted at `stride`; its partner i + stride.
        Value high = arith::MulIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, tid, d.index(stride)),
            d.index(2 * stride));
        Value i = arith::AddIOp::create(
            b, loc, high, arith::RemUIOp::create(b, loc, tid, d.index(stride)));
        Value l = arith::AddIOp::create(b, loc, i, d.index(stride));
        Value keyI = load(candidateKeys, i), indexI = load(candidateIndices, i);
        Value keyL = load(candidateKeys, l), indexL = load(candidateIndices, l);
        // Blocks with bit `size` clear end up in host order, the others
        // reversed, so the final merge (size == kMaxTopK) is in host order.
        Value hostOrder =
            cmpi(arith::CmpIPredicate::eq,
                 arith::AndIOp::create(b, loc, i, d.index(size)), d.index(0));
        Value swap = select(hostOrder, before(keyL, indexL, keyI, indexI),
                            before(keyI, indexI, keyL, indexL));
        store(select(swap, keyL, keyI), candidateKeys, i);
        store(select(swap, indexL, indexI), candidateIndices, i);
        store(select(swap, keyI, keyL), candidateKeys, l);
        store(select(swap, indexI, indexL), candidateIndices, l);
      });
      d.barrier();
    }
  }
}

void SamplingBuilder::drawFromCandidates(Value k, Value topP, Value u,
                                         Value out) {
  buildIf(b, loc, isThreadZero(), [&] {
    Type f64Type = b.getF64Type();
    Value n = d.toIndex(k);
    auto probabilityAt = [&](Value j) -> Value {
      Value bits = load(candidateKeys, j);
      Value p = arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
      return arith::ExtFOp::create(b, loc, f64Type, p);
    };
    Value falseValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    Value trueValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value total = buildFor(
        b, loc, d.index(0), n, d.index(1), ValueRange{f64(0.0)},
        [&](Value j, ValueRange c) -> SmallVector<Value> {
          return {arith::AddFOp::create(b, loc, c[0], probabilityAt(j))};
        })[0];
    // Top-p: the shortest prefix whose mass reaches top_p · total.
    Value nucleus = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                          topP, d.f32(1.0));
    SmallVector<Value> kept = buildIfElse(
        b, loc, nucleus, {b.getIndexType(), f64Type},
        [&]() -> SmallVector<Value> {
          Value keep = arith::MulFOp::create(
              b, loc, arith::ExtFOp::create(b, loc, f64Type, topP), total);
          SmallVector<Value> prefix = buildFor(
              b, loc, d.index(0), n, d.index(1),
              ValueRange{f64(0.0), d.index(0), falseValue},
              [&](Value j, ValueRange c) -> SmallVector<Value> {
                Value stopped = c[2];
                Value sum =
                    arith::AddFOp::create(b, loc, c[0], probabilityAt(j));
                Value reached = arith::CmpFOp::create(
                    b, loc, arith::CmpFPredicate::OGE, sum, keep);
                return {select(stopped, c[0], sum),
                        select(stopped, c[1],
                               arith::AddIOp::create(b, loc, j, d.index(1))),
                        arith::OrIOp::create(b, loc, stopped, reached)};
              });
          return {prefix[1], prefix[0]};
        },
        [&]() -> SmallVector<Value> {
          return {n, total};
        });
    Value count = kept[0], mass = kept[1];
    // The first candidate whose cumulative mass exceeds u · mass.
    Value r = arith::MulFOp::create(
        b, loc, arith::ExtFOp::create(b, loc, f64Type, u), mass);
    Value last = load(candidateIndices,
                      arith::SubIOp::create(b, loc, count, d.index(1)));
    SmallVector<Value> draw = buildFor(
        b, loc, d.index(0), count, d.index(1),
        ValueRange{f64(0.0), falseValue, last},
        [&](Value j, ValueRange c) -> SmallVector<Value> {
          Value sum = arith::AddFOp::create(b, loc, c[0], probabilityAt(j));
          Value below =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, sum);
          Value hit = arith::AndIOp::create(
              b, loc, arith::XOrIOp::create(b, loc, c[1], trueValue), below);
          return {sum, arith::OrIOp::create(b, loc, c[1], hit),
                  select(hit, load(candidateIndices, j), c[2])};
        });
    store(draw[2], out, d.index(0));
  });
}

void SamplingBuilder::drawFromVocabulary(Value u, Value out) {
  // Thread t sums p over its contiguous chunk [t·C, t·C + C) in f64; thread
  // 0 then finds the chunk and the token where the running mass first
  // exceeds u · total, re-summing the chunk in the same order so the token
  // search always succeeds inside the chunk it picked.
  Type f64Type = b.getF64Type();
  int64_t chunk = llvm::divideCeil(vocab, kBlockSize);
  auto chunkBounds = [&](Value t) -> std::pair<Value, Value> {
    Value start = arith::MulIOp::create(b, loc, t, d.index(chunk));
    Value end = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, start, d.index(chunk)),
        d.index(vocab));
    Value clampedStart = arith::MinUIOp::create(b, loc, start, end);
    return {clampedStart, end};
  };
  auto toF64 = [&](Value p) -> Value {
    return arith::ExtFOp::create(b, loc, f64Type, p);
  };
  auto [start, end] = chunkBounds(tid);
  Value sum = buildFor(
      b, loc, start, end, d.index(1), ValueRange{f64(0.0)},
      [&](Value i, ValueRange c) -> SmallVector<Value> {
        return {arith::AddFOp::create(b, loc, c[0], toF64(probability(i)))};
      })[0];
  store(sum, chunkSums, tid);
  d.barrier();
  buildIf(b, loc, isThreadZero(), [&] {
    Value falseValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    Value trueValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value total = buildFor(
        b, loc, d.index(0), d.index(kBlockSize), d.index(1),
        ValueRange{f64(0.0)}, [&](Value t, ValueRange c) -> SmallVector<Value> {
          return {arith::AddFOp::create(b, loc, c[0], load(chunkSums, t))};
        })[0];
    Value r = arith::MulFOp::create(
        b, loc, arith::ExtFOp::create(b, loc, f64Type, u), total);
    // (prefix before the chunk, found, chunk, its prefix).
    SmallVector<Value> located = buildFor(
        b, loc, d.index(0), d.index(kBlockSize), d.index(1),
        ValueRange{f64(0.0), falseValue, d.index(kBlockSize - 1), f64(0.0)},
        [&](Value t, ValueRange c) -> SmallVector<Value> {
          Value through =
              arith::AddFOp::create(b, loc, c[0], load(chunkSums, t));
          Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                              r, through);
          Value hit = arith::AndIOp::create(
              b, loc, arith::XOrIOp::create(b, loc, c[1], trueValue), below);
          return {through, arith::OrIOp::create(b, loc, c[1], hit),
                  select(hit, t, c[2]), select(hit, c[0], c[3])};
        });
    auto [first, stop] = chunkBounds(located[2]);
    Value prefix = located[3];
    SmallVector<Value> draw = buildFor(
        b, loc, first, stop, d.index(1),
        ValueRange{f64(0.0), falseValue, i32(vocab - 1)},
        [&](Value i, ValueRange c) -> SmallVector<Value> {
          Value local =
              arith::AddFOp::create(b, loc, c[0], toF64(probability(i)));
          Value below = arith::CmpFOp::create(
              b, loc, arith::CmpFPredicate::OLT, r,
              arith::AddFOp::create(b, loc, prefix, local));
          Value hit = arith::AndIOp::create(
              b, loc, arith::XOrIOp::create(b, loc, c[1], trueValue), below);
          return {local, arith::OrIOp::create(b, loc, c[1], hit),
                  select(hit, toI32(i), c[2])};
        });
    store(draw[2], out, d.index(0));
  });
}

void SamplingBuilder::sample(Value maxValue, Value argMax, Value temperature,
                             Value topK, Value topP, Value u, Value out,
                             ValueRange buffers) {
  histogram = buffers[0];
  candidateKeys = buffers[1];
  candidateIndices = buffers[2];
  state = buffers[3];
  chunkSums = buffers[4];
  maxLogit = maxValue;
  auto cmpf = [&](arith::CmpFPredicate p, Value x, double y) -> Value {
    return arith::CmpFOp::create(b, loc, p, x, d.f32(y));
  };
  // The host's greedy conditions, and "no token has any probability".
  Value greedy = arith::OrIOp::create(
      b, loc,
      arith::OrIOp::create(b, loc,
                           cmpf(arith::CmpFPredicate::OLE, temperature, 0.0),
                           cmpi(arith::CmpIPredicate::eq, topK, i32(1))),
      arith::OrIOp::create(b, loc, cmpf(arith::CmpFPredicate::OLE, topP, 0.0),
                           cmpf(arith::CmpFPredicate::OEQ, maxLogit,
                                -std::numeric_limits<double>::infinity())));
  auto branches = scf::IfOp::create(b, loc, greedy, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branches.thenBlock());
  buildIf(b, loc, isThreadZero(), [&] { store(argMax, out, d.index(0)); });

  b.setInsertionPointToStart(branches.elseBlock());
  inverseTemperature = arith::DivFOp::create(b, loc, d.f32(1.0), temperature);
  Value noTopK = arith::OrIOp::create(
      b, loc, cmpi(arith::CmpIPredicate::sle, topK, i32(0)),
      cmpi(arith::CmpIPredicate::sge, topK, i32(vocab)));
  Value wholeVocabulary = arith::AndIOp::create(
      b, loc, noTopK, cmpf(arith::CmpFPredicate::OGE, topP, 1.0));
  auto paths = scf::IfOp::create(b, loc, wholeVocabulary, /*withElse=*/true);
  b.setInsertionPointToStart(paths.thenBlock());
  drawFromVocabulary(u, out);

  b.setInsertionPointToStart(paths.elseBlock());
  // k: top_k within (1, cap], else the cap (approximate, see the ABI).
  int64_t cap = std::min(kMaxTopK, vocab);
  Value capped = arith::OrIOp::create(
      b, loc, cmpi(arith::CmpIPredicate::sle, topK, i32(0)),
      cmpi(arith::CmpIPredicate::sgt, topK, i32(cap)));
  Value k = select(capped, i32(cap), topK);
  auto [thresholdHi, thresholdLo] = selectThreshold(k);

  // Gather the keys ≥ the threshold (exactly k) into the candidate list,
  // padded with keys below every probability.
  buildIf(b, loc, cmpi(arith::CmpIPredicate::ult, tid, d.index(kMaxTopK)), [&] {
    store(i32(-1), candidateKeys, tid);
    store(i32(std::numeric_limits<int32_t>::max()), candidateIndices, tid);
  });
  buildIf(b, loc, isThreadZero(), [&] { store(i32(0), state, d.index(3)); });
  d.barrier();
  forEachToken([&](Value i) {
    auto [hi, lo] = getKey(probability(i), i);
    Value above = cmpi(arith::CmpIPredicate::ugt, hi, thresholdHi);
    Value tie = arith::AndIOp::create(
        b, loc, cmpi(arith::CmpIPredicate::eq, hi, thresholdHi),
        cmpi(arith::CmpIPredicate::uge, lo, thresholdLo));
    buildIf(b, loc, arith::OrIOp::create(b, loc, above, tie), [&] {
      Value slot =
          memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                      i32(1), state, ValueRange{d.index(3)});
      buildIf(b, loc, cmpi(arith::CmpIPredicate::slt, slot, i32(kMaxTopK)),
              [&] {
                store(hi, candidateKeys, slot);
                store(toI32(i), candidateIndices, slot);
              });
    });
  });
  d.barrier();
  sortCandidates();
  drawFromCandidates(k, topP, u, out);
}

/// Workgroup buffers of the argmax: one (value, index) per warp.
SmallVector<MemRefType> getArgMaxBuffers(MLIRContext *context) {
  return {getWorkgroupBufferType({kNumWarps}, Float32Type::get(context)),
          getWorkgroupBufferType({kNumWarps}, IntegerType::get(context, 32))};
}

void setBlockSize(gpu::GPUFuncOp func) {
  func.setKnownBlockSize(
      ArrayRef<int32_t>{static_cast<int32_t>(kBlockSize), 1, 1});
}

} // namespace

void llmc::cuda::addSamplingKernels(KernelModule &kernels, int64_t vocabSize) {
  MLIRContext *context = kernels.getOp().getContext();
  Type f32 = Float32Type::get(context), i32 = IntegerType::get(context, 32);
  auto logitsType = MemRefType::get({vocabSize}, f32);
  auto tokenType = MemRefType::get({1}, i32);
  std::string suffix = "_v" + std::to_string(vocabSize);

  gpu::GPUFuncOp argmax = kernels.getOrCreate(
      "llmc_argmax" + suffix, {logitsType, tokenType},
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        SamplingBuilder s(b, func.getLoc(), func.getArgument(0), vocabSize);
        auto buffers = func.getWorkgroupAttributions();
        auto [value, index] = s.blockArgMax(buffers[0], buffers[1]);
        buildIf(b, func.getLoc(), s.isThreadZero(), [&] {
          memref::StoreOp::create(
              b, func.getLoc(), index, func.getArgument(1),
              ValueRange{arith::ConstantIndexOp::create(b, func.getLoc(), 0)});
        });
      },
      getArgMaxBuffers(context));
  setBlockSize(argmax);

  SmallVector<MemRefType> buffers = getArgMaxBuffers(context);
  buffers.push_back(getWorkgroupBufferType({int64_t(1) << kDigitBits}, i32));
  buffers.push_back(getWorkgroupBufferType({kMaxTopK}, i32));
  buffers.push_back(getWorkgroupBufferType({kMaxTopK}, i32));
  buffers.push_back(getWorkgroupBufferType({4}, i32));
  buffers.push_back(
      getWorkgroupBufferType({kBlockSize}, Float64Type::get(context)));
  gpu::GPUFuncOp sampler = kernels.getOrCreate(
      "llmc_top_k_top_p" + suffix, {logitsType, f32, i32, f32, f32, tokenType},
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        SamplingBuilder s(b, func.getLoc(), func.getArgument(0), vocabSize);
        auto shared = func.getWorkgroupAttributions();
        auto [value, index] = s.blockArgMax(shared[0], shared[1]);
        s.sample(value, index, func.getArgument(1), func.getArgument(2),
                 func.getArgument(3), func.getArgument(4), func.getArgument(5),
                 ValueRange(shared).drop_front(2));
      },
      buffers);
  setBlockSize(sampler);
}
