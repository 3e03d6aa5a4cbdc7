#include "cost/parallelism.h"

#include <fmt/format.h>

#include "util/error.h"

namespace servesim {

void validate_parallelism(const Parallelism& p, const ModelSpec& m) {
  if (p.tp < 1 || p.pp < 1 || p.ep < 1 || p.replicas < 1 || p.attention_dp < 1)
    throw Error(fmt::format("parallelism must be >= 1 (tp={}, pp={}, ep={}, attention_dp={}, replicas={})", p.tp, p.pp,
                            p.ep, p.attention_dp, p.replicas));
  if (p.redundant_experts < 0)
    throw Error(fmt::format("redundant_experts={} must be >= 0", p.redundant_experts));
  if (m.heads % p.tp != 0)
    throw Error(fmt::format("tp={} does not divide {} attention heads of {}", p.tp, m.heads, m.name));
  // Step-3.5-Flash and Laguna: the global layers' own query heads are split over tp as well.
  if (m.global_heads > 0 && m.global_heads % p.tp != 0)
    throw Error(fmt::format("tp={} does not divide {} attention heads of the full-attention layers of {}", p.tp,
                            m.global_heads, m.name));
  if (p.tp > m.kv_heads && p.tp % m.kv_heads != 0)
    throw Error(fmt::format("tp={} is neither a divisor nor a multiple of {} KV heads of {}", p.tp, m.kv_heads, m.name));
  if (p.tp <= m.kv_heads && m.kv_heads % p.tp != 0)
    throw Error(fmt::format("tp={} does not divide {} KV heads of {}", p.tp, m.kv_heads, m.name));
  // Nemotron-51B: every group of attention layers splits (or replicates) its own KV heads.
  for (const KvHeadGroup& g : m.kv_head_groups)
    if ((p.tp > g.kv_heads && p.tp % g.kv_heads != 0) || (p.tp <= g.kv_heads && g.kv_heads % p.tp != 0))
      throw Error(fmt::format("tp={} is neither a divisor nor a multiple of the {} KV heads of {} attention layers of {}",
                              p.tp, g.kv_heads, g.layers, m.name));
  if (p.pp > m.layers) throw Error(fmt::format("pp={} exceeds the {} layers of {}", p.pp, m.layers, m.name));
  if (p.attention_dp > 1 && !m.moe.enabled())
    throw Error(fmt::format("attention_dp={} given but {} is not a mixture-of-experts model: data-parallel attention "
                            "ranks only share a replica through its experts (for a dense model use replicas={})",
                            p.attention_dp, m.name, p.attention_dp * p.replicas));
  if (p.ep > 1) {
    if (!m.moe.enabled()) throw Error(fmt::format("ep={} given but {} is not a mixture-of-experts model", p.ep, m.name));
    if (p.gpus_per_stage() % p.ep != 0)
      throw Error(fmt::format("ep={} must divide the {} GPUs of a pipeline stage (tp={} x attention_dp={}): the "
                              "experts are split over the stage's GPUs",
                              p.ep, p.gpus_per_stage(), p.tp, p.attention_dp));
  }
  if (p.redundant_experts > 0 && p.ep < 2)
    throw Error(fmt::format("redundant_experts={} needs expert parallelism (ep > 1): with ep=1 every GPU already holds "
                            "a slice of every expert",
                            p.redundant_experts));
  if (m.moe.enabled() && (m.moe.num_experts + p.redundant_experts) % p.ep != 0)
    throw Error(fmt::format(
        "ep={} does not divide the {} expert slots of {} ({} routed experts{}); choose ep dividing them or change "
        "redundant_experts",
        p.ep, m.moe.num_experts + p.redundant_experts, m.name, m.moe.num_experts,
        p.redundant_experts > 0 ? fmt::format(" + {} redundant", p.redundant_experts) : std::string()));
}

ShardShape shard_shape(const Parallelism& p, const ModelSpec& m) {
  ShardShape s;
  s.layers = (m.layers + p.pp - 1) / p.pp;
  // The busiest stage holds the most MoE layers (dense layers come first).
  s.moe_layers = std::min(s.layers, m.moe_layers());
  s.heads = m.heads / p.tp;
  s.kv_heads = std::max(1, m.kv_heads / p.tp);
  s.ffn = m.ffn / p.tp;
  if (m.moe.enabled()) {
    s.experts = p.expert_slots(m);
    s.expert_ffn = m.moe.expert_ffn * p.ep / p.gpus_per_stage();  // / moe_tp()
  }
  s.vocab = (m.vocab + p.tp - 1) / p.tp;
  return s;
}

}  // namespace servesim
