#include "cost/replica_layout.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/error.h"

namespace servesim {

ReplicaLayout resolve_layout(const Parallelism& p, const GpuSpec& gpu) {
  ReplicaLayout l;
  l.gpus_per_stage = p.gpus_per_stage();
  l.gpus_per_node = std::max(1, gpu.gpus_per_node);
  const int gpus = p.gpus_per_replica();
  l.nodes = (gpus + l.gpus_per_node - 1) / l.gpus_per_node;
  if (p.nodes > 0 && p.nodes != l.nodes)
    throw Error(fmt::format("nodes={} does not match the layout: tp={} x attention_dp={} x pp={} = {} GPUs at {} GPUs "
                            "per node span {} node(s); set nodes={} or change gpus_per_node",
                            p.nodes, p.tp, p.attention_dp, p.pp, gpus, l.gpus_per_node, l.nodes, l.nodes));
  l.ep = p.ep;
  l.moe_tp = p.moe_tp();
  // The EP group is a stage's GPUs in rank order: consecutive ranks fill a node first.
  l.ep_per_node = std::min(p.ep, l.gpus_per_node);
  l.ep_nodes = (p.ep + l.gpus_per_node - 1) / l.gpus_per_node;
  return l;
}

std::string ReplicaLayout::describe(const Parallelism& p) const {
  std::string out = fmt::format("{} node{} x {} GPU{} per node, attention tp={} x dp={}", nodes, nodes == 1 ? "" : "s",
                                std::min(gpus_per_node, p.gpus_per_replica()),
                                std::min(gpus_per_node, p.gpus_per_replica()) == 1 ? "" : "s", p.tp, p.attention_dp);
  if (p.pp > 1) out += fmt::format(" x pp={}", p.pp);
  out += fmt::format(", MoE ep={}", ep);
  if (moe_tp > 1) out += fmt::format(" x moe tp={}", moe_tp);
  if (ep > 1)
    out += ep_crosses_network() ? fmt::format(" (EP across {} NVLink domains)", ep_nodes)
                                : std::string(" (EP inside one NVLink domain)");
  return out;
}

}  // namespace servesim
