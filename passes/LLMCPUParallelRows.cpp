// The llm-cpu-parallel-rows pass: the row-wise linalg ops of a prefill (norms, RoPE, casts, residual adds, GLU) tiled over their dynamic rows into scf.forall loops, so that they run on the threads.
#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace llmc {
#define GEN_PASS_DEF_LLMCPUPARALLELROWS
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// The loop of `op` to split into tiles of rows: its first parallel loop of
/// dynamic extent (the tokens of a prefill), or none (decode's static
/// single row, an op without such a loop).
std::optional<unsigned> getRowLoop(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [index, range] : llvm::enumerate(ranges))
    if (ShapedType::isDynamic(range) &&
        iterators[index] == utils::IteratorType::parallel)
      return index;
  return std::nullopt;
}

/// Whether the fusion may compute `producer`'s slice inside the consumer's
/// tile loop `loop`: a linalg op read by nothing but the loop, the ops this
/// tiling replaces (`replaced`: the consumer, the producers fused so far)
/// and tensor.dim ops (the tiling's own loop bounds; its init has the same
/// shape), so that it is computed exactly once, tile by tile, and needs no
/// result of the loop (the residual sum that the next norm and the next
/// residual add both read stays a loop of its own). A linalg.fill is always
/// fused: filling a tile again costs less than a loop of its own (CSE makes
/// one fill the initial sums of every norm of a layer).
bool isFusibleProducer(OpResult producer, Operation *loop,
                       const llvm::SmallPtrSetImpl<Operation *> &replaced) {
  if (isa<linalg::FillOp>(producer.getOwner()))
    return true;
  if (!isa<linalg::LinalgOp>(producer.getOwner()))
    return false;
  return llvm::all_of(producer.getUsers(), [&](Operation *user) {
    return replaced.contains(user) || loop->isAncestor(user) ||
           isa<tensor::DimOp>(user);
  });
}

/// Points the tensor.dim ops that read a result of `op` (a linalg op) at
/// the init operand the result is computed into, which has its shape.
void readDimsFromInits(RewriterBase &rewriter, linalg::LinalgOp op) {
  for (OpResult result : op->getResults()) {
    Value init = op.getDpsInitOperand(result.getResultNumber())->get();
    for (OpOperand &use : llvm::make_early_inc_range(result.getUses()))
      if (isa<tensor::DimOp>(use.getOwner()))
        rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(init); });
  }
}

struct LLMCPUParallelRowsPass
    : llmc::impl::LLMCPUParallelRowsBase<LLMCPUParallelRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](func::FuncOp function) {
      if (function.isExternal())
        return;
      // Consumers first: the ops of the function's own block (not those in
      // attention's loops) from the last to the first, each fusing the
      // producers isFusibleProducer accepts, which are then skipped (and,
      // unless something else still reads them, gone).
      SmallVector<linalg::LinalgOp> candidates;
      for (Operation &op : function.getBody().front())
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
          if (linalgOp.hasPureTensorSemantics() && getRowLoop(linalgOp))
            candidates.push_back(linalgOp);
      llvm::SmallPtrSet<Operation *, 16> fused;
      for (linalg::LinalgOp op : llvm::reverse(candidates)) {
        if (fused.contains(op))
          continue;
        if (failed(tileRows(rewriter, op, fused)))
          return signalPassFailure();
      }
    });
  }

  /// Rows per tile of `op`: rowsPerTile, or more where a row is short, so
  /// that a tile holds at least minTileElements iterations of the op's
  /// other loops (a 64-wide model's rows would otherwise be less work per
  /// tile than taking it).
  int64_t getRowsPerTile(linalg::LinalgOp op, unsigned rowLoop) const {
    int64_t perRow = 1;
    for (auto [index, range] : llvm::enumerate(op.getStaticLoopRanges())) {
      if (index == rowLoop)
        continue;
      if (ShapedType::isDynamic(range))
        return rowsPerTile;
      perRow *= range;
    }
    return std::max<int64_t>(
        rowsPerTile,
        llvm::divideCeil(minTileElements, std::max<int64_t>(perRow, 1)));
  }

  /// Tiles `op` into an scf.forall over tiles of getRowsPerTile rows of its
  /// row loop (the other loops whole) and fuses its producers that
  /// isFusibleProducer accepts; records them in `fused` and erases those
  /// that nothing reads any more.
  LogicalResult tileRows(RewriterBase &rewriter, linalg::LinalgOp op,
                         llvm::SmallPtrSetImpl<Operation *> &fused) {
    unsigned rowLoop = *getRowLoop(op);
    SmallVector<OpFoldResult> tileSizes(op.getNumLoops(),
                                        rewriter.getIndexAttr(0));
    tileSizes[rowLoop] = rewriter.getIndexAttr(getRowsPerTile(op, rowLoop));
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(tileSizes).setLoopType(
        scf::SCFTilingOptions::LoopType::ForallOp);
    scf::SCFTileAndFuseOptions options;
    llvm::SmallPtrSet<Operation *, 4> replaced = {op.getOperation()};
    options.setTilingOptions(tiling).setFusionControlFn(
        [&](tensor::ExtractSliceOp slice, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!isFusibleProducer(producer, slice->getParentOp(), replaced))
            return std::nullopt;
          replaced.insert(producer.getOwner());
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(result))
      return op.emitError("cannot tile this op over its rows");
    for (OpResult value : op->getResults())
      rewriter.replaceAllUsesWith(value, result->replacements.lookup(value));
    rewriter.eraseOp(op);
    // The fused producers are dead once their consumer is replaced; one may
    // still feed another (a norm's fill feeds its sum), so erase users first.
    SmallVector<Operation *> dead(result->fusedProducers.begin(),
                                  result->fusedProducers.end());
    fused.insert(dead.begin(), dead.end());
    for (Operation *producer : dead) {
      readDimsFromInits(rewriter, cast<linalg::LinalgOp>(producer));
      // The fusion leaves the slices it fused along in the loop, unread.
      for (Operation *user : llvm::make_early_inc_range(producer->getUsers()))
        if (isa<tensor::ExtractSliceOp>(user) && user->use_empty())
          rewriter.eraseOp(user);
    }
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation *&producer : dead)
        if (producer && producer->use_empty()) {
          rewriter.eraseOp(producer);
          producer = nullptr;
          erased = true;
        }
    }
    return success();
  }
};

} // namespace
