#pragma once
// Where one replica's GPUs sit: how many nodes it spans, how many GPUs share an
// NVLink domain, and what that means for the expert-parallel group (how many of its
// ranks a token reaches over NVLink and how many over the scale-out network). Pure
// geometry from the declared layout (cost/parallelism.h) and the GPU's node size.
#include <string>

#include "cost/parallelism.h"
#include "hardware/gpu_spec.h"

namespace servesim {

struct ReplicaLayout {
  int gpus_per_stage = 1;   // tp x attention_dp: the GPUs one pipeline stage spans
  int gpus_per_node = 8;    // GPUs of one node, i.e. one NVLink (scale-up) domain
  int nodes = 1;            // nodes one replica spans (all its stages)
  int ep = 1;
  int moe_tp = 1;           // GPUs sharing each routed expert
  int ep_per_node = 1;      // EP ranks inside one NVLink domain: min(ep, gpus_per_node)
  int ep_nodes = 1;         // NVLink domains the EP group spans: ceil(ep / gpus_per_node)
  bool ep_crosses_network() const { return ep_nodes > 1; }
  // "2 nodes x 8 GPUs, attention tp=1 x dp=16, MoE ep=16 (EP across 2 NVLink domains)"
  std::string describe(const Parallelism& p) const;
};

// The layout of `p` on `gpu` (gpu.gpus_per_node is the NVLink domain; a scenario's
// parallelism.gpus_per_node has already replaced it). Throws servesim::Error with
// the numbers when parallelism.nodes contradicts them.
ReplicaLayout resolve_layout(const Parallelism& p, const GpuSpec& gpu);

}  // namespace servesim
