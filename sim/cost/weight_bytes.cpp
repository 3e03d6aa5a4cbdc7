#include "cost/weight_bytes.h"

namespace servesim {

WeightElementBytes weight_element_bytes(const ModelSpec& m, const ResolvedPrecision& p) {
  WeightElementBytes b;
  if (p.gguf == GgufType::none) {
    b.layers = m.weight_element_bytes(p.weights);  // with group scales of a quantized checkpoint
    b.attention = m.weight_element_bytes(p.weights, TensorGroup::attention);
    b.dense_mlp = m.weight_element_bytes(p.weights, TensorGroup::dense_mlp);
    b.experts = m.weight_element_bytes(p.weights, TensorGroup::experts);
    b.shared_experts = m.weight_element_bytes(p.weights, TensorGroup::shared_experts);
    b.state_layers = m.weight_element_bytes(p.weights, TensorGroup::state_layers);
    return b;  // both tables stay 16-bit in quantized checkpoints
  }
  const GgufTensorTypes t = gguf_tensor_types(p.gguf, m);
  b.layers = t.layer_bytes_per_weight;
  b.attention = b.dense_mlp = b.experts = b.shared_experts = b.state_layers = b.layers;
  b.embedding = t.embedding_bytes_per_weight;
  b.lm_head = t.output_bytes_per_weight;
  return b;
}

}  // namespace servesim
