// Definitions of the opaque C handles declared in runtime.h.
#ifndef LLMC_RUNTIME_HANDLES_H
#define LLMC_RUNTIME_HANDLES_H

#include "llmc/runtime.h"
#include "model.h"
#include "sampler.h"
#include "session.h"
#include "tokenizer/tokenizer.h"
#include "weight_set.h"

#include <memory>

/// Each handle wraps one C++ object; defined in one place because more than
/// one API file needs to see inside (the tokenizer reads weights metadata).
struct llmc_weights {
  llmc::rt::WeightSet set;
};

struct llmc_tokenizer {
  llmc::rt::Tokenizer tok;
};

struct llmc_sampler {
  llmc::rt::Sampler s;
};

/// Shared ownership: every session holds the model (and its loaded library)
/// alive, so destroying the model handle first is safe.
struct llmc_model {
  std::shared_ptr<const llmc::rt::Model> model;
};

struct llmc_session {
  llmc::rt::Session session;
};

#endif // LLMC_RUNTIME_HANDLES_H
