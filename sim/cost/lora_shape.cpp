#include "cost/lora_shape.h"

#include <fmt/format.h>

namespace servesim {

std::string lora_unsupported_reason(const ModelSpec& m) {
  if (m.moe.enabled()) return fmt::format("{} is a mixture of experts (LoRA on expert weights is not modelled)", m.name);
  if (m.mla.enabled()) return fmt::format("{} uses multi-head latent attention (its LoRA targets are not modelled)", m.name);
  if (m.state.enabled()) return fmt::format("{} has state layers ({})", m.name, m.state.describe());
  if (m.indexer.enabled()) return fmt::format("{} has a sparse-attention indexer", m.name);
  if (m.compressed.enabled()) return fmt::format("{} has {}", m.name, m.compressed.describe());
  if (!m.kv_head_groups.empty())
    return fmt::format("{} has attention layers with differing KV-head counts", m.name);
  if (m.mixed_attention_shapes())
    return fmt::format("{} has global and local attention layers of different shapes", m.name);
  if (m.query_rank > 0) return fmt::format("{} projects its query through a low-rank query_rank", m.name);
  if (m.attention_output_gate) return fmt::format("{} has a gated attention output", m.name);
  if (m.v_head_dim > 0 && m.v_head_dim != m.head_dim)
    return fmt::format("{} has value heads of {} beside query/key heads of {}", m.name, m.v_head_dim, m.head_dim);
  if (m.layer_passes > 1)
    return fmt::format("{} is a looped model (its {} layers run {} times a token; adapters on weights shared by "
                       "the passes are not modelled)",
                       m.name, m.layers / m.layer_passes, m.layer_passes);
  if (!m.mlp_widths.empty()) return fmt::format("{} has MLP layers of differing widths", m.name);
  if (m.attention_layers() != m.layers || m.dense_mlp_layers() != m.layers)
    return fmt::format("{} has layers without attention or without an MLP", m.name);
  return {};
}

LoraGeometry lora_geometry(const ModelSpec& m, const ShardShape& s) {
  LoraGeometry g;
  if (!lora_unsupported_reason(m).empty()) return g;
  const double h = static_cast<double>(m.hidden), d = static_cast<double>(m.head_dim);
  const double gate_up = m.gated_mlp ? 2.0 : 1.0;  // gate and up, or a single up (fc1)
  g.layers = s.layers;
  g.layers_full = m.layers;
  g.modules = 4.0;                // qkv_proj, o_proj, gate_up_proj, down_proj
  g.slices = 3.0 + 1.0 + gate_up + 1.0;
  // Column-parallel q, k, v and gate/up: each A whole (r x h), B's output split over tp;
  // row-parallel o and down: A's input split over tp, B whole (r x h out).
  // heads, kv_heads and ffn: per GPU (the shard's, already divided by tp; KV heads
  // replicated when tp exceeds them), or the model's for the whole adapter.
  auto widths = [&](double heads, double kv_heads, double ffn, double* a_in, double* b_out) {
    *a_in = 3.0 * h + heads * d + gate_up * h + ffn;             // A of q, k, v (h each), o, gate/up, down
    *b_out = (heads + 2.0 * kv_heads) * d + h + gate_up * ffn + h;  // B of q, k, v, o, gate/up, down
  };
  widths(s.heads, s.kv_heads, static_cast<double>(s.ffn), &g.a_in, &g.b_out);
  widths(m.heads, m.kv_heads, static_cast<double>(m.ffn), &g.a_in_full, &g.b_out_full);
  return g;
}

}  // namespace servesim
