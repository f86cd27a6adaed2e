// The llm-parallel-to-openmp pass: scf.parallel loops (independent siblings together) become OpenMP parallel regions whose threads each run a partition of the iterations and then take chunks of the others'.
#include "passes/Passes.h"

#include "codegen/cpu/ParallelLoopMarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace llmc {
#define GEN_PASS_DEF_LLMPARALLELTOOPENMP
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// A take from a partition is a quarter of what is left of it (the shift
/// below), but at least 1 / kMinChunksPerThread of a thread's share: a
/// thread starts its own partition with long runs of consecutive
/// iterations (the weight rows of a decode GEMV, which the prefetchers
/// follow), and the threads' last takes are short, so that one done early
/// waits little for the other's last chunk or takes it over. Measured on a
/// 2-core Zen 3 (2 threads, SmolLM2-135M's shape, decode after 128 tokens,
/// interleaved runs, medians, tok/s), against fixed chunks of a quarter of
/// a share (16ths for a prefill GEMM's long iterations): Q4_0 251.8 ->
/// 258.6 (won 8 of 10) and 197 -> 207 (6 of 8), Q4_K_M mix 210 -> 219
/// (6 of 10), F16 86.0 -> 87.2 (5 of 12); prefills within noise
/// (SmolLM2 F16 693 / 680, TinyLlama F16 81.1 / 84.4).
constexpr int64_t kTakeShareShift = 2;
constexpr int64_t kMinChunksPerThread = 16;

/// Partitions of a region's iterations: one per thread, up to this many; a
/// thread beyond them only takes chunks from the ends of the others'.
constexpr int64_t kMaxPartitions = 64;

/// i64 words per partition slot: one cache line, so that a thread taking
/// chunks from its own partition does not contend with the others.
constexpr int64_t kSlotWords = 8;

/// The OpenMP runtime's queries: the team size a region started now gets
/// (called before it), and the calling thread's number in its team.
constexpr StringLiteral kMaxThreadsFunction = "omp_get_max_threads";
constexpr StringLiteral kThreadNumFunction = "omp_get_thread_num";

func::FuncOp getOrDeclareRuntimeQuery(ModuleOp module, StringRef name) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto function = func::FuncOp::create(b, module.getLoc(), name,
                                       b.getFunctionType({}, {b.getI32Type()}));
  function.setPrivate();
  return function;
}

/// The buffers a loop reads and writes, each traced through views to the
/// value that defines it (an allocation, a function argument), leaving out
/// the ones the loop allocates itself. `known` is false when an op in it
/// may touch memory it does not name.
struct LoopAccesses {
  llvm::SmallPtrSet<Value, 8> reads, writes;
  bool known = true;
};

Value getBufferRoot(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

/// A call of an LLVM intrinsic on values (the int8 dot products' calls of
/// llvm.x86.* declarations) touches no buffer.
bool isIntrinsicCallOnValues(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  return call && call.getCallee().starts_with("llvm.") &&
         llvm::none_of(call.getOperandTypes(), llvm::IsaPred<BaseMemRefType>);
}

LoopAccesses getLoopAccesses(scf::ParallelOp loop) {
  LoopAccesses accesses;
  // The buffer's root, or null for the loop's own scratch.
  auto getOuterRoot = [&](Value buffer) -> Value {
    Value root = getBufferRoot(buffer);
    return loop->isAncestor(root.getParentBlock()->getParentOp()) ? Value()
                                                                  : root;
  };
  loop.getBody()->walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isIntrinsicCallOnValues(op))
      return; // its nested ops are walked, or it touches no buffer
    if (auto prefetch = dyn_cast<memref::PrefetchOp>(op)) {
      // A hint that changes no memory (its interface declares a write).
      if (Value root = getOuterRoot(prefetch.getMemref()))
        accesses.reads.insert(root);
      return;
    }
    auto interface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!interface) {
      accesses.known = false;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    interface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (isa<MemoryEffects::Allocate>(effect.getEffect()))
        continue;
      Value buffer = effect.getValue();
      if (!buffer) {
        accesses.known = false;
        continue;
      }
      Value root = getOuterRoot(buffer);
      if (!root)
        continue;
      if (isa<MemoryEffects::Read>(effect.getEffect()))
        accesses.reads.insert(root);
      else if (isa<MemoryEffects::Write>(effect.getEffect()))
        accesses.writes.insert(root);
      else
        accesses.known = false; // freeing a buffer from outside
    }
  });
  return accesses;
}

/// Whether loops with these accesses may run in any order, interleaved:
/// each writes only buffers allocated before it (which alias nothing else)
/// that the other neither reads nor writes.
bool areIndependent(const LoopAccesses &a, const LoopAccesses &b) {
  auto writesOwnBuffers = [](const LoopAccesses &writer,
                             const LoopAccesses &other) {
    return llvm::all_of(writer.writes, [&](Value root) {
      return isa_and_present<memref::AllocOp, memref::AllocaOp>(
                 root.getDefiningOp()) &&
             !other.reads.contains(root) && !other.writes.contains(root);
    });
  };
  return a.known && b.known && writesOwnBuffers(a, b) &&
         writesOwnBuffers(b, a);
}

/// Whether `op`, between two loops, lets the first move past it: it touches
/// no memory, or only allocates its result.
bool isMovablePast(Operation *op) {
  if (op->getNumRegions() != 0)
    return false;
  if (isMemoryEffectFree(op))
    return true;
  auto interface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!interface)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  interface.getEffects(effects);
  return llvm::all_of(effects, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Allocate>(e.getEffect());
  });
}

/// The outermost loops of `module` in groups that one parallel region runs:
/// a loop joins the group before it when the two are in one block with only
/// movable ops between them, and it is independent of every loop of the
/// group (sibling projections of one input: Q, K and V; gate and up).
SmallVector<SmallVector<scf::ParallelOp>> groupSiblingLoops(ModuleOp module) {
  SmallVector<SmallVector<scf::ParallelOp>> groups;
  SmallVector<LoopAccesses> groupAccesses;
  // Outermost loops only: a loop inside another runs on that loop's
  // threads, sequentially (convert-scf-to-cf lowers it).
  module.walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
    LoopAccesses accesses = getLoopAccesses(loop);
    auto joinsLastGroup = [&] {
      if (groups.empty())
        return false;
      scf::ParallelOp last = groups.back().back();
      if (last->getBlock() != loop->getBlock())
        return false;
      for (Operation *op = last->getNextNode(); op != loop.getOperation();
           op = op->getNextNode())
        if (!op || !isMovablePast(op))
          return false;
      return llvm::all_of(groupAccesses, [&](const LoopAccesses &member) {
        return areIndependent(member, accesses);
      });
    };
    if (!joinsLastGroup()) {
      groups.emplace_back();
      groupAccesses.clear();
    }
    groups.back().push_back(loop);
    groupAccesses.push_back(std::move(accesses));
    return WalkResult::skip();
  });
  return groups;
}

/// A partition's remaining iterations, [front, back), packed into one i64
/// slot word (back in the high half) so that one compare-and-swap takes a
/// chunk from either end: the owner from the front, the others from the
/// back. Both fit in 32 bits (a region's iterations are tiles: row blocks
/// times weight panels).
struct PartitionRange {
  Value front, back;
};

constexpr int64_t kHalfBits = 32;

PartitionRange unpackRange(OpBuilder &b, Location loc, Value word) {
  Type i64 = b.getI64Type();
  Value low = arith::ConstantIntOp::create(b, loc, i64, (int64_t{1} << kHalfBits) - 1);
  Value shift = arith::ConstantIntOp::create(b, loc, i64, kHalfBits);
  return {arith::AndIOp::create(b, loc, word, low),
          arith::ShRUIOp::create(b, loc, word, shift)};
}

Value packRange(OpBuilder &b, Location loc, PartitionRange range) {
  Value shift = arith::ConstantIntOp::create(b, loc, b.getI64Type(), kHalfBits);
  return arith::OrIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, range.back, shift), range.front);
}

/// The chunk a thread takes from `range`: c = max(ceil(left / 4),
/// minChunk) iterations of the `left` ones, [front, min(front + c, back))
/// when it owns the partition, else [max(back - c, front), back); empty
/// when the partition is.
PartitionRange takeChunk(OpBuilder &b, Location loc, PartitionRange range,
                         Value minChunk, Value own) {
  Type i64 = b.getI64Type();
  Value left = arith::SubIOp::create(b, loc, range.back, range.front);
  Value roundUp = arith::ConstantIntOp::create(
      b, loc, i64, (int64_t{1} << kTakeShareShift) - 1);
  Value share = arith::ShRUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, left, roundUp),
      arith::ConstantIntOp::create(b, loc, i64, kTakeShareShift));
  Value chunk = arith::MaxSIOp::create(b, loc, share, minChunk);
  Value ownEnd = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, range.front, chunk), range.back);
  Value stolenStart = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, range.back, chunk), range.front);
  return {arith::SelectOp::create(b, loc, own, range.front, stolenStart),
          arith::SelectOp::create(b, loc, own, ownEnd, range.back)};
}

/// The functions' partition slots and the OpenMP queries they need.
struct RegionRuntime {
  func::FuncOp maxThreads, threadNum;
  Value slots; // memref<kMaxPartitions x kSlotWords x i64> on the stack
};

/// Rewrites a group of outermost scf.parallel loops (without reductions)
/// into one region, where the last of them was:
///
///   P = min(omp_get_max_threads(), kMaxPartitions)
///   for p < P: slot[p] = [p · total / P, (p + 1) · total / P)
///   minChunk = ceil(total / (P · kMinChunksPerThread))
///   omp.parallel {
///     t = omp_get_thread_num()
///     for i < P: v = (t + i) mod P
///       while ([start, end) = take max(ceil(left / 4), minChunk) of the
///              `left` iterations of slot[v]: from its front when v == t,
///              else from its back (one compare-and-swap)) is not empty
///         for flat in [start, end)
///           if flat < end₀: body₀(ivs = lower₀ + delinearize(flat) · step₀)
///           else if flat < end₁: body₁(... flat - end₀ ...)  ...
///   }
///
/// over the loops' iterations flattened row-major, one after another. Each
/// thread runs its own partition front to back, one stream of consecutive
/// iterations (the weight rows of a decode GEMV, which the prefetchers then
/// follow across chunks), and then takes what is left of the others' from
/// their ends.
/// Every iteration runs exactly once, on whichever thread takes its chunk,
/// so results do not depend on the threads; the threads that run take over
/// the chunks of one that other processes keep off its core, or that the
/// team lacks.
void convertParallelLoops(MutableArrayRef<scf::ParallelOp> loops,
                          const RegionRuntime &runtime) {
  OpBuilder b(loops.back());
  Location loc = loops.back().getLoc();
  Type i64 = b.getI64Type();
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };

  // Trip counts per loop and dimension, and where each loop's iterations
  // end in the flattened space, before the region.
  SmallVector<SmallVector<Value>> trips;
  SmallVector<Value> ends;
  Value total;
  for (scf::ParallelOp loop : loops) {
    Value count = index(1);
    trips.emplace_back();
    for (auto [lower, upper, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      Value span = b.createOrFold<arith::SubIOp>(loc, upper, lower);
      Value dimension = b.createOrFold<arith::CeilDivSIOp>(loc, span, step);
      dimension = b.createOrFold<arith::MaxSIOp>(loc, dimension, index(0));
      trips.back().push_back(dimension);
      count = b.createOrFold<arith::MulIOp>(loc, count, dimension);
    }
    total = total ? b.createOrFold<arith::AddIOp>(loc, total, count) : count;
    ends.push_back(total);
  }

  // The partitions and the chunk size, before the region.
  Value maxThreads = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      func::CallOp::create(b, loc, runtime.maxThreads).getResult(0));
  Value partitions = arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, maxThreads, index(1)),
      index(kMaxPartitions));
  Value partitions64 = arith::IndexCastOp::create(b, loc, i64, partitions);
  Value total64 = arith::IndexCastOp::create(b, loc, i64, total);
  scf::ForOp::create(
      b, loc, index(0), partitions, index(1), ValueRange{},
      [&](OpBuilder &pb, Location ploc, Value p, ValueRange) {
        Value p64 = arith::IndexCastOp::create(pb, ploc, i64, p);
        auto boundary = [&](Value part) -> Value {
          return arith::DivUIOp::create(
              pb, ploc, arith::MulIOp::create(pb, ploc, part, total64),
              partitions64);
        };
        Value next = arith::AddIOp::create(
            pb, ploc, p64, arith::ConstantIntOp::create(pb, ploc, i64, 1));
        Value word = packRange(pb, ploc, {boundary(p64), boundary(next)});
        memref::StoreOp::create(pb, ploc, word, runtime.slots,
                                ValueRange{p, index(0)});
        scf::YieldOp::create(pb, ploc);
      });
  Value chunks = arith::MulIOp::create(b, loc, partitions,
                                      index(kMinChunksPerThread));
  Value minChunk = arith::MaxSIOp::create(
      b, loc, arith::CeilDivSIOp::create(b, loc, total, chunks), index(1));
  Value minChunk64 = arith::IndexCastOp::create(b, loc, i64, minChunk);

  // A count known only at run time (a prefill's tokens) may be one
  // iteration, a short prompt's single tile of rows: that runs on the
  // calling thread, without waking the others.
  Value several;
  if (!getConstantIntValue(total))
    several = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, total,
                                    index(1));
  auto region = omp::ParallelOp::create(b, loc);
  if (several)
    region.getIfExprMutable().assign(several);
  Block *body = b.createBlock(&region.getRegion());
  b.setInsertionPointToStart(body);
  Value thread = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      func::CallOp::create(b, loc, runtime.threadNum).getResult(0));

  // Loop `l`'s body at its flattened iteration `flat` (row-major
  // delinearization: the last dimension fastest).
  auto emitIteration = [&](OpBuilder &fb, Location floc, size_t l,
                           Value flat) {
    scf::ParallelOp loop = loops[l];
    IRMapping mapping;
    Value rest = flat;
    int64_t rank = trips[l].size();
    for (int64_t d = rank - 1; d >= 0; --d) {
      Value position = rest;
      if (d > 0) {
        position = arith::RemSIOp::create(fb, floc, rest, trips[l][d]);
        rest = arith::DivSIOp::create(fb, floc, rest, trips[l][d]);
      }
      Value scaled =
          arith::MulIOp::create(fb, floc, position, loop.getStep()[d]);
      mapping.map(
          loop.getInductionVars()[d],
          arith::AddIOp::create(fb, floc, loop.getLowerBound()[d], scaled)
              .getResult());
    }
    for (Operation &op : loop.getBody()->without_terminator())
      fb.clone(op, mapping);
  };
  // Loops [l, end): an scf.if per loop boundary.
  std::function<void(OpBuilder &, Location, size_t, Value)> dispatch =
      [&](OpBuilder &fb, Location floc, size_t l, Value flat) {
        Value local =
            l == 0 ? flat : arith::SubIOp::create(fb, floc, flat, ends[l - 1]);
        if (l + 1 == loops.size()) {
          emitIteration(fb, floc, l, local);
          return;
        }
        Value inLoop = arith::CmpIOp::create(
            fb, floc, arith::CmpIPredicate::slt, flat, ends[l]);
        scf::IfOp::create(
            fb, floc, inLoop,
            [&](OpBuilder &tb, Location tloc) {
              emitIteration(tb, tloc, l, local);
              scf::YieldOp::create(tb, tloc);
            },
            [&](OpBuilder &eb, Location eloc) {
              dispatch(eb, eloc, l + 1, flat);
              scf::YieldOp::create(eb, eloc);
            });
      };

  // Partition `victim`'s chunks, until none is left: from its front when
  // this thread owns it, else from its back.
  auto takeAll = [&](OpBuilder &vb, Location vloc, Value victim, Value own) {
    scf::WhileOp::create(
        vb, vloc, TypeRange{i64, i64}, ValueRange{},
        [&](OpBuilder &wb, Location wloc, ValueRange) {
          auto rmw = memref::GenericAtomicRMWOp::create(
              wb, wloc, runtime.slots,
              ValueRange{victim, arith::ConstantIndexOp::create(wb, wloc, 0)});
          {
            OpBuilder::InsertionGuard guard(wb);
            wb.setInsertionPointToStart(rmw.getBody());
            PartitionRange left =
                unpackRange(wb, wloc, rmw.getCurrentValue());
            PartitionRange taken = takeChunk(wb, wloc, left, minChunk64, own);
            Value front = arith::SelectOp::create(wb, wloc, own, taken.back,
                                                  left.front);
            Value back = arith::SelectOp::create(wb, wloc, own, left.back,
                                                 taken.front);
            memref::AtomicYieldOp::create(wb, wloc,
                                          packRange(wb, wloc, {front, back}));
          }
          PartitionRange taken = takeChunk(
              wb, wloc, unpackRange(wb, wloc, rmw.getResult()), minChunk64, own);
          Value more = arith::CmpIOp::create(
              wb, wloc, arith::CmpIPredicate::slt, taken.front, taken.back);
          scf::ConditionOp::create(wb, wloc, more,
                                   ValueRange{taken.front, taken.back});
        },
        [&](OpBuilder &db, Location dloc, ValueRange taken) {
          auto toIndex = [&](Value value) -> Value {
            return arith::IndexCastOp::create(db, dloc, db.getIndexType(),
                                              value);
          };
          scf::ForOp::create(
              db, dloc, toIndex(taken[0]), toIndex(taken[1]),
              arith::ConstantIndexOp::create(db, dloc, 1), ValueRange{},
              [&](OpBuilder &fb, Location floc, Value flat, ValueRange) {
                dispatch(fb, floc, 0, flat);
                scf::YieldOp::create(fb, floc);
              });
          scf::YieldOp::create(db, dloc);
        });
  };
  scf::ForOp::create(
      b, loc, index(0), partitions, index(1), ValueRange{},
      [&](OpBuilder &vb, Location vloc, Value i, ValueRange) {
        Value victim = arith::RemUIOp::create(
            vb, vloc, arith::AddIOp::create(vb, vloc, thread, i), partitions);
        Value own = arith::CmpIOp::create(vb, vloc, arith::CmpIPredicate::eq,
                                          victim, thread);
        takeAll(vb, vloc, victim, own);
        scf::YieldOp::create(vb, vloc);
      });
  omp::TerminatorOp::create(b, loc);
  for (scf::ParallelOp loop : loops)
    loop.erase();
}

struct LLMParallelToOpenMPPass
    : llmc::impl::LLMParallelToOpenMPBase<LLMParallelToOpenMPPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<SmallVector<scf::ParallelOp>> groups =
        groupSiblingLoops(module);
    for (MutableArrayRef<scf::ParallelOp> group : groups) {
      for (scf::ParallelOp loop : group) {
        if (loop.getNumResults() != 0) {
          loop.emitError("llm-parallel-to-openmp: scf.parallel with "
                         "reductions is not supported");
          return signalPassFailure();
        }
      }
    }
    RegionRuntime runtime;
    // One set of slots per function, at its entry: allocas in a loop body
    // would grow the stack every iteration.
    DenseMap<Operation *, Value> slots;
    for (MutableArrayRef<scf::ParallelOp> group : groups) {
      // Loops too small for threads of their own, without a sibling that
      // is not, stay sequential.
      if (llvm::all_of(group, llmc::isSmallParallelLoop))
        continue;
      if (!runtime.maxThreads) {
        runtime.maxThreads =
            getOrDeclareRuntimeQuery(module, kMaxThreadsFunction);
        runtime.threadNum = getOrDeclareRuntimeQuery(module, kThreadNumFunction);
      }
      auto function = group.front()->getParentOfType<func::FuncOp>();
      Value &functionSlots = slots[function];
      if (!functionSlots) {
        OpBuilder b = OpBuilder::atBlockBegin(&function.getBody().front());
        functionSlots = memref::AllocaOp::create(
            b, function.getLoc(),
            MemRefType::get({kMaxPartitions, kSlotWords}, b.getI64Type()),
            ValueRange{}, b.getI64IntegerAttr(kSlotWords * 8));
      }
      runtime.slots = functionSlots;
      convertParallelLoops(group, runtime);
    }
  }
};

} // namespace
