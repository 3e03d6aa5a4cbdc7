// The extra work of a step whose tokens carry LoRA adapters, as vLLM runs it on a
// GPU (Punica's SGMV kernels, Triton ops: vllm/lora/punica_wrapper/punica_gpu.py
// add_lora_linear, vllm/lora/ops/triton_ops/lora_shrink_op.py and lora_expand_op.py).
// For every wrapped module of every layer (qkv_proj, o_proj, gate_up_proj, down_proj:
// cost/lora_shape.h), after the base GEMM:
//   shrink  buffer[slice] = x @ A[adapter of the token]   (its fp32 buffer zeroed first)
//   expand  y[slice]     += buffer[slice] @ B[adapter of the token]
// over the tokens that carry an adapter (the others have lora id -1 and are skipped;
// a step with none launches nothing: no_lora_flag_cpu). Priced by the roofline as two
// GEMM ops summed over the layers, with T the step's adapter tokens, k its distinct
// adapters and r the slots' rank (max_lora_rank: the kernels run over the padded slot):
//   FLOPs        shrink 2 T r a_in, expand 2 T r b_out   (2 x tokens x r x (d_in + d_out) per linear)
//   weights      each distinct adapter's A (r x a_in) and B (r x b_out) read once: k r (a_in + b_out) x 2 B
//   activations  shrink reads x once per A slice (T a_in) and writes the fp32 buffer (T slices r x 4 B);
//                expand reads the buffer and reads and writes y (T b_out, twice)
//   launches     3 per module per layer (zero, shrink, expand), each the GPU's kernel_overhead
// The GEMMs' tile fill follows the tokens per adapter (T / k: each adapter is its own segment).
#include <fmt/format.h>

#include "cost/layer_ops.h"
#include "cost/op_builders.h"
#include "util/error.h"

namespace servesim {

CostPart CostModel::lora_ops(const LoraLoad& l, std::vector<OpCost>* ops) const {
  CostPart part;
  if (l.adapters <= 0 || l.tokens <= 0) return part;
  if (!lora_.supported() || wide_)
    throw Error(fmt::format("internal: a LoRA batch on model '{}', which servesim cannot give adapters", model_.name));
  const LoraGeometry& g = lora_;
  const double T = static_cast<double>(l.tokens);
  const double k = static_cast<double>(l.adapters);
  const double r = static_cast<double>(l.rank);
  const double L = g.layers;
  const double a = act_bytes_;
  const double w = kLoraElementBytes;
  constexpr double kBufferBytes = 4.0;  // the shrink output is fp32 (punica_gpu.py, triton issue 1387)
  auto put = [&](OpCost op) { emit(op, true, part, ops); };

  OpCost shrink;
  shrink.name = "lora_shrink";
  shrink.kind = OpKind::gemm;
  shrink.m_tokens = T / k;
  shrink.flops = L * 2.0 * T * r * g.a_in;
  shrink.weight_bytes = L * k * r * g.a_in * w;
  shrink.activation_bytes = L * (T * g.a_in * a + T * g.slices * r * kBufferBytes);
  shrink.count = L * 2.0 * g.modules;
  put(shrink);

  OpCost expand;
  expand.name = "lora_expand";
  expand.kind = OpKind::gemm;
  expand.m_tokens = T / k;
  expand.flops = L * 2.0 * T * r * g.b_out;
  expand.weight_bytes = L * k * r * g.b_out * w;
  expand.activation_bytes = L * (T * g.slices * r * kBufferBytes + 2.0 * T * g.b_out * a);
  expand.count = L * g.modules;
  put(expand);
  return part;
}

void CostModel::add_to_totals(StepTotals& t, const CostPart& p) const {
  // As combine(): layer time counts for the busiest stage by its share of the layers.
  t.time += p.layer_time + p.other_time;
  t.stage_time += p.layer_time * (static_cast<double>(shard_.layers) / model_.layers) + p.other_time;
  t.flops += p.flops;
  t.bytes += p.bytes;
  for (std::size_t i = 0; i < t.time_by_bound.size(); ++i) t.time_by_bound[i] += p.time_by_bound[i];
}

}  // namespace servesim
