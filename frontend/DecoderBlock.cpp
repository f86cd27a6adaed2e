// Names of the decoder block's kinds, as `--compile-to=config` and `llmc info` print them.
#include "DecoderBlock.h"

#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace llmc {

StringRef toString(NormKind kind) {
  switch (kind) {
  case NormKind::RMSNorm:
    return "rms_norm";
  case NormKind::LayerNorm:
    return "layer_norm";
  }
  llvm_unreachable("unknown NormKind");
}

StringRef toString(NormPlacement placement) {
  switch (placement) {
  case NormPlacement::Pre:
    return "pre";
  case NormPlacement::Post:
    return "post";
  case NormPlacement::Sandwich:
    return "sandwich";
  }
  llvm_unreachable("unknown NormPlacement");
}

StringRef toString(ResidualTopology topology) {
  switch (topology) {
  case ResidualTopology::Sequential:
    return "sequential";
  case ResidualTopology::Parallel:
    return "parallel";
  }
  llvm_unreachable("unknown ResidualTopology");
}

StringRef toString(FeedForwardKind kind) {
  switch (kind) {
  case FeedForwardKind::Gated:
    return "gated";
  case FeedForwardKind::Plain:
    return "plain";
  }
  llvm_unreachable("unknown FeedForwardKind");
}

StringRef toString(QKNormKind kind) {
  switch (kind) {
  case QKNormKind::None:
    return "none";
  case QKNormKind::PerHead:
    return "per_head";
  case QKNormKind::Projection:
    return "projection";
  }
  llvm_unreachable("unknown QKNormKind");
}

StringRef toString(QKVLayout layout) {
  switch (layout) {
  case QKVLayout::Separate:
    return "separate";
  case QKVLayout::Concatenated:
    return "concatenated";
  case QKVLayout::PerHead:
    return "per_head";
  }
  llvm_unreachable("unknown QKVLayout");
}

StringRef toString(AttentionKind kind) {
  switch (kind) {
  case AttentionKind::MultiHead:
    return "multi_head";
  case AttentionKind::Latent:
    return "latent";
  }
  llvm_unreachable("unknown AttentionKind");
}

StringRef toString(LatentUpProjectionLayout layout) {
  switch (layout) {
  case LatentUpProjectionLayout::Fused:
    return "fused";
  case LatentUpProjectionLayout::Split:
    return "split";
  }
  llvm_unreachable("unknown LatentUpProjectionLayout");
}

} // namespace llmc
