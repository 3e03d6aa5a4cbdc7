#pragma once
#include <string>
#include <vector>

#include "hardware/gpu_spec.h"
#include "config/config_map.h"

namespace servesim {

// A catalog name ("h100-sxm") or a path to a GPU YAML. Unknown names list the valid ones.
GpuSpec load_gpu(const std::string& name_or_path);
GpuSpec parse_gpu(ConfigMap& doc);
std::vector<std::string> gpu_catalog_names();

// Reads `efficiency:` overrides (fractions as numbers, overheads as durations) into e.
void apply_efficiency_overrides(ConfigMap& m, Efficiency& e);

// Reads a scenario's `hardware.interconnect:` overrides into g: for each of intra_node,
// inter_node and host, an optional `bandwidth` (> 0) and `latency` (>= 0), e.g.
// `--set hardware.interconnect.intra_node.latency="20 us"` (what `calibrate static`
// fits for engines whose collectives cost more than the link's own latency).
void apply_interconnect_overrides(ConfigMap& m, GpuSpec& g);

}  // namespace servesim
