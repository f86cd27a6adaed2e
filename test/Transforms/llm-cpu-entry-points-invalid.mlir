// Every error of llm-cpu-entry-points.
// RUN: llmc-opt %s -split-input-file --llm-cpu-entry-points --verify-diagnostics

module {
  // expected-error @+1 {{must be private: a public model function returns a copy of the KV cache instead of updating it in place}}
  func.func @decode(%tok: memref<1x1xi32> {llm.input = "tokens"}) -> memref<1x1x8xf32> {
    %a = memref.alloc() : memref<1x1x8xf32>
    return %a : memref<1x1x8xf32>
  }
}

// -----

module {
  // expected-error @+1 {{expected one memref result (the logits) after bufferization}}
  func.func private @decode(%tok: memref<1x1xi32> {llm.input = "tokens"}, %cache: memref<4xf32> {llm.input = "kv_cache"}) -> (memref<1x1x8xf32>, memref<4xf32>) {
    %a = memref.alloc() : memref<1x1x8xf32>
    return %a, %cache : memref<1x1x8xf32>, memref<4xf32>
  }
}

// -----

module {
  // expected-error @+1 {{argument 1 has neither an `llm.input` nor an `llm.weight` role}}
  func.func private @decode(%tok: memref<1x1xi32> {llm.input = "tokens"}, %x: memref<4xf32>) -> memref<1x1x8xf32> {
    %a = memref.alloc() : memref<1x1x8xf32>
    return %a : memref<1x1x8xf32>
  }
}

// -----

module {
  // expected-error @+1 {{argument 0 is not a memref after bufferization}}
  func.func private @decode(%tok: tensor<1x1xi32> {llm.input = "tokens"}) -> memref<1x1x8xf32> {
    %a = memref.alloc() : memref<1x1x8xf32>
    return %a : memref<1x1x8xf32>
  }
}

// -----

module {
  // expected-error @+1 {{argument 0 has a dynamic extent but the entry point has no seq_len}}
  func.func private @decode(%tok: memref<1x?xi32> {llm.input = "tokens"}) -> memref<1x1x8xf32> {
    %a = memref.alloc() : memref<1x1x8xf32>
    return %a : memref<1x1x8xf32>
  }
}

// -----

module {
  // expected-error @+1 {{argument 1: `logit_rows` must be an index argument of the prefill}}
  func.func private @decode(%tok: memref<1x1xi32> {llm.input = "tokens"}, %rows: index {llm.input = "logit_rows"}) -> memref<1x1x8xf32> {
    %a = memref.alloc() : memref<1x1x8xf32>
    return %a : memref<1x1x8xf32>
  }
}

// -----

module {
  // expected-error @+1 {{argument 1: `logit_rows` must be an index argument of the prefill}}
  func.func private @prefill(%tok: memref<1x?xi32> {llm.input = "tokens"}, %rows: i64 {llm.input = "logit_rows"}) -> memref<1x?x8xf32> {
    %c1 = arith.constant 1 : index
    %a = memref.alloc(%c1) : memref<1x?x8xf32>
    return %a : memref<1x?x8xf32>
  }
}

// -----

module {
  // expected-error @+1 {{logits have a dynamic extent without logit_rows}}
  func.func private @decode(%tok: memref<1x1xi32> {llm.input = "tokens"}) -> memref<1x?x8xf32> {
    %c1 = arith.constant 1 : index
    %a = memref.alloc(%c1) : memref<1x?x8xf32>
    return %a : memref<1x?x8xf32>
  }
}
