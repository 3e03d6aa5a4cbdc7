#pragma once
// Bytes per weight of each part of a model under a precision: the transformer layers'
// matrices, the token embedding and the LM head. A plain checkpoint stores its layers in
// the weight precision (plus its group scales) and keeps both tables 16-bit; a GGUF file
// mixes ggml types per tensor (model/gguf.h), LM head included. The one place the step
// cost model and the memory planner take weight sizes from.
#include "cost/precision.h"
#include "model/model_spec.h"

namespace servesim {

struct WeightElementBytes {
  double layers = 2;     // average over the layers' matrices
  // The same per tensor group: a checkpoint may leave some groups unquantized (model_spec.h
  // TensorGroup); a GGUF file's mix is averaged over all of them (each = layers).
  double attention = 2, dense_mlp = 2, experts = 2, shared_experts = 2, state_layers = 2;
  double embedding = 2;  // token embedding table
  double lm_head = 2;    // output projection (the embedding again when tied)
};

WeightElementBytes weight_element_bytes(const ModelSpec& m, const ResolvedPrecision& p);

}  // namespace servesim
