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
  }
  if ((!m.moe.enabled() || m.moe.dense_layers > 0) && m.ffn <= 0) fail("mlp.intermediate_size must be positive");
}

}  // namespace servesim
