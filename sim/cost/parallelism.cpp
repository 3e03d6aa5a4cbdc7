#include "cost/parallelism.h"

#include <fmt/format.h>

#include "util/error.h"

namespace servesim {

void validate_parallelism(const Parallelism& p, const ModelSpec& m) {
  if (p.tp < 1 || p.pp < 1 || p.ep < 1 || p.replicas < 1)
    throw Error(fmt::format("parallelism must be >= 1 (tp={}, pp={}, ep={}, replicas={})", p.tp, p.pp, p.ep, p.replicas));
  if (m.heads % p.tp != 0)
    throw Error(fmt::format("tp={} does not divide {} attention heads of {}", p.tp, m.heads, m.name));
  if (p.tp > m.kv_heads && p.tp % m.kv_heads != 0)
    throw Error(fmt::format("tp={} is neither a divisor nor a multiple of {} KV heads of {}", p.tp, m.kv_heads, m.name));
  if (p.tp <= m.kv_heads && m.kv_heads % p.tp != 0)
    throw Error(fmt::format("tp={} does not divide {} KV heads of {}", p.tp, m.kv_heads, m.name));
  if (p.pp > m.layers) throw Error(fmt::format("pp={} exceeds the {} layers of {}", p.pp, m.layers, m.name));
  if (p.ep > 1) {
    if (!m.moe.enabled()) throw Error(fmt::format("ep={} given but {} is not a mixture-of-experts model", p.ep, m.name));
    if (p.tp % p.ep != 0) throw Error(fmt::format("ep={} must divide tp={} (experts are split inside the TP group)", p.ep, p.tp));
    if (m.moe.num_experts % p.ep != 0)
      throw Error(fmt::format("ep={} does not divide {} experts of {}", p.ep, m.moe.num_experts, m.name));
  }
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
    s.experts = m.moe.num_experts / p.ep;
    s.expert_ffn = m.moe.expert_ffn * p.ep / p.tp;
  }
  s.vocab = (m.vocab + p.tp - 1) / p.tp;
  return s;
}

}  // namespace servesim
