// The llm-openmp-loop-schedule pass: OpenMP worksharing loops scheduled at run time.
#include "passes/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace llmc {
#define GEN_PASS_DEF_LLMOPENMPLOOPSCHEDULE
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

struct LLMOpenMPLoopSchedulePass
    : llmc::impl::LLMOpenMPLoopScheduleBase<LLMOpenMPLoopSchedulePass> {
  void runOnOperation() override {
    getOperation()->walk([](omp::WsloopOp loop) {
      if (!loop.getScheduleKindAttr())
        loop.setScheduleKindAttr(omp::ClauseScheduleKindAttr::get(
            loop.getContext(), omp::ClauseScheduleKind::Runtime));
    });
  }
};

} // namespace
