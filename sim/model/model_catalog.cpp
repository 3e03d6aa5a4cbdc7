#include "model/model_catalog.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace servesim {

std::vector<std::string> model_catalog_names() { return list_catalog("models"); }

void validate_model(const ModelSpec& m, const std::string& where) {
  auto fail = [&](const std::string& why) { throw Error(fmt::format("{}: model '{}': {}", where, m.name, why)); };
  if (m.layers <= 0) fail("layers must be positive");
  if (m.hidden <= 0) fail("hidden_size must be positive");
  if (m.heads <= 0 || m.kv_heads <= 0) fail("heads and kv_heads must be positive");
  if (m.heads % m.kv_heads != 0)
    fail(fmt::format("{} attention heads are not a multiple of {} KV heads", m.heads, m.kv_heads));
  if (m.head_dim <= 0) fail("head_dim must be positive");
  if (m.vocab <= 0) fail("vocab_size must be positive");
  if (m.moe.enabled()) {
    if (m.moe.experts_per_token <= 0 || m.moe.experts_per_token > m.moe.num_experts)
      fail(fmt::format("experts_per_token {} must be in 1..{}", m.moe.experts_per_token, m.moe.num_experts));
    if (m.moe.expert_ffn <= 0) fail("moe.expert_intermediate_size must be positive");
    if (m.moe.dense_layers < 0 || m.moe.dense_layers > m.layers) fail("moe.dense_layers out of range");
    if (m.moe.layer_step < 1) fail(fmt::format("moe.layer_step {} must be at least 1", m.moe.layer_step));
  }
  if (m.dense_mlp_layers() > 0 && m.ffn <= 0) fail("mlp.intermediate_size must be positive");
  if (m.moe_layers() > m.mlp_layers())
    fail(fmt::format("{} MoE layers but only {} layers with an MLP", m.moe_layers(), m.mlp_layers()));
  if (m.local.kind != LocalAttention::Kind::none) {
    if (m.local.span <= 0) fail("the local attention span (sliding_window or attention_chunk) must be positive");
    if (m.local.layers < 1 || m.local.layers > m.attention_layers())
      fail(fmt::format("attention.local_layers {} must be in 1..{} (the model's attention layers)", m.local.layers,
                       m.attention_layers()));
    if (m.mla.enabled() && m.local.kind != LocalAttention::Kind::topk)
      fail("a sliding window or chunked attention with multi-head latent attention is not modelled");
  }
  if (m.indexer.enabled() && m.local.kind != LocalAttention::Kind::topk)
    fail("a sparse-attention indexer without top-k attention");
  if (m.state.kind != StateLayers::Kind::none) {
    if (m.state.layers < 1 || m.state.layers > m.layers)
      fail(fmt::format("{} state layers must be in 1..{}", m.state.layers, m.layers));
    if (m.state.heads <= 0 || m.state.head_dim <= 0 || m.state.key_dim <= 0 || m.state.conv_kernel < 1)
      fail(fmt::format("state layers ({}) need positive heads, widths and conv kernel", m.state.kind_name()));
  }
  if (m.attention_layers() < 0 || m.attention_layers() > m.layers)
    fail(fmt::format("{} attention layers must be in 0..{}", m.attention_layers(), m.layers));
  if (m.mlp_layers() < 0 || m.mlp_layers() > m.layers)
    fail(fmt::format("{} MLP layers must be in 0..{}", m.mlp_layers(), m.layers));
}

}  // namespace servesim
