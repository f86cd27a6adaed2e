// The llm-parallel-to-openmp pass: scf.parallel loops become OpenMP parallel regions whose threads take chunks of the iterations from a shared counter.
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace llmc {
#define GEN_PASS_DEF_LLMPARALLELTOOPENMP
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// Chunks per thread: enough that a thread kept off its core by other work
/// leaves most of its share to the others, few enough that taking a chunk
/// (one atomic add on a cache line the threads share) stays rare.
constexpr int64_t kChunksPerThread = 4;

/// The OpenMP runtime's team size, called inside the parallel region.
constexpr StringLiteral kNumThreadsFunction = "omp_get_num_threads";

func::FuncOp getOrDeclareNumThreads(ModuleOp module) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(kNumThreadsFunction))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto function = func::FuncOp::create(
      b, module.getLoc(), kNumThreadsFunction,
      b.getFunctionType({}, {b.getI32Type()}));
  function.setPrivate();
  return function;
}

/// Rewrites one outermost scf.parallel (without reductions):
///
///   counter = 0                        (an i64 on the function's stack)
///   omp.parallel {
///     chunk = ceil(total / (threads · kChunksPerThread))
///     while ((start = atomic_add(counter, chunk)) < total)
///       for i in [start, min(start + chunk, total))
///         body(ivs = lower + delinearize(i) · step)
///   }
///
/// over the loop's iterations flattened row-major. Every iteration runs
/// exactly once, on whichever thread takes its chunk, so results do not
/// depend on the threads; the threads that run take over the chunks of one
/// that other processes keep off its core.
void convertParallelLoop(scf::ParallelOp loop, func::FuncOp numThreads,
                         Value counter) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Type i64 = b.getI64Type();
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };

  // Trip counts per dimension and their product, before the region.
  SmallVector<Value> trips;
  Value total = index(1);
  for (auto [lower, upper, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    Value span = b.createOrFold<arith::SubIOp>(loc, upper, lower);
    Value count = b.createOrFold<arith::CeilDivSIOp>(loc, span, step);
    count = b.createOrFold<arith::MaxSIOp>(loc, count, index(0));
    trips.push_back(count);
    total = b.createOrFold<arith::MulIOp>(loc, total, count);
  }
  Value zero64 = arith::ConstantIntOp::create(b, loc, i64, 0);
  memref::StoreOp::create(b, loc, zero64, counter, ValueRange{});

  auto region = omp::ParallelOp::create(b, loc);
  Block *body = b.createBlock(&region.getRegion());
  b.setInsertionPointToStart(body);
  Value threads = func::CallOp::create(b, loc, numThreads).getResult(0);
  Value chunks = arith::MulIOp::create(
      b, loc, arith::IndexCastOp::create(b, loc, b.getIndexType(), threads),
      index(kChunksPerThread));
  Value chunk = arith::MaxSIOp::create(
      b, loc, arith::CeilDivSIOp::create(b, loc, total, chunks), index(1));
  Value chunk64 = arith::IndexCastOp::create(b, loc, i64, chunk);

  scf::WhileOp::create(
      b, loc, TypeRange{b.getIndexType()}, ValueRange{},
      [&](OpBuilder &wb, Location wloc, ValueRange) {
        Value taken = memref::AtomicRMWOp::create(
            wb, wloc, arith::AtomicRMWKind::addi, chunk64, counter,
            ValueRange{});
        Value start =
            arith::IndexCastOp::create(wb, wloc, wb.getIndexType(), taken);
        Value more = arith::CmpIOp::create(wb, wloc, arith::CmpIPredicate::slt,
                                           start, total);
        scf::ConditionOp::create(wb, wloc, more, ValueRange{start});
      },
      [&](OpBuilder &db, Location dloc, ValueRange args) {
        Value start = args[0];
        Value end = arith::MinSIOp::create(
            db, dloc, arith::AddIOp::create(db, dloc, start, chunk), total);
        Value one = arith::ConstantIndexOp::create(db, dloc, 1);
        scf::ForOp::create(
            db, dloc, start, end, one, ValueRange{},
            [&](OpBuilder &fb, Location floc, Value flat, ValueRange) {
              // Row-major delinearization: the last dimension fastest.
              IRMapping mapping;
              Value rest = flat;
              int64_t rank = trips.size();
              for (int64_t d = rank - 1; d >= 0; --d) {
                Value position = rest;
                if (d > 0) {
                  position =
                      arith::RemSIOp::create(fb, floc, rest, trips[d]);
                  rest = arith::DivSIOp::create(fb, floc, rest, trips[d]);
                }
                Value scaled = arith::MulIOp::create(fb, floc, position,
                                                     loop.getStep()[d]);
                mapping.map(loop.getInductionVars()[d],
                            arith::AddIOp::create(fb, floc,
                                                  loop.getLowerBound()[d],
                                                  scaled)
                                .getResult());
              }
              for (Operation &op : loop.getBody()->without_terminator())
                fb.clone(op, mapping);
              scf::YieldOp::create(fb, floc);
            });
        scf::YieldOp::create(db, dloc);
      });
  omp::TerminatorOp::create(b, loc);
  loop.erase();
}

struct LLMParallelToOpenMPPass
    : llmc::impl::LLMParallelToOpenMPBase<LLMParallelToOpenMPPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ParallelOp> loops;
    // Outermost loops only: a loop inside another runs on that loop's
    // threads, sequentially (convert-scf-to-cf lowers it).
    module.walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
      loops.push_back(loop);
      return WalkResult::skip();
    });
    for (scf::ParallelOp loop : loops) {
      if (loop.getNumResults() != 0) {
        loop.emitError("llm-parallel-to-openmp: scf.parallel with reductions "
                       "is not supported");
        return signalPassFailure();
      }
    }
    if (loops.empty())
      return;
    func::FuncOp numThreads = getOrDeclareNumThreads(module);
    // One counter per function, at its entry: allocas in a loop body would
    // grow the stack every iteration.
    DenseMap<Operation *, Value> counters;
    for (scf::ParallelOp loop : loops) {
      auto function = loop->getParentOfType<func::FuncOp>();
      Value &counter = counters[function];
      if (!counter) {
        OpBuilder b = OpBuilder::atBlockBegin(&function.getBody().front());
        counter = memref::AllocaOp::create(
            b, function.getLoc(), MemRefType::get({}, b.getI64Type()));
      }
      convertParallelLoop(loop, numThreads, counter);
    }
  }
};

} // namespace
