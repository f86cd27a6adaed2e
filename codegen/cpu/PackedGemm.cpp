// The prefill GEMM on float weights as an outer product of x elements and packed weight panels.
#include "codegen/cpu/PackedGemm.h"
#include "codegen/cpu/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace llmc;

namespace {

/// Alignment of the panel buffer: one cache line.
constexpr int64_t kPanelAlignment = 64;

} // namespace

Value llmc::packWeightPanel(OpBuilder &b, Location loc, Value rows, Value n0,
                            int64_t panelRows, int64_t depth, int64_t lanes) {
  assert(panelRows % lanes == 0 && "whole groups of lanes rows");
  Value panel = memref::AllocOp::create(
      b, loc, MemRefType::get({depth, panelRows}, b.getF32Type()),
      ValueRange{}, b.getI64IntegerAttr(kPanelAlignment));
  int64_t depthMain = depth / lanes * lanes;
  // Columns [k0, k0 + count) of the panel's rows group * lanes + i.
  auto packBlock = [&](OpBuilder &pb, Location ploc, int64_t group, Value k0,
                       int64_t count, Value mask) {
    SmallVector<Value> vectors;
    for (int64_t i = 0; i < lanes; ++i) {
      Value row = arith::AddIOp::create(
          pb, ploc, n0, indexConstant(pb, ploc, group * lanes + i));
      vectors.push_back(readWidenedRowVector(pb, ploc, rows, row, k0, mask, lanes));
    }
    SmallVector<Value> columns = transposeRows(pb, ploc, vectors);
    for (int64_t t = 0; t < count; ++t) {
      Value k = arith::AddIOp::create(pb, ploc, k0, indexConstant(pb, ploc, t));
      vector::StoreOp::create(
          pb, ploc, columns[t], panel,
          ValueRange{k, indexConstant(pb, ploc, group * lanes)});
    }
  };
  for (int64_t group = 0; group < panelRows / lanes; ++group) {
    if (depthMain > 0)
      scf::ForOp::create(
          b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, depthMain),
          indexConstant(b, loc, lanes), ValueRange{},
          [&](OpBuilder &fb, Location floc, Value k0, ValueRange) {
            packBlock(fb, floc, group, k0, lanes, Value());
            scf::YieldOp::create(fb, floc);
          });
    if (depth > depthMain) {
      Value mask = vector::CreateMaskOp::create(
          b, loc, VectorType::get({lanes}, b.getI1Type()),
          ValueRange{indexConstant(b, loc, depth - depthMain)});
      packBlock(b, loc, group, indexConstant(b, loc, depthMain),
                depth - depthMain, mask);
    }
  }
  return panel;
}

void llmc::multiplyPackedPanel(OpBuilder &b, Location loc, Value x,
                               Value panel, Value out, Value m, Value n0,
                               int64_t xRows, int64_t lanes, Value k0,
                               Value k1) {
  int64_t panelRows = cast<MemRefType>(panel.getType()).getDimSize(1);
  int64_t vectors = panelRows / lanes;
  auto vectorType = VectorType::get({lanes}, b.getF32Type());
  SmallVector<Value> xRowIndices, columns;
  for (int64_t i = 0; i < xRows; ++i)
    xRowIndices.push_back(
        i == 0 ? m : arith::AddIOp::create(b, loc, m, indexConstant(b, loc, i)));
  for (int64_t v = 0; v < vectors; ++v)
    columns.push_back(
        v == 0 ? n0
               : arith::AddIOp::create(b, loc, n0,
                                       indexConstant(b, loc, v * lanes)));
  SmallVector<Value> sums;
  for (Value row : xRowIndices)
    for (Value column : columns)
      sums.push_back(vector::LoadOp::create(b, loc, vectorType, out,
                                            ValueRange{row, column}));
  auto loop = scf::ForOp::create(
      b, loc, k0, k1, indexConstant(b, loc, 1), sums,
      [&](OpBuilder &fb, Location floc, Value k, ValueRange carried) {
        SmallVector<Value> weights;
        for (int64_t v = 0; v < vectors; ++v)
          weights.push_back(vector::LoadOp::create(
              fb, floc, vectorType, panel,
              ValueRange{k, indexConstant(fb, floc, v * lanes)}));
        SmallVector<Value> updated;
        for (auto [i, row] : llvm::enumerate(xRowIndices)) {
          Value element = tensor::ExtractOp::create(fb, floc, x,
                                                    ValueRange{row, k});
          Value broadcast = vector::BroadcastOp::create(
              fb, floc, vectorType,
              convertFloat(fb, floc, element, fb.getF32Type()));
          for (int64_t v = 0; v < vectors; ++v)
            updated.push_back(vector::FMAOp::create(
                fb, floc, weights[v], broadcast, carried[i * vectors + v]));
        }
        scf::YieldOp::create(fb, floc, updated);
      });
  for (auto [i, row] : llvm::enumerate(xRowIndices))
    for (auto [v, column] : llvm::enumerate(columns))
      vector::StoreOp::create(b, loc, loop.getResult(i * vectors + v), out,
                              ValueRange{row, column});
}

void llmc::initializePanelOutputs(OpBuilder &b, Location loc, Value bias,
                                  Value out, Value m0, Value m1, Value n0,
                                  int64_t panelRows, int64_t lanes) {
  auto vectorType = VectorType::get({lanes}, b.getF32Type());
  SmallVector<Value> initial;
  for (int64_t first = 0; first < panelRows; first += lanes) {
    if (!bias) {
      initial.push_back(arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vectorType, b.getF32FloatAttr(0.0f))));
      continue;
    }
    Type elementType = cast<ShapedType>(bias.getType()).getElementType();
    Value column =
        arith::AddIOp::create(b, loc, n0, indexConstant(b, loc, first));
    Value vector = vector::TransferReadOp::create(
        b, loc, VectorType::get({lanes}, elementType), bias,
        ValueRange{column},
        arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, 0.0)),
        ArrayRef<bool>{true});
    initial.push_back(elementType.isF32()
                          ? vector
                          : arith::ExtFOp::create(b, loc, vectorType, vector)
                                .getResult());
  }
  scf::ForOp::create(
      b, loc, m0, m1, indexConstant(b, loc, 1), ValueRange{},
      [&](OpBuilder &fb, Location floc, Value m, ValueRange) {
        for (auto [v, vector] : llvm::enumerate(initial))
          vector::StoreOp::create(
              fb, floc, vector, out,
              ValueRange{m, arith::AddIOp::create(
                                fb, floc, n0,
                                indexConstant(fb, floc, v * lanes))});
        scf::YieldOp::create(fb, floc);
      });
}
