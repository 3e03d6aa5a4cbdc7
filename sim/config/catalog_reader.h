#pragma once
// Reading GPU and model catalog files (hardware/*.yaml, models/*.yaml) and the
// scenario's overrides of a GPU (`hardware.efficiency`, `hardware.interconnect`).
// The keys these read are declared in config/keys_gpu.cpp and keys_model.cpp
// (catalog_key_sections()); sim/hardware and sim/model hold the specs only.
#include <string>

#include "config/config_map.h"
#include "hardware/gpu_catalog.h"
#include "model/model_catalog.h"

namespace servesim {

// A catalog name ("h100-sxm") or a path to a GPU YAML. Unknown names list the valid ones.
GpuSpec load_gpu(const std::string& name_or_path);
GpuSpec parse_gpu(ConfigMap& doc);

// Reads `efficiency:` overrides (fractions as numbers, overheads as durations) into e;
// the knobs and their ranges are hardware/efficiency.h's table.
void apply_efficiency_overrides(ConfigMap& m, Efficiency& e);

// Reads a scenario's `hardware.interconnect:` overrides into g: for each of intra_node,
// inter_node and host, an optional `bandwidth` (> 0) and `latency` (>= 0), e.g.
// `--set hardware.interconnect.intra_node.latency="20 us"` (what `calibrate static`
// fits for engines whose collectives cost more than the link's own latency).
void apply_interconnect_overrides(ConfigMap& m, GpuSpec& g);

// A catalog name ("llama-3.1-8b"), a path to a model YAML, or a path to a Hugging
// Face config.json. Unknown names list the valid ones.
ModelSpec load_model(const std::string& name_or_path);
ModelSpec parse_model(ConfigMap& doc);

}  // namespace servesim
