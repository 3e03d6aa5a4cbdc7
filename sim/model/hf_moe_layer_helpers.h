#pragma once
// Helpers the MoE family readers share (defined in hf_moe_2026_families.cpp): which layers are
// dense and which MoE, and the SwiGLU-only check.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "model/model_spec.h"

namespace servesim {

// moe_layers_enum (Step-3, Step-3.5): the MoE layers' indices as a comma-separated string
// ("3,4,5,...,44"); an entry that is not a non-negative integer is refused naming the field.
std::vector<std::int64_t> parse_layer_list(const nlohmann::json& v, const std::string& where);
// Dense and MoE layers from a per-layer list: `moe[i]` true where layer i is MoE. A leading run
// of dense layers is servesim's dense_layers; any other order is counted (listed_layers).
void set_moe_layers(const std::vector<bool>& moe, ModelSpec& m);
// mlp_layer_types ("dense" / "sparse" a layer), else is_moe_layer (true / false a layer), else the
// first first_k_dense_replace layers (default `default_dense`) dense; then set_moe_layers.
void read_mlp_layer_kinds(const JsonFields& f, ModelSpec& m, std::int64_t default_dense);
// Refuses a hidden_act other than silu: vLLM's `family` runs SwiGLU only.
void require_silu(const JsonFields& f, const char* family);

}  // namespace servesim
